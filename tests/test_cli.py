"""The ``bivtree`` command line."""

import os
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
                        ("tree.jpg", lambda b: b[:3] == b"\xff\xd8\xff"),
                        ("tree.webp", lambda b: b[:4] == b"RIFF" and b[8:12] == b"WEBP"),
                        ("rules.md", lambda b: b.startswith(b"| leaf | rule |")),
                        ("rules.csv", lambda b: b.startswith(b"leaf,rule,prediction")),
                        ("tree.dot", lambda b: b.startswith(b"digraph")),
                        ("rules.txt", lambda b: b.startswith(b"if "))]:
        target = tmp_path / name
        argv = ["show", str(model_path), "--out", str(target)]
        if name.startswith("tree.") and not name.endswith(".dot"):
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
                 "-o", str(model_path), "--force"]) == 0
    model = BivariateTreeClassifier.load(model_path)
    assert model.n_orientations == 4 and model.get_n_leaves() <= 3
    # default output: next to the data
    assert main(["fit", str(path), "--target", "label", "--drop", "id", "--quiet",
                 "--max-depth", "1"]) == 0
    assert (tmp_path / "train.model.json").exists()


@pytest.mark.parametrize("argv, message", [
    (["fit", "{data}", "--target", "nope"], "no column 'nope'"),
    (["fit", "{data}", "--target", "id", "--numeric", "label"],
     "--numeric column 'label' holds 'sick' in row 1, not a number"),
    (["fit", "{data}", "--target", "label", "--categorical", "nope"],
     "--categorical: ['nope'] are not feature columns"),
    (["fit", "{data}", "--target", "label", "--categorical", "age", "--numeric", "age"],
     "given to both --categorical and --numeric"),
    (["predict", "{model}", "{data}", "--keep", "nope"], "--keep: "),
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


# --------------------------------------------------------------------------- outputs are never lost
def _fail_if_called(*args, **kwargs):
    raise AssertionError("work started although the output was invalid")


@pytest.fixture
def model_file(tmp_path, table):
    """A model fitted on ``table`` by the command line."""
    path, _frame = table
    model = tmp_path / "model.json"
    assert main(["fit", str(path), "--target", "label", "--drop", "id", "--max-depth", "1",
                 "--quiet", "-o", str(model)]) == 0
    return model


@pytest.mark.parametrize("command", [
    ["fit", "{data}", "--target", "label", "--drop", "id", "-o", "{out}"],
    ["predict", "{model}", "{data}", "-o", "{out}"],
    ["show", "{model}", "--out", "{out}"],
])
def test_an_existing_output_is_refused_before_any_work(capsys, monkeypatch, tmp_path, table,
                                                       model_file, command):
    import bivtree.persistence

    path, _frame = table
    out = tmp_path / ("rules.csv" if command[0] == "show" else "out.csv")
    out.write_text("precious\n")
    monkeypatch.setattr(BivariateTreeClassifier, "fit", _fail_if_called)
    monkeypatch.setattr(bivtree.persistence, "load_model", _fail_if_called)
    argv = [a.format(data=path, model=model_file, out=out) for a in command]
    assert main(argv) == 1
    captured = capsys.readouterr()
    assert f"bivtree {command[0]}: error: {out} already exists; add --force" in captured.err
    assert captured.out == ""
    assert out.read_text() == "precious\n"


def test_force_replaces_an_existing_output(capsys, tmp_path, table, model_file):
    pd = pytest.importorskip("pandas")
    path, _frame = table
    old = model_file.read_text()
    assert main(["fit", str(path), "--target", "label", "--drop", "id", "--max-depth", "2",
                 "--quiet", "-o", str(model_file), "--force"]) == 0
    assert model_file.read_text() != old
    assert BivariateTreeClassifier.load(model_file).max_depth == 2

    predictions = tmp_path / "predictions.csv"
    rules = tmp_path / "rules.md"
    for target in (predictions, rules):
        target.write_text("old\n")
    assert main(["predict", str(model_file), str(path), "-o", str(predictions), "--force"]) == 0
    assert list(pd.read_csv(predictions).columns) == ["prediction"]
    assert main(["show", str(model_file), "--out", str(rules), "--force"]) == 0
    assert rules.read_text().startswith("| leaf | rule |")
    # written beside the target and renamed: no temporary file stays behind
    assert sorted(p.name for p in tmp_path.iterdir()) == [
        "model.json", "predictions.csv", "rules.md", "train.csv"]


@pytest.mark.parametrize("where, message", [
    ("{dir}/missing/model.json", "the folder '{dir}/missing' does not exist"),
    ("{dir}", "{dir}: is a folder"),
])
def test_a_bad_output_path_is_refused_before_fitting(capsys, monkeypatch, tmp_path, table,
                                                     where, message):
    path, _frame = table
    monkeypatch.setattr(BivariateTreeClassifier, "fit", _fail_if_called)
    out = where.format(dir=tmp_path)
    assert main(["fit", str(path), "--target", "label", "--drop", "id", "-o", out]) == 1
    captured = capsys.readouterr()
    assert message.format(dir=tmp_path) in captured.err, captured.err
    assert "fitting" not in captured.out


@pytest.mark.skipif(not hasattr(os, "geteuid") or os.geteuid() == 0,
                    reason="needs file permissions that bind (not root)")
def test_a_read_only_folder_is_refused_before_fitting(capsys, monkeypatch, tmp_path, table):
    path, _frame = table
    locked = tmp_path / "locked"
    locked.mkdir()
    locked.chmod(0o500)
    monkeypatch.setattr(BivariateTreeClassifier, "fit", _fail_if_called)
    try:
        assert main(["fit", str(path), "--target", "label", "-o",
                     str(locked / "model.json")]) == 1
    finally:
        locked.chmod(0o700)
    assert "permission denied" in capsys.readouterr().err


@pytest.mark.parametrize("command", [
    ["predict", "{model}", "{data}", "-o", "{dir}/nowhere/predictions.csv"],
    ["show", "{model}", "--out", "{dir}/nowhere/tree.png"],
])
def test_predict_and_show_check_the_output_folder_first(capsys, monkeypatch, tmp_path, table,
                                                        model_file, command):
    import bivtree.persistence

    path, _frame = table
    monkeypatch.setattr(bivtree.persistence, "load_model", _fail_if_called)
    argv = [a.format(data=path, model=model_file, dir=tmp_path) for a in command]
    assert main(argv) == 1
    assert "nowhere' does not exist" in capsys.readouterr().err


def test_a_failed_write_keeps_the_replaced_file(capsys, monkeypatch, tmp_path, table,
                                                model_file):
    import bivtree.persistence

    path, _frame = table
    old = model_file.read_text()

    def write_half_then_fail(model, target, **kwargs):
        with open(target, "w") as fh:
            fh.write("{")
        raise OSError(28, "No space left on device")

    monkeypatch.setattr(bivtree.persistence, "save_model", write_half_then_fail)
    assert main(["fit", str(path), "--target", "label", "--drop", "id", "--max-depth", "2",
                 "--quiet", "-o", str(model_file), "--force"]) == 1
    assert "No space left on device" in capsys.readouterr().err
    assert model_file.read_text() == old
    assert sorted(p.name for p in tmp_path.iterdir()) == ["model.json", "train.csv"]


# --------------------------------------------------------------------------- bad input files
def test_show_drops_the_target_of_a_model_without_feature_names(capsys, tmp_path, table):
    from bivtree import save_model

    _path, frame = table
    features = frame[["waist", "height", "age"]].to_numpy()
    model = BivariateTreeClassifier(max_depth=2).fit(features, frame["label"].to_numpy())
    model_path = tmp_path / "array.json"
    save_model(model, model_path)
    data = tmp_path / "labelled.csv"
    frame[["waist", "height", "age", "label"]].to_csv(data, index=False)
    rules = tmp_path / "rules.csv"
    assert main(["show", str(model_path), "--data", str(data), "--target", "label",
                 "--out", str(rules)]) == 0
    written = rules.read_text().splitlines()
    assert written[0].startswith("leaf,rule,prediction")
    assert len(written) == model.get_n_leaves() + 1

    assert main(["show", str(model_path), "--data", str(data), "--target", "diagnosis",
                 "--out", str(tmp_path / "tree.png")]) == 1
    err = capsys.readouterr().err
    assert f"{data}: no column 'diagnosis' (--target)" in err, err
    assert not (tmp_path / "tree.png").exists()


@pytest.mark.parametrize("content, message", [
    (b"", "the file is empty"),
    (b"\n\n", "the file holds no table"),
    (b"waist,height,age,label\n", "no data rows, only the column names"),
    (b"waist,height,age,label\n1,2,3,caf\xe9\n",
     "not utf-8 text (byte 0xe9 on line 2); name the file's encoding"),
    (b"\x89PNG\r\n\x1a\n\x00\x00\x00\rIHDR", "a binary file, not a text table"),
    (b"waist,height\n1,2\n3,4,5,6\n", "not a comma-separated table"),
])
@pytest.mark.parametrize("command", ["fit", "predict", "show"])
def test_an_unreadable_input_file_is_named(capsys, tmp_path, model_file, content, message,
                                           command):
    data = tmp_path / "bad.csv"
    data.write_bytes(content)
    argv = {"fit": ["fit", str(data), "--target", "label"],
            "predict": ["predict", str(model_file), str(data)],
            "show": ["show", str(model_file), "--data", str(data)]}[command]
    assert main(argv) == 1
    captured = capsys.readouterr()
    assert f"bivtree {command}: error: {data}: {message}" in captured.err, captured.err
    assert "Traceback" not in captured.err
    assert captured.out == ""


def test_encoding_option_reads_other_encodings(capsys, tmp_path, table):
    _path, frame = table
    data = tmp_path / "latin.csv"
    frame.assign(label=np.where(frame["label"] == "sick", "malade", "bien portant é"))[
        ["waist", "height", "age", "label"]].to_csv(data, index=False, encoding="latin-1")
    model = tmp_path / "latin.json"
    argv = ["fit", str(data), "--target", "label", "--max-depth", "1", "--quiet",
            "-o", str(model)]
    assert main(argv) == 1
    assert "--encoding latin-1" in capsys.readouterr().err
    assert main(argv + ["--encoding", "latin-1"]) == 0
    assert "bien portant é" in BivariateTreeClassifier.load(model).classes_
    with pytest.raises(SystemExit) as exc:
        main(argv + ["--encoding", "klingon"])
    assert exc.value.code == 2
    assert "unknown encoding 'klingon'" in capsys.readouterr().err


def _table_with_holes(tmp_path, frame):
    holes = frame.copy()
    holes.loc[[3, 41], "height"] = np.nan
    holes.loc[41, "age"] = np.nan
    data = tmp_path / "holes.csv"
    holes.to_csv(data, index=False)
    return data, holes


def test_empty_cells_are_missing_values_fitted_and_predicted_row_for_row(capsys, tmp_path,
                                                                         table):
    pd = pytest.importorskip("pandas")
    _path, frame = table
    data, holes = _table_with_holes(tmp_path, frame)
    model = tmp_path / "holes.json"
    assert main(["fit", str(data), "--target", "label", "--drop", "id", "--max-depth", "3",
                 "--quiet", "-o", str(model)]) == 0
    fitted = BivariateTreeClassifier.load(model)
    assert fitted.tree_.missing_learned
    out = tmp_path / "predictions.csv"
    assert main(["predict", str(model), str(data), "-o", str(out)]) == 0
    predicted = pd.read_csv(out)
    # every row gets its prediction, the rows with empty cells included
    assert len(predicted) == len(holes)
    expected = fitted.predict(holes[["waist", "height", "age"]])
    assert predicted["prediction"].tolist() == expected.tolist()
    assert main(["show", str(model), "--data", str(data), "--out",
                 str(tmp_path / "tree.png")]) == 0
    assert (tmp_path / "tree.png").exists()
    capsys.readouterr()


@pytest.mark.parametrize("command", ["predict", "show"])
def test_missing_values_are_named_by_row_and_column(capsys, monkeypatch, tmp_path, table,
                                                   command):
    """A model whose search refuses missing values names the rows and columns holding them."""
    from bivtree.splitters.hillclimb import HillClimbSplitter

    # every built-in search routes missing values: one that does not is declared here
    monkeypatch.setattr(HillClimbSplitter, "supports_missing", False)
    path, frame = table
    model_file = tmp_path / "hillclimb.json"
    assert main(["fit", str(path), "--target", "label", "--drop", "id", "--max-depth", "1",
                 "--splitter", "hillclimb", "--quiet", "-o", str(model_file)]) == 0
    data, _holes = _table_with_holes(tmp_path, frame)
    argv = {"predict": ["predict", str(model_file), str(data)],
            "show": ["show", str(model_file), "--data", str(data), "--out",
                     str(tmp_path / "tree.png")]}[command]
    assert main(argv) == 1
    captured = capsys.readouterr()
    assert (f"{data}: 2 of 80 rows have missing values (rows 4, 42, counting data rows "
            "from 1) in column(s) 'height' (2), 'age' (1)") in captured.err, captured.err
    assert captured.out == ""
    assert not (tmp_path / "tree.png").exists()


def test_fit_names_non_numeric_values(capsys, tmp_path, table):
    _path, frame = table
    data = tmp_path / "placeholders.csv"
    frame.astype({"age": object}).assign(age=lambda f: f["age"].where(f.index != 5, "?")) \
        .to_csv(data, index=False)
    assert main(["fit", str(data), "--target", "label", "--drop", "id"]) == 1
    assert "non-numeric column(s) ['age'] (e.g. '?' in row 6 of 'age')" in \
        capsys.readouterr().err


def test_an_internal_error_is_not_swallowed(monkeypatch, tmp_path, table):
    path, _frame = table

    def broken(*args, **kwargs):
        raise RuntimeError("a bug")

    monkeypatch.setattr(BivariateTreeClassifier, "fit", broken)
    with pytest.raises(RuntimeError, match="a bug"):
        main(["fit", str(path), "--target", "label", "--drop", "id", "--quiet",
              "-o", str(tmp_path / "model.json")])
    assert not (tmp_path / "model.json").exists()


def test_an_error_without_text_still_says_what_failed(capsys, monkeypatch, tmp_path, table):
    path, _frame = table

    def silent(*args, **kwargs):
        raise ValueError()

    monkeypatch.setattr(BivariateTreeClassifier, "fit", silent)
    assert main(["fit", str(path), "--target", "label", "--drop", "id", "--quiet",
                 "-o", str(tmp_path / "model.json")]) == 1
    assert capsys.readouterr().err.strip() == "bivtree fit: error: ValueError"


# --------------------------------------------------------------------------- picture size
def test_show_caps_the_depth_of_a_large_tree_s_picture(capsys, tmp_path):
    from bivtree import save_model
    from bivtree.export.plot import MAX_DRAWN_BOXES, drawable_depth

    rng = np.random.default_rng(0)
    X = rng.uniform(size=(400, 2))
    model = BivariateTreeClassifier(splitter="univariate").fit(X, rng.integers(0, 2, 400))
    tree = model.tree_
    depth = drawable_depth(tree)
    assert tree.n_leaves > MAX_DRAWN_BOXES and 0 < depth < tree.max_depth
    # the picture of that depth ends in at most MAX_DRAWN_BOXES boxes, one level more in more
    d = tree.node_depth
    for cut, fits in ((depth, True), (depth + 1, False)):
        boxes = np.count_nonzero(tree.is_leaf & (d <= cut)) + np.count_nonzero(d == cut + 1)
        assert (boxes <= MAX_DRAWN_BOXES) == fits
    path = tmp_path / "model.json"
    save_model(model, path)
    assert main(["show", str(path), "--out", str(tmp_path / "tree.png"), "--dpi", "10"]) == 0
    out = capsys.readouterr().out
    assert (f"drawing depth 0 to {depth} of {tree.max_depth} (deeper subtrees as '...' boxes, "
            f"at most {MAX_DRAWN_BOXES} boxes at the bottom); use --max-depth to choose") in out
    assert main(["show", str(path), "--out", str(tmp_path / "two.png"), "--dpi", "10",
                 "--max-depth", "2"]) == 0
    assert "drawing depth" not in capsys.readouterr().out


# --------------------------------------------------------------------------- dirty tables
def _dirty_table(tmp_path, holes):
    """Text columns (categorical), a numeric code column, an id column; ``holes``: empty cells."""
    pd = pytest.importorskip("pandas")
    rng = np.random.default_rng(3)
    n = 150
    frame = pd.DataFrame({
        "customer": [f"c{i:04d}" for i in range(n)],
        "income": rng.normal(50, 15, n).round(1),
        "debt": rng.normal(20, 8, n).round(1),
        "region": rng.choice(["north", "south", "east", "west"], n),
        "plan": rng.choice([1, 2, 3], n),
    })
    bad = (frame["income"] - frame["debt"] < 30) | frame["region"].isin(["east"])
    frame["default"] = np.where(bad, "yes", "no")
    if holes:
        frame.loc[[4, 40], "income"] = np.nan
        frame.loc[[7], "region"] = np.nan
    path = tmp_path / "dirty.csv"
    frame.to_csv(path, index=False)
    return path, frame


def _fit_predict_show(capsys, tmp_path, path, frame):
    model = tmp_path / "dirty.model.json"
    assert main(["fit", str(path), "--target", "default", "--drop", "customer",
                 "--categorical", "plan", "--max-depth", "3", "-o", str(model)]) == 0
    out = capsys.readouterr().out
    assert "categorical features: region, plan" in out, out
    fitted = BivariateTreeClassifier.load(model)
    assert fitted.is_categorical_.tolist() == [False, False, True, True]
    assert fitted.categories_[2].tolist() == ["east", "north", "south", "west"]
    predictions = tmp_path / "predictions.csv"
    assert main(["predict", str(model), str(path), "--keep", "customer", "-o",
                 str(predictions)]) == 0
    pd = pytest.importorskip("pandas")
    result = pd.read_csv(predictions)
    # one row per input row, in order, the id copied
    assert list(result.columns) == ["customer", "prediction"]
    assert result["customer"].tolist() == frame["customer"].tolist()
    features = frame.drop(columns=["customer", "default"])
    np.testing.assert_array_equal(result["prediction"], fitted.predict(features))
    capsys.readouterr()
    assert main(["show", str(model)]) == 0
    shown = capsys.readouterr().out
    assert "region in {" in shown or "plan in {" in shown, shown
    assert main(["show", str(model), "--data", str(path), "--out",
                 str(tmp_path / "rules.md")]) == 0
    assert "in {" in (tmp_path / "rules.md").read_text()


def test_dirty_table_fit_predict_keep_show(capsys, tmp_path):
    path, frame = _dirty_table(tmp_path, holes=False)
    _fit_predict_show(capsys, tmp_path, path, frame)


def test_dirty_table_with_empty_cells_fit_predict_keep_show(capsys, tmp_path):
    path, frame = _dirty_table(tmp_path, holes=True)
    _fit_predict_show(capsys, tmp_path, path, frame)


@pytest.mark.parametrize("model", ["classifier", "tao-cv"])
def test_ctrl_c_during_a_fit_says_interrupted_and_writes_nothing(capsys, tmp_path, table,
                                                                 monkeypatch, model):
    """Ctrl-C (KeyboardInterrupt, as the fit raises it between compiled calls) ends the
    command with a line and status 130, not a traceback, and leaves no file behind."""
    from bivtree import TAOTreeClassifierCV

    path, _frame = table
    cls = BivariateTreeClassifier if model == "classifier" else TAOTreeClassifierCV

    def interrupted(self, *args, **kwargs):
        raise KeyboardInterrupt

    monkeypatch.setattr(cls, "fit", interrupted)
    out = tmp_path / "out"
    out.mkdir()
    argv = ["fit", str(path), "--target", "label", "--drop", "id", "--model", model,
            "-o", str(out / "m.json")]
    assert main(argv) == 130
    assert capsys.readouterr().err == "bivtree fit: interrupted\n"
    assert list(out.iterdir()) == []


def test_an_identifier_column_is_named_as_one_to_drop(capsys, tmp_path):
    """A text column with a different value in every row (a customer number) is no
    feature: the error says so and names --drop (it said to set --max-categories)."""
    path, _frame = _dirty_table(tmp_path, holes=True)
    argv = ["fit", str(path), "--target", "default", "--quiet", "-o", str(tmp_path / "m.json")]
    assert main(argv) == 1
    err = capsys.readouterr().err
    assert ("('customer') has a different value in every row (150 of them): an identifier, "
            "not a feature") in err
    assert err.rstrip().endswith("(on the command line: --drop customer)")
    assert main(argv + ["--drop", "customer"]) == 0


def test_a_numeric_column_with_placeholders_is_not_taken_for_categories(capsys, tmp_path,
                                                                         table):
    _path, frame = table
    data = tmp_path / "placeholders.csv"
    frame.astype({"age": object}).assign(age=lambda f: f["age"].where(f.index != 5, "?")) \
        .to_csv(data, index=False)
    argv = ["fit", str(data), "--target", "label", "--drop", "id", "--categorical", "age",
            "--quiet", "-o", str(tmp_path / "m.json")]
    assert main(argv) == 1
    err = capsys.readouterr().err
    assert "80 categories" in err and "--max-categories N" in err
    assert main(argv + ["--max-categories", "8"]) == 0
    model = BivariateTreeClassifier.load(tmp_path / "m.json")
    assert model.is_categorical_.tolist() == [False, False, True]
    assert model.categories_[2].size == 7 and model.infrequent_categories_[2].size == 73


# --------------------------------------------------------------------------- categories of new data
def _grades(tmp_path, name, grades):
    """A table whose label follows a categorical ``grade`` column (``a`` for grade 1)."""
    pd = pytest.importorskip("pandas")
    rng = np.random.default_rng(0)
    n = len(grades)
    first = [str(g) in ("1", "1.0", "01") for g in grades]
    frame = pd.DataFrame({"grade": grades, "x": rng.normal(size=n).round(2),
                          "y": np.where(first, "a", "b")})
    path = tmp_path / name
    frame.to_csv(path, index=False)
    return path


_GRADES = [1, 2, 3, 1, 2, 3, 3, 2, 1, 2, 1, 3, 2, 2, 1, 3, 1, 2, 3, 1]


@pytest.mark.parametrize("train, new", [
    # numbers at fit; one text cell makes pandas read the new column as text
    (_GRADES, ["unknown"] + _GRADES[1:]),
    # a text placeholder at fit (categories '1', '2', '3', 'unknown'); numbers in the new file
    (["unknown"] + _GRADES[1:], [2] + _GRADES[1:]),
    # floats at fit (an empty cell), text in the new file
    ([None] + _GRADES[1:], ["unknown"] + _GRADES[1:]),
    # text categories that read as numbers ('01'); the new file's column is read as numbers
    (["x"] + [f"0{g}" for g in _GRADES[1:]], ["02"] + [f"0{g}" for g in _GRADES[1:]]),
])
def test_predict_reads_categories_as_the_types_seen_at_fit(capsys, tmp_path, train, new):
    """pandas types a CSV column by all its cells: a row is predicted the same whether or
    not another cell of its column made the column text (or numbers)."""
    pd = pytest.importorskip("pandas")
    train_path = _grades(tmp_path, "train.csv", train)
    new_path = _grades(tmp_path, "new.csv", new)
    model = tmp_path / "m.json"
    assert main(["fit", str(train_path), "--target", "y", "--categorical", "grade",
                 "--max-depth", "1", "--quiet", "-o", str(model)]) == 0
    for path, out in ((train_path, "on_train.csv"), (new_path, "on_new.csv")):
        assert main(["predict", str(model), str(path), "-o", str(tmp_path / out)]) == 0
    on_train = pd.read_csv(tmp_path / "on_train.csv")["prediction"]
    on_new = pd.read_csv(tmp_path / "on_new.csv")["prediction"]
    labels = pd.read_csv(train_path)["y"]
    assert on_train[1:].tolist() == labels[1:].tolist()  # the split is on the grade
    assert on_new[1:].tolist() == on_train[1:].tolist()
    err = capsys.readouterr().err
    if new[0] == "unknown":  # not a category seen at fit: said, with its row
        assert ("bivtree predict: warning: " in err and "column 'grade' has 1 cell(s) that "
                "are not a category seen at fit (e.g. 'unknown' in row 1") in err, err
    else:
        assert "warning" not in err, err


def test_unknown_categories_are_reported_with_examples(capsys, tmp_path):
    train = _grades(tmp_path, "train.csv", _GRADES)
    new = _grades(tmp_path, "new.csv", ["?", 2, "4", 1, "?", ""] + _GRADES[6:])
    model = tmp_path / "m.json"
    assert main(["fit", str(train), "--target", "y", "--categorical", "grade", "--quiet",
                 "-o", str(model)]) == 0
    assert main(["predict", str(model), str(new)]) == 0
    captured = capsys.readouterr()
    # an empty cell is a missing value, not an unknown category
    assert (f"bivtree predict: warning: {new}: categorical column 'grade' has 3 cell(s) "
            "that are not a category seen at fit (e.g. '?' in row 1, '4' in row 3, "
            "counting data rows from 1; categories seen: 1, 2, 3); they are read as "
            "missing values") in captured.err, captured.err
    assert len(captured.out.splitlines()) == len(_GRADES) + 1  # every row predicted


def test_an_unknown_category_is_an_error_without_missing_value_support(capsys, monkeypatch,
                                                                       tmp_path):
    from bivtree.splitters.hillclimb import HillClimbSplitter

    monkeypatch.setattr(HillClimbSplitter, "supports_missing", False)
    train = _grades(tmp_path, "train.csv", _GRADES)
    new = _grades(tmp_path, "new.csv", ["unknown"] + _GRADES[1:])
    model = tmp_path / "m.json"
    assert main(["fit", str(train), "--target", "y", "--categorical", "grade", "--quiet",
                 "--splitter", "hillclimb", "-o", str(model)]) == 0
    assert main(["predict", str(model), str(new)]) == 1
    captured = capsys.readouterr()
    assert (f"bivtree predict: error: {new}: categorical column 'grade' has 1 cell(s) that "
            "are not a category seen at fit (e.g. 'unknown' in row 1") in captured.err
    assert "does not handle missing values" in captured.err and captured.out == ""


def test_show_data_reads_categories_as_the_types_seen_at_fit(capsys, monkeypatch, tmp_path):
    import bivtree.export.html_page

    train = _grades(tmp_path, "train.csv", _GRADES)
    new = _grades(tmp_path, "new.csv", ["unknown"] + _GRADES[1:])
    model = tmp_path / "m.json"
    assert main(["fit", str(train), "--target", "y", "--categorical", "grade", "--quiet",
                 "-o", str(model)]) == 0
    drawn = {}

    def export_html(estimator, X, y, path, **kwargs):
        drawn["codes"] = estimator._validate_X_predict(X)[:, 0]
        open(path, "w").close()

    monkeypatch.setattr(bivtree.export.html_page, "export_html", export_html)
    assert main(["show", str(model), "--data", str(new), "--out",
                 str(tmp_path / "tree.html")]) == 0
    codes = drawn["codes"]
    # the numbers read as text are the categories 1, 2, 3 (codes 0, 1, 2); 'unknown' is missing
    assert np.isnan(codes[0])
    assert codes[1:].tolist() == [g - 1 for g in _GRADES[1:]]
    assert "bivtree show: warning: " in capsys.readouterr().err


# --------------------------------------------------------------------------- predict's columns
@pytest.mark.parametrize("keep, proba", [("prediction", False), ("proba_sick", True),
                                         ("proba_well", True)])
def test_keep_refuses_a_column_named_like_an_output_column(capsys, tmp_path, table,
                                                           model_file, keep, proba):
    _path, frame = table
    data = tmp_path / "new.csv"
    frame.assign(**{keep: [f"ticket-{i}" for i in range(len(frame))]}).to_csv(data,
                                                                               index=False)
    argv = ["predict", str(model_file), str(data), "--keep", "id", keep] + (
        ["--proba"] if proba else [])
    assert main(argv) == 1
    captured = capsys.readouterr()
    assert f"bivtree predict: error: --keep: [{keep!r}] would be overwritten" in captured.err
    assert captured.out == ""
    # without the probabilities, proba_sick is just another column to copy
    if proba:
        assert main(argv[:-1]) == 0
        lines = capsys.readouterr().out.splitlines()
        assert lines[0] == f"id,{keep},prediction" and ",ticket-0," in lines[1]


# --------------------------------------------------------------------------- CSV injection
_FORMULA = "=cmd|' /C calc'!A0"


@pytest.fixture
def formula_table(tmp_path):
    """Class labels and a kept text column that a spreadsheet would run as formulas, and a
    kept column of negative numbers."""
    pd = pytest.importorskip("pandas")
    x = np.linspace(-1.0, 1.0, 12)
    frame = pd.DataFrame({"x": x, "note": ["+1", "-x", "@SUM(A1)", "\tt", "plain", _FORMULA] * 2,
                          "delta": -1.5 * np.arange(12), "y": np.where(x > 0, _FORMULA, "ok")})
    path = tmp_path / "data.csv"
    frame.to_csv(path, index=False)
    model = tmp_path / "m.json"
    assert main(["fit", str(path), "--target", "y", "--features", "x", "--max-depth", "1",
                 "--quiet", "-o", str(model)]) == 0
    return path, model, frame


def _read_cells(path_or_text, sep=","):
    import csv
    import io

    text = path_or_text if isinstance(path_or_text, str) else path_or_text.read_text()
    return list(csv.reader(io.StringIO(text), delimiter=sep))


@pytest.mark.parametrize("output", ["-", "out.csv", "out.tsv"])
def test_predict_escapes_spreadsheet_formulas(capsys, tmp_path, formula_table, output):
    path, model, frame = formula_table
    argv = ["predict", str(model), str(path), "--keep", "note", "delta", "--proba"]
    if output == "-":
        assert main(argv) == 0
        rows = _read_cells(capsys.readouterr().out)
    else:
        assert main(argv + ["-o", str(tmp_path / output)]) == 0
        rows = _read_cells(tmp_path / output, "\t" if output.endswith(".tsv") else ",")
    header, body = rows[0], rows[1:]
    # the header made from the label starts with 'proba_': nothing to run
    assert header == ["note", "delta", "prediction", "proba_=cmd|' /C calc'!A0", "proba_ok"]
    notes = [r[0] for r in body]
    assert notes[:6] == ["'+1", "'-x", "'@SUM(A1)", "'\tt", "plain", "'" + _FORMULA]
    # numbers stay numbers, negative ones too
    assert [float(r[1]) for r in body] == frame["delta"].tolist()
    assert {r[2] for r in body} == {"'" + _FORMULA, "ok"}
    assert all(not cell.startswith(("=", "+", "-", "@", "\t")) or cell == r[1]
               for r in body for cell in r)


def test_no_escape_formulas_writes_cells_as_they_are(capsys, tmp_path, formula_table):
    path, model, frame = formula_table
    assert main(["predict", str(model), str(path), "--keep", "note", "--no-escape-formulas"]) == 0
    body = _read_cells(capsys.readouterr().out)[1:]
    assert [r[0] for r in body] == frame["note"].tolist()
    assert {r[1] for r in body} == {_FORMULA, "ok"}


def test_predict_escapes_a_kept_column_name(capsys, tmp_path, formula_table):
    _path, _model, frame = formula_table
    data = tmp_path / "named.csv"
    frame.rename(columns={"note": "=HYPERLINK(1)"}).to_csv(data, index=False)
    model = tmp_path / "m2.json"
    assert main(["fit", str(data), "--target", "y", "--features", "x", "--max-depth", "1",
                 "--quiet", "-o", str(model)]) == 0
    assert main(["predict", str(model), str(data), "--keep", "=HYPERLINK(1)"]) == 0
    assert _read_cells(capsys.readouterr().out)[0] == ["'=HYPERLINK(1)", "prediction"]


def test_show_rules_csv_escapes_spreadsheet_formulas(capsys, tmp_path, formula_table):
    _path, model, _frame = formula_table
    rules = tmp_path / "rules.csv"
    assert main(["show", str(model), "--out", str(rules)]) == 0
    rows = _read_cells(rules)
    column = rows[0].index("prediction")
    assert {r[column] for r in rows[1:]} == {"'" + _FORMULA, "ok"}
    assert main(["show", str(model), "--out", str(rules), "--force",
                 "--no-escape-formulas"]) == 0
    assert {r[column] for r in _read_cells(rules)[1:]} == {_FORMULA, "ok"}


def test_escape_formulas_changes_text_cells_only():
    pd = pytest.importorskip("pandas")
    from bivtree.cli import _escape_formulas

    frame = pd.DataFrame({"mixed": [-1.5, "-1.5", None, "a-b", "\rx"],
                          "numbers": [-1.5, -2.0, 3.0, np.nan, 0.0],
                          "flags": [True, False, True, True, False]})
    escaped = _escape_formulas(frame)
    assert escaped["mixed"].tolist()[:2] == [-1.5, "'-1.5"]
    assert escaped["mixed"].tolist()[3:] == ["a-b", "'\rx"]
    assert escaped["mixed"].isna().tolist()[2]
    assert escaped["numbers"].dtype == frame["numbers"].dtype
    pd.testing.assert_frame_equal(escaped[["numbers", "flags"]], frame[["numbers", "flags"]])
    assert frame["mixed"].tolist()[1] == "-1.5"  # the frame given is not changed
    clean = frame[["numbers"]]
    assert _escape_formulas(clean) is clean


def test_predict_says_what_it_wrote(capsys, tmp_path, table, model_file):
    """With --output, predict names the file, its rows and its columns, as fit and show
    name theirs; without it, standard output holds the table and nothing else."""
    pd = pytest.importorskip("pandas")
    path, frame = table
    predictions = tmp_path / "predictions.csv"
    capsys.readouterr()
    assert main(["predict", str(model_file), str(path), "--keep", "id", "--proba",
                 "-o", str(predictions)]) == 0
    out = capsys.readouterr().out
    written = pd.read_csv(predictions)
    assert written.shape == (len(frame), 4)
    assert out == (f"predictions written to {predictions}: {len(frame)} rows, 4 columns "
                   "(id, prediction, proba_sick, proba_well)\n")
    # standard output: the CSV alone, its header first
    assert main(["predict", str(model_file), str(path)]) == 0
    lines = capsys.readouterr().out.splitlines()
    assert lines[0] == "prediction" and len(lines) == len(frame) + 1


def test_predict_counts_the_columns_it_does_not_name(capsys, tmp_path, table, model_file):
    """Many kept columns still give one short line: the names past the first eight are
    counted."""
    pytest.importorskip("pandas")
    path, frame = table
    wide = frame.assign(**{f"extra{k}": k for k in range(9)})
    wide.iloc[:1].to_csv(path, index=False)  # one row: "1 row", singular
    predictions = tmp_path / "predictions.csv"
    capsys.readouterr()
    keep = [f"extra{k}" for k in range(9)]
    assert main(["predict", str(model_file), str(path), "--keep", *keep,
                 "-o", str(predictions)]) == 0
    out = capsys.readouterr().out
    assert out == (f"predictions written to {predictions}: 1 row, 10 columns "
                   f"({', '.join(keep[:8])}, ... (2 more))\n")


def test_the_help_s_set_example_is_accepted(capsys, tmp_path, table):
    """``fit --help`` shows a ``--set`` example; it must be one ``fit`` accepts."""
    with pytest.raises(SystemExit):
        main(["fit", "--help"])
    shown = " ".join(capsys.readouterr().out.split())
    example = re.search(r"--set '([^']+)'", shown).group(1)
    path, _ = table
    model = tmp_path / "model.json"
    assert main(["fit", str(path), "--target", "label", "-o", str(model), "--set", example]) == 0
    assert model.exists()


def test_predict_and_show_refuse_a_model_longer_than_the_limit(capsys, tmp_path, table,
                                                                model_file):
    """--max-model-bytes bounds the model file read (load_model's max_bytes): a longer one
    is an error naming the option, before any output is written."""
    path, _frame = table
    size = model_file.stat().st_size
    for out, command in ((tmp_path / "out.csv", ["predict", str(model_file), str(path)]),
                         (tmp_path / "rules.txt", ["show", str(model_file)])):
        command += ["-o" if command[0] == "predict" else "--out", str(out)]
        capsys.readouterr()
        assert main([*command, "--max-model-bytes", str(size - 1)]) == 1
        err = capsys.readouterr().err
        assert (f"error: {model_file}: the model is {size} bytes long, more than "
                f"--max-model-bytes {size - 1}") in err
        assert not out.exists()
        assert main([*command, "--max-model-bytes", str(size)]) == 0
        assert out.exists()
    with pytest.raises(SystemExit) as usage:  # a bad limit is a usage error
        main(["predict", str(model_file), str(path), "--max-model-bytes", "0"])
    assert usage.value.code == 2
