"""The Dask estimators (bivtree.dask) on a two-worker LocalCluster of processes.

- ``local_rows`` at least the rows: the in-memory fit, bit for bit (numeric, with missing
  values, with a categorical column; classifier and regressor);
- histogram levels (small ``local_rows``): the accuracy of the in-memory fit on 2 x 10^5
  rows; missing values and categories split at histogram nodes; predictions of every
  output equal ``to_local()``'s on the computed data; a worker killed during a fit
  leaves the tree unchanged;
- scikit-learn's contract and clear errors on bad input.
"""

import os
import warnings

import numpy as np
import pytest

pytest.importorskip("dask", reason="bivtree.dask needs dask (pip install 'bivtree[dask]')")
pytest.importorskip("dask.dataframe", reason="bivtree.dask needs dask[dataframe]")
pytest.importorskip("distributed", reason="bivtree.dask needs distributed")
pd = pytest.importorskip("pandas", reason="bivtree.dask needs pandas")

import dask.array as da
import dask.dataframe as dd
import distributed
from sklearn.base import clone
from sklearn.datasets import make_classification, make_regression
from sklearn.exceptions import NotFittedError

import bivtree.dask
from bivtree import BivariateTreeClassifier, BivariateTreeRegressor, export_text
from bivtree.dask import (
    DaskBivariateTreeClassifier,
    DaskBivariateTreeRegressor,
    _Grower,
)
from bivtree.persistence import load_model, save_model

pytestmark = pytest.mark.filterwarnings("ignore:Sending large graph:UserWarning")


@pytest.fixture(scope="module")
def cluster():
    # a nanny sets distributed's pre-spawn-environ (OMP_NUM_THREADS=1, ...) in the
    # process that starts it: the tests after these must see the environment as it was
    environ = dict(os.environ)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        cluster = distributed.LocalCluster(n_workers=2, threads_per_worker=1, processes=True,
                                           dashboard_address=None)
    client = distributed.Client(cluster)
    yield cluster, client
    client.close()
    cluster.close()
    os.environ.clear()
    os.environ.update(environ)


@pytest.fixture
def client(cluster):
    return cluster[1]


def _frame(n, seed, missing=0.0, categorical=False):
    """A DataFrame of 5 numeric columns (and a category column), labels and targets."""
    X, y = make_classification(n, 5, n_informative=3, n_redundant=1, random_state=seed)
    rng = np.random.RandomState(seed)
    if missing:
        X[rng.rand(*X.shape) < missing] = np.nan
    frame = pd.DataFrame(X, columns=[f"x{i}" for i in range(5)])
    if categorical:
        colour = np.where(y == 1, rng.choice(["red", "blue", "green"], n, p=[.6, .3, .1]),
                          rng.choice(["red", "blue", "green", "grey"], n))
        colour = np.where(rng.rand(n) < missing, None, colour)
        frame["colour"] = pd.Categorical(colour, categories=["grey", "green", "blue", "red"])
    target = np.nan_to_num(X[:, 0]) * 3 + y + rng.normal(scale=0.1, size=n)
    return frame, y, target


def _dask(frame, y, partitions=3):
    """The frame and targets as dask collections with the same partitions."""
    return (dd.from_pandas(frame, npartitions=partitions),
            dd.from_pandas(pd.Series(y, name="y"), npartitions=partitions))


# ------------------------------------------------------------ the in-memory fit
@pytest.mark.parametrize("data", ["numeric", "missing", "categorical"])
@pytest.mark.parametrize("task", ["classifier", "regressor"])
def test_whole_fit_is_the_in_memory_fit(client, data, task):
    frame, labels, target = _frame(1200, 0, missing=0.08 if data != "numeric" else 0.0,
                                   categorical=data == "categorical")
    y = labels if task == "classifier" else target
    params = {"max_depth": 7, "min_samples_leaf": 2}
    if data == "numeric":  # a dask array
        X = da.from_array(frame.to_numpy(), chunks=(400, 2))
        y_dask = da.from_array(y, chunks=500)
    else:
        X, y_dask = _dask(frame, y)
    dask_class, memory_class = ((DaskBivariateTreeClassifier, BivariateTreeClassifier)
                                if task == "classifier"
                                else (DaskBivariateTreeRegressor, BivariateTreeRegressor))
    fitted = dask_class(local_rows=5000, **params).fit(X, y_dask)
    memory = memory_class(**params).fit(X.compute(), y_dask.compute())
    assert fitted.tree_ == memory.tree_
    assert fitted.n_passes_ == 2  # the first scan, then the gathering
    local = fitted.to_local()
    computed = X.compute()
    np.testing.assert_array_equal(local.predict(computed), memory.predict(computed))
    np.testing.assert_array_equal(fitted.predict(X).compute(), memory.predict(computed))
    np.testing.assert_array_equal(fitted.feature_importances_, memory.feature_importances_)


# ----------------------------------------------------------- histogram levels
def test_histogram_levels_match_the_in_memory_accuracy(client):
    X, y = make_classification(200_000, 18, random_state=0)
    train, test = slice(0, 160_000), slice(160_000, None)
    memory = BivariateTreeClassifier().fit(X[train], y[train])
    fitted = DaskBivariateTreeClassifier(local_rows=60_000, n_rounds=1).fit(
        da.from_array(X[train], chunks=20_000), da.from_array(y[train], chunks=20_000))
    gap = memory.score(X[test], y[test]) - fitted.to_local().score(X[test], y[test])
    assert gap <= 0.005
    assert fitted.tree_.n_node_samples[0] == 160_000
    # the root and its children were searched from histograms (more rows than local_rows)
    assert fitted.n_passes_ > 5


def test_histogram_nodes_are_exact_when_every_value_has_its_bin(client):
    # at most max_bins distinct values per feature, every row in the sample: the bin edges
    # are every midpoint, so the histogram search sees every univariate cut, and the tree's
    # partitions are the in-memory univariate tree's (its thresholds may sit elsewhere
    # between the same two values)
    rng = np.random.RandomState(9)
    X = rng.randint(0, 40, size=(3000, 4)).astype(float)
    X[rng.rand(*X.shape) < 0.05] = np.nan
    y = ((np.nan_to_num(X[:, 0]) + np.nan_to_num(X[:, 1]) / 2 + rng.normal(0, 6, 3000)) > 30)
    y = y.astype(int)
    params = {"splitter": "univariate", "max_depth": 4}
    memory = BivariateTreeClassifier(**params).fit(X, y)
    fitted = DaskBivariateTreeClassifier(local_rows=10, **params).fit(
        da.from_array(X, chunks=1000), da.from_array(y, chunks=1000))
    assert len(fitted.levels_) == 4  # every split node was searched from histograms
    for name in ("children_left", "children_right", "features", "n_node_samples", "value",
                 "missing_go_left"):
        np.testing.assert_array_equal(getattr(fitted.tree_, name), getattr(memory.tree_, name))
    np.testing.assert_allclose(fitted.tree_.impurity, memory.tree_.impurity, atol=1e-12)
    np.testing.assert_array_equal(fitted.to_local().apply(X), memory.apply(X))


def test_missing_values_at_a_histogram_node(client):
    rng = np.random.RandomState(3)
    n = 6000
    X = rng.normal(size=(n, 3))
    y = (X[:, 0] > 0.3).astype(int)
    # a quarter of the positive rows miss x0: their side is the right one (x0 > 0.3)
    X[(y == 1) & (rng.rand(n) < 0.25), 0] = np.nan
    frame = pd.DataFrame(X, columns=["a", "b", "c"])
    fitted = DaskBivariateTreeClassifier(local_rows=500, max_depth=2, splitter="univariate").fit(
        *_dask(frame, y))
    tree = fitted.tree_
    assert tree.features[0, 0] == 0 and tree.features[0, 1] == -1
    assert abs(tree.threshold[0] - 0.3) < 0.05
    assert tree.missing_learned and not tree.missing_go_left[0]
    # the root's children are exact sums of its bins
    left, right = tree.children_left[0], tree.children_right[0]
    assert tree.n_node_samples[left] == np.count_nonzero(X[:, 0] <= tree.threshold[0])
    assert tree.n_node_samples[right] == n - tree.n_node_samples[left]
    test = pd.DataFrame(rng.normal(size=(500, 3)), columns=["a", "b", "c"])
    test.iloc[::7, 0] = np.nan
    np.testing.assert_array_equal(fitted.predict(dd.from_pandas(test, npartitions=2)).compute(),
                                  fitted.to_local().predict(test))


def test_categories_at_a_histogram_node(client):
    rng = np.random.RandomState(4)
    n = 6000
    colour = rng.choice(["red", "blue", "green", "grey"], n)
    x = rng.normal(size=n)
    y = np.isin(colour, ["red", "grey"]).astype(int) ^ (rng.rand(n) < 0.05)
    colour = np.where(rng.rand(n) < 0.05, None, colour)
    frame = pd.DataFrame({"x": x, "colour": pd.Categorical(colour)})
    X, y_dask = _dask(frame, y)
    fitted = DaskBivariateTreeRegressor(local_rows=500, max_depth=3).fit(X, y_dask.astype(float))
    tree, local = fitted.tree_, fitted.to_local()
    assert tree.is_categorical[0] and tree.features[0, 0] == 1
    codes = set(tree.node_categories(0))
    names = {local.categories_[1][c] for c in codes}
    assert names in ({"red", "grey"}, {"blue", "green"})
    assert list(local.categories_[1]) == ["blue", "green", "grey", "red"]
    test = frame.sample(400, random_state=0).reset_index(drop=True)
    np.testing.assert_array_equal(fitted.predict(dd.from_pandas(test, npartitions=2)).compute(),
                                  local.predict(test))
    assert "colour in {" in export_text(local)


def test_outputs_equal_the_local_estimator(client, tmp_path):
    frame, labels, _ = _frame(4000, 5, missing=0.05, categorical=True)
    X, y = _dask(frame, labels, partitions=4)
    fitted = DaskBivariateTreeClassifier(local_rows=800, max_depth=6).fit(X, y)
    local = fitted.to_local()
    assert isinstance(local, BivariateTreeClassifier)
    np.testing.assert_array_equal(fitted.predict(X).compute(), local.predict(frame))
    np.testing.assert_array_equal(fitted.predict_proba(X).compute(), local.predict_proba(frame))
    np.testing.assert_array_equal(fitted.apply(X).compute(), local.apply(frame))
    assert fitted.score(X, y) == pytest.approx(local.score(frame, labels))
    assert "x" in export_text(local, feature_names=list(frame.columns))
    save_model(local, tmp_path / "tree.json")
    loaded = load_model(tmp_path / "tree.json")
    np.testing.assert_array_equal(loaded.predict_proba(frame), local.predict_proba(frame))
    # three classes, through histogram levels
    X3, y3 = make_classification(3000, 6, n_informative=4, n_classes=3, random_state=2)
    X3_dask = da.from_array(X3, chunks=1000)
    three = DaskBivariateTreeClassifier(local_rows=600, max_depth=4).fit(
        X3_dask, da.from_array(np.array(["a", "b", "c"])[y3], chunks=1000))
    assert three.levels_[0]["open_nodes"] == 1
    np.testing.assert_array_equal(three.predict_proba(X3_dask).compute(),
                                  three.to_local().predict_proba(X3))
    assert set(three.predict(X3_dask).compute()) <= {"a", "b", "c"}
    # a dask array input (numeric columns only)
    Xn, yn = make_regression(3000, 4, random_state=0)
    reg = DaskBivariateTreeRegressor(local_rows=700, max_depth=5).fit(
        da.from_array(Xn, chunks=1000), da.from_array(yn, chunks=1000))
    np.testing.assert_array_equal(reg.predict(da.from_array(Xn, chunks=700)).compute(),
                                  reg.to_local().predict(Xn))
    assert reg.score(da.from_array(Xn, chunks=1000), da.from_array(yn, chunks=1000)) > 0.5


def test_parquet_columns_of_one_frame(client, tmp_path, capsys):
    # X and y projected from one read_parquet frame may be read in different partitions
    frame, labels, _ = _frame(4000, 7, missing=0.05)
    frame["y"] = labels
    for k in range(4):
        frame.iloc[k * 1000:(k + 1) * 1000].to_parquet(tmp_path / f"part-{k}.parquet",
                                                         index=False)
    files = dd.read_parquet(tmp_path)
    fitted = DaskBivariateTreeClassifier(local_rows=700, max_depth=5, verbose=1).fit(
        files.drop(columns="y"), files["y"])
    assert "[bivtree.dask] level 0: 1 node(s) of 4000 rows" in capsys.readouterr().out
    # every row is in the sample (sample_rows > rows): the same bin edges, the same exact
    # class counts, whatever the partitions
    expected = DaskBivariateTreeClassifier(local_rows=700, max_depth=5).fit(
        *_dask(frame.drop(columns="y"), labels, partitions=3))
    assert fitted.tree_ == expected.tree_
    assert len(fitted.levels_) >= 2 and fitted.levels_[0]["open_nodes"] == 1


def test_nodes_in_groups_give_the_same_tree(client, monkeypatch):
    # histograms over the per-pass budget: a level's open nodes take one pass per group
    frame, labels, _ = _frame(5000, 8, missing=0.05)
    X, y = _dask(frame, labels)
    params = {"local_rows": 600, "max_depth": 5}
    expected = DaskBivariateTreeClassifier(**params).fit(X, y)
    assert max(level["open_nodes"] for level in expected.levels_) > 1
    monkeypatch.setattr(bivtree.dask, "MAX_PASS_BYTES", 1)  # one node per group
    grouped = DaskBivariateTreeClassifier(**params).fit(X, y)
    assert grouped.tree_ == expected.tree_
    assert grouped.n_passes_ > expected.n_passes_


def test_worker_killed_during_a_fit_gives_the_same_tree(client, monkeypatch):
    frame, labels, _ = _frame(5000, 6, missing=0.05)
    X, y = _dask(frame, labels, partitions=4)
    params = {"local_rows": 1000, "max_depth": 6}
    expected = DaskBivariateTreeClassifier(**params).fit(X, y)
    search_level = _Grower._search_level
    killed = []

    def kill_after_first_level(self, *args):
        search_level(self, *args)
        if not killed:
            # a worker holding persisted partitions dies between passes; its nanny starts a
            # new one, and the scheduler recomputes the lost partitions from the graph
            worker = min(self.client.scheduler_info()["workers"])
            self.client.run(_exit_process, workers=[worker], wait=False)
            killed.append(worker)

    monkeypatch.setattr(_Grower, "_search_level", kill_after_first_level)
    fitted = DaskBivariateTreeClassifier(**params).fit(X, y)
    assert killed
    assert fitted.tree_ == expected.tree_
    client.wait_for_workers(2, timeout=120)
    assert killed[0] not in client.scheduler_info()["workers"]


# ------------------------------------------------------ the estimator contract
def test_scikit_learn_contract():
    estimator = DaskBivariateTreeClassifier(local_rows=10, max_bins=64)
    assert clone(estimator).get_params() == estimator.get_params()
    estimator.set_params(max_depth=3)
    assert estimator.max_depth == 3
    for method in ("to_local", "get_depth"):
        with pytest.raises(NotFittedError):
            getattr(estimator, method)()
    with pytest.raises(NotFittedError):
        estimator.predict(da.zeros((4, 2), chunks=2))


def test_bad_input_is_named(client, monkeypatch):
    X = da.from_array(np.random.RandomState(0).normal(size=(100, 3)), chunks=50)
    y = da.from_array(np.arange(100) % 2, chunks=50)
    with pytest.raises(TypeError, match="dask array or dask DataFrame as X"):
        DaskBivariateTreeClassifier().fit(X.compute(), y)
    with pytest.raises(ValueError, match="max_bins must be"):
        DaskBivariateTreeClassifier(max_bins=2).fit(X, y)
    with pytest.raises(ValueError, match="criterion must be"):
        DaskBivariateTreeRegressor(criterion="gini").fit(X, y)
    with pytest.raises(ValueError, match="X has 100 rows but y has 90"):
        DaskBivariateTreeClassifier().fit(X, y[:90])
    with pytest.raises(ValueError, match="Unknown label type"):
        DaskBivariateTreeClassifier().fit(X, y + 0.5 * (da.arange(100, chunks=50) % 3))
    y_missing = da.from_array(np.where(np.arange(100) == 7, np.nan, np.arange(100) % 2),
                              chunks=50)
    with pytest.raises(ValueError, match=r"y contains NaN .*\(1 of them\)"):
        DaskBivariateTreeClassifier().fit(X, y_missing)
    X_inf = da.from_array(np.where(np.arange(300).reshape(100, 3) == 4, np.inf, 1.0),
                          chunks=50)
    with pytest.raises(ValueError, match="column 1 holds infinity"):
        DaskBivariateTreeRegressor().fit(X_inf, y.astype(float))
    frame, labels, _ = _frame(100, 0)
    Xf = dd.from_pandas(frame, npartitions=2)
    with pytest.raises(ValueError, match="X has 2 partitions and y has 4"):
        DaskBivariateTreeClassifier().fit(Xf, da.from_array(labels, chunks=30))
    # a Series is aligned with the frame by index, as pandas does: rows without a label
    with pytest.raises(ValueError, match=r"y contains NaN .*\(10 of them\)"):
        DaskBivariateTreeClassifier().fit(Xf, dd.from_pandas(pd.Series(labels[:90]),
                                                             npartitions=3))
    fitted = DaskBivariateTreeClassifier(max_depth=2).fit(X, y)
    with pytest.raises(TypeError, match="to_local\\(\\).predict"):
        fitted.predict(X.compute())
    monkeypatch.setattr(distributed, "default_client", _no_client)
    with pytest.raises(ValueError, match="start a distributed.Client"):
        DaskBivariateTreeClassifier().fit(X, y)


async def _exit_process():
    """Kill the worker's process at once (``client.run`` without waiting needs a coroutine)."""
    os._exit(1)


def _no_client():
    raise ValueError("No clients found")
