"""The version of this bivtree, written into saved models and printed by ``bivtree --version``."""

__version__ = "0.2.0"
