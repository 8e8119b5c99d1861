"""Optimal univariate classification trees of small depth over binned thresholds.

:func:`optimal_univariate_tree` returns the tree of least weighted training
misclassification among the univariate trees of depth at most ``max_depth``
whose tests are the candidate thresholds of :func:`candidate_thresholds`
(``x[f] <= t``, a missing value failing every test), exactly for depths up to
two and for deeper trees on problems small enough for its search, and a greedy
tree with exact depth-two bottoms otherwise. It is the building block of
non-greedy small trees in the manner of STreeD / MurTree: the depth-two problem
is solved from pairwise counts (:func:`bivtree._kernels.depth_two.best_depth_two`),
deeper ones by recursion over the root test down to that solver.
"""

import hashlib
import time
from typing import NamedTuple

import numpy as np

from ._config import DTYPE, ITYPE, NO_FEATURE, TREE_LEAF, TREE_UNDEFINED
from ._kernels.depth_two import NO_TEST, best_depth_two, node_tests
from ._threads import check_interrupt, deferred_sigint
from .tree import Tree

__all__ = ["EXACT_SOLVES_LIMIT", "TIE_TOLERANCE", "UnivariateTreeFit", "candidate_thresholds",
           "optimal_univariate_tree", "threshold_codes"]

#: ``search="auto"`` searches a tree deeper than two exactly when ``(2 T)^(D - 2)``, the
#: number of depth-two solves of the search without pruning or memo for ``T`` tests at
#: the root and depth ``D``, is at most this (depth 3 up to 25,000 tests, depth 4 up to
#: 111 tests); above it the greedy tree is returned.
EXACT_SOLVES_LIMIT = 50_000
#: two errors within this fraction of the total training weight are equal (the
#: rounding of the counts' sums and differences is far below it).
TIE_TOLERANCE = 1e-9
#: feature slots per node of the returned trees (the library's trees have two).
N_SLOTS = 2
#: the deeper search's memo is emptied when it holds this many solved subproblems
#: (a few hundred bytes each); it is only a cache, so answers do not change.
MEMO_LIMIT = 250_000


class UnivariateTreeFit(NamedTuple):
    """What :func:`optimal_univariate_tree` returns.

    Attributes
    ----------
    tree : Tree
        The fitted tree; ``value`` holds weighted class counts in the order of
        ``classes``.
    misclassification : float
        Weighted training misclassification of ``tree`` (the weight of the
        training samples whose leaf's heaviest class is not theirs).
    exact : bool
        Whether ``tree`` is proved optimal among the trees of depth at most
        ``max_depth`` over the candidate tests (up to :data:`TIE_TOLERANCE`).
    classes : ndarray
        The sorted distinct labels; column ``c`` of ``tree.value`` is ``classes[c]``.
    """

    tree: Tree
    misclassification: float
    exact: bool
    classes: np.ndarray


class _Result(NamedTuple):
    """A subtree found by the search: its error, number of decision nodes and shape
    (``None`` for a leaf, else ``(test, left shape, right shape)``)."""

    error: float
    n_splits: int
    shape: object


class _OutOfTime(Exception):
    """The exact search passed its deadline."""


def candidate_thresholds(X, sample_weight=None, max_bins=32):
    """The candidate thresholds of each feature, ascending.

    A feature with ``u`` distinct known values ``v_0 < ... < v_{u-1}`` gets every
    midpoint ``(v_k + v_{k+1}) / 2`` when ``u <= max_bins`` (at most
    ``max_bins - 1``). Otherwise, with ``W_k`` the weight of the samples whose
    value is at most ``v_k`` and ``W`` the total, the cut for ``q = 1 ..
    max_bins - 1`` falls after the first ``v_k`` with ``W_k >= q W / max_bins``
    (the weighted quantiles), distinct cuts kept and none after the largest
    value: at most ``max_bins - 1`` midpoints, fewer where a value holds more
    than a bin's weight. A midpoint that rounds onto ``v_{k+1}`` is ``v_k``
    instead (scikit-learn's rule), so ``v_k <= t < v_{k+1}``. Missing values
    (NaN) are ignored.

    Parameters
    ----------
    X : array-like of shape (n_samples, n_features)
    sample_weight : array-like of shape (n_samples,), default=None
        Non-negative weights (``None``: all ones).
    max_bins : int, default=32
        At least 2.

    Returns
    -------
    list of ndarray of float64
        One strictly increasing array per feature.
    """
    X = np.asarray(X, dtype=DTYPE)
    weights = (np.ones(X.shape[0]) if sample_weight is None
               else np.asarray(sample_weight, dtype=DTYPE))
    thresholds = []
    for f in range(X.shape[1]):
        known = ~np.isnan(X[:, f])
        values, inverse = np.unique(X[known, f], return_inverse=True)
        if values.size <= max_bins:
            cut_after = np.arange(max(values.size - 1, 0))
        else:
            cumulative = np.cumsum(np.bincount(inverse, weights=weights[known],
                                               minlength=values.size))
            targets = cumulative[-1] * np.arange(1, max_bins) / max_bins
            cut_after = np.unique(np.searchsorted(cumulative, targets, side="left"))
            cut_after = cut_after[cut_after < values.size - 1]
        lo, hi = values[cut_after], values[cut_after + 1]
        midpoint = lo / 2.0 + hi / 2.0
        thresholds.append(np.where((midpoint == hi) | ~np.isfinite(midpoint), lo, midpoint))
    return thresholds


def threshold_codes(X, thresholds):
    """Each sample's code per feature and the first test id of each feature.

    The code of ``x[f]`` is the number of thresholds of ``f`` below it, and the
    number of thresholds for a missing value, so a sample passes the ``j``-th
    test of ``f``, ``x[f] <= thresholds[f][j]``, iff its code is at most ``j``
    (a missing value passes none).

    Parameters
    ----------
    X : array-like of shape (n_samples, n_features)
    thresholds : list of ndarray
        Ascending thresholds per feature (:func:`candidate_thresholds`).

    Returns
    -------
    codes : ndarray of int64, shape (n_samples, n_features)
    offsets : ndarray of int64, shape (n_features + 1,)
        Test ids ``offsets[f] .. offsets[f + 1] - 1`` are feature ``f``'s
        thresholds in order; ``offsets[-1]`` is the number of tests.
    """
    X = np.asarray(X, dtype=DTYPE)
    codes = np.empty(X.shape, dtype=ITYPE)
    for f, cuts in enumerate(thresholds):
        codes[:, f] = np.searchsorted(cuts, X[:, f], side="left")
        codes[np.isnan(X[:, f]), f] = len(cuts)
    offsets = np.zeros(X.shape[1] + 1, dtype=ITYPE)
    offsets[1:] = np.cumsum([len(cuts) for cuts in thresholds])
    return codes, offsets


def _digest(samples):
    """Key of a sorted sample set: a 128-bit hash of its indices."""
    return hashlib.blake2b(samples.tobytes(), digest_size=16).digest()


class _Search:
    """The searches over one training set's tests, sharing a memo of solved subproblems.

    The memo maps ``(depth, digest of the sorted samples)`` to a :class:`_Result`
    (the optimal subtree) or, for a depth above two, to a float ``b``: no subtree
    has an error below ``b - tol`` (what a pruned search proved).
    """

    def __init__(self, codes, offsets, labels, weights, n_classes, tol, deadline):
        self.codes = codes
        self.offsets = offsets
        self.labels = labels
        self.weights = weights
        self.n_classes = n_classes
        self.tol = tol
        self.deadline = deadline
        self.test_feature = np.repeat(np.arange(offsets.shape[0] - 1), np.diff(offsets))
        self.test_index = np.arange(offsets[-1]) - offsets[self.test_feature]
        self.memo = {}
        self.incumbent = None  # the best complete tree the exact search found at the root

    def split(self, samples, test):
        """The samples passing ``test`` and those failing it, each sorted."""
        passes = self.codes[samples, self.test_feature[test]] <= self.test_index[test]
        return samples[passes], samples[~passes]

    def leaf_error(self, samples):
        """Misclassification of ``samples`` as one leaf."""
        counts = np.bincount(self.labels[samples], weights=self.weights[samples],
                             minlength=self.n_classes)
        return float(counts.sum() - counts.max())

    def depth_two(self, samples, depth):
        """The optimal subtree of depth at most ``depth <= 2`` (memoised)."""
        key = (depth, _digest(samples))
        known = self.memo.get(key)
        if known is None:
            check_interrupt()
            found = best_depth_two(self.codes, self.offsets, samples, self.labels,
                                   self.weights, self.n_classes, depth, self.tol)
            shape = None
            if found.root != NO_TEST:
                shape = (int(found.root),
                         None if found.left == NO_TEST else (int(found.left), None, None),
                         None if found.right == NO_TEST else (int(found.right), None, None))
            known = _Result(float(found.error), int(found.n_splits), shape)
            self.remember(key, known)
        return known

    def remember(self, key, value):
        """Store ``value`` in the memo, emptied first when it is full (:data:`MEMO_LIMIT`)."""
        if len(self.memo) >= MEMO_LIMIT:
            self.memo.clear()
        self.memo[key] = value

    def greedy(self, samples, depth):
        """Greedy top, exact bottom: above the last two levels the root test is the
        depth-two optimum's root (the test whose children's best depth-one trees err
        least), and a node whose depth-two optimum is a leaf stays a leaf."""
        top = self.depth_two(samples, min(depth, 2))
        if depth <= 2 or top.shape is None:
            return top
        test = top.shape[0]
        left, right = (self.greedy(side, depth - 1) for side in self.split(samples, test))
        return _Result(left.error + right.error, 1 + left.n_splits + right.n_splits,
                       (test, left.shape, right.shape))

    def check_time(self):
        """Raise :class:`_OutOfTime` past the deadline."""
        if self.deadline is not None and time.perf_counter() > self.deadline:
            raise _OutOfTime

    def exact(self, samples, depth, bound, at_root=False):
        """The optimal subtree of depth at most ``depth`` if its error is below
        ``bound - tol`` (else ``None``), and a lower bound of the optimal error
        (the error itself when it is known).

        At the root (``at_root``) each better tree becomes :attr:`incumbent`.
        """
        if depth <= 2:
            found = self.depth_two(samples, depth)
            return (found if found.error < bound - self.tol else None), found.error
        key = (depth, _digest(samples))
        known = self.memo.get(key)
        if isinstance(known, _Result):
            return (known if known.error < bound - self.tol else None), known.error
        if known is not None and known >= bound:
            return None, known - self.tol
        self.check_time()
        best = self._best_subtree(samples, depth, bound, at_root)
        self.remember(key, bound if best is None else best)
        return best, (bound - self.tol if best is None else best.error)

    def _best_subtree(self, samples, depth, bound, at_root):
        """:meth:`exact`'s search of one node of depth above two.

        Depth-first over the root tests in ascending id (the leaf first), each
        child solved exactly at ``depth - 1`` under the bound left by the best tree
        so far less the other child's lower bound: 0, or the similarity bound of a
        lower test of the same feature (:class:`_SimilarityBound`).
        """
        best = None
        error = self.leaf_error(samples)
        if error < bound - self.tol:
            best = _Result(error, 0, None)
        limit = bound if best is None else best.error
        similar = _SimilarityBound(self, samples)
        for test in node_tests(self.codes, self.offsets, samples).tests:
            self.check_time()
            lower_left, lower_right = similar.bounds(test)
            if lower_left + lower_right >= limit - self.tol:
                continue  # no tree under this test can do better
            left_samples, right_samples = self.split(samples, test)
            left, lower_left = self.exact(left_samples, depth - 1, limit - lower_right)
            right = None
            if left is not None:
                right, lower_right = self.exact(right_samples, depth - 1, limit - left.error)
            similar.update(test, lower_left, lower_right)
            if right is None:
                continue
            best = _Result(left.error + right.error, 1 + left.n_splits + right.n_splits,
                           (int(test), left.shape, right.shape))
            limit = best.error
            if at_root:
                self.incumbent = best
        return best


class _SimilarityBound:
    """Lower bounds of the optimal errors of both children of a node's tests, from
    those of a lower test of the same feature (MurTree's similarity bound).

    As the threshold of one feature rises, samples move from the right child to
    the left one. The left child's optimal error cannot fall (its best tree errs
    no more on a subset), and the right child's falls by at most the weight that
    moved (the best tree of the smaller set errs on the larger one by at most
    that weight more). The bounds start at 0 at each feature's first test.
    """

    def __init__(self, search, samples):
        self.search = search
        self.samples = samples
        self.feature = -1
        self.cumulative = None  # node weight with code <= j, per code j of the feature
        self.reference = 0  # the threshold index the bounds below hold for
        self.left = 0.0
        self.right = 0.0

    def bounds(self, test):
        """Lower bounds of the optimal errors of the children of ``test``."""
        search = self.search
        feature, index = search.test_feature[test], search.test_index[test]
        if feature != self.feature:
            codes = search.codes[self.samples, feature]
            self.cumulative = np.cumsum(np.bincount(codes,
                                                    weights=search.weights[self.samples]))
            self.feature, self.reference, self.left, self.right = feature, index, 0.0, 0.0
            return 0.0, 0.0
        moved = self.cumulative[index] - self.cumulative[self.reference]
        return self.left, max(0.0, self.right - moved - search.tol)

    def update(self, test, left, right):
        """Record lower bounds of the optimal errors of the children of ``test``
        (the last test :meth:`bounds` was asked about)."""
        self.reference = self.search.test_index[test]
        self.left = left
        self.right = right


def _check_inputs(X, y, sample_weight, max_depth, max_bins, time_limit):
    """Validated ``X`` (float64, NaN allowed), ``y``, weights (float64) and the options."""
    X = np.asarray(X, dtype=DTYPE)
    y = np.asarray(y)
    if X.ndim != 2 or X.shape[0] == 0 or X.shape[1] == 0:
        raise ValueError(f"X must be a non-empty 2-D array; got shape {X.shape}")
    if np.isinf(X).any():
        raise ValueError("X holds infinite values; only NaN (missing) is allowed")
    if y.ndim != 1 or y.shape[0] != X.shape[0]:
        raise ValueError(f"y must be 1-D with one label per row of X ({X.shape[0]}); got "
                         f"shape {y.shape}")
    weights = (np.ones(X.shape[0]) if sample_weight is None
               else np.asarray(sample_weight, dtype=DTYPE))
    if weights.shape != (X.shape[0],) or not np.all(np.isfinite(weights)) or (
            weights.min() < 0):
        raise ValueError("sample_weight must hold one finite non-negative weight per row of X")
    if not weights.sum() > 0:
        raise ValueError("sample_weight must have a positive total")
    if isinstance(max_depth, bool) or not isinstance(max_depth, (int, np.integer)) or (
            max_depth < 0):
        raise ValueError(f"max_depth must be a non-negative integer; got {max_depth!r}")
    if isinstance(max_bins, bool) or not isinstance(max_bins, (int, np.integer)) or (
            max_bins < 2):
        raise ValueError(f"max_bins must be an integer of at least 2; got {max_bins!r}")
    if time_limit is not None and not (isinstance(time_limit, (int, float))
                                       and not isinstance(time_limit, bool) and time_limit > 0):
        raise ValueError(f"time_limit must be None or a positive number; got {time_limit!r}")
    return X, y, weights


def _tree_from_shape(shape, thresholds, test_feature, test_index, X, labels, weights,
                     n_classes):
    """The :class:`Tree` of a search's ``shape``, its node statistics from routing the
    training samples with :meth:`Tree.decision_path`, and its misclassification."""
    rows = []  # (subtree shape, parent row, is left child), in preorder
    stack = [(shape, -1, False)]
    while stack:
        node, parent, is_left = stack.pop()
        rows.append((node, parent, is_left))
        if node is not None:
            stack.append((node[2], len(rows) - 1, False))
            stack.append((node[1], len(rows) - 1, True))
    n_nodes = len(rows)
    children = np.full((2, n_nodes), TREE_LEAF, dtype=ITYPE)
    features = np.full((n_nodes, N_SLOTS), NO_FEATURE, dtype=ITYPE)
    slot_weights = np.zeros((n_nodes, N_SLOTS))
    threshold = np.full(n_nodes, TREE_UNDEFINED)
    for i, (node, parent, is_left) in enumerate(rows):
        if parent >= 0:
            children[0 if is_left else 1, parent] = i
        if node is not None:
            f, j = test_feature[node[0]], test_index[node[0]]
            features[i, 0] = f
            slot_weights[i, 0] = 1.0
            threshold[i] = thresholds[f][j]
    # a missing value fails every test: it goes right at every decision node
    missing_go_left = np.zeros(n_nodes, dtype=bool)
    routing = Tree(children[0], children[1], features, slot_weights, threshold,
                   np.zeros(n_nodes), np.zeros(n_nodes, dtype=ITYPE), np.zeros(n_nodes),
                   np.zeros((n_nodes, n_classes)), X.shape[1],
                   missing_go_left=missing_go_left, missing_learned=True)
    path = routing.decision_path(X)
    per_class = np.zeros((X.shape[0], n_classes))
    per_class[np.arange(X.shape[0]), labels] = weights
    value = np.asarray(path.T @ per_class)
    weighted = value.sum(axis=1)
    largest = value.max(axis=1)
    with np.errstate(invalid="ignore", divide="ignore"):
        impurity = np.where(weighted > 0, 1.0 - largest / weighted, 0.0)
    tree = Tree(children[0], children[1], features, slot_weights, threshold, impurity,
                np.asarray(path.sum(axis=0)).ravel(), weighted, value, X.shape[1],
                missing_go_left=missing_go_left, missing_learned=True)
    leaves = tree.is_leaf
    return tree, float(np.sum(weighted[leaves] - largest[leaves]))


def _run_search(search, samples, max_depth, mode, n_root_tests):
    """The search's result and whether it is proved optimal (see
    :func:`optimal_univariate_tree`)."""
    if max_depth <= 2:
        return search.depth_two(samples, max_depth), True
    greedy = search.greedy(samples, max_depth)
    if mode == "greedy" or (mode == "auto" and (2 * n_root_tests) ** (max_depth - 2)
                            > EXACT_SOLVES_LIMIT):
        return greedy, False
    try:
        better, _ = search.exact(samples, max_depth, greedy.error, at_root=True)
    except _OutOfTime:
        return search.incumbent or greedy, False
    return better or greedy, True


def optimal_univariate_tree(X, y, *, max_depth, sample_weight=None, max_bins=32,
                            time_limit=None, search="auto"):
    """The univariate classification tree of least weighted misclassification of depth
    at most ``max_depth`` over binned thresholds.

    The candidate tests are ``x[f] <= t`` for the thresholds ``t`` of
    :func:`candidate_thresholds` (at most ``max_bins - 1`` per feature, midpoints
    between distinct values at weighted quantiles, all of them for a feature of
    at most ``max_bins`` distinct values), computed on the samples of positive
    weight. A missing value (NaN) fails every test: it goes right at every
    node, and the tree stores that side (``missing_go_left`` False, learned).
    A leaf predicts the heaviest class of its training samples.

    What is exact:

    * ``max_depth <= 2``: always the optimum over the candidate tests (one
      call of the pairwise-count solver,
      :func:`bivtree._kernels.depth_two.best_depth_two`). ``time_limit`` does
      not apply.
    * ``max_depth = D > 2`` with ``search="exact"``, or ``"auto"`` when
      ``(2 T)^(D - 2) <= EXACT_SOLVES_LIMIT`` for the ``T`` tests that
      partition the training set: the optimum, by recursion over the root test
      (the leaf first, then the tests in ascending id), each child solved
      exactly at depth ``D - 1`` down to the depth-two solver, pruned by the
      best tree so far as the upper bound and 0 as the lower bound of a child,
      with a memo of solved (sample set, depth) keyed by a hash of the sorted
      sample indices. The search starts from the greedy tree below as its
      upper bound; if ``time_limit`` passes first, the best tree found so far
      is returned (the greedy tree or better) with ``exact=False``.
    * Otherwise (``search="greedy"``, or ``"auto"`` above the limit): a greedy
      tree, not exact. Above the last two levels each node takes the root test
      of its depth-two optimum (the test whose two children's best depth-one
      trees err least; a node whose depth-two optimum is a leaf stays a leaf),
      and each node at depth ``D - 2`` takes the exact depth-two subtree. The
      greedy tree is always completed, whatever ``time_limit``.

    Optima are up to :data:`TIE_TOLERANCE` times the total weight (errors
    closer than that are equal). Ties: in a depth-two solve the fewest splits,
    then the lowest root test, then the lowest child tests (test ids run over
    the features in order, thresholds ascending); in the deeper exact search a
    leaf, then the lowest root test, keeping the greedy tree when nothing is
    better. Trees are never deeper than ``max_depth`` and never hold a split
    that sends no training weight to a side.

    Memory: the depth-two solver holds one feature pair's block of the pairwise
    counts at a time, ``O(max_bins^2 K)`` floats for ``K`` classes, never the
    ``T^2 K`` table of every test pair; the deeper search's memo keeps one small
    entry per solved subproblem.

    Parameters
    ----------
    X : array-like of shape (n_samples, n_features)
        Numeric features; NaN is a missing value, infinite values are refused.
    y : array-like of shape (n_samples,)
        Class labels (any sortable values).
    max_depth : int
        At least 0 (0: one leaf).
    sample_weight : array-like of shape (n_samples,), default=None
        Non-negative weights with a positive total; samples of weight 0 take no
        part (in the thresholds, the search, or the tree's node counts).
    max_bins : int, default=32
        At least 2.
    time_limit : float, default=None
        Seconds for the exact search of a tree deeper than two (``None``: no
        limit), counted from the call.
    search : {"auto", "exact", "greedy"}, default="auto"
        How a tree deeper than two is searched (above).

    Returns
    -------
    UnivariateTreeFit
        ``(tree, misclassification, exact, classes)``: ``tree`` has one feature
        per decision node (slot 0, weight 1; slot 1 unused), weighted class
        counts as ``value``, the misclassification rate ``1 - max_c p_c`` as
        ``impurity``; ``misclassification`` is its weighted training error,
        computed by routing the training samples through ``tree``.

    Examples
    --------
    >>> import numpy as np
    >>> from bivtree.optimal_univariate import optimal_univariate_tree
    >>> X = np.array([[0.0, 0.0], [0.0, 1.0], [1.0, 0.0], [1.0, 1.0]])
    >>> fit = optimal_univariate_tree(X, [0, 1, 1, 0], max_depth=2)
    >>> fit.misclassification, fit.exact, fit.tree.n_leaves
    (0.0, True, 4)
    """
    X, y, weights = _check_inputs(X, y, sample_weight, max_depth, max_bins, time_limit)
    if search not in ("auto", "exact", "greedy"):
        raise ValueError(f"search must be 'auto', 'exact' or 'greedy'; got {search!r}")
    start = time.perf_counter()
    keep = weights > 0
    X, y, weights = X[keep], y[keep], np.ascontiguousarray(weights[keep])
    classes, labels = np.unique(y, return_inverse=True)
    labels = np.ascontiguousarray(labels, dtype=ITYPE)
    thresholds = candidate_thresholds(X, weights, max_bins)
    codes, offsets = threshold_codes(X, thresholds)
    tol = TIE_TOLERANCE * float(weights.sum())
    deadline = None if time_limit is None else start + float(time_limit)
    solver = _Search(codes, offsets, labels, weights, classes.size, tol, deadline)
    samples = np.arange(X.shape[0], dtype=ITYPE)
    with deferred_sigint():
        n_root_tests = node_tests(codes, offsets, samples).tests.size
        found, exact = _run_search(solver, samples, int(max_depth), search, n_root_tests)
    tree, error = _tree_from_shape(found.shape, thresholds, solver.test_feature,
                                   solver.test_index, X, labels, weights, classes.size)
    return UnivariateTreeFit(tree, error, exact, classes)
