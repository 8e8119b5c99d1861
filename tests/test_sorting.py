"""The scans' argsort: insertion sort on few values, radix on 16-bit (or float32) keys with an exact float64 repair."""

import numpy as np
from hypothesis import given, settings
from hypothesis import strategies as st

from bivtree._kernels.sorting import (
    INSERTION_MAX,
    argsort_values,
    float32_radix_argsort,
    insertion_argsort,
)


@settings(max_examples=60, deadline=None)
@given(n=st.integers(1, 800), seed=st.integers(0, 10_000),
       kind=st.sampled_from(["normal", "ties", "offset", "tiny", "signed_zeros", "huge",
                             "overflow", "outlier"]),
       sort=st.sampled_from(["default", "float32"]))
def test_argsort_values_sorts_exactly(n, seed, kind, sort):
    # argsort_values, and the float32 sort it falls back to, on its own
    rng = np.random.default_rng(seed)
    values = {
        "normal": lambda: rng.normal(size=n),
        "ties": lambda: rng.integers(0, 4, size=n).astype(float),
        # distinct in float64, equal in float32: the repair (or the fallback) must order them
        "offset": lambda: 1.6e9 + rng.normal(size=n) * 1e-3,
        "tiny": lambda: rng.normal(size=n) * 1e-300,
        "signed_zeros": lambda: np.where(rng.random(n) < 0.5, -0.0, 0.0) + (
            rng.random(n) < 0.3) * rng.normal(size=n),
        "huge": lambda: rng.normal(size=n) * 1e300,
        # max - min overflows: the float32 sort from the start
        "overflow": lambda: np.where(rng.random(n) < 0.5, -1.7e308, 1.7e308) * rng.random(n),
        # one far value puts the others on a few 16-bit keys: the repair gives up for the
        # float32 sort
        "outlier": lambda: np.append(rng.normal(size=n - 1), 1e12)[rng.permutation(n)],
    }[kind]()
    order = (float32_radix_argsort if sort == "float32" else argsort_values)(values)
    np.testing.assert_array_equal(np.sort(order), np.arange(n))
    assert np.all(np.diff(values[order]) >= 0)


@settings(max_examples=40, deadline=None)
@given(n=st.integers(1, INSERTION_MAX), seed=st.integers(0, 10_000),
       kind=st.sampled_from(["normal", "ties", "reversed", "sorted"]))
def test_insertion_argsort_is_the_stable_argsort(n, seed, kind):
    # the small arrays' sort (every scan of a small node): equal values keep their order
    rng = np.random.default_rng(seed)
    values = {
        "normal": lambda: rng.normal(size=n),
        "ties": lambda: rng.integers(0, 3, size=n).astype(float),
        "reversed": lambda: np.arange(n, 0, -1, dtype=float),
        "sorted": lambda: np.arange(n, dtype=float),
    }[kind]()
    stable = np.argsort(values, kind="stable")
    np.testing.assert_array_equal(insertion_argsort(values), stable)
    np.testing.assert_array_equal(argsort_values(values), stable)
