"""Missing values (NaN in X) in TAO, its model selection, and the MUST ("lda") splitter.

The contract tests (tests/test_splitter_contract.py) cover routing as scored, 1 vs 2
threads and the JSON round trip of both with missing values; here: TAO's objective is
the loss of the tree it returns, walked in plain Python with the missing sides (so the
kernels' routing through the state is the tree's), it never increases over the
iterations, the selectors take NaN, and the MUST splitter is exact in the threshold and
the missing side and never worse than the univariate split when it compares with it.
"""

import math

import numpy as np
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from bivtree import (
    BivariateTreeClassifier,
    TAOTreeClassifier,
    TAOTreeClassifierCV,
    TAOTreeRegressor,
    TAOTreeRegressorCV,
)
from bivtree._kernels.scan import ALL_KNOWN_LEFT
from bivtree.splitters.lda import GAIN_BALANCED_RATIO, GAIN_INFORMATION, best_threshold
from bivtree.tao.optimizer import LEAF

HYPOTHESIS = {"deadline": None, "derandomize": True,
              "suppress_health_check": [HealthCheck.too_slow]}


def _data(seed, n, d, regression, missing):
    rng = np.random.default_rng(seed)
    X = rng.normal(size=(n, d))
    X[:, -1] = rng.integers(0, 3, n)  # ties
    score = X[:, 0] - 0.7 * X[:, 1 % d] + 0.3 * rng.normal(size=n)
    y = score if regression else (score > 0).astype(int) + (score > 1)
    X[rng.uniform(size=X.shape) < missing] = np.nan
    return X, y


def _state_leaf(state, x):
    """Leaf of the TAO state reached by ``x``, every test written out in plain Python."""
    node = 0
    while state.kind[node] != LEAF:
        f, w = state.features[node], state.weights[node]
        used = [int(k) for k in f if k >= 0]
        mask = int(state.category_mask[node, 0])
        if any(math.isnan(x[k]) for k in used):
            left = bool(state.missing_left[node])
        elif mask:
            code = x[f[0]]
            left = code == math.floor(code) and 0 <= code <= 63 and (mask >> int(code)) & 1
        else:
            s = 0.0
            for k, c in zip(f.tolist(), w.tolist()):
                if k >= 0:
                    s += c * x[k]
            left = s <= state.threshold[node]
        node = state.children_left[node] if left else state.children_right[node]
    return node


def _check_scored_as_routed(est, X, y, w):
    """The last objective TAO scored is the plain-Python loss of its state, and the tree
    it returns partitions the training samples into the state's leaves."""
    state = est._tao_state
    regression = est.tree_.value.shape[1] == 1 and not hasattr(est, "classes_")
    target = y if regression else np.searchsorted(est.classes_, y)
    leaves = np.array([_state_leaf(state, x) for x in X])
    if regression:
        loss = np.sum(w * (target - state.leaf_mean[leaves]) ** 2)
    else:
        loss = np.sum(w * (target != state.leaf_class[leaves]))
    penalty = state.penalty(est.feature_cost)
    objective = (loss + est.alpha * w.sum() * penalty) / w.sum()
    scale = 1.0 + (float(np.sum(w * target ** 2)) / w.sum() if regression else 0.0)
    assert abs(objective - est.objective_path_[-1]) <= 1e-9 * scale
    # the returned tree: the same partition of the training samples into leaves
    tree_leaves = est.apply(X)
    positive = w > 0
    pairs = set(zip(leaves[positive].tolist(), tree_leaves[positive].tolist()))
    assert len(pairs) == len({a for a, _ in pairs}) == len({b for _, b in pairs})
    # and it keeps the sides where training samples were missing
    assert est.tree_.missing_learned == bool(np.isnan(X).any())


@pytest.mark.parametrize("regression", [False, True])
@pytest.mark.parametrize("exact", [0, 1000])
@settings(max_examples=12, **HYPOTHESIS)
@given(seed=st.integers(0, 2 ** 32 - 1), n=st.integers(8, 60), d=st.integers(2, 4),
       missing=st.sampled_from([0.05, 0.2, 0.5]), weighted=st.booleans(),
       alpha=st.sampled_from([0.0, 0.01]))
def test_tao_scores_the_tree_it_returns_with_missing_values(regression, exact, seed, n, d,
                                                             missing, weighted, alpha):
    """Routing as scored: TAO's objective, computed by the kernels through the state's
    missing sides, is the plain-Python loss of the state, whose partition the returned
    tree keeps (directions searched, or the exact sweep on the complete rows)."""
    X, y = _data(seed, n, d, regression, missing)
    w = (np.random.default_rng(seed).integers(0, 3, n).astype(float) if weighted
         else np.ones(n))
    if w.sum() == 0:
        w[0] = 1.0
    if not regression and np.unique(y[w > 0]).size < 2:
        y[np.flatnonzero(w > 0)[0]] = 1 - y[np.flatnonzero(w > 0)[0]] % 2
    cls = TAOTreeRegressor if regression else TAOTreeClassifier
    est = cls(max_depth=3, alpha=alpha, exact_max_samples=exact, max_iter=4).fit(
        X, y, sample_weight=w)
    _check_scored_as_routed(est, X, y, w)
    # the objective never increases over the iterations (monotone descent)
    path = est.objective_path_
    assert np.all(path[1:] <= path[:-1] * (1 + 1e-12) + 1e-12), path


@settings(max_examples=10, **HYPOTHESIS)
@given(seed=st.integers(0, 2 ** 32 - 1), n=st.integers(10, 80),
       missing=st.sampled_from([0.1, 0.3]))
def test_tao_with_categories_and_missing_values_scores_the_tree_it_returns(seed, n, missing):
    """The same with a categorical column, missing values in it too: category-set rules
    carry their learned missing side."""
    rng = np.random.default_rng(seed)
    X = np.column_stack([rng.normal(size=n), rng.integers(0, 4, n).astype(float)])
    y = ((X[:, 0] > 0) ^ np.isin(X[:, 1], [1, 2])).astype(int)
    if np.unique(y).size < 2:
        y[0] = 1 - y[0]
    X[rng.uniform(size=X.shape) < missing] = np.nan
    est = TAOTreeClassifier(max_depth=3, categorical_features=[1], max_iter=4).fit(X, y)
    _check_scored_as_routed(est, X, y, np.ones(n))
    path = est.objective_path_
    assert np.all(path[1:] <= path[:-1] * (1 + 1e-12) + 1e-12), path


def test_tao_learns_a_missing_side_that_carries_the_class():
    """Where a value being missing says the class, the tree sends it to that class."""
    rng = np.random.default_rng(0)
    X = rng.normal(size=(300, 3))
    y = (X[:, 0] > 0.3).astype(int)
    gone = rng.uniform(size=300) < 0.25
    X[gone, 0] = np.nan
    y[gone] = 1
    est = TAOTreeClassifier(max_depth=2).fit(X, y)
    assert est.score(X, y) == 1.0
    assert est.objective_path_[-1] <= est.objective_path_[0]
    X_new = np.array([[np.nan, 0.0, 0.0], [-2.0, 0.0, 0.0]])
    np.testing.assert_array_equal(est.predict(X_new), [1, 0])


def test_tao_without_missing_values_stores_the_default_sides():
    X, y = _data(1, 80, 3, False, 0.0)
    tree = TAOTreeClassifier(max_depth=3).fit(X, y).tree_
    assert not tree.missing_learned and tree.to_dict()["version"] == 2


def test_tao_warm_start_and_a_given_initial_tree_keep_the_missing_sides():
    X, y = _data(2, 120, 3, False, 0.2)
    greedy = BivariateTreeClassifier(max_depth=3, random_state=0).fit(X, y)
    est = TAOTreeClassifier(init=greedy.tree_, max_depth=3).fit(X, y)
    _check_scored_as_routed(est, X, y, np.ones(len(y)))
    warm = TAOTreeClassifier(max_depth=3, warm_start=True).fit(X, y)
    warm.set_params(alpha=0.02)
    warm.fit(X, y)
    _check_scored_as_routed(warm, X, y, np.ones(len(y)))


@pytest.mark.parametrize("cls", [TAOTreeClassifierCV, TAOTreeRegressorCV])
def test_tao_selectors_take_missing_values(cls):
    regression = cls is TAOTreeRegressorCV
    X, y = _data(3, 90, 3, regression, 0.15)
    assert cls().__sklearn_tags__().input_tags.allow_nan
    est = cls(cv=2, feature_costs=(1.0,), inits=("univariate",), max_depth=2).fit(X, y)
    pred = est.predict(X)
    assert pred.shape == (90,) and np.all(np.isfinite(pred.astype(float)))
    assert est.best_estimator_.tree_.missing_learned


# ==================================================================== MUST ("lda")
def _brute_force_gain(values, labels, weights, n_classes, gain):
    """Best score of the paper's gains over every cut of the known values times the side of
    the missing ones, in plain numpy (information gain in bits, its balanced ratio)."""
    def entropy(counts):
        total = counts.sum()
        p = counts[counts > 0] / total
        return float(-(p * np.log2(p)).sum())

    known = ~np.isnan(values)
    total = np.bincount(labels, weights=weights, minlength=n_classes)
    w_total = total.sum()
    best = -np.inf
    for t in np.unique(values[known]):
        for missing_left in (False, True):
            left = (values <= t) | (~known & missing_left)
            wl = weights[left].sum()
            wr = w_total - wl
            if wl <= 0 or wr <= 0:
                continue
            cl = np.bincount(labels[left], weights=weights[left], minlength=n_classes)
            cr = total - cl
            ig = entropy(total) - (wl * entropy(cl) + wr * entropy(cr)) / w_total
            if gain == GAIN_BALANCED_RATIO:
                pl, pr = wl / w_total, wr / w_total
                ig /= 1.0 + float(-(pl * np.log2(pl) + pr * np.log2(pr)))
            best = max(best, ig)
    return best


@pytest.mark.parametrize("gain", [GAIN_INFORMATION, GAIN_BALANCED_RATIO])
@settings(max_examples=40, **HYPOTHESIS)
@given(seed=st.integers(0, 2 ** 32 - 1), n=st.integers(2, 25),
       missing=st.sampled_from([0.1, 0.3, 0.6]))
def test_must_threshold_with_missing_values_is_the_brute_force_best(gain, seed, n, missing):
    """The paper's gains with missing values: the best cut times the missing side, exactly;
    the returned threshold and side make a partition of that score."""
    rng = np.random.default_rng(seed)
    values = rng.integers(0, 5, n).astype(float)
    values[rng.uniform(size=n) < missing] = np.nan
    labels = rng.integers(0, 3, n).astype(np.int64)
    weights = rng.integers(1, 4, n).astype(float)
    counts = np.bincount(labels, weights=weights, minlength=3).astype(float)
    score, threshold, missing_left = best_threshold(
        values, labels, np.zeros(n), weights, counts, float(weights.sum()), 0.0, 0.0, gain,
        0, 1, 0.0)
    want = _brute_force_gain(values, labels, weights, 3, gain)
    if not np.isfinite(want):
        assert score == -np.inf
        return
    assert math.isclose(score, want, rel_tol=1e-9, abs_tol=1e-12)
    known = ~np.isnan(values)
    left = (values <= threshold) | (~known & missing_left)
    assert 0 < left.sum() < n
    assert threshold == ALL_KNOWN_LEFT or threshold < np.nanmax(values)
    assert _brute_force_gain(np.where(left, 0.0, 1.0), labels, weights, 3, gain) >= score - 1e-9


def _root_impurity(est):
    tree = est.tree_
    lc, rc = tree.children_left[0], tree.children_right[0]
    if lc < 0:
        return tree.weighted_n_node_samples[0] * tree.impurity[0]
    return (tree.weighted_n_node_samples[lc] * tree.impurity[lc]
            + tree.weighted_n_node_samples[rc] * tree.impurity[rc])


@pytest.mark.parametrize("n_split_features", [1, 2, None])
@settings(max_examples=15, **HYPOTHESIS)
@given(seed=st.integers(0, 2 ** 32 - 1), n=st.integers(10, 60), d=st.integers(2, 4),
       missing=st.sampled_from([0.1, 0.3]))
def test_must_with_missing_values_is_never_worse_than_the_univariate_split(
        n_split_features, seed, n, d, missing):
    """With ``compare_univariate`` (MUST-1: its exact univariate search) the MUST split of a
    node with missing values is at least as good as the exact univariate split under the
    tree's criterion (the missing side of both searched the same way), also where too few
    rows are complete for a discriminant."""
    X, y = _data(seed, n, d, False, missing)
    if np.unique(y).size < 2:
        return
    opts = {"compare_univariate": True, "n_split_features": n_split_features,
            "univariate": "exact"}
    must = BivariateTreeClassifier(splitter="lda", max_depth=1, splitter_options=opts).fit(X, y)
    uni = BivariateTreeClassifier(splitter="univariate", max_depth=1).fit(X, y)
    assert _root_impurity(must) <= _root_impurity(uni) * (1 + 1e-9) + 1e-12


def test_must_uses_the_missing_side_and_predicts_with_it():
    """A missing value that says the class: the MUST tree learns its side."""
    rng = np.random.default_rng(5)
    X = rng.normal(size=(300, 3))
    y = (X[:, 0] + X[:, 1] > 0).astype(int)
    gone = rng.uniform(size=300) < 0.2
    X[gone, 1] = np.nan
    y[gone] = 1
    est = BivariateTreeClassifier(splitter="lda", max_depth=3).fit(X, y)
    assert est.tree_.missing_learned
    assert est.score(X, y) > 0.95
    assert est.predict(np.array([[-5.0, np.nan, 0.0]]))[0] == 1


def test_a_tao_state_pickled_without_missing_sides_loads_with_none_read():
    """A fitted TAO estimator pickled before states held missing sides still warm-starts."""
    import pickle

    X, y = _data(4, 60, 3, False, 0.0)
    est = TAOTreeClassifier(max_depth=2, warm_start=True).fit(X, y)
    del est._tao_state.missing_left
    copy = pickle.loads(pickle.dumps(est))
    np.testing.assert_array_equal(copy._tao_state.missing_left, False)
    ref = TAOTreeClassifier(max_depth=2, warm_start=True).fit(X, y)
    assert copy.fit(X, y).tree_ == ref.fit(X, y).tree_


def test_the_robustness_page_says_what_every_search_does_with_missing_values():
    """docs/robustness.md once listed "lda" and TAO as refusing NaN while both take it:
    the page may name no search as refusing missing values that accepts them."""
    import pathlib
    import re

    from bivtree.splitters import SPLITTERS

    page = pathlib.Path(__file__).parents[1] / "docs" / "robustness.md"
    text = " ".join(page.read_text(encoding="utf-8").split()).replace("`", "")
    rng = np.random.default_rng(0)
    X = rng.normal(size=(40, 3))
    y = (X[:, 0] > 0).astype(int)
    X[::5, 1] = np.nan
    accepting = [name for name, cls in SPLITTERS.items() if cls.supports_missing]
    BivariateTreeClassifier(splitter="lda", max_depth=2).fit(X, y)
    TAOTreeClassifier(max_depth=2).fit(X, y)
    assert "lda" in accepting
    refusal = re.search(r"do not (handle|accept) missing values \(([^)]*)\)", text)
    named = set() if refusal is None else set(re.findall(r"[\w]+", refusal[2]))
    assert not named & (set(accepting) | {"TAO"}), refusal[0]
