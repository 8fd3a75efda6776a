"""One jit decorator factory, so every kernel gets the same options (numba-stats habit)."""
from __future__ import annotations

import hashlib
import os
from pathlib import Path

import numba as nb
from numba.core import config as _numba_config


_KERNEL_MODULES = ("_jit", "_rng", "_scoring", "_observe", "_estimate", "_heuristic", "_strategy",
                   "_table", "_turn", "_kernel", "cards", "rules", "fields", "trace")


def _source_stamp() -> str:
    """Hash of every module the kernels are compiled from.

    numba's cache checks only the timestamp of the file that holds a function, not of the
    functions it calls, so an edit to a helper module could leave a stale caller in the
    cache.  Keying the cache directory by the hash of all kernel sources rules that out.
    """
    here = Path(__file__).parent
    h = hashlib.sha256()
    for path in sorted(here / f"{name}.py" for name in _KERNEL_MODULES):
        h.update(path.name.encode())
        h.update(path.read_bytes())
    return h.hexdigest()[:16]


def _cache_dir() -> str:
    base = os.environ.get("NUMBA_CACHE_DIR") or os.path.join(
        os.environ.get("XDG_CACHE_HOME") or os.path.join(Path.home(), ".cache"), "gnoming-sim")
    return os.path.join(base, _source_stamp())


_numba_config.CACHE_DIR = _cache_dir()


def jit(*args, parallel: bool = False, nrt: bool = False, **kwargs):
    """``numba.njit`` with the project's options: nopython, cached, no fastmath.

    Kernels run without numba's reference-counting runtime (``nrt=False``) unless they
    allocate: with it, every array passed to a helper costs an atomic incref/decref pair,
    which profiling showed to be ~75% of the turn loop.  Only the entry points that
    allocate workspaces (``nrt=True``) keep it; everything below them borrows.
    """
    options = dict(cache=True, nogil=True, parallel=parallel, error_model="numpy", _nrt=nrt)
    options.update(kwargs)
    if args and callable(args[0]):
        return nb.njit(**options)(args[0])
    return nb.njit(**options)
