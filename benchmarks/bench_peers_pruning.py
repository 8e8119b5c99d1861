"""How the pruned trees of ``bench_peers.py`` depend on the rule that picks ``ccp_alpha``.

``bench_peers.py`` prunes every tool by the ``ccp_alpha`` of a fixed grid that
scores best in a stratified 3-fold cross-validation inside each training fold
(ties to the larger value). This script repeats that procedure for bivtree's
``"auto"`` and ``"orientations"`` splitters on the same outer folds, and also
applies other rules to the same inner fits:

* ``best``: the best mean inner accuracy (``bench_peers.py``'s rule);
* ``1-SE``: the largest ``ccp_alpha`` whose mean inner accuracy is within one
  standard error (over the inner folds) of the best one (Breiman et al.'s rule
  for cost-complexity pruning);

each on ``bench_peers.py``'s grid (:data:`bench_peers.ALPHAS`) and on a finer
one (:data:`FINE_ALPHAS`, which contains it). Every inner fold and every
training fold grows one unpruned tree; pruning it at each value costs no new
fit, so every rule sees the same trees. A second table gives, per value of
``ccp_alpha``, the leaves of the tree pruned at that value and its mean inner
accuracy: whether two searches' pruned trees differ in size because their
trees do or because the rule picks other values.

Run from the repository root (a few minutes; one thread)::

    python benchmarks/bench_peers_pruning.py --out benchmarks/results/bench_peers_pruning.md
"""

import os

os.environ.setdefault("OMP_NUM_THREADS", "1")  # before numpy and numba load

import argparse
import sys
import time

import numpy as np
from bench_peers import ALPHAS, INNER_FOLDS, make_tool, pruned_predictor
from sklearn.model_selection import StratifiedKFold

from bivtree.datasets import load_keel
from bivtree.experiments.machine import machine_description, machine_load

SETS = ["pima", "wdbc", "vehicle", "segment", "penbased"]
TOOLS = ["auto", "orientations"]
#: ``bench_peers``' grid and 24 values spread evenly on a log scale from 1e-4 to 2e-2
FINE_ALPHAS = sorted({0.0, *ALPHAS, *(float(f"{a:.3g}") for a in np.geomspace(1e-4, 2e-2, 24))})
#: the values of the second table
SHOWN_ALPHAS = [0.0, 1e-4, 3e-4, 1e-3, 2e-3, 5e-3, 1e-2, 2e-2]
RULES = [("best", ALPHAS), ("1-SE", ALPHAS), ("best", FINE_ALPHAS), ("1-SE", FINE_ALPHAS)]


def inner_scores(tool, X, y):
    """Inner-fold accuracies ``(INNER_FOLDS, len(FINE_ALPHAS))`` of ``tool`` pruned at each value."""
    inner = StratifiedKFold(INNER_FOLDS, shuffle=True, random_state=0)
    scores = np.zeros((INNER_FOLDS, len(FINE_ALPHAS)))
    for i, (fit_rows, val_rows) in enumerate(inner.split(X, y)):
        model = make_tool(tool, None).fit(X[fit_rows], y[fit_rows])
        for a, alpha in enumerate(FINE_ALPHAS):
            predict, _ = pruned_predictor(tool, model, alpha)
            scores[i, a] = np.mean(predict(X[val_rows]) == y[val_rows])
    return scores


def pick(scores, grid, rule):
    """The column of ``FINE_ALPHAS`` that ``rule`` picks among the values of ``grid``.

    ``best``: the highest sum of inner accuracies (summed in fold order, as
    ``bench_peers.choose_alpha`` does), ties to the larger value; ``1-SE``: the
    largest value whose mean is at least the best mean minus the standard error
    of the best value's inner accuracies.
    """
    columns = [FINE_ALPHAS.index(a) for a in grid]
    total = np.zeros(len(columns))
    for row in scores:  # the same additions as bench_peers.choose_alpha
        total += row[columns]
    if rule == "best":
        return columns[max(i for i, s in enumerate(total) if s == total.max())]
    mean = total / scores.shape[0]
    top = int(np.argmax(mean))
    se = scores[:, columns[top]].std(ddof=1) / np.sqrt(scores.shape[0])
    return columns[max(i for i, m in enumerate(mean) if m >= mean[top] - se)]


def run_set(name, tools):
    """Per tool and outer fold: inner scores, and test accuracy and leaves at every value."""
    X, y = load_keel(name)
    y = np.unique(y, return_inverse=True)[1]
    folds = list(StratifiedKFold(5, shuffle=True, random_state=0).split(X, y))
    out = {}
    for tool in tools:
        rows = []
        for train, test in folds:
            scores = inner_scores(tool, X[train], y[train])
            model = make_tool(tool, None).fit(X[train], y[train])
            outcome = []
            for alpha in FINE_ALPHAS:
                predict, leaves = pruned_predictor(tool, model, alpha)
                outcome.append((float(np.mean(predict(X[test]) == y[test])), leaves))
            rows.append((scores, outcome))
            print(f"{name:9s} {tool:12s} fold {len(rows) - 1}", flush=True)
        out[tool] = rows
    return out


def report(results, tools):
    lines = ["Per rule: mean test accuracy (%) / mean leaves over the 5 outer folds.", ""]
    for rule, grid in RULES:
        label = f"{rule}, {'the grid of bench_peers.py' if grid is ALPHAS else 'the fine grid'}"
        lines += [f"### {label}", "", "| set | " + " | ".join(tools) + " |",
                  "| --- |" + " --- |" * len(tools)]
        means = {tool: [] for tool in tools}
        for name, per_tool in results.items():
            cells = []
            for tool in tools:
                picked = [outcome[pick(scores, grid, rule)] for scores, outcome in per_tool[tool]]
                acc = 100 * np.mean([p[0] for p in picked])
                leaves = np.mean([p[1] for p in picked])
                means[tool].append((acc, leaves))
                cells.append(f"{acc:.2f} / {leaves:.1f}")
            lines.append(f"| {name} | " + " | ".join(cells) + " |")
        lines.append("| mean | " + " | ".join(
            f"{np.mean([m[0] for m in means[t]]):.2f} / {np.mean([m[1] for m in means[t]]):.1f}"
            for t in tools) + " |")
        lines.append("")
    lines += ["### The same values for both searches", "",
              ("Per value of `ccp_alpha`: mean leaves of the training folds' trees pruned at "
               "it, and in brackets the mean inner accuracy (%) that the rules compare."), "",
              "| set | tool | " + " | ".join(f"{a:g}" for a in SHOWN_ALPHAS) + " |",
              "| --- | --- |" + " --- |" * len(SHOWN_ALPHAS)]
    for name, per_tool in results.items():
        for tool in tools:
            cells = []
            for alpha in SHOWN_ALPHAS:
                a = FINE_ALPHAS.index(alpha)
                leaves = np.mean([outcome[a][1] for _, outcome in per_tool[tool]])
                inner = 100 * np.mean([scores[:, a].mean() for scores, _ in per_tool[tool]])
                cells.append(f"{leaves:.1f} ({inner:.2f})")
            lines.append(f"| {name} | {tool} | " + " | ".join(cells) + " |")
    return "\n".join(lines)


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--sets", nargs="+", default=SETS)
    parser.add_argument("--tools", nargs="+", default=TOOLS, choices=TOOLS)
    parser.add_argument("--out", help="write the markdown report here")
    args = parser.parse_args(argv)
    make_tool("auto", None).fit(*load_keel("pima"))  # numba's cache loaded before the runs
    load_start, started = machine_load(), time.perf_counter()
    results = {name: run_set(name, args.tools) for name in args.sets}
    text = "\n".join([
        "# Pruned trees of bench_peers.py under other rules for ccp_alpha", "",
        "`python benchmarks/bench_peers_pruning.py` (see the script's docstring).", "",
        f"Machine: {machine_description()}", "",
        (f"Load before: `{load_start}`; after: `{machine_load()}`; "
         f"run took {time.perf_counter() - started:.0f} s."), "",
        report(results, args.tools)])
    print(text)
    if args.out:
        with open(args.out, "w") as fh:
            fh.write(text + "\n")
    return 0


if __name__ == "__main__":
    sys.exit(main())
