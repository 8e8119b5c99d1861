"""What categorical columns cost the default search: fits with and without indicator pairs.

The default splitter ``"auto"`` searches category sets at categorical nodes and,
with ``category_pairs`` (on by default), also pairs the indicators of category
sets with the numeric features and with each other (``x + w * [c in S] <= t``).
This script times both on synthetic tables of ``--rows`` rows: 10 numeric
columns (``make_classification``, 6 informative) and three categorical columns
of 3, 8 and 20 categories whose categories shift the class boundary, fitted
unpruned with ``BivariateTreeClassifier(n_jobs=1)`` and with
``splitter_options={"category_pairs": False}``, and next to scikit-learn's
``DecisionTreeClassifier`` on the one-hot encoded table. Per fit: CPU and wall
seconds (the least of ``--repeat`` fits, one thread), leaves, and the accuracy
on a quarter as many further rows of the same distribution.

Usage (an idle machine)::

    python benchmarks/bench_categorical_cost.py --out benchmarks/results/bench_categorical_cost.md

``--rows 2000 --repeat 1`` is a quick check that the script runs.
"""

import argparse
import os
import time

os.environ.setdefault("OMP_NUM_THREADS", "1")  # before numpy and numba load

import numpy as np
import pandas as pd
from sklearn.compose import ColumnTransformer
from sklearn.datasets import make_classification
from sklearn.pipeline import make_pipeline
from sklearn.preprocessing import OneHotEncoder
from sklearn.tree import DecisionTreeClassifier

from bivtree import BivariateTreeClassifier
from bivtree.experiments.machine import machine_description, machine_load

#: categories of the three categorical columns
CARDINALITIES = (3, 8, 20)
TOOLS = ("auto (category pairs)", "auto (category sets only)", "sklearn (one-hot)")


def make_table(n, seed):
    """``n`` rows: 10 numeric columns and three categorical ones, and their labels.

    Each categorical column draws a random shift per category, added to the
    score whose sign is the class (so a category moves the numeric boundary).
    """
    X, _ = make_classification(n_samples=n, n_features=10, n_informative=6, n_redundant=2,
                               random_state=seed)
    rng = np.random.default_rng(seed)
    shift_rng = np.random.default_rng(12345)  # the same shifts for every table
    frame = pd.DataFrame(X, columns=[f"x{j}" for j in range(10)])
    score = X[:, 0] - 0.5 * X[:, 1] + 0.3 * X[:, 2]
    for k in CARDINALITIES:
        codes = rng.integers(0, k, n)
        shifts = shift_rng.normal(scale=1.0, size=k)
        score = score + shifts[codes]
        frame[f"c{k}"] = pd.Categorical([f"v{c}" for c in codes],
                                        categories=[f"v{c}" for c in range(k)])
    y = (score + rng.normal(scale=0.3, size=n) > 0).astype(int)
    return frame, y


def make_tool(tool, frame):
    if tool == TOOLS[0]:
        return BivariateTreeClassifier(n_jobs=1)
    if tool == TOOLS[1]:
        return BivariateTreeClassifier(n_jobs=1, splitter_options={"category_pairs": False})
    categorical = [c for c in frame.columns if isinstance(frame[c].dtype, pd.CategoricalDtype)]
    encode = ColumnTransformer([("categories", OneHotEncoder(sparse_output=False), categorical)],
                               remainder="passthrough", sparse_threshold=0.0)
    return make_pipeline(encode, DecisionTreeClassifier(random_state=0))


def n_leaves(model):
    est = model[-1] if hasattr(model, "steps") else model
    return int(est.get_n_leaves())


def time_fits(tool, frame, y, repeat):
    """Least CPU and wall seconds of ``repeat`` fits, and the last model."""
    best_cpu = best_wall = np.inf
    model = None
    for _ in range(repeat):
        model = make_tool(tool, frame)
        c0, w0 = time.process_time(), time.perf_counter()
        model.fit(frame, y)
        best_cpu = min(best_cpu, time.process_time() - c0)
        best_wall = min(best_wall, time.perf_counter() - w0)
    return best_cpu, best_wall, model


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--rows", type=int, nargs="+", default=[10_000, 100_000])
    parser.add_argument("--repeat", type=int, default=3)
    parser.add_argument("--out", help="write the Markdown report here (default: print it)")
    args = parser.parse_args(argv)
    # compile the kernels (both searches) before any timing
    warm, warm_y = make_table(400, seed=99)
    for tool in TOOLS[:2]:
        make_tool(tool, warm).fit(warm, warm_y)
    lines = ["# What categorical columns cost the default search", "",
             ("`python benchmarks/bench_categorical_cost.py` (see its docstring): 10 numeric "
             f"columns and categorical ones of {', '.join(map(str, CARDINALITIES))} "
             "categories; one thread; unpruned trees; least of "
             f"{args.repeat} fits."), "",
             f"Machine: {machine_description()}", "",
             f"Load before: `{machine_load()}`", "",
             "| rows | tool | CPU s | wall s | leaves | hold-out accuracy | CPU / category sets only |",
             "| ---: | --- | ---: | ---: | ---: | ---: | ---: |"]
    for n in args.rows:
        # one draw, split: the held-out rows come from the same distribution
        table, labels = make_table(n + n // 4, seed=0)
        frame, y = table.iloc[:n], labels[:n]
        test, test_y = table.iloc[n:], labels[n:]
        cpu_sets = None
        rows = []
        for tool in TOOLS:
            cpu, wall, model = time_fits(tool, frame, y, args.repeat)
            if tool == TOOLS[1]:
                cpu_sets = cpu
            accuracy = float(np.mean(model.predict(test) == test_y))
            rows.append((tool, cpu, wall, n_leaves(model), accuracy))
        for tool, cpu, wall, leaves, accuracy in rows:
            lines.append(f"| {n:,} | {tool} | {cpu:.2f} | {wall:.2f} | {leaves} | "
                         f"{accuracy:.4f} | {cpu / cpu_sets:.2f} |")
        print("\n".join(lines[-3:]), flush=True)
    lines += ["", f"Load after: `{machine_load()}`", ""]
    report = "\n".join(lines)
    if args.out:
        with open(args.out, "w", encoding="utf-8") as fh:
            fh.write(report)
    else:
        print(report)


if __name__ == "__main__":
    main()
