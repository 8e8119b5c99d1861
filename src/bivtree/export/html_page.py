"""A fitted tree as one self-contained, interactive HTML page.

:func:`export_html` writes a single file that opens in any browser, offline: the
script, the style and the data are inline, nothing is fetched (no server, no
network, no CDN). The page shows

- the tree top down; a click on a decision node collapses or expands its subtree.
  A large tree opens with its top levels only (``open_levels``, 4 by default) and
  controls to open more;
- at every decision node, given samples ``X``, a scatter plot of the samples that
  reach it on its features with the test as a line and the side where it holds
  ("yes", the left child) shaded. Nodes are drawn as :func:`bivtree.plot_tree` draws
  them (the same views: a univariate node against its most useful second feature,
  a categorical node as bars per category, a node with an indicator slot as one
  row per indicator value with the cut of each row, or a 2 x 2 grid for two
  indicators). A plot holds at most ``max_points``
  points, a random subset of its node's samples, and then says e.g.
  "1,000 of 19,020 shown". The samples missing a feature of the view (NaN) are
  drawn in a strip right of the scatter labelled "missing", shaded as the "yes"
  side when the node sends them left, as :func:`bivtree.plot_tree` draws them;
- on hover, the node's test in the data's units, with the text of
  :func:`bivtree.export_text`, and its training counts or value;
- a search box taking a row index of ``X`` or one sample's feature values; the
  path of that sample is highlighted (and opened), and typed values are marked
  with a star in every plot on the path.

The tree scrolls in a view of its own under the header, which stays in place. The
page opens with the root centred across the view and the first levels below it
(the layout sets each subtree as close to its sibling as their outlines allow); a
search scrolls to the highlighted path and centres it, or, for a path taller or
wider than the view, keeps its leaf in view with as much of the way to it as fits.
A label that would not fit its room (a set of long categories, a long feature
name) is drawn abbreviated, a set cut to its first values with the count of the
others (``{a, b, … +4}``), and keeps its full text on hover; a rule on a card is
cut only past :data:`_RULE_CHARS` characters, and the hover text of every node
holds its full rule.

**Routing in the page.** The path of a row of ``X`` is computed in Python
(``apply``), stored as the row's leaf, and read back through the parent links. Typed
values are routed by the page's script with the tree's own arithmetic: a linear
node computes ``s = 0.0; s += w_k * v_k`` slot by slot and tests ``s <= t``,
exactly the operations of :func:`bivtree._kernels.traversal.goes_left`, where
``v_k`` is ``x[f_k]`` or, in an indicator slot (``indicator_categories``), 1 when
the code is an integer in [0, 63] of the slot's set, 0 for any other value and
NaN when it is missing; a categorical node tests that the code is an integer in
[0, 63] of its set. JavaScript
numbers are IEEE float64 with one rounding per operation (no fused multiply-add),
like numba's compiled kernel, and the weights and thresholds are written with
Python's shortest round-trip repr, which ``JSON.parse`` reads back as the same
doubles; so the page sends a typed sample where ``predict`` sends the same values
(typed text is read as Python's ``float`` reads it).

**Size.** The file holds about 42 kB of script and style, about 0.3 kB per node,
about 20 bytes per point drawn (at most ``max_total_points`` points, 200,000 by
default: 4 MB, given to the shallowest nodes first; a deeper node beyond that budget
shows no plot and says why) and one leaf id per row of ``X`` for the row search (at
most ``max_rows``, 100,000 by default: 0.6 MB). A 523-node tree of 20,000 samples
gives a 1.7 MB page.
"""

import colorsys
import html
import json
import re
import textwrap
from importlib import resources

import numpy as np

from .._config import ITYPE, TREE_LEAF
from ..estimators import tree_estimator
from ..tree import mask_to_categories
from .formatting import (
    DEFAULT_DECIMALS,
    format_number,
    format_rule,
    resolve_class_labels,
    resolve_feature_names,
)
from .plot import (
    _BAND,
    _box,
    _category_label,
    _CategoryView,
    _check_second_feature,
    _Data,
    _IndicatorView,
    _make_view,
    _node_stats,
    _pretty,
    _stats_text,
)
from .text import _leaf_text, fitted_constraints

__all__ = ["export_html"]

#: the page's style and script: the files page/page.css and page/page.js of this package,
#: inlined into every page.
PAGE_STYLE = (resources.files(__package__) / "page" / "page.css").read_text(encoding="utf-8")
PAGE_SCRIPT = (resources.files(__package__) / "page" / "page.js").read_text(encoding="utf-8")

#: levels the page shows when it opens (depth 0 to 3); deeper subtrees are a click away.
DEFAULT_OPEN_LEVELS = 4
#: most points in one node's scatter plot.
DEFAULT_MAX_POINTS = 1000
#: most points in all plots together, which bounds the size of the file (about 4 MB).
DEFAULT_MAX_TOTAL_POINTS = 200_000
#: most rows of ``X`` whose leaf is stored for the row search (about 0.6 MB).
DEFAULT_MAX_ROWS = 100_000
#: significant digits of the point coordinates: a plot is 190 pixels wide.
_POINT_DIGITS = 5
#: a plot's width and height in pixels (the script's PW and PH), the room of its labels.
_PLOT_WIDTH, _PLOT_HEIGHT = 190, 150
#: pixels per character of a plot's 9-pixel tick labels and 10-pixel axis labels, a
#: generous average (DejaVu Sans, the wide fallback of system-ui, averages about
#: 0.52 em on labels): a label estimated to fit does fit.
_TICK_CHAR_PX, _AXIS_CHAR_PX = 5.2, 5.8
#: most characters of the rule written on a card (about six lines of its 236-pixel
#: column); a longer one is abbreviated there, in full on hover.
_RULE_CHARS = 160
#: the values of a category set in a text such as "colour in {red, green}".
_CATEGORY_SET = re.compile(r"(?<= in )\{([^{}]*)\}")
#: matplotlib's tab10, the class colours of plot_tree and export_graphviz.
_TAB10 = ("#1f77b4", "#ff7f0e", "#2ca02c", "#d62728", "#9467bd", "#8c564b", "#e377c2",
          "#7f7f7f", "#bcbd22", "#17becf")
#: matplotlib's tab20, for 11 to 20 classes (as plot_tree).
_TAB20 = ("#1f77b4", "#aec7e8", "#ff7f0e", "#ffbb78", "#2ca02c", "#98df8a", "#d62728",
          "#ff9896", "#9467bd", "#c5b0d5", "#8c564b", "#c49c94", "#e377c2", "#f7b6d2",
          "#7f7f7f", "#c7c7c7", "#bcbd22", "#dbdb8d", "#17becf", "#9edae5")
#: a surrogate code point on its own (a str can hold one; UTF-8 cannot encode it).
_LONE_SURROGATE = re.compile("[\ud800-\udfff]")
#: matplotlib's viridis at 0, 0.1, ..., 1 (RGB), the colour scale of a regressor's values.
_VIRIDIS = ((68, 1, 84), (72, 36, 117), (65, 68, 135), (53, 95, 141), (42, 120, 142),
            (33, 145, 140), (34, 168, 132), (68, 191, 112), (122, 209, 81), (189, 223, 38),
            (253, 231, 37))


def _hex(rgb):
    return "#" + "".join(f"{round(c):02x}" for c in rgb)


def _class_colours(n):
    """One colour per class, those of :func:`bivtree.plot_tree` (tab10, tab20, then hues)."""
    if n <= 10:
        return list(_TAB10[:n])
    if n <= 20:
        return list(_TAB20[:n])
    return [_hex([255 * c for c in colorsys.hsv_to_rgb(i / n, 1.0, 1.0)]) for i in range(n)]


def _viridis(share):
    """The viridis colour at ``share`` in [0, 1] as RGB, interpolated as the page does."""
    s = min(max(float(share), 0.0), 1.0) * (len(_VIRIDIS) - 1)
    i = min(int(s), len(_VIRIDIS) - 2)
    f = s - i
    return [a + f * (b - a) for a, b in zip(_VIRIDIS[i], _VIRIDIS[i + 1])]


def _lighten(rgb, keep):
    """``rgb`` mixed with white, keeping ``keep`` of the colour (a leaf's background)."""
    return _hex([255 - keep * (255 - c) for c in rgb])


def _rgb(hex_colour):
    return [int(hex_colour[i:i + 2], 16) for i in (1, 3, 5)]


def _rounded(values):
    """Coordinates for the plots, rounded to :data:`_POINT_DIGITS` significant digits."""
    return [float(f"{v:.{_POINT_DIGITS}g}") for v in np.asarray(values, dtype=float).tolist()]


def _scatter_note(shown, n):
    """What a node's scatter leaves out: a subsample (as plot_tree says it)."""
    return f"{shown:,} of {n:,} shown" if shown < n else None


def _shorten_sets(text, limit):
    """``text`` with its category sets cut to their first values until it fits ``limit``.

    The largest set (in characters) gives up its last value first; every set keeps
    at least one and says how many it leaves out, e.g. ``{red, green, … +3}``.
    The values are those :func:`~bivtree.export.formatting.format_categories` wrote,
    separated by ``", "``. May stay longer than ``limit``.
    """
    sets = list(_CATEGORY_SET.finditer(text))
    values = [m.group(1).split(", ") for m in sets]
    kept = [len(v) for v in values]

    def build():
        parts, end = [], 0
        for m, v, k in zip(sets, values, kept):
            # "… +3": three values left out; a no-break space keeps it one word when the
            # label is wrapped into lines
            more = f", …\u00a0+{len(v) - k}" if k < len(v) else ""
            parts += [text[end:m.start()], "{", ", ".join(v[:k]), more, "}"]
            end = m.end()
        return "".join(parts) + text[end:]

    shown = build()
    while len(shown) > limit and max(kept, default=1) > 1:
        # the set whose kept values are longest gives one up
        j = max((j for j in range(len(sets)) if kept[j] > 1),
                key=lambda j: len(", ".join(values[j][:kept[j]])))
        kept[j] -= 1
        shown = build()
    return shown


def _abbreviate(text, limit):
    """``text`` shortened to at most ``limit`` characters for a label, said so when cut.

    A text that fits is returned as it is. Otherwise its category sets (``x in {a,
    b, c}``) are cut to their first values with a count of the others
    (:func:`_shorten_sets`), and what is still too long ends with ``…``: the page
    writes the full text on hover (a ``title``), so a label is never cut short
    silently.

    Parameters
    ----------
    text : str
        The full label.
    limit : int
        Most characters shown, at least 2.

    Returns
    -------
    str
        ``text`` itself, or a shorter text that ends in ``…`` or names how many
        values of a set it leaves out.

    Examples
    --------
    >>> _abbreviate("colour in {red, green, blue}", 40)
    'colour in {red, green, blue}'
    >>> _abbreviate("colour in {red, green, blue, yellow}", 30) == (
    ...     "colour in {red, green, …\u00a0+2}")  # a no-break space before the count
    True
    >>> _abbreviate("Self-employed-not-incorporated", 12)
    'Self-employ…'
    """
    text = str(text)
    limit = max(int(limit), 2)
    if len(text) <= limit:
        return text
    shown = _shorten_sets(text, limit)
    return shown if len(shown) <= limit else shown[:limit - 1].rstrip() + "…"


def _label_lines(text, chars, lines):
    """``text`` in at most ``lines`` lines of at most ``chars`` characters, broken at
    spaces and abbreviated (:func:`_abbreviate`) only as much as it must be."""
    text = str(text)
    for limit in range(max(len(text), 2), 1, -1):
        shown = _abbreviate(text, min(limit, chars * lines))
        wrapped = textwrap.wrap(shown, chars, break_on_hyphens=False) or [shown]
        if len(wrapped) <= lines:
            return wrapped
    return [_abbreviate(text, chars)]


def _fit_chars(pixels, char_px):
    """How many characters of ``char_px`` pixels a label of ``pixels`` pixels holds."""
    return max(int(pixels / char_px), 2)


def _subsample(n, k, rng):
    """Sorted positions of ``k`` of ``n`` points (all of them when ``k >= n``)."""
    if k >= n:
        return np.arange(n)
    return np.sort(rng.choice(n, k, replace=False))


class _PageBuilder:
    """The data of the page: one dict per node, point budget spent shallowest first."""

    def __init__(self, estimator, data, names, labels, *, second, decimals, max_points,
                 max_total_points, target_name, rng):
        self.estimator, self.tree, self.data = estimator, estimator.tree_, data
        self.names, self.labels, self.second, self.decimals = names, labels, second, decimals
        self.max_points, self.budget, self.max_total_points = (
            max_points, max_total_points, max_total_points)
        self.target_name, self.rng = target_name, rng
        self.classifier = labels is not None
        self.colours = _class_colours(len(labels)) if self.classifier else None
        values = data.values if data.values is not None else self.tree.value[
            self.tree.is_leaf, 0]
        self.range = None if self.classifier else [float(values.min()), float(values.max())]

    # ---- nodes
    def node(self, node, depth, parent, below):
        """The dict of one node, without its plot (see :meth:`add_plot`)."""
        tree, names, decimals = self.tree, self.names, self.decimals
        n, error = _node_stats(self.estimator, self.data, node)
        entry = {"id": int(node), "depth": int(depth), "parent": int(parent),
                 "left": -1, "right": -1, "below": int(below),
                 "n": int(tree.n_node_samples[node]),
                 "n_data": None if not self.data.has_data else int(self.data.rows[node].size),
                 "stats": _stats_text(self.estimator, n, error)}
        value = tree.value[node]
        if self.classifier:
            best = int(np.argmax(value))
            entry["class"] = best
            entry["prediction"] = f"class: {self.labels[best]}"
        else:
            entry["value"] = float(value[0])
            entry["prediction"] = f"value: {format_number(value[0], decimals)}"
        if tree.children_left[node] == TREE_LEAF:
            # the leaf line of export_text
            entry["counts"] = _leaf_text(self.estimator, tree, node, decimals)
            entry["colour"] = self._leaf_colour(value)
            return entry
        entry["counts"] = self._counts_text(node)
        entry["left"] = int(tree.children_left[node])
        entry["right"] = int(tree.children_right[node])
        mask = tree.categorical_mask(node)
        used = tree.features[node] >= 0
        if mask:
            used = np.arange(tree.features.shape[1]) == 0  # a categorical node reads slot 0
        entry["features"] = [int(f) for f in tree.features[node][used]]
        entry["weights"] = [float(w) for w in tree.weights[node][used]]
        entry["threshold"] = None if mask else float(tree.threshold[node])
        entry["categories"] = None
        # per used slot of a linear node, the codes of an indicator slot's set (else None)
        entry["indicator_categories"] = None
        if mask:
            entry["categories"] = [int(c) for c in mask_to_categories(mask)]
        else:
            entry["indicator_categories"] = [
                [int(c) for c in mask_to_categories(m)] if m else None
                for m in tree.category_mask[node][used]]
        entry["missing_left"] = bool(tree.missing_go_left[node])
        args = (tree.features[node], tree.weights[node], tree.threshold[node], names, decimals)
        # the texts of export_text's "if RULE:" and "else:  # RULE" lines
        # (each names the branch missing values take, learned or the heavier child)
        left = entry["missing_left"]
        masks = tree.category_mask[node]
        entry["rule"] = format_rule(*args, category_mask=masks, missing=left)
        entry["else"] = format_rule(*args, op=">", category_mask=masks, missing=not left)
        entry["pretty"] = _pretty(entry["rule"])
        # the card's text: a rule of many long categories would make a card pages tall
        entry["pretty_shown"] = _abbreviate(entry["pretty"], _RULE_CHARS)
        entry["plot"] = None
        return entry

    def _counts_text(self, node):
        """Training samples and counts (or value) of a decision node, as export_text's leaves."""
        tree, decimals = self.tree, self.decimals
        n = int(tree.n_node_samples[node])
        value = tree.value[node]
        if not self.classifier:
            return f"value: {format_number(value[0], decimals)}  (samples: {n})"
        counts = ", ".join(format_number(c, decimals) for c in value)
        return f"samples: {n}, counts: [{counts}]"

    def _leaf_colour(self, value):
        if self.classifier:
            return _lighten(_rgb(self.colours[int(np.argmax(value))]), 0.25)
        lo, hi = self.range
        share = 0.5 if hi <= lo else (float(value[0]) - lo) / (hi - lo)
        return _lighten(_viridis(share), 0.35)

    # ---- plots
    def add_plot(self, entry):
        """Give a decision node its plot, within the point budget (or a note saying why not)."""
        node = entry["id"]
        if self.budget <= 0:
            entry["plot_note"] = (f"no plot: the page holds at most "
                                  f"{self.max_total_points:,} points")
            return
        view = _make_view(self.estimator, self.data, node, self.names, self.second, self.rng,
                          self.decimals, self.target_name)
        if isinstance(view, _CategoryView):
            entry["plot"] = self._bars(view)
            self.budget -= view.categories.size
        else:
            entry["plot"] = (self._indicators(view) if isinstance(view, _IndicatorView)
                             else self._scatter(view))
            missing = entry["plot"]["missing"]
            self.budget -= len(entry["plot"]["u"]) + (missing["shown"] if missing else 0)

    def _colours(self, shown, rows):
        """``shown`` (points of the view, samples ``rows``) in drawing order and their
        colours (class codes, values, or None)."""
        data = self.data
        if data.codes is not None:
            codes = data.codes[rows]
            # the rarer classes drawn last, on top, as plot_tree does
            order = np.argsort(-np.bincount(codes, minlength=len(self.labels))[codes],
                               kind="stable")
            return shown[order], codes[order].tolist()
        if data.values is not None:
            return shown, _rounded(data.values[rows])
        return shown, None

    def _scatter(self, view):
        """The plot of a linear node: its points and the line ``a u + b v = t``."""
        plot = self._points(view)
        plot.update({"kind": "scatter", "a": float(view.a), "b": float(view.b),
                     "v_feature": view.v_feature})
        return plot

    def _points(self, view):
        """What every scatter shows: the points, the box, the missing strip."""
        # the samples missing a feature of the view are drawn in a strip beside the
        # scatter, as plot_tree draws them (see _missing_strip)
        known = np.flatnonzero(np.isfinite(view.u) & np.isfinite(view.v))
        n = known.size
        n_points = min(view.u.size, self.max_points, self.budget)
        drawn = _subsample(view.u.size, n_points, self.rng)
        shown = drawn[np.isfinite(view.u[drawn]) & np.isfinite(view.v[drawn])]
        shown, colour = self._colours(shown, view.rows[shown])
        box = _box(view, self.data)
        u0, u1, v0, v1 = box
        plot = {"x_label": view.xlabel, "y_label": view.ylabel, "t": float(view.t),
                "box": [float(u0), float(u1), float(v0), float(v1)],
                "u": _rounded(view.u[shown]), "v": _rounded(view.v[shown]), "c": colour,
                "strip": bool(view.strip), "u_terms": [[int(f), float(w)]
                                                       for f, w in view.u_terms],
                "v_feature": None, "shown": int(shown.size), "total": int(n),
                "note": _scatter_note(shown.size, n), "missing": None}
        plot.update(_axis_labels(plot["x_label"], plot["y_label"]))
        if n < view.u.size:
            plot["missing"] = self._missing_strip(view, drawn, box)
        return plot

    def _indicators(self, view):
        """The plot of a node with an indicator slot: a scatter of rows (or a grid).

        As :func:`bivtree.plot_split` draws it: ``pieces`` are the test's
        answer per row and side of its cut, ``[u0, u1, v0, v1, left]`` (``None``:
        an end open to the plot's edge), or per cell of a grid; ``cuts`` the
        segments ``[u, v0, v1]`` of the cuts; ``x_ticks`` (a grid's columns, else
        ``None``) and ``y_ticks`` the labels of the indicator values. The page
        places typed values with ``u_terms`` (numeric across) or ``column``, and
        ``row_slots`` (each ``[feature, codes]``), as ``_IndicatorView.position``.
        """
        plot = self._points(view)
        plot["kind"] = "indicators"

        def end(value):
            return float(value) if np.isfinite(value) else None

        plot["pieces"] = [[end(a), end(b), float(v0), float(v1), bool(left)]
                          for a, b, v0, v1, left in view.pieces()]
        plot["cuts"] = [] if view.cuts is None else [
            [float(c), r - _BAND, r + _BAND] for r, c in enumerate(view.cuts)
            if c is not None and np.isfinite(c)]
        plot["x_ticks"], plot["y_ticks"] = view.x_ticks, view.y_ticks
        # as drawn: a grid's two columns side by side; the rows' labels turned along the
        # axis, each in its row's height and in two lines of the left margin
        across = _fit_chars(_PLOT_WIDTH / 2, _TICK_CHAR_PX)
        along = _fit_chars(_PLOT_HEIGHT / view.n_rows, _TICK_CHAR_PX)
        plot["x_ticks_shown"] = (None if view.x_ticks is None
                                 else [_abbreviate(t, across) for t in view.x_ticks])
        plot["y_ticks_shown"] = [_label_lines(t, along, 2) for t in view.y_ticks]

        def codes(k):
            f, _, mask = view.slots[k]
            return [int(f), [int(c) for c in mask_to_categories(mask)]]

        plot["column"] = None if view.column is None else codes(view.column)
        plot["row_slots"] = [codes(k) for k in view.row_slots]
        return plot

    def _missing_strip(self, view, drawn, box):
        """The samples missing a feature of the node's test, for the strip right of the plot.

        As :func:`bivtree.plot_split` draws them: each keeps its height where its
        vertical feature is known (else a random one within the plot), at a random
        place across the strip (``x``, a fraction of its width); the strip is shaded,
        as the "yes" side is, when missing values go left (``left``).
        """
        _, _, v0, v1 = box
        missing = drawn[~(np.isfinite(view.u[drawn]) & np.isfinite(view.v[drawn]))]
        missing, colour = self._colours(missing, view.rows[missing])
        v = view.v[missing]
        x = 0.15 + 0.7 * self.rng.uniform(size=missing.size)
        y = np.where(np.isfinite(v), v,
                     v0 + (0.08 + 0.84 * self.rng.uniform(size=missing.size)) * (v1 - v0))
        n_missing = int(view.u.size - np.count_nonzero(np.isfinite(view.u)
                                                       & np.isfinite(view.v)))
        return {"x": _rounded(x), "v": _rounded(y), "c": colour,
                "left": bool(view.missing_left), "shown": int(missing.size),
                "total": n_missing}

    def _bars(self, view):
        data = self.data
        k = view.categories.size
        where = np.searchsorted(view.categories, view.u)
        plot = {"kind": "bars", "x_label": view.xlabel, "feature": int(view.feature),
                "categories": [_category_label(c, getattr(view.xlabel, "categories", None))
                               for c in view.categories],
                # the missing values' bar (NaN, last) as null
                "values": [None if np.isnan(c) else float(c) for c in view.categories],
                "left": [bool(b) for b in view.left], "total": int(view.u.size)}
        # each label centred under its bar, in the bar's width
        room = _fit_chars(_PLOT_WIDTH / max(k, 1), _TICK_CHAR_PX)
        plot["categories_shown"] = [_abbreviate(c, room) for c in plot["categories"]]
        plot.update(_axis_labels(plot["x_label"], "samples"))
        if data.codes is not None:
            counts = np.zeros((k, len(self.labels)), dtype=np.int64)
            np.add.at(counts, (where, data.codes[view.rows]), 1)
            plot["stack"] = counts.tolist()
        else:
            heights = np.bincount(where, minlength=k)
            plot["heights"] = heights.tolist()
            if data.values is not None:
                sums = np.bincount(where, weights=data.values[view.rows], minlength=k)
                means = np.divide(sums, heights, out=np.zeros(k), where=heights > 0)
                plot["means"] = _rounded(means)
        return plot


def _axis_labels(x_label, y_label):
    """A plot's axis labels as drawn, abbreviated to fit: ``x_label_shown`` centred under
    the plot's width, ``y_label_shown`` along its height."""
    return {"x_label_shown": _abbreviate(x_label, _fit_chars(_PLOT_WIDTH, _AXIS_CHAR_PX)),
            "y_label_shown": _abbreviate(y_label, _fit_chars(_PLOT_HEIGHT, _AXIS_CHAR_PX))}


def _subtree_sizes(tree):
    """Number of nodes below every node (its subtree without itself)."""
    size = np.ones(tree.node_count, dtype=np.int64)
    # a child's id is larger than its parent's: one pass from the last id up
    for node in range(tree.node_count - 1, -1, -1):
        left = tree.children_left[node]
        if left != TREE_LEAF:
            size[node] += size[left] + size[tree.children_right[node]]
    return size - 1


def _page_data(estimator, data, names, labels, options):
    """Everything the page's script reads, as JSON-ready Python values."""
    tree = estimator.tree_
    builder = _PageBuilder(estimator, data, names, labels, second=options["second"],
                           decimals=options["decimals"], max_points=options["max_points"],
                           max_total_points=options["max_total_points"],
                           target_name=options["target_name"], rng=options["rng"])
    depth = tree.node_depth
    parent = np.full(tree.node_count, -1, dtype=ITYPE)
    internal = np.flatnonzero(~tree.is_leaf)
    parent[tree.children_left[internal]] = internal
    parent[tree.children_right[internal]] = internal
    below = _subtree_sizes(tree)
    nodes = [builder.node(i, depth[i], parent[i], below[i]) for i in range(tree.node_count)]
    if data.has_data:
        # the budget goes to the shallowest nodes first: those the page opens with
        for i in np.argsort(depth, kind="stable"):
            if nodes[i]["left"] >= 0:
                builder.add_plot(nodes[i])
    row_leaves = None
    if data.has_data:
        stored = data.X[:options["max_rows"]]
        row_leaves = tree.apply(stored).tolist()
    return {
        "format": 1,
        "title": options["title"],
        "kind": "classifier" if labels is not None else "regressor",
        "constraints": fitted_constraints(estimator),
        "features": names,
        "classes": None if labels is None else [str(c) for c in labels],
        "colours": builder.colours,
        "range": builder.range,
        "viridis": [list(c) for c in _VIRIDIS],
        "target_name": options["target_name"],
        "decimals": options["decimals"],
        "open_levels": options["open_levels"],
        "max_points": options["max_points"],
        "max_total_points": options["max_total_points"],
        "depth": int(tree.max_depth),
        "n_leaves": int(tree.n_leaves),
        "has_data": data.has_data,
        "has_labels": data.has_y,
        "n_rows": None if not data.has_data else int(data.X.shape[0]),
        "row_leaves": row_leaves,
        "nodes": nodes,
    }


def _script_json(payload):
    """``payload`` as JSON that is safe inside a ``<script>`` element.

    Every ``<`` is written ``\\u003c``, so no feature name or label can close the
    element (``</script>``) or open a comment in it (``<!--``); ``>`` and ``&``
    are escaped too (harmless inside the element, but no data text then reads as
    markup anywhere). U+2028 and U+2029, line terminators to older JavaScript
    parsers, and lone surrogates, which UTF-8 cannot encode, are escaped as well.
    ``json.dumps`` already escapes quotes, backslashes and control characters
    (NUL included). ``JSON.parse`` reads the same text back.
    """
    text = json.dumps(payload, separators=(",", ":"), allow_nan=False, ensure_ascii=False)
    for char, escaped in (("<", "\\u003c"), (">", "\\u003e"), ("&", "\\u0026"),
                          ("\u2028", "\\u2028"), ("\u2029", "\\u2029")):
        text = text.replace(char, escaped)
    return _LONE_SURROGATE.sub(lambda m: f"\\u{ord(m.group()):04x}", text)


def _check_count(name, value, low):
    if not (isinstance(value, (int, np.integer)) and not isinstance(value, bool)
            and value >= low):
        raise ValueError(f"{name} must be an integer >= {low}, got {value!r}")
    return int(value)


def export_html(estimator, X=None, y=None, path=None, *, feature_names=None, class_names=None,
                decimals=DEFAULT_DECIMALS, open_levels=DEFAULT_OPEN_LEVELS,
                max_points=DEFAULT_MAX_POINTS, max_total_points=DEFAULT_MAX_TOTAL_POINTS,
                max_rows=DEFAULT_MAX_ROWS, second_feature="best", target_name="target",
                title=None, random_state=0):
    """The tree as one self-contained, interactive HTML page.

    The page works offline in any browser: script, style and data are inline and
    nothing is loaded from elsewhere. See the module documentation for what it shows.

    Parameters
    ----------
    estimator : fitted bivtree estimator
        A :class:`~bivtree.BivariateTreeClassifier`, :class:`~bivtree.BivariateTreeRegressor`,
        :class:`~bivtree.TAOTreeClassifier` or :class:`~bivtree.TAOTreeRegressor`.
        A model selector (``TAOTreeClassifierCV``, ``CostComplexityCV``...) stands
        for its chosen tree, ``best_estimator_``.
    X : array-like of shape (n_samples, n_features), default=None
        Samples (typically the training data): every decision node gets a scatter plot
        of those reaching it, and the search box takes row indices of ``X`` (from 0).
        Without ``X`` the page shows the tree without plots.
    y : array-like of shape (n_samples,), default=None
        Labels of ``X``: points are coloured by class (by value for a regressor) and
        ``|R|`` / ``L`` count these samples, as in :func:`bivtree.plot_tree`.
    path : str or path-like, default=None
        Also write the page there (UTF-8).
    feature_names, class_names : sequence of str, default=None
        Display names; by default ``feature_names_in_`` (or ``x0, x1, ...``) and the labels.
    decimals : int or None, default=DEFAULT_DECIMALS (4)
        Significant digits of the rules, as in :func:`bivtree.export_text`.
    open_levels : int, default=4
        Levels shown when the page opens (depth 0 to ``open_levels - 1``); the decision
        nodes of the last level shown are collapsed, with the number of nodes below.
    max_points : int, default=1000
        Most points in one node's plot (a random subset above that, and the plot says
        e.g. "1,000 of 19,020 shown").
    max_total_points : int, default=200000
        Most points in all plots together, spent on the shallowest nodes first; it
        bounds the file size (about 20 bytes per point).
    max_rows : int, default=100000
        Most rows of ``X`` the search box can look up by index.
    second_feature : "best", "strip", str or int, default="best"
        How a univariate node is drawn (see :func:`bivtree.plot_tree`).
    target_name : str, default="target"
        Name of a regressor's target (its colour scale, strip plots).
    title : str, default=None
        Title of the page; by default the estimator's class, leaves and depth.
    random_state : int, default=0
        Seeds the point subsets and strip-plot jitter, so the page is reproducible.

    Returns
    -------
    str
        The HTML text. The tree's data is the JSON in its
        ``<script type="application/json" id="bivtree-data">`` element: per node its
        test (``rule``, the text of ``export_text``), counts and plot.
    """
    estimator = tree_estimator(estimator, "export_html")  # a model selector: its chosen tree
    names = resolve_feature_names(estimator, feature_names)
    labels = resolve_class_labels(estimator, class_names)
    tree = estimator.tree_
    options = {
        "second": _check_second_feature(second_feature, names),
        "decimals": decimals, "open_levels": _check_count("open_levels", open_levels, 1),
        "max_points": _check_count("max_points", max_points, 1),
        "max_total_points": _check_count("max_total_points", max_total_points, 0),
        "max_rows": _check_count("max_rows", max_rows, 0),
        "target_name": str(target_name), "rng": np.random.default_rng(random_state),
        "title": str(title) if title is not None else (
            f"{type(estimator).__name__}: {tree.n_leaves} leaves, depth {tree.max_depth}")}
    data = _Data(estimator, X, y)
    payload = _page_data(estimator, data, names, labels, options)
    page = _PAGE.format(title=html.escape(options["title"]), style=PAGE_STYLE,
                        data=_script_json(payload), script=PAGE_SCRIPT)
    if path is not None:
        with open(path, "w", encoding="utf-8") as fh:
            fh.write(page)
    return page


_PAGE = """<!DOCTYPE html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<meta name="generator" content="bivtree">
<title>{title}</title>
<style>
{style}
</style>
</head>
<body data-status="loading">
<header id="bar">
  <h1 id="title">{title}</h1>
  <div id="summary"></div>
  <div id="legend"></div>
  <div id="controls">
    <span class="group">levels open:
      <button type="button" id="fewer" title="show one level less">&minus;</button>
      <span id="levels"></span>
      <button type="button" id="more" title="show one level more">+</button>
      <button type="button" id="all">expand all</button>
    </span>
    <form id="search" class="group" autocomplete="off">
      <input id="query" type="text" size="60" aria-label="sample">
      <button type="submit">find path</button>
      <button type="button" id="clear">clear</button>
    </form>
  </div>
  <div id="result"></div>
</header>
<main id="view"><div id="tree"><svg id="edges"></svg></div></main>
<div id="tip" role="tooltip"></div>
<noscript>This page draws the tree with JavaScript; enable it to see the tree.</noscript>
<script type="application/json" id="bivtree-data">{data}</script>
<script>
{script}
</script>
</body>
</html>
"""
