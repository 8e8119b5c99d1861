"""The ``bivtree`` command.

Each subcommand is one ``_add_<name>`` function that declares its arguments and
one ``_run_<name>`` function that does the work and returns the exit status,
so a new subcommand is two functions and one line in :func:`build_parser`.

    bivtree demo [--splitter orientations] [--max-depth 3] [--cv 5] [--n-jobs 1] [--decimals 4]
"""

import argparse
import sys

import numpy as np
from sklearn.datasets import load_breast_cancer
from sklearn.model_selection import StratifiedKFold, cross_validate
from sklearn.tree import DecisionTreeClassifier

from . import __version__
from .estimators import BivariateTreeClassifier
from .export import export_text
from .splitters import SPLITTERS

#: seed of the fold shuffling and of scikit-learn's tree, so every run prints the same table.
DEMO_RANDOM_STATE = 0


def _int_at_least(low):
    """argparse type: an integer ``>= low`` (a bad value is a usage error, exit code 2)."""

    def parse(text):
        try:
            value = int(text)
        except ValueError:
            raise argparse.ArgumentTypeError(f"expected an integer, got {text!r}") from None
        if value < low:
            raise argparse.ArgumentTypeError(f"must be an integer >= {low}, got {value}")
        return value

    return parse


def _n_jobs(text):
    """argparse type: joblib's ``n_jobs`` (a positive count, or -1 for all cores)."""
    try:
        value = int(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"expected an integer, got {text!r}") from None
    if value == 0:
        raise argparse.ArgumentTypeError("must be a positive integer or -1 (all cores), got 0")
    return value


# --------------------------------------------------------------------------- demo
def _add_demo(subparsers):
    p = subparsers.add_parser(
        "demo",
        help="fit a tree on the breast-cancer data and compare it with scikit-learn's CART",
        description="Fit a bivariate tree on scikit-learn's breast-cancer data (569 samples, "
                    "30 features), print its rules, then compare it with scikit-learn's "
                    "DecisionTreeClassifier of the same depth by stratified cross-validation.")
    p.add_argument("--splitter", choices=sorted(SPLITTERS), default="orientations",
                   help="split search (default: %(default)s)")
    p.add_argument("--max-depth", type=_int_at_least(1), default=3,
                   help="maximum depth of both trees (default: %(default)s)")
    p.add_argument("--cv", type=_int_at_least(2), default=5,
                   help="number of cross-validation folds (default: %(default)s)")
    p.add_argument("--n-jobs", type=_n_jobs, default=1,
                   help="threads for the split search, -1 for all cores (default: %(default)s)")
    p.add_argument("--decimals", type=_int_at_least(1), default=4,
                   help="significant digits of the printed rules (default: %(default)s)")
    p.set_defaults(run=_run_demo)


def _bivariate_share(estimator):
    """Fraction of decision nodes testing two features (0 for scikit-learn's trees)."""
    tree = estimator.tree_
    if not hasattr(tree, "n_node_features"):
        return 0.0
    n_used = tree.n_node_features[~tree.is_leaf]
    return float(np.mean(n_used == 2)) if n_used.size else 0.0


def _run_demo(args):
    data = load_breast_cancer()
    X, y, names = data.data, data.target, list(data.feature_names)
    bivariate = BivariateTreeClassifier(splitter=args.splitter, max_depth=args.max_depth,
                                        n_jobs=args.n_jobs)
    univariate = DecisionTreeClassifier(max_depth=args.max_depth,
                                        random_state=DEMO_RANDOM_STATE)

    bivariate.fit(X, y)
    print(f"BivariateTreeClassifier(splitter={args.splitter!r}, max_depth={args.max_depth}) "
          f"on breast cancer ({X.shape[0]} samples, {X.shape[1]} features; "
          f"classes {', '.join(f'{i} = {c}' for i, c in enumerate(data.target_names))}):")
    print()
    print(export_text(bivariate, feature_names=names, decimals=args.decimals))

    folds = StratifiedKFold(n_splits=args.cv, shuffle=True, random_state=DEMO_RANDOM_STATE)
    rows = []
    for model in (bivariate, univariate):
        result = cross_validate(model, X, y, cv=folds, scoring="accuracy",
                                return_estimator=True)
        fitted = result["estimator"]
        scores = result["test_score"]
        rows.append((type(model).__name__,
                     f"{scores.mean():.3f} ± {scores.std():.3f}",
                     f"{np.mean([m.get_n_leaves() for m in fitted]):.1f}",
                     f"{100 * np.mean([_bivariate_share(m) for m in fitted]):.0f}%"))

    print(f"{args.cv}-fold stratified cross-validation (shuffled, random_state="
          f"{DEMO_RANDOM_STATE}), max_depth={args.max_depth}:")
    print()
    header = ("model", "accuracy", "leaves", "bivariate nodes")
    widths = [max(len(r[c]) for r in rows + [header]) for c in range(len(header))]
    for row in [header] + rows:
        print("  ".join(cell.ljust(w) if c == 0 else cell.rjust(w)
                        for c, (cell, w) in enumerate(zip(row, widths))).rstrip())
    return 0


# --------------------------------------------------------------------------- entry point
def build_parser():
    """The ``bivtree`` argument parser with all its subcommands."""
    parser = argparse.ArgumentParser(
        prog="bivtree",
        description="Bivariate decision trees: every split tests at most two features.")
    parser.add_argument("--version", action="version", version=f"bivtree {__version__}")
    subparsers = parser.add_subparsers(title="commands", dest="command", metavar="COMMAND")
    _add_demo(subparsers)
    return parser


def main(argv=None):
    """Run the ``bivtree`` command with ``argv`` (default: ``sys.argv[1:]``); return its status."""
    parser = build_parser()
    args = parser.parse_args(argv)
    if args.command is None:
        parser.print_help()
        return 0
    return args.run(args)


if __name__ == "__main__":
    sys.exit(main())
