"""The default search: bivariate CART's directions where they are cheap, coarse-to-fine elsewhere.

At every node:

1. the exact univariate search runs over every candidate feature (all samples);
2. if scanning ``n_orientations`` directions of every feature pair costs at
   most ``exhaustive_work`` sample scans (small nodes), the node gets exactly
   the ``"orientations"`` search (bivariate CART);
3. otherwise only the pairs among the ``max_pair_features`` features with the
   best univariate cuts (fewer on nodes of a few samples) are searched, and the
   pairs of the ``n_anchors`` best of them with every other varying feature (a
   feature weak alone may still tilt the best cut well): ``n_coarse`` angles
   each, then the ``n_refine`` best pairs are refined by step halving for ``n_rounds`` rounds
   (:mod:`bivtree._kernels.angle_search`), down to an angular resolution of
   ``180 / (n_coarse 2^(n_rounds+1))`` degrees (0.56 degrees by default, against
   ``180 / n_orientations`` = 6 degrees for the fixed directions). The angles
   are those of the pair's decorrelated frame on the node (its two scaled
   features standardized and whitened), so that the narrow sector of useful
   directions across two strongly correlated features is sampled as evenly as
   any other. Nodes with
   more than ``max_scan_samples`` samples choose their directions on that many
   samples spread evenly over the node; each refined candidate then gets its
   exact best threshold on all of the node's samples.

Every bivariate candidate is re-scanned as the rule it is stored as and kept
only if it beats the best univariate split (as in every bivariate splitter).

Lookahead: in a tree grown to purity (the estimators' default: no
``max_depth``, ``max_leaf_nodes``, ``min_samples_split`` or
``min_impurity_decrease`` limit), a classification node of at most
``lookahead_samples`` samples (64 by default) does not simply take the best of
these candidates (steps 1-3 are the *one-step search*). Its candidates are the best split, the other refined
bivariate candidates that beat the best univariate split (step 3 scores them
all on the whole node), and the best univariate split (the first
``lookahead_candidates`` of them, 2 by default; 0: all); below each, the
one-step search grows both children down to pure leaves (or nodes without a
valid split), and the candidate with the fewest leaves wins, ties to the
earlier one (the one-step best first). An unpruned tree's leaves are mostly
those of its small nodes, where the best impurity decrease is a poor guide to
how many more cuts a child needs. Every node's candidates and leaf count are
remembered for the fit, so a node the lookahead has searched is not searched
again when the tree is grown there. On the sets of
``benchmarks/bench_peers.py`` the defaults (with ``max_pair_features=10``) grow
unpruned trees with 1.6 % fewer leaves than without the lookahead
(``max_pair_features=12``) at the same mean accuracy and about the same CPU
time; ``lookahead_samples=256`` with every candidate counted gives about 7 %
fewer leaves for about three times the CPU time. The lookahead grows its
subtrees to purity, so a tree with one of those limits gets the one-step
search unless ``lookahead_samples`` is set; ``lookahead_samples=0`` turns it
off.
Regression nodes (whose greedy subtrees end at single target values) skip it.
The chosen split's ``info`` records ``lookahead_rank`` (0: the one-step best),
``lookahead_leaves`` and ``lookahead_candidates``.

Guarantees: the split is never worse than the exact best univariate split (a
bivariate split is chosen only if it beats it); without lookahead (regression,
larger nodes, or ``lookahead_samples=0``) it is the one-step search's best
split, which on nodes searched exhaustively is the ``"orientations"`` split;
with lookahead, the one-step search grows no more leaves below the chosen
split than below the one-step best; the result depends neither on the thread
count nor on the run. It is not the optimal
bivariate split (``"optimal"`` is), and on large nodes it may miss a pair of two
features weak alone, or a direction that only the full sample would rank
first.

Missing values (NaN): every scan scores the samples missing a feature of the
candidate on both sides (:mod:`bivtree._kernels.scan`), scalings use the known
values, and a coarse angle of a pair with missing values is ranked by the exact
scan rather than the histogram.

Constraints (:mod:`bivtree.constraints`): the univariate search is exact among
the admissible cuts; only the pairs the interaction groups allow are scanned
(screened as before, then the disallowed pairs dropped); a pair of two
monotonically constrained features spreads its coarse angles over the
directions whose signs agree (a quarter-turn of the scaled plane), and every
scan keeps the cuts its rule's order admits within the node's bounds. A fit
with monotonic constraints takes the one-step search everywhere: the
lookahead's subtrees would need the bounds of nodes not grown yet.
"""

import hashlib
import math
from typing import ClassVar

import numpy as np
from numba import njit
from numba.extending import register_jitable

from .._config import IMPURITY_EPSILON, NUMBA_OPTS, SQUARED_ERROR
from .._kernels.angle_search import coarse_to_fine_search, screened_pairs
from .._kernels.criteria import summarize_samples
from .._kernels.pair_scaling import NodeScaling, node_min_max_scaling
from .._kernels.traversal import split_node_samples
from .._threads import CHUNK_WORK, check_interrupt, threads_for_work
from .._validation import Integral, Interval, Options, check_params
from ..constraints import UNBOUNDED
from ._base import BEATS_TOLERANCE, Splitter, make_split, register
from ._pairs import best_direction_split, bivariate_if_better, finish_bivariate
from .orientations import orientation_directions
from .univariate import (
    FeatureCuts,
    univariate_cuts,
    univariate_search,
    univariate_split_from_cuts,
)

#: the lookahead's node size when the tree grows to purity (``lookahead_samples="auto"``)
LOOKAHEAD_SAMPLES = 64

#: nodes of fewer samples are counted again rather than remembered (cheap, and most nodes)
_CACHED_NODE_SIZE = 8

#: the largest int64, and a bound under which the compiled search's products of counts stay
_INT64_MAX = 2**63 - 1
_INT64_LIMIT = 2**62


def spread_rows(samples, size):
    """``size`` of ``samples`` evenly spread over them (all when there are no more)."""
    n = samples.shape[0]
    if n <= size:
        return samples
    return samples[(np.arange(size, dtype=np.int64) * n) // size]


def node_key(samples, feature_key):
    """A node's key in the lookahead's caches: its samples (in order) and candidate features."""
    return hashlib.blake2b(samples.tobytes() + feature_key, digest_size=16).digest()


def split_samples(data, samples, split):
    """The samples going left and right of ``split`` (a partitioned copy), and their impurities."""
    order = samples.copy()
    mid, left, right, _ = split_node_samples(
        data.X, order, 0, order.shape[0], split.features, split.weights, split.threshold,
        split.category_mask, split.missing_left, data.labels, data.targets, data.sample_weight,
        data.n_classes, data.criterion, False)
    return (order[:mid], order[mid:]), (left[2], right[2])


def with_univariate(candidates, univariate, n_candidates):
    """``candidates`` (best first), then ``univariate`` if not first and there is room.

    ``n_candidates``: the most candidates wanted (0: all of them).
    """
    room = n_candidates == 0 or len(candidates) < n_candidates
    if room and univariate is not None and candidates[0] is not univariate:
        return [*candidates, univariate]
    return candidates


@register_jitable
def focused_pairs(n_varying, screen, n_anchors):
    """Pairs the focused search scans when ``screen`` of ``n_varying`` features are screened:
    those among them, and those of the ``n_anchors`` best with the others."""
    m = min(n_varying, screen)
    return m * (m - 1) // 2 + min(n_anchors, m) * (n_varying - m)


@register_jitable
def focused_work(n_varying, screen, n_anchors, n_coarse, n_refine, n_rounds):
    """Projections the coarse-to-fine search scans when ``screen`` of ``n_varying`` features
    are screened: its pairs at ``n_coarse`` angles each, and ``n_refine`` climbs of
    ``n_rounds`` rounds (plain Python when called from Python: it runs at every node)."""
    return (focused_pairs(n_varying, screen, n_anchors) * n_coarse
            + 2 * n_refine * n_rounds)


#: the columns of the candidates :func:`focused_node_search` returns, one row each: the rule
#: ``x_first + weight x_second <= threshold`` (``first`` -1: no split; ``second`` -1: a
#: univariate split on ``first``), its weighted child impurity ``objective``, the side of
#: missing values, and for a bivariate rule its refined candidate ``direction`` of the
#: coarse-to-fine search and its ``angle`` (radians). One float array: every array a
#: compiled call returns costs Python time to box.
CANDIDATE_COLUMNS = ("first", "second", "weight", "threshold", "objective", "missing_left",
                     "direction", "angle")
_FIRST, _SECOND, _WEIGHT, _THRESHOLD, _OBJECTIVE, _MISSING_LEFT, _DIRECTION, _ANGLE = range(8)


@njit(**NUMBA_OPTS)
def _no_candidates(size):
    """``size`` rows of :data:`CANDIDATE_COLUMNS`, each no split."""
    out = np.zeros((size, len(CANDIDATE_COLUMNS)))
    out[:, _FIRST] = -1.0
    out[:, _SECOND] = -1.0
    out[:, _DIRECTION] = -1.0
    return out


@njit(**NUMBA_OPTS)
def _put_univariate(out, i, feature, threshold, objective, missing_left):
    """Row ``i`` of ``out``: the univariate split ``x_feature <= threshold``."""
    out[i, _FIRST] = feature
    out[i, _THRESHOLD] = threshold
    out[i, _OBJECTIVE] = objective
    out[i, _MISSING_LEFT] = missing_left


@njit(**NUMBA_OPTS)
def _put_refined(out, i, found, c, pair_j, pair_k):
    """Row ``i`` of ``out``: refined candidate ``c`` of ``found`` (its stored rule)."""
    q = found.pairs[c]
    out[i, _FIRST] = pair_j[q]
    out[i, _SECOND] = pair_k[q]
    out[i, _WEIGHT] = found.weights[c]
    out[i, _THRESHOLD] = found.thresholds[c]
    out[i, _OBJECTIVE] = found.base - found.proxies[c]
    out[i, _MISSING_LEFT] = found.missing_left[c]
    out[i, _DIRECTION] = c
    out[i, _ANGLE] = found.angles[c]


@njit(**NUMBA_OPTS)
def _ranked_refined(found, has_univariate, u_objective):
    """The refined candidates with a valid cut, best first (ties: coarse order), and for
    each whether it is a rule that beats the univariate split (``u_objective``)."""
    order = np.argsort(-found.proxies, kind="mergesort")  # stable
    tolerance = BEATS_TOLERANCE * max(found.w_node, abs(found.base))
    beats = np.zeros(order.shape[0], dtype=np.bool_)
    n_ranked = 0
    for c in order.copy():
        if not math.isfinite(found.proxies[c]):
            continue
        order[n_ranked] = c
        n_ranked += 1
        w = found.weights[c]
        beats[c] = (math.isfinite(w) and w != 0.0 and (
            not has_univariate or found.base - found.proxies[c] < u_objective - tolerance))
    return order[:n_ranked], beats


@njit(**NUMBA_OPTS)
def allowed_pairs(pair_j, pair_k, allowed):
    """The pairs ``allowed`` (an interaction matrix; shape ``(0, 0)``: every pair) lets share
    a test, in their order."""
    if allowed.shape[0] == 0:
        return pair_j, pair_k
    keep = np.empty(pair_j.shape[0], dtype=np.bool_)
    for q in range(pair_j.shape[0]):
        keep[q] = allowed[pair_j[q], pair_k[q]]
    return pair_j[keep], pair_k[keep]


@njit(**NUMBA_OPTS)
def focused_node_search(X, samples, features, labels, targets, sample_weight, n_classes,
                        criterion, min_samples_leaf, min_weight_leaf, n_directions,
                        exhaustive_work, screen, n_anchors, n_coarse, n_bins, n_refine,
                        n_rounds, n_candidates, cst, lower, upper, allowed):
    """The one-step search of a node scanned whole, in one compiled call.

    Steps 1 and 3 of the module's search on all of ``samples``, and the choice
    of candidates :meth:`AutoSplitter._coarse_to_fine` makes among the refined
    directions (every bivariate one must beat the univariate split, by
    :data:`~bivtree.splitters._base.BEATS_TOLERANCE` as in
    :func:`~bivtree.splitters._pairs.bivariate_if_better`): a node's Python only
    builds the splits. Each call into compiled code and each line of Python is
    time during which a fit's other growing threads may wait for the GIL.
    ``cst``, ``lower``, ``upper`` and ``allowed`` are the constraints (the
    monotonic constraint of every feature, the node's bounds, the interaction
    matrix; see the module).

    Returns
    -------
    tuple
        ``(exhaustive, candidates, n_pairs, cuts, base, scaling)``. When
        ``exhaustive`` is true the node gets the exhaustive search instead (it
        costs at most the focused one, or fits in ``exhaustive_work``), and the
        univariate search is ``cuts`` (rows: the proxies, thresholds and
        missing sides of :class:`~bivtree.splitters.univariate.FeatureCuts`),
        ``base`` its node constant, and ``scaling`` the node's min-max scaling
        (rows: offset and inverse scale). Otherwise the rows of ``candidates``
        (columns :data:`CANDIDATE_COLUMNS`) are the candidates, best first, as
        :meth:`AutoSplitter._search` lists them, among ``n_pairs`` pairs.
    """
    n = samples.shape[0]
    proxies, thresholds, base, missing = univariate_search(
        X, samples, features, labels, targets, sample_weight, n_classes, criterion,
        min_samples_leaf, min_weight_leaf, cst, lower, upper)
    offset, inv_scale = node_min_max_scaling(X, samples, features)
    # the best univariate split: the first maximum (lowest feature on ties)
    u_best = np.argmax(proxies) if proxies.shape[0] > 0 else 0
    has_univariate = proxies.shape[0] > 0 and math.isfinite(proxies[u_best])
    u_objective = base - proxies[u_best] if has_univariate else 0.0
    n_varying = 0
    for f in features:
        n_varying += inv_scale[f] > 0
    exhaustive = n_varying * (n_varying - 1) // 2 * n_directions
    focused = focused_work(n_varying, screen, n_anchors, n_coarse, n_refine, n_rounds)
    if exhaustive <= focused or n * exhaustive <= exhaustive_work:
        cuts = np.empty((3, proxies.shape[0]))
        cuts[0], cuts[1], cuts[2] = proxies, thresholds, missing
        scaling = np.empty((2, offset.shape[0]))
        scaling[0], scaling[1] = offset, inv_scale
        return True, _no_candidates(0), 0, cuts, base, scaling
    pair_j, pair_k = screened_pairs(features, proxies, inv_scale, screen,
                                    min(n_anchors, n_varying))
    pair_j, pair_k = allowed_pairs(pair_j, pair_k, allowed)
    if pair_j.shape[0] == 0:
        ranked, beats = np.zeros(0, dtype=np.int64), np.zeros(0, dtype=np.bool_)
    else:
        found = coarse_to_fine_search(X, samples, pair_j, pair_k, inv_scale, n_coarse, n_bins,
                                      n_rounds, n_refine, labels, targets, sample_weight,
                                      n_classes, criterion, min_samples_leaf, min_weight_leaf,
                                      cst, lower, upper)
        ranked, beats = _ranked_refined(found, has_univariate, u_objective)
    out = _no_candidates(ranked.shape[0] + 2)
    # first the best split: the best refined candidate if it beats the univariate split
    best_c = ranked[0] if ranked.shape[0] > 0 and beats[ranked[0]] else -1
    if best_c >= 0:
        _put_refined(out, 0, found, best_c, pair_j, pair_k)
    elif has_univariate:
        _put_univariate(out, 0, features[u_best], thresholds[u_best], u_objective,
                        missing[u_best])
    count = 1  # (no split at all: entry 0 stays "no split")
    # then the other refined candidates that beat the univariate split
    for c in ranked:
        if n_candidates and count >= n_candidates:
            return False, out[:count], pair_j.shape[0], np.zeros((0, 0)), 0.0, np.zeros((0, 0))
        if c != best_c and beats[c]:
            _put_refined(out, count, found, c, pair_j, pair_k)
            count += 1
    # the univariate split last, when it is not the best and there is room
    if best_c >= 0 and has_univariate and (n_candidates == 0 or count < n_candidates):
        _put_univariate(out, count, features[u_best], thresholds[u_best], u_objective,
                        missing[u_best])
        count += 1
    return False, out[:count], pair_j.shape[0], np.zeros((0, 0)), 0.0, np.zeros((0, 0))


@register
class AutoSplitter(Splitter):
    """The default bivariate search: exhaustive on small nodes, coarse-to-fine on large ones.

    Parameters
    ----------
    n_orientations : int, default=30
        Directions per pair of the exhaustive search on small nodes (``"orientations"``).
    exhaustive_work : int, default=0
        A node gets the exhaustive search when ``n_samples * n_pairs * n_directions``
        is at most this.
    max_pair_features : int, default=10
        Otherwise, the pairs among this many features (best univariate cuts) are
        searched; nodes of fewer than ``2 * max_pair_features`` samples screen half
        as many features as they have samples, at least 4.
    n_anchors : int, default=1
        The pairs of this many of the screened features (the best ones) with
        every other varying feature are searched too.
    n_coarse : int, default=5
        Angles per pair in the coarse phase.
    n_bins : int, default=32
        Nodes with more than ``2 * n_bins`` samples rank the coarse angles by a
        histogram scan instead of a sort, over ``n_bins`` bins or one per 16
        rows, up to 256 (0: always sort).
    n_refine : int, default=3
        Pairs refined after the coarse phase.
    n_rounds : int, default=5
        Step-halving rounds of the refinement.
    max_scan_samples : int, default=4096
        Larger nodes choose directions on this many of their samples.
    lookahead_samples : int or "auto", default="auto"
        Classification nodes of at most this many samples choose, among the
        one-step search's candidates (the best split, the other refined
        bivariate splits that beat the best univariate one, and that one), the
        split below which the one-step search grows the fewest leaves (0: no
        lookahead). ``"auto"``: 64 when the tree grows to purity
        (``grows_to_purity``), else 0.
    lookahead_candidates : int, default=2
        With the lookahead, count the leaves below the first this many
        candidates only (best first; 0: all of them).
    grows_to_purity : bool, default=True
        Whether the tree is grown until its leaves are pure: set by the
        estimators (false with ``max_depth``, ``max_leaf_nodes``,
        ``min_samples_split`` above 2 or ``min_impurity_decrease``).
    category_pairs : bool, default=True
        With categorical features (the estimators' ``categorical_features``),
        pair the indicator of each category (``[colour in {red}]``) with the
        numeric features and with the other indicators, so that a node may test
        ``x7 + 0.3 * [colour in {red}] <= 2`` or ``colour in {red} and size in
        {L}`` (:class:`~bivtree.splitters._categorical.WithCategories`). False:
        a categorical feature is tested alone, by its best category subset.
    """

    name = "auto"
    max_node_features = 2
    searches_pairs = True
    parallel_subtrees = True
    supports_constraints = True
    _parameter_constraints: ClassVar[dict] = {
        "n_orientations": [Interval(Integral, 1, None, closed="left")],
        "exhaustive_work": [Interval(Integral, 0, None, closed="left")],
        "max_pair_features": [Interval(Integral, 2, None, closed="left")],
        "n_anchors": [Interval(Integral, 0, None, closed="left")],
        "n_coarse": [Interval(Integral, 1, None, closed="left")],
        "n_bins": [Interval(Integral, 0, None, closed="left")],
        "n_refine": [Interval(Integral, 1, None, closed="left")],
        "n_rounds": [Interval(Integral, 0, None, closed="left")],
        "max_scan_samples": [Interval(Integral, 2, None, closed="left")],
        "lookahead_samples": [Interval(Integral, 0, None, closed="left"), Options(("auto",))],
        "lookahead_candidates": [Interval(Integral, 0, None, closed="left")],
        "grows_to_purity": ["boolean"],
        "category_pairs": ["boolean"],
    }
    estimator_params = ("n_orientations", "grows_to_purity")

    def __init__(self, n_orientations=30, exhaustive_work=0, max_pair_features=10, n_anchors=1,
                 n_coarse=5, n_bins=32, n_refine=3, n_rounds=5, max_scan_samples=4096,
                 lookahead_samples="auto", lookahead_candidates=2, grows_to_purity=True,
                 category_pairs=True):
        options = {"n_orientations": n_orientations, "exhaustive_work": exhaustive_work,
                   "max_pair_features": max_pair_features, "n_anchors": n_anchors,
                   "n_coarse": n_coarse,
                   "n_bins": n_bins,
                   "n_refine": n_refine, "n_rounds": n_rounds,
                   "max_scan_samples": max_scan_samples,
                   "lookahead_samples": lookahead_samples,
                   "lookahead_candidates": lookahead_candidates,
                   "grows_to_purity": grows_to_purity,
                   "category_pairs": category_pairs}
        check_params(f"the {self.name!r} splitter", options, self._parameter_constraints)
        if lookahead_samples == "auto":
            # the lookahead counts the leaves of trees grown to purity: a tree that
            # its limits stop earlier is not the one it would compare
            options["lookahead_samples"] = LOOKAHEAD_SAMPLES if grows_to_purity else 0
        for key, value in options.items():
            setattr(self, key, bool(value) if key in ("grows_to_purity", "category_pairs")
                    else int(value))
        self.dir_a, self.dir_b = orientation_directions(self.n_orientations)

    def pairs_searched(self, n_features):
        """The pairs among the screened features, or all when the exhaustive search is cheaper."""
        all_pairs = n_features * (n_features - 1) // 2
        focused = self._focused_work(n_features, self.max_pair_features)
        if self.exhaustive_work > 0 or all_pairs * self.dir_a.size <= focused:
            return all_pairs
        return focused_pairs(n_features, self.max_pair_features, self.n_anchors)

    def _screen_size(self, n):
        """Features screened at a node of ``n`` samples: ``max_pair_features``, fewer on tiny nodes.

        A node of a few samples has few distinct partitions to find, and such
        nodes are most of a large tree's nodes: half as many features as
        samples, at least 4.
        """
        return min(self.max_pair_features, max(4, n // 2))

    def _focused_work(self, n_varying, m):
        """Projections the coarse-to-fine search scans when ``m`` features are screened."""
        return focused_work(n_varying, m, self.n_anchors, self.n_coarse, self.n_refine,
                            self.n_rounds)

    def _counts_fit_int64(self, work, n, n_features):
        """Whether the compiled search's 64-bit integers hold this node's counts exactly.

        ``work``: the focused search's sample scans at the node. Options can be
        any Python int; the Python steps handle the others.
        """
        return (work < _INT64_LIMIT and n * n_features * n_features * self.dir_a.size < _INT64_LIMIT
                and max(self.n_coarse, self.n_refine, self.n_rounds) < _INT64_LIMIT)

    def _coarse_bins(self, n):
        """Bins of the coarse phase's histogram scans on ``n`` rows (0: exact scans).

        About 16 rows per bin on average, at least ``n_bins`` and at most 256
        bins; up to ``2 * n_bins`` rows the exact scan is used.
        """
        if self.n_bins == 0 or n <= 2 * self.n_bins:
            return 0
        return min(256, max(self.n_bins, n // 16))

    def find_split(self, data, samples, features, bounds=UNBOUNDED):
        if (samples.shape[0] > self.lookahead_samples or data.criterion == SQUARED_ERROR
                or data.constraints.has_monotonic):
            return self._search(data, samples, features, bounds=bounds)[0]
        candidates = self._candidates(data, samples, features)
        if self.lookahead_candidates:
            candidates = candidates[:self.lookahead_candidates]
        if len(candidates) < 2:
            return candidates[0]
        # the fewest leaves below; ties go to the earlier candidate (the best one first), so
        # a later one is counted only until it cannot have fewer
        rank, fewest = 0, None
        for i, split in enumerate(candidates):
            children, impurities = split_samples(data, samples, split)
            if children[0].size == 0 or children[1].size == 0:
                continue  # separates nothing: the grower would make the node a leaf
            budget = None if fewest is None else fewest - 1
            leaves = self._greedy_leaves(data, children, features, budget, impurities)
            if fewest is None or leaves < fewest:
                rank, fewest = i, leaves
        chosen = candidates[rank]
        if fewest is None:
            return chosen
        chosen.info.update(lookahead_rank=rank, lookahead_leaves=fewest,
                           lookahead_candidates=len(candidates))
        return chosen

    def _candidates(self, data, samples, features, key=None):
        """The one-step search's candidates at a node of the lookahead, best first (remembered).

        A node's count and, later, the grower at that node ask for them; the
        list is kept by node (``key``: its :func:`node_key`, computed if not given).
        """
        wanted = self.lookahead_candidates
        if samples.shape[0] < _CACHED_NODE_SIZE:
            return self._search(data, samples, features, wanted)
        splits = self._lookahead_cache(data)[1]
        if key is None:
            key = node_key(samples, features.tobytes())
        candidates = splits.get(key)
        if candidates is None:
            candidates = splits[key] = self._search(data, samples, features, wanted)
        return candidates

    def prepare(self, data):
        """A new fit: forget the leaf counts and splits of the previous one."""
        self._lookahead = (data, {}, {})

    def _lookahead_cache(self, data):
        """Leaf counts and one-step best splits of this fit's lookahead, by node.

        ``(leaf counts, candidates)``, each keyed by :func:`node_key`. Below a
        node's chosen split the one-step trees of its candidates are searched
        again at each child, and the trees below the child's one-step best are
        parts of the tree already counted; a count cut short by its budget
        leaves its nodes' candidates, which a later count or the grower reuses. Both are kept
        for the fit (``prepare`` starts afresh; a fit on other data too).
        Threads growing subtrees at once share them: an entry is a node's exact
        count or split whichever thread writes it, so the tree does not depend
        on the threads.
        """
        cached = getattr(self, "_lookahead", None)
        if cached is None or cached[0] is not data:
            cached = self._lookahead = (data, {}, {})
        return cached[1], cached[2]

    def _greedy_leaves(self, data, nodes, features, budget=None, impurities=None):
        """Leaves of the trees that the one-step search grows on ``nodes`` down to pure leaves.

        The growth stops only where a node is pure or has no valid split
        (``min_samples_leaf``, ``min_weight_leaf``); the grower's other limits
        are not known here. With a ``budget``, the count stops as soon as it
        must exceed it (and returns more than ``budget``). ``impurities``: the
        nodes' impurities, when known. Iterative: a tree of ``n`` samples may be
        ``n`` levels deep.
        """
        cache = self._lookahead_cache(data)[0]
        feature_key = features.tobytes()
        if impurities is None:
            impurities = [summarize_samples(node, data.labels, data.targets, data.sample_weight,
                                            data.n_classes, data.criterion)[2]
                          for node in nodes]
        leaves = 0
        # ("visit", node, its impurity) or ("done", key, leaves before the node): a
        # post-order walk, so that every finished node's count goes to the cache
        stack = [("visit", node, impurity) for node, impurity in zip(nodes, impurities)]
        pending = len(stack)
        while stack:
            if budget is not None and leaves + pending > budget:
                return leaves + pending  # every node still to visit holds a leaf
            item = stack.pop()
            if item[0] == "done":
                cache[item[1]] = leaves - item[2]
                continue
            _, node, impurity = item
            pending -= 1
            key = None
            if node.size >= _CACHED_NODE_SIZE:
                key = node_key(node, feature_key)
                if key in cache:
                    leaves += cache[key]
                    continue
            split = None
            if impurity > IMPURITY_EPSILON:
                # the grower asks this node for its candidates if it gets there: search
                # them all now (a few more rescans) rather than again then
                split = self._candidates(data, node, features, key)[0]
            children = None if split is None else split_samples(data, node, split)
            if children is None or children[0][0].size == 0 or children[0][1].size == 0:
                leaves += 1
                continue
            if key is not None:
                stack.append(("done", key, leaves))
            stack.extend(("visit", child, child_impurity)
                         for child, child_impurity in zip(*children))
            pending += 2
        return leaves

    def _search(self, data, samples, features, n_candidates=1, bounds=UNBOUNDED):
        """The one-step search's first ``n_candidates`` candidates, best first (0: all).

        The candidates are the best split, then the other refined bivariate
        candidates that beat the best univariate split (on the whole node), then
        the best univariate split (when it is not the first); ``[None]`` when
        the node has no valid split. A node scanned whole in one compiled call
        (most nodes) is searched by :func:`focused_node_search`; a large one in
        parts, so that Ctrl-C stops the fit soon and its directions are chosen on
        a spread of its samples. ``bounds``: the node's, under monotonic
        constraints.
        """
        n, n_features = samples.shape[0], features.shape[0]
        constraints = data.constraints
        screen = self._screen_size(n)
        work = n * self._focused_work(n_features, screen)
        if (n <= self.max_scan_samples and n * n_features <= CHUNK_WORK
                and self._counts_fit_int64(work, n, n_features)):
            check_interrupt()
            with threads_for_work(max(n * n_features, work)):
                exhaustive, found, n_pairs, cuts, base, scaling = focused_node_search(
                    data.X, samples, features, data.labels, data.targets, data.sample_weight,
                    data.n_classes, data.criterion, data.min_samples_leaf,
                    data.min_weight_leaf, self.dir_a.size,
                    min(self.exhaustive_work, _INT64_MAX), screen,
                    min(self.n_anchors, n_features), self.n_coarse, self._coarse_bins(n),
                    self.n_refine, self.n_rounds, n_candidates, constraints.monotonic,
                    bounds.lower, bounds.upper, constraints.allowed)
            if not exhaustive:
                return self._found_splits(found, n_pairs)
            # the exhaustive search is cheaper (a few varying features)
            cuts = FeatureCuts(cuts[0], cuts[1], base, cuts[2] != 0.0)
            scaling = NodeScaling(scaling[0], scaling[1])
        else:
            with threads_for_work(n * features.shape[0]):
                cuts = univariate_cuts(data, samples, features, bounds)
                scaling = node_min_max_scaling(data.X, samples, features)
        univariate = univariate_split_from_cuts(cuts, features)
        n_varying = int(np.count_nonzero(scaling.inv_scale[features] > 0))
        exhaustive = n_varying * (n_varying - 1) // 2 * self.dir_a.size
        focused = self._focused_work(n_varying, screen)
        if exhaustive <= focused or n * exhaustive <= self.exhaustive_work:
            with threads_for_work(n * exhaustive):
                best = best_direction_split(data, samples, features, univariate, self.dir_a,
                                            self.dir_b, scaling.offset, scaling.inv_scale,
                                            bounds)
            return with_univariate([best], univariate, n_candidates)
        # (more anchors than features is every feature: kept within the kernel's integers)
        pair_j, pair_k = constraints.allowed_pairs(*screened_pairs(
            features, cuts.proxies, scaling.inv_scale, screen, min(self.n_anchors, n_varying)))
        rows = spread_rows(samples, self.max_scan_samples)
        with threads_for_work(rows.shape[0] * focused):
            return self._coarse_to_fine(data, samples, rows, pair_j, pair_k, univariate,
                                        scaling.inv_scale, n_candidates, bounds)

    @staticmethod
    def _found_splits(found, n_pairs):
        """The rows of ``found`` (:data:`CANDIDATE_COLUMNS`) as splits (``None``: no split)."""
        splits = []
        for first, second, weight, threshold, objective, missing_left, direction, angle in (
                found.tolist()):
            if first < 0:
                splits.append(None)
            elif second < 0:
                splits.append(make_split([int(first), -1], [1.0, 0.0], threshold, objective,
                                         missing_left=missing_left != 0.0, kind="univariate"))
            else:
                splits.append(make_split(
                    [int(first), int(second)], [1.0, weight], threshold, objective,
                    missing_left=missing_left != 0.0, kind="bivariate",
                    direction=int(direction), n_pairs=int(n_pairs),
                    angle=math.degrees(angle)))
        return splits

    @staticmethod
    def _refined_split(found, c, pair_j, pair_k, univariate):
        """Refined candidate ``c`` scanned on the whole node, if it beats ``univariate``.

        The search scanned the stored rule ``x_j + w x_k`` of its angle with the
        routing arithmetic, as :func:`~bivtree.splitters._pairs.finish_bivariate`
        would again.
        """
        # Python floats: a node's few candidates cost less than with numpy scalars
        weight, proxy = float(found.weights[c]), float(found.proxies[c])
        if not math.isfinite(weight) or weight == 0.0 or not math.isfinite(proxy):
            return univariate
        q = found.pairs[c]
        return bivariate_if_better(
            univariate, [pair_j[q], pair_k[q]], [1.0, weight], found.thresholds[c],
            found.base - proxy, found.base, found.w_node,
            missing_left=bool(found.missing_left[c]), direction=int(c),
            n_pairs=int(pair_j.size), angle=math.degrees(found.angles[c]))

    def _coarse_to_fine(self, data, samples, rows, pair_j, pair_k, univariate, inv_scale,
                        n_candidates=1, bounds=UNBOUNDED):
        """``[best]`` of ``univariate`` and the refined directions of ``(pair_j, pair_k)``.

        With ``n_candidates`` other than 1, the other refined candidates that
        beat ``univariate`` follow, then ``univariate``, up to ``n_candidates``
        in all (0: every one).
        """
        if pair_j.size == 0:
            return [univariate]
        found = coarse_to_fine_search(
            data.X, rows, pair_j, pair_k, inv_scale, self.n_coarse,
            self._coarse_bins(rows.shape[0]), self.n_rounds,
            self.n_refine, data.labels, data.targets, data.sample_weight, data.n_classes,
            data.criterion, data.min_samples_leaf, data.min_weight_leaf,
            data.constraints.monotonic, bounds.lower, bounds.upper)
        # best refined proxy first; ties keep the coarse order (pair index)
        ranked = np.argsort(-found.proxies, kind="stable")
        ranked = ranked[np.isfinite(found.proxies[ranked])]
        # on a part of the node the ranking is approximate: every refined
        # candidate gets its exact threshold on all samples and the best is
        # kept; on the whole node the first one is the best, and the search
        # already scanned each refined rule exactly
        whole = rows.shape[0] == samples.shape[0]
        dir_a, dir_b = (None, None) if whole else (np.cos(found.angles), np.sin(found.angles))

        def finish(c, against):
            if whole:
                return self._refined_split(found, c, pair_j, pair_k, against)
            return finish_bivariate(data, samples, against, found.pairs[c], pair_j, pair_k,
                                    dir_a, dir_b, c, inv_scale, bounds,
                                    n_pairs=int(pair_j.size),
                                    angle=float(np.degrees(found.angles[c])))

        best, best_c = univariate, -1
        for c in (ranked[:1] if whole else ranked):
            split = finish(c, best)
            if split is not best:
                best, best_c = split, c
        candidates = [best]
        for c in ranked:
            if n_candidates and len(candidates) >= n_candidates:
                return candidates
            if c != best_c:
                split = finish(c, univariate)
                if split is not univariate:
                    candidates.append(split)
        return with_univariate(candidates, univariate, n_candidates)
