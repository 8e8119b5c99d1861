"""Indicator slots: the default search pairs a category's indicator with other features.

- rules the data was drawn from are found as one node: a numeric threshold that
  depends on a category (``x + w * [c in {k}] <= t``) and a conjunction of two
  categories (``c1 in {a} and c2 in {b}``);
- a rule found on one indicator alone is stored as the categorical node of that
  category with the children's roles swapped, routing the complement of the
  searched left side, at the same objective;
- with missing values in both kinds of columns the fitted tree routes every
  training row as a plain-Python walk of its stored rules does, and its missing
  sides are the learned ones;
- ``category_pairs=False`` grows the trees of the categorical subset search
  alone; the pair count the estimator checks includes the indicators.
"""

import io
import re
from contextlib import redirect_stdout

import numpy as np
import pandas as pd
import pytest

import naive
from bivtree import BivariateTreeClassifier, BivariateTreeRegressor, export_rules, export_text
from bivtree._config import CLASSIFICATION_CRITERIA
from bivtree._kernels.traversal import partition_samples
from bivtree.export.formatting import format_rule, indicator_reading
from bivtree.splitters import SplitData
from bivtree.splitters._base import make_split
from bivtree.splitters._categorical import (
    _IndicatorSearch,
    indicator_sets,
    n_indicator_sets,
)
from bivtree.tree import categories_to_mask, indicator_values


def walk_leaves(tree, X):
    """Leaf of each row of ``X`` by ``naive.goes_left`` at every node (missing sides kept)."""
    out = []
    for x in X:
        node = 0
        while tree.children_left[node] >= 0:
            left = naive.goes_left(x, tree.features[node], tree.weights[node],
                                   tree.threshold[node], tree.category_mask[node],
                                   tree.missing_go_left[node])
            node = tree.children_left[node] if left else tree.children_right[node]
        out.append(node)
    return np.array(out)


def category_threshold_data():
    """``x`` and a category ``c`` of codes 0 to 3; the class is ``x <= -1`` where ``c``
    is 2 and ``x <= 1.5`` elsewhere: one node with an indicator slot."""
    rng = np.random.default_rng(0)
    n = 400
    x = rng.uniform(-4, 4, n)
    c = rng.integers(0, 4, n).astype(float)
    return x, c, (x <= np.where(c == 2, -1.0, 1.5)).astype(int)


def test_a_threshold_that_depends_on_a_category_is_one_node():
    x, c, y = category_threshold_data()
    X = np.column_stack([x, c])
    clf = BivariateTreeClassifier(categorical_features=[1]).fit(X, y)
    tree = clf.tree_
    assert tree.node_count == 3 and clf.score(X, y) == 1.0
    assert tree.has_indicator_slots[0] and tree.features[0].tolist() == [0, 1]
    assert tree.category_mask[0].tolist() == [0, categories_to_mask([2])]
    # for each side of the category, the threshold on x falls between the samples
    w, t = tree.weights[0, 1], tree.threshold[0]
    for inside, cut in ((1.0, -1.0), (0.0, 1.5)):
        below = x[(c == 2) == bool(inside)]
        limit = t - w * inside
        assert below[below <= cut].max() <= limit < below[below > cut].min()
    assert clf.split_info_[0]["indicators"] == [[1, [2]]]
    assert "[x1 in {2}]" in export_text(clf, feature_names=["x0", "x1"])


def test_a_threshold_that_depends_on_a_group_of_categories_is_one_node():
    # the group {0, 2, 4} has the lower share of class 1 (x <= 0 against x <= 1.5): a
    # prefix of Breiman's order over the fit
    rng = np.random.default_rng(10)
    n = 600
    x = rng.uniform(-4, 4, n)
    c = rng.integers(0, 6, n).astype(float)
    group = np.isin(c, [0, 2, 4])
    y = (x <= np.where(group, 0.0, 1.5)).astype(int)
    X = np.column_stack([x, c])
    clf = BivariateTreeClassifier(categorical_features=[1]).fit(X, y)
    tree = clf.tree_
    assert tree.node_count == 3 and clf.score(X, y) == 1.0
    assert tree.category_mask[0].tolist() == [0, categories_to_mask([0, 2, 4])]
    assert clf.split_info_[0]["indicators"] == [[1, [0, 2, 4]]]
    # the category-set search alone takes more nodes
    singles = BivariateTreeClassifier(categorical_features=[1],
                                      splitter_options={"category_pairs": False}).fit(X, y)
    assert singles.tree_.node_count > 3


def test_two_categories_in_conjunction_are_one_node():
    rng = np.random.default_rng(1)
    n = 300
    frame = pd.DataFrame({"c1": rng.choice(list("abcd"), n), "c2": rng.choice(list("uvw"), n)})
    y = ((frame.c1 == "b") & (frame.c2 == "w")).astype(int).to_numpy()
    clf = BivariateTreeClassifier().fit(frame, y)
    tree = clf.tree_
    assert tree.node_count == 3 and clf.score(frame, y) == 1.0
    assert tree.has_indicator_slots[0] and np.all(tree.category_mask[0] != 0)
    text = export_text(clf)
    assert ("c1 not in {b} or c2 not in {w}" in text
            or "c2 not in {w} or c1 not in {b}" in text), text
    # the subset search alone needs two levels
    alone = BivariateTreeClassifier(splitter_options={"category_pairs": False}).fit(frame, y)
    assert alone.tree_.node_count == 5 and not alone.tree_.has_indicator_slots.any()


@pytest.mark.parametrize("missing_left", [False, True])
def test_one_indicator_alone_is_stored_as_its_category_set_with_the_sides_swapped(
        missing_left):
    rng = np.random.default_rng(2)
    n = 60
    codes = rng.integers(0, 5, n).astype(float)
    codes[::7] = np.nan
    X = np.column_stack([rng.normal(size=n), codes])
    labels = rng.integers(0, 2, n)
    data = SplitData(X=np.asfortranarray(X), labels=labels, targets=np.zeros(n),
                     sample_weight=np.ones(n), n_classes=2,
                     criterion=CLASSIFICATION_CRITERIA["gini"], has_missing=True)
    search = _IndicatorSearch(data, [1])
    # five categories: one indicator each, then the prefixes of 2 and 3 of Breiman's order
    assert search.feature.tolist() == [1] * 7
    assert search.mask[:5].tolist() == [categories_to_mask([c]) for c in range(5)]
    column = 2 + 3  # the indicator of code 3
    found = make_split([column, -1], [1.0, 0.0], 0.5, 7.25, missing_left=missing_left)
    stored = search.stored(found)
    assert stored.features.tolist() == [1, -1]
    assert stored.category_mask.tolist() == [categories_to_mask([3]), 0]
    assert stored.objective == 7.25 and stored.missing_left == (not missing_left)
    assert stored.info["categories"] == [3]
    rows = np.arange(n, dtype=np.int64)
    searched = rows.copy()
    mid = partition_samples(search.search.X, searched, 0, n, found.features, found.weights,
                            found.threshold, found.category_mask, found.missing_left)
    routed = rows.copy()
    cut = partition_samples(X, routed, 0, n, stored.features, stored.weights, stored.threshold,
                            stored.category_mask, stored.missing_left)
    assert set(routed[:cut]) == set(searched[mid:]) and set(routed[cut:]) == set(searched[:mid])


def test_indicator_columns_read_what_the_stored_slot_reads():
    column = np.array([0.0, 1.0, np.nan, 2.0, 0.5, 63.0, 64.0, -1.0, 5.0])
    mask = categories_to_mask([0, 5, 63])
    got = indicator_values(column, mask)
    np.testing.assert_array_equal(got, [1.0, 0.0, np.nan, 0.0, 0.0, 1.0, 0.0, 0.0, 1.0])
    # the routing's own indicator, value by value
    for x, value in zip(column, got):
        if np.isnan(x):
            assert np.isnan(value)
        else:
            assert value == float(naive.in_category_set(x, mask))


def test_indicator_sets_are_the_categories_and_the_prefixes_of_breimans_order():
    rng = np.random.default_rng(9)
    n = 400
    codes = rng.integers(0, 6, n).astype(float)
    codes[:5] = np.nan
    two = rng.integers(3, 5, n).astype(float)
    share = np.array([0.9, 0.1, 0.7, 0.3, 0.5, 0.05])  # class-1 share of each code
    labels = (rng.random(n) < share[np.nan_to_num(codes, nan=0).astype(int)]).astype(np.int64)
    X = np.column_stack([codes, two, np.zeros(n)])
    data = SplitData(X=np.asfortranarray(X), labels=labels, targets=np.zeros(n),
                     sample_weight=np.ones(n), n_classes=2,
                     criterion=CLASSIFICATION_CRITERIA["gini"], has_missing=True)
    feature, masks = indicator_sets(data, [0, 1, 2])
    known = ~np.isnan(codes)
    observed = [labels[known][codes[known] == c].mean() for c in range(6)]
    order = np.argsort(observed, kind="stable")
    expected = ([categories_to_mask([c]) for c in range(6)]
                + [categories_to_mask(order[:k].tolist()) for k in (2, 3, 4)]
                + [categories_to_mask([3])])  # column 1: one indicator; column 2: none
    assert feature.tolist() == [0] * 9 + [1] and masks.tolist() == expected
    assert n_indicator_sets(X, [0, 1, 2]) == 10


@pytest.mark.parametrize("estimator", [BivariateTreeClassifier, BivariateTreeRegressor])
def test_missing_values_in_both_kinds_of_columns_route_as_stored(estimator):
    rng = np.random.default_rng(3)
    n = 300
    x = rng.normal(size=n)
    colour = rng.choice(["red", "green", "blue"], n).astype(object)
    score = x + 1.2 * (colour == "red")
    x[rng.random(n) < 0.1] = np.nan
    colour[rng.random(n) < 0.1] = None
    frame = pd.DataFrame({"x": x, "colour": pd.Categorical(colour),
                          "z": rng.normal(size=n)})
    y = score + 0.1 * rng.normal(size=n)
    if estimator is BivariateTreeClassifier:
        y = (y > 0.5).astype(int)
    est = estimator(max_depth=4, random_state=0).fit(frame, y)
    tree = est.tree_
    assert tree.has_indicator_slots.any() and tree.missing_learned
    codes = est._validate_X_predict(frame)
    np.testing.assert_array_equal(est.apply(frame), walk_leaves(tree, codes))
    # an unseen category is read as missing, at every node
    unseen = frame.iloc[:20].copy()
    unseen["colour"] = pd.Categorical(["purple"] * 20)
    blank = frame.iloc[:20].copy()
    blank["colour"] = pd.Categorical([None] * 20, categories=["red"])
    np.testing.assert_array_equal(est.apply(unseen), est.apply(blank))


def test_category_pairs_off_grows_the_subset_search_tree():
    rng = np.random.default_rng(4)
    n = 200
    frame = pd.DataFrame({"a": rng.normal(size=n), "b": rng.normal(size=n),
                          "colour": rng.choice(list("pqrst"), n)})
    y = (frame.a + (frame.colour == "q") * 1.5 > 0.4).astype(int)
    off = BivariateTreeClassifier(splitter_options={"category_pairs": False}).fit(frame, y)
    assert not off.tree_.has_indicator_slots.any() and off.tree_.is_categorical.any()
    # every linear node of that tree reads numeric columns only
    linear = ~off.tree_.is_leaf & ~off.tree_.is_categorical
    assert np.all(np.isin(off.tree_.features[linear], [-1, 0, 1]))
    on = BivariateTreeClassifier().fit(frame, y)
    assert on.tree_.has_indicator_slots.any()
    assert on.tree_.n_leaves < off.tree_.n_leaves


def test_the_pair_check_counts_the_indicators():
    rng = np.random.default_rng(5)
    n = 50
    X = np.column_stack([rng.normal(size=n), rng.integers(0, 6, n)]).astype(float)
    y = rng.integers(0, 2, n)
    # one numeric column, six categories' indicators and three prefixes': 10 columns, 45 pairs
    with pytest.raises(ValueError, match="45 feature pairs at every node "
                       r"\(among 1 numeric features and 9 category indicators\)"):
        BivariateTreeClassifier(splitter="auto", max_pairs=20,
                                splitter_options={"exhaustive_work": 10 ** 9},
                                categorical_features=[1]).fit(X, y)
    BivariateTreeClassifier(max_pairs=20, categorical_features=[1],
                            splitter_options={"category_pairs": False}).fit(X, y)
    # verbose says what the pairs are drawn from (columns, not features, with indicators)
    out = io.StringIO()
    with redirect_stdout(out):
        BivariateTreeClassifier(verbose=1, categorical_features=[1],
                                splitter_options={"exhaustive_work": 10 ** 9}).fit(X, y)
    assert ("searching up to 45 feature pairs per node (among 1 numeric features and 9 "
            "category indicators)") in out.getvalue()
    out = io.StringIO()
    with redirect_stdout(out):
        BivariateTreeClassifier(verbose=1, categorical_features=[1],
                                splitter_options={"category_pairs": False}).fit(X, y)
    assert "(among 1 of 2 features)" in out.getvalue()


@pytest.mark.parametrize("weights, threshold, left, right", [
    # both in their sets: 2 > 1.5, the three others go left
    ([1.0, 1.0], 1.5, "a not in {0, 1} or b not in {4}", "a in {0, 1} and b in {4}"),
    ([1.0, 1.0], 0.5, "a not in {0, 1} and b not in {4}", "a in {0, 1} or b in {4}"),
    ([1.0, -1.0], 0.5, "a not in {0, 1} or b in {4}", "a in {0, 1} and b not in {4}"),
    # the second indicator cannot change the side: one set test
    ([1.0, 0.25], 0.5, "a not in {0, 1}", "a in {0, 1}"),
])
def test_two_indicators_read_as_the_boolean_rule_they_are(weights, threshold, left, right):
    masks = [categories_to_mask([0, 1]), categories_to_mask([4])]
    names = ["a", "b"]
    assert format_rule([0, 1], weights, threshold, names, category_mask=masks) == left
    assert format_rule([0, 1], weights, threshold, names, op=">", category_mask=masks) == right
    # the rule is the node's test: each of the four combinations
    for a in (0.0, 1.0, 5.0):
        for b in (4.0, 0.0):
            x = np.array([a, b])
            goes = naive.goes_left(x, [0, 1], weights, threshold, masks)
            ia, ib = a in (0.0, 1.0), b == 4.0
            expected = {"a in {0, 1}": ia, "a not in {0, 1}": not ia,
                        "b in {4}": ib, "b not in {4}": not ib}
            if " and " in left:
                first, second = left.split(" and ")
                assert goes == (expected[first] and expected[second])
            elif " or " in left:
                first, second = left.split(" or ")
                assert goes == (expected[first] or expected[second])
            else:
                assert goes == expected[left]
    # with the missing clause, the combination is parenthesized
    text = format_rule([0, 1], weights, threshold, names, category_mask=masks, missing=True)
    assert text.endswith(" or a or b is missing")
    if " and " in left or " or " in left:
        assert text.startswith(f"({left})")


@pytest.mark.parametrize("estimator", [BivariateTreeClassifier, BivariateTreeRegressor])
def test_tao_keeps_or_replaces_the_indicator_slots_of_its_initial_tree(estimator):
    from bivtree import TAOTreeClassifier, TAOTreeRegressor

    rng = np.random.default_rng(6)
    n = 300
    frame = pd.DataFrame({"a": rng.normal(size=n), "b": rng.normal(size=n),
                          "colour": rng.choice(list("pqrs"), n)})
    score = frame.a + (frame.colour == "q") * 1.5 + 0.3 * rng.normal(size=n)
    classify = estimator is BivariateTreeClassifier
    y = (score > 0.4).astype(int).to_numpy() if classify else score.to_numpy()
    start = estimator(max_depth=4, random_state=0).fit(frame, y)
    assert start.tree_.has_indicator_slots.any()
    tao_cls = TAOTreeClassifier if classify else TAOTreeRegressor
    tao = tao_cls(init=start, alpha=1e-3).fit(frame, y)
    # TAO never increases its objective from the initial tree's (iteration 0 of its path)
    assert tao.objective_ <= tao.objective_path_[0] * (1 + 1e-12) + 1e-12
    codes = tao._validate_X_predict(frame)
    np.testing.assert_array_equal(tao.apply(frame), walk_leaves(tao.tree_, codes))
    # the selector grows the default search's trees as its bivariate initial trees
    from bivtree import TAOTreeClassifierCV, TAOTreeRegressorCV

    cv_cls = TAOTreeClassifierCV if classify else TAOTreeRegressorCV
    cv = cv_cls(bivariate_splitter="auto", feature_costs=(1.0,), n_lambdas=3, cv=2,
                random_state=0).fit(frame, y)
    best = cv.best_estimator_
    np.testing.assert_array_equal(best.apply(frame),
                                  walk_leaves(best.tree_, best._validate_X_predict(frame)))


def test_indicator_columns_too_large_for_memory_say_so(monkeypatch):
    import bivtree._memory

    monkeypatch.setattr(bivtree._memory, "available_memory", lambda: 1000)
    rng = np.random.default_rng(7)
    X = np.column_stack([rng.normal(size=100), rng.integers(0, 5, 100)]).astype(float)
    y = rng.integers(0, 2, 100)
    with pytest.raises(MemoryError, match=r"7 indicator columns.*GiB.*max_categories.*"
                                          r"category_pairs"):
        BivariateTreeClassifier(categorical_features=[1]).fit(X, y)
    # the way out it names
    BivariateTreeClassifier(categorical_features=[1],
                            splitter_options={"category_pairs": False}).fit(X, y)


def test_one_and_two_threads_grow_the_same_tree_with_indicators():
    # large enough for subtrees grown on their own threads
    rng = np.random.default_rng(8)
    n = 6000
    frame = pd.DataFrame({"a": rng.normal(size=n), "b": rng.normal(size=n),
                          "colour": rng.choice(list("pqrstu"), n),
                          "size": rng.choice(list("SML"), n)})
    score = (frame.a + 1.3 * (frame.colour == "q") - frame.b * (frame["size"] == "L")
             + 0.5 * rng.normal(size=n))
    y = (score > 0.3).astype(int).to_numpy()
    one = BivariateTreeClassifier(n_jobs=1).fit(frame, y)
    two = BivariateTreeClassifier(n_jobs=2).fit(frame, y)
    assert one.tree_.has_indicator_slots.sum() >= 10 and one.tree_.node_count > 200
    assert one.tree_ == two.tree_


@pytest.mark.parametrize("features, weights, masks, op, expected", [
    ([0, 1], [1.0, -2.0], [0, 4], "<=", "x <= 3 if c in {2}, else x <= 1"),
    ([0, 1], [1.0, -2.0], [0, 4], ">", "x > 3 if c in {2}, else x > 1"),
    # the indicator first, a numeric weight that is not 1
    ([1, 0], [1.0, 0.5], [4, 0], "<=", "x <= 0 if c in {2}, else x <= 2"),
    # a negative numeric weight turns the comparison round
    ([0, 1], [-0.5, 1.0], [0, 4], "<=", "x >= 0 if c in {2}, else x >= -2"),
    ([0, 1], [-0.5, 1.0], [0, 4], ">", "x < 0 if c in {2}, else x < -2"),
    # two indicators, or none: no thresholds to read
    ([0, 1], [1.0, 1.0], [4, 4], "<=", None),
    ([0, 1], [1.0, 1.0], [0, 0], "<=", None),
])
def test_a_threshold_that_depends_on_a_category_reads_as_its_two_values(
        features, weights, masks, op, expected):
    names = ["x", "c"]
    assert indicator_reading(features, weights, 1.0, names, op=op,
                             category_mask=masks) == expected
    if expected is None:
        return
    # the reading and the test agree away from the thresholds
    for x in np.linspace(-5, 5, 41):
        for c in (2.0, 0.0):
            row = np.array([x, c])
            holds = naive.goes_left(row, features, weights, 1.0, masks)
            if op == ">":
                holds = not holds
            inside = expected.split(" if ")[0] if c == 2.0 else expected.split(", else ")[1]
            _, cmp, value = inside.split(" ")
            value = float(value)
            if x != value:
                assert holds == {"<=": x <= value, "<": x < value, ">=": x >= value,
                                 ">": x > value}[cmp]


def test_export_text_and_rules_give_the_two_thresholds():
    x, c, y = category_threshold_data()
    clf = BivariateTreeClassifier(categorical_features=[1]).fit(np.column_stack([x, c]), y)
    tree = clf.tree_
    reading = indicator_reading(tree.features[0], tree.weights[0], tree.threshold[0],
                                ["x0", "x1"], category_mask=tree.category_mask[0])
    inside, outside = (float(v) for v in re.fullmatch(
        r"x0 <= (\S+) if x1 in \{2\}, else x0 <= (\S+)", reading).groups())
    # each threshold falls between the samples of its side of the category (to 4 digits)
    for value, group, cut in ((inside, c == 2, -1.0), (outside, c != 2, 1.5)):
        assert x[group][x[group] <= cut].max() - 1e-3 <= value < x[group][x[group] > cut].min()
    assert export_text(clf, feature_names=["x0", "x1"]).splitlines()[0].endswith(
        f":  # {reading}")
    rules = export_rules(clf, feature_names=["x0", "x1"])
    assert [c["reading"] for row in rules for c in row["conditions"]] == [
        reading, reading.replace("<=", ">")]


def test_an_indicator_sending_every_known_value_left_is_stored_as_every_category():
    """``[c in {k}] <= ALL_KNOWN_LEFT`` (every known row left, the missing ones right: the
    missingness of a categorical column is the signal) is stored as the categorical node
    "c in {every category}" with its sides kept, not as "c in {k}" with the sides swapped
    (which routed other rows than the ones scored, at the objective of a perfect split)."""
    X = pd.DataFrame({"u": np.linspace(-1.0, 1.0, 30),
                      "d": pd.Series(["p", None, "q"] * 10, dtype=object)})
    y = X["d"].isna().astype(int).to_numpy()
    est = BivariateTreeClassifier(max_depth=2).fit(X, y)
    tree = est.tree_
    assert tree.node_count == 3 and est.score(X, y) == 1.0
    assert tree.category_mask[0][0] == categories_to_mask([0, 1])
    assert not tree.missing_go_left[0]
    np.testing.assert_array_equal(est.apply(X), walk_leaves(tree, est._validate_X_predict(X)))
