"""Domain-knowledge constraints, as every split search checks them (compiled code).

**Monotonic constraints** (``monotonic_cst``, scikit-learn's meaning): ``cst[f]``
is ``+1`` (the prediction may only grow with ``x_f``), ``-1`` (only shrink) or
``0`` (free). A node's *value* is the share of the positive class (the last of
two classes) or the mean target. A node test ``sum_k w_k x_{f_k} <= t`` sends a
sample from the left child to the right one when ``x_f`` grows exactly when
``w_f > 0`` (from right to left when ``w_f < 0``), so a constrained feature
fixes the order its children's values must have, :func:`rule_order`:

- ``+1``: ``value(left) <= value(right)``, ``-1``: the reverse, ``0``: none;
- a feature with weight 0 (or an unused slot) is not tested and imposes nothing;
- two constrained features of one test must agree (``sign(w_j) c_j ==
  sign(w_k) c_k``), else the test is inadmissible (:data:`CONFLICT`): it would
  need equal children, which split nothing worth having.

As in scikit-learn (``sklearn/tree/_criterion.pyx``, ``check_monotonicity``), a
candidate cut of an ordered test is rejected unless its children's values
respect the order and lie within the node's bounds ``[lower, upper]``
(:func:`values_admissible`); the bounds, passed down the tree by growth
(:mod:`bivtree.constraints`), clip every node's value, so the whole tree is
monotone, not only each split. A test of no constrained feature is not checked.

Every search calls these two functions, so that one split is admissible or
not whatever found it; TAO's node problems can call them as they are.
"""

import numpy as np
from numba import njit

from .._config import NUMBA_OPTS, SQUARED_ERROR

#: :func:`rule_order` of a test whose constrained features disagree.
CONFLICT = 2

#: no monotonic constraint on any column (what a search is given without them).
NO_MONOTONIC = np.zeros(0, dtype=np.int64)


@njit(inline="always", **NUMBA_OPTS)
def term_order(order, cst, weight):
    """``order`` with one more term ``weight * x`` of a feature constrained by ``cst``.

    Returns the merged order: unchanged for a free feature (``cst == 0``) or a
    zero weight, :data:`CONFLICT` when the term disagrees with ``order``.
    """
    if cst == 0 or weight == 0.0 or order == CONFLICT:
        return order
    own = cst if weight > 0.0 else -cst
    if order == 0 or order == own:
        return own
    return CONFLICT


@njit(**NUMBA_OPTS)
def rule_order(cst, features, weights):
    """Required order of the children of the test ``sum_k weights[k] x[features[k]] <= t``.

    Parameters
    ----------
    cst : int64 (n_columns,)
        The constraint of every column of the data the test reads (empty: none).
    features : int64 (n_slots,)
        The test's columns, ``-1`` in unused slots.
    weights : float64 (n_slots,)

    Returns
    -------
    int
        ``+1`` when the left child's value may not exceed the right one's, ``-1``
        for the reverse, ``0`` when no constrained feature is tested, and
        :data:`CONFLICT` when two tested features require opposite orders.
    """
    order = 0
    if cst.shape[0] == 0:
        return order
    for k in range(features.shape[0]):
        f = features[k]
        if f >= 0:
            order = term_order(order, cst[f], weights[k])
    return order


@njit(inline="always", **NUMBA_OPTS)
def values_admissible(order, lower, upper, value_left, value_right):
    """Whether children with these values may split a node of bounds ``[lower, upper]``.

    scikit-learn's ``check_monotonicity``: both values within the bounds and in
    the required ``order`` (``(left - right) * order <= 0``). Only asked for an
    ordered test (``order`` +1 or -1).
    """
    return (lower <= value_left <= upper and lower <= value_right <= upper
            and (value_left - value_right) * order <= 0.0)


@njit(inline="always", **NUMBA_OPTS)
def side_value(criterion, counts, weight, target_sum):
    """The value of a side: its mean target (``squared_error``), else its share of the
    last class (the positive one of two; ``counts`` its weighted class counts)."""
    if criterion == SQUARED_ERROR:
        return target_sum / weight
    return counts[counts.shape[0] - 1] / weight


@njit(**NUMBA_OPTS)
def split_admissible(cst, allowed, features, weights, lower, upper, value_left, value_right):
    """Whether a split may be used under both kinds of constraint: the one shared check.

    ``allowed`` is the interaction matrix (:class:`bivtree.constraints.SplitConstraints`;
    shape ``(0, 0)``: every pair allowed): every two features the test uses
    must be allowed together. Then the test's :func:`rule_order` must not be a
    :data:`CONFLICT`, and an ordered test's children values (``value_left``,
    ``value_right``: :func:`side_value` of each side) must pass
    :func:`values_admissible` for the node's bounds.
    """
    if allowed.shape[0] > 0:
        for a in range(features.shape[0]):
            for b in range(a + 1, features.shape[0]):
                fa = features[a]
                fb = features[b]
                if fa >= 0 and fb >= 0 and weights[a] != 0.0 and weights[b] != 0.0 and (
                        not allowed[fa, fb]):
                    return False
    order = rule_order(cst, features, weights)
    if order == CONFLICT:
        return False
    return order == 0 or values_admissible(order, lower, upper, value_left, value_right)
