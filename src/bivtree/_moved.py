"""Module paths that moved into ``bivtree.tao`` and ``bivtree.export``, kept importable.

The API reference named functions and classes by these paths
(``bivtree.tao_selection.run_path``, ``bivtree.tao_estimators.TAOPathStep``,
``bivtree.explain.Explanation``), the changelog named ``bivtree.formatting``, and a
pickle of a fitted model stores the module of each class in it
(``bivtree.tao_estimators.TAOTreeClassifier``, ``bivtree.tao_selection.TAOTreeClassifierCV``).
Each old path is therefore a second name of the module that moved, the same module
object (``bivtree.tao_selection is bivtree.tao.selection``), registered in
:data:`sys.modules` when bivtree is imported; no file stands at the old path.

A file there would be a second module: ``import bivtree.explain`` would then make the
package's attribute ``explain`` that module in place of the function
:func:`bivtree.explain`, and a name patched on one module would not be seen through the
other. ``bivtree.tao`` (once ``tao.py``) and ``bivtree.export`` (once ``export.py``) are
the packages now, which keep the names that pickles and documents read from them.
The other modules that moved (``export_code``, ``export_onnx``, ``html_page``,
``_html_script``, ``plot``) were never named as modules by a document or a pickle.
"""

import sys

from .export import explanation, formatting
from .tao import estimators, selection

#: old module path -> the module that is there now.
MOVED = {
    "bivtree.explain": explanation,
    "bivtree.formatting": formatting,
    "bivtree.tao_estimators": estimators,
    "bivtree.tao_selection": selection,
}


def register():
    """Makes every old path of :data:`MOVED` import its module: an entry of
    :data:`sys.modules` and, where ``bivtree`` has no attribute of that name
    (``bivtree.explain`` is the function), an attribute of the package, as an imported
    submodule is. ``bivtree/__init__`` calls it once its names are bound."""
    package = sys.modules[__package__]
    for path, module in MOVED.items():
        sys.modules.setdefault(path, module)
        name = path.rpartition(".")[2]
        if not hasattr(package, name):
            setattr(package, name, module)
