"""Greedy top-down growth: depth-first, or best-first when ``max_leaf_nodes`` is set.

The stopping rules and their order follow scikit-learn's tree builders, so the
univariate splitter grows scikit-learn's tree: a node is a leaf when it is at
``max_depth``, has fewer than ``min_samples_split`` samples, fewer than
``2 * min_samples_leaf`` samples or ``2 * min_weight_leaf`` weight, is pure, has
no valid split, or its best split decreases the weighted impurity by less than
``min_impurity_decrease``. Nodes are numbered in preorder (a node, its left subtree, its right subtree) when
growing depth first, and in creation order when growing best first; either way
children have larger ids than their parent.

With more than one kernel thread, depth-first growth of a splitter that allows it
works on several nodes at once: the root (and the next nodes, while there are
fewer of them than threads) is split with every thread inside its search; then
as many Python threads as the fit has, each with one kernel thread (the kernels
release the GIL), take the largest node left (fewer threads while concurrent
fits hold the process's threads): a node holding more than a share of the
samples is split and its children go back to the pool, a smaller one has its
whole subtree grown. The pieces are stitched together in preorder. A node's
split depends only on its samples, so the tree is the same as with one thread.

Missing values: a node whose training samples include one missing a feature of
its test (NaN) keeps the side the splitter chose for them
(``Split.missing_left``); a node that saw none sends missing values to the
child with more training weight, the right one on equal weights (the rule of
:func:`bivtree.tree.default_missing_left`, scikit-learn's with weights in place
of sample counts).

Monotonic constraints (``monotone``, a :class:`~bivtree.constraints.MonotoneGrowth`):
every node carries the bounds of its value, which its splitter is given (the
splits it returns are admissible for them), which its value is clipped to, and
which its children inherit or split at the mean of their values when its test
orders them, as in scikit-learn's builders.
"""

import heapq
import threading
import time

import numba
import numpy as np

from ._config import IMPURITY_EPSILON, ITYPE, NO_FEATURE, TREE_LEAF, TREE_UNDEFINED
from ._kernels.criteria import summarize_samples
from ._kernels.traversal import split_node_samples
from ._threads import check_interrupt, threads_over_budget
from .constraints import UNBOUNDED
from .tree import MASK_DTYPE, Tree, default_missing_left


class _NodeList:
    """Growing node arrays (one Python list per field), turned into a :class:`Tree` at the end.

    Lists per field rather than a record per node: the tree is assembled from
    whole lists at once, on one thread after the parallel growth.
    """

    def __init__(self, n_slots):
        self.n_slots = n_slots
        self.left, self.right, self.split, self.missing_left = [], [], [], []
        self.impurity, self.n, self.w, self.value = [], [], [], []

    def __len__(self):
        return len(self.left)

    def add(self, parent, is_left, n_samples, summary):
        value, weight, impurity = summary
        node = len(self.left)
        self.left.append(TREE_LEAF)
        self.right.append(TREE_LEAF)
        self.split.append(None)
        self.missing_left.append(False)
        self.impurity.append(impurity)
        self.n.append(n_samples)
        self.w.append(weight)
        self.value.append(value)
        if parent >= 0:
            (self.left if is_left else self.right)[parent] = node
        return node

    def set_split(self, node, split, missing_left):
        """Make ``node`` a decision node testing ``split`` (children added after)."""
        self.split[node] = split
        self.missing_left[node] = missing_left

    def append_subtree(self, parent, is_left, subtree):
        """Move ``subtree``'s nodes (in preorder, root first) here, ids shifted.

        ``subtree`` is left empty. Returns the id of its root.
        """
        offset = len(self.left)
        self.left.extend([c if c == TREE_LEAF else c + offset for c in subtree.left])
        self.right.extend([c if c == TREE_LEAF else c + offset for c in subtree.right])
        for name in ("split", "missing_left", "impurity", "n", "w", "value"):
            getattr(self, name).extend(getattr(subtree, name))
        subtree.__init__(subtree.n_slots)
        if parent >= 0:
            (self.left if is_left else self.right)[parent] = offset
        return offset

    def split_info(self):
        """Each node's ``Split.info`` (``None`` for a leaf)."""
        return [split.info if split is not None and left != TREE_LEAF else None
                for split, left in zip(self.split, self.left)]

    def to_tree(self, n_features, learned_missing=False):
        """The :class:`Tree`; with ``learned_missing`` (the data had NaN) the missing sides
        growth decided are stored, else the tree takes the default rule, which
        gives the same sides."""
        n, k = len(self.left), self.n_slots
        features = np.full((n, k), NO_FEATURE, dtype=ITYPE)
        weights = np.zeros((n, k))
        threshold = np.full(n, TREE_UNDEFINED)
        category_mask = np.zeros((n, k), dtype=MASK_DTYPE)
        missing_left = np.zeros(n, dtype=bool)
        left = np.array(self.left, dtype=ITYPE)
        # whole arrays at once (a tree of 10^6 rows has 10^5 nodes, and this runs on one
        # thread after the parallel growth)
        decision = [i for i, (split, child) in enumerate(zip(self.split, self.left))
                    if split is not None and child != TREE_LEAF]
        splits = [self.split[i] for i in decision]
        if splits:
            # a split may list unused slots beyond the tree's (a univariate one: [f, -1])
            width = max(k, max(split.features.shape[0] for split in splits))
            split_features = np.full((len(splits), width), NO_FEATURE, dtype=ITYPE)
            split_weights = np.zeros((len(splits), width))
            split_masks = np.zeros((len(splits), width), dtype=MASK_DTYPE)
            for r, split in enumerate(splits):
                m = split.features.shape[0]
                split_features[r, :m] = split.features
                split_weights[r, :m] = split.weights
                split_masks[r, :m] = split.category_mask
            # used slots first, in their order (a stable sort of "unused"), then the tree's k
            slots = np.argsort(split_features < 0, axis=1, kind="stable")[:, :k]
            used_features = np.take_along_axis(split_features, slots, axis=1)
            features[decision] = used_features
            weights[decision] = np.where(used_features >= 0,
                                         np.take_along_axis(split_weights, slots, axis=1), 0.0)
            threshold[decision] = [split.threshold for split in splits]
            category_mask[decision] = np.where(used_features >= 0,
                                               np.take_along_axis(split_masks, slots, axis=1), 0)
            missing_left[decision] = np.array(self.missing_left, dtype=bool)[decision]
        return Tree(
            left, self.right, features, weights, threshold, self.impurity, self.n, self.w,
            np.concatenate(self.value).reshape(n, -1), n_features, category_mask,
            missing_left if learned_missing else None)


#: a subtree grown on its own thread has at least this many samples at its root; smaller
#: trees are grown on one thread.
PARALLEL_MIN_SUBTREE = 1000
#: nodes holding more than ``1 / (SUBTREE_SHARE * threads)`` of the samples are split one at
#: a time and their children handed on; smaller ones are grown whole by one thread. Small
#: enough that the last subtrees, started when the others are done, leave little idle time.
SUBTREE_SHARE = 4


class _Aborted(Exception):
    """Raised in a thread growing a subtree when another one failed."""


class _Pending:
    """A node of the top of a tree grown in parallel: its samples ``[start, end)``, and
    either its split and two children, a subtree grown on a thread, or neither (a leaf)."""

    __slots__ = ("bounds", "children", "depth", "end", "missing_left", "split", "start",
                 "subtree", "summary")

    def __init__(self, start, end, depth, summary, bounds=None):
        self.start, self.end, self.depth, self.summary = start, end, depth, summary
        self.bounds = bounds
        self.split = self.children = self.subtree = None
        self.missing_left = False


class TreeGrower:
    """Grow a tree with a splitter under scikit-learn's stopping rules.

    Parameters
    ----------
    splitter : Splitter
    max_depth : int
    min_samples_split : int
    min_samples_leaf : int
    min_weight_leaf : float
    min_impurity_decrease : float
    max_leaf_nodes : int or None
        When set, nodes are expanded best first (largest impurity decrease).
    sample_features : callable
        Returns the sorted candidate features for the next node.
    draws_features : bool
        Whether ``sample_features`` draws at random: the draws' order then
        fixes the tree, so it is grown on one thread.
    n_slots : int
        Feature slots per node in the resulting tree.
    verbose : int
    monotone : MonotoneGrowth or None
        Under monotonic constraints, the bounds of the nodes' values (see the
        module); ``None``: no bounds, and splitters are called without them.
    """

    def __init__(self, splitter, *, max_depth, min_samples_split, min_samples_leaf,
                 min_weight_leaf, min_impurity_decrease, max_leaf_nodes, sample_features,
                 n_slots, draws_features=False, verbose=0, monotone=None):
        self.splitter = splitter
        self.max_depth = max_depth
        self.min_samples_split = min_samples_split
        self.min_samples_leaf = min_samples_leaf
        self.min_weight_leaf = min_weight_leaf
        self.min_impurity_decrease = min_impurity_decrease
        self.max_leaf_nodes = max_leaf_nodes
        self.sample_features = sample_features
        self.draws_features = draws_features
        self.n_slots = n_slots
        self.verbose = verbose
        self.monotone = monotone

    # ------------------------------------------------------------------ helpers
    def _summary(self, data, samples):
        return summarize_samples(samples, data.labels, data.targets, data.sample_weight,
                                 data.n_classes, data.criterion)

    def _is_leaf_before_split(self, depth, n_samples, summary):
        _, weight, impurity = summary
        return (depth >= self.max_depth or n_samples < self.min_samples_split
                or n_samples < 2 * self.min_samples_leaf
                or weight < 2 * self.min_weight_leaf
                or impurity <= IMPURITY_EPSILON)

    def _split(self, data, samples, start, end, summary, w_root, bounds=None):
        """Search and apply the best split of ``samples[start:end]`` (of value ``bounds``).

        Returns ``(split, mid, left_summary, right_summary, improvement,
        missing_left, left_bounds, right_bounds)`` or ``None`` when the node
        stays a leaf; under monotonic constraints the children's values are
        clipped to their bounds.
        """
        check_interrupt()  # Ctrl-C held back during the fit is raised between nodes
        node_samples, features = samples[start:end], self.sample_features()
        if bounds is None:
            split = self.splitter.find_split(data, node_samples, features)
        else:
            split = self.splitter.find_split(data, node_samples, features, bounds)
        if split is None:
            return None
        mid, left, right, missing = split_node_samples(
            data.X, samples, start, end, split.features, split.weights, split.threshold,
            split.category_mask, split.missing_left, data.labels, data.targets,
            data.sample_weight, data.n_classes, data.criterion, data.has_missing)
        if mid == start or mid == end:  # a rule that separates nothing is no split
            return None
        missing_left = split.missing_left
        if not missing:
            # no training sample missed a value here: the heavier child takes them
            missing_left = default_missing_left(left[1], right[1])
        _, w, impurity = summary
        improvement = (w / w_root) * (
            impurity - left[1] / w * left[2] - right[1] / w * right[2])
        if improvement + IMPURITY_EPSILON < self.min_impurity_decrease:
            return None
        left_bounds = right_bounds = None
        if self.monotone is not None:
            left_bounds, right_bounds = self.monotone.children(split, bounds, left, right)
            left = self.monotone.clip(left, left_bounds)
            right = self.monotone.clip(right, right_bounds)
        return split, mid, left, right, improvement, missing_left, left_bounds, right_bounds

    def _progress(self, nodes, t0, force=False):
        if self.verbose and (force or len(nodes) % 100 == 0):
            print(f"[bivtree] {len(nodes)} nodes, {time.perf_counter() - t0:.1f} s",
                  flush=True)

    # --------------------------------------------------------------------- grow
    def grow(self, data, samples):
        """Grow a tree on ``samples`` (ids with positive weight); returns a Tree."""
        samples = np.ascontiguousarray(samples, dtype=ITYPE)
        self.splitter.prepare(data)
        nodes = _NodeList(self.n_slots)
        t0 = time.perf_counter()
        root = self._summary(data, samples)
        n_threads = numba.get_num_threads()
        if self.max_leaf_nodes is not None:
            self._grow_best_first(data, samples, nodes, root, t0)
        elif (n_threads > 1 and self.splitter.parallel_subtrees and not self.draws_features
              and samples.shape[0] >= 2 * PARALLEL_MIN_SUBTREE):
            self._grow_subtrees_in_parallel(data, samples, nodes, root, n_threads, t0)
        else:
            self._grow_depth_first(data, samples, nodes, self._root(samples, root), root[1], t0)
        self._progress(nodes, t0, force=True)
        # what the splitter reported about each decision node's search
        self.split_info = nodes.split_info()
        return nodes.to_tree(data.n_features, data.has_missing)

    def _root(self, samples, summary):
        """The root as a pending node: every sample, unbounded under monotonic constraints."""
        return _Pending(0, samples.shape[0], 0, summary,
                        None if self.monotone is None else UNBOUNDED)

    def _grow_depth_first(self, data, samples, nodes, top, w_root, t0, abort=None):
        """Grow the subtree of ``top`` depth first into ``nodes`` (ids in preorder).

        ``abort`` (a threading.Event), when given, stops the growth at the next
        node once it is set.
        """
        stack = [(top.start, top.end, top.depth, -1, False, top.summary, top.bounds)]
        while stack:
            if abort is not None and abort.is_set():
                raise _Aborted
            start, end, depth, parent, is_left, summary, bounds = stack.pop()
            node = nodes.add(parent, is_left, end - start, summary)
            if abort is None:
                self._progress(nodes, t0)
            if self._is_leaf_before_split(depth, end - start, summary):
                continue
            result = self._split(data, samples, start, end, summary, w_root, bounds)
            if result is None:
                continue
            split, mid, left, right, _, missing_left, left_bounds, right_bounds = result
            nodes.set_split(node, split, missing_left)
            # right pushed first so the left subtree is numbered first (preorder)
            stack.append((mid, end, depth + 1, node, False, right, right_bounds))
            stack.append((start, mid, depth + 1, node, True, left, left_bounds))

    def _grow_subtrees_in_parallel(self, data, samples, nodes, root, n_threads, t0):
        """Depth-first growth with ``n_threads`` threads, nodes at once (see the module)."""
        w_root = root[1]
        # nodes above this size are split one at a time; below it, whole subtrees are grown
        share = max(PARALLEL_MIN_SUBTREE, samples.shape[0] // (SUBTREE_SHARE * n_threads))
        top = self._root(samples, root)
        pending = [top]
        # while there are fewer large nodes than threads, a thread per node would leave
        # some idle: the largest is split here, with every thread inside its search
        while 0 < len(pending) < n_threads:
            if pending[-1].end - pending[-1].start <= share:
                break  # the threads grow the rest as whole subtrees
            node = pending.pop()
            if self._split_pending(data, samples, node, w_root):  # else a leaf
                pending.extend(node.children)
                pending.sort(key=lambda node: node.end - node.start)
        grown = self._grow_pending(data, samples, pending, share, w_root, n_threads, t0)
        # stitched in preorder, as one thread numbers them
        stack = [(top, -1, False)]
        while stack:
            node, parent, is_left = stack.pop()
            if node.subtree is not None:
                nodes.append_subtree(parent, is_left, grown[node.subtree])
                continue
            index = nodes.add(parent, is_left, node.end - node.start, node.summary)
            if node.children is not None:
                nodes.set_split(index, node.split, node.missing_left)
                stack.append((node.children[1], index, False))
                stack.append((node.children[0], index, True))

    def _split_pending(self, data, samples, node, w_root):
        """Split the large pending ``node`` in place; False when it stays a leaf."""
        if self._is_leaf_before_split(node.depth, node.end - node.start, node.summary):
            return False
        result = self._split(data, samples, node.start, node.end, node.summary, w_root,
                             node.bounds)
        if result is None:
            return False
        node.split, mid, left, right, _, node.missing_left, left_bounds, right_bounds = result
        node.children = (_Pending(node.start, mid, node.depth + 1, left, left_bounds),
                         _Pending(mid, node.end, node.depth + 1, right, right_bounds))
        return True

    def _grow_pending(self, data, samples, pending, share, w_root, n_threads, t0):
        """Grow every node of ``pending`` on ``n_threads`` threads, largest first.

        Each thread uses one kernel thread and takes the largest node left: a
        node over ``share`` samples is split and its children go back to the
        pending nodes; a smaller one has its whole subtree grown, and its
        ``subtree`` set to the index of that node list in the returned list.
        Splitting large nodes one per thread, rather than one at a time with
        every thread inside the search, keeps the threads busy from the top of
        the tree down. While fits running beside this one hold more threads than
        the process has (:func:`~bivtree._threads.threads_over_budget`), the
        extra threads take no new node, so the cores are not oversubscribed. If
        one thread fails (or Ctrl-C stops it), the others stop at their next
        node and the error is raised.
        """
        pending = sorted(pending, key=lambda node: node.end - node.start)
        grown = []
        abort = threading.Event()
        changed = threading.Condition()
        errors = []
        busy = 0  # threads splitting a large node, whose children are still to come

        def take(index):
            """The next node for thread ``index``, or None when there is none left."""
            nonlocal busy
            with changed:
                while not abort.is_set():
                    resting = index > 0 and index >= n_threads - threads_over_budget()
                    if pending and not resting:
                        node = pending.pop()  # the largest
                        if node.end - node.start > share:
                            busy += 1
                        return node
                    if not pending and busy == 0:
                        return None
                    # another fit holds the cores this thread would use, or a thread
                    # splitting a large node will add its children
                    changed.wait(0.01)
                return None

        def work(index):
            nonlocal busy
            numba.set_num_threads(1)  # per thread in numba: the fit's threads share the nodes
            while (node := take(index)) is not None:
                large = node.end - node.start > share
                try:
                    if large:
                        split = self._split_pending(data, samples, node, w_root)
                    else:
                        subtree = _NodeList(self.n_slots)
                        self._grow_depth_first(data, samples, subtree, node, w_root, t0,
                                               abort=abort)
                except BaseException as error:  # raised by the calling thread  # noqa: BLE001
                    with changed:
                        errors.append(error)
                        abort.set()  # the other threads stop at their next node
                        changed.notify_all()
                    return
                with changed:
                    if large:
                        busy -= 1
                        if split:
                            pending.extend(node.children)
                            pending.sort(key=lambda node: node.end - node.start)
                    else:
                        node.subtree = len(grown)
                        grown.append(subtree)
                    changed.notify_all()

        threads = [threading.Thread(target=work, args=(k,), name=f"bivtree-grow_{k}",
                                    daemon=True) for k in range(n_threads)]
        for thread in threads:
            thread.start()
        self._join_reporting(threads, grown, t0)
        if errors:
            # the error that stopped the growth, not a thread's stop on seeing it
            real = [e for e in errors if not isinstance(e, _Aborted)]
            raise (real or errors)[0]
        return grown

    def _join_reporting(self, threads, grown, t0):
        """Wait for the growing ``threads``, reporting the subtrees ``grown`` so far when
        ``verbose``."""
        reported = 0
        for thread in threads:
            while thread.is_alive():
                thread.join(0.1)
                done = len(grown)
                if self.verbose and done > reported:
                    reported = done
                    n_nodes = sum(len(g) for g in list(grown))
                    print(f"[bivtree] {n_nodes} nodes in {done} subtrees, "
                          f"{time.perf_counter() - t0:.1f} s", flush=True)

    def _grow_best_first(self, data, samples, nodes, root, t0):
        w_root = root[1]
        frontier = []
        counter = 0

        def add(start, end, depth, parent, is_left, summary, bounds):
            nonlocal counter
            node = nodes.add(parent, is_left, end - start, summary)
            result = None
            if not self._is_leaf_before_split(depth, end - start, summary):
                result = self._split(data, samples, start, end, summary, w_root, bounds)
            improvement = 0.0 if result is None else result[4]
            # largest improvement first; ties by creation order (deterministic)
            heapq.heappush(frontier, (-improvement, counter, node, start, end, depth, result))
            counter += 1

        top = self._root(samples, root)
        add(0, samples.shape[0], 0, -1, False, root, top.bounds)
        max_split_nodes = self.max_leaf_nodes - 1
        while frontier:
            _, _, node, start, end, depth, result = heapq.heappop(frontier)
            if result is None or max_split_nodes <= 0:
                continue
            split, mid, left, right, _, missing_left, left_bounds, right_bounds = result
            nodes.set_split(node, split, missing_left)
            max_split_nodes -= 1
            add(start, mid, depth + 1, node, True, left, left_bounds)
            add(mid, end, depth + 1, node, False, right, right_bounds)
            self._progress(nodes, t0)
