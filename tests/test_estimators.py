"""The estimators' scikit-learn contract, their input checks and their pruning."""

import pickle

import numpy as np
import pytest
from sklearn.datasets import load_iris
from sklearn.model_selection import GridSearchCV
from sklearn.pipeline import make_pipeline
from sklearn.preprocessing import StandardScaler
from sklearn.tree import DecisionTreeClassifier
from sklearn.utils.class_weight import compute_sample_weight
from sklearn.utils.estimator_checks import parametrize_with_checks

from bivtree import (
    BivariateTreeClassifier,
    BivariateTreeRegressor,
    export_text,
    load_model,
    save_model,
)
from bivtree._kernels.traversal import SPREAD_BLOCK_ROWS
from bivtree._threads import numba_threads
from bivtree.model_selection import CostComplexityCV
from bivtree.pruning import prune_tree


@parametrize_with_checks([BivariateTreeClassifier(), BivariateTreeRegressor()])
def test_sklearn_compatible(estimator, check):
    # the default parameters, unlimited depth; every splitter and TAO at max_depth=4:
    # tests/test_splitter_contract.py. No check is excluded.
    check(estimator)


def continuous_data(n=300, d=4, seed=0, n_classes=3):
    rng = np.random.default_rng(seed)
    X = rng.normal(size=(n, d)).astype(np.float32).astype(np.float64)
    score = X[:, 0] + 0.7 * X[:, 1] - 0.5 * X[:, 2] * X[:, -1] + 0.3 * rng.normal(size=n)
    y = np.digitize(score, np.quantile(score, np.linspace(0, 1, n_classes + 1)[1:-1]))
    return X, y


# ------------------------------------------------------------------ bad input
@pytest.mark.parametrize("bad, splitter, message", [
    (np.inf, "optimal", "infinity"),
    (np.inf, "auto", "infinity"),
    (-np.inf, "univariate", "infinity"),
])
def test_non_finite_X_is_named(bad, splitter, message):
    X, y = continuous_data()
    X[3, 1] = bad
    with pytest.raises(ValueError, match=message):
        BivariateTreeClassifier(splitter=splitter).fit(X, y)


def test_wrong_dimensions():
    X, y = continuous_data()
    with pytest.raises(ValueError, match="2D"):
        BivariateTreeClassifier().fit(X[:, 0], y)
    with pytest.raises(ValueError, match="3"):
        BivariateTreeClassifier().fit(X[:, :, None], y)


def test_too_few_samples():
    with pytest.raises(ValueError, match="1 sample"):
        BivariateTreeClassifier().fit([[1.0, 2.0]], [0])
    with pytest.raises(ValueError, match="0 sample"):
        BivariateTreeRegressor().fit(np.empty((0, 2)), [])


@pytest.mark.parametrize("splitter", ["auto", "univariate", "orientations", "optimal"])
def test_single_class_is_one_leaf_as_in_scikit_learn(splitter, tmp_path):
    X, _ = continuous_data()
    y = np.full(X.shape[0], "a")
    model = BivariateTreeClassifier(splitter=splitter).fit(X, y)
    reference = DecisionTreeClassifier().fit(X, y)
    assert model.get_n_leaves() == reference.get_n_leaves() == 1
    assert list(model.classes_) == list(reference.classes_) == ["a"]
    np.testing.assert_array_equal(model.predict(X), reference.predict(X))
    np.testing.assert_array_equal(model.predict_proba(X), reference.predict_proba(X))
    path = tmp_path / "one.json"
    save_model(model, path)
    np.testing.assert_array_equal(load_model(path).predict_proba(X), model.predict_proba(X))
    assert "class: a" in export_text(model)


def test_mismatched_lengths():
    X, y = continuous_data()
    with pytest.raises(ValueError, match="inconsistent numbers of samples"):
        BivariateTreeClassifier().fit(X, y[:-1])
    with pytest.raises(ValueError, match="sample_weight"):
        BivariateTreeClassifier().fit(X, y, sample_weight=np.ones(5))


def test_negative_and_zero_weights():
    X, y = continuous_data()
    w = np.ones(len(y))
    w[0] = -1
    with pytest.raises(ValueError, match="[Nn]egative"):
        BivariateTreeClassifier().fit(X, y, sample_weight=w)
    with pytest.raises(ValueError, match="non-zero"):
        BivariateTreeClassifier().fit(X, y, sample_weight=np.zeros(len(y)))
    w = np.ones(len(y))
    w[0] = np.nan
    with pytest.raises(ValueError, match="NaN"):
        BivariateTreeClassifier().fit(X, y, sample_weight=w)


def test_non_numeric_columns_are_named():
    pd = pytest.importorskip("pandas")
    X, y = continuous_data(d=3)
    frame = pd.DataFrame(X, columns=["age", "income", "height"])
    frame["city"] = np.where(y == 0, "Lyon", "Oslo")
    with pytest.raises(ValueError, match="non-numeric column.*city.*categorical_features"):
        BivariateTreeClassifier(categorical_features=None).fit(frame, y)
    # by default a text column is categorical
    assert BivariateTreeClassifier().fit(frame, y).is_categorical_.tolist() == [0, 0, 0, 1]
    # a date or a duration is a number once converted, not a category
    frame["joined"] = pd.Timestamp("2020-01-01") + pd.to_timedelta(np.arange(len(y)), "D")
    frame["tenure"] = frame["joined"] - frame["joined"].min()
    with pytest.raises(ValueError, match=r"\['joined', 'tenure'\]: .* convert the date or "
                                         r"duration column\(s\) \['joined', 'tenure'\] to "
                                         r"numbers \(e\.g\. days since a date: .*\.dt\.days\)$"):
        BivariateTreeClassifier().fit(frame, y)
    with pytest.raises(ValueError, match=r"\['city', 'joined', 'tenure'\].*to numbers .*; "
                                         "declare the others categorical"):
        BivariateTreeClassifier(categorical_features=None).fit(frame, y)


def test_regression_target_checks():
    X, _ = continuous_data()
    y = X[:, 0].copy()
    y[2] = np.nan
    with pytest.raises(ValueError, match="NaN"):
        BivariateTreeRegressor().fit(X, y)
    with pytest.raises(ValueError, match="Unknown label type"):
        BivariateTreeClassifier().fit(X, X[:, 0])


@pytest.mark.parametrize("dtype", ["string", "Float64", "object", "category"])
@pytest.mark.parametrize("estimator", [BivariateTreeClassifier, BivariateTreeRegressor])
def test_missing_targets_in_a_pandas_series_are_named(estimator, dtype):
    pd = pytest.importorskip("pandas")
    X, y = continuous_data()
    if estimator is BivariateTreeClassifier:
        target = pd.Series(np.where(y > 0, "p", "q")).astype(dtype if dtype != "Float64" else "string")
    else:
        if dtype in ("string", "category"):
            pytest.skip("a regressor's target is numeric")
        target = pd.Series(X[:, 0]).astype(dtype)
    target[[3, 7]] = None  # NA in extension dtypes, None or NaN in the others
    with pytest.raises(ValueError, match=r"y contains NaN or other missing values \(2 of them\)"):
        estimator().fit(X, target)
    with pytest.raises(ValueError, match=r"y contains NaN or other missing values \(2 of them\)"):
        CostComplexityCV(estimator()).fit(X, target)


def test_predict_checks_feature_count():
    X, y = continuous_data()
    clf = BivariateTreeClassifier(max_depth=2).fit(X, y)
    with pytest.raises(ValueError, match="features"):
        clf.predict(X[:, :3])


def test_too_many_pairs_is_explained():
    rng = np.random.default_rng(0)
    X = rng.normal(size=(20, 30))
    y = np.arange(20) % 2
    with pytest.raises(ValueError, match="435 feature pairs.*max_features"):
        BivariateTreeClassifier(splitter="orientations", max_pairs=100).fit(X, y)
    # drawing fewer features per node brings it under the limit
    BivariateTreeClassifier(splitter="orientations", max_pairs=100, max_features=10,
                            random_state=0).fit(X, y)
    # the univariate splitter searches no pairs; the default searches the pairs among
    # its 12 screened features (66) and those of the best one with the 18 others
    BivariateTreeClassifier(splitter="univariate", max_pairs=100).fit(X, y)
    BivariateTreeClassifier(max_pairs=84).fit(X, y)
    with pytest.raises(ValueError, match="44 feature pairs"):
        BivariateTreeClassifier(max_pairs=43, splitter_options={"max_pair_features": 7}
                                ).fit(X, y)


@pytest.mark.parametrize("params, message", [
    ({"criterion": "mse"}, "criterion"),
    ({"splitter": "magic"}, "splitter"),
    ({"n_orientations": 0}, "n_orientations"),
    ({"max_depth": 0}, "max_depth"),
    ({"min_samples_leaf": 0}, "min_samples_leaf"),
    ({"min_samples_split": 1}, "min_samples_split"),
    ({"min_weight_fraction_leaf": 0.7}, "min_weight_fraction_leaf"),
    ({"max_features": 0}, "max_features"),
    ({"max_features": "half"}, "max_features"),
    ({"max_leaf_nodes": 1}, "max_leaf_nodes"),
    ({"min_impurity_decrease": -1.0}, "min_impurity_decrease"),
    ({"ccp_alpha": -0.1}, "ccp_alpha"),
    ({"splitter_options": {"bogus": 1}}, "bogus"),
])
def test_bad_parameters_are_named(params, message):
    X, y = continuous_data(n=40)
    with pytest.raises((ValueError, TypeError), match=message):
        BivariateTreeClassifier(**params).fit(X, y)


# ------------------------------------------------------------- the contract
def test_string_labels_and_probabilities():
    X, y = continuous_data()
    names = np.array(["low", "mid", "high"])[y]
    clf = BivariateTreeClassifier(max_depth=3).fit(X, names)
    assert set(clf.classes_) == {"low", "mid", "high"}
    assert clf.n_classes_ == 3
    proba = clf.predict_proba(X)
    np.testing.assert_allclose(proba.sum(axis=1), 1.0)
    assert np.all(clf.predict(X) == clf.classes_[np.argmax(proba, axis=1)])
    with np.errstate(divide="ignore"):
        np.testing.assert_allclose(clf.predict_log_proba(X), np.log(proba))
    assert clf.score(X, names) > 0.7


def test_pandas_feature_names_and_rules():
    pd = pytest.importorskip("pandas")
    X, y = continuous_data(d=3)
    frame = pd.DataFrame(X, columns=["waist", "height", "age"])
    clf = BivariateTreeClassifier(max_depth=2).fit(frame, pd.Series(y))
    assert list(clf.feature_names_in_) == ["waist", "height", "age"]
    np.testing.assert_array_equal(
        clf.predict(frame), clf.classes_[np.argmax(clf.tree_.predict(X), axis=1)])


def test_pickle_round_trip():
    X, y = continuous_data()
    clf = BivariateTreeClassifier(max_depth=4).fit(X, y)
    again = pickle.loads(pickle.dumps(clf))
    assert again.tree_ == clf.tree_
    np.testing.assert_array_equal(again.predict_proba(X), clf.predict_proba(X))


def test_pipeline_and_grid_search():
    X, y = load_iris(return_X_y=True)
    pipe = make_pipeline(StandardScaler(), BivariateTreeClassifier(random_state=0))
    search = GridSearchCV(pipe, {"bivariatetreeclassifier__max_depth": [1, 2, 3],
                                 "bivariatetreeclassifier__splitter": ["orientations",
                                                                       "univariate"]}, cv=3)
    search.fit(X, y)
    assert search.best_score_ > 0.9
    assert search.best_params_["bivariatetreeclassifier__max_depth"] >= 2


def test_depth_leaves_apply_decision_path():
    X, y = continuous_data()
    clf = BivariateTreeClassifier(max_depth=3).fit(X, y)
    assert clf.get_depth() == 3
    leaves = clf.apply(X)
    assert np.all(clf.tree_.children_left[leaves] == -1)
    assert len(np.unique(leaves)) <= clf.get_n_leaves()
    path = clf.decision_path(X)
    assert path.shape == (X.shape[0], clf.tree_.node_count)
    assert np.all(path[np.arange(X.shape[0]), leaves] == 1)
    np.testing.assert_array_equal(np.asarray(path.sum(axis=1)).ravel(),
                                  clf.tree_.node_depth[leaves] + 1)


def test_class_weight_equals_sample_weight():
    X, y = continuous_data()
    y = (y == 0).astype(int)  # imbalanced
    a = BivariateTreeClassifier(max_depth=3, class_weight="balanced").fit(X, y)
    b = BivariateTreeClassifier(max_depth=3).fit(
        X, y, sample_weight=compute_sample_weight("balanced", y))
    assert a.tree_ == b.tree_


def test_class_weight_dict_keyed_by_string_labels():
    X, y = continuous_data()
    names = np.array(["low", "mid", "high"])[y]
    weights = {"low": 1.0, "mid": 2.0, "high": 5.0}
    a = BivariateTreeClassifier(max_depth=3, class_weight=weights).fit(X, names)
    b = BivariateTreeClassifier(max_depth=3).fit(
        X, names, sample_weight=np.vectorize(weights.get)(names))
    assert a.tree_ == b.tree_


def test_zero_weight_samples_are_ignored():
    X, y = continuous_data()
    w = np.ones(len(y))
    w[::3] = 0.0
    a = BivariateTreeClassifier(max_depth=4).fit(X, y, sample_weight=w)
    b = BivariateTreeClassifier(max_depth=4).fit(X[w > 0], y[w > 0])
    assert a.tree_ == b.tree_


@pytest.mark.parametrize("criterion", ["gini", "entropy", "log_loss", "misclassification"])
def test_every_criterion_fits(criterion):
    X, y = continuous_data()
    clf = BivariateTreeClassifier(criterion=criterion, max_depth=4).fit(X, y)
    assert clf.score(X, y) > 0.7


def test_max_features_draws_with_random_state():
    X, y = continuous_data(d=8)
    a = BivariateTreeClassifier(max_features=3, random_state=1).fit(X, y)
    b = BivariateTreeClassifier(max_features=3, random_state=1).fit(X, y)
    c = BivariateTreeClassifier(max_features=3, random_state=2).fit(X, y)
    assert a.tree_ == b.tree_
    assert a.tree_ != c.tree_
    assert a.max_features_ == 3
    assert BivariateTreeClassifier(max_features="sqrt").fit(X, y).max_features_ == 2


def test_verbose_reports_pairs_and_progress(capsys):
    X, y = continuous_data()
    BivariateTreeClassifier(verbose=1, max_depth=2).fit(X, y)
    out = capsys.readouterr().out
    assert "6 feature pairs" in out
    assert "nodes" in out


def test_feature_importances():
    X, y = continuous_data()
    # univariate: scikit-learn's definition
    clf = BivariateTreeClassifier(splitter="univariate", max_depth=3).fit(X, y)
    sk = DecisionTreeClassifier(max_depth=3, random_state=0).fit(X, y)
    if clf.tree_.node_count == sk.tree_.node_count:
        np.testing.assert_allclose(clf.feature_importances_, sk.feature_importances_,
                                   rtol=1e-9)
    # bivariate: shares sum to one and only features used in splits get credit
    clf = BivariateTreeClassifier(max_depth=3).fit(X, y)
    imp = clf.feature_importances_
    assert imp.min() >= 0 and abs(imp.sum() - 1) < 1e-12
    used = np.unique(clf.tree_.features[clf.tree_.features >= 0])
    assert np.all(imp[np.setdiff1d(np.arange(X.shape[1]), used)] == 0)


def test_importances_are_never_negative_when_a_decrease_rounds_below_zero():
    # sample weights of 1e300 beside 1e-300 can leave a split's computed decrease a few
    # ulps below zero; an impurity decrease is never negative, so it counts as none
    X, y = continuous_data()
    reg = BivariateTreeRegressor(splitter="univariate", max_depth=1).fit(X, y.astype(float))
    tree = reg.tree_
    left, right = tree.children_left[0], tree.children_right[0]
    wn = tree.weighted_n_node_samples
    # the parent's impurity set just below its children's weighted sum
    below = (wn[left] * tree.impurity[left] + wn[right] * tree.impurity[right]) / wn[0]
    tree.impurity[0] = np.nextafter(below, -np.inf)
    importances = reg._feature_importances(X, np.ones(X.shape[0]))
    assert np.all(importances >= 0)
    np.testing.assert_array_equal(importances, np.zeros(X.shape[1]))


def test_node_spreads_equal_the_two_pass_weighted_std():
    rng = np.random.default_rng(7)
    X = rng.normal(size=(600, 4)) * [1.0, 1e-3, 50.0, 1.0] + [0.0, 1e6, -3.0, 0.0]
    y = (X[:, 0] + X[:, 3] > 0).astype(int)
    weight = rng.integers(0, 4, 600).astype(float)  # zero weights reach nodes too
    clf = BivariateTreeClassifier(max_depth=4).fit(X, y, sample_weight=weight)
    tree = clf.tree_
    spreads = tree.node_spreads(np.asfortranarray(X), weight)
    paths = tree.decision_path(X).tocsc()
    for node in np.flatnonzero(~tree.is_leaf):
        rows = paths.indices[paths.indptr[node]:paths.indptr[node + 1]]
        w = weight[rows]
        for s, f in enumerate(tree.features[node]):
            if f < 0:
                assert spreads[node, s] == 0.0
                continue
            x = X[rows, f]
            mean = np.average(x, weights=w)
            expected = np.sqrt(np.average((x - mean) ** 2, weights=w))
            np.testing.assert_allclose(spreads[node, s], expected, rtol=1e-9,
                                       atol=1e-12 * np.abs(x).max())
    assert np.all(spreads[tree.is_leaf] == 0.0)


def test_node_spreads_merge_row_blocks_the_same_for_any_thread_count():
    # more rows than one block: the blocks' moments are merged, in block order

    rng = np.random.default_rng(11)
    n = 4 * SPREAD_BLOCK_ROWS + 123
    X = rng.normal(size=(n, 3)) * [1.0, 1e-3, 50.0] + [0.0, 1e6, -3.0]
    X[rng.random(X.shape) < 0.05] = np.nan
    y = (np.nan_to_num(X[:, 0]) + np.nan_to_num(X[:, 2]) / 50 > 0).astype(int)
    weight = rng.uniform(0.0, 2.0, n)
    tree = BivariateTreeClassifier(max_depth=3).fit(X, y).tree_
    spreads = {}
    for n_jobs in (1, 2):
        with numba_threads(n_jobs):
            spreads[n_jobs] = tree.node_spreads(np.asfortranarray(X), weight)
    np.testing.assert_array_equal(spreads[1], spreads[2])
    paths = tree.decision_path(X).tocsc()
    for node in np.flatnonzero(~tree.is_leaf):
        rows = paths.indices[paths.indptr[node]:paths.indptr[node + 1]]
        used = tree.features[node][tree.features[node] >= 0]
        rows = rows[~np.isnan(X[np.ix_(rows, used)]).any(axis=1)]
        for s, f in enumerate(used):
            x, w = X[rows, f], weight[rows]
            mean = np.average(x, weights=w)
            expected = np.sqrt(np.average((x - mean) ** 2, weights=w))
            np.testing.assert_allclose(spreads[1][node, s], expected, rtol=1e-9)


def test_regressor_basics():
    X, _ = continuous_data()
    y = X[:, 0] + 2 * X[:, 1]
    reg = BivariateTreeRegressor(max_depth=1).fit(X, y)
    # one bivariate split follows the linear target far better than one univariate split
    uni = BivariateTreeRegressor(splitter="univariate", max_depth=1).fit(X, y)
    assert reg.score(X, y) > uni.score(X, y)
    assert reg.tree_.features[0, 1] >= 0


# --------------------------------------------------------------------- pruning
def test_pruning_path_matches_sklearn_for_univariate_splits():
    X, y = continuous_data(n=200, seed=3)
    ours = BivariateTreeClassifier(splitter="univariate", min_samples_leaf=5)
    sk = DecisionTreeClassifier(min_samples_leaf=5, random_state=0)
    if ours.fit(X, y).tree_.node_count != sk.fit(X, y).tree_.node_count:
        pytest.skip("tied splits: the trees differ legitimately")
    a = ours.cost_complexity_pruning_path(X, y)
    b = sk.cost_complexity_pruning_path(X, y)
    np.testing.assert_allclose(a.ccp_alphas, b.ccp_alphas, rtol=1e-9, atol=1e-15)
    np.testing.assert_allclose(a.impurities, b.impurities, rtol=1e-9)


@pytest.mark.parametrize("splitter", ["orientations", "diagonal"])
def test_pruned_bivariate_trees_are_nested_subtrees(splitter):
    X, y = continuous_data(n=250, seed=4)
    full = BivariateTreeClassifier(splitter=splitter).fit(X, y)
    path = full.cost_complexity_pruning_path(X, y)
    assert np.all(np.diff(path.ccp_alphas) >= 0)
    assert np.all(np.diff(path.impurities) >= -1e-12)
    previous = full.tree_.n_leaves
    full_nodes = {(tuple(f), tuple(w), t) for f, w, t in zip(
        full.tree_.features.tolist(), full.tree_.weights.tolist(), full.tree_.threshold)}
    for alpha in path.ccp_alphas[1::3]:
        pruned = BivariateTreeClassifier(splitter=splitter, ccp_alpha=max(alpha, 0.0)).fit(X, y)
        assert pruned.tree_ == prune_tree(full.tree_, max(alpha, 0.0))
        assert pruned.tree_.n_leaves <= previous
        previous = pruned.tree_.n_leaves
        internal = ~pruned.tree_.is_leaf
        for f, w, t in zip(pruned.tree_.features[internal].tolist(),
                           pruned.tree_.weights[internal].tolist(),
                           pruned.tree_.threshold[internal]):
            assert (tuple(f), tuple(w), t) in full_nodes
    last = BivariateTreeClassifier(splitter=splitter, ccp_alpha=path.ccp_alphas[-1]).fit(X, y)
    assert last.get_n_leaves() == 1
