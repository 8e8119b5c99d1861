"""Evaluating node tests: the one definition of "goes left".

A sample goes left at a node iff ``sum_k weights[k] * x[features[k]] <= threshold``
(slots with feature ``-1`` are unused). Growth, prediction and every splitter's
final check call :func:`project_row`, so the value a split was chosen on and the
value the stored rule computes are the same floating-point number: the rule
routes each training sample exactly as the search decided.
"""

import numpy as np
from numba import njit, prange

from .._config import NUMBA_OPTS


@njit(inline="always", **NUMBA_OPTS)
def project_row(X, i, features, weights):
    """``sum_k weights[k] * X[i, features[k]]`` over the used slots, in slot order."""
    s = 0.0
    for k in range(features.shape[0]):
        f = features[k]
        if f < 0:
            break
        s += weights[k] * X[i, f]
    return s


@njit(**NUMBA_OPTS)
def project_samples(X, samples, features, weights, out):
    """Write the projection of each sample in ``samples`` to ``out``."""
    for p in range(samples.shape[0]):
        out[p] = project_row(X, samples[p], features, weights)


@njit(**NUMBA_OPTS)
def partition_samples(X, samples, start, end, features, weights, threshold):
    """Reorder ``samples[start:end]`` in place: left-going first; return the split point.

    The order within each side is kept (a stable partition), so a build is
    reproducible whatever the splitter did before.
    """
    n = end - start
    buf = np.empty(n, dtype=samples.dtype)
    n_left = 0
    for p in range(start, end):
        i = samples[p]
        if project_row(X, i, features, weights) <= threshold:
            samples[start + n_left] = i
            n_left += 1
        else:
            buf[p - start - n_left] = i
    for q in range(n - n_left):
        samples[start + n_left + q] = buf[q]
    return start + n_left


@njit(parallel=True, **NUMBA_OPTS)
def apply_rows(X, children_left, children_right, features, weights, threshold, out):
    """Leaf id reached by every row of ``X``."""
    for i in prange(X.shape[0]):
        node = 0
        while children_left[node] != -1:
            if project_row(X, i, features[node], weights[node]) <= threshold[node]:
                node = children_left[node]
            else:
                node = children_right[node]
        out[i] = node


@njit(**NUMBA_OPTS)
def decision_path_rows(X, children_left, children_right, features, weights, threshold,
                       max_len):
    """CSR pieces (indptr, indices) of the nodes each row of ``X`` visits."""
    n = X.shape[0]
    indptr = np.zeros(n + 1, dtype=np.int64)
    indices = np.empty(n * max_len, dtype=np.int64)
    pos = 0
    for i in range(n):
        node = 0
        indices[pos] = 0
        pos += 1
        while children_left[node] != -1:
            if project_row(X, i, features[node], weights[node]) <= threshold[node]:
                node = children_left[node]
            else:
                node = children_right[node]
            indices[pos] = node
            pos += 1
        indptr[i + 1] = pos
    return indptr, indices[:pos]
