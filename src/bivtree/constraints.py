"""Domain-knowledge constraints of the greedy trees: what the estimators accept, what a
fit's searches are given, and how growth keeps a tree monotone.

**monotonic_cst** (scikit-learn's ``DecisionTreeClassifier`` / ``Regressor``
parameter): per feature ``+1`` (the prediction may only grow with it), ``-1``
(only shrink) or ``0``; a list of one entry per feature, or with a DataFrame a
dict ``{column name: -1, 0 or +1}`` (unnamed columns are free). The prediction
is the mean target for regression and the probability of the positive class
(``classes_[1]``) for binary classification; more classes, several outputs and
a nonzero constraint on a categorical feature are refused. Every search finds
its best split among the *admissible* ones
(:mod:`bivtree._kernels.constraints`): a test's constrained features fix the
order of its children's values by the signs of their weights, which must agree,
and an ordered split's children must lie within the node's bounds. Growth
passes the bounds down as scikit-learn does (:class:`MonotoneGrowth`): an
ordered split's children get the bounds ``[lower, mid]`` and ``[mid, upper]``
(``mid`` the mean of their two values), an unordered one's both inherit the
node's, and every node's value is clipped to its bounds. Any two samples that
differ only in a constrained feature, both known, therefore get predictions in
its order, whatever the other features hold (missing ones included: a node
they cannot reach routes both samples alike). A sample missing the constrained
feature itself has no position to compare: at a node testing it, it follows
the node's missing side like every other sample, and the missing samples were
counted on that side when the split was checked (scikit-learn's convention),
so its prediction is still within the bounds of the node it reached.

**interaction_cst** (scikit-learn's ``HistGradientBoosting`` groups): a list of
groups of features (indices, or names with a DataFrame); two features may share
a node test only if some group holds both. As in scikit-learn, the features
listed in no group form one more group together, so
``[[0, 1]]`` with four features means ``[[0, 1], [2, 3]]``; a feature that must
only ever be tested alone is a group of its own (``[[0, 1], [2], [3]]``).
``"no_interactions"`` puts every feature in its own group (univariate splits
only) and ``"pairwise"`` allows any two features but never three in one test (it
matters only to ``splitter="lda"`` with three or more features per test).
Unlike gradient boosting's, the constraint holds per node, not per branch: a
bivariate tree is readable when each test is, whatever its ancestors test.

**Trees not grown here** (TAO, :mod:`bivtree.tao`): a tree whose tests are
admissible (no two constrained features in disagreeing senses, no pair of
features of different groups: :func:`check_node_tests`) but whose values were
not checked while it was built is made monotone by the same bounds, passed
down the finished tree (:func:`clip_tree_to_bounds`, :meth:`MonotoneGrowth.clip_tree`).
"""

from dataclasses import dataclass, field
from numbers import Integral
from typing import NamedTuple

import numpy as np

from ._kernels.constraints import CONFLICT, NO_MONOTONIC, rule_order, split_admissible

__all__ = [
    "NO_CONSTRAINTS",
    "UNBOUNDED",
    "MonotoneGrowth",
    "NodeBounds",
    "SplitConstraints",
    "check_node_tests",
    "clip_tree_to_bounds",
    "constraints_text",
    "resolve_interaction_cst",
    "resolve_monotonic_cst",
    "split_constraints",
]

#: the strings ``interaction_cst`` may be.
INTERACTION_STRINGS = ("no_interactions", "pairwise")


class NodeBounds(NamedTuple):
    """The interval a node's value must lie in under monotonic constraints."""

    lower: float
    upper: float


#: the bounds of a root, and of every node of a fit without monotonic constraints.
UNBOUNDED = NodeBounds(-np.inf, np.inf)

#: no interaction constraint: every pair of columns may share a test.
_EVERY_PAIR = np.ones((0, 0), dtype=bool)


@dataclass(frozen=True, eq=False)
class SplitConstraints:
    """The constraints of a fit, by column of the data its searches read.

    Attributes
    ----------
    monotonic : ndarray of int64, shape (n_columns,)
        Each column's monotonic constraint; empty when no column has one (the
        searches then run as without constraints).
    allowed : ndarray of bool, shape (n_columns, n_columns)
        Which two columns may share a test; shape ``(0, 0)``: any two.
    groups : tuple of frozenset
        The interaction groups (empty: none), for searches whose tests use more
        than two features.
    pairwise : bool
        ``interaction_cst="pairwise"``: any two features, never three, in a test.
    """

    monotonic: np.ndarray = field(default_factory=lambda: NO_MONOTONIC)
    allowed: np.ndarray = field(default_factory=lambda: _EVERY_PAIR)
    groups: tuple = ()
    pairwise: bool = False

    @property
    def has_monotonic(self):
        return self.monotonic.shape[0] > 0

    @property
    def has_interactions(self):
        return self.allowed.shape[0] > 0 or self.pairwise

    def allowed_pairs(self, pair_j, pair_k):
        """The pairs ``(pair_j[q], pair_k[q])`` that may share a test, in their order."""
        if self.allowed.shape[0] == 0:
            return pair_j, pair_k
        keep = self.allowed[pair_j, pair_k]
        return np.ascontiguousarray(pair_j[keep]), np.ascontiguousarray(pair_k[keep])

    def compatible(self, ranked, size=None):
        """The first of ``ranked`` features, in order, that may all share one test.

        Greedy: a feature joins when some group holds it and every feature taken
        before it, until ``size`` are taken (``None``: no limit). Without
        interaction constraints it is ``ranked[:size]``.
        """
        ranked = np.asarray(ranked)
        limit = ranked.shape[0] if size is None else min(size, ranked.shape[0])
        if self.pairwise:
            limit = min(limit, 2)
        if not self.groups:
            return ranked[:limit]
        taken, open_groups = [], list(self.groups)
        for f in ranked:
            holding = [g for g in open_groups if int(f) in g]
            if holding:
                taken.append(f)
                open_groups = holding
                if len(taken) == limit:
                    break
        return np.asarray(taken, dtype=ranked.dtype)

    def rule_order(self, features, weights):
        """The order of a linear test's children (:func:`~bivtree._kernels.constraints.rule_order`)."""
        if not self.has_monotonic:
            return 0
        return int(rule_order(self.monotonic, np.asarray(features, dtype=np.int64),
                              np.asarray(weights, dtype=np.float64)))

    def for_columns(self, sources):
        """These constraints for searched columns reading the features ``sources[c]`` (a
        category indicator reads its categorical feature, which no monotonic
        constraint may hold)."""
        sources = np.asarray(sources, dtype=np.int64)
        monotonic = self.monotonic[sources] if self.has_monotonic else NO_MONOTONIC
        allowed = (self.allowed[np.ix_(sources, sources)] if self.allowed.shape[0]
                   else _EVERY_PAIR)
        return SplitConstraints(np.ascontiguousarray(monotonic), allowed, self.groups,
                                self.pairwise)


#: a fit without constraints.
NO_CONSTRAINTS = SplitConstraints()


# ---------------------------------------------------------------- resolution
def _feature_index(name, names, parameter):
    """Index of the feature called ``name``, or a ValueError naming the parameter."""
    if names is None:
        raise ValueError(f"{parameter} names the feature {name!r}, but X has no column names; "
                         "give feature indices, or fit on a DataFrame")
    where = np.flatnonzero(np.asarray(names, dtype=object) == name)
    if where.size == 0:
        raise ValueError(f"{parameter} names {name!r}, which is not a column of X; the "
                         f"columns are {list(map(str, names))}")
    return int(where[0])


def _column_label(j, names):
    return f"feature {j}" if names is None else f"feature {j} ({str(names[j])!r})"


def resolve_monotonic_cst(monotonic_cst, n_features, feature_names=None, categorical=None):
    """``monotonic_cst`` as one int8 constraint per feature, or ``None``.

    Parameters
    ----------
    monotonic_cst : array-like of {-1, 0, 1}, dict or None
        One entry per feature, or ``{column name: -1, 0 or 1}`` (X with names).
    n_features : int
    feature_names : sequence of str, default=None
    categorical : ndarray of bool, default=None
        Which features are categorical (they must be unconstrained).

    Returns
    -------
    ndarray of int8 or None

    Raises
    ------
    ValueError
        Wrong length, a value other than -1, 0 or 1, an unknown name, or a
        constrained categorical feature.
    """
    if monotonic_cst is None:
        return None
    if isinstance(monotonic_cst, dict):
        values = np.zeros(n_features, dtype=object)
        for name, value in monotonic_cst.items():
            if not isinstance(name, str):
                # a ValueError like every other misfit of a parameter's value
                raise ValueError(  # noqa: TRY004
                    "monotonic_cst as a dict maps column names (str) to -1, 0 or 1; got the "
                    f"key {name!r} (pass a list to constrain by position)")
            values[_feature_index(name, feature_names, "monotonic_cst")] = value
    else:
        values = np.asarray(monotonic_cst, dtype=object)
        if values.ndim != 1 or values.shape[0] != n_features:
            raise ValueError(f"monotonic_cst has shape {values.shape} but X has {n_features} "
                             "features: give one constraint (-1, 0 or 1) per feature")
    bad = [v for v in values.tolist()
           if isinstance(v, bool) or not (isinstance(v, (Integral, float, np.floating))
                                          and v in (-1, 0, 1))]
    if bad:
        raise ValueError("monotonic_cst must be None or an array-like of -1, 0 or 1 (or a "
                         f"dict of such values), but got {bad[0]!r}")
    out = np.asarray([int(v) for v in values.tolist()], dtype=np.int8)
    if categorical is not None:
        constrained = np.flatnonzero(np.asarray(categorical, dtype=bool) & (out != 0))
        if constrained.size:
            j = int(constrained[0])
            raise ValueError(f"monotonic_cst constrains the categorical "
                             f"{_column_label(j, feature_names)}; categories have no order: "
                             "set its constraint to 0, or encode it as numbers (and exclude "
                             "it from categorical_features)")
    return out


def resolve_interaction_cst(interaction_cst, n_features, feature_names=None):
    """``interaction_cst`` as sorted groups of feature indices, or ``"pairwise"`` / ``None``.

    The features no group lists form one more group (scikit-learn's rule);
    ``"no_interactions"`` is one group per feature.

    Returns
    -------
    list of list of int, "pairwise" or None

    Raises
    ------
    ValueError
        A group that is not a list of indices in ``[0, n_features)`` or of
        column names of X.
    """
    if interaction_cst is None:
        return None
    if isinstance(interaction_cst, str):
        if interaction_cst not in INTERACTION_STRINGS:
            raise ValueError(f"interaction_cst must be None, {INTERACTION_STRINGS[0]!r}, "
                             f"{INTERACTION_STRINGS[1]!r} or a list of groups of features, "
                             f"got {interaction_cst!r}")
        if interaction_cst == "pairwise":
            return "pairwise"
        return [[j] for j in range(n_features)]
    groups = []
    for group in interaction_cst:
        if isinstance(group, (str, bytes)) or not hasattr(group, "__iter__"):
            raise ValueError("interaction_cst must be a list of groups (lists, tuples or sets) "
                             f"of feature indices or names, got the group {group!r}")
        indices = set()
        for item in group:
            if isinstance(item, str):
                indices.add(_feature_index(item, feature_names, "interaction_cst"))
            elif isinstance(item, Integral) and not isinstance(item, bool) and (
                    0 <= item < n_features):
                indices.add(int(item))
            else:
                raise ValueError(f"interaction_cst groups hold feature indices in [0, "
                                 f"{n_features - 1}] or column names, got {item!r} in the "
                                 f"group {group!r}")
        groups.append(sorted(indices))
    rest = sorted(set(range(n_features)) - set().union(*map(set, groups)))
    if rest:
        groups.append(rest)
    return groups


def split_constraints(monotonic, interactions, n_features):
    """The :class:`SplitConstraints` of resolved constraints (:data:`NO_CONSTRAINTS` if none).

    A monotonic constraint of zeros only is none at all: the searches then run
    as without it.
    """
    cst = NO_MONOTONIC
    if monotonic is not None and np.any(monotonic != 0):
        cst = np.ascontiguousarray(monotonic, dtype=np.int64)
    allowed, groups, pairwise = _EVERY_PAIR, (), interactions == "pairwise"
    if interactions is not None and not pairwise:
        groups = tuple(frozenset(g) for g in interactions)
        allowed = np.zeros((n_features, n_features), dtype=bool)
        for group in interactions:
            allowed[np.ix_(group, group)] = True
        np.fill_diagonal(allowed, True)
        if allowed.all():
            allowed = _EVERY_PAIR  # one group of every feature: no constraint on pairs
    if cst.shape[0] == 0 and allowed.shape[0] == 0 and not pairwise and not groups:
        return NO_CONSTRAINTS
    return SplitConstraints(cst, allowed, groups, pairwise)


# ------------------------------------------------------------------ growth
class MonotoneGrowth:
    """How growth keeps a tree monotone: children's bounds and clipped node values.

    scikit-learn's scheme (``sklearn/tree/_tree.pyx``): the root is unbounded;
    a split whose test orders its children (:meth:`SplitConstraints.rule_order`)
    gives them ``[lower, mid]`` and ``[mid, upper]`` in that order, ``mid`` the
    mean of the two children's values (kept within the node's bounds); any
    other split passes the node's bounds to both; and every node's value is
    clipped to its bounds. A pruned tree keeps this: collapsing a subtree
    leaves its root's value, clipped to bounds that contain its descendants'.
    The growth applies it node by node (:meth:`children`, :meth:`clip`); a
    finished tree gets it all at once (:meth:`clip_tree`).

    Every leaf below the lower child of an ordered node then has a value of at
    most ``mid`` and every leaf below the other at least ``mid``. Two samples
    that differ only in a constrained feature part, if at all, at a node
    testing it, whose order (not a ``CONFLICT``: the tests must be admissible)
    puts the larger value on the side the constraint asks for; so the tree is
    monotone whatever the children's values were before clipping.

    Parameters
    ----------
    constraints : SplitConstraints
    classifier : bool
        Whether a value is weighted class counts (two classes; the value is
        the last class's share) rather than a mean target.
    """

    def __init__(self, constraints, classifier):
        self.constraints = constraints
        self.classifier = classifier

    def value(self, value, weight):
        """The constrained value of a node's stored ``value`` (class counts or mean)."""
        if self.classifier:
            return float(value[-1]) / weight if weight > 0 else 0.0
        return float(value[0])

    def clip(self, summary, bounds):
        """A node's ``(value, weight, impurity)`` with its value clipped to ``bounds``.

        A classifier's counts keep their total weight and get the clipped share
        of the last class.
        """
        value, weight, impurity = summary
        v = self.value(value, weight)
        clipped = min(max(v, bounds.lower), bounds.upper)
        if clipped == v:
            return summary
        if self.classifier:
            value = np.zeros_like(value)
            value[-1] = weight * clipped
            value[0] = weight - value[-1]
        else:
            value = np.array([clipped])
        return value, weight, impurity

    def order(self, features, weights, categorical=False):
        """The order a node test requires of its children (0: none; ``categorical``: a
        category-set test, whose feature has no constraint)."""
        if categorical:
            return 0
        return self.constraints.rule_order(features, weights)

    def child_bounds(self, order, bounds, value_left, value_right):
        """The bounds of the two children of a node of ``bounds`` whose test has ``order``,
        from the children's (unclipped) values."""
        if order in (0, CONFLICT):
            return bounds, bounds
        mid = 0.5 * (value_left + value_right)
        mid = min(max(mid, bounds.lower), bounds.upper)
        low, high = NodeBounds(bounds.lower, mid), NodeBounds(mid, bounds.upper)
        return (low, high) if order > 0 else (high, low)

    def children(self, split, bounds, left, right):
        """The bounds of the children of ``split`` (summaries ``left`` and ``right``)."""
        categorical = (split.category_mask[0] != 0
                       and np.count_nonzero(split.features >= 0) == 1)
        return self.child_bounds(self.order(split.features, split.weights, categorical),
                                 bounds, self.value(left[0], left[1]),
                                 self.value(right[0], right[1]))

    def pass_down(self, children_left, children_right, orders, values):
        """Every node's bounds, passed down from the unbounded root: the one traversal of
        the scheme, for a finished tree (:meth:`clip_tree`) and TAO's states alike.

        Parameters
        ----------
        children_left, children_right : ndarray of int
            The structure (``-1``: a leaf).
        orders : sequence of int
            Each node's :meth:`order` (0 for a leaf, and for a node whose test
            orders nothing).
        values : sequence of float
            Each node's value before clipping (:meth:`value`): the children's
            give an ordered node's ``mid``.

        Returns
        -------
        lower, upper : ndarray of float64 (n_nodes,)
        """
        n = len(children_left)
        lower = np.full(n, -np.inf)
        upper = np.full(n, np.inf)
        stack = [(0, UNBOUNDED)]
        while stack:
            node, bounds = stack.pop()
            lower[node], upper[node] = bounds
            left, right = children_left[node], children_right[node]
            if left >= 0:
                low, high = self.child_bounds(orders[node], bounds, values[left], values[right])
                stack += [(left, low), (right, high)]
        return lower, upper

    def clip_tree(self, tree):
        """Pass the bounds down a finished :class:`~bivtree.tree.Tree` and clip its values.

        In place: the bounds of :meth:`pass_down`, each node's children giving
        ``mid`` by their stored values before clipping (as growth takes them),
        and every node's value clipped to its bounds (:meth:`clip`). A tree
        grown under these constraints is left as it is (its values lie within
        their bounds already); any other tree whose tests are admissible
        (:func:`check_node_tests`) comes out monotone (see the class).

        Returns
        -------
        int
            The number of node values changed.
        """
        value, weight = tree.value, tree.weighted_n_node_samples
        internal = ~tree.is_leaf
        categorical = tree.is_categorical
        orders = [self.order(tree.features[i], tree.weights[i], categorical[i])
                  if internal[i] else 0 for i in range(tree.node_count)]
        values = [self.value(value[i], weight[i]) for i in range(tree.node_count)]
        lower, upper = self.pass_down(tree.children_left, tree.children_right, orders, values)
        changed = 0
        for node in range(tree.node_count):
            bounds = NodeBounds(lower[node], upper[node])
            clipped = self.clip((value[node], weight[node], tree.impurity[node]), bounds)[0]
            # a value clipped before (to the same bounds) may come back equal
            if not np.array_equal(clipped, value[node]):
                value[node] = clipped
                changed += 1
        return changed


def clip_tree_to_bounds(tree, constraints, classifier):
    """Make a finished tree monotone under ``constraints``: :meth:`MonotoneGrowth.clip_tree`.

    The one place a tree built without the growth's bounds (a TAO tree) gets
    them; without monotonic constraints the tree is left as it is.

    Parameters
    ----------
    tree : Tree
        Its tests must be admissible (:func:`check_node_tests`); changed in place.
    constraints : SplitConstraints
    classifier : bool
        Whether ``tree.value`` holds weighted counts of two classes (the value
        constrained is the last class's share) rather than a mean target.

    Returns
    -------
    int
        The number of node values changed.
    """
    if not constraints.has_monotonic:
        return 0
    return MonotoneGrowth(constraints, classifier).clip_tree(tree)


def check_node_tests(features, weights, constraints, what="the tree", names=None):
    """Raise a ValueError naming the first node whose test ``constraints`` forbid.

    A test is forbidden when two of its features (nonzero weights) share no
    interaction group, or when its constrained features require opposite
    orders of its children (a ``CONFLICT``, :func:`~bivtree._kernels.constraints.rule_order`):
    the structural half of :func:`~bivtree._kernels.constraints.split_admissible`,
    which is called with unbounded values. The order of the children's values
    is not checked (:func:`clip_tree_to_bounds` enforces it).

    Parameters
    ----------
    features : ndarray of int (n_nodes, n_slots)
        Each node's tested features (``-1``: an unused slot; leaves use none).
    weights : ndarray of float (n_nodes, n_slots)
    constraints : SplitConstraints
    what : str, default="the tree"
        Names the tree in the message.
    names : sequence of str, default=None
        The features' names, for the message.
    """
    if not (constraints.has_monotonic or constraints.allowed.shape[0]):
        return
    cst = constraints.monotonic
    for node in range(features.shape[0]):
        f = np.ascontiguousarray(features[node], dtype=np.int64)
        w = np.ascontiguousarray(weights[node], dtype=np.float64)
        used = [int(j) for j, v in zip(f, w) if j >= 0 and v != 0.0]
        if len(used) < 2 or split_admissible(cst, constraints.allowed, f, w, -np.inf, np.inf,
                                             0.0, 0.0):
            continue  # a test of one feature is always admissible
        tested = " and ".join(_column_label(j, names) for j in used)
        if constraints.rule_order(f, w) == CONFLICT:
            reason = ("whose monotonic constraints require opposite orders of its children "
                      "with the signs of its weights")
        else:
            reason = "which interaction_cst keeps out of one test"
        raise ValueError(f"{what} breaks the constraints: its node {node} tests {tested}, "
                         f"{reason}; grow it under the same monotonic_cst and "
                         "interaction_cst")


# --------------------------------------------------------------- description
def constraints_text(monotonic, interactions, names):
    """One line saying which constraints a model was fitted under (``None``: none).

    ``monotonic``: one constraint per feature or None; ``interactions``: resolved
    groups, ``"pairwise"`` or None; ``names``: the features' names.
    """
    parts = []
    if monotonic is not None:
        signs = {1: "increasing", -1: "decreasing"}
        listed = [f"{names[j]} {signs[int(c)]}" for j, c in enumerate(monotonic) if c != 0]
        parts.append("monotonic: " + (", ".join(listed) if listed else "none"))
    if interactions is not None:
        if interactions == "pairwise":
            parts.append("interactions: any two features per test")
        else:
            groups = ", ".join("{" + ", ".join(str(names[j]) for j in g) + "}"
                               for g in interactions)
            parts.append(f"interactions: only within {groups}")
    return "; ".join(parts) if parts else None
