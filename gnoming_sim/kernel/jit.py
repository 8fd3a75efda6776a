"""One jit decorator factory, so every kernel gets the same options (numba-stats habit).

Caching: :mod:`gnoming_sim.kernel.disk_cache` says where our kernels are cached (a folder keyed by a
hash of every kernel source, ``$NUMBA_CACHE_DIR/<hash>`` or ``~/.cache/gnoming-sim/<hash>``) and
caches each of them in a cache that heals itself: an unreadable entry is set aside and recompiled, a
folder that cannot be written is read but not written, each said in one line, never a traceback.

numba's private API (0.68.x): the ``_nrt`` option (:data:`NRT`), the wrapper options with
:class:`KernelDispatcher` (:data:`WRAPPERS`), the inliner patch (:data:`INLINER`) and the cache's internals
(:data:`.disk_cache.CACHE`) are each detected at import; one that is missing, or off by ``GNOMING_NUMBA_PUBLIC``
(:func:`.disk_cache.hook`), gives way to numba's public ``njit`` options, and one line says what that costs.
"""
from __future__ import annotations

import copy as _copy
import inspect
import os
import threading as _threading

import numba as nb
from numba.core import caching as _caching
from numba.core import cpu as _cpu
from numba.core.registry import CPUDispatcher

from gnoming_sim.kernel import disk_cache
from gnoming_sim.kernel.disk_cache import ProjectCacheLocator as _ProjectCacheLocator  # noqa: F401 (tests)
from gnoming_sim.kernel.disk_cache import cache_root, has, hook, source_stamp  # noqa: F401 (re-exported)

NRT = hook("nrt", has(_cpu, "CPUTargetOptions._nrt"),
           "every kernel keeps numba's reference counting (games run about 5x slower)")
WRAPPERS = hook("wrappers", has(_cpu, "CPUTargetOptions.no_cfunc_wrapper", "CPUTargetOptions.no_cpython_wrapper")
                and has(CPUDispatcher, "add_overload", "_compile_for_args"),
                "every kernel gets numba's C and Python wrappers (a cold compile about 10% longer)")


def jit(*args, nrt: bool = False, py: bool = False, **kwargs):
    """``numba.njit`` with the project's options: nopython, cached, no fastmath, serial (no kernel is
    ``parallel=True``: the batch kernels run on a pool of Python threads, :func:`.game_loop.run_blocks`).

    Kernels run without numba's reference-counting runtime (``nrt=False``) unless they
    allocate: with it, every array passed to a helper costs an atomic incref/decref pair,
    which profiling showed to be ~75% of the turn loop.  Only the entry points that
    allocate workspaces (``nrt=True``) keep it; everything below them borrows.

    ``_nrt`` is a private numba option (:data:`NRT`); where it is off every kernel keeps the runtime, and
    the golden fingerprints are the same (``make bench`` shows the cost: games about 5x slower).

    Wrappers.  No kernel gets numba's C-callable wrapper (``no_cfunc_wrapper``): it serves a jitted
    function passed as a first-class function value, which no kernel is (each names its decision
    function as a global); compiling it was about 7% of a cold compile.  Only the kernels that Python
    calls (``py=True``: the entry points) get numba's CPython wrapper; the others are compiled for
    jitted callers alone (:class:`KernelDispatcher`), which saved another 14% of a cold compile (the
    wrapper of a function taking the table record unboxes its ~20 arrays).  Python may still call
    one of those: it is then compiled again with a wrapper (cached apart: correct, and only the first call slower).
    Without :data:`WRAPPERS` every kernel is a plain ``njit`` one.
    """
    options = dict(cache=True, nogil=True, error_model="numpy", **(dict(_nrt=nrt) if NRT else {}))
    options.update(dict(no_cfunc_wrapper=True) if WRAPPERS else {}, **kwargs)

    def decorate(func):
        if nb.config.DISABLE_JIT:
            return nb.njit(**options)(func)
        if py or not WRAPPERS:
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
# greedy game loop).  So, for a callee of this package only (another's, a notebook's, is inlined by numba's
# own code), ``inline_function`` runs ``inline_ir`` with the module's ``copy.deepcopy`` made the identity
# (``copy_ir`` is its only use in that module); ``inline_ir`` called from anywhere else (the typed overload
# inliner, with IR that numba caches) still copies.  ``tests/kernel/test_jit.py`` checks that the hook is in
# place and that an inlined kernel still computes what its Python source does.


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


try:
    from numba.core import inline_closurecall as _inline
except ImportError:
    _inline = None
# what inlines any other function: numba's own, or the hook of an earlier copy of this package under another
# name (bench/ab.py imports two), which passes on what is not its own
_numba_inline = getattr(getattr(_inline, "InlineWorker", None), "inline_function", None)
INLINER = hook("inliner", has(_inline, "copy.deepcopy", "InlineWorker.inline_function", "InlineWorker.inline_ir",
                             "InlineWorker.run_untyped_passes")
               and list(inspect.signature(_numba_inline).parameters) == ["self", "caller_ir", "block", "i", "function",
                                                                        "arg_typs"],
               "numba copies each inlined function's IR twice (a cold compile about 30% longer)", apart=False)


def _inline_fresh(self, caller_ir, block, i, function, arg_typs=None):
    """``InlineWorker.inline_function`` without copying the callee's IR, which it has just built (for a
    callee of this package; numba's own for any other)."""
    if not disk_cache.is_ours(function):
        return _numba_inline(self, caller_ir, block, i, function, arg_typs=arg_typs)
    callee_ir = self.run_untyped_passes(function)
    freevars = function.__code__.co_freevars
    _inline_copy.fresh.on = True
    try:
        return self.inline_ir(caller_ir, block, i, callee_ir, freevars, arg_typs=arg_typs)
    finally:
        _inline_copy.fresh.on = False


# one stand-in for every copy of this package (each copies through the real ``copy`` module)
_inline_copy = _inline.copy if hasattr(getattr(_inline, "copy", None), "fresh") else _CopyUnlessFresh()
if INLINER:
    _inline.copy = _inline_copy
    _inline.InlineWorker.inline_function = _inline_fresh
