"""Categorical nodes: a category set per node, end to end.

Routing (apply, decision_path and the growth partition against a plain-Python
reference), MUST's subset splits stored as such, serialization (old versions
included), text / rules / Graphviz, pictures and pruning.
"""

import json
import pickle

import numpy as np
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

import naive
from bivtree import BivariateTreeClassifier, BivariateTreeRegressor, Tree
from bivtree._kernels.traversal import partition_samples
from bivtree.export import (
    export_graphviz,
    export_rules,
    export_text,
    format_rule,
    from_json,
    rules_markdown,
    to_json,
)
from bivtree.pruning import cost_complexity_pruning_path, prune_tree
from bivtree.tree import categories_to_mask, mask_to_categories
from test_pruning import assert_is_subtree

#: codes 0, 2 and 5 (of 0..6) against the rest: not a range of the codes.
SET = [0, 2, 5]


# --------------------------------------------------------------------------- references
def naive_goes_left(x, features, weights, threshold, mask):
    """The node test written out in Python: a category set, or the sum in slot order
    (a slot with a set reads its indicator); NaN goes right (no learned side)."""
    return naive.goes_left(x, features, weights, threshold, mask)


def naive_path(tree, x):
    node, path = 0, [0]
    while tree.children_left[node] != -1:
        left = naive_goes_left(x, tree.features[node], tree.weights[node],
                               tree.threshold[node], tree.category_mask[node])
        node = tree.children_left[node] if left else tree.children_right[node]
        path.append(node)
    return path


def random_tree(rng, n_features, depth):
    """A random tree (preorder ids) mixing categorical and bivariate nodes."""
    nodes = []

    def build(d):
        node = len(nodes)
        nodes.append(None)
        if d == depth or (d > 0 and rng.uniform() < 0.2):
            return node
        kind = rng.uniform()
        if kind < 0.4:
            mask = int(rng.integers(1, 2 ** 62)) | (int(rng.integers(0, 2)) << 63)
            split = ([int(rng.integers(n_features)), -1], [1.0, 0.0], 0.0, [mask, 0])
        elif kind < 0.7 and n_features >= 2:
            # indicator slots: one or both slots read a category set's indicator
            f = rng.choice(n_features, size=2, replace=False).tolist()
            masks = [int(rng.integers(1, 2 ** 8)) if rng.uniform() < 0.6 else 0,
                     int(rng.integers(1, 2 ** 8))]
            split = (f, [float(rng.normal()), float(rng.normal())],
                     float(rng.normal()), masks)
        else:
            f = rng.choice(n_features, size=min(2, n_features), replace=False).tolist()
            w = [1.0, float(rng.normal())] if len(f) == 2 else [1.0]
            split = ((f + [-1])[:2], (w + [0.0])[:2], float(rng.normal(scale=20)), [0, 0])
        left = build(d + 1)
        right = build(d + 1)
        nodes[node] = (split, left, right)
        return node

    build(0)
    n = len(nodes)
    cl, cr = np.full(n, -1), np.full(n, -1)
    features, weights = np.full((n, 2), -1), np.zeros((n, 2))
    threshold, mask = np.full(n, -2.0), [[0, 0] for _ in range(n)]
    for i, entry in enumerate(nodes):
        if entry is not None:
            (features[i], weights[i], threshold[i], mask[i]), cl[i], cr[i] = entry
    return Tree(cl, cr, features, weights, threshold, np.zeros(n), np.ones(n, dtype=int),
                np.ones(n), np.ones((n, 2)), n_features, mask)


def code_like_values(rng, shape):
    """Codes in and out of [0, 63], fractions, negatives, NaN and plain numbers."""
    kind = rng.integers(0, 6, size=shape)
    return np.select(
        [kind == 0, kind == 1, kind == 2, kind == 3, kind == 4],
        [rng.integers(0, 8, size=shape), rng.integers(56, 70, size=shape),
         rng.integers(0, 8, size=shape) + 0.5, -rng.integers(1, 3, size=shape),
         np.full(shape, np.nan)],
        rng.normal(scale=30, size=shape)).astype(float)


# --------------------------------------------------------------------------- routing
@settings(max_examples=40, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(seed=st.integers(0, 100_000), n_features=st.integers(1, 3), depth=st.integers(1, 4))
def test_apply_decision_path_and_partition_follow_the_sets(seed, n_features, depth):
    rng = np.random.default_rng(seed)
    tree = random_tree(rng, n_features, depth)
    X = code_like_values(rng, (40, n_features))
    paths = [naive_path(tree, x) for x in X]
    np.testing.assert_array_equal(tree.apply(X), [p[-1] for p in paths])
    dense = tree.decision_path(X).toarray()
    for row, path in zip(dense, paths):
        assert np.flatnonzero(row).tolist() == sorted(path)
    # growth's routing: a stable partition by the same test
    for node in np.flatnonzero(~tree.is_leaf):
        samples = rng.permutation(X.shape[0]).astype(np.int64)
        before = samples.copy()
        mid = partition_samples(X, samples, 0, samples.size, tree.features[node],
                                tree.weights[node], tree.threshold[node],
                                tree.category_mask[node])
        left = [i for i in before if naive_goes_left(X[i], tree.features[node],
                                                    tree.weights[node], tree.threshold[node],
                                                    tree.category_mask[node])]
        right = [i for i in before if i not in set(left)]
        assert samples[:mid].tolist() == left and samples[mid:].tolist() == right


def test_mask_helpers_and_the_highest_code():
    assert categories_to_mask([0, 2, 5]) == 0b100101
    assert mask_to_categories(categories_to_mask([63, 1])) == [1, 63]
    for bad in (64, -1, 2.5):
        with pytest.raises(ValueError, match="integer in \\[0, 63\\]"):
            categories_to_mask([bad])
    tree = Tree([1, -1, -1], [2, -1, -1], [[0, -1], [-1, -1], [-1, -1]],
                [[1.0, 0.0], [0.0, 0.0], [0.0, 0.0]], [0.0, -2.0, -2.0], [0.5, 0, 0],
                [2, 1, 1], [2.0, 1.0, 1.0], [[1, 1], [1, 0], [0, 1]], 1, [1 << 63, 0, 0])
    X = np.array([[63.0], [62.0], [64.0], [63.5], [-0.0], [np.inf]])
    np.testing.assert_array_equal(tree.apply(X), [1, 2, 2, 2, 2, 2])
    assert tree.node_categories(0) == [63] and tree.is_categorical.tolist() == [1, 0, 0]


# --------------------------------------------------------------------------- MUST
def colour_data(n=140, seed=0, flip=False):
    rng = np.random.default_rng(seed)
    codes = np.concatenate([np.arange(7), rng.integers(0, 7, size=n - 7)])
    X = np.column_stack([rng.normal(size=n), rng.normal(size=n), codes])
    y = (np.isin(codes, SET) == flip).astype(int)
    return X, y


def must(**options):
    return BivariateTreeClassifier(splitter="lda", splitter_options={
        "categorical_features": [2], **options})


@pytest.mark.parametrize("flip", [False, True])
def test_must_stores_a_non_contiguous_subset_as_one_categorical_node(flip):
    X, y = colour_data(flip=flip)
    clf = must().fit(X, y)
    tree = clf.tree_
    assert tree.node_count == 3 and clf.score(X, y) == 1.0
    # the categories with the smaller share of class 1 go left
    expected = SET if not flip else sorted(set(range(7)) - set(SET))
    assert tree.node_categories(0) == expected
    assert tree.features[0].tolist() == [2, -1] and tree.weights[0].tolist() == [1.0, 0.0]
    assert clf.split_info_[0]["kind"] == "categorical"
    assert clf.split_info_[0]["categories"] == expected
    np.testing.assert_array_equal(clf.feature_importances_, [0.0, 0.0, 1.0])
    # codes never seen at fit, outside [0, 63] or fractional go right
    unseen = np.array([[0.0, 0.0, c] for c in (7, 63, 3.5)])
    np.testing.assert_array_equal(clf.apply(unseen), [2, 2, 2])


def test_more_than_two_classes_become_two_groups_first():
    codes = np.tile(np.arange(6), 5).astype(float)
    y = codes.astype(int) % 3  # classes {0, 3}, {1, 4}, {2, 5}
    clf = BivariateTreeClassifier(splitter="lda", splitter_options={
        "categorical_features": [0]}).fit(codes[:, None], y)
    tree = clf.tree_
    assert clf.score(codes[:, None], y) == 1.0
    assert tree.n_leaves == 3 and np.all(tree.is_categorical == ~tree.is_leaf)
    # without numerical features the largest class (the first on ties) faces the rest
    assert clf.split_info_[0]["groups"] in ([1, 0, 0], [0, 1, 1])


@settings(max_examples=25, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(seed=st.integers(0, 100_000), n=st.integers(6, 40), n_codes=st.integers(2, 7),
       weighted=st.booleans())
def test_two_class_subset_is_the_best_of_all_subsets(seed, n, n_codes, weighted):
    rng = np.random.default_rng(seed)
    codes = rng.integers(0, n_codes, size=n).astype(float) * 3  # sparse codes
    y = rng.integers(0, 2, size=n)
    y[:2] = [0, 1]
    w = rng.uniform(0.2, 3.0, size=n) if weighted else np.ones(n)
    clf = BivariateTreeClassifier(splitter="lda", max_depth=1, splitter_options={
        "categorical_features": [0]}).fit(codes[:, None], y, sample_weight=w)
    tree = clf.tree_
    if np.unique(codes).size < 2:
        assert tree.node_count == 1
        return
    if tree.node_count == 1:  # only when no subset lowers the impurity
        best = naive.best_category_subset(codes, y, w, "gini", 2)
        assert best >= tree.weighted_n_node_samples[0] * tree.impurity[0] * (1 - 1e-9)
        return
    wn, imp = tree.weighted_n_node_samples, tree.impurity
    g = wn[1] * imp[1] + wn[2] * imp[2]
    assert g == pytest.approx(naive.best_category_subset(codes, y, w, "gini", 2),
                              rel=1e-9, abs=1e-12)
    left = np.isin(codes, tree.node_categories(0))
    assert naive.weighted_child_impurity(left, y, w, "gini", 2) == pytest.approx(g, rel=1e-9)


@settings(max_examples=15, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(seed=st.integers(0, 100_000), n=st.integers(10, 50), n_classes=st.integers(2, 3))
def test_grown_sets_route_the_training_samples_as_counted(seed, n, n_classes):
    rng = np.random.default_rng(seed)
    codes = rng.integers(0, 9, size=n)
    X = np.column_stack([rng.normal(size=n), codes, rng.integers(0, 3, size=n)])
    y = (codes + rng.integers(0, 2, size=n)) % n_classes
    clf = BivariateTreeClassifier(splitter="lda", max_depth=4, splitter_options={
        "categorical_features": [1, 2]}).fit(X, y)
    tree = clf.tree_
    reached = np.asarray(tree.decision_path(X).sum(axis=0)).ravel()
    np.testing.assert_array_equal(reached, tree.n_node_samples)
    paths = tree.decision_path(X).tocsc()
    for node in np.flatnonzero(tree.is_categorical):
        rows = paths.indices[paths.indptr[node]:paths.indptr[node + 1]]
        present = set(X[rows, tree.features[node, 0]].astype(int).tolist())
        chosen = set(tree.node_categories(node))
        # a proper subset of the categories at the node
        assert chosen and chosen < present


def test_same_tree_for_any_thread_count():
    X, y = colour_data(seed=3)
    y = y ^ (X[:, 0] > 1.0)
    assert must(n_split_features=1).set_params(n_jobs=1).fit(X, y).tree_ == \
        must(n_split_features=1).set_params(n_jobs=2).fit(X, y).tree_


@pytest.mark.parametrize("bad", [3.5, -1.0, 64.0])
def test_bad_category_codes_are_named_at_fit(bad):
    X, y = colour_data()
    X[5, 2] = bad
    with pytest.raises(ValueError, match=f"column 2 holds {bad!r}.*integer category codes "
                                         "in \\[0, 63\\]"):
        must().fit(X, y)


def test_bad_category_codes_in_a_named_column():
    pd = pytest.importorskip("pandas")
    X, y = colour_data()
    frame = pd.DataFrame(X, columns=["a", "b", "colour"])
    frame.loc[0, "colour"] = 64
    with pytest.raises(ValueError, match="'colour' \\(column 2\\) holds 64.0"):
        BivariateTreeClassifier(splitter="lda", splitter_options={
            "categorical_features": ["colour"]}).fit(frame, y)


# --------------------------------------------------------------------------- the Tree object
def test_dict_json_pickle_and_copy_keep_the_sets():
    X, y = colour_data()
    tree = must().fit(X, y).tree_
    for again in (Tree.from_dict(json.loads(json.dumps(tree.to_dict()))),
                  Tree.from_json(tree.to_json()), pickle.loads(pickle.dumps(tree)),
                  tree.copy()):
        assert again == tree and again.category_mask.dtype == np.uint64
        np.testing.assert_array_equal(again.apply(X), tree.apply(X))
    assert tree.to_dict()["version"] == 2
    other = tree.copy()
    other.category_mask[0] ^= np.uint64(1 << 6)
    assert other != tree
    # all 64 bits survive JSON
    big = random_tree(np.random.default_rng(1), 2, 3)
    big.category_mask[:] = 0
    big.category_mask[~big.is_leaf, 0] = 2 ** 64 - 1
    big.features[~big.is_leaf, 1] = -1
    big.weights[~big.is_leaf] = [1.0, 0.0]
    assert Tree.from_json(Tree(**{k: v for k, v in vars(big).items()}).to_json()) == big
    assert big.to_dict()["version"] == 2 and big.to_dict()["category_mask"][0] == 2 ** 64 - 1
    # indicator slots: version 4, one row of sets per node, all 64 bits of both slots
    mixed = random_tree(np.random.default_rng(1), 2, 3)
    mixed.category_mask[:] = 0
    mixed.features[~mixed.is_leaf] = [0, 1]
    mixed.category_mask[~mixed.is_leaf] = [2 ** 64 - 1, 2 ** 63 + 5]
    mixed = Tree(**{k: v for k, v in vars(mixed).items()})
    assert mixed.has_indicator_slots.tolist() == (~mixed.is_leaf).tolist()
    data = json.loads(mixed.to_json())
    assert data["version"] == 4 and data["category_mask"][0] == [2 ** 64 - 1, 2 ** 63 + 5]
    assert Tree.from_dict(data) == mixed


def test_version_1_dictionaries_still_load():
    X, y = colour_data()
    tree = BivariateTreeClassifier(max_depth=2).fit(X, y).tree_
    old = tree.to_dict()
    old["version"] = 1
    del old["category_mask"]
    assert Tree.from_dict(old) == tree
    with pytest.raises(ValueError, match="lacks \\['category_mask'\\]"):
        Tree.from_dict({**old, "version": 2})
    with pytest.raises(ValueError, match="unsupported tree format version 5"):
        Tree.from_dict({**old, "version": 5})


@pytest.mark.parametrize("edit, message", [
    (lambda a: a["category_mask"].__setitem__(1, 4), "leaves and unused slots must have"),
    # a set in the unused second slot
    (lambda a: a.__setitem__("category_mask", [[4, 1], [0, 0], [0, 0]]), "unused slots"),
    (lambda a: a["weights"].__setitem__(0, [2.0, 0.0]), "has weights \\[1, 0, ...\\]"),
    (lambda a: a.__setitem__("category_mask", [[4, 0], [0, 0]]), "category_mask"),
    (lambda a: a.__setitem__("category_mask", [-4, 0, 0]), "category_mask"),
    (lambda a: a.__setitem__("category_mask", [4.0, 0, 0]), "category_mask"),
    (lambda a: a.__setitem__("category_mask", [4, 0]), "category_mask"),
])
def test_malformed_sets_are_rejected(edit, message):
    arrays = {"children_left": [1, -1, -1], "children_right": [2, -1, -1],
              "features": [[0, -1], [-1, -1], [-1, -1]],
              "weights": [[1.0, 0.0], [0.0, 0.0], [0.0, 0.0]], "threshold": [0.0, -2.0, -2.0],
              "impurity": [0.5, 0.0, 0.0], "n_node_samples": [2, 1, 1],
              "weighted_n_node_samples": [2.0, 1.0, 1.0], "value": [[1, 1], [1, 0], [0, 1]],
              "n_features": 2, "category_mask": [4, 0, 0]}
    Tree(**arrays)
    edit(arrays)
    with pytest.raises(ValueError, match=message):
        Tree(**arrays)


def test_estimator_json_round_trip_and_version_1_models():
    X, y = colour_data()
    clf = must().fit(X, y)
    data = json.loads(to_json(clf))
    assert data["version"] == 2 and data["tree"]["category_mask"][0] == 0b100101
    again = from_json(json.dumps(data))
    assert again.tree_ == clf.tree_
    np.testing.assert_array_equal(again.predict(X), clf.predict(X))
    # a model written before categorical nodes existed
    plain = BivariateTreeClassifier(max_depth=2).fit(X, y)
    old = json.loads(to_json(plain))
    old["version"] = old["tree"]["version"] = 1
    del old["tree"]["category_mask"]
    loaded = from_json(json.dumps(old))
    assert loaded.tree_ == plain.tree_
    np.testing.assert_array_equal(loaded.predict(X), plain.predict(X))


# --------------------------------------------------------------------------- text and rules
def hand_made():
    """colour in {0, 1, 2, 3}? then colour in {1, 2}?; else x0 <= 0.5? (x0, colour)."""
    rng = np.random.default_rng(4)
    X = np.column_stack([rng.uniform(size=60), rng.integers(0, 6, size=60)])
    clf = BivariateTreeClassifier(max_depth=1).fit(X, X[:, 0] > 0.5)
    clf.tree_ = Tree(
        [1, 2, -1, -1, 5, -1, -1], [4, 3, -1, -1, 6, -1, -1],
        [[1, -1], [1, -1], [-1, -1], [-1, -1], [0, -1], [-1, -1], [-1, -1]],
        [[1, 0], [1, 0], [0, 0], [0, 0], [1, 0], [0, 0], [0, 0]],
        [0.0, 0.0, -2.0, -2.0, 0.5, -2.0, -2.0], np.zeros(7), [60, 40, 20, 20, 20, 10, 10],
        [60.0, 40, 20, 20, 20, 10, 10],
        [[30, 30], [20, 20], [20, 0], [0, 20], [10, 10], [10, 0], [0, 10]], 2,
        [categories_to_mask([0, 1, 2, 3]), categories_to_mask([1, 2]), 0, 0, 0, 0, 0])
    return clf, X


def holds(condition, X):
    f = condition["features"]
    if condition["op"] in ("in", "not in"):
        inside = np.isin(X[:, f[0]], condition["categories"])
        return inside if condition["op"] == "in" else ~inside
    s = sum(w * X[:, g] for g, w in zip(f, condition["weights"]))
    return s <= condition["threshold"] if condition["op"] == "<=" else s > condition["threshold"]


def test_text_rules_and_graphviz_show_the_set():
    X, y = colour_data()
    names = ["a", "b", "colour"]
    clf = must().fit(X, y)
    text = export_text(clf, feature_names=names)
    assert text.startswith("if colour in {0, 2, 5}:\n")
    assert "else:  # colour not in {0, 2, 5} or colour is missing\n" in text
    dot = export_graphviz(clf, feature_names=names)
    assert "colour in {0, 2, 5}" in dot
    rows = export_rules(clf, feature_names=names, X=X)
    assert [r["rule"] for r in rows] == ["colour in {0, 2, 5}",
                                         "colour not in {0, 2, 5} or colour is missing"]
    assert rows[0]["conditions"][0]["categories"] == SET
    assert "colour not in {0, 2, 5}" in rules_markdown(rows)
    assert format_rule([2, -1], [1.0, 0.0], 0.0, names, category_mask=0b100101,
                       op=">") == "colour not in {0, 2, 5}"


def test_rules_merge_set_tests_and_reproduce_apply():
    clf, _ = hand_made()
    rows = export_rules(clf, feature_names=["x0", "colour"])
    # missing values go to the heavier child, the right one on equal weights
    assert [r["rule"] for r in rows] == [
        "colour in {1, 2}", "colour in {0, 3} or colour is missing",
        "colour not in {0, 1, 2, 3} and x0 <= 0.5",
        "colour not in {0, 1, 2, 3} and (x0 > 0.5 or x0 is missing)"]
    rng = np.random.default_rng(5)
    X = np.column_stack([rng.uniform(size=200), code_like_values(rng, 200)])
    X[:, 1] = np.nan_to_num(X[:, 1], nan=1.5)  # estimators refuse NaN
    satisfied = np.array([np.all([holds(c, X) for c in r["conditions"]], axis=0)
                          for r in rows])
    assert np.array_equal(satisfied.sum(axis=0), np.ones(X.shape[0]))
    leaves = np.array([r["leaf"] for r in rows])[np.argmax(satisfied, axis=0)]
    np.testing.assert_array_equal(leaves, clf.apply(X))


# --------------------------------------------------------------------------- pictures
def shaded_categories(axes):
    """Tick labels of the shaded categories, and the bold ones, of a categorical plot."""
    shade = [a for a in axes.get_children() if a.get_gid() == "yes-region"]
    assert len(shade) == 1
    assert not [a for a in axes.get_children() if a.get_gid() == "split"]
    labels = [t.get_text() for t in axes.get_xticklabels()]
    # each rectangle spans [j - 0.5, j + 0.5] around the bar of category j
    shaded = [labels[int(np.rint(p.vertices[:, 0].min() + 0.5))]
              for p in shade[0].get_paths()]
    bold = [t.get_text() for t in axes.get_xticklabels() if t.get_fontweight() == "bold"]
    return shaded, bold


def test_plots_draw_categorical_nodes_headless():
    matplotlib = pytest.importorskip("matplotlib")
    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    from bivtree import plot_split, plot_tree

    X, y = colour_data()
    clf = must().fit(X, y)
    try:
        ax = plot_tree(clf, X, y, feature_names=["a", "b", "colour"])
        root = next(a for a in ax.child_axes if a.get_label() == "node 0")
        assert root.get_xlabel() == "colour"
        assert shaded_categories(root) == (["0", "2", "5"], ["0", "2", "5"])
        single = plot_split(clf, 0, X, y, feature_names=["a", "b", "colour"])
        assert shaded_categories(single) == (["0", "2", "5"], ["0", "2", "5"])
        assert "colour in {0, 2, 5}" in single.get_title()
        assert any(t.get_text().startswith("yes → #1") for t in single.texts)
        # without samples the node is text
        text_only = plot_tree(clf, feature_names=["a", "b", "colour"])
        assert any("colour in {0, 2, 5}" in t.get_text() for t in text_only.texts)
        # a regressor's bars are coloured by the target; no y: grey bars
        reg_X = X[:, [0, 2]]
        reg = BivariateTreeRegressor(max_depth=1).fit(reg_X, y.astype(float))
        t = clf.tree_
        reg.tree_ = Tree(t.children_left, t.children_right, [[1, -1], [-1, -1], [-1, -1]],
                         t.weights, t.threshold, t.impurity, t.n_node_samples,
                         t.weighted_n_node_samples, [[0.5], [0.0], [1.0]], 2, t.category_mask)
        for target in (y.astype(float), None):
            node = plot_split(reg, 0, reg_X, target)
            assert shaded_categories(node)[0] == ["0", "2", "5"]
            plot_tree(reg, reg_X, target)
    finally:
        plt.close("all")


# --------------------------------------------------------------------------- pruning
def test_pruning_keeps_categorical_nodes_intact():
    rng = np.random.default_rng(6)
    X, y = colour_data(n=160, seed=6)
    y = np.where(rng.uniform(size=y.size) < 0.15, 1 - y, y)  # label noise: a deep tree
    clf = must().fit(X, y)
    tree = clf.tree_
    assert tree.is_categorical.sum() >= 1 and tree.max_depth >= 3
    alphas = cost_complexity_pruning_path(tree).ccp_alphas
    for alpha in alphas[:-1]:
        pruned = prune_tree(tree, alpha)
        assert_is_subtree(pruned, tree)
        assert pruned.is_categorical[0]  # the root split survives until the last step
    estimator = must().set_params(ccp_alpha=float(alphas[-2])).fit(X, y)
    assert estimator.tree_.node_categories(0) == SET
    assert_is_subtree(estimator.tree_, tree)
