"""The best classification tree of depth at most two over binary threshold tests.

The tests are binned univariate thresholds: feature ``f`` has ``B_f`` sorted
thresholds, numbered ``offsets[f] .. offsets[f + 1] - 1`` (a *test id*), and a
sample's *code* on ``f`` is the number of thresholds below its value (``B_f``
for a missing value), so it passes the ``j``-th test of ``f`` (``x[f] <= t_j``)
iff ``code <= j``. The tests of one feature are nested, which is what makes the
counting below cheap.

:func:`best_depth_two` is the pairwise-count method of STreeD / MurTree (their
depth-two specialised solver): with, for the node's samples,

* ``S[a, c]``, the weight of class ``c`` passing test ``a``,
* ``C[a, b, c]``, the weight of class ``c`` passing both tests ``a`` and ``b``,
* ``N[c]``, the node's class weights,

the four cells of a root test ``a`` and a child test ``b`` hold ``C[a, b]``,
``S[a] - C[a, b]``, ``S[b] - C[a, b]`` and ``N - S[a] - S[b] + C[a, b]``, so the
best child split below either side of every root test follows from the counts
in ``O(T^2 K)`` for ``T`` tests and ``K`` classes. Because a feature's tests are
nested, ``C`` restricted to the tests of two features ``f`` and ``g`` is the
two-dimensional cumulative sum of the ``(code_f, code_g, class)`` histogram of
the node's samples: ``C`` costs ``O(m p^2 / 2)`` for ``m`` samples and ``p``
features plus ``O(T^2 K / 2)`` for the sums, instead of ``O(m T^2 / 2)`` from
each sample's list of passed tests. Each unordered feature pair is counted once
and its block serves both ways round (tests of ``g`` below roots of ``f`` and
the reverse). ``C`` is never held whole: one pair's histogram (at most
``B^2 K`` floats for ``B`` thresholds per feature) and one row of its
cumulative sum at a time, consumed as it is built, so memory is
``O(B^2 K + T K + m p)`` whatever the number of tests ``T``, with no limit to
refuse at.

Only a node's *effective* tests are counted (:func:`node_tests`): a test that
partitions the node's samples as a lower test of the same feature does, or that
sends every sample left, is dropped (a test sending every sample right has no
sample with a code at or below it, so it is never present). The lowest test of
each distinct partition is kept, so the tie rule is unchanged.

No kernel here is compiled with ``parallel``: the depth-two solve is called many
times from the deeper searches, each call on a few thousand samples at most.
"""

from typing import NamedTuple

import numpy as np
from numba import njit

from .._config import NUMBA_OPTS

#: test id of a leaf (no test).
NO_TEST = -1


class NodeTests(NamedTuple):
    """A node's effective tests.

    ``tests[offsets[f]:offsets[f + 1]]`` are the ids of feature ``f``'s effective
    tests, ascending; ``ranks[f, i]`` is the index (within feature ``f``) of the
    first effective test sample ``i`` passes, or the feature's number of effective
    tests when it passes none.
    """

    tests: np.ndarray
    offsets: np.ndarray
    ranks: np.ndarray


class DepthTwoTree(NamedTuple):
    """A tree of depth at most two: its weighted misclassification ``error``, its
    number of decision nodes ``n_splits``, the ``root`` test and the tests of the
    root's ``left`` and ``right`` children (:data:`NO_TEST`: a leaf)."""

    error: float
    n_splits: int
    root: int
    left: int
    right: int


@njit(**NUMBA_OPTS)
def node_tests(codes, offsets, samples):
    """The effective tests of the node ``samples`` as a :class:`NodeTests`.

    Parameters
    ----------
    codes : int64 (n_samples, n_features)
        Each sample's code per feature (the module docstring).
    offsets : int64 (n_features + 1,)
        First test id of each feature; ``offsets[-1]`` is the number of tests.
    samples : int64 (m,)
    """
    n_features = offsets.shape[0] - 1
    m = samples.shape[0]
    widest = 0
    for f in range(n_features):
        widest = max(widest, offsets[f + 1] - offsets[f])
    present = np.zeros(widest + 1, dtype=np.bool_)
    rank_of_code = np.empty(widest + 1, dtype=np.int64)
    tests = np.empty(offsets[n_features], dtype=np.int64)
    node_offsets = np.zeros(n_features + 1, dtype=np.int64)
    ranks = np.empty((n_features, m), dtype=np.int64)
    n_tests = 0
    for f in range(n_features):
        n_bins = offsets[f + 1] - offsets[f]
        present[:n_bins + 1] = False
        for i in range(m):
            present[codes[samples[i], f]] = True
        last = -1  # the highest present code below n_bins
        for c in range(n_bins):
            if present[c]:
                rank_of_code[c] = n_tests - node_offsets[f]
                tests[n_tests] = offsets[f] + c
                n_tests += 1
                last = c
        if last >= 0 and not present[n_bins]:
            # the highest test sends every sample left: dropped, and the samples
            # that passed only it now pass no effective test of the feature
            n_tests -= 1
            rank_of_code[last] = n_tests - node_offsets[f]
        rank_of_code[n_bins] = n_tests - node_offsets[f]
        node_offsets[f + 1] = n_tests
        for i in range(m):
            ranks[f, i] = rank_of_code[codes[samples[i], f]]
    return NodeTests(tests[:n_tests].copy(), node_offsets, ranks)


@njit(**NUMBA_OPTS)
def _single_counts(tests, node_offsets, ranks, node_labels, node_weight, n_classes):
    """``S[e, c]``: the weight of class ``c`` passing the effective test ``e``."""
    single = np.zeros((tests.shape[0], n_classes), dtype=np.float64)
    for f in range(node_offsets.shape[0] - 1):
        start = node_offsets[f]
        n_f = node_offsets[f + 1] - start
        for i in range(node_labels.shape[0]):
            r = ranks[f, i]
            if r < n_f:
                single[start + r, node_labels[i]] += node_weight[i]
        for e in range(start + 1, start + n_f):  # passing test j = a code at or below j
            for c in range(n_classes):
                single[e, c] += single[e - 1, c]
    return single


@njit(inline="always", **NUMBA_OPTS)
def _leaf(counts):
    """Weight and correctly classified weight (the heaviest class's) of a leaf with
    class weights ``counts``."""
    total = 0.0
    largest = 0.0
    for c in range(counts.shape[0]):
        total += counts[c]
        largest = max(largest, counts[c])
    return total, largest


@njit(**NUMBA_OPTS)
def _children_as_leaves(single, class_totals, child_weight, child_correct):
    """Weight and correctly classified weight of both children, as leaves, of every
    effective test (row ``e``: left, right)."""
    right = np.empty(class_totals.shape[0], dtype=np.float64)
    for a in range(single.shape[0]):
        child_weight[a, 0], child_correct[a, 0] = _leaf(single[a])
        for c in range(class_totals.shape[0]):
            right[c] = class_totals[c] - single[a, c]
        child_weight[a, 1], child_correct[a, 1] = _leaf(right)


@njit(inline="always", **NUMBA_OPTS)
def _cumulative_row(hist, j, n_g, previous, current):
    """Row ``j`` of the 2-D cumulative sum of ``hist`` into ``current``, from row
    ``j - 1`` in ``previous``."""
    for c in range(hist.shape[2]):
        running = 0.0
        for l in range(n_g):
            running += hist[j, l, c]
            current[l, c] = previous[l, c] + running


# inlined, and the best splits below the roots of g kept in arrays of the call
# (column_*) while it runs: written straight into best_correct / best_test in this
# loop, the kernel ran several times slower
@njit(inline="always", **NUMBA_OPTS)
def _offer_row(both_counts, single, class_totals, a, start_g, n_g, tol, best_correct,
               best_test, below_g, column_correct, column_bar, column_test):
    """Offer the tests ``b = start_g + l`` as child splits below the root ``a`` and,
    when ``below_g``, ``a`` below each ``b`` (:func:`_pair_children`).

    ``both_counts[l]`` is ``C`` of ``a`` and ``b``; ``column_correct[side, l]`` /
    ``column_test[side, l]`` hold the best split so far of root ``b``'s child
    ``side`` and ``column_bar`` its correctly classified weight plus ``tol``.
    """
    n_classes = class_totals.shape[0]
    left_correct = best_correct[a, 0]
    right_correct = best_correct[a, 1]
    left_bar = left_correct + tol
    right_bar = right_correct + tol
    left_test = best_test[a, 0]
    right_test = best_test[a, 1]
    for l in range(n_g):
        b = start_g + l
        m_both = 0.0
        m_only_a = 0.0
        m_only_b = 0.0
        m_neither = 0.0
        for c in range(n_classes):
            both = both_counts[l, c]
            only_b = single[b, c] - both
            m_both = max(m_both, both)
            m_only_a = max(m_only_a, single[a, c] - both)
            m_only_b = max(m_only_b, only_b)
            m_neither = max(m_neither, class_totals[c] - single[a, c] - only_b)
        if m_both + m_only_a > left_bar:
            left_correct = m_both + m_only_a
            left_bar = left_correct + tol
            left_test = b
        if m_only_b + m_neither > right_bar:
            right_correct = m_only_b + m_neither
            right_bar = right_correct + tol
            right_test = b
        if below_g:
            if m_both + m_only_b > column_bar[0, l]:
                column_correct[0, l] = m_both + m_only_b
                column_bar[0, l] = column_correct[0, l] + tol
                column_test[0, l] = a
            if m_only_a + m_neither > column_bar[1, l]:
                column_correct[1, l] = m_only_a + m_neither
                column_bar[1, l] = column_correct[1, l] + tol
                column_test[1, l] = a
    best_correct[a, 0] = left_correct
    best_correct[a, 1] = right_correct
    best_test[a, 0] = left_test
    best_test[a, 1] = right_test


@njit(**NUMBA_OPTS)
def _pair_children(ranks_f, ranks_g, start_f, n_f, start_g, n_g, node_labels, node_weight,
                   single, class_totals, tol, hist, previous, current, best_correct,
                   best_test):
    """Offer every test of feature ``g`` as a child split below every test of ``f``,
    and (``f != g``) every test of ``f`` below every test of ``g``.

    ``C`` of the tests ``a = start_f + j`` and ``b = start_g + l`` is the 2-D
    cumulative sum of the samples' (rank on ``f``, rank on ``g``, class)
    histogram, built row by row (``previous`` / ``current``, ``(n_g, K)``) and
    used as it is built. The four cells hold ``C``, ``S[a] - C``, ``S[b] - C``
    and ``N - S[a] - S[b] + C``: below root ``a`` the left child split by ``b``
    classifies ``max C + max (S[a] - C)`` correctly, the right one
    ``max (S[b] - C) + max (N - S[a] - S[b] + C)``, and below root ``b`` the same
    cells pair the other way. ``best_correct[e, side]`` / ``best_test[e, side]``
    (the effective test index, ``-1`` for the leaf) of root ``e``'s child
    ``side`` are replaced only by a split classifying more than ``tol`` more
    weight correctly: since each root's child tests come in ascending id, the
    leaf and then the lowest test win ties. A child split with an empty side
    classifies exactly what the leaf does, so it never replaces it (the counts'
    rounding stays far below ``tol``).

    ``hist`` is all zeros on entry and on return.
    """
    for i in range(node_labels.shape[0]):
        if ranks_f[i] < n_f and ranks_g[i] < n_g:
            hist[ranks_f[i], ranks_g[i], node_labels[i]] += node_weight[i]
    below_g = start_f != start_g
    column_correct = np.empty((2, n_g), dtype=np.float64)
    column_bar = np.empty((2, n_g), dtype=np.float64)
    column_test = np.empty((2, n_g), dtype=np.int64)
    for side in range(2):
        for l in range(n_g):
            column_correct[side, l] = best_correct[start_g + l, side]
            column_bar[side, l] = column_correct[side, l] + tol
            column_test[side, l] = best_test[start_g + l, side]
    previous[:n_g, :] = 0.0
    for j in range(n_f):
        # the two row buffers alternate (row j - 1 is read while row j is written)
        if j % 2 == 0:
            _cumulative_row(hist, j, n_g, previous, current)
            _offer_row(current, single, class_totals, start_f + j, start_g, n_g, tol,
                       best_correct, best_test, below_g, column_correct, column_bar,
                       column_test)
        else:
            _cumulative_row(hist, j, n_g, current, previous)
            _offer_row(previous, single, class_totals, start_f + j, start_g, n_g, tol,
                       best_correct, best_test, below_g, column_correct, column_bar,
                       column_test)
    if below_g:
        for side in range(2):
            for l in range(n_g):
                best_correct[start_g + l, side] = column_correct[side, l]
                best_test[start_g + l, side] = column_test[side, l]
    for i in range(node_labels.shape[0]):
        if ranks_f[i] < n_f and ranks_g[i] < n_g:
            hist[ranks_f[i], ranks_g[i], node_labels[i]] = 0.0


@njit(**NUMBA_OPTS)
def best_depth_two(codes, offsets, samples, labels, sample_weight, n_classes, depth, tol):
    """The tree of least weighted misclassification of depth at most ``depth`` (0, 1
    or 2) over the node ``samples``, as a :class:`DepthTwoTree`.

    Every tree is a candidate: a leaf, one split with two leaves, and a root
    split whose children are each a leaf or a split (any test, that of the
    root's feature included). A leaf predicts its heaviest class.

    Ties: a tree replaces the best so far only when its error is lower by more
    than ``tol``, or equal within ``tol`` with fewer splits; the leaf comes
    first, then the root tests in ascending id, and below each root a child
    split replaces the leaf (then a lower test) only when lower by more than
    ``tol``. So equal errors go to the fewest splits, then the lowest root test,
    then the lowest child tests. ``tol`` absorbs the rounding of the counts'
    differences; a tree within ``tol`` of the optimum may be returned.

    Parameters
    ----------
    codes : int64 (n_samples, n_features)
    offsets : int64 (n_features + 1,)
        The tests (module docstring).
    samples : int64 (m,)
        The node's samples.
    labels : int64 (n_samples,)
        Class codes ``0 .. n_classes - 1``.
    sample_weight : float64 (n_samples,)
        Non-negative weights.
    n_classes : int
    depth : int
        At most 2; 0 gives the leaf.
    tol : float
        Tie tolerance (absolute, in weight units).

    Returns
    -------
    DepthTwoTree
        Test ids are those of ``offsets``.
    """
    m = samples.shape[0]
    node_labels = np.empty(m, dtype=np.int64)
    node_weight = np.empty(m, dtype=np.float64)
    class_totals = np.zeros(n_classes, dtype=np.float64)
    for i in range(m):
        node_labels[i] = labels[samples[i]]
        node_weight[i] = sample_weight[samples[i]]
        class_totals[node_labels[i]] += node_weight[i]
    total, correct = _leaf(class_totals)
    best = DepthTwoTree(total - correct, 0, NO_TEST, NO_TEST, NO_TEST)
    if depth <= 0 or m == 0:
        return best
    found = node_tests(codes, offsets, samples)
    tests, node_offsets, ranks = found.tests, found.offsets, found.ranks
    single = _single_counts(tests, node_offsets, ranks, node_labels, node_weight, n_classes)
    n_tests = tests.shape[0]
    child_weight = np.empty((n_tests, 2), dtype=np.float64)
    child_correct = np.empty((n_tests, 2), dtype=np.float64)
    child_test = np.full((n_tests, 2), -1, dtype=np.int64)
    _children_as_leaves(single, class_totals, child_weight, child_correct)
    n_features = node_offsets.shape[0] - 1
    if depth >= 2:
        widest = 0
        for f in range(n_features):
            widest = max(widest, node_offsets[f + 1] - node_offsets[f])
        hist = np.zeros((widest, widest, n_classes), dtype=np.float64)
        previous = np.empty((widest, n_classes), dtype=np.float64)
        current = np.empty((widest, n_classes), dtype=np.float64)
        # pairs f <= g in this order bring each root's child tests in ascending id
        for f in range(n_features):
            for g in range(f, n_features):
                start_f, start_g = node_offsets[f], node_offsets[g]
                _pair_children(ranks[f], ranks[g], start_f, node_offsets[f + 1] - start_f,
                               start_g, node_offsets[g + 1] - start_g, node_labels,
                               node_weight, single, class_totals, tol, hist, previous,
                               current, child_correct, child_test)
    for a in range(n_tests):
        if child_weight[a, 0] <= tol or child_weight[a, 1] <= tol:
            continue  # the root test sends (almost) nothing to a side
        error = total - child_correct[a, 0] - child_correct[a, 1]
        n_splits = 1 + (child_test[a, 0] >= 0) + (child_test[a, 1] >= 0)
        if error < best.error - tol or (error <= best.error + tol
                                        and n_splits < best.n_splits):
            left = tests[child_test[a, 0]] if child_test[a, 0] >= 0 else NO_TEST
            right = tests[child_test[a, 1]] if child_test[a, 1] >= 0 else NO_TEST
            best = DepthTwoTree(error, n_splits, tests[a], left, right)
    return best
