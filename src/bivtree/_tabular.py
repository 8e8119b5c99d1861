"""Tables as the estimators take them: category columns, text columns, sparse matrices.

The kernels see one float64 matrix. This module turns what users have into it,
before the estimators' usual checks (``validate_data``):

- a **sparse** matrix is densified, with a clear MemoryError when its dense
  copy cannot fit (:func:`densify`);
- **categorical columns** (``categorical_features``: indices, names, a boolean
  mask, or ``"from_dtype"``) are encoded to integer codes ``0, 1, ...`` at fit
  (:func:`encode_fit`), the category *values* kept per column on the estimator
  (``categories_``), so that exports print ``color in {red, blue}`` and
  prediction maps values to the same codes (:func:`encode_predict`). A value
  unseen at fit, and a missing one (None, NaN, and the empty text ``""``, which
  is never a category), becomes NaN: the missing value of the numeric matrix;
- a DataFrame keeps its column names (``feature_names_in_``) whatever the mix of
  dtypes: the encoded columns replace the originals in a copy of the frame.

``"from_dtype"`` (the default) takes a DataFrame's ``category`` columns and its
text columns (object or string dtype) as categorical; numeric and boolean
columns stay numeric; arrays have no column dtypes and stay numeric.
scikit-learn's HistGradientBoostingClassifier takes only ``category`` (and
``Enum``) columns and refuses text; bivtree takes text as categories because a
text column has no order a threshold could use.

A categorical node holds at most 64 codes (one bit each of a 64-bit mask). A
column with more categories is refused with a message, unless
``max_categories`` is set: the most frequent ``max_categories - 1`` categories
then keep a code each and the rest share one *infrequent* code, as
scikit-learn's OneHotEncoder does with the same parameter.
"""

import math
import numbers

import numpy as np
import scipy.sparse as sp

from . import _memory
from ._kernels.traversal import MAX_CATEGORY
from .splitters._categorical import resolve_categorical

#: most codes a categorical column may have: one bit each of a node's 64-bit mask.
MAX_CODES = MAX_CATEGORY + 1

#: how the shared code of grouped categories reads in rules and pictures.
INFREQUENT_LABEL = "infrequent"

__all__ = [
    "INFREQUENT_LABEL",
    "MAX_CODES",
    "category_labels",
    "check_column_names",
    "code_values",
    "densify",
    "encode_fit",
    "encode_predict",
    "fitted_categories",
    "plain_scalar",
    "reads_as_number",
]


# ------------------------------------------------------------------ sparse
def densify(X):
    """A sparse matrix as a dense float64 array; anything else unchanged.

    Raises
    ------
    MemoryError
        When the dense copy needs more memory than is available, with the
        size it needs.
    """
    if not sp.issparse(X):
        return X
    n, m = X.shape
    need = float(n) * float(m) * 8.0
    available = _memory.available_memory()
    message = (f"X is a sparse matrix of shape ({n}, {m}); bivtree's searches read dense "
               f"columns, and its dense float64 copy needs {need / 2**30:.3g} GiB")
    if available is not None and need > available:
        raise MemoryError(f"{message}, more than the {available / 2**30:.3g} GiB available: "
                          "select fewer features (e.g. sklearn.feature_selection) or fit "
                          "on fewer rows")
    try:
        return np.asarray(X.astype(np.float64).toarray())
    except MemoryError:
        raise MemoryError(f"{message}, which could not be allocated: select fewer features "
                          "or fit on fewer rows") from None


# --------------------------------------------------------------- the columns
def _is_frame(X):
    return hasattr(X, "iloc") and hasattr(X, "dtypes") and hasattr(X.dtypes, "items")


def _is_text_or_category(dtype):
    from pandas.api.types import CategoricalDtype, is_object_dtype, is_string_dtype

    return (isinstance(dtype, CategoricalDtype) or is_object_dtype(dtype)
            or is_string_dtype(dtype))


def check_column_names(X):
    """Refuse a DataFrame whose column names mix strings with other types.

    scikit-learn keeps the names of a frame whose names are all strings and
    ignores names that are all non-strings; a mix is ambiguous (is ``0`` the
    first column or the one named ``0``?) and scikit-learn raises a TypeError
    for it. This says so as a ValueError, before that check runs.
    """
    if not _is_frame(X):
        return
    kinds = {type(c).__name__ for c in X.columns}
    if len(kinds) > 1 and any(isinstance(c, str) for c in X.columns):
        raise ValueError(
            f"X has column names of mixed types ({', '.join(sorted(kinds))}); name every "
            "column with a string, e.g. X.columns = X.columns.astype(str)")


def _column_names(X):
    if _is_frame(X):
        return [str(c) for c in X.columns]
    return None


def _resolve(estimator, X):
    """Indices of the categorical columns of ``X`` under ``categorical_features``."""
    spec = getattr(estimator, "categorical_features", None)
    n_features = X.shape[1] if getattr(X, "ndim", 2) == 2 else 0
    if isinstance(spec, str):
        if spec != "from_dtype":
            raise ValueError(f"categorical_features must be None, 'from_dtype', or indices, "
                             f"names or a boolean mask, got {spec!r}")
        if not _is_frame(X):
            return np.zeros(0, dtype=np.int64)
        return np.asarray([j for j, (_, dt) in enumerate(X.dtypes.items())
                           if _is_text_or_category(dt)], dtype=np.int64)
    return resolve_categorical(spec, n_features, _column_names(X))


def _column(X, j):
    """Column ``j`` of ``X`` as Python objects, with a missing mask."""
    if _is_frame(X):
        col = X.iloc[:, j]
        import pandas as pd

        missing = np.asarray(pd.isna(col), dtype=bool)
        return col.astype(object).to_numpy(), missing, col.dtype
    col = np.asarray(X)[:, j]
    values = col.astype(object)
    missing = np.array([_is_missing(v) for v in values], dtype=bool)
    return values, missing, col.dtype


def _is_missing(value):
    if value is None:
        return True
    if isinstance(value, numbers.Real) and not isinstance(value, bool):
        return bool(np.isnan(value))
    try:
        import pandas as pd

        return bool(pd.isna(value)) if np.ndim(value) == 0 else False
    except ImportError:
        return False


def plain_scalar(value):
    """A numpy scalar as the Python scalar it holds (other values as they are)."""
    return value.item() if isinstance(value, np.generic) else value


def _check_category_value(value, name):
    """Refuse a category value that is not one hashable scalar (a tuple, a list, an array).

    A category is compared by equality and looked up by hash, and ``categories_``
    is a 1-D object array: a tuple would make it 2-D (numpy reads it as a row),
    and a list or a dict cannot be hashed.
    """
    if isinstance(value, (tuple, list, dict, set, frozenset, np.ndarray)) or np.ndim(value):
        raise ValueError(f"categorical {name} holds the value {value!r} of type "
                         f"{type(value).__name__}; a category must be one scalar value (a "
                         "string, number, boolean, date...): convert the column, e.g. "
                         "df[col].astype(str)")
    try:
        hash(value)
    except TypeError:
        raise ValueError(f"categorical {name} holds the unhashable value {value!r} of type "
                         f"{type(value).__name__}; a category must be one scalar value: "
                         "convert the column, e.g. df[col].astype(str)") from None


def _sorted_categories(values, dtype, name):
    """Distinct non-missing values: in the order of a ``category`` dtype, else sorted."""
    for v in values:
        _check_category_value(plain_scalar(v), name)
    present = {plain_scalar(v) for v in values}
    order = getattr(dtype, "categories", None)
    if order is not None:
        return [plain_scalar(c) for c in order if plain_scalar(c) in present]
    try:
        return sorted(present)
    except TypeError:
        kinds = sorted({type(v).__name__ for v in present})
        raise ValueError(f"categorical column {name} mixes values of types {kinds}, which "
                         "have no common order; convert the column to one type (e.g. "
                         "df[col].astype(str))") from None


def _display_name(X, j):
    names = _column_names(X)
    return f"column {j}" if names is None else f"column {j} ({names[j]!r})"


def reads_as_number(value):
    """Whether ``value`` is a number, or text that reads as one (``"3.5"``, ``"1e3"``)."""
    if isinstance(value, numbers.Real):
        return True
    try:
        float(value)
    except (TypeError, ValueError):
        return False
    return True


def _group(categories, counts, max_categories, name):
    """``(kept, infrequent)``: the categories keeping their own code, and the grouped ones."""
    n = len(categories)
    limit = MAX_CODES if max_categories is None else int(max_categories)
    if n <= limit:
        return categories, []
    if (max_categories is None and all(count == 1 for count in counts)
            and sum(map(reads_as_number, categories)) < n / 2):
        # a text value per row (a customer number, a name): grouping would not make it a
        # feature (numbers, each once, are rather a numeric column declared categorical)
        raise ValueError(
            f"categorical {name} has a different value in every row ({n} of them): an "
            "identifier, not a feature; leave the column out of X")
    if max_categories is None:
        raise ValueError(
            f"categorical {name} has {n} categories; a categorical node tells at most "
            f"{MAX_CODES} apart. Set max_categories (e.g. max_categories={MAX_CODES}: the "
            f"{MAX_CODES - 1} most frequent categories keep their own code and the rarest "
            "share one 'infrequent' code), or leave the column out of categorical_features "
            "if its values are numbers with a meaningful order")
    # the most frequent limit - 1 keep a code (ties: the earlier category); order kept
    rank = sorted(range(n), key=lambda i: (-counts[i], i))
    keep = set(rank[:limit - 1])
    return ([c for i, c in enumerate(categories) if i in keep],
            [c for i, c in enumerate(categories) if i not in keep])


def _allows_missing(estimator):
    try:
        return bool(estimator.__sklearn_tags__().input_tags.allow_nan)
    except AttributeError:
        return False


def _codes(values, missing, lookup):
    """Float codes of ``values`` (NaN where missing or not in ``lookup``), and the unseen."""
    codes = np.full(values.shape[0], np.nan)
    unseen = []
    for i, v in enumerate(values):
        if missing[i]:
            continue
        try:
            code = lookup.get(plain_scalar(v))
        except TypeError:  # unhashable (a list): no category of the fit equals it
            code = None
        if code is None:
            unseen.append(v)
        else:
            codes[i] = code
    return codes, unseen


def _replace_columns(X, columns):
    """``X`` with the columns ``{j: float codes}`` replaced (a copy; frames stay frames)."""
    if _is_frame(X):
        out = X.copy()
        for j, codes in columns.items():
            out.isetitem(j, codes)
        return out
    out = np.array(X, dtype=object)
    for j, codes in columns.items():
        out[:, j] = codes
    return out


def encode_fit(estimator, X):
    """Densify ``X`` and encode its categorical columns; set the estimator's category attributes.

    Sets ``is_categorical_`` (boolean mask of the features, or None when none
    is categorical), ``categories_`` (per feature: the values of codes
    ``0, 1, ...``, or None for a numeric feature; None when none is
    categorical) and ``infrequent_categories_`` (per feature: the values
    grouped into the last code by ``max_categories``, or None).

    Returns
    -------
    X : array-like
        ``X`` itself when no column is categorical; otherwise a copy whose
        categorical columns hold float codes (NaN: missing).
    """
    X = densify(X)
    check_column_names(X)
    estimator.is_categorical_ = None
    estimator.categories_ = None
    estimator.infrequent_categories_ = None
    spec = getattr(estimator, "categorical_features", None)
    if not (_is_frame(X) or hasattr(X, "shape")) and not (spec is None or isinstance(spec, str)):
        X = np.asarray(X, dtype=object)  # a list of rows naming categorical columns
    if getattr(X, "ndim", None) != 2:
        return X  # validate_data says what is wrong with the shape
    categorical = _resolve(estimator, X)
    if categorical.size == 0:
        return X
    n_features = X.shape[1]
    max_categories = getattr(estimator, "max_categories", None)
    is_cat = np.zeros(n_features, dtype=bool)
    is_cat[categorical] = True
    categories = [None] * n_features
    infrequent = [None] * n_features
    columns = {}
    for j in categorical:
        j = int(j)
        values, missing, dtype = _column(X, j)
        # an empty text is a missing value, as an empty cell of a CSV file is: a category
        # "" would be indistinguishable from the missing text of every consumer that
        # writes missing text as "" (a CSV file, ONNX's string inputs)
        missing = missing | np.array([isinstance(v, str) and v == "" for v in values],
                                     dtype=bool)
        name = _display_name(X, j)
        cats = _sorted_categories(values[~missing], dtype, name)
        infinite = [c for c in cats if isinstance(c, numbers.Real)
                    and not isinstance(c, bool) and math.isinf(c)]
        if infinite:
            # as in a numeric column, infinity is an error (and no saved model could hold it)
            raise ValueError(f"categorical {name} holds the infinite value {infinite[0]!r}: "
                             "replace it (e.g. by a category of its own) or drop those rows")
        present = {c: 0 for c in cats}
        for v in values[~missing]:
            present[plain_scalar(v)] += 1
        kept, grouped = _group(cats, [present[c] for c in cats], max_categories, name)
        lookup = {c: k for k, c in enumerate(kept)}
        lookup.update({c: len(kept) for c in grouped})
        codes, _ = _codes(values, missing, lookup)
        if missing.any() and not _allows_missing(estimator):
            raise ValueError(
                f"categorical {name} has {int(missing.sum())} missing value(s) (None or NaN); "
                f"{type(estimator).__name__} does not accept missing values: drop or fill "
                "those rows (e.g. with a category of their own, df[col].fillna('missing'))")
        categories[j] = np.asarray(kept, dtype=object)
        infrequent[j] = np.asarray(grouped, dtype=object) if grouped else None
        columns[j] = codes
    estimator.is_categorical_ = is_cat
    estimator.categories_ = categories
    estimator.infrequent_categories_ = infrequent
    return _replace_columns(X, columns)


def encode_predict(estimator, X):
    """``X`` for prediction: densified, categorical columns mapped to the codes of the fit.

    A value not seen at fit (and a missing value) becomes NaN, which the tree
    routes as a missing value; an estimator that does not accept missing values
    raises a ValueError naming the column and the value instead.
    """
    X = densify(X)
    categories = getattr(estimator, "categories_", None)
    if categories is None:
        return X
    if not (_is_frame(X) or hasattr(X, "shape")):
        X = np.asarray(X, dtype=object)
    if getattr(X, "ndim", None) != 2 or X.shape[1] != len(categories):
        return X  # validate_data reports the shape
    infrequent = getattr(estimator, "infrequent_categories_", None) or [None] * len(categories)
    columns = {}
    for j, kept in enumerate(categories):
        if kept is None:
            continue
        values, missing, _ = _column(X, j)
        lookup = {plain_scalar(c): k for k, c in enumerate(kept)}
        if infrequent[j] is not None:
            lookup.update({plain_scalar(c): len(kept) for c in infrequent[j]})
        codes, unseen = _codes(values, missing, lookup)
        if not _allows_missing(estimator):
            if unseen:
                raise ValueError(
                    f"categorical {_display_name(X, j)} holds {unseen[0]!r}, a category not "
                    f"seen at fit ({len(unseen)} such value(s)); "
                    f"{type(estimator).__name__} cannot route unseen categories without "
                    "missing-value support: map them to a known category first")
            if missing.any():
                raise ValueError(
                    f"categorical {_display_name(X, j)} has {int(missing.sum())} missing "
                    f"value(s); {type(estimator).__name__} does not accept missing values")
        columns[j] = codes
    return _replace_columns(X, columns)


def fitted_categories(estimator):
    """Per feature, ``(kept, grouped)``: the values of codes ``0, 1, ...`` and those sharing
    the last (infrequent) code, or ``(None, None)`` for a numeric feature; None when the
    estimator has no feature encoded as categories at fit."""
    categories = getattr(estimator, "categories_", None)
    if categories is None:
        return None
    infrequent = getattr(estimator, "infrequent_categories_", None) or [None] * len(categories)
    return list(zip(categories, infrequent))


def category_labels(estimator):
    """Per feature, the display text of each category code (None for a numeric feature).

    Returns None when the estimator has no categorical feature encoded at fit.
    The shared code of grouped categories reads ``"infrequent"``.
    """
    per_feature = fitted_categories(estimator)
    if per_feature is None:
        return None
    return [None if kept is None else [_label(v) for v in kept]
            + ([INFREQUENT_LABEL] if grouped is not None else [])
            for kept, grouped in per_feature]


def code_values(estimator):
    """Per feature, the values each category code stands for (None for a numeric feature).

    Returns None without categorical features; otherwise a list with, for a
    categorical feature, a list indexed by code of the lists of values (one
    value per code, all the grouped values for the infrequent code).
    """
    per_feature = fitted_categories(estimator)
    if per_feature is None:
        return None
    return [None if kept is None else [[plain_scalar(v)] for v in kept]
            + ([[plain_scalar(v) for v in grouped]] if grouped is not None else [])
            for kept, grouped in per_feature]


def _label(value):
    value = plain_scalar(value)
    if isinstance(value, float) and value.is_integer():
        return str(int(value))
    return str(value)
