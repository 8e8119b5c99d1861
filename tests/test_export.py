"""Text rules in the data's units."""

import importlib.util
import json
import re

import numpy as np
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from bivtree import (
    BivariateTreeClassifier,
    BivariateTreeRegressor,
    Tree,
    export_graphviz,
    export_rules,
    export_text,
    from_json,
    load_model,
    save_model,
    to_json,
)
from bivtree.export import rules_markdown
from bivtree.formatting import (
    format_categories,
    format_rule,
    indicator_reading,
    missing_text,
    quoted_name,
    ratio_rule,
)


def fitted(seed=0):
    rng = np.random.default_rng(seed)
    X = rng.uniform(1, 10, size=(300, 3))
    y = (X[:, 0] >= 0.6 * X[:, 1]).astype(int)
    return X, y, BivariateTreeClassifier(max_depth=2).fit(X, y)


def test_format_rule_reads_naturally():
    names = ["waist", "height", "age"]
    assert format_rule([0, 1], [1.0, -0.5], 0.0, names) == "waist - 0.5 * height <= 0"
    assert format_rule([2, 0], [1.0, 0.25], 3.14159, names) == "age + 0.25 * waist <= 3.142"
    assert format_rule([1, -1], [1.0, 0.0], 13980.3, names) == "height <= 13980"
    assert format_rule([0, 1], [1.0, 2.0], 1.5, names, op=">") == "waist + 2 * height > 1.5"


def test_export_text_structure_and_names():
    X, _y, clf = fitted()
    text = export_text(clf, feature_names=["waist", "height", "age"])
    lines = text.splitlines()
    assert lines[0].startswith("if waist") and lines[0].endswith(":")
    n_if = sum(line.lstrip().startswith("if ") for line in lines)
    n_else = sum(line.lstrip().startswith("else:") for line in lines)
    n_leaf = sum("class:" in line for line in lines)
    internal = int((~clf.tree_.is_leaf).sum())
    assert n_if == n_else == internal
    assert n_leaf == clf.get_n_leaves()
    counts = [int(m) for m in re.findall(r"samples: (\d+)", text)]
    assert sum(counts) == X.shape[0]


def test_exact_numbers_round_trip():
    _X, _y, clf = fitted(1)
    text = export_text(clf, decimals=None)
    root = text.splitlines()[0]
    numbers = [float(v) for v in re.findall(r"[-+]?\d+\.\d+(?:e[-+]?\d+)?", root)]
    tree = clf.tree_
    expected = [abs(w) for w in tree.weights[0][1:] if w != 0] + [tree.threshold[0]]
    assert numbers == expected


def test_feature_name_checks_and_depth_limit():
    X, _y, clf = fitted()
    with pytest.raises(ValueError, match="feature_names has 2 names"):
        export_text(clf, feature_names=["a", "b"])
    rng = np.random.default_rng(0)
    X = rng.normal(size=(200, 3))
    deep = BivariateTreeClassifier(max_depth=4).fit(X, X[:, 0] * X[:, 1] > 0)
    assert "..." in export_text(deep, max_depth=0)
    assert "..." not in export_text(deep)


def test_regression_leaves_show_values():
    rng = np.random.default_rng(0)
    X = rng.normal(size=(100, 2))
    reg = BivariateTreeRegressor(max_depth=1).fit(X, X[:, 0] - X[:, 1])
    text = export_text(reg)
    assert text.count("value:") == 2 and "x0" in text


# --------------------------------------------------------------------------- rules as rows
def holds(condition, X):
    """Whether each row of X satisfies one condition, summed in slot order like the tree."""
    s = np.zeros(X.shape[0])
    for f, w in zip(condition["features"], condition["weights"]):
        s = s + w * X[:, f]
    return s <= condition["threshold"] if condition["op"] == "<=" else s > condition["threshold"]


def check_rows_reproduce_predict(estimator, X):
    values = np.asarray(X, dtype=float)
    rows = export_rules(estimator, X=values)
    assert len(rows) == estimator.get_n_leaves()
    satisfied = np.array([np.all([holds(c, values) for c in r["conditions"]], axis=0)
                          if r["conditions"] else np.ones(X.shape[0], bool) for r in rows])
    # every sample satisfies exactly one rule ...
    assert np.array_equal(satisfied.sum(axis=0), np.ones(X.shape[0]))
    # ... which is the leaf it reaches, and gives its prediction
    which = np.argmax(satisfied, axis=0)
    assert np.array_equal(np.array([r["leaf"] for r in rows])[which], estimator.apply(X))
    predicted = np.array([r["prediction"] for r in rows], dtype=object)[which]
    assert np.array_equal(predicted.astype(np.asarray(estimator.predict(X)).dtype),
                          estimator.predict(X))
    return rows


@settings(max_examples=20, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(seed=st.integers(0, 10_000), n=st.integers(8, 60), depth=st.integers(1, 4),
       splitter=st.sampled_from(["orientations", "univariate", "diagonal"]),
       regression=st.booleans())
def test_rule_rows_reproduce_predict(seed, n, depth, splitter, regression):
    rng = np.random.default_rng(seed)
    X = np.round(rng.normal(size=(n, 3)), 1)  # ties and repeated values included
    if regression:
        est = BivariateTreeRegressor(max_depth=depth, splitter=splitter)
        est.fit(X, X[:, 0] * X[:, 1] + rng.normal(size=n))
    else:
        y = (X[:, 0] + 0.5 * X[:, 1] > rng.normal(size=n)).astype(int)
        if y.min() == y.max():
            y[0] = 1 - y[0]
        est = BivariateTreeClassifier(max_depth=depth, splitter=splitter).fit(X, y)
    rows = check_rows_reproduce_predict(est, X)
    tree = est.tree_
    for r in rows:
        assert r["n_samples"] == tree.n_node_samples[r["leaf"]]
        if regression:
            assert r["error"] == pytest.approx(tree.impurity[r["leaf"]])
        else:
            counts = np.array(list(r["class_counts"].values()))
            assert r["error"] == pytest.approx(counts.sum() - counts.max())


def test_rule_rows_with_string_classes_and_frames():
    pd = pytest.importorskip("pandas")
    X, y, _ = fitted(3)
    frame = pd.DataFrame(X, columns=["waist", "height", "age"])
    labels = np.array(["no", "yes"])[y]
    clf = BivariateTreeClassifier(max_depth=3).fit(frame, labels)
    check_rows_reproduce_predict(clf, frame)
    table = export_rules(clf, as_frame=True, class_names=["N", "Y"])
    assert list(table.columns) == ["leaf", "rule", "conditions", "prediction", "class_counts",
                                   "n_samples", "weighted_n_samples", "error"]
    assert set(table["prediction"]) <= {"N", "Y"}
    assert all("waist" in r or "height" in r or "age" in r for r in table["rule"])
    text = rules_markdown(table)
    assert text.count("\n") == len(table) + 2 and "| leaf | rule |" in text


def test_repeated_tests_are_merged_into_the_tightest():
    # one feature, three classes in three intervals: the leftmost leaf's path is
    # "x <= 2" then "x <= 1"; its rule keeps only the tighter test
    X = np.arange(12, dtype=float).reshape(-1, 1)
    y = np.repeat([0, 1, 2], 4)
    y[:2] = 3
    clf = BivariateTreeClassifier(splitter="univariate").fit(X, y)
    rows = check_rows_reproduce_predict(clf, X)
    for r in rows:
        ops = [c["op"] for c in r["conditions"]]
        assert ops.count("<=") <= 1 and ops.count(">") <= 1, r["rule"]
    assert rows[0]["rule"].count("x0") == 1


def test_a_single_leaf_has_the_rule_always():
    X = np.zeros((4, 2))
    clf = BivariateTreeClassifier().fit(X, [0, 1, 0, 1])
    rows = export_rules(clf)
    assert [r["rule"] for r in rows] == ["always"] and rows[0]["conditions"] == []


def test_ratio_form_only_where_valid():
    names = ["waist", "height"]
    positive = (np.array([1, 1]), np.array([60.0, 150.0]))
    assert ratio_rule([0, 1], [1.0, -0.5], 0.0, ">", names, positive) == "waist / height > 0.5"
    assert ratio_rule([0, 1], [1.0, 0.25], 0.0, "<=", names, positive) == \
        "waist / height <= -0.25"
    # a negative denominator reverses the comparison
    negative = (np.array([1, -1]), np.array([60.0, 150.0]))
    assert ratio_rule([0, 1], [1.0, -0.5], 0.0, "<=", names, negative) == \
        "waist / height >= 0.5"
    # no ratio: no data, a denominator of both signs, univariate, or a real threshold
    assert ratio_rule([0, 1], [1.0, -0.5], 0.0, "<=", names, None) is None
    mixed = (np.array([1, 0]), np.array([60.0, 0.0]))
    assert ratio_rule([0, 1], [1.0, -0.5], 0.0, "<=", names, mixed) is None
    assert ratio_rule([0, -1], [1.0, 0.0], 0.0, "<=", names, positive) is None
    assert ratio_rule([0, 1], [1.0, -0.5], 2.0, "<=", names, positive) is None
    # a threshold below the rounding of the weight's last shown digit counts as zero
    assert ratio_rule([0, 1], [1.0, -0.5], 0.03, "<=", names, positive, decimals=4) == \
        "waist / height <= 0.5"
    assert ratio_rule([0, 1], [1.0, -0.5], 0.03, "<=", names, positive, decimals=None) is None


def test_ratio_rows_route_like_the_tree():
    rng = np.random.default_rng(0)
    X = np.column_stack([rng.uniform(60, 125, 400), rng.uniform(150, 200, 400)])
    y = (X[:, 0] / X[:, 1] > 0.5).astype(int)
    clf = BivariateTreeClassifier(max_depth=1, n_orientations=180).fit(X, y)
    clf.tree_.threshold[0] = 0.0
    rows = export_rules(clf, ["waist", "height"], X=X, decimals=None)
    w = clf.tree_.weights[0, 1]
    assert rows[0]["rule"] == f"waist / height <= {float(-w)!r}"
    assert rows[1]["rule"] == f"waist / height > {float(-w)!r}"
    # the ratio text means the same as the stored test on these samples
    assert np.array_equal(X[:, 0] / X[:, 1] <= -w, clf.apply(X) == rows[0]["leaf"])
    assert "/" not in export_rules(clf, ["waist", "height"])[0]["rule"]  # no X, no ratio
    assert "/" not in export_rules(clf, ["waist", "height"], X=X, ratios=False)[0]["rule"]
    with pytest.raises(ValueError, match="infinity"):
        export_rules(clf, X=np.full((3, 2), np.inf))
    # missing values are left out of the signs: a column with none known keeps no sign
    assert "/" not in export_rules(clf, X=np.full((3, 2), np.nan))[0]["rule"]
    X_missing = X.copy()
    X_missing[::3, 1] = np.nan
    assert "/" in export_rules(clf, ["waist", "height"], X=X_missing)[0]["rule"]


def test_format_rule_omits_unit_weights():
    names = ["a1", "a2"]
    assert format_rule([0, 1], [1.0, -1.0], -0.5, names) == "a1 - a2 <= -0.5"
    assert format_rule([0, 1], [1.0, 1.0], 2.5, names, op=">") == "a1 + a2 > 2.5"
    assert format_rule([0, 1], [1.0, -1.0], 0.5, names, decimals=None) == \
        "a1 - 1.0 * a2 <= 0.5"


def test_names_that_could_read_as_part_of_a_test_are_quoted():
    assert quoted_name("petal length (cm)") == "petal length (cm)"
    assert quoted_name("age_2") == "age_2"
    for name, shown in [("debt-to-income", "`debt-to-income`"), ("x/y", "`x/y`"),
                        ("age>65", "`age>65`"), ("2", "`2`"), ("1e3", "`1e3`"),
                        ("", "``"), (" padded", "` padded`"), ("a`b", "`a``b`"),
                        ("n, m", "`n, m`"), ("[x]", "`[x]`")]:
        assert quoted_name(name) == shown
    names = ["debt-to-income", "age", "x*y"]
    assert format_rule([0, 2], [1.0, -0.5], 2.0, names) == \
        "`debt-to-income` - 0.5 * `x*y` <= 2"
    assert format_rule([0, 1], [1.0, 0.5], 2.0, names, missing=True) == \
        "`debt-to-income` + 0.5 * age <= 2 or `debt-to-income` or age is missing"
    assert missing_text([2], names, missing=False) == "`x*y` is not missing"
    assert format_categories("a-b", [1, 3]) == "`a-b` in {1, 3}"
    assert format_rule([0, 1], [1.0, 2.0], 3.0, names, category_mask=[0, 0b10]) == \
        "`debt-to-income` + 2 * [age in {1}] <= 3"
    assert indicator_reading([0, 1], [1.0, 2.0], 3.0, names, category_mask=[0, 0b10]) == \
        "`debt-to-income` <= 1 if age in {1}, else `debt-to-income` <= 3"
    signs = (np.array([1, 1, 1]), np.array([1.0, 1.0, 1.0]))
    assert ratio_rule([0, 2], [1.0, -0.5], 0.0, "<=", names, signs) == \
        "`debt-to-income` / `x*y` <= 0.5"
    # a fitted model's text and rules (its root: x0 - 0.6 * x1 against 0)
    X, y, _clf = fitted()
    clf = BivariateTreeClassifier(max_depth=1).fit(X, y)
    assert re.match(r"if `a-b` - 0\.6\d* \* c <= ",
                    export_text(clf, feature_names=["a-b", "c", "d"]))
    assert export_rules(clf, ["a-b", "c", "d"])[0]["rule"].startswith("`a-b` - 0.6")


# --------------------------------------------------------------------------- Graphviz
def test_export_graphviz(tmp_path):
    X, _y, clf = fitted()
    names = ['wa"ist', "height", "age"]
    dot = export_graphviz(clf, tmp_path / "tree.dot", feature_names=names,
                          class_names=["lo", "hi"])
    assert (tmp_path / "tree.dot").read_text() == dot
    assert dot.startswith("digraph BivariateTree {") and dot.rstrip().endswith("}")
    tree = clf.tree_
    node_lines = re.findall(r"^(\d+) \[label=", dot, flags=re.MULTILINE)
    assert sorted(map(int, node_lines)) == list(range(tree.node_count))
    edges = re.findall(r"^(\d+) -> (\d+) \[label=\"(yes|no)\"\]", dot, flags=re.MULTILINE)
    assert len(edges) == tree.node_count - 1
    for parent, child, answer in edges:
        side = tree.children_left if answer == "yes" else tree.children_right
        assert side[int(parent)] == int(child)
    assert 'wa\\"ist' in dot  # quotes escaped
    assert "class: hi" in dot and "|R| = " in dot
    reg = BivariateTreeRegressor(max_depth=2).fit(X, X[:, 0])
    assert "value: " in export_graphviz(reg, rotate=True, filled=False)


# --------------------------------------------------------------------------- JSON
def round_trip(estimator, X):
    text = to_json(estimator)
    again = from_json(text)
    assert type(again) is type(estimator)
    assert np.array_equal(again.predict(X), estimator.predict(X))
    assert again.tree_ == estimator.tree_
    assert again.get_params() == estimator.get_params()
    assert to_json(again) == text
    return again


def test_json_round_trips_give_identical_predictions(tmp_path):
    pd = pytest.importorskip("pandas")
    X, y, clf = fitted(2)
    round_trip(clf, X)
    strings = BivariateTreeClassifier(max_depth=3, class_weight={"cat": 1.0, "dog": 3.0}).fit(
        X, np.array(["cat", "dog"])[y])
    again = round_trip(strings, X)
    assert again.classes_.tolist() == ["cat", "dog"]
    assert again.class_weight == {"cat": 1.0, "dog": 3.0}
    integers = BivariateTreeClassifier(max_depth=3, class_weight={0: 1.0, 1: 3.0}).fit(X, y)
    assert round_trip(integers, X).class_weight == {0: 1.0, 1: 3.0}
    options = BivariateTreeClassifier(max_depth=2, splitter="univariate",
                                      splitter_options={}).fit(X, y)
    options.set_params(splitter_options={"gammas": [-0.25, 0.0, 0.25]})  # kept as given
    assert round_trip(options, X).splitter_options == {"gammas": [-0.25, 0.0, 0.25]}
    booleans = BivariateTreeClassifier(max_depth=2).fit(X, y.astype(bool))
    assert round_trip(booleans, X).classes_.dtype == bool
    floats = BivariateTreeClassifier(max_depth=2).fit(X, y * 2.0)
    assert round_trip(floats, X).classes_.dtype == np.float64
    frame = pd.DataFrame(X, columns=["a", "b", "c"])
    named = BivariateTreeRegressor(max_depth=3).fit(frame, X[:, 0] * X[:, 1])
    again = round_trip(named, frame)
    assert again.feature_names_in_.tolist() == ["a", "b", "c"]
    with pytest.raises(ValueError, match="feature names"):
        again.predict(frame.rename(columns={"a": "z"}))
    # estimator methods and files
    path = tmp_path / "model.json"
    named.save(path)
    assert np.array_equal(BivariateTreeRegressor.load(path).predict(frame), named.predict(frame))
    with pytest.raises(ValueError, match="holds a BivariateTreeRegressor"):
        BivariateTreeClassifier.load(path)
    save_model(clf, path, metadata={"target": "y"})
    model, metadata = load_model(path, return_metadata=True)
    assert metadata == {"target": "y"} and np.array_equal(model.predict(X), clf.predict(X))


def test_json_keeps_a_model_with_an_unsaveable_parameter():
    X, y, _ = fitted()
    clf = BivariateTreeClassifier(max_depth=2, random_state=np.random.RandomState(0)).fit(X, y)
    data = json.loads(to_json(clf))
    assert data["params_not_saved"] == ["random_state"]
    again = from_json(json.dumps(data))
    assert again.random_state is None
    assert np.array_equal(again.predict(X), clf.predict(X))


def test_json_of_a_three_feature_tree():
    X, _y, clf = fitted()
    left = clf.predict(X) == 0
    clf.tree_ = Tree([1, -1, -1], [2, -1, -1], [[0, 1, 2], [-1] * 3, [-1] * 3],
                     [[1.0, 0.5, -0.7], [0.0] * 3, [0.0] * 3], [2.0, -2.0, -2.0],
                     [0.5, 0.0, 0.0], [300, left.sum(), 300 - left.sum()],
                     [300.0, left.sum(), 300.0 - left.sum()],
                     [[1.0, 1.0], [1.0, 0.0], [0.0, 1.0]], 3)
    round_trip(clf, X)


def _mutations():
    def edit(path, value):
        def apply(data):
            target = data
            for key in path[:-1]:
                target = target[key]
            if value is _DELETE:
                del target[path[-1]]
            else:
                target[path[-1]] = value
        return apply

    return [
        (edit(["format"], "pickle"), "not a bivtree model"),
        (edit(["version"], 99), "unsupported model format version 99"),
        (edit(["estimator"], "os.system"), "is not one of"),
        (edit(["surprise"], 1), "unknown field"),
        (edit(["tree"], _DELETE), "lacks \\['tree'\\]"),
        (edit(["params", "max_depth"], _DELETE), "missing \\['max_depth'\\]"),
        (edit(["params", "shell"], "rm"), "unknown \\['shell'\\]"),
        (edit(["params", "max_depth"], {"a": 1}), "unsupported value"),
        (edit(["n_features_in"], 4), "tree has 3 features but n_features_in is 4"),
        (edit(["feature_names_in"], ["a"]), "feature_names_in"),
        (edit(["classes", "values"], [0, 1, 2]), "3 classes"),
        (edit(["classes", "values"], [1, 0]), "sorted"),
        (edit(["classes", "dtype"], "<U1"), "matching dtype"),
        (edit(["classes", "dtype"], "|V8"), "unsupported dtype"),
        (edit(["max_features"], 0), "max_features"),
        (edit(["feature_importances"], [0.5]), "feature_importances"),
        (edit(["tree", "children_left", 0], 0), "child ids"),
        (edit(["tree", "children_left", 0], 1.5), "integers"),
        (edit(["tree", "threshold"], "abc"), "non-numeric|lacks|numeric"),
        (edit(["tree", "version"], 99), "unsupported tree format version"),
        (edit(["tree", "version"], 1), "holds a tree of version 2"),
        (edit(["version"], 1), "holds a tree of version 1, not 2"),
        (edit(["tree", "category_mask"], _DELETE), "lacks \\['category_mask'\\]"),
        (edit(["tree", "category_mask", 0], -1), "category_mask"),
        (edit(["tree", "category_mask", 0], 2.0), "category_mask"),
        (edit(["tree", "n_features"], None), "n_features"),
        (edit(["tree", "features", 1, 0], 2.5), "integers"),
        (edit(["tree", "features", 0], [-1, 1]), "tree feature"),
        (edit(["tree", "weights", 0, 1], 1e400), "not valid JSON|finite"),
        (edit(["metadata"], {"x": [1]}), "metadata"),
    ]


_DELETE = object()


@pytest.mark.parametrize("mutate, message", _mutations())
def test_malformed_json_is_rejected(mutate, message):
    _X, _y, clf = fitted()
    data = json.loads(to_json(clf))
    mutate(data)
    with pytest.raises(ValueError, match=message):
        from_json(json.dumps(data))


def test_cycles_and_garbage_are_rejected(tmp_path):
    rng = np.random.default_rng(0)
    X = rng.normal(size=(200, 3))
    clf = BivariateTreeClassifier(max_depth=3).fit(X, X[:, 0] * X[:, 1] > 0)
    data = json.loads(to_json(clf))
    tree = data["tree"]
    internal = [i for i, c in enumerate(tree["children_left"]) if c != -1]
    # point an inner node's child back at an ancestor: prediction would never end
    node = internal[-1]
    tree["children_right"][node], tree["children_left"][internal[0]] = (
        tree["children_left"][internal[0]], tree["children_right"][node])
    with pytest.raises(ValueError, match="child ids|binary tree|shared"):
        from_json(json.dumps(data))
    for text in ("", "{", "[1, 2]", '{"format": "bivtree.model", "version": NaN}'):
        with pytest.raises(ValueError):
            from_json(text)
    path = tmp_path / "bad.json"
    path.write_text("not json")
    with pytest.raises(ValueError, match="bad.json: the model is not valid JSON"):
        load_model(path)


def _json_paths(obj, path=()):
    yield path
    if isinstance(obj, dict):
        for key, value in obj.items():
            yield from _json_paths(value, (*path, key))
    elif isinstance(obj, list):
        for i, value in enumerate(obj):
            yield from _json_paths(value, (*path, i))


_FUZZ_X = np.random.default_rng(5).normal(size=(60, 3))
_FUZZ_MODELS = [
    to_json(BivariateTreeClassifier(max_depth=3).fit(
        _FUZZ_X, np.array(["a", "b"])[(_FUZZ_X[:, 0] * _FUZZ_X[:, 1] > 0).astype(int)])),
    to_json(BivariateTreeRegressor(max_depth=2).fit(_FUZZ_X, _FUZZ_X[:, 0])),
]
_FUZZ_VALUES = [None, True, 0, -1, 1, 2, 3, 1e300, -0.5, 2.5, "x", [], [1], {}, {"a": 1},
                [[1, 2]], 10**20, "<U1", "|O", [-1, -1], [0, 1, 2], {"dict": [[1, 2]]}]


@settings(max_examples=150, deadline=None)
@given(model=st.integers(0, len(_FUZZ_MODELS) - 1),
       edits=st.lists(st.tuples(st.integers(0, 10**6), st.sampled_from(_FUZZ_VALUES),
                                st.booleans()), min_size=1, max_size=3))
def test_edited_models_load_correctly_or_raise_value_error(model, edits):
    """Any edit of a saved model either loads into a working estimator or is a ValueError."""
    data = json.loads(_FUZZ_MODELS[model])
    for where, value, delete in edits:
        paths = list(_json_paths(data))[1:]
        path = paths[where % len(paths)]
        parent = data
        for key in path[:-1]:
            parent = parent[key]
        if delete and isinstance(parent, dict):
            del parent[path[-1]]
        else:  # a fresh copy: a shared list could otherwise end up inside itself
            parent[path[-1]] = json.loads(json.dumps(value))
    try:
        estimator = from_json(json.dumps(data))
    except ValueError:
        return
    prediction = estimator.predict(_FUZZ_X)
    assert prediction.shape == (_FUZZ_X.shape[0],)
    if hasattr(estimator, "classes_"):
        assert set(prediction) <= set(estimator.classes_)


def _every_reader():
    """Each view or export of a fitted tree, as ``(name, call(model, X, y))``."""
    import matplotlib

    matplotlib.use("Agg")
    from bivtree import (
        explain,
        export_html,
        export_python,
        export_sql,
        plot_split,
        plot_tree,
    )
    from bivtree.explain import contributions

    readers = [
        ("export_text", lambda m, X, y: export_text(m)),
        ("export_rules", lambda m, X, y: export_rules(m)),
        ("export_graphviz", lambda m, X, y: export_graphviz(m)),
        ("export_sql", lambda m, X, y: export_sql(m)),
        ("export_python", lambda m, X, y: export_python(m)),
        ("export_html", lambda m, X, y: export_html(m, X, y)),
        ("plot_tree", lambda m, X, y: plot_tree(m, X, y)),
        ("plot_split", lambda m, X, y: plot_split(m, 0, X, y)),
        ("explain", lambda m, X, y: explain(m, X[0])),
        ("contributions", lambda m, X, y: contributions(m, X)),
    ]
    if importlib.util.find_spec("onnx") is None:
        return readers
    from bivtree import export_onnx

    return [*readers, ("export_onnx", lambda m, X, y: export_onnx(m))]


@pytest.mark.parametrize("model", ["sklearn", "pruned-sklearn", "pipeline"])
def test_views_and_exports_name_a_tree_that_is_not_bivtrees(model):
    """A scikit-learn tree, a CostComplexityCV around one, or a pipeline given to a view or
    an export: a TypeError naming the reader and what it got, never an AttributeError
    from deep inside (they failed with "'Tree' object has no attribute 'features'",
    "can only convert an array of size 1" or a missing argument of scikit-learn's)."""
    import matplotlib.pyplot as plt
    from sklearn.pipeline import make_pipeline
    from sklearn.preprocessing import StandardScaler
    from sklearn.tree import DecisionTreeClassifier

    from bivtree.model_selection import CostComplexityCV

    X, y, _ = fitted()
    est = {"sklearn": DecisionTreeClassifier(random_state=0),
           "pruned-sklearn": CostComplexityCV(DecisionTreeClassifier(random_state=0), cv=2),
           "pipeline": make_pipeline(StandardScaler(), BivariateTreeClassifier(max_depth=2)),
           }[model].fit(X, y)
    expected = {"sklearn": "not a DecisionTreeClassifier; scikit-learn's own trees",
                "pruned-sklearn": "not a CostComplexityCV whose chosen tree is a "
                                  "DecisionTreeClassifier",
                "pipeline": r"not a Pipeline; pass the pipeline's last step \(pipeline\[-1\]\)",
                }[model]
    for name, call in _every_reader():
        with pytest.raises(TypeError, match=rf"^{name} reads bivtree's trees .*{expected}"):
            call(est, X, y)
    plt.close("all")


def test_views_and_exports_of_an_unfitted_tree_say_so():
    from sklearn.exceptions import NotFittedError

    from bivtree.model_selection import CostComplexityCV

    X, y, _ = fitted()
    for est in (BivariateTreeClassifier(), CostComplexityCV(BivariateTreeClassifier())):
        for name, call in _every_reader():
            with pytest.raises(NotFittedError, match=type(est).__name__):
                call(est, X, y)
