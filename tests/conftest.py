"""Test configuration: a deterministic hypothesis profile for continuous integration.

Locally hypothesis draws new examples on every run, which is how it finds new
bugs; under ``CI=true`` the examples are derived from each test's name, so a
run that passed once passes again on the same code.
"""

import os

from hypothesis import settings

settings.register_profile("ci", derandomize=True, print_blob=True)
if os.environ.get("CI", "").lower() in ("1", "true", "yes"):
    settings.load_profile("ci")
