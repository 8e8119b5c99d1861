"""Numbers, names and node tests as text, shared by every view of a tree.

The text exporters, the rule tables, the Graphviz source and the plots print the
same tests, numbers, feature names and class labels; they all take them from
here, so a rule reads the same wherever it appears.

- :func:`format_number`: a number rounded to significant digits, in plain notation;
- :func:`quoted_name`: a feature name as it appears inside a test, in backticks when
  it could read as part of the expression (a name such as ``debt-to-income``);
- :func:`format_rule` / :func:`format_categories`: a node's test, e.g.
  ``"x7 + 0.3 * x10 <= -0.1"`` or ``"colour in {1, 3}"``, with the missing values
  that take the branch (``"x7 <= 0.5 or x7 is missing"``, :func:`missing_text`);
- :func:`ratio_rule` with :func:`feature_signs`: a test through the origin as a ratio;
- :func:`resolve_feature_names` / :func:`resolve_class_labels`: display names of an
  estimator's features and classes;
- :func:`leaf_error`: a node's training error as a leaf, the ``L`` of the views.
"""

import numpy as np

from .._kernels.scan import ALL_KNOWN_LEFT
from .._tabular import reads_as_number
from ..tree import mask_to_categories, slot_masks

#: significant digits of weights, thresholds and values in every view of a tree (text,
#: rules, Graphviz, pictures, the HTML page and the command line), so that one rule reads
#: the same wherever it is printed.
DEFAULT_DECIMALS = 4

__all__ = [
    "DEFAULT_DECIMALS",
    "FeatureName",
    "feature_signs",
    "format_categories",
    "format_number",
    "format_rule",
    "indicator_reading",
    "leaf_error",
    "missing_text",
    "quoted_name",
    "ratio_rule",
    "resolve_class_labels",
    "resolve_feature_names",
]


def format_number(value, decimals):
    """``value`` rounded to ``decimals`` significant digits (``None``: exact shortest repr).

    Plain positional notation is used for magnitudes a reader meets in data
    (``13980`` rather than ``1.398e+04``); scientific notation only outside
    ``[1e-4, 1e15)``.

    Parameters
    ----------
    value : float
    decimals : int or None

    Returns
    -------
    str
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


#: characters that make a feature name read as part of a test's expression
_OPERATOR_CHARACTERS = frozenset("+-*/<>=!`[]{},|&")


def quoted_name(name):
    """``name`` as it appears inside a test: in backticks when it could be misread.

    A name holding an operator or a bracket (``debt-to-income``, ``x/y``,
    ``age>65``), one that reads as a number (``2``, ``1e3``), an empty one or
    one with spaces around it is written between backticks, a backtick in it
    doubled; any other name (``petal length (cm)`` included) as it is.
    """
    text = str(name)
    plain = (text and text == text.strip()
             and not _OPERATOR_CHARACTERS.intersection(text) and not reads_as_number(text))
    if plain:
        return text
    return "`" + text.replace("`", "``") + "`"


def format_categories(feature_name, categories, op="in"):
    """A category-set test as text, e.g. ``"colour in {1, 3, 4}"``.

    Parameters
    ----------
    feature_name : str
    categories : sequence of int
        Category codes of the set; printed as the category values when
        ``feature_name`` is a :class:`FeatureName` that carries them.
    op : {"in", "not in"}

    Returns
    -------
    str
    """
    labels = getattr(feature_name, "categories", None)
    shown = [labels[int(c)] if labels is not None and 0 <= int(c) < len(labels) else str(int(c))
             for c in categories]
    return f"{quoted_name(feature_name)} {op} {{{', '.join(shown)}}}"


def missing_text(features, feature_names, missing=True):
    """The samples missing a feature of a test, e.g. ``"x7 or x10 is missing"``.

    Parameters
    ----------
    features : sequence of int
        Slots of the node; features ``< 0`` are unused.
    feature_names : sequence of str
    missing : bool, default=True
        ``False`` gives the opposite, ``"x7 and x10 are not missing"``.

    Returns
    -------
    str
    """
    names = [quoted_name(feature_names[int(f)]) for f in features if f >= 0]
    if missing:
        return f"{' or '.join(names)} is missing"
    return f"{' and '.join(names)} {'is' if len(names) == 1 else 'are'} not missing"


def format_rule(features, weights, threshold, feature_names, decimals=DEFAULT_DECIMALS,
                op="<=",
                category_mask=0, missing=False, quote=True):
    """A node test as text, e.g. ``"x7 + 0.3 * x10 <= -0.1"`` or ``"colour in {1, 3}"``.

    An indicator slot (a category set in a node of two used slots) reads
    ``"x7 + 0.3 * [colour in {1, 3}] <= 2"``; a node of two indicator slots is
    a boolean combination of the two sets and reads as one, e.g.
    ``"colour in {1, 3} and size not in {0}"``.

    With ``missing`` the samples missing a feature of the test take this branch
    too: ``"x7 + 0.3 * x10 <= -0.1 or x7 or x10 is missing"``. The test that
    sends every known value left (threshold :data:`~bivtree._kernels.scan.ALL_KNOWN_LEFT`)
    reads ``"x7 is not missing"`` / ``"x7 is missing"``.

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
    category_mask : int or sequence of int, default=0
        The slots' category sets (an int: the first slot's). A nonzero first
        set with one used slot is a categorical node: the set of codes going
        left (bit ``c`` for code ``c``), printed instead of a comparison; with
        two used slots, the slots' indicator sets.
    missing : bool, default=False
        Whether the samples missing a feature of the test take this branch.
    quote : bool, default=True
        Write each name of a numeric slot as :func:`quoted_name` does; False
        takes ``feature_names`` as written already (terms composed by the caller).

    Returns
    -------
    str
    """
    clause = f" or {missing_text(features, feature_names)}" if missing else ""
    masks = slot_masks(category_mask, len(features))
    used = [k for k, f in enumerate(features) if f >= 0]
    if masks[0] and len(used) == 1:
        return format_categories(feature_names[int(features[0])],
                                 mask_to_categories(masks[0]), _SET_OPS[op]) + clause
    if len(used) == 2 and all(masks[k] for k in used) and op in ("<=", ">"):
        logic = _indicator_logic(features, weights, threshold, masks, feature_names, op == "<=")
        if clause and (" and " in logic or " or " in logic):
            logic = f"({logic})"  # "(a in A and b in B) or a or b is missing"
        return logic + clause
    if threshold >= ALL_KNOWN_LEFT and op in ("<=", ">"):
        # every known value goes left: the test is whether a value is missing
        return missing_text(features, feature_names, missing=op != "<=" or missing)
    terms = []
    for f, w, m in zip(features, weights, masks):
        if f < 0:
            continue
        name = feature_names[f]
        if m:
            name = f"[{format_categories(name, mask_to_categories(m))}]"
        elif quote:
            name = quoted_name(name)
        if not terms:
            terms.append(name if w == 1.0 else f"{format_number(w, decimals)} * {name}")
            continue
        sign = "-" if w < 0 else "+"
        magnitude = format_number(abs(w), decimals)
        # a unit weight reads "x - y", not "x - 1 * y"
        terms.append(f"{sign} {name}" if magnitude == "1" else f"{sign} {magnitude} * {name}")
    return f"{' '.join(terms)} {op} {format_number(threshold, decimals)}{clause}"


def indicator_reading(features, weights, threshold, feature_names, decimals=DEFAULT_DECIMALS,
                      op="<=", category_mask=0):
    """A test of one numeric slot and one indicator slot as its two thresholds, or None.

    ``x + w * [c in S] <= t`` holds for ``x <= t - w`` when ``c`` is in ``S`` and for
    ``x <= t`` otherwise, which reads ``"x <= t - w if c in S, else x <= t"`` (the
    comparison turned round when the numeric weight is negative). The thresholds
    are computed for reading: the node's own test is :func:`format_rule`'s. Any
    other test (and the one sending every known value left) gives None.

    Parameters
    ----------
    features, weights : sequences
        Slots of the node; features ``< 0`` are unused.
    threshold : float
    feature_names : sequence of str
    decimals : int or None
        Significant digits of the thresholds; ``None`` prints them exactly.
    op : {"<=", ">"}
        The test (left branch) or its negation (right branch).
    category_mask : int or sequence of int
        The slots' category sets (see :func:`format_rule`).

    Returns
    -------
    str or None
    """
    masks = slot_masks(category_mask, len(features))
    used = [k for k, f in enumerate(features) if f >= 0]
    numeric = [k for k in used if not masks[k]]
    indicator = [k for k in used if masks[k]]
    if (len(numeric) != 1 or len(indicator) != 1 or threshold >= ALL_KNOWN_LEFT
            or op not in ("<=", ">")):
        return None
    (x,), (z,) = numeric, indicator
    if weights[x] == 0.0:
        return None
    op = {(True, "<="): "<=", (True, ">"): ">", (False, "<="): ">=", (False, ">"): "<"}[
        (bool(weights[x] > 0), op)]
    name = quoted_name(feature_names[int(features[x])])
    inside = format_number((threshold - weights[z]) / weights[x], decimals)
    outside = format_number(threshold / weights[x], decimals)
    group = format_categories(feature_names[int(features[z])], mask_to_categories(masks[z]))
    return f"{name} {op} {inside} if {group}, else {name} {op} {outside}"


def _indicator_logic(features, weights, threshold, masks, feature_names, left):
    """A test of two indicator slots as the boolean rule it is.

    ``w1 * a + w2 * b <= t`` over indicators ``a``, ``b`` in {0, 1} holds for
    some of the four combinations; a linear test holds for one, two sharing a
    value of one indicator, or three of them (the others would need a sum to
    both pass and fail), so it reads as one set test, an ``and`` or an ``or``.
    ``left`` False gives the test's negation (the right branch).
    """
    (f1, f2), (w1, w2), (m1, m2) = ([features[k] for k in (0, 1)],
                                    [weights[k] for k in (0, 1)], [masks[k] for k in (0, 1)])
    holds = {(a, b): (w1 * a + w2 * b <= threshold) == left for a in (0, 1) for b in (0, 1)}
    texts = ([format_categories(feature_names[f1], mask_to_categories(m1), op)
              for op in ("not in", "in")],
             [format_categories(feature_names[f2], mask_to_categories(m2), op)
              for op in ("not in", "in")])
    true = [key for key, value in holds.items() if value]
    if len(true) == 2:
        # the two share one indicator's value: the other does not matter
        k = 0 if true[0][0] == true[1][0] else 1
        return texts[k][true[0][k]]
    if len(true) == 1:
        a, b = true[0]
        return f"{texts[0][a]} and {texts[1][b]}"
    if len(true) == 3:
        a, b = next(key for key, value in holds.items() if not value)
        return f"{texts[0][1 - a]} or {texts[1][1 - b]}"
    return "true" if true else "false"


class FeatureName(str):
    """A feature's display name that also carries its category values.

    It is the name itself for every use of a string; :func:`format_categories`
    reads ``categories`` (the text of each code, in code order) to print a
    category set as values (``color in {red, blue}``) rather than codes.
    """

    def __new__(cls, name, categories):
        self = super().__new__(cls, name)
        self.categories = list(categories)
        return self


def resolve_feature_names(estimator, feature_names=None):
    """Display names of a fitted estimator's features.

    Parameters
    ----------
    estimator : fitted estimator
        Anything with ``n_features_in_`` (and ``feature_names_in_`` after a fit on
        a DataFrame).
    feature_names : sequence, default=None
        Names chosen by the caller; by default ``feature_names_in_``, else
        ``x0, x1, ...``.

    Returns
    -------
    list of str
        One name per feature; a feature encoded as categories at fit gets a
        :class:`FeatureName`, which carries its category values.
    """
    n = estimator.n_features_in_
    if feature_names is None:
        names = getattr(estimator, "feature_names_in_", None)
        feature_names = list(names) if names is not None else [f"x{i}" for i in range(n)]
    feature_names = [str(f) for f in feature_names]
    if len(feature_names) != n:
        raise ValueError(f"feature_names has {len(feature_names)} names; the tree has {n} "
                         "features")
    from .._tabular import category_labels

    labels = category_labels(estimator)
    if labels is not None:
        feature_names = [name if cats is None else FeatureName(name, cats)
                         for name, cats in zip(feature_names, labels)]
    return feature_names


def resolve_class_labels(estimator, class_names=None):
    """Display names of a fitted classifier's classes (``None`` for a regressor).

    Parameters
    ----------
    estimator : fitted estimator
    class_names : sequence, default=None
        Names chosen by the caller, one per class of ``classes_``; by default
        the labels themselves (numpy scalars as Python scalars).

    Returns
    -------
    list or None
    """
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


def feature_signs(X, n_features):
    """The sign every feature keeps on ``X``, for :func:`ratio_rule`.

    Parameters
    ----------
    X : array-like of shape (n_samples, n_features) or None
    n_features : int

    Returns
    -------
    (sign, min_abs) or None
        Per feature, ``sign`` is ``+1`` if every known value in ``X`` is > 0,
        ``-1`` if every known value is < 0, else 0, and ``min_abs`` the smallest
        magnitude; ``None`` without data. Missing values (NaN) are left out.
    """
    if X is None:
        return None
    X = np.asarray(X, dtype=float)
    if X.ndim != 2 or X.shape[1] != n_features or X.shape[0] == 0:
        raise ValueError(f"X has shape {X.shape}; expected (n_samples >= 1, {n_features}) to "
                         "decide which features keep one sign")
    if np.isinf(X).any():
        raise ValueError("X contains infinity")
    # missing values (NaN) are left out; a column with none known keeps no sign
    lo, hi = np.fmin.reduce(X, axis=0), np.fmax.reduce(X, axis=0)
    signs = np.where(lo > 0, 1, np.where(hi < 0, -1, 0))
    return signs, np.nan_to_num(np.fmin.reduce(np.abs(X), axis=0), nan=np.inf)


#: a comparison after multiplying both sides by a negative number.
_FLIP = {"<=": ">=", ">": "<", ">=": "<=", "<": ">"}


def ratio_rule(features, weights, threshold, op, feature_names, signs,
               decimals=DEFAULT_DECIMALS, X=None):
    """A bivariate test (nearly) through the origin written as a ratio, or ``None``.

    ``x_j + w * x_k <= t`` with ``t`` zero is ``x_j / x_k <= -w`` where ``x_k > 0``
    (the comparison flips where ``x_k < 0``), e.g. ``waist - 0.5 * height > 0`` reads
    ``waist / height > 0.5``.

    The ratio is written only where it means the node's test at the printed
    digits. Where ``x_k`` keeps one sign the test is ``x_j / x_k <= rho(x_k)``
    with ``rho(x_k) = -w + t / x_k``: a ratio that drifts with ``x_k`` unless
    ``t`` is zero. The printed ratio ``r`` (``-w`` with ``decimals`` significant
    digits, read back) stands for the ratios within half a unit ``u`` of its last
    digit, so it is written only if ``|rho(x_k) - r| <= u`` for every ``x_k`` the
    data hold. ``rho`` is monotone in ``x_k`` and tends to ``-w``, itself within
    ``u`` of ``r``, for large ``|x_k|``: the test at the smallest ``|x_k|``,
    ``|-w - r + t / x_k| <= u``, covers every ``x_k`` of that sign beyond it, data
    or new samples. The two boundaries are then at most ``u * |x_k|`` apart at
    every such ``x_k``, as far as rounding ``w`` to ``decimals`` digits may move the
    linear form's boundary: only samples within that rounding of the boundary
    can read the other way, none farther. With ``X`` the printed ratio must also
    send every row of ``X`` (with both features known) the way the test does.
    With ``decimals=None`` only a threshold of exactly zero passes.

    Parameters
    ----------
    features, weights : sequences
        Slots of the node (first weight 1).
    threshold : float
    op : {"<=", ">"}
    feature_names : sequence of str
    signs : tuple (sign, min_abs) from data, or None
        ``sign[k]`` is +1 / -1 when feature ``k`` keeps that sign on the data, 0
        otherwise; ``min_abs[k]`` its smallest magnitude (see :func:`feature_signs`).
    decimals : int or None
        Significant digits of the ratio; ``None`` prints it exactly.
    X : array-like of shape (n_samples, n_features), default=None
        Rows the printed ratio must route as the test does (typically the data
        ``signs`` comes from); ``None`` checks no rows.

    Returns
    -------
    str or None
        ``None`` unless the node is bivariate, the denominator keeps one sign on
        the data and the printed ratio means the test as described above.
    """
    used = [(int(f), float(w)) for f, w in zip(features, weights) if f >= 0]
    if signs is None or len(used) != 2 or used[0][1] != 1.0:
        return None
    (j, _), (k, w) = used
    sign, min_abs = signs
    threshold = float(threshold)
    if sign[k] == 0 or w == 0.0 or not np.isfinite(threshold):
        return None
    text = format_number(-w, decimals)
    r = float(text)
    if decimals is None:
        faithful = threshold == 0.0 and r == -w
    else:
        # rho(x_k) - r where |x_k| is smallest, the farthest rho gets from -w
        drift = threshold / (sign[k] * float(min_abs[k]))
        faithful = abs((-w - r) + drift) <= _half_unit(-w, decimals)
    if not faithful:
        return None
    if X is not None:
        X = np.asarray(X, dtype=float)
        xj, xk = X[:, j], X[:, k]
        known = ~(np.isnan(xj) | np.isnan(xk))
        xj, xk = xj[known], xk[known]
        # the test as the tree computes it (the slots summed in order, from 0.0) ...
        goes_left = (0.0 + 1.0 * xj) + w * xk <= threshold
        # ... and the ratio as printed (a rule for one sign of x_k, read as written)
        with np.errstate(divide="ignore", invalid="ignore"):
            ratio = xj / xk
        reads_left = ratio <= r if sign[k] > 0 else ratio >= r
        if not np.array_equal(goes_left, reads_left):
            return None
    if sign[k] < 0:  # dividing by a negative denominator reverses the comparison
        op = _FLIP[op]
    return f"{quoted_name(feature_names[j])} / {quoted_name(feature_names[k])} {op} {text}"


def _half_unit(value, decimals):
    """Half a unit in the last digit :func:`format_number` keeps of ``value`` (nonzero).

    The exponent is taken from ``value`` and from its rounding and the smaller
    kept, as rounding can carry into the next power of ten (``0.99996`` prints as
    ``1`` at 4 digits, a rounding to ``0.0001``).
    """
    rounded = float(format_number(value, decimals))
    exponent = min(np.floor(np.log10(abs(v))) for v in (value, rounded))
    return 0.5 * 10.0 ** (exponent - decimals + 1)


def leaf_error(estimator, tree, node):
    """Training error of ``node`` as a leaf.

    Parameters
    ----------
    estimator : fitted estimator
        A classifier (with ``classes_``) or a regressor.
    tree : Tree
    node : int

    Returns
    -------
    float
        The weighted number of misclassified samples (classifier), or the mean
        squared error (regressor).
    """
    if getattr(estimator, "classes_", None) is None:
        return float(tree.impurity[node])
    value = tree.value[node]
    return float(tree.weighted_n_node_samples[node] - value.max())
