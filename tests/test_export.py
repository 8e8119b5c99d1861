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
from bivtree._kernels.scan import ALL_KNOWN_LEFT
from bivtree.export import rules_markdown
from bivtree.export.formatting import (
    format_categories,
    format_number,
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
    # a threshold counts as zero where the test's ratio, -w + t / height, stays within
    # half a unit of the printed ratio's last digit down to the smallest height (150):
    # 0.5 + 0.007 / 150 rounds to 0.5000, 0.5 + 0.03 / 150 = 0.5002 does not
    assert ratio_rule([0, 1], [1.0, -0.5], 0.007, "<=", names, positive, decimals=4) == \
        "waist / height <= 0.5"
    assert ratio_rule([0, 1], [1.0, -0.5], 0.03, "<=", names, positive, decimals=4) is None
    assert ratio_rule([0, 1], [1.0, -0.5], 0.03, "<=", names, positive, decimals=2) == \
        "waist / height <= 0.5"
    assert ratio_rule([0, 1], [1.0, -0.5], 0.007, "<=", names, positive, decimals=None) is None


def test_ratio_rows_route_like_the_tree():
    rng = np.random.default_rng(0)
    X = np.column_stack([rng.uniform(60, 125, 400), rng.uniform(150, 200, 400)])
    y = (X[:, 0] / X[:, 1] > 0.5).astype(int)
    clf = BivariateTreeClassifier(max_depth=1, n_orientations=180).fit(X, y)
    clf.tree_.threshold[0] = 0.0
    rows = export_rules(clf, ["waist", "height"], X=X, decimals=None)
    w = clf.tree_.weights[0, 1]
    assert rows[0]["rule"] == f"waist / height <= {float(-w)!r}"
    # the right child is the heavier one: it takes the missing values
    assert rows[1]["rule"] == f"waist / height > {float(-w)!r} or waist or height is missing"
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


# --------------------------------------------------------------------------- faithful rules
def waist_height(n, seed):
    """Waist and height in cm, labelled 1 when waist / height > 0.5 (the README's example)."""
    rng = np.random.default_rng(seed)
    height = rng.uniform(150.0, 200.0, n)
    X = np.column_stack([rng.uniform(60.0, 125.0, n), height])
    return X, (X[:, 0] / X[:, 1] > 0.5).astype(int)


def ratio_reads(rule, X):
    """Where the printed ratio ``waist / height <= r`` (or ``>``) holds on X; None for
    any other rule."""
    match = re.fullmatch(r"waist / height (<=|>) (\S+)", rule.split(" or ")[0])
    if match is None:
        return None
    ratio = X[:, 0] / X[:, 1]
    return ratio <= float(match[2]) if match[1] == "<=" else ratio > float(match[2])


def test_a_ratio_is_written_only_where_it_routes_as_the_test():
    X, y = waist_height(400, 0)
    clf = BivariateTreeClassifier(max_depth=1, n_orientations=180).fit(X, y)
    w, t = clf.tree_.weights[0, 1], clf.tree_.threshold[0]
    assert -0.49 < w < -0.48 and 3 < t < 3.5  # waist - 0.482 * height <= 3.26
    # the test's boundary is the ratio 0.482 + 3.26 / height, 0.4986 to 0.504 over the
    # heights: at 2 digits and more no printed ratio is that test, the linear form is
    rows = export_rules(clf, ["waist", "height"], X=X, decimals=2)
    assert [r["rule"] for r in rows] == [
        "waist - 0.48 * height <= 3.3",
        "waist - 0.48 * height > 3.3 or waist or height is missing"]
    for decimals in (3, 4, None):
        assert "/" not in export_rules(clf, ["waist", "height"], X=X, decimals=decimals)[0][
            "rule"]
    # at one digit it is the ratio 0.5 (+- 0.05) at every height, and reads as the
    # model on every training row
    rows = export_rules(clf, ["waist", "height"], X=X, decimals=1)
    assert rows[0]["rule"] == "waist / height <= 0.5"
    assert np.array_equal(ratio_reads(rows[0]["rule"], X), clf.apply(X) == rows[0]["leaf"])
    # a test through the origin printed exactly is its ratio, on new samples too
    clf.tree_.threshold[0] = 0.0
    X_new, _ = waist_height(100_000, 1)
    leaves = clf.apply(X_new)
    for row in export_rules(clf, ["waist", "height"], X=X, decimals=None):
        reads = ratio_reads(row["rule"], X_new)
        assert np.mean(reads != (leaves == row["leaf"])) < 1e-4


def test_a_ratio_must_route_every_given_row_as_the_test():
    names = ["waist", "height"]
    positive = (np.array([1, 1]), np.array([60.0, 150.0]))
    # t = 0.007 is within the printed ratio's rounding, 0.5 +- 0.00005, at every height ...
    assert ratio_rule([0, 1], [1.0, -0.5], 0.007, "<=", names, positive) == \
        "waist / height <= 0.5"
    # ... but a row between the two boundaries would read the other way
    X = np.array([[60.0, 150.0], [75.005, 150.0], [100.0, 190.0]])
    assert ratio_rule([0, 1], [1.0, -0.5], 0.007, "<=", names, positive, X=X) is None
    assert ratio_rule([0, 1], [1.0, -0.5], 0.007, "<=", names, positive, X=X[[0, 2]]) == \
        "waist / height <= 0.5"
    # rows missing a feature of the test are left to the missing side
    assert ratio_rule([0, 1], [1.0, -0.5], 0.0, "<=", names, positive,
                      X=np.array([[np.nan, 150.0], [70.0, np.nan]])) == "waist / height <= 0.5"
    # a negative denominator: the rows are read with the flipped comparison
    negative = (np.array([1, -1]), np.array([60.0, 150.0]))
    assert ratio_rule([0, 1], [1.0, 0.5], 0.0, ">", names, negative,
                      X=np.array([[80.0, -150.0], [70.0, -150.0]])) == "waist / height < -0.5"


def indicator_or_tree():
    """A hand-made tree: root ``x0 in {1}`` and ``x1 in {2}`` as two indicator slots
    (its left branch, an ``or``), then ``x2 <= 0.5`` on the left; right heavier."""
    from bivtree.tree import categories_to_mask

    rng = np.random.default_rng(0)
    X = np.column_stack([rng.integers(0, 3, 60), rng.integers(0, 3, 60),
                         rng.uniform(size=60)]).astype(float)
    clf = BivariateTreeClassifier(max_depth=1).fit(X, X[:, 2] > 0.5)
    clf.tree_ = Tree(
        [1, 3, -1, -1, -1], [2, 4, -1, -1, -1],
        [[0, 1], [2, -1], [-1, -1], [-1, -1], [-1, -1]],
        [[1.0, 1.0], [1.0, 0.0], [0.0, 0.0], [0.0, 0.0], [0.0, 0.0]],
        [1.5, 0.5, -2.0, -2.0, -2.0], np.zeros(5), [60, 20, 40, 15, 5],
        [60.0, 20, 40, 15, 5], [[30, 30], [10, 10], [20, 20], [10, 5], [0, 5]], 3,
        [[categories_to_mask([1]), categories_to_mask([2])], [0, 0], [0, 0], [0, 0],
         [0, 0]])
    return clf, X


def test_a_test_reading_or_is_bracketed_where_joined():
    clf, X = indicator_or_tree()
    rows = export_rules(clf)
    # the root's left branch holds unless both indicators do: "x0 not in {1} or x1 not
    # in {2}"; joined unbracketed, "and" would bind tighter
    assert [r["rule"] for r in rows] == [
        "(x0 not in {1} or x1 not in {2}) and (x2 <= 0.5 or x2 is missing)",
        "(x0 not in {1} or x1 not in {2}) and x2 > 0.5",
        "(x0 in {1} and x1 in {2}) or x0 or x1 is missing"]
    assert "| (x0 not in {1} or x1 not in {2}) and x2 > 0.5 |" in rules_markdown(rows)
    check_rows_route_as_apply(clf, X)


def test_rules_say_where_missing_values_go_without_missing_values_at_fit():
    rng = np.random.default_rng(0)
    X = rng.normal(size=(100, 1))
    y = np.where(X[:, 0] > 0.3, 5.0, -5.0) + rng.normal(size=100)
    reg = BivariateTreeRegressor(max_depth=1).fit(X, y)
    assert not reg.tree_.missing_learned and reg.tree_.missing_go_left[0]  # the heavier
    assert export_text(reg).splitlines()[0] == "if x0 <= 0.2967 or x0 is missing:"
    rows = export_rules(reg)
    assert [r["rule"] for r in rows] == ["x0 <= 0.2967 or x0 is missing", "x0 > 0.2967"]
    assert [r["conditions"][0]["missing"] for r in rows] == [True, False]
    nan = np.array([[np.nan]])
    assert reg.apply(nan)[0] == rows[0]["leaf"]
    check_rows_route_as_apply(reg, np.vstack([X, nan]))


def test_a_bivariate_node_missing_one_feature_reads_as_predict_routes_it():
    X, _y, clf = fitted()  # no missing values at fit
    tree = clf.tree_
    assert not tree.missing_learned and tree.n_node_features[0] == 2
    text = export_text(clf)
    for node in np.flatnonzero(~tree.is_leaf):
        names = " or ".join(f"x{f}" for f in tree.features[node] if f >= 0)
        assert text.count(f" or {names} is missing") >= 1
    assert text.count(" is missing") == np.count_nonzero(~tree.is_leaf)
    rows_with_nan = X[:6].copy()
    rows_with_nan[0, 0] = rows_with_nan[1, 1] = rows_with_nan[2, 2] = np.nan
    rows_with_nan[3, :2] = rows_with_nan[4, :] = np.nan
    check_rows_route_as_apply(clf, np.vstack([X, rows_with_nan]))


def passes(condition, X):
    """Whether each row of (encoded) X passes one condition of export_rules, read from its
    exact numbers: a row missing one of its features passes iff ``missing`` says so."""
    features = condition["features"]
    missing = np.isnan(X[:, features]).any(axis=1)
    if condition["op"] in ("in", "not in"):
        inside = np.isin(X[:, features[0]], condition["categories"])
        known = inside if condition["op"] == "in" else ~inside
    else:
        sets = condition.get("indicator_categories") or [None] * len(features)
        s = np.zeros(X.shape[0])  # summed in slot order from 0.0, as the tree does
        for f, w, codes in zip(features, condition["weights"], sets):
            s = s + w * (X[:, f] if codes is None else np.isin(X[:, f], codes))
        with np.errstate(invalid="ignore"):
            known = s <= condition["threshold"] if condition["op"] == "<=" else \
                s > condition["threshold"]
    return np.where(missing, condition["missing"], known)


def check_rows_route_as_apply(estimator, samples, **kwargs):
    """Every one of ``samples`` satisfies the conditions of exactly one row of
    export_rules: the one of the leaf apply gives."""
    rows = export_rules(estimator, **kwargs)
    encoded = estimator._validate_X_predict(samples)
    satisfied = np.array([np.all([passes(c, encoded) for c in r["conditions"]], axis=0)
                          if r["conditions"] else np.ones(len(encoded), bool) for r in rows])
    assert np.array_equal(satisfied.sum(axis=0), np.ones(len(encoded)))
    leaves = np.array([r["leaf"] for r in rows])[np.argmax(satisfied, axis=0)]
    assert np.array_equal(leaves, estimator.apply(samples))
    for row in rows:  # the rule is its conditions, a disjunction among others in brackets
        texts = [c["text"] for c in row["conditions"]]
        assert row["rule"] == (" and ".join(f"({t})" if " or " in t and len(texts) > 1 else t
                                            for t in texts) or "always")
    names = ["x0", "x1", "x2", "x3"]
    for c in (c for row in rows for c in row["conditions"]):
        # the text says where missing values go exactly when they pass
        if c["threshold"] is not None and c["threshold"] >= ALL_KNOWN_LEFT:
            # the test of whether a value is missing (known values all go left)
            assert c["text"] == missing_text(c["features"], names, missing=c["missing"])
        else:
            clause = f" or {missing_text(c['features'], names)}"
            assert c["text"].endswith(clause) == c["missing"], c
    return rows


_LINEAR = re.compile(r"(.+) (<=|>) (\S+)")
_TERM = re.compile(r"(?:^|([+-]) )(?:(\S+) \* )?x(\d+)")
_RATIO = re.compile(r"x(\d+) / x(\d+) (<=|>|>=|<) (\S+)")


def read_test(text, features, missing):
    """The numbers of a printed linear or ratio test, read back: ``("linear", weights,
    op, threshold)`` or ``("ratio", op, r)``."""
    if missing:
        text = text[:-len(f" or {missing_text(features, ['x0', 'x1', 'x2', 'x3'])}")]
    match = _RATIO.fullmatch(text)
    if match:
        assert [int(match[1]), int(match[2])] == list(features)
        return "ratio", match[3], float(match[4])
    match = _LINEAR.fullmatch(text)
    terms = _TERM.findall(match[1])
    assert [int(f) for _, _, f in terms] == list(features), text
    weights = [(-1.0 if sign == "-" else 1.0) * float(w or 1.0) for sign, w, _ in terms]
    return "linear", weights, match[2], float(match[3])


def check_printed_tests(estimator, samples, decimals):
    """The printed linear and ratio tests, numbers read back, route ``samples`` as the
    conditions do (exactly when printed exactly; a ratio always, on the X it was given)."""
    encoded = estimator._validate_X_predict(samples)
    rows = export_rules(estimator, X=encoded, decimals=decimals)
    for c in (c for row in rows for c in row["conditions"]):
        if (c["op"] not in ("<=", ">") or "indicator_categories" in c
                or c["threshold"] >= ALL_KNOWN_LEFT):  # not a comparison of numbers
            continue
        read = read_test(c["text"], c["features"], c["missing"])
        values = encoded[:, c["features"]]
        known = ~np.isnan(values).any(axis=1)
        values = values[known]
        expected = passes(c, encoded)[known]
        if read[0] == "ratio":
            _, op, r = read
            ratio = values[:, 0] / values[:, 1]
            reads = {"<=": ratio <= r, ">": ratio > r, ">=": ratio >= r, "<": ratio < r}[op]
            assert np.array_equal(reads, expected), c
            continue
        _, weights, op, threshold = read
        assert op == c["op"]
        if decimals is None:
            assert weights == c["weights"] and threshold == c["threshold"], c
            s = np.zeros(len(values))
            for k, w in enumerate(weights):
                s = s + w * values[:, k]
            assert np.array_equal(s <= threshold if op == "<=" else s > threshold, expected)
        else:  # each printed number is the test's, rounded to the digits asked for
            for printed, exact in zip([*weights, threshold], [*c["weights"], c["threshold"]]):
                assert printed == float(format_number(exact, decimals)), c


@settings(max_examples=30, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(seed=st.integers(0, 10_000), n=st.integers(8, 30), depth=st.integers(1, 3),
       nan_at_fit=st.booleans(), categorical=st.booleans(), regression=st.booleans(),
       zero_thresholds=st.booleans())
def test_every_sample_satisfies_the_rule_of_its_leaf(seed, n, depth, nan_at_fit,
                                                     categorical, regression,
                                                     zero_thresholds):
    rng = np.random.default_rng(seed)
    # positive columns (a ratio is possible), ties, and a column of category codes
    X = np.column_stack([np.round(rng.uniform(1, 5, size=(n, 3)), 1),
                         rng.integers(0, 4, n)]).astype(float)
    if nan_at_fit:
        X[rng.uniform(size=X.shape) < 0.15] = np.nan
    params = {"max_depth": depth, "categorical_features": [3] if categorical else None}
    target = np.nan_to_num(X[:, 0] - 0.7 * X[:, 1] + (X[:, 3] == 1), nan=0.5)
    if regression:
        est = BivariateTreeRegressor(**params).fit(X, target + rng.normal(size=n))
    else:
        y = (target > rng.normal(size=n)).astype(int)
        y[:2] = [0, 1]
        est = BivariateTreeClassifier(**params).fit(X, y)
    tree = est.tree_
    if zero_thresholds:  # tests through the origin, which may read as ratios
        for node in np.flatnonzero(tree.n_node_features == 2):
            if not tree.category_mask[node].any():
                tree.threshold[node] = 0.0
    # the training rows, and the same rows missing values here and there
    holes = X.copy()
    holes[rng.uniform(size=X.shape) < 0.3] = np.nan
    samples = np.vstack([X, holes])
    check_rows_route_as_apply(est, samples, X=est._validate_X_predict(samples))
    for decimals in (None, 4, 2):
        check_printed_tests(est, samples, decimals)


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
    from bivtree.export.explanation import contributions

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


def test_rules_read_x_as_predict_does():
    """``X`` with the fit's categorical (text) columns is read as ``predict`` reads it."""
    import pandas as pd

    rng = np.random.default_rng(0)
    X = pd.DataFrame({"a": rng.normal(size=80) + 3, "b": rng.normal(size=80) + 5,
                      "k": rng.choice(["r", "g"], 80)})
    y = ((X["a"] / X["b"] > 0.6) ^ (X["k"] == "r")).astype(int)
    clf = BivariateTreeClassifier(max_depth=2).fit(X, y)
    with_x = export_rules(clf, X=X)
    assert [row["leaf"] for row in with_x] == [row["leaf"] for row in export_rules(clf)]
    with pytest.raises(ValueError, match="feature names"):
        export_rules(clf, X=X.rename(columns={"a": "z"}))
