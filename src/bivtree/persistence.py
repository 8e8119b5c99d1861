"""Fitted estimators as JSON: a versioned schema that loads without executing code.

- :func:`to_json` / :func:`from_json`: an estimator as JSON text and back;
- :func:`save_model` / :func:`load_model`: the same through a file;
- :func:`register_model`: the class decorator that lets an estimator class be saved
  and loaded. Every bivtree estimator class registers itself where it is defined,
  so this module imports none of them.

The layout, and what a reader checks, is described in docs/model-format.md. The
checks of a model file's top-level fields are the table ``_MODEL_FIELDS``; the
tree's own arrays are checked by :meth:`Tree.from_dict` and :func:`_check_tree_dict`.
"""

import json
import numbers
import os
import re
import stat
from collections.abc import Callable
from typing import Any, NamedTuple

import numpy as np
from sklearn.base import is_classifier
from sklearn.utils.validation import check_is_fitted

from ._validation import check_params
from ._version import __version__
from .constraints import resolve_interaction_cst, resolve_monotonic_cst
from .tree import N_CATEGORY_CODES as MAX_CATEGORY_CODES
from .tree import TREE_FORMAT_VERSION, TREE_FORMAT_VERSIONS_READ, Tree

__all__ = [
    "MAX_MODEL_BYTES",
    "MODEL_FORMAT",
    "MODEL_FORMAT_VERSION",
    "ModelTooLongError",
    "from_json",
    "load_model",
    "register_model",
    "save_model",
    "to_json",
]

#: ``format`` tag of a saved estimator (see docs/model-format.md).
MODEL_FORMAT = "bivtree.model"
#: newest version of the estimator-level JSON layout written by :func:`to_json` (5: a
#: model fitted under monotonic or interaction constraints, which its ``params`` and its
#: ``constraints`` field record; its tree is a version 4 tree). Any other model is written
#: with the version of its tree, as before: 4 for a tree with category indicator slots, 3
#: for one with the missing-value sides it learned, 2 for one with neither.
MODEL_FORMAT_VERSION = 5
#: model versions :func:`from_json` reads, each with the tree version it holds.
_TREE_VERSION_OF_MODEL = {1: 1, 2: 2, 3: 3, 4: TREE_FORMAT_VERSION, 5: TREE_FORMAT_VERSION}
#: the constraint parameters (format version 5), with the fitted attribute each becomes.
_CONSTRAINT_PARAMS = {"monotonic_cst": "monotonic_cst_", "interaction_cst": "interaction_cst_"}
#: numpy dtype kinds a saved ``classes_`` may have: bool, integers, floats, strings.
_CLASS_KINDS = {"b": bool, "i": int, "u": int, "f": float, "U": str, "O": str}

#: largest item of a saved ``classes_`` dtype: string labels of up to 65536 characters
#: (4 bytes each), so a corrupt dtype such as ``"<U999999999"`` allocates nothing.
_MAX_LABEL_BYTES = 4 << 16

#: estimator classes that models may hold, by class name (the ``estimator`` field).
_MODEL_CLASSES = {}

#: parameters added after format version 2 was fixed, with the value a file that leaves
#: them out was fitted with: written only when set to another value, and read as that
#: value when a file leaves them out, so the files of models that do not use them are
#: unchanged and older files still load. TAO's ``pair_search`` defaults to
#: ``"coarse_to_fine"`` now; files written before it existed searched ``"orientations"``.
#: Likewise TAO's ``prune_init``: its trees were optimized from the whole initial tree.
_OPTIONAL_PARAMS = {"categorical_features": "from_dtype", "max_categories": None,
                    "pair_search": "orientations", "monotonic_cst": None,
                    "interaction_cst": None, "prune_init": False}


def register_model(cls):
    """Class decorator: instances of ``cls`` can be saved, and files naming it loaded.

    A model file names its estimator class by ``cls.__name__``; only registered
    classes are written or rebuilt, so a file cannot make the reader construct
    anything else.

    Parameters
    ----------
    cls : type
        A scikit-learn style estimator class whose fitted instances have ``tree_``,
        ``n_features_in_``, ``max_features_`` and ``feature_importances_``.

    Returns
    -------
    cls
        The class itself, unchanged.
    """
    known = _MODEL_CLASSES.get(cls.__name__)
    # the same class seen again (a module reloaded) replaces itself; another class of
    # the same name would make the files of both ambiguous
    if known is not None and (known.__module__, known.__qualname__) != (
            cls.__module__, cls.__qualname__):
        raise ValueError(f"another model class is already registered as {cls.__name__!r}: "
                         f"{known.__module__}.{known.__qualname__}")
    _MODEL_CLASSES[cls.__name__] = cls
    return cls


def _parameter_names(cls):
    return set(cls().get_params(deep=False))


def _is_int(value):
    """A JSON integer (``bool`` is an ``int`` in Python but not in a model file)."""
    return isinstance(value, int) and not isinstance(value, bool)


def _is_number(value):
    return isinstance(value, (int, float)) and not isinstance(value, bool)


# ============================================================================ writing
def _plain(value):
    """A numpy scalar as the Python scalar ``json`` writes."""
    return value.item() if isinstance(value, np.generic) else value


def _encode_param(value):
    """JSON form of a parameter value; raises TypeError when there is none."""
    value = _plain(value)
    if value is None or isinstance(value, (bool, str)):
        return value
    if isinstance(value, int):
        return value
    if isinstance(value, float):
        if not np.isfinite(value):
            raise TypeError("non-finite number")
        return value
    if isinstance(value, dict):
        # JSON object keys are strings; pairs keep int class labels as ints
        return {"dict": [[_encode_param(k), _encode_param(v)] for k, v in value.items()]}
    if isinstance(value, (list, tuple)):  # e.g. splitter options; a tuple comes back a list
        return [_encode_param(v) for v in value]
    raise TypeError(f"a {type(value).__name__}")


def _decode_param(name, value):
    # recursive, but over parsed JSON, whose nesting _parse_json bounds by MAX_JSON_DEPTH
    if value is None or isinstance(value, (bool, str, int, float)):
        return value
    if isinstance(value, list):
        return [_decode_param(name, v) for v in value]
    if isinstance(value, dict) and set(value) == {"dict"} and isinstance(value["dict"], list):
        out = {}
        for pair in value["dict"]:
            if not (isinstance(pair, list) and len(pair) == 2):
                raise ValueError(f"parameter {name!r}: dictionary entries must be "
                                 "[key, value] pairs")
            key = _decode_param(name, pair[0])
            if isinstance(key, (dict, list)):
                raise ValueError(  # noqa: TRY004
                    f"parameter {name!r}: a dictionary key must be a number, string, "
                    "boolean or null")
            out[key] = _decode_param(name, pair[1])
        return out
    raise ValueError(f"parameter {name!r} has an unsupported value {value!r}")


def _model_dict(estimator, metadata=None):
    """The JSON-safe dictionary written by :func:`to_json`."""
    check_is_fitted(estimator, "tree_")
    name = type(estimator).__name__
    if _MODEL_CLASSES.get(name) is not type(estimator):
        chosen = ("; a model selector's chosen tree is saved as itself: save its "
                  "best_estimator_" if hasattr(estimator, "best_estimator_") else "")
        raise ValueError(f"cannot save a {name}; JSON models hold {sorted(_MODEL_CLASSES)}"
                         f"{chosen}")
    params, not_saved = {}, []
    for key, value in sorted(estimator.get_params(deep=False).items()):
        if key in _OPTIONAL_PARAMS and _is_default(value, _OPTIONAL_PARAMS[key]):
            continue
        if key in _CONSTRAINT_PARAMS:
            value = _plain_constraint(value)
        try:
            params[key] = _encode_param(value)
        except TypeError:
            # e.g. a RandomState: it does not affect predictions, so the model is
            # still saved, and the parameter comes back as None
            params[key] = None
            not_saved.append(key)
    names = getattr(estimator, "feature_names_in_", None)
    constraints = _constraints_dict(estimator)
    # a model fitted under constraints is of version 5, whose tree is a version 4 tree
    tree_dict = estimator.tree_.to_dict(min_version=2 if constraints is None else 4)
    out = {
        "format": MODEL_FORMAT,
        "version": tree_dict["version"] if constraints is None else 5,
        "bivtree_version": __version__,
        "estimator": name,
        "params": params,
        "n_features_in": int(estimator.n_features_in_),
        "feature_names_in": None if names is None else [str(f) for f in names],
        "max_features": int(estimator.max_features_),
        "feature_importances": [float(v) for v in estimator.feature_importances_],
        "tree": tree_dict,
    }
    if hasattr(estimator, "classes_"):
        cls_arr = np.asarray(estimator.classes_)
        kind = cls_arr.dtype.kind
        if kind not in _CLASS_KINDS or (kind == "O" and not all(isinstance(c, str)
                                                                 for c in cls_arr)):
            raise ValueError(f"cannot save class labels of dtype {cls_arr.dtype}; JSON models "
                             "hold bool, integer, float or string labels")
        out["classes"] = {"dtype": cls_arr.dtype.str,
                          "values": [_plain(c) for c in cls_arr.tolist()]}
    if hasattr(estimator, "fit_time_"):
        out["fit_time"] = float(estimator.fit_time_)
    categories = _categories_dict(estimator)
    if categories is not None:
        out["categories"] = categories
    if constraints is not None:
        out["constraints"] = constraints
    if not_saved:
        out["params_not_saved"] = not_saved
    if metadata is not None:
        out["metadata"] = _check_metadata(metadata)
    return out


def _is_default(value, default):
    return isinstance(value, type(default)) and value == default


def _plain_constraint(value):
    """A constraint parameter with lists for its arrays, tuples and sets (sets sorted), so
    that it has a JSON form; ``None``, strings and dicts as they are."""
    if isinstance(value, np.ndarray):
        value = value.tolist()
    if isinstance(value, (set, frozenset)):
        value = sorted(value, key=repr)
    if isinstance(value, (list, tuple)):
        return [_plain_constraint(_plain(v)) for v in value]
    return value


def _constraints_dict(estimator):
    """The ``constraints`` field: the fitted constraints of a model fitted under some, else
    None (``monotonic``: one constraint per feature; ``interaction``: the groups of
    feature indices, the unlisted features' one included, or ``"pairwise"``)."""
    monotonic = getattr(estimator, "monotonic_cst_", None)
    interaction = getattr(estimator, "interaction_cst_", None)
    if monotonic is None and interaction is None:
        return None
    return {"monotonic": None if monotonic is None else [int(c) for c in monotonic],
            "interaction": (interaction if interaction is None or isinstance(interaction, str)
                            else [[int(j) for j in group] for group in interaction])}


def _categories_dict(estimator):
    """The ``categories`` field: per feature, the category values of its codes (or None)."""
    from ._tabular import fitted_categories

    per_feature = fitted_categories(estimator)
    if per_feature is None:
        return None
    out = []
    for kept, grouped in per_feature:
        if kept is None:
            out.append(None)
            continue
        entry = {"values": [_category_value(v) for v in kept]}
        if grouped is not None:
            entry["infrequent"] = [_category_value(v) for v in grouped]
        out.append(entry)
    return out


def _category_value(value):
    value = _plain(value)
    if isinstance(value, (bool, str, int)) or (isinstance(value, float)
                                               and np.isfinite(value)):
        return value
    raise ValueError(f"cannot save the category value {value!r}: JSON models hold string, "
                     "number or boolean categories")


def _check_metadata(metadata):
    if not isinstance(metadata, dict) or not all(isinstance(k, str) for k in metadata):
        raise ValueError("metadata must be a dictionary with string keys")
    for key, value in metadata.items():
        if not (value is None or isinstance(value, (str, int, float, bool))):
            raise ValueError(f"metadata {key!r} must be a string, number, boolean or null, "
                             f"got {type(value).__name__}")
    return dict(metadata)


def to_json(estimator, *, indent=None, metadata=None):
    """A fitted estimator as JSON text (versioned schema, docs/model-format.md).

    Unlike pickle, loading the text back with :func:`from_json` executes no code,
    and the predictions are bit for bit the same: every float is written with the
    shortest representation that reads back to the same double.

    Parameters
    ----------
    estimator : BivariateTreeClassifier or BivariateTreeRegressor
        A fitted estimator.
    indent : int, default=None
        Pretty-print with this indentation.
    metadata : dict, default=None
        Free-form information to keep with the model (string keys; strings,
        numbers, booleans or null as values), e.g. the target column.

    Returns
    -------
    str
    """
    return json.dumps(_model_dict(estimator, metadata), indent=indent, allow_nan=False)


# ============================================================================ reading
def _reject_constant(name):
    raise ValueError(f"the model file contains {name}, which is not valid JSON")


#: longest model :func:`load_model` and :func:`from_json` read unless given ``max_bytes``:
#: 1 GiB. A saved tree takes about 165 bytes a node (``save_model``'s indented layout),
#: so this holds some 6 million nodes, more than a tree grown without limits on a
#: million samples has; parsing takes about 3.5 bytes of memory per byte of text, so a
#: load within the limit stays within a few GiB. A file is refused after at most this
#: many bytes plus one are read, so an endless stream (``/dev/zero``) or a huge file
#: costs no more memory than the limit, and a regular file larger than it is refused
#: from its size, before any of it is read.
MAX_MODEL_BYTES = 1 << 30
#: bytes read from a model file at a time.
_READ_CHUNK = 1 << 24


def _checked_max_bytes(max_bytes):
    if max_bytes is None:
        return None
    if not isinstance(max_bytes, numbers.Integral) or isinstance(max_bytes, bool) or (
            max_bytes < 1):
        raise ValueError(f"max_bytes must be a positive integer or None, got {max_bytes!r}")
    return int(max_bytes)


class ModelTooLongError(ValueError):
    """A model text or file longer than the ``max_bytes`` it was read under."""

    def __init__(self, size, max_bytes, source=None):
        where = "" if source is None else f"{source}: "
        super().__init__(f"{where}the model is {size} bytes long, more than "
                         f"max_bytes={max_bytes}; pass a larger max_bytes (or None) to read "
                         "a model this large")
        self.size, self.max_bytes = size, max_bytes


def _too_long(size, max_bytes):
    return ModelTooLongError(size, max_bytes)


def _check_length(text, max_bytes):
    """Refuse ``text`` (str or bytes) longer than ``max_bytes`` bytes (UTF-8 for a str)."""
    if max_bytes is None or not isinstance(text, (str, bytes, bytearray)):
        return  # no limit, or not text: _parse_json names the type
    size = len(text)
    # a character takes 1 to 4 bytes: encode only when the count alone cannot tell
    if isinstance(text, str) and size <= max_bytes < 4 * size and not text.isascii():
        size = len(text.encode("utf-8", "surrogatepass"))
    if size > max_bytes:
        raise _too_long(size, max_bytes)


def _read_model_file(path, max_bytes):
    """The bytes of the file at ``path``, refused once more than ``max_bytes`` are read."""
    with open(path, "rb") as fh:
        if max_bytes is None:
            return fh.read()
        info = os.fstat(fh.fileno())
        if stat.S_ISREG(info.st_mode) and info.st_size > max_bytes:
            raise _too_long(info.st_size, max_bytes)
        # in chunks, whatever the size said: a pipe or a device has none, and a file may
        # grow while it is read
        chunks, size = [], 0
        while chunk := fh.read(min(_READ_CHUNK, max_bytes + 1 - size)):
            chunks.append(chunk)
            size += len(chunk)
            if size > max_bytes:
                raise ValueError(f"the model is more than max_bytes={max_bytes} bytes long; "
                                 "pass a larger max_bytes (or None) to read a model this "
                                 "large")
    return b"".join(chunks)


#: deepest nesting of arrays and objects a model file may have. A model nests 6 deep
#: at most (a dictionary parameter's value); the bound keeps the parser, which
#: recurses once per level, far from Python's recursion limit.
MAX_JSON_DEPTH = 64
#: a JSON string literal, escapes included (brackets inside one do not nest).
_JSON_STRING = re.compile(r'"[^"\\]*(?:\\.[^"\\]*)*"')
_OPENING, _CLOSING = (np.frombuffer(b"[{", np.uint8), np.frombuffer(b"]}", np.uint8))


def _nesting_depth(text):
    """Deepest nesting of ``[`` and ``{`` in JSON ``text``, outside string literals.

    One pass of a regular expression and numpy over the brackets only, so it costs
    far less than parsing; it runs first because the parser would exhaust the
    stack on a deeply nested text (``"[" * 100000``).
    """
    code = np.frombuffer(_JSON_STRING.sub("", text).encode("utf-8", "surrogatepass"), np.uint8)
    brackets = code[np.isin(code, _OPENING) | np.isin(code, _CLOSING)]
    if brackets.size == 0:
        return 0
    steps = np.where(np.isin(brackets, _OPENING), 1, -1)
    return int(np.cumsum(steps).max())


def _parse_json(text):
    """The JSON value of ``text`` (str or bytes); any malformed text raises ValueError."""
    if isinstance(text, (bytes, bytearray)):
        # the encodings json.loads accepts (UTF-8, -16 or -32, found from the first bytes)
        encoding = json.detect_encoding(text)
        try:
            text = bytes(text).decode(encoding, "surrogatepass")
        except UnicodeDecodeError as exc:
            raise ValueError(f"the model is not valid {encoding} text: {exc}") from None
    if not isinstance(text, str):
        raise TypeError(f"a model is JSON text (str or bytes), not {type(text).__name__}")
    depth = _nesting_depth(text)
    if depth > MAX_JSON_DEPTH:
        raise ValueError(f"the model nests arrays and objects {depth} deep; a model file "
                         f"nests at most {MAX_JSON_DEPTH} deep")
    try:
        return json.loads(text, parse_constant=_reject_constant)
    except json.JSONDecodeError as exc:
        raise ValueError(f"the model is not valid JSON: {exc}") from None
    except RecursionError:  # a smaller stack than the depth bound assumes
        raise ValueError("the model nests arrays and objects too deeply for this "
                         "Python's stack") from None


def _check_tree_dict(tree_dict):
    """Invariants a stored tree must satisfy beyond :meth:`Tree.from_dict`'s checks.

    A cycle in the child ids would make prediction loop forever, an unused slot
    before a used one would be skipped silently and a test whose weights are all 0
    sends every sample the same way, so all are rejected here; each message names
    the first node at fault.
    """
    if not isinstance(tree_dict, dict):
        raise ValueError("model 'tree' must be a dictionary")  # noqa: TRY004
    tree = Tree.from_dict(tree_dict)
    is_leaf = tree.is_leaf
    internal = np.flatnonzero(~is_leaf)
    if 2 * internal.size != tree.node_count - 1:
        raise ValueError("tree arrays do not describe one binary tree (every node but the "
                         "root needs exactly one parent)")
    for name in ("children_left", "children_right"):
        bad = getattr(tree, name)[internal] <= internal
        if bad.any():
            raise ValueError(f"tree node {internal[bad][0]}: {name!r} is "
                             f"{getattr(tree, name)[internal[bad][0]]}; tree child ids must be "
                             "larger than their parent's id")
    used = tree.features >= 0
    _reject_nodes(np.any((tree.weights != 0.0) & ~used, axis=1),
                  "'weights' must be 0 in unused slots")
    _reject_nodes(~np.all(np.isfinite(tree.weights), axis=1), "'weights' must be finite")
    _reject_nodes(~is_leaf & ~tree.is_categorical & np.all(tree.weights == 0.0, axis=1),
                  "'weights' of a decision node must not all be 0")
    _reject_nodes(np.any(used, axis=1) & is_leaf, "tree leaves must not test features")
    for name in ("impurity", "weighted_n_node_samples", "value"):
        values = getattr(tree, name).reshape(tree.node_count, -1)
        _reject_nodes(~np.all(np.isfinite(values), axis=1), f"{name!r} holds NaN or infinity")
    _reject_nodes((tree.n_node_samples < 0) | (tree.weighted_n_node_samples < 0),
                  "tree sample counts must be non-negative")
    return tree


def _reject_nodes(bad, problem):
    """Raise a ValueError naming the first node flagged in ``bad`` (a bool per node)."""
    if np.any(bad):
        raise ValueError(f"tree node {int(np.flatnonzero(bad)[0])}: {problem}")


def _check_classes(spec):
    if not (isinstance(spec, dict) and set(spec) == {"dtype", "values"}
            and isinstance(spec["values"], list) and isinstance(spec["dtype"], str)):
        raise ValueError("model 'classes' must be {'dtype': str, 'values': list}")
    try:
        dtype = np.dtype(spec["dtype"])
    except (TypeError, ValueError):
        raise ValueError(f"model classes have an unknown dtype {spec['dtype']!r}") from None
    kind = _CLASS_KINDS.get(dtype.kind)
    values = spec["values"]
    if kind is None:
        raise ValueError(f"model classes have an unsupported dtype {spec['dtype']!r}")
    ok = {bool: lambda v: isinstance(v, bool),
          int: _is_int,
          float: _is_number,
          str: lambda v: isinstance(v, str)}[kind]
    if len(values) < 1 or not all(ok(v) for v in values):
        raise ValueError(f"model classes must be at least one {kind.__name__} value "
                         f"matching dtype {spec['dtype']!r}")
    if dtype.itemsize > _MAX_LABEL_BYTES:
        raise ValueError(f"model classes have dtype {spec['dtype']!r}, whose items take "
                         f"{dtype.itemsize} bytes; at most {_MAX_LABEL_BYTES} are read")
    if dtype.kind in "iu":
        info = np.iinfo(dtype)
        outside = [v for v in values if not info.min <= v <= info.max]
        if outside:
            raise ValueError(f"model class {outside[0]!r} does not fit dtype {spec['dtype']!r} "
                             f"(range [{info.min}, {info.max}])")
    try:
        with np.errstate(all="raise"):
            classes = np.array(values, dtype=dtype)
    except (OverflowError, FloatingPointError, ValueError, TypeError):
        raise ValueError(f"model classes do not fit dtype {spec['dtype']!r}") from None
    if classes.shape != (len(values),) or classes.tolist() != values:
        raise ValueError(f"model classes do not fit dtype {spec['dtype']!r}")
    if list(np.unique(classes)) != list(classes):
        raise ValueError("model classes must be distinct and sorted (as np.unique returns them)")
    return classes


# The ``then`` steps of the field table: each gets a field's value and the fields
# checked before it (by name, as those steps returned them) and returns what the
# estimator is rebuilt from, raising a ValueError that names the problem.
def _registered_class(name, model):
    cls = _MODEL_CLASSES.get(name) if isinstance(name, str) else None
    if cls is None:
        raise ValueError(f"model estimator {name!r} is not one of {sorted(_MODEL_CLASSES)}")
    return cls


def _estimator_from_params(params, model):
    """An unfitted estimator of the model's class with the saved parameters."""
    cls = model["estimator"]
    expected = _parameter_names(cls)
    params = {**{k: v for k, v in _OPTIONAL_PARAMS.items() if k in expected}, **params}
    if set(params) != expected:
        raise ValueError(f"model params do not match {cls.__name__}: missing "
                         f"{sorted(expected - set(params))}, unknown "
                         f"{sorted(set(params) - expected)}")
    return cls(**{k: _decode_param(k, v) for k, v in params.items()})


def _check_saved_params(not_saved, model):
    """Check the saved parameters with the class's own constraint table.

    A parameter in ``not_saved`` came back as ``None`` (it had no JSON form), which
    its constraints need not accept, so it is left out; the others must be values
    ``fit`` would take, so that a model that loads also predicts (``n_jobs: 0``
    would fail at the first prediction).
    """
    estimator = model["params"]
    table = getattr(estimator, "_parameter_constraints", {})
    saved = {k: v for k, v in estimator.get_params(deep=False).items()
             if k in table and k not in not_saved}
    try:
        check_params(type(estimator).__name__, saved, table)
    except ValueError as exc:
        raise ValueError(f"model 'params': {exc}") from None
    return not_saved


def _tree_of_model(tree_dict, model):
    version, n_features = model["version"], model["n_features_in"]
    tree_version = tree_dict.get("version") if isinstance(tree_dict, dict) else None
    # an unknown tree version is reported by Tree.from_dict; a known one must match
    if (tree_version in TREE_FORMAT_VERSIONS_READ and not isinstance(tree_version, bool)
            and tree_version != _TREE_VERSION_OF_MODEL[version]):
        raise ValueError(f"model format version {version} holds a tree of version "
                         f"{_TREE_VERSION_OF_MODEL[version]}, not {tree_version!r}")
    tree = _check_tree_dict(tree_dict)
    if tree.n_features != n_features:
        raise ValueError(f"model tree has {tree.n_features} features but n_features_in is "
                         f"{n_features}")
    return tree


def _distinct_names(names, model):
    if names is not None and len(set(names)) != len(names):
        raise ValueError("model 'feature_names_in' has duplicate names")
    return names


def _finite_importances(importances, model):
    importances = np.asarray(importances, dtype=float)
    if not np.all(np.isfinite(importances)):
        raise ValueError("model 'feature_importances' holds NaN or infinity")
    return importances


#: ``default`` of ``classes``, which a classifier needs and a regressor must not have.
_ABSENT = object()


def _classes_of_model(spec, model):
    """The class labels of a classifier, checked against its tree; ``None`` for a regressor."""
    tree = model["tree"]
    if not is_classifier(model["params"]):
        if spec is not _ABSENT:
            raise ValueError("a regressor model has no 'classes'")
        if tree.value.shape[1] != 1:
            raise ValueError("model tree of a regressor must hold one value per node")
        return None
    if spec is _ABSENT:
        raise ValueError("a classifier model needs 'classes'")
    classes = _check_classes(spec)
    if tree.value.shape[1] != classes.shape[0]:
        raise ValueError(f"model tree holds {tree.value.shape[1]} class counts per node "
                         f"but {classes.shape[0]} classes")
    _reject_nodes(np.any(tree.value < 0, axis=1),
                  "'value' (class counts) must be non-negative")
    # a leaf's class shares are its counts over their sum: a zero sum has none
    _reject_nodes(tree.is_leaf & ~(tree.value.sum(axis=1) > 0),
                  "'value' of a leaf (class counts) must have a positive sum")
    return classes


def _json_kind(value):
    """The JSON type of a parsed value, for messages (``object``, ``array``, ``null``...)."""
    if value is None:
        return "null"
    if isinstance(value, bool):
        return "a boolean"
    if _is_number(value):
        return "a number" if np.isfinite(value) else "an infinite number"
    if isinstance(value, str):
        return "a string"
    return "an array" if isinstance(value, list) else "an object"


def _is_category_value(value):
    """Whether a model file may hold ``value`` as a category: what ``to_json`` writes."""
    return isinstance(value, (bool, str, int)) or (isinstance(value, float)
                                                   and np.isfinite(value))


def _category_list(entry, key, j):
    """The list ``entry[key]`` of a ``categories`` entry, checked value by value."""
    values = entry[key]
    where = f"model 'categories' entry {j}: {key!r}"
    if not isinstance(values, list):
        raise ValueError(f"{where} must be a list of strings, numbers or booleans, not "  # noqa: TRY004
                         f"{_json_kind(values)}")
    for k, value in enumerate(values):
        if not _is_category_value(value):
            raise ValueError(f"{where} item {k} must be a string, a number or a boolean, not "
                             f"{_json_kind(value)}")
    return values


def _category_entry(entry, j):
    """``(kept, grouped)`` of one non-null ``categories`` entry (``grouped`` None if absent).

    Prediction looks a value up among the categories by equality, so a value listed
    twice (or in both lists) would have two codes and reach only one of them: such
    an entry, like one the encoder could not have written, is refused.
    """
    if not isinstance(entry, dict):
        raise ValueError(f"model 'categories' entry {j} must be null or an object with "  # noqa: TRY004
                         f"'values' (and optionally 'infrequent'), not {_json_kind(entry)}")
    unknown = sorted(set(entry) - {"values", "infrequent"})
    if unknown or "values" not in entry:
        raise ValueError(f"model 'categories' entry {j} must have 'values' (and optionally "
                         f"'infrequent') and nothing else, not {sorted(entry)}")
    kept = _category_list(entry, "values", j)
    grouped = _category_list(entry, "infrequent", j) if "infrequent" in entry else None
    if grouped is not None and not grouped:
        # the infrequent code is written only for the values max_categories grouped
        raise ValueError(f"model 'categories' entry {j}: 'infrequent' must list at least one "
                         "value (the entry leaves it out when no value is grouped)")
    n_codes = len(kept) + (grouped is not None)
    if n_codes > MAX_CATEGORY_CODES:
        raise ValueError(f"model 'categories' entry {j} has {n_codes} codes; a categorical "
                         f"feature has at most {MAX_CATEGORY_CODES}")
    seen = {}  # the lookup prediction builds: equal values (1, 1.0, true) are one category
    for key, values in (("values", kept), ("infrequent", grouped or [])):
        for value in values:
            if value in seen:
                first_key, first = seen[value]
                twice = (f"the category {value!r} twice" if repr(first) == repr(value)
                         else f"the categories {first!r} and {value!r}, which are equal")
                where = (f"in {key!r}" if key == first_key
                         else f"in {first_key!r} and in {key!r}")
                raise ValueError(f"model 'categories' entry {j} lists {twice} ({where}); each "
                                 "category has one code")
            seen[value] = (key, value)
    return kept, grouped


def _check_category_codes(n_codes, tree):
    """Every category set of ``tree`` uses codes its feature's ``categories`` entry has.

    ``n_codes[j]`` is the number of codes of feature ``j``, or -1 for a numeric one
    (a null entry), which no set may test: a code without a value would never be
    reached by prediction, which maps values to codes through these entries.
    """
    used = tree.category_mask != 0
    if not used.any():
        return
    nodes, slots = np.nonzero(used)
    features = tree.features[nodes, slots]
    masks = tree.category_mask[nodes, slots]
    limit = np.asarray(n_codes)[features]
    numeric = limit < 0
    if numeric.any():
        k = int(np.flatnonzero(numeric)[0])
        raise ValueError(f"tree node {nodes[k]}: tests feature {features[k]} by a category "
                         f"set, but model 'categories' entry {features[k]} is null (a numeric "
                         "feature)")
    # a set may hold codes 0 .. n_codes - 1 only: no bit at n_codes or above
    shift = np.minimum(limit, MAX_CATEGORY_CODES - 1).astype(np.uint64)
    above = np.where(limit < MAX_CATEGORY_CODES, masks >> shift, 0)
    if np.any(above):
        k = int(np.flatnonzero(above)[0])
        top = int(masks[k]).bit_length() - 1
        raise ValueError(f"tree node {nodes[k]}: the category set of feature {features[k]} "
                         f"holds code {top}, but model 'categories' entry {features[k]} has "
                         f"{limit[k]} code(s)")


def _categories_of_model(spec, model):
    """``(is_categorical_, categories_, infrequent_categories_)`` of the ``categories`` field.

    A feature may have no code at all (``"values": []``): a categorical column whose
    values were all missing at fit, which no node can test and prediction reads as
    missing, whatever its value.
    """
    if spec is None:
        return None, None, None
    n = model["n_features_in"]
    if not (isinstance(spec, list) and len(spec) == n):
        raise ValueError(f"model 'categories' must be null or a list of {n} entries")
    is_cat = np.zeros(n, dtype=bool)
    kept_all, grouped_all = [None] * n, [None] * n
    n_codes = np.full(n, -1, dtype=np.int64)
    for j, entry in enumerate(spec):
        if entry is None:
            continue
        kept, grouped = _category_entry(entry, j)
        is_cat[j] = True
        kept_all[j] = np.asarray(kept, dtype=object)
        if grouped is not None:
            grouped_all[j] = np.asarray(grouped, dtype=object)
        n_codes[j] = len(kept) + (grouped is not None)
    _check_category_codes(n_codes, model["tree"])
    return is_cat, kept_all, grouped_all


def _metadata_of_model(metadata, model):
    return None if metadata is None else _check_metadata(metadata)


def _constraints_of_model(spec, model):
    """``(monotonic_cst_, interaction_cst_)`` of the ``constraints`` field (version 5).

    The field must be what fitting the saved ``params`` on the model's features
    resolves them to, so that an edited file cannot claim constraints its
    parameters do not give (or the reverse); a model of an earlier version has
    no constraint parameter.
    """
    estimator, version = model["params"], model["version"]
    given = {name: getattr(estimator, name, None) for name in _CONSTRAINT_PARAMS}
    if version < 5:
        named = [name for name, value in given.items() if value is not None]
        if named:
            raise ValueError(f"model 'params' set {named}, which models of format version 5 "
                             f"and later hold; this one is of version {version}")
        return None, None
    if not (isinstance(spec, dict) and set(spec) == {"monotonic", "interaction"}):
        raise ValueError("a model of format version 5 records its constraints: 'constraints' "
                         "must be an object with 'monotonic' and 'interaction'")
    n, names = model["n_features_in"], model["feature_names_in"]
    try:
        monotonic = resolve_monotonic_cst(given["monotonic_cst"], n, names,
                                          model["categories"][0])
        interaction = resolve_interaction_cst(given["interaction_cst"], n, names)
    except ValueError as exc:
        raise ValueError(f"model 'params': {exc}") from None
    resolved = {"monotonic": None if monotonic is None else monotonic.tolist(),
                "interaction": interaction}
    if spec != resolved:
        raise ValueError(f"model 'constraints' {spec!r} is not what its params give on its "
                         f"features: {resolved!r}")
    classes = model["classes"]
    if monotonic is not None and classes is not None and classes.shape[0] > 2:
        raise ValueError("model 'constraints': monotonic constraints with more than two classes")
    return monotonic, interaction


class _Field(NamedTuple):
    """One top-level field of a model file and how a reader checks it.

    Attributes
    ----------
    name : str
    required : bool
        Whether every model file has the field (``classes``, needed by classifiers
        only, is checked by its ``then`` step).
    accepts : callable (value, model) -> bool, or None
        The type and range check of the value; ``model`` holds the fields checked
        before this one.
    error : str or None
        The message when ``accepts`` fails, formatted with ``value`` and the fields
        checked before this one.
    then : callable (value, model) -> object, or None
        Checks that need more than one yes or no (they raise their own messages),
        returning what the estimator is rebuilt from: the class for ``estimator``,
        an unfitted estimator for ``params``, a :class:`Tree` for ``tree``.
        ``None`` keeps the value.
    default : object
        The value of an optional field the file leaves out.
    since : int
        The first format version with the field; a file of an earlier version that
        holds it is refused.
    """

    name: str
    required: bool
    accepts: Callable[[Any, dict], bool] | None = None
    error: str | None = None
    then: Callable[[Any, dict], Any] | None = None
    default: Any = None
    since: int = 1


_NOT_A_MODEL = f"not a bivtree model (missing format {MODEL_FORMAT!r})"
#: format and version come first: a file of another kind or version says so, rather
#: than that it lacks fields.
_HEADER_FIELDS = (
    _Field("format", True, lambda value, model: value == MODEL_FORMAT, _NOT_A_MODEL),
    _Field("version", True,
           lambda value, model: _is_int(value) and value in _TREE_VERSION_OF_MODEL,
           "unsupported model format version {value!r}; this bivtree reads versions "
           f"{sorted(_TREE_VERSION_OF_MODEL)}"),
)
#: every top-level field of a model file, in the order they are checked (a field's
#: checks may use the fields before it).
_MODEL_FIELDS = (
    *_HEADER_FIELDS,
    _Field("bivtree_version", False),  # informative only
    _Field("estimator", True, then=_registered_class),
    _Field("params", True, lambda value, model: isinstance(value, dict),
           "model 'params' must be a dictionary", _estimator_from_params),
    _Field("n_features_in", True, lambda value, model: _is_int(value) and value > 0,
           "model 'n_features_in' must be a positive integer"),
    _Field("tree", True, then=_tree_of_model),
    _Field("feature_names_in", True,
           lambda value, model: value is None or (
               isinstance(value, list) and len(value) == model["n_features_in"]
               and all(isinstance(f, str) for f in value)),
           "model 'feature_names_in' must be null or {n_features_in} strings",
           _distinct_names),
    _Field("max_features", True,
           lambda value, model: _is_int(value) and 1 <= value <= model["n_features_in"],
           "model 'max_features' must be an integer in [1, {n_features_in}]"),
    _Field("feature_importances", True,
           lambda value, model: isinstance(value, list) and len(value) == model[
               "n_features_in"] and all(_is_number(v) for v in value),
           "model 'feature_importances' must be {n_features_in} numbers", _finite_importances),
    _Field("classes", False, then=_classes_of_model, default=_ABSENT),
    _Field("fit_time", False, lambda value, model: _is_number(value),
           "model 'fit_time' must be a number", default=0.0),
    _Field("params_not_saved", False,
           lambda value, model: isinstance(value, list) and all(
               isinstance(p, str) and p in _parameter_names(model["estimator"])
               for p in value),
           "model 'params_not_saved' must list parameter names", _check_saved_params,
           default=[]),
    _Field("metadata", False, then=_metadata_of_model),
    # category values came with categorical nodes, in version 2
    _Field("categories", False, then=_categories_of_model, since=2),
    # the constraints a model was fitted under, in version 5 (checked against params)
    _Field("constraints", False, then=_constraints_of_model, since=5),
)


def _checked_field(field, data, model):
    """The value of ``field`` in ``data`` after its checks (or its default when absent)."""
    value = data.get(field.name, field.default)
    if field.accepts is not None and not field.accepts(value, model):
        raise ValueError(field.error.format(value=value, **model))
    return value if field.then is None else field.then(value, model)


def _model_from_dict(data):
    """Rebuild and validate an estimator from the dictionary form; returns (estimator, metadata)."""
    if not isinstance(data, dict):
        raise ValueError(_NOT_A_MODEL)  # noqa: TRY004
    model = {}
    for field in _HEADER_FIELDS:
        model[field.name] = _checked_field(field, data, model)
    missing = [field.name for field in _MODEL_FIELDS if field.required and field.name not in data]
    if missing:
        raise ValueError(f"model lacks {missing}")
    version = model["version"]
    unknown = sorted(set(data) - {field.name for field in _MODEL_FIELDS if field.since <= version})
    if unknown:
        # refused rather than ignored: a field a version does not have was written by
        # something else, or the version was edited, and the file may mean other than
        # it reads
        later = "".join(f"; {field.name!r} is a field of versions {field.since} and later"
                        for field in _MODEL_FIELDS if field.name in unknown)
        raise ValueError(f"model of format version {version} has unknown field(s) "
                         f"{unknown}{later}")
    for field in _MODEL_FIELDS[len(_HEADER_FIELDS):]:
        model[field.name] = _checked_field(field, data, model)

    estimator = model["params"]
    if model["classes"] is not None:
        estimator.classes_ = model["classes"]
        estimator.n_classes_ = int(model["classes"].shape[0])
    estimator.tree_ = model["tree"]
    estimator.n_features_in_ = model["n_features_in"]
    if model["feature_names_in"] is not None:
        estimator.feature_names_in_ = np.asarray(model["feature_names_in"], dtype=object)
    estimator.n_outputs_ = 1
    estimator.max_features_ = model["max_features"]
    estimator.feature_importances_ = model["feature_importances"]
    estimator.fit_time_ = float(model["fit_time"])
    if model["categories"][0] is not None or "categorical_features" in _parameter_names(
            type(estimator)):
        (estimator.is_categorical_, estimator.categories_,
         estimator.infrequent_categories_) = model["categories"]
    if "monotonic_cst" in _parameter_names(type(estimator)):
        estimator.monotonic_cst_, estimator.interaction_cst_ = model["constraints"]
    return estimator, model["metadata"]


def from_json(text, *, return_metadata=False, max_bytes=MAX_MODEL_BYTES):
    """Rebuild an estimator written by :func:`to_json`.

    The text is parsed as plain JSON and checked field by field (format tag,
    version, estimator class, parameter names, class labels, every tree array
    and the tree's shape); anything malformed or inconsistent raises a
    ValueError that names the problem. No code from the file is executed.

    Parameters
    ----------
    text : str or bytes
    return_metadata : bool, default=False
        Also return the ``metadata`` dictionary stored with the model (or None).
    max_bytes : int or None, default=MAX_MODEL_BYTES
        Longest text read, in bytes (a str counts its UTF-8 bytes); a longer one
        raises :class:`ModelTooLongError` (a ValueError) before it is parsed.
        ``None`` reads any length. The default, 1 GiB, holds a tree of some 6
        million nodes.

    Returns
    -------
    estimator : BivariateTreeClassifier or BivariateTreeRegressor
    metadata : dict or None
        Only with ``return_metadata=True``.
    """
    _check_length(text, _checked_max_bytes(max_bytes))
    estimator, metadata = _model_from_dict(_parse_json(text))
    return (estimator, metadata) if return_metadata else estimator


def save_model(estimator, path, *, metadata=None):
    """Write a fitted estimator to ``path`` as JSON (see :func:`to_json`).

    Parameters
    ----------
    estimator : BivariateTreeClassifier or BivariateTreeRegressor
    path : str or path-like
    metadata : dict, default=None
        Free-form information to keep with the model.

    Examples
    --------
    >>> import os
    >>> import tempfile
    >>> from sklearn.datasets import load_iris
    >>> from bivtree import BivariateTreeClassifier, load_model, save_model
    >>> X, y = load_iris(return_X_y=True)
    >>> clf = BivariateTreeClassifier(max_depth=2).fit(X, y)
    >>> with tempfile.TemporaryDirectory() as folder:
    ...     path = os.path.join(folder, "iris.json")
    ...     save_model(clf, path, metadata={"data": "iris"})
    ...     loaded, metadata = load_model(path, return_metadata=True)
    >>> type(loaded).__name__, metadata
    ('BivariateTreeClassifier', {'data': 'iris'})
    >>> bool((loaded.predict(X) == clf.predict(X)).all())
    True
    """
    text = to_json(estimator, indent=1, metadata=metadata)
    with open(path, "w", encoding="utf-8") as fh:
        fh.write(text + "\n")


def load_model(path, *, return_metadata=False, max_bytes=MAX_MODEL_BYTES):
    """Read an estimator written by :func:`save_model` (see :func:`from_json`).

    Parameters
    ----------
    path : str or path-like
    return_metadata : bool, default=False
    max_bytes : int or None, default=MAX_MODEL_BYTES
        Largest file read, in bytes: a longer one raises :class:`ModelTooLongError`
        (a ValueError, naming the file) after at most ``max_bytes + 1`` bytes are
        read (a regular file, from its size, before any is read), so a huge file or an endless stream such as ``/dev/zero`` cannot
        exhaust memory. ``None`` reads any size. The default, 1 GiB, holds a tree of
        some 6 million nodes.

    Returns
    -------
    estimator, or (estimator, metadata)

    Examples
    --------
    >>> import os
    >>> import tempfile
    >>> import numpy as np
    >>> from bivtree import BivariateTreeRegressor, load_model
    >>> X = np.arange(40.0).reshape(20, 2)
    >>> reg = BivariateTreeRegressor(max_depth=1).fit(X, (X[:, 0] > 19).astype(float))
    >>> with tempfile.TemporaryDirectory() as folder:
    ...     path = os.path.join(folder, "model.json")
    ...     reg.save(path)
    ...     loaded = load_model(path)
    >>> loaded.predict([[10.0, 11.0], [30.0, 31.0]])
    array([0., 1.])
    """
    max_bytes = _checked_max_bytes(max_bytes)
    try:
        text = _read_model_file(path, max_bytes)
        return from_json(text, return_metadata=return_metadata, max_bytes=max_bytes)
    except ModelTooLongError as exc:
        raise ModelTooLongError(exc.size, exc.max_bytes, source=path) from None
    except ValueError as exc:
        raise ValueError(f"{path}: {exc}") from None
