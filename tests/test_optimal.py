"""The "optimal" splitter: BiDT's branch and bound and the exact rotational sweep.

Both must find the exact best split over every univariate cut and every line
in every feature pair: the brute force of ``naive.best_optimal`` (all angular
intervals between critical directions, every cut) is the oracle. The stored
rule must make the partition it was scored on.
"""

import math
import sys
from pathlib import Path

import numpy as np
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from numba import njit

from bivtree import BivariateTreeClassifier
from bivtree._config import CLASSIFICATION_CRITERIA, SQUARED_ERROR
from bivtree._kernels.sweep import (
    best_split_2d,
    merge_points,
    node_statistics,
    slope_events,
    sweep_points,
)
from bivtree.splitters import SplitData, get_splitter

sys.path.insert(0, str(Path(__file__).parent))
import naive

CRITERIA = ("gini", "entropy", "misclassification")
METHODS = ("branch_and_bound", "sweep")


# ------------------------------------------------------------------ helpers
def split_data(X, y, w, criterion, n_classes, min_samples_leaf=1, min_weight_leaf=0.0):
    n = X.shape[0]
    if criterion == "squared_error":
        labels, targets, code = np.zeros(n, np.int64), np.asarray(y, float), SQUARED_ERROR
    else:
        labels, targets = np.asarray(y, np.int64), np.zeros(n)
        code = CLASSIFICATION_CRITERIA[criterion]
    return SplitData(X=np.asfortranarray(X, dtype=float), labels=labels, targets=targets,
                     sample_weight=np.asarray(w, float), n_classes=n_classes, criterion=code,
                     min_samples_leaf=min_samples_leaf, min_weight_leaf=min_weight_leaf)


def search(data, method, **options):
    splitter = get_splitter("optimal", method=method, **options)
    splitter.prepare(data)
    n, d = data.X.shape
    return splitter.find_split(data, np.arange(n, dtype=np.int64), np.arange(d, dtype=np.int64))


def routed_objective(split, X, y, w, criterion, n_classes):
    """``G`` of the partition the stored rule makes (``x . w <= t`` left, as the tree routes)."""
    used = split.features >= 0
    proj = np.zeros(X.shape[0])
    for f, c in zip(split.features[used], split.weights[used]):
        proj = proj + c * X[:, f]
    return naive.weighted_child_impurity(proj <= split.threshold, y, w, criterion, n_classes)


def close(a, b, scale):
    return abs(a - b) <= 1e-9 * max(abs(a), abs(b), scale)


@st.composite
def node_data(draw, regression=False):
    """Small data sets, many of them degenerate: integer and decimal grids, duplicates,
    collinear points."""
    n = draw(st.integers(3, 13))
    d = draw(st.integers(2, 3))
    kind = draw(st.sampled_from(["integer", "float", "collinear", "duplicates", "decimal"]))
    seed = draw(st.integers(0, 2 ** 32 - 1))
    rng = np.random.default_rng(seed)
    if kind == "integer":
        X = rng.integers(-2, 3, size=(n, d)).astype(float)
    elif kind == "float":
        X = rng.normal(size=(n, d))
    elif kind == "collinear":
        t = rng.integers(-3, 4, size=n).astype(float)
        X = np.column_stack([t, 2.0 * t - 1.0] + [rng.integers(0, 3, n) for _ in range(d - 2)])
        X[: n // 3] = rng.integers(-3, 4, size=(n // 3, d))  # a few points off the line
    elif kind == "duplicates":
        base = rng.normal(size=(max(2, n // 3), d)).round(1)
        X = base[rng.integers(0, base.shape[0], size=n)]
    else:  # decimals: collinear in decimal, not exactly in binary
        X = rng.integers(-15, 16, size=(n, d)) / 10.0
    if regression:
        y = rng.normal(size=n).round(2)
        n_classes = 1
    else:
        n_classes = draw(st.integers(2, 5))
        y = rng.integers(0, n_classes, size=n)
    weighting = draw(st.sampled_from(["ones", "integers", "floats"]))
    w = {"ones": np.ones(n), "integers": rng.integers(1, 4, size=n).astype(float),
         "floats": rng.uniform(0.2, 2.0, size=n)}[weighting]
    return X, y, w, n_classes


# ---------------------------------------------- exactness against brute force
@settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(data=node_data(), criterion=st.sampled_from(CRITERIA), msl=st.sampled_from([1, 1, 2]),
       bound=st.sampled_from(["vertex", "paper"]))
def test_branch_and_bound_sweep_and_brute_force_agree(data, criterion, msl, bound):
    X, y, w, n_classes = data
    exact = naive.best_optimal(X, y, w, criterion, n_classes, min_samples_leaf=msl)
    sd = split_data(X, y, w, criterion, n_classes, min_samples_leaf=msl)
    for method in METHODS:
        split = search(sd, method, **({"bound": bound} if method == METHODS[0] else {}))
        if not math.isfinite(exact):
            assert split is None
            continue
        assert close(split.objective, exact, w.sum()), (method, split.objective, exact)
        assert close(routed_objective(split, X, y, w, criterion, n_classes), split.objective,
                     w.sum())
        assert split.info["gap"] == 0.0 and split.info["complete"]


@settings(max_examples=40, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(data=node_data(regression=True))
def test_sweep_is_exact_for_squared_error(data):
    X, y, w, _ = data
    exact = naive.best_optimal(X, y, w, "squared_error", 1)
    split = search(split_data(X, y, w, "squared_error", 1), "sweep")
    if not math.isfinite(exact):  # every point the same: nothing to split
        assert split is None
        return
    scale = float(np.sum(w * y * y)) + w.sum()
    assert close(split.objective, exact, scale)
    assert close(routed_objective(split, X, y, w, "squared_error", 1), split.objective, scale)


def test_pairs_handed_to_the_sweep_stay_exact(monkeypatch):
    # a pair whose search outgrows its budget is solved by the sweep: force it for all
    from bivtree.splitters import optimal
    monkeypatch.setattr(optimal, "SWEEP_MIN_BOXES", 0)
    monkeypatch.setattr(optimal, "SWEEP_BOX_RATIO", 10 ** 9)
    rng = np.random.default_rng(11)
    for trial in range(4):
        X = rng.integers(0, 5, size=(14, 3)).astype(float)
        y = rng.integers(0, 3, size=14)
        w = rng.integers(1, 3, size=14).astype(float)
        exact = naive.best_optimal(X, y, w, "entropy", 3)
        split = search(split_data(X, y, w, "entropy", 3), "branch_and_bound")
        assert split.info["n_swept_pairs"] == 3
        assert close(split.objective, exact, w.sum())
        assert close(routed_objective(split, X, y, w, "entropy", 3), split.objective, w.sum())


def test_min_weight_leaf_is_honoured():
    rng = np.random.default_rng(3)
    X = rng.integers(0, 4, size=(12, 3)).astype(float)
    y = rng.integers(0, 3, size=12)
    w = rng.uniform(0.5, 3.0, size=12)
    mwl = 0.3 * w.sum()
    exact = naive.best_optimal(X, y, w, "gini", 3, min_weight_leaf=mwl)
    for method in METHODS:
        split = search(split_data(X, y, w, "gini", 3, min_weight_leaf=mwl), method)
        assert close(split.objective, exact, w.sum())


def test_regression_rejects_branch_and_bound():
    X = np.random.default_rng(0).normal(size=(10, 2))
    with pytest.raises(ValueError, match="concave impurity.*sweep"):
        search(split_data(X, X[:, 0], np.ones(10), "squared_error", 1), "branch_and_bound")


# --------------------------------------------------------- the sweep, reusable
def test_best_split_2d_zero_one_objective():
    # tree alternating optimization's reduced problem: weighted 0/1 loss of pseudolabels
    rng = np.random.default_rng(1)
    P = rng.integers(0, 6, size=(40, 2)).astype(float)
    prefers_left = (P[:, 0] - 0.5 * P[:, 1] + rng.normal(scale=1.0, size=40)) < 1.0
    wt = rng.uniform(0.5, 2.0, size=40)
    stats = np.column_stack([wt * prefers_left, wt * ~prefers_left, np.ones(40)])
    res = best_split_2d(P, stats, "zero_one")
    loss = float(np.sum(wt[res.left & ~prefers_left]) + np.sum(wt[~res.left & prefers_left]))
    assert math.isclose(res.value, loss, rel_tol=1e-12, abs_tol=1e-12)
    assert math.isclose(res.value, res.optimum, rel_tol=1e-12, abs_tol=1e-12)
    # brute force over every line
    best = math.inf
    span = P.max(axis=0) - P.min(axis=0)
    for t in naive.interval_directions(P / span):
        v = P[:, 0] / span[0] * math.cos(t) + P[:, 1] / span[1] * math.sin(t)
        for c in np.unique(v)[:-1]:
            left = v <= c
            best = min(best, float(np.sum(wt[left & ~prefers_left])
                                   + np.sum(wt[~left & prefers_left])))
    assert res.value <= best + 1e-12
    np.testing.assert_array_equal(res.left, res.weights @ P.T <= res.threshold)


def test_best_split_2d_custom_objective():
    # a user objective compiled on the spot: the number of points on the smaller side
    @njit
    def smaller_side(left, right, params):
        return min(left[0], right[0]) if left[0] >= 1 and right[0] >= 1 else np.inf

    P = np.array([[0.0, 0.0], [1.0, 0.0], [0.0, 1.0], [5.0, 5.0]])
    res = best_split_2d(P, np.ones((4, 1)), smaller_side)
    assert res.value == 1.0
    assert res.left.sum() in (1, 3)


def test_best_split_2d_bad_input():
    P = np.zeros((3, 2))
    with pytest.raises(ValueError, match="shape"):
        best_split_2d(np.zeros((3, 3)), np.ones((3, 2)), "gini")
    with pytest.raises(ValueError, match="NaN"):
        best_split_2d(np.full((3, 2), np.nan), np.ones((3, 2)), "gini")
    with pytest.raises(ValueError, match="unknown objective"):
        best_split_2d(P, np.ones((3, 2)), "hinge")
    with pytest.raises(ValueError, match="stats"):
        best_split_2d(P, np.ones((2, 2)), "gini")


@settings(max_examples=150, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(data=node_data(), criterion=st.sampled_from((*CRITERIA, "squared_error")),
       msl=st.sampled_from([1, 1, 2]), held=st.booleans())
def test_sorted_slopes_and_heap_make_the_same_swaps(data, criterion, msl, held):
    # the two schedules of the sweep's swaps (every pair's slope sorted once, or the heap
    # of adjacent pairs) must give the same answer bit for bit, on degenerate points too
    # (duplicates, collinear blocks, slopes equal only in decimal)
    X, y, w, n_classes = data
    if criterion == "squared_error":
        labels, targets, n_classes = np.zeros(len(y), np.int64), np.asarray(y, float) * 1.5 + 0.25, 1
        code = SQUARED_ERROR
    else:
        labels, targets = np.asarray(y, np.int64), np.zeros(len(y))
        code = CLASSIFICATION_CRITERIA[criterion]
    stats = node_statistics(labels, targets, np.asarray(w, float), n_classes, code)
    rows_held = stats[: stats.shape[0] // 3].sum(axis=0) if held else np.zeros(stats.shape[1])
    params = np.array([float(msl), 0.0])
    stop = np.zeros(1, dtype=np.int64)
    u, v = np.ascontiguousarray(X[:, 0]), np.ascontiguousarray(X[:, 1])
    by_heap = sweep_points(u, v, stats, rows_held, held, code, params, stop, 0)
    by_slope = sweep_points(u, v, stats, rows_held, held, code, params, stop, 10 ** 6)
    assert repr(by_heap) == repr(by_slope)
    assert by_slope == sweep_points(u, v, stats, rows_held, held, code, params, stop)


def test_sorted_slopes_leave_coordinates_near_overflow_to_the_heap():
    # slopes that overflow to infinity cannot be sorted: the heap schedules those sweeps
    rng = np.random.default_rng(3)
    u = rng.uniform(-1.0, 1.0, 40) * 1e308
    v = rng.integers(0, 5, 40) * 1e-300
    stats = node_statistics(rng.integers(0, 2, 40), np.zeros(40), np.ones(40), 2,
                            CLASSIFICATION_CRITERIA["gini"])
    assert not slope_events(*merge_points(u, v, stats)[:2])[3]
    args = (u, v, stats, np.zeros(3), False, CLASSIFICATION_CRITERIA["gini"],
            np.array([1.0, 0.0]), np.zeros(1, dtype=np.int64))
    assert repr(sweep_points(*args, 0)) == repr(sweep_points(*args))


# ------------------------------------------------------------ early stopping
@pytest.mark.parametrize("epsilon", [0.05, 0.3])
def test_epsilon_guarantee(epsilon):
    rng = np.random.default_rng(7)
    for trial in range(6):
        X = rng.normal(size=(120, 3))
        y = (X[:, 0] - 0.7 * X[:, 1] + 0.6 * rng.normal(size=120) > 0).astype(int)
        y[X[:, 2] > 1.0] = 2
        w = np.ones(120)
        sd = split_data(X, y, w, "entropy", 3)
        exact = search(sd, "sweep").objective
        split = search(sd, "branch_and_bound", epsilon=epsilon)
        tol = 1e-9 * w.sum()
        assert (1.0 - epsilon) * split.objective <= exact + tol
        assert split.info["lower_bound"] <= exact + tol
        assert split.info["gap"] <= epsilon + 1e-12
        assert split.objective >= exact - tol


def test_time_limit_reports_a_proven_gap():
    rng = np.random.default_rng(2)
    X = rng.normal(size=(300, 4))
    y = (X[:, 0] + X[:, 1] * X[:, 2] > 0).astype(int)
    sd = split_data(X, y, np.ones(300), "gini", 2)
    exact = search(sd, "sweep").objective
    split = search(sd, "branch_and_bound", time_limit=0.0)  # stops at once
    assert not split.info["complete"]
    assert split.info["lower_bound"] <= exact + 1e-9
    assert split.info["gap"] >= (split.objective - exact) / split.objective - 1e-12
    assert close(routed_objective(split, X, y, np.ones(300), "gini", 2), split.objective, 300)
    # a whole fit on an exhausted budget still grows a valid tree and says how far it is
    # (kernels compiled first: a first compilation inside the fit would spend its grace
    # period before the root's search, leaving a one-leaf tree)
    BivariateTreeClassifier(splitter="optimal", max_depth=2).fit(X, y)
    clf = BivariateTreeClassifier(splitter="optimal", max_depth=2,
                                  splitter_options={"fit_time_limit": 0.0}).fit(X, y)
    assert clf.optimality_gap_ > 0.0
    assert all(info is None or not info["complete"] for info in clf.split_info_)


@pytest.mark.parametrize("options, message", [
    ({"method": "magic"}, "method"),
    ({"bound": "tight"}, "bound"),
    ({"epsilon": 1.0}, "epsilon"),
    ({"epsilon": -0.1}, "epsilon"),
    ({"epsilon": "0.1"}, "epsilon"),
    ({"time_limit": -1.0}, "time_limit"),
    ({"fit_time_limit": np.inf}, "fit_time_limit"),
    ({"verbose": 0.5}, "verbose"),
])
def test_bad_options_are_named(options, message):
    X = np.random.default_rng(0).normal(size=(20, 3))
    y = (X[:, 0] > 0).astype(int)
    with pytest.raises(ValueError, match=message):
        BivariateTreeClassifier(splitter="optimal", splitter_options=options).fit(X, y)


# -------------------------------------------------------------------- trees
def test_one_and_two_threads_grow_identical_trees(monkeypatch):
    # every node searched in parallel, in rounds of two pairs
    from bivtree.splitters import optimal
    monkeypatch.setattr(optimal, "PARALLEL_MIN_WORK", 0)
    monkeypatch.setattr(optimal, "PAIRS_PER_ROUND", 2)
    monkeypatch.setattr(optimal, "ROUND_WORK", 0)
    rng = np.random.default_rng(5)
    X = rng.normal(size=(250, 5)).round(2)
    y = (X[:, 0] + 0.5 * X[:, 1] > 0.3 * X[:, 2] ** 2).astype(int) + (X[:, 3] > 1.2)
    for options in ({"method": "branch_and_bound"}, {"method": "branch_and_bound",
                                                     "epsilon": 0.2}, {"method": "sweep"}):
        one = BivariateTreeClassifier(splitter="optimal", splitter_options=options,
                                      n_jobs=1).fit(X, y)
        two = BivariateTreeClassifier(splitter="optimal", splitter_options=options,
                                      n_jobs=2).fit(X, y)
        assert one.tree_ == two.tree_
        assert one.optimality_gap_ <= options.get("epsilon", 0.0) + 1e-12


def test_monks_1_is_captured_by_three_splits():
    """BiDT section 7: a univariate root ``a5 <= 1.5`` and two bivariate splits on a1, a2."""
    try:
        from bivtree.datasets import make_monks
        X, y = make_monks(1)
    except ImportError:  # pragma: no cover - the generator ships with bivtree.datasets
        import itertools
        X = np.array(list(itertools.product(range(1, 4), range(1, 4), range(1, 3), range(1, 4),
                                            range(1, 5), range(1, 3))), dtype=float)
        y = ((X[:, 0] == X[:, 1]) | (X[:, 4] == 1)).astype(int)
    for method in METHODS:
        clf = BivariateTreeClassifier(splitter="optimal",
                                      splitter_options={"method": method}).fit(X, y)
        tree = clf.tree_
        assert tree.n_leaves == 4
        assert clf.score(X, y) == 1.0
        assert list(tree.features[0]) == [4, -1] and 1.0 < tree.threshold[0] < 2.0
        inner = np.flatnonzero(~tree.is_leaf)[1:]
        for node in inner:
            assert sorted(tree.features[node]) == [0, 1]
        assert clf.optimality_gap_ == 0.0


def test_split_info_follows_pruning():
    rng = np.random.default_rng(4)
    X = rng.normal(size=(150, 3))
    y = (X[:, 0] * X[:, 1] > 0).astype(int)
    full = BivariateTreeClassifier(splitter="optimal").fit(X, y)
    pruned = BivariateTreeClassifier(splitter="optimal", ccp_alpha=0.01).fit(X, y)
    assert pruned.tree_.node_count < full.tree_.node_count
    for clf in (full, pruned):
        tree = clf.tree_
        assert len(clf.split_info_) == tree.node_count
        for node, info in enumerate(clf.split_info_):
            assert (info is None) == bool(tree.is_leaf[node])
            if info is not None:
                assert info["n_pairs"] == 3 and info["gap"] == 0.0
    # the kept nodes carry their own searches' reports
    for clf in (full, pruned):
        tree = clf.tree_
        for node, info in enumerate(clf.split_info_):
            if info is not None:
                assert info["lower_bound"] == pytest.approx(
                    tree.weighted_n_node_samples[tree.children_left[node]]
                    * tree.impurity[tree.children_left[node]]
                    + tree.weighted_n_node_samples[tree.children_right[node]]
                    * tree.impurity[tree.children_right[node]], rel=1e-9)


def test_verbose_reports_searches(capsys):
    X = np.random.default_rng(0).normal(size=(40, 3))
    y = (X[:, 0] + X[:, 1] > 0).astype(int)
    BivariateTreeClassifier(splitter="optimal", max_depth=1, verbose=2).fit(X, y)
    assert "optimal split" in capsys.readouterr().out


# ------------------------------------------------------ bounds of stopped searches
def three_class_data(n, seed, noise=0.5):
    """Three overlapping classes: the root bound of gini and entropy is positive."""
    rng = np.random.default_rng(seed)
    X = rng.normal(size=(n, 3))
    y = (X[:, 0] + 0.8 * X[:, 1] + noise * rng.normal(size=n) > 0).astype(int)
    y[X[:, 2] - 0.6 * X[:, 0] + (noise - 0.5) * rng.normal(size=n) > 0.8] = 2
    return X, y


def root_bound(y, w, criterion, n_classes):
    from bivtree._kernels.bnb_bounds import root_lower_bound
    counts = np.bincount(y, weights=w, minlength=n_classes)
    return root_lower_bound(counts, CLASSIFICATION_CRITERIA[criterion])


@pytest.mark.parametrize("method", METHODS)
def test_finished_search_reports_no_gap(method):
    X, y = three_class_data(200, 1)
    sd = split_data(X, y, np.ones(200), "gini", 3)
    for options in ({}, {"time_limit": 1e6}, {"fit_time_limit": 1e6}):
        split = search(sd, method, **options)
        assert split.info["complete"]
        assert split.info["gap"] == 0.0
        assert split.info["lower_bound"] == split.objective


@pytest.mark.parametrize("criterion", ["gini", "entropy"])
def test_pair_stopped_mid_search_proves_a_valid_bound(criterion):
    # a raised flag is first read after a fixed number of subproblems, so the stop
    # happens at the same box on every run
    from bivtree._kernels import bnb_search as bnb
    from bivtree._kernels.bnb_bounds import VERTEX
    X, y = three_class_data(1500, 3, noise=2.0)  # about a thousand subproblems
    n = X.shape[0]
    P = np.zeros((n, 4))
    P[np.arange(n), y] = 1.0
    P[:, 3] = 1.0
    code = CLASSIFICATION_CRITERIA[criterion]
    Z, order, rank, _, _ = bnb.node_features(np.asfortranarray(X), np.arange(n), np.arange(3))
    u, v, S = bnb.merge_pair(Z, order, rank, 0, 2, P)
    none = np.zeros(4)  # no rows held aside
    args = (u, v, S, none, none, 3, code, 1.0, 0.0, np.inf, 0.0, VERTEX, -1)
    exact, *_, status = bnb.bnb_ordered_pair(*args, np.zeros(1, np.int64))
    assert status == bnb.COMPLETE
    best, _, _, lb_open, n_boxes, status = bnb.bnb_ordered_pair(*args, np.ones(1, np.int64))
    assert status == bnb.STOPPED and n_boxes > 0
    tol = 1e-9 * n
    assert lb_open <= exact + tol <= best + 2 * tol
    assert lb_open >= root_bound(y, np.ones(n), criterion, 3) - tol
    assert lb_open > 0.0


@pytest.mark.parametrize("method", METHODS)
def test_search_stopped_before_its_pairs_reports_the_root_bound(method, monkeypatch):
    # a flag raised before the search starts: every pair is left untouched
    from bivtree.splitters import optimal

    class RaisedTimer:
        def __init__(self, seconds):
            self.flag = np.ones(1, dtype=np.int64)

        def cancel(self):
            pass

    X, y = three_class_data(300, 5)
    w = np.ones(300)
    sd = split_data(X, y, w, "gini", 3)
    exact = search(sd, "sweep").objective
    root = root_bound(y, w, "gini", 3)
    assert 0.0 < root < exact
    for options, patch in (({"time_limit": 1e6}, True), ({"time_limit": 0.0}, False),
                           ({"fit_time_limit": 0.0}, False)):
        with monkeypatch.context() as m:
            if patch:
                m.setattr(optimal, "StopTimer", RaisedTimer)
            split = search(sd, method, **options)
        info = split.info
        assert not info["complete"] and info["n_pairs"] == 3
        assert info["lower_bound"] == pytest.approx(root, rel=1e-12)
        assert info["lower_bound"] <= exact + 1e-9 <= split.objective + 2e-9
        assert info["gap"] == pytest.approx((split.objective - root) / split.objective)
        assert close(routed_objective(split, X, y, w, "gini", 3), split.objective, 300)


def check_tree_and_reports(clf, X):
    tree = clf.tree_
    assert len(clf.split_info_) == tree.node_count
    assert np.all(np.isin(clf.predict(X), clf.classes_))
    for node, info in enumerate(clf.split_info_):
        assert (info is None) == bool(tree.is_leaf[node])
        if info is not None:
            assert 0.0 <= info["gap"] <= 1.0 and info["lower_bound"] >= 0.0


def test_fit_time_limit_grows_a_valid_tree(monkeypatch):
    from bivtree.splitters import optimal
    X, y = three_class_data(400, 6)
    for limit in (0.0, 0.05):
        clf = BivariateTreeClassifier(splitter="optimal",
                                      splitter_options={"fit_time_limit": limit}).fit(X, y)
        check_tree_and_reports(clf, X)
    # once the limit and its grace are spent the remaining nodes are leaves: here all
    monkeypatch.setattr(optimal, "FIT_LIMIT_GRACE_FRACTION", 0.0)
    monkeypatch.setattr(optimal, "FIT_LIMIT_GRACE_SECONDS", 0.0)
    clf = BivariateTreeClassifier(splitter="optimal",
                                  splitter_options={"fit_time_limit": 0.0}).fit(X, y)
    assert clf.tree_.node_count == 1
    assert np.all(clf.predict(X) == np.bincount(y).argmax())
    assert clf.optimality_gap_ is None


# ================================================================ missing values
# NaN in X is a missing value. The exact searches are exact for the problem with
# missing values: per pair, every line partition of the pair's complete rows times
# the side of the rows missing either feature; per feature, every cut times the side
# of its missing rows (naive.best_optimal_missing).
def with_missing(X, fraction, seed):
    X = np.array(X, dtype=float)
    rng = np.random.default_rng(seed)
    X[rng.uniform(size=X.shape) < fraction] = np.nan
    return X


def missing_split_data(X, y, w, criterion, n_classes, **kwargs):
    data = split_data(X, y, w, criterion, n_classes, **kwargs)
    data.has_missing = bool(np.isnan(X).any())
    return data


def routed_objective_missing(split, X, y, w, criterion, n_classes):
    """``G`` of the partition the stored rule makes, a row missing a used feature on the
    split's missing side (the tree's routing)."""
    used = split.features >= 0
    proj = np.zeros(X.shape[0])
    for f, c in zip(split.features[used], split.weights[used]):
        proj = proj + c * X[:, f]
    left = np.where(np.isnan(proj), split.missing_left, proj <= split.threshold)
    return naive.weighted_child_impurity(left, y, w, criterion, n_classes)


@settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(data=node_data(), criterion=st.sampled_from(CRITERIA), msl=st.sampled_from([1, 1, 2]),
       bound=st.sampled_from(["vertex", "paper"]), fraction=st.sampled_from([0.1, 0.25, 0.5]),
       seed=st.integers(0, 2 ** 32 - 1))
def test_exact_with_missing_values(data, criterion, msl, bound, fraction, seed):
    X, y, w, n_classes = data
    X = with_missing(X, fraction, seed)
    exact = naive.best_optimal_missing(X, y, w, criterion, n_classes, min_samples_leaf=msl)
    sd = missing_split_data(X, y, w, criterion, n_classes, min_samples_leaf=msl)
    for method in METHODS:
        split = search(sd, method, **({"bound": bound} if method == METHODS[0] else {}))
        if not math.isfinite(exact):
            assert split is None
            continue
        assert close(split.objective, exact, w.sum()), (method, split.objective, exact)
        assert close(routed_objective_missing(split, X, y, w, criterion, n_classes),
                     split.objective, w.sum())
        assert split.info["gap"] == 0.0 and split.info["complete"]


@settings(max_examples=40, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(data=node_data(regression=True), fraction=st.sampled_from([0.1, 0.3]),
       seed=st.integers(0, 2 ** 32 - 1))
def test_sweep_is_exact_for_squared_error_with_missing_values(data, fraction, seed):
    X, y, w, _ = data
    X = with_missing(X, fraction, seed)
    exact = naive.best_optimal_missing(X, y, w, "squared_error", 1)
    split = search(missing_split_data(X, y, w, "squared_error", 1), "sweep")
    if not math.isfinite(exact):
        assert split is None
        return
    scale = float(np.sum(w * y * y)) + w.sum()
    assert close(split.objective, exact, scale)
    assert close(routed_objective_missing(split, X, y, w, "squared_error", 1), split.objective,
                 scale)


@pytest.mark.parametrize("seed", range(6))
def test_missing_block_can_make_the_best_split(seed):
    # the class sits on the rows missing either feature of the pair (0, 1): the best
    # split is bivariate, "complete rows against the rest", which no univariate cut
    # makes (each feature's own missing rows are only half of the block)
    rng = np.random.default_rng(seed)
    n = 40
    X = rng.normal(size=(n, 3))
    y = np.zeros(n, dtype=np.int64)
    X[:10, 0] = np.nan
    X[10:20, 1] = np.nan
    y[:20] = 1
    w = np.ones(n)
    exact = naive.best_optimal_missing(X, y, w, "gini", 2)
    assert exact == 0.0
    sd = missing_split_data(X, y, w, "gini", 2)
    for method in METHODS:
        split = search(sd, method)
        assert split.objective == 0.0 and sorted(split.features) == [0, 1]
        assert routed_objective_missing(split, X, y, w, "gini", 2) == 0.0


def test_pairs_handed_to_the_sweep_stay_exact_with_missing_values(monkeypatch):
    from bivtree.splitters import optimal
    monkeypatch.setattr(optimal, "SWEEP_MIN_BOXES", 0)
    monkeypatch.setattr(optimal, "SWEEP_BOX_RATIO", 10 ** 9)
    rng = np.random.default_rng(12)
    for trial in range(4):
        X = with_missing(rng.integers(0, 5, size=(16, 3)).astype(float), 0.2, trial)
        y = rng.integers(0, 3, size=16)
        w = rng.integers(1, 3, size=16).astype(float)
        exact = naive.best_optimal_missing(X, y, w, "entropy", 3)
        split = search(missing_split_data(X, y, w, "entropy", 3), "branch_and_bound")
        assert split.info["n_swept_pairs"] >= 1
        assert close(split.objective, exact, w.sum())
        assert close(routed_objective_missing(split, X, y, w, "entropy", 3), split.objective,
                     w.sum())


def test_epsilon_and_time_limit_with_missing_values():
    X, y = three_class_data(300, 3, noise=2.0)
    X = with_missing(X, 0.15, 5)
    w = np.ones(len(y))
    sd = missing_split_data(X, y, w, "gini", 3)
    exact = search(sd, "branch_and_bound")
    assert exact.info["gap"] == 0.0
    for epsilon in (0.05, 0.3):
        split = search(sd, "branch_and_bound", epsilon=epsilon)
        assert (1.0 - epsilon) * split.objective <= exact.objective + 1e-9 * w.sum()
        assert split.info["lower_bound"] <= exact.objective + 1e-9 * w.sum()
        assert close(routed_objective_missing(split, X, y, w, "gini", 3), split.objective,
                     w.sum())
    for method in METHODS:
        # no time at all: the best univariate split, with the root bound as proven bound
        split = search(sd, method, time_limit=0.0)
        assert split.objective >= exact.objective - 1e-9 * w.sum()
        assert split.info["lower_bound"] <= exact.objective + 1e-9 * w.sum()
        assert close(routed_objective_missing(split, X, y, w, "gini", 3), split.objective,
                     w.sum())


@pytest.mark.parametrize("method", METHODS)
def test_tree_stores_the_scored_missing_side(method):
    X, y = three_class_data(200, 3, noise=1.0)
    X = with_missing(X, 0.2, 8)
    clf = BivariateTreeClassifier(splitter="optimal", max_depth=3,
                                  splitter_options={"method": method}).fit(X, y)
    tree = clf.tree_
    assert tree.missing_learned
    assert clf.optimality_gap_ == 0.0
    # the root's split, searched again on the whole data, is what the tree stores
    w = np.ones(len(y))
    split = search(missing_split_data(X, y, w, "gini", 3), method)
    np.testing.assert_array_equal(tree.features[0][:2], split.features)
    assert bool(tree.missing_go_left[0]) == split.missing_left
    leaves = clf.apply(X)  # routed by the tree itself
    left_child = tree.children_left[0]
    left = np.isin(leaves, _subtree_leaves(tree, left_child))
    assert close(naive.weighted_child_impurity(left, y, w, "gini", 3), split.objective,
                 w.sum())
    assert np.isfinite(clf.predict_proba(X)).all()


def _subtree_leaves(tree, node):
    stack, out = [node], []
    while stack:
        i = stack.pop()
        if tree.children_left[i] < 0:
            out.append(i)
        else:
            stack.extend([tree.children_left[i], tree.children_right[i]])
    return out


def test_keel_set_with_removed_values_fits_and_predicts():
    from bivtree.datasets import load_keel
    X, y = load_keel("pima")
    X = with_missing(X, 0.1, 0)
    clf = BivariateTreeClassifier(splitter="optimal", max_depth=3).fit(X[:500], y[:500])
    assert clf.tree_.missing_learned and clf.optimality_gap_ == 0.0
    assert np.any(clf.tree_.n_node_features == 2)
    proba = clf.predict_proba(X[500:])
    assert np.isfinite(proba).all() and np.allclose(proba.sum(axis=1), 1.0)
    prior = np.unique(y[:500], return_counts=True)[1].max() / 500
    assert clf.score(X[:500], y[:500]) > prior
