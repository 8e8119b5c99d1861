"""Trees as ONNX models, standalone or inside a scikit-learn pipeline converted by skl2onnx.

- :func:`export_onnx`: an ``onnx.ModelProto`` computing the labels and class
  probabilities (classifiers) or the predictions (regressors) of a batch of rows;
- :func:`register_skl2onnx_converters`: makes ``skl2onnx.to_onnx`` convert
  bivtree's estimators, alone or as a step of a ``Pipeline``.

The graph routes every row exactly as :meth:`apply` does. The ``ai.onnx.ml``
tree operators compare in float32, which would move rows near a threshold to
the other side, so they never see a feature value. Instead:

0. a model with categorical features whose categories are numbers
   (``categories_``) first replaces each such column's values by their codes,
   comparing them in double with the values of each code; any other value,
   NaN included, becomes NaN, a missing value, as :meth:`predict` reads a value
   it never saw. Text categories come as one string input per column
   (``inputs="columns"``, every other column an ``(N, 1)`` numeric input):
   ``LabelEncoder`` maps each string to its code, any other string to NaN;

1. every decision node's test is evaluated in double with elementwise
   operators, on the input transposed (one row per feature, so that gathering
   a feature copies contiguous memory). A linear node gathers its features and
   repeats the sum of :func:`bivtree._kernels.traversal.goes_left` operation
   for operation (``w0 * x0``, then ``+ w1 * x1``, then ``+ w2 * x2``: one IEEE double
   rounding each, separate ``Mul`` and ``Add`` operators, so no fused
   multiply-add and no reordering), then ``LessOrEqual`` against the stored
   threshold. The one difference, the leading ``0.0 +``, only turns a sum of
   ``-0.0`` into ``+0.0``, which compares the same. A categorical node tests
   ``code == floor(clip(code, 0, 63))`` and looks the code's bit up in a table,
   so fractions and codes outside ``[0, 63]`` go right, as in
   :func:`bivtree._kernels.traversal.goes_left`. An *indicator slot* (a
   category set in a linear node of several used slots) reads, instead of its
   feature's value, that same membership test as 1.0 or 0.0, and NaN for NaN,
   as :func:`bivtree._kernels.traversal.slot_value` does, before its ``Mul``
   and ``Add``. A NaN (a missing value) fails either test; at a node whose
   missing side is the left one (``Tree.missing_go_left``) ``IsNaN`` of the
   projection (or code) sends it left;
2. the outcomes, one 0 / 1 column per decision node (exact in float32), feed a
   ``TreeEnsembleRegressor`` with the tree's own structure, each node testing
   its column against 0.5, whose leaves return their rank among the leaves
   (an integer, exact in float32);
3. the rank indexes tables of the leaves' labels, probabilities or values,
   computed with the same numpy expressions as :meth:`predict_proba` and
   :meth:`predict`.
"""

import json
import numbers

import numpy as np

from .._config import TREE_LEAF
from .._tabular import code_values
from .._version import __version__
from ..estimators import tree_estimator
from ..tree import N_CATEGORY_CODES
from .formatting import resolve_feature_names

__all__ = ["export_onnx", "register_skl2onnx_converters"]

#: opset of the default ``ai.onnx`` domain written by :func:`export_onnx` (ONNX Runtime
#: 1.16 reads up to 19); 13 is the oldest accepted (every operator used has its present
#: form there).
DEFAULT_OPSET = 17
MIN_OPSET = 13
#: opset of ``ai.onnx.ml``: ``TreeEnsembleRegressor`` exists up to 4 (5 replaced it).
ML_OPSET = 3
#: leaf ranks travel through the float32 output of the tree operator: exact up to 2**24.
MAX_LEAVES = 1 << 24
_INSTALL = "pip install bivtree[onnx]"
_ALIASES = {
    "BivariateTreeClassifier": "BivtreeBivariateTreeClassifier",
    "BivariateTreeRegressor": "BivtreeBivariateTreeRegressor",
    "TAOTreeClassifier": "BivtreeTAOTreeClassifier",
    "TAOTreeRegressor": "BivtreeTAOTreeRegressor",
    "TAOTreeClassifierCV": "BivtreeTAOTreeClassifierCV",
    "TAOTreeRegressorCV": "BivtreeTAOTreeRegressorCV",
    "CostComplexityCV": "BivtreeCostComplexityCV",
}
_registered = False


def _import(name):
    """Import an optional module or say how to install it."""
    import importlib

    try:
        return importlib.import_module(name)
    except ImportError as exc:
        raise ImportError(f"exporting to ONNX needs the package {name.split('.')[0]!r}: "
                          f"{_INSTALL}") from exc


def _estimator_classes():
    """``(classifier classes, regressor classes)`` that the export supports."""
    from ..estimators import BivariateTreeClassifier, BivariateTreeRegressor
    from ..tao.estimators import TAOTreeClassifier, TAOTreeRegressor

    return (BivariateTreeClassifier, TAOTreeClassifier), (BivariateTreeRegressor,
                                                          TAOTreeRegressor)


def _column_names(estimator):
    """The names of the estimator's features (the views' names, as plain strings)."""
    return [str(name) for name in resolve_feature_names(estimator)]


def _text_columns(estimator):
    """The categorical features whose category values are not all numbers."""
    values = code_values(estimator)
    if values is None:
        return []
    return [f for f, codes in enumerate(values) if codes is not None and not all(
        isinstance(v, numbers.Real) for vals in codes for v in vals)]


def _check_estimator(estimator, text_columns=False):
    """The tree and whether the estimator is a classifier; raises for what ONNX cannot take.

    ``estimator`` is a fitted tree estimator (:func:`~bivtree.estimators.tree_estimator`
    checked it). Categories that are not numbers are refused unless
    ``text_columns`` (an input per column: each such column a string tensor);
    even then, every value of such a column must be a string.
    """
    tree = estimator.tree_
    text = _text_columns(estimator)
    names = _column_names(estimator)
    values = code_values(estimator)
    for f, codes in enumerate(values or []):
        for v in (v for group in codes or [] for v in group):
            kind = "text" if isinstance(v, str) else (
                "number" if isinstance(v, numbers.Real) else "other")
            if kind == "other":
                raise ValueError(f"the categorical column {names[f]!r} holds the value {v!r} "
                                 f"(of type {type(v).__name__}), which no ONNX input can "
                                 "carry (a tensor holds strings or numbers): convert the "
                                 "column to strings or numbers before fitting (e.g. "
                                 "df[col].astype(str))")
            if kind == "number" and float(v) != v:
                # the graph compares values in double: one that is no double never matches
                raise ValueError(f"the categorical column {names[f]!r} holds the number "
                                 f"{v!r}, which is no double: the graph compares values "
                                 "in double; convert the column to floats before fitting")
    if text and not text_columns:
        raise ValueError(f"the model encodes the categorical column(s) "
                         f"{[names[f] for f in text]} from values that are not numbers, "
                         "which an input of one numeric tensor cannot take; export it with "
                         "inputs='columns' (one input per column, strings for these), or "
                         "use export_python or export_sql, which take the values")
    mixed = [names[f] for f in text
             if not all(isinstance(v, str) for vals in values[f] for v in vals)]
    if mixed:
        raise ValueError(f"the categorical column(s) {mixed} mix text with other values; an "
                         "ONNX input column holds strings or numbers, not both")
    if tree.n_leaves > MAX_LEAVES:
        raise ValueError(f"the tree has {tree.n_leaves} leaves; the ONNX export handles up to "
                         f"{MAX_LEAVES}")
    return tree, isinstance(estimator, _estimator_classes()[0])


def _label_table(classes):
    """The class labels as an int64 or a string array (the two label types of ONNX)."""
    kind = np.asarray(classes).dtype.kind
    if kind in "iub":
        return np.asarray(classes, dtype=np.int64)
    if kind in "US" or (kind == "O" and all(isinstance(c, str) for c in classes)):
        return np.asarray([str(c) for c in classes], dtype=object)
    if kind == "O" and all(isinstance(c, (int, np.integer)) for c in classes):
        return np.asarray(classes, dtype=np.int64)
    raise ValueError("ONNX classifiers return integer or string labels; this classifier's "
                     f"classes_ are {np.asarray(classes).dtype} ({list(classes)[:3]}...): "
                     "fit it on integer or string labels")


def _leaf_tables(estimator, tree, is_classifier, classes=None):
    """Per leaf, in leaf-rank order: labels and probabilities, or values.

    The expressions are :meth:`predict_proba`'s and :meth:`predict`'s, so the
    numbers are the estimator's own. ``classes`` replaces ``classes_`` as the labels.
    """
    leaves = np.flatnonzero(tree.children_left == TREE_LEAF)
    if not is_classifier:
        return {"variable": np.ascontiguousarray(tree.value[leaves, :1])}
    counts = tree.value[leaves]
    totals = counts.sum(axis=1, keepdims=True)
    proba = counts / np.where(totals > 0, totals, 1.0)
    classes = estimator.classes_ if classes is None else classes
    labels = _label_table(classes)[np.argmax(proba, axis=1)]
    return {"label": labels, "probabilities": proba}


# ---------------------------------------------------------------------- graph backends
class _ModelGraph:
    """Nodes and initializers of a standalone ONNX graph.

    ``reserved`` holds the names of the graph's inputs and outputs, which come
    from the data (a column may be named ``transpose_1``): the names made here
    for intermediate values skip them, as every value of a graph needs its own.
    """

    def __init__(self, helper, opset, reserved=()):
        self.helper = helper
        self.opset = opset
        self.nodes = []
        self.initializers = []
        self._count = 0
        self._reserved = set(reserved)

    def name(self, prefix):
        self._count += 1
        while f"{prefix}_{self._count}" in self._reserved:
            self._count += 1
        return f"{prefix}_{self._count}"

    def constant(self, prefix, array):
        array = np.asarray(array)
        name = self.name(prefix)
        if array.dtype == object:
            # strings written as they are: helper.make_tensor passes them through a
            # numpy bytes array, which drops trailing NUL characters ("a\0" -> "a")
            from onnx import TensorProto

            tensor = TensorProto(name=name, data_type=TensorProto.STRING,
                                 dims=array.shape)
            tensor.string_data.extend(_tensor_values(array))
        else:
            tensor = self.helper.make_tensor(name, _tensor_type(array), array.shape,
                                             _tensor_values(array))
        self.initializers.append(tensor)
        return name

    def op(self, op_type, inputs, output=None, domain="", **attrs):
        output = output or self.name(op_type.lower())
        self.nodes.append(self.helper.make_node(op_type, inputs, [output],
                                                name=self.name(op_type), domain=domain,
                                                **attrs))
        return output


class _ConverterGraph:
    """The same interface writing into skl2onnx's scope and container."""

    def __init__(self, scope, container):
        self.scope = scope
        self.container = container
        self.opset = container.target_opset

    def name(self, prefix):
        return self.scope.get_unique_variable_name(prefix)

    def constant(self, prefix, array):
        array = np.asarray(array)
        name = self.name(prefix)
        self.container.add_initializer(name, _tensor_type(array), list(array.shape),
                                       _tensor_values(array))
        return name

    def op(self, op_type, inputs, output=None, domain="", **attrs):
        output = output or self.name(op_type.lower())
        # the one ai.onnx.ml operator is written at its first version, as skl2onnx's trees are
        version = 1 if domain else None
        self.container.add_node(op_type, inputs, output, op_domain=domain, op_version=version,
                                name=self.scope.get_unique_operator_name(op_type), **attrs)
        return output


def _tensor_type(array):
    from onnx import TensorProto

    if array.dtype == object:
        return TensorProto.STRING
    return {np.dtype(np.float64): TensorProto.DOUBLE, np.dtype(np.float32): TensorProto.FLOAT,
            np.dtype(np.int64): TensorProto.INT64,
            np.dtype(np.bool_): TensorProto.BOOL}[array.dtype]


def _tensor_values(array):
    """Flat values for ``helper.make_tensor``: exact doubles, bytes for strings."""
    flat = array.ravel()
    if array.dtype == object:
        return [str(v).encode("utf-8") for v in flat]
    return flat


# ---------------------------------------------------------------------- the routing
def _node_groups(tree):
    """Decision nodes by kind: ``[(indicators, nodes), ...]`` for linear ones, and categorical.

    ``indicators`` holds, for each used slot of the group's nodes, whether it is
    an indicator slot: nodes with the same number of used slots and the same
    indicator slots are tested together, so a tree without indicator slots gets
    one group per number of features, with plain products and sums.
    """
    internal = np.flatnonzero(tree.children_left != TREE_LEAF)
    is_categorical = tree.is_categorical[internal]
    categorical = internal[is_categorical]
    linear = internal[~is_categorical]
    n_slots = np.count_nonzero(tree.features[linear] >= 0, axis=1)
    # unused slots have no set, so the key is (number of slots, indicator slots)
    keys = np.column_stack([n_slots, tree.category_mask[linear] != 0]).astype(np.int64)
    groups = []
    for key in np.unique(keys, axis=0):
        indicators = tuple(bool(b) for b in key[1:1 + key[0]])
        groups.append((indicators, linear[np.all(keys == key, axis=1)]))
    return groups, categorical


def _column(values):
    """``values`` as a column, to broadcast along the rows of a feature-major array."""
    return np.asarray(values)[:, None]


def _linear_tests(g, xt, tree, indicators, nodes):
    """Boolean (len(nodes), N): ``goes_left``'s sum ``<= threshold`` for each node, in double.

    ``indicators`` tells for each slot whether the nodes read it as their
    category set's indicator (:func:`_indicator`) rather than as the feature's
    value. ``xt`` is the input transposed: gathering whole feature rows copies
    contiguous memory, several times faster than gathering columns.
    """
    total = None
    for k, indicator in enumerate(indicators):
        term = g.op("Gather", [xt, g.constant("features", tree.features[nodes, k])], axis=0)
        if indicator:
            term = _indicator(g, term, tree.category_mask[nodes, k])
        weights = tree.weights[nodes, k]
        if np.any(weights != 1.0):  # 1 * x == x for every double: no product needed
            term = g.op("Mul", [term, g.constant("weights", _column(weights))])
        # one Add per slot, slot order: project_row's summation, one rounding per step
        total = term if total is None else g.op("Add", [total, term])
    tests = g.op("LessOrEqual", [total, g.constant("threshold",
                                                   _column(tree.threshold[nodes]))])
    return _missing_left(g, tests, total, tree, nodes)


def _missing_left(g, tests, values, tree, nodes):
    """``tests``, or NaN ``values`` at the nodes whose missing side is the left one."""
    sides = tree.missing_go_left[nodes]
    if not sides.any():  # NaN fails every test: it goes right, as these nodes want
        return tests
    missing = g.op("And", [g.op("IsNaN", [values]),
                           g.constant("missing_left", _column(sides))])
    return g.op("Or", [tests, missing])


def _in_category_set(g, codes, masks):
    """Boolean like ``codes``: the code is an integer in [0, 63] whose bit is set in the
    mask of its row (``masks``: one per row of ``codes``, that is per node)."""
    low, high = g.constant("zero", np.float64(0.0)), g.constant("top", np.float64(63.0))
    clipped = g.op("Floor", [g.op("Clip", [codes, low, high])])
    # false for fractions, codes outside [0, 63], infinities and NaN
    valid = g.op("Equal", [codes, clipped])
    # invalid codes index bit 0 (a cast of NaN to int64 is undefined); "valid" masks them out
    index = g.op("Cast", [g.op("Where", [valid, clipped, low])], to=_onnx_type("INT64"))
    bits = np.array([[(int(m) >> c) & 1 == 1 for c in range(N_CATEGORY_CODES)]
                     for m in masks], dtype=bool)
    offsets = N_CATEGORY_CODES * np.arange(len(masks), dtype=np.int64)
    index = g.op("Add", [index, g.constant("offsets", _column(offsets))])
    in_set = g.op("Gather", [g.constant("category_bits", bits.ravel()), index], axis=0)
    return g.op("And", [valid, in_set])


def _indicator(g, codes, masks):
    """Double like ``codes``: 1.0 for a code in its row's set, 0.0 for another number,
    NaN for NaN (``slot_value``), so a missing code makes the node's sum NaN."""
    ones = g.op("Cast", [_in_category_set(g, codes, masks)], to=_onnx_type("DOUBLE"))
    return g.op("Where", [g.op("IsNaN", [codes]), codes, ones])


def _categorical_tests(g, xt, tree, nodes):
    """Boolean (len(nodes), N): the code is an integer in [0, 63] whose bit is set."""
    codes = g.op("Gather", [xt, g.constant("features", tree.features[nodes, 0])], axis=0)
    in_set = _in_category_set(g, codes, tree.category_mask[nodes, 0])
    return _missing_left(g, in_set, codes, tree, nodes)


def _ensemble_attributes(tree, column):
    """``TreeEnsembleRegressor`` attributes: the tree's structure, leaves returning their rank."""
    n = tree.node_count
    internal = tree.children_left != TREE_LEAF
    leaves = np.flatnonzero(~internal)
    return {
        "nodes_treeids": [0] * n,
        "nodes_nodeids": list(range(n)),
        "nodes_featureids": [int(c) for c in column],
        # a column is 1.0 where the row goes left
        "nodes_modes": ["BRANCH_GT" if i else "LEAF" for i in internal],
        "nodes_values": [0.5 if i else 0.0 for i in internal],
        "nodes_truenodeids": [int(c) if i else 0 for c, i in zip(tree.children_left, internal)],
        "nodes_falsenodeids": [int(c) if i else 0
                               for c, i in zip(tree.children_right, internal)],
        "target_treeids": [0] * len(leaves),
        "target_nodeids": [int(v) for v in leaves],
        "target_ids": [0] * len(leaves),
        "target_weights": [float(r) for r in range(len(leaves))],
        "n_targets": 1,
        "aggregate_function": "SUM",
        "post_transform": "NONE",
    }


def _category_codes(g, x, values):
    """Double ``x`` with each categorical column's values replaced by their codes.

    ``values`` is ``_tabular.code_values``: per feature, the values of each code
    (numbers here), or None for a numeric feature. A value equal to one of them
    becomes its code; any other value, NaN included, becomes NaN, the missing
    value the tree routes to its missing sides, as :meth:`predict` reads a value
    not seen at fit. The comparison is ``Equal`` in double, the equality of the
    Python lookup the estimator uses.
    """
    xt = g.op("Transpose", [x], perm=[1, 0])
    rows = []
    for f, codes in enumerate(values):
        row = g.op("Gather", [xt, g.constant("feature", np.array([f]))], axis=0)  # (1, N)
        if codes is not None and not codes:
            # no code (the column was all missing at fit): every value reads as missing
            row = g.op("Mul", [row, g.constant("nan", np.array(np.nan))])
        elif codes is not None:
            keys = np.array([float(v) for vals in codes for v in vals])
            code_of = np.array([float(c) for c, vals in enumerate(codes) for _ in vals])
            hits = g.op("Cast", [g.op("Equal", [row, g.constant("keys", keys[:, None])])],
                        to=_onnx_type("DOUBLE"))  # (keys, N): 1.0 where the value is the key
            which = g.op("ArgMax", [hits], axis=0, keepdims=1)  # (1, N)
            found = g.op("GatherElements", [hits, which], axis=0)  # 1.0 when some key matched
            row = g.op("Where", [g.op("Cast", [found], to=_onnx_type("BOOL")),
                                 g.op("Gather", [g.constant("codes", code_of), which], axis=0),
                                 g.constant("nan", np.array(np.nan))])
        rows.append(row)
    return g.op("Transpose", [g.op("Concat", rows, axis=0)], perm=[1, 0])


def _leaf_rank(g, x, tree):
    """Int64 (N,): the rank among the leaves of the leaf each row of double ``x`` reaches."""
    groups, categorical = _node_groups(tree)
    if not groups and not categorical.size:
        n_rows = g.op("Gather", [g.op("Shape", [x]), g.constant("axis0", np.array([0]))],
                      axis=0)
        return g.op("ConstantOfShape", [n_rows],
                    value=_helper().make_tensor("zero", _onnx_type("INT64"), [1], [0]))
    xt = g.op("Transpose", [x], perm=[1, 0])
    pieces, order = [], []
    for indicators, nodes in groups:
        pieces.append(_linear_tests(g, xt, tree, indicators, nodes))
        order.append(nodes)
    if categorical.size:
        pieces.append(_categorical_tests(g, xt, tree, categorical))
        order.append(categorical)
    tests = pieces[0] if len(pieces) == 1 else g.op("Concat", pieces, axis=0)
    tests = g.op("Transpose", [tests], perm=[1, 0])
    column = np.zeros(tree.node_count, dtype=np.int64)
    column[np.concatenate(order)] = np.arange(sum(len(o) for o in order))
    ranks = g.op("TreeEnsembleRegressor", [g.op("Cast", [tests], to=_onnx_type("FLOAT"))],
                 domain="ai.onnx.ml", **_ensemble_attributes(tree, column))
    ranks = g.op("Cast", [ranks], to=_onnx_type("INT64"))
    return g.op("Reshape", [ranks, g.constant("flat", np.array([-1]))])


def _write_outputs(g, rank, tables, outputs, as_float):
    """Gather each leaf table at ``rank`` into the named outputs (float32 when ``as_float``)."""
    for key, output in outputs.items():
        table = tables[key]
        numeric = table.dtype == np.float64
        gathered = g.op("Gather", [g.constant(key, table), rank],
                        None if numeric and as_float else output, axis=0)
        if numeric and as_float:
            g.op("Cast", [gathered], output, to=_onnx_type("FLOAT"))


def _text_codes(g, column, codes):
    """Double ``(N, 1)``: the codes of the strings of ``column``, NaN for any other string.

    ``codes`` lists, per code, the values it stands for (strings).
    ``LabelEncoder`` compares the strings exactly, as the estimator's lookup of
    a value does; a string not seen at fit becomes NaN, a missing value.
    """
    keys = [v for vals in codes for v in vals]
    code_of = [float(c) for c, vals in enumerate(codes) for _ in vals]
    found = g.op("LabelEncoder", [column], domain="ai.onnx.ml", keys_strings=keys,
                 values_floats=code_of, default_float=float("nan"))
    return g.op("Cast", [found], to=_onnx_type("DOUBLE"))


def _matrix_of_columns(g, columns, values, text, input_is_float):
    """Double ``(N, n_features)`` from one ``(N, 1)`` input per column: the strings of a
    column of ``text`` replaced by their codes (:func:`_text_codes`, ``values`` as
    ``_tabular.code_values`` gives them), the other columns cast to double."""
    parts = []
    for f, column in enumerate(columns):
        if f in text:
            parts.append(_text_codes(g, column, values[f]))
        elif input_is_float:
            parts.append(g.op("Cast", [column], to=_onnx_type("DOUBLE")))
        else:
            parts.append(column)
    return g.op("Concat", parts, axis=1)


def _build(g, x, estimator, input_is_float, outputs, classes=None, float_outputs=None):
    """The whole graph from input ``x`` to the named outputs.

    ``x`` is the name of the input matrix, or a list with the name of each
    column's input (text columns as strings). Probabilities and values are
    float32 when ``float_outputs`` (by default ``input_is_float``), else float64.
    """
    by_column = isinstance(x, list)
    tree, is_classifier = _check_estimator(estimator, text_columns=by_column)
    if g.opset < MIN_OPSET:
        raise ValueError(f"the ONNX export needs opset {MIN_OPSET} or later, got {g.opset}")
    tables = _leaf_tables(estimator, tree, is_classifier, classes)
    values = code_values(estimator)
    if by_column:
        text = set(_text_columns(estimator))
        x = _matrix_of_columns(g, x, values, text, input_is_float)
        if values is not None:
            # the text columns hold codes already
            values = [None if f in text else codes for f, codes in enumerate(values)]
    elif input_is_float:
        # float32 values are doubles too: routing them in double is apply's routing
        x = g.op("Cast", [x], to=_onnx_type("DOUBLE"))
    if values is not None and any(codes is not None for codes in values):
        x = _category_codes(g, x, values)
    float_outputs = input_is_float if float_outputs is None else float_outputs
    _write_outputs(g, _leaf_rank(g, x, tree), tables, outputs, float_outputs)


def _helper():
    return _import("onnx.helper")


def _onnx_type(name):
    return getattr(_import("onnx").TensorProto, name)


# ---------------------------------------------------------------------- public
def export_onnx(estimator, *, input_type="double", input_name="X", target_opset=None,
                inputs="auto", missing_text=""):
    """An ONNX model predicting a batch of rows exactly as the estimator does.

    The model uses standard operators only (domains ``ai.onnx`` and
    ``ai.onnx.ml``) and runs in ONNX Runtime or any other ONNX runtime.

    Parameters
    ----------
    estimator : BivariateTreeClassifier, BivariateTreeRegressor, TAOTreeClassifier or TAOTreeRegressor
        A fitted estimator. A model selector (``TAOTreeClassifierCV``,
        ``CostComplexityCV``...) stands for its chosen tree, ``best_estimator_``.
    input_type : {"double", "float"}, default="double"
        Element type of the input tensor. ``"double"``: the model takes float64
        rows, routes them as :meth:`apply` does and returns float64
        probabilities or values equal to the estimator's. ``"float"``: the
        model takes float32 rows and casts them to double first (exact), so
        every row routes as :meth:`apply` routes the same values given as
        float64; probabilities and values are then returned as float32, each
        the estimator's double rounded once.
    input_name : str, default="X"
        Name of the input with ``inputs="matrix"``, a tensor of shape
        ``(N, n_features_in_)``.
    target_opset : int, default=None
        Opset of the ``ai.onnx`` domain, 13 or later; ``None`` writes 17.
        ``ai.onnx.ml`` is written at opset 3.
    inputs : {"auto", "matrix", "columns"}, default="auto"
        ``"matrix"``: one input ``input_name`` holding every feature (category
        values as numbers). ``"columns"``: one input per feature, of shape
        ``(N, 1)``, named as the feature (``feature_names_in_``, else ``x0``,
        ``x1``, ...), as skl2onnx names a DataFrame's columns: a categorical
        column whose categories are text is a string tensor, mapped to its
        codes in the graph (a string not seen at fit is a missing value, as
        :meth:`predict` reads it), every other column is ``input_type``.
        ``"auto"``: ``"columns"`` for a model with text categories, else
        ``"matrix"``.
    missing_text : str, default=""
        The string that stands for a missing value in a text column's input (a
        string tensor holds no NaN or None): feed it where the column is missing
        (``frame[[name]].astype(object).fillna(missing_text)``). The graph reads
        every string not seen at fit as a missing value, so any such string
        works; ``export_onnx`` checks that ``missing_text`` is none of the
        column's categories, which would read it as that category, and raises
        otherwise: a model with the category ``""`` needs another marker, e.g.
        ``missing_text="<missing>"``. The model keeps it in its metadata
        (``metadata_props``, key ``missing_text``).

    Returns
    -------
    onnx.ModelProto
        A classifier has two outputs, as skl2onnx's classifiers (without
        ZipMap): ``label`` (shape ``(N,)``, int64 for integer or boolean
        classes, which become 0 / 1, or string) and ``probabilities``
        (``(N, n_classes)``, in ``classes_`` order). A regressor has one,
        ``variable`` (``(N, 1)``).

    Raises
    ------
    TypeError
        If ``estimator`` is not one of bivtree's tree estimators.
    sklearn.exceptions.NotFittedError
        If it is not fitted.
    ValueError
        For an unknown ``input_type``, an ``input_name`` that names an output, an
        opset below 13, class labels that are neither integers nor strings, a
        model that encodes categories that are not numbers with
        ``inputs="matrix"``, a categorical column mixing text and numbers or
        holding values that are neither (dates...), a ``missing_text`` that is
        a category of a text column, a feature named as an output, named ``""``
        or named as another feature with ``inputs="columns"`` (an input's name
        is its feature's), or a tree of more than 2**24 leaves.
    ImportError
        If the ``onnx`` package is missing (``pip install bivtree[onnx]``).

    Notes
    -----
    Exactness: every finite float64 row reaches the leaf :meth:`apply` gives,
    values exactly at a threshold included, so labels, probabilities and
    values are :meth:`predict`'s and :meth:`predict_proba`'s bit for bit (the
    graph repeats their arithmetic in double, see the module documentation).
    A NaN (a missing value) takes the missing side of every node that reads it
    (``Tree.missing_go_left``), as in :meth:`apply` and the export to SQL; a
    runtime set to flush subnormal numbers to zero (ONNX Runtime's
    ``session.set_denormal_as_zero``, off by default) may route rows whose
    projection is subnormally close to a threshold otherwise.

    Memory: the graph evaluates every decision node's test for the whole batch
    at once, so its intermediates hold ``N x n_decision_nodes`` values: float64
    copies of the features each node reads (one for a univariate node; a node
    of two or three features adds products and sums, an indicator slot its
    membership test), then one byte and one float32 per outcome. ONNX Runtime
    frees each as soon as it is used; its peak grew by about 21 bytes per row
    and decision node for a depth-8 tree of mostly bivariate nodes and by about
    34 for one of three-feature nodes. Score large inputs in batches: 10^5 rows at a time for a tree of
    1,000 decision nodes need 2 to 4 GB.

    Examples
    --------
    >>> import onnxruntime as ort  # doctest: +SKIP
    >>> model = export_onnx(clf)  # doctest: +SKIP
    >>> session = ort.InferenceSession(model.SerializeToString())  # doctest: +SKIP
    >>> label, proba = session.run(None, {"X": X.astype("float64")})  # doctest: +SKIP

    A model fitted on a DataFrame with text categories takes one input per
    column (``inputs="auto"``), a missing text value as ``missing_text``
    (``""`` by default)::

        missing = "<missing>"  # no category of "colour"; export_onnx checks it
        model = export_onnx(clf, missing_text=missing)
        feed = {name: frame[[name]].astype(object).fillna(missing).to_numpy(object)
                if name == "colour" else frame[[name]].to_numpy("float64")
                for name in frame.columns}
        label, proba = ort.InferenceSession(model.SerializeToString()).run(None, feed)
    """
    estimator = tree_estimator(estimator, "export_onnx")  # a model selector: its chosen tree
    if input_type not in ("double", "float"):
        raise ValueError(f"input_type must be 'double' or 'float', got {input_type!r}")
    if inputs not in ("auto", "matrix", "columns"):
        raise ValueError(f"inputs must be 'auto', 'matrix' or 'columns', got {inputs!r}")
    opset = DEFAULT_OPSET if target_opset is None else int(target_opset)
    helper = _helper()
    tree, is_classifier = _check_estimator(estimator, text_columns=inputs != "matrix")
    text = set(_text_columns(estimator))  # the columns fed as strings
    if inputs == "auto":
        inputs = "columns" if text else "matrix"
    outputs = {"label": "label", "probabilities": "probabilities"} if is_classifier else {
        "variable": "variable"}
    names = [input_name] if inputs == "matrix" else _column_names(estimator)
    _check_input_names(names, outputs, by_column=inputs != "matrix")
    if text:
        _check_missing_text(missing_text, estimator, text)
    g = _ModelGraph(helper, opset, reserved=[*names, *outputs])
    _build(g, input_name if inputs == "matrix" else names, estimator, input_type == "float",
           outputs)

    value_type = _onnx_type("FLOAT" if input_type == "float" else "DOUBLE")
    if inputs == "matrix":
        declared_inputs = [helper.make_tensor_value_info(
            input_name, value_type, ["N", int(estimator.n_features_in_)])]
    else:
        declared_inputs = [helper.make_tensor_value_info(
            name, _onnx_type("STRING") if f in text else value_type, ["N", 1])
            for f, name in enumerate(names)]
    if is_classifier:
        labels = _label_table(estimator.classes_)
        label_type = _onnx_type("STRING" if labels.dtype == object else "INT64")
        declared = [helper.make_tensor_value_info("label", label_type, ["N"]),
                    helper.make_tensor_value_info("probabilities", value_type,
                                                  ["N", len(labels)])]
    else:
        declared = [helper.make_tensor_value_info("variable", value_type, ["N", 1])]
    graph = helper.make_graph(g.nodes, f"bivtree_{type(estimator).__name__}", declared_inputs,
                              declared, g.initializers)
    model = helper.make_model(graph, producer_name="bivtree", producer_version=__version__,
                              opset_imports=[helper.make_opsetid("", opset),
                                             helper.make_opsetid("ai.onnx.ml", ML_OPSET)])
    model.doc_string = (f"bivtree {type(estimator).__name__}: {tree.node_count} nodes, "
                        f"{tree.n_leaves} leaves; routes rows as bivtree's apply")
    props = {}
    names = getattr(estimator, "feature_names_in_", None)
    if names is not None:
        props["feature_names"] = json.dumps([str(n) for n in names])
    if text and inputs == "columns":
        props["missing_text"] = missing_text
    if props:
        helper.set_model_props(model, props)
    return model


def _check_input_names(names, outputs, by_column):
    """Refuse input names ONNX cannot take: empty, shared by two inputs, or an output's.

    ``by_column``: ``names`` are the features' (one input per column), else
    ``input_name`` alone.
    """
    for j, name in enumerate(names):
        if name == "":
            raise ValueError(f"feature {j} has the empty name '', which cannot name an ONNX "
                             "input: rename the column before fitting" if by_column else
                             "input_name cannot be empty: it names the ONNX input")
        if name in outputs:
            what = "the feature name" if by_column else "input_name"
            raise ValueError(f"{what} {name!r} is the name of an output")
    if len(set(names)) < len(names):
        twice = next(name for name in names if names.count(name) > 1)
        raise ValueError(f"two features are named {twice!r}; each ONNX input needs its own "
                         "name: rename the columns before fitting")


def _check_missing_text(missing_text, estimator, text):
    """Refuse a ``missing_text`` that a text column (``text``: their indices) reads as a
    category: fed for a missing value, it would be routed as that category."""
    # a ValueError, as for every bad argument of the exports
    is_text = isinstance(missing_text, str)
    if not is_text:
        raise ValueError(f"missing_text must be a string, got {missing_text!r}")
    values = code_values(estimator)
    names = _column_names(estimator)
    for f in sorted(text):
        if any(v == missing_text for group in values[f] for v in group):
            raise ValueError(f"missing_text {missing_text!r} is a category of the column "
                             f"{names[f]!r}, so a missing value fed as it would read as that "
                             "category: pass another missing_text, one that is no category "
                             "(e.g. missing_text='<missing>'), and feed it for missing values")


# ---------------------------------------------------------------------- skl2onnx
def _float_probabilities(scope, estimator, input_is_float):
    """Whether a classifier's probabilities are float32 in a skl2onnx graph.

    They follow the input, except under skl2onnx's default ``zipmap=True``:
    ONNX's ZipMap takes float32 only, so a double graph hands it the
    probabilities rounded once to float32.
    """
    return input_is_float or scope.get_options(estimator, {"zipmap": True})["zipmap"] is True


def _shape_calculator(operator):
    """Output types of a bivtree estimator in a skl2onnx graph."""
    from skl2onnx.common.data_types import (
        DoubleTensorType,
        FloatTensorType,
        Int64TensorType,
        StringTensorType,
    )
    from skl2onnx.common.utils_classifier import get_label_classes

    source = operator.inputs[0].type
    if not isinstance(source, (FloatTensorType, DoubleTensorType)):
        raise TypeError(f"bivtree's ONNX converter takes float or double tensors, got "
                        f"{type(source).__name__}")
    n = operator.inputs[0].get_first_dimension()
    value_type = type(source)
    estimator = operator.raw_operator  # a selector's options are its own: keep it here
    if hasattr(estimator, "classes_"):
        # option nocl: class indices as labels
        labels = _label_table(get_label_classes(operator.scope_inst, estimator))
        label_type = StringTensorType if labels.dtype == object else Int64TensorType
        operator.outputs[0].type = label_type(shape=[n])
        if _float_probabilities(operator.scope_inst, estimator, value_type is FloatTensorType):
            value_type = FloatTensorType
        operator.outputs[1].type = value_type(shape=[n, len(labels)])
    else:
        operator.outputs[0].type = value_type(shape=[n, 1])


def _converter(scope, operator, container):
    """Write a bivtree estimator's graph into skl2onnx's container."""
    from skl2onnx.common.data_types import FloatTensorType
    from skl2onnx.common.utils_classifier import get_label_classes

    estimator = operator.raw_operator
    is_classifier = hasattr(estimator, "classes_")
    keys = ("label", "probabilities") if is_classifier else ("variable",)
    outputs = {key: out.full_name for key, out in zip(keys, operator.outputs)}
    input_is_float = isinstance(operator.inputs[0].type, FloatTensorType)
    classes, float_outputs = None, input_is_float
    if is_classifier:
        classes = get_label_classes(scope, estimator)
        float_outputs = _float_probabilities(scope, estimator, input_is_float)
    _build(_ConverterGraph(scope, container), operator.inputs[0].full_name,
           tree_estimator(estimator, "the skl2onnx converter"), input_is_float, outputs,
           classes, float_outputs)


def _chosen_tree_parser(scope, model, inputs, custom_parsers=None):
    """skl2onnx's parser of a :class:`~bivtree.model_selection.CostComplexityCV`: the graph
    of its chosen tree, with the options given for the selector.

    The chosen tree may be bivtree's (converted by this module) or scikit-learn's
    (skl2onnx's own converter), and a classifier or a regressor: skl2onnx
    declares the outputs of whichever it is.
    """
    from skl2onnx._parse import _parse_sklearn

    chosen = model._chosen()
    options = scope.get_options(model, fail=False)
    if options:
        scope.add_options(id(chosen), options)
    return _parse_sklearn(scope, chosen, inputs, custom_parsers=custom_parsers)


def register_skl2onnx_converters():
    """Let ``skl2onnx`` convert bivtree's estimators, alone or inside a pipeline.

    The tree estimators convert, and the model selectors as their chosen trees:
    the TAO selectors (``TAOTreeClassifierCV``, ``TAOTreeRegressorCV``) and
    :class:`~bivtree.model_selection.CostComplexityCV` (whose chosen tree may
    also be scikit-learn's, converted by skl2onnx's own converter).

    Call it once before ``skl2onnx.to_onnx`` / ``convert_sklearn``; later calls
    do nothing. Classifiers accept skl2onnx's ``zipmap`` and ``nocl`` options
    like its own: ``options={"zipmap": False}`` gives the ``probabilities``
    matrix, in float64 in a double graph (ZipMap, the default, holds float32
    values only); ``"nocl": True`` labels classes ``0 .. n_classes - 1``.

    The converted step routes the values it receives exactly as :meth:`apply`
    routes them (see :func:`export_onnx`). skl2onnx builds a float32 graph for
    float32 input (``to_onnx(pipe, X.astype(np.float32))``): the steps before
    the tree then compute in float32, and their output can differ from
    scikit-learn's float64 output by a float32 rounding, so a row whose
    projection lies that close to a threshold may reach another leaf than
    ``pipe.predict`` gives. Converting with float64 input
    (``to_onnx(pipe, X.astype(np.float64))``) keeps the whole graph in double.

    Raises
    ------
    ImportError
        If ``skl2onnx`` is missing (``pip install bivtree[onnx]``).

    Examples
    --------
    >>> from bivtree import register_skl2onnx_converters
    >>> from skl2onnx import to_onnx  # doctest: +SKIP
    >>> register_skl2onnx_converters()  # doctest: +SKIP
    >>> model = to_onnx(pipe, X[:1].astype("float64"),
    ...                 options={BivariateTreeClassifier: {"zipmap": False}})  # doctest: +SKIP
    """
    global _registered
    skl2onnx = _import("skl2onnx")
    if _registered:
        return
    from ..model_selection import CostComplexityCV
    from ..tao.selection import TAOTreeClassifierCV, TAOTreeRegressorCV

    classifiers, regressors = _estimator_classes()
    # the TAO selectors convert as their chosen trees
    classifiers, regressors = classifiers + (TAOTreeClassifierCV,), regressors + (
        TAOTreeRegressorCV,)
    for cls in classifiers + regressors:
        options = ({"zipmap": [True, False, "columns"], "nocl": [True, False]}
                   if cls in classifiers else None)
        skl2onnx.update_registered_converter(cls, _ALIASES[cls.__name__], _shape_calculator,
                                             _converter, options=options)
    # a classifier or a regressor, as its estimator is: parsed as the tree it chose
    skl2onnx.update_registered_converter(
        CostComplexityCV, _ALIASES["CostComplexityCV"], _shape_calculator, _converter,
        parser=_chosen_tree_parser,
        options={"zipmap": [True, False, "columns"], "nocl": [True, False]})
    _registered = True
