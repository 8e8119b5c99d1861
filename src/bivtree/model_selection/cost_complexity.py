"""A tree pruned by minimal cost-complexity pruning, ``ccp_alpha`` chosen on held-out data.

:class:`CostComplexityCV` wraps any tree estimator with a ``ccp_alpha``
parameter (bivtree's and scikit-learn's). It follows Breiman et al.'s CART
procedure (1984, ch. 3.4):

1. grow the full tree on all the data and take its pruning path
   ``0 = a_0 < a_1 < ... < a_m``; the subtree for ``a_k`` is kept for every
   alpha in ``[a_k, a_{k+1})``, so ``sqrt(a_k * a_{k+1})`` represents it;
2. on every cross-validation split, grow a full tree on the training part,
   prune it at each representative alpha and score it on the held-out part;
3. keep the alpha with the best mean score (largest alpha on ties, i.e. the
   smallest tree), or with ``rule="1se"`` the largest alpha whose mean score
   is within one standard error of the best;
4. prune the full tree of step 1 at that alpha.

With a single split (a hold-out validation set, as in the KDD 2024 protocol,
e.g. ``cv=PredefinedSplit(...)``) and ``refit="auto"``, the tree grown on the
training part is pruned at every alpha of its own path, scored on the
validation part, and the best pruned tree is kept: nothing is refitted on the
validation rows.

For bivtree trees the pruned candidates come from
:func:`bivtree.pruning.prune_tree` on one grown tree (no regrowth); for other
estimators each candidate is refitted with ``ccp_alpha`` set.
"""

import copy
from typing import ClassVar

import numpy as np
from sklearn.base import BaseEstimator, MetaEstimatorMixin, clone, is_classifier
from sklearn.metrics import check_scoring
from sklearn.model_selection import KFold, StratifiedKFold, check_cv
from sklearn.utils import _safe_indexing
from sklearn.utils.class_weight import compute_sample_weight
from sklearn.utils.validation import _check_sample_weight

from .._validation import InstanceOf, Integral, Interval, check_params
from ..estimators import BaseBivariateTree, ChosenTreeDelegation, _check_missing_targets
from ..pruning import cost_complexity_pruning_path, prune_tree

__all__ = ["CostComplexityCV"]


def _is_bivtree(estimator):
    return isinstance(estimator, BaseBivariateTree)


def _fit(estimator, X, y, sample_weight):
    if sample_weight is None:
        return estimator.fit(X, y)
    return estimator.fit(X, y, sample_weight=sample_weight)


def _path_alphas(fitted, X, y, sample_weight):
    """Distinct non-negative alphas of the pruning path of a fitted, unpruned tree."""
    if _is_bivtree(fitted):
        alphas = cost_complexity_pruning_path(fitted.tree_).ccp_alphas
    else:
        kwargs = {} if sample_weight is None else {"sample_weight": sample_weight}
        alphas = fitted.cost_complexity_pruning_path(X, y, **kwargs).ccp_alphas
    # rounding can leave a zero-gain split's alpha a hair below 0 (see prune_tree)
    return np.unique(np.maximum(alphas, 0.0))


def _thin(alphas, max_candidates):
    """At most ``max_candidates`` alphas, evenly spaced along the path, ends kept."""
    if max_candidates is None or alphas.size <= max_candidates:
        return alphas
    keep = np.unique(np.round(np.linspace(0, alphas.size - 1, max_candidates)).astype(int))
    return alphas[keep]


def _pruned(fitted, alpha, X, y, sample_weight):
    """``fitted`` (an unpruned tree, fitted on ``X, y``) pruned at ``alpha``, as an estimator.

    bivtree: a shallow copy sharing everything but ``tree_`` (what ``fit`` with
    ``ccp_alpha=alpha`` would build, since fit grows the same tree and then
    calls ``prune_tree``). Other estimators are refitted with ``ccp_alpha``.
    """
    if _is_bivtree(fitted):
        pruned = copy.copy(fitted)
        pruned.tree_ = prune_tree(fitted.tree_, alpha)
        pruned.ccp_alpha = float(alpha)
        return pruned
    return _fit(clone(fitted).set_params(ccp_alpha=float(alpha)), X, y, sample_weight)


def _finish_bivtree(pruned, X, y, sample_weight):
    """Recompute what ``fit`` derives from the final tree (feature importances)."""
    if not _is_bivtree(pruned):
        return pruned
    Xv = np.asfortranarray(pruned._validate_X_predict(X))
    weight = _check_sample_weight(sample_weight, Xv, dtype=np.float64)
    if is_classifier(pruned) and getattr(pruned, "class_weight", None) is not None:
        # as BivariateTreeClassifier.fit: class weights multiply the sample weights
        weight = weight * compute_sample_weight(pruned.class_weight, np.asarray(y))
    pruned.feature_importances_ = pruned._feature_importances(Xv, weight)
    return pruned


class CostComplexityCV(ChosenTreeDelegation, MetaEstimatorMixin, BaseEstimator):
    """Tree pruned by minimal cost-complexity pruning with ``ccp_alpha`` chosen by validation.

    Parameters
    ----------
    estimator : estimator with a ``ccp_alpha`` parameter
        The tree to grow and prune, e.g. ``BivariateTreeClassifier()`` or
        ``sklearn.tree.DecisionTreeClassifier(random_state=0)``. Its own
        ``ccp_alpha`` is ignored.
    cv : int, cross-validation generator or iterable, default=5
        An int gives that many shuffled folds, stratified for classifiers,
        seeded by ``random_state`` (unshuffled folds of data sorted by some
        feature or by class would validate on regions the training part never
        saw); anything else is used as in scikit-learn.
    rule : {"best", "1se"}, default="best"
        ``"best"``: the alpha with the best mean validation score;
        ``"1se"``: the largest alpha within one standard error of it
        (Breiman et al.'s 1-SE rule, used by Bioch et al.).
    refit : {"auto", True, False}, default="auto"
        ``True``: prune the tree grown on all the data at the chosen alpha
        (CART). ``False`` (only with a single split): keep the tree grown on
        the split's training part, pruned at the chosen alpha (hold-out
        validation). ``"auto"``: ``False`` for a single split, else ``True``.
    scoring : str, callable or None, default=None
        Validation score, higher is better; ``None`` uses the estimator's
        ``score`` (accuracy or R^2).
    max_candidates : int or None, default=100
        Most alphas evaluated, evenly spaced along the path (its ends kept);
        ``None`` evaluates every subtree of the path.
    random_state : int, default=0
        Seed of the fold shuffling when ``cv`` is an int.

    Attributes
    ----------
    best_estimator_ : estimator
        The pruned tree; prediction delegates to it.
    ccp_alpha_ : float
        The chosen alpha.
    cv_results_ : dict
        ``ccp_alphas`` (the candidates), ``mean_score``, ``std_score`` and
        ``split_scores`` (n_candidates, n_splits).
    unpruned_n_leaves_ : int
        Leaves of the grown tree before pruning.
    classes_ : ndarray
        Classifiers only.
    n_features_in_ : int
    """

    _parameter_constraints: ClassVar[dict] = {
        "estimator": [InstanceOf(BaseEstimator, "a scikit-learn estimator")],
        "cv": [Interval(Integral, 2, None, closed="left"), "cv_object"],
        "rule": [{"best", "1se"}],
        "refit": [{"auto"}, "boolean"],
        "scoring": [None, InstanceOf(str, "a string"), callable],
        "max_candidates": [None, Interval(Integral, 2, None, closed="left")],
        "random_state": [None, Interval(Integral, 0, 2**32 - 1, closed="both"),
                         InstanceOf(np.random.RandomState)],
    }

    def __init__(self, estimator, *, cv=5, rule="best", refit="auto", scoring=None,
                 max_candidates=100, random_state=0):
        self.estimator = estimator
        self.cv = cv
        self.rule = rule
        self.refit = refit
        self.scoring = scoring
        self.max_candidates = max_candidates
        self.random_state = random_state

    def _check_params(self):
        check_params(type(self).__name__, self.get_params(deep=False),
                     self._parameter_constraints)
        if "ccp_alpha" not in self.estimator.get_params(deep=False):
            raise ValueError(f"estimator {type(self.estimator).__name__} has no ccp_alpha "
                             "parameter; CostComplexityCV needs a cost-complexity prunable tree")

    def fit(self, X, y, sample_weight=None):
        """Grow, cross-validate the pruning path, and keep the best pruned tree.

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
        self._check_params()
        _check_missing_targets(y)  # before the folds, which cannot sort missing labels
        base = clone(self.estimator).set_params(ccp_alpha=0.0)
        if isinstance(self.cv, Integral):
            folds = StratifiedKFold if is_classifier(base) else KFold
            cv = folds(int(self.cv), shuffle=True, random_state=self.random_state)
        else:
            cv = check_cv(self.cv, y, classifier=is_classifier(base))
        splits = list(cv.split(X, y))
        if not splits:
            raise ValueError("cv yields no split")
        refit = len(splits) > 1 if self.refit == "auto" else self.refit
        if not refit and len(splits) != 1:
            raise ValueError(f"refit=False keeps the tree of a single split, but cv yields "
                             f"{len(splits)} splits")
        scorer = check_scoring(base, scoring=self.scoring)
        sw = None if sample_weight is None else np.asarray(sample_weight, dtype=np.float64)

        def part(rows):
            return (_safe_indexing(X, rows), _safe_indexing(y, rows),
                    None if sw is None else sw[rows])

        full = None
        if refit:
            full = _fit(clone(base), X, y, sw)
            path = _path_alphas(full, X, y, sw)
            # representative alpha of each subtree of the path (CART's geometric means)
            candidates = np.append(np.sqrt(path[:-1] * path[1:]), path[-1])
        scores, grown = [], []
        for train, val in splits:
            Xt, yt, wt = part(train)
            Xv, yv, _ = part(val)
            tree = _fit(clone(base), Xt, yt, wt)
            if not refit:
                candidates = _path_alphas(tree, Xt, yt, wt)
            grown.append((tree, Xt, yt, wt))
            scores.append([scorer(_pruned(tree, a, Xt, yt, wt), Xv, yv)
                           for a in _thin(candidates, self.max_candidates)])
        candidates = _thin(candidates, self.max_candidates)
        split_scores = np.asarray(scores, dtype=np.float64).T  # (n_candidates, n_splits)
        mean = split_scores.mean(axis=1)
        std = split_scores.std(axis=1)
        best = np.flatnonzero(mean == mean.max()).max()  # ties: largest alpha
        if self.rule == "1se":
            se = std[best] / np.sqrt(split_scores.shape[1])
            best = np.flatnonzero(mean >= mean[best] - se).max()
        alpha = float(candidates[best])

        if refit:
            source, Xs, ys, ws = full, X, y, sw
        else:
            source, Xs, ys, ws = grown[0]
        self.best_estimator_ = _finish_bivtree(_pruned(source, alpha, Xs, ys, ws), Xs, ys, ws)
        self.ccp_alpha_ = alpha
        self.unpruned_n_leaves_ = int(source.get_n_leaves())
        self.cv_results_ = {"ccp_alphas": candidates, "mean_score": mean, "std_score": std,
                            "split_scores": split_scores}
        self.n_features_in_ = self.best_estimator_.n_features_in_
        if hasattr(self.best_estimator_, "feature_names_in_"):
            self.feature_names_in_ = self.best_estimator_.feature_names_in_
        if hasattr(self.best_estimator_, "classes_"):
            self.classes_ = self.best_estimator_.classes_
        return self

    # -------------------------------------------------------------- delegation
    def predict_proba(self, X):
        """Class probabilities of the pruned tree (classifiers)."""
        return self._chosen().predict_proba(X)

    def __sklearn_tags__(self):
        tags = super().__sklearn_tags__()
        base = self.estimator.__sklearn_tags__()
        tags.estimator_type = base.estimator_type
        tags.classifier_tags = base.classifier_tags
        tags.regressor_tags = base.regressor_tags
        tags.input_tags = base.input_tags
        tags.target_tags = base.target_tags
        return tags
