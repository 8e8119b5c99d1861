"""TAO model selection: paths with restarts, the 1-SE rule, time limits, screening, estimators."""

import io
import time
import types
from contextlib import redirect_stdout

import numpy as np
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from sklearn.model_selection import PredefinedSplit, ShuffleSplit
from sklearn.utils.estimator_checks import parametrize_with_checks

import bivtree.tao.optimizer as tao_module
from bivtree import (
    BivariateTreeClassifier,
    TAOTreeClassifier,
    TAOTreeClassifierCV,
    TAOTreeRegressorCV,
    export_text,
    load_model,
    save_model,
)
from bivtree.tao.optimizer import TAOData, TAOOptimizer, TAOState
from bivtree.tao.selection import grid_below, lambda_grid, run_path, select_candidate

SETTINGS = settings(max_examples=8, deadline=None,
                    suppress_health_check=[HealthCheck.too_slow])

#: small settings that keep every fit of a test short
SMALL = {"feature_costs": [1.0, 1.5], "n_lambdas": 6, "max_depth": 4, "cv": 2,
         "random_state": 0}


def blobs(n, d, seed, n_classes=2):
    rng = np.random.default_rng(seed)
    X = rng.normal(size=(n, d))
    y = ((X[:, 0] + 0.7 * X[:, 1 % d] + 0.6 * rng.normal(size=n)) > 0).astype(int)
    if n_classes > 2:
        y = y + (X[:, -1] > 0.8).astype(int)
    return X, y


# ------------------------------------------------------------------ the path

@SETTINGS
@given(seed=st.integers(0, 10_000), n=st.integers(40, 160), d=st.integers(2, 4))
def test_restarts_never_give_a_higher_objective_than_the_warm_start(seed, n, d):
    X, y = blobs(n, d, seed, n_classes=3)
    tree = BivariateTreeClassifier(max_depth=4, n_orientations=8).fit(X, y).tree_
    alphas = lambda_grid(n, 0.5, 0.2, 6)
    params = {"feature_cost": 1.25, "n_orientations": 8}
    steps, complete, _ = run_path(True, params, tree, X, y, None, X, y, alphas, restarts=True)
    assert complete
    for step in steps[1:]:
        assert step["objective"] <= step["warm_objective"]
        assert step["objective"] == min(step["warm_objective"], step["restart_objective"])
        assert step["restarted"] == (step["restart_objective"] < step["warm_objective"])
    # a restart is TAO from the initial tree: the same fit as a fresh estimator's
    for step in steps[1:]:
        fresh = TAOTreeClassifier(init=tree, alpha=step["alpha"], **params).fit(X, y)
        assert step["restart_objective"] == pytest.approx(fresh.objective_, rel=1e-12)


def test_a_restart_can_escape_the_warm_started_optimum():
    # on this data the warm-started path gets stuck; the restart finds a lower objective
    found = False
    for seed in range(6):
        X, y = blobs(150, 3, seed, n_classes=3)
        tree = BivariateTreeClassifier(max_depth=4, n_orientations=8).fit(X, y).tree_
        steps, _, _ = run_path(True, {"feature_cost": 1.25, "n_orientations": 8}, tree, X, y,
                               None, X, y, lambda_grid(150, 0.5, 0.2, 8), restarts=True)
        found |= any(s["restarted"] for s in steps)
    assert found


def test_without_restarts_the_path_is_warm_started_only():
    X, y = blobs(120, 3, 1)
    tree = BivariateTreeClassifier(max_depth=4).fit(X, y).tree_
    steps, _, _ = run_path(True, {"feature_cost": 1.25}, tree, X, y, None, None, None,
                           lambda_grid(120, 0.5, 0.2, 5), restarts=False)
    assert all(np.isnan(s["restart_objective"]) and not s["restarted"] for s in steps)
    assert all(s["objective"] == s["warm_objective"] for s in steps)
    alphas = [s["alpha"] for s in steps]
    assert alphas == sorted(alphas)


@SETTINGS
@given(seed=st.integers(0, 10_000), n=st.integers(40, 160), d=st.integers(2, 4),
       prune=st.booleans())
def test_an_independent_path_fits_every_alpha_from_the_initial_tree(seed, n, d, prune):
    # restarts="only": each step is TAO from the initial tree (pruned at its alpha with
    # prune_init) alone, whatever the steps before it, refined values included
    X, y = blobs(n, d, seed, n_classes=3)
    tree = BivariateTreeClassifier(n_orientations=8, random_state=0).fit(X, y).tree_
    params = {"feature_cost": 1.25, "n_orientations": 8, "prune_init": prune}
    steps, complete, _ = run_path(True, params, tree, X, y, None, X, y,
                                  lambda_grid(n, 0.5, 0.2, 5), restarts="only", max_refine=2)
    assert complete
    visited = [s["alpha"] for s in steps]
    assert visited == sorted(visited) and len(set(visited)) == len(visited)
    for step in steps:
        fresh = TAOTreeClassifier(init=tree, alpha=step["alpha"], **params).fit(X, y)
        assert step["objective"] == pytest.approx(fresh.objective_, rel=1e-12)
        assert step["nodes"] == fresh.tree_.node_count
        assert step["restarted"] and np.isnan(step["warm_objective"])


def test_an_independent_path_fits_each_alpha_once(monkeypatch):
    # a refinement fits the values before a step, not that step again
    X, y = blobs(300, 4, 2, n_classes=3)
    tree = BivariateTreeClassifier(max_depth=6).fit(X, y).tree_
    fitted = []
    real_fit = TAOTreeClassifier.fit

    def counting_fit(self, *args, **kwargs):
        fitted.append(self.alpha)
        return real_fit(self, *args, **kwargs)

    monkeypatch.setattr(TAOTreeClassifier, "fit", counting_fit)
    steps, _, _ = run_path(True, {"feature_cost": 1.25}, tree, X, y, None, None, None,
                           lambda_grid(300, 0.5, 0.3, 3), restarts="only", max_refine=2)
    visited = {s["alpha"] for s in steps}
    assert len(fitted) == len(set(fitted))  # (a value held for after a refinement may
    assert visited <= set(fitted)  # go unused: the path ends at one node before it)
    assert visited - set(lambda_grid(300, 0.5, 0.3, 3))  # refined between the grid's


def test_the_selectors_fit_independent_paths_where_the_initial_trees_are_pruned():
    X, y = blobs(200, 3, 4)
    small = {**SMALL, "max_depth": None, "n_lambdas": 4}
    cv = TAOTreeClassifierCV(**small).fit(X, y)
    # the refit is the chosen alpha's fit alone, the same as a fresh TAO fit of it
    assert len(cv.refit_path_) == 1
    assert cv.refit_path_[0]["alpha"] == cv.best_params_["alpha"]
    tree = BivariateTreeClassifier(splitter="orientations", random_state=0).fit(X, y).tree_
    if cv.best_params_["init"] == "univariate":
        tree = BivariateTreeClassifier(splitter="univariate", random_state=0).fit(X, y).tree_
    fresh = TAOTreeClassifier(init=tree, alpha=cv.best_params_["alpha"],
                              feature_cost=cv.best_params_["feature_cost"]).fit(X, y)
    fresh._pair_features = 8
    fresh.fit(X, y)
    assert cv.best_estimator_.objective_ == pytest.approx(fresh.objective_, rel=1e-12)
    # a depth-limited selection keeps its whole starts and warm paths with restarts
    limited = TAOTreeClassifierCV(**SMALL).fit(X, y)
    assert limited.best_estimator_.prune_init is False
    assert len(limited.refit_path_) > 1 or limited.best_params_["alpha"] == \
        limited.cv_results_["alpha"].min()
    assert np.all(np.isfinite([s["warm_objective"] for s in limited.refit_path_]))


def test_refinement_halves_steps_where_the_tree_shrinks():
    X, y = blobs(300, 4, 2, n_classes=3)
    tree = BivariateTreeClassifier(max_depth=6).fit(X, y).tree_
    coarse = lambda_grid(300, 0.5, 0.3, 3)
    plain, _, _ = run_path(True, {"feature_cost": 1.25}, tree, X, y, None, None, None, coarse,
                           restarts=False, max_refine=0)
    refined, _, _ = run_path(True, {"feature_cost": 1.25}, tree, X, y, None, None, None,
                             coarse, restarts=False, max_refine=2)
    assert [s["alpha"] for s in plain] == list(coarse[:len(plain)])
    visited = [s["alpha"] for s in refined]
    assert visited == sorted(visited) and len(set(visited)) == len(visited)
    assert set(visited) - set(coarse)  # values between the grid's
    # every grid value up to where the refined path ended (it may reach one decision
    # node at an inserted value, and stop there)
    assert {a for a in coarse if a <= visited[-1]} <= set(visited)


def test_lambda_grid_is_geometric_in_samples_per_node():
    alphas = lambda_grid(1000.0, 2.0, 0.1, 5)
    np.testing.assert_allclose(alphas * 1000, np.geomspace(2.0, 100.0, 5))


def test_grid_below_is_a_decade_at_the_base_ratio():
    alphas = lambda_grid(1000.0, 1.0, 0.1, 5)  # ratio 100^(1/4), about 3.16
    lower = grid_below(alphas)
    ratio = alphas[1] / alphas[0]
    np.testing.assert_allclose(lower, alphas[0] * ratio ** -np.array([2.0, 1.0]))
    assert lower[0] <= alphas[0] / 10 < lower[1]
    assert np.all(np.diff(np.concatenate([lower, alphas])) > 0)


def _smooth_low_noise(n=300, seed=0):
    rng = np.random.default_rng(seed)
    X = rng.uniform(-1, 1, size=(n, 2))
    return X, np.sin(3 * X[:, 0]) + X[:, 1] ** 2 + 0.01 * rng.normal(size=n)


def test_regression_grid_extends_below_while_the_best_score_is_there():
    # a smooth target with little noise: its best trees keep nodes whose gain is far
    # below one sample's share of the targets' variance, the grid's default lower end
    X, y = _smooth_low_noise()
    params = {**SMALL, "max_depth": 6}
    fixed = TAOTreeRegressorCV(**params, max_grid_extensions=0).fit(X, y)
    grown = TAOTreeRegressorCV(**params).fit(X, y)
    lowest = fixed.cv_results_["lambda"].min()
    assert fixed.n_grid_extensions_ == 0
    assert fixed.cv_results_["lambda"][np.argmax(fixed.cv_results_["mean_score"])] == lowest
    assert grown.n_grid_extensions_ >= 1
    assert grown.cv_results_["lambda"].min() < lowest / 5
    assert grown.cv_results_["mean_score"].max() > fixed.cv_results_["mean_score"].max()
    # the paths of the old grid are kept: its candidates are the same
    def rows(cv, above):
        r = cv.cv_results_
        keep = r["lambda"] >= above * (1 - 1e-9)
        return sorted(zip(r["feature_cost"][keep], r["init"][keep], r["alpha"][keep],
                          r["mean_score"][keep], r["mean_nodes"][keep]))
    assert rows(grown, lowest) == rows(fixed, lowest)
    assert grown.best_params_["alpha"] < fixed.cv_results_["alpha"].min()


#: the path key of the grid-extension tests' one split, initial tree and C
_EXTENSION_KEY = (0, "univariate", 1.0)


def _unit_noise(n=100):
    """``n`` values of mean 0 and standard deviation 0.1 (standard error 0.01 at 100)."""
    noise = np.random.default_rng(0).normal(size=n)
    return 0.1 * (noise - noise.mean()) / noise.std()


#: the per-sample spread of every step's validation scores
_EXTENSION_NOISE = _unit_noise()


def _extension_step(alpha, score):
    """A path step scoring ``score`` on 100 validation samples, standard error 0.01."""
    return {"alpha": alpha, "val_score": score, "val_samples": score + _EXTENSION_NOISE,
            "nodes": 7, "leaves": 4, "n_bivariate": 1}


def _extend(scores_below):
    """Run ``_extend_grid`` from a base grid whose best is at its smallest ``alpha``.

    ``scores_below(lower, k)`` gives the scores of the ``k``-th decade added (from 0).
    Returns the selector and the decades run.
    """
    alphas = np.array([1e-3, 2e-3, 4e-3])
    paths = {_EXTENSION_KEY: ([_extension_step(a, sc) for a, sc in zip(alphas, (0.8, 0.7, 0.6))],
                              True, None)}
    runs = []

    def run_paths(lower):
        scores = scores_below(lower, len(runs))
        runs.append(lower)
        return {_EXTENSION_KEY: ([_extension_step(a, sc) for a, sc in zip(lower, scores)],
                                 True, None)}

    cv = TAOTreeRegressorCV(max_grid_extensions=3)
    grid = cv._extend_grid(paths, alphas, run_paths, ([1.0], ["univariate"], 1, 1.0), False,
                           None, lambda *a, **k: None)
    assert grid.size == alphas.size + sum(r.size for r in runs)
    return cv, runs


def test_no_extension_after_one_that_gains_at_most_a_standard_error():
    # the best score stays at the smallest lambda of each extension, but the second one
    # gains 0.005 with a standard error of 0.01: a third is not run
    tops = [0.9, 0.905, 0.95]
    cv, runs = _extend(lambda lower, k: tops[k] - 0.01 * np.arange(lower.size))
    assert cv.n_grid_extensions_ == len(runs) == 2
    assert cv.cv_results_["mean_score"].max() == pytest.approx(0.905)


def test_extension_goes_on_while_the_best_is_in_the_decade_last_added():
    # the first decade below raises the best score by 0.1 (standard error 0.01), its best
    # in the middle of the decade, not at its smallest value: a second decade is run; that
    # one raises nothing, the best stays in the first: no third
    def scores(lower, k):
        if k == 0:  # peaked inside the decade
            return 0.9 - 0.02 * np.abs(np.arange(lower.size) - lower.size // 2)
        return np.full(lower.size, 0.85)

    cv, runs = _extend(scores)
    assert len(runs) == cv.n_grid_extensions_ == 2
    assert runs[1][-1] < runs[0][0]  # the second decade lies below the first
    r = cv.cv_results_
    best = np.argmax(r["mean_score"])
    assert r["mean_score"][best] == pytest.approx(0.9)
    assert r["alpha"][best] == runs[0][runs[0].size // 2]


def test_no_extension_when_the_best_leaves_the_decade_last_added():
    # after the first decade the best is back on the base grid: no second decade
    cv, runs = _extend(lambda lower, k: np.full(lower.size, 0.75))
    assert len(runs) == cv.n_grid_extensions_ == 1


def test_classification_grid_is_not_extended_by_default():
    X, y = blobs(150, 3, 0)
    cv = TAOTreeClassifierCV(**SMALL).fit(X, y)
    assert cv.n_grid_extensions_ == 0
    assert cv.cv_results_["lambda"].min() >= SMALL.get("lambda_min", 1.0) * (1 - 1e-9)


# ------------------------------------------------------------- the 1-SE rule

def naive_one_se(mean, nodes, se, alpha):
    best_score = max(mean)
    best = min((i for i in range(len(mean)) if mean[i] == best_score),
               key=lambda i: (nodes[i], -alpha[i], i))
    within = [i for i in range(len(mean)) if mean[i] >= mean[best] - se[best]]
    return min(within, key=lambda i: (nodes[i], -mean[i], -alpha[i], i))


@SETTINGS
@given(st.lists(st.tuples(st.sampled_from([0.8, 0.82, 0.85, 0.86, 0.9]), st.integers(1, 30),
                          st.sampled_from([0.0, 0.01, 0.03]), st.floats(0, 1)),
                min_size=1, max_size=12))
def test_one_se_rule_picks_the_smallest_tree_within_one_standard_error(rows):
    mean, nodes, se, alpha = (np.array(c, dtype=float) for c in zip(*rows))
    assert select_candidate(mean, nodes, se, alpha, "1se") == naive_one_se(mean, nodes, se,
                                                                           alpha)
    best = select_candidate(mean, nodes, se, alpha, "best")
    assert mean[best] == mean.max()


def test_one_se_rule_on_a_fitted_selector():
    X, y = blobs(240, 3, 4, n_classes=3)
    cv = TAOTreeClassifierCV(rule="1se", **SMALL).fit(X, y)
    r = cv.cv_results_
    best = int(np.argmax(r["mean_score"]))
    within = r["mean_score"] >= r["mean_score"].max() - r["se_score"][best] - 1e-12
    assert r["mean_nodes"][cv.best_index_] == r["mean_nodes"][within].min()
    top = TAOTreeClassifierCV(rule="best", **SMALL).fit(X, y)
    assert top.cv_results_["mean_score"][top.best_index_] == r["mean_score"].max()
    assert cv.cv_results_["mean_nodes"][cv.best_index_] <= \
        top.cv_results_["mean_nodes"][top.best_index_]


# -------------------------------------------------------------- the selector

def test_selector_exposes_the_frontier_and_refits_the_choice():
    X, y = blobs(240, 3, 5, n_classes=3)
    cv = TAOTreeClassifierCV(**SMALL, finalists=None).fit(X, y)
    assert cv.race_results_ is None
    r = cv.cv_results_
    n = r["alpha"].size
    assert n > 0 and all(len(r[k]) == n for k in ("feature_cost", "init", "mean_nodes",
                                                    "mean_score", "se_score"))
    assert r["split_scores"].shape == (n, 2)
    assert set(r["init"]) == {"bivariate", "univariate"}
    assert set(r["feature_cost"]) == {1.0, 1.5}
    np.testing.assert_allclose(r["mean_score"], r["split_scores"].mean(axis=1))
    best = cv.best_estimator_
    assert best.alpha == cv.best_params_["alpha"] == r["alpha"][cv.best_index_]
    assert best.feature_cost == cv.best_params_["feature_cost"]
    assert best.init == best.init_ == cv.best_params_["init"]
    assert cv.refit_path_[-1]["alpha"] == cv.best_params_["alpha"]
    np.testing.assert_array_equal(cv.predict(X), best.predict(X))
    assert cv.predict_proba(X).shape == (240, 3)
    frame = cv.results_frame()
    assert frame["selected"].sum() == 1 and len(frame) == n


@pytest.mark.parametrize("name, value, default", [
    ("pair_search", "orientations", "coarse_to_fine"),
    ("exact_max_samples", 7, 100),  # 100: the classifiers' default
])
def test_tao_parameters_reach_every_tao_fit(monkeypatch, name, value, default):
    X, y = blobs(200, 3, 6)
    seen = set()
    init = TAOOptimizer.__init__

    def recording(self, *args, **kwargs):
        seen.add(kwargs[name])
        init(self, *args, **kwargs)

    monkeypatch.setattr(TAOOptimizer, "__init__", recording)
    cv = TAOTreeClassifierCV(**{name: value}, **SMALL).fit(X, y)
    assert seen == {value} and getattr(cv.best_estimator_, name) == value
    seen.clear()
    TAOTreeClassifierCV(**SMALL).fit(X, y)
    assert seen == {default}


def test_a_refit_path_with_no_tree_falls_back_to_tao_from_the_initial_tree(monkeypatch):
    # a refit path that returns no estimator (no time left at all): TAO from the initial
    # tree, stopped at once, is the selected estimator
    import bivtree.tao.selection as ts

    X, y = blobs(200, 3, 6)
    real = ts.run_path

    def no_refit_tree(*args, **kwargs):
        steps, complete, est = real(*args, **kwargs)
        return steps, complete, None if kwargs.get("keep_last") else est

    monkeypatch.setattr(ts, "run_path", no_refit_tree)
    cv = TAOTreeClassifierCV(**SMALL).fit(X, y)
    assert cv.best_estimator_.alpha == cv.best_params_["alpha"]
    assert cv.n_iter_ == cv.best_estimator_.n_iter_
    assert cv.predict(X).shape == (200,)


def test_the_selected_tree_saves_and_loads(tmp_path):
    X, y = blobs(200, 3, 6)
    cv = TAOTreeClassifierCV(**SMALL).fit(X, y)
    save_model(cv.best_estimator_, tmp_path / "m.json")
    loaded = load_model(tmp_path / "m.json")
    np.testing.assert_array_equal(loaded.predict(X), cv.predict(X))


def test_one_and_two_jobs_give_identical_selections():
    X, y = blobs(200, 3, 7, n_classes=3)
    a = TAOTreeClassifierCV(n_jobs=1, **SMALL).fit(X, y)
    b = TAOTreeClassifierCV(n_jobs=2, **SMALL).fit(X, y)
    assert a.best_params_ == b.best_params_
    for key, value in a.cv_results_.items():
        np.testing.assert_array_equal(value, b.cv_results_[key])
    for name in ("children_left", "features", "weights", "threshold", "value"):
        np.testing.assert_array_equal(getattr(a.tree_, name), getattr(b.tree_, name))


def test_a_single_validation_split_keeps_its_tree():
    X, y = blobs(200, 3, 8)
    fold = np.where(np.arange(200) % 5 == 0, 0, -1)
    params = {**SMALL, "cv": PredefinedSplit(fold)}
    cv = TAOTreeClassifierCV(**params).fit(X, y)
    assert cv.n_splits_ == 1
    # refit="auto" keeps the tree fitted on the training part: 160 samples, the very
    # tree that was validated
    assert cv.tree_.weighted_n_node_samples[0] == 160
    val = fold == 0
    assert cv.score(X[val], y[val]) == cv.cv_results_["mean_score"][cv.best_index_]
    assert cv.best_estimator_.alpha <= cv.best_params_["alpha"]
    refit = TAOTreeClassifierCV(**{**params, "refit": True}).fit(X, y)
    assert refit.tree_.weighted_n_node_samples[0] == 200
    with pytest.raises(ValueError, match="single split"):
        TAOTreeClassifierCV(**{**SMALL, "refit": False}).fit(X, y)


def test_repeated_validation_splits():
    X, y = blobs(200, 3, 9)
    cv = TAOTreeClassifierCV(**{**SMALL, "cv": ShuffleSplit(3, test_size=0.25,
                                                            random_state=0)}).fit(X, y)
    assert cv.n_splits_ == 3 and cv.cv_results_["split_scores"].shape[1] == 3


def test_regression_selector():
    rng = np.random.default_rng(0)
    X = rng.uniform(-1, 1, size=(240, 3))
    y = np.where(X[:, 0] + X[:, 1] > 0, 2.0, -1.0) + 0.1 * rng.normal(size=240)
    cv = TAOTreeRegressorCV(**SMALL).fit(X, y)
    assert cv.score(X, y) > 0.9
    assert cv.lambda_unit_ == pytest.approx(np.var(y))
    np.testing.assert_allclose(cv.cv_results_["lambda"],
                               cv.cv_results_["alpha"] * 240 / np.var(y))


def _categorical_table(n=300, seed=0):
    import pandas as pd

    rng = np.random.default_rng(seed)
    table = pd.DataFrame({"a": rng.normal(size=n), "b": rng.normal(size=n),
                          "colour": pd.Categorical(rng.choice(["red", "green", "blue"], n)),
                          "grade": rng.choice(["low", "high"], n)})
    y = ((table.a + 2 * (table.colour == "red")) > 0.5).astype(int).to_numpy()
    return table, y


@pytest.mark.parametrize("restarts", [True, False])
def test_selectors_take_category_columns(restarts):
    # a DataFrame's category and text columns reach every initial tree and TAO fit (and
    # the restarts' start): before, the restarts refused the initial tree's subset nodes
    table, y = _categorical_table()
    cv = TAOTreeClassifierCV(**{**SMALL, "restarts": restarts}).fit(table, y)
    best = cv.best_estimator_
    assert best.is_categorical_.tolist() == [False, False, True, True]
    assert list(best.categories_[2]) == ["blue", "green", "red"]
    assert bool(np.any(best.tree_.is_categorical))
    assert "colour" in export_text(best)
    assert cv.score(table, y) > 0.95
    regressor = TAOTreeRegressorCV(**SMALL).fit(table, y.astype(float))
    assert regressor.best_estimator_.is_categorical_.tolist() == [False, False, True, True]


def test_selectors_take_categorical_features_by_index():
    table, y = _categorical_table()
    X = np.column_stack([table.a, table.b, table.colour.cat.codes, table.grade == "high"])
    by_index = TAOTreeClassifierCV(**SMALL, categorical_features=[2, 3]).fit(X, y)
    assert by_index.best_estimator_.is_categorical_.tolist() == [False, False, True, True]
    numeric = TAOTreeClassifierCV(**SMALL, categorical_features=None).fit(X, y)
    assert numeric.best_estimator_.is_categorical_ is None  # every column numeric


def test_verbose_reports_progress():
    X, y = blobs(150, 3, 10)
    out = io.StringIO()
    with redirect_stdout(out):
        TAOTreeClassifierCV(verbose=1, **SMALL).fit(X, y)
    text = out.getvalue()
    assert "[TAOCV] growing" in text and "selected C=" in text and "done in" in text


def _progress_lines(text):
    return [line for line in text.splitlines() if line.startswith("[TAOCV] task ")]


@pytest.mark.parametrize("generator", [True, False])
def test_verbose_says_each_task_as_it_finishes_with_the_time_left(monkeypatch, generator):
    # one line per joblib task (3 initial trees x 2 splits), the time left on all but the
    # last; the same selection as without verbose, also where the backend cannot stream
    # results (generator=False: Parallel refuses return_as, as for multiprocessing)
    import joblib

    from bivtree.tao import selection

    class BlockParallel(joblib.Parallel):
        def __init__(self, *args, return_as="list", **kwargs):
            if return_as != "list":
                raise ValueError("Backend does not support return_as=generator_unordered")
            super().__init__(*args, **kwargs)

    if not generator:
        monkeypatch.setattr(selection, "Parallel", BlockParallel)
    X, y = blobs(150, 3, 10)
    params = {**SMALL, "inits": ["bivariate", "univariate"]}
    quiet = TAOTreeClassifierCV(**params).fit(X, y)
    out = io.StringIO()
    with redirect_stdout(out):
        loud = TAOTreeClassifierCV(verbose=1, **params).fit(X, y)
    lines = _progress_lines(out.getvalue())
    n_tasks = 2 * 2  # splits x initial trees (one job: no spare refit trees)
    assert [line.split(" done")[0] for line in lines] == [
        f"[TAOCV] task {k}/{n_tasks}" for k in range(1, n_tasks + 1)]
    assert all("s left in this round" in line for line in lines[:-1])
    assert "left" not in lines[-1]
    assert export_text(loud) == export_text(quiet)
    np.testing.assert_array_equal(loud.cv_results_["mean_score"],
                                  quiet.cv_results_["mean_score"])


def test_the_time_left_replays_the_schedule_of_the_waiting_tasks():
    from bivtree.tao.selection import _TaskProgress

    # two workers, tasks of kinds a a b b a in dispatch order
    progress = _TaskProgress(["t0", "t1", "t2", "t3", "t4"], ["a", "a", "b", "b", "a"], 2,
                             print)
    # t0 finishes at 10 s after 10 s: t1 (kind a, estimated 10 s) has run 10 s since 0,
    # t2 started at 10 s on the free worker, estimated 10 s (no b has finished: the mean
    # of all); t3 and t4 wait: 10 + 10 each on the first free worker
    assert progress.record(0, 10.0, now=10.0) == pytest.approx(20.0)
    # t2 (kind b) finishes at 14 s after 4 s: t1 is late (its estimate has passed: 0 left),
    # t3 (b, 4 s) started at 14 s, t4 (a, 10 s) waits for the first free worker (t1's)
    assert progress.record(2, 4.0, now=14.0) == pytest.approx(10.0)
    # t1 finishes at 16 s after 16 s (a: mean 13 s): t3 runs until 18 s, t4 started at 16 s
    assert progress.record(1, 16.0, now=16.0) == pytest.approx(13.0)
    assert progress.record(3, 4.0, now=18.0) == pytest.approx(11.0)
    assert progress.record(4, 13.0, now=29.0) == 0.0


def test_a_tree_alone_is_estimated_from_the_time_tasks_spent_growing_trees():
    from bivtree.tao.selection import _TaskProgress

    grow_b, grow_u = ("grow", True), ("grow", False)
    # one worker: two tasks that grow a tree and run paths, then the refit's trees of all
    # the data (1.5 times the rows) of each kind
    progress = _TaskProgress(["b", "u", "spare b", "spare u"],
                             [grow_b, grow_u, ("spare", True), ("spare", False)], 1, print,
                             [None, None, (grow_b, 1.5), (grow_u, 1.5)])
    # b: 10 s, 4 of them growing its tree. u (kind not finished yet) is taken as 10 s;
    # both spare trees as 1.5 x 4 (no univariate tree grown yet: any grown tree's time)
    assert progress.record(0, 10.0, now=10.0, tree_seconds=4.0) == pytest.approx(22.0)
    # u: 8 s, 0.2 growing: the univariate spare tree is now 1.5 x 0.2
    assert progress.record(1, 8.0, now=18.0, tree_seconds=0.2) == pytest.approx(6.3)


SMALL_RACE = {**SMALL, "feature_costs": [1.0, 1.25, 1.5]}


@pytest.mark.parametrize("finalists", [1, 2])
def test_the_race_keeps_the_finalists_candidates_as_they_are_without_it(finalists):
    X, y = blobs(240, 3, 5, n_classes=3)
    full = TAOTreeClassifierCV(**SMALL_RACE, finalists=None).fit(X, y)
    raced = TAOTreeClassifierCV(**SMALL_RACE, finalists=finalists).fit(X, y)
    race = raced.race_results_
    # per initial tree, the values of C of the best first-split scores, ties to the first
    for init in ("bivariate", "univariate"):
        mine = np.flatnonzero(race["init"] == init)
        assert race["finalist"][mine].sum() == finalists
        order = sorted(mine, key=lambda i: -race["first_split_score"][i])
        assert set(np.flatnonzero(race["finalist"])) & set(mine) == set(order[:finalists])
    # each setting's best score on the first split is the one the full run validated
    r = full.cv_results_
    for init, cost, score in zip(race["init"], race["feature_cost"],
                                 race["first_split_score"]):
        rows = (r["init"] == init) & (r["feature_cost"] == cost)
        assert score == pytest.approx(r["split_scores"][rows, 0].max())
    # the finalists' candidates are exactly the full run's (the same paths), and only they
    kept = set(zip(race["init"][race["finalist"]], race["feature_cost"][race["finalist"]]))
    rows = np.array([(i, c) in kept for i, c in zip(r["init"], r["feature_cost"])])
    for key, value in raced.cv_results_.items():
        np.testing.assert_array_equal(value, r[key][rows])
    assert set(zip(raced.cv_results_["init"], raced.cv_results_["feature_cost"])) == kept


def test_no_race_by_default_on_a_single_split_or_with_enough_finalists():
    X, y = blobs(200, 3, 6)
    assert TAOTreeClassifierCV(**SMALL).fit(X, y).race_results_ is None  # the default
    assert TAOTreeClassifierCV(**SMALL, finalists=2).fit(X, y).race_results_ is None
    one = TAOTreeClassifierCV(**{**SMALL, "cv": ShuffleSplit(1, test_size=0.3,
                                                             random_state=0)}).fit(X, y)
    assert one.race_results_ is None
    assert set(one.cv_results_["feature_cost"]) == {1.0, 1.5}


@pytest.mark.parametrize("params, message", [
    ({"finalists": 0}, "finalists"),
    ({"feature_costs": []}, "feature_costs must be"),
    ({"feature_costs": [1.0, -1.0]}, "feature_costs must be"),
    ({"inits": ["greedy"]}, "inits must name"),
    ({"bivariate_splitter": "nope"}, "bivariate_splitter must be"),
    ({"rule": "2se"}, "rule"),
    ({"n_lambdas": 0}, "n_lambdas"),
    ({"pair_features": 1}, "pair_features"),
    ({"lambda_max_fraction": 2.0}, "lambda_max_fraction"),
])
def test_bad_parameters_are_named(params, message):
    X, y = blobs(60, 3, 11)
    with pytest.raises(ValueError, match=message):
        TAOTreeClassifierCV(**{**SMALL, **params}).fit(X, y)


# -------------------------------------------------------------- time limits

class FakeClock:
    """``time.perf_counter`` that advances ``step`` seconds at every call."""

    def __init__(self, step):
        self.now = 0.0
        self.step = step

    def perf_counter(self):
        self.now += self.step
        return self.now


def test_time_limit_is_checked_between_depths(monkeypatch):
    # a deep tree: with a clock that moves only when read, the limit stops the
    # run between two depths of the first iteration, not at its end
    X, y = blobs(300, 3, 12, n_classes=3)
    tree = BivariateTreeClassifier().fit(X, y).tree_
    data = TAOData(np.asfortranarray(X), y.astype(np.int64), np.zeros(300), np.ones(300), 3)
    full = TAOOptimizer(data, alpha=0.001, feature_cost=1.25, n_orientations=8,
                        exact_max_samples=0, max_iter=5)
    state_full = TAOState.from_tree(tree, False)
    result_full = full.run(state_full)
    clock = FakeClock(1.0)
    monkeypatch.setattr(tao_module, "time", types.SimpleNamespace(perf_counter=clock.perf_counter))
    state = TAOState.from_tree(tree, False)
    opt = TAOOptimizer(data, alpha=0.001, feature_cost=1.25, n_orientations=8,
                       exact_max_samples=0, max_iter=5, time_limit=4.0, start=0.0)
    result = opt.run(state)
    assert result.n_iter == 1 and not result.converged
    # stopped inside the first pass: a partial pass, still a descent
    assert result.objective_path[1] <= result.objective_path[0]
    assert result.objective_path[1] >= result_full.objective_path[1]
    assert clock.now <= 4.0 + 3 * clock.step


def test_time_limit_counts_the_initial_tree(monkeypatch):
    X, y = blobs(200, 3, 13)
    calls = []
    real = BivariateTreeClassifier.fit

    def slow_fit(self, *args, **kwargs):
        calls.append(1)
        time.sleep(0.3)
        return real(self, *args, **kwargs)

    monkeypatch.setattr(BivariateTreeClassifier, "fit", slow_fit)
    est = TAOTreeClassifier(alpha=0.001, time_limit=0.2).fit(X, y)
    assert calls and est.n_iter_ == 0 and not est.converged_
    # the initial tree is returned, with its objective
    assert est.objective_ == pytest.approx(est.objective_path_[0])


def test_a_time_limit_too_short_for_any_path_still_gives_a_tree():
    X, y = blobs(200, 3, 19)
    with pytest.warns(UserWarning, match="left no candidate"):
        cv = TAOTreeClassifierCV(**{**SMALL, "time_limit": 1e-3}).fit(X, y)
    assert cv.best_index_ == -1 and cv.cv_results_["alpha"].size == 0
    assert cv.best_params_["feature_cost"] == 1.0 and cv.best_params_["init"] == "bivariate"
    assert cv.predict(X).shape == (200,)
    assert not cv.results_frame()["selected"].any()


@pytest.mark.slow
def test_time_limit_honoured_on_a_slow_case():
    # limits well above the (not interruptible) growth of the greedy initial trees
    X, y = blobs(5000, 12, 14, n_classes=3)
    for limit in (10.0, 20.0):
        t0 = time.perf_counter()
        cv = TAOTreeClassifierCV(time_limit=limit, bivariate_splitter="auto",
                                 random_state=0).fit(X, y)
        elapsed = time.perf_counter() - t0
        assert elapsed <= 1.1 * limit + 1.0, elapsed
        assert cv.best_estimator_.tree_.node_count >= 1
        t0 = time.perf_counter()
        TAOTreeClassifier(alpha=0.0001, init="univariate", time_limit=limit).fit(X, y)
        assert time.perf_counter() - t0 <= 1.1 * limit + 1.0


# ----------------------------------------------------------- pair screening

def _run_screened(X, y, pair_features, incremental=True, alpha=0.002):
    n = X.shape[0]
    tree = BivariateTreeClassifier(max_depth=5, n_orientations=8).fit(X, y).tree_
    data = TAOData(np.asfortranarray(X), y.astype(np.int64), np.zeros(n), np.ones(n),
                   int(y.max()) + 1)
    state = TAOState.from_tree(tree, False)
    opt = TAOOptimizer(data, alpha=alpha, feature_cost=1.1, n_orientations=8,
                       exact_max_samples=30, max_iter=6, incremental=incremental,
                       pair_features=pair_features)
    return state, opt.run(state)


def test_screening_every_feature_is_the_full_search():
    X, y = blobs(250, 4, 15, n_classes=3)
    a, ra = _run_screened(X, y, None)
    b, rb = _run_screened(X, y, 4)
    assert ra.objective_path == rb.objective_path
    for name in ("features", "weights", "threshold", "kind"):
        np.testing.assert_array_equal(getattr(a, name), getattr(b, name))


def test_screened_incremental_search_gives_the_same_iterations():
    X, y = blobs(300, 6, 16, n_classes=3)
    a, ra = _run_screened(X, y, 3, incremental=True)
    b, rb = _run_screened(X, y, 3, incremental=False)
    assert ra.n_iter >= 2
    assert ra.objective_path == rb.objective_path
    for name in ("features", "weights", "threshold", "kind"):
        np.testing.assert_array_equal(getattr(a, name), getattr(b, name))
    # the objective still never increases
    assert all(q <= p for p, q in zip(ra.objective_path, ra.objective_path[1:]))


def test_screened_pairs_come_from_the_best_univariate_features():
    # one decision node: its bivariate rule uses two of its 2 best single features
    rng = np.random.default_rng(17)
    X = rng.normal(size=(300, 6))
    y = (X[:, 3] - 0.8 * X[:, 5] > 0).astype(int)
    stump = BivariateTreeClassifier(max_depth=1, splitter="univariate").fit(X, y).tree_
    data = TAOData(np.asfortranarray(X), y.astype(np.int64), np.zeros(300), np.ones(300), 2)
    state = TAOState.from_tree(stump, False)
    TAOOptimizer(data, alpha=0.0, feature_cost=1.0, n_orientations=16, exact_max_samples=0,
                 max_iter=3, pair_features=2).run(state)
    errors = [np.mean((X[:, f] > np.median(X[:, f])) != y) for f in range(6)]
    assert set(state.features[0]) == {3, 5}
    assert sorted(np.argsort(np.minimum(errors, 1 - np.asarray(errors)))[:2]) == [3, 5]


# ---------------------------------------------------------- scikit-learn API

# one alpha and shallow trees: a few fits per check (the checks fit hundreds of times)
@parametrize_with_checks([
    TAOTreeClassifierCV(feature_costs=[1.25], inits=["bivariate"], n_lambdas=1, cv=2,
                        max_depth=2),
    TAOTreeRegressorCV(feature_costs=[1.25], inits=["univariate"], n_lambdas=2, cv=2,
                       max_depth=2, restarts=False),
])
def test_sklearn_compatible(estimator, check):
    check(estimator)


# ------------------------------------------------------------ command line

@pytest.fixture
def csv_table(tmp_path):
    pd = pytest.importorskip("pandas")
    X, y = blobs(150, 3, 18)
    frame = pd.DataFrame({"a": X[:, 0], "b": X[:, 1], "c": X[:, 2], "label": y})
    path = tmp_path / "train.csv"
    frame.to_csv(path, index=False)
    return path, frame


@pytest.mark.parametrize("model", ["tao", "tao-cv"])
def test_command_line_fits_tao(capsys, tmp_path, csv_table, model):
    from bivtree.cli import main

    path, frame = csv_table
    out_path = tmp_path / "m.json"
    extra = ["--set", "alpha=0.01"] if model == "tao" else [
        "--set", "n_lambdas=4", "--set", "feature_costs=[1.25]", "--set", "cv=2"]
    assert main(["fit", str(path), "--target", "label", "--model", model, "--max-depth", "3",
                 "-o", str(out_path), *extra]) == 0
    out = capsys.readouterr().out
    assert "fitting a TAOTreeClassifier" in out and "model written" in out
    if model == "tao":
        assert "[TAO] alpha=0.01 iteration 1" in out
    else:
        assert "[TAOCV]" in out and "selected C=1.25" in out
    loaded = load_model(out_path)
    assert isinstance(loaded, TAOTreeClassifier)
    X = frame[["a", "b", "c"]]
    assert loaded.score(X, frame["label"]) > 0.8
    # show: the rules, and files drawn from the data (it failed on TAO models)
    assert main(["show", str(out_path)]) == 0
    out = capsys.readouterr().out
    assert out.startswith(f"TAOTreeClassifier (alpha {loaded.alpha:.4g}, feature_cost "
                          f"{loaded.feature_cost:g}): {loaded.get_n_leaves()} leaves")
    assert "class: " in out
    for name in ("tree.html", "tree.png", "rules.csv"):
        assert main(["show", str(out_path), "--data", str(path),
                     "--out", str(tmp_path / name)]) == 0
        assert (tmp_path / name).stat().st_size > 0


@pytest.mark.parametrize("model", ["tao", "tao-cv"])
def test_command_line_tao_reads_text_columns_as_categories(capsys, tmp_path, model):
    from bivtree.cli import main

    table, y = _categorical_table(240)
    table["label"] = np.where(y == 1, "yes", "no")
    table.loc[3, "b"] = np.nan  # an empty cell
    path = tmp_path / "dirty.csv"
    table.to_csv(path, index=False)
    out_path = tmp_path / "m.json"
    extra = ["--set", "alpha=0.01"] if model == "tao" else ["--set", "n_lambdas=4",
                                                            "--set", "cv=2"]
    assert main(["fit", str(path), "--target", "label", "--model", model, "--max-depth", "3",
                 "-o", str(out_path), *extra]) == 0
    capsys.readouterr()
    loaded = load_model(out_path)
    assert loaded.is_categorical_.tolist() == [False, False, True, True]
    assert loaded.score(table.drop(columns="label"), table["label"]) > 0.9


def test_command_line_refuses_greedy_options_for_tao(capsys, tmp_path, csv_table):
    from bivtree.cli import main

    path, _ = csv_table
    assert main(["fit", str(path), "--target", "label", "--model", "tao", "--splitter",
                 "orientations", "-o", str(tmp_path / "m.json")]) == 1
    assert "--splitter applies to greedy trees" in capsys.readouterr().err
