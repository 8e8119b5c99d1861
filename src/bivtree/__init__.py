"""bivtree: bivariate decision trees, every split readable as a 2-D plot."""

from . import _kernel_cache
from ._version import __version__
from .estimators import BivariateTreeClassifier, BivariateTreeRegressor
from .explain import contributions, explain
from .export import export_graphviz, export_rules, export_text
from .export_code import export_python, export_sql
from .export_onnx import export_onnx, register_skl2onnx_converters
from .html_page import export_html
from .persistence import from_json, load_model, save_model, to_json
from .plot import plot_split, plot_tree
from .shallow import ShallowTreeClassifier
from .tao_estimators import TAOPath, TAOTreeClassifier, TAOTreeRegressor, tao_path
from .tao_selection import TAOTreeClassifierCV, TAOTreeRegressorCV
from .tree import Tree

_kernel_cache.drop_stale_kernels()

__all__ = [
    "BivariateTreeClassifier",
    "BivariateTreeRegressor",
    "ShallowTreeClassifier",
    "TAOPath",
    "TAOTreeClassifier",
    "TAOTreeClassifierCV",
    "TAOTreeRegressor",
    "TAOTreeRegressorCV",
    "Tree",
    "__version__",
    "contributions",
    "explain",
    "export_graphviz",
    "export_html",
    "export_onnx",
    "export_python",
    "export_rules",
    "export_sql",
    "export_text",
    "from_json",
    "load_model",
    "plot_split",
    "plot_tree",
    "register_skl2onnx_converters",
    "save_model",
    "tao_path",
    "to_json",
]
