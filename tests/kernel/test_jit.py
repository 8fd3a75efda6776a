"""The jit factory's compile-time hook (gnoming_sim/kernel/jit.py): numba's IR inliner no longer copies the
callee's IR that it has just built, for this package's functions only, and what it inlines still computes what
the Python source does."""
import os

import numba as nb
import numpy as np
from numba.core import inline_closurecall

from gnoming_sim.kernel import jit as J


def test_the_inliner_hook_is_in_place_and_copies_outside_it():
    assert inline_closurecall.InlineWorker.inline_function is J._inline_fresh
    assert J._numba_inline.__module__ == "numba.core.inline_closurecall"   # what inlines another's functions
    assert isinstance(inline_closurecall.copy, J._CopyUnlessFresh)
    x = {"a": [1, 2]}
    assert inline_closurecall.copy.deepcopy(x) == x
    assert inline_closurecall.copy.deepcopy(x) is not x   # the typed inliner (numba caches that IR) still copies
    assert not getattr(J._inline_copy.fresh, "on", False)


@J.jit(inline="always", cache=False)
def _bump(a, i, v):
    # mutates its argument and has a local of the same name as its caller's
    k = i % a.shape[0]
    a[k] += v
    return a[k] * 2


@J.jit(inline="always", cache=False)
def _twice(a, i):
    # an inlined function that inlines another one at two call sites
    k = _bump(a, i, 1)
    if k > 6:
        return k + _bump(a, i + 1, -1)
    return k - _bump(a, i + 2, 3)


@J.jit(cache=False)
def _driver(a, n):
    total = 0
    for i in range(n):
        k = _twice(a, i)
        total += k + _bump(a, k, 2)
    return total


def test_inlined_functions_compute_what_their_source_does(monkeypatch):
    seen = []   # the functions inlined as this package's (these tests' are taken for its own here)
    monkeypatch.setattr(J.disk_cache, "is_ours", lambda f: seen.append(f.__name__) or True)
    a, b = np.arange(5, dtype=np.int64), np.arange(5, dtype=np.int64)
    got = _driver(a, 40)
    assert {"_bump", "_twice"} <= set(seen)
    want = _driver.py_func
    # the Python source of all three, run as plain Python (the inlined ones through their py_func)
    g = want.__globals__
    saved = {name: g[name] for name in ("_bump", "_twice")}
    try:
        g["_bump"], g["_twice"] = saved["_bump"].py_func, saved["_twice"].py_func
        expected = want(b, 40)
    finally:
        g.update(saved)
    assert got == expected
    assert np.array_equal(a, b)


@nb.njit(inline="always")
def _theirs(a, i):
    a[i % a.shape[0]] += 1
    return a[0] * 2


@nb.njit
def _their_driver(a, n):
    total = 0
    for i in range(n):
        total += _theirs(a, i)
    return total


def test_another_packages_functions_are_inlined_by_numba_itself(monkeypatch):
    seen, numba_own = [], J._numba_inline

    def numbas(self, caller_ir, block, i, function, arg_typs=None):
        seen.append(function.__name__)
        return numba_own(self, caller_ir, block, i, function, arg_typs=arg_typs)

    monkeypatch.setattr(J, "_numba_inline", numbas)
    a, b = np.zeros(3, dtype=np.int64), np.zeros(3, dtype=np.int64)
    assert _their_driver(a, 7) == _their_driver.py_func(b, 7) and np.array_equal(a, b)
    assert seen and set(seen) == {"_theirs"}


@J.jit(cache=False)
def _leaf(x):
    return 3 * x + 1


@J.jit(cache=False)
def _calls_leaf(x):
    return _leaf(x) + _leaf(x + 1)


def test_a_kernel_compiled_for_jitted_callers_still_answers_python():
    # _leaf is compiled without numba's CPython wrapper when _calls_leaf compiles; a Python call that reached
    # that (missing) wrapper would crash the interpreter: it reaches a twin with one
    assert isinstance(_leaf, J.KernelDispatcher) and _leaf.targetoptions["no_cpython_wrapper"]
    assert _calls_leaf(2) == 7 + 10
    assert len(_leaf.overloads) == 1
    assert _leaf(2) == 7 and _leaf(5) == 16
    assert not isinstance(_leaf._py_twin, J.KernelDispatcher)
    assert "no_cpython_wrapper" not in _leaf._py_twin.targetoptions


def test_the_twins_are_cached_apart_and_the_entry_points_have_a_wrapper():
    import numba

    from gnoming_sim.kernel import game_loop, scoring

    assert type(game_loop.play_range_hr) is numba.core.registry.CPUDispatcher
    assert isinstance(game_loop.play_game_hr, J.KernelDispatcher)
    f = scoring.visible_score.py_func
    own = J._ProjectCacheLocator(f, scoring.__file__)._cache_path
    J._ProjectCacheLocator.twins = True
    try:
        apart = J._ProjectCacheLocator(f, scoring.__file__)._cache_path
    finally:
        J._ProjectCacheLocator.twins = False
    assert apart != own and "python-callable" in apart.split(os.sep) and "python-callable" not in own.split(os.sep)


def test_one_decorator_serves_two_functions():
    deco = J.jit(cache=False)
    f, g = deco(lambda x: x + 1), deco(lambda x: x * 2)
    assert isinstance(f, J.KernelDispatcher) and isinstance(g, J.KernelDispatcher)
    assert f.targetoptions == g.targetoptions and "cache" not in f.targetoptions
