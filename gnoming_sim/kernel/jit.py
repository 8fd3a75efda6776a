"""One jit decorator factory, so every kernel gets the same options (numba-stats habit).

Caching.  numba's on-disk cache checks only the source file of the function it loads,
not of the functions that it calls and inlined, so an edit to a helper module could
leave a stale caller in the cache.  Our kernels are therefore cached under a directory
keyed by a hash of *every* ``.py`` file of :mod:`gnoming_sim.kernel` and
:mod:`gnoming_sim.game`, and of each module of :mod:`gnoming_sim.search` that defines kernels
(found by walking the folders, so a new kernel file is covered without a hand-kept list).  The directory is chosen by a cache locator that answers only
for this project's functions: other libraries' cached kernels are left where numba puts
them (``numba.config.CACHE_DIR`` is never changed).

The cache lives in ``$NUMBA_CACHE_DIR/<hash>`` when ``NUMBA_CACHE_DIR`` is set (the
Makefile sets it to ``.numba_cache/`` in the repository), else in
``~/.cache/gnoming-sim/<hash>`` (``$XDG_CACHE_HOME`` is honoured).
"""
from __future__ import annotations

import hashlib
import os
from pathlib import Path

import numba as nb
from numba.core import caching as _caching
from numba.core.registry import CPUDispatcher

_PACKAGE = Path(__file__).resolve().parent.parent          # gnoming_sim/
_STAMPED = (_PACKAGE / "kernel", _PACKAGE / "game")   # what the kernels are compiled from ...
_KERNEL_MODULES = (_PACKAGE / "search",)             # ... and the modules here that define kernels
_OUR_MODULES = ("gnoming_sim",)  # top-level packages whose kernels we place


def source_stamp() -> str:
    """Hash of every module under kernel/ and game/, and of each module under search/ that defines
    kernels (imports the jit factory), by path and bytes."""
    h = hashlib.sha256()
    paths = [p for root in _STAMPED for p in root.rglob("*.py")]
    paths += [p for root in _KERNEL_MODULES for p in root.rglob("*.py") if "kernel.jit import" in p.read_text("utf-8")]
    for path in sorted(paths):
        h.update(str(path.relative_to(_PACKAGE)).encode())
        h.update(path.read_bytes())
    return h.hexdigest()[:16]


def cache_root() -> str:
    """The folder our compiled kernels are cached in (see the module docstring)."""
    base = os.environ.get("NUMBA_CACHE_DIR") or os.path.join(
        os.environ.get("XDG_CACHE_HOME") or os.path.join(Path.home(), ".cache"), "gnoming-sim")
    return os.path.join(base, source_stamp())


class _ProjectCacheLocator(_caching.UserProvidedCacheLocator):
    """Puts this project's kernels (and only them) under :func:`cache_root`."""

    _root: str | None = None
    twins = False   # True while the cache of a kernel's Python-callable twin is made (KernelDispatcher)

    def __init__(self, func, py_file):
        super().__init__(func, py_file)
        if _ProjectCacheLocator._root is None:
            _ProjectCacheLocator._root = cache_root()
        self._cache_path = os.path.join(self._root, "python-callable" if self.twins else "",
                                        self.get_suitable_cache_subpath(py_file))

    @classmethod
    def from_function(cls, func, py_file):
        if (getattr(func, "__module__", None) or "").split(".")[0] not in _OUR_MODULES:
            return None  # someone else's function: numba's own locators decide
        return _caching._SourceFileBackedLocatorMixin.from_function.__func__(cls, func, py_file)


# numba has no public hook for a per-package cache folder; its locator list is a private
# class attribute (numba 0.68.x, pinned in pyproject.toml).  Ours goes first and declines
# every function that is not ours.
if _ProjectCacheLocator not in _caching.CacheImpl._locator_classes:
    _caching.CacheImpl._locator_classes.insert(0, _ProjectCacheLocator)


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
        if py or nb.config.DISABLE_JIT:
            return nb.njit(**options)(func)
        target = {k: v for k, v in options.items() if k != "cache"}
        d = KernelDispatcher(py_func=func, locals={}, targetoptions=dict(target, nopython=True, no_cpython_wrapper=True))
        if options["cache"]:
            d.enable_caching()
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
                _ProjectCacheLocator.twins = True
                try:
                    twin.enable_caching()
                finally:
                    _ProjectCacheLocator.twins = False
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
