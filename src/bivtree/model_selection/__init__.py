"""Choosing a tree's complexity on held-out data.

* :class:`CostComplexityCV`: a tree pruned by minimal cost-complexity pruning,
  ``ccp_alpha`` chosen by CART's cross-validation (or on a validation split),
  for bivtree's estimators and scikit-learn's trees alike.
"""

from .cost_complexity import CostComplexityCV

__all__ = ["CostComplexityCV"]
