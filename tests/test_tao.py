"""Bivariate TAO: reduced problems against brute force, descent, the path, the estimators."""

import copy
import io
import math
from contextlib import redirect_stdout

import numpy as np
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from numba import njit

import naive
from bivtree import (
    BivariateTreeClassifier,
    BivariateTreeRegressor,
    TAOTreeClassifier,
    TAOTreeRegressor,
    Tree,
    tao_path,
)
from bivtree._config import GINI
from bivtree._kernels.scan import criterion_cuts, cut_proxy_bound, scan_sorted
from bivtree._kernels.tao import (
    BOUND_BINS,
    CareSets,
    PseudolabelCuts,
    SearchSpace,
    _refined_pair_item,
    all_items,
    child_losses,
    pseudolabel_proxy_bound,
    rule_errors,
    search_items,
)
from bivtree.splitters._base import candidate_pairs
from bivtree.splitters.orientations import orientation_directions
from bivtree.tao.optimizer import (
    BIVARIATE,
    LEAF,
    UNIVARIATE,
    ZERO_VARIATE,
    TAOData,
    TAOOptimizer,
    TAOState,
    change_bound,
    option_losses,
    pruned_for_objective,
    pseudolabels,
    state_to_tree,
)
from bivtree.tree import subtree

SETTINGS = settings(max_examples=25, deadline=None,
                    suppress_health_check=[HealthCheck.too_slow])


@njit
def criterion_bound(values, cuts):
    return cut_proxy_bound(values, cuts, np.empty((16, 2)))


def blobs(n, d, n_classes, seed, integer=False):
    rng = np.random.default_rng(seed)
    X = rng.normal(size=(n, d))
    if integer:
        X = rng.integers(0, 5, size=(n, d)).astype(float)
    y = ((X[:, 0] + 0.7 * X[:, 1 % d] + 0.5 * rng.normal(size=n)) > 0).astype(int)
    if n_classes > 2:
        y = y + (X[:, -1] > 0.8).astype(int)
    return X, y


# ------------------------------------------------------------ reduced problem
def search_one_node(X, prefers_right, w, exact, n_orientations=8, n_coarse=0,
                    refine_rounds=0):
    """:func:`search_items` of every item of one node (``n_coarse > 0``: coarse to fine)."""
    n, d = X.shape
    Xf = np.asfortranarray(X, dtype=float)
    care = CareSets(np.arange(n, dtype=np.int64), prefers_right.astype(np.int64), w,
                    np.array([0, n], dtype=np.int64))
    features = np.arange(d, dtype=np.int64)
    pj, pk = candidate_pairs(features)
    space = SearchSpace(features, pj, pk, *orientation_directions(n_orientations), n_coarse,
                        refine_rounds)
    found = search_items(Xf, care, np.array([exact]), space, all_items(1, d + pj.size))
    return Xf, care, found


def solve_reduced(X, prefers_right, w, exact, n_orientations=8, n_coarse=0, refine_rounds=0):
    """The kernels' best zero-, uni- and bivariate pseudolabel errors on one node."""
    Xf, care, found = search_one_node(X, prefers_right, w, exact, n_orientations, n_coarse,
                                      refine_rounds)
    finite = np.isfinite(found.proxy)
    np.testing.assert_allclose(found.loss[finite], w.sum() - found.proxy[finite],
                               atol=1e-12 * w.sum())
    rules_f = [np.array([-1, -1])]
    rules_w = [np.zeros(2)]
    rules_t = [1.0]
    kinds = [ZERO_VARIATE]
    for t in np.flatnonzero(finite):
        rules_f.append(np.array([found.first[t], found.second[t]]))
        rules_w.append(np.array([1.0, found.w_second[t]]))
        rules_t.append(found.threshold[t])
        kinds.append(UNIVARIATE if found.second[t] < 0 else BIVARIATE)
    errors = rule_errors(Xf, care, np.zeros(len(kinds), dtype=np.int64),
                         np.array(rules_f, dtype=np.int64), np.array(rules_w),
                         np.array(rules_t), np.zeros((len(kinds), 2), dtype=np.uint64))
    out = {ZERO_VARIATE: math.inf, UNIVARIATE: math.inf, BIVARIATE: math.inf}
    for kind, a, b in zip(kinds, errors.keep, errors.flip):
        out[kind] = min(out[kind], a, b)
    return out


@SETTINGS
@given(n=st.integers(3, 24), d=st.integers(2, 4), seed=st.integers(0, 10_000),
       integer=st.booleans(), weighted=st.booleans())
def test_exact_reduced_problem_equals_brute_force(n, d, seed, integer, weighted):
    rng = np.random.default_rng(seed)
    X = (rng.integers(0, 4, size=(n, d)) if integer else rng.normal(size=(n, d))).astype(float)
    prefers_right = rng.random(n) < 0.5
    w = rng.uniform(0.2, 3.0, size=n) if weighted else np.ones(n)
    got = solve_reduced(X, prefers_right, w, exact=True)
    ref = naive.best_reduced_problem(X, prefers_right, w)
    tol = 1e-9 * w.sum()
    assert math.isclose(got[ZERO_VARIATE], ref["zero"], abs_tol=tol)
    # what matters for the choice: each option's error, capped by the zero-variate one
    # (the kernels' two-class misclassification proxy cannot tell a rule whose best
    # labelling puts both sides in one child from the zero-variate rule)
    cap = ref["zero"]
    assert math.isclose(min(got[UNIVARIATE], cap), min(ref["univariate"], cap), abs_tol=tol)
    best_ref = min(ref["univariate"], ref["bivariate"], cap)
    assert math.isclose(min(got[UNIVARIATE], got[BIVARIATE], cap), best_ref, abs_tol=tol)
    # the exact bivariate solution is never worse than the best line through any pair
    assert min(got[BIVARIATE], got[UNIVARIATE], cap) <= min(ref["bivariate"], cap) + tol


@pytest.mark.parametrize("n_coarse, refine_rounds", [(0, 0), (8, 5)],
                         ids=["orientations", "coarse_to_fine"])
@SETTINGS
@given(n=st.integers(3, 40), seed=st.integers(0, 10_000), weighted=st.booleans())
def test_approximate_searches_are_never_better_than_the_exact_one(n_coarse, refine_rounds, n,
                                                                  seed, weighted):
    rng = np.random.default_rng(seed)
    X = rng.normal(size=(n, 3))
    prefers_right = (X[:, 0] - 0.3 * X[:, 1] + 0.4 * rng.normal(size=n)) > 0
    w = rng.uniform(0.2, 3.0, size=n) if weighted else np.ones(n)
    approx = solve_reduced(X, prefers_right, w, exact=False, n_coarse=n_coarse,
                           refine_rounds=refine_rounds)
    exact = solve_reduced(X, prefers_right, w, exact=True)
    cap = approx[ZERO_VARIATE]
    assert min(exact[BIVARIATE], exact[UNIVARIATE], cap) <= min(
        approx[BIVARIATE], approx[UNIVARIATE], cap) + 1e-9 * w.sum()


@SETTINGS
@given(n=st.integers(3, 40), d=st.integers(2, 4), seed=st.integers(0, 10_000),
       weighted=st.booleans(), holes=st.booleans())
def test_coarse_to_fine_rules_route_as_scored(n, d, seed, weighted, holes):
    # every pair item's rule, re-scored through the routing kernel, has the loss the
    # search reported (the two sides' labels free: capped by the zero-variate loss)
    rng = np.random.default_rng(seed)
    X = rng.normal(size=(n, d))
    if holes:
        X[rng.random(size=(n, d)) < 0.15] = np.nan
    prefers_right = (np.nan_to_num(X[:, 0]) + 0.8 * np.nan_to_num(X[:, 1])
                     + 0.5 * rng.normal(size=n)) > 0
    w = rng.uniform(0.2, 3.0, size=n) if weighted else np.ones(n)
    Xf, care, found = search_one_node(X, prefers_right, w, exact=False, n_coarse=8,
                                      refine_rounds=5)
    pairs = np.flatnonzero(np.isfinite(found.proxy) & (found.second >= 0))
    if pairs.size == 0:
        return
    errors = rule_errors(Xf, care, np.zeros(pairs.size, dtype=np.int64),
                         np.stack([found.first[pairs], found.second[pairs]], axis=1),
                         np.stack([np.ones(pairs.size), found.w_second[pairs]], axis=1),
                         found.threshold[pairs], np.zeros((pairs.size, 2), dtype=np.uint64),
                         found.missing_left[pairs])
    zero = min(w[prefers_right].sum(), w[~prefers_right].sum())
    rescored = np.minimum(np.minimum(errors.keep, errors.flip), zero)
    np.testing.assert_allclose(rescored, np.minimum(found.loss[pairs], zero),
                               atol=1e-9 * w.sum())


@SETTINGS
@given(n=st.integers(3, 60), seed=st.integers(0, 10_000), n_coarse=st.integers(1, 12))
def test_refinement_never_loses_to_its_coarse_angles(n, seed, n_coarse):
    rng = np.random.default_rng(seed)
    X = rng.normal(size=(n, 4))
    X[:, 3] = X[:, 2] + 0.05 * rng.normal(size=n)  # a strongly correlated pair
    prefers_right = (X[:, 2] - X[:, 3] + 0.3 * X[:, 0] + 0.05 * rng.normal(size=n)) > 0
    w = rng.uniform(0.2, 3.0, size=n)
    coarse = search_one_node(X, prefers_right, w, exact=False, n_coarse=n_coarse)[2]
    refined = search_one_node(X, prefers_right, w, exact=False, n_coarse=n_coarse,
                              refine_rounds=5)[2]
    assert np.all(refined.proxy >= coarse.proxy)


@SETTINGS
@given(n=st.integers(2, 300), seed=st.integers(0, 10_000), n_bins=st.integers(1, 64),
       ties=st.booleans(), holes=st.booleans(), one_label=st.booleans())
def test_the_pseudolabel_bound_is_never_below_the_best_cut(n, seed, n_bins, ties, holes,
                                                           one_label):
    # the exact scan (every order, missing rows on either side) never beats the bound
    rng = np.random.default_rng(seed)
    values = rng.normal(size=n)
    if ties:
        values = np.round(values)
    if holes:
        values[rng.random(n) < 0.2] = np.nan
    labels = np.zeros(n, dtype=np.int64) if one_label else rng.integers(0, 2, n)
    weights = rng.uniform(0.1, 3.0, n)
    cuts = PseudolabelCuts(labels, weights, float(weights[labels == 0].sum()),
                           float(weights[labels == 1].sum()))
    exact = scan_sorted(values.copy(), cuts).proxy
    bound = pseudolabel_proxy_bound(values, labels, weights, cuts.w0, cuts.w1,
                                    np.empty((n_bins, 2)))
    assert exact <= bound


@SETTINGS
@given(n=st.integers(3, 400), seed=st.integers(0, 10_000), n_coarse=st.integers(1, 12),
       holes=st.booleans(), constrained=st.sampled_from([0, 1, -1]))
def test_skipping_bounded_angles_changes_no_pair_search(n, seed, n_coarse, holes, constrained):
    # the coarse-to-fine item with the bound (angles that cannot win left unsorted) is
    # the item without it: the same angle, rule, cut and proxy
    rng = np.random.default_rng(seed)
    X = rng.normal(size=(n, 2))
    X[:, 1] = 0.8 * X[:, 0] + 0.4 * X[:, 1]
    if holes:
        X[rng.random(size=(n, 2)) < 0.1] = np.nan
    labels = ((np.nan_to_num(X[:, 0]) - 1.5 * np.nan_to_num(X[:, 1])
               + 0.4 * rng.normal(size=n)) > 0).astype(np.int64)
    weights = rng.exponential(size=n) + 0.01
    cst = (np.array([1, constrained], dtype=np.int64) if constrained
           else np.empty(0, dtype=np.int64))
    cuts = PseudolabelCuts(labels, weights, float(weights[labels == 0].sum()),
                           float(weights[labels == 1].sum()), cst)
    samples = np.arange(n, dtype=np.int64)
    Xf = np.asfortranarray(X)
    plain = _refined_pair_item(Xf, samples, 0, 1, n_coarse, 5, np.empty(n), cuts, 0)
    bounded = _refined_pair_item(Xf, samples, 0, 1, n_coarse, 5, np.empty(n), cuts,
                                 BOUND_BINS)
    assert bounded == plain


def test_search_items_skips_angles_by_the_space_bound_bins():
    # the node's items are the same with the default bound and with none (every angle)
    rng = np.random.default_rng(3)
    n = 1500
    X = np.asfortranarray(rng.normal(size=(n, 4)))
    prefers_right = (X[:, 0] - 0.6 * X[:, 2] + 0.3 * rng.normal(size=n)) > 0
    care = CareSets(np.arange(n, dtype=np.int64), prefers_right.astype(np.int64),
                    rng.exponential(size=n) + 0.01, np.array([0, n], dtype=np.int64))
    features = np.arange(4, dtype=np.int64)
    pj, pk = candidate_pairs(features)
    space = SearchSpace(features, pj, pk, *orientation_directions(8), 12, 5)
    assert space.bound_bins == BOUND_BINS > 0
    items = all_items(1, 4 + pj.size)
    bounded = search_items(X, care, np.array([False]), space, items)
    plain = search_items(X, care, np.array([False]), space._replace(bound_bins=0), items)
    for a, b in zip(bounded, plain):
        np.testing.assert_array_equal(a, b)


def test_split_criteria_have_no_bound():
    # the greedy splitters' cut objective is never bounded: no angle of theirs is skipped
    values = np.array([0.0, 1.0, 2.0])
    cuts = criterion_cuts(np.array([0, 1, 0]), np.zeros(3), np.ones(3), GINI,
                          np.array([2.0, 1.0]), 3.0, 0.0, 1, 0.0, np.empty(2), np.empty(2),
                          np.empty(0, dtype=np.int64), 0, -np.inf, np.inf)
    assert criterion_bound(values, cuts) == np.inf


def test_coarse_to_fine_finds_a_narrow_direction_that_fixed_directions_miss():
    # the classes split along the difference of two nearly equal features: a direction
    # within about a degree of the diagonal of their scaled plane
    rng = np.random.default_rng(0)
    base = rng.normal(size=400)
    X = np.column_stack([base + 0.1 * rng.normal(size=400), base])
    prefers_right = X[:, 0] - X[:, 1] > 0
    w = np.ones(400)
    fixed = solve_reduced(X, prefers_right, w, exact=False, n_orientations=30)
    refined = solve_reduced(X, prefers_right, w, exact=False, n_coarse=8, refine_rounds=5)
    assert refined[BIVARIATE] == 0.0
    assert fixed[BIVARIATE] > 50


def test_pseudolabels_leave_out_samples_with_equal_loss():
    loss_left = np.array([0.0, 1.0, 1.0, 0.0, 2.5, 0.5])
    loss_right = np.array([1.0, 0.0, 1.0, 0.0, 0.5, 2.5])
    care, labels, weights = pseudolabels(loss_left, loss_right)
    np.testing.assert_array_equal(care, [True, True, False, False, True, True])
    np.testing.assert_array_equal(labels, [0, 1, 1, 0])  # 1: the right child is better
    np.testing.assert_allclose(weights, [1.0, 1.0, 2.0, 2.0])


@pytest.mark.parametrize("regression", [False, True])
def test_child_losses_match_a_plain_walk(regression):
    X, y = blobs(60, 3, 3, seed=4)
    est = (BivariateTreeRegressor(max_depth=3) if regression
           else BivariateTreeClassifier(max_depth=3)).fit(X, y.astype(float) if regression else y)
    state = TAOState.from_tree(est.tree_, regression)
    rng = np.random.default_rng(0)
    w = rng.uniform(0.5, 2.0, size=60)
    labels = np.zeros(60, dtype=np.int64) if regression else y.astype(np.int64)
    targets = y.astype(float) if regression else np.zeros(60)
    decision = np.flatnonzero(state.kind != LEAF)
    owner = rng.choice(decision, size=60)
    samples = np.arange(60, dtype=np.int64)
    ll, lr = child_losses(np.asfortranarray(X), samples, owner, *state.arrays, labels,
                          targets, w, state.leaf_class, state.leaf_mean, regression)
    for p in range(60):
        for loss, child in ((ll[p], state.children_left[owner[p]]),
                            (lr[p], state.children_right[owner[p]])):
            leaf = naive.leaf_of(state.arrays, X[p], child)
            want = (w[p] * (targets[p] - state.leaf_mean[leaf]) ** 2 if regression
                    else w[p] * float(labels[p] != state.leaf_class[leaf]))
            assert loss == pytest.approx(want, rel=1e-12, abs=1e-12)


# ------------------------------------------------------------------ descent
tao_settings = st.fixed_dictionaries({
    "alpha": st.sampled_from([0.0, 0.002, 0.01, 0.05]),
    "feature_cost": st.sampled_from([0.8, 1.0, 1.25, 2.0]),
    "init": st.sampled_from(["bivariate", "univariate"]),
    "max_depth": st.integers(1, 5),
    "n_orientations": st.integers(2, 9),
    "exact_max_samples": st.sampled_from([0, 15, 1000]),
})


@SETTINGS
@given(params=tao_settings, n=st.integers(12, 70), d=st.integers(2, 4),
       n_classes=st.integers(2, 3), seed=st.integers(0, 10_000), weighted=st.booleans())
def test_objective_never_increases(params, n, d, n_classes, seed, weighted):
    X, y = blobs(n, d, n_classes, seed)
    if np.unique(y).size < 2:
        return
    w = np.random.default_rng(seed).uniform(0.2, 2.0, size=n) if weighted else None
    est = TAOTreeClassifier(**params).fit(X, y, sample_weight=w)
    path = est.objective_path_
    assert np.all(np.diff(path) <= 1e-12 * max(1.0, path[0]))
    assert est.objective_ <= path[-1] + 1e-12
    assert est.n_iter_ == path.size - 1


@SETTINGS
@given(max_depth=st.integers(1, 4), init=st.sampled_from(["bivariate", "univariate"]),
       seed=st.integers(0, 10_000), n_orientations=st.integers(2, 12))
def test_with_alpha_zero_training_error_never_exceeds_the_initial_trees(max_depth, init, seed,
                                                                        n_orientations):
    X, y = blobs(80, 3, 3, seed)
    greedy = BivariateTreeClassifier(
        splitter="orientations" if init == "bivariate" else "univariate",
        n_orientations=n_orientations, max_depth=max_depth).fit(X, y)
    est = TAOTreeClassifier(alpha=0.0, init=init, max_depth=max_depth,
                            n_orientations=n_orientations).fit(X, y)
    assert est.score(X, y) >= greedy.score(X, y)
    assert est.objective_path_[0] == pytest.approx(1 - greedy.score(X, y))


def test_tao_improves_a_shallow_greedy_tree():
    # the diagonal boundary needs several greedy axis cuts; TAO moves them
    rng = np.random.default_rng(0)
    X = rng.uniform(size=(300, 2))
    y = (X[:, 0] + X[:, 1] > 1.0).astype(int) ^ (X[:, 0] > 0.8)
    greedy = BivariateTreeClassifier(splitter="univariate", max_depth=3).fit(X, y)
    est = TAOTreeClassifier(alpha=0.0, init="univariate", max_depth=3).fit(X, y)
    assert est.score(X, y) > greedy.score(X, y)
    assert est.objective_path_[-1] < est.objective_path_[0]


def test_a_large_alpha_gives_a_single_leaf():
    X, y = blobs(100, 3, 3, seed=1)
    est = TAOTreeClassifier(alpha=1.01).fit(X, y)
    assert est.tree_.node_count == 1
    assert est.next_alpha_ is None
    majority = np.bincount(y).argmax()
    assert np.all(est.predict(X) == majority)


def test_regression_decreases_its_objective_and_leaves_hold_means():
    rng = np.random.default_rng(2)
    X = rng.uniform(-1, 1, size=(200, 3))
    y = np.where(X[:, 0] + 0.5 * X[:, 1] > 0, 2.0, -1.0) + 0.3 * X[:, 2] + 0.1 * rng.normal(
        size=200)
    est = TAOTreeRegressor(alpha=0.01, max_depth=4).fit(X, y)
    assert est.objective_path_[-1] < est.objective_path_[0]
    assert np.all(np.diff(est.objective_path_) <= 1e-12)
    leaves = est.apply(X)
    for leaf in np.unique(leaves):
        assert est.tree_.value[leaf, 0] == pytest.approx(y[leaves == leaf].mean())
    big = TAOTreeRegressor(alpha=10 * y.var()).fit(X, y)
    assert big.tree_.node_count == 1
    assert big.predict(X[:3]) == pytest.approx([y.mean()] * 3)


def test_stored_rules_route_training_samples_as_the_optimizer_decided():
    X, y = blobs(150, 4, 3, seed=7)
    est = TAOTreeClassifier(alpha=0.003, max_depth=5, exact_max_samples=40).fit(X, y)
    data = TAOData(np.asfortranarray(X), y.astype(np.int64), np.zeros(150), np.ones(150), 3)
    state = est._tao_state
    leaves = []
    for x in X:
        leaves.append(state.leaf_class[naive.leaf_of(state.arrays, x, 0)])
    np.testing.assert_array_equal(est.classes_[np.array(leaves)], est.predict(X))
    assert state_to_tree(state, data) == est.tree_
    # no zero-variate node survives in the fitted tree, and no one-sided node
    internal = ~est.tree_.is_leaf
    assert np.all(est.tree_.n_node_features[internal] >= 1)
    assert np.all(est.tree_.n_node_samples > 0)


@pytest.mark.parametrize("exact_max_samples", [0, 40])
def test_incremental_search_gives_the_same_iterations(exact_max_samples):
    # the bounds of the incremental search only skip scans that cannot win
    # (an initial tree of the fixed directions, so that the case does not move with the
    # default search's details: TAO takes 3 iterations from it)
    X, y = blobs(400, 5, 3, seed=24)
    greedy = BivariateTreeClassifier(splitter="orientations", n_orientations=12).fit(X, y)
    runs = []
    for incremental in (True, False):
        data = TAOData(np.asfortranarray(X), y.astype(np.int64), np.zeros(400), np.ones(400), 3)
        state = TAOState.from_tree(greedy.tree_, regression=False)
        result = TAOOptimizer(data, alpha=0.0015, feature_cost=1.1, n_orientations=12,
                              exact_max_samples=exact_max_samples, max_iter=6,
                              incremental=incremental).run(state)
        runs.append((state, result))
    (a, ra), (b, rb) = runs
    assert ra.n_iter >= 2
    assert ra.objective_path == rb.objective_path
    for name in ("children_left", "features", "weights", "threshold", "kind", "leaf_class"):
        np.testing.assert_array_equal(getattr(a, name), getattr(b, name))


def test_change_bound_counts_changed_samples_and_allows_a_swap():
    old = (np.array([1, 2, 3, 5]), np.array([0, 1, 1, 0]), np.array([1.0, 2.0, 1.0, 1.0]))
    new = (np.array([2, 3, 4, 5]), np.array([1, 0, 0, 0]), np.array([2.0, 1.0, 3.0, 0.5]))
    # 1 removed (1), 4 added (3); 3 relabelled (1); 5 reweighted (max 1)
    assert change_bound(old, new) == pytest.approx(1 + 3 + 1 + 1)
    flipped = (old[0], 1 - old[1], old[2])
    assert change_bound(old, flipped) == 0.0


def test_option_losses_per_node_with_an_empty_one():
    care = CareSets(np.arange(6), np.array([0, 1, 1, 0, 1, 0]),
                    np.array([1.0, 2.0, 3.0, 0.5, 4.0, 7.0]), np.array([0, 3, 3, 5, 6]))
    zero, total, least = option_losses(care)
    np.testing.assert_array_equal(zero, [1.0, 0.0, 0.5, 0.0])  # the lighter pseudo-class
    np.testing.assert_array_equal(total, [6.0, 0.0, 4.5, 7.0])
    np.testing.assert_array_equal(least, [1.0, np.inf, 0.5, 7.0])


def test_feature_cost_moves_between_bivariate_and_univariate_trees():
    X, y = blobs(300, 3, 2, seed=5)
    cheap = TAOTreeClassifier(alpha=0.005, feature_cost=0.5).fit(X, y)
    dear = TAOTreeClassifier(alpha=0.005, feature_cost=50.0).fit(X, y)
    assert cheap.node_kinds()["univariate"] == 0 and cheap.node_kinds()["bivariate"] >= 1
    assert dear.node_kinds()["bivariate"] == 0


# ---------------------------------------------------------------- the path
def test_next_alpha_is_the_next_significant_value():
    X, y = blobs(200, 3, 3, seed=11)
    est = TAOTreeClassifier(alpha=0.002, max_depth=5).fit(X, y)
    nxt = est.next_alpha_
    assert nxt is not None and nxt > 0.002
    same = TAOTreeClassifier(alpha=0.002, max_depth=5).fit(X, y)
    same.set_params(alpha=(0.002 + nxt) / 2, warm_start=True).fit(X, y)
    assert same.tree_ == est.tree_  # nothing changes before the next significant alpha
    moved = TAOTreeClassifier(alpha=0.002, max_depth=5).fit(X, y)
    moved.set_params(alpha=nxt, warm_start=True).fit(X, y)
    assert moved.objective_ >= est.objective_  # costlier nodes
    kinds = moved.node_kinds()
    assert (moved.tree_ != est.tree_) or kinds != est.node_kinds()


def test_warm_starts_reuse_searches_without_changing_results():
    X, y = blobs(300, 4, 3, seed=23)
    alphas = [0.0, 0.001, 0.004, 0.02]
    cached = TAOTreeClassifier(max_depth=6, warm_start=True)
    fresh = TAOTreeClassifier(max_depth=6, warm_start=True)
    for a in alphas:
        cached.set_params(alpha=a).fit(X, y)
        if hasattr(fresh, "_search_cache"):
            del fresh._search_cache  # every fit searches from scratch
        fresh.set_params(alpha=a).fit(X, y)
        assert cached.tree_ == fresh.tree_
        np.testing.assert_array_equal(cached.objective_path_, fresh.objective_path_)
    assert "_search_cache" not in copy.deepcopy(cached).__dict__
    # other data: the old searches are not used
    X2 = X * 1.5 + 0.5
    key = cached._search_cache[0]
    cached.fit(X2, y)
    del fresh._search_cache
    fresh.fit(X2, y)
    assert cached._search_cache[0] != key
    assert cached.tree_ == fresh.tree_


def test_a_shared_search_memo_changes_no_result_and_saves_the_searches(monkeypatch):
    # fits of other costs and alphas on the same data meet the same reduced problems
    X, y = blobs(300, 4, 3, seed=23)
    searched = []
    run_items = TAOOptimizer._run_items

    def counting(self, care, exact, items):
        searched.append(items.node.size)
        return run_items(self, care, exact, items)

    monkeypatch.setattr(TAOOptimizer, "_run_items", counting)
    memos = {}
    for c, a in [(1.0, 0.0), (1.5, 0.002), (1.25, 0.01)]:
        shared = TAOTreeClassifier(max_depth=6, alpha=a, feature_cost=c)
        shared._search_memos = memos
        shared.fit(X, y)
        alone = TAOTreeClassifier(max_depth=6, alpha=a, feature_cost=c).fit(X, y)
        assert shared.tree_ == alone.tree_
        np.testing.assert_array_equal(shared.objective_path_, alone.objective_path_)
    assert len(memos) == 1 and "_search_memos" not in copy.deepcopy(shared).__dict__
    # the same fit again: every problem is in the memo, nothing is searched
    searched.clear()
    again = TAOTreeClassifier(max_depth=6, alpha=0.002, feature_cost=1.5)
    again._search_memos = memos
    again.fit(X, y)
    assert sum(searched) == 0
    # a memo emptied when full (here at every search) gives the same trees too
    monkeypatch.setattr("bivtree.tao.optimizer.MEMO_MAX_FLOATS", 1)
    tiny = TAOTreeClassifier(max_depth=6, alpha=0.002, feature_cost=1.5)
    tiny._search_memos = {}
    tiny.fit(X, y)
    assert tiny.tree_ == again.tree_
    assert all(len(m) == 1 for m in tiny._search_memos.values())


def _fits_without_skipping(monkeypatch):
    """Make every TAO fit search every node and pair (``skip_hopeless=False``)."""
    init = TAOOptimizer.__init__

    def searching_all(self, *args, **kwargs):
        init(self, *args, **{**kwargs, "skip_hopeless": False})

    monkeypatch.setattr(TAOOptimizer, "__init__", searching_all)


@pytest.mark.parametrize("case", ["classes", "regression", "holes and categories"])
def test_skipping_hopeless_searches_changes_no_fit(case, monkeypatch):
    # a node where the zero-variate option, or the best univariate cut, beats every
    # bivariate rule whatever its loss is left unsearched (or its pairs are): the same
    # fits, fewer scanned items
    X, y = blobs(300, 4, 3, seed=31)
    params = {"max_depth": 6, "exact_max_samples": 40}
    if case == "regression":
        y = X @ np.array([1.0, -2.0, 0.5, 0.0]) + np.sin(3 * X[:, 0])
        cls = TAOTreeRegressor
    else:
        cls = TAOTreeClassifier
    if case == "holes and categories":
        X[::7, 1] = np.nan
        X[:, 3] = np.floor(np.abs(X[:, 3]) * 2) % 4
        params["categorical_features"] = [3]
    scale = float(np.var(y)) if case == "regression" else 1.0
    settings_ = [(1.0, 0.0), (0.8, 0.004), (1.0, 0.01), (1.5, 0.003), (1.25, 0.03)]
    counts = {}
    fits = {}
    run_items = TAOOptimizer._run_items
    for skip in (True, False):
        searched = []

        def counting(self, care, exact, items, searched=searched):
            searched.append(items.node.size)
            return run_items(self, care, exact, items)

        with monkeypatch.context() as m:
            m.setattr(TAOOptimizer, "_run_items", counting)
            if not skip:
                _fits_without_skipping(m)
            fits[skip] = [cls(alpha=a * scale, feature_cost=c, **params).fit(X, y)
                          for c, a in settings_]
        counts[skip] = sum(searched)
    for a, b in zip(fits[True], fits[False]):
        assert a.tree_ == b.tree_
        np.testing.assert_array_equal(a.objective_path_, b.objective_path_)
        assert a.next_alpha_ == b.next_alpha_
    assert counts[True] < counts[False]


@SETTINGS
@given(params=tao_settings, n=st.integers(12, 70), d=st.integers(2, 4),
       n_classes=st.integers(2, 3), seed=st.integers(0, 10_000), weighted=st.booleans())
def test_skipping_hopeless_searches_never_changes_a_fit(params, n, d, n_classes, seed,
                                                        weighted):
    # real-valued weights make care weights whose sums round: the skips' slack must hold
    X, y = blobs(n, d, n_classes, seed)
    if np.unique(y).size < 2:
        return
    w = np.random.default_rng(seed).uniform(0.2, 2.0, size=n) if weighted else None
    skipping = TAOTreeClassifier(**params).fit(X, y, sample_weight=w)
    with pytest.MonkeyPatch.context() as m:
        _fits_without_skipping(m)
        searching = TAOTreeClassifier(**params).fit(X, y, sample_weight=w)
    assert skipping.tree_ == searching.tree_
    np.testing.assert_array_equal(skipping.objective_path_, searching.objective_path_)
    assert skipping.next_alpha_ == searching.next_alpha_


def test_searches_left_unfinished_are_finished_when_a_fit_needs_them(monkeypatch):
    # dear fits first: their memo and cache entries lack the pairs of nodes where no
    # bivariate rule could win; cheaper fits meeting the same problems search them
    X, y = blobs(300, 4, 3, seed=23)
    order = [(1.5, 0.03), (1.5, 0.01), (1.0, 0.002), (0.8, 0.0)]

    def fits(memos):
        warm = TAOTreeClassifier(max_depth=6, warm_start=True)
        out = []
        for c, a in order:
            shared = TAOTreeClassifier(max_depth=6, alpha=a, feature_cost=c)
            shared._search_memos = memos
            shared.fit(X, y)
            warm.set_params(alpha=a, feature_cost=c).fit(X, y)
            out.append((shared.tree_, list(shared.objective_path_), warm.tree_,
                        list(warm.objective_path_)))
        return out

    with monkeypatch.context() as m:
        _fits_without_skipping(m)
        expected = fits({})
    memos = {}
    assert fits(memos) == expected
    assert any(not rules.bivariate_searched
               for memo in memos.values() for rules, _ in memo.values())


def test_tao_path_runs_to_a_single_leaf_and_selects_on_validation():
    X, y = blobs(160, 3, 3, seed=12)
    path = tao_path(TAOTreeClassifier(max_depth=4), X, y, random_state=0)
    alphas = path.alphas
    assert alphas[0] == 0.0 and np.all(np.diff(alphas) > 0)
    assert path.steps[-1].n_nodes == 1
    sizes = [s.n_nodes for s in path.steps]
    assert sizes[0] >= sizes[-1]
    best = path.best
    assert best.validation_score == max(s.validation_score for s in path.steps)
    assert best.estimator.tree_.node_count == best.n_nodes


def test_tao_path_on_a_grid_and_from_both_initial_trees():
    X, y = blobs(120, 3, 2, seed=13)
    Xv, yv = blobs(60, 3, 2, seed=14)
    path = tao_path(TAOTreeClassifier(max_depth=3, init="auto"), X, y, X_val=Xv, y_val=yv,
                    alphas=[0.0, 0.01, 0.1], max_steps=3)
    assert [s.init for s in path.steps].count("bivariate") == 3
    assert {s.init for s in path.steps} == {"bivariate", "univariate"}
    assert path.best.validation_score == pytest.approx(path.best.estimator.score(Xv, yv))
    frame = path.to_frame()
    assert list(frame["alpha"][:3]) == [0.0, 0.01, 0.1]


# ------------------------------------------------------------- estimators
def test_init_auto_records_its_choice():
    X, y = blobs(200, 3, 2, seed=15)
    est = TAOTreeClassifier(init="auto", max_depth=4, random_state=0).fit(X, y)
    assert est.init_ in ("bivariate", "univariate")
    assert set(est.init_scores_) == {"bivariate", "univariate"}
    assert est.init_ == min(est.init_scores_, key=lambda k: (est.init_scores_[k],
                                                              k != "bivariate"))


def test_a_given_tree_is_the_starting_structure():
    X, y = blobs(120, 3, 2, seed=16)
    greedy = BivariateTreeClassifier(max_depth=2).fit(X, y)
    est = TAOTreeClassifier(alpha=0.0, init=greedy.tree_).fit(X, y)
    assert est.init_ == "given"
    assert est.tree_.node_count <= greedy.tree_.node_count
    assert est.objective_path_[0] == pytest.approx(1 - greedy.score(X, y))
    est2 = TAOTreeClassifier(alpha=0.0, init=greedy).fit(X, y)
    assert est2.tree_ == est.tree_


def test_verbose_prints_every_iteration():
    X, y = blobs(80, 3, 2, seed=17)
    out = io.StringIO()
    with redirect_stdout(out):
        est = TAOTreeClassifier(alpha=0.01, max_depth=3, verbose=1).fit(X, y)
    lines = [ln for ln in out.getvalue().splitlines() if "iteration" in ln]
    assert len(lines) == est.n_iter_


def test_time_limit_returns_the_last_finished_iteration():
    X, y = blobs(200, 3, 3, seed=18)
    est = TAOTreeClassifier(alpha=0.002, time_limit=1e-9).fit(X, y)
    assert est.n_iter_ <= 1 and not est.converged_


@pytest.mark.parametrize("params, message", [
    ({"alpha": -1.0}, "alpha must be"),
    ({"alpha": float("nan")}, "alpha must be"),
    ({"feature_cost": 0.0}, "feature_cost must be"),
    ({"n_orientations": 0}, "n_orientations must be"),
    ({"pair_search": "exact"}, "pair_search must be"),
    ({"exact_max_samples": -1}, "exact_max_samples must be"),
    ({"max_iter": 0}, "max_iter must be"),
    ({"time_limit": -2}, "time_limit must be"),
    ({"init": "greedy"}, "init must be"),
    ({"validation_fraction": 1.0}, "validation_fraction must be"),
    ({"max_pairs": 2}, "feature pairs"),
])
def test_bad_parameters_are_named(params, message):
    X, y = blobs(30, 3, 2, seed=0)
    with pytest.raises(ValueError, match=message):
        TAOTreeClassifier(**params).fit(X, y)


def test_bad_initial_trees_are_named():
    X, y = blobs(40, 3, 2, seed=0)
    three = BivariateTreeClassifier(splitter="lda", max_depth=2,
                                    splitter_options={"n_split_features": 3}).fit(X, y)
    if np.any(three.tree_.n_node_features > 2):
        with pytest.raises(ValueError, match="more than two features"):
            TAOTreeClassifier(init=three.tree_).fit(X, y)
    other = BivariateTreeClassifier(max_depth=2).fit(X[:, :2], y)
    with pytest.raises(ValueError, match="expects 2 features"):
        TAOTreeClassifier(init=other.tree_).fit(X, y)
    warm = TAOTreeClassifier(warm_start=True).fit(X, y)
    with pytest.raises(ValueError, match="different number of features"):
        warm.fit(X[:, :2], y)


def test_single_class_is_one_leaf():
    X, _ = blobs(30, 3, 2, seed=0)
    model = TAOTreeClassifier().fit(X, np.zeros(30))
    assert model.get_n_leaves() == 1
    np.testing.assert_array_equal(model.predict(X), np.zeros(30))
    np.testing.assert_array_equal(model.predict_proba(X), np.ones((30, 1)))


def test_bad_data_is_named():
    X, y = blobs(30, 3, 2, seed=0)
    Xi = X.copy()
    Xi[0, 0] = np.inf
    with pytest.raises(ValueError, match="(?i)infinity"):
        TAOTreeClassifier().fit(Xi, y)
    with pytest.raises(ValueError, match="non-zero"):
        TAOTreeClassifier().fit(X, y, sample_weight=np.zeros(30))
    with pytest.raises(ValueError, match="(?i)negative"):
        TAOTreeClassifier().fit(X, y, sample_weight=-np.ones(30))


def test_a_tree_from_the_path_is_a_valid_tree():
    X, y = blobs(100, 3, 2, seed=20)
    est = TAOTreeClassifier(alpha=0.01, max_depth=4).fit(X, y)
    assert isinstance(est.tree_, Tree)
    Tree.from_dict(est.tree_.to_dict())
    assert est.feature_importances_.sum() == pytest.approx(1.0) or est.tree_.node_count == 1


def test_optimizer_used_directly():
    X, y = blobs(90, 3, 2, seed=21)
    greedy = BivariateTreeClassifier(max_depth=4).fit(X, y)
    data = TAOData(np.asfortranarray(X), y.astype(np.int64), np.zeros(90), np.ones(90), 2)
    state = TAOState.from_tree(greedy.tree_, regression=False)
    result = TAOOptimizer(data, alpha=0.01, feature_cost=1.25, n_orientations=10,
                          exact_max_samples=30, max_iter=20).run(state)
    assert result.converged
    assert result.objective_path[-1] <= result.objective_path[0]


def test_a_tree_of_categorical_columns_only_fits_with_the_search_memo():
    """A node with no numeric feature has nothing for the memo to count."""
    pd = pytest.importorskip("pandas")
    X = pd.DataFrame({"colour": pd.Series(["red", "blue", "red", "green"] * 5,
                                          dtype="category")})
    y = np.arange(20, dtype=float) % 3
    model = TAOTreeRegressor(max_depth=2).fit(X, y)
    assert np.isfinite(model.predict(X)).all()


def test_default_exact_max_samples_is_100_for_classification_and_0_for_regression(monkeypatch):
    # in regression every sample cares, so the sweep would take every node of up to 100
    # samples: the regressors default to the direction search alone
    X, y = blobs(120, 4, 2, seed=3)
    target = X[:, 0] - 0.5 * X[:, 1] + 0.1 * np.random.default_rng(3).normal(size=120)
    runs = []
    original = TAOOptimizer.__init__

    def record(self, data, **kwargs):
        runs.append(kwargs["exact_max_samples"])
        original(self, data, **kwargs)

    monkeypatch.setattr(TAOOptimizer, "__init__", record)
    TAOTreeClassifier(alpha=0.01, max_depth=3).fit(X, y)
    TAOTreeRegressor(alpha=0.01, max_depth=3).fit(X, target)
    TAOTreeRegressor(alpha=0.01, max_depth=3, exact_max_samples=40).fit(X, target)
    assert runs == [100, 0, 40]


def test_model_files_keep_the_pair_search_and_older_files_read_as_orientations():
    import json

    from bivtree import from_json, to_json
    X, y = blobs(80, 3, 2, seed=1)
    est = TAOTreeClassifier(alpha=0.01, max_depth=3).fit(X, y)
    model = json.loads(to_json(est))
    assert model["params"]["pair_search"] == "coarse_to_fine"
    assert from_json(to_json(est)).pair_search == "coarse_to_fine"
    # the paper's search is what a file without the parameter was fitted with
    paper = TAOTreeClassifier(alpha=0.01, max_depth=3, pair_search="orientations").fit(X, y)
    model = json.loads(to_json(paper))
    assert "pair_search" not in model["params"]
    loaded = from_json(json.dumps(model))
    assert loaded.pair_search == "orientations"
    np.testing.assert_array_equal(loaded.predict(X), paper.predict(X))


def test_pair_search_matters_only_where_pairs_are_searched():
    # a search with no pair to scan (one feature) is the same whichever search is named
    X, y = blobs(60, 1, 2, seed=3)
    a = TAOTreeClassifier(alpha=0.005, pair_search="coarse_to_fine").fit(X, y)
    b = TAOTreeClassifier(alpha=0.005, pair_search="orientations").fit(X, y)
    assert a.tree_ == b.tree_
    # on a regression set the default search reaches a lower objective (no exact sweep)
    from sklearn.datasets import load_diabetes
    Xd, yd = load_diabetes(return_X_y=True)
    fits = {search: TAOTreeRegressor(alpha=0.001, max_depth=3, init="univariate",
                                     feature_cost=0.8, pair_search=search).fit(Xd, yd)
            for search in ("coarse_to_fine", "orientations")}
    assert fits["coarse_to_fine"].objective_ < fits["orientations"].objective_


@SETTINGS
@given(seed=st.integers(0, 10_000), depth=st.integers(1, 3), n_classes=st.integers(2, 3),
       regression=st.booleans())
def test_tao_from_several_starts_ends_at_most_at_each_start(seed, depth, n_classes,
                                                           regression):
    """``init`` a list: TAO runs from each initial tree and keeps the least objective, which
    is at most the objective of every initial tree (TAO never increases its objective) and
    that of the run from each start alone."""
    X, y = blobs(60, 3, n_classes, seed)
    if regression:
        y = X[:, 0] - 2.0 * X[:, 1] * (y > 0)
        cls, greedy = TAOTreeRegressor, BivariateTreeRegressor
        starts = ["bivariate", "univariate", greedy(max_depth=depth, min_samples_leaf=5)]
    else:
        cls, greedy = TAOTreeClassifier, BivariateTreeClassifier
        starts = ["bivariate", "univariate", greedy(max_depth=depth, criterion="entropy")]
    params = {"max_depth": depth, "alpha": 0.01, "random_state": 0}
    est = cls(init=starts, **params).fit(X, y)
    assert est.init_objectives_.shape == (3,)
    assert est.objective_ == est.init_objectives_.min()
    assert est.init_index_ == int(np.argmin(est.init_objectives_))
    for k, start in enumerate(starts):
        alone = cls(init=start, **params).fit(X, y)
        assert alone.objective_ == est.init_objectives_[k]
        # the start's own objective: its first entry of the path, never exceeded
        assert est.objective_ <= alone.objective_path_[0] + 1e-12
    kept = cls(init=starts[est.init_index_], **params).fit(X, y)
    np.testing.assert_array_equal(kept.predict(X), est.predict(X))


def test_tao_from_several_starts_refuses_what_is_not_a_start():
    X, y = blobs(40, 3, 2, 0)
    with pytest.raises(ValueError, match="init is an empty list"):
        TAOTreeClassifier(init=[]).fit(X, y)
    with pytest.raises(ValueError, match=r"init lists 'auto'; each initial tree must be"):
        TAOTreeClassifier(init=["bivariate", "auto"]).fit(X, y)
    with pytest.raises(ValueError, match=r"init lists 3"):
        TAOTreeClassifier(init=[3]).fit(X, y)


def test_tao_from_several_starts_is_the_same_on_one_and_two_threads():
    X, y = blobs(80, 4, 3, 1)
    starts = ["bivariate", "univariate", BivariateTreeClassifier(max_depth=3,
                                                                  criterion="entropy")]
    one = TAOTreeClassifier(init=starts, max_depth=3, n_jobs=1).fit(X, y)
    two = TAOTreeClassifier(init=starts, max_depth=3, n_jobs=2).fit(X, y)
    assert one.tree_.to_json() == two.tree_.to_json()
    np.testing.assert_array_equal(one.init_objectives_, two.init_objectives_)


# ------------------------------------------------------------ the pruned start
def every_pruning(tree, node=0):
    """Each set of nodes made leaves of a pruned subtree below ``node`` (brute force)."""
    if tree.children_left[node] < 0:
        yield frozenset()
        return
    yield frozenset([node])
    for left in every_pruning(tree, tree.children_left[node]):
        for right in every_pruning(tree, tree.children_right[node]):
            yield left | right


def objective_by_routing(tree, X, y, w, alpha, feature_cost, regression):
    """TAO's ``E / W`` of ``tree`` with every leaf refitted to the rows it gets."""
    leaves = tree.apply(X)
    loss = 0.0
    for leaf in np.unique(leaves):
        rows = leaves == leaf
        if regression:
            mean = np.average(y[rows], weights=w[rows])
            loss += np.sum(w[rows] * (y[rows] - mean) ** 2)
        else:
            loss += w[rows].sum() - np.bincount(y[rows], weights=w[rows]).max()
    used = tree.n_node_features
    penalty = np.count_nonzero(used == 1) + feature_cost * np.count_nonzero(used == 2)
    return (loss + alpha * w.sum() * penalty) / w.sum()


@SETTINGS
@given(seed=st.integers(0, 10_000), depth=st.integers(1, 3), regression=st.booleans(),
       weighted=st.booleans(), alpha=st.sampled_from([0.0, 0.004, 0.02, 0.08, 0.5]),
       feature_cost=st.sampled_from([1.0, 1.25, 3.0]))
def test_the_pruned_start_is_the_best_pruning_by_brute_force(seed, depth, regression,
                                                             weighted, alpha, feature_cost):
    X, y = blobs(60, 3, 3, seed)
    rng = np.random.default_rng(seed)
    w = rng.uniform(0.2, 2.0, size=60) if weighted else np.ones(60)
    if regression:
        y = X[:, 0] + rng.normal(size=60)
        greedy = BivariateTreeRegressor(max_depth=depth).fit(X, y, sample_weight=w)
    else:
        greedy = BivariateTreeClassifier(max_depth=depth).fit(X, y, sample_weight=w)
    tree = greedy.tree_
    data = TAOData(np.asfortranarray(X), np.zeros(60, dtype=np.int64) if regression else y,
                   y.astype(float) if regression else np.zeros(60), w,
                   1 if regression else 3, regression=regression)
    pruned, objective = pruned_for_objective(tree, data, alpha, feature_cost)
    best = min(objective_by_routing(subtree(tree, np.isin(np.arange(tree.node_count),
                                                          list(leaves))),
                                    X, y, w, alpha, feature_cost, regression)
               for leaves in every_pruning(tree))
    assert objective == pytest.approx(best, rel=1e-9, abs=1e-12)
    assert objective_by_routing(pruned, X, y, w, alpha, feature_cost,
                                regression) == pytest.approx(objective, rel=1e-9, abs=1e-12)


@pytest.mark.parametrize("init", ["bivariate", "univariate"])
def test_the_pruned_start_is_never_worse_than_the_whole_tree(init):
    X, y = blobs(300, 4, 3, seed=5)
    whole = TAOTreeClassifier(alpha=0.01, init=init, prune_init=False).fit(X, y)
    pruned = TAOTreeClassifier(alpha=0.01, init=init).fit(X, y)
    # the start is the whole tree's best pruning: its objective is at most the whole's
    assert pruned.objective_path_[0] <= whole.objective_path_[0] + 1e-12
    assert np.all(np.diff(pruned.objective_path_) <= 1e-12)
    # a fully grown tree has splits worth less than one sample's loss: they go
    greedy = BivariateTreeClassifier(
        splitter="orientations" if init == "bivariate" else "univariate").fit(X, y)
    assert pruned.objective_path_[0] < whole.objective_path_[0]
    assert pruned.tree_.node_count < greedy.tree_.node_count


def test_auto_prunes_a_fully_grown_start_and_keeps_a_tree_of_a_chosen_depth(monkeypatch):
    import bivtree.tao.estimators as te
    calls = []
    real = te.pruned_for_objective
    monkeypatch.setattr(te, "pruned_for_objective",
                        lambda *a, **k: calls.append(1) or real(*a, **k))
    X, y = blobs(200, 3, 2, seed=4)
    TAOTreeClassifier(alpha=0.01, max_depth=3).fit(X, y)
    assert calls == []
    TAOTreeClassifier(alpha=0.01).fit(X, y)
    assert calls == [1]
    TAOTreeClassifier(alpha=0.01, max_depth=3, prune_init=True).fit(X, y)
    assert calls == [1, 1]
    # under monotonic constraints the start is kept whole
    TAOTreeClassifier(alpha=0.01, prune_init=True, monotonic_cst=[1, 0, 0]).fit(X, y)
    assert calls == [1, 1]


def test_model_files_keep_prune_init_and_older_files_read_as_unpruned():
    import json

    from bivtree import from_json, to_json
    X, y = blobs(80, 3, 2, seed=1)
    est = TAOTreeClassifier(alpha=0.01, max_depth=3).fit(X, y)
    assert json.loads(to_json(est))["params"]["prune_init"] == "auto"
    assert from_json(to_json(est)).prune_init == "auto"
    model = json.loads(to_json(TAOTreeClassifier(alpha=0.01, max_depth=3,
                                                 prune_init=False).fit(X, y)))
    # a file that leaves it out was fitted from the whole initial tree
    assert "prune_init" not in model["params"]
    assert from_json(json.dumps(model)).prune_init is False
