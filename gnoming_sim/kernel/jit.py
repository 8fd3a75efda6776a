"""One jit decorator factory, so every kernel gets the same options (numba-stats habit).

Caching: :mod:`gnoming_sim.kernel.disk_cache` says where our kernels are cached (a folder keyed by a
hash of every kernel source, ``$NUMBA_CACHE_DIR/<hash>`` or ``~/.cache/gnoming-sim/<hash>``) and
caches each of them in a cache that heals itself: an unreadable entry is set aside and recompiled, a
folder that cannot be written is read but not written, each said in one line, never a traceback.
"""
from __future__ import annotations

import os

import numba as nb
from numba.core import caching as _caching
from numba.core.registry import CPUDispatcher

from gnoming_sim.kernel import disk_cache
from gnoming_sim.kernel.disk_cache import ProjectCacheLocator as _ProjectCacheLocator  # noqa: F401 (tests)
from gnoming_sim.kernel.disk_cache import cache_root, source_stamp  # noqa: F401 (re-exported)


def jit(*args, nrt: bool = False, py: bool = False, **kwargs):
    """``numba.njit`` with the project's options: nopython, cached, no fastmath, serial (no kernel is
    ``parallel=True``: the batch kernels run on a pool of Python threads, :func:`.game_loop.run_blocks`).

    Kernels run without numba's reference-counting runtime (``nrt=False``) unless they
    allocate: with it, every array passed to a helper costs an atomic incref/decref pair,
    which profiling showed to be ~75% of the turn loop.  Only the entry points that
    allocate workspaces (``nrt=True``) keep it; everything below them borrows.

    ``_nrt`` is a private numba option (not in its documented API): relying on it is why
    pyproject.toml pins numba to 0.68.x.  A numba upgrade must re-check that it still
    exists and still drops the refcounting (``make bench`` shows it: without it the turn
    loop is about 3x slower).

    Wrappers.  No kernel gets numba's C-callable wrapper (``no_cfunc_wrapper``): it serves a jitted
    function passed as a first-class function value, which no kernel is (each names its decision
    function as a global); compiling it was about 7% of a cold compile.  Only the kernels that Python
    calls (``py=True``: the entry points) get numba's CPython wrapper; the others are compiled for
    jitted callers alone (:class:`KernelDispatcher`), which saved another 14% of a cold compile (the
    wrapper of a function taking the table record unboxes its ~20 arrays).  Python may still call
    one of those: it is then compiled again with a wrapper (cached apart: correct, and only the first call slower).
    """
    options = dict(cache=True, nogil=True, error_model="numpy", _nrt=nrt, no_cfunc_wrapper=True)
    options.update(kwargs)

    def decorate(func):
        if nb.config.DISABLE_JIT:
            return nb.njit(**options)(func)
        if py:
            d = nb.njit(**dict(options, cache=False))(func)
            if options["cache"]:
                disk_cache.enable(d)
            return d
        target = {k: v for k, v in options.items() if k != "cache"}
        d = KernelDispatcher(py_func=func, locals={}, targetoptions=dict(target, nopython=True, no_cpython_wrapper=True))
        if options["cache"]:
            disk_cache.enable(d)
        return d

    return decorate(args[0]) if args and callable(args[0]) else decorate


class KernelDispatcher(CPUDispatcher):
    """A kernel compiled for jitted callers only (numba's ``no_cpython_wrapper``: no CPython wrapper).

    Its compiled versions never enter the dispatcher's C call table (whose entry would be the missing
    wrapper: a Python call would crash), so a Python call always reaches :meth:`_compile_for_args`,
    which answers with a twin compiled with a wrapper, cached in a folder of its own (the cache's index
    does not key on the wrapper option, so the two must not share one).  ``GNOMING_LOG_PY_CALLS=<file>``
    lists such calls, one name a line: an entry point that appears there should be ``jit(py=True)``
    (tests call some helpers directly: they get the twins)."""

    def add_overload(self, cres):
        self.overloads[tuple(cres.signature.args)] = cres

    def _compile_for_args(self, *args, **kws):
        twin = self.__dict__.get("_py_twin")
        if twin is None:
            log = os.environ.get("GNOMING_LOG_PY_CALLS")
            if log:
                with open(log, "a", encoding="utf-8") as f:
                    f.write(f"{self.py_func.__module__}.{self.py_func.__qualname__}\n")
            opts = {k: v for k, v in self.targetoptions.items() if k != "no_cpython_wrapper"}
            twin = self._py_twin = CPUDispatcher(py_func=self.py_func, locals=self.locals, targetoptions=opts)
            if not isinstance(self._cache, _caching.NullCache):
                disk_cache.enable(twin, twins=True)
        return twin


# Compile time.  numba's IR inliner (``inline="always"``, untyped) builds a fresh IR of the callee for every
# call site (``InlineWorker.inline_function`` -> ``run_untyped_passes``) and then deep-copies it twice in
# ``inline_ir``: once because "it gets mutated" and once to return an unmutated copy, which the only caller of
# ``inline_function`` (the ``InlineInlinables`` pass) discards.  For a fresh IR neither copy is needed, and
# the copies were about a third of a cold compile (``copy.deepcopy`` of nested inlined IR, cProfile of the
# greedy game loop).  So ``inline_function`` runs ``inline_ir`` with the module's ``copy.deepcopy`` made the
# identity (``copy_ir`` is its only use in that module); ``inline_ir`` called from anywhere else (the typed
# overload inliner, with IR that numba caches) still copies.  Private numba API (0.68.x, pinned): the test
# ``tests/kernel/test_jit.py`` checks that the hook is in place and that an inlined kernel still computes
# what its Python source does; the golden fingerprints check the game loops.
import copy as _copy
import threading as _threading

from numba.core import inline_closurecall as _inline


class _CopyUnlessFresh:
    """Stands in for the ``copy`` module inside ``numba.core.inline_closurecall``."""

    def __init__(self):
        self.fresh = _threading.local()

    def deepcopy(self, x, memo=None):
        if getattr(self.fresh, "on", False):
            return x
        return _copy.deepcopy(x, memo)

    def __getattr__(self, name):
        return getattr(_copy, name)


def _inline_fresh(self, caller_ir, block, i, function, arg_typs=None):
    """``InlineWorker.inline_function`` without copying the callee's IR, which it has just built."""
    callee_ir = self.run_untyped_passes(function)
    freevars = function.__code__.co_freevars
    _inline_copy.fresh.on = True
    try:
        return self.inline_ir(caller_ir, block, i, callee_ir, freevars, arg_typs=arg_typs)
    finally:
        _inline_copy.fresh.on = False


# installed at every import (idempotent: the stand-in copies through the real ``copy`` module, never through an
# earlier stand-in, so a second copy of this package, as bench/ab.py imports, only takes the hook over)
_inline_copy = _CopyUnlessFresh()
_inline.copy = _inline_copy
_inline.InlineWorker.inline_function = _inline_fresh
