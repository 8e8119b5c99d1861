"""bivtree's default search next to its peers, one process, one thread each.

On KEEL data sets of different shapes (5-fold stratified CV, the same folds for
every tool): bivtree's default ``"auto"`` splitter, bivariate CART
(``"orientations"``, 30 directions), the globally optimal bivariate splits
(``"optimal"``, on the sets where it finishes within ``--optimal-limit``
seconds per fit), the PyPI package ``obliquetree`` in its bivariate mode
(``Classifier(use_oblique=True, n_pair=2, max_depth=-1, random_state=0)``), and
scikit-learn's ``DecisionTreeClassifier``: test accuracy, leaves and CPU seconds
per fit (``time.process_time`` of this process; every library runs one thread:
``n_jobs=1`` and ``OMP_NUM_THREADS=1``, set before anything is imported).

Pruned trees: the same procedure for every tool. Inside each training fold a
stratified 3-fold cross-validation chooses ``ccp_alpha`` from one fixed grid (the
tool fitted on two inner folds with each value, scored on the third; the best
mean accuracy wins, ties to the larger value), then the tool is refitted on the
whole training fold with it. bivtree and
scikit-learn prune their grown tree (the same trees as refitting with
``ccp_alpha``); obliquetree is refitted once per value, with the value in its
own units (times the number of training rows: its ``ccp_alpha`` counts
impurity in samples). Tools whose unpruned fit
takes longer than ``--pruned-limit`` seconds are not run pruned (reported).

Run from the repository root (takes tens of minutes; keep the machine idle)::

    pip install ".[bench]"  # obliquetree, pandas, matplotlib
    python benchmarks/bench_peers.py --out benchmarks/results/bench_peers.md

Rows are appended to ``--csv`` as they finish, and finished (set, tool, fold)
rows are reused, so an interrupted run resumes.
"""

import os

os.environ.setdefault("OMP_NUM_THREADS", "1")  # before numpy, numba, obliquetree load

import argparse
import csv
import sys
import time

import numpy as np
from sklearn.model_selection import StratifiedKFold
from sklearn.tree import DecisionTreeClassifier

from bivtree import BivariateTreeClassifier
from bivtree.datasets import load_keel
from bivtree.experiments.machine import machine_description, machine_load
from bivtree.pruning import prune_tree

SETS = ["pima", "wdbc", "vehicle", "segment", "spambase", "satimage", "penbased", "letter"]
TOOLS = ["auto", "orientations", "optimal", "obliquetree", "sklearn"]
ALPHAS = [0.0, 1e-4, 3e-4, 1e-3, 2e-3, 5e-3, 1e-2, 2e-2]
#: folds of the inner cross-validation that chooses ``ccp_alpha`` in each training fold
INNER_FOLDS = 3
FIELDS = ["set", "tool", "pruning", "fold", "accuracy", "leaves", "cpu_s", "wall_s", "alpha",
          "note"]


def make_tool(tool, optimal_limit, ccp_alpha=0.0, n_fit=1):
    """A fresh, unfitted estimator of ``tool`` (``n_fit``: the rows it will be fitted on)."""
    if tool == "sklearn":
        return DecisionTreeClassifier(random_state=0, ccp_alpha=ccp_alpha)
    if tool == "obliquetree":
        from obliquetree import Classifier
        # its ccp_alpha counts impurity in samples, not in fractions of them (0.02 leaves
        # its wdbc tree unchanged, 5 cuts it to 3 leaves): the same alpha is alpha * n
        return Classifier(use_oblique=True, n_pair=2, max_depth=-1, random_state=0,
                          ccp_alpha=ccp_alpha * n_fit)
    options = {"fit_time_limit": optimal_limit} if tool == "optimal" else None
    return BivariateTreeClassifier(splitter=tool, n_jobs=1, splitter_options=options)


def n_leaves(model, X):
    if hasattr(model, "get_n_leaves"):
        return int(model.get_n_leaves())
    return int(np.unique(model.apply(X)).size)  # obliquetree: leaves the data reach


def pruned_predictor(tool, model, alpha):
    """A predict function and leaf count of ``model`` pruned at ``alpha`` (bivtree, sklearn)."""
    if tool == "sklearn":
        return None  # refitted with ccp_alpha: scikit-learn prunes its own tree the same way
    tree = prune_tree(model.tree_, alpha)
    classes = model.classes_
    return (lambda X: classes[np.argmax(tree.predict(np.asarray(X, dtype=float)), axis=1)],
            int(tree.n_leaves))


def fit_timed(model, X, y):
    cpu, wall = time.process_time(), time.perf_counter()
    model.fit(X, y)
    return time.process_time() - cpu, time.perf_counter() - wall


def choose_alpha(tool, X, y, optimal_limit):
    """``ccp_alpha`` from :data:`ALPHAS` by stratified ``INNER_FOLDS``-fold CV of the training fold.

    The mean validation accuracy over the inner folds decides; ties go to the
    larger value.
    """
    inner = StratifiedKFold(INNER_FOLDS, shuffle=True, random_state=0)
    scores = np.zeros(len(ALPHAS))
    for fit_rows, val_rows in inner.split(X, y):
        X_fit, X_val, y_fit, y_val = X[fit_rows], X[val_rows], y[fit_rows], y[val_rows]
        if tool in ("auto", "orientations", "optimal"):
            model = make_tool(tool, optimal_limit)
            model.fit(X_fit, y_fit)
            for a, alpha in enumerate(ALPHAS):
                predict, _ = pruned_predictor(tool, model, alpha)
                scores[a] += np.mean(predict(X_val) == y_val)
        else:
            for a, alpha in enumerate(ALPHAS):
                model = make_tool(tool, optimal_limit, ccp_alpha=alpha,
                                  n_fit=len(y_fit)).fit(X_fit, y_fit)
                scores[a] += np.mean(model.predict(X_val) == y_val)
    best = scores.max()
    return max(a for a, s in zip(ALPHAS, scores) if s == best)


def run_fold(tool, pruning, X_train, y_train, X_test, y_test, optimal_limit):
    """One row: accuracy, leaves, CPU and wall seconds of the whole fit (selection included)."""
    cpu, wall = time.process_time(), time.perf_counter()
    alpha = 0.0
    if pruning == "pruned":
        alpha = choose_alpha(tool, X_train, y_train, optimal_limit)
    bivtree_tool = tool in ("auto", "orientations", "optimal")
    model = make_tool(tool, optimal_limit, ccp_alpha=0.0 if bivtree_tool else alpha,
                      n_fit=len(y_train))
    model.fit(X_train, y_train)
    note = ""
    if tool == "optimal" and any(info and info.get("stopped") for info in model.split_info_):
        note = "time limit"
    if pruning == "pruned" and bivtree_tool:
        predict, leaves = pruned_predictor(tool, model, alpha)
    else:
        predict, leaves = model.predict, n_leaves(model, X_train)
    cpu, wall = time.process_time() - cpu, time.perf_counter() - wall
    accuracy = float(np.mean(predict(X_test) == y_test))
    return {"accuracy": accuracy, "leaves": leaves, "cpu_s": cpu, "wall_s": wall,
            "alpha": alpha, "note": note}


def load_done(path):
    done = {}
    if os.path.exists(path):
        with open(path, newline="") as fh:
            for row in csv.DictReader(fh):
                done[(row["set"], row["tool"], row["pruning"], int(row["fold"]))] = row
    return done


def should_skip(tool, name, pruning, rows, args):
    """A reason not to run ``tool`` on ``name`` (``None``: run it)."""
    if tool == "optimal" and name not in args.optimal_sets:
        return "not run (too slow on this set)"
    if pruning == "pruned" and tool not in ("auto", "sklearn"):
        unpruned = [float(r["cpu_s"]) for r in rows
                    if r["set"] == name and r["tool"] == tool and r["pruning"] == "unpruned"]
        if unpruned and np.mean(unpruned) > args.pruned_limit:
            return f"not run pruned (unpruned fit {np.mean(unpruned):.0f} s > {args.pruned_limit} s)"
    return None


def warm_up(tools, optimal_limit):
    """Load every tool's compiled code (numba's cache) before anything is timed."""
    X, y = load_keel("pima")
    y = np.unique(y, return_inverse=True)[1]
    for tool in tools:
        make_tool(tool, optimal_limit).fit(X[:200], y[:200])


def run(args):
    warm_up(args.tools, args.optimal_limit)
    done = load_done(args.csv)
    new_file = not os.path.exists(args.csv)
    with open(args.csv, "a", newline="") as fh:
        writer = csv.DictWriter(fh, fieldnames=FIELDS)
        if new_file:
            writer.writeheader()
        for name in args.sets:
            X, y = load_keel(name)
            y = np.unique(y, return_inverse=True)[1]
            folds = list(StratifiedKFold(5, shuffle=True, random_state=0).split(X, y))
            for pruning in args.pruning:
                for tool in args.tools:
                    if should_skip(tool, name, pruning, list(done.values()), args):
                        continue
                    for k, (train, test) in enumerate(folds):
                        key = (name, tool, pruning, k)
                        if key in done:
                            continue
                        row = run_fold(tool, pruning, X[train], y[train], X[test], y[test],
                                       args.optimal_limit)
                        row.update({"set": name, "tool": tool, "pruning": pruning, "fold": k})
                        writer.writerow(row)
                        fh.flush()
                        done[key] = {f: str(v) for f, v in row.items()}
                        print(f"{name:9s} {tool:12s} {pruning:8s} fold {k}: "
                              f"acc {row['accuracy']:.4f} leaves {row['leaves']} "
                              f"cpu {row['cpu_s']:.2f} s {row['note']}", flush=True)
    return load_done(args.csv)


def geometric_mean(values):
    return float(np.exp(np.mean(np.log(np.maximum(values, 1e-9)))))


def summarize(done, args):
    """Markdown tables: per set and tool, mean accuracy, leaves, CPU s per fit; then the summary."""
    lines = []
    for pruning in args.pruning:
        lines += [f"### {pruning}", "",
                  "| set | n x d | " + " | ".join(args.tools) + " |",
                  "| --- | --- |" + " --- |" * len(args.tools)]
        per_tool = {t: [] for t in args.tools}
        for name in args.sets:
            X, _ = load_keel(name)
            cells = []
            for tool in args.tools:
                rows = [r for (s, t, p, _), r in done.items()
                        if s == name and t == tool and p == pruning]
                if len(rows) < 5:
                    reason = should_skip(tool, name, pruning, list(done.values()), args)
                    cells.append(reason or "-")
                    continue
                acc = np.mean([float(r["accuracy"]) for r in rows]) * 100
                leaves = np.mean([float(r["leaves"]) for r in rows])
                cpu = np.mean([float(r["cpu_s"]) for r in rows])
                limited = sum(r["note"] == "time limit" for r in rows)
                per_tool[tool].append((name, acc, leaves, cpu))
                cells.append(f"{acc:.2f} % / {leaves:.1f} leaves / {cpu:.3g} s"
                             + (f" ({limited} fits hit the time limit)" if limited else ""))
            lines.append(f"| {name} | {X.shape[0]} x {X.shape[1]} | " + " | ".join(cells) + " |")
        lines += ["", _summary_table(per_tool, args.tools), ""]
    return "\n".join(lines)


def _summary_table(per_tool, tools):
    """Means over the sets every compared tool finished, with the default's ratios."""
    lines = [("Over the sets both tools finished: mean accuracy, mean leaves, geometric-mean "
              "CPU seconds per fit, and auto's ratio (auto / tool)."), "",
             "| tool | sets | accuracy (auto) | leaves (auto) | CPU s (auto) | CPU ratio |",
             "| --- | --- | --- | --- | --- | --- |"]
    auto = {name: (acc, leaves, cpu) for name, acc, leaves, cpu in per_tool.get("auto", [])}
    for tool in tools:
        if tool == "auto":
            continue
        common = [(name, acc, leaves, cpu) for name, acc, leaves, cpu in per_tool[tool]
                  if name in auto]
        if not common:
            continue
        acc = np.mean([c[1] for c in common])
        leaves = np.mean([c[2] for c in common])
        cpu = geometric_mean([c[3] for c in common])
        a_acc = np.mean([auto[c[0]][0] for c in common])
        a_leaves = np.mean([auto[c[0]][1] for c in common])
        a_cpu = geometric_mean([auto[c[0]][2] for c in common])
        lines.append(f"| {tool} | {len(common)} | {acc:.2f} ({a_acc:.2f}) | {leaves:.1f} "
                     f"({a_leaves:.1f}) | {cpu:.3g} ({a_cpu:.3g}) | {a_cpu / cpu:.3g} |")
    return "\n".join(lines)


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--sets", nargs="+", default=SETS)
    parser.add_argument("--tools", nargs="+", default=TOOLS, choices=TOOLS)
    parser.add_argument("--pruning", nargs="+", default=["unpruned", "pruned"],
                        choices=["unpruned", "pruned"])
    parser.add_argument("--optimal-sets", nargs="+", default=["pima", "wdbc", "vehicle"])
    parser.add_argument("--optimal-limit", type=float, default=30.0,
                        help="fit_time_limit of the optimal splitter, seconds per fit")
    parser.add_argument("--pruned-limit", type=float, default=10.0,
                        help="skip pruned runs of tools whose unpruned fit takes longer (s)")
    parser.add_argument("--csv", default="benchmarks/results/bench_peers.csv")
    parser.add_argument("--out", help="write the markdown report here")
    args = parser.parse_args(argv)
    started = time.perf_counter()
    done = run(args)
    report = "\n".join([
        "# bivtree's default search next to its peers", "",
        ("`python benchmarks/bench_peers.py` (5-fold stratified CV, one thread each; see the "
         "script's docstring for the pruning procedure)."), "",
        f"Machine: {machine_description()}", "",
        (f"Load when the report was written: `{machine_load()}`; run took "
         f"{time.perf_counter() - started:.0f} s (rows reused from the CSV not counted)."), "",
        "Each cell: mean test accuracy / mean leaves / mean CPU seconds per fit.", "",
        summarize(done, args)])
    print(report)
    if args.out:
        with open(args.out, "w") as fh:
            fh.write(report + "\n")
    return 0


if __name__ == "__main__":
    sys.exit(main())
