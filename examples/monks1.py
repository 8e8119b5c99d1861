"""MONK's-1: a bivariate tree that states the rule ``(a1 == a2) or (a5 == 1)``.

Bollwein & Westphal (BiDT, section 7, Fig. 5) use the MONK's-1 problem to show
how a bivariate tree can be read: a univariate root isolates ``a5 = 1`` and two
bivariate tests on ``(a1, a2)`` isolate ``a1 == a2``, since for integer values
``a1 - a2 > -0.5`` and ``a1 - a2 <= 0.5`` hold together exactly when the two are
equal. This script fits the BIT2 search (``x_i + x_j`` and ``x_i - x_j``, Bioch
et al.) with the entropy criterion on all 432 instances, prints the rules and
draws the tree with the samples at every node. Samples on this integer grid
pile up, so each position shows one disc per class whose area grows with the
number of samples there.

Run from the repository root (a few seconds)::

    python examples/monks1.py [--out docs/images]
"""

import argparse
import itertools
import os

import matplotlib

matplotlib.use("Agg")  # writes files only

import matplotlib.pyplot as plt
import numpy as np

from bivtree import BivariateTreeClassifier, export_rules, plot_tree

NAMES = [f"a{i}" for i in range(1, 7)]


def monks1():
    """The 432 instances of MONK's-1 and their labels."""
    try:
        from bivtree.datasets import make_monks
    except ImportError:  # the definition, for a bivtree without the datasets module
        values = (3, 3, 2, 3, 4, 2)
        X = np.array(list(itertools.product(*(range(1, v + 1) for v in values))), dtype=float)
        y = ((X[:, 0] == X[:, 1]) | (X[:, 4] == 1)).astype(int)
        return X, y
    return make_monks(1)


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--out", default=os.path.join(os.path.dirname(__file__), "..", "docs",
                                                       "images"),
                        help="folder for the figure (default: docs/images)")
    args = parser.parse_args(argv)
    os.makedirs(args.out, exist_ok=True)

    X, y = monks1()
    clf = BivariateTreeClassifier(splitter="diagonal", criterion="entropy").fit(X, y)
    print(f"MONK's-1, {X.shape[0]} instances: {clf.get_n_leaves()} leaves, depth "
          f"{clf.get_depth()}, training accuracy {clf.score(X, y):.3f}\n")
    for row in export_rules(clf, NAMES, X=X, class_names=["no", "yes"]):
        print(f"  if {row['rule']}: {row['prediction']}  ({row['n_samples']} samples)")

    ax = plot_tree(clf, X, y, feature_names=NAMES, class_names=["rule false", "rule true"],
                   fontsize=8)
    path = os.path.join(args.out, "monks1_tree.png")
    ax.figure.savefig(path, dpi=110)
    plt.close(ax.figure)
    print(f"\nfigure written to {os.path.normpath(path)}")


if __name__ == "__main__":
    main()
