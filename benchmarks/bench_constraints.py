"""Monotone trees on credit and medical data: bivtree against scikit-learn, with and without.

On sets with a natural direction of risk (:data:`CASES`: the features, the
direction and why), 5 stratified outer folds (``StratifiedKFold(5, shuffle=True,
random_state=0)``; ``KFold`` for the regression set), repeated with 5 shuffles
(``--repeats``; ``random_state`` 0, 1, ...): on a few hundred rows one shuffle's folds
move a comparison by more than the tools differ. Each tool is pruned as in
``bench_peers.py``: ``ccp_alpha`` chosen from :data:`bench_peers.ALPHAS` by the
best mean accuracy (R^2 for regression) of a 3-fold inner cross-validation of the
training fold (ties to the larger value; for regression the grid is in units
of the training fold's target variance), then refitted on the whole training fold
with it. Tools:

* ``bivtree``: ``BivariateTreeClassifier()`` / ``BivariateTreeRegressor()`` (the
  default search), and ``bivtree-monotone`` with ``monotonic_cst``;
* ``shallow-monotone``: ``ShallowTreeClassifier(max_depth=D, monotonic_cst=...)``
  / ``ShallowTreeRegressor`` (TAO from several starts; ``D`` from
  :data:`SHALLOW_DEPTHS` and its ``alpha``, in the same unit as ``ccp_alpha``,
  from the same grid, chosen together by the same inner cross-validation, ties
  to the smaller depth, then the larger ``alpha``: a readable tree is as
  shallow as the data allow);
* ``sklearn``: ``DecisionTreeClassifier(random_state=0)`` / ``Regressor``, and
  ``sklearn-monotone`` with the same ``monotonic_cst``;
* ``shallow-monotone-1se`` and ``sklearn-monotone-1se``: the same two, the setting
  chosen by the one-standard-error rule of Breiman et al. instead of the best mean
  inner score (the smallest depth, then the largest ``alpha``, whose mean is within
  one standard error of the best; see :func:`pruned`). The monotone bivtree tools are
  compared with ``sklearn-monotone``, and ``shallow-monotone-1se`` also with
  ``sklearn-monotone-1se`` (the same rule on both sides).

Per set and tool: test accuracy (or R^2), leaves, CPU seconds of the whole
procedure, and ``violations``: test rows whose prediction (the positive class's
probability, or the value) moves against a constraint when one constrained
feature runs over 25 quantiles of its training values, the others fixed (0 for
every monotone tree is the guarantee being checked; the unconstrained trees show
how often the constraint bites).

crx: bivtree reads its categorical columns natively; scikit-learn gets them one-hot
encoded (``load_keel``'s arrays), the constraints on the same numeric columns.

Run from the repository root (about 20 minutes, one thread; ``--repeats 1`` for a
quick look)::

    python benchmarks/bench_constraints.py --out benchmarks/results/bench_constraints.md
"""

import os

os.environ.setdefault("OMP_NUM_THREADS", "1")  # before numpy and numba load

import argparse
import sys
import time

import numpy as np
import pandas as pd
from bench_peers import ALPHAS, INNER_FOLDS
from sklearn.datasets import load_diabetes
from sklearn.model_selection import KFold, StratifiedKFold
from sklearn.tree import DecisionTreeClassifier, DecisionTreeRegressor

from bivtree import (
    BivariateTreeClassifier,
    BivariateTreeRegressor,
    ShallowTreeClassifier,
    ShallowTreeRegressor,
)
from bivtree.datasets import load_keel
from bivtree.experiments.machine import machine_description, machine_load

#: set -> (positive class or None for regression, {feature: direction}, why)
CASES = {
    "pima": ("tested_positive",
             {"glucose": 1, "bmi": 1, "age": 1, "diabetes pedigree": 1, "pregnancies": 1},
             ("the risk of diabetes rises with plasma glucose, body-mass index, age, the "
              "family-history (pedigree) score and the number of pregnancies")),
    "wdbc": ("M",
             {"mean radius": 1, "mean perimeter": 1, "mean area": 1, "mean concavity": 1,
              "mean concave points": 1, "worst radius": 1, "worst perimeter": 1,
              "worst area": 1, "worst concavity": 1, "worst concave points": 1},
             ("a larger nucleus and more concave contours mean a higher chance of malignancy "
              "(the size and concavity features of the Wisconsin data)")),
    "heart": ("2",
              {"age": 1, "resting blood pressure": 1, "serum cholesterol": 1, "oldpeak": 1,
               "major vessels": 1, "max heart rate": -1},
              ("heart disease is more likely with age, blood pressure, cholesterol, ST "
               "depression (oldpeak) and the number of narrowed major vessels, and less likely "
               "the higher the maximum heart rate reached")),
    "crx": ("positive",
            {"x7": 1, "x10": 1, "x14": 1},
            ("credit approval; the UCI file withholds the attribute names, and the usual reading "
             "of A8, A11 and A15 (x7, x10, x14 here) is years employed, a credit score and "
             "income, each making approval more likely: an assumption, stated as such")),
    "diabetes": (None, {"bmi": 1, "bp": 1, "s5": 1},
                 ("scikit-learn's bundled diabetes regression: disease progression after a year "
                  "rises with body-mass index, blood pressure and s5 (log triglycerides)")),
}
TOOLS = ["bivtree", "bivtree-monotone", "shallow-monotone", "shallow-monotone-1se", "sklearn",
         "sklearn-monotone", "sklearn-monotone-1se"]
#: (monotone bivtree tool, the monotone scikit-learn tool it is compared with)
COMPARISONS = (("bivtree-monotone", "sklearn-monotone"), ("shallow-monotone", "sklearn-monotone"),
               ("shallow-monotone-1se", "sklearn-monotone"),
               ("shallow-monotone-1se", "sklearn-monotone-1se"))
#: depths ``shallow-monotone`` chooses from
SHALLOW_DEPTHS = (1, 2, 3)
#: the rows of ``shallow-monotone`` at one fixed depth, no selection (a section of their own)
FIXED_DEPTH = "shallow-monotone, fixed depth"
GRID_POINTS = 25
#: the target: monotone bivariate trees at least as accurate with at most this share of the
#: leaves of scikit-learn's monotone trees
LEAVES_TARGET = 0.7


def load_case(name):
    """``(native X, numeric X, y, positive, cst per native column, cst per numeric column)``."""
    positive, directions, _ = CASES[name]
    if name == "diabetes":
        frame = load_diabetes(as_frame=True).frame
        X = frame.drop(columns="target")
        y = frame["target"].to_numpy()
        cst = [directions.get(c, 0) for c in X.columns]
        return X, X.to_numpy(), y, None, cst, cst
    native, y = load_keel(name, as_frame=True)
    numeric, _ = load_keel(name)
    names = list(native.columns)
    cst = [directions.get(c, 0) for c in names]
    # the arrays one-hot encode categorical columns in place: the numeric ones keep their
    # order, so a numeric column's position among the array's columns is found by value
    numeric_cst = np.zeros(numeric.shape[1], dtype=int)
    for c, d in directions.items():
        column = native[c].to_numpy(dtype=float)
        where = [k for k in range(numeric.shape[1]) if np.array_equal(numeric[:, k], column)]
        numeric_cst[where[0]] = d
    return native, numeric, np.asarray(y), positive, cst, list(numeric_cst)


def make(tool, regression, cst, ccp_alpha, depth=None):
    monotone = cst if "-monotone" in tool else None
    if tool.startswith("shallow-monotone"):  # TAO at depth `depth`; alpha in ccp_alpha's unit
        cls = ShallowTreeRegressor if regression else ShallowTreeClassifier
        return cls(max_depth=depth, monotonic_cst=monotone, alpha=ccp_alpha, n_jobs=1)
    if tool.startswith("bivtree"):
        cls = BivariateTreeRegressor if regression else BivariateTreeClassifier
        return cls(monotonic_cst=monotone, ccp_alpha=ccp_alpha, n_jobs=1)
    cls = DecisionTreeRegressor if regression else DecisionTreeClassifier
    return cls(monotonic_cst=monotone, ccp_alpha=ccp_alpha, random_state=0)


def take(X, rows):
    return X.iloc[rows] if hasattr(X, "iloc") else X[rows]


def pruned(tool, regression, cst, X, y):
    """The tool refitted with the ``ccp_alpha`` of best mean inner score (ties: larger),
    and for ``shallow-monotone`` the depth with it (ties: smaller first); returns the
    model, the ``alpha`` and the depth (None for the others).

    A ``-1se`` tool takes the one-standard-error rule instead (Breiman et al.): of the
    settings whose mean inner score is at least the best mean minus its standard error
    over the inner folds, the smallest depth, then the largest ``alpha``.

    For regression the grid is in units of the training fold's target variance (the
    impurity a regression tree's ``ccp_alpha`` is measured in), so that it prunes as
    much as the classification grid does in Gini units.
    """
    inner = (KFold(INNER_FOLDS, shuffle=True, random_state=0) if regression
             else StratifiedKFold(INNER_FOLDS, shuffle=True, random_state=0))
    grid = [a * float(np.var(y)) for a in ALPHAS] if regression else ALPHAS
    depths = SHALLOW_DEPTHS if tool.startswith("shallow-monotone") else (None,)
    settings = [(depth, alpha) for depth in depths for alpha in grid]
    scores = np.zeros((INNER_FOLDS, len(settings)))
    for f, (fit_rows, val_rows) in enumerate(inner.split(np.zeros(len(y)), y)):
        for k, (depth, alpha) in enumerate(settings):
            model = make(tool, regression, cst, alpha, depth).fit(take(X, fit_rows),
                                                                   y[fit_rows])
            scores[f, k] = model.score(take(X, val_rows), y[val_rows])
    mean = scores.mean(axis=0)
    best = max(range(len(settings)),
               key=lambda k: (mean[k], -(settings[k][0] or 0), settings[k][1]))
    if tool.endswith("-1se"):
        floor = mean[best] - scores[:, best].std(ddof=1) / np.sqrt(INNER_FOLDS)
        best = max((k for k in range(len(settings)) if mean[k] >= floor),
                   key=lambda k: (-(settings[k][0] or 0), settings[k][1], mean[k]))
    depth, alpha = settings[best]
    return make(tool, regression, cst, alpha, depth).fit(X, y), alpha, depth


def prediction(model, X, positive):
    if positive is None:
        return model.predict(X)
    return model.predict_proba(X)[:, list(model.classes_).index(positive)]


def violations(model, X_train, X_test, cst, positive):
    """Test rows whose prediction moves against a constraint along one constrained feature."""
    frame = X_test if hasattr(X_test, "iloc") else None
    bad = np.zeros(len(X_test), dtype=bool)
    for j, c in enumerate(cst):
        if c == 0:
            continue
        column = (X_train.iloc[:, j] if frame is not None else X_train[:, j])
        grid = np.unique(np.nanquantile(np.asarray(column, dtype=float),
                                        np.linspace(0, 1, GRID_POINTS)))
        values = []
        for g in grid:
            moved = X_test.copy()
            if frame is not None:
                moved.iloc[:, j] = g
            else:
                moved[:, j] = g
            values.append(prediction(model, moved, positive))
        steps = np.diff(np.asarray(values), axis=0) * c
        bad |= np.any(steps < -1e-12, axis=0)
    return int(bad.sum())


def outer_folds(y, regression, repeats):
    """``[(train, test)]``: 5 shuffled folds (stratified for classification) per repeat,
    seeded 0, 1, ..., ``repeats - 1``."""
    folds = []
    for seed in range(repeats):
        splitter = (KFold(5, shuffle=True, random_state=seed) if regression
                    else StratifiedKFold(5, shuffle=True, random_state=seed))
        folds += list(splitter.split(np.zeros(len(y)), y))
    return folds


def run_case(name, repeats):
    native, numeric, y, positive, cst, numeric_cst = load_case(name)
    regression = positive is None
    outer = outer_folds(y, regression, repeats)
    rows = []
    for tool in TOOLS:
        native_input = tool.startswith(("bivtree", "shallow"))
        X, tool_cst = (native, cst) if native_input else (numeric, numeric_cst)
        for fold, (train, test) in enumerate(outer):
            cpu = time.process_time()
            model, alpha, depth = pruned(tool, regression, tool_cst, take(X, train),
                                         y[train])
            cpu = time.process_time() - cpu
            rows.append({
                "set": name, "tool": tool, "fold": fold, "alpha": alpha, "depth": depth,
                "score": model.score(take(X, test), y[test]),  # accuracy, or R^2
                "leaves": int(model.get_n_leaves()), "cpu": cpu,
                "violations": violations(model, take(X, train), take(X, test), tool_cst,
                                         positive),
                "rows": len(test)})
            print(f"{name:9s} {tool:17s} fold {fold}: score {rows[-1]['score']:.4f} leaves "
                  f"{rows[-1]['leaves']} alpha {alpha:g} depth {depth} "
                  f"violations {rows[-1]['violations']} "
                  f"cpu {cpu:.1f} s", flush=True)
    rows += fixed_depth_rows(name, native, y, cst, regression, outer)
    return rows


def fixed_depth_rows(name, X, y, cst, regression, outer):
    """``shallow-monotone`` at each depth of :data:`SHALLOW_DEPTHS` with ``alpha = 0`` and no
    inner selection, on the same outer folds: what the selection chooses among."""
    rows = []
    for depth in SHALLOW_DEPTHS:
        for fold, (train, test) in enumerate(outer):
            model = make("shallow-monotone", regression, cst, 0.0, depth).fit(take(X, train),
                                                                             y[train])
            rows.append({"set": name, "tool": FIXED_DEPTH, "fold": fold, "alpha": 0.0,
                         "depth": depth, "score": model.score(take(X, test), y[test]),
                         "leaves": int(model.get_n_leaves()), "cpu": np.nan,
                         "violations": np.nan, "rows": len(test)})  # neither is measured
    return rows


def score_text(name, value, sign=""):
    """A score as reported: accuracy in % with 2 decimals, R^2 (diabetes) with 3;
    ``sign="+"`` writes the sign of a difference."""
    if name == "diabetes":
        return f"{value:{sign}.3f}"
    return f"{100 * value:{sign}.2f}"


def report(results, started_load):
    everything = pd.DataFrame(results)
    fixed = everything[everything["tool"] == FIXED_DEPTH]
    frame = everything[everything["tool"] != FIXED_DEPTH]
    lines = ["# Monotone trees: bivtree and scikit-learn, with and without constraints", "",
             f"Machine: {machine_description()}", "",
             f"Load at the start: `{started_load}`; at the end: `{machine_load()}`.", "",
             f"Command: `python {' '.join(sys.argv)}`", "",
             (f"{outer_description(frame['fold'].nunique())}; every tool pruned by the "
              "`ccp_alpha` of "
              f"{', '.join(f'{a:g}' for a in ALPHAS)} with the best mean 3-fold inner score "
              "(ties to the larger; for diabetes in units of the training fold's target variance), then "
              "refitted (the procedure of `bench_peers.py`); shallow-monotone chooses its depth "
              f"from {', '.join(str(d) for d in SHALLOW_DEPTHS)} with it (ties to the smaller); "
              "the `-1se` tools take the smallest depth, then the largest `ccp_alpha`, whose mean "
              "inner score is within one standard error of the best (Breiman et al.'s rule). "
              "Score: test accuracy % (R^2 for diabetes); leaves; CPU seconds of the whole "
              "procedure per fold; violations: test rows whose prediction moves against a "
              "constraint when one constrained feature runs over 25 quantiles of its "
              "training values (summed over the folds)."), "",
             "## The constraints and why", ""]
    for name, (_, directions, why) in CASES.items():
        signs = ", ".join(f"{f} {'+' if d > 0 else '-'}" for f, d in directions.items())
        lines.append(f"- **{name}**: {signs}. {why}.")
    lines += ["", "## Results", "",
              "| set | tool | score | leaves | violations | CPU s / fold |",
              "|---|---|---:|---:|---:|---:|"]
    summary = frame.groupby(["set", "tool"], sort=False).agg(
        score=("score", "mean"), leaves=("leaves", "mean"), violations=("violations", "sum"),
        cpu=("cpu", "mean"))
    for (name, tool), r in summary.iterrows():
        lines.append(f"| {name} | {tool} | {score_text(name, r.score)} | {r.leaves:.1f} | "
                     f"{int(r.violations)} | {r.cpu:.2f} |")
    lines += ["", "## Monotone bivtree against monotone scikit-learn", "",
              ("The score difference is the mean over the outer folds of the paired "
               "per-fold difference; ± its standard error (the standard deviation of the "
               "per-fold differences over the square root of their number), which says how "
               "far the folds alone move it."), "",
              ("| set | bivtree tool | against | score difference | ± standard error | "
               f"leaves ratio (bivtree / scikit-learn) | as accurate with at most "
               f"{LEAVES_TARGET}x the leaves |"),
              "|---|---|---|---:|---:|---:|---|"]
    for tool, against in COMPARISONS:
        for name in frame["set"].unique():
            if (name, tool) not in summary.index or (name, against) not in summary.index:
                continue
            ours = summary.loc[(name, tool)]
            theirs = summary.loc[(name, against)]
            ratio = ours.leaves / theirs.leaves
            # equal scores are equal counts of right rows: compare past float rounding
            difference = ours.score - theirs.score
            difference = 0.0 if abs(difference) < 1e-12 else difference
            met = difference >= 0.0 and ratio <= LEAVES_TARGET
            error = paired_standard_error(frame, name, tool, against)
            lines.append(f"| {name} | {tool} | {against} | "
                         f"{score_text(name, difference, '+')} | {score_text(name, error)} | "
                         f"{ratio:.3f} ({ours.leaves:.1f} / {theirs.leaves:.1f}) | "
                         f"{'yes' if met else 'no'} |")
    lines += depth_lines(frame, fixed, summary)
    return "\n".join(lines) + "\n"


def outer_description(n_folds):
    """The outer folds in words: 5, or 5 per repeat."""
    repeats = n_folds // 5
    return ("5 outer folds" if repeats == 1 else
            f"{n_folds} outer folds (5 folds, repeated {repeats} times with different shuffles)")


def paired_standard_error(frame, name, tool, against):
    """Standard error of the mean per-fold score difference of ``tool`` and ``against``."""
    def scores(t):
        part = frame[(frame["set"] == name) & (frame["tool"] == t)]
        return part.set_index("fold")["score"].sort_index()

    differences = (scores(tool) - scores(against)).to_numpy()
    if len(differences) < 2:
        return float("nan")
    return float(differences.std(ddof=1) / np.sqrt(len(differences)))


def depth_lines(frame, fixed, summary):
    """The depths the shallow tools chose per fold, and what each fixed depth reaches."""
    lines = ["", "## What the shallow tools choose among", "",
             ("How many outer folds each rule chose each depth in (depth: folds), and "
              "`shallow-monotone` at each fixed "
              "depth with `alpha` 0 (no inner selection) on the same folds: mean score (leaves). "
              "The last column is `sklearn-monotone`'s."), ""]
    depths = list(SHALLOW_DEPTHS)
    lines += [("| set | depths chosen (best) | depths chosen (1se) | "
               + " | ".join(f"depth {d}" for d in depths) + " | sklearn-monotone |"),
              "|---|---|---|" + "---:|" * (len(depths) + 1)]
    for name in frame["set"].unique():
        def chosen(tool, name=name):
            depth = frame[(frame["set"] == name) & (frame["tool"] == tool)]["depth"]
            counts = depth.astype(int).value_counts()
            return ", ".join(f"{d}: {counts.get(d, 0)}" for d in SHALLOW_DEPTHS)

        cells = []
        for d in depths:
            part = fixed[(fixed["set"] == name) & (fixed["depth"] == d)]
            cells.append(f"{score_text(name, part['score'].mean())} "
                         f"({part['leaves'].mean():.1f})"
                         if len(part) else "-")
        theirs = summary.loc[(name, "sklearn-monotone")]
        lines.append(f"| {name} | {chosen('shallow-monotone')} | "
                     f"{chosen('shallow-monotone-1se')} | {' | '.join(cells)} | "
                     f"{score_text(name, theirs.score)} ({theirs.leaves:.1f}) |")
    return lines


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--sets", nargs="+", default=list(CASES), choices=list(CASES))
    parser.add_argument("--repeats", type=int, default=5,
                        help="repeat the 5 outer folds with this many shuffles (seeds 0, 1, ...)")
    parser.add_argument("--out", default=None, help="write the Markdown report here")
    args = parser.parse_args(argv)
    if args.repeats < 1:
        parser.error(f"--repeats must be at least 1, got {args.repeats}")
    started_load = machine_load()
    results = []
    for name in args.sets:
        results += run_case(name, args.repeats)
    text = report(results, started_load)
    print(text)
    if args.out:
        with open(args.out, "w") as fh:
            fh.write(text)
    return 0


if __name__ == "__main__":
    sys.exit(main())
