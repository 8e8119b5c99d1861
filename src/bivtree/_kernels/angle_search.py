"""Coarse-to-fine direction search over a few feature pairs (the ``"auto"`` splitter).

A direction of pair ``(j, k)`` is an angle ``theta`` in (0, pi) in the pair's
*decorrelated frame* on the scanned rows (:func:`decorrelated_frame`: the
min-max scaled columns standardized and whitened), mapped back to a
direction ``(a, b)`` of the min-max scaled features (:func:`frame_direction`),
stored as the rule ``x_j + w x_k`` with ``w`` from
:func:`~bivtree._kernels.pair_scaling.pair_rule_weight` and scanned on that
rule's own projection (:func:`~bivtree._kernels.scan.scan_projection`), as in
:mod:`bivtree._kernels.directions`. Evenly spaced angles of that frame reach
the narrow sector of useful directions between two strongly correlated
features (along their difference), which evenly spaced angles of the scaled
plane skip. On vehicle and segment (5-fold CV, three shuffles) the frame
raised the test accuracy of the pruned subtrees of at most 8, 16, 32 and 64
leaves by 0.4 to 1.2 points, for about 2 % more CPU time.

:func:`coarse_to_fine_search` runs two phases in one compiled call:

1. *coarse*: every pair is scanned at ``n_coarse`` angles
   ``pi (h + 1/2) / n_coarse`` (none axis-aligned: the univariate search covers
   those) and keeps its best; on many rows the angles are ranked by a
   histogram scan (:func:`binned_cut`) rather than a sort;
2. *refine*: the ``n_refine`` best pairs climb from their best coarse angle by
   step halving, every scan exact: from the coarse angle's exact cut, with step
   ``s = pi / (2 n_coarse)``, the angles ``theta +- s`` are scanned, the better
   one is taken if it beats ``theta``, and ``s`` halves, ``n_rounds`` times.
   The final resolution is ``pi / (n_coarse 2^(n_rounds+1))`` in the frame's
   angles. The refined candidates report their angle in the min-max scaled
   plane (``RefinedPairs.angles``).

**Monotonic constraints.** A pair of two constrained features admits only the
directions whose stored weight ``w`` has the sign ``c_j c_k`` (``x_j + w x_k``:
growing either feature moves samples the same way): an arc of the frame's
angles, :func:`admissible_arc`, over which the coarse angles of such a pair
are spread instead of the whole half-turn. Every scan, and the climb's steps,
go through :func:`~bivtree._kernels.scan.scan_projection`, which skips a
direction outside it and keeps only the cuts its rule's order admits (a pair
with one constrained feature keeps every direction).

Each pair (phase 1) and each refined pair (phase 2) writes only its own slot
and the selections between phases are serial and ordered (ties to the lower
pair index, then to the lower angle), so the result is the same for any
number of threads.
"""

import math
from typing import NamedTuple

import numpy as np
from numba import njit, prange

from .._config import NUMBA_OPTS
from .directions import gather_pair, pair_constraints
from .pair_scaling import pair_rule_weight
from .scan import (
    CriterionCuts,
    Cut,
    best_cut,
    count_missing,
    criterion_cuts,
    cut_proxy_bound,
    gather_node,
    oriented_cuts,
    scan_projection,
    scan_sorted,
)
from .traversal import project_row


class RefinedPairs(NamedTuple):
    """The refined candidates, best first.

    Attributes
    ----------
    pairs : int64 (n_candidates,)
        Index into the searched pair arrays.
    angles : float64 (n_candidates,)
        Best angle found for each, in [0, pi), of the min-max scaled plane.
    proxies, thresholds : float64 (n_candidates,)
        The exact best cut of that angle's rule on the scanned rows (proxy
        ``-inf``: no valid cut).
    weights : float64 (n_candidates,)
        The stored rule ``x_j + w x_k`` of that angle: ``w``.
    missing_left : bool (n_candidates,)
        Its side for the rows missing a feature of the pair.
    base : float
        The node constant on the scanned rows (``G = base - proxy``).
    w_node : float
        The scanned rows' total weight.
    """

    pairs: np.ndarray
    angles: np.ndarray
    proxies: np.ndarray
    weights: np.ndarray
    thresholds: np.ndarray
    missing_left: np.ndarray
    base: float
    w_node: float


@njit(**NUMBA_OPTS)
def ranked_features(features, proxies, inv_scale):
    """The varying ``features`` (``inv_scale > 0``), best univariate ``proxies`` first.

    Ties go to the lower feature index; features without a valid cut (proxy
    not finite) come last.
    """
    keys = np.empty(features.shape[0])
    for c in range(features.shape[0]):
        keys[c] = -proxies[c] if math.isfinite(proxies[c]) else np.inf
    by_index = np.argsort(features, kind="mergesort")
    order = by_index[np.argsort(keys[by_index], kind="mergesort")]
    ranked = np.empty(features.shape[0], dtype=np.int64)
    m = 0
    for c in order:
        if inv_scale[features[c]] > 0:
            ranked[m] = features[c]
            m += 1
    return ranked[:m]


@njit(**NUMBA_OPTS)
def screened_pairs(features, proxies, inv_scale, size, n_anchors):
    """The pairs the focused search scans, as ``(pair_j, pair_k)`` in lexicographic order.

    Every pair among the ``size`` best varying features (:func:`ranked_features`),
    and every pair of one of the ``n_anchors`` best with any other varying feature.
    """
    ranked = ranked_features(features, proxies, inv_scale)
    top = np.sort(ranked[:size])
    m = top.shape[0]
    n_anchor = min(n_anchors, m)
    n_others = ranked.shape[0] - m
    n_pairs = m * (m - 1) // 2 + n_anchor * n_others
    pair_j = np.empty(n_pairs, dtype=np.int64)
    pair_k = np.empty(n_pairs, dtype=np.int64)
    q = 0
    for a in range(m):
        for b in range(a + 1, m):
            pair_j[q] = top[a]
            pair_k[q] = top[b]
            q += 1
    if q == n_pairs:
        return pair_j, pair_k
    for a in range(n_anchor):
        for o in range(m, ranked.shape[0]):
            pair_j[q] = min(ranked[a], ranked[o])
            pair_k[q] = max(ranked[a], ranked[o])
            q += 1
    span = np.int64(max(pair_k.max(), 0) + 1)
    order = np.argsort(pair_j * span + pair_k, kind="mergesort")
    return pair_j[order], pair_k[order]


#: the decorrelated frame treats two features as at most this correlated (a pair whose
#: difference is constant on the node would otherwise get every angle)
MAX_CORRELATION = 0.99

#: the decorrelated frame's moments are taken on fewer than twice this many rows
FRAME_ROWS = 1024

#: the frame of a pair without one: angles in the min-max scaled plane itself
IDENTITY_FRAME = (1.0, 0.0, 1.0, 1.0)


@njit(**NUMBA_OPTS)
def decorrelated_frame(pair_x, inv_scale_j, inv_scale_k):
    """The pair's angle frame on ``pair_x``: ``(c_same, c_cross, s_j, s_k)``.

    Angle ``theta`` stands for the direction :func:`frame_direction` gives:
    the direction at angle ``theta`` in coordinates where the pair's two
    (min-max scaled) columns are standardized and uncorrelated over the rows
    (the symmetric whitening of their correlation ``r``, clipped to
    ``+-MAX_CORRELATION``). Equal angle steps then cover the directions
    evenly by how they spread the rows: across two strongly correlated
    features the useful directions (along their difference) lie in a narrow
    sector of the scaled plane, which evenly spaced scaled angles would
    sample only once or not at all. The moments are taken on every
    ``len(pair_x) // FRAME_ROWS``-th row (fewer than ``2 * FRAME_ROWS`` rows,
    all of them up to that: enough for a sampling frame, and a small cost
    next to the scans of large nodes). Rows
    missing a value are left out; a pair with fewer than two complete rows or
    a constant column gets :data:`IDENTITY_FRAME`.
    """
    stride = max(1, pair_x.shape[0] // FRAME_ROWS)
    n = 0
    mean_j = 0.0
    mean_k = 0.0
    for p in range(0, pair_x.shape[0], stride):
        zj = pair_x[p, 0] * inv_scale_j
        zk = pair_x[p, 1] * inv_scale_k
        if not (math.isnan(zj) or math.isnan(zk)):
            n += 1
            mean_j += zj
            mean_k += zk
    if n < 2:
        return IDENTITY_FRAME
    mean_j /= n
    mean_k /= n
    var_j = 0.0
    var_k = 0.0
    cov = 0.0
    for p in range(0, pair_x.shape[0], stride):
        zj = pair_x[p, 0] * inv_scale_j - mean_j
        zk = pair_x[p, 1] * inv_scale_k - mean_k
        if not (math.isnan(zj) or math.isnan(zk)):
            var_j += zj * zj
            var_k += zk * zk
            cov += zj * zk
    if not (var_j > 0.0 and var_k > 0.0):
        return IDENTITY_FRAME
    r = min(MAX_CORRELATION, max(-MAX_CORRELATION, cov / math.sqrt(var_j * var_k)))
    # the inverse square root of [[1, r], [r, 1]]: eigenvalues 1 +- r on (1, +-1)
    along = 1.0 / math.sqrt(1.0 + r)
    across = 1.0 / math.sqrt(1.0 - r)
    return (0.5 * (along + across), 0.5 * (along - across), math.sqrt(n / var_j),
            math.sqrt(n / var_k))


@njit(inline="always", **NUMBA_OPTS)
def frame_direction(theta, frame):
    """The min-max scaled direction ``(a, b)`` of angle ``theta`` in ``frame``."""
    c_same, c_cross, s_j, s_k = frame
    cos_t = math.cos(theta)
    sin_t = math.sin(theta)
    return s_j * (c_same * cos_t + c_cross * sin_t), s_k * (c_cross * cos_t + c_same * sin_t)


# inlined like every level of a scan: a called level costs reference counting of its
# arrays (bivtree._kernels.scan, module docstring)
@njit(inline="always", **NUMBA_OPTS)
def scan_angle(pair_x, theta, inv_scale_j, inv_scale_k, rule_features, rule_weights, rows,
               values, cuts, frame):
    """Best :class:`~bivtree._kernels.scan.Cut` of the pair's direction at angle ``theta``.

    No valid cut (proxy ``-inf``) where the stored weight is zero or not finite.
    """
    a, b = frame_direction(theta, frame)
    w = pair_rule_weight(a, b, inv_scale_j, inv_scale_k)
    if not math.isfinite(w) or w == 0.0:
        return Cut(-np.inf, 0.0, False)
    rule_weights[1] = w
    return scan_projection(pair_x, rows, rule_features, rule_weights, values, cuts)


@njit(inline="always", **NUMBA_OPTS)
def angle_proxy_bound(pair_x, theta, inv_scale_j, inv_scale_k, rule_features, rule_weights,
                      rows, values, cuts, frame, bins):
    """An upper bound of :func:`scan_angle`'s proxy at ``theta``, without a sort: the rule's
    projection bounded by :func:`~bivtree._kernels.scan.cut_proxy_bound` (``bins``: its
    histogram scratch; ``inf`` for a cut objective without a bound, ``-inf`` where the
    stored weight is zero or not finite, as the scan finds no cut there)."""
    a, b = frame_direction(theta, frame)
    w = pair_rule_weight(a, b, inv_scale_j, inv_scale_k)
    if not math.isfinite(w) or w == 0.0:
        return -np.inf
    rule_weights[1] = w
    for p in range(rows.shape[0]):
        values[p] = project_row(pair_x, rows[p], rule_features, rule_weights)
    return cut_proxy_bound(values, cuts, bins)


@njit(**NUMBA_OPTS)
def climb_angle(pair_x, theta, best_cut, n_coarse, n_rounds, inv_scale_j, inv_scale_k,
                rule_features, rule_weights, rows, values, cuts, frame, bins=None):
    """Step-halving climb from angle ``theta`` (its exact cut ``best_cut``): ``(theta, cut)``.

    With step ``s = pi / (2 n_coarse)``, half the coarse angles' spacing, the
    angles ``theta +- s`` inside (0, pi) are scanned, lower first, the better
    one is taken if it beats ``theta`` strictly, and ``s`` halves, ``n_rounds``
    times. Every scan is exact (:func:`scan_angle`), for any cut objective.
    Given ``bins`` with rows (the bound's histogram scratch), an angle of the
    first round whose :func:`angle_proxy_bound` does not exceed the best proxy so far is not
    scanned: it cannot beat it strictly, so the climb is the same. (The later
    rounds' angles are too close to the best one for a bound to tell them
    apart: bounding them cost more than it saved.)
    """
    step = math.pi / (2.0 * n_coarse)
    for round_ in range(n_rounds):
        centre = theta
        # lower angle first, so a tie between the two goes to it
        for trial in (centre - step, centre + step):
            if 0.0 < trial < math.pi:
                # (the bound is compiled away where no scratch is given)
                if bins is not None and round_ == 0 and bins.shape[0] > 0 and angle_proxy_bound(
                        pair_x, trial, inv_scale_j, inv_scale_k, rule_features, rule_weights,
                        rows, values, cuts, frame, bins) <= best_cut.proxy:
                    continue
                cut = scan_angle(pair_x, trial, inv_scale_j, inv_scale_k, rule_features,
                                 rule_weights, rows, values, cuts, frame)
                if cut.proxy > best_cut.proxy:
                    best_cut = cut
                    theta = trial
        step *= 0.5
    return theta, best_cut


@njit(**NUMBA_OPTS)
def binned_cut(values, n_bins, cuts, bins):
    """Approximate best proxy of ``values``: cuts only between ``n_bins`` equal-width bins.

    A histogram scan (as LightGBM's) instead of a sort, for ranking directions
    cheaply: the samples of each bin (and class) are pooled into one weighted
    pseudo-sample, whose cuts the criterion's exact scan
    (:func:`~bivtree._kernels.scan.best_cut`) then scores. ``bins`` holds the
    scratch pseudo-samples (:func:`_bin_buffers`). Leaf-size limits count
    pseudo-samples, so they are only approximated; the stored split's threshold
    is always re-scanned exactly. Values with NaN (rows missing a feature of
    the pair) are ranked by the exact scan instead, which sends the missing
    rows to their better side (:func:`~bivtree._kernels.scan.scan_sorted`).
    The coarse phase does the same in fewer passes (:func:`coarse_proxy_at`,
    held equal to this by the tests); this is the histogram scan of a given
    array of values.
    """
    if count_missing(values) > 0:
        return scan_sorted(values, cuts).proxy
    lo = values[0]
    hi = values[0]
    for p in range(values.shape[0]):
        lo = min(lo, values[p])
        hi = max(hi, values[p])
    return binned_proxy(values, lo, hi, n_bins, cuts, bins)


@njit(**NUMBA_OPTS)
def binned_proxy(values, lo, hi, n_bins, cuts, bins):
    """:func:`binned_cut` of NaN-free ``values`` whose range ``[lo, hi]`` is known."""
    if not hi > lo:
        return -np.inf
    bin_values, bin_labels, bin_targets, bin_weights, order = bins
    n_classes = cuts.counts.shape[0]
    bin_weights[:] = 0.0
    bin_targets[:] = 0.0
    scale = n_bins / (hi - lo)
    for p in range(values.shape[0]):
        b = min(n_bins - 1, int((values[p] - lo) * scale))
        slot = b * n_classes + cuts.labels[p]
        bin_weights[slot] += cuts.weights[p]
        bin_targets[slot] += cuts.weights[p] * cuts.targets[p]
    m = 0
    for slot in range(n_bins * n_classes):
        if bin_weights[slot] > 0.0:
            bin_values[m] = slot // n_classes
            bin_labels[m] = slot % n_classes
            bin_targets[m] = bin_targets[slot] / bin_weights[slot]
            bin_weights[m] = bin_weights[slot]
            order[m] = m
            m += 1
    # (a bin's pseudo-sample sums its rows, so the values an ordered cut is checked on
    # are the rows' own)
    pooled = criterion_cuts(bin_labels[:m], bin_targets[:m], bin_weights[:m], cuts.criterion,
                            cuts.counts, cuts.w_total, cuts.t_sum, cuts.min_samples_leaf,
                            cuts.min_weight_leaf, cuts.left_counts, cuts.right_counts,
                            cuts.cst, cuts.order, cuts.lower, cuts.upper)
    proxy, _ = best_cut(bin_values[:m], order[:m], pooled)
    return proxy


@njit(**NUMBA_OPTS)
def coarse_proxy_at(pair_x, theta, inv_scale_j, inv_scale_k, rule_features, rule_weights, rows,
                    values, cuts, n_bins, bins, frame):
    """Proxy of the pair's direction at ``theta``: binned (``n_bins > 0``) or exact.

    The binned path projects the rows and takes their range in one pass
    (then bins them in a second), the same values :func:`binned_cut` would
    rank.
    """
    if n_bins == 0:
        return scan_angle(pair_x, theta, inv_scale_j, inv_scale_k, rule_features,
                          rule_weights, rows, values, cuts, frame).proxy
    a, b = frame_direction(theta, frame)
    w = pair_rule_weight(a, b, inv_scale_j, inv_scale_k)
    if not math.isfinite(w) or w == 0.0:
        return -np.inf
    rule_weights[1] = w
    # the rule's order under monotonic constraints (this scan projects the rows itself)
    admissible, cuts = oriented_cuts(cuts, rule_features, rule_weights)
    if not admissible:
        return -np.inf
    lo = np.inf
    hi = -np.inf
    any_missing = False
    for p in range(rows.shape[0]):
        v = project_row(pair_x, rows[p], rule_features, rule_weights)
        values[p] = v
        any_missing |= math.isnan(v)
        lo = min(lo, v)
        hi = max(hi, v)
    if any_missing:
        return scan_sorted(values, cuts).proxy
    return binned_proxy(values, lo, hi, n_bins, cuts, bins)


@njit(**NUMBA_OPTS)
def _bin_buffers(n_bins, n_classes):
    size = n_bins * n_classes
    return (np.empty(size), np.empty(size, dtype=np.int64), np.empty(size), np.empty(size),
            np.empty(size, dtype=np.int64))


class PairWorkspace(NamedTuple):
    """One pair's columns over the scanned rows and the scratch its scans share."""

    pair_x: np.ndarray
    rule_features: np.ndarray
    rule_weights: np.ndarray
    rows: np.ndarray
    values: np.ndarray
    cuts: CriterionCuts


@njit(**NUMBA_OPTS)
def _pair_workspace(X, rows, j, k, node_labels, node_targets, node_weight, criterion, counts,
                    w_total, t_sum, min_samples_leaf, min_weight_leaf, cst, lower, upper):
    """:class:`PairWorkspace` of pair ``(j, k)``: its rule is ``x_j + w x_k`` on local rows
    (``cst``, ``lower``, ``upper``: the monotonic constraints, see the module)."""
    n = rows.shape[0]
    n_classes = counts.shape[0]
    rule_features = np.empty(2, dtype=np.int64)
    rule_features[0] = 0
    rule_features[1] = 1
    rule_weights = np.empty(2, dtype=np.float64)
    rule_weights[0] = 1.0
    cuts = criterion_cuts(node_labels, node_targets, node_weight, criterion, counts, w_total,
                          t_sum, min_samples_leaf, min_weight_leaf, np.empty(n_classes),
                          np.empty(n_classes), pair_constraints(cst, j, k), 0, lower, upper)
    return PairWorkspace(gather_pair(X, rows, j, k), rule_features, rule_weights, np.arange(n),
                         np.empty(n, dtype=np.float64), cuts)


@njit(**NUMBA_OPTS)
def admissible_arc(frame, sign):
    """``(start, span)`` of the frame's angles whose direction ``(a, b)`` has ``sign(a b) ==
    sign``: the directions of a pair of two constrained features its rules may take.

    ``a`` and ``b`` (:func:`frame_direction`) vanish once each per half-turn; the
    two zeros cut it into an arc where ``a b > 0`` and one where ``a b < 0``
    (the latter may wrap past ``pi``; angles are read modulo ``pi``, which
    leaves a rule ``x_j + w x_k`` unchanged).
    """
    c_same, c_cross, _, _ = frame
    zero_a = math.atan2(c_same, -c_cross) % math.pi
    zero_b = math.atan2(c_cross, -c_same) % math.pi
    lo = min(zero_a, zero_b)
    hi = max(zero_a, zero_b)
    a, b = frame_direction(0.5 * (lo + hi), frame)
    if (a * b > 0.0) == (sign > 0):
        return lo, hi - lo
    return hi, math.pi - (hi - lo)


@njit(inline="always", **NUMBA_OPTS)
def arc_angle(h, n_coarse, arc_start, arc_span):
    """Coarse angle ``h`` of ``n_coarse`` spread over an arc (``arc_span == pi``: the
    half-turn, ``pi (h + 1/2) / n_coarse`` exactly as without constraints)."""
    if arc_span == math.pi and arc_start == 0.0:
        return math.pi * (h + 0.5) / n_coarse
    return (arc_start + arc_span * (h + 0.5) / n_coarse) % math.pi


@njit(**NUMBA_OPTS)
def pair_arc(cst, j, k, frame):
    """The arc of the coarse angles of pair ``(j, k)``: the half-turn, or for two
    constrained features the :func:`admissible_arc` of their signs (``cst``: the
    constraint of every column, empty: none; also TAO's pair search)."""
    if cst.shape[0] > 0 and cst[j] != 0 and cst[k] != 0:
        return admissible_arc(frame, cst[j] * cst[k])
    return 0.0, math.pi


@njit(**NUMBA_OPTS)
def _order_best_first(proxies, n_best):
    """Indices of the ``n_best`` largest finite ``proxies``, best first; ties to lower index."""
    order = np.argsort(-proxies, kind="mergesort")  # stable: equal proxies keep pair order
    count = 0
    for i in range(order.shape[0]):
        if count < n_best and math.isfinite(proxies[order[i]]):
            count += 1
    return order[:count]


@njit(parallel=True, **NUMBA_OPTS)
def coarse_to_fine_search(X, rows, pair_j, pair_k, inv_scale, n_coarse, n_bins, n_rounds,
                          n_refine, labels, targets, sample_weight, n_classes, criterion,
                          min_samples_leaf, min_weight_leaf, cst, lower, upper):
    """Coarse angles on every pair, then step-halving refinement of the best pairs.

    Parameters
    ----------
    X : float64 (n_samples, n_features)
    rows : int64 (n,)
        The samples scanned (a node's samples, or an evenly spread part of them).
    pair_j, pair_k : int64 (n_pairs,)
    inv_scale : float64 (n_features,)
        Min-max scaling of the features (:func:`~bivtree._kernels.pair_scaling.node_min_max_scaling`).
    n_coarse : int
        Coarse angles per pair.
    n_bins : int
        Coarse angles are ranked by :func:`binned_cut` over this many bins; 0:
        by the exact scan.
    n_rounds, n_refine : int
        Halving rounds, pairs refined (always with exact scans).
    labels, targets, sample_weight, n_classes, criterion, min_samples_leaf, min_weight_leaf
        The split criterion, as in :func:`~bivtree._kernels.directions.pair_direction_search`.
    cst : int64 (n_features,)
        Monotonic constraint of every feature (empty: none).
    lower, upper : float
        The node's bounds.

    Returns
    -------
    RefinedPairs
    """
    node_labels, node_targets, node_weight, counts, w_total, t_sum, base = gather_node(
        rows, labels, targets, sample_weight, n_classes, criterion)
    n_pairs = pair_j.shape[0]
    coarse_proxy = np.full(n_pairs, -np.inf)
    coarse_angle = np.zeros(n_pairs)
    # each pair's frame, taken once: the refinement climbs in the same one
    frames = np.empty((n_pairs, 4))
    for q in prange(n_pairs):
        j = pair_j[q]
        k = pair_k[q]
        ws = _pair_workspace(X, rows, j, k, node_labels, node_targets, node_weight, criterion,
                             counts, w_total, t_sum, min_samples_leaf, min_weight_leaf, cst,
                             lower, upper)
        bins = _bin_buffers(max(1, n_bins), n_classes)
        frame = decorrelated_frame(ws.pair_x, inv_scale[j], inv_scale[k])
        for f in range(4):
            frames[q, f] = frame[f]
        arc_start, arc_span = pair_arc(cst, j, k, frame)
        for h in range(n_coarse):
            theta = arc_angle(h, n_coarse, arc_start, arc_span)
            proxy = coarse_proxy_at(ws.pair_x, theta, inv_scale[j], inv_scale[k],
                                    ws.rule_features, ws.rule_weights, ws.rows, ws.values,
                                    ws.cuts, n_bins, bins, frame)
            if proxy > coarse_proxy[q]:
                coarse_proxy[q] = proxy
                coarse_angle[q] = theta

    chosen = _order_best_first(coarse_proxy, n_refine)
    n_chosen = chosen.shape[0]
    angles = np.empty(n_chosen)
    proxies = np.empty(n_chosen)
    weights = np.empty(n_chosen)
    thresholds = np.empty(n_chosen)
    missing_left = np.zeros(n_chosen, dtype=np.bool_)
    for c in prange(n_chosen):
        q = chosen[c]
        j = pair_j[q]
        k = pair_k[q]
        ws = _pair_workspace(X, rows, j, k, node_labels, node_targets, node_weight, criterion,
                             counts, w_total, t_sum, min_samples_leaf, min_weight_leaf, cst,
                             lower, upper)
        frame = (frames[q, 0], frames[q, 1], frames[q, 2], frames[q, 3])
        # the climb starts from the coarse angle's exact cut: a binned proxy is lower, and
        # a neighbour beating it could still be worse than the coarse angle itself
        best_cut = scan_angle(ws.pair_x, coarse_angle[q], inv_scale[j], inv_scale[k],
                              ws.rule_features, ws.rule_weights, ws.rows, ws.values, ws.cuts,
                              frame)
        theta, best_cut = climb_angle(ws.pair_x, coarse_angle[q], best_cut, n_coarse, n_rounds,
                                      inv_scale[j], inv_scale[k], ws.rule_features,
                                      ws.rule_weights, ws.rows, ws.values, ws.cuts, frame)
        a, b = frame_direction(theta, frame)
        angles[c] = math.atan2(b, a) % math.pi
        proxies[c] = best_cut.proxy
        weights[c] = pair_rule_weight(a, b, inv_scale[j], inv_scale[k])
        thresholds[c] = best_cut.threshold
        missing_left[c] = best_cut.missing_left
    return RefinedPairs(chosen, angles, proxies, weights, thresholds, missing_left, base,
                        w_total)
