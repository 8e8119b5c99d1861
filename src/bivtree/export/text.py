"""Trees as text, tables and graphs.

- :func:`export_text`: nested IF / ELSE rules in the data's own units;
- :func:`export_rules`: one row per leaf (its rule, prediction, counts, error), and
  :func:`rules_markdown` to print them as a table;
- :func:`export_graphviz`: DOT source.

Numbers, rules and names are written by :mod:`bivtree.export.formatting`, shared with the
plots. :func:`to_json`, :func:`from_json`, :func:`save_model` and :func:`load_model`
live in :mod:`bivtree.persistence` and are importable from here as well.
"""

import numpy as np

from .._config import TREE_LEAF
from .._kernels.scan import ALL_KNOWN_LEFT
from ..constraints import constraints_text
from ..estimators import tree_estimator
from ..persistence import from_json, load_model, save_model, to_json
from ..tree import mask_to_categories
from .formatting import (
    DEFAULT_DECIMALS,
    feature_signs,
    format_categories,
    format_number,
    format_rule,
    indicator_reading,
    leaf_error,
    missing_text,
    ratio_rule,
    resolve_class_labels,
    resolve_feature_names,
)

__all__ = [
    "export_graphviz",
    "export_rules",
    "export_text",
    "fitted_constraints",
    "format_rule",
    "from_json",
    "load_model",
    "ratio_rule",
    "rules_markdown",
    "save_model",
    "to_json",
]


def _leaf_text(estimator, tree, node, decimals):
    n = int(tree.n_node_samples[node])
    value = tree.value[node]
    classes = getattr(estimator, "classes_", None)
    if classes is None:
        return f"value: {format_number(value[0], decimals)}  (samples: {n})"
    counts = ", ".join(format_number(c, decimals) for c in value)
    return f"class: {classes[int(np.argmax(value))]}  (samples: {n}, counts: [{counts}])"


def fitted_constraints(estimator, feature_names=None):
    """The line saying which constraints ``estimator`` was fitted under, or ``None``.

    For example ``"monotonic: income increasing, age decreasing; interactions: only
    within {waist, height}, {income, debt}"`` (``monotonic_cst`` and
    ``interaction_cst``, see :mod:`bivtree.constraints`).

    Parameters
    ----------
    estimator : fitted estimator
        A tree estimator (or a model selector, which stands for its chosen tree).
    feature_names : sequence of str, default=None
        Defaults to ``feature_names_in_`` or ``x0, x1, ...``.

    Returns
    -------
    str or None
    """
    estimator = tree_estimator(estimator, "fitted_constraints")
    return constraints_text(getattr(estimator, "monotonic_cst_", None),
                            getattr(estimator, "interaction_cst_", None),
                            resolve_feature_names(estimator, feature_names))


def export_text(estimator, feature_names=None, decimals=DEFAULT_DECIMALS, max_depth=None,
                indent="    "):
    """The fitted tree as nested IF / ELSE rules in the data's units.

    Parameters
    ----------
    estimator : BivariateTreeClassifier or BivariateTreeRegressor
        A fitted estimator (anything with ``tree_`` and ``n_features_in_``). A model
        selector (``TAOTreeClassifierCV``, ``CostComplexityCV``...) stands for its chosen
        tree, ``best_estimator_``.
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

            if radius + 0.21 * texture <= 21.3:
                class: 1  (samples: 250, counts: [4, 246])
            else:  # radius + 0.21 * texture > 21.3 or radius or texture is missing
                ...

        Leaves give the class and weighted class counts (or the mean value)
        with the number of training samples. Every node says once which branch a
        sample missing one of its features (NaN) takes, as ``predict`` routes it:
        its ``if`` or its ``else`` line ends in ``"or x7 is missing"``. That is the
        side learned at fit for a tree grown with missing values, and otherwise
        the child with more training weight. (A category value never seen at fit
        is read as missing, as ``predict`` reads it.) A categorical node reads
        ``if colour in {1, 3, 4}:`` (its ``else`` branch: ``colour not in {1, 3, 4}``,
        which includes every code the node never saw). A node whose threshold
        depends on a category, ``if x7 + 0.3 * [colour in {1, 3}] <= 2:``, adds
        its two thresholds as a comment: ``# x7 <= 1.7 if colour in {1, 3}, else
        x7 <= 2``. A model fitted under ``monotonic_cst`` or ``interaction_cst``
        starts with one comment line saying so (:func:`fitted_constraints`),
        e.g. ``# fitted under constraints: monotonic: age decreasing``.

    Examples
    --------
    >>> from sklearn.datasets import load_iris
    >>> from bivtree import BivariateTreeClassifier, export_text
    >>> iris = load_iris()
    >>> clf = BivariateTreeClassifier(splitter="orientations", max_depth=1)
    >>> clf = clf.fit(iris.data, iris.target)
    >>> print(export_text(clf, feature_names=iris.feature_names), end="")
    if petal length (cm) <= 2.45:
        class: 0  (samples: 50, counts: [50, 0, 0])
    else:  # petal length (cm) > 2.45 or petal length (cm) is missing
        class: 1  (samples: 100, counts: [0, 50, 50])
    """
    estimator = tree_estimator(estimator, "export_text")  # a model selector: its chosen tree
    tree = estimator.tree_
    names = resolve_feature_names(estimator, feature_names)
    constraints = fitted_constraints(estimator, names)
    lines = [] if constraints is None else [f"# fitted under constraints: {constraints}"]
    # an explicit stack, not recursion: a valid tree may be thousands of levels deep.
    # An entry is a node to print at a depth, or a finished line (the ``else`` of a
    # node, printed once its left subtree is done).
    stack = [(0, 0, None)]
    while stack:
        node, depth, line = stack.pop()
        if line is not None:
            lines.append(line)
            continue
        pad = indent * depth
        if tree.children_left[node] == TREE_LEAF:
            lines.append(pad + _leaf_text(estimator, tree, node, decimals))
            continue
        if max_depth is not None and depth > max_depth:
            lines.append(pad + "...")
            continue
        args = (tree.features[node], tree.weights[node], tree.threshold[node], names,
                decimals)
        mask = tree.category_mask[node]
        # every node says on which branch missing values go: the side learned at
        # fit, or the heavier child of a tree fitted without them; predict sends a
        # NaN down either way, so a rule silent about it would misread such a row
        left = bool(tree.missing_go_left[node])
        line = f"{pad}if {format_rule(*args, category_mask=mask, missing=left)}:"
        # a threshold that depends on a category: its two values, for reading
        reading = indicator_reading(*args, category_mask=mask)
        lines.append(line if reading is None else f"{line}  # {reading}")
        stack.append((tree.children_right[node], depth + 1, None))
        otherwise = format_rule(*args, op=">", category_mask=mask, missing=not left)
        stack.append((node, depth, f"{pad}else:  # {otherwise}"))
        stack.append((tree.children_left[node], depth + 1, None))
    return "\n".join(lines) + "\n"


#: marks a merged test that did not exist before a node's test was added.
_ABSENT = object()


def _merge_test(merged, tree, node, left):
    """Add the test of ``node`` (its ``left`` branch or not) to ``merged``, in place.

    ``merged`` maps ``(features, weights, goes_left) -> (node, threshold, missing)``
    for a linear test, keeping the tighter threshold of two tests of the same
    projection in the same direction, and ``("categories", feature) -> (node,
    inside, outside, missing)`` for the set tests of one feature, ``inside`` the
    intersection of the sets taken (``None`` when none is) and ``outside`` the
    union of the sets left. ``missing`` says whether the samples missing a
    feature of the test pass every test merged (each sends them its own way). The
    merged tests are exactly equivalent to the tests added.

    Returns
    -------
    key, previous
        The entry changed and its value before (``_ABSENT`` when it is new), to
        undo the change when the walk leaves the branch.
    """
    mask = tree.categorical_mask(node)  # one node's: not the whole tree's is_categorical
    missing = bool(tree.missing_go_left[node]) == left
    if mask:
        # every set test of one feature merges into one: "in A" and "in B" is
        # "in A & B", "not in A" and "not in B" is "not in A | B"
        key = ("categories", int(tree.features[node, 0]))
        previous = merged.get(key, _ABSENT)
        _, inside, outside, was = (node, None, 0, True) if previous is _ABSENT else previous
        if left:
            inside = mask if inside is None else inside & mask
        else:
            outside |= mask
        merged[key] = (node, inside, outside, was and missing)
        return key, previous
    used = tree.features[node] >= 0
    key = (tuple(tree.features[node][used].tolist()),
           tuple(tree.weights[node][used].tolist()), left,
           tuple(int(m) for m in tree.category_mask[node][used]))
    t = float(tree.threshold[node])
    previous = merged.get(key, _ABSENT)
    # two tests of the same projection in the same direction: keep the tighter
    if previous is _ABSENT:
        merged[key] = (node, t, missing)
    elif t < previous[1] if left else t > previous[1]:
        merged[key] = (node, t, previous[2] and missing)
    else:
        merged[key] = (*previous[:2], previous[2] and missing)
    return key, previous


def _leaf_tests(tree):
    """``(leaf, [(key, entry), ...])`` for every leaf, left to right: the merged tests
    (see :func:`_merge_test`) of its path, in the order they first appear on it.

    One depth-first walk with an explicit stack keeps the merged tests of the current
    path and undoes a node's change when it leaves the node's branch, so the cost is
    the number of nodes plus the size of the output, not the sum of the path lengths
    (which is quadratic in the depth of a lopsided tree). Undoing in reverse order
    keeps the dictionary's order that of the path: a key added below a node is
    removed before the node's own key is.
    """
    merged = {}
    # entries: (node, test) to visit, ``test`` the (parent, goes_left) that leads
    # there; or (None, (key, previous)) to undo a test on the way back up
    stack = [(0, None)]
    while stack:
        node, test = stack.pop()
        if node is None:
            key, previous = test
            if previous is _ABSENT:
                del merged[key]
            else:
                merged[key] = previous
            continue
        if test is not None:
            stack.append((None, _merge_test(merged, tree, *test)))
        if tree.children_left[node] == TREE_LEAF:
            yield int(node), list(merged.items())
            continue
        stack.append((tree.children_right[node], (node, False)))
        stack.append((tree.children_left[node], (node, True)))


def _condition(key, entry, names, decimals, ratio):
    """One entry of :func:`_leaf_tests` as a condition of :func:`export_rules`.

    ``ratio(features, weights, threshold, op)`` gives the test as a ratio, or
    ``None`` to write it in its linear form. The condition says whether samples
    missing one of its features pass it, in ``missing`` and, where they do, in its
    text.
    """
    if key[0] == "categories":
        node, inside, outside, missing = entry
        f = key[1]
        if inside is None:
            op, codes = "not in", mask_to_categories(outside)
        else:
            op, codes = "in", mask_to_categories(inside & ~outside)
        text = format_categories(names[f], codes, op)
        if missing:
            text += f" or {missing_text([f], names)}"
        out = {"node": int(node), "features": [f], "weights": [1.0], "threshold": None,
               "op": op, "categories": codes, "text": text}
    else:
        feats, wts, left, masks = key
        node, t, missing = entry
        op = "<=" if left else ">"
        # a ratio of a feature to an indicator means nothing
        text = None if any(masks) else ratio(feats, wts, t, op)
        if text is None:
            text = format_rule(feats, wts, t, names, decimals, op=op, category_mask=masks,
                               missing=missing)
        elif missing:
            text += f" or {missing_text(feats, names)}"
        out = {"node": int(node), "features": list(feats), "weights": list(wts),
               "threshold": t, "op": op, "text": text}
        if any(masks):
            # the slots that read a category set's indicator, and their sets
            out["indicator_categories"] = [mask_to_categories(m) if m else None
                                           for m in masks]
            reading = indicator_reading(feats, wts, t, names, decimals, op=op,
                                        category_mask=masks)
            if reading is not None:
                out["reading"] = reading
    out["missing"] = bool(missing)
    return out


def _joined(texts):
    """Condition texts joined by ``" and "``, a disjunction among several in brackets.

    A test that missing values pass (``"x7 <= 0.5 or x7 is missing"``) or a test of
    two category sets that holds for three of their four combinations (``"a in {1}
    or b in {2}"``) is an ``or``; joined unbracketed, ``and`` would bind tighter
    and the rule would select other samples. A bracket around a text whose ``" or "``
    is only inside a name or a category value is harmless.
    """
    if len(texts) > 1:
        texts = [f"({t})" if " or " in t else t for t in texts]
    return " and ".join(texts)


def export_rules(estimator, feature_names=None, *, X=None, class_names=None,
                 decimals=DEFAULT_DECIMALS,
                 ratios=True, as_frame=False):
    """One row per leaf: the conjunction of node tests that leads there, and what it predicts.

    Parameters
    ----------
    estimator : BivariateTreeClassifier or BivariateTreeRegressor
        A fitted estimator. A model selector (``TAOTreeClassifierCV``,
        ``CostComplexityCV``...) stands for its chosen tree, ``best_estimator_``.
    feature_names : sequence of str, default=None
        Defaults to ``feature_names_in_`` or ``x0, x1, ...``.
    X : array-like of shape (n_samples, n_features), default=None
        Data (typically the training data) used only to decide where a test
        ``x_j + w * x_k <= t`` may be written as a ratio ``x_j / x_k <= r``: the
        denominator must keep one sign on every row, the printed ratio must send
        every row of ``X`` the way the test does, and the test's boundary must stay
        within the rounding of the printed ratio over the range of ``|x_k|`` on
        ``X``, so that no more samples than those within rounding of the boundary
        can read the other way (see :func:`ratio_rule`). Otherwise the test is
        written in its linear form. Without ``X`` no ratio is written. ``X`` is
        read as ``predict`` reads it (a DataFrame with the fit's categorical
        columns included).
    class_names : sequence of str, default=None
        Display names of ``classes_`` (classifier only).
    decimals : int or None, default=4
        Significant digits in the rule text (``None``: exact).
    ratios : bool, default=True
        Write ``x_j + w * x_k <= t`` as ``x_j / x_k <= -w`` where that means the
        same test at the printed digits (see ``X`` and :func:`ratio_rule`).
    as_frame : bool, default=False
        Return a pandas DataFrame instead of a list of dicts.

    Returns
    -------
    list of dict or pandas.DataFrame
        Leaves from left to right, with keys

        - ``leaf``: node id of the leaf (as in ``apply``);
        - ``rule``: the tests as text joined by ``" and "`` (``"always"`` for a
          single-leaf tree), a test reading ``"... or ..."`` in brackets (``"x0 > 1
          and (x1 <= 2 or x1 is missing)"``). Repeated tests of the same projection
          in the same direction are merged into the tightest one, which is exactly
          equivalent;
        - ``conditions``: the same tests as dicts with ``node``, ``features``,
          ``weights``, ``threshold`` (exact), ``op`` (``"<="`` for the left
          branch, ``">"`` for the right) and ``text``. The tests of categorical
          nodes on one feature are merged into one condition with ``op``
          ``"in"`` (the code is one of ``categories``) or ``"not in"`` (it is
          none of them: any other value, also one the tree never saw),
          ``categories`` (sorted codes) and ``threshold`` ``None``. ``missing``
          says whether a sample missing a feature of the condition (NaN) passes
          it (the text then ends in ``"or x7 is missing"``): the side the node
          learned at fit, or for a tree fitted without missing values the child
          with more training weight, as ``predict`` does (which also reads a
          category value never seen at fit as missing). A test reading category
          indicators has
          ``indicator_categories`` (per slot, the codes of its set or ``None``)
          and, with one numeric slot, ``reading``: its two thresholds, e.g.
          ``"x7 <= 1.7 if colour in {1, 3}, else x7 <= 2"``;
        - ``prediction``: the class (or ``class_names`` entry), or the mean value;
        - ``class_counts``: weighted class counts as ``{class: count}`` (classifier);
        - ``n_samples``, ``weighted_n_samples``: training samples at the leaf;
        - ``error``: training error at the leaf, the weighted number of
          misclassified samples (classifier; a count for unit weights) or the
          mean squared error (regressor).

    Notes
    -----
    Every sample, one with missing values included, satisfies exactly one row's
    conditions (read from their exact numbers, a missing feature passing a
    condition iff its ``missing`` is true) and gets that row's prediction,
    because the rows are the root-to-leaf paths of the tree. The texts round
    numbers to ``decimals`` digits, so a sample within rounding of a boundary
    may read the other way in them.

    Examples
    --------
    >>> from sklearn.datasets import load_iris
    >>> from bivtree import BivariateTreeClassifier, export_rules
    >>> iris = load_iris()
    >>> clf = BivariateTreeClassifier(splitter="orientations", max_depth=1)
    >>> clf = clf.fit(iris.data, iris.target)
    >>> rows = export_rules(clf, feature_names=iris.feature_names,
    ...                     class_names=list(iris.target_names))
    >>> for row in rows:
    ...     print(row["rule"], "->", row["prediction"], row["n_samples"], row["error"])
    petal length (cm) <= 2.45 -> setosa 50 0.0
    petal length (cm) > 2.45 or petal length (cm) is missing -> versicolor 100 50.0
    """
    estimator = tree_estimator(estimator, "export_rules")  # a model selector: its chosen tree
    tree = estimator.tree_
    names = resolve_feature_names(estimator, feature_names)
    labels = resolve_class_labels(estimator, class_names)
    if ratios and hasattr(X, "columns"):
        # a frame as predict reads it: category values to their codes, columns by name
        X = estimator._validate_X_predict(X)
    signs = feature_signs(X, tree.n_features) if ratios else None
    rows_checked = np.asarray(X, dtype=float) if signs is not None else None
    # a node's test recurs in the row of every leaf below it: decide (and check on
    # the rows of X) once per test
    ratios_seen = {}

    def ratio(features, weights, threshold, op):
        key = (features, weights, threshold, op)
        if key not in ratios_seen:
            ratios_seen[key] = ratio_rule(features, weights, threshold, op, names, signs,
                                          decimals, X=rows_checked)
        return ratios_seen[key]

    rows = []
    for leaf, tests in _leaf_tests(tree):
        conditions = [_condition(key, entry, names, decimals, ratio) for key, entry in tests]
        row = {"leaf": int(leaf),
               "rule": _joined([c["text"] for c in conditions]) or "always",
               "conditions": conditions}
        value = tree.value[leaf]
        if labels is None:
            row["prediction"] = float(value[0])
        else:
            row["prediction"] = labels[int(np.argmax(value))]
            row["class_counts"] = {c: float(v) for c, v in zip(labels, value)}
        row["n_samples"] = int(tree.n_node_samples[leaf])
        row["weighted_n_samples"] = float(tree.weighted_n_node_samples[leaf])
        row["error"] = leaf_error(estimator, tree, leaf)
        rows.append(row)
    if as_frame:
        try:
            import pandas as pd
        except ImportError:
            raise ImportError("export_rules(as_frame=True) needs pandas: "
                              "pip install \"bivtree[pandas]\"") from None
        return pd.DataFrame(rows)
    return rows


def rules_markdown(rows, decimals=DEFAULT_DECIMALS, constraints=None):
    """Rows of :func:`export_rules` as a Markdown table (one line per leaf).

    Parameters
    ----------
    rows : list of dict or pandas.DataFrame
        Output of :func:`export_rules`.
    decimals : int or None, default=4
        Significant digits of predictions, counts and errors.
    constraints : str, default=None
        The constraints the model was fitted under (:func:`fitted_constraints`),
        written as one line above the table.

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
        return format_number(v, decimals)

    header = ["leaf", "rule", "prediction", "samples", "error"]
    if classifier:
        header.insert(3, "class counts")
    lines = ["| " + " | ".join(header) + " |", "|" + "---|" * len(header)]
    if constraints is not None:
        lines[:0] = [f"Fitted under constraints: {cell(constraints)}", ""]
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
    """``text`` as the body of a DOT double-quoted string, shown as written in a label.

    Graphviz's lexer reads ``\\"`` as a quote and ``\\\\`` as a pair (so an
    escaped backslash never escapes the closing quote), and a label then reads
    ``\\\\`` as one backslash and ``\\n`` as a line break: every backslash is
    doubled, every quote escaped, and line breaks (``\\r\\n``, ``\\r``, ``\\n``)
    written ``\\n``, so no other escape (``\\N``, ``\\G``, ``\\l``...) comes from
    the text. A NUL, which would end Graphviz's C string, is shown as U+2400.
    The string is never an HTML-like label (those are ``<...>``, not quoted).
    """
    text = str(text).replace("\\", "\\\\").replace('"', '\\"').replace("\x00", "\u2400")
    return text.replace("\r\n", "\n").replace("\r", "\n").replace("\n", "\\n")


def _blend(hex_colour, alpha):
    """``hex_colour`` mixed with white: ``alpha`` 0 is white, 1 the colour itself."""
    rgb = [int(hex_colour[i:i + 2], 16) for i in (1, 3, 5)]
    mixed = [round(255 - alpha * (255 - c)) for c in rgb]
    return "#" + "".join(f"{c:02x}" for c in mixed)


def export_graphviz(estimator, out_file=None, *, feature_names=None, class_names=None,
                    decimals=DEFAULT_DECIMALS, filled=True, node_ids=True, rotate=False,
                    fontname="Helvetica"):
    """The fitted tree in Graphviz's DOT language.

    Decision nodes show their test in the data's units; leaves show the
    prediction, the number of training samples ``|R|`` and the training error
    ``L`` (weighted misclassified count, or mean squared error). The left edge
    of every node is taken when its test holds ("yes").

    Parameters
    ----------
    estimator : BivariateTreeClassifier or BivariateTreeRegressor
        A fitted estimator. A model selector (``TAOTreeClassifierCV``,
        ``CostComplexityCV``...) stands for its chosen tree, ``best_estimator_``.
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
    estimator = tree_estimator(estimator, "export_graphviz")  # a model selector: its chosen tree
    tree = estimator.tree_
    names = resolve_feature_names(estimator, feature_names)
    labels = resolve_class_labels(estimator, class_names)
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
            error = format_number(leaf_error(estimator, tree, node), decimals)
            if labels is None:
                text = (f"{head}value: {format_number(value[0], decimals)}\n|R| = {n}\n"
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
            # every node says where missing values go (predict routes them whether or
            # not the fit saw any): the side learned at fit, else the heavier child
            left = bool(tree.missing_go_left[node])
            rule = format_rule(tree.features[node], tree.weights[node], tree.threshold[node],
                               names, decimals, category_mask=tree.category_mask[node],
                               missing=left)
            text = f"{head}{rule}\n|R| = {n}"
            if not left and tree.threshold[node] < ALL_KNOWN_LEFT:
                # the "no" branch takes the missing values: say so under the test
                text += f"\n{missing_text(tree.features[node], names)}: no"
            lines.append(f'{node} [label="{_dot_string(text)}"];')
            lines.append(f'{node} -> {tree.children_left[node]} [label="yes"];')
            lines.append(f'{node} -> {tree.children_right[node]} [label="no"];')
    lines.append("}")
    source = "\n".join(lines) + "\n"
    if out_file is not None:
        with open(out_file, "w", encoding="utf-8") as fh:
            fh.write(source)
    return source
