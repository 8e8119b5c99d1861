"""The BiDT branch and bound (Bollwein & Westphal, 2021): globally optimal bivariate splits.

For every ordered feature pair ``(j1, j2)`` the search looks for the rule
``a z_j1 + b <= z_j2`` of least weighted child impurity over the region
``[-1, 1] x [B_lo, B_hi]`` of ``(a, b)``, ``z`` being the node's features
normalized by their median and interquartile range (section 4.1,
:func:`node_features`). Slopes ``|a| > 1`` are the other ordered pair's slopes
``|1 / a| < 1``, so the two orders together see every line. Identical points
are merged first (:func:`merge_pair`).

A subproblem is a box ``C = [a_lo, a_hi] x [b_lo, b_hi]``. It splits the
points into those every rule of ``C`` satisfies (``A``, go left), those no rule
satisfies (``B``) and the undecided ones (``I``), section 4.2. Boxes are
processed depth first, the child of least bound first:

* **lower bound** (:mod:`.bnb_bounds`): Theorem 4 improved by Theorems 5 / 6
  (``bound=PAPER``), or Theorem 1 itself (``bound=VERTEX``). A box whose bound
  reaches ``(1 - epsilon)`` times the incumbent is pruned (section 5.1).
* **exploration criteria** (:mod:`.bnb_explore`, section 4.3) close a box by
  enumerating every partition it can make.
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
pairs fixed by the node's size (:func:`bnb_search`): within a round every pair
starts from the incumbent of the round's start, and a serial pass in pair order
then updates it, so the result does not depend on the number of threads.

**Missing values** (NaN in ``Z``). The rows missing either feature of a pair
are a block held aside (:func:`missing_block`); the points are the pair's
complete rows (:func:`merge_pair`). The block's statistics go wholly to one
side: :func:`_search_pair` runs the pair with the block in the root box's
``A`` (left of every rule), then in its ``B``. Every lower bound, score and
exploration criterion reads the decided statistics of a box, so each stays
what it was with a constant block among them (the bounds bound the impurity of
every assignment of the undecided points given the decided ones), and the two
runs together are exact over every partition of the complete rows by a line
times the side of the block. A pair without missing rows runs once, as
without NaN.
"""

import math

import numpy as np
from numba import njit, prange

from .._config import NUMBA_OPTS
from .bnb_bounds import improve, lower_bound, score_line
from .bnb_explore import explore_box
from .sweep import load_flag, sweep_points

#: outcomes of :func:`bnb_ordered_pair`.
COMPLETE = 0
STOPPED = 1
GAVE_UP = 2

#: the branching point stays this fraction of each side away from the box's edges.
BRANCH_CLAMP = 0.1
#: boxes between two looks at the stop flag.
_STOP_CHECK_EVERY = 256
#: a rule within this (relative) of a box's lower bound attains it.
_ATTAINED = 1e-12
#: a box narrower than this (relative) cannot be branched in float64; its pair
#: is solved by the exact sweep instead.
_TINY = 1e-14


# ------------------------------------------------------------------ one box
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
def _split_box(a_lo, a_m, a_hi, b_lo, b_m, b_hi, x1, x2, P, idx, sA, sB, kids, k, criterion,
               bound, left, right):
    """The four children of a box at ``(a_m, b_m)``: their boxes, the points each decides
    (added to ``A`` or ``B``) or keeps undecided, and their lower bounds.

    ``kids`` is ``(kid_box, kidA, kidB, kidI, kid_list, kid_n, kid_lb, kid_order)``, filled
    here except ``kid_order``.
    """
    kid_box, kidA, kidB, kidI, kid_list, kid_n, kid_lb, _ = kids
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
        kid_lb[q] = lower_bound(kidA[q], kidB[q], kidI[q], k, criterion, bound, left, right)


# ------------------------------------------------- the box stack and the incumbent
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


@njit(**NUMBA_OPTS)
def _pruned(lb, keep, inc, lb_open):
    """Whether a box of bound ``lb`` is pruned (section 5.1), and ``lb_open`` updated.

    A box whose bound reaches ``keep`` times the incumbent is pruned; when it
    could still hold a better rule (pruned by ``epsilon`` only) its bound
    caps the proven lower bound ``lb_open``.
    """
    if lb >= keep * inc:
        if lb < inc and lb < lb_open:
            lb_open = lb
        return True, lb_open
    return False, lb_open


@njit(**NUMBA_OPTS)
def _least_open_bound(bf, top, inc, lb_open):
    """``lb_open`` lowered to the bounds, below ``inc``, of the ``top`` boxes left on the stack."""
    for s in range(top):
        if bf[s, 4] < inc and bf[s, 4] < lb_open:
            lb_open = bf[s, 4]
    return lb_open


@njit(**NUMBA_OPTS)
def _root_stack(x1, x2, P, k, criterion, bound, sA, sB, left, right):
    """The box stack holding the root box ``[-1, 1] x [B_lo, B_hi]``, every point undecided.

    The stack is the tuple ``(bf, bi, bA, bB, bI, pool)``: per box its
    ``a_lo, a_hi, b_lo, b_hi`` and lower bound, the offset and length of its
    undecided points in ``pool``, and the statistics of ``A``, ``B`` and ``I``.
    ``sA`` and ``sB`` are the root's ``A`` and ``B``: zero, or the rows held
    aside (missing a feature of the pair) on one side.
    """
    m = x1.shape[0]
    K = k + 1
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
    bf[0, 4] = lower_bound(sA, sB, total, k, criterion, bound, left, right)
    bi[0, 0] = 0
    bi[0, 1] = m
    bA[0, :] = sA
    bB[0, :] = sB
    bI[0, :] = total
    return bf, bi, bA, bB, bI, pool


@njit(**NUMBA_OPTS)
def _pop(stack, top, sA, sB, sI):
    """Box ``top`` of the stack: its statistics into ``sA``, ``sB``, ``sI``; returns
    ``(a_lo, a_hi, b_lo, b_hi, lower bound, pool offset, |I|)``."""
    bf, bi, bA, bB, bI, _ = stack
    for c in range(sA.shape[0]):
        sA[c] = bA[top, c]
        sB[c] = bB[top, c]
        sI[c] = bI[top, c]
    return bf[top, 0], bf[top, 1], bf[top, 2], bf[top, 3], bf[top, 4], bi[top, 0], bi[top, 1]


@njit(**NUMBA_OPTS)
def _reserve(stack, top, pool_top, nk):
    """The stack with room for box ``top`` and ``nk`` more pool entries after ``pool_top``."""
    bf, bi, bA, bB, bI, pool = stack
    if top >= bf.shape[0]:
        bf = _grown(bf, top)
        bi = _grown(bi, top)
        bA = _grown(bA, top)
        bB = _grown(bB, top)
        bI = _grown(bI, top)
    if pool_top + nk > pool.shape[0]:
        pool = _grown_pool(pool, pool_top, pool_top + nk)
    return bf, bi, bA, bB, bI, pool


@njit(**NUMBA_OPTS)
def _push_children(stack, top, pool_top, kids, keep, inc, lb_open):
    """Push the children of :func:`_split_box` that are not pruned, the most promising last
    so that it is explored first; their undecided points go to the pool from ``pool_top``.

    Returns the stack, its new height and ``lb_open`` lowered by the children pruned by
    ``epsilon``.
    """
    kid_box, kidA, kidB, kidI, kid_list, kid_n, kid_lb, kid_order = kids
    _order_by_bound(kid_lb, kid_order)
    for t in range(4):
        q = kid_order[t]
        pruned, lb_open = _pruned(kid_lb[q], keep, inc, lb_open)
        if pruned:
            continue
        nk = kid_n[q]
        stack = _reserve(stack, top, pool_top, nk)
        bf, bi, bA, bB, bI, pool = stack
        for t2 in range(nk):
            pool[pool_top + t2] = kid_list[q, t2]
        for c in range(4):
            bf[top, c] = kid_box[q, c]
        bf[top, 4] = kid_lb[q]
        bi[top, 0] = pool_top
        bi[top, 1] = nk
        for c in range(kidA.shape[1]):
            bA[top, c] = kidA[q, c]
            bB[top, c] = kidB[q, c]
            bI[top, c] = kidI[q, c]
        pool_top += nk
        top += 1
    return stack, top, lb_open


@njit(**NUMBA_OPTS)
def _too_thin(a_lo, a_hi, b_lo, b_hi):
    """Whether a box is too thin for float64 to branch."""
    return (a_hi - a_lo) <= _TINY or (b_hi - b_lo) <= _TINY * max(1.0, abs(b_lo), abs(b_hi))


# -------------------------------------------------------------- one ordered pair
@njit(**NUMBA_OPTS)
def bnb_ordered_pair(x1, x2, P, held_A, held_B, k, criterion, msl, mwl, incumbent, epsilon,
                     bound, max_boxes, stop):
    """Branch and bound for the rule ``a x1 + b <= x2`` over ``[-1, 1] x [B_lo, B_hi]``.

    Parameters
    ----------
    x1, x2 : float64 (m,)
        Distinct (merged) normalized points.
    P : float64 (m, k + 1)
        Class weights of each point, then its number of samples.
    held_A, held_B : float64 (k + 1,)
        Statistics fixed on the left (``A``) and on the right (``B``) of every
        rule: zero, or the rows missing a feature of the pair on one side. Every
        bound, score and exploration criterion sees them as points the whole
        box decided, so the search stays exact for the partitions of the points
        with that block added to one side.
    k, criterion : int
    msl, mwl : float
        ``min_samples_leaf`` and ``min_weight_leaf``.
    incumbent : float
        Only strictly better rules are of interest.
    epsilon : float
        Relative gap at which a box is pruned.
    bound : int
        :data:`.bnb_bounds.PAPER` or :data:`.bnb_bounds.VERTEX` (see
        :func:`.bnb_bounds.lower_bound`).
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
    K = k + 1
    keep = 1.0 - epsilon
    best = np.inf
    best_a = 0.0
    best_b = 0.0
    inc = incumbent
    lb_open = np.inf
    n_boxes = 0
    status = COMPLETE

    sA = held_A.copy()
    sB = held_B.copy()
    sI = np.empty(K)
    left = np.empty(K)
    right = np.empty(K)
    # box stack (depth first) and the pool of undecided-point lists
    stack = _root_stack(x1, x2, P, k, criterion, bound, sA, sB, left, right)
    top = 1

    m = x1.shape[0]
    pre = np.empty((m + 1, K))
    kids = (np.empty((4, 4)), np.empty((4, K)), np.empty((4, K)), np.empty((4, K)),
            np.empty((4, m), np.int64), np.empty(4, np.int64), np.empty(4),
            np.empty(4, np.int64))

    since_check = 0
    while top > 0:
        if n_boxes == max_boxes:
            status = GAVE_UP
            break
        since_check += 1
        if since_check >= _STOP_CHECK_EVERY:
            since_check = 0
            if load_flag(stop) != 0:
                status = STOPPED
                lb_open = _least_open_bound(stack[0], top, inc, lb_open)
                break
        top -= 1
        a_lo, a_hi, b_lo, b_hi, lb, off, nI = _pop(stack, top, sA, sB, sI)
        pruned, lb_open = _pruned(lb, keep, inc, lb_open)
        if pruned:
            continue
        n_boxes += 1
        idx = stack[5][off:off + nI]

        # ---- exploration criteria 1-4: every partition of the box enumerated
        closed, g, ga, gb = explore_box(a_lo, a_hi, b_lo, b_hi, x1, x2, P, idx, sA, sB, sI, pre,
                                        left, right, k, criterion, msl, mwl, inc)
        inc, best, best_a, best_b = improve(g, ga, gb, inc, best, best_a, best_b)
        if closed:
            continue

        # ---- a box too thin for float64 to branch: leave the pair to the exact sweep
        if _too_thin(a_lo, a_hi, b_lo, b_hi):
            status = GAVE_UP
            break

        # ---- branch: strategy 2, clamped towards strategy 1 (termination)
        a_m, b_m = _branch_point(a_lo, a_hi, b_lo, b_hi, x1, x2, P, idx, k)
        # upper bound: the rule at the branching point
        g = score_line(a_m, b_m, x1, x2, P, idx, nI, sA, sB, left, right, k, criterion,
                       msl, mwl)
        inc, best, best_a, best_b = improve(g, a_m, b_m, inc, best, best_a, best_b)
        if g <= lb + _ATTAINED * max(1.0, abs(lb)):
            continue  # the bound is attained: the box holds nothing better
        _split_box(a_lo, a_m, a_hi, b_lo, b_m, b_hi, x1, x2, P, idx, sA, sB, kids, k, criterion,
                   bound, left, right)
        stack, top, lb_open = _push_children(stack, top, off + nI, kids, keep, inc, lb_open)
    return best, best_a, best_b, lb_open, n_boxes, status


# --------------------------------------------------------------- all the pairs
@njit(**NUMBA_OPTS)
def merge_pair(Z, order, rank, j, k, P):
    """The distinct points ``(Z[:, j], Z[:, k])`` with summed statistics ``P``.

    ``order[:, j]`` sorts column ``j`` and ``rank`` holds dense ranks, so only
    runs of equal ``Z[:, j]`` need sorting (by ``rank[:, k]``) before merging.
    Rows missing ``j`` or ``k`` (rank ``-1``, see :func:`node_features`) are
    left out: :func:`missing_block` sums them.
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
        if rj < 0:
            break  # the rows missing j, sorted last
        while q < n and rank[order[q, j], j] == rj:
            q += 1
        run = order[p:q, j]
        if q - p > 1:
            run = run[np.argsort(rank[run, k], kind="mergesort")]
        last = -1
        for t in range(q - p):
            i = run[t]
            rk = rank[i, k]
            if rk < 0:
                continue  # missing k
            if rk != last:
                u[m] = Z[i, j]
                v[m] = Z[i, k]
                m += 1
                last = rk
            for c in range(K):
                S[m - 1, c] += P[i, c]
        p = q
    return u[:m].copy(), v[:m].copy(), S[:m].copy()


@njit(**NUMBA_OPTS)
def missing_block(rank, j, k, P):
    """Summed statistics of the rows missing ``j`` or ``k`` (rank ``-1``), and their number."""
    held = np.zeros(P.shape[1])
    n_held = 0
    for i in range(rank.shape[0]):
        if rank[i, j] < 0 or rank[i, k] < 0:
            n_held += 1
            for c in range(P.shape[1]):
                held[c] += P[i, c]
    return held, n_held


@njit(**NUMBA_OPTS)
def _search_pair(u, v, S, held, n_held, k, criterion, msl, mwl, incumbent, epsilon, bound,
                 limit, params, root_lb, stop):
    """Both orders of one pair, for every side of its held rows; the sweep if that gives up.

    Without held rows (``n_held == 0``) the two orders run once; with them, the
    two orders run with the block on the right, then on the left (the
    incumbent carried along), which together cover every partition of the
    complete points times the block's side.

    Returns ``(best, a, b, swap, lb_open, n_boxes, n_swaps, stopped)`` as one
    pair's slots of :func:`bnb_search` (``best`` is ``inf`` if nothing beat
    ``incumbent``).
    """
    K = k + 1
    m = u.shape[0]
    if m == 0:
        return np.inf, 0.0, 0.0, False, np.inf, 0, 0, False
    zero = np.zeros(K)
    best = np.inf
    best_a = 0.0
    best_b = 0.0
    best_swap = False
    lb_open = np.inf
    n_boxes = 0
    stopped = False
    gave_up = False
    n_sides = 2 if n_held > 0 else 1
    for side in range(n_sides):
        # held rows right first (side 0), then left
        held_A = held if side == 1 else zero
        held_B = held if (side == 0 and n_held > 0) else zero
        for swap in range(2):
            x1 = v if swap == 1 else u
            x2 = u if swap == 1 else v
            g, a, b, lb, nb, st = bnb_ordered_pair(
                x1, x2, S, held_A, held_B, k, criterion, msl, mwl, min(incumbent, best),
                epsilon, bound, limit, stop)
            n_boxes += nb
            if st == GAVE_UP:
                gave_up = True
                break
            if g < best:
                best = g
                best_a = a
                best_b = b
                best_swap = swap == 1
            lb_open = min(lb_open, lb)
            stopped = stopped or st == STOPPED
        if gave_up:
            break
    if not gave_up:
        return best, best_a, best_b, best_swap, lb_open, n_boxes, 0, stopped
    # more subproblems than the pair's exact sweep costs, or a box too thin for
    # float64 (points a hair apart keep long thin strips of boxes undecided):
    # sweep the pair, with its held rows
    opt, wu, wv, _, _, sw, done = sweep_points(u, v, S, held, n_held > 0, criterion, params,
                                               stop)
    lb_open = np.inf if done else min(root_lb, opt)
    best = opt if opt < incumbent else np.inf
    # the rule wu z_j + wv z_k <= t, as a x1 + b <= x2 with |a| <= 1 (only its
    # direction is used)
    swap = abs(wu) > abs(wv)
    a = -wv / wu if swap else -wu / wv
    return best, a, 0.0, swap, lb_open, n_boxes, sw, not done


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
            held, n_held = missing_block(rank, pair_j[q], pair_k[q], P)
            m = u.shape[0]
            limit = max(sweep_boxes[0], (m * m) // sweep_boxes[1])
            g, a, b, swap, lb, nb, sw, st = _search_pair(
                u, v, S, held, n_held, k, criterion, msl, mwl, inc_round, epsilon, bound, limit,
                params, root_lb, stop)
            pair_best[q] = g
            pair_a[q] = a
            pair_b[q] = b
            pair_swap[q] = swap
            lb_open[q] = lb
            n_boxes[q] = nb
            n_swaps[q] = sw
            pair_stopped[q] = st
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


# ------------------------------------------------------------ node features
@njit(**NUMBA_OPTS)
def _sorted_quantile(col, order, n, q):
    """Quantile ``q`` of the first ``n`` values of ``col`` in the order ``order`` (sorted),
    linear interpolation as numpy's default."""
    pos = q * (n - 1)
    lo = math.floor(pos)
    hi = min(lo + 1, n - 1)
    frac = pos - lo
    return col[order[lo]] + frac * (col[order[hi]] - col[order[lo]])


@njit(**NUMBA_OPTS)
def _known_first_order(col):
    """Order sorting the known values of ``col`` (stable) followed by the NaN positions, and
    the number of known values."""
    n = col.shape[0]
    n_known = 0
    for p in range(n):
        if not math.isnan(col[p]):
            n_known += 1
    if n_known == n:
        return np.argsort(col, kind="mergesort"), n
    known = np.empty(n_known, np.int64)
    out = np.empty(n, np.int64)
    a = 0
    b = n_known
    for p in range(n):
        if math.isnan(col[p]):
            out[b] = p
            b += 1
        else:
            known[a] = p
            a += 1
    sub = known[np.argsort(col[known], kind="mergesort")]
    out[:n_known] = sub
    return out, n_known


@njit(**NUMBA_OPTS)
def node_features(X, samples, features):
    """Median/IQR-normalized features of a node, their sort orders and dense ranks.

    The scale is the interquartile range (the range when that is zero) rounded
    to a power of two, so that normalizing is exact for data on a grid: ties
    and collinear points stay exactly tied and collinear. A feature constant
    over the node gets scale 0.

    Missing values (NaN) stay NaN in ``Z``, come last in ``order`` and get rank
    ``-1``; the median and the scale of a feature are those of its known
    values (an affine change of one axis maps lines to lines, so the scaling
    changes no partition of a pair's complete rows; it only conditions the
    search). A feature with no known value, or one, gets scale 0.

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
        o, n_known = _known_first_order(col)
        med = 0.0
        inv = 0.0
        if n_known > 0:
            lo = col[o[0]]
            hi = col[o[n_known - 1]]
            med = _sorted_quantile(col, o, n_known, 0.5)
            spread = (_sorted_quantile(col, o, n_known, 0.75)
                      - _sorted_quantile(col, o, n_known, 0.25))
            if not spread > 0.0:
                spread = hi - lo
            if spread > 0.0:
                s = 2.0 ** round(math.log2(spread))
                inv = 1.0 / s
                scale[f] = s
        median[f] = med
        for p in range(n):
            Z[p, f] = (col[p] - med) * inv
        r = 0
        for t in range(n):
            i = o[t]
            if t > 0 and col[i] != col[o[t - 1]]:
                r += 1
            order[t, f] = i
            rank[i, f] = r if t < n_known else -1
    return Z, order, rank, median, scale
