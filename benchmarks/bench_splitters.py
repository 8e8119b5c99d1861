"""Speed of bivtree's split searches next to scikit-learn's CART, in one process.

(a) cost of the root split (``max_depth=1``) per evaluated direction with the
    orientation splitter, against scikit-learn's cost per feature, one thread;
(b) full-tree fit time of ``splitter="univariate"`` against scikit-learn;
(c) speed-up of 2 threads over 1 with the orientation splitter.

Run from the repository root::

    python benchmarks/bench_splitters.py [--quick] [--out benchmarks/results/bench_splitters.md]

Each timing is the best of several repeats after a warm-up fit (which also
compiles the numba kernels), on data with 20 continuous features and a label
that depends on two of them.
"""

import argparse
import sys
import time

import numpy as np
from sklearn.tree import DecisionTreeClassifier

from bivtree import BivariateTreeClassifier
from bivtree.experiments.machine import machine_description


def best_time(estimator, X, y, repeats):
    """Shortest of ``repeats`` wall-clock times of ``estimator.fit(X, y)``."""
    best = np.inf
    for _ in range(repeats):
        t0 = time.perf_counter()
        estimator.fit(X, y)
        best = min(best, time.perf_counter() - t0)
    return best


def make_data(n, d=20, seed=0):
    rng = np.random.default_rng(seed)
    X = rng.normal(size=(n, d))
    y = (X[:, 0] + 0.6 * X[:, 1] + 0.5 * rng.normal(size=n) > 0).astype(int)
    return X, y


def n_directions(d, n_orientations):
    """Projections the orientation splitter sorts and scans at one node."""
    angles = np.pi * np.arange(n_orientations) / n_orientations
    oblique = np.sum((np.abs(np.cos(angles)) > 1e-12) & (np.abs(np.sin(angles)) > 1e-12))
    return d * (d - 1) // 2 * int(oblique) + d


def root_split_cost(sizes, n_orientations, repeats):
    rows = []
    for n in sizes:
        X, y = make_data(n)
        d = X.shape[1]
        sk = DecisionTreeClassifier(max_depth=1, random_state=0)
        bt = BivariateTreeClassifier(max_depth=1, n_orientations=n_orientations, n_jobs=1)
        sk.fit(X, y), bt.fit(X, y)
        reps = max(1, repeats if n < 100_000 else 1)
        t_sk = best_time(sk, X, y, reps * 3)
        t_bt = best_time(bt, X, y, reps)
        per_feature = t_sk / d
        per_direction = t_bt / n_directions(d, n_orientations)
        rows.append((n, per_feature * 1e6, per_direction * 1e6, per_direction / per_feature))
    return rows


def full_tree_univariate(sizes, repeats):
    rows = []
    for n in sizes:
        X, y = make_data(n, seed=1)
        sk = DecisionTreeClassifier(random_state=0)
        bt = BivariateTreeClassifier(splitter="univariate", n_jobs=1)
        sk.fit(X, y), bt.fit(X, y)
        reps = repeats if n < 100_000 else 1
        t_sk = best_time(sk, X, y, reps)
        t_bt = best_time(bt, X, y, reps)
        rows.append((n, bt.get_n_leaves(), sk.get_n_leaves(), t_sk, t_bt, t_bt / t_sk))
    return rows


def thread_speedup(configs, repeats):
    rows = []
    for n, max_depth in configs:
        X, y = make_data(n, seed=2)
        one = BivariateTreeClassifier(max_depth=max_depth, n_jobs=1)
        two = BivariateTreeClassifier(max_depth=max_depth, n_jobs=2)
        one.fit(X, y), two.fit(X, y)
        assert one.tree_ == two.tree_, "1 and 2 threads must give the same tree"
        t1 = best_time(one, X, y, repeats)
        t2 = best_time(two, X, y, repeats)
        rows.append((n, "full" if max_depth is None else max_depth, t1, t2, t1 / t2))
    return rows


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--quick", action="store_true", help="small sizes, one repeat")
    parser.add_argument("--n-orientations", type=int, default=30)
    parser.add_argument("--out", default=None, help="also write the report to this file")
    parser.add_argument("--parts", default="abc",
                        help="which parts to run: any of a, b, c (default: abc)")
    args = parser.parse_args(argv)
    sizes = [1_000, 10_000] if args.quick else [1_000, 10_000, 100_000]
    repeats = 1 if args.quick else 3

    command = "python benchmarks/bench_splitters.py"
    if args.quick:
        command += " --quick"
    if args.parts != "abc":
        command += f" --parts {args.parts}"
    lines = ["# Split search speed: bivtree against scikit-learn", "",
             f"Machine: {machine_description()}", "", f"Command: `{command}`", ""]

    def emit(text=""):
        print(text, flush=True)
        lines.append(text)

    for line in lines:
        print(line)
    if "a" in args.parts:
        root_split_section(emit, sizes, args.n_orientations, repeats)
    if "b" in args.parts:
        full_tree_section(emit, sizes, repeats)
    if "c" in args.parts:
        thread_section(emit, args.quick, repeats)
    if args.out:
        with open(args.out, "w") as fh:
            fh.write("\n".join(lines) + "\n")
    return 0


def root_split_section(emit, sizes, n_orientations, repeats):
    emit(f"## (a) Root split, cost per direction (orientations, H={n_orientations}) "
         "vs scikit-learn per feature, 1 thread, 20 features")
    emit()
    emit("| n | sklearn us/feature | bivtree us/direction | ratio (target <= 1.5) |")
    emit("|---:|---:|---:|---:|")
    for n, f, dcost, r in root_split_cost(sizes, n_orientations, repeats):
        emit(f"| {n} | {f:.1f} | {dcost:.1f} | {r:.2f} |")
    emit()


def full_tree_section(emit, sizes, repeats):
    emit("## (b) Full tree, splitter='univariate' vs scikit-learn, 1 thread, 20 features")
    emit()
    emit("| n | bivtree leaves | sklearn leaves | sklearn s | bivtree s | ratio (target <= 2) |")
    emit("|---:|---:|---:|---:|---:|---:|")
    for n, lb, ls, ts, tb, r in full_tree_univariate(sizes, repeats):
        emit(f"| {n} | {lb} | {ls} | {ts:.3f} | {tb:.3f} | {r:.2f} |")
    emit()


def thread_section(emit, quick, repeats):
    emit("## (c) Orientation splitter, 2 threads against 1 (identical trees checked)")
    emit()
    emit("| n | depth | 1 thread s | 2 threads s | speed-up (target >= 1.6) |")
    emit("|---:|---:|---:|---:|---:|")
    configs = [(1_000, 1), (10_000, 1)] if quick else [(1_000, 1), (10_000, 1),
                                                          (10_000, None)]
    for n, depth, t1, t2, s in thread_speedup(configs, repeats):
        emit(f"| {n} | {depth} | {t1:.3f} | {t2:.3f} | {s:.2f} |")
    emit()


if __name__ == "__main__":
    sys.exit(main())
