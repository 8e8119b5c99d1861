"""Breast cancer: the case study of Kairgeldin & Carreira-Perpinan (KDD 2024, section 5.1.1).

The paper reads a 5-leaf bivariate tree of the Wisconsin breast-cancer data at
two levels: globally (few rules, few of the 30 features) and locally (each
node's pair of features is a new, meaningful feature, seen in a scatter plot).
This script does the same with bivariate CART: it splits the 569 samples into
455 for training and 114 for testing as in the paper, fits a tree with at most
5 leaves, compares it with scikit-learn's CART of the same size, prints one rule
per leaf, and draws the tree with the training samples at every decision node
and its root large.

Run from the repository root (a few seconds)::

    python examples/breast_cancer.py [--out docs/images]
"""

import argparse
import os

import matplotlib

matplotlib.use("Agg")  # writes files only

import matplotlib.pyplot as plt
import numpy as np
from sklearn.datasets import load_breast_cancer
from sklearn.model_selection import train_test_split
from sklearn.tree import DecisionTreeClassifier

from bivtree import BivariateTreeClassifier, export_rules, plot_split, plot_tree
from bivtree.export import rules_markdown

SEED = 0


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--out", default=os.path.join(os.path.dirname(__file__), "..", "docs",
                                                       "images"),
                        help="folder for the figures (default: docs/images)")
    args = parser.parse_args(argv)
    os.makedirs(args.out, exist_ok=True)

    data = load_breast_cancer(as_frame=True)
    X_train, X_test, y_train, y_test = train_test_split(
        data.data, data.target, test_size=114, stratify=data.target, random_state=SEED)
    classes = list(data.target_names)  # 0 = malignant, 1 = benign

    clf = BivariateTreeClassifier(max_leaf_nodes=5).fit(X_train, y_train)
    cart = DecisionTreeClassifier(max_leaf_nodes=5, random_state=SEED).fit(X_train, y_train)
    used = np.unique(clf.tree_.features[clf.tree_.features >= 0])
    print(f"{len(X_train)} training / {len(X_test)} test samples, 30 features\n")
    print(f"bivariate CART : {clf.get_n_leaves()} leaves, depth {clf.get_depth()}, test "
          f"accuracy {clf.score(X_test, y_test):.3f}, uses {used.size} features")
    print(f"univariate CART: {cart.get_n_leaves()} leaves, depth {cart.get_depth()}, test "
          f"accuracy {cart.score(X_test, y_test):.3f}\n")
    rows = export_rules(clf, X=X_train, class_names=classes)
    print(rules_markdown(rows))

    ax = plot_tree(clf, X_train, y_train, class_names=classes)
    path = os.path.join(args.out, "breast_cancer_tree.png")
    ax.figure.savefig(path, dpi=100)
    plt.close(ax.figure)
    print(f"figure written to {os.path.normpath(path)}")

    ax = plot_split(clf, 0, X_train, y_train, class_names=classes)
    path = os.path.join(args.out, "breast_cancer_root.png")
    ax.figure.savefig(path, dpi=100)
    plt.close(ax.figure)
    print(f"figure written to {os.path.normpath(path)}")


if __name__ == "__main__":
    main()
