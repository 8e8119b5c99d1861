"""Optimal univariate trees over binned tests: the depth-two solver and the tree builder
against the brute force of ``naive.binned_tree_error`` (every tree of the depth on the
same candidate tests), the tree's routing, missing values and the depth bound."""

import math

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import naive
from bivtree._kernels.depth_two import NO_TEST, best_depth_two, node_tests
from bivtree.optimal_univariate import (
    TIE_TOLERANCE,
    _Search,
    _tree_from_shape,
    candidate_thresholds,
    optimal_univariate_tree,
    threshold_codes,
)

PROPERTY = settings(max_examples=50, deadline=None, derandomize=True)


@st.composite
def tiny_problems(draw, min_samples=5, max_samples=25, max_features=3, max_classes=4,
                  bins=(2, 3, 4, 32), missing=True, distinct_share=0.5):
    """A small weighted classification problem with ties and duplicated rows.

    Rows are drawn from a pool of distinct rows of small integers (NaN among them
    when ``missing``; at least ``distinct_share`` of the rows in the pool), so rows
    repeat, possibly with different labels; the weights take a few values, so
    errors tie.
    """
    n = draw(st.integers(min_samples, max_samples))
    p = draw(st.integers(1, max_features))
    k = draw(st.integers(2, max_classes))
    cell = st.integers(0, 6).map(float)
    if missing:
        cell = st.one_of(cell, cell, cell, cell, cell, st.just(math.nan))
    pool = draw(st.lists(st.lists(cell, min_size=p, max_size=p),
                        min_size=max(2, int(distinct_share * n)), max_size=n))
    rows = draw(st.lists(st.integers(0, len(pool) - 1), min_size=n, max_size=n))
    X = np.array([pool[r] for r in rows], dtype=float)
    y = np.array(draw(st.lists(st.integers(0, k - 1), min_size=n, max_size=n)))
    w = np.array(draw(st.lists(st.sampled_from([0.5, 1.0, 1.0, 2.0, 3.0]), min_size=n,
                               max_size=n)))
    return X, y, w, k, draw(st.sampled_from(bins))


def routed_error(tree, classes, X, y, w):
    """Weight of the samples whose leaf (``Tree.apply``) predicts another class."""
    predicted = classes[np.argmax(tree.value[tree.apply(X)], axis=1)]
    return float(w[predicted != y].sum())


def plain_leaf(tree, x):
    """The leaf ``x`` reaches, walking the tree in plain Python (NaN goes right)."""
    node = 0
    while tree.children_left[node] != -1:
        value = x[tree.features[node, 0]]
        left = not math.isnan(value) and value <= tree.threshold[node]
        node = tree.children_left[node] if left else tree.children_right[node]
    return node


def check_univariate_tree(fit, X, y, w, max_depth, thresholds):
    """The fit's tree: within the depth, univariate on candidate thresholds, routing the
    training samples as scored, NaN going right, node statistics from its samples."""
    tree = fit.tree
    assert tree.max_depth <= max_depth
    internal = ~tree.is_leaf
    assert np.all(tree.weights[internal, 0] == 1.0) and np.all(tree.features[:, 1] == -1)
    for node in np.flatnonzero(internal):
        assert tree.threshold[node] in thresholds[tree.features[node, 0]]
    assert not tree.missing_go_left.any() and tree.missing_learned
    leaves = tree.apply(X)
    assert leaves.tolist() == [plain_leaf(tree, x) for x in X]
    assert routed_error(tree, fit.classes, X, y, w) == pytest.approx(fit.misclassification,
                                                                     abs=1e-9)
    leaf_weight = np.bincount(leaves, weights=w, minlength=tree.node_count)
    np.testing.assert_allclose(tree.weighted_n_node_samples[tree.is_leaf],
                               leaf_weight[tree.is_leaf])
    assert np.all(tree.n_node_samples > 0)


def solve_depth_two(X, y, w, k, max_bins, depth):
    """The kernel's answer over every sample, on the candidate tests."""
    codes, offsets = threshold_codes(X, candidate_thresholds(X, w, max_bins))
    samples = np.arange(X.shape[0], dtype=np.int64)
    return best_depth_two(codes, offsets, samples, y.astype(np.int64), w, k, depth,
                          TIE_TOLERANCE * w.sum())


# ------------------------------------------------------------------ thresholds
def test_candidate_thresholds_are_every_midpoint_below_max_bins_distinct_values():
    X = np.array([[3.0, 1.0], [1.0, 1.0], [2.0, np.nan], [3.0, 1.0]])
    thresholds = candidate_thresholds(X, max_bins=3)
    np.testing.assert_array_equal(thresholds[0], [1.5, 2.5])
    assert thresholds[1].size == 0


def test_candidate_thresholds_fall_at_weighted_quantiles():
    values = np.arange(100.0)[:, None]
    np.testing.assert_array_equal(candidate_thresholds(values, max_bins=4)[0],
                                  [24.5, 49.5, 74.5])
    # value 0 holds most of the weight: the quantile cuts all fall right after it
    weights = np.ones(100)
    weights[0] = 1000.0
    np.testing.assert_array_equal(candidate_thresholds(values, weights, max_bins=4)[0], [0.5])


@PROPERTY
@given(data=st.data())
def test_candidate_thresholds_are_at_most_max_bins_minus_one_midpoints(data):
    n = data.draw(st.integers(2, 60))
    X = np.array(data.draw(st.lists(st.integers(-20, 20), min_size=n, max_size=n)),
                 dtype=float)[:, None] / 4.0
    w = np.array(data.draw(st.lists(st.floats(0.1, 5.0), min_size=n, max_size=n)))
    max_bins = data.draw(st.integers(2, 12))
    cuts = candidate_thresholds(X, w, max_bins)[0]
    distinct = np.unique(X)
    assert cuts.size <= max_bins - 1 and np.all(np.diff(cuts) > 0)
    if distinct.size <= max_bins:
        np.testing.assert_array_equal(cuts, (distinct[:-1] + distinct[1:]) / 2.0)
    position = np.searchsorted(distinct, cuts)
    np.testing.assert_array_equal(cuts, (distinct[position - 1] + distinct[position]) / 2.0)


# ----------------------------------------------------------------- the solver
@PROPERTY
@given(problem=tiny_problems())
def test_depth_two_error_equals_brute_force_over_every_depth_two_tree(problem):
    X, y, w, k, max_bins = problem
    thresholds = candidate_thresholds(X, w, max_bins)
    brute = naive.binned_tree_error(X, y, w, thresholds, 2, k)
    assert solve_depth_two(X, y, w, k, max_bins, 2).error == pytest.approx(brute, abs=1e-9)
    fit = optimal_univariate_tree(X, y, max_depth=2, sample_weight=w, max_bins=max_bins)
    assert fit.exact
    assert fit.misclassification == pytest.approx(brute, abs=1e-9)
    check_univariate_tree(fit, X, y, w, 2, thresholds)


@PROPERTY
@given(problem=tiny_problems())
def test_depth_one_equals_best_single_binned_split(problem):
    X, y, w, k, max_bins = problem
    brute = naive.binned_tree_error(X, y, w, candidate_thresholds(X, w, max_bins), 1, k)
    assert solve_depth_two(X, y, w, k, max_bins, 1).error == pytest.approx(brute, abs=1e-9)
    fit = optimal_univariate_tree(X, y, max_depth=1, sample_weight=w, max_bins=max_bins)
    assert fit.misclassification == pytest.approx(brute, abs=1e-9)
    assert fit.tree.node_count in (1, 3)


@PROPERTY
@given(problem=tiny_problems(missing=False, bins=(32,)))
def test_depth_one_with_every_midpoint_equals_cart_best_misclassification_split(problem):
    """With every midpoint a candidate, depth one is the best cut of ``naive.best_univariate``
    under misclassification (or the leaf, when no cut does better)."""
    X, y, w, k, _ = problem
    counts = np.bincount(y, weights=w, minlength=k)
    best = min(counts.sum() - counts.max(),
               naive.best_univariate(X, y, w, "misclassification", k))
    fit = optimal_univariate_tree(X, y, max_depth=1, sample_weight=w)
    assert fit.misclassification == pytest.approx(best, abs=1e-9)


@PROPERTY
@given(problem=tiny_problems(min_samples=12, max_classes=3, bins=(3, 4, 5), missing=False,
                             distinct_share=0.7))
def test_depth_three_equals_brute_force_over_every_depth_three_tree(problem):
    X, y, w, k, max_bins = problem
    thresholds = candidate_thresholds(X, w, max_bins)
    brute = naive.binned_tree_error(X, y, w, thresholds, 3, k)
    fit = optimal_univariate_tree(X, y, max_depth=3, sample_weight=w, max_bins=max_bins,
                                  search="exact")
    assert fit.exact
    assert fit.misclassification == pytest.approx(brute, abs=1e-9)
    check_univariate_tree(fit, X, y, w, 3, thresholds)
    assert optimal_univariate_tree(X, y, max_depth=3, sample_weight=w,
                                   max_bins=max_bins).misclassification == pytest.approx(brute)


@PROPERTY
@given(problem=tiny_problems(min_samples=12, max_classes=3, bins=(3, 4), missing=True,
                             distinct_share=0.7), depth=st.sampled_from([3, 4, 5]))
def test_exact_search_from_no_bound_equals_brute_force_at_depths_three_to_five(problem, depth):
    """The recursion on its own (``optimal_univariate_tree`` starts it from the greedy
    tree's error, which on tiny data is often already optimal); from depth five the
    memo's lower bounds are used (a depth-three sample set reached by two paths)."""
    X, y, w, k, max_bins = problem
    thresholds = candidate_thresholds(X, w, max_bins)
    codes, offsets = threshold_codes(X, thresholds)
    search = _Search(codes, offsets, y.astype(np.int64), w, k, TIE_TOLERANCE * w.sum(), None)
    found, lower = search.exact(np.arange(X.shape[0], dtype=np.int64), depth, math.inf)
    assert lower == found.error
    brute = naive.binned_tree_error(X, y, w, thresholds, depth, k)
    assert found.error == pytest.approx(brute, abs=1e-9)
    tree, error = _tree_from_shape(found.shape, thresholds, search.test_feature,
                                   search.test_index, X, y, w, k)
    assert tree.max_depth <= depth and error == pytest.approx(brute, abs=1e-9)


def test_node_tests_keep_the_lowest_test_of_each_distinct_partition():
    X = np.array([[0.0], [0.0], [5.0], [9.0], [np.nan]])
    thresholds = [np.array([-1.0, 1.0, 2.0, 6.0, 10.0])]
    codes, offsets = threshold_codes(X, thresholds)
    assert codes[:, 0].tolist() == [1, 1, 3, 4, 5]
    # test 0 sends nothing left, 2 partitions as 1 does; 4 sends every known value left
    # but the NaN right, so it stays
    assert node_tests(codes, offsets, np.arange(5)).tests.tolist() == [1, 3, 4]
    assert node_tests(codes, offsets, np.arange(4)).tests.tolist() == [1, 3]


# ------------------------------------------------------------ missing values
def test_missing_values_go_right_at_every_node():
    X = np.array([[np.nan, 1.0], [0.0, np.nan], [1.0, 0.0], [2.0, 1.0], [np.nan, np.nan],
                  [3.0, 0.0], [0.5, 1.0]])
    y = np.array([1, 1, 0, 0, 1, 0, 0])
    fit = optimal_univariate_tree(X, y, max_depth=2)
    tree = fit.tree
    assert tree.node_count > 1 and fit.misclassification == 0.0
    assert not tree.missing_go_left.any()
    check_univariate_tree(fit, X, y, np.ones(len(y)), 2, candidate_thresholds(X))
    leaves = tree.apply(X)
    assert leaves[4] == plain_leaf(tree, np.array([np.nan, np.nan]))
    # the all-missing row fails every test: it reaches the rightmost leaf
    node = 0
    while tree.children_left[node] != -1:
        node = tree.children_right[node]
    assert leaves[4] == node


# --------------------------------------------------------- depth and search
@pytest.mark.parametrize("search", ["auto", "exact", "greedy"])
@pytest.mark.parametrize("max_depth", [0, 1, 2, 3, 4])
def test_tree_is_never_deeper_than_max_depth(max_depth, search):
    rng = np.random.default_rng(max_depth)
    X = rng.integers(0, 5, size=(40, 3)).astype(float)
    y = (X[:, 0] + X[:, 1] * X[:, 2] + rng.integers(0, 3, size=40)) % 3
    fit = optimal_univariate_tree(X, y, max_depth=max_depth, max_bins=4, search=search)
    check_univariate_tree(fit, X, y, np.ones(40), max_depth, candidate_thresholds(X,
                                                                                  max_bins=4))
    assert fit.exact == (max_depth <= 2 or search != "greedy")


def test_greedy_deep_tree_lies_between_exact_and_depth_two():
    rng = np.random.default_rng(0)
    X = rng.normal(size=(120, 3))
    y = ((X[:, 0] > 0) ^ (X[:, 1] > 0.3) ^ (X[:, 2] > -0.2)).astype(int)
    options = {"max_bins": 6}
    two = optimal_univariate_tree(X, y, max_depth=2, **options).misclassification
    greedy = optimal_univariate_tree(X, y, max_depth=3, search="greedy", **options)
    exact = optimal_univariate_tree(X, y, max_depth=3, search="exact", **options)
    assert not greedy.exact and exact.exact
    assert exact.misclassification <= greedy.misclassification <= two


def test_time_limit_returns_an_inexact_tree_within_depth():
    X, y = _large_problem()
    fit = optimal_univariate_tree(X, y, max_depth=4, search="exact", time_limit=0.05,
                                  max_bins=8)
    assert not fit.exact and fit.tree.max_depth <= 4
    greedy = optimal_univariate_tree(X, y, max_depth=4, search="greedy", max_bins=8)
    assert fit.misclassification <= greedy.misclassification + 1e-9


def _large_problem():
    rng = np.random.default_rng(1)
    X = rng.normal(size=(300, 6))
    y = (X[:, 0] * X[:, 1] + X[:, 2] > 0).astype(int) + (X[:, 3] > 1)
    return X, y


def test_ties_go_to_fewer_splits_and_the_lowest_test():
    X = np.array([[0.0, 0.0], [1.0, 1.0], [2.0, 2.0], [3.0, 3.0]])
    y = np.array([0, 0, 1, 1])
    fit = optimal_univariate_tree(X, y, max_depth=2)
    # both features separate the classes with one split: feature 0 (lower test ids) wins
    assert fit.tree.node_count == 3 and fit.tree.features[0, 0] == 0
    assert fit.tree.threshold[0] == 1.5
    pure = optimal_univariate_tree(X, np.zeros(4), max_depth=3)
    assert pure.tree.node_count == 1 and pure.misclassification == 0.0
    found = solve_depth_two(X, y, np.ones(4), 2, 32, 2)
    assert (found.n_splits, found.left, found.right) == (1, NO_TEST, NO_TEST)


def test_labels_weights_and_node_statistics():
    X = np.array([[0.0], [1.0], [2.0], [3.0], [4.0]])
    y = np.array(["b", "b", "a", "a", "b"])
    w = np.array([1.0, 2.0, 0.0, 3.0, 0.5])
    fit = optimal_univariate_tree(X, y, max_depth=1, sample_weight=w)
    assert fit.classes.tolist() == ["a", "b"]
    # the zero-weight row takes no part: 4 samples at the root
    assert fit.tree.n_node_samples[0] == 4
    np.testing.assert_allclose(fit.tree.value[0], [3.0, 3.5])
    assert fit.misclassification == pytest.approx(0.5)


@pytest.mark.parametrize(("options", "message"), [
    ({"max_depth": -1}, "max_depth"), ({"max_depth": 2.0}, "max_depth"),
    ({"max_depth": 2, "max_bins": 1}, "max_bins"),
    ({"max_depth": 2, "time_limit": 0}, "time_limit"),
    ({"max_depth": 2, "search": "fast"}, "search"),
    ({"max_depth": 2, "sample_weight": [1.0, -1.0, 1.0]}, "sample_weight"),
    ({"max_depth": 2, "sample_weight": [0.0, 0.0, 0.0]}, "positive total"),
])
def test_bad_options_are_refused(options, message):
    X = np.array([[0.0], [1.0], [2.0]])
    with pytest.raises(ValueError, match=message):
        optimal_univariate_tree(X, [0, 1, 0], **options)


def test_infinite_values_are_refused():
    with pytest.raises(ValueError, match="infinite"):
        optimal_univariate_tree(np.array([[0.0], [np.inf]]), [0, 1], max_depth=1)
