"""Search a fixed set of directions in every feature pair (bivariate CART, BIT2).

For pair ``(j, k)`` the directions ``(a, b)`` are given on features brought to
a common scale, ``z = (x - offset) * inv_scale``. Each direction is evaluated
as the rule it would be stored as, ``x_j + w x_k`` with
``w = (b * inv_scale[k]) / (a * inv_scale[j])`` (see
``bivtree.splitters._pairs.rule_in_original_units``), projected with
:func:`~bivtree._kernels.traversal.project_row`: the partition a direction is
ranked on is exactly the one its stored rule makes, even where rounding would
order near-equal scaled projections differently. (In exact arithmetic the two
projections differ by a positive factor and a constant, or a negative factor,
which only mirrors the cuts; the criteria are symmetric in left and right.)
The node's samples are sorted along each projection and scanned for the best
cut. Pairs run in parallel (``prange``); each pair writes only its own result
slot and the winner is chosen by a serial reduction in pair order, so the
result is the same for any number of threads.
"""

import math

import numpy as np
from numba import njit, prange

from .._config import NUMBA_OPTS
from .scan import gather_node, scan_values
from .traversal import project_row


@njit(parallel=True, **NUMBA_OPTS)
def pair_direction_search(X, samples, pair_j, pair_k, dir_a, dir_b, offset, inv_scale,
                          labels, targets, sample_weight, n_classes, criterion,
                          min_samples_leaf, min_weight_leaf):
    """Best proxy and direction index per pair (proxy ``-inf``: no valid cut).

    Within a pair, ties go to the lower direction index. ``offset`` is not
    needed to rank the directions (a rule's constant only shifts its
    threshold); it is kept in the signature for the callers.

    Returns
    -------
    proxies : float64 (n_pairs,)
    directions : int64 (n_pairs,)
    base : float
        Node constant with ``G = base - proxy``.
    """
    node_labels, node_targets, node_weight, counts, w_total, t_sum, base = gather_node(
        samples, labels, targets, sample_weight, n_classes, criterion)
    n = samples.shape[0]
    n_pairs = pair_j.shape[0]
    n_dirs = dir_a.shape[0]
    proxies = np.full(n_pairs, -np.inf)
    directions = np.full(n_pairs, -1, dtype=np.int64)
    for q in prange(n_pairs):
        j = pair_j[q]
        k = pair_k[q]
        # the pair's columns gathered once (contiguous), projected by project_row
        # itself so the arithmetic is the stored rule's
        pair_x = np.empty((n, 2), dtype=np.float64)
        for p in range(n):
            pair_x[p, 0] = X[samples[p], j]
            pair_x[p, 1] = X[samples[p], k]
        rule_features = np.empty(2, dtype=np.int64)
        rule_features[0] = 0
        rule_features[1] = 1
        rule_weights = np.empty(2, dtype=np.float64)
        rule_weights[0] = 1.0
        values = np.empty(n, dtype=np.float64)
        left = np.empty(n_classes, dtype=np.float64)
        right = np.empty(n_classes, dtype=np.float64)
        best = -np.inf
        best_h = -1
        for h in range(n_dirs):
            # the stored rule's weight on x_k (same expression as rule_in_original_units)
            w_k = (dir_b[h] * inv_scale[k]) / (dir_a[h] * inv_scale[j])
            if not math.isfinite(w_k) or w_k == 0.0:
                continue
            rule_weights[1] = w_k
            for p in range(n):
                values[p] = project_row(pair_x, p, rule_features, rule_weights)
            proxy, _ = scan_values(values, node_labels, node_targets, node_weight, criterion,
                                   counts, w_total, t_sum, min_samples_leaf, min_weight_leaf,
                                   left, right)
            if proxy > best:
                best = proxy
                best_h = h
        proxies[q] = best
        directions[q] = best_h
    return proxies, directions, base
