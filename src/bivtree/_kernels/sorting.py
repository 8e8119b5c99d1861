"""A faster exact argsort for the scans: radix sort on 16-bit keys, then a float64 repair.

Every split search sorts a projection of a node's samples and scans the cuts;
the sort dominates (numba's quicksort costs about 60 µs for 3700 values, and
grows faster than n log n on larger arrays). :func:`argsort_values` maps each
value to the 16-bit key ``floor((v - min) * 2^16 / (max - min))``, which never
decreases as the value grows, sorts the keys with a 2-pass least-significant-digit
radix sort (8-bit digits), and repairs the order exactly with an insertion sort
on the float64 values: only values sharing a key can be out of order, so the
repair is linear in practice. Where it is not (values clustered on a few keys,
e.g. one far outlier stretching the range) it gives up after ``2 n`` moves, as
where ``max - min`` overflows, for :func:`float32_radix_argsort`: the same on
the values rounded to float32 (4 passes, a pass whose digit is the same for
every key skipped), with the repair giving up after ``4 n`` moves for
``np.argsort``. The result is a permutation sorting ``values`` ascending, like
``np.argsort``; equal values may come in another order, which no scan depends
on (cuts fall only between distinct values).

The 16-bit keys halve the float32 sort's passes, and its passes carry what the
next step reads (the high byte, then the value), so that the second pass and
the repair read their arrays in order: on one AMD EPYC core, 1.4 to 2 times
faster than the float32 sort from 300 to 9,500 values of normal or heavy-tailed
projections (``benchmarks/bench_sorting.py``).

Most nodes of a grown tree hold a few dozen samples, where every scan sorts a
few dozen values: up to ``INSERTION_MAX`` values a stable insertion sort (on a
copy of the keys, no indirection) is used instead, and even on values in
reverse order (its worst case, ``n (n - 1) / 2`` moves) it stays within about
the quicksort's time there. Measured on an Intel Xeon (one thread, random
normal values), per sort (the radix column is the float32 sort):

=========  ===============  ==============  ===========
values     ``np.argsort``   insertion sort  radix sort
=========  ===============  ==============  ===========
30         1.2 µs           0.5 µs
64         2.7 µs           1.4 µs          1.5 µs
128        6.0 µs           4.2 µs          1.8 µs
255        13.3 µs          13.9 µs         2.8 µs
=========  ===============  ==============  ===========
"""

import numpy as np
from numba import njit

from .._config import NUMBA_OPTS

#: up to this many values the insertion sort is used, above it the radix sort
INSERTION_MAX = 64
#: the radix sort's keys: 16 bits, two passes of 8
KEY_BUCKETS = 1 << 16


@njit(**NUMBA_OPTS)
def insertion_argsort(values):
    """Stable permutation sorting ``values`` ascending, by insertion (few values only)."""
    n = values.shape[0]
    order = np.empty(n, dtype=np.int64)
    keys = np.empty(n, dtype=np.float64)
    for i in range(n):
        x = values[i]
        j = i
        while j > 0 and keys[j - 1] > x:
            keys[j] = keys[j - 1]
            order[j] = order[j - 1]
            j -= 1
        keys[j] = x
        order[j] = i
    return order


@njit(**NUMBA_OPTS)
def float32_radix_argsort(values):
    """Permutation sorting the float64 ``values`` ascending: LSD radix sort on their
    float32 rounding (4 passes of 8 bits, a pass skipped where every key has the same
    digit), an insertion repair on the float64 values, ``np.argsort`` past ``4 n`` moves."""
    n = values.shape[0]
    keys = np.empty(n, dtype=np.uint32)
    sign = np.uint32(1) << np.uint32(31)
    for i in range(n):
        b = np.float32(values[i]).view(np.uint32)
        # IEEE order as unsigned integers: flip all bits of negatives, the sign of positives
        keys[i] = ~b if b & sign else b | sign
    order = np.arange(n)
    tmp = np.empty(n, dtype=np.int64)
    count = np.empty(257, dtype=np.int64)
    for shift in range(0, 32, 8):
        sh = np.uint32(shift)
        count[:] = 0
        for i in range(n):
            count[((keys[i] >> sh) & np.uint32(255)) + 1] += 1
        if count[((keys[0] >> sh) & np.uint32(255)) + 1] == n:
            continue
        for d in range(256):
            count[d + 1] += count[d]
        for p in range(n):
            i = order[p]
            d = (keys[i] >> sh) & np.uint32(255)
            tmp[count[d]] = i
            count[d] += 1
        order, tmp = tmp, order
    # exact order on the float64 values
    moves = 0
    limit = 4 * n
    for p in range(1, n):
        i = order[p]
        v = values[i]
        q = p - 1
        while q >= 0 and values[order[q]] > v:
            order[q + 1] = order[q]
            q -= 1
            moves += 1
        order[q + 1] = i
        if moves > limit:
            return np.argsort(values)
    return order


@njit(**NUMBA_OPTS)
def argsort_values(values):
    """Permutation sorting the finite float64 ``values`` ascending (see the module)."""
    n = values.shape[0]
    if n <= INSERTION_MAX:
        return insertion_argsort(values)
    lo = values[0]
    hi = values[0]
    for i in range(1, n):
        v = values[i]
        if v < lo:
            lo = v
        elif v > hi:
            hi = v
    if not hi > lo:  # all equal: any order is sorted
        return np.arange(n)
    span = hi - lo
    if not np.isfinite(span):
        return float32_radix_argsort(values)
    # the 16-bit key floor((v - lo) * scale) never decreases as v grows (each step rounds
    # monotonically), so after sorting by it only values of one key can be out of order
    scale = KEY_BUCKETS / span
    keys = np.empty(n, dtype=np.uint16)
    low_count = np.zeros(257, dtype=np.int64)
    high_count = np.zeros(257, dtype=np.int64)
    for i in range(n):
        k = min(int((values[i] - lo) * scale), KEY_BUCKETS - 1)
        keys[i] = k
        low_count[(k & 255) + 1] += 1
        high_count[(k >> 8) + 1] += 1
    for d in range(256):
        low_count[d + 1] += low_count[d]
        high_count[d + 1] += high_count[d]
    # pass 1 (low byte) carries each key's high byte along, pass 2 the float64 value, so
    # that pass 2 and the repair read their arrays in order
    by_low = np.empty(n, dtype=np.int64)
    high_of = np.empty(n, dtype=np.uint8)
    for i in range(n):
        d = keys[i] & 255
        p = low_count[d]
        by_low[p] = i
        high_of[p] = keys[i] >> 8
        low_count[d] = p + 1
    order = np.empty(n, dtype=np.int64)
    sorted_values = np.empty(n, dtype=np.float64)
    for p in range(n):
        d = high_of[p]
        q = high_count[d]
        i = by_low[p]
        order[q] = i
        sorted_values[q] = values[i]
        high_count[d] = q + 1
    # exact order on the float64 values: values that share a key (clustered values, e.g.
    # heavy tails, make many share one) are repaired by insertion, up to 2 n moves
    moves = 0
    limit = 2 * n
    for p in range(1, n):
        v = sorted_values[p]
        if sorted_values[p - 1] <= v:
            continue
        i = order[p]
        q = p - 1
        while q >= 0 and sorted_values[q] > v:
            sorted_values[q + 1] = sorted_values[q]
            order[q + 1] = order[q]
            q -= 1
            moves += 1
        sorted_values[q + 1] = v
        order[q + 1] = i
        if moves > limit:
            return float32_radix_argsort(values)
    return order
