"""MUST (``splitter="lda"``): LDA directions, feature selection, quick estimator, 2-means."""

import numpy as np
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from sklearn.cluster import KMeans
from sklearn.discriminant_analysis import LinearDiscriminantAnalysis
from sklearn.utils.estimator_checks import parametrize_with_checks

import naive
from bivtree import BivariateTreeClassifier
from bivtree._config import CLASSIFICATION_CRITERIA
from bivtree.splitters import SplitData, get_splitter
from bivtree.splitters.lda import (
    GAINS,
    contributions,
    discriminant_direction,
    quick_estimate_search,
    quick_threshold,
    two_means,
    values_threshold,
)


def split_data(X, y, w=None, criterion="gini", min_samples_leaf=1):
    X = np.asfortranarray(X, dtype=np.float64)
    w = np.ones(X.shape[0]) if w is None else np.ascontiguousarray(w, dtype=np.float64)
    y = np.asarray(y, dtype=np.int64)
    return SplitData(X, y, np.zeros(len(y)), w, int(y.max()) + 1,
                     CLASSIFICATION_CRITERIA[criterion], min_samples_leaf)


def root_split(X, y, w=None, criterion="gini", features=None, **options):
    data = split_data(X, y, w, criterion)
    splitter = get_splitter("lda", **options)
    splitter.prepare(data)
    features = np.arange(data.n_features) if features is None else np.asarray(features)
    return splitter.find_split(data, np.arange(len(y), dtype=np.int64), features), splitter


def two_gaussians(n=200, d=4, seed=0):
    rng = np.random.default_rng(seed)
    cov = np.eye(d) + 0.4
    X = rng.multivariate_normal(np.zeros(d), cov, size=n)
    y = (rng.uniform(size=n) < 0.5).astype(int)
    X[y == 1] += np.linspace(1.0, 0.2, d)
    X *= np.array([1.0, 100.0, 0.01, 3.0])[:d]  # units must not matter
    return X, y


def rule_of(split):
    used = split.features >= 0
    return split.features[used], split.weights[used]


def assert_parallel(a, b):
    a, b = np.asarray(a, float), np.asarray(b, float)
    cos = abs(a @ b) / (np.linalg.norm(a) * np.linalg.norm(b))
    assert cos == pytest.approx(1.0, abs=1e-10)


def assert_routes_as_scored(split, X, y, w, criterion="gini"):
    features, weights = rule_of(split)
    left = X[:, features] @ weights <= split.threshold
    assert 0 < left.sum() < len(y)
    g = naive.weighted_child_impurity(left, y, w, criterion, int(np.max(y)) + 1)
    assert g == pytest.approx(split.objective, rel=1e-9, abs=1e-9)


# ------------------------------------------------------------------- the direction
def test_direction_equals_numpy_and_sklearn_lda():
    X, y = two_gaussians()
    split, _ = root_split(X, y, n_split_features=None)
    features, weights = rule_of(split)
    np.testing.assert_array_equal(features, np.arange(4))
    assert weights[0] == 1.0
    assert_parallel(weights, naive.lda_direction(X, y == 1, np.ones(len(y))))
    sk = LinearDiscriminantAnalysis(solver="lsqr").fit(X, y)
    assert_parallel(weights, sk.coef_[0])
    assert not split.info["singular"]
    assert_routes_as_scored(split, X, y, np.ones(len(y)))


def test_weighted_direction():
    X, y = two_gaussians(seed=1)
    w = np.random.default_rng(1).uniform(0.2, 3.0, size=len(y))
    split, _ = root_split(X, y, w, n_split_features=None)
    assert_parallel(rule_of(split)[1], naive.lda_direction(X, y == 1, w))
    assert_routes_as_scored(split, X, y, w)


def test_duplicated_column_takes_the_null_space_path():
    X, y = two_gaussians(seed=2, d=3)
    X = np.column_stack([X, 2.0 * X[:, 0]])  # Sigma_w is singular
    split, _ = root_split(X, y, n_split_features=None)
    assert split.info["singular"]
    # the duplicate makes ker Sigma_w orthogonal to Delta_m: the projected
    # between-group scatter vanishes and the pseudo-inverse direction is used
    assert naive.null_space_lda_direction(X, y == 1, np.ones(len(y))) is None
    expected = naive.pinv_lda_direction(X, y == 1, np.ones(len(y)))
    full = np.zeros(4)
    features, weights = rule_of(split)
    full[features] = weights
    assert_parallel(full, expected)
    assert_routes_as_scored(split, X, y, np.ones(len(y)))


def test_fewer_samples_than_features():
    rng = np.random.default_rng(3)
    X = rng.normal(size=(7, 12))
    y = np.array([0, 1, 0, 1, 1, 0, 1])
    split, _ = root_split(X, y, n_split_features=None)
    assert split.info["singular"]
    assert_parallel(rule_of(split)[1], naive.null_space_lda_direction(X, y == 1, np.ones(7)))
    assert_routes_as_scored(split, X, y, np.ones(7))
    for s in (2, 3):
        split, _ = root_split(X, y, n_split_features=s)
        assert split.n_features == s
        assert_routes_as_scored(split, X, y, np.ones(7))


def test_discriminant_direction_cases():
    scatter = np.diag([2.0, 0.5])
    np.testing.assert_allclose(discriminant_direction(scatter, np.array([1.0, 1.0]))[0],
                               [0.5, 2.0])
    # a feature without within-group spread that separates the groups
    w, singular = discriminant_direction(np.diag([2.0, 0.0]), np.array([1.0, 1.0]))
    assert singular
    np.testing.assert_allclose(w, [0.0, 1.0])
    # Delta_m orthogonal to ker Sigma_w: the pseudo-inverse direction
    w, singular = discriminant_direction(np.diag([2.0, 0.0]), np.array([1.0, 0.0]))
    assert singular
    np.testing.assert_allclose(w, [0.5, 0.0])


# -------------------------------------------------------------- feature selection
def test_contributions_follow_equation_6():
    w = np.array([1.0, -2.0, 0.0, 0.5])
    delta = np.array([0.5, 1.0, 3.0, 1.0])
    scatter = np.diag([1.0, 4.0, 1.0, 0.0])
    # |w_i dm_i|^2 / (S_ii w_i^2): 0.25, 4/16, 0 (w_i = 0), inf (no spread)
    np.testing.assert_allclose(contributions(w, delta, scatter), [0.25, 0.25, 0.0, np.inf])


@pytest.mark.parametrize("s", [1, 2, 3])
def test_nodes_use_exactly_s_features(s):
    rng = np.random.default_rng(4)
    X = rng.normal(size=(120, 6))
    y = (X[:, 0] + X[:, 1] - X[:, 2] + 0.5 * rng.normal(size=120) > 0).astype(int)
    clf = BivariateTreeClassifier(splitter="lda", max_depth=4,
                                  splitter_options={"n_split_features": s}).fit(X, y)
    tree = clf.tree_
    assert tree.max_features_per_node == max(2, s)
    internal = ~tree.is_leaf
    assert internal.sum() >= 3
    assert np.all(tree.n_node_features[internal] == s)
    assert np.all(tree.weights[internal, 0] == 1.0)


def test_selection_recomputes_the_direction_on_the_selected_features():
    X, y = two_gaussians(seed=5)
    split, _ = root_split(X, y, n_split_features=2)
    features, weights = rule_of(split)
    std = X.std(axis=0)
    means = [X[y == g].mean(axis=0) for g in (0, 1)]
    scatter = sum((X[y == g] - m).T @ (X[y == g] - m) for g, m in zip((0, 1), means))
    delta = means[1] - means[0]
    contrib = contributions(naive.lda_direction(X, y == 1, np.ones(len(y))) * std,
                            delta / std, scatter / np.outer(std, std))
    np.testing.assert_array_equal(features, np.sort(np.argsort(-contrib)[:2]))
    assert_parallel(weights, naive.lda_direction(X[:, features], y == 1, np.ones(len(y))))


def test_must_f_uses_every_feature():
    X, y = two_gaussians(d=4)
    clf = BivariateTreeClassifier(splitter="lda", max_depth=2,
                                  splitter_options={"n_split_features": None}).fit(X, y)
    assert clf.tree_.max_features_per_node == 4
    assert clf.tree_.n_node_features[0] == 4


# ------------------------------------------------------------------ quick estimator
@pytest.mark.parametrize("m_pos, m_neg, s_pos, s_neg, expected", [
    (5.0, 1.0, 1.0, 1.0, 3.0),    # separated: (p_sup + p_inf) / 2 = (4 + 2) / 2
    (1.0, 6.0, 1.0, 2.0, 3.0),    # separated, positive group below: (4 + 2) / 2
    (3.0, 2.0, 2.0, 1.0, 3.0),    # overlap, v+ > v-, m+ > m-: m- + v-
    (2.0, 3.0, 2.0, 1.0, 2.0),    # overlap, v+ > v-, m+ <= m-: m- - v-
    (3.0, 2.0, 1.0, 2.0, 2.0),    # overlap, v+ <= v-, m+ > m-: m+ - v+
    (2.0, 3.0, 1.0, 2.0, 3.0),    # overlap, v+ <= v-, m+ <= m-: m+ + v+
    (2.0, 2.0, 1.0, 1.0, 3.0),    # equal means and spreads: m+ + v+
])
def test_quick_threshold_equations_7_to_10(m_pos, m_neg, s_pos, s_neg, expected):
    assert quick_threshold(m_pos, m_neg, s_pos, s_neg) == expected


def test_quick_estimate_on_data():
    # feature 0: group 1 at {4, 6} (mean 5, std 1), group 0 at {0, 2} (mean 1, std 1)
    #   -> separated, w0 = (4 + 2) / 2 = 3, a perfect split
    # feature 1: group 1 at {0, 4} (mean 2, std 2), group 0 at {1, 3} (mean 2, std 1)
    #   -> overlap, v+ > v-, m+ <= m-: w0 = m- - v- = 1
    X = np.array([[4.0, 0.0], [6.0, 4.0], [0.0, 1.0], [2.0, 3.0]])
    y = np.array([1, 1, 0, 0])
    data = split_data(X, y)
    samples = np.arange(4, dtype=np.int64)
    group = y == 1
    # with literal variances (4 and 1 on feature 1, 1 and 1 on feature 0) both
    # estimates happen to be the same
    for use_variance, t1 in ((False, 1.0), (True, 1.0)):
        scores, thresholds = quick_estimate_search(
            data.X, samples, np.arange(2, dtype=np.int64), group, data.labels,
            data.sample_weight, 2, GAINS["criterion"], data.criterion, use_variance, 1, 0.0)
        np.testing.assert_allclose(thresholds, [3.0, t1])
        assert scores[0] == 0.0  # pure children: -G = 0
        assert scores[0] > scores[1]
    split, _ = root_split(X, y, n_split_features=1)
    assert split.info["kind"] == "quick"
    assert tuple(split.features) == (0, -1)
    assert 2.0 <= split.threshold < 4.0


def test_quick_and_exact_univariate():
    rng = np.random.default_rng(6)
    X = rng.normal(size=(200, 5))
    y = (X[:, 3] > 0.3).astype(int)
    y[:10] = 1 - y[:10]
    for univariate in ("quick", "exact"):
        split, _ = root_split(X, y, n_split_features=1, univariate=univariate)
        assert split.n_features == 1 and split.features[0] == 3
        assert split.objective == pytest.approx(
            naive.best_univariate(X, y, np.ones(200), "gini", 2), rel=1e-12)


# ---------------------------------------------------------------------- the gains
@pytest.mark.parametrize("gain", sorted(GAINS))
@pytest.mark.parametrize("criterion", ["gini", "entropy", "misclassification"])
def test_threshold_scan_matches_brute_force(gain, criterion):
    rng = np.random.default_rng(7)
    n = 50
    values = np.round(rng.normal(size=n), 1)
    y = rng.integers(0, 3, size=n)
    w = rng.uniform(0.5, 2.0, size=n)
    data = split_data(values[:, None], y, w, criterion)
    score = values_threshold(values, np.arange(n, dtype=np.int64), data.labels, data.targets,
                             data.sample_weight, 3, GAINS[gain], data.criterion, 2, 0.0)[0]
    ref = naive.best_gain_on_values(values, y, w, gain, criterion, 3, min_samples_leaf=2)
    assert score == pytest.approx(ref, rel=1e-9, abs=1e-12)


@pytest.mark.parametrize("gain", sorted(GAINS))
def test_root_threshold_is_the_best_cut_of_the_projection(gain):
    X, y = two_gaussians(seed=8)
    split, _ = root_split(X, y, gain=gain)
    features, weights = rule_of(split)
    values = X[:, features] @ weights
    assert split.info["score"] == pytest.approx(
        naive.best_gain_on_values(values, y, np.ones(len(y)), gain, "gini", 2), rel=1e-9)
    assert_routes_as_scored(split, X, y, np.ones(len(y)))
    clf = BivariateTreeClassifier(splitter="lda", max_depth=3,
                                  splitter_options={"gain": gain}).fit(X, y)
    assert clf.get_n_leaves() > 2


# -------------------------------------------------------------------- multi-class
def three_classes(seed=9):
    rng = np.random.default_rng(seed)
    centres = np.array([[0.0, 0.0], [1.5, 0.5], [8.0, 8.0]])
    y = np.repeat([0, 1, 2], [40, 30, 50])
    X = centres[y] + rng.normal(size=(120, 2))
    return X, y


@pytest.mark.parametrize("multiclass", ["samples", "class_means"])
def test_two_means_groups_the_classes(multiclass):
    X, y = three_classes()
    split, _ = root_split(X, y, multiclass=multiclass)
    groups = split.info["groups"]
    assert groups[0] == groups[1] != groups[2]
    # the 2-means kernel agrees with scikit-learn's KMeans from the same start
    z = (X - X.mean(axis=0)) / X.std(axis=0)
    means = np.stack([z[y == c].mean(axis=0) for c in range(3)])
    start = means[[0, 2]]
    km = KMeans(2, init=start, n_init=1, tol=0.0, algorithm="lloyd").fit(z)
    ours = two_means(np.ascontiguousarray(z), np.ones(len(y)), start[0].copy(),
                     start[1].copy(), 100)
    np.testing.assert_array_equal(ours, km.labels_)
    # the direction is the two-group LDA direction
    assert_parallel(rule_of(split)[1], naive.lda_direction(X, y == 2, np.ones(len(y))))


def test_multiclass_tree():
    X, y = three_classes(seed=10)
    clf = BivariateTreeClassifier(splitter="lda").fit(X, y)
    assert clf.score(X, y) == 1.0
    internal = ~clf.tree_.is_leaf
    assert np.all(clf.tree_.n_node_features[internal] <= 2)


# -------------------------------------------------------------------- categorical
def test_categorical_subset_split():
    rng = np.random.default_rng(11)
    n = 300
    codes = rng.integers(0, 4, size=n)
    # class-1 share by code: 0.9, 0.1, 0.8, 0.2 -> best subset {0, 2}: not a code range
    y = (rng.uniform(size=n) < np.array([0.9, 0.1, 0.8, 0.2])[codes]).astype(int)
    noise = rng.normal(size=(n, 2))
    X = np.column_stack([noise, codes])
    split, _ = root_split(X, y, categorical_features=[2])
    best_subset = naive.best_category_subset(codes, y, np.ones(n), "gini", 2)
    # stored as a category set (the low class-1 share goes left), not a threshold
    assert split.info["kind"] == "categorical" and split.info["categories"] == [1, 3]
    assert tuple(split.features) == (2, -1) and split.category_mask.tolist() == [0b1010, 0]
    assert split.objective == pytest.approx(best_subset, rel=1e-12)
    left = np.isin(codes, [1, 3])
    assert naive.weighted_child_impurity(left, y, np.ones(n), "gini", 2) == pytest.approx(
        split.objective, rel=1e-12)
    # recoding the categories changes nothing but the codes in the set
    recoded = np.array([0, 2, 1, 3])[codes]
    X2 = np.column_stack([noise, recoded])
    split, _ = root_split(X2, y, categorical_features=np.array([False, False, True]))
    assert split.info["categories"] == [2, 3]
    assert split.objective == pytest.approx(best_subset, rel=1e-12)


def test_categorical_features_by_name_and_excluded_from_the_direction():
    pd = pytest.importorskip("pandas")
    rng = np.random.default_rng(12)
    X = pd.DataFrame({"a": rng.normal(size=200), "b": rng.normal(size=200),
                      "colour": rng.integers(0, 3, size=200)})
    y = (X["a"] + X["b"] > 0).astype(int)
    clf = BivariateTreeClassifier(splitter="lda", max_depth=3,
                                  splitter_options={"categorical_features": ["colour"]})
    clf.fit(X, y)
    tree = clf.tree_
    for node in np.flatnonzero(~tree.is_leaf):
        feats = tree.features[node][tree.features[node] >= 0]
        assert 2 not in feats or feats.size == 1
    with pytest.raises(ValueError, match="not a column"):
        BivariateTreeClassifier(splitter="lda", splitter_options={
            "categorical_features": ["size"]}).fit(X, y)
    with pytest.raises(ValueError, match="no feature names"):
        BivariateTreeClassifier(splitter="lda", splitter_options={
            "categorical_features": ["colour"]}).fit(X.to_numpy(), y)
    with pytest.raises(ValueError, match="out of range"):
        BivariateTreeClassifier(splitter="lda", splitter_options={
            "categorical_features": [5]}).fit(X.to_numpy(), y)


# ----------------------------------------------------------------- the estimator
@settings(max_examples=25, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(seed=st.integers(0, 10_000), n=st.integers(3, 40), d=st.integers(1, 5),
       n_classes=st.integers(2, 4), s=st.sampled_from([1, 2, 3, None]),
       gain=st.sampled_from(sorted(GAINS)), weighted=st.booleans())
def test_any_split_is_valid_and_routes_as_scored(seed, n, d, n_classes, s, gain, weighted):
    rng = np.random.default_rng(seed)
    X = rng.integers(0, 4, size=(n, d)).astype(float)
    X[:, -1] += rng.normal(scale=0.1, size=n)
    y = rng.integers(0, n_classes, size=n)
    if np.unique(y).size < 2:
        y[0] = (y[1] + 1) % n_classes
    w = rng.uniform(0.2, 3.0, size=n) if weighted else np.ones(n)
    split, _ = root_split(X, y, w, n_split_features=s, gain=gain)
    if split is None:
        return
    features, weights = rule_of(split)
    assert weights[0] == 1.0
    assert features.size <= (d if s is None else s)
    assert_routes_as_scored(split, X, y, w)


def test_same_tree_for_any_thread_count_with_options():
    # default options: tests/test_splitter_contract.py
    X, y = three_classes(seed=13)
    options = {"n_split_features": 1, "univariate": "exact"}
    one = BivariateTreeClassifier(splitter="lda", splitter_options=options, n_jobs=1)
    two = BivariateTreeClassifier(splitter="lda", splitter_options=options, n_jobs=2)
    assert one.fit(X, y).tree_ == two.fit(X, y).tree_


@pytest.mark.parametrize("options, message", [
    ({"n_split_features": 4}, "n_split_features"),
    ({"n_split_features": True}, "n_split_features"),
    ({"univariate": "fast"}, "univariate"),
    ({"gain": "gini_ratio"}, "gain"),
    ({"multiclass": "ovr"}, "multiclass"),
    ({"quick_spread": "mad"}, "quick_spread"),
    ({"max_iter": 0}, "max_iter"),
    ({"categorical_features": [[0]]}, "1-D"),
    ({"categorical_features": [0.5]}, "integer"),
    ({"categorical_features": [True]}, "mask"),
])
def test_bad_options_are_named(options, message):
    X, y = two_gaussians()
    with pytest.raises(ValueError, match=message):
        BivariateTreeClassifier(splitter="lda", splitter_options=options).fit(X, y)


@parametrize_with_checks([
    BivariateTreeClassifier(splitter="lda", splitter_options={"n_split_features": 1}),
])
def test_sklearn_compatible_with_options(estimator, check):
    # default options: tests/test_splitter_contract.py
    check(estimator)
