"""BIT1 (``splitter="hillclimb"``) and BIT2 (``"diagonal"``) of Bioch, van der Meer & Potharst."""

import numpy as np
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

import naive
from bivtree import BivariateTreeClassifier, BivariateTreeRegressor
from bivtree._config import CLASSIFICATION_CRITERIA, REGRESSION_CRITERIA
from bivtree._kernels.scan import gather_node
from bivtree.splitters import SplitData, get_splitter
from bivtree.splitters.hillclimb import (
    DEFAULT_GAMMAS,
    HillClimbSplitter,
    best_coordinate_step,
    climb_pair,
    node_median_iqr_scaling,
    ordered_pairs,
    weighted_quantile,
)
from bivtree.splitters.univariate import best_univariate_split

CRITERIA = {**CLASSIFICATION_CRITERIA, **REGRESSION_CRITERIA}


def split_data(X, y, w=None, criterion="gini", min_samples_leaf=1):
    X = np.asfortranarray(X, dtype=np.float64)
    w = np.ones(X.shape[0]) if w is None else np.ascontiguousarray(w, dtype=np.float64)
    code = CRITERIA[criterion]
    if criterion == "squared_error":
        return SplitData(X, np.zeros(len(y), dtype=np.int64), np.asarray(y, float), w, 1, code,
                         min_samples_leaf)
    y = np.asarray(y, dtype=np.int64)
    return SplitData(X, y, np.zeros(len(y)), w, int(y.max()) + 1, code, min_samples_leaf)


def bioch_data(n, seed, grid=False):
    """Bioch et al. section 4: six features, ``yes`` iff (x1 <= x2) and (x4 <= x6)."""
    rng = np.random.default_rng(seed)
    if grid:  # values k / 10 with 0 and 1 in every column, so [0, 1] scaling is the identity
        X = rng.integers(0, 11, size=(n, 6)) / 10.0
        X[0], X[1] = 0.0, 1.0
    else:
        X = rng.uniform(size=(n, 6))
    y = ((X[:, 0] <= X[:, 1]) & (X[:, 3] <= X[:, 5])).astype(int)
    return X, y


def bivariate_nodes(tree):
    internal = np.flatnonzero(~tree.is_leaf)
    return [(tuple(tree.features[i]), tree.weights[i], tree.threshold[i]) for i in internal]


# ------------------------------------------------------------ Bioch's synthetic rule
def test_bit1_finds_the_two_bivariate_tests():
    X, y = bioch_data(400, seed=0)
    clf = BivariateTreeClassifier(splitter="hillclimb").fit(X, y)
    assert clf.get_n_leaves() == 3
    assert clf.score(X, y) == 1.0
    nodes = bivariate_nodes(clf.tree_)
    assert sorted(f for f, _, _ in nodes) == [(0, 1), (3, 5)]
    for _, weights, threshold in nodes:
        # x_i - x_j <= 0 up to the resolution of 400 samples
        assert weights[0] == 1.0
        assert abs(weights[1] + 1.0) < 0.1
        assert abs(threshold) < 0.05
    X_test, y_test = bioch_data(5000, seed=1)
    assert clf.score(X_test, y_test) > 0.97


def test_bit2_represents_the_rule_exactly():
    X, y = bioch_data(400, seed=2, grid=True)
    clf = BivariateTreeClassifier(splitter="diagonal").fit(X, y)
    assert clf.get_n_leaves() == 3
    nodes = bivariate_nodes(clf.tree_)
    assert sorted(f for f, _, _ in nodes) == [(0, 1), (3, 5)]
    for _, weights, threshold in nodes:
        np.testing.assert_array_equal(weights, [1.0, -1.0])
        assert 0.0 <= threshold < 0.1
    # every point of the grid is classified by the rule itself
    grid = np.array(np.meshgrid(*[np.arange(11) / 10.0] * 2)).reshape(2, -1).T
    X_all = np.zeros((grid.shape[0], 6))
    X_all[:, [0, 1]] = grid
    X_all[:, [3, 5]] = grid[::-1]
    rule = (X_all[:, 0] <= X_all[:, 1]) & (X_all[:, 3] <= X_all[:, 5])
    np.testing.assert_array_equal(clf.predict(X_all), rule.astype(int))


# ------------------------------------------------------------------------ the kernels
@pytest.mark.parametrize("criterion", ["gini", "entropy", "misclassification",
                                       "squared_error"])
@pytest.mark.parametrize("gamma", [-0.25, 0.0, 0.25])
def test_coordinate_step_matches_brute_force(criterion, gamma):
    rng = np.random.default_rng(3)
    n = 40
    v = rng.normal(size=n)
    z = rng.normal(size=n)
    z[:3] = -gamma  # samples whose side cannot move
    if criterion == "squared_error":
        y = rng.normal(size=n)
        labels, targets, n_classes = np.zeros(n, dtype=np.int64), y, 1
    else:
        y = rng.integers(0, 3, size=n)
        labels, targets, n_classes = y.astype(np.int64), np.zeros(n), 3
    w = rng.uniform(0.5, 2.0, size=n)
    code = CRITERIA[criterion]
    for threshold in (-0.3, 0.0, 0.7):
        g, delta = best_coordinate_step(v, threshold, z, gamma, labels, targets, w, code, 2, 0.0,
                                        np.empty(n_classes), np.empty(n_classes))
        g_ref, _ = naive.cart_lc_step(v, threshold, z, gamma, y, w, criterion,
                                              n_classes, min_samples_leaf=2)
        assert g == pytest.approx(g_ref, rel=1e-9, abs=1e-9)
        left = v - delta * (z + gamma) <= threshold
        assert naive.weighted_child_impurity(left, y, w, criterion, n_classes) == \
            pytest.approx(g_ref, rel=1e-9, abs=1e-9)


@pytest.mark.parametrize("seed", range(6))
def test_climb_matches_the_reference_climb(seed):
    rng = np.random.default_rng(seed)
    n = 60
    zi, zj = rng.normal(size=n), rng.normal(size=n)
    y = ((zi + 0.8 * zj + 0.4 * rng.normal(size=n)) > 0).astype(np.int64)
    w = np.ones(n)
    samples = np.arange(n)
    node_labels, node_targets, node_weight, counts, w_total, t_sum, _ = gather_node(
        samples, y, np.zeros(n), w, 2, 0)
    g, a_i, a_j, _, cycles = climb_pair(zi, zj, np.array([-0.25, 0.0, 0.25]), 1e-3 * n, 20,
                                        node_labels, node_targets, node_weight, counts,
                                        w_total, t_sum, 0, 1, 0.0)
    g_ref, a_ref, b_ref = naive.bit1_pair(zi, zj, y, w, "gini", 2)
    assert cycles >= 1
    assert g == pytest.approx(g_ref, abs=1e-9)
    np.testing.assert_allclose([a_i, a_j], [a_ref, b_ref], rtol=1e-9, atol=1e-12)
    # the climb starts at the best split on zi and never gets worse
    assert g <= naive.best_split_on_values(zi, y, w, "gini", 2) + 1e-12


def test_weighted_quantile_equals_repetition():
    rng = np.random.default_rng(4)
    values = rng.integers(0, 7, size=25).astype(float)
    weights = rng.integers(1, 4, size=25)
    repeated = np.repeat(values, weights)
    for q in (0.25, 0.5, 0.75):
        assert weighted_quantile(values, weights.astype(float), q) == \
            np.quantile(repeated, q, method="inverted_cdf")


def test_median_iqr_scaling():
    X = np.array([[0.0, 5.0, 1.0], [1.0, 5.0, 1.0], [2.0, 5.0, 1.0], [3.0, 5.0, 9.0],
                  [10.0, 5.0, 1.0]])
    offset, inv_scale = node_median_iqr_scaling(np.asfortranarray(X), np.arange(5),
                                                np.arange(3), np.ones(5))
    assert offset[0] == 2.0 and inv_scale[0] == 1.0 / (3.0 - 1.0)
    assert inv_scale[1] == 0.0  # constant: no part in pairs
    assert offset[2] == 1.0 and inv_scale[2] == 1.0 / 8.0  # IQR 0: divided by the range
    f, s = ordered_pairs([1, 4, 6])
    assert list(zip(f, s)) == [(1, 4), (1, 6), (4, 1), (4, 6), (6, 1), (6, 4)]


# --------------------------------------------------------------------- properties
@settings(max_examples=25, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(seed=st.integers(0, 10_000), n=st.integers(4, 30), d=st.integers(1, 4),
       criterion=st.sampled_from(["gini", "entropy", "misclassification", "squared_error"]),
       min_samples_leaf=st.integers(1, 3), weighted=st.booleans())
def test_never_worse_than_univariate_and_rule_routes_as_scored(seed, n, d, criterion,
                                                               min_samples_leaf, weighted):
    rng = np.random.default_rng(seed)
    X = rng.integers(0, 5, size=(n, d)).astype(float) + rng.normal(scale=0.1, size=(n, d))
    X[:, 0] = np.round(X[:, 0])  # some ties
    if criterion == "squared_error":
        y = X[:, 0] - X[:, -1] + rng.normal(size=n)
        n_classes = 1
    else:
        y = rng.integers(0, 3, size=n)
        n_classes = int(y.max()) + 1
    w = rng.uniform(0.2, 3.0, size=n) if weighted else np.ones(n)
    data = split_data(X, y, w, criterion, min_samples_leaf)
    samples = np.arange(n, dtype=np.int64)
    features = np.arange(d, dtype=np.int64)
    split = HillClimbSplitter().find_split(data, samples, features)
    uni_ref = naive.best_univariate(X, y, w, criterion, n_classes, min_samples_leaf)
    if split is None:
        assert uni_ref == np.inf
        return
    assert split.objective <= uni_ref + 1e-9 * max(1.0, abs(uni_ref))
    used = split.features >= 0
    values = X[:, split.features[used]] @ split.weights[used]
    left = values <= split.threshold
    assert min(left.sum(), (~left).sum()) >= min_samples_leaf
    assert naive.weighted_child_impurity(left, y, w, criterion, n_classes) == \
        pytest.approx(split.objective, rel=1e-9, abs=1e-9)
    assert split.weights[0] == 1.0
    if split.n_features == 2:
        assert split.features[0] < split.features[1]
        assert split.objective < uni_ref


def test_regression_and_relative_margin():
    rng = np.random.default_rng(6)
    X = rng.normal(size=(150, 3))
    y = X[:, 0] - X[:, 1] + 0.1 * rng.normal(size=150)
    reg = BivariateTreeRegressor(splitter="hillclimb", max_depth=3).fit(X, y)
    assert reg.tree_.n_node_features.max() == 2
    data = split_data(X, y, criterion="squared_error")
    samples, features = np.arange(150), np.arange(3)
    uni = best_univariate_split(data, samples, features)
    biv = HillClimbSplitter().find_split(data, samples, features)
    assert biv.n_features == 2
    gain = (uni.objective - biv.objective) / uni.objective
    below = HillClimbSplitter(min_relative_improvement=gain * 0.99)
    above = HillClimbSplitter(min_relative_improvement=min(gain * 1.01, 0.999))
    assert below.find_split(data, samples, features).n_features == 2
    assert above.find_split(data, samples, features).n_features == 1


@pytest.mark.parametrize("options, message", [
    ({"tol": -1.0}, "tol"),
    ({"max_cycles": 0}, "max_cycles"),
    ({"gammas": []}, "gammas"),
    ({"gammas": [0.0, np.nan]}, "gammas"),
    ({"min_relative_improvement": 1.5}, "min_relative_improvement"),
])
def test_bad_options_are_named(options, message):
    with pytest.raises(ValueError, match=message):
        get_splitter("hillclimb", **options)
    X, y = bioch_data(30, seed=0)
    with pytest.raises(ValueError, match=message):
        BivariateTreeClassifier(splitter="hillclimb", splitter_options=options).fit(X, y)


# ------------------------------------------------------------------ missing values
# The climb runs on a pair's complete rows; the final direction is scored on every
# row by the exact scan with the rows missing a feature of the pair on either side.
@settings(max_examples=25, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(seed=st.integers(0, 10_000), n=st.integers(6, 30), d=st.integers(2, 4),
       criterion=st.sampled_from(["gini", "entropy", "misclassification", "squared_error"]),
       min_samples_leaf=st.integers(1, 3), weighted=st.booleans(),
       fraction=st.sampled_from([0.1, 0.3]))
def test_with_missing_values_never_worse_than_univariate_and_routes_as_scored(
        seed, n, d, criterion, min_samples_leaf, weighted, fraction):
    rng = np.random.default_rng(seed)
    X = rng.integers(0, 5, size=(n, d)).astype(float) + rng.normal(scale=0.1, size=(n, d))
    if criterion == "squared_error":
        y = X[:, 0] - X[:, -1] + rng.normal(size=n)
        n_classes = 1
    else:
        y = rng.integers(0, 3, size=n)
        n_classes = int(y.max()) + 1
    X[rng.uniform(size=X.shape) < fraction] = np.nan
    w = rng.uniform(0.2, 3.0, size=n) if weighted else np.ones(n)
    data = split_data(X, y, w, criterion, min_samples_leaf)
    data.has_missing = bool(np.isnan(X).any())
    split = HillClimbSplitter().find_split(data, np.arange(n, dtype=np.int64),
                                           np.arange(d, dtype=np.int64))
    uni_ref = naive.best_univariate(X, y, w, criterion, n_classes, min_samples_leaf)
    if split is None:
        assert uni_ref == np.inf
        return
    assert split.objective <= uni_ref + 1e-9 * max(1.0, abs(uni_ref))
    used = split.features >= 0
    values = np.zeros(n)
    for f, c in zip(split.features[used], split.weights[used]):
        values = values + c * X[:, f]  # NaN where a used feature is missing
    left = np.where(np.isnan(values), split.missing_left, values <= split.threshold)
    assert min(left.sum(), (~left).sum()) >= min_samples_leaf
    assert naive.weighted_child_impurity(left, y, w, criterion, n_classes) == \
        pytest.approx(split.objective, rel=1e-9, abs=1e-9)
    if split.n_features == 2:
        assert split.objective < uni_ref
        # threshold and missing side: the exact best for the stored direction
        best_on_direction = naive.best_split_on_values(values, y, w, criterion, n_classes,
                                                       min_samples_leaf)
        assert split.objective == pytest.approx(best_on_direction, rel=1e-9, abs=1e-9)


def test_a_pair_without_missing_rows_climbs_as_without_nan():
    from bivtree.splitters.hillclimb import hillclimb_search
    X, y = bioch_data(120, seed=4)
    X3 = X[:, [0, 1, 3]].copy()
    X3[::4, 2] = np.nan  # only the third feature misses values
    w = np.ones(len(y))
    samples = np.arange(len(y), dtype=np.int64)
    args = (np.asarray(y, np.int64), np.zeros(len(y)), w, 2, CRITERIA["gini"], 1, 0.0,
            np.array(DEFAULT_GAMMAS), 1e-3, 20, np.zeros(0, np.int64), -np.inf, np.inf)
    first, second = np.array([0, 1]), np.array([1, 0])
    results = []
    for Xs, features in ((X3, np.arange(3)), (X[:, :2], np.arange(2))):
        Xs = np.asfortranarray(Xs)
        offset, inv_scale = node_median_iqr_scaling(Xs, samples, features, w)
        results.append(hillclimb_search(Xs, samples, first, second, offset, inv_scale, *args))
    for a, b in zip(*results):
        np.testing.assert_array_equal(a, b)


def test_median_iqr_scaling_uses_the_known_values():
    rng = np.random.default_rng(9)
    X = rng.normal(size=(40, 2))
    w = rng.uniform(0.5, 2.0, size=40)
    X_nan = X.copy()
    X_nan[::3, 0] = np.nan
    X_nan[:, 1] = np.nan  # no known value: a constant feature
    samples = np.arange(40)
    offset, inv_scale = node_median_iqr_scaling(X_nan, samples, [0, 1], w)
    keep = ~np.isnan(X_nan[:, 0])
    ref_offset, ref_inv = node_median_iqr_scaling(X[keep], np.arange(keep.sum()), [0], w[keep])
    assert offset[0] == ref_offset[0] and inv_scale[0] == ref_inv[0]
    assert inv_scale[1] == 0.0


def test_one_and_two_threads_identical_with_missing_values():
    X, y = bioch_data(300, seed=5)
    X[np.random.default_rng(3).uniform(size=X.shape) < 0.15] = np.nan
    one = BivariateTreeClassifier(splitter="hillclimb", max_depth=5, n_jobs=1).fit(X, y)
    two = BivariateTreeClassifier(splitter="hillclimb", max_depth=5, n_jobs=2).fit(X, y)
    assert one.tree_ == two.tree_ and one.tree_.missing_learned
    assert np.any(one.tree_.n_node_features == 2)
    np.testing.assert_array_equal(one.predict_proba(X), two.predict_proba(X))
