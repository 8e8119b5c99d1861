"""The scans' argsort: the 16-bit key radix sort against the float32 one and ``np.argsort``.

Every split search (the greedy trees' pair searches, TAO's node problems) sorts
a projection of a node's samples; :func:`bivtree._kernels.sorting.argsort_values`
is that sort. This script times it, the float32-key radix sort it falls back to
(:func:`~bivtree._kernels.sorting.float32_radix_argsort`, the sort before) and
numba's ``np.argsort`` (quicksort) inside one compiled loop, on one thread, on
arrays of 100 to 9,500 values:

* ``normal``: standard normal values;
* ``magic bivariate``: ``x0 + 0.7 x3`` of rows drawn from KEEL's magic (skewed,
  heavy-tailed columns, as the projections of a bivariate search);
* ``magic column``: magic's column 1 alone (the most skewed);
* ``ties``: 5 distinct values;
* ``slopes``: ratios of two standard normal values (heavy tails, as the
  critical slopes of TAO's exact pair sweep, which sorts them with the float32
  sort directly).

Every sort's result is checked to order the values before it is timed. Median of
5 timings of ``max(20, 2e6 / n)`` sorts each, microseconds per sort.

Run from the repository root, on an otherwise idle machine::

    python benchmarks/bench_sorting.py [--out benchmarks/results/bench_sorting.md]
"""

import argparse
import platform
import time

import numpy as np
from numba import njit

from bivtree._kernels.sorting import argsort_values, float32_radix_argsort
from bivtree.datasets import load_keel
from bivtree.experiments.machine import machine_description, machine_load

SIZES = (100, 300, 1500, 4000, 9500)


@njit
def numpy_argsort(values):
    return np.argsort(values)


@njit
def repeat(sort, values, reps):
    total = 0
    for _ in range(reps):
        total += sort(values)[0]
    return total


def cases():
    rng = np.random.default_rng(0)
    X, _ = load_keel("magic")
    for n in SIZES:
        rows = rng.choice(X.shape[0], n, replace=False)
        yield "normal", rng.normal(size=n)
        yield "magic bivariate", X[rows, 0] + 0.7 * X[rows, 3]
        yield "magic column", X[rows, 1].copy()
        yield "ties", rng.integers(0, 5, size=n).astype(float)
        yield "slopes", rng.normal(size=n) / rng.normal(size=n)


def per_sort(sort, values):
    """Median microseconds per sort of ``values``, after checking the order."""
    order = sort(values)
    if not np.all(np.diff(values[order]) >= 0):
        raise AssertionError(f"{sort} does not sort")
    reps = max(20, 2_000_000 // values.size)
    repeat(sort, values, 2)
    times = []
    for _ in range(5):
        t0 = time.perf_counter()
        repeat(sort, values, reps)
        times.append((time.perf_counter() - t0) / reps)
    return 1e6 * float(np.median(times))


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--out", help="write the report here (markdown)")
    args = parser.parse_args()
    machine = platform.uname()
    lines = ["# The scans' argsort: microseconds per sort, one thread", "",
             f"Machine: {machine_description()}",
             f"`uname -a`: {' '.join(v for v in machine if v)}",
             f"`uptime` before: {machine_load()}", "",
             ("Command: `python benchmarks/bench_sorting.py --out "
             "benchmarks/results/bench_sorting.md` (see its docstring)."), "",
             ("| values | data | argsort_values (16-bit keys) | float32 radix | np.argsort "
             "| float32 / 16-bit |"),
             "| ---: | --- | ---: | ---: | ---: | ---: |"]
    print("\n".join(lines), flush=True)
    cpu0 = time.process_time()
    for name, values in cases():
        new, old, quick = (per_sort(sort, values) for sort in
                           (argsort_values, float32_radix_argsort, numpy_argsort))
        lines.append(f"| {values.size:,} | {name} | {new:.2f} | {old:.2f} | {quick:.2f} "
                     f"| {old / new:.2f} |")
        print(lines[-1], flush=True)
    lines += ["", f"CPU seconds of the timings: {time.process_time() - cpu0:.1f}.",
              f"`uptime` after: {machine_load()}", ""]
    if args.out:
        with open(args.out, "w", encoding="utf-8") as fh:
            fh.write("\n".join(lines))
        print(f"written to {args.out}")


if __name__ == "__main__":
    main()
