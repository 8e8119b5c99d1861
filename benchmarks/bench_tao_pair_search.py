"""TAO's bivariate search of a reduced problem: fixed directions against coarse to fine.

A TAO decision node picks its rule by searching its *reduced problem* (the care
samples, their pseudolabels and weights) pair by pair. This script collects the
reduced problems that real TAO fits meet, then solves each pair of each problem
with every search and with the exact rotational sweep (the optimum over all
lines), and reports how far each search stays from the optimum and what it
costs:

* ``orientations H``: the paper's ``H`` fixed directions of the [0, 1]-scaled
  plane (``pair_search="orientations"``, ``n_orientations=H``);
* ``coarse to fine``: the default ``pair_search="coarse_to_fine"``
  (:data:`bivtree.tao.optimizer.COARSE_ANGLES` angles of the pair's decorrelated frame,
  then :data:`bivtree.tao.optimizer.REFINE_ROUNDS` step-halving rounds from the best;
  an angle whose histogram bound cannot beat the best cut found is not sorted), the same
  search scanning every angle (``no bound``: the same rules, so the same gaps; only its
  time differs), and the same search from 8 coarse angles.

The problems come from ``TAOTreeClassifier(alpha=0.001, feature_cost=1.25,
pair_search="orientations", exact_max_samples=0)`` fitted on each set (the
search the problems met does not matter: they are only collected); those of at
least ``--min-samples`` care samples are grouped by size, and up to
``--problems`` per group (spread over the fit) are solved, each on up to
``--pairs`` of its pairs (chosen at random, seed 0). Gaps are the search's
weighted pseudolabel error minus the optimum's, as a percentage of the
problem's care weight; "at optimum" is the share of (problem, pair) items where
the search found an optimal line; microseconds are per item, one thread.

Run from the repository root (a few minutes; time it on an idle machine)::

    python benchmarks/bench_tao_pair_search.py --out benchmarks/results/bench_tao_pair_search.md
"""

import os

os.environ.setdefault("OMP_NUM_THREADS", "1")  # before numpy and numba load

import argparse
import sys
import time

import numba
import numpy as np
from sklearn.datasets import make_classification

import bivtree.tao.optimizer as tao_module
from bivtree import TAOTreeClassifier
from bivtree._kernels.tao import BOUND_BINS, CareSets, SearchSpace, WorkItems, search_items
from bivtree.datasets import load_keel
from bivtree.experiments.machine import machine_description, machine_load
from bivtree.splitters._base import candidate_pairs
from bivtree.splitters.orientations import orientation_directions

#: care-sample ranges the problems are grouped by
SIZE_GROUPS = [(50, 200), (200, 600), (600, 2000)]
#: name -> (n_orientations, n_coarse, refine_rounds, bound_bins)
SEARCHES = {"orientations 30": (30, 0, 0, 0), "orientations 90": (90, 0, 0, 0),
            "coarse to fine": (30, tao_module.COARSE_ANGLES, tao_module.REFINE_ROUNDS,
                               BOUND_BINS),
            "coarse to fine, no bound": (30, tao_module.COARSE_ANGLES,
                                         tao_module.REFINE_ROUNDS, 0),
            "coarse to fine, 8 angles": (30, 8, tao_module.REFINE_ROUNDS, BOUND_BINS)}


def data_sets(names):
    for name in names:
        if name == "synthetic":
            X, y = make_classification(5000, 20, n_informative=8, n_redundant=4, flip_y=0.05,
                                       random_state=0)
            yield "make_classification (4,000 x 20)", X[:4000], y[:4000]
        else:
            X, y = load_keel(name)
            yield f"{name} ({X.shape[0]:,} x {X.shape[1]})", X, y


def collect_problems(X, y):
    """The reduced problems (samples, labels, weights) a TAO fit searches, in order."""
    seen = []
    real = tao_module.search_items

    def recording(X_, care, exact, space, items):
        for r in np.unique(items.node):
            a, b = care.offsets[r], care.offsets[r + 1]
            seen.append((care.samples[a:b].copy(), care.labels[a:b].copy(),
                         care.weights[a:b].copy()))
        return real(X_, care, exact, space, items)

    tao_module.search_items = recording
    try:
        TAOTreeClassifier(alpha=0.001, feature_cost=1.25, pair_search="orientations",
                          exact_max_samples=0, n_jobs=1).fit(X, y)
    finally:
        tao_module.search_items = real
    unique = {}
    for samples, labels, weights in seen:
        key = (samples.tobytes(), labels.tobytes(), weights.tobytes())
        unique.setdefault(key, (samples, labels, weights))
    return list(unique.values())


def solve(X, problems, pair_j, pair_k, features, exact, search):
    """Per (problem, pair) item: the weighted error, and the seconds of the whole call."""
    n_orientations, n_coarse, rounds, bound_bins = search
    offsets = np.zeros(len(problems) + 1, dtype=np.int64)
    offsets[1:] = np.cumsum([p[0].size for p in problems])
    care = CareSets(np.concatenate([p[0] for p in problems]),
                    np.concatenate([p[1] for p in problems]),
                    np.concatenate([p[2] for p in problems]), offsets)
    space = SearchSpace(features, pair_j, pair_k, *orientation_directions(n_orientations),
                        n_coarse, rounds, np.empty(0, dtype=np.int64), bound_bins)
    n_feat = features.size
    node = np.repeat(np.arange(len(problems), dtype=np.int64), pair_j.size)
    index = np.tile(np.arange(pair_j.size, dtype=np.int64) + n_feat, len(problems))
    items = WorkItems(node, index)
    flags = np.full(len(problems), exact)
    search_items(X, care, flags, space, WorkItems(node[:1], index[:1]))  # compile
    t0 = time.perf_counter()
    found = search_items(X, care, flags, space, items)
    return found.loss.reshape(len(problems), pair_j.size), time.perf_counter() - t0


def run(args):
    numba.set_num_threads(1)  # microseconds per item on one thread
    rng = np.random.default_rng(0)
    lines = [("# TAO's bivariate search of a reduced problem: fixed directions against "
             "coarse to fine"), "",
             (f"`python benchmarks/bench_tao_pair_search.py` (see its docstring), "
             f"problems of at least {args.min_samples} care samples, up to "
             f"{args.problems} per size group, up to {args.pairs} pairs each."), "",
             f"Machine: {machine_description()}", "",
             f"Load at the start: `{machine_load()}`", ""]
    header = ("| data set | care samples | problems | search | mean gap (% of weight) | "
              "at optimum | µs per item |")
    rows = [header, "|---|---|---:|---|---:|---:|---:|"]
    totals = {name: [] for name in SEARCHES}
    for label, X, y in data_sets(args.datasets.split(",")):
        X = np.asfortranarray(X, dtype=float)
        problems = collect_problems(X, y)
        features = np.arange(X.shape[1], dtype=np.int64)
        all_j, all_k = candidate_pairs(features)
        take = rng.choice(all_j.size, size=min(args.pairs, all_j.size), replace=False)
        pair_j, pair_k = all_j[np.sort(take)], all_k[np.sort(take)]
        for lo, hi in SIZE_GROUPS:
            group = [p for p in problems if lo <= p[0].size < hi]
            if not group:
                continue
            pick = np.linspace(0, len(group) - 1, min(args.problems, len(group))).astype(int)
            group = [group[i] for i in np.unique(pick)]
            weight = np.array([p[2].sum() for p in group])[:, None]
            optimum, _ = solve(X, group, pair_j, pair_k, features, True, SEARCHES["coarse to fine"])
            usable = np.isfinite(optimum)
            for name, search in SEARCHES.items():
                loss, seconds = solve(X, group, pair_j, pair_k, features, False, search)
                with np.errstate(invalid="ignore"):  # no valid cut: inf - inf, not usable
                    gap = 100 * (loss - optimum) / weight
                at_optimum = np.mean(gap[usable] <= 1e-9)
                us = 1e6 * seconds / loss.size
                totals[name].append((np.mean(gap[usable]), at_optimum, us))
                rows.append(f"| {label} | {lo}-{hi - 1} | {len(group)} | {name} | "
                            f"{np.mean(gap[usable]):.3f} | {at_optimum:.2f} | {us:.0f} |")
            print(rows[-1], flush=True)
    lines += rows
    lines += ["", ("Mean over the rows (data set x size group): gap, share at the optimum, "
              "microseconds per item."), "", ("| search | mean gap (% of weight) | at optimum | "
              "µs per item |"), "|---|---:|---:|---:|"]
    for name, values in totals.items():
        v = np.array(values)
        lines.append(f"| {name} | {v[:, 0].mean():.3f} | {v[:, 1].mean():.2f} | "
                     f"{v[:, 2].mean():.0f} |")
    lines += ["", f"Load at the end: `{machine_load()}`"]
    return lines


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--datasets", default="synthetic,segment,vehicle,pima,wdbc")
    parser.add_argument("--problems", type=int, default=12)
    parser.add_argument("--pairs", type=int, default=24)
    parser.add_argument("--min-samples", type=int, default=50)
    parser.add_argument("--out", help="write the Markdown report here (default: print it)")
    args = parser.parse_args(argv)
    lines = run(args)
    text = "\n".join(lines) + "\n"
    if args.out:
        with open(args.out, "w") as fh:
            fh.write(text)
    else:
        sys.stdout.write(text)


if __name__ == "__main__":
    main()
