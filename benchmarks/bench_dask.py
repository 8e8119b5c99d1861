"""One bivariate tree on a Dask cluster (bivtree.dask) from Parquet files, against an in-memory fit.

The data: ``make_classification(n_samples=ROWS + TEST, n_features=18,
n_informative=10, flip_y=0.2, random_state=0)`` (the shape of
``bench_scale.py``'s data), written by a separate process to Parquet files of
``--partition-rows`` rows each (``train/part-*.parquet``) and one file of the
last ``TEST`` rows (``test.parquet``), in ``--folder`` (a temporary folder by
default, removed afterwards). ``TEST`` is ``max(10,000, ROWS / 50)``.

The fit: a ``distributed.LocalCluster`` of two worker processes, one thread
and ``memory_limit="3GB"`` each; ``DaskBivariateTreeClassifier(local_rows=...)``
fitted from ``dask.dataframe.read_parquet`` of the training files. Reported:
wall seconds of the fit, the client's CPU seconds, each worker's CPU seconds
and peak resident memory (a thread in every worker samples its process's RSS
every 0.1 s during the fit), the passes over the data, the levels searched
from histograms, leaves, depth, and the test accuracy on ``test.parquet``
(predicted on the cluster). Against it: ``BivariateTreeClassifier()`` fitted in
this process on the first ``--sample-rows`` training rows (wall and CPU
seconds, leaves, the same test accuracy).

"On paper": what the same fit costs on 100 workers and 10^9 rows, from the
implementation's constants (``bivtree.dask``'s defaults, histogram shapes,
``SPLIT_EVERY``) and this run's levels: bytes of every histogram pass's partial
results (one per partition, summed by a tree reduction) and of the client's
sums, the passes, the data read per pass, and the rows gathered for the
in-memory subtrees.

Run from the repository root on an idle machine (the full size takes tens of
minutes and about 7 GB of disk and memory)::

    python benchmarks/bench_dask.py --rows 10000000 --out benchmarks/results/bench_dask.md

Verify the script end to end at a small size first::

    python benchmarks/bench_dask.py --rows 1000000
"""

import argparse
import math
import os
import shutil
import subprocess
import sys
import tempfile
import threading
import time

N_FEATURES = 18
#: the cluster of the benchmark
N_WORKERS = 2
MEMORY_LIMIT = "3GB"
#: the machines and rows of the section "on paper"
PAPER_WORKERS = 100
PAPER_ROWS = 10**9
PAPER_PARTITION_ROWS = 1_000_000


def test_rows(rows):
    return max(10_000, rows // 50)


def write_parquet(folder, rows, partition_rows):
    """Write the data (in a process of its own: its memory is gone when the fit starts)."""
    import numpy as np
    import pandas as pd
    from sklearn.datasets import make_classification

    X, y = make_classification(n_samples=rows + test_rows(rows), n_features=N_FEATURES,
                               n_informative=10, flip_y=0.2, random_state=0)
    columns = [f"x{j}" for j in range(N_FEATURES)]
    os.makedirs(os.path.join(folder, "train"), exist_ok=True)
    for k, start in enumerate(range(0, rows, partition_rows)):
        end = min(rows, start + partition_rows)
        frame = pd.DataFrame(X[start:end], columns=columns)
        frame["y"] = y[start:end].astype(np.int64)
        frame.to_parquet(os.path.join(folder, "train", f"part-{k:05d}.parquet"), index=False)
    frame = pd.DataFrame(X[rows:], columns=columns)
    frame["y"] = y[rows:].astype(np.int64)
    frame.to_parquet(os.path.join(folder, "test.parquet"), index=False)


# ------------------------------------------------------------- worker probes
def _start_probe(dask_worker):
    """In a worker: sample the process's RSS every 0.1 s until :func:`_stop_probe` (the state
    lives on the worker: these functions are sent by value, their globals copied)."""
    import psutil

    process = psutil.Process()
    probe = {"rss": process.memory_info().rss, "running": True}
    dask_worker.bench_probe = probe

    def sample():
        while probe["running"]:
            probe["rss"] = max(probe["rss"], process.memory_info().rss)
            time.sleep(0.1)

    threading.Thread(target=sample, daemon=True, name="bench-rss").start()
    times = process.cpu_times()
    return times.user + times.system


def _stop_probe(dask_worker):
    """In a worker: the peak RSS seen, and the process's CPU seconds so far."""
    import psutil

    probe = getattr(dask_worker, "bench_probe", {"rss": 0})
    probe["running"] = False
    times = psutil.Process().cpu_times()
    return probe["rss"], times.user + times.system


# ---------------------------------------------------------------------- fits
def dask_fit(folder, local_rows, verbose):
    import dask.dataframe as dd
    import distributed

    from bivtree.dask import DaskBivariateTreeClassifier

    with distributed.LocalCluster(n_workers=N_WORKERS, threads_per_worker=1,
                                  memory_limit=MEMORY_LIMIT, processes=True,
                                  dashboard_address=None) as cluster, \
            distributed.Client(cluster) as client:
        frame = dd.read_parquet(os.path.join(folder, "train"))
        X, y = frame.drop(columns="y"), frame["y"]
        # load the kernels in the workers (from numba's cache) before the timer
        warm = dd.read_parquet(os.path.join(folder, "test.parquet"))
        DaskBivariateTreeClassifier(local_rows=500, max_depth=2).fit(
            warm.drop(columns="y").partitions[0], warm["y"].partitions[0])
        cpu_before = client.run(_start_probe)
        cpu, wall = time.process_time(), time.perf_counter()
        model = DaskBivariateTreeClassifier(local_rows=local_rows, verbose=verbose).fit(X, y)
        wall, cpu = time.perf_counter() - wall, time.process_time() - cpu
        probes = client.run(_stop_probe)
        test = dd.read_parquet(os.path.join(folder, "test.parquet"))
        accuracy = model.score(test.drop(columns="y"), test["y"])
        workers = [{"address": address, "peak_rss_gb": probes[address][0] / 1e9,
                    "cpu_s": probes[address][1] - cpu_before.get(address, 0.0)}
                   for address in sorted(probes)]
        return {"wall_s": wall, "client_cpu_s": cpu, "workers": workers,
                "passes": model.n_passes_, "levels": model.levels_,
                "local_wait_s": model.local_wait_s_, "leaves": model.get_n_leaves(),
                "depth": model.get_depth(), "accuracy": accuracy,
                "partitions": frame.npartitions}


def memory_fit(folder, sample_rows):
    import numpy as np
    import pandas as pd

    from bivtree import BivariateTreeClassifier

    parts, n = [], 0
    for name in sorted(os.listdir(os.path.join(folder, "train"))):
        if n >= sample_rows:
            break
        part = pd.read_parquet(os.path.join(folder, "train", name))
        parts.append(part.iloc[:sample_rows - n])
        n += len(parts[-1])
    sample = pd.concat(parts, ignore_index=True)
    test = pd.read_parquet(os.path.join(folder, "test.parquet"))
    X, y = sample.drop(columns="y").to_numpy(), sample["y"].to_numpy()
    BivariateTreeClassifier().fit(X[:300], y[:300])  # kernels loaded before the timer
    cpu, wall = time.process_time(), time.perf_counter()
    model = BivariateTreeClassifier().fit(X, y)
    wall, cpu = time.perf_counter() - wall, time.process_time() - cpu
    accuracy = float(np.mean(model.predict(test.drop(columns="y").to_numpy())
                             == test["y"].to_numpy()))
    return {"rows": len(sample), "wall_s": wall, "cpu_s": cpu,
            "leaves": model.get_n_leaves(), "accuracy": accuracy}


# ------------------------------------------------------------------ on paper
def on_paper(levels, rows):
    """Histogram bytes and passes of the fit on PAPER_WORKERS workers and PAPER_ROWS rows."""
    from bivtree.dask import MAX_PASS_BYTES, SPLIT_EVERY, DaskBivariateTreeClassifier
    from bivtree.splitters.auto import focused_pairs

    p = DaskBivariateTreeClassifier().get_params()
    n_stats = 2  # two classes: a row count per class in every bin
    width = p["max_bins"] + 1  # bins of a projection, and the bin of missing values
    feature_width = max(p["max_bins"], 64) + 1  # numeric bins or category codes
    pairs = focused_pairs(N_FEATURES, p["max_pair_features"], p["n_anchors"])
    per_node = {
        "feature histograms": N_FEATURES * (feature_width * n_stats + 2) * 8,
        "coarse directions": pairs * p["n_coarse"] * width * n_stats * 8,
        "refined directions": p["n_refine"] * p["n_refine_angles"] * width * n_stats * 8,
        "fine bins": 2 * width * n_stats * 8,
    }
    passes_per_level = 3 + p["n_rounds"]
    partitions = PAPER_ROWS // PAPER_PARTITION_ROWS
    # every partial result moves once to its reducer (at worst across machines), every
    # reducer's sum once more: partitions * (1 + 1/(SPLIT_EVERY - 1)) results per pass
    moved = partitions * (1 + 1 / (SPLIT_EVERY - 1))
    local_rows = p["local_rows"]
    # this run's histogram levels, plus one per doubling of the rows (where the tree is
    # balanced a level halves its nodes' rows; a chain of small cuts adds levels alike)
    hist_levels = sum(1 for level in levels if level["open_nodes"])
    paper_levels = hist_levels + math.ceil(math.log2(PAPER_ROWS / rows))
    max_open = PAPER_ROWS // local_rows
    lines = [(f"On {PAPER_WORKERS} workers, {PAPER_ROWS:,} rows of {N_FEATURES} features in "
             f"{partitions:,} partitions of {PAPER_PARTITION_ROWS:,} rows, with the defaults "
             f"(`local_rows={local_rows:,}`, `max_bins={p['max_bins']}`, "
             f"{pairs} screened pairs per node at {p['n_coarse']} coarse directions, "
             f"`n_refine={p['n_refine']}` pairs x `n_refine_angles={p['n_refine_angles']}` "
             f"x `n_rounds={p['n_rounds']}`) and two classes:"), "",
             ("| pass | histogram bytes per open node | per partition, at most "
             f"{max_open:,} open nodes | moved per pass (all partitions) |"),
             "| --- | ---: | ---: | ---: |"]
    for name, size in per_node.items():
        lines.append(f"| {name} | {size / 1e3:,.1f} kB | {size * max_open / 1e9:,.2f} GB | "
                     f"{size * max_open * moved / 1e12:,.2f} TB |")
    level_bytes = sum(per_node.values()) + (p["n_rounds"] - 1) * per_node["refined directions"]
    # at most 2^level open nodes, at most max_open; the projection passes of a level take
    # groups of nodes whose histograms fit MAX_PASS_BYTES per partition
    opens = [min(2**level, max_open) for level in range(paper_levels)]
    passes = 2 + sum(1 + math.ceil(n * per_node["coarse directions"] / MAX_PASS_BYTES)
                     + p["n_rounds"] * math.ceil(n * per_node["refined directions"]
                                                 / MAX_PASS_BYTES)
                     + math.ceil(n * per_node["fine bins"] / MAX_PASS_BYTES) for n in opens)
    worst = sum(opens) * level_bytes
    data_bytes = PAPER_ROWS * (N_FEATURES + 2) * 8
    lines += ["",
              (f"- passes: 1 scan, then {passes_per_level} per level with open nodes (features, "
              f"coarse, {p['n_rounds']} refining, fine), the projection passes repeated for "
              f"groups of nodes when a level's histograms pass {MAX_PASS_BYTES / 2**20:.0f} MiB "
              "per partition, the gathering of the last small nodes and the importances; this "
              f"run had {hist_levels} histogram levels at {rows:,} rows, so about "
              f"{paper_levels} at {PAPER_ROWS:,}: about {passes} passes;"),
              (f"- histograms: {level_bytes / 1e6:,.2f} MB per open node and level (all passes); "
              f"at most 2^level open nodes and at most {max_open:,} (each holds more than "
              f"`local_rows` rows): each partition computes at most {worst / 1e9:,.1f} GB of "
              "histograms over the whole fit (dense: every open node in every partition); "
              "the tree reduction moves each partition's result once and each partial sum "
              f"once more, {moved:,.0f} results of that size per pass at most (fewer where a "
              "reducer runs on the worker of its inputs), and the client receives one sum "
              "per pass;"),
             (f"- data read per pass: {PAPER_ROWS * N_FEATURES * 8 / 1e9:,.0f} GB of float64 "
              f"features ({PAPER_ROWS * N_FEATURES * 8 / 1e9 / PAPER_WORKERS:,.1f} GB per "
              "worker, from memory with `persist=True`), the routes "
              f"{PAPER_ROWS * 8 / 1e9 / PAPER_WORKERS:,.1f} GB per worker;"),
              (f"- gathered for the in-memory subtrees: every row once at most, "
              f"{data_bytes / 1e9:,.0f} GB over the network in all "
              f"({data_bytes / 1e9 / PAPER_WORKERS:,.1f} GB per worker), in pieces of at most "
              f"`local_rows` = {local_rows * (N_FEATURES + 2) * 8 / 1e6:,.0f} MB per subtree.")]
    return "\n".join(lines)


def report(args, dask_result, memory_result, load_before, load_after):
    from bivtree.experiments.machine import machine_description

    lines = ["# One tree on a Dask cluster: bivtree.dask from Parquet files", "",
             f"`python benchmarks/bench_dask.py {' '.join(sys.argv[1:])}` (see its docstring).",
             "", f"Machine: {machine_description()}", "", f"Load before: `{load_before}`", "",
             f"Load after: `{load_after}`", "",
             (f"## The fit ({args.rows:,} rows x {N_FEATURES} features, "
             f"{dask_result['partitions']} Parquet partitions, {N_WORKERS} workers of "
             f"{MEMORY_LIMIT})"), "",
             "| fit | rows | wall s | CPU s | passes | leaves | depth | test accuracy |",
             "| --- | ---: | ---: | ---: | ---: | ---: | ---: | ---: |"]
    worker_cpu = sum(w["cpu_s"] for w in dask_result["workers"])
    lines.append(f"| DaskBivariateTreeClassifier(local_rows={args.local_rows:,}) | "
                 f"{args.rows:,} | {dask_result['wall_s']:.1f} | {worker_cpu:.1f} workers + "
                 f"{dask_result['client_cpu_s']:.1f} client | {dask_result['passes']} | "
                 f"{dask_result['leaves']} | {dask_result['depth']} | "
                 f"{dask_result['accuracy']:.4f} |")
    lines.append(f"| BivariateTreeClassifier() in memory | {memory_result['rows']:,} | "
                 f"{memory_result['wall_s']:.1f} | {memory_result['cpu_s']:.1f} | | "
                 f"{memory_result['leaves']} | | {memory_result['accuracy']:.4f} |")
    lines += ["", (f"Test rows: {test_rows(args.rows):,}. Waiting for the in-memory subtrees "
              f"after the last level: {dask_result['local_wait_s']:.1f} s."), "",
              "| worker | peak RSS (GB) | CPU s |", "| --- | ---: | ---: |"]
    lines += [f"| {w['address']} | {w['peak_rss_gb']:.2f} | {w['cpu_s']:.1f} |"
              for w in dask_result["workers"]]
    lines += ["", ("| level | open nodes | their rows | split | small nodes sent | their rows | "
              "passes so far | s so far |"), ("| ---: | ---: | ---: | ---: | ---: | ---: | ---: | "
              "---: |")]
    lines += [f"| {r['level']} | {r['open_nodes']} | {r['rows']:,} | {r['split']} | "
              f"{r['local_nodes']} | {r['local_rows']:,} | {r['passes']} | {r['seconds']:.1f} |"
              for r in dask_result["levels"]]
    lines += ["", "## On paper", "", on_paper(dask_result["levels"], args.rows), ""]
    return "\n".join(lines)


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--rows", type=int, default=10_000_000)
    parser.add_argument("--partition-rows", type=int, default=250_000)
    parser.add_argument("--local-rows", type=int, default=200_000)
    parser.add_argument("--sample-rows", type=int, default=1_000_000)
    parser.add_argument("--folder", help="where to write the Parquet files (default: a "
                        "temporary folder, removed afterwards)")
    parser.add_argument("--verbose", type=int, default=1)
    parser.add_argument("--out")
    parser.add_argument("--write-only", action="store_true", help=argparse.SUPPRESS)
    args = parser.parse_args(argv)
    if args.write_only:
        write_parquet(args.folder, args.rows, args.partition_rows)
        return 0
    from bivtree.experiments.machine import machine_load

    folder = args.folder or tempfile.mkdtemp(prefix="bench_dask_")
    try:
        started = time.perf_counter()
        subprocess.run([sys.executable, __file__, "--write-only", "--folder", folder,
                        "--rows", str(args.rows), "--partition-rows", str(args.partition_rows)],
                       check=True)
        print(f"data written in {time.perf_counter() - started:.1f} s to {folder}", flush=True)
        load_before = machine_load()
        dask_result = dask_fit(folder, args.local_rows, args.verbose)
        print(dask_result, flush=True)
        memory_result = memory_fit(folder, args.sample_rows)
        print(memory_result, flush=True)
        load_after = machine_load()
    finally:
        if not args.folder:
            shutil.rmtree(folder, ignore_errors=True)
    text = report(args, dask_result, memory_result, load_before, load_after)
    print(text)
    if args.out:
        with open(args.out, "w") as fh:
            fh.write(text + "\n")
    return 0


if __name__ == "__main__":
    sys.exit(main())
