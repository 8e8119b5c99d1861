"""What every splitter shares: the fit's data bundle, the split record, the registry.

A splitter answers one question, the best split of the samples at a node, and
returns a :class:`Split` (or ``None`` when no valid split exists). Growth then
routes the samples with the stored rule itself, so whatever a splitter decides
is applied through exactly one definition of "goes left".
"""

import functools
from dataclasses import dataclass, field
from typing import ClassVar

import numpy as np

from .._config import DTYPE, ITYPE
from .._validation import check_params
from ..constraints import NO_CONSTRAINTS, UNBOUNDED, SplitConstraints
from ..tree import slot_masks

#: name -> splitter class; filled by :func:`register`.
SPLITTERS = {}


def register(cls):
    """Class decorator adding a splitter to :data:`SPLITTERS` under ``cls.name``."""
    SPLITTERS[cls.name] = cls
    return cls


def get_splitter(name, **options):
    """Instantiate the registered splitter ``name`` with its options."""
    if not isinstance(name, str) or name not in SPLITTERS:
        raise ValueError(f"unknown splitter {name!r}; choose one of {sorted(SPLITTERS)}")
    return SPLITTERS[name](**options)


@dataclass
class SplitData:
    """Everything about a fit that a split search needs, validated once.

    Attributes
    ----------
    X : ndarray of float64, shape (n_samples, n_features), Fortran order
        Columns are contiguous, so gathering a feature over a node is cheap.
    labels : ndarray of int64, shape (n_samples,)
        Encoded classes (zeros for regression).
    targets : ndarray of float64, shape (n_samples,)
        Regression targets (zeros for classification).
    sample_weight : ndarray of float64, shape (n_samples,)
        Sample weights times class weights.
    n_classes : int
        Number of classes (1 for regression).
    criterion : int
        Criterion code from ``bivtree._config``.
    min_samples_leaf : int
    min_weight_leaf : float
    has_missing : bool
        Whether ``X`` holds a missing value (NaN) among the fitted samples.
    constraints : SplitConstraints
        The fit's monotonic and interaction constraints, by column of ``X``
        (:mod:`bivtree.constraints`); none by default.
    """

    X: np.ndarray
    labels: np.ndarray
    targets: np.ndarray
    sample_weight: np.ndarray
    n_classes: int
    criterion: int
    min_samples_leaf: int = 1
    min_weight_leaf: float = 0.0
    has_missing: bool = False
    constraints: SplitConstraints = NO_CONSTRAINTS

    @property
    def n_features(self):
        return self.X.shape[1]


@dataclass
class Split:
    """A node test ``sum_k weights[k] * x[features[k]] <= threshold``, or a category set.

    ``objective`` is the weighted child impurity ``w_L i(L) + w_R i(R)`` the
    search reached (in weight units; lower is better). ``info`` holds anything
    splitter-specific worth reporting (directions searched, gaps...).

    ``category_mask`` (uint64, one entry per slot of ``features``) holds the
    slots' category sets. A nonzero first mask with one used slot makes the test
    categorical: the one feature ``features[0]`` holds category codes, code
    ``c`` in ``[0, 63]`` goes left iff bit ``1 << c`` is set, anything else goes
    right; ``weights`` is then ``[1, 0, ...]`` and ``threshold`` an unused
    placeholder. With two used slots, a nonzero mask makes the slot read the
    indicator of its set (``_kernels/traversal.goes_left``).

    ``missing_left`` is the side the search sent the samples missing a value of
    the test (NaN in a used feature) to. Growth keeps it only when the node's
    training samples include such a sample; otherwise missing values go to the
    child with more training weight (:mod:`bivtree.growing`).
    """

    features: np.ndarray
    weights: np.ndarray
    threshold: float
    objective: float
    info: dict = field(default_factory=dict)
    category_mask: np.ndarray = None
    missing_left: bool = False

    def __post_init__(self):
        if self.category_mask is None:
            self.category_mask = slot_masks(0, self.features.shape[0])

    @property
    def n_features(self):
        return int(np.count_nonzero(self.features >= 0))


def make_split(features, weights, threshold, objective, *, category_mask=0, missing_left=False,
               **info):
    """Build a :class:`Split` with the first weight scaled to 1 by the caller.

    ``category_mask``: an int, the first slot's category set (0 for a linear
    test; with one used slot, a categorical test), or one set per slot;
    ``missing_left`` is the side of the samples missing a value of the test.
    """
    features = np.asarray(features, dtype=ITYPE)
    return Split(features, np.asarray(weights, dtype=DTYPE), float(threshold),
                 float(objective), dict(info), slot_masks(category_mask, features.shape[0]),
                 bool(missing_left))


@functools.lru_cache(maxsize=256)
def _pair_positions(m):
    """Positions ``(j, k)`` with ``j < k < m`` in lexicographic order (read-only, reused).

    Every node of a fit asks for the pairs of a few feature counts; building
    them anew (``np.triu_indices``) was a large part of a node's Python time.
    """
    j, k = np.triu_indices(m, 1)
    j.flags.writeable = False
    k.flags.writeable = False
    return j, k


def candidate_pairs(features):
    """All pairs ``(j, k)`` with ``j < k`` among the sorted ``features``, in lexicographic order."""
    features = np.asarray(features, dtype=ITYPE)
    j, k = _pair_positions(features.shape[0])
    return features[j], features[k]


#: a bivariate split must beat the best univariate one by more than this
#: fraction of the node weight; it absorbs rounding between two evaluations of
#: the same partition, never a real improvement (one sample changes G far more).
BEATS_TOLERANCE = 1e-10


class Splitter:
    """Base class: subclasses set ``name`` and implement :meth:`find_split`.

    Parameters are keyword options specific to the splitter, each with an
    entry in ``_parameter_constraints`` and checked in ``__init__``;
    :meth:`prepare` runs once per fit (global scaling, caches) and
    :meth:`find_split` once per node.
    """

    name = None
    #: largest number of features one node test may use.
    max_node_features = 1
    #: whether the search looks at feature pairs (used to warn about their number).
    searches_pairs = False
    #: whether :meth:`find_split` may run for several nodes at once (it changes no state
    #: of the splitter), so that a fit with several threads grows subtrees in parallel.
    parallel_subtrees = False
    #: the estimators it grows trees for: ``"classification"``, ``"regression"``.
    tasks = ("classification", "regression")
    #: option name -> allowed values (bivtree._validation); its keys are every
    #: option ``__init__`` takes, and so the valid keys of ``splitter_options``.
    _parameter_constraints: ClassVar[dict] = {}
    #: whether the search handles missing values (NaN in X); the estimators
    #: refuse NaN at fit for a splitter that does not.
    supports_missing = True
    #: options the estimators fill in from their own parameters of the same name
    #: (``"feature_names"``: the estimator's ``feature_names_in_``); a key of
    #: ``splitter_options`` overrides them.
    estimator_params = ()
    #: whether the search honours ``data.constraints`` (only admissible pairs, only
    #: admissible splits for the node's ``bounds``); the estimators refuse
    #: ``monotonic_cst`` and ``interaction_cst`` for a splitter that does not.
    supports_constraints = False

    def __init__(self, **options):
        check_params(f"the {self.name!r} splitter", options, self._parameter_constraints)

    def prepare(self, data):
        """Per-fit preparation; the default does nothing."""

    def pairs_searched(self, n_features):
        """Most feature pairs one node's search looks at among ``n_features`` candidates.

        All pairs by default; checked against the estimators' ``max_pairs``.
        """
        return n_features * (n_features - 1) // 2

    def find_split(self, data, samples, features, bounds=UNBOUNDED):
        """Best split of ``samples`` among ``features``, or ``None``.

        Parameters
        ----------
        data : SplitData
        samples : ndarray of int64
            Training-sample ids at the node.
        features : ndarray of int64
            Candidate features (sorted), drawn by ``max_features``.
        bounds : NodeBounds, default=UNBOUNDED
            The node's value bounds under monotonic constraints; growth passes
            them only to a splitter with ``supports_constraints``, and only for a
            fit with monotonic constraints (a splitter without constraints may
            leave the argument out).

        Returns
        -------
        Split or None
        """
        raise NotImplementedError
