"""The ``bivtree`` command line."""

import re

import pytest
from sklearn.datasets import load_breast_cancer

import bivtree
from bivtree.cli import main

ACCURACY = re.compile(r"\b[01]\.\d{3} ± \d\.\d{3}\b")


@pytest.fixture(scope="module")
def feature_names():
    return [str(name) for name in load_breast_cancer().feature_names]


def test_demo_prints_rules_and_comparison(capsys, feature_names):
    assert main(["demo", "--cv", "3", "--max-depth", "2"]) == 0
    out = capsys.readouterr().out

    rules = [line.strip() for line in out.splitlines() if line.lstrip().startswith("if ")]
    assert rules, out
    # rules use the data's real feature names, not x0, x1, ...
    assert any(name in rule for rule in rules for name in feature_names), rules
    assert not any(re.search(r"\bx\d+\b", rule) for rule in rules), rules
    # depth 2: at most the root and its two children are decision nodes
    assert len(rules) <= 3

    assert "BivariateTreeClassifier" in out
    assert "DecisionTreeClassifier" in out
    assert "3-fold" in out
    table = [line for line in out.splitlines() if ACCURACY.search(line)]
    assert len(table) == 2, out
    assert table[0].startswith("BivariateTreeClassifier")
    assert table[1].startswith("DecisionTreeClassifier")
    # scikit-learn's CART never tests two features at a node
    assert table[1].rstrip().endswith("0%")


def test_demo_univariate_splitter_has_no_bivariate_nodes(capsys):
    assert main(["demo", "--splitter", "univariate", "--cv", "2", "--max-depth", "1"]) == 0
    out = capsys.readouterr().out
    table = [line for line in out.splitlines() if ACCURACY.search(line)]
    assert len(table) == 2
    assert all(line.rstrip().endswith(" 0%") for line in table), table


def test_version(capsys):
    with pytest.raises(SystemExit) as exc:
        main(["--version"])
    assert exc.value.code == 0
    assert capsys.readouterr().out.strip() == f"bivtree {bivtree.__version__}"


@pytest.mark.parametrize("argv", [["--help"], ["demo", "--help"]])
def test_help(capsys, argv):
    with pytest.raises(SystemExit) as exc:
        main(argv)
    assert exc.value.code == 0
    assert "usage: bivtree" in capsys.readouterr().out


def test_no_command_prints_help(capsys):
    assert main([]) == 0
    assert "demo" in capsys.readouterr().out


@pytest.mark.parametrize("argv", [
    ["frobnicate"],
    ["demo", "--cv", "1"],
    ["demo", "--max-depth", "0"],
    ["demo", "--n-jobs", "0"],
    ["demo", "--splitter", "nonexistent"],
])
def test_bad_arguments_are_usage_errors(capsys, argv):
    with pytest.raises(SystemExit) as exc:
        main(argv)
    assert exc.value.code == 2
    assert "error:" in capsys.readouterr().err
