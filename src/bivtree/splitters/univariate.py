"""Exact univariate (CART) split search.

For each candidate feature: sort the node's values, scan the cuts between
distinct values, keep the best proxy; the threshold is the midpoint of the two
values around the cut. Ties go to the lower feature index and then the lower
cut, so the result never depends on thread count (scikit-learn instead breaks
ties by a random feature order).

Missing values (NaN) follow scikit-learn's trees: for each feature the cuts
are those of the samples where it is known, the samples missing it go left or
right together (both are scored, right on ties), and one more split sends
every known value left and every missing one right. The search is exact for
that problem: the best over every cut of the known values times the side of
the missing ones (:mod:`bivtree._kernels.scan`).

Monotonic constraints (scikit-learn's): a cut on a constrained feature is a
candidate only if its children's values are in the feature's order and within
the node's bounds (the missing samples counted on their side), so the search
is exact among the admissible cuts; a free feature's cuts are not checked.
"""

import math
from typing import NamedTuple

import numpy as np
from numba import njit, prange

from .._config import NUMBA_OPTS
from .._kernels.scan import gather_node, scan_values
from .._threads import CHUNK_WORK, check_interrupt, work_chunks
from ..constraints import UNBOUNDED
from ._base import Splitter, make_split, register


class FeatureCuts(NamedTuple):
    """Best ``proxies`` and ``thresholds`` per candidate feature (proxy ``-inf``: no valid
    cut), the node constant ``base`` (``G = base - proxy``) and, per feature, whether its
    missing values go left (``missing_left``)."""

    proxies: np.ndarray
    thresholds: np.ndarray
    base: float
    missing_left: np.ndarray


@njit(parallel=True, **NUMBA_OPTS)
def univariate_search(X, samples, features, labels, targets, sample_weight, n_classes,
                      criterion, min_samples_leaf, min_weight_leaf, cst, lower, upper):
    """Best proxy and threshold per candidate feature, as :class:`FeatureCuts`.

    The scan reads the raw column: a univariate rule's projection is the
    feature's value. ``cst`` is the monotonic constraint of every feature
    (empty: none), which is the order of its cuts; ``lower`` and ``upper`` the
    node's bounds.
    """
    node_labels, node_targets, node_weight, counts, w_total, t_sum, base = gather_node(
        samples, labels, targets, sample_weight, n_classes, criterion)
    n = samples.shape[0]
    n_candidates = features.shape[0]
    proxies = np.full(n_candidates, -np.inf)
    thresholds = np.zeros(n_candidates)
    missing_left = np.zeros(n_candidates, dtype=np.bool_)
    for c in prange(n_candidates):
        f = features[c]
        values = np.empty(n, dtype=np.float64)
        for p in range(n):
            values[p] = X[samples[p], f]
        left = np.empty(n_classes, dtype=np.float64)
        right = np.empty(n_classes, dtype=np.float64)
        order = cst[f] if cst.shape[0] > 0 else 0
        cut = scan_values(values, node_labels, node_targets, node_weight, criterion, counts,
                          w_total, t_sum, min_samples_leaf, min_weight_leaf, left, right,
                          order, lower, upper)
        proxies[c] = cut.proxy
        thresholds[c] = cut.threshold
        missing_left[c] = cut.missing_left
    return FeatureCuts(proxies, thresholds, base, missing_left)


def univariate_cuts(data, samples, features, bounds=UNBOUNDED):
    """:class:`FeatureCuts` of every candidate feature at the node (of value ``bounds``).

    Large nodes are searched a few features per compiled call
    (:func:`~bivtree._threads.work_chunks`), so that Ctrl-C stops a fit soon.
    """
    cst = data.constraints.monotonic
    if features.shape[0] * samples.shape[0] <= CHUNK_WORK:  # one call (most nodes)
        check_interrupt()
        return univariate_search(
            data.X, samples, features, data.labels, data.targets, data.sample_weight,
            data.n_classes, data.criterion, data.min_samples_leaf, data.min_weight_leaf,
            cst, bounds.lower, bounds.upper)
    parts = [univariate_search(
        data.X, samples, features[chunk], data.labels, data.targets, data.sample_weight,
        data.n_classes, data.criterion, data.min_samples_leaf, data.min_weight_leaf,
        cst, bounds.lower, bounds.upper)
        for chunk in work_chunks(features.shape[0], samples.shape[0])]
    if len(parts) == 1:
        return parts[0]
    return FeatureCuts(np.concatenate([p.proxies for p in parts]),
                       np.concatenate([p.thresholds for p in parts]), parts[0].base,
                       np.concatenate([p.missing_left for p in parts]))


def univariate_split_from_cuts(cuts, features):
    """The best of ``cuts`` as a split (lowest feature on ties), or ``None`` when none is valid."""
    proxies = cuts.proxies
    if proxies.size == 0:
        return None
    # first maximum: lowest feature index wins ties (Python scalars: this runs at every node)
    best = int(proxies.argmax())
    proxy = float(proxies[best])
    if not math.isfinite(proxy):
        return None
    return make_split([features[best], -1], [1.0, 0.0], cuts.thresholds[best],
                      cuts.base - proxy, missing_left=bool(cuts.missing_left[best]),
                      kind="univariate")


def best_univariate_split(data, samples, features, bounds=UNBOUNDED):
    """The exact best univariate split (among the admissible ones at a node of value
    ``bounds``), or ``None`` when no feature has a valid cut."""
    return univariate_split_from_cuts(univariate_cuts(data, samples, features, bounds),
                                      features)


@register
class UnivariateSplitter(Splitter):
    """Axis-aligned splits only: scikit-learn's CART search, deterministic ties."""

    name = "univariate"
    max_node_features = 1
    parallel_subtrees = True
    supports_constraints = True

    def find_split(self, data, samples, features, bounds=UNBOUNDED):
        return best_univariate_split(data, samples, features, bounds)
