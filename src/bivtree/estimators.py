"""scikit-learn estimators: :class:`BivariateTreeClassifier` and :class:`BivariateTreeRegressor`.

The estimator layer validates everything once (shapes, NaN, labels, weights,
parameters) and hands the numba kernels contiguous float64 / int64 arrays, so
bad input fails here with a message that names the problem, never inside
compiled code.
"""

import numbers
import time
from collections.abc import Mapping
from typing import ClassVar

import numpy as np
from sklearn.base import BaseEstimator, ClassifierMixin, RegressorMixin
from sklearn.utils import check_random_state
from sklearn.utils.class_weight import compute_sample_weight
from sklearn.utils.multiclass import check_classification_targets
from sklearn.utils.validation import (
    _check_feature_names,
    _check_sample_weight,
    check_is_fitted,
    validate_data,
)

from ._compile_notice import notice_once
from ._config import CLASSIFICATION_CRITERIA, DTYPE, ITYPE, LTYPE, REGRESSION_CRITERIA
from ._tabular import MAX_CODES, check_column_names, encode_fit, encode_predict
from ._threads import numba_threads
from ._validation import (
    InstanceOf,
    Integral,
    Interval,
    Options,
    Real,
    RealNotInt,
    check_limits,
    check_params,
    reject_unknown,
)
from .constraints import (
    INTERACTION_STRINGS,
    MonotoneGrowth,
    resolve_interaction_cst,
    resolve_monotonic_cst,
    split_constraints,
)
from .growing import TreeGrower
from .persistence import load_model, register_model, save_model
from .pruning import cost_complexity_pruning_path, prune_tree
from .splitters import SPLITTERS, SplitData, get_splitter
from .splitters._categorical import WithCategories
from .tree import merge_equal_leaves

#: default largest number of feature pairs a pair-searching splitter may examine per node.
DEFAULT_MAX_PAIRS = 20_000

#: parameters (of the estimators or in ``splitter_options``) that size an
#: allocation, name -> (largest value, advice), checked before anything is
#: allocated. Each direction of ``n_orientations`` is stored and scanned on
#: every feature pair of every node, so 10**5 of them already cost far more
#: time than the exact search; the per-pair arrays of a pair search (indices,
#: proxies, directions) are sized by the number of pairs, at most ``max_pairs``.
RESOURCE_LIMITS = {
    "n_orientations": (100_000, ("every direction is scanned on every feature pair of every "
                                 "node; for an exact search over all directions use "
                                 "splitter='optimal'")),
    "max_pairs": (10_000_000, ("the per-pair search arrays would not fit in memory; draw "
                               "fewer features per node with max_features (e.g. 'sqrt') or "
                               "select features first")),
}

#: nonzero feature values must lie in this range of magnitudes. The kernels
#: square features and their differences (LDA's scatter matrices, variances
#: for importances), multiply them by weights up to ``WEIGHT_RANGE[1]`` and by
#: the ratios of feature spreads that make up a bivariate rule's weight, and
#: divide by node spreads and interquartile ranges (the optimal splitter's
#: normalization); 1e+100 keeps squares summed over 10**10 weighted samples
#: far below the largest double (1.8e+308), and 1e-100 keeps reciprocals and
#: squares of differences far above the smallest normal double (2.2e-308).
X_MAGNITUDE_RANGE = (1e-100, 1e100)

#: the largest magnitude of the regression targets must lie in this range
#: (or be 0): squared error sums ``w * y**2`` and squares ``(sum w * y)**2``
#: over up to 10**10 samples stay finite and away from underflow.
TARGET_MAGNITUDE_RANGE = (1e-100, 1e100)

#: the largest sample weight (after ``class_weight``) the kernels use as is.
#: Gini sums squared class weights and the squared error squares weighted
#: target sums, so weights far from 1 overflow or underflow; and the optimal
#: splitter's branch and bound compares impurities with an absolute tolerance
#: (1e-12) below 1, which decides ties differently once the total weight
#: nears it. Outside this range the weights are scaled by an exact power of
#: two (see :func:`_rescale_weights`). Ordinary weights, including weights
#: normalized to sum 1 over up to 2**32 samples, are inside it and are used
#: unchanged.
WEIGHT_RANGE = (2.0 ** -32, 2.0 ** 64)


def _writable(X, order="C"):
    """float64 array in ``order``, copied when read-only so kernels compile once."""
    X = np.asarray(X, dtype=DTYPE, order=order)
    if not X.flags.writeable:
        X = X.copy(order=order)
    return X


def _check_numeric_frame(X, estimator=None):
    """Name the non-numeric columns of a DataFrame instead of failing on a cast."""
    dtypes = getattr(X, "dtypes", None)
    if dtypes is None or not hasattr(dtypes, "items") or not hasattr(X, "iloc"):
        return
    from pandas.api.types import is_bool_dtype, is_numeric_dtype

    bad = [str(col) for col, dt in dtypes.items()
           if not (is_numeric_dtype(dt) or is_bool_dtype(dt))]
    if bad:
        # dates and durations are numbers to a tree once converted; categories they are not
        times = [str(col) for col, dt in dtypes.items() if dt.kind in "mM"]
        advice = []
        if times:
            advice.append(f"convert the date or duration column(s) {times} to numbers (e.g. "
                          "days since a date: (X[col] - X[col].min()).dt.days)")
        if len(times) < len(bad):
            them = "the others" if times else "them"
            advice.append(
                (f"declare {them} categorical (categorical_features='from_dtype' or their "
                 f"names) or encode {them} " if "categorical_features" in getattr(
                     estimator, "_parameter_constraints", {}) else f"encode {them} ")
                + "first (e.g. sklearn.preprocessing.OneHotEncoder or OrdinalEncoder)")
        raise ValueError(f"X has non-numeric column(s) {bad}: bivariate splits need numbers; "
                         + "; ".join(advice))


def _check_numeric_targets(y):
    """A regressor's targets must be numbers: name the first value that is not one.

    Numeric strings (``"1.5"``) pass, as scikit-learn converts them; a missing or
    malformed ``y`` is left to scikit-learn's own checks.
    """
    if y is None:
        return
    y = np.asarray(y)
    if y.ndim != 1 or y.dtype.kind not in "OUS":
        return
    for value in y.ravel():
        try:
            float(value)
        except (TypeError, ValueError):
            shown = value.item() if isinstance(value, np.generic) else value
            raise ValueError(
                f"y holds the non-numeric value {shown!r}: a regressor needs numeric targets "
                "(for class labels, use a classifier)") from None


def _positive_samples(sample_weight):
    """Indices of the samples of positive weight; a ValueError when there is none.

    The message is bivtree's own on every scikit-learn version (newer ones
    reject all-zero weights themselves, older ones do not).
    """
    positive = np.flatnonzero(sample_weight > 0)
    if positive.size == 0:
        raise ValueError("sample_weight has no non-zero entry (every sample weighs 0); "
                         "nothing to fit")
    return positive


def _check_label_types(y):
    """Refuse labels of mixed Python types (strings with None, strings with numbers).

    numpy cannot sort such labels into classes and fails with a comparison
    error that does not say which labels are at fault.
    """
    if y.dtype != object:
        return
    kinds = {"str" if isinstance(v, str) else "number" if isinstance(v, numbers.Number)
             else type(v).__name__ for v in y}
    if len(kinds) > 1:
        names = sorted({type(v).__name__ for v in y})
        raise ValueError(f"y mixes {' and '.join(names)} labels; class labels must be all "
                         "strings or all numbers: replace or drop missing labels (None) and "
                         "convert the labels to one type (e.g. y.astype(str))")


def _check_missing_targets(y):
    """Refuse NaN in ``y``, and pandas' missing values (``pd.NA``, ``None`` in a Series).

    scikit-learn's own checks fail on ``pd.NA`` with "boolean value of NA is
    ambiguous", which does not say what is wrong.
    """
    if y is None:
        return
    isna = getattr(y, "isna", None)  # a pandas Series or extension array
    if callable(isna):
        n_missing = int(np.count_nonzero(np.asarray(isna(), dtype=bool)))
    else:
        values = np.asarray(y)
        n_missing = int(np.count_nonzero(np.isnan(values))) if values.dtype.kind == "f" else 0
    if n_missing:
        raise ValueError(f"y contains NaN or other missing values ({n_missing} of them); "
                         "missing values are accepted in X only: drop those rows")


def _check_class_weight(class_weight):
    """Refuse class weights that are not finite non-negative numbers, and lists of dicts."""
    multi_output = isinstance(class_weight, list)
    if multi_output:
        raise ValueError("class_weight as a list of dicts is for multi-output y, which bivtree "
                         "does not fit; pass one dict of class -> weight or 'balanced'")
    if not isinstance(class_weight, Mapping):
        return
    for label, weight in class_weight.items():
        if (isinstance(weight, (bool, np.bool_)) or not isinstance(weight, numbers.Real)
                or not np.isfinite(weight) or weight < 0):
            raise ValueError(f"class_weight for class {label!r} must be a finite number "
                             f">= 0, got {weight!r}")


def _column_name(estimator, column):
    """``"column 2"``, or ``"column 2 ('age')"`` when X had column names."""
    names = getattr(estimator, "feature_names_in_", None)
    return f"column {column}" if names is None else f"column {column} ({names[column]!r})"


def _has_missing(X):
    """Whether ``X`` (float64) holds a missing value (NaN)."""
    # the sum is NaN iff some entry is (X holds no infinity): one cheap pass
    with np.errstate(over="ignore", invalid="ignore"):
        if not np.isnan(np.sum(X)):
            return False
    return bool(np.isnan(X).any())


def _check_feature_magnitudes(estimator, X):
    """Raise a ValueError naming the first column of ``X`` outside ``X_MAGNITUDE_RANGE``."""
    low, high = X_MAGNITUDE_RANGE
    magnitude = np.abs(X)
    largest = np.fmax.reduce(magnitude, axis=0)  # missing values (NaN) left out
    over = np.flatnonzero(largest > high)
    if over.size:
        c = int(over[0])
        raise ValueError(
            f"X {_column_name(estimator, c)} has values up to {largest[c]:.3g} in magnitude; "
            f"bivtree needs |x| <= {high:g} (its searches square and multiply feature "
            "values); rescale the column, e.g. with sklearn.preprocessing.StandardScaler")
    smallest = np.where(magnitude > 0, magnitude, np.inf).min(axis=0)
    under = np.flatnonzero(smallest < low)
    if under.size:
        c = int(under[0])
        raise ValueError(
            f"X {_column_name(estimator, c)} has nonzero values as small as "
            f"{smallest[c]:.3g} in magnitude; bivtree needs |x| >= {low:g} for nonzero x "
            "(its searches divide by and square differences of feature values); rescale "
            "the column (e.g. divide it by its largest magnitude) or set such values to 0")


def _check_target_magnitudes(targets):
    """Raise a ValueError when the largest |y| is outside ``TARGET_MAGNITUDE_RANGE``."""
    low, high = TARGET_MAGNITUDE_RANGE
    largest = float(np.abs(targets).max())
    if largest > high or 0.0 < largest < low:
        raise ValueError(
            f"y has values up to {largest:.3g} in magnitude; bivtree needs the largest |y| "
            f"between {low:g} and {high:g} (or all y = 0) because the squared error squares "
            "weighted sums of targets; rescale y (multiply it by a constant, e.g. with "
            "sklearn.compose.TransformedTargetRegressor)")


def _rescale_weights(sample_weight):
    """The weights the kernels use, and the power of two they were scaled by.

    Returns ``(weights, exponent)`` with ``weights = sample_weight * 2**-exponent``.
    ``exponent`` is 0 (and ``sample_weight`` returned as is) when the largest
    weight lies in ``WEIGHT_RANGE``; otherwise it brings the largest weight
    into ``[1, 2)``, so that weights ``c * 2**k`` of weights ``c`` in that
    range come back as exactly ``c``. A power of two scales every sum,
    square and ratio of weights exactly, so every comparison and tie of the
    search, and so the tree, are the same as on the given weights in exact
    arithmetic; only a weight below ``2**-1074`` times the largest one is
    lost (it was negligible).

    Raises
    ------
    ValueError
        When the weights sum to more than the largest double, so the root's
        weight could not be reported.
    """
    largest = float(sample_weight.max())
    exponent = 0
    if not WEIGHT_RANGE[0] <= largest <= WEIGHT_RANGE[1]:
        exponent = int(np.frexp(largest)[1]) - 1
        sample_weight = np.ldexp(sample_weight, -exponent)
    with np.errstate(over="ignore"):
        total = np.ldexp(sample_weight.sum(), exponent)
    if not np.isfinite(total):
        raise ValueError(
            f"sample_weight (times class_weight) sums to more than {np.finfo(DTYPE).max:.3g}, "
            "the largest float; divide the weights by a constant (only their ratios matter)")
    return np.ascontiguousarray(sample_weight, dtype=DTYPE), exponent


def _prepare_scales(estimator, X, targets, sample_weight):
    """Check the magnitudes of ``X`` and the targets; scale the weights into a safe range.

    The one place where the estimators make sure the kernels' arithmetic stays
    finite and exact: values they cannot handle are refused with a message
    saying what to rescale, weights far from 1 are scaled by a power of two
    (see :func:`_rescale_weights`).

    Parameters
    ----------
    estimator : FittedTreeMixin
        Names the columns of ``X`` in messages.
    X : ndarray of shape (n_samples, n_features)
    targets : ndarray of shape (n_samples,) or None
        The regression targets; ``None`` for a classifier.
    sample_weight : ndarray of shape (n_samples,)
        Finite, non-negative weights with class weights applied.

    Returns
    -------
    sample_weight : ndarray of float64
    exponent : int
        The weights were divided by ``2**exponent``; pass it to
        :func:`_report_in_user_units` once the tree is grown.
    """
    _check_feature_magnitudes(estimator, X)
    if targets is not None:
        _check_target_magnitudes(targets)
    return _rescale_weights(sample_weight)


def _report_in_user_units(tree, split_info, exponent, classifier):
    """Multiply what a tree stores in weight units back by ``2**exponent`` (exact).

    Node weights, a classifier's weighted class counts and the optimal
    splitter's lower bounds (``split_info``) scale with the weights; impurities,
    thresholds and a regressor's leaf means do not.
    """
    if exponent == 0:
        return
    tree.weighted_n_node_samples = np.ldexp(tree.weighted_n_node_samples, exponent)
    if classifier:
        tree.value = np.ldexp(tree.value, exponent)
    for info in split_info or ():
        if info and "lower_bound" in info:
            info["lower_bound"] = float(np.ldexp(info["lower_bound"], exponent))


def _align_split_info(grown, tree, info):
    """Per node of ``tree`` (``grown`` or a pruned subtree of it), the splitter's info dict.

    Pruning keeps the grown tree's preorder, so walking both trees together in
    preorder pairs each kept node with its original; leaves get ``None``.
    """
    out = [None] * tree.node_count
    stack = [(0, 0)]
    while stack:
        g, t = stack.pop()
        if tree.children_left[t] == -1:
            continue
        out[t] = info[g]
        stack.append((grown.children_right[g], tree.children_right[t]))
        stack.append((grown.children_left[g], tree.children_left[t]))
    return out


def tree_feature_importances(tree, node_spreads):
    """Total weighted impurity decrease per feature of ``tree``, normalised to sum 1.

    A bivariate node's decrease is shared between its features in proportion
    to how much each term of the rule varies over the node's training
    samples: ``|w_k| * std(x_k)`` (weighted). A term that barely moves the
    projection gets little credit, whatever the units of its feature. A
    univariate or categorical node (one used slot) credits its one feature.

    Parameters
    ----------
    tree : Tree
    node_spreads : callable
        Returns the weighted std of every node's features over its training
        samples, shape ``(node_count, n_slots)`` (:meth:`Tree.node_spreads`);
        called only when some node uses more than one feature.

    Returns
    -------
    ndarray of shape (n_features,)
    """
    importances = np.zeros(tree.n_features)
    internal = np.flatnonzero(~tree.is_leaf)
    if internal.size == 0:
        return importances
    wn, impurity = tree.weighted_n_node_samples, tree.impurity
    left, right = tree.children_left[internal], tree.children_right[internal]
    # a split never raises the weighted impurity (it is concave): a negative decrease
    # is rounding (e.g. sample weights of 1e300 beside 1e-300) and counts as none
    decrease = np.maximum(wn[internal] * impurity[internal] - wn[left] * impurity[left]
                          - wn[right] * impurity[right], 0.0)
    features = tree.features[internal]
    used = features >= 0
    n_used = used.sum(axis=1)
    share = used.astype(np.float64)  # one used slot: all of the decrease
    shared = np.flatnonzero(n_used > 1)
    if shared.size:  # the weighted std of every node's features, one pass over the rows
        spreads = node_spreads()
        spread = (np.abs(tree.weights[internal[shared]]) * spreads[internal[shared]]
                  * used[shared])
        total = spread.sum(axis=1, keepdims=True)
        even = used[shared] / n_used[shared, None]
        share[shared] = np.where(total > 0, spread / np.where(total > 0, total, 1.0), even)
    # row by row, slot by slot: the order in which the nodes add up per feature
    np.add.at(importances, features[used], (decrease[:, None] * share)[used])
    total = importances.sum()
    return importances / total if total > 0 else importances


class FittedTreeMixin:
    """What every bivtree estimator with a fitted ``tree_`` shares: input checks,
    feature importances, inspection and persistence."""

    #: parameter name -> allowed values (bivtree._validation), checked at fit.
    _parameter_constraints: ClassVar[dict] = {}

    # ----------------------------------------------------------- validation
    def _validate_params(self):
        """Check the constructor parameters against ``_parameter_constraints``.

        Parameters without an entry are left alone, so a subclass may add its
        own without writing a table (scikit-learn does the same).
        """
        params = self.get_params(deep=False)
        table = self._parameter_constraints
        check_params(type(self).__name__, {k: v for k, v in params.items() if k in table},
                     table)
        check_limits(params, RESOURCE_LIMITS)

    def _validate_X_predict(self, X):
        check_is_fitted(self, "tree_")
        check_column_names(X)
        if hasattr(X, "columns") and hasattr(self, "feature_names_in_"):
            # the columns by name first: the categorical ones are found by position, so a
            # frame with other, extra or reordered columns would be misread before
            # validate_data could say so
            _check_feature_names(self, X, reset=False)
        X = encode_predict(self, X)
        _check_numeric_frame(X, self)
        with np.errstate(over="ignore", invalid="ignore"):  # as in _validate_fit_data
            # NaN is a missing value: every decision node has a side for it
            X = validate_data(self, X, reset=False, dtype=DTYPE, ensure_all_finite="allow-nan")
        if not self._accepts_missing() and _has_missing(X):
            raise ValueError(self._missing_refused())
        return _writable(X)

    def _missing_refused(self):
        """The message refusing NaN in X, for an estimator that does not accept it."""
        return (f"{type(self).__name__} does not accept missing values (NaN in X); use "
                "BivariateTreeClassifier / BivariateTreeRegressor with a splitter that learns "
                "a side for them at every node, or impute X first (e.g. "
                "sklearn.impute.SimpleImputer)")

    def _validate_fit_data(self, X, y, sample_weight):
        # parameters first: they are cheap to check and explain more than a data error
        self._validate_params()
        # scikit-learn's message for several outputs, before the generic one about y's shape
        if getattr(self, "monotonic_cst", None) is not None and np.ndim(y) == 2 and np.shape(
                y)[1] > 1:
            raise ValueError("Monotonicity constraints are not supported with multiple outputs: "
                             f"y has {np.shape(y)[1]} columns, and bivtree fits one output")
        # sparse matrices densified, categorical columns encoded (sets categories_)
        X = encode_fit(self, X)
        _check_numeric_frame(X, self)
        _check_missing_targets(y)
        if not self._is_classifier():
            _check_numeric_targets(y)
        # scikit-learn's finiteness check first sums X, which overflows harmlessly (and
        # warns) for finite values near the largest double; those get bivtree's range check
        with np.errstate(over="ignore", invalid="ignore"):
            # NaN in X is a missing value; infinity stays an error
            X, y = validate_data(self, X, y, dtype=DTYPE, ensure_all_finite="allow-nan",
                                 ensure_min_samples=2, multi_output=False,
                                 y_numeric=not self._is_classifier())
        sample_weight = _check_sample_weight(sample_weight, X, dtype=DTYPE,
                                             ensure_non_negative=True)
        if not np.all(np.isfinite(sample_weight)):
            raise ValueError("sample_weight contains NaN or infinity")
        _positive_samples(sample_weight)
        return X, y, sample_weight

    def _resolve_constraints(self, n_features, n_classes):
        """The fit's :class:`~bivtree.constraints.SplitConstraints`, from ``monotonic_cst`` and
        ``interaction_cst`` resolved against ``X`` (sets ``monotonic_cst_`` and
        ``interaction_cst_``; an estimator without those parameters has none).

        The greedy trees and the TAO estimators resolve them here, with the same
        checks and messages.

        Raises
        ------
        ValueError
            Constraints that do not fit ``X`` (see :mod:`bivtree.constraints`), or
            monotonic constraints of a multiclass classifier.
        """
        names = getattr(self, "feature_names_in_", None)
        monotonic = resolve_monotonic_cst(getattr(self, "monotonic_cst", None), n_features,
                                          names, getattr(self, "is_categorical_", None))
        if monotonic is not None and self._is_classifier() and n_classes > 2:
            raise ValueError("Monotonicity constraints are not supported with multiclass "
                             f"classification: y has {n_classes} classes; monotonic_cst "
                             "constrains the probability of the positive class of two")
        interactions = resolve_interaction_cst(getattr(self, "interaction_cst", None),
                                               n_features, names)
        self.monotonic_cst_ = monotonic
        self.interaction_cst_ = interactions
        return split_constraints(monotonic, interactions, n_features)

    def _encode_classes(self, y, sample_weight):
        """Sorted classes, encoded labels and sample weights times ``class_weight``.

        Returns
        -------
        classes : ndarray
        labels : ndarray of int64
        sample_weight : ndarray of float64
        """
        _check_label_types(y)
        check_classification_targets(y)
        classes, labels = np.unique(y, return_inverse=True)
        if self.class_weight is not None:
            _check_class_weight(self.class_weight)
            # keyed by the user's labels, so computed on y, not on the encoded labels
            sample_weight = sample_weight * compute_sample_weight(self.class_weight, y)
        return (classes, np.ascontiguousarray(labels, dtype=LTYPE),
                np.ascontiguousarray(sample_weight, dtype=DTYPE))

    def _feature_importances(self, X, sample_weight):
        """Total weighted impurity decrease per feature, normalised to sum 1
        (:func:`tree_feature_importances`, the spreads taken over ``X``)."""
        def spreads():
            with numba_threads(self.n_jobs):
                return self.tree_.node_spreads(X, sample_weight)

        return tree_feature_importances(self.tree_, spreads)

    # ------------------------------------------------------------ inspection
    def apply(self, X):
        """Index of the leaf each sample ends in.

        Parameters
        ----------
        X : array-like of shape (n_samples, n_features)

        Returns
        -------
        ndarray of int64, shape (n_samples,)
        """
        X = self._validate_X_predict(X)
        with numba_threads(self.n_jobs):
            return self.tree_.apply(X)

    def decision_path(self, X):
        """Sparse indicator (n_samples, n_nodes) of the nodes each sample visits.

        Parameters
        ----------
        X : array-like of shape (n_samples, n_features)

        Returns
        -------
        scipy.sparse.csr_matrix
        """
        X = self._validate_X_predict(X)
        return self.tree_.decision_path(X)

    def get_depth(self):
        """Depth of the tree (a single leaf has depth 0)."""
        check_is_fitted(self, "tree_")
        return self.tree_.max_depth

    def get_n_leaves(self):
        """Number of leaves."""
        check_is_fitted(self, "tree_")
        return self.tree_.n_leaves

    # ----------------------------------------------------------- persistence
    def save(self, path):
        """Write the fitted estimator to ``path`` as JSON (docs/model-format.md).

        Unlike a pickle, the file loads without executing code; see
        :func:`bivtree.persistence.save_model`.

        Parameters
        ----------
        path : str or path-like
        """
        save_model(self, path)

    @classmethod
    def load(cls, path):
        """Read an estimator written by :meth:`save`; a file holding another class raises.

        Parameters
        ----------
        path : str or path-like

        Returns
        -------
        estimator : instance of this class
        """
        model = load_model(path)
        if not isinstance(model, cls):  # a wrong file, not a wrong argument type
            raise ValueError(  # noqa: TRY004
                f"{path} holds a {type(model).__name__}, not a {cls.__name__}")
        return model

    def _accepts_missing(self):
        """Whether missing values (NaN in X) are accepted, at fit and at predict.

        An estimator whose search handles them (see ``BaseBivariateTree``) says
        so; the others refuse NaN everywhere, with a message naming what does.
        """
        return False

    def __sklearn_tags__(self):
        tags = super().__sklearn_tags__()
        tags.input_tags.allow_nan = self._accepts_missing()
        tags.input_tags.sparse = True
        return tags


class BaseBivariateTree(FittedTreeMixin, BaseEstimator):
    """Shared fitting machinery; use the classifier or the regressor."""

    # ``criterion`` (and the classifier's ``class_weight``) are added by the subclasses
    _parameter_constraints: ClassVar[dict] = {
        # the live registry: splitters registered after this import are accepted too
        "splitter": [Options(SPLITTERS)],
        "n_orientations": [Interval(Integral, 1, None, closed="left")],
        "max_depth": [None, Interval(Integral, 1, None, closed="left")],
        "min_samples_split": [Interval(Integral, 2, None, closed="left"),
                              Interval(RealNotInt, 0.0, 1.0, closed="right")],
        "min_samples_leaf": [Interval(Integral, 1, None, closed="left"),
                             Interval(RealNotInt, 0.0, 1.0, closed="neither")],
        "min_weight_fraction_leaf": [Interval(Real, 0.0, 0.5, closed="both")],
        # an int above n_features is caught at fit, when n_features is known
        "max_features": [None, {"sqrt", "log2"}, Interval(Integral, 1, None, closed="left"),
                         Interval(RealNotInt, 0.0, 1.0, closed="right")],
        "max_leaf_nodes": [None, Interval(Integral, 2, None, closed="left")],
        "min_impurity_decrease": [Interval(Real, 0.0, None, closed="left")],
        "ccp_alpha": [Interval(Real, 0.0, None, closed="left")],
        "max_pairs": [None, Interval(Integral, 0, None, closed="left")],
        "splitter_options": [None, InstanceOf(Mapping, "a dict")],
        # joblib's meaning; 0 threads means nothing
        "n_jobs": [None, Interval(Integral, None, -1, closed="right"),
                   Interval(Integral, 1, None, closed="left")],
        # what sklearn.utils.check_random_state accepts
        "random_state": [None, Interval(Integral, 0, 2**32 - 1, closed="both"),
                         InstanceOf(np.random.RandomState)],
        "verbose": [Interval(Integral, 0, None, closed="left"), "boolean"],
        # indices, names or a mask: resolved against X at fit (bivtree._tabular)
        "categorical_features": [None, {"from_dtype"}, "array-like"],
        "max_categories": [None, Interval(Integral, 2, MAX_CODES, closed="both")],
        # values, lengths and names are checked against X at fit (bivtree.constraints)
        "monotonic_cst": [None, InstanceOf(dict, "a dict of column name -> -1, 0 or 1"),
                          "array-like"],
        "interaction_cst": [None, set(INTERACTION_STRINGS), "array-like"],
    }

    def __init__(self, *, splitter, criterion, n_orientations, max_depth, min_samples_split,
                 min_samples_leaf, min_weight_fraction_leaf, max_features, max_leaf_nodes,
                 min_impurity_decrease, ccp_alpha, max_pairs, splitter_options, n_jobs,
                 random_state, verbose, categorical_features="from_dtype",
                 max_categories=None, monotonic_cst=None, interaction_cst=None):
        self.splitter = splitter
        self.criterion = criterion
        self.n_orientations = n_orientations
        self.max_depth = max_depth
        self.min_samples_split = min_samples_split
        self.min_samples_leaf = min_samples_leaf
        self.min_weight_fraction_leaf = min_weight_fraction_leaf
        self.max_features = max_features
        self.max_leaf_nodes = max_leaf_nodes
        self.min_impurity_decrease = min_impurity_decrease
        self.ccp_alpha = ccp_alpha
        self.max_pairs = max_pairs
        self.splitter_options = splitter_options
        self.n_jobs = n_jobs
        self.random_state = random_state
        self.verbose = verbose
        self.categorical_features = categorical_features
        self.max_categories = max_categories
        self.monotonic_cst = monotonic_cst
        self.interaction_cst = interaction_cst

    def _criterion_code(self):
        table = CLASSIFICATION_CRITERIA if self._is_classifier() else REGRESSION_CRITERIA
        return table[self.criterion]  # a valid name: checked by _validate_params

    def _resolve_stopping_rules(self, n_samples, total_weight):
        """The grower's stopping rules from the checked parameters: fractions become counts."""
        max_depth = np.iinfo(np.int32).max if self.max_depth is None else int(self.max_depth)

        msl = self.min_samples_leaf
        if isinstance(msl, numbers.Integral):
            min_samples_leaf = int(msl)
        else:
            min_samples_leaf = int(np.ceil(msl * n_samples))

        mss = self.min_samples_split
        if isinstance(mss, numbers.Integral):
            min_samples_split = int(mss)
        else:
            min_samples_split = max(2, int(np.ceil(mss * n_samples)))
        # scikit-learn: a split needs room for two leaves
        min_samples_split = max(min_samples_split, 2 * min_samples_leaf)

        return {"max_depth": max_depth, "min_samples_split": min_samples_split,
                "min_samples_leaf": min_samples_leaf,
                "min_weight_leaf": float(self.min_weight_fraction_leaf) * total_weight,
                "min_impurity_decrease": float(self.min_impurity_decrease),
                "max_leaf_nodes": self.max_leaf_nodes}

    def _resolve_max_features(self, n_features):
        """Features drawn per node, from the checked ``max_features``."""
        mf = self.max_features
        if mf is None:
            return n_features
        if isinstance(mf, str):
            if mf == "sqrt":
                return max(1, int(np.sqrt(n_features)))
            return max(1, int(np.log2(n_features)))
        if isinstance(mf, numbers.Integral):
            if mf > n_features:
                raise ValueError(f"max_features must be None, 'sqrt', 'log2', an int in "
                                 f"[1, {n_features}] or a float in (0, 1], got {mf!r}")
            return int(mf)
        return max(1, int(mf * n_features))

    def _splitter_input(self, name):
        """The value of ``name`` that the estimator hands a splitter asking for it."""
        if name == "feature_names":  # the columns' names, for options that name columns
            names = getattr(self, "feature_names_in_", None)
            return None if names is None else list(names)
        if name == "grows_to_purity":  # no limit stops the growth before pure leaves
            return (self.max_depth is None and self.max_leaf_nodes is None
                    and self.min_impurity_decrease == 0
                    and isinstance(self.min_samples_split, numbers.Integral)
                    and self.min_samples_split <= 2)
        return self.get_params(deep=False)[name]

    def _accepts_missing(self):
        cls = SPLITTERS.get(self.splitter) if isinstance(self.splitter, str) else None
        return cls is not None and cls.supports_missing

    def _missing_refused(self):
        usable = sorted(name for name, cls in SPLITTERS.items() if cls.supports_missing)
        return (f"the {self.splitter!r} splitter does not accept missing values (NaN in X); "
                f"the splitters {usable} learn a side for them at every node; or impute X "
                "first (e.g. sklearn.impute.SimpleImputer)")

    def _make_splitter(self):
        """The ``splitter``: ``splitter_options`` plus what it takes from the estimator.

        A splitter lists in ``estimator_params`` the estimator parameters it
        takes (``n_orientations``, ``verbose``; ``feature_names`` is
        ``feature_names_in_``); a key of ``splitter_options`` overrides them.
        """
        cls = SPLITTERS[self.splitter]
        task = "classification" if self._is_classifier() else "regression"
        if task not in cls.tasks:
            estimator = "BivariateTreeClassifier" if cls.tasks == ("classification",) else (
                "BivariateTreeRegressor")
            raise ValueError(f"the {self.splitter!r} splitter grows trees for "
                             f"{' and '.join(cls.tasks)} only, not {task}: use it with "
                             f"{estimator}")
        options = dict(self.splitter_options or {})
        reject_unknown(options, cls._parameter_constraints, what="splitter_options key",
                       owner=f"the {self.splitter!r} splitter")
        for name in cls.estimator_params:
            options.setdefault(name, self._splitter_input(name))
        # splitter_options may size what the estimator's own check let through
        check_limits(options, RESOURCE_LIMITS)
        categorical = self._categorical_columns()
        # a splitter with its own categorical search (MUST) is told the columns;
        # any other searches the numeric ones, the shared subset search the others
        if "categorical_features" in cls._parameter_constraints:
            if categorical.size:
                options.setdefault("categorical_features", categorical.tolist())
            return get_splitter(self.splitter, **options)
        splitter = get_splitter(self.splitter, **options)
        return WithCategories(splitter, categorical) if categorical.size else splitter

    def _fit_constraints(self, n_features, n_classes):
        """The fit's :class:`~bivtree.constraints.SplitConstraints`
        (:meth:`~FittedTreeMixin._resolve_constraints`), for a splitter that honours them.

        Raises
        ------
        ValueError
            As :meth:`~FittedTreeMixin._resolve_constraints`, or constraints for a
            splitter that cannot honour them.
        """
        constraints = self._resolve_constraints(n_features, n_classes)
        if (self.monotonic_cst_ is not None or self.interaction_cst_ is not None) and not (
                SPLITTERS[self.splitter].supports_constraints):
            usable = sorted(name for name, cls in SPLITTERS.items() if cls.supports_constraints)
            raise ValueError(f"the {self.splitter!r} splitter does not honour monotonic_cst or "
                             f"interaction_cst; the splitters {usable} do")
        return constraints

    def _categorical_columns(self):
        """The columns encoded as categories at fit (``is_categorical_``), as indices."""
        mask = getattr(self, "is_categorical_", None)
        return np.zeros(0, dtype=ITYPE) if mask is None else np.flatnonzero(mask).astype(ITYPE)

    def _check_pairs(self, splitter, n_numeric, n_indicators=0):
        """Refuse a search of more than ``max_pairs`` pairs per node; say how many when
        ``verbose``. Pairs are drawn from ``n_numeric`` numeric candidate features and
        ``n_indicators`` category indicators (``category_pairs``)."""
        if not splitter.searches_pairs:
            return
        n_candidates = n_numeric + n_indicators
        n_pairs = splitter.pairs_searched(n_candidates)
        limit = DEFAULT_MAX_PAIRS if self.max_pairs is None else self.max_pairs
        among = (f"{n_numeric} numeric features and {n_indicators} category indicators"
                 if n_indicators else f"{n_numeric} of {self.n_features_in_} features")
        if n_pairs > limit:
            raise ValueError(
                f"the {self.splitter!r} splitter would search {n_pairs} feature pairs at every "
                f"node (among {among}), more than max_pairs={limit}; set "
                "max_features (e.g. 'sqrt') to draw fewer features per node, or raise max_pairs")
        if self.verbose:
            print(f"[bivtree] searching up to {n_pairs} feature pairs per node "
                  f"(among {among})", flush=True)

    # --------------------------------------------------------------- fitting
    def _fit(self, X, y, sample_weight, labels, targets, n_classes):
        notice_once()
        criterion = self._criterion_code()
        splitter = self._make_splitter()
        targets_to_check = None if self._is_classifier() else targets
        sample_weight, exponent = _prepare_scales(self, X, targets_to_check, sample_weight)
        n_samples, n_features = X.shape
        # class weights may have zeroed what the data check let through
        positive = _positive_samples(sample_weight)
        total_weight = float(sample_weight.sum())
        rules = self._resolve_stopping_rules(n_samples, total_weight)
        self.max_features_ = self._resolve_max_features(n_features)
        # pairs are searched among the numeric candidates and the categories' indicators
        n_indicators = splitter.n_indicators(X) if isinstance(splitter, WithCategories) else 0
        self._check_pairs(splitter, min(self.max_features_,
                                        n_features - self._categorical_columns().size),
                          n_indicators)
        # zero-weight rows are left out of the fit: only the others' NaN count
        has_missing = _has_missing(X) and _has_missing(X[positive])
        if has_missing and not splitter.supports_missing:
            raise ValueError(self._missing_refused())
        constraints = self._fit_constraints(n_features, n_classes)
        rng = check_random_state(self.random_state)
        all_features = np.arange(n_features, dtype=ITYPE)
        if self.max_features_ >= n_features:
            def sample_features():
                return all_features
        else:
            def sample_features():
                drawn = rng.choice(n_features, self.max_features_, replace=False)
                return np.sort(drawn).astype(ITYPE)

        data = SplitData(
            X=_writable(X, order="F"), labels=labels, targets=targets,
            sample_weight=sample_weight, n_classes=n_classes, criterion=criterion,
            min_samples_leaf=rules["min_samples_leaf"],
            min_weight_leaf=rules["min_weight_leaf"], has_missing=has_missing,
            constraints=constraints)
        monotone = (MonotoneGrowth(constraints, self._is_classifier())
                    if constraints.has_monotonic else None)
        grower = TreeGrower(splitter, sample_features=sample_features,
                            draws_features=self.max_features_ < n_features,
                            n_slots=max(2, min(splitter.max_node_features, n_features)),
                            verbose=self.verbose, monotone=monotone,
                            **rules)
        t0 = time.perf_counter()
        with numba_threads(self.n_jobs):
            tree = grower.grow(data, positive)
        grown = tree
        if self.ccp_alpha > 0.0:
            tree = prune_tree(tree, self.ccp_alpha)
        if monotone is not None:
            # clipped values often make sibling leaves predict alike: drop such tests
            tree = merge_equal_leaves(tree, self._is_classifier())
        self.tree_ = tree
        self.split_info_ = _align_split_info(grown, tree, grower.split_info)
        gaps = [info["gap"] for info in self.split_info_ if info and "gap" in info]
        self.optimality_gap_ = max(gaps) if gaps else None
        self.n_outputs_ = 1
        self.fit_time_ = time.perf_counter() - t0
        self.feature_importances_ = self._feature_importances(data.X, sample_weight)
        _report_in_user_units(tree, self.split_info_, exponent, n_classes > 1)
        return self

    def cost_complexity_pruning_path(self, X, y, sample_weight=None):
        """Effective alphas and total leaf impurities of minimal cost-complexity pruning.

        Fits an unpruned tree with the estimator's other parameters and returns
        scikit-learn's ``Bunch(ccp_alphas, impurities)``: the tree pruned with
        ``ccp_alpha = ccp_alphas[i]`` has total leaf impurity ``impurities[i]``.

        Parameters
        ----------
        X : array-like of shape (n_samples, n_features)
        y : array-like of shape (n_samples,)
        sample_weight : array-like of shape (n_samples,), default=None

        Returns
        -------
        sklearn.utils.Bunch
        """
        unpruned = self.__class__(**{**self.get_params(deep=False), "ccp_alpha": 0.0})
        unpruned.fit(X, y, sample_weight=sample_weight)
        return cost_complexity_pruning_path(unpruned.tree_)


def tree_estimator(estimator, reader):
    """The fitted tree estimator that a view or export (``reader``, named in errors) reads.

    A model selector's chosen tree (``best_estimator_``, which carries the
    category values and the input checks), else ``estimator`` itself.

    Raises
    ------
    sklearn.exceptions.NotFittedError
        If the estimator (or selector) is not fitted.
    TypeError
        If the tree is not one of bivtree's: a scikit-learn tree, a
        :class:`~bivtree.model_selection.CostComplexityCV` around one, or a
        pipeline (whose last step is what the views read).
    """
    chosen = estimator._chosen() if isinstance(estimator, ChosenTreeDelegation) else estimator
    if not isinstance(chosen, FittedTreeMixin):
        what = type(chosen).__name__
        if chosen is not estimator:
            what = f"{type(estimator).__name__} whose chosen tree is a {what}"
        hint = ""
        if hasattr(chosen, "steps"):
            hint = ("; pass the pipeline's last step (pipeline[-1]) and, for feature "
                    "names, the names that step receives")
        elif type(chosen).__module__.startswith("sklearn.tree"):
            hint = ("; scikit-learn's own trees have their own views (sklearn.tree.export_text, "
                    "plot_tree) and ONNX converter (skl2onnx)")
        raise TypeError(f"{reader} reads bivtree's trees (BivariateTreeClassifier, "
                        "BivariateTreeRegressor, TAOTreeClassifier, TAOTreeRegressor, or a "
                        f"model selector of one), not a {what}{hint}")
    check_is_fitted(chosen, "tree_")
    return chosen


class ChosenTreeDelegation:
    """What a model selector answers with the tree it chose (``best_estimator_``).

    For :class:`bivtree.model_selection.CostComplexityCV` (the pruned tree) and
    the TAO selectors (the selected tree): predictions, score, size and the
    fitted tree's attributes, each checking that the selector is fitted first.
    """

    def _chosen(self):
        check_is_fitted(self, "best_estimator_")
        return self.best_estimator_

    def predict(self, X):
        """Predictions of the chosen tree."""
        return self._chosen().predict(X)

    def score(self, X, y, sample_weight=None):
        """The chosen tree's ``score``."""
        return self._chosen().score(X, y, sample_weight=sample_weight)

    def get_n_leaves(self):
        """Leaves of the chosen tree."""
        return self._chosen().get_n_leaves()

    def get_depth(self):
        """Depth of the chosen tree."""
        return self._chosen().get_depth()

    @property
    def tree_(self):
        """The chosen tree's ``tree_``."""
        return self._chosen().tree_

    @property
    def feature_importances_(self):
        """The chosen tree's feature importances."""
        return self._chosen().feature_importances_


class TreeClassifierOutputs:
    """``predict_proba``, ``predict_log_proba`` and ``predict`` from ``tree_``'s class counts."""

    def predict_proba(self, X):
        """Class probabilities: the weighted class shares of each sample's leaf.

        Parameters
        ----------
        X : array-like of shape (n_samples, n_features)

        Returns
        -------
        ndarray of shape (n_samples, n_classes)
        """
        X = self._validate_X_predict(X)
        with numba_threads(self.n_jobs):
            counts = self.tree_.predict(X)
        totals = counts.sum(axis=1, keepdims=True)
        return counts / np.where(totals > 0, totals, 1.0)

    def predict_log_proba(self, X):
        """Logarithm of :meth:`predict_proba`."""
        with np.errstate(divide="ignore"):
            return np.log(self.predict_proba(X))

    def predict(self, X):
        """Most probable class of each sample (the first class on ties).

        Parameters
        ----------
        X : array-like of shape (n_samples, n_features)

        Returns
        -------
        ndarray of shape (n_samples,)
        """
        proba = self.predict_proba(X)  # checks fitted state before classes_ is read
        return self.classes_[np.argmax(proba, axis=1)]


class TreeRegressorOutputs:
    """``predict`` from ``tree_``'s leaf means."""

    def predict(self, X):
        """Mean target of each sample's leaf.

        Parameters
        ----------
        X : array-like of shape (n_samples, n_features)

        Returns
        -------
        ndarray of shape (n_samples,)
        """
        X = self._validate_X_predict(X)
        with numba_threads(self.n_jobs):
            return self.tree_.predict(X)[:, 0]


_COMMON_DOC = """
    splitter : {"auto", "orientations", "univariate", "diagonal", ...}, default="auto"
        Split search. ``"auto"``: bivariate CART's search where it is cheap
        and elsewhere a coarse-to-fine search of the pairs among the 12
        features with the best univariate cuts (and of the best one with
        every other), directions chosen on at most
        4,096 samples of a node and thresholds exact on all of them (see
        :mod:`bivtree.splitters.auto` for what it guarantees).
        ``"orientations"``: bivariate CART of Kairgeldin and
        Carreira-Perpinan (``n_orientations`` directions per feature pair, exact
        thresholds); ``"univariate"``: scikit-learn's CART search;
        ``"diagonal"``: BIT2 of Bioch et al. (``x_i + x_j`` and ``x_i - x_j`` on
        [0, 1]-scaled features); ``"hillclimb"``: BIT1 of Bioch et al. (CART's
        linear-combination hill climbing on each feature pair). A bivariate split
        is used only when it beats the best univariate split. ``"lda"``: MUST of
        Leroux et al. (LDA directions on ``n_split_features`` features, given in
        ``splitter_options``; classifier only). ``"optimal"``: globally optimal
        bivariate splits, by the BiDT branch and bound of Bollwein and Westphal
        or an exact rotational sweep (``splitter_options``: ``method``,
        ``epsilon``, ``time_limit``, ``fit_time_limit``).
    n_orientations : int, default=30
        Directions per feature pair, uniform over [0, 180) degrees (orientations
        splitter, and the auto splitter's small nodes).
    max_depth : int, default=None
        Maximum depth; ``None`` grows until leaves are pure or cannot be split.
    min_samples_split : int or float, default=2
        Minimum samples to split a node (a float is a fraction of the samples).
    min_samples_leaf : int or float, default=1
        Minimum samples in each leaf (a float is a fraction of the samples).
    min_weight_fraction_leaf : float, default=0.0
        Minimum fraction of the total sample weight in each leaf.
    max_features : int, float, "sqrt", "log2" or None, default=None
        Features drawn (without replacement, with ``random_state``) at each node;
        pair-searching splitters look at the pairs among them.
    max_leaf_nodes : int, default=None
        Grow best first (largest weighted impurity decrease) up to this many leaves.
    min_impurity_decrease : float, default=0.0
        Split only if the weighted impurity decrease is at least this.
    ccp_alpha : float, default=0.0
        Minimal cost-complexity pruning parameter (scikit-learn's semantics).
    max_pairs : int, default=None
        Largest number of feature pairs a pair-searching splitter may examine at
        a node (``None``: 20000); more raises a ValueError suggesting ``max_features``.
    splitter_options : dict, default=None
        Further options of the chosen splitter.
    n_jobs : int, default=None
        Threads for the split search and prediction (joblib's meaning: ``None`` is
        1, ``-1`` all cores). Results do not depend on it.
    random_state : int, RandomState or None, default=None
        Seeds the feature draws of ``max_features``.
    verbose : int, default=0
        Print progress while growing.
    categorical_features : array-like of int, str or bool, "from_dtype" or None, \
default="from_dtype"
        Columns split by category sets (a node tests ``x in {a, b}``) instead
        of thresholds: indices, names (``X`` with column names), a boolean mask,
        or ``"from_dtype"``: a DataFrame's ``category`` columns and its text
        (object or string) columns; ``None``: none. Their values are encoded at
        fit (``categories_``) and may be any strings or numbers. The best
        subset is exact for two classes and regression (Breiman's ordering),
        a heuristic for more classes (one order per class); bivariate rules
        use the other columns only.
    max_categories : int, default=None
        Categories kept per categorical column, 2 to 64: the most frequent
        ``max_categories - 1`` keep their own code and the rest share one
        ``"infrequent"`` code. ``None``: a column with more than 64 categories
        (a node's category set holds 64) raises a ValueError.
    monotonic_cst : array-like of int of shape (n_features,), dict or None, default=None
        Monotonicity constraint of each feature (scikit-learn's meaning): ``1``
        the prediction may only increase with it, ``-1`` only decrease, ``0``
        free; with a DataFrame also a dict ``{column name: -1, 0 or 1}`` (the
        columns it leaves out are free). The prediction is the mean target
        (regressor) or the probability of the positive class ``classes_[1]``
        (binary classifier); more classes, several outputs and a constrained
        categorical feature are refused. A node test ``x_j + w * x_k <= t``
        moves a sample to its right child as ``x_j`` grows (as ``x_k`` grows when
        ``w > 0``, to its left child when ``w < 0``), so its constrained features
        fix the order of its children's values, and must agree; every splitter
        returns its best split among those whose children respect that order
        and the bounds inherited from the ancestors, as scikit-learn's trees do,
        and node values are clipped to those bounds, so predictions never move
        against a constraint when one feature changes and the others stay
        (see :mod:`bivtree.constraints` for missing values). ``"optimal"``
        stays exact among the admissible splits.
    interaction_cst : list of lists of int or str, "pairwise", "no_interactions" or \
None, default=None
        Groups of features (indices, or names with a DataFrame) that may share
        a node test: two features are tested together only if some group holds
        both; as in scikit-learn's HistGradientBoosting, the features no group
        lists form one more group. ``"no_interactions"``: univariate splits
        only; ``"pairwise"``: any two features, never three in a test (a limit
        for ``splitter="lda"``). The constraint holds per node, not per branch.
"""


@register_model
class BivariateTreeClassifier(ClassifierMixin, TreeClassifierOutputs, BaseBivariateTree):
    __doc__ = f"""A decision tree classifier whose splits test at most two features.

    Each decision node sends a sample left iff ``x[j] + w * x[k] <= t`` (or
    ``x[j] <= t``), in the data's own units.

    Parameters
    ----------
    criterion : {{"gini", "entropy", "log_loss", "misclassification"}}, default="gini"
        Impurity: Gini, entropy in bits (``log_loss`` is a synonym), or the
        classification error.
    class_weight : dict, "balanced" or None, default=None
        Weights of the classes (finite, non-negative), multiplied into
        ``sample_weight``. A list of dicts (multi-output) is refused.
    {_COMMON_DOC}
    Attributes
    ----------
    tree_ : bivtree.tree.Tree
    classes_ : ndarray of shape (n_classes,)
    n_classes_ : int
    n_features_in_ : int
    feature_names_in_ : ndarray of str
        Defined when ``X`` has string column names.
    is_categorical_ : ndarray of bool or None
        Which features were encoded as categories (None: none).
    categories_ : list or None
        Per feature, the category values of codes ``0, 1, ...`` (None for a
        numeric feature); None when no feature is categorical.
    infrequent_categories_ : list or None
        Per feature, the values grouped into the last code by
        ``max_categories`` (or None).
    monotonic_cst_ : ndarray of int8 of shape (n_features,) or None
        ``monotonic_cst`` as one constraint per feature (None: none given).
    interaction_cst_ : list of list of int, "pairwise" or None
        ``interaction_cst`` as groups of feature indices, with the group of the
        features it did not list (None: none given).
    feature_importances_ : ndarray of shape (n_features,)
        Normalised total impurity decrease; a bivariate node's decrease is
        shared between its two features in proportion to ``|w_k| * std(x_k)``
        over the node's training samples.
    max_features_ : int
    fit_time_ : float
        Seconds spent growing and pruning.
    split_info_ : list of dict or None
        Per node of ``tree_``, what the splitter reported about the search of
        its split (``None`` at leaves); e.g. the ``"optimal"`` splitter's
        ``gap``, ``lower_bound``, ``n_subproblems`` and ``seconds``.
    optimality_gap_ : float or None
        Largest proven relative gap ``(G - lower bound) / G`` over the decision
        nodes, for splitters that prove bounds (``"optimal"``: 0 when every
        split is proven optimal); ``None`` for the others.

    Examples
    --------
    >>> from sklearn.datasets import load_iris
    >>> from bivtree import BivariateTreeClassifier
    >>> X, y = load_iris(return_X_y=True)
    >>> clf = BivariateTreeClassifier(splitter="orientations", max_depth=2, random_state=0)
    >>> clf.fit(X, y).get_n_leaves()
    3
    >>> clf.predict(X[:3])
    array([0, 0, 0])
    >>> clf.tree_.n_node_features.tolist()  # features tested at each node (0: a leaf)
    [1, 0, 2, 0, 0]
    >>> round(clf.score(X, y), 2)
    0.98
    """

    _parameter_constraints: ClassVar[dict] = {
        **BaseBivariateTree._parameter_constraints,
        "criterion": [Options(CLASSIFICATION_CRITERIA)],
        # compute_sample_weight checks the classes a dict or list names
        "class_weight": [None, {"balanced"}, InstanceOf(dict, "a dict"),
                         InstanceOf(list, "a list of dicts")],
    }

    def __init__(self, *, splitter="auto", criterion="gini", n_orientations=30,
                 max_depth=None, min_samples_split=2, min_samples_leaf=1,
                 min_weight_fraction_leaf=0.0, max_features=None, max_leaf_nodes=None,
                 min_impurity_decrease=0.0, class_weight=None, ccp_alpha=0.0, max_pairs=None,
                 splitter_options=None, n_jobs=None, random_state=None, verbose=0,
                 categorical_features="from_dtype", max_categories=None, monotonic_cst=None,
                 interaction_cst=None):
        super().__init__(
            splitter=splitter, criterion=criterion, n_orientations=n_orientations,
            max_depth=max_depth, min_samples_split=min_samples_split,
            min_samples_leaf=min_samples_leaf, min_weight_fraction_leaf=min_weight_fraction_leaf,
            max_features=max_features, max_leaf_nodes=max_leaf_nodes,
            min_impurity_decrease=min_impurity_decrease, ccp_alpha=ccp_alpha,
            max_pairs=max_pairs, splitter_options=splitter_options, n_jobs=n_jobs,
            random_state=random_state, verbose=verbose,
            categorical_features=categorical_features, max_categories=max_categories,
            monotonic_cst=monotonic_cst, interaction_cst=interaction_cst)
        self.class_weight = class_weight

    def _is_classifier(self):
        return True

    def fit(self, X, y, sample_weight=None):
        """Grow the tree on ``(X, y)``.

        Parameters
        ----------
        X : array-like of shape (n_samples, n_features)
            Numbers (NaN marks a missing value; infinity is an error) and
            category columns (``categorical_features``).
        y : array-like of shape (n_samples,)
            Class labels (numbers or strings). A single class gives a one-leaf tree
            (``predict_proba`` has one column), as scikit-learn's trees do.
        sample_weight : array-like of shape (n_samples,), default=None
            Non-negative weights; zero-weight samples are ignored.

        Returns
        -------
        self
        """
        X, y, sample_weight = self._validate_fit_data(X, y, sample_weight)
        classes, labels, sample_weight = self._encode_classes(y, sample_weight)
        self.classes_ = classes
        self.n_classes_ = int(classes.shape[0])
        return self._fit(X, y, sample_weight, labels, np.zeros(labels.shape[0], dtype=DTYPE),
                         self.n_classes_)


@register_model
class BivariateTreeRegressor(RegressorMixin, TreeRegressorOutputs, BaseBivariateTree):
    __doc__ = f"""A decision tree regressor whose splits test at most two features.

    Parameters
    ----------
    criterion : {{"squared_error"}}, default="squared_error"
        Weighted variance of the targets.
    {_COMMON_DOC}
    Attributes
    ----------
    tree_ : bivtree.tree.Tree
    n_features_in_ : int
    feature_names_in_ : ndarray of str
    monotonic_cst_ : ndarray of int8 of shape (n_features,) or None
    interaction_cst_ : list of list of int, "pairwise" or None
        As for :class:`BivariateTreeClassifier`.
    feature_importances_ : ndarray of shape (n_features,)
        As for :class:`BivariateTreeClassifier`.
    max_features_ : int
    fit_time_ : float
    split_info_ : list of dict or None
    optimality_gap_ : float or None
        As for :class:`BivariateTreeClassifier`.

    Examples
    --------
    >>> import numpy as np
    >>> from bivtree import BivariateTreeRegressor
    >>> rng = np.random.RandomState(0)
    >>> X = rng.uniform(size=(40, 2))
    >>> y = X[:, 0] + X[:, 1]
    >>> reg = BivariateTreeRegressor(splitter="orientations", max_depth=2).fit(X, y)
    >>> reg.get_n_leaves(), reg.get_depth()
    (4, 2)
    >>> reg.tree_.n_node_features.tolist()  # every decision node tests both features
    [2, 2, 0, 0, 2, 0, 0]
    >>> reg.predict(X[:3]).shape
    (3,)
    """

    _parameter_constraints: ClassVar[dict] = {
        **BaseBivariateTree._parameter_constraints,
        "criterion": [Options(REGRESSION_CRITERIA)],
    }

    def __init__(self, *, splitter="auto", criterion="squared_error", n_orientations=30,
                 max_depth=None, min_samples_split=2, min_samples_leaf=1,
                 min_weight_fraction_leaf=0.0, max_features=None, max_leaf_nodes=None,
                 min_impurity_decrease=0.0, ccp_alpha=0.0, max_pairs=None,
                 splitter_options=None, n_jobs=None, random_state=None, verbose=0,
                 categorical_features="from_dtype", max_categories=None, monotonic_cst=None,
                 interaction_cst=None):
        super().__init__(
            splitter=splitter, criterion=criterion, n_orientations=n_orientations,
            max_depth=max_depth, min_samples_split=min_samples_split,
            min_samples_leaf=min_samples_leaf, min_weight_fraction_leaf=min_weight_fraction_leaf,
            max_features=max_features, max_leaf_nodes=max_leaf_nodes,
            min_impurity_decrease=min_impurity_decrease, ccp_alpha=ccp_alpha,
            max_pairs=max_pairs, splitter_options=splitter_options, n_jobs=n_jobs,
            random_state=random_state, verbose=verbose,
            categorical_features=categorical_features, max_categories=max_categories,
            monotonic_cst=monotonic_cst, interaction_cst=interaction_cst)

    def _is_classifier(self):
        return False

    def fit(self, X, y, sample_weight=None):
        """Grow the tree on ``(X, y)``.

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
        X, y, sample_weight = self._validate_fit_data(X, y, sample_weight)
        targets = np.ascontiguousarray(y, dtype=DTYPE)
        return self._fit(X, y, np.ascontiguousarray(sample_weight, dtype=DTYPE),
                         np.zeros(targets.shape[0], dtype=LTYPE), targets, 1)
