"""Model selection for bivariate TAO: C, the initial tree and alpha chosen by validation.

:class:`TAOTreeClassifierCV` and :class:`TAOTreeRegressorCV` explore, for
every cross-validation split,

* every ``feature_cost`` (``C``) of a small grid and both initial trees
  (greedy bivariate and univariate CART, grown once per split and shared by
  the values of ``C``);
* a regularization path over a grid of ``lambda`` in samples per decision
  node (``alpha = lambda / W``, ``W`` the training weight of all the data,
  the same ``alpha`` on every split), geometric from ``lambda_min`` to
  ``lambda_max_fraction * W``. Where a step of the grid removes many nodes
  at once and the previous tree's next significant value (``next_alpha_``)
  lies inside the step, the step is halved (up to ``max_refine`` times), so
  the grid is dense where the trees change. Where the best mean validation
  score is at the grid's smallest ``lambda`` (trees as large as the grid
  allows), the grid is extended by a decade below it, at the base grid's
  ratio, and again while the best lies in the decade last added and that
  decade raised it by more than its standard error, up to
  ``max_grid_extensions`` times (by default for regression only, where
  ``lambda`` counts the targets' variance and how small a useful node's gain
  is depends on the noise);
* at each ``alpha``, by default where the initial trees are fully grown
  (``restarts="only"``): TAO from the initial tree pruned to its subtree of
  least objective at that ``alpha``, each ``alpha`` on its own. Otherwise
  (``restarts=True``, the default for depth-limited initial trees, which are
  not pruned): TAO warm-started from the previous tree and TAO restarted from
  the initial tree, the fit with the lower objective kept to warm-start the
  next ``alpha`` (``restarts=False``: warm-started only). Every fit of one
  split and initial tree (every ``alpha`` and ``C``) shares one memo of the
  searched reduced problems (a search does not depend on ``alpha`` or ``C``,
  and the fits meet many of the same problems), which changes no answer.

With ``finalists`` (not by default) the values of ``C`` race: all of them run
on the first split, and for each initial tree only the ``finalists`` of best
validation score there run on the other splits and are candidates.

The paths of different splits and initial trees run as joblib tasks, each
growing its initial tree and then running the paths of the values of ``C``
one after the other, sharing the memo (no task waits for another's tree);
with several jobs and a refit, the initial trees of all the data are grown
as two more tasks beside them. The costliest tasks start first (the bivariate
tree of all the data, then those growing a bivariate tree), so that the
workers end closer together.
A candidate is a triple (``C``, init, ``alpha``); on each split it is the tree
of the largest visited ``alpha`` not above it (trees are piecewise constant
in ``alpha``), so splits whose refinement visited other values still line up.
The candidate with the best mean validation score is selected, or with
``rule="1se"`` the one with the fewest mean decision nodes among those within
one standard error of the best. The standard error is that of a mean over
all validation samples (Breiman et al., 1984, section 3.4): per sample, the
0/1 score or the squared error divided by the split's target variance.
Finally the path of the selected ``C`` and initial tree runs on all the data
up to the selected ``alpha`` (``refit``); with independent fits, only the
selected ``alpha``'s.
"""

import copy
import time
import warnings
from numbers import Integral, Real
from typing import ClassVar, NamedTuple

import numpy as np
from joblib import Parallel, delayed, effective_n_jobs
from sklearn.base import BaseEstimator, ClassifierMixin, MetaEstimatorMixin, RegressorMixin
from sklearn.model_selection import KFold, StratifiedKFold, check_cv
from sklearn.utils import _safe_indexing
from sklearn.utils.validation import check_is_fitted

from .._threads import check_fork_safe
from .._validation import InstanceOf, Interval, Options, check_params
from ..estimators import (
    BaseBivariateTree,
    BivariateTreeClassifier,
    BivariateTreeRegressor,
    ChosenTreeDelegation,
)
from ..splitters import SPLITTERS
from .estimators import (
    INIT_SPLITTERS,
    TAOTreeClassifier,
    TAOTreeRegressor,
    prunes_initial_tree,
)
from .optimizer import PAIR_SEARCHES, TAOState

__all__ = ["TAOTreeClassifierCV", "TAOTreeRegressorCV"]

#: the keys of ``cv_results_`` holding one value per candidate.
RESULT_KEYS = ("feature_cost", "init", "alpha", "lambda", "mean_nodes", "mean_leaves",
               "mean_bivariate", "mean_score", "std_score", "se_score", "split_scores",
               "split_nodes")


def lambda_grid(total_weight, lambda_min, lambda_max_fraction, n_lambdas):
    """The base grid of ``alpha``: ``n_lambdas`` values of ``lambda`` (samples per node),
    geometric from ``lambda_min`` to ``lambda_max_fraction * total_weight``, over
    ``total_weight``."""
    top = max(lambda_max_fraction * total_weight, lambda_min)
    lambdas = np.unique(np.geomspace(lambda_min, top, n_lambdas))
    return lambdas / total_weight


def grid_below(alphas):
    """A decade of ``alpha`` below ``alphas[0]``, increasing, at the ratio of its first step.

    ``alphas`` is an increasing geometric grid of at least two values; the
    values are ``alphas[0] / r^m, ..., alphas[0] / r`` with ``r`` its ratio and
    ``m`` the fewest steps reaching a tenth of ``alphas[0]``.
    """
    ratio = float(alphas[1] / alphas[0])
    steps = int(np.ceil(np.log(10.0) / np.log(ratio) - 1e-9))
    return alphas[0] * ratio ** -np.arange(steps, 0, -1, dtype=float)


def _initial_tree(is_clf, splitter, X, y, sample_weight, tree_params):
    """The greedy tree a path starts from."""
    cls = BivariateTreeClassifier if is_clf else BivariateTreeRegressor
    est = cls(splitter=splitter, **tree_params)
    est.fit(X, y, sample_weight=sample_weight)
    return est.tree_


def _sample_scores(est, X, y):
    """Per-sample validation scores whose mean is ``est.score`` (unweighted): the 0/1
    score, or for regression ``1 - squared error / variance`` (the terms of R^2)."""
    pred = est.predict(X)
    if isinstance(est, ClassifierMixin):
        return (pred == y).astype(float)
    y = np.asarray(y, dtype=float)
    var = float(np.var(y))
    if var <= 0.0:
        var = 1.0
    return 1.0 - (y - pred) ** 2 / var


def _validation(est, X_val, y_val):
    """A path step's ``val_samples`` (per-sample scores) and ``val_score``; none without
    validation data."""
    if X_val is None:
        return {}
    return {"val_samples": _sample_scores(est, X_val, y_val),
            "val_score": float(est.score(X_val, y_val))}


def _tree_stats(est):
    tree = est.tree_
    kinds = est.node_kinds()
    return {"nodes": int(tree.node_count), "leaves": int(tree.n_leaves),
            "depth": int(tree.max_depth), "n_bivariate": kinds["bivariate"],
            "n_univariate": kinds["univariate"]}


def _restart_estimator(cold, initial_state, cls, tao_params, tree, regression,
                       pair_features, memos):
    """A path's restarts' estimator (made on the first restart), set to start from the
    initial ``tree``: pruned at the coming ``alpha`` (``prune_init``: a new structure
    each time), or the whole tree again, whose state ``initial_state`` is kept across
    the restarts (and so is the estimator's search cache). Returns both."""
    if cold is None:
        cold = cls(**tao_params).set_params(init=tree, warm_start=False)
        cold._pair_features = pair_features
        cold._search_memos = memos
    elif cold._prunes_init():
        cold.set_params(init=tree, warm_start=False)
    else:
        if initial_state is None:
            initial_state = TAOState.from_tree(tree, regression, cold._categorical_columns())
        cold._tao_state = initial_state.copy()
        cold.set_params(warm_start=True)
    return cold, initial_state


def _path_tasks(paths):
    """The (split, init, costs) triples of the paths ``paths`` holds by (split, init, C)."""
    tasks = {}
    for s, init, c in paths:
        tasks.setdefault((s, init), []).append(c)
    return [(s, init, tuple(costs)) for (s, init), costs in tasks.items()]


def _refinement(prev, alpha, nodes, refine_ratio):
    """The value a path fits before ``alpha``, or None: where the tree of ``nodes`` nodes
    fitted at ``alpha`` has more than ``refine_ratio`` times fewer (and more than two fewer)
    than the kept tree of ``prev = (alpha, state, nodes, next_alpha)`` and that tree's
    ``next_alpha`` lies before ``alpha``, the geometric midpoint, or ``next_alpha`` if larger."""
    if prev is None or prev[3] is None or not prev[3] < alpha:
        return None
    if not (nodes * refine_ratio < prev[2] and prev[2] - nodes > 2):
        return None
    mid = max(np.sqrt(prev[0] * alpha) if prev[0] > 0 else alpha / 2, prev[3])
    return float(mid) if prev[0] < mid < alpha else None


def run_path(is_clf, tao_params, tree, X, y, sample_weight, X_val, y_val, alphas, *,
             restarts=True, refine_ratio=1.5, max_refine=2, deadline=None, keep_last=False,
             pair_features=None, memos=None):
    """One regularization path: TAO over increasing ``alphas`` from the initial ``tree``.

    Each ``alpha`` is fitted warm from the previous kept tree and, with
    ``restarts``, from ``tree`` again; the lower objective is kept. With
    ``restarts="only"`` each ``alpha`` is fitted from ``tree`` alone (pruned
    at it with ``prune_init``), independently of the others. A step of
    the grid that shrinks the tree by more than ``refine_ratio`` (and more than
    two nodes) while the previous tree's next significant ``alpha`` lies inside
    it is halved first (geometric midpoint, or that significant value if
    larger), at most ``max_refine`` times per grid step.

    Parameters
    ----------
    is_clf : bool
    tao_params : dict
        Parameters of :class:`TAOTreeClassifier` / :class:`TAOTreeRegressor`
        (``alpha``, ``init``, ``warm_start`` and ``time_limit`` are set here).
    tree : Tree
        The initial tree.
    X, y, sample_weight : training data
    X_val, y_val : validation data or None
    alphas : increasing sequence of float
    restarts : bool or "only"
    refine_ratio : float
    max_refine : int
    deadline : float or None
        ``time.perf_counter()`` value after which no new ``alpha`` is started
        and the running fit stops (TAO's ``time_limit``).
    keep_last : bool
        Return the estimator of the last visited ``alpha`` too.
    pair_features : int or None
        Screening of TAO's pair search (see :class:`bivtree.tao.optimizer.TAOOptimizer`).
    memos : dict or None
        Searches to share with other paths on the same data (TAO's ``memo`` by
        search key; filled here): a reduced problem already searched, at any
        node, by any fit of these paths, is not searched again. The answers are
        the same without it.

    Returns
    -------
    steps : list of dict
        Per visited ``alpha``, in increasing order: ``alpha``, the tree's
        ``nodes``, ``leaves``, ``depth``, ``n_bivariate``, ``n_univariate``,
        ``objective`` (kept), ``warm_objective``, ``restart_objective`` (NaN
        without a restart), ``restarted``, ``train_score``, ``val_score``,
        ``val_samples`` (per-sample scores), ``seconds`` (of the step, refinement
        excluded), ``restart_seconds`` (of its restart).
    complete : bool
        Whether the path reached its last ``alpha``, or a tree of at most one
        decision node (where it stops: a larger ``alpha`` keeps that node or
        removes it).
    estimator : estimator or None
        With ``keep_last``.
    """
    cls = TAOTreeClassifier if is_clf else TAOTreeRegressor
    regression = not is_clf
    initial_state = None  # the restarts' start: known once a fit has encoded the columns
    independent = restarts == "only"
    memos = {} if memos is None else memos  # the warm fits and the restarts share it

    def remaining():
        return None if deadline is None else max(deadline - time.perf_counter(), 1e-6)

    def new_estimator():
        est = cls(**tao_params).set_params(init=tree, warm_start=False)
        est._pair_features = pair_features
        est._search_memos = memos
        return est

    warm = new_estimator()
    cold = None  # the restarts' estimator: one search cache for every restart
    # independent fits held while a refinement fits the values before them: they do
    # not depend on those, so they are not fitted again
    pending = {}
    queue = [float(a) for a in alphas]
    steps = []
    prev = None  # (alpha, state, nodes, next_alpha) of the kept tree
    refined = 0
    complete = False
    kept = None
    while queue:
        if deadline is not None and time.perf_counter() >= deadline:
            break
        a = queue[0]
        t0 = time.perf_counter()
        restart_seconds = 0.0
        if independent:
            kept = pending.pop(a, None)
            if kept is None:
                kept = warm.set_params(alpha=a, init=tree, warm_start=False,
                                       time_limit=remaining()).fit(X, y, sample_weight)
            warm_objective, restart_objective, restarted = np.nan, kept.objective_, True
        elif prev is None:
            warm.set_params(alpha=a, time_limit=remaining()).fit(X, y, sample_weight)
            kept, restart_objective, restarted = warm, np.nan, False
            warm_objective = warm.objective_
        else:
            warm._tao_state = prev[1].copy()
            warm.set_params(alpha=a, warm_start=True, time_limit=remaining())
            warm.fit(X, y, sample_weight)
            warm_objective = warm.objective_
            kept, restart_objective, restarted = warm, np.nan, False
            if restarts and (deadline is None or time.perf_counter() < deadline):
                t_restart = time.perf_counter()
                cold, initial_state = _restart_estimator(
                    cold, initial_state, cls, tao_params, tree, regression, pair_features,
                    memos)
                cold.set_params(alpha=a, time_limit=remaining()).fit(X, y, sample_weight)
                restart_objective = cold.objective_
                restart_seconds = time.perf_counter() - t_restart
                if restart_objective < warm_objective:
                    kept, restarted = cold, True
        stats = _tree_stats(kept)
        mid = _refinement(prev, a, stats["nodes"], refine_ratio) if refined < max_refine else None
        if mid is not None:
            queue.insert(0, mid)
            refined += 1
            if independent:
                pending[a], warm = kept, new_estimator()
            continue
        queue.pop(0)
        refined = 0
        steps.append({
            "alpha": a, **stats, "objective": float(kept.objective_),
            "warm_objective": float(warm_objective),
            "restart_objective": float(restart_objective), "restarted": restarted,
            "train_score": float(kept.score(X, y, sample_weight=sample_weight)),
            "seconds": time.perf_counter() - t0, "restart_seconds": restart_seconds,
            **_validation(kept, X_val, y_val)})
        state = None if independent else kept._tao_state.copy()
        prev = (a, state, stats["nodes"], kept.next_alpha_)
        if kept is cold:
            warm._tao_state = state.copy()
        # a single decision node: larger alphas give it or a single leaf
        if stats["nodes"] <= 3 or not queue:
            complete = True
            break
    estimator = None
    if keep_last and kept is not None:
        estimator = copy.deepcopy(kept)
    return steps, complete, estimator


def _timed_call(position, func, *args):
    """``(position, seconds, func(*args))``: a joblib task that says which it was and how
    long it ran (in the worker)."""
    t0 = time.perf_counter()
    out = func(*args)
    return position, time.perf_counter() - t0, out


class _TaskProgress:
    """What ``verbose`` says while one round of joblib tasks runs: a line per finished
    task, with an estimate of the time left.

    The tasks are dispatched in their order to ``workers`` workers, each taking the next
    task when it is free (greedy list scheduling), so the task at position ``k`` started
    at the ``k - workers + 1``-th completion (at 0 for the first ``workers``). A task's
    duration is estimated by the mean of the finished tasks of its ``kind`` (of all the
    finished ones while none of its kind has finished). A task that only grows a tree
    (``tree_of[k]``: ``(kind, scale)``) is estimated, once tasks of that kind have
    finished (before, any that grew a tree), by ``scale`` times the mean seconds they
    spent growing their trees (the refit's initial tree of all the data: ``scale`` is
    its rows over a split's). The time
    left is that schedule replayed from now: the running tasks' estimates less what they
    have run, then the waiting ones in order on the first free worker. No estimate
    before a task finishes.
    """

    def __init__(self, labels, kinds, workers, say, tree_of=None):
        self.labels, self.kinds, self.say = labels, kinds, say
        self.tree_of = tree_of or [None] * len(labels)
        self.workers = max(1, int(workers))
        self.start = time.perf_counter()
        self.seconds = {}  # position -> seconds it ran
        self.tree_seconds = {}  # position -> seconds it spent growing its tree
        self.completions = []  # seconds from the start at which each task finished

    def record(self, position, seconds, now=None, tree_seconds=0.0):
        """Note the task at ``position`` finished after ``seconds`` (``tree_seconds`` of them
        growing a tree); ``now``: seconds since the start (measured when None). Returns the
        estimated seconds left."""
        now = time.perf_counter() - self.start if now is None else now
        self.seconds[position] = seconds
        self.tree_seconds[position] = tree_seconds
        self.completions.append(now)
        return self.time_left(now)

    def _estimate(self, position):
        if self.tree_of[position] is not None:
            kind, scale = self.tree_of[position]
            grown = ([t for p, t in self.tree_seconds.items() if self.kinds[p] == kind]
                     or [t for p, t in self.tree_seconds.items() if t > 0.0])
            if grown:
                return scale * sum(grown) / len(grown)
        same = [t for p, t in self.seconds.items() if self.kinds[p] == self.kinds[position]]
        pool = same or list(self.seconds.values())
        return sum(pool) / len(pool)

    def time_left(self, now):
        """Estimated seconds until the last task finishes (see the class)."""
        free, waiting = [], []
        for k in range(len(self.labels)):
            if k in self.seconds:
                continue
            started = (0.0 if k < self.workers
                       else self.completions[k - self.workers]
                       if k - self.workers < len(self.completions) else None)
            if started is None:
                waiting.append(self._estimate(k))
            else:
                free.append(max(0.0, self._estimate(k) - (now - started)))
        free += [0.0] * max(0, self.workers - len(free))
        for estimate in waiting:
            free.sort()
            free[0] += estimate
        return max(free, default=0.0)

    def done(self, position, seconds, tree_seconds=0.0):
        """Say that the task at ``position`` finished, and the time left."""
        left = self.record(position, seconds, tree_seconds=tree_seconds)
        n_done, total = len(self.seconds), len(self.labels)
        self.say(f"[TAOCV] task {n_done}/{total} done after "
                 f"{time.perf_counter() - self.start:.1f} s: {self.labels[position]} "
                 f"({seconds:.1f} s)" + (f"; about {left:.0f} s left in this round"
                                         if n_done < total else ""), flush=True)


class _Job(NamedTuple):
    """A joblib task of :class:`_PathRunner`: its cost rank (:meth:`BaseTAOTreeCV._task_cost`),
    what the progress lines call it, its kind and, for a tree grown alone, the kind and
    row ratio its time is estimated from (:class:`_TaskProgress`), and the call."""

    cost: float
    label: str
    kind: tuple
    tree_of: tuple
    function: object
    args: tuple


class _PathRunner:
    """The selection's joblib tasks on its data: per split and initial tree, the tree
    (grown by the task the first time, then kept in ``trees``) and the paths of the
    values of ``C``; ``spare_trees`` holds the initial trees of all the data grown
    beside them."""

    def __init__(self, selector, is_clf, data, splits, inits, restarts, deadline,
                 inner_jobs):
        self.selector, self.is_clf, self.data, self.splits = selector, is_clf, data, splits
        self.inits = inits
        self.restarts, self.deadline, self.inner_jobs = restarts, deadline, inner_jobs
        self.base_params = selector._tao_params(1.0, inner_jobs)[1]
        self.trees = {}  # (split, init) -> initial tree, as the tasks return them
        self.spare_trees = {}

    def part(self, rows):
        X, y, sw = self.data
        return _safe_indexing(X, rows), y[rows], None if sw is None else sw[rows]

    def task(self, s, init, costs, grid):
        """``(initial tree, [path per C], seconds growing the tree)`` of split ``s`` and
        ``init`` over ``grid``."""
        sel = self.selector
        train, val = self.splits[s]
        Xt, yt, wt = self.part(train)
        Xv, yv, _ = self.part(val)
        tree = self.trees.get((s, init))
        t0 = time.perf_counter()
        if tree is None:
            tree = _initial_tree(self.is_clf, sel._splitter_of(init), Xt, yt, wt,
                                 sel._tree_params(self.inner_jobs))
        tree_seconds = time.perf_counter() - t0
        # the paths of every C from one initial tree run together: they meet many of
        # the same reduced problems (the searches do not depend on C)
        memos = {}
        return tree, [run_path(self.is_clf, {**self.base_params, "feature_cost": c}, tree,
                               Xt, yt, wt, Xv, yv, grid, restarts=self.restarts,
                               max_refine=int(sel.max_refine), deadline=self.deadline,
                               keep_last=False, pair_features=sel.pair_features, memos=memos)
                      for c in costs], tree_seconds

    def run(self, grid, tasks, spare=False):
        """``tasks``: (split, init, costs) triples; returns the paths by (split, init, C).
        ``spare``: also grow the initial trees of all the data (for the refit)."""
        sel = self.selector
        jobs = []
        for s, init, costs in tasks:
            tree = self.trees.get((s, init))
            bivariate = sel._splitter_of(init) != "univariate"
            jobs.append(_Job(sel._task_cost(tree, init),
                             (f"split {s}, init={init}: "
                              f"{'' if tree is not None else 'initial tree and '}"
                              f"{len(costs)} path(s)"),
                             ("paths" if tree is not None else "grow", bivariate), None,
                             self.task, (s, init, costs, grid)))
        inits = self.inits
        if spare:
            # the tree of one thread is the tree of several; its time is estimated from
            # the splits' trees of its kind, times its rows over theirs
            scale = len(self.data[1]) / np.mean([len(train) for train, _ in self.splits])
            for init in inits:
                bivariate = sel._splitter_of(init) != "univariate"
                jobs.append(_Job(sel._task_cost(None, init, spare=True),
                                 f"init={init}: the refit's initial tree of all the data",
                                 ("spare", bivariate), (("grow", bivariate), scale),
                                 _initial_tree, (self.is_clf, sel._splitter_of(init),
                                                 *self.data, sel._tree_params(1))))
        # the costliest first, so that the workers end closer together
        order = sorted(range(len(jobs)), key=lambda j: (-jobs[j].cost, j))
        progress = None
        if sel.verbose:
            progress = _TaskProgress([jobs[j].label for j in order],
                                     [jobs[j].kind for j in order],
                                     effective_n_jobs(sel.n_jobs), print,
                                     [jobs[j].tree_of for j in order])
        check_fork_safe(sel.n_jobs, type(sel).__name__)
        joblib_verbose = max(0, int(sel.verbose) - 1)
        try:  # each task's result as it finishes, for the progress lines
            parallel = Parallel(n_jobs=sel.n_jobs, verbose=joblib_verbose,
                                return_as="generator_unordered")
        except ValueError:  # a backend that returns all results at once (multiprocessing)
            parallel = Parallel(n_jobs=sel.n_jobs, verbose=joblib_verbose)
        results = [None] * len(jobs)
        for position, seconds, result in parallel(
                delayed(_timed_call)(position, jobs[j].function, *jobs[j].args)
                for position, j in enumerate(order)):
            results[order[position]] = result
            if progress is not None:  # a path task's result ends with its tree's seconds
                progress.done(position, seconds,
                              result[2] if order[position] < len(tasks) else 0.0)
        if spare:
            self.spare_trees.update(zip(inits, results[len(tasks):]))
        for task, (tree, _, _) in zip(tasks, results):
            self.trees[task[:2]] = tree
        return {(s, init, c): path
                for (s, init, costs), (_, group, _) in zip(tasks, results)
                for c, path in zip(costs, group)}


class BaseTAOTreeCV(ChosenTreeDelegation, MetaEstimatorMixin, BaseEstimator):
    """Shared machinery; use the classifier or the regressor."""

    _parameter_constraints: ClassVar[dict] = {
        "feature_costs": ["array-like"],
        "inits": ["array-like"],
        "lambda_min": [Interval(Real, 0.0, None, closed="neither")],
        "lambda_max_fraction": [Interval(Real, 0.0, 1.0, closed="right")],
        "n_lambdas": [Interval(Integral, 1, None, closed="left")],
        "max_refine": [Interval(Integral, 0, None, closed="left")],
        "max_grid_extensions": [Interval(Integral, 0, None, closed="left"),
                                Options(("auto",))],
        "restarts": ["boolean", Options(("only", "auto"))],
        "finalists": [None, Interval(Integral, 1, None, closed="left")],
        "pair_features": [None, Interval(Integral, 2, None, closed="left")],
        "cv": [Interval(Integral, 2, None, closed="left"), "cv_object"],
        "rule": [Options(("best", "1se"))],
        "refit": [Options(("auto",)), "boolean"],
        "bivariate_splitter": [InstanceOf(str, "a splitter name")],
        **{name: BaseBivariateTree._parameter_constraints[name]
           for name in ("max_depth", "min_samples_leaf", "n_orientations", "max_pairs",
                        "random_state", "verbose", "categorical_features",
                        "max_categories", "monotonic_cst", "interaction_cst")},
        "pair_search": [Options(PAIR_SEARCHES)],
        "exact_max_samples": [None, Interval(Integral, 0, None, closed="left")],
        "max_iter": [Interval(Integral, 1, None, closed="left")],
        "time_limit": [None, Interval(Real, 0.0, None, closed="neither")],
        "n_jobs": [None, Integral],
        "prune_init": ["boolean", Options(("auto",))],
    }

    def __init__(self, *, feature_costs, inits, lambda_min, lambda_max_fraction, n_lambdas,
                 max_refine, max_grid_extensions, restarts, finalists, pair_features, cv, rule, refit,
                 bivariate_splitter, max_depth, min_samples_leaf, n_orientations, pair_search,
                 max_pairs, exact_max_samples, max_iter, time_limit, n_jobs, random_state,
                 verbose, categorical_features, max_categories, monotonic_cst=None,
                 interaction_cst=None, prune_init="auto"):
        self.feature_costs = feature_costs
        self.inits = inits
        self.lambda_min = lambda_min
        self.lambda_max_fraction = lambda_max_fraction
        self.n_lambdas = n_lambdas
        self.max_refine = max_refine
        self.max_grid_extensions = max_grid_extensions
        self.restarts = restarts
        self.finalists = finalists
        self.pair_features = pair_features
        self.cv = cv
        self.rule = rule
        self.refit = refit
        self.bivariate_splitter = bivariate_splitter
        self.max_depth = max_depth
        self.min_samples_leaf = min_samples_leaf
        self.n_orientations = n_orientations
        self.pair_search = pair_search
        self.max_pairs = max_pairs
        self.exact_max_samples = exact_max_samples
        self.max_iter = max_iter
        self.time_limit = time_limit
        self.n_jobs = n_jobs
        self.random_state = random_state
        self.verbose = verbose
        self.categorical_features = categorical_features
        self.max_categories = max_categories
        self.monotonic_cst = monotonic_cst
        self.interaction_cst = interaction_cst
        self.prune_init = prune_init

    # ----------------------------------------------------------- parameters
    def _checked_grids(self):
        name = type(self).__name__
        check_params(name, self.get_params(deep=False), self._parameter_constraints)
        costs = np.asarray(self.feature_costs, dtype=float).ravel()
        if costs.size == 0 or not np.all(np.isfinite(costs)) or np.any(costs <= 0):
            raise ValueError(f"{name}: feature_costs must be positive finite numbers, got "
                             f"{self.feature_costs!r}")
        inits = [self.inits] if isinstance(self.inits, str) else list(self.inits)
        bad = [i for i in inits if i not in INIT_SPLITTERS]
        if not inits or bad:
            raise ValueError(f"{name}: inits must name initial trees among "
                             f"{sorted(INIT_SPLITTERS)}, got {self.inits!r}")

        if self.bivariate_splitter not in SPLITTERS:
            raise ValueError(f"{name}: bivariate_splitter must be one of {sorted(SPLITTERS)}, "
                             f"got {self.bivariate_splitter!r}")
        return [float(c) for c in dict.fromkeys(costs.tolist())], list(dict.fromkeys(inits))

    def _splits(self, X, y):
        is_clf = self._is_classifier()
        if isinstance(self.cv, Integral):
            k = int(self.cv)
            folds = KFold
            if is_clf and np.unique(y, return_counts=True)[1].min() >= k:
                folds = StratifiedKFold
            cv = folds(k, shuffle=True, random_state=self.random_state)
        else:
            cv = check_cv(self.cv, y, classifier=is_clf)
        splits = list(cv.split(X, y))
        if not splits:
            raise ValueError("cv yields no split")
        return splits

    def _tao_params(self, feature_cost, n_jobs):
        cls = TAOTreeClassifier if self._is_classifier() else TAOTreeRegressor
        params = {"feature_cost": feature_cost, "n_orientations": self.n_orientations,
                  "pair_search": self.pair_search, "max_pairs": self.max_pairs,
                  "exact_max_samples": self.exact_max_samples,
                  "max_iter": self.max_iter, "n_jobs": n_jobs, "prune_init": self._prunes_init(),
                  **self._data_params()}
        if self._is_classifier() and getattr(self, "class_weight", None) is not None:
            params["class_weight"] = self.class_weight
        return cls, params

    def _tree_params(self, n_jobs):
        params = {"max_depth": self.max_depth, "min_samples_leaf": self.min_samples_leaf,
                  "n_orientations": self.n_orientations, "max_pairs": self.max_pairs,
                  "n_jobs": n_jobs, "random_state": self.random_state,
                  **self._data_params()}
        if self._is_classifier() and getattr(self, "class_weight", None) is not None:
            params["class_weight"] = self.class_weight
        return params

    def _data_params(self):
        """The parameters every fit of the selection shares with the data: the categorical
        columns and the constraints (the initial trees are grown, and every TAO fit
        runs, under the same ones)."""
        return {"categorical_features": self.categorical_features,
                "max_categories": self.max_categories, "monotonic_cst": self.monotonic_cst,
                "interaction_cst": self.interaction_cst}

    def _prunes_init(self):
        """``prune_init`` resolved for the TAO fits, whose initial trees are given (the
        selector's ``max_depth`` grew them)."""
        return prunes_initial_tree(self.prune_init, self.max_depth)

    def _path_restarts(self, probe):
        """``restarts`` resolved (``"auto"``: ``"only"`` where every fit starts from an
        initial tree pruned at its ``alpha``, else True); ``probe`` is a TAO estimator of
        :meth:`_tao_params` with the constraints resolved."""
        if self.restarts != "auto":
            return self.restarts
        return "only" if probe._prunes_start() else True

    def _splitter_of(self, init):
        return self.bivariate_splitter if init == "bivariate" else INIT_SPLITTERS[init]

    # --------------------------------------------------------------- fitting
    def fit(self, X, y, sample_weight=None):
        """Explore ``C``, the initial trees and ``alpha`` on every split; refit the choice.

        Parameters
        ----------
        X : array-like of shape (n_samples, n_features)
        y : array-like of shape (n_samples,)
        sample_weight : array-like of shape (n_samples,), default=None
            Passed to every fit (not to the validation scores).

        Returns
        -------
        self
        """
        start = time.perf_counter()
        deadline = None if self.time_limit is None else start + float(self.time_limit)
        costs, inits = self._checked_grids()
        is_clf = self._is_classifier()
        # the data checks of the estimators themselves, once, up front
        probe_cls, probe_params = self._tao_params(1.0, 1)
        probe = probe_cls(**probe_params)
        X_checked, y_checked, sw = probe._validate_fit_data(X, y, sample_weight)
        n_classes = 1
        if is_clf:
            n_classes = probe._encode_classes(y_checked, sw)[0].shape[0]
        # the constraints' errors too, before any tree is grown
        probe._resolve_constraints(X_checked.shape[1], n_classes)
        restarts = self._path_restarts(probe)
        X = X_checked if not hasattr(X, "iloc") else X
        y = np.asarray(y_checked)
        sw = None if sample_weight is None else np.asarray(sw, dtype=float)
        total_weight = float(X_checked.shape[0] if sw is None else sw.sum())
        # lambda counts samples: the loss of one misclassified sample, or for
        # regression one sample's share of the total variance of the targets
        unit = 1.0
        if not is_clf:
            w = np.ones(y.shape[0]) if sw is None else sw
            mean = float(np.average(y.astype(float), weights=w))
            unit = float(np.average((y.astype(float) - mean) ** 2, weights=w)) or 1.0
        self.lambda_unit_ = unit
        alphas = unit * lambda_grid(total_weight, float(self.lambda_min),
                                    float(self.lambda_max_fraction), int(self.n_lambdas))
        splits = self._splits(X_checked, y)
        refit = len(splits) > 1 if self.refit == "auto" else bool(self.refit)
        if not refit and len(splits) != 1:
            raise ValueError(f"refit=False keeps the tree of a single split, but cv yields "
                             f"{len(splits)} splits")
        parallel = self.n_jobs not in (None, 1)
        inner_jobs = 1 if parallel else self.n_jobs
        say = print if self.verbose else (lambda *a, **k: None)

        # the paths: every split x initial tree x C (or, racing, the finalists' on every
        # split after the first); a task of one split and initial tree grows that tree
        # (shared by every C) and runs its paths, so no worker waits for the others' trees
        say(f"[TAOCV] growing {len(splits) * len(inits)} initial tree(s) on {len(splits)} "
            f"split(s) and their paths over {alphas.size} values of alpha "
            f"(lambda {self.lambda_min:.3g} to {alphas[-1] * total_weight / unit:.3g} "
            "samples per node)", flush=True)
        runner = _PathRunner(self, is_clf, (X, y, sw), splits, inits, restarts, deadline,
                             inner_jobs)
        run_paths, trees, spare_trees = runner.run, runner.trees, runner.spare_trees
        spare = refit and parallel and deadline is None
        racing = (self.finalists is not None and len(splits) > 1
                  and int(self.finalists) < len(costs))
        first = range(1 if racing else len(splits))
        paths = run_paths(alphas, [(s, init, tuple(costs)) for s in first for init in inits],
                          spare=spare and not racing)
        if racing:
            finalists = self._race(paths, costs, inits, say)
            paths.update(run_paths(alphas, [
                (s, init, tuple(c for c in costs if (init, c) in finalists))
                for s in range(1, len(splits)) for init in inits
                if any((init, c) in finalists for c in costs)], spare=spare))
        else:
            self.race_results_ = None
        tasks = _path_tasks(paths)  # for the grid's extensions: the same paths again
        per_lambda = total_weight / unit
        # the candidates (cv_results_), on a grid extended below where the best is there
        alphas = self._extend_grid(paths, alphas, lambda grid: run_paths(grid, tasks),
                                   (costs, inits, len(splits), per_lambda), is_clf, deadline,
                                   say)
        if self.verbose:
            for (s, init, c), (steps, complete, _) in paths.items():
                say(f"[TAOCV] split {s} init={init} C={c:g}: {len(steps)} trees, "
                    f"{steps[-1]['nodes'] if steps else '-'} nodes at the end"
                    f"{'' if complete else ' (stopped by time_limit)'}", flush=True)

        # 3. the choice
        if self.cv_results_["alpha"].size:
            self.best_index_ = self._select(self.cv_results_)
            best = {k: self.cv_results_[k][self.best_index_]
                    for k in ("feature_cost", "init", "alpha")}
        else:
            # time_limit ran out before every split had a tree: the first settings, whose
            # refit below returns TAO from the initial tree, stopped by the limit
            warnings.warn(f"time_limit={self.time_limit:g} s left no candidate validated on "
                          "every split; the tree is fitted with the first feature cost, "
                          "initial tree and alpha of the grid", UserWarning, stacklevel=2)
            self.best_index_ = -1
            best = {"feature_cost": costs[0], "init": inits[0], "alpha": alphas[0]}
        self.best_params_ = {"feature_cost": float(best["feature_cost"]),
                             "init": str(best["init"]), "alpha": float(best["alpha"])}
        say(f"[TAOCV] selected C={self.best_params_['feature_cost']:g} "
            f"init={self.best_params_['init']} alpha={self.best_params_['alpha']:.4g} "
            f"(lambda {self.best_params_['alpha'] * total_weight / unit:.3g}): validation score "
            f"{self._row(self.best_index_, 'mean_score'):.4f}, "
            f"{self._row(self.best_index_, 'mean_nodes'):.1f} nodes", flush=True)

        # 4. the selected path on all the data (or the single split's tree)
        chosen = self.best_params_
        params = {**self._tao_params(chosen["feature_cost"], self.n_jobs)[1]}
        out_of_time = deadline is not None and time.perf_counter() >= deadline
        if refit and out_of_time:
            # growing a tree on all the data cannot be stopped: keep the first split's
            warnings.warn(f"time_limit={self.time_limit:g} s ran out before the refit; the "
                          "tree is fitted on the first split's training part", UserWarning,
                          stacklevel=2)
            refit = False
        if refit:
            Xr, yr, wr = X, y, sw
            tree = spare_trees.get(chosen["init"])
            if tree is None:
                tree = _initial_tree(is_clf, self._splitter_of(chosen["init"]), Xr, yr, wr,
                                     self._tree_params(self.n_jobs))
        else:
            # the validated tree again: the split's own path, up to the chosen alpha
            Xr, yr, wr = runner.part(splits[0][0])
            tree = trees[(0, chosen["init"])]
        grid, max_refine = self._refit_grid(refit, restarts, alphas,
                                            paths.get((0, chosen["init"],
                                                       chosen["feature_cost"])))
        steps, _, est = run_path(is_clf, params, tree, Xr, yr, wr, None, None, grid,
                                 restarts=restarts, max_refine=max_refine,
                                 deadline=None if deadline is None
                                 else max(deadline, time.perf_counter() + 1e-3),
                                 keep_last=True, pair_features=self.pair_features)
        est = self._adopt(est, steps, params, (tree, Xr, yr, wr))
        self.n_splits_ = len(splits)
        self.n_iter_ = est.n_iter_
        self.fit_time_ = time.perf_counter() - start
        say(f"[TAOCV] done in {self.fit_time_:.1f} s: {est.tree_.node_count} nodes", flush=True)
        return self

    def _task_cost(self, tree, init, spare=False):
        """A rank of a joblib task's cost, to start the costliest first (the longest
        processing time first rule): a task that grows a bivariate initial tree then
        runs its paths, one that grows a univariate tree (cheap) then runs its paths,
        the paths of a grown tree by its size, then the refit's initial trees grown on
        all the data: one tree, without paths, the smallest units, so that they fill
        the end of the schedule (on magic's 14,265 rows, a bivariate task took 18 CPU s
        and the spare bivariate tree 4; on 4,000 rows of 20 features both about 5)."""
        bivariate = self._splitter_of(init) != "univariate"
        if tree is not None:
            return 1.0 + tree.node_count / (1.0 + tree.node_count)  # in (1, 2)
        if spare:
            return 0.5 if bivariate else 0.0
        return 3.0 if bivariate else 2.0

    def _refit_grid(self, refit, restarts, alphas, first_path):
        """``(grid, max_refine)`` of the refit's path: up to the chosen ``alpha`` on the
        base grid (refined as the selection's paths); without ``refit``, the values the
        first split's path ``first_path`` visited up to it (the validated tree again);
        with independent fits (``restarts="only"``), the last of them alone."""
        chosen = self.best_params_["alpha"]
        if refit:
            grid = np.append(alphas[alphas < chosen], chosen)
            max_refine = int(self.max_refine)
        else:
            visited = np.array([st["alpha"] for st in first_path[0]])
            grid = visited[visited <= chosen] if self.best_index_ >= 0 else alphas[:1]
            max_refine = 0
        if restarts == "only":  # the chosen alpha's fit does not depend on the others
            return grid[-1:], 0
        return grid, max_refine

    def _adopt(self, est, steps, params, start):
        """Keep ``est``, the last tree of the chosen path (``steps``), as the selected
        estimator and return it; None (no time left at all): TAO with ``params`` from the
        initial tree on the data of ``start`` = ``(tree, X, y, sample_weight)``, stopped
        at once."""
        chosen = self.best_params_
        if est is None:
            tree, X, y, sample_weight = start
            est = self._tao_params(chosen["feature_cost"], self.n_jobs)[0](**params)
            est.set_params(init=tree, alpha=chosen["alpha"], time_limit=1e-6)
            est._pair_features = self.pair_features
            est.fit(X, y, sample_weight)
        est.set_params(init=chosen["init"], warm_start=False, time_limit=self.time_limit,
                       verbose=0)
        est.__dict__.pop("_search_cache", None)
        est.init_ = chosen["init"]
        self.best_estimator_ = est
        self.refit_path_ = [{k: v for k, v in st.items() if k != "val_samples"}
                            for st in steps]
        self.n_features_in_ = est.n_features_in_
        for name in ("feature_names_in_", "classes_"):
            if hasattr(est, name):
                setattr(self, name, getattr(est, name))
        return est

    def _race(self, paths, costs, inits, say):
        """Per initial tree, the ``finalists`` values of ``C`` of the best validation scores
        on the first split (each path's best over its ``alpha``; ties to the earlier
        value of ``feature_costs``); sets ``race_results_``."""
        settings = [(init, c) for init in inits for c in costs]
        best = [max((st["val_score"] for st in paths[(0, init, c)][0]), default=-np.inf)
                for init, c in settings]
        kept = set()
        for init in inits:
            mine = [i for i, setting in enumerate(settings) if setting[0] == init]
            mine.sort(key=lambda i: -best[i])
            kept.update(settings[i] for i in mine[:int(self.finalists)])
        self.race_results_ = {
            "init": np.asarray([init for init, _ in settings], dtype=object),
            "feature_cost": np.asarray([c for _, c in settings], dtype=float),
            "first_split_score": np.asarray(best, dtype=float),
            "finalist": np.asarray([setting in kept for setting in settings])}
        say("[TAOCV] finalists on the first split: " + ", ".join(
            f"init={init} C={c:g} ({best[settings.index((init, c))]:.4f})"
            for init, c in settings if (init, c) in kept), flush=True)
        return kept

    def _extend_grid(self, paths, alphas, run_paths, grid, is_clf, deadline, say):
        """``cv_results_`` of ``paths``, extending ``alphas`` below while the best is at its start.

        ``grid`` is ``(costs, inits, n_splits, per_lambda)`` of
        :meth:`_candidates`. Runs ``run_paths`` on each decade below
        (:func:`grid_below`), puts each finished path's steps in front of
        ``paths[key]``'s and recomputes ``cv_results_``, at most
        ``max_grid_extensions`` times (``"auto"``: 3 for regression, 0 for
        classification): first when the best mean score is at the grid's
        smallest ``alpha``, then while it is in the decade last added, and not
        after a decade that raised the best mean score by no more than its
        standard error (the next would cost more, on larger trees, for less);
        sets ``n_grid_extensions_``. Returns the extended grid.
        """
        per_lambda = grid[3]
        self.cv_results_ = self._candidates(paths, *grid)
        extensions = self.max_grid_extensions
        if extensions == "auto":
            extensions = 0 if is_clf else 3
        self.n_grid_extensions_ = 0
        # after an extension: the score it had to beat (the best before it plus that
        # score's standard error) and the top of the decade it added
        must_beat = top_added = None
        while (self.n_grid_extensions_ < extensions and alphas.size > 1
               and self.cv_results_["alpha"].size
               and (deadline is None or time.perf_counter() < deadline)):
            results = self.cv_results_
            best = select_candidate(results["mean_score"], results["mean_nodes"],
                                    results["se_score"], results["alpha"], "best")
            # first at the grid's smallest value; after an extension, anywhere in the decade
            # it added (the scores of neighbouring values differ by noise and by where a
            # path's local optimum lands, so the best need not be at the very end)
            if results["alpha"][best] > (alphas[0] if top_added is None else top_added):
                break
            if must_beat is not None and results["mean_score"][best] <= must_beat:
                say("[TAOCV] the last extension raised the best validation score by at most "
                    "its standard error: no further one", flush=True)
                break
            lower = grid_below(alphas)
            must_beat = results["mean_score"][best] + results["se_score"][best]
            top_added = lower[-1]
            say(f"[TAOCV] the best validation score is at the grid's low end: paths over "
                f"{lower.size} values of lambda from {lower[0] * per_lambda:.3g}", flush=True)
            for key, (steps, complete, _) in run_paths(lower).items():
                # a path the time limit stopped would leave a gap below the grid's
                # old start: the split then keeps its old path
                if complete and steps:
                    paths[key] = (steps + paths[key][0], paths[key][1], None)
            alphas = np.concatenate([lower, alphas])
            self.n_grid_extensions_ += 1
            self.cv_results_ = self._candidates(paths, *grid)
        return alphas

    def _row(self, index, key):
        """``cv_results_[key][index]``, NaN for no candidate (``index`` -1)."""
        return float(self.cv_results_[key][index]) if index >= 0 else float("nan")

    def _candidates(self, paths, costs, inits, n_splits, per_lambda):
        """One row per (C, init, alpha visited on some split) below every split's end;
        ``lambda`` is ``alpha * per_lambda``."""
        rows = {k: [] for k in RESULT_KEYS}
        for init in inits:
            for c in costs:
                if any((s, init, c) not in paths for s in range(n_splits)):
                    continue  # screened out on the first split (finalists)
                per_split = [paths[(s, init, c)] for s in range(n_splits)]
                if any(not steps for steps, _, _ in per_split):
                    continue
                visited = np.unique(np.concatenate(
                    [[st["alpha"] for st in steps] for steps, _, _ in per_split]))
                # beyond an unfinished split's last alpha its tree is unknown
                ends = [steps[-1]["alpha"] for steps, complete, _ in per_split if not complete]
                if ends:
                    visited = visited[visited <= min(ends)]
                visited = visited[visited >= max(steps[0]["alpha"]
                                                  for steps, _, _ in per_split)]
                for a in visited:
                    chosen = []
                    for steps, _, _ in per_split:
                        at = np.array([st["alpha"] for st in steps])
                        chosen.append(steps[int(np.searchsorted(at, a, side="right")) - 1])
                    scores = np.array([st["val_score"] for st in chosen])
                    pooled = np.concatenate([st["val_samples"] for st in chosen])
                    nodes = np.array([st["nodes"] for st in chosen], dtype=float)
                    rows["feature_cost"].append(c)
                    rows["init"].append(init)
                    rows["alpha"].append(float(a))
                    rows["lambda"].append(float(a) * per_lambda)
                    rows["mean_nodes"].append(float(nodes.mean()))
                    rows["mean_leaves"].append(float(np.mean([st["leaves"] for st in chosen])))
                    rows["mean_bivariate"].append(
                        float(np.mean([st["n_bivariate"] for st in chosen])))
                    rows["mean_score"].append(float(scores.mean()))
                    rows["std_score"].append(float(scores.std()))
                    rows["se_score"].append(float(pooled.std() / np.sqrt(max(pooled.size, 1))))
                    rows["split_scores"].append(scores)
                    rows["split_nodes"].append(nodes)
        out = {k: np.asarray(v) for k, v in rows.items()}
        out["init"] = np.asarray(rows["init"], dtype=object)
        if out["alpha"].size == 0:
            out["split_scores"] = np.zeros((0, n_splits))
            out["split_nodes"] = np.zeros((0, n_splits))
        return out

    def _select(self, results):
        """Index of the chosen candidate (see the class docstring)."""
        return select_candidate(results["mean_score"], results["mean_nodes"],
                                results["se_score"], results["alpha"], self.rule)

    def __sklearn_tags__(self):
        tags = super().__sklearn_tags__()
        tags.input_tags.allow_nan = True  # every node learns the side of missing values
        tags.input_tags.sparse = True  # densified by the TAO estimators' data check
        return tags

    # -------------------------------------------------------------- delegation
    def node_kinds(self):
        """Bivariate and univariate decision nodes of the selected tree."""
        return self._chosen().node_kinds()

    def results_frame(self):
        """``cv_results_`` as a pandas DataFrame (one row per candidate)."""
        import pandas as pd

        check_is_fitted(self, "cv_results_")
        frame = pd.DataFrame({k: v for k, v in self.cv_results_.items()
                              if k not in ("split_scores", "split_nodes")})
        frame["selected"] = np.arange(len(frame)) == self.best_index_
        return frame


def select_candidate(mean_score, mean_nodes, se_score, alpha, rule):
    """The index a selection keeps.

    ``rule="best"``: the highest mean score, ties to fewer mean nodes, then the
    larger ``alpha``, then the first. ``rule="1se"``: among the candidates whose
    mean score is at least the best one's minus its standard error, the fewest
    mean nodes, ties to the higher mean score, then the larger ``alpha``.

    Parameters
    ----------
    mean_score, mean_nodes, se_score, alpha : ndarray of shape (n_candidates,)
    rule : {"best", "1se"}

    Returns
    -------
    int
    """
    mean_score = np.asarray(mean_score, dtype=float)
    mean_nodes = np.asarray(mean_nodes, dtype=float)
    alpha = np.asarray(alpha, dtype=float)
    n = mean_score.size
    # lexsort sorts by the last key first; the first index wins among equals
    best = int(np.lexsort((np.arange(n), -alpha, mean_nodes, -mean_score))[0])
    if rule == "best":
        return best
    within = np.flatnonzero(mean_score >= mean_score[best] - float(se_score[best]))
    order = np.lexsort((within, -alpha[within], -mean_score[within], mean_nodes[within]))
    return int(within[order[0]])


_CV_DOC = """
    feature_costs : array-like of float, default=(1.0, 1.25, 1.5)
        Values of ``C`` (the cost of a bivariate node relative to a univariate
        one) explored; the paper advises 1.1 to 1.5.
    inits : array-like of str, default=("bivariate", "univariate")
        Initial trees explored: greedy bivariate and univariate CART.
    lambda_min : float, default=1.0
        Smallest ``lambda`` of the grid, in samples (training weight) per
        decision node: for regression, in units of the targets' variance
        (a node must remove ``lambda`` samples' worth of the total variance).
    lambda_max_fraction : float, default=0.05
        Largest ``lambda`` of the grid, as a share of the training weight.
    n_lambdas : int, default=12
        Values of the geometric base grid of ``lambda``.
    max_refine : int, default=2
        Times a step of the grid may be halved where the tree shrinks a lot.
    max_grid_extensions : int or "auto", default="auto"
        Times the grid may be extended by a decade below its smallest
        ``lambda`` (at the base grid's ratio, every path of the extension
        starting from its initial tree): first if the best mean validation
        score is at that smallest value, then again while the best is in the
        decade last added and that decade raised it by more than its standard
        error (a decade that gains less is not followed by another; validation
        scores of neighbouring values are noisy, so the best need not be at the
        very end of a decade that helped). ``"auto"``: 3 for regression, 0 for
        classification (where ``lambda`` = 1 is one misclassified sample, the
        smallest gain a node can have).
    restarts : bool, "only" or "auto", default="auto"
        How each ``alpha`` of a path is fitted. ``"only"``: from the initial
        tree alone (pruned at that ``alpha``, see ``prune_init``), every
        ``alpha`` independent of the others, and the refit fits the selected
        ``alpha`` only. ``True``: warm-started from the previous ``alpha``'s
        tree and from the initial tree, keeping the lower objective (the
        path of the paper, with restarts). ``False``: warm-started only.
        ``"auto"``: ``"only"`` where the initial trees are pruned (``max_depth``
        None, no monotonic constraint), else ``True``. The independent fits
        cost half as much on magic (14,265 rows: 77.3 s against 151.7 s with
        two jobs, for 88.01 % against 87.97 % test accuracy,
        ``benchmarks/results/bench_tao_speed_magic.md``): a path no longer
        fits each ``alpha`` twice, and the refit fits one ``alpha``.
    finalists : int or None, default=None
        Race the values of ``C`` over the splits, for speed: the paths of every
        ``C`` run on the first split, and for each initial tree only the
        ``finalists`` values whose paths reached the best validation scores
        there run on the other splits and are candidates (``race_results_``
        records the race). ``None`` (the default), or at least as many as
        ``feature_costs``: every ``C`` on every split. Every initial tree stays
        in the race, and the choice of ``alpha`` and of the setting among the
        finalists is by the mean over all the splits as without it. With
        ``finalists=1`` the defaults fit 10 paths instead of 18: 0.7 times the
        CPU seconds on ``magic`` (14,265 rows), where it kept another ``C`` and
        initial tree than the full comparison, 1.4 points less accurate on the
        test split (``benchmarks/results/bench_tao_speed_magic.md``).
    pair_features : int or None, default=8
        TAO's bivariate search at a node covers the pairs of the
        ``pair_features`` features of least univariate loss on its reduced
        problem; None searches every pair (the paper's search, much slower
        with many features).
    cv : int, cross-validation generator or iterable, default=3
        An int gives that many shuffled folds (stratified for classifiers where
        every class has that many samples), seeded by ``random_state``; a
        splitter such as ``RepeatedStratifiedKFold`` or ``ShuffleSplit`` gives
        repeated validation; ``PredefinedSplit`` a single validation set.
    rule : {"best", "1se"}, default="best"
        ``"best"``: the best mean validation score; ``"1se"``: the fewest
        decision nodes within one standard error of it (Breiman's rule:
        smaller trees, at some accuracy; on the KDD sets 0.35x to 0.6x the
        nodes of ``"best"`` for 0 to 0.8 points less test accuracy, see
        ``benchmarks/results/bench_tao_rules_coarse_to_fine.md``).
    refit : {"auto", True, False}, default="auto"
        ``True``: run the selected path on all the data. ``False`` (a single
        split only): keep the tree of the split's training part. ``"auto"``:
        ``False`` for a single split, else ``True``.
    bivariate_splitter : str, default="orientations"
        Splitter of the greedy bivariate initial tree: ``"orientations"``, the
        paper's bivariate CART, or e.g. ``"auto"`` (bivtree's default for
        greedy trees, often 10 times cheaper to grow; on ``segment`` TAO from
        its tree reached up to 26 % higher objectives for small ``alpha``,
        see ``benchmarks/results/bench_tao_init.md``).
    max_depth : int, default=None
        Depth of the initial trees.
    min_samples_leaf : int or float, default=1
        Of the initial trees.
    n_orientations : int, default=30
        Directions per feature pair of the bivariate initial tree, and of TAO's
        search with ``pair_search="orientations"``.
    pair_search : {"coarse_to_fine", "orientations"}, default="coarse_to_fine"
        TAO's bivariate search of a node's pairs (see
        :class:`~bivtree.TAOTreeClassifier`).
    max_pairs : int, default=None
        Largest number of feature pairs (``None``: 20000).
    exact_max_samples : int, default=None
        TAO's reduced problems with at most this many care samples get the
        exact bivariate solution (rotational sweep), the others the
        ``pair_search`` (``None``: the TAO estimators' default,
        100 for classification, 0 for regression; 0 never). The sweep costs
        several times the direction search per pair (about a fifth of a
        classification selection's time at 100); a smaller value is faster,
        with an approximate search at more nodes.
    max_iter : int, default=50
        TAO iterations per fit.
    time_limit : float, default=None
        Seconds for the whole selection from the call to ``fit``: no new
        ``alpha`` starts after it and running fits stop between two depths
        (the candidates are what was fitted by then); the refit of the
        selected path then runs with what time is left, returning at least
        the initial tree. Past the limit, the refit keeps the first split's
        training part and initial tree (a warning says so). Growing the
        initial trees is not interrupted.
    n_jobs : int, default=None
        joblib workers for the initial trees and the paths (the paths of the
        splits, initial trees and ``C`` are independent). Results do not
        depend on it.
    random_state : int, RandomState or None, default=None
        Seeds the folds (when ``cv`` is an int) and the initial trees.
    verbose : int, default=0
        Progress lines; 2 adds joblib's.
    categorical_features : array-like of int, str or bool, "from_dtype" or None, \
default="from_dtype"
        Columns split by category sets (``x in {a, b}``), given to every
        initial tree and TAO fit (see :class:`~bivtree.TAOTreeClassifier`);
        ``"from_dtype"`` takes a DataFrame's ``category`` and text columns.
    max_categories : int, default=None
        Categories kept per categorical column, as for
        :class:`~bivtree.BivariateTreeClassifier`.
    monotonic_cst : array-like of int of shape (n_features,), dict or None, default=None
        Monotonicity constraint of each feature, as for
        :class:`~bivtree.TAOTreeClassifier`: every initial tree is grown and every
        TAO fit runs under it, so every tree of the selection (each path's, the
        refitted one, ``best_estimator_``) is monotone in each constrained feature.
    interaction_cst : list of lists of int or str, "pairwise", "no_interactions" or \
None, default=None
        Groups of features that may share a node test, as for
        :class:`~bivtree.TAOTreeClassifier`, for every tree of the selection.
    prune_init : bool or "auto", default="auto"
        As for :class:`~bivtree.TAOTreeClassifier` (``"auto"``: where
        ``max_depth`` is None): every path starts from its
        initial tree pruned to the subtree of least objective at the path's
        first ``alpha``, and every restart from the initial tree pruned at its
        own ``alpha`` (a smaller structure than the whole tree, and a cheaper
        restart, the larger ``alpha`` is).
"""

_CV_ATTRIBUTES = """
    best_estimator_ : TAOTreeClassifier or TAOTreeRegressor
        The selected tree; prediction delegates to it. Its parameters are the
        selected ``feature_cost`` and ``init``, and the ``alpha`` its path ended
        at: the selected one, or with ``refit=False`` the largest value the
        split's path visited up to it (the tree that was validated).
    best_params_ : dict
        ``feature_cost``, ``init``, ``alpha``.
    best_index_ : int
        Row of ``cv_results_`` selected; -1 when ``time_limit`` left no
        candidate (with a warning: the first settings of the grids are fitted).
    cv_results_ : dict of ndarray
        The frontier, one entry per candidate: ``feature_cost``, ``init``,
        ``alpha``, ``lambda`` (``alpha`` times the training weight),
        ``mean_nodes``, ``mean_leaves``, ``mean_bivariate`` (decision nodes),
        ``mean_score``, ``std_score`` (over splits), ``se_score`` (of the mean
        over validation samples), ``split_scores`` and ``split_nodes``
        (n_candidates, n_splits). With ``finalists``, the finalists' candidates
        only.
    race_results_ : dict of ndarray or None
        With ``finalists`` (and several splits): per setting, ``init``,
        ``feature_cost``, ``first_split_score`` (its paths' best validation
        score on the first split) and ``finalist``; None without a race.
    refit_path_ : list of dict
        The steps of the refitted path (``alpha``, ``nodes``, ``objective``,
        ``warm_objective``, ``restart_objective``, ``restarted``,
        ``train_score``, ...): with ``restarts="only"`` the selected
        ``alpha``'s alone.
    n_splits_ : int
    n_grid_extensions_ : int
        Times the grid was extended below its smallest ``lambda``
        (``max_grid_extensions``).
    n_iter_ : int
        TAO iterations of the selected tree's last fit.
    fit_time_ : float
    n_features_in_ : int
    feature_names_in_ : ndarray of str
"""


class TAOTreeClassifierCV(ClassifierMixin, BaseTAOTreeCV):
    __doc__ = f"""Bivariate TAO classifier with ``C``, initial tree and ``alpha`` chosen by validation.

    See :mod:`bivtree.tao.selection` for the procedure.

    Parameters
    ----------
    {_CV_DOC}
    class_weight : dict, "balanced" or None, default=None
        Weights of the classes, multiplied into ``sample_weight``.

    Attributes
    ----------
    {_CV_ATTRIBUTES}
    classes_ : ndarray of shape (n_classes,)

    Examples
    --------
    >>> from sklearn.datasets import load_iris
    >>> from bivtree import TAOTreeClassifierCV
    >>> X, y = load_iris(return_X_y=True)
    >>> cv = TAOTreeClassifierCV(feature_costs=[1.25], n_lambdas=6, max_depth=3,
    ...                          random_state=0).fit(X, y)
    >>> sorted(cv.best_params_)
    ['alpha', 'feature_cost', 'init']
    >>> bool(cv.score(X, y) > 0.9)
    True
    """

    _parameter_constraints: ClassVar[dict] = {
        **BaseTAOTreeCV._parameter_constraints,
        "class_weight": BivariateTreeClassifier._parameter_constraints["class_weight"],
    }

    def __init__(self, *, feature_costs=(1.0, 1.25, 1.5), inits=("bivariate", "univariate"),
                 lambda_min=1.0, lambda_max_fraction=0.05, n_lambdas=12, max_refine=2,
                 max_grid_extensions="auto", restarts="auto", finalists=None, pair_features=8, cv=3,
                 rule="best",
                 refit="auto", bivariate_splitter="orientations",
                 max_depth=None, min_samples_leaf=1, n_orientations=30,
                 pair_search="coarse_to_fine", max_pairs=None,
                 exact_max_samples=None, max_iter=50, time_limit=None, class_weight=None,
                 n_jobs=None,
                 random_state=None, verbose=0,
                 categorical_features="from_dtype", max_categories=None, monotonic_cst=None,
                 interaction_cst=None, prune_init="auto"):
        super().__init__(
            feature_costs=feature_costs, inits=inits, lambda_min=lambda_min,
            lambda_max_fraction=lambda_max_fraction, n_lambdas=n_lambdas,
            max_refine=max_refine, max_grid_extensions=max_grid_extensions,
            restarts=restarts, finalists=finalists, pair_features=pair_features, cv=cv,
            rule=rule, refit=refit,
            bivariate_splitter=bivariate_splitter, max_depth=max_depth,
            min_samples_leaf=min_samples_leaf, n_orientations=n_orientations,
            pair_search=pair_search, max_pairs=max_pairs,
            exact_max_samples=exact_max_samples, max_iter=max_iter,
            time_limit=time_limit, n_jobs=n_jobs,
            random_state=random_state, verbose=verbose,
            categorical_features=categorical_features, max_categories=max_categories,
            monotonic_cst=monotonic_cst, interaction_cst=interaction_cst,
            prune_init=prune_init)
        self.class_weight = class_weight

    def _is_classifier(self):
        return True

    def predict_proba(self, X):
        """Class probabilities of the selected tree."""
        return self._chosen().predict_proba(X)


class TAOTreeRegressorCV(RegressorMixin, BaseTAOTreeCV):
    __doc__ = f"""Bivariate TAO regressor with ``C``, initial tree and ``alpha`` chosen by validation.

    As :class:`TAOTreeClassifierCV` with the squared error; the validation
    score is R^2.

    Parameters
    ----------
    {_CV_DOC}
    Attributes
    ----------
    {_CV_ATTRIBUTES}
    """

    def __init__(self, *, feature_costs=(1.0, 1.25, 1.5), inits=("bivariate", "univariate"),
                 lambda_min=1.0, lambda_max_fraction=0.05, n_lambdas=12, max_refine=2,
                 max_grid_extensions="auto", restarts="auto", finalists=None, pair_features=8, cv=3,
                 rule="best",
                 refit="auto", bivariate_splitter="orientations",
                 max_depth=None, min_samples_leaf=1, n_orientations=30,
                 pair_search="coarse_to_fine", max_pairs=None,
                 exact_max_samples=None, max_iter=50, time_limit=None, n_jobs=None,
                 random_state=None, verbose=0,
                 categorical_features="from_dtype", max_categories=None, monotonic_cst=None,
                 interaction_cst=None, prune_init="auto"):
        super().__init__(
            feature_costs=feature_costs, inits=inits, lambda_min=lambda_min,
            lambda_max_fraction=lambda_max_fraction, n_lambdas=n_lambdas,
            max_refine=max_refine, max_grid_extensions=max_grid_extensions,
            restarts=restarts, finalists=finalists, pair_features=pair_features, cv=cv,
            rule=rule, refit=refit,
            bivariate_splitter=bivariate_splitter, max_depth=max_depth,
            min_samples_leaf=min_samples_leaf, n_orientations=n_orientations,
            pair_search=pair_search, max_pairs=max_pairs,
            exact_max_samples=exact_max_samples, max_iter=max_iter,
            time_limit=time_limit, n_jobs=n_jobs,
            random_state=random_state, verbose=verbose,
            categorical_features=categorical_features, max_categories=max_categories,
            monotonic_cst=monotonic_cst, interaction_cst=interaction_cst,
            prune_init=prune_init)

    def _is_classifier(self):
        return False
