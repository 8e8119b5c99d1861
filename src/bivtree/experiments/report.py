"""Tables and reports from the per-split results of :func:`run_experiment`.

* :func:`measure_table`: one measure as a data sets x estimators table of means;
* :func:`markdown_report`: Markdown with, per group of estimators and per
  measure, mean +- std per data set (best in bold), average ranks, the
  Friedman test and Holm's test against a control;
* :func:`write_report`: the per-split CSV, the summary CSV, the Markdown
  report and the accuracy-vs-size plot, side by side.
"""

import math
import os
from dataclasses import dataclass

import numpy as np

from .statistics import friedman_test, holm_test
from .summary import summarize

__all__ = ["MEASURES", "Measure", "markdown_report", "measure_table", "write_report"]


@dataclass(frozen=True)
class Measure:
    """A column of the results and how to show and rank it."""

    column: str
    title: str
    higher_is_better: bool
    scale: float = 1.0
    digits: int = 2


#: the measures a report shows; ``score`` is accuracy (in %) or RMSE.
MEASURES = {
    "accuracy": Measure("score", "Test accuracy (%)", True, 100.0, 2),
    "rmse": Measure("score", "Test RMSE", False, 1.0, 4),
    "leaves": Measure("n_leaves", "Number of leaves", False, 1.0, 1),
    "depth": Measure("depth", "Depth", False, 1.0, 1),
    "fit_time": Measure("fit_time", "Fit time (s)", False, 1.0, 3),
    "bivariate_share": Measure("bivariate_share", "Share of bivariate decision nodes (%)",
                               True, 100.0, 0),
}

def measure_table(summary, measure, estimators=None, datasets=None, stat="mean"):
    """One measure as a table: data sets (rows) x estimators (columns).

    Parameters
    ----------
    summary : pandas.DataFrame
        From :func:`summarize`.
    measure : str or Measure
        A key of :data:`MEASURES` or a Measure.
    estimators, datasets : list of str, default=None
        Selection and order; all, in order of appearance, by default.
    stat : {"mean", "std"}, default="mean"

    Returns
    -------
    pandas.DataFrame
        Unscaled values; missing combinations are NaN.
    """
    m = MEASURES[measure] if isinstance(measure, str) else measure
    table = summary.pivot(index="dataset", columns="estimator", values=f"{m.column}_{stat}")
    estimators = list(dict.fromkeys(summary["estimator"])) if estimators is None else estimators
    datasets = list(dict.fromkeys(summary["dataset"])) if datasets is None else datasets
    return table.reindex(index=datasets, columns=estimators)


def _fmt(value, digits):
    if not np.isfinite(value):
        return "–"
    return f"{value:.{digits}f}"


def _measure_section(summary, measure, estimators, control, alpha):
    """Markdown lines for one measure of one estimator group."""
    m = MEASURES[measure]
    mean = measure_table(summary, m, estimators) * m.scale
    std = measure_table(summary, m, estimators, stat="std") * m.scale
    n_splits = summary.pivot(index="dataset", columns="estimator", values="n_splits").reindex(
        index=mean.index, columns=estimators)
    lines = [f"#### {m.title}", "",
             "| data set | " + " | ".join(estimators) + " |",
             "|---|" + "---:|" * len(estimators)]
    for dataset in mean.index:
        row = mean.loc[dataset].to_numpy(dtype=np.float64)
        finite = row[np.isfinite(row)]
        # "best" compares the printed values, so equal-looking cells are all bold
        shown = np.round(row, m.digits)
        best = (np.nanmax(shown) if m.higher_is_better else np.nanmin(shown)) if finite.size \
            else math.nan
        cells = []
        for j, est in enumerate(estimators):
            if not np.isfinite(row[j]):
                text = "–"
            elif n_splits.loc[dataset, est] == 1:  # one split has no spread to show
                text = _fmt(row[j], m.digits)
            else:
                text = f"{_fmt(row[j], m.digits)} ± {_fmt(std.loc[dataset, est], m.digits)}"
            cells.append(f"**{text}**" if np.isfinite(row[j]) and shown[j] == best else text)
        lines.append(f"| {dataset} | " + " | ".join(cells) + " |")
    complete = mean.dropna(axis=0, how="any")
    dropped = [d for d in mean.index if d not in complete.index]
    if len(complete) >= 2 and len(estimators) >= 2:
        fr = friedman_test(complete, higher_is_better=m.higher_is_better)
        ranks = fr.average_ranks
        lines.append("| *average rank* | " + " | ".join(f"*{ranks[e]:.2f}*" for e in estimators)
                     + " |")
        lines.append("")
        if dropped:
            lines.append(f"Ranks and tests use the {len(complete)} data sets with results for "
                         f"every method (left out: {', '.join(dropped)}).")
            lines.append("")
        verdict = "reject" if fr.significant(alpha) else "do not reject"
        lines.append(
            f"Friedman test over {fr.n_datasets} data sets and {fr.n_methods} methods: "
            f"chi2_F = {fr.statistic:.3f}, p = {fr.pvalue:.3g} (Iman-Davenport F_F = "
            f"{fr.iman_davenport:.3f}, p = {fr.iman_davenport_pvalue:.3g}); we {verdict} "
            f"the hypothesis that all methods perform alike at alpha = {alpha}.")
        if control in estimators:
            lines += ["", (f"Holm test against the control **{control}** (alpha = {alpha}; "
                           "z > 0: the method ranks worse than the control):"), "",
                      ("| method | average rank | z | p | Holm-adjusted p | alpha_i | "
                       "differs from control |"),
                      "|---|---:|---:|---:|---:|---:|---|"]
            for row in holm_test(complete, control, higher_is_better=m.higher_is_better,
                                 alpha=alpha):
                outcome = ("yes, " + ("better" if row.better_than_control else "worse")) \
                    if row.reject else "no"
                lines.append(f"| {row.method} | {row.average_rank:.2f} | {row.z:.3f} | "
                             f"{row.pvalue:.3g} | {row.adjusted_pvalue:.3g} | "
                             f"{row.alpha_threshold:.4f} | {outcome} |")
    lines.append("")
    return lines


_DEFAULT_MEASURES = ("accuracy", "leaves", "fit_time")


def markdown_report(results, *, title="Experiment", groups=None, controls=None,
                    measures=_DEFAULT_MEASURES, alpha=0.05, preamble=(),
                    closing=()):
    """The Markdown text of a report.

    Parameters
    ----------
    results : pandas.DataFrame
        Per-split results.
    title : str
    groups : dict of str -> list of str, default=None
        Estimator groups analysed separately (e.g. unpruned and pruned
        trees); one group with every estimator by default.
    controls : dict of str -> str, default=None
        Control method of each group for Holm's test (none: no Holm test).
    measures : sequence of str, or dict of str -> sequence of str
        Keys of :data:`MEASURES` (per group with a dict; groups it does not
        name get the defaults); ``"accuracy"`` becomes ``"rmse"`` for
        regression results.
    alpha : float, default=0.05
    preamble, closing : sequence of str
        Lines before the tables (after the title) and at the end.

    Returns
    -------
    str
    """
    summary = summarize(results)
    all_estimators = list(dict.fromkeys(summary["estimator"]))
    groups = {"all": all_estimators} if groups is None else groups
    controls = {} if controls is None else controls
    regression = set(summary["metric"]) == {"rmse"}
    lines = [f"# {title}", ""] + list(preamble)
    if preamble:
        lines.append("")
    lines += ["## Protocol per data set", "",
              "| data set | protocol | features | training rows (mean) | splits |",
              "|---|---|---:|---:|---:|"]
    for dataset, group in summary.groupby("dataset", sort=False):
        first = group.iloc[0]
        lines.append(f"| {dataset} | {first['protocol']} | {first['n_features']} | "
                     f"{first['n_train']:.0f} | {int(group['n_splits'].max())} |")
    lines.append("")
    for gname, estimators in groups.items():
        estimators = [e for e in estimators if e in all_estimators]
        if not estimators:
            continue
        lines += [f"## {gname[:1].upper()}{gname[1:]}", ""]
        shown = measures.get(gname, _DEFAULT_MEASURES) if isinstance(measures, dict) \
            else measures
        for measure in shown:
            key = "rmse" if (measure == "accuracy" and regression) else measure
            lines += _measure_section(summary, key, estimators, controls.get(gname), alpha)
    lines += list(closing)
    return "\n".join(lines).rstrip() + "\n"


def write_report(results, out_dir, name, *, plot=True, **kwargs):
    """Write ``<name>.csv`` (per split), ``<name>_summary.csv``, ``<name>.md`` and ``<name>.png``.

    Parameters
    ----------
    results : pandas.DataFrame
    out_dir : str or path-like
        Created if missing.
    name : str
        Base name of the files.
    plot : bool, default=True
        Also draw :func:`plot_accuracy_vs_size` (needs matplotlib).
    **kwargs
        Passed to :func:`markdown_report`.

    Returns
    -------
    dict
        Paths of the written files by kind (``"results"``, ``"summary"``,
        ``"markdown"``, ``"plot"``).
    """
    os.makedirs(out_dir, exist_ok=True)
    paths = {"results": os.path.join(out_dir, f"{name}.csv"),
             "summary": os.path.join(out_dir, f"{name}_summary.csv"),
             "markdown": os.path.join(out_dir, f"{name}.md")}
    results.to_csv(paths["results"], index=False)
    summarize(results).to_csv(paths["summary"], index=False, float_format="%.6g")
    text = markdown_report(results, **kwargs)
    if plot:
        from .plotting import plot_accuracy_vs_size

        paths["plot"] = os.path.join(out_dir, f"{name}.png")
        fig = plot_accuracy_vs_size(results, groups=kwargs.get("groups"))
        fig.savefig(paths["plot"], dpi=110, bbox_inches="tight")
        import matplotlib.pyplot as plt

        plt.close(fig)
        text = text.rstrip() + f"\n\n![Accuracy against number of leaves]({name}.png)\n"
    with open(paths["markdown"], "w", encoding="utf-8") as fh:
        fh.write(text)
    return paths
