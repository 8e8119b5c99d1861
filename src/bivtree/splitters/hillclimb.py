"""BIT1 (Bioch, van der Meer & Potharst, 1997, section 3.1): CART's linear-combination
search restricted to a feature pair.

For every ordered pair ``(i, j)`` of candidate features the test
``a_i z_i + a_j z_j <= T`` starts as the best univariate split on ``z_i``
(``a = (1, 0)``) and is improved by hill climbing (CART's linear-combination
search, Breiman et al. 1984, as the paper's section 2.3 summarises it):

* ``z`` are the node's features centred at their median and divided by their
  interquartile range, both over the node's samples;
* a *step* on coordinate ``k`` tries ``V - delta (z_k + gamma) <= T`` for
  ``gamma`` in ``gammas`` (``-0.25, 0, 0.25``). With ``c = z_k + gamma`` a
  sample goes left iff ``u = (v - T) / c <= delta`` when ``c > 0`` and iff
  ``u >= delta`` when ``c < 0`` (``c == 0``: its side does not move), so
  sweeping ``delta`` over the sorted ``u`` moves one sample at a time and
  every midpoint between distinct ``u`` is scored exactly. The best
  ``(delta, gamma)`` updates ``a_k <- a_k - delta`` and ``T <- T + delta
  gamma``, if it lowers the weighted child impurity;
* a *cycle* is a step on ``z_i``, a step on ``z_j``, then the exact best
  threshold for the current direction. Cycling stops when a cycle lowers the
  weighted child impurity by at most ``tol`` times the node weight, or after
  ``max_cycles``.

Every accepted step is re-evaluated on the partition the updated rule really
makes, so the objective never increases. Pairs run in parallel (``prange``),
each writing only its own slot; the winner is the lowest objective, ties to
the first ordered pair, so the result does not depend on the thread count.
The winning direction is written back in original units and its threshold
re-scanned by :func:`finish_bivariate`, and it replaces the best univariate
split only if it beats it (optionally by a relative margin, the variant the
paper mentions and rejects).

**Missing values** (NaN in ``X``). The median and interquartile range of a
feature are those of its known values at the node. A pair's climb runs on the
pair's complete rows only (their own class totals; the rows missing either
feature take no part in choosing the direction). The pair's final direction is
then scored on every row of the node by the exact scan of its projection,
which tries every threshold with the rows missing a feature of the pair on the
left and on the right (:func:`~bivtree._kernels.scan.scan_values`): that
objective, missing side included, ranks the pairs, and the re-scan of the
winner stores the side. A pair without missing rows climbs exactly as without
NaN. The search stays a heuristic: a direction that is best for the complete
rows need not be best once the missing rows are placed.

**Constraints** (:mod:`bivtree.constraints`). Only the ordered pairs the
interaction groups allow climb. Under monotonic constraints the climb starts
from the best *admissible* split on ``z_i``, and a step (or a rescaled
threshold) is taken only if its partition is admissible: the signs of the
coefficients after the step must agree on the constrained features
(:func:`~bivtree._kernels.constraints.term_order`), and an ordered partition's
children must be in order within the node's bounds. The climb therefore never
leaves the admissible splits, and the winner is re-scanned under them.
"""

from typing import ClassVar

import numpy as np
from numba import njit, prange

from .._config import ITYPE, NUMBA_OPTS, SQUARED_ERROR
from .._kernels.constraints import CONFLICT, side_value, term_order, values_admissible
from .._kernels.criteria import impurity_of, midpoint_threshold, node_totals
from .._kernels.scan import gather_node, scan_values
from .._validation import Integral, Interval, Real, check_params
from ..constraints import UNBOUNDED
from ._base import Splitter, register
from ._pairs import finish_bivariate
from .univariate import best_univariate_split

#: the three offsets CART tries in each coordinate step.
DEFAULT_GAMMAS = (-0.25, 0.0, 0.25)


# ----------------------------------------------------------------------------- kernels
@njit(**NUMBA_OPTS)
def _valid(n_left, n_right, w_left, w_right, min_samples_leaf, min_weight_leaf):
    return (n_left >= min_samples_leaf and n_right >= min_samples_leaf
            and w_left >= min_weight_leaf and w_right >= min_weight_leaf
            and w_left > 0.0 and w_right > 0.0)


@njit(inline="always", **NUMBA_OPTS)
def _pair_order(c_i, c_j, a_i, a_j):
    """Order of the children of ``a_i z_i + a_j z_j <= T`` for features constrained by
    ``c_i``, ``c_j`` (``z`` scales each feature by a positive factor)."""
    return term_order(term_order(0, c_i, a_i), c_j, a_j)


@njit(inline="always", **NUMBA_OPTS)
def _sides_admissible(order, lower, upper, criterion, left, w_left, t_left, right, w_right,
                      t_right):
    """Whether sides of these totals respect ``order`` within ``[lower, upper]``."""
    if order == 0:
        return True
    if order == CONFLICT:
        return False
    return values_admissible(order, lower, upper, side_value(criterion, left, w_left, t_left),
                             side_value(criterion, right, w_right, t_right))


@njit(**NUMBA_OPTS)
def partition_objective(values, threshold, node_labels, node_targets, node_weight, criterion,
                        min_samples_leaf, min_weight_leaf, left, right, order=0,
                        lower=-np.inf, upper=np.inf):
    """``G = w_L i(L) + w_R i(R)`` of the partition ``values <= threshold``.

    Returns ``inf`` when the partition is not a valid split (a side with too
    few samples or too little weight) or, for a partition whose children must
    have ``order`` (monotonic constraints), when they do not within
    ``[lower, upper]``. ``left`` and ``right`` are scratch buffers of length
    ``n_classes``.
    """
    left[:] = 0.0
    right[:] = 0.0
    n_left = 0
    w_left = 0.0
    w_right = 0.0
    t_left = 0.0
    t_right = 0.0
    q_left = 0.0
    q_right = 0.0
    regression = criterion == SQUARED_ERROR
    for p in range(values.shape[0]):
        w = node_weight[p]
        if values[p] <= threshold:
            n_left += 1
            w_left += w
            if regression:
                t_left += w * node_targets[p]
                q_left += w * node_targets[p] * node_targets[p]
            else:
                left[node_labels[p]] += w
        else:
            w_right += w
            if regression:
                t_right += w * node_targets[p]
                q_right += w * node_targets[p] * node_targets[p]
            else:
                right[node_labels[p]] += w
    if not _valid(n_left, values.shape[0] - n_left, w_left, w_right, min_samples_leaf,
                  min_weight_leaf):
        return np.inf
    if not _sides_admissible(order, lower, upper, criterion, left, w_left, t_left, right,
                             w_right, t_right):
        return np.inf
    return (w_left * impurity_of(left, w_left, t_left, q_left, criterion)
            + w_right * impurity_of(right, w_right, t_right, q_right, criterion))


@njit(**NUMBA_OPTS)
def best_coordinate_step(v, threshold, z, gamma, node_labels, node_targets, node_weight,
                         criterion, min_samples_leaf, min_weight_leaf, left, right, c_i=0,
                         c_j=0, a_i=1.0, a_j=0.0, coord=0, lower=-np.inf, upper=np.inf):
    """Best ``delta`` for the test ``v - delta (z + gamma) <= threshold``.

    ``delta`` ranges over the midpoints between consecutive distinct values of
    ``u = (v - threshold) / (z + gamma)`` (samples with ``z + gamma == 0`` keep
    their side). Ties go to the smallest ``delta``. Under monotonic constraints
    (``c_i``, ``c_j`` of the pair's features, ``v = a_i z_i + a_j z_j``, the
    step on coordinate ``coord``; ``lower``, ``upper`` the node's bounds) a
    ``delta`` is a candidate only if the test it makes is admissible.

    Returns
    -------
    objective : float
        Weighted child impurity at the best ``delta``; ``inf`` when no
        midpoint gives a valid split.
    delta : float
    """
    n = v.shape[0]
    regression = criterion == SQUARED_ERROR
    u = np.empty(n)
    moving = np.empty(n, dtype=np.int64)
    m = 0
    left[:] = 0.0
    right[:] = 0.0
    n_left = 0
    w_left = 0.0
    w_right = 0.0
    t_left = 0.0
    t_right = 0.0
    q_left = 0.0
    q_right = 0.0
    # delta -> -inf: c > 0 samples are right, c < 0 samples are left
    for p in range(n):
        c = z[p] + gamma
        if c != 0.0:
            u[m] = (v[p] - threshold) / c
            moving[m] = p
            m += 1
        goes_left = c < 0.0 or (c == 0.0 and v[p] <= threshold)
        w = node_weight[p]
        y = node_targets[p]
        if goes_left:
            n_left += 1
            w_left += w
            if regression:
                t_left += w * y
                q_left += w * y * y
            else:
                left[node_labels[p]] += w
        else:
            w_right += w
            if regression:
                t_right += w * y
                q_right += w * y * y
            else:
                right[node_labels[p]] += w
    best = np.inf
    best_delta = 0.0
    if m < 2:
        return best, best_delta
    order = np.argsort(u[:m])
    for r in range(m - 1):
        p = moving[order[r]]
        w = node_weight[p]
        y = node_targets[p]
        # passing u_p: a c > 0 sample enters the left side, a c < 0 sample leaves it
        sign = 1.0 if z[p] + gamma > 0.0 else -1.0
        n_left += 1 if sign > 0.0 else -1
        w_left += sign * w
        w_right -= sign * w
        if regression:
            t_left += sign * w * y
            t_right -= sign * w * y
            q_left += sign * w * y * y
            q_right -= sign * w * y * y
        else:
            left[node_labels[p]] += sign * w
            right[node_labels[p]] -= sign * w
        lo = u[order[r]]
        hi = u[order[r + 1]]
        if hi <= lo:
            continue
        if not _valid(n_left, n - n_left, w_left, w_right, min_samples_leaf, min_weight_leaf):
            continue
        g = (w_left * impurity_of(left, w_left, t_left, q_left, criterion)
             + w_right * impurity_of(right, w_right, t_right, q_right, criterion))
        if g < best:
            delta = midpoint_threshold(lo, hi)
            # the coefficients after the step decide the order the children must have
            sense = _pair_order(c_i, c_j, a_i - delta if coord == 0 else a_i,
                                a_j - delta if coord == 1 else a_j)
            if _sides_admissible(sense, lower, upper, criterion, left, w_left, t_left,
                                 right, w_right, t_right):
                best = g
                best_delta = delta
    return best, best_delta


@njit(**NUMBA_OPTS)
def climb_pair(zi, zj, gammas, tol_weight, max_cycles, node_labels, node_targets, node_weight,
               counts, w_total, t_sum, criterion, min_samples_leaf, min_weight_leaf, c_i=0,
               c_j=0, lower=-np.inf, upper=np.inf):
    """Hill climbing of ``a_i z_i + a_j z_j <= T`` from the best split on ``z_i``.

    ``c_i``, ``c_j``: the monotonic constraints of the two features, ``lower``
    and ``upper`` the node's bounds: every partition the climb starts from or
    steps to is admissible under them (see the module).

    Returns
    -------
    objective : float
        Weighted child impurity of the final test (``inf``: no valid start).
    a_i, a_j, threshold : float
    n_cycles : int
    """
    n = zi.shape[0]
    n_classes = counts.shape[0]
    left = np.empty(n_classes)
    right = np.empty(n_classes)
    proxy, threshold, _ = scan_values(zi, node_labels, node_targets, node_weight, criterion,
                                   counts, w_total, t_sum, min_samples_leaf, min_weight_leaf,
                                   left, right, c_i, lower, upper)
    if proxy == -np.inf:
        return np.inf, 1.0, 0.0, 0.0, 0
    a_i = 1.0
    a_j = 0.0
    v = zi.copy()
    g = partition_objective(v, threshold, node_labels, node_targets, node_weight, criterion,
                            min_samples_leaf, min_weight_leaf, left, right, c_i, lower, upper)
    trial = np.empty(n)
    n_cycles = 0
    for cycle in range(max_cycles):
        g_start = g
        for coord in range(2):
            z = zi if coord == 0 else zj
            step_g = g
            step_delta = 0.0
            step_gamma = 0.0
            found = False
            for h in range(gammas.shape[0]):
                gh, dh = best_coordinate_step(v, threshold, z, gammas[h], node_labels,
                                              node_targets, node_weight, criterion,
                                              min_samples_leaf, min_weight_leaf, left, right,
                                              c_i, c_j, a_i, a_j, coord, lower, upper)
                if gh < step_g:
                    step_g = gh
                    step_delta = dh
                    step_gamma = gammas[h]
                    found = True
            if not found:
                continue
            b_i = a_i - step_delta if coord == 0 else a_i
            b_j = a_j - step_delta if coord == 1 else a_j
            t_new = threshold + step_delta * step_gamma
            for p in range(n):
                trial[p] = b_i * zi[p] + b_j * zj[p]
            # the step was scored on v - delta c; keep it only if the rule it
            # becomes really partitions better (rounding can differ at a midpoint)
            g_new = partition_objective(trial, t_new, node_labels, node_targets, node_weight,
                                        criterion, min_samples_leaf, min_weight_leaf, left,
                                        right, _pair_order(c_i, c_j, b_i, b_j), lower, upper)
            if g_new < g:
                a_i = b_i
                a_j = b_j
                threshold = t_new
                g = g_new
                v[:] = trial
        # rescale so max |a| = 1 (a positive factor leaves the test unchanged and
        # keeps the coefficients bounded), then the exact best threshold
        s = max(abs(a_i), abs(a_j))
        a_i /= s
        a_j /= s
        for p in range(n):
            trial[p] = a_i * zi[p] + a_j * zj[p]
        order = _pair_order(c_i, c_j, a_i, a_j)
        proxy, t_scan, _ = scan_values(trial, node_labels, node_targets, node_weight, criterion,
                                    counts, w_total, t_sum, min_samples_leaf, min_weight_leaf,
                                    left, right, order, lower, upper)
        if proxy > -np.inf:
            g_scan = partition_objective(trial, t_scan, node_labels, node_targets, node_weight,
                                         criterion, min_samples_leaf, min_weight_leaf, left,
                                         right, order, lower, upper)
            g_old = partition_objective(trial, threshold / s, node_labels, node_targets,
                                        node_weight, criterion, min_samples_leaf,
                                        min_weight_leaf, left, right, order, lower, upper)
            if g_scan <= g_old:
                threshold = t_scan
                g = g_scan
            else:
                threshold = threshold / s
                g = g_old
        else:
            threshold = threshold / s
        v[:] = trial
        n_cycles = cycle + 1
        if g_start - g <= tol_weight:
            break
    return g, a_i, a_j, threshold, n_cycles


@njit(**NUMBA_OPTS)
def climb_pair_missing(zi, zj, gammas, tol_weight, max_cycles, node_labels, node_targets,
                       node_weight, counts, w_total, t_sum, criterion, min_samples_leaf,
                       min_weight_leaf, c_i=0, c_j=0, lower=-np.inf, upper=np.inf):
    """:func:`climb_pair` when ``zi`` or ``zj`` holds NaN (missing values).

    The climb runs on the complete rows (their own totals); the final direction
    is then scored on every row by the exact scan of its projection with the
    rows missing ``zi`` or ``zj`` on the left and on the right. Returns
    :func:`climb_pair`'s values, the objective being that of every row with the
    missing ones on their better side, the threshold that of the scan.
    """
    n = zi.shape[0]
    n_classes = counts.shape[0]
    keep = np.empty(n, dtype=np.int64)
    m = 0
    for p in range(n):
        if not (np.isnan(zi[p]) or np.isnan(zj[p])):
            keep[m] = p
            m += 1
    keep = keep[:m]
    if m < 2:
        return np.inf, 1.0, 0.0, 0.0, 0
    sub_labels = node_labels[keep]
    sub_targets = node_targets[keep]
    sub_weight = node_weight[keep]
    sub_counts = np.empty(n_classes)
    sub_w, sub_t, _ = node_totals(sub_labels, sub_targets, sub_weight, n_classes, criterion,
                                  sub_counts)
    g, a_i, a_j, _, n_cycles = climb_pair(
        zi[keep], zj[keep], gammas, tol_weight, max_cycles, sub_labels, sub_targets,
        sub_weight, sub_counts, sub_w, sub_t, criterion, min_samples_leaf, min_weight_leaf,
        c_i, c_j, lower, upper)
    if not g < np.inf:
        return np.inf, 1.0, 0.0, 0.0, n_cycles
    values = np.empty(n)
    for p in range(n):
        values[p] = a_i * zi[p] + a_j * zj[p]  # NaN where a feature is missing
    left = np.empty(n_classes)
    right = np.empty(n_classes)
    order = _pair_order(c_i, c_j, a_i, a_j)
    proxy, threshold, missing_left = scan_values(
        values, node_labels, node_targets, node_weight, criterion, counts, w_total, t_sum,
        min_samples_leaf, min_weight_leaf, left, right, order, lower, upper)
    if proxy == -np.inf:
        return np.inf, a_i, a_j, 0.0, n_cycles
    # the partition the scan chose, scored with the climb's arithmetic: the missing rows
    # sit beyond every threshold on their side
    side = -np.inf if missing_left else np.inf
    for p in range(n):
        if np.isnan(values[p]):
            values[p] = side
    g = partition_objective(values, threshold, node_labels, node_targets, node_weight,
                            criterion, min_samples_leaf, min_weight_leaf, left, right, order,
                            lower, upper)
    return g, a_i, a_j, threshold, n_cycles


@njit(parallel=True, **NUMBA_OPTS)
def hillclimb_search(X, samples, first, second, offset, inv_scale, labels, targets,
                     sample_weight, n_classes, criterion, min_samples_leaf, min_weight_leaf,
                     gammas, tol, max_cycles, cst, lower, upper):
    """BIT1 on every ordered pair ``(first[q], second[q])``.

    ``cst`` is the monotonic constraint of every feature (empty: none) and
    ``lower``, ``upper`` the node's bounds.

    Returns
    -------
    objectives : float64 (n_pairs,)
        Weighted child impurity of each pair's final test (``inf``: none).
    coefs : float64 (n_pairs, 2)
        ``(a_i, a_j)`` on the scaled features ``z = (x - offset) * inv_scale``.
    thresholds : float64 (n_pairs,)
    cycles : int64 (n_pairs,)
    """
    node_labels, node_targets, node_weight, counts, w_total, t_sum, _ = gather_node(
        samples, labels, targets, sample_weight, n_classes, criterion)
    n = samples.shape[0]
    n_pairs = first.shape[0]
    objectives = np.full(n_pairs, np.inf)
    coefs = np.zeros((n_pairs, 2))
    thresholds = np.zeros(n_pairs)
    cycles = np.zeros(n_pairs, dtype=np.int64)
    tol_weight = tol * w_total
    for q in prange(n_pairs):
        i = first[q]
        j = second[q]
        zi = np.empty(n)
        zj = np.empty(n)
        n_missing = 0
        for p in range(n):
            s = samples[p]
            zi[p] = (X[s, i] - offset[i]) * inv_scale[i]
            zj[p] = (X[s, j] - offset[j]) * inv_scale[j]
            if np.isnan(zi[p]) or np.isnan(zj[p]):
                n_missing += 1
        c_i = cst[i] if cst.shape[0] > 0 else 0
        c_j = cst[j] if cst.shape[0] > 0 else 0
        if n_missing == 0:
            g, a_i, a_j, t, nc = climb_pair(zi, zj, gammas, tol_weight, max_cycles,
                                            node_labels, node_targets, node_weight, counts,
                                            w_total, t_sum, criterion, min_samples_leaf,
                                            min_weight_leaf, c_i, c_j, lower, upper)
        else:
            g, a_i, a_j, t, nc = climb_pair_missing(
                zi, zj, gammas, tol_weight, max_cycles, node_labels, node_targets,
                node_weight, counts, w_total, t_sum, criterion, min_samples_leaf,
                min_weight_leaf, c_i, c_j, lower, upper)
        objectives[q] = g
        coefs[q, 0] = a_i
        coefs[q, 1] = a_j
        thresholds[q] = t
        cycles[q] = nc
    return objectives, coefs, thresholds, cycles


# ------------------------------------------------------------------------------ python
def weighted_quantile(values, weights, q):
    """Smallest value whose cumulative weight share reaches ``q`` (inverted CDF).

    With integer weights this equals the quantile of the data with every
    sample repeated ``weight`` times, so weights and repetitions agree.
    """
    order = np.argsort(values, kind="stable")
    cum = np.cumsum(weights[order])
    idx = np.searchsorted(cum, np.asarray(q) * cum[-1], side="left")
    return values[order[np.minimum(idx, values.shape[0] - 1)]]


def node_median_iqr_scaling(X, samples, features, sample_weight):
    """CART's normalisation at a node: centre at the median, divide by the IQR.

    Quantiles are weighted (inverted CDF). A feature whose interquartile range
    is zero but which varies at the node (a few distinct values, most samples
    on one) is divided by its range instead; a constant feature gets inverse
    scale 0 and takes no part in pairs. Missing values (NaN) are left out: the
    statistics are those of the feature's known values (none, or one distinct:
    a constant feature).

    Returns
    -------
    offset, inv_scale : ndarray of float64, shape (n_features,)
    """
    offset = np.zeros(X.shape[1])
    inv_scale = np.zeros(X.shape[1])
    w = sample_weight[samples]
    for f in features:
        col = X[samples, f]
        wf = w
        known = ~np.isnan(col)
        if not known.all():
            col, wf = col[known], w[known]
            if col.size == 0:
                continue
        lo, hi = col.min(), col.max()
        if hi <= lo:
            continue
        q1, med, q3 = weighted_quantile(col, wf, (0.25, 0.5, 0.75))
        spread = q3 - q1 if q3 > q1 else hi - lo
        offset[f] = med
        inv_scale[f] = 1.0 / spread
    return offset, inv_scale


def ordered_pairs(features):
    """Every ordered pair ``(i, j)``, ``i != j``, in the paper's loop order (``i`` outer)."""
    features = np.asarray(features, dtype=ITYPE)
    m = features.shape[0]
    i, j = np.meshgrid(np.arange(m), np.arange(m), indexing="ij")
    keep = i != j
    return (np.ascontiguousarray(features[i[keep]]), np.ascontiguousarray(features[j[keep]]))


@register
class HillClimbSplitter(Splitter):
    """BIT1: CART's linear-combination hill climbing on every ordered feature pair.

    Parameters
    ----------
    tol : float, default=1e-3
        Stop cycling when a cycle lowers the weighted child impurity by at most
        ``tol`` times the node weight (CART's epsilon, per unit weight).
    max_cycles : int, default=20
        Most cycles per pair.
    gammas : sequence of float, default=(-0.25, 0.0, 0.25)
        Offsets tried in each coordinate step (CART's values).
    min_relative_improvement : float, default=0.0
        The bivariate split must lower the best univariate split's weighted
        child impurity by more than this fraction (the paper mentions 10% and
        reports that it tends to grow larger trees); 0 keeps it whenever it
        is strictly better.
    """

    name = "hillclimb"
    max_node_features = 2
    searches_pairs = True
    supports_constraints = True
    _parameter_constraints: ClassVar[dict] = {
        "tol": [Interval(Real, 0.0, None, closed="left")],
        "max_cycles": [Interval(Integral, 1, None, closed="left")],
        # emptiness and finiteness are checked on the converted array below
        "gammas": ["array-like"],
        "min_relative_improvement": [Interval(Real, 0.0, 1.0, closed="left")],
    }

    def __init__(self, tol=1e-3, max_cycles=20, gammas=DEFAULT_GAMMAS,
                 min_relative_improvement=0.0):
        check_params(f"the {self.name!r} splitter",
                     {"tol": tol, "max_cycles": max_cycles, "gammas": gammas,
                      "min_relative_improvement": min_relative_improvement},
                     self._parameter_constraints)
        try:
            gam = np.asarray(gammas, dtype=np.float64).ravel()
        except (TypeError, ValueError):
            raise ValueError(f"gammas must be a sequence of numbers, got {gammas!r}") from None
        if gam.size == 0 or not np.all(np.isfinite(gam)):
            raise ValueError(f"gammas must be a non-empty sequence of finite numbers, "
                             f"got {gammas!r}")
        self.tol = float(tol)
        self.max_cycles = int(max_cycles)
        self.gammas = np.ascontiguousarray(gam)
        self.min_relative_improvement = float(min_relative_improvement)

    def find_split(self, data, samples, features, bounds=UNBOUNDED):
        univariate = best_univariate_split(data, samples, features, bounds)
        if univariate is None:
            return None
        offset, inv_scale = node_median_iqr_scaling(data.X, samples, features,
                                                    data.sample_weight)
        first, second = data.constraints.allowed_pairs(
            *ordered_pairs(features[inv_scale[features] > 0]))
        if first.size == 0:
            return univariate
        objectives, coefs, _, cycles = hillclimb_search(
            data.X, samples, first, second, offset, inv_scale, data.labels, data.targets,
            data.sample_weight, data.n_classes, data.criterion, data.min_samples_leaf,
            data.min_weight_leaf, self.gammas, self.tol, self.max_cycles,
            data.constraints.monotonic, bounds.lower, bounds.upper)
        # a pair whose climb zeroed a coefficient ended on a univariate test,
        # which the exact univariate search already covers
        bivariate = np.isfinite(objectives) & (coefs[:, 0] != 0.0) & (coefs[:, 1] != 0.0)
        if not bivariate.any():
            return univariate
        best = int(np.argmin(np.where(bivariate, objectives, np.inf)))  # first: lowest pair
        i, j = int(first[best]), int(second[best])
        a, b = coefs[best]
        if i > j:  # store the lower feature index first
            i, j, a, b = j, i, b, a
        split = finish_bivariate(
            data, samples, univariate, 0, np.array([i]), np.array([j]), np.array([a]),
            np.array([b]), 0, inv_scale, bounds, n_pairs=int(first.size),
            cycles=int(cycles[best]))
        if split is univariate or self.min_relative_improvement == 0.0:
            return split
        gain = univariate.objective - split.objective
        if gain > self.min_relative_improvement * univariate.objective:
            return split
        return univariate
