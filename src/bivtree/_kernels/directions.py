"""Search a fixed set of directions in every feature pair (bivariate CART, BIT2).

For pair ``(j, k)`` and direction ``(a, b)`` the node's samples are projected on
``a * z_j + b * z_k`` with ``z = (x - offset) * inv_scale`` (features brought to
a common scale), sorted, and scanned for the best cut. Pairs run in parallel
(``prange``); each pair writes only its own result slot and the winner is chosen
by a serial reduction in pair order, so the result is the same for any number
of threads.
"""

import numpy as np
from numba import njit, prange

from .._config import NUMBA_OPTS
from .scan import gather_node, scan_values


@njit(parallel=True, **NUMBA_OPTS)
def pair_direction_search(X, samples, pair_j, pair_k, dir_a, dir_b, offset, inv_scale,
                          labels, targets, sample_weight, n_classes, criterion,
                          min_samples_leaf, min_weight_leaf):
    """Best proxy and direction index per pair (proxy ``-inf``: no valid cut).

    Within a pair, ties go to the lower direction index.

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
        zj = np.empty(n, dtype=np.float64)
        zk = np.empty(n, dtype=np.float64)
        for p in range(n):
            i = samples[p]
            zj[p] = (X[i, j] - offset[j]) * inv_scale[j]
            zk[p] = (X[i, k] - offset[k]) * inv_scale[k]
        values = np.empty(n, dtype=np.float64)
        left = np.empty(n_classes, dtype=np.float64)
        right = np.empty(n_classes, dtype=np.float64)
        best = -np.inf
        best_h = -1
        for h in range(n_dirs):
            a = dir_a[h]
            b = dir_b[h]
            for p in range(n):
                values[p] = a * zj[p] + b * zk[p]
            proxy, _ = scan_values(values, node_labels, node_targets, node_weight, criterion,
                                   counts, w_total, t_sum, min_samples_leaf, min_weight_leaf,
                                   left, right)
            if proxy > best:
                best = proxy
                best_h = h
        proxies[q] = best
        directions[q] = best_h
    return proxies, directions, base
