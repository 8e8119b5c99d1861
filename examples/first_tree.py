"""A first bivariate tree: the example of the getting-started guide, as it is printed there.

Fits a bivariate tree of depth at most 3 on scikit-learn's breast-cancer data (three
quarters for training), prints its rules in the data's units, the predictions of five
test samples and the test accuracy. ``tests/test_documents.py`` checks that the code
below is the guide's code block and that its output is what the guide shows.

Run from the repository root (a few seconds)::

    python examples/first_tree.py
"""

from sklearn.datasets import load_breast_cancer
from sklearn.model_selection import train_test_split

from bivtree import BivariateTreeClassifier, export_text

data = load_breast_cancer()
X_train, X_test, y_train, y_test = train_test_split(
    data.data, data.target, stratify=data.target, random_state=0)

clf = BivariateTreeClassifier(max_depth=3, n_jobs=-1).fit(X_train, y_train)
print(export_text(clf, feature_names=list(data.feature_names)))
print(clf.predict(X_test[:5]))
print(f"test accuracy {clf.score(X_test, y_test):.3f} with {clf.get_n_leaves()} leaves")
