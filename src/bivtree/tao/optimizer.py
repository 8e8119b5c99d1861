"""Bivariate tree alternating optimization (TAO), Kairgeldin & Carreira-Perpinan, KDD 2024.

TAO optimizes every parameter of a tree of fixed structure for

    E = sum_n w_n L(y_n, T(x_n)) + lambda * sum_{decision nodes i} phi(i),

with ``L`` the 0/1 loss (classification) or the squared error (regression) and
``phi(i)`` = 0, 1 or ``C`` for a node that uses 0, 1 or 2 features (section 4).
bivtree counts ``lambda`` relative to the training weight: ``alpha = lambda / W``
with ``W = sum_n w_n`` (the number of samples without weights), so the
objective reported is ``E / W`` = mean loss + ``alpha * sum phi``, in the units
of scikit-learn's ``ccp_alpha``.

One iteration visits the depths from the deepest to the root; the nodes of one
depth have disjoint reduced sets and are solved together (one parallel loop over
all their features and feature pairs):

* a leaf takes the weighted majority class of its reduced set (the weighted mean
  for regression);
* a decision node solves its *reduced problem*: each of its samples is sent down
  the left and the right subtree; the samples whose loss is the same both ways
  are left out, the others get the pseudolabel of the child with the lower
  loss and the loss difference as weight (which is 1 for the 0/1 loss with unit
  weights, section 4.1.2 for regression). The node then takes the cheapest of
  ``L_biv + lambda C``, ``L_univ + lambda`` and ``L_0`` (all to the left or
  all to the right), ties going to fewer features: ``L_univ`` by the exact
  univariate scan, ``L_biv`` per feature pair by the coarse-to-fine angle search
  of the ``"auto"`` splitter (``pair_search="coarse_to_fine"``: :data:`COARSE_ANGLES`
  angles, then :data:`REFINE_ROUNDS` step-halving rounds from the best) or by
  ``n_orientations`` fixed directions (``"orientations"``, the paper's solution 1),
  or, for at most ``exact_max_samples`` care samples, by the exact rotational
  sweep (:mod:`bivtree._kernels.sweep`). On the reduced problems of real TAO fits
  the coarse-to-fine search is on average half as far from the exact optimum as
  30 fixed directions, in three quarters of their time
  (``benchmarks/results/bench_tao_pair_search.md``). The node's
  current rule is a candidate too (kept on ties), so an iteration never
  increases ``E`` even where the direction search is approximate.

A rule's orientation is not fixed: a rule may be better with its two subtrees
exchanged, and the solver then swaps the node's children (the stored test keeps
``x_j + w x_k <= t`` with first weight 1). The iterations stop when ``E`` no
longer strictly decreases, or at ``max_iter``, or at ``time_limit``. Zero-variate
nodes stay in the structure while optimizing (a later iteration or a larger
lambda may use them again); :func:`state_to_tree` removes them and the dead
branches below them.

After convergence, each node's choice stays the best one for every ``lambda``
up to the smallest breakpoint ``(L_b - L_a) / (phi_a - phi_b)`` over the
cheaper options ``b`` of the chosen ``a``; the least over the nodes is the
next *significant* lambda of the regularization path (section 4.1.3,
:func:`next_alpha`).

Missing values (NaN in ``X``): every decision node of the state also holds the
side of the samples missing one of its features (``TAOState.missing_left``),
and every loss is computed through it. A searched rule carries the side its
reduced problem preferred (both sides scanned, the better kept, as in the
greedy search); a chosen rule that no care sample misses a feature of sends
the missing samples to the side with more of the node's training weight (they
do not care, so the objective is unchanged). :func:`state_to_tree` stores the
sides, the default one (:func:`~bivtree.tree.default_missing_left`) at nodes
no training sample reached with a missing value. Without NaN no side is read
and the optimizer does exactly what it did before.

Constraints (``constraints``, a :class:`~bivtree.constraints.SplitConstraints`):
the bivariate items are the pairs ``interaction_cst`` allows, and a pair of two
constrained features is searched for rules whose signs agree only
(:mod:`bivtree._kernels.tao`), so no search returns a rule the constraints
forbid. Under monotonic constraints every node also has the bounds of its value
(:class:`~bivtree.constraints.MonotoneGrowth`'s, taken from the state's rules
and training values at the start of each pass; a node's bounds depend on the
nodes above it only, which the pass updates after it), and:

* a leaf takes its class or mean from its value clipped to its bounds;
* a decision node uses a candidate rule only if the children it makes of the
  node's training samples have values within the node's bounds and in the
  order its signs require (:func:`~bivtree._kernels.constraints.split_admissible`,
  the greedy search's check); the zero-variate option always passes;
* the objective is that of the state with its leaves clipped to the bounds its
  own rules give (the tree the estimators return, clipped by
  :func:`~bivtree.constraints.clip_tree_to_bounds`). An updated node moves the
  bounds below it, so a pass is no longer a descent step: a pass that raised
  the objective is undone and ends the run, and the objective never increases.
"""

import hashlib
import time
from dataclasses import dataclass, field
from typing import NamedTuple

import numpy as np

from .._config import DTYPE, ITYPE, MISCLASSIFICATION, NO_FEATURE, TREE_LEAF, TREE_UNDEFINED
from .._kernels.constraints import split_admissible
from .._kernels.tao import (
    CareSets,
    ItemResults,
    SearchSpace,
    WorkItems,
    child_losses,
    node_paths,
    rule_errors,
    rule_side_sums,
    search_items,
    total_loss,
)
from .._kernels.traversal import partition_samples
from .._threads import check_interrupt
from ..constraints import NO_CONSTRAINTS, MonotoneGrowth, NodeBounds
from ..splitters._base import SplitData, candidate_pairs
from ..splitters._categorical import best_subset_split
from ..splitters.orientations import orientation_directions
from ..tree import MASK_DTYPE, Tree, default_missing_left, slot_masks, subtree

#: node kinds of the optimized structure.
LEAF, ZERO_VARIATE, UNIVARIATE, BIVARIATE = -1, 0, 1, 2
#: threshold of a zero-variate node sending every sample left / right (its
#: projection is 0).
ALL_LEFT, ALL_RIGHT = 1.0, -1.0
#: most item bounds a search memo holds (8 bytes each) before it is emptied.
MEMO_MAX_FLOATS = 2 ** 24


@dataclass
class TAOData:
    """A fit's data as the TAO kernels take it.

    Attributes
    ----------
    X : ndarray of float64 (n_samples, n_features), Fortran order
    labels : ndarray of int64
        Encoded classes (zeros for regression).
    targets : ndarray of float64
        Regression targets (zeros for classification).
    sample_weight : ndarray of float64
    n_classes : int
        Classes of a classifier (1: a single class), 1 for regression.
    rows : ndarray of int64
        Rows with positive weight (the others never count).
    categorical : ndarray of int64
        Columns holding category codes: they get category-set rules, never
        linear ones.
    """

    X: np.ndarray
    labels: np.ndarray
    targets: np.ndarray
    sample_weight: np.ndarray
    n_classes: int
    rows: np.ndarray = None
    categorical: np.ndarray = field(default_factory=lambda: np.zeros(0, dtype=ITYPE))
    #: whether the targets are regressed (None: when ``n_classes`` is 1); a classifier
    #: of a single class says False
    regression: bool = None

    def __post_init__(self):
        if self.regression is None:
            self.regression = self.n_classes == 1
        if self.rows is None:
            self.rows = np.flatnonzero(self.sample_weight > 0).astype(ITYPE)
        self.total_weight = float(self.sample_weight[self.rows].sum())
        # NaN anywhere (a zero-weight row too) only turns the missing-side work on
        self.has_missing = bool(np.isnan(self.X).any())

    @property
    def n_features(self):
        return self.X.shape[1]


@dataclass
class TAOState:
    """Parameters of every node of a fixed structure, zero-variate nodes included.

    Node ids are those of the initial tree: children have larger ids than their
    parent; ``depth`` never changes (swapping two children keeps depths).
    """

    children_left: np.ndarray
    children_right: np.ndarray
    features: np.ndarray
    weights: np.ndarray
    threshold: np.ndarray
    kind: np.ndarray
    leaf_class: np.ndarray
    leaf_mean: np.ndarray
    depth: np.ndarray
    n_features: int
    category_mask: np.ndarray = None
    missing_left: np.ndarray = None

    def __post_init__(self):
        if self.category_mask is None:
            self.category_mask = np.zeros((self.kind.shape[0], 2), dtype=MASK_DTYPE)
        if self.missing_left is None:
            self.missing_left = np.zeros(self.kind.shape[0], dtype=bool)

    def __setstate__(self, state):
        # a state pickled before the missing sides existed: none was ever read
        self.__dict__.update(state)
        if getattr(self, "missing_left", None) is None:
            self.missing_left = np.zeros(self.kind.shape[0], dtype=bool)

    @classmethod
    def from_tree(cls, tree, regression, categorical=()):
        """The structure and parameters of a :class:`Tree` (at most two features per node).

        Its categorical nodes must test one of the ``categorical`` columns, and
        its linear nodes read those columns only through indicator slots (a
        category set's indicator, as the default search grows them). TAO keeps
        such a node while no rule of its own search (numeric rules, category
        sets) does better, and scores it at the cost of a bivariate node.
        """
        is_cat = np.zeros(tree.n_features, dtype=bool)
        is_cat[np.asarray(categorical, dtype=ITYPE)] = True
        internal = ~tree.is_leaf
        linear = internal & ~tree.is_categorical
        tested = np.where(tree.features >= 0, tree.features, 0)
        if np.any(tree.is_categorical & ~is_cat[tested[:, 0]]):
            raise ValueError("the initial tree has categorical (subset) nodes on columns TAO "
                             "was not told are categorical; pass the same "
                             "categorical_features")
        indicator = tree.category_mask != 0
        if np.any(linear[:, None] & (tree.features >= 0) & (is_cat[tested] != indicator)):
            raise ValueError("the initial tree has linear nodes that read categorical columns "
                             "as numbers, or category sets of columns TAO was not told are "
                             "categorical; pass the same categorical_features")
        used = tree.n_node_features
        if np.any(used > 2):
            raise ValueError("the initial tree has nodes with more than two features; TAO "
                             "optimizes bivariate trees")
        n = tree.node_count
        features = np.full((n, 2), NO_FEATURE, dtype=ITYPE)
        weights = np.zeros((n, 2), dtype=DTYPE)
        k = min(2, tree.features.shape[1])
        features[:, :k] = tree.features[:, :k]
        weights[:, :k] = tree.weights[:, :k]
        leaf = tree.is_leaf
        kind = np.where(leaf, LEAF, used).astype(np.int8)
        value = tree.value
        leaf_class = np.argmax(value, axis=1).astype(ITYPE)
        leaf_mean = value[:, 0].astype(DTYPE) if regression else np.zeros(n)
        return cls(tree.children_left.copy(), tree.children_right.copy(), features, weights,
                   tree.threshold.astype(DTYPE).copy(), kind, leaf_class, leaf_mean,
                   tree.node_depth.astype(ITYPE), tree.n_features,
                   tree.category_mask[:, :2].copy(), tree.missing_go_left.copy())

    #: the arrays of a state, in the constructor's order (``n_features`` after ``depth``)
    _ARRAYS = ("children_left", "children_right", "features", "weights", "threshold", "kind",
               "leaf_class", "leaf_mean", "depth")

    def copy(self):
        return TAOState(*(getattr(self, f).copy() for f in self._ARRAYS), self.n_features,
                        self.category_mask.copy(), self.missing_left.copy())

    def assign(self, other):
        """Take the parameters of ``other`` (a state of the same structure), in place."""
        for name in (*self._ARRAYS, "category_mask", "missing_left"):
            getattr(self, name)[...] = getattr(other, name)

    @property
    def node_count(self):
        return int(self.kind.shape[0])

    @property
    def arrays(self):
        """The routing arrays, in the kernels' argument order."""
        return (self.children_left, self.children_right, self.features, self.weights,
                self.threshold, self.category_mask, self.missing_left)

    def penalty(self, feature_cost):
        """``sum phi`` over the decision nodes."""
        return float(np.count_nonzero(self.kind == UNIVARIATE)
                     + feature_cost * np.count_nonzero(self.kind == BIVARIATE))

    def set_zero_variate(self, node, left=True):
        self.kind[node] = ZERO_VARIATE
        self.category_mask[node] = 0
        self.features[node] = NO_FEATURE
        self.weights[node] = 0.0
        self.threshold[node] = ALL_LEFT if left else ALL_RIGHT
        self.missing_left[node] = False

    def live_kinds(self):
        """Kinds of the decision nodes a sample can reach through the zero-variate nodes."""
        out = []
        stack = [0]
        while stack:
            node = stack.pop()
            k = self.kind[node]
            if k == LEAF:
                continue
            if k == ZERO_VARIATE:
                left = self.threshold[node] >= 0.0
                stack.append(self.children_left[node] if left else self.children_right[node])
                continue
            out.append(int(k))
            stack.append(self.children_left[node])
            stack.append(self.children_right[node])
        return out


@dataclass
class NodeRecord:
    """Losses of a decision node's options in its last reduced problem (weight units)."""

    zero: float
    univariate: float
    bivariate: float
    chosen: int


@dataclass
class TAOResult:
    """What one run of :func:`optimize` did."""

    objective_path: list
    n_iter: int
    converged: bool
    records: dict = field(default_factory=dict)
    seconds: float = 0.0


def pseudolabels(loss_left, loss_right):
    """The reduced problem's samples, pseudolabels and weights from the two subtrees' losses.

    A sample whose loss is the same down both subtrees (both right or both
    wrong, for the 0/1 loss) does not care where it goes and is left out; the
    others are labelled with the child that gives the lower loss (0 = left,
    1 = right) and weighted by the loss difference.

    Returns
    -------
    care : ndarray of bool
    labels : ndarray of int64 (care.sum(),)
    weights : ndarray of float64 (care.sum(),)
    """
    care = loss_left != loss_right
    labels = np.ascontiguousarray((loss_left[care] > loss_right[care]).astype(ITYPE))
    weights = np.ascontiguousarray(np.abs(loss_left[care] - loss_right[care]))
    return care, labels, weights


def tree_loss(tree, X, labels, targets, sample_weight, regression):
    """Summed weighted loss of a :class:`Tree` on ``X``: squared error, or 0/1 loss of the
    first majority class of each leaf (what ``predict`` returns)."""
    pred = tree.predict(np.ascontiguousarray(X))
    if regression:
        return float(np.sum(sample_weight * (targets - pred[:, 0]) ** 2))
    return float(np.sum(sample_weight * (np.argmax(pred, axis=1) != labels)))


def pruned_for_objective(tree, data, alpha, feature_cost):
    """The subtree of ``tree`` of least TAO objective on ``data`` at ``alpha``, and that
    objective.

    Every subtree keeping the root is a candidate (any set of internal nodes
    turned into leaves), each leaf taking the first majority class or the mean
    of the training samples reaching it, as TAO's leaf update gives it; the
    objective is ``E / W`` = mean loss + ``alpha * sum phi``, ``phi`` 1 for a
    node that uses one feature and ``feature_cost`` for two. Bottom-up, a node
    becomes a leaf where its loss as a leaf is at most the least objective of
    its subtree, so the answer is exact (the pruning of Breiman et al. for one
    fixed penalty, with TAO's loss and penalty in place of the impurity and the
    leaf count); ties prune. The statistics are those of ``data``, whatever
    data the tree was grown on.

    Parameters
    ----------
    tree : Tree
    data : TAOData
    alpha : float
    feature_cost : float

    Returns
    -------
    pruned : Tree
        A new tree (:func:`bivtree.tree.subtree`; a copy where nothing is
        pruned). Its stored values are the tree's own: TAO's first leaf update
        puts in those of ``data``.
    objective : float
        The least objective, that of ``pruned`` with its leaves updated.
    """
    rows = data.rows
    w = data.sample_weight[rows]
    # the nodes each training row visits, as a sparse (rows x nodes) indicator
    visits = tree.decision_path(data.X[rows]).T.tocsr()
    if data.regression:
        # centred, so that the sums of squares below lose little to cancellation
        y = data.targets[rows] - np.average(data.targets[rows], weights=w)
        sums = visits @ np.column_stack((w, w * y, w * y * y))
        with np.errstate(invalid="ignore", divide="ignore"):
            mean_sq = np.where(sums[:, 0] > 0, sums[:, 1] ** 2 / sums[:, 0], 0.0)
        leaf_loss = np.maximum(sums[:, 2] - mean_sq, 0.0)
    else:
        counts = visits @ (w[:, None] * (data.labels[rows, None] == np.arange(
            max(data.n_classes, 1))[None, :]))
        leaf_loss = counts.sum(axis=1) - counts.max(axis=1)
    total = data.total_weight
    leaf_loss = np.asarray(leaf_loss, dtype=float).ravel() / total
    phi = np.where(tree.n_node_features >= 2, float(feature_cost), 1.0)
    best = np.empty(tree.node_count)
    as_leaf = np.zeros(tree.node_count, dtype=bool)
    left, right = tree.children_left, tree.children_right
    # a child's id is larger than its parent's: one pass from the last node
    for node in range(tree.node_count - 1, -1, -1):
        if left[node] == TREE_LEAF:
            best[node] = leaf_loss[node]
            continue
        keep = best[left[node]] + best[right[node]] + alpha * phi[node]
        as_leaf[node] = leaf_loss[node] <= keep
        best[node] = leaf_loss[node] if as_leaf[node] else keep
    pruned = subtree(tree, as_leaf) if as_leaf.any() else tree.copy()
    return pruned, float(best[0])


def _objective(state, data, lam, feature_cost):
    """``E / W``: mean weighted loss plus ``alpha * sum phi``."""
    loss = total_loss(data.X, data.rows, *state.arrays, data.labels, data.targets,
                      data.sample_weight, state.leaf_class, state.leaf_mean, data.regression)
    return (loss + lam * state.penalty(feature_cost)) / data.total_weight


class ReducedProblem(NamedTuple):
    """One node's reduced problem: its care ``samples`` (sorted row ids), their
    pseudolabels ``labels`` and weights ``weights``."""

    samples: np.ndarray
    labels: np.ndarray
    weights: np.ndarray


class Rule(NamedTuple):
    """A decision rule ``sum_k weights[k] * x[features[k]] <= threshold``, or, with a
    nonzero ``category_mask``, the category set of the one feature ``features[0]``
    (an int: the first slot's set; an array: one set per slot, indicator slots in a
    bivariate rule, see :func:`~bivtree._kernels.traversal.goes_left`); a sample
    missing one of its features goes left iff ``missing_left``."""

    features: np.ndarray
    weights: np.ndarray
    threshold: float
    category_mask: int | np.ndarray = 0
    missing_left: bool = False


class NodeRules(NamedTuple):
    """The best univariate and bivariate :class:`Rule` of a reduced problem (None: no cut).

    ``univariate_loss`` is the best univariate item's loss (inf: not known).
    ``bivariate_searched`` is False where the pairs were not searched because
    no bivariate rule could be chosen at that ``lambda`` and ``C``
    (:meth:`TAOOptimizer._bivariate_cannot_win`); ``bivariate`` is then None,
    and a fit that can choose one searches them.
    """

    univariate: Rule | None
    bivariate: Rule | None
    univariate_loss: float = np.inf
    bivariate_searched: bool = True


class OptionLosses(NamedTuple):
    """What the node's choice can be decided from before any search, per node of a
    :class:`~bivtree._kernels.tao.CareSets`: the zero-variate option's loss (the
    lighter pseudo-class), the care weight, and its smallest care weight."""

    zero: np.ndarray
    total: np.ndarray
    least: np.ndarray


def option_losses(care):
    """:class:`OptionLosses` of the nodes of ``care``."""
    n_nodes = care.offsets.size - 1
    right = np.zeros(n_nodes)
    total = np.zeros(n_nodes)
    least = np.full(n_nodes, np.inf)
    filled = np.flatnonzero(np.diff(care.offsets) > 0)
    if filled.size:
        starts = care.offsets[filled]
        right[filled] = np.add.reduceat(care.weights * care.labels, starts)
        total[filled] = np.add.reduceat(care.weights, starts)
        least[filled] = np.minimum.reduceat(care.weights, starts)
    return OptionLosses(np.minimum(right, total - right), total, least)


def care_sets(active, owner, samples, loss_left, loss_right):
    """:class:`~bivtree._kernels.tao.CareSets` of the nodes ``active`` (sorted).

    ``samples[p]`` belongs to node ``owner[p]`` (sorted by node) and costs
    ``loss_left[p]`` / ``loss_right[p]`` down the left / right subtree.
    """
    care, labels, weights = pseudolabels(loss_left, loss_right)
    care_owner = owner[care]
    care_samples = np.ascontiguousarray(samples[care])
    # active is sorted and owner sorted by node: offsets by counting
    sizes = np.bincount(np.searchsorted(active, care_owner), minlength=active.size)
    offsets = np.zeros(active.size + 1, dtype=ITYPE)
    np.cumsum(sizes, out=offsets[1:])
    return CareSets(care_samples, labels, weights, offsets)


def node_problem(care, r, copy=False):
    """The :class:`ReducedProblem` of node ``r`` of ``care`` (views, or copies)."""
    a, b = care.offsets[r], care.offsets[r + 1]
    problem = ReducedProblem(care.samples[a:b], care.labels[a:b], care.weights[a:b])
    return ReducedProblem(*(x.copy() for x in problem)) if copy else problem


def care_subset(care, nodes):
    """The :class:`~bivtree._kernels.tao.CareSets` of ``care``'s nodes ``nodes``, in order."""
    sizes = care.offsets[nodes + 1] - care.offsets[nodes]
    offsets = np.zeros(nodes.size + 1, dtype=ITYPE)
    np.cumsum(sizes, out=offsets[1:])
    idx = np.concatenate([np.arange(care.offsets[r], care.offsets[r + 1]) for r in nodes])
    return CareSets(care.samples[idx], care.labels[idx], care.weights[idx], offsets)


def _candidates(state, node, rules, categorical=None):
    """``(tag, Rule)`` of every option of a decision node: zero-variate (all left;
    all right is its flipped form), its current rule, the searched ones, and the
    best category set (``categorical``, or None)."""
    out = [("zero", Rule(np.full(2, NO_FEATURE, dtype=ITYPE), np.zeros(2), ALL_LEFT))]
    if state.kind[node] in (UNIVARIATE, BIVARIATE):
        # with its slots' category sets: a categorical node's, or indicator slots
        out.append(("current", Rule(state.features[node], state.weights[node],
                                    state.threshold[node], state.category_mask[node].copy(),
                                    bool(state.missing_left[node]))))
    if rules.univariate is not None:
        out.append(("univariate", rules.univariate))
    if rules.bivariate is not None:
        out.append(("bivariate", rules.bivariate))
    if categorical is not None:
        out.append(("categorical", categorical))
    return out


def change_bound(old, new):
    """How much any rule's pseudolabel loss can differ between two reduced problems.

    ``old`` and ``new`` are ``(samples, labels, weights)`` with sorted sample
    ids. A sample present in one problem only changes a rule's loss by at most
    its weight; one whose label or weight changed, by at most its larger
    weight. Exchanging the two labels everywhere leaves the two-class loss of
    every rule unchanged (it is the least error over both labellings of each
    side), so the old labels are also compared flipped and the smaller bound
    kept: a node whose children were swapped keeps its bounds.
    """
    os_, ol, ow = old
    ns, nl, nw = new
    pos = np.searchsorted(ns, os_)
    in_new = pos < ns.size
    in_new[in_new] = ns[pos[in_new]] == os_[in_new]
    n_common = np.count_nonzero(in_new)
    removed = float(ow[~in_new].sum())
    added = float(nw.sum()) - float(nw[pos[in_new]].sum()) if n_common else float(nw.sum())
    o_idx = np.flatnonzero(in_new)
    n_idx = pos[in_new]
    w_max = np.maximum(ow[o_idx], nw[n_idx])
    reweighted = ow[o_idx] != nw[n_idx]
    same_label = ol[o_idx] == nl[n_idx]
    direct = float(w_max[~same_label | reweighted].sum())
    flipped = float(w_max[same_label | reweighted].sum())
    return removed + max(added, 0.0) + min(direct, flipped)


@dataclass
class _CacheEntry:
    key: tuple
    result: tuple
    bounds: np.ndarray


class _SearchCache:
    """The last search of each node: its problem, answer, and a lower bound per item.

    The search is deterministic in the care samples, their pseudolabels and
    weights, so an unchanged problem has the same answer (deep nodes rarely
    change between iterations). A changed one is searched again
    incrementally: an item's loss moves by at most :func:`change_bound`, so only
    the items whose old loss minus that bound can still reach the best new
    loss are scanned again.
    """

    def __init__(self, memo=None):
        self.entries = {}
        # problem digest -> (NodeRules, bounds): every search made with the same
        # search key, whichever node, fit or path it was made for (see
        # problem_digest); shared by the fits of one data set (restarts, costs C)
        self.memo = {} if memo is None else memo

    def get(self, node, key):
        entry = self.entries.get(node)
        if entry is None:
            return None
        if all(a.shape == b.shape and np.array_equal(a, b) for a, b in zip(entry.key, key)):
            return entry.result
        return None

    def put(self, node, key, result, bounds):
        self.entries[node] = _CacheEntry(key, result, bounds)


def problem_digest(problem):
    """A digest of a :class:`ReducedProblem`'s samples, pseudolabels and weights.

    A search's answer depends on nothing else (given the search key), so two
    problems with the same digest share one search, whichever node they are at.
    """
    digest = hashlib.blake2b(digest_size=20)
    for arr in problem:
        digest.update(np.ascontiguousarray(arr).tobytes())
        digest.update(np.int64(arr.size).tobytes())
    return digest.digest()


#: how a node's bivariate items are searched (``pair_search``), the default first
PAIR_SEARCHES = ("coarse_to_fine", "orientations")
#: coarse angles per pair of ``pair_search="coarse_to_fine"`` (in the pair's decorrelated
#: frame, as the ``"auto"`` splitter's) and the step-halving rounds from the best one
COARSE_ANGLES = 12
REFINE_ROUNDS = 5


def search_key(data, n_orientations, pair_search, exact_max_samples,
               constraints=NO_CONSTRAINTS):
    """What the searches' answers depend on besides the reduced problems: a search cache
    is reused only by a fit with the same key (``constraints``: the fit's
    :class:`~bivtree.constraints.SplitConstraints`, which restrict the rules searched)."""
    digest = hashlib.blake2b(digest_size=16)
    for arr in (data.X, data.labels, data.targets, data.sample_weight):
        digest.update(np.ascontiguousarray(arr).tobytes())
    if constraints is not NO_CONSTRAINTS:
        for arr in (constraints.monotonic, constraints.allowed):
            digest.update(np.int64(arr.size).tobytes())
            digest.update(np.ascontiguousarray(arr).tobytes())
    return (data.X.shape, digest.hexdigest(), int(n_orientations), pair_search,
            int(exact_max_samples),
            tuple(int(f) for f in data.categorical))


class TAOOptimizer:
    """Run TAO iterations on a :class:`TAOState` for one value of ``alpha``.

    Parameters
    ----------
    data : TAOData
    alpha : float
        ``lambda / W``.
    feature_cost : float
        ``C``, the penalty of a bivariate node relative to a univariate one.
    n_orientations : int
        Directions per feature pair of ``pair_search="orientations"``.
    exact_max_samples : int
        Reduced problems with at most this many care samples get the exact
        bivariate solution (rotational sweep); 0 never.
    max_iter : int
    time_limit : float or None
        Seconds from ``start``; no depth of an iteration starts after it, and
        the structure as it stands is kept (every node update is a descent
        step, so a partial iteration never increases the objective).
    verbose : int
    incremental : bool, default=True
        Search changed reduced problems incrementally (same answers, fewer
        scans; False is for checking that).
    skip_hopeless : bool, default=True
        Search no rule at a node whose zero-variate option beats every rule
        whatever its loss, and no pair where the univariate items show that
        no bivariate rule can be chosen (same answers, fewer scans; False is
        for checking that).
    cache : _SearchCache, default=None
        Searches of an earlier run on the same data, structure,
        ``n_orientations``, ``pair_search`` and ``exact_max_samples`` (see
        :func:`search_key`).
    start : float, default=None
        ``time.perf_counter()`` value ``time_limit`` counts from (None: the
        start of :meth:`run`), so that a caller can count its own work, e.g.
        growing the initial tree.
    pair_features : int, default=None
        Screen the pairs: a node's bivariate search covers only the pairs of
        its ``pair_features`` features of least univariate loss on its reduced
        problem (ties: the lower feature index). None (or at least the number
        of features): every pair. The univariate search and the candidates'
        comparison are unchanged, so the objective still never increases.
    memo : dict, default=None
        Searches by problem digest (:func:`problem_digest`) made on the same data
        with the same search settings, to share between fits (None: a new one;
        ignored when ``cache`` is given, which holds its own). A problem met
        again, at any node, is not searched again; the answers are the same.
    pair_search : {"coarse_to_fine", "orientations"}, default="coarse_to_fine"
        The approximate bivariate search of the pairs (see the module).
    constraints : SplitConstraints, default=None
        Monotonic and interaction constraints over the columns of ``data.X``
        (None: none). A node's bivariate items are the pairs
        ``constraints.allowed_pairs`` keeps (so are the screened ones of
        ``pair_features``), and a pair of two constrained features takes only
        rules whose signs agree (:mod:`bivtree._kernels.tao`); every rule the
        optimizer picks is so admissible, provided the state's rules are. Under
        monotonic constraints (of a regressor, or of a classifier of two
        classes) the bounds of the nodes' values are kept as well (see the
        module); the estimators clip the finished tree to them
        (:func:`~bivtree.constraints.clip_tree_to_bounds`).
    """

    def __init__(self, data, *, alpha, feature_cost, n_orientations, exact_max_samples,
                 max_iter, time_limit=None, verbose=0, incremental=True, cache=None,
                 start=None, pair_features=None, memo=None, skip_hopeless=True,
                 pair_search="coarse_to_fine", constraints=None):
        self.data = data
        self.incremental = bool(incremental)
        self.skip_hopeless = bool(skip_hopeless)
        self.alpha = float(alpha)
        self.lam = self.alpha * data.total_weight
        self.feature_cost = float(feature_cost)
        self.exact_max_samples = int(exact_max_samples)
        self.max_iter = int(max_iter)
        self.time_limit = time_limit
        self.verbose = verbose
        # linear rules use the numeric columns; categorical ones get category sets
        features = np.setdiff1d(np.arange(data.n_features, dtype=ITYPE),
                                data.categorical).astype(ITYPE)
        if pair_search not in PAIR_SEARCHES:
            raise ValueError(f"pair_search must be one of {PAIR_SEARCHES}, got {pair_search!r}")
        refined = pair_search == "coarse_to_fine"
        self.constraints = NO_CONSTRAINTS if constraints is None else constraints
        # only the pairs interaction_cst allows are items (and so among the screened ones)
        self.space = SearchSpace(features,
                                 *self.constraints.allowed_pairs(*candidate_pairs(features)),
                                 *orientation_directions(int(n_orientations)),
                                 COARSE_ANGLES if refined else 0,
                                 REFINE_ROUNDS if refined else 0,
                                 np.ascontiguousarray(self.constraints.monotonic,
                                                      dtype=np.int64))
        # monotonic constraints of a value (a mean, or the share of the second of two
        # classes): the bounds every node's value must keep, as growth passes them down
        self.monotone = None
        if self.constraints.has_monotonic and (data.regression or data.n_classes == 2):
            self.monotone = MonotoneGrowth(self.constraints, not data.regression)
            self._node_value = (data.targets if data.regression
                                else (data.labels == 1).astype(DTYPE))
        # searches do not depend on alpha: a warm-started fit on the same data
        # (a regularization path) passes the previous fit's cache
        self.cache = _SearchCache(memo) if cache is None else cache
        self.start = start
        self._deadline = None
        self.pair_features = (None if pair_features is None
                              or int(pair_features) >= data.n_features else int(pair_features))

    # ---------------------------------------------------------------- public
    def run(self, state):
        """Optimize ``state`` in place; return a :class:`TAOResult`."""
        t0 = time.perf_counter()
        start = t0 if self.start is None else self.start
        self._deadline = None if self.time_limit is None else start + float(self.time_limit)
        objective = self._state_objective(state)
        path = [objective]
        records = {}
        converged = False
        n_iter = 0
        levels = [np.flatnonzero(state.depth == d) for d in range(int(state.depth.max()) + 1)]
        for it in range(1, self.max_iter + 1):
            if self._out_of_time():
                self._say_out_of_time(n_iter)
                break
            t_it = time.perf_counter()
            kept = (state.copy(), records) if self.monotone is not None else None
            records, finished = self._iteration(state, levels)
            n_iter = it
            new = self._state_objective(state)
            if kept is not None and new > objective + 1e-12 * max(1.0, abs(objective)):
                # under monotonic constraints a pass is no descent step (an updated node
                # moves the bounds below it): one that raised E is undone and ends the run
                state.assign(kept[0])
                # the records of the pass that made the state kept (after a first pass
                # undone, the undone pass's: the nodes' options as they were last weighed)
                records = kept[1] or records
                converged = True
                if self.verbose:
                    print(f"[TAO] alpha={self.alpha:.6g} iteration {it} raised the objective "
                          f"to {new:.6g} under the monotonic constraints' bounds: undone",
                          flush=True)
                break
            path.append(new)
            if not finished:
                # stopped between two depths: the nodes updated so far only lowered E
                self._say_out_of_time(n_iter - 1, partial=True)
                break
            if self.verbose:
                kinds = np.array(state.live_kinds(), dtype=int)
                print(f"[TAO] alpha={self.alpha:.6g} iteration {it}: objective {new:.6g} "
                      f"({np.count_nonzero(kinds == BIVARIATE)} bivariate, "
                      f"{np.count_nonzero(kinds == UNIVARIATE)} univariate decision nodes in "
                      f"use) {time.perf_counter() - t_it:.2f} s", flush=True)
            # rounding in the sums could show a change of a few ulps where
            # nothing changed: only a real decrease counts
            if not new < objective - 1e-12 * max(1.0, abs(objective)):
                converged = True
                break
            objective = new
        return TAOResult(path, n_iter, converged, records, time.perf_counter() - t0)

    def _state_objective(self, state):
        """``E / W`` of ``state``, and so of the tree it becomes.

        Under monotonic constraints the leaves first take their values clipped
        to the bounds the state's own rules and training values give them
        (:meth:`_node_bounds`), as the returned tree clips them
        (:func:`~bivtree.constraints.clip_tree_to_bounds`), so that ``E`` is
        that tree's objective.
        """
        data = self.data
        if self.monotone is not None:
            paths = node_paths(data.X, data.rows, *state.arrays, int(state.depth.max()) + 1)
            leaf = paths[np.arange(paths.shape[0]), (paths >= 0).sum(axis=1) - 1]
            self._update_leaves(state, np.flatnonzero(state.kind == LEAF), leaf, data.rows,
                                self._node_bounds(state, paths))
        return _objective(state, data, self.lam, self.feature_cost)

    def _out_of_time(self):
        return self._deadline is not None and time.perf_counter() >= self._deadline

    def _say_out_of_time(self, n_done, partial=False):
        if self.verbose:
            extra = " and part of the next" if partial else ""
            print(f"[TAO] time limit of {self.time_limit:g} s reached after {n_done} "
                  f"iteration(s){extra}", flush=True)

    # ------------------------------------------------------------- iteration
    def _iteration(self, state, levels):
        """One pass over the depths, deepest first.

        Returns
        -------
        records : dict of node -> NodeRecord
        finished : bool
            False when the time limit stopped the pass between two depths.
        """
        data = self.data
        n_levels = len(levels)
        paths = node_paths(data.X, data.rows, *state.arrays, n_levels)
        # a node's bounds depend on the rules above it only, which this pass updates after
        # it: taken once, they hold for every node when its depth is updated
        bounds = None if self.monotone is None else self._node_bounds(state, paths)
        records = {}
        for d in range(n_levels - 1, -1, -1):
            check_interrupt()  # Ctrl-C held back during the fit is raised between depths
            if d < n_levels - 1 and self._out_of_time():
                return records, False
            col = paths[:, d]
            reached = col >= 0
            node_of = col[reached]
            samples = data.rows[reached]
            order = np.argsort(node_of, kind="stable")
            node_of = node_of[order]
            samples = samples[order]
            nodes_here = levels[d]
            is_leaf = state.kind[nodes_here] == LEAF
            self._update_leaves(state, nodes_here[is_leaf], node_of, samples, bounds)
            decision = nodes_here[~is_leaf]
            if decision.size:
                records.update(self._update_decision_nodes(state, decision, node_of, samples,
                                                           bounds))
        return records, True

    def _node_bounds(self, state, paths):
        """Every node's bounds under monotonic constraints: :class:`MonotoneGrowth`'s, from
        the values the training samples give the nodes of ``state`` (``paths``:
        :func:`node_paths` of ``data.rows``).

        A zero-variate node, and one that sends every sample to one side, orders
        nothing: both its children get its bounds, as the tree
        :func:`state_to_tree` makes (which leaves such nodes out) gets them.

        Returns
        -------
        lower, upper : ndarray of float64 (n_nodes,)
        """
        data = self.data
        n = state.node_count
        w = data.sample_weight[data.rows]
        wv = w * self._node_value[data.rows]
        weight = np.zeros(n)
        total = np.zeros(n)
        for d in range(paths.shape[1]):
            col = paths[:, d]
            ok = col >= 0
            np.add.at(weight, col[ok], w[ok])
            np.add.at(total, col[ok], wv[ok])
        value = np.divide(total, weight, out=np.zeros(n), where=weight > 0)
        orders = np.zeros(n, dtype=ITYPE)
        left, right = state.children_left, state.children_right
        splitting = np.flatnonzero(((state.kind == UNIVARIATE) | (state.kind == BIVARIATE))
                                   & (weight[np.maximum(left, 0)] > 0)
                                   & (weight[np.maximum(right, 0)] > 0))
        for node in splitting:
            categorical = state.category_mask[node, 0] != 0 and state.features[node, 1] < 0
            orders[node] = self.monotone.order(state.features[node], state.weights[node],
                                               categorical)
        return self.monotone.pass_down(left, right, orders, value)

    def _update_leaves(self, state, leaves, node_of, samples, bounds=None):
        """Each leaf's class (the first majority one) or mean; under monotonic constraints
        (``bounds``) the value clipped to the leaf's bounds first, as the returned tree
        clips it (:meth:`MonotoneGrowth.clip`), so the losses TAO weighs are its own."""
        if leaves.size == 0 or samples.size == 0:
            return
        data = self.data
        at_leaf = np.isin(node_of, leaves)
        ids, s = node_of[at_leaf], samples[at_leaf]
        if ids.size == 0:
            return
        uniq, inverse = np.unique(ids, return_inverse=True)
        w = data.sample_weight[s]
        if data.regression:
            wsum = np.bincount(inverse, weights=w, minlength=uniq.size)
            tsum = np.bincount(inverse, weights=w * data.targets[s], minlength=uniq.size)
            ok = wsum > 0
            means = tsum[ok] / wsum[ok]
            if bounds is not None:
                means = np.array([self._clipped(np.array([m]), wt, bounds, leaf)[0]
                                  for m, wt, leaf in zip(means, wsum[ok], uniq[ok])])
            state.leaf_mean[uniq[ok]] = means
        else:
            k = data.n_classes
            counts = np.bincount(inverse * k + data.labels[s], weights=w,
                                 minlength=uniq.size * k).reshape(uniq.size, k)
            if bounds is not None:
                counts = np.array([self._clipped(c, c.sum(), bounds, leaf)
                                   for c, leaf in zip(counts, uniq)])
            # the first majority class: the class predict() returns from these counts
            state.leaf_class[uniq] = np.argmax(counts, axis=1)

    def _clipped(self, value, weight, bounds, node):
        """A node's stored ``value`` (counts or mean) clipped to its ``bounds`` (the arrays
        of :meth:`_node_bounds`)."""
        if weight <= 0:
            return value
        return self.monotone.clip((value, weight, 0.0),
                                  NodeBounds(bounds[0][node], bounds[1][node]))[0]

    def _update_decision_nodes(self, state, decision, node_of, samples, bounds=None):
        data = self.data
        in_set = np.isin(node_of, decision)
        owner, s = node_of[in_set], samples[in_set]
        # decision nodes no sample reaches: every solution has loss 0, and the
        # zero-variate one costs nothing
        reached = np.zeros(state.node_count, dtype=bool)
        reached[owner] = True
        for node in decision[~reached[decision]]:
            state.set_zero_variate(node, left=True)
        active = decision[reached[decision]]
        if active.size == 0:
            return {}
        loss_left, loss_right = child_losses(
            data.X, s, owner, *state.arrays, data.labels, data.targets, data.sample_weight,
            state.leaf_class, state.leaf_mean, data.regression)
        care = care_sets(active, owner, s, loss_left, loss_right)
        options = option_losses(care)
        # nodes whose zero-variate option beats every rule, whatever its loss: no search
        settled = self._no_rule_can_win(options)
        found = self._node_rules(active, care, options, settled)
        subsets = self._category_rules(active, care, settled)

        # evaluate every candidate rule on the care samples, both ways round
        rule_node, tags, rules = [], [], []
        for r, node in enumerate(active):
            for tag, rule in _candidates(state, node, found[node], subsets.get(node)):
                rule_node.append(r)
                tags.append((node, tag))
                rules.append(rule)
        rule_f = [rule.features for rule in rules]
        rule_w = [rule.weights for rule in rules]
        rule_t = [rule.threshold for rule in rules]
        rule_m = [slot_masks(rule.category_mask, 2) for rule in rules]
        rule_ml = [rule.missing_left for rule in rules]
        arrays = (np.asarray(rule_node, dtype=ITYPE), np.ascontiguousarray(rule_f, dtype=ITYPE),
                  np.ascontiguousarray(rule_w, dtype=DTYPE), np.asarray(rule_t, dtype=DTYPE),
                  np.ascontiguousarray(rule_m, dtype=MASK_DTYPE), np.asarray(rule_ml, dtype=bool))
        errors = rule_errors(data.X, care, *arrays)
        admissible = (np.ones(len(rules), dtype=bool) if bounds is None
                      else self._admissible(active, owner, s, arrays, bounds))

        records = {}
        r_of = {node: r for r, node in enumerate(active)}
        q = 0
        while q < len(tags):
            node = tags[q][0]
            options = []
            while q < len(tags) and tags[q][0] == node:
                if admissible[q]:
                    options.append((tags[q][1], rule_f[q], rule_w[q], rule_t[q], rule_m[q],
                                    errors.keep[q], errors.flip[q], rule_ml[q]))
                q += 1
            records[node] = self._choose(state, node, options)
            if data.has_missing:
                scored = state.missing_left[node]
                self._default_missing_side(state, node, care, r_of[node], owner, s)
                # the side moves samples between the children: it must keep the bounds
                if bounds is not None and state.missing_left[node] != scored and not (
                        self._admissible(active, owner, s,
                                         self._node_rule(state, node, r_of[node]), bounds)[0]):
                    state.missing_left[node] = scored
        return records

    @staticmethod
    def _node_rule(state, node, r):
        """The rule of ``node`` (index ``r`` of its depth's active nodes) as the arrays
        :func:`rule_errors` and :meth:`_admissible` take, for one rule."""
        return (np.array([r], dtype=ITYPE), state.features[node:node + 1].copy(),
                state.weights[node:node + 1].copy(),
                np.array([state.threshold[node]], dtype=DTYPE),
                np.ascontiguousarray(slot_masks(state.category_mask[node], 2)[None, :],
                                     dtype=MASK_DTYPE),
                np.array([state.missing_left[node]], dtype=bool))

    def _admissible(self, active, owner, samples, arrays, bounds):
        """Mask of the candidate rules (``arrays``: node index in ``active``, features,
        weights, thresholds, category masks, missing sides) that may be used under
        monotonic constraints: the shared check
        :func:`~bivtree._kernels.constraints.split_admissible` with the node's bounds and
        the values of the children the rule makes of all the node's samples
        (``samples[p]`` reaches node ``owner[p]``, sorted by node), as the greedy search
        checks a split. A rule sending every sample to one side splits nothing and
        passes; so does the zero-variate option.
        """
        data = self.data
        rule_node, features, weights = arrays[0], arrays[1], arrays[2]
        offsets = np.searchsorted(owner, np.append(active, np.iinfo(ITYPE).max)).astype(ITYPE)
        sums = rule_side_sums(data.X, np.ascontiguousarray(samples, dtype=ITYPE), offsets,
                              *arrays, self._node_value, data.sample_weight)
        lower, upper = bounds
        out = np.ones(rule_node.size, dtype=bool)
        for q in np.flatnonzero((sums.weight_left > 0) & (sums.weight_right > 0)):
            node = active[rule_node[q]]
            out[q] = split_admissible(
                self.space.cst, self.constraints.allowed, features[q], weights[q],
                lower[node], upper[node], sums.value_left[q] / sums.weight_left[q],
                sums.value_right[q] / sums.weight_right[q])
        return out

    def _default_missing_side(self, state, node, care, r, owner, samples):
        """Where no care sample of ``node`` misses a feature of its chosen rule, send the
        missing samples to the side with more of the node's training weight.

        Those samples have the same loss down either child, so the objective
        does not change; the side is the greedy trees' default rule
        (:func:`~bivtree.tree.default_missing_left`) over the node's samples
        whose value is known. ``r`` is the node's index in ``care``.
        """
        if state.kind[node] == ZERO_VARIATE:
            return
        X = self.data.X
        features = state.features[node][state.features[node] >= 0]
        care_rows = care.samples[care.offsets[r]:care.offsets[r + 1]]
        if np.isnan(X[np.ix_(care_rows, features)]).any():
            return  # the side was scored
        rows = samples[owner == node]
        known = ~np.isnan(X[np.ix_(rows, features)]).any(axis=1)
        if known.all():
            return  # no sample of the node misses a feature: no side is read
        # the routing of growth itself: the known rows, left-going first
        routed = np.ascontiguousarray(rows[known], dtype=ITYPE)
        mid = partition_samples(X, routed, 0, routed.size, state.features[node],
                                state.weights[node], float(state.threshold[node]),
                                state.category_mask[node], False)
        w = self.data.sample_weight
        state.missing_left[node] = default_missing_left(float(w[routed[:mid]].sum()),
                                                        float(w[routed[mid:]].sum()))

    def _category_rules(self, active, care, settled):
        """The best category-set :class:`Rule` of each node of ``active`` (node -> Rule),
        but those ``settled`` (a mask over ``active``).

        A node's reduced problem has two classes (the pseudolabels), so the
        shared subset search (:func:`~bivtree.splitters._categorical.best_subset_split`,
        Breiman's order) under the misclassification error is exact: it is the
        set of the categories whose care samples mostly prefer the left child.
        The care sets of one depth are disjoint, so one array of labels and
        weights over all rows serves every node.
        """
        categorical = self.data.categorical
        if categorical.size == 0:
            return {}
        n = self.data.X.shape[0]
        labels = np.zeros(n, dtype=ITYPE)
        weights = np.zeros(n, dtype=DTYPE)
        labels[care.samples] = care.labels
        weights[care.samples] = care.weights
        problem = SplitData(X=self.data.X, labels=labels, targets=np.zeros(n, dtype=DTYPE),
                            sample_weight=weights, n_classes=2, criterion=MISCLASSIFICATION)
        out = {}
        for r, node in enumerate(active):
            if settled[r]:
                continue
            samples = care.samples[care.offsets[r]:care.offsets[r + 1]]
            best = None
            for f in categorical:
                split = best_subset_split(problem, samples, int(f)) if samples.size else None
                if split is not None and (best is None or split.objective < best.objective):
                    best = split
            if best is not None:
                out[node] = Rule(best.features.copy(), best.weights.copy(), 0.0,
                                 int(best.category_mask[0]), bool(best.missing_left))
        return out

    def _node_rules(self, active, care, options, settled):
        """:class:`NodeRules` of every node of ``active``: none for those ``settled`` (a
        mask over ``active``), cached where its reduced problem did not change,
        searched (:meth:`_search`) where it did, or where the cached search left out
        the pairs and a bivariate rule can now be chosen."""
        found = {}
        todo = []
        digests = []
        for r, node in enumerate(active):
            if settled[r]:
                found[node] = NodeRules(None, None)
                continue
            problem = node_problem(care, r)
            hit = self.cache.get(node, problem)
            if hit is not None and self._enough(hit, options, r):
                found[node] = hit
                continue
            digest = problem_digest(problem)
            known = self.cache.memo.get(digest) if hit is None else None
            if known is not None:
                # the same problem was searched before (another node, fit or path)
                self.cache.put(node, node_problem(care, r, copy=True), *known)
                if self._enough(known[0], options, r):
                    found[node] = known[0]
                    continue
            # searched anew, or its pairs only, from the cached bounds (same problem)
            todo.append(r)
            digests.append(digest)
        if todo:
            found.update(self._search(active, np.asarray(todo, dtype=ITYPE), care, digests,
                                      options))
        return found

    def _enough(self, rules, options, r):
        """Whether a search's ``rules`` answer node ``r`` of ``options`` here: its pairs
        were searched, or no bivariate rule can be chosen at this node."""
        return rules.bivariate_searched or self._bivariate_cannot_win(
            options, r, rules.univariate_loss)

    def _tolerance(self, total):
        """Rounding slack of a comparison of the options' penalized losses at a node of
        care weight ``total``: far above the rounding of the sums, far below a sample."""
        return 1e-9 * (total + self.lam * max(1.0, self.feature_cost))

    def _no_rule_can_win(self, options):
        """Mask of the nodes where the zero-variate option beats every rule however small
        its loss (:meth:`_choose` compares loss + lambda * phi, phi = 1 or ``C``)."""
        if not self.skip_hopeless:
            return np.zeros(options.zero.size, dtype=bool)
        lam_least = self.lam * min(1.0, self.feature_cost)
        return options.zero < lam_least - self._tolerance(options.total)

    def _bivariate_cannot_win(self, options, r, univariate_loss):
        """Whether no bivariate rule can be chosen at node ``r`` of ``options``, whatever
        its loss, when the best univariate item's loss is ``univariate_loss``.

        A bivariate rule of loss ``L_b >= 0`` costs ``L_b + lambda * C``; the
        zero-variate option costs its loss, the best univariate rule ``L_u +
        lambda`` (an item's loss is its least error over the four labellings of
        its sides, so a smaller loss is the zero-variate option's). Ties go to
        fewer features, so a perfect univariate cut (its loss below half the
        least care weight is then exactly 0) wins when ``C >= 1``.
        """
        if not self.skip_hopeless:
            return False
        tol = self._tolerance(options.total[r])
        lam, c = self.lam, self.feature_cost
        if options.zero[r] - lam * c < -tol:
            return True
        if self.monotone is not None:
            # the best univariate rule may be inadmissible (its children's values out of
            # order or bounds), so it does not rule out a bivariate one
            return False
        if univariate_loss + lam - lam * c < -tol:
            return True
        return c >= 1.0 and univariate_loss <= tol and options.least[r] > 4.0 * tol

    def _search(self, active, todo, care, digests, options):
        """Best univariate and bivariate rule (:class:`NodeRules`) of the nodes
        ``active[todo]``, whose reduced problems are in ``care``.

        The univariate items come first; a node where they show that no
        bivariate rule can be chosen (:meth:`_bivariate_cannot_win`, given its
        ``options``) skips its pairs. Nodes searched before are searched
        incrementally (:class:`_SearchCache`), group by group (univariate,
        bivariate): first the best old item of the group, whose new loss ``U``
        bounds the group's optimum, then every item whose old loss minus the
        change bound is at most ``U``. The others cannot reach ``U``, so the
        winner (the first largest proxy) is the one a full search finds.

        Returns
        -------
        dict of node -> NodeRules
        """
        todo_care = care_subset(care, todo)
        exact = np.diff(todo_care.offsets) <= self.exact_max_samples
        problems = [node_problem(care, r, copy=True) for r in todo]
        # m -> lower bounds of the new losses of node active[todo[m]]'s items
        lower = self._lower_bounds(active[todo], problems)
        evaluated = {m: {} for m in range(todo.size)}  # m -> {item: row of the results}
        nodes = range(todo.size)
        if self.pair_features is not None:
            # every univariate item, which ranks the features for the pairs
            results, allowed = self._screen(todo_care, exact, todo.size, evaluated)
        else:
            allowed = None
            results = self._run_group(todo_care, exact, lower, None, evaluated, nodes, 0)
        n_feat = self.space.features.size
        univariate_loss = np.full(todo.size, np.inf)
        for m in nodes:
            rows = [row for t, row in evaluated[m].items() if t < n_feat]
            if rows:  # the evaluated ones include the best (see above)
                univariate_loss[m] = results.loss[rows].min()
        pairs_of = [m for m in nodes
                    if not self._bivariate_cannot_win(options, todo[m], univariate_loss[m])]
        results = self._run_group(todo_care, exact, lower, allowed, evaluated, pairs_of, 1,
                                  results)
        searched = np.zeros(todo.size, dtype=bool)
        searched[pairs_of] = True
        found = {}
        for m, r in enumerate(todo):
            node = active[r]
            ev = evaluated[m]
            items = np.fromiter(ev.keys(), dtype=ITYPE, count=len(ev))
            where = np.fromiter(ev.values(), dtype=ITYPE, count=len(ev))
            bounds = lower.get(m, np.full(self.items_per_node, np.inf)).copy()
            bounds[items] = results.loss[where]
            order = np.argsort(items)
            rules = self._best_rules(results, items[order], where[order])._replace(
                univariate_loss=float(univariate_loss[m]),
                bivariate_searched=bool(searched[m]))
            self.cache.put(node, problems[m], rules, bounds)
            self._remember(digests[m], rules, bounds)
            found[node] = rules
        return found

    def _run_group(self, care, exact, lower, allowed, evaluated, nodes, group, results=None):
        """Search group ``group`` (0: univariate, 1: bivariate) of the nodes ``nodes``:
        every (allowed) item of a new node, the best old item of a node searched
        before, then the items of those that can still win; the results appended to
        ``results``."""
        first_pass = self._first_pass(nodes, lower, allowed, evaluated, group)
        results = self._run_more(care, exact, first_pass, results, evaluated)
        second_pass = self._second_pass(care, lower, results, evaluated, allowed, nodes, group)
        return self._run_more(care, exact, second_pass, results, evaluated)

    def _remember(self, digest, rules, bounds):
        """Keep a search in the memo; a full memo (about :data:`MEMO_MAX_FLOATS` bounds)
        is emptied first, which costs searches again but changes no answer."""
        memo = self.cache.memo
        # a node with nothing to search (no varying feature) keeps no bounds
        if len(memo) >= max(1, MEMO_MAX_FLOATS // max(1, self.items_per_node)):
            memo.clear()
        memo[digest] = (rules, bounds)

    @property
    def items_per_node(self):
        """Items of one node: its univariate features, then its pairs."""
        return self.space.features.size + self.space.pair_j.size

    def _item_group(self, group, allowed=None):
        """The item numbers of group ``group`` (0: univariate, 1: bivariate), restricted
        to the ``allowed`` ones (a mask over the items) when given."""
        n_feat = self.space.features.size
        items = (np.arange(n_feat) if group == 0
                 else np.arange(n_feat, self.items_per_node))
        return items if allowed is None else items[allowed[items]]

    def _run_more(self, care, exact, items, results, evaluated):
        """Run ``items`` and append their results to ``results`` (None: none yet),
        recording in ``evaluated`` where each item's result is."""
        if results is not None and items.node.size == 0:
            return results
        base = 0 if results is None else results.loss.shape[0]
        for q, (m, t) in enumerate(zip(items.node, items.index)):
            evaluated[int(m)][int(t)] = base + q
        new = self._run_items(care, exact, items)
        if results is None:
            return new
        return ItemResults(*(np.concatenate(pair) for pair in zip(results, new)))

    def _screen(self, care, exact, n_nodes, evaluated):
        """Pass 0 of a screened search: every univariate item of every node.

        Returns
        -------
        results : ItemResults
        allowed : dict of m -> ndarray of bool (items_per_node,)
            The univariate items and the pairs of the ``pair_features``
            features of least univariate loss.
        """
        n_feat = self.space.features.size
        items = WorkItems(np.repeat(np.arange(n_nodes, dtype=ITYPE), n_feat),
                          np.tile(np.arange(n_feat, dtype=ITYPE), n_nodes))
        results = self._run_more(care, exact, items, None, evaluated)
        allowed = {}
        for m in range(n_nodes):
            loss = results.loss[m * n_feat:(m + 1) * n_feat]
            top = np.argsort(loss, kind="stable")[:self.pair_features]
            chosen = np.zeros(self.data.n_features, dtype=bool)
            chosen[self.space.features[top]] = True
            mask = np.ones(self.items_per_node, dtype=bool)
            mask[n_feat:] = chosen[self.space.pair_j] & chosen[self.space.pair_k]
            allowed[m] = mask
        return results, allowed

    def _lower_bounds(self, nodes, problems):
        """Lower bounds of the new losses of the items of the nodes searched before.

        Returns
        -------
        dict of m -> ndarray of float64 (items_per_node,)
            For ``nodes[m]`` when its last search is cached and the search is
            incremental: the old loss of each item minus :func:`change_bound`.
        """
        lower = {}
        if not self.incremental:
            return lower
        for m, (node, problem) in enumerate(zip(nodes, problems)):
            entry = self.cache.entries.get(node)
            if entry is not None:
                delta = change_bound(entry.key, problem)
                # an item with no cut before has no bound
                lower[m] = np.where(np.isfinite(entry.bounds), entry.bounds - delta, -np.inf)
        return lower

    def _first_pass(self, node_list, lower, allowed, evaluated, group):
        """:class:`WorkItems` of group ``group`` of the nodes ``node_list``: every
        (allowed) item of a node without bounds, else its item of least bound;
        items ``evaluated`` already are left out."""
        nodes, items = [], []
        for m in node_list:
            g = self._item_group(group, None if allowed is None else allowed[m])
            done = evaluated[m]
            if m in lower:
                if g.size:
                    t = int(g[int(np.argmax(-lower[m][g]))])  # first least bound
                    if t not in done:
                        nodes.append(m)
                        items.append(t)
            else:
                todo = [int(t) for t in g if int(t) not in done]
                nodes.extend([m] * len(todo))
                items.extend(todo)
        return WorkItems(np.asarray(nodes, dtype=ITYPE), np.asarray(items, dtype=ITYPE))

    def _second_pass(self, todo_care, lower, results, evaluated, allowed, node_list, group):
        """:class:`WorkItems`: the (allowed) items of group ``group`` of the searched-before
        nodes of ``node_list``, not evaluated yet, whose bound does not exceed the
        group's best loss found so far (plus a rounding slack)."""
        nodes, items = [], []
        for m in node_list:
            low = lower.get(m)
            g = self._item_group(group, None if allowed is None else allowed[m])
            if low is None or g.size == 0:
                continue
            node_weight = todo_care.weights[todo_care.offsets[m]:todo_care.offsets[m + 1]]
            slack = 1e-9 * max(1.0, float(node_weight.sum()))
            upper = min(results.loss[evaluated[m][t]] for t in g if t in evaluated[m])
            for t in g[low[g] <= upper + slack]:
                if t not in evaluated[m]:
                    nodes.append(m)
                    items.append(int(t))
        return WorkItems(np.asarray(nodes, dtype=ITYPE), np.asarray(items, dtype=ITYPE))

    def _best_rules(self, results, items, where):
        """:class:`NodeRules` of one node from its evaluated ``items`` (sorted), found in
        row ``where`` of ``results``; the first largest proxy (lowest item) wins a group."""
        n_feat = self.space.features.size
        best = []
        for g_lo, g_hi in ((0, n_feat), (n_feat, self.items_per_node)):
            sel = (items >= g_lo) & (items < g_hi)
            if not sel.any():
                best.append(None)
                continue
            q = where[sel][int(np.argmax(results.proxy[where[sel]]))]
            if not np.isfinite(results.proxy[q]):
                best.append(None)
            elif results.second[q] < 0:
                best.append(Rule(np.array([results.first[q], NO_FEATURE], dtype=ITYPE),
                                 np.array([1.0, 0.0]), float(results.threshold[q]),
                                 missing_left=bool(results.missing_left[q])))
            else:
                best.append(Rule(np.array([results.first[q], results.second[q]], dtype=ITYPE),
                                 np.array([1.0, results.w_second[q]]),
                                 float(results.threshold[q]),
                                 missing_left=bool(results.missing_left[q])))
        return NodeRules(*best)

    def _run_items(self, care, exact, items):
        return search_items(self.data.X, care, exact, self.space, items)

    def _choose(self, state, node, options):
        """Keep the cheapest option (ties: fewer features, then the current rule)."""
        lam, c = self.lam, self.feature_cost
        best = None
        best_key = None
        loss = {ZERO_VARIATE: np.inf, UNIVARIATE: np.inf, BIVARIATE: np.inf}
        for tag, f, w, t, m, e_keep, e_flip, ml in options:
            if tag == "zero":
                # keep: all left; flip: all right
                current_side = (state.kind[node] == ZERO_VARIATE
                                and state.threshold[node] < 0.0)
                if e_flip < e_keep or (e_flip == e_keep and current_side):
                    err, go_right = e_flip, True
                else:
                    err, go_right = e_keep, False
                kind, phi, swap = ZERO_VARIATE, 0.0, go_right
            else:
                kind = BIVARIATE if np.count_nonzero(f >= 0) == 2 else UNIVARIATE
                phi = c if kind == BIVARIATE else 1.0
                if e_flip < e_keep:
                    err, swap = e_flip, True
                else:
                    err, swap = e_keep, False
            loss[kind] = min(loss[kind], err)
            is_current = tag == "current" or (tag == "zero" and state.kind[node] == ZERO_VARIATE)
            key = (err + lam * phi, kind, 0 if is_current else 1)
            if best_key is None or key < best_key:
                best_key = key
                best = (tag, kind, f, w, t, m, swap, ml)
        tag, kind, f, w, t, m, swap, ml = best
        if kind == ZERO_VARIATE:
            state.set_zero_variate(node, left=not swap)
        else:
            state.kind[node] = kind
            state.features[node] = f
            state.weights[node] = w
            state.threshold[node] = t
            state.category_mask[node] = m
            # the missing side as scored: part of the rule's "goes left", which a swap of
            # the children (scored as "flip") leaves as it is
            state.missing_left[node] = bool(ml)
            if swap:
                left = state.children_left[node]
                state.children_left[node] = state.children_right[node]
                state.children_right[node] = left
        return NodeRecord(loss[ZERO_VARIATE], loss[UNIVARIATE], loss[BIVARIATE], kind)


def next_alpha(records, alpha, total_weight, feature_cost):
    """Smallest ``alpha`` above ``alpha`` at which some node's choice changes, or None.

    For a node that chose option ``a`` (penalty ``phi_a``), a cheaper option
    ``b`` (``phi_b < phi_a``) takes over once ``lambda >= (L_b - L_a) /
    (phi_a - phi_b)`` (ties go to fewer features). The value returned is a few
    units in the last place above the least such ``lambda / W``, so that the
    floating-point comparison at that value already sees the change.

    Parameters
    ----------
    records : dict of node -> NodeRecord
        The last iteration's reduced problems.
    alpha : float
    total_weight : float
    feature_cost : float

    Returns
    -------
    float or None
        None when every node already chose the zero-variate option.
    """
    phi = {ZERO_VARIATE: 0.0, UNIVARIATE: 1.0, BIVARIATE: float(feature_cost)}
    eps = np.finfo(float).eps
    best = np.inf
    for rec in records.values():
        losses = {ZERO_VARIATE: rec.zero, UNIVARIATE: rec.univariate,
                  BIVARIATE: rec.bivariate}
        la = losses[rec.chosen]
        for kind, lb in losses.items():
            dphi = phi[rec.chosen] - phi[kind]
            if dphi > 0 and np.isfinite(lb):
                lam = (lb - la) / dphi
                # just past the tie, by more than the rounding of L + lambda * phi, so
                # that the fit at this value sees the cheaper option win
                margin = 16 * eps * (abs(la) + abs(lb) + abs(lam) * phi[rec.chosen]) / dphi
                best = min(best, lam + margin)
    if not np.isfinite(best):
        return None
    nxt = best / total_weight * (1 + 4 * eps)
    if nxt <= alpha:
        nxt = np.nextafter(alpha, np.inf)
    return float(nxt)


def state_to_tree(state, data, n_slots=2):
    """The fitted :class:`Tree`: zero-variate nodes and dead branches removed.

    A decision node that sends all its training samples to one side is removed
    as well (it changes no training prediction). Node values are recomputed
    from the training samples: weighted class counts (whose first maximum is
    the leaf's class) or the weighted mean target; impurity is Gini or the
    variance. On data with missing values the tree stores the state's missing
    sides (learned sides), the default one at a node no training sample
    reached with a value missing.
    """
    n_levels = int(state.depth.max()) + 1
    paths = node_paths(data.X, data.rows, *state.arrays, n_levels)
    n = state.node_count
    count = np.zeros(n, dtype=ITYPE)
    weight = np.zeros(n)
    k = data.n_classes
    w = data.sample_weight[data.rows]
    sums = np.zeros((n, 3)) if data.regression else np.zeros((n, k))
    for d in range(n_levels):
        col = paths[:, d]
        ok = col >= 0
        nodes, r, wr = col[ok], data.rows[ok], w[ok]
        np.add.at(count, nodes, 1)
        np.add.at(weight, nodes, wr)
        if data.regression:
            y = data.targets[r]
            np.add.at(sums, (nodes, 0), wr)
            np.add.at(sums, (nodes, 1), wr * y)
            np.add.at(sums, (nodes, 2), wr * y * y)
        else:
            np.add.at(sums, (nodes, data.labels[r]), wr)

    def effective(node):
        # follow zero-variate and one-sided nodes down to the node that acts
        while state.kind[node] != LEAF:
            left, right = state.children_left[node], state.children_right[node]
            if state.kind[node] == ZERO_VARIATE:
                node = left if state.threshold[node] >= 0.0 else right
            elif count[right] == 0:
                node = left
            elif count[left] == 0:
                node = right
            else:
                break
        return node

    rows = []  # (old node, parent row, is_left)
    stack = [(effective(0), -1, False)]
    while stack:
        node, parent, is_left = stack.pop()
        rows.append((node, parent, is_left))
        if state.kind[node] != LEAF:
            stack.append((effective(state.children_right[node]), len(rows) - 1, False))
            stack.append((effective(state.children_left[node]), len(rows) - 1, True))
    m = len(rows)
    cl = np.full(m, TREE_LEAF, dtype=ITYPE)
    cr = np.full(m, TREE_LEAF, dtype=ITYPE)
    features = np.full((m, n_slots), NO_FEATURE, dtype=ITYPE)
    weights = np.zeros((m, n_slots))
    threshold = np.full(m, TREE_UNDEFINED)
    category_mask = np.zeros((m, n_slots), dtype=MASK_DTYPE)
    impurity = np.zeros(m)
    value = np.zeros((m, 1 if data.regression else k))
    for i, (node, parent, is_left) in enumerate(rows):
        if parent >= 0:
            (cl if is_left else cr)[parent] = i
        if state.kind[node] != LEAF:
            features[i, :2] = state.features[node]
            weights[i, :2] = state.weights[node]
            threshold[i] = state.threshold[node]
            category_mask[i, :2] = state.category_mask[node]
        wt = weight[node]
        if data.regression:
            mean = sums[node, 1] / wt if wt > 0 else state.leaf_mean[node]
            value[i, 0] = mean
            impurity[i] = max(0.0, sums[node, 2] / wt - mean * mean) if wt > 0 else 0.0
        else:
            value[i] = sums[node]
            impurity[i] = 1.0 - float(np.sum((sums[node] / wt) ** 2)) if wt > 0 else 0.0
    return Tree(cl, cr, features, weights, threshold, impurity,
                np.array([count[r[0]] for r in rows]), np.array([weight[r[0]] for r in rows]),
                value, state.n_features, category_mask,
                _tree_missing_sides(state, data, paths, weight, [r[0] for r in rows])
                if data.has_missing else None)


def _tree_missing_sides(state, data, paths, weight, kept):
    """Missing sides of the state's nodes ``kept`` as the tree stores them.

    The state's side where a training sample missing a feature of the node's
    rule reached it (``paths``: :func:`node_paths` of ``data.rows``), else the
    default rule over the children's training ``weight`` (the side is never
    read in training, and the tree takes what a greedy tree would).
    """
    saw_missing = np.zeros(state.node_count, dtype=bool)
    for d in range(paths.shape[1]):
        ok = paths[:, d] >= 0
        nodes, rows = paths[ok, d], data.rows[ok]
        decision = state.kind[nodes] != LEAF
        nodes, rows = nodes[decision], rows[decision]
        for slot in range(state.features.shape[1]):
            f = state.features[nodes, slot]
            used = f >= 0
            saw_missing[nodes[used][np.isnan(data.X[rows[used], f[used]])]] = True
    out = np.zeros(len(kept), dtype=bool)
    for i, node in enumerate(kept):
        if state.kind[node] == LEAF:
            continue
        if saw_missing[node]:
            out[i] = state.missing_left[node]
        else:
            out[i] = default_missing_left(weight[state.children_left[node]],
                                          weight[state.children_right[node]])
    return out
