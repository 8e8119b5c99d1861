"""Stored models stay byte-identical: a refactoring must not change a single tree.

The cases and the way to regenerate the files (only for a change meant to alter
trees) are in ``golden_cases.py``.
"""

import re

import pytest

from golden_cases import CASES, GOLDEN_DIR, model_text

#: the line of a stored model naming the bivtree release that wrote it
_VERSION_LINE = re.compile(r'^ "bivtree_version": "[^"]*",\n', flags=re.MULTILINE)


def without_version(text):
    """The model text without its ``bivtree_version`` line: a new release number
    changes no tree, so it must not fail the comparison."""
    return _VERSION_LINE.sub("", text, count=1)


@pytest.mark.parametrize("name", sorted(CASES))
def test_fit_gives_the_stored_model(name):
    expected = (GOLDEN_DIR / f"{name}.json").read_text()
    assert without_version(model_text(CASES[name]())) == without_version(expected), (
        f"{name}: the fitted model differs from tests/golden/{name}.json")


def test_the_version_line_is_the_only_one_left_out():
    text = (GOLDEN_DIR / "clf_univariate.json").read_text()
    assert '"bivtree_version"' in text
    stripped = without_version(text)
    assert '"bivtree_version"' not in stripped
    assert len(stripped.splitlines()) == len(text.splitlines()) - 1


def test_every_stored_model_has_a_case():
    stored = {p.stem for p in GOLDEN_DIR.glob("*.json")}
    assert stored == set(CASES)
