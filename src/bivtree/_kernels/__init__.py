"""Numba kernels shared by several algorithms (criteria, sorted scan, traversal)."""
