"""A notice, once per process, that the first fit is compiling bivtree's numba kernels.

bivtree's kernels are compiled by numba on first use and cached on disk
(``cache=True``, see ``_config.NUMBA_OPTS``), so only the first fit in a fresh
environment pays for the compilation. That fit otherwise sits silent for many
seconds; :func:`notice_once` says why, on the ``"bivtree"`` logger, when numba's
cache does not yet hold the kernels. ``bivtree compile`` compiles them ahead of time.

The check reads the cache index (``*.nbi``) of :data:`PROBE_KERNEL` where numba keeps
it: under ``NUMBA_CACHE_DIR`` when set, else in the ``__pycache__`` folder beside the
kernels (or numba's per-user cache folder when that one is read-only). An index
counts only when numba would use it: written by this numba version for the kernel's
current source file.
"""

import logging
import os
import pickle

__all__ = ["PROBE_KERNEL", "cache_folder", "kernels_cached", "mark_noticed", "notice_once"]

logger = logging.getLogger("bivtree")

#: the kernel whose cache entry stands for all of them: every fit routes its samples
#: through it (the greedy growth, the initial tree of TAO and MUST's splits).
PROBE_KERNEL = "bivtree._kernels.traversal.partition_samples"

#: seconds of the first ``bivtree demo`` with an empty kernel cache, as
#: ``scripts/measure_first_run.py`` measured it on a 2-core machine, rounded to ten
#: seconds (docs/getting-started.md records that run; a test checks the two agree).
FIRST_COMPILE_SECONDS = 60

#: what the notice says.
NOTICE = (f"bivtree: compiling numba kernels on first use (about {FIRST_COMPILE_SECONDS} s "
          "on 2 cores, once per environment: they are cached on disk); 'bivtree compile' "
          "does it ahead of time")

_state = {"noticed": False}


def _probe_cache():
    """The numba cache object of :data:`PROBE_KERNEL` (None when numba caches nothing)."""
    from ._kernels.traversal import partition_samples

    cache = getattr(partition_samples, "_cache", None)
    # numba's NullCache (caching disabled) has no folder and no index
    return cache if hasattr(cache, "cache_path") else None


def cache_folder():
    """The folder where numba caches bivtree's routing kernels, or None without a cache.

    Returns
    -------
    str or None
    """
    cache = _probe_cache()
    return None if cache is None else str(cache.cache_path)


def kernels_cached():
    """Whether numba's on-disk cache already holds bivtree's kernels.

    Returns
    -------
    bool
        True when the cache index of :data:`PROBE_KERNEL` holds a compiled version
        that numba will load (same numba version, same source file), or when numba
        caches nothing at all (then there is nothing a notice could promise).
    """
    cache = _probe_cache()
    if cache is None:
        return True
    index_file = getattr(cache, "_cache_file", None)
    try:
        # numba's own reading of the index: empty when missing, stale or of another version
        return bool(index_file._load_index())
    # a private numba API, which may change (or an unreadable index): look for the files
    except (AttributeError, TypeError, ValueError, OSError, EOFError,
            pickle.UnpicklingError):
        folder = str(cache.cache_path)
        name = PROBE_KERNEL.rsplit(".", 2)[-2] + "." + PROBE_KERNEL.rsplit(".", 1)[-1]
        return os.path.isdir(folder) and any(
            f.startswith(name + "-") and f.endswith(".nbi") for f in os.listdir(folder))


def mark_noticed():
    """Say nothing from now on in this process (``bivtree compile`` reports on its own)."""
    _state["noticed"] = True


def notice_once():
    """Log :data:`NOTICE` at the first call in a process whose numba cache is empty.

    Called at the start of every fit: later calls, and calls in a process whose
    cache holds the kernels, cost one dictionary lookup. The message goes to the
    ``"bivtree"`` logger at level WARNING, which Python prints on stderr when
    logging is not configured; silence it with
    ``logging.getLogger("bivtree").setLevel(logging.ERROR)``.

    Returns
    -------
    bool
        Whether the notice was given by this call.
    """
    if _state["noticed"]:
        return False
    _state["noticed"] = True
    if kernels_cached():
        return False
    logger.warning(NOTICE)
    return True
