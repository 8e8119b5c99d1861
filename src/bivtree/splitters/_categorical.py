"""Categorical features: the best category subset of a node, for every splitter.

A categorical node tests ``x_c in S`` (``Tree.category_mask``, one bit per code
``0..63``; ``_kernels/traversal.goes_left``). This module holds what every
search shares about such features:

- :func:`resolve_categorical`: ``categorical_features`` (indices, names or a
  boolean mask, scikit-learn's convention) as column indices;
- :func:`check_category_codes`: a categorical column must hold integer codes in
  ``[0, 63]`` (the bit positions of the mask);
- :func:`category_orders`: Breiman's orderings of the categories present at a
  node, and :func:`subset_below`, the categories of a prefix of such an order;
- :func:`best_subset_split`: the best subset split of one feature under the
  tree's criterion;
- :class:`WithCategories`: a splitter whose numeric search runs on the numeric
  candidate features (and, for a splitter with ``category_pairs``, on the
  indicators of the categorical candidates' categories), each categorical
  candidate offering its best subset split, the better of all kept (so
  bivariate rules never mix in a category code as if it were a number).

**Indicator pairs.** A category set's indicator ``[x_c in S]`` is a 0/1 column
(NaN where ``x_c`` is missing); the sets are each single category and the
prefixes of Breiman's order over the fit (:func:`indicator_sets`). Searched as
a column beside the numeric ones, it lets a pair search find
``x7 + 0.3 * [colour in {red}] <= 2`` (two thresholds on ``x7``, one per side of
the set) and, between two indicators, ``colour in {red} and size in {L}``. The
rule is stored on the categorical feature itself with the set in the slot
(``Tree.category_mask``), whose indicator the routing computes as exactly the 0,
1 or NaN of the searched column, so the stored rule routes every sample as the
search scored it. A rule on one indicator alone is stored as the categorical
node ``x_c in S`` with its children's roles swapped (the left side of
``[x_c in S] <= t`` is the complement), which has the same objective.

**Exact for two classes and for regression.** Sort the categories by their
weighted share of class 1 (two classes) or by their weighted mean target
(regression); the best subset under a concave impurity (Gini, entropy,
misclassification, squared error) is then a prefix of that order (Breiman et
al. 1984, Theorem 4.5; Fisher 1958 for the squared error), so scanning the
``k - 1`` prefixes finds it, ties between equal keys included: moving a group
of categories with the same key from one side to the other changes the
objective concavely, so an optimum keeps the group together. This holds for
``min_samples_leaf = 1`` and ``min_weight_fraction_leaf = 0``; with larger
leaves the scan returns the best *prefix* that respects them, which may not be
the best subset.

**More than two classes: a heuristic.** There is no such order; the search
scans one order per class present at the node (the categories sorted by their
share of that class: a one-against-the-rest split of the classes) and keeps the
best prefix over these orders under the true multi-class criterion. It looks at
``K (k - 1)`` of the ``2^(k-1) - 1`` subsets and is exact whenever the best
subset separates one class's high-share categories from the rest.
"""

import numpy as np
from numba import njit

from .. import _memory
from .._config import ITYPE, NUMBA_OPTS
from .._kernels.scan import ALL_KNOWN_LEFT, gather_node, scan_values
from .._kernels.traversal import MAX_CATEGORY
from ..constraints import UNBOUNDED
from ..tree import (
    MASK_DTYPE,
    categories_to_mask,
    indicator_values,
    mask_to_categories,
    slot_masks,
)
from ._base import BEATS_TOLERANCE, SplitData, make_split

__all__ = [
    "WithCategories",
    "best_subset_split",
    "category_orders",
    "check_category_codes",
    "indicator_sets",
    "n_indicator_sets",
    "node_categories",
    "resolve_categorical",
    "subset_below",
]


# ------------------------------------------------------------------ columns
def resolve_categorical(categorical_features, n_features, feature_names):
    """Indices (sorted, int64) of the categorical columns from scikit-learn's conventions.

    Parameters
    ----------
    categorical_features : None or array-like of int, str or bool
        Indices, names (``feature_names`` needed) or a boolean mask of ``n_features``.
    n_features : int
    feature_names : sequence of str or None

    Returns
    -------
    ndarray of int64
    """
    if categorical_features is None:
        return np.zeros(0, dtype=ITYPE)
    cats = np.asarray(categorical_features)
    if cats.ndim != 1:
        raise ValueError("categorical_features must be a 1-D list of indices, names or a "
                         "boolean mask")
    if cats.size == 0:
        return np.zeros(0, dtype=ITYPE)
    if cats.dtype.kind == "b":
        if cats.shape[0] != n_features:
            raise ValueError(f"categorical_features as a boolean mask has {cats.shape[0]} "
                             f"entries; X has {n_features} features")
        return np.flatnonzero(cats).astype(ITYPE)
    if cats.dtype.kind in "US O":
        if feature_names is None:
            raise ValueError("categorical_features names columns, but X has no feature "
                             "names; pass column indices or a boolean mask")
        names = [str(n) for n in feature_names]
        idx = []
        for c in cats:
            if str(c) not in names:
                raise ValueError(f"categorical feature {str(c)!r} is not a column of X")
            idx.append(names.index(str(c)))
        return np.unique(np.asarray(idx, dtype=ITYPE))
    if cats.dtype.kind not in "iu":
        raise ValueError(f"categorical_features must hold integer indices, names or booleans, "
                         f"got {cats.dtype}")
    if cats.min() < 0 or cats.max() >= n_features:
        raise ValueError(f"categorical_features index out of range for {n_features} features: "
                         f"{cats.tolist()}")
    return np.unique(cats.astype(ITYPE))


def check_category_codes(X, categorical, feature_names):
    """Raise ValueError unless every categorical column holds integer codes in [0, 63].

    A categorical node stores its category set as the bits of a 64-bit mask,
    so codes are the bit positions. NaN (a missing category) is left to the
    estimators' own check of missing values.
    """
    for f in categorical:
        col = X[:, f]
        col = col[~np.isnan(col)]
        bad = ~((col >= 0) & (col <= MAX_CATEGORY) & (col == np.floor(col)))
        if bad.any():
            name = (f"{feature_names[f]!r} (column {f})" if feature_names is not None
                    else f"column {f}")
            value = float(col[bad][0])
            raise ValueError(
                f"categorical feature {name} holds {value!r}: categorical features must hold "
                f"integer category codes in [0, {MAX_CATEGORY}] (encode them with "
                "sklearn.preprocessing.OrdinalEncoder, or pass the column's values as they "
                "are to an estimator with categorical_features, which encodes them)")


# --------------------------------------------------------------- the search
def node_categories(codes):
    """The distinct codes of a node (sorted) and each sample's index among them."""
    return np.unique(codes, return_inverse=True)


def category_orders(inverse, n_categories, labels, targets, weights, n_classes):
    """Breiman's ordering keys of a node's categories, one row per order.

    Parameters
    ----------
    inverse : ndarray of int
        Each sample's category index (``node_categories``).
    n_categories : int
    labels, targets, weights : ndarrays
        The node's samples' classes, targets and weights.
    n_classes : int
        1 for regression.

    Returns
    -------
    ndarray of float64, shape (n_orders, n_categories)
        Regression: the weighted mean target of each category (one order). Two
        classes present: the weighted share of the second one (one order, the
        exact one). More: the share of each class present (one order each).
    """
    cat_w = np.bincount(inverse, weights=weights, minlength=n_categories)
    if n_classes == 1:
        return (np.bincount(inverse, weights=weights * targets, minlength=n_categories)
                / cat_w)[None, :]
    class_w = np.bincount(labels, weights=weights, minlength=n_classes)
    present = np.flatnonzero(class_w > 0)
    if present.size <= 2:
        present = present[-1:]
    keys = np.empty((present.size, n_categories))
    for r, c in enumerate(present):
        keys[r] = np.bincount(inverse, weights=weights * (labels == c),
                              minlength=n_categories) / cat_w
    return keys


def subset_below(categories, keys, cut):
    """The categories whose key is at most ``cut``: the left side of a prefix cut.

    A sample's key is its category's, so the samples whose key is at most
    ``cut`` are exactly the samples whose category is in this subset, and the
    stored set routes the partition that was scanned.
    """
    return categories[keys <= cut]


@njit(**NUMBA_OPTS)
def scan_orders(keys, inverse, samples, labels, targets, sample_weight, n_classes, criterion,
                min_samples_leaf, min_weight_leaf):
    """Best prefix cut of each order: ``(proxies, cuts, missing_left, base)``.

    Each sample is given its category's key of the order and the keys are
    scanned by ``scan_values`` under the tree's criterion, so a cut between two
    distinct keys is a prefix of the order (``G = base - proxy``; proxy ``-inf``:
    no cut). A sample whose category is missing (``inverse`` -1) gets a NaN key,
    which the scan scores on both sides (``missing_left``: the better one).
    """
    node_labels, node_targets, node_weight, counts, w_total, t_sum, base = gather_node(
        samples, labels, targets, sample_weight, n_classes, criterion)
    n_orders = keys.shape[0]
    n = samples.shape[0]
    proxies = np.full(n_orders, -np.inf)
    cuts = np.zeros(n_orders)
    missing_left = np.zeros(n_orders, dtype=np.bool_)
    values = np.empty(n)
    left = np.empty(n_classes)
    right = np.empty(n_classes)
    for r in range(n_orders):
        for p in range(n):
            values[p] = keys[r, inverse[p]] if inverse[p] >= 0 else np.nan
        cut = scan_values(values, node_labels, node_targets, node_weight, criterion, counts,
                          w_total, t_sum, min_samples_leaf, min_weight_leaf, left, right)
        proxies[r] = cut.proxy
        cuts[r] = cut.threshold
        missing_left[r] = cut.missing_left
    return proxies, cuts, missing_left, base


def best_subset_split(data, samples, feature):
    """The best subset split of one categorical feature at a node, or ``None``.

    Parameters
    ----------
    data : SplitData
    samples : ndarray of int64
        The node's samples.
    feature : int
        A column of integer codes in ``[0, 63]``.

    Returns
    -------
    Split or None
        A categorical split (``category_mask``: the codes going left; a code
        the node never saw goes right; ``missing_left``: the side of a missing
        code) whose ``objective`` is the weighted child impurity ``G`` of the
        partition, or ``None`` when the feature takes one value at the node (and
        none is missing) or no cut respects the leaf sizes.

    Notes
    -----
    Samples missing the feature (NaN) are scored on the left and on the right of
    every prefix, and with all the known categories on the left; Breiman's
    argument still holds with them fixed on one side (the objective stays
    concave in the left side's totals), so the search stays exact for two
    classes and regression: the best category subset times the missing side.
    The orders are those of the known samples.
    """
    samples = np.ascontiguousarray(samples, dtype=ITYPE)
    codes = data.X[samples, feature]
    known = ~np.isnan(codes)
    categories, inverse_known = node_categories(codes[known])
    if categories.size < (2 if known.all() else 1):
        return None
    inverse = np.full(samples.shape[0], -1, dtype=ITYPE)
    inverse[known] = inverse_known
    keys = category_orders(inverse_known, categories.size, data.labels[samples[known]],
                           data.targets[samples[known]], data.sample_weight[samples[known]],
                           data.n_classes)
    proxies, cuts, missing_left, base = scan_orders(
        np.ascontiguousarray(keys), inverse, samples, data.labels, data.targets,
        data.sample_weight, data.n_classes, data.criterion, data.min_samples_leaf,
        data.min_weight_leaf)
    if not np.isfinite(proxies).any():
        return None
    r = int(np.argmax(proxies))  # first best order
    subset = subset_below(categories, keys[r], cuts[r])
    return make_split([feature, -1], [1.0, 0.0], 0.0, base - proxies[r],
                      category_mask=categories_to_mask(subset),
                      missing_left=bool(missing_left[r]), kind="categorical",
                      categories=[int(c) for c in subset])


# ------------------------------------------------------------------ indicators
def _present_categories(column):
    """The distinct codes of a categorical column (NaN left out), as int64."""
    return np.unique(column[~np.isnan(column)]).astype(ITYPE)


def n_indicator_sets(X, categorical):
    """How many indicator columns :func:`indicator_sets` makes for ``X``'s categories."""
    total = 0
    for f in categorical:
        k = _present_categories(X[:, f]).size
        total += 0 if k < 2 else 1 if k == 2 else k + max(0, k - 3)
    return total


def indicator_sets(data, categorical):
    """The categorical column and the category set of each indicator column of a fit.

    For a column with ``k`` categories: the indicator of each category (one for
    ``k = 2``: the other is its complement, which splits the same way; none for
    ``k = 1``), then, for ``k >= 4``, the prefixes of 2 to ``k - 2`` categories of
    Breiman's order over the fit's samples (:func:`category_orders`: share of the
    second class for two classes, mean target for regression; with more classes,
    the share of the heaviest class, one order of the node's heuristic). The
    prefixes are the subsets the best subset of the whole fit is drawn from; a
    pair search can then tilt a numeric cut by a group of categories that act
    alike (``x7 + 0.3 * [age in {30-39, 40-49}]``) and not only by one.

    Parameters
    ----------
    data : SplitData
    categorical : array-like of int

    Returns
    -------
    feature : ndarray of int64
    mask : ndarray of uint64
        The set of each indicator (bit ``c``: code ``c``).
    """
    features, masks = [], []
    weights = data.sample_weight
    for f in categorical:
        column = data.X[:, f]
        present = _present_categories(column)
        if present.size < 2:
            continue
        for c in present[:1] if present.size == 2 else present:
            features.append(int(f))
            masks.append(categories_to_mask([c]))
        if present.size < 4:
            continue
        known = np.flatnonzero(~np.isnan(column) & (weights > 0))
        inverse = np.searchsorted(present, column[known].astype(ITYPE))
        with np.errstate(invalid="ignore", divide="ignore"):
            keys = category_orders(inverse, present.size, data.labels[known],
                                   data.targets[known], weights[known], data.n_classes)
        row = 0
        if keys.shape[0] > 1:
            class_w = np.bincount(data.labels[known], weights=weights[known],
                                  minlength=data.n_classes)
            row = int(np.searchsorted(np.flatnonzero(class_w > 0), np.argmax(class_w)))
        # NaN keys (a category of zero-weight rows only) last, ties by code
        order = present[np.argsort(np.nan_to_num(keys[row], nan=np.inf), kind="stable")]
        for length in range(2, present.size - 1):
            features.append(int(f))
            masks.append(categories_to_mask(order[:length]))
    return np.asarray(features, dtype=ITYPE), np.asarray(masks, dtype=MASK_DTYPE)


#: what a fit whose indicator columns do not fit in memory can do instead.
_INDICATOR_WAY_OUT = ("group rare categories (max_categories) or test each categorical "
                      "feature alone (splitter_options={'category_pairs': False})")


class _IndicatorSearch:
    """The data of a fit with the categorical columns' indicators appended.

    ``data`` is the fit's :class:`SplitData` (columns ``0..d-1``); ``search``
    the same with the indicator columns ``d, d+1, ...`` appended, ``feature``
    and ``mask`` the categorical column and category set of each
    (:func:`indicator_sets`).
    """

    def __init__(self, data, categorical):
        self.feature, self.mask = indicator_sets(data, categorical)
        n, d = data.X.shape
        need = float(n) * float(d + self.feature.size) * 8.0
        message = (f"pairing the categories' indicators with the other features needs a "
                   f"copy of X with {self.feature.size} indicator columns, {need / 2**30:.3g} "
                   "GiB")
        available = _memory.available_memory()
        if available is not None and need > available:
            raise MemoryError(f"{message}, more than the {available / 2**30:.3g} GiB available: "
                              f"{_INDICATOR_WAY_OUT}")
        try:
            columns = np.empty((n, d + self.feature.size), order="F")
        except MemoryError:
            raise MemoryError(f"{message}, which could not be allocated: "
                              f"{_INDICATOR_WAY_OUT}") from None
        columns[:, :d] = data.X
        for j, (f, mask) in enumerate(zip(self.feature, self.mask)):
            columns[:, d + j] = indicator_values(data.X[:, f], mask)
        self.data = data
        self.n_features = d
        # an indicator column is its categorical feature to the constraints (an
        # interaction group holding the feature holds its indicators)
        sources = np.concatenate([np.arange(d, dtype=ITYPE), self.feature])
        self.search = SplitData(
            X=columns, labels=data.labels,
            targets=data.targets, sample_weight=data.sample_weight, n_classes=data.n_classes,
            criterion=data.criterion, min_samples_leaf=data.min_samples_leaf,
            min_weight_leaf=data.min_weight_leaf, has_missing=data.has_missing,
            constraints=data.constraints.for_columns(sources))
        self._of_feature = {int(f): np.flatnonzero(self.feature == f) + self.n_features
                            for f in np.unique(self.feature)}

    def columns_of(self, features):
        """The indicator columns of the categorical ``features``."""
        parts = [self._of_feature[int(f)] for f in features if int(f) in self._of_feature]
        return np.concatenate(parts).astype(ITYPE) if parts else np.zeros(0, dtype=ITYPE)

    def stored(self, split):
        """``split`` (found on the search columns) as the rule on the fit's columns."""
        if split is None:
            return None
        features = split.features.copy()
        on_indicator = features >= self.n_features
        if not on_indicator.any():
            return split
        masks = slot_masks(split.category_mask, features.shape[0])
        j = features[on_indicator] - self.n_features
        features[on_indicator] = self.feature[j]
        masks[on_indicator] = self.mask[j]
        info = dict(split.info, indicators=[
            [int(self.feature[i]), mask_to_categories(self.mask[i])] for i in j])
        if np.count_nonzero(features >= 0) == 1:
            f = int(features[features >= 0][0])
            if split.threshold >= ALL_KNOWN_LEFT:
                # every known category left, the missing ones on their side: the
                # categorical node "x_c in {every category of the fit}", sides kept
                present = _present_categories(self.data.X[:, f])
                masks[features >= 0] = categories_to_mask(present)
                return make_split(features, split.weights, 0.0, split.objective,
                                  category_mask=masks, missing_left=split.missing_left,
                                  **dict(info, kind="categorical",
                                         categories=[int(c) for c in present]))
            # ``[x_c in S] <= t`` sends the other categories left: stored as the
            # categorical node "x_c in S", left and right swapped (same objective)
            return make_split(features, split.weights, 0.0, split.objective,
                              category_mask=masks, missing_left=not split.missing_left,
                              **dict(info, kind="categorical",
                                     categories=mask_to_categories(self.mask[j[0]])))
        return make_split(features, split.weights, split.threshold, split.objective,
                          category_mask=masks, missing_left=split.missing_left, **info)


# ------------------------------------------------------------ with a splitter
class WithCategories:
    """A splitter whose categorical candidate features offer subset splits.

    At a node, the wrapped splitter searches the numeric candidate features
    (with ``category_pairs`` set on the wrapped splitter, and the indicators of
    the categorical candidates' categories beside them, see the module's notes);
    each categorical candidate offers :func:`best_subset_split`; the split of
    least objective wins, a categorical one only when it beats the other by more
    than ``BEATS_TOLERANCE`` of the node weight (rounding between two
    evaluations, never a real improvement). Everything else
    (``max_node_features``, ``prepare``...) is the wrapped splitter's.

    Parameters
    ----------
    splitter : Splitter
    categorical : array-like of int
        The categorical columns.
    """

    def __init__(self, splitter, categorical):
        self.splitter = splitter
        self.categorical = np.asarray(categorical, dtype=ITYPE)
        self.indicator_pairs = bool(getattr(splitter, "category_pairs", False))

    def __getattr__(self, name):
        # only called for what this class does not define: the wrapped splitter's
        # name, max_node_features, searches_pairs, pairs_searched...
        if name == "splitter":
            raise AttributeError(name)
        return getattr(self.splitter, name)

    def n_indicators(self, X):
        """How many indicator columns the numeric search gets on ``X`` (0 without pairs)."""
        if not self.indicator_pairs:
            return 0
        return n_indicator_sets(X, self.categorical)

    def prepare(self, data):
        self.is_categorical_ = np.zeros(data.n_features, dtype=bool)
        self.is_categorical_[self.categorical] = True
        self._indicators = (_IndicatorSearch(data, self.categorical)
                            if self.indicator_pairs else None)
        self.splitter.prepare(data if self._indicators is None else self._indicators.search)

    def find_split(self, data, samples, features, bounds=UNBOUNDED):
        features = np.asarray(features, dtype=ITYPE)
        is_cat = self.is_categorical_[features]
        numeric = features[~is_cat]
        indicators = self._indicators
        # the node's bounds reach the wrapped splitter only when growth gives them (a fit
        # with monotonic constraints, whose splitters take them)
        extra = () if bounds is UNBOUNDED else (bounds,)
        if indicators is not None and indicators.data is data:
            searched = np.concatenate([numeric, indicators.columns_of(features[is_cat])])
            best = (indicators.stored(self.splitter.find_split(indicators.search, samples,
                                                               searched, *extra))
                    if searched.size else None)
        else:
            best = (self.splitter.find_split(data, samples, numeric, *extra) if numeric.size
                    else None)
        tolerance = BEATS_TOLERANCE * max(float(data.sample_weight[samples].sum()), 1.0)
        for f in features[is_cat]:
            split = best_subset_split(data, samples, int(f))
            if split is not None and (best is None
                                      or split.objective < best.objective - tolerance):
                best = split
        return best
