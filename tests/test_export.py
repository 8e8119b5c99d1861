"""Text rules in the data's units."""

import re

import numpy as np
import pytest

from bivtree import BivariateTreeClassifier, BivariateTreeRegressor, export_text
from bivtree.export import format_rule


def fitted(seed=0):
    rng = np.random.default_rng(seed)
    X = rng.uniform(1, 10, size=(300, 3))
    y = (X[:, 0] >= 0.6 * X[:, 1]).astype(int)
    return X, y, BivariateTreeClassifier(max_depth=2).fit(X, y)


def test_format_rule_reads_naturally():
    names = ["waist", "height", "age"]
    assert format_rule([0, 1], [1.0, -0.5], 0.0, names) == "waist - 0.5 * height <= 0"
    assert format_rule([2, 0], [1.0, 0.25], 3.14159, names) == "age + 0.25 * waist <= 3.142"
    assert format_rule([1, -1], [1.0, 0.0], 13980.3, names) == "height <= 13980"
    assert format_rule([0, 1], [1.0, 2.0], 1.5, names, op=">") == "waist + 2 * height > 1.5"


def test_export_text_structure_and_names():
    X, y, clf = fitted()
    text = export_text(clf, feature_names=["waist", "height", "age"])
    lines = text.splitlines()
    assert lines[0].startswith("if waist") and lines[0].endswith(":")
    n_if = sum(line.lstrip().startswith("if ") for line in lines)
    n_else = sum(line.lstrip().startswith("else:") for line in lines)
    n_leaf = sum("class:" in line for line in lines)
    internal = int((~clf.tree_.is_leaf).sum())
    assert n_if == n_else == internal
    assert n_leaf == clf.get_n_leaves()
    counts = [int(m) for m in re.findall(r"samples: (\d+)", text)]
    assert sum(counts) == X.shape[0]


def test_exact_numbers_round_trip():
    X, y, clf = fitted(1)
    text = export_text(clf, decimals=None)
    root = text.splitlines()[0]
    numbers = [float(v) for v in re.findall(r"[-+]?\d+\.\d+(?:e[-+]?\d+)?", root)]
    tree = clf.tree_
    expected = [abs(w) for w in tree.weights[0][1:] if w != 0] + [tree.threshold[0]]
    assert numbers == expected


def test_feature_name_checks_and_depth_limit():
    X, y, clf = fitted()
    with pytest.raises(ValueError, match="feature_names has 2 names"):
        export_text(clf, feature_names=["a", "b"])
    rng = np.random.default_rng(0)
    X = rng.normal(size=(200, 3))
    deep = BivariateTreeClassifier(max_depth=4).fit(X, X[:, 0] * X[:, 1] > 0)
    assert "..." in export_text(deep, max_depth=0)
    assert "..." not in export_text(deep)


def test_regression_leaves_show_values():
    rng = np.random.default_rng(0)
    X = rng.normal(size=(100, 2))
    reg = BivariateTreeRegressor(max_depth=1).fit(X, X[:, 0] - X[:, 1])
    text = export_text(reg)
    assert text.count("value:") == 2 and "x0" in text
