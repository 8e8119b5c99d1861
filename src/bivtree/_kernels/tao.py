"""Kernels of tree alternating optimization (TAO) over a fixed tree structure.

The tree being optimized is held as plain arrays (``children_left``,
``children_right``, ``features``, ``weights``, ``threshold``, ``category_mask``)
like :class:`bivtree.tree.Tree`, with one addition: a *zero-variate* decision
node uses no feature (``features = [-1, -1]``), so :func:`project_row` gives 0
and the node sends every sample left when its threshold is ``+1`` and right when
it is ``-1``. Routing therefore goes through the same test as a stored tree,
``goes_left`` (:mod:`bivtree._kernels.traversal`): the projection for a linear
node, the category set for a categorical one.

**Missing values.** Every decision node of the state also holds the side a
sample missing one of its features takes (``missing_left``), and every kernel
routes through it, so the loss scored is the loss of the tree returned. A
reduced problem's cut is scanned with the care samples missing a feature of
the rule on the left and on the right (:func:`scan_pseudolabels_missing`, the
:func:`~bivtree._kernels.scan.best_cut_missing` of :class:`PseudolabelCuts`),
as the greedy search does, and the better side is kept; directions and
scalings come from the complete rows. On data without NaN no kernel reads a
missing side, and every result is what it was before.

Leaves hold a class index (classification) or a mean (regression); the loss of
a sample at a leaf is its weight times the 0/1 loss, or times the squared error.

The reduced problem of a decision node is a weighted two-class task on its
*care* samples (those whose loss differs between the two subtrees): label 0
prefers the left child, label 1 the right, the weight is the loss difference.
:func:`search_items` scans every univariate cut and every feature pair of every
node of one depth in one parallel loop; each work item writes only its own
slot, so the result does not depend on the number of threads. The search uses
the greedy splitters' mechanics (pair scaling and back-transform of
:mod:`~bivtree._kernels.pair_scaling`, the direction loop of
:mod:`~bivtree._kernels.directions`, the projection scan of
:mod:`~bivtree._kernels.scan`) with its own cut objective,
:class:`PseudolabelCuts`.

**Monotonic constraints** (``SearchSpace.cst``, :mod:`bivtree._kernels.constraints`):
a pair of two constrained features may only take rules ``x_j + w x_k`` whose
weight has the sign ``c_j c_k`` (else the rule's constrained features would
require opposite orders of its children: a ``CONFLICT``). The
:class:`PseudolabelCuts` of an item carry the constraints of the columns its
rules read, so every scan of a conflicting rule finds no cut
(:func:`~bivtree._kernels.scan.oriented_cuts`), and each pair search keeps to
the admissible directions where that is cheap: the coarse angles are spread
over the admissible arc (:func:`~bivtree._kernels.angle_search.pair_arc`, as
the ``"auto"`` splitter does), the fixed directions of the other sign are
skipped, and the exact sweep sweeps the slopes of the admissible sign only
(the rotational sweep does not check the order of its partitions under the
two-class objective, so it is told the slopes instead). The best item is so
the best admissible one each search finds. A reduced problem has no child
values to order (its pseudolabels say which subtree a sample prefers), so the
order of the children's values is not checked here: the estimators clip the
finished tree to the bounds (:mod:`bivtree.constraints`). Without constraints
(``cst`` empty) every search is the one it always was.
"""

import math
from typing import NamedTuple

import numpy as np
from numba import njit, prange
from numba.extending import overload

from .._config import MISCLASSIFICATION, NUMBA_OPTS
from .angle_search import (
    angle_proxy_bound,
    arc_angle,
    climb_angle,
    decorrelated_frame,
    frame_direction,
    pair_arc,
    scan_angle,
)
from .constraints import NO_MONOTONIC
from .directions import gather_pair, pair_constraints, scan_directions
from .pair_scaling import larger_coefficient_first, min_max_scaling, pair_rule_weight
from .scan import (
    Cut,
    best_cut,
    best_cut_missing,
    cut_objective_is,
    cut_proxy_bound,
    scan_projection,
)
from .sweep import sweep_pair_missing
from .traversal import goes_left

#: most and fewest bins of the bound that lets the coarse-to-fine pair search skip
#: angles (:func:`pseudolabel_proxy_bound`)
BOUND_BINS = 256
MIN_BOUND_BINS = 32


@njit(inline="always", **NUMBA_OPTS)
def leaf_of(X, i, node, children_left, children_right, features, weights, threshold,
            category_mask, missing_left):
    """Leaf reached by row ``i`` of ``X`` from ``node`` down."""
    while children_left[node] != -1:
        if goes_left(X, i, features[node], weights[node], threshold[node],
                     category_mask[node], missing_left[node]):
            node = children_left[node]
        else:
            node = children_right[node]
    return node


@njit(inline="always", **NUMBA_OPTS)
def sample_loss(i, leaf, labels, targets, sample_weight, leaf_class, leaf_mean, regression):
    """Weighted loss of sample ``i`` predicted by ``leaf``."""
    if regression:
        r = targets[i] - leaf_mean[leaf]
        return sample_weight[i] * r * r
    return sample_weight[i] if labels[i] != leaf_class[leaf] else 0.0


@njit(parallel=True, **NUMBA_OPTS)
def node_paths(X, rows, children_left, children_right, features, weights, threshold,
               category_mask, missing_left, n_levels):
    """Node visited at every depth by each row (``-1`` below the row's leaf).

    Returns
    -------
    int64 (rows.size, n_levels)
    """
    out = np.full((rows.shape[0], n_levels), -1, dtype=np.int64)
    for p in prange(rows.shape[0]):
        i = rows[p]
        node = 0
        d = 0
        out[p, 0] = 0
        while children_left[node] != -1:
            if goes_left(X, i, features[node], weights[node], threshold[node],
                         category_mask[node], missing_left[node]):
                node = children_left[node]
            else:
                node = children_right[node]
            d += 1
            out[p, d] = node
    return out


@njit(parallel=True, **NUMBA_OPTS)
def child_losses(X, samples, owner, children_left, children_right, features, weights,
                 threshold, category_mask, missing_left, labels, targets, sample_weight,
                 leaf_class, leaf_mean, regression):
    """Loss of each sample when sent down the left and the right subtree of its node.

    ``owner[p]`` is the decision node whose reduced set holds ``samples[p]``.
    """
    n = samples.shape[0]
    loss_left = np.empty(n)
    loss_right = np.empty(n)
    for p in prange(n):
        i = samples[p]
        node = owner[p]
        a = leaf_of(X, i, children_left[node], children_left, children_right, features,
                    weights, threshold, category_mask, missing_left)
        b = leaf_of(X, i, children_right[node], children_left, children_right, features,
                    weights, threshold, category_mask, missing_left)
        loss_left[p] = sample_loss(i, a, labels, targets, sample_weight, leaf_class,
                                   leaf_mean, regression)
        loss_right[p] = sample_loss(i, b, labels, targets, sample_weight, leaf_class,
                                    leaf_mean, regression)
    return loss_left, loss_right


@njit(parallel=True, **NUMBA_OPTS)
def total_loss(X, rows, children_left, children_right, features, weights, threshold,
               category_mask, missing_left, labels, targets, sample_weight, leaf_class,
               leaf_mean, regression):
    """Summed weighted loss of ``rows`` under the tree (summed in row order)."""
    n = rows.shape[0]
    losses = np.empty(n)
    for p in prange(n):
        i = rows[p]
        leaf = leaf_of(X, i, 0, children_left, children_right, features, weights, threshold,
                       category_mask, missing_left)
        losses[p] = sample_loss(i, leaf, labels, targets, sample_weight, leaf_class,
                                leaf_mean, regression)
    s = 0.0
    for p in range(n):
        s += losses[p]
    return s


@njit(**NUMBA_OPTS)
def _scan_pseudolabel_prefixes(values, order, labels, weights, w0, w1, start0, start1,
                               cut_after_last):
    """The cut scan of :func:`scan_pseudolabels`, the left side starting at weights
    ``start0`` / ``start1`` of the two labels (samples held aside on the left).

    ``cut_after_last`` also scores the cut after the last sorted sample (every
    sorted sample left, the held-aside ones right). Ties go to the first cut.
    """
    n = order.shape[0]
    w_total = w0 + w1
    l0 = start0
    l1 = start1
    best = -np.inf
    best_pos = -1
    for p in range(n):
        i = order[p]
        if labels[i] == 0:
            l0 += weights[i]
        else:
            l1 += weights[i]
        if p == n - 1:
            if not cut_after_last:
                break
        elif values[order[p + 1]] <= values[i]:
            continue
        wl = l0 + l1
        if wl <= 0.0 or w_total - wl <= 0.0:
            continue
        proxy = max(l0, l1) + max(w0 - l0, w1 - l1)
        if proxy > best:
            best = proxy
            best_pos = p
    return best, best_pos


@njit(**NUMBA_OPTS)
def scan_pseudolabels(values, order, labels, weights, w0, w1):
    """Best cut of two-class pseudolabelled samples sorted by ``values``.

    The loss of a cut is the least weighted error over the four labellings of
    its two sides, ``min(L0, L1) + min(R0, R1)`` (``L0``: weight of label 0 on
    the left...), which is the misclassification criterion of two classes;
    the proxy maximised is ``W - loss``. Cuts fall between distinct values and
    leave positive weight on both sides.

    Returns
    -------
    best_proxy : float
        ``-inf`` when no cut is valid.
    best_pos : int
        Last sorted position that goes left (``-1``: none).
    """
    return _scan_pseudolabel_prefixes(values, order, labels, weights, w0, w1, 0.0, 0.0,
                                      False)


class PseudolabelCuts(NamedTuple):
    """Cut objective of a reduced problem (:func:`scan_pseudolabels`).

    Attributes
    ----------
    labels : int64 (n,)
        Node-local pseudolabels: 0 prefers the left child, 1 the right.
    weights : float64 (n,)
        Node-local loss differences.
    w0, w1 : float
        Total weight of label 0 and of label 1.
    cst : int64 (n_columns,)
        Monotonic constraint of every column the scanned rules read (empty:
        none): a rule whose constrained features disagree has no cut
        (:func:`~bivtree._kernels.scan.oriented_cuts`).
    """

    labels: np.ndarray
    weights: np.ndarray
    w0: float
    w1: float
    cst: np.ndarray = NO_MONOTONIC


@overload(best_cut)
def _best_cut_of_pseudolabels(values, order, cuts):
    if not cut_objective_is(cuts, PseudolabelCuts):
        return None

    def scan(values, order, cuts):
        return scan_pseudolabels(values, order, cuts.labels, cuts.weights, cuts.w0, cuts.w1)
    return scan


@njit(**NUMBA_OPTS)
def scan_pseudolabels_missing(values, order, missing, labels, weights, w0, w1):
    """:func:`scan_pseudolabels` with the samples ``missing`` (NaN values) held together.

    ``order`` sorts the samples whose value is known. The missing ones are
    scored on the right (every cut between distinct known values, and the cut
    after the last known value, which sends every known value left), then on
    the left (the prefix starts at their weights); the left side wins only
    when strictly better, as in the greedy search
    (:func:`~bivtree._kernels.scan.best_cut_missing`).

    Returns
    -------
    best_proxy : float
        ``-inf`` when no cut is valid.
    best_pos : int
        Last sorted known position that goes left (``-1``: none;
        ``order.shape[0] - 1``: every known value left, the missing ones right).
    missing_left : bool
    """
    h0 = 0.0
    h1 = 0.0
    for q in range(missing.shape[0]):
        i = missing[q]
        if labels[i] == 0:
            h0 += weights[i]
        else:
            h1 += weights[i]
    right, right_pos = _scan_pseudolabel_prefixes(values, order, labels, weights, w0, w1,
                                                  0.0, 0.0, True)
    left, left_pos = _scan_pseudolabel_prefixes(values, order, labels, weights, w0, w1, h0,
                                                h1, False)
    if left > right:
        return left, left_pos, True
    return right, right_pos, False


@overload(best_cut_missing)
def _best_cut_missing_of_pseudolabels(values, order, missing, cuts):
    if not cut_objective_is(cuts, PseudolabelCuts):
        return None

    def scan(values, order, missing, cuts):
        return scan_pseudolabels_missing(values, order, missing, cuts.labels, cuts.weights,
                                         cuts.w0, cuts.w1)
    return scan


@njit(**NUMBA_OPTS)
def pseudolabel_proxy_bound(values, labels, weights, w0, w1, bins):
    """An upper bound of the proxy of :func:`scan_pseudolabels` (and
    :func:`scan_pseudolabels_missing`) on ``values`` in any order, without a sort.

    The known values are binned into ``bins.shape[0]`` equal-width bins (``bins``:
    scratch of shape ``(n_bins, 2)``, the weight of each label per bin, overwritten).
    A cut falls inside or at the edge of some bin ``b``: its left side is the bins
    before ``b`` (weights ``P0``, ``P1`` of the two labels) and part of ``b``, its
    right side the rest. Labelling the sides 0 and 1 scores at most ``P0 + S1 + B``
    (``S``: the bins after ``b``, ``B``: all of bin ``b``), 1 and 0 at most ``P1 +
    S0 + B``, and one label on both sides ``w0`` or ``w1``; the missing rows
    (NaN) add at most their weight, whichever side they take. The bound is
    raised by a relative ``1e-9`` so that rounding in the scan's own sums
    cannot put an exact proxy above it. A search may so skip a direction whose
    bound does not beat its best proxy (:func:`_refined_pair_item`).
    """
    lo = np.inf
    hi = -np.inf
    for p in range(values.shape[0]):
        v = values[p]
        # comparisons, not min/max: a NaN (missing) compares false and is left out
        if v < lo:  # noqa: PLR1730
            lo = v
        if v > hi:  # noqa: PLR1730
            hi = v
    if not hi > lo:
        return (w0 + w1) * (1.0 + 1e-9)  # one known value: only the trivial bound
    n_bins = bins.shape[0]
    bins[:] = 0.0
    scale = n_bins / (hi - lo)
    known0 = 0.0
    known1 = 0.0
    for p in range(values.shape[0]):
        v = values[p]
        if not math.isnan(v):
            bins[min(n_bins - 1, int((v - lo) * scale)), labels[p]] += weights[p]
            if labels[p] == 0:
                known0 += weights[p]
            else:
                known1 += weights[p]
    missing = max(0.0, (w0 + w1) - (known0 + known1))
    bound = max(w0, w1)
    before0 = 0.0
    before1 = 0.0
    for b in range(n_bins):
        in0 = bins[b, 0]
        in1 = bins[b, 1]
        after0 = known0 - before0 - in0
        after1 = known1 - before1 - in1
        bound = max(bound, max(before0 + after1, before1 + after0) + in0 + in1 + missing)
        before0 += in0
        before1 += in1
    return bound * (1.0 + 1e-9)


@overload(cut_proxy_bound)
def _cut_proxy_bound_of_pseudolabels(values, cuts, bins):
    if not cut_objective_is(cuts, PseudolabelCuts):
        return None

    def bound(values, cuts, bins):
        return pseudolabel_proxy_bound(values, cuts.labels, cuts.weights, cuts.w0, cuts.w1,
                                       bins)
    return bound


class CareSets(NamedTuple):
    """The reduced problems of several nodes, node by node.

    Node ``r`` owns ``samples[offsets[r]:offsets[r + 1]]`` (sorted row ids),
    with their pseudolabels ``labels`` (0 = prefers the left child, 1 = the
    right) and ``weights`` (the loss differences).
    """

    samples: np.ndarray
    labels: np.ndarray
    weights: np.ndarray
    offsets: np.ndarray


class SearchSpace(NamedTuple):
    """The items a node is searched over: the univariate ``features``, then the pairs
    ``(pair_j[q], pair_k[q])``, each with the directions ``(dir_a[h], dir_b[h])``, or,
    with ``n_coarse > 0``, the coarse-to-fine search of ``n_coarse`` angles and
    ``refine_rounds`` rounds (:func:`_refined_pair_item`), which skips the angles
    whose bound of at most ``bound_bins`` bins cannot win (0: none is skipped; the
    same result either way); ``cst`` is the monotonic constraint of every column
    of ``X`` (empty: none; see the module)."""

    features: np.ndarray
    pair_j: np.ndarray
    pair_k: np.ndarray
    dir_a: np.ndarray
    dir_b: np.ndarray
    n_coarse: int
    refine_rounds: int
    cst: np.ndarray = NO_MONOTONIC
    bound_bins: int = BOUND_BINS


class WorkItems(NamedTuple):
    """Work item ``q`` is item ``index[q]`` of node ``node[q]``."""

    node: np.ndarray
    index: np.ndarray


class ItemRule(NamedTuple):
    """Best rule ``x_first + weight x_second <= threshold`` of one item (``second``
    ``-1``: univariate), its ``proxy`` (``-inf``: no cut) and the side of the samples
    missing one of its features (``missing_left``, False when none is)."""

    proxy: float
    first: int
    second: int
    weight: float
    threshold: float
    missing_left: bool = False


class ItemResults(NamedTuple):
    """Per work item: ``proxy`` (``-inf`` where no cut exists), ``loss`` = ``W -
    proxy`` (the least weighted error over the four labellings of the two sides;
    ``inf`` where no cut exists), and the rule ``first``, ``second`` (``-1`` for
    univariate items), ``w_second``, ``threshold``, ``missing_left``."""

    proxy: np.ndarray
    loss: np.ndarray
    first: np.ndarray
    second: np.ndarray
    w_second: np.ndarray
    threshold: np.ndarray
    missing_left: np.ndarray


@njit(**NUMBA_OPTS)
def _no_rule():
    return ItemRule(-np.inf, -1, -1, 0.0, 0.0, False)


@njit(**NUMBA_OPTS)
def _univariate_item(X, samples, f, values, cuts):
    """Best cut of feature ``f``, scanned as the stored rule ``1 * x_f``."""
    rule_features = np.full(2, -1, dtype=np.int64)
    rule_features[0] = f
    rule_weights = np.zeros(2)
    rule_weights[0] = 1.0
    cut = scan_projection(X, samples, rule_features, rule_weights, values, cuts)
    return ItemRule(cut.proxy, f, -1, 0.0, cut.threshold, cut.missing_left)


@njit(**NUMBA_OPTS)
def _pair_cuts(cuts, j, k):
    """``cuts`` for rules over the two columns of :func:`gather_pair` of ``(j, k)``
    (``cuts.cst`` holds the constraint of every column of ``X``)."""
    return PseudolabelCuts(cuts.labels, cuts.weights, cuts.w0, cuts.w1,
                           pair_constraints(cuts.cst, j, k))


@njit(**NUMBA_OPTS)
def _admissible_slopes(cst, j, k):
    """The slopes ``s`` of the sweep's lines ``u + s v`` (``u``, ``v``: features ``j``, ``k``
    scaled by positive factors) whose rules the constraints ``cst`` admit: every slope,
    or for two constrained features those of the sign ``c_j c_k``."""
    if cst.shape[0] > 0 and cst[j] != 0 and cst[k] != 0:
        if cst[j] * cst[k] > 0:
            return 0.0, np.inf
        return -np.inf, 0.0
    return -np.inf, np.inf


@njit(**NUMBA_OPTS)
def _exact_pair_item(X, samples, j, k, values, cuts):
    """Exact best line of the pair by the rotational sweep on [0, 1]-scaled values,
    re-scanned as its stored rule (the larger raw coefficient first, so the stored
    weight stays bounded; an axis-parallel line is left to the univariate items).
    The line is swept over the complete rows of the pair; the re-scan places the
    rows missing either feature on their better side. Under monotonic constraints
    (``cuts.cst``, every column's) only the slopes whose rule is admissible are
    swept, so the line is the exact best admissible one."""
    scaling_j = min_max_scaling(X, samples, j)
    scaling_k = min_max_scaling(X, samples, k)
    if scaling_j.inv_scale == 0.0 or scaling_k.inv_scale == 0.0:
        return _no_rule()  # a constant feature: the pair is a univariate split at best
    complete = _complete_positions(X, samples, j, k)
    n = complete.shape[0]
    if n < 2:
        return _no_rule()  # too few complete rows to place a line
    u = np.empty(n)
    v = np.empty(n)
    stats = np.zeros((n, 3))
    for c in range(n):
        p = complete[c]
        u[c] = (X[samples[p], j] - scaling_j.offset) * scaling_j.inv_scale
        v[c] = (X[samples[p], k] - scaling_k.offset) * scaling_k.inv_scale
        stats[c, cuts.labels[p]] = cuts.weights[p]
        stats[c, 2] = 1.0
    params = np.array([1.0, 0.0])
    stop = np.zeros(1, dtype=np.int64)
    # the rule's weight on x_k has the sign of the slope (u and v scale by positive factors)
    slope_lo, slope_hi = _admissible_slopes(cuts.cst, j, k)
    # the complete rows only: without NaN this is the plain sweep of those slopes
    optimum, wu, wv, _, _, _, _ = sweep_pair_missing(u, v, stats, MISCLASSIFICATION, params,
                                                     stop, slope_lo, slope_hi)
    if not math.isfinite(optimum):
        return _no_rule()
    rule = larger_coefficient_first(j, k, wu, wv, scaling_j.inv_scale, scaling_k.inv_scale)
    if not math.isfinite(rule.weight) or rule.weight == 0.0:
        return _no_rule()
    rule_features = np.empty(2, dtype=np.int64)
    rule_features[0] = rule.first
    rule_features[1] = rule.second
    rule_weights = np.empty(2)
    rule_weights[0] = 1.0
    rule_weights[1] = rule.weight
    cut = scan_projection(X, samples, rule_features, rule_weights, values, cuts)
    return ItemRule(cut.proxy, rule.first, rule.second, rule.weight, cut.threshold,
                    cut.missing_left)


@njit(**NUMBA_OPTS)
def _direction_pair_item(X, samples, j, k, dir_a, dir_b, values, cuts):
    """Best of the directions ``(dir_a[h], dir_b[h])`` on the pair's [0, 1]-scaled values
    (under monotonic constraints, of those whose rule is admissible)."""
    inv_scale_j = min_max_scaling(X, samples, j).inv_scale
    inv_scale_k = min_max_scaling(X, samples, k).inv_scale
    if inv_scale_j == 0.0 or inv_scale_k == 0.0:
        return _no_rule()  # a constant feature: the pair is a univariate split at best
    pair_x = gather_pair(X, samples, j, k)
    cuts = _pair_cuts(cuts, j, k)  # the gathered pair's two columns
    found = scan_directions(pair_x, dir_a, dir_b, inv_scale_j, inv_scale_k, values, cuts)
    missing_left = False
    if found.proxy > -np.inf and _pair_has_missing(pair_x):
        # the direction scan keeps no missing side: re-scan the winner (the same values)
        rule_features = np.arange(2)
        rule_weights = np.empty(2)
        rule_weights[0] = 1.0
        rule_weights[1] = found.weight
        missing_left = scan_projection(pair_x, np.arange(pair_x.shape[0]), rule_features,
                                       rule_weights, values, cuts).missing_left
    return ItemRule(found.proxy, j, k, found.weight, found.threshold, missing_left)


@njit(**NUMBA_OPTS)
def _refined_pair_item(X, samples, j, k, n_coarse, n_rounds, values, cuts, n_bins):
    """Best line of the pair by the coarse-to-fine angle search of the ``"auto"`` splitter.

    ``n_coarse`` angles ``pi (h + 1/2) / n_coarse`` of the pair's decorrelated
    frame (:func:`~bivtree._kernels.angle_search.decorrelated_frame`), then
    ``n_rounds`` step-halving rounds from the best
    (:func:`~bivtree._kernels.angle_search.climb_angle`); every angle is scanned
    exactly as the rule it would be stored as, rows missing a feature of the
    pair on their better side. For two constrained features (``cuts.cst``, every
    column's) the coarse angles are spread over the arc of admissible rules, and
    a step of the climb outside it scores no cut.

    With ``n_bins > 0`` an angle is scanned only where its
    :func:`pseudolabel_proxy_bound` (at most ``n_bins`` bins, no sort) could beat
    the best proxy so far: the coarse angles in the order of their bounds, most
    promising first, then the steps of the climb's first round as they come.
    The best angle (ties to the lower one, as without bounds) and its cut are
    the same; on problems of thousands of samples most coarse angles are never
    sorted.
    """
    inv_scale_j = min_max_scaling(X, samples, j).inv_scale
    inv_scale_k = min_max_scaling(X, samples, k).inv_scale
    if inv_scale_j == 0.0 or inv_scale_k == 0.0:
        return _no_rule()  # a constant feature: the pair is a univariate split at best
    pair_x = gather_pair(X, samples, j, k)
    cst = cuts.cst
    cuts = _pair_cuts(cuts, j, k)  # the gathered pair's two columns
    rows = np.arange(pair_x.shape[0])
    rule_features = np.arange(2)
    rule_weights = np.empty(2)
    rule_weights[0] = 1.0
    frame = decorrelated_frame(pair_x, inv_scale_j, inv_scale_k)
    arc_start, arc_span = pair_arc(cst, j, k, frame)
    # bins: about 8 samples each, so that a bin's weight (the bound's slack) stays small
    # (one histogram for every bound of the pair)
    bins = np.empty((min(n_bins, max(MIN_BOUND_BINS, rows.shape[0] // 8)), 2))
    trials = np.empty(n_coarse)
    bounds = np.full(n_coarse, np.inf)
    for h in range(n_coarse):
        trials[h] = arc_angle(h, n_coarse, arc_start, arc_span)
        if bins.shape[0] > 0:
            bounds[h] = angle_proxy_bound(pair_x, trials[h], inv_scale_j, inv_scale_k,
                                          rule_features, rule_weights, rows, values, cuts,
                                          frame, bins)
    best = Cut(-np.inf, 0.0, False)
    theta = 0.0
    best_h = n_coarse
    # stable: without bounds (all inf) the angles go in their own order
    for h in np.argsort(-bounds, kind="mergesort"):
        if bounds[h] < best.proxy:
            break  # neither this angle nor any after it can reach the best proxy
        cut = scan_angle(pair_x, trials[h], inv_scale_j, inv_scale_k, rule_features,
                         rule_weights, rows, values, cuts, frame)
        if cut.proxy > best.proxy or (cut.proxy == best.proxy > -np.inf and h < best_h):
            best = cut
            theta = trials[h]
            best_h = h
    if best.proxy == -np.inf:
        return _no_rule()
    theta, best = climb_angle(pair_x, theta, best, n_coarse, n_rounds, inv_scale_j,
                              inv_scale_k, rule_features, rule_weights, rows, values, cuts,
                              frame, bins)
    a, b = frame_direction(theta, frame)
    return ItemRule(best.proxy, j, k, pair_rule_weight(a, b, inv_scale_j, inv_scale_k),
                    best.threshold, best.missing_left)


@njit(**NUMBA_OPTS)
def _pair_has_missing(pair_x):
    """Whether a gathered pair (:func:`gather_pair`) holds a NaN."""
    for p in range(pair_x.shape[0]):
        if math.isnan(pair_x[p, 0]) or math.isnan(pair_x[p, 1]):
            return True
    return False


@njit(**NUMBA_OPTS)
def _complete_positions(X, samples, j, k):
    """Positions ``p`` of ``samples`` whose features ``j`` and ``k`` are both known."""
    n = samples.shape[0]
    out = np.empty(n, dtype=np.int64)
    c = 0
    for p in range(n):
        if not (math.isnan(X[samples[p], j]) or math.isnan(X[samples[p], k])):
            out[c] = p
            c += 1
    return out[:c]


@njit(parallel=True, **NUMBA_OPTS)
def search_items(X, care, exact, space, items):
    """Best cut of the given univariate features and feature pairs of the given nodes.

    ``care`` holds the nodes' reduced problems (:class:`CareSets`). A node's
    items are numbered ``0 .. D - 1`` for the features of ``space``, then
    ``D .. D + P - 1`` for its pairs (:class:`SearchSpace`); ``items`` lists the
    work (:func:`all_items`: every item). A pair of a node with ``exact[r]`` gets
    the exact best line by the rotational sweep; otherwise the directions of
    ``space`` on the pair's [0, 1]-scaled values. Every candidate is scanned as
    the rule it would be stored as, ``x_first + w x_second <= t``, with
    :func:`project_row`, so its cut is the partition the stored rule makes.

    The proxy is the misclassification proxy of the two pseudo-classes: its
    loss ``W - proxy`` is the least weighted error over the four ways of
    labelling the two sides, i.e. also over both orientations of the rule.
    Under monotonic constraints (``space.cst``) a pair item's rule is the best
    admissible one its search finds (see the module).

    Returns
    -------
    ItemResults
    """
    n_feat = space.features.shape[0]
    n_items = items.node.shape[0]
    proxy = np.full(n_items, -np.inf)
    loss = np.full(n_items, np.inf)
    first = np.full(n_items, -1, dtype=np.int64)
    second = np.full(n_items, -1, dtype=np.int64)
    w_second = np.zeros(n_items)
    thresholds = np.zeros(n_items)
    missing_left = np.zeros(n_items, dtype=np.bool_)
    for item in prange(n_items):
        r = items.node[item]
        t = items.index[item]
        a0 = care.offsets[r]
        a1 = care.offsets[r + 1]
        n = a1 - a0
        if n < 2:
            continue
        samples = care.samples[a0:a1]
        node_labels = care.labels[a0:a1]
        node_weight = care.weights[a0:a1]
        w0 = 0.0
        w1 = 0.0
        for p in range(n):
            if node_labels[p] == 0:
                w0 += node_weight[p]
            else:
                w1 += node_weight[p]
        cuts = PseudolabelCuts(node_labels, node_weight, w0, w1, space.cst)
        values = np.empty(n)
        if t < n_feat:
            found = _univariate_item(X, samples, space.features[t], values, cuts)
        elif exact[r]:
            found = _exact_pair_item(X, samples, space.pair_j[t - n_feat],
                                     space.pair_k[t - n_feat], values, cuts)
        elif space.n_coarse > 0:
            found = _refined_pair_item(X, samples, space.pair_j[t - n_feat],
                                       space.pair_k[t - n_feat], space.n_coarse,
                                       space.refine_rounds, values, cuts, space.bound_bins)
        else:
            found = _direction_pair_item(X, samples, space.pair_j[t - n_feat],
                                         space.pair_k[t - n_feat], space.dir_a, space.dir_b,
                                         values, cuts)
        if found.proxy > -np.inf:
            proxy[item] = found.proxy
            loss[item] = (w0 + w1) - found.proxy
            first[item] = found.first
            second[item] = found.second
            w_second[item] = found.weight
            thresholds[item] = found.threshold
            missing_left[item] = found.missing_left
    return ItemResults(proxy, loss, first, second, w_second, thresholds, missing_left)


def all_items(n_nodes, n_items_per_node):
    """:class:`WorkItems` listing every item of every node, node by node."""
    node = np.repeat(np.arange(n_nodes, dtype=np.int64), n_items_per_node)
    index = np.tile(np.arange(n_items_per_node, dtype=np.int64), n_nodes)
    return WorkItems(node, index)


class RuleErrors(NamedTuple):
    """Weighted pseudolabel error of each rule as it is (``keep``) and with the
    children swapped (``flip``)."""

    keep: np.ndarray
    flip: np.ndarray


class SideSums(NamedTuple):
    """Per rule: the weight and the weighted value (target, or 1 for the positive class)
    of its node's samples on its left and on its right side."""

    weight_left: np.ndarray
    value_left: np.ndarray
    weight_right: np.ndarray
    value_right: np.ndarray


@njit(parallel=True, **NUMBA_OPTS)
def rule_side_sums(X, samples, offsets, rule_node, rule_features, rule_weights, rule_threshold,
                   rule_mask, rule_missing, value, sample_weight):
    """:class:`SideSums` of rules on every sample of their nodes (not only the care ones).

    Node ``r`` owns ``samples[offsets[r]:offsets[r + 1]]``; rule ``q`` (as in
    :func:`rule_errors`) is evaluated on node ``rule_node[q]``, routing through
    :func:`~bivtree._kernels.traversal.goes_left` as the tree does. Under
    monotonic constraints the sums give the values of the children a rule
    would make (:func:`~bivtree._kernels.constraints.split_admissible`).
    """
    n_rules = rule_node.shape[0]
    w_left = np.zeros(n_rules)
    v_left = np.zeros(n_rules)
    w_right = np.zeros(n_rules)
    v_right = np.zeros(n_rules)
    for q in prange(n_rules):
        r = rule_node[q]
        for p in range(offsets[r], offsets[r + 1]):
            i = samples[p]
            w = sample_weight[i]
            if goes_left(X, i, rule_features[q], rule_weights[q], rule_threshold[q],
                         rule_mask[q], rule_missing[q]):
                w_left[q] += w
                v_left[q] += w * value[i]
            else:
                w_right[q] += w
                v_right[q] += w * value[i]
    return SideSums(w_left, v_left, w_right, v_right)


@njit(parallel=True, **NUMBA_OPTS)
def rule_errors(X, care, rule_node, rule_features, rule_weights, rule_threshold, rule_mask,
                rule_missing=None):
    """Weighted pseudolabel error of rules on their nodes' care samples, both ways round.

    Rule ``q`` (its slots' category sets ``rule_mask[q]``, see
    :func:`~bivtree._kernels.traversal.goes_left`; a sample missing one of its
    features goes left iff ``rule_missing[q]``, never when it is None) is evaluated on node ``rule_node[q]`` of ``care``
    (:class:`CareSets`). ``keep[q]``: samples going left should prefer the left
    child; ``flip[q]``: the children swapped. Both are summed in sample order,
    so one partition always gets the same value.

    Returns
    -------
    RuleErrors
    """
    n_rules = rule_node.shape[0]
    keep = np.zeros(n_rules)
    flip = np.zeros(n_rules)
    if rule_missing is None:
        missing = np.zeros(n_rules, dtype=np.bool_)
    else:
        missing = rule_missing
    for q in prange(n_rules):
        r = rule_node[q]
        e_keep = 0.0
        e_flip = 0.0
        for p in range(care.offsets[r], care.offsets[r + 1]):
            i = care.samples[p]
            go_left = goes_left(X, i, rule_features[q], rule_weights[q], rule_threshold[q],
                                rule_mask[q], missing[q])
            if go_left == (care.labels[p] == 0):
                e_flip += care.weights[p]
            else:
                e_keep += care.weights[p]
        keep[q] = e_keep
        flip[q] = e_flip
    return RuleErrors(keep, flip)
