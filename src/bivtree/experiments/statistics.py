"""Comparing several methods over several data sets: average ranks, Friedman and Holm tests.

The procedure of Demsar (2006), as used in the BiDT paper (Bollwein &
Westphal, section 6.1):

1. on every data set, rank the methods (1 = best; tied methods share the
   average of the ranks they span);
2. the **Friedman test** asks whether all methods perform alike. Its
   statistic, from the average ranks ``R_j`` of ``k`` methods over ``N``
   data sets, is ``chi2_F = 12 N / (k (k + 1)) * (sum_j R_j^2 - k (k + 1)^2 / 4)``,
   chi-square distributed with ``k - 1`` degrees of freedom; divided by
   ``1 - sum(t^3 - t) / (N k (k^2 - 1))`` over the groups of ``t`` tied
   values when there are ties (computed by :func:`scipy.stats.friedmanchisquare`,
   and by the formula for two methods, which scipy refuses). Iman and Davenport's
   ``F_F = (N - 1) chi2_F / (N (k - 1) - chi2_F)``, F distributed with
   ``k - 1`` and ``(k - 1)(N - 1)`` degrees of freedom, is reported too;
3. the **Holm test** compares every method with a control: ``z = (R_i -
   R_control) / sqrt(k (k + 1) / (6 N))``, two-sided normal p-value. With
   ``m = k - 1`` comparisons ordered by p-value, the ``i``-th (from 1) is
   rejected at level ``alpha`` if it and every smaller p-value satisfy
   ``p_(j) <= alpha / (m - j + 1)``; the adjusted p-value is
   ``min(1, max_{j <= i} (m - j + 1) p_(j))``.

Every function takes a table of scores with one row per data set and one
column per method (a pandas DataFrame, or an array with ``methods`` names),
and ``higher_is_better`` (accuracy: True; RMSE, leaves, time: False).
"""

from dataclasses import dataclass, field

import numpy as np
from scipy import stats

__all__ = ["FriedmanResult", "HolmComparison", "average_ranks", "friedman_test", "holm_test",
           "rank_table"]


def _table(scores, methods):
    """``(values, methods, datasets)`` from a DataFrame or an array."""
    if hasattr(scores, "columns") and hasattr(scores, "index"):
        values = scores.to_numpy(dtype=np.float64)
        methods = [str(c) for c in scores.columns] if methods is None else list(methods)
        datasets = [str(i) for i in scores.index]
    else:
        values = np.asarray(scores, dtype=np.float64)
        datasets = [str(i) for i in range(values.shape[0])] if values.ndim == 2 else []
    if values.ndim != 2:
        raise ValueError(f"scores must be a 2-D table (data sets x methods), got shape "
                         f"{values.shape}")
    n, k = values.shape
    if methods is None:
        methods = [f"method {j}" for j in range(k)]
    if len(methods) != k:
        raise ValueError(f"{len(methods)} method names for {k} columns")
    if n < 1 or k < 2:
        raise ValueError(f"need at least one data set and two methods, got {n} x {k}")
    if not np.all(np.isfinite(values)):
        bad = sorted({datasets[i] for i in np.flatnonzero(~np.isfinite(values).all(axis=1))})
        raise ValueError(f"scores contain NaN or infinity (data sets {bad}); drop incomplete "
                         "rows first")
    return values, list(methods), datasets


def rank_table(scores, *, higher_is_better=True, methods=None):
    """Rank of every method on every data set (1 = best, ties get the average rank).

    Parameters
    ----------
    scores : DataFrame or array-like of shape (n_datasets, n_methods)
    higher_is_better : bool, default=True
    methods : list of str, default=None
        Method names for an array (a DataFrame's columns are used otherwise).

    Returns
    -------
    ndarray of shape (n_datasets, n_methods)
    """
    values, _, _ = _table(scores, methods)
    signed = -values if higher_is_better else values
    return stats.rankdata(signed, axis=1)


def average_ranks(scores, *, higher_is_better=True, methods=None):
    """Mean rank of every method over the data sets.

    Returns
    -------
    dict
        method name -> average rank, in column order.
    """
    _, names, _ = _table(scores, methods)
    ranks = rank_table(scores, higher_is_better=higher_is_better, methods=methods)
    return dict(zip(names, ranks.mean(axis=0).tolist()))


@dataclass
class FriedmanResult:
    """Outcome of :func:`friedman_test`."""

    statistic: float
    pvalue: float
    iman_davenport: float
    iman_davenport_pvalue: float
    n_datasets: int
    n_methods: int
    average_ranks: dict = field(default_factory=dict)

    def significant(self, alpha=0.05):
        """Whether the Friedman test rejects "all methods perform alike" at ``alpha``."""
        return bool(self.pvalue < alpha)


def friedman_test(scores, *, higher_is_better=True, methods=None):
    """Friedman's rank test that all methods perform alike (with Iman-Davenport's F).

    Parameters
    ----------
    scores : DataFrame or array-like of shape (n_datasets, n_methods)
        At least two methods (scipy requires three; the formula does not).
    higher_is_better : bool, default=True
    methods : list of str, default=None

    Returns
    -------
    FriedmanResult
    """
    values, names, _ = _table(scores, methods)
    n, k = values.shape
    ranks = rank_table(values, higher_is_better=higher_is_better)
    mean_ranks = ranks.mean(axis=0)
    if np.all(ranks == ranks[:, :1]):
        # every data set ties all methods: no evidence of any difference (scipy divides by 0)
        chi2, pvalue = 0.0, 1.0
    elif k >= 3:
        # the statistic does not depend on the direction of the ranking
        chi2, pvalue = stats.friedmanchisquare(*values.T)
    else:
        chi2, pvalue = _friedman_two_methods(ranks)
    denom = n * (k - 1) - chi2
    if n < 2:
        ff, ff_p = np.nan, np.nan
    elif denom <= 0.0:
        ff, ff_p = np.inf, 0.0
    else:
        ff = (n - 1) * chi2 / denom
        ff_p = float(stats.f.sf(ff, k - 1, (k - 1) * (n - 1)))
    return FriedmanResult(float(chi2), float(pvalue), float(ff), float(ff_p), n, k,
                          dict(zip(names, mean_ranks.tolist())))


def _friedman_two_methods(ranks):
    """Friedman's statistic and p-value for two methods, which scipy's function refuses.

    The formula of the module docstring, tie-corrected as scipy corrects it.
    """
    n, k = ranks.shape
    mean_ranks = ranks.mean(axis=0)
    chi2 = 12.0 * n / (k * (k + 1)) * (np.sum(mean_ranks ** 2) - k * (k + 1) ** 2 / 4.0)
    ties = 0.0
    for row in ranks:
        _, counts = np.unique(row, return_counts=True)
        ties += float(np.sum(counts.astype(np.float64) ** 3 - counts))
    chi2 = max(chi2 / (1.0 - ties / (n * k * (k * k - 1))), 0.0)
    return chi2, float(stats.chi2.sf(chi2, k - 1))


@dataclass
class HolmComparison:
    """One row of :func:`holm_test`: a method against the control."""

    method: str
    average_rank: float
    z: float
    pvalue: float
    adjusted_pvalue: float
    alpha_threshold: float
    reject: bool

    @property
    def better_than_control(self):
        """Whether the method's average rank is better (lower) than the control's."""
        return self.z < 0


def holm_test(scores, control, *, higher_is_better=True, alpha=0.05, methods=None):
    """Holm's step-down comparison of every method with a control method.

    Parameters
    ----------
    scores : DataFrame or array-like of shape (n_datasets, n_methods)
    control : str
        Name of the control method.
    higher_is_better : bool, default=True
    alpha : float, default=0.05
        Family-wise significance level.
    methods : list of str, default=None

    Returns
    -------
    list of HolmComparison
        Ordered by p-value (most significant first). ``z > 0`` means the
        method ranks worse than the control.
    """
    values, names, _ = _table(scores, methods)
    if control not in names:
        raise ValueError(f"control {control!r} is not one of the methods {names}")
    if not 0.0 < alpha < 1.0:
        raise ValueError(f"alpha must be in (0, 1), got {alpha!r}")
    n, k = values.shape
    mean_ranks = rank_table(values, higher_is_better=higher_is_better).mean(axis=0)
    c = names.index(control)
    se = np.sqrt(k * (k + 1) / (6.0 * n))
    others = [j for j in range(k) if j != c]
    z = (mean_ranks[others] - mean_ranks[c]) / se
    p = 2.0 * stats.norm.sf(np.abs(z))
    order = np.argsort(p, kind="stable")
    m = len(others)
    rows, running_max, rejecting = [], 0.0, True
    for i, idx in enumerate(order):
        factor = m - i
        running_max = max(running_max, factor * p[idx])
        threshold = alpha / factor
        rejecting = rejecting and p[idx] <= threshold
        rows.append(HolmComparison(
            method=names[others[idx]], average_rank=float(mean_ranks[others[idx]]),
            z=float(z[idx]), pvalue=float(p[idx]), adjusted_pvalue=float(min(1.0, running_max)),
            alpha_threshold=float(threshold), reject=bool(rejecting)))
    return rows
