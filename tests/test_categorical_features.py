"""Categorical features in every splitter: the subset search, encoded input, exports.

- the shared subset search against brute force over every subset (two classes
  and regression: exact, Breiman's order), and its multi-class heuristic never
  better than brute force;
- routing as scored, 1 vs 2 threads and JSON round trips with categorical
  columns, for every registered splitter;
- ``categorical_features`` (indices, names, mask, ``"from_dtype"``), category
  values kept and printed, ``max_categories``, unseen categories, sparse input
  and mixed-dtype DataFrames.
"""

import copy
import json
import math
import re

import numpy as np
import pandas as pd
import pytest
import scipy.sparse as sp
from hypothesis import given, settings
from hypothesis import strategies as st

import naive
from bivtree import (
    BivariateTreeClassifier,
    BivariateTreeRegressor,
    TAOTreeClassifier,
    export_graphviz,
    export_rules,
    export_text,
    from_json,
    to_json,
)
from bivtree._config import CLASSIFICATION_CRITERIA, REGRESSION_CRITERIA
from bivtree._tabular import INFREQUENT_LABEL
from bivtree.splitters import SPLITTERS, SplitData
from bivtree.splitters._categorical import WithCategories, best_subset_split
from bivtree.splitters.lda import LDASplitter
from bivtree.tree import mask_to_categories
from test_splitter_contract import HYPOTHESIS, Model, check_routes_as_scored

CRITERION_CODES = {**CLASSIFICATION_CRITERIA, **REGRESSION_CRITERIA}
MODELS = ([Model(name, task) for name in sorted(SPLITTERS) for task in SPLITTERS[name].tasks]
          + [Model("tao", task) for task in ("classification", "regression")])
MODEL_PARAMS = [pytest.param(m, id=str(m)) for m in MODELS]


# ================================================================ the subset search
@st.composite
def category_problems(draw, regression, n_classes=2):
    """A node: codes spread over [0, 63] (not a range), targets or labels, weights."""
    seed = draw(st.integers(0, 2 ** 32 - 1))
    rng = np.random.default_rng(seed)
    k = draw(st.integers(2, 7))
    n = draw(st.integers(2, 30))
    alphabet = rng.choice(64, size=k, replace=False).astype(float)
    codes = alphabet[rng.integers(0, k, n)]
    if regression:
        y = (rng.integers(0, 3, n).astype(float) if draw(st.booleans())
             else rng.normal(size=n) * 10.0 ** rng.integers(-2, 3))
    else:
        y = rng.integers(0, n_classes, n)
    w = {"ones": np.ones(n), "integer": rng.integers(1, 4, n).astype(float),
         "float": rng.uniform(0.1, 2.0, n)}[draw(st.sampled_from(["ones", "integer", "float"]))]
    return codes, y, w


def subset_split(codes, y, w, criterion, n_classes):
    regression = criterion == "squared_error"
    n = codes.size
    data = SplitData(
        X=np.asfortranarray(codes[:, None]),
        labels=np.zeros(n, dtype=np.int64) if regression else y.astype(np.int64),
        targets=y.astype(float) if regression else np.zeros(n),
        sample_weight=w, n_classes=1 if regression else n_classes,
        criterion=CRITERION_CODES[criterion])
    return best_subset_split(data, np.arange(n, dtype=np.int64), 0)


def check_subset(codes, y, w, criterion, n_classes, exact):
    split = subset_split(codes, y, w, criterion, n_classes)
    if np.unique(codes).size < 2:
        assert split is None
        return
    brute = naive.best_category_subset(codes, y, w, criterion, n_classes)
    scale = float(w.sum()) * (1.0 + float(np.max(np.abs(y))) ** 2)
    if split is None:
        # every category has the same key: no subset does better than the node itself
        node = float(w.sum()) * naive.impurity(y, w, criterion, n_classes)
        assert brute == pytest.approx(node, rel=1e-9, abs=1e-9 * scale)
        return
    # the stored set routes the partition it reported
    mask = int(split.category_mask[0])
    left = np.array([(mask >> int(c)) & 1 == 1 for c in codes])
    g = naive.weighted_child_impurity(left, y, w, criterion, n_classes)
    assert split.objective == pytest.approx(g, rel=1e-9, abs=1e-9 * scale)
    assert 0 < left.sum() < codes.size
    if exact:
        assert split.objective == pytest.approx(brute, rel=1e-9, abs=1e-9 * scale)
    else:
        assert split.objective >= brute - 1e-9 * scale


@settings(max_examples=150, **HYPOTHESIS)
@given(problem=category_problems(regression=False),
       criterion=st.sampled_from(["gini", "entropy", "misclassification"]))
def test_two_class_subset_is_the_best_of_all_subsets(problem, criterion):
    check_subset(*problem, criterion, 2, exact=True)


@settings(max_examples=150, **HYPOTHESIS)
@given(problem=category_problems(regression=True))
def test_regression_subset_is_the_best_of_all_subsets(problem):
    check_subset(*problem, "squared_error", 1, exact=True)


def check_subset_with_missing(codes, y, w, criterion, n_classes, holes):
    codes = np.where(holes, np.nan, codes)
    split = subset_split(codes, y, w, criterion, n_classes)
    brute = naive.best_category_subset_missing(codes, y, w, criterion, n_classes)
    scale = float(w.sum()) * (1.0 + float(np.max(np.abs(y))) ** 2)
    if split is None:
        # no subset and side does better than the node itself (or nothing varies)
        node = float(w.sum()) * naive.impurity(y, w, criterion, n_classes)
        assert brute == math.inf or brute == pytest.approx(node, rel=1e-9, abs=1e-9 * scale)
        return
    # the stored set and missing side route the partition the search reported
    mask = int(split.category_mask[0])
    missing = np.isnan(codes)
    left = np.where(missing, split.missing_left,
                    [(not m) and (mask >> int(c)) & 1 == 1 for c, m in
                     zip(np.nan_to_num(codes), missing)])
    assert 0 < left.sum() < codes.size
    g = naive.weighted_child_impurity(left, y, w, criterion, n_classes)
    assert split.objective == pytest.approx(g, rel=1e-9, abs=1e-9 * scale)
    assert split.objective == pytest.approx(brute, rel=1e-9, abs=1e-9 * scale)


@settings(max_examples=150, **HYPOTHESIS)
@given(problem=category_problems(regression=False),
       criterion=st.sampled_from(["gini", "entropy", "misclassification"]),
       seed=st.integers(0, 2 ** 32 - 1), share=st.sampled_from([0.1, 0.3, 0.6]))
def test_two_class_subset_with_missing_categories_is_the_best_of_all(problem, criterion,
                                                                    seed, share):
    holes = np.random.default_rng(seed).uniform(size=problem[0].size) < share
    check_subset_with_missing(*problem, criterion, 2, holes)


@settings(max_examples=150, **HYPOTHESIS)
@given(problem=category_problems(regression=True), seed=st.integers(0, 2 ** 32 - 1),
       share=st.sampled_from([0.1, 0.3, 0.6]))
def test_regression_subset_with_missing_categories_is_the_best_of_all(problem, seed, share):
    holes = np.random.default_rng(seed).uniform(size=problem[0].size) < share
    check_subset_with_missing(*problem, "squared_error", 1, holes)


@settings(max_examples=100, **HYPOTHESIS)
@given(problem=category_problems(regression=False, n_classes=4),
       criterion=st.sampled_from(["gini", "entropy"]))
def test_more_classes_route_as_scored_and_never_beat_brute_force(problem, criterion):
    check_subset(*problem, criterion, 4, exact=False)


def test_more_classes_heuristic_finds_a_one_against_the_rest_split():
    # class 2 lives in categories 5 and 9 only: the best subset is {5, 9}
    codes = np.repeat([1.0, 5.0, 7.0, 9.0, 11.0], 6)
    y = np.array([0] * 6 + [2] * 6 + [1] * 6 + [2] * 6 + [0, 1] * 3)
    split = subset_split(codes, y, np.ones(codes.size), "gini", 3)
    assert sorted(split.info["categories"]) in ([5, 9], [1, 7, 11])


# ================================================================ the estimators
def categorical_fit_data(seed, n=40, regression=False):
    """Two numeric columns and two categorical ones (codes with gaps, text)."""
    rng = np.random.default_rng(seed)
    x = rng.normal(size=(n, 2))
    colour = rng.choice(["red", "green", "blue", "black", "white"], n)
    size = rng.choice([3, 10, 40], n)
    score = x[:, 0] + np.isin(colour, ["red", "white"]) * 1.5 - (size == 10)
    frame = pd.DataFrame({"a": x[:, 0], "b": x[:, 1], "colour": colour, "size": size})
    if regression:
        return frame, score + 0.2 * rng.normal(size=n)
    return frame, (score + 0.3 * rng.normal(size=n) > 0.5).astype(int)


def fit_recorded(model, X, y, w, params):
    """Fit on a frame with categories, recording every search that can return a subset."""
    est = model.make(categorical_features=["colour", "size"], **params)
    if model.splitter is None:  # TAO: no split search to record
        return est.fit(X, y, sample_weight=w), []
    cls = LDASplitter if model.kind == "lda" else WithCategories
    calls = []
    original = cls.find_split

    def find_split(self, data, samples, features):
        split = original(self, data, samples, features)
        calls.append((data, np.array(samples), split))
        return split

    with pytest.MonkeyPatch.context() as mp:
        mp.setattr(cls, "find_split", find_split)
        est.fit(X, y, sample_weight=w)
    return est, calls


@pytest.mark.parametrize("model", MODEL_PARAMS)
@settings(max_examples=8, **HYPOTHESIS)
@given(seed=st.integers(0, 10_000), max_depth=st.sampled_from([1, 3, None]),
       min_samples_leaf=st.integers(1, 3), weighted=st.booleans())
def test_categorical_rules_route_training_samples_as_scored(model, seed, max_depth,
                                                            min_samples_leaf, weighted):
    frame, y = categorical_fit_data(seed, regression=model.regression)
    rng = np.random.default_rng(seed)
    w = rng.integers(0, 3, y.size).astype(float) if weighted else np.ones(y.size)
    w[:2] = 1.0
    est, calls = fit_recorded(model, frame, y, w, {"max_depth": max_depth,
                                                   "min_samples_leaf": min_samples_leaf})
    encoded = est._validate_X_predict(frame)
    assert calls or model.splitter is None
    # the walk reads codes: the same estimator, taking the encoded matrix as it is
    on_codes = copy.copy(est)
    on_codes.categories_ = None
    del on_codes.feature_names_in_
    check_routes_as_scored(model, on_codes, calls, encoded, y, w)
    # bivariate and linear rules read a categorical feature only as a category set's
    # indicator, and only the splitters that pair indicators do
    tree = est.tree_
    linear = ~tree.is_leaf & ~tree.is_categorical
    on_categories = np.isin(tree.features[linear], [2, 3])
    assert np.all(tree.category_mask[linear][on_categories] != 0)
    assert np.all(tree.category_mask[linear][~on_categories] == 0)
    if model.kind != "auto":  # the one splitter with category_pairs
        assert not on_categories.any()
    assert np.isin(tree.features[tree.is_categorical, 0], [2, 3]).all()


def fitted(model, seed=3, **params):
    frame, y = categorical_fit_data(seed, n=120, regression=model.regression)
    return model.make(categorical_features="from_dtype", max_depth=4, **params).fit(
        frame.astype({"size": "category"}), y), frame.astype({"size": "category"}), y


@pytest.mark.parametrize("model", MODEL_PARAMS)
def test_categories_one_and_two_threads_give_identical_trees(model):
    one, frame, _ = fitted(model, n_jobs=1)
    two, _, _ = fitted(model, n_jobs=2)
    uses = one.tree_.has_indicator_slots if model.kind == "auto" else one.tree_.is_categorical
    assert uses.any()
    for a, b in ((one, two),):
        ja, jb = json.loads(to_json(a)), json.loads(to_json(b))
        for j in (ja, jb):
            j.pop("fit_time")
            j["params"].pop("n_jobs", None)
        assert ja == jb
    np.testing.assert_array_equal(one.predict(frame), two.predict(frame))


@pytest.mark.parametrize("model", MODEL_PARAMS)
def test_categories_json_round_trip_keeps_the_values(model, tmp_path):
    est, frame, _ = fitted(model)
    text = to_json(est)
    back = from_json(text)
    assert to_json(back) == text
    assert back.categories_[2].tolist() == ["black", "blue", "green", "red", "white"]
    assert back.categories_[3].tolist() == [3, 10, 40]
    assert back.is_categorical_.tolist() == [False, False, True, True]
    np.testing.assert_array_equal(back.predict(frame), est.predict(frame))
    assert export_text(back) == export_text(est)
    path = tmp_path / "m.json"
    est.save(path)
    assert type(est).load(path).categories_[2].tolist() == est.categories_[2].tolist()


def test_rules_print_category_values():
    frame, y = categorical_fit_data(0, n=200)
    est = BivariateTreeClassifier(max_depth=2, splitter_options={"category_pairs": False}).fit(
        frame, y)
    assert est.tree_.is_categorical.any()
    text = export_text(est)
    # (missing values go to the heavier child, the left one here)
    assert "if colour in {black, blue, green} or colour is missing:" in text, text
    assert "# colour not in {black, blue, green}" in text, text
    rules = export_rules(est)
    conditions = [c["text"] for row in rules for c in row["conditions"]]
    assert "colour in {black, blue, green} or colour is missing" in conditions, conditions
    assert "colour not in {black, blue, green}" in conditions, conditions
    dot = export_graphviz(est)
    assert "colour in {black, blue, green}" in dot


def test_indicator_slots_print_category_values():
    # the score is a + 1.5 * [colour in {red, white}] - [size == 10]: the default search
    # pairs the numeric column with the indicator of the other colours, a prefix of
    # Breiman's order
    frame, y = categorical_fit_data(0, n=200)
    est = BivariateTreeClassifier(max_depth=2).fit(frame, y)
    tree = est.tree_
    assert tree.has_indicator_slots[0] and tree.features[0].tolist() == [0, 2]
    assert tree.category_mask[0, 0] == 0
    colours = est.categories_[2].tolist()
    assert mask_to_categories(tree.category_mask[0, 1]) == [
        colours.index(c) for c in ("black", "blue", "green")]
    w, t = tree.weights[0, 1], tree.threshold[0]
    rule = f"a {'+' if w > 0 else '-'} {abs(w):.4g} * [colour in {{black, blue, green}}] <= {t:.4g}"
    assert f"if {rule}:" in export_text(est)
    conditions = [c for row in export_rules(est) for c in row["conditions"]]
    assert any(c["text"] == rule and c["indicator_categories"][0] is None
               and len(c["indicator_categories"][1]) == 3 for c in conditions)
    assert rule in export_graphviz(est)


# ====================================================== categorical_features, input
def test_categorical_features_accepts_indices_names_masks_and_dtypes():
    frame, y = categorical_fit_data(1, n=80)
    arrays = frame.to_numpy(dtype=object)
    ref = BivariateTreeClassifier(max_depth=3, random_state=0).fit(frame, y)
    assert ref.is_categorical_.tolist() == [False, False, True, False]  # text only
    expected = export_text(BivariateTreeClassifier(
        max_depth=3, categorical_features=["colour", "size"]).fit(frame, y))
    for spec, X in ((["colour", "size"], frame), ([2, 3], frame), ([2, 3], arrays),
                    ([False, False, True, True], frame)):
        est = BivariateTreeClassifier(max_depth=3, categorical_features=spec).fit(X, y)
        assert est.is_categorical_.tolist() == [False, False, True, True]
        names = list(frame.columns) if X is arrays else None
        assert export_text(est, feature_names=names) == expected
    # pandas category columns, numbers included
    est = BivariateTreeClassifier(max_depth=3).fit(frame.astype({"size": "category"}), y)
    assert est.is_categorical_.tolist() == [False, False, True, True]
    assert list(est.feature_names_in_) == ["a", "b", "colour", "size"]


def test_codes_follow_the_category_dtype_and_only_seen_categories():
    frame = pd.DataFrame({"x": pd.Categorical(["lo", "hi", "lo", "hi"],
                                              categories=["lo", "mid", "hi"])})
    est = BivariateTreeClassifier().fit(frame, [0, 1, 0, 1])
    assert est.categories_[0].tolist() == ["lo", "hi"]
    np.testing.assert_array_equal(est._validate_X_predict(frame)[:, 0], [0, 1, 0, 1])


def test_bad_categorical_specs_are_named():
    frame, y = categorical_fit_data(1)
    with pytest.raises(ValueError, match="'colr' is not a column"):
        BivariateTreeClassifier(categorical_features=["colr"]).fit(frame, y)
    with pytest.raises(ValueError, match="out of range"):
        BivariateTreeClassifier(categorical_features=[7]).fit(frame, y)
    with pytest.raises(ValueError, match="categorical_features must be"):
        BivariateTreeClassifier(categorical_features="auto").fit(frame, y)
    with pytest.raises(ValueError, match="max_categories must be"):
        BivariateTreeClassifier(max_categories=65).fit(frame, y)
    mixed = frame.assign(colour=frame["colour"].astype(object).where(frame.index != 3, 7))
    with pytest.raises(ValueError, match="mixes values of types"):
        BivariateTreeClassifier().fit(mixed, y)


def test_more_than_64_categories_need_max_categories():
    rng = np.random.default_rng(0)
    n = 400
    code = rng.integers(0, 100, n)
    frame = pd.DataFrame({"zip": [f"z{c:03d}" for c in code], "x": rng.normal(size=n)})
    y = (code % 3 == 0).astype(int)
    with pytest.raises(ValueError, match="100 categories.*at most 64.*max_categories"):
        BivariateTreeClassifier().fit(frame, y)
    # a value per row is an identifier: grouping categories would not make it a feature
    ids = frame.assign(zip=[f"r{i}" for i in range(n)])
    with pytest.raises(ValueError, match=r"\('zip'\) has a different value in every row "
                                         r"\(400 of them\): an identifier, not a feature"):
        BivariateTreeClassifier().fit(ids, y)
    est = BivariateTreeClassifier(max_categories=10).fit(frame, y)
    kept = est.categories_[0].tolist()
    assert len(kept) == 9 and est.infrequent_categories_[0].size == 91
    counts = pd.Series(frame["zip"]).value_counts()
    # the nine most frequent keep a code (ties: the earlier category)
    order = sorted(counts.index, key=lambda c: (-counts[c], c))
    assert sorted(kept) == sorted(order[:9])
    codes = est._validate_X_predict(frame)[:, 0]
    assert set(np.unique(codes)) == set(range(10))
    grouped = np.isin(frame["zip"], est.infrequent_categories_[0])
    assert (codes[grouped] == 9).all()
    back = from_json(to_json(est))
    np.testing.assert_array_equal(back.predict(frame), est.predict(frame))
    assert back.infrequent_categories_[0].tolist() == est.infrequent_categories_[0].tolist()
    if est.tree_.is_categorical.any():
        assert export_text(back) == export_text(est)
    from bivtree.export.formatting import resolve_feature_names

    assert resolve_feature_names(est)[0].categories[-1] == INFREQUENT_LABEL


def test_unseen_and_missing_categories_are_named_by_a_search_without_missing_values(
        monkeypatch):
    from bivtree.splitters.hillclimb import HillClimbSplitter
    # a search that declares no support for missing values (hillclimb handles them)
    monkeypatch.setattr(HillClimbSplitter, "supports_missing", False)
    frame, y = categorical_fit_data(2, n=60)
    est = BivariateTreeClassifier(splitter="hillclimb", max_depth=3).fit(frame, y)
    new = frame.head(3).assign(colour=["red", "purple", "blue"])
    with pytest.raises(ValueError, match="'purple', a category not seen at fit"):
        est.predict(new)
    with pytest.raises(ValueError, match="missing value"):
        BivariateTreeClassifier(splitter="hillclimb").fit(frame.assign(
            colour=frame["colour"].where(frame.index != 4, None)), y)


def test_unseen_and_missing_categories_go_to_the_missing_side():
    frame, y = categorical_fit_data(2, n=60)
    holes = frame.assign(colour=frame["colour"].where(frame.index % 7 != 0, None))
    est = BivariateTreeClassifier(max_depth=3).fit(holes, y)
    new = frame.head(3).assign(colour=["purple", None, np.nan])
    # an unseen category and a missing one take the same path
    leaves = est.apply(new.assign(a=0.0, b=0.0))
    assert leaves[0] == leaves[1] == leaves[2]


@pytest.mark.parametrize("model", ["tree", "tao"])
def test_frames_with_other_columns_at_predict_are_named_by_their_columns(model):
    """A frame whose columns are reordered, extra or missing gets scikit-learn's message
    about the names; the categorical columns (found by position) made it say that a
    text column must be declared categorical, which it was."""
    frame, y = categorical_fit_data(2, n=60)
    est = (BivariateTreeClassifier(max_depth=3) if model == "tree"
           else TAOTreeClassifier(alpha=0.01, max_depth=3)).fit(frame, y)
    cases = {"same order as they were in fit": frame[frame.columns[::-1]],
             "unseen at fit time:\n- extra": frame.assign(extra=1.0),
             "missing:\n- colour": frame.drop(columns="colour")}
    for message, other in cases.items():
        for method in (est.predict, est.apply):
            with pytest.raises(ValueError, match=message):
                method(other)
    np.testing.assert_array_equal(est.predict(frame[list(frame.columns)]), est.predict(frame))


def test_sparse_input_gives_the_dense_tree():
    rng = np.random.default_rng(0)
    X = rng.normal(size=(80, 6)) * (rng.uniform(size=(80, 6)) < 0.3)
    y = (X[:, 0] + X[:, 2] > 0).astype(int)
    for fmt in (sp.csr_matrix, sp.csc_matrix, sp.csr_array):
        dense = BivariateTreeClassifier(max_depth=3).fit(X, y)
        sparse = BivariateTreeClassifier(max_depth=3).fit(fmt(X), y)
        assert export_text(sparse) == export_text(dense)
        np.testing.assert_array_equal(sparse.predict(fmt(X)), dense.predict(X))
    reg = BivariateTreeRegressor(max_depth=2).fit(sp.csr_matrix(X), X[:, 1])
    assert reg.predict(sp.csr_matrix(X)).shape == (80,)


def test_sparse_input_too_large_for_memory_says_so(monkeypatch):
    import bivtree._memory

    monkeypatch.setattr(bivtree._memory, "available_memory", lambda: 1000)
    X = sp.random(100, 50, density=0.01, format="csr", random_state=0)
    with pytest.raises(MemoryError, match=r"shape \(100, 50\).*GiB.*select fewer features"):
        BivariateTreeClassifier().fit(X, np.arange(100) % 2)


@pytest.mark.parametrize("value", [(0, "a"), [0], {"k": 1}, {1, 2}, np.array([1.0, 2.0])],
                         ids=["tuple", "list", "dict", "set", "array"])
def test_a_category_that_is_not_one_scalar_is_refused_by_name(value):
    """A tuple would make ``categories_`` 2-D (and predict fail on the training rows); a
    list or a dict cannot be hashed: each is a ValueError at fit naming the column."""
    column = pd.Series([value if i % 3 == 0 else "plain" for i in range(30)], dtype=object)
    X = pd.DataFrame({"u": np.linspace(-1.0, 1.0, 30), "d": column})
    y = np.array([0, 1] * 15)
    with pytest.raises(ValueError, match=r"categorical column 1 \('d'\) holds the "):
        BivariateTreeClassifier(max_depth=2).fit(X, y)


def test_an_unhashable_value_at_predict_is_an_unseen_category():
    X = pd.DataFrame({"u": np.linspace(-1.0, 1.0, 30),
                      "d": pd.Series(["p", "q", "r"] * 10, dtype=object)})
    y = (X["d"] == "p").astype(int)
    est = BivariateTreeClassifier(max_depth=2).fit(X, y)
    new = X.head(3).copy()
    new["d"] = pd.Series([["p"], "p", None], dtype=object)
    missing = new.copy()
    missing["d"] = pd.Series([None, "p", None], dtype=object)
    np.testing.assert_array_equal(est.predict(new), est.predict(missing))


def test_an_empty_text_is_a_missing_value_not_a_category():
    """As an empty CSV cell: "" and None are the same missing value, at fit and predict."""
    X = pd.DataFrame({"u": np.linspace(-1.0, 1.0, 30),
                      "d": pd.Series(["p", "", "q"] * 10, dtype=object)})
    y = (X["d"] == "").astype(int)
    est = BivariateTreeClassifier(max_depth=2).fit(X, y)
    assert list(est.categories_[1]) == ["p", "q"]
    as_none = X.assign(d=X["d"].replace({"": None}))
    np.testing.assert_array_equal(est.predict(X), est.predict(as_none))
    assert est.score(X, y) == 1.0
    same = BivariateTreeClassifier(max_depth=2).fit(as_none, y)
    assert same.tree_.to_json() == est.tree_.to_json()


def test_column_names_of_mixed_types_are_a_value_error():
    """scikit-learn raises a TypeError for them; bivtree's bad input is a ValueError."""
    X = pd.DataFrame({0: np.linspace(-1.0, 1.0, 20), "v": np.arange(20.0)})
    y = np.array([0, 1] * 10)
    with pytest.raises(ValueError, match=r"column names of mixed types \(int, str\)"):
        BivariateTreeClassifier(max_depth=2).fit(X, y)
    est = BivariateTreeClassifier(max_depth=2).fit(X.set_axis(["a", "v"], axis=1), y)
    with pytest.raises(ValueError, match=r"column names of mixed types"):
        est.predict(X)


def test_mixed_dtype_frames_keep_their_names():
    frame, y = categorical_fit_data(5, n=60)
    frame = frame.assign(flag=frame["a"] > 0, count=np.arange(60, dtype=np.int32))
    est = BivariateTreeClassifier(max_depth=3).fit(frame, y)
    assert list(est.feature_names_in_) == list(frame.columns)
    assert est.n_features_in_ == 6
    assert est.is_categorical_.tolist() == [False, False, True, False, False, False]
    np.testing.assert_array_equal(est.predict(frame), est.predict(frame.copy()))


def test_models_without_categories_write_what_they_wrote():
    # a fit without categorical columns writes neither the new params nor 'categories'
    X = np.random.default_rng(0).normal(size=(30, 2))
    est = BivariateTreeClassifier(max_depth=2).fit(X, X[:, 0] > 0)
    model = json.loads(to_json(est))
    assert "categories" not in model
    assert "categorical_features" not in model["params"]
    assert "max_categories" not in model["params"]
    assert from_json(to_json(est)).categorical_features == "from_dtype"
    named = BivariateTreeClassifier(max_depth=2, categorical_features=[1], max_categories=5)
    named.fit(X.round(), X[:, 0] > 0)
    model = json.loads(to_json(named))
    assert model["params"]["categorical_features"] == [1]
    assert model["params"]["max_categories"] == 5
    assert model["categories"][0] is None and model["categories"][1]["values"]


# ================================================================ TAO
def test_tao_replaces_a_linear_node_by_the_category_set_of_its_reduced_problem():
    from bivtree import Tree

    rng = np.random.default_rng(0)
    codes = np.concatenate([np.arange(8), rng.integers(0, 8, 112)]).astype(float)
    y = np.isin(codes, [1, 4, 6]).astype(int)
    X = np.column_stack([codes, y + rng.normal(scale=0.6, size=codes.size)])
    # a one-split start on the noisy numeric column: its leaves predict different classes
    start = Tree([1, -1, -1], [2, -1, -1], [[1, -1], [-1, -1], [-1, -1]],
                 [[1.0, 0.0], [0.0, 0.0], [0.0, 0.0]], [0.5, -2.0, -2.0], [0.5, 0.5, 0.5],
                 [120, 60, 60], [120.0, 60.0, 60.0], [[60, 60], [30, 30], [30, 30]], 2)
    tao = TAOTreeClassifier(init=start, categorical_features=[0], alpha=1e-4).fit(X, y)
    tree = tao.tree_
    assert tree.node_count == 3 and tree.is_categorical[0]
    assert set(tao.categories_[0][tree.node_categories(0)].tolist()) in ({1.0, 4.0, 6.0},
                                                                          {0.0, 2.0, 3.0, 5.0,
                                                                           7.0})
    assert tao.score(X, y) == 1.0
    # without categorical columns TAO keeps linear rules only
    plain = TAOTreeClassifier(init=start, categorical_features=None, alpha=1e-4).fit(X, y)
    assert not plain.tree_.is_categorical.any()


def test_plots_label_category_bars_with_values():
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    from bivtree import plot_tree

    frame, y = categorical_fit_data(0, n=200)
    est = BivariateTreeClassifier(max_depth=2, splitter_options={"category_pairs": False}).fit(
        frame, y)
    ax = plot_tree(est, frame, y)
    labels = {t.get_text() for a in ax.child_axes for t in a.get_xticklabels()}
    assert {"black", "blue", "green", "red", "white"} <= labels, labels
    plt.close(ax.figure)


def test_sql_and_python_exports_take_category_values():
    import sqlite3

    from bivtree import export_python, export_sql

    frame, y = categorical_fit_data(4, n=150)
    frame["size"] = frame["size"].astype(str)
    # categorical nodes only (the default search would pair indicators with numbers)
    est = BivariateTreeClassifier(max_depth=3, categorical_features=["colour", "size"],
                                  max_categories=4,
                                  splitter_options={"category_pairs": False}).fit(frame, y)
    assert est.tree_.is_categorical.any() and est.infrequent_categories_[2] is not None
    assert not est.tree_.has_indicator_slots.any()
    expected = est.apply(frame)
    namespace = {}
    exec(export_python(est, output="leaf", row_type="mapping"), namespace)  # noqa: S102
    rows = frame.to_dict("records")
    assert [namespace["predict_row"](r) for r in rows] == expected.tolist()
    # an unseen value goes where NaN goes in the exported function: it is a number there
    assert namespace["predict_row"]({**rows[0], "colour": "purple"}) >= 0
    db = sqlite3.connect(":memory:")
    frame.to_sql("data", db, index=False)
    got = [r[-1] for r in db.execute(export_sql(est, output="leaf"))]
    assert got == expected.tolist()


def test_sql_of_a_set_without_known_values_writes_no_empty_list():
    """A hand-edited set holding only codes that no fitted value has: standard SQL has no
    ``IN ()``, so the test reads ``1 = 0`` (no value is in it) and routes as apply."""
    import sqlite3

    from bivtree import export_sql

    frame, y = categorical_fit_data(4, n=150)
    est = BivariateTreeClassifier(max_depth=2, categorical_features=["colour", "size"],
                                  splitter_options={"category_pairs": False}).fit(frame, y)
    tree = est.tree_
    node = int(np.flatnonzero(tree.is_categorical)[0])
    f = int(tree.features[node, 0])
    n_codes = len(est.categories_[f])
    tree.category_mask[node, 0] = np.uint64(1) << np.uint64(n_codes)  # a code with no value
    for missing_left in (False, True):
        tree.missing_go_left[node] = missing_left
        sql = export_sql(est, output="leaf")
        assert "IN ()" not in sql
        db = sqlite3.connect(":memory:")
        rows = pd.concat([frame, frame.head(5).assign(**{frame.columns[f]: None})],
                         ignore_index=True)
        rows.to_sql("data", db, index=False)
        assert [r[-1] for r in db.execute(sql)] == est.apply(rows).tolist()


def test_onnx_export_takes_text_categories_by_column_only():
    pytest.importorskip("onnx")
    from bivtree import export_onnx

    frame, y = categorical_fit_data(4, n=60)
    est = BivariateTreeClassifier(max_depth=2).fit(frame, y)
    with pytest.raises(ValueError, match=r"categorical column\(s\) \['colour'\].*"
                                         r"inputs='columns'.*export_python"):
        export_onnx(est, inputs="matrix")
    inputs = export_onnx(est).graph.input  # by default, one input per column
    assert [i.name for i in inputs] == [str(c) for c in frame.columns]


def test_an_infinite_category_value_is_refused_by_name():
    """Infinity in a categorical column is an error at fit, as in a numeric one (a model
    holding it as a category could not be saved)."""
    X = pd.DataFrame({"normal": pd.Series([np.inf] + [0.0] * 15, dtype=object)})
    y = np.array([0, 1] * 8)
    with pytest.raises(ValueError, match=r"categorical column 0 \('normal'\) holds the "
                                         r"infinite value inf"):
        BivariateTreeClassifier().fit(X, y)


def test_sql_and_python_exports_take_category_values_in_indicator_slots():
    """The twin of the test above for the default search, whose linear rules read a category
    set's indicator: category values (grouped ones included) map to codes, and a value unseen
    at fit, like a missing one, makes the node's value missing in both exports."""
    import sqlite3

    from bivtree import export_python, export_sql

    frame, y = categorical_fit_data(4, n=150)
    frame["size"] = frame["size"].astype(str)
    est = BivariateTreeClassifier(max_depth=3, categorical_features=["colour", "size"],
                                  max_categories=4).fit(frame, y)
    tree = est.tree_
    assert tree.has_indicator_slots.any() and est.infrequent_categories_[2] is not None
    on_categories = tree.features[tree.has_indicator_slots]
    assert np.isin(on_categories, [2, 3]).any()
    head = frame.head(10)
    rows = pd.concat([frame, head.assign(colour="purple"), head.assign(colour=None),
                      head.assign(size="7"), head.assign(a=np.nan)], ignore_index=True)
    # the same tree with the other missing side at every node, so that both sides are seen
    flipped = copy.deepcopy(est)
    flipped.tree_.missing_go_left = ~tree.missing_go_left & ~tree.is_leaf
    db = sqlite3.connect(":memory:")
    rows.to_sql("data", db, index=False)
    for model in (est, flipped):
        expected = model.apply(rows)
        # the unseen and missing values reach other leaves than the known ones
        assert np.any(expected[150:170] != expected[:10].tolist() * 2)
        namespace = {}
        exec(export_python(model, output="leaf", row_type="mapping"), namespace)  # noqa: S102
        assert [namespace["predict_row"](r) for r in rows.to_dict("records")] == (
            expected.tolist())
        got = [r[-1] for r in db.execute(export_sql(model, output="leaf"))]
        assert got == expected.tolist()


def test_indicator_views_name_category_values():
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    from bivtree import export_html, plot_split, plot_tree
    from bivtree.export.explanation import explain

    frame, y = categorical_fit_data(0, n=200)
    est = BivariateTreeClassifier(max_depth=2).fit(frame, y)
    tree = est.tree_
    assert tree.has_indicator_slots[0] and tree.features[0].tolist() == [0, 2]
    codes = mask_to_categories(tree.category_mask[0, 1])
    name = ", ".join(est.categories_[2][c] for c in codes)
    # the plots' rows, the page's plot and the explained step all name the set by value
    ax = plot_tree(est, frame, y)
    root = next(a for a in ax.child_axes if a.get_label() == "node 0")
    assert [t.get_text() for t in root.get_yticklabels()] == ["not", f"colour in {{{name}}}"]
    single = plot_split(est, 0, frame, y)
    assert f"[colour in {{{name}}}]" in single.get_title()
    plt.close("all")
    page = export_html(est, frame, y)
    assert f'"y_ticks":["not","colour in {{{name}}}"]' in page
    step = explain(est, frame.iloc[[0]]).steps[0]
    assert step.indicator_categories[1] == tuple(codes)
    assert f"[colour in {{{name}}}]" in step.rule


@pytest.mark.parametrize("selector", ["tao-cv", "cost-complexity-cv"])
def test_views_and_exports_of_a_selector_are_those_of_its_chosen_tree(selector):
    """A model selector stands for its chosen tree in every view and export: the category
    values (the chosen tree's), the input checks and the plots (they failed, or printed
    codes in place of the values, or compared codes with text in SQL)."""
    import sqlite3

    import matplotlib

    matplotlib.use("Agg")
    from bivtree import (
        TAOTreeClassifierCV,
        explain,
        export_graphviz,
        export_html,
        export_python,
        export_rules,
        export_sql,
        export_text,
        plot_split,
        plot_tree,
        save_model,
    )
    from bivtree.export.explanation import contributions
    from bivtree.model_selection import CostComplexityCV

    frame, y = categorical_fit_data(4, n=200)
    if selector == "tao-cv":
        model = TAOTreeClassifierCV(feature_costs=[1.0], inits=["bivariate"], n_lambdas=3,
                                    max_depth=3, cv=2, random_state=0).fit(frame, y)
    else:
        model = CostComplexityCV(BivariateTreeClassifier(
            max_depth=3, random_state=0, splitter_options={"category_pairs": False}),
            cv=2).fit(frame, y)
    chosen = model.best_estimator_
    tree = chosen.tree_
    # the chosen tree tests the text column, so its values must show
    assert (tree.features[tree.children_left != -1] == 2).any()
    text = export_text(model)
    assert text == export_text(chosen)
    assert re.search(r"colour (not )?in \{(black|blue|green|red|white)", text)
    assert export_rules(model) == export_rules(chosen)
    assert export_graphviz(model) == export_graphviz(chosen)
    assert export_python(model) == export_python(chosen)
    assert export_sql(model, output="leaf") == export_sql(chosen, output="leaf")
    db = sqlite3.connect(":memory:")
    frame.to_sql("data", db, index=False)
    assert [r[-1] for r in db.execute(export_sql(model, output="leaf"))] == \
        chosen.apply(frame).tolist()
    assert export_html(model, frame, y) == export_html(chosen, frame, y)
    assert str(explain(model, frame.iloc[0])) == str(explain(chosen, frame.iloc[0]))
    np.testing.assert_array_equal(contributions(model, frame), contributions(chosen, frame))
    assert plot_tree(model, frame, y) is not None
    assert plot_split(model, 0, frame, y) is not None
    pytest.importorskip("onnx")
    from bivtree import export_onnx

    assert export_onnx(model).SerializeToString() == export_onnx(chosen).SerializeToString()
    with pytest.raises(ValueError, match="save its best_estimator_"):
        save_model(model, "unused.json")
