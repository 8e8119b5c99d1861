"""Trees as text: nested IF / ELSE rules in the data's own units."""

import numpy as np
from sklearn.utils.validation import check_is_fitted

from ._config import TREE_LEAF


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


def format_rule(features, weights, threshold, feature_names, decimals=4, op="<="):
    """A node test as text, e.g. ``"x7 + 0.3 * x10 <= -0.1"``.

    Parameters
    ----------
    features, weights : sequences
        Slots of the node; features ``< 0`` are unused.
    threshold : float
    feature_names : sequence of str
    decimals : int or None
        Significant digits of weights and threshold; ``None`` prints them exactly.
    op : str
        Comparison to print (``"<="`` or ``">"``).
    """
    terms = []
    for f, w in zip(features, weights):
        if f < 0:
            continue
        name = feature_names[f]
        if not terms:
            terms.append(name if w == 1.0 else f"{_number(w, decimals)} * {name}")
            continue
        sign = "-" if w < 0 else "+"
        terms.append(f"{sign} {_number(abs(w), decimals)} * {name}")
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
        with the number of training samples.
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
        rule = format_rule(tree.features[node], tree.weights[node], tree.threshold[node],
                           names, decimals)
        lines.append(f"{pad}if {rule}:")
        walk(tree.children_left[node], depth + 1)
        lines.append(f"{pad}else:  # {rule.replace(' <= ', ' > ')}")
        walk(tree.children_right[node], depth + 1)

    walk(0, 0)
    return "\n".join(lines) + "\n"
