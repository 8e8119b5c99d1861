"""Minimal cost-complexity pruning against scikit-learn, and its invariants."""

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from sklearn import datasets
from sklearn.base import is_classifier
from sklearn.tree import DecisionTreeClassifier, DecisionTreeRegressor

from bivtree.pruning import cost_complexity_pruning_path, prune_tree
from bivtree.tree import Tree


# --------------------------------------------------------------------------- helpers
def tree_from_sklearn(est):
    """A bivtree ``Tree`` with the same nodes as a fitted sklearn tree."""
    t = est.tree_
    n = t.node_count
    internal = t.children_left != -1
    features = np.full((n, 2), -1, dtype=np.int64)
    features[internal, 0] = t.feature[internal]
    weights = np.zeros((n, 2))
    weights[internal, 0] = 1.0
    threshold = np.where(internal, t.threshold, -2.0)
    if is_classifier(est):
        # sklearn >= 1.4 stores class fractions; bivtree stores weighted counts.
        value = t.value[:, 0, :] * t.weighted_n_node_samples[:, None]
    else:
        value = t.value[:, 0, :]
    return Tree(t.children_left, t.children_right, features, weights, threshold,
                t.impurity, t.n_node_samples, t.weighted_n_node_samples, value,
                est.n_features_in_)


def assert_same_tree(ours, theirs):
    """``ours`` (bivtree) has exactly the nodes of ``theirs`` (converted sklearn tree)."""
    assert ours.node_count == theirs.node_count
    assert ours.n_leaves == theirs.n_leaves
    np.testing.assert_array_equal(ours.children_left, theirs.children_left)
    np.testing.assert_array_equal(ours.children_right, theirs.children_right)
    np.testing.assert_array_equal(ours.features, theirs.features)
    np.testing.assert_array_equal(ours.weights, theirs.weights)
    np.testing.assert_array_equal(ours.threshold, theirs.threshold)
    np.testing.assert_array_equal(ours.impurity, theirs.impurity)
    np.testing.assert_array_equal(ours.n_node_samples, theirs.n_node_samples)
    np.testing.assert_array_equal(ours.weighted_n_node_samples,
                                  theirs.weighted_n_node_samples)
    np.testing.assert_allclose(ours.value, theirs.value, rtol=1e-12, atol=1e-12)


def leaf_risk(tree):
    """Total leaf risk ``sum w_t / w_0 * impurity_t`` of a tree."""
    leaf = tree.is_leaf
    w = tree.weighted_n_node_samples
    return float(np.sum(w[leaf] * tree.impurity[leaf] / w[0]))


def reachable_nodes(tree):
    """Nodes reachable from the root (the growers never leave orphans, but be safe)."""
    out, stack = [], [0]
    while stack:
        node = stack.pop()
        out.append(node)
        if tree.children_left[node] != -1:
            stack += [tree.children_right[node], tree.children_left[node]]
    return out


def assert_is_subtree(small, big):
    """Every node of ``small`` maps onto a node of ``big`` with the same split/statistics.

    Walks both trees from the root together: a decision node must be a decision
    node of ``big`` with the same split; a leaf may be a leaf of ``big`` or a
    collapsed decision node of ``big``.
    """
    stack = [(0, 0)]
    seen = 0
    while stack:
        s, b = stack.pop()
        seen += 1
        assert small.impurity[s] == big.impurity[b]
        assert small.weighted_n_node_samples[s] == big.weighted_n_node_samples[b]
        assert small.n_node_samples[s] == big.n_node_samples[b]
        np.testing.assert_array_equal(small.value[s], big.value[b])
        if small.children_left[s] == -1:
            assert np.all(small.features[s] == -1) and np.all(small.weights[s] == 0)
            assert np.all(small.category_mask[s] == 0)
            continue
        assert big.children_left[b] != -1
        np.testing.assert_array_equal(small.features[s], big.features[b])
        np.testing.assert_array_equal(small.weights[s], big.weights[b])
        assert small.threshold[s] == big.threshold[b]
        np.testing.assert_array_equal(small.category_mask[s], big.category_mask[b])
        stack.append((small.children_left[s], big.children_left[b]))
        stack.append((small.children_right[s], big.children_right[b]))
    assert seen == small.node_count  # no orphans in the pruned tree


def optimal_cost(tree, alpha):
    """min over pruned subtrees of R(T) + alpha * |leaves(T)| by dynamic programming."""
    w = tree.weighted_n_node_samples
    r = w * tree.impurity / w[0]
    best = r + alpha
    for node in reversed(reachable_nodes(tree)):  # children before parents
        if tree.children_left[node] != -1:
            split = best[tree.children_left[node]] + best[tree.children_right[node]]
            best[node] = min(best[node], split)
    return best[0]


# ------------------------------------------------------------ sklearn comparisons
_LOADERS = {
    "breast_cancer": datasets.load_breast_cancer,
    "iris": datasets.load_iris,
    "wine": datasets.load_wine,
    "diabetes": datasets.load_diabetes,
}
_DATA = {}


def _data(name):
    if name not in _DATA:
        _DATA[name] = _LOADERS[name](return_X_y=True)
    return _DATA[name]


CASES = [
    ("breast_cancer", "gini"),
    ("breast_cancer", "entropy"),
    ("iris", "gini"),
    ("iris", "entropy"),
    ("wine", "gini"),
    ("wine", "entropy"),
    ("diabetes", "squared_error"),
]


def _fit(name, criterion, max_depth, weighted, ccp_alpha=0.0):
    X, y = _data(name)
    sw = None
    if weighted:
        sw = np.random.default_rng(0).uniform(0.2, 3.0, size=y.shape[0])
    Est = DecisionTreeRegressor if criterion == "squared_error" else DecisionTreeClassifier
    est = Est(criterion=criterion, max_depth=max_depth, ccp_alpha=ccp_alpha, random_state=0)
    est.fit(X, y, sample_weight=sw)
    return est, X, y, sw


@pytest.mark.parametrize("weighted", [False, True])
@pytest.mark.parametrize("max_depth", [None, 2, 5])
@pytest.mark.parametrize("name,criterion", CASES)
def test_path_matches_sklearn(name, criterion, max_depth, weighted):
    est, X, y, sw = _fit(name, criterion, max_depth, weighted)
    expected = est.cost_complexity_pruning_path(X, y, sample_weight=sw)
    path = cost_complexity_pruning_path(tree_from_sklearn(est))
    assert set(path) == {"ccp_alphas", "impurities"}
    assert path.ccp_alphas.shape == expected.ccp_alphas.shape
    # The loop mirrors sklearn's operations, so even tiny alphas agree.
    np.testing.assert_allclose(path.ccp_alphas, expected.ccp_alphas, rtol=1e-12, atol=0)
    np.testing.assert_allclose(path.impurities, expected.impurities, rtol=1e-12, atol=0)


def _probe_alphas(ccp_alphas):
    """Alphas on the path (ties included), just below them, between them, past the end."""
    unique = np.unique(ccp_alphas)
    picks = unique[np.unique(np.linspace(0, unique.size - 1, 5).round().astype(int))]
    probes = list(picks)
    probes += [np.nextafter(a, -np.inf) for a in picks if a > 0]
    probes += list(0.5 * (unique[:-1] + unique[1:])[:: max(1, unique.size // 4)])
    # a repeated alpha: several nodes pruned at the same effective alpha
    values, counts = np.unique(ccp_alphas, return_counts=True)
    probes += list(values[counts > 1][:2])
    probes += [unique[-1] * 2 + 1.0]
    return sorted({float(a) for a in probes if a >= 0})


@pytest.mark.parametrize("weighted", [False, True])
@pytest.mark.parametrize("max_depth", [None, 4])
@pytest.mark.parametrize("name,criterion", CASES)
def test_prune_tree_matches_sklearn(name, criterion, max_depth, weighted):
    est, X, _, _ = _fit(name, criterion, max_depth, weighted)
    full = tree_from_sklearn(est)
    path = cost_complexity_pruning_path(full)
    for alpha in _probe_alphas(path.ccp_alphas):
        sk_pruned, *_ = _fit(name, criterion, max_depth, weighted, ccp_alpha=alpha)
        ours = prune_tree(full, alpha)
        assert_same_tree(ours, tree_from_sklearn(sk_pruned))
        # Same leaves reached (sklearn splits on float32 copies of X).
        X32 = X.astype(np.float32).astype(np.float64)
        if is_classifier(sk_pruned):
            proba = ours.predict(X32) / ours.predict(X32).sum(axis=1, keepdims=True)
            np.testing.assert_allclose(proba, sk_pruned.predict_proba(X), rtol=1e-12)
        else:
            np.testing.assert_allclose(ours.predict(X32)[:, 0], sk_pruned.predict(X),
                                       rtol=1e-12)


def test_ties_are_pruned_one_per_step_like_sklearn():
    # A fully grown regression tree on integer targets has many two-sample leaf
    # pairs with equal effective alphas: sklearn repeats the alpha, once per node.
    est, X, y, _ = _fit("diabetes", "squared_error", None, False)
    path = cost_complexity_pruning_path(tree_from_sklearn(est))
    _, counts = np.unique(path.ccp_alphas, return_counts=True)
    assert counts.max() > 1
    expected = est.cost_complexity_pruning_path(X, y)
    np.testing.assert_array_equal(path.ccp_alphas, expected.ccp_alphas)
    np.testing.assert_array_equal(path.impurities, expected.impurities)


def test_alpha_equal_to_effective_alpha_prunes():
    est, *_ = _fit("wine", "gini", None, False)
    full = tree_from_sklearn(est)
    alphas = cost_complexity_pruning_path(full).ccp_alphas
    a = alphas[1]
    assert a > 0
    below = prune_tree(full, np.nextafter(a, 0.0))
    at = prune_tree(full, a)
    assert below.node_count == full.node_count
    assert at.node_count < full.node_count
    assert prune_tree(full, alphas[-1]).node_count == 1


def test_zero_gain_split_kept_at_zero_pruned_above_like_sklearn():
    # XOR with max_depth=1: sklearn still splits the root although the split
    # gains nothing, so the path ends at alpha 0. ccp_alpha=0 skips pruning
    # (the split stays) while any positive alpha removes it.
    X = np.array([[0.0, 0.0], [0.0, 1.0], [1.0, 0.0], [1.0, 1.0]])
    y = np.array([0, 1, 1, 0])
    est = DecisionTreeClassifier(max_depth=1, random_state=0).fit(X, y)
    full = tree_from_sklearn(est)
    assert full.node_count == 3
    path = cost_complexity_pruning_path(full)
    expected = est.cost_complexity_pruning_path(X, y)
    np.testing.assert_array_equal(path.ccp_alphas, expected.ccp_alphas)
    np.testing.assert_array_equal(path.impurities, expected.impurities)
    np.testing.assert_array_equal(path.ccp_alphas, [0.0, 0.0])
    for alpha in (0.0, 5e-324, 1e-3):
        sk = DecisionTreeClassifier(max_depth=1, ccp_alpha=alpha, random_state=0).fit(X, y)
        assert_same_tree(prune_tree(full, alpha), tree_from_sklearn(sk))
    assert prune_tree(full, 0.0).node_count == 3
    assert prune_tree(full, 5e-324).node_count == 1


def test_zero_alpha_returns_equal_copy():
    est, *_ = _fit("iris", "gini", None, False)
    full = tree_from_sklearn(est)
    for zero in (0, 0.0, np.float64(0.0)):
        out = prune_tree(full, zero)
        assert out == full
        assert out is not full
        assert out.value is not full.value


def test_single_leaf_tree():
    leaf = Tree([-1], [-1], [[-1, -1]], [[0.0, 0.0]], [-2.0], [0.375], [8], [8.0],
                [[5.0, 3.0]], 3)
    path = cost_complexity_pruning_path(leaf)
    np.testing.assert_array_equal(path.ccp_alphas, [0.0])
    np.testing.assert_array_equal(path.impurities, [0.375])
    assert prune_tree(leaf, 1.0) == leaf


@pytest.mark.parametrize("bad", [-1.0, -1e-300, -np.inf, np.inf, np.nan, "0.1", None, True,
                                 [0.1]])
def test_bad_ccp_alpha_raises(bad):
    est, *_ = _fit("iris", "gini", 2, False)
    with pytest.raises(ValueError, match="ccp_alpha"):
        prune_tree(tree_from_sklearn(est), bad)


def test_unusable_tree_weights_raise():
    tree = Tree([1, -1, -1], [2, -1, -1], [[0, 1], [-1, -1], [-1, -1]],
                [[1.0, 0.5], [0, 0], [0, 0]], [0.0, -2.0, -2.0], [0.5, 0.0, 0.0],
                [0, 0, 0], [0.0, 0.0, 0.0], [[0.0, 0.0]] * 3, 2)
    with pytest.raises(ValueError, match="root weight"):
        cost_complexity_pruning_path(tree)
    with pytest.raises(ValueError, match="root weight"):
        prune_tree(tree, 0.1)


# ------------------------------------------------------------- random bivariate trees
def _gini(counts):
    total = counts.sum()
    return 1.0 - np.sum((counts / total) ** 2) if total > 0 else 0.0


def _entropy(counts):
    total = counts.sum()
    p = counts[counts > 0] / total
    return float(-np.sum(p * np.log2(p)))


@st.composite
def random_trees(draw):
    """A valid random Tree: bivariate and univariate splits, gini/entropy node stats.

    Leaves get random (integer or fractional) class weights; internal nodes sum
    their children's, so impurities are consistent. Nodes are numbered in
    preorder or breadth-first order (both keep children after parents).
    """
    n_classes = draw(st.integers(2, 3))
    n_features = draw(st.integers(2, 5))
    max_depth = draw(st.integers(0, 5))
    impurity_fn = draw(st.sampled_from([_gini, _entropy]))
    fractional = draw(st.booleans())
    count = (st.floats(0.0, 4.0, allow_subnormal=False) if fractional
             else st.integers(0, 4).map(float))

    def grow(depth):
        if depth < max_depth and draw(st.booleans()):
            j1 = draw(st.integers(0, n_features - 1))
            if draw(st.booleans()):
                j2 = draw(st.integers(0, n_features - 1).filter(lambda j: j != j1))
                split = ([j1, j2], [1.0, draw(st.floats(-3, 3, allow_subnormal=False))])
            else:
                split = ([j1, -1], [1.0, 0.0])
            thr = draw(st.floats(-5, 5, allow_subnormal=False))
            left, right = grow(depth + 1), grow(depth + 1)
            return {"split": split, "thr": thr, "kids": (left, right),
                    "counts": left["counts"] + right["counts"],
                    "n": left["n"] + right["n"]}
        counts = np.array(draw(st.lists(count, min_size=n_classes, max_size=n_classes)))
        if counts.sum() <= 0:
            counts[0] = 1.0
        return {"counts": counts, "n": draw(st.integers(1, 5))}

    root = grow(0)
    order = []
    if draw(st.booleans()):  # preorder
        stack = [root]
        while stack:
            node = stack.pop()
            order.append(node)
            if "kids" in node:
                stack += [node["kids"][1], node["kids"][0]]
    else:  # breadth first
        queue = [root]
        while queue:
            node = queue.pop(0)
            order.append(node)
            if "kids" in node:
                queue += list(node["kids"])
    ids = {id(node): i for i, node in enumerate(order)}
    n = len(order)
    cl = np.full(n, -1)
    cr = np.full(n, -1)
    features = np.full((n, 2), -1)
    weights = np.zeros((n, 2))
    threshold = np.full(n, -2.0)
    for i, node in enumerate(order):
        if "kids" in node:
            cl[i], cr[i] = ids[id(node["kids"][0])], ids[id(node["kids"][1])]
            features[i], weights[i] = node["split"]
            threshold[i] = node["thr"]
    value = np.array([node["counts"] for node in order])
    return Tree(cl, cr, features, weights, threshold,
                [impurity_fn(node["counts"]) for node in order],
                [node["n"] for node in order], value.sum(axis=1), value, n_features)


@settings(max_examples=150, deadline=None)
@given(random_trees())
def test_random_trees_prune_to_nested_subtrees(tree):
    path = cost_complexity_pruning_path(tree)
    alphas, impurities = path.ccp_alphas, path.impurities
    assert alphas[0] == 0.0
    assert impurities[0] == pytest.approx(leaf_risk(tree), rel=1e-12, abs=1e-15)
    assert impurities[-1] == pytest.approx(tree.impurity[0], rel=1e-12, abs=1e-15)
    # Weakest-link alphas and subtree risks never decrease (up to rounding).
    assert np.all(np.diff(alphas) >= -1e-12)
    assert np.all(np.diff(impurities) >= -1e-12)

    previous = tree
    probes = np.unique(np.concatenate([alphas, 0.5 * (alphas[:-1] + alphas[1:])]))
    # Rounding can leave a zero-gain alpha a hair below 0 (sklearn's too); such a
    # value is not a valid ccp_alpha, so only non-negative ones are probed.
    for alpha in probes[probes >= 0]:
        pruned = prune_tree(tree, alpha)
        assert_is_subtree(pruned, tree)
        assert_is_subtree(pruned, previous)  # larger alpha, smaller tree
        # Steps taken are those up to the first alpha above `alpha`.
        # (ccp_alpha == 0 takes no step at all, even where the path says 0.)
        beyond = np.flatnonzero(alphas > alpha)
        step = beyond[0] - 1 if beyond.size else alphas.size - 1
        step = 0 if alpha == 0 else step
        assert leaf_risk(pruned) == pytest.approx(impurities[step], rel=1e-9, abs=1e-12)
        assert leaf_risk(pruned) >= leaf_risk(previous) - 1e-12
        # ...and it is a minimal cost-complexity subtree (Breiman's theorem).
        cost = leaf_risk(pruned) + alpha * pruned.n_leaves
        assert cost == pytest.approx(optimal_cost(tree, alpha), rel=1e-9, abs=1e-12)
        previous = pruned
    # The last path alpha prunes to the root; when it is 0 (only zero-gain splits
    # left) the smallest positive alpha does, since 0 itself means "no pruning".
    last = max(alphas[-1], np.nextafter(0.0, 1.0))
    assert prune_tree(tree, last).node_count == 1
