"""The first fit in a fresh environment says it is compiling; ``bivtree compile`` warms up."""

import logging
import os
import subprocess
import sys

import pytest

from bivtree import _compile_notice
from bivtree.cli import _compile_jobs, main
from bivtree.splitters import SPLITTERS


@pytest.fixture
def fresh_process(monkeypatch):
    """The notice's once-per-process state, as in a process that has not fitted yet."""
    monkeypatch.setitem(_compile_notice._state, "noticed", False)


def test_the_notice_is_given_once_when_the_cache_is_empty(fresh_process, monkeypatch, caplog):
    monkeypatch.setattr(_compile_notice, "kernels_cached", lambda: False)
    with caplog.at_level(logging.WARNING, logger="bivtree"):
        assert _compile_notice.notice_once() is True
        assert _compile_notice.notice_once() is False
    notices = [r for r in caplog.records if r.name == "bivtree"]
    assert len(notices) == 1
    assert "compiling numba kernels" in notices[0].getMessage()
    assert "bivtree compile" in notices[0].getMessage()


def test_no_notice_when_the_kernels_are_cached(fresh_process, monkeypatch, caplog):
    monkeypatch.setattr(_compile_notice, "kernels_cached", lambda: True)
    with caplog.at_level(logging.WARNING, logger="bivtree"):
        assert _compile_notice.notice_once() is False
    assert not [r for r in caplog.records if r.name == "bivtree"]


def test_mark_noticed_silences_it(fresh_process, monkeypatch, caplog):
    monkeypatch.setattr(_compile_notice, "kernels_cached", lambda: False)
    _compile_notice.mark_noticed()
    with caplog.at_level(logging.WARNING, logger="bivtree"):
        assert _compile_notice.notice_once() is False
    assert not caplog.records


def test_the_cache_check_reads_numba_s_index(tmp_path):
    """An empty NUMBA_CACHE_DIR holds no kernels; this process's cache (warm after the
    fits of the test session) is read from numba's index files without compiling."""
    env = dict(os.environ, NUMBA_CACHE_DIR=str(tmp_path))
    code = ("from bivtree import _compile_notice as c; "
            "print(c.kernels_cached(), c.cache_folder())")
    out = subprocess.run([sys.executable, "-c", code], env=env, capture_output=True,
                         text=True, timeout=120, check=True).stdout.split()
    assert out[0] == "False"
    assert out[1].startswith(str(tmp_path))
    # importing and checking compiled nothing: no index file was written
    assert not list(tmp_path.rglob("*.nbi"))


def test_compile_fits_every_splitter_and_tao():
    labels = [label for label, _model, _task in _compile_jobs()]
    for name in SPLITTERS:
        assert f"BivariateTreeClassifier(splitter={name!r})" in labels
    assert "TAOTreeClassifier" in labels and "TAOTreeRegressor" in labels
    assert "BivariateTreeClassifier(categorical_features=[2])" in labels
    assert "BivariateTreeRegressor(splitter='lda')" not in labels  # classification only


def test_compile_command_reports_each_fit(capsys, monkeypatch):
    from bivtree import BivariateTreeClassifier

    # one quick job: the command's reporting, not numba's compile time, is tested here
    monkeypatch.setattr("bivtree.cli._compile_jobs", lambda: [
        ("BivariateTreeClassifier(splitter='univariate')",
         BivariateTreeClassifier(splitter="univariate", max_depth=2), "classification")])
    assert main(["compile"]) == 0
    out = capsys.readouterr().out
    assert out.startswith("numba cache of the kernels: ")
    assert "BivariateTreeClassifier(splitter='univariate')" in out
    assert "compiled and cached in" in out


def test_the_notice_s_time_is_the_recorded_measurement():
    """The notice's figure is the first compile ``scripts/measure_first_run.py`` recorded
    in docs/getting-started.md, rounded to ten seconds."""
    import pathlib
    import re

    from bivtree._compile_notice import FIRST_COMPILE_SECONDS, NOTICE

    page = pathlib.Path(__file__).parents[1] / "docs" / "getting-started.md"
    measured = float(re.search(r"bivtree demo, empty numba cache \(first compile\): ([0-9.]+) s",
                               page.read_text(encoding="utf-8")).group(1))
    assert FIRST_COMPILE_SECONDS == 10 * round(measured / 10)
    assert f"about {FIRST_COMPILE_SECONDS} s" in NOTICE
