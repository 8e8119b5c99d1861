"""Sphinx configuration of bivtree's documentation.

Build with ``sphinx-build -W --keep-going -b html docs docs/_build/html`` after
``pip install ".[docs]"``. Nothing is fetched from the network.
"""

import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
# the source tree, for a build without an installed bivtree
sys.path.insert(0, str(ROOT / "src"))

import bivtree

project = "bivtree"
copyright = "bivtree developers"  # as in LICENSE
release = bivtree.__version__
version = ".".join(release.split(".")[:2])

extensions = [
    "myst_parser",
    "numpydoc",
    "sphinx.ext.autodoc",
]

source_suffix = {".rst": "restructuredtext", ".md": "markdown"}
root_doc = "index"
exclude_patterns = ["_build", "images"]

# ---------------------------------------------------------------- MyST
myst_enable_extensions = ["colon_fence"]
myst_heading_anchors = 3
# the benchmark reports are generated files whose headings may skip a level
suppress_warnings = ["myst.header"]

# ---------------------------------------------------------------- API reference
autodoc_default_options = {"member-order": "bysource"}
autodoc_typehints = "none"
numpydoc_show_class_members = False
numpydoc_class_members_toctree = False
numpydoc_xref_param_type = False
numpydoc_validation_checks = set()

# ---------------------------------------------------------------- HTML
try:
    import furo  # noqa: F401
except ImportError:  # the default theme needs nothing beyond Sphinx
    html_theme = "alabaster"
else:
    html_theme = "furo"
html_title = f"bivtree {release}"
html_static_path = []


def _skip_scikit_learn_members(app, what, name, obj, skip, options):
    """Leave out the members the estimators inherit from scikit-learn (``score``,
    ``get_params``, the generated ``set_*_request`` methods of metadata routing): their
    docstrings refer to scikit-learn's own documentation."""
    if name.startswith("set_") and name.endswith("_request"):
        return True
    if getattr(obj, "__module__", None) and obj.__module__.split(".")[0] == "sklearn":
        return True
    return None


def setup(app):
    app.connect("autodoc-skip-member", _skip_scikit_learn_members)
