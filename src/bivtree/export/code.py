"""Trees as code that runs without bivtree: SQL and plain Python.

- :func:`export_sql`: one ``SELECT`` computing each row's class, value, class
  probabilities or leaf id in a database;
- :func:`export_python`: the source of a self-contained Python function
  predicting one row.

Both route every row exactly as :meth:`apply` does. A linear node's test is
written in the order :func:`bivtree._kernels.traversal.goes_left` computes it
(``0.0 + w0 * v0 + w1 * v1 ... <= t``, one IEEE double rounding per operation,
slot by slot), and every constant is written so that it is read back as the very
double the tree stores. A slot's value ``v`` is its feature's value, or for an
*indicator slot* (a nonzero ``category_mask`` in a node of several used slots)
the indicator of its category set: 1.0 for a code in the set, 0.0 for any other
value, and missing (making the sum missing) for a missing value, as
:func:`bivtree._kernels.traversal.slot_value` reads it. A categorical node (one
used slot with a category set) tests membership of the code in its set of
integers, so a fraction or a code outside the set goes right, as in
:func:`bivtree._kernels.traversal.goes_left`. A missing value (SQL ``NULL``,
Python ``NaN``) in a feature a node uses takes the node's missing side
(``Tree.missing_go_left``), and so does a row whose finite values make the sum
NaN (``inf - inf`` after an overflow), as in ``goes_left``. A model that encoded
a column's category values at fit takes those values (``'red'``) and reads a
value it never saw as a missing one, as :meth:`predict` does.

No text from the data (class labels, category values, feature names) reaches
the generated code other than as an escaped literal: SQL identifiers are
double-quoted with inner quotes doubled, SQL strings single-quoted with inner
quotes doubled, Python values written by :func:`_py_value` as literals of their
own builtin type, and neither export writes data into a comment or docstring.
"""

import datetime
import keyword
import math
import unicodedata

import numpy as np

from .._config import TREE_LEAF
from .._tabular import code_values
from ..estimators import tree_estimator
from ..tree import mask_to_categories
from .formatting import resolve_feature_names

__all__ = ["export_python", "export_sql"]

_OUTPUTS = ("class", "proba", "leaf")
#: largest power of two an SQL integer literal holds (BIGINT is 64-bit signed).
_SQL_POWER = 62
#: true and false in SQL: comparisons, which no column name can stand for (SQLite reads
#: TRUE and FALSE as the column of that name where the table has one).
_SQL_TRUE, _SQL_FALSE = "(1 = 1)", "(1 = 0)"
#: nodes per line in the tables of the generated Python function.
_PER_LINE = 8


# ---------------------------------------------------------------------- shared
def _check_output(estimator, output):
    """The tree, the class labels (``None`` for a regressor) and a checked ``output``
    (``estimator`` is a fitted tree estimator: :func:`~bivtree.estimators.tree_estimator`)."""
    if output not in _OUTPUTS:
        raise ValueError(f"output must be one of {_OUTPUTS}, got {output!r}")
    classes = getattr(estimator, "classes_", None)
    if output == "proba" and classes is None:
        raise ValueError("output='proba' needs a classifier; a regressor has no classes")
    return estimator.tree_, classes


def _leaf_outputs(tree, classes, output):
    """Per node: the label / value / probability row / id a leaf returns.

    Probabilities and labels are computed with the same numpy expressions as
    ``predict_proba`` and ``predict``, so the numbers are the estimator's own.
    """
    if output == "leaf":
        return list(range(tree.node_count))
    if classes is None:
        return [float(v) for v in tree.value[:, 0]]
    counts = tree.value
    totals = counts.sum(axis=1, keepdims=True)
    proba = counts / np.where(totals > 0, totals, 1.0)
    if output == "proba":
        return [[float(p) for p in row] for row in proba]
    return [classes[i].item() if hasattr(classes[i], "item") else classes[i]
            for i in np.argmax(proba, axis=1)]


def _used_slots(tree, node):
    """``(feature, weight, mask)`` of the used slots of a node, in slot order.

    ``mask`` is the slot's category set (0: the slot reads its feature's value).
    """
    return [(int(f), float(w), int(m)) for f, w, m in
            zip(tree.features[node], tree.weights[node], tree.category_mask[node]) if f >= 0]


def _check_names(names, what, empty=False):
    """``names``, refused when two are the same, or one is empty (unless ``empty``): each
    names ``what`` (a column, a key), and a shared name cannot say which feature it is."""
    for j, name in enumerate(names):
        if name == "" and not empty:
            raise ValueError(f"feature {j} has the empty name '', which cannot be {what}: "
                             "give the feature a name (feature_names=[...], or rename the "
                             "column before fitting)")
    seen = {}
    for j, name in enumerate(names):
        if name in seen:
            raise ValueError(f"features {seen[name]} and {j} are both named {name!r}; "
                             f"each feature needs its own name as {what}")
        seen[name] = j
    return names


# ---------------------------------------------------------------------- SQL
def _sql_power_of_two(exponent):
    """Integer literals whose product is ``2 ** exponent`` (each fits in a BIGINT)."""
    parts = []
    while exponent > 0:
        step = min(exponent, _SQL_POWER)
        parts.append(str(1 << step))
        exponent -= step
    return parts


def sql_float(value, decimals=None):
    """An SQL expression whose value is the double ``value``, exactly.

    A decimal literal is only as exact as the engine's parser: SQLite 3.40 reads
    about one in 10,000 shortest round-trip decimals (``repr``) one unit in the
    last place off. The expression built here involves no decimal parsing: the
    double ``m * 2**e`` (``m`` an integer below ``2**53``) is written as
    ``CAST(m AS DOUBLE PRECISION)`` divided (or multiplied) by powers of two
    written as integers. Each of those operations is exact in IEEE double
    arithmetic, intermediate values included, so any engine computing in
    doubles gets ``value`` back bit for bit.

    Parameters
    ----------
    value : float
        A finite double.
    decimals : int or None, default=None
        Write a plain decimal literal with this many significant digits instead:
        shorter, but *not exact* (rounded, and parsed by the engine's own rules).

    Returns
    -------
    str

    Examples
    --------
    >>> sql_float(0.75)
    '(CAST(3 AS DOUBLE PRECISION) / 4)'
    >>> sql_float(-2.0)
    'CAST(-2 AS DOUBLE PRECISION)'
    >>> sql_float(0.1, decimals=3)
    '0.1'
    """
    value = float(value)
    if not math.isfinite(value):
        raise ValueError(f"cannot write {value!r} as an SQL number")
    if decimals is not None:
        text = f"{value:.{decimals}g}"
        return text if any(c in text for c in ".en") else text + ".0"
    if value == 0.0:
        # the sign of a zero never changes a test: +0 and -0 compare equal and
        # a sum or product that is zero is compared, not divided by
        return "0.0"
    numerator, denominator = value.as_integer_ratio()
    if denominator == 1:
        # an integer; one of 2**53 or more is m * 2**k, and 2**k is written as
        # factors that each fit in a BIGINT
        big = abs(numerator) >= 1 << 53
        shift = (abs(numerator) & -abs(numerator)).bit_length() - 1 if big else 0
        mantissa = numerator >> shift
        factors = _sql_power_of_two(shift)
        if not factors:
            return f"CAST({mantissa} AS DOUBLE PRECISION)"
        return f"(CAST({mantissa} AS DOUBLE PRECISION) * {' * '.join(factors)})"
    divisors = _sql_power_of_two(denominator.bit_length() - 1)
    return f"(CAST({numerator} AS DOUBLE PRECISION) / {' / '.join(divisors)})"


def _check_sql_text(text, what):
    """``text``, refused when it holds a NUL character, which no SQL text can carry
    (SQLite's and PostgreSQL's C interfaces end the statement there)."""
    if "\x00" in text:
        raise ValueError(f"{what} {text!r} holds a NUL character, which an SQL statement "
                         "cannot carry")
    return text


def quote_identifier(name):
    """``name`` as a double-quoted SQL identifier (inner quotes doubled).

    Inside double quotes only a double quote is special, so any text but the
    empty string and one holding a NUL character is a valid identifier.

    Raises
    ------
    ValueError
        If ``name`` is empty (``""`` is a zero-length identifier, which
        PostgreSQL and DuckDB reject) or holds a NUL character.

    Examples
    --------
    >>> quote_identifier('petal "width" cm')
    '"petal ""width"" cm"'
    """
    name = str(name)
    if not name:
        raise ValueError("an SQL identifier (a table or column name) cannot be empty")
    return '"' + _check_sql_text(name, "the SQL identifier").replace('"', '""') + '"'


def _sql_string(text, what="the value"):
    """``text`` as an SQL string literal: single quotes, inner single quotes doubled.

    Standard SQL (SQLite, PostgreSQL with its default ``standard_conforming_strings``,
    DuckDB) gives a backslash no meaning inside such a literal.
    """
    return "'" + _check_sql_text(str(text), what).replace("'", "''") + "'"


def _sql_value(value, decimals):
    """A class label, value or leaf id as an SQL literal of its type."""
    if isinstance(value, (bool, np.bool_)):
        # not the keywords TRUE / FALSE: SQLite reads them as a column of that name
        # where the table has one
        return _SQL_TRUE if value else _SQL_FALSE
    if isinstance(value, (int, np.integer)):
        return str(int(value))
    if isinstance(value, (float, np.floating)):
        return sql_float(value, decimals)
    # an output column: any other label reads as its text
    return _sql_string(value, "the class label")


def _sql_category(value, name):
    """A category value of column ``name`` as an SQL literal that the column's value equals.

    Strings, booleans, integers and floats are literals of their type (a float
    written exactly, as :func:`sql_float` does). Dates, times and datetimes are
    ISO strings (``'2020-01-31'``, ``'2020-01-31 12:00:00'``): PostgreSQL and
    DuckDB read such a literal as a value of the column's date or time type, and
    SQLite stores dates as that text. Any other type (``Decimal``, ``Fraction``,
    an object) has no SQL literal the column could equal: it is refused.
    """
    if isinstance(value, str):
        return _sql_string(value, f"the category value of column {str(name)!r}")
    if isinstance(value, (bool, int, float, np.bool_, np.integer, np.floating)):
        # an infinite value has no literal all three engines read: sql_float refuses it
        return _sql_value(value, None)
    if isinstance(value, (datetime.date, datetime.time)):  # datetime is a date too
        return _sql_string(value.isoformat(" ") if isinstance(value, datetime.datetime)
                           else value.isoformat())
    raise ValueError(f"export_sql cannot write the category value {value!r} of column "
                     f"{str(name)!r} (type {type(value).__name__}): a category value must be "
                     "a string, a number, a boolean, a date, a time or a datetime; convert "
                     "the column before fitting (e.g. df[col].astype(str))")


def _sql_sets(values, f, mask, name):
    """SQL literals of the category set ``mask`` of feature ``f``, and of all its categories.

    Returns ``(members, known)``: for a column of codes, the codes of the set and
    ``None``; for a column of category values (``values[f]``, see
    ``_tabular.code_values``; ``name`` is the column's, for messages), the
    values of the set's codes and every value known at fit.
    """
    if values is None or values[f] is None:
        # ``IN`` compares numerically: 2.0 matches 2, 2.5 and NULL match nothing
        return [str(c) for c in mask_to_categories(mask)], None
    members = [_sql_category(v, name) for c in mask_to_categories(mask)
               if c < len(values[f]) for v in values[f][c]]
    known = [_sql_category(v, name) for code_values in values[f] for v in code_values]
    return members, known


def _sql_in(column, literals, negate=False):
    """``column IN (literals)`` (``NOT IN`` when ``negate``), written without an empty list,
    which standard SQL does not allow: no value is in an empty set (``1 = 0``), and every
    known value is outside it (``column IS NOT NULL``)."""
    if not literals:
        return f"{column} IS NOT NULL" if negate else "1 = 0"
    return f"{column} {'NOT IN' if negate else 'IN'} ({', '.join(literals)})"


def _sql_missing(column, known):
    """Conditions true when ``column`` is missing to the model: NULL, or a value unseen at fit."""
    missing = [f"{column} IS NULL"]
    if known is not None:
        # NULL NOT IN (...) is NULL, not true: the IS NULL above covers it
        missing.append(_sql_in(column, known, negate=True))
    return missing


def _sql_indicator(column, members, known):
    """An indicator slot's value: 1.0 in the set, 0.0 for another known value, else NULL.

    The ``CASE`` has no ``ELSE``: NULL (and, for a column of category values, a
    value unseen at fit, which the model reads as missing) gives NULL, which makes
    the node's whole sum NULL, as NaN does in ``slot_value``.
    """
    other = f"{column} IS NOT NULL" if known is None else _sql_in(column, known)
    return (f"(CASE WHEN {_sql_in(column, members)} THEN 1.0 "
            f"WHEN {other} THEN 0.0 END)")


def _sql_test(tree, node, columns, decimals, values=None, names=None):
    """The SQL condition that is true exactly when a row goes left at ``node``.

    ``values`` (``_tabular.code_values``) holds, for a feature encoded as
    categories at fit, the values of each code: the test then compares the
    column with those values instead of codes (``names``: the features' names,
    for messages).

    Categorical node: a NULL makes ``IN`` NULL, which counts as false (right); a
    node whose missing side is the left one adds ``OR ... IS NULL``, and for a
    column of category values ``OR ... NOT IN`` the values known at fit (the
    model reads a value it never saw as a missing one).

    Linear node: the sum ``s`` is NULL when a feature is NULL (an indicator
    slot's term is NULL for a value unseen at fit too, :func:`_sql_indicator`),
    and finite values can make it NaN (``1e308 + 1e308 - 1e308 - 1e308``), which
    ``goes_left`` sends to the missing side like a missing value. SQLite turns a
    NaN result into NULL; PostgreSQL and DuckDB keep NaN and order it above every
    number, +infinity included. ``s <= t`` is false (or NULL) for both, sending
    the row right. A node whose missing side is the left one tests
    ``COALESCE(-(s) >= -t, 1 = 1)`` instead: negation is exact and reverses the
    order of numbers, so for a number (infinities included) it is ``s <= t``;
    NaN stays above everything, so it holds for NaN; and NULL becomes true
    (``1 = 1``, not the keyword ``TRUE``, which SQLite reads as a column named so).
    """
    slots = _used_slots(tree, node)
    if tree.categorical_mask(node):
        f, _, mask = slots[0]
        members, known = _sql_sets(values, f, mask, _name(names, f))
        test = _sql_in(columns[f], members)
        if not tree.missing_go_left[node]:
            return test
        return f"({test} OR {' OR '.join(_sql_missing(columns[f], known))})"
    # the sum starts at 0.0 and adds the terms left to right, as goes_left does;
    # a weight of exactly 1 is left out of its term (1 * v == v for every double)
    terms = ["0.0"]
    for f, w, mask in slots:
        value = columns[f]
        if mask:
            members, known = _sql_sets(values, f, mask, _name(names, f))
            value = _sql_indicator(columns[f], members, known)
        terms.append(value if w == 1.0 else f"{sql_float(w, decimals)} * {value}")
    total = " + ".join(terms)
    threshold = float(tree.threshold[node])
    if not tree.missing_go_left[node]:
        return f"{total} <= {sql_float(threshold, decimals)}"
    return f"COALESCE(-({total}) >= {sql_float(-threshold, decimals)}, {_SQL_TRUE})"


def _name(names, f):
    """Feature ``f``'s name for a message (its index where ``names`` is None)."""
    return f if names is None else names[f]


def _sql_case(tree, columns, outputs, decimals, values=None, names=None):
    """One flat ``CASE``: a ``WHEN`` per leaf, in preorder, on its left turns only.

    A row reaching leaf ``L`` passes every test where ``L``'s path turns left;
    any leaf listed before ``L`` lies left of some ancestor where the row turned
    right, and that ancestor's test (false or NULL) is among its conditions, so
    the first ``WHEN`` that holds is the row's leaf. Nested ``CASE`` expressions
    would say the same, but SQLite's parser stack overflows at about 25 levels;
    ``AND`` chains it reads flat.
    """
    whens = []
    path = []
    # an explicit stack, not recursion: a valid tree may be thousands of levels deep
    stack = [(0, 0, None)]
    while stack:
        node, kept, test = stack.pop()
        del path[kept:]
        if test is not None:
            path.append(test)
        if tree.children_left[node] == TREE_LEAF:
            whens.append((" AND ".join(path), outputs[node]))
            continue
        stack.append((int(tree.children_right[node]), len(path), None))
        stack.append((int(tree.children_left[node]), len(path),
                      _sql_test(tree, node, columns, decimals, values, names)))
    *tested, (_, last) = whens
    if not tested:
        return _sql_value(last, decimals)
    lines = [f"    WHEN {cond} THEN {_sql_value(out, decimals)}" for cond, out in tested]
    return "CASE\n" + "\n".join(lines) + f"\n    ELSE {_sql_value(last, decimals)}\nEND"


def export_sql(estimator, *, table="data", feature_names=None, output="class",
               decimals=None):
    """A ``SELECT`` statement computing each row's prediction in a database.

    Parameters
    ----------
    estimator : BivariateTreeClassifier, BivariateTreeRegressor, TAOTreeClassifier or TAOTreeRegressor
        A fitted estimator. A model selector (``TAOTreeClassifierCV``,
        ``CostComplexityCV``...) stands for its chosen tree, ``best_estimator_``.
    table : str, default="data"
        Name of the table (or view) holding one row per sample, written as one
        quoted identifier.
    feature_names : sequence of str, default=None
        Column of each feature; defaults to ``feature_names_in_`` or
        ``x0, x1, ...``. Names are quoted, so spaces and quotes are allowed.
        The columns must hold doubles (``REAL`` / ``DOUBLE PRECISION``),
        except those of features encoded as categories at fit, which hold the
        category values themselves (``colour IN ('red', 'blue')``).
    output : {"class", "proba", "leaf"}, default="class"
        ``"class"``: a column ``prediction`` with the class label (the mean
        value for a regressor); ``"proba"``: a column ``leaf`` and one column
        ``proba_<class>`` per class (computed from ``leaf`` by name, so the
        table must have no other column ``leaf``, in any case); ``"leaf"``: a
        column ``leaf`` with the leaf id :meth:`apply` gives.
    decimals : int or None, default=None
        ``None`` writes every constant exactly (see :func:`sql_float`), and any
        engine computing in IEEE doubles then routes every row as :meth:`apply`
        does, values at a threshold and missing values included. An integer
        writes constants as decimals with this many significant digits: easier
        to read, but *not exact*: rows near a threshold may be routed otherwise.

    Returns
    -------
    str
        ``SELECT *, <expression> AS ... FROM <table>``: the table's columns
        followed by the output columns. The tree is one flat ``CASE`` with a
        ``WHEN`` per leaf (see the notes), which SQLite, PostgreSQL and DuckDB
        read. A linear test reads ``0.0 + "x0" + w * "x1" <= t`` (terms in the
        order :meth:`apply` adds them), a categorical one ``"colour" IN (0, 2, 5)``;
        an indicator slot is the term ``w * (CASE WHEN "colour" IN (0, 2) THEN 1.0
        WHEN "colour" IS NOT NULL THEN 0.0 END)`` (``... WHEN "colour" IN (<every
        value known at fit>) THEN 0.0 END`` for a column of category values), NULL
        for a missing or unseen value, which makes the whole sum NULL.
        Class labels are literals of their type (string, integer, double,
        ``(1 = 1)`` / ``(1 = 0)``: SQLite reads ``TRUE`` as a column of that name
        where the table has one).

    Notes
    -----
    A leaf's ``WHEN`` holds the tests where its path turns left, joined by
    ``AND``; leaves are listed left to right, so the first ``WHEN`` that holds
    names the row's leaf. A missing value is a NULL: a test that is NULL counts
    as false, sending the row right. At a node whose missing side is the left
    one (``Tree.missing_go_left``), a categorical test adds ``OR "colour" IS
    NULL`` (and ``OR "colour" NOT IN (...)`` the values known at fit, for a
    column of category values), and a linear test reads
    ``COALESCE(-(0.0 + "x0" + w * "x1") >= -t, (1 = 1))``: true where ``s <= t``,
    and for a NULL sum (a missing value) or a NaN one (finite values whose
    products or sum overflow to ``inf - inf``), which :meth:`apply` sends to the
    missing side too; SQLite turns NaN into NULL, PostgreSQL and DuckDB order it
    above every number, and the test holds in both. So NULLs (and NaN sums) go
    where :meth:`apply` sends NaN. PostgreSQL raises an error where a sum
    overflows instead of computing ``inf``. SQLite limits an expression to 1,000
    levels (``SQLITE_MAX_EXPR_DEPTH``), so a leaf with more left turns than that
    needs a larger limit there.

    Category values are written as literals of their type; dates, times and
    datetimes as ISO strings (``'2020-01-31'``), which PostgreSQL and DuckDB
    compare as values of the column's type and SQLite as the text it stores
    them as. Other types of category values are refused.

    Raises
    ------
    ValueError
        For an unknown ``output``, ``output="proba"`` of a regressor, a feature
        (or ``table``) name that is empty or holds a NUL character, two features
        of the same name, a feature named ``leaf`` with ``output="proba"``, a
        category value of a type without an SQL literal, or a label holding a
        NUL character.

    Examples
    --------
    >>> import sqlite3
    >>> from bivtree import BivariateTreeClassifier
    >>> X = [[0.0, 1.0], [1.0, 0.0], [2.0, 2.0], [3.0, 1.0]]
    >>> clf = BivariateTreeClassifier(max_depth=1).fit(X, ["a", "a", "b", "b"])
    >>> db = sqlite3.connect(":memory:")
    >>> _ = db.execute('CREATE TABLE data (x0 REAL, x1 REAL)')
    >>> _ = db.executemany("INSERT INTO data VALUES (?, ?)", X)
    >>> [row[-1] for row in db.execute(export_sql(clf))]
    ['a', 'a', 'b', 'b']
    """
    estimator = tree_estimator(estimator, "export_sql")  # a model selector: its chosen tree
    tree, classes = _check_output(estimator, output)
    names = _check_names(resolve_feature_names(estimator, feature_names), "an SQL column")
    columns = [quote_identifier(n) for n in names]
    source = quote_identifier(table)
    values = code_values(estimator)
    if output == "proba":
        # the outer query reads the inner column "leaf" by name: a feature column of
        # that name (SQLite and DuckDB fold case) would be read instead, silently
        clash = [n for n in names if str(n).casefold() == "leaf"]
        if clash:
            raise ValueError(f"output='proba' names its leaf column \"leaf\", and the "
                             f"feature {str(clash[0])!r} would be read in its place: name "
                             "the features otherwise (feature_names=[...] and a view)")
        ids = list(range(tree.node_count))
        leaf = _sql_case(tree, columns, ids, decimals, values, names)
        proba = _leaf_outputs(tree, classes, "proba")
        leaves = np.flatnonzero(tree.children_left == TREE_LEAF)
        selected = []
        for k, label in enumerate(classes):
            whens = " ".join(f"WHEN {i} THEN {sql_float(proba[i][k], decimals)}"
                             for i in leaves)
            name = quote_identifier(f"proba_{label}")
            selected.append(f'CASE "leaf" {whens} END AS {name}')
        return ("SELECT *,\n" + ",\n".join(selected)
                + f'\nFROM (SELECT *,\n{leaf} AS "leaf"\nFROM {source}) AS "leaves"')
    name = '"leaf"' if output == "leaf" else '"prediction"'
    expression = _sql_case(tree, columns, _leaf_outputs(tree, classes, output), decimals,
                           values, names)
    return f"SELECT *,\n{expression} AS {name}\nFROM {source}"


# ---------------------------------------------------------------------- Python
def _py_value(value, what="the value"):
    """A Python literal (or a float expression) evaluating to ``value`` exactly.

    A list becomes a tuple of its items. A string, bytes, boolean, integer or
    float (numpy scalars as those) is written by the ``__repr__`` of that builtin
    type (a subclass's own ``__repr__`` is not called), which Python reads back
    as an equal value of that type; a non-finite float as ``float('inf')``. Such
    a literal is all the data text the source holds, and it cannot end early: a
    string's ``repr`` escapes its backslashes, the quote it is delimited by and
    every character that is not printable (line breaks, U+2028, NUL), so the
    literal is one line that the first unescaped quote of its own kind ends.

    Raises
    ------
    ValueError
        For a value of any other type (a date, a ``Decimal``, an object), whose
        ``repr`` needs names the function does not have, or could be any code;
        ``what`` names the value in the message.
    """
    if isinstance(value, (list, tuple)):
        return "(" + "".join(_py_value(v, what) + ", " for v in value) + ")"
    if isinstance(value, np.generic):
        value = value.item()
    if isinstance(value, bool):
        return "True" if value else "False"
    if isinstance(value, int):
        return int.__repr__(value)
    if isinstance(value, float):
        text = float.__repr__(value)
        return text if math.isfinite(value) else f"float({text!r})"
    if isinstance(value, str):
        return str.__repr__(value)
    if isinstance(value, bytes):
        return bytes.__repr__(value)
    raise ValueError(f"export_python writes {what} as a Python literal, and {value!r} (of "
                     f"type {type(value).__name__}) has none: a value must be a string, a "
                     "number, a boolean or bytes; convert it before fitting (e.g. "
                     "df[col].astype(str)), or use export_sql")


def _py_table(name, items):
    """``name = (...)`` over several lines, ``_PER_LINE`` entries a line."""
    lines = [f"    {name} = ("]
    for start in range(0, len(items), _PER_LINE):
        lines.append("        " + " ".join(f"{v}," for v in items[start:start + _PER_LINE]))
    lines.append("    )")
    return lines


#: the generated function's walk: the categorical test, then the linear one
#: (:data:`_PY_LINEAR` or :data:`_PY_LINEAR_INDICATORS`) and :data:`_PY_TAIL`.
_PY_HEAD = '''\
    node = 0
    while left[node] != -1:
        mask = category_mask[node]
        if mask:
            # a category code: an integer in [0, 63] whose bit is set goes left;
            # a fraction or another number goes right, NaN (missing) to its side
            code = row[features[node][0]]
            code = float('nan') if code is None else code  # None (a JSON null): missing
            goes_left = (0.0 <= code <= 63.0 and code == code // 1
                         and (mask >> int(code)) & 1 == 1) or (
                             code != code and missing_left[node])
        else:
'''
_PY_LINEAR = '''\
            # slot by slot from 0.0, one rounding per operation, as bivtree does
            total = 0.0
            for feature, weight in zip(features[node], weights[node]):
                value = row[feature]
                # None (a JSON null) is a missing value, as NaN is
                total += weight * (float('nan') if value is None else value)
'''
#: the linear test of a tree with indicator slots (only such a tree pays for the check)
_PY_LINEAR_INDICATORS = '''\
            # slot by slot from 0.0, one rounding per operation, as bivtree does; an
            # indicator slot (a nonzero set) reads 1.0 for a code in its set, 0.0 for any
            # other number, and NaN (missing) as NaN
            total = 0.0
            for key, weight, in_set in zip(features[node], weights[node],
                                           indicator_sets[node]):
                value = row[key]
                value = float('nan') if value is None else value  # None: missing
                if in_set and value == value:
                    value = 1.0 if (0.0 <= value <= 63.0 and value == value // 1
                                    and (in_set >> int(value)) & 1 == 1) else 0.0
                total += weight * value
'''
_PY_TAIL = '''\
            # NaN (a missing value) fails the comparison and takes its side
            goes_left = total <= threshold[node] or (total != total and missing_left[node])
        node = left[node] if goes_left else right[node]
    return output[node]
'''

#: what the generated function returns, for its docstring: no data text goes there
_PY_RETURNS = {
    "class": "the predicted class",
    "value": "the predicted value",
    "proba": "a tuple of the class probabilities, in the order of the table classes",
    "leaf": "the id of the leaf the row reaches",
}
#: builtins the generated function calls: a function of that name would replace them
_PY_BUILTINS = ("float", "int", "zip")


def _check_function_name(name):
    """``name``, refused unless ``def name(row):`` defines it and leaves the code working.

    Python reads identifiers in NFKC form (``ｆloat`` is ``float``), so the
    normalized name must not be a keyword nor a builtin the function calls.
    """
    if not isinstance(name, str) or not name.isidentifier():
        raise ValueError(f"function_name {name!r} is not a Python identifier")
    normal = unicodedata.normalize("NFKC", name)
    if keyword.iskeyword(normal):
        raise ValueError(f"function_name {name!r} is a Python keyword")
    if normal in _PY_BUILTINS or normal == "__builtins__":
        raise ValueError(f"function_name {name!r} would replace the builtin {normal!r}, "
                         f"which the function calls ({', '.join(_PY_BUILTINS)})")
    return name


def export_python(estimator, *, function_name="predict_row", output="class",
                  feature_names=None, row_type="sequence"):
    """Source of a self-contained Python function that predicts one row.

    The function needs neither bivtree nor numpy. It walks flat node tables in
    a loop (no recursion, no nesting), so a tree thousands of levels deep
    exports and runs like a small one; its arithmetic is the estimator's own
    (constants written with ``repr``, which reads back as the same double, and
    terms added in slot order from ``0.0``, an indicator slot adding its weight
    times 1.0, 0.0 or NaN as :meth:`apply` does), so it returns exactly what
    :meth:`predict`, :meth:`predict_proba` or :meth:`apply` give for that row.

    Parameters
    ----------
    estimator : BivariateTreeClassifier, BivariateTreeRegressor, TAOTreeClassifier or TAOTreeRegressor
        A fitted estimator. A model selector (``TAOTreeClassifierCV``,
        ``CostComplexityCV``...) stands for its chosen tree, ``best_estimator_``.
    function_name : str, default="predict_row"
        A Python identifier that is not a keyword nor one of the builtins the
        function calls (``float``, ``int``, ``zip``).
    output : {"class", "proba", "leaf"}, default="class"
        What the function returns: the class label (the mean value for a
        regressor), a tuple of class probabilities in ``classes_`` order (the
        function's table ``classes`` lists them), or the leaf id.
    feature_names : sequence of str, default=None
        Keys of a ``"mapping"`` row; defaults to ``feature_names_in_`` or
        ``x0, x1, ...``.
    row_type : {"sequence", "mapping"}, default="sequence"
        ``"sequence"``: the function takes a sequence of numbers, ``row[i]``
        being feature ``i``; ``"mapping"``: a mapping from feature name to
        number (a ``dict`` or a ``csv.DictReader`` row converted to floats).
        A missing number is ``float("nan")`` or ``None`` (e.g. a JSON
        ``null``). A feature encoded as categories at fit takes its
        category values (``"red"``), which the function maps to the model's
        codes; a value not seen at fit (``None`` too) is read as a missing one,
        as :meth:`predict` reads it.

    Returns
    -------
    str
        Source code defining ``function_name(row)``. Class labels, feature
        names and category values appear in it only as Python literals of their
        builtin type (``str``, ``bytes``, ``bool``, ``int``, ``float``), never in
        its docstring or a comment.

    Raises
    ------
    ValueError
        For an unknown ``output`` or ``row_type``, a ``function_name`` that
        cannot name the function, two features of the same name with
        ``row_type="mapping"``, or a class label or category value of another
        type than those above (a date, a ``Decimal``...), which has no literal
        the function could compare or return without imports: convert such a
        column to strings or numbers before fitting.

    Examples
    --------
    >>> from bivtree import BivariateTreeRegressor
    >>> X = [[0.0, 1.0], [1.0, 0.0], [2.0, 2.0], [3.0, 1.0]]
    >>> reg = BivariateTreeRegressor(max_depth=1).fit(X, [1.0, 1.0, 5.0, 5.0])
    >>> namespace = {}
    >>> exec(export_python(reg), namespace)
    >>> namespace["predict_row"]([2.5, 1.5])
    5.0
    """
    estimator = tree_estimator(estimator, "export_python")  # a model selector: its chosen tree
    tree, classes = _check_output(estimator, output)
    if row_type not in ("sequence", "mapping"):
        raise ValueError(f"row_type must be 'sequence' or 'mapping', got {row_type!r}")
    _check_function_name(function_name)
    names = resolve_feature_names(estimator, feature_names)
    if row_type == "mapping":
        # each feature is the key of its own name ("" is a key like any other)
        keys = [str(name) for name in _check_names(names, "a key of the row", empty=True)]
    else:
        keys = list(range(len(names)))
    nodes = range(tree.node_count)
    features, weights = [], []
    for node in nodes:
        slots = _used_slots(tree, node) if tree.children_left[node] != TREE_LEAF else []
        features.append(_py_value([keys[f] for f, _, _ in slots]))
        weights.append(_py_value([w for _, w, _ in slots]))
    kind = output if output != "class" or classes is not None else "value"
    row_doc = ("row[i] is feature i" if row_type == "sequence"
               else "row[name] is the feature of that name")
    # the docstring is fixed text: labels, names and values appear only as literals
    lines = [f"def {function_name}(row):",
             f'    """Return {_PY_RETURNS[kind]} for one row ({row_doc}).',
             "",
             "    Exported from a bivtree model; routes every row as the model does.",
             '    """']
    if output == "proba":
        lines += _py_table("classes", [_py_value(c, "the class label") for c in classes])
    lines += _py_table("left", [str(int(c)) for c in tree.children_left])
    lines += _py_table("right", [str(int(c)) for c in tree.children_right])
    lines += _py_table("features", features)
    lines += _py_table("weights", weights)
    lines += _py_table("threshold", [_py_value(float(t)) for t in tree.threshold])
    lines += _py_table("category_mask", [str(tree.categorical_mask(node))
                                         for node in range(tree.node_count)])
    linear = _PY_LINEAR
    if tree.has_indicator_slots.any():
        linear = _PY_LINEAR_INDICATORS
        # per node, the set of each used slot (0: the slot reads its feature's value)
        lines += _py_table("indicator_sets", [
            _py_value([m for _, _, m in _used_slots(tree, node)])
            if tree.children_left[node] != TREE_LEAF and not tree.categorical_mask(node)
            else "()" for node in nodes])
    lines += _py_table("missing_left", [str(bool(m)) for m in tree.missing_go_left])
    lines += _py_table("output", [_py_value(v, "the class label")
                                  for v in _leaf_outputs(tree, classes, output)])
    body = _PY_HEAD + linear + _PY_TAIL
    values = code_values(estimator)
    if values is None:
        return "\n".join(lines) + "\n" + body
    lines += _py_codes(values, keys, names)
    body = body.replace(_PY_CODE, _PY_MAPPED_CODE).replace(_PY_VALUE, _PY_MAPPED_VALUE)
    return "\n".join(lines) + "\n" + body


#: how the exported function reads a categorical node's code and an indicator slot's
#: value, and how it reads them when the row holds category values (a value not seen
#: at fit becomes NaN, as in predict)
_PY_CODE = "            code = row[features[node][0]]\n"
_PY_MAPPED_CODE = (
    "            key = features[node][0]\n"
    "            code = codes[key].get(row[key], float('nan')) if key in codes else row[key]\n")
_PY_VALUE = "                value = row[key]\n"
_PY_MAPPED_VALUE = (
    "                value = (codes[key].get(row[key], float('nan')) if key in codes\n"
    "                         else row[key])\n")


def _py_codes(values, keys, names):
    """``codes = {...}``: per categorical feature (its key in the row), each category
    value's code; a value without a literal (:func:`_py_value`) is refused, naming
    its column (``names``)."""
    lines = ["    codes = {"]
    for f, per_code in enumerate(values):
        if per_code is None:
            continue
        what = f"the category value of column {str(names[f])!r}"
        pairs = ", ".join(f"{_py_value(v, what)}: {c}" for c, group in enumerate(per_code)
                          for v in group)
        lines.append(f"        {_py_value(keys[f])}: {{{pairs}}},")
    lines.append("    }")
    return lines
