"""Missing values in numeric sets: how much of the leaf count is the search, how much the rule.

The numeric sets of ``bench_missing.py`` (``pima``, ``wdbc``, ``vehicle``, ``segment``),
complete and with 10 % and 30 % of their values removed at random (the same holes as
``bench_missing.py``), 5-fold stratified cross-validation (shuffled, ``random_state=0``),
unpruned trees, mean over the folds: leaves and test accuracy of

* bivtree's default search (``"auto"``) and its exhaustive one (``"orientations"``): if
  the default search fell short on tables with holes, the exhaustive one would grow
  fewer leaves;
* bivtree's univariate search (``"univariate"``) and scikit-learn's
  ``DecisionTreeClassifier``: both send a sample missing the node's one feature to a
  learned side, so they should grow about as many leaves.

A bivariate node sends a sample missing either of its two features to one learned side,
so with holes a bivariate rule routes more samples by that side alone than a univariate
one; the table shows how the ratio of bivariate to univariate leaves moves with the rate.
No timings (leaves and accuracy do not depend on the machine).

Run from the repository root (a few minutes)::

    python benchmarks/bench_missing_searches.py --out benchmarks/results/bench_missing_searches.md
"""

import os

os.environ.setdefault("OMP_NUM_THREADS", "1")  # before numpy and numba load

import argparse

import numpy as np
from bench_missing import NUMERIC_SETS, RATES, data_sets, write_or_print
from sklearn.model_selection import StratifiedKFold
from sklearn.tree import DecisionTreeClassifier

from bivtree import BivariateTreeClassifier
from bivtree.datasets import load_keel
from bivtree.experiments.machine import machine_description

MODELS = {
    "auto": lambda: BivariateTreeClassifier(n_jobs=1),
    "orientations": lambda: BivariateTreeClassifier(splitter="orientations", n_jobs=1),
    "univariate": lambda: BivariateTreeClassifier(splitter="univariate", n_jobs=1),
    "sklearn": lambda: DecisionTreeClassifier(random_state=0),
}


def tables(sets):
    """``(label, X, y)``: each set complete, then with the holes of ``bench_missing.py``."""
    for name in sets:
        X, y = load_keel(name, as_frame=True)
        yield f"{name} (complete)", X, y
        yield from data_sets([name], RATES)


def run(X, y, folds):
    """Mean leaves and accuracy per model over the folds."""
    X = X.to_numpy(dtype=float)
    y = y.to_numpy()
    out = {m: ([], []) for m in MODELS}
    for train, test in folds.split(X, y):
        for name, make in MODELS.items():
            est = make().fit(X[train], y[train])
            out[name][0].append(est.get_n_leaves())
            out[name][1].append(np.mean(est.predict(X[test]) == y[test]))
    return {m: (np.mean(v[0]), 100 * np.mean(v[1])) for m, v in out.items()}


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--out", help="write the Markdown report here (default: print it)")
    parser.add_argument("--sets", nargs="+", default=NUMERIC_SETS)
    args = parser.parse_args(argv)
    folds = StratifiedKFold(n_splits=5, shuffle=True, random_state=0)
    lines = ["# Missing values in numeric sets: the search or the rule?", "",
             ("`python benchmarks/bench_missing_searches.py` (see its docstring): 5-fold "
              "stratified cross-validation, unpruned trees, mean leaves / test accuracy (%). "
              "The last column is the default search's leaves over scikit-learn's "
              "(`bench_missing.py`'s target: at most 0.6)."), "",
             "| data set | auto | orientations | univariate | sklearn | auto / sklearn leaves |",
             "|---|---|---|---|---|---|"]
    for label, X, y in tables(args.sets):
        res = run(X, y, folds)
        cells = [f"{res[m][0]:.1f} / {res[m][1]:.1f}" for m in MODELS]
        ratio = res["auto"][0] / res["sklearn"][0]
        lines.append(f"| {label} | " + " | ".join(cells) + f" | {ratio:.2f} |")
        print(lines[-1], flush=True)
    lines += ["", f"Machine: {machine_description()}"]
    write_or_print(lines, args.out)


if __name__ == "__main__":
    main()
