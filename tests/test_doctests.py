"""The ``Examples`` sections of the public API's docstrings run and print what they show.

Every docstring example of the modules below is run with :mod:`doctest`
(``NORMALIZE_WHITESPACE | ELLIPSIS``), one test per docstring. The examples fit
small trees (iris, a few dozen rows), so they run in seconds once the numba
kernels are cached.
"""

import doctest
import importlib

import pytest

import bivtree

#: modules whose docstring examples are run.
MODULES = [
    "bivtree.estimators",
    "bivtree.tao.estimators",
    "bivtree.pruning",
    "bivtree.export.text",
    "bivtree.export.code",
    "bivtree.export.explanation",
    "bivtree.persistence",
    "bivtree.shallow",
    "bivtree.optimal_univariate",
]

#: public entry points that must show an example.
DOCUMENTED = [
    bivtree.BivariateTreeClassifier,
    bivtree.BivariateTreeRegressor,
    bivtree.TAOTreeClassifier,
    bivtree.ShallowTreeClassifier,
    bivtree.ShallowTreeRegressor,
    bivtree.tao_path,
    bivtree.export_text,
    bivtree.export_rules,
    bivtree.export_sql,
    bivtree.export_python,
    bivtree.explain,
    bivtree.contributions,
    bivtree.save_model,
    bivtree.load_model,
    importlib.import_module("bivtree.pruning").prune_tree,
]

FLAGS = doctest.NORMALIZE_WHITESPACE | doctest.ELLIPSIS


def _docstring_tests():
    finder = doctest.DocTestFinder()
    tests = []
    for name in MODULES:
        tests += [t for t in finder.find(importlib.import_module(name)) if t.examples]
    return sorted(tests, key=lambda t: t.name)


DOCTESTS = _docstring_tests()


@pytest.mark.parametrize("test", DOCTESTS, ids=[t.name for t in DOCTESTS])
def test_docstring_examples(test):
    runner = doctest.DocTestRunner(optionflags=FLAGS)
    report = []
    runner.run(test, out=report.append)
    assert runner.failures == 0, "".join(report)


@pytest.mark.parametrize("entry", DOCUMENTED, ids=[e.__name__ for e in DOCUMENTED])
def test_public_entry_points_have_examples(entry):
    assert entry.__doc__ is not None and ">>>" in entry.__doc__, (
        f"{entry.__name__}'s docstring has no Examples section")
