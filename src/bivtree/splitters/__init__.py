"""Split searches, one file each, behind one registry.

``get_splitter(name, **options)`` returns an object whose
``find_split(data, samples, features)`` gives the best :class:`Split` of a node.
Registered names: ``"univariate"``, ``"orientations"``, ``"diagonal"``; the
hill-climbing (BIT1), optimal (branch and bound) and LDA (MUST) searches plug in
the same way.
"""

from . import diagonal, orientations, univariate  # noqa: F401  (registration)
from ._base import SPLITTERS, Split, SplitData, Splitter, get_splitter, register

__all__ = ["SPLITTERS", "Split", "SplitData", "Splitter", "get_splitter", "register"]
