"""Stored models stay byte-identical: a refactoring must not change a single tree.

The cases and the way to regenerate the files (only for a change meant to alter
trees) are in ``golden_cases.py``.
"""

import pytest

from golden_cases import CASES, GOLDEN_DIR, model_text


@pytest.mark.parametrize("name", sorted(CASES))
def test_fit_gives_the_stored_model(name):
    expected = (GOLDEN_DIR / f"{name}.json").read_text()
    assert model_text(CASES[name]()) == expected, (
        f"{name}: the fitted model differs from tests/golden/{name}.json")


def test_every_stored_model_has_a_case():
    stored = {p.stem for p in GOLDEN_DIR.glob("*.json")}
    assert stored == set(CASES)
