"""One jit decorator factory, so every kernel gets the same options (numba-stats habit)."""
from __future__ import annotations

import numba as nb


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
