"""Evaluating node tests: the one definition of "goes left".

A node is either linear or categorical:

* **linear**: a sample goes left iff ``sum_k weights[k] * v_k <= threshold``
  over the used slots (slots with feature ``-1`` are unused), where ``v_k`` is
  the slot's feature value ``x[features[k]]``, or, for a slot with a nonzero
  ``category_mask[k]`` (an *indicator slot*), the indicator of that category
  set: 1 if the feature's code is in the set, 0 if it is any other value
  (:func:`in_category_set`). A linear node with an indicator slot tests, for
  instance, ``x7 + 0.3 * [colour in {red, blue}] <= 2``; with two, a boolean
  combination of two category sets;
* **categorical**: a node whose one used slot has a nonzero mask tests the one
  feature ``f = features[0]``, whose values are category codes, and a sample
  goes left iff its code ``c = x[f]`` is an integer in ``[0, 63]`` whose bit
  ``1 << c`` is set in the 64-bit mask ``category_mask[0]``. Any other value (a
  code never seen at fit, a code outside ``[0, 63]``, a fraction) goes right.
  Its weight and threshold are not read.

**Missing values.** A sample is *missing* at a node when the node's value for
it is NaN: for a linear node the sum (NaN exactly when one of the used
features is NaN, the data being finite otherwise; an indicator of a NaN code is
NaN), for a categorical node the code. Every decision node stores the side a
missing sample takes, ``missing_left`` (learned at fit, see
:mod:`bivtree.growing`). Non-missing samples are tested as before, so a tree
fitted on data without NaN routes every complete row exactly as it did before
missing values were supported.

:func:`goes_left` is that decision, and growth (:func:`partition_samples`),
prediction (:func:`apply_rows`, :func:`decision_path_rows`) and the splitters'
final checks all call it (or :func:`project_row`, its linear part without
indicator slots), so the value a split was chosen on and the value the stored
rule computes are the same floating-point number: the rule routes each
training sample exactly as the search decided. (A search over indicator
columns, :mod:`bivtree.splitters._categorical`, scans columns holding exactly
the 0, 1 and NaN values that :func:`slot_value` computes.)
"""

import math

import numpy as np
from numba import njit, prange

from .._config import NUMBA_OPTS
from .criteria import summarize_samples

#: largest category code a categorical node can hold (one bit of a uint64 each).
MAX_CATEGORY = 63


@njit(inline="always", **NUMBA_OPTS)
def project_row(X, i, features, weights):
    """``sum_k weights[k] * X[i, features[k]]`` over the used slots, in slot order.

    Used slots come first (:class:`bivtree.tree.Tree` checks it), so skipping
    the unused ones gives the same sum, term by term, as stopping at the first;
    a loop without ``break`` compiles to code about ten times faster, and this
    function is the innermost loop of every projection scan.
    """
    s = 0.0
    for k in range(features.shape[0]):
        f = features[k]
        if f >= 0:
            s += weights[k] * X[i, f]
    return s


@njit(inline="always", **NUMBA_OPTS)
def in_category_set(code, category_mask):
    """Whether ``code`` is an integer in ``[0, 63]`` whose bit is set in ``category_mask``.

    NaN fails every comparison, so it is never in the set.
    """
    if code >= 0.0 and code <= 63.0 and code == np.floor(code):
        return (category_mask >> np.uint64(code)) & np.uint64(1) != np.uint64(0)
    return False


@njit(inline="always", **NUMBA_OPTS)
def slot_value(x, category_mask):
    """The value a slot reads: ``x``, or for an indicator slot (``category_mask`` != 0) 1.0
    when ``x`` is a code in the set and 0.0 otherwise; NaN stays NaN (missing)."""
    if category_mask == np.uint64(0) or math.isnan(x):
        return x
    return 1.0 if in_category_set(x, category_mask) else 0.0


@njit(inline="always", **NUMBA_OPTS)
def goes_left(X, i, features, weights, threshold, category_mask, missing_left):
    """Whether row ``i`` of ``X`` goes to the left child of a node.

    ``category_mask`` (uint64, one entry per slot) is all zeros for a linear
    node without indicator slots, whose test is ``project_row(...) <= threshold``
    exactly as before categorical features existed. A node whose only used
    slot has a nonzero mask is categorical (its ``threshold`` and ``weights``
    are not read); otherwise nonzero masks mark indicator slots. A sample whose
    node value is NaN (a missing value in a feature the node uses) goes left iff
    ``missing_left``.
    """
    if category_mask[0] != np.uint64(0) and (features.shape[0] < 2 or features[1] < 0):
        code = X[i, features[0]]
        if math.isnan(code):
            return missing_left
        return in_category_set(code, category_mask[0])
    s = 0.0
    for k in range(features.shape[0]):
        f = features[k]
        if f >= 0:
            s += weights[k] * slot_value(X[i, f], category_mask[k])
    if s <= threshold:
        return True
    # NaN fails the comparison above: only then is the missing side read
    return missing_left and math.isnan(s)


@njit(**NUMBA_OPTS)
def rows_missing(X, samples, features):
    """Whether any of ``samples`` has NaN in one of the used ``features`` (``-1``: unused)."""
    for p in range(samples.shape[0]):
        i = samples[p]
        for k in range(features.shape[0]):
            f = features[k]
            if f >= 0 and math.isnan(X[i, f]):
                return True
    return False


@njit(**NUMBA_OPTS)
def project_samples(X, samples, features, weights, out):
    """Write the projection of each sample in ``samples`` to ``out``."""
    for p in range(samples.shape[0]):
        out[p] = project_row(X, samples[p], features, weights)


@njit(**NUMBA_OPTS)
def partition_samples(X, samples, start, end, features, weights, threshold, category_mask,
                      missing_left=False):
    """Reorder ``samples[start:end]`` in place: left-going first; return the split point.

    ``category_mask`` (uint64, one entry per slot; zeros: a linear node on the
    features' values) holds the node's category sets and ``missing_left`` the
    side of a missing value, see :func:`goes_left`.
    The order within each side is kept (a stable partition), so a build is
    reproducible whatever the splitter did before.
    """
    n = end - start
    buf = np.empty(n, dtype=samples.dtype)
    n_left = 0
    for p in range(start, end):
        i = samples[p]
        if goes_left(X, i, features, weights, threshold, category_mask, missing_left):
            samples[start + n_left] = i
            n_left += 1
        else:
            buf[p - start - n_left] = i
    for q in range(n - n_left):
        samples[start + n_left + q] = buf[q]
    return start + n_left


@njit(**NUMBA_OPTS)
def split_node_samples(X, samples, start, end, features, weights, threshold, category_mask,
                       missing_left, labels, targets, sample_weight, n_classes, criterion,
                       has_missing):
    """Partition ``samples[start:end]`` by a split and summarize both sides, in one call.

    :func:`partition_samples`, then :func:`~bivtree._kernels.criteria.summarize_samples`
    of each side, and whether a sample of the node misses a used feature
    (:func:`rows_missing`, only looked for when ``has_missing``): what growth
    needs of a split, without returning to Python (where a fit's other growing
    threads may be waiting for the GIL) between the steps.

    Returns
    -------
    mid : int
        Where the right side starts.
    left, right : tuple
        ``(value, weight, impurity)`` of each side.
    missing : bool
    """
    mid = partition_samples(X, samples, start, end, features, weights, threshold,
                            category_mask, missing_left)
    left = summarize_samples(samples[start:mid], labels, targets, sample_weight, n_classes,
                             criterion)
    right = summarize_samples(samples[mid:end], labels, targets, sample_weight, n_classes,
                              criterion)
    missing = has_missing and rows_missing(X, samples[start:end], features)
    return mid, left, right, missing


@njit(parallel=True, **NUMBA_OPTS)
def apply_rows(X, children_left, children_right, features, weights, threshold, category_mask,
               missing_left, out):
    """Leaf id reached by every row of ``X``."""
    for i in prange(X.shape[0]):
        node = 0
        while children_left[node] != -1:
            if goes_left(X, i, features[node], weights[node], threshold[node],
                         category_mask[node], missing_left[node]):
                node = children_left[node]
            else:
                node = children_right[node]
        out[i] = node


@njit(**NUMBA_OPTS)
def decision_path_rows(X, children_left, children_right, features, weights, threshold,
                       category_mask, missing_left, max_len):
    """CSR pieces (indptr, indices) of the nodes each row of ``X`` visits."""
    n = X.shape[0]
    indptr = np.zeros(n + 1, dtype=np.int64)
    indices = np.empty(n * max_len, dtype=np.int64)
    pos = 0
    for i in range(n):
        node = 0
        indices[pos] = 0
        pos += 1
        while children_left[node] != -1:
            if goes_left(X, i, features[node], weights[node], threshold[node],
                         category_mask[node], missing_left[node]):
                node = children_left[node]
            else:
                node = children_right[node]
            indices[pos] = node
            pos += 1
        indptr[i + 1] = pos
    return indptr, indices[:pos]


#: :func:`node_spreads` cuts the rows into blocks of at least this many (one thread walks
#: a block) and merges the blocks' moments in block order
SPREAD_BLOCK_ROWS = 2048
#: at most this many blocks: each holds moments of every node (memory, and the merge)
MAX_SPREAD_BLOCKS = 8


@njit(parallel=True, **NUMBA_OPTS)
def node_spreads(X, sample_weight, children_left, children_right, features, weights, threshold,
                 category_mask, missing_left):
    """Weighted standard deviation of each used slot's value over the rows reaching each node.

    An indicator slot's value is its 0/1 indicator (:func:`slot_value`).

    The rows are cut into at most :data:`MAX_SPREAD_BLOCKS` consecutive blocks
    (their number depends on the rows only, never on the threads); each block
    walks its rows down the tree with Welford's weighted update (stable when a
    feature's values sit far from zero), and the blocks' moments are merged in
    block order (Chan et al.'s pairwise update), so the result is the same for
    any number of threads. No row-by-node table is built: a tree of 10^5 nodes
    on 10^6 rows needs a few tens of megabytes instead of gigabytes. At each node
    only the rows that know every feature of its test count.

    Returns
    -------
    float64 (n_nodes, n_slots)
        ``std[node, s]`` for the feature ``features[node, s]`` of a decision node;
        0 for unused slots, leaves and nodes that no weight reached.
    """
    n_nodes, n_slots = features.shape
    n_rows = X.shape[0]
    n_blocks = max(1, min(MAX_SPREAD_BLOCKS, -(-n_rows // SPREAD_BLOCK_ROWS)))
    w_sum = np.zeros((n_blocks, n_nodes))
    mean = np.zeros((n_blocks, n_nodes, n_slots))
    m2 = np.zeros((n_blocks, n_nodes, n_slots))
    for b in prange(n_blocks):
        block_w, block_mean, block_m2 = w_sum[b], mean[b], m2[b]
        for i in range(b * n_rows // n_blocks, (b + 1) * n_rows // n_blocks):
            w = sample_weight[i]
            node = 0
            while children_left[node] != -1:
                known = w > 0.0
                for s in range(n_slots):
                    f = features[node, s]
                    if f >= 0 and math.isnan(X[i, f]):
                        known = False
                if known:
                    block_w[node] += w
                    share = w / block_w[node]
                    for s in range(n_slots):
                        f = features[node, s]
                        if f >= 0:
                            x = slot_value(X[i, f], category_mask[node, s])
                            delta = x - block_mean[node, s]
                            block_mean[node, s] += share * delta
                            block_m2[node, s] += w * delta * (x - block_mean[node, s])
                if goes_left(X, i, features[node], weights[node], threshold[node],
                             category_mask[node], missing_left[node]):
                    node = children_left[node]
                else:
                    node = children_right[node]
    std = np.zeros((n_nodes, n_slots))
    for node in prange(n_nodes):
        for s in range(n_slots):
            total = w_sum[0, node]
            node_mean = mean[0, node, s]
            node_m2 = m2[0, node, s]
            for b in range(1, n_blocks):
                w_b = w_sum[b, node]
                if w_b > 0.0:
                    merged = total + w_b
                    delta = mean[b, node, s] - node_mean
                    node_mean += delta * (w_b / merged)
                    node_m2 += m2[b, node, s] + delta * delta * (total * w_b / merged)
                    total = merged
            if total > 0.0:
                std[node, s] = np.sqrt(max(node_m2 / total, 0.0))
    return std
