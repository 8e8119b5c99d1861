"""Prediction throughput: ONNX Runtime, the exported Python function and ``predict``.

A ``BivariateTreeClassifier(max_depth=8)`` is fitted on the first 20,000 rows of
``make_classification`` (10^6 x 18 by default), then the classes of all rows are
predicted by

* the :func:`bivtree.export_onnx` model in ONNX Runtime, one session each with
  1 intra-op thread and with ONNX Runtime's default (every core), fed in batches
  of ``--batch`` rows (the graph holds rows x decision nodes intermediates, see
  export_onnx's docstring);
* the :func:`bivtree.export_python` function called row by row on the first
  ``--python-rows`` rows; when that is fewer than all rows, its time for all rows
  is extrapolated linearly and the table says so;
* ``estimator.predict`` with ``n_jobs=1`` and ``n_jobs=-1``.

Each method's labels are checked against ``predict``'s before it is timed. Wall
seconds (``time.perf_counter``) and CPU seconds of this process
(``time.process_time``, all threads) are reported with rows per second.

Run from the repository root, on an otherwise idle machine::

    python benchmarks/bench_predict_throughput.py [--rows 1000000] [--batch 50000]
        [--python-rows 100000] [--out benchmarks/results/bench_predict_throughput.md]

``--rows 10000 --out /tmp/throughput.md`` is a quick check that the script runs.
"""

import argparse
import platform
import time

import numpy as np
from sklearn.datasets import make_classification

from bivtree import BivariateTreeClassifier, export_onnx, export_python
from bivtree.experiments.machine import machine_description, machine_load

N_FEATURES = 18
N_FIT = 20_000


def timed(function):
    """``(result, wall seconds, CPU seconds)`` of one call."""
    wall0, cpu0 = time.perf_counter(), time.process_time()
    result = function()
    return result, time.perf_counter() - wall0, time.process_time() - cpu0


def onnx_predictor(model, threads, batch):
    """A function predicting labels with one ONNX Runtime session, ``batch`` rows a call."""
    import onnxruntime as ort

    options = ort.SessionOptions()
    options.intra_op_num_threads = threads  # 0: ONNX Runtime's default
    session = ort.InferenceSession(model.SerializeToString(), options,
                                   providers=["CPUExecutionProvider"])

    def predict(X):
        return np.concatenate([session.run(["label"], {"X": X[start:start + batch]})[0]
                               for start in range(0, len(X), batch)])

    return predict


def python_predictor(clf):
    """The exported function applied to each row of a list of lists."""
    namespace = {}
    exec(export_python(clf), namespace)  # noqa: S102
    predict_row = namespace["predict_row"]

    def predict(X):
        return np.array([predict_row(row) for row in X.tolist()])

    return predict


def estimator_predictor(clf, n_jobs):
    """``clf.predict`` with ``n_jobs`` threads."""

    def predict(X):
        clf.set_params(n_jobs=n_jobs)
        return clf.predict(X)

    return predict


def measure(name, predict, X, expected, n_total):
    """One table row: checks the labels, times the call, extrapolates to ``n_total`` rows."""
    labels = predict(X[: min(len(X), 1000)])  # first call outside the timing (warm-up)
    if not np.array_equal(labels, expected[: len(labels)]):
        raise AssertionError(f"{name}: labels differ from predict's")
    labels, wall, cpu = timed(lambda: predict(X))
    if not np.array_equal(labels, expected[: len(X)]):
        raise AssertionError(f"{name}: labels differ from predict's")
    factor = n_total / len(X)
    note = "" if factor == 1 else f" (timed on {len(X):,} rows, x{factor:g})"
    row = (f"| {name}{note} | {n_total:,} | {wall * factor:.3f} | {cpu * factor:.3f} | "
           f"{len(X) / wall:,.0f} |")
    print(row, flush=True)
    return row


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--rows", type=int, default=1_000_000)
    parser.add_argument("--batch", type=int, default=50_000,
                        help="rows per ONNX Runtime call")
    parser.add_argument("--python-rows", type=int, default=100_000,
                        help="rows the exported Python function is timed on")
    parser.add_argument("--max-depth", type=int, default=8)
    parser.add_argument("--out", default="benchmarks/results/bench_predict_throughput.md",
                        help="Markdown file for the table ('' to only print)")
    args = parser.parse_args()

    X, y = make_classification(n_samples=args.rows, n_features=N_FEATURES, n_informative=10,
                               n_classes=3, random_state=0)
    n_fit = min(N_FIT, args.rows)
    clf = BivariateTreeClassifier(max_depth=args.max_depth).fit(X[:n_fit], y[:n_fit])
    tree = clf.tree_
    expected = clf.predict(X)
    model = export_onnx(clf)

    title = (f"# Prediction throughput ({args.rows:,} x {N_FEATURES}, "
             f"BivariateTreeClassifier(max_depth={args.max_depth}) fitted on {n_fit:,} rows)")
    described = (f"Tree: {tree.node_count} nodes, {tree.n_leaves} leaves, depth "
                 f"{tree.max_depth}, {int(np.sum(tree.n_node_features == 2))} bivariate "
                 f"decision nodes. ONNX Runtime is fed {args.batch:,} rows a call; every "
                 "method's labels equal `predict`'s.")
    machine = platform.uname()
    lines = [title,
             "",
             f"Machine: {machine_description()}",
             f"`uname -a`: {' '.join(v for v in machine if v)}",
             f"`uptime` before: {machine_load()}",
             "",
             described,
             "",
             "| method | rows | wall (s) | CPU (s) | rows / s |",
             "| --- | ---: | ---: | ---: | ---: |"]
    print("\n".join(lines), flush=True)
    methods = [
        ("ONNX Runtime, 1 thread", onnx_predictor(model, 1, args.batch), X),
        ("ONNX Runtime, default threads", onnx_predictor(model, 0, args.batch), X),
        ("export_python, row by row", python_predictor(clf), X[: args.python_rows]),
        ("predict, n_jobs=1", estimator_predictor(clf, 1), X),
        ("predict, n_jobs=-1", estimator_predictor(clf, -1), X),
    ]
    for name, predict, rows in methods:
        lines.append(measure(name, predict, rows, expected, args.rows))
    lines += ["", f"`uptime` after: {machine_load()}", ""]
    if args.out:
        with open(args.out, "w", encoding="utf-8") as fh:
            fh.write("\n".join(lines))
        print(f"written to {args.out}")


if __name__ == "__main__":
    main()
