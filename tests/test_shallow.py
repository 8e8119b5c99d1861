"""ShallowTreeClassifier: TAO from several starts, the best tree of at most max_depth levels.

- never deeper than ``max_depth``; with ``cv=None`` its objective is the least of the
  runs from its starts and at most each start's own objective (TAO descends);
- the optimal univariate start is the exact depth-2 tree on its thresholds, and is left
  out with categorical columns;
- ``cv`` fills ``cv_results_`` as scikit-learn's searches do and refits the best start;
- 1 vs 2 threads identical; every export routes its tree as ``apply``; scikit-learn's
  estimator checks.
"""

import sqlite3

import numpy as np
import pandas as pd
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from sklearn.utils.estimator_checks import parametrize_with_checks

from bivtree import (
    ShallowTreeClassifier,
    TAOTreeClassifier,
    export_python,
    export_sql,
    export_text,
)
from bivtree.optimal_univariate import optimal_univariate_tree
from bivtree.shallow import STARTS, _greedy_start


def problem(n, d, n_classes, seed):
    rng = np.random.default_rng(seed)
    X = rng.normal(size=(n, d)).round(2)
    score = X[:, 0] + 0.6 * X[:, 1 % d] + 0.4 * rng.normal(size=n)
    y = np.digitize(score, np.quantile(score, np.linspace(0, 1, n_classes + 1)[1:-1]))
    return X, y


@settings(max_examples=20, deadline=None, derandomize=True,
          suppress_health_check=[HealthCheck.too_slow])
@given(seed=st.integers(0, 10_000), depth=st.integers(1, 3), n_classes=st.integers(2, 4),
       d=st.integers(1, 4))
def test_the_tree_kept_has_the_least_objective_of_its_starts(seed, depth, n_classes, d):
    X, y = problem(50, d, n_classes, seed)
    clf = ShallowTreeClassifier(max_depth=depth).fit(X, y)
    assert clf.get_depth() <= depth
    objectives = clf.start_objectives_
    assert objectives.shape == (len(STARTS),)
    assert clf.best_estimator_.objective_ == objectives.min()
    assert clf.best_params_["start"] == STARTS[int(np.argmin(objectives))]
    for k, name in enumerate(STARTS):
        if name == "optimal-univariate":
            init = optimal_univariate_tree(X, y, max_depth=depth,
                                           search="auto" if depth <= 2 else "greedy").tree
        else:
            init = _greedy_start(name, depth, None, 0)
        alone = TAOTreeClassifier(max_depth=depth, alpha=0.0, init=init, random_state=0)
        alone.fit(X, y)
        assert alone.objective_ == objectives[k]
        # TAO never ends above its start
        assert objectives.min() <= alone.objective_path_[0] + 1e-12
    np.testing.assert_array_equal(clf.predict(X), clf.best_estimator_.predict(X))
    np.testing.assert_array_equal(clf.apply(X), clf.best_estimator_.apply(X))


def test_the_optimal_univariate_start_is_the_exact_depth_two_tree():
    """At depth 2 that start is the best univariate tree on its thresholds, so the kept
    tree errs at most as much on the training data."""
    X, y = problem(80, 3, 3, 1)
    fit = optimal_univariate_tree(X, y, max_depth=2)
    assert fit.exact
    clf = ShallowTreeClassifier(max_depth=2).fit(X, y)
    errors = np.sum(clf.predict(X) != y)
    assert errors <= fit.misclassification + 1e-9


def test_categorical_columns_leave_the_optimal_univariate_start_out():
    rng = np.random.default_rng(0)
    X = pd.DataFrame({"u": rng.normal(size=60).round(2),
                      "c": pd.Series(rng.choice(["a", "b", "c"], 60), dtype=object)})
    y = ((X["u"] > 0) ^ (X["c"] == "a")).astype(int)
    clf = ShallowTreeClassifier(max_depth=2).fit(X, y)
    assert clf.start_objectives_.shape == (len(STARTS) - 1,)
    assert clf.score(X, y) >= 0.9


def test_cross_validation_fills_cv_results_and_refits_the_best_start():
    X, y = problem(90, 3, 3, 2)
    clf = ShallowTreeClassifier(max_depth=2, cv=3).fit(X, y)
    results = clf.cv_results_
    assert [p["start"] for p in results["params"]] == list(STARTS)
    for key in ("split0_test_score", "split2_test_score", "mean_test_score",
                "std_test_score", "rank_test_score", "mean_n_leaves", "mean_fit_time"):
        assert results[key].shape == (len(STARTS),)
    best = int(np.flatnonzero(results["rank_test_score"] == 1)[0])
    assert clf.best_params_ == {"start": STARTS[best]}
    assert results["mean_test_score"][best] == results["mean_test_score"].max()
    refit = TAOTreeClassifier(max_depth=2, alpha=0.0, random_state=0, init=(
        optimal_univariate_tree(X, y, max_depth=2).tree if STARTS[best] == "optimal-univariate"
        else _greedy_start(STARTS[best], 2, None, 0))).fit(X, y)
    assert refit.tree_.to_json() == clf.tree_.to_json()


def test_bad_starts_are_named():
    X, y = problem(30, 2, 2, 0)
    with pytest.raises(ValueError, match="starts must be a non-empty list"):
        ShallowTreeClassifier(starts=["greedy"]).fit(X, y)
    with pytest.raises(ValueError, match="starts must be a non-empty list"):
        ShallowTreeClassifier(starts=[]).fit(X, y)
    with pytest.raises(ValueError, match="lists a start twice"):
        ShallowTreeClassifier(starts=["univariate", "univariate"]).fit(X, y)
    with pytest.raises(ValueError, match="max_depth"):
        ShallowTreeClassifier(max_depth=0).fit(X, y)


def test_screening_every_feature_is_the_search_of_every_pair():
    X, y = problem(150, 5, 3, 4)
    every = ShallowTreeClassifier(max_depth=2, pair_features=None).fit(X, y)
    screened = ShallowTreeClassifier(max_depth=2, pair_features=5).fit(X, y)
    assert every.tree_.to_json() == screened.tree_.to_json()
    narrow = ShallowTreeClassifier(max_depth=2, pair_features=2).fit(X, y)
    assert narrow.best_estimator_._pair_features == 2
    with pytest.raises(ValueError, match="pair_features"):
        ShallowTreeClassifier(pair_features=1).fit(X, y)


def test_one_and_two_threads_give_the_same_tree():
    X, y = problem(120, 4, 3, 3)
    one = ShallowTreeClassifier(max_depth=3, n_jobs=1).fit(X, y)
    two = ShallowTreeClassifier(max_depth=3, n_jobs=2).fit(X, y)
    assert one.tree_.to_json() == two.tree_.to_json()
    np.testing.assert_array_equal(one.start_objectives_, two.start_objectives_)


def test_exports_route_the_chosen_tree_as_apply():
    X, y = problem(100, 3, 3, 4)
    X[::7, 1] = np.nan
    clf = ShallowTreeClassifier(max_depth=3).fit(X, y)
    leaves = clf.apply(X)
    namespace = {}
    exec(export_python(clf, output="leaf"), namespace)  # noqa: S102 (the code under test)
    assert [namespace["predict_row"](list(row)) for row in X] == leaves.tolist()
    db = sqlite3.connect(":memory:")
    db.execute("CREATE TABLE data (x0 REAL, x1 REAL, x2 REAL)")
    db.executemany("INSERT INTO data VALUES (?, ?, ?)",
                   [[None if np.isnan(v) else float(v) for v in row] for row in X])
    got = [r[-1] for r in db.execute(export_sql(clf, output="leaf"))]
    assert got == leaves.tolist()
    assert "if " in export_text(clf)
    ort = pytest.importorskip("onnxruntime")
    from bivtree import export_onnx

    session = ort.InferenceSession(export_onnx(clf).SerializeToString())
    labels, _ = session.run(None, {session.get_inputs()[0].name: X})
    np.testing.assert_array_equal(labels, clf.predict(X))


@parametrize_with_checks([ShallowTreeClassifier(max_depth=2,
                                                starts=["univariate", "optimal-univariate"])])
def test_sklearn_compatible(estimator, check):
    check(estimator)


def test_the_documented_example_runs_as_written(capsys):
    """The guide's section on small accurate trees (docs/tao.md): its code block runs
    unchanged, and the accuracies and CPU times it quotes are those of the committed
    bench_frontier report (the README's table is checked by tests/test_documents.py)."""
    import pathlib
    import re

    root = pathlib.Path(__file__).parents[1]
    page = root.joinpath("docs", "tao.md").read_text(encoding="utf-8")
    section = page.split("## Small accurate trees", 1)[1].split("\n## ", 1)[0]
    block = re.search(r"```python\n(.*?)```", section, re.DOTALL)[1]
    exec(compile(block, "docs/tao.md", "exec"), {})  # noqa: S102 (the documented example)
    assert "{'start': " in capsys.readouterr().out
    report = root.joinpath("benchmarks", "results", "bench_frontier.md").read_text(
        encoding="utf-8")
    quoted = " ".join(section.split())
    for depth in (2, 3, 4):
        part = report.split(f"## Depth {depth}", 1)[1]
        for tool in ("bivtree-shallow", "streed", "figs"):
            row = re.search(rf"\| {tool} \| 12/12 \| ([0-9.]+) \| [0-9.]+ \| ([0-9.]+) \|", part)
            accuracy, cpu = row[1], row[2]
            assert accuracy in quoted, (depth, tool, accuracy)
            if tool != "figs":
                assert cpu in quoted, (depth, tool, cpu)
