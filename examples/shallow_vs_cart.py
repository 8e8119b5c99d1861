"""The README's example: the library's best small tree against scikit-learn's of the same depth.

``ShallowTreeClassifier(max_depth=2)`` (TAO from five initial trees, the least training
error kept) and scikit-learn's ``DecisionTreeClassifier(max_depth=2)`` on the wine data
(three quarters for training): the bivariate tree's rules, then both test accuracies and
leaf counts. ``tests/test_documents.py`` checks that the code below is the README's code
block and that its output is what the README shows.

Run from the repository root (a few seconds)::

    python examples/shallow_vs_cart.py
"""

from sklearn.datasets import load_wine
from sklearn.model_selection import train_test_split
from sklearn.tree import DecisionTreeClassifier

from bivtree import ShallowTreeClassifier, export_text

data = load_wine()
X_train, X_test, y_train, y_test = train_test_split(
    data.data, data.target, stratify=data.target, random_state=0)

ours = ShallowTreeClassifier(max_depth=2).fit(X_train, y_train)
cart = DecisionTreeClassifier(max_depth=2, random_state=0).fit(X_train, y_train)
print(export_text(ours, feature_names=data.feature_names))
print(f"bivtree ShallowTreeClassifier: test accuracy {ours.score(X_test, y_test):.3f}, "
      f"{ours.get_n_leaves()} leaves")
print(f"scikit-learn DecisionTree:     test accuracy {cart.score(X_test, y_test):.3f}, "
      f"{cart.get_n_leaves()} leaves")
