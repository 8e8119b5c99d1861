"""Model files: what loads also predicts, anything else is a ValueError; deep trees work.

A model file is untrusted input: every malformed, inconsistent or oversized file
must raise a ValueError that names the problem (never a RecursionError, an
OverflowError or a failure at the first prediction). A valid tree thousands of
levels deep must load, predict, export, prune and show like any other.
"""

import copy
import json
import time

import numpy as np
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from bivtree import BivariateTreeClassifier, BivariateTreeRegressor
from bivtree.cli import main
from bivtree.export import export_graphviz, export_rules, export_text
from bivtree.persistence import (
    MAX_JSON_DEPTH,
    MAX_MODEL_BYTES,
    from_json,
    load_model,
    save_model,
    to_json,
)
from bivtree.pruning import cost_complexity_pruning_path, prune_tree
from bivtree.tree import Tree
from test_export import _json_paths

#: depth of the lopsided tree that every view of a tree must handle.
CHAIN_DEPTH = 5000


def _data(seed=0):
    rng = np.random.default_rng(seed)
    X = rng.uniform(0.0, 10.0, size=(120, 2))
    y = (X[:, 0] + 0.5 * X[:, 1] > 7.0).astype(int)
    return X, y


def _model_dict(regressor=False):
    X, y = _data()
    cls = BivariateTreeRegressor if regressor else BivariateTreeClassifier
    estimator = cls(max_depth=3).fit(X, y.astype(float) if regressor else y)
    return json.loads(to_json(estimator))


def _load(data):
    return from_json(json.dumps(data))


def chain_classifier(depth=CHAIN_DEPTH):
    """A valid classifier whose tree is a chain ``depth`` levels deep, and its data.

    Node ``2 d`` tests ``x0 + 0.5 * x1 <= d``: its left child ``2 d + 1`` is a leaf,
    its right child the next test; the last node is a leaf at depth ``depth``.
    """
    X, y = _data()
    X = X * (depth / 10.0)
    clf = BivariateTreeClassifier(max_depth=2).fit(X, y)
    n = 2 * depth + 1
    left, right = np.full(n, -1), np.full(n, -1)
    features, weights = np.full((n, 2), -1), np.zeros((n, 2))
    threshold = np.full(n, -2.0)
    tests = 2 * np.arange(depth)
    left[tests], right[tests] = tests + 1, tests + 2
    features[tests] = [0, 1]
    weights[tests] = [1.0, 0.5]
    threshold[tests] = np.arange(depth, dtype=float)
    value = np.ones((n, 2))
    value[1::2, 0] = 2.0  # the leaves alternate in no pattern the tests care about
    impurity = np.where(left == -1, 0.0, 0.25)
    clf.tree_ = Tree(left, right, features, weights, threshold, impurity,
                     np.full(n, 3), value.sum(axis=1), value, 2)
    return clf, X


# ====================================================================== the adversarial rows
@pytest.mark.parametrize("text", ["[" * 100000, '{"a": ' * 100000, "[" * (MAX_JSON_DEPTH + 1)
                                  + "]" * (MAX_JSON_DEPTH + 1)])
def test_deeply_nested_json_is_a_value_error(text):
    with pytest.raises(ValueError, match="nests arrays and objects"):
        from_json(text)
    with pytest.raises(ValueError, match="nests"):
        from_json(text.encode("utf-8"))


def test_brackets_inside_strings_do_not_count_as_nesting():
    data = _model_dict()
    data["metadata"] = {"note": "[{" * 5000 + '\\"]'}
    _model, metadata = from_json(json.dumps(data), return_metadata=True)
    assert metadata["note"].startswith("[{[{")


def test_class_label_outside_its_dtype_is_a_value_error():
    data = _model_dict()
    data["classes"] = {"dtype": "|i1", "values": [0, 300]}
    with pytest.raises(ValueError, match="class 300 does not fit dtype '\\|i1'"):
        _load(data)
    data["classes"] = {"dtype": "<U999999999", "values": ["a", "b"]}
    with pytest.raises(ValueError, match="dtype '<U999999999'"):
        _load(data)


def test_cli_reports_a_bad_model_without_a_traceback(tmp_path, capsys):
    path = tmp_path / "deep.json"
    path.write_text("[" * 100000)
    assert main(["show", str(path)]) == 1
    err = capsys.readouterr().err
    assert "nests" in err and "Traceback" not in err


def test_n_jobs_zero_is_rejected_at_load():
    data = _model_dict()
    data["params"]["n_jobs"] = 0
    with pytest.raises(ValueError, match="model 'params': n_jobs must be"):
        _load(data)


def _first_leaf(tree):
    return tree["children_left"].index(-1)


def test_leaf_with_all_zero_counts_is_rejected():
    data = _model_dict()
    leaf = _first_leaf(data["tree"])
    data["tree"]["value"][leaf] = [0.0, 0.0]
    with pytest.raises(ValueError, match=f"tree node {leaf}: 'value' of a leaf"):
        _load(data)


def test_decision_node_with_zero_weights_is_rejected():
    data = _model_dict()
    data["tree"]["weights"][0] = [0.0, 0.0]
    with pytest.raises(ValueError, match="tree node 0: 'weights' of a decision node"):
        _load(data)


# ====================================================================== categories
def _frame(n=60, seed=0):
    """A frame with a numeric column ``a`` and a text column ``k`` (blue, green, red)."""
    import pandas as pd

    rng = np.random.default_rng(seed)
    X = pd.DataFrame({"a": rng.normal(size=n), "k": rng.choice(["blue", "green", "red"], n)})
    y = np.where(X["a"] + 2.0 * (X["k"] == "red") > 0.5, "p", "q")
    return X, y


def test_categorical_column_all_missing_at_fit_saves_loads_and_exports(tmp_path):
    from bivtree.export.code import export_python, export_sql

    X, y = _frame()
    X["none"] = None  # a text column without a single value: a feature with no code
    clf = BivariateTreeClassifier(max_depth=2).fit(X, y)
    assert clf.categories_[2].size == 0
    path = tmp_path / "model.json"
    save_model(clf, path)
    assert json.loads(path.read_text())["categories"][2] == {"values": []}
    loaded = load_model(path)
    assert to_json(loaded) == to_json(clf)
    # any value of the column reads as missing, before and after the round trip
    X_new = X.copy()
    X_new.loc[:3, "none"] = ["blue", "x", None, "red"]
    for rows in (X, X_new):
        assert np.array_equal(loaded.predict_proba(rows), clf.predict_proba(rows))
    assert export_text(loaded) == export_text(clf)
    assert export_python(loaded) and export_sql(loaded)
    # no node may test the column: it has no code a set could hold
    data = json.loads(to_json(clf))
    data["tree"]["features"][0] = [2, -1]
    data["tree"]["weights"][0] = [1.0, 0.0]
    data["tree"]["category_mask"][0] = (1 if data["version"] < 4
                                        else [1] + [0] * (len(data["tree"]["weights"][0]) - 1))
    with pytest.raises(ValueError, match="tree node 0: the category set of feature 2 holds "
                                         "code 0, but model 'categories' entry 2 has 0 code"):
        _load(data)


def _grouped_model_dict():
    """A model whose feature 1 has ``"values"`` and ``"infrequent"`` (max_categories=2)."""
    X, y = _frame()
    data = json.loads(to_json(BivariateTreeClassifier(max_depth=2, max_categories=2).fit(X, y)))
    assert set(data["categories"][1]) == {"values", "infrequent"}
    return data


@pytest.mark.parametrize("path, value, message", [
    ((1, "infrequent"), 1.5, "entry 1: 'infrequent' must be a list .*not a number"),
    ((1, "infrequent"), 0, "entry 1: 'infrequent' must be a list .*not a number"),
    ((1, "infrequent"), True, "entry 1: 'infrequent' must be a list .*not a boolean"),
    ((1, "infrequent"), None, "entry 1: 'infrequent' must be a list .*not null"),
    ((1, "infrequent"), "red", "entry 1: 'infrequent' must be a list .*not a string"),
    ((1, "infrequent"), {"red": 1}, "entry 1: 'infrequent' must be a list .*not an object"),
    ((1, "infrequent"), [], "entry 1: 'infrequent' must list at least one value"),
    ((1, "infrequent", 0), None, "entry 1: 'infrequent' item 0 must be a string.*not null"),
    ((1, "infrequent", 0), ["red"], "entry 1: 'infrequent' item 0 .*not an array"),
    ((1, "values"), None, "entry 1: 'values' must be a list .*not null"),
    ((1, "values"), 3, "entry 1: 'values' must be a list .*not a number"),
    ((1, "values", 0), {"x": 1}, "entry 1: 'values' item 0 .*not an object"),
    ((1, "values", 0), float("inf"), "entry 1: 'values' item 0 .*not an infinite number"),
    ((1,), 5, "entry 1 must be null or an object .*not a number"),
    ((1,), ["red"], "entry 1 must be null or an object .*not an array"),
    ((1,), {}, "entry 1 must have 'values'.*not \\[\\]"),
    ((1, "extra"), 1, "entry 1 must have 'values'.*not \\['extra', 'infrequent', 'values'\\]"),
    ((), {"values": []}, "must be null or a list of 2 entries"),
    ((), [None], "must be null or a list of 2 entries"),
])
def test_categories_of_a_wrong_json_type_are_a_value_error(path, value, message):
    data = _grouped_model_dict()
    _edit(data, ["categories", *path], value)
    text = json.dumps(data).replace("Infinity", "1e999")  # a literal json reads as inf
    with pytest.raises(ValueError, match="model 'categories' " + message):
        from_json(text)


def _max_code(data, feature):
    """The largest category code any set of the tree uses for ``feature``."""
    tree = data["tree"]
    rows = tree["category_mask"] if data["version"] >= 4 else [[m] for m in tree["category_mask"]]
    masks = [m for feats, row in zip(tree["features"], rows)
             for f, m in zip(feats, row) if f == feature and m]
    assert masks, "the tree tests the feature by a category set"
    return max(int(m).bit_length() - 1 for m in masks)


@pytest.mark.parametrize("case", ["duplicate", "repeated at the end", "equal values",
                                  "too few values", "in values and infrequent",
                                  "numeric feature with a set"])
def test_inconsistent_categories_are_refused(case):
    X, y = _frame()
    data = json.loads(to_json(BivariateTreeClassifier(max_depth=2).fit(X, y)))
    values = data["categories"][1]["values"]
    assert values == ["blue", "green", "red"]
    entry, message = data["categories"][1], None
    if case == "duplicate":
        entry["values"] = ["blue", "blue", "red"]
        message = "entry 1 lists the category 'blue' twice \\(in 'values'\\)"
    elif case == "repeated at the end":
        entry["values"] = [*values, "red"]
        message = "entry 1 lists the category 'red' twice"
    elif case == "equal values":
        # 1 and 1.0 are one key of the lookup that maps values to codes
        entry["values"] = [0, 1, 1.0]
        message = "entry 1 lists the categories 1 and 1.0, which are equal \\(in 'values'\\)"
    elif case == "too few values":
        entry["values"] = values[:_max_code(data, 1)]
        message = (f"tree node \\d+: the category set of feature 1 holds code "
                   f"{_max_code(data, 1)}, but model 'categories' entry 1 has "
                   f"{_max_code(data, 1)} code")
    elif case == "in values and infrequent":
        entry["infrequent"] = ["red"]
        message = "entry 1 lists the category 'red' twice \\(in 'values' and in 'infrequent'\\)"
    else:
        data["categories"][1] = None
        message = "tests feature 1 by a category set, but model 'categories' entry 1 is null"
    with pytest.raises(ValueError, match=message):
        _load(data)


# ====================================================================== versions
def _missing_model_dict():
    """A version 3 model: its tree learned the sides of missing values."""
    X, y = _data()
    X[::7, 0] = np.nan
    data = json.loads(to_json(BivariateTreeClassifier(max_depth=3).fit(X, y)))
    assert data["version"] == data["tree"]["version"] == 3
    return data


def test_field_the_declared_version_does_not_have_is_refused():
    data = _missing_model_dict()
    data["version"] = data["tree"]["version"] = 2  # missing_go_left stays
    with pytest.raises(ValueError, match="tree dictionary of version 2 has unknown field\\(s\\) "
                                         "\\['missing_go_left'\\]; 'missing_go_left' is a "
                                         "field of versions 3 and later"):
        _load(data)
    with pytest.raises(ValueError, match="'missing_go_left' is a field of versions 3"):
        Tree.from_dict(data["tree"])
    # a version 1 tree has no category sets
    data = _model_dict()
    data["version"] = data["tree"]["version"] = 1
    with pytest.raises(ValueError, match="'category_mask' is a field of versions 2 and later"):
        _load(data)
    # nor a version 1 model category values
    X, _y = _frame()
    data = json.loads(to_json(BivariateTreeRegressor(max_depth=1).fit(X[["a", "k"]], X["a"])))
    assert data["categories"] is not None and not any(data["tree"]["category_mask"])
    data["version"] = data["tree"]["version"] = 1
    del data["tree"]["category_mask"]
    with pytest.raises(ValueError, match="model of format version 1 has unknown field\\(s\\) "
                                         "\\['categories'\\]; 'categories' is a field of "
                                         "versions 2 and later"):
        _load(data)
    del data["categories"]
    _load(data)  # the same file without it is a valid version 1 model


def test_unknown_tree_field_is_refused():
    data = _model_dict()
    data["tree"]["missing_go_right"] = [False] * len(data["tree"]["children_left"])
    with pytest.raises(ValueError, match="tree dictionary of version 2 has unknown field\\(s\\) "
                                         "\\['missing_go_right'\\]$"):
        _load(data)


# ====================================================================== size
def test_model_over_max_bytes_is_refused(tmp_path):
    clf = BivariateTreeClassifier(max_depth=2).fit(*_data())
    path = tmp_path / "model.json"
    save_model(clf, path)
    size = path.stat().st_size
    assert load_model(path, max_bytes=size).tree_ == clf.tree_
    assert load_model(path, max_bytes=None).tree_ == clf.tree_
    with pytest.raises(ValueError, match=f"model.json: the model is {size} bytes long, more "
                                         f"than max_bytes={size - 1}; pass a larger max_bytes"):
        load_model(path, max_bytes=size - 1)
    text = path.read_text()
    for value in (text, text.encode("utf-8")):
        assert from_json(value, max_bytes=len(text)).tree_ == clf.tree_
        with pytest.raises(ValueError, match=f"more than max_bytes={len(text) - 1};"):
            from_json(value, max_bytes=len(text) - 1)
    # a str is measured in UTF-8 bytes, not in characters
    accented = json.dumps({**json.loads(text), "metadata": {"note": "\u00e9" * 100}},
                          ensure_ascii=False)
    n_bytes = len(accented.encode("utf-8"))
    assert n_bytes == len(accented) + 100
    with pytest.raises(ValueError, match=f"is {n_bytes} bytes long"):
        from_json(accented, max_bytes=len(accented))
    for bad in (0, -1, 1.5, True, "1"):
        with pytest.raises(ValueError, match="max_bytes must be a positive integer or None"):
            load_model(path, max_bytes=bad)


def test_huge_file_is_refused_from_its_size_before_it_is_read(tmp_path, capsys):
    path = tmp_path / "huge.json"
    with open(path, "wb") as fh:
        fh.truncate(2 * MAX_MODEL_BYTES)  # sparse: takes no disk space
    message = (f"the model is {2 * MAX_MODEL_BYTES} bytes long, more than "
               f"max_bytes={MAX_MODEL_BYTES}")
    with pytest.raises(ValueError, match=message):
        load_model(path)
    assert main(["show", str(path)]) == 1
    err = capsys.readouterr().err
    assert (f"the model is {2 * MAX_MODEL_BYTES} bytes long, more than --max-model-bytes "
            f"{MAX_MODEL_BYTES}") in err and "Traceback" not in err


def test_endless_stream_is_refused_after_max_bytes(monkeypatch):
    import os
    import tracemalloc

    from bivtree import persistence

    if not os.path.exists("/dev/zero"):
        pytest.skip("no /dev/zero")
    monkeypatch.setattr(persistence, "_READ_CHUNK", 1 << 16)
    tracemalloc.start()
    try:
        with pytest.raises(ValueError, match="/dev/zero: the model is more than "
                                             "max_bytes=1048576 bytes long"):
            load_model("/dev/zero", max_bytes=1 << 20)
        _current, peak = tracemalloc.get_traced_memory()
    finally:
        tracemalloc.stop()
    assert peak < 3 << 20  # what was read, about the limit: not an endless buffer


# ====================================================================== a chain 5,000 deep
@pytest.fixture(scope="module")
def chain():
    return chain_classifier()


def test_chain_text_and_rules(chain):
    clf, X = chain
    text = export_text(clf)
    assert text.count("\n") == 3 * CHAIN_DEPTH + 1
    assert text.splitlines()[-1].startswith(" " * 4 * CHAIN_DEPTH + "class:")
    start = time.perf_counter()
    rows = export_rules(clf, X=X)
    elapsed = time.perf_counter() - start  # well under a second; quadratic took minutes
    print(f"export_rules on a chain {CHAIN_DEPTH} deep: {elapsed:.2f} s")
    assert [r["leaf"] for r in rows] == [int(n) for n in np.flatnonzero(clf.tree_.is_leaf)]
    # the tests of one projection merge into the tightest, so every rule is short
    assert rows[-1]["rule"] == f"x0 + 0.5 * x1 > {CHAIN_DEPTH - 1}"
    assert rows[3]["rule"] == ("x0 + 0.5 * x1 > 2 and "
                               "(x0 + 0.5 * x1 <= 3 or x0 or x1 is missing)")
    assert export_text(clf, max_depth=2).count("...") == 1


def test_chain_graphviz_json_and_prediction(chain):
    clf, X = chain
    dot = export_graphviz(clf)
    assert dot.count("->") == 2 * CHAIN_DEPTH
    again = from_json(to_json(clf))
    assert again.tree_ == clf.tree_
    assert np.array_equal(again.predict_proba(X), clf.predict_proba(X))
    leaves = clf.apply(X)
    projection = X[:, 0] + 0.5 * X[:, 1]
    depth = np.minimum(np.ceil(projection).astype(int), CHAIN_DEPTH)
    expected = np.where(depth < CHAIN_DEPTH, 2 * depth + 1, 2 * CHAIN_DEPTH)
    assert np.array_equal(leaves, expected)
    path = clf.decision_path(X)
    assert np.array_equal(np.asarray(path.sum(axis=1)).ravel(),
                          clf.tree_.node_depth[leaves] + 1)
    assert Tree.from_dict(clf.tree_.to_dict()) == clf.tree_
    assert clf.tree_.max_depth == CHAIN_DEPTH


def test_chain_pruning(chain):
    clf, _X = chain
    path = cost_complexity_pruning_path(clf.tree_)
    assert path.ccp_alphas[0] == 0.0 and path.ccp_alphas.size >= 2
    pruned = prune_tree(clf.tree_, float(path.ccp_alphas[-1]))
    assert pruned.node_count == 1


def test_chain_cli_show(chain, tmp_path, capsys):
    clf, _X = chain
    path = tmp_path / "chain.json"
    path.write_text(to_json(clf))
    assert main(["show", str(path)]) == 0
    out = capsys.readouterr().out
    assert f"depth {CHAIN_DEPTH}" in out and out.count("\n") > 3 * CHAIN_DEPTH
    assert main(["show", str(path), "--out", str(tmp_path / "chain.md")]) == 0
    assert (tmp_path / "chain.md").read_text().count("\n") == CHAIN_DEPTH + 3


def test_chain_plot_is_drawn_to_a_capped_depth(chain):
    pytest.importorskip("matplotlib")
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    from bivtree.export.plot import plot_tree

    clf, X = chain
    ax = plot_tree(clf)
    plt.close(ax.figure)
    ax = plot_tree(clf, X, max_depth=3)
    plt.close(ax.figure)


# ====================================================================== mutations
_DELETE = object()


def _edit(data, path, value):
    target = data
    for key in path[:-1]:
        target = target[key]
    if value is _DELETE:
        del target[path[-1]]
    else:
        target[path[-1]] = value


def _mutations(data):
    tree = data["tree"]
    leaf = _first_leaf(tree)
    n = len(tree["children_left"])
    return {
        "no tree": ((["tree"], _DELETE), "lacks \\['tree'\\]"),
        "no value": ((["tree", "value"], _DELETE), "lacks \\['value'\\]"),
        "no classes": ((["classes"], _DELETE), "needs 'classes'"),
        "tree a list": ((["tree"], [1, 2]), "'tree' must be a dictionary"),
        "threshold a string": ((["tree", "threshold"], "1.0"), "'threshold' is not a numeric"),
        "threshold entry a string": ((["tree", "threshold", 0], "1.0"),
                                     "'threshold' is not a numeric"),
        "threshold entry null": ((["tree", "threshold", 0], None), "'threshold'"),
        "count a boolean": ((["tree", "n_node_samples"], [True] * n), "'n_node_samples'"),
        "ragged features": ((["tree", "features", 1], [-1]), "'features': node 1"),
        "value row too short": ((["tree", "value", 2], [1.0]), "'value': node 2"),
        "negative count": ((["tree", "value", leaf, 0], -1.0), f"tree node {leaf}: 'value'"),
        "negative samples": ((["tree", "n_node_samples", 0], -3), "tree node 0: tree sample"),
        "NaN count": ((["tree", "value", leaf, 0], "NaN"), "'value' is not a numeric"),
        "child out of range": ((["tree", "children_right", 0], n + 5),
                               "tree node 0: 'children_right' is"),
        "child negative": ((["tree", "children_left", 0], -7), "tree node 0: 'children_left'"),
        "child is its parent": ((["tree", "children_left", 0], 0), "tree node 0"),
        "huge child id": ((["tree", "children_left", 0], 10 ** 30), "'children_left'"),
        "one child": ((["tree", "children_left", 0], -1), "tree node 0 has exactly one child"),
        "n_jobs a string": ((["params", "n_jobs"], "all"), "n_jobs must be"),
        "splitter unknown": ((["params", "splitter"], "magic"), "splitter must be"),
        "int8 overflow": ((["classes"], {"dtype": "|i1", "values": [0, 300]}), "does not fit"),
        "children not a list": ((["tree", "children_left"], None),
                                "'children_left' is not a numeric"),
        "too many slots": ((["tree", "features", 0], [0] * 17), "'features': node 0"),
    }


@pytest.mark.parametrize("case", sorted(_mutations(_model_dict())))
def test_mutated_model_is_a_value_error(case):
    data = _model_dict()
    (path, value), message = _mutations(data)[case]
    _edit(data, path, value)
    with pytest.raises(ValueError, match=message):
        _load(data)


def test_cycle_and_shared_children_are_rejected():
    data = _model_dict()
    tree = data["tree"]
    internal = [i for i, c in enumerate(tree["children_left"]) if c != -1]
    deepest = internal[-1]
    # the deepest test points back at the root's left child: a cycle
    tree["children_left"][deepest] = tree["children_left"][0]
    with pytest.raises(ValueError, match="tree node \\d+: its child \\d+ is also a child"):
        _load(data)
    data = _model_dict()
    tree = data["tree"]
    tree["children_left"][0], tree["children_right"][0] = 0, 0
    with pytest.raises(ValueError, match="tree node 0"):
        _load(data)


def test_oversized_tree_is_rejected_before_arrays_are_built(monkeypatch):
    import bivtree.tree as tree_module

    data = _model_dict()
    monkeypatch.setattr(tree_module, "MAX_NODES", 4)
    with pytest.raises(ValueError, match="'children_left' has \\d+ nodes; a stored tree has "
                                         "1 to 4"):
        _load(data)
    monkeypatch.undo()
    data["tree"]["features"] = [[0] * 17 for _ in data["tree"]["features"]]
    with pytest.raises(ValueError, match="'features': node 0 is not a numeric row"):
        _load(data)


def test_load_model_names_the_file(tmp_path):
    data = _model_dict()
    data["params"]["n_jobs"] = 0
    path = tmp_path / "model.json"
    path.write_text(json.dumps(data))
    with pytest.raises(ValueError, match="model.json: model 'params': n_jobs"):
        load_model(path)


# ---------------------------------------------------------------------- random mutations
# test_export fuzzes several edits at once and checks predict; this one edits one field,
# deletes list entries too, and also checks that class probabilities sum to 1


_REPLACEMENTS = st.one_of(
    st.just(_DELETE), st.none(), st.booleans(),
    st.integers(min_value=-(2 ** 70), max_value=2 ** 70), st.sampled_from([0, -1, 1, 2, 3]),
    st.floats(allow_nan=False, allow_infinity=False), st.sampled_from([0.0, -0.0, -1.0]),
    st.text(max_size=3), st.lists(st.integers(-2, 3), max_size=3),
    st.lists(st.lists(st.floats(-2, 2), max_size=2), max_size=2),
    st.dictionaries(st.text(max_size=2), st.integers(), max_size=2),
)


_GOOD = {False: _model_dict(), True: _model_dict(regressor=True)}


@pytest.mark.parametrize("regressor", [False, True])
@settings(max_examples=150, deadline=None,
          suppress_health_check=[HealthCheck.too_slow, HealthCheck.function_scoped_fixture])
@given(data=st.data())
def test_random_mutation_loads_and_predicts_or_is_a_value_error(regressor, data):
    good = _GOOD[regressor]
    paths = list(_json_paths(good))[1:]
    path = data.draw(st.sampled_from(paths), label="path")
    value = data.draw(_REPLACEMENTS, label="value")
    mutated = copy.deepcopy(good)
    _edit(mutated, path, value)
    try:
        model = _load(mutated)
    except ValueError:
        return
    X, _y = _data()
    prediction = model.predict(X)
    assert prediction.shape == (X.shape[0],)
    if not regressor:
        proba = model.predict_proba(X)
        assert np.allclose(proba.sum(axis=1), 1.0)
    else:
        assert np.all(np.isfinite(prediction))


