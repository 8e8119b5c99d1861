"""Accuracy against tree size: one panel per data set, one point per estimator."""

import math

from .summary import summarize

__all__ = ["plot_accuracy_vs_size"]


def plot_accuracy_vs_size(results, *, groups=None, datasets=None, ncols=4, panel_size=3.2):
    """Mean test accuracy (or RMSE) against mean number of leaves, per data set.

    Each estimator is one point with error bars (standard deviation over the
    splits) in every panel; estimators of the same group share a marker, and
    an estimator's colour is the same in every panel. The leaf axis is
    logarithmic.

    Parameters
    ----------
    results : pandas.DataFrame
        Per-split results of :func:`run_experiment`.
    groups : dict of str -> list of str, default=None
        Estimator groups (e.g. unpruned / pruned), shown with different markers.
    datasets : list of str, default=None
        Panels to draw, in order; all by default.
    ncols : int, default=4
    panel_size : float, default=3.2
        Width and height of one panel in inches.

    Returns
    -------
    matplotlib.figure.Figure
    """
    try:
        import matplotlib.pyplot as plt
        from matplotlib import ticker
    except ImportError:  # pragma: no cover - matplotlib is in the test extra
        raise ImportError("plotting needs matplotlib: pip install matplotlib") from None
    summary = summarize(results)
    datasets = list(dict.fromkeys(summary["dataset"])) if datasets is None else list(datasets)
    estimators = list(dict.fromkeys(summary["estimator"]))
    groups = {"": estimators} if groups is None else groups
    markers = ["o", "s", "^", "D", "v", "P", "X"]
    marker_of, label_group = {}, {}
    for g, (gname, members) in enumerate(groups.items()):
        for est in members:
            marker_of.setdefault(est, markers[g % len(markers)])
            label_group.setdefault(est, gname)
    # one colour per estimator "family": the name with its group suffix removed
    families = list(dict.fromkeys(_family(e, groups) for e in estimators))
    cmap = plt.get_cmap("tab10")
    colour_of = {f: cmap(i % 10) for i, f in enumerate(families)}

    ncols = max(1, min(ncols, len(datasets)))
    nrows = math.ceil(len(datasets) / ncols)
    fig, axes = plt.subplots(nrows, ncols, figsize=(panel_size * ncols, panel_size * nrows),
                             squeeze=False)
    regression = set(summary["metric"]) == {"rmse"}
    scale = 1.0 if regression else 100.0
    for ax, dataset in zip(axes.flat, datasets):
        part = summary[summary["dataset"] == dataset]
        for _, row in part.iterrows():
            est = row["estimator"]
            ax.errorbar(row["n_leaves_mean"], scale * row["score_mean"],
                        xerr=row["n_leaves_std"], yerr=scale * row["score_std"],
                        fmt=marker_of.get(est, "o"), color=colour_of[_family(est, groups)],
                        markersize=6, capsize=2, alpha=0.85,
                        mfc="none" if marker_of.get(est) != markers[0] else None)
        ax.set_xscale("log")
        # plain numbers at 1, 2, 5 x 10^k: the default minor labels (3 x 10^0 ...) collide
        ax.autoscale_view()
        lo, hi = ax.get_xlim()
        # within a decade a log locator falls back to crowded linear ticks: ask for a few
        ax.xaxis.set_major_locator(ticker.LogLocator(subs=(1.0, 2.0, 5.0)) if hi > 5 * lo
                                   else ticker.MaxNLocator(nbins=4))
        ax.xaxis.set_major_formatter(ticker.FuncFormatter(lambda v, _: f"{v:g}"))
        ax.xaxis.set_minor_formatter(ticker.NullFormatter())
        ax.set_title(dataset, fontsize=10)
        ax.tick_params(labelsize=8)
        ax.grid(True, which="both", alpha=0.3)
    for ax in list(axes.flat)[len(datasets):]:
        ax.set_visible(False)
    for ax in axes[:, 0]:
        ax.set_ylabel("test RMSE" if regression else "test accuracy (%)", fontsize=9)
    for ax in axes[-1, :]:
        ax.set_xlabel("leaves", fontsize=9)
    handles = []
    for est in estimators:
        (h,) = axes.flat[0].plot([], [], marker_of.get(est, "o"),
                                 color=colour_of[_family(est, groups)],
                                 mfc="none" if marker_of.get(est) != markers[0] else None,
                                 label=est)
        handles.append(h)
    ncol = min(len(handles), 4)
    legend_rows = math.ceil(len(handles) / ncol)
    fig.legend(handles=handles, loc="lower center", ncol=ncol, fontsize=9, frameon=False,
               bbox_to_anchor=(0.5, 0.0))
    # keep about 0.25 inch per legend row free at the bottom
    fig.tight_layout(rect=(0, (0.1 + 0.25 * legend_rows) / fig.get_figheight(), 1, 1))
    return fig


def _family(estimator, groups):
    """The estimator's name without a trailing group name (``"CART, pruned"`` -> ``"CART"``)."""
    for gname in groups:
        for suffix in (f", {gname}", f" ({gname})", f" {gname}"):
            if gname and estimator.endswith(suffix):
                return estimator[: -len(suffix)]
    return estimator

