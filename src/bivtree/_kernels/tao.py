"""Kernels of tree alternating optimization (TAO) over a fixed tree structure.

The tree being optimized is held as plain arrays (``children_left``,
``children_right``, ``features``, ``weights``, ``threshold``) like
:class:`bivtree.tree.Tree`, with one addition: a *zero-variate* decision node
uses no feature (``features = [-1, -1]``), so :func:`project_row` gives 0 and
the node sends every sample left when its threshold is ``+1`` and right when it
is ``-1``. Routing therefore goes through the same ``project_row <= threshold``
test as a stored tree (:mod:`bivtree._kernels.traversal`).

Leaves hold a class index (classification) or a mean (regression); the loss of
a sample at a leaf is its weight times the 0/1 loss, or times the squared error.

The reduced problem of a decision node is a weighted two-class task on its
*care* samples (those whose loss differs between the two subtrees): label 0
prefers the left child, label 1 the right, the weight is the loss difference.
:func:`search_items` scans every univariate cut and every feature pair of every
node of one depth in one parallel loop; each work item writes only its own
slot, so the result does not depend on the number of threads.
"""

import math

import numpy as np
from numba import njit, prange

from .._config import MISCLASSIFICATION, NUMBA_OPTS
from .sweep import sweep_pair
from .criteria import midpoint_threshold
from .sorting import argsort_values
from .traversal import project_row


@njit(inline="always", **NUMBA_OPTS)
def leaf_of(X, i, node, children_left, children_right, features, weights, threshold):
    """Leaf reached by row ``i`` of ``X`` from ``node`` down."""
    while children_left[node] != -1:
        if project_row(X, i, features[node], weights[node]) <= threshold[node]:
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
               n_levels):
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
            if project_row(X, i, features[node], weights[node]) <= threshold[node]:
                node = children_left[node]
            else:
                node = children_right[node]
            d += 1
            out[p, d] = node
    return out


@njit(parallel=True, **NUMBA_OPTS)
def child_losses(X, samples, owner, children_left, children_right, features, weights,
                 threshold, labels, targets, sample_weight, leaf_class, leaf_mean, regression):
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
                    weights, threshold)
        b = leaf_of(X, i, children_right[node], children_left, children_right, features,
                    weights, threshold)
        loss_left[p] = sample_loss(i, a, labels, targets, sample_weight, leaf_class,
                                   leaf_mean, regression)
        loss_right[p] = sample_loss(i, b, labels, targets, sample_weight, leaf_class,
                                    leaf_mean, regression)
    return loss_left, loss_right


@njit(parallel=True, **NUMBA_OPTS)
def total_loss(X, rows, children_left, children_right, features, weights, threshold, labels,
               targets, sample_weight, leaf_class, leaf_mean, regression):
    """Summed weighted loss of ``rows`` under the tree (summed in row order)."""
    n = rows.shape[0]
    losses = np.empty(n)
    for p in prange(n):
        i = rows[p]
        leaf = leaf_of(X, i, 0, children_left, children_right, features, weights, threshold)
        losses[p] = sample_loss(i, leaf, labels, targets, sample_weight, leaf_class,
                                leaf_mean, regression)
    s = 0.0
    for p in range(n):
        s += losses[p]
    return s


@njit(**NUMBA_OPTS)
def _pair_scaling(X, samples, j):
    """Inverse span of feature ``j`` over ``samples`` (0 when constant) and its minimum."""
    lo = np.inf
    hi = -np.inf
    for p in range(samples.shape[0]):
        v = X[samples[p], j]
        lo = min(lo, v)
        hi = max(hi, v)
    span = hi - lo
    if span > 0.0 and math.isfinite(span):
        return 1.0 / span, lo
    return 0.0, lo


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
    n = order.shape[0]
    w_total = w0 + w1
    l0 = 0.0
    l1 = 0.0
    best = -np.inf
    best_pos = -1
    for p in range(n - 1):
        i = order[p]
        if labels[i] == 0:
            l0 += weights[i]
        else:
            l1 += weights[i]
        if values[order[p + 1]] <= values[i]:
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
def _scan_rule_on(X, samples, rule_features, rule_weights, node_labels, node_weight, w0, w1,
                  values):
    """Best cut of the rule ``rule_features`` / ``rule_weights`` over ``samples``.

    The projection is :func:`project_row`'s, the routing arithmetic.

    Returns
    -------
    proxy, threshold : float
    """
    n = samples.shape[0]
    for p in range(n):
        values[p] = project_row(X, samples[p], rule_features, rule_weights)
    order = argsort_values(values)
    if values[order[n - 1]] <= values[order[0]]:
        return -np.inf, 0.0
    proxy, pos = scan_pseudolabels(values, order, node_labels, node_weight, w0, w1)
    if pos < 0:
        return -np.inf, 0.0
    return proxy, midpoint_threshold(values[order[pos]], values[order[pos + 1]])


@njit(parallel=True, **NUMBA_OPTS)
def search_items(X, care_samples, care_labels, care_weights, offsets, exact, features,
                 pair_j, pair_k, dir_a, dir_b, item_node, item_index):
    """Best cut of the given univariate features and feature pairs of the given nodes.

    Node ``r`` owns ``care_samples[offsets[r]:offsets[r + 1]]`` (labels 0 =
    prefers left, 1 = prefers right; weights = loss differences). Its items
    are numbered ``0 .. D - 1`` for the features, then ``D .. D + P - 1`` for
    the pairs; work item ``q`` is item ``item_index[q]`` of node
    ``item_node[q]`` (:func:`all_items` lists every item). A pair of a node with
    ``exact[r]`` gets the exact best line by the rotational sweep; otherwise
    the directions ``(dir_a[h], dir_b[h])`` on the pair's [0, 1]-scaled values.
    Every candidate is re-scanned as the rule it would be stored as,
    ``x_first + w x_second <= t``, with :func:`project_row`, so its cut is the
    partition the stored rule makes.

    The proxy is the misclassification proxy of the two pseudo-classes: its
    loss ``W - proxy`` is the least weighted error over the four ways of
    labelling the two sides, i.e. also over both orientations of the rule.

    Returns
    -------
    proxy : float64 (Q,)
        ``-inf`` where no cut exists.
    loss : float64 (Q,)
        ``W - proxy``: the least weighted error over the four labellings of the
        two sides (``inf`` where no cut exists).
    first, second : int64 (Q,)
        Features of the rule (``second = -1`` for univariate items).
    w_second, threshold : float64 (Q,)
    """
    n_feat = features.shape[0]
    n_items = item_node.shape[0]
    proxy = np.full(n_items, -np.inf)
    loss = np.full(n_items, np.inf)
    first = np.full(n_items, -1, dtype=np.int64)
    second = np.full(n_items, -1, dtype=np.int64)
    w_second = np.zeros(n_items)
    thresholds = np.zeros(n_items)
    n_dirs = dir_a.shape[0]
    for item in prange(n_items):
        r = item_node[item]
        t = item_index[item]
        a0 = offsets[r]
        a1 = offsets[r + 1]
        n = a1 - a0
        if n < 2:
            continue
        samples = care_samples[a0:a1]
        node_labels = care_labels[a0:a1]
        node_weight = care_weights[a0:a1]
        w0 = 0.0
        w1 = 0.0
        for p in range(n):
            if node_labels[p] == 0:
                w0 += node_weight[p]
            else:
                w1 += node_weight[p]
        w_total = w0 + w1
        values = np.empty(n)
        # the rule being scanned: x_{rf[0]} + rw[1] * x_{rf[1]} (rf[1] = -1: univariate)
        rf = np.full(2, -1, dtype=np.int64)
        rw = np.zeros(2)
        rw[0] = 1.0
        best = -np.inf
        best_first = -1
        best_second = -1
        best_w = 0.0
        best_thr = 0.0
        if t < n_feat:
            rf[0] = features[t]
            best, best_thr = _scan_rule_on(X, samples, rf, rw, node_labels, node_weight, w0,
                                           w1, values)
            best_first = rf[0]
        else:
            q = t - n_feat
            j = pair_j[q]
            k = pair_k[q]
            inv_j, lo_j = _pair_scaling(X, samples, j)
            inv_k, lo_k = _pair_scaling(X, samples, k)
            if inv_j == 0.0 or inv_k == 0.0:
                continue  # a constant feature: the pair is a univariate split at best
            if exact[r]:
                u = np.empty(n)
                v = np.empty(n)
                stats = np.zeros((n, 3))
                for p in range(n):
                    u[p] = (X[samples[p], j] - lo_j) * inv_j
                    v[p] = (X[samples[p], k] - lo_k) * inv_k
                    stats[p, node_labels[p]] = node_weight[p]
                    stats[p, 2] = 1.0
                params = np.array([1.0, 0.0])
                stop = np.zeros(1, dtype=np.int64)
                opt, wu, wv, _, _, _, _ = sweep_pair(u, v, stats, MISCLASSIFICATION, params,
                                                     stop)
                # coefficients on the raw features; the larger one becomes 1 so the
                # stored weight stays bounded (an axis-parallel line is left to the
                # univariate items)
                cu = wu * inv_j
                cv = wv * inv_k
                if not math.isfinite(opt) or cu == 0.0 or cv == 0.0:
                    continue
                if abs(cu) >= abs(cv):
                    rf[0], rf[1], rw[1] = j, k, cv / cu
                else:
                    rf[0], rf[1], rw[1] = k, j, cu / cv
                if not math.isfinite(rw[1]) or rw[1] == 0.0:
                    continue
                best, best_thr = _scan_rule_on(X, samples, rf, rw, node_labels, node_weight,
                                               w0, w1, values)
                best_first, best_second, best_w = rf[0], rf[1], rw[1]
            else:
                rf[0] = j
                rf[1] = k
                for h in range(n_dirs):
                    # the stored rule's weight on x_k, as in the bivariate CART splitter
                    w = (dir_b[h] * inv_k) / (dir_a[h] * inv_j)
                    if not math.isfinite(w) or w == 0.0:
                        continue
                    rw[1] = w
                    px, thr = _scan_rule_on(X, samples, rf, rw, node_labels, node_weight, w0,
                                            w1, values)
                    if px > best:
                        best = px
                        best_w = w
                        best_thr = thr
                best_first, best_second = j, k
        if best > -np.inf:
            proxy[item] = best
            loss[item] = w_total - best
            first[item] = best_first
            second[item] = best_second
            w_second[item] = best_w
            thresholds[item] = best_thr
    return proxy, loss, first, second, w_second, thresholds


def all_items(n_nodes, n_items_per_node):
    """``(item_node, item_index)`` listing every item of every node, node by node."""
    item_node = np.repeat(np.arange(n_nodes, dtype=np.int64), n_items_per_node)
    item_index = np.tile(np.arange(n_items_per_node, dtype=np.int64), n_nodes)
    return item_node, item_index


@njit(parallel=True, **NUMBA_OPTS)
def rule_errors(X, care_samples, care_labels, care_weights, offsets, rule_node,
                rule_features, rule_weights, rule_threshold):
    """Weighted pseudolabel error of rules on their nodes' care samples, both ways round.

    Rule ``q`` is evaluated on node ``rule_node[q]``. ``keep[q]``: samples going
    left should prefer the left child; ``flip[q]``: the children swapped. Both
    are summed in sample order, so one partition always gets the same value.
    """
    n_rules = rule_node.shape[0]
    keep = np.zeros(n_rules)
    flip = np.zeros(n_rules)
    for q in prange(n_rules):
        r = rule_node[q]
        e_keep = 0.0
        e_flip = 0.0
        for p in range(offsets[r], offsets[r + 1]):
            i = care_samples[p]
            go_left = project_row(X, i, rule_features[q], rule_weights[q]) <= rule_threshold[q]
            if go_left == (care_labels[p] == 0):
                e_flip += care_weights[p]
            else:
                e_keep += care_weights[p]
        keep[q] = e_keep
        flip[q] = e_flip
    return keep, flip
