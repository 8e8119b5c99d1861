"""Exploration criteria of the BiDT branch and bound (Bollwein & Westphal, 2021, section 4.3).

A box ``C = [a_lo, a_hi] x [b_lo, b_hi]`` of rules ``a x1 + b <= x2`` is
closed, rather than branched, when every partition it makes of its undecided
points ``I`` can be enumerated:

1. ``I`` is empty: one partition;
2. the points of ``I`` coincide (after merging: ``|I| = 1``): both sides are
   tried;
3. the points of ``I`` share one class: by Theorem 1 one of the two lines
   putting all of ``I`` on one side is optimal in ``C``, and the paper's
   constant-time slope intervals say whether both exist;
4. the points of ``I`` are collinear (Theorem 2): a rule with slope ``a > a*``
   satisfies exactly a prefix of them in ``x1`` order, one with ``a < a*`` a
   suffix, and the cut between two consecutive points is reachable in ``C``
   iff the crossing abscissa ``c = (b* - b) / (a - a*)``, whose range over the
   box follows from its corners, meets the gap between them: a constant-time
   test per partition (the paper's small linear program, solved in closed
   form). The same holds for points on a vertical line (one ``x1``), which
   Theorem 2 leaves out.

:func:`explore_box` applies them in this order.
"""

import math

import numpy as np
from numba import njit

from .._config import NUMBA_OPTS
from .bnb_bounds import improve, score, score_line

#: points this close (relative) to one line count as collinear (criterion 4).
COLLINEAR_TOL = 1e-11

#: kinds of point sets returned by :func:`collinear`.
SCATTERED = 0
ON_A_LINE = 1
VERTICAL = 2


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
    g1 = score_line(a_sat, b_lo, x1, x2, P, idx, 1, sA, sB, left, right, k, criterion, msl,
                     mwl)
    g2 = score_line(a_uns, b_hi, x1, x2, P, idx, 1, sA, sB, left, right, k, criterion, msl,
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
    g_l = score_line(a_l, b_lo, x1, x2, P, idx, n_idx, sA, sB, left, right, k, criterion,
                      msl, mwl)
    g_u = score_line(a_u, b_hi, x1, x2, P, idx, n_idx, sA, sB, left, right, k, criterion,
                      msl, mwl)
    if not (g_l < np.inf and g_u < np.inf):
        return False, np.inf, 0.0, 0.0
    if g_u < g_l:
        return True, g_u, a_u, b_hi
    return True, g_l, a_l, b_lo


@njit(**NUMBA_OPTS)
def _near_line(x1, x2, idx, p0, q0, tol):
    """Whether every point of ``idx`` lies within ``tol`` (relative) of the line through the
    points ``p0`` and ``q0``."""
    dx = x1[q0] - x1[p0]
    dy = x2[q0] - x2[p0]
    for t in range(idx.shape[0]):
        i = idx[t]
        ex = x1[i] - x1[p0]
        ey = x2[i] - x2[p0]
        if abs(ex * dy - ey * dx) > tol * (abs(ex * dy) + abs(ey * dx)):
            return False
    return True


@njit(**NUMBA_OPTS)
def collinear(x1, x2, idx):
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
    if not _near_line(x1, x2, idx, p0, q0, 1e-6):
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
    return ON_A_LINE if _near_line(x1, x2, idx, p0, q0, COLLINEAR_TOL) else SCATTERED


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
def _gap(x, idx, ordr, t):
    """The open gap ``(lo, hi)`` of ``x`` between the ``t``-th and ``t + 1``-th point of
    ``idx`` in the order ``ordr`` (infinite before the first and after the last)."""
    lo = x[idx[ordr[t - 1]]] if t > 0 else -np.inf
    hi = x[idx[ordr[t]]] if t < idx.shape[0] else np.inf
    return lo, hi


@njit(**NUMBA_OPTS)
def _score_cut(pre, t, prefix_left, sA, sB, sI, left, right, k, criterion, msl, mwl):
    """Score the partition sending the first ``t`` points of ``I`` (prefix sums ``pre``) to
    the left when ``prefix_left``, else to the right, and the others to the other side."""
    for c in range(k + 1):
        if prefix_left:
            left[c] = sA[c] + pre[t, c]
            right[c] = sB[c] + sI[c] - pre[t, c]
        else:
            left[c] = sA[c] + sI[c] - pre[t, c]
            right[c] = sB[c] + pre[t, c]
    return score(left, right, k, criterion, msl, mwl)


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
    bar = inc
    best = np.inf
    best_a = 0.0
    best_b = 0.0
    for t in range(nI + 1):
        # the first t points (in x2 order) unsatisfied, the others satisfied
        lo_edge, hi_edge = _gap(x2, idx, ordr, t)
        if not (c_min < hi_edge and lo_edge < c_max):
            continue
        g = _score_cut(pre, t, False, sA, sB, sI, left, right, k, criterion, msl, mwl)
        if not g < bar:
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
        g = score_line(la, lb, x1, x2, P, idx, nI, sA, sB, left, right, k, criterion, msl,
                        mwl)
        bar, best, best_a, best_b = improve(g, la, lb, bar, best, best_a, best_b)
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
    bar = inc
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
            lo_edge, hi_edge = _gap(x1, idx, ordr, t)
            if not (c_inf < hi_edge and lo_edge < c_sup):
                continue
            g = _score_cut(pre, t, side == 0, sA, sB, sI, left, right, k, criterion, msl, mwl)
            if not g < bar:
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
            g = score_line(la, lb, x1, x2, P, idx, nI, sA, sB, left, right, k, criterion, msl,
                            mwl)
            bar, best, best_a, best_b = improve(g, la, lb, bar, best, best_a, best_b)
    return best, best_a, best_b


@njit(**NUMBA_OPTS)
def _undecided_classes(sI, k):
    """Number of classes with weight among the undecided points."""
    classes = 0
    for c in range(k):
        if sI[c] > 0.0:
            classes += 1
    return classes


@njit(**NUMBA_OPTS)
def explore_box(a_lo, a_hi, b_lo, b_hi, x1, x2, P, idx, sA, sB, sI, pre, left, right, k,
                criterion, msl, mwl, inc):
    """Close a box by criteria 1-4 if one applies.

    Parameters
    ----------
    a_lo, a_hi, b_lo, b_hi : float
        The box.
    x1, x2 : float64 (m,)
        The pair's distinct points.
    P : float64 (m, k + 1)
        Their class weights, then their numbers of samples.
    idx : int64 (|I|,)
        The undecided points.
    sA, sB, sI : float64 (k + 1,)
        Statistics of the points every rule of the box satisfies, of those none
        satisfies, and of the undecided ones.
    pre : float64 (m + 1, k + 1)
        Scratch for prefix sums.
    left, right : float64 (k + 1,)
        Scratch for the two sides.
    k, criterion : int
    msl, mwl : float
        ``min_samples_leaf`` and ``min_weight_leaf``.
    inc : float
        The incumbent: collinear points only report rules strictly below it.

    Returns
    -------
    closed : bool
        Whether a criterion applied: the box holds no rule better than the
        one returned. False leaves the box to be branched.
    g : float
        Impurity of the best rule found (``inf`` if none).
    a, b : float
        That rule.
    """
    nI = idx.shape[0]
    # ---- criterion 1: nothing undecided, one partition
    if nI == 0:
        g = score(sA, sB, k, criterion, msl, mwl)
        return True, g, a_lo + (a_hi - a_lo) / 2.0, b_lo + (b_hi - b_lo) / 2.0
    # ---- criterion 2: the undecided points coincide (merged: one point)
    if nI == 1:
        g, ga, gb = _explore_single_point(a_lo, a_hi, b_lo, b_hi, x1, x2, P, idx, sA, sB, left,
                                          right, k, criterion, msl, mwl)
        return True, g, ga, gb
    # ---- criterion 3: one class undecided: an extreme line is optimal (Theorem 1)
    if _undecided_classes(sI, k) == 1:
        closed, g, ga, gb = _explore_single_class(a_lo, a_hi, b_lo, b_hi, x1, x2, P, idx, sA,
                                                  sB, left, right, k, criterion, msl, mwl)
        if closed:
            return True, g, ga, gb
    # ---- criterion 4: the undecided points are collinear (Theorem 2)
    shape = collinear(x1, x2, idx)
    if shape == ON_A_LINE:
        g, ga, gb = _explore_collinear(a_lo, a_hi, b_lo, b_hi, x1, x2, P, idx, sA, sB, sI, pre,
                                       left, right, k, criterion, msl, mwl, inc)
        return True, g, ga, gb
    if shape == VERTICAL:
        g, ga, gb = _explore_vertical(a_lo, a_hi, b_lo, b_hi, x1, x2, P, idx, sA, sB, sI, pre,
                                      left, right, k, criterion, msl, mwl, inc)
        return True, g, ga, gb
    return False, np.inf, 0.0, 0.0
