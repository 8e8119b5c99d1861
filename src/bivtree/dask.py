"""One bivariate tree fitted on a Dask cluster, on data larger than one machine's memory.

:class:`DaskBivariateTreeClassifier` and :class:`DaskBivariateTreeRegressor` fit
the tree of :class:`~bivtree.BivariateTreeClassifier` /
:class:`~bivtree.BivariateTreeRegressor` from a dask array or dask DataFrame
(e.g. ``dask.dataframe.read_parquet``), on the active ``distributed.Client``,
without bringing the data to the client. The growth follows PLANET (Panda et
al., 2009) and the trees of Spark MLlib:

* **Large nodes, level by level, from histograms.** The nodes of a level are
  searched together: each partition routes its rows through the partial tree
  (the routing of :meth:`bivtree.tree.Tree.apply`) and adds them to
  histograms of their node (:mod:`bivtree._kernels.histograms`); Dask sums the
  partitions' histograms in a fixed tree reduction and the client scans them
  (:mod:`bivtree._histogram_search`). A level takes these passes over the
  data, for all its nodes at once:

  1. per feature, class counts (or target moments) on ``max_bins`` quantile
     bins computed once from a sample, a bin for missing values, and each
     category of a categorical column: the best univariate cut on the bin
     edges and the best category subset (Breiman's order), as the in-memory
     search scores them; also every feature's range at the node;
  2. the ``default`` search's idea for pairs: the pairs among the
     ``max_pair_features`` features with the best univariate cuts (and of the
     best one with every other), ``n_coarse`` directions each in the pair's
     decorrelated frame (taken on the sample), histograms of every direction's
     projection on ``max_bins`` equal-width bins over its range at the node
     (a bin in one step; they only rank the directions, as the in-memory
     coarse phase ranks them);
  3. ``n_rounds`` passes of refined directions around the best coarse angle
     of the ``n_refine`` best pairs (``n_refine_angles`` angles each, the
     spacing shrinking ``n_refine_angles / 2`` times per pass; the first pass
     scores the coarse angle itself again), on quantile bins of the
     projection on the node's rows of the sample;
  4. a final pass on fine bins (the two bins around the best cut, cut evenly
     into ``max_bins`` bins) of the winning projection and of the best
     univariate feature.

  A bivariate split is kept only if it beats the best univariate split by
  more than rounding, as in memory.
* **Small nodes, in memory.** A node of at most ``local_rows`` rows is grown
  by the in-memory estimator with the same parameters (and the remaining
  depth) on one worker: its rows are gathered there, in their original order,
  during the next pass, and the nodes of a level grow in parallel
  (``client.compute``). Their subtrees are stitched into one
  :class:`~bivtree.tree.Tree`.

**What is guaranteed.** With ``local_rows`` at least the number of rows the
fit is the in-memory estimator's, bit for bit (the whole data is gathered on
one worker, in order, and fitted there: same tree arrays, same predictions).
Otherwise the nodes grown in memory are exact as in memory, and every
histogram node's split is the best among the tests searched: the univariate
cuts at the quantile bin edges (then on fine bins around the best one), every
category subset that is a prefix of Breiman's order (exact for two classes and
regression), and the bivariate cuts on the bin edges of the searched
directions; its children's counts, values and impurities are exact (sums of
bins). A histogram node may miss the exact search's split where it falls
between two bin edges, or on a direction or pair the search does not reach;
categorical features are split by category subsets there, not paired with
numeric ones. The stopping rules are the in-memory estimator's
(``max_depth``, ``min_samples_split``, ``min_samples_leaf``,
``min_impurity_decrease``, pure nodes).

A fit either completes with this tree or raises: worker failures are Dask's
to retry (lost partitions are recomputed from the graph), and every pass's
result depends only on the data and the partial tree, so a retried pass gives
the same numbers. ``n_passes_`` counts the passes over the data.
"""

import math
import numbers
import operator
import time
from dataclasses import dataclass, field
from typing import ClassVar

import numpy as np
from sklearn.base import BaseEstimator, ClassifierMixin, RegressorMixin
from sklearn.utils.multiclass import check_classification_targets
from sklearn.utils.validation import check_is_fitted

try:
    import dask
    import dask.array as da
    import distributed
    from dask import delayed
except ImportError as error:  # pragma: no cover - the tests skip without dask
    raise ImportError("bivtree.dask needs dask and distributed: pip install 'bivtree[dask]'"
                      ) from error

from ._config import (
    CLASSIFICATION_CRITERIA,
    DTYPE,
    IMPURITY_EPSILON,
    ITYPE,
    LTYPE,
    NO_FEATURE,
    REGRESSION_CRITERIA,
    TREE_LEAF,
    TREE_UNDEFINED,
)
from ._histogram_search import (
    best_cuts,
    counts_of,
    cut_threshold,
    node_summary,
    projection_edges,
    proxy_base,
    subset_rows,
    weighted_impurity,
    zoom_edges,
)
from ._kernels.angle_search import decorrelated_frame, frame_direction, screened_pairs
from ._kernels.histograms import feature_histograms, node_slot_moments, projection_histograms
from ._kernels.pair_scaling import pair_rule_weight
from ._tabular import (
    MAX_CODES,
    _codes,
    _column,
    _resolve,
    _sorted_categories,
    check_column_names,
    plain_scalar,
)
from ._threads import numba_threads
from ._validation import InstanceOf, Integral, Interval, Options, Real, RealNotInt, check_params
from .estimators import (
    BivariateTreeClassifier,
    BivariateTreeRegressor,
    _check_feature_magnitudes,
    _check_label_types,
    _check_numeric_frame,
    _check_numeric_targets,
    _check_target_magnitudes,
    tree_feature_importances,
)
from .optimal_univariate import candidate_thresholds
from .splitters import SPLITTERS
from .splitters._base import BEATS_TOLERANCE
from .tree import MASK_DTYPE, Tree, default_missing_left

__all__ = ["DaskBivariateTreeClassifier", "DaskBivariateTreeRegressor"]

#: partial results summed per task of the tree reduction
SPLIT_EVERY = 8
#: the most bytes of projection histograms one pass computes per partition; a level whose
#: candidates need more takes several passes (its nodes in groups)
MAX_PASS_BYTES = 256 * 2**20
#: sample rows a node's decorrelated frames and projection bins are taken on, at most
FRAME_SAMPLE_ROWS = 4096

OPEN, LOCAL, GATHERED, LEAF, SPLIT = "open", "local", "gathered", "leaf", "split"


# ---------------------------------------------------------------- partitions
@dataclass
class _Reader:
    """How a partition becomes the float64 matrix the kernels read (sent to every task).

    Categorical columns become the codes ``0, 1, ...`` of ``lookups`` (NaN:
    missing), numeric ones float64; labels become indices into ``classes``.
    """

    frame: bool
    n_features: int
    categorical: np.ndarray
    regression: bool
    lookups: list = None
    classes: np.ndarray = None


def _float_column(column):
    """A pandas column as float64, pandas' missing values (``pd.NA``) as NaN."""
    if hasattr(column, "to_numpy"):
        return column.to_numpy(dtype=DTYPE, na_value=np.nan)
    return np.asarray(column, dtype=DTYPE)


def _numeric_matrix(part, reader):
    """The partition's numeric columns as float64 (C order); categorical columns NaN."""
    if not reader.frame:
        values = np.asarray(part)
        if values.ndim != 2 or values.shape[1] != reader.n_features:
            raise ValueError(f"a partition of X has shape {values.shape}, expected "
                             f"(n, {reader.n_features})")
        if reader.categorical.size == 0:
            return np.ascontiguousarray(values, dtype=DTYPE)
    out = np.full((len(part), reader.n_features), np.nan)
    cat = set(reader.categorical.tolist())
    for j in range(reader.n_features):
        if j not in cat:
            out[:, j] = (_float_column(part.iloc[:, j]) if reader.frame
                         else np.asarray(part[:, j], dtype=DTYPE))
    return out


def _category_values(part, j):
    """Column ``j``'s values and missing mask (None, NaN and the empty text are missing)."""
    values, missing, _ = _column(part, j)
    missing = missing | np.array([isinstance(v, str) and v == "" for v in values], dtype=bool)
    return values, missing


def _target_values(part):
    return part.to_numpy() if hasattr(part, "to_numpy") else np.asarray(part)


def _scan_partition(part, y_part, reader, n_sample):
    """What the first pass learns of a partition: sizes, ranges, categories, labels, a sample."""
    X = _numeric_matrix(part, reader)
    y = _target_values(y_part)
    n = X.shape[0]
    out = {"n": n, "n_y": int(y.shape[0]) if y.ndim == 1 else -1, "y_ndim": y.ndim}
    with np.errstate(invalid="ignore"):
        magnitude = np.abs(X)
        out["nan"] = np.isnan(X).any(axis=0)
        out["inf"] = np.isinf(X).any(axis=0)
        out["largest"] = np.fmax.reduce(magnitude, axis=0, initial=0.0) if n else np.zeros(
            X.shape[1])
        out["smallest"] = np.where(magnitude > 0, magnitude, np.inf).min(
            axis=0, initial=np.inf)
    out["present"] = {}
    for j in reader.categorical.tolist():
        values, missing = _category_values(part, j)
        out["present"][j] = {plain_scalar(v) for v in values[~missing]}
        out["nan"][j] = bool(missing.any())
    if y.ndim == 1 and y.shape[0] == n:
        out.update(_scan_targets(y, reader.regression))
    rows = np.arange(n) if n <= n_sample else (np.arange(n_sample) * n) // n_sample
    out["sample"] = (part.iloc[rows] if reader.frame else np.asarray(part)[rows], y[rows])
    return out


def _scan_targets(y, regression):
    """Missing targets, and the distinct labels (classifier) or the largest |y| (regressor)."""
    if regression:
        _check_numeric_targets(y)
        values = np.asarray(y, dtype=DTYPE)
        missing = int(np.isnan(values).sum())
        known = values[~np.isnan(values)]
        finite = known[np.isfinite(known)]
        return {"y_missing": missing, "y_inf": int(np.isinf(known).sum()),
                "y_largest": float(np.abs(finite).max(initial=0.0)),
                "y_moments": np.array([finite.size, finite.sum(), (finite * finite).sum()])}
    absent = _label_missing(y)
    _check_label_types(y[~absent])
    labels, counts = np.unique(y[~absent], return_counts=True)
    return {"y_missing": int(np.count_nonzero(absent)), "labels": labels, "counts": counts}


def _label_missing(y):
    if y.dtype.kind == "f":
        return np.isnan(y)
    if y.dtype == object:
        import pandas as pd

        return np.asarray(pd.isna(y), dtype=bool)
    return np.zeros(y.shape[0], dtype=bool)


def _encode_partition(part, y_part, reader):
    """``(X, labels, targets)`` of a partition: float64 rows (C order), class indices, targets."""
    X = _numeric_matrix(part, reader)
    for j, lookup in zip(reader.categorical.tolist(), reader.lookups):
        values, missing = _category_values(part, j)
        X[:, j] = _codes(values, missing, lookup)[0]
    y = _target_values(y_part)
    n = X.shape[0]
    if reader.regression:
        return X, np.zeros(n, dtype=LTYPE), np.ascontiguousarray(y, dtype=DTYPE)
    labels = np.searchsorted(reader.classes, y).astype(LTYPE)
    return X, labels, np.zeros(n, dtype=DTYPE)


def _route(part, tree):
    """The node of ``tree`` each row of the partition reaches."""
    with numba_threads(1):
        return tree.apply(part[0])


def _feature_task(part, route, payload):
    X, labels, targets = part
    with numba_threads(1):
        return feature_histograms(X, route, *payload[:6], labels, targets, *payload[6:])


def _combine_features(*results):
    """Sum of the partitions' feature histograms, in the order given; ranges merged."""
    hist, lo, hi = (np.array(a, copy=True) for a in results[0])
    for other in results[1:]:
        hist += other[0]
        np.minimum(lo, other[1], out=lo)
        np.maximum(hi, other[2], out=hi)
    return hist, lo, hi


def _projection_task(part, route, payload):
    X, labels, targets = part
    with numba_threads(1):
        return projection_histograms(X, route, *payload[:9], labels, targets, *payload[9:])


def _sum_arrays(*arrays):
    """Sum of arrays (or of tuples of arrays), in the order given."""
    if isinstance(arrays[0], tuple):
        return tuple(_sum_arrays(*parts) for parts in zip(*arrays))
    total = np.array(arrays[0], copy=True)
    for other in arrays[1:]:
        total += other
    return total


def _select_task(part, route, nodes):
    """The partition's rows of each node in ``nodes``, in row order."""
    X, labels, targets = part
    return {node: (X[route == node], labels[route == node], targets[route == node])
            for node in nodes}


def _moments_task(part, tree, shift):
    with numba_threads(1):
        return node_slot_moments(part[0], tree.children_left, tree.children_right,
                                 tree.features, tree.weights, tree.threshold,
                                 tree.category_mask, tree.missing_go_left, shift)


def _fit_whole(estimator, X, y):
    """The in-memory fit of all the data (gathered on this worker, in order)."""
    return estimator.fit(X, y)


def _fit_subtree(spec, *pieces):
    """The in-memory fit of one node's rows; its tree in the fit's codes and classes."""
    estimator, categorical, n_values = spec
    X = np.concatenate([p[0] for p in pieces])
    labels = np.concatenate([p[1] for p in pieces])
    targets = np.concatenate([p[2] for p in pieces])
    regression = isinstance(estimator, BivariateTreeRegressor)
    estimator.fit(X, targets if regression else labels)
    tree = estimator.tree_
    value = tree.value
    if not regression:
        value = np.zeros((tree.node_count, n_values))
        value[:, estimator.classes_.astype(ITYPE)] = tree.value
    mask = tree.category_mask.copy()
    if categorical.size:
        # the local fit numbered the categories present in its rows 0, 1, ...: back to the
        # fit's codes, which its categories_ hold
        for node, slot in zip(*np.nonzero(mask)):
            local = estimator.categories_[tree.features[node, slot]]
            bits = [int(local[c]) for c in range(len(local)) if (int(mask[node, slot]) >> c) & 1]
            mask[node, slot] = sum(1 << b for b in bits)
    return Tree(tree.children_left, tree.children_right, tree.features, tree.weights,
                tree.threshold, tree.impurity, tree.n_node_samples, tree.weighted_n_node_samples,
                value, tree.n_features, mask, tree.missing_go_left, missing_learned=True)


def _reduce(items, combine):
    """One delayed value combining ``items`` by a tree reduction in a fixed order."""
    while len(items) > 1:
        items = [delayed(combine, pure=True)(*items[i:i + SPLIT_EVERY])
                 for i in range(0, len(items), SPLIT_EVERY)]
    return items[0]


# --------------------------------------------------------------------- input
def _is_dask(obj):
    return dask.is_dask_collection(obj)


def _is_pandas_like(obj):
    """Whether a dask collection is a DataFrame or Series (its partitions are pandas')."""
    return hasattr(getattr(obj, "_meta", None), "iloc")


def _partitions(X, y):
    """Matching lists of delayed partitions of ``X`` (2-D, whole rows) and ``y``."""
    if _is_pandas_like(X) and _is_pandas_like(y) and getattr(y, "ndim", 1) == 1:
        return X, *_frame_partitions(X, y)
    if _is_pandas_like(X):
        x_parts = list(X.to_delayed())
    else:
        if X.ndim != 2:
            raise ValueError(f"X must be 2-D (n_samples, n_features), got {X.ndim} dimension(s)")
        X = X.rechunk({1: -1})
        if not any(math.isnan(c) for c in X.chunks[0]) and not _is_pandas_like(y) and (
                getattr(y, "ndim", 1) == 1 and not any(math.isnan(c) for c in y.chunks[0])):
            if sum(y.chunks[0]) != sum(X.chunks[0]):
                raise ValueError(f"X has {sum(X.chunks[0])} rows but y has {sum(y.chunks[0])}; "
                                 "they must have one value per row")
            y = y.rechunk({0: X.chunks[0]})
        x_parts = list(X.to_delayed().ravel())
    if _is_pandas_like(y):
        y_parts = list(y.to_delayed())
    else:
        y_parts = list(y.to_delayed().ravel())
    if len(y_parts) != len(x_parts):
        raise ValueError(f"X has {len(x_parts)} partitions and y has {len(y_parts)}; give y "
                         "the partitions of X (e.g. y = df['target'] from the frame X comes "
                         "from)")
    return X, x_parts, y_parts


def _frame_partitions(X, y):
    """Partitions of a dask DataFrame and Series as one frame's: ``X["a"]`` and ``X["y"]``
    of one ``read_parquet`` may be read in different partitions once optimized."""
    name = "__bivtree_y"
    while name in X.columns:
        name += "_"
    try:
        both = X.assign(**{name: y})
    except (ValueError, NotImplementedError) as error:
        raise ValueError(f"X has {X.npartitions} partitions and y has {y.npartitions}, and "
                         f"they cannot be aligned ({error}); give y the partitions of X (e.g. "
                         "y = df['target'] from the frame X comes from)") from None
    parts = both.to_delayed()
    return ([delayed(_drop_column, pure=True)(p, name) for p in parts],
            [delayed(operator.getitem, pure=True)(p, name) for p in parts])


def _drop_column(frame, name):
    return frame.drop(columns=name)


def _client():
    try:
        return distributed.default_client()
    except ValueError:
        raise ValueError("the Dask estimators fit on a distributed cluster: start a "
                         "distributed.Client first (e.g. Client(LocalCluster()) or "
                         "Client('scheduler-address'))") from None


# --------------------------------------------------------------------- nodes
@dataclass
class _Node:
    """A node of the distributed growth."""

    depth: int
    n: int
    stats: np.ndarray
    kind: str
    parent: int = -1
    split: tuple = None  # (features, weights, threshold, category_mask, missing_left)
    left: int = TREE_LEAF
    right: int = TREE_LEAF
    subtree: object = None  # a Future of the Tree grown in memory, then the Tree


@dataclass
class _Rule:
    """A candidate test of an open node: ``x_j + weight * x_k <= t`` (``k`` -1: on ``x_j``)."""

    j: int
    k: int = -1
    weight: float = 0.0
    edges: np.ndarray = None
    lo: float = -np.inf  # bounds of the values at the node (the zoom's outer edges)
    hi: float = np.inf
    angle: float = 0.0
    pair: int = -1
    objective: float = np.inf
    threshold: float = 0.0
    missing_left: bool = False
    mask: int = 0
    left: np.ndarray = None
    right: np.ndarray = None
    n_missing: float = 0.0
    index: int = -1
    even: bool = False  # equal-width bins over [lo, hi] (ranking only), else ``edges``

    def arrays(self):
        """The rule's slots: features and weights."""
        return ([self.j, self.k], [1.0, self.weight]) if self.k >= 0 else ([self.j, -1],
                                                                           [1.0, 0.0])


@dataclass
class _Search:
    """What a level learns about one open node."""

    node: int
    stats: np.ndarray
    numeric: np.ndarray = None  # the numeric features
    univariate_proxies: np.ndarray = None  # minus the best cut's objective of each of them
    inv_scale: np.ndarray = None  # 1 / range of each feature at the node (0: constant)
    univariate: _Rule = None
    numeric_best: _Rule = None
    pairs: list = field(default_factory=list)  # (j, k, frame, lo_j, hi_j, lo_k, hi_k)
    sample: np.ndarray = None
    subsets: list = field(default_factory=list)  # the best subset split of each category
    best_pairs: list = field(default_factory=list)  # per refined pair: its best _Rule
    bivariate: _Rule = None


class _Grower:
    """Level-wise growth of the large nodes, local growth of the small ones (the module)."""

    def __init__(self, estimator, client, parts, data):
        self.est = estimator
        self.client = client
        self.parts = parts
        self.data = data
        self.criterion = estimator._criterion_code()
        self.regression = data["regression"]
        self.n_stats = 3 if self.regression else data["n_classes"]
        self.nodes = []
        self.t0 = time.perf_counter()
        cuts = data["cuts"]
        self.cut_offsets = np.zeros(len(cuts) + 1, dtype=ITYPE)
        self.cut_offsets[1:] = np.cumsum([len(c) for c in cuts])
        self.cuts_flat = np.concatenate(cuts) if cuts else np.zeros(0)
        self.categorical = np.zeros(data["n_features"], dtype=bool)
        self.categorical[data["categorical"]] = True
        n_codes = max([len(c) for c in data["lookups_values"]] + [0])
        self.feature_width = max(max(len(c) for c in cuts) + 1, n_codes) + 1
        self.n_edges = estimator.max_bins - 1
        self.width = estimator.max_bins + 1

    # ----------------------------------------------------------- passes
    def _pass(self, what):
        self.est.n_passes_ += 1
        if self.est.verbose > 1:
            print(f"[bivtree.dask] pass {self.est.n_passes_}: {what}", flush=True)

    def _compute(self, value):
        return self.client.compute(value).result()

    def _routes(self, tree):
        payload = delayed(tree, pure=True)
        return self.client.persist([delayed(_route, pure=True)(p, payload) for p in self.parts])

    def _feature_pass(self, routes, slot_of_node, n_slots):
        """Every feature's histograms and range at every open node: ``(hist, lo, hi)``.

        Open nodes whose histograms pass :data:`MAX_PASS_BYTES` per partition are
        taken in groups, one pass each.
        """
        per_node = self.data["n_features"] * (self.feature_width * self.n_stats + 2) * 8
        group = max(1, MAX_PASS_BYTES // per_node)
        parts = []
        for first in range(0, n_slots, group):
            size = min(group, n_slots - first)
            self._pass("feature histograms")
            inside = (slot_of_node >= first) & (slot_of_node < first + size)
            slots = np.where(inside, slot_of_node - first, -1)
            payload = delayed((slots, size, self.cuts_flat, self.cut_offsets,
                               self.categorical, self.feature_width, self.n_stats,
                               self.regression), pure=True)
            tasks = [delayed(_feature_task, pure=True)(p, r, payload)
                     for p, r in zip(self.parts, routes)]
            parts.append(self._compute(_reduce(tasks, _combine_features)))
        return tuple(np.concatenate(arrays) for arrays in zip(*parts))

    def _projection_pass(self, routes, slot_of_node, rules_by_slot, what):
        """Scan the histograms of every rule of ``rules_by_slot`` (one list per open node);
        the scan's results are written into the rules."""
        per_rule = self.width * self.n_stats * 8
        group, size = [], 0
        for s, rules in enumerate(rules_by_slot):
            if group and (size + len(rules)) * per_rule > MAX_PASS_BYTES:
                self._projection_group(routes, slot_of_node, rules_by_slot, group, what)
                group, size = [], 0
            group.append(s)
            size += len(rules)
        if size:
            self._projection_group(routes, slot_of_node, rules_by_slot, group, what)

    def _projection_group(self, routes, slot_of_node, rules_by_slot, group, what):
        self._pass(what)
        rules = [rule for s in group for rule in rules_by_slot[s]]
        slots = np.full(slot_of_node.shape[0], -1, dtype=ITYPE)
        start = np.zeros(len(group) + 1, dtype=ITYPE)
        for g, s in enumerate(group):
            slots[slot_of_node == s] = g
            start[g + 1] = start[g] + len(rules_by_slot[s])
        m = len(rules)
        features = np.full((m, 2), NO_FEATURE, dtype=ITYPE)
        weights = np.zeros((m, 2))
        edges = np.zeros((m, self.n_edges))
        n_edges = np.zeros(m, dtype=ITYPE)
        even_lo, even_scale = np.zeros(m), np.zeros(m)
        for c, rule in enumerate(rules):
            features[c], weights[c] = rule.arrays()
            n_edges[c] = len(rule.edges)
            edges[c, :n_edges[c]] = rule.edges
            if rule.even:
                even_lo[c], even_scale[c] = rule.lo, (n_edges[c] + 1) / (rule.hi - rule.lo)
        payload = delayed((slots, start, features, weights, edges, n_edges, even_lo, even_scale,
                           self.width, self.n_stats, self.regression), pure=True)
        tasks = [delayed(_projection_task, pure=True)(p, r, payload)
                 for p, r in zip(self.parts, routes)]
        hist = self._compute(_reduce(tasks, _sum_arrays))
        cuts = best_cuts(hist, n_edges, self.criterion, self.est._rules["min_samples_leaf"])
        for c, rule in enumerate(rules):
            rule.objective = float(cuts.objective[c])
            rule.index = int(cuts.index[c])
            rule.missing_left = bool(cuts.missing_left[c])
            rule.left, rule.right = cuts.left[c], cuts.right[c]
            rule.n_missing = float(cuts.n_missing[c])
            if np.isfinite(rule.objective):
                rule.threshold = cut_threshold(rule.edges, len(rule.edges), rule.index)

    # ------------------------------------------------------------ nodes
    def _add_node(self, depth, stats, parent):
        n = round(float(counts_of(stats, self.criterion)))
        node = _Node(depth, n, stats, OPEN, parent)
        rules = self.est._rules
        _, _, impurity = node_summary(stats, self.criterion)
        if (depth >= rules["max_depth"] or n < rules["min_samples_split"]
                or n < 2 * rules["min_samples_leaf"] or impurity <= IMPURITY_EPSILON):
            node.kind = LEAF
        elif n <= self.est.local_rows:
            node.kind = LOCAL
        self.nodes.append(node)
        return len(self.nodes) - 1

    def partial_tree(self):
        """The tree grown so far, every node not split yet a leaf (for routing)."""
        n = len(self.nodes)
        left = np.full(n, TREE_LEAF, dtype=ITYPE)
        right = np.full(n, TREE_LEAF, dtype=ITYPE)
        features = np.full((n, 2), NO_FEATURE, dtype=ITYPE)
        weights = np.zeros((n, 2))
        threshold = np.full(n, TREE_UNDEFINED)
        masks = np.zeros((n, 2), dtype=MASK_DTYPE)
        missing = np.zeros(n, dtype=bool)
        for i, node in enumerate(self.nodes):
            if node.kind == SPLIT:
                left[i], right[i] = node.left, node.right
                features[i], weights[i], threshold[i], masks[i], missing[i] = node.split
        return Tree(left, right, features, weights, threshold, np.zeros(n), np.ones(n, ITYPE),
                    np.ones(n), np.zeros((n, 1)), self.data["n_features"], masks, missing)

    # ------------------------------------------------------------- grow
    def grow(self):
        """Grow the tree; returns it."""
        self._add_node(0, self.data["root_stats"], -1)
        level = 0
        while True:
            tree = self.partial_tree()
            open_nodes = [i for i, node in enumerate(self.nodes) if node.kind == OPEN]
            local = [i for i, node in enumerate(self.nodes) if node.kind == LOCAL]
            if not open_nodes and not local:
                break
            routes = self._routes(tree)
            if local:
                self._gather(routes, local, bool(open_nodes))
            if open_nodes:
                self._search_level(tree, routes, open_nodes)
            self._report(level, open_nodes, local)
            level += 1
        waited = time.perf_counter()
        for node in self.nodes:
            if node.subtree is not None:
                node.subtree = node.subtree.result()
        self.est.local_wait_s_ = time.perf_counter() - waited
        return self._stitch()

    def _report(self, level, open_nodes, local):
        """Record the level in ``levels_``; print it when ``verbose``."""
        record = {"level": level, "open_nodes": len(open_nodes),
                  "rows": sum(self.nodes[i].n for i in open_nodes),
                  "split": sum(self.nodes[i].kind == SPLIT for i in open_nodes),
                  "local_nodes": len(local), "local_rows": sum(self.nodes[i].n for i in local),
                  "passes": self.est.n_passes_, "seconds": time.perf_counter() - self.t0}
        self.est.levels_.append(record)
        if self.est.verbose:
            print(f"[bivtree.dask] level {level}: {record['open_nodes']} node(s) of "
                  f"{record['rows']} rows searched from histograms, {record['split']} split; "
                  f"{record['local_nodes']} node(s) of {record['local_rows']} rows sent to grow "
                  f"in memory; {record['passes']} passes, {record['seconds']:.1f} s",
                  flush=True)

    def _gather(self, routes, local, shared):
        """Gather the rows of the ``local`` nodes and start their in-memory fits."""
        if not shared:
            self._pass("gathering the rows of small nodes")
        selected = [delayed(_select_task, pure=True)(p, r, local)
                    for p, r in zip(self.parts, routes)]
        fits = []
        for i in local:
            node = self.nodes[i]
            spec = (self.est._local_estimator(node, self.data), self.data["categorical"],
                    self.n_stats)
            pieces = [delayed(operator.getitem, pure=True)(s, i) for s in selected]
            fits.append(delayed(_fit_subtree, pure=True)(spec, *pieces))
            node.kind = GATHERED
        for i, future in zip(local, self.client.compute(fits)):
            self.nodes[i].subtree = future

    # ----------------------------------------------------------- a level
    def _search_level(self, tree, routes, open_nodes):
        slot_of_node = np.full(len(self.nodes), -1, dtype=ITYPE)
        slot_of_node[open_nodes] = np.arange(len(open_nodes))
        hist, lo, hi = self._feature_pass(routes, slot_of_node, len(open_nodes))
        sample_leaf = tree.apply(self.data["sample_X"])
        searches = []
        for s, i in enumerate(open_nodes):
            # every row is in one bin of feature 0: the node's statistics as the scans sum them
            search = _Search(i, hist[s, 0].sum(axis=0))
            self._univariate(search, hist[s], lo[s], hi[s])
            rows = np.flatnonzero(sample_leaf == i)
            search.sample = rows[(np.arange(min(rows.size, FRAME_SAMPLE_ROWS)) * rows.size)
                                 // max(1, min(rows.size, FRAME_SAMPLE_ROWS))]
            if self.est.splitter != "univariate":
                self._pairs(search, lo[s], hi[s])
            searches.append(search)
        if any(search.pairs for search in searches):
            self._bivariate(routes, slot_of_node, searches)
        self._finish(routes, slot_of_node, searches)
        for search in searches:
            self._apply(search)

    def _univariate(self, search, hist, lo, hi):
        """The best numeric cut of every feature on the bin edges, and the best subsets."""
        numeric = np.flatnonzero(~self.categorical)
        n_cuts = self.cut_offsets[numeric + 1] - self.cut_offsets[numeric]
        msl = self.est._rules["min_samples_leaf"]
        rules = []
        if numeric.size:
            cuts = best_cuts(hist[numeric], n_cuts, self.criterion, msl)
            for c, f in enumerate(numeric):
                edges = self.cuts_flat[self.cut_offsets[f]:self.cut_offsets[f + 1]]
                rule = _Rule(int(f), edges=edges, lo=lo[f], hi=hi[f])
                self._take_cut(rule, cuts, c)
                rules.append(rule)
        search.univariate_proxies = np.array([-r.objective for r in rules])
        finite = [r for r in rules if np.isfinite(r.objective)]
        search.numeric_best = min(finite, key=lambda r: (r.objective, r.j), default=None)
        search.subsets = self._subsets(hist, msl)
        search.univariate = min(finite + search.subsets, key=lambda r: (r.objective, r.j),
                                default=None)
        search.inv_scale = np.zeros(self.data["n_features"])
        spread = hi - lo
        ok = np.isfinite(spread) & (spread > 0)
        search.inv_scale[ok] = 1.0 / spread[ok]
        search.inv_scale[self.categorical] = 0.0
        search.numeric = numeric

    def _take_cut(self, rule, cuts, c):
        rule.objective = float(cuts.objective[c])
        rule.index = int(cuts.index[c])
        rule.missing_left = bool(cuts.missing_left[c])
        rule.left, rule.right = cuts.left[c], cuts.right[c]
        rule.n_missing = float(cuts.n_missing[c])
        if np.isfinite(rule.objective) and rule.edges is not None:
            rule.threshold = cut_threshold(rule.edges, len(rule.edges), rule.index)

    def _subsets(self, hist, msl):
        """The best category subset of each categorical feature (prefixes of Breiman's order)."""
        features = np.flatnonzero(self.categorical)
        if features.size == 0:
            return []
        rows = subset_rows([hist[f] for f in features], self.criterion, self.feature_width)
        cuts = best_cuts(rows.hist, rows.n_cuts, self.criterion, msl, rows.allowed)
        best = {}
        for r in range(rows.owner.size):
            f = int(features[rows.owner[r]])
            if np.isfinite(cuts.objective[r]) and (
                    f not in best or cuts.objective[r] < best[f].objective):
                rule = _Rule(f)
                self._take_cut(rule, cuts, r)
                codes = rows.codes[r, :rule.index + 1]
                rule.mask = sum(1 << int(c) for c in codes if c >= 0)
                rule.threshold = 0.0
                best[f] = rule
        return list(best.values())

    def _pairs(self, search, lo, hi):
        """The screened pairs of the node, with their decorrelated frames on the sample."""
        est = self.est
        numeric = search.numeric
        if numeric.size < 2:
            return
        proxies = np.where(np.isfinite(search.univariate_proxies), search.univariate_proxies,
                           -np.inf)
        pair_j, pair_k = screened_pairs(numeric.astype(ITYPE), proxies, search.inv_scale,
                                        est.max_pair_features,
                                        min(est.n_anchors, int(np.count_nonzero(
                                            search.inv_scale[numeric] > 0))))
        X = self.data["sample_X"]
        for j, k in zip(pair_j.tolist(), pair_k.tolist()):
            pair_x = np.ascontiguousarray(X[np.ix_(search.sample, [j, k])])
            frame = decorrelated_frame(pair_x, search.inv_scale[j], search.inv_scale[k])
            search.pairs.append((j, k, frame, lo[j], hi[j], lo[k], hi[k]))

    def _direction(self, search, p, theta, even=False):
        """The rule of pair ``p`` of ``search`` at angle ``theta``, or None (no finite rule).

        ``even``: binned evenly over the projection's bounds at the node (for ranking the
        coarse directions), else on quantile edges of the node's sample.
        """
        j, k, frame, lo_j, hi_j, lo_k, hi_k = search.pairs[p]
        a, b = frame_direction(theta, frame)
        w = pair_rule_weight(a, b, search.inv_scale[j], search.inv_scale[k])
        if not math.isfinite(w) or w == 0.0:
            return None
        lo = lo_j + min(w * lo_k, w * hi_k)
        hi = hi_j + max(w * lo_k, w * hi_k)
        if even and math.isfinite(hi - lo) and hi > lo:
            step = (hi - lo) / (self.n_edges + 1)
            edges = lo + step * np.arange(1, self.n_edges + 1)
            return _Rule(j, k, w, edges, lo, hi, theta, p, even=True)
        X = self.data["sample_X"]
        values = (0.0 + 1.0 * X[search.sample, j]) + w * X[search.sample, k]
        edges = projection_edges(values, lo, hi, self.n_edges)
        if edges.size == 0:
            return None
        return _Rule(j, k, w, edges, lo, hi, theta, p)

    def _bivariate(self, routes, slot_of_node, searches):
        """Coarse directions of every screened pair, then refined ones around the best."""
        est = self.est
        coarse = []
        for search in searches:
            rules = [self._direction(search, p, math.pi * (h + 0.5) / est.n_coarse, even=True)
                     for p in range(len(search.pairs)) for h in range(est.n_coarse)]
            coarse.append([r for r in rules if r is not None])
        self._projection_pass(routes, self._slots(slot_of_node, searches), coarse,
                              "coarse directions")
        for search, rules in zip(searches, coarse):
            best = {}
            for rule in rules:  # angles in order: the lower one keeps a tie
                if np.isfinite(rule.objective) and (
                        rule.pair not in best or rule.objective < best[rule.pair].objective):
                    best[rule.pair] = rule
            ranked = sorted(best.values(), key=lambda r: (r.objective, r.pair))
            search.best_pairs = ranked[:est.n_refine]
        step = math.pi / (2.0 * est.n_coarse)
        for _ in range(est.n_rounds):
            if not self._refine(routes, slot_of_node, searches, step):
                break
            step /= max(1, est.n_refine_angles // 2)
        for search in searches:
            if search.best_pairs:
                search.bivariate = min(search.best_pairs, key=lambda r: (r.objective, r.pair))

    def _refine(self, routes, slot_of_node, searches, step):
        """One refining pass: ``n_refine_angles`` angles within ``step`` of each best
        direction; a better one replaces it. False when there was nothing to refine."""
        half = max(1, self.est.n_refine_angles // 2)
        trials = []
        for search in searches:
            rules = []
            for p, centre in enumerate(search.best_pairs):
                if centre.even:
                    # a coarse direction's evenly binned objective, again on quantile bins:
                    # the trials are compared with it on the same footing
                    rescan = self._direction(search, centre.pair, centre.angle)
                    if rescan is not None:
                        rules.append(rescan)
                        search.best_pairs[p] = rescan
                for h in [*range(-half, 0), *range(1, half + 1)]:
                    theta = centre.angle + step * h / half
                    rule = self._direction(search, centre.pair, theta) if (
                        0.0 < theta < math.pi) else None
                    if rule is not None:
                        rules.append(rule)
            trials.append(rules)
        if not any(trials):
            return False
        self._projection_pass(routes, self._slots(slot_of_node, searches), trials,
                              "refined directions")
        for search, rules in zip(searches, trials):
            for p, centre in enumerate(list(search.best_pairs)):
                # the centre first, then ascending angles: the earlier keeps a tie
                for rule in rules:
                    if rule.pair == centre.pair and rule is not centre and (
                            rule.objective < search.best_pairs[p].objective):
                        search.best_pairs[p] = rule
        return True

    def _slots(self, slot_of_node, searches):
        """``slot_of_node`` with the open nodes renumbered in the order of ``searches``."""
        slots = np.full(slot_of_node.shape[0], -1, dtype=ITYPE)
        for s, search in enumerate(searches):
            slots[search.node] = s
        return slots

    def _finish(self, routes, slot_of_node, searches):
        """Fine bins around the best cut of the best bivariate rule and numeric feature."""
        fine = []
        for search in searches:
            rules = []
            for rule in (search.bivariate, search.numeric_best):
                if rule is None or not np.isfinite(rule.objective) or rule.index >= len(
                        rule.edges):
                    continue
                edges = zoom_edges(rule.edges, rule.index, rule.lo, rule.hi, self.n_edges)
                rules.append(_Rule(rule.j, rule.k, rule.weight, edges, rule.lo, rule.hi,
                                   rule.angle, rule.pair))
            fine.append(rules)
        if not any(fine):
            return
        self._projection_pass(routes, self._slots(slot_of_node, searches), fine, "fine bins")
        for search, rules in zip(searches, fine):
            for rule in rules:
                if not np.isfinite(rule.objective):
                    continue
                if rule.k >= 0 and rule.objective <= search.bivariate.objective:
                    search.bivariate = rule
                elif rule.k < 0 and rule.objective <= search.numeric_best.objective:
                    search.numeric_best = rule
            # (a finer numeric cut may now beat a category subset)
            search.univariate = min([search.numeric_best, *search.subsets],
                                    key=lambda r: (r.objective, r.j))

    # ----------------------------------------------------------- splits
    def _chosen(self, search):
        """The node's split: the bivariate rule if it beats the univariate one, as in memory."""
        uni, biv = search.univariate, search.bivariate
        if biv is None or not np.isfinite(biv.objective):
            return uni
        if uni is None:
            return biv
        base = proxy_base(search.stats, self.criterion)
        w = float(counts_of(search.stats, self.criterion))
        tolerance = BEATS_TOLERANCE * max(w, abs(base))
        return biv if biv.objective < uni.objective - tolerance else uni

    def _apply(self, search):
        node = self.nodes[search.node]
        rule = self._chosen(search)
        node.kind = LEAF
        if rule is None:
            return
        n_left = counts_of(rule.left, self.criterion)
        n_right = counts_of(rule.right, self.criterion)
        if n_left == 0 or n_right == 0:
            return
        w = float(counts_of(search.stats, self.criterion))
        improvement = (w / float(counts_of(self.nodes[0].stats, self.criterion))) * (
            float(weighted_impurity(search.stats, self.criterion))
            - float(weighted_impurity(rule.left, self.criterion))
            - float(weighted_impurity(rule.right, self.criterion))) / w
        if improvement + IMPURITY_EPSILON < self.est.min_impurity_decrease:
            return
        missing_left = rule.missing_left if rule.n_missing > 0 else default_missing_left(
            n_left, n_right)
        features, weights = rule.arrays()
        masks = np.array([rule.mask, 0], dtype=MASK_DTYPE)
        threshold = 0.0 if rule.mask else rule.threshold
        node.split = (features, weights, threshold, masks, missing_left)
        node.kind = SPLIT
        node.left = self._add_node(node.depth + 1, rule.left, search.node)
        node.right = self._add_node(node.depth + 1, rule.right, search.node)

    # ---------------------------------------------------------- stitch
    def _stitch(self):
        """The tree in preorder, the in-memory subtrees in place of their nodes."""
        n_values = self.n_stats if not self.regression else 1
        n_slots = max([2] + [n.subtree.features.shape[1] for n in self.nodes
                             if n.subtree is not None])
        rows = []  # (row dict, parent position, is_left)
        stack = [(0, -1, False)]
        while stack:
            i, parent, is_left = stack.pop()
            node = self.nodes[i]
            position = len(rows)
            if parent >= 0:
                rows[parent]["left" if is_left else "right"] = position
            if node.subtree is not None:
                rows.extend(_subtree_rows(node.subtree, position, n_slots))
                continue
            value, w, impurity = node_summary(node.stats, self.criterion)
            row = {"left": TREE_LEAF, "right": TREE_LEAF, "features": [-1] * n_slots,
                   "weights": [0.0] * n_slots, "threshold": TREE_UNDEFINED,
                   "mask": [0] * n_slots, "missing": False, "impurity": impurity,
                   "n": node.n, "w": w, "value": value[:n_values]}
            if node.kind == SPLIT:
                features, weights, threshold, masks, missing = node.split
                row["features"][:2], row["weights"][:2] = features, weights
                row["mask"][:2] = [int(m) for m in masks]
                row["threshold"], row["missing"] = threshold, missing
                stack.append((node.right, position, False))
                stack.append((node.left, position, True))
            rows.append(row)
        return Tree([r["left"] for r in rows], [r["right"] for r in rows],
                    [r["features"] for r in rows], [r["weights"] for r in rows],
                    [r["threshold"] for r in rows], [r["impurity"] for r in rows],
                    [r["n"] for r in rows], [r["w"] for r in rows],
                    np.array([r["value"] for r in rows]), self.data["n_features"],
                    np.array([r["mask"] for r in rows], dtype=MASK_DTYPE),
                    [r["missing"] for r in rows] if self.data["has_missing"] else None)

    def importances(self, tree):
        """Feature importances of ``tree`` as the in-memory estimators compute them.

        The spreads of the bivariate nodes' features take one more pass.
        """
        def spreads():
            self._pass("feature spreads of the bivariate nodes")
            shift = delayed(self.data["shift"], pure=True)
            payload = delayed(tree, pure=True)
            tasks = [delayed(_moments_task, pure=True)(p, payload, shift) for p in self.parts]
            count, total, squares = self._compute(_reduce(tasks, _sum_arrays))
            safe = np.where(count > 0, count, 1.0)[:, None]
            mean = total / safe
            return np.where(count[:, None] > 0,
                            np.sqrt(np.maximum(squares / safe - mean * mean, 0.0)), 0.0)

        return tree_feature_importances(tree, spreads)


def _subtree_rows(tree, offset, n_slots):
    """The rows of an in-memory subtree, its child ids shifted by ``offset``."""
    rows = []
    for i in range(tree.node_count):
        leaf = tree.children_left[i] == TREE_LEAF
        features = [-1] * n_slots
        weights = [0.0] * n_slots
        masks = [0] * n_slots
        width = tree.features.shape[1]
        features[:width] = tree.features[i].tolist()
        weights[:width] = tree.weights[i].tolist()
        masks[:width] = [int(m) for m in tree.category_mask[i]]
        rows.append({"left": TREE_LEAF if leaf else int(tree.children_left[i]) + offset,
                     "right": TREE_LEAF if leaf else int(tree.children_right[i]) + offset,
                     "features": features, "weights": weights,
                     "threshold": float(tree.threshold[i]), "mask": masks,
                     "missing": bool(tree.missing_go_left[i]),
                     "impurity": float(tree.impurity[i]), "n": int(tree.n_node_samples[i]),
                     "w": float(tree.weighted_n_node_samples[i]), "value": tree.value[i]})
    return rows


# ---------------------------------------------------------------- estimators
_LOCAL_PARAMS = ("splitter", "criterion", "n_orientations", "max_depth", "min_samples_split",
                 "min_samples_leaf", "min_impurity_decrease", "splitter_options", "n_jobs",
                 "random_state", "categorical_features")


class _DaskTree(BaseEstimator):
    """Shared machinery of the Dask estimators; use the classifier or the regressor."""

    _local_class: ClassVar[type] = None
    _parameter_constraints: ClassVar[dict] = {
        "splitter": [Options(SPLITTERS)],
        "n_orientations": [Interval(Integral, 1, None, closed="left")],
        "max_depth": [None, Interval(Integral, 1, None, closed="left")],
        "min_samples_split": [Interval(Integral, 2, None, closed="left"),
                              Interval(RealNotInt, 0.0, 1.0, closed="right")],
        "min_samples_leaf": [Interval(Integral, 1, None, closed="left"),
                             Interval(RealNotInt, 0.0, 1.0, closed="neither")],
        "min_impurity_decrease": [Interval(Real, 0.0, None, closed="left")],
        "splitter_options": [None, InstanceOf(dict, "a dict")],
        "n_jobs": [None, Interval(Integral, None, -1, closed="right"),
                   Interval(Integral, 1, None, closed="left")],
        "random_state": [None, Interval(Integral, 0, 2**32 - 1, closed="both"),
                         InstanceOf(np.random.RandomState)],
        "verbose": [Interval(Integral, 0, None, closed="left"), "boolean"],
        "categorical_features": [None, {"from_dtype"}, "array-like"],
        "local_rows": [Interval(Integral, 1, None, closed="left")],
        "max_bins": [Interval(Integral, 4, 4096, closed="both")],
        "max_pair_features": [Interval(Integral, 2, None, closed="left")],
        "n_anchors": [Interval(Integral, 0, None, closed="left")],
        "n_coarse": [Interval(Integral, 1, None, closed="left")],
        "n_refine": [Interval(Integral, 1, None, closed="left")],
        "n_refine_angles": [Interval(Integral, 2, None, closed="left")],
        "n_rounds": [Interval(Integral, 0, None, closed="left")],
        "sample_rows": [Interval(Integral, 100, None, closed="left")],
        "persist": ["boolean"],
    }

    def __init__(self, *, splitter, criterion, n_orientations, max_depth, min_samples_split,
                 min_samples_leaf, min_impurity_decrease, splitter_options, n_jobs,
                 random_state, verbose, categorical_features, local_rows, max_bins,
                 max_pair_features, n_anchors, n_coarse, n_refine, n_refine_angles, n_rounds,
                 sample_rows, persist):
        self.splitter = splitter
        self.criterion = criterion
        self.n_orientations = n_orientations
        self.max_depth = max_depth
        self.min_samples_split = min_samples_split
        self.min_samples_leaf = min_samples_leaf
        self.min_impurity_decrease = min_impurity_decrease
        self.splitter_options = splitter_options
        self.n_jobs = n_jobs
        self.random_state = random_state
        self.verbose = verbose
        self.categorical_features = categorical_features
        self.local_rows = local_rows
        self.max_bins = max_bins
        self.max_pair_features = max_pair_features
        self.n_anchors = n_anchors
        self.n_coarse = n_coarse
        self.n_refine = n_refine
        self.n_refine_angles = n_refine_angles
        self.n_rounds = n_rounds
        self.sample_rows = sample_rows
        self.persist = persist

    # ------------------------------------------------------------ checks
    def _criterion_code(self):
        table = REGRESSION_CRITERIA if self._regression else CLASSIFICATION_CRITERIA
        return table[self.criterion]

    def _validate_params(self):
        table = {**self._parameter_constraints, "criterion": [Options(
            REGRESSION_CRITERIA if self._regression else CLASSIFICATION_CRITERIA)]}
        check_params(type(self).__name__, self.get_params(deep=False), table)
        task = "regression" if self._regression else "classification"
        if task not in SPLITTERS[self.splitter].tasks:
            raise ValueError(f"the {self.splitter!r} splitter grows trees for "
                             f"{' and '.join(SPLITTERS[self.splitter].tasks)} only, not {task}")

    def _local_params(self, n_rows):
        """The in-memory estimator's parameters (fractions of the rows as counts)."""
        params = {name: getattr(self, name) for name in _LOCAL_PARAMS}
        if not isinstance(self.min_samples_leaf, numbers.Integral):
            params["min_samples_leaf"] = int(np.ceil(self.min_samples_leaf * n_rows))
        if not isinstance(self.min_samples_split, numbers.Integral):
            params["min_samples_split"] = max(2, int(np.ceil(self.min_samples_split * n_rows)))
        return params

    def _stopping_rules(self, n_rows):
        params = self._local_params(n_rows)
        msl = params["min_samples_leaf"]
        return {"max_depth": np.iinfo(np.int32).max if self.max_depth is None
                else int(self.max_depth), "min_samples_leaf": msl,
                "min_samples_split": max(params["min_samples_split"], 2 * msl)}

    def _local_estimator(self, node, data):
        """The in-memory estimator growing ``node``'s subtree: the same parameters, the
        remaining depth, and the impurity decrease relative to this node's rows."""
        params = self._local_params(data["n_rows"])
        params["categorical_features"] = data["categorical"] if data["categorical"].size else (
            None)
        if self.max_depth is not None:
            params["max_depth"] = int(self.max_depth) - node.depth
        # the in-memory grower weighs a decrease by the node's share of its root's rows
        params["min_impurity_decrease"] = float(self.min_impurity_decrease) * data[
            "n_rows"] / node.n
        return self._local_class(**params)

    # -------------------------------------------------------------- fit
    def fit(self, X, y):
        """Grow the tree on ``(X, y)`` with the active ``distributed.Client``.

        Parameters
        ----------
        X : dask.array.Array of shape (n_samples, n_features) or dask.dataframe.DataFrame
            Numbers (NaN marks a missing value) and, in a DataFrame, category
            (or text) columns (``categorical_features``).
        y : dask.array.Array of shape (n_samples,) or dask.dataframe.Series
            Class labels (classifier) or finite numeric targets (regressor),
            partitioned as ``X``.

        Returns
        -------
        self
        """
        self._validate_params()
        for name, value in (("X", X), ("y", y)):
            if not _is_dask(value):
                raise TypeError(
                    f"{type(self).__name__}.fit takes a dask array or dask DataFrame as {name}, "
                    f"got {type(value).__name__}; for data in memory use "
                    f"{self._local_class.__name__}")
        client = _client()
        t0 = time.perf_counter()
        self.n_passes_ = 0
        self.levels_ = []
        self.local_wait_s_ = 0.0
        X, x_parts, y_parts = _partitions(X, y)
        data = self._scan(client, X, x_parts, y_parts)
        self._rules = self._stopping_rules(data["n_rows"])
        if data["n_rows"] <= self.local_rows:
            self._fit_in_memory(client, X, y, data)
        else:
            self._fit_levels(client, x_parts, y_parts, data)
        self.fit_time_ = time.perf_counter() - t0
        return self

    def _fit_in_memory(self, client, X, y, data):
        """All rows on one worker, in order: the in-memory estimator's fit, bit for bit."""
        self.n_passes_ += 1
        estimator = self._local_class(**self._local_params(data["n_rows"]))
        x_future, y_future = client.compute([X, y])
        self._local = client.submit(_fit_whole, estimator, x_future, y_future,
                                    pure=False).result()
        self.tree_ = self._local.tree_
        self.feature_importances_ = self._local.feature_importances_

    def _fit_levels(self, client, x_parts, y_parts, data):
        reader = data["reader"]
        parts = [delayed(_encode_partition, pure=True)(xp, yp, reader)
                 for xp, yp in zip(x_parts, y_parts)]
        if self.persist:
            parts = client.persist(parts)
        grower = _Grower(self, client, parts, data)
        tree = grower.grow()
        self.tree_ = tree
        self.feature_importances_ = grower.importances(tree)
        self._local = None

    def _scan(self, client, X, x_parts, y_parts):
        """The first pass: sizes, checks, categories, classes and the sample; the bin edges."""
        meta = getattr(X, "_meta", None)
        frame = _is_pandas_like(X)
        if frame:
            check_column_names(meta)
            self.feature_names_in_ = np.asarray([str(c) for c in meta.columns], dtype=object)
        elif hasattr(self, "feature_names_in_"):
            del self.feature_names_in_
        categorical = _resolve(self, meta if frame else np.zeros((0, X.shape[1])))
        if frame:
            numeric = meta.drop(columns=meta.columns[categorical]) if categorical.size else meta
            _check_numeric_frame(numeric, self)
        elif X.dtype.kind not in "biuf" and not categorical.size:
            raise ValueError(f"X has dtype {X.dtype}; bivariate splits need numbers")
        n_features = meta.shape[1] if frame else X.shape[1]
        reader = _Reader(frame, n_features, categorical.astype(ITYPE), self._regression)
        n_sample = max(1, -(-self.sample_rows // len(x_parts)))
        self.n_passes_ += 1
        scans = client.compute([delayed(_scan_partition, pure=True)(xp, yp, reader, n_sample)
                                for xp, yp in zip(x_parts, y_parts)])
        scans = client.gather(scans)
        return self._read_scans(scans, reader, meta if frame else None)

    def _read_scans(self, scans, reader, meta):
        """Check what the first pass found; the fit's encodings, sample and bin edges."""
        for p, scan in enumerate(scans):
            if scan["y_ndim"] != 1:
                raise ValueError("y must be 1-D (one target per row), got a partition with "
                                 f"{scan['y_ndim']} dimensions")
            if scan["n_y"] != scan["n"]:
                raise ValueError(f"partition {p} of X has {scan['n']} rows but y's has "
                                 f"{scan['n_y']}; X and y must have one value per row")
        n_rows = sum(s["n"] for s in scans)
        if n_rows < 2:
            raise ValueError(f"the Dask estimators need at least 2 rows, got {n_rows}")
        self.n_features_in_ = reader.n_features
        infinite = np.flatnonzero(np.any([s["inf"] for s in scans], axis=0))
        if infinite.size:
            raise ValueError(f"X column {int(infinite[0])} holds infinity; missing values "
                             "are NaN, other values must be finite")
        extremes = np.array([np.max([s["largest"] for s in scans], axis=0),
                             np.min([s["smallest"] for s in scans], axis=0)])
        extremes[:, reader.categorical] = 1.0
        _check_feature_magnitudes(self, np.where(np.isfinite(extremes), extremes, 0.0))
        self._read_targets(scans, reader)
        self._read_categories(scans, reader, meta)
        sample = [_encode_partition(s["sample"][0], s["sample"][1], reader) for s in scans]
        sample_X = np.concatenate([s[0] for s in sample])
        numeric = np.flatnonzero(~np.isin(np.arange(reader.n_features), reader.categorical))
        cuts = [np.zeros(0)] * reader.n_features
        thresholds = candidate_thresholds(sample_X[:, numeric], max_bins=self.max_bins)
        for f, edges in zip(numeric, thresholds):
            cuts[f] = edges
        known = ~np.isnan(sample_X)
        count = known.sum(axis=0)
        shift = np.where(known, sample_X, 0.0).sum(axis=0) / np.maximum(count, 1)
        return {"n_rows": n_rows, "n_features": reader.n_features, "reader": reader,
                "categorical": reader.categorical, "regression": self._regression,
                "n_classes": 1 if self._regression else len(reader.classes),
                "has_missing": bool(np.any([s["nan"] for s in scans])),
                "sample_X": np.ascontiguousarray(sample_X), "cuts": cuts, "shift": shift,
                "root_stats": self._root_stats(scans, reader),
                "lookups_values": [list(lookup) for lookup in reader.lookups]}

    def _root_stats(self, scans, reader):
        """Class counts, or ``[count, sum y, sum y^2]``, of all the rows."""
        if self._regression:
            return np.sum([s["y_moments"] for s in scans], axis=0)
        stats = np.zeros(len(reader.classes))
        for s in scans:
            np.add.at(stats, np.searchsorted(reader.classes, s["labels"]), s["counts"])
        return stats

    def _read_targets(self, scans, reader):
        missing = sum(s["y_missing"] for s in scans)
        if missing:
            raise ValueError(f"y contains NaN or other missing values ({missing} of them); "
                             "missing values are accepted in X only: drop those rows")
        if self._regression:
            if sum(s["y_inf"] for s in scans):
                raise ValueError("y contains infinity; a regressor needs finite targets")
            _check_target_magnitudes(np.array([max(s["y_largest"] for s in scans)]))
            return
        labels = np.concatenate([s["labels"] for s in scans])
        _check_label_types(labels)
        classes = np.unique(labels)
        check_classification_targets(classes)
        reader.classes = classes
        self.classes_ = classes
        self.n_classes_ = int(classes.shape[0])

    def _read_categories(self, scans, reader, meta):
        """The categories of every categorical column, in the in-memory estimators' order."""
        reader.lookups = []
        self.is_categorical_ = None
        self.categories_ = None
        self.infrequent_categories_ = None
        if reader.categorical.size == 0:
            return
        categories = [None] * reader.n_features
        for j in reader.categorical.tolist():
            present = set().union(*(s["present"][j] for s in scans))
            dtype = meta.dtypes.iloc[j] if meta is not None else None
            if dtype is not None and not getattr(getattr(meta.iloc[:, j], "cat", None),
                                                 "known", True):
                dtype = None  # categories unknown to dask: sorted, as for text
            name = (f"column {j}" if meta is None
                    else f"column {j} ({str(meta.columns[j])!r})")
            kept = _sorted_categories(np.array(list(present), dtype=object), dtype, name)
            if len(kept) > MAX_CODES:
                raise ValueError(f"categorical {name} has {len(kept)} categories; a "
                                 f"categorical node tells at most {MAX_CODES} apart: group "
                                 "the rarest categories first, or leave the column out of "
                                 "categorical_features")
            reader.lookups.append({c: k for k, c in enumerate(kept)})
            categories[j] = np.asarray(kept, dtype=object)
        self.is_categorical_ = np.isin(np.arange(reader.n_features), reader.categorical)
        self.categories_ = categories
        self.infrequent_categories_ = [None] * reader.n_features

    # ---------------------------------------------------------- outputs
    def to_local(self):
        """The fitted tree as a plain in-memory estimator.

        Returns
        -------
        BivariateTreeClassifier or BivariateTreeRegressor
            Fitted, with this estimator's tree: the exports, plots, the HTML
            page, JSON persistence and explanations all read it.
        """
        check_is_fitted(self, "tree_")
        if self._local is not None:
            return self._local
        local = self._local_class(**self._local_params(self.tree_.n_node_samples[0]))
        for name in ("tree_", "n_features_in_", "feature_names_in_", "classes_", "n_classes_",
                     "feature_importances_", "is_categorical_", "categories_",
                     "infrequent_categories_", "fit_time_"):
            if hasattr(self, name):
                setattr(local, name, getattr(self, name))
        local.n_outputs_ = 1
        local.max_features_ = self.n_features_in_
        local.split_info_ = [None] * self.tree_.node_count
        local.optimality_gap_ = None
        local.monotonic_cst_ = None
        local.interaction_cst_ = None
        return local

    def _map(self, X, method, dtype, n_columns=None):
        """``method`` of :meth:`to_local` on every partition of ``X``, as a dask array."""
        local = self.to_local()
        if not _is_dask(X):
            raise TypeError(f"{type(self).__name__}.{method} takes a dask array or dask "
                            f"DataFrame, got {type(X).__name__}; for data in memory use "
                            f"to_local().{method}")
        function = getattr(local, method)
        if _is_pandas_like(X):
            parts = [delayed(function, pure=True)(p) for p in X.to_delayed()]
            shape = (np.nan,) if n_columns is None else (np.nan, n_columns)
            return da.concatenate([da.from_delayed(p, shape=shape, dtype=dtype) for p in parts])
        if X.ndim != 2:
            raise ValueError(f"X must be 2-D (n_samples, n_features), got {X.ndim} "
                             "dimension(s)")
        X = X.rechunk({1: -1})
        if n_columns is None:
            return X.map_blocks(function, drop_axis=1, dtype=dtype, meta=np.empty(0, dtype))
        return X.map_blocks(function, chunks=(X.chunks[0], (n_columns,)), dtype=dtype,
                            meta=np.empty((0, n_columns), dtype))

    def apply(self, X):
        """Index of the leaf each row ends in, partition by partition.

        Parameters
        ----------
        X : dask.array.Array or dask.dataframe.DataFrame

        Returns
        -------
        dask.array.Array of int64, shape (n_samples,)
        """
        return self._map(X, "apply", np.dtype(ITYPE))

    def get_depth(self):
        """Depth of the tree (a single leaf has depth 0)."""
        check_is_fitted(self, "tree_")
        return self.tree_.max_depth

    def get_n_leaves(self):
        """Number of leaves."""
        check_is_fitted(self, "tree_")
        return self.tree_.n_leaves

    def __sklearn_tags__(self):
        tags = super().__sklearn_tags__()
        tags.input_tags.allow_nan = True
        return tags


_DASK_DOC = """
    splitter : str, default="auto"
        The in-memory search of the nodes of at most ``local_rows`` rows (any
        splitter of :class:`~bivtree.BivariateTreeClassifier`); the histogram
        nodes search pairs unless it is ``"univariate"``.
    n_orientations : int, default=30
        As in memory (the local nodes' search).
    max_depth : int, default=None
        Maximum depth of the whole tree.
    min_samples_split : int or float, default=2
        Minimum rows to split a node (a float: a fraction of all the rows).
    min_samples_leaf : int or float, default=1
        Minimum rows in each leaf (a float: a fraction of all the rows).
    min_impurity_decrease : float, default=0.0
        Split only if the weighted impurity decrease (relative to all the rows,
        scikit-learn's meaning) is at least this.
    splitter_options : dict, default=None
        Options of the in-memory ``splitter``.
    n_jobs : int, default=None
        Threads of each in-memory fit on a worker (joblib's meaning).
    random_state : int, RandomState or None, default=None
        Passed to the in-memory fits.
    verbose : int, default=0
        1: one line per level; 2: one per pass.
    categorical_features : array-like, "from_dtype" or None, default="from_dtype"
        As in memory: the DataFrame's category and text columns, or the
        columns named or indexed (at most 64 categories each).
    local_rows : int, default=200_000
        A node of at most this many rows is gathered on one worker and grown
        there in memory; a fit of at most this many rows is the in-memory fit.
    max_bins : int, default=256
        Quantile bins per numeric feature (from ``sample_rows`` rows, computed
        once), and bins per projection and per fine pass.
    max_pair_features : int, default=10
        Histogram nodes pair the features with the best univariate cuts among
        this many...
    n_anchors : int, default=1
        ...and the best ``n_anchors`` of them with every other feature.
    n_coarse : int, default=5
        Coarse directions per pair (the decorrelated frame's angles).
    n_refine : int, default=3
        Pairs whose best coarse direction is refined.
    n_refine_angles : int, default=8
        Angles tried around each refined direction per refining pass.
    n_rounds : int, default=2
        Refining passes; each divides the angle step by ``n_refine_angles / 2``.
    sample_rows : int, default=200_000
        Rows sampled (evenly, per partition) on the client for the bin edges
        and the directions' frames and bins.
    persist : bool, default=True
        Keep the encoded partitions in the workers' memory between passes
        (False: recompute them from ``X``, e.g. read the Parquet files again,
        at every pass).
"""


class DaskBivariateTreeClassifier(ClassifierMixin, _DaskTree):
    __doc__ = f"""A bivariate tree classifier fitted on a Dask cluster (see :mod:`bivtree.dask`).

    Parameters
    ----------
    criterion : {{"gini", "entropy", "log_loss", "misclassification"}}, default="gini"
    {_DASK_DOC}
    Attributes
    ----------
    tree_ : bivtree.tree.Tree
    classes_ : ndarray of shape (n_classes,)
    n_classes_ : int
    n_features_in_ : int
    feature_names_in_ : ndarray of str
        Defined when ``X`` is a DataFrame.
    is_categorical_, categories_, infrequent_categories_
        As in memory (``infrequent_categories_`` all None).
    feature_importances_ : ndarray of shape (n_features,)
    n_passes_ : int
        Passes over the data (the first scan, every histogram pass, the
        gathering of small nodes when it takes a pass of its own, the
        importances).
    levels_ : list of dict
        Per level of the growth: ``open_nodes`` and ``rows`` searched from
        histograms, how many were ``split``, ``local_nodes`` and ``local_rows``
        gathered to grow in memory, the ``passes`` so far and the
        ``seconds`` since the growth started (empty for a fit in memory).
    local_wait_s_ : float
        Seconds the client waited for the in-memory subtrees after the last level.
    fit_time_ : float
    """

    _local_class = BivariateTreeClassifier
    _regression = False

    def __init__(self, *, splitter="auto", criterion="gini", n_orientations=30, max_depth=None,
                 min_samples_split=2, min_samples_leaf=1, min_impurity_decrease=0.0,
                 splitter_options=None, n_jobs=None, random_state=None, verbose=0,
                 categorical_features="from_dtype", local_rows=200_000, max_bins=256,
                 max_pair_features=10, n_anchors=1, n_coarse=5, n_refine=3,
                 n_refine_angles=8, n_rounds=2, sample_rows=200_000, persist=True):
        super().__init__(
            splitter=splitter, criterion=criterion, n_orientations=n_orientations,
            max_depth=max_depth, min_samples_split=min_samples_split,
            min_samples_leaf=min_samples_leaf, min_impurity_decrease=min_impurity_decrease,
            splitter_options=splitter_options, n_jobs=n_jobs, random_state=random_state,
            verbose=verbose, categorical_features=categorical_features, local_rows=local_rows,
            max_bins=max_bins, max_pair_features=max_pair_features, n_anchors=n_anchors,
            n_coarse=n_coarse, n_refine=n_refine, n_refine_angles=n_refine_angles,
            n_rounds=n_rounds, sample_rows=sample_rows, persist=persist)

    def predict_proba(self, X):
        """Class probabilities of each row's leaf, partition by partition.

        Parameters
        ----------
        X : dask.array.Array or dask.dataframe.DataFrame

        Returns
        -------
        dask.array.Array of shape (n_samples, n_classes)
        """
        check_is_fitted(self, "tree_")
        return self._map(X, "predict_proba", np.dtype(DTYPE), len(self.classes_))

    def predict(self, X):
        """Most probable class of each row, partition by partition.

        Parameters
        ----------
        X : dask.array.Array or dask.dataframe.DataFrame

        Returns
        -------
        dask.array.Array of shape (n_samples,)
        """
        check_is_fitted(self, "tree_")
        return self._map(X, "predict", self.classes_.dtype)

    def score(self, X, y):
        """Accuracy on ``(X, y)`` (dask collections), computed on the cluster."""
        return float((self.predict(X) == _as_array(y)).mean().compute())


class DaskBivariateTreeRegressor(RegressorMixin, _DaskTree):
    __doc__ = f"""A bivariate tree regressor fitted on a Dask cluster (see :mod:`bivtree.dask`).

    Parameters
    ----------
    criterion : {{"squared_error"}}, default="squared_error"
    {_DASK_DOC}
    Attributes
    ----------
    tree_ : bivtree.tree.Tree
    n_features_in_ : int
    feature_names_in_ : ndarray of str
    is_categorical_, categories_, infrequent_categories_
    feature_importances_ : ndarray of shape (n_features,)
    n_passes_ : int
    levels_ : list of dict
    local_wait_s_ : float
    fit_time_ : float
        As for :class:`DaskBivariateTreeClassifier`.
    """

    _local_class = BivariateTreeRegressor
    _regression = True

    def __init__(self, *, splitter="auto", criterion="squared_error", n_orientations=30,
                 max_depth=None, min_samples_split=2, min_samples_leaf=1,
                 min_impurity_decrease=0.0, splitter_options=None, n_jobs=None,
                 random_state=None, verbose=0, categorical_features="from_dtype",
                 local_rows=200_000, max_bins=256, max_pair_features=10, n_anchors=1,
                 n_coarse=5, n_refine=3, n_refine_angles=8, n_rounds=2, sample_rows=200_000,
                 persist=True):
        super().__init__(
            splitter=splitter, criterion=criterion, n_orientations=n_orientations,
            max_depth=max_depth, min_samples_split=min_samples_split,
            min_samples_leaf=min_samples_leaf, min_impurity_decrease=min_impurity_decrease,
            splitter_options=splitter_options, n_jobs=n_jobs, random_state=random_state,
            verbose=verbose, categorical_features=categorical_features, local_rows=local_rows,
            max_bins=max_bins, max_pair_features=max_pair_features, n_anchors=n_anchors,
            n_coarse=n_coarse, n_refine=n_refine, n_refine_angles=n_refine_angles,
            n_rounds=n_rounds, sample_rows=sample_rows, persist=persist)

    def predict(self, X):
        """Mean target of each row's leaf, partition by partition.

        Parameters
        ----------
        X : dask.array.Array or dask.dataframe.DataFrame

        Returns
        -------
        dask.array.Array of float64, shape (n_samples,)
        """
        check_is_fitted(self, "tree_")
        return self._map(X, "predict", np.dtype(DTYPE))

    def score(self, X, y):
        """Coefficient of determination R^2 on ``(X, y)``, computed on the cluster."""
        y = _as_array(y).astype(DTYPE)
        residual = ((y - self.predict(X)) ** 2).sum()
        total = ((y - y.mean()) ** 2).sum()
        residual, total = dask.compute(residual, total)
        return float(1.0 - residual / total) if total > 0 else 0.0


def _as_array(y):
    """A dask Series as a dask array (a dask array as it is)."""
    return y.to_dask_array() if hasattr(y, "to_dask_array") else y
