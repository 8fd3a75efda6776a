"""One jit decorator factory, so every kernel gets the same options (numba-stats habit)."""
from __future__ import annotations

import numba as nb


def jit(*args, parallel: bool = False, **kwargs):
    """``numba.njit`` with the project's options: nopython, cached, no fastmath."""
    options = dict(cache=True, nogil=True, parallel=parallel, error_model="numpy")
    options.update(kwargs)
    if args and callable(args[0]):
        return nb.njit(**options)(args[0])
    return nb.njit(**options)
