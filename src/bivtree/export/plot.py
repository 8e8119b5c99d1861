"""Pictures of bivariate trees: the tree with a scatter plot at every decision node.

A bivariate test ``x_j + w * x_k <= t`` is a straight line in the plane of its two
features, so the samples that reach a node can be drawn as a scatter plot with
the rule as that line (Kairgeldin & Carreira-Perpinan, KDD 2024, figures 7 and 8;
Bollwein & Westphal, figure 1). :func:`plot_tree` lays the whole tree out top
down with such a plot at every decision node; :func:`plot_split` draws one node
large.

How each kind of node is drawn:

- **bivariate** ``x_j + w * x_k <= t``: ``x_j`` across, ``x_k`` up, and the line;
- **univariate** ``x_j <= t``: against the node's most useful second feature
  (the one whose own best split of the node's samples is best), or as a strip
  plot of ``x_j`` per class (the target, for a regressor), with a vertical line;
- **three features** (MUST's ``s = 3``): the first two terms combined across,
  ``x_j + w_k * x_k``, the third feature up, so the test is still a line;
- **categorical** ``x_c in {...}``: one bar per category, its samples stacked by
  class (coloured by the mean target for a regressor), the categories of the
  set (those going left) shaded and their labels bold;
- **with an indicator slot** ``x_j + w * [x_c in {...}] <= t``: ``x_j`` across
  and the indicator up, as two rows (0: "not", 1: the set), the samples
  jittered inside their row; the test is a threshold on ``x_j`` per row, drawn
  as a short segment in each. A test of two indicators (``x_c in {...} and
  x_d in {...}``) is a 2 x 2 grid of the four combinations, those going left
  shaded.

The side where the test holds (the left child, "yes") is shaded. matplotlib is
an optional dependency, imported only inside these functions.
"""

import functools
import re
import warnings

import numpy as np

from .._config import DTYPE, ITYPE, LTYPE, TREE_LEAF
from .._kernels.scan import ALL_KNOWN_LEFT
from .._threads import deferred_sigint
from ..estimators import tree_estimator
from ..tree import codes_in_set, indicator_values, mask_to_categories
from .explanation import one_sample
from .formatting import (
    DEFAULT_DECIMALS,
    feature_signs,
    format_categories,
    format_number,
    format_rule,
    leaf_error,
    ratio_rule,
    resolve_class_labels,
    resolve_feature_names,
)
from .text import fitted_constraints

__all__ = ["drawable_depth", "plot_split", "plot_tree"]

# Layout sizes in inches: plot_tree draws in a coordinate system of inches, so
# text in points and scatter plots in inches keep their proportions.
_PLOT_SIDE = 1.55      # side of a node's scatter plot
_PLOT_SHIFT = 0.17     # plot right of the node's centre, leaving room for y tick labels
_DEC_WIDTH = 2.45      # a decision node drawn with its scatter plot
_TITLE_H = 0.24        # the "#id |R| L" line above a plot
_XLABEL_H = 0.37       # x tick labels and axis label below a plot
_GAP = 0.28            # between neighbouring nodes of one level
_EDGE_SPACE = 0.55     # between the bottom of one level and the top of the next
_BAND_GAP = 0.7        # between the columns of a wrapped tree
_STUB_SPACE = 0.5      # below a wrapped tree, for edges that continue in the next column
_HEADER = 0.62         # above the tree, for the class legend or colour bar
_MARGIN = 0.15
_BOX_PAD = 0.35        # padding of text boxes, in font sizes
# a centre of a node's test beyond this is no place to draw (the line of a test that
# sends every known value one way, or an overflowing ratio): the plot centres on 0
_LARGEST_CENTRE = 1e300
_BOX_SPACING = 1.15    # line spacing in text boxes
_RULE_SPACING = 1.1    # line spacing of the rule under a plot
#: plot_tree wraps a tall tree into columns to get close to this width : height ratio.
_TARGET_ASPECT = 1.6
#: most positions drawn as pies where samples pile up (beyond, plain points).
_MAX_PIES = 300
#: ... but only when the unwrapped picture is narrower than this width : height ratio
#: and taller than this many inches (a screen), so small trees stay in one piece.
_WRAP_BELOW = 0.8
_WRAP_HEIGHT = 12.0
#: depth drawn when plot_tree gets no ``max_depth``: deeper subtrees become "..." boxes.
#: A picture of more levels is unreadable, and laying out thousands of levels (a valid
#: tree may have them) would take minutes.
DEFAULT_MAX_DRAWN_DEPTH = 40
#: most boxes on the bottom of a picture (leaves and "..." boxes of cut subtrees) that
#: :func:`drawable_depth` allows: 32 boxes are about 50 inches wide, 5,000 pixels at 100 dpi.
MAX_DRAWN_BOXES = 32


def _pyplot():
    try:
        import matplotlib.pyplot as plt
    except ImportError:
        raise ImportError("bivtree's plots need matplotlib; install it with "
                          "pip install \"bivtree[plot]\"") from None
    return plt


def _escape(text):
    """Text drawn literally: a ``$`` would otherwise start matplotlib's math mode."""
    return str(text).replace("$", r"\$")


def _pretty(rule):
    """Rule text for pictures: ``≤`` and ``·`` read better than ``<=`` and ``*``."""
    return rule.replace(" <= ", " ≤ ").replace(" >= ", " ≥ ").replace(" * ", "·")


def _wrap(text, width):
    """Lines of at most ``width`` characters, broken before a term or the comparison."""
    # a category set also breaks after its commas
    parts = re.split(r" (?=(?:[+\-]|≤|>|≥|<) )|(?<=,) (?=\d)", text)
    lines = [parts[0]]
    for part in parts[1:]:
        if len(lines[-1]) + 1 + len(part) <= width:
            lines[-1] += " " + part
        else:
            lines.append(part)
    return lines


def _class_colours(n):
    """One colour per class: matplotlib's tab10 / tab20, then evenly spaced hues."""
    import matplotlib

    if n <= 10:
        return [matplotlib.colormaps["tab10"](i) for i in range(n)]
    if n <= 20:
        return [matplotlib.colormaps["tab20"](i) for i in range(n)]
    return [matplotlib.colormaps["hsv"](i / n) for i in range(n)]


# --------------------------------------------------------------------------- data
class _Data:
    """The samples handed to a plot, validated once, and the rows reaching each node."""

    def __init__(self, estimator, X, y):
        tree = estimator.tree_
        self.X = self.codes = self.values = self.rows = None
        self.classes = getattr(estimator, "classes_", None)
        self._fortran = None
        if X is None:
            if y is not None:
                raise ValueError("y was given without X; pass the samples X to draw")
            return
        # the estimator's own validation: names, number of features, NaN
        self.X = estimator._validate_X_predict(X)
        paths = tree.decision_path(self.X).tocsc()
        self.rows = [paths.indices[paths.indptr[i]:paths.indptr[i + 1]]
                     for i in range(tree.node_count)]
        if y is None:
            return
        y = np.asarray(y)
        if y.ndim != 1 or y.shape[0] != self.X.shape[0]:
            raise ValueError(f"y has shape {y.shape}; expected ({self.X.shape[0]},) to match X")
        if self.classes is not None:
            index = {c: i for i, c in enumerate(self.classes.tolist())}
            codes = np.array([index.get(v, -1) for v in y.tolist()], dtype=LTYPE)
            if np.any(codes < 0):
                unknown = sorted({repr(v) for v in y[codes < 0].tolist()})
                raise ValueError(f"y holds labels the classifier does not know: "
                                 f"{', '.join(unknown[:5])}; its classes are "
                                 f"{self.classes.tolist()}")
            self.codes = codes
        else:
            try:
                values = y.astype(DTYPE)
            except (TypeError, ValueError):
                raise ValueError("y of a regressor must be numeric") from None
            if not np.all(np.isfinite(values)):
                raise ValueError("y contains NaN or infinity")
            self.values = values

    @property
    def has_data(self):
        return self.X is not None

    @property
    def has_y(self):
        return self.codes is not None or self.values is not None

    def fortran(self):
        if self._fortran is None:
            self._fortran = np.asfortranarray(self.X)
        return self._fortran


def _node_stats(estimator, data, node):
    """``(|R|, L)`` of a node: counted on the given data, else the training statistics."""
    tree = estimator.tree_
    if data.has_y:
        rows = data.rows[node]
        if data.codes is not None:
            prediction = int(np.argmax(tree.value[node]))
            return rows.size, float(np.count_nonzero(data.codes[rows] != prediction))
        if rows.size == 0:
            return 0, 0.0
        return rows.size, float(np.mean((data.values[rows] - tree.value[node, 0]) ** 2))
    return int(tree.n_node_samples[node]), leaf_error(estimator, tree, node)


def _stats_text(estimator, n, error):
    name = "L" if getattr(estimator, "classes_", None) is not None else "MSE"
    # counts are shown whole (rounding 1234 errors to 1230 would misreport them)
    shown = str(int(error)) if float(error).is_integer() else format_number(error, 3)
    return f"|R| = {n}   {name} = {shown}"


# --------------------------------------------------------------------------- node views
def _check_second_feature(second_feature, names):
    if second_feature in ("best", "strip"):
        return second_feature
    if isinstance(second_feature, str):
        if second_feature not in names:
            raise ValueError(f"second_feature {second_feature!r} is not a feature name; use "
                             "'best', 'strip', a feature name or an index")
        return names.index(second_feature)
    if isinstance(second_feature, (int, np.integer)) and not isinstance(second_feature, bool):
        if not 0 <= second_feature < len(names):
            raise ValueError(f"second_feature {second_feature} is out of range "
                             f"[0, {len(names)})")
        return int(second_feature)
    raise ValueError(f"second_feature must be 'best', 'strip', a feature name or an index, "
                     f"got {second_feature!r}")


def _best_second(estimator, data, node, feature):
    """The numeric feature (other than ``feature``) with the best split of the node's samples.

    The node's samples are searched with the univariate splitter under the
    estimator's criterion; without labels, or when no feature splits them, the
    most important other feature is used (``None`` if there is no other).
    """
    n_features = estimator.n_features_in_
    # a categorical feature's codes have no order to draw an axis on
    categorical = getattr(estimator, "is_categorical_", None)
    others = np.array([g for g in range(n_features) if g != feature
                       and (categorical is None or not categorical[g])], dtype=ITYPE)
    if others.size == 0:
        return None
    rows = data.rows[node] if data.has_data else np.empty(0, dtype=ITYPE)
    if data.has_y and rows.size >= 2:
        from .._kernels.criteria import summarize_samples
        from ..splitters import SplitData
        from ..splitters.univariate import best_univariate_split

        n = data.X.shape[0]
        classifier = data.codes is not None
        split_data = SplitData(
            X=data.fortran(),
            labels=data.codes if classifier else np.zeros(n, dtype=LTYPE),
            targets=np.zeros(n, dtype=DTYPE) if classifier else data.values,
            sample_weight=np.ones(n, dtype=DTYPE),
            n_classes=len(data.classes) if classifier else 1,
            criterion=estimator._criterion_code())
        samples = np.ascontiguousarray(rows, dtype=ITYPE)
        # compiled searches, as in a fit: Ctrl-C is raised after them, never inside
        with deferred_sigint():
            split = best_univariate_split(split_data, samples, others)
            # a feature whose best split removes no impurity is no more useful than any other
            _, weight, node_impurity = summarize_samples(
                samples, split_data.labels, split_data.targets, split_data.sample_weight,
                split_data.n_classes, split_data.criterion)
        if split is not None and split.objective < weight * node_impurity * (1.0 - 1e-9):
            return int(split.features[0])
    importances = np.asarray(getattr(estimator, "feature_importances_", np.zeros(n_features)))
    if importances[others].max(initial=0.0) <= 0.0:
        return int(others[0])
    return int(others[np.argmax(importances[others])])


class _View:
    """What one decision node's scatter plot shows.

    The samples are the points ``(u, v)`` and the node's test is ``a * u + b * v
    <= t``, the same inequality as the stored rule.
    """

    def __init__(self, u, v, a, b, t, xlabel, ylabel, rows, strip=False):
        self.u, self.v, self.a, self.b, self.t = u, v, a, b, t
        self.xlabel, self.ylabel, self.rows, self.strip = xlabel, ylabel, rows, strip
        # the side of samples missing a feature of the test (set by _make_view)
        self.missing_left = False
        # how a sample's position is computed (see _sample_point): ``u`` is the sum of
        # ``w * x[f]`` over ``u_terms``, ``v`` is ``x[v_feature]`` (None: not a feature)
        self.u_terms, self.v_feature = [], None


class _CategoryView:
    """What a categorical node's plot shows: its samples' codes and the set going left.

    ``u`` holds the node's samples' values of the feature; ``categories`` the
    values drawn as bars (those of the samples and those of the set, sorted,
    then one NaN for the missing values when a sample misses the feature) and
    ``left`` whether each one goes left (the missing bar: ``missing_left``,
    the node's side for missing values). ``feature`` is the feature's index.
    """

    strip = False

    def __init__(self, u, category_mask, xlabel, rows, feature, extra=(), missing_left=False):
        self.u, self.xlabel, self.rows, self.feature = u, xlabel, rows, feature
        self.missing_left = bool(missing_left)
        set_codes = np.asarray(mask_to_categories(category_mask), dtype=DTYPE)
        # ``extra``: values drawn as bars even without samples (a highlighted sample's);
        # np.unique sorts NaN last and keeps one of them
        self.categories = np.unique(np.concatenate([u, set_codes,
                                                    np.asarray(extra, dtype=DTYPE)]))
        # the tree's test (traversal.in_category_set), category by category
        self.left = codes_in_set(self.categories, category_mask)
        self.missing = np.isnan(self.categories)
        self.left[self.missing] = self.missing_left

    def count(self, value):
        """Samples of the node with the feature's ``value`` (NaN: missing)."""
        if np.isnan(value):
            return int(np.count_nonzero(np.isnan(self.u)))
        return int(np.count_nonzero(self.u == value))


#: half the height of a row (and width of a column) of indicator values, where the
#: test is shaded and its segment drawn; the samples are jittered within +-_JITTER.
_BAND = 0.42
_JITTER = 0.3


class _IndicatorView:
    """What a linear node with an indicator slot shows (see ``traversal.goes_left``).

    The node's test sums ``w_k * v_k`` over its slots, where ``v_k`` is a
    feature's value or, in an indicator slot, the indicator (0 or 1) of a
    category set. Across (``u``): the numeric slots' terms (one feature, with
    weight ``a``, or several summed in slot order, ``a = 1``), or, in a node
    without numeric slots, the first indicator, as two columns (0 and 1). Up
    (``v``): one row per combination of the other indicators (``row_slots``),
    row ``r`` holding the samples whose indicators are the binary digits of
    ``r``, the first slot the lowest. Points are jittered inside their row and
    column only, so each keeps its side of the test; a sample missing a
    feature of the test has NaN coordinates (the missing strip).

    Attributes
    ----------
    slots : list of (feature, weight, mask)
        The used slots, in slot order (mask 0: a numeric slot).
    column : int or None
        Index in ``slots`` of the indicator across; ``None``: the numeric terms are.
    row_slots : list of int
        Indices in ``slots`` of the indicators up.
    u_terms : list of (feature, weight)
        ``u`` is the sum of ``w * x[f]`` over them (numeric across).
    cuts : list of float or None
        Per row, the value of ``u`` where the test changes (numeric across), ``None``
        where the row's samples all go the same way (``a == 0``).
    """

    strip = False

    def __init__(self, slots, threshold, X, rows, names, rng, decimals):
        self.slots, self.t, self.rows = slots, float(threshold), rows
        self.missing_left = False
        numeric = [k for k, (_, _, m) in enumerate(slots) if m == 0]
        indicators = [k for k, (_, _, m) in enumerate(slots) if m != 0]
        n = rows.size
        if numeric:
            self.column, self.row_slots = None, indicators
            self.u_terms = [(slots[k][0], slots[k][1]) for k in numeric]
            if len(numeric) == 1:
                f, self.a = self.u_terms[0][0], self.u_terms[0][1]
                self.u_terms = [(f, 1.0)]
                self.u, self.xlabel = X[:, f].astype(DTYPE), names[f]
            else:
                # several numeric terms combined across, summed in slot order as the tree does
                self.a = 1.0
                self.u = np.zeros(n)
                for f, w in self.u_terms:
                    self.u = self.u + w * X[:, f]
                text = format_rule([f for f, _ in self.u_terms], [w for _, w in self.u_terms],
                                   0.0, names, decimals)
                self.xlabel = _pretty(text.rsplit(" <= ", 1)[0])
            self.x_ticks = None
        else:
            self.column, self.row_slots = indicators[0], indicators[1:]
            self.a, self.u_terms = None, []
            f, _, mask = slots[self.column]
            self.u = indicator_values(X[:, f], mask) + rng.uniform(-_JITTER, _JITTER, size=n)
            self.xlabel = names[f]
            self.x_ticks = self._set_labels(names, [self.column])
        row = np.zeros(n)
        for j, k in enumerate(self.row_slots):
            f, _, mask = slots[k]
            row = row + indicator_values(X[:, f], mask) * (1 << j)
        self.n_rows = 1 << len(self.row_slots)
        self.v = row + rng.uniform(-_JITTER, _JITTER, size=n)
        self.ylabel = names[slots[self.row_slots[0]][0]] if len(self.row_slots) == 1 else ""
        self.y_ticks = self._set_labels(names, self.row_slots)
        self.cuts = [self._cut(r) for r in range(self.n_rows)] if self.column is None else None

    def _set_labels(self, names, slot_ids):
        """Tick labels of the combinations of ``slot_ids``' indicators, in row order."""
        labels = []
        for r in range(1 << len(slot_ids)):
            parts = []
            for j, k in enumerate(slot_ids):
                f, _, mask = self.slots[k]
                bit = (r >> j) & 1
                if len(slot_ids) == 1 and not bit:
                    parts.append("not")  # beside the set's own label, "not" says it all
                else:
                    parts.append(format_categories(names[f], mask_to_categories(mask),
                                                   "in" if bit else "not in"))
            labels.append(", ".join(parts))
        return labels

    def goes_left(self, values):
        """The test on one combination of slot values (in slot order), as the tree sums it."""
        s = 0.0
        for (_, w, _), value in zip(self.slots, values):
            s += w * value
        return s <= self.t

    def _row_values(self, r, across):
        """The slot values of row ``r`` with ``across`` in the slot(s) across."""
        values = [0.0] * len(self.slots)
        for j, k in enumerate(self.row_slots):
            values[k] = float((r >> j) & 1)
        if self.column is not None:
            values[self.column] = across
        return values

    def _cut(self, r):
        """Where the test changes along ``u`` in row ``r`` (``a u + offset <= t``)."""
        offset = 0.0
        for j, k in enumerate(self.row_slots):
            offset += self.slots[k][1] * ((r >> j) & 1)
        if self.a == 0.0:
            return None
        return (self.t - offset) / self.a

    def pieces(self):
        """The test's answer over the plot: ``(u0, u1, v0, v1, left)`` rectangles.

        One per row and side of its cut (``u`` ends may be infinite), or one per
        cell of the grid of two indicators.
        """
        out = []
        for r in range(self.n_rows):
            v0, v1 = r - _BAND, r + _BAND
            if self.column is not None:
                for c in (0, 1):
                    out.append((c - _BAND, c + _BAND, v0, v1,
                                self.goes_left(self._row_values(r, float(c)))))
                continue
            cut = self.cuts[r]
            if cut is None:
                offset_only = self._row_values(r, 0.0)
                out.append((-np.inf, np.inf, v0, v1, self.goes_left(offset_only)))
                continue
            below = self.a > 0.0  # a negative weight flips the side of the cut that holds
            out.append((-np.inf, cut, v0, v1, below))
            out.append((cut, np.inf, v0, v1, not below))
        return out

    def box(self):
        """Axis limits: the samples and the rows' cuts near them across, the rows up."""
        if self.column is not None:
            return -0.5, 1.5, -0.5, self.n_rows - 0.5
        # a test sending every known value left (ALL_KNOWN_LEFT) has no cut to show
        cuts = np.array([] if self.t >= ALL_KNOWN_LEFT else [
            c for c in self.cuts if c is not None and np.isfinite(c)])
        known = self.u[np.isfinite(self.u)]
        if known.size:
            # a cut far beyond the samples (their whole row goes one way, as the
            # shading shows) would squeeze them into a corner: only near ones widen
            lo, hi = known.min(), known.max()
            reach = max(hi - lo, 1e-12)
            cuts = cuts[(cuts >= lo - reach) & (cuts <= hi + reach)]
        centre = cuts[0] if cuts.size else 0.0
        u0, u1 = _span(np.concatenate([self.u, cuts]), (centre - 1.0, centre + 1.0))
        return u0, u1, -0.5, self.n_rows - 0.5

    def position(self, x):
        """Where the sample ``x`` (a 1-D row) lies: no jitter, NaN when it misses a value."""
        if self.column is not None:
            f, _, mask = self.slots[self.column]
            u = float(indicator_values(x[f], mask))
        else:
            u = 0.0
            for f, w in self.u_terms:
                u = u + w * x[f]
        v = 0.0
        for j, k in enumerate(self.row_slots):
            f, _, mask = self.slots[k]
            v += float(indicator_values(x[f], mask)) * (1 << j)
        return float(u), float(v)


def _make_view(estimator, data, node, names, second, rng, decimals, target_name="target",
               sample=None):
    """The :class:`_View`, :class:`_CategoryView` or :class:`_IndicatorView` of ``node``.

    ``sample`` (a 1-D row or None) is a sample to be marked on the plot: a
    categorical node then also draws the bar of its category.
    """
    tree = estimator.tree_
    rows = data.rows[node] if data.has_data else np.empty(0, dtype=ITYPE)
    if tree.categorical_mask(node):
        f = int(tree.features[node, 0])
        u = data.X[rows, f] if data.has_data else np.empty(0)
        extra = () if sample is None else (sample[f],)
        return _CategoryView(u, tree.categorical_mask(node), names[f], rows, f, extra,
                             missing_left=tree.missing_go_left[node])
    used = np.flatnonzero(tree.features[node] >= 0)
    if np.any(tree.category_mask[node] != 0):
        slots = [(int(tree.features[node, k]), float(tree.weights[node, k]),
                  int(tree.category_mask[node, k])) for k in used]
        X = data.X[rows] if data.has_data else np.empty((0, tree.n_features))
        view = _IndicatorView(slots, tree.threshold[node], X, rows, names, rng, decimals)
        view.missing_left = bool(tree.missing_go_left[node])
        return view
    view = _make_numeric_view(estimator, data, node, names, second, rng, decimals,
                              target_name)
    view.missing_left = bool(tree.missing_go_left[node])
    feats = [int(f) for f in tree.features[node][used]]
    if len(feats) >= 3:
        view.u_terms = list(zip(feats[:-1], tree.weights[node][used][:-1].tolist()))
    else:
        view.u_terms = [(feats[0], 1.0)]
    if len(feats) >= 2:
        view.v_feature = feats[-1]
    return view


def _make_numeric_view(estimator, data, node, names, second, rng, decimals, target_name):
    tree = estimator.tree_
    used = tree.features[node] >= 0
    feats = tree.features[node][used]
    wts = tree.weights[node][used]
    t = float(tree.threshold[node])
    rows = data.rows[node] if data.has_data else np.empty(0, dtype=ITYPE)
    Xn = data.X[rows] if data.has_data else np.empty((0, tree.n_features))
    if feats.size >= 3:
        # the first terms combined, summed in slot order as the tree does
        u = np.zeros(rows.size)
        for f, w in zip(feats[:-1], wts[:-1]):
            u = u + w * Xn[:, f]
        combined = format_rule(feats[:-1], wts[:-1], 0.0, names, decimals).rsplit(" <= ", 1)[0]
        return _View(u, Xn[:, feats[-1]], 1.0, float(wts[-1]), t, _pretty(combined),
                     names[feats[-1]], rows)
    a = float(wts[0])
    if feats.size == 2:
        return _View(Xn[:, feats[0]], Xn[:, feats[1]], a, float(wts[1]), t,
                     names[feats[0]], names[feats[1]], rows)
    f = int(feats[0])
    u = Xn[:, f]
    g = None
    if second == "best":
        g = _best_second(estimator, data, node, f)
    elif second != "strip" and second != f:
        g = second
    if g is not None:
        view = _View(u, Xn[:, g], a, 0.0, t, names[f], names[g], rows)
        view.v_feature = int(g)
        return view
    # strip plot: one row per class (jittered only vertically, so each sample keeps
    # its side of the line), or the target of a regressor
    jitter = rng.uniform(-0.28, 0.28, size=rows.size)
    if data.codes is not None:
        return _View(u, data.codes[rows] + jitter, a, 0.0, t, names[f], "class", rows,
                     strip=True)
    if data.values is not None:
        return _View(u, data.values[rows], a, 0.0, t, names[f], target_name, rows)
    return _View(u, jitter, a, 0.0, t, names[f], "", rows, strip=True)


# --------------------------------------------------------------------------- geometry
def _clip_half_plane(poly, a, b, t, keep_le):
    """The polygon ``poly`` cut to ``a u + b v <= t`` (``keep_le``) or ``>= t``."""
    def side(p):
        s = a * p[0] + b * p[1] - t
        return s if keep_le else -s

    out = []
    for i in range(len(poly)):
        p, q = poly[i], poly[(i + 1) % len(poly)]
        sp, sq = side(p), side(q)
        if sp <= 0:
            out.append(p)
        if (sp < 0 < sq) or (sq < 0 < sp):
            r = sp / (sp - sq)
            out.append((p[0] + r * (q[0] - p[0]), p[1] + r * (q[1] - p[1])))
    return out


def _line_in_box(a, b, t, box):
    """End points of ``a u + b v = t`` inside ``box = (u0, u1, v0, v1)``, or None."""
    u0, u1, v0, v1 = box
    points = []
    if b != 0.0:
        for u in (u0, u1):
            v = (t - a * u) / b
            if v0 <= v <= v1:
                points.append((u, v))
    if a != 0.0:
        for v in (v0, v1):
            u = (t - b * v) / a
            if u0 <= u <= u1:
                points.append((u, v))
    if len(points) < 2:
        return None
    points.sort()
    return points[0], points[-1]


def _span(values, fallback):
    """Axis limits around the finite ``values`` (``fallback`` when there are none), padded.

    The padding is halved until the limits are finite, so values near the largest
    double still give finite axis limits (matplotlib and JSON refuse infinite ones).
    """
    values = values[np.isfinite(values)]  # missing values are drawn beside the plot
    if values.size:
        lo, hi = float(values.min()), float(values.max())
    else:
        lo, hi = fallback
    with np.errstate(over="ignore"):
        pad = max(abs(lo) * 0.05, 0.5) if not hi > lo else 0.06 * (np.float64(hi) - lo)
        while pad > 0 and not (np.isfinite(lo - pad) and np.isfinite(hi + pad)):
            pad = pad / 2.0 if np.isfinite(pad) else np.finfo(np.float64).max / 16
    return float(lo - pad), float(hi + pad)


def _box(view, data):
    """Axis limits of a node's plot: its samples, extended so the split line crosses."""
    if isinstance(view, _IndicatorView):
        return view.box()
    n_classes = len(data.classes) if data.classes is not None else 0
    # a node no sample with known values reaches still shows its line; a test that sends
    # every known value one way (threshold ALL_KNOWN_LEFT) has no line, so no centre
    centre = view.t / view.a if view.a and view.t < ALL_KNOWN_LEFT else 0.0
    if not abs(centre) <= _LARGEST_CENTRE:
        centre = 0.0
    u0, u1 = _span(view.u, (centre - 1.0, centre + 1.0))
    if view.strip:
        v0, v1 = (-0.6, n_classes - 0.4) if data.codes is not None else (-0.6, 0.6)
    else:
        v0, v1 = _span(view.v, (0.0, 1.0))
    if _line_in_box(view.a, view.b, view.t, (u0, u1, v0, v1)) is None:
        # the test lies outside the samples (possible for data other than the
        # training set): widen the box until the line shows
        box = (u0, u1, v0, v1)
        if view.b == 0.0:
            u = view.t / view.a
            pad = 0.06 * (max(u1, u) - min(u0, u))
            u0, u1 = min(u0, u - pad), max(u1, u + pad)
        else:
            um = 0.5 * (u0 + u1)
            v = (view.t - view.a * um) / view.b
            pad = 0.06 * (max(v1, v) - min(v0, v))
            v0, v1 = min(v0, v - pad), max(v1, v + pad)
        if not np.all(np.isfinite((u0, u1, v0, v1))):
            # a test that sends every known value one way (threshold ALL_KNOWN_LEFT, the
            # missing ones the other) has no line to show: keep the samples' box
            u0, u1, v0, v1 = box
    return u0, u1, v0, v1


# --------------------------------------------------------------------------- drawing
def _category_label(value, values=None):
    """A bar's label: the category's value when known, else its code ("missing" for NaN)."""
    if np.isnan(value):
        return "missing"
    if values is not None and float(value).is_integer() and 0 <= value < len(values):
        return values[int(value)]
    return str(int(value)) if float(value).is_integer() else format_number(value, 4)


def _draw_categories(ax, view, data, colours, norm, cmap, fontsize, class_names,
                     sample=None):
    """Bars per category of a categorical node on ``ax``; the set going left shaded.

    The shading is one collection of rectangles with gid ``"yes-region"``, one
    per category of the set, spanning the plot's height. ``sample`` is None or
    ``(position, label, size)`` of a sample's marker (see :func:`_draw_sample`).
    """
    from matplotlib.collections import PatchCollection
    from matplotlib.patches import Rectangle

    cats = view.categories
    k = cats.size
    where = np.searchsorted(cats, view.u)
    positions = np.arange(k)
    heights = np.bincount(where, minlength=k).astype(float)
    # the shaded set behind everything: x in data units, y across the whole axes
    shade = PatchCollection(
        [Rectangle((j - 0.5, 0.0), 1.0, 1.0) for j in np.flatnonzero(view.left)],
        facecolor="0.55", alpha=0.13, edgecolor="none", zorder=0,
        transform=ax.get_xaxis_transform())
    shade.set_gid("yes-region")
    ax.add_collection(shade)
    if data.codes is not None:
        counts = np.zeros((k, len(colours)))
        np.add.at(counts, (where, data.codes[view.rows]), 1.0)
        bottom = np.zeros(k)
        for c in range(len(colours)):
            if counts[:, c].any():
                ax.bar(positions, counts[:, c], bottom=bottom, width=0.7, color=colours[c],
                       linewidth=0, zorder=3)
            bottom += counts[:, c]
    elif data.values is not None:
        sums = np.bincount(where, weights=data.values[view.rows], minlength=k)
        means = np.divide(sums, heights, out=np.zeros(k), where=heights > 0)
        ax.bar(positions, heights, width=0.7, color=[cmap(norm(m)) for m in means],
               linewidth=0, zorder=3)
    else:
        ax.bar(positions, heights, width=0.7, color="0.35", linewidth=0, zorder=3)
    ax.set_xlim(-0.6, k - 0.4)
    # headroom above the bars for the counts of the two sides (plot_split)
    ax.set_ylim(0.0, max(float(heights.max(initial=0.0)), 1.0) * 1.3)
    ax.set_xticks(positions)
    # a feature encoded at fit carries its category values (formatting.FeatureName)
    values = getattr(view.xlabel, "categories", None)
    labels = ax.set_xticklabels([_category_label(c, values) for c in cats],
                                rotation=90 if k > 8 else 0)
    for label, left, missing in zip(labels, view.left, view.missing):
        if left:
            label.set_fontweight("bold")
        if missing:
            label.set_fontstyle("italic")
    if view.missing.any():
        # the missing values' bar (last) set apart from the categories, as the strip is
        ax.axvline(k - 1.5, color="0.3", lw=0.6, ls=(0, (2, 2)), zorder=1)
    ax.set_xlabel(_escape(view.xlabel), fontsize=fontsize, labelpad=1)
    ax.set_ylabel("samples", fontsize=fontsize, labelpad=1)
    ax.tick_params(labelsize=fontsize - 1, length=2, pad=1)
    if sample is not None:
        _draw_sample(ax, *sample)
    return view.u.size


def _draw_scatter(ax, view, data, colours, norm, cmap, size, fontsize, class_names,
                  max_points, rng, sample=None):
    """Points, shaded "yes" side and split line of one node on ``ax``.

    A node with an indicator slot shades the pieces of its rows (or grid) that
    go left and draws each row's cut as a segment (:func:`_draw_indicator_test`).
    ``sample`` is None or ``(position, label, size)``: a sample marked on the
    plot (:func:`_draw_sample`), the limits widened to show it. When fewer
    points are drawn than the node holds, a text with gid ``"subsample"`` says
    how many are shown.
    """
    if isinstance(view, _CategoryView):
        return _draw_categories(ax, view, data, colours, norm, cmap, fontsize, class_names,
                                sample)

    box = _box(view, data)
    if sample is not None:
        box = _include(box, sample[0])
    u0, u1, v0, v1 = box
    if isinstance(view, _IndicatorView):
        _draw_indicator_test(ax, view, box)
    else:
        _draw_line_test(ax, view, box)

    n = view.u.size
    shown = np.arange(n)
    if n > max_points:
        shown = np.sort(rng.choice(n, max_points, replace=False))
    u, v = view.u[shown], view.v[shown]
    rows = view.rows[shown]
    known = np.isfinite(u) & np.isfinite(v)
    _draw_points(ax, u[known], v[known], rows[known], data, colours, norm, cmap, size)
    # a highlighted sample missing a feature of the test is marked in the strip too
    sample_missing = sample is not None and not np.all(np.isfinite(sample[0]))
    strip = None
    if not known.all() or sample_missing:
        strip = _draw_missing_strip(ax, view, v[~known], rows[~known], (u0, u1, v0, v1), data,
                                    colours, norm, cmap, size, rng)
        if sample_missing:
            y = sample[0][1] if np.isfinite(sample[0][1]) else 0.5 * (v0 + v1)
            sample = ((0.5 * (strip[0] + strip[1]), y), *sample[1:])

    ax.set_xlim(u0, u1 if strip is None else strip[1])
    ax.set_ylim(v0, v1)
    ax.set_xlabel(_escape(view.xlabel), fontsize=fontsize, labelpad=1)
    ax.set_ylabel(_escape(view.ylabel), fontsize=fontsize, labelpad=1)
    ax.tick_params(labelsize=fontsize - 1, length=2, pad=1)
    if view.strip:
        if data.codes is not None:
            ax.set_yticks(range(len(class_names)))
            ax.set_yticklabels([_escape(c) for c in class_names])
        else:
            ax.set_yticks([])
    if isinstance(view, _IndicatorView):
        _indicator_ticks(ax, view)
    if strip is not None:
        # after the ticks above: the strip's axis segment wraps whatever they chose
        _break_axis(ax, (u0, u1), strip)
    if shown.size < n:
        ax.text(0.98, 0.02, f"{shown.size:,} of {n:,} shown", transform=ax.transAxes,
                ha="right", va="bottom", fontsize=fontsize - 1.5, color="0.2", zorder=5,
                gid="subsample",
                bbox={"boxstyle": "round,pad=0.15", "fc": "white", "ec": "none", "alpha": 0.7})
    if sample is not None:
        _draw_sample(ax, *sample)
    return shown.size


def _draw_line_test(ax, view, box):
    """The "yes" side of ``a u + b v <= t`` shaded (gid ``"yes-region"``) and its line
    (gid ``"split"``) inside ``box``."""
    from matplotlib.patches import Polygon

    u0, u1, v0, v1 = box
    rect = [(u0, v0), (u1, v0), (u1, v1), (u0, v1)]
    yes = _clip_half_plane(rect, view.a, view.b, view.t, keep_le=True)
    if len(yes) >= 3:
        ax.add_patch(Polygon(yes, closed=True, facecolor="0.55", alpha=0.13, edgecolor="none",
                             zorder=0, gid="yes-region"))
    line = _line_in_box(view.a, view.b, view.t, box)
    if line is not None:
        ax.plot([line[0][0], line[1][0]], [line[0][1], line[1][1]], color="black", lw=1.4,
                zorder=4, gid="split")


def _clipped_pieces(view, box, left=None):
    """:meth:`_IndicatorView.pieces` cut to ``box``: those of one side (``left``) or all."""
    u0, u1, _, _ = box
    out = []
    for a, b, v0, v1, goes in view.pieces():
        a, b = max(a, u0), min(b, u1)
        if b > a and (left is None or goes == left):
            out.append((a, b, v0, v1, goes))
    return out


def _draw_indicator_test(ax, view, box):
    """The test of an :class:`_IndicatorView` inside ``box``.

    The pieces going left are shaded, one collection with gid ``"yes-region"``;
    the cut of each row (numeric across) is a short vertical segment across
    the row, all of them one collection with gid ``"split"``.
    """
    from matplotlib.collections import LineCollection, PatchCollection
    from matplotlib.patches import Rectangle

    shade = PatchCollection([Rectangle((a, v0), b - a, v1 - v0)
                             for a, b, v0, v1, _ in _clipped_pieces(view, box, left=True)],
                            facecolor="0.55", alpha=0.13, edgecolor="none", zorder=0)
    shade.set_gid("yes-region")
    ax.add_collection(shade)
    if view.cuts is None:
        return
    u0, u1, _, _ = box
    segments = [[(c, r - _BAND), (c, r + _BAND)] for r, c in enumerate(view.cuts)
                if c is not None and u0 <= c <= u1]
    split = LineCollection(segments, colors="black", linewidths=1.4, zorder=4)
    split.set_gid("split")
    ax.add_collection(split)


def _indicator_ticks(ax, view):
    """The rows (and the columns of a grid) of an :class:`_IndicatorView` labelled."""
    ax.set_yticks(range(view.n_rows))
    # turned along the axis: a set's text is wider than the plot's margin
    ax.set_yticklabels([_escape(t) for t in view.y_ticks], rotation=90, va="center")
    if view.x_ticks is not None:
        ax.set_xticks([0, 1])
        ax.set_xticklabels([_escape(t) for t in view.x_ticks])


def _draw_points(ax, u, v, rows, data, colours, norm, cmap, size):
    """The samples ``rows`` at ``(u, v)``, coloured by class, by value, or grey."""
    if data.codes is not None:
        _points_by_class(ax, u, v, data.codes[rows], colours, size)
    elif data.values is not None:
        ax.scatter(u, v, c=data.values[rows], cmap=cmap, norm=norm, s=size, linewidths=0,
                   zorder=3)
    else:
        ax.scatter(u, v, color="0.35", s=size, linewidths=0, zorder=3)


#: width of the strip of samples with a missing value, as a fraction of the plot's width,
#: and the gap before it, as a fraction of the strip's width: wide enough for the marks of
#: the broken axis at both of its ends.
_MISSING_STRIP = 0.16
_STRIP_GAP = 0.5
#: numeric ticks within this fraction of the plot's width from its right end are left
#: out: their labels would run into the strip's "missing" label across the gap.
_STRIP_CLEARANCE = 0.06


def _draw_missing_strip(ax, view, v, rows, box, data, colours, norm, cmap, size, rng):
    """The samples missing a feature of the node's test, in a strip right of the plot.

    Each sample keeps its height where its vertical feature is known (else it is
    spread over the strip's height); the strip is shaded, as the "yes" side is,
    when missing values go left. Its background has gid ``"missing-strip"``.
    The strip lies right of ``box``, past a gap: its axis segment, labelled
    "missing", is drawn by :func:`_break_axis` once the plot's ticks are set.

    Returns
    -------
    tuple of float
        The strip's left and right ends ``(s0, s1)`` in the plot's x units.
    """
    u0, u1, v0, v1 = box
    width = _MISSING_STRIP * (u1 - u0)
    s0, s1 = u1 + _STRIP_GAP * width, u1 + (1.0 + _STRIP_GAP) * width
    ax.axvline(u1 + 0.5 * _STRIP_GAP * width, color="0.3", lw=0.6, ls=(0, (2, 2)), zorder=1)
    ax.axvspan(s0, s1, facecolor="0.55" if view.missing_left else "white",
               alpha=0.13 if view.missing_left else 0.0, edgecolor="none", zorder=0,
               gid="missing-strip")
    x = s0 + (0.15 + 0.7 * rng.uniform(size=rows.size)) * width
    y = np.where(np.isfinite(v), v, v0 + (0.08 + 0.84 * rng.uniform(size=rows.size)) * (v1 - v0))
    _draw_points(ax, x, y, rows, data, colours, norm, cmap, size)
    return s0, s1


def _strip_axis_classes():
    """The locator and formatter of an x axis broken before the missing-value strip.

    Defined on first use: matplotlib is imported only when something is drawn, and
    an axis takes only subclasses of its ``Locator`` and ``Formatter``.
    """
    return _strip_locator_class(), _strip_formatter_class()


@functools.cache
def _strip_locator_class():
    """The locator class of :func:`_strip_axis_classes`."""
    from matplotlib.ticker import FixedLocator, Locator

    class StripLocator(Locator):
        """``base``'s ticks inside the numeric range ``numeric`` only, and (``label``)
        one tick at the middle of the strip ``strip``: no number is ever written under
        the strip."""

        def __init__(self, base, numeric, strip, label=True):
            self.base, self.numeric, self.strip, self.label = base, numeric, strip, label
            self.missing_at = 0.5 * (strip[0] + strip[1])

        def set_axis(self, axis):
            super().set_axis(axis)
            self.base.set_axis(axis)

        def __call__(self):
            vmin, vmax = self.axis.get_view_interval()
            try:
                return self.tick_values(vmin, vmax)
            except NotImplementedError:
                # a locator that places its ticks from the axis itself (AutoMinorLocator,
                # between the major ticks): its ticks, those of the numeric range kept
                return self._keep(np.asarray(self.base(), dtype=float), vmin, vmax)

        def tick_values(self, vmin, vmax):
            u0, u1 = self.numeric
            lo, hi = max(min(vmin, vmax), u0), min(max(vmin, vmax), u1)
            ticks = self.base.tick_values(lo, hi) if hi > lo else []
            return self._keep(np.asarray(ticks, dtype=float), vmin, vmax)

        def _keep(self, ticks, vmin, vmax):
            u0, u1 = self.numeric
            lo, hi = max(min(vmin, vmax), u0), min(max(vmin, vmax), u1)
            # fixed ticks (a grid's columns) were placed on purpose: kept; others are
            # kept clear of the strip's label
            last = u1 if isinstance(self.base, FixedLocator) else (
                u1 - _STRIP_CLEARANCE * (u1 - u0))
            tol = 1e-9 * (u1 - u0)
            ticks = ticks[(ticks >= lo - tol) & (ticks <= min(hi, last) + tol)]
            if self.label and min(vmin, vmax) <= self.missing_at <= max(vmin, vmax):
                ticks = np.append(ticks, self.missing_at)
            return ticks

    return StripLocator


@functools.cache
def _strip_formatter_class():
    """The formatter class of :func:`_strip_axis_classes`."""
    from matplotlib.ticker import Formatter

    class StripFormatter(Formatter):
        """``base``'s labels for the numeric ticks and "missing" for the strip's tick."""

        def __init__(self, base, missing_at):
            self.base, self.missing_at = base, missing_at

        def set_axis(self, axis):
            super().set_axis(axis)
            self.base.set_axis(axis)

        def _numeric(self, values):
            return [x for x in values if x != self.missing_at]

        def format_ticks(self, values):
            # the base sees the numeric ticks alone: its offset, its precision and a
            # fixed formatter's positions are those of the numeric axis
            labels = iter(self.base.format_ticks(self._numeric(values)))
            return ["missing" if x == self.missing_at else next(labels) for x in values]

        def set_locs(self, locs):
            self.base.set_locs(self._numeric(locs))

        def __call__(self, x, pos=None):
            return "missing" if x == self.missing_at else self.base(x, pos)

        def get_offset(self):
            return self.base.get_offset()

        def format_data_short(self, value):
            return self.base.format_data_short(value)

    return StripFormatter


def _break_axis(ax, numeric, strip):
    """Give the missing-value strip its own segment of the x axis, labelled "missing".

    Past the numeric range ``numeric = (u0, u1)`` the axis shows no number: its
    ticks stop at ``u1`` (:func:`_strip_axis_classes`), the top and bottom spines
    are broken across the gap before the strip (a diagonal mark at each end, gid
    ``"axis-break"``) and go on under the strip ``strip = (s0, s1)`` (gid
    ``"strip-axis"``), whose one tick, at its middle, reads "missing". So a
    sample in the strip cannot be read as a large value of the feature.
    """
    locator_class, formatter_class = _strip_axis_classes()
    locator = locator_class(ax.xaxis.get_major_locator(), numeric, strip)
    ax.xaxis.set_major_locator(locator)
    ax.xaxis.set_major_formatter(formatter_class(ax.xaxis.get_major_formatter(),
                                                 locator.missing_at))
    # minor ticks too, where a style turns them on, stop at the numeric range
    ax.xaxis.set_minor_locator(locator_class(ax.xaxis.get_minor_locator(), numeric, strip,
                                             label=False))
    (u0, u1), (s0, s1) = numeric, strip
    edge = ax.spines["bottom"]
    style = {"color": edge.get_edgecolor(), "lw": edge.get_linewidth(), "clip_on": False,
             "transform": ax.get_xaxis_transform(), "zorder": 2.6}
    for name, y in (("bottom", 0.0), ("top", 1.0)):
        ax.spines[name].set_bounds(u0, u1)
        ax.plot([s0, s1], [y, y], solid_capstyle="butt", gid="strip-axis", **style)
        # the usual mark of a broken axis: a short slash at each end of the gap
        ax.plot([u1, s0], [y, y], ls="none", marker=[(-1, -1.6), (1, 1.6)], markersize=4,
                mew=style["lw"], mec=style["color"], gid="axis-break",
                **{k: v for k, v in style.items() if k not in ("color", "lw")})


def _include(box, point):
    """``box = (u0, u1, v0, v1)`` widened, if need be, so that ``point`` lies inside it.

    A point missing a coordinate (a sample with a missing value) leaves the box as it is.
    """
    if not np.all(np.isfinite(point)):
        return box
    u0, u1, v0, v1 = box
    u, v = point
    if not u0 <= u <= u1:
        pad = 0.06 * (max(u1, u) - min(u0, u))
        u0, u1 = min(u0, u - pad), max(u1, u + pad)
    if not v0 <= v <= v1:
        pad = 0.06 * (max(v1, v) - min(v0, v))
        v0, v1 = min(v0, v - pad), max(v1, v + pad)
    return u0, u1, v0, v1


def _sample_point(estimator, data, view, x):
    """Where the sample ``x`` (a 1-D row) lies in the plot of ``view``.

    A categorical node: the top of the bar of its category. A node with an
    indicator slot: the indicators' row (and column), not jittered. A strip plot has no
    feature up: the sample sits at the class (for a regressor, the value) the
    tree predicts for it, or at the middle without labels.
    """
    if isinstance(view, _CategoryView):
        # searchsorted places NaN after every number, at the missing values' bar
        j = int(np.searchsorted(view.categories, x[view.feature]))
        return float(j), float(view.count(x[view.feature]))
    if isinstance(view, _IndicatorView):
        return view.position(x)
    u = 0.0
    for f, w in view.u_terms:
        u = u + w * x[f]
    if view.v_feature is not None:
        return float(u), float(x[view.v_feature])
    tree = estimator.tree_
    leaf = int(tree.apply(x.reshape(1, -1))[0])
    if data.codes is not None:
        return float(u), float(np.argmax(tree.value[leaf]))
    if data.values is not None:
        return float(u), float(tree.value[leaf, 0])
    return float(u), 0.0


def _draw_sample(ax, point, label, size):
    """The highlighted sample: a white star edged black, gid ``"highlight"``, on top."""
    ax.scatter([point[0]], [point[1]], marker="*", s=size, facecolor="white",
               edgecolor="black", linewidths=1.1, zorder=6, clip_on=False,
               gid="highlight", label=label)


def _sample_handle(size):
    """A legend handle of the highlighted sample's marker."""
    from matplotlib.lines import Line2D

    return Line2D([], [], marker="*", ls="", markerfacecolor="white",
                  markeredgecolor="black", markeredgewidth=1.0, markersize=size)


def _sample_row(estimator, highlight):
    """``highlight`` checked as ``predict`` input: the 1-D row and the nodes of its path."""
    X = one_sample(estimator, highlight, name="highlight")
    path = estimator.tree_.decision_path(X)  # X is checked already
    return X[0], {int(n) for n in path.indices}


def _points_by_class(ax, u, v, codes, colours, size):
    """Scatter coloured by class; where samples pile up, a pie per position.

    On discrete data (e.g. MONK's) many samples share a position. Then each
    position gets one pie whose area grows with its number of samples and whose
    slices are the shares of the classes there, so no point is moved off its true
    value and a mixed position shows its mixture.
    """
    n = u.size
    if n == 0:
        return
    positions, where = np.unique(np.stack([u, v], axis=1), axis=0, return_inverse=True)
    where = where.ravel()
    if n >= 20 and positions.shape[0] <= min(0.5 * n, _MAX_PIES):
        counts = np.zeros((positions.shape[0], len(colours)))
        np.add.at(counts, (where, codes), 1.0)
        total = counts.sum(axis=1)
        # area grows with the count (a little slower, so big piles stay inside the plot)
        sizes = size * total ** 0.8
        sizes *= min(1.0, 60.0 * size / sizes.max())
        for p in np.argsort(-total, kind="stable"):
            start = 0.25  # slices clockwise from twelve o'clock, in turns
            for c in np.flatnonzero(counts[p]):
                share = counts[p, c] / total[p]
                if share >= 1.0:
                    ax.scatter(*positions[p], s=sizes[p], color=colours[c], linewidths=0,
                               zorder=3)
                    break
                angles = 2 * np.pi * np.linspace(start, start - share, 24)
                verts = np.column_stack([np.cos(angles), np.sin(angles)])
                verts = np.vstack([[0.0, 0.0], verts])
                # matplotlib scales a marker to its largest coordinate; undo that
                ax.scatter(*positions[p], marker=verts, s=sizes[p] * np.abs(verts).max() ** 2,
                           color=colours[c], linewidths=0, zorder=3)
                start -= share
        return
    # the rarer classes on top, so a few points of a minority class stay visible
    order = np.argsort(-np.bincount(codes, minlength=len(colours))[codes], kind="stable")
    ax.scatter(u[order], v[order], s=size, c=[colours[int(c)] for c in codes[order]],
               linewidths=0, zorder=3)


def _marker_size(n, scale=1.0):
    return scale * float(np.clip(1500.0 / max(n, 1), 5.0, 30.0))


# --------------------------------------------------------------------------- layout
def _tidy_positions(children, widths, gap):
    """x centre of every node: subtrees packed as close as their level extents allow.

    Nodes are processed from the highest id down (a child's id is larger than its
    parent's), each subtree keeping the left and right extent of each of its levels
    relative to its root; the two subtrees of a node are pushed apart just enough
    that no level overlaps, and the node is centred above them.
    """
    n = len(widths)
    contour = [None] * n
    offset = np.zeros(n)
    for node in range(n - 1, -1, -1):
        half = widths[node] / 2.0
        kids = children[node]
        if kids is None:
            contour[node] = [(-half, half)]
            continue
        left, right = contour[kids[0]], contour[kids[1]]
        shift = max(left[d][1] - right[d][0] for d in range(min(len(left), len(right)))) + gap
        offset[kids[0]], offset[kids[1]] = -shift / 2.0, shift / 2.0
        merged = [(-half, half)]
        for d in range(max(len(left), len(right))):
            spans = []
            if d < len(left):
                spans.append((left[d][0] - shift / 2.0, left[d][1] - shift / 2.0))
            if d < len(right):
                spans.append((right[d][0] + shift / 2.0, right[d][1] + shift / 2.0))
            merged.append((min(s[0] for s in spans), max(s[1] for s in spans)))
        contour[node] = merged
        contour[kids[0]] = contour[kids[1]] = None  # free memory of large trees
    x = np.zeros(n)
    for node in range(n):
        if children[node] is not None:
            for kid in children[node]:
                x[kid] = x[node] + offset[kid]
    return x


def _layout(children, depth, widths, heights, columns):
    """Positions (x centre, y top) of every node, wrapping a tall tree into columns.

    A long lopsided cascade (the paper's figure 8) is much taller than wide; its
    levels are cut into ``columns`` bands of consecutive depths placed side by side,
    the way the paper plots that tree in 3 columns. ``columns="auto"`` picks the
    number of bands (of at least two levels each) whose picture is closest to a
    1.6 : 1 landscape, for a tree whose unwrapped picture is clearly portrait and
    taller than a screen.

    Returns
    -------
    x, y_top : ndarray
    band : ndarray of int
        Column of every node.
    width, height : float
        Extent of the picture (x from 0, y from 0 down to -height).
    """
    x = _tidy_positions(children, widths, _GAP)
    n_levels = int(depth.max()) + 1
    # every level as tall as its tallest node: a level of leaves takes little room
    level_h = np.zeros(n_levels)
    np.maximum.at(level_h, depth, heights)
    left, right = x - widths / 2.0, x + widths / 2.0

    def arrange(k):
        per = -(-n_levels // k)
        band = depth // per
        starts, cursor = [], 0.0
        for b in range(k):
            members = band == b
            if not members.any():
                starts.append((cursor, 0.0))
                continue
            lo = float(left[members].min())
            starts.append((cursor - lo, float(right[members].max()) - lo))
            cursor += starts[-1][1] + _BAND_GAP
        width = cursor - _BAND_GAP
        # top of each level inside its band
        level_top = np.zeros(n_levels)
        height = 0.0
        for b in range(k):
            top = 0.0
            for d in range(b * per, min((b + 1) * per, n_levels)):
                level_top[d] = -top
                top += level_h[d] + _EDGE_SPACE
            height = max(height, top - _EDGE_SPACE)
        if k > 1:  # room for the labelled stubs of the edges into the next column
            height += _STUB_SPACE
        return per, band, starts, width, height, level_top

    k = 1
    if columns == "auto":
        _, _, _, width, height, _ = arrange(1)
        # only a clearly tall tree is wrapped; then the band count closest to landscape
        if width / height < _WRAP_BELOW and height > _WRAP_HEIGHT:
            best = None
            for k in range(2, n_levels // 2 + 1):
                _, _, _, width, height, _ = arrange(k)
                score = abs(np.log(width / height / _TARGET_ASPECT))
                if best is None or score < best[0] - 1e-9:
                    best = (score, k)
            k = 1 if best is None else best[1]
    else:
        k = min(int(columns), n_levels)
    _per, band, starts, width, height, level_top = arrange(k)
    xs = np.array([x[i] + starts[band[i]][0] for i in range(len(x))])
    return xs, level_top[depth], band, width, height


# --------------------------------------------------------------------------- plot_tree
def _check_layout_options(columns, max_depth):
    if columns != "auto" and not (isinstance(columns, (int, np.integer)) and columns >= 1):
        raise ValueError(f"columns must be 'auto' or an integer >= 1, got {columns!r}")
    if max_depth is not None and not (isinstance(max_depth, (int, np.integer))
                                      and max_depth >= 0):
        raise ValueError(f"max_depth must be None or an integer >= 0, got {max_depth!r}")


def _colour_scales(labels, data, fallback_values=None):
    """How samples and leaves are coloured.

    Returns
    -------
    colours : list or None
        One colour per class (classifier).
    cmap : matplotlib Colormap
        The colour map of target values.
    norm : matplotlib Normalize or None
        The range of target values coloured: that of the labels drawn (a
        regressor's ``y``), else that of ``fallback_values``, else None.
    """
    from matplotlib.colors import Normalize

    colours = _class_colours(len(labels)) if labels is not None else None
    cmap = _pyplot().get_cmap("viridis")
    values = data.values if data.values is not None else fallback_values
    norm = None if values is None else Normalize(float(values.min()), float(values.max()))
    return colours, cmap, norm


class _TreePicture:
    """The steps of :func:`plot_tree`, in the shape of scikit-learn's ``_MPLTreeExporter``.

    :meth:`node_boxes` decides what every drawn node shows and measures it,
    :meth:`layout` places the nodes, and :meth:`draw` draws the canvas, then the
    edges (:meth:`draw_edges`), every node (:meth:`draw_node`) and the class
    legend or colour bar (:meth:`draw_legend`). One unit of the canvas is one inch.

    Parameters
    ----------
    estimator : fitted estimator
    data : _Data
        The samples drawn, if any.
    names : list of str
        Feature names.
    labels : list or None
        Class names (classifier).
    max_depth, second, decimals, max_points, fontsize, target_name
        As the arguments of :func:`plot_tree` (``second`` checked).
    rng : numpy Generator
        Draws point subsets and strip-plot jitter, node by node in drawing order.
    highlight : tuple or None
        ``(row, path)``: a checked sample (1-D) and the set of ids of the nodes on
        its path, marked in the picture; None marks nothing.
    """

    def __init__(self, estimator, data, names, labels, *, max_depth, second, decimals,
                 max_points, fontsize, target_name, rng, highlight=None):
        self.estimator, self.tree, self.data = estimator, estimator.tree_, data
        self.sample, self.path = highlight if highlight is not None else (None, set())
        self.names, self.second, self.decimals = names, second, decimals
        self.max_points, self.fontsize, self.target_name, self.rng = (
            max_points, fontsize, target_name, rng)
        self.classifier = labels is not None
        self.label_text = None if labels is None else [str(c) for c in labels]
        self.limit = DEFAULT_MAX_DRAWN_DEPTH if max_depth is None else int(max_depth)
        self.pad = _BOX_PAD * fontsize / 72.0  # text box padding, in inches
        # without y a regressor's leaves still get colours: those of their values
        leaf_values = None if self.classifier else self.tree.value[self.tree.is_leaf, 0]
        self.colours, self.cmap, self.norm = _colour_scales(labels, data, leaf_values)

    # ---- node boxes
    def node_boxes(self):
        """What every drawn node shows, and its size.

        Sets ``order`` (tree ids of the drawn nodes, nodes down to one level below
        ``max_depth``), and per drawn node ``kinds`` ("plot": a decision node with
        its scatter plot, "text": a decision node without data, "leaf", or "more":
        a subtree cut at ``max_depth``), ``texts`` (its lines), ``widths`` and
        ``heights`` (inches), ``children`` (positions in ``order`` of its two
        children, or None) and ``depth``.
        """
        tree = self.tree
        depth = tree.node_depth
        self.order = [n for n in range(tree.node_count) if depth[n] <= self.limit + 1]
        position = {n: i for i, n in enumerate(self.order)}
        measure = _text_measurer(self.fontsize)
        self.kinds, self.texts, widths, heights, self.children = [], [], [], [], []
        for node in self.order:
            kind, lines = self._node_text(node, depth[node])
            width, height = self._box_size(kind, lines, measure)
            self.kinds.append(kind)
            self.texts.append(lines)
            widths.append(width)
            heights.append(height)
            kids = None
            if kind in ("plot", "text"):
                kids = (position[tree.children_left[node]], position[tree.children_right[node]])
            self.children.append(kids)
        self.widths = np.asarray(widths)
        self.heights = np.asarray(heights)
        self.depth = depth[self.order]

    def _node_text(self, node, depth):
        """``(kind, lines)`` of one node (see :meth:`node_boxes`)."""
        tree = self.tree
        n, err = _node_stats(self.estimator, self.data, node)
        stats = _stats_text(self.estimator, n, err)
        if tree.children_left[node] == TREE_LEAF:
            value = tree.value[node]
            if self.classifier:
                what = f"class: {self.label_text[int(np.argmax(value))]}"
            else:
                what = f"value: {format_number(value[0], self.decimals)}"
            return "leaf", [f"#{node}", what, stats]
        if depth > self.limit:
            n_below = _count_subtree(tree, node) - 1
            return "more", [f"#{node}  ... {n_below} more nodes", stats]
        rule = _pretty(format_rule(tree.features[node], tree.weights[node],
                                   tree.threshold[node], self.names, self.decimals,
                                   category_mask=tree.category_mask[node],
                                   missing=bool(tree.missing_go_left[node])))
        if self.data.has_data:
            char_w = self.fontsize * 0.55 / 72.0  # inches per character, to wrap rules
            width_chars = int((_DEC_WIDTH - 0.1) / char_w)
            return "plot", [f"#{node}   {stats}"] + _wrap(rule, width_chars)
        return "text", [f"#{node}"] + _wrap(rule, 40) + [stats]

    def _box_size(self, kind, lines, measure):
        """Width and height in inches of a node drawn with ``lines``."""
        if kind == "plot":
            # the title line over the plot, the rule below it
            w, h = measure(_escape("\n".join(lines[1:])), _RULE_SPACING, "normal")
            return max(_DEC_WIDTH, w + 0.1), _TITLE_H + _PLOT_SIDE + _XLABEL_H + h
        w, h = measure(_escape("\n".join(lines)), _BOX_SPACING,
                       "bold" if kind == "text" else "normal")
        return w + 2 * self.pad + 0.04, h + 2 * self.pad + 0.02

    # ---- layout
    def layout(self, columns):
        """Sets ``x`` (centres), ``y`` (tops), ``band`` (column) of every drawn node and
        the ``width`` and ``height`` of the picture (see :func:`_layout`)."""
        self.x, self.y, self.band, self.width, self.height = _layout(
            self.children, self.depth, self.widths, self.heights, columns)

    # ---- drawing
    def draw(self, ax=None, columns="auto"):
        """Measure, lay out and draw the tree on ``ax`` (a new figure if None); returns ax."""
        self.node_boxes()
        self.layout(columns)
        ax = self._canvas(ax)
        self.draw_edges(ax)
        for i in range(len(self.order)):
            self.draw_node(ax, i)
        self.draw_legend(ax)
        return ax

    def _canvas(self, ax):
        """``ax`` (or a new figure sized to the picture) with limits in inches, axis off."""
        legend = ((self.classifier and self.data.has_data) or not self.classifier
                  or self.sample is not None)
        # a wrapped tree without a legend still needs room for its first "from #id" label
        header = _HEADER if legend else (0.3 if self.band.max() > 0 else 0.0)
        x_lo, x_hi = -_MARGIN, self.width + _MARGIN
        y_lo, y_hi = -self.height - _MARGIN, header + _MARGIN
        if ax is None:
            fig = _pyplot().figure(figsize=(x_hi - x_lo, y_hi - y_lo))
            ax = fig.add_axes((0.0, 0.0, 1.0, 1.0))
        ax.set_xlim(x_lo, x_hi)
        ax.set_ylim(y_lo, y_hi)
        ax.set_aspect("equal")
        ax.set_axis_off()
        return ax

    def draw_edges(self, ax):
        """Every parent-child edge, labelled "yes" (left child) or "no" (right child)."""
        for i, kids in enumerate(self.children):
            if kids is None:
                continue
            for kid, answer in zip(kids, ("yes", "no")):
                if self.band[kid] == self.band[i]:
                    self._draw_edge(ax, i, kid, answer)
                else:
                    self._draw_stubs(ax, i, kid, answer)

    def _on_path(self, i):
        """Whether the ``i``-th drawn node lies on the highlighted sample's path."""
        return self.order[i] in self.path

    def _edge_style(self, parent, kid):
        """Colour and width of an edge: black and thick on the highlighted path."""
        if self._on_path(parent) and self._on_path(kid):
            return "black", 2.4
        return "0.45", 0.9

    def _draw_edge(self, ax, parent, kid, answer):
        fontsize = self.fontsize
        x0, y0 = self.x[parent], self.y[parent] - self.heights[parent] - 0.03
        x1, y1 = self.x[kid], self.y[kid] + 0.03
        colour, width = self._edge_style(parent, kid)
        ax.plot([x0, x1], [y0, y1], color=colour, lw=width, zorder=1)
        ax.text(x0 + 0.4 * (x1 - x0), y0 + 0.4 * (y1 - y0), answer,
                fontsize=fontsize, ha="center", va="center", zorder=2,
                bbox={"boxstyle": "round,pad=0.15", "fc": "white", "ec": "none"})

    def _draw_stubs(self, ax, parent, kid, answer):
        """An edge into the next column: a labelled stub at both ends."""
        fontsize = self.fontsize
        x, bottom = self.x[parent], self.y[parent] - self.heights[parent]
        dx = -0.3 if answer == "yes" else 0.3
        colour, width = self._edge_style(parent, kid)
        ax.annotate("", xy=(x + dx, bottom - 0.3), xytext=(x, bottom),
                    arrowprops={"arrowstyle": "->", "color": colour, "lw": width})
        ax.text(x + dx, bottom - 0.32, f"{answer} → #{self.order[kid]}",
                fontsize=fontsize, ha="right" if answer == "yes" else "left",
                va="top", color="0.2")
        ax.text(self.x[kid], self.y[kid] + 0.04, f"from #{self.order[parent]} ({answer}) ↓",
                fontsize=fontsize, ha="center", va="bottom", color="0.2")

    def draw_node(self, ax, i):
        """The ``i``-th drawn node: its scatter plot with title and rule, or a text box."""
        if self.kinds[i] == "plot":
            self._draw_plot_node(ax, i)
        else:
            self._draw_text_node(ax, i)

    def _draw_plot_node(self, ax, i):
        node, x, y, fontsize = self.order[i], self.x[i], self.y[i], self.fontsize
        lines = [_escape(s) for s in self.texts[i]]
        ax.text(x, y, lines[0], fontsize=fontsize, ha="center", va="top", fontweight="bold")
        bounds = [x - _PLOT_SIDE / 2 + _PLOT_SHIFT, y - _TITLE_H - _PLOT_SIDE,
                  _PLOT_SIDE, _PLOT_SIDE]
        inset = ax.inset_axes(bounds, transform=ax.transData)
        inset.set_label(f"node {node}")
        sample = self.sample if self._on_path(i) else None
        view = _make_view(self.estimator, self.data, node, self.names, self.second, self.rng,
                          self.decimals, self.target_name, sample)
        marker = None
        if sample is not None:
            marker = (_sample_point(self.estimator, self.data, view, sample), "sample", 130.0)
            for spine in inset.spines.values():
                spine.set_linewidth(2.0)
        _draw_scatter(inset, view, self.data, self.colours, self.norm, self.cmap,
                      _marker_size(view.u.size), fontsize - 0.5, self.label_text,
                      self.max_points, self.rng, marker)
        ax.text(x, y - _TITLE_H - _PLOT_SIDE - _XLABEL_H, "\n".join(lines[1:]),
                fontsize=fontsize, ha="center", va="top", linespacing=_RULE_SPACING)

    def _draw_text_node(self, ax, i):
        kind = self.kinds[i]
        face, edge = self._box_colours(i)
        width = 1.0
        if self._on_path(i):
            edge, width = "black", 2.4
        ax.text(self.x[i], self.y[i] - self.pad - 0.01,
                "\n".join(_escape(s) for s in self.texts[i]), fontsize=self.fontsize,
                ha="center", va="top", linespacing=_BOX_SPACING, zorder=3,
                fontweight="bold" if kind == "text" else "normal",
                bbox={"boxstyle": f"round,pad={_BOX_PAD}", "fc": face, "ec": edge, "lw": width})

    def _box_colours(self, i):
        """Face and edge colour of a text box: a leaf takes its class's or value's colour."""
        kind = self.kinds[i]
        if kind == "more":
            return "0.94", "0.4"
        if kind != "leaf":
            return "white", "0.4"
        value = self.tree.value[self.order[i]]
        if self.classifier:
            base = self.colours[int(np.argmax(value))]
            return tuple(1 - 0.25 * (1 - c) for c in base[:3]), base
        return tuple(1 - 0.35 * (1 - c) for c in self.cmap(self.norm(value[0]))[:3]), "0.4"

    def draw_legend(self, ax):
        """The class legend (classifier with data) or the colour bar (regressor), on top.

        A highlighted sample adds the entry "sample" (to the class legend, or a
        legend of its own at the top right).
        """
        fontsize = self.fontsize
        style = {"bbox_transform": ax.transData, "fontsize": fontsize + 0.5, "frameon": False,
                 "handletextpad": 0.2, "columnspacing": 1.0, "borderaxespad": 0.0}
        if self.classifier and self.data.has_data:
            from matplotlib.lines import Line2D

            handles = [Line2D([], [], marker="o", ls="", color=c, markersize=6)
                       for c in self.colours]
            texts = [_escape(c) for c in self.label_text]
            if self.sample is not None:
                handles.append(_sample_handle(10))
                texts.append("sample")
            ax.legend(handles, texts, loc="upper left", bbox_to_anchor=(0.0, _HEADER),
                      ncol=min(len(handles), 8), **style)
            return
        if self.sample is not None:
            ax.legend([_sample_handle(10)], ["sample"], loc="upper right",
                      bbox_to_anchor=(self.width, _HEADER), **style)
        if not self.classifier and self.norm is not None:
            from matplotlib.cm import ScalarMappable

            cax = ax.inset_axes([0.05, _HEADER - 0.2, min(2.4, self.width * 0.5), 0.1],
                                transform=ax.transData)
            bar = ax.figure.colorbar(ScalarMappable(norm=self.norm, cmap=self.cmap), cax=cax,
                                     orientation="horizontal")
            bar.ax.tick_params(labelsize=fontsize - 1, length=2, pad=1)
            cax.set_title(_escape(self.target_name), fontsize=fontsize, pad=2, loc="left")


def plot_tree(estimator, X=None, y=None, feature_names=None, class_names=None, ax=None, *,
              max_depth=None, second_feature="best", columns="auto",
              decimals=DEFAULT_DECIMALS,
              max_points=1000, fontsize=7.5, target_name="target", random_state=0,
              highlight=None):
    """Draw the tree top down, with a scatter plot of its samples at every decision node.

    Parameters
    ----------
    estimator : BivariateTreeClassifier or BivariateTreeRegressor
        A fitted estimator. A model selector (``TAOTreeClassifierCV``,
        ``CostComplexityCV``...) stands for its chosen tree, ``best_estimator_``.
    X : array-like of shape (n_samples, n_features), default=None
        Samples to draw (typically the training data). Each decision node shows
        the samples that reach it on its features, with its test as a line and the
        side where the test holds shaded. Without ``X`` decision nodes are text.
    y : array-like of shape (n_samples,), default=None
        Labels of ``X``: points are coloured by class (by value for a regressor)
        and ``|R|`` / ``L`` count these samples; without ``y`` points are grey
        and the counts are the training statistics stored in the tree.
    feature_names : sequence of str, default=None
        Defaults to ``feature_names_in_`` or ``x0, x1, ...``.
    class_names : sequence of str, default=None
        Display names of ``classes_``.
    ax : matplotlib Axes, default=None
        Draw there (its aspect is set to equal); by default a new figure sized so
        that every plot and label keeps a readable size.
    max_depth : int, default=None
        Draw nodes down to this depth; deeper subtrees appear as a "..." box.
        ``None`` draws the whole tree when its picture ends in at most
        ``MAX_DRAWN_BOXES`` (32) boxes, and otherwise the deepest levels that keep
        it so (:func:`drawable_depth`; a picture of a 900-leaf tree would be tens
        of thousands of pixels wide), with a ``UserWarning`` saying how deep it
        drew and how to choose: a ``max_depth`` of your own draws that deep
        whatever the size, and :func:`~bivtree.export_html` shows every node on
        a page that opens levels on demand.
    second_feature : "best", "strip", str or int, default="best"
        How a univariate node is drawn: against the other feature that best splits
        its samples ("best"), as a strip plot of its feature by class ("strip";
        by target value for a regressor), or against a given feature.
    columns : "auto" or int, default="auto"
        Cut the levels of a tall tree into this many side-by-side columns (an edge
        into the next column is marked "→ #id" at the parent and "from #id" at the
        child); "auto" picks the count whose picture is closest to landscape.
    decimals : int, default=DEFAULT_DECIMALS (4)
        Significant digits of the rules, as in ``export_text``.
    max_points : int, default=1000
        Most points per node plot (a random subset above that, and the plot says
        e.g. "1,000 of 19,020 shown").
    fontsize : float, default=7.5
    target_name : str, default="target"
        Axis label of the target in strip plots of a regressor.
    random_state : int, default=0
        Seeds point subsets and strip-plot jitter, so the picture is reproducible.
    highlight : array-like of shape (n_features,), default=None
        One sample (a list, a 1-D or one-row array, a pandas Series or a one-row
        DataFrame), checked as ``predict`` checks its input. Every drawn decision
        node on its path marks it with a star (gid ``"highlight"``) at its position
        in the node's plot (the top of its category's bar for a categorical node;
        at its indicators' row, not jittered, for a node with an indicator slot;
        in a strip plot, at the class or value the tree predicts), and the boxes
        and edges of its path are drawn thick. The legend gets the entry "sample".

    Returns
    -------
    matplotlib.axes.Axes
        The axes holding the tree (``ax.figure`` is the figure). Each node's
        scatter plot is a child axes labelled ``"node <id>"``; in it the split
        line has gid ``"split"`` and the shaded side gid ``"yes-region"`` (a
        categorical node has bars per category, no line, and its set shaded; a
        node with an indicator slot has a row per indicator value, the cut of
        each row a segment of the ``"split"`` collection, see :func:`plot_split`).
        A subsampled plot has a text with gid ``"subsample"``. Samples missing a
        feature of a node's view are drawn in a strip right of its plot (gid
        ``"missing-strip"``) on an x-axis segment of its own, labelled
        "missing" and set apart by a broken axis (:func:`plot_split`).

    Notes
    -----
    Every node shows ``#id`` (the ids of ``apply`` and :func:`plot_split`), the
    number of samples ``|R|`` and the error ``L`` it would make as a leaf
    (misclassified samples; for a regressor the mean squared error), as in the
    figures of Kairgeldin & Carreira-Perpinan.
    """
    estimator = tree_estimator(estimator, "plot_tree")  # a model selector: its chosen tree
    _pyplot()  # without matplotlib, say so before anything else
    names = resolve_feature_names(estimator, feature_names)
    labels = resolve_class_labels(estimator, class_names)
    second = _check_second_feature(second_feature, names)
    _check_layout_options(columns, max_depth)
    if max_depth is None:
        max_depth = drawable_depth(estimator.tree_)
        if max_depth < estimator.tree_.max_depth:
            warnings.warn(
                f"plot_tree draws depth 0 to {max_depth} of this tree's "
                f"{estimator.tree_.max_depth} levels (deeper subtrees as '...' boxes), so "
                f"that the picture ends in at most {MAX_DRAWN_BOXES} boxes; pass max_depth "
                "to choose the depth, or use export_html for a page showing every node",
                UserWarning, stacklevel=2)
    data = _Data(estimator, X, y)
    marked = None if highlight is None else _sample_row(estimator, highlight)
    picture = _TreePicture(estimator, data, names, labels,
                           max_depth=max_depth, second=second, decimals=decimals,
                           max_points=max_points, fontsize=fontsize, target_name=target_name,
                           rng=np.random.default_rng(random_state), highlight=marked)
    ax = picture.draw(ax, columns)
    constraints = fitted_constraints(estimator)
    if constraints is not None:  # a picture must not hide what the model was held to
        ax.annotate(_escape(f"fitted under {constraints}"), xy=(0, 1), xycoords="axes fraction",
                    xytext=(0, 4), textcoords="offset points", ha="left", va="bottom",
                    fontsize=fontsize)
    return ax


def drawable_depth(tree, max_boxes=MAX_DRAWN_BOXES):
    """The deepest ``max_depth`` of :func:`plot_tree` whose picture stays a sane size.

    A picture of ``max_depth=d`` ends in the leaves down to depth ``d + 1`` and a
    "..." box for each decision node at depth ``d + 1``; their number, which sets the
    width of the picture, grows with ``d``. This is the largest ``d`` (at most the
    tree's depth and ``DEFAULT_MAX_DRAWN_DEPTH``) for which it is at most ``max_boxes``.

    Parameters
    ----------
    tree : Tree
        A fitted tree (``estimator.tree_``).
    max_boxes : int, default=MAX_DRAWN_BOXES (32)

    Returns
    -------
    int
        The depth to pass as ``max_depth``; ``tree.max_depth`` when the whole tree fits.
    """
    depth = tree.node_depth
    n_levels = int(tree.max_depth) + 2
    nodes = np.bincount(depth, minlength=n_levels)
    leaves_down_to = np.cumsum(np.bincount(depth[tree.is_leaf], minlength=n_levels))
    # boxes at the bottom of the picture of max_depth d, for every d: never decreasing in d
    boxes = leaves_down_to[:-1] + nodes[1:]
    fits = np.flatnonzero(boxes <= max_boxes)
    # boxes[max_depth] counts every leaf: the whole tree fits when that is small enough
    deepest = int(fits[-1]) if fits.size else 0
    return min(deepest, DEFAULT_MAX_DRAWN_DEPTH)


def _text_measurer(fontsize):
    """``measure(text, linespacing, weight) -> (width, height)`` in inches, as drawn."""
    from matplotlib.backends.backend_agg import FigureCanvasAgg
    from matplotlib.figure import Figure

    fig = Figure(dpi=72)
    renderer = FigureCanvasAgg(fig).get_renderer()

    def measure(text, linespacing, weight):
        artist = fig.text(0, 0, text, fontsize=fontsize, linespacing=linespacing,
                          fontweight=weight)
        box = artist.get_window_extent(renderer)
        artist.remove()
        return box.width / 72.0, box.height / 72.0

    return measure


def _count_subtree(tree, node):
    count, stack = 0, [node]
    while stack:
        n = stack.pop()
        count += 1
        if tree.children_left[n] != TREE_LEAF:
            stack.extend((tree.children_left[n], tree.children_right[n]))
    return count


# --------------------------------------------------------------------------- plot_split
def _label_sides(ax, estimator, data, view, node_id, fontsize):
    """The child, count and error of each side of a node's test, written inside its region.

    For a categorical node the two sides are sets of bars, not regions: their
    labels go in the headroom above the bars, "yes" (the shaded set) at the left.
    A node with an indicator slot labels the largest piece of each side.
    """
    tree = estimator.tree_
    left, right = tree.children_left[node_id], tree.children_right[node_id]
    box = (*ax.get_xlim(), *ax.get_ylim())
    locator = ax.xaxis.get_major_locator()
    if isinstance(locator, _strip_locator_class()):
        # the sides are regions of the numeric plot: the gap and the strip are not in them
        box = (box[0], locator.numeric[1], *box[2:])
    rect = [(box[0], box[2]), (box[1], box[2]), (box[1], box[3]), (box[0], box[3])]
    for child, keep_le, answer in ((left, True, "yes"), (right, False, "no")):
        if isinstance(view, _CategoryView):
            x, y = (0.02 if keep_le else 0.98), 0.97
            where = {"transform": ax.transAxes, "va": "top",
                     "ha": "left" if keep_le else "right"}
        elif isinstance(view, _IndicatorView):
            # the middle of the side's largest piece (in the plot's proportions)
            pieces = _clipped_pieces(view, box, left=keep_le)
            if not pieces:
                continue
            a, b, v0, v1, _ = max(pieces, key=lambda p: (p[1] - p[0]) / (box[1] - box[0])
                                  * (p[3] - p[2]))
            x, y = 0.5 * (a + b), 0.5 * (v0 + v1)
            where = {"ha": "center", "va": "center"}
        else:
            poly = _clip_half_plane(rect, view.a, view.b, view.t, keep_le)
            if len(poly) < 3:
                continue
            x, y = np.mean(poly, axis=0)
            where = {"ha": "center", "va": "center"}
        n, err = _node_stats(estimator, data, child)
        ax.text(x, y, _escape(f"{answer} → #{child}\n{_stats_text(estimator, n, err)}"),
                fontsize=fontsize - 1, zorder=5, **where,
                bbox={"boxstyle": "round,pad=0.3", "fc": "white", "ec": "0.6", "alpha": 0.85})


def plot_split(estimator, node_id, X, y=None, feature_names=None, class_names=None, ax=None,
               *, second_feature="best", decimals=DEFAULT_DECIMALS, max_points=5000, fontsize=10,
               target_name="target", random_state=0, highlight=None):
    """Draw one decision node large: its samples, its test as a line, the rule in the title.

    Parameters
    ----------
    estimator : BivariateTreeClassifier or BivariateTreeRegressor
        A fitted estimator. A model selector (``TAOTreeClassifierCV``,
        ``CostComplexityCV``...) stands for its chosen tree, ``best_estimator_``.
    node_id : int
        A decision node (the ids of ``apply``, :func:`plot_tree` and ``export_rules``).
    X : array-like of shape (n_samples, n_features)
        Samples; those reaching the node are drawn.
    y : array-like of shape (n_samples,), default=None
        Their labels (class colours, or a colour scale for a regressor).
    feature_names, class_names : sequence of str, default=None
    ax : matplotlib Axes, default=None
    second_feature : "best", "strip", str or int, default="best"
        How a univariate node is drawn (see :func:`plot_tree`).
    decimals : int or None, default=4
        Significant digits of the rule in the title (``None``: exact).
    max_points : int, default=5000
        Most points drawn (a random subset above that, and the plot says how many).
    fontsize : float, default=10
    target_name : str, default="target"
    random_state : int, default=0
    highlight : array-like of shape (n_features,), default=None
        One sample, checked as ``predict`` checks its input, marked with a star at
        its position in the plot (as in :func:`plot_tree`), even when it does not
        reach this node: its legend entry then reads "sample (not at this node)".

    Returns
    -------
    matplotlib.axes.Axes
        The split line has gid ``"split"`` and the side where the test holds
        (samples go to the left child) gid ``"yes-region"``. A categorical node
        is drawn as bars per category instead: no line, and the categories of
        its set (going left) shaded with gid ``"yes-region"``. A node with an
        indicator slot has one row per indicator value (y ticks "not" and the
        set), its pieces going left shaded (gid ``"yes-region"``) and the cut
        of each row a segment (one collection, gid ``"split"``); a node of two
        indicators is a 2 x 2 grid, without segments. The highlighted
        sample has gid ``"highlight"``, and a subsampled plot a text with gid
        ``"subsample"``. The samples missing a feature of the view are drawn in
        a strip right of the plot (its background gid ``"missing-strip"``): the
        x axis is broken before it (marks with gid ``"axis-break"``, its own
        spine segments gid ``"strip-axis"``), its numeric ticks stop short of
        the gap and the strip's one tick reads "missing", so that no sample
        there reads as a large value.
    """
    estimator = tree_estimator(estimator, "plot_split")  # a model selector: its chosen tree
    plt = _pyplot()
    from matplotlib.lines import Line2D

    tree = estimator.tree_
    if not (isinstance(node_id, (int, np.integer)) and not isinstance(node_id, bool)
            and 0 <= node_id < tree.node_count):
        raise ValueError(f"node_id must be an integer in [0, {tree.node_count}), "
                         f"got {node_id!r}")
    node_id = int(node_id)
    if tree.children_left[node_id] == TREE_LEAF:
        decision = np.flatnonzero(~tree.is_leaf).tolist()
        raise ValueError(f"node {node_id} is a leaf; plot_split draws decision nodes: "
                         f"{decision[:20]}{' ...' if len(decision) > 20 else ''}")
    if X is None:
        raise ValueError("plot_split needs the samples X")
    names = resolve_feature_names(estimator, feature_names)
    labels = resolve_class_labels(estimator, class_names)
    label_text = None if labels is None else [str(c) for c in labels]
    second = _check_second_feature(second_feature, names)
    data = _Data(estimator, X, y)
    row, path = (None, set()) if highlight is None else _sample_row(estimator, highlight)
    rng = np.random.default_rng(random_state)
    colours, cmap, norm = _colour_scales(labels, data)
    if ax is None:
        _, ax = plt.subplots(figsize=(6.4, 5.6), layout="constrained")
    view = _make_view(estimator, data, node_id, names, second, rng, decimals, target_name,
                      row)
    marker = None
    if row is not None:
        where = "sample" if node_id in path else "sample (not at this node)"
        marker = (_sample_point(estimator, data, view, row), where, 320.0)
    _draw_scatter(ax, view, data, colours, norm, cmap, _marker_size(view.u.size, 2.5),
                  fontsize, label_text, max_points, rng, marker)

    rule = format_rule(tree.features[node_id], tree.weights[node_id], tree.threshold[node_id],
                       names, decimals, category_mask=tree.category_mask[node_id],
                       missing=bool(tree.missing_go_left[node_id]))
    ratio = None
    if not np.any(tree.category_mask[node_id]):
        # an indicator slot reads 0 or 1, not its feature's codes: no ratio of features
        ratio = ratio_rule(tree.features[node_id], tree.weights[node_id],
                           float(tree.threshold[node_id]), "<=", names,
                           feature_signs(data.X, tree.n_features), decimals)
    title = f"node #{node_id}: {_pretty(rule)}"
    if ratio is not None:
        title += f"\n(that is, {_pretty(ratio)})"
    ax.set_title(_escape(title), fontsize=fontsize + 1)

    _label_sides(ax, estimator, data, view, node_id, fontsize)
    handles, texts = [], []
    if labels is not None and data.codes is not None:
        counts = np.bincount(data.codes[view.rows], minlength=len(labels))
        handles = [Line2D([], [], marker="o", ls="", color=c, markersize=7) for c in colours]
        texts = [_escape(f"{c} ({k})") for c, k in zip(label_text, counts)]
    if marker is not None:
        handles.append(_sample_handle(13))
        texts.append(marker[1])
    if handles:
        ax.legend(handles, texts, fontsize=fontsize - 1, loc="best", framealpha=0.85)
    if norm is not None and not (labels is not None and data.codes is not None):
        from matplotlib.cm import ScalarMappable

        bar = ax.figure.colorbar(ScalarMappable(norm=norm, cmap=cmap), ax=ax)
        bar.set_label(_escape(target_name), fontsize=fontsize)
    return ax
