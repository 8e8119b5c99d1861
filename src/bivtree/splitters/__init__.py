"""Split searches, one file each, behind one registry.

``get_splitter(name, **options)`` returns an object whose
``find_split(data, samples, features)`` gives the best :class:`Split` of a node.
Registered names: ``"auto"`` (the default), ``"univariate"``, ``"orientations"``, ``"diagonal"`` (BIT2),
``"hillclimb"`` (BIT1), ``"lda"`` (MUST), ``"optimal"`` (BiDT's branch and bound and
the exact rotational sweep).
"""

# importing a splitter module registers it
from . import (  # noqa: F401
    auto,  # the default: exhaustive on small nodes, coarse-to-fine on large ones
    diagonal,  # BIT2
    hillclimb,  # BIT1
    lda,  # MUST
    optimal,  # BiDT branch and bound, rotational sweep
    orientations,
    univariate,
)
from ._base import SPLITTERS, Split, SplitData, Splitter, get_splitter, register

__all__ = ["SPLITTERS", "Split", "SplitData", "Splitter", "get_splitter", "register"]
