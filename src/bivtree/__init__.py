"""bivtree: bivariate decision trees, every split readable as a 2-D plot."""

from . import _kernel_cache, _moved
from ._version import __version__
from .estimators import BivariateTreeClassifier, BivariateTreeRegressor
from .export import (
    contributions,
    explain,
    export_graphviz,
    export_html,
    export_onnx,
    export_python,
    export_rules,
    export_sql,
    export_text,
    plot_split,
    plot_tree,
    register_skl2onnx_converters,
)
from .persistence import from_json, load_model, save_model, to_json
from .shallow import ShallowTreeClassifier, ShallowTreeRegressor
from .tao import (
    TAOPath,
    TAOTreeClassifier,
    TAOTreeClassifierCV,
    TAOTreeRegressor,
    TAOTreeRegressorCV,
    tao_path,
)
from .tree import Tree

_kernel_cache.drop_stale_kernels()
# the module paths that moved into bivtree.tao and bivtree.export import as before
_moved.register()

__all__ = [
    "BivariateTreeClassifier",
    "BivariateTreeRegressor",
    "ShallowTreeClassifier",
    "ShallowTreeRegressor",
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
