"""Globally optimal bivariate splits: the BiDT branch and bound (Bollwein & Westphal, 2021).

For every ordered feature pair ``(j1, j2)`` the search looks for the rule
``a z_j1 + b <= z_j2`` of least weighted child impurity over the region
``[-1, 1] x [B_lo, B_hi]`` of ``(a, b)``, ``z`` being the node's features
normalized by their median and interquartile range (section 4.1). Slopes
``|a| > 1`` are the other ordered pair's slopes ``|1 / a| < 1``, so the two
orders together see every line. Identical points are merged first.

A subproblem is a box ``C = [a_lo, a_hi] x [b_lo, b_hi]``. It splits the
points into those every rule of ``C`` satisfies (``A``, go left), those no rule
satisfies (``B``) and the undecided ones (``I``), section 4.2. Boxes are
processed depth first, the child of least bound first:

* **lower bound**: with ``bound="paper"``, Theorem 4 (``I(n_A) + I(n_B)`` by
  concavity of the impurity) improved for entropy by Theorem 5 and for gini
  by Theorem 6 (the classification error uses Theorem 4 alone). With
  ``bound="vertex"`` (the default), Theorem 1 itself: the least impurity over
  the ways to send each class of ``I`` wholly to one side, never weaker and
  on real data orders of magnitude fewer subproblems. A box whose bound
  reaches ``(1 - epsilon)`` times the incumbent is pruned (section 5.1).
* **exploration criteria** (section 4.3) close a box by enumerating every
  partition it can make: 1. ``I`` is empty; 2. the points of ``I`` coincide
  (after merging: ``|I| = 1``), both sides are tried; 3. the points of ``I``
  share one class: by Theorem 1 one of the two lines putting all of ``I`` on
  one side is optimal in ``C``, and the paper's constant-time slope intervals
  say whether both exist; 4. the points of ``I`` are collinear (Theorem 2): a
  rule with slope ``a > a*`` satisfies exactly a prefix of them in ``z_j1``
  order, one with ``a < a*`` a suffix, and the cut between two consecutive
  points is reachable in ``C`` iff the crossing abscissa ``c = (b* - b) / (a -
  a*)``, whose range over the box follows from its corners, meets the gap
  between them: a constant-time test per partition (the paper's small linear
  program, solved in closed form). The same holds for points on a vertical
  line (one ``z_j1``), which Theorem 2 leaves out.
* **branching** (section 4.4): strategy 2 (mean of the per-point lines
  ``a_i z_j1 + b_i = z_j2`` with the mean intercept over the slopes of ``C``),
  clamped to the middle of each side so that every box shrinks by a fixed
  factor per level: the combination with strategy 1 that Theorem 3 needs for
  termination. The upper bound of a box is the rule at its branching point; a
  box whose upper bound attains its lower bound is closed.

Points a hair apart (``0.3888889`` next to ``0.38888889``) have nearly
parallel dual lines, and the boxes along them stay undecided until they are
that thin; a pair whose search outgrows the cost of its exact sweep, or meets a
box too thin for float64, is therefore solved by the rotational sweep of
:mod:`.sweep` instead, so that no pair costs much more than ``O(m^2 log m)``.

The search starts from the best univariate split as incumbent (a univariate
rule is the bivariate rule with ``a = 0``) and carries the best impurity from
pair to pair. Pairs run in parallel (section 5.2) in rounds of a number of
pairs fixed by the node's size: within a round every pair starts from the
incumbent of the round's start, and a serial pass in pair order then updates
it, so the result does not depend on the number of threads.

The winning rule is written back in original units (section 4.1) and its
threshold re-scanned with the routing arithmetic; the proven lower bound of the
search (from the boxes pruned by ``epsilon`` or left when ``time_limit`` ran
out) is reported in ``Split.info`` as a relative gap.

The same splitter runs the exact sweep on every pair with ``method="sweep"``;
it also handles ``squared_error``, where the impurity is not a concave function
of class counts and the paper's bounds do not apply.
"""

import math
import numbers
import threading
import time

import numba
import numpy as np
from numba import njit, prange

from .._config import ENTROPY, GINI, NUMBA_OPTS, SQUARED_ERROR
from .._kernels.criteria import xlogx
from .._kernels.scan import gather_node
from ._base import BEATS_TOLERANCE, Splitter, candidate_pairs, register
from ._pairs import finish_bivariate
from .._kernels.sweep import frequency_weighted_impurity, load_flag, node_statistics, sweep_pair, sweep_search
from .univariate import best_univariate_split

_INV_LN2 = 1.0 / math.log(2.0)

#: a round of the parallel search holds at least this many pairs, and more for
#: small nodes: about ``ROUND_WORK`` sample-pairs, so that starting a parallel
#: region costs little next to the work in it. Rounds depend on the node's size
#: only, never on the number of threads.
PAIRS_PER_ROUND = 16
ROUND_WORK = 20_000
#: nodes with fewer sample-pairs than this are searched by one thread.
PARALLEL_MIN_WORK = 50_000
#: a pair whose search needs more than ``max(SWEEP_MIN_BOXES, m^2 / SWEEP_BOX_RATIO)``
#: subproblems (``m`` distinct points) is solved by the exact sweep instead.
SWEEP_MIN_BOXES = 4096
SWEEP_BOX_RATIO = 16
#: the branching point stays this fraction of each side away from the box's edges.
BRANCH_CLAMP = 0.1
#: boxes between two looks at the stop flag.
_STOP_CHECK_EVERY = 256
#: a rule within this (relative) of a box's lower bound attains it.
_ATTAINED = 1e-12
#: points this close (relative) to one line count as collinear (criterion 4).
COLLINEAR_TOL = 1e-11
#: a box narrower than this (relative) cannot be branched in float64; its pair
#: is solved by the exact sweep instead.
_TINY = 1e-14

#: ``method="auto"`` runs the branch and bound for the classification criteria
#: (faster than the sweep on all but the smallest nodes, where both take well under
#: a millisecond; see benchmarks/bench_optimal.py) and the sweep for
#: ``squared_error``, where the bounds do not apply.
METHODS = ("auto", "branch_and_bound", "sweep")
#: lower bounds of the branch and bound (see :func:`_lower_bound`).
PAPER = 0
VERTEX = 1
BOUNDS = {"paper": PAPER, "vertex": VERTEX}
#: the vertex bound enumerates ``2^k'`` assignments; beyond this many classes, the paper's.
VERTEX_MAX_CLASSES = 8


# ------------------------------------------------------------------ criteria
@njit(**NUMBA_OPTS)
def _impurity(stats, k, criterion):
    return frequency_weighted_impurity(stats, k, criterion)


@njit(**NUMBA_OPTS)
def _bound_extra(m, k, criterion):
    """Theorem 5 / 6 term: a lower bound on ``I(m_L) + I(m_U)`` over all splits of ``m``."""
    if criterion == GINI:
        top = 0
        for c in range(1, k):
            if m[c] > m[top]:
                top = c
        w = 0.0
        s = 0.0
        for c in range(k):
            if c != top:
                w += m[c]
                s += m[c] * m[c]
        return w - s / w if w > 0.0 else 0.0
    if criterion == ENTROPY:
        total = 0.0
        h = 0.0
        for c in range(k):
            total += m[c]
            h -= xlogx(m[c])
        extra = (h + xlogx(total)) * _INV_LN2 - total  # M log2(M / 2) = M log2 M - M
        return max(0.0, extra)
    return 0.0


@njit(**NUMBA_OPTS)
def _lower_bound(sA, sB, m, k, criterion, bound, left, right):
    """Lower bound on the impurity of every rule of a box with invariants ``sA``, ``sB`` and
    undecided class weights ``m``.

    ``bound == PAPER``: Theorem 4 plus the Theorem 5 / 6 term. ``bound ==
    VERTEX``: Theorem 1 itself, the least impurity over the ``2^k'`` ways to
    send each of the ``k'`` classes present in ``I`` wholly to one side: the
    impurity is concave in the share of each class sent left, so its minimum
    over all (fractional) assignments is at such a vertex; by strict concavity
    this is never below the paper's bound. Beyond :data:`VERTEX_MAX_CLASSES`
    classes the paper's bound is used.
    """
    paper = _impurity(sA, k, criterion) + _impurity(sB, k, criterion) + _bound_extra(
        m, k, criterion)
    if bound == PAPER:
        return paper
    present = 0
    for c in range(k):
        if m[c] > 0.0:
            present += 1
    if present == 0 or present > VERTEX_MAX_CLASSES:
        return paper
    best = np.inf
    for mask in range(1 << present):
        bit = 0
        for c in range(k):
            left[c] = sA[c]
            right[c] = sB[c]
            if m[c] > 0.0:
                if (mask >> bit) & 1:
                    left[c] += m[c]
                else:
                    right[c] += m[c]
                bit += 1
        g = _impurity(left, k, criterion) + _impurity(right, k, criterion)
        best = min(best, g)
    return best


@njit(**NUMBA_OPTS)
def _valid(left, right, k, msl, mwl):
    if left[k] < msl or right[k] < msl:
        return False
    wl = 0.0
    wr = 0.0
    for c in range(k):
        wl += left[c]
        wr += right[c]
    return wl > 0.0 and wr > 0.0 and wl >= mwl and wr >= mwl


@njit(**NUMBA_OPTS)
def _score(left, right, k, criterion, msl, mwl):
    """Weighted child impurity, ``inf`` when a side breaks the leaf constraints."""
    if not _valid(left, right, k, msl, mwl):
        return np.inf
    return _impurity(left, k, criterion) + _impurity(right, k, criterion)


@njit(**NUMBA_OPTS)
def _score_line(a, b, x1, x2, P, idx, n_idx, sA, sB, left, right, k, criterion, msl, mwl):
    """Score the rule ``a x1 + b <= x2`` on a box: ``A`` left, ``B`` right, ``I`` tested."""
    K = k + 1
    for c in range(K):
        left[c] = sA[c]
        right[c] = sB[c]
    for t in range(n_idx):
        i = idx[t]
        if a * x1[i] + b <= x2[i]:
            for c in range(K):
                left[c] += P[i, c]
        else:
            for c in range(K):
                right[c] += P[i, c]
    return _score(left, right, k, criterion, msl, mwl)


@njit(**NUMBA_OPTS)
def _mid(lo, hi):
    """A point strictly inside ``(lo, hi)``; ends may be infinite."""
    if math.isinf(lo) and math.isinf(hi):
        return 0.0
    if math.isinf(lo):
        return hi - max(1.0, abs(hi))
    if math.isinf(hi):
        return lo + max(1.0, abs(lo))
    return lo + (hi - lo) / 2.0


@njit(**NUMBA_OPTS)
def _ratio_range(n_lo, n_hi, d_lo, d_hi):
    """Range ``(inf, sup)`` of ``N / D`` over ``N in (n_lo, n_hi)``, ``D in (d_lo, d_hi)``, D > 0."""
    if n_hi > 0.0:
        sup = n_hi / d_lo if d_lo > 0.0 else np.inf
    else:
        sup = n_hi / d_hi
    if n_lo < 0.0:
        inf = n_lo / d_lo if d_lo > 0.0 else -np.inf
    else:
        inf = n_lo / d_hi
    return inf, sup


@njit(**NUMBA_OPTS)
def _denominator_for(c, n_lo, n_hi, d_lo, d_hi):
    """A ``D`` in ``(d_lo, d_hi)`` with ``c * D`` in ``(n_lo, n_hi)`` (it exists when ``c`` is
    in the range of :func:`_ratio_range`)."""
    lo = d_lo
    hi = d_hi
    if c > 0.0:
        lo = max(lo, n_lo / c)
        hi = min(hi, n_hi / c)
    elif c < 0.0:
        lo = max(lo, n_hi / c)
        hi = min(hi, n_lo / c)
    return lo + (hi - lo) / 2.0


# -------------------------------------------------------- exploration criteria
@njit(**NUMBA_OPTS)
def _explore_single_point(a_lo, a_hi, b_lo, b_hi, x1, x2, P, idx, sA, sB, left, right, k,
                          criterion, msl, mwl):
    """Criterion 2: ``I`` is one (merged) point; the box makes two partitions.

    The corner minimising ``a x1 + b`` satisfies the point, the maximising one
    does not. Returns the better ``(G, a, b)``.
    """
    i = idx[0]
    a_sat = a_lo if x1[i] >= 0.0 else a_hi
    a_uns = a_hi if x1[i] >= 0.0 else a_lo
    g1 = _score_line(a_sat, b_lo, x1, x2, P, idx, 1, sA, sB, left, right, k, criterion, msl,
                     mwl)
    g2 = _score_line(a_uns, b_hi, x1, x2, P, idx, 1, sA, sB, left, right, k, criterion, msl,
                     mwl)
    if g2 < g1:
        return g2, a_uns, b_hi
    return g1, a_sat, b_lo


@njit(**NUMBA_OPTS)
def _explore_single_class(a_lo, a_hi, b_lo, b_hi, x1, x2, P, idx, sA, sB, left, right, k,
                          criterion, msl, mwl):
    """Criterion 3: the undecided points share one class.

    By Theorem 1 the impurity is concave in the share of ``I`` sent left, so
    the best rule of the box sends all of ``I`` to one side, if a rule of the
    box can do each: with ``b = b_lo`` (resp. ``b_hi``) the slope must lie in
    an interval computed point by point (section 4.3). Returns ``(closed, G,
    a, b)``; ``closed`` is False when a line does not exist or, with leaf
    constraints, an extreme partition is forbidden (then a partition between
    them may be the best allowed one and the box must be branched).
    """
    lo_l = a_lo
    hi_l = a_hi
    lo_u = a_lo
    hi_u = a_hi
    ok_l = True
    ok_u = True
    for t in range(idx.shape[0]):
        i = idx[t]
        if x1[i] > 0.0:
            hi_l = min(hi_l, (x2[i] - b_lo) / x1[i])
            lo_u = max(lo_u, (x2[i] - b_hi) / x1[i])
        elif x1[i] < 0.0:
            lo_l = max(lo_l, (x2[i] - b_lo) / x1[i])
            hi_u = min(hi_u, (x2[i] - b_hi) / x1[i])
        else:
            ok_l = ok_l and b_lo <= x2[i]
            ok_u = ok_u and b_hi > x2[i]
    if not (ok_l and ok_u and lo_l <= hi_l and lo_u < hi_u):
        return False, np.inf, 0.0, 0.0
    n_idx = idx.shape[0]
    a_l = lo_l + (hi_l - lo_l) / 2.0
    a_u = lo_u + (hi_u - lo_u) / 2.0
    g_l = _score_line(a_l, b_lo, x1, x2, P, idx, n_idx, sA, sB, left, right, k, criterion,
                      msl, mwl)
    g_u = _score_line(a_u, b_hi, x1, x2, P, idx, n_idx, sA, sB, left, right, k, criterion,
                      msl, mwl)
    if not (g_l < np.inf and g_u < np.inf):
        return False, np.inf, 0.0, 0.0
    if g_u < g_l:
        return True, g_u, a_u, b_hi
    return True, g_l, a_l, b_lo


#: outcomes of :func:`bnb_ordered_pair`.
COMPLETE = 0
STOPPED = 1
GAVE_UP = 2

#: kinds of point sets returned by :func:`_collinear`.
SCATTERED = 0
ON_A_LINE = 1
VERTICAL = 2


@njit(**NUMBA_OPTS)
def _collinear(x1, x2, idx):
    """Whether the (distinct) points ``idx`` lie on one line: :data:`ON_A_LINE`,
    :data:`VERTICAL` (all share ``x1``) or :data:`SCATTERED`.

    Points whose distance to the line through the two extreme ones (in
    ``x1``) is within :data:`COLLINEAR_TOL` of their extent count as
    collinear: data written in decimals (``0.29``) are not exactly collinear
    in binary, and a line separating such points would have to be placed to
    the last bit, which no stored rule can reproduce.
    """
    # a quick look with the first two points rejects most scattered sets at once
    p0 = idx[0]
    q0 = -1
    for t in range(1, idx.shape[0]):
        if x1[idx[t]] != x1[p0]:
            q0 = idx[t]
            break
    if q0 < 0:
        return VERTICAL
    dx = x1[q0] - x1[p0]
    dy = x2[q0] - x2[p0]
    for t in range(idx.shape[0]):
        i = idx[t]
        ex = x1[i] - x1[p0]
        ey = x2[i] - x2[p0]
        if abs(ex * dy - ey * dx) > 1e-6 * (abs(ex * dy) + abs(ey * dx)):
            return SCATTERED
    # nearly collinear: decide with the best-conditioned reference line
    p0 = idx[0]
    q0 = idx[0]
    for t in range(1, idx.shape[0]):
        i = idx[t]
        if x1[i] < x1[p0]:
            p0 = i
        if x1[i] > x1[q0]:
            q0 = i
    dx = x1[q0] - x1[p0]
    dy = x2[q0] - x2[p0]
    for t in range(idx.shape[0]):
        i = idx[t]
        ex = x1[i] - x1[p0]
        ey = x2[i] - x2[p0]
        if abs(ex * dy - ey * dx) > COLLINEAR_TOL * (abs(ex * dy) + abs(ey * dx)):
            return SCATTERED
    return ON_A_LINE


@njit(**NUMBA_OPTS)
def _sorted_prefix_sums(x, idx, P, pre, K):
    """Order of the points ``idx`` by ``x``, and ``pre[t] = sum of P over the first t``."""
    ordr = np.argsort(x[idx])
    for c in range(K):
        pre[0, c] = 0.0
    for t in range(idx.shape[0]):
        i = idx[ordr[t]]
        for c in range(K):
            pre[t + 1, c] = pre[t, c] + P[i, c]
    return ordr


@njit(**NUMBA_OPTS)
def _explore_vertical(a_lo, a_hi, b_lo, b_hi, x1, x2, P, idx, sA, sB, sI, pre, left, right,
                      k, criterion, msl, mwl, inc):
    """Criterion 4 for points sharing ``x1 = v``: every partition the box makes of them.

    ``a v + b <= x2`` satisfies the points with ``x2 >= c``, ``c = a v + b``,
    and over the open box ``c`` ranges between the smallest and largest value
    of ``a v + b`` at the corners: the cut between two consecutive points (in
    ``x2`` order) is reachable iff that range meets the gap between them.
    (Theorem 2 asks for a line ``x2 = a* x1 + b*``; without this case two
    points a hair apart on a vertical line would keep every box along their
    parallel dual lines undecided until the boxes are that thin.) Returns the
    best ``(G, a, b)`` below ``inc`` (``inf`` if none).
    """
    K = k + 1
    nI = idx.shape[0]
    v = x1[idx[0]]
    ordr = _sorted_prefix_sums(x2, idx, P, pre, K)
    c_min = (a_lo * v if v >= 0.0 else a_hi * v) + b_lo
    c_max = (a_hi * v if v >= 0.0 else a_lo * v) + b_hi
    best = np.inf
    best_a = 0.0
    best_b = 0.0
    for t in range(nI + 1):
        # the first t points (in x2 order) unsatisfied, the others satisfied
        lo_edge = x2[idx[ordr[t - 1]]] if t > 0 else -np.inf
        hi_edge = x2[idx[ordr[t]]] if t < nI else np.inf
        if not (c_min < hi_edge and lo_edge < c_max):
            continue
        for c in range(K):
            left[c] = sA[c] + sI[c] - pre[t, c]
            right[c] = sB[c] + pre[t, c]
        g = _score(left, right, k, criterion, msl, mwl)
        if not (g < inc and g < best):
            continue
        cc = _mid(max(c_min, lo_edge), min(c_max, hi_edge))
        # a rule of the box with a v + b = cc
        if v != 0.0:
            lo = (cc - b_hi) / v
            hi = (cc - b_lo) / v
            if v < 0.0:
                lo, hi = hi, lo
            la_lo = max(a_lo, lo)
            la_hi = min(a_hi, hi)
            la = la_lo + (la_hi - la_lo) / 2.0
        else:
            la = a_lo + (a_hi - a_lo) / 2.0
        lb = cc - la * v
        g = _score_line(la, lb, x1, x2, P, idx, nI, sA, sB, left, right, k, criterion, msl,
                        mwl)
        if g < inc and g < best:
            best = g
            best_a = la
            best_b = lb
    return best, best_a, best_b


@njit(**NUMBA_OPTS)
def _explore_collinear(a_lo, a_hi, b_lo, b_hi, x1, x2, P, idx, sA, sB, sI, pre, left, right,
                       k, criterion, msl, mwl, inc):
    """Criterion 4 (Theorem 2): every partition the box makes of collinear points ``I``.

    With ``x2 = a* x1 + b*`` for the points of ``I``, the rule ``a x1 + b <=
    x2`` satisfies the points with ``x1 <= c`` if ``a > a*`` and those with
    ``x1 >= c`` if ``a < a*``, where ``c = (b* - b) / (a - a*)``. Over the open
    box ``c`` ranges over an interval whose ends come from the box's corners,
    so the cut between two consecutive points (in ``x1`` order) is reachable
    iff that interval meets the gap between them: a constant-time test per
    partition. Returns the best ``(G, a, b)`` below ``inc`` (``inf`` if none).
    """
    K = k + 1
    nI = idx.shape[0]
    ordr = _sorted_prefix_sums(x1, idx, P, pre, K)
    p0 = idx[ordr[0]]
    q0 = idx[ordr[nI - 1]]
    slope = (x2[q0] - x2[p0]) / (x1[q0] - x1[p0])
    icpt = x2[p0] - slope * x1[p0]
    best = np.inf
    best_a = 0.0
    best_b = 0.0
    for side in range(2):
        # side 0: a > a*, a prefix (in x1 order) is satisfied; side 1: a < a*, a suffix
        if side == 0:
            d_lo = max(a_lo - slope, 0.0)
            d_hi = a_hi - slope
            n_lo = icpt - b_hi
            n_hi = icpt - b_lo
        else:
            d_lo = max(slope - a_hi, 0.0)
            d_hi = slope - a_lo
            n_lo = b_lo - icpt
            n_hi = b_hi - icpt
        if not d_hi > d_lo:
            continue
        c_inf, c_sup = _ratio_range(n_lo, n_hi, d_lo, d_hi)
        for t in range(nI + 1):
            lo_edge = x1[idx[ordr[t - 1]]] if t > 0 else -np.inf
            hi_edge = x1[idx[ordr[t]]] if t < nI else np.inf
            if not (c_inf < hi_edge and lo_edge < c_sup):
                continue
            for c in range(K):
                if side == 0:
                    left[c] = sA[c] + pre[t, c]
                    right[c] = sB[c] + sI[c] - pre[t, c]
                else:
                    left[c] = sA[c] + sI[c] - pre[t, c]
                    right[c] = sB[c] + pre[t, c]
            g = _score(left, right, k, criterion, msl, mwl)
            if not (g < inc and g < best):
                continue
            cc = _mid(max(c_inf, lo_edge), min(c_sup, hi_edge))
            dd = _denominator_for(cc, n_lo, n_hi, d_lo, d_hi)
            if side == 0:
                la = slope + dd
                lb = icpt - cc * dd
            else:
                la = slope - dd
                lb = icpt + cc * dd
            # score what the line really does (rounding may move a point)
            g = _score_line(la, lb, x1, x2, P, idx, nI, sA, sB, left, right, k, criterion, msl,
                            mwl)
            if g < inc and g < best:
                best = g
                best_a = la
                best_b = lb
    return best, best_a, best_b


@njit(**NUMBA_OPTS)
def _branch_point(a_lo, a_hi, b_lo, b_hi, x1, x2, P, idx, k):
    """Branching strategy 2 (section 4.4), clamped to the middle of each side.

    Point ``i`` gets the mean intercept ``b_i`` of the lines through it with a
    slope in ``[a_lo, a_hi]`` (clipped to ``[b_lo, b_hi]``) and the matching
    slope ``a_i``; the branching point is their mean (samples counted with
    their multiplicity). Clamping it ``BRANCH_CLAMP`` of a side away from the
    edges shrinks every box by a fixed factor per level, which is what the
    termination proof of strategy 1 (Theorem 3) needs.
    """
    sa = 0.0
    sb = 0.0
    sw = 0.0
    for t in range(idx.shape[0]):
        i = idx[t]
        w = P[i, k]
        if x1[i] > 0.0:
            lo = max(b_lo, x2[i] - a_hi * x1[i])
            hi = min(b_hi, x2[i] - a_lo * x1[i])
            bb = lo + (hi - lo) / 2.0
            aa = (x2[i] - bb) / x1[i]
        elif x1[i] < 0.0:
            lo = max(b_lo, x2[i] - a_lo * x1[i])
            hi = min(b_hi, x2[i] - a_hi * x1[i])
            bb = lo + (hi - lo) / 2.0
            aa = (x2[i] - bb) / x1[i]
        else:
            bb = x2[i]
            aa = a_lo + (a_hi - a_lo) / 2.0
        sa += w * aa
        sb += w * bb
        sw += w
    wa = a_hi - a_lo
    wb = b_hi - b_lo
    a_m = min(max(sa / sw, a_lo + BRANCH_CLAMP * wa), a_hi - BRANCH_CLAMP * wa)
    b_m = min(max(sb / sw, b_lo + BRANCH_CLAMP * wb), b_hi - BRANCH_CLAMP * wb)
    return a_m, b_m


@njit(**NUMBA_OPTS)
def _split_box(a_lo, a_m, a_hi, b_lo, b_m, b_hi, x1, x2, P, idx, sA, sB, kid_box, kidA, kidB,
               kidI, kid_list, kid_n, kid_lb, k, criterion, bound, left, right):
    """The four children of a box at ``(a_m, b_m)``: their boxes, the points each decides
    (added to ``A`` or ``B``) or keeps undecided, and their lower bounds."""
    K = k + 1
    for q in range(4):
        kid_box[q, 0] = a_lo if q < 2 else a_m
        kid_box[q, 1] = a_m if q < 2 else a_hi
        kid_box[q, 2] = b_lo if (q % 2) == 0 else b_m
        kid_box[q, 3] = b_m if (q % 2) == 0 else b_hi
        kid_n[q] = 0
        for c in range(K):
            kidA[q, c] = sA[c]
            kidB[q, c] = sB[c]
            kidI[q, c] = 0.0
    for t in range(idx.shape[0]):
        i = idx[t]
        t_lo = a_lo * x1[i]
        t_m = a_m * x1[i]
        t_hi = a_hi * x1[i]
        for q in range(4):
            u0 = t_lo if q < 2 else t_m
            u1 = t_m if q < 2 else t_hi
            # a x1 + b - x2 is linear: its extremes over a box are at corners
            if max(u0, u1) + kid_box[q, 3] - x2[i] <= 0.0:
                for c in range(K):
                    kidA[q, c] += P[i, c]
            elif min(u0, u1) + kid_box[q, 2] - x2[i] > 0.0:
                for c in range(K):
                    kidB[q, c] += P[i, c]
            else:
                kid_list[q, kid_n[q]] = i
                kid_n[q] += 1
                for c in range(K):
                    kidI[q, c] += P[i, c]
    for q in range(4):
        kid_lb[q] = _lower_bound(kidA[q], kidB[q], kidI[q], k, criterion, bound, left, right)


@njit(**NUMBA_OPTS)
def _grown(a, used):
    """``a`` with twice the rows, the first ``used`` copied."""
    out = np.empty((2 * a.shape[0], a.shape[1]), a.dtype)
    for r in range(used):
        for c in range(a.shape[1]):
            out[r, c] = a[r, c]
    return out


@njit(**NUMBA_OPTS)
def _grown_pool(pool, used, need):
    out = np.empty(2 * need, pool.dtype)
    for r in range(used):
        out[r] = pool[r]
    return out


@njit(**NUMBA_OPTS)
def _order_by_bound(lb, order):
    """``order`` = the four children by decreasing bound (ties: lower index first)."""
    for q in range(4):
        order[q] = q
    for q in range(1, 4):
        t = q
        while t > 0 and lb[order[t]] > lb[order[t - 1]]:
            order[t], order[t - 1] = order[t - 1], order[t]
            t -= 1


# -------------------------------------------------------------- one ordered pair
@njit(**NUMBA_OPTS)
def bnb_ordered_pair(x1, x2, P, k, criterion, msl, mwl, incumbent, epsilon, bound, max_boxes,
                     stop):
    """Branch and bound for the rule ``a x1 + b <= x2`` over ``[-1, 1] x [B_lo, B_hi]``.

    Parameters
    ----------
    x1, x2 : float64 (m,)
        Distinct (merged) normalized points.
    P : float64 (m, k + 1)
        Class weights of each point, then its number of samples.
    k, criterion : int
    msl, mwl : float
        ``min_samples_leaf`` and ``min_weight_leaf``.
    incumbent : float
        Only strictly better rules are of interest.
    epsilon : float
        Relative gap at which a box is pruned.
    bound : int
        :data:`PAPER` or :data:`VERTEX` (see :func:`_lower_bound`).
    max_boxes : int
        Give up (status :data:`GAVE_UP`) after exploring this many
        subproblems; negative: no limit.
    stop : int64 (1,)
        Stop (keeping the bounds of the open boxes) once non-zero.

    Returns
    -------
    best : float
        Impurity of the best rule found, ``inf`` if none beat ``incumbent``.
    a, b : float
        That rule.
    lb_open : float
        Least lower bound of the boxes pruned by ``epsilon`` or left open when
        stopped, ``inf`` if none: every rule of the pair has impurity
        ``>= min(best, incumbent, lb_open)``.
    n_boxes : int
        Subproblems explored.
    status : int
        :data:`COMPLETE`; :data:`STOPPED` by the stop flag (``lb_open``
        bounds what is left); :data:`GAVE_UP` after ``max_boxes`` subproblems
        or at a box too thin to branch in float64 (nothing is proven; the caller
        solves the pair with the sweep).
    """
    m = x1.shape[0]
    K = k + 1
    keep = 1.0 - epsilon
    best = np.inf
    best_a = 0.0
    best_b = 0.0
    inc = incumbent
    lb_open = np.inf
    n_boxes = 0
    stopped = False
    gave_up = False

    total = np.zeros(K)
    for i in range(m):
        for c in range(K):
            total[c] += P[i, c]
    b_lo_root = np.inf
    b_hi_root = -np.inf
    for i in range(m):
        lo = x2[i] - abs(x1[i])
        hi = x2[i] + abs(x1[i])
        b_lo_root = min(b_lo_root, lo)
        b_hi_root = max(b_hi_root, hi)
    # at b = B_hi no point may be satisfied: strict margin
    b_hi_root += max(1.0, abs(b_hi_root)) * 1e-6

    sA = np.zeros(K)
    sB = np.zeros(K)
    sI = np.empty(K)
    left = np.empty(K)
    right = np.empty(K)
    # box stack (depth first) and the pool of undecided-point lists
    cap = 64
    bf = np.empty((cap, 5))            # a_lo, a_hi, b_lo, b_hi, lower bound
    bi = np.empty((cap, 2), np.int64)  # pool offset, |I|
    bA = np.empty((cap, K))
    bB = np.empty((cap, K))
    bI = np.empty((cap, K))            # statistics of the undecided points
    pool = np.empty(4 * m + 16, np.int64)
    for i in range(m):
        pool[i] = i
    bf[0, 0] = -1.0
    bf[0, 1] = 1.0
    bf[0, 2] = b_lo_root
    bf[0, 3] = b_hi_root
    bf[0, 4] = _lower_bound(sA, sB, total, k, criterion, bound, left, right)
    bi[0, 0] = 0
    bi[0, 1] = m
    bA[0, :] = 0.0
    bB[0, :] = 0.0
    bI[0, :] = total
    top = 1

    pre = np.empty((m + 1, K))
    kidA = np.empty((4, K))
    kidB = np.empty((4, K))
    kidI = np.empty((4, K))
    kid_list = np.empty((4, m), np.int64)
    kid_n = np.empty(4, np.int64)
    kid_box = np.empty((4, 4))
    kid_lb = np.empty(4)
    kid_order = np.empty(4, np.int64)

    since_check = 0
    while top > 0:
        if n_boxes == max_boxes:
            gave_up = True
            break
        since_check += 1
        if since_check >= _STOP_CHECK_EVERY:
            since_check = 0
            if load_flag(stop) != 0:
                stopped = True
                for s in range(top):
                    if bf[s, 4] < inc and bf[s, 4] < lb_open:
                        lb_open = bf[s, 4]
                break
        top -= 1
        a_lo = bf[top, 0]
        a_hi = bf[top, 1]
        b_lo = bf[top, 2]
        b_hi = bf[top, 3]
        lb = bf[top, 4]
        off = bi[top, 0]
        nI = bi[top, 1]
        for c in range(K):
            sA[c] = bA[top, c]
            sB[c] = bB[top, c]
            sI[c] = bI[top, c]
        if lb >= keep * inc:
            if lb < inc and lb < lb_open:
                lb_open = lb
            continue
        n_boxes += 1
        idx = pool[off:off + nI]

        # ---- criterion 1: nothing undecided, one partition
        if nI == 0:
            g = _score(sA, sB, k, criterion, msl, mwl)
            if g < inc:
                inc = g
                best = g
                best_a = a_lo + (a_hi - a_lo) / 2.0
                best_b = b_lo + (b_hi - b_lo) / 2.0
            continue

        classes = 0
        for c in range(k):
            if sI[c] > 0.0:
                classes += 1

        # ---- criterion 2: the undecided points coincide (merged: one point)
        if nI == 1:
            g, ga, gb = _explore_single_point(a_lo, a_hi, b_lo, b_hi, x1, x2, P, idx, sA, sB,
                                              left, right, k, criterion, msl, mwl)
            if g < inc:
                inc = g
                best = g
                best_a = ga
                best_b = gb
            continue

        # ---- criterion 3: one class undecided: an extreme line is optimal (Theorem 1)
        if classes == 1:
            closed, g, ga, gb = _explore_single_class(a_lo, a_hi, b_lo, b_hi, x1, x2, P, idx,
                                                      sA, sB, left, right, k, criterion, msl,
                                                      mwl)
            if closed:
                if g < inc:
                    inc = g
                    best = g
                    best_a = ga
                    best_b = gb
                continue

        # ---- criterion 4: the undecided points are collinear (Theorem 2)
        shape = _collinear(x1, x2, idx)
        if shape != SCATTERED:
            if shape == ON_A_LINE:
                g, ga, gb = _explore_collinear(a_lo, a_hi, b_lo, b_hi, x1, x2, P, idx, sA, sB,
                                               sI, pre, left, right, k, criterion, msl, mwl,
                                               inc)
            else:
                g, ga, gb = _explore_vertical(a_lo, a_hi, b_lo, b_hi, x1, x2, P, idx, sA, sB,
                                              sI, pre, left, right, k, criterion, msl, mwl,
                                              inc)
            if g < inc:
                inc = g
                best = g
                best_a = ga
                best_b = gb
            continue

        # ---- a box too thin for float64 to branch: leave the pair to the exact sweep
        if (a_hi - a_lo) <= _TINY or (b_hi - b_lo) <= _TINY * max(1.0, abs(b_lo), abs(b_hi)):
            gave_up = True
            break

        # ---- branch: strategy 2, clamped towards strategy 1 (termination)
        a_m, b_m = _branch_point(a_lo, a_hi, b_lo, b_hi, x1, x2, P, idx, k)
        # upper bound: the rule at the branching point
        g = _score_line(a_m, b_m, x1, x2, P, idx, nI, sA, sB, left, right, k, criterion,
                        msl, mwl)
        if g < inc:
            inc = g
            best = g
            best_a = a_m
            best_b = b_m
        if g <= lb + _ATTAINED * max(1.0, abs(lb)):
            continue  # the bound is attained: the box holds nothing better
        _split_box(a_lo, a_m, a_hi, b_lo, b_m, b_hi, x1, x2, P, idx, sA, sB, kid_box, kidA,
                   kidB, kidI, kid_list, kid_n, kid_lb, k, criterion, bound, left, right)
        # push the most promising child last, so that it is explored first
        _order_by_bound(kid_lb, kid_order)
        pool_top = off + nI
        for t in range(4):
            q = kid_order[t]
            if kid_lb[q] >= keep * inc:
                if kid_lb[q] < inc and kid_lb[q] < lb_open:
                    lb_open = kid_lb[q]
                continue
            if top >= bf.shape[0]:
                bf = _grown(bf, top)
                bi = _grown(bi, top)
                bA = _grown(bA, top)
                bB = _grown(bB, top)
                bI = _grown(bI, top)
            nk = kid_n[q]
            if pool_top + nk > pool.shape[0]:
                pool = _grown_pool(pool, pool_top, pool_top + nk)
            for t2 in range(nk):
                pool[pool_top + t2] = kid_list[q, t2]
            for c in range(4):
                bf[top, c] = kid_box[q, c]
            bf[top, 4] = kid_lb[q]
            bi[top, 0] = pool_top
            bi[top, 1] = nk
            for c in range(K):
                bA[top, c] = kidA[q, c]
                bB[top, c] = kidB[q, c]
                bI[top, c] = kidI[q, c]
            pool_top += nk
            top += 1
    status = STOPPED if stopped else (GAVE_UP if gave_up else COMPLETE)
    return best, best_a, best_b, lb_open, n_boxes, status


# --------------------------------------------------------------- all the pairs
@njit(**NUMBA_OPTS)
def merge_pair(Z, order, rank, j, k, P):
    """The distinct points ``(Z[:, j], Z[:, k])`` with summed statistics ``P``.

    ``order[:, j]`` sorts column ``j`` and ``rank`` holds dense ranks, so only
    runs of equal ``Z[:, j]`` need sorting (by ``rank[:, k]``) before merging.
    """
    n = Z.shape[0]
    K = P.shape[1]
    u = np.empty(n)
    v = np.empty(n)
    S = np.zeros((n, K))
    m = 0
    p = 0
    while p < n:
        q = p + 1
        rj = rank[order[p, j], j]
        while q < n and rank[order[q, j], j] == rj:
            q += 1
        run = order[p:q, j]
        if q - p > 1:
            run = run[np.argsort(rank[run, k], kind="mergesort")]
        last = -1
        for t in range(q - p):
            i = run[t]
            rk = rank[i, k]
            if rk != last:
                u[m] = Z[i, j]
                v[m] = Z[i, k]
                m += 1
                last = rk
            for c in range(K):
                S[m - 1, c] += P[i, c]
        p = q
    return u[:m].copy(), v[:m].copy(), S[:m].copy()


@njit(parallel=True, **NUMBA_OPTS)
def bnb_search(Z, order, rank, pair_j, pair_k, P, k, criterion, msl, mwl, incumbent, epsilon,
               bound, root_lb, round_size, sweep_boxes, stop):
    """Branch and bound over every pair ``(j, k)`` and both of its orders.

    The pairs run in rounds of ``round_size``: every pair of a round starts
    from the incumbent of the round's start (its first order passes its result
    on to its second), and a serial pass in pair order then updates the
    incumbent. Rounds depend on the data only, so the result does not depend
    on the number of threads.

    A pair whose search explores more than ``max(sweep_boxes[0], m^2 /
    sweep_boxes[1])`` subproblems (``m`` distinct points), or meets a box too
    thin to branch in float64, is handed to the exact rotational sweep, which
    costs ``m (m - 1) / 2`` swaps whatever the data.

    Returns
    -------
    best : float
        Best impurity below ``incumbent`` (``inf`` if none).
    best_pair : int
        Its pair, ``-1`` if none.
    best_swap : bool
        True when the rule is ``a z_k + b <= z_j`` (else ``a z_j + b <= z_k``).
    best_a, best_b : float
    lb_open : float64 (n_pairs,)
        Per pair, the least bound of its unexplored boxes (``inf`` if none).
    n_boxes : int64 (n_pairs,)
    n_swaps : int64 (n_pairs,)
        Swaps of the sweeps that replaced searches.
    stopped : bool
    """
    n_pairs = pair_j.shape[0]
    pair_best = np.full(n_pairs, np.inf)
    pair_a = np.zeros(n_pairs)
    pair_b = np.zeros(n_pairs)
    pair_swap = np.zeros(n_pairs, dtype=np.bool_)
    lb_open = np.full(n_pairs, np.inf)
    n_boxes = np.zeros(n_pairs, dtype=np.int64)
    n_swaps = np.zeros(n_pairs, dtype=np.int64)
    pair_stopped = np.zeros(n_pairs, dtype=np.bool_)
    params = np.empty(2)
    params[0] = msl
    params[1] = mwl
    inc = incumbent
    best_pair = -1
    best_a = 0.0
    best_b = 0.0
    best_swap = False
    for start in range(0, n_pairs, round_size):
        end = min(start + round_size, n_pairs)
        inc_round = inc
        for q in prange(start, end):
            if load_flag(stop) != 0:
                pair_stopped[q] = True
                if root_lb < inc_round:
                    lb_open[q] = root_lb
                continue
            u, v, S = merge_pair(Z, order, rank, pair_j[q], pair_k[q], P)
            m = u.shape[0]
            limit = max(sweep_boxes[0], (m * m) // sweep_boxes[1])
            g1, a1, b1, lb1, nb1, st1 = bnb_ordered_pair(
                u, v, S, k, criterion, msl, mwl, inc_round, epsilon, bound, limit, stop)
            g2 = np.inf
            a2 = 0.0
            b2 = 0.0
            lb2 = np.inf
            nb2 = 0
            st2 = COMPLETE
            if st1 != GAVE_UP:
                g2, a2, b2, lb2, nb2, st2 = bnb_ordered_pair(
                    v, u, S, k, criterion, msl, mwl, min(inc_round, g1), epsilon, bound, limit,
                    stop)
            n_boxes[q] = nb1 + nb2
            if st1 == GAVE_UP or st2 == GAVE_UP:
                # more subproblems than the pair's exact sweep costs, or a box too thin
                # for float64 (points a hair apart keep long thin strips of boxes
                # undecided): sweep the pair
                opt, wu, wv, _, _, sw, done = sweep_pair(u, v, S, criterion, params, stop)
                n_swaps[q] = sw
                lb_open[q] = np.inf if done else min(root_lb, opt)
                pair_stopped[q] = not done
                pair_best[q] = opt if opt < inc_round else np.inf
                # the rule wu z_j + wv z_k <= t, as a x1 + b <= x2 with |a| <= 1 (only
                # its direction is used)
                pair_swap[q] = abs(wu) > abs(wv)
                pair_a[q] = -wv / wu if abs(wu) > abs(wv) else -wu / wv
                pair_b[q] = 0.0
                continue
            if g2 < g1:
                pair_best[q] = g2
                pair_a[q] = a2
                pair_b[q] = b2
                pair_swap[q] = True
            else:
                pair_best[q] = g1
                pair_a[q] = a1
                pair_b[q] = b1
                pair_swap[q] = False
            lb_open[q] = min(lb1, lb2)
            pair_stopped[q] = st1 == STOPPED or st2 == STOPPED
        for q in range(start, end):
            if pair_best[q] < inc:
                inc = pair_best[q]
                best_pair = q
                best_a = pair_a[q]
                best_b = pair_b[q]
                best_swap = pair_swap[q]
    stopped = False
    for q in range(n_pairs):
        stopped = stopped or pair_stopped[q]
    if best_pair < 0:
        return np.inf, -1, False, 0.0, 0.0, lb_open, n_boxes, n_swaps, stopped
    return inc, best_pair, best_swap, best_a, best_b, lb_open, n_boxes, n_swaps, stopped


@njit(**NUMBA_OPTS)
def _sorted_quantile(col, order, q):
    """Quantile ``q`` of ``col`` (sorted by ``order``), linear interpolation as numpy's default."""
    pos = q * (col.shape[0] - 1)
    lo = math.floor(pos)
    hi = min(lo + 1, col.shape[0] - 1)
    frac = pos - lo
    return col[order[lo]] + frac * (col[order[hi]] - col[order[lo]])


@njit(**NUMBA_OPTS)
def node_features(X, samples, features):
    """Median/IQR-normalized features of a node, their sort orders and dense ranks.

    The scale is the interquartile range (the range when that is zero) rounded
    to a power of two, so that normalizing is exact for data on a grid: ties
    and collinear points stay exactly tied and collinear. A feature constant
    over the node gets scale 0.

    Returns
    -------
    Z : float64 (n, F), Fortran order
    order : int64 (n, F), Fortran order
    rank : int64 (n, F), Fortran order
    median, scale : float64 (F,)
    """
    n = samples.shape[0]
    F = features.shape[0]
    Z = np.empty((F, n)).T
    order = np.empty((F, n), np.int64).T
    rank = np.empty((F, n), np.int64).T
    median = np.zeros(F)
    scale = np.zeros(F)
    col = np.empty(n)
    for f in range(F):
        j = features[f]
        for p in range(n):
            col[p] = X[samples[p], j]
        o = np.argsort(col, kind="mergesort")
        lo = col[o[0]]
        hi = col[o[n - 1]]
        med = _sorted_quantile(col, o, 0.5)
        spread = _sorted_quantile(col, o, 0.75) - _sorted_quantile(col, o, 0.25)
        if not spread > 0.0:
            spread = hi - lo
        if spread > 0.0:
            s = 2.0 ** round(math.log2(spread))
            inv = 1.0 / s
            scale[f] = s
        else:
            inv = 0.0
        median[f] = med
        for p in range(n):
            Z[p, f] = (col[p] - med) * inv
        r = 0
        for t in range(n):
            i = o[t]
            if t > 0 and col[i] != col[o[t - 1]]:
                r += 1
            order[t, f] = i
            rank[i, f] = r
    return Z, order, rank, median, scale


# ------------------------------------------------------------- the splitter
def _check_option(name, value, low, high=None, allow_none=False, low_inclusive=True):
    if value is None and allow_none:
        return None
    if isinstance(value, bool) or not isinstance(value, numbers.Real) or not math.isfinite(value):
        raise ValueError(f"{name} must be a finite number, got {value!r}")
    value = float(value)
    if value < low or (value == low and not low_inclusive) or (high is not None
                                                                and value >= high):
        interval = (f"{'[' if low_inclusive else '('}{low}, "
                    f"{'inf)' if high is None else str(high) + ')'}")
        raise ValueError(f"{name} must be in {interval}, got {value!r}")
    return value


def _root_lower_bound(counts, criterion):
    """Theorems 5 / 6 for the whole node: a bound valid for any split (0 if none)."""
    counts = np.asarray(counts, dtype=np.float64)
    if criterion == GINI:
        rest = np.delete(counts, int(np.argmax(counts)))
        w = rest.sum()
        return float(w - (rest ** 2).sum() / w) if w > 0 else 0.0
    if criterion == ENTROPY:
        m = counts[counts > 0]
        total = m.sum()
        extra = (total * math.log(total) - float((m * np.log(m)).sum())) * _INV_LN2 - total
        return max(0.0, extra)
    return 0.0


class _StopTimer:
    """A stop flag that a timer thread raises after ``seconds`` (None: never)."""

    def __init__(self, seconds):
        self.flag = np.zeros(1, dtype=np.int64)
        self._timer = None
        if seconds is not None:
            if seconds <= 0.0:
                self.flag[0] = 1
            else:
                self._timer = threading.Timer(seconds, self._raise)
                self._timer.daemon = True
                self._timer.start()

    def _raise(self):
        self.flag[0] = 1

    def cancel(self):
        if self._timer is not None:
            self._timer.cancel()


@register
class OptimalSplitter(Splitter):
    """Globally optimal bivariate splits (BiDT branch and bound, or the exact rotational sweep).

    Parameters
    ----------
    method : {"auto", "branch_and_bound", "sweep"}, default="auto"
        ``"branch_and_bound"``: the BiDT algorithm (gini, entropy,
        misclassification); ``"sweep"``: the exact rotational sweep of every
        feature pair (any criterion, ``O(n^2 log n)`` per pair);
        ``"auto"``: the branch and bound for the classification criteria, the
        sweep for ``squared_error``.
    epsilon : float in [0, 1), default=0.0
        Relative optimality gap of the branch and bound (section 5.1): the
        returned split's impurity ``G`` satisfies ``(1 - epsilon) G <= G*``.
    bound : {"vertex", "paper"}, default="vertex"
        Lower bound of a subproblem. ``"paper"``: Theorem 4, improved by
        Theorems 5 (entropy) and 6 (gini); ``"vertex"``: Theorem 1 used as a
        bound (the best assignment of whole classes of the undecided points to
        either side), never weaker and usually far stronger.
    time_limit : float, default=None
        Seconds one node's search may take; the best split found by then is
        used and its proven gap reported.
    fit_time_limit : float, default=None
        Seconds the searches of a whole fit may take together; once spent,
        every remaining node keeps its best univariate split (with its gap).
    verbose : int, default=0
        Print a line for every node search longer than a second (every node
        search with ``verbose >= 2``).
    """

    name = "optimal"
    max_node_features = 2
    searches_pairs = True

    def __init__(self, method="auto", epsilon=0.0, bound="vertex", time_limit=None,
                 fit_time_limit=None, verbose=0):
        if method not in METHODS:
            raise ValueError(f"method must be one of {METHODS}, got {method!r}")
        if bound not in BOUNDS:
            raise ValueError(f"bound must be one of {sorted(BOUNDS)}, got {bound!r}")
        self.method = method
        self.bound = bound
        self.epsilon = _check_option("epsilon", epsilon, 0.0, 1.0)
        self.time_limit = _check_option("time_limit", time_limit, 0.0, allow_none=True)
        self.fit_time_limit = _check_option("fit_time_limit", fit_time_limit, 0.0,
                                            allow_none=True)
        if isinstance(verbose, bool) or not isinstance(verbose, numbers.Integral):
            # the estimator reports every bad parameter as a ValueError
            raise ValueError(f"verbose must be an integer, got {verbose!r}")  # noqa: TRY004
        self.verbose = int(verbose)

    def prepare(self, data):
        if data.criterion == SQUARED_ERROR and self.method == "branch_and_bound":
            raise ValueError(
                "the branch and bound needs a concave impurity of class counts (gini, entropy, "
                "misclassification); use method='sweep' (or 'auto') for squared_error")
        self._fit_start = time.perf_counter()
        self._objective = np.int64(data.criterion)  # built-in objective code
        self._params = np.array([float(data.min_samples_leaf), float(data.min_weight_leaf)])

    def _node_method(self, criterion):
        if self.method != "auto":
            return self.method
        return "sweep" if criterion == SQUARED_ERROR else "branch_and_bound"

    def _node_time_limit(self):
        limit = self.time_limit
        if self.fit_time_limit is not None:
            left = self.fit_time_limit - (time.perf_counter() - self._fit_start)
            limit = left if limit is None else min(limit, left)
        return limit

    def find_split(self, data, samples, features):
        t0 = time.perf_counter()
        # no valid univariate cut (ties with min_samples_leaf) does not rule out a
        # bivariate one: the pair search runs whatever the univariate result
        univariate = best_univariate_split(data, samples, features)
        n = samples.shape[0]
        method = self._node_method(data.criterion)
        Z, order, rank, _, scale = node_features(data.X, samples, features)
        varying = np.flatnonzero(scale > 0)
        pi, pk = candidate_pairs(varying)
        info = {"method": method, "n_pairs": int(pi.size)}
        if pi.size == 0:
            if univariate is None:
                return None
            return self._finish(univariate, univariate.objective, info, t0, n, True)
        inv_scale = np.zeros(data.n_features)
        inv_scale[features[varying]] = 1.0 / scale[varying]
        node_labels, node_targets, node_weight, counts, w_total, _, base = gather_node(
            samples, data.labels, data.targets, data.sample_weight, data.n_classes,
            data.criterion)
        stats = node_statistics(node_labels, node_targets, node_weight, data.n_classes,
                                data.criterion)
        tol = BEATS_TOLERANCE * max(w_total, abs(base))
        incumbent = (np.inf if univariate is None else univariate.objective) - tol
        root_lb = (0.0 if data.criterion == SQUARED_ERROR
                   else _root_lower_bound(counts, data.criterion))
        timer = _StopTimer(self._node_time_limit())
        previous_chunk = numba.set_parallel_chunksize(1)  # pairs differ widely in cost
        previous_threads = numba.get_num_threads()
        if n * pi.size < PARALLEL_MIN_WORK:
            # a small node: waking a second thread (which may have to wait for a busy
            # core) costs more than the search; the result is the same either way
            numba.set_num_threads(1)
        try:
            if method == "branch_and_bound":
                best, q, swap, a, _, lb_open, n_boxes, n_swaps, stopped = bnb_search(
                    Z, order, rank, pi, pk, stats, data.n_classes, data.criterion,
                    float(data.min_samples_leaf), float(data.min_weight_leaf), incumbent,
                    self.epsilon, BOUNDS[self.bound], root_lb,
                    max(PAIRS_PER_ROUND, ROUND_WORK // n),
                    np.array([SWEEP_MIN_BOXES, SWEEP_BOX_RATIO], dtype=np.int64), timer.flag)
                info["n_subproblems"] = int(n_boxes.sum())
                info["n_swept_pairs"] = int(np.count_nonzero(n_swaps))
                lower = float(lb_open.min()) if lb_open.size else np.inf
                candidate = None
                if q >= 0:
                    # rule a z1 + b <= z2, i.e. the projection z2 - a z1
                    j1, j2 = (pk[q], pi[q]) if swap else (pi[q], pk[q])
                    candidate = (best, features[j2], features[j1], 1.0, -a, j2, j1)
            else:
                optimum, wu, wv, n_swaps, complete = sweep_search(
                    Z, pi, pk, stats, self._objective, self._params, timer.flag)
                info["n_swaps"] = int(n_swaps.sum())
                stopped = not bool(complete.all())
                lower = root_lb if stopped else np.inf
                q = int(np.argmin(optimum))  # first minimum: lowest pair wins ties
                candidate = None
                if optimum[q] < incumbent:
                    candidate = self._sweep_candidate(optimum[q], features, pi[q], pk[q],
                                                      wu[q], wv[q])
        finally:
            numba.set_parallel_chunksize(previous_chunk)
            numba.set_num_threads(previous_threads)
            timer.cancel()
        split = univariate
        if candidate is not None:
            split = self._rule(data, samples, univariate, candidate, inv_scale, tol, Z, stats)
        if split is None:
            return None
        return self._finish(split, min(lower, split.objective), info, t0, n, not stopped)

    @staticmethod
    def _sweep_candidate(optimum, features, j, k, wu, wv):
        # first coefficient the larger, so the stored rule x_first + w x_second is readable
        if abs(wu) >= abs(wv):
            return (optimum, features[j], features[k], wu, wv, j, k)
        return (optimum, features[k], features[j], wv, wu, k, j)

    def _rule(self, data, samples, univariate, candidate, inv_scale, tol, Z, stats):
        """Stored rule for a winning direction; falls back to the sweep's direction for the
        pair when rounding makes the re-scan miss the partition the search scored."""
        claimed, f1, f2, c1, c2, z1, z2 = candidate
        split = self._rescan(data, samples, univariate, f1, f2, c1, c2, inv_scale)
        if split is not None and split.objective <= claimed + tol:
            return split
        u = np.ascontiguousarray(Z[:, min(z1, z2)])
        v = np.ascontiguousarray(Z[:, max(z1, z2)])
        _, wu, wv, _, _, _, _ = sweep_pair(u, v, stats, self._objective, self._params,
                                           np.zeros(1, dtype=np.int64))
        lo = min(z1, z2)
        flo = f1 if z1 == lo else f2
        fhi = f2 if z1 == lo else f1
        if abs(wu) >= abs(wv):
            other = self._rescan(data, samples, univariate, flo, fhi, wu, wv, inv_scale)
        else:
            other = self._rescan(data, samples, univariate, fhi, flo, wv, wu, inv_scale)
        if other is not None and (split is None or other.objective < split.objective):
            return other
        return split

    @staticmethod
    def _rescan(data, samples, univariate, f1, f2, c1, c2, inv_scale):
        return finish_bivariate(data, samples, univariate, 0, np.array([f1]), np.array([f2]),
                                np.array([c1]), np.array([c2]), 0, inv_scale)

    def _finish(self, split, lower, info, t0, n, complete):
        objective = split.objective
        lower = min(lower, objective)
        gap = (objective - lower) / objective if objective > 0.0 else 0.0
        info.update(lower_bound=float(lower), gap=float(max(gap, 0.0)), complete=bool(complete),
                    seconds=time.perf_counter() - t0)
        split.info.update(info)
        if self.verbose >= 2 or (self.verbose and info["seconds"] >= 1.0):
            work = info.get("n_subproblems", info.get("n_swaps", 0))
            print(f"[bivtree] optimal split ({info['method']}): {n} samples, {info['n_pairs']} "
                  f"pairs, {work} {'subproblems' if 'n_subproblems' in info else 'swaps'}, "
                  f"gap {info['gap']:.3g}, {info['seconds']:.2f} s", flush=True)
        return split
