"""bivtree: bivariate decision trees, every split readable as a 2-D plot."""

from .estimators import BivariateTreeClassifier, BivariateTreeRegressor
from .export import export_text
from .tree import Tree

__version__ = "0.1.0"

__all__ = [
    "BivariateTreeClassifier",
    "BivariateTreeRegressor",
    "Tree",
    "export_text",
    "__version__",
]
