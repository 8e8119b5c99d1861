"""Shared constants: dtypes, sentinels and numba flags.

Numba kernels import nothing from the package but this module, so every kernel
compiles once per dtype signature and the estimator layer can hand them
contiguous arrays of exactly these types.
"""

import numpy as np

#: dtype of feature values, thresholds, weights and statistics.
DTYPE = np.float64
#: dtype of sample indices, feature indices and node ids.
ITYPE = np.int64
#: dtype of encoded class labels.
LTYPE = np.int64

#: ``children_left`` / ``children_right`` value of a leaf.
TREE_LEAF = -1
#: unused feature slot of a node (and the feature of a leaf).
NO_FEATURE = -1
#: threshold stored at leaves.
TREE_UNDEFINED = -2.0

#: criterion codes understood by the kernels.
GINI = 0
ENTROPY = 1
MISCLASSIFICATION = 2
SQUARED_ERROR = 3

CLASSIFICATION_CRITERIA = {
    "gini": GINI,
    "entropy": ENTROPY,
    "log_loss": ENTROPY,
    "misclassification": MISCLASSIFICATION,
}
REGRESSION_CRITERIA = {"squared_error": SQUARED_ERROR}

#: impurity at or below this is "pure" (scikit-learn uses the same tolerance).
IMPURITY_EPSILON = float(np.finfo(np.float64).eps)

#: options shared by every kernel; ``cache=True`` keeps compiled code on disk.
NUMBA_OPTS = {"cache": True, "nogil": True}
