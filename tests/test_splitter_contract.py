"""The contract every registered splitter, and TAO, keeps.

Each check runs for every name in :data:`bivtree.splitters.SPLITTERS` (as a
classifier and as a regressor, where the splitter serves that task) and for
``TAOTreeClassifier`` / ``TAOTreeRegressor``, so a new splitter is tested by
registering it:

* **routing as scored**: the stored rule of every node sends every training
  sample where the search decided. A plain-Python walk of the fitted tree (its
  own sum over the used slots, in slot order, compared with ``<=``; the bit test
  for a category set) must give every node's sample count, weight, value and
  impurity, and every split the search returned must score, on the partition
  that walk makes, exactly the objective it reported;
* 1 and 2 threads grow identical trees;
* JSON round trips (the tree's dictionary and JSON, the estimator's JSON and
  files) give identical trees, predictions and JSON;
* scikit-learn's estimator checks, none excluded.

A splitter declares the tasks it serves in ``Splitter.tasks`` (MUST needs
class labels: classification only); the estimator refuses the others at fit.
"""

import json
import math
import pickle
from dataclasses import dataclass

import numpy as np
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from sklearn.utils.estimator_checks import parametrize_with_checks

import naive
from bivtree import (
    BivariateTreeClassifier,
    BivariateTreeRegressor,
    TAOTreeClassifier,
    TAOTreeRegressor,
    Tree,
    from_json,
    load_model,
    save_model,
    to_json,
)
from bivtree._config import CLASSIFICATION_CRITERIA, REGRESSION_CRITERIA
from bivtree.splitters import SPLITTERS, get_splitter

HYPOTHESIS = {"deadline": None, "suppress_health_check": [HealthCheck.too_slow]}
TASKS = ("classification", "regression")


# ====================================================================== the models
@dataclass(frozen=True)
class Model:
    """One estimator under contract: a registered splitter or TAO, for one task."""

    kind: str  # a splitter name, or "tao"
    task: str

    @property
    def regression(self):
        return self.task == "regression"

    @property
    def splitter(self):
        return None if self.kind == "tao" else self.kind

    def make(self, **params):
        if self.splitter is None:
            return (TAOTreeRegressor if self.regression else TAOTreeClassifier)(**params)
        cls = BivariateTreeRegressor if self.regression else BivariateTreeClassifier
        return cls(splitter=self.splitter, **params)

    @property
    def bivariate(self):
        """Whether its rules may use two features (TAO's always may)."""
        return self.splitter is None or get_splitter(self.splitter).max_node_features >= 2

    def __str__(self):
        return f"{self.kind}-{'regressor' if self.regression else 'classifier'}"


REFUSED = [(name, task) for name in sorted(SPLITTERS) for task in TASKS
           if task not in SPLITTERS[name].tasks]
MODELS = ([Model(name, task) for name in sorted(SPLITTERS) for task in SPLITTERS[name].tasks]
          + [Model("tao", task) for task in TASKS])
MODEL_PARAMS = [pytest.param(m, id=str(m)) for m in MODELS]


def test_every_splitter_serves_a_task_and_refuses_the_others_by_name():
    """Every registered splitter declares a task it grows trees for, and a task it does
    not declare is refused at fit with a ``ValueError`` naming the splitter."""
    for name in SPLITTERS:
        assert any(m.splitter == name for m in MODELS), name
    X, y = _threads_data("classification")
    for name, task in REFUSED:
        cls = BivariateTreeRegressor if task == "regression" else BivariateTreeClassifier
        with pytest.raises(ValueError, match=name):
            cls(splitter=name).fit(X, y.astype(float))


# ==================================================================== the data
@st.composite
def problems(draw, regression, missing=(0.0,)):
    """Small fits: continuous columns of different scales, small integers (many ties), a few
    distinct rows repeated, values near 1e6 with small spreads, near-copies of one column
    (near-tied candidates); unit, integer (some zero) or real (some zero) weights; a
    fraction drawn from ``missing`` of the values made missing (NaN)."""
    seed = draw(st.integers(0, 2 ** 32 - 1))
    n = draw(st.integers(2, 30))
    d = draw(st.integers(1, 4))
    kind = draw(st.sampled_from(["continuous", "integer", "duplicated", "large", "near_tie"]))
    weighting = draw(st.sampled_from(["ones", "integer", "float"]))
    rng = np.random.default_rng(seed)
    if kind == "continuous":
        X = rng.normal(size=(n, d)) * 10.0 ** rng.integers(-2, 3, d)
    elif kind == "integer":
        X = rng.integers(0, rng.integers(2, 6, d), (n, d)).astype(float)
    elif kind == "duplicated":
        pool = rng.normal(size=(int(rng.integers(2, 6)), d)).round(1)
        X = pool[rng.integers(0, pool.shape[0], n)]
    elif kind == "large":
        X = 1e6 * rng.choice([-1.0, 1.0], d) + rng.uniform(0, 1, (n, d)) * rng.choice(
            [1e-2, 1.0, 100.0], d)
    else:
        u = rng.uniform(-1, 1, n)
        X = u[:, None] + rng.choice([0.0, 1e-12, 1e-9, 1e-6], d) * rng.normal(size=(n, d))
    score = (X - X.mean(axis=0)) @ rng.normal(size=d)
    if regression:
        y = (rng.integers(0, 3, n).astype(float) if draw(st.booleans())
             else score + 0.3 * rng.normal(size=n))
    else:
        n_classes = draw(st.integers(2, 4))
        y = (rng.integers(0, n_classes, n) if draw(st.booleans())
             else np.digitize(score + 0.3 * rng.normal(size=n),
                              np.quantile(score, np.linspace(0, 1, n_classes + 1)[1:-1])))
        if np.unique(y).size < 2:
            y[0] = 1 - y[1] if y[1] < 2 else 0
    if weighting == "ones":
        w = np.ones(n)
    elif weighting == "integer":
        w = rng.integers(0, 4, n).astype(float)
    else:
        w = rng.uniform(0, 2, n) * (rng.uniform(size=n) > 0.2)
    if np.count_nonzero(w > 0) < 2:
        w[:2] = 1.0
    fraction = draw(st.sampled_from(missing))
    if fraction > 0.0:
        X[rng.uniform(size=X.shape) < fraction] = np.nan
        X[rng.integers(0, n), rng.integers(0, d)] = np.nan
    return X, y, w


def _threads_data(task, n=300, d=5, seed=7):
    """Continuous features on a 1e-3 grid with an oblique structure; 3 classes or a target."""
    rng = np.random.default_rng(seed)
    X = rng.integers(0, 20000, size=(n, d)) / 1000.0 - 10.0
    score = np.sin(X[:, 0]) + 0.3 * X[:, 1] - 0.05 * X[:, 2] * X[:, -1]
    score = score + 0.4 * rng.normal(size=n)
    if task == "regression":
        return X, score
    return X, np.digitize(score, np.quantile(score, [1 / 3, 2 / 3]))


# ========================================================== the plain-Python walk
def goes_left(x, features, weights, threshold, mask, missing_left=False):
    """The node test written out (``naive.goes_left``)."""
    return naive.goes_left(x, features, weights, threshold, mask, missing_left)


def split_left(X, samples, split):
    """Left mask over ``samples`` made by a splitter's returned rule."""
    return np.array([goes_left(X[i], split.features, split.weights, split.threshold,
                               split.category_mask, split.missing_left) for i in samples],
                    dtype=bool)


def walk(tree, X, rows):
    """Node -> the list of ``rows`` reaching it, by the plain-Python test at every node."""
    reached = {0: list(rows)}
    stack = [0]
    while stack:
        node = stack.pop()
        if tree.children_left[node] < 0:
            continue
        left, right = [], []
        for i in reached[node]:
            (left if goes_left(X[i], tree.features[node], tree.weights[node],
                               tree.threshold[node], tree.category_mask[node],
                               tree.missing_go_left[node]) else
             right).append(i)
        reached[tree.children_left[node]] = left
        reached[tree.children_right[node]] = right
        stack += [tree.children_left[node], tree.children_right[node]]
    return reached


def leaf_of(tree, x):
    node = 0
    while tree.children_left[node] >= 0:
        node = (tree.children_left[node] if goes_left(
            x, tree.features[node], tree.weights[node], tree.threshold[node],
            tree.category_mask[node], tree.missing_go_left[node]) else tree.children_right[node])
    return node


def close(got, want, scale):
    return abs(got - want) <= 1e-9 * max(abs(got), abs(want), scale)


def recording(cls, calls):
    """``cls.find_split`` that also appends every node search and its answer to ``calls``."""
    original = cls.find_split

    def find_split(self, data, samples, features):
        split = original(self, data, samples, features)
        calls.append((data, np.array(samples), split))
        return split
    return find_split


def fit_recorded(model, X, y, w, params):
    """Fit, recording every split search of a splitter model (none for TAO)."""
    est = model.make(**params)
    if model.splitter is None:
        return est.fit(X, y, sample_weight=w), []
    cls, calls = SPLITTERS[model.splitter], []
    with pytest.MonkeyPatch.context() as mp:
        mp.setattr(cls, "find_split", recording(cls, calls))
        est.fit(X, y, sample_weight=w)
    return est, calls


def check_routes_as_scored(model, est, calls, X, y, w):
    """The four statements of routing as scored, for one fitted estimator."""
    tree = est.tree_
    positive = np.flatnonzero(w > 0)
    if model.regression:
        target, n_classes = np.asarray(y, float), 1
        criterion = "squared_error"
    else:
        target, n_classes = np.searchsorted(est.classes_, y), est.n_classes_
        criterion = "gini"  # TAO's impurity
    if model.splitter is not None:
        criterion = {"log_loss": "entropy"}.get(est.criterion, est.criterion)
    scale = float(w.sum()) + (float(np.sum(w * target ** 2)) if model.regression else 0.0)

    # 1. every node's statistics are those of the training samples the walk sends there
    reached = walk(tree, X, positive)
    assert set(reached) == set(range(tree.node_count))
    for node, rows in reached.items():
        rows = np.array(rows, dtype=np.int64)
        assert tree.n_node_samples[node] == rows.size, node
        assert close(tree.weighted_n_node_samples[node], w[rows].sum(), scale)
        if rows.size and w[rows].sum() > 0:
            assert close(tree.impurity[node],
                         naive.impurity(target[rows], w[rows], criterion, n_classes), 1.0)
            if model.regression:
                assert close(tree.value[node, 0], np.average(target[rows], weights=w[rows]),
                             float(np.abs(target[rows]).max()))
            else:
                np.testing.assert_allclose(
                    tree.value[node], np.bincount(target[rows], weights=w[rows],
                                                  minlength=n_classes), rtol=1e-12, atol=1e-12)
    # 2. prediction routes every sample, zero-weight ones included, by the same test
    np.testing.assert_array_equal(est.apply(X), [leaf_of(tree, x) for x in X])
    paths = np.zeros((X.shape[0], tree.node_count), dtype=bool)
    for node, rows in walk(tree, X, range(X.shape[0])).items():
        paths[rows, node] = True
    np.testing.assert_array_equal(est.decision_path(X).toarray() != 0, paths)

    if model.splitter is None:
        # 3'. TAO's reported objective is the loss of the stored tree, walked in Python,
        # no worse than the optimizer's last iterate
        loss = 0.0
        for node, rows in reached.items():
            if tree.children_left[node] < 0 and rows:
                if model.regression:
                    loss += float(np.sum(w[rows] * (target[rows] - tree.value[node, 0]) ** 2))
                else:
                    loss += float(np.sum(w[rows] * (target[rows] != np.argmax(tree.value[node]))))
        used = tree.n_node_features
        penalty = np.count_nonzero(used == 1) + est.feature_cost * np.count_nonzero(used == 2)
        objective = (loss + est.alpha * w.sum() * penalty) / w.sum()
        assert close(est.objective_, objective, scale / w.sum())
        assert est.objective_ <= est.objective_path_[-1] * (1 + 1e-9) + 1e-12
        return

    # 3. every split the search returned scores the partition its rule makes
    by_samples = {}
    for data, samples, split in calls:
        by_samples[frozenset(samples.tolist())] = split
        if split is None:
            continue
        left = split_left(X, samples, split)
        g = naive.weighted_child_impurity(left, target[samples], w[samples], criterion,
                                          n_classes)
        assert close(split.objective, g, scale), (split, g)
    # 4. each decision node stores the rule its search returned, and its children hold
    # exactly that rule's partition of the node
    for node in np.flatnonzero(tree.children_left >= 0):
        rows = reached[node]
        split = by_samples[frozenset(rows)]
        assert split is not None
        k = split.features.size
        np.testing.assert_array_equal(tree.features[node, :k], split.features)
        np.testing.assert_array_equal(tree.weights[node, :k], split.weights)
        assert np.all(tree.features[node, k:] < 0)
        np.testing.assert_array_equal(tree.category_mask[node, :k], split.category_mask)
        if not tree.is_categorical[node]:
            assert tree.threshold[node] == split.threshold
        left = split_left(X, np.array(rows), split)
        lc, rc = tree.children_left[node], tree.children_right[node]
        # the missing side: the search's where the node's samples missed a value of the
        # rule, else the child with more training weight (the right one on equal weights)
        saw_missing = any(math.isnan(X[i, f]) for i in rows for f in split.features if f >= 0)
        assert tree.missing_go_left[node] == (
            split.missing_left if saw_missing
            else tree.weighted_n_node_samples[lc] > tree.weighted_n_node_samples[rc])
        assert sorted(reached[lc]) == sorted(np.array(rows)[left].tolist())
        assert tree.n_node_samples[lc] + tree.n_node_samples[rc] == len(rows)
        g_children = (tree.weighted_n_node_samples[lc] * tree.impurity[lc]
                      + tree.weighted_n_node_samples[rc] * tree.impurity[rc])
        assert close(split.objective, g_children, scale)
        assert min(tree.n_node_samples[lc], tree.n_node_samples[rc]) >= est.min_samples_leaf


@pytest.mark.parametrize("model", MODEL_PARAMS)
@settings(max_examples=20, **HYPOTHESIS)
@given(data=st.data(), max_depth=st.sampled_from([1, 3, None]),
       min_samples_leaf=st.integers(1, 3))
def test_stored_rules_route_training_samples_as_scored(model, data, max_depth,
                                                        min_samples_leaf):
    """Every node holds the samples a plain-Python evaluation of the stored rules sends
    there, with their statistics, and every split's reported objective is the weighted
    child impurity of the partition its stored rule makes (TAO: the reported objective is
    the stored tree's loss). Weights may be zero, and features tied or repeated."""
    X, y, w = data.draw(problems(model.regression))
    params = {"max_depth": max_depth, "min_samples_leaf": min_samples_leaf}
    if model.splitter is not None:
        criteria = REGRESSION_CRITERIA if model.regression else CLASSIFICATION_CRITERIA
        params["criterion"] = data.draw(st.sampled_from(sorted(criteria)))
        params["max_leaf_nodes"] = data.draw(st.sampled_from([None, 5]))
    est, calls = fit_recorded(model, X, y, w, params)
    check_routes_as_scored(model, est, calls, X, y, w)


def _takes_missing(model):
    """Whether the model's search handles missing values (TAO's does)."""
    return model.splitter is None or SPLITTERS[model.splitter].supports_missing


REFUSED_MISSING = [m for m in MODELS if not _takes_missing(m)]
MISSING_MODELS = [pytest.param(m, id=str(m)) for m in MODELS if _takes_missing(m)]
REFUSING_MODELS = [pytest.param(m, id=str(m)) for m in MODELS if not _takes_missing(m)]


@pytest.mark.parametrize("model", MISSING_MODELS)
@settings(max_examples=20, **HYPOTHESIS)
@given(data=st.data(), max_depth=st.sampled_from([1, 3, None]),
       min_samples_leaf=st.integers(1, 3))
def test_rules_route_as_scored_with_missing_values(model, data, max_depth, min_samples_leaf):
    """Routing as scored with missing values (NaN) in X: the plain-Python walk sends a
    sample missing a feature of a node's rule to the node's stored missing side, and every
    statement of the test above holds, the missing sides included."""
    X, y, w = data.draw(problems(model.regression, missing=(0.1, 0.3, 0.6)))
    params = {"max_depth": max_depth, "min_samples_leaf": min_samples_leaf}
    if model.splitter is not None:
        criteria = REGRESSION_CRITERIA if model.regression else CLASSIFICATION_CRITERIA
        params["criterion"] = data.draw(st.sampled_from(sorted(criteria)))
        params["max_leaf_nodes"] = data.draw(st.sampled_from([None, 5]))
    est, calls = fit_recorded(model, X, y, w, params)
    check_routes_as_scored(model, est, calls, X, y, w)


@pytest.mark.parametrize("model", REFUSING_MODELS)
def test_missing_values_are_refused_by_name(model):
    """A search that does not handle missing values refuses NaN at fit and at predict
    with a ValueError that names it (the splitter, or the TAO estimator)."""
    X, y = _threads_data(model.task, n=60, d=3)
    X_nan = X.copy()
    X_nan[3, 1] = np.nan
    name = model.splitter or ("TAOTreeRegressor" if model.regression else "TAOTreeClassifier")
    with pytest.raises(ValueError, match=f"{name}.*missing values"):
        model.make(max_depth=2).fit(X_nan, y)
    est = model.make(max_depth=2).fit(X, y)
    with pytest.raises(ValueError, match="missing values"):
        est.predict(X_nan)


# ================================================================ threads
def _fitted_state(est):
    """Everything a fit leaves behind, wall-clock measurements left out."""
    def clean(value):
        if isinstance(value, dict):
            return {k: clean(v) for k, v in value.items() if k != "seconds"}
        if isinstance(value, (list, tuple)):
            return [clean(v) for v in value]
        if isinstance(value, np.ndarray):
            return ("array", value.dtype.str, value.shape, value.tobytes())
        return value
    return {k: clean(v) for k, v in vars(est).items()
            if k.endswith("_") and not k.startswith("_") and k != "fit_time_"
            and k != "tree_"}


@pytest.mark.parametrize("model", MODEL_PARAMS)
@pytest.mark.parametrize("missing", [False, True])
def test_one_and_two_threads_give_identical_trees(model, missing):
    """The tree and every fitted attribute are the same with 1 and 2 threads: a weighted
    three-class fit grown depth first, and a regression grown best first; with missing
    values too, for the searches that handle them."""
    X, y = _threads_data(model.task)
    if missing:
        if model in REFUSED_MISSING:
            pytest.skip("this search refuses missing values (tested above)")
        X[np.random.default_rng(1).uniform(size=X.shape) < 0.2] = np.nan
    params = {}
    if model.regression and model.splitter is not None:
        params["max_leaf_nodes"] = 20
    w = np.random.default_rng(7).integers(0, 3, len(y)).astype(float)
    one = model.make(n_jobs=1, **params).fit(X, y, sample_weight=w)
    two = model.make(n_jobs=2, **params).fit(X, y, sample_weight=w)
    assert one.tree_ == two.tree_
    assert pickle.dumps(_fitted_state(one)) == pickle.dumps(_fitted_state(two))


# ============================================================== serialization
@pytest.mark.parametrize("model", MODEL_PARAMS)
@pytest.mark.parametrize("missing", [False, True])
def test_json_round_trips_are_identical(model, missing, tmp_path):
    """The tree's dictionary and JSON, and the estimator's JSON text and file, load back
    as the same tree (thresholds and missing sides bit for bit) with the same predictions
    and JSON; with missing values in the training and the new data too."""
    X, y = _threads_data(model.task, n=200, d=4, seed=3)
    if missing:
        if model in REFUSED_MISSING:
            pytest.skip("this search refuses missing values (tested above)")
        X[np.random.default_rng(2).uniform(size=X.shape) < 0.2] = np.nan
    est = model.make(max_depth=6).fit(X, y)
    tree = est.tree_
    if model.bivariate:
        assert np.any(tree.n_node_features >= 2)  # a real bivariate tree is checked
    X_new = np.vstack([X, np.random.default_rng(0).normal(size=(300, 4)) * 8.0])
    X_new[np.random.default_rng(4).uniform(size=X_new.shape) < 0.1] = np.nan
    if missing:
        assert tree.missing_learned and tree.to_dict()["version"] == 3
    elif model.splitter is not None:
        assert not tree.missing_learned and tree.to_dict()["version"] == 2
    if not est._accepts_missing():
        X_new = X_new[~np.isnan(X_new).any(axis=1)]
    for copy in (Tree.from_dict(tree.to_dict()), Tree.from_json(tree.to_json()),
                 Tree.from_dict(json.loads(json.dumps(tree.to_dict())))):
        assert copy == tree and copy is not tree
        np.testing.assert_array_equal(copy.threshold, tree.threshold)
        np.testing.assert_array_equal(copy.apply(X_new), tree.apply(X_new))
        np.testing.assert_array_equal(copy.predict(X_new), tree.predict(X_new))
    text = to_json(est)
    path = tmp_path / "model.json"
    save_model(est, path)
    est.save(tmp_path / "method.json")
    for again in (from_json(text), load_model(path), type(est).load(tmp_path / "method.json")):
        assert type(again) is type(est)
        assert again.tree_ == tree
        assert again.get_params() == est.get_params()
        np.testing.assert_array_equal(again.predict(X_new), est.predict(X_new))
        np.testing.assert_array_equal(again.apply(X_new), est.apply(X_new))
        if not model.regression:
            np.testing.assert_array_equal(again.predict_proba(X_new), est.predict_proba(X_new))
        assert to_json(again) == text


# ============================================================ scikit-learn
@parametrize_with_checks([m.make(max_depth=4) if m.splitter else m.make() for m in MODELS])
def test_sklearn_compatible(estimator, check):
    """scikit-learn's estimator checks, none excluded (TAO with its defaults)."""
    check(estimator)
