"""MUST (Leroux, Boussard & Des, *Inducing Readable Oblique Decision Trees*): oblique
splits from linear discriminant analysis on 1 to 3 selected features.

At a node (section III, Algorithms 1 to 4):

1. **Two groups.** With two classes present they are the groups. With more,
   the classes are split into two groups by 2-means (section III-H): on the
   node's samples (the paper's choice, ``multiclass="samples"``), or on the
   class means (``multiclass="class_means"``, cheaper). Each class joins the
   cluster holding most of its weight.
2. **Direction** ``w = Sigma_w^{-1} Delta_m`` (equation 5) on the numerical
   features, ``Sigma_w`` the pooled within-group scatter and ``Delta_m`` the
   difference of the group means. When ``Sigma_w`` is singular (duplicated or
   collinear features, fewer samples than features, a feature constant within
   each group) the null-space method of section III-F is used: project on
   ``ker Sigma_w`` and take the leading eigenvector of the projected
   between-group scatter ``P Delta_m Delta_m^T P``, which is ``P Delta_m``.
3. **Feature selection** to ``s = n_split_features`` features (Algorithm 3):
   rank the features by their contribution (equation 6), then recompute ``w``
   on the ``s`` best. ``None`` keeps every numerical feature (MUST-F). For
   ``s = 1`` the feature is chosen by the quick estimator of section III-E
   (Algorithm 4, equations 7 to 10) or by the exact univariate search.
4. **Threshold** by an exact scan of the sorted projection (Algorithm 1) under
   the chosen gain: the tree's criterion (default), the information gain, or
   the balanced gain ratio ``IG / (1 + SplitInfo)`` the paper uses.
5. **Categorical features** (Algorithm 2): each column named in
   ``categorical_features`` (integer codes in ``[0, 63]``) is left out of the
   discriminant and offers its own candidate split, kept if its gain beats the
   oblique split's; the tree stores it as a categorical node, ``x_c in S``.

**Missing values** (NaN in ``X``): the direction comes from the complete rows
(the feature ranking from the rows complete in every numerical feature, the
discriminant of the selected features from the rows complete in those; where
those rows do not hold both groups, the candidate is the exact univariate
split); the
2-means class grouping standardises each column over its known values and puts
a missing one at the mean; the quick estimator's moments use the known values.
The threshold and the side of the samples missing a feature of the rule are
then exact: every cut of the known projections times both sides, the better
kept (the right side on ties), by the shared scan
(:func:`~bivtree._kernels.scan.scan_with_missing`) under the tree's criterion
or, through :class:`GainCuts`, the paper's gains. A categorical candidate
orders the known categories and scans the missing samples on both sides too.
Without NaN nothing changes.

**Constraints** (:mod:`bivtree.constraints`). With interaction groups the
features of a test are chosen greedily in the order of their contributions
(equation 6) among those sharing a group with every one chosen before
(:meth:`~bivtree.constraints.SplitConstraints.compatible`), then the direction
is recomputed on them, also with ``n_split_features=None`` (MUST-F). Under
monotonic constraints every threshold is the best admissible one (its
children in the order the rule's signs require, within the node's bounds, for
the tree's criterion and the paper's gains alike); a discriminant whose signs
disagree on two constrained features, or that has no admissible threshold,
gives way to the exact univariate search among the admissible cuts.

Computations run on the node's features standardised by their weighted
standard deviation: the LDA direction does not depend on the scale of the
features, but the rank decision and the null-space solution would, and
standardising makes both independent of the data's units.

Where bivtree departs from the paper (see docs/architecture.md):

* equation 6 reads ``contrib_i = |w_i Dm_i|^2 / (Sigma_w[i, i] w_i^2)``, the
  score of equation 4 at ``w_i e_i``; ``w_i`` cancels, so the ranking is each
  feature's own Fisher ratio ``Dm_i^2 / Sigma_w[i, i]`` among the features the
  discriminant uses (``w_i != 0``); it is implemented as written;
* equations 7 and 8 as printed swap the spreads in their second cases
  (``m_- - v_+``, ``m_+ + v_-``); the symmetric reading, consistent with
  equation 9, is used: the lower edge of the upper class and the upper edge
  of the lower class. The paper calls ``v`` a variance but uses
  ``[m - v, m + v]`` as the bulk of a class; ``quick_spread="std"`` (default)
  uses the standard deviation, which keeps the estimate in the data's units;
  ``"variance"`` follows the text literally;
* the node tests of a bivtree tree are binary, so the paper's multiway split
  on a categorical feature becomes a binary subset split, stored as a
  categorical node (the categories of the subset go left; a code the node
  never saw goes right): categories are ordered by their weighted share of
  group 1 and the best prefix of that order under the gain is the subset
  (Breiman et al. 1984), which for two classes is the best of all subsets
  under a concave impurity (the tree's criterion, the information gain). With
  more than two classes the 2-means grouping of step 1 first makes them two
  groups, and the order is by the share of group 1: a heuristic, the gain is
  still scored on the true classes.
"""

import math
from typing import ClassVar, NamedTuple

import numpy as np
import scipy.linalg
from numba import njit, prange
from numba.extending import overload

from .._config import ITYPE, NUMBA_OPTS
from .._kernels.constraints import CONFLICT, rule_order, values_admissible
from .._kernels.criteria import impurity_of, midpoint_threshold, summarize_samples, xlogx
from .._kernels.scan import (
    best_cut_missing,
    count_missing,
    cut_objective_is,
    gather_node,
    scan_values,
    scan_with_missing,
)
from .._kernels.traversal import partition_samples, project_samples
from .._validation import Integral, Interval, check_params
from ..constraints import UNBOUNDED
from ..tree import categories_to_mask, slot_masks
from ._base import BEATS_TOLERANCE, Splitter, make_split, register
from ._categorical import (
    check_category_codes,
    node_categories,
    resolve_categorical,
    subset_below,
)

#: gain codes understood by the kernels; scores are "higher is better".
GAIN_CRITERION = 0
GAIN_INFORMATION = 1
GAIN_BALANCED_RATIO = 2
GAINS = {"criterion": GAIN_CRITERION, "information_gain": GAIN_INFORMATION,
         "balanced_gain_ratio": GAIN_BALANCED_RATIO}

#: an eigenvalue of the standardised within-group scatter at or below this
#: fraction of the largest counts as zero (rounding of exact zeros is ~1e-16).
RANK_RTOL = 1e-10

_LN2 = np.log(2.0)


# ----------------------------------------------------------------------------- kernels
@njit(**NUMBA_OPTS)
def _entropy_bits(counts, w):
    """Entropy in bits (per unit weight) of weighted class counts summing to ``w``."""
    if w <= 0.0:
        return 0.0
    s = 0.0
    for c in range(counts.shape[0]):
        s += xlogx(counts[c])
    return (xlogx(w) - s) / (w * _LN2)


@njit(**NUMBA_OPTS)
def score_from_counts(left, w_left, tot_counts, w_total, gain, criterion, right):
    """Score (higher is better) of a partition given the left counts.

    ``criterion``: ``-G`` (minus the weighted child impurity under the tree's
    criterion); ``information_gain``: ``H(node) - G_entropy / w`` in bits;
    ``balanced_gain_ratio``: that gain over ``1 + SplitInfo`` (bits).
    ``right`` is a scratch buffer.
    """
    w_right = w_total - w_left
    for c in range(tot_counts.shape[0]):
        right[c] = max(tot_counts[c] - left[c], 0.0)  # never negative by rounding
    if gain == GAIN_CRITERION:
        return -(w_left * impurity_of(left, w_left, 0.0, 0.0, criterion)
                 + w_right * impurity_of(right, w_right, 0.0, 0.0, criterion))
    ig = _entropy_bits(tot_counts, w_total) - (
        w_left * _entropy_bits(left, w_left) + w_right * _entropy_bits(right, w_right)) / w_total
    if gain == GAIN_INFORMATION:
        return ig
    pl = w_left / w_total
    split_info = -(xlogx(pl) + xlogx(1.0 - pl)) / _LN2
    return ig / (1.0 + split_info)


@njit(**NUMBA_OPTS)
def gain_scan(values, order, node_labels, node_weight, counts, w_total, gain, criterion,
              min_samples_leaf, min_weight_leaf, held, held_w, n_held, n_total, last_cut,
              monotonic=0, lower=-np.inf, upper=np.inf):
    """Best cut of the sorted ``values`` under one of the paper's gains.

    The left side starts with ``n_held`` samples of class weights ``held``
    (total ``held_w``) that ``order`` does not list (the missing ones, sent
    left; none otherwise); ``n_total`` counts every sample of the node.
    ``last_cut`` allows the cut after the last sorted value (every listed
    sample left). Cuts fall between distinct values; ties go to the first.
    ``monotonic`` (``+1``, ``-1``; ``0``: none) is the order the sides' shares
    of the last class must have, within ``[lower, upper]``
    (:mod:`bivtree._kernels.constraints`).

    Returns
    -------
    best : float
        ``-inf`` when no cut is valid.
    best_pos : int
        Last sorted position that goes left (``-1``: none).
    """
    n_classes = counts.shape[0]
    left = held.copy()
    right = np.empty(n_classes)
    n = order.shape[0]
    w_left = held_w
    best = -np.inf
    best_pos = -1
    for r in range(n):
        p = order[r]
        left[node_labels[p]] += node_weight[p]
        w_left += node_weight[p]
        if r == n - 1:
            if not last_cut:
                break
        elif values[order[r + 1]] <= values[p]:
            continue
        w_right = w_total - w_left
        n_left = n_held + r + 1
        if (n_left < min_samples_leaf or n_total - n_left < min_samples_leaf
                or w_left < min_weight_leaf or w_right < min_weight_leaf
                or w_left <= 0.0 or w_right <= 0.0):
            continue
        last = n_classes - 1
        if monotonic != 0 and not values_admissible(
                monotonic, lower, upper, left[last] / w_left,
                (counts[last] - left[last]) / w_right):
            continue
        s = score_from_counts(left, w_left, counts, w_total, gain, criterion, right)
        if s > best:
            best = s
            best_pos = r
    return best, best_pos


class GainCuts(NamedTuple):
    """Cut objective of the paper's gains (:func:`gain_scan`): the node-local
    ``labels`` and ``weights``, the node's class ``counts`` and weight, the
    gain and criterion codes, the leaf-size limits, and the monotonic ``order``
    of the children with the node's bounds (:func:`gain_scan`)."""

    labels: np.ndarray
    weights: np.ndarray
    counts: np.ndarray
    w_total: float
    gain: int
    criterion: int
    min_samples_leaf: int
    min_weight_leaf: float
    order: int = 0
    lower: float = -np.inf
    upper: float = np.inf


@overload(best_cut_missing)
def _best_cut_missing_of_gains(values, order, missing, cuts):
    if not cut_objective_is(cuts, GainCuts):
        return None

    def scan(values, order, missing, cuts):
        held = np.zeros(cuts.counts.shape[0])
        held_w = 0.0
        for q in range(missing.shape[0]):
            i = missing[q]
            held[cuts.labels[i]] += cuts.weights[i]
            held_w += cuts.weights[i]
        n_total = order.shape[0] + missing.shape[0]
        # missing samples right first (the left side starts empty), then left
        best, pos = gain_scan(values, order, cuts.labels, cuts.weights, cuts.counts,
                              cuts.w_total, cuts.gain, cuts.criterion, cuts.min_samples_leaf,
                              cuts.min_weight_leaf, np.zeros_like(held), 0.0, 0, n_total, True,
                              cuts.order, cuts.lower, cuts.upper)
        best_l, pos_l = gain_scan(values, order, cuts.labels, cuts.weights, cuts.counts,
                                  cuts.w_total, cuts.gain, cuts.criterion,
                                  cuts.min_samples_leaf, cuts.min_weight_leaf, held, held_w,
                                  missing.shape[0], n_total, False, cuts.order, cuts.lower,
                                  cuts.upper)
        if best_l > best:
            return best_l, pos_l, True
        return best, pos, False
    return scan


@njit(**NUMBA_OPTS)
def best_threshold(values, node_labels, node_targets, node_weight, counts, w_total, t_sum,
                   base, gain, criterion, min_samples_leaf, min_weight_leaf, monotonic=0,
                   lower=-np.inf, upper=np.inf):
    """Exact best cut of ``values`` (Algorithm 1): ``(score, threshold, missing_left)``,
    score ``-inf`` if none.

    Cuts fall between consecutive distinct sorted values; the threshold is
    their midpoint. The tree's criterion reuses the shared proxy scan; the
    paper's gains are scored from the class counts at every cut. Ties go to
    the first cut in sorted order. NaN values are missing ones: both sides are
    tried for them and the better kept (the shared scan,
    :func:`~bivtree._kernels.scan.scan_with_missing`); ``missing_left`` is
    False when there is none. ``monotonic``, ``lower``, ``upper``: the order of
    the children and the node's bounds a cut must respect (:func:`gain_scan`).
    """
    n_classes = counts.shape[0]
    left = np.empty(n_classes)
    right = np.empty(n_classes)
    if gain == GAIN_CRITERION:
        proxy, t, missing_left = scan_values(
            values, node_labels, node_targets, node_weight, criterion, counts, w_total, t_sum,
            min_samples_leaf, min_weight_leaf, left, right, monotonic, lower, upper)
        if proxy == -np.inf:
            return -np.inf, 0.0, False
        return -(base - proxy), t, missing_left
    n_missing = count_missing(values)
    if n_missing > 0:
        cut = scan_with_missing(values, n_missing, GainCuts(
            node_labels, node_weight, counts, w_total, gain, criterion, min_samples_leaf,
            min_weight_leaf, np.int64(monotonic), np.float64(lower), np.float64(upper)))
        return cut.proxy, cut.threshold, cut.missing_left
    n = values.shape[0]
    order = np.argsort(values)
    best, pos = gain_scan(values, order, node_labels, node_weight, counts, w_total, gain,
                          criterion, min_samples_leaf, min_weight_leaf, np.zeros(n_classes),
                          0.0, 0, n, False, monotonic, lower, upper)
    if pos < 0:
        return best, 0.0, False
    return best, midpoint_threshold(values[order[pos]], values[order[pos + 1]]), False


@njit(**NUMBA_OPTS)
def threshold_score(values, threshold, node_labels, node_weight, counts, w_total, gain,
                    criterion, min_samples_leaf, min_weight_leaf):
    """Score of the fixed partition ``values <= threshold`` (``-inf`` if not a valid split)."""
    n_classes = counts.shape[0]
    left = np.zeros(n_classes)
    right = np.empty(n_classes)
    w_left = 0.0
    n_left = 0
    for p in range(values.shape[0]):
        if values[p] <= threshold:
            left[node_labels[p]] += node_weight[p]
            w_left += node_weight[p]
            n_left += 1
    w_right = w_total - w_left
    n_right = values.shape[0] - n_left
    if (n_left < min_samples_leaf or n_right < min_samples_leaf or w_left < min_weight_leaf
            or w_right < min_weight_leaf or w_left <= 0.0 or w_right <= 0.0):
        return -np.inf
    return score_from_counts(left, w_left, counts, w_total, gain, criterion, right)


@njit(**NUMBA_OPTS)
def group_moments(X, samples, features, group, sample_weight):
    """Weighted group means, pooled within-group scatter and the node's spread.

    Two passes (means first) so the scatter is accurate.

    Returns
    -------
    mean0, mean1 : float64 (d,)
        Means of group 0 and group 1 (original units).
    scatter : float64 (d, d)
        ``sum_g sum_{x in g} w (x - m_g)(x - m_g)^T``.
    std : float64 (d,)
        Weighted standard deviation over the node (0 for a constant feature).
    w0, w1 : float
        Group weights.
    """
    d = features.shape[0]
    n = samples.shape[0]
    mean0 = np.zeros(d)
    mean1 = np.zeros(d)
    w0 = 0.0
    w1 = 0.0
    for p in range(n):
        i = samples[p]
        w = sample_weight[i]
        if group[p]:
            w1 += w
            for a in range(d):
                mean1[a] += w * X[i, features[a]]
        else:
            w0 += w
            for a in range(d):
                mean0[a] += w * X[i, features[a]]
    for a in range(d):
        if w0 > 0.0:
            mean0[a] /= w0
        if w1 > 0.0:
            mean1[a] /= w1
    total = w0 + w1
    mean = np.empty(d)
    for a in range(d):
        mean[a] = (w0 * mean0[a] + w1 * mean1[a]) / total
    scatter = np.zeros((d, d))
    var = np.zeros(d)
    dev = np.empty(d)
    for p in range(n):
        i = samples[p]
        w = sample_weight[i]
        for a in range(d):
            x = X[i, features[a]]
            dev[a] = x - (mean1[a] if group[p] else mean0[a])
            var[a] += w * (x - mean[a]) * (x - mean[a])
        for a in range(d):
            wa = w * dev[a]
            for b in range(a, d):
                scatter[a, b] += wa * dev[b]
    for a in range(d):
        for b in range(a):
            scatter[a, b] = scatter[b, a]
    std = np.sqrt(var / total)
    return mean0, mean1, scatter, std, w0, w1


@njit(**NUMBA_OPTS)
def two_means(points, weights, center0, center1, max_iter):
    """Weighted 2-means (Lloyd) from the given centres; ties go to cluster 0.

    Stops when no assignment changes, after ``max_iter`` rounds, or before a
    round that would leave a cluster empty (the last assignment is kept).

    Returns
    -------
    assign : int64 (m,)
        Cluster (0 or 1) of each point.
    """
    m, d = points.shape
    c0 = center0.copy()
    c1 = center1.copy()
    assign = np.full(m, -1, dtype=np.int64)
    new = np.empty(m, dtype=np.int64)
    for _ in range(max_iter):
        for p in range(m):
            d0 = 0.0
            d1 = 0.0
            for a in range(d):
                e0 = points[p, a] - c0[a]
                e1 = points[p, a] - c1[a]
                d0 += e0 * e0
                d1 += e1 * e1
            new[p] = 1 if d1 < d0 else 0
        changed = False
        for p in range(m):
            if new[p] != assign[p]:
                changed = True
                break
        if not changed:
            break
        s0 = np.zeros(d)
        s1 = np.zeros(d)
        w0 = 0.0
        w1 = 0.0
        for p in range(m):
            w = weights[p]
            if new[p] == 1:
                w1 += w
                for a in range(d):
                    s1[a] += w * points[p, a]
            else:
                w0 += w
                for a in range(d):
                    s0[a] += w * points[p, a]
        if w0 <= 0.0 or w1 <= 0.0:
            if assign[0] < 0:
                assign[:] = new
            break
        assign[:] = new
        for a in range(d):
            c0[a] = s0[a] / w0
            c1[a] = s1[a] / w1
    return assign


@njit(**NUMBA_OPTS)
def quick_threshold(m_pos, m_neg, s_pos, s_neg):
    """Equations 7 to 10: the quick estimate ``w_0`` of a split on one feature.

    ``m`` are the two groups' means on the feature and ``s`` their spreads;
    ``[m - s, m + s]`` is taken as the bulk of each group. If the bulks do not
    overlap the estimate is the middle of the gap (eq. 7, 8, 10); otherwise it
    is the edge of the narrower group on the side of the other (eq. 9).
    """
    if m_pos > m_neg:  # the positive group is the upper one
        p_sup = m_pos - s_pos
        p_inf = m_neg + s_neg
    else:
        p_sup = m_neg - s_neg
        p_inf = m_pos + s_pos
    if p_sup > p_inf:
        return 0.5 * (p_sup + p_inf)
    if s_pos > s_neg:
        return m_neg + s_neg if m_pos > m_neg else m_neg - s_neg
    return m_pos - s_pos if m_pos > m_neg else m_pos + s_pos


@njit(parallel=True, **NUMBA_OPTS)
def quick_estimate_search(X, samples, features, group, labels, sample_weight, n_classes, gain,
                          criterion, use_variance, min_samples_leaf, min_weight_leaf):
    """Algorithm 4: the quick estimate and its score for every candidate feature.

    Group moments are weighted, over the known values (a missing one is left
    out of the moments and, as NaN fails ``<=``, scored on the right); the
    score is the gain of the true classes.

    Returns
    -------
    scores, thresholds : float64 (n_candidates,)
    """
    n = samples.shape[0]
    node_labels = np.empty(n, dtype=np.int64)
    node_weight = np.empty(n)
    counts = np.zeros(n_classes)
    w_total = 0.0
    for p in range(n):
        node_labels[p] = labels[samples[p]]
        node_weight[p] = sample_weight[samples[p]]
        counts[node_labels[p]] += node_weight[p]
        w_total += node_weight[p]
    m = features.shape[0]
    scores = np.full(m, -np.inf)
    thresholds = np.zeros(m)
    for c in prange(m):
        f = features[c]
        values = np.empty(n)
        s0 = 0.0
        s1 = 0.0
        w0 = 0.0
        w1 = 0.0
        for p in range(n):
            x = X[samples[p], f]
            values[p] = x
            if math.isnan(x):
                continue
            if group[p]:
                w1 += node_weight[p]
                s1 += node_weight[p] * x
            else:
                w0 += node_weight[p]
                s0 += node_weight[p] * x
        if w0 <= 0.0 or w1 <= 0.0:
            continue  # a group with no known value: no estimate
        m1 = s1 / w1
        m0 = s0 / w0
        v0 = 0.0
        v1 = 0.0
        for p in range(n):
            if math.isnan(values[p]):
                continue
            if group[p]:
                v1 += node_weight[p] * (values[p] - m1) ** 2
            else:
                v0 += node_weight[p] * (values[p] - m0) ** 2
        v0 /= w0
        v1 /= w1
        if not use_variance:
            v0 = np.sqrt(v0)
            v1 = np.sqrt(v1)
        t = quick_threshold(m1, m0, v1, v0)
        thresholds[c] = t
        scores[c] = threshold_score(values, t, node_labels, node_weight, counts, w_total, gain,
                                    criterion, min_samples_leaf, min_weight_leaf)
    return scores, thresholds


@njit(parallel=True, **NUMBA_OPTS)
def univariate_gain_search(X, samples, features, labels, targets, sample_weight, n_classes,
                           gain, criterion, min_samples_leaf, min_weight_leaf, cst, lower,
                           upper):
    """Exact best cut of every candidate feature under ``gain``: ``(scores, thresholds,
    missing_left)``, among the admissible cuts (``cst``: the monotonic constraint of
    every feature, empty: none; ``lower``, ``upper``: the node's bounds)."""
    node_labels, node_targets, node_weight, counts, w_total, t_sum, base = gather_node(
        samples, labels, targets, sample_weight, n_classes, criterion)
    n = samples.shape[0]
    m = features.shape[0]
    scores = np.full(m, -np.inf)
    thresholds = np.zeros(m)
    missing_left = np.zeros(m, dtype=np.bool_)
    for c in prange(m):
        values = np.empty(n)
        for p in range(n):
            values[p] = X[samples[p], features[c]]
        order = cst[features[c]] if cst.shape[0] > 0 else 0
        scores[c], thresholds[c], missing_left[c] = best_threshold(
            values, node_labels, node_targets, node_weight, counts, w_total, t_sum, base, gain,
            criterion, min_samples_leaf, min_weight_leaf, order, lower, upper)
    return scores, thresholds, missing_left


@njit(**NUMBA_OPTS)
def rule_threshold(X, samples, features, weights, labels, targets, sample_weight, n_classes,
                   gain, criterion, min_samples_leaf, min_weight_leaf, cst, lower, upper):
    """Exact best threshold of a rule in original units: ``(score, threshold, missing_left)``.

    The projection is computed by ``project_samples`` (``project_row``), so the
    stored rule routes the training samples exactly as scanned. Under monotonic
    constraints (``cst`` of every column, empty: none; the node's bounds) the
    threshold is the best the rule's order admits, and a rule whose constrained
    features disagree has none (score ``-inf``).
    """
    order = rule_order(cst, features, weights)
    if order == CONFLICT:
        return -np.inf, 0.0, False
    node_labels, node_targets, node_weight, counts, w_total, t_sum, base = gather_node(
        samples, labels, targets, sample_weight, n_classes, criterion)
    values = np.empty(samples.shape[0])
    project_samples(X, samples, features, weights, values)
    return best_threshold(values, node_labels, node_targets, node_weight, counts, w_total,
                          t_sum, base, gain, criterion, min_samples_leaf, min_weight_leaf,
                          order, lower, upper)


@njit(**NUMBA_OPTS)
def values_threshold(values, samples, labels, targets, sample_weight, n_classes, gain,
                     criterion, min_samples_leaf, min_weight_leaf):
    """Exact best threshold of per-sample ``values``: ``(score, threshold, missing_left)``."""
    node_labels, node_targets, node_weight, counts, w_total, t_sum, base = gather_node(
        samples, labels, targets, sample_weight, n_classes, criterion)
    return best_threshold(values, node_labels, node_targets, node_weight, counts, w_total,
                          t_sum, base, gain, criterion, min_samples_leaf, min_weight_leaf)


# ------------------------------------------------------------------ linear algebra
def discriminant_direction(scatter, delta):
    """Equation 5, or the null-space method of section III-F when ``scatter`` is singular.

    Parameters
    ----------
    scatter : ndarray (d, d)
        Within-group scatter ``Sigma_w`` (symmetric, positive semi-definite).
    delta : ndarray (d,)
        Difference of the group means ``Delta_m``.

    Returns
    -------
    w : ndarray (d,)
    singular : bool
        Whether the null-space path was taken.
    """
    d = delta.shape[0]
    if d == 0:
        return np.zeros(0), False
    # scipy's LAPACK binding: numpy's eigh can be far slower on small matrices
    # when its BLAS spins up threads
    eigval, eigvec = scipy.linalg.eigh(scatter)
    top = max(float(eigval[-1]), 0.0)
    null = eigval <= RANK_RTOL * top if top > 0 else np.ones(d, dtype=bool)
    if not null.any():
        # Sigma_w = V diag(l) V^T, so Sigma_w^{-1} Delta_m = V (V^T Delta_m / l)
        return eigvec @ ((eigvec.T @ delta) / eigval), False
    # ker Sigma_w = span(Q); the between-group scatter Delta_m Delta_m^T projected
    # on it has rank one, and its leading eigenvector is P Delta_m, P = Q Q^T
    q = eigvec[:, null]
    w = q @ (q.T @ delta)
    if np.linalg.norm(w) > RANK_RTOL * max(np.linalg.norm(delta), np.finfo(float).tiny):
        return w, True
    # Delta_m is orthogonal to the null space: no direction there separates the
    # groups, and the ratio is maximised on the range of Sigma_w (pseudo-inverse)
    keep = ~null
    return eigvec[:, keep] @ ((eigvec[:, keep].T @ delta) / eigval[keep]), True


def contributions(w, delta, scatter):
    """Equation 6: ``|w_i Dm_i|^2 / (Sigma_w[i, i] w_i^2)``, the score of eq. 4 at ``w_i e_i``.

    A feature the discriminant ignores (``w_i = 0``) contributes 0; a feature
    with no within-group spread that separates the groups contributes ``inf``.
    """
    num = (w * delta) ** 2
    den = np.diag(scatter) * w ** 2
    with np.errstate(divide="ignore", invalid="ignore"):
        return np.where(num > 0, np.where(den > 0, num / den, np.inf), 0.0)


@register
class LDASplitter(Splitter):
    """MUST: LDA directions on a few selected features, exact thresholds.

    Classification only.

    Parameters
    ----------
    n_split_features : {1, 2, 3} or None, default=2
        ``s``: features per node test. ``None`` keeps every numerical feature
        (MUST-F); nodes then test up to as many features as the data has.
    univariate : {"quick", "exact"}, default="quick"
        Feature choice for ``s = 1``: the quick estimator (Algorithm 4, the
        paper's MUST-1) or the exact univariate search. Either way the
        threshold is then the exact best on the chosen feature.
    gain : {"criterion", "information_gain", "balanced_gain_ratio"}, default="criterion"
        What thresholds and candidates are ranked by: the tree's criterion,
        the information gain (bits), or the balanced gain ratio
        ``IG / (1 + SplitInfo)`` of the paper.
    multiclass : {"samples", "class_means"}, default="samples"
        With more than two classes at a node, 2-means on the node's samples
        (the paper's choice) or on the class means groups the classes.
    categorical_features : array-like of int, str or bool, default=None
        Columns holding category codes, integers in ``[0, 63]`` (indices,
        names when ``X`` has column names, or a boolean mask: scikit-learn's
        convention). They are left out of the discriminant and compete with
        their own best subset split, stored as a categorical node ``x_c in S``.
        Other values in these columns raise a ValueError at fit.
    compare_univariate : bool, default=False
        Also run the exact univariate search and keep the LDA split only when
        it beats the best univariate split (the paper does not).
    quick_spread : {"std", "variance"}, default="std"
        Spread ``v`` of equations 7 to 10.
    max_iter : int, default=100
        Most rounds of 2-means.
    feature_names : sequence of str, default=None
        Column names, to resolve names in ``categorical_features`` (the
        estimators pass ``feature_names_in_``).
    """

    name = "lda"
    searches_pairs = False
    supports_constraints = True
    # the discriminant needs class labels
    tasks = ("classification",)
    _parameter_constraints: ClassVar[dict] = {
        "n_split_features": [None, Interval(Integral, 1, 3, closed="both")],
        "univariate": [{"quick", "exact"}],
        "gain": [set(GAINS)],
        "multiclass": [{"samples", "class_means"}],
        # indices, names or a mask: resolved against the data in prepare
        "categorical_features": [None, "array-like"],
        "compare_univariate": ["boolean"],
        "quick_spread": [{"std", "variance"}],
        "max_iter": [Interval(Integral, 1, None, closed="left")],
        "feature_names": [None, "array-like"],
    }
    estimator_params = ("feature_names",)

    def __init__(self, n_split_features=2, univariate="quick", gain="criterion",
                 multiclass="samples", categorical_features=None, compare_univariate=False,
                 quick_spread="std", max_iter=100, feature_names=None):
        check_params(
            f"the {self.name!r} splitter",
            {"n_split_features": n_split_features, "univariate": univariate, "gain": gain,
             "multiclass": multiclass, "categorical_features": categorical_features,
             "compare_univariate": compare_univariate, "quick_spread": quick_spread,
             "max_iter": max_iter, "feature_names": feature_names},
            self._parameter_constraints)
        s = n_split_features
        self.n_split_features = None if s is None else int(s)
        self.univariate = univariate
        self.gain = gain
        self.gain_code = GAINS[gain]
        self.multiclass = multiclass
        self.categorical_features = categorical_features
        self.compare_univariate = bool(compare_univariate)
        self.quick_spread = quick_spread
        self.max_iter = int(max_iter)
        self.feature_names = feature_names
        # MUST-F may use every feature; the estimator caps the slots at n_features
        self.max_node_features = (np.iinfo(np.int64).max if s is None else int(s))

    # ----------------------------------------------------------------- set-up
    def prepare(self, data):
        self.categorical_ = resolve_categorical(self.categorical_features, data.n_features,
                                                self.feature_names)
        check_category_codes(data.X, self.categorical_, self.feature_names)
        self.is_categorical_ = np.zeros(data.n_features, dtype=bool)
        self.is_categorical_[self.categorical_] = True
        monotonic = data.constraints.monotonic
        if monotonic.shape[0] and np.any(monotonic[self.categorical_] != 0):
            # a category subset has no order to respect
            j = int(self.categorical_[np.flatnonzero(monotonic[self.categorical_] != 0)[0]])
            raise ValueError(f"monotonic_cst constrains feature {j}, which the 'lda' splitter "
                             "splits by category subsets (its categorical_features); "
                             "categories have no order: set its constraint to 0")

    # ------------------------------------------------------------ the groups
    def node_groups(self, data, samples, numeric):
        """Two groups of the node's classes: a boolean per sample (True: group 1).

        Returns ``(group, class_group)``; ``class_group[c]`` is the group of
        class ``c`` (-1 for a class absent from the node).
        """
        labels = data.labels[samples]
        w = data.sample_weight[samples]
        class_w = np.bincount(labels, weights=w, minlength=data.n_classes)
        present = np.flatnonzero(class_w > 0)
        class_group = np.full(data.n_classes, -1, dtype=ITYPE)
        if present.size == 2:
            class_group[present] = (0, 1)
        else:
            class_group[present] = self._cluster_classes(data, samples, numeric, labels, w,
                                                         class_w, present)
        return class_group[labels] == 1, class_group

    def _cluster_classes(self, data, samples, numeric, labels, w, class_w, present):
        if numeric.size:
            cols = data.X[np.ix_(samples, numeric)]
            if data.has_missing and np.isnan(cols).any():
                z = _standardised_known(cols, w)
            else:
                mean = np.average(cols, axis=0, weights=w)
                std = np.sqrt(np.average((cols - mean) ** 2, axis=0, weights=w))
                z = (cols - mean) / np.where(std > 0, std, 1.0)
            means = np.stack([np.average(z[labels == c], axis=0, weights=w[labels == c])
                              for c in present])
            # start from the two class means farthest apart (first pair on ties)
            dist = ((means[:, None, :] - means[None, :, :]) ** 2).sum(axis=2)
            a, b = np.unravel_index(int(np.argmax(dist)), dist.shape)
            if dist[a, b] > 0:
                if self.multiclass == "samples":
                    assign = two_means(np.ascontiguousarray(z), np.ascontiguousarray(w),
                                       means[a].copy(), means[b].copy(), self.max_iter)
                    in1 = np.bincount(labels, weights=w * (assign == 1),
                                      minlength=data.n_classes)[present]
                    in0 = class_w[present] - in1
                    groups = (in1 > in0).astype(ITYPE)
                    if 0 < groups.sum() < present.size:
                        return groups
                groups = two_means(np.ascontiguousarray(means), class_w[present].copy(),
                                   means[a].copy(), means[b].copy(), self.max_iter)
                if 0 < groups.sum() < present.size:
                    return groups.astype(ITYPE)
        # nothing to cluster on: the largest class against the rest
        groups = np.zeros(present.size, dtype=ITYPE)
        groups[int(np.argmax(class_w[present]))] = 1
        return groups

    # -------------------------------------------------------- the candidates
    def _make(self, data, samples, features, weights, threshold, score, category_mask=0,
              missing_left=False, **info):
        """A Split whose objective is the weighted child impurity of the routed samples.

        The samples are routed by ``partition_samples``, the routing of growth
        itself (a stable partition, so each side keeps the node's order), a
        sample missing a feature of the rule to ``missing_left``'s side.
        """
        features = np.asarray(features, dtype=ITYPE)
        weights = np.asarray(weights, dtype=np.float64)
        routed = np.array(samples, dtype=ITYPE)
        missing_left = bool(missing_left)
        mid = partition_samples(data.X, routed, 0, routed.shape[0], features, weights,
                                float(threshold), slot_masks(category_mask, features.shape[0]),
                                missing_left)
        g = 0.0
        for side in (routed[:mid], routed[mid:]):
            _, w_side, imp = summarize_samples(side, data.labels, data.targets,
                                               data.sample_weight, data.n_classes,
                                               data.criterion)
            g += w_side * imp
        slots = max(2, features.shape[0])
        f_out = np.full(slots, -1, dtype=ITYPE)
        w_out = np.zeros(slots)
        f_out[:features.shape[0]] = features
        w_out[:features.shape[0]] = weights
        return make_split(f_out, w_out, threshold, g, category_mask=category_mask,
                          missing_left=missing_left, score=float(score), gain=self.gain,
                          **info)

    def _oblique(self, data, samples, numeric, group, bounds=UNBOUNDED):
        """The LDA candidate on the numerical features: ``(score, Split)`` or ``None``.

        With missing values the discriminant is computed on the complete rows
        (of every numerical feature for the ranking, then of the selected
        ones for the direction); the threshold and the missing side are
        scanned over every sample of the node. Under monotonic constraints a
        discriminant without an admissible threshold gives way to the exact
        univariate search (see the module).
        """
        if data.has_missing:
            found = self._oblique_complete_rows(data, samples, numeric, group, bounds)
        else:
            mean0, mean1, scatter, std, _, _ = group_moments(
                data.X, samples, numeric, group, data.sample_weight)
            found = self._oblique_rule(data, samples, numeric, mean0, mean1, scatter, std,
                                       bounds)
        if found is None and data.constraints.has_monotonic:
            return self._univariate(data, samples, numeric, group, False, bounds)
        return found

    def _selected(self, constraints, numeric, w, delta, scatter):
        """Positions in ``numeric`` of the features the test keeps (sorted), or ``None``: all.

        Algorithm 3: the ``n_split_features`` of largest contribution; with
        interaction groups, greedily those sharing a group
        (:meth:`~bivtree.constraints.SplitConstraints.compatible`).
        """
        s = self.n_split_features
        if not constraints.has_interactions and (s is None or s >= numeric.size):
            return None
        ranked = np.argsort(-contributions(w, delta, scatter), kind="stable")
        if not constraints.has_interactions:
            return np.sort(ranked[:s])
        chosen = constraints.compatible(numeric[ranked], s)
        return np.sort(np.searchsorted(numeric, chosen))

    def _oblique_complete_rows(self, data, samples, numeric, group, bounds=UNBOUNDED):
        """:meth:`_oblique` on data with missing values (see there).

        Where the complete rows do not hold both groups there is no discriminant:
        the candidate is then the exact univariate split.
        """
        s = self.n_split_features
        complete = ~np.isnan(data.X[np.ix_(samples, numeric)]).any(axis=1)
        moments = _complete_moments(data, samples[complete], numeric, group[complete])
        if moments is None:
            return self._univariate(data, samples, numeric, group, False, bounds)
        if (s is not None and s < numeric.size) or data.constraints.has_interactions:
            # rank on the rows complete in every feature, then recompute the
            # direction on the rows complete in the selected ones
            keep = moments[3] > 0
            kept = numeric[keep]
            std = moments[3][keep]
            delta = (moments[1] - moments[0])[keep] / std
            scatter = moments[2][np.ix_(keep, keep)] / np.outer(std, std)
            w, _ = discriminant_direction(scatter, delta)
            chosen = self._selected(data.constraints, kept, w, delta, scatter)
            if chosen is not None and chosen.size < numeric.size:
                numeric = kept[chosen]
                complete = ~np.isnan(data.X[np.ix_(samples, numeric)]).any(axis=1)
                moments = _complete_moments(data, samples[complete], numeric, group[complete])
                if moments is None:
                    return self._univariate(data, samples, numeric, group, False, bounds)
        return self._oblique_rule(data, samples, numeric, *moments, bounds)

    def _oblique_rule(self, data, samples, numeric, mean0, mean1, scatter, std,
                      bounds=UNBOUNDED):
        """The rule of the discriminant of the given group moments, and its threshold."""
        keep = std > 0
        numeric = numeric[keep]
        if numeric.size == 0:
            return None
        std = std[keep]
        # standardised coordinates: z = x / std
        delta = (mean1 - mean0)[keep] / std
        scatter = scatter[np.ix_(keep, keep)] / np.outer(std, std)
        w, singular = discriminant_direction(scatter, delta)
        selected = self._selected(data.constraints, numeric, w, delta, scatter)
        if selected is None:
            selected = np.arange(numeric.size)
        elif selected.size < numeric.size:
            w, singular_s = discriminant_direction(scatter[np.ix_(selected, selected)],
                                                   delta[selected])
            singular = singular or singular_s
        weights = w / std[selected]  # back to original units
        used = weights != 0.0
        if not used.any() or not np.all(np.isfinite(weights)):
            return None
        features = numeric[selected][used]
        weights = weights[used] / weights[used][0]
        score, threshold, missing_left = rule_threshold(
            data.X, samples, features, weights, data.labels, data.targets, data.sample_weight,
            data.n_classes, self.gain_code, data.criterion, data.min_samples_leaf,
            data.min_weight_leaf, data.constraints.monotonic, bounds.lower, bounds.upper)
        if score == -np.inf:
            return None
        return score, self._make(data, samples, features, weights, threshold, score,
                                 missing_left=missing_left, kind="lda",
                                 singular=bool(singular))

    def _univariate(self, data, samples, numeric, group, quick, bounds=UNBOUNDED):
        """MUST-1 (``quick``: Algorithm 4) or the exact univariate search (thresholds
        admissible at a node of ``bounds``)."""
        if numeric.size == 0:
            return None
        kind = "exact"
        cst = data.constraints.monotonic
        if quick:
            est_scores, _ = quick_estimate_search(
                data.X, samples, numeric, group, data.labels, data.sample_weight,
                data.n_classes, self.gain_code, data.criterion, self.quick_spread == "variance",
                data.min_samples_leaf, data.min_weight_leaf)
            if np.isfinite(est_scores).any():
                best = int(np.argmax(est_scores))
                # Algorithm 1: the threshold is then the exact best on that feature
                scores, thresholds, missing_left = univariate_gain_search(
                    data.X, samples, numeric[best:best + 1], data.labels, data.targets,
                    data.sample_weight, data.n_classes, self.gain_code, data.criterion,
                    data.min_samples_leaf, data.min_weight_leaf, cst, bounds.lower,
                    bounds.upper)
                feature = numeric[best]
                kind = "quick"
                # the estimate's feature may have no admissible cut: then search them all
                quick = bool(np.isfinite(scores[0])) or not data.constraints.has_monotonic
            else:  # no estimate gives a valid split: fall back to the exact search
                quick = False
        if not quick:
            kind = "exact"
            scores, thresholds, missing_left = univariate_gain_search(
                data.X, samples, numeric, data.labels, data.targets, data.sample_weight,
                data.n_classes, self.gain_code, data.criterion, data.min_samples_leaf,
                data.min_weight_leaf, cst, bounds.lower, bounds.upper)
            best = int(np.argmax(scores))
            feature = numeric[best]
            scores, thresholds = scores[best:best + 1], thresholds[best:best + 1]
            missing_left = missing_left[best:best + 1]
        if not np.isfinite(scores[0]):
            return None
        return scores[0], self._make(data, samples, [feature], [1.0], thresholds[0], scores[0],
                                     missing_left=missing_left[0], kind=kind)

    def _categorical(self, data, samples, feature, group):
        """The best subset split of one categorical feature: ``(score, Split)`` or ``None``.

        The Split is categorical: the codes of the subset go left (a code the
        node never saw goes right).
        """
        codes = data.X[samples, feature]
        known = ~np.isnan(codes)
        cats, inverse = node_categories(codes[known])
        if cats.size < (2 if known.all() else 1):
            return None
        w = data.sample_weight[samples[known]]
        cat_w = np.bincount(inverse, weights=w, minlength=cats.size)
        share = np.bincount(inverse, weights=w * group[known], minlength=cats.size) / cat_w
        # Breiman's ordering: categories sorted by their share of group 1; the best
        # subset is a prefix of that order (exactly so for two classes); a sample
        # missing the category has value NaN, scanned on both sides
        values = np.full(samples.shape[0], np.nan)
        values[known] = share[inverse]
        score, cut, missing_left = values_threshold(
            values, samples, data.labels, data.targets, data.sample_weight, data.n_classes,
            self.gain_code, data.criterion, data.min_samples_leaf, data.min_weight_leaf)
        if score == -np.inf:
            return None
        subset = subset_below(cats, share, cut)
        return score, self._make(data, samples, [feature], [1.0], 0.0, score,
                                 category_mask=categories_to_mask(subset),
                                 missing_left=missing_left, kind="categorical",
                                 categories=[int(c) for c in subset])

    # ---------------------------------------------------------------- search
    def find_split(self, data, samples, features, bounds=UNBOUNDED):
        features = np.asarray(features, dtype=ITYPE)
        cols = data.X[np.ix_(samples, features)]
        # fmax / fmin leave missing values out (a column missing everywhere is constant)
        varying = (features[np.fmax.reduce(cols, axis=0) > np.fmin.reduce(cols, axis=0)]
                   if features.size else features)
        numeric = varying[~self.is_categorical_[varying]]
        categorical = varying[self.is_categorical_[varying]]
        if varying.size == 0:
            return None
        group, class_group = self.node_groups(data, samples, numeric)
        if group.all() or not group.any():
            return None
        candidates = []
        if numeric.size:
            if self.n_split_features == 1:
                cand = self._univariate(data, samples, numeric, group,
                                        self.univariate == "quick", bounds)
            else:
                cand = self._oblique(data, samples, numeric, group, bounds)
            if cand is not None:
                candidates.append(cand)
        for f in categorical:
            cand = self._categorical(data, samples, f, group)
            if cand is not None:
                candidates.append(cand)
        if not candidates:
            return None
        # Algorithm 2: a categorical split replaces the oblique one only if strictly better
        best_score, best = candidates[0]
        for score, split in candidates[1:]:
            if score > best_score:
                best_score, best = score, split
        if self.compare_univariate and best.n_features > 1:
            uni = self._univariate(data, samples, varying, group, False, bounds)
            # strictly better by more than rounding between two evaluations of one partition
            if uni is not None and best_score <= uni[0] + BEATS_TOLERANCE * max(1.0,
                                                                                abs(uni[0])):
                best = uni[1]
        best.info["groups"] = class_group.tolist()
        return best


def _standardised_known(cols, w):
    """Columns standardised by the weighted mean and spread of their known values, a
    missing value (NaN) set to 0 (the mean): the points of the 2-means class grouping."""
    known = ~np.isnan(cols)
    wk = np.where(known, w[:, None], 0.0)
    filled = np.where(known, cols, 0.0)
    total = np.maximum(wk.sum(axis=0), np.finfo(float).tiny)
    mean = (wk * filled).sum(axis=0) / total
    std = np.sqrt((wk * (filled - mean) ** 2).sum(axis=0) / total)
    return np.where(known, (filled - mean) / np.where(std > 0, std, 1.0), 0.0)


def _complete_moments(data, rows, features, group):
    """:func:`group_moments` of ``rows`` (complete in ``features``) without the group
    weights, or None when a group has no weight among them."""
    if rows.size == 0:
        return None
    mean0, mean1, scatter, std, w0, w1 = group_moments(data.X, rows, features, group,
                                                       data.sample_weight)
    if w0 <= 0.0 or w1 <= 0.0:
        return None
    return mean0, mean1, scatter, std
