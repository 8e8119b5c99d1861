"""scikit-learn estimators for bivariate TAO, and its regularization path.

:class:`TAOTreeClassifier` and :class:`TAOTreeRegressor` grow an initial greedy
tree (bivariate or univariate CART of :mod:`bivtree.estimators`, or a tree the
user passes) and optimize it with :mod:`bivtree.tao.optimizer`. :func:`tao_path` visits
every significant value of the regularization parameter, warm-starting each
fit from the previous one, and picks the best tree on a validation set
(section 4.1.3 of Kairgeldin & Carreira-Perpinan, KDD 2024).

**Constraints** (``monotonic_cst``, ``interaction_cst``: the greedy trees'
parameters, resolved by the same code with the same errors,
:meth:`~bivtree.estimators.FittedTreeMixin._resolve_constraints`). The initial
tree is grown under them, or refused when one of its tests breaks them
(:func:`~bivtree.constraints.check_node_tests`); TAO searches the allowed pairs
only and, for two constrained features, only rules whose signs agree
(:mod:`bivtree._kernels.tao`); a rule is used only where the values of the
children it makes respect the order and the bounds its node has in the tree
(the greedy search's check, :func:`~bivtree._kernels.constraints.split_admissible`);
and the returned tree is clipped to those bounds
(:func:`~bivtree.constraints.clip_tree_to_bounds`), which makes it monotone.
"""

import copy
import time
from dataclasses import dataclass
from typing import ClassVar

import numpy as np
from sklearn.base import BaseEstimator, ClassifierMixin, RegressorMixin, clone
from sklearn.model_selection import train_test_split

from .._compile_notice import notice_once
from .._config import DTYPE, ITYPE, LTYPE, MISCLASSIFICATION, SQUARED_ERROR
from .._validation import InstanceOf, Integral, Interval, Options, Real, check_params
from ..constraints import check_node_tests, clip_tree_to_bounds, split_constraints
from ..estimators import (
    DEFAULT_MAX_PAIRS,
    BaseBivariateTree,
    BivariateTreeClassifier,
    BivariateTreeRegressor,
    FittedTreeMixin,
    TreeClassifierOutputs,
    TreeRegressorOutputs,
    _prepare_scales,
    _report_in_user_units,
    _writable,
    numba_threads,
)
from ..persistence import register_model
from ..splitters._base import candidate_pairs
from ..tree import Tree
from .optimizer import (
    PAIR_SEARCHES,
    TAOData,
    TAOOptimizer,
    TAOState,
    next_alpha,
    pruned_for_objective,
    search_key,
    state_to_tree,
    tree_loss,
)

#: ``init`` names and the splitter of the greedy tree each grows.
INIT_SPLITTERS = {"bivariate": "orientations", "univariate": "univariate"}

#: default ``exact_max_samples``: reduced problems up to this many care samples
#: get the exact bivariate solution. Measured (benchmarks/bench_tao.py --part
#: exact, benchmarks/results/bench_tao_exact.md): per feature pair the sweep
#: costs 1.3 times the 30-direction search at 25 care samples and about 6 times
#: at 100, 20 to 50 times at 300 to 500; such small nodes are a small share of
#: an iteration, and the whole regularization path on segment took the same
#: time with 0, 25, 50 or 100 (measured with a sweep twice as slow).
DEFAULT_EXACT_MAX_SAMPLES = 100

#: the regressors' default ``exact_max_samples``: in regression every sample whose two
#: subtrees predict differently cares, so the reduced problems of all nodes of up to
#: 100 samples would get the sweep. Measured on diabetes (the selector as
#: ``bench_tao.py --part regression`` builds it, on three hold-out splits of its sizes):
#: 25 to 28 CPU seconds with 0 against 76 to 97 with 100, the same selected trees; again
#: with the sweep twice as fast and the selector's present grid: 13 against 24 to 29 CPU
#: seconds, the same trees on two splits, and on the third 100 selected 18 decision
#: nodes at test RMSE 78.5 against 1 at 64.4 with 0.
DEFAULT_EXACT_MAX_SAMPLES_REGRESSION = 0


def prunes_initial_tree(prune_init, max_depth):
    """``prune_init`` resolved for an initial tree grown to ``max_depth``: ``"auto"``
    prunes a fully grown one (``max_depth`` None) only."""
    if prune_init == "auto":
        return max_depth is None
    return bool(prune_init)


class BaseTAOTree(FittedTreeMixin, BaseEstimator):
    """Shared fitting machinery; use the classifier or the regressor."""

    #: screening of the pair search (:class:`bivtree.tao.optimizer.TAOOptimizer`'s
    #: ``pair_features``): not a parameter of these estimators (their saved
    #: form is fixed); :mod:`bivtree.tao.selection` sets it on the instances
    #: it fits, None searches every pair.
    _pair_features = None

    #: searches shared between fits on the same data (:class:`bivtree.tao.optimizer.TAOOptimizer`'s
    #: ``memo``), by search key: None, or a dict that :mod:`bivtree.tao.selection`
    #: sets on the instances of one split's paths (the answers do not depend on it).
    _search_memos = None

    _parameter_constraints: ClassVar[dict] = {
        "alpha": [Interval(Real, 0.0, None, closed="left")],
        # the paper advises 1.1 to 1.5
        "feature_cost": [Interval(Real, 0.0, None, closed="neither")],
        "init": [Options((*INIT_SPLITTERS, "auto")), InstanceOf(Tree, "a bivtree Tree"),
                 InstanceOf(BaseEstimator, "a bivtree tree estimator"),
                 InstanceOf((list, tuple), "a list of initial trees")],
        # these go to the greedy tree TAO starts from, which takes the same values
        # (the constraints are TAO's own as well: resolved against X the same way)
        **{name: BaseBivariateTree._parameter_constraints[name]
           for name in ("max_depth", "min_samples_leaf", "n_orientations", "max_pairs",
                        "n_jobs", "random_state", "verbose", "categorical_features",
                        "max_categories", "monotonic_cst", "interaction_cst")},
        "pair_search": [Options(PAIR_SEARCHES)],
        "exact_max_samples": [None, Interval(Integral, 0, None, closed="left")],
        "max_iter": [Interval(Integral, 1, None, closed="left")],
        "time_limit": [None, Interval(Real, 0.0, None, closed="neither")],
        "validation_fraction": [Interval(Real, 0.0, 1.0, closed="neither")],
        "warm_start": ["boolean"],
        "prune_init": ["boolean", Options(("auto",))],
    }

    def __init__(self, *, alpha, feature_cost, init, max_depth, min_samples_leaf, n_orientations,
                 exact_max_samples, max_iter, time_limit, validation_fraction, max_pairs,
                 warm_start, n_jobs, random_state, verbose, categorical_features="from_dtype",
                 max_categories=None, pair_search="coarse_to_fine", monotonic_cst=None,
                 interaction_cst=None, prune_init="auto"):
        self.alpha = alpha
        self.feature_cost = feature_cost
        self.init = init
        self.max_depth = max_depth
        self.min_samples_leaf = min_samples_leaf
        self.n_orientations = n_orientations
        self.pair_search = pair_search
        self.exact_max_samples = exact_max_samples
        self.max_iter = max_iter
        self.time_limit = time_limit
        self.validation_fraction = validation_fraction
        self.max_pairs = max_pairs
        self.warm_start = warm_start
        self.n_jobs = n_jobs
        self.random_state = random_state
        self.verbose = verbose
        self.categorical_features = categorical_features
        self.max_categories = max_categories
        self.monotonic_cst = monotonic_cst
        self.interaction_cst = interaction_cst
        self.prune_init = prune_init

    # ----------------------------------------------------------- parameters
    def _check_params(self, numeric):
        """``exact_max_samples`` resolved; raises if TAO would search too many pairs.

        ``numeric`` are the columns linear rules use; the pairs counted are those
        of them ``interaction_cst`` allows. The parameters themselves were
        checked against ``_parameter_constraints`` with the data
        (``_validate_fit_data``).
        """
        ems = self.exact_max_samples
        if ems is None:
            ems = (DEFAULT_EXACT_MAX_SAMPLES if self._is_classifier()
                   else DEFAULT_EXACT_MAX_SAMPLES_REGRESSION)
        limit = DEFAULT_MAX_PAIRS if self.max_pairs is None else self.max_pairs
        n_features = numeric.size
        n_pairs = n_features * (n_features - 1) // 2
        constraints = self._split_constraints()
        if n_pairs > limit and constraints.allowed.shape[0]:
            # only the allowed pairs are searched (listed only when all of them are too many)
            n_pairs = constraints.allowed_pairs(*candidate_pairs(numeric))[0].size
        if n_pairs > limit:
            raise ValueError(
                f"TAO would search {n_pairs} feature pairs at every node ({n_features} "
                f"features), more than max_pairs={limit}; select features first or raise "
                "max_pairs")
        return int(ems)

    def _split_constraints(self):
        """The fit's :class:`~bivtree.constraints.SplitConstraints` (``monotonic_cst_``,
        ``interaction_cst_`` over every column of ``X``)."""
        return split_constraints(self.monotonic_cst_, self.interaction_cst_,
                                 self.n_features_in_)

    def _check_tests(self, features, weights, what):
        """Refuse a tree whose tests the constraints forbid (see :func:`check_node_tests`)."""
        check_node_tests(features, weights, self._split_constraints(), what,
                         getattr(self, "feature_names_in_", None))

    def _optimized_tree(self, state, data):
        """The :class:`Tree` of an optimized ``state``, made monotone under monotonic
        constraints (:func:`~bivtree.constraints.clip_tree_to_bounds`: every node's value
        clipped to the bounds scikit-learn's growth would pass down)."""
        tree = state_to_tree(state, data)
        clip_tree_to_bounds(tree, self._split_constraints(), self._is_classifier())
        return tree

    # --------------------------------------------------------------- fitting
    def _initial_tree(self, init, X, y, sample_weight):
        """The greedy tree (or the given one) TAO starts from.

        Under constraints, a greedy tree is grown under them (an unfitted
        estimator given as ``init`` too), and a tree whose tests they forbid is
        refused (:func:`~bivtree.constraints.check_node_tests`).
        """
        if isinstance(init, Tree):
            if init.n_features != X.shape[1]:
                raise ValueError(f"the initial tree expects {init.n_features} features, X has "
                                 f"{X.shape[1]}")
            self._check_tests(init.features, init.weights, "the initial tree (init)")
            return init.copy()
        if isinstance(init, BaseEstimator):
            if hasattr(init, "tree_"):
                return self._initial_tree(init.tree_, X, y, sample_weight)
            est = clone(init)
        else:
            cls = BivariateTreeClassifier if self._is_classifier() else BivariateTreeRegressor
            est = cls(splitter=INIT_SPLITTERS[init], n_orientations=self.n_orientations,
                      max_depth=self.max_depth, min_samples_leaf=self.min_samples_leaf,
                      max_pairs=self.max_pairs, n_jobs=self.n_jobs,
                      random_state=self.random_state)
        categorical = self._categorical_columns()
        if categorical.size:
            # X holds the codes already: the greedy tree takes them as categories
            est.set_params(categorical_features=categorical.tolist())
        if (self.monotonic_cst_ is not None or self.interaction_cst_ is not None) and (
                "monotonic_cst" in est.get_params(deep=False)):
            # X has no column names here: the constraints as resolved, by index
            est.set_params(monotonic_cst=self.monotonic_cst_,
                           interaction_cst=self.interaction_cst_)
        est.fit(X, y, sample_weight=sample_weight)
        self._check_tests(est.tree_.features, est.tree_.weights, "the initial tree (init)")
        return est.tree_

    def _prunes_init(self):
        """``prune_init`` resolved (:func:`prunes_initial_tree`)."""
        return prunes_initial_tree(self.prune_init, self.max_depth)

    def _prunes_start(self):
        """Whether the fit starts from its initial tree pruned (see :meth:`_start_state`);
        the constraints resolved."""
        return self._prunes_init() and self.monotonic_cst_ is None

    def _start_state(self, tree, data):
        """The state TAO starts from: ``tree``, pruned first (``prune_init``) to its
        subtree of least objective at ``alpha`` on ``data``
        (:func:`~bivtree.tao.optimizer.pruned_for_objective`).

        The pruned start's objective is at most the whole tree's, and TAO then
        optimizes a structure of the pruned tree's size, whose iterations cost
        less. Under monotonic constraints the tree is kept whole: its leaves
        are clipped to bounds the pruning's leaf values do not know.
        """
        if self._prunes_start():
            tree, _ = pruned_for_objective(tree, data, float(self.alpha),
                                           float(self.feature_cost))
        return TAOState.from_tree(tree, data.regression, self._categorical_columns())

    def _run(self, data, state, exact_max_samples, cache=None, start=None, memo=None):
        optimizer = TAOOptimizer(
            data, alpha=float(self.alpha), feature_cost=float(self.feature_cost),
            n_orientations=self.n_orientations, exact_max_samples=exact_max_samples,
            max_iter=self.max_iter, time_limit=self.time_limit, verbose=self.verbose,
            cache=cache, start=start, pair_features=self._pair_features, memo=memo,
            pair_search=self.pair_search, constraints=self._split_constraints())
        with numba_threads(self.n_jobs):
            result = optimizer.run(state)
        return result, optimizer.cache

    def _fit(self, X, y, sample_weight, labels, targets, n_classes, start):
        notice_once()
        t0 = start  # time_limit counts from the call to fit
        categorical = self._categorical_columns()
        # the same resolution, checks and messages as the greedy trees'; every tree TAO
        # starts from and every rule it searches keep to them
        constraints = self._resolve_constraints(X.shape[1], n_classes)
        exact_max_samples = self._check_params(
            np.setdiff1d(np.arange(X.shape[1], dtype=ITYPE), categorical).astype(ITYPE))
        regression = not self._is_classifier()
        sample_weight, exponent = _prepare_scales(self, X, targets if regression else None,
                                                  sample_weight)
        data = TAOData(_writable(X, order="F"), labels, targets, sample_weight, n_classes,
                       categorical=categorical, regression=regression)
        init = self.init
        cache = result = None
        key = (search_key(data, self.n_orientations, self.pair_search, exact_max_samples,
                          constraints), self._pair_features)
        if self.warm_start and hasattr(self, "_tao_state"):
            if self._tao_state.n_features != X.shape[1]:
                raise ValueError("warm_start: X has a different number of features than the "
                                 "previous fit")
            state = self._tao_state.copy()
            self._check_tests(state.features, state.weights,
                              "warm_start: the previous fit's tree")
            init = self.init_
            # the same data and search settings: the previous searches still hold
            if getattr(self, "_search_cache", (None, None))[0] == key:
                cache = self._search_cache[1]
        elif isinstance(init, (list, tuple)):
            # every start is optimized there, the best kept
            init, state, result, cache = self._best_start(init, data, X, y, sample_weight,
                                                          exact_max_samples, key, t0)
        else:
            if isinstance(init, str) and init == "auto":
                init = self._choose_init(X, y, sample_weight, labels, targets, n_classes,
                                         exact_max_samples, t0)
            state = self._start_state(self._initial_tree(init, X, y, sample_weight), data)
        if result is None:
            memo = (None if self._search_memos is None
                    else self._search_memos.setdefault(key, {}))
            result, cache = self._run(data, state, exact_max_samples, cache, start=t0,
                                      memo=memo)
        self._tao_state = state
        self._search_cache = (key, cache)
        self.init_ = init if isinstance(init, str) else "given"
        self.objective_path_ = np.asarray(result.objective_path)
        self.n_iter_ = result.n_iter
        self.converged_ = result.converged
        self.next_alpha_ = next_alpha(result.records, float(self.alpha), data.total_weight,
                                      float(self.feature_cost))
        self.tree_ = self._optimized_tree(state, data)
        self.objective_ = self._tree_objective(data)
        self.n_outputs_ = 1
        self.max_features_ = X.shape[1]
        self.fit_time_ = time.perf_counter() - t0
        self.feature_importances_ = self._feature_importances(data.X, sample_weight)
        _report_in_user_units(self.tree_, None, exponent, not regression)
        return self

    def _best_start(self, inits, data, X, y, sample_weight, exact_max_samples, key, start):
        """TAO from each of ``inits``; the run of least objective (the first on ties).

        TAO never increases its objective, so the tree kept is at least as good on
        the objective as the best of the initial trees, and as each run from
        its own (under monotonic constraints the objectives compared are those of
        the returned, clipped trees, which may exceed TAO's). Sets
        ``init_objectives_`` (the final objective of each run, in the order of
        ``inits``) and ``init_index_`` (the run kept).

        Returns
        -------
        init, state, result, cache
            The kept run's initial tree (a name or the given object), its
            optimized state, its optimizer result and its search cache.
        """
        if len(inits) == 0:
            raise ValueError("init is an empty list; give at least one initial tree")
        for entry in inits:
            if not (isinstance(entry, (Tree, BaseEstimator))
                    or isinstance(entry, str) and entry in INIT_SPLITTERS):
                raise ValueError(
                    f"init lists {entry!r}; each initial tree must be one of "
                    f"{sorted(INIT_SPLITTERS)}, a bivtree Tree or a bivtree tree estimator")
        best = None
        objectives = []
        for index, entry in enumerate(inits):
            state = self._start_state(self._initial_tree(entry, X, y, sample_weight), data)
            memo = (None if self._search_memos is None
                    else self._search_memos.setdefault(key, {}))
            result, cache = self._run(data, state, exact_max_samples, start=start, memo=memo)
            self.tree_ = self._optimized_tree(state, data)
            objective = self._tree_objective(data)
            objectives.append(objective)
            if self.verbose:
                print(f"[TAO] initial tree {index + 1} of {len(inits)}: objective "
                      f"{objective:.6g}", flush=True)
            if best is None or objective < objectives[best[0]]:
                best = (index, entry, state, result, cache)
        self.init_objectives_ = np.asarray(objectives)
        self.init_index_ = best[0]
        return best[1:]

    def _accepts_missing(self):
        """Missing values (NaN in X) are accepted: every node learns their side."""
        return True

    def _categorical_columns(self):
        """The columns encoded as categories at fit (``is_categorical_``), as indices."""
        mask = getattr(self, "is_categorical_", None)
        return np.zeros(0, dtype=np.int64) if mask is None else np.flatnonzero(mask)

    def _criterion_code(self):
        """The split criterion matching TAO's loss: the 0/1 loss, or the squared error.

        Used where a picture or a summary searches a split of its own, e.g. the
        second feature ``plot_tree`` draws a univariate node against.
        """
        return MISCLASSIFICATION if self._is_classifier() else SQUARED_ERROR

    def _tree_objective(self, data):
        """``E / W`` of the returned tree (at most the last entry of ``objective_path_``)."""
        rows = data.rows
        loss = tree_loss(self.tree_, data.X[rows], data.labels[rows], data.targets[rows],
                         data.sample_weight[rows], data.regression)
        used = self.tree_.n_node_features
        penalty = (np.count_nonzero(used == 1)
                   + float(self.feature_cost) * np.count_nonzero(used == 2))
        return (loss + self.alpha * data.total_weight * penalty) / data.total_weight

    def _choose_init(self, X, y, sample_weight, labels, targets, n_classes, exact_max_samples,
                     start):
        """``init="auto"``: the initial tree whose TAO tree scores best on a validation split."""
        stratify = labels if n_classes > 1 and np.bincount(labels).min() >= 2 else None
        idx = np.arange(X.shape[0])
        train, val = train_test_split(idx, test_size=self.validation_fraction,
                                      random_state=self.random_state, stratify=stratify)
        scores = {}
        for name in ("bivariate", "univariate"):
            tree = self._initial_tree(name, X[train], y[train], sample_weight[train])
            part = TAOData(_writable(X[train], order="F"), labels[train], targets[train],
                           sample_weight[train], n_classes,
                           categorical=self._categorical_columns(),
                           regression=not self._is_classifier())
            state = self._start_state(tree, part)
            self._run(part, state, exact_max_samples, start=start)
            w = sample_weight[val]
            err = tree_loss(self._optimized_tree(state, part), X[val], labels[val],
                            targets[val], w, part.regression)
            scores[name] = err / max(float(w.sum()), np.finfo(float).tiny)
        self.init_scores_ = scores
        if self.verbose:
            print(f"[TAO] init='auto': validation loss {scores}", flush=True)
        # ties go to the bivariate start (the paper's better one on most sets)
        return min(scores, key=lambda k: (scores[k], k != "bivariate"))

    def __getstate__(self):
        # the search cache is only a speed-up for warm starts; copies and pickles leave it
        state = dict(super().__getstate__())  # may be the live __dict__ itself
        state.pop("_search_cache", None)
        state.pop("_search_memos", None)
        return state

    # ------------------------------------------------------------ inspection
    def node_kinds(self):
        """Number of bivariate and univariate decision nodes of ``tree_``.

        Returns
        -------
        dict with keys ``"bivariate"``, ``"univariate"``
        """
        used = self.tree_.n_node_features
        return {"bivariate": int(np.count_nonzero(used == 2)),
                "univariate": int(np.count_nonzero(used == 1))}


_TAO_DOC = """
    alpha : float, default=0.001
        Regularization: the paper's ``lambda`` divided by the total training
        weight (the number of samples without weights). A decision node must
        remove ``alpha`` of the training samples' loss per unit of its cost to
        be kept: 1 for a univariate node, ``feature_cost`` for a bivariate one.
        The objective reported is mean loss + ``alpha * sum phi``.
    feature_cost : float, default=1.25
        ``C``: the cost of a bivariate node relative to a univariate one (the
        paper advises 1.1 to 1.5; ``C <= 1`` favours bivariate nodes).
    init : {"bivariate", "univariate", "auto"}, Tree, estimator or list, default="bivariate"
        Initial tree: bivariate CART (``orientations`` splitter), univariate
        CART, or ``"auto"``: both, each optimized on a ``1 - validation_fraction``
        part of the data and the better on the rest kept (then fitted on all
        the data). A :class:`bivtree.Tree` is used as is; an unfitted bivtree
        estimator is fitted on the data first (under ``monotonic_cst`` and
        ``interaction_cst`` when they are given), a fitted one gives its
        ``tree_``; a tree with a test the constraints forbid is refused.
        A list of these (names other than ``"auto"``, trees, estimators): TAO
        runs from each on all the data and the run of least objective is kept
        (the first on ties), so the result's objective is at most that of every
        initial tree (``init_objectives_``; under monotonic constraints, of the
        initial trees clipped to their bounds).
    max_depth : int, default=None
        Depth of the initial greedy tree (``None``: fully grown).
    min_samples_leaf : int or float, default=1
        Of the initial greedy tree.
    n_orientations : int, default=30
        Directions per feature pair of the bivariate initial tree (bivariate
        CART), and of the nodes' bivariate search with
        ``pair_search="orientations"`` (the paper uses 30 to 90).
    pair_search : {"coarse_to_fine", "orientations"}, default="coarse_to_fine"
        How a node's reduced problem is searched for bivariate rules, pair by
        pair (where ``exact_max_samples`` does not call for the exact sweep):
        ``"coarse_to_fine"``, 12 angles of the pair's decorrelated frame, then 5
        step-halving rounds from the best (the ``"auto"`` splitter's angle
        search), or ``"orientations"``, the ``n_orientations`` fixed directions
        of the paper. On the reduced problems of real TAO fits the first is on
        average half as far from the exact optimum as 30 fixed directions, in
        three quarters of their time (``benchmarks/bench_tao_pair_search.py``).
    exact_max_samples : int, default=None
        Reduced problems with at most this many care samples are solved exactly
        for bivariate rules, by the rotational sweep (``None``: 100 for
        classification, 0 for regression, where every sample cares and the
        sweep costs several times the direction search for the same selected
        trees; 0 never).
    max_iter : int, default=50
        Most TAO iterations (passes over all nodes).
    time_limit : float, default=None
        Seconds from the call to ``fit``, growing the initial tree included; no
        depth of a TAO iteration starts after it, and the tree as it stands is
        returned with its objective (never worse than the initial tree: every
        node update is a descent step). The greedy growth itself is not
        interrupted, so a limit shorter than it returns the initial tree.
    validation_fraction : float, default=0.1
        Share of the data held out by ``init="auto"``.
    max_pairs : int, default=None
        Largest number of feature pairs (``None``: 20000); more raises a ValueError.
    warm_start : bool, default=False
        Start from the previous fit's optimized structure (zero-variate nodes
        included) instead of a new initial tree, e.g. for a path over ``alpha``.
    n_jobs : int, default=None
        Threads (joblib's meaning). Results do not depend on it.
    random_state : int, RandomState or None, default=None
        Seeds the validation split of ``init="auto"``.
    verbose : int, default=0
        Print the objective after every iteration.
    categorical_features : array-like of int, str or bool, "from_dtype" or None, \
default="from_dtype"
        Columns split by category sets (``x in {a, b}``), as for
        :class:`~bivtree.BivariateTreeClassifier`: the greedy initial tree
        offers subset splits on them, and each TAO node update also considers
        the best category set of its reduced problem (a two-class problem, so
        that set is exact), at the cost of a univariate rule. Linear rules use
        the other columns only.
    max_categories : int, default=None
        Categories kept per categorical column, as for
        :class:`~bivtree.BivariateTreeClassifier`.
    monotonic_cst : array-like of int of shape (n_features,), dict or None, default=None
        Monotonicity constraint of each feature, with the meaning, the forms
        and the errors of :class:`~bivtree.BivariateTreeClassifier`'s: ``1`` the
        prediction (the mean target, or the probability of ``classes_[1]``) may
        only increase with the feature, ``-1`` only decrease, ``0`` free; with a
        DataFrame also a dict ``{column name: -1, 0 or 1}``; more than two
        classes, several outputs and a constrained categorical feature are
        refused. The initial greedy tree is grown under it (an unfitted
        estimator given as ``init`` too); a given tree with a test of two
        constrained features whose signs disagree is refused. At every node
        TAO searches, for a pair of two constrained features, only the rules
        whose signs agree (the exact sweep, the angles and the fixed directions
        alike), and uses a rule only where the values of the children it makes
        (over all the node's training samples) lie within the node's bounds and
        in the order its signs require, the bounds being passed down the tree
        as scikit-learn's growth does; the leaves take their values clipped to
        their bounds. **Guaranteed:** the returned tree's values are clipped to
        those bounds (:func:`bivtree.constraints.clip_tree_to_bounds`), so its
        prediction never moves against a constraint when one feature changes
        and the others stay (as for the greedy trees, see
        :mod:`bivtree.constraints` for missing values); ``objective_path_``
        measures that clipped tree and never increases (a TAO pass is then no
        descent step, since an updated node moves the bounds below it: a pass
        that raised the objective is undone and ends the run), so the objective
        is at most the initial tree's after the same clipping. **Not
        guaranteed:** the best monotone tree of the structure; a node whose best
        searched rule is inadmissible keeps its rule or takes another
        candidate (zero-variate, the other kind, a category set), not the best
        admissible cut of its reduced problem.
    interaction_cst : list of lists of int or str, "pairwise", "no_interactions" or \
None, default=None
        Groups of features that may share a node test, as for
        :class:`~bivtree.BivariateTreeClassifier` (scikit-learn's
        HistGradientBoosting groups; the features no group lists form one more
        group): the initial tree is grown under them (a given tree pairing
        features of different groups is refused) and TAO's bivariate rules are
        searched over the allowed pairs only, so no node of the returned tree
        tests two features of different groups.
    prune_init : bool or "auto", default="auto"
        Start from the initial tree's subtree of least objective at ``alpha``
        (every internal node may become a leaf of its training samples' class
        or mean; the best such subtree, found exactly bottom-up), rather than
        from the whole tree. Its objective is at most the whole tree's, and TAO
        then optimizes a structure of its size: on a fully grown initial tree
        the iterations cost far less (3 times less on a path of ``magic``, whose
        optimized trees' objectives were lower too). TAO can no longer give a
        pruned node a rule of its own, which matters on a tree of a chosen
        depth: a node whose greedy split does not change the majority class is
        pruned, though TAO could find it a rule that does. ``"auto"`` prunes
        when ``max_depth`` is None (a fully grown initial tree) and keeps a
        tree of a chosen depth whole. Not applied under ``monotonic_cst``
        (whose clipped leaves the pruning does not know), nor to
        ``warm_start`` fits.
"""

_TAO_ATTRIBUTES = """
    tree_ : bivtree.tree.Tree
        The optimized tree, zero-variate nodes and dead branches removed.
    objective_path_ : ndarray
        Objective ``E / W`` of the initial tree (pruned, with ``prune_init``) and
        after every iteration
        (never increasing; under monotonic constraints, of the trees clipped to
        their bounds).
    objective_ : float
        Objective of ``tree_`` (at most ``objective_path_[-1]``, up to rounding).
    n_iter_ : int
        Iterations run.
    converged_ : bool
        Whether the last iteration did not decrease the objective (False when
        ``max_iter`` or ``time_limit`` stopped the run).
    next_alpha_ : float or None
        Smallest ``alpha`` above ``alpha`` at which a node of the optimized
        tree would change (``None``: the tree is one leaf): the next
        significant value of the regularization path.
    init_ : str
        Initial tree used: ``"bivariate"``, ``"univariate"`` or ``"given"``.
    init_scores_ : dict
        ``init="auto"`` only: validation loss of each initial tree.
    init_objectives_ : ndarray of shape (n_inits,)
        ``init`` a list only: the objective TAO reached from each initial tree.
    init_index_ : int
        ``init`` a list only: the position of the run kept.
    monotonic_cst_ : ndarray of int8 of shape (n_features,) or None
        ``monotonic_cst`` as one constraint per feature (None: none given).
    interaction_cst_ : list of list of int, "pairwise" or None
        ``interaction_cst`` as groups of feature indices, with the group of the
        features it did not list (None: none given).
    feature_importances_ : ndarray of shape (n_features,)
    fit_time_ : float
    n_features_in_ : int
    feature_names_in_ : ndarray of str
"""


@register_model
class TAOTreeClassifier(ClassifierMixin, TreeClassifierOutputs, BaseTAOTree):
    __doc__ = f"""Bivariate tree optimized by tree alternating optimization (0/1 loss).

    Minimizes the training error plus ``alpha`` times the number of
    univariate decision nodes plus ``alpha * feature_cost`` times the number
    of bivariate ones, over all parameters of a tree whose structure is that
    of an initial greedy tree (Kairgeldin & Carreira-Perpinan, KDD 2024,
    section 4.1). Every split is ``x[j] <= t`` or ``x[j] + w * x[k] <= t``.

    Parameters
    ----------
    {_TAO_DOC}
    class_weight : dict, "balanced" or None, default=None
        Weights of the classes, multiplied into ``sample_weight``.

    Attributes
    ----------
    {_TAO_ATTRIBUTES}
    classes_ : ndarray of shape (n_classes,)
    n_classes_ : int

    Examples
    --------
    >>> from sklearn.datasets import load_iris
    >>> from bivtree import TAOTreeClassifier
    >>> X, y = load_iris(return_X_y=True)
    >>> tao = TAOTreeClassifier(alpha=0.001, max_depth=2, random_state=0).fit(X, y)
    >>> tao.get_n_leaves(), tao.node_kinds()["bivariate"]
    (3, 1)
    >>> bool(tao.objective_path_[-1] <= tao.objective_path_[0])  # never increases
    True
    >>> round(tao.score(X, y), 2)
    0.98
    """

    _parameter_constraints: ClassVar[dict] = {
        **BaseTAOTree._parameter_constraints,
        "class_weight": BivariateTreeClassifier._parameter_constraints["class_weight"],
    }

    def __init__(self, *, alpha=0.001, feature_cost=1.25, init="bivariate", max_depth=None,
                 min_samples_leaf=1, n_orientations=30, pair_search="coarse_to_fine",
                 exact_max_samples=None, max_iter=50, time_limit=None, validation_fraction=0.1,
                 max_pairs=None, warm_start=False, class_weight=None, n_jobs=None,
                 random_state=None, verbose=0, categorical_features="from_dtype",
                 max_categories=None, monotonic_cst=None, interaction_cst=None,
                 prune_init="auto"):
        super().__init__(
            alpha=alpha, feature_cost=feature_cost, init=init, max_depth=max_depth,
            min_samples_leaf=min_samples_leaf, n_orientations=n_orientations,
            exact_max_samples=exact_max_samples, max_iter=max_iter, time_limit=time_limit,
            validation_fraction=validation_fraction, max_pairs=max_pairs,
            warm_start=warm_start, n_jobs=n_jobs, random_state=random_state, verbose=verbose,
            categorical_features=categorical_features, max_categories=max_categories,
            pair_search=pair_search, monotonic_cst=monotonic_cst,
            interaction_cst=interaction_cst, prune_init=prune_init)
        self.class_weight = class_weight

    def _is_classifier(self):
        return True

    def fit(self, X, y, sample_weight=None):
        """Grow the initial tree and optimize it.

        Parameters
        ----------
        X : array-like of shape (n_samples, n_features)
            Numbers (NaN marks a missing value; infinity is an error) and
            category columns (``categorical_features``).
        y : array-like of shape (n_samples,)
            Class labels (a single class gives a one-leaf tree).
        sample_weight : array-like of shape (n_samples,), default=None
            Non-negative weights; the loss of a sample is its weight times the 0/1 loss.

        Returns
        -------
        self
        """
        start = time.perf_counter()
        X, y, sample_weight = self._validate_fit_data(X, y, sample_weight)
        classes, labels, sample_weight = self._encode_classes(y, sample_weight)
        if self.warm_start and hasattr(self, "classes_") and not np.array_equal(
                classes, self.classes_):
            raise ValueError("warm_start: y has other classes than the previous fit")
        self.classes_ = classes
        self.n_classes_ = int(classes.shape[0])
        return self._fit(X, y, sample_weight, labels, np.zeros(labels.shape[0], dtype=DTYPE),
                         self.n_classes_, start)


@register_model
class TAOTreeRegressor(RegressorMixin, TreeRegressorOutputs, BaseTAOTree):
    __doc__ = f"""Bivariate regression tree optimized by tree alternating optimization.

    As :class:`TAOTreeClassifier` with the squared error: leaves hold the mean
    target of their samples and a decision node's reduced problem weighs each
    sample by the difference of its squared errors down the two subtrees
    (section 4.1.2). ``alpha`` is then in units of the mean squared error.

    Parameters
    ----------
    {_TAO_DOC}
    Attributes
    ----------
    {_TAO_ATTRIBUTES}
    """

    def __init__(self, *, alpha=0.001, feature_cost=1.25, init="bivariate", max_depth=None,
                 min_samples_leaf=1, n_orientations=30, pair_search="coarse_to_fine",
                 exact_max_samples=None, max_iter=50, time_limit=None, validation_fraction=0.1,
                 max_pairs=None, warm_start=False, n_jobs=None, random_state=None, verbose=0,
                 categorical_features="from_dtype", max_categories=None, monotonic_cst=None,
                 interaction_cst=None, prune_init="auto"):
        super().__init__(
            alpha=alpha, feature_cost=feature_cost, init=init, max_depth=max_depth,
            min_samples_leaf=min_samples_leaf, n_orientations=n_orientations,
            exact_max_samples=exact_max_samples, max_iter=max_iter, time_limit=time_limit,
            validation_fraction=validation_fraction, max_pairs=max_pairs,
            warm_start=warm_start, n_jobs=n_jobs, random_state=random_state, verbose=verbose,
            categorical_features=categorical_features, max_categories=max_categories,
            pair_search=pair_search, monotonic_cst=monotonic_cst,
            interaction_cst=interaction_cst, prune_init=prune_init)

    def _is_classifier(self):
        return False

    def fit(self, X, y, sample_weight=None):
        """Grow the initial tree and optimize it.

        Parameters
        ----------
        X : array-like of shape (n_samples, n_features)
        y : array-like of shape (n_samples,)
            Finite numeric targets.
        sample_weight : array-like of shape (n_samples,), default=None

        Returns
        -------
        self
        """
        start = time.perf_counter()
        X, y, sample_weight = self._validate_fit_data(X, y, sample_weight)
        targets = np.ascontiguousarray(y, dtype=DTYPE)
        return self._fit(X, y, np.ascontiguousarray(sample_weight, dtype=DTYPE),
                         np.zeros(targets.shape[0], dtype=LTYPE), targets, 1, start)


# ------------------------------------------------------- regularization path
@dataclass
class TAOPathStep:
    """One fitted tree of a regularization path."""

    init: str
    alpha: float
    estimator: BaseTAOTree
    n_nodes: int
    n_leaves: int
    depth: int
    n_bivariate: int
    n_univariate: int
    objective: float
    train_score: float
    validation_score: float
    seconds: float


@dataclass
class TAOPath:
    """The trees :func:`tao_path` visited, and the one it selected.

    Attributes
    ----------
    steps : list of TAOPathStep
        In the order visited (per initial tree, increasing ``alpha``).
    best : TAOPathStep
        Highest validation score; ties go to fewer nodes, then larger ``alpha``.
    """

    steps: list
    best: TAOPathStep

    @property
    def best_estimator_(self):
        return self.best.estimator

    @property
    def alphas(self):
        return np.array([s.alpha for s in self.steps])

    def to_frame(self):
        """The steps as a pandas DataFrame (without the estimators)."""
        import pandas as pd

        return pd.DataFrame([{k: v for k, v in vars(s).items() if k != "estimator"}
                             for s in self.steps])


def tao_path(estimator, X, y, sample_weight=None, *, X_val=None, y_val=None, alphas=None,
             max_steps=None, validation_fraction=None, random_state=None, verbose=0):
    """Fit TAO trees along the regularization path and select one on validation data.

    Starting from ``alpha = 0`` (or ``alphas[0]``), each fit warm-starts from
    the previous optimized structure, and the next ``alpha`` is the fitted
    tree's ``next_alpha_``: the smallest value at which one of its nodes would
    change (every value in between gives the same tree), until the tree is one
    leaf. With ``init="auto"`` the path is run from both initial trees.

    Parameters
    ----------
    estimator : TAOTreeClassifier or TAOTreeRegressor
        Its parameters (except ``alpha`` and ``warm_start``) are used for every fit.
    X, y : array-like
        Training data.
    sample_weight : array-like, default=None
    X_val, y_val : array-like, default=None
        Validation data; when None, ``validation_fraction`` of ``(X, y)``
        (default: the estimator's) is held out (stratified for classifiers).
    alphas : array-like, default=None
        Visit these values (sorted) instead of the significant ones.
    max_steps : int, default=None
        Stop after this many fits per initial tree.
    validation_fraction : float, default=None
    random_state : int or None, default=None
        Seeds the validation split (default: the estimator's ``random_state``).
    verbose : int, default=0
        Print a line per fitted tree.

    Returns
    -------
    TAOPath

    Examples
    --------
    >>> from sklearn.datasets import load_iris
    >>> from bivtree import TAOTreeClassifier, tao_path
    >>> X, y = load_iris(return_X_y=True)
    >>> path = tao_path(TAOTreeClassifier(max_depth=2), X, y, random_state=0)
    >>> path.steps[0].alpha, path.steps[-1].n_nodes  # from alpha = 0 to a single leaf
    (0.0, 1)
    >>> bool((path.alphas[1:] > path.alphas[:-1]).all())
    True
    >>> path.best_estimator_.get_n_leaves()
    3
    """
    if not isinstance(estimator, BaseTAOTree):
        raise TypeError("tao_path needs a TAOTreeClassifier or TAOTreeRegressor")
    check_params("tao_path", {"max_steps": max_steps},
                 {"max_steps": [None, Interval(Integral, 1, None, closed="left")]})
    X = np.asarray(X) if not hasattr(X, "iloc") else X
    y = np.asarray(y)
    if (X_val is None) != (y_val is None):
        raise ValueError("give both X_val and y_val, or neither")
    if X_val is None:
        fraction = (estimator.validation_fraction if validation_fraction is None
                    else validation_fraction)
        seed = estimator.random_state if random_state is None else random_state
        is_clf = isinstance(estimator, ClassifierMixin)
        _, counts = np.unique(y, return_counts=True) if is_clf else (None, None)
        stratify = y if is_clf and counts.min() >= 2 else None
        idx = np.arange(len(y))
        train, val = train_test_split(idx, test_size=fraction, random_state=seed,
                                      stratify=stratify)
        take = (lambda a, i: a.iloc[i]) if hasattr(X, "iloc") else (lambda a, i: a[i])
        X, X_val = take(X, train), take(X, val)
        y, y_val = y[train], y[val]
        if sample_weight is not None:
            sample_weight = np.asarray(sample_weight)[train]
    if alphas is not None:
        alphas = np.sort(np.asarray(alphas, dtype=float))
        if alphas.size == 0 or not np.all(np.isfinite(alphas)) or alphas[0] < 0:
            raise ValueError("alphas must be finite numbers >= 0")
    inits = (["bivariate", "univariate"] if isinstance(estimator.init, str)
             and estimator.init == "auto" else [estimator.init])
    steps = []
    for init in inits:
        est = clone(estimator).set_params(init=init, warm_start=False,
                                          alpha=0.0 if alphas is None else float(alphas[0]))
        k = 0
        while True:
            t0 = time.perf_counter()
            est.fit(X, y, sample_weight=sample_weight)
            seconds = time.perf_counter() - t0
            tree = est.tree_
            kinds = est.node_kinds()
            step = TAOPathStep(
                init=est.init_, alpha=float(est.alpha), estimator=copy.deepcopy(est),
                n_nodes=tree.node_count, n_leaves=tree.n_leaves, depth=tree.max_depth,
                n_bivariate=kinds["bivariate"], n_univariate=kinds["univariate"],
                objective=float(est.objective_),
                train_score=float(est.score(X, y, sample_weight=sample_weight)),
                validation_score=float(est.score(X_val, y_val)), seconds=seconds)
            steps.append(step)
            if verbose:
                print(f"[tao_path] init={step.init} alpha={step.alpha:.6g}: {step.n_nodes} "
                      f"nodes ({step.n_bivariate} bivariate), validation "
                      f"{step.validation_score:.4f}, {seconds:.2f} s", flush=True)
            k += 1
            if tree.node_count == 1 or (max_steps is not None and k >= max_steps):
                break
            if alphas is None:
                nxt = est.next_alpha_
                if nxt is None:
                    break
            else:
                if k >= alphas.size:
                    break
                nxt = float(alphas[k])
            est.set_params(alpha=nxt, warm_start=True)
    best = max(steps, key=lambda s: (s.validation_score, -s.n_nodes, s.alpha))
    return TAOPath(steps, best)


__all__ = ["TAOPath", "TAOPathStep", "TAOTreeClassifier", "TAOTreeRegressor", "tao_path"]
