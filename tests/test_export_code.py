"""SQL and Python exports route every row exactly as ``apply`` does.

The SQL runs in SQLite, the Python source through ``exec``; leaves, labels,
values and probabilities are compared bit for bit with the estimator's on
training-like rows, on rows from a wider range, on rows lying exactly at (and
one unit in the last place around) the stored thresholds, and on category codes
the tree never saw. Trees with indicator slots (a category set's indicator as a
term of a linear test), fitted or built by hand, are checked on codes in and out
of their sets, fractions, missing values and category values unseen at fit.
"""

import copy
import itertools
import math
import sqlite3
import struct

import numpy as np
import pandas as pd
import pytest

from bivtree import (
    BivariateTreeClassifier,
    BivariateTreeRegressor,
    TAOTreeClassifier,
    TAOTreeRegressor,
    Tree,
)
from bivtree.export.code import export_python, export_sql, quote_identifier, sql_float
from test_categorical_features import categorical_fit_data
from test_model_files import chain_classifier

N_ROWS = 10_000
N_FEATURES = 4


def _features(n, seed, spread=1.0):
    rng = np.random.default_rng(seed)
    X = rng.normal(scale=spread, size=(n, N_FEATURES))
    X[:, 3] = rng.integers(0, 7, size=n)  # category codes (a number elsewhere)
    return X


def _targets(X, regression):
    signal = X[:, 0] + 0.7 * X[:, 1] - 0.4 * X[:, 2] + np.isin(X[:, 3], (1, 4, 5))
    if regression:
        return signal + np.sin(3.0 * X[:, 1])
    return np.where(signal > 0.8, "high", np.where(signal > -0.5, "mid", "low"))


_MODELS = {
    "univariate": lambda reg: _cls(reg)(splitter="univariate", max_depth=9),
    "orientations": lambda reg: _cls(reg)(max_depth=9),
    "optimal": lambda reg: _cls(reg)(splitter="optimal", max_depth=3),
    "must3": lambda reg: BivariateTreeClassifier(
        splitter="lda", max_depth=8, splitter_options={"n_split_features": 3}),
    "must_categorical": lambda reg: BivariateTreeClassifier(
        splitter="lda", max_depth=8, splitter_options={"categorical_features": [3]}),
    "tao": lambda reg: (TAOTreeRegressor if reg else TAOTreeClassifier)(
        alpha=0.001, max_depth=5),
}
_CASES = [(name, False) for name in _MODELS] + [
    (name, True) for name in ("univariate", "orientations", "optimal", "tao")]


def _cls(regression):
    return BivariateTreeRegressor if regression else BivariateTreeClassifier


@pytest.fixture(scope="module", params=_CASES, ids=lambda c: f"{c[0]}-{'reg' if c[1] else 'clf'}")
def fitted(request):
    name, regression = request.param
    X = _features(N_ROWS, seed=0)
    n_fit = 400 if name == "optimal" else 2000
    estimator = _MODELS[name](regression).fit(X[:n_fit], _targets(X[:n_fit], regression))
    return estimator, _evaluation_rows(estimator, X)


def _evaluation_rows(estimator, X):
    """Training-like rows, rows from a wider range, rows at the thresholds, odd codes."""
    tree = estimator.tree_
    rng = np.random.default_rng(1)
    rows = [X, _features(2000, seed=2, spread=3.0)]
    at = []
    for node in np.flatnonzero((tree.children_left != -1) & ~tree.is_categorical):
        used = tree.features[node] >= 0
        feats, weights = tree.features[node][used], tree.weights[node][used]
        t = tree.threshold[node]
        for value in (np.nextafter(t, -np.inf), t, np.nextafter(t, np.inf)):
            row = X[rng.integers(len(X))].copy()
            # the first weight is 1: solve for the first feature, which puts the
            # projection at the threshold up to rounding (exactly, for one feature)
            row[feats[0]] = value - np.dot(weights[1:], row[feats[1:]])
            at.append(row)
    rows.append(np.array(at).reshape(-1, N_FEATURES))
    odd = X[:9].copy()
    odd[:, 3] = [7.0, 2.5, -1.0, 63.0, 64.0, -0.0, 1e300, 3.0 + 2 ** -40, 0.5]
    rows.append(odd)
    return np.vstack(rows)


def _sqlite(X, names, nulls=()):
    """An in-memory table ``data`` (an ``id`` and one REAL column per feature)."""
    db = sqlite3.connect(":memory:")
    columns = ", ".join(f"{quote_identifier(n)} REAL" for n in names)
    db.execute(f"CREATE TABLE data (id INTEGER PRIMARY KEY, {columns})")
    values = [[i, *(None if (i, j) in nulls else float(v) for j, v in enumerate(row))]
              for i, row in enumerate(X)]
    db.executemany(f"INSERT INTO data VALUES ({', '.join('?' * (len(names) + 1))})", values)
    return db


def _run_sql(db, sql, n_out):
    rows = sorted(db.execute(sql).fetchall())
    return [row[len(row) - n_out:] for row in rows]


def _exact(a, b):
    """Same floats bit for bit (or same labels), element by element."""
    a, b = np.asarray(a), np.asarray(b)
    if a.dtype.kind == "f" or b.dtype.kind == "f":
        a, b = a.astype(float), b.astype(float)
        return a.shape == b.shape and a.tobytes() == b.tobytes()
    return a.shape == b.shape and bool(np.all(a == b))


# ---------------------------------------------------------------------- constants
def _doubles(n, seed=0):
    rng = np.random.default_rng(seed)
    bits = rng.integers(0, 2 ** 63, size=n, dtype=np.int64).view(np.float64)
    bits = np.where(rng.random(n) < 0.5, -bits, bits)
    values = np.concatenate([bits, rng.normal(size=n) * 10.0 ** rng.integers(-9, 9, n),
                             [5e-324, -5e-324, 2.0 ** 1023, 1.7976931348623157e308,
                              2.0 ** 53 + 2, 2.0 ** -1022, 0.1, 1.0, -1.0, 3.0]])
    return [float(v) for v in values if np.isfinite(v) and v != 0.0]


def test_sql_constants_are_read_back_exactly_by_sqlite():
    db = sqlite3.connect(":memory:")
    values = _doubles(10_000)
    for start in range(0, len(values), 400):
        chunk = values[start:start + 400]
        got = db.execute("SELECT " + ", ".join(sql_float(v) for v in chunk)).fetchone()
        assert _exact(got, chunk)
    assert len(values) > 19_000


def test_rounded_sql_constants_say_so():
    assert sql_float(1 / 3, decimals=4) == "0.3333"
    assert sql_float(2.0, decimals=4) == "2.0"


# ---------------------------------------------------------------------- SQL
def test_sql_leaf_prediction_and_proba_are_the_estimators(fitted):
    estimator, X = fitted
    names = [f"x{j}" for j in range(N_FEATURES)]
    db = _sqlite(X, names)
    leaves = _run_sql(db, export_sql(estimator, output="leaf"), 1)
    assert _exact(np.ravel(leaves), estimator.apply(X))
    predicted = np.ravel(_run_sql(db, export_sql(estimator), 1))
    assert _exact(predicted, estimator.predict(X))
    if hasattr(estimator, "classes_"):
        n_classes = len(estimator.classes_)
        proba = _run_sql(db, export_sql(estimator, output="proba"), n_classes)
        assert _exact(proba, estimator.predict_proba(X))
        header = [d[0] for d in db.execute(export_sql(estimator, output="proba")).description]
        assert header[-n_classes:] == [f"proba_{c}" for c in estimator.classes_]
    print(f"{len(X)} rows, {estimator.tree_.node_count} nodes: identical")


def test_sql_missing_values_take_the_missing_sides(fitted):
    estimator, X = fitted
    tree = estimator.tree_
    nulls = {(i, j) for i in range(N_FEATURES) for j in range(N_FEATURES) if i == j}
    db = _sqlite(X[:N_FEATURES], [f"x{j}" for j in range(N_FEATURES)], nulls)
    missing = X[:N_FEATURES].copy()
    missing[np.diag_indices(N_FEATURES)] = np.nan  # NULL in SQL, NaN for apply
    leaves = _run_sql(db, export_sql(estimator, output="leaf"), 1)
    assert _exact(np.ravel(leaves), tree.apply(missing))


@pytest.mark.parametrize("regression", [False, True])
def test_exports_route_missing_values_as_apply(regression):
    """A tree grown with missing values: SQL (NULL) and Python (NaN) send every row
    with missing values where ``apply`` does, on both missing sides."""
    rng = np.random.default_rng(3)
    X = _features(1500, seed=5)
    y = _targets(X, regression)
    X[rng.uniform(size=X.shape) < 0.2] = np.nan
    estimator = _cls(regression)(max_depth=7).fit(X[:1000], y[:1000])
    tree = estimator.tree_
    assert tree.missing_learned and tree.missing_go_left.any()
    assert (~tree.missing_go_left[tree.children_left != -1]).any()
    expected = estimator.apply(X)
    nulls = {(i, j) for i, j in zip(*np.nonzero(np.isnan(X)))}
    db = _sqlite(np.nan_to_num(X), [f"x{j}" for j in range(N_FEATURES)], nulls)
    assert _exact(np.ravel(_run_sql(db, export_sql(estimator, output="leaf"), 1)), expected)
    namespace = {}
    exec(export_python(estimator, output="leaf"), namespace)  # noqa: S102
    assert [namespace["predict_row"](row.tolist()) for row in X] == expected.tolist()
    # None (a JSON null) reads as a missing value (it raised a TypeError)
    assert [namespace["predict_row"](row) for row in _none_for_nan(X)] == expected.tolist()


def _none_for_nan(X):
    """The rows of ``X`` as lists, ``None`` in place of NaN."""
    return [[None if math.isnan(v) else v for v in row] for row in np.asarray(X).tolist()]


def test_sql_quotes_names_with_quotes_and_spaces():
    X = _features(500, seed=3)
    names = ['a "quoted" name', "with space", "it's", 'x"']
    clf = BivariateTreeClassifier(max_depth=4).fit(X, _targets(X, False))
    sql = export_sql(clf, feature_names=names, table='my "table"', output="leaf")
    assert '"a ""quoted"" name"' in sql and '"x"""' in sql and 'FROM "my ""table"""' in sql
    db = _sqlite(X, names)
    db.execute('ALTER TABLE data RENAME TO "my ""table"""')
    assert _exact(np.ravel(_run_sql(db, sql, 1)), clf.apply(X))


@pytest.mark.parametrize("labels", [[3, 7], [-1.0, 2.0], [False, True], ["it's", "b"]],
                         ids=["int", "float", "bool", "str"])
def test_class_labels_are_literals_of_their_type(labels):
    X = _features(400, seed=4)
    y = np.array(labels, dtype=object if isinstance(labels[0], str) else None)[
        (X[:, 0] + X[:, 1] > 0).astype(int)]
    clf = BivariateTreeClassifier(max_depth=3).fit(X, y)
    got = np.ravel(_run_sql(_sqlite(X, [f"x{j}" for j in range(N_FEATURES)]),
                            export_sql(clf), 1))
    assert _exact(got, clf.predict(X))
    predict_row = _compiled(clf)
    values = [predict_row(list(row)) for row in X]
    assert {type(v) for v in values} == {type(labels[0])}
    assert values == list(clf.predict(X))


def test_sql_of_a_single_leaf_tree():
    X = _features(50, seed=5)
    reg = BivariateTreeRegressor().fit(X, np.full(50, 2.5))
    assert reg.tree_.node_count == 1
    assert _run_sql(_sqlite(X, [f"x{j}" for j in range(N_FEATURES)]), export_sql(reg),
                    1) == [(2.5,)] * 50
    assert _compiled(reg)(X[0].tolist()) == 2.5


# ---------------------------------------------------------------------- Python
def _compiled(estimator, **options):
    namespace = {}
    exec(export_python(estimator, **options), namespace)  # noqa: S102
    return namespace[options.get("function_name", "predict_row")]


def test_python_leaf_prediction_and_proba_are_the_estimators(fitted):
    estimator, X = fitted
    rows = X.tolist()
    leaf = _compiled(estimator, output="leaf")
    assert _exact([leaf(r) for r in rows], estimator.apply(X))
    predict = _compiled(estimator)
    assert _exact([predict(r) for r in rows], estimator.predict(X))
    if hasattr(estimator, "classes_"):
        proba = _compiled(estimator, output="proba")
        assert _exact([proba(r) for r in rows], estimator.predict_proba(X))


def test_python_takes_rows_by_feature_name(fitted):
    estimator, X = fitted
    names = ["alpha", "beta", "gamma", "delta"]
    leaf = _compiled(estimator, output="leaf", row_type="mapping", feature_names=names,
                     function_name="leaf_of")
    got = [leaf(dict(zip(names, row))) for row in X[:2000].tolist()]
    assert _exact(got, estimator.apply(X[:2000]))


def test_python_export_needs_no_imports():
    X = _features(300, seed=6)
    source = export_python(BivariateTreeRegressor(max_depth=3).fit(X, _targets(X, True)))
    assert "import" not in source


def test_python_export_of_a_chain_5000_deep():
    clf, X = chain_classifier()
    source = export_python(clf, output="leaf")
    leaf = _compiled(clf, output="leaf")
    predict = _compiled(clf)
    assert source.count("\n") < 2 * clf.tree_.node_count
    assert _exact([leaf(r) for r in X.tolist()], clf.apply(X))
    assert _exact([predict(r) for r in X.tolist()], clf.predict(X))
    deepest = [1e9, 1e9]  # goes right at every test, to the leaf 5,000 levels down
    assert leaf(deepest) == clf.tree_.node_count - 1 == clf.apply([deepest])[0]


def test_bad_arguments_are_value_errors():
    X = _features(100, seed=7)
    reg = BivariateTreeRegressor(max_depth=2).fit(X, _targets(X, True))
    with pytest.raises(ValueError, match="regressor"):
        export_sql(reg, output="proba")
    with pytest.raises(ValueError, match="output"):
        export_python(reg, output="probability")
    with pytest.raises(ValueError, match="identifier"):
        export_python(reg, function_name="not a name")
    with pytest.raises(ValueError, match="SQL number"):
        sql_float(math.inf)
    assert struct.pack("d", 0.0) != struct.pack("d", -0.0)  # zeros are written unsigned
    assert sql_float(-0.0) == sql_float(0.0) == "0.0"


# ---------------------------------------------------------------------- indicator slots
#: code-like values: codes in and out of the sets below, codes outside [0, 63], fractions,
#: a signed zero, infinities and NaN (missing)
_CODES = [0.0, 1.0, 2.0, 3.0, 4.0, 5.0, 6.0, 7.0, 63.0, 64.0, -1.0, -0.0, 2.5, 3.0 + 2 ** -40,
          0.5, 1e300, math.inf, -math.inf, math.nan]


def _bits(*codes):
    return sum(1 << c for c in codes)


def indicator_tree_classifier():
    """A classifier around a hand-built tree of indicator slots, and rows covering its tests.

    Features 0 and 1 hold category codes, feature 2 numbers. Node 0 combines two
    sets on two features, node 1 two sets on the same feature, node 2 a number and
    a set, node 5 is categorical; missing sides differ.
    """
    left = [1, 3, 5, -1, -1, 7, -1, -1, -1]
    right = [2, 4, 6, -1, -1, 8, -1, -1, -1]
    leaf = [-1, -1]
    features = [[0, 1], [0, 0], [2, 1], leaf, leaf, [1, -1], leaf, leaf, leaf]
    weights = [[1.0, -1.0], [1.0, 0.5], [1.0, 0.7]] + [[0.0, 0.0]] * 2 + [[1.0, 0.0]] + [
        [0.0, 0.0]] * 3
    masks = [[_bits(1, 3, 5), _bits(0, 2)], [_bits(1, 2), _bits(2, 7, 63)], [0, _bits(4, 63)],
             [0, 0], [0, 0], [_bits(0, 6), 0], [0, 0], [0, 0], [0, 0]]
    threshold = [0.5, 1.2, 0.3, -2.0, -2.0, 0.0, -2.0, -2.0, -2.0]
    counts = [10, 5, 5, 2, 3, 3, 2, 1, 2]
    value = [[5, 5], [3, 2], [2, 3], [2, 0], [1, 2], [1, 2], [1, 1], [0, 1], [1, 1]]
    missing = [True, False, True, False, False, False, False, False, False]
    tree = Tree(left, right, features, weights, threshold, [0.5] * 9, counts,
                [float(c) for c in counts], value, 3, masks, missing)
    X = _features(50, seed=8)[:, :3]
    clf = BivariateTreeClassifier(max_depth=1).fit(X, X[:, 0] > 0)
    clf.tree_ = tree
    numbers = [-1.0, 0.3 - 0.7, 0.3, np.nextafter(0.3, 1.0), math.nan]
    rows = np.array(list(itertools.product(_CODES, _CODES, numbers)))
    return clf, rows


def _predicted(estimator, leaves, output="class"):
    """What ``predict`` (or ``predict_proba``) gives for rows reaching ``leaves``, from the
    tree (``predict`` refuses the infinite codes these tests route)."""
    counts = estimator.tree_.value[leaves]
    if not hasattr(estimator, "classes_"):
        return counts[:, 0]
    totals = counts.sum(axis=1, keepdims=True)
    proba = counts / np.where(totals > 0, totals, 1.0)
    return proba if output == "proba" else estimator.classes_[np.argmax(proba, axis=1)]


def _sql_outputs(estimator, X, output):
    """The SQL export's one output column on ``X``, NaN written as NULL."""
    nulls = set(zip(*np.nonzero(np.isnan(X))))
    db = _sqlite(np.where(np.isnan(X), 0.0, X), [f"x{j}" for j in range(X.shape[1])], nulls)
    return np.ravel(_run_sql(db, export_sql(estimator, output=output), 1))


def test_hand_built_indicator_slots_route_as_apply():
    clf, X = indicator_tree_classifier()
    tree = clf.tree_
    assert tree.has_indicator_slots.tolist()[:3] == [True, True, True]
    expected = tree.apply(X)
    # every leaf is reached, and reading the codes as numbers would route otherwise
    assert set(expected.tolist()) == set(np.flatnonzero(tree.is_leaf).tolist())
    as_numbers = copy.deepcopy(tree)
    as_numbers.category_mask[:3] = 0
    assert np.count_nonzero(as_numbers.apply(X) != expected) > len(X) // 4
    leaf = _compiled(clf, output="leaf")
    assert _exact([leaf(r) for r in X.tolist()], expected)
    assert _exact([leaf(r) for r in _none_for_nan(X)], expected)  # a code or number None
    proba = _compiled(clf, output="proba")
    assert _exact([proba(r) for r in X.tolist()], _predicted(clf, expected, "proba"))
    assert _exact(_sql_outputs(clf, X, "leaf"), expected)
    assert _exact(_sql_outputs(clf, X, "class"), _predicted(clf, expected))


def _odd_code_rows(X, column):
    """Rows of ``X`` with NaN in each column, and with odd values in the code ``column``."""
    missing = np.repeat(X[:8], X.shape[1], axis=0)
    missing[np.arange(len(missing)), np.tile(np.arange(X.shape[1]), 8)] = np.nan
    odd = np.repeat(X[:6], len(_CODES), axis=0)
    odd[:, column] = np.tile(_CODES, 6)
    return np.vstack([X, missing, odd])


@pytest.mark.parametrize("regression", [False, True], ids=["clf", "reg"])
def test_fitted_indicator_slots_on_codes_route_as_apply(regression):
    """``categorical_features`` on an array of codes: the exports take the values (here
    the codes themselves; others are unseen, so missing), and, for an estimator reading
    codes, route fractions and codes outside [0, 63] as the tree does."""
    X = _features(1000, seed=0)
    est = _cls(regression)(max_depth=6, categorical_features=[3]).fit(X, _targets(X, regression))
    assert est.tree_.has_indicator_slots.any()
    on_codes = copy.copy(est)
    on_codes.categories_ = None
    X = _odd_code_rows(X, 3)
    for model, expected in ((est, est.apply(X)), (on_codes, est.tree_.apply(X))):
        leaf = _compiled(model, output="leaf")
        assert _exact([leaf(r) for r in X.tolist()], expected)
        assert _exact([leaf(r) for r in _none_for_nan(X)], expected)
        predict = _compiled(model)
        assert _exact([predict(r) for r in X.tolist()], _predicted(model, expected))
        assert _exact(_sql_outputs(model, X, "leaf"), expected)
    # the values unseen at fit are missing to the one, codes to the other
    assert np.any(est.apply(X) != est.tree_.apply(X))


def _indicator_frame(regression):
    """An estimator with indicator slots on text and numeric categories, and rows holding
    missing values, unseen categories and fractions."""
    frame, y = categorical_fit_data(0, n=300, regression=regression)
    frame = frame.astype({"size": "category"})
    est = _cls(regression)(max_depth=5).fit(frame, y)
    assert est.tree_.has_indicator_slots.any()
    assert est.is_categorical_.tolist() == [False, False, True, True]
    rows = frame.astype({"size": float})
    head = rows.head(12)
    odd = [head.assign(a=np.nan), head.assign(b=np.nan), head.assign(colour="purple"),
           head.assign(colour=None), head.assign(size=7.0), head.assign(size=3.5),
           head.assign(size=np.nan)]
    return est, pd.concat([rows, *odd], ignore_index=True)


@pytest.mark.parametrize("regression", [False, True], ids=["clf", "reg"])
def test_fitted_indicator_slots_on_category_values_route_as_apply(regression):
    est, frame = _indicator_frame(regression)
    expected = est.apply(frame)
    records = frame.to_dict("records")
    leaf = _compiled(est, output="leaf", row_type="mapping")
    assert _exact([leaf(r) for r in records], expected)
    leaf = _compiled(est, output="leaf")
    assert _exact([leaf(list(r.values())) for r in records], expected)
    predict = _compiled(est)
    assert _exact([predict(list(r.values())) for r in records], est.predict(frame))
    db = sqlite3.connect(":memory:")
    frame.rename_axis("id").to_sql("data", db)
    assert _exact(np.ravel(_run_sql(db, export_sql(est, output="leaf"), 1)), expected)
    assert _exact(np.ravel(_run_sql(db, export_sql(est), 1)), est.predict(frame))


# ---------------------------------------------------------------------- data text in code
def _string_constants(source):
    """Every string constant of ``source`` and its docstrings (``ast``)."""
    import ast

    tree = ast.parse(source)
    docs = [ast.get_docstring(node) for node in ast.walk(tree)
            if isinstance(node, ast.FunctionDef)]
    strings = [node.value for node in ast.walk(tree)
               if isinstance(node, ast.Constant) and isinstance(node.value, str)]
    return docs, strings


@pytest.mark.parametrize("quote", ['"""', "'''", "\\'''\"\"\"", "\n", "\r"])
def test_python_writes_class_labels_only_as_literals(tmp_path, quote):
    """A label that would end the docstring (or a comment) runs nothing: the docstring is
    fixed text, and the labels are literals read back as themselves."""
    marker = tmp_path / "ran"
    evil = f'{quote}; open({str(marker)!r}, "w"); x = {quote}'
    X = np.array([[0.0], [1.0], [2.0], [3.0]])
    y = np.array(["a", "a", evil, evil], dtype=object)
    clf = BivariateTreeClassifier(max_depth=1).fit(X, y)
    for output in ("class", "proba"):
        source = export_python(clf, output=output)
        docs, strings = _string_constants(source)
        assert all(evil not in doc and "'a'" not in doc for doc in docs)
        assert evil in strings  # a literal, read back as the label itself
        predict_row = _compiled(clf, output=output)
        got = [predict_row(row) for row in X.tolist()]
        if output == "proba":
            assert got == [tuple(p) for p in clf.predict_proba(X)]
            assert "    classes = (" in source
        else:
            assert got == clf.predict(X).tolist()
    assert not marker.exists()


def test_python_refuses_values_without_a_literal():
    """A category value or class label whose repr is no literal (a date, a Decimal) is
    refused by export_python, naming the column; SQL writes a date as an ISO string."""
    import datetime
    import decimal

    rng = np.random.default_rng(0)
    n = 60
    days = [datetime.date(2020, 1, 1 + i % 4) for i in range(n)]
    frame = pd.DataFrame({"u": rng.normal(size=n), "day": pd.Series(days, dtype=object)})
    y = ((frame["u"] > 0) ^ (frame["day"] > datetime.date(2020, 1, 2))).astype(int)
    clf = BivariateTreeClassifier(max_depth=3, categorical_features=["day"]).fit(frame, y)
    with pytest.raises(ValueError, match=r"column 'day'.*datetime\.date\(2020, 1, 1\).*"
                                         r"astype\(str\)"):
        export_python(clf, row_type="mapping")
    with pytest.raises(ValueError, match="column 'day'"):
        export_python(clf)
    # SQL: ISO dates, which SQLite stores dates as
    db = sqlite3.connect(":memory:")
    frame.assign(day=frame["day"].map(datetime.date.isoformat)).rename_axis("id").to_sql(
        "data", db)
    sql = export_sql(clf, output="leaf")
    assert "'2020-01-01'" in sql
    assert _exact(np.ravel(_run_sql(db, sql, 1)), clf.apply(frame))
    money = frame.assign(day=[decimal.Decimal(i % 3) / 2 for i in range(n)])
    clf = BivariateTreeClassifier(max_depth=3, categorical_features=["day"]).fit(money, y)
    if clf.tree_.is_categorical.any() or clf.tree_.has_indicator_slots.any():
        with pytest.raises(ValueError, match=r"column 'day'.*Decimal"):
            export_sql(clf)
    with pytest.raises(ValueError, match=r"column 'day'.*Decimal"):
        export_python(clf)
    labelled = BivariateTreeClassifier(max_depth=1).fit([[0.0], [1.0]], [0, 1])
    labelled.classes_ = np.array(days[:2], dtype=object)
    with pytest.raises(ValueError, match=r"class label.*datetime\.date"):
        export_python(labelled)


@pytest.mark.parametrize("name", ["class", "def", "None", "lambda", "float", "int", "zip",
                                  "__builtins__", "\uff46loat", "not a name", "", "1st"])
def test_python_function_name_must_define_a_working_function(name):
    """Keywords (``str.isidentifier`` accepts them), the builtins the function calls, also
    written in another Unicode form that Python reads as them (NFKC), are refused."""
    clf = BivariateTreeClassifier(max_depth=1).fit([[0.0], [1.0]], [0, 1])
    with pytest.raises(ValueError, match="function_name"):
        export_python(clf, function_name=name)


@pytest.mark.parametrize("name", ["match", "case", "type", "_", "\u00e9t\u00e9", "row"])
def test_python_function_name_soft_keywords_and_unicode_work(name):
    clf = BivariateTreeClassifier(max_depth=1).fit([[0.0], [1.0]], [0, 1])
    assert _compiled(clf, function_name=name)([1.0]) == 1


def test_empty_and_shared_feature_names():
    """A column named "" has no SQL identifier: export_sql refuses it (as the table name
    ""); a Python mapping takes "" as a key like any other. Two features of one name
    cannot be told apart: both refuse them."""
    rng = np.random.default_rng(0)
    frame = pd.DataFrame({"": rng.normal(size=100), "b": rng.normal(size=100)})
    clf = BivariateTreeClassifier(max_depth=3).fit(frame, (frame[""] > 0).astype(int))
    with pytest.raises(ValueError, match="feature 0 has the empty name"):
        export_sql(clf)
    with pytest.raises(ValueError, match="cannot be empty"):
        export_sql(clf, feature_names=["a", "b"], table="")
    with pytest.raises(ValueError, match="NUL"):
        export_sql(clf, feature_names=["a\x00", "b"])
    leaf = _compiled(clf, output="leaf", row_type="mapping")
    assert _exact([leaf(r) for r in frame.to_dict("records")], clf.apply(frame))
    db = sqlite3.connect(":memory:")
    frame.rename(columns={"": "a"}).rename_axis("id").to_sql("data", db)
    sql = export_sql(clf, output="leaf", feature_names=["a", "b"])
    assert _exact(np.ravel(_run_sql(db, sql, 1)), clf.apply(frame))
    for export in (export_sql, lambda c, **o: export_python(c, row_type="mapping", **o)):
        with pytest.raises(ValueError, match="both named 'a'"):
            export(clf, feature_names=["a", "a"])
    assert _compiled(clf, feature_names=["a", "a"])([1.0, 0.0]) == clf.predict([[1.0, 0.0]])


def _overflow_tree():
    """A classifier around a hand-built tree whose linear nodes send NaN left (node 0,
    three slots) or right (node 1): finite rows near the largest double make their
    sums overflow to inf - inf = NaN, which apply routes to the missing side."""
    left, right = [1, 3, -1, -1, -1], [2, 4, -1, -1, -1]
    leaf = [-1, -1, -1]
    features = [[0, 1, 2], [1, 2, -1], leaf, leaf, leaf]
    weights = [[1.0, 2.0, -3.0], [3.0, -4.0, 0.0]] + [[0.0] * 3] * 3
    threshold = [0.25, -1.0, -2.0, -2.0, -2.0]
    counts = [10, 6, 4, 3, 3]
    value = [[4, 3, 3], [3, 2, 1], [1, 1, 2], [2, 1, 0], [1, 1, 1]]
    missing = [True, False, False, False, False]
    tree = Tree(left, right, features, weights, threshold, [0.5] * 5, counts,
                [float(c) for c in counts], value, 3, None, missing)
    X = _features(60, seed=9)[:, :3]
    clf = BivariateTreeClassifier(max_depth=1).fit(X, np.arange(60) % 3)
    clf.tree_ = tree
    big = [1.7e308, -1.7e308, 1e308, -1e308, 0.0, 1.0, -3.0, np.nan]
    rows = np.array(list(itertools.product(big, repeat=3)))
    return clf, rows


def test_nan_projection_of_finite_values_takes_the_missing_side():
    """A sum that overflows to NaN goes where apply sends it, in SQLite (where NaN is
    NULL), DuckDB (where NaN is above every number) and Python."""
    clf, X = _overflow_tree()
    expected = clf.tree_.apply(X)
    with np.errstate(all="ignore"):
        sums = X[:, 0] + 2.0 * X[:, 1] + -3.0 * X[:, 2]  # node 0, in slot order
    nan_sum = np.isnan(sums) & ~np.isnan(X).any(axis=1)
    assert nan_sum.any() and (expected[nan_sum] != 2).all()  # node 0's missing side: left
    leaf = _compiled(clf, output="leaf")
    assert _exact([leaf(r) for r in X.tolist()], expected)
    assert _exact(_sql_outputs(clf, X, "leaf"), expected)
    assert _exact(_sql_outputs(clf, X, "class"), clf.classes_[np.argmax(
        clf.tree_.value[expected], axis=1)])
    duckdb = pytest.importorskip("duckdb")
    con = duckdb.connect()
    con.register("data", pd.DataFrame(X, columns=["x0", "x1", "x2"]))  # NaN: NULL
    got = [row[-1] for row in con.execute(export_sql(clf, output="leaf")).fetchall()]
    assert _exact(got, expected)


def test_sql_proba_refuses_a_feature_named_leaf():
    """The probabilities read the computed column "leaf" by name; SQLite and DuckDB would
    read a feature column "Leaf" in its place, silently."""
    X = _features(100, seed=10)
    clf = BivariateTreeClassifier(max_depth=2).fit(X, X[:, 0] > 0)
    with pytest.raises(ValueError, match="'Leaf' would be read in its place"):
        export_sql(clf, output="proba", feature_names=["a", "Leaf", "c", "d"])
    export_sql(clf, output="leaf", feature_names=["a", "Leaf", "c", "d"])


def test_sql_true_is_no_column_name():
    """SQLite reads the keyword TRUE as the table's column "TRUE" where there is one: the
    export writes true (a missing side, a boolean label) as a comparison instead."""
    clf, X = _overflow_tree()
    names = ["TRUE", "false", "x2"]
    nulls = set(zip(*np.nonzero(np.isnan(X))))
    db = _sqlite(np.where(np.isnan(X), 0.0, X), names, nulls)
    got = np.ravel(_run_sql(db, export_sql(clf, output="leaf", feature_names=names), 1))
    assert _exact(got, clf.tree_.apply(X))
    X = _features(200, seed=11)
    booleans = BivariateTreeClassifier(max_depth=2).fit(X, X[:, 0] > 0)
    db = _sqlite(X, ["true", "FALSE", "x2", "x3"])
    got = np.ravel(_run_sql(db, export_sql(booleans, feature_names=["true", "FALSE", "x2",
                                                                     "x3"]), 1))
    assert _exact(got.astype(bool), booleans.predict(X))
