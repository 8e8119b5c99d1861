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

Missing values (NaN): each feature's scaling is that of its known values, a
sample missing either feature of a pair goes, with the others missing it, to
the left or to the right side, both scored; for its fixed directions the search
is exact for that problem (every cut of the known projections times the side of
the missing samples).

Constraints: only the pairs the interaction groups allow are searched; under
monotonic constraints a direction whose rule would test two constrained
features in disagreeing senses is skipped (half the directions of such a
pair), and each other direction gets its best admissible cut, so the search is
exact among the admissible splits of its directions.
"""

from typing import ClassVar

import numpy as np

from .._kernels.pair_scaling import node_min_max_scaling
from .._validation import Integral, Interval, check_params
from ..constraints import UNBOUNDED
from ._base import Splitter, register
from ._pairs import best_direction_split
from .univariate import best_univariate_split

# the node scaling is a shared kernel now; it stays importable from here, where it is used
__all__ = ["OrientationSplitter", "node_min_max_scaling", "orientation_directions"]


def orientation_directions(n_orientations):
    """The oblique directions ``(cos t, sin t)``, ``t = pi h / H``, axis-aligned ones left out."""
    angles = np.pi * np.arange(n_orientations) / n_orientations
    a, b = np.cos(angles), np.sin(angles)
    oblique = (np.abs(a) > 1e-12) & (np.abs(b) > 1e-12)
    return np.ascontiguousarray(a[oblique]), np.ascontiguousarray(b[oblique])


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
    parallel_subtrees = True
    max_node_features = 2
    searches_pairs = True
    supports_constraints = True
    _parameter_constraints: ClassVar[dict] = {"n_orientations": [Interval(Integral, 1, None, closed="left")]}
    estimator_params = ("n_orientations",)

    def __init__(self, n_orientations=30):
        check_params(f"the {self.name!r} splitter", {"n_orientations": n_orientations},
                     self._parameter_constraints)
        self.n_orientations = int(n_orientations)
        self.dir_a, self.dir_b = orientation_directions(self.n_orientations)

    def find_split(self, data, samples, features, bounds=UNBOUNDED):
        univariate = best_univariate_split(data, samples, features, bounds)
        # no valid univariate cut (ties, min_samples_leaf) does not rule out a
        # bivariate one: the pair search runs whatever the univariate result
        if self.dir_a.size == 0:
            return univariate
        scaling = node_min_max_scaling(data.X, samples, features)
        return best_direction_split(data, samples, features, univariate, self.dir_a,
                                    self.dir_b, scaling.offset, scaling.inv_scale, bounds)
