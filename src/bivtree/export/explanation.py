"""One prediction explained: the path a sample takes, and what each feature did on it.

- :func:`explain`: the decision path of one sample as an :class:`Explanation`, one
  :class:`PathStep` per decision node (the rule, the values the rule reads, the
  projection the routing kernel compares with the threshold, the margin, the side
  taken), the :class:`Leaf` it ends in and its per-feature contributions;
- :func:`contributions`: the per-feature contributions of many samples at once.

**Contributions.** Following Saabas, a prediction is written as the value at the root
plus one change per decision node on the path: the node's value (class probabilities,
the shares of the weighted class counts, for a classifier; the mean target for a
regressor) moves to the value of the child taken, and that change is credited to the
features the node tests (an indicator slot's categorical feature among them). A
univariate or categorical node credits its one feature.
A node testing several features splits the change **equally** between the features
whose weight is not zero: the fitted tree stores no per-node statistics of the
features (means, spreads), and a split by the size of each term ``|w_k * x_k|`` would
depend on where each feature's zero lies (degrees Celsius or kelvin), which the rule
itself does not. The equal split is unchanged by any shift or rescaling of a feature
that leaves the tree's decisions unchanged. The sum telescopes, so

    value at the root + sum of the contributions == the prediction

up to floating-point rounding, for every sample.
"""

import math
from dataclasses import dataclass
from itertools import pairwise

import numpy as np

from .._kernels.scan import ALL_KNOWN_LEFT
from .._kernels.traversal import in_category_set, project_row, slot_value
from ..estimators import tree_estimator
from ..tree import mask_to_categories
from .formatting import (
    DEFAULT_DECIMALS,
    format_categories,
    format_number,
    format_rule,
    missing_text,
    quoted_name,
    resolve_class_labels,
    resolve_feature_names,
)

__all__ = ["Explanation", "Leaf", "PathStep", "contributions", "explain"]

#: significant digits of the weights and thresholds in the printed path.
_RULE_DIGITS = DEFAULT_DECIMALS
#: significant digits of the projections, margins and values in the printed path.
_VALUE_DIGITS = 5


@dataclass(frozen=True)
class PathStep:
    """One decision node on a sample's path.

    Attributes
    ----------
    node : int
        Id of the node in ``estimator.tree_``.
    rule : str
        The node's test in the data's units with exact numbers, e.g.
        ``"x0 + 0.3125 * x4 <= 1.75"``, ``"colour in {1, 3}"`` or, with an
        indicator slot, ``"x0 + 1.25 * [colour in {3}] <= 0.5"``; the sample goes
        left iff it holds.
    feature_indices : tuple of int
        Columns the node tests, in slot order.
    features : tuple of str
        Their names.
    weights : tuple of float
        Coefficient of each tested feature (1.0 for a categorical node).
    values : tuple of float
        The value the rule reads in each slot: the sample's value of the feature,
        or, in an indicator slot, the indicator of the slot's set (1.0 when the
        sample's code is in ``indicator_categories[k]``, 0.0 for any other value,
        NaN when it is missing).
    projection : float or None
        ``sum_k weights[k] * values[k]`` added in slot order from ``0.0``, the very
        number the routing kernel compares with ``threshold`` (with indicator
        slots, the same terms added in the same order); ``None`` at a
        categorical node.
    threshold : float or None
        ``None`` at a categorical node.
    margin : float or None
        ``threshold - projection``: non-negative iff the sample goes left.
    goes_left : bool
        Whether the test holds (the sample goes to the left child).
    child : int
        Id of the child taken.
    categories : tuple of int or None
        At a categorical node, the codes that go left.
    category : float or None
        At a categorical node, the sample's code.
    in_set : bool or None
        At a categorical node, whether the code is in ``categories``.
    missing : bool
        Whether the sample misses (NaN) a feature of the test: it then takes the
        node's missing side (``Tree.missing_go_left``), and ``projection`` and
        ``margin`` are NaN.
    indicator_categories : tuple or None
        At a linear node, per slot the category codes of an indicator slot's set
        (a tuple of int), ``None`` for a slot reading its feature's value; ``None``
        at a categorical node.
    """

    node: int
    rule: str
    feature_indices: tuple
    features: tuple
    weights: tuple
    values: tuple
    projection: float | None
    threshold: float | None
    margin: float | None
    goes_left: bool
    child: int
    categories: tuple | None = None
    category: float | None = None
    in_set: bool | None = None
    missing: bool = False
    indicator_categories: tuple | None = None

    @property
    def is_categorical(self):
        """Whether the node tests a category set."""
        return self.categories is not None

    @property
    def has_indicator_slots(self):
        """Whether the node is linear with an indicator slot."""
        return self.indicator_categories is not None and any(
            codes is not None for codes in self.indicator_categories)


@dataclass(frozen=True)
class Leaf:
    """The leaf a sample ends in.

    Attributes
    ----------
    node : int
        Id of the leaf in ``estimator.tree_``.
    value : ndarray
        Weighted training class counts (classifier) or ``[mean target]`` (regressor).
    prediction : object
        The predicted class label, or the mean target.
    probabilities : ndarray or None
        Class probabilities (``predict_proba``'s row); ``None`` for a regressor.
    weighted_n_samples : float
        Training weight that reached the leaf.
    n_samples : int
        Training samples that reached the leaf.
    """

    node: int
    value: np.ndarray
    prediction: object
    probabilities: np.ndarray | None
    weighted_n_samples: float
    n_samples: int


@dataclass(frozen=True)
class Explanation:
    """One prediction explained: the path, the leaf, the per-feature contributions.

    Attributes
    ----------
    steps : tuple of PathStep
        The decision nodes on the path, root first.
    leaf : Leaf
    prediction : object
        What ``predict`` returns for the sample.
    root_value : float or ndarray of shape (n_classes,)
        The value at the root: the training mean (regressor) or the class shares of
        the training weight (classifier).
    contributions : ndarray of shape (n_features,) or (n_features, n_classes)
        Per feature, the change of the node value credited to it along the path
        (see the module's description); ``root_value + contributions.sum(axis=0)``
        is the predicted value.
    feature_names : tuple of str
    class_names : tuple or None
        Display names of the classes; ``None`` for a regressor.

    Examples
    --------
    >>> import numpy as np
    >>> from bivtree import BivariateTreeRegressor
    >>> from bivtree import explain
    >>> X = np.array([[0.0, 1.0], [1.0, 0.0], [2.0, 2.0], [3.0, 1.0]])
    >>> reg = BivariateTreeRegressor(splitter="univariate").fit(X, [1.0, 1.0, 3.0, 3.0])
    >>> result = explain(reg, [2.5, 1.0])
    >>> result.path, result.prediction, result.root_value
    ([0, 2], 3.0, 2.0)
    >>> result.contributions.tolist()
    [1.0, 0.0]
    """

    steps: tuple
    leaf: Leaf
    prediction: object
    root_value: object
    contributions: np.ndarray
    feature_names: tuple
    class_names: tuple | None

    @property
    def path(self):
        """Node ids from the root to the leaf, as ``decision_path`` lists them."""
        return [step.node for step in self.steps] + [self.leaf.node]

    @property
    def predicted_value(self):
        """The leaf's probabilities (classifier) or mean target (regressor)."""
        if self.leaf.probabilities is not None:
            return self.leaf.probabilities
        return self.leaf.prediction

    def __str__(self):
        lines = [f"prediction: {self._prediction_text()}", "path:"]
        lines += [f"  node {step.node}: {_step_text(step, self.feature_names)}"
                  for step in self.steps]
        lines.append(f"  leaf {self.leaf.node}: {self._leaf_text()}")
        lines += self._contribution_lines()
        return "\n".join(lines)

    def _predicted_index(self):
        return int(np.argmax(self.leaf.probabilities))

    def _prediction_text(self):
        if self.class_names is None:
            return format_number(self.prediction, _VALUE_DIGITS)
        shares = ", ".join(f"{name} {format_number(p, _VALUE_DIGITS)}"
                           for name, p in zip(self.class_names, self.leaf.probabilities))
        return f"{self.class_names[self._predicted_index()]}  (probabilities: {shares})"

    def _leaf_text(self):
        weight = (f"{self.leaf.n_samples} training samples, weight "
                  f"{format_number(self.leaf.weighted_n_samples, _VALUE_DIGITS)}")
        if self.class_names is None:
            return f"{weight}, mean {format_number(self.leaf.value[0], _VALUE_DIGITS)}"
        counts = ", ".join(f"{name} {format_number(c, _VALUE_DIGITS)}"
                           for name, c in zip(self.class_names, self.leaf.value))
        return f"{weight}, class weights: {counts}"

    def _contribution_lines(self):
        if self.class_names is None:
            target = "the prediction"
            root, credit = self.root_value, self.contributions
        else:
            k = self._predicted_index()
            target = f"P({self.class_names[k]})"
            root, credit = self.root_value[k], self.contributions[:, k]
        lines = [f"contributions to {target} (root value {format_number(root, _VALUE_DIGITS)}):"]
        for f in np.argsort(-np.abs(credit), kind="stable"):
            if credit[f] != 0.0:
                lines.append(f"  {self.feature_names[f]}: "
                             f"{'+' if credit[f] > 0 else ''}"
                             f"{format_number(credit[f], _VALUE_DIGITS)}")
        return lines


def _step_text(step, feature_names):
    """A path step as one line, e.g. ``"a + 2 * b = 5.5 <= 6  (margin 0.5)  -> yes"``.

    A sample passing the node by its missing side gets the node's test, then the
    features it misses: ``"a + 2 * b <= 6: b is missing  -> no (the node's side for
    missing values)"``.
    """
    answer = "yes" if step.goes_left else "no"
    if step.threshold is not None and step.threshold >= ALL_KNOWN_LEFT:
        return f"{missing_text(step.feature_indices, feature_names, missing=False)}  -> {answer}"
    if step.is_categorical:
        # a feature encoded at fit names its codes' values (formatting.FeatureName)
        labels = getattr(step.features[0], "categories", None)

        def shown(code):
            code = float(code)
            if labels is not None and code.is_integer() and 0 <= code < len(labels):
                return labels[int(code)]
            return format_number(code, _VALUE_DIGITS)

        members = ", ".join(shown(c) for c in step.categories)
        name = quoted_name(step.features[0])
        if step.missing:
            return f"{name} in {{{members}}}: {_missed(step, feature_names, answer)}"
        return f"{name} = {shown(step.category)} in {{{members}}}  -> {answer}"
    # the rule as the sum it is (a test of two indicators prints as such, not as its
    # boolean reading), each slot named by what it reads
    sets = step.indicator_categories or (None,) * len(step.feature_indices)
    terms = [quoted_name(feature_names[f]) if codes is None
             else f"[{format_categories(feature_names[f], codes)}]"
             for f, codes in zip(step.feature_indices, sets)]
    rule = format_rule(range(len(terms)), step.weights, step.threshold, terms,
                       decimals=_RULE_DIGITS, quote=False)
    if step.missing:
        return f"{rule}: {_missed(step, feature_names, answer)}"
    # the printed rule ends in " <= threshold": the projection goes in between
    left_side, threshold = rule.rsplit(" <= ", 1)
    return (f"{left_side} = {format_number(step.projection, _VALUE_DIGITS)} <= {threshold}"
            f"  (margin {format_number(step.margin, _VALUE_DIGITS)})  -> {answer}")


def _missed(step, feature_names, answer):
    """``"x7 is missing  -> yes (the node's side for missing values)"``: the features of
    the step this sample misses (a value unseen at fit reads as missing too, and not
    every feature of the node need be missing), then the side taken."""
    missed = [f for f, v in zip(step.feature_indices, step.values) if math.isnan(v)]
    return (f"{missing_text(missed, feature_names)}  -> {answer} "
            "(the node's side for missing values)")


# ------------------------------------------------------------------ node values
def _is_classifier(estimator):
    return getattr(estimator, "classes_", None) is not None


def _node_values(estimator):
    """Per node, the value a sample stopping there would get: (n_nodes, n_outputs).

    The class shares are computed as ``predict_proba`` computes them at a leaf, so the
    value of the leaf reached is the predicted probability row to the last bit.
    """
    value = estimator.tree_.value
    if not _is_classifier(estimator):
        return value[:, :1]
    totals = value.sum(axis=1, keepdims=True)
    return value / np.where(totals > 0, totals, 1.0)


def _credit_shares(tree):
    """Per node and slot, the share of the node's change credited to the slot's feature.

    Slots with a feature and a nonzero weight share equally (see the module's
    description); a categorical node's one slot gets all of it; leaves get nothing.
    """
    credited = (tree.features >= 0) & (tree.weights != 0.0)
    credited[tree.is_leaf] = False
    categorical = tree.is_categorical
    credited[categorical] = False
    credited[categorical, 0] = True
    counts = credited.sum(axis=1, keepdims=True)
    return np.where(credited, 1.0 / np.maximum(counts, 1), 0.0)


def _path_contributions(estimator, X):
    """Contributions of every row of validated ``X``: (n_samples, n_features, n_outputs)."""
    tree = estimator.tree_
    values = _node_values(estimator)
    paths = tree.decision_path(X)
    indptr, nodes = paths.indptr, paths.indices  # each row's nodes, root to leaf
    n_rows, n_features, n_outputs = X.shape[0], tree.n_features, values.shape[1]
    rows = np.repeat(np.arange(n_rows), np.diff(indptr))
    is_last = np.zeros(nodes.size, dtype=bool)
    is_last[indptr[1:] - 1] = True
    at = np.flatnonzero(~is_last)  # positions of decision nodes; the child is next
    parents, step_rows = nodes[at], rows[at]
    change = values[nodes[at + 1]] - values[parents]
    shares = _credit_shares(tree)
    out = np.zeros((n_rows * n_features, n_outputs))
    for slot in range(tree.features.shape[1]):
        share = shares[parents, slot]
        used = share > 0.0
        cells = step_rows[used] * n_features + tree.features[parents[used], slot]
        for k in range(n_outputs):
            out[:, k] += np.bincount(cells, weights=share[used] * change[used, k],
                                     minlength=out.shape[0])
    return out.reshape(n_rows, n_features, n_outputs)


def _root_value(estimator):
    value = _node_values(estimator)[0]
    return value if _is_classifier(estimator) else float(value[0])


def contributions(estimator, X, *, return_root=False):
    """Per-feature contributions of many samples (Saabas style, along each path).

    Parameters
    ----------
    estimator : fitted bivtree estimator
        A :class:`~bivtree.BivariateTreeClassifier`, :class:`~bivtree.BivariateTreeRegressor`,
        :class:`~bivtree.TAOTreeClassifier` or :class:`~bivtree.TAOTreeRegressor`.
        A model selector (``TAOTreeClassifierCV``, ``CostComplexityCV``...) stands
        for its chosen tree, ``best_estimator_``.
    X : array-like of shape (n_samples, n_features)
        Checked as ``predict`` checks it.
    return_root : bool, default=False
        Also return the value at the root.

    Returns
    -------
    contributions : ndarray of shape (n_samples, n_features) or (n_samples, n_features, n_classes)
        Regressor: the change of the mean credited to each feature; classifier: the
        change of each class probability. A node testing several features shares its
        change equally between them (see :mod:`bivtree.export.explanation`).
    root : float or ndarray of shape (n_classes,)
        Only with ``return_root``: ``root + contributions.sum(axis=1)`` is
        ``predict`` (regressor) or ``predict_proba`` (classifier).

    Examples
    --------
    >>> import numpy as np
    >>> from bivtree import BivariateTreeRegressor
    >>> from bivtree import contributions
    >>> X = np.array([[0.0, 1.0], [1.0, 0.0], [2.0, 2.0], [3.0, 1.0]])
    >>> reg = BivariateTreeRegressor(splitter="univariate").fit(X, [1.0, 1.0, 3.0, 3.0])
    >>> credit, root = contributions(reg, X, return_root=True)
    >>> credit.shape, root
    ((4, 2), 2.0)
    >>> bool(np.allclose(root + credit.sum(axis=1), reg.predict(X)))
    True
    """
    estimator = tree_estimator(estimator, "contributions")  # a model selector: its chosen tree
    X = estimator._validate_X_predict(X)
    credit = _path_contributions(estimator, X)
    if not _is_classifier(estimator):
        credit = credit[:, :, 0]
    return (credit, _root_value(estimator)) if return_root else credit


# ---------------------------------------------------------------------- explain
def one_sample(estimator, row, name="X_row"):
    """``row`` checked as ``predict`` input and returned as a (1, n_features) array.

    ``row`` may be a 1-D array or list, a one-row 2-D array or DataFrame, or a
    Series (its index names the features); ``name`` is the argument named
    when it holds more than one sample. Shared by :func:`explain` and the
    pictures' ``highlight``.
    """
    if getattr(row, "ndim", None) == 1 and hasattr(row, "to_frame"):
        # a Series: its index names the features; a row of mixed types (text
        # categories beside numbers) is of dtype object, each column's own type back
        row = row.to_frame().T.infer_objects()
    elif not hasattr(row, "columns"):
        array = np.asarray(row)
        row = array.reshape(1, -1) if array.ndim == 1 else array
    X = estimator._validate_X_predict(row)
    if X.shape[0] != 1:
        raise ValueError(f"{name} is one sample; got {X.shape[0]} rows")
    return X


def _step(tree, X, node, child, feature_names):
    """The :class:`PathStep` of ``node`` for the one row of ``X``."""
    features, weights = tree.features[node], tree.weights[node]
    mask = tree.categorical_mask(node)
    used = np.flatnonzero(features >= 0)
    if mask != 0:
        used = used[:1]  # a categorical node reads its first slot only
    indices = tuple(int(f) for f in features[used])
    common = {
        "node": int(node), "child": int(child), "feature_indices": indices,
        "features": tuple(feature_names[f] for f in indices),
        "weights": tuple(float(w) for w in weights[used]),
        "values": tuple(float(X[0, f]) for f in indices),
        "goes_left": bool(child == tree.children_left[node]),
        "missing": bool(np.isnan(X[0, list(indices)]).any())}
    if mask != 0:
        code = float(X[0, indices[0]])
        return PathStep(rule=format_rule(features, weights, 0.0, feature_names,
                                         decimals=None, category_mask=int(mask)),
                        projection=None, threshold=None, margin=None,
                        categories=tuple(mask_to_categories(mask)), category=code,
                        in_set=bool(in_category_set(code, np.uint64(mask))), **common)
    masks = tree.category_mask[node]
    threshold = float(tree.threshold[node])
    rule = format_rule(features, weights, threshold, feature_names, decimals=None,
                       category_mask=masks)
    if not masks.any():
        # the routing kernel's own sum, so the projection is the number it compared
        projection = float(project_row(X, 0, features, weights))
        return PathStep(rule=rule, projection=projection, threshold=threshold,
                        margin=threshold - projection,
                        indicator_categories=(None,) * len(indices), **common)
    # an indicator slot reads its set's indicator (the kernel's slot_value); the sum
    # is the kernel's, term by term in slot order from 0.0
    values = tuple(float(slot_value(X[0, features[k]], masks[k])) for k in used)
    projection = 0.0
    for w, v in zip(common["weights"], values):
        projection += w * v
    common["values"] = values
    sets = tuple(tuple(mask_to_categories(masks[k])) if masks[k] else None for k in used)
    return PathStep(rule=rule, projection=projection, threshold=threshold,
                    margin=threshold - projection, indicator_categories=sets, **common)


def _leaf(estimator, node):
    tree = estimator.tree_
    value = tree.value[node].copy()
    if _is_classifier(estimator):
        probabilities = _node_values(estimator)[node]
        prediction = estimator.classes_[int(np.argmax(probabilities))]
    else:
        probabilities, prediction = None, float(value[0])
    return Leaf(node=int(node), value=value, prediction=prediction,
                probabilities=probabilities,
                weighted_n_samples=float(tree.weighted_n_node_samples[node]),
                n_samples=int(tree.n_node_samples[node]))


def explain(estimator, X_row, *, feature_names=None, class_names=None):
    """Explain one prediction: the decision path, the leaf, the feature contributions.

    Parameters
    ----------
    estimator : fitted bivtree estimator
        A :class:`~bivtree.BivariateTreeClassifier`, :class:`~bivtree.BivariateTreeRegressor`,
        :class:`~bivtree.TAOTreeClassifier` or :class:`~bivtree.TAOTreeRegressor`.
        A model selector (``TAOTreeClassifierCV``, ``CostComplexityCV``...) stands
        for its chosen tree, ``best_estimator_``.
    X_row : array-like of shape (n_features,) or (1, n_features)
        One sample: a list, a 1-D or one-row array, a pandas Series or a one-row
        DataFrame (matched by column name when the estimator was fitted on a
        DataFrame). Checked as ``predict`` checks its input.
    feature_names : sequence of str, default=None
        Names to print; by default ``feature_names_in_``, else ``x0, x1, ...``.
    class_names : sequence, default=None
        Names of the classes to print; by default the labels.

    Returns
    -------
    Explanation
        ``str()`` of it prints the path one node a line.

    Examples
    --------
    >>> import numpy as np
    >>> from bivtree import BivariateTreeClassifier
    >>> from bivtree import explain
    >>> X = np.array([[1.0, 1.0], [2.0, 1.0], [1.0, 3.0], [3.0, 3.0]])
    >>> clf = BivariateTreeClassifier(splitter="univariate").fit(X, [0, 0, 1, 1])
    >>> result = explain(clf, [1.5, 2.5], feature_names=["width", "height"])
    >>> result.path, result.prediction
    ([0, 2], np.int64(1))
    >>> print(result.steps[0].rule)
    height <= 2.0
    >>> print(result)  # doctest: +NORMALIZE_WHITESPACE
    prediction: 1  (probabilities: 0 0, 1 1)
    path:
      node 0: height = 2.5 <= 2  (margin -0.5)  -> no
      leaf 2: 2 training samples, weight 2, class weights: 0 0, 1 2
    contributions to P(1) (root value 0.5):
      height: +0.5
    """
    estimator = tree_estimator(estimator, "explain")  # a model selector: its chosen tree
    X = one_sample(estimator, X_row)
    names = resolve_feature_names(estimator, feature_names)
    labels = resolve_class_labels(estimator, class_names)
    tree = estimator.tree_
    path = tree.decision_path(X).indices
    steps = tuple(_step(tree, X, node, child, names) for node, child in pairwise(path))
    leaf = _leaf(estimator, path[-1])
    credit = _path_contributions(estimator, X)[0]
    if labels is None:
        credit = credit[:, 0]
    return Explanation(steps=steps, leaf=leaf, prediction=leaf.prediction,
                       root_value=_root_value(estimator), contributions=credit,
                       feature_names=tuple(names),
                       class_names=None if labels is None else tuple(labels))
