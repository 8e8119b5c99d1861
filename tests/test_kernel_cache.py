"""numba's cached kernels are dropped when any kernel source changes, not only their own file."""

import os
import shutil
import subprocess
import sys
import textwrap

import bivtree
from bivtree import _kernel_cache

PACKAGE = os.path.dirname(bivtree.__file__)


def test_the_sources_are_the_kernel_modules_and_the_constants():
    names = {os.path.relpath(p, PACKAGE) for p in _kernel_cache.kernel_sources()}
    assert "_config.py" in names
    assert os.path.join("_kernels", "scan.py") in names
    assert os.path.join("splitters", "univariate.py") in names
    assert "estimators.py" not in names  # no kernel there: editing it keeps the cache
    assert "_kernel_cache.py" not in names


def test_a_stale_folder_loses_its_kernels_and_keeps_the_rest(tmp_path, monkeypatch):
    for name in ("scan.scan_sorted-12.py311.nbi", "scan.scan_sorted-12.py311.1.nbc",
                 "scan.cpython-311.pyc"):
        (tmp_path / name).write_text("x")
    monkeypatch.setattr(_kernel_cache, "_cache_folders", lambda sources: [str(tmp_path)])
    assert _kernel_cache.drop_stale_kernels() == [str(tmp_path)]
    assert sorted(os.listdir(tmp_path)) == sorted(["scan.cpython-311.pyc",
                                                  _kernel_cache.STAMP_NAME])
    stamp = (tmp_path / _kernel_cache.STAMP_NAME).read_text().strip()
    assert stamp == _kernel_cache.sources_digest()
    # the same sources: a kernel cached since stays
    (tmp_path / "scan.scan_sorted-12.py311.nbi").write_text("x")
    assert _kernel_cache.drop_stale_kernels() == []
    assert (tmp_path / "scan.scan_sorted-12.py311.nbi").exists()
    # another digest (a source edited): dropped again
    (tmp_path / _kernel_cache.STAMP_NAME).write_text("0" * 40)
    assert _kernel_cache.drop_stale_kernels() == [str(tmp_path)]
    assert not (tmp_path / "scan.scan_sorted-12.py311.nbi").exists()


def test_an_unwritable_folder_is_left_as_numba_has_it(tmp_path, monkeypatch):
    missing = tmp_path / "no" / "such"
    (tmp_path / "no").write_text("a file where the folder would be")
    monkeypatch.setattr(_kernel_cache, "_cache_folders", lambda sources: [str(missing)])
    assert _kernel_cache.drop_stale_kernels() == []


def test_the_cache_folders_are_numba_s(tmp_path):
    """With NUMBA_CACHE_DIR, the folders are under it: one per source folder."""
    env = dict(os.environ, NUMBA_CACHE_DIR=str(tmp_path))
    code = ("import bivtree._kernel_cache as k; "
            "print('\\n'.join(k._cache_folders(k.kernel_sources())))")
    out = subprocess.run([sys.executable, "-c", code], env=env, capture_output=True,
                         text=True, check=True).stdout.split()
    assert len(out) == 2
    assert all(folder.startswith(str(tmp_path)) for folder in out)
    # numba names a folder by the source folder's name and a hash of its path
    assert sorted(os.path.basename(f).rsplit("_", 1)[0] for f in out) == ["_kernels",
                                                                        "splitters"]


PROBE = textwrap.dedent("""
    from numba import njit

    from .._config import NUMBA_OPTS
    from .sorting import probe_value


    @njit(**NUMBA_OPTS)
    def probe():
        return probe_value()
""")


def _probe(package_root, cache):
    env = dict(os.environ, NUMBA_CACHE_DIR=str(cache), PYTHONPATH=str(package_root))
    code = ("import bivtree, bivtree._kernels.probe as p; "
            f"assert bivtree.__file__.startswith({str(package_root)!r}); print(p.probe())")
    return subprocess.run([sys.executable, "-c", code], env=env, capture_output=True,
                          text=True, check=True).stdout.strip()


def test_an_edited_callee_in_another_file_is_compiled_again(tmp_path):
    """The hazard itself, on a copy of the package: ``probe`` (one file) calls
    ``probe_value`` (another); after ``probe_value`` changes, ``probe`` answers
    with the new code. numba alone would load ``probe`` compiled with the old
    ``probe_value``, since ``probe``'s own file did not change."""
    root = tmp_path / "src"
    shutil.copytree(PACKAGE, root / "bivtree",
                    ignore=shutil.ignore_patterns("__pycache__", "*.nbi", "*.nbc"))
    kernels = root / "bivtree" / "_kernels"
    (kernels / "probe.py").write_text(PROBE)
    sorting = kernels / "sorting.py"
    original = sorting.read_text()
    sorting.write_text(original + "\n\n@njit(**NUMBA_OPTS)\ndef probe_value():\n    return 1\n")
    cache = tmp_path / "cache"
    assert _probe(root, cache) == "1"
    assert _probe(root, cache) == "1"  # loaded from the cache
    sorting.write_text(original + "\n\n@njit(**NUMBA_OPTS)\ndef probe_value():\n    return 2\n")
    assert _probe(root, cache) == "2"
