"""Test configuration: a deterministic hypothesis profile for continuous integration.

Locally hypothesis draws new examples on every run, which is how it finds new
bugs; under ``CI=true`` the examples are derived from each test's name, so a
run that passed once passes again on the same code.

``tests/test_fuzz.py`` takes its settings from one of two more profiles:
``fuzz-short`` (default, and in CI) and ``fuzz-long`` (``BIVTREE_FUZZ=long``, by
hand). Both inherit the profile loaded above, so CI's derandomisation holds.
"""

import os

from hypothesis import HealthCheck, settings

settings.register_profile("ci", derandomize=True, print_blob=True)
if os.environ.get("CI", "").lower() in ("1", "true", "yes"):
    settings.load_profile("ci")

# every fit compiles (first time) and runs numba kernels: no deadline, no slowness checks
_FUZZ_HEALTH = [HealthCheck.too_slow, HealthCheck.data_too_large, HealthCheck.filter_too_much]
settings.register_profile("fuzz-short", parent=settings.default, max_examples=300,
                          deadline=None, suppress_health_check=_FUZZ_HEALTH)
settings.register_profile("fuzz-long", parent=settings.default, max_examples=5000,
                          deadline=None, suppress_health_check=_FUZZ_HEALTH)
