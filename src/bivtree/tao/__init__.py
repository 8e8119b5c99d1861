"""Bivariate TAO (tree alternating optimization): a tree of fixed structure improved node by node.

Kairgeldin & Carreira-Perpinan, KDD 2024. The package holds the three steps from the
algorithm to a chosen model:

- :mod:`~bivtree.tao.optimizer`: the algorithm on arrays: :class:`TAOState` (a fixed
  structure, zero-variate nodes kept), ``TAOOptimizer`` (the iterations, the reduced
  problem of each node and the choice among zero-, uni- and bivariate rules),
  ``next_alpha`` and ``state_to_tree``;
- :mod:`~bivtree.tao.estimators`: the estimators fitting one tree,
  :class:`TAOTreeClassifier` and :class:`TAOTreeRegressor`, and the regularization path
  :func:`tao_path` (:class:`TAOPath`, :class:`TAOPathStep`);
- :mod:`~bivtree.tao.selection`: the selectors :class:`TAOTreeClassifierCV` and
  :class:`TAOTreeRegressorCV`, which choose the feature cost, the initial tree and
  ``alpha`` by validation (:func:`run_path`, :func:`lambda_grid`,
  :func:`select_candidate`).

TAO's compiled kernels are in ``bivtree._kernels.tao``. This package took the place of
the module ``bivtree/tao.py``, whose :class:`TAOState` a pickled fitted TAO estimator
names as ``bivtree.tao.TAOState``: it is importable from here so that such files load.
"""

from .estimators import TAOPath, TAOPathStep, TAOTreeClassifier, TAOTreeRegressor, tao_path
from .optimizer import TAOState
from .selection import (
    TAOTreeClassifierCV,
    TAOTreeRegressorCV,
    lambda_grid,
    run_path,
    select_candidate,
)

__all__ = [
    "TAOPath",
    "TAOPathStep",
    "TAOState",
    "TAOTreeClassifier",
    "TAOTreeClassifierCV",
    "TAOTreeRegressor",
    "TAOTreeRegressorCV",
    "lambda_grid",
    "run_path",
    "select_candidate",
    "tao_path",
]
