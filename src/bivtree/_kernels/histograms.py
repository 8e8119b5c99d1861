"""Per-partition statistics of a level of the distributed fit (:mod:`bivtree.dask`).

Each partition of the data routes its rows through the partial tree (the leaf
each row reaches, :func:`~bivtree._kernels.traversal.apply_rows`) and adds every
row of an *open* node (a node searched at this level) to histograms of that
node; the driver sums the partitions' histograms and scans their bin edges.
A histogram cell holds, per bin, the row count of each class (classification)
or ``[count, sum y, sum y^2]`` (regression): ``n_stats`` numbers. The last bin
of every histogram holds the rows whose value is missing (NaN), so the driver
can score them on either side of every cut.

A row's bin is the number of edges below its value (a binary search), so bin
``b`` holds the values ``v`` with ``edges[b - 1] < v <= edges[b]``: a row is in
a bin at most ``b`` iff ``v <= edges[b]``, the stored test's own comparison.
Projections are computed by :func:`~bivtree._kernels.traversal.project_row`,
the routing code's arithmetic, so a threshold taken from the edges routes each
row to the side whose histogram counted it.

Every loop writes only its own arrays, in row order: the result depends on the
partition alone, and the driver sums partitions in a fixed order.
"""

import math

import numpy as np
from numba import njit

from .._config import NUMBA_OPTS
from .traversal import goes_left, project_row, slot_value


@njit(inline="always", **NUMBA_OPTS)
def edges_below(edges, start, end, value):
    """Number of ``edges[start:end]`` (ascending) strictly below ``value``."""
    lo = start
    hi = end
    while lo < hi:
        mid = (lo + hi) >> 1
        if edges[mid] < value:
            lo = mid + 1
        else:
            hi = mid
    return lo - start


@njit(inline="always", **NUMBA_OPTS)
def edges_below_row(edges, row, n_edges, value):
    """Number of ``edges[row, :n_edges]`` (ascending) strictly below ``value`` (no row view:
    a view per row and candidate costs more than the search)."""
    lo = 0
    hi = n_edges
    while lo < hi:
        mid = (lo + hi) >> 1
        if edges[row, mid] < value:
            lo = mid + 1
        else:
            hi = mid
    return lo


@njit(inline="always", **NUMBA_OPTS)
def even_bin(value, lo, scale, last):
    """Bin of ``value`` among equal-width bins from ``lo`` (``scale`` bins per unit),
    clamped to ``[0, last]``."""
    t = (value - lo) * scale
    if t < 1.0:
        return 0
    if t >= last:
        return last
    return int(t)


@njit(inline="always", **NUMBA_OPTS)
def add_row(cell, label, target, regression):
    """Add one row to a histogram cell (``n_stats`` numbers, see the module)."""
    if regression:
        cell[0] += 1.0
        cell[1] += target
        cell[2] += target * target
    else:
        cell[label] += 1.0


@njit(**NUMBA_OPTS)
def feature_histograms(X, leaf, slot_of_node, n_slots, cuts, cut_offsets, categorical, width,
                       labels, targets, n_stats, regression):
    """Histograms of every feature at every open node, and each feature's known range there.

    Parameters
    ----------
    X : float64 (n, n_features)
        The partition's rows (categorical columns hold codes ``0..63``).
    leaf : int64 (n,)
        The node of the partial tree each row reaches.
    slot_of_node : int64 (n_nodes,)
        The open node's index among the level's open nodes, ``-1`` for the
        other nodes (their rows are skipped).
    n_slots : int
        Number of open nodes.
    cuts : float64 (n_cuts,)
        Every numeric feature's bin edges, ascending, feature after feature.
    cut_offsets : int64 (n_features + 1,)
        Feature ``f``'s edges are ``cuts[cut_offsets[f]:cut_offsets[f + 1]]``.
    categorical : bool (n_features,)
        A categorical feature's bin is its code.
    width : int
        Bins per histogram, the last one for missing values.
    labels, targets : (n,)
    n_stats : int
    regression : bool

    Returns
    -------
    hist : float64 (n_slots, n_features, width, n_stats)
    lo, hi : float64 (n_slots, n_features)
        Smallest and largest known value (``+inf`` / ``-inf`` when none).
    """
    n, n_features = X.shape
    hist = np.zeros((n_slots, n_features, width, n_stats))
    lo = np.full((n_slots, n_features), np.inf)
    hi = np.full((n_slots, n_features), -np.inf)
    missing_bin = width - 1
    for i in range(n):
        s = slot_of_node[leaf[i]]
        if s < 0:
            continue
        for f in range(n_features):
            x = X[i, f]
            if math.isnan(x):
                b = missing_bin
            else:
                lo[s, f] = min(lo[s, f], x)
                hi[s, f] = max(hi[s, f], x)
                if categorical[f]:
                    b = int(x)
                else:
                    b = edges_below(cuts, cut_offsets[f], cut_offsets[f + 1], x)
            add_row(hist[s, f, b], labels[i], targets[i], regression)
    return hist, lo, hi


@njit(**NUMBA_OPTS)
def projection_histograms(X, leaf, slot_of_node, candidate_start, features, weights, edges,
                          n_edges, even_lo, even_scale, width, labels, targets, n_stats,
                          regression):
    """Histograms of candidate rules' projections at the open nodes.

    Candidate ``c`` is the rule ``sum_k weights[c, k] * x[features[c, k]]`` of
    the open node whose candidates are ``candidate_start[s] .. candidate_start[s +
    1] - 1``; its bins are cut at ``edges[c, :n_edges[c]]`` (ascending), or,
    where ``even_scale[c] > 0``, are ``n_edges[c] + 1`` equal-width bins from
    ``even_lo[c]`` (``even_scale[c]`` per unit; the first and last take the
    values beyond): a bin in one step instead of a search, for ranking many
    directions as the in-memory coarse phase ranks them
    (:func:`~bivtree._kernels.angle_search.binned_proxy`). Its bin edges are
    then ``even_lo + (b + 1) / even_scale`` up to rounding at the boundaries,
    so only the exact edges make thresholds.

    Returns
    -------
    hist : float64 (n_candidates, width, n_stats)
        The last bin counts the rows whose projection is NaN (missing).
    """
    n_candidates = features.shape[0]
    hist = np.zeros((n_candidates, width, n_stats))
    missing_bin = width - 1
    for i in range(X.shape[0]):
        s = slot_of_node[leaf[i]]
        if s < 0:
            continue
        for c in range(candidate_start[s], candidate_start[s + 1]):
            v = project_row(X, i, features[c], weights[c])
            if math.isnan(v):
                b = missing_bin
            elif even_scale[c] > 0.0:
                b = even_bin(v, even_lo[c], even_scale[c], n_edges[c])
            else:
                b = edges_below_row(edges, c, n_edges[c], v)
            add_row(hist[c, b], labels[i], targets[i], regression)
    return hist


@njit(**NUMBA_OPTS)
def node_slot_moments(X, children_left, children_right, features, weights, threshold,
                      category_mask, missing_left, shift):
    """Count, sum and sum of squares of every slot's value over the rows reaching each node.

    As :func:`~bivtree._kernels.traversal.node_spreads`, a node counts only the
    rows that know every feature of its test, and an indicator slot reads its
    0/1 value; a numeric slot reads ``x - shift[f]`` (a value near the
    feature's mean keeps the sum of squares free of cancellation). Sums of
    partitions add up; the driver turns them into standard deviations.

    Returns
    -------
    count : float64 (n_nodes,)
    total, squares : float64 (n_nodes, n_slots)
    """
    n_nodes, n_slots = features.shape
    count = np.zeros(n_nodes)
    total = np.zeros((n_nodes, n_slots))
    squares = np.zeros((n_nodes, n_slots))
    for i in range(X.shape[0]):
        node = 0
        while children_left[node] != -1:
            known = True
            for s in range(n_slots):
                f = features[node, s]
                if f >= 0 and math.isnan(X[i, f]):
                    known = False
            if known:
                count[node] += 1.0
                for s in range(n_slots):
                    f = features[node, s]
                    if f >= 0:
                        mask = category_mask[node, s]
                        x = slot_value(X[i, f], mask)
                        if mask == np.uint64(0):
                            x -= shift[f]
                        total[node, s] += x
                        squares[node, s] += x * x
            if goes_left(X, i, features[node], weights[node], threshold[node],
                         category_mask[node], missing_left[node]):
                node = children_left[node]
            else:
                node = children_right[node]
    return count, total, squares
