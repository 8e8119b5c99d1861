"""Parameter checks from a table: one vocabulary of constraints, one error format.

Every estimator, splitter and protocol of bivtree declares what each of its
parameters may be in a class attribute ``_parameter_constraints`` (the shape
scikit-learn uses)::

    _parameter_constraints = {
        "max_depth": [None, Interval(Integral, 1, None, closed="left")],
        "criterion": [{"gini", "entropy"}],
    }

and :func:`check_params` raises a ``ValueError`` naming the parameter, its
value and everything allowed, e.g. ``max_depth must be None or an int in
[1, inf), got 0``. A value is valid when it satisfies at least one constraint
of its list. Constraints are written as

* ``None``: the value ``None``;
* :class:`Interval` over ``Integral`` (ints, never bools), ``Real`` (ints and
  floats, never bools or NaN) or :data:`RealNotInt` (floats only);
* a ``set`` of strings, or :class:`Options` (which may wrap a live registry);
* ``"boolean"``: ``bool`` or ``numpy.bool_``;
* ``"array-like"``: a list, tuple, array or anything with ``__array__`` (not a
  string);
* ``"cv_object"``: a cross-validation splitter or an iterable of splits;
* ``callable``: any callable;
* a class, or :class:`InstanceOf`: an instance of it.

Only the check lives here; turning a valid value into what the code uses
(a fraction into a count, ``"sqrt"`` into a number) stays with its owner.
scikit-learn has a similar private module, which changes across the versions
bivtree supports, so bivtree keeps this small one of its own.
"""

import math
import sys
from numbers import Integral, Real

import numpy as np

__all__ = ["InstanceOf", "Integral", "Interval", "Options", "Real", "RealNotInt",
           "check_limits", "check_params", "reject_unknown"]


class RealNotInt:
    """Marker type of :class:`Interval`: a real number that is not an integer (a float)."""


_KIND_NOUNS = {Integral: "an int", Real: "a number", RealNotInt: "a float"}


def _is_bool(value):
    return isinstance(value, (bool, np.bool_))


def _bound(value):
    """A bound as the message writes it: ``1``, ``0.5``, ``4294967295``."""
    return str(int(value)) if float(value).is_integer() else f"{value:g}"


class Interval:
    """Numbers of one kind between two bounds.

    Parameters
    ----------
    kind : {Integral, Real, RealNotInt}
        ``Integral``: integers, bools excluded. ``Real``: any real number,
        integers included, bools and NaN excluded. ``RealNotInt``: real
        numbers that are not integers (``2.0`` is a float and qualifies).
    low, high : float or None
        Bounds; ``None`` leaves that side unbounded, and an unbounded side
        never includes infinity (``[0, inf)`` holds only finite numbers).
    closed : {"left", "right", "both", "neither"}, default="left"
        Which finite bounds belong to the interval.
    """

    def __init__(self, kind, low, high, *, closed="left"):
        if kind not in _KIND_NOUNS:
            raise ValueError(f"kind must be Integral, Real or RealNotInt, got {kind!r}")
        if closed not in ("left", "right", "both", "neither"):
            raise ValueError(f"closed must be 'left', 'right', 'both' or 'neither', "
                             f"got {closed!r}")
        self.kind = kind
        self.low = low
        self.high = high
        self.closed = closed

    def _has_kind(self, value):
        if _is_bool(value) or not isinstance(value, Real):
            return False
        if isinstance(value, Integral):  # never NaN, and may be too large for a float
            # a real-valued parameter is used as a float: it must be one
            return self.kind is Integral or (
                self.kind is Real and abs(value) <= sys.float_info.max)
        return self.kind is not Integral and not math.isnan(value)

    def is_satisfied_by(self, value):
        if not self._has_kind(value):
            return False
        low_closed = self.closed in ("left", "both")
        high_closed = self.closed in ("right", "both")
        if self.low is None:
            above = value > -math.inf
        else:
            above = value >= self.low if low_closed else value > self.low
        if self.high is None:
            below = value < math.inf
        else:
            below = value <= self.high if high_closed else value < self.high
        return bool(above and below)

    def __str__(self):
        left = "(-inf" if self.low is None else (
            f"{'[' if self.closed in ('left', 'both') else '('}{_bound(self.low)}")
        right = "inf)" if self.high is None else (
            f"{_bound(self.high)}{']' if self.closed in ('right', 'both') else ')'}")
        return f"{_KIND_NOUNS[self.kind]} in {left}, {right}"


class Options:
    """One of a fixed set of strings.

    Parameters
    ----------
    options : container of str
        Kept as given, not copied: a registry (a dict filled by a decorator)
        stays current when entries are added after the table is written.
    """

    def __init__(self, options):
        self.options = options

    def is_satisfied_by(self, value):
        return isinstance(value, str) and value in self.options

    def choices(self):
        """The options as the message writes them, sorted: ``["'log2'", "'sqrt'"]``."""
        return [repr(name) for name in sorted(self.options)]

    def __str__(self):
        names = sorted(self.options)
        if len(names) == 1:
            return repr(names[0])
        return f"one of {names}"


class InstanceOf:
    """An instance of a class (or of one of several classes).

    Parameters
    ----------
    classes : type or tuple of types
    description : str, default=None
        How the message names it; by default "an instance of <class name>".
    """

    def __init__(self, classes, description=None):
        self.classes = classes
        if description is None:
            names = classes if isinstance(classes, tuple) else (classes,)
            description = "an instance of " + " or ".join(c.__name__ for c in names)
        self.description = description

    def is_satisfied_by(self, value):
        return isinstance(value, self.classes)

    def __str__(self):
        return self.description


class _NoneConstraint:
    def is_satisfied_by(self, value):
        return value is None

    def __str__(self):
        return "None"


class _Boolean:
    def is_satisfied_by(self, value):
        return _is_bool(value)

    def __str__(self):
        return "a bool"


class _ArrayLike:
    def is_satisfied_by(self, value):
        if isinstance(value, (str, bytes)):
            return False
        return (isinstance(value, (list, tuple, np.ndarray)) or hasattr(value, "__array__")
                or (hasattr(value, "__len__") and hasattr(value, "__getitem__")))

    def __str__(self):
        return "an array-like"


class _Callable:
    def is_satisfied_by(self, value):
        return callable(value)

    def __str__(self):
        return "a callable"


class _CVObject:
    def is_satisfied_by(self, value):
        # a splitter (KFold, PredefinedSplit...) or an iterable of (train, test) pairs
        return hasattr(value, "split") or (
            hasattr(value, "__iter__") and not isinstance(value, (str, bytes, dict)))

    def __str__(self):
        return "a cross-validation splitter or an iterable of (train, test) splits"


_NAMED = {"boolean": _Boolean(), "array-like": _ArrayLike(), "cv_object": _CVObject()}


def _make_constraint(spec):
    """The constraint object a table entry stands for."""
    if spec is None:
        return _NoneConstraint()
    if spec is callable:
        return _Callable()
    if isinstance(spec, str):
        if spec not in _NAMED:
            raise ValueError(f"unknown constraint {spec!r}; named ones are {sorted(_NAMED)}")
        return _NAMED[spec]
    if isinstance(spec, (set, frozenset)):
        return Options(spec)
    if isinstance(spec, type):
        return InstanceOf(spec)
    if hasattr(spec, "is_satisfied_by"):
        return spec
    raise ValueError(f"cannot use {spec!r} as a parameter constraint")


def _describe(constraints):
    """``"None, 'log2', 'sqrt', an int in [1, inf) or a float in (0, 1]"``."""
    if len(constraints) == 1:
        return str(constraints[0])
    # among other kinds of values, options read best spelled out one by one
    parts = []
    for c in constraints:
        parts.extend(c.choices() if isinstance(c, Options) else [str(c)])
    if len(parts) == 1:
        return parts[0]
    return ", ".join(parts[:-1]) + " or " + parts[-1]


def reject_unknown(names, valid, *, what, owner):
    """Raise ``ValueError`` if some of ``names`` are not in ``valid``.

    Parameters
    ----------
    names : iterable of str
        The names given.
    valid : iterable of str
        The names that exist.
    what : str
        What the names are, e.g. ``"parameter"`` or ``"key in splitter_options"``.
    owner : str
        Whose names they are, e.g. ``"the 'orientations' splitter"``.
    """
    valid = sorted(valid)
    unknown = sorted(set(names) - set(valid))
    if unknown:
        choices = f"valid ones are {valid}" if valid else "it takes none"
        raise ValueError(f"unknown {what} {', '.join(map(repr, unknown))} for {owner}; "
                         f"{choices}")


def check_params(owner, values, constraints):
    """Check every value against its constraints; raise ``ValueError`` on the first misfit.

    Parameters
    ----------
    owner : str
        Who takes the parameters (an estimator or splitter), named when a
        parameter is unknown.
    values : dict
        Parameter name -> value.
    constraints : dict
        Parameter name -> list of constraints (see the module docstring). A
        value is valid when one of them is satisfied. A parameter without an
        entry is unknown and raises.

    Raises
    ------
    ValueError
        ``"<name> must be <allowed>, got <repr(value)>"``, or the unknown names
        with the valid ones.
    """
    reject_unknown(values, constraints, what="parameter", owner=owner)
    for name, value in values.items():
        options = [_make_constraint(spec) for spec in constraints[name]]
        if not any(c.is_satisfied_by(value) for c in options):
            raise ValueError(f"{name} must be {_describe(options)}, got {value!r}")


def check_limits(values, limits):
    """Refuse values above the largest a parameter may size an allocation or a search to.

    Kept apart from the constraint tables, which say what a parameter may be
    at all (``n_orientations`` is an int in ``[1, inf)``): a limit says how
    much work or memory bivtree agrees to commit for it, checked before
    anything is allocated, with advice on what to do instead.

    Parameters
    ----------
    values : dict
        Parameter name -> value; names without a limit and values that are
        not numbers (left to the constraint tables) are left alone.
    limits : dict
        Parameter name -> ``(largest value, advice)``.

    Raises
    ------
    ValueError
        ``"<name>=<value> is more than <largest>, the most bivtree allows: <advice>"``.
    """
    for name, (largest, advice) in limits.items():
        value = values.get(name)
        if isinstance(value, Real) and not _is_bool(value) and value > largest:
            raise ValueError(f"{name}={value!r} is more than {largest}, the most bivtree "
                             f"allows: {advice}")
