"""The interactive HTML page of a tree (``export_html``, ``bivtree show --out tree.html``)."""

import itertools
import json
import re
import shutil
import subprocess

import numpy as np
import pytest
from sklearn.datasets import load_breast_cancer, load_wine

from bivtree import BivariateTreeClassifier, BivariateTreeRegressor, export_text
from bivtree.export.html_page import DEFAULT_OPEN_LEVELS, export_html

DATA_ELEMENT = re.compile(
    r'<script type="application/json" id="bivtree-data">(.*?)</script>', re.DOTALL)


def page_data(page):
    """The JSON the page's script reads."""
    match = DATA_ELEMENT.search(page)
    assert match is not None
    return json.loads(match.group(1))


@pytest.fixture(scope="module")
def wine():
    X, y = load_wine(return_X_y=True, as_frame=True)
    # without the default search's lookahead: a tree deeper than the levels the page opens
    return BivariateTreeClassifier(max_depth=6, random_state=0,
                                   splitter_options={"lookahead_samples": 0}).fit(X, y), X, y


@pytest.fixture(scope="module")
def wine_page(wine):
    clf, X, y = wine
    return export_html(clf, X, y)


def test_the_page_is_self_contained(wine_page):
    assert wine_page.startswith("<!DOCTYPE html>")
    # nothing is loaded from elsewhere: no external script, style, image, font or import
    assert not re.search(r"""(src|href)\s*=\s*["']?\s*(https?:)?//""", wine_page, re.IGNORECASE)
    assert not re.search(r"@import|url\(\s*['\"]?\s*(https?:)?//", wine_page, re.IGNORECASE)
    assert not re.search(r"<(link|iframe|img|object|embed)\b", wine_page, re.IGNORECASE)
    assert "fetch(" not in wine_page and "XMLHttpRequest" not in wine_page
    # one inline script besides the data, and the data closes its element only once
    assert wine_page.count("<script") == 2
    assert page_data(wine_page)["format"] == 1


def test_every_node_and_its_rule_as_export_text_writes_it(wine):
    clf, X, y = wine
    page = export_html(clf, X, y, decimals=3)
    data = page_data(page)
    tree = clf.tree_
    nodes = data["nodes"]
    assert [n["id"] for n in nodes] == list(range(tree.node_count))
    text = export_text(clf, decimals=3)
    ifs = [line.strip()[3:-1] for line in text.splitlines() if line.strip().startswith("if ")]
    elses = [line.split("# ", 1)[1] for line in text.splitlines()
             if line.strip().startswith("else:")]
    decision = [n for n in nodes if n["left"] >= 0]
    assert sorted(n["rule"] for n in decision) == sorted(ifs)
    assert sorted(n["else"] for n in decision) == sorted(elses)
    leaf_lines = sorted(line.strip() for line in text.splitlines()
                        if line.strip().startswith("class: "))
    assert sorted(n["counts"] for n in nodes if n["left"] < 0) == leaf_lines
    for n in nodes:
        assert n["left"] == tree.children_left[n["id"]]
        assert n["right"] == tree.children_right[n["id"]]
        assert n["n"] == tree.n_node_samples[n["id"]]
    # the stored rows' leaves are those of apply
    assert data["row_leaves"] == clf.apply(X).tolist()


def test_every_decision_node_plots_its_samples_with_its_line(wine, wine_page):
    clf, X, _y = wine
    tree = clf.tree_
    paths = tree.decision_path(X.to_numpy()).toarray().astype(bool)
    for n in page_data(wine_page)["nodes"]:
        if n["left"] < 0:
            continue
        plot = n["plot"]
        assert plot["kind"] == "scatter"
        reaching = int(paths[:, n["id"]].sum())
        assert plot["total"] == reaching == len(plot["u"]) == len(plot["v"]) == len(plot["c"])
        assert plot["note"] is None
        # the line is the node's test: a u + b v <= t
        assert plot["t"] == tree.threshold[n["id"]]


def test_points_per_node_and_in_all_are_bounded():
    X, y = load_breast_cancer(return_X_y=True)
    clf = BivariateTreeClassifier(max_depth=4, random_state=0).fit(X, y)
    data = page_data(export_html(clf, X, y, max_points=100, max_total_points=250))
    plots = [n for n in data["nodes"] if n["left"] >= 0]
    assert plots[0]["plot"]["shown"] == 100
    assert plots[0]["plot"]["note"] == f"100 of {X.shape[0]} shown"
    assert sum(len(n["plot"]["u"]) for n in plots if n["plot"]) <= 250
    for n in plots:
        if n["plot"] is None:
            assert "at most 250 points" in n["plot_note"]
        else:
            assert len(n["plot"]["u"]) <= 100
    # the budget goes to the shallowest nodes first
    depths = [n["depth"] for n in plots if n["plot"] is not None]
    assert max(depths) <= min([n["depth"] for n in plots if n["plot"] is None] or [99])


def test_subsample_label_reads_like_plot_tree_s():
    rng = np.random.default_rng(0)
    X = rng.normal(size=(2500, 2))
    y = (X[:, 0] + X[:, 1] > 0).astype(int)
    clf = BivariateTreeClassifier(max_depth=1).fit(X, y)
    root = page_data(export_html(clf, X, y))["nodes"][0]["plot"]
    assert root["note"] == "1,000 of 2,500 shown" and len(root["u"]) == 1000


def test_collapsed_depth_and_the_page_without_data():
    X, y = load_breast_cancer(return_X_y=True)
    clf = BivariateTreeClassifier(random_state=0).fit(X, y)
    assert clf.get_depth() > DEFAULT_OPEN_LEVELS
    data = page_data(export_html(clf))
    assert data["open_levels"] == DEFAULT_OPEN_LEVELS == 4
    assert not data["has_data"] and data["row_leaves"] is None
    assert all(n.get("plot") is None for n in data["nodes"])
    assert len(data["nodes"]) == clf.tree_.node_count
    below = {n["id"]: n["below"] for n in data["nodes"]}
    assert below[0] == clf.tree_.node_count - 1
    assert page_data(export_html(clf, open_levels=2))["open_levels"] == 2


def test_regressor_and_categorical_nodes():
    rng = np.random.default_rng(1)
    X = np.column_stack([rng.integers(0, 5, 300).astype(float), rng.normal(size=300)])
    y = np.where(np.isin(X[:, 0], [1, 3]), 5.0, 0.0) + X[:, 1]
    reg = BivariateTreeRegressor(max_depth=2).fit(X, y)
    data = page_data(export_html(reg, X, y, feature_names=["colour", "size"]))
    assert data["kind"] == "regressor" and data["classes"] is None
    assert data["range"] == [float(y.min()), float(y.max())]
    root = data["nodes"][0]
    assert root["plot"]["c"] is not None
    assert root["rule"] == export_text(reg, feature_names=["colour", "size"]) \
        .splitlines()[0][3:-1]

    from bivtree.tree import categories_to_mask

    tree = reg.tree_
    tree.category_mask[0, 0] = categories_to_mask([1, 3])
    tree.features[0] = [0, -1]
    tree.weights[0] = [1.0, 0.0]
    data = page_data(export_html(reg, X, y, feature_names=["colour", "size"]))
    root = data["nodes"][0]
    # (missing values go to the heavier child, the left one)
    assert root["rule"] == "colour in {1, 3} or colour is missing"
    assert root["categories"] == [1, 3]
    assert root["plot"]["kind"] == "bars"
    assert root["plot"]["left"] == [False, True, False, True, False]
    assert sum(root["plot"]["heights"]) == X.shape[0]



def test_a_categorical_node_with_missing_values_has_their_bar(tmp_path):
    # a categorical test whose samples miss the feature: NaN is not valid JSON, so the
    # missing values' bar is written with a null value, labelled "missing"
    rng = np.random.default_rng(0)
    colour = rng.integers(0, 3, 400).astype(float)
    colour[rng.random(400) < 0.15] = np.nan
    x = rng.normal(size=400)
    X = np.column_stack([colour, x])
    y = ((colour == 2) | (x > 1)).astype(int)
    clf = BivariateTreeClassifier(max_depth=2, categorical_features=[0], random_state=0,
                                  splitter_options={"category_pairs": False}).fit(X, y)
    tree = clf.tree_
    assert tree.categorical_mask(0)
    plot = page_data(export_html(clf, X, y, feature_names=["colour", "x"]))["nodes"][0]["plot"]
    assert plot["kind"] == "bars"
    assert plot["categories"] == ["0", "1", "2", "missing"]
    assert plot["values"] == [0.0, 1.0, 2.0, None]
    in_set = [bool(tree.categorical_mask(0) >> c & 1) for c in range(3)]
    assert plot["left"] == in_set + [bool(tree.missing_go_left[0])]
    stack = np.array(plot["stack"])
    assert stack[3].sum() == np.isnan(colour).sum() and stack.sum() == X.shape[0]
    # typed values missing the colour are starred on that bar by the page's script
    page = export_html(clf, X, y)
    row = X[np.isnan(colour)][0]
    state, plots = run_in_node(tmp_path, page, typed(row))
    assert state["path"] == ",".join(map(str, tree.decision_path(row.reshape(1, -1)).indices))
    assert 'class="star"' in plots["0"]

def test_names_cannot_break_out_of_the_data_element():
    X, y = load_wine(return_X_y=True)
    names = [f"f{i}</script><b>" for i in range(X.shape[1])]
    clf = BivariateTreeClassifier(max_depth=2).fit(X, y)
    page = export_html(clf, X, y, feature_names=names, class_names=["<a>", "b", "c"],
                       title="<wine & co>")
    assert "</script><b>" not in page and "<title>&lt;wine &amp; co&gt;</title>" in page
    data = page_data(page)
    assert data["features"] == names and data["classes"] == ["<a>", "b", "c"]


def test_writes_the_file_and_checks_its_options(tmp_path, wine):
    clf, X, y = wine
    target = tmp_path / "tree.html"
    page = export_html(clf, X, y, path=target)
    assert target.read_text(encoding="utf-8") == page
    with pytest.raises(ValueError, match="max_points"):
        export_html(clf, X, y, max_points=0)
    with pytest.raises(ValueError, match="open_levels"):
        export_html(clf, open_levels=0)
    with pytest.raises(ValueError, match="y was given without X"):
        export_html(clf, y=y)


def test_show_writes_the_page(capsys, tmp_path, wine):
    from bivtree import save_model
    from bivtree.cli import main

    clf, X, y = wine
    model = tmp_path / "model.json"
    save_model(clf, model, metadata={"target": "class"})
    data = tmp_path / "wine.csv"
    X.assign(**{"class": y}).to_csv(data, index=False)
    out = tmp_path / "tree.html"
    assert main(["show", str(model), "--data", str(data), "--out", str(out),
                 "--max-depth", "1"]) == 0
    assert f"written to {out}" in capsys.readouterr().out
    written = page_data(out.read_text(encoding="utf-8"))
    assert written["open_levels"] == 2 and written["has_labels"]
    assert written["n_rows"] == X.shape[0]


# --------------------------------------------------------------------------- in a browser
def _chromium():
    for name in ("chromium", "chromium-browser", "google-chrome", "google-chrome-stable"):
        exe = shutil.which(name)
        if exe is not None:
            return exe
    return None


def dump_dom(browser, page, fragment=""):
    """The DOM of ``page`` after its script ran, from headless Chromium."""
    result = subprocess.run(
        [browser, "--headless", "--no-sandbox", "--disable-gpu", "--no-first-run",
         "--virtual-time-budget=5000", "--dump-dom", page.as_uri() + fragment],
        capture_output=True, text=True, timeout=120, check=False)
    assert result.returncode == 0, result.stderr[-2000:]
    return result.stdout


def body_state(dom):
    body = re.search(r"<body([^>]*)>", dom).group(1)
    return dict(re.findall(r'data-([\w-]+)="([^"]*)"', body))


def test_the_page_renders_in_headless_chromium(tmp_path, wine, wine_page):
    browser = _chromium()
    if browser is None:
        pytest.skip("no Chromium found (chromium, chromium-browser or google-chrome on PATH); "
                    "install one, e.g. apt-get install chromium, to run the page's script")
    clf, X, _y = wine
    page = tmp_path / "tree.html"
    page.write_text(wine_page, encoding="utf-8")
    tree = clf.tree_

    state = body_state(dump_dom(browser, page))
    assert state["status"] == "ready", state
    # the root's plot holds every training sample (178 < 1,000)
    assert int(state["root-points"]) == X.shape[0]
    opened = int(state["visible-nodes"])
    assert opened == int(np.count_nonzero(tree.node_depth < DEFAULT_OPEN_LEVELS))

    # a node collapsed at first, clicked open by the address
    deep = [n for n in range(tree.node_count) if tree.node_depth[n] == DEFAULT_OPEN_LEVELS - 1
            and not tree.is_leaf[n]]
    assert deep, "the fixture's tree must be deeper than the levels the page opens"
    state = body_state(dump_dom(browser, page, f"#expand={deep[0]}"))
    assert state["status"] == "ready" and state["expanded"] == str(deep[0])
    assert int(state["visible-nodes"]) == opened + 2

    # the search routes typed values as predict does, and a row as apply does
    row = X.to_numpy()[7]
    typed = ",".join(repr(float(v)) for v in row)
    state = body_state(dump_dom(browser, page, f"#search={typed}"))
    expected = tree.decision_path(row.reshape(1, -1)).indices.tolist()
    assert state["path"] == ",".join(map(str, expected))
    state = body_state(dump_dom(browser, page, "#search=row%2012"))
    assert state["path"] == ",".join(map(str, tree.decision_path(
        X.to_numpy()[12:13]).indices.tolist()))


# ----------------------------------------------------------------- missing values
@pytest.fixture(scope="module")
def missing_fit():
    rng = np.random.default_rng(3)
    X = rng.normal(size=(240, 3))
    y = (X[:, 0] + X[:, 1] > 0).astype(int)
    X[rng.uniform(size=X.shape) < 0.15] = np.nan
    return BivariateTreeClassifier(max_depth=3, random_state=0).fit(X, y), X, y


def _missing_at(tree, X, node, plot):
    """Rows reaching ``node`` and those of them missing a feature of the plot's view."""
    reaching = np.flatnonzero(tree.decision_path(X).toarray()[:, node])
    used = [f for f, _ in plot["u_terms"]]
    if plot["v_feature"] is not None:
        used.append(plot["v_feature"])
    return reaching, np.isnan(X[np.ix_(reaching, used)]).any(axis=1)


def test_samples_missing_a_value_are_drawn_in_the_strip(missing_fit):
    """Every sample reaching a node is drawn: in the scatter, or, missing a feature of
    the view, in the strip beside it, which holds the node's learned missing side."""
    clf, X, y = missing_fit
    tree = clf.tree_
    data = page_data(export_html(clf, X, y))
    seen_strip = 0
    for n in data["nodes"]:
        if n["left"] < 0:
            continue
        plot = n["plot"]
        reaching, missing = _missing_at(tree, X, n["id"], plot)
        strip = plot["missing"]
        assert plot["total"] == len(plot["u"]) == int((~missing).sum())
        if not missing.any():
            assert strip is None
            continue
        seen_strip += 1
        assert strip["total"] == strip["shown"] == int(missing.sum()) == len(strip["x"])
        assert len(strip["v"]) == len(strip["c"]) == strip["shown"]
        assert strip["left"] == n["missing_left"] == bool(tree.missing_go_left[n["id"]])
        assert all(0.0 <= x <= 1.0 for x in strip["x"])
        # the class colours of the strip's points are those of its samples
        assert sorted(strip["c"]) == sorted(np.searchsorted(clf.classes_, y[reaching][missing])
                                            .tolist())
        assert plot["note"] is None
    assert seen_strip >= 2


def test_the_strip_shares_the_point_budget():
    rng = np.random.default_rng(0)
    X = rng.normal(size=(2500, 2))
    y = (X[:, 0] + X[:, 1] > 0).astype(int)
    X[rng.uniform(size=X.shape) < 0.2] = np.nan
    clf = BivariateTreeClassifier(max_depth=1).fit(X, y)
    root = page_data(export_html(clf, X, y))["nodes"][0]["plot"]
    assert len(root["u"]) + root["missing"]["shown"] == 1000
    assert root["missing"]["total"] == int(np.isnan(X).any(axis=1).sum())
    assert root["note"] == f"{len(root['u']):,} of {root['total']:,} shown"


def test_the_page_draws_the_strip_in_headless_chromium(tmp_path, missing_fit):
    browser = _chromium()
    if browser is None:
        pytest.skip("no Chromium found (chromium, chromium-browser or google-chrome on PATH)")
    clf, X, y = missing_fit
    page = tmp_path / "tree.html"
    page.write_text(export_html(clf, X, y), encoding="utf-8")
    tree = clf.tree_
    state = body_state(dump_dom(browser, page))
    assert state["status"] == "ready", state
    root = page_data(page.read_text(encoding="utf-8"))["nodes"][0]["plot"]
    _, missing = _missing_at(tree, X, 0, root)
    assert int(state["root-points"]) == X.shape[0]
    assert int(state["root-missing"]) == int(missing.sum()) > 0
    # typed values with a missing one: routed as predict routes them, marked in the strip
    row = X[~np.isnan(X).any(axis=1)][0].copy()
    row[tree.features[0, 0]] = np.nan
    typed = ",".join("nan" if np.isnan(v) else repr(float(v)) for v in row)
    dom = dump_dom(browser, page, f"#search={typed}")
    state = body_state(dom)
    assert state["status"] == "ready", state
    assert state["path"] == ",".join(map(str, tree.decision_path(
        row.reshape(1, -1)).indices.tolist()))
    assert 'class="star"' in dom


def test_a_test_with_every_known_value_left_keeps_a_finite_box(missing_fit):
    """A node sending every known value left and the missing ones right (threshold
    ALL_KNOWN_LEFT) has no line to show: its plot keeps the samples' box, in the page and
    in plot_tree."""
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    from bivtree import plot_tree
    from bivtree._kernels.scan import ALL_KNOWN_LEFT

    clf, X, y = missing_fit
    nodes = np.flatnonzero(clf.tree_.threshold == ALL_KNOWN_LEFT)
    assert nodes.size, "the fixture's tree must hold such a node"
    for n in page_data(export_html(clf, X, y))["nodes"]:
        if n["id"] in nodes:
            assert all(np.isfinite(n["plot"]["box"]))
    ax = plot_tree(clf, X, y)
    plt.close(ax.figure)


# ----------------------------------------------------------------- indicator slots
def indicator_fit():
    """A frame with a text column (colour), some of its values and of ``a`` missing: the
    default search pairs ``a`` with the indicator of a colour."""
    from test_categorical_features import categorical_fit_data

    frame, y = categorical_fit_data(0, n=200)
    frame.loc[frame.index % 13 == 5, "colour"] = None
    frame.loc[frame.index % 17 == 3, "a"] = np.nan
    clf = BivariateTreeClassifier(max_depth=2).fit(frame, y)
    assert clf.tree_.has_indicator_slots.any()
    return clf, frame, y


def two_indicator_fit():
    """Codes of two categorical columns; the label is ``c1 == 0 and c2 == 2``."""
    rng = np.random.default_rng(2)
    X = np.column_stack([rng.integers(0, 3, 240), rng.integers(0, 4, 240)]).astype(float)
    y = ((X[:, 0] == 0) & (X[:, 1] == 2)).astype(int)
    clf = BivariateTreeClassifier(max_depth=2, categorical_features=[0, 1]).fit(X, y)
    assert (clf.tree_.category_mask[0] != 0).all() and clf.tree_.features[0, 1] >= 0
    return clf, X, y


def kernel_left(tree, node, values):
    """The routing kernel's side at ``node`` for slot ``values`` (an indicator as 0 or 1)."""
    from bivtree._kernels.traversal import goes_left
    from bivtree.tree import mask_to_categories

    x = np.full((1, tree.n_features), np.nan)
    for f, m, v in zip(tree.features[node], tree.category_mask[node], values):
        if f >= 0:
            codes = mask_to_categories(m)
            x[0, f] = v if m == 0 else (codes[0] if v == 1 else min(set(range(64)) - set(codes)))
    return bool(goes_left(x, 0, tree.features[node], tree.weights[node], tree.threshold[node],
                          tree.category_mask[node], tree.missing_go_left[node]))


def test_node_entries_carry_the_indicator_sets(wine):
    clf, frame, y = indicator_fit()
    tree = clf.tree_
    data = page_data(export_html(clf, frame, y))
    text = export_text(clf)
    for n in data["nodes"]:
        node = n["id"]
        if n["left"] < 0:
            assert "indicator_categories" not in n
            continue
        used = tree.features[node] >= 0
        assert n["features"] == tree.features[node][used].tolist()
        assert n["indicator_categories"] == [
            [int(c) for c in range(64) if (int(m) >> c) & 1] or None
            for m in tree.category_mask[node][used]]
        assert n["categories"] is None
        assert f"if {n['rule']}:" in text and f"# {n['else']}" in text
    root = data["nodes"][0]
    assert root["features"] == [0, 2]  # a and colour
    codes = root["indicator_categories"][1]
    assert root["indicator_categories"][0] is None and codes
    assert codes == [c for c in range(64) if (int(clf.tree_.category_mask[0, 1]) >> c) & 1]
    name = ", ".join(clf.categories_[2][c] for c in codes)
    assert f"[colour in {{{name}}}]" in root["rule"]
    # a node without indicator slots says so per slot; a categorical one has its set instead
    wine_clf, X, wine_y = wine
    for n in page_data(export_html(wine_clf, X, wine_y))["nodes"]:
        if n["left"] >= 0:
            assert n["indicator_categories"] == [None] * len(n["features"])


def test_indicator_plots_show_a_cut_per_row():
    clf, frame, y = indicator_fit()
    tree = clf.tree_
    X = clf._validate_X_predict(frame)
    paths = tree.decision_path(X).toarray().astype(bool)
    data = page_data(export_html(clf, frame, y))
    nodes = np.flatnonzero(tree.has_indicator_slots)
    for node in nodes:
        plot = data["nodes"][node]["plot"]
        assert plot["kind"] == "indicators"
        (f, g), (w, v), t = tree.features[node], tree.weights[node], tree.threshold[node]
        assert tree.category_mask[node, 0] == 0 and tree.category_mask[node, 1] != 0
        name = clf.feature_names_in_[g]
        values = ", ".join(clf.categories_[g][c] for c in data["nodes"][node]
                           ["indicator_categories"][1])
        assert plot["y_ticks"] == ["not", f"{name} in {{{values}}}"]
        assert plot["x_ticks"] is None and plot["column"] is None
        assert plot["x_label"] == clf.feature_names_in_[f] and plot["y_label"] == name
        assert plot["u_terms"] == [[int(f), 1.0]]
        assert plot["row_slots"] == [[int(g), data["nodes"][node]["indicator_categories"][1]]]
        # the cut of row r: a + w * r <= t, so a <= (t - w * r) / 1
        for u, v0, v1 in plot["cuts"]:
            r = round((v0 + v1) / 2)
            assert u == pytest.approx((t - v * r) / w, rel=1e-12)
            assert v1 - v0 == pytest.approx(0.84)
        # each piece is the side the routing kernel takes
        for u0, u1, v0, v1, left in plot["pieces"]:
            r = round((v0 + v1) / 2)
            lo = plot["box"][0] if u0 is None else u0
            hi = plot["box"][1] if u1 is None else u1
            assert left == kernel_left(tree, node, [0.5 * (lo + hi), r])
        # every sample reaching the node: in the rows, or missing a feature, in the strip
        reaching = np.flatnonzero(paths[:, node])
        missing = np.isnan(X[np.ix_(reaching, [f, g])]).any(axis=1)
        assert plot["total"] == len(plot["u"]) == int((~missing).sum())
        assert (plot["missing"] is None) == (not missing.any())
        rows = np.round(plot["v"])
        assert np.all(np.abs(np.asarray(plot["v"]) - rows) <= 0.3)
        known = reaching[~missing]
        expected = sorted(zip(np.asarray([float(f"{a:.5g}") for a in X[known, f]]),
                              [float(c in data["nodes"][node]["indicator_categories"][1])
                               for c in X[known, g]]))
        assert sorted(zip(plot["u"], rows.tolist())) == expected


def test_a_two_indicator_plot_is_a_grid():
    clf, X, y = two_indicator_fit()
    tree = clf.tree_
    plot = page_data(export_html(clf, X, y, feature_names=["c1", "c2"]))["nodes"][0]["plot"]
    assert plot["kind"] == "indicators" and plot["cuts"] == []
    assert plot["x_ticks"] == ["not", "c1 in {0}"] and plot["y_ticks"] == ["not", "c2 in {2}"]
    assert plot["column"] == [0, [0]] and plot["row_slots"] == [[1, [2]]]
    cells = {(round((p[0] + p[1]) / 2), round((p[2] + p[3]) / 2)): p[4] for p in plot["pieces"]}
    assert cells == {(a, b): kernel_left(tree, 0, [a, b]) for a in (0, 1) for b in (0, 1)}
    assert sum(cells.values()) == 3  # "c1 not in {0} or c2 not in {2}"


# the page's script run by node.js in a DOM of the few calls it makes: the checks below need
# no browser (the ones above with Chromium, where there is one, run it in a real page)
FAKE_DOM = r"""
class ClassList {
  constructor(el) { this.el = el; }
  names() { return (this.el.className || "").split(/\s+/).filter(Boolean); }
  contains(c) { return this.names().includes(c); }
  toggle(c, on) {
    if (on === undefined) on = !this.contains(c);
    const rest = this.names().filter(x => x !== c);
    this.el.className = (on ? rest.concat([c]) : rest).join(" ");
    return on;
  }
}
class Node {
  constructor(tag) {
    Object.assign(this, {tagName: tag, children: [], parentNode: null, attrs: {}, dataset: {},
                         style: {}, listeners: {}, text: "", value: "", offsetWidth: 200,
                         offsetHeight: 120});
    this.classList = new ClassList(this);
  }
  get className() { return this.attrs["class"] || ""; }
  set className(v) { this.attrs["class"] = v; }
  get textContent() { return this.text + this.children.map(c => c.textContent).join(""); }
  set textContent(v) { this.children = []; this.text = String(v); }
  setAttribute(k, v) { this.attrs[k] = String(v); }
  appendChild(c) { c.remove(); c.parentNode = this; this.children.push(c); return c; }
  append(...cs) { for (const c of cs) this.appendChild(c); }
  replaceChildren(...cs) { for (const c of this.children.slice()) c.remove(); this.append(...cs); }
  remove() {
    if (!this.parentNode) return;
    this.parentNode.children = this.parentNode.children.filter(c => c !== this);
    this.parentNode = null;
  }
  addEventListener(type, f) { (this.listeners[type] = this.listeners[type] || []).push(f); }
  dispatchEvent(ev) { for (const f of this.listeners[ev.type] || []) f(ev); return true; }
  scrollIntoView() {}
  descendants() { return this.children.flatMap(c => [c].concat(c.descendants())); }
  querySelectorAll(selector) {
    // "tag.class", "A B" (B inside A) and "X, Y" are all the script asks for
    const simple = (e, s) => {
      const [tag, ...classes] = s.split(".");
      return (!tag || e.tagName === tag) && classes.every(c => e.classList.contains(c));
    };
    const matches = (e, parts) => {
      if (!simple(e, parts[parts.length - 1])) return false;
      let k = parts.length - 2;
      for (let a = e.parentNode; a && a !== this && k >= 0; a = a.parentNode) {
        if (simple(a, parts[k])) k--;
      }
      return k < 0;
    };
    const groups = selector.split(",").map(g => g.trim().split(/\s+/));
    return this.descendants().filter(e => groups.some(parts => matches(e, parts)));
  }
  querySelector(selector) { return this.querySelectorAll(selector)[0] || null; }
}
function serialize(e) {
  const attrs = Object.entries(e.attrs).map(([k, v]) => " " + k + '="' + v + '"').join("");
  return "<" + e.tagName + attrs + ">" + e.text + e.children.map(serialize).join("") +
    "</" + e.tagName + ">";
}
const fs = require("fs");
const ids = {};
for (const id of ["bivtree-data", "result", "view", "tree", "edges", "tip", "levels",
                  "summary", "legend", "query", "fewer", "more", "all", "search", "clear"]) {
  ids[id] = new Node(id === "edges" ? "svg" : "div");
}
ids.tree.appendChild(ids.edges);
ids.view.appendChild(ids.tree);
// the scrolled view: 1200 x 800 pixels, the tree 18 pixels in (its padding)
Object.assign(ids.view, {clientWidth: 1200, clientHeight: 800, scrollLeft: 0, scrollTop: 0});
Object.assign(ids.tree, {offsetLeft: 18, offsetTop: 18});
ids["bivtree-data"].text = fs.readFileSync(process.argv[2], "utf8");
const body = new Node("body");
body.appendChild(ids.view);
global.document = {body: body, getElementById: id => ids[id] || null,
                   createElement: tag => new Node(tag),
                   createElementNS: (ns, tag) => new Node(tag),
                   createTextNode: text => Object.assign(new Node("#text"), {text: text})};
global.window = {innerWidth: 1600, innerHeight: 1000, addEventListener() {}};
global.location = {hash: process.argv[4] || ""};
global.MouseEvent = class { constructor(type) { this.type = type; } };
(0, eval)(fs.readFileSync(process.argv[3], "utf8"));
const plots = {};
for (const svg of ids.tree.querySelectorAll("svg.plot")) plots[svg.dataset.node] = serialize(svg);
const cards = {}, rules = {};
for (const card of ids.tree.children) {
  if (card.dataset.node === undefined) continue;
  cards[card.dataset.node] = [parseFloat(card.style.left), parseFloat(card.style.top),
                              card.offsetWidth, card.offsetHeight];
  const rule = card.children.find(c => c.classList.contains("rule"));
  if (rule) rules[card.dataset.node] = {text: rule.textContent, attrs: rule.attrs};
}
const scroll = [ids.view.scrollLeft, ids.view.scrollTop];
console.log(JSON.stringify({state: body.dataset, plots: plots, cards: cards, rules: rules,
                            scroll: scroll}));
"""


def run_in_node(tmp_path, page, fragment=""):
    """The state and the node plots (SVG text by node id) of ``page`` run by node.js."""
    out = run_page_in_node(tmp_path, page, fragment)
    return out["state"], out["plots"]


def run_page_in_node(tmp_path, page, fragment=""):
    """``page`` run by node.js: its ``state`` (the body's data- attributes), ``plots``
    (SVG text by node id), ``cards`` (``[left, top, width, height]`` of each card by node
    id, in the tree's pixels), ``rules`` (each decision card's rule: its ``text`` and
    ``attrs``) and ``scroll`` (the view's ``[left, top]``)."""
    node = shutil.which("node") or shutil.which("nodejs")
    if node is None:
        pytest.skip("no node.js on PATH to run the page's script")
    from bivtree.export.html_page import PAGE_SCRIPT

    (tmp_path / "dom.js").write_text(FAKE_DOM, encoding="utf-8")
    (tmp_path / "page.js").write_text(PAGE_SCRIPT, encoding="utf-8")
    (tmp_path / "data.json").write_text(DATA_ELEMENT.search(page).group(1), encoding="utf-8")
    result = subprocess.run([node, str(tmp_path / "dom.js"), str(tmp_path / "data.json"),
                             str(tmp_path / "page.js"), fragment],
                            capture_output=True, text=True, timeout=120, check=False)
    assert result.returncode == 0, result.stderr[-2000:]
    out = json.loads(result.stdout)
    # the names of the body's data- attributes, as body_state reads them from a browser
    state = {re.sub(r"[A-Z]", lambda m: "-" + m.group(0).lower(), k): v
             for k, v in out["state"].items()}
    assert state["status"] == "ready", state
    return {"state": state, "plots": out["plots"], "cards": out["cards"],
            "rules": out["rules"], "scroll": out["scroll"]}


def svg_labels(svg, attrs=""):
    """The labels of an SVG text whose attributes match ``attrs``: per text element, its
    full text (its ``<title>`` when it has one, else its text) and the lines drawn."""
    out = []
    for match in re.finditer(r"<text([^>]*)>(.*?)</text>", svg):
        if not re.search(attrs, match.group(1)):
            continue
        inner = match.group(2)
        title = re.search(r"<title>(.*?)</title>", inner)
        drawn = re.sub(r"<title>.*?</title>", "", inner)
        lines = re.findall(r"<tspan[^>]*>(.*?)</tspan>", drawn) or [drawn]
        out.append((title.group(1) if title else drawn, lines))
    return out


def typed(row):
    return "#search=" + ",".join("nan" if np.isnan(v) else repr(float(v)) for v in row)


def test_the_script_routes_indicator_slots_as_apply(tmp_path):
    clf, frame, y = indicator_fit()
    tree = clf.tree_
    page = export_html(clf, frame, y)
    X = clf._validate_X_predict(frame)  # the codes the page's search box takes
    code = page_data(page)["nodes"][0]["indicator_categories"][1][0]  # one of the set
    rows = [X[k].copy() for k in (0, 3, 5, 7, 33)]
    rows[1][2] = code
    rows[2][2] = np.nan  # a missing colour
    rows[3][2] = 17.0    # a code outside every set reads 0, as in the kernel
    rows[4][0] = np.nan
    seen = set()
    for row in rows:
        state, plots = run_in_node(tmp_path, page, typed(row))
        path = tree.decision_path(row.reshape(1, -1)).indices.tolist()
        assert state["path"] == ",".join(map(str, path))
        seen.update(path)
        # the typed values are starred in the root's plot, in its row or in the strip
        assert 'class="star"' in plots["0"]
    assert {1, 4} <= seen  # both sides of the root taken


def test_the_script_draws_each_row_s_cut(tmp_path):
    clf, frame, y = indicator_fit()
    tree = clf.tree_
    data = page_data(page := export_html(clf, frame, y))
    state, plots = run_in_node(tmp_path, page)
    assert int(state["root-points"]) == frame.shape[0]
    assert int(state["root-missing"]) == data["nodes"][0]["plot"]["missing"]["total"] > 0
    svg = plots["0"]
    plot = data["nodes"][0]["plot"]
    u0, u1 = plot["box"][:2]
    drawn = sorted(float(x) for x in re.findall(r'<line x1="([-\d.e]+)"[^>]*class="split"', svg))
    # the page's pixels: 40 left margin, 190 wide
    expected = sorted(40 + (c[0] - u0) / (u1 - u0) * 190 for c in plot["cuts"])
    assert len(drawn) == len(expected) == 2
    np.testing.assert_allclose(drawn, expected, atol=1e-6)
    labels = svg_labels(svg, r'transform="rotate\(-90 35 ')
    codes = data["nodes"][0]["indicator_categories"][1]
    name = ", ".join(clf.categories_[2][c] for c in codes)
    # the set's label is longer than its row: in two lines, shortened, in full on hover
    assert [full for full, _ in labels] == ["not", f"colour in {{{name}}}"]
    assert [lines for _, lines in labels] == [["not"]] + plot["y_ticks_shown"][1:]
    assert len(labels[1][1]) == 2
    assert svg.count('class="yes"') == sum(p[4] for p in plot["pieces"])
    assert tree.has_indicator_slots[0]


def test_the_script_draws_the_grid_of_two_indicators(tmp_path):
    clf, X, y = two_indicator_fit()
    page = export_html(clf, X, y, feature_names=["c1", "c2"])
    state, plots = run_in_node(tmp_path, page, typed(X[np.flatnonzero(y)[0]]))
    svg = plots["0"]
    assert 'class="split"' not in svg and svg.count('class="yes"') == 3
    assert ">c1 in {0}</text>" in svg and ">c2 in {2}</text>" in svg
    assert state["path"] == ",".join(map(str, clf.decision_path(
        X[np.flatnonzero(y)[:1]]).indices.tolist()))
    # the star of a positive sample sits in the cell (1, 1), the top right one
    star = re.search(r'<polygon points="([^"]*)" class="star"', svg).group(1)
    xs, ys = zip(*[map(float, p.split(",")) for p in star.split()])
    assert 40 + 190 / 2 < np.mean(xs) < 40 + 190 and 6 < np.mean(ys) < 6 + 150 / 2


def test_the_indicator_page_renders_in_headless_chromium(tmp_path):
    browser = _chromium()
    if browser is None:
        pytest.skip("no Chromium found (chromium, chromium-browser or google-chrome on PATH)")
    clf, frame, y = indicator_fit()
    page = tmp_path / "tree.html"
    page.write_text(export_html(clf, frame, y), encoding="utf-8")
    state = body_state(dump_dom(browser, page))
    assert state["status"] == "ready", state
    assert int(state["root-points"]) == frame.shape[0]
    row = clf._validate_X_predict(frame)[3]
    state = body_state(dump_dom(browser, page, typed(row)))
    assert state["path"] == ",".join(map(str, clf.tree_.decision_path(
        row.reshape(1, -1)).indices.tolist()))


# ----------------------------------------------------------------- long labels
#: category values longer than a bar's or a row's room on the page.
OCCUPATIONS = ["Self-employed-not-incorporated", "Executive-and-managerial-staff",
               "Handlers-cleaners-and-labourers", "Machine-operators-and-inspectors",
               "Transport-and-moving-services", "Farming-fishing-and-forestry",
               "Protective-services-and-security", "Armed-Forces-and-reserves",
               "Private-household-services", "Technical-support-and-repair"]


def long_category_fit():
    """A categorical root whose set holds six long occupation names (over 200
    characters of rule), and its data."""
    pd = pytest.importorskip("pandas")
    rng = np.random.default_rng(0)
    frame = pd.DataFrame({"occupation": rng.choice(OCCUPATIONS, 500),
                          "hours": rng.normal(40, 10, 500)})
    y = np.where(frame["occupation"].isin(OCCUPATIONS[:6]), "high", "low")
    clf = BivariateTreeClassifier(max_depth=2, random_state=0,
                                  splitter_options={"category_pairs": False}).fit(frame, y)
    assert clf.tree_.categorical_mask(0)
    return clf, frame, y


def test_abbreviate_keeps_what_fits_and_says_what_it_cuts():
    from bivtree.export.html_page import _abbreviate

    assert _abbreviate("x in {a, b}", 11) == "x in {a, b}"  # fits: as it is
    text = "colour in {red, green, blue, yellow} or colour is missing"
    # the set gives up values from its end, and says how many
    assert _abbreviate(text, 50) == "colour in {red, green, …\u00a0+2} or colour is missing"
    assert _abbreviate(text, 45) == "colour in {red, …\u00a0+3} or colour is missing"
    # two sets: the longer one gives up values first
    two = "a in {x, y} and b in {long-value-1, long-value-2, long-value-3}"
    assert _abbreviate(two, 50) == "a in {x, y} and b in {long-value-1, …\u00a0+2}"
    # what cannot fit even so is cut, and ends with an ellipsis
    assert _abbreviate("Self-employed-not-incorporated", 12) == "Self-employ…"
    assert _abbreviate(text, 12) == "colour in {…"
    for limit in range(2, len(text) + 3):
        shown = _abbreviate(text, limit)
        assert len(shown) <= max(limit, 2)
        assert shown == text or shown.endswith("…") or "…\u00a0+" in shown


def test_label_lines_wrap_before_they_abbreviate():
    from bivtree.export.html_page import _label_lines

    assert _label_lines("not", 14, 2) == ["not"]
    assert _label_lines("colour in {red, blue}", 14, 2) == ["colour in", "{red, blue}"]
    lines = _label_lines("colour in {black, blue, green, yellow}", 14, 2)
    assert lines == ["colour in", "{black, …\u00a0+3}"]  # the count is never split
    lines = _label_lines("x" * 40, 14, 2)
    assert len(lines) == 2 and all(len(line) <= 14 for line in lines)
    assert lines[-1].endswith("…")


def test_long_category_labels_are_shortened_with_their_full_text_kept():
    clf, frame, y = long_category_fit()
    root = page_data(export_html(clf, frame, y))["nodes"][0]
    # the card's rule: the set cut to its first values, counted, the rest of the rule kept
    assert len(root["pretty"]) > 200 and root["pretty_shown"] != root["pretty"]
    assert len(root["pretty_shown"]) <= 160
    assert re.search(r"\{[^{}]*, …\u00a0\+\d+\}", root["pretty_shown"])
    assert root["pretty_shown"].endswith("or occupation is missing")
    # the bars' labels: each in its bar's width, marked where cut, in full beside
    plot = root["plot"]
    assert plot["kind"] == "bars" and plot["categories"] == sorted(OCCUPATIONS)
    for full, shown in zip(plot["categories"], plot["categories_shown"]):
        assert shown.endswith("…") and full.startswith(shown[:-1])
    # short labels are left alone
    clf, frame, y = indicator_fit()
    for node in page_data(export_html(clf, frame, y))["nodes"]:
        if node["left"] >= 0:
            assert node["pretty_shown"] == node["pretty"]
            assert node["plot"]["x_label_shown"] == node["plot"]["x_label"]


def test_the_script_writes_the_full_text_of_shortened_labels_on_hover(tmp_path):
    clf, frame, y = long_category_fit()
    page = export_html(clf, frame, y)
    data = page_data(page)
    out = run_page_in_node(tmp_path, page)
    rule = out["rules"]["0"]
    assert rule["text"] == data["nodes"][0]["pretty_shown"]
    assert rule["attrs"]["title"] == data["nodes"][0]["pretty"]
    assert "abbrev" in rule["attrs"]["class"]
    labels = svg_labels(out["plots"]["0"], r'y="166"')  # the bars' labels, under the plot
    assert [full for full, _ in labels] == sorted(OCCUPATIONS)
    assert [lines for _, lines in labels] == [[s] for s in
                                              data["nodes"][0]["plot"]["categories_shown"]]
    # a label that fits has no title
    clf, frame, y = indicator_fit()
    out = run_page_in_node(tmp_path, export_html(clf, frame, y))
    assert "title" not in out["rules"]["1"]["attrs"]
    assert ">not</text>" in out["plots"]["0"]


# ----------------------------------------------------------------- what is in view
def in_fake_view(out, node):
    """Whether ``node``'s card is inside the 1200 x 800 view of FAKE_DOM, as scrolled."""
    x, y, w, h = out["cards"][str(node)]
    left, top = out["scroll"]
    x, y = x + 18 - left, y + 18 - top  # the tree sits 18 pixels into the view
    return -1 <= x and x + w <= 1201 and -1 <= y and y + h <= 801


@pytest.fixture(scope="module")
def wide():
    """A balanced tree of depth 4 (16 classes, one per quadrant of 4 features) and its
    page: its first four levels are wider than a window."""
    rng = np.random.default_rng(0)
    X = rng.uniform(size=(1600, 4))
    y = (X > 0.5) @ (1 << np.arange(4))
    clf = BivariateTreeClassifier(max_depth=5, random_state=0).fit(X, y)
    assert np.bincount(clf.tree_.node_depth[~clf.tree_.is_leaf]).tolist() == [1, 2, 4, 8]
    return clf, X, export_html(clf, X, y)


def test_the_script_opens_with_the_root_centred_and_reveals_a_search(tmp_path, wide, wine,
                                                                     wine_page):
    clf, X, page = wide
    tree = clf.tree_
    out = run_page_in_node(tmp_path, page)
    x, _, w, _ = out["cards"]["0"]
    # wider than the view: scrolled so that the root's centre is the view's
    assert max(a + b for a, b, _, _ in out["cards"].values()) + 36 > 1200
    assert 18 + x + w / 2 - out["scroll"][0] == pytest.approx(600, abs=1)
    assert out["scroll"][1] == 0
    assert all(in_fake_view(out, k) for k in (0, tree.children_left[0], tree.children_right[0]))
    # the layout is tidy: children centred under their parent, cards never overlap
    for node, (x, y, w, h) in out["cards"].items():
        node = int(node)
        if not tree.is_leaf[node] and str(tree.children_left[node]) in out["cards"]:
            kids = [out["cards"][str(k)] for k in (tree.children_left[node],
                                                   tree.children_right[node])]
            assert np.mean([a + b / 2 for a, _, b, _ in kids]) == pytest.approx(x + w / 2)
    by_row = {}
    for x, y, w, _ in out["cards"].values():
        by_row.setdefault(y, []).append((x, x + w))
    for spans in by_row.values():
        spans.sort()
        assert all(a[1] + 16 <= b[0] + 1e-6 for a, b in itertools.pairwise(spans))
    # a search whose path fits in the view: all of it in view, its leaf included
    row = int(np.argmax(X[:, 0] + X[:, 1] + X[:, 2] + X[:, 3]))  # the far right corner
    out = run_page_in_node(tmp_path, page, f"#search=row%20{row}")
    path = [int(i) for i in out["state"]["path"].split(",")]
    assert path == tree.decision_path(X[row:row + 1]).indices.tolist() and len(path) == 5
    assert all(in_fake_view(out, i) for i in path)
    # a path longer than the view keeps its leaf in view, and the way to it as far as fits
    clf, X, _y = wine
    depth = clf.tree_.node_depth[clf.apply(X)]
    row = int(np.argmax(depth))
    out = run_page_in_node(tmp_path, wine_page, f"#search=row%20{row}")
    path = [int(i) for i in out["state"]["path"].split(",")]
    assert path[-1] == clf.apply(X.iloc[[row]])[0] and len(path) == depth[row] + 1
    assert len(path) * (120 + 34) > 800  # the fake cards' height and the levels' gap
    assert in_fake_view(out, path[-1]) and in_fake_view(out, path[-2])
    assert not in_fake_view(out, path[0])


def test_a_click_keeps_the_clicked_node_in_place(tmp_path, wide):
    clf, _X, page = wide
    tree = clf.tree_
    deep = [n for n in range(tree.node_count) if tree.node_depth[n] == DEFAULT_OPEN_LEVELS - 1
            and not tree.is_leaf[n]]
    before = run_page_in_node(tmp_path, page)
    for node in (deep[0], deep[-1]):
        after = run_page_in_node(tmp_path, page, f"#expand={node}")
        assert after["state"]["expanded"] == str(node)
        assert len(after["cards"]) == len(before["cards"]) + 2

        def screen(out, node=node):
            x, y, _, _ = out["cards"][str(node)]
            return x - out["scroll"][0], y - out["scroll"][1]

        assert screen(after) == pytest.approx(screen(before))


# ----------------------------------------------------------------- the check script
def check_script():
    """scripts/check_html_page.py as a module."""
    import importlib.util
    import pathlib

    path = pathlib.Path(__file__).resolve().parents[1] / "scripts" / "check_html_page.py"
    spec = importlib.util.spec_from_file_location("check_html_page", path)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def test_the_check_script_writes_into_a_temporary_folder_by_default(monkeypatch, tmp_path):
    import pathlib
    import tempfile

    script = check_script()
    written = []
    monkeypatch.setattr(script, "find_browser", lambda name=None: "chromium")
    monkeypatch.setattr(script, "run_checks", lambda *args: [])
    monkeypatch.setattr(script, "screenshots",
                        lambda browser, page, folder, typed: written.append(folder) or [])
    assert script.main([]) == 0
    committed = (pathlib.Path(__file__).resolve().parents[1] / "docs" / "images").resolve()
    assert written[0] != committed
    assert written[0].is_relative_to(pathlib.Path(tempfile.gettempdir()).resolve())
    assert script.main(["--out", str(tmp_path)]) == 0
    assert written[1] == tmp_path.resolve()
    assert script.main(["--out", str(tmp_path / "nowhere")]) == 2


def test_the_check_script_geometry_helpers():
    script = check_script()
    view, boxes = script.geometry({"view-box": "0,100,800,700",
                                   "boxes": "0:300,120,500,400 1:10,450,200,720"})
    assert view == (0, 100, 800, 700) and set(boxes) == {0, 1}
    assert script.inside(boxes[0], view) and not script.inside(boxes[1], view)
    assert script.outline(boxes.values()) == (10, 120, 500, 720)
    assert script.fits((0, 0, 800, 600), view) and not script.fits((0, 0, 801, 10), view)
    with pytest.raises(RuntimeError, match="selftest"):
        script.geometry({"status": "ready"})


def test_the_check_script_passes_in_headless_chromium(tmp_path):
    """The page opens with its root centred and in view, a search brings the path into
    view (scripts/check_html_page.py's checks, with #selftest), and the script writes
    its two screenshots where it is told."""
    browser = _chromium()
    if browser is None:
        pytest.skip("no Chromium found (chromium, chromium-browser or google-chrome on PATH); "
                    "install one, e.g. apt-get install chromium, to run the page's script")
    script = check_script()
    assert script.main(["--browser", browser, "--out", str(tmp_path)]) == 0
    for name in ("tree_page.png", "tree_page_search.png"):
        assert (tmp_path / name).read_bytes()[:8] == b"\x89PNG\r\n\x1a\n", name


def test_a_wide_tree_opens_centred_in_headless_chromium(tmp_path, wide):
    """In a window narrower than the tree, the root is centred and in view at load, and a
    search keeps its leaf in view (its whole path where it fits); long labels carry
    their full text in the real page too."""
    browser = _chromium()
    if browser is None:
        pytest.skip("no Chromium found (chromium, chromium-browser or google-chrome on PATH)")
    script = check_script()
    clf, X, html_text = wide
    page = tmp_path / "tree.html"
    page.write_text(html_text, encoding="utf-8")
    window = (800, 700)
    view, boxes = script.geometry(script.body_state(browser, page, "#selftest", window))
    assert script.outline(boxes.values())[2] - script.outline(boxes.values())[0] > 800
    root = boxes[0]
    assert script.inside(root, view)
    assert (root[0] + root[2]) / 2 == pytest.approx((view[0] + view[2]) / 2, abs=2)
    for row in (0, int(np.argmax(X.sum(axis=1)))):
        state = script.body_state(browser, page, f"#selftest&search=row%20{row}", window)
        view, boxes = script.geometry(state)
        path = [int(i) for i in state["path"].split(",")]
        assert path == clf.tree_.decision_path(X[row:row + 1]).indices.tolist()
        assert script.inside(boxes[path[-1]], view)
        drawn = [boxes[i] for i in path]
        if script.fits(script.outline(drawn), view):
            assert all(script.inside(b, view) for b in drawn)

    clf, frame, y = long_category_fit()
    page.write_text(export_html(clf, frame, y), encoding="utf-8")
    dom = dump_dom(browser, page)
    assert body_state(dom)["status"] == "ready"
    assert f'title="{page_data(export_html(clf, frame, y))["nodes"][0]["pretty"]}"' in dom
    titles = re.findall(r"<title>([^<]*)</title>", dom)
    assert set(OCCUPATIONS) <= set(titles)
