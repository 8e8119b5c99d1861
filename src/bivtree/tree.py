"""The fitted tree: flat node arrays, numba traversal and a JSON-safe form.

Node ``i`` is a leaf iff ``children_left[i] == -1``. A decision node sends a
sample left iff ``sum_k weights[i, k] * x[features[i, k]] <= threshold[i]``;
unused slots hold feature ``-1`` and weight ``0``. Splits are stored in the
user's original units with the first weight equal to 1, so a rule reads
``x7 + 0.3 * x10 <= -0.1``.

``category_mask[i, k]`` (64 bits, one per category code ``0..63``) is 0 for a
slot that reads its feature's value. A node whose one used slot has a nonzero
mask is *categorical*: it tests the one feature ``f = features[i, 0]``
(weights ``[1, 0, ...]``, the threshold is an unused placeholder) and sends a
sample left iff its code ``x[f]`` is an integer ``c`` in ``[0, 63]`` with bit
``1 << c`` set in the mask; any other value goes right. In a node with two used
slots, a nonzero mask makes the slot an *indicator slot*: it reads 1 when the
feature's code is in the set and 0 otherwise, so the rule reads
``x7 + 0.3 * [colour in {red, blue}] <= 2``. ``_kernels/traversal.goes_left``
is the one definition of these tests.

Every decision node also has a side for missing values, ``missing_go_left[i]``:
a sample whose node value is NaN (a missing value in a feature the node uses)
goes left iff it is true. A tree grown on data with missing values stores the
sides growth learned (``missing_learned``); any other tree takes the default
rule, :func:`default_missing_left` (the child with more training weight, the
right one on equal weights), which is also what growth decides at a node that
saw no missing value.
"""

import json
import warnings

import numpy as np
from scipy.sparse import csr_matrix

from ._config import DTYPE, ITYPE, NO_FEATURE, TREE_LEAF, TREE_UNDEFINED
from ._kernels.traversal import MAX_CATEGORY, apply_rows, decision_path_rows, node_spreads
from ._threads import deferred_sigint

#: numpy's warning for a ragged list made an object array (numpy < 1.24; its home moved)
_VISIBLE_DEPRECATION = getattr(np, "exceptions", np).VisibleDeprecationWarning

#: version of the dictionary layout produced by :meth:`Tree.to_dict` for a tree
#: with indicator slots (4 writes ``category_mask`` as one row of masks per node);
#: a tree without them is written as version 3 when it has learned missing sides
#: (3 added ``missing_go_left``) and as version 2 otherwise (2 added
#: ``category_mask``, one mask per node: the first slot's), byte for byte as before.
TREE_FORMAT_VERSION = 4
#: versions :meth:`Tree.from_dict` reads (1 and 2 take the default missing sides).
TREE_FORMAT_VERSIONS_READ = (1, 2, 3, 4)
#: dtype of ``category_mask``: one bit per category code 0..63.
MASK_DTYPE = np.uint64
#: number of category codes a categorical node can tell apart (codes 0..63).
N_CATEGORY_CODES = MAX_CATEGORY + 1

_ARRAYS = (
    "children_left",
    "children_right",
    "features",
    "weights",
    "threshold",
    "impurity",
    "n_node_samples",
    "weighted_n_node_samples",
    "value",
)
#: arrays whose entries are ids or counts.
_INTEGER_ARRAYS = ("children_left", "children_right", "features", "n_node_samples")
#: arrays with one row per node (the others have one entry per node).
_TABLE_ARRAYS = ("features", "weights", "value")
#: fields of a tree dictionary that later versions added, with the version that added
#: them; every other field (:data:`_ARRAYS`, ``format``, ``version``, ``n_features``)
#: is in every version.
_FIELD_SINCE = {"category_mask": 2, "missing_go_left": 3}
#: most nodes a stored tree may have: a fully grown tree on 30 million samples fits, and
#: the bound is checked before any array is built, so a corrupt size allocates nothing.
MAX_NODES = 1 << 26
#: most feature slots per node a stored tree may have (the splitters use 2, MUST 3).
MAX_SLOTS = 16


def categories_to_mask(codes):
    """The ``category_mask`` (a Python int) of a set of category codes in ``[0, 63]``.

    Parameters
    ----------
    codes : iterable of int

    Returns
    -------
    int
    """
    mask = 0
    for c in codes:
        c = float(c)
        if not (c.is_integer() and 0 <= c < N_CATEGORY_CODES):
            raise ValueError(f"category code {c!r} is not an integer in [0, "
                             f"{N_CATEGORY_CODES - 1}]")
        mask |= 1 << int(c)
    return mask


def mask_to_categories(mask):
    """The sorted category codes whose bits are set in ``mask``.

    Parameters
    ----------
    mask : int

    Returns
    -------
    list of int
    """
    mask = int(mask)
    return [c for c in range(N_CATEGORY_CODES) if (mask >> c) & 1]


def codes_in_set(values, category_mask):
    """Elementwise ``traversal.in_category_set``: whether each value is an integer code in
    ``[0, 63]`` whose bit is set in ``category_mask`` (NaN, fractions and other numbers
    are not).

    Parameters
    ----------
    values : array-like of float
    category_mask : int

    Returns
    -------
    ndarray of bool
    """
    values = np.asarray(values, dtype=DTYPE)
    with np.errstate(invalid="ignore"):
        integral = (values >= 0) & (values <= MAX_CATEGORY) & (values == np.floor(values))
    bits = np.where(integral, values, 0).astype(np.uint64)
    return integral & (((np.uint64(category_mask) >> bits) & np.uint64(1)) == 1)


def indicator_values(values, category_mask):
    """Elementwise ``traversal.slot_value`` of an indicator slot: 1.0 for a code in the
    set, 0.0 for any other value, NaN for a missing one."""
    values = np.asarray(values, dtype=DTYPE)
    return np.where(np.isnan(values), np.nan, codes_in_set(values, category_mask).astype(DTYPE))


def slot_masks(category_mask, n_slots):
    """The per-slot category sets (uint64, ``n_slots`` entries) of a rule.

    ``category_mask`` is either one int, the first slot's set (0: a linear rule;
    with one used slot, a categorical one), or a sequence of per-slot sets.
    """
    masks = np.zeros(n_slots, dtype=MASK_DTYPE)
    # (an int first: this runs for every split a search builds)
    if isinstance(category_mask, int) or np.ndim(category_mask) == 0:
        masks[0] = int(category_mask)
    else:
        masks[:len(category_mask)] = [int(m) for m in category_mask]
    return masks


def _as_mask_array(category_mask, n, n_slots):
    """``category_mask`` as a contiguous uint64 array of shape ``(n, n_slots)``.

    ``None`` gives zeros; a 1-D array of ``n`` masks (the layout before
    indicator slots: the first slot's mask of each node) fills the first column.
    """
    if category_mask is None:
        return np.zeros((n, n_slots), dtype=MASK_DTYPE)
    message = ("tree array 'category_mask' must hold integers in [0, 2**64) (64-bit "
               "category sets)")
    if not isinstance(category_mask, np.ndarray):
        # element by element: numpy turns a list mixing ints above 2**63 with
        # small ones into float64, which would lose the low bits
        shape = np.shape(np.asarray(category_mask, dtype=object))
        flat = np.asarray(category_mask, dtype=object).ravel().tolist()
        if not all(isinstance(v, (int, np.integer)) and not isinstance(v, (bool, np.bool_))
                   and 0 <= v < 2 ** 64 for v in flat):
            raise ValueError(message)
        category_mask = np.array([int(v) for v in flat], dtype=MASK_DTYPE).reshape(shape)
    elif category_mask.dtype.kind == "i":
        if category_mask.size and category_mask.min() < 0:
            raise ValueError(message)
    elif category_mask.dtype.kind != "u":
        raise ValueError(message)
    category_mask = np.asarray(category_mask, dtype=MASK_DTYPE)
    if category_mask.ndim == 1 and category_mask.shape[0] == n:
        first = category_mask
        category_mask = np.zeros((n, n_slots), dtype=MASK_DTYPE)
        category_mask[:, 0] = first
    if category_mask.shape != (n, n_slots):
        raise ValueError(f"tree array 'category_mask' has shape {category_mask.shape}, "
                         f"expected ({n},) or ({n}, {n_slots})")
    return np.ascontiguousarray(category_mask)


def default_missing_left(weight_left, weight_right):
    """The missing side of a node that saw no missing value at fit: the heavier child.

    Left iff the left child holds strictly more training weight (the right child
    on equal weights), scikit-learn's rule with weights in place of counts.
    """
    return bool(weight_left > weight_right)


def default_missing_sides(children_left, children_right, weighted_n_node_samples):
    """:func:`default_missing_left` of every node (``False`` at leaves), as a bool array."""
    internal = children_left != TREE_LEAF
    out = np.zeros(children_left.shape[0], dtype=bool)
    w = weighted_n_node_samples
    out[internal] = w[children_left[internal]] > w[children_right[internal]]
    return out


def _fields_of_version(version):
    """The fields a tree dictionary of format ``version`` may hold."""
    return (("format", "version", "n_features") + _ARRAYS
            + tuple(k for k, since in _FIELD_SINCE.items() if version >= since))


def _node_count(data):
    """Number of nodes of a tree dictionary, bounded before any array is built."""
    ids = data["children_left"]
    if not isinstance(ids, (list, tuple, np.ndarray)):
        raise ValueError("tree array 'children_left' is not a numeric list")  # noqa: TRY004
    n = len(ids)
    if not 1 <= n <= MAX_NODES:
        raise ValueError(f"tree array 'children_left' has {n} nodes; a stored tree has 1 to "
                         f"{MAX_NODES}")
    return n


def _numeric_array(name, values, n):
    """``values`` of a tree dictionary as a float array of ``n`` rows, or a ValueError.

    The length and the row widths are checked on the lists themselves, so a corrupt
    dictionary is rejected before numpy allocates anything for it; strings, ``None``,
    booleans and nested lists of the wrong depth are rejected rather than converted.
    """
    if not isinstance(values, (list, tuple, np.ndarray)):
        raise ValueError(f"tree array {name!r} is not a numeric list")  # noqa: TRY004
    if len(values) != n:
        raise ValueError(f"tree array {name!r} has {len(values)} rows, expected {n} (one per "
                         "node, as 'children_left')")
    if name in _TABLE_ARRAYS:
        limit = MAX_SLOTS if name != "value" else MAX_NODES
        rows = (list, tuple, np.ndarray)
        width = len(values[0]) if isinstance(values[0], rows) else 0
        for node, row in enumerate(values):
            if not (isinstance(row, rows) and len(row) == width and 1 <= width <= limit):
                raise ValueError(f"tree array {name!r}: node {node} is not a numeric row of "
                                 f"the same length (1 to {limit}) as node 0's")
    try:
        with warnings.catch_warnings():
            # numpy before 1.24 turns a ragged list into an object array with this warning
            # (newer versions raise ValueError): an error here too, so no warning shows
            warnings.simplefilter("error", _VISIBLE_DEPRECATION)
            arr = np.asarray(values)
    except (TypeError, ValueError, _VISIBLE_DEPRECATION) as exc:
        raise ValueError(f"tree array {name!r} is not a numeric list: {exc}") from None
    if arr.dtype.kind not in "iuf" or arr.ndim != (2 if name in _TABLE_ARRAYS else 1):
        raise ValueError(f"tree array {name!r} is not a numeric list (one "
                         f"{'row of numbers' if name in _TABLE_ARRAYS else 'number'} per node)")
    return arr.astype(DTYPE)


def _first(mask):
    """Index of the first ``True`` of a boolean array (the node an error names)."""
    return int(np.flatnonzero(mask)[0])


class Tree:
    """A bivariate (or few-feature oblique) decision tree as parallel arrays.

    Parameters
    ----------
    children_left, children_right : ndarray of int64, shape (n_nodes,)
        Child ids; ``-1`` at leaves.
    features : ndarray of int64, shape (n_nodes, k)
        Feature index of each used slot, ``-1`` in unused slots and at leaves.
    weights : ndarray of float64, shape (n_nodes, k)
        Coefficient of each slot in original units; the first is 1 at decision
        nodes, 0 in unused slots and at leaves.
    threshold : ndarray of float64, shape (n_nodes,)
        ``-2`` at leaves; a finite placeholder (not read) at categorical nodes.
    impurity : ndarray of float64, shape (n_nodes,)
        Impurity of the training samples at the node under the fit's criterion.
    n_node_samples : ndarray of int64, shape (n_nodes,)
    weighted_n_node_samples : ndarray of float64, shape (n_nodes,)
    value : ndarray of float64, shape (n_nodes, n_values)
        Weighted class counts (classification) or the weighted mean target
        (regression, ``n_values == 1``).
    n_features : int
        Number of features of the data the tree was fitted on.
    category_mask : ndarray of uint64, shape (n_nodes, k) or (n_nodes,), default=None
        Category set of each slot (bit ``c`` set: code ``c`` is in the set), 0
        for a slot reading its feature's value, in unused slots and at leaves;
        ``None`` means no categorical node. A node whose one used slot has a set
        is categorical (weight 1, the set goes left); in a node with two used
        slots a set makes the slot an indicator slot. A 1-D array gives the first
        slot's masks (the layout of format versions 2 and 3).
    missing_go_left : ndarray of bool, shape (n_nodes,), default=None
        Whether a sample with a missing value (NaN) in a feature the node uses
        goes left (``False`` at leaves); ``None`` takes the default rule at every
        node (:func:`default_missing_left`).
    missing_learned : bool, default=None
        Whether ``missing_go_left`` holds learned sides; ``None`` means "whether
        it is given". ``False`` with an array requires the default sides.

    Attributes
    ----------
    missing_learned : bool
        Whether ``missing_go_left`` was given (a tree grown on data with missing
        values) rather than the default rule; only such a tree writes the array
        (format version 3) and shows the missing sides in its exports.
    """

    def __init__(self, children_left, children_right, features, weights, threshold,
                 impurity, n_node_samples, weighted_n_node_samples, value, n_features,
                 category_mask=None, missing_go_left=None, missing_learned=None):
        self.children_left = np.ascontiguousarray(children_left, dtype=ITYPE)
        self.children_right = np.ascontiguousarray(children_right, dtype=ITYPE)
        self.features = np.ascontiguousarray(np.atleast_2d(features), dtype=ITYPE)
        self.weights = np.ascontiguousarray(np.atleast_2d(weights), dtype=DTYPE)
        self.threshold = np.ascontiguousarray(threshold, dtype=DTYPE)
        self.impurity = np.ascontiguousarray(impurity, dtype=DTYPE)
        self.n_node_samples = np.ascontiguousarray(n_node_samples, dtype=ITYPE)
        self.weighted_n_node_samples = np.ascontiguousarray(weighted_n_node_samples,
                                                            dtype=DTYPE)
        self.value = np.ascontiguousarray(np.atleast_2d(value), dtype=DTYPE)
        self.n_features = int(n_features)
        self.category_mask = _as_mask_array(category_mask, self.children_left.shape[0],
                                            self.features.shape[1])
        self.missing_learned = (missing_go_left is not None if missing_learned is None
                                else bool(missing_learned))
        self._check()
        default = default_missing_sides(self.children_left, self.children_right,
                                        self.weighted_n_node_samples)
        if missing_go_left is None:
            self.missing_go_left = default
            return
        missing_go_left = np.asarray(missing_go_left)
        if (missing_go_left.shape != (self.node_count,)
                or missing_go_left.dtype.kind not in "biu"):
            raise ValueError(f"tree array 'missing_go_left' must hold one boolean per node "
                             f"({self.node_count})")
        if not np.isin(missing_go_left, (0, 1)).all():
            raise ValueError("tree array 'missing_go_left' must hold booleans (0 or 1)")
        self.missing_go_left = np.ascontiguousarray(missing_go_left, dtype=bool)
        self.missing_go_left[self.children_left == TREE_LEAF] = False
        if not self.missing_learned and not np.array_equal(self.missing_go_left, default):
            raise ValueError("tree array 'missing_go_left' differs from the default sides "
                             "(the heavier child) but missing_learned is False")

    def _check(self):
        n = self.children_left.shape[0]
        if n == 0:
            raise ValueError("a tree needs at least one node")
        for name in _ARRAYS:
            arr = getattr(self, name)
            if arr.shape[0] != n:
                raise ValueError(f"tree array {name!r} has {arr.shape[0]} rows, expected {n}")
        if self.features.shape != self.weights.shape:
            raise ValueError("tree arrays 'features' and 'weights' differ in shape")
        self._check_children()
        internal = self.children_left != TREE_LEAF
        f = self.features
        bad = internal & ((f[:, 0] < 0) | (f.max(axis=1) >= self.n_features))
        if bad.any():
            node = _first(bad)
            raise ValueError(f"tree node {node}: 'features' {f[node].tolist()} has a tree feature "
                             f"index out of range [0, {self.n_features})")
        used = f >= 0
        bad = np.any(used[:, 1:] & ~used[:, :-1], axis=1)
        if bad.any():
            raise ValueError(f"tree node {_first(bad)}: tree feature slots must be filled from "
                             "the first one ('features')")
        bad = internal & ~np.isfinite(self.threshold)
        if bad.any():
            raise ValueError(f"tree node {_first(bad)}: tree thresholds must be finite at "
                             "decision nodes ('threshold')")
        self._check_categorical(internal)

    def _check_children(self):
        """Child ids in range and no node the child of two nodes (each raises naming the node)."""
        cl, cr = self.children_left, self.children_right
        n = cl.shape[0]
        bad = (cl == TREE_LEAF) != (cr == TREE_LEAF)
        if bad.any():
            raise ValueError(f"tree node {_first(bad)} has exactly one child ('children_left' and "
                             "'children_right' must both be -1 or both be ids)")
        internal = np.flatnonzero(cl != TREE_LEAF)
        for name, kids in (("children_left", cl[internal]), ("children_right", cr[internal])):
            bad = (kids <= 0) | (kids >= n)
            if bad.any():
                node = internal[_first(bad)]
                raise ValueError(f"tree node {node}: {name!r} is {kids[_first(bad)]}; tree child "
                                 f"ids are out of range [1, {n})")
        kids = np.concatenate([cl[internal], cr[internal]])
        parents = np.concatenate([internal, internal])
        order = np.argsort(kids, kind="stable")
        shared = np.flatnonzero(kids[order][1:] == kids[order][:-1])
        if shared.size:
            first, second = parents[order[shared[0]]], parents[order[shared[0] + 1]]
            raise ValueError(f"tree node {second}: its child {kids[order[shared[0]]]} is also a "
                             f"child of node {first} (tree child ids shared between nodes)")

    def _check_categorical(self, internal):
        has_set = self.category_mask != 0
        f, w = self.features, self.weights
        bad = np.any(has_set & ((f < 0) | ~internal[:, None]), axis=1)
        if bad.any():
            raise ValueError(f"tree node {_first(bad)}: tree leaves and unused slots must have "
                             "category_mask 0")
        bad = self.is_categorical & ((w[:, 0] != 1.0) | np.any(w[:, 1:] != 0.0, axis=1))
        if bad.any():
            raise ValueError(f"tree node {_first(bad)}: a categorical node (one feature with a "
                             "category set) has weights [1, 0, ...]")

    # ------------------------------------------------------------------ sizes
    @property
    def node_count(self):
        """Number of nodes."""
        return int(self.children_left.shape[0])

    @property
    def max_features_per_node(self):
        """Number of feature slots per node (2, or 3 for MUST's s = 3)."""
        return int(self.features.shape[1])

    @property
    def n_leaves(self):
        """Number of leaves."""
        return int(np.count_nonzero(self.children_left == TREE_LEAF))

    @property
    def is_leaf(self):
        """Boolean mask of leaves."""
        return self.children_left == TREE_LEAF

    @property
    def is_categorical(self):
        """Boolean mask of categorical nodes (one used slot, with a category set)."""
        single = (self.features[:, 1] < 0 if self.features.shape[1] > 1
                  else np.ones(self.node_count, dtype=bool))
        return (self.category_mask[:, 0] != 0) & single

    @property
    def has_indicator_slots(self):
        """Boolean mask of linear nodes with an indicator slot (a category set in a
        node of two used slots)."""
        return np.any(self.category_mask != 0, axis=1) & ~self.is_categorical

    def categorical_mask(self, node):
        """The category set (an int) of ``node`` if it is categorical, else 0."""
        if self.features.shape[1] > 1 and self.features[node, 1] >= 0:
            return 0
        return int(self.category_mask[node, 0])

    def node_categories(self, node):
        """Sorted category codes that go left at ``node`` (empty for a linear node or leaf)."""
        return mask_to_categories(self.categorical_mask(node))

    @property
    def n_node_features(self):
        """Number of features each node tests (0 at leaves)."""
        return np.count_nonzero(self.features != NO_FEATURE, axis=1)

    @property
    def node_depth(self):
        """Depth of every node (the root has depth 0)."""
        depth = np.zeros(self.node_count, dtype=ITYPE)
        for node in range(self.node_count):  # children always have larger ids
            if self.children_left[node] != TREE_LEAF:
                depth[self.children_left[node]] = depth[node] + 1
                depth[self.children_right[node]] = depth[node] + 1
        return depth

    @property
    def max_depth(self):
        """Depth of the deepest leaf."""
        return int(self.node_depth.max())

    # -------------------------------------------------------------- traversal
    def _validate_X(self, X):
        X = np.ascontiguousarray(X, dtype=DTYPE)
        if X.ndim != 2 or X.shape[1] != self.n_features:
            raise ValueError(
                f"X has shape {X.shape}; this tree expects (n_samples, {self.n_features})")
        return X

    def apply(self, X):
        """Id of the leaf each row of ``X`` reaches."""
        X = self._validate_X(X)
        out = np.empty(X.shape[0], dtype=ITYPE)
        with deferred_sigint():  # Ctrl-C raised after the compiled call, not inside it
            apply_rows(X, self.children_left, self.children_right, self.features,
                       self.weights, self.threshold, self.category_mask,
                       self.missing_go_left, out)
        return out

    def predict(self, X):
        """Node value (class counts or mean target) of the leaf each row reaches."""
        return self.value[self.apply(X)]

    def decision_path(self, X):
        """Sparse indicator (n_samples, n_nodes) of the nodes each row visits."""
        X = self._validate_X(X)
        with deferred_sigint():  # Ctrl-C while numba builds the result tuple would crash
            indptr, indices = decision_path_rows(
                X, self.children_left, self.children_right, self.features, self.weights,
                self.threshold, self.category_mask, self.missing_go_left, self.max_depth + 1)
        data = np.ones(indices.shape[0], dtype=np.int64)
        return csr_matrix((data, indices, indptr), shape=(X.shape[0], self.node_count))

    def node_spreads(self, X, sample_weight):
        """Weighted std of each node's features over the rows of ``X`` reaching it.

        Parameters
        ----------
        X : ndarray of shape (n_samples, n_features)
        sample_weight : ndarray of shape (n_samples,)

        Returns
        -------
        ndarray of shape (node_count, n_slots)
            Zero for unused slots, leaves and nodes no weight reached
            (``_kernels/traversal.node_spreads``).
        """
        X = np.asarray(X, dtype=DTYPE)  # either memory order: no copy of a large X
        if X.ndim != 2 or X.shape[1] != self.n_features:
            raise ValueError(
                f"X has shape {X.shape}; this tree expects (n_samples, {self.n_features})")
        return node_spreads(X, np.ascontiguousarray(sample_weight, dtype=DTYPE),
                            self.children_left, self.children_right, self.features,
                            self.weights, self.threshold, self.category_mask,
                            self.missing_go_left)

    # ---------------------------------------------------------- serialization
    def to_dict(self, min_version=2):
        """JSON-safe dictionary; :meth:`from_dict` rebuilds an identical tree.

        Floats are written as Python floats, which ``json`` prints with the
        shortest repr that reads back to the same double, so predictions are
        bit-for-bit the same after a round trip. The layout is the oldest
        version that holds the tree, or version 4 with ``min_version=4`` (a
        model of format version 5 holds a version 4 tree).
        """
        indicators = bool(self.has_indicator_slots.any()) or min_version >= 4
        out = {"format": "bivtree.Tree",
               "version": 4 if indicators else 3 if self.missing_learned else 2,
               "n_features": self.n_features}
        for name in _ARRAYS:
            out[name] = getattr(self, name).tolist()
        # Python ints: JSON writes them exactly, all 64 bits (a float would not); without
        # indicator slots only the first slot can hold a set: one mask per node, as before
        out["category_mask"] = (self.category_mask if indicators
                                else self.category_mask[:, 0]).tolist()
        if self.missing_learned:
            out["missing_go_left"] = self.missing_go_left.tolist()
        return out

    @classmethod
    def from_dict(cls, data):
        """Rebuild a tree written by :meth:`to_dict`; malformed input raises ValueError.

        Version 1 dictionaries (no ``category_mask``) are read as trees without
        categorical nodes; version 1 and 2 dictionaries (no ``missing_go_left``)
        take the default missing sides (:func:`default_missing_left`); versions 2
        and 3 hold one mask per node (the first slot's), version 4 one per slot
        (and ``missing_go_left`` only when the tree learned missing sides). A field
        the declared version does not have (``missing_go_left`` in a version 2
        dictionary) or that no version has is refused, not ignored.
        """
        if not isinstance(data, dict) or data.get("format") != "bivtree.Tree":
            raise ValueError("not a bivtree tree dictionary (missing format 'bivtree.Tree')")
        version = data.get("version")
        if not isinstance(version, int) or isinstance(version, bool) or (
                version not in TREE_FORMAT_VERSIONS_READ):
            raise ValueError(f"unsupported tree format version {version!r}; this bivtree "
                             f"reads versions {list(TREE_FORMAT_VERSIONS_READ)}")
        required = (_ARRAYS + ("n_features",) + (("category_mask",) if version >= 2 else ())
                    + (("missing_go_left",) if version == 3 else ()))
        missing = [k for k in required if k not in data]
        if missing:
            raise ValueError(f"tree dictionary lacks {missing}")
        # a field of a later version (or of none) is refused rather than ignored: a
        # version 2 tree holding 'missing_go_left' would otherwise load with the default
        # missing sides and predict other than the tree it was written from
        unknown = sorted(set(data) - set(_fields_of_version(version)), key=str)
        if unknown:
            later = [k for k in unknown if k in _FIELD_SINCE]
            raise ValueError(
                f"tree dictionary of version {version} has unknown field(s) {unknown}"
                + "".join(f"; {k!r} is a field of versions {_FIELD_SINCE[k]} and later"
                          for k in later))
        n_features = data["n_features"]
        if not isinstance(n_features, int) or isinstance(n_features, bool) or n_features < 1:
            raise ValueError(f"tree dictionary has n_features={n_features!r}; expected a "
                             "positive integer")
        arrays = {name: _numeric_array(name, data[name], _node_count(data))
                  for name in _ARRAYS}
        for name in _INTEGER_ARRAYS:
            arr = arrays[name]
            bad = ~(np.isfinite(arr) & (arr == np.round(arr)) & (np.abs(arr) <= 2.0 ** 53))
            if bad.any():
                node = int(np.flatnonzero(bad.reshape(arr.shape[0], -1).any(axis=1))[0])
                raise ValueError(f"tree array {name!r} must hold integers (node {node})")
        mask = None
        if version >= 2:
            mask = data["category_mask"]
            n_slots = np.atleast_2d(arrays["features"]).shape[1]
            rows = mask if version >= 4 else [[v] for v in mask] if isinstance(mask, list) else 0
            if not (isinstance(rows, list) and all(
                    isinstance(row, list) and len(row) == (n_slots if version >= 4 else 1)
                    and all(isinstance(v, int) and not isinstance(v, bool) and 0 <= v < 2 ** 64
                            for v in row) for row in rows)):
                raise ValueError("tree array 'category_mask' must be a list of integers in "
                                 "[0, 2**64)" + (" per slot, one row per node" if version >= 4
                                                 else ""))
            mask = np.array(rows, dtype=MASK_DTYPE).reshape(len(rows),
                                                            n_slots if version >= 4 else 1)
            if version < 4:
                mask = mask[:, 0]
        missing = None
        # version 4 holds the learned sides when there are some, as version 3 does
        if version == 3 or (version >= 4 and "missing_go_left" in data):
            missing = data["missing_go_left"]
            if not (isinstance(missing, list) and len(missing) == _node_count(data)
                    and all(isinstance(v, bool) for v in missing)):
                raise ValueError("tree array 'missing_go_left' must be a list of booleans, one "
                                 "per node")
            missing = np.array(missing, dtype=bool)
        return cls(n_features=n_features, category_mask=mask, missing_go_left=missing, **arrays)

    def to_json(self):
        """The :meth:`to_dict` form as a JSON string."""
        return json.dumps(self.to_dict())

    @classmethod
    def from_json(cls, text):
        """Inverse of :meth:`to_json`; malformed text raises ValueError."""
        try:
            data = json.loads(text)
        except RecursionError:  # the parser recurses once per level of nesting
            raise ValueError("the tree's JSON nests arrays and objects too deeply") from None
        return cls.from_dict(data)

    def copy(self):
        """Deep copy."""
        return Tree(n_features=self.n_features, category_mask=self.category_mask.copy(),
                    missing_go_left=self.missing_go_left.copy() if self.missing_learned else None,
                    **{name: getattr(self, name).copy() for name in _ARRAYS})

    def __eq__(self, other):
        if not isinstance(other, Tree) or other.n_features != self.n_features:
            return False
        return self.missing_learned == other.missing_learned and all(
            np.array_equal(getattr(self, n), getattr(other, n))
            for n in _ARRAYS + ("category_mask", "missing_go_left"))

    __hash__ = None

    def __repr__(self):
        return (f"Tree(node_count={self.node_count}, n_leaves={self.n_leaves}, "
                f"max_depth={self.max_depth}, n_features={self.n_features})")

    def __getstate__(self):
        return self.to_dict()

    def __setstate__(self, state):
        self.__dict__.update(Tree.from_dict(state).__dict__)


def subtree(tree, keep_as_leaf):
    """The tree with every node in ``keep_as_leaf`` turned into a leaf, renumbered.

    Nodes below a new leaf are dropped; the remaining nodes keep their values
    and are numbered in depth-first (preorder) order, left before right.

    Parameters
    ----------
    tree : Tree
    keep_as_leaf : ndarray of bool, shape (n_nodes,)

    Returns
    -------
    Tree
    """
    order = []
    stack = [0]
    while stack:
        node = stack.pop()
        order.append(node)
        if tree.children_left[node] != TREE_LEAF and not keep_as_leaf[node]:
            stack.append(tree.children_right[node])
            stack.append(tree.children_left[node])
    order = np.asarray(order, dtype=ITYPE)
    new_id = np.full(tree.node_count, -1, dtype=ITYPE)
    new_id[order] = np.arange(order.size)
    leaf = (tree.children_left[order] == TREE_LEAF) | keep_as_leaf[order]
    cl = np.where(leaf, TREE_LEAF, new_id[tree.children_left[order]])
    cr = np.where(leaf, TREE_LEAF, new_id[tree.children_right[order]])
    features = tree.features[order].copy()
    weights = tree.weights[order].copy()
    threshold = tree.threshold[order].copy()
    category_mask = tree.category_mask[order].copy()
    missing = tree.missing_go_left[order].copy() if tree.missing_learned else None
    features[leaf] = NO_FEATURE
    weights[leaf] = 0.0
    threshold[leaf] = TREE_UNDEFINED
    category_mask[leaf] = 0
    return Tree(cl, cr, features, weights, threshold, tree.impurity[order],
                tree.n_node_samples[order], tree.weighted_n_node_samples[order],
                tree.value[order], tree.n_features, category_mask, missing)


def merge_equal_leaves(tree, classifier):
    """The tree with every subtree whose leaves all predict the same collapsed into a leaf.

    Under monotonic constraints, clipping node values to their bounds often gives
    sibling leaves the same prediction: a test between them changes nothing the
    tree predicts, only its size. A subtree is collapsed when all its leaves have
    exactly the same prediction (a classifier's class shares, a regressor's
    value); the new leaf keeps that prediction (a classifier's counts are the
    shares times the node's weight), so ``predict``, ``predict_proba`` and the
    routing of every input, missing values included, give the same answers.

    Parameters
    ----------
    tree : Tree
    classifier : bool
        Whether ``value`` holds class counts (else a mean target).

    Returns
    -------
    Tree
        ``tree`` itself when no subtree can be collapsed.
    """
    n = tree.node_count
    if classifier:
        total = tree.value.sum(axis=1, keepdims=True)
        prediction = np.divide(tree.value, total, out=np.zeros_like(tree.value),
                               where=total > 0)
    else:
        prediction = tree.value
    uniform = np.zeros(n, dtype=bool)  # every leaf below predicts prediction[node]
    common = prediction.copy()
    order, stack = [], [0]
    while stack:
        node = stack.pop()
        order.append(node)
        if tree.children_left[node] != TREE_LEAF:
            stack += [tree.children_left[node], tree.children_right[node]]
    for node in reversed(order):  # children before their parent
        left, right = tree.children_left[node], tree.children_right[node]
        if left == TREE_LEAF:
            uniform[node] = True
        elif uniform[left] and uniform[right] and np.array_equal(common[left], common[right]):
            uniform[node] = True
            common[node] = common[left]
    collapse = uniform & (tree.children_left != TREE_LEAF)
    if not collapse.any():
        return tree
    value = tree.value.copy()
    value[collapse] = (common[collapse] * tree.weighted_n_node_samples[collapse, None]
                       if classifier else common[collapse])
    merged = Tree(tree.children_left, tree.children_right, tree.features, tree.weights,
                  tree.threshold, tree.impurity, tree.n_node_samples,
                  tree.weighted_n_node_samples, value, tree.n_features, tree.category_mask,
                  tree.missing_go_left if tree.missing_learned else None)
    return subtree(merged, collapse)
