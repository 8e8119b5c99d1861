"""The shared hot loop: sort a projection of the node's samples and scan its cuts.

:func:`scan_sorted` sorts the values, scans the cuts between distinct values
and returns the best one with its midpoint threshold. What makes a cut good is
the *cut objective*, a record passed along: :class:`CriterionCuts` scores a
split criterion (:func:`~bivtree._kernels.criteria.best_cut_sorted`), other
algorithms bring their own record (TAO's two pseudo-classes) and register its
scan with :func:`best_cut`. The loops that project the samples (a rule, every
direction of a pair) are written once and take any cut objective.

**Missing values.** A NaN value is a missing one (a row missing a feature the
projected rule uses). Without NaN, :func:`scan_sorted` is the scan it always
was. With NaN, the cuts are those of the known values, and the rows with a
missing value go, together, to the left or to the right side: both are scored
(:func:`best_cut_missing`) and the better is kept, the right side on ties (as
scikit-learn, which searches that side first). With the missing rows on the
right the cut after the last known value is allowed too (every known value
left, every missing one right); its threshold is :data:`ALL_KNOWN_LEFT`. Both
searches together are exact for this problem: the best over every partition
of the known values by a cut times the side of the missing rows.

**Monotonic constraints.** A :class:`CriterionCuts` record may carry the
constraint of every column it projects (``cst``) and the node's bounds; the
scan of a rule then takes the order its children must have from the rule's
weights (:func:`oriented_cuts`, :func:`~bivtree._kernels.constraints.rule_order`)
and skips every cut that breaks it (:func:`~bivtree._kernels.criteria.best_cut_offset`),
and a rule whose constrained features disagree scans no cut at all. Another cut
objective may carry ``cst`` too (TAO's ``PseudolabelCuts``): such a rule then
scans no cut either, the others every cut. Without constraints (``cst`` empty)
every scan is the one it always was.

**Inlined.** The levels of a scan (:func:`~bivtree._kernels.angle_search.scan_angle`,
:func:`scan_projection`, :func:`scan_sorted`,
:func:`~bivtree._kernels.criteria.best_cut_sorted` and
:func:`~bivtree._kernels.criteria.best_cut_offset`) are inlined into their
callers (numba IR, ``inline="always"``): called, each level took its arrays
with reference counting, which made a scan of a few dozen samples (most nodes
of a grown tree) two to three times its own work: 778 ns for one angle of a
pair on 8 samples, 299 ns inlined (1,022 and 531 ns on 32; Intel Xeon). The
default fit took 2 to 16 % less CPU on the KEEL sets of
``benchmarks/bench_peers.py``, with the same trees; compiling all kernels
took as long.
"""

import math
from typing import NamedTuple

import numpy as np
from numba import njit
from numba.core import types
from numba.extending import overload

from .._config import NUMBA_OPTS
from .constraints import CONFLICT, NO_MONOTONIC, rule_order
from .criteria import (
    best_cut_offset,
    best_cut_sorted,
    midpoint_threshold,
    node_totals,
    proxy_base,
)
from .sorting import argsort_values
from .traversal import project_row

#: threshold of the cut that sends every known value left and the missing ones
#: right: the largest double, so every finite projection is at most it (the
#: finite stand-in for scikit-learn's ``inf`` threshold of the same split).
ALL_KNOWN_LEFT = float(np.finfo(np.float64).max)


class Cut(NamedTuple):
    """Best cut of a projection: ``proxy`` (``-inf``: no valid cut), its threshold, and
    whether the rows with a missing (NaN) value go left (``False`` when there are none)."""

    proxy: float
    threshold: float
    missing_left: bool


class RuleScan(NamedTuple):
    """Best cut of a rule's projection and the node constant ``base`` (``G = base - proxy``);
    ``missing_left`` as in :class:`Cut`."""

    proxy: float
    threshold: float
    base: float
    missing_left: bool


class CriterionCuts(NamedTuple):
    """Cuts scored by a split criterion: the arguments of ``best_cut_sorted`` past ``order``.

    Attributes
    ----------
    labels, targets, weights : arrays (n,)
        Node-local labels, targets and sample weights (:func:`gather_node`).
    criterion : int
    counts : float64 (n_classes,)
        Weighted class counts of the node.
    w_total, t_sum : float
    min_samples_leaf : int
    min_weight_leaf : float
    left_counts, right_counts : float64 (n_classes,)
        Scratch buffers (one pair per thread).
    cst : int64 (n_columns,)
        Monotonic constraint of every column the scanned rules read (empty:
        none); :func:`oriented_cuts` turns it into ``order`` for one rule.
    order : int
        The order the children's values must have (``+1``, ``-1``; ``0``: none,
        :func:`~bivtree._kernels.constraints.rule_order`).
    lower, upper : float
        The node's bounds, which the values of an ordered cut must respect.
    """

    labels: np.ndarray
    targets: np.ndarray
    weights: np.ndarray
    criterion: int
    counts: np.ndarray
    w_total: float
    t_sum: float
    min_samples_leaf: int
    min_weight_leaf: float
    left_counts: np.ndarray
    right_counts: np.ndarray
    cst: np.ndarray = NO_MONOTONIC
    order: int = 0
    lower: float = -np.inf
    upper: float = np.inf


@njit(inline="always", **NUMBA_OPTS)
def criterion_cuts(labels, targets, weights, criterion, counts, w_total, t_sum,
                   min_samples_leaf, min_weight_leaf, left_counts, right_counts, cst, order,
                   lower, upper):
    """A :class:`CriterionCuts` built in compiled code, every field typed alike wherever
    it is built (so records built in different places are one numba type)."""
    return CriterionCuts(labels, targets, weights, criterion, counts, w_total, t_sum,
                         min_samples_leaf, min_weight_leaf, left_counts, right_counts, cst,
                         np.int64(order), np.float64(lower), np.float64(upper))


def best_cut(values, order, cuts):
    """``(best proxy, last sorted position going left)`` of ``values`` sorted by ``order``.

    Compiled code only: the implementation is chosen by the type of the cut
    objective ``cuts`` (``numba.extending.overload``, one per record type).
    Returns proxy ``-inf`` and position ``-1`` when no cut is valid.
    """
    raise NotImplementedError("best_cut is only callable from compiled code")


def cut_objective_is(cuts, record_class):
    """Whether the numba type ``cuts`` is the named-tuple record ``record_class``."""
    return isinstance(cuts, types.BaseNamedTuple) and cuts.instance_class is record_class


@overload(best_cut)
def _best_cut_of_criterion(values, order, cuts):
    if not cut_objective_is(cuts, CriterionCuts):
        return None

    def scan(values, order, cuts):
        return best_cut_sorted(values, order, cuts.labels, cuts.targets, cuts.weights,
                               cuts.criterion, cuts.counts, cuts.w_total, cuts.t_sum,
                               cuts.min_samples_leaf, cuts.min_weight_leaf, cuts.left_counts,
                               cuts.right_counts, cuts.order, cuts.lower, cuts.upper)
    return scan


def cut_proxy_bound(values, cuts, bins):
    """An upper bound of the best proxy :func:`scan_sorted` would find on ``values``.

    Compiled code only, chosen by the type of ``cuts`` like :func:`best_cut`. A
    bound costs passes over ``values`` and no sort, so a search may skip a
    direction whose bound says it cannot win (TAO's
    :class:`~bivtree._kernels.tao.PseudolabelCuts`: a histogram in ``bins``, a
    scratch array of shape ``(n_bins, 2)`` the caller allocates once for many
    bounds). An objective without a bound gets ``inf`` (nothing is ever skipped).
    """
    raise NotImplementedError("cut_proxy_bound is only callable from compiled code")


@overload(cut_proxy_bound)
def _cut_proxy_bound_of_criterion(values, cuts, bins):
    if not cut_objective_is(cuts, CriterionCuts):
        return None

    def unbounded(values, cuts, bins):
        return np.inf
    return unbounded


def oriented_cuts(cuts, features, weights):
    """``(admissible, cuts)`` for scanning the rule ``features`` / ``weights`` under ``cuts``.

    Compiled code only, chosen by the type of ``cuts``: a :class:`CriterionCuts`
    with monotonic constraints gets the order of that rule
    (:func:`~bivtree._kernels.constraints.rule_order`), and ``admissible`` is
    false when the rule's constrained features disagree. Another cut objective
    whose record has a ``cst`` field (TAO's
    :class:`~bivtree._kernels.tao.PseudolabelCuts`) is only checked for that
    disagreement: its cuts have no values to order, and are returned as they
    are. Any other cut objective, or one without constraints, is admissible.
    """
    raise NotImplementedError("oriented_cuts is only callable from compiled code")


def _has_field(cuts, name):
    """Whether the numba type ``cuts`` is a named-tuple record with the field ``name``."""
    return isinstance(cuts, types.BaseNamedTuple) and name in cuts.fields


@overload(oriented_cuts)
def _oriented_cuts(cuts, features, weights):
    if not cut_objective_is(cuts, CriterionCuts):
        if _has_field(cuts, "cst"):
            # no values to order (e.g. TAO's pseudolabels): only the rule's signs are checked
            def signs_agree(cuts, features, weights):
                return rule_order(cuts.cst, features, weights) != CONFLICT, cuts
            return signs_agree

        def unchanged(cuts, features, weights):
            return True, cuts
        return unchanged

    def orient(cuts, features, weights):
        if cuts.cst.shape[0] == 0:
            return True, cuts
        order = rule_order(cuts.cst, features, weights)
        if order == CONFLICT:
            return False, cuts
        return True, criterion_cuts(
            cuts.labels, cuts.targets, cuts.weights, cuts.criterion, cuts.counts, cuts.w_total,
            cuts.t_sum, cuts.min_samples_leaf, cuts.min_weight_leaf, cuts.left_counts,
            cuts.right_counts, cuts.cst, order, cuts.lower, cuts.upper)
    return orient


def best_cut_missing(values, order, missing, cuts):
    """``(best proxy, last sorted position going left, missing_left)`` with missing rows.

    ``order`` sorts the rows whose value is known, ``missing`` lists the others
    (node-local positions). Compiled code only, chosen by the type of ``cuts``
    like :func:`best_cut`. Position ``order.shape[0] - 1`` is the cut after the
    last known value (missing rows right).
    """
    raise NotImplementedError("best_cut_missing is only callable from compiled code")


@overload(best_cut_missing)
def _best_cut_missing_of_criterion(values, order, missing, cuts):
    if not cut_objective_is(cuts, CriterionCuts):
        return None

    def scan(values, order, missing, cuts):
        n_classes = cuts.counts.shape[0]
        held = np.zeros(n_classes)
        held_w = 0.0
        held_t = 0.0
        for q in range(missing.shape[0]):
            i = missing[q]
            w = cuts.weights[i]
            held_w += w
            held_t += w * cuts.targets[i]
            held[cuts.labels[i]] += w
        n_total = order.shape[0] + missing.shape[0]
        # missing rows right first (the left prefix starts empty), then left
        proxy, pos = best_cut_offset(
            values, order, cuts.labels, cuts.targets, cuts.weights, cuts.criterion,
            cuts.counts, cuts.w_total, cuts.t_sum, cuts.min_samples_leaf, cuts.min_weight_leaf,
            cuts.left_counts, cuts.right_counts, held, 0.0, 0.0, 0, n_total, True, cuts.order,
            cuts.lower, cuts.upper)
        proxy_l, pos_l = best_cut_offset(
            values, order, cuts.labels, cuts.targets, cuts.weights, cuts.criterion,
            cuts.counts, cuts.w_total, cuts.t_sum, cuts.min_samples_leaf, cuts.min_weight_leaf,
            cuts.left_counts, cuts.right_counts, held, held_w, held_t, missing.shape[0],
            n_total, False, cuts.order, cuts.lower, cuts.upper)
        if proxy_l > proxy:
            return proxy_l, pos_l, True
        return proxy, pos, False
    return scan


@njit(**NUMBA_OPTS)
def scan_with_missing(values, n_missing, cuts):
    """:func:`scan_sorted` for values of which ``n_missing`` are NaN (see the module notes)."""
    n = values.shape[0]
    n_known = n - n_missing
    if n_known == 0:
        return Cut(-np.inf, 0.0, False)
    known = np.empty(n_known, dtype=np.int64)
    missing = np.empty(n_missing, dtype=np.int64)
    a = 0
    b = 0
    for p in range(n):
        if math.isnan(values[p]):
            missing[b] = p
            b += 1
        else:
            known[a] = p
            a += 1
    order = known[argsort_values(values[known])]
    proxy, pos, missing_left = best_cut_missing(values, order, missing, cuts)
    if pos < 0:
        return Cut(-np.inf, 0.0, False)
    if pos == n_known - 1:
        return Cut(proxy, ALL_KNOWN_LEFT, missing_left)
    return Cut(proxy, midpoint_threshold(values[order[pos]], values[order[pos + 1]]),
               missing_left)


@njit(**NUMBA_OPTS)
def count_missing(values):
    """Number of NaN entries of ``values``."""
    n_missing = 0
    for p in range(values.shape[0]):
        if math.isnan(values[p]):
            n_missing += 1
    return n_missing


@njit(**NUMBA_OPTS)
def gather_node(samples, labels, targets, sample_weight, n_classes, criterion):
    """Node-local copies of labels, targets and weights, and the node's totals.

    Returns
    -------
    node_labels, node_targets, node_weight : arrays (n,)
    counts : float64 (n_classes,)
    w_total, t_sum, base : float
        Node weight, weighted target sum, and the proxy base (``G = base - proxy``).
    """
    n = samples.shape[0]
    node_labels = np.empty(n, dtype=labels.dtype)
    node_targets = np.empty(n, dtype=targets.dtype)
    node_weight = np.empty(n, dtype=sample_weight.dtype)
    for p in range(n):
        i = samples[p]
        node_labels[p] = labels[i]
        node_targets[p] = targets[i]
        node_weight[p] = sample_weight[i]
    counts = np.empty(n_classes, dtype=np.float64)
    w_total, t_sum, t_sq = node_totals(node_labels, node_targets, node_weight, n_classes,
                                       criterion, counts)
    base = proxy_base(counts, w_total, t_sq, criterion)
    return node_labels, node_targets, node_weight, counts, w_total, t_sum, base


# inlined like every level of a scan: a called level costs reference counting of its
# arrays (bivtree._kernels.scan, module docstring)
@njit(inline="always", **NUMBA_OPTS)
def scan_sorted(values, cuts):
    """Sort ``values`` and return the best :class:`Cut` under the cut objective ``cuts``.

    NaN values are missing ones (:func:`scan_with_missing`). The threshold is the midpoint of the two values around the cut
    (:func:`~bivtree._kernels.criteria.midpoint_threshold`).
    """
    n_missing = count_missing(values)
    if n_missing > 0:
        return scan_with_missing(values, n_missing, cuts)
    n = values.shape[0]
    order = argsort_values(values)
    if values[order[n - 1]] <= values[order[0]]:
        return Cut(-np.inf, 0.0, False)
    proxy, pos = best_cut(values, order, cuts)
    if pos < 0:
        return Cut(-np.inf, 0.0, False)
    return Cut(proxy, midpoint_threshold(values[order[pos]], values[order[pos + 1]]), False)


@njit(**NUMBA_OPTS)
def scan_values(values, node_labels, node_targets, node_weight, criterion, counts, w_total,
                t_sum, min_samples_leaf, min_weight_leaf, left_counts, right_counts,
                monotonic=0, lower=-np.inf, upper=np.inf):
    """Sort ``values`` and return the best :class:`Cut` under a split criterion.

    ``monotonic`` is the order the children's values must have (``+1``, ``-1``;
    ``0``: none), ``lower`` and ``upper`` the node's bounds (see
    :mod:`bivtree._kernels.constraints`).
    """
    return scan_sorted(values, criterion_cuts(
        node_labels, node_targets, node_weight, criterion, counts, w_total, t_sum,
        min_samples_leaf, min_weight_leaf, left_counts, right_counts,
        np.empty(0, dtype=np.int64), monotonic, lower, upper))


# inlined like every level of a scan: a called level costs reference counting of its
# arrays (bivtree._kernels.scan, module docstring)
@njit(inline="always", **NUMBA_OPTS)
def scan_projection(X, rows, features, weights, values, cuts):
    """Best :class:`Cut` of the rule ``features`` / ``weights`` over ``X[rows]``.

    The projection is computed with :func:`project_row`, the very function the
    tree uses to route samples, so the threshold partitions the rows exactly
    as scanned. ``values`` is a scratch buffer of ``rows.size``. Under
    monotonic constraints the cuts are those the rule's order admits
    (:func:`oriented_cuts`); a rule whose constrained features disagree has none.
    """
    admissible, cuts = oriented_cuts(cuts, features, weights)
    if not admissible:
        return Cut(-np.inf, 0.0, False)
    for p in range(rows.shape[0]):
        values[p] = project_row(X, rows[p], features, weights)
    return scan_sorted(values, cuts)


@njit(**NUMBA_OPTS)
def scan_rule(X, samples, features, weights, labels, targets, sample_weight, n_classes,
              criterion, min_samples_leaf, min_weight_leaf, cst, lower, upper):
    """Best threshold for a fixed direction given in original units, as a :class:`RuleScan`.

    The projection is :func:`scan_projection`'s, the routing arithmetic; ``cst``
    (the monotonic constraint of every column of ``X``, empty: none) and the
    node's bounds ``lower``, ``upper`` restrict the cuts to those the rule's
    order admits.
    """
    node_labels, node_targets, node_weight, counts, w_total, t_sum, base = gather_node(
        samples, labels, targets, sample_weight, n_classes, criterion)
    values = np.empty(samples.shape[0], dtype=np.float64)
    left = np.empty(n_classes, dtype=np.float64)
    right = np.empty(n_classes, dtype=np.float64)
    cut = scan_projection(X, samples, features, weights, values, criterion_cuts(
        node_labels, node_targets, node_weight, criterion, counts, w_total, t_sum,
        min_samples_leaf, min_weight_leaf, left, right, cst, 0, lower, upper))
    return RuleScan(cut.proxy, cut.threshold, base, cut.missing_left)
