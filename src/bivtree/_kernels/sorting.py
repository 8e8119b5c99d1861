"""A faster exact argsort for the scans: radix sort on 16-bit keys, then a float64 repair.

Every split search sorts a projection of a node's samples and scans the cuts;
the sort dominates (numba's quicksort costs about 60 µs for 3700 values, and
grows faster than n log n on larger arrays). :func:`argsort_values` maps each
value to the 16-bit key ``floor((v - min) * 2^16 / (max - min))``, which never
decreases as the value grows, sorts the keys with a 2-pass least-significant-digit
radix sort (8-bit digits), and repairs the order exactly with an insertion sort
on the float64 values: only values sharing a key can be out of order, so the
repair is linear in practice. Where distinct values crowd a few keys (heavy
tails: one far value stretches the range), a probe of 32 evenly spaced values
sends the sort, before its passes, to :func:`float32_radix_argsort`, as do a
``max - min`` that overflows and a repair past ``2 n`` moves: the same on the
values rounded to float32 (4 passes, a pass whose digit is the same for every
key skipped), whose repair gives up after ``4 n`` moves for ``np.argsort``.
The result is a permutation sorting ``values`` ascending, like
``np.argsort``; equal values may come in another order, which no scan depends
on (cuts fall only between distinct values).

The 16-bit keys halve the float32 sort's passes, and its passes carry what the
next step reads (the high byte, then the value), so that the second pass and
the repair read their arrays in order: on one AMD EPYC core, 1.4 to 2 times
faster than the float32 sort from 300 to 9,500 values of normal or skewed
projections, and 1.1 to 1.2 times slower on heavy-tailed ratios, which the probe
sends to the float32 sort (``benchmarks/bench_sorting.py``).

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
#: the 16-bit sort's repair gives up past this many moves per value
REPAIR_MOVES = 2
#: values probed for crowding before the 16-bit sort (see argsort_values)
CROWD_PROBES = 32


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
def value_range(values):
    """``(min, max)`` of the non-empty ``values``."""
    lo = values[0]
    hi = values[0]
    for i in range(1, values.shape[0]):
        v = values[i]
        if v < lo:
            lo = v
        elif v > hi:
            hi = v
    return lo, hi


@njit(**NUMBA_OPTS)
def key_of(v, lo, scale):
    """The 16-bit key of ``v``: ``floor((v - lo) * scale)``, capped. It never decreases as
    ``v`` grows (each step rounds monotonically), so after sorting by it only values of
    one key can be out of order."""
    return min(int((v - lo) * scale), KEY_BUCKETS - 1)


@njit(**NUMBA_OPTS)
def keys_crowded(values, lo, scale):
    """Whether distinct values crowd a few 16-bit keys (heavy tails: far values stretch
    the range), which would cost the repair more than the float32 sort: a quarter of
    ``CROWD_PROBES`` evenly spaced values share one high byte (1/256 of the range) and
    differ from the first of them there (equal values need no repair)."""
    probed = np.zeros(256, dtype=np.int64)
    first_probe = np.empty(256, dtype=np.float64)
    step = values.shape[0] // CROWD_PROBES
    for s in range(CROWD_PROBES):
        v = values[s * step]
        h = key_of(v, lo, scale) >> 8
        if probed[h] == 0:
            first_probe[h] = v
        elif v != first_probe[h]:
            if 4 * probed[h] >= CROWD_PROBES:
                return True
        else:
            continue
        probed[h] += 1
    return False


@njit(**NUMBA_OPTS)
def sorted_by_keys(values, lo, scale):
    """``(order, sorted values)`` by the 16-bit keys: a 2-pass LSD radix sort. Pass 1
    (low byte) carries each key's high byte along, pass 2 the float64 value, so that
    pass 2 and the repair read their arrays in order."""
    n = values.shape[0]
    keys = np.empty(n, dtype=np.uint16)
    low_count = np.zeros(257, dtype=np.int64)
    high_count = np.zeros(257, dtype=np.int64)
    for i in range(n):
        k = key_of(values[i], lo, scale)
        keys[i] = k
        low_count[(k & 255) + 1] += 1
        high_count[(k >> 8) + 1] += 1
    for d in range(256):
        low_count[d + 1] += low_count[d]
        high_count[d + 1] += high_count[d]
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
    return order, sorted_values


@njit(**NUMBA_OPTS)
def repaired(order, sorted_values, limit):
    """Insertion-sort ``sorted_values`` exactly, moving ``order`` alike, in place;
    False (left part-way) past ``limit`` moves."""
    moves = 0
    for p in range(1, sorted_values.shape[0]):
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
            return False
    return True


@njit(**NUMBA_OPTS)
def argsort_values(values):
    """Permutation sorting the finite float64 ``values`` ascending (see the module)."""
    n = values.shape[0]
    if n <= INSERTION_MAX:
        return insertion_argsort(values)
    lo, hi = value_range(values)
    if not hi > lo:  # all equal: any order is sorted
        return np.arange(n)
    span = hi - lo
    if not np.isfinite(span):
        return float32_radix_argsort(values)
    scale = KEY_BUCKETS / span
    if keys_crowded(values, lo, scale):
        return float32_radix_argsort(values)
    order, sorted_values = sorted_by_keys(values, lo, scale)
    if not repaired(order, sorted_values, REPAIR_MOVES * n):
        return float32_radix_argsort(values)
    return order
