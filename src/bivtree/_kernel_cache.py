"""Drop numba's cached kernels when any kernel source changed, not only their own file.

Numba keeps a compiled kernel on disk with the modification time and size of the
file that defines it, and loads it again while that file is unchanged. A kernel
that calls kernels of other files, or reads constants of ``_config``, has their
code compiled into its own: when one of those changes and its own file does not,
numba loads the old code, and the search silently computes with the old
callee (wrong answers, not an error). This module keeps a digest of every file
that defines kernels (and of ``_config``) beside each cache folder; at import
(before any kernel is called) a different digest removes that folder's cached
kernels (``*.nbi``, ``*.nbc``), so numba compiles them afresh. A fresh install
has new files throughout and is not affected; an edited source tree (a
development checkout) is.

Every failure to read, write or remove is ignored: the worst case is numba's own
behaviour.
"""

import hashlib
import os
import re
import sys

__all__ = ["STAMP_NAME", "drop_stale_kernels", "kernel_sources", "sources_digest"]

#: the file beside the cached kernels that holds the digest they were compiled from
STAMP_NAME = "bivtree-kernel-sources.sha1"

_PACKAGE = os.path.dirname(os.path.abspath(__file__))

#: a line that defines compiled code: a kernel, or an implementation numba inlines into one
_KERNEL_DECORATOR = re.compile(
    r"^\s*@(numba\.)?(njit|jit|overload|overload_method|register_jitable|intrinsic)\b",
    re.MULTILINE)


def _read_kernel_sources():
    """``(path, contents)`` of the package's files whose code or constants numba
    compiles into the kernels, sorted by path: ``_config.py`` and every module
    that defines a kernel. Each file is read once."""
    found = {}
    for folder, _, files in os.walk(_PACKAGE):
        for name in files:
            if not name.endswith(".py"):
                continue
            path = os.path.join(folder, name)
            try:
                with open(path, "rb") as fh:
                    contents = fh.read()
            except OSError:
                continue
            is_config = path == os.path.join(_PACKAGE, "_config.py")
            if is_config or _KERNEL_DECORATOR.search(contents.decode("utf-8", "replace")):
                found[path] = contents
    return sorted(found.items())


def kernel_sources():
    """The package's files whose code or constants numba compiles into the kernels.

    Returns
    -------
    list of str
        Paths, sorted: ``_config.py`` and every module that defines a kernel.
    """
    return [path for path, _ in _read_kernel_sources()]


def sources_digest(sources=None):
    """SHA-1 of the kernel sources' names and contents.

    Parameters
    ----------
    sources : list of (str, bytes), optional
        The files and their contents (default: read them).

    Returns
    -------
    str
    """
    digest = hashlib.sha1()
    for path, contents in _read_kernel_sources() if sources is None else sources:
        digest.update(os.path.relpath(path, _PACKAGE).encode())
        digest.update(contents)
    return digest.hexdigest()


def _cache_folders(sources):
    """The folders where numba caches the kernels of the imported modules among ``sources``.

    A kernel is recognised by what numba's dispatchers carry (``py_func`` and a
    ``_cache`` with a ``cache_path``) rather than by class, which numba's
    versions name differently; a kernel imported from another module is not
    counted for this one.
    """
    sources = {os.path.normcase(os.path.abspath(path)) for path in sources}
    modules = [module for name, module in list(sys.modules.items())
               if name.startswith(__package__ + ".") and getattr(module, "__file__", None)
               and os.path.normcase(os.path.abspath(module.__file__)) in sources]
    folders = set()
    for module in modules:
        for value in list(vars(module).values()):
            py_func = getattr(value, "py_func", None)
            path = getattr(getattr(value, "_cache", None), "cache_path", None)
            if path is not None and getattr(py_func, "__module__", None) == module.__name__:
                folders.add(str(path))
                break
    return sorted(folders)


def drop_stale_kernels():
    """Remove the cached kernels compiled from other sources than the current ones.

    Called once by the package's ``__init__``, after its modules are imported and
    before any kernel runs (numba reads a cached kernel at its first call). Each
    cache folder of the imported kernel modules is checked against its stamp.

    Returns
    -------
    list of str
        The cache folders whose kernels were removed.
    """
    try:
        sources = _read_kernel_sources()
        digest = sources_digest(sources)
        folders = _cache_folders([path for path, _ in sources])
    except Exception:  # noqa: BLE001 -- a guard: never the reason an import fails
        return []
    dropped = []
    for folder in folders:
        stamp = os.path.join(folder, STAMP_NAME)
        try:
            with open(stamp) as fh:
                if fh.read().strip() == digest:
                    continue
        except OSError:
            pass
        try:
            names = os.listdir(folder)
        except OSError:
            names = []
        removed = False
        for name in names:
            if name.endswith((".nbi", ".nbc")):
                try:
                    os.remove(os.path.join(folder, name))
                    removed = True
                except OSError:
                    pass
        try:
            os.makedirs(folder, exist_ok=True)
            with open(stamp, "w") as fh:
                fh.write(digest + "\n")
        except OSError:
            pass
        if removed:
            dropped.append(folder)
    return dropped
