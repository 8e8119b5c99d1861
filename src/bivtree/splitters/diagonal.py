"""BIT2 (Bioch, van der Meer & Potharst, 1997, section 3.2).

Tests ``X_i + X_j <= T`` and ``X_i - X_j <= T`` for every feature pair, with all
features scaled to [0, 1] over the training set as the paper does, plus every
univariate test; the bivariate test is used only when it beats the best
univariate one. The winning test is transformed back to the original units
(the paper's example: ``X1 + X2 <= 1.5`` on scaled data becomes
``X1 + 0.00543 X2 <= 2.5163``).

Missing values (NaN): the scaling is that of the known values; the samples
missing a feature of a test go, together, to its better side (every cut of the
known projections times the side of the missing samples is scored).

Constraints: only the pairs the interaction groups allow are tested; of a pair
of two monotonically constrained features only the sum (same senses) or the
difference (opposite senses) is admissible, and every test keeps the cuts its
order admits.
"""

import numpy as np

from ..constraints import UNBOUNDED
from ._base import Splitter, register
from ._pairs import best_direction_split
from .univariate import best_univariate_split

_DIR_A = np.array([1.0, 1.0])
_DIR_B = np.array([1.0, -1.0])


@register
class DiagonalSplitter(Splitter):
    """BIT2: the sum and the difference of each pair of [0, 1]-scaled features."""

    name = "diagonal"
    parallel_subtrees = True
    max_node_features = 2
    searches_pairs = True
    supports_constraints = True

    def prepare(self, data):
        # the scaling of the training set the tree is grown on: the samples of
        # positive weight (zero-weight samples are ignored by the fit, so they
        # must not move the scaling and with it the searched directions)
        X = data.X[data.sample_weight > 0] if np.any(data.sample_weight > 0) else data.X
        # the known values' range (NaN, a missing value, is left out; a column
        # with no known value gets span NaN and so inverse scale 0)
        lo = np.fmin.reduce(X, axis=0)
        span = np.fmax.reduce(X, axis=0) - lo
        self.offset = np.ascontiguousarray(lo)
        with np.errstate(divide="ignore"):
            self.inv_scale = np.where(span > 0, 1.0 / np.where(span > 0, span, 1.0), 0.0)

    def find_split(self, data, samples, features, bounds=UNBOUNDED):
        # no valid univariate cut does not rule out a bivariate one
        univariate = best_univariate_split(data, samples, features, bounds)
        return best_direction_split(data, samples, features, univariate, _DIR_A, _DIR_B,
                                    self.offset, self.inv_scale, bounds)
