"""Minimal cost-complexity pruning with scikit-learn's exact semantics.

Weakest-link pruning (Breiman et al., 1984, ch. 3) only needs each node's
risk and the tree's shape, so it works unchanged for univariate, bivariate or
any other split type: nothing here looks at ``features``, ``weights`` or
``threshold``.

The risk of node ``t`` is ``R(t) = weighted_n_node_samples[t] /
weighted_n_node_samples[0] * impurity[t]`` and the risk of the branch ``T_t``
rooted at ``t`` is the sum of the risks of its leaves. The effective alpha of
an internal node, ``(R(t) - R(T_t)) / (|leaves(T_t)| - 1)``, is the complexity
price at which collapsing ``t`` into a leaf stops costing anything; pruning
repeatedly collapses the node with the smallest one.

The loop below mirrors scikit-learn's ``_cost_complexity_prune``
(``sklearn/tree/_tree.pyx``) operation for operation, so paths and pruned
trees agree with scikit-learn bit for bit, ties and rounding included:

* exactly **one** node is collapsed per step. Nodes that share the smallest
  effective alpha are collapsed in consecutive steps, so the path repeats that
  alpha; among equal alphas the node with the smallest id goes first;
* there is no floating-point tolerance anywhere. Branch risks are updated
  incrementally (the increase ``R(t) - R(T_t)`` is added to every ancestor),
  and an effective alpha that rounding left a hair below zero is kept as is;
* ``ccp_alpha`` prunes while ``effective_alpha <= ccp_alpha`` (scikit-learn
  stops on ``ccp_alpha < effective_alpha``) and never looks past the first
  step that is too expensive;
* ``ccp_alpha == 0`` skips pruning altogether, as ``BaseDecisionTree.fit``
  does, so splits with zero impurity decrease survive at alpha 0.
"""

import numpy as np
from sklearn.utils import Bunch

from ._config import DTYPE, ITYPE, TREE_LEAF
from ._validation import Interval, Real, check_params
from .tree import subtree

__all__ = ["cost_complexity_pruning_path", "prune_tree"]

#: parent of the root, as in scikit-learn (any negative id would do).
_NO_PARENT = -1


#: what :func:`prune_tree` accepts as ``ccp_alpha``.
_PRUNE_CONSTRAINTS = {"ccp_alpha": [Interval(Real, 0.0, None, closed="left")]}


def _check_ccp_alpha(ccp_alpha):
    """Return ``ccp_alpha`` as a float, or raise ValueError if it is unusable."""
    check_params("prune_tree", {"ccp_alpha": ccp_alpha}, _PRUNE_CONSTRAINTS)
    return float(ccp_alpha)


def _weakest_link_pruning(tree, ccp_alpha=None):
    """Collapse weakest links until the root is a leaf or ``ccp_alpha`` is exceeded.

    Parameters
    ----------
    tree : Tree
        The unpruned tree.
    ccp_alpha : float or None
        Stop before the first step whose effective alpha is greater than
        ``ccp_alpha``; ``None`` prunes all the way to the root.

    Returns
    -------
    ccp_alphas : ndarray of float64, shape (n_steps + 1,)
        0, then the effective alpha of every step taken.
    impurities : ndarray of float64, shape (n_steps + 1,)
        Total leaf risk of the subtree before the first step and after each.
    leaves : ndarray of bool, shape (n_nodes,)
        Leaves of the final subtree (for :func:`bivtree.tree.subtree`).
    """
    w = tree.weighted_n_node_samples
    impurity = tree.impurity
    total_weight = w[0]
    # Guard the divisions below: a zero root weight or a NaN impurity would
    # silently turn every effective alpha into NaN and break the argmin.
    if not (np.isfinite(total_weight) and total_weight > 0.0):
        raise ValueError("cost-complexity pruning needs a positive, finite root weight "
                         f"(weighted_n_node_samples[0] = {total_weight!r})")
    if not (np.all(np.isfinite(w)) and np.all(np.isfinite(impurity))):
        raise ValueError("cost-complexity pruning needs finite node weights and impurities")

    n_nodes = tree.node_count
    cl, cr = tree.children_left, tree.children_right
    is_leaf = cl == TREE_LEAF

    # Same expression and evaluation order as scikit-learn: (w * impurity) / total.
    r_node = w * impurity / total_weight

    # Parents and reachability in one pass: children always have larger ids
    # than their parent, so a node is settled before its children are visited.
    # Nodes that are not reachable from the root (never produced by the
    # growers, but the Tree class allows them) take no part, as in sklearn.
    parent = np.full(n_nodes, _NO_PARENT, dtype=ITYPE)
    reachable = np.zeros(n_nodes, dtype=bool)
    reachable[0] = True
    for node in range(n_nodes):
        if reachable[node] and not is_leaf[node]:
            for child in (cl[node], cr[node]):
                parent[child] = node
                reachable[child] = True

    leaves = reachable & is_leaf
    # A candidate is an internal node of the current subtree.
    candidates = reachable & ~is_leaf
    in_subtree = reachable.copy()

    # Branch risk and leaf count of every node. Leaves are added to their
    # ancestors in increasing id order, as sklearn does, so that the float
    # sums (and hence every alpha) round exactly like sklearn's.
    # Python floats add exactly as float64 does, and lists index far faster than
    # arrays: this loop costs the sum of the leaves' depths, which is quadratic in
    # the depth of a lopsided tree.
    parent_of = parent.tolist()
    r_sum, count = [0.0] * n_nodes, [0] * n_nodes
    for leaf, risk in zip(np.flatnonzero(leaves).tolist(), r_node[leaves].tolist()):
        r_sum[leaf] = risk
        node = parent_of[leaf]
        while node != _NO_PARENT:
            r_sum[node] += risk
            count[node] += 1
            node = parent_of[node]
    r_branch = np.asarray(r_sum, dtype=DTYPE)
    n_leaves = np.asarray(count, dtype=ITYPE)

    ccp_alphas = [0.0]
    impurities = [r_branch[0]]

    while candidates[0]:
        ids = np.flatnonzero(candidates)
        alphas = (r_node[ids] - r_branch[ids]) / (n_leaves[ids] - 1)
        # argmin returns the first minimum: the smallest id wins a tie, exactly
        # like sklearn's ascending scan with a strict '<'.
        best = int(np.argmin(alphas))
        effective_alpha = float(alphas[best])
        pruned = int(ids[best])

        # sklearn stops on `ccp_alpha < effective_alpha`, i.e. it still prunes
        # a node whose effective alpha equals ccp_alpha.
        if ccp_alpha is not None and ccp_alpha < effective_alpha:
            break

        # Drop the branch below `pruned`; nodes already outside the subtree
        # (below an earlier pruned node) are skipped.
        stack = [cl[pruned], cr[pruned]]
        while stack:
            node = stack.pop()
            if not in_subtree[node]:
                continue
            in_subtree[node] = False
            candidates[node] = False
            leaves[node] = False
            if not is_leaf[node]:
                stack.append(cl[node])
                stack.append(cr[node])
        candidates[pruned] = False
        leaves[pruned] = True

        # Update the ancestors incrementally (not by re-summing their leaves):
        # this is the rounding sklearn's path carries.
        n_pruned_leaves = n_leaves[pruned] - 1
        n_leaves[pruned] = 0
        r_diff = r_node[pruned] - r_branch[pruned]
        r_branch[pruned] = r_node[pruned]
        ancestors = []
        node = parent_of[pruned]
        while node != _NO_PARENT:
            ancestors.append(node)
            node = parent_of[node]
        # one addition per ancestor, as the scalar loop of sklearn does
        n_leaves[ancestors] -= n_pruned_leaves
        r_branch[ancestors] += r_diff

        ccp_alphas.append(effective_alpha)
        impurities.append(r_branch[0])

    return (np.asarray(ccp_alphas, dtype=DTYPE), np.asarray(impurities, dtype=DTYPE),
            leaves)


def cost_complexity_pruning_path(tree):
    """Effective alphas and subtree impurities of minimal cost-complexity pruning.

    Same semantics (and, for the same tree arrays, the same numbers) as
    :meth:`sklearn.tree.DecisionTreeClassifier.cost_complexity_pruning_path`.

    Parameters
    ----------
    tree : Tree
        A fitted, unpruned tree. Only its shape, ``impurity`` and
        ``weighted_n_node_samples`` are used, so any split type works.

    Returns
    -------
    ccp_path : sklearn.utils.Bunch
        With attributes

        ccp_alphas : ndarray of float64, shape (n_steps + 1,)
            ``0`` followed by the effective alpha of each pruning step. One
            node is pruned per step, so nodes tied at the same effective alpha
            make that alpha appear several times; the last entry is the alpha
            that prunes the tree to its root. Non-decreasing up to rounding;
            rounding can also leave the alpha of a zero-gain split a hair
            below 0 (sklearn's path does the same), so clip with
            ``max(alpha, 0.0)`` before passing such a value to
            :func:`prune_tree`.
        impurities : ndarray of float64, shape (n_steps + 1,)
            Sum over the leaves of the subtree, after each step, of
            ``weighted_n_node_samples[t] / weighted_n_node_samples[0] *
            impurity[t]``. The first entry is the unpruned tree's, the last
            the root's.

    Raises
    ------
    ValueError
        If the root weight is not positive and finite, or a node weight or
        impurity is not finite.

    See Also
    --------
    prune_tree : the subtree for one ``ccp_alpha``.

    Examples
    --------
    >>> from sklearn.datasets import load_iris
    >>> from bivtree import BivariateTreeClassifier
    >>> from bivtree.pruning import cost_complexity_pruning_path
    >>> X, y = load_iris(return_X_y=True)
    >>> tree = BivariateTreeClassifier(splitter="orientations").fit(X, y).tree_
    >>> path = cost_complexity_pruning_path(tree)
    >>> len(path.ccp_alphas), float(path.ccp_alphas[0])
    (4, 0.0)
    """
    ccp_alphas, impurities, _ = _weakest_link_pruning(tree)
    return Bunch(ccp_alphas=ccp_alphas, impurities=impurities)


def prune_tree(tree, ccp_alpha):
    """The minimal cost-complexity subtree of ``tree`` for ``ccp_alpha``.

    Same semantics as fitting a scikit-learn tree with ``ccp_alpha``: weakest
    links are collapsed while their effective alpha is ``<= ccp_alpha``, so
    passing a value taken from :func:`cost_complexity_pruning_path` also
    prunes every node whose effective alpha equals it.

    Parameters
    ----------
    tree : Tree
        A fitted, unpruned tree.
    ccp_alpha : float
        Non-negative, finite complexity parameter. ``0`` returns an unpruned
        copy (scikit-learn skips pruning at 0 too, so zero-gain splits stay).

    Returns
    -------
    Tree
        A new tree: the kept nodes with their original splits, values and
        statistics, numbered in depth-first preorder (see
        :func:`bivtree.tree.subtree`).

    Raises
    ------
    ValueError
        If ``ccp_alpha`` is negative, not finite or not a real number, or the
        tree's weights or impurities are unusable (see
        :func:`cost_complexity_pruning_path`).

    Examples
    --------
    >>> from sklearn.datasets import load_iris
    >>> from bivtree import BivariateTreeClassifier
    >>> from bivtree.pruning import cost_complexity_pruning_path, prune_tree
    >>> X, y = load_iris(return_X_y=True)
    >>> tree = BivariateTreeClassifier(splitter="orientations").fit(X, y).tree_
    >>> tree.n_leaves
    5
    >>> alphas = cost_complexity_pruning_path(tree).ccp_alphas
    >>> [prune_tree(tree, alpha).n_leaves for alpha in alphas]
    [5, 3, 2, 1]
    """
    ccp_alpha = _check_ccp_alpha(ccp_alpha)
    if ccp_alpha == 0.0:
        return tree.copy()
    _, _, leaves = _weakest_link_pruning(tree, ccp_alpha)
    return subtree(tree, leaves)
