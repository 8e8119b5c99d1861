"""Stored models stay byte-identical: a refactoring must not change a single tree.

The cases and the way to regenerate the files (only for a change meant to alter
trees) are in ``golden_cases.py``.
"""

import json
import re

import pytest

from golden_cases import CASES, GOLDEN_DIR, model_text

#: the line of a stored model naming the bivtree release that wrote it
_VERSION_LINE = re.compile(r'^ "bivtree_version": "[^"]*",\n', flags=re.MULTILINE)


def without_version(text):
    """The model text without its ``bivtree_version`` line: a new release number
    changes no tree, so it must not fail the comparison."""
    return _VERSION_LINE.sub("", text, count=1)


#: cases whose directions come from a LAPACK solve (MUST's discriminant): their last bits
#: follow the BLAS / LAPACK build that numpy and scipy ship (seen: 2e-15 relative between
#: releases), so their numbers are compared to 1e-12 relative and everything else exactly
LAPACK_CASES = {"clf_lda", "clf_lda_categorical", "clf_lda_must_f_wine"}


def _same_model(got, expected, path="model"):
    """Assert two parsed models are equal, floats to 1e-12 relative (see LAPACK_CASES)."""
    if isinstance(expected, dict):
        assert isinstance(got, dict) and got.keys() == expected.keys(), path
        for key in expected:
            _same_model(got[key], expected[key], f"{path}.{key}")
    elif isinstance(expected, list):
        assert isinstance(got, list) and len(got) == len(expected), path
        for i, (a, b) in enumerate(zip(got, expected)):
            _same_model(a, b, f"{path}[{i}]")
    elif isinstance(expected, float) and not isinstance(expected, bool):
        assert isinstance(got, float) and got == pytest.approx(expected, rel=1e-12,
                                                               abs=1e-300), path
    else:
        assert type(got) is type(expected) and got == expected, path


@pytest.mark.parametrize("name", sorted(CASES))
def test_fit_gives_the_stored_model(name):
    expected = without_version((GOLDEN_DIR / f"{name}.json").read_text())
    got = without_version(model_text(CASES[name]()))
    if name in LAPACK_CASES:
        _same_model(json.loads(got), json.loads(expected))
        return
    assert got == expected, f"{name}: the fitted model differs from tests/golden/{name}.json"


def test_the_lapack_cases_are_cases():
    assert LAPACK_CASES <= set(CASES)


def test_the_version_line_is_the_only_one_left_out():
    text = (GOLDEN_DIR / "clf_univariate.json").read_text()
    assert '"bivtree_version"' in text
    stripped = without_version(text)
    assert '"bivtree_version"' not in stripped
    assert len(stripped.splitlines()) == len(text.splitlines()) - 1


def test_every_stored_model_has_a_case():
    stored = {p.stem for p in GOLDEN_DIR.glob("*.json")}
    assert stored == set(CASES)
