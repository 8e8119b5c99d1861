"""Monotonic and interaction constraints of the greedy trees, for every splitter.

Modelled on scikit-learn's ``sklearn/tree/tests/test_monotonic_tree.py``: predictions
never move against a constraint when a constrained feature grows with the others
fixed (on a grid and on random rows, rows with missing values included); every
ordered split has its children, as the training samples make them, in the order its
test requires and within the bounds its ancestors pass down (scikit-learn's
``assert_nd_reg_tree_children_monotonic_bounded``, on the unclipped values, so the
splitters' own checks are tested and not only the clipping); stored values lie
within those bounds. Interaction groups: no node pairs features of different groups.
Then the errors, the exact splitter's optimality among the admissible splits, pruning,
saved models, the rules' header line and the command line.

The checks are shown to fail on trees fitted without the constraints, so none of them
holds by construction.
"""

import itertools
import json
import re

import numpy as np
import pandas as pd
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from bivtree import BivariateTreeClassifier, BivariateTreeRegressor, from_json, to_json
from bivtree._config import CLASSIFICATION_CRITERIA, REGRESSION_CRITERIA
from bivtree._kernels.constraints import CONFLICT, rule_order, split_admissible
from bivtree.cli import main
from bivtree.constraints import NodeBounds, split_constraints
from bivtree.export import export_rules, export_text, fitted_constraints, rules_markdown
from bivtree.pruning import cost_complexity_pruning_path, prune_tree
from bivtree.splitters import SPLITTERS, SplitData, get_splitter
from naive import weighted_child_impurity

CLASSIFIER, REGRESSOR = BivariateTreeClassifier, BivariateTreeRegressor
#: every registered splitter with every estimator it grows trees for.
CASES = [(name, cls) for name in sorted(SPLITTERS) for cls in (CLASSIFIER, REGRESSOR)
         if ("classification" if cls is CLASSIFIER else "regression") in SPLITTERS[name].tasks]
CASE_IDS = [f"{name}-{'clf' if cls is CLASSIFIER else 'reg'}" for name, cls in CASES]
BIVARIATE = sorted(name for name, cls in SPLITTERS.items() if cls.max_node_features >= 2)
#: the constraints of the random data sets: x0 up, x1 down, x2 free, x3 up.
CST = [1, -1, 0, 1]


# ----------------------------------------------------------------------- checks
def node_values(est, X, y, sample_weight=None):
    """Each node's value as the training samples reaching it make it (unclipped): the
    weighted share of the last class, or the weighted mean target."""
    w = np.ones(len(y)) if sample_weight is None else np.asarray(sample_weight, float)
    target = (np.asarray(y) == est.classes_[-1]).astype(float) if hasattr(est, "classes_") \
        else np.asarray(y, float)
    path = est.decision_path(X).toarray().astype(bool) & (w > 0)[:, None]
    weight = w @ path
    return np.where(weight > 0, (w * target) @ path / np.where(weight > 0, weight, 1.0), np.nan)


def stored_values(est):
    tree = est.tree_
    if hasattr(est, "classes_"):
        return tree.value[:, -1] / tree.value.sum(axis=1)
    return tree.value[:, 0]


def node_order(tree, cst, node):
    """The order a node's test requires of its children (0: none)."""
    if tree.is_categorical[node]:
        return 0
    return int(rule_order(np.asarray(cst, np.int64), tree.features[node].astype(np.int64),
                          tree.weights[node].astype(np.float64)))


def walk_ordered_splits(est, X, y, cst, sample_weight, check_ordered):
    """The bounds walk of scikit-learn's monotonic check, shared by the greedy and TAO tests.

    Every node: no ``CONFLICT``, its stored value within the bounds passed down as
    scikit-learn's growth passes them (ordered children: ``[lower, mid]`` and ``[mid,
    upper]``, ``mid`` the mean of their training values, clipped to the node's bounds).
    At every ordered split ``check_ordered(node, left, right, order, lower, upper, real,
    stored, tol)`` makes the caller's own assertions. Returns the number of ordered splits.
    """
    tree, real, stored = est.tree_, node_values(est, X, y, sample_weight), stored_values(est)
    tol = 1e-9 * max(1.0, float(np.nanmax(np.abs(real))))
    n_ordered = 0
    stack = [(0, -np.inf, np.inf)]
    while stack:
        node, lower, upper = stack.pop()
        assert lower - tol <= stored[node] <= upper + tol, (node, lower, upper, stored[node])
        left, right = tree.children_left[node], tree.children_right[node]
        if left < 0:
            continue
        order = node_order(tree, cst, node)
        assert order != CONFLICT, f"node {node} tests constrained features in disagreeing senses"
        if order == 0:
            stack += [(left, lower, upper), (right, lower, upper)]
            continue
        n_ordered += 1
        check_ordered(node, left, right, order, lower, upper, real, stored, tol)
        mid = min(max(0.5 * (real[left] + real[right]), lower), upper)
        low, high = (lower, mid), (mid, upper)
        stack += [(left, *low), (right, *high)] if order > 0 else [(left, *high), (right, *low)]
    return n_ordered


def assert_children_monotonic_bounded(est, X, y, cst, sample_weight=None):
    """scikit-learn's check on every node: an ordered split's children (their training
    values) in order and within the node's bounds; the stored values within the bounds.

    Returns the number of ordered splits checked.
    """
    def children_in_order(node, left, right, order, lower, upper, real, stored, tol):
        v_left, v_right = real[left], real[right]
        assert (v_left - v_right) * order <= tol, (node, v_left, v_right, order)
        for v in (v_left, v_right):
            assert lower - tol <= v <= upper + tol, (node, lower, upper, v)

    return walk_ordered_splits(est, X, y, cst, sample_weight, children_in_order)


def _prediction(est):
    """The constrained prediction of rows given as an array (the fit's columns, if named)."""
    names = getattr(est, "feature_names_in_", None)

    def rows(Z):
        return Z if names is None else pd.DataFrame(Z, columns=names)
    if hasattr(est, "classes_"):
        return lambda Z: est.predict_proba(rows(Z))[:, -1]
    return lambda Z: est.predict(rows(Z))


def assert_monotone_predictions(est, X, cst, rows, n_grid=25):
    """Along every constrained feature, from each of ``rows`` (others fixed, NaN included),
    the prediction never moves against the constraint; also on a grid of the feature space."""
    predict = _prediction(est)
    lo, hi = np.nanmin(X, axis=0), np.nanmax(X, axis=0)
    for j, c in enumerate(cst):
        if c == 0:
            continue
        sweep = np.linspace(lo[j] - 1.0, hi[j] + 1.0, n_grid)
        Z = np.repeat(rows, sweep.size, axis=0)
        Z[:, j] = np.tile(sweep, rows.shape[0])
        steps = np.diff(predict(Z).reshape(rows.shape[0], sweep.size), axis=1) * c
        assert steps.min() >= -1e-12, (j, c, steps.min())
    # the grid: every point's neighbour one step up a constrained axis
    axes = [np.linspace(lo[j], hi[j], 5) for j in range(X.shape[1])]
    grid = np.array(list(itertools.product(*axes)))
    base = predict(grid)
    for j, c in enumerate(cst):
        if c == 0:
            continue
        up = grid.copy()
        up[:, j] = grid[:, j] + (hi[j] - lo[j]) / 4
        assert ((predict(up) - base) * c).min() >= -1e-12, (j, c)


def random_rows(X, rng, n=40):
    return X[rng.choice(X.shape[0], min(n, X.shape[0]), replace=False)]


def make_data(seed, n=240, missing=0.0):
    """Four features; the target grows with x0, falls with x1, and wiggles with x2 and x3
    (so an unconstrained tree is not monotone in x3); noise makes it non-monotone in x0, x1
    too."""
    rng = np.random.default_rng(seed)
    X = rng.uniform(size=(n, 4))
    signal = 2 * X[:, 0] - 2 * X[:, 1] + np.sin(8 * X[:, 2]) + 0.8 * np.sin(9 * X[:, 3])
    y_reg = signal + 0.6 * rng.normal(size=n)
    y_clf = (y_reg > np.median(y_reg)).astype(int)
    if missing:
        X[rng.uniform(size=X.shape) < missing] = np.nan
    return X, y_clf, y_reg


def fit(cls, name, X, y, **params):
    return cls(splitter=name, **params).fit(X, y)


# ---------------------------------------------------------- every splitter, random data
@pytest.mark.parametrize("missing", [0.0, 0.1], ids=["complete", "missing"])
@pytest.mark.parametrize(("name", "cls"), CASES, ids=CASE_IDS)
def test_predictions_are_monotone_and_children_bounded(name, cls, missing):
    X, y_clf, y_reg = make_data(1, missing=missing)
    y = y_clf if cls is CLASSIFIER else y_reg
    est = fit(cls, name, X, y, monotonic_cst=CST, max_depth=7)
    assert assert_children_monotonic_bounded(est, X, y, CST) > 0
    rows = random_rows(X, np.random.default_rng(2))
    assert np.isnan(rows).any() == bool(missing)
    assert_monotone_predictions(est, X, CST, rows)
    # the same checks fail on the tree grown without the constraints
    free = fit(cls, name, X, y, max_depth=7)
    with pytest.raises(AssertionError):
        assert_children_monotonic_bounded(free, X, y, CST)
        assert_monotone_predictions(free, X, CST, rows)


@pytest.mark.parametrize("name", BIVARIATE)
def test_bivariate_splits_of_constrained_features_are_used(name):
    """On a target of ``x0 - x1`` the admissible oblique split (signs agreeing: x0 up, x1
    down) is found and used, not only univariate splits."""
    rng = np.random.default_rng(5)
    X = rng.uniform(size=(200, 3))
    y = (X[:, 0] - 0.7 * X[:, 1] + 0.1 * rng.normal(size=200) > 0.15).astype(int)
    cst = [1, -1, 0]
    est = fit(CLASSIFIER, name, X, y, monotonic_cst=cst, max_depth=4)
    tree = est.tree_
    ordered_bivariate = [i for i in np.flatnonzero(tree.n_node_features == 2)
                         if node_order(tree, cst, i) != 0]
    assert ordered_bivariate
    assert_children_monotonic_bounded(est, X, y, cst)


@pytest.mark.parametrize("name", ["univariate", "orientations", "auto", "optimal"])
def test_best_first_and_threaded_growth_keep_the_bounds(name):
    # threads grow subtrees apart from 2000 rows (the optimal splitter's sweeps of its
    # constrained pairs, quadratic in the rows, stay on one thread: fewer rows)
    X, _, y = make_data(3, n=600 if name == "optimal" else 2400)
    for params in ({"max_leaf_nodes": 40}, {"n_jobs": 2}):
        est = fit(REGRESSOR, name, X, y, monotonic_cst=CST, min_samples_leaf=20, **params)
        assert assert_children_monotonic_bounded(est, X, y, CST) > 0
        assert_monotone_predictions(est, X, CST, random_rows(X, np.random.default_rng(0), 15))
    # threads change nothing
    one = fit(REGRESSOR, name, X, y, monotonic_cst=CST, min_samples_leaf=20, n_jobs=1)
    assert one.tree_ == est.tree_


@pytest.mark.parametrize(("name", "cls"), CASES, ids=CASE_IDS)
def test_dataframe_constraints_by_name(name, cls):
    X, y_clf, y_reg = make_data(4)
    frame = pd.DataFrame(X, columns=["up", "down", "free", "up2"])
    y = y_clf if cls is CLASSIFIER else y_reg
    by_name = fit(cls, name, frame, y, monotonic_cst={"up": 1, "down": -1, "up2": 1},
                  max_depth=5)
    by_index = fit(cls, name, X, y, monotonic_cst=CST, max_depth=5)
    assert by_name.monotonic_cst_.tolist() == CST
    np.testing.assert_array_equal(by_name.predict(frame), by_index.predict(X))


# ------------------------------------------------------------ hypothesis-generated data
@st.composite
def problems(draw):
    """Small data sets: real or small-integer features (ties), some missing values, a
    binary or real target, weights, constraints and growth limits."""
    name, cls = draw(st.sampled_from(CASES))
    n = draw(st.integers(12, 40))
    seed = draw(st.integers(0, 2**32 - 1))
    rng = np.random.default_rng(seed)
    integer = draw(st.booleans())
    X = rng.integers(0, 5, size=(n, 3)).astype(float) if integer else rng.normal(size=(n, 3))
    if draw(st.booleans()):
        X[rng.uniform(size=X.shape) < 0.15] = np.nan
    signal = X[:, 0] * draw(st.sampled_from([-1.0, 1.0])) + np.nan_to_num(X[:, 1]) ** 2
    signal = np.nan_to_num(signal) + rng.normal(size=n)
    y = (signal > np.median(signal)).astype(int) if cls is CLASSIFIER else signal
    if cls is CLASSIFIER and np.unique(y).size < 2:
        y[0] = 1 - y[0]
    weight = rng.integers(0, 3, size=n).astype(float) if draw(st.booleans()) else None
    if weight is not None and not (weight > 0).any():
        weight[0] = 1.0
    cst = draw(st.lists(st.sampled_from([-1, 0, 1]), min_size=3, max_size=3))
    params = {"max_depth": draw(st.sampled_from([None, 2, 4])),
              "min_samples_leaf": draw(st.integers(1, 3))}
    if cls is REGRESSOR:
        params["criterion"] = draw(st.sampled_from(sorted(REGRESSION_CRITERIA)))
    else:
        params["criterion"] = draw(st.sampled_from(["gini", "entropy", "misclassification"]))
    return name, cls, X, y, weight, cst, params


@settings(max_examples=60, deadline=None,
          suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large])
@given(problems())
def test_hypothesis_monotone_and_bounded(problem):
    name, cls, X, y, weight, cst, params = problem
    est = cls(splitter=name, monotonic_cst=cst, **params).fit(X, y, sample_weight=weight)
    assert_children_monotonic_bounded(est, X, y, cst, weight)
    assert_monotone_predictions(est, X, cst, X[:10], n_grid=12)


@settings(max_examples=30, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(st.sampled_from(BIVARIATE), st.integers(0, 2**32 - 1),
       st.lists(st.integers(0, 3), min_size=1, max_size=4),
       st.lists(st.integers(0, 3), min_size=1, max_size=4))
def test_hypothesis_no_node_pairs_features_of_different_groups(name, seed, group_a, group_b):
    X, y, _ = make_data(seed % 1000, n=60)
    groups = [sorted(set(group_a)), sorted(set(group_b))]
    est = fit(CLASSIFIER, name, X, y, interaction_cst=groups, max_depth=4)
    allowed = [set(g) for g in est.interaction_cst_]
    for features in est.tree_.features[~est.tree_.is_leaf]:
        used = {int(f) for f in features if f >= 0}
        assert any(used <= g for g in allowed), (used, allowed)


# ----------------------------------------------------------------- interaction groups
def _cross_group_data(seed=0, n=300):
    """The class depends on x0 - x2: the best split pairs features of different groups."""
    rng = np.random.default_rng(seed)
    X = rng.uniform(size=(n, 4))
    y = (X[:, 0] - X[:, 2] + 0.05 * rng.normal(size=n) > 0).astype(int)
    return X, y


def _pairs_used(est):
    tree = est.tree_
    return {tuple(sorted(int(f) for f in row if f >= 0))
            for row in tree.features[~tree.is_leaf] if np.count_nonzero(row >= 0) > 1}


@pytest.mark.parametrize("name", BIVARIATE)
def test_interaction_groups_are_respected(name):
    X, y = _cross_group_data()
    assert (0, 2) in _pairs_used(fit(CLASSIFIER, name, X, y, max_depth=3))
    est = fit(CLASSIFIER, name, X, y, max_depth=3, interaction_cst=[[0, 1], [2, 3]])
    assert est.interaction_cst_ == [[0, 1], [2, 3]]
    assert _pairs_used(est) <= {(0, 1), (2, 3)}
    # the features no group lists form one more group (scikit-learn's rule)
    est = fit(CLASSIFIER, name, X, y, max_depth=3, interaction_cst=[[0, 1]])
    assert est.interaction_cst_ == [[0, 1], [2, 3]]
    assert _pairs_used(est) <= {(0, 1), (2, 3)}
    for univariate_only in ("no_interactions", [[0], [1], [2], [3]]):
        est = fit(CLASSIFIER, name, X, y, max_depth=3, interaction_cst=univariate_only)
        assert est.tree_.n_node_features.max() <= 1


@pytest.mark.parametrize("name", BIVARIATE)
def test_interaction_groups_by_name_and_pairwise(name):
    X, y = _cross_group_data(1)
    frame = pd.DataFrame(X, columns=list("abcd"))
    est = fit(CLASSIFIER, name, frame, y, max_depth=3, interaction_cst=[["a", "b"], ["c", "d"]])
    assert _pairs_used(est) <= {(0, 1), (2, 3)}
    # with at most two features per test, "pairwise" allows every pair
    pairwise = fit(CLASSIFIER, name, X, y, max_depth=3, interaction_cst="pairwise")
    assert pairwise.tree_ == fit(CLASSIFIER, name, X, y, max_depth=3).tree_


def test_lda_groups_choose_the_features_of_a_test():
    X, y = _cross_group_data(2)
    X = np.column_stack([X, X[:, 0] + 0.3 * np.random.default_rng(0).normal(size=len(y))])
    for s in (3, None):
        options = {"n_split_features": s}
        free = fit(CLASSIFIER, "lda", X, y, max_depth=3, splitter_options=options)
        assert free.tree_.n_node_features.max() >= 3
        est = fit(CLASSIFIER, "lda", X, y, max_depth=3, splitter_options=options,
                  interaction_cst=[[0, 1, 4], [2, 3]])
        for features in est.tree_.features[~est.tree_.is_leaf]:
            used = {int(f) for f in features if f >= 0}
            assert used <= {0, 1, 4} or used <= {2, 3}
        est = fit(CLASSIFIER, "lda", X, y, max_depth=3, splitter_options=options,
                  interaction_cst="pairwise")
        assert est.tree_.n_node_features.max() == 2


# ------------------------------------------------------- what the constraints leave alone
def _monotone_data(seed, cls, n=200):
    """The target rises with x0 and x1 (a step function of ``x0 + x1 / 2``), without noise."""
    X = np.random.default_rng(seed).uniform(size=(n, 3))
    signal = X[:, 0] + 0.5 * X[:, 1]
    return X, (signal > 0.8).astype(int) if cls is CLASSIFIER else np.floor(4 * signal)


@pytest.mark.parametrize(("name", "cls"), CASES, ids=CASE_IDS)
def test_already_monotone_data_is_not_harmed(name, cls):
    """On monotone data a constrained fit does at least as well as scikit-learn's
    constrained tree: the bounds passed down are scikit-learn's, which bind even on
    monotone data (a child's values beyond the mean of its parent's children are
    refused), so neither need match its free tree."""
    from sklearn.tree import DecisionTreeClassifier, DecisionTreeRegressor

    X, y = _monotone_data(7, cls)
    cst = [1, 1, 0]
    free = fit(cls, name, X, y, max_depth=4)
    constrained = fit(cls, name, X, y, max_depth=4, monotonic_cst=cst)
    reference = (DecisionTreeClassifier if cls is CLASSIFIER else DecisionTreeRegressor)(
        max_depth=4, monotonic_cst=cst, random_state=0).fit(X, y)
    assert constrained.score(X, y) >= reference.score(X, y) - 1e-9
    assert free.score(X, y) >= constrained.score(X, y) - 0.1


@pytest.mark.parametrize("name", ["univariate", "orientations", "diagonal", "optimal"])
def test_constraints_a_tree_already_meets_change_nothing(name):
    """An exact search whose free tree meets every constraint (each split admissible, each
    value within its bounds) grows the same tree under them: the same partitions and values
    (the optimal splitter may write a partition with another of its directions)."""
    cst, met = [1, 1, 0], 0
    for seed, cls in itertools.product(range(6), (CLASSIFIER, REGRESSOR)):
        X, y = _monotone_data(seed, cls, n=120)
        free = fit(cls, name, X, y, max_depth=2)
        try:
            assert_children_monotonic_bounded(free, X, y, cst)
        except AssertionError:
            continue
        met += 1
        constrained = fit(cls, name, X, y, max_depth=2, monotonic_cst=cst)
        np.testing.assert_array_equal(constrained.apply(X), free.apply(X))
        np.testing.assert_array_equal(constrained.tree_.value, free.tree_.value)
        if name != "optimal":
            assert constrained.tree_ == free.tree_
    assert met >= 3


@pytest.mark.parametrize("name", sorted(n for n in SPLITTERS if "regression" in SPLITTERS[n].tasks))
def test_opposite_constraint_on_monotone_data_gives_one_leaf(name):
    """scikit-learn's ``test_1d_opposite_monotonicity_cst_data``."""
    X = np.linspace(-2, 2, 10).reshape(-1, 1)
    y = X.ravel()
    for cst, target in (([-1], y), ([1], -y)):
        est = fit(REGRESSOR, name, X, target, monotonic_cst=cst)
        assert est.tree_.node_count == 1
        assert est.tree_.value[0, 0] == pytest.approx(0.0, abs=1e-12)


def test_zero_constraints_grow_the_unconstrained_tree():
    X, y, _ = make_data(8)
    for name in ("univariate", "auto", "optimal"):
        assert (fit(CLASSIFIER, name, X, y, monotonic_cst=[0, 0, 0, 0]).tree_
                == fit(CLASSIFIER, name, X, y).tree_)


def test_univariate_splitter_grows_scikit_learns_tree():
    """The univariate splitter is scikit-learn's CART; with monotonic constraints too."""
    from sklearn.tree import DecisionTreeRegressor

    X, _, y = make_data(9, n=150)
    ours = fit(REGRESSOR, "univariate", X, y, monotonic_cst=CST, max_depth=5)
    theirs = DecisionTreeRegressor(monotonic_cst=CST, max_depth=5, random_state=0).fit(X, y)
    np.testing.assert_allclose(ours.predict(X), theirs.predict(X), rtol=1e-9, atol=1e-12)


# ---------------------------------------------------------- the exact splitter is exact
def _side_values(y, w, classification):
    """The value of a side (a mask of the samples): share of class 1, or mean target."""
    target = (y == 1).astype(float) if classification else y

    def value(mask):
        return np.average(target[mask], weights=w[mask])
    return value


def _brute_force(X, y, w, criterion, cst, bounds, classification, min_samples_leaf=1):
    """Least ``G`` over the admissible splits of two features: univariate cuts, and every
    partition by a line with both weights nonzero (normals ``(cos t, sin t)``, ``t`` in each
    open interval between the angles where two points project equally)."""
    value = _side_values(y, w, classification)
    n_classes = 2 if classification else 1
    best = np.inf

    def consider(left, order):
        nonlocal best
        if min(left.sum(), (~left).sum()) < min_samples_leaf:
            return
        if order == CONFLICT:
            return
        if order != 0:
            vl, vr = value(left), value(~left)
            if not (bounds.lower <= vl <= bounds.upper and bounds.lower <= vr <= bounds.upper
                    and (vl - vr) * order <= 0):
                return
        best = min(best, weighted_child_impurity(left, y, w, criterion, n_classes))

    def cuts(values, order):
        distinct = np.unique(values)
        for lo, hi in itertools.pairwise(distinct):
            consider(values <= lo + (hi - lo) / 2, order)

    for j in range(2):
        cuts(X[:, j], cst[j])
    critical = [-np.pi / 2, 0.0, np.pi / 2]
    for a, b in itertools.combinations(range(len(y)), 2):
        d = X[b] - X[a]
        if d.any():
            t = np.arctan2(-d[0], d[1])  # the normal orthogonal to the difference
            critical += [((t + np.pi / 2) % np.pi) - np.pi / 2]
    critical = np.unique(critical)
    for t in (critical[:-1] + critical[1:]) / 2:
        w0, w1 = np.cos(t), np.sin(t)
        order = rule_order(np.asarray(cst, np.int64), np.array([0, 1]), np.array([w0, w1]))
        cuts(w0 * X[:, 0] + w1 * X[:, 1], order)
    return best


@pytest.mark.parametrize("criterion", ["gini", "entropy", "squared_error"])
@pytest.mark.parametrize("cst", [(1, 1), (1, -1), (-1, 0), (0, 1), (0, 0)])
def test_optimal_splitter_is_exact_among_admissible_splits(criterion, cst):
    classification = criterion != "squared_error"
    codes = CLASSIFICATION_CRITERIA if classification else REGRESSION_CRITERIA
    for seed in range(6):
        rng = np.random.default_rng(seed)
        n = 11
        X = rng.normal(size=(n, 2))
        y = (rng.uniform(size=n) < 0.5).astype(int) if classification else rng.normal(size=n)
        if classification and np.unique(y).size < 2:
            y[0] = 1 - y[0]
        w = rng.uniform(0.5, 2.0, size=n)
        mean = np.average(y, weights=w)
        bounds = NodeBounds(-np.inf, np.inf) if seed % 2 else NodeBounds(mean - 0.3,
                                                                         mean + 0.4)
        data = SplitData(np.asfortranarray(X), y.astype(np.int64) if classification
                         else np.zeros(n, np.int64),
                         np.zeros(n) if classification else y.astype(float), w,
                         2 if classification else 1, codes[criterion],
                         constraints=split_constraints(np.array(cst), None, 2))
        for method in (("branch_and_bound", "sweep") if classification else ("sweep",)):
            splitter = get_splitter("optimal", method=method)
            splitter.prepare(data)
            split = splitter.find_split(data, np.arange(n), np.arange(2), bounds)
            expected = _brute_force(X, y, w, criterion, cst, bounds, classification)
            if split is None:
                assert expected == np.inf
                continue
            assert split.objective == pytest.approx(expected, rel=1e-9, abs=1e-12)
            used = split.features >= 0
            left = X[:, split.features[used]] @ split.weights[used] <= split.threshold
            value = _side_values(y, w, classification)
            assert split_admissible(np.array(cst, np.int64), np.ones((0, 0), bool),
                                    split.features, split.weights, bounds.lower, bounds.upper,
                                    value(left), value(~left))


# ------------------------------------------------------------------------------ pruning
@pytest.mark.parametrize("name", ["univariate", "auto", "optimal"])
def test_pruning_keeps_monotonicity(name):
    X, y, _ = make_data(10, missing=0.05)
    est = fit(CLASSIFIER, name, X, y, monotonic_cst=CST)
    alphas = cost_complexity_pruning_path(est.tree_).ccp_alphas
    rows = random_rows(X, np.random.default_rng(1), 20)
    for alpha in alphas[1:-1:max(1, len(alphas) // 5)]:
        pruned = fit(CLASSIFIER, name, X, y, monotonic_cst=CST, ccp_alpha=max(alpha, 0.0))
        assert pruned.tree_ == prune_tree(est.tree_, max(alpha, 0.0))
        assert_children_monotonic_bounded(pruned, X, y, CST)
        assert_monotone_predictions(pruned, X, CST, rows)
    path = est.cost_complexity_pruning_path(X, y)
    assert np.array_equal(path.ccp_alphas, alphas)


# ------------------------------------------------------------------------------- errors
def _frame():
    rng = np.random.default_rng(0)
    frame = pd.DataFrame({"a": rng.uniform(size=40), "b": rng.uniform(size=40),
                          "colour": pd.Categorical(rng.choice(["red", "blue"], size=40))})
    return frame, (frame["a"] > 0.5).astype(int).to_numpy()


@pytest.mark.parametrize(("params", "message"), [
    ({"monotonic_cst": [1, 0]}, "monotonic_cst has shape \\(2,\\) but X has 3 features"),
    ({"monotonic_cst": [1, 0, 2]}, "array-like of -1, 0 or 1 .* got 2"),
    ({"monotonic_cst": [1, 0, 0.5]}, "got 0.5"),
    ({"monotonic_cst": [1, 0, "x"]}, "got 'x'"),
    ({"monotonic_cst": {"a": 1, "nope": -1}}, "names 'nope', which is not a column of X"),
    ({"monotonic_cst": {"a": 3}}, "got 3"),
    ({"monotonic_cst": {"colour": 1}},
     "constrains the categorical feature 2 \\('colour'\\); categories have no order"),
    ({"interaction_cst": [["a", "nope"]]}, "names 'nope', which is not a column of X"),
    ({"interaction_cst": [[0, 3]]}, "feature indices in \\[0, 2\\] or column names, got 3"),
    ({"interaction_cst": [0, 1]}, "list of groups"),
    ({"interaction_cst": "all"}, "interaction_cst must be None, 'no_interactions', 'pairwise'"),
])
def test_invalid_constraints_are_refused(params, message):
    frame, y = _frame()
    with pytest.raises(ValueError, match=message):
        BivariateTreeClassifier(**params).fit(frame, y)


def test_names_need_column_names_and_multiclass_multi_output_are_refused():
    X, y, _ = make_data(11, n=60)
    with pytest.raises(ValueError, match="X has no column names"):
        BivariateTreeClassifier(monotonic_cst={"a": 1}).fit(X, y)
    with pytest.raises(ValueError, match="X has no column names"):
        BivariateTreeClassifier(interaction_cst=[["a", "b"]]).fit(X, y)
    three = np.arange(60) % 3
    with pytest.raises(ValueError, match="not supported with multiclass classification"):
        BivariateTreeClassifier(monotonic_cst=CST).fit(X, three)
    BivariateTreeClassifier(interaction_cst=[[0, 1]]).fit(X, three)  # groups are fine
    with pytest.raises(ValueError, match="not supported with multiple outputs"):
        BivariateTreeRegressor(monotonic_cst=CST).fit(X, np.column_stack([y, y]))
    with pytest.raises(ValueError, match="monotonic_cst must be None, a dict .* or an "
                                         "array-like, got 3"):
        BivariateTreeRegressor(monotonic_cst=3).fit(X, y)


def test_a_splitter_that_cannot_honour_constraints_is_named():
    from bivtree.splitters import Splitter, register
    from bivtree.splitters.univariate import best_univariate_split

    @register
    class Plain(Splitter):
        name = "plain-test-splitter"

        def find_split(self, data, samples, features):
            return best_univariate_split(data, samples, features)

    try:
        X, y, _ = make_data(12, n=50)
        BivariateTreeClassifier(splitter=Plain.name).fit(X, y)
        with pytest.raises(ValueError, match="the 'plain-test-splitter' splitter does not "
                                             "honour monotonic_cst or interaction_cst"):
            BivariateTreeClassifier(splitter=Plain.name, interaction_cst=[[0, 1]]).fit(X, y)
    finally:
        del SPLITTERS[Plain.name]


def test_lda_categorical_features_cannot_be_constrained():
    X, y, _ = make_data(13, n=60)
    X[:, 3] = np.arange(60) % 3
    with pytest.raises(ValueError, match="splits by category subsets"):
        BivariateTreeClassifier(splitter="lda", monotonic_cst=CST,
                                splitter_options={"categorical_features": [3]}).fit(X, y)


# -------------------------------------------------------------------- saved models, rules
@pytest.mark.parametrize(("name", "cls"), [("auto", CLASSIFIER), ("optimal", REGRESSOR),
                                           ("lda", CLASSIFIER)])
def test_json_round_trip_keeps_the_constraints(name, cls, tmp_path):
    X, y_clf, y_reg = make_data(14, missing=0.05)
    frame = pd.DataFrame(X, columns=["up", "down", "free", "up2"])
    y = y_clf if cls is CLASSIFIER else y_reg
    est = fit(cls, name, frame, y, max_depth=4, monotonic_cst={"up": 1, "down": -1, "up2": 1},
              interaction_cst=[["up", "down"], ["free"]])
    text = to_json(est)
    saved = json.loads(text)
    assert saved["version"] == 5 and saved["tree"]["version"] == 4
    assert saved["constraints"] == {"monotonic": CST, "interaction": [[0, 1], [2], [3]]}
    back = from_json(text)
    assert back.monotonic_cst_.tolist() == CST
    assert back.interaction_cst_ == est.interaction_cst_
    assert back.get_params() == est.get_params()
    np.testing.assert_array_equal(back.predict(frame), est.predict(frame))
    assert to_json(back) == text
    est.save(tmp_path / "model.json")
    assert type(est).load(tmp_path / "model.json").tree_ == est.tree_
    # arrays and tuples are written as lists, and a model without constraints as before
    plain = fit(cls, name, X, y, max_depth=3, monotonic_cst=np.array(CST),
                interaction_cst=((0, 1), (2, 3)))
    assert json.loads(to_json(plain))["params"]["monotonic_cst"] == CST
    free = json.loads(to_json(fit(cls, name, X, y, max_depth=3)))
    assert free["version"] <= 4 and "constraints" not in free
    assert "monotonic_cst" not in free["params"]


def test_a_model_file_cannot_claim_other_constraints():
    X, y, _ = make_data(15)
    est = fit(CLASSIFIER, "auto", X, y, max_depth=3, monotonic_cst=CST)
    saved = json.loads(to_json(est))
    edited = json.loads(json.dumps(saved))
    edited["constraints"]["monotonic"][0] = -1
    with pytest.raises(ValueError, match="not what its params give"):
        from_json(json.dumps(edited))
    edited = json.loads(json.dumps(saved))
    del edited["constraints"]
    with pytest.raises(ValueError, match="a model of format version 5 records its constraints"):
        from_json(json.dumps(edited))
    older = json.loads(to_json(fit(CLASSIFIER, "auto", X, y, max_depth=3)))
    older["params"]["monotonic_cst"] = CST
    with pytest.raises(ValueError, match="which models of format version 5 and later hold"):
        from_json(json.dumps(older))
    older["params"].pop("monotonic_cst")
    older["constraints"] = saved["constraints"]
    with pytest.raises(ValueError, match="unknown field"):
        from_json(json.dumps(older))


def test_rules_say_which_constraints_the_model_was_fitted_under():
    X, y, _ = make_data(16)
    frame = pd.DataFrame(X, columns=["income", "age", "waist", "height"])
    est = fit(CLASSIFIER, "auto", frame, y, max_depth=2, monotonic_cst={"income": 1, "age": -1},
              interaction_cst=[["waist", "height"]])
    line = ("monotonic: income increasing, age decreasing; interactions: only within "
            "{waist, height}, {income, age}")
    assert fitted_constraints(est) == line
    text = export_text(est)
    assert text.splitlines()[0] == f"# fitted under constraints: {line}"
    assert text.count("constraints") == 1
    table = rules_markdown(export_rules(est), constraints=fitted_constraints(est))
    assert table.splitlines()[0] == f"Fitted under constraints: {line}"
    free = fit(CLASSIFIER, "auto", frame, y, max_depth=2)
    assert fitted_constraints(free) is None
    assert "constraints" not in export_text(free)


# ------------------------------------------------------------------------- command line
def _table(tmp_path):
    X, y, _ = make_data(17)
    frame = pd.DataFrame(X, columns=["debt_ratio", "age", "waist", "height"])
    frame["income"] = frame["waist"] * 2
    frame["debt"] = frame["height"]
    frame["target"] = y
    path = tmp_path / "data.csv"
    frame.to_csv(path, index=False)
    return path, frame


def test_command_line_fits_under_constraints(tmp_path, capsys):
    path, frame = _table(tmp_path)
    model = tmp_path / "model.json"
    assert main(["fit", str(path), "--target", "target", "-o", str(model), "-q",
                 "--max-depth", "4", "--monotonic", "debt_ratio=+1", "--monotonic", "age=-1",
                 "--pairs", "waist,height", "income,debt"]) == 0
    saved = json.loads(model.read_text())
    assert saved["params"]["monotonic_cst"] == {"dict": [["debt_ratio", 1], ["age", -1]]}
    assert saved["params"]["interaction_cst"] == [["waist", "height"], ["income", "debt"]]
    assert saved["constraints"]["monotonic"] == [1, -1, 0, 0, 0, 0]
    assert saved["constraints"]["interaction"] == [[2, 3], [4, 5], [0, 1]]
    est = from_json(model.read_text())
    X = frame.drop(columns="target")
    assert_monotone_predictions(est, X.to_numpy(), [1, -1, 0, 0, 0, 0],
                                X.to_numpy()[:10])
    capsys.readouterr()
    assert main(["show", str(model)]) == 0
    assert "# fitted under constraints: monotonic: debt_ratio increasing" in (
        capsys.readouterr().out)


@pytest.mark.parametrize(("args", "message"), [
    (["--monotonic", "dept_ratio=+1"], "--monotonic: 'dept_ratio' is not a feature column"),
    (["--monotonic", "age=2"], "expected COLUMN=\\+1 \\(increasing\\)"),
    (["--monotonic", "age=+1", "--monotonic", "age=-1"],
     "--monotonic gives \\['age'\\] more than once"),
    (["--pairs", "waist,heigth"], "--pairs: 'heigth' is not a feature column"),
    (["--pairs", "waist,"], "expected columns separated by commas"),
    (["--pairs", "waist,height", "--model", "tao", "--ccp-alpha", "0.01"],
     "--ccp-alpha applies to greedy trees"),
])
def test_command_line_names_unknown_columns(tmp_path, capsys, args, message):
    path, _ = _table(tmp_path)
    try:  # a malformed option is argparse's exit, a bad column the command's error status
        status = main(["fit", str(path), "--target", "target", "-o", str(tmp_path / "m.json"),
                       *args])
    except SystemExit as exc:
        status = exc.code
    assert status != 0
    assert re.search(message, capsys.readouterr().err)
    assert not (tmp_path / "m.json").exists()


@pytest.mark.parametrize("cls", [BivariateTreeClassifier, BivariateTreeRegressor])
def test_merging_equal_leaves_changes_no_prediction(cls):
    """Sibling leaves of one prediction are merged into their parent, and no input (missing
    values included) is predicted otherwise; a monotone fit has no such siblings left."""
    from bivtree.tree import merge_equal_leaves

    X, y_clf, y_reg = make_data(3, n=300, missing=0.1)
    classifier = cls is BivariateTreeClassifier
    est = fit(cls, "orientations", X, y_clf if classifier else y_reg, monotonic_cst=[1, -1, 0, 0])
    assert merge_equal_leaves(est.tree_, classifier) is est.tree_  # merged at fit already
    rows = np.vstack([X, np.random.default_rng(1).normal(size=(200, X.shape[1]))])
    rows[::7, 0] = np.nan
    tree = est.tree_
    value = tree.value.copy()
    leaves = set(np.flatnonzero(tree.children_left < 0).tolist())
    parent = next(p for p in range(tree.node_count)
                  if tree.children_left[p] in leaves and tree.children_right[p] in leaves)
    left, right = tree.children_left[parent], tree.children_right[parent]
    # give the right leaf the left one's prediction (a classifier: its class shares)
    value[right] = (value[left] / value[left].sum() * value[right].sum() if classifier
                    else value[left])
    alike = type(tree)(tree.children_left, tree.children_right, tree.features, tree.weights,
                       tree.threshold, tree.impurity, tree.n_node_samples,
                       tree.weighted_n_node_samples, value, tree.n_features,
                       tree.category_mask, tree.missing_go_left if tree.missing_learned else None)
    smaller = merge_equal_leaves(alike, classifier)
    assert smaller.node_count <= alike.node_count - 2
    before, after = alike.predict(rows), smaller.predict(rows)
    if classifier:
        before = before / before.sum(axis=1, keepdims=True)
        after = after / after.sum(axis=1, keepdims=True)
    np.testing.assert_allclose(after, before, rtol=1e-12, atol=1e-12)


def test_the_page_and_the_plot_state_the_constraints():
    """The interactive page's summary and plot_tree's picture say what the model was held to."""
    pytest.importorskip("matplotlib")
    import matplotlib

    matplotlib.use("Agg")
    from bivtree import export_html, plot_tree

    X, y_clf, _ = make_data(5, n=200)
    clf = BivariateTreeClassifier(max_depth=2, monotonic_cst=[1, 0, 0, 0],
                                  interaction_cst=[[0, 1], [2, 3]]).fit(X, y_clf)
    line = fitted_constraints(clf)
    assert line.startswith("monotonic: x0 increasing")
    page = export_html(clf, X, y_clf)
    assert json.dumps(line)[1:-1] in page
    free_page = export_html(BivariateTreeClassifier(max_depth=2).fit(X, y_clf))
    assert re.search(r'"constraints":\s*null', free_page)
    ax = plot_tree(clf, X, y_clf)
    texts = [t.get_text() for t in ax.texts]
    assert any(t.startswith("fitted under monotonic: x0 increasing") for t in texts)
    free = plot_tree(BivariateTreeClassifier(max_depth=2).fit(X, y_clf), X, y_clf)
    assert not any("fitted under" in t.get_text() for t in free.texts)
