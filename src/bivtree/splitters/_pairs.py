"""Turn the winner of a pair search into a stored rule in original units.

Under constraints (``data.constraints``, :mod:`bivtree.constraints`) only the
pairs the interaction groups allow are searched, and every scan keeps the cuts
the monotonic constraints admit at a node of the given ``bounds``.
"""

import numpy as np

from .._kernels.directions import pair_direction_search
from .._kernels.pair_scaling import pair_rule_weight
from .._kernels.scan import scan_rule
from .._threads import work_chunks
from ..constraints import UNBOUNDED
from ._base import BEATS_TOLERANCE, candidate_pairs, make_split


def rule_in_original_units(j, k, a, b, inv_scale):
    """Features ``(j, k)`` and weights ``(1, w)`` of ``x_j + w x_k`` parallel to ``a z_j + b z_k``.

    ``z = (x - offset) * inv_scale``; ``w`` is
    :func:`~bivtree._kernels.pair_scaling.pair_rule_weight`, the expression the
    direction searches rank directions with (not finite where ``a == 0``). A
    negative divisor only reverses the order of the projected samples, and the
    threshold is re-scanned afterwards, so the flipped inequality needs no
    special case.
    """
    return np.array([j, k], dtype=np.int64), np.array(
        [1.0, pair_rule_weight(a, b, inv_scale[j], inv_scale[k])])


def finish_bivariate(data, samples, univariate, best_pair, pair_j, pair_k, dir_a, dir_b,
                     direction, inv_scale, bounds=UNBOUNDED, **info):
    """Re-scan the winning direction in original units; keep it only if it beats ``univariate``.

    The stored rule is ``x_j + w x_k <= t`` in raw units. Scanning that exact
    expression (with the routing code's arithmetic) fixes ``t`` so that the
    stored rule sends every training sample where the scan decided
    (``pair_direction_search`` already ranks each direction on this very
    projection, so its choice and the stored rule agree). Under monotonic
    constraints the re-scan keeps only the cuts the rule admits at a node of
    ``bounds``, so whatever search found the direction, the stored split is
    admissible.
    """
    features, weights = rule_in_original_units(
        pair_j[best_pair], pair_k[best_pair], dir_a[direction], dir_b[direction], inv_scale)
    if not np.isfinite(weights[1]) or weights[1] == 0.0:
        return univariate
    rescan = scan_rule(
        data.X, samples, features, weights, data.labels, data.targets, data.sample_weight,
        data.n_classes, data.criterion, data.min_samples_leaf, data.min_weight_leaf,
        data.constraints.monotonic, bounds.lower, bounds.upper)
    if not np.isfinite(rescan.proxy):
        return univariate
    w_node = 0.0 if univariate is None else float(data.sample_weight[samples].sum())
    return bivariate_if_better(
        univariate, features, weights, rescan.threshold, rescan.base - rescan.proxy,
        rescan.base, w_node, missing_left=rescan.missing_left, direction=int(direction),
        **info)


def bivariate_if_better(univariate, features, weights, threshold, objective, base, w_node,
                        **info):
    """The bivariate split, or ``univariate`` unless the bivariate one is strictly better.

    ``base`` is the node constant of the scan (``objective = base - proxy``) and
    ``w_node`` the node's weight (read only when there is a univariate split to
    compare with). The tolerance absorbs rounding between two evaluations of the
    same partition (:data:`~bivtree.splitters._base.BEATS_TOLERANCE`).
    """
    if univariate is not None:
        tolerance = BEATS_TOLERANCE * max(w_node, abs(base))
        if objective >= univariate.objective - tolerance:
            return univariate
    return make_split(features, weights, threshold, objective, kind="bivariate", **info)


def best_direction_split(data, samples, features, univariate, dir_a, dir_b, offset, inv_scale,
                         bounds=UNBOUNDED):
    """The best of ``univariate`` and the directions ``(dir_a, dir_b)`` of every pair.

    The pairs are those of the ``features`` that vary on the scale (``inv_scale
    > 0``) and that the interaction constraints allow; the winning pair and
    direction (the lowest pair, then the lowest direction, on ties) goes
    through :func:`finish_bivariate`. A direction of two constrained features
    of disagreeing signs is skipped, the others keep the cuts their order
    admits at a node of ``bounds``.
    """
    varying = features[inv_scale[features] > 0]
    pair_j, pair_k = data.constraints.allowed_pairs(*candidate_pairs(varying))
    if pair_j.size == 0 or dir_a.size == 0:
        return univariate
    # a few pairs per compiled call on large nodes, so that Ctrl-C stops a fit soon
    proxies, directions = [], []
    for chunk in work_chunks(pair_j.size, samples.shape[0] * dir_a.size):
        search = pair_direction_search(
            data.X, samples, pair_j[chunk], pair_k[chunk], dir_a, dir_b, offset, inv_scale,
            data.labels, data.targets, data.sample_weight, data.n_classes, data.criterion,
            data.min_samples_leaf, data.min_weight_leaf, data.constraints.monotonic,
            bounds.lower, bounds.upper)
        proxies.append(search.proxies)
        directions.append(search.directions)
    proxies = np.concatenate(proxies)
    best = int(np.argmax(proxies))  # first maximum: lowest pair wins ties
    if not np.isfinite(proxies[best]):
        return univariate
    return finish_bivariate(data, samples, univariate, best, pair_j, pair_k, dir_a, dir_b,
                            np.concatenate(directions)[best], inv_scale, bounds,
                            n_pairs=int(pair_j.size))
