"""Trees as text, tables, graphs and JSON.

- :func:`export_text`: nested IF / ELSE rules in the data's own units;
- :func:`export_rules`: one row per leaf (its rule, prediction, counts, error);
- :func:`export_graphviz`: DOT source;
- :func:`to_json` / :func:`from_json` (and :func:`save_model` / :func:`load_model`):
  a fitted estimator in a versioned JSON schema that loads without executing code
  (docs/model-format.md).
"""

import json

import numpy as np
from sklearn.base import is_classifier
from sklearn.utils.validation import check_is_fitted

from ._config import TREE_LEAF
from .tree import TREE_FORMAT_VERSION, TREE_FORMAT_VERSIONS_READ, Tree, mask_to_categories


def _number(value, decimals):
    """``value`` rounded to ``decimals`` significant digits (``None``: exact shortest repr).

    Plain positional notation is used for magnitudes a reader meets in data
    (``13980`` rather than ``1.398e+04``); scientific notation only outside
    ``[1e-4, 1e15)``.
    """
    value = float(value)
    if decimals is None:
        return repr(value)
    if value == 0.0 or not np.isfinite(value):
        return "0" if value == 0.0 else repr(value)
    magnitude = abs(value)
    if not 1e-4 <= magnitude < 1e15:
        return f"{value:.{decimals}g}"
    places = decimals - 1 - int(np.floor(np.log10(magnitude)))
    rounded = round(value, places)
    text = f"{rounded:.{max(places, 0)}f}"
    if "." in text:
        text = text.rstrip("0").rstrip(".")
    return "0" if text in ("-0", "") else text


#: the test of a categorical node on each branch: the left one holds, the right one fails.
_SET_OPS = {"<=": "in", ">": "not in", "in": "in", "not in": "not in"}


def format_categories(feature_name, categories, op="in"):
    """A category-set test as text, e.g. ``"colour in {1, 3, 4}"``.

    Parameters
    ----------
    feature_name : str
    categories : sequence of int
        Category codes of the set.
    op : {"in", "not in"}
    """
    return f"{feature_name} {op} {{{', '.join(str(int(c)) for c in categories)}}}"


def format_rule(features, weights, threshold, feature_names, decimals=4, op="<=",
                category_mask=0):
    """A node test as text, e.g. ``"x7 + 0.3 * x10 <= -0.1"`` or ``"colour in {1, 3}"``.

    Parameters
    ----------
    features, weights : sequences
        Slots of the node; features ``< 0`` are unused.
    threshold : float
    feature_names : sequence of str
    decimals : int or None
        Significant digits of weights and threshold; ``None`` prints them exactly.
    op : str
        Comparison to print (``"<="`` or ``">"``); for a categorical node ``"<="``
        (the test holds, left branch) prints ``in`` and ``">"`` prints ``not in``.
    category_mask : int, default=0
        Nonzero for a categorical node: the set of codes going left (bit ``c``
        for code ``c``), printed instead of a comparison.
    """
    if int(category_mask):
        return format_categories(feature_names[int(features[0])],
                                 mask_to_categories(category_mask), _SET_OPS[op])
    terms = []
    for f, w in zip(features, weights):
        if f < 0:
            continue
        name = feature_names[f]
        if not terms:
            terms.append(name if w == 1.0 else f"{_number(w, decimals)} * {name}")
            continue
        sign = "-" if w < 0 else "+"
        magnitude = _number(abs(w), decimals)
        # a unit weight reads "x - y", not "x - 1 * y"
        terms.append(f"{sign} {name}" if magnitude == "1" else f"{sign} {magnitude} * {name}")
    return f"{' '.join(terms)} {op} {_number(threshold, decimals)}"


def _names(estimator, feature_names):
    n = estimator.n_features_in_
    if feature_names is None:
        names = getattr(estimator, "feature_names_in_", None)
        feature_names = list(names) if names is not None else [f"x{i}" for i in range(n)]
    feature_names = [str(f) for f in feature_names]
    if len(feature_names) != n:
        raise ValueError(f"feature_names has {len(feature_names)} names; the tree has {n} "
                         "features")
    return feature_names


def _leaf_text(estimator, tree, node, decimals):
    n = int(tree.n_node_samples[node])
    value = tree.value[node]
    classes = getattr(estimator, "classes_", None)
    if classes is None:
        return f"value: {_number(value[0], decimals)}  (samples: {n})"
    counts = ", ".join(_number(c, decimals) for c in value)
    return f"class: {classes[int(np.argmax(value))]}  (samples: {n}, counts: [{counts}])"


def export_text(estimator, feature_names=None, decimals=4, max_depth=None, indent="    "):
    """The fitted tree as nested IF / ELSE rules in the data's units.

    Parameters
    ----------
    estimator : BivariateTreeClassifier or BivariateTreeRegressor
        A fitted estimator (anything with ``tree_`` and ``n_features_in_``).
    feature_names : sequence of str, default=None
        Defaults to ``feature_names_in_`` or ``x0, x1, ...``.
    decimals : int or None, default=4
        Significant digits of weights and thresholds. Rounded rules can send a
        sample lying within rounding of a threshold the other way; ``None``
        prints every number exactly.
    max_depth : int, default=None
        Deeper subtrees are shown as ``...``.
    indent : str, default="    "

    Returns
    -------
    str
        For example::

            if worst radius + 0.21 * worst texture <= 21.3:
                class: 1  (samples: 250, counts: [4, 246])
            else:
                ...

        Leaves give the class and weighted class counts (or the mean value)
        with the number of training samples. A categorical node reads
        ``if colour in {1, 3, 4}:`` (its ``else`` branch: ``colour not in {1, 3, 4}``,
        which includes every code the node never saw).
    """
    check_is_fitted(estimator, "tree_")
    tree = estimator.tree_
    names = _names(estimator, feature_names)
    lines = []

    def walk(node, depth):
        pad = indent * depth
        if tree.children_left[node] == TREE_LEAF:
            lines.append(pad + _leaf_text(estimator, tree, node, decimals))
            return
        if max_depth is not None and depth > max_depth:
            lines.append(pad + "...")
            return
        args = (tree.features[node], tree.weights[node], tree.threshold[node], names,
                decimals)
        mask = tree.category_mask[node]
        lines.append(f"{pad}if {format_rule(*args, category_mask=mask)}:")
        walk(tree.children_left[node], depth + 1)
        lines.append(f"{pad}else:  # {format_rule(*args, op='>', category_mask=mask)}")
        walk(tree.children_right[node], depth + 1)

    walk(0, 0)
    return "\n".join(lines) + "\n"


# ============================================================================ rules as rows
def _class_labels(estimator, class_names):
    """Display names of the classes (``None`` for a regressor)."""
    classes = getattr(estimator, "classes_", None)
    if classes is None:
        return None
    if class_names is None:
        return [c.item() if isinstance(c, np.generic) else c for c in classes]
    class_names = list(class_names)
    if len(class_names) != len(classes):
        raise ValueError(f"class_names has {len(class_names)} names; the classifier has "
                         f"{len(classes)} classes")
    return class_names


def _feature_signs(X, n_features):
    """Per feature: ``+1`` if every value in ``X`` is > 0, ``-1`` if every value is < 0, else 0,
    and the smallest magnitude; ``None`` without data."""
    if X is None:
        return None
    X = np.asarray(X, dtype=float)
    if X.ndim != 2 or X.shape[1] != n_features or X.shape[0] == 0:
        raise ValueError(f"X has shape {X.shape}; expected (n_samples >= 1, {n_features}) to "
                         "decide which features keep one sign")
    if not np.all(np.isfinite(X)):
        raise ValueError("X contains NaN or infinity")
    signs = np.where(X.min(axis=0) > 0, 1, np.where(X.max(axis=0) < 0, -1, 0))
    return signs, np.abs(X).min(axis=0)


_FLIP = {"<=": ">=", ">": "<", ">=": "<=", "<": ">"}


def ratio_rule(features, weights, threshold, op, feature_names, signs, decimals=4):
    """A bivariate test through the origin written as a ratio, or ``None``.

    ``x_j + w * x_k <= t`` with ``t`` zero is ``x_j / x_k <= -w`` where ``x_k > 0``
    (the comparison flips where ``x_k < 0``), e.g. ``waist - 0.5 * height > 0`` reads
    ``waist / height > 0.5``.

    Parameters
    ----------
    features, weights : sequences
        Slots of the node (first weight 1).
    threshold : float
    op : {"<=", ">"}
    feature_names : sequence of str
    signs : tuple (sign, min_abs) from data, or None
        ``sign[k]`` is +1 / -1 when feature ``k`` keeps that sign on the data, 0
        otherwise; ``min_abs[k]`` its smallest magnitude.
    decimals : int or None
        The threshold counts as zero when dropping it moves the projection of every
        sample by no more than rounding ``w`` to ``decimals`` significant digits
        would (``|t| <= 0.5 * 10**(1 - decimals) * |w| * min |x_k|``); with
        ``None`` only an exact zero does.

    Returns
    -------
    str or None
        ``None`` unless the node is bivariate, the denominator keeps one sign on
        the data and the threshold counts as zero.
    """
    used = [(int(f), float(w)) for f, w in zip(features, weights) if f >= 0]
    if signs is None or len(used) != 2 or used[0][1] != 1.0:
        return None
    (j, _), (k, w) = used
    sign, min_abs = signs
    if sign[k] == 0 or w == 0.0:
        return None
    if decimals is None:
        negligible = threshold == 0.0
    else:
        negligible = abs(threshold) <= 0.5 * 10.0 ** (1 - decimals) * abs(w) * min_abs[k]
    if not negligible:
        return None
    if sign[k] < 0:  # dividing by a negative denominator reverses the comparison
        op = _FLIP[op]
    return f"{feature_names[j]} / {feature_names[k]} {op} {_number(-w, decimals)}"


def _leaf_error(estimator, tree, node):
    """Training error of a leaf: weighted misclassified count, or the mean squared error."""
    if getattr(estimator, "classes_", None) is None:
        return float(tree.impurity[node])
    value = tree.value[node]
    return float(tree.weighted_n_node_samples[node] - value.max())


def _paths_to_leaves(tree):
    """``(leaf, [(node, goes_left), ...])`` for every leaf, left to right."""
    out = []
    stack = [(0, [])]
    while stack:
        node, path = stack.pop()
        if tree.children_left[node] == TREE_LEAF:
            out.append((node, path))
            continue
        stack.append((tree.children_right[node], path + [(node, False)]))
        stack.append((tree.children_left[node], path + [(node, True)]))
    return out


def export_rules(estimator, feature_names=None, *, X=None, class_names=None, decimals=4,
                 ratios=True, as_frame=False):
    """One row per leaf: the conjunction of node tests that leads there, and what it predicts.

    Parameters
    ----------
    estimator : BivariateTreeClassifier or BivariateTreeRegressor
        A fitted estimator.
    feature_names : sequence of str, default=None
        Defaults to ``feature_names_in_`` or ``x0, x1, ...``.
    X : array-like of shape (n_samples, n_features), default=None
        Data (typically the training data) used only to decide where a test through
        the origin may be written as a ratio: the denominator must keep one sign on
        every row. Without ``X`` no ratio is written.
    class_names : sequence of str, default=None
        Display names of ``classes_`` (classifier only).
    decimals : int or None, default=4
        Significant digits in the rule text (``None``: exact).
    ratios : bool, default=True
        Write ``x_j + w * x_k <= 0`` as ``x_j / x_k <= -w`` where that is valid
        (see :func:`ratio_rule`).
    as_frame : bool, default=False
        Return a pandas DataFrame instead of a list of dicts.

    Returns
    -------
    list of dict or pandas.DataFrame
        Leaves from left to right, with keys

        - ``leaf``: node id of the leaf (as in ``apply``);
        - ``rule``: the tests as text joined by ``" and "`` (``"always"`` for a
          single-leaf tree). Repeated tests of the same projection in the same
          direction are merged into the tightest one, which is exactly equivalent;
        - ``conditions``: the same tests as dicts with ``node``, ``features``,
          ``weights``, ``threshold`` (exact), ``op`` (``"<="`` for the left
          branch, ``">"`` for the right) and ``text``. The tests of categorical
          nodes on one feature are merged into one condition with ``op``
          ``"in"`` (the code is one of ``categories``) or ``"not in"`` (it is
          none of them: any other value, also one the tree never saw),
          ``categories`` (sorted codes) and ``threshold`` ``None``;
        - ``prediction``: the class (or ``class_names`` entry), or the mean value;
        - ``class_counts``: weighted class counts as ``{class: count}`` (classifier);
        - ``n_samples``, ``weighted_n_samples``: training samples at the leaf;
        - ``error``: training error at the leaf, the weighted number of
          misclassified samples (classifier; a count for unit weights) or the
          mean squared error (regressor).

    Notes
    -----
    Every training sample satisfies exactly one row's conditions and gets that
    row's prediction, because the rows are the root-to-leaf paths of the tree.
    """
    check_is_fitted(estimator, "tree_")
    tree = estimator.tree_
    names = _names(estimator, feature_names)
    labels = _class_labels(estimator, class_names)
    signs = _feature_signs(X, tree.n_features) if ratios else None
    rows = []
    for leaf, path in _paths_to_leaves(tree):
        merged = {}
        for node, left in path:
            mask = int(tree.category_mask[node])
            if mask:
                # every set test of one feature merges into one: "in A" and "in B" is
                # "in A & B", "not in A" and "not in B" is "not in A | B"
                key = ("categories", int(tree.features[node, 0]))
                _, inside, outside = merged.get(key, (node, None, 0))
                if left:
                    inside = mask if inside is None else inside & mask
                else:
                    outside |= mask
                merged[key] = (node, inside, outside)
                continue
            used = tree.features[node] >= 0
            key = (tuple(tree.features[node][used].tolist()),
                   tuple(tree.weights[node][used].tolist()), left)
            t = float(tree.threshold[node])
            # two tests of the same projection in the same direction: keep the tighter
            if key not in merged or (t < merged[key][1] if left else t > merged[key][1]):
                merged[key] = (node, t)
        conditions = []
        for key, entry in merged.items():
            if key[0] == "categories":
                node, inside, outside = entry
                f = key[1]
                if inside is None:
                    op, codes = "not in", mask_to_categories(outside)
                else:
                    op, codes = "in", mask_to_categories(inside & ~outside)
                conditions.append({"node": int(node), "features": [f], "weights": [1.0],
                                   "threshold": None, "op": op, "categories": codes,
                                   "text": format_categories(names[f], codes, op)})
                continue
            feats, wts, left = key
            node, t = entry
            op = "<=" if left else ">"
            text = None
            if ratios:
                text = ratio_rule(feats, wts, t, op, names, signs, decimals)
            if text is None:
                text = format_rule(feats, wts, t, names, decimals, op=op)
            conditions.append({"node": int(node), "features": list(feats),
                               "weights": list(wts), "threshold": t, "op": op,
                               "text": text})
        row = {"leaf": int(leaf),
               "rule": " and ".join(c["text"] for c in conditions) or "always",
               "conditions": conditions}
        value = tree.value[leaf]
        if labels is None:
            row["prediction"] = float(value[0])
        else:
            row["prediction"] = labels[int(np.argmax(value))]
            row["class_counts"] = {c: float(v) for c, v in zip(labels, value)}
        row["n_samples"] = int(tree.n_node_samples[leaf])
        row["weighted_n_samples"] = float(tree.weighted_n_node_samples[leaf])
        row["error"] = _leaf_error(estimator, tree, leaf)
        rows.append(row)
    if as_frame:
        try:
            import pandas as pd
        except ImportError:
            raise ImportError("export_rules(as_frame=True) needs pandas: "
                              "pip install \"bivtree[pandas]\"") from None
        return pd.DataFrame(rows)
    return rows


def rules_markdown(rows, decimals=4):
    """Rows of :func:`export_rules` as a Markdown table (one line per leaf).

    Parameters
    ----------
    rows : list of dict or pandas.DataFrame
        Output of :func:`export_rules`.
    decimals : int or None, default=4
        Significant digits of predictions, counts and errors.

    Returns
    -------
    str
    """
    if hasattr(rows, "to_dict"):
        rows = rows.to_dict("records")
    classifier = bool(rows) and "class_counts" in rows[0]

    def cell(text):
        return str(text).replace("|", "\\|").replace("\n", " ")

    def num(v):
        return _number(v, decimals)

    header = ["leaf", "rule", "prediction", "samples", "error"]
    if classifier:
        header.insert(3, "class counts")
    lines = ["| " + " | ".join(header) + " |", "|" + "---|" * len(header)]
    for r in rows:
        pred = r["prediction"] if classifier else num(r["prediction"])
        cells = [str(r["leaf"]), cell(r["rule"]), cell(pred), str(r["n_samples"]),
                 num(r["error"])]
        if classifier:
            cells.insert(3, cell(", ".join(f"{c}: {num(v)}"
                                           for c, v in r["class_counts"].items())))
        lines.append("| " + " | ".join(cells) + " |")
    return "\n".join(lines) + "\n"


# ============================================================================ Graphviz
#: fill colours of classes in DOT output (matplotlib's tab10, so plots and graphs agree).
_DOT_PALETTE = ("#1f77b4", "#ff7f0e", "#2ca02c", "#d62728", "#9467bd", "#8c564b", "#e377c2",
                "#7f7f7f", "#bcbd22", "#17becf")


def _dot_string(text):
    """``text`` as a DOT double-quoted string body (quotes and backslashes escaped)."""
    return str(text).replace("\\", "\\\\").replace('"', '\\"').replace("\n", "\\n")


def _blend(hex_colour, alpha):
    """``hex_colour`` mixed with white: ``alpha`` 0 is white, 1 the colour itself."""
    rgb = [int(hex_colour[i:i + 2], 16) for i in (1, 3, 5)]
    mixed = [round(255 - alpha * (255 - c)) for c in rgb]
    return "#" + "".join(f"{c:02x}" for c in mixed)


def export_graphviz(estimator, out_file=None, *, feature_names=None, class_names=None,
                    decimals=4, filled=True, node_ids=True, rotate=False,
                    fontname="Helvetica"):
    """The fitted tree in Graphviz's DOT language.

    Decision nodes show their test in the data's units; leaves show the
    prediction, the number of training samples ``|R|`` and the training error
    ``L`` (weighted misclassified count, or mean squared error). The left edge
    of every node is taken when its test holds ("yes").

    Parameters
    ----------
    estimator : BivariateTreeClassifier or BivariateTreeRegressor
        A fitted estimator.
    out_file : str or path-like, default=None
        Also write the DOT source there.
    feature_names : sequence of str, default=None
        Defaults to ``feature_names_in_`` or ``x0, x1, ...``.
    class_names : sequence of str, default=None
        Display names of ``classes_``.
    decimals : int or None, default=4
        Significant digits of weights and thresholds.
    filled : bool, default=True
        Colour leaves by class (shade by purity), or by value for a regressor.
    node_ids : bool, default=True
        Start every label with ``#<node id>``.
    rotate : bool, default=False
        Lay the tree out left to right instead of top down.
    fontname : str, default="Helvetica"

    Returns
    -------
    str
        DOT source; render it with ``dot -Tpng tree.dot -o tree.png``.
    """
    check_is_fitted(estimator, "tree_")
    tree = estimator.tree_
    names = _names(estimator, feature_names)
    labels = _class_labels(estimator, class_names)
    if labels is None and tree.node_count:
        leaf_values = tree.value[tree.is_leaf, 0]
        lo, hi = float(leaf_values.min()), float(leaf_values.max())
    lines = ["digraph BivariateTree {",
             (f'node [shape=box, style="rounded{",filled" if filled else ""}", '
             f'fillcolor="#ffffff", fontname="{_dot_string(fontname)}"];'),
             f'edge [fontname="{_dot_string(fontname)}"];']
    if rotate:
        lines.append("rankdir=LR;")
    for node in range(tree.node_count):
        head = f"#{node}\n" if node_ids else ""
        n = int(tree.n_node_samples[node])
        value = tree.value[node]
        if tree.children_left[node] == TREE_LEAF:
            error = _number(_leaf_error(estimator, tree, node), decimals)
            if labels is None:
                text = (f"{head}value: {_number(value[0], decimals)}\n|R| = {n}\n"
                        f"MSE = {error}")
                share = 0.5 if hi <= lo else (float(value[0]) - lo) / (hi - lo)
                colour = _blend("#1f77b4", 0.15 + 0.6 * share)
            else:
                best = int(np.argmax(value))
                text = f"{head}class: {labels[best]}\n|R| = {n}\nL = {error}"
                total = value.sum()
                purity = value[best] / total if total > 0 else 1.0
                base = _DOT_PALETTE[best % len(_DOT_PALETTE)]
                colour = _blend(base, 0.2 + 0.6 * purity)
            fill = f', fillcolor="{colour}"' if filled else ""
            lines.append(f'{node} [label="{_dot_string(text)}"{fill}];')
        else:
            rule = format_rule(tree.features[node], tree.weights[node], tree.threshold[node],
                               names, decimals, category_mask=tree.category_mask[node])
            text = f"{head}{rule}\n|R| = {n}"
            lines.append(f'{node} [label="{_dot_string(text)}"];')
            lines.append(f'{node} -> {tree.children_left[node]} [label="yes"];')
            lines.append(f'{node} -> {tree.children_right[node]} [label="no"];')
    lines.append("}")
    source = "\n".join(lines) + "\n"
    if out_file is not None:
        with open(out_file, "w", encoding="utf-8") as fh:
            fh.write(source)
    return source


# ============================================================================ JSON models
#: ``format`` tag of a saved estimator (see docs/model-format.md).
MODEL_FORMAT = "bivtree.model"
#: version of the estimator-level JSON layout written by :func:`to_json` (2: the tree
#: is a version 2 tree, with categorical nodes).
MODEL_FORMAT_VERSION = 2
#: model versions :func:`from_json` reads, each with the tree version it holds.
_TREE_VERSION_OF_MODEL = {1: 1, 2: TREE_FORMAT_VERSION}

_MODEL_KEYS_REQUIRED = ("format", "version", "estimator", "params", "n_features_in",
                        "feature_names_in", "max_features", "feature_importances", "tree")
_MODEL_KEYS_OPTIONAL = ("bivtree_version", "classes", "fit_time", "params_not_saved",
                        "metadata")
#: numpy dtype kinds a saved ``classes_`` may have: bool, integers, floats, strings.
_CLASS_KINDS = {"b": bool, "i": int, "u": int, "f": float, "U": str, "O": str}


def _estimator_classes():
    from .estimators import BivariateTreeClassifier, BivariateTreeRegressor
    from .tao_estimators import TAOTreeClassifier, TAOTreeRegressor

    return {cls.__name__: cls for cls in (BivariateTreeClassifier, BivariateTreeRegressor,
                                          TAOTreeClassifier, TAOTreeRegressor)}


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
    from . import __version__

    check_is_fitted(estimator, "tree_")
    classes = _estimator_classes()
    name = type(estimator).__name__
    if classes.get(name) is not type(estimator):
        raise ValueError(f"cannot save a {name}; JSON models hold {sorted(classes)}")
    params, not_saved = {}, []
    for key, value in sorted(estimator.get_params(deep=False).items()):
        try:
            params[key] = _encode_param(value)
        except TypeError:
            # e.g. a RandomState: it does not affect predictions, so the model is
            # still saved, and the parameter comes back as None
            params[key] = None
            not_saved.append(key)
    names = getattr(estimator, "feature_names_in_", None)
    out = {
        "format": MODEL_FORMAT,
        "version": MODEL_FORMAT_VERSION,
        "bivtree_version": __version__,
        "estimator": name,
        "params": params,
        "n_features_in": int(estimator.n_features_in_),
        "feature_names_in": None if names is None else [str(f) for f in names],
        "max_features": int(estimator.max_features_),
        "feature_importances": [float(v) for v in estimator.feature_importances_],
        "tree": estimator.tree_.to_dict(),
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
    if not_saved:
        out["params_not_saved"] = not_saved
    if metadata is not None:
        out["metadata"] = _check_metadata(metadata)
    return out


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


def _reject_constant(name):
    raise ValueError(f"the model file contains {name}, which is not valid JSON")


def _check_tree_dict(tree_dict):
    """Invariants a stored tree must satisfy beyond :meth:`Tree.from_dict`'s checks.

    A cycle in the child ids would make prediction loop forever and an unused
    slot before a used one would be skipped silently, so both are rejected here.
    """
    if not isinstance(tree_dict, dict):
        raise ValueError("model 'tree' must be a dictionary")  # noqa: TRY004
    for name in ("children_left", "children_right", "features", "n_node_samples"):
        try:
            arr = np.asarray(tree_dict.get(name), dtype=float)
        except (TypeError, ValueError):
            raise ValueError(f"tree array {name!r} is not numeric") from None
        if arr.size and (not np.all(np.isfinite(arr)) or np.any(arr != np.round(arr))
                         or np.abs(arr).max() > 2.0 ** 53):
            raise ValueError(f"tree array {name!r} must hold integers")
    n_features = tree_dict.get("n_features")
    if not (isinstance(n_features, int) and not isinstance(n_features, bool)
            and n_features > 0):
        raise ValueError("tree 'n_features' must be a positive integer")
    tree = Tree.from_dict(tree_dict)
    internal = np.flatnonzero(~tree.is_leaf)
    if 2 * internal.size != tree.node_count - 1:
        raise ValueError("tree arrays do not describe one binary tree (every node but the "
                         "root needs exactly one parent)")
    if np.any(tree.children_left[internal] <= internal) or np.any(
            tree.children_right[internal] <= internal):
        raise ValueError("tree child ids must be larger than their parent's id")
    used = tree.features >= 0
    if np.any(used[:, 1:] & ~used[:, :-1]):
        raise ValueError("tree feature slots must be filled from the first one")
    if np.any(tree.weights[~used] != 0.0) or not np.all(np.isfinite(tree.weights)):
        raise ValueError("tree weights must be finite, and 0 in unused slots")
    if np.any(used[tree.is_leaf]):
        raise ValueError("tree leaves must not test features")
    for name in ("impurity", "weighted_n_node_samples", "value"):
        if not np.all(np.isfinite(getattr(tree, name))):
            raise ValueError(f"tree array {name!r} holds NaN or infinity")
    if np.any(tree.n_node_samples < 0) or np.any(tree.weighted_n_node_samples < 0):
        raise ValueError("tree sample counts must be non-negative")
    return tree


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
          int: lambda v: isinstance(v, int) and not isinstance(v, bool),
          float: lambda v: isinstance(v, (int, float)) and not isinstance(v, bool),
          str: lambda v: isinstance(v, str)}[kind]
    if len(values) < 2 or not all(ok(v) for v in values):
        raise ValueError(f"model classes must be at least two {kind.__name__} values "
                         f"matching dtype {spec['dtype']!r}")
    classes = np.array(values, dtype=dtype)
    if classes.shape != (len(values),) or classes.tolist() != values:
        raise ValueError(f"model classes do not fit dtype {spec['dtype']!r}")
    if list(np.unique(classes)) != list(classes):
        raise ValueError("model classes must be distinct and sorted (as np.unique returns them)")
    return classes


def _model_from_dict(data):
    """Rebuild and validate an estimator from the dictionary form; returns (estimator, metadata)."""
    if not isinstance(data, dict) or data.get("format") != MODEL_FORMAT:
        raise ValueError(f"not a bivtree model (missing format {MODEL_FORMAT!r})")
    version = data.get("version")
    if not isinstance(version, int) or isinstance(version, bool) or (
            version not in _TREE_VERSION_OF_MODEL):
        raise ValueError(f"unsupported model format version {version!r}; this bivtree "
                         f"reads versions {sorted(_TREE_VERSION_OF_MODEL)}")
    missing = [k for k in _MODEL_KEYS_REQUIRED if k not in data]
    if missing:
        raise ValueError(f"model lacks {missing}")
    unknown = sorted(set(data) - set(_MODEL_KEYS_REQUIRED) - set(_MODEL_KEYS_OPTIONAL))
    if unknown:
        raise ValueError(f"model has unknown field(s) {unknown}")
    classes = _estimator_classes()
    cls = classes.get(data["estimator"]) if isinstance(data["estimator"], str) else None
    if cls is None:
        raise ValueError(f"model estimator {data['estimator']!r} is not one of {sorted(classes)}")
    params = data["params"]
    if not isinstance(params, dict):
        raise ValueError("model 'params' must be a dictionary")  # noqa: TRY004
    expected = set(cls().get_params(deep=False))
    if set(params) != expected:
        raise ValueError(f"model params do not match {cls.__name__}: missing "
                         f"{sorted(expected - set(params))}, unknown "
                         f"{sorted(set(params) - expected)}")
    estimator = cls(**{k: _decode_param(k, v) for k, v in params.items()})
    # the one parameter prediction uses; the others are checked by fit when refitting
    n_jobs = estimator.n_jobs
    if not (n_jobs is None or (isinstance(n_jobs, int) and not isinstance(n_jobs, bool))):
        raise ValueError(f"model parameter 'n_jobs' must be null or an integer, got {n_jobs!r}")

    n_features = data["n_features_in"]
    if not (isinstance(n_features, int) and not isinstance(n_features, bool) and n_features > 0):
        raise ValueError("model 'n_features_in' must be a positive integer")
    tree_version = data["tree"].get("version") if isinstance(data["tree"], dict) else None
    # an unknown tree version is reported by Tree.from_dict; a known one must match
    if (tree_version in TREE_FORMAT_VERSIONS_READ and not isinstance(tree_version, bool)
            and tree_version != _TREE_VERSION_OF_MODEL[version]):
        raise ValueError(f"model format version {version} holds a tree of version "
                         f"{_TREE_VERSION_OF_MODEL[version]}, not {tree_version!r}")
    tree = _check_tree_dict(data["tree"])
    if tree.n_features != n_features:
        raise ValueError(f"model tree has {tree.n_features} features but n_features_in is "
                         f"{n_features}")
    names = data["feature_names_in"]
    if names is not None:
        if not (isinstance(names, list) and len(names) == n_features
                and all(isinstance(f, str) for f in names)):
            raise ValueError(f"model 'feature_names_in' must be null or {n_features} strings")
        if len(set(names)) != len(names):
            raise ValueError("model 'feature_names_in' has duplicate names")
    max_features = data["max_features"]
    if not (isinstance(max_features, int) and not isinstance(max_features, bool)
            and 1 <= max_features <= n_features):
        raise ValueError(f"model 'max_features' must be an integer in [1, {n_features}]")
    importances = data["feature_importances"]
    if not (isinstance(importances, list) and len(importances) == n_features and all(
            isinstance(v, (int, float)) and not isinstance(v, bool) for v in importances)):
        raise ValueError(f"model 'feature_importances' must be {n_features} numbers")
    importances = np.asarray(importances, dtype=float)
    if not np.all(np.isfinite(importances)):
        raise ValueError("model 'feature_importances' holds NaN or infinity")

    if is_classifier(cls()):
        if "classes" not in data:
            raise ValueError("a classifier model needs 'classes'")
        class_values = _check_classes(data["classes"])
        if tree.value.shape[1] != class_values.shape[0]:
            raise ValueError(f"model tree holds {tree.value.shape[1]} class counts per node "
                             f"but {class_values.shape[0]} classes")
        if np.any(tree.value < 0):
            raise ValueError("model tree class counts must be non-negative")
        estimator.classes_ = class_values
        estimator.n_classes_ = int(class_values.shape[0])
    else:
        if "classes" in data:
            raise ValueError("a regressor model has no 'classes'")
        if tree.value.shape[1] != 1:
            raise ValueError("model tree of a regressor must hold one value per node")

    fit_time = data.get("fit_time", 0.0)
    if not (isinstance(fit_time, (int, float)) and not isinstance(fit_time, bool)):
        raise ValueError("model 'fit_time' must be a number")  # noqa: TRY004
    not_saved = data.get("params_not_saved", [])
    if not (isinstance(not_saved, list)
            and all(isinstance(p, str) and p in expected for p in not_saved)):
        raise ValueError("model 'params_not_saved' must list parameter names")
    metadata = data.get("metadata")
    if metadata is not None:
        metadata = _check_metadata(metadata)

    estimator.tree_ = tree
    estimator.n_features_in_ = n_features
    if names is not None:
        estimator.feature_names_in_ = np.asarray(names, dtype=object)
    estimator.n_outputs_ = 1
    estimator.max_features_ = max_features
    estimator.feature_importances_ = importances
    estimator.fit_time_ = float(fit_time)
    return estimator, metadata


def from_json(text, *, return_metadata=False):
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

    Returns
    -------
    estimator : BivariateTreeClassifier or BivariateTreeRegressor
    metadata : dict or None
        Only with ``return_metadata=True``.
    """
    try:
        data = json.loads(text, parse_constant=_reject_constant)
    except json.JSONDecodeError as exc:
        raise ValueError(f"the model is not valid JSON: {exc}") from None
    estimator, metadata = _model_from_dict(data)
    return (estimator, metadata) if return_metadata else estimator


def save_model(estimator, path, *, metadata=None):
    """Write a fitted estimator to ``path`` as JSON (see :func:`to_json`).

    Parameters
    ----------
    estimator : BivariateTreeClassifier or BivariateTreeRegressor
    path : str or path-like
    metadata : dict, default=None
        Free-form information to keep with the model.
    """
    text = to_json(estimator, indent=1, metadata=metadata)
    with open(path, "w", encoding="utf-8") as fh:
        fh.write(text + "\n")


def load_model(path, *, return_metadata=False):
    """Read an estimator written by :func:`save_model` (see :func:`from_json`).

    Parameters
    ----------
    path : str or path-like
    return_metadata : bool, default=False

    Returns
    -------
    estimator, or (estimator, metadata)
    """
    with open(path, encoding="utf-8") as fh:
        text = fh.read()
    try:
        return from_json(text, return_metadata=return_metadata)
    except ValueError as exc:
        raise ValueError(f"{path}: {exc}") from None
