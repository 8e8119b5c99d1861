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
  positive weight (a side of weight zero is no split in the weighted sense);
* NaN in ``X`` is a missing value: a projection is missing when one of its
  features is, and the samples missing it go together to the left or to the
  right, both tried (:func:`split_candidates_on_values`).
"""

import itertools
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

    NaN values are missing ones: then every partition of the known values by a
    cut (none left and all left included) is tried with the missing samples on
    the left and on the right, each a candidate of its own.

    Returns
    -------
    list of (G, lo, hi)
        ``lo < hi`` are the consecutive distinct values the cut falls between
        (``values <= lo`` goes left; ``-inf`` / ``inf`` at the ends).
    """
    values = np.asarray(values, dtype=float)
    w = np.asarray(w, dtype=float)
    missing = np.isnan(values)
    distinct = np.unique(values[~missing])
    cuts = list(itertools.pairwise(distinct))
    sides = (False,)
    if missing.any():
        ends = [(-math.inf, distinct[0]), (distinct[-1], math.inf)] if distinct.size else []
        cuts = cuts + ends
        sides = (False, True)
    out = []
    for lo, hi in cuts:
        for missing_left in sides:
            left = (values <= lo) | (missing & missing_left)
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


def min_max_scaled(X, scale_X=None):
    """Columns of ``X`` mapped by the min and max of each column over the rows of
    ``scale_X`` (default ``X``, which then lands in [0, 1]).

    Returns ``(Z, span)``: constant columns (``span == 0``) are left at 0; they
    cannot take part in a bivariate test. Missing values (NaN) are left out of
    the min and max and stay NaN in ``Z``; a column without a known value has
    span 0.
    """
    X = np.asarray(X, dtype=float)
    ref = X if scale_X is None else np.asarray(scale_X, dtype=float)
    lo = np.fmin.reduce(ref, axis=0)
    span = np.nan_to_num(np.fmax.reduce(ref, axis=0) - lo, nan=0.0)
    varying = span > 0
    Z = np.zeros_like(X)
    Z[:, varying] = (X[:, varying] - lo[varying]) / span[varying]
    return Z, span


def oblique_angles(n_orientations):
    """``t = pi h / H`` for ``h = 0 .. H-1`` without the axis-aligned ``t = 0`` and ``t = pi/2``.

    The axis-aligned angles are recognised exactly from ``h`` (``h == 0`` or
    ``2 h == H``), not from the cosine or sine being small.
    """
    H = int(n_orientations)
    return [math.pi * h / H for h in range(H) if h != 0 and 2 * h != H]


def _pair_projections(X, Z, span, directions, features):
    """``(j, k, a, b, values, noise)`` for every usable pair ``j < k`` and direction.

    ``values = a z_j + b z_k`` with ``z = (x - lo) / span`` (pairs of features
    with ``span > 0``); ``noise`` bounds (with a wide margin) how far
    rounding can move a projected value, whether it is computed here or as
    the stored rule ``x_j + w x_k`` in raw units: a few ulps of the largest
    terms, ``|a| max|x_j| / span_j`` and ``|b| max|x_k| / span_k`` in these
    scaled units.
    """
    features = list(range(X.shape[1]) if features is None else features)
    usable = [f for f in sorted(features) if span[f] > 0]
    for pos, j in enumerate(usable):
        for k in usable[pos + 1:]:
            for a, b in directions:
                values = a * Z[:, j] + b * Z[:, k]
                mj = np.nanmax(np.abs(X[:, j])) / span[j]
                mk = np.nanmax(np.abs(X[:, k])) / span[k]
                noise = 1e4 * np.finfo(float).eps * (abs(a) * (1 + mj) + abs(b) * (1 + mk))
                yield j, k, a, b, values, noise


def _pair_report(X, Z, span, directions, y, w, criterion, n_classes, min_samples_leaf,
                 min_weight_leaf, features):
    """Univariate best, best over all candidates, best over rounding-proof ones, ambiguity.

    A cut of a projection is *rounding-proof* when the two values it falls
    between are more than ``noise`` apart: any faithful floating-point
    evaluation of the direction offers it. The candidate set is *ambiguous*
    when two points with different ``(x_j, x_k)`` project within ``noise`` of
    each other for some direction: rounding then decides whether (and in
    which order) they can be separated, so no exact answer exists.
    """
    X = np.asarray(X, dtype=float)
    univariate = best_univariate(X, y, w, criterion, n_classes, min_samples_leaf,
                                 min_weight_leaf, features)
    best = robust = univariate
    ambiguous = False
    for j, k, _, _, values, noise in _pair_projections(X, Z, span, directions, features):
        for g, lo, hi in split_candidates_on_values(values, y, w, criterion, n_classes,
                                                    min_samples_leaf, min_weight_leaf):
            best = min(best, g)
            if hi - lo > noise:
                robust = min(robust, g)
        order = np.argsort(values, kind="stable")
        close = np.diff(values[order]) <= noise
        points = X[order][:, [j, k]]
        differ = np.any(points[1:] != points[:-1], axis=1)
        ambiguous = ambiguous or bool(np.any(close & differ))
    return {"univariate": univariate, "best": best, "robust": robust, "ambiguous": ambiguous}


def best_orientations(X, y, w, n_orientations, criterion, n_classes, min_samples_leaf=1,
                      min_weight_leaf=0.0, features=None):
    """Bivariate CART: best ``G`` over the univariate cuts and, for every pair ``j < k``
    of features (non-constant over the rows of ``X``), the cuts of
    ``cos(t) z_j + sin(t) z_k`` for every oblique angle of :func:`oblique_angles`,
    ``z`` being the features min-max scaled over the rows of ``X`` (the node).
    """
    return search_report("orientations", X, y, w, criterion, n_classes, min_samples_leaf,
                         min_weight_leaf, n_orientations=n_orientations,
                         features=features)["best"]


def best_diagonal(X, y, w, criterion, n_classes, min_samples_leaf=1, min_weight_leaf=0.0,
                  features=None, scale_X=None):
    """BIT2: best ``G`` over the univariate cuts and the cuts of ``z_j + z_k`` and
    ``z_j - z_k`` for every pair ``j < k`` of non-constant features.

    ``z`` is min-max scaled over the rows of ``scale_X`` (default: the rows of
    ``X``; the splitter scales over the whole positive-weight training set).
    """
    return search_report("diagonal", X, y, w, criterion, n_classes, min_samples_leaf,
                         min_weight_leaf, features=features, scale_X=scale_X)["best"]


def search_report(splitter, X, y, w, criterion, n_classes, min_samples_leaf=1,
                  min_weight_leaf=0.0, n_orientations=None, features=None, scale_X=None):
    """Brute-force summary of a splitter's candidate set at a node (rows of ``X``).

    Returns a dict with ``univariate`` (best univariate ``G``), ``best`` (best
    ``G`` over the whole candidate set), ``robust`` (best over the
    rounding-proof candidates, see :func:`_pair_report`) and ``ambiguous``.
    ``inf`` where there is no valid candidate.
    """
    X = np.asarray(X, dtype=float)
    if splitter == "univariate":
        g = best_univariate(X, y, w, criterion, n_classes, min_samples_leaf, min_weight_leaf,
                            features)
        return {"univariate": g, "best": g, "robust": g, "ambiguous": False}
    if splitter == "orientations":
        Z, span = min_max_scaled(X)
        directions = [(math.cos(t), math.sin(t)) for t in oblique_angles(n_orientations)]
    elif splitter == "diagonal":
        Z, span = min_max_scaled(X, scale_X)
        directions = [(1.0, 1.0), (1.0, -1.0)]
    else:
        raise ValueError(f"unknown splitter {splitter!r}")
    return _pair_report(X, Z, span, directions, y, w, criterion, n_classes,
                        min_samples_leaf, min_weight_leaf, features)


def best_for_splitter(splitter, X, y, w, criterion, n_classes, min_samples_leaf=1,
                      min_weight_leaf=0.0, n_orientations=None, features=None, scale_X=None):
    """Best ``G`` over the candidate set of ``splitter`` ("univariate", "orientations", "diagonal")."""
    return search_report(splitter, X, y, w, criterion, n_classes, min_samples_leaf,
                         min_weight_leaf, n_orientations, features, scale_X)["best"]


# -------------------------------------------------------------- scikit-learn ties
def _child_stats(left, y, w, regression, n_classes):
    """Unordered pair of the children's sufficient statistics (what ``G`` is computed from)."""
    def stats(side):
        if regression:
            return (float(w[side].sum()), float(np.sum(w[side] * y[side])),
                    float(np.sum(w[side] * y[side] ** 2)))
        return tuple(float(w[side & (y == c)].sum()) for c in range(n_classes))
    return frozenset([stats(left), stats(~left)])


def sklearn_tree_is_tie_free(est, X, y, sample_weight=None, rel_margin=1e-9):
    """Whether every decision node of a fitted scikit-learn tree had an unambiguous best split.

    For each decision node of ``est.tree_``, the training samples reaching it
    (through scikit-learn's own tree) are searched exhaustively: every feature,
    every cut between distinct values, honouring ``min_samples_leaf`` and
    ``min_weight_fraction_leaf``. The node is unambiguous when

    * the best feature's best ``G`` beats every other feature's best ``G`` by
      more than ``rel_margin`` (relative): scikit-learn visits features in a
      random order and keeps the first best, bivtree keeps the lowest index;
    * within that feature, every other cut within the margin has exactly the
      same (unordered pair of) children statistics as the first best cut in
      sorted order: both libraries then compute bit-identical ``G`` values from
      identical numbers and both keep the first cut.

    ``min_samples_leaf`` must be an integer and every weight positive (with
    zero weights scikit-learn counts samples that bivtree ignores).
    """
    X = np.asarray(X, dtype=float)
    y = np.asarray(y)
    w = np.ones(X.shape[0]) if sample_weight is None else np.asarray(sample_weight, float)
    criterion = "entropy" if est.criterion == "log_loss" else est.criterion
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

    def close(a, b):
        return abs(a - b) <= rel_margin * max(abs(a), abs(b), 1e-300)

    for node in range(tree.node_count):
        if tree.children_left[node] == -1:
            continue
        rows = paths.indices[paths.indptr[node]:paths.indptr[node + 1]]
        per_feature = [split_candidates_on_values(X[rows, f], labels[rows], w[rows], criterion,
                                                  n_classes, msl, mwl)
                       for f in range(X.shape[1])]
        bests = [min((g for g, _, _ in c), default=math.inf) for c in per_feature]
        f_best = int(np.argmin(bests))
        g_best = bests[f_best]
        if any(f != f_best and close(g, g_best) for f, g in enumerate(bests)):
            return False
        cands = per_feature[f_best]
        xs, ys, ws = X[rows, f_best], labels[rows], w[rows]
        first = next(lo for g, lo, _ in cands if g == g_best)
        ref = _child_stats(xs <= first, ys, ws, regression, n_classes)
        for g, lo, _ in cands:
            if lo != first and (g == g_best or close(g, g_best)) and \
                    _child_stats(xs <= lo, ys, ws, regression, n_classes) != ref:
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


# =====================================================================================
# BIT1 (hill climbing on a feature pair) and MUST (LDA splits): brute-force references
# =====================================================================================
def cart_lc_step(v, threshold, z, gamma, y, w, criterion, n_classes, min_samples_leaf=1,
                 min_weight_leaf=0.0):
    """Best ``G`` of the test ``v - delta (z + gamma) <= threshold`` over the candidate deltas.

    The candidates are the midpoints of consecutive distinct values of
    ``u = (v - threshold) / (z + gamma)`` (samples with ``z + gamma == 0``
    excluded); each is evaluated by applying the test to every sample.

    Returns
    -------
    (G, delta)
        ``(inf, None)`` when no candidate gives a valid split.
    """
    v, z = np.asarray(v, float), np.asarray(z, float)
    c = z + gamma
    moving = c != 0
    import itertools

    u = np.unique((v[moving] - threshold) / c[moving])
    best, best_delta = math.inf, None
    for lo, hi in itertools.pairwise(u):
        delta = lo / 2 + hi / 2
        left = v - delta * c <= threshold
        n_left = int(left.sum())
        wl, wr = float(np.sum(np.asarray(w)[left])), float(np.sum(np.asarray(w)[~left]))
        if (n_left < min_samples_leaf or left.size - n_left < min_samples_leaf
                or wl < min_weight_leaf or wr < min_weight_leaf or wl <= 0 or wr <= 0):
            continue
        g = weighted_child_impurity(left, y, w, criterion, n_classes)
        if g < best:
            best, best_delta = g, delta
    return best, best_delta


def bit1_pair(zi, zj, y, w, criterion, n_classes, gammas=(-0.25, 0.0, 0.25), tol=1e-3,
              max_cycles=20):
    """BIT1 for one ordered pair, from the paper's description (CART-LC on two features).

    Start from the best univariate test on ``zi``; a cycle perturbs the
    coefficient of ``zi``, then of ``zj`` (best delta and gamma by
    :func:`cart_lc_step`, accepted if the test improves), rescales the
    coefficients to ``max |a| = 1`` and takes the best threshold for the
    direction; stop when a cycle improves ``G`` by at most ``tol * sum(w)``.

    Returns
    -------
    (G, a_i, a_j)
    """
    zi, zj, w = np.asarray(zi, float), np.asarray(zj, float), np.asarray(w, float)

    def best_threshold(values):
        cands = split_candidates_on_values(values, y, w, criterion, n_classes)
        g, lo, hi = min(cands, key=lambda t: t[0])
        return g, lo / 2 + hi / 2

    g, t = best_threshold(zi)
    a = np.array([1.0, 0.0])
    for _ in range(max_cycles):
        g_start = g
        for k, zk in enumerate((zi, zj)):
            v = a[0] * zi + a[1] * zj
            step = min(((*cart_lc_step(v, t, zk, gam, y, w, criterion, n_classes), gam)
                        for gam in gammas), key=lambda r: r[0])
            if not step[0] < g:
                continue
            b = a.copy()
            b[k] -= step[1]
            t_new = t + step[1] * step[2]
            g_new = weighted_child_impurity(b[0] * zi + b[1] * zj <= t_new, y, w, criterion,
                                            n_classes)
            if g_new < g:
                a, t, g = b, t_new, g_new
        a = a / np.abs(a).max()
        g, t = best_threshold(a[0] * zi + a[1] * zj)
        if g_start - g <= tol * w.sum():
            break
    return g, a[0], a[1]


def lda_direction(X, group, w):
    """``Sigma_w^{-1} Delta_m`` with weighted group means and pooled within-group scatter."""
    X, w = np.asarray(X, float), np.asarray(w, float)
    group = np.asarray(group, bool)
    means = [np.average(X[g], axis=0, weights=w[g]) for g in (~group, group)]
    scatter = sum((X[g] - m).T @ ((X[g] - m) * w[g][:, None]) for g, m in zip((~group, group),
                                                                               means))
    return np.linalg.solve(scatter, means[1] - means[0])


def _standardised_scatter(X, group, w):
    X, w = np.asarray(X, float), np.asarray(w, float)
    group = np.asarray(group, bool)
    mean = np.average(X, axis=0, weights=w)
    std = np.sqrt(np.average((X - mean) ** 2, axis=0, weights=w))
    Z = X / std
    means = [np.average(Z[g], axis=0, weights=w[g]) for g in (~group, group)]
    scatter = sum((Z[g] - m).T @ ((Z[g] - m) * w[g][:, None]) for g, m in zip((~group, group),
                                                                               means))
    return scatter, means[1] - means[0], std


def null_space_lda_direction(X, group, w):
    """Section III-F on the standardised features: the leading eigenvector of
    ``P Sigma_b P``, ``P`` the orthogonal projector on ``ker Sigma_w`` (from
    scipy's null_space), returned in original units (up to sign and scale).

    Returns ``None`` when ``P Sigma_b P`` vanishes (``Delta_m`` orthogonal to
    the null space, e.g. a duplicated column): no direction of the null space
    separates the groups.
    """
    from scipy.linalg import null_space

    scatter, dm, std = _standardised_scatter(X, group, w)
    Q = null_space(scatter, rcond=1e-10)
    P = Q @ Q.T
    vals, vecs = np.linalg.eigh(P @ np.outer(dm, dm) @ P)
    if vals[-1] <= 1e-12 * (dm @ dm):
        return None
    return vecs[:, -1] / std


def pinv_lda_direction(X, group, w):
    """``pinv(Sigma_w) Delta_m`` on the standardised features, in original units."""
    scatter, dm, std = _standardised_scatter(X, group, w)
    return np.linalg.pinv(scatter, rcond=1e-10, hermitian=True) @ dm / std


def balanced_gain_ratio(left_mask, y, w, n_classes):
    """``IG / (1 + SplitInfo)`` of a binary partition, both in bits (Leroux et al. 2018)."""
    left = np.asarray(left_mask, bool)
    w = np.asarray(w, float)
    total = w.sum()
    ig = impurity(y, w, "entropy", n_classes) - weighted_child_impurity(
        left, y, w, "entropy", n_classes) / total
    p = w[left].sum() / total
    split_info = -sum(q * math.log2(q) for q in (p, 1 - p) if q > 0)
    return ig / (1 + split_info)


def best_gain_on_values(values, y, w, gain, criterion, n_classes, min_samples_leaf=1):
    """Largest score over the cuts of ``values``: ``-G`` under ``criterion``,
    the information gain in bits, or the balanced gain ratio."""
    values = np.asarray(values, float)
    distinct = np.unique(values)
    best = -math.inf
    for lo in distinct[:-1]:
        left = values <= lo
        if min(left.sum(), (~left).sum()) < min_samples_leaf:
            continue
        if gain == "criterion":
            s = -weighted_child_impurity(left, y, w, criterion, n_classes)
        elif gain == "information_gain":
            s = impurity(y, w, "entropy", n_classes) - weighted_child_impurity(
                left, y, w, "entropy", n_classes) / np.sum(w)
        else:
            s = balanced_gain_ratio(left, y, w, n_classes)
        best = max(best, s)
    return best


def best_category_subset(codes, y, w, criterion, n_classes):
    """Smallest ``G`` over every split of the categories into two non-empty sets."""
    import itertools

    codes = np.asarray(codes)
    cats = np.unique(codes)
    best = math.inf
    for r in range(1, cats.size):
        for subset in itertools.combinations(cats[1:], r):  # cats[0] always right
            left = np.isin(codes, subset)
            best = min(best, weighted_child_impurity(left, y, w, criterion, n_classes))
    return best


def best_category_subset_missing(codes, y, w, criterion, n_classes):
    """Smallest ``G`` over every subset of the known categories going left, times the side
    of the samples whose category is missing (NaN); both sides non-empty."""
    import itertools

    codes = np.asarray(codes, dtype=float)
    missing = np.isnan(codes)
    cats = np.unique(codes[~missing])
    best = math.inf
    for r in range(1, cats.size + 1):
        for subset in itertools.combinations(cats, r):
            in_subset = np.isin(codes, subset) & ~missing
            for missing_left in (False, True):
                left = in_subset | (missing & missing_left)
                if left.all() or not left.any():
                    continue
                best = min(best, weighted_child_impurity(left, y, w, criterion, n_classes))
    return best


# ======================================================================
# Exact bivariate splits (the "optimal" splitter): brute force over every
# angular interval between critical directions, every cut.
# ======================================================================
def critical_angles(P, rel_tol=1e-12):
    """Directions in [0, pi) on which two distinct points of ``P`` project equally.

    The projection on ``(cos t, sin t)`` of ``p_i`` and ``p_j`` is equal when
    ``t`` is perpendicular to ``p_j - p_i``. Angles closer than ``rel_tol``
    (radians) are one angle: they come from parallel differences rounded
    differently.
    """
    P = np.asarray(P, dtype=float)
    angles = []
    for i in range(P.shape[0]):
        d = P[i + 1:] - P[i]
        d = d[np.any(d != 0.0, axis=1)]
        angles.extend(np.mod(np.arctan2(d[:, 1], d[:, 0]) + math.pi / 2, math.pi))
    angles = np.sort(np.asarray(angles, dtype=float))
    if angles.size == 0:
        return angles
    keep = np.concatenate([[True], np.diff(angles) > rel_tol])
    angles = angles[keep]
    if angles.size > 1 and angles[0] + math.pi - angles[-1] <= rel_tol:
        angles = angles[:-1]
    return angles


def interval_directions(P):
    """One direction strictly inside each open angular interval between critical angles.

    Between two consecutive critical angles the order of the projections does
    not change, so these directions give every order a line can induce.
    """
    angles = critical_angles(P)
    if angles.size == 0:
        return [0.0]
    ends = np.concatenate([angles, [angles[0] + math.pi]])
    return list((ends[:-1] + ends[1:]) / 2.0)


def best_exact_pair(U, y, w, criterion, n_classes, min_samples_leaf=1, min_weight_leaf=0.0):
    """Smallest ``G`` over every partition of the rows of the (n, 2) array ``U`` by a line.

    Each column is first brought to unit spread (a positive scaling of the axes
    maps lines to lines, so the partitions are the same) to keep the critical
    angles well apart; then every direction of :func:`interval_directions` is
    projected on and every cut between distinct projections scored.
    """
    U = np.asarray(U, dtype=float)
    span = U.max(axis=0) - U.min(axis=0)
    U = U / np.where(span > 0, span, 1.0)
    best = math.inf
    for t in interval_directions(U):
        # elementwise, not a matrix product: BLAS may round identical rows differently
        values = U[:, 0] * math.cos(t) + U[:, 1] * math.sin(t)
        best = min(best, best_split_on_values(values, y, w, criterion, n_classes,
                                              min_samples_leaf, min_weight_leaf))
    return best


def best_optimal(X, y, w, criterion, n_classes, min_samples_leaf=1, min_weight_leaf=0.0,
                 features=None):
    """Best ``G`` over every univariate cut and every line in every pair of features.

    This is the exact answer of the ``"optimal"`` splitter (branch and bound or
    sweep): O(m^2 n^3 log n).
    """
    X = np.asarray(X, dtype=float)
    features = sorted(range(X.shape[1]) if features is None else features)
    best = best_univariate(X, y, w, criterion, n_classes, min_samples_leaf, min_weight_leaf,
                           features)
    for a_pos, j in enumerate(features):
        for k in features[a_pos + 1:]:
            best = min(best, best_exact_pair(X[:, [j, k]], y, w, criterion, n_classes,
                                             min_samples_leaf, min_weight_leaf))
    return best


# ------------------------------------------------------- TAO's reduced problem
def pseudolabel_error(left_mask, prefers_right, w):
    """Weighted error of sending ``left_mask`` left when ``prefers_right`` says where each
    sample would rather go."""
    return float(np.sum(w[left_mask & prefers_right]) + np.sum(w[~left_mask & ~prefers_right]))


def best_reduced_problem(X, prefers_right, w):
    """Least pseudolabel error of a zero-, uni- and bivariate rule, by enumeration.

    Zero-variate: everything left or everything right. Univariate: every cut of
    every feature, both orientations (a rule may send its lower side to either
    child). Bivariate: every partition of every feature pair by a line
    (:func:`interval_directions` on each pair), both orientations.

    Returns
    -------
    dict with keys ``"zero"``, ``"univariate"``, ``"bivariate"`` (``inf`` when
    no cut exists)
    """
    X = np.asarray(X, dtype=float)
    prefers_right = np.asarray(prefers_right, dtype=bool)
    w = np.asarray(w, dtype=float)
    everything = np.ones(X.shape[0], dtype=bool)
    out = {"zero": min(pseudolabel_error(everything, prefers_right, w),
                       pseudolabel_error(~everything, prefers_right, w)),
           "univariate": math.inf, "bivariate": math.inf}

    def cuts(values):
        for c in np.unique(values)[:-1]:
            left = values <= c
            yield min(pseudolabel_error(left, prefers_right, w),
                      pseudolabel_error(~left, prefers_right, w))

    for j in range(X.shape[1]):
        for err in cuts(X[:, j]):
            out["univariate"] = min(out["univariate"], err)
    for j, k in itertools.combinations(range(X.shape[1]), 2):
        U = X[:, [j, k]]
        span = U.max(axis=0) - U.min(axis=0)
        if np.any(span == 0):
            continue
        U = U / span
        for t in interval_directions(U):
            values = U[:, 0] * math.cos(t) + U[:, 1] * math.sin(t)
            for err in cuts(values):
                out["bivariate"] = min(out["bivariate"], err)
    return out


def in_category_set(code, mask):
    """Whether ``code`` is an integer in [0, 63] whose bit is set in ``mask`` (an int)."""
    code = float(code)
    return code.is_integer() and 0 <= code <= 63 and (int(mask) >> int(code)) & 1 == 1


def goes_left(x, features, weights, threshold, masks=0, missing_left=False):
    """A node's test written out in plain Python.

    ``masks``: the slots' category sets (an int: the first slot's). A node whose
    one used slot has a set tests membership of the code; otherwise a slot with a
    set reads its indicator (1 in the set, 0 out of it) and the node tests the
    slot-order sum ``<= threshold``. A sample missing (NaN) a feature the node
    uses goes left iff ``missing_left``.
    """
    features = [int(f) for f in np.atleast_1d(features)]
    masks = [int(m) for m in np.atleast_1d(masks)] + [0] * len(features)
    used = [k for k, f in enumerate(features) if f >= 0]
    if any(math.isnan(float(x[features[k]])) for k in used):
        return bool(missing_left)
    if masks[0] and len(used) == 1:
        return in_category_set(x[features[0]], masks[0])
    s = 0.0
    for k in used:
        value = float(x[features[k]])
        if masks[k]:
            value = 1.0 if in_category_set(value, masks[k]) else 0.0
        s += float(weights[k]) * value
    return s <= float(threshold)


def leaf_of(tree_arrays, x, node):
    """Leaf reached by the row ``x`` from ``node``, walking ``(cl, cr, features, weights,
    threshold[, category_mask])`` in plain Python (:func:`goes_left`, no missing value)."""
    cl, cr, features, weights, threshold = tree_arrays[:5]
    masks = tree_arrays[5] if len(tree_arrays) > 5 else [0] * len(cl)
    while cl[node] != -1:
        left = goes_left(x, features[node], weights[node], threshold[node], masks[node])
        node = cl[node] if left else cr[node]
    return node


# ======================================================================
# Exact bivariate splits with missing values (the "optimal" splitter on NaN):
# every line partition of a pair's complete rows, times the side of the rest.
# ======================================================================
def best_exact_pair_missing(U, y, w, criterion, n_classes, min_samples_leaf=1,
                            min_weight_leaf=0.0):
    """Smallest ``G`` over the line partitions of the (n, 2) array ``U``'s complete rows
    times the side of the rows missing a coordinate (NaN).

    The directions are those of :func:`interval_directions` over the complete
    rows (brought to unit spread); a row missing either coordinate has a
    missing projection, and :func:`split_candidates_on_values` tries every cut
    of the known projections (every known value on one side included) with the
    missing rows on the left and on the right.
    """
    U = np.asarray(U, dtype=float)
    complete = ~np.isnan(U).any(axis=1)
    if not complete.any():
        return math.inf
    C = U[complete]
    span = C.max(axis=0) - C.min(axis=0)
    scale = np.where(span > 0, span, 1.0)
    C = C / scale
    best = math.inf
    for t in interval_directions(C):
        values = np.full(U.shape[0], np.nan)
        values[complete] = C[:, 0] * math.cos(t) + C[:, 1] * math.sin(t)
        best = min(best, best_split_on_values(values, y, w, criterion, n_classes,
                                              min_samples_leaf, min_weight_leaf))
    return best


def best_optimal_missing(X, y, w, criterion, n_classes, min_samples_leaf=1,
                         min_weight_leaf=0.0, features=None):
    """:func:`best_optimal` for ``X`` with NaN: the exact answer of the ``"optimal"``
    splitter with missing values.

    The univariate candidates send the rows missing their feature left or
    right (:func:`best_univariate`); a pair's candidates are those of
    :func:`best_exact_pair_missing`, the rows missing either feature of the
    pair going together to one side. As in every bivariate search of the
    library, a pair is searched only when both of its features vary over
    their known values (a feature constant where known takes part in no pair).
    """
    X = np.asarray(X, dtype=float)
    features = sorted(range(X.shape[1]) if features is None else features)
    best = best_univariate(X, y, w, criterion, n_classes, min_samples_leaf, min_weight_leaf,
                           features)
    varying = [f for f in features if np.unique(X[~np.isnan(X[:, f]), f]).size > 1]
    for a_pos, j in enumerate(varying):
        for k in varying[a_pos + 1:]:
            best = min(best, best_exact_pair_missing(X[:, [j, k]], y, w, criterion, n_classes,
                                                     min_samples_leaf, min_weight_leaf))
    return best


# ======================================================================
# Optimal univariate trees over binned tests: every tree of a small depth.
# ======================================================================
def binned_tree_error(X, y, w, thresholds, depth, n_classes):
    """Least weighted misclassification of a tree of depth at most ``depth`` whose tests
    are ``x[f] <= t`` for ``t`` in ``thresholds[f]``, by enumeration.

    A node is a leaf (predicting its heaviest class, erring by the weight of the
    others) or any test with any subtrees one level shallower below it; the two
    children's choices are independent, so the best tree under a test pairs the
    best subtree of each side, found the same way. A missing value (NaN) fails
    every test (``NaN <= t`` is false). A test sending no sample to a side is
    skipped: its tree routes like its one child. Sample sets are remembered by
    their masks, which only saves time.
    """
    X = np.asarray(X, dtype=float)
    y = np.asarray(y)
    w = np.asarray(w, dtype=float)
    passes = [X[:, f] <= t for f, cuts in enumerate(thresholds) for t in cuts]
    solved = {}

    def best(mask, d):
        key = (mask.tobytes(), d)
        if key not in solved:
            counts = [float(w[mask & (y == c)].sum()) for c in range(n_classes)]
            error = sum(counts) - max(counts)
            if d > 0:
                for test in passes:
                    left, right = mask & test, mask & ~test
                    if left.any() and right.any():
                        error = min(error, best(left, d - 1) + best(right, d - 1))
            solved[key] = error
        return solved[key]

    return best(np.ones(X.shape[0], dtype=bool), depth)
