"""Search a fixed set of directions in every feature pair (bivariate CART, BIT2, TAO).

For pair ``(j, k)`` the directions ``(a, b)`` are given on features brought to
a common scale, ``z = (x - offset) * inv_scale``. Each direction is evaluated
as the rule it would be stored as, ``x_j + w x_k`` with
``w = (b * inv_scale[k]) / (a * inv_scale[j])``
(:func:`~bivtree._kernels.pair_scaling.pair_rule_weight`), projected with
:func:`~bivtree._kernels.traversal.project_row`: the partition a direction is
ranked on is exactly the one its stored rule makes, even where rounding would
order near-equal scaled projections differently. (In exact arithmetic the two
projections differ by a positive factor and a constant, or a negative factor,
which only mirrors the cuts; the objectives are symmetric in left and right.)
The node's samples are sorted along each projection and scanned for the best
cut (:func:`scan_directions`, for any cut objective of
:mod:`bivtree._kernels.scan`). :func:`pair_direction_search` runs the pairs in
parallel (``prange``) under a split criterion; each pair writes only its own
result slot and the winner is chosen by a serial reduction in pair order, so
the result is the same for any number of threads.

Under monotonic constraints a direction whose stored rule tests two
constrained features in disagreeing senses is not scanned (half of the
directions of a pair of two constrained features), and the others are scanned
for the cuts their rule's order admits (:func:`~bivtree._kernels.scan.oriented_cuts`).
"""

import math
from typing import NamedTuple

import numpy as np
from numba import njit, prange

from .._config import NUMBA_OPTS
from .pair_scaling import pair_rule_weight
from .scan import criterion_cuts, gather_node, scan_projection


class DirectionScan(NamedTuple):
    """Best direction of one pair: ``proxy`` (``-inf``: no valid cut), ``direction``
    index (``-1``: none), the stored rule's ``weight`` on the second feature and
    its ``threshold``."""

    proxy: float
    direction: int
    weight: float
    threshold: float


class PairDirections(NamedTuple):
    """Best ``proxies`` and ``directions`` per pair, and the node constant ``base``
    (``G = base - proxy``)."""

    proxies: np.ndarray
    directions: np.ndarray
    base: float


@njit(**NUMBA_OPTS)
def gather_pair(X, samples, j, k):
    """Columns ``j`` and ``k`` over ``samples``, contiguous: float64 (n, 2)."""
    n = samples.shape[0]
    pair_x = np.empty((n, 2), dtype=np.float64)
    for p in range(n):
        pair_x[p, 0] = X[samples[p], j]
        pair_x[p, 1] = X[samples[p], k]
    return pair_x


@njit(**NUMBA_OPTS)
def pair_constraints(cst, j, k):
    """The monotonic constraints of the two columns of :func:`gather_pair` (empty: none)."""
    if cst.shape[0] == 0:
        return np.empty(0, dtype=np.int64)
    out = np.empty(2, dtype=np.int64)
    out[0] = cst[j]
    out[1] = cst[k]
    return out


@njit(**NUMBA_OPTS)
def scan_directions(pair_x, dir_a, dir_b, inv_scale_j, inv_scale_k, values, cuts):
    """Best :class:`DirectionScan` of the directions ``(dir_a[h], dir_b[h])`` of one pair.

    ``pair_x`` holds the pair's two columns (:func:`gather_pair`); ``cuts`` is
    the cut objective. Ties go to the lower direction index. A direction whose
    stored weight is zero or not finite is skipped.
    """
    n = pair_x.shape[0]
    rows = np.arange(n)
    rule_features = np.empty(2, dtype=np.int64)
    rule_features[0] = 0
    rule_features[1] = 1
    rule_weights = np.empty(2, dtype=np.float64)
    rule_weights[0] = 1.0
    best = -np.inf
    best_h = -1
    best_w = 0.0
    best_threshold = 0.0
    for h in range(dir_a.shape[0]):
        w = pair_rule_weight(dir_a[h], dir_b[h], inv_scale_j, inv_scale_k)
        if not math.isfinite(w) or w == 0.0:
            continue
        rule_weights[1] = w
        cut = scan_projection(pair_x, rows, rule_features, rule_weights, values, cuts)
        if cut.proxy > best:
            best = cut.proxy
            best_h = h
            best_w = w
            best_threshold = cut.threshold
    return DirectionScan(best, best_h, best_w, best_threshold)


@njit(parallel=True, **NUMBA_OPTS)
def pair_direction_search(X, samples, pair_j, pair_k, dir_a, dir_b, offset, inv_scale,
                          labels, targets, sample_weight, n_classes, criterion,
                          min_samples_leaf, min_weight_leaf, cst, lower, upper):
    """Best proxy and direction index per pair, as :class:`PairDirections`.

    Proxy ``-inf``: no valid cut. Within a pair, ties go to the lower direction
    index. ``offset`` is not needed to rank the directions (a rule's constant
    only shifts its threshold); it is kept in the signature for the callers.
    ``cst`` is the monotonic constraint of every column of ``X`` (empty: none)
    and ``lower``, ``upper`` the node's bounds (:mod:`bivtree._kernels.constraints`).
    """
    node_labels, node_targets, node_weight, counts, w_total, t_sum, base = gather_node(
        samples, labels, targets, sample_weight, n_classes, criterion)
    n = samples.shape[0]
    n_pairs = pair_j.shape[0]
    proxies = np.full(n_pairs, -np.inf)
    directions = np.full(n_pairs, -1, dtype=np.int64)
    for q in prange(n_pairs):
        j = pair_j[q]
        k = pair_k[q]
        pair_x = gather_pair(X, samples, j, k)
        values = np.empty(n, dtype=np.float64)
        left = np.empty(n_classes, dtype=np.float64)
        right = np.empty(n_classes, dtype=np.float64)
        cuts = criterion_cuts(node_labels, node_targets, node_weight, criterion, counts,
                              w_total, t_sum, min_samples_leaf, min_weight_leaf, left, right,
                              pair_constraints(cst, j, k), 0, lower, upper)
        found = scan_directions(pair_x, dir_a, dir_b, inv_scale[j], inv_scale[k], values, cuts)
        proxies[q] = found.proxy
        directions[q] = found.direction
    return PairDirections(proxies, directions, base)
