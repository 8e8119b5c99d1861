"""The ``bivtree`` command.

Each subcommand is one ``_add_<name>`` function that declares its arguments and
one ``_run_<name>`` function that does the work and returns the exit status,
so a new subcommand is two functions and one line in :func:`build_parser`.

    bivtree demo [--splitter auto] [--max-depth 3] [--cv 5] [--n-jobs 1] [--decimals 4]
    bivtree fit DATA.csv --target COL [--categorical COL ...] [--numeric COL ...]
                [--model auto|tao|tao-cv] [--splitter ...] [-o MODEL.json] [--force]
    bivtree predict MODEL.json DATA.csv [--proba] [--keep COL ...] [-o predictions.csv]
                [--no-escape-formulas]
    bivtree show MODEL.json [--data DATA.csv] [--out tree.html|tree.png|rules.md|tree.dot]
                [--no-escape-formulas]
    bivtree compile

``fit``, ``predict`` and ``show`` read CSV or Parquet through pandas (text in UTF-8
unless ``--encoding`` names another) and keep models as JSON
(``bivtree.export.save_model``). Every problem with the user's files is reported as
``bivtree COMMAND: error: ...`` on stderr with exit status 1 (2 for a malformed command
line, as argparse does), before any fitting: an output file that exists (unless
``--force``), an output folder that does not; an input that is empty, has no rows, is not
text in its encoding or not a table; a missing column; text in a column read as numbers;
infinite values, and missing values where the model does not route them, named by row
and column. Text columns are categorical features unless ``--numeric`` says otherwise;
empty cells are missing values; ``predict`` writes one output row per input row. A
categorical column of the data given to a fitted model (``predict``, ``show --data``) is
read as the categories seen at fit whatever type pandas gives the column (a cell equals a
category when it reads as the same number, or has the same text); a cell that is no such
category is predicted as a missing value and reported on stderr. Text cells of CSV and TSV
outputs that a spreadsheet would run as formulas get a leading ``'`` unless
``--no-escape-formulas``. Outputs are
written to a temporary file beside the target and renamed into place, so a failed write
leaves no partial file and keeps the file it would have replaced. Any other exception is a
bug and propagates with its traceback.
"""

import argparse
import codecs
import contextlib
import functools
import json
import numbers
import os
import sys
import tempfile
import time

import numpy as np
from sklearn.datasets import load_breast_cancer
from sklearn.model_selection import StratifiedKFold, cross_validate
from sklearn.tree import DecisionTreeClassifier

from ._tabular import plain_scalar
from ._version import __version__
from .estimators import BivariateTreeClassifier
from .experiments.bench import register_bench_command
from .export.formatting import DEFAULT_DECIMALS
from .export.plot import MAX_DRAWN_BOXES, drawable_depth
from .export.text import export_text
from .splitters import SPLITTERS

#: seed of the fold shuffling and of scikit-learn's tree, so every run prints the same table.
DEMO_RANDOM_STATE = 0


def _int_at_least(low):
    """argparse type: an integer ``>= low`` (a bad value is a usage error, exit code 2)."""

    def parse(text):
        try:
            value = int(text)
        except ValueError:
            raise argparse.ArgumentTypeError(f"expected an integer, got {text!r}") from None
        if value < low:
            raise argparse.ArgumentTypeError(f"must be an integer >= {low}, got {value}")
        return value

    return parse


def _n_jobs(text):
    """argparse type: joblib's ``n_jobs`` (a positive count, or -1 for all cores)."""
    try:
        value = int(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"expected an integer, got {text!r}") from None
    if value == 0:
        raise argparse.ArgumentTypeError("must be a positive integer or -1 (all cores), got 0")
    return value


# --------------------------------------------------------------------------- demo
def _add_demo(subparsers):
    p = subparsers.add_parser(
        "demo",
        help="fit a tree on the breast-cancer data and compare it with scikit-learn's CART",
        description="Fit a bivariate tree on scikit-learn's breast-cancer data (569 samples, "
                    "30 features), print its rules, then compare it with scikit-learn's "
                    "DecisionTreeClassifier of the same depth by stratified cross-validation.")
    p.add_argument("--splitter", choices=sorted(SPLITTERS), default="auto",
                   help="split search (default: %(default)s)")
    p.add_argument("--max-depth", type=_int_at_least(1), default=3,
                   help="maximum depth of both trees (default: %(default)s)")
    p.add_argument("--cv", type=_int_at_least(2), default=5,
                   help="number of cross-validation folds (default: %(default)s)")
    p.add_argument("--n-jobs", type=_n_jobs, default=1,
                   help="threads for the split search, -1 for all cores (default: %(default)s)")
    p.add_argument("--decimals", type=_int_at_least(1), default=DEFAULT_DECIMALS,
                   help="significant digits of the printed rules (default: %(default)s)")
    p.set_defaults(run=_run_demo)


def _bivariate_share(estimator):
    """Fraction of decision nodes testing two features (0 for scikit-learn's trees)."""
    tree = estimator.tree_
    if not hasattr(tree, "n_node_features"):
        return 0.0
    n_used = tree.n_node_features[~tree.is_leaf]
    return float(np.mean(n_used == 2)) if n_used.size else 0.0


def _run_demo(args):
    data = load_breast_cancer()
    X, y, names = data.data, data.target, list(data.feature_names)
    bivariate = BivariateTreeClassifier(splitter=args.splitter, max_depth=args.max_depth,
                                        n_jobs=args.n_jobs)
    univariate = DecisionTreeClassifier(max_depth=args.max_depth,
                                        random_state=DEMO_RANDOM_STATE)

    bivariate.fit(X, y)
    print(f"BivariateTreeClassifier(splitter={args.splitter!r}, max_depth={args.max_depth}) "
          f"on breast cancer ({X.shape[0]} samples, {X.shape[1]} features; "
          f"classes {', '.join(f'{i} = {c}' for i, c in enumerate(data.target_names))}):")
    print()
    print(export_text(bivariate, feature_names=names, decimals=args.decimals))

    folds = StratifiedKFold(n_splits=args.cv, shuffle=True, random_state=DEMO_RANDOM_STATE)
    rows = []
    for model in (bivariate, univariate):
        result = cross_validate(model, X, y, cv=folds, scoring="accuracy",
                                return_estimator=True)
        fitted = result["estimator"]
        scores = result["test_score"]
        rows.append((type(model).__name__,
                     f"{scores.mean():.3f} ± {scores.std():.3f}",
                     f"{np.mean([m.get_n_leaves() for m in fitted]):.1f}",
                     f"{100 * np.mean([_bivariate_share(m) for m in fitted]):.0f}%"))

    print(f"{args.cv}-fold stratified cross-validation (shuffled, random_state="
          f"{DEMO_RANDOM_STATE}), max_depth={args.max_depth}:")
    print()
    header = ("model", "accuracy", "leaves", "bivariate nodes")
    widths = [max(len(r[c]) for r in rows + [header]) for c in range(len(header))]
    for row in [header] + rows:
        print("  ".join(cell.ljust(w) if c == 0 else cell.rjust(w)
                        for c, (cell, w) in enumerate(zip(row, widths))).rstrip())
    return 0


# --------------------------------------------------------------------------- fit / predict / show
#: file suffixes the data commands read and write.
_TABLE_SUFFIXES = (".csv", ".tsv", ".txt", ".parquet", ".pq")


def _pandas():
    try:
        import pandas as pd
    except ImportError:
        raise ImportError("reading data files needs pandas: pip install \"bivtree[pandas]\"") \
            from None
    return pd


def _encoding(text):
    """argparse type: the name of a text encoding Python knows (``latin-1``, ``cp1252``...)."""
    try:
        return codecs.lookup(text).name
    except LookupError:
        raise argparse.ArgumentTypeError(f"unknown encoding {text!r}") from None


def _add_encoding_option(parser):
    parser.add_argument("--encoding", type=_encoding, default="utf-8",
                        help="text encoding of CSV/TSV input, e.g. latin-1 or cp1252 "
                             "(default: %(default)s)")


def _add_max_model_bytes_option(parser):
    from .persistence import MAX_MODEL_BYTES

    parser.add_argument("--max-model-bytes", type=_int_at_least(1), default=MAX_MODEL_BYTES,
                        metavar="N",
                        help="refuse a model file longer than N bytes, before reading more "
                             "of it (default: %(default)s, 1 GiB, some 6 million nodes)")


def _load_model(args, **kwargs):
    """``load_model(args.model)`` under ``--max-model-bytes``, its refusal in its words."""
    from .persistence import ModelTooLongError, load_model

    try:
        return load_model(args.model, max_bytes=args.max_model_bytes, **kwargs)
    except ModelTooLongError as exc:
        raise ValueError(f"{args.model}: the model is {exc.size} bytes long, more than "
                         f"--max-model-bytes {exc.max_bytes}; pass a larger limit to read "
                         "it") from None


def _add_force_option(parser, output):
    parser.add_argument("--force", action="store_true",
                        help=f"replace {output} if it exists (default: refuse)")


def _read_table(path, encoding="utf-8"):
    """A CSV (``,``), TSV (``\\t``) or Parquet file as a DataFrame with at least one row.

    Raises
    ------
    ValueError
        Naming ``path``: an unknown suffix, a missing, empty, binary or undecodable file,
        one that does not parse as a table, or one with a header and no rows.
    """
    suffix = os.path.splitext(str(path))[1].lower()
    if suffix not in _TABLE_SUFFIXES:
        raise ValueError(f"{path}: unknown data format {suffix!r}; use one of "
                         f"{', '.join(_TABLE_SUFFIXES)}")
    if not os.path.isfile(path):
        raise ValueError(f"{path}: no such file")
    if os.path.getsize(path) == 0:
        raise ValueError(f"{path}: the file is empty")
    if suffix in (".parquet", ".pq"):
        frame = _read_parquet(path)
    else:
        frame = _read_text_table(path, "\t" if suffix == ".tsv" else ",", encoding)
    if len(frame) == 0:
        raise ValueError(f"{path}: no data rows, only the column names "
                         f"{[str(c) for c in frame.columns]}")
    return frame


def _read_parquet(path):
    pd = _pandas()
    try:
        return pd.read_parquet(path)
    except ImportError:
        raise ImportError("reading Parquet files needs pyarrow: pip install pyarrow") from None
    except (ValueError, OSError) as exc:  # pyarrow's ArrowInvalid is a ValueError
        raise ValueError(f"{path}: not a readable Parquet file ({exc})") from None


def _read_text_table(path, sep, encoding):
    pd = _pandas()
    with open(path, "rb") as fh:
        head = fh.read(8192)
    # a NUL byte never occurs in 8-bit or UTF-8 text: a picture, a zip, a pickle...
    if b"\0" in head and not encoding.startswith(("utf-16", "utf-32")):
        raise ValueError(f"{path}: a binary file, not a text table (for UTF-16 text, "
                         "add --encoding utf-16)")
    try:
        return pd.read_csv(path, sep=sep, encoding=encoding)
    except UnicodeDecodeError:
        raise ValueError(_decode_error_message(path, encoding)) from None
    except pd.errors.EmptyDataError:
        raise ValueError(f"{path}: the file holds no table (no column names, no rows)") \
            from None
    except pd.errors.ParserError as exc:
        kind = "tab" if sep == "\t" else "comma"
        raise ValueError(f"{path}: not a {kind}-separated table: {exc}".rstrip()) from None


def _decode_error_message(path, encoding):
    """Where ``path`` stops being ``encoding`` text, and what to try instead."""
    with open(path, "rb") as fh:
        data = fh.read()
    try:
        data.decode(encoding)
    except UnicodeDecodeError as exc:
        line = data.count(b"\n", 0, exc.start) + 1
        where = f" (byte 0x{data[exc.start]:02x} on line {line})"
    else:  # the file decodes as a whole: pandas gave no usable position
        where = ""
    return (f"{path}: not {encoding} text{where}; name the file's encoding, e.g. "
            "--encoding latin-1 or --encoding cp1252")


def _check_output(path, force):
    """Refuse an output ``path`` that would replace a file or cannot be written.

    Called before any fitting or reading, so a long run never ends in a file it cannot
    write, and an existing file is replaced only when ``force`` says so.

    Raises
    ------
    ValueError
        Naming ``path``: a folder, a missing or read-only folder, or an existing file
        without ``force``.
    """
    if os.path.isdir(path):
        raise ValueError(f"{path}: is a folder; give a file name")
    folder = os.path.dirname(str(path)) or os.curdir
    if not os.path.isdir(folder):
        raise ValueError(f"{path}: the folder {folder!r} does not exist")
    if not os.access(folder, os.W_OK | os.X_OK):
        raise ValueError(f"{path}: cannot write in the folder {folder!r} (permission denied)")
    if os.path.lexists(path):
        if not force:
            raise ValueError(f"{path} already exists; add --force to replace it")
        if not os.access(path, os.W_OK):
            raise ValueError(f"{path}: the file is read-only")


@contextlib.contextmanager
def _replacing(path, force):
    """Yield a temporary path beside ``path``; once written, it becomes ``path``.

    A write that fails or is interrupted removes the temporary file and leaves ``path``
    as it was. The temporary name keeps the suffix, which writers such as matplotlib's
    ``savefig`` read the format from.
    """
    folder, name = os.path.split(os.path.abspath(path))
    handle, partial = tempfile.mkstemp(prefix=f".{name}.", suffix=os.path.splitext(name)[1],
                                       dir=folder)
    os.close(handle)
    try:
        yield partial
        # the existence check ran before the work; a file made since then is not ours
        if not force and os.path.lexists(path):
            raise ValueError(f"{path} appeared while bivtree ran; add --force to replace it")
        _give_mode(partial, path)
        os.replace(partial, path)
    except BaseException:
        with contextlib.suppress(OSError):
            os.unlink(partial)
        raise


def _give_mode(partial, path):
    """Permissions of ``path`` if it exists, else those a new file gets (mkstemp's are 0600)."""
    if os.path.exists(path):
        os.chmod(partial, os.stat(path).st_mode & 0o7777)
    else:
        umask = os.umask(0)
        os.umask(umask)
        os.chmod(partial, 0o666 & ~umask)


def _write_table(frame, path, force, escape_formulas=True):
    """Write ``frame`` to ``path`` as Parquet, TSV or CSV (by suffix), replacing atomically.

    Parameters
    ----------
    frame : pandas.DataFrame
        The table to write, without its index.
    path : str
        The output file; ``.parquet`` / ``.pq`` write Parquet, ``.tsv`` tab-separated
        text, any other suffix comma-separated text.
    force : bool
        Whether an existing ``path`` may be replaced (see :func:`_replacing`).
    escape_formulas : bool, default=True
        Quote the text cells of a text output that a spreadsheet would run as formulas
        (:func:`_escape_formulas`). Parquet keeps types and is not opened by
        spreadsheets: it is written as it is.
    """
    suffix = os.path.splitext(str(path))[1].lower()
    with _replacing(path, force) as partial:
        if suffix in (".parquet", ".pq"):
            try:
                frame.to_parquet(partial, index=False)
            except ImportError:
                raise ImportError("writing Parquet files needs pyarrow: pip install pyarrow") \
                    from None
        else:
            if escape_formulas:
                frame = _escape_formulas(frame)
            frame.to_csv(partial, index=False, sep="\t" if suffix == ".tsv" else ",")


#: first characters that make a spreadsheet read a cell as a formula (OWASP, "CSV
#: injection"): ``=cmd|' /C calc'!A0`` in a cell of a CSV file runs a program in some
#: spreadsheets when the file is opened.
_FORMULA_STARTS = ("=", "+", "-", "@", "\t", "\r")


def _is_formula(value):
    """Whether ``value`` is text that a spreadsheet would take for a formula."""
    return isinstance(value, str) and value.startswith(_FORMULA_STARTS)


def _escape_formulas(frame):
    """``frame`` with a ``'`` before every text cell or column name read as a formula.

    OWASP's advice against CSV injection: a spreadsheet shows a cell starting with ``'``
    as the text after it, instead of evaluating it. Only cells that are strings in the
    frame are changed; numbers (``-1.5``), booleans, dates and missing values are
    written as they are, so a numeric column stays numeric.

    Parameters
    ----------
    frame : pandas.DataFrame
        The table about to be written as text.

    Returns
    -------
    pandas.DataFrame
        ``frame`` itself when nothing needs a quote, else a copy with the quotes added.
    """
    from pandas.api.types import is_bool_dtype, is_numeric_dtype

    escaped = frame
    for j in range(frame.shape[1]):
        column = frame.iloc[:, j]
        if is_numeric_dtype(column.dtype) or is_bool_dtype(column.dtype):
            continue  # numbers only: nothing a spreadsheet reads as a formula
        values = column.to_numpy(dtype=object)
        risky = [i for i, v in enumerate(values) if _is_formula(v)]
        if not risky:
            continue
        values = values.copy()
        for i in risky:
            values[i] = "'" + values[i]
        if escaped is frame:
            escaped = frame.copy()
        escaped.isetitem(j, values)
    names = [f"'{c}" if _is_formula(c) else c for c in frame.columns]
    if names != list(frame.columns):
        if escaped is frame:
            escaped = frame.copy()
        escaped.columns = names
    return escaped


def _add_escape_option(parser, output):
    parser.add_argument(
        "--no-escape-formulas", dest="escape_formulas", action="store_false",
        help=f"write the text cells of {output} as they are. By default a text cell "
             "starting with =, +, -, @, a tab or a carriage return gets a leading ' so that "
             "a spreadsheet opening the file shows it as text instead of running it as a "
             "formula (CSV injection: the cells may come from untrusted data); give this "
             "flag when a program, not a spreadsheet, reads the output. Numbers are never "
             "changed")


def _allows_missing(model):
    """Whether ``model`` routes missing values (NaN) itself."""
    return bool(model.__sklearn_tags__().input_tags.allow_nan)


def _check_features(X, source, model, categorical=()):
    """Reject non-numeric, missing or infinite values of the feature table ``X``.

    Text is fine in the ``categorical`` columns (the model encodes them), and
    missing values are fine anywhere when ``model`` routes them itself; infinite
    values never are. The estimators would reject the rest too, but without
    the file, the rows or the columns.
    """
    from pandas.api.types import is_numeric_dtype

    categorical = set(categorical)
    text = [c for c in X.columns if not is_numeric_dtype(X[c].dtype) and c not in categorical]
    if text:
        column = X[text[0]]
        numbers = _pandas().to_numeric(column, errors="coerce")
        rows = np.flatnonzero((numbers.isna() & column.notna()).to_numpy())
        example = (f" (e.g. {column.iloc[rows[0]]!r} in row {rows[0] + 1} of {text[0]!r})"
                   if rows.size else "")
        raise ValueError(f"{source}: non-numeric column(s) {[str(c) for c in text]}{example}; "
                         "bivariate splits need numbers: empty the cells that are not "
                         "numbers (empty cells are missing values), or fit with "
                         "--categorical COL to split on the column as categories")
    numeric = X[[c for c in X.columns if c not in categorical]]
    checks = [("infinite", numeric.isin([np.inf, -np.inf]))]
    if not _allows_missing(model):
        checks.insert(0, ("missing", X.isna()))
    for what, mask in checks:
        rows = np.flatnonzero(mask.any(axis=1).to_numpy())
        if rows.size:
            counts = mask.sum()
            columns = ", ".join(f"{str(c)!r} ({n})" for c, n in counts[counts > 0].items())
            shown = ", ".join(str(r + 1) for r in rows[:10]) + (", ..." if rows.size > 10 else "")
            raise ValueError(f"{source}: {rows.size} of {len(X)} rows have {what} values "
                             f"(rows {shown}, counting data rows from 1) in column(s) "
                             f"{columns}; this model does not handle {what} values: drop or "
                             "impute those rows first" + (
                                 " (or fit with a splitter that accepts missing values, "
                                 "e.g. the default)" if what == "missing" else ""))


def _reports_errors(run):
    """Turn a bad-input exception into ``error: ...`` on stderr and exit status 1, and
    Ctrl-C into ``interrupted`` and status 130."""

    @functools.wraps(run)
    def wrapper(args):
        try:
            return run(args)
        except BrokenPipeError:
            # the reader of our output went away (e.g. "| head"): not an error to report
            try:
                os.dup2(os.open(os.devnull, os.O_WRONLY), sys.stdout.fileno())
            except (OSError, ValueError):
                pass
            return 1
        except (ValueError, OSError, ImportError, TypeError) as exc:
            # an exception without a message still says what went wrong
            print(f"bivtree {args.command}: error: {str(exc) or type(exc).__name__}",
                  file=sys.stderr)
            return 1
        except KeyboardInterrupt:
            # Ctrl-C: a line, not a traceback; no output file was written (_replacing)
            print(f"bivtree {args.command}: interrupted", file=sys.stderr)
            return 130  # the shells' status for a command stopped by SIGINT

    return wrapper


def _int_or_fraction(text):
    """argparse type: an integer count or a float fraction (``5`` or ``0.01``)."""
    try:
        return int(text)
    except ValueError:
        pass
    try:
        return float(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"expected a number, got {text!r}") from None


def _max_features(text):
    if text in ("sqrt", "log2"):
        return text
    return _int_or_fraction(text)


def _key_value(text):
    """argparse type: ``KEY=VALUE`` with VALUE read as JSON when it parses (else a string)."""
    key, sep, value = text.partition("=")
    if not sep or not key:
        raise argparse.ArgumentTypeError(f"expected KEY=VALUE, got {text!r}")
    try:
        return key, json.loads(value)
    except json.JSONDecodeError:
        return key, value


#: what ``fit --monotonic COL=SIGN`` reads as each constraint.
_MONOTONIC_SIGNS = {"+1": 1, "1": 1, "+": 1, "-1": -1, "-": -1, "0": 0}


def _monotonic_entry(text):
    """argparse type: ``COL=SIGN`` (``+1``, ``-1`` or ``0``) as ``(column, sign)``."""
    column, sep, sign = text.rpartition("=")
    if not sep or not column or sign.strip() not in _MONOTONIC_SIGNS:
        raise argparse.ArgumentTypeError(
            f"expected COLUMN=+1 (increasing), COLUMN=-1 (decreasing) or COLUMN=0, got {text!r}")
    return column, _MONOTONIC_SIGNS[sign.strip()]


def _pair_group(text):
    """argparse type: a comma-separated group of columns, ``"waist,height"``."""
    columns = [c.strip() for c in text.split(",")]
    if not all(columns):
        raise argparse.ArgumentTypeError(f"expected columns separated by commas (e.g. "
                                         f"'waist,height'), got {text!r}")
    return columns


def _constraint_params(X, args, source):
    """``monotonic_cst`` and ``interaction_cst`` of ``fit --monotonic`` / ``--pairs`` (by
    column name), or ``{}``; a column that is not a feature is an error naming it."""
    params = {}
    features = [str(c) for c in X.columns]
    named = [("--monotonic", c) for c, _ in args.monotonic]
    named += [("--pairs", c) for group in args.pairs for c in group]
    for option, column in named:
        if column not in features:
            raise ValueError(f"{option}: {column!r} is not a feature column of {source}; the "
                             f"feature columns are {features}")
    if args.monotonic:
        twice = sorted({c for c, _ in args.monotonic
                        if sum(c == d for d, _ in args.monotonic) > 1})
        if twice:
            raise ValueError(f"--monotonic gives {twice} more than once")
        params["monotonic_cst"] = dict(args.monotonic)
    if args.pairs:
        params["interaction_cst"] = [list(group) for group in args.pairs]
    return params


def _add_fit(subparsers):
    p = subparsers.add_parser(
        "fit", help="fit a tree on a CSV or Parquet file and save it as JSON",
        description="Fit a bivariate tree on a table (CSV, TSV or Parquet) and write the "
                    "fitted model as JSON (readable by 'bivtree predict' and 'bivtree show', "
                    "or bivtree.export.load_model). Every column but the target is a feature "
                    "unless --features or --drop say otherwise. Text columns are categorical "
                    "features (split by category subsets); --categorical and --numeric "
                    "override that per column. Empty cells are missing values.")
    p.add_argument("data", metavar="DATA", help="training data (.csv, .tsv or .parquet)")
    p.add_argument("--target", required=True, metavar="COL", help="column to predict")
    p.add_argument("--features", nargs="+", metavar="COL",
                   help="feature columns (default: every other column)")
    p.add_argument("--drop", nargs="+", metavar="COL", default=[],
                   help="columns that are not features (e.g. an id)")
    p.add_argument("--categorical", nargs="+", metavar="COL", default=[], action="extend",
                   help="split on these columns as categories (subset tests, 'COL in {a, b}'); "
                        "text columns are categorical without it")
    p.add_argument("--numeric", nargs="+", metavar="COL", default=[], action="extend",
                   help="read these columns as numbers even if some cells are not (those "
                        "cells are an error)")
    p.add_argument("--max-categories", type=_int_at_least(2),
                   help="categories kept per categorical column (at most 64); the rarest "
                        "share one 'infrequent' category (default: a column with more than "
                        "64 is an error)")
    p.add_argument("--model", choices=("auto", "classifier", "regressor", *TAO_MODELS),
                   default="auto",
                   help="classifier or regressor (greedy growth); auto picks a regressor for "
                        "a float target with non-integer values, else a classifier. tao: a "
                        "TAO tree (alpha by --set alpha=...), tao-cv: TAO with C, initial "
                        "tree and alpha chosen by cross-validation (the saved model is the "
                        "selected TAO tree); both pick the task as auto does "
                        "(default: %(default)s)")
    p.add_argument("--splitter", choices=sorted(SPLITTERS), default="auto",
                   help="split search (default: %(default)s)")
    p.add_argument("--criterion", help="impurity (default: gini / squared_error)")
    p.add_argument("--max-depth", type=_int_at_least(1), help="maximum depth (default: none)")
    p.add_argument("--min-samples-leaf", type=_int_or_fraction, default=1,
                   help="minimum samples per leaf, a count or a fraction (default: 1)")
    p.add_argument("--min-samples-split", type=_int_or_fraction, default=2,
                   help="minimum samples to split a node (default: 2)")
    p.add_argument("--max-leaf-nodes", type=_int_at_least(2),
                   help="grow best first up to this many leaves")
    p.add_argument("--max-features", type=_max_features,
                   help="features drawn per node: a count, a fraction, sqrt or log2")
    p.add_argument("--n-orientations", type=_int_at_least(1), default=30,
                   help="directions per feature pair (orientations splitter, auto on small "
                        "nodes; default: 30)")
    p.add_argument("--ccp-alpha", type=float, default=0.0,
                   help="cost-complexity pruning strength (default: 0)")
    p.add_argument("--class-weight", choices=("balanced",),
                   help="weigh classes inversely to their frequency")
    p.add_argument("--random-state", type=int, help="seed of the max-features draws")
    p.add_argument("--monotonic", type=_monotonic_entry, action="append", default=[],
                   metavar="COL=SIGN",
                   help="the prediction may only increase (+1) or decrease (-1) with column "
                        "COL, the others fixed (repeatable, e.g. --monotonic debt_ratio=+1 "
                        "--monotonic age=-1); the probability of the second class for a "
                        "classifier of two classes")
    p.add_argument("--pairs", type=_pair_group, nargs="+", action="extend", default=[],
                   metavar="COLS",
                   help="groups of columns that may be tested together, each as "
                        "comma-separated names (e.g. --pairs waist,height income,debt): a "
                        "node tests two features only if a group holds both; the columns no "
                        "group lists form one more group")
    p.add_argument("--set", type=_key_value, action="append", default=[], metavar="KEY=VALUE",
                   help="any other estimator parameter, VALUE as JSON (repeatable), e.g. "
                        "--set 'splitter_options={\"n_orientations\": 60}'")
    p.add_argument("--n-jobs", type=_n_jobs, default=1,
                   help="threads for the split search, -1 for all cores (default: %(default)s)")
    p.add_argument("-o", "--output", metavar="MODEL.json",
                   help="where to write the model (default: DATA with suffix .model.json); "
                        "its folder must exist")
    _add_force_option(p, "MODEL.json")
    _add_encoding_option(p)
    p.add_argument("-q", "--quiet", action="store_true", help="print nothing but errors")
    p.set_defaults(run=_run_fit)


#: ``fit --model`` values that fit a TAO tree, and the greedy-growth options they refuse
#: (option name, attribute, default).
TAO_MODELS = ("tao", "tao-cv")
_GREEDY_ONLY = (("--splitter", "splitter", "auto"), ("--criterion", "criterion", None),
                ("--min-samples-split", "min_samples_split", 2),
                ("--max-leaf-nodes", "max_leaf_nodes", None),
                ("--max-features", "max_features", None), ("--ccp-alpha", "ccp_alpha", 0.0))
#: the parameters ``fit`` sets from the data's columns, which the TAO models take too
_TAO_DATA_PARAMS = ("categorical_features", "max_categories", "monotonic_cst",
                    "interaction_cst")


def _tao_model(args, kind, verbose):
    """The TAO estimator of ``fit --model tao`` / ``tao-cv`` for a ``kind`` target."""
    from .tao.estimators import TAOTreeClassifier, TAOTreeRegressor
    from .tao.selection import TAOTreeClassifierCV, TAOTreeRegressorCV

    for option, attr, default in _GREEDY_ONLY:
        if getattr(args, attr) != default:
            raise ValueError(f"{option} applies to greedy trees, not to --model {args.model}")
    params = {"max_depth": args.max_depth, "min_samples_leaf": args.min_samples_leaf,
              "n_orientations": args.n_orientations, "random_state": args.random_state,
              "n_jobs": args.n_jobs, "verbose": verbose}
    classes = {"tao": (TAOTreeClassifier, TAOTreeRegressor),
               "tao-cv": (TAOTreeClassifierCV, TAOTreeRegressorCV)}[args.model]
    if kind == "classifier":
        return classes[0](class_weight=args.class_weight, **params)
    if args.class_weight is not None:
        raise ValueError("--class-weight applies to classifiers only")
    return classes[1](**params)


def _feature_kinds(X, args, source):
    """``(X, categorical)``: the feature table with --numeric columns as numbers, and the
    categorical columns (text columns and --categorical, less --numeric), in table order."""
    from pandas.api.types import is_bool_dtype, is_numeric_dtype

    for option in ("categorical", "numeric"):
        unknown = [c for c in getattr(args, option) if c not in X.columns]
        if unknown:
            raise ValueError(f"--{option}: {unknown} are not feature columns of {source}")
    both = sorted(set(args.categorical) & set(args.numeric))
    if both:
        raise ValueError(f"columns {both} are given to both --categorical and --numeric")
    X = X.copy()
    for c in args.numeric:
        raw = X[c]
        X[c] = _pandas().to_numeric(raw, errors="coerce")
        bad = np.flatnonzero((X[c].isna() & raw.notna()).to_numpy())
        if bad.size:
            raise ValueError(f"{source}: --numeric column {c!r} holds {raw.iloc[bad[0]]!r} "
                             f"in row {bad[0] + 1}, not a number")
    categorical = [c for c in X.columns
                   if c in args.categorical or (c not in args.numeric and not (
                       is_numeric_dtype(X[c].dtype) or is_bool_dtype(X[c].dtype))
                       and not _looks_numeric(X[c]))]
    return X, categorical


def _looks_numeric(column):
    """Whether most filled cells of a text column are numbers (``"?"`` among numbers).

    Such a column is more likely numbers with a few placeholders than categories,
    so it is not taken as categorical unless --categorical says so: the check of
    the features then names the cell that is not a number.
    """
    filled = column.dropna()
    numbers = _pandas().to_numeric(filled, errors="coerce")
    return bool(len(filled)) and numbers.notna().sum() > len(filled) / 2


def _choose_model(kind, y):
    """``"classifier"`` or ``"regressor"`` for the target column ``y``."""
    if kind not in ("auto", *TAO_MODELS):
        return kind
    from pandas.api.types import is_bool_dtype, is_float_dtype

    values = y.to_numpy()
    if is_float_dtype(y.dtype) and not is_bool_dtype(y.dtype):
        finite = values[np.isfinite(values)]
        if np.any(finite != np.round(finite)):
            return "regressor"
    return "classifier"


def _command_line_hint(exc, X, categorical, args):
    """The option that answers a fit's error about a categorical column, or None."""
    if "an identifier, not a feature" in str(exc):
        identifiers = [c for c in categorical if X[c].nunique() == X[c].count()]
        if identifiers:
            return f"--drop {identifiers[0]}"
    if "max_categories" in str(exc) and args.max_categories is None:
        return "--max-categories N"
    return None


@_reports_errors
def _run_fit(args):
    from .estimators import BivariateTreeRegressor
    from .persistence import save_model

    output = args.output or os.path.splitext(args.data)[0] + ".model.json"
    _check_output(output, args.force)
    frame = _read_table(args.data, args.encoding)
    if args.target not in frame.columns:
        raise ValueError(f"{args.data}: no column {args.target!r}; columns are "
                         f"{list(frame.columns)}")
    if args.features:
        missing = [c for c in args.features if c not in frame.columns]
        if missing:
            raise ValueError(f"{args.data}: no column(s) {missing}")
        features = list(args.features)
    else:
        features = [c for c in frame.columns if c != args.target and c not in args.drop]
    if args.target in features:
        raise ValueError(f"the target {args.target!r} cannot also be a feature")
    if not features:
        raise ValueError(f"{args.data}: no feature columns left")
    X, y = frame[features], frame[args.target]
    X, categorical = _feature_kinds(X, args, args.data)
    if y.isna().any():
        raise ValueError(f"target column {args.target!r} has {int(y.isna().sum())} missing "
                         "value(s)")
    kind = _choose_model(args.model, y)
    params = {"splitter": args.splitter, "max_depth": args.max_depth,
              "min_samples_leaf": args.min_samples_leaf,
              "min_samples_split": args.min_samples_split,
              "max_leaf_nodes": args.max_leaf_nodes, "max_features": args.max_features,
              "n_orientations": args.n_orientations, "ccp_alpha": args.ccp_alpha,
              "random_state": args.random_state, "n_jobs": args.n_jobs,
              "verbose": 0 if args.quiet else 1}
    if args.criterion is not None:
        params["criterion"] = args.criterion
    params["categorical_features"] = [str(c) for c in categorical] or None
    params["max_categories"] = args.max_categories
    params.update(_constraint_params(X, args, args.data))
    if args.model in TAO_MODELS:
        model = _tao_model(args, kind, params["verbose"])
        accepted = model.get_params()
        model.set_params(**{k: params[k] for k in _TAO_DATA_PARAMS
                            if k in params and k in accepted})
    elif kind == "classifier":
        params["class_weight"] = args.class_weight
        model = BivariateTreeClassifier(**params)
    else:
        if args.class_weight is not None:
            raise ValueError("--class-weight applies to classifiers only")
        model = BivariateTreeRegressor(**params)
    model.set_params(**dict(args.set))
    _check_features(X, args.data, model, categorical)
    say = (lambda *a, **k: None) if args.quiet else print
    how = (f"splitter {model.splitter!r}" if hasattr(model, "splitter")
           else f"model {args.model!r}")
    say(f"fitting a {type(model).__name__} ({how}) on "
        f"{X.shape[0]} samples x {X.shape[1]} features, target {args.target!r}", flush=True)
    if categorical:
        say(f"categorical features: {', '.join(map(str, categorical))}")
    t0 = time.perf_counter()
    try:
        model.fit(X, y.to_numpy())
    except ValueError as exc:
        hint = _command_line_hint(exc, X, categorical, args)
        if hint is None:
            raise
        raise ValueError(f"{exc} (on the command line: {hint})") from None
    if args.model == "tao-cv":
        chosen = model.best_params_
        say(f"selected C={chosen['feature_cost']:g}, init {chosen['init']}, alpha "
            f"{chosen['alpha']:.4g}")
        model = model.best_estimator_  # the file holds the selected TAO tree
    model.set_params(verbose=0)  # progress output is for this fit, not for later use
    score = model.score(X, y.to_numpy())
    measure = "accuracy" if kind == "classifier" else "R^2"
    say(f"done in {time.perf_counter() - t0:.1f} s: {model.get_n_leaves()} leaves, depth "
        f"{model.get_depth()}, training {measure} {score:.4f}")
    with _replacing(output, args.force) as partial:
        save_model(model, partial, metadata={"target": str(args.target),
                                             "data": os.path.basename(str(args.data))})
    say(f"model written to {output}")
    return 0


def _add_predict(subparsers):
    p = subparsers.add_parser(
        "predict", help="predict with a saved model",
        description="Predict every row of a table with a model written by 'bivtree fit' "
                    "(or bivtree.export.save_model). The model's feature columns are taken "
                    "by name; other columns are ignored unless --keep copies them. The "
                    "output has one row per input row, in order: a row that cannot be "
                    "predicted is an error naming it, never dropped. Writes CSV to "
                    "standard output unless --output is given.")
    p.add_argument("model", metavar="MODEL.json")
    p.add_argument("data", metavar="DATA", help="data to predict (.csv, .tsv or .parquet)")
    p.add_argument("--proba", action="store_true",
                   help="add one probability column per class (classifiers)")
    p.add_argument("--keep", nargs="+", metavar="COL", default=[], action="extend",
                   help="copy these columns (e.g. an id) to the output, before the "
                        "predictions; a column named like an output column (prediction, "
                        "proba_CLASS) is an error")
    p.add_argument("-o", "--output", metavar="OUT",
                   help="write .csv, .tsv or .parquet here; its folder must exist")
    _add_force_option(p, "OUT")
    _add_encoding_option(p)
    _add_escape_option(p, "the CSV or TSV output (Parquet is written as it is)")
    _add_max_model_bytes_option(p)
    p.set_defaults(run=_run_predict)


def _feature_frame(model, frame, args):
    """The model's feature columns of ``frame`` (read from ``args.data``), ready to predict.

    The columns are taken by name when the model has names, else all of ``frame`` in
    order. Categorical columns are read as the categories seen at fit
    (:func:`_read_categories`).

    Raises
    ------
    ValueError
        For a missing column and for values the model cannot take (see
        :func:`_check_features` and :func:`_read_categories`).
    """
    source = args.data
    names = getattr(model, "feature_names_in_", None)
    if names is not None:
        missing = [str(c) for c in names if c not in frame.columns]
        if missing:
            raise ValueError(f"{source}: the model needs column(s) {missing}")
        X = frame[list(names)]
    elif frame.shape[1] != model.n_features_in_:
        raise ValueError(f"{source} has {frame.shape[1]} columns; the model (fitted without "
                         f"column names) expects {model.n_features_in_}, in the order it was "
                         "fitted on")
    else:
        X = frame
    mask = getattr(model, "is_categorical_", None)
    # by position: a model fitted on an array has categorical columns too
    categorical = [] if mask is None else [c for c, is_cat in zip(X.columns, mask) if is_cat]
    _check_features(X, source, model, categorical)
    X = _read_categories(model, X, args)
    return X if names is not None else X.to_numpy()


# --------------------------------------------------------------------------- categories of new data
#: cells that are not a category seen at fit shown by the warning, and categories listed.
_SHOWN_UNKNOWN = 3
_SHOWN_CATEGORIES = 10

#: what a cell resolves to when it is no category seen at fit.
_UNKNOWN = object()


def _is_number(value):
    return isinstance(value, numbers.Real) and not isinstance(value, (bool, np.bool_))


def _as_number(cell):
    """``cell`` as a float when it is a number or text that reads as one, else None."""
    if isinstance(cell, str):
        if "_" in cell:  # float() reads "1_000"; a CSV reader does not
            return None
        try:
            return float(cell)
        except ValueError:
            return None
    return float(cell) if _is_number(cell) else None


def _text_forms(value):
    """The texts a CSV file may hold for ``value``: what pandas writes, and reads back.

    A float with an integer value is also its integer's text: ``1.0`` is a number read
    from ``1`` in a column that pandas made float by an empty cell.
    """
    if isinstance(value, str):
        return (value,)
    if isinstance(value, (bool, np.bool_)):
        text = str(bool(value))
        return (text, text.lower(), text.upper())  # pandas' default true/false values
    if isinstance(value, float) and value.is_integer():
        return (repr(value), str(int(value)))
    return (repr(value) if isinstance(value, float) else str(value),)


def _category_finder(categories):
    """A function from a cell to the category of ``categories`` it stands for.

    A cell is a category when it equals it (the types of the fit), else when both are
    numbers of the same value (``"2"`` in a column read as text is the category
    ``2``), else when its text is the category's text as a CSV file holds it (``2``
    in a column read as numbers is the category ``"2"``). Anything else gives
    ``_UNKNOWN``.
    """
    same, by_number, by_text = {}, {}, {}
    for c in map(plain_scalar, categories):
        same.setdefault(c, c)
        if _is_number(c):
            by_number.setdefault(float(c), c)
        else:
            for text in _text_forms(c):
                by_text.setdefault(text, c)

    def find(cell):
        cell = plain_scalar(cell)
        try:
            return same[cell]
        except (KeyError, TypeError):  # TypeError: unhashable, no category equals it
            pass
        number = _as_number(cell) if by_number else None
        if number is not None and number in by_number:
            return by_number[number]
        for text in _text_forms(cell) if by_text else ():
            if text in by_text:
                return by_text[text]
        return _UNKNOWN

    return find


def _exact_text(args, columns, n_rows):
    """The cells of ``columns`` of ``args.data`` as the text the file holds, or None.

    pandas reads a column of numbers as numbers, so a text category such as ``"007"``
    or ``"1"`` among text ones would be read as ``7`` or ``1.0``. Reading the
    column again as text gives the cells' own text (empty cells stay missing). None
    for Parquet, which keeps the types it was written with.
    """
    suffix = os.path.splitext(str(args.data))[1].lower()
    if not columns or suffix in (".parquet", ".pq"):
        return None
    text = _pandas().read_csv(args.data, sep="\t" if suffix == ".tsv" else ",",
                              encoding=args.encoding, usecols=list(columns), dtype=str)
    return text if len(text) == n_rows else None


def _read_categories(model, X, args):
    """``X`` with each categorical column's cells as the categories seen at fit.

    pandas gives a CSV column the type of all its cells: one text cell makes a column
    of numbers text, and a column of numbers in a new file is numbers although its
    categories were text at fit. Each cell is therefore matched to the fitted
    categories (:func:`_category_finder`), so that a row is predicted the same
    whatever else the file holds. A cell that is no category seen at fit stays as it
    is, to be predicted as a missing value; such cells are reported on stderr with
    examples, never silently, and are an error for a model that does not route
    missing values. Empty cells are missing values and are not reported.

    Parameters
    ----------
    model : fitted estimator
        Its ``categories_`` and ``infrequent_categories_`` are the categories seen.
    X : pandas.DataFrame
        The model's feature columns, in order.
    args : argparse.Namespace
        ``data`` and ``encoding`` (to read columns again as text), and ``command``.

    Returns
    -------
    pandas.DataFrame
        ``X`` itself without categorical columns, else a copy whose categorical columns
        hold the fitted category values (and, as read, the cells that are none).
    """
    from pandas.api.types import is_bool_dtype, is_numeric_dtype

    from ._tabular import fitted_categories

    per_feature = fitted_categories(model)
    if per_feature is None or X.shape[1] != len(per_feature):
        return X  # no categories, or the estimator names the shape error
    known = {j: [*kept, *(() if grouped is None else grouped)]
             for j, (kept, grouped) in enumerate(per_feature) if kept is not None}
    # columns of numbers whose categories include text: their cells' own text is needed
    as_numbers = [X.columns[j] for j, cats in known.items()
                  if (is_numeric_dtype(X.iloc[:, j].dtype) or is_bool_dtype(X.iloc[:, j].dtype))
                  and any(isinstance(plain_scalar(c), str) for c in cats)]
    text = _exact_text(args, as_numbers, len(X))
    pd = _pandas()
    X = X.copy()
    for j, cats in known.items():
        column = X.iloc[:, j]
        if text is not None and X.columns[j] in text.columns:
            column = text[X.columns[j]]
        values = column.to_numpy(dtype=object)
        missing = np.asarray(pd.isna(column), dtype=bool)
        find = _category_finder(cats)
        resolved = np.empty(len(values), dtype=object)
        unknown = []
        for i, (cell, hole) in enumerate(zip(values, missing)):
            category = _UNKNOWN if hole else find(cell)
            if category is _UNKNOWN:
                resolved[i] = cell  # a missing value, or one the estimator maps to NaN
                if not hole:
                    unknown.append(i)
            else:
                resolved[i] = category
        X.isetitem(j, resolved)
        if unknown:
            _report_unknown(model, args, X.columns[j], values, unknown, cats)
    return X


def _report_unknown(model, args, name, values, rows, categories):
    """Say on stderr that ``rows`` of column ``name`` hold no category seen at fit.

    Raises
    ------
    ValueError
        When ``model`` does not route missing values: those rows cannot be predicted.
    """
    examples = {}  # by repr: a cell need not be hashable
    for i in rows:
        examples.setdefault(repr(values[i]), i)
        if len(examples) == _SHOWN_UNKNOWN:
            break
    shown = ", ".join(f"{v} in row {i + 1}" for v, i in examples.items())
    seen = ", ".join(map(str, map(plain_scalar, categories[:_SHOWN_CATEGORIES])))
    seen += ", ..." if len(categories) > _SHOWN_CATEGORIES else ""
    what = (f"{args.data}: categorical column {str(name)!r} has {len(rows)} cell(s) that are "
            f"not a category seen at fit (e.g. {shown}, counting data rows from 1; "
            f"categories seen: {seen})")
    if not _allows_missing(model):
        raise ValueError(f"{what}; this model does not handle missing values: map those "
                         "cells to a known category first")
    print(f"bivtree {args.command}: warning: {what}; they are read as missing values",
          file=sys.stderr)


def _output_columns(model, args):
    """Names of the columns ``predict`` writes after the kept ones.

    Raises
    ------
    ValueError
        For ``--proba`` with a model that has no class probabilities.
    """
    names = ["prediction"]
    if args.proba:
        if not hasattr(model, "predict_proba"):
            raise ValueError("--proba needs a classifier; this model is a regressor")
        names += [f"proba_{c}" for c in model.classes_]
    return names


@_reports_errors
def _run_predict(args):
    if args.output:
        suffix = os.path.splitext(args.output)[1].lower()
        if suffix not in _TABLE_SUFFIXES:
            raise ValueError(f"{args.output}: unknown output format {suffix!r}; use one of "
                             f"{', '.join(_TABLE_SUFFIXES)}")
        _check_output(args.output, args.force)
    model = _load_model(args)
    frame = _read_table(args.data, args.encoding)
    keep = list(dict.fromkeys(args.keep))
    missing = [c for c in keep if c not in frame.columns]
    if missing:
        raise ValueError(f"--keep: {args.data} has no column(s) {missing}")
    written = _output_columns(model, args)
    # a kept column would be replaced by the output column of its name, its values lost
    clash = [c for c in keep if c in written]
    if clash:
        raise ValueError(f"--keep: {clash} would be overwritten by the output column(s) of "
                         f"the same name (the output adds {', '.join(written)}); rename "
                         f"the column in {args.data} or leave it out of --keep")
    X = _feature_frame(model, frame, args)
    out = frame[keep].reset_index(drop=True)
    predictions = model.predict(X)
    if len(predictions) != len(frame):  # one row per input row, or an error
        raise RuntimeError(f"{len(predictions)} predictions for {len(frame)} rows")
    out["prediction"] = predictions
    if args.proba:
        proba = model.predict_proba(X)
        for k, name in enumerate(written[1:]):
            out[name] = proba[:, k]
    if args.output:
        _write_table(out, args.output, args.force, args.escape_formulas)
        # as fit and show name their output; without --output, standard output is the
        # table itself, and a line there would corrupt it
        print(f"predictions written to {args.output}: {_table_shape(out)}")
    else:
        (_escape_formulas(out) if args.escape_formulas else out).to_csv(sys.stdout,
                                                                        index=False)
    return 0


#: column names listed in predict's closing line, the rest counted.
_SHOWN_COLUMNS = 8


def _table_shape(frame):
    """``frame``'s rows and columns as predict's closing line says them.

    Parameters
    ----------
    frame : pandas.DataFrame
        The table written.

    Returns
    -------
    str
        e.g. ``"80 rows, 3 columns (prediction, proba_sick, proba_well)"``; past
        :data:`_SHOWN_COLUMNS` names the others are counted, so a model of many
        classes still gives one short line.
    """
    names = [str(c) for c in frame.columns]
    shown = ", ".join(names[:_SHOWN_COLUMNS])
    if len(names) > _SHOWN_COLUMNS:
        shown += f", ... ({len(names) - _SHOWN_COLUMNS} more)"
    rows, columns = frame.shape
    return (f"{rows} row{'s' if rows != 1 else ''}, "
            f"{columns} column{'s' if columns != 1 else ''} ({shown})")


def _add_show(subparsers):
    p = subparsers.add_parser(
        "show", help="print a saved model's rules, or draw it",
        description="Print a saved model's rules, or write them to --out: an interactive "
                    "page (.html: one self-contained file, collapsible, with a sample "
                    "search), a picture (.png, .svg, .pdf, .jpg, .webp; with --data, a "
                    "scatter plot of the samples at every decision node), a table of rules "
                    "(.md, .csv), Graphviz source (.dot, .gv) or text rules (.txt).")
    p.add_argument("model", metavar="MODEL.json")
    p.add_argument("--data", metavar="DATA",
                   help="samples to draw (.csv, .tsv or .parquet), typically the training data")
    p.add_argument("--target", metavar="COL",
                   help="label column of --data (default: the target the model was fitted on)")
    p.add_argument("--out", metavar="PATH",
                   help="tree.html, tree.png, tree.svg, tree.pdf, tree.jpg, rules.md, "
                        "rules.csv, tree.dot, rules.txt; its folder must exist")
    p.add_argument("--decimals", type=_int_at_least(1), default=DEFAULT_DECIMALS,
                   help="significant digits of the rules (default: %(default)s)")
    p.add_argument("--max-depth", type=_int_at_least(0),
                   help="draw or print nodes down to this depth only (default: all, but a "
                        "picture stops where it would end in more than "
                        f"{MAX_DRAWN_BOXES} boxes; a .html page holds every node and shows "
                        "depth 0 to 3 at first, deeper nodes a click away)")
    p.add_argument("--dpi", type=_int_at_least(10), default=100,
                   help="resolution of .png, .jpg and .webp pictures (default: %(default)s)")
    _add_force_option(p, "the --out file")
    _add_encoding_option(p)
    _add_escape_option(p, "a .csv --out file")
    _add_max_model_bytes_option(p)
    p.set_defaults(run=_run_show)


#: matplotlib writes these (the raster ones but .png through Pillow, a matplotlib dependency)
_PICTURES = (".png", ".svg", ".pdf", ".jpg", ".jpeg", ".webp")
_PAGES = (".html", ".htm")
_SHOW_FORMATS = _PAGES + _PICTURES + (".md", ".csv", ".dot", ".gv", ".txt")


def _show_samples(args, model, metadata):
    """The features and labels of ``--data`` (labels None without a label column)."""
    if not args.data:
        return None, None
    frame = _read_table(args.data, args.encoding)
    if args.target is not None and args.target not in frame.columns:
        raise ValueError(f"{args.data}: no column {args.target!r} (--target); columns are "
                         f"{[str(c) for c in frame.columns]}")
    target = args.target or metadata.get("target")
    y = None
    if target is not None and target in frame.columns:
        y = frame[target].to_numpy()
        names = getattr(model, "feature_names_in_", None)
        # a model fitted without names takes every column in order: the label is not one
        if names is None or target not in list(names):
            frame = frame.drop(columns=[target])
    return _feature_frame(model, frame, args), y


def _write_show(model, X, y, path, suffix, args, target_name):
    """Write the rules or the picture of ``model`` to ``path`` in the format of ``suffix``."""
    from .export.text import export_graphviz, export_rules, fitted_constraints, rules_markdown

    if suffix == ".txt":
        with open(path, "w", encoding="utf-8") as fh:
            fh.write(export_text(model, decimals=args.decimals, max_depth=args.max_depth))
    elif suffix in _PAGES:
        from .export.html_page import DEFAULT_OPEN_LEVELS, export_html

        levels = DEFAULT_OPEN_LEVELS if args.max_depth is None else args.max_depth + 1
        export_html(model, X, y, path, decimals=args.decimals, open_levels=levels,
                    target_name=target_name)
    elif suffix in _PICTURES:
        import matplotlib

        matplotlib.use("Agg")  # files only: no window, works without a display
        import matplotlib.pyplot as plt

        from .export.plot import plot_tree

        ax = plot_tree(model, X, y, max_depth=_picture_depth(model, args),
                       decimals=min(args.decimals, 4), target_name=target_name)
        ax.figure.savefig(path, dpi=args.dpi)
        plt.close(ax.figure)
    elif suffix in (".md", ".csv"):
        # the model's own encoding: category columns become their codes
        X_values = None if X is None else model._validate_X_predict(X)
        rows = export_rules(model, X=X_values, decimals=args.decimals)
        if suffix == ".md":
            with open(path, "w", encoding="utf-8") as fh:
                fh.write(rules_markdown(rows, decimals=args.decimals,
                                        constraints=fitted_constraints(model)))
        else:
            for row in rows:
                del row["conditions"]
                for c, count in row.pop("class_counts", {}).items():
                    row[f"count_{c}"] = count
            table = _pandas().DataFrame(rows)
            # rules and labels hold text from the data (categories, class labels)
            if args.escape_formulas:
                table = _escape_formulas(table)
            table.to_csv(path, index=False)
    else:
        export_graphviz(model, path, decimals=args.decimals)


def _picture_depth(model, args):
    """``--max-depth``, or the depth that keeps a picture a sane size (said when it cuts)."""
    if args.max_depth is not None:
        return args.max_depth
    tree = model.tree_
    depth = drawable_depth(tree)
    if depth < tree.max_depth:
        print(f"drawing depth 0 to {depth} of {tree.max_depth} (deeper subtrees as '...' "
              f"boxes, at most {MAX_DRAWN_BOXES} boxes at the bottom); use --max-depth to "
              "choose")
    return depth


@_reports_errors
def _run_show(args):
    suffix = os.path.splitext(args.out)[1].lower() if args.out else ""
    if args.out:
        if suffix not in _SHOW_FORMATS:
            raise ValueError(f"--out {args.out}: unknown format {suffix!r}; use one of "
                             f"{', '.join(_SHOW_FORMATS)}")
        _check_output(args.out, args.force)
    model, metadata = _load_model(args, return_metadata=True)
    metadata = metadata or {}
    X, y = _show_samples(args, model, metadata)
    tree = model.tree_
    # a greedy tree names its splitter, a TAO tree its regularization
    how = (f"splitter {model.splitter!r}" if hasattr(model, "splitter")
           else f"alpha {model.alpha:.4g}, feature_cost {model.feature_cost:g}")
    print(f"{type(model).__name__} ({how}): {tree.n_leaves} leaves, "
          f"depth {tree.max_depth}, {model.n_features_in_} features"
          + (f", target {metadata['target']!r}" if "target" in metadata else ""))
    if not args.out:
        print()
        print(export_text(model, decimals=args.decimals, max_depth=args.max_depth), end="")
        return 0
    target_name = str(args.target or metadata.get("target", "target"))
    with _replacing(args.out, args.force) as partial:
        _write_show(model, X, y, partial, suffix, args, target_name)
    print(f"written to {args.out}")
    return 0


# --------------------------------------------------------------------------- compile
def _add_compile(subparsers):
    p = subparsers.add_parser(
        "compile", help="compile and cache bivtree's numba kernels ahead of the first fit",
        description="Fit tiny classifier and regressor trees with every splitter, and TAO "
                    "trees, so that numba compiles bivtree's kernels and caches them on disk "
                    "(under NUMBA_CACHE_DIR when it is set, else beside the installed "
                    "package). Later processes load them instead of compiling at their "
                    "first fit. Prints what it compiled and how long it took.")
    p.set_defaults(run=_run_compile)


def _compile_jobs():
    """``(label, estimator, task)`` of every tiny fit that ``bivtree compile`` runs."""
    from .estimators import BivariateTreeRegressor
    from .tao.estimators import TAOTreeClassifier, TAOTreeRegressor

    jobs = []
    for name in sorted(SPLITTERS):
        for task, cls in (("classification", BivariateTreeClassifier),
                          ("regression", BivariateTreeRegressor)):
            if task in SPLITTERS[name].tasks:
                jobs.append((f"{cls.__name__}(splitter={name!r})", cls(splitter=name,
                                                                        max_depth=3), task))
    # exact_max_samples=100 makes TAO's reduced problems use the exact sweep too
    for cls, task in ((TAOTreeClassifier, "classification"), (TAOTreeRegressor, "regression")):
        jobs.append((cls.__name__, cls(max_depth=3, max_iter=2, exact_max_samples=100), task))
    # a categorical column (codes in the last one): the category subset search and the
    # default search's category indicators
    for cls, task in ((BivariateTreeClassifier, "classification"),
                      (BivariateTreeRegressor, "regression")):
        jobs.append((f"{cls.__name__}(categorical_features=[2])",
                     cls(categorical_features=[2], max_depth=3), task))
    return jobs


def _run_compile(args):
    from . import _compile_notice

    _compile_notice.mark_noticed()  # this command reports on its own
    folder = _compile_notice.cache_folder()
    held = ("already holds bivtree's kernels" if _compile_notice.kernels_cached()
            else "does not hold bivtree's kernels yet")
    print(f"numba cache of the kernels: {folder or 'disabled (nothing will be kept)'}"
          + (f" ({held})" if folder else ""), flush=True)
    rng = np.random.default_rng(DEMO_RANDOM_STATE)
    X = rng.uniform(-1.0, 1.0, size=(120, 3))
    targets = {"classification": (X[:, 0] + 0.5 * X[:, 1] > 0).astype(int) + (X[:, 2] > 0.4),
               "regression": X[:, 0] - 0.5 * X[:, 1] + 0.1 * X[:, 2]}
    coded = X.copy()
    coded[:, 2] = np.floor((X[:, 2] + 1.0) * 2.5)  # codes 0 to 4
    start = time.perf_counter()
    for label, model, task in _compile_jobs():
        t0 = time.perf_counter()
        data = coded if getattr(model, "categorical_features", None) == [2] else X
        model.fit(data, targets[task])
        model.predict(data)
        model.decision_path(data)
        print(f"  {label:<52} {time.perf_counter() - t0:6.1f} s", flush=True)
    print(f"compiled and cached in {time.perf_counter() - start:.1f} s; later fits load the "
          "kernels from the cache")
    return 0


# --------------------------------------------------------------------------- entry point
def build_parser():
    """The ``bivtree`` argument parser with all its subcommands."""
    parser = argparse.ArgumentParser(
        prog="bivtree",
        description="Bivariate decision trees: every split tests at most two features.")
    parser.add_argument("--version", action="version", version=f"bivtree {__version__}")
    subparsers = parser.add_subparsers(title="commands", dest="command", metavar="COMMAND")
    _add_demo(subparsers)
    _add_fit(subparsers)
    _add_predict(subparsers)
    _add_show(subparsers)
    _add_compile(subparsers)
    register_bench_command(subparsers)
    return parser


def main(argv=None):
    """Run the ``bivtree`` command with ``argv`` (default: ``sys.argv[1:]``); return its status."""
    parser = build_parser()
    args = parser.parse_args(argv)
    if args.command is None:
        parser.print_help()
        return 0
    return args.run(args)


if __name__ == "__main__":
    sys.exit(main())
