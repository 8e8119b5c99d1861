"""Per-split results of :func:`run_experiment` summarised per (data set, estimator).

Shared by the reports (:mod:`.report`) and the plots (:mod:`.plotting`).
"""

import math

import numpy as np

from .runner import _require_pandas

__all__ = ["summarize"]

_SUMMARY_COLUMNS = ("score", "train_score", "n_leaves", "depth", "bivariate_share", "fit_time",
                    "predict_time", "ccp_alpha")


def summarize(results):
    """Mean and standard deviation of every measure per (data set, estimator).

    Parameters
    ----------
    results : pandas.DataFrame
        Per-split results (:func:`run_experiment` or :func:`load_results`).

    Returns
    -------
    pandas.DataFrame
        One row per (data set, estimator) in order of first appearance, with
        ``n_splits``, ``protocol``, ``metric`` and ``<measure>_mean`` /
        ``<measure>_std`` columns (population standard deviation over splits).
    """
    pd = _require_pandas()
    if results.empty:
        raise ValueError("no results to summarize")
    rows = []
    for (dataset, estimator), group in results.groupby(["dataset", "estimator"], sort=False):
        row = {"dataset": dataset, "estimator": estimator, "n_splits": len(group),
               "protocol": group["protocol"].iloc[0], "metric": group["metric"].iloc[0],
               "n_train": float(group["n_train"].mean()),
               "n_features": int(group["n_features"].iloc[0])}
        for c in _SUMMARY_COLUMNS:
            values = group[c].to_numpy(dtype=np.float64)
            finite = values[np.isfinite(values)]
            row[f"{c}_mean"] = float(finite.mean()) if finite.size else math.nan
            row[f"{c}_std"] = float(finite.std()) if finite.size else math.nan
        rows.append(row)
    return pd.DataFrame(rows)
