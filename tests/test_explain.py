"""explain / contributions: the path is the routing kernel's path, the numbers add up."""

import numpy as np
import pandas as pd
import pytest

from bivtree import (
    BivariateTreeClassifier,
    BivariateTreeRegressor,
    TAOTreeClassifier,
    TAOTreeRegressor,
    export_text,
)
from bivtree._kernels.traversal import in_category_set, project_row
from bivtree.export.explanation import Explanation, contributions, explain
from bivtree.export.formatting import format_number


def _data(n=90, seed=0):
    rng = np.random.default_rng(seed)
    X = rng.normal(size=(n, 4)) * [1.0, 3.0, 0.5, 2.0] + [0.0, 10.0, -2.0, 0.0]
    y = (X[:, 0] + 0.4 * X[:, 1] - X[:, 2] > 4.0).astype(int) + (X[:, 3] > 1.5)
    return X, y


def _categorical_data(n=120, seed=1):
    rng = np.random.default_rng(seed)
    codes = np.concatenate([np.arange(6), rng.integers(0, 6, size=n - 6)])
    X = np.column_stack([rng.normal(size=n), rng.normal(size=n), codes])
    y = (np.isin(codes, [1, 3, 4]) ^ (X[:, 0] > 1.0)).astype(int)
    return X, y


def _regression_targets(X):
    return np.sin(X[:, 0]) + 0.1 * X[:, 1] - X[:, 2] * X[:, 3] / 4.0


def _fitted(name):
    X, y = _categorical_data() if name == "categorical" else _data()
    classifiers = {
        "univariate": BivariateTreeClassifier(splitter="univariate", max_depth=4),
        "bivariate": BivariateTreeClassifier(max_depth=4, n_orientations=8),
        "must3": BivariateTreeClassifier(splitter="lda", max_depth=3,
                                         splitter_options={"n_split_features": 3}),
        "categorical": BivariateTreeClassifier(splitter="lda", max_depth=3, splitter_options={
            "categorical_features": [2]}),
        "tao": TAOTreeClassifier(alpha=0.0, max_depth=3, n_orientations=6),
    }
    regressors = {
        "regressor": BivariateTreeRegressor(max_depth=4, n_orientations=8),
        "tao_regressor": TAOTreeRegressor(alpha=0.0, max_depth=3, n_orientations=6),
    }
    if name in regressors:
        return regressors[name].fit(X, _regression_targets(X)), X
    return classifiers[name].fit(X, y), X


KINDS = ["univariate", "bivariate", "must3", "categorical", "tao", "regressor",
         "tao_regressor"]


@pytest.fixture(scope="module", params=KINDS)
def fitted(request):
    return _fitted(request.param)


def test_the_trees_have_the_node_kinds_they_stand_for():
    est, _ = _fitted("must3")
    assert est.tree_.n_node_features.max() == 3
    est, _ = _fitted("categorical")
    assert est.tree_.is_categorical.any()
    est, _ = _fitted("bivariate")
    assert est.tree_.n_node_features.max() == 2


def test_the_path_is_the_decision_path_and_each_side_the_routing_kernels(fitted):
    est, X = fitted
    tree = est.tree_
    paths = est.decision_path(X)
    leaves = est.apply(X)
    Xc = np.ascontiguousarray(X, dtype=np.float64)
    for i in range(X.shape[0]):
        result = explain(est, X[i])
        assert result.path == paths[i].indices.tolist()
        assert result.leaf.node == leaves[i]
        for step in result.steps:
            node = step.node
            assert step.goes_left == (step.child == tree.children_left[node])
            if step.is_categorical:
                code = X[i, tree.features[node, 0]]
                assert step.category == code
                assert step.in_set == in_category_set(code, tree.category_mask[node, 0])
                assert step.in_set == step.goes_left and step.margin is None
                continue
            # the very number apply compares with the threshold
            assert step.projection == project_row(Xc, i, tree.features[node],
                                                  tree.weights[node])
            assert step.threshold == tree.threshold[node]
            assert step.margin == step.threshold - step.projection
            assert (step.margin >= 0) == step.goes_left
            assert step.values == tuple(X[i, list(step.feature_indices)])


def test_the_prediction_and_leaf_are_predicts(fitted):
    est, X = fitted
    predictions = est.predict(X)
    for i in range(0, X.shape[0], 7):
        result = explain(est, X[i])
        assert result.prediction == predictions[i]
        leaf = result.leaf
        assert leaf.weighted_n_samples == est.tree_.weighted_n_node_samples[leaf.node]
        np.testing.assert_array_equal(leaf.value, est.tree_.value[leaf.node])
        if hasattr(est, "classes_"):
            np.testing.assert_array_equal(leaf.probabilities, est.predict_proba(X[i:i + 1])[0])
        else:
            assert leaf.probabilities is None


def test_contributions_add_up_to_the_prediction_for_every_training_row(fitted):
    est, X = fitted
    credit, root = contributions(est, X, return_root=True)
    if hasattr(est, "classes_"):
        assert credit.shape == (X.shape[0], X.shape[1], est.n_classes_)
        predicted = est.predict_proba(X)
        np.testing.assert_allclose(root, est.tree_.value[0] / est.tree_.value[0].sum(),
                                   rtol=0, atol=1e-15)
    else:
        assert credit.shape == X.shape
        predicted = est.predict(X)
    np.testing.assert_allclose(root + credit.sum(axis=1), predicted, rtol=0, atol=1e-12)
    for i in (0, 5, 17):
        result = explain(est, X[i])
        np.testing.assert_array_equal(result.contributions, credit[i])
        np.testing.assert_allclose(result.root_value + result.contributions.sum(axis=0),
                                   result.predicted_value, rtol=0, atol=1e-12)


def test_contributions_go_only_to_the_features_the_path_tests(fitted):
    est, X = fitted
    credit = contributions(est, X)
    for i in range(0, X.shape[0], 5):
        tested = {f for step in explain(est, X[i]).steps for f in step.feature_indices}
        untested = sorted(set(range(X.shape[1])) - tested)
        assert not np.any(credit[i][untested])


def test_a_multi_feature_node_shares_its_change_equally():
    X, y = _data()
    stump = BivariateTreeClassifier(splitter="lda", max_depth=1, splitter_options={
        "n_split_features": 3}).fit(X, y)
    credit = contributions(stump, X)
    features = stump.tree_.features[0][stump.tree_.features[0] >= 0]
    assert features.size == 3
    for f in features[1:]:
        np.testing.assert_array_equal(credit[:, f], credit[:, features[0]])


def test_a_categorical_node_credits_its_feature_and_prints_the_set():
    est, X = _fitted("categorical")
    result = explain(est, X[0], feature_names=["a", "b", "colour"])
    categorical = [s for s in result.steps if s.is_categorical]
    assert categorical
    step = categorical[0]
    assert step.features == ("colour",) and step.rule.startswith("colour in {")
    assert f"colour = {int(step.category)} in {{" in str(result)


def test_text_output_has_one_line_per_step_with_the_rule():
    est, X = _fitted("bivariate")
    names = ["alpha", "beta", "gamma", "delta"]
    result = explain(est, X[3], feature_names=names, class_names=["low", "mid", "high"])
    text = str(result)
    lines = text.splitlines()
    for step in result.steps:
        line = next(ln for ln in lines if ln.strip().startswith(f"node {step.node}:"))
        assert all(name in line for name in step.features)
        assert " <= " in line and "(margin " in line
        assert line.endswith("-> yes" if step.goes_left else "-> no")
        assert step.rule.split(" <= ")[0].split()[0] in line
    assert f"leaf {result.leaf.node}:" in text
    assert text.startswith(f"prediction: {['low', 'mid', 'high'][result.prediction]}")
    assert isinstance(result, Explanation)


def test_regressor_text_and_shapes():
    est, X = _fitted("regressor")
    result = explain(est, X[2])
    assert result.contributions.shape == (X.shape[1],)
    assert isinstance(result.root_value, float)
    assert "contributions to the prediction" in str(result)


# plain arrays and lists are also accepted, with scikit-learn's warning as for predict
@pytest.mark.filterwarnings("ignore:X does not have valid feature names")
def test_dataframe_and_series_rows_are_read_by_name():
    X, y = _data()
    frame = pd.DataFrame(X, columns=["w", "x", "y", "z"])
    est = BivariateTreeClassifier(max_depth=3, n_orientations=8).fit(frame, y)
    expected = explain(est, X[4])
    for row in (frame.iloc[[4]], frame.iloc[4], X[4].tolist(), X[4:5]):
        result = explain(est, row)
        assert result.path == expected.path
        assert result.feature_names == ("w", "x", "y", "z")
    step = expected.steps[0]
    assert step.features[0] in step.rule and step.features[0] in "wxyz"
    renamed = frame.iloc[[4]].rename(columns={"w": "v"})
    _same_error(est, renamed, renamed)


def _same_error(est, row, as_predict_input):
    with pytest.raises(Exception) as from_predict:  # the type is compared below
        est.predict(as_predict_input)
    with pytest.raises(type(from_predict.value)) as from_explain:
        explain(est, row)
    assert str(from_explain.value) == str(from_predict.value)
    with pytest.raises(type(from_predict.value)):
        contributions(est, as_predict_input)


@pytest.mark.parametrize("bad", ["wide", "narrow", "inf", "-inf"])
def test_bad_rows_give_predicts_errors(bad):
    est, X = _fitted("univariate")
    row = {"wide": np.append(X[0], 1.0), "narrow": X[0, :3],
           "-inf": np.where(np.arange(4) == 1, -np.inf, X[0]),
           "inf": np.where(np.arange(4) == 2, np.inf, X[0])}[bad]
    _same_error(est, row, row[None, :])


def test_unfitted_estimators_give_predicts_error():
    for est in (BivariateTreeClassifier(), TAOTreeRegressor()):
        _same_error(est, [0.0, 1.0], [[0.0, 1.0]])


def test_more_than_one_row_is_refused():
    est, X = _fitted("univariate")
    with pytest.raises(ValueError, match="one sample"):
        explain(est, X[:2])


# ------------------------------------------------------------------ indicator slots
def _indicator_fit():
    """The default search on a frame with a text column: its nodes add a colour's
    indicator to a numeric feature (``a + 1.2 * [colour in {red}] <= 0.36``)."""
    from test_categorical_features import categorical_fit_data

    frame, y = categorical_fit_data(0, n=200)
    est = BivariateTreeClassifier(max_depth=2).fit(frame, y)
    assert est.tree_.has_indicator_slots.any()
    return est, frame


def _two_indicator_fit():
    rng = np.random.default_rng(0)
    frame = pd.DataFrame({"c1": rng.choice(list("xyz"), 300),
                          "c2": rng.choice(list("wxyz"), 300)})
    y = ((frame["c1"] == "x") & (frame["c2"] == "y")).astype(int)
    est = BivariateTreeClassifier(max_depth=2).fit(frame, y)
    assert (est.tree_.category_mask[0] != 0).all() and est.tree_.features[0, 1] >= 0
    return est, frame


def _indicator(code, mask):
    """What an indicator slot reads, written out: NaN, or whether the code is in the set."""
    if np.isnan(code):
        return np.nan
    return float(float(code).is_integer() and 0 <= code <= 63 and (int(mask) >> int(code)) & 1)


def _check_indicator_steps(est, rows):
    tree = est.tree_
    X = est._validate_X_predict(rows)
    paths = est.decision_path(rows)
    seen = set()
    for i in range(len(rows)):
        result = explain(est, rows.iloc[[i]])
        assert result.path == paths[i].indices.tolist()
        for step in result.steps:
            node = step.node
            assert step.goes_left == (step.child == tree.children_left[node])
            used = tree.features[node] >= 0
            masks = tree.category_mask[node][used]
            assert step.has_indicator_slots == bool(masks.any())
            assert step.indicator_categories == tuple(
                tuple(int(c) for c in range(64) if (int(m) >> c) & 1) or None for m in masks)
            # an indicator slot reads 1 in the set, 0 for another category, NaN if missing
            values = [_indicator(X[i, f], m) if m else X[i, f]
                      for f, m in zip(tree.features[node][used], masks)]
            np.testing.assert_array_equal(step.values, values)
            total = 0.0
            for w, v in zip(tree.weights[node][used], values):
                total += w * v
            np.testing.assert_array_equal(step.projection, total)
            assert step.missing == bool(np.isnan(total))
            if step.missing:
                assert np.isnan(step.margin)
                assert step.goes_left == tree.missing_go_left[node]
            else:
                assert step.margin == step.threshold - step.projection
                assert (step.margin >= 0) == step.goes_left
            seen.update((k, v) for k, v in enumerate(values)
                        if masks[k] and not np.isnan(v))
            if step.missing:
                seen.add(("missing", True))
    return seen


def test_indicator_steps_report_what_the_rule_reads():
    est, frame = _indicator_fit()
    rows = pd.concat([frame.head(60),
                      frame.head(6).assign(colour=["red", None, "purple", "blue", "red", None]),
                      frame.head(2).assign(a=np.nan)], ignore_index=True)
    seen = _check_indicator_steps(est, rows)
    # both indicator values and missing ones (None, an unseen category, a missing a) met
    assert {(1, 0.0), (1, 1.0), ("missing", True)} <= seen


def test_two_indicator_steps_and_their_text():
    est, frame = _two_indicator_fit()
    rows = pd.concat([frame.head(40), frame[(frame["c1"] == "x") & (frame["c2"] == "y")].head(3),
                      frame.head(2).assign(c2=[None, "v"])], ignore_index=True)
    seen = _check_indicator_steps(est, rows)
    assert {(0, 1.0), (1, 1.0), (0, 0.0), (1, 0.0), ("missing", True)} <= seen
    result = explain(est, frame[(frame["c1"] == "x") & (frame["c2"] == "y")].iloc[0])
    step = result.steps[0]
    assert step.values == (1.0, 1.0) and not step.goes_left
    # the rule reads as the boolean test it is, the step line as the sum it computes
    assert step.rule == "c1 not in {x} or c2 not in {y}"
    line = str(result).splitlines()[2]
    w = format_number(step.weights[1], 4)
    assert line.startswith(f"  node 0: [c1 in {{x}}] + {w} * [c2 in {{y}}] = ")
    assert line.endswith("-> no") and "(margin -" in line


def test_an_indicator_step_prints_its_sum_with_category_values():
    est, frame = _indicator_fit()
    tree = est.tree_
    # a Series of a frame mixing text and numbers is read as the frame's row
    result = explain(est, frame.iloc[3])
    assert result.path == est.decision_path(frame.iloc[[3]]).indices.tolist()
    step = result.steps[0]
    codes = step.indicator_categories[1]
    name = ", ".join(est.categories_[2][c] for c in codes)
    # the first line, "if RULE:  # its two thresholds"
    assert step.rule == export_text(est, decimals=None).splitlines()[0][3:].split(":  # ")[0]
    assert f"[colour in {{{name}}}]" in step.rule
    line = str(result).splitlines()[2]
    w = tree.weights[0, 1]
    term = f"{'+' if w > 0 else '-'} {format_number(abs(w), 4)}"
    assert line.startswith(f"  node 0: a {term} * [colour in {{{name}}}] = "
                           f"{format_number(step.projection, 5)} <= ")
    # a missing colour: the node's test, then its missing side, named as such, with the
    # one feature this sample misses (not the node's other one)
    missing = explain(est, frame.iloc[[3]].assign(colour=None))
    assert missing.steps[0].missing
    test = line.split(" = ")[0][len("  node 0: "):] + " <= " + line.split(" <= ")[1].split()[0]
    assert str(missing).splitlines()[2] == (
        f"  node 0: {test}: colour is missing  -> "
        f"{'yes' if tree.missing_go_left[0] else 'no'} (the node's side for missing values)")
    # an unseen category reads as missing, and both features missing are both named
    unseen = explain(est, frame.iloc[[3]].assign(colour="purple", a=np.nan))
    assert str(unseen).splitlines()[2].startswith(f"  node 0: {test}: a or colour is missing  -> ")


def test_a_categorical_step_passed_by_the_missing_side_prints_its_set():
    """A sample missing the column of a categorical node: the node's set, then the missing
    column and its side (the line named only the missing column)."""
    rng = np.random.default_rng(1)
    frame = pd.DataFrame({"plan": rng.choice(["gold", "silver", "basic"], 200)})
    frame.loc[::9, "plan"] = None
    y = (frame["plan"] == "gold").astype(int)
    est = BivariateTreeClassifier(max_depth=1, splitter="univariate").fit(frame, y)
    assert est.tree_.is_categorical[0]
    step = explain(est, frame.iloc[[0]]).steps[0]
    assert step.missing
    members = ", ".join(est.categories_[0][c] for c in step.categories)
    side = "yes" if est.tree_.missing_go_left[0] else "no"
    assert str(explain(est, frame.iloc[[0]])).splitlines()[2] == (
        f"  node 0: plan in {{{members}}}: plan is missing  -> {side} "
        "(the node's side for missing values)")
