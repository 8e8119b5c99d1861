"""ONNX exports route every row exactly as ``apply`` does.

Models run in ONNX Runtime; labels, probabilities and values are compared bit
for bit with the estimator's on training-like rows, on rows from a wider range,
on rows lying exactly at (and one unit in the last place around) the stored
thresholds, on category codes the tree never saw and on missing values, for
trees with indicator slots (a category set's indicator as a term of a linear
test) too. The skl2onnx converter is checked inside a ``StandardScaler``
pipeline, in double (exact end to end) and in float32 (exact for the values the
scaler's float32 graph hands the tree).
"""

import copy
import sys

import numpy as np
import pytest

ort = pytest.importorskip("onnxruntime")
onnx = pytest.importorskip("onnx")

from sklearn.exceptions import NotFittedError
from sklearn.pipeline import Pipeline
from sklearn.preprocessing import StandardScaler
from sklearn.tree import DecisionTreeClassifier

from bivtree import (
    BivariateTreeClassifier,
    BivariateTreeRegressor,
    TAOTreeClassifier,
    TAOTreeRegressor,
    Tree,
)
from bivtree.export.onnx import export_onnx, register_skl2onnx_converters
from test_export_code import indicator_tree_classifier
from test_model_files import chain_classifier

N_FEATURES = 4
N_FIT = 400

_MODELS = {
    "univariate": lambda reg: _cls(reg)(splitter="univariate", max_depth=7),
    "orientations": lambda reg: _cls(reg)(max_depth=7),
    "must3": lambda reg: BivariateTreeClassifier(
        splitter="lda", max_depth=7, splitter_options={"n_split_features": 3}),
    "must_categorical": lambda reg: BivariateTreeClassifier(
        splitter="lda", max_depth=7, splitter_options={"categorical_features": [3]}),
    "tao": lambda reg: (TAOTreeRegressor if reg else TAOTreeClassifier)(
        alpha=0.001, max_depth=4),
}
_CASES = [(name, False) for name in _MODELS] + [
    (name, True) for name in ("univariate", "orientations", "tao")]


def _cls(regression):
    return BivariateTreeRegressor if regression else BivariateTreeClassifier


def _features(n, seed, spread=1.0):
    rng = np.random.default_rng(seed)
    X = rng.normal(scale=spread, size=(n, N_FEATURES))
    X[:, 3] = rng.integers(0, 7, size=n)  # category codes (a number elsewhere)
    return X


def _targets(X, regression):
    signal = X[:, 0] + 0.7 * X[:, 1] - 0.4 * X[:, 2] + np.isin(X[:, 3], (1, 4, 5))
    if regression:
        return signal + np.sin(3.0 * X[:, 1])
    return np.where(signal > 0.8, "high", np.where(signal > -0.5, "mid", "low"))


@pytest.fixture(scope="module", params=_CASES, ids=lambda c: f"{c[0]}-{'reg' if c[1] else 'clf'}")
def fitted(request):
    name, regression = request.param
    X = _features(N_FIT, seed=0)
    estimator = _MODELS[name](regression).fit(X, _targets(X, regression))
    return estimator, _evaluation_rows(estimator, X)


def _evaluation_rows(estimator, X):
    """Training rows, rows from a wider range, rows at the thresholds, odd codes."""
    tree = estimator.tree_
    rng = np.random.default_rng(1)
    rows = [X, _features(2000, seed=2, spread=3.0)]
    at = []
    for node in np.flatnonzero((tree.children_left != -1) & ~tree.is_categorical):
        used = tree.features[node] >= 0
        feats, weights = tree.features[node][used], tree.weights[node][used]
        t = tree.threshold[node]
        for value in (np.nextafter(t, -np.inf), t, np.nextafter(t, np.inf)):
            for _ in range(3):
                row = X[rng.integers(len(X))].copy()
                # the first weight is 1: solve for the first feature, which puts the
                # projection at the threshold up to rounding (exactly, for one feature)
                row[feats[0]] = value - np.dot(weights[1:], row[feats[1:]])
                at.append(row)
    rows.append(np.array(at).reshape(-1, N_FEATURES))
    odd = X[:10].copy()
    odd[:, 3] = [7.0, 2.5, -1.0, 63.0, 64.0, -0.0, 1e300, 3.0 + 2 ** -40, 0.5, -1e-300]
    rows.append(odd)
    return np.vstack(rows)


def _session(model):
    return ort.InferenceSession(model.SerializeToString(), providers=["CPUExecutionProvider"])


def _run(model, X):
    """The model's outputs by name."""
    session = _session(model)
    names = [o.name for o in session.get_outputs()]
    return dict(zip(names, session.run(None, {session.get_inputs()[0].name: X})))


def _expected(estimator, leaves):
    """What predict / predict_proba give for rows reaching ``leaves``, from the tree."""
    counts = estimator.tree_.value[leaves]
    if not hasattr(estimator, "classes_"):
        return {"variable": counts[:, :1]}
    totals = counts.sum(axis=1, keepdims=True)
    proba = counts / np.where(totals > 0, totals, 1.0)
    return {"label": estimator.classes_[np.argmax(proba, axis=1)], "probabilities": proba}


def _float32_outputs(expected):
    """``expected`` as a float-input model returns it: probabilities and values in float32."""
    return {key: value.astype(np.float32) if key in ("probabilities", "variable") else value
            for key, value in expected.items()}


def _assert_same(got, expected):
    assert got.keys() == expected.keys()
    for key, value in expected.items():
        assert got[key].shape == value.shape, key
        assert np.array_equal(got[key], value), key


# ---------------------------------------------------------------------- standalone models
def test_double_model_predicts_as_the_estimator(fitted):
    estimator, X = fitted
    model = export_onnx(estimator)
    onnx.checker.check_model(model, full_check=True)
    assert {node.domain for node in model.graph.node} <= {"", "ai.onnx.ml"}
    got = _run(model, X)
    if hasattr(estimator, "classes_"):
        assert got["probabilities"].dtype == np.float64
        _assert_same(got, {"label": estimator.predict(X),
                           "probabilities": estimator.predict_proba(X)})
    else:
        assert got["variable"].dtype == np.float64
        _assert_same(got, {"variable": estimator.predict(X)[:, None]})
    _assert_same(got, _expected(estimator, estimator.apply(X)))
    print(f"{len(X)} rows, {estimator.tree_.node_count} nodes: identical")


def test_float_model_routes_float32_values_as_apply(fitted):
    estimator, X = fitted
    with np.errstate(over="ignore"):
        X32 = X.astype(np.float32)  # 1e300 becomes infinity, which the tree's apply takes
    got = _run(export_onnx(estimator, input_type="float"), X32)
    expected = _expected(estimator, estimator.tree_.apply(X32.astype(np.float64)))
    expected = _float32_outputs(expected)
    _assert_same(got, expected)


def test_missing_values_take_the_missing_sides(fitted):
    estimator, X = fitted
    missing = np.repeat(X[:5], N_FEATURES, axis=0)
    missing[np.arange(len(missing)), np.tile(np.arange(N_FEATURES), 5)] = np.nan
    _assert_same(_run(export_onnx(estimator), missing),
                 _expected(estimator, estimator.tree_.apply(missing)))


@pytest.mark.parametrize("regression", [False, True])
def test_tree_grown_with_missing_values_routes_them_as_apply(regression):
    X = _features(1200, seed=11)
    y = X[:, 0] + 0.5 * X[:, 1] if regression else (X[:, 0] + 0.5 * X[:, 1] > 0).astype(int)
    X[np.random.default_rng(2).uniform(size=X.shape) < 0.2] = np.nan
    cls = BivariateTreeRegressor if regression else BivariateTreeClassifier
    estimator = cls(max_depth=6).fit(X[:800], y[:800])
    assert estimator.tree_.missing_go_left.any()
    _assert_same(_run(export_onnx(estimator), X), _expected(estimator, estimator.apply(X)))


def _one_node_classifier(weights, threshold):
    """A classifier whose tree is one linear test over ``len(weights)`` features, and data."""
    n = len(weights)
    X = _features(50, seed=8)[:, :n]
    clf = BivariateTreeClassifier(max_depth=1).fit(X, X[:, 0] > 0)
    clf.tree_ = Tree([1, -1, -1], [2, -1, -1], [list(range(n)), [-1] * n, [-1] * n],
                     [list(weights), [0.0] * n, [0.0] * n], [threshold, -2.0, -2.0],
                     [0.5, 0.0, 0.0], [3, 1, 2], [3.0, 1.0, 2.0],
                     [[1.0, 2.0], [1.0, 0.0], [0.0, 2.0]], n)
    return clf


@pytest.mark.parametrize("weights", [[1.0, 1 / 3], [1.0, 0.1, -7 / 3], [0.7, -1 / 3, 0.1]])
def test_projection_is_rounded_as_project_row(weights):
    """At the threshold, one rounding more or less (a fused multiply-add, another
    summation order) changes the side; the model's arithmetic is project_row's."""
    t = 0.3
    clf = _one_node_classifier(weights, t)
    rng = np.random.default_rng(9)
    X = rng.normal(scale=10.0, size=(20_000, len(weights)))
    rest = X[:, 1:] @ np.asarray(weights[1:])
    X[:, 0] = (t - rest) / weights[0]
    for steps in (-2, -1, 1, 2):
        shifted = X[: 2000].copy()
        shifted[:, 0] = X[:2000, 0] + steps * np.spacing(X[:2000, 0])
        X = np.vstack([X, shifted])
    leaves = clf.apply(X)
    if np.finfo(np.longdouble).nmant > 52:
        # the test has teeth: the sum rounded once (as a fused multiply-add or a wider
        # accumulator would give) routes many of these rows otherwise
        wide = (X.astype(np.longdouble) * np.asarray(weights, dtype=np.longdouble)).sum(axis=1)
        assert np.count_nonzero((wide.astype(np.float64) <= t) != (leaves == 1)) > 100
    got = _run(export_onnx(clf), X)
    _assert_same(got, _expected(clf, leaves))


def test_single_leaf_tree():
    X = _features(50, seed=5)
    reg = BivariateTreeRegressor().fit(X, np.full(50, 2.5))
    assert reg.tree_.node_count == 1
    got = _run(export_onnx(reg), X)
    assert np.array_equal(got["variable"], np.full((50, 1), 2.5))
    clf = BivariateTreeClassifier(min_samples_split=100).fit(X, X[:, 0] > 0)
    assert clf.tree_.node_count == 1
    got = _run(export_onnx(clf), X)
    _assert_same(got, {"label": clf.predict(X), "probabilities": clf.predict_proba(X)})


def test_chain_5000_deep():
    clf, X = chain_classifier()
    got = _run(export_onnx(clf), X)
    _assert_same(got, {"label": clf.predict(X), "probabilities": clf.predict_proba(X)})
    deepest = np.array([[1e9, 1e9]])  # goes right at every test, 5,000 levels down
    assert np.array_equal(_run(export_onnx(clf), deepest)["label"], clf.predict(deepest))


@pytest.mark.parametrize("labels", [[3, 7], [-5, 2], ["it's", "b"]], ids=["int", "neg", "str"])
def test_integer_and_string_labels(labels):
    X = _features(300, seed=4)
    y = np.array(labels, dtype=object if isinstance(labels[0], str) else None)[
        (X[:, 0] + X[:, 1] > 0).astype(int)]
    clf = BivariateTreeClassifier(max_depth=3).fit(X, y)
    model = export_onnx(clf)
    label_type = model.graph.output[0].type.tensor_type.elem_type
    assert label_type == (onnx.TensorProto.STRING if isinstance(labels[0], str)
                          else onnx.TensorProto.INT64)
    got = _run(model, X)
    assert np.array_equal(got["label"], clf.predict(X))


def test_feature_names_are_kept_as_metadata():
    pd = pytest.importorskip("pandas")
    X = pd.DataFrame(_features(200, seed=6), columns=["a", "b", "c", "d"])
    clf = BivariateTreeClassifier(max_depth=2).fit(X, X["a"] > 0)
    props = {p.key: p.value for p in export_onnx(clf).metadata_props}
    assert props["feature_names"] == '["a", "b", "c", "d"]'


# ---------------------------------------------------------------------- errors
def test_errors():
    X = _features(100, seed=7)
    with pytest.raises(NotFittedError):
        export_onnx(BivariateTreeClassifier())
    with pytest.raises(TypeError, match="DecisionTreeClassifier"):
        export_onnx(DecisionTreeClassifier().fit(X, X[:, 0] > 0))
    clf = BivariateTreeClassifier(max_depth=2).fit(X, X[:, 0] > 0)
    with pytest.raises(ValueError, match="input_type"):
        export_onnx(clf, input_type="float16")
    with pytest.raises(ValueError, match="output"):
        export_onnx(clf, input_name="label")
    with pytest.raises(ValueError, match="opset 13"):
        export_onnx(clf, target_opset=12)
    floats = BivariateTreeClassifier(max_depth=2).fit(X, np.where(X[:, 0] > 0, 1.0, 0.0))
    with pytest.raises(ValueError, match="integer or string labels"):
        export_onnx(floats)


@pytest.mark.parametrize("module", ["onnx.helper", "skl2onnx"])
def test_missing_packages_say_how_to_install(monkeypatch, module):
    X = _features(100, seed=7)
    clf = BivariateTreeClassifier(max_depth=2).fit(X, X[:, 0] > 0)
    monkeypatch.setitem(sys.modules, module, None)
    with pytest.raises(ImportError, match=r"pip install bivtree\[onnx\]"):
        if module == "skl2onnx":
            register_skl2onnx_converters()
        else:
            export_onnx(clf)


# ---------------------------------------------------------------------- skl2onnx
@pytest.fixture(scope="module")
def pipeline():
    pytest.importorskip("skl2onnx")
    register_skl2onnx_converters()
    register_skl2onnx_converters()  # a second call does nothing
    X = _features(N_FIT, seed=10)
    y = _targets(X, False)
    scale, shift = np.array([1.0, 30.0, 0.01, 1.0]), np.array([0.0, 100.0, 5.0, 0.0])
    X = X * scale + shift  # a scaler that changes the numbers
    pipe = Pipeline([("scale", StandardScaler()), ("tree", BivariateTreeClassifier(max_depth=7))])
    pipe.fit(X, y)
    scaler, tree = pipe.steps[0][1], pipe.steps[-1][1]
    # rows near the tree's thresholds, in the pipeline's input units
    near = scaler.inverse_transform(_evaluation_rows(tree, scaler.transform(X))[N_FIT + 2000:-10])
    return pipe, np.vstack([X, _features(2000, seed=11, spread=3.0) * scale + shift, near])


def _convert(model, X, **options):
    from skl2onnx import to_onnx

    return to_onnx(model, X[:1], options={id(model.steps[-1][1]): options} if options else None)


def test_double_pipeline_is_exact(pipeline):
    pipe, X = pipeline
    got = _run(_convert(pipe, X, zipmap=False), X)
    _assert_same(got, {"label": pipe.predict(X), "probabilities": pipe.predict_proba(X)})


def _scaled_by_onnx(pipe, X):
    """What the pipeline's first step hands the tree in ONNX Runtime."""
    from skl2onnx import to_onnx

    return _run(to_onnx(pipe.steps[0][1], X[:1]), X)["variable"]


def test_float_pipeline_is_exact_for_the_values_the_tree_receives(pipeline):
    """The float32 scaler rounds otherwise than scikit-learn's float64 one; the tree
    step routes what it receives exactly."""
    pipe, X = pipeline
    X32 = X.astype(np.float32)
    got = _run(_convert(pipe, X32, zipmap=False), X32)
    assert got["probabilities"].dtype == np.float32
    tree = pipe.steps[-1][1]
    expected = _expected(tree, tree.apply(_scaled_by_onnx(pipe, X32).astype(np.float64)))
    expected["probabilities"] = expected["probabilities"].astype(np.float32)
    _assert_same(got, expected)
    differ = np.count_nonzero(got["label"] != pipe.predict(X32.astype(np.float64)))
    print(f"float32 pipeline: {differ} of {len(X)} labels differ from scikit-learn's")
    assert differ < 0.05 * len(X)


@pytest.mark.parametrize("dtype", [np.float32, np.float64])
def test_pipeline_with_zipmap_nocl_and_a_regressor(pipeline, dtype):
    pipe, X = pipeline
    X = X.astype(dtype)
    session = _session(_convert(pipe, X))
    labels, maps = session.run(None, {session.get_inputs()[0].name: X})
    plain = _run(_convert(pipe, X, zipmap=False), X)
    assert np.array_equal(labels, plain["label"])
    # ZipMap holds float32: a double graph rounds the probabilities once for it
    assert [list(m) for m in maps[:3]] == [list(pipe.classes_)] * 3
    assert np.array_equal([[m[c] for c in pipe.classes_] for m in maps],
                          plain["probabilities"].astype(np.float32))
    indices = _run(_convert(pipe, X, zipmap=False, nocl=True), X)["label"]
    assert np.array_equal(pipe.classes_[indices], plain["label"])
    reg = Pipeline([("scale", StandardScaler()),
                    ("tree", TAOTreeRegressor(alpha=0.001, max_depth=3))])
    reg.fit(X[:N_FIT].astype(np.float64), _targets(X[:N_FIT], True))
    got = _run(_convert(reg, X), X)
    tree = reg.steps[-1][1]
    if dtype == np.float64:
        _assert_same(got, {"variable": reg.predict(X)[:, None]})
    else:
        leaves = tree.apply(_scaled_by_onnx(reg, X).astype(np.float64))
        _assert_same(got, {"variable": tree.tree_.value[leaves, :1].astype(np.float32)})


def test_tao_selectors_in_a_pipeline_convert_as_their_chosen_trees():
    """skl2onnx converts a pipeline ending in a TAO selector (its options, such as zipmap,
    given for the selector) as the pipeline of its chosen tree."""
    pytest.importorskip("skl2onnx")
    from skl2onnx import to_onnx

    from bivtree import TAOTreeClassifierCV, TAOTreeRegressorCV

    register_skl2onnx_converters()
    X = _features(300, seed=12)
    small = {"feature_costs": [1.0], "inits": ["bivariate"], "n_lambdas": 3, "max_depth": 4,
             "cv": 2, "random_state": 0}
    clf = Pipeline([("scale", StandardScaler()), ("tree", TAOTreeClassifierCV(**small))])
    clf.fit(X, _targets(X, False))
    model = to_onnx(clf, X[:1], options={TAOTreeClassifierCV: {"zipmap": False}})
    _assert_same(_run(model, X), {"label": clf.predict(X), "probabilities": clf.predict_proba(X)})
    reg = Pipeline([("scale", StandardScaler()), ("tree", TAOTreeRegressorCV(**small))])
    reg.fit(X, _targets(X, True))
    _assert_same(_run(to_onnx(reg, X[:1]), X), {"variable": reg.predict(X)[:, None]})


def test_cost_complexity_selectors_in_a_pipeline_convert_as_their_chosen_trees():
    """skl2onnx converts a pipeline ending in CostComplexityCV as the pipeline of its
    chosen tree: bivtree's (the selector's options, such as zipmap, given for the
    selector) or scikit-learn's (skl2onnx's own converter; a float graph, which is
    what skl2onnx builds for its trees). Before, skl2onnx found no converter for it."""
    pytest.importorskip("skl2onnx")
    from skl2onnx import to_onnx
    from sklearn.tree import DecisionTreeRegressor

    from bivtree.model_selection import CostComplexityCV

    register_skl2onnx_converters()
    X = _features(300, seed=13)
    y_class, y_value = _targets(X, False), _targets(X, True)
    clf = Pipeline([("scale", StandardScaler()),
                    ("tree", CostComplexityCV(BivariateTreeClassifier(max_depth=5), cv=2))])
    clf.fit(X, y_class)
    model = to_onnx(clf, X[:1], options={CostComplexityCV: {"zipmap": False}})
    _assert_same(_run(model, X), {"label": clf.predict(X), "probabilities": clf.predict_proba(X)})
    reg = Pipeline([("scale", StandardScaler()),
                    ("tree", CostComplexityCV(BivariateTreeRegressor(max_depth=5), cv=2))])
    reg.fit(X, y_value)
    _assert_same(_run(to_onnx(reg, X[:1]), X), {"variable": reg.predict(X)[:, None]})
    for estimator, y in ((DecisionTreeClassifier(random_state=0), y_class),
                         (DecisionTreeRegressor(random_state=0), y_value)):
        sel = CostComplexityCV(estimator, cv=2).fit(X, y)
        X32 = X.astype(np.float32)
        is_classifier = y is y_class
        got = _run(to_onnx(sel, X32[:1], options={id(sel): {"zipmap": False}}
                           if is_classifier else None), X32)
        # skl2onnx's own tree graph: the chosen tree's predictions on the float32 rows
        expected = sel.best_estimator_.predict(X32)
        if is_classifier:
            np.testing.assert_array_equal(got["label"], expected)
        else:
            np.testing.assert_allclose(got["variable"].ravel(), expected, rtol=1e-6)


# ---------------------------------------------------------------------- indicator slots
def _indicator(codes, mask):
    """``slot_value`` of an indicator slot: 1.0 in the set, 0.0 otherwise, NaN for NaN."""
    valid = (codes >= 0) & (codes <= 63) & (codes == np.floor(codes))
    bits = np.array([(int(mask) >> int(c)) & 1 if v else 0 for c, v in zip(codes, valid)])
    return np.where(np.isnan(codes), np.nan, bits.astype(float))


def _rows_at_indicator_thresholds(tree, X):
    """Rows whose numeric slot puts the sum of a node with an indicator slot at (and one
    unit in the last place around) its threshold."""
    rng = np.random.default_rng(3)
    rows = []
    for node in np.flatnonzero(tree.has_indicator_slots):
        f, w, m = tree.features[node], tree.weights[node], tree.category_mask[node]
        if m[0] != 0 or f[1] < 0:
            continue  # the first slot is an indicator: no number to solve for
        for _ in range(6):
            row = X[rng.integers(len(X))].copy()
            t = tree.threshold[node] - w[1] * _indicator(row[f[1:2]], m[1])[0]
            for value in (np.nextafter(t, -np.inf), t, np.nextafter(t, np.inf)):
                rows.append(row.copy())
                rows[-1][f[0]] = value
    return np.array(rows).reshape(-1, X.shape[1])


@pytest.mark.parametrize("regression", [False, True], ids=["clf", "reg"])
def test_fitted_indicator_slots_route_as_apply(regression):
    """The default search pairs numbers with category sets' indicators. The model of
    ``categorical_features`` takes category values (here equal to their codes), which the
    graph maps to codes first; the same tree reading the codes converts as well."""
    X = _features(N_FIT, seed=0)
    est = _cls(regression)(max_depth=7, categorical_features=[3]).fit(X, _targets(X, regression))
    tree = est.tree_
    assert tree.has_indicator_slots.any()
    assert est.categories_[3].tolist() == list(range(7))
    rows = _evaluation_rows(est, X)  # fractions and codes never seen: missing values
    _assert_same(_run(export_onnx(est), rows), _expected(est, est.apply(rows)))
    on_codes = copy.copy(est)
    on_codes.categories_ = None
    missing = np.repeat(X[:5], N_FEATURES, axis=0)
    missing[np.arange(len(missing)), np.tile(np.arange(N_FEATURES), 5)] = np.nan
    at = _rows_at_indicator_thresholds(tree, X)
    assert len(at)
    rows = np.vstack([_evaluation_rows(on_codes, X), missing, at])
    _assert_same(_run(export_onnx(on_codes), rows), _expected(on_codes, tree.apply(rows)))
    with np.errstate(over="ignore"):
        rows32 = rows.astype(np.float32)  # 1e300 becomes infinity, which apply takes
    got = _run(export_onnx(on_codes, input_type="float"), rows32)
    expected = _expected(on_codes, tree.apply(rows32.astype(np.float64)))
    expected = _float32_outputs(expected)
    _assert_same(got, expected)


@pytest.mark.parametrize("regression", [False, True], ids=["clf", "reg"])
@pytest.mark.parametrize("max_categories", [None, 4])
def test_numeric_category_values_are_mapped_to_their_codes(regression, max_categories):
    """Categories that are numbers but not codes (negative, fractional, sparse), some
    grouped as infrequent: the graph maps each value to its code, and any other value
    (unseen, NaN) to a missing one, as predict does."""
    rng = np.random.default_rng(5)
    n = 800
    levels = np.array([3.0, 10.0, 40.0, 7.5, -2.0, 100.0])
    X = np.column_stack([rng.normal(size=(n, 2)), rng.choice(levels, n, p=[.3, .25, .2, .1,
                                                                           .1, .05])])
    score = X[:, 0] + 1.2 * np.isin(X[:, 2], [10.0, 7.5]) - X[:, 1] * (X[:, 2] == 40.0)
    y = score if regression else (score > 0.2).astype(int)
    est = _cls(regression)(categorical_features=[2], max_categories=max_categories,
                           random_state=0).fit(X, y)
    assert est.tree_.has_indicator_slots.any()
    if max_categories is not None:
        assert est.infrequent_categories_[2] is not None
    odd = np.repeat(X[:8], 1, axis=0)
    odd[:, 2] = [np.nan, 5.0, 3.5, 0.0, 7.0, -2.0000001, 1e300, 100.0]
    odd[0, 0] = np.nan
    rows = np.vstack([X, odd])
    model = export_onnx(est)
    onnx.checker.check_model(model, full_check=True)
    expected = {"variable": est.predict(rows)[:, None]} if regression else {
        "label": est.predict(rows), "probabilities": est.predict_proba(rows)}
    _assert_same(_run(model, rows), expected)
    _assert_same(_run(model, rows), _expected(est, est.apply(rows)))


def _text_frame(n, seed):
    """A table with a number, a text category (some missing) and a numeric category."""
    import pandas as pd

    rng = np.random.default_rng(seed)
    frame = pd.DataFrame({"a": rng.normal(size=n),
                          "colour": rng.choice(["red", "green", "blue", "grey", "teal"], n,
                                               p=[.3, .3, .2, .15, .05]).astype(object),
                          "size": rng.choice([1.0, 2.0, 5.0], n)})
    frame.loc[rng.random(n) < 0.1, "colour"] = None
    frame.loc[rng.random(n) < 0.05, "a"] = np.nan
    return frame


def _text_targets(frame, regression):
    score = (frame["a"].fillna(0.0) + 1.5 * frame["colour"].isin(["red", "teal"])
             - 0.8 * (frame["size"] == 5.0)).to_numpy()
    return score if regression else np.where(score > 0.5, "yes", "no")


def _column_feed(frame, dtype="float64"):
    """One (N, 1) input per column: text as strings (a missing one as ''), else numbers."""
    return {name: (frame[[name]].fillna("").to_numpy(object) if name == "colour"
                   else frame[[name]].to_numpy(dtype)) for name in frame.columns}


@pytest.mark.parametrize("regression", [False, True], ids=["clf", "reg"])
@pytest.mark.parametrize("max_categories", [None, 3])
@pytest.mark.parametrize("input_type", ["double", "float"])
def test_text_categories_take_one_string_input_per_column(regression, max_categories,
                                                          input_type):
    """Each string maps to its code (grouped infrequent ones to theirs); a string not seen
    at fit (empty, another case, a space more) is a missing value, as predict reads it."""
    frame = _text_frame(700, seed=6)
    # shallow: leaves of mixed classes, so a row sent to another leaf changes the output
    est = _cls(regression)(categorical_features=["colour", "size"], max_depth=3,
                           max_categories=max_categories, random_state=0).fit(
        frame, _text_targets(frame, regression))
    if max_categories is not None:
        assert est.infrequent_categories_[1] is not None
    model = export_onnx(est, input_type=input_type)  # inputs="auto": by column
    onnx.checker.check_model(model, full_check=True)
    value_type = onnx.TensorProto.FLOAT if input_type == "float" else onnx.TensorProto.DOUBLE
    assert [(i.name, i.type.tensor_type.elem_type) for i in model.graph.input] == [
        ("a", value_type), ("colour", onnx.TensorProto.STRING), ("size", value_type)]
    rows = frame.copy()
    rows.loc[:7, "colour"] = ["purple", "", "Red", "red ", "teal", "grey", None, "green"]
    rows.loc[8:10, "size"] = [3.0, np.nan, 5.0]
    if input_type == "float":
        rows["a"] = rows["a"].astype(np.float32).astype(np.float64)
    session = _session(model)
    got = dict(zip([o.name for o in session.get_outputs()],
                   session.run(None, _column_feed(rows, np.float32 if input_type == "float"
                                                  else np.float64))))
    expected = _expected(est, est.apply(rows))
    if regression:
        assert np.array_equal(expected["variable"], est.predict(rows)[:, None])
    else:
        assert np.array_equal(expected["label"], est.predict(rows))
        assert np.array_equal(expected["probabilities"], est.predict_proba(rows))
    if input_type == "float":
        expected = _float32_outputs(expected)
    _assert_same(got, expected)


def test_column_inputs_of_a_numeric_model_predict_as_its_matrix_input(fitted):
    estimator, X = fitted
    by_column = export_onnx(estimator, inputs="columns")
    session = _session(by_column)
    assert [i.name for i in session.get_inputs()] == [f"x{f}" for f in range(N_FEATURES)]
    got = dict(zip([o.name for o in session.get_outputs()],
                   session.run(None, {f"x{f}": X[:, f:f + 1] for f in range(N_FEATURES)})))
    _assert_same(got, _run(export_onnx(estimator), X))


def test_text_categories_need_column_inputs_and_strings_only():
    import pandas as pd

    frame = _text_frame(200, seed=7)
    est = BivariateTreeClassifier(categorical_features=["colour", "size"]).fit(
        frame, _text_targets(frame, False))
    with pytest.raises(ValueError, match=r"column\(s\) \['colour'\] from values that are "
                                         r"not numbers.*inputs='columns'.*export_python"):
        export_onnx(est, inputs="matrix")
    with pytest.raises(ValueError, match="inputs must be"):
        export_onnx(est, inputs="frame")
    # a feature named as an output cannot be an input
    named = BivariateTreeClassifier(categorical_features=["colour"]).fit(
        frame.rename(columns={"a": "label"}), _text_targets(frame, False))
    with pytest.raises(ValueError, match="feature name 'label' is the name of an output"):
        export_onnx(named)
    # a column of text and numbers has no one ONNX type
    values = np.array(["red"] * 200, dtype=object)
    values[::3] = 7
    mixed = frame.assign(colour=pd.Categorical(values))
    est = BivariateTreeClassifier(categorical_features=["colour"]).fit(
        mixed, _text_targets(frame, False))
    with pytest.raises(ValueError, match=r"\['colour'\] mix text with other values"):
        export_onnx(est)


def test_hand_built_indicator_slots_route_as_apply():
    """Two sets on two features, two on one feature, a number and a set, a categorical
    node: codes in and out of the sets and of [0, 63], fractions, infinities, NaN."""
    clf, X = indicator_tree_classifier()
    model = export_onnx(clf)
    onnx.checker.check_model(model, full_check=True)
    leaves = clf.tree_.apply(X)
    assert len(set(leaves.tolist())) == clf.tree_.n_leaves
    _assert_same(_run(model, X), _expected(clf, leaves))


# ---------------------------------------------------------------------- names and markers
def test_missing_text_cannot_be_a_category():
    """A missing text value is fed as ``missing_text``. The empty text is a missing value
    at fit (never a category), so the default "" always reads as missing and routes as
    predict routes None; a marker that is a category would be read as that category, so
    export_onnx refuses it."""
    import pandas as pd

    rng = np.random.default_rng(0)
    n = 300
    frame = pd.DataFrame({"a": rng.normal(size=n),
                          "plan": rng.choice(["gold", "", "silver"], n).astype(object)})
    frame.loc[::5, "plan"] = None
    y = ((frame.plan == "").to_numpy() | (frame.a > 1.5).to_numpy()).astype(int)
    clf = BivariateTreeClassifier(max_depth=3).fit(frame, y)
    assert list(clf.categories_[1]) == ["gold", "silver"]
    model = export_onnx(clf)
    assert {p.key: p.value for p in model.metadata_props}["missing_text"] == ""
    feed = {"a": frame[["a"]].to_numpy("float64"),
            "plan": frame[["plan"]].astype(object).fillna("").to_numpy(object)}
    labels, proba = _session(model).run(None, feed)
    assert np.array_equal(labels, clf.predict(frame))
    assert np.array_equal(proba, clf.predict_proba(frame))
    with pytest.raises(ValueError, match=r"missing_text 'gold' is a category of the column "
                                         r"'plan'.*another missing_text"):
        export_onnx(clf, missing_text="gold")
    with pytest.raises(ValueError, match="missing_text must be a string"):
        export_onnx(clf, missing_text=None)
    model = export_onnx(clf, missing_text="<missing>")
    assert {p.key: p.value for p in model.metadata_props}["missing_text"] == "<missing>"
    feed["plan"] = (frame[["plan"]].astype(object).replace({"": None}).fillna("<missing>")
                    .to_numpy(object))
    labels, _ = _session(model).run(None, feed)
    assert np.array_equal(labels, clf.predict(frame))


def test_input_names_must_name_one_input_each():
    """A column named "" cannot name an ONNX input, nor two columns one name; a column named
    as a value the graph makes inside (``transpose_1``...) is an input like any other."""
    import pandas as pd

    frame = _text_frame(200, seed=8)
    targets = _text_targets(frame, False)
    empty = BivariateTreeClassifier(categorical_features=["colour"], max_depth=3).fit(
        frame.rename(columns={"a": ""}), targets)
    with pytest.raises(ValueError, match="feature 0 has the empty name ''"):
        export_onnx(empty)
    with pytest.raises(ValueError, match="input_name cannot be empty"):
        export_onnx(BivariateTreeClassifier(max_depth=2).fit(_features(50, 1), [0, 1] * 25),
                    input_name="")
    twice = copy.deepcopy(empty)
    twice.feature_names_in_ = np.array(["a", "colour", "a"], dtype=object)
    with pytest.raises(ValueError, match="two features are named 'a'"):
        export_onnx(twice)
    # names of the graph's own values: each input keeps its name, the graph routes as apply
    inner = frame.rename(columns={"a": "transpose_1", "colour": "labelencoder_2",
                                  "size": "concat_5"})
    est = BivariateTreeClassifier(categorical_features=["labelencoder_2"], max_depth=4).fit(
        inner, targets)
    model = export_onnx(est)
    onnx.checker.check_model(model, full_check=True)
    feed = {"transpose_1": inner[["transpose_1"]].to_numpy("float64"),
            "labelencoder_2": inner[["labelencoder_2"]].fillna("").to_numpy(object),
            "concat_5": inner[["concat_5"]].to_numpy("float64")}
    labels, _ = _session(model).run(None, feed)
    assert np.array_equal(labels, est.predict(inner))
    assert pd.Series(labels).nunique() == 2


def test_category_values_onnx_cannot_carry_are_refused():
    """Dates (neither numbers nor strings) and numbers that are no double: a clear error."""
    import datetime
    import fractions

    import pandas as pd

    rng = np.random.default_rng(0)
    n = 80
    frame = pd.DataFrame({"u": rng.normal(size=n), "day": pd.Series(
        [datetime.date(2020, 1, 1 + i % 4) for i in range(n)], dtype=object)})
    y = ((frame["u"] > 0) ^ (frame["day"] > datetime.date(2020, 1, 2))).astype(int)
    est = BivariateTreeClassifier(categorical_features=["day"], max_depth=3).fit(frame, y)
    for inputs in ("auto", "matrix", "columns"):
        with pytest.raises(ValueError, match=r"column 'day' holds the value "
                                             r"datetime\.date\(2020, 1, 1\).*astype\(str\)"):
            export_onnx(est, inputs=inputs)
    thirds = frame.assign(day=[fractions.Fraction(i % 3, 3) for i in range(n)])
    est = BivariateTreeClassifier(categorical_features=["day"], max_depth=3).fit(thirds, y)
    with pytest.raises(ValueError, match=r"column 'day' holds the number Fraction\(1, 3\)"):
        export_onnx(est)


def test_nan_projection_of_finite_values_takes_the_missing_side():
    """A sum that overflows to inf - inf = NaN goes to the node's missing side, as apply
    sends it (``IsNaN`` of the projection)."""
    from test_export_code import _overflow_tree

    clf, X = _overflow_tree()
    got = _run(export_onnx(clf), X)
    _assert_same(got, _expected(clf, clf.tree_.apply(X)))


def test_string_labels_keep_their_trailing_nul_characters():
    """onnx.helper.make_tensor drops a string's trailing NULs; the labels are written
    as they are, so "a" and "a\\0" stay two labels."""
    X = np.array([[0.0], [1.0], [2.0], [3.0], [4.0], [5.0]])
    y = np.array(["a", "a", "a\x00", "a\x00", "\x00" * 3, "\x00" * 3], dtype=object)
    clf = BivariateTreeClassifier(max_depth=2).fit(X, y)
    got = _run(export_onnx(clf), X)
    assert got["label"].tolist() == clf.predict(X).tolist() == y.tolist()
