"""Hostile text in the data never escapes its literal in any export.

Class labels, category values and feature names are drawn by hypothesis from
pieces that end or open something somewhere: quotes of every kind and triple
quotes, backslashes, line breaks (``\\r`` too, U+2028), ``</script>`` and
``<!--``, SQL comments and ``;``, template syntax, DOT escapes (``\\N``,
``\\l``), right-to-left marks, NUL, emoji, long text, and payloads that try to
run code or SQL (each would create a marker file). A tiny tree (depth 2) is fitted
on each draw, and every exporter's output is checked:

- ``export_python`` (both row types, every output): the source parses into the
  fixed shape of the generated function (no other names, calls or statements, a
  docstring free of data text) and returns what ``predict``, ``predict_proba``
  and ``apply`` give;
- ``export_sql``: runs in SQLite (and DuckDB when importable) and gives the
  same leaves, labels and probabilities; what it refuses (NUL, which no SQL text
  can carry, an empty name, a feature read as the column ``leaf``) is a
  ValueError saying so;
- ``export_onnx``: runs in ONNX Runtime (skipped without it) with one input per
  column, missing text fed as a ``missing_text`` that is no category;
- ``export_graphviz``: all data text lies inside DOT quoted strings (the DOT
  source has the shape of the same tree with plain names) and each label reads
  back, through Graphviz's escapes, as the text it shows;
- ``export_html``: the page has its two scripts, the data script's JSON reads
  back the labels, names and title, and no ``<`` of the data reaches the markup;
- ``export_text`` and ``export_rules``: run and hold the labels as they are.

No marker file may appear. ``BIVTREE_HOSTILE_EXAMPLES`` sets the number of
examples: 30 by default (CI: a few seconds once numba's cache is warm); a long
run by hand (about a minute per 1,000 examples on two cores):
``BIVTREE_HOSTILE_EXAMPLES=2000 python -m pytest tests/test_hostile_strings.py
-p no:cacheprovider``.
"""

import ast
import atexit
import copy
import html.parser
import json
import math
import os
import re
import shutil
import sqlite3
import tempfile
import warnings

import numpy as np
import pandas as pd
import pytest
from hypothesis import HealthCheck, assume, event, given, settings
from hypothesis import strategies as st

from bivtree import (
    BivariateTreeClassifier,
    export_graphviz,
    export_html,
    export_python,
    export_rules,
    export_sql,
    export_text,
)

EXAMPLES = int(os.environ.get("BIVTREE_HOSTILE_EXAMPLES") or 30)
SETTINGS = settings(max_examples=EXAMPLES, deadline=None,
                    suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large,
                                           HealthCheck.filter_too_much])

#: where a payload that ran would leave its mark (one directory for the whole module)
MARKS = tempfile.mkdtemp(prefix="bivtree-hostile-")
atexit.register(shutil.rmtree, MARKS, ignore_errors=True)
_MARK = os.path.join(MARKS, "ran")
#: payloads that create the marker file if run as Python (docstring, then line) or SQL
PY_PAYLOADS = [f'"""; open({_MARK!r}, "w"); """', f"'''; open({_MARK!r}, 'w'); '''",
               f"\n__import__('pathlib').Path({_MARK!r}).touch()\n"]
SQL_PAYLOADS = [f"'; ATTACH DATABASE '{_MARK}' AS pwn; --",
                f"\"; ATTACH DATABASE '{_MARK}' AS pwn; --",
                f"'); ATTACH DATABASE '{_MARK}' AS pwn; /*"]
PIECES = [
    '"', "'", "`", '"""', "'''", '\\"', "\\'", "\\", "\\\\", "\n", "\r", "\r\n", "\t",
    "</script>", "</SCRIPT >", "<script>", "<!--", "-->", "<b>", "&amp;", "&", ">",
    "-- ", "/*", "*/", ";", "${x}", "{{", "}}", "{0}", "%s", "#", "\\N", "\\G", "\\l",
    "\\n", "\x00", "\u2028", "\u2029", "\u202e", "\u200f", "\ufeff", "\U0001f600", "é",
    "\u00a0", " ", "x", "leaf", "Leaf", "prediction", "label", "NaN", "None", "1", "-1.5",
    *PY_PAYLOADS, *SQL_PAYLOADS,
]

#: one hostile string: pieces and plain text, joined (now and then very long)
hostile = st.one_of(
    st.lists(st.one_of(st.sampled_from(PIECES), st.text(max_size=3)), max_size=4).map(
        "".join),
    st.text(max_size=8),
    st.sampled_from(PIECES).map(lambda piece: piece * 60),
)


def _distinct(n):
    return st.lists(hostile, min_size=n, max_size=n, unique=True)


# ---------------------------------------------------------------------- the model
def _model(labels, names, categories, seed, splitter):
    """A depth-2 classifier on two numbers and one text category, with missing values;
    the rows it is checked on (an unseen category and more missing values too); and what
    ``apply``, ``predict`` and ``predict_proba`` give for them."""
    rng = np.random.default_rng(seed)
    n = 24
    cats = np.array(categories, dtype=object)
    frame = pd.DataFrame({names[0]: rng.normal(size=n), names[1]: rng.normal(size=n),
                          names[2]: pd.Series(cats[rng.permutation(np.arange(n) % 3)],
                                              dtype=object)})
    frame.iloc[::7, 0] = np.nan
    frame.iloc[3::8, 2] = None
    signal = (frame.iloc[:, 2] == categories[0]).to_numpy(copy=True)
    if seed < 2:  # else the category alone: a categorical node at the root
        signal ^= (frame.iloc[:, 0] > 0).to_numpy()
    y = np.array(labels, dtype=object)[signal.astype(int)]
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        clf = BivariateTreeClassifier(max_depth=2, categorical_features=[names[2]],
                                      splitter=splitter, random_state=0).fit(frame, y)
    rows = frame.copy()
    rows.iloc[1, 2] = "\x01".join(categories) + "\x02unseen"  # no category: they differ
    rows.iloc[2, 1] = np.nan
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")  # an unseen category is predicted as missing
        expected = {"leaf": clf.apply(rows), "class": clf.predict(rows),
                    "proba": clf.predict_proba(rows)}
    return clf, rows, expected


def _leaf_labels(clf):
    """The labels the leaves predict."""
    tree = clf.tree_
    return {clf.classes_[int(np.argmax(tree.value[leaf]))]
            for leaf in np.flatnonzero(tree.children_left == -1)}


# ---------------------------------------------------------------------- Python
#: the names the generated function may use: its tables, locals and three builtins
_PY_NAMES = {"row", "node", "left", "right", "features", "weights", "threshold",
             "category_mask", "indicator_sets", "missing_left", "output", "classes", "codes",
             "mask", "code", "goes_left", "total", "feature", "weight", "value", "key",
             "in_set", "float", "int", "zip"}
_PY_NODES = (ast.Module, ast.FunctionDef, ast.arguments, ast.arg, ast.Expr, ast.Assign,
             ast.AugAssign, ast.Name, ast.Load, ast.Store, ast.Tuple, ast.Constant, ast.Dict,
             ast.While, ast.For, ast.If, ast.IfExp, ast.Compare, ast.Subscript, ast.Call,
             ast.Attribute, ast.BoolOp, ast.BinOp, ast.UnaryOp, ast.Return, ast.cmpop,
             ast.boolop, ast.operator, ast.unaryop)


def _check_python_shape(source, docstring):
    """``source`` is one function of the exported shape: known names, calls of float, int,
    zip and ``codes[key].get`` only, no statement but the docstring and the walk."""
    tree = ast.parse(source)
    assert len(tree.body) == 1 and isinstance(tree.body[0], ast.FunctionDef)
    function = tree.body[0]
    assert function.name == "predict_row"
    assert ast.get_docstring(function) == docstring  # fixed text, no data in it
    for node in ast.walk(tree):
        assert isinstance(node, _PY_NODES), ast.dump(node)
        if isinstance(node, ast.Name):
            assert node.id in _PY_NAMES, node.id
        if isinstance(node, ast.Attribute):
            assert node.attr == "get"
        if isinstance(node, ast.Call):
            assert isinstance(node.func, ast.Attribute) or node.func.id in (
                "float", "int", "zip")
        if isinstance(node, ast.Expr):
            assert node is function.body[0]  # the docstring, nothing else


def _plain_docstrings():
    """The docstring of each (row type, output) of a model with plain names."""
    clf = BivariateTreeClassifier(max_depth=1).fit([[0.0], [1.0]], ["a", "b"])
    return {(row_type, output): ast.get_docstring(ast.parse(export_python(
        clf, row_type=row_type, output=output)).body[0])
        for row_type in ("sequence", "mapping") for output in ("class", "proba", "leaf")}


_DOCSTRINGS = _plain_docstrings()


def _check_python(clf, rows, expected, names):
    # a missing number is NaN, a missing category None, as a JSON row would hold them
    records = rows.to_dict("records")
    for row_type in ("sequence", "mapping"):
        for output in ("class", "proba", "leaf"):
            source = export_python(clf, row_type=row_type, output=output)
            _check_python_shape(source, _DOCSTRINGS[row_type, output])
            namespace = {}
            exec(compile(source, "<export>", "exec"), namespace)  # noqa: S102
            predict_row = namespace["predict_row"]
            got = [predict_row(r if row_type == "mapping" else [r[n] for n in names])
                   for r in records]
            want = expected[output].tolist()
            if output == "proba":
                want = [tuple(p) for p in want]
            assert got == want, (row_type, output)


# ---------------------------------------------------------------------- SQL
def _quoted(name):
    return '"' + name.replace('"', '""') + '"'


def _engines(rows, names):
    """The rows as a table ``data`` in SQLite, and in DuckDB when it is importable (both
    scan a table in the order of its rows)."""
    db = sqlite3.connect(":memory:")
    db.execute(f"CREATE TABLE data ({_quoted(names[0])} REAL, {_quoted(names[1])} REAL, "
               f"{_quoted(names[2])} TEXT)")
    values = [[None if isinstance(v, float) and math.isnan(v) else v for v in row]
              for row in rows.itertuples(index=False)]
    db.executemany("INSERT INTO data VALUES (?, ?, ?)", values)
    yield "sqlite", db
    try:
        import duckdb
    except ImportError:
        return
    con = duckdb.connect()
    con.register("data", rows)  # NaN and None: NULL
    yield "duckdb", con


def _refusal_is_expected(message, output, names, labels, categories):
    """Whether export_sql's ValueError names a reason the data gives."""
    texts = [*names, *labels, *categories]
    return ("NUL" in message and any("\x00" in t for t in texts)
            or "empty name" in message and "" in names
            or "read in its place" in message and output == "proba"
            and any(n.casefold() == "leaf" for n in names))


def _check_sql(clf, rows, expected, names, labels, categories):
    statements = {}
    for output in ("class", "proba", "leaf"):
        try:
            statements[output] = export_sql(clf, output=output)
        except ValueError as exc:
            assert _refusal_is_expected(str(exc), output, names, labels, categories), exc
            continue
        assert "\x00" not in statements[output]
    # SQLite and DuckDB fold the case of identifiers: such names share one column
    if not statements or len({n.casefold() for n in names}) < 3:
        return
    for engine, db in _engines(rows, names):
        event(f"SQL run in {engine}")
        for output, sql in statements.items():
            result = db.execute(sql)
            n_out = len(labels) if output == "proba" else 1
            values = [tuple(r)[len(r) - n_out:] for r in result.fetchall()]
            want = expected[output].tolist()
            if output == "proba":
                assert [list(v) for v in values] == want, engine
                header = [d[0] for d in result.description][-n_out:]
                assert header == [f"proba_{label}" for label in clf.classes_], engine
            else:
                assert [v[0] for v in values] == want, (engine, output)


# ---------------------------------------------------------------------- ONNX
def _check_onnx(clf, rows, expected, names, categories):
    try:
        import onnxruntime as ort

        from bivtree import export_onnx
    except ImportError:
        return
    if "" in names or {"label", "probabilities"} & set(names):
        with pytest.raises(ValueError, match="empty name|name of an output"):
            export_onnx(clf)
        return
    missing = "\x03missing"  # a string that is no category: a missing value
    while missing in categories:
        missing += "\x03"
    # an empty text is a missing value at fit, never a category: the default missing_text
    # "" reads as missing, and a marker that is a category is refused
    assert "" not in list(clf.categories_[2])
    export_onnx(clf)
    kept = list(clf.categories_[2])
    if kept:
        with pytest.raises(ValueError, match="is a category of the column"):
            export_onnx(clf, missing_text=kept[0])
    model = export_onnx(clf, missing_text=missing)
    session = ort.InferenceSession(model.SerializeToString(),
                                   providers=["CPUExecutionProvider"])
    assert [i.name for i in session.get_inputs()] == names
    feed = {names[0]: rows.iloc[:, [0]].to_numpy("float64"),
            names[1]: rows.iloc[:, [1]].to_numpy("float64"),
            names[2]: rows.iloc[:, [2]].astype(object).fillna(missing).to_numpy(object)}
    labels, proba = session.run(None, feed)
    event("ONNX run")
    assert labels.tolist() == expected["class"].tolist()
    assert np.array_equal(proba, expected["proba"])


# ---------------------------------------------------------------------- Graphviz
#: a DOT quoted string as Graphviz's lexer reads it: a backslash takes the next character
_DOT_STRING = re.compile(r'"((?:\\.|[^"\\])*)"', re.DOTALL)
_DOT_ESCAPES = {'"': '"', "\\": "\\", "n": "\n"}


def _dot_text(body):
    """The text a quoted label shows. Graphviz's lexer reads a backslash and a quote as
    a quote and keeps other pairs; the label then reads two backslashes as one and
    backslash-n as a line break. An export writes no other escape: backslash-N, -G,
    -l... would come from the data."""
    out, i = [], 0
    while i < len(body):
        if body[i] == "\\":
            pair = body[i + 1]
            assert pair in _DOT_ESCAPES, f"escape \\{pair} in {body!r}"
            out.append(_DOT_ESCAPES[pair])
            i += 2
        else:
            out.append(body[i])
            i += 1
    return "".join(out)


def _check_graphviz(clf):
    source = export_graphviz(clf)
    plain = copy.deepcopy(clf)
    plain.classes_ = np.array(["c0", "c1"], dtype=object)[:len(clf.classes_)]
    expected = export_graphviz(plain, feature_names=["a", "b", "c"])
    # every character of the data lies inside a quoted string, which ends where it should
    assert _DOT_STRING.sub('""', source) == _DOT_STRING.sub('""', expected)
    shown = [_dot_text(body) for body in _DOT_STRING.findall(source)]
    for label in _leaf_labels(clf):
        # the label's line as the export writes it: a line break is \r\n, \r or \n, a
        # NUL (which would end Graphviz's C string) is shown as U+2400
        line = f"class: {label}\n".replace("\r\n", "\n").replace("\r", "\n")
        assert any(line.replace("\x00", "\u2400") in s for s in shown), label
    try:
        import pydot
    except ImportError:
        return
    (graph,) = pydot.graph_from_dot_data(source)
    assert len(graph.get_nodes()) >= clf.tree_.node_count


# ---------------------------------------------------------------------- HTML
class _Page(html.parser.HTMLParser):
    """The start and end tags of a page, the text of each script and of the title."""

    def __init__(self):
        super().__init__(convert_charrefs=True)
        self.starts, self.ends, self.scripts, self.title = [], [], [], []
        self._in = None

    def handle_starttag(self, tag, attrs):
        self.starts.append(tag)
        self._in = tag
        if tag == "script":
            self.scripts.append((dict(attrs), []))

    def handle_endtag(self, tag):
        self.ends.append(tag)
        self._in = None

    def handle_data(self, data):
        if self._in == "script":
            self.scripts[-1][1].append(data)
        if self._in == "title":
            self.title.append(data)


def _check_html(clf, rows, labels, names):
    page = export_html(clf, X=rows, title=labels[0])
    parser = _Page()
    parser.feed(page)
    parser.close()
    assert parser.starts.count("script") == parser.ends.count("script") == 2
    assert [attrs.get("id") for attrs, _ in parser.scripts] == ["bivtree-data", None]
    text = "".join(parser.scripts[0][1])
    assert not {"<", ">", "&", "\u2028", "\u2029"} & set(text)
    data = json.loads(text)
    assert data["classes"] == [str(c) for c in clf.classes_]
    assert data["features"] == names
    assert data["title"] == labels[0]
    assert "".join(parser.title) == labels[0]
    # the page's script puts text into the page as text, never as markup
    assert "innerHTML" not in page and "outerHTML" not in page
    assert "insertAdjacentHTML" not in page and "document.write" not in page


# ---------------------------------------------------------------------- the property
@SETTINGS
@given(labels=_distinct(2), names=_distinct(3), categories=_distinct(3),
       seed=st.integers(0, 3), splitter=st.sampled_from(["auto", "univariate"]))
def test_hostile_strings_stay_literals_in_every_export(labels, names, categories, seed,
                                                       splitter):
    # numpy's fixed-width strings drop a trailing NUL: categorical_features=["a\x00"]
    # names a column "a" at fit, a limit of the fit rather than of the exports
    assume(not names[2].endswith("\x00"))
    labels = sorted(labels)
    # univariate trees test categories in categorical nodes, the others mostly in
    # indicator slots
    clf, rows, expected = _model(labels, names, categories, seed, splitter)
    tree = clf.tree_
    event(f"the tree reads its categories: {bool(tree.is_categorical.any())} "
          f"(categorical node), {bool(tree.has_indicator_slots.any())} (indicator slot)")
    _check_python(clf, rows, expected, names)
    _check_sql(clf, rows, expected, names, labels, categories)
    _check_onnx(clf, rows, expected, names, categories)
    _check_graphviz(clf)
    _check_html(clf, rows, labels, names)
    text = export_text(clf)
    for label in _leaf_labels(clf):
        assert f"class: {label}" in text
    assert {r["prediction"] for r in export_rules(clf)} == _leaf_labels(clf)
    assert not os.listdir(MARKS), "a payload from the data ran"


def test_the_payloads_would_leave_their_mark():
    """The payloads are live: pasted into a docstring of their quotes, or into an SQL
    string of their quote run as a script, they create the marker file."""
    for payload in PY_PAYLOADS[:2]:
        quotes = payload[:3]
        exec(f"def f():\n    {quotes}{payload}{quotes}\n    return 1\nf()\n", {})  # noqa: S102
        assert os.path.exists(_MARK)
        os.remove(_MARK)
    for payload, opening in zip(SQL_PAYLOADS, ["SELECT '", 'SELECT "', "SELECT 1 IN ('"]):
        sqlite3.connect(":memory:").executescript(f"{opening}{payload} */")
        assert os.path.exists(_MARK)
        os.remove(_MARK)


def test_fixed_hard_cases():
    """One draw of the hardest pieces, on every run: a label ending in a backslash (which
    must not escape the closing quote), a carriage return, NUL, U+2028, a lone surrogate
    (which UTF-8 cannot encode: the page's JSON escapes it) and ``</script><!--``."""
    labels = sorted(["a\\", "b\r</script><!--\u2028\x00\ud800"])
    names = ["n\\", "\r\n", '"""']
    categories = ["c\r\n", "d\u2029", "</SCRIPT >"]
    clf, rows, expected = _model(labels, names, categories, 0, "auto")
    assert set(clf.predict(rows)) == set(labels)
    _check_python(clf, rows, expected, names)
    _check_graphviz(clf)
    _check_html(clf, rows, labels, names)
    assert "\\ud800" in export_html(clf)
