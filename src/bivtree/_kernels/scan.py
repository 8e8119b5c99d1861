"""The shared hot loop: sort a projection of the node's samples and scan its cuts."""

import numpy as np
from numba import njit

from .._config import NUMBA_OPTS
from .criteria import best_cut_sorted, midpoint_threshold, node_totals, proxy_base
from .sorting import argsort_values
from .traversal import project_row


@njit(**NUMBA_OPTS)
def gather_node(samples, labels, targets, sample_weight, n_classes, criterion):
    """Node-local copies of labels, targets and weights, and the node's totals.

    Returns
    -------
    node_labels, node_targets, node_weight : arrays (n,)
    counts : float64 (n_classes,)
    w_total, t_sum, base : float
        Node weight, weighted target sum, and the proxy base (``G = base - proxy``).
    """
    n = samples.shape[0]
    node_labels = np.empty(n, dtype=labels.dtype)
    node_targets = np.empty(n, dtype=targets.dtype)
    node_weight = np.empty(n, dtype=sample_weight.dtype)
    for p in range(n):
        i = samples[p]
        node_labels[p] = labels[i]
        node_targets[p] = targets[i]
        node_weight[p] = sample_weight[i]
    counts = np.empty(n_classes, dtype=np.float64)
    w_total, t_sum, t_sq = node_totals(node_labels, node_targets, node_weight, n_classes,
                                       criterion, counts)
    base = proxy_base(counts, w_total, t_sq, criterion)
    return node_labels, node_targets, node_weight, counts, w_total, t_sum, base


@njit(**NUMBA_OPTS)
def scan_values(values, node_labels, node_targets, node_weight, criterion, counts, w_total,
                t_sum, min_samples_leaf, min_weight_leaf, left_counts, right_counts):
    """Sort ``values`` and return ``(best proxy, threshold)``; proxy ``-inf`` if no valid cut."""
    n = values.shape[0]
    order = argsort_values(values)
    if values[order[n - 1]] <= values[order[0]]:
        return -np.inf, 0.0
    proxy, pos = best_cut_sorted(values, order, node_labels, node_targets, node_weight,
                                 criterion, counts, w_total, t_sum, min_samples_leaf,
                                 min_weight_leaf, left_counts, right_counts)
    if pos < 0:
        return -np.inf, 0.0
    return proxy, midpoint_threshold(values[order[pos]], values[order[pos + 1]])


@njit(**NUMBA_OPTS)
def scan_rule(X, samples, features, weights, labels, targets, sample_weight, n_classes,
              criterion, min_samples_leaf, min_weight_leaf):
    """Best threshold for a fixed direction given in original units.

    The projection is computed with :func:`project_row`, the very function the
    tree uses to route samples, so the returned threshold partitions the
    training samples exactly as scanned.

    Returns
    -------
    proxy, threshold, base : float
    """
    node_labels, node_targets, node_weight, counts, w_total, t_sum, base = gather_node(
        samples, labels, targets, sample_weight, n_classes, criterion)
    n = samples.shape[0]
    values = np.empty(n, dtype=np.float64)
    for p in range(n):
        values[p] = project_row(X, samples[p], features, weights)
    left = np.empty(n_classes, dtype=np.float64)
    right = np.empty(n_classes, dtype=np.float64)
    proxy, threshold = scan_values(values, node_labels, node_targets, node_weight, criterion,
                                   counts, w_total, t_sum, min_samples_leaf, min_weight_leaf,
                                   left, right)
    return proxy, threshold, base
