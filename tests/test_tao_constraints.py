"""Monotonic and interaction constraints of TAO and the estimators built on it.

Modelled on ``tests/test_constraints.py`` (the greedy trees), for
:class:`~bivtree.TAOTreeClassifier` (binary), :class:`~bivtree.TAOTreeRegressor`,
:class:`~bivtree.ShallowTreeClassifier`, :class:`~bivtree.ShallowTreeRegressor` and the
selectors :class:`~bivtree.TAOTreeClassifierCV` / :class:`~bivtree.TAOTreeRegressorCV`:
predictions never move against a constraint when a constrained feature grows with the
others fixed (on a grid and on random rows, rows with missing values included); no node tests two
constrained features in disagreeing senses; every stored value lies within the bounds
passed down the tree as scikit-learn's growth passes them (from the nodes' training
values), and at every ordered node the leaves below its lower child are at most those
below the other (what makes the tree monotone); no node pairs features of different
interaction groups. Then TAO's own guarantees under constraints (objective path, the
kernels' admissible rules, initial trees, warm starts, paths), the errors, saved models
and the command line.

The checks are shown to fail on the same models fitted without the constraints, so none
of them holds by construction.
"""

import json

import numpy as np
import pandas as pd
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from bivtree import (
    BivariateTreeClassifier,
    BivariateTreeRegressor,
    ShallowTreeClassifier,
    ShallowTreeRegressor,
    TAOTreeClassifier,
    TAOTreeClassifierCV,
    TAOTreeRegressor,
    TAOTreeRegressorCV,
    from_json,
    tao_path,
    to_json,
)
from bivtree._config import CLASSIFICATION_CRITERIA, REGRESSION_CRITERIA
from bivtree._kernels.constraints import CONFLICT, rule_order
from bivtree._kernels.tao import CareSets, SearchSpace, all_items, search_items
from bivtree.cli import main
from bivtree.constraints import MonotoneGrowth, clip_tree_to_bounds, split_constraints
from bivtree.export import export_text, fitted_constraints
from bivtree.growing import TreeGrower
from bivtree.splitters import SplitData, get_splitter
from bivtree.splitters._base import candidate_pairs
from bivtree.splitters.orientations import orientation_directions
from test_constraints import (
    CST,
    _cross_group_data,
    _frame,
    _pairs_used,
    _table,
    assert_monotone_predictions,
    make_data,
    node_order,
    random_rows,
    walk_ordered_splits,
)

#: small grids: the selectors fit a few dozen trees each
CV_GRID = {"feature_costs": [1.25], "inits": ["bivariate"], "n_lambdas": 3, "cv": 2,
           "max_depth": 4, "restarts": False, "random_state": 0}
#: every estimator under test, with its task and its fast parameters
ESTIMATORS = {
    "tao-clf": (TAOTreeClassifier, "clf", {"max_depth": 6}),
    "tao-reg": (TAOTreeRegressor, "reg", {"max_depth": 6}),
    "shallow": (ShallowTreeClassifier, "clf", {"max_depth": 3}),
    "shallow-reg": (ShallowTreeRegressor, "reg", {"max_depth": 3}),
    "cv-clf": (TAOTreeClassifierCV, "clf", CV_GRID),
    "cv-reg": (TAOTreeRegressorCV, "reg", CV_GRID),
}


def fit(name, X, y_clf, y_reg, sample_weight=None, **params):
    cls, task, fast = ESTIMATORS[name]
    y = y_clf if task == "clf" else y_reg
    return cls(**{**fast, **params}).fit(X, y, sample_weight=sample_weight), y


def tao_estimator(est):
    """The fitted TAO estimator whose ``tree_`` a model holds (a selector's choice)."""
    return getattr(est, "best_estimator_", est)


# ----------------------------------------------------------------------- checks
def assert_bounded_and_ordered(est, X, y, cst, sample_weight=None):
    """The bounds walk of :func:`test_constraints.walk_ordered_splits` (no ``CONFLICT``,
    stored values within the bounds scikit-learn's growth passes down); at an ordered node
    the stored values of the leaves below the lower child at most those below the other.

    Returns the number of ordered decision nodes.
    """
    est = tao_estimator(est)
    tree = est.tree_
    leaves_below = {}

    def leaves(node):
        if node not in leaves_below:
            left, right = tree.children_left[node], tree.children_right[node]
            leaves_below[node] = ([node] if left < 0 else leaves(left) + leaves(right))
        return leaves_below[node]

    def leaves_in_order(node, left, right, order, lower, upper, real, stored, tol):
        low_child, high_child = (left, right) if order > 0 else (right, left)
        assert stored[leaves(low_child)].max() <= stored[leaves(high_child)].min() + tol, node

    return walk_ordered_splits(est, X, y, cst, sample_weight, leaves_in_order)


def assert_groups_respected(est, groups):
    tree = tao_estimator(est).tree_
    allowed = [set(g) for g in groups]
    for features, weights in zip(tree.features[~tree.is_leaf], tree.weights[~tree.is_leaf]):
        used = {int(f) for f, w in zip(features, weights) if f >= 0 and w != 0}
        assert any(used <= g for g in allowed), (used, allowed)


def assert_monotone(est, X, y, cst, rows, sample_weight=None, n_grid=25):
    n_ordered = assert_bounded_and_ordered(est, X, y, cst, sample_weight)
    assert_monotone_predictions(est, X, cst, rows, n_grid=n_grid)
    return n_ordered


# ---------------------------------------------------------- every estimator, random data
@pytest.mark.parametrize("missing", [0.0, 0.1], ids=["complete", "missing"])
@pytest.mark.parametrize("name", sorted(ESTIMATORS))
def test_predictions_are_monotone_and_values_bounded(name, missing):
    X, y_clf, y_reg = make_data(1, missing=missing)
    est, y = fit(name, X, y_clf, y_reg, monotonic_cst=CST)
    rows = random_rows(X, np.random.default_rng(2))
    assert np.isnan(rows).any() == bool(missing)
    assert assert_monotone(est, X, y, CST, rows) > 0
    assert tao_estimator(est).monotonic_cst_.tolist() == CST
    # the same checks fail on the model fitted without the constraints
    free, _ = fit(name, X, y_clf, y_reg)
    with pytest.raises(AssertionError):
        assert_monotone(free, X, y, CST, rows)


def test_a_pair_of_constrained_features_is_used_with_agreeing_signs():
    """On a target of ``x0 - 0.7 x1`` TAO keeps (or finds) the admissible oblique rule
    (x0 up, x1 down: weights of opposite signs), for every pair search."""
    rng = np.random.default_rng(5)
    X = rng.uniform(size=(300, 3))
    y = (X[:, 0] - 0.7 * X[:, 1] + 0.1 * rng.normal(size=300) > 0.15).astype(int)
    cst = [1, -1, 0]
    for params in ({"pair_search": "coarse_to_fine"}, {"pair_search": "orientations"},
                   {"exact_max_samples": 10_000}):
        est = TAOTreeClassifier(max_depth=4, init="univariate", monotonic_cst=cst,
                                **params).fit(X, y)
        tree = est.tree_
        assert [i for i in np.flatnonzero(tree.n_node_features == 2)
                if node_order(tree, cst, i) != 0], params
        assert_monotone(est, X, y, cst, X[:20])


def test_every_pair_search_returns_admissible_rules_only():
    """The kernels themselves: on pseudolabels whose best line has weights of the wrong
    signs (``x0 - x1`` for two increasing features), every pair item's rule under the
    constraints has agreeing signs and is the best such rule it found: the exact sweep
    finds the best admissible line (as good as the best over the admissible fixed
    directions), not a conflicting one."""
    rng = np.random.default_rng(3)
    n = 60
    X = np.asfortranarray(rng.uniform(size=(n, 2)))
    labels = (X[:, 0] - X[:, 1] > 0).astype(np.int64)
    care = CareSets(np.arange(n), labels, np.ones(n), np.array([0, n]))
    features = np.arange(2)
    pj, pk = candidate_pairs(features)
    cst = np.array([1, 1], dtype=np.int64)
    for cst_space, conflicting in ((np.zeros(0, np.int64), True), (cst, False)):
        for n_coarse, exact in ((0, False), (12, False), (0, True)):
            space = SearchSpace(features, pj, pk, *orientation_directions(30), n_coarse,
                                5 if n_coarse else 0, cst_space)
            found = search_items(X, care, np.array([exact]), space, all_items(1, 3))
            order = rule_order(cst, np.array([found.first[2], found.second[2]]),
                               np.array([1.0, found.w_second[2]]))
            assert (order == CONFLICT) == conflicting, (n_coarse, exact, order)
            if exact and not conflicting:
                exact_loss = found.loss[2]
            if not (exact or n_coarse or conflicting):
                directions_loss = found.loss[2]
    assert exact_loss <= directions_loss + 1e-12


def test_objective_path_never_increases_and_is_the_returned_trees():
    """Under monotonic constraints the objective is that of the clipped tree: it never
    increases, ends at least at ``objective_``, and is at most the initial (monotone)
    tree's."""
    X, y_clf, y_reg = make_data(6)
    for cls, y, greedy in ((TAOTreeClassifier, y_clf, BivariateTreeClassifier),
                           (TAOTreeRegressor, y_reg, BivariateTreeRegressor)):
        est = cls(max_depth=6, monotonic_cst=CST).fit(X, y)
        path = est.objective_path_
        assert np.all(np.diff(path) <= 1e-12 * max(1.0, abs(path[0])))
        # the returned tree leaves out the nodes that split nothing: only fewer penalties
        assert est.objective_ <= path[-1] + 1e-12
        start = greedy(splitter="orientations", max_depth=6, monotonic_cst=CST).fit(X, y)
        initial = cls(max_depth=6, monotonic_cst=CST, init=start.tree_, max_iter=1,
                      time_limit=1e-9).fit(X, y)
        # a monotone tree is its own clipping (to the rounding of the clipped counts)
        np.testing.assert_allclose(initial.tree_.value, start.tree_.value, rtol=1e-12)
        np.testing.assert_array_equal(initial.tree_.features, start.tree_.features)
        assert est.objective_ <= initial.objective_ + 1e-12


def test_the_shared_clipping_is_the_growth_s_bounds():
    """``clip_tree_to_bounds`` passes down the bounds growth passes down: a tree the grower
    grew under monotonic constraints, its values reset to the nodes' training values,
    comes back with the grown values (and a grown tree is left as it is); a tree grown
    without them is changed."""
    X, y_clf, y_reg = make_data(7, missing=0.05)
    constraints = split_constraints(np.array(CST), None, 4)
    n = X.shape[0]
    for classifier, y in ((True, y_clf), (False, y_reg)):
        data = SplitData(np.asfortranarray(X), y.astype(np.int64) if classifier
                         else np.zeros(n, np.int64), np.zeros(n) if classifier else y,
                         np.ones(n), 2 if classifier else 1,
                         CLASSIFICATION_CRITERIA["gini"] if classifier
                         else REGRESSION_CRITERIA["squared_error"], has_missing=True,
                         constraints=constraints)

        def grow(monotone, data=data):
            grower = TreeGrower(get_splitter("orientations"), max_depth=6, min_samples_split=2,
                                min_samples_leaf=1, min_weight_leaf=0.0,
                                min_impurity_decrease=0.0, max_leaf_nodes=None,
                                sample_features=lambda: np.arange(4), n_slots=2,
                                monotone=monotone)
            return grower.grow(data, np.arange(n))

        grown = grow(MonotoneGrowth(constraints, classifier))
        tree = grown.copy()
        assert clip_tree_to_bounds(tree, constraints, classifier) == 0
        assert tree == grown
        # the training values, unclipped (a classifier's counts, a regressor's means)
        path = tree.decision_path(np.ascontiguousarray(X)).toarray().astype(float)
        tree.value = (np.column_stack([(y == c) @ path for c in (0, 1)]) if classifier
                      else (y @ path / path.sum(axis=0))[:, None])
        assert clip_tree_to_bounds(tree, constraints, classifier) > 0
        np.testing.assert_allclose(tree.value, grown.value, rtol=1e-12, atol=1e-12)
        free = grow(None)
        assert clip_tree_to_bounds(free, constraints, classifier) > 0


# ------------------------------------------------------------ hypothesis-generated data
@st.composite
def problems(draw):
    """Small data sets: real or small-integer features, some missing values, a binary or
    real target, weights, constraints and depths."""
    cls = draw(st.sampled_from([TAOTreeClassifier, TAOTreeRegressor, ShallowTreeClassifier,
                                ShallowTreeRegressor]))
    n = draw(st.integers(20, 60))
    rng = np.random.default_rng(draw(st.integers(0, 2**32 - 1)))
    integer = draw(st.booleans())
    X = rng.integers(0, 5, size=(n, 3)).astype(float) if integer else rng.normal(size=(n, 3))
    if draw(st.booleans()):
        X[rng.uniform(size=X.shape) < 0.15] = np.nan
    signal = X[:, 0] * draw(st.sampled_from([-1.0, 1.0])) + np.nan_to_num(X[:, 1]) ** 2
    signal = np.nan_to_num(signal) + rng.normal(size=n)
    classifier = cls not in (TAOTreeRegressor, ShallowTreeRegressor)
    y = (signal > np.median(signal)).astype(int) if classifier else signal
    if classifier and np.unique(y).size < 2:
        y[0] = 1 - y[0]
    weight = rng.integers(0, 3, size=n).astype(float) if draw(st.booleans()) else None
    if weight is not None and not (weight > 0).any():
        weight[0] = 1.0
    cst = draw(st.lists(st.sampled_from([-1, 0, 1]), min_size=3, max_size=3))
    params = {"max_depth": draw(st.sampled_from([2, 4, 6])),
              "alpha": draw(st.sampled_from([0.0, 0.001, 0.02]))}
    if cls not in (ShallowTreeClassifier, ShallowTreeRegressor):
        params["init"] = draw(st.sampled_from(["bivariate", "univariate"]))
    return cls, X, y, weight, cst, params


@settings(max_examples=60, deadline=None,
          suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large])
@given(problems())
def test_hypothesis_monotone_and_bounded(problem):
    cls, X, y, weight, cst, params = problem
    est = cls(monotonic_cst=cst, **params).fit(X, y, sample_weight=weight)
    assert_monotone(est, X, y, cst, X[:10], weight, n_grid=12)


@settings(max_examples=20, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(st.integers(0, 2**32 - 1), st.lists(st.integers(0, 3), min_size=1, max_size=4),
       st.lists(st.integers(0, 3), min_size=1, max_size=4))
def test_hypothesis_no_node_pairs_features_of_different_groups(seed, group_a, group_b):
    X, y, _ = make_data(seed % 1000, n=80)
    groups = [sorted(set(group_a)), sorted(set(group_b))]
    est = TAOTreeClassifier(max_depth=4, interaction_cst=groups, exact_max_samples=40,
                            random_state=0).fit(X, y)
    assert_groups_respected(est, est.interaction_cst_)


# ----------------------------------------------------------------- interaction groups
@pytest.mark.parametrize("name", ["tao-clf", "shallow", "cv-clf"])
def test_interaction_groups_are_respected(name):
    X, y = _cross_group_data()
    free, _ = fit(name, X, y, None)
    assert (0, 2) in _pairs_used(tao_estimator(free))
    est, _ = fit(name, X, y, None, interaction_cst=[[0, 1], [2, 3]])
    assert tao_estimator(est).interaction_cst_ == [[0, 1], [2, 3]]
    assert _pairs_used(tao_estimator(est)) <= {(0, 1), (2, 3)}
    with pytest.raises(AssertionError):
        assert_groups_respected(free, [[0, 1], [2, 3]])


def test_interaction_groups_screened_pairs_by_name_and_no_interactions():
    X, y = _cross_group_data(1)
    frame = pd.DataFrame(X, columns=list("abcd"))
    est = TAOTreeClassifier(max_depth=3, interaction_cst=[["a", "b"], ["c", "d"]])
    est._pair_features = 2  # the selectors' screening: the allowed pairs among the best
    est.fit(frame, y)
    assert est.interaction_cst_ == [[0, 1], [2, 3]]
    assert _pairs_used(est) <= {(0, 1), (2, 3)}
    for univariate_only in ("no_interactions", [[0], [1], [2], [3]]):
        est = TAOTreeRegressor(max_depth=3, interaction_cst=univariate_only).fit(X, y)
        assert est.tree_.n_node_features.max() <= 1


# ------------------------------------------------------------ initial trees, warm starts
def _conflict_data(seed=0, n=200):
    """The class follows ``x0 - x1``: its best tests weigh two features of the same
    constraint with opposite signs."""
    rng = np.random.default_rng(seed)
    X = rng.uniform(size=(n, 3))
    return X, (X[:, 0] - X[:, 1] + 0.05 * rng.normal(size=n) > 0).astype(int)


def test_a_given_tree_that_breaks_the_constraints_is_refused():
    X, y = _conflict_data()
    cst = [1, 1, 0]
    greedy = BivariateTreeClassifier(splitter="orientations", max_depth=3).fit(X, y)
    assert any(node_order(greedy.tree_, cst, i) == CONFLICT
               for i in np.flatnonzero(~greedy.tree_.is_leaf))
    for init in (greedy.tree_, greedy, [greedy.tree_, "bivariate"]):
        with pytest.raises(ValueError, match="the initial tree \\(init\\) breaks the "
                                             "constraints: its node \\d+ tests feature"):
            TAOTreeClassifier(init=init, monotonic_cst=cst).fit(X, y)
    with pytest.raises(ValueError, match="which interaction_cst keeps out of one test"):
        TAOTreeClassifier(init=greedy.tree_, interaction_cst=[[0], [1, 2]]).fit(X, y)
    # an unfitted estimator is grown under the constraints: it passes
    est = TAOTreeClassifier(init=BivariateTreeClassifier(splitter="orientations", max_depth=3),
                            monotonic_cst=cst).fit(X, y)
    assert_monotone(est, X, y, cst, X[:20])
    # a warm start from a tree the new constraints forbid
    free = TAOTreeClassifier(max_depth=3, warm_start=True).fit(X, y)
    assert any(node_order(free.tree_, cst, i) == CONFLICT
               for i in np.flatnonzero(~free.tree_.is_leaf))
    with pytest.raises(ValueError, match="warm_start: the previous fit's tree breaks"):
        free.set_params(monotonic_cst=cst).fit(X, y)


def test_init_auto_list_and_path_steps_are_monotone():
    X, y_clf, y_reg = make_data(8)
    rows = random_rows(X, np.random.default_rng(0), 15)
    for init in ("auto", ["bivariate", "univariate"]):
        est = TAOTreeRegressor(max_depth=4, init=init, monotonic_cst=CST,
                               random_state=0).fit(X, y_reg)
        assert_monotone(est, X, y_reg, CST, rows)
    path = tao_path(TAOTreeClassifier(max_depth=4, monotonic_cst=CST), X, y_clf,
                    random_state=0, max_steps=6)
    assert len(path.steps) > 1
    for step in path.steps:
        assert_monotone_predictions(step.estimator, X, CST, rows, n_grid=12)


def test_shallow_leaves_out_the_optimal_univariate_start_under_monotonic_constraints():
    X, y, _ = make_data(9)
    est = ShallowTreeClassifier(max_depth=2, monotonic_cst=CST).fit(X, y)
    assert est.start_objectives_.size == 4  # the greedy starts
    assert est.best_params_["start"] != "optimal-univariate"
    crossed = ShallowTreeClassifier(max_depth=2, cv=2, monotonic_cst=CST).fit(X, y)
    assert "optimal-univariate" not in crossed.cv_results_["param_start"]
    assert_monotone(crossed, X, y, CST, X[:20])
    free = ShallowTreeClassifier(max_depth=2).fit(X, y)
    assert free.start_objectives_.size == 5
    with pytest.raises(ValueError, match="starts lists only 'optimal-univariate', which is "
                                         "left out with monotonic_cst"):
        ShallowTreeClassifier(max_depth=2, starts=["optimal-univariate"],
                              monotonic_cst=CST).fit(X, y)
    # a univariate tree respects any interaction groups: the start stays
    grouped = ShallowTreeClassifier(max_depth=2, interaction_cst="no_interactions").fit(X, y)
    assert grouped.start_objectives_.size == 5
    assert grouped.tree_.n_node_features.max() <= 1


# ------------------------------------------------------------------------------- errors
@pytest.mark.parametrize(("params", "message"), [
    ({"monotonic_cst": [1, 0]}, "monotonic_cst has shape \\(2,\\) but X has 3 features"),
    ({"monotonic_cst": [1, 0, 2]}, "array-like of -1, 0 or 1 .* got 2"),
    ({"monotonic_cst": {"a": 1, "nope": -1}}, "names 'nope', which is not a column of X"),
    ({"monotonic_cst": {"colour": 1}},
     "constrains the categorical feature 2 \\('colour'\\); categories have no order"),
    ({"interaction_cst": [["a", "nope"]]}, "names 'nope', which is not a column of X"),
    ({"interaction_cst": [[0, 3]]}, "feature indices in \\[0, 2\\] or column names, got 3"),
    ({"interaction_cst": "all"}, "interaction_cst must be None, 'no_interactions', 'pairwise'"),
    ({"monotonic_cst": 3}, "monotonic_cst must be None, a dict .* or an array-like, got 3"),
])
@pytest.mark.parametrize("cls", [TAOTreeClassifier, TAOTreeRegressor, ShallowTreeClassifier,
                                 ShallowTreeRegressor, TAOTreeClassifierCV, TAOTreeRegressorCV])
def test_invalid_constraints_are_refused(cls, params, message):
    frame, y = _frame()
    with pytest.raises(ValueError, match=message):
        cls(**params).fit(frame, y)


@pytest.mark.parametrize("cls", [TAOTreeClassifier, ShallowTreeClassifier, TAOTreeClassifierCV])
def test_names_need_column_names_and_multiclass_is_refused(cls):
    X, y, _ = make_data(11, n=60)
    with pytest.raises(ValueError, match="X has no column names"):
        cls(monotonic_cst={"a": 1}).fit(X, y)
    with pytest.raises(ValueError, match="not supported with multiclass classification"):
        cls(monotonic_cst=CST).fit(X, np.arange(60) % 3)


def test_multiple_outputs_are_refused():
    X, y, _ = make_data(12, n=60)
    with pytest.raises(ValueError, match="not supported with multiple outputs"):
        TAOTreeRegressor(monotonic_cst=CST).fit(X, np.column_stack([y, y]))


# -------------------------------------------------------------------- saved models, rules
@pytest.mark.parametrize("name", ["tao-clf", "tao-reg", "cv-clf"])
def test_json_round_trip_keeps_the_constraints(name, tmp_path):
    X, y_clf, y_reg = make_data(14, missing=0.05)
    frame = pd.DataFrame(X, columns=["up", "down", "free", "up2"])
    est, _ = fit(name, frame, y_clf, y_reg, monotonic_cst={"up": 1, "down": -1, "up2": 1},
                 interaction_cst=[["up", "down"], ["free"]])
    model = tao_estimator(est)
    text = to_json(model)
    saved = json.loads(text)
    assert saved["version"] == 5
    assert saved["params"]["monotonic_cst"] == {"dict": [["up", 1], ["down", -1], ["up2", 1]]}
    assert saved["constraints"] == {"monotonic": CST, "interaction": [[0, 1], [2], [3]]}
    back = from_json(text)
    assert type(back) is type(model)
    assert back.monotonic_cst_.tolist() == CST
    assert back.interaction_cst_ == model.interaction_cst_
    assert back.get_params() == model.get_params()
    np.testing.assert_array_equal(back.predict(frame), est.predict(frame))
    assert to_json(back) == text
    model.save(tmp_path / "model.json")
    assert type(model).load(tmp_path / "model.json").tree_ == model.tree_
    line = "monotonic: up increasing, down decreasing, up2 increasing"
    assert fitted_constraints(est).startswith(line)
    assert export_text(est).splitlines()[0].startswith(f"# fitted under constraints: {line}")


@pytest.mark.parametrize(("model", "extra"), [
    ("tao", ["--set", "alpha=0.002"]),
    ("tao-cv", ["--set", "n_lambdas=3", "--set", "feature_costs=[1.25]", "--set", "cv=2",
                "--set", "inits=[\"bivariate\"]", "--set", "restarts=false"]),
])
def test_command_line_fits_tao_under_constraints(tmp_path, capsys, model, extra):
    path, frame = _table(tmp_path)
    out = tmp_path / "model.json"
    assert main(["fit", str(path), "--target", "target", "-o", str(out), "-q",
                 "--model", model, "--max-depth", "4", "--monotonic", "debt_ratio=+1",
                 "--monotonic", "age=-1", "--pairs", "waist,height", "income,debt",
                 *extra]) == 0
    saved = json.loads(out.read_text())
    assert saved["estimator"] == "TAOTreeClassifier"
    assert saved["params"]["monotonic_cst"] == {"dict": [["debt_ratio", 1], ["age", -1]]}
    assert saved["params"]["interaction_cst"] == [["waist", "height"], ["income", "debt"]]
    assert saved["constraints"]["monotonic"] == [1, -1, 0, 0, 0, 0]
    assert saved["constraints"]["interaction"] == [[2, 3], [4, 5], [0, 1]]
    est = from_json(out.read_text())
    X = frame.drop(columns="target")
    assert_monotone_predictions(est, X.to_numpy(), [1, -1, 0, 0, 0, 0], X.to_numpy()[:10])
    assert_groups_respected(est, saved["constraints"]["interaction"])
    capsys.readouterr()
    assert main(["show", str(out)]) == 0
    assert "# fitted under constraints: monotonic: debt_ratio increasing" in (
        capsys.readouterr().out)
