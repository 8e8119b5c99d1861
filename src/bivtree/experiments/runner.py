"""Run named estimators on named data sets under an evaluation protocol.

:func:`run_experiment` evaluates every (data set, estimator, split) and
records, per split: the test score (accuracy for classifiers, RMSE for
regressors), the training score, the number of leaves, the depth, the share
of bivariate decision nodes, and the fit and predict times.

The work is spread with joblib (``n_jobs``), one task per (data set,
estimator, split), so the same grid runs on a Dask cluster under
``joblib.parallel_config(backend="dask")``. Results are appended to a CSV
file as they arrive; running again with the same file skips what is already
there (and refuses to mix results of a different configuration).
"""

import csv
import hashlib
import math
import os
import sys
import time
import warnings
from dataclasses import dataclass

import numpy as np
from joblib import Parallel, delayed
from sklearn.base import clone, is_classifier
from sklearn.model_selection import PredefinedSplit
from sklearn.utils import _safe_indexing

from .protocols import CrossValidation

__all__ = ["RESULT_COLUMNS", "load_results", "run_experiment", "tree_summary"]

#: columns of a results file, in order.
RESULT_COLUMNS = (
    "dataset", "estimator", "protocol", "repeat", "fold", "n_train", "n_test", "n_features",
    "metric", "score", "train_score", "n_leaves", "depth", "bivariate_share", "fit_time",
    "predict_time", "ccp_alpha", "fingerprint",
)
_KEY = ("dataset", "estimator", "repeat", "fold")
_INT_COLUMNS = ("repeat", "fold", "n_train", "n_test", "n_features", "n_leaves", "depth")
_TEXT_COLUMNS = ("dataset", "estimator", "protocol", "metric", "fingerprint")


def _require_pandas():
    try:
        import pandas as pd
    except ImportError:  # pragma: no cover - pandas is in the test extra
        raise ImportError("bivtree.experiments needs pandas: pip install pandas") from None
    return pd


# --------------------------------------------------------------------------- tree statistics
def _final_tree_estimator(estimator):
    """The fitted tree inside wrappers (CostComplexityCV, GridSearchCV, Pipeline)."""
    seen = 0
    while seen < 10:
        seen += 1
        if hasattr(estimator, "best_estimator_"):
            estimator = estimator.best_estimator_
        elif hasattr(estimator, "steps"):
            estimator = estimator.steps[-1][1]
        else:
            break
    return estimator


def tree_summary(estimator):
    """Size statistics of a fitted tree estimator.

    Works for bivtree's and scikit-learn's trees and for wrappers that hold
    one in ``best_estimator_`` (:class:`CostComplexityCV`, ``GridSearchCV``)
    or as the last step of a ``Pipeline``.

    Parameters
    ----------
    estimator : fitted estimator

    Returns
    -------
    dict
        ``n_leaves``, ``depth`` and ``bivariate_share``: the fraction of
        decision nodes that test two or more features (0 for univariate
        trees, NaN when the tree is a single leaf). Missing statistics are
        -1 (counts) or NaN.
    """
    tree_est = _final_tree_estimator(estimator)
    tree = getattr(tree_est, "tree_", None)
    n_leaves = int(tree_est.get_n_leaves()) if hasattr(tree_est, "get_n_leaves") else -1
    depth = int(tree_est.get_depth()) if hasattr(tree_est, "get_depth") else -1
    share = math.nan
    if tree is not None and hasattr(tree, "n_node_features"):
        used = tree.n_node_features[~tree.is_leaf]
        share = float(np.mean(used >= 2)) if used.size else math.nan
    elif tree is not None and hasattr(tree, "children_left"):
        share = 0.0 if np.any(tree.children_left != -1) else math.nan
    return {"n_leaves": n_leaves, "depth": depth, "bivariate_share": share}


# --------------------------------------------------------------------------- one task
def _rmse(y_true, y_pred):
    return float(np.sqrt(np.mean((np.asarray(y_true, float) - np.asarray(y_pred, float)) ** 2)))


def _score(estimator, X, y):
    pred = estimator.predict(X)
    if is_classifier(estimator):
        return float(np.mean(np.asarray(pred) == np.asarray(y)))
    return _rmse(y, pred)


#: estimator configurations already warmed up in this process.
_WARMED = set()


def _warm_up(estimator, X, y, rows):
    """Fit once on a few rows so that loading compiled code is not timed.

    numba loads a kernel from its on-disk cache on the first call in a
    process (a few tenths of a second), which would otherwise inflate the
    fit time of the first task of every worker. Any failure is ignored: the
    timed fit that follows reports real errors.
    """
    key = (type(estimator).__qualname__,
           repr(sorted((k, repr(v)) for k, v in estimator.get_params(deep=True).items())))
    if key in _WARMED:
        return
    _WARMED.add(key)
    few = rows[:: max(1, rows.size // 60)]
    try:
        with warnings.catch_warnings():  # e.g. "many classes for few samples"
            warnings.simplefilter("ignore")
            clone(estimator).fit(_safe_indexing(X, few), _safe_indexing(y, few))
    except Exception:  # noqa: BLE001, S110 - a warm-up may fail on too few rows per class
        pass


def _evaluate(meta, estimator, X, y, split):
    """Fit ``estimator`` on one split and measure it (runs in a joblib worker)."""
    _warm_up(estimator, X, y, split.train)
    est = clone(estimator)
    train = split.train
    tuned = split.validation is not None and "cv" in est.get_params(deep=False)
    if tuned:
        # tuned estimators see the validation rows only through their cv
        train = np.concatenate([split.train, split.validation])
        test_fold = np.r_[np.full(split.train.size, -1), np.zeros(split.validation.size, int)]
        est.set_params(cv=PredefinedSplit(test_fold))
    X_train, y_train = _safe_indexing(X, train), _safe_indexing(y, train)
    X_test, y_test = _safe_indexing(X, split.test), _safe_indexing(y, split.test)

    t0 = time.perf_counter()
    est.fit(X_train, y_train)
    fit_time = time.perf_counter() - t0
    t0 = time.perf_counter()
    score = _score(est, X_test, y_test)
    predict_time = time.perf_counter() - t0
    if tuned:  # the training score is measured on the training rows only
        X_fit, y_fit = _safe_indexing(X, split.train), _safe_indexing(y, split.train)
    else:
        X_fit, y_fit = X_train, y_train
    record = dict(meta)
    record.update(
        repeat=split.repeat, fold=split.fold, n_train=int(split.train.size),
        n_test=int(split.test.size), n_features=int(X_train.shape[1]),
        metric="accuracy" if is_classifier(est) else "rmse", score=score,
        train_score=_score(est, X_fit, y_fit), fit_time=fit_time, predict_time=predict_time,
        ccp_alpha=float(getattr(est, "ccp_alpha_", math.nan)))
    record.update(tree_summary(est))
    return record


# --------------------------------------------------------------------------- results file
def _fingerprint(estimator, protocol, X, y):
    """Digest of everything a result depends on: parameters, protocol, data."""
    h = hashlib.sha1()
    params = estimator.get_params(deep=True)
    h.update(type(estimator).__qualname__.encode())
    h.update(repr(sorted((k, repr(v)) for k, v in params.items())).encode())
    h.update(protocol.describe().encode())
    h.update(np.ascontiguousarray(np.asarray(X, dtype=np.float64)).tobytes())
    h.update(repr(np.asarray(y).tolist()).encode())
    return h.hexdigest()[:16]


def _parse_row(row):
    """A results-file row as typed values, or None if it is incomplete (interrupted write)."""
    if row is None or any(row.get(c) in (None, "") for c in RESULT_COLUMNS
                          if c not in ("ccp_alpha", "bivariate_share")):
        return None
    try:
        out = {}
        for c in RESULT_COLUMNS:
            value = row[c]
            if c in _TEXT_COLUMNS:
                out[c] = value
            elif c in _INT_COLUMNS:
                out[c] = int(value)
            else:
                out[c] = float(value) if value not in (None, "") else math.nan
        return out
    except (TypeError, ValueError):
        return None


def _read_rows(path):
    if not os.path.exists(path):
        return [], False
    with open(path, newline="", encoding="utf-8") as fh:
        reader = csv.DictReader(fh)
        if reader.fieldnames is None:
            return [], True
        if tuple(reader.fieldnames) != RESULT_COLUMNS:
            raise ValueError(f"{path} is not a bivtree results file (its columns are "
                             f"{reader.fieldnames})")
        raw = list(reader)
    rows = [_parse_row(r) for r in raw]
    clean = [r for r in rows if r is not None]
    return clean, len(clean) != len(raw)


def load_results(path):
    """Read a results file written by :func:`run_experiment`.

    Parameters
    ----------
    path : str or path-like

    Returns
    -------
    pandas.DataFrame
        One row per (data set, estimator, repeat, fold), columns
        :data:`RESULT_COLUMNS`. Incomplete trailing rows (an interrupted
        write) are skipped.
    """
    pd = _require_pandas()
    rows, _ = _read_rows(os.fspath(path))
    return pd.DataFrame(rows, columns=list(RESULT_COLUMNS))


def _write_rows(path, rows, header):
    mode = "w" if header else "a"
    with open(path, mode, newline="", encoding="utf-8") as fh:
        writer = csv.DictWriter(fh, fieldnames=RESULT_COLUMNS)
        if header:
            writer.writeheader()
        for row in rows:
            writer.writerow({c: row[c] for c in RESULT_COLUMNS})
        fh.flush()


# --------------------------------------------------------------------------- the runner
@dataclass
class _Task:
    dataset: str
    estimator: str
    fingerprint: str
    split: object


def _named(items, what):
    if isinstance(items, dict):
        pairs = list(items.items())
    else:
        pairs = list(items)
    names = [name for name, _ in pairs]
    if not pairs:
        raise ValueError(f"no {what} given")
    bad = [n for n in names if not isinstance(n, str) or not n]
    if bad:
        raise ValueError(f"{what} names must be non-empty strings, got {bad!r}")
    if len(set(names)) != len(names):
        raise ValueError(f"duplicate {what} names: {sorted(n for n in names if names.count(n) > 1)}")
    return pairs


def _resolve_datasets(datasets):
    from ..datasets import load_dataset

    if isinstance(datasets, str):
        datasets = [datasets]
    if not isinstance(datasets, dict):
        items = list(datasets)
        if all(isinstance(d, str) for d in items):
            datasets = {d: None for d in items}
        else:
            datasets = dict(items)
    out = []
    for name, data in _named(datasets, "data set"):
        if data is None:
            data = load_dataset(name)
        if not (isinstance(data, tuple) and len(data) == 2):
            raise ValueError(f"data set {name!r} must be given as an (X, y) pair or by name")
        X, y = data
        if len(X) != len(y):
            raise ValueError(f"data set {name!r}: X has {len(X)} rows but y has {len(y)}")
        out.append((name, X, y))
    return out


def _progress(stream, done, total, record, started, skipped):
    elapsed = time.perf_counter() - started
    rate = (done - skipped) / elapsed if elapsed > 0 else 0.0
    eta = (total - done) / rate if rate > 0 else math.nan
    metric = record["metric"]
    print(f"[bench {done}/{total}] {record['dataset']} / {record['estimator']} "
          f"(repeat {record['repeat']}, fold {record['fold']}): {metric} {record['score']:.4f}, "
          f"{record['n_leaves']} leaves, fit {record['fit_time']:.2f} s; "
          f"elapsed {elapsed:.0f} s, eta {eta:.0f} s", file=stream, flush=True)


def run_experiment(estimators, datasets, protocol=None, *, n_jobs=None, results_file=None,
                   resume=True, verbose=1):
    """Evaluate every estimator on every data set under ``protocol``.

    Parameters
    ----------
    estimators : dict or list of (name, estimator)
        Unfitted estimators; each task fits a clone. Under a protocol with a
        validation set (:class:`HoldOut`), an estimator with a ``cv``
        parameter (such as :class:`CostComplexityCV`) is fitted on the
        training and validation rows with ``cv`` set to a ``PredefinedSplit``
        that holds the validation rows out; every other estimator is fitted
        on the training rows only.
    datasets : dict, list of names, or list of (name, (X, y))
        Names are loaded with :func:`bivtree.datasets.load_dataset`.
    protocol : CrossValidation or HoldOut, default=CrossValidation()
        10-fold stratified cross-validation by default.
    n_jobs : int, default=None
        joblib's ``n_jobs`` over tasks; the active joblib backend is used, so
        ``with joblib.parallel_config(backend="dask"):`` runs on a Dask
        cluster.
    results_file : str or path-like, default=None
        CSV file the results are appended to as they arrive.
    resume : bool, default=True
        Skip the tasks already in ``results_file``. Their fingerprint
        (estimator parameters, protocol and data) must match the present
        configuration, else a ValueError is raised. ``False`` overwrites
        the file.
    verbose : int, default=1
        Print one progress line per finished task on stderr.

    Returns
    -------
    pandas.DataFrame
        One row per (data set, estimator, repeat, fold) of this
        configuration (resumed rows included), columns :data:`RESULT_COLUMNS`.
    """
    pd = _require_pandas()
    estimators = _named(estimators, "estimator")
    for name, est in estimators:
        if not hasattr(est, "fit") or not hasattr(est, "get_params"):
            raise ValueError(f"estimator {name!r} is not a scikit-learn estimator")
    protocol = CrossValidation() if protocol is None else protocol
    if not (hasattr(protocol, "split") and hasattr(protocol, "describe")):
        raise ValueError(f"protocol must be CrossValidation or HoldOut, got {protocol!r}")
    data_of, wanted = _plan_tasks(estimators, _resolve_datasets(datasets), protocol)
    if results_file is not None:
        results_file = os.fspath(results_file)
    done, header = _resumed_results(results_file, resume, wanted)
    if results_file is not None and header:
        _write_rows(results_file, [], header=True)
    if verbose and done:
        print(f"[bench] resuming: {len(done)} of {len(wanted)} results already in "
              f"{results_file}", file=sys.stderr, flush=True)
    todo = [t for key, t in wanted.items() if key not in done]
    new = _run_tasks(todo, dict(estimators), data_of, protocol, n_jobs, results_file,
                     verbose, total=len(wanted), already=len(done))
    rows = list(done.values()) + new
    order = {key: i for i, key in enumerate(wanted)}
    rows.sort(key=lambda r: order[tuple(r[c] for c in _KEY)])
    frame = pd.DataFrame(rows, columns=list(RESULT_COLUMNS))
    for c in _INT_COLUMNS:
        frame[c] = frame[c].astype(np.int64)
    return frame


def _plan_tasks(estimators, data, protocol):
    """The data by name, and every task keyed by (data set, estimator, repeat, fold)."""
    tasks, data_of = [], {}
    for dname, X, y in data:
        data_of[dname] = (X, y)
        splits = list(protocol.split(X, y))
        for ename, est in estimators:
            fp = _fingerprint(est, protocol, X, y)
            tasks.extend(_Task(dname, ename, fp, s) for s in splits)
    wanted = {(t.dataset, t.estimator, t.split.repeat, t.split.fold): t for t in tasks}
    return data_of, wanted


def _resumed_results(results_file, resume, wanted):
    """Rows of ``results_file`` that belong to ``wanted`` tasks, and whether to write a header.

    A row for a wanted task computed with another fingerprint (parameters,
    protocol or data) is an error; rows of other configurations are left alone.
    """
    if results_file is None:
        return {}, True
    if not resume:
        return {}, True
    existing, dirty = _read_rows(results_file)
    header = not os.path.exists(results_file) or dirty or not existing
    if dirty and existing:
        _write_rows(results_file, existing, header=True)  # drop a torn last line
        header = False
    done = {}
    for row in existing:
        key = tuple(row[c] for c in _KEY)
        task = wanted.get(key)
        if task is None:
            continue  # other configurations may share the file
        if row["fingerprint"] != task.fingerprint:
            raise ValueError(
                f"{results_file} holds a result for {key[0]!r} / {key[1]!r} (repeat {key[2]}, "
                f"fold {key[3]}) computed with different parameters, protocol or data; use "
                "another results file or resume=False")
        done[key] = row
    return done, header


def _run_tasks(todo, est_of, data_of, protocol, n_jobs, results_file, verbose, *, total,
               already):
    """Evaluate ``todo`` through joblib, appending each record to ``results_file`` as it comes."""
    new = []
    if not todo:
        return new
    started, finished = time.perf_counter(), already
    jobs = (delayed(_evaluate)(
        {"dataset": t.dataset, "estimator": t.estimator, "protocol": protocol.describe(),
         "fingerprint": t.fingerprint},
        est_of[t.estimator], *data_of[t.dataset], t.split) for t in todo)
    for record in Parallel(n_jobs=n_jobs, return_as="generator_unordered")(jobs):
        new.append(record)
        finished += 1
        if results_file is not None:
            _write_rows(results_file, [record], header=False)
        if verbose:
            _progress(sys.stderr, finished, total, record, started, already)
    return new
