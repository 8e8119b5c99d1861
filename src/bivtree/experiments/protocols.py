"""Evaluation protocols: how a data set is cut into training, validation and test parts.

* :class:`CrossValidation`: (repeated) stratified k-fold cross-validation, the
  protocol of the BiDT paper (Bollwein & Westphal, section 6.1: 10 folds) and
  of Bioch et al. (10 x 10 folds);
* :class:`HoldOut`: the protocol of Kairgeldin & Carreira-Perpinan (KDD 2024,
  appendix A): 20 % of the data for testing, 10 % of the rest as a validation
  set for choosing hyperparameters, repeated 3 times.

A protocol yields :class:`Split` records; the runner fits and scores on them.
Every split depends only on ``y``, the protocol's parameters and its
``random_state``, so a grid can be resumed or run elsewhere and sees the same
folds.
"""

from dataclasses import dataclass
from typing import ClassVar

import numpy as np
from sklearn.model_selection import KFold, StratifiedKFold, train_test_split
from sklearn.utils.multiclass import type_of_target

from .._validation import Integral, Interval, Real, check_params

__all__ = ["CrossValidation", "HoldOut", "Split"]


@dataclass(frozen=True)
class Split:
    """One training / (validation) / test cut of a data set.

    Attributes
    ----------
    repeat, fold : int
        Position of the split in the protocol (``fold`` is 0 for hold-out).
    train, test : ndarray of int
        Row indices.
    validation : ndarray of int or None
        Rows held out from training for choosing hyperparameters (hold-out
        protocol only).
    """

    repeat: int
    fold: int
    train: np.ndarray
    test: np.ndarray
    validation: np.ndarray = None


def _is_classification(y):
    return type_of_target(y) in ("binary", "multiclass")


class CrossValidation:
    """(Repeated) k-fold cross-validation, stratified for classification.

    Parameters
    ----------
    n_splits : int, default=10
    n_repeats : int, default=1
        Repetition ``r`` shuffles with seed ``random_state + r``.
    random_state : int, default=0
    max_splits : int, default=None
        Evaluate only the first ``max_splits`` folds of each repetition (to cut
        the cost on large data while keeping the training-set size of the
        full protocol); ``None``: all folds.
    """

    _parameter_constraints: ClassVar[dict] = {
        "n_splits": [Interval(Integral, 2, None, closed="left")],
        "n_repeats": [Interval(Integral, 1, None, closed="left")],
        "random_state": [Interval(Integral, 0, None, closed="left")],
        "max_splits": [None, Interval(Integral, 1, None, closed="left")],
    }

    def __init__(self, n_splits=10, n_repeats=1, random_state=0, max_splits=None):
        check_params("CrossValidation",
                     {"n_splits": n_splits, "n_repeats": n_repeats,
                      "random_state": random_state, "max_splits": max_splits},
                     self._parameter_constraints)
        self.n_splits = int(n_splits)
        self.n_repeats = int(n_repeats)
        self.random_state = int(random_state)
        self.max_splits = None if max_splits is None else int(max_splits)
        if self.max_splits is not None and self.max_splits > self.n_splits:
            raise ValueError(f"max_splits ({max_splits}) exceeds n_splits ({n_splits})")

    def describe(self):
        """A short text naming the protocol and its parameters (stored with every result)."""
        reps = f"{self.n_repeats} x " if self.n_repeats > 1 else ""
        text = f"{reps}{self.n_splits}-fold CV (seed {self.random_state})"
        if self.max_splits == 1 and self.n_splits > 1:
            text = f"first fold of {text}"
        elif self.max_splits is not None and self.max_splits < self.n_splits:
            text = f"first {self.max_splits} folds of {text}"
        return text

    def __repr__(self):
        return (f"CrossValidation(n_splits={self.n_splits}, n_repeats={self.n_repeats}, "
                f"random_state={self.random_state}, max_splits={self.max_splits})")

    def split(self, X, y):
        """Yield :class:`Split` records for the rows of ``(X, y)``.

        Raises
        ------
        ValueError
            If a class has fewer members than ``n_splits`` (stratification
            would fail later, inside scikit-learn, with a less direct message).
        """
        y = np.asarray(y)
        classification = _is_classification(y)
        if classification:
            _, counts = np.unique(y, return_counts=True)
            if counts.min() < self.n_splits:
                raise ValueError(f"{self.n_splits}-fold stratified CV needs at least "
                                 f"{self.n_splits} samples per class; the smallest class "
                                 f"has {counts.min()}")
        elif y.shape[0] < self.n_splits:
            raise ValueError(f"{self.n_splits}-fold CV needs at least {self.n_splits} samples")
        for repeat in range(self.n_repeats):
            seed = self.random_state + repeat
            cv = (StratifiedKFold if classification else KFold)(
                n_splits=self.n_splits, shuffle=True, random_state=seed)
            for fold, (train, test) in enumerate(cv.split(np.zeros((y.shape[0], 1)), y)):
                if self.max_splits is not None and fold >= self.max_splits:
                    break
                yield Split(repeat, fold, train, test)


class HoldOut:
    """Repeated hold-out with a validation set (KDD 2024 protocol).

    Each repetition draws a stratified test set of ``test_size`` of the data,
    then a stratified validation set of ``validation_size`` of the rest; the
    remaining rows are the training set.

    Parameters
    ----------
    test_size : float, default=0.2
    validation_size : float, default=0.1
        Fraction of the non-test rows.
    n_repeats : int, default=3
    random_state : int, default=0
        Repetition ``r`` uses seed ``random_state + r``.
    """

    _parameter_constraints: ClassVar[dict] = {
        "test_size": [Interval(Real, 0.0, 1.0, closed="neither")],
        "validation_size": [Interval(Real, 0.0, 1.0, closed="neither")],
        "n_repeats": [Interval(Integral, 1, None, closed="left")],
        "random_state": [Interval(Integral, 0, None, closed="left")],
    }

    def __init__(self, test_size=0.2, validation_size=0.1, n_repeats=3, random_state=0):
        check_params("HoldOut",
                     {"test_size": test_size, "validation_size": validation_size,
                      "n_repeats": n_repeats, "random_state": random_state},
                     self._parameter_constraints)
        self.test_size = float(test_size)
        self.validation_size = float(validation_size)
        self.n_repeats = int(n_repeats)
        self.random_state = int(random_state)

    def describe(self):
        """A short text naming the protocol and its parameters (stored with every result)."""
        return (f"{self.n_repeats} x hold-out (test {self.test_size:g}, validation "
                f"{self.validation_size:g} of the rest, seed {self.random_state})")

    def __repr__(self):
        return (f"HoldOut(test_size={self.test_size}, validation_size={self.validation_size}, "
                f"n_repeats={self.n_repeats}, random_state={self.random_state})")

    def split(self, X, y):
        """Yield one :class:`Split` (with ``validation``) per repetition."""
        y = np.asarray(y)
        stratify = y if _is_classification(y) else None
        rows = np.arange(y.shape[0])
        for repeat in range(self.n_repeats):
            seed = self.random_state + repeat
            rest, test = train_test_split(rows, test_size=self.test_size, stratify=stratify,
                                          random_state=seed)
            train, validation = train_test_split(
                rest, test_size=self.validation_size,
                stratify=None if stratify is None else y[rest], random_state=seed)
            yield Split(repeat, 0, np.sort(train), np.sort(test), np.sort(validation))
