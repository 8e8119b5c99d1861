"""Split criteria and the sorted scan that every splitter shares.

Every criterion is a *weighted child impurity* ``G = w_L i(L) + w_R i(R)`` to be
minimised, with ``i`` the per-unit-weight impurity of scikit-learn (entropy in
bits). During a scan we maximise a cheaper *proxy* ``base - G`` whose constant
``base`` depends only on the node (as scikit-learn's ``proxy_impurity_improvement``
does), and update it in O(1) per sample:

===================  ===================================  ======================
criterion            proxy                                base
===================  ===================================  ======================
gini                 S_L / w_L + S_R / w_R                w
                     (S = sum of squared class weights)
entropy              (sum n_c log n_c - w log w) / ln 2   0
                     summed over both children
misclassification    max_c n_Lc + max_c n_Rc              w
squared_error        T_L^2 / w_L + T_R^2 / w_R            sum w y^2
                     (T = weighted sum of targets)
===================  ===================================  ======================

Per-node data is passed as node-local contiguous arrays (``labels``,
``targets``, ``sample_weight`` gathered in the node's sample order) so the
scan reads memory in order.
"""

import math

import numpy as np
from numba import njit

from .._config import ENTROPY, GINI, NUMBA_OPTS, SQUARED_ERROR
from .constraints import side_value, values_admissible

_INV_LN2 = 1.0 / math.log(2.0)


@njit(inline="always", **NUMBA_OPTS)
def xlogx(x):
    """``x log x`` with the limit 0 at 0 (natural log)."""
    return x * math.log(x) if x > 0.0 else 0.0


@njit(**NUMBA_OPTS)
def node_totals(labels, targets, sample_weight, n_classes, criterion, counts):
    """Fill ``counts`` with weighted class counts; return ``(w, sum w y, sum w y^2)``."""
    counts[:] = 0.0
    w_total = 0.0
    t_sum = 0.0
    t_sq = 0.0
    if criterion == SQUARED_ERROR:
        for p in range(sample_weight.shape[0]):
            w = sample_weight[p]
            y = targets[p]
            w_total += w
            t_sum += w * y
            t_sq += w * y * y
    else:
        for p in range(sample_weight.shape[0]):
            w = sample_weight[p]
            counts[labels[p]] += w
            w_total += w
    return w_total, t_sum, t_sq


@njit(**NUMBA_OPTS)
def impurity_of(counts, w_total, t_sum, t_sq, criterion):
    """Per-unit-weight impurity of a set with the given totals (scikit-learn's formulas)."""
    if w_total <= 0.0:
        return 0.0
    if criterion == SQUARED_ERROR:
        mean = t_sum / w_total
        return t_sq / w_total - mean * mean
    if criterion == GINI:
        s = 0.0
        for c in range(counts.shape[0]):
            s += counts[c] * counts[c]
        return 1.0 - s / (w_total * w_total)
    if criterion == ENTROPY:
        h = 0.0
        for c in range(counts.shape[0]):
            if counts[c] > 0.0:
                q = counts[c] / w_total
                h -= q * math.log(q)
        return h * _INV_LN2
    # misclassification
    m = 0.0
    for c in range(counts.shape[0]):
        m = max(m, counts[c])
    return 1.0 - m / w_total


@njit(**NUMBA_OPTS)
def proxy_base(counts, w_total, t_sq, criterion):
    """The node constant ``base`` with ``G = base - proxy`` (see the module table)."""
    if criterion == SQUARED_ERROR:
        return t_sq
    if criterion == ENTROPY:
        return 0.0
    return w_total


# inlined like every level of a scan: a called level costs reference counting of its
# arrays (bivtree._kernels.scan, module docstring)
@njit(inline="always", **NUMBA_OPTS)
def best_cut_sorted(values, order, labels, targets, sample_weight, criterion,
                    tot_counts, w_total, t_sum, min_samples_leaf, min_weight_leaf,
                    left_counts, right_counts, monotonic, lower, upper):
    """Best cut of the node's samples sorted by ``values``.

    Cuts fall only between distinct values; a cut after sorted position ``p``
    sends ``order[:p + 1]`` left. A cut is valid when both sides hold at least
    ``min_samples_leaf`` samples and ``min_weight_leaf`` weight.

    Parameters
    ----------
    values : float64 (n,)
        Projection of each node sample (node-local order).
    order : int64 (n,)
        ``argsort(values)``.
    labels, targets, sample_weight : (n,)
        Node-local labels (classification) or targets (regression) and weights.
    criterion : int
    tot_counts : float64 (n_classes,)
        Weighted class counts of the node (ignored for regression).
    w_total, t_sum : float
        Node weight and weighted target sum.
    min_samples_leaf : int
    min_weight_leaf : float
    left_counts, right_counts : float64 (n_classes,)
        Scratch buffers.
    monotonic : int
        The order the children's values must have (``+1``: left at most right,
        ``-1``: the reverse, ``0``: none; :mod:`bivtree._kernels.constraints`);
        an ordered cut is valid only if both values also lie in ``[lower, upper]``.
    lower, upper : float
        The node's bounds (read only for an ordered cut).

    Returns
    -------
    best_proxy : float
        ``-inf`` when no cut is valid.
    best_pos : int
        Last sorted position that goes left, ``-1`` when no cut is valid.
    """
    # no rows held aside (n_start = 0): the left side starts empty, and the
    # start_counts argument (here tot_counts) is not read
    return best_cut_offset(values, order, labels, targets, sample_weight, criterion,
                           tot_counts, w_total, t_sum, min_samples_leaf, min_weight_leaf,
                           left_counts, right_counts, tot_counts, 0.0, 0.0, 0,
                           order.shape[0], False, monotonic, lower, upper)


# inlined like every level of a scan: a called level costs reference counting of its
# arrays (bivtree._kernels.scan, module docstring)
@njit(inline="always", **NUMBA_OPTS)
def best_cut_offset(values, order, labels, targets, sample_weight, criterion,
                    tot_counts, w_total, t_sum, min_samples_leaf, min_weight_leaf,
                    left_counts, right_counts, start_counts, start_w, start_t, n_start,
                    n_total, cut_after_last, monotonic, lower, upper):
    """:func:`best_cut_sorted` when some of the node's rows are held aside on one side.

    The sorted rows ``order`` are the node's rows whose value is known; the
    other rows (the node's missing values) are fixed on one side: on the left
    when their count ``n_start`` is positive, with their totals ``start_counts``
    (class weights), ``start_w`` (weight) and ``start_t`` (weighted target sum),
    so every left prefix starts from them; on the right when ``n_start`` is 0
    (``start_counts`` is then not read, ``start_w`` and ``start_t`` are 0), since
    the node totals ``tot_counts``, ``w_total``, ``t_sum`` and ``n_total`` (the
    number of rows) include them and the right side is the node minus the left.
    ``cut_after_last`` also allows the cut after the last sorted row (every
    known value left, the rows held aside right). With nothing held aside this
    is exactly :func:`best_cut_sorted`'s scan. ``monotonic``, ``lower`` and
    ``upper`` are :func:`best_cut_sorted`'s: a cut whose children's values (held
    rows included) break the order or the bounds is skipped, as scikit-learn
    skips it.

    Returns
    -------
    best_proxy : float
        ``-inf`` when no cut is valid.
    best_pos : int
        Last sorted position that goes left (``order.shape[0] - 1``: the cut
        after the last row), ``-1`` when no cut is valid.
    """
    if monotonic == 0:
        # the scan without the order check, as a copy of its own: the constant 0 takes
        # the check out of the hot loop (about 3 % of an orientations fit)
        return _offset_scan(values, order, labels, targets, sample_weight, criterion,
                            tot_counts, w_total, t_sum, min_samples_leaf, min_weight_leaf,
                            left_counts, right_counts, start_counts, start_w, start_t, n_start,
                            n_total, cut_after_last, 0, lower, upper)
    return _offset_scan(values, order, labels, targets, sample_weight, criterion, tot_counts,
                        w_total, t_sum, min_samples_leaf, min_weight_leaf, left_counts,
                        right_counts, start_counts, start_w, start_t, n_start, n_total,
                        cut_after_last, monotonic, lower, upper)


@njit(inline="always", **NUMBA_OPTS)
def _offset_scan(values, order, labels, targets, sample_weight, criterion, tot_counts, w_total,
                 t_sum, min_samples_leaf, min_weight_leaf, left_counts, right_counts,
                 start_counts, start_w, start_t, n_start, n_total, cut_after_last, monotonic,
                 lower, upper):
    """:func:`best_cut_offset`'s scan (its arguments)."""
    n = order.shape[0]
    n_classes = tot_counts.shape[0]
    best_proxy = -np.inf
    best_pos = -1
    w_left = start_w
    regression = criterion == SQUARED_ERROR
    # running sums of the proxy terms
    sq_left = 0.0
    sq_right = 0.0
    xl_left = 0.0
    xl_right = 0.0
    max_left = 0.0
    max_right = 0.0
    sum_left = start_t
    if not regression:
        for c in range(n_classes):
            held = start_counts[c] if n_start > 0 else 0.0
            left_counts[c] = held
            right_counts[c] = tot_counts[c] - held
            sq_left += left_counts[c] * left_counts[c]
            sq_right += right_counts[c] * right_counts[c]
            if criterion == ENTROPY:
                # only entropy reads these: two logarithms per class cost a scan of a few
                # dozen samples about 40 % of its time
                xl_left += xlogx(left_counts[c])
                xl_right += xlogx(right_counts[c])
            max_left = max(max_left, left_counts[c])
            max_right = max(max_right, right_counts[c])
    last = n_total - min_samples_leaf  # more rows left than this leave too few on the right
    n_cuts = n if cut_after_last else n - 1
    for p in range(n_cuts):
        i = order[p]
        w = sample_weight[i]
        w_left += w
        if regression:
            sum_left += w * targets[i]
        else:
            c = labels[i]
            a = left_counts[c]
            b = right_counts[c]
            left_counts[c] = a + w
            right_counts[c] = b - w
            if criterion == GINI:
                sq_left += w * (2.0 * a + w)
                sq_right -= w * (2.0 * b - w)
            elif criterion == ENTROPY:
                xl_left += xlogx(a + w) - xlogx(a)
                xl_right += xlogx(b - w) - xlogx(b)
            else:
                max_left = max(max_left, a + w)
                if b == max_right:
                    max_right = 0.0
                    for k in range(n_classes):
                        max_right = max(max_right, right_counts[k])
        n_left = n_start + p + 1
        if n_left < min_samples_leaf:
            continue
        if n_left > last:
            break
        if p + 1 < n and values[order[p + 1]] <= values[i]:
            continue
        w_right = w_total - w_left
        if w_left < min_weight_leaf or w_right < min_weight_leaf:
            continue
        if w_left <= 0.0 or w_right <= 0.0:
            continue
        if monotonic != 0 and not values_admissible(
                monotonic, lower, upper, side_value(criterion, left_counts, w_left, sum_left),
                side_value(criterion, right_counts, w_right, t_sum - sum_left)):
            continue
        if regression:
            sum_right = t_sum - sum_left
            proxy = sum_left * sum_left / w_left + sum_right * sum_right / w_right
        elif criterion == GINI:
            proxy = sq_left / w_left + sq_right / w_right
        elif criterion == ENTROPY:
            proxy = (xl_left - xlogx(w_left) + xl_right - xlogx(w_right)) * _INV_LN2
        else:
            proxy = max_left + max_right
        if proxy > best_proxy:
            best_proxy = proxy
            best_pos = p
    return best_proxy, best_pos


@njit(inline="always", **NUMBA_OPTS)
def midpoint_threshold(lo, hi):
    """Threshold between two consecutive distinct values ``lo < hi`` with ``lo <= t < hi``.

    The midpoint can round onto ``hi`` when the two are adjacent doubles; ``lo``
    is then used (scikit-learn does the same).
    """
    t = lo / 2.0 + hi / 2.0
    if t == hi or not math.isfinite(t):
        t = lo
    return t


@njit(**NUMBA_OPTS)
def summarize_samples(samples, labels, targets, sample_weight, n_classes, criterion):
    """Value, weight and impurity of a set of samples.

    Returns
    -------
    value : float64 (n_classes,) or (1,)
        Weighted class counts, or the weighted mean target for regression.
    w_total : float
    impurity : float
    """
    counts = np.zeros(n_classes, dtype=np.float64)
    w_total = 0.0
    t_sum = 0.0
    t_sq = 0.0
    regression = criterion == SQUARED_ERROR
    for p in range(samples.shape[0]):
        i = samples[p]
        w = sample_weight[i]
        w_total += w
        if regression:
            t_sum += w * targets[i]
            t_sq += w * targets[i] * targets[i]
        else:
            counts[labels[i]] += w
    impurity = impurity_of(counts, w_total, t_sum, t_sq, criterion)
    if regression:
        value = np.empty(1, dtype=np.float64)
        value[0] = t_sum / w_total if w_total > 0.0 else 0.0
        return value, w_total, impurity
    return counts, w_total, impurity
