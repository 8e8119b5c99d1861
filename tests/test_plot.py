"""Pictures of trees: plot_tree and plot_split, drawn headless (Agg)."""

import io
import sys

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

matplotlib = pytest.importorskip("matplotlib")
matplotlib.use("Agg")

import matplotlib.pyplot as plt

from bivtree import (
    BivariateTreeClassifier,
    BivariateTreeRegressor,
    TAOTreeClassifier,
    TAOTreeRegressor,
    Tree,
    plot_split,
    plot_tree,
)
from bivtree._config import TREE_LEAF
from bivtree._kernels.traversal import goes_left
from bivtree.export.plot import _clip_half_plane, _line_in_box
from bivtree.tree import categories_to_mask, mask_to_categories

#: the default search without its lookahead: these small fits keep bivariate roots
ONE_STEP = {"lookahead_samples": 0}


@pytest.fixture(autouse=True)
def close_figures():
    yield
    plt.close("all")


def data(n=120, seed=0):
    rng = np.random.default_rng(seed)
    X = rng.uniform(1.0, 10.0, size=(n, 3))
    y = (X[:, 0] - 0.6 * X[:, 1] > 1.0).astype(int) + (X[:, 2] > 7.0)
    return X, y


def three_feature_classifier():
    """A classifier whose root tests three features (MUST's s = 3), built by hand."""
    X, _ = data()
    y = (X[:, 0] + 0.5 * X[:, 1] - 0.7 * X[:, 2] <= 2.0).astype(int)
    clf = BivariateTreeClassifier(max_depth=1).fit(X, y)
    left = y == 1
    n_left, n_right = int(left.sum()), int((~left).sum())
    clf.tree_ = Tree([1, -1, -1], [2, -1, -1], [[0, 1, 2], [-1, -1, -1], [-1, -1, -1]],
                     [[1.0, 0.5, -0.7], [0, 0, 0], [0, 0, 0]], [2.0, -2.0, -2.0],
                     [0.5, 0.0, 0.0], [X.shape[0], n_left, n_right],
                     [X.shape[0], n_left, n_right],
                     [[n_right, n_left], [0, n_left], [n_right, 0]], 3)
    assert np.array_equal(clf.predict(X), y)
    return clf, X, y


def node_axes(ax):
    return {int(child.get_label().split()[1]): child for child in ax.child_axes
            if child.get_label().startswith("node ")}


def artist(axes, gid):
    found = [a for a in axes.get_children() if a.get_gid() == gid]
    assert len(found) == 1, (gid, found)
    return found[0]


def rule_value(tree, node, x):
    """``sum_k w_k x[f_k] - threshold`` of the stored rule (<= 0: the sample goes left)."""
    s = 0.0
    for f, w in zip(tree.features[node], tree.weights[node]):
        if f >= 0:
            s += w * x[f]
    return s - tree.threshold[node]


def point_in_data_space(tree, node, names, axes, u, v, base):
    """The full feature vector that a point (u, v) of a node's plot stands for."""
    x = base.copy()
    used = tree.features[node][tree.features[node] >= 0]
    if used.size >= 3:  # across: the first terms combined (first weight 1); x[f0] carries u
        x[used[1:-1]] = 0.0
        x[used[0]] = u
        x[used[-1]] = v
        return x
    x[names.index(axes.get_xlabel())] = u
    if axes.get_ylabel() in names:
        x[names.index(axes.get_ylabel())] = v
    return x


def check_split_drawings(estimator, ax_by_node, names, base):
    """The drawn line is the stored rule; points beside it and the shading agree."""
    tree = estimator.tree_
    for node, axes in ax_by_node.items():
        line = artist(axes, "split")
        (u0, u1), (v0, v1) = line.get_data()
        span = np.hypot(np.ptp(axes.get_xlim()), np.ptp(axes.get_ylim()))
        scale = 1.0 + abs(tree.threshold[node]) + np.abs(base).max() * 2
        for u, v in ((u0, v0), (u1, v1)):
            x = point_in_data_space(tree, node, names, axes, u, v, base)
            assert abs(rule_value(tree, node, x)) <= 1e-9 * scale
        # a little to either side of the middle, across the line (in axes units)
        du, dv = (u1 - u0), (v1 - v0)
        xr, yr = np.ptp(axes.get_xlim()), np.ptp(axes.get_ylim())
        normal = np.array([-dv / yr, du / xr])
        normal /= np.hypot(*normal)
        mid = np.array([(u0 + u1) / 2, (v0 + v1) / 2])
        sides = []
        for sign in (1.0, -1.0):
            step = sign * 0.02 * normal * np.array([xr, yr])
            x = point_in_data_space(tree, node, names, axes, *(mid + step), base)
            sides.append(rule_value(tree, node, x) <= 0)
        assert sides[0] != sides[1], (node, span)
        # the shaded region is the side where the test holds
        shade = artist(axes, "yes-region").get_xy()
        centre = shade[:-1].mean(axis=0)
        x = point_in_data_space(tree, node, names, axes, *centre, base)
        assert rule_value(tree, node, x) <= 0


def fitted_models():
    X, y = data()
    cases = {
        "bivariate": (BivariateTreeClassifier(max_depth=2, splitter_options=ONE_STEP).fit(X, y),
                      X, y),
        "univariate": (BivariateTreeClassifier(splitter="univariate", max_depth=2).fit(X, y),
                       X, y),
        "regressor": (BivariateTreeRegressor(max_depth=2).fit(X, X[:, 0] - 0.5 * X[:, 1]), X,
                      X[:, 0] - 0.5 * X[:, 1]),
        "three features": three_feature_classifier(),
    }
    return cases


CASES = fitted_models()


@pytest.mark.parametrize("case", sorted(CASES))
def test_split_lines_match_the_stored_rules(case):
    estimator, X, y = CASES[case]
    names = ["x0", "x1", "x2"]
    ax = plot_tree(estimator, X, y)
    by_node = node_axes(ax)
    decision = np.flatnonzero(estimator.tree_.children_left != TREE_LEAF)
    assert sorted(by_node) == decision.tolist()
    check_split_drawings(estimator, by_node, names, np.median(X, axis=0))
    for node in decision:
        single = plot_split(estimator, int(node), X, y)
        check_split_drawings(estimator, {int(node): single}, names, np.median(X, axis=0))


@pytest.mark.parametrize("case", sorted(CASES))
def test_figures_build_with_and_without_data(case):
    estimator, X, y = CASES[case]
    tree = estimator.tree_
    for args in ((), (X,), (X, y)):
        ax = plot_tree(estimator, *args)
        texts = [t.get_text() for t in ax.texts]
        for leaf in np.flatnonzero(tree.children_left == TREE_LEAF):
            box = [t for t in texts if t.startswith(f"#{leaf}\n")]
            assert len(box) == 1, (leaf, texts)
            n = int(tree.n_node_samples[leaf])
            assert f"|R| = {n}" in box[0]
            assert ("class: " in box[0] and "L = " in box[0]) or (
                "value: " in box[0] and "MSE = " in box[0])
        assert bool(node_axes(ax)) == bool(args)
        buffer = io.BytesIO()
        ax.figure.savefig(buffer, format="png", dpi=30)
        assert buffer.getvalue()[:4] == b"\x89PNG"
        plt.close(ax.figure)


def test_leaf_counts_come_from_the_given_data():
    estimator, X, y = CASES["bivariate"]
    half = slice(0, 60)
    ax = plot_tree(estimator, X[half], y[half])
    leaves = estimator.apply(X[half])
    predictions = estimator.predict(X[half])
    texts = [t.get_text() for t in ax.texts]
    for leaf in np.unique(leaves):
        box = next(t for t in texts if t.startswith(f"#{leaf}\n"))
        n = int(np.sum(leaves == leaf))
        errors = int(np.sum((leaves == leaf) & (predictions != y[half])))
        assert f"|R| = {n}" in box and f"L = {errors}" in box


def test_pandas_input_string_classes_and_names():
    pd = pytest.importorskip("pandas")
    X, y = data()
    frame = pd.DataFrame(X, columns=["waist $", "height", "age"])
    labels = pd.Series(np.array(["low", "mid", "high"])[y])
    clf = BivariateTreeClassifier(max_depth=2).fit(frame, labels)
    ax = plot_tree(clf, frame, labels)
    legend = [t.get_text() for t in ax.get_legend().get_texts()]
    assert legend == ["high", "low", "mid"]
    labels_drawn = {a.get_xlabel() for a in node_axes(ax).values()}
    # a "$" is escaped so matplotlib does not start math mode
    assert labels_drawn <= {"waist \\$", "height", "age"}
    check_split_drawings(clf, node_axes(ax), ["waist \\$", "height", "age"],
                         np.median(X, axis=0))
    ax = plot_split(clf, 0, frame, labels, class_names=["H", "L", "M"])
    assert next(t.get_text() for t in ax.get_legend().get_texts()).startswith("H (")


def test_univariate_nodes_as_strip_or_against_a_chosen_feature():
    estimator, X, y = CASES["univariate"]
    root = int(estimator.tree_.features[0, 0])
    strip = node_axes(plot_tree(estimator, X, y, second_feature="strip"))[0]
    assert strip.get_ylabel() == "class"
    assert [t.get_text() for t in strip.get_yticklabels()] == ["0", "1", "2"]
    (u0, u1), _ = artist(strip, "split").get_data()
    assert u0 == u1 == estimator.tree_.threshold[0]
    other = (root + 1) % 3
    chosen = node_axes(plot_tree(estimator, X, y, second_feature=f"x{other}"))[0]
    assert chosen.get_ylabel() == f"x{other}"
    best = node_axes(plot_tree(estimator, X, y))[0]
    assert best.get_xlabel() == f"x{root}" and best.get_ylabel() != f"x{root}"


@pytest.mark.parametrize("tao", [TAOTreeClassifier, TAOTreeRegressor])
def test_tao_trees_draw_univariate_nodes_against_their_best_second_feature(tao):
    rng = np.random.default_rng(4)
    X = rng.normal(size=(80, 3))
    y = (X[:, 0] > 0.2).astype(int)
    estimator = tao(alpha=0.0, init="univariate", max_depth=2, feature_cost=100.0).fit(X, y)
    assert estimator.tree_.n_node_features[0] == 1
    root = node_axes(plot_tree(estimator, X, y))[0]
    assert root.get_xlabel() == "x0" and root.get_ylabel() in ("x1", "x2")
    plot_split(estimator, 0, X, y)
    plt.close("all")


def test_discrete_data_draws_pies_on_true_positions():
    rng = np.random.default_rng(1)
    X = rng.integers(1, 4, size=(200, 2)).astype(float)
    y = (X[:, 0] >= X[:, 1]).astype(int) ^ (rng.random(200) < 0.1)
    clf = BivariateTreeClassifier(max_depth=1).fit(X, y)
    axes = node_axes(plot_tree(clf, X, y))[0]
    offsets = np.vstack([c.get_offsets() for c in axes.collections if len(c.get_offsets())])
    assert set(map(tuple, offsets)) <= set(map(tuple, X))


def test_a_long_cascade_is_wrapped_into_columns():
    # a lopsided cascade like the paper's figure 8: every right child splits again
    depth = 14
    n = 2 * depth + 1
    left = np.full(n, -1)
    right = np.full(n, -1)
    features = np.full((n, 2), -1)
    weights = np.zeros((n, 2))
    threshold = np.full(n, -2.0)
    value = np.zeros((n, 2))
    for d in range(depth):
        node = 2 * d
        left[node], right[node] = node + 1, node + 2
        features[node] = [0, 1]
        weights[node] = [1.0, 0.5]
        threshold[node] = float(d)
        value[node + 1] = [1, 0] if d % 2 else [0, 1]
    value[n - 1] = [1, 1]
    X, y = data(n=50)
    clf = BivariateTreeClassifier(max_depth=1).fit(X[:, :2], y > 0)
    counts = np.arange(n, 0, -1)
    # missing values go right (the cascade's way): each box says so on a line of its own
    clf.tree_ = Tree(left, right, features, weights, threshold, np.zeros(n), counts,
                     counts.astype(float), value, 2, missing_go_left=np.zeros(n, dtype=bool))
    ax = plot_tree(clf)
    width, height = ax.figure.get_size_inches()
    assert 0.8 < width / height < 4.0
    markers = [t.get_text() for t in ax.texts if t.get_text().startswith("from #")]
    assert markers, "no edge continues into another column"
    flat = plot_tree(clf, columns=1)
    w1, h1 = flat.figure.get_size_inches()
    assert w1 / h1 < 0.8


def test_max_depth_hides_deeper_nodes():
    estimator, X, y = CASES["bivariate"]
    ax = plot_tree(estimator, X, y, max_depth=0)
    assert list(node_axes(ax)) == [0]
    assert any("more nodes" in t.get_text() for t in ax.texts) or estimator.get_depth() == 1


def test_draws_into_a_given_axes_and_regressor_colour_bar():
    estimator, X, y = CASES["regressor"]
    fig, (a, b) = plt.subplots(1, 2, figsize=(12, 6))
    assert plot_tree(estimator, X, y, ax=a) is a
    assert plot_split(estimator, 0, X, y, ax=b) is b
    assert len(fig.axes) > 2  # node plots and colour bars


def test_ratio_written_in_plot_split_title():
    rng = np.random.default_rng(0)
    X = np.column_stack([rng.uniform(60, 125, 300), rng.uniform(150, 200, 300)])
    y = (X[:, 0] / X[:, 1] > 0.5).astype(int)
    clf = BivariateTreeClassifier(max_depth=1, n_orientations=180).fit(X, y)
    clf.tree_.threshold[0] = 0.0  # through the origin: the ratio is then exact
    title = plot_split(clf, 0, X, y, feature_names=["waist", "height"]).get_title()
    assert "that is, waist / height ≤ " in title


@pytest.mark.parametrize("kwargs, message", [
    ({"y": [0, 1]}, "y was given without X"),
    ({"second_feature": "nope"}, "second_feature"),
    ({"second_feature": 7}, "out of range"),
    ({"columns": 0}, "columns"),
    ({"max_depth": -1}, "max_depth"),
    ({"class_names": ["a"]}, "class_names has 1"),
])
def test_bad_arguments(kwargs, message):
    estimator, _X, _y = CASES["bivariate"]
    with pytest.raises(ValueError, match=message):
        plot_tree(estimator, **kwargs)


def test_bad_data_and_nodes():
    estimator, X, y = CASES["bivariate"]
    with pytest.raises(ValueError, match="expected \\(120,\\)"):
        plot_tree(estimator, X, y[:5])
    with pytest.raises(ValueError, match="does not know: 7"):
        plot_tree(estimator, X, np.where(y == 0, 7, y))
    with pytest.raises(ValueError, match="features"):
        plot_tree(estimator, X[:, :2], y)
    leaf = int(np.flatnonzero(estimator.tree_.children_left == TREE_LEAF)[0])
    with pytest.raises(ValueError, match=f"node {leaf} is a leaf"):
        plot_split(estimator, leaf, X, y)
    with pytest.raises(ValueError, match="node_id"):
        plot_split(estimator, 999, X, y)
    with pytest.raises(ValueError, match="needs the samples"):
        plot_split(estimator, 0, None)


def test_missing_matplotlib_says_how_to_install(monkeypatch):
    estimator, _X, _y = CASES["bivariate"]
    monkeypatch.setitem(sys.modules, "matplotlib.pyplot", None)
    with pytest.raises(ImportError, match=r'pip install "bivtree\[plot\]"'):
        plot_tree(estimator)


def polygon_area(points):
    p = np.asarray(points)
    return 0.5 * abs(np.dot(p[:, 0], np.roll(p[:, 1], 1)) - np.dot(p[:, 1], np.roll(p[:, 0], 1)))


finite = st.floats(-100, 100, allow_nan=False)


@settings(max_examples=100, deadline=None)
@given(a=finite, b=finite, t=finite, u0=finite, v0=finite,
       width=st.floats(0.1, 50), height=st.floats(0.1, 50))
def test_line_and_shading_geometry(a, b, t, u0, v0, width, height):
    """The drawn segment lies on a u + b v = t inside the box; the two shaded sides tile it."""
    if abs(a) < 1e-6 and abs(b) < 1e-6:
        return
    box = (u0, u0 + width, v0, v0 + height)
    rect = [(box[0], box[2]), (box[1], box[2]), (box[1], box[3]), (box[0], box[3])]
    scale = abs(a) * (abs(u0) + width) + abs(b) * (abs(v0) + height) + abs(t)
    segment = _line_in_box(a, b, t, box)
    if segment is not None:
        for u, v in segment:
            assert abs(a * u + b * v - t) <= 1e-9 * scale
            assert box[0] <= u <= box[1] and box[2] <= v <= box[3]
    yes = _clip_half_plane(rect, a, b, t, keep_le=True)
    no = _clip_half_plane(rect, a, b, t, keep_le=False)
    for u, v in yes:
        assert a * u + b * v - t <= 1e-9 * scale
    for u, v in no:
        assert a * u + b * v - t >= -1e-9 * scale
    area = sum(polygon_area(p) for p in (yes, no) if len(p) >= 3)
    assert area == pytest.approx(width * height, rel=1e-6)


# --------------------------------------------------------------------------- highlight
def categorical_classifier():
    rng = np.random.default_rng(1)
    n = 120
    codes = np.concatenate([np.arange(6), rng.integers(0, 6, size=n - 6)])
    X = np.column_stack([rng.normal(size=n), rng.normal(size=n), codes])
    y = (np.isin(codes, [1, 3, 4]) ^ (X[:, 0] > 1.0)).astype(int)
    clf = BivariateTreeClassifier(splitter="lda", max_depth=3, splitter_options={
        "categorical_features": [2]}).fit(X, y)
    assert clf.tree_.is_categorical.any()
    return clf, X, y


def indicator_data(n=200, seed=0):
    """A numeric column ``a``, a colour's codes (0 to 4) and ``size``: the label depends on
    ``a`` with a shift for colours 3 and 4, so the default search pairs ``a`` with a colour's
    indicator. A few rows miss the colour or ``a`` (none of rows 0, 7 and 33)."""
    rng = np.random.default_rng(seed)
    a = rng.normal(size=n)
    colour = rng.integers(0, 5, n).astype(float)
    size = rng.choice([3.0, 10.0, 40.0], n)
    score = a + np.isin(colour, [3, 4]) * 1.5 - (size == 10)
    y = (score + 0.3 * rng.normal(size=n) > 0.5).astype(int)
    X = np.column_stack([a, rng.normal(size=n), colour, size])
    X[np.arange(n) % 13 == 5, 2] = np.nan
    X[np.arange(n) % 17 == 3, 0] = np.nan
    return X, y


def indicator_classifier():
    X, y = indicator_data()
    clf = BivariateTreeClassifier(max_depth=2, categorical_features=[2]).fit(X, y)
    assert clf.tree_.has_indicator_slots.any()
    return clf, X, y


def two_indicator_classifier():
    """A root testing ``c1 in {0} and c2 in {2}``: two indicator slots, no numeric one."""
    rng = np.random.default_rng(2)
    n = 240
    X = np.column_stack([rng.integers(0, 3, n), rng.integers(0, 4, n)]).astype(float)
    y = ((X[:, 0] == 0) & (X[:, 1] == 2)).astype(int)
    clf = BivariateTreeClassifier(max_depth=2, categorical_features=[0, 1]).fit(X, y)
    tree = clf.tree_
    assert tree.has_indicator_slots[0] and (tree.category_mask[0] != 0).all()
    return clf, X, y


HIGHLIGHT_CASES = dict(CASES, categorical=categorical_classifier(),
                       indicators=indicator_classifier())


def in_set(code, mask):
    """The indicator of an indicator slot, written out (``traversal.slot_value``)."""
    if np.isnan(code):
        return np.nan
    return float(float(code).is_integer() and 0 <= code <= 63 and (int(mask) >> int(code)) & 1)


def highlight_marker(axes):
    found = [a for a in axes.collections if a.get_gid() == "highlight"]
    return found[0] if found else None


def expected_position(estimator, node, axes, x, X):
    """Where a sample ``x`` belongs in the plot of ``node`` (drawn from ``X``)."""
    tree = estimator.tree_
    used = tree.features[node] >= 0
    feats, wts = tree.features[node][used], tree.weights[node][used]
    if tree.is_categorical[node]:
        ticks = [float(t.get_text()) for t in axes.get_xticklabels()]
        rows = estimator.decision_path(X).tocsc()[:, node].indices
        return ticks.index(x[feats[0]]), np.count_nonzero(X[rows, feats[0]] == x[feats[0]])
    if tree.has_indicator_slots[node]:
        # the numeric feature across (else the first indicator), the indicator up
        masks = tree.category_mask[node][used]
        numeric = [x[f] for f, m in zip(feats, masks) if m == 0]
        indicators = [in_set(x[f], m) for f, m in zip(feats, masks) if m != 0]
        return tuple((numeric + indicators)[:2])
    if feats.size == 1:
        g = int(axes.get_ylabel()[1:])
        return x[feats[0]], x[g]
    u = 0.0
    for f, w in zip(feats[:-1], wts[:-1]):
        u = u + w * x[f]
    return (x[feats[0]] if feats.size == 2 else u), x[feats[-1]]


@pytest.mark.parametrize("case", sorted(HIGHLIGHT_CASES))
def test_highlight_marks_the_sample_on_exactly_its_path(case):
    estimator, X, y = HIGHLIGHT_CASES[case]
    tree = estimator.tree_
    for k in (0, 7, 33):
        x = X[k]
        path = set(estimator.decision_path(x[None]).indices.tolist())
        ax = plot_tree(estimator, X, y, highlight=x.tolist())
        marked = {node for node, axes in node_axes(ax).items() if highlight_marker(axes)}
        assert marked == {n for n in path if tree.children_left[n] != TREE_LEAF}
        if case == "categorical":
            assert any(tree.is_categorical[n] for n in marked)
        for node in marked:
            axes = node_axes(ax)[node]
            drawn = highlight_marker(axes).get_offsets()
            assert drawn.shape == (1, 2)
            np.testing.assert_allclose(drawn[0], expected_position(estimator, node, axes, x, X),
                                       rtol=0, atol=1e-12)
            assert all(s.get_linewidth() > 1.5 for s in axes.spines.values())
        for node, axes in node_axes(ax).items():
            if node not in path:
                assert all(s.get_linewidth() < 1.5 for s in axes.spines.values())
        # the path's leaf box is drawn thick, the other leaves as before
        leaf = int(estimator.apply(x[None])[0])
        for t in ax.texts:
            number = t.get_text().split("\n")[0]
            if t.get_bbox_patch() is not None and number.startswith("#"):
                thick = t.get_bbox_patch().get_linewidth() > 1.5
                assert thick == (int(number[1:].split()[0]) == leaf)
        legend = [t.get_text() for t in ax.get_legend().get_texts()]
        assert legend[-1] == "sample"
        plt.close(ax.figure)


def test_highlight_without_highlight_draws_no_marker_and_other_inputs():
    pd = pytest.importorskip("pandas")
    estimator, X, y = CASES["bivariate"]
    ax = plot_tree(estimator, X, y)
    assert not any(highlight_marker(a) for a in node_axes(ax).values())
    assert "sample" not in [t.get_text() for t in ax.get_legend().get_texts()]
    frame = pd.DataFrame(X, columns=["a", "b", "c"])
    clf = BivariateTreeClassifier(max_depth=2, splitter_options=ONE_STEP).fit(frame, y)
    for one in (frame.iloc[5], frame.iloc[[5]]):
        root = node_axes(plot_tree(clf, frame, y, highlight=one))[0]
        np.testing.assert_allclose(highlight_marker(root).get_offsets()[0],
                                   X[5, clf.tree_.features[0]])
    # without samples the path is still drawn thick, and the legend says "sample"
    ax = plot_tree(estimator, highlight=X[0])
    assert [t.get_text() for t in ax.get_legend().get_texts()] == ["sample"]


def test_strip_plot_marks_the_sample_at_its_predicted_class():
    estimator, X, y = CASES["univariate"]
    x = X[3]
    root = node_axes(plot_tree(estimator, X, y, second_feature="strip", highlight=x))[0]
    u, v = highlight_marker(root).get_offsets()[0]
    f = estimator.tree_.features[0, 0]
    assert u == x[f] and v == np.flatnonzero(estimator.classes_ == estimator.predict([x]))[0]


@pytest.mark.parametrize("case", sorted(HIGHLIGHT_CASES))
def test_plot_split_marks_the_sample_at_and_off_its_path(case):
    estimator, X, y = HIGHLIGHT_CASES[case]
    tree = estimator.tree_
    x = X[7]
    path = set(estimator.decision_path(x[None]).indices.tolist())
    for node in np.flatnonzero(tree.children_left != TREE_LEAF):
        node = int(node)
        ax = plot_split(estimator, node, X, y, highlight=x)
        drawn = highlight_marker(ax).get_offsets()[0]
        if node in path or not tree.is_categorical[node]:
            # off the path a categorical node may draw the sample's category as an extra bar
            np.testing.assert_allclose(drawn, expected_position(estimator, node, ax, x, X),
                                       rtol=0, atol=1e-12)
        legend = [t.get_text() for t in ax.get_legend().get_texts()]
        assert legend[-1] == ("sample" if node in path else "sample (not at this node)")
        xmin, xmax = ax.get_xlim()
        ymin, ymax = ax.get_ylim()
        assert xmin <= drawn[0] <= xmax and ymin <= drawn[1] <= ymax
        plt.close(ax.figure)


def test_plot_split_shows_a_sample_outside_the_node_s_samples():
    estimator, X, y = CASES["bivariate"]
    far = np.array([100.0, -50.0, 3.0])
    ax = plot_split(estimator, 0, X, y, highlight=far)
    drawn = highlight_marker(ax).get_offsets()[0]
    f0, f1 = estimator.tree_.features[0]
    assert drawn.tolist() == [far[f0], far[f1]]
    assert ax.get_xlim()[0] <= drawn[0] <= ax.get_xlim()[1]
    assert ax.get_ylim()[0] <= drawn[1] <= ax.get_ylim()[1]


@pytest.mark.parametrize("bad", [[1.0, 2.0], [1.0, np.inf, 2.0], [[1.0, 2.0, 3.0]] * 2])
def test_bad_highlight_gives_predict_s_error(bad):
    estimator, X, y = CASES["bivariate"]
    rows = np.atleast_2d(np.asarray(bad, dtype=float))
    if rows.shape[0] == 1:
        with pytest.raises(ValueError) as expected:
            estimator.predict(rows)
        message = str(expected.value)
    else:
        message = "highlight is one sample"
    for draw in (lambda: plot_tree(estimator, X, y, highlight=bad),
                 lambda: plot_split(estimator, 0, X, y, highlight=bad)):
        with pytest.raises(ValueError) as raised:
            draw()
        assert message in str(raised.value)


def subsample_labels(axes):
    return [t.get_text() for t in axes.texts if t.get_gid() == "subsample"]


def test_subsampled_plots_say_how_many_points_they_show():
    X, y = data(n=2500, seed=3)
    clf = BivariateTreeClassifier(max_depth=1).fit(X, y)
    root = node_axes(plot_tree(clf, X, y))[0]
    assert subsample_labels(root) == ["1,000 of 2,500 shown"]
    assert sum(len(c.get_offsets()) for c in root.collections) == 1000
    root = node_axes(plot_tree(clf, X, y, max_points=5000))[0]
    assert subsample_labels(root) == []
    assert subsample_labels(plot_split(clf, 0, X, y)) == []
    assert subsample_labels(plot_split(clf, 0, X, y, max_points=200)) == ["200 of 2,500 shown"]
    estimator, X, y = CASES["bivariate"]
    for axes in node_axes(plot_tree(estimator, X, y)).values():
        assert subsample_labels(axes) == []


# --------------------------------------------------------------------------- indicator slots
def rectangles(axes, gid):
    """``(u0, u1, v0, v1)`` of every rectangle of the collection with ``gid``."""
    boxes = []
    for path in artist(axes, gid).get_paths():
        (u0, v0), (u1, v1) = path.vertices.min(axis=0), path.vertices.max(axis=0)
        boxes.append((u0, u1, v0, v1))
    return boxes


def data_points(axes):
    """Offsets of the drawn samples: every scatter but the highlighted sample's."""
    found = [c.get_offsets() for c in axes.collections
             if c.get_gid() is None and len(c.get_offsets())]
    return np.vstack(found) if found else np.empty((0, 2))


def sample_row(tree, node, values):
    """One row of codes and values giving the node's slots ``values`` (NaN elsewhere):
    an indicator slot's 1 is the first code of its set, its 0 a code outside it."""
    x = np.full((1, tree.n_features), np.nan)
    for f, m, v in zip(tree.features[node], tree.category_mask[node], values):
        if f < 0:
            continue
        if m == 0:
            x[0, f] = v
        else:
            codes = mask_to_categories(m)
            x[0, f] = codes[0] if v == 1 else min(set(range(64)) - set(codes))
    return x


def routed_left(tree, node, values):
    """The routing kernel's side at ``node`` for the slot ``values`` (indicators as 0/1)."""
    return bool(goes_left(sample_row(tree, node, values), 0, tree.features[node],
                          tree.weights[node], tree.threshold[node], tree.category_mask[node],
                          tree.missing_go_left[node]))


def check_indicator_axes(estimator, node, axes, X, names):
    """A node with indicator slots: ticks, cuts, shading and points all tell its test."""
    tree = estimator.tree_
    used = tree.features[node] >= 0
    feats, wts = tree.features[node][used], tree.weights[node][used]
    masks, t = tree.category_mask[node][used], tree.threshold[node]
    numeric = [k for k in range(feats.size) if masks[k] == 0]
    indicator = [k for k in range(feats.size) if masks[k] != 0]
    across, up = (numeric[0], indicator[0]) if numeric else (indicator[0], indicator[1])

    def set_text(k):
        codes = ", ".join(str(c) for c in mask_to_categories(masks[k]))
        return f"{names[feats[k]]} in {{{codes}}}"

    assert [x.get_text() for x in axes.get_yticklabels()] == ["not", set_text(up)]
    assert axes.get_xlabel() == names[feats[across]] and axes.get_ylabel() == names[feats[up]]
    if not numeric:
        assert [x.get_text() for x in axes.get_xticklabels()] == ["not", set_text(across)]
    rows = estimator.decision_path(X).tocsc()[:, node].indices
    known = rows[~np.isnan(X[np.ix_(rows, feats)]).any(axis=1)]
    u_true = X[known, feats[across]] if numeric else np.array(
        [in_set(c, masks[across]) for c in X[known, feats[across]]])
    v_true = np.array([in_set(c, masks[up]) for c in X[known, feats[up]]])

    def values(u, r):
        out = [0.0] * feats.size
        out[across], out[up] = u, r
        return out

    if numeric:
        # each row's cut: w_across * u + w_up * r <= t, that is u <= (t - w_up * r) / w_across
        # (>= for a negative weight), a segment across the row at exactly that u
        cuts = {r: (t - wts[up] * r) / wts[across] for r in (0, 1)}
        drawn = artist(axes, "split").get_segments()
        for segment in drawn:
            (u0, v0), (u1, v1) = segment
            r = round((v0 + v1) / 2)
            assert u0 == u1 and u0 == pytest.approx(cuts[r], rel=1e-12, abs=1e-12)
            assert v0 == pytest.approx(r - 0.42) and v1 == pytest.approx(r + 0.42)
        # a cut among the row's samples is drawn
        for r, cut in cuts.items():
            row_u = u_true[v_true == r]
            if row_u.size and row_u.min() < cut < row_u.max():
                assert any(seg[0][0] == pytest.approx(cut, rel=1e-12) for seg in drawn)
            # the side that holds is the one the routing kernel takes
            lo, hi = axes.get_xlim()
            for u in (cut - 0.01 * (hi - lo), cut + 0.01 * (hi - lo)):
                shaded = any(a <= u <= b and c <= r <= d
                             for a, b, c, d in rectangles(axes, "yes-region"))
                assert shaded == routed_left(tree, node, values(u, r)), (node, r, u)
    else:
        assert not [a for a in axes.get_children() if a.get_gid() == "split"]
        cells = {(round((a + b) / 2), round((c + d) / 2))
                 for a, b, c, d in rectangles(axes, "yes-region")}
        assert cells == {(u, r) for u in (0, 1) for r in (0, 1)
                         if routed_left(tree, node, values(float(u), float(r)))}
    # the samples with every value known, at their value across and jittered in their row
    points = data_points(axes)
    inside = points[np.isin(points[:, 0], u_true)] if numeric else points[
        (points[:, 0] > -0.5) & (points[:, 0] < 1.5)]
    assert inside.shape[0] == known.size
    assert np.all(np.abs(inside[:, 1] - np.round(inside[:, 1])) <= 0.3)
    got = sorted(zip(np.round(inside[:, 0], 12) if numeric else np.round(inside[:, 0]),
                     np.round(inside[:, 1])))
    assert got == sorted(zip(np.round(u_true, 12), v_true))
    # each point is shaded exactly when the tree sends it left
    for u, v in inside[:40]:
        shaded = any(a <= u <= b and c <= v <= d for a, b, c, d in rectangles(axes, "yes-region"))
        across_value = u if numeric else float(round(u))
        assert shaded == routed_left(tree, node, values(across_value, float(round(v))))


@pytest.mark.parametrize("case", ["indicators", "two indicators", "flipped"])
def test_indicator_nodes_draw_rows_with_a_cut_each(case):
    names = ["a", "b", "colour", "size"]
    if case == "indicators":
        estimator, X, y = indicator_classifier()
    elif case == "two indicators":
        estimator, X, y = two_indicator_classifier()
        names = ["c1", "c2"]
    else:
        # the indicator first and a negative weight on the numeric slot: [colour in {3}] -
        # 2 a <= 0.5 holds where a >= (ind - 0.5) / 2, right of each row's cut
        estimator, X, y = indicator_classifier()
        left = (np.nan_to_num(X[:, 2]) == 3) - 2 * X[:, 0] <= 0.5
        n_left, n_right = int(left.sum()), int((~left).sum())
        estimator.tree_ = Tree(
            [1, -1, -1], [2, -1, -1], [[2, 0], [-1, -1], [-1, -1]],
            [[1.0, -2.0], [0, 0], [0, 0]], [0.5, -2.0, -2.0], [0.5, 0.0, 0.0],
            [X.shape[0], n_left, n_right], [X.shape[0], n_left, n_right],
            [[n_left, n_right], [n_left, 0], [0, n_right]], 4,
            category_mask=[[categories_to_mask([3]), 0], [0, 0], [0, 0]])
    tree = estimator.tree_
    nodes = np.flatnonzero(tree.has_indicator_slots)
    assert nodes.size
    by_node = node_axes(plot_tree(estimator, X, y, feature_names=names))
    for node in nodes:
        check_indicator_axes(estimator, node, by_node[node], X, names)
        single = plot_split(estimator, int(node), X, y, feature_names=names)
        check_indicator_axes(estimator, node, single, X, names)
        # the title is the stored rule; the sides are labelled inside the plot
        assert "[colour in {" in single.get_title() or "c1 " in single.get_title()
        assert "that is" not in single.get_title()
        assert any(t.get_text().startswith("yes → #") for t in single.texts)
        plt.close("all")


def test_an_indicator_node_keeps_the_missing_strip_and_marks_a_sample_there():
    estimator, X, y = indicator_classifier()
    tree = estimator.tree_
    node = 0
    assert tree.has_indicator_slots[node] and np.isnan(X[:, tree.features[node]]).any()
    ax = plot_split(estimator, node, X, y)
    strip = [p for p in ax.patches if p.get_gid() == "missing-strip"]
    assert len(strip) == 1
    # shaded as the "yes" side when missing values go left
    assert (strip[0].get_facecolor()[3] > 0) == bool(tree.missing_go_left[node])
    # every sample reaching the node is drawn: in the rows or in the strip
    reaching = estimator.decision_path(X).tocsc()[:, node].indices.size
    assert data_points(ax).shape[0] == reaching
    # a sample missing its colour is marked in the strip, right of the plot's samples
    row = X[0].copy()
    row[2] = np.nan
    ax = plot_split(estimator, node, X, y, highlight=row)
    u, _ = highlight_marker(ax).get_offsets()[0]
    assert u > np.nanmax(X[:, tree.features[node, 0]])
    # a sample of a code outside every set reads 0: the "not" row
    row = X[0].copy()
    row[2] = next(c for c in range(64) if not in_set(float(c), tree.category_mask[node, 1]))
    ax = plot_split(estimator, node, X, y, highlight=row)
    assert highlight_marker(ax).get_offsets()[0].tolist() == [row[0], 0.0]


def test_an_indicator_node_without_data_is_text():
    estimator, _X, _y = indicator_classifier()
    ax = plot_tree(estimator, feature_names=["a", "b", "colour", "size"])
    assert not node_axes(ax)
    assert any("[colour in {" in t.get_text() for t in ax.texts)


def categorical_with_missing(missing_left_expected=None):
    """A classifier whose root tests a colour code (0, 1, 2) that 15 % of the rows miss."""
    rng = np.random.default_rng(0)
    n = 400
    colour = rng.integers(0, 3, n).astype(float)
    colour[rng.random(n) < 0.15] = np.nan
    x = rng.normal(size=n)
    y = ((colour == 2) | (x > 1)).astype(int)
    X = np.column_stack([colour, x])
    estimator = BivariateTreeClassifier(
        max_depth=2, categorical_features=[0], random_state=0,
        splitter_options={"category_pairs": False}).fit(X, y)
    assert estimator.tree_.categorical_mask(0)
    return estimator, X, y


def test_a_categorical_node_draws_its_missing_values_as_the_last_bar():
    estimator, X, y = categorical_with_missing()
    tree = estimator.tree_
    ax = plot_split(estimator, 0, X, y, feature_names=["colour", "x"])
    labels = [t.get_text() for t in ax.get_xticklabels()]
    assert labels == ["0", "1", "2", "missing"]
    # the bar of the missing values is shaded with the set when they go left
    shade = next(c for c in ax.collections if c.get_gid() == "yes-region")
    shaded = sorted(int(np.rint(p.vertices[:, 0].min() + 0.5)) for p in shade.get_paths())
    in_set = [c for c in range(3) if tree.categorical_mask(0) >> c & 1]
    assert shaded == in_set + ([3] if tree.missing_go_left[0] else [])
    # every sample is in a bar: the last one holds those missing the colour
    heights = {}
    for bar in ax.patches:
        x = round(bar.get_x() + bar.get_width() / 2)
        heights[x] = heights.get(x, 0.0) + bar.get_height()
    assert heights[3] == np.isnan(X[:, 0]).sum()
    assert sum(heights.values()) == X.shape[0]
    # a sample missing its colour is marked on top of that bar
    row = X[np.isnan(X[:, 0])][0]
    ax = plot_split(estimator, 0, X, y, highlight=row)
    assert highlight_marker(ax).get_offsets()[0].tolist() == [3.0, heights[3]]


def test_a_large_tree_is_drawn_to_a_sane_depth_with_a_warning():
    """Without max_depth the picture ends in at most MAX_DRAWN_BOXES boxes (as the command
    line's), and says so; a max_depth of the user's own is drawn as asked, silently."""
    import warnings

    from bivtree.export.plot import MAX_DRAWN_BOXES, drawable_depth

    rng = np.random.default_rng(0)
    X = rng.normal(size=(400, 3))
    y = rng.integers(0, 2, 400)  # noise: a tree of many leaves
    clf = BivariateTreeClassifier(splitter="univariate").fit(X, y)
    depth = drawable_depth(clf.tree_)
    assert clf.get_n_leaves() > 4 * MAX_DRAWN_BOXES and depth < clf.tree_.max_depth
    with pytest.warns(UserWarning, match=rf"draws depth 0 to {depth} of .* max_depth"):
        ax = plot_tree(clf)
    drawn = {t.get_text() for t in ax.texts}
    assert any("..." in text for text in drawn)
    width, height = ax.figure.get_size_inches()
    assert width < 60 and height < 60
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        plot_tree(clf, max_depth=1)


def test_a_test_sending_known_values_left_draws_without_known_values():
    """A split "every known value left, every missing one right" (threshold: the largest
    double) at a node whose drawn rows all miss its feature: finite axes, a page and a
    picture, not an error about infinite limits."""
    from bivtree import export_html

    rng = np.random.default_rng(0)
    X = rng.normal(size=(200, 2))
    y = rng.integers(0, 2, 200)
    X[y == 1, 0] = np.nan  # missingness of x0 is the signal
    clf = BivariateTreeClassifier(max_depth=2).fit(X, y)
    assert clf.tree_.threshold[0] == np.finfo(np.float64).max
    rows, labels = X[y == 1], y[y == 1]
    assert "bivtree-data" in export_html(clf, rows, labels)
    ax = plot_tree(clf, rows, labels)
    ax.figure.savefig(io.BytesIO())
    for child in ax.figure.axes:
        assert np.all(np.isfinite(child.get_xlim())) and np.all(np.isfinite(child.get_ylim()))
    plot_split(clf, 0, rows, labels).figure.savefig(io.BytesIO())


# --------------------------------------------------------------------------- the missing strip
def missing_classifier():
    """A classifier on three features with 15 % of the values missing, and its data."""
    rng = np.random.default_rng(3)
    X = rng.normal(size=(240, 3))
    y = (X[:, 0] + X[:, 1] > 0).astype(int)
    X[rng.uniform(size=X.shape) < 0.15] = np.nan
    return BivariateTreeClassifier(max_depth=3, random_state=0).fit(X, y), X, y


def strip_extent(axes):
    """The left and right ends of the missing-value strip of ``axes``, in data units."""
    (strip,) = [p for p in axes.patches if p.get_gid() == "missing-strip"]
    # axvspan's patch: x in data units, y in axes units (a Polygon or a Rectangle)
    xs = strip.get_patch_transform().transform(strip.get_path().vertices)[:, 0]
    return xs.min(), xs.max()


def check_missing_axis(axes):
    """The strip of ``axes`` sits on an x-axis segment of its own, labelled "missing",
    right of every number the axis writes; returns the numeric axis's right end."""
    axes.figure.canvas.draw()  # the ticks and their labels as drawn
    s0, s1 = strip_extent(axes)
    ticks = axes.xaxis.get_majorticklocs()
    labels = [t.get_text() for t in axes.get_xticklabels()]
    assert len(ticks) == len(labels)
    assert labels.count("missing") == 1, labels
    at = ticks[labels.index("missing")]
    assert s0 < at < s1  # the label under the strip
    numeric = [t for t, text in zip(ticks, labels) if text != "missing"]
    # the numeric axis: its spine and every tick stop before a gap, the strip lies after
    u0, u1 = axes.spines["bottom"].get_bounds()
    assert axes.spines["top"].get_bounds() == (u0, u1)
    assert numeric and all(u0 <= t <= u1 for t in numeric)
    assert u1 < s0 and not any(text.strip() and text != "missing" and s0 <= t
                               for t, text in zip(ticks, labels))
    # the break is marked, top and bottom, and the strip has its own spine segments
    breaks = [a for a in axes.lines if a.get_gid() == "axis-break"]
    segments = [a for a in axes.lines if a.get_gid() == "strip-axis"]
    assert len(breaks) == len(segments) == 2
    for line in segments:
        assert tuple(line.get_xdata()) == (s0, s1)
    # no minor tick (a style may turn them on) falls in the gap or under the strip
    assert all(t <= u1 for t in axes.xaxis.get_minorticklocs())
    return u1


def test_the_missing_strip_has_its_own_axis_segment_labelled_missing():
    clf, X, y = missing_classifier()
    tree = clf.tree_
    node = 0
    ax = plot_split(clf, node, X, y)
    u1 = check_missing_axis(ax)
    s0, s1 = strip_extent(ax)
    # the points: those with both features known on the numeric axis, the others in
    # the strip, past the gap; none of the strip's points is inside the numeric range
    points = data_points(ax)
    across = X[:, tree.features[node, 0]]
    reaching = clf.decision_path(X).tocsc()[:, node].indices
    n_known = int(np.isfinite(X[reaching][:, tree.features[node]]).all(axis=1).sum())
    in_strip = points[:, 0] >= s0
    assert in_strip.sum() == reaching.size - n_known > 0
    assert np.all(points[in_strip, 0] <= s1) and np.all(points[~in_strip, 0] <= u1)
    assert np.nanmax(across) < u1
    # the sides' labels are placed in the numeric plot, not over the gap or the strip
    sides = [t for t in ax.texts if "→ #" in t.get_text()]
    assert sides and all(t.get_position()[0] < u1 for t in sides)
    # a sample missing a feature of the test is starred in the strip
    row = X[np.isfinite(X).all(axis=1)][0].copy()
    row[tree.features[node, 0]] = np.nan
    star = highlight_marker(plot_split(clf, node, X, y, highlight=row)).get_offsets()[0]
    assert s0 < star[0] < s1


def test_every_node_of_plot_tree_keeps_the_strip_off_the_numeric_axis():
    clf, X, y = missing_classifier()
    with matplotlib.rc_context({"xtick.minor.visible": True}):
        by_node = node_axes(plot_tree(clf, X, y))
        stripped = [axes for axes in by_node.values()
                    if any(p.get_gid() == "missing-strip" for p in axes.patches)]
        assert len(stripped) >= 2
        for axes in stripped:
            check_missing_axis(axes)
    # a plot without missing values keeps the plain axis
    full = np.isfinite(X).all(axis=1)
    ax = plot_split(clf, 0, X[full], y[full])
    assert not any(a.get_gid() in ("axis-break", "strip-axis") for a in ax.lines)
    assert "missing" not in [t.get_text() for t in ax.get_xticklabels()]
