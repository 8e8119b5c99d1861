"""Fuzz tests of bivtree's input handling: every bad input is a clear error, never a crash.

The promise under test (README, "Bad input"; docs/robustness.md): a call with bad
input raises a ``ValueError`` (scikit-learn's ``NotFittedError`` before fitting)
whose message names the problem, and the ``bivtree`` command ends with a message on
stderr and a non-zero status. Nothing ends in a numba crash, a hang, a raw
``TypeError``/``ZeroDivisionError``/``OverflowError``/``RecursionError``, a silently
wrong model (non-finite importances, probabilities that do not sum to 1, predictions
that disagree with ``apply``) or an overwritten file.

Examples are drawn by hypothesis and kept tiny (at most 40 x 4) because every fit
runs compiled kernels. Two profiles, registered in ``tests/conftest.py``:

* ``fuzz-short`` (the default, and the one CI runs, derandomised there): about a
  minute on two cores once numba's cache is warm;
* ``fuzz-long``: many more examples and no deadline, run by hand with
  ``BIVTREE_FUZZ=long python -m pytest tests/test_fuzz.py -p no:cacheprovider``.
"""

import contextlib
import io
import json
import math
import os
import re
import tempfile
import time
import warnings

import numpy as np
import pandas as pd
import pytest
from hypothesis import assume, given, settings
from hypothesis import note as _note
from hypothesis import strategies as st
from hypothesis.errors import InvalidArgument
from sklearn.exceptions import NotFittedError

from bivtree import from_json, to_json
from bivtree._validation import Interval, Options, RealNotInt, check_params
from bivtree.cli import main
from bivtree.estimators import BivariateTreeClassifier, BivariateTreeRegressor
from bivtree.splitters import SPLITTERS
from bivtree.tao.estimators import TAOTreeClassifier, TAOTreeRegressor

#: ``BIVTREE_FUZZ=long`` picks the ``fuzz-long`` profile (any ``fuzz-NAME`` registered works).
PROFILE = settings.get_profile(f"fuzz-{os.environ.get('BIVTREE_FUZZ') or 'short'}")


def fuzz(share):
    """The profile's settings with ``share`` (a fraction) of its examples for one test."""
    return settings(PROFILE, max_examples=max(1, round(PROFILE.max_examples * share)))


#: the longest one tiny fit (or one command) may take; far above what a healthy fit
#: needs with a warm numba cache, far below a hang.
SECONDS_PER_CALL = 60.0

#: (estimator class, splitter or None for TAO): every estimator with every splitter
#: that grows trees for its task.
ESTIMATORS = [
    *[(BivariateTreeClassifier, name) for name in sorted(SPLITTERS)],
    *[(BivariateTreeRegressor, name) for name in sorted(SPLITTERS)
      if "regression" in SPLITTERS[name].tasks],
    (TAOTreeClassifier, None),
    (TAOTreeRegressor, None),
]

#: settings that keep every fit of a tiny sample fast (the optimal splitter's branch
#: and bound and TAO have their own limits); a drawn parameter overrides them.
FAST = {"optimal": {"splitter_options": {"time_limit": 2.0, "fit_time_limit": 5.0}}}


def note(text):
    """Record ``text`` in hypothesis's report of a failing example (ignored outside one)."""
    with contextlib.suppress(InvalidArgument):
        _note(text)


def _is_classifier(cls):
    return cls in (BivariateTreeClassifier, TAOTreeClassifier)


def _make(cls, splitter_name, **params):
    base = {"max_depth": 4}
    if splitter_name is not None:
        base.update(splitter=splitter_name, **FAST.get(splitter_name, {}))
    else:
        base.update(max_iter=5, time_limit=5.0)
    base.update(params)
    return cls(**base)


# --------------------------------------------------------------------------- the oracle
def _mentions(message, words):
    """Whether ``message`` names one of ``words`` ("X" and "y" as whole words, the
    others case-insensitively)."""
    for word in words:
        if word in ("X", "y"):
            if re.search(rf"(?<![\w'\-]){word}(?![\w\-])", message):
                return True
        elif word.lower() in message.lower():
            return True
    return False


def check_error(exc, words):
    """An error is acceptable when it is a ``ValueError`` with a message naming the problem."""
    assert isinstance(exc, ValueError), f"{type(exc).__name__} instead of ValueError: {exc!r}"
    message = str(exc)
    assert message.strip(), f"{type(exc).__name__} with an empty message"
    assert "Traceback" not in message
    assert _mentions(message, words), f"message {message!r} names none of {sorted(words)}"


def check_fitted(model, X, y, sample_weight=None):
    """A fitted model must be sound: outputs consistent, finite and round-tripping."""
    leaves = model.apply(X)
    tree = model.tree_
    n = len(leaves)
    assert np.all(tree.children_left[leaves] == -1), "apply returned a decision node"
    pred = model.predict(X)
    assert len(pred) == n
    importances = model.feature_importances_
    assert np.all(np.isfinite(importances)), f"feature_importances_ {importances}"
    assert np.all(importances >= 0), f"feature_importances_ {importances}"
    total = importances.sum()
    assert math.isclose(total, 1.0, rel_tol=1e-9) or total == 0.0, f"importances sum {total}"
    if hasattr(model, "predict_proba"):
        proba = model.predict_proba(X)
        assert proba.shape == (n, len(model.classes_))
        assert np.all(np.isfinite(proba)), "non-finite probabilities"
        assert np.all((proba >= 0) & (proba <= 1)), "probabilities outside [0, 1]"
        assert np.allclose(proba.sum(axis=1), 1.0), f"probabilities sum to {proba.sum(axis=1)}"
        counts = tree.value[leaves]
        expected = counts / counts.sum(axis=1, keepdims=True)
        assert np.allclose(proba, expected), "predict_proba disagrees with apply"
        assert np.array_equal(pred, model.classes_[np.argmax(proba, axis=1)])
        assert set(np.unique(pred)) <= set(model.classes_)
    else:
        pred = np.asarray(pred, dtype=float)
        assert np.array_equal(pred, tree.value[leaves, 0]), "predict disagrees with apply"
        y_num = np.asarray(y, dtype=float)
        if sample_weight is None or np.all(np.asarray(sample_weight, dtype=float) > 0):
            # a leaf's value is a weighted mean of training targets
            lo, hi = y_num.min(), y_num.max()
            slack = 1e-9 * max(abs(lo), abs(hi))
            assert np.all(np.isfinite(pred)), f"non-finite predictions {pred}"
            assert np.all((pred >= lo - slack) & (pred <= hi + slack)), (
                f"predictions {pred} outside the targets' range [{lo}, {hi}]")
    text = to_json(model)
    again = from_json(text)
    assert np.array_equal(again.predict(X), model.predict(X)), "from_json changed predictions"
    if hasattr(model, "predict_proba"):
        assert np.array_equal(again.predict_proba(X), model.predict_proba(X))


def fit_or_error(model, X, y, sample_weight, words):
    """Fit; either a named ``ValueError`` or a sound model. Returns whether it fitted."""
    t0 = time.perf_counter()
    try:
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            model.fit(X, y, sample_weight=sample_weight)
    except Exception as exc:  # noqa: BLE001 - any exception is judged by the oracle
        note(f"raised {type(exc).__name__}: {exc}")
        check_error(exc, words)
        return False
    finally:
        assert time.perf_counter() - t0 < SECONDS_PER_CALL, "fit took too long"
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        check_fitted(model, X, y, sample_weight)
    return True


# --------------------------------------------------------------------------- data
#: magnitudes from subnormal to the largest double, and ordinary ones.
HUGE_TINY = [1e-310, 5e-324, 2.2e-308, 1e-300, 1e-100, 1.0, 1e100, 1e300, 1.7e308]


def _column(draw, n, kind):
    if kind == "normal":
        return np.array(draw(st.lists(st.floats(-10, 10), min_size=n, max_size=n)))
    if kind == "constant":
        return np.full(n, draw(st.sampled_from([0.0, -3.5, 1e300, 1e-310])))
    if kind == "ties":
        return np.array(draw(st.lists(st.integers(-2, 2), min_size=n, max_size=n)), float)
    scale = draw(st.sampled_from(HUGE_TINY))
    signs = np.array(draw(st.lists(st.sampled_from([-1.0, 1.0]), min_size=n, max_size=n)))
    fractions = np.array(draw(st.lists(st.floats(0.0, 1.0), min_size=n, max_size=n)))
    if kind == "huge_tiny":
        return signs * fractions * scale
    # "mixed": magnitudes differing per entry
    mags = np.array(draw(st.lists(st.sampled_from(HUGE_TINY), min_size=n, max_size=n)))
    return signs * mags


COLUMN_KINDS = ["normal", "normal", "constant", "ties", "huge_tiny", "mixed"]


@st.composite
def feature_matrices(draw, max_rows=40, max_cols=4):
    """A finite float matrix whose columns are each of one kind."""
    n = draw(st.integers(2, max_rows))
    p = draw(st.integers(1, max_cols))
    kinds = [draw(st.sampled_from(COLUMN_KINDS)) for _ in range(p)]
    X = np.column_stack([_column(draw, n, k) for k in kinds])
    if draw(st.booleans()):  # duplicated rows
        rows = draw(st.lists(st.integers(0, n - 1), min_size=1, max_size=n))
        X = np.vstack([X, X[rows]])[:max_rows + 10]
    return X, kinds


@st.composite
def labels(draw, n, classifier):
    """Targets of ``n`` samples; the words a message about them may use."""
    if not classifier:
        kind = draw(st.sampled_from(["normal", "normal", "ints", "constant", "huge", "tiny",
                                     "mixed_scale", "strings", "bools"]))
        if kind == "normal":
            return np.array(draw(st.lists(st.floats(-100, 100), min_size=n, max_size=n))), kind
        if kind == "ints":
            return np.array(draw(st.lists(st.integers(-3, 3), min_size=n, max_size=n))), kind
        if kind == "constant":
            return np.full(n, 2.5), kind
        if kind in ("huge", "tiny", "mixed_scale"):
            mags = {"huge": [1e300, 1.7e308], "tiny": [1e-310, 1e-300],
                    "mixed_scale": HUGE_TINY}[kind]
            vals = draw(st.lists(st.sampled_from(mags), min_size=n, max_size=n))
            signs = draw(st.lists(st.sampled_from([-1.0, 1.0]), min_size=n, max_size=n))
            return np.array(vals) * np.array(signs), kind
        if kind == "strings":
            return np.array(draw(st.lists(st.sampled_from(["a", "b", "1.5"]),
                                          min_size=n, max_size=n)), dtype=object), kind
        return np.array(draw(st.lists(st.booleans(), min_size=n, max_size=n))), kind
    kind = draw(st.sampled_from(["ints", "ints", "strings", "bools", "one_class", "none",
                                 "mixed", "floats", "many"]))
    if kind == "ints":
        return np.array(draw(st.lists(st.integers(0, 2), min_size=n, max_size=n))), kind
    if kind == "strings":
        return np.array(draw(st.lists(st.sampled_from(["cat", "dog", ""]),
                                      min_size=n, max_size=n))), kind
    if kind == "bools":
        return np.array(draw(st.lists(st.booleans(), min_size=n, max_size=n))), kind
    if kind == "one_class":
        return np.full(n, "only"), kind
    if kind == "none":
        vals = draw(st.lists(st.sampled_from([None, "a", "b"]), min_size=n, max_size=n))
        return np.array(vals, dtype=object), kind
    if kind == "mixed":
        vals = draw(st.lists(st.sampled_from([1, "1", 2.0, True]), min_size=n, max_size=n))
        return np.array(vals, dtype=object), kind
    if kind == "floats":
        return np.array(draw(st.lists(st.floats(0, 1), min_size=n, max_size=n))), kind
    return np.arange(n) % draw(st.integers(2, 7)), kind


#: samples weights: (kind, function of n and a draw)
WEIGHT_KINDS = ["none", "none", "ones", "zeros_some", "all_zero", "tiny", "huge", "negative",
                "nan", "inf", "wrong_length", "mixed"]


def _weights(draw, n):
    kind = draw(st.sampled_from(WEIGHT_KINDS))
    if kind == "none":
        return None, kind
    if kind == "ones":
        return np.ones(n), kind
    if kind == "wrong_length":
        return np.ones(n + 1), kind
    w = np.ones(n)
    k = draw(st.integers(0, n - 1))
    value = {"zeros_some": 0.0, "all_zero": 0.0, "tiny": 1e-300, "huge": 1e300,
             "negative": -1.0, "nan": np.nan, "inf": np.inf, "mixed": 1e-300}[kind]
    if kind in ("all_zero", "tiny", "huge"):
        w[:] = value
    else:
        w[k] = value
    if kind == "mixed":
        w[(k + 1) % n] = 1e300
    return w, kind


def _class_weight(draw, y):
    kind = draw(st.sampled_from(["none", "none", "balanced", "dict", "negative", "nan",
                                 "zero", "missing", "unknown", "huge", "string"]))
    classes = [c for c in dict.fromkeys(y.tolist())]
    if kind == "none":
        return None, kind
    if kind == "balanced":
        return "balanced", kind
    if kind == "string":
        return "balance", kind
    values = {"dict": 2.0, "negative": -1.0, "nan": float("nan"), "zero": 0.0, "huge": 1e308}
    if kind in values:
        weights = {c: 1.0 for c in classes}
        if classes:
            weights[classes[0]] = values[kind]
        return weights, kind
    if kind == "missing":
        return {c: 3.0 for c in classes[:1]}, kind
    return {"not-a-class": 2.0, **{c: 1.0 for c in classes}}, kind


def _container(draw, X):
    """``X`` as a list, an array, a DataFrame (possibly with non-numeric columns) or 1-D."""
    kind = draw(st.sampled_from(["array", "array", "list", "frame", "frame_mixed", "one_d",
                                 "fortran", "float32", "int"]))
    if kind == "list":
        return X.tolist(), kind
    if kind == "fortran":
        return np.asfortranarray(X), kind
    if kind == "float32":  # huge values become infinite
        with np.errstate(over="ignore"):
            return X.astype(np.float32), kind
    if kind == "int":
        with np.errstate(invalid="ignore", over="ignore"):
            return np.nan_to_num(X).clip(-1e9, 1e9).astype(np.int64), kind
    if kind == "one_d":
        return X[:, :1].ravel(), kind
    if X.shape[1] == 0:
        return pd.DataFrame(X), "frame"
    frame = pd.DataFrame(X, columns=[f"f{j}" for j in range(X.shape[1])])
    if kind == "frame":
        return frame, kind
    col = f"f{draw(st.integers(0, X.shape[1] - 1))}"
    how = draw(st.sampled_from(["object", "str", "bool", "category", "int_names"]))
    if how == "object":
        frame[col] = frame[col].astype(object)
    elif how == "str":
        frame[col] = frame[col].astype(str)
    elif how == "bool":
        frame[col] = frame[col] > 0
    elif how == "category":
        frame[col] = pd.Categorical(np.sign(frame[col]))
    else:
        frame.columns = list(range(X.shape[1]))
    return frame, f"frame_{how}"


@st.composite
def fit_inputs(draw, classifier):
    """``(X, y, sample_weight, class_weight, words)``: one fit's input, possibly bad, and
    the words a message about the bad part may use."""
    X, kinds = draw(feature_matrices())
    words = {"X", "sample", "feature", "array"}
    defect = draw(st.sampled_from(["none"] * 6 + ["nan", "inf", "empty", "single", "no_cols"]))
    if defect in ("nan", "inf"):
        i, j = draw(st.integers(0, X.shape[0] - 1)), draw(st.integers(0, X.shape[1] - 1))
        X[i, j] = np.nan if defect == "nan" else draw(st.sampled_from([np.inf, -np.inf]))
    elif defect == "empty":
        X = X[:0]
    elif defect == "single":
        X = X[:1]
    elif defect == "no_cols":
        X = X[:, :0]
    n = X.shape[0]
    y, y_kind = draw(labels(max(n, 1), classifier))
    y = y[:n]
    words |= {"y", "class", "label", "target"}
    if draw(st.integers(0, 9)) == 0:  # y of the wrong length
        y = np.concatenate([y, y[:1]]) if n else y
        words |= {"inconsistent", "length"}
    sample_weight, w_kind = _weights(draw, max(n, 1))
    if sample_weight is not None:
        sample_weight = sample_weight[:n] if w_kind != "wrong_length" else sample_weight
        words |= {"sample_weight", "weight"}
    class_weight, cw_kind = (None, "none")
    if classifier:
        class_weight, cw_kind = _class_weight(draw, y)
        if class_weight is not None:
            words |= {"class_weight", "weight"}
    Xc, c_kind = _container(draw, X)
    note(f"X {X.shape} columns {kinds} defect {defect} container {c_kind}; y {y_kind}; "
         f"sample_weight {w_kind}; class_weight {cw_kind}")
    if c_kind.startswith("frame_") and c_kind != "frame_int_names":
        words |= {"column", "numeric"}
    return Xc, y, sample_weight, class_weight, words


@pytest.mark.parametrize(("cls", "splitter"), ESTIMATORS,
                         ids=[f"{c.__name__}-{s}" for c, s in ESTIMATORS])
@fuzz(0.5)
@given(data=st.data())
def test_fit_accepts_or_names_the_problem(cls, splitter, data):
    """Any drawn input (finite or not, tiny or huge, any container, weights and labels of
    every kind) either fits a sound model or raises a ValueError that names the problem."""
    classifier = _is_classifier(cls)
    X, y, sample_weight, class_weight, words = data.draw(fit_inputs(classifier))
    params = {"class_weight": class_weight} if classifier else {}
    model = _make(cls, splitter, **params)
    fit_or_error(model, X, y, sample_weight, words)


@pytest.mark.parametrize(("cls", "splitter"), ESTIMATORS,
                         ids=[f"{c.__name__}-{s}" for c, s in ESTIMATORS])
@fuzz(0.15)
@given(data=st.data())
def test_clean_data_always_fits(cls, splitter, data):
    """Finite data of ordinary magnitude, two or more classes and positive weights is never
    rejected: the fit succeeds and the model is sound."""
    classifier = _is_classifier(cls)
    n = data.draw(st.integers(4, 40))
    p = data.draw(st.integers(1, 4))
    # multiples of 1/64 up to 1e6: ordinary magnitudes, no values near underflow
    value = st.integers(-64 * 10**6, 64 * 10**6).map(lambda v: v / 64)
    X = np.array(data.draw(st.lists(st.lists(value, min_size=p, max_size=p),
                                    min_size=n, max_size=n)))
    if classifier:
        y = np.arange(n) % data.draw(st.integers(2, 4))
        y = np.array(data.draw(st.permutations(y.tolist())))
    else:
        y = np.array(data.draw(st.lists(value, min_size=n, max_size=n)))
    w = np.array(data.draw(st.lists(st.floats(0.01, 100), min_size=n, max_size=n)))
    model = _make(cls, splitter)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        model.fit(X, y, sample_weight=w)
        check_fitted(model, X, y, w)


# --------------------------------------------------------------------------- parameters
_BAD_ANYWHERE = [True, False, np.nan, np.inf, -np.inf, "1", "", [1], {}, object(), 1 + 0j]


def _interval_values(c):
    """Values on and around the bounds of an interval, of its kind and of the wrong kind."""
    values = [0, 1, -1, 2, 0.5, 1.0, 1e-12, 10**19, 2.0**64]
    for bound in (c.low, c.high):
        if bound is None:
            continue
        b = float(bound)
        values += [b, math.nextafter(b, math.inf), math.nextafter(b, -math.inf)]
        if float(bound).is_integer():
            values += [int(b), int(b) - 1, int(b) + 1, np.int64(int(b)), np.int64(int(b) + 1)]
    if c.kind is RealNotInt:
        values += [0.25, 0.999, 1.5, np.float32(0.5), np.float64(0.75)]
    return values


def _candidates(table, name):
    """Values to try for parameter ``name``, drawn from its constraints: each allowed
    kind near its boundaries, plus wrong types, bools and NaN."""
    values = list(_BAD_ANYWHERE) + [None]
    for spec in table[name]:
        if isinstance(spec, Interval):
            values += _interval_values(spec)
        elif isinstance(spec, (set, frozenset, Options)):
            options = spec if isinstance(spec, (set, frozenset)) else spec.options
            for opt in sorted(options):
                values += [opt, opt.upper(), opt + " "]
        elif spec == "boolean":
            values += [np.bool_(True), 0, 1, "true"]
        elif spec == "array-like":
            values += [[], [0], [0.5, 2.0], (1,), np.array([1.0]), [np.nan], "abc"]
    return values


#: parameters whose valid values set how much work a fit does: huge valid values are
#: tried by test_work_size_parameters_are_bounded instead.
WORK_SIZE = {"n_orientations", "max_iter", "max_cycles"}


def _tiny_data(classifier):
    rng = np.random.default_rng(0)
    X = rng.normal(size=(24, 3))
    y = (X[:, 0] + X[:, 1] > 0).astype(int) if classifier else X[:, 0] - 2 * X[:, 2]
    return X, y


def _indicator_data():
    """Two numbers and a column of category codes, the class a threshold on the first
    number that depends on the category: trees with indicator slots."""
    rng = np.random.default_rng(1)
    X = np.column_stack([rng.normal(size=(60, 2)), rng.integers(0, 4, 60)]).astype(float)
    y = (X[:, 0] + 1.5 * (X[:, 2] == 1) > 0.3).astype(int)
    return X, y


def _is_valid(owner, name, value, table):
    try:
        check_params(owner, {name: value}, {name: table[name]})
    except ValueError:
        return False
    return True


@pytest.mark.parametrize(("cls", "splitter"), ESTIMATORS,
                         ids=[f"{c.__name__}-{s}" for c, s in ESTIMATORS])
@fuzz(0.5)
@given(data=st.data())
def test_parameters_from_constraints(cls, splitter, data):
    """A parameter value outside its ``_parameter_constraints`` entry raises a ValueError
    naming the parameter; a value inside it fits a sound model (or, when the data make it
    impossible, such as max_features above the number of features, names the parameter)."""
    table = cls._parameter_constraints
    name = data.draw(st.sampled_from(sorted(table)))
    value = data.draw(st.sampled_from(_candidates(table, name)))
    valid = _is_valid(cls.__name__, name, value, table)
    if name in WORK_SIZE and valid:
        assume(value <= 1000)
    if name == "n_jobs" and valid and value is not None:
        assume(abs(value) <= 64)
    note(f"{name}={value!r} valid per table: {valid}")
    model = _make(cls, splitter, **{name: value})
    X, y = _tiny_data(_is_classifier(cls))
    fitted = fit_or_error(model, X, y, None, {name})
    # these depend on the data too: columns that exist, classes, the task
    assert fitted or not valid or name in ("max_features", "max_pairs", "splitter",
                                           "init", "splitter_options", "class_weight",
                                           "criterion", "categorical_features",
                                           "monotonic_cst", "interaction_cst"), (
        f"valid {name}={value!r} was refused")
    assert not (fitted and not valid), f"invalid {name}={value!r} was accepted"


SPLITTERS_WITH_OPTIONS = [(cls, name) for cls, name in ESTIMATORS
                          if name is not None and SPLITTERS[name]._parameter_constraints]


@pytest.mark.parametrize(("cls", "splitter"), SPLITTERS_WITH_OPTIONS,
                         ids=[f"{c.__name__}-{s}" for c, s in SPLITTERS_WITH_OPTIONS])
@fuzz(0.4)
@given(data=st.data())
def test_splitter_options_from_constraints(cls, splitter, data):
    """A ``splitter_options`` value outside the splitter's constraints, or an unknown key,
    raises a ValueError naming the key; a valid value fits a sound model."""
    table = SPLITTERS[splitter]._parameter_constraints
    name = data.draw(st.sampled_from([*sorted(table), "no_such_option"]))
    if name == "no_such_option":
        value, valid = 1, False
    else:
        value = data.draw(st.sampled_from(_candidates(table, name)))
        valid = _is_valid(splitter, name, value, table)
    if valid and isinstance(value, (int, float)) and not isinstance(value, bool):
        if name in WORK_SIZE:
            assume(value <= 1000)
        if name in ("time_limit", "fit_time_limit"):
            assume(value <= 5)
    options = {**FAST.get(splitter, {}).get("splitter_options", {}), name: value}
    note(f"splitter_options {options!r}; valid per table: {valid}")
    model = _make(cls, splitter, splitter_options=options)
    X, y = _tiny_data(_is_classifier(cls))
    # "categorical_features" may be spelt out: "categorical feature column 1 holds ..."
    words = {name, name.replace("_", " ").removesuffix("s"), "splitter_options"}
    fitted = fit_or_error(model, X, y, None, words)
    assert not (fitted and not valid), f"invalid {name}={value!r} was accepted"


@pytest.mark.parametrize("cls", [BivariateTreeClassifier, BivariateTreeRegressor,
                                 TAOTreeClassifier, TAOTreeRegressor],
                         ids=lambda c: c.__name__)
@pytest.mark.parametrize("value", [10**6, 10**9, 2**62, 10**30],
                         ids=["1e6", "1e9", "2^62", "1e30"])
def test_work_size_parameters_are_bounded(cls, value):
    """A huge ``n_orientations`` is refused with a ValueError naming it or fitted in bounded
    time and memory: it never exhausts the machine or overflows in a kernel."""
    model = _make(cls, "orientations" if "TAO" not in cls.__name__ else None,
                  n_orientations=value)
    X, y = _tiny_data(_is_classifier(cls))
    fit_or_error(model, X, y, None, {"n_orientations"})


# --------------------------------------------------------------------------- prediction
@pytest.mark.parametrize(("cls", "splitter"), ESTIMATORS[:2] + ESTIMATORS[-2:],
                         ids=[f"{c.__name__}-{s}" for c, s in ESTIMATORS[:2] + ESTIMATORS[-2:]])
@fuzz(0.3)
@given(data=st.data())
def test_prediction_input_is_checked(cls, splitter, data):
    """Prediction input of the wrong width, non-finite, empty or non-numeric raises a
    ValueError naming X (or its features); an unfitted model raises NotFittedError."""
    classifier = _is_classifier(cls)
    X, y = _tiny_data(classifier)
    model = _make(cls, splitter)
    method = data.draw(st.sampled_from(["predict", "apply", "decision_path"]
                                       + (["predict_proba"] if classifier else [])))
    with pytest.raises(NotFittedError):
        getattr(model, method)(X)
    model.fit(X, y)
    kind = data.draw(st.sampled_from(["width", "nan", "inf", "empty", "one_d", "text",
                                      "huge", "list"]))
    Z = X[:5].copy()
    if kind == "width":
        Z = np.hstack([Z, Z])[:, :data.draw(st.sampled_from([1, 2, 4, 6]))]
    elif kind == "nan":
        Z[0, 1] = np.nan
    elif kind == "inf":
        Z[1, 0] = -np.inf
    elif kind == "empty":
        Z = Z[:0]
    elif kind == "one_d":
        Z = Z[0]
    elif kind == "text":
        Z = pd.DataFrame(Z, columns=["a", "b", "c"]).astype({"b": str})
    elif kind == "huge":  # some values overflow to infinity
        with np.errstate(over="ignore"):
            Z = Z * data.draw(st.sampled_from([1e308, 1e-310, -1.7e308]))
    else:
        Z = Z.tolist()
    note(f"{method} on {kind}")
    try:
        out = getattr(model, method)(Z)
    except Exception as exc:  # noqa: BLE001
        check_error(exc, {"X", "feature", "sample", "array", "column", "numeric"})
        return
    # NaN is a missing value for a model whose search handles them
    assert kind in ("huge", "list") or (kind == "nan" and model._accepts_missing()), \
        f"{kind} input accepted by {method}"
    assert out.shape[0] == 5


# --------------------------------------------------------------------------- model files
@fuzz(0.3)
@given(data=st.data())
def test_mutated_model_text_is_rejected_or_sound(data):
    """A model file with one value changed, a field removed or its text cut short loads as
    a sound model or raises a ValueError; never another exception. The models: one on
    numbers (format version 2), one with category indicator slots (version 4)."""
    if data.draw(st.booleans()):
        X, y = _tiny_data(True)
        model = BivariateTreeClassifier(max_depth=3).fit(X, y)
    else:
        X, y = _indicator_data()
        model = BivariateTreeClassifier(max_depth=3, categorical_features=[2]).fit(X, y)
        assert model.tree_.has_indicator_slots.any()
    doc = json.loads(to_json(model))
    how = data.draw(st.sampled_from(["truncate", "drop", "replace", "tree"]))
    if how == "truncate":
        text = to_json(model)
        # a fraction, not an index: the text's length varies with the recorded fit time
        text = text[:int(data.draw(st.floats(0.0, 1.0, exclude_max=True)) * len(text))]
    else:
        target = doc["tree"] if how == "tree" and isinstance(doc.get("tree"), dict) else doc
        key = data.draw(st.sampled_from(sorted(target)))
        if how == "drop":
            del target[key]
        else:
            target[key] = data.draw(st.sampled_from(
                [None, -1, 0, 10**30, 1.5, "x", [], {}, [None], [-1, 2], True, float("nan")]))
        text = json.dumps(doc)
    note(f"{how}: {text[:200]}")
    try:
        again = from_json(text)
    except Exception as exc:  # noqa: BLE001
        check_error(exc, {"model", "tree", "json", "format", "field", "version", "node",
                          "feature", "class", "param", "must", "lack"})
        return
    try:
        check_fitted(again, X, y)
    except Exception as exc:
        if isinstance(exc, AssertionError):
            raise
        check_error(exc, {"X", "feature", "model"})


# --------------------------------------------------------------------------- command line
def run_cli(argv):
    """``(status, stdout, stderr)`` of ``bivtree argv``; argparse's exits are statuses."""
    out, err = io.StringIO(), io.StringIO()
    t0 = time.perf_counter()
    with contextlib.redirect_stdout(out), contextlib.redirect_stderr(err), \
            warnings.catch_warnings():
        warnings.simplefilter("ignore")
        try:
            status = main(argv)
        except SystemExit as exc:
            status = exc.code if isinstance(exc.code, int) else 1
    assert time.perf_counter() - t0 < SECONDS_PER_CALL, "the command took too long"
    return status, out.getvalue(), err.getvalue()


@st.composite
def csv_texts(draw):
    """CSV bytes: numbers, NaN cells, text, huge values, header-only, empty or undecodable."""
    kind = draw(st.sampled_from(["table"] * 6 + ["empty", "header_only", "undecodable",
                                                 "blank_lines", "ragged"]))
    if kind == "empty":
        return b"", kind
    if kind == "undecodable":
        return b"a,b,y\n\xff\xfe\x00,1,\x80\n1,2,3\n", kind
    if kind == "header_only":
        return b"a,b,y\n", kind
    if kind == "blank_lines":
        return b"\n\n\n", kind
    if kind == "ragged":
        return b"a,b,y\n1,2\n3,4,5,6\n1,1,1\n", kind
    n = draw(st.integers(1, 15))
    cols = draw(st.integers(1, 4))
    cell = st.one_of(st.integers(-3, 3).map(str), st.floats(-5, 5).map(repr),
                     st.sampled_from(["", "nan", "inf", "-inf", "1e308", "1e-310", "abc",
                                      '"x,y"', "True"]))
    header = [f"c{j}" for j in range(cols - 1)] + ["y"]
    rows = [",".join(draw(st.lists(cell, min_size=cols, max_size=cols))) for _ in range(n)]
    if draw(st.booleans()):  # mostly clean numbers, so that fits happen too
        rows = [",".join(f"{(i * 7 + j * 3) % 5 - 2}" for j in range(cols - 1))
                + f",{i % 2}" for i in range(max(n, 4))]
    return ("\n".join([",".join(header), *rows]) + "\n").encode(), kind


def _snapshot(folder):
    return {name: open(os.path.join(folder, name), "rb").read()
            for name in sorted(os.listdir(folder))
            if os.path.isfile(os.path.join(folder, name))}


def check_cli_outcome(status, out, err, argv):
    """Status 0, or a non-zero status with a message and no traceback."""
    note(f"bivtree {' '.join(argv)} -> {status}\nstdout: {out[-500:]}\nstderr: {err[-500:]}")
    assert isinstance(status, int)
    assert "Traceback" not in err + out, "a traceback was printed"
    if status != 0:
        assert err.strip(), "failed without a message on stderr"


@fuzz(0.8)
@given(data=st.data())
def test_cli_fit_never_crashes_or_clobbers(data):
    """``bivtree fit`` on any drawn CSV with any drawn arguments exits 0 having written a
    loadable model, or exits non-zero with a message on stderr; a file that existed is
    changed only when --force was given."""
    content, _kind = data.draw(csv_texts())
    with tempfile.TemporaryDirectory() as tmp:
        path = os.path.join(tmp, "data.csv")
        with open(path, "wb") as fh:
            fh.write(content)
        existing = os.path.join(tmp, "old.model.json")
        with open(existing, "wb") as fh:
            fh.write(b'{"precious": true}')
        target = data.draw(st.sampled_from(["y", "y", "c0", "missing", ""]))
        argv = ["fit", path, "--target", target, "-q"]
        output = data.draw(st.sampled_from(
            [None, existing, path, os.path.join(tmp, "new.json"),
             os.path.join(tmp, "no", "such", "dir", "m.json"), tmp]))
        if output is not None:
            argv += ["-o", output]
        force = data.draw(st.booleans())
        if force:
            argv.append("--force")
        for option, values in [("--max-depth", ["1", "3", "0", "-1", "x", "1e3"]),
                               ("--min-samples-leaf", ["1", "0.5", "0", "2.5", "nan", "-1"]),
                               ("--n-orientations", ["1", "4", "0"]),
                               ("--ccp-alpha", ["0", "0.01", "-1", "nan", "inf"]),
                               ("--max-features", ["sqrt", "1", "0.5", "9", "0", "x"]),
                               ("--splitter", sorted(SPLITTERS) + ["nope"]),
                               ("--criterion", ["gini", "entropy", "squared_error", "bad"]),
                               ("--model", ["auto", "classifier", "regressor", "other"]),
                               ("--set", ["max_depth=2", "bogus=1", "max_depth=null",
                                          "splitter_options={\"time_limit\": 1}", "=x"])]:
            if data.draw(st.integers(0, 4)) == 0:
                argv += [option, data.draw(st.sampled_from(values))]
        if "optimal" in argv:
            argv += ["--set", 'splitter_options={"time_limit": 2, "fit_time_limit": 5}']
        before = _snapshot(tmp)
        status, out, err = run_cli(argv)
        check_cli_outcome(status, out, err, argv)
        after = _snapshot(tmp)
        for name, blob in before.items():
            if not force:
                assert after.get(name) == blob, f"{name} was changed without --force"
        if status == 0:
            written = output or os.path.splitext(path)[0] + ".model.json"
            assert os.path.isfile(written), "exit 0 without a model file"
            with open(written, encoding="utf-8") as fh:
                from_json(fh.read())


@pytest.fixture(scope="module")
def saved_model(tmp_path_factory):
    folder = tmp_path_factory.mktemp("fuzz_model")
    data = folder / "train.csv"
    data.write_text("a,b,y\n" + "".join(f"{i % 5},{(i * 3) % 7},{int(i % 5 > 2)}\n"
                                        for i in range(30)))
    model = folder / "train.model.json"
    assert run_cli(["fit", str(data), "--target", "y", "-q", "-o", str(model),
                    "--max-depth", "3"])[0] == 0
    return model.read_bytes()


@fuzz(0.5)
@given(data=st.data())
def test_cli_predict_and_show_never_crash_or_clobber(saved_model, data):
    """``bivtree predict`` and ``bivtree show`` on drawn data files and outputs exit 0 or
    exit non-zero with a message; an existing output is changed only with --force."""
    content, _kind = data.draw(csv_texts())
    with tempfile.TemporaryDirectory() as tmp:
        model = os.path.join(tmp, "m.json")
        with open(model, "wb") as fh:
            fh.write(saved_model)
        path = os.path.join(tmp, "data.csv")
        with open(path, "wb") as fh:
            fh.write(content.replace(b"c0", b"a").replace(b"c1", b"b"))
        existing = os.path.join(tmp, "old.csv")
        with open(existing, "wb") as fh:
            fh.write(b"keep,me\n1,2\n")
        command = data.draw(st.sampled_from(["predict", "show"]))
        outputs = [None, existing, model, path, os.path.join(tmp, "new.csv"),
                   os.path.join(tmp, "missing", "p.csv")]
        if command == "predict":
            argv = ["predict", model, path]
            if data.draw(st.booleans()):
                argv.append("--proba")
            flag = "-o"
        else:
            argv = ["show", model]
            if data.draw(st.booleans()):
                argv += ["--data", path]
            outputs += [os.path.join(tmp, "rules.md"), os.path.join(tmp, "tree.dot"),
                        os.path.join(tmp, "x.unknown")]
            flag = "--out"
            if data.draw(st.booleans()):
                argv += ["--max-depth", data.draw(st.sampled_from(["0", "1", "-1", "x"]))]
        output = data.draw(st.sampled_from(outputs))
        if output is not None:
            argv += [flag, output]
        force = data.draw(st.booleans())
        if force:
            argv.append("--force")
        before = _snapshot(tmp)
        status, out, err = run_cli(argv)
        check_cli_outcome(status, out, err, argv)
        after = _snapshot(tmp)
        for name, blob in before.items():
            if not force:
                assert after.get(name) == blob, f"{name} was changed without --force"
        if status == 0 and output is not None:
            assert os.path.isfile(output), "exit 0 without the output file"
