"""Bivariate CART (Kairgeldin & Carreira-Perpinan, KDD 2024, section 4.2).

For every feature pair the node's samples, with each feature min-max scaled to
[0, 1] over the node, are projected on ``n_orientations`` directions
``(cos t, sin t)``, ``t = pi h / n_orientations``, and each projection gets its
exact best threshold. All univariate splits are searched too, and the best
bivariate split is kept only when it beats the best univariate one.

The paper fixes the directions but not the scaling; scaling over the node's own
samples (rather than the whole training set) keeps the directions meaningful
deep in the tree, where a node covers a small part of each feature's range.
Axis-aligned directions (t = 0 and t = 90 degrees) are skipped in the pair
search: they are univariate splits, which the exact univariate search covers.
"""

import numbers

import numpy as np

from .._kernels.directions import pair_direction_search
from ._base import Splitter, candidate_pairs, register
from ._pairs import finish_bivariate
from .univariate import best_univariate_split


def orientation_directions(n_orientations):
    """The oblique directions ``(cos t, sin t)``, ``t = pi h / H``, axis-aligned ones left out."""
    angles = np.pi * np.arange(n_orientations) / n_orientations
    a, b = np.cos(angles), np.sin(angles)
    oblique = (np.abs(a) > 1e-12) & (np.abs(b) > 1e-12)
    return np.ascontiguousarray(a[oblique]), np.ascontiguousarray(b[oblique])


def node_min_max_scaling(X, samples, features):
    """Offset and inverse scale mapping each feature to [0, 1] over ``samples``.

    Constant features get inverse scale 0 (they are left out of the pairs).
    """
    offset = np.zeros(X.shape[1])
    inv_scale = np.zeros(X.shape[1])
    if features.size:
        cols = X[np.ix_(samples, features)]
        lo, hi = cols.min(axis=0), cols.max(axis=0)
        span = hi - lo
        offset[features] = lo
        with np.errstate(divide="ignore"):
            inv_scale[features] = np.where(span > 0, 1.0 / np.where(span > 0, span, 1.0), 0.0)
    return offset, inv_scale


@register
class OrientationSplitter(Splitter):
    """Bivariate CART: ``n_orientations`` fixed directions per feature pair.

    Parameters
    ----------
    n_orientations : int, default=30
        Number of directions spread uniformly over [0, 180) degrees (the paper
        uses 30 to 90).
    """

    name = "orientations"
    max_node_features = 2
    searches_pairs = True

    def __init__(self, n_orientations=30):
        if (not isinstance(n_orientations, numbers.Integral) or isinstance(n_orientations, bool)
                or n_orientations < 1):
            raise ValueError(f"n_orientations must be a positive integer, got {n_orientations!r}")
        self.n_orientations = int(n_orientations)
        self.dir_a, self.dir_b = orientation_directions(self.n_orientations)

    def find_split(self, data, samples, features):
        univariate = best_univariate_split(data, samples, features)
        # no valid univariate cut (ties, min_samples_leaf) does not rule out a
        # bivariate one: the pair search runs whatever the univariate result
        if self.dir_a.size == 0:
            return univariate
        offset, inv_scale = node_min_max_scaling(data.X, samples, features)
        varying = features[inv_scale[features] > 0]
        pair_j, pair_k = candidate_pairs(varying)
        if pair_j.size == 0:
            return univariate
        proxies, directions, _ = pair_direction_search(
            data.X, samples, pair_j, pair_k, self.dir_a, self.dir_b, offset, inv_scale,
            data.labels, data.targets, data.sample_weight, data.n_classes, data.criterion,
            data.min_samples_leaf, data.min_weight_leaf)
        best = int(np.argmax(proxies))  # first maximum: lowest pair wins ties
        if not np.isfinite(proxies[best]):
            return univariate
        return finish_bivariate(data, samples, univariate, best, pair_j, pair_k, self.dir_a,
                                self.dir_b, directions[best], inv_scale,
                                n_pairs=int(pair_j.size))
