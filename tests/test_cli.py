"""The ``bivtree`` command line."""

import re

import numpy as np
import pytest
from sklearn.datasets import load_breast_cancer

import bivtree
from bivtree import BivariateTreeClassifier
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


# --------------------------------------------------------------------------- fit / predict / show
@pytest.fixture
def table(tmp_path):
    """A small training table: an id column, three features and a string label."""
    pd = pytest.importorskip("pandas")
    rng = np.random.default_rng(0)
    X = rng.uniform(1.0, 10.0, size=(80, 3))
    label = np.where(X[:, 0] - 0.5 * X[:, 1] > 2.0, "sick", "well")
    frame = pd.DataFrame({"id": np.arange(80), "waist": X[:, 0], "height": X[:, 1],
                          "age": X[:, 2], "label": label})
    path = tmp_path / "train.csv"
    frame.to_csv(path, index=False)
    return path, frame


def test_fit_predict_show_round_trip(capsys, tmp_path, table):
    pd = pytest.importorskip("pandas")
    path, frame = table
    model_path = tmp_path / "model.json"
    assert main(["fit", str(path), "--target", "label", "--drop", "id", "--max-depth", "2",
                 "-o", str(model_path)]) == 0
    out = capsys.readouterr().out
    assert "fitting a BivariateTreeClassifier" in out and "[bivtree]" in out
    assert f"model written to {model_path}" in out

    model = BivariateTreeClassifier.load(model_path)
    assert list(model.feature_names_in_) == ["waist", "height", "age"]
    assert model.max_depth == 2 and model.verbose == 0
    expected = model.predict(frame[["waist", "height", "age"]])
    refit = BivariateTreeClassifier(max_depth=2).fit(frame[["waist", "height", "age"]],
                                                     frame["label"])
    assert np.array_equal(refit.predict(frame[["waist", "height", "age"]]), expected)

    # predict: columns found by name, others ignored; to a file and to stdout
    predictions = tmp_path / "predictions.csv"
    shuffled = frame[["label", "age", "height", "id", "waist"]]
    shuffled.to_csv(tmp_path / "new.csv", index=False)
    assert main(["predict", str(model_path), str(tmp_path / "new.csv"), "--proba",
                 "-o", str(predictions)]) == 0
    written = pd.read_csv(predictions)
    assert np.array_equal(written["prediction"].to_numpy(), expected)
    assert list(written.columns) == ["prediction", "proba_sick", "proba_well"]
    assert np.allclose(written[["proba_sick", "proba_well"]].sum(axis=1), 1.0)
    capsys.readouterr()
    assert main(["predict", str(model_path), str(path)]) == 0
    lines = capsys.readouterr().out.splitlines()
    assert lines[0] == "prediction" and lines[1:] == list(expected)

    # show: rules on stdout, or a file by suffix
    assert main(["show", str(model_path)]) == 0
    out = capsys.readouterr().out
    assert "target 'label'" in out and "if " in out and "class: " in out
    for name, check in [("tree.png", lambda b: b[:4] == b"\x89PNG"),
                        ("tree.svg", lambda b: b"<svg" in b[:2000]),
                        ("rules.md", lambda b: b.startswith(b"| leaf | rule |")),
                        ("rules.csv", lambda b: b.startswith(b"leaf,rule,prediction")),
                        ("tree.dot", lambda b: b.startswith(b"digraph")),
                        ("rules.txt", lambda b: b.startswith(b"if "))]:
        target = tmp_path / name
        argv = ["show", str(model_path), "--out", str(target)]
        if name.endswith((".png", ".svg")):
            argv += ["--data", str(path), "--dpi", "30"]
        assert main(argv) == 0, name
        assert check(target.read_bytes()), name
    rules = (tmp_path / "rules.md").read_text()
    assert rules.count("\n") == model.get_n_leaves() + 2


def test_fit_picks_a_regressor_for_a_continuous_target(capsys, tmp_path, table):
    path, frame = table
    frame = frame.assign(score=frame["waist"] * 0.3 + frame["age"])
    frame.to_csv(path, index=False)
    model_path = tmp_path / "reg.json"
    assert main(["fit", str(path), "--target", "score", "--features", "waist", "age",
                 "--max-depth", "2", "--quiet", "-o", str(model_path)]) == 0
    assert capsys.readouterr().out == ""
    model = bivtree.BivariateTreeRegressor.load(model_path)
    assert list(model.feature_names_in_) == ["waist", "age"]
    assert main(["fit", str(path), "--target", "label", "--drop", "id", "--quiet",
                 "--set", "n_orientations=4", "--set", "max_leaf_nodes=3",
                 "-o", str(model_path)]) == 0
    model = BivariateTreeClassifier.load(model_path)
    assert model.n_orientations == 4 and model.get_n_leaves() <= 3
    # default output: next to the data
    assert main(["fit", str(path), "--target", "label", "--drop", "id", "--quiet",
                 "--max-depth", "1"]) == 0
    assert (tmp_path / "train.model.json").exists()


@pytest.mark.parametrize("argv, message", [
    (["fit", "{data}", "--target", "nope"], "no column 'nope'"),
    (["fit", "{data}", "--target", "id"], "non-numeric column"),
    (["fit", "{data}", "--target", "label", "--drop", "id", "--set", "bogus=1"], "bogus"),
    (["fit", "{data}", "--target", "label", "--features", "label"], "cannot also be"),
    (["fit", "{dir}/missing.csv", "--target", "label"], "no such file"),
    (["fit", "{dir}/data.xlsx", "--target", "label"], "unknown data format"),
    (["predict", "{data}", "{data}"], "not valid JSON"),
    (["predict", "{model}", "{dir}/few.csv"], "needs column"),
    (["predict", "{model}", "{data}", "--proba"], None),
    (["show", "{model}", "--out", "{dir}/tree.gif"], "unknown format"),
    (["show", "{model}", "--data", "{data}", "--target", "nope"], "no column 'nope'"),
])
def test_bad_input_is_an_error_message(capsys, tmp_path, table, argv, message):
    path, frame = table
    model = tmp_path / "model.json"
    assert main(["fit", str(path), "--target", "label", "--drop", "id", "--max-depth", "1",
                 "--quiet", "-o", str(model)]) == 0
    frame[["waist"]].to_csv(tmp_path / "few.csv", index=False)
    (tmp_path / "data.xlsx").write_text("")
    argv = [a.format(data=path, dir=tmp_path, model=model) for a in argv]
    status = main(argv)
    err = capsys.readouterr().err
    if message is None:  # the one valid call among them
        assert status == 0
        return
    assert status == 1
    assert f"bivtree {argv[0]}: error:" in err and message in err, err


def test_proba_needs_a_classifier(capsys, tmp_path, table):
    path, _frame = table
    model = tmp_path / "reg.json"
    assert main(["fit", str(path), "--target", "age", "--model", "regressor", "--drop", "id",
                 "label", "--max-depth", "1", "--quiet", "-o", str(model)]) == 0
    assert main(["predict", str(model), str(path), "--proba"]) == 1
    assert "needs a classifier" in capsys.readouterr().err


@pytest.mark.parametrize("command", ["fit", "predict", "show"])
def test_data_command_help(capsys, command):
    with pytest.raises(SystemExit) as exc:
        main([command, "--help"])
    assert exc.value.code == 0
    assert f"usage: bivtree {command}" in capsys.readouterr().out


def test_parquet_in_and_out(capsys, tmp_path, table):
    pd = pytest.importorskip("pandas")
    pytest.importorskip("pyarrow")
    _, frame = table
    train = tmp_path / "train.parquet"
    frame.to_parquet(train, index=False)
    model_path = tmp_path / "model.json"
    assert main(["fit", str(train), "--target", "label", "--drop", "id", "--max-depth", "2",
                 "-o", str(model_path)]) == 0
    out_path = tmp_path / "predictions.parquet"
    assert main(["predict", str(model_path), str(train), "-o", str(out_path)]) == 0
    written = pd.read_parquet(out_path)
    model = BivariateTreeClassifier.load(model_path)
    assert np.array_equal(written["prediction"].to_numpy(),
                          model.predict(frame[["waist", "height", "age"]]))
