"""Lower bounds and scores of the BiDT branch and bound (Bollwein & Westphal, 2021).

A box ``C`` of rules ``a x1 + b <= x2`` splits the points into those every
rule of ``C`` satisfies (``A``, go left), those no rule satisfies (``B``) and
the undecided ones (``I``), section 4.2. Its lower bound is, with
``bound=PAPER``, Theorem 4 (``I(n_A) + I(n_B)`` by concavity of the impurity)
improved for entropy by Theorem 5 and for gini by Theorem 6 (the
classification error uses Theorem 4 alone); with ``bound=VERTEX``, Theorem 1
itself: the least impurity over the ways to send each class of ``I`` wholly to
one side, never weaker and on real data orders of magnitude fewer
subproblems.

Statistics are class weights followed by the number of samples (``k + 1``
columns); the impurity of a side is frequency weighted, as in :mod:`.sweep`.

Every bound holds for any content of ``A`` and ``B``, in particular with the
rows missing a feature of the pair held on one side (:mod:`.bnb_search`):
the vertex bound minimises over the assignments of the undecided classes given
``A`` and ``B``, and Theorem 4 with the Theorem 5 / 6 terms rests on
``G(A + I_L) >= G(A) + G(I_L)`` (a frequency-weighted concave impurity is
superadditive), whatever ``A`` holds.
"""

import math

import numpy as np
from numba import njit

from .._config import ENTROPY, GINI, NUMBA_OPTS
from .criteria import xlogx
from .sweep import frequency_weighted_impurity

_INV_LN2 = 1.0 / math.log(2.0)

#: lower bounds of the branch and bound (see :func:`lower_bound`).
PAPER = 0
VERTEX = 1
#: the vertex bound enumerates ``2^k'`` assignments; beyond this many classes, the paper's.
VERTEX_MAX_CLASSES = 8


@njit(**NUMBA_OPTS)
def _impurity(stats, k, criterion):
    return frequency_weighted_impurity(stats, k, criterion)


@njit(**NUMBA_OPTS)
def _bound_extra(m, k, criterion):
    """Theorem 5 / 6 term: a lower bound on ``I(m_L) + I(m_U)`` over all splits of ``m``."""
    if criterion == GINI:
        top = 0
        for c in range(1, k):
            if m[c] > m[top]:
                top = c
        w = 0.0
        s = 0.0
        for c in range(k):
            if c != top:
                w += m[c]
                s += m[c] * m[c]
        return w - s / w if w > 0.0 else 0.0
    if criterion == ENTROPY:
        total = 0.0
        h = 0.0
        for c in range(k):
            total += m[c]
            h -= xlogx(m[c])
        extra = (h + xlogx(total)) * _INV_LN2 - total  # M log2(M / 2) = M log2 M - M
        return max(0.0, extra)
    return 0.0


@njit(**NUMBA_OPTS)
def lower_bound(sA, sB, m, k, criterion, bound, left, right):
    """Lower bound on the impurity of every rule of a box with invariants ``sA``, ``sB`` and
    undecided class weights ``m``.

    ``bound == PAPER``: Theorem 4 plus the Theorem 5 / 6 term. ``bound ==
    VERTEX``: Theorem 1 itself, the least impurity over the ``2^k'`` ways to
    send each of the ``k'`` classes present in ``I`` wholly to one side: the
    impurity is concave in the share of each class sent left, so its minimum
    over all (fractional) assignments is at such a vertex; by strict concavity
    this is never below the paper's bound. Beyond :data:`VERTEX_MAX_CLASSES`
    classes the paper's bound is used.
    """
    paper = _impurity(sA, k, criterion) + _impurity(sB, k, criterion) + _bound_extra(
        m, k, criterion)
    if bound == PAPER:
        return paper
    present = 0
    for c in range(k):
        if m[c] > 0.0:
            present += 1
    if present == 0 or present > VERTEX_MAX_CLASSES:
        return paper
    best = np.inf
    for mask in range(1 << present):
        bit = 0
        for c in range(k):
            left[c] = sA[c]
            right[c] = sB[c]
            if m[c] > 0.0:
                if (mask >> bit) & 1:
                    left[c] += m[c]
                else:
                    right[c] += m[c]
                bit += 1
        g = _impurity(left, k, criterion) + _impurity(right, k, criterion)
        best = min(best, g)
    return best


@njit(**NUMBA_OPTS)
def _valid(left, right, k, msl, mwl):
    if left[k] < msl or right[k] < msl:
        return False
    wl = 0.0
    wr = 0.0
    for c in range(k):
        wl += left[c]
        wr += right[c]
    return wl > 0.0 and wr > 0.0 and wl >= mwl and wr >= mwl


@njit(**NUMBA_OPTS)
def score(left, right, k, criterion, msl, mwl):
    """Weighted child impurity, ``inf`` when a side breaks the leaf constraints."""
    if not _valid(left, right, k, msl, mwl):
        return np.inf
    return _impurity(left, k, criterion) + _impurity(right, k, criterion)


@njit(**NUMBA_OPTS)
def score_line(a, b, x1, x2, P, idx, n_idx, sA, sB, left, right, k, criterion, msl, mwl):
    """Score the rule ``a x1 + b <= x2`` on a box: ``A`` left, ``B`` right, ``I`` tested."""
    K = k + 1
    for c in range(K):
        left[c] = sA[c]
        right[c] = sB[c]
    for t in range(n_idx):
        i = idx[t]
        if a * x1[i] + b <= x2[i]:
            for c in range(K):
                left[c] += P[i, c]
        else:
            for c in range(K):
                right[c] += P[i, c]
    return score(left, right, k, criterion, msl, mwl)


@njit(**NUMBA_OPTS)
def improve(g, a, b, inc, best, best_a, best_b):
    """The incumbent after finding the rule ``(a, b)`` of impurity ``g``.

    Returns ``(inc, best, best_a, best_b)``: the rule and its impurity when
    ``g`` is strictly below the incumbent ``inc``, else the arguments.
    """
    if g < inc:
        return g, g, a, b
    return inc, best, best_a, best_b


def root_lower_bound(counts, criterion):
    """Theorems 5 / 6 for the whole node: a bound valid for any split (0 if none)."""
    counts = np.asarray(counts, dtype=np.float64)
    if criterion == GINI:
        rest = np.delete(counts, int(np.argmax(counts)))
        w = rest.sum()
        return float(w - (rest ** 2).sum() / w) if w > 0 else 0.0
    if criterion == ENTROPY:
        m = counts[counts > 0]
        total = m.sum()
        extra = (total * math.log(total) - float((m * np.log(m)).sum())) * _INV_LN2 - total
        return max(0.0, extra)
    return 0.0
