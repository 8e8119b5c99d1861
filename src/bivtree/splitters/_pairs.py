"""Turn the winner of a pair-direction search into a stored rule in original units."""

import numpy as np

from .._kernels.scan import scan_rule
from ._base import BEATS_TOLERANCE, make_split


def rule_in_original_units(j, k, a, b, inv_scale):
    """Weights ``(1, w)`` of ``x_j + w x_k`` parallel to ``a z_j + b z_k`` (needs ``a != 0``).

    ``z = (x - offset) * inv_scale``, so the direction's coefficients on the raw
    features are ``a * inv_scale[j]`` and ``b * inv_scale[k]``; dividing by the
    first makes it 1. A negative divisor only reverses the order of the
    projected samples, and the threshold is re-scanned afterwards, so the
    flipped inequality needs no special case.
    """
    return np.array([j, k], dtype=np.int64), np.array(
        [1.0, (b * inv_scale[k]) / (a * inv_scale[j])])


def finish_bivariate(data, samples, univariate, best_pair, pair_j, pair_k, dir_a, dir_b,
                     direction, inv_scale, **info):
    """Re-scan the winning direction in original units; keep it only if it beats ``univariate``.

    The stored rule is ``x_j + w x_k <= t`` in raw units. Scanning that exact
    expression (with the routing code's arithmetic) fixes ``t`` so that the
    stored rule sends every training sample where the scan decided
    (``pair_direction_search`` already ranks each direction on this very
    projection, so its choice and the stored rule agree).
    """
    features, weights = rule_in_original_units(
        pair_j[best_pair], pair_k[best_pair], dir_a[direction], dir_b[direction], inv_scale)
    if not np.isfinite(weights[1]) or weights[1] == 0.0:
        return univariate
    proxy, threshold, base = scan_rule(
        data.X, samples, features, weights, data.labels, data.targets, data.sample_weight,
        data.n_classes, data.criterion, data.min_samples_leaf, data.min_weight_leaf)
    if not np.isfinite(proxy):
        return univariate
    objective = base - proxy
    if univariate is not None:
        w_node = float(data.sample_weight[samples].sum())
        if objective >= univariate.objective - BEATS_TOLERANCE * max(w_node, abs(base)):
            return univariate
    return make_split(features, weights, threshold, objective, kind="bivariate",
                      direction=int(direction), **info)
