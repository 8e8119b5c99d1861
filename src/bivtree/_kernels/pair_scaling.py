"""A feature pair on a common scale, and a direction on that scale as a rule in original units.

The pair searches (bivariate CART, BIT2, TAO's reduced problems) look for
directions ``(a, b)`` on scaled features ``z = (x - offset) * inv_scale``:
:func:`node_min_max_scaling` (and :func:`min_max_scaling` for one feature)
maps each feature to [0, 1] over a node's samples.

A direction is stored as the rule ``x_first + w x_second <= t``. On the raw
features ``a z_j + b z_k`` is, up to a constant, ``a inv_scale[j] x_j +
b inv_scale[k] x_k``; dividing by the first coefficient gives
``w = (b inv_scale[k]) / (a inv_scale[j])`` (:func:`pair_rule_weight`). The
offset only shifts the threshold and a negative divisor only mirrors the order
of the projected samples, so the threshold is found by scanning the stored
rule's own projection, never transformed. Every searcher computes ``w`` with
this one expression, so the rule a direction was ranked on is the rule stored.
"""

import math
from typing import NamedTuple

import numpy as np
from numba import njit

from .._config import NUMBA_OPTS


class FeatureScaling(NamedTuple):
    """Min-max scaling of one feature: ``z = (x - offset) * inv_scale``.

    Attributes
    ----------
    offset : float
        The feature's minimum.
    inv_scale : float
        ``1 / (max - min)``; 0 for a constant feature (or an infinite span).
    """

    offset: float
    inv_scale: float


class NodeScaling(NamedTuple):
    """Min-max scaling of every feature, indexed by feature (0 where not computed)."""

    offset: np.ndarray
    inv_scale: np.ndarray


class PairRule(NamedTuple):
    """The rule ``x_first + weight * x_second`` of a direction (``weight`` 0: none)."""

    first: int
    second: int
    weight: float


@njit(**NUMBA_OPTS)
def min_max_scaling(X, rows, f):
    """:class:`FeatureScaling` mapping feature ``f`` to [0, 1] over ``X[rows, f]``.

    Missing values (NaN) are left out: the scaling is that of the known values
    (offset 0 and inverse scale 0 when there is none).
    """
    lo = np.inf
    hi = -np.inf
    for p in range(rows.shape[0]):
        v = X[rows[p], f]
        if math.isnan(v):
            continue
        lo = min(lo, v)
        hi = max(hi, v)
    if lo > hi:
        return FeatureScaling(0.0, 0.0)
    span = hi - lo
    if span > 0.0 and math.isfinite(span):
        return FeatureScaling(lo, 1.0 / span)
    return FeatureScaling(lo, 0.0)


@njit(**NUMBA_OPTS)
def node_min_max_scaling(X, samples, features):
    """:class:`NodeScaling` mapping each of ``features`` to [0, 1] over ``samples``.

    Constant features get inverse scale 0 (they are left out of the pairs).
    """
    offset = np.zeros(X.shape[1])
    inv_scale = np.zeros(X.shape[1])
    for c in range(features.shape[0]):
        f = features[c]
        scaling = min_max_scaling(X, samples, f)
        offset[f] = scaling.offset
        inv_scale[f] = scaling.inv_scale
    return NodeScaling(offset, inv_scale)


@njit(error_model="numpy", **NUMBA_OPTS)
def pair_rule_weight(a, b, inv_scale_first, inv_scale_second):
    """Weight ``w`` of ``x_first + w x_second`` parallel to ``a z_first + b z_second``.

    Not finite (or 0) where the direction has no such rule, e.g. ``a == 0``.
    """
    return (b * inv_scale_second) / (a * inv_scale_first)


@njit(**NUMBA_OPTS)
def larger_coefficient_first(j, k, a, b, inv_scale_j, inv_scale_k):
    """:class:`PairRule` of ``a z_j + b z_k`` with the larger raw coefficient first.

    Dividing by the larger coefficient keeps ``|weight| <= 1``. A zero raw
    coefficient (an axis-parallel line, a univariate rule) gives weight 0.
    """
    coef_j = a * inv_scale_j
    coef_k = b * inv_scale_k
    if coef_j == 0.0 or coef_k == 0.0:
        return PairRule(j, k, 0.0)
    if abs(coef_j) >= abs(coef_k):
        return PairRule(j, k, pair_rule_weight(a, b, inv_scale_j, inv_scale_k))
    return PairRule(k, j, pair_rule_weight(b, a, inv_scale_k, inv_scale_j))
