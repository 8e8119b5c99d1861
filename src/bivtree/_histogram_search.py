"""The split search of a large node from its summed histograms (the driver of :mod:`bivtree.dask`).

A histogram row holds, per bin, the statistics of the rows in it (class counts,
or ``[count, sum y, sum y^2]``), its last bin those of the rows missing the
value; bin ``b`` holds the values in ``(edges[b - 1], edges[b]]``
(:mod:`bivtree._kernels.histograms`). A cut after bin ``j`` is the test ``v <=
edges[j]``: its children's statistics are sums of bins, so its weighted child
impurity is exact, and :func:`best_cuts` finds the best cut among the edges, the
missing rows scored on both sides as the in-memory scans score them
(:mod:`bivtree._kernels.scan`: the right side on ties, and the cut that sends
every known value left and the missing ones right).

Everything here is plain numpy on arrays of a few megabytes: the partitions
did the per-row work.
"""

import math
from typing import NamedTuple

import numpy as np

from ._config import ENTROPY, GINI, SQUARED_ERROR
from ._kernels.scan import ALL_KNOWN_LEFT
from .optimal_univariate import candidate_thresholds

#: histogram rows scanned at once by :func:`best_cuts` (bounds its temporaries)
SCAN_ROWS = 2048


def counts_of(stats, criterion):
    """Row counts of statistics (the weights: every row weighs 1)."""
    stats = np.asarray(stats, dtype=np.float64)
    return stats[..., 0] if criterion == SQUARED_ERROR else stats.sum(axis=-1)


def _xlogx(x):
    with np.errstate(divide="ignore", invalid="ignore"):
        return np.where(x > 0.0, x * np.log(np.where(x > 0.0, x, 1.0)), 0.0)


def weighted_impurity(stats, criterion):
    """``w * i``: the weight times the impurity of each set of statistics (0 for no weight).

    The criteria of :mod:`bivtree._kernels.criteria` (entropy in bits).
    """
    stats = np.asarray(stats, dtype=np.float64)
    w = counts_of(stats, criterion)
    safe = np.where(w > 0.0, w, 1.0)
    if criterion == SQUARED_ERROR:
        out = stats[..., 2] - stats[..., 1] * stats[..., 1] / safe
    elif criterion == GINI:
        out = w - (stats * stats).sum(axis=-1) / safe
    elif criterion == ENTROPY:
        out = (_xlogx(w) - _xlogx(stats).sum(axis=-1)) / math.log(2.0)
    else:  # misclassification
        out = w - stats.max(axis=-1)
    return np.where(w > 0.0, out, 0.0)


def node_summary(stats, criterion):
    """``(value, weight, impurity)`` of a node from its statistics, as the trees store them.

    ``value``: class counts, or the mean target; ``impurity`` per unit weight.
    """
    stats = np.asarray(stats, dtype=np.float64)
    w = float(counts_of(stats, criterion))
    impurity = float(weighted_impurity(stats, criterion)) / w if w > 0 else 0.0
    if criterion == SQUARED_ERROR:
        return np.array([stats[1] / w if w > 0 else 0.0]), w, impurity
    return stats.copy(), w, impurity


def proxy_base(stats, criterion):
    """The scans' node constant (``G = base - proxy``) that scales the bivariate tolerance."""
    stats = np.asarray(stats, dtype=np.float64)
    if criterion == SQUARED_ERROR:
        return float(stats[2])
    if criterion == ENTROPY:
        return 0.0
    return float(stats.sum())


class Cuts(NamedTuple):
    """The best cut of each histogram row (:func:`best_cuts`).

    Attributes
    ----------
    objective : float64 (m,)
        Weighted child impurity ``G`` (``inf``: no valid cut).
    index : int64 (m,)
        The last bin going left (``n_cuts``: every known value left).
    missing_left : bool (m,)
    left, right : float64 (m, n_stats)
        The children's statistics.
    n_missing : float64 (m,)
        Rows missing the value.
    """

    objective: np.ndarray
    index: np.ndarray
    missing_left: np.ndarray
    left: np.ndarray
    right: np.ndarray
    n_missing: np.ndarray


def best_cuts(hist, n_cuts, criterion, min_samples_leaf, allowed=None):
    """The best cut of every histogram row, as the in-memory scans choose among its cuts.

    Parameters
    ----------
    hist : float64 (m, width, n_stats)
        Bins ``0 .. n_cuts[r]`` of row ``r`` hold its known values, bin
        ``width - 1`` its missing ones; the other bins are empty.
    n_cuts : int64 (m,)
        Edges of each row: cut ``j < n_cuts`` sends bins ``0..j`` left; cut
        ``n_cuts`` sends every known value left and the missing rows right.
    criterion : int
    min_samples_leaf : int
    allowed : bool (m, width - 1), optional
        Cuts that may be taken (e.g. only between distinct category keys).

    Returns
    -------
    Cuts
        Ties go to the missing rows on the right, then to the lower cut.
    """
    hist = np.asarray(hist, dtype=np.float64)
    m, _, n_stats = hist.shape
    out = Cuts(np.full(m, np.inf), np.zeros(m, dtype=np.int64), np.zeros(m, dtype=bool),
               np.zeros((m, n_stats)), np.zeros((m, n_stats)), np.zeros(m))
    for start in range(0, m, SCAN_ROWS):
        rows = slice(start, min(m, start + SCAN_ROWS))
        _scan_rows(hist[rows], np.asarray(n_cuts)[rows], criterion, min_samples_leaf,
                   None if allowed is None else allowed[rows],
                   Cuts(*(field[rows] for field in out)))
    return out


def _scan_rows(hist, n_cuts, criterion, min_samples_leaf, allowed, out):
    """:func:`best_cuts` of a block of rows, written into the views ``out``."""
    m, width, _ = hist.shape
    n_bins = width - 1
    known, missing = hist[:, :n_bins], hist[:, n_bins]
    total = known.sum(axis=1) + missing
    left_known = np.cumsum(known, axis=1)
    valid = np.arange(n_bins)[None, :] <= n_cuts[:, None]
    if allowed is not None:
        valid &= allowed
    least = max(1, int(min_samples_leaf))
    objectives = []
    for left in (left_known, left_known + missing[:, None, :]):  # missing right, then left
        right = total[:, None, :] - left
        ok = valid & (counts_of(left, criterion) >= least) & (counts_of(right, criterion) >= least)
        objective = weighted_impurity(left, criterion) + weighted_impurity(right, criterion)
        objectives.append(np.where(ok, objective, np.inf))
    both = np.concatenate(objectives, axis=1)
    best = np.argmin(both, axis=1)  # the first minimum: missing right, lower cut on ties
    rows = np.arange(m)
    index = best % n_bins
    missing_left = best >= n_bins
    left = left_known[rows, index] + np.where(missing_left[:, None], missing, 0.0)
    out.objective[:] = both[rows, best]
    out.index[:] = index
    out.missing_left[:] = missing_left
    out.left[:] = left
    out.right[:] = total - left
    out.n_missing[:] = counts_of(missing, criterion)


def cut_threshold(edges, n_edges, index):
    """The threshold of cut ``index`` over ``edges[:n_edges]`` (:data:`ALL_KNOWN_LEFT` for the
    cut after every known value)."""
    return float(edges[index]) if index < n_edges else ALL_KNOWN_LEFT


# ---------------------------------------------------------------- categories
class SubsetRows(NamedTuple):
    """Histogram rows of the category orders of categorical features (:func:`subset_rows`).

    ``hist``, ``n_cuts`` and ``allowed`` go to :func:`best_cuts`; row ``r`` is
    an order of feature ``owner[r]`` (an index into the caller's list), whose
    bins are the present codes ``codes[r, :n_present[r]]`` sorted by key.
    """

    hist: np.ndarray
    n_cuts: np.ndarray
    allowed: np.ndarray
    owner: np.ndarray
    codes: np.ndarray


def category_keys(stats, criterion):
    """Breiman's ordering keys of categories from their statistics, one row per order.

    As :func:`bivtree.splitters._categorical.category_orders`: the mean target
    (regression), the share of the second class present (two classes present),
    or one order per class present (more classes; a heuristic).
    """
    counts = counts_of(stats, criterion)
    if criterion == SQUARED_ERROR:
        return (stats[:, 1] / counts)[None, :]
    present = np.flatnonzero(stats.sum(axis=0) > 0)
    if present.size <= 2:
        present = present[-1:]
    return (stats[:, present] / counts[:, None]).T


def subset_rows(code_hists, criterion, width):
    """Histogram rows scanning the prefixes of every category order of every feature.

    Parameters
    ----------
    code_hists : sequence of float64 (width, n_stats)
        Per categorical feature (at a node): bin ``c`` holds code ``c``, the
        last bin the missing rows.
    criterion : int
    width : int

    Returns
    -------
    SubsetRows
        A cut between two equal keys is not allowed (the in-memory scan cuts
        only between distinct values); the cut after the last present code
        (every known category left) is, for the missing rows.
    """
    hists, n_cuts, allowed, owner, codes = [], [], [], [], []
    for f, hist in enumerate(code_hists):
        known = hist[:width - 1]
        present = np.flatnonzero(counts_of(known, criterion) > 0)
        n_missing = counts_of(hist[width - 1], criterion)
        if present.size < (2 if n_missing == 0 else 1):
            continue
        for keys in category_keys(known[present], criterion):
            order = np.argsort(keys, kind="stable")
            row = np.zeros_like(hist)
            row[:present.size] = known[present[order]]
            row[width - 1] = hist[width - 1]
            ok = np.zeros(width - 1, dtype=bool)
            ok[:present.size - 1] = keys[order][:-1] < keys[order][1:]
            ok[present.size - 1] = True
            sorted_codes = np.full(width - 1, -1, dtype=np.int64)
            sorted_codes[:present.size] = present[order]
            hists.append(row)
            n_cuts.append(present.size - 1)
            allowed.append(ok)
            owner.append(f)
            codes.append(sorted_codes)
    if not hists:
        n_stats = code_hists[0].shape[1] if len(code_hists) else 1
        return SubsetRows(np.zeros((0, width, n_stats)), np.zeros(0, dtype=np.int64),
                          np.zeros((0, width - 1), dtype=bool), np.zeros(0, dtype=np.int64),
                          np.zeros((0, width - 1), dtype=np.int64))
    return SubsetRows(np.array(hists), np.array(n_cuts, dtype=np.int64), np.array(allowed),
                      np.array(owner, dtype=np.int64), np.array(codes))


# --------------------------------------------------------------------- edges
def projection_edges(values, lo, hi, n_edges):
    """At most ``n_edges`` ascending bin edges for a projection at a node.

    The weighted quantiles of ``values`` (the projections of the node's rows in
    the driver's sample, :func:`~bivtree.optimal_univariate.candidate_thresholds`),
    topped up with evenly spaced edges over ``[lo, hi]`` (bounds of the
    projection at the node) when the sample holds too few distinct values.
    """
    values = np.asarray(values, dtype=np.float64)
    edges = candidate_thresholds(values[:, None], max_bins=n_edges + 1)[0]
    room = n_edges - edges.size
    if room > n_edges // 2 and np.isfinite(lo) and np.isfinite(hi) and hi > lo:
        even = np.linspace(lo, hi, room + 2)[1:-1]
        edges = np.union1d(edges, even[np.isfinite(even)])
    return edges[:n_edges]


def zoom_edges(edges, index, lo, hi, n_edges):
    """Finer edges around cut ``index`` of ``edges``: its two neighbouring bins cut evenly.

    The result holds ``edges[index]`` itself (so the coarse cut stays a
    candidate) and at most ``n_edges`` values; ``lo`` / ``hi`` stand for the
    missing neighbour of the first / last edge.
    """
    centre = float(edges[index])
    below = float(edges[index - 1]) if index > 0 else lo
    above = float(edges[index + 1]) if index + 1 < len(edges) else hi
    half = max(1, (n_edges - 1) // 2)
    parts = [np.array([centre])]
    if np.isfinite(below) and below < centre:
        parts.append(np.linspace(below, centre, half + 1))
    if np.isfinite(above) and above > centre:
        parts.append(np.linspace(centre, above, half + 1))
    return np.unique(np.concatenate(parts))[:n_edges]
