"""The shared hot loop: sort a projection of the node's samples and scan its cuts.

:func:`scan_sorted` sorts the values, scans the cuts between distinct values
and returns the best one with its midpoint threshold. What makes a cut good is
the *cut objective*, a record passed along: :class:`CriterionCuts` scores a
split criterion (:func:`~bivtree._kernels.criteria.best_cut_sorted`), other
algorithms bring their own record (TAO's two pseudo-classes) and register its
scan with :func:`best_cut`. The loops that project the samples (a rule, every
direction of a pair) are written once and take any cut objective.
"""

from typing import NamedTuple

import numpy as np
from numba import njit
from numba.core import types
from numba.extending import overload

from .._config import NUMBA_OPTS
from .criteria import best_cut_sorted, midpoint_threshold, node_totals, proxy_base
from .sorting import argsort_values
from .traversal import project_row


class Cut(NamedTuple):
    """Best cut of a projection: ``proxy`` (``-inf``: no valid cut) and its threshold."""

    proxy: float
    threshold: float


class RuleScan(NamedTuple):
    """Best cut of a rule's projection and the node constant ``base`` (``G = base - proxy``)."""

    proxy: float
    threshold: float
    base: float


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
                               cuts.right_counts)
    return scan


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


@njit(**NUMBA_OPTS)
def scan_sorted(values, cuts):
    """Sort ``values`` and return the best :class:`Cut` under the cut objective ``cuts``.

    The threshold is the midpoint of the two values around the cut
    (:func:`~bivtree._kernels.criteria.midpoint_threshold`).
    """
    n = values.shape[0]
    order = argsort_values(values)
    if values[order[n - 1]] <= values[order[0]]:
        return Cut(-np.inf, 0.0)
    proxy, pos = best_cut(values, order, cuts)
    if pos < 0:
        return Cut(-np.inf, 0.0)
    return Cut(proxy, midpoint_threshold(values[order[pos]], values[order[pos + 1]]))


@njit(**NUMBA_OPTS)
def scan_values(values, node_labels, node_targets, node_weight, criterion, counts, w_total,
                t_sum, min_samples_leaf, min_weight_leaf, left_counts, right_counts):
    """Sort ``values`` and return the best :class:`Cut` under a split criterion."""
    return scan_sorted(values, CriterionCuts(
        node_labels, node_targets, node_weight, criterion, counts, w_total, t_sum,
        min_samples_leaf, min_weight_leaf, left_counts, right_counts))


@njit(**NUMBA_OPTS)
def scan_projection(X, rows, features, weights, values, cuts):
    """Best :class:`Cut` of the rule ``features`` / ``weights`` over ``X[rows]``.

    The projection is computed with :func:`project_row`, the very function the
    tree uses to route samples, so the threshold partitions the rows exactly
    as scanned. ``values`` is a scratch buffer of ``rows.size``.
    """
    for p in range(rows.shape[0]):
        values[p] = project_row(X, rows[p], features, weights)
    return scan_sorted(values, cuts)


@njit(**NUMBA_OPTS)
def scan_rule(X, samples, features, weights, labels, targets, sample_weight, n_classes,
              criterion, min_samples_leaf, min_weight_leaf):
    """Best threshold for a fixed direction given in original units, as a :class:`RuleScan`.

    The projection is :func:`scan_projection`'s, the routing arithmetic.
    """
    node_labels, node_targets, node_weight, counts, w_total, t_sum, base = gather_node(
        samples, labels, targets, sample_weight, n_classes, criterion)
    values = np.empty(samples.shape[0], dtype=np.float64)
    left = np.empty(n_classes, dtype=np.float64)
    right = np.empty(n_classes, dtype=np.float64)
    cut = scan_projection(X, samples, features, weights, values, CriterionCuts(
        node_labels, node_targets, node_weight, criterion, counts, w_total, t_sum,
        min_samples_leaf, min_weight_leaf, left, right))
    return RuleScan(cut.proxy, cut.threshold, base)
