"""Slow, obviously-correct numpy references for the split searches (no numba).

Everything here is brute force and written from the definitions, not from the
library's code: a split's quality is the *weighted child impurity*
``G = w_L i(L) + w_R i(R)`` (lower is better) with scikit-learn's per-unit
impurities, and a search's answer is the smallest ``G`` over its candidate set.

Conventions shared by every function:

* ``y`` holds integer class labels ``0 .. n_classes - 1`` for the
  classification criteria and float targets for ``"squared_error"``;
* ``w`` holds non-negative sample weights;
* a cut is *valid* when both sides hold at least ``min_samples_leaf`` samples
  (counted, whatever their weight), at least ``min_weight_leaf`` weight, and a
  positive weight (a side of weight zero is no split in the weighted sense).
"""

import math

import numpy as np

CLASSIFICATION = ("gini", "entropy", "misclassification")
REGRESSION = ("squared_error",)


# ----------------------------------------------------------------------- impurity
def impurity(y, w, criterion, n_classes):
    """Per-unit-weight impurity of a set of samples (scikit-learn's formulas).

    gini: ``1 - sum_c p_c^2``; entropy: ``-sum_c p_c log2 p_c``;
    misclassification: ``1 - max_c p_c``; squared_error: the weighted variance
    ``sum w (y - mean)^2 / sum w`` (two-pass, so it is accurate). ``p_c`` is the
    weighted share of class ``c``. An empty or weightless set has impurity 0.
    """
    y = np.asarray(y)
    w = np.asarray(w, dtype=float)
    total = float(w.sum())
    if total <= 0.0:
        return 0.0
    if criterion == "squared_error":
        mean = float(np.sum(w * y) / total)
        return float(np.sum(w * (y - mean) ** 2) / total)
    p = np.array([w[y == c].sum() for c in range(n_classes)]) / total
    if criterion == "gini":
        return float(1.0 - np.sum(p ** 2))
    if criterion == "entropy":
        q = p[p > 0]
        return float(-np.sum(q * np.log2(q)))
    if criterion == "misclassification":
        return float(1.0 - p.max())
    raise ValueError(f"unknown criterion {criterion!r}")


def weighted_child_impurity(left_mask, labels_or_targets, weights, criterion_name,
                            n_classes):
    """``G = w_L i(L) + w_R i(R)`` of the partition ``left_mask`` / ``~left_mask``.

    Parameters
    ----------
    left_mask : bool array (n,)
        True for the samples that go left.
    labels_or_targets : array (n,)
        Class labels (classification) or targets (``"squared_error"``).
    weights : float array (n,)
    criterion_name : {"gini", "entropy", "misclassification", "squared_error"}
    n_classes : int
        Ignored for regression.
    """
    left = np.asarray(left_mask, dtype=bool)
    y = np.asarray(labels_or_targets)
    w = np.asarray(weights, dtype=float)
    g = 0.0
    for side in (left, ~left):
        ws = w[side]
        g += float(ws.sum()) * impurity(y[side], ws, criterion_name, n_classes)
    return g


# ---------------------------------------------------------------- cuts of a projection
def split_candidates_on_values(values, y, w, criterion, n_classes, min_samples_leaf=1,
                               min_weight_leaf=0.0):
    """Every valid cut of the samples by ``values <= c``, cutting between distinct values.

    Returns
    -------
    list of (G, lo, hi)
        ``lo < hi`` are the consecutive distinct values the cut falls between
        (``values <= lo`` goes left).
    """
    values = np.asarray(values, dtype=float)
    w = np.asarray(w, dtype=float)
    distinct = np.unique(values)
    out = []
    for lo, hi in zip(distinct[:-1], distinct[1:]):
        left = values <= lo
        n_left = int(left.sum())
        n_right = values.shape[0] - n_left
        w_left = float(w[left].sum())
        w_right = float(w[~left].sum())
        if n_left < min_samples_leaf or n_right < min_samples_leaf:
            continue
        if w_left < min_weight_leaf or w_right < min_weight_leaf:
            continue
        if w_left <= 0.0 or w_right <= 0.0:
            continue
        out.append((weighted_child_impurity(left, y, w, criterion, n_classes), lo, hi))
    return out


def best_split_on_values(values, y, w, criterion, n_classes, min_samples_leaf=1,
                         min_weight_leaf=0.0):
    """Smallest ``G`` over every valid cut between distinct sorted ``values`` (``inf`` if none)."""
    cands = split_candidates_on_values(values, y, w, criterion, n_classes, min_samples_leaf,
                                       min_weight_leaf)
    return min((g for g, _, _ in cands), default=math.inf)


# ------------------------------------------------------------------ candidate sets
def best_univariate(X, y, w, criterion, n_classes, min_samples_leaf=1, min_weight_leaf=0.0,
                    features=None):
    """Best ``G`` over every axis-aligned cut ``x_f <= c`` of the rows of ``X``.

    ``features`` restricts the candidate features (default: all columns).
    """
    X = np.asarray(X, dtype=float)
    features = range(X.shape[1]) if features is None else features
    return min((best_split_on_values(X[:, f], y, w, criterion, n_classes, min_samples_leaf,
                                     min_weight_leaf) for f in features), default=math.inf)


def min_max_scaled(X):
    """Columns of ``X`` mapped to [0, 1] by their min and max over the rows of ``X``.

    Returns ``(Z, varying)``: constant columns are left at 0 and flagged False
    in ``varying`` (they cannot take part in a bivariate test).
    """
    X = np.asarray(X, dtype=float)
    lo = X.min(axis=0)
    span = X.max(axis=0) - lo
    varying = span > 0
    Z = np.zeros_like(X)
    Z[:, varying] = (X[:, varying] - lo[varying]) / span[varying]
    return Z, varying


def oblique_angles(n_orientations):
    """``t = pi h / H`` for ``h = 0 .. H-1`` without the axis-aligned ``t = 0`` and ``t = pi/2``.

    The axis-aligned angles are recognised exactly from ``h`` (``h == 0`` or
    ``2 h == H``), not from the cosine or sine being small.
    """
    H = int(n_orientations)
    return [math.pi * h / H for h in range(H) if h != 0 and 2 * h != H]


def _best_pair_directions(X, Z, varying, directions, y, w, criterion, n_classes,
                          min_samples_leaf, min_weight_leaf, features):
    X = np.asarray(X, dtype=float)
    features = list(range(X.shape[1]) if features is None else features)
    best = best_univariate(X, y, w, criterion, n_classes, min_samples_leaf, min_weight_leaf,
                           features)
    usable = [f for f in sorted(features) if varying[f]]
    for a_pos, j in enumerate(usable):
        for k in usable[a_pos + 1:]:
            for a, b in directions:
                g = best_split_on_values(a * Z[:, j] + b * Z[:, k], y, w, criterion,
                                         n_classes, min_samples_leaf, min_weight_leaf)
                best = min(best, g)
    return best


def best_orientations(X, y, w, n_orientations, criterion, n_classes, min_samples_leaf=1,
                      min_weight_leaf=0.0, features=None):
    """Bivariate CART: best ``G`` over the univariate cuts and, for every pair ``j < k``
    of features (non-constant over the rows of ``X``), the cuts of
    ``cos(t) z_j + sin(t) z_k`` for every oblique angle of :func:`oblique_angles`,
    ``z`` being the features min-max scaled over the rows of ``X`` (the node).
    """
    Z, varying = min_max_scaled(X)
    directions = [(math.cos(t), math.sin(t)) for t in oblique_angles(n_orientations)]
    return _best_pair_directions(X, Z, varying, directions, y, w, criterion, n_classes,
                                 min_samples_leaf, min_weight_leaf, features)


def best_diagonal(X, y, w, criterion, n_classes, min_samples_leaf=1, min_weight_leaf=0.0,
                  features=None, scale_X=None):
    """BIT2: best ``G`` over the univariate cuts and the cuts of ``z_j + z_k`` and
    ``z_j - z_k`` for every pair ``j < k`` of non-constant features.

    ``z`` is min-max scaled over the rows of ``scale_X`` (default: the rows of
    ``X``; the splitter scales over the whole positive-weight training set).
    """
    X = np.asarray(X, dtype=float)
    ref = X if scale_X is None else np.asarray(scale_X, dtype=float)
    lo = ref.min(axis=0)
    span = ref.max(axis=0) - lo
    varying = span > 0
    Z = np.zeros_like(X)
    Z[:, varying] = (X[:, varying] - lo[varying]) / span[varying]
    return _best_pair_directions(X, Z, varying, [(1.0, 1.0), (1.0, -1.0)], y, w, criterion,
                                 n_classes, min_samples_leaf, min_weight_leaf, features)


def best_for_splitter(splitter, X, y, w, criterion, n_classes, min_samples_leaf=1,
                      min_weight_leaf=0.0, n_orientations=None, features=None, scale_X=None):
    """Dispatch to the reference of ``splitter`` ("univariate", "orientations", "diagonal")."""
    common = dict(min_samples_leaf=min_samples_leaf, min_weight_leaf=min_weight_leaf,
                  features=features)
    if splitter == "univariate":
        return best_univariate(X, y, w, criterion, n_classes, **common)
    if splitter == "orientations":
        return best_orientations(X, y, w, n_orientations, criterion, n_classes, **common)
    if splitter == "diagonal":
        return best_diagonal(X, y, w, criterion, n_classes, scale_X=scale_X, **common)
    raise ValueError(splitter)


# -------------------------------------------------------------- scikit-learn ties
def sklearn_tree_is_tie_free(est, X, y, sample_weight=None, rel_margin=1e-9):
    """Whether every internal node of a fitted scikit-learn tree had a unique best split.

    For each decision node of ``est.tree_``, the training samples reaching it
    (through scikit-learn's own tree) are searched exhaustively: every feature,
    every cut between distinct values, honouring ``min_samples_leaf`` and
    ``min_weight_fraction_leaf``. The best ``G`` must beat every other candidate
    (any other feature or cut, even one giving the same partition, since the
    two would be stored differently) by more than ``rel_margin`` relative.
    scikit-learn draws features in a random order and keeps the first best, so
    only on tie-free data is its tree a deterministic function of the data.

    ``min_samples_leaf`` must be an integer and every weight positive (as with
    zero weights scikit-learn counts samples bivtree ignores).
    """
    X = np.asarray(X, dtype=float)
    y = np.asarray(y)
    w = np.ones(X.shape[0]) if sample_weight is None else np.asarray(sample_weight, float)
    criterion = est.criterion
    criterion = "entropy" if criterion == "log_loss" else criterion
    regression = criterion == "squared_error"
    if regression:
        labels, n_classes = y.astype(float), 1
    else:
        classes, labels = np.unique(y, return_inverse=True)
        n_classes = classes.shape[0]
    msl = est.min_samples_leaf
    mwl = est.min_weight_fraction_leaf * w.sum()
    tree = est.tree_
    paths = est.decision_path(X.astype(np.float32)).tocsc()
    for node in range(tree.node_count):
        if tree.children_left[node] == -1:
            continue
        rows = paths.indices[paths.indptr[node]:paths.indptr[node + 1]]
        gs = []
        for f in range(X.shape[1]):
            gs += [g for g, _, _ in split_candidates_on_values(
                X[rows, f], labels[rows], w[rows], criterion, n_classes, msl, mwl)]
        gs = np.sort(np.asarray(gs))
        if gs.size >= 2 and gs[1] - gs[0] <= rel_margin * max(abs(gs[0]), abs(gs[1]), 1e-300):
            return False
    return True


def sklearn_improvements_distinct(est, rel_margin=1e-9):
    """Whether the weighted impurity decreases of all decision nodes are pairwise distinct.

    Best-first growth (``max_leaf_nodes``) expands the frontier node of largest
    decrease; distinct decreases make the expansion order, hence the tree,
    independent of how equal priorities are ordered.
    """
    t = est.tree_
    internal = np.flatnonzero(t.children_left != -1)
    wn, imp = t.weighted_n_node_samples, t.impurity
    dec = np.sort([wn[i] * imp[i] - wn[t.children_left[i]] * imp[t.children_left[i]]
                   - wn[t.children_right[i]] * imp[t.children_right[i]] for i in internal])
    gaps = np.diff(dec)
    return bool(np.all(gaps > rel_margin * np.maximum(np.abs(dec[1:]), 1e-300)))
