"""A fitted tree read outside the model: text, rules, code, ONNX, pictures, a page.

Every module here reads a fitted tree (through ``bivtree.estimators.tree_estimator``,
so a selector's chosen tree too) and turns it into something a person or another
system reads; none of them fits or changes a tree, and the fitting code imports none of
them (``tests/test_imports.py`` checks it).

- :mod:`~bivtree.export.text`: :func:`export_text` (nested rules in the data's units),
  :func:`export_rules` and :func:`rules_markdown` (one row per leaf),
  :func:`export_graphviz` (DOT source);
- :mod:`~bivtree.export.code`: :func:`export_sql` and :func:`export_python`, code that
  routes rows as ``apply`` does without bivtree;
- :mod:`~bivtree.export.onnx`: :func:`export_onnx` and
  :func:`register_skl2onnx_converters`;
- :mod:`~bivtree.export.plot`: :func:`plot_tree` and :func:`plot_split` (matplotlib);
- :mod:`~bivtree.export.html_page`: :func:`export_html`, one self-contained interactive
  page, whose script and style are the package data files ``page/page.js`` and
  ``page/page.css``;
- :mod:`~bivtree.export.explanation`: :func:`explain` (one sample's path) and
  :func:`contributions` (what each feature added to a prediction);
- :mod:`~bivtree.export.formatting`: numbers, names and node tests as text, shared by
  all of the above, so a rule reads the same wherever it appears.

Why ``export`` rather than ``inspect``: ``bivtree.export`` was already a public module
path (the guide, the API reference and the examples import :func:`rules_markdown` from
it; the command line's help names ``bivtree.export.save_model``), and as this package
it keeps every name that module had, :func:`save_model`, :func:`load_model`,
:func:`to_json` and :func:`from_json` of :mod:`bivtree.persistence` included. Each
module turns the tree into something outside the model, a text, a program, a graph, a
picture, a page or an explanation, which is what "export" says; and a package named
``inspect`` would take the name of a standard library module.
"""

from ..persistence import from_json, load_model, save_model, to_json
from .code import export_python, export_sql
from .explanation import contributions, explain
from .formatting import format_rule, ratio_rule
from .html_page import export_html
from .onnx import export_onnx, register_skl2onnx_converters
from .plot import plot_split, plot_tree
from .text import export_graphviz, export_rules, export_text, fitted_constraints, rules_markdown

__all__ = [
    "contributions",
    "explain",
    "export_graphviz",
    "export_html",
    "export_onnx",
    "export_python",
    "export_rules",
    "export_sql",
    "export_text",
    "fitted_constraints",
    "format_rule",
    "from_json",
    "load_model",
    "plot_split",
    "plot_tree",
    "ratio_rule",
    "register_skl2onnx_converters",
    "rules_markdown",
    "save_model",
    "to_json",
]
