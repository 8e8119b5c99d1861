"""The most accurate tree of at most ``max_depth`` levels: TAO from several starts.

A person reads trees of depth 2 to 4, and at those depths a greedy tree wastes
the few leaves it has: its root is the best single split, not the root of the
best tree. :class:`ShallowTreeClassifier` and :class:`ShallowTreeRegressor`
search the trees of at most ``max_depth`` levels non-greedily:

1. **Initial trees** (``starts``). Classification (:data:`STARTS`): the greedy
   bivariate tree (the default search) under the Gini and the entropy
   criterion, the greedy univariate tree under both, and the optimal univariate
   tree of depth ``max_depth`` over binned thresholds
   (:func:`~bivtree.optimal_univariate.optimal_univariate_tree`, the dynamic
   program of the optimal-tree literature). Entropy spends the first splits on
   separating whole groups of classes, which a multi-class problem with few
   leaves needs; Gini's first splits often isolate one class. Regression
   (:data:`REGRESSION_STARTS`): the greedy bivariate and univariate trees under
   the squared error; the optimal univariate tree is a classification tree (its
   search counts misclassifications), so the regressor has no such start.
2. **TAO** (:class:`~bivtree.TAOTreeClassifier` or
   :class:`~bivtree.TAOTreeRegressor`, KDD 2024) from each start, at the fixed
   depth, with the node penalty ``alpha``: every node in turn gets the rule
   (zero-, uni- or bivariate) that is best for the samples it can route, so the
   tree's training objective (0/1 loss or squared error, plus the penalties)
   never increases from its start.
3. **Selection**: with ``cv=None``, the TAO tree of least training objective
   (at least as good on it as every start, see
   :meth:`~bivtree.TAOTreeClassifier.fit` with a list ``init``); with
   ``cv=k``, every start is scored by a shuffled ``k``-fold inner
   cross-validation (stratified for classification; TAO from the start fitted
   on ``k - 1`` folds, ``score`` on the last: accuracy, or R^2), the best mean
   score wins (ties: fewer leaves, then the order of ``starts``) and is refitted
   on all the data; ``cv_results_`` holds the scores.

What is guaranteed: the tree has at most ``max_depth`` levels and its training
objective is at most that of each initial tree; with ``cv=None`` it is the
least objective TAO reached from the starts. What is not: the best tree of
the depth (that problem is NP-hard for bivariate splits); the optimal univariate
start is optimal over its binned thresholds only.

**Constraints** (``monotonic_cst``, ``interaction_cst``, as for
:class:`~bivtree.TAOTreeClassifier`): the greedy starts are grown under them
and TAO keeps them, so the tree returned is monotone in every constrained
feature and pairs features of one group only. The optimal univariate start is
a univariate tree, which no interaction group restricts; its dynamic program
cannot check the order of its children's values against bounds its ancestors
set, so under monotonic constraints (a nonzero one) it is left out, and a
``starts`` of it alone is refused.
"""

import time
from numbers import Integral, Real
from typing import ClassVar

import numpy as np
from sklearn.base import (
    BaseEstimator,
    ClassifierMixin,
    MetaEstimatorMixin,
    RegressorMixin,
    is_classifier,
)
from sklearn.model_selection import KFold, StratifiedKFold, check_cv
from sklearn.utils import _safe_indexing
from sklearn.utils.multiclass import type_of_target

from ._validation import Interval, check_params
from .estimators import (
    BaseBivariateTree,
    BivariateTreeClassifier,
    BivariateTreeRegressor,
    ChosenTreeDelegation,
)
from .tao.estimators import TAOTreeClassifier, TAOTreeRegressor

__all__ = ["REGRESSION_STARTS", "STARTS", "ShallowTreeClassifier", "ShallowTreeRegressor"]

#: the initial trees :class:`ShallowTreeClassifier` knows, in their default order.
STARTS = ("bivariate", "bivariate-entropy", "univariate", "univariate-entropy",
          "optimal-univariate")
#: the initial trees :class:`ShallowTreeRegressor` knows, in their default order (the
#: optimal univariate tree classifies only).
REGRESSION_STARTS = ("bivariate", "univariate")


def _greedy_start(name, max_depth, n_jobs, random_state, regression=False):
    """The greedy estimator a start names (fitted by TAO on the data it is given, under
    TAO's constraints: see :meth:`~bivtree.TAOTreeClassifier.fit`); a regression tree
    (squared error) with ``regression``."""
    splitter = "auto" if name.startswith("bivariate") else "univariate"
    if regression:
        return BivariateTreeRegressor(max_depth=max_depth, splitter=splitter,
                                      criterion="squared_error", n_jobs=n_jobs,
                                      random_state=random_state)
    criterion = "entropy" if name.endswith("-entropy") else "gini"
    return BivariateTreeClassifier(max_depth=max_depth, splitter=splitter, criterion=criterion,
                                   n_jobs=n_jobs, random_state=random_state)


def _optimal_univariate_start(X, y, sample_weight, max_depth):
    """The optimal univariate tree of depth ``max_depth`` over binned thresholds.

    Exact up to depth 2; deeper, the deterministic search of
    :func:`~bivtree.optimal_univariate.optimal_univariate_tree` with
    ``search="greedy"`` (exact depth-two subtrees under greedy depth-two
    lookahead), so the start does not depend on the machine's speed. ``X`` is
    validated already (numbers, NaN for missing values).
    """
    from .optimal_univariate import optimal_univariate_tree

    return optimal_univariate_tree(X, y, max_depth=max_depth, sample_weight=sample_weight,
                                   search="auto" if max_depth <= 2 else "greedy").tree


class BaseShallowTree(ChosenTreeDelegation, MetaEstimatorMixin, BaseEstimator):
    """TAO from several starts, the best kept: use the classifier or the regressor.

    A subclass names the starts it knows (``_known_starts``) and its TAO
    estimator (``_tao_class``); everything else is shared.
    """

    #: the start names the estimator accepts, in their default order.
    _known_starts: ClassVar[tuple] = ()
    #: the TAO estimator of every fit.
    _tao_class: ClassVar[type] = None

    _parameter_constraints: ClassVar[dict] = {
        "max_depth": [Interval(Integral, 1, None, closed="left")],
        "starts": ["array-like"],
        "alpha": [Interval(Real, 0.0, None, closed="left")],
        "feature_cost": [Interval(Real, 0.0, None, closed="neither")],
        "pair_features": [None, Interval(Integral, 2, None, closed="left")],
        "cv": [None, Interval(Integral, 2, None, closed="left"), "cv_object"],
        "n_jobs": [None, Integral],
        "random_state": [None, Integral],
        "verbose": [Interval(Integral, 0, None, closed="left")],
        # resolved against X by the TAO fits (bivtree.constraints)
        "monotonic_cst": BaseBivariateTree._parameter_constraints["monotonic_cst"],
        "interaction_cst": BaseBivariateTree._parameter_constraints["interaction_cst"],
    }

    def __init__(self, max_depth, *, starts, alpha, feature_cost, pair_features, cv, n_jobs,
                 random_state, verbose, monotonic_cst, interaction_cst):
        self.max_depth = max_depth
        self.starts = starts
        self.alpha = alpha
        self.feature_cost = feature_cost
        self.pair_features = pair_features
        self.cv = cv
        self.n_jobs = n_jobs
        self.random_state = random_state
        self.verbose = verbose
        self.monotonic_cst = monotonic_cst
        self.interaction_cst = interaction_cst

    def _checked_starts(self):
        known = self._known_starts
        starts = list(self.starts)  # a plain str is refused by the parameter check
        unknown = [s for s in starts if not isinstance(s, str) or s not in known]
        if not starts or unknown:
            raise ValueError(f"starts must be a non-empty list of {list(known)}, got "
                             f"{self.starts!r}")
        if len(set(starts)) != len(starts):
            raise ValueError(f"starts lists a start twice: {self.starts!r}")
        return starts

    def _tao(self, init):
        est = self._tao_class(max_depth=self.max_depth, alpha=self.alpha,
                              feature_cost=self.feature_cost, init=init, n_jobs=self.n_jobs,
                              random_state=self.random_state, verbose=max(0, self.verbose - 1),
                              monotonic_cst=self.monotonic_cst,
                              interaction_cst=self.interaction_cst)
        est._pair_features = self.pair_features  # the selectors' screening, not a TAO parameter
        return est

    def _initial_trees(self, starts, numeric):
        """``[(name, init)]``: each start as TAO's ``init`` (an estimator or a tree).

        ``numeric`` is ``(X, y, sample_weight)`` validated, for the optimal
        univariate start; None when ``X`` has categorical columns, which its
        thresholds cannot test, or under monotonic constraints, which its search
        cannot keep (that start is then left out).
        """
        regression = not is_classifier(self)
        inits = []
        for name in starts:
            if name != "optimal-univariate":
                inits.append((name, _greedy_start(name, self.max_depth, self.n_jobs,
                                                  self.random_state, regression)))
            elif numeric is not None:
                inits.append((name, _optimal_univariate_start(*numeric, self.max_depth)))
        return inits

    def _checked_data(self, X, y, sample_weight):
        """``(numeric, monotone)``: ``(X, y, sample_weight)`` validated as TAO validates
        them (bad input, constraints included, is named before any fit), None when the
        optimal univariate start cannot search them (categorical columns, monotonic
        constraints); whether a monotonic constraint is nonzero."""
        probe = self._tao_class(max_depth=1, monotonic_cst=self.monotonic_cst,
                                interaction_cst=self.interaction_cst)
        numeric = probe._validate_fit_data(X, y, sample_weight)
        n_classes = (probe._encode_classes(numeric[1], numeric[2])[0].shape[0]
                     if is_classifier(self) else 1)
        probe._resolve_constraints(numeric[0].shape[1], n_classes)
        monotone = probe.monotonic_cst_ is not None and bool(np.any(probe.monotonic_cst_ != 0))
        if monotone or probe.is_categorical_ is not None and np.any(probe.is_categorical_):
            numeric = None
        return numeric, monotone

    def fit(self, X, y, sample_weight=None):
        """Fit TAO from every start and keep the best (see the class).

        Parameters
        ----------
        X : array-like or DataFrame of shape (n_samples, n_features)
            As for :class:`~bivtree.BivariateTreeClassifier` (NaN: missing).
        y : array-like of shape (n_samples,)
            Class labels, or finite numeric targets for the regressor.
        sample_weight : array-like of shape (n_samples,), default=None

        Returns
        -------
        self
        """
        start = time.perf_counter()
        check_params(type(self).__name__, self.get_params(deep=False),
                     self._parameter_constraints)
        starts = self._checked_starts()
        numeric, monotone = self._checked_data(X, y, sample_weight)
        inits = self._initial_trees(starts, numeric)
        if not inits:
            why = "monotonic_cst" if monotone else "X's categorical columns"
            raise ValueError(f"starts lists only 'optimal-univariate', which is left out with "
                             f"{why}; add a greedy start (e.g. 'bivariate')")
        names = [name for name, _ in inits]
        if self.cv is None:
            best = self._tao([init for _, init in inits]).fit(X, y, sample_weight=sample_weight)
            self.start_objectives_ = best.init_objectives_
            index = best.init_index_
        else:
            index = self._cross_validate(names, numeric, X, y, sample_weight)
            best = self._tao(inits[index][1]).fit(X, y, sample_weight=sample_weight)
            self.start_objectives_ = None
        self.best_estimator_ = best
        self.best_index_ = int(starts.index(names[index]))
        self.best_params_ = {"start": names[index]}
        if is_classifier(self):
            self.classes_ = best.classes_
        self.n_features_in_ = best.n_features_in_
        if hasattr(best, "feature_names_in_"):
            self.feature_names_in_ = best.feature_names_in_
        self.fit_time_ = time.perf_counter() - start
        return self

    def _splits(self, y):
        """The inner folds: an int gives that many shuffled folds, stratified for a
        classifier, seeded by ``random_state``; a splitter or an iterable is used as given."""
        if isinstance(self.cv, Integral):
            stratified = is_classifier(self) and type_of_target(y) in ("binary", "multiclass")
            folds = (StratifiedKFold if stratified else KFold)(
                int(self.cv), shuffle=True, random_state=self.random_state)
        else:
            folds = check_cv(self.cv, y, classifier=is_classifier(self))
        splits = list(folds.split(np.zeros(len(y)), y))
        if not splits:
            raise ValueError("cv yields no split")
        return splits

    def _cross_validate(self, names, numeric, X, y, sample_weight):
        """Fill ``cv_results_``; the position (in ``names``) of the best start."""
        splits = self._splits(y)
        y = np.asarray(y)
        take = _safe_indexing  # rows of an array, a DataFrame or a sparse matrix
        scores = np.zeros((len(names), len(splits)))
        leaves = np.zeros((len(names), len(splits)))
        times = np.zeros((len(names), len(splits)))
        for k, (train, test) in enumerate(splits):
            weights = None if sample_weight is None else np.asarray(sample_weight)[train]
            inits = dict(self._initial_trees(
                names, None if numeric is None else tuple(a[train] for a in numeric)))
            for i, name in enumerate(names):
                t0 = time.perf_counter()
                est = self._tao(inits[name]).fit(take(X, train), y[train], sample_weight=weights)
                times[i, k] = time.perf_counter() - t0
                test_weights = None if sample_weight is None else np.asarray(sample_weight)[test]
                scores[i, k] = est.score(take(X, test), y[test], sample_weight=test_weights)
                leaves[i, k] = est.get_n_leaves()
            if self.verbose:
                print(f"[ShallowTree] fold {k + 1} of {len(splits)}: "
                      + ", ".join(f"{n} {s:.4f}" for n, s in zip(names, scores[:, k])),
                      flush=True)
        mean = scores.mean(axis=1)
        order = sorted(range(len(names)), key=lambda i: (-mean[i], leaves[i].mean(), i))
        rank = np.empty(len(names), dtype=np.int64)
        rank[order] = np.arange(1, len(names) + 1)
        self.cv_results_ = {
            "params": [{"start": n} for n in names],
            "param_start": np.asarray(names, dtype=object),
            **{f"split{k}_test_score": scores[:, k] for k in range(len(splits))},
            "mean_test_score": mean,
            "std_test_score": scores.std(axis=1),
            "rank_test_score": rank,
            "mean_n_leaves": leaves.mean(axis=1),
            "mean_fit_time": times.mean(axis=1),
        }
        return order[0]

    def __sklearn_tags__(self):
        tags = super().__sklearn_tags__()
        tags.input_tags.allow_nan = True  # every node learns the side of missing values
        tags.input_tags.sparse = True  # densified by the TAO estimators' data check
        return tags

    def apply(self, X):
        """Leaf ids of the chosen tree."""
        return self._chosen().apply(X)

    def decision_path(self, X):
        """Decision path of the chosen tree."""
        return self._chosen().decision_path(X)


def _shared_parameters(loss, selector, folds, score):
    """The parameters documented alike by both estimators, from ``alpha`` to ``verbose``."""
    return f"""
    alpha : float, default=0.0
        TAO's node penalty (mean loss + ``alpha`` per univariate node,
        ``feature_cost * alpha`` per bivariate one): 0 keeps every node that
        lowers the training {loss}.
    feature_cost : float, default=1.25
        TAO's cost of a bivariate node relative to a univariate one.
    pair_features : int or None, default=8
        TAO's bivariate search at a node covers the pairs of the
        ``pair_features`` features of least univariate loss on the node's
        problem (as :class:`~bivtree.{selector}`); None searches every
        pair: with 20 features, 190 pairs instead of 28, about 3 times the time.
    cv : None, int or cross-validation generator, default=None
        ``None``: keep the TAO tree of least training objective (fastest);
        an int ``k``: choose the start by {folds} ``k``-fold inner
        cross-validation (shuffled, seeded by ``random_state``; {score} on the
        held-out fold), then refit it on all the data; a splitter or an
        iterable of splits is used as given.
    n_jobs : int, default=None
        Threads of each fit (joblib's meaning); results do not depend on it.
    random_state : int or None, default=0
        Seeds the inner folds and the greedy trees' draws.
    verbose : int, default=0"""


_SHARED_ATTRIBUTES = """
    best_params_ : dict
        ``{"start": name}`` of the chosen tree.
    best_index_ : int
        Its position in ``starts``.
    start_objectives_ : ndarray of shape (n_starts,)
        The training objective TAO reached from each start (on all the data).
    cv_results_ : dict of ndarrays
        ``cv`` given only: ``params``, ``param_start``, ``split<k>_test_score``,
        ``mean_test_score``, ``std_test_score``, ``rank_test_score``,
        ``mean_n_leaves`` and ``mean_fit_time`` per start, as scikit-learn's
        searches write them."""
_CLASSIFIER_PARAMETERS = _shared_parameters("error", "TAOTreeClassifierCV", "stratified",
                                            "accuracy")
_REGRESSOR_PARAMETERS = _shared_parameters(
    "squared error (``alpha`` is in units\n        of the mean squared error)",
    "TAOTreeRegressorCV", "a", "R^2")


class ShallowTreeClassifier(ClassifierMixin, BaseShallowTree):
    __doc__ = f"""The most accurate bivariate tree of at most ``max_depth`` levels bivtree finds.

    TAO from several initial trees (greedy bivariate and univariate, Gini and
    entropy, the optimal univariate tree), the best kept by training objective
    or by inner cross-validation; see :mod:`bivtree.shallow`.

    Parameters
    ----------
    max_depth : int, default=3
        Most levels of decision nodes (3: at most 8 leaves).
    starts : sequence of str, default=STARTS
        Initial trees, from :data:`STARTS`. ``"optimal-univariate"`` is left
        out (with no message) when ``X`` has categorical columns, which its
        thresholds cannot test.{_CLASSIFIER_PARAMETERS}
    monotonic_cst : array-like of int of shape (n_features,), dict or None, default=None
        Monotonicity constraint of each feature (binary classification: the
        probability of ``classes_[1]``), as for :class:`~bivtree.TAOTreeClassifier`:
        the greedy starts are grown and TAO runs under it, and the returned
        tree is monotone in each constrained feature. The ``"optimal-univariate"``
        start is left out under a nonzero constraint (see :mod:`bivtree.shallow`).
    interaction_cst : list of lists of int or str, "pairwise", "no_interactions" or \
None, default=None
        Groups of features that may share a node test (scikit-learn's
        HistGradientBoosting groups), as for :class:`~bivtree.TAOTreeClassifier`.

    Attributes
    ----------
    best_estimator_ : TAOTreeClassifier
        The chosen tree, fitted on all the data; every view and export of
        bivtree reads it (``export_text(clf)``, ``plot_tree(clf)``...).{_SHARED_ATTRIBUTES}
    classes_ : ndarray of shape (n_classes,)
    n_features_in_ : int
    fit_time_ : float
        Seconds of the whole fit.

    See Also
    --------
    ShallowTreeRegressor : the same search for regression.

    Examples
    --------
    >>> from sklearn.datasets import load_iris
    >>> from bivtree import ShallowTreeClassifier
    >>> X, y = load_iris(return_X_y=True)
    >>> clf = ShallowTreeClassifier(max_depth=2).fit(X, y)
    >>> clf.get_depth() <= 2, bool(clf.score(X, y) > 0.9)
    (True, True)
    """

    _known_starts = STARTS
    _tao_class = TAOTreeClassifier

    def __init__(self, max_depth=3, *, starts=STARTS, alpha=0.0, feature_cost=1.25,
                 pair_features=8, cv=None, n_jobs=None, random_state=0, verbose=0,
                 monotonic_cst=None, interaction_cst=None):
        super().__init__(max_depth, starts=starts, alpha=alpha, feature_cost=feature_cost,
                         pair_features=pair_features, cv=cv, n_jobs=n_jobs,
                         random_state=random_state, verbose=verbose,
                         monotonic_cst=monotonic_cst, interaction_cst=interaction_cst)

    def predict_proba(self, X):
        """Class probabilities of the chosen tree."""
        return self._chosen().predict_proba(X)


class ShallowTreeRegressor(RegressorMixin, BaseShallowTree):
    __doc__ = f"""The most accurate bivariate regression tree of at most ``max_depth`` levels.

    :class:`ShallowTreeClassifier`'s search with the squared error: TAO
    (:class:`~bivtree.TAOTreeRegressor`) from the greedy bivariate and
    univariate regression trees, the best kept by training objective or by
    inner cross-validation (R^2); see :mod:`bivtree.shallow`. There is no
    optimal univariate start: :func:`~bivtree.optimal_univariate.optimal_univariate_tree`
    fits classification trees only.

    Parameters
    ----------
    max_depth : int, default=3
        Most levels of decision nodes (3: at most 8 leaves).
    starts : sequence of str, default=REGRESSION_STARTS
        Initial trees, from :data:`REGRESSION_STARTS`: the greedy bivariate
        tree (the default search) and the greedy univariate tree, both grown
        under the squared error.{_REGRESSOR_PARAMETERS}
    monotonic_cst : array-like of int of shape (n_features,), dict or None, default=None
        Monotonicity constraint of each feature (on the predicted value), as
        for :class:`~bivtree.TAOTreeRegressor`: the greedy starts are grown and
        TAO runs under it, and the returned tree is monotone in each
        constrained feature.
    interaction_cst : list of lists of int or str, "pairwise", "no_interactions" or \
None, default=None
        Groups of features that may share a node test (scikit-learn's
        HistGradientBoosting groups), as for :class:`~bivtree.TAOTreeRegressor`.

    Attributes
    ----------
    best_estimator_ : TAOTreeRegressor
        The chosen tree, fitted on all the data; every view and export of
        bivtree reads it (``export_text(reg)``, ``plot_tree(reg)``...).{_SHARED_ATTRIBUTES}
    n_features_in_ : int
    fit_time_ : float
        Seconds of the whole fit.

    See Also
    --------
    ShallowTreeClassifier : the same search for classification.

    Examples
    --------
    >>> from sklearn.datasets import load_diabetes
    >>> from bivtree import ShallowTreeRegressor
    >>> X, y = load_diabetes(return_X_y=True)
    >>> reg = ShallowTreeRegressor(max_depth=2).fit(X, y)
    >>> reg.get_depth() <= 2, reg.get_n_leaves() <= 4
    (True, True)
    >>> reg.best_params_["start"] in ("bivariate", "univariate")
    True
    """

    _known_starts = REGRESSION_STARTS
    _tao_class = TAOTreeRegressor

    def __init__(self, max_depth=3, *, starts=REGRESSION_STARTS, alpha=0.0, feature_cost=1.25,
                 pair_features=8, cv=None, n_jobs=None, random_state=0, verbose=0,
                 monotonic_cst=None, interaction_cst=None):
        super().__init__(max_depth, starts=starts, alpha=alpha, feature_cost=feature_cost,
                         pair_features=pair_features, cv=cv, n_jobs=n_jobs,
                         random_state=random_state, verbose=verbose,
                         monotonic_cst=monotonic_cst, interaction_cst=interaction_cst)
