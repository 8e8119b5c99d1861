"""Exact rotational sweep: the best linear split of points in the plane.

For points ``(u_i, v_i)`` with additive statistics ``stats[i]`` and an
objective ``f(left, right)`` of the two sides' summed statistics, find the line
that minimises ``f`` over **every** partition of the points by a line.

The points are projected on ``u + s v`` and the slope ``s`` sweeps the real
line. At ``s = -inf`` the order of the projections is ``v`` descending (ties:
``u`` ascending); the order changes only at the critical slopes
``s = (u_b - u_a) / (v_a - v_b)`` where two points project equally, and there
the two points, adjacent in the order, swap. A swap at sorted positions
``p, p + 1`` changes the prefix ``{first p + 1 points}`` and no other, so the
objective of one cut is updated per swap. The next swap is the smallest
critical slope among adjacent pairs, kept in an indexed binary heap over the
``m - 1`` positions, so the whole sweep is ``m (m - 1) / 2`` swaps of
``O(log m)`` each: ``O(n^2 log n)`` time and ``O(n d)`` memory.

Exactness on degenerate data:

* duplicate points are merged first (their statistics summed): they never
  separate;
* ``k > 2`` collinear points tie at the same critical slope, and between the
  slopes just below and just above it their block of the order reverses. The
  swaps of one slope are all applied before any cut is evaluated again, so a
  partition is only scored for an order that exists on an open interval of
  slopes (a half-reversed block is not realizable by any line). The critical
  slope of a pair is one correctly rounded division of the coordinate
  differences, so collinear points whose differences are exact (integer or
  dyadic data) get bit-identical slopes; slopes closer than
  :data:`SLOPE_TOL` (points collinear in decimal, not quite in binary) are
  one slope as well;
* the two ends of the sweep are different intervals: pairs with ``v_a == v_b``
  swap only at the vertical direction, so ``s < s_first`` and ``s > s_last``
  are scored separately.

Every linear bipartition of a finite point set is strict on an open set of
directions, hence appears as a cut of the order on one of the open slope
intervals; the sweep scores all of them and returns a direction strictly
inside the winning interval (its midpoint, in angle when it is unbounded) with
a threshold halfway between the two projections around the cut.

**Rows held aside** (missing values): :func:`sweep_points` also takes the
summed statistics of rows that go, together, to one side of every line (the
rows missing a coordinate, split off by :func:`sweep_pair_missing`). Every cut
is then scored with them on the left and on the right, and the cut putting
every point on one side against them is scored too: exact over every partition
of the points by a line times the side of the held rows.

**Monotonic constraints** (:mod:`bivtree._kernels.constraints`): with
``params = [min_samples_leaf, min_weight_leaf, order, lower, upper]`` a
built-in objective rejects (``inf``) a partition whose sides' values break
``order`` or the bounds; ``order`` is fixed over the whole sweep because the
rule ``u + s v`` weighs ``u`` positively for every ``s``, so a constrained
feature is swept as ``u`` (:func:`sweep_constrained`). Two constrained features
need slopes ``s`` of one sign: :func:`sweep_points` then scores only the
intervals of slopes within ``(slope_lo, slope_hi)`` (every cut on entering
it, then the changed ones), a quarter-turn of the directions, and returns a
direction inside it. The sweep stays exact over the admissible partitions.

:func:`best_split_2d` is the reusable solver: any objective of additive
statistics, e.g. the weighted 0/1 loss of tree alternating optimization's
reduced problem (:data:`ZERO_ONE`). :func:`sweep_search` runs it over the
feature pairs of a tree node in parallel for the ``"optimal"`` splitter.
"""

import math
import threading
from collections import namedtuple

import numpy as np
from numba import njit, prange
from numba.core import types
from numba.extending import intrinsic, overload

from .._config import ENTROPY, GINI, MISCLASSIFICATION, NUMBA_OPTS, SQUARED_ERROR
from .constraints import values_admissible
from .criteria import midpoint_threshold, xlogx
from .sorting import float32_radix_argsort

_INV_LN2 = 1.0 / math.log(2.0)

#: swaps between two looks at the stop flag.
_STOP_CHECK_EVERY = 4096
#: critical slopes closer than this (relative) are one slope. Points written in
#: decimals are collinear in decimal but not in binary; the line that would
#: separate them exists only to the last bit, and no stored rule reproduces it.
SLOPE_TOL = 1e-12


# ------------------------------------------------------------------ stop flag
@intrinsic
def load_flag(typingctx, flag):
    """Atomic read of ``flag[0]`` (int64), so a loop sees another thread's write.

    A plain load could be hoisted out of a loop by the compiler; an atomic load
    cannot. A Python timer thread sets the flag while the kernel, compiled with
    ``nogil``, runs.
    """
    if not (isinstance(flag, types.Array) and flag.dtype == types.int64):
        return None
    sig = types.int64(flag)

    def codegen(context, builder, signature, args):
        ary = context.make_array(signature.args[0])(context, builder, args[0])
        return builder.load_atomic(ary.data, ordering="monotonic", align=8)

    return sig, codegen


class StopTimer:
    """A stop flag for :func:`load_flag` that a timer thread raises after ``seconds``.

    ``seconds=None``: never; ``seconds <= 0``: raised at once.
    """

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


# ----------------------------------------------------------------- objectives
# Built-in objectives, chosen by an integer code so that the kernels compile
# (and are cached on disk) once. ``left`` and ``right`` are the summed
# statistics of the two sides; ``params = [min_samples_leaf, min_weight_leaf]``.
# The last statistics column is the number of samples; the value is ``inf`` for
# a side that breaks the leaf constraints (or has no weight).

#: weighted 0/1 loss of a binary pseudolabel task (tree alternating optimization).
ZERO_ONE = 4

#: objective names understood by :func:`best_split_2d`.
OBJECTIVE_CODES = {"gini": GINI, "entropy": ENTROPY, "misclassification": MISCLASSIFICATION,
                   "squared_error": SQUARED_ERROR, "zero_one": ZERO_ONE}


@njit(inline="always", **NUMBA_OPTS)
def frequency_weighted_impurity(counts, n_classes, criterion):
    """``w * i(counts / w)`` for class weights ``counts[:n_classes]``: gini, entropy (bits),
    misclassification. Zero for an empty side.

    Inlined (numba IR) like :func:`builtin_objective`, which scores a cut with it
    twice at every swap of the sweep: called, it cost about a sixth of a sweep."""
    w = 0.0
    for c in range(n_classes):
        w += counts[c]
    if w <= 0.0:
        return 0.0
    if criterion == GINI:
        s = 0.0
        for c in range(n_classes):
            s += counts[c] * counts[c]
        return w - s / w
    if criterion == ENTROPY:
        h = xlogx(w)
        for c in range(n_classes):
            h -= xlogx(counts[c])
        return h * _INV_LN2
    m = 0.0
    for c in range(n_classes):
        m = max(m, counts[c])
    return w - m


@njit(inline="always", **NUMBA_OPTS)
def builtin_objective(code, left, right, params):
    """Value of a partition for a built-in objective.

    Inlined (numba IR) into :func:`_evaluate`: called, it cost a quarter of a
    sweep's time (the rotational sweep scores a cut at every swap).

    ============================  ==========================================
    code                          statistics columns, value
    ============================  ==========================================
    gini, entropy,                ``[class weights..., count]``; weighted
    misclassification             child impurity ``w_L i(L) + w_R i(R)``
    squared_error                 ``[w, w y, w y^2, count]``; within-side
                                  sum of squares
    :data:`ZERO_ONE`              ``[weight preferring left, weight
                                  preferring right, count]``; the weight
                                  sent to the side it does not prefer
    ============================  ==========================================

    With ``params[2:5] = [order, lower, upper]`` (monotonic constraints) a
    partition whose sides' values (mean target, or share of the last class)
    break ``order`` or leave ``[lower, upper]`` is forbidden (``inf``).
    """
    d = left.shape[0] - 1
    if left[d] < params[0] or right[d] < params[0]:
        return np.inf
    if code == ZERO_ONE:
        return left[1] + right[0]
    # the sides' values as side_value defines them, read from this layout's columns
    ordered = params.shape[0] > 2 and params[2] != 0.0
    if code == SQUARED_ERROR:
        if left[0] <= 0.0 or right[0] <= 0.0 or left[0] < params[1] or right[0] < params[1]:
            return np.inf
        if ordered and not values_admissible(params[2], params[3], params[4],
                                             left[1] / left[0], right[1] / right[0]):
            return np.inf
        return ((left[2] - left[1] * left[1] / left[0])
                + (right[2] - right[1] * right[1] / right[0]))
    wl = 0.0
    wr = 0.0
    for c in range(d):
        wl += left[c]
        wr += right[c]
    if wl <= 0.0 or wr <= 0.0 or wl < params[1] or wr < params[1]:
        return np.inf
    if ordered and not values_admissible(params[2], params[3], params[4],
                                         left[d - 1] / wl, right[d - 1] / wr):
        return np.inf
    return (frequency_weighted_impurity(left, d, code)
            + frequency_weighted_impurity(right, d, code))


def _evaluate(objective, left, right, params):
    """Objective of a partition: a built-in code, or a numba function (see :func:`overload`)."""
    raise NotImplementedError  # pragma: no cover - only compiled through the overload


@overload(_evaluate, **NUMBA_OPTS)
def _evaluate_overload(objective, left, right, params):
    if isinstance(objective, types.Integer):
        def impl(objective, left, right, params):
            return builtin_objective(objective, left, right, params)
        return impl

    def call(objective, left, right, params):
        return objective(left, right, params)
    return call


def node_statistics(labels, targets, sample_weight, n_classes, criterion):
    """Per-sample statistics of a node for the built-in objective of ``criterion``.

    Classification: one-hot class weights then a count column; regression:
    ``[w, w y, w y^2, 1]``.
    """
    n = sample_weight.shape[0]
    if criterion == SQUARED_ERROR:
        stats = np.empty((n, 4))
        stats[:, 0] = sample_weight
        stats[:, 1] = sample_weight * targets
        stats[:, 2] = sample_weight * targets * targets
        stats[:, 3] = 1.0
        return stats
    stats = np.zeros((n, n_classes + 1))
    stats[np.arange(n), labels] = sample_weight
    stats[:, n_classes] = 1.0
    return stats


# ---------------------------------------------------------------- indexed heap
# A binary min-heap of the adjacent pairs' next swap slopes. ``hkey[i]`` and
# ``hpos[i]`` are the slope and sorted position held at heap slot ``i`` (kept
# side by side so a sift reads memory in order), ``where[p]`` the slot of
# position ``p``. Ties go to the smaller position: a fixed, deterministic order.

@njit(**NUMBA_OPTS)
def _heap_move(hkey, hpos, where, i, key, pos):
    hkey[i] = key
    hpos[i] = pos
    where[pos] = i


@njit(**NUMBA_OPTS)
def _sift_up(hkey, hpos, where, i):
    key = hkey[i]
    pos = hpos[i]
    while i > 0:
        parent = (i - 1) >> 1
        pk = hkey[parent]
        if key < pk or (key == pk and pos < hpos[parent]):
            _heap_move(hkey, hpos, where, i, pk, hpos[parent])
            i = parent
        else:
            break
    _heap_move(hkey, hpos, where, i, key, pos)


@njit(**NUMBA_OPTS)
def _sift_down(hkey, hpos, where, i, size):
    key = hkey[i]
    pos = hpos[i]
    while True:
        child = 2 * i + 1
        if child >= size:
            break
        ck = hkey[child]
        if child + 1 < size:
            rk = hkey[child + 1]
            if rk < ck or (rk == ck and hpos[child + 1] < hpos[child]):
                child += 1
                ck = rk
        if ck < key or (ck == key and hpos[child] < pos):
            _heap_move(hkey, hpos, where, i, ck, hpos[child])
            i = child
        else:
            break
    _heap_move(hkey, hpos, where, i, key, pos)


@njit(**NUMBA_OPTS)
def _set_key(hkey, hpos, where, p, value, size):
    i = where[p]
    old = hkey[i]
    hkey[i] = value
    if value < old:
        _sift_up(hkey, hpos, where, i)
    elif value > old:
        _sift_down(hkey, hpos, where, i, size)


@njit(**NUMBA_OPTS)
def _swap_slope(u, v, a, b):
    """Slope at which ``a`` (sorted before ``b``) and ``b`` swap; ``inf`` if they never will."""
    if v[a] > v[b]:
        return (u[b] - u[a]) / (v[a] - v[b])
    return np.inf


# ---------------------------------------------------------------- the solver
@njit(**NUMBA_OPTS)
def merge_points(u, v, stats):
    """Merge identical points, summing their statistics.

    Returns ``(mu, mv, mstats)`` in the sweep's initial order: ``v`` descending,
    ties by ``u`` ascending.
    """
    n = u.shape[0]
    order = np.argsort(u, kind="mergesort")
    neg_v = np.empty(n)
    for p in range(n):
        neg_v[p] = -v[order[p]]
    order = order[np.argsort(neg_v, kind="mergesort")]
    d = stats.shape[1]
    mu = np.empty(n)
    mv = np.empty(n)
    mstats = np.zeros((n, d))
    m = -1
    for p in range(n):
        i = order[p]
        if m < 0 or u[i] != mu[m] or v[i] != mv[m]:
            m += 1
            mu[m] = u[i]
            mv[m] = v[i]
        for c in range(d):
            mstats[m, c] += stats[i, c]
    m += 1
    return mu[:m].copy(), mv[:m].copy(), mstats[:m].copy()


@njit(**NUMBA_OPTS)
def _angle_direction(s_lo, s_hi, fraction):
    """The direction at ``fraction`` of the angles from slope ``s_lo`` to ``s_hi`` (ends may
    be infinite), scaled to ``max(|wu|, |wv|) = 1``."""
    t_lo = -math.pi / 2.0 if not math.isfinite(s_lo) else math.atan(s_lo)
    t_hi = math.pi / 2.0 if not math.isfinite(s_hi) else math.atan(s_hi)
    t = t_lo + (t_hi - t_lo) * fraction
    wu = math.cos(t)
    wv = math.sin(t)
    scale = max(abs(wu), abs(wv))
    return wu / scale, wv / scale


@njit(**NUMBA_OPTS)
def _interval_direction(s_lo, s_hi):
    """A direction ``(wu, wv)``, a positive multiple of ``(1, s)``, with ``s`` strictly
    inside ``(s_lo, s_hi)`` (ends may be infinite), and ``max(|wu|, |wv|) = 1``."""
    if math.isfinite(s_lo) and math.isfinite(s_hi):
        s = s_lo + (s_hi - s_lo) / 2.0
        if not (s_lo < s < s_hi):
            s = s_lo / 2.0 + s_hi / 2.0
        if abs(s) <= 1.0:
            return 1.0, s
        return 1.0 / abs(s), s / abs(s)
    # an unbounded end: halve the angle instead (the slope midpoint does not exist);
    # times 0.5 is exactly a division by 2
    return _angle_direction(s_lo, s_hi, 0.5)


@njit(**NUMBA_OPTS)
def _held_direction(s_lo, s_hi):
    """:func:`_interval_direction`, moved off the axes when it lands on one.

    With rows held aside (missing values), a rule on one axis is not the
    univariate rule of that feature (it holds aside the rows missing the other
    feature as well), so the returned direction must weigh both coordinates:
    a quarter of the way through the angles of the interval instead of half.
    """
    wu, wv = _interval_direction(s_lo, s_hi)
    if wu != 0.0 and wv != 0.0:
        return wu, wv
    return _angle_direction(s_lo, s_hi, 0.25)


#: up to this many (merged) points the sweep takes its swaps from the pairs' critical
#: slopes sorted once (``m (m - 1) / 2`` of them, about 56 bytes each while the sweep
#: runs) instead of from the heap of adjacent pairs. With cuts whose prefix did not change
#: left unscored, a sweep of random points with two classes took 0.42 to 0.53 times the
#: heap's time from 25 to 512 points, 0.60 at 1000 and 0.81 at 2000 (Intel Xeon, one
#: thread). The limit bounds the memory: 7 MB per sweep at 512 points, times the threads
#: sweeping pairs at once (:func:`sweep_search`), where 1,024 points would take 29 MB each
#: for a smaller gain; above it the heap's ``O(m)`` memory.
SORTED_EVENTS_MAX_POINTS = 512


@njit(**NUMBA_OPTS)
def slope_events(mu, mv):
    """Every pair's swap, sorted by its critical slope: ``(slope, first, second, ok)``.

    Points ``a < b`` of the sweep's initial order (``v`` descending) swap once,
    at :func:`_swap_slope` ``(a, b)`` (pairs with ``v_a == v_b`` never do). The
    slopes are computed by the very expression the heap computes for an
    adjacent pair, so both schedules see bit-identical keys; ``ok`` is false if
    one is not finite (coordinates near the overflow range), which the sorted
    schedule leaves to the heap.
    """
    m = mu.shape[0]
    n_pairs = m * (m - 1) // 2
    slopes = np.empty(n_pairs)
    first = np.empty(n_pairs, dtype=np.int64)
    second = np.empty(n_pairs, dtype=np.int64)
    e = 0
    for a in range(m):
        for b in range(a + 1, m):
            if mv[a] > mv[b]:
                s = (mu[b] - mu[a]) / (mv[a] - mv[b])
                if not (-np.inf < s < np.inf):
                    return slopes[:0], first[:0], second[:0], False
                slopes[e] = s
                first[e] = a
                second[e] = b
                e += 1
    # slopes are ratios, heavy-tailed: the float32 keys sort them without the 16-bit
    # keys' crowding (bivtree._kernels.sorting)
    order = float32_radix_argsort(slopes[:e])
    return slopes[order], first[order], second[order], True


@njit(**NUMBA_OPTS)
def _mark_every_cut(dirty, changed, dirty_list, n_dirty):
    """Mark every cut as changed (to be scored at the next slope); the new dirty count."""
    for c0 in range(dirty.shape[0]):
        changed[c0] = True
        if not dirty[c0]:
            dirty[c0] = True
            dirty_list[n_dirty] = c0
            n_dirty += 1
    return n_dirty


@njit(**NUMBA_OPTS)
def sweep_points(u, v, stats, held, has_held, objective, params, stop,
                 max_sorted_points=SORTED_EVENTS_MAX_POINTS, slope_lo=-np.inf,
                 slope_hi=np.inf):
    """:func:`sweep_pair`, with the statistics ``held`` of rows held aside when ``has_held``.

    The held rows (rows missing a coordinate) go, together, to the left or to
    the right side of every cut, both scored; with them the cut putting every
    point on one side is a partition too (the points against the held rows).
    Without held rows (``has_held`` false, ``held`` not read) this is the plain
    sweep, operation for operation.

    The scoring of a cut (the right side, and with held rows the better of
    their two sides) is written out at each of its three places: a shared
    helper, inlined or not, made the sweep 10 to 20 % slower (measured with
    the same points on both versions in one process).

    The next swap is the adjacent pair of least critical slope (ties: the
    lower position). Up to ``max_sorted_points`` merged points (default
    :data:`SORTED_EVENTS_MAX_POINTS`) it is read from every pair's slope
    sorted once (:func:`slope_events`): the pairs of the next slope are taken
    in, and the adjacent one of least (slope, position) among those taken and
    not swapped yet is swapped, which is the heap's choice, swap for swap (a
    pair whose rounded slope comes before it can cross waits until it is
    adjacent, as outside the heap). A swap of two points with equal
    statistics leaves its cut's prefix as it was: the cut is not scored
    again (it scored that value before, and only a strictly better value is
    kept), so the answer is the one scoring it again would give.

    ``slope_lo``, ``slope_hi``: only the partitions of slopes ``s`` strictly
    between them are scored (every cut when the sweep enters that range, then
    the changed ones), and the returned direction lies inside it; the default
    is every slope, the plain sweep operation for operation.
    """
    restricted = slope_lo > -np.inf or slope_hi < np.inf
    mu, mv, ms = merge_points(u, v, stats)
    m = mu.shape[0]
    d = ms.shape[1]
    total = np.zeros(d)
    for i in range(m):
        for c in range(d):
            total[c] += ms[i, c]
    # a cut's left side is copied out of its prefix row rather than passed as a view (a
    # view costs reference counting at every cut scored: about a tenth of the sweep)
    left = np.empty(d)
    right = np.empty(d)
    held_left = np.empty(d)
    held_right = np.empty(d)
    # every point on one side, the held rows on the other (scored once: the mirror
    # partition is the same one)
    all_points = np.inf
    if has_held and m > 0:
        all_points = _evaluate(objective, total, held, params)
    if m < 2:
        if has_held and m == 1:
            return all_points, 1.0, 1.0, np.inf, all_points, 0, True
        return np.inf, 1.0, 0.0, 0.0, np.inf, 0, True
    n_cuts = m - 1
    perm = np.arange(m)
    prefix = np.empty((n_cuts, d))
    for c in range(d):
        prefix[0, c] = ms[0, c]
    for p in range(1, n_cuts):
        for c in range(d):
            prefix[p, c] = prefix[p - 1, c] + ms[p, c]

    # the next swap: from every pair's slope sorted once, or from an indexed heap of the
    # next swap slope of each adjacent pair
    by_slope = m <= max_sorted_points
    ev_slope = np.empty(0)
    ev_first = np.empty(0, dtype=np.int64)
    ev_second = np.empty(0, dtype=np.int64)
    if by_slope:
        ev_slope, ev_first, ev_second, by_slope = slope_events(mu, mv)
    n_events = ev_slope.shape[0]
    pending = np.empty(n_events, dtype=np.int64)  # events taken in, not swapped yet
    n_pending = 0
    next_event = 0
    pos = np.arange(m)  # position of each point
    hkey = np.empty(n_cuts)
    hpos = np.arange(n_cuts)
    where = np.arange(n_cuts)
    for p in range(n_cuts):
        hkey[p] = _swap_slope(mu, mv, p, p + 1)
    if not by_slope:
        for i in range(n_cuts // 2 - 1, -1, -1):
            _sift_down(hkey, hpos, where, i, n_cuts)

    best = np.inf
    best_cut = -1
    best_lo = -np.inf
    best_hi = np.inf
    # the order at s -> -inf, valid until the first swap (the least adjacent slope)
    first = hkey[0]
    if by_slope:
        for p in range(1, n_cuts):
            first = min(first, hkey[p])
    if all_points < best:
        best = all_points
        best_cut = n_cuts  # every point left: any direction makes it
    # the order of slopes (-inf, first) is scored if it meets the slopes allowed
    entered = not restricted or first > slope_lo
    for p in range(n_cuts if entered else 0):
        for c in range(d):
            left[c] = prefix[p, c]
            right[c] = total[c] - left[c]
        if has_held:
            for c in range(d):
                held_left[c] = left[c] + held[c]
                held_right[c] = right[c] + held[c]
            val = min(_evaluate(objective, held_left, right, params),
                      _evaluate(objective, left, held_right, params))
        else:
            val = _evaluate(objective, left, right, params)
        if val < best:
            best = val
            best_cut = p
            best_lo = slope_lo
            best_hi = min(first, slope_hi)

    dirty = np.zeros(n_cuts, dtype=np.bool_)
    changed = np.zeros(n_cuts, dtype=np.bool_)  # a dirty cut whose prefix changed
    dirty_list = np.empty(n_cuts, dtype=np.int64)
    n_dirty = 0
    s_last = -np.inf
    n_swaps = 0
    next_check = _STOP_CHECK_EVERY
    complete = True
    while True:
        if by_slope:
            # the adjacent pair of least (slope, position) among the events taken in;
            # while there is none, the events of the next slope are taken in
            chosen = -1
            s = np.inf
            p = 0
            while True:
                for q in range(n_pending):
                    ev = pending[q]
                    at = pos[ev_first[ev]]
                    if at < n_cuts and perm[at + 1] == ev_second[ev]:
                        slope = ev_slope[ev]
                        if chosen < 0 or slope < s or (slope == s and at < p):
                            chosen = q
                            s = slope
                            p = at
                if chosen >= 0 or next_event == n_events:
                    break
                run = ev_slope[next_event]
                while next_event < n_events and ev_slope[next_event] == run:
                    pending[n_pending] = next_event
                    n_pending += 1
                    next_event += 1
            if chosen >= 0:
                n_pending -= 1
                pending[chosen] = pending[n_pending]
        else:
            p = hpos[0]
            s = hkey[0]
        if s_last == -np.inf or s > s_last + SLOPE_TOL * (1.0 + abs(s_last)):
            # a new critical slope: the order now is that of the open interval
            # (s_last, s); score the cuts the previous slope's swaps changed (all of
            # them on entering the slopes allowed; none outside them)
            lo_i = max(s_last, slope_lo)
            hi_i = min(s, slope_hi)
            allowed = not restricted or lo_i < hi_i
            if allowed and not entered:
                entered = True
                n_dirty = _mark_every_cut(dirty, changed, dirty_list, n_dirty)
            for q in range(n_dirty):
                c0 = dirty_list[q]
                dirty[c0] = False
                if not changed[c0]:
                    continue
                changed[c0] = False
                if not allowed:
                    continue
                for c in range(d):
                    left[c] = prefix[c0, c]
                    right[c] = total[c] - left[c]
                if has_held:
                    for c in range(d):
                        held_left[c] = left[c] + held[c]
                        held_right[c] = right[c] + held[c]
                    val = min(_evaluate(objective, held_left, right, params),
                              _evaluate(objective, left, held_right, params))
                else:
                    val = _evaluate(objective, left, right, params)
                if val < best:
                    best = val
                    best_cut = c0
                    best_lo = lo_i
                    best_hi = hi_i
            n_dirty = 0
            if s == np.inf or (restricted and s >= slope_hi):
                break
            s_last = s
            if n_swaps >= next_check:
                next_check = n_swaps + _STOP_CHECK_EVERY
                if load_flag(stop) != 0:
                    complete = False
                    break
        a = perm[p]
        b = perm[p + 1]
        perm[p] = b
        perm[p + 1] = a
        pos[a] = p + 1
        pos[b] = p
        for c in range(d):
            if ms[b, c] != ms[a, c]:
                changed[p] = True
                for c2 in range(d):
                    prefix[p, c2] += ms[b, c2] - ms[a, c2]
                break
        if not dirty[p]:
            dirty[p] = True
            dirty_list[n_dirty] = p
            n_dirty += 1
        n_swaps += 1
        if not by_slope:
            _set_key(hkey, hpos, where, p, np.inf, n_cuts)
            if p > 0:
                _set_key(hkey, hpos, where, p - 1, _swap_slope(mu, mv, perm[p - 1], b),
                         n_cuts)
            if p + 1 < n_cuts:
                _set_key(hkey, hpos, where, p + 1, _swap_slope(mu, mv, a, perm[p + 2]),
                         n_cuts)

    if best_cut < 0:
        return np.inf, 1.0, 0.0, 0.0, np.inf, n_swaps, complete
    if best_cut == n_cuts:
        # every point against the held rows: both coordinates weighed, as for any cut
        # (with a slope the range allows)
        return best, 1.0, 1.0 if slope_hi > 0.0 else -1.0, np.inf, best, n_swaps, complete
    if has_held:
        wu, wv = _held_direction(best_lo, best_hi)
    else:
        wu, wv = _interval_direction(best_lo, best_hi)
    proj = np.empty(m)
    for i in range(m):
        proj[i] = wu * mu[i] + wv * mv[i]
    order = np.argsort(proj)
    threshold = midpoint_threshold(proj[order[best_cut]], proj[order[best_cut + 1]])
    # the objective of what the rule actually does with these doubles
    left = np.zeros(d)
    for i in range(m):
        if proj[i] <= threshold:
            for c in range(d):
                left[c] += ms[i, c]
    for c in range(d):
        right[c] = total[c] - left[c]
    if has_held:
        for c in range(d):
            held_left[c] = left[c] + held[c]
            held_right[c] = right[c] + held[c]
        value = min(_evaluate(objective, held_left, right, params),
                    _evaluate(objective, left, held_right, params))
    else:
        value = _evaluate(objective, left, right, params)
    return best, wu, wv, threshold, value, n_swaps, complete


@njit(**NUMBA_OPTS)
def sweep_pair(u, v, stats, objective, params, stop):
    """Best split of the points ``(u_i, v_i)`` by a line, for ``objective``.

    Parameters
    ----------
    u, v : float64 (n,)
        Coordinates.
    stats : float64 (n, d)
        Additive statistics of each point.
    objective : int or numba function
        Code of a built-in objective (:func:`builtin_objective`), or a function
        ``(left, right, params) -> float`` of the summed statistics of each
        side; lower is better, ``inf`` for a forbidden partition.
    params : float64 array
        Passed through to ``objective``.
    stop : int64 (1,)
        The sweep gives up (``complete = False``) once ``stop[0]`` is non-zero.

    Returns
    -------
    optimum : float
        Best objective over all cuts seen (``inf`` if none was finite).
    wu, wv : float
        Direction of the best cut: ``left iff wu * u + wv * v <= threshold``.
    threshold : float
    value : float
        Objective of the partition the returned rule makes (``optimum`` up to
        rounding of the projections).
    n_swaps : int
        Number of swaps (critical events) processed.
    complete : bool
    """
    return sweep_points(u, v, stats, np.zeros(stats.shape[1]), False, objective, params, stop)


@njit(**NUMBA_OPTS)
def complete_points(u, v, stats):
    """The points with both coordinates known, and the summed statistics of the others.

    Returns ``(u, v, stats, held, n_held)``: the rows of the inputs where
    neither ``u`` nor ``v`` is NaN, then the statistics summed over the rows
    where one is (``n_held`` of them).
    """
    n = u.shape[0]
    d = stats.shape[1]
    keep = np.empty(n, dtype=np.int64)
    held = np.zeros(d)
    m = 0
    for p in range(n):
        if math.isnan(u[p]) or math.isnan(v[p]):
            for c in range(d):
                held[c] += stats[p, c]
        else:
            keep[m] = p
            m += 1
    keep = keep[:m]
    return u[keep], v[keep], stats[keep], held, n - m


@njit(**NUMBA_OPTS)
def sweep_pair_missing(u, v, stats, objective, params, stop, slope_lo=-np.inf,
                       slope_hi=np.inf):
    """:func:`sweep_pair` for points that may miss a coordinate (NaN, a missing value).

    The points missing ``u`` or ``v`` are held aside and go, together, to the
    left or to the right of every line, both scored: the search is exact over
    every partition of the complete points by a line times the side of the
    others. Without NaN it is :func:`sweep_pair` itself. The returned
    ``threshold`` and ``value`` are those of the complete points' partition,
    ``threshold`` being ``inf`` when every complete point goes left.
    ``slope_lo``, ``slope_hi``: the slopes swept (:func:`sweep_points`).
    """
    n_missing = 0
    for p in range(u.shape[0]):
        if math.isnan(u[p]) or math.isnan(v[p]):
            n_missing += 1
    if n_missing == 0:
        return sweep_points(u, v, stats, np.zeros(stats.shape[1]), False, objective, params,
                            stop, SORTED_EVENTS_MAX_POINTS, slope_lo, slope_hi)
    cu, cv, cs, held, _ = complete_points(u, v, stats)
    return sweep_points(cu, cv, cs, held, True, objective, params, stop,
                        SORTED_EVENTS_MAX_POINTS, slope_lo, slope_hi)


@njit(**NUMBA_OPTS)
def sweep_constrained(u, v, c_u, c_v, stats, objective, params, lower, upper, stop):
    """:func:`sweep_pair_missing` over the partitions admissible under monotonic constraints.

    ``c_u``, ``c_v`` are the constraints of the two coordinates (``0``: free),
    ``lower`` and ``upper`` the node's bounds, ``params`` the built-in
    objective's ``[min_samples_leaf, min_weight_leaf]``. The swept rule ``wu u +
    wv v`` always weighs its first coordinate positively, so a constrained
    coordinate is swept first and fixes the order of every cut; two
    constrained coordinates also need ``wv`` of the sign ``c_u c_v``, the slopes
    of one sign. Returns :func:`sweep_pair_missing`'s values, the direction in
    ``(u, v)`` coordinates; without constraints it is that function itself.
    """
    if c_u == 0 and c_v == 0:
        return sweep_pair_missing(u, v, stats, objective, params, stop)
    ordered = np.empty(5)
    ordered[0] = params[0]
    ordered[1] = params[1]
    ordered[3] = lower
    ordered[4] = upper
    if c_u == 0:
        ordered[2] = c_v
        opt, wv, wu, threshold, value, n_swaps, done = sweep_pair_missing(
            v, u, stats, objective, ordered, stop)
        return opt, wu, wv, threshold, value, n_swaps, done
    ordered[2] = c_u
    if c_v == 0:
        return sweep_pair_missing(u, v, stats, objective, ordered, stop)
    if c_u * c_v > 0:
        return sweep_pair_missing(u, v, stats, objective, ordered, stop, 0.0, np.inf)
    return sweep_pair_missing(u, v, stats, objective, ordered, stop, -np.inf, 0.0)


Split2D = namedtuple("Split2D", ["value", "weights", "threshold", "left", "optimum",
                                 "n_swaps"])
Split2D.__doc__ = """Result of :func:`best_split_2d`.

Attributes
----------
value : float
    Objective of the returned rule's partition.
weights : ndarray (2,)
    ``left iff weights[0] * u + weights[1] * v <= threshold``.
threshold : float
left : ndarray of bool (n,)
    The partition the rule makes of the input points.
optimum : float
    Exact optimum over all line partitions (``value`` equals it unless the
    projections on the returned direction round two points into the wrong order).
n_swaps : int
    Critical events the sweep processed.
"""


def best_split_2d(points, stats, objective, params=None):
    """Exact best split of 2-D points by a line, for an objective of additive statistics.

    Parameters
    ----------
    points : array-like of shape (n, 2)
        Finite coordinates.
    stats : array-like of shape (n, d)
        Additive statistics of each point (e.g. one-hot class weights); the
        objective sees their sums over each side.
    objective : str, int or numba ``@njit`` function
        A built-in objective by name (``"gini"``, ``"entropy"``,
        ``"misclassification"``, ``"squared_error"``, ``"zero_one"``; layouts
        of ``stats`` in :func:`builtin_objective`, which reads ``params =
        [min_samples_leaf, min_weight_leaf]``), or any numba function
        ``f(left, right, params) -> float`` of the summed statistics of the two
        sides: lower is better, ``inf`` forbids a partition. A function is
        compiled on first use in each process (the built-ins are cached).
    params : array-like of float, default=None
        Passed to the objective (``[1, 0]`` when None).

    Returns
    -------
    Split2D
    """
    points = np.asarray(points, dtype=np.float64)
    if points.ndim != 2 or points.shape[1] != 2:
        raise ValueError(f"points must have shape (n, 2), got {points.shape}")
    if points.shape[0] < 2:
        raise ValueError("points must hold at least two points")
    if not np.all(np.isfinite(points)):
        raise ValueError("points contain NaN or infinity")
    stats = np.asarray(stats, dtype=np.float64)
    if stats.ndim != 2 or stats.shape[0] != points.shape[0] or stats.shape[1] < 1:
        raise ValueError(f"stats must have shape (n, d) with n = {points.shape[0]}, got "
                         f"{stats.shape}")
    if not np.all(np.isfinite(stats)):
        raise ValueError("stats contain NaN or infinity")
    if isinstance(objective, str):
        if objective not in OBJECTIVE_CODES:
            raise ValueError(f"unknown objective {objective!r}; choose one of "
                             f"{sorted(OBJECTIVE_CODES)} or pass a numba function")
        objective = OBJECTIVE_CODES[objective]
    if isinstance(objective, (int, np.integer)) and not isinstance(objective, bool):
        if int(objective) not in OBJECTIVE_CODES.values():
            raise ValueError(f"unknown objective code {objective!r}")
        minimum = {ZERO_ONE: 3, SQUARED_ERROR: 4}.get(int(objective), 2)
        if stats.shape[1] < minimum:
            raise ValueError(f"objective {objective!r} needs at least {minimum} statistics "
                             f"columns, got {stats.shape[1]}")
        kernel = sweep_points
        objective = np.int64(objective)
    elif hasattr(objective, "py_func"):
        kernel = _custom_sweep_pair()
    else:
        raise ValueError("objective must be a built-in name or a numba @njit function "
                         "(left, right, params) -> float")
    params = np.array([1.0, 0.0]) if params is None else np.asarray(params, dtype=np.float64)
    u = np.ascontiguousarray(points[:, 0])
    v = np.ascontiguousarray(points[:, 1])
    stop = np.zeros(1, dtype=np.int64)
    stats = np.ascontiguousarray(stats)
    optimum, wu, wv, threshold, value, n_swaps, _ = kernel(
        u, v, stats, np.zeros(stats.shape[1]), False, objective, np.atleast_1d(params), stop)
    weights = np.array([wu, wv])
    left = (wu * u + wv * v) <= threshold
    return Split2D(float(value), weights, float(threshold), left, float(optimum), int(n_swaps))


_CUSTOM = []


def _custom_sweep_pair():
    """The sweep (:func:`sweep_pair`'s core) compiled without the disk cache, for user
    objectives.

    A numba function passed as an argument is part of the compiled signature,
    and its type differs in every process, so caching it would only add a new
    file to the cache at every run.
    """
    if not _CUSTOM:
        _CUSTOM.append(njit(nogil=True)(sweep_points.py_func))
    return _CUSTOM[0]


# ------------------------------------------------------- all pairs of a node
@njit(parallel=True, **NUMBA_OPTS)
def sweep_search(Z, pair_j, pair_k, stats, objective, params, stop, cst, lower, upper):
    """:func:`sweep_pair` on every pair ``(Z[:, pair_j[q]], Z[:, pair_k[q]])``, in parallel.

    ``objective`` is a built-in code (:func:`builtin_objective`). NaN in ``Z``
    are missing values, held aside per pair (:func:`sweep_pair_missing`).
    ``cst`` is the monotonic constraint of every column of ``Z`` (empty: none)
    and ``lower``, ``upper`` the node's bounds: a pair with a constrained
    column is swept over its admissible partitions (:func:`sweep_constrained`).

    Each pair writes only its own slots, so the results do not depend on the
    number of threads.

    Returns
    -------
    optimum, wu, wv : float64 (n_pairs,)
    n_swaps : int64 (n_pairs,)
    complete : bool (n_pairs,)
    """
    n_pairs = pair_j.shape[0]
    optimum = np.full(n_pairs, np.inf)
    wu = np.zeros(n_pairs)
    wv = np.zeros(n_pairs)
    n_swaps = np.zeros(n_pairs, dtype=np.int64)
    complete = np.zeros(n_pairs, dtype=np.bool_)
    for q in prange(n_pairs):
        if load_flag(stop) != 0:
            continue
        u = np.ascontiguousarray(Z[:, pair_j[q]])
        v = np.ascontiguousarray(Z[:, pair_k[q]])
        c_u = cst[pair_j[q]] if cst.shape[0] > 0 else 0
        c_v = cst[pair_k[q]] if cst.shape[0] > 0 else 0
        opt, a, b, _, _, sw, done = sweep_constrained(u, v, c_u, c_v, stats, objective, params,
                                                      lower, upper, stop)
        optimum[q] = opt
        wu[q] = a
        wv[q] = b
        n_swaps[q] = sw
        complete[q] = done
    return optimum, wu, wv, n_swaps, complete
