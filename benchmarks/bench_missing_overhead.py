"""What missing values cost: fit and ``apply`` times without NaN, with 10 % and 30 % NaN.

``BivariateTreeClassifier(max_depth=8, n_jobs=1)`` with the splitters that handle
missing values is fitted on ``make_classification`` (20,000 x 10 by default);
each fit and each ``apply`` of the training rows is timed ``--repeat`` times and
the least wall time is reported (``time.perf_counter``), with the leaves and the
training accuracy.

The rows without NaN measure the cost of supporting missing values on data that
has none: run the script once on this checkout and once with ``PYTHONPATH``
pointing at the ``src`` of the commit before missing values were supported, and
compare (``--label`` names each run in the table; ``--fractions 0`` runs only
the data without NaN, which older code requires)::

    python benchmarks/bench_missing_overhead.py --label "missing values" \\
        --out benchmarks/results/bench_missing_overhead.md
    PYTHONPATH=/path/to/older/src python benchmarks/bench_missing_overhead.py \\
        --fractions 0 --label before --append --out benchmarks/results/bench_missing_overhead.md

Run on an otherwise idle machine; ``--rows 2000 --repeat 1 --out /tmp/x.md`` is a
quick check that the script runs.
"""

import argparse
import time

import numpy as np
from sklearn.datasets import make_classification

from bivtree import BivariateTreeClassifier
from bivtree.experiments.machine import machine_description

SPLITTERS = ("univariate", "orientations", "auto")


def best_time(function, repeat):
    """Least wall seconds of ``repeat`` calls, and the last result."""
    best, result = np.inf, None
    for _ in range(repeat):
        t0 = time.perf_counter()
        result = function()
        best = min(best, time.perf_counter() - t0)
    return best, result


def rows_for(X, y, fraction, splitter, repeat, label):
    est = BivariateTreeClassifier(splitter=splitter, max_depth=8, n_jobs=1)
    est.fit(X[:300], y[:300])  # compiles outside the timing
    fit_s, est = best_time(lambda: est.fit(X, y), repeat)
    apply_s, _ = best_time(lambda: est.apply(X), max(repeat, 5))
    return (f"| {label} | {splitter} | {fraction:.0%} | {fit_s:.3f} | {apply_s * 1e3:.2f} | "
            f"{est.get_n_leaves()} | {est.score(X, y):.4f} |")


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--rows", type=int, default=20_000)
    parser.add_argument("--features", type=int, default=10)
    parser.add_argument("--fractions", type=float, nargs="+", default=[0.0, 0.1, 0.3])
    parser.add_argument("--repeat", type=int, default=5)
    parser.add_argument("--label", default="this checkout")
    parser.add_argument("--out", default=None)
    parser.add_argument("--append", action="store_true", help="add rows to --out's table")
    args = parser.parse_args()
    X0, y = make_classification(n_samples=args.rows, n_features=args.features,
                                n_informative=6, random_state=0)
    rows = []
    for fraction in args.fractions:
        X = X0.copy()
        if fraction > 0:
            X[np.random.default_rng(1).uniform(size=X.shape) < fraction] = np.nan
        for splitter in SPLITTERS:
            rows.append(rows_for(X, y, fraction, splitter, args.repeat, args.label))
            print(rows[-1], flush=True)
    header = ["| run | splitter | NaN | fit (s) | apply (ms) | leaves | training accuracy |",
              "| --- | --- | --- | --- | --- | --- | --- |"]
    if args.out is None:
        return
    if args.append:
        with open(args.out, "a", encoding="utf-8") as fh:
            fh.write("\n".join(rows) + "\n")
        return
    text = ["# Missing values: fit and apply times", "",
            f"`python benchmarks/bench_missing_overhead.py`, {args.rows:,} x {args.features} "
            f"`make_classification` rows, max_depth=8, n_jobs=1, least of {args.repeat} "
            "runs. Machine: " + machine_description(), "", *header, *rows]
    with open(args.out, "w", encoding="utf-8") as fh:
        fh.write("\n".join(text) + "\n")


if __name__ == "__main__":
    main()
