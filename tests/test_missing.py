"""Missing values (NaN in X): scikit-learn's trees, the tree format, the input checks.

The searches' exactness with missing values is checked against the brute force
in ``test_splitters.py`` and the routing of every splitter in
``test_splitter_contract.py``; this file holds what is specific to missing
values: ``splitter="univariate"`` builds scikit-learn's tree (structure,
thresholds and missing sides), the default side of a node that saw no missing
value, the tree format versions, the refusals.
"""

import json
import math

import numpy as np
import pytest
from sklearn.tree import DecisionTreeClassifier, DecisionTreeRegressor

import naive
from bivtree import BivariateTreeClassifier, BivariateTreeRegressor, Tree, from_json, to_json
from bivtree._kernels.scan import ALL_KNOWN_LEFT


# =========================================================================== data
def missing_data(seed, n, d, task, fraction):
    """float32-representable features on a 1e-3 grid with a ``fraction`` of them missing."""
    rng = np.random.default_rng(seed)
    X = (rng.integers(0, 20000, size=(n, d)) / 1000.0 - 10.0).astype(np.float32)
    X = X.astype(np.float64)
    score = np.sin(X[:, 0]) + 0.3 * X[:, 1] - 0.05 * X[:, 2] * X[:, -1]
    score = score + 0.4 * rng.normal(size=n)
    X[rng.uniform(size=X.shape) < fraction] = np.nan
    # a missing value that carries information: one column's NaN marks a class
    if task == "regression":
        return X, score
    y = np.digitize(score, np.quantile(score, [1 / 3, 2 / 3]))
    X[(y == 2) & (rng.uniform(size=n) < 0.3), 1] = np.nan
    return X, y


def tie_free_with_missing(est, X, y, w, rel_margin=1e-9):
    """Whether every decision node of scikit-learn's tree had one best split, missing
    sides included: every candidate (feature, cut of the known values, side of the
    missing ones) within ``rel_margin`` of the best is in the same feature with the same
    children statistics (so both libraries keep the same split)."""
    criterion = "entropy" if est.criterion == "log_loss" else est.criterion
    regression = criterion == "squared_error"
    labels, k = (y.astype(float), 1) if regression else (y, int(y.max()) + 1)
    paths = est.decision_path(X.astype(np.float32)).tocsc()
    tree = est.tree_
    for node in np.flatnonzero(tree.children_left != -1):
        rows = paths.indices[paths.indptr[node]:paths.indptr[node + 1]]
        cands = []
        for f in range(X.shape[1]):
            xs = X[rows, f]
            for g, lo, _ in naive.split_candidates_on_values(
                    xs, labels[rows], w[rows], criterion, k, est.min_samples_leaf):
                cands.append((g, f, lo))
        if not cands:
            return False
        g_best = min(c[0] for c in cands)
        near = [c for c in cands if abs(c[0] - g_best) <= rel_margin * max(abs(g_best), 1e-300)]
        if len({c[1] for c in near}) > 1:
            return False
        f = near[0][1]
        xs = X[rows, f]
        # one partition (the same cut, or its mirror with the missing side swapped)
        stats = set()
        for g, _, lo in near:
            for missing_left in (False, True):
                left = (xs <= lo) | (np.isnan(xs) & missing_left)
                if math.isclose(naive.weighted_child_impurity(left, labels[rows], w[rows],
                                                              criterion, k), g):
                    stats.add(naive._child_stats(left, labels[rows], w[rows], regression, k))
        if len(stats) > 1:
            return False
    return True


def _pair(task, criterion, **params):
    if task == "classification":
        return (BivariateTreeClassifier(splitter="univariate", criterion=criterion, **params),
                DecisionTreeClassifier(criterion=criterion, random_state=0, **params))
    return (BivariateTreeRegressor(splitter="univariate", criterion=criterion, **params),
            DecisionTreeRegressor(criterion=criterion, random_state=0, **params))


def _saw_missing(tree, X):
    """Per node: whether a training sample reaching it misses the node's feature."""
    paths = tree.decision_path(X).tocsc()
    out = np.zeros(tree.node_count, dtype=bool)
    for node in np.flatnonzero(tree.children_left != -1):
        rows = paths.indices[paths.indptr[node]:paths.indptr[node + 1]]
        out[node] = np.isnan(X[rows, tree.features[node, 0]]).any()
    return out


# ================================================================= scikit-learn
@pytest.mark.parametrize("task, criterion", [("classification", "gini"),
                                             ("classification", "entropy"),
                                             ("regression", "squared_error")])
@pytest.mark.parametrize("weighted", [False, True])
@pytest.mark.parametrize("fraction", [0.1, 0.3])
def test_univariate_with_missing_values_is_sklearn_tree(task, criterion, weighted, fraction):
    """With NaN in X, ``splitter="univariate"`` grows scikit-learn's tree: the same
    structure, features, thresholds (scikit-learn's ``inf`` for "every known value left,
    every missing one right" is stored as the largest double) and missing sides, and the
    same predictions on new data with missing values."""
    compared = 0
    for seed in range(20):
        X, y = missing_data(seed, 90, 4, task, fraction)
        rng = np.random.default_rng(500 + seed)
        w = rng.uniform(0.5, 2.0, len(y)) if weighted else np.ones(len(y))
        ours, theirs = _pair(task, criterion, max_depth=4, min_samples_leaf=5)
        theirs.fit(X, y, sample_weight=w)
        if not tie_free_with_missing(theirs, X, y, w):
            continue
        ours.fit(X, y, sample_weight=w)
        a, b = ours.tree_, theirs.tree_
        assert a.node_count == b.node_count
        np.testing.assert_array_equal(a.children_left, b.children_left)
        np.testing.assert_array_equal(a.children_right, b.children_right)
        internal = b.children_left != -1
        np.testing.assert_array_equal(a.features[internal, 0], b.feature[internal])
        theirs_t = np.where(np.isinf(b.threshold), ALL_KNOWN_LEFT, b.threshold)
        np.testing.assert_allclose(a.threshold[internal], theirs_t[internal], rtol=1e-6)
        np.testing.assert_array_equal(a.n_node_samples, b.n_node_samples)
        # scikit-learn sends missing values to the child with more samples where a node
        # saw none, bivtree to the one with more weight: equal rules with unit weights
        sides = internal if not weighted else internal & _saw_missing(a, X)
        np.testing.assert_array_equal(a.missing_go_left[sides],
                                      b.missing_go_to_left[sides].astype(bool))
        X_new, _ = missing_data(seed + 100, 300, 4, task, 0.25)
        if task == "classification":
            np.testing.assert_allclose(ours.predict_proba(X_new), theirs.predict_proba(X_new),
                                       rtol=1e-9, atol=1e-12)
        elif not weighted:
            np.testing.assert_allclose(ours.predict(X_new), theirs.predict(X_new), rtol=1e-9)
        compared += 1
        if compared == 2:
            break
    assert compared >= 1, "no tie-free data set found: the comparison never ran"


def test_every_known_value_left_split_matches_sklearn():
    """A feature whose only information is whether it is missing: scikit-learn's split
    "every known value left, every missing one right" (threshold ``inf``)."""
    rng = np.random.default_rng(0)
    n = 60
    X = rng.uniform(0, 1, (n, 2)).astype(np.float32).astype(float)
    y = rng.integers(0, 2, n)
    X[y == 1, 0] = np.nan
    ours = BivariateTreeClassifier(splitter="univariate", max_depth=1).fit(X, y)
    theirs = DecisionTreeClassifier(max_depth=1, random_state=0).fit(X, y)
    assert theirs.tree_.threshold[0] == np.inf
    assert ours.tree_.features[0, 0] == 0 and ours.tree_.threshold[0] == ALL_KNOWN_LEFT
    assert not ours.tree_.missing_go_left[0]
    assert ours.score(X, y) == 1.0
    # a value larger than any seen still counts as known, as in scikit-learn
    X_new = np.array([[1e6, 0.5], [np.nan, 0.5]])
    np.testing.assert_array_equal(ours.predict(X_new), theirs.predict(X_new))


# ========================================================================= routing
def test_node_without_missing_values_sends_them_to_the_heavier_child():
    """A node that saw no missing value at fit sends NaN to the child with more training
    weight; on equal weights to the right child. A node that saw them keeps its side."""
    X = np.array([[0.0], [1.0], [2.0], [3.0], [4.0], [5.0]])
    y = np.array([0, 0, 0, 0, 1, 1])
    est = BivariateTreeClassifier(splitter="univariate", max_depth=1).fit(X, y)
    tree = est.tree_
    assert not tree.missing_learned
    assert tree.weighted_n_node_samples[1] > tree.weighted_n_node_samples[2]
    assert tree.missing_go_left[0]
    assert est.predict([[np.nan]])[0] == 0
    w = np.array([1.0, 1.0, 1.0, 1.0, 2.0, 2.0])  # equal child weights: right
    est = BivariateTreeClassifier(splitter="univariate", max_depth=1).fit(X, y, sample_weight=w)
    assert not est.tree_.missing_go_left[0]
    assert est.predict([[np.nan]])[0] == 1


def test_bivariate_node_sends_a_sample_missing_either_feature_to_its_side():
    rng = np.random.default_rng(3)
    X = rng.uniform(-1, 1, (400, 2))
    y = (X[:, 0] + X[:, 1] > 0).astype(int)
    miss = rng.uniform(size=400) < 0.2
    X[miss & (rng.uniform(size=400) < 0.5), 0] = np.nan
    X[miss & np.isfinite(X[:, 0]), 1] = np.nan
    y[miss] = 1  # the missing rows belong with the left... or right side
    est = BivariateTreeClassifier(splitter="orientations", max_depth=1).fit(X, y)
    tree = est.tree_
    assert tree.n_node_features[0] == 2 and tree.missing_learned
    side = tree.children_left[0] if tree.missing_go_left[0] else tree.children_right[0]
    for row in ([np.nan, 0.3], [0.3, np.nan], [np.nan, np.nan]):
        assert est.apply([row])[0] == side
    # the side is the one holding the class of the missing rows
    assert np.argmax(tree.value[side]) == 1


def test_missing_values_in_every_default_search_route_as_predicted():
    X, y = missing_data(5, 300, 5, "classification", 0.2)
    for splitter in ("auto", "orientations", "diagonal", "univariate"):
        est = BivariateTreeClassifier(splitter=splitter, max_depth=5).fit(X, y)
        assert est.tree_.missing_learned
        leaves = est.apply(X)
        # every training sample is counted at the leaf prediction routes it to
        counts = np.bincount(leaves, minlength=est.tree_.node_count)
        np.testing.assert_array_equal(counts[est.tree_.is_leaf],
                                      est.tree_.n_node_samples[est.tree_.is_leaf])
        assert est.score(X, y) > 0.6


def test_pruning_keeps_the_missing_sides():
    X, y = missing_data(6, 300, 4, "classification", 0.3)
    full = BivariateTreeClassifier(random_state=0).fit(X, y)
    path = full.cost_complexity_pruning_path(X, y)
    alpha = path.ccp_alphas[len(path.ccp_alphas) // 2]
    pruned = BivariateTreeClassifier(random_state=0, ccp_alpha=alpha).fit(X, y)
    assert pruned.tree_.missing_learned
    assert pruned.tree_.node_count < full.tree_.node_count
    # the kept nodes are the full tree's first nodes in preorder, with their sides
    leaves = pruned.apply(X)
    counts = np.bincount(leaves, minlength=pruned.tree_.node_count)
    np.testing.assert_array_equal(counts[pruned.tree_.is_leaf],
                                  pruned.tree_.n_node_samples[pruned.tree_.is_leaf])


# =================================================================== tree format
def _small_tree(missing_go_left=None):
    return Tree([1, -1, -1], [2, -1, -1], [[0, -1], [-1, -1], [-1, -1]],
                [[1.0, 0.0], [0.0, 0.0], [0.0, 0.0]], [0.5, -2.0, -2.0], [0.5, 0.0, 0.0],
                [4, 1, 3], [4.0, 1.0, 3.0], [[2.0, 2.0], [1.0, 0.0], [1.0, 2.0]], 1,
                missing_go_left=missing_go_left)


def test_tree_format_versions():
    default = _small_tree()
    assert not default.missing_go_left[0]  # the right child is heavier
    assert default.to_dict()["version"] == 2 and "missing_go_left" not in default.to_dict()
    learned = _small_tree([True, False, False])
    data = learned.to_dict()
    assert data["version"] == 3 and data["missing_go_left"] == [True, False, False]
    again = Tree.from_json(json.dumps(data))
    assert again == learned and again.missing_learned
    assert again.apply(np.array([[np.nan]]))[0] == 1
    assert default.apply(np.array([[np.nan]]))[0] == 2
    # version 1 and 2 dictionaries take the default rule
    old = default.to_dict()
    old["version"] = 1
    del old["category_mask"]
    assert Tree.from_dict(old).missing_go_left.tolist() == [False, False, False]
    assert learned != default


@pytest.mark.parametrize("bad", [[1, 0, 0], [True, False], "yes", [None, False, False]])
def test_tree_format_rejects_bad_missing_sides(bad):
    data = _small_tree([True, False, False]).to_dict()
    data["missing_go_left"] = bad
    with pytest.raises(ValueError, match="missing_go_left"):
        Tree.from_dict(data)
    data = _small_tree().to_dict()  # version 3 needs the array
    data["version"] = 3
    with pytest.raises(ValueError, match="missing_go_left"):
        Tree.from_dict(data)


def test_model_round_trip_with_missing_values():
    X, y = missing_data(8, 200, 4, "regression", 0.2)
    est = BivariateTreeRegressor(max_depth=5).fit(X, y)
    again = from_json(to_json(est))
    assert again.tree_ == est.tree_
    np.testing.assert_array_equal(again.predict(X), est.predict(X))


# ===================================================================== input checks
def test_infinity_and_missing_targets_stay_errors():
    X, y = missing_data(9, 50, 3, "classification", 0.1)
    est = BivariateTreeClassifier(max_depth=2)
    X_inf = X.copy()
    X_inf[0, 0] = np.inf
    with pytest.raises(ValueError, match="infinity"):
        est.fit(X_inf, y)
    est.fit(X, y)
    with pytest.raises(ValueError, match="infinity"):
        est.predict(X_inf)
    y_nan = y.astype(float)
    y_nan[0] = np.nan
    with pytest.raises(ValueError, match="NaN"):
        BivariateTreeRegressor().fit(X, y_nan)
    with pytest.raises(ValueError, match="NaN"):
        BivariateTreeClassifier().fit(X, y_nan)
    w = np.ones(len(y))
    w[0] = np.nan
    with pytest.raises(ValueError, match="NaN"):
        est.fit(X, y, sample_weight=w)


def test_magnitude_check_sees_past_missing_values():
    X = np.array([[1.0, np.nan], [2.0, 1e300], [3.0, 1.0], [4.0, 2.0]])
    with pytest.raises(ValueError, match="values up to"):
        BivariateTreeClassifier().fit(X, [0, 1, 0, 1])


def test_all_missing_column_is_never_split_on():
    X, y = missing_data(10, 120, 3, "classification", 0.1)
    X[:, 2] = np.nan
    est = BivariateTreeClassifier(max_depth=4).fit(X, y)
    assert not np.any(est.tree_.features == 2)
    assert est.feature_importances_[2] == 0.0


# ======================================================================== the views
def _fitted_with_missing():
    rng = np.random.default_rng(0)
    X = rng.normal(size=(300, 4))
    y = (X[:, 0] + X[:, 1] > 0).astype(int)
    X[rng.uniform(size=X.shape) < 0.15] = np.nan
    # missing x3 marks class 1 half of the time: a side worth learning
    X[(y == 1) & (rng.uniform(size=300) < 0.5), 3] = np.nan
    return BivariateTreeClassifier(max_depth=3).fit(X, y), X, y


def test_text_exports_say_where_missing_values_go():
    from bivtree import export_graphviz, export_rules, export_text

    est, X, _ = _fitted_with_missing()
    tree = est.tree_
    text = export_text(est, decimals=None)
    lines = text.splitlines()
    # the root's missing clause is on the branch its missing side names
    names = " or ".join(f"x{f}" for f in tree.features[0] if f >= 0)
    clause = f" or {names} is missing"
    if tree.missing_go_left[0]:
        assert lines[0].startswith("if ") and lines[0].endswith(clause + ":")
    else:
        assert not lines[0].endswith(clause + ":")
        assert any(line.startswith("else:  # ") and line.endswith(clause) for line in lines)
    assert text.count(" is missing") == int(np.count_nonzero(~tree.is_leaf))
    # rows: every training sample satisfies the conditions of the leaf it reaches,
    # a missing value passing a condition iff the condition says so
    rows = export_rules(est, X=X)
    leaves = est.apply(X)
    for row in rows:
        for i in np.flatnonzero(leaves == row["leaf"]):
            for c in row["conditions"]:
                values = X[i, c["features"]]
                if np.isnan(values).any():
                    assert c["missing"], (row["rule"], c)
                else:
                    s = float(np.dot(c["weights"], values))
                    assert (s <= c["threshold"]) == (c["op"] == "<=")
        assert all(" or " not in c["text"] or c["missing"] for c in row["conditions"])
    dot = export_graphviz(est)
    assert "is missing" in dot


def test_plot_draws_missing_samples_in_a_strip():
    matplotlib = pytest.importorskip("matplotlib")
    matplotlib.use("Agg")
    from bivtree import plot_split, plot_tree

    est, X, y = _fitted_with_missing()
    ax = plot_split(est, 0, X, y)
    strips = [p for p in ax.patches if p.get_gid() == "missing-strip"]
    assert len(strips) == 1
    # the strip lies right of the scatter's points
    x0 = strips[0].get_x()
    known = [c.get_offsets() for c in ax.collections if len(c.get_offsets())]
    points = np.vstack(known)
    assert np.sum(points[:, 0] >= x0) == int(np.isnan(
        X[:, [f for f in est.tree_.features[0] if f >= 0]]).any(axis=1).sum())
    plot_tree(est, X, y)
    # a highlighted sample missing a feature of the root is marked inside the strip
    row = X[np.isnan(X[:, est.tree_.features[0, 0]])][0]
    ax = plot_split(est, 0, X, y, highlight=row)
    strip = next(p for p in ax.patches if p.get_gid() == "missing-strip")
    star = next(c for c in ax.collections if c.get_gid() == "highlight")
    x, y = star.get_offsets()[0]
    assert strip.get_x() < x < strip.get_x() + strip.get_width() and np.isfinite(y)
    matplotlib.pyplot.close("all")


def test_explain_names_the_missing_side():
    from bivtree import explain

    est, X, _ = _fitted_with_missing()
    row = X[np.isnan(X[:, est.tree_.features[0, 0]])][0]
    explanation = explain(est, row)
    step = explanation.steps[0]
    assert step.missing and step.goes_left == est.tree_.missing_go_left[0]
    assert "the node's side for missing values" in str(explanation)


def test_html_page_with_missing_values():
    from bivtree import export_html

    est, X, y = _fitted_with_missing()
    page = export_html(est, X, y)
    # the samples missing a feature of a node are drawn in its strip (test_html_page.py)
    assert "missing_left" in page and '"missing":{"x":[' in page
