"""A faster exact argsort for the scans: radix sort on float32 keys, then a float64 fix-up.

Every split search sorts a projection of a node's samples and scans the cuts;
the sort dominates (numba's quicksort costs about 60 µs for 3700 values, and
grows faster than n log n on larger arrays). :func:`argsort_values` sorts the
values rounded to float32 with a 4-pass least-significant-digit radix sort
(8-bit digits; a pass whose digit is the same for every key is skipped), which
puts every value within one float32 rounding of its place, then repairs the
order exactly with an insertion sort on the float64 values. The repair moves
only values that float32 could not tell apart, so it is linear in practice; if
it is not (values clustered far below float32's resolution, e.g. large
offsets with tiny differences) it gives up after ``4 n`` moves and calls
``np.argsort``. The result is a permutation sorting ``values`` ascending, like
``np.argsort``; equal values may come in another order, which no scan depends
on (cuts fall only between distinct values).
"""

import numpy as np
from numba import njit

from .._config import NUMBA_OPTS

#: below this many values numba's quicksort is as fast.
RADIX_MIN = 256


@njit(**NUMBA_OPTS)
def argsort_values(values):
    """Permutation sorting the finite float64 ``values`` ascending (see the module)."""
    n = values.shape[0]
    if n < RADIX_MIN:
        return np.argsort(values)
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
