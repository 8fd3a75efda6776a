"""The game kernel with Monte Carlo seats: a copy of the turn loop whose draw and placement ask
:mod:`gnoming_sim.kernel.mc` first.

Why a copy.  An MC decision runs rollouts with the turn loop; if that loop called the MC decision
again, the functions would call each other, which numba cannot compile.  So the module-level
kernel (:mod:`.turn`, :mod:`.game_loop`) stays the *base*, untouched and exactly as fast, and the
rollouts use it; this module builds a second chain ``play_batch -> play_game -> _play_round ->
_play_turns -> _play_turn`` from the same Python code objects, in which ``_play_turn`` calls
:func:`_mc_draw` and :func:`_mc_keep_and_bounce` instead of ``_draw`` and ``_keep_and_bounce``.
Those ask the MC seat's rollouts for its choice, put it in the ``S_FORCE_SRC`` / ``S_FORCE_POS``
slots, then run the base step, which reads the forced answer (other seats pass straight through).
Edits to the base functions therefore reach this copy by themselves.

The copies get their own ``__qualname__`` (``mc.<name>``): numba names its cache files by
qualified name and line, so they never collide with the originals' cache entries.
"""
from __future__ import annotations

import types

import numba as nb

from gnoming_sim.kernel import game_loop, turn
from gnoming_sim.kernel.jit import jit
from gnoming_sim.kernel.mc import mc_placement, mc_source


@jit(inline="always")
def _mc_draw(t, rules, s):
    """The draw step, with an MC seat's source decided by rollouts."""
    mc_source(t, rules, s)
    return turn._draw(t, rules, s)


@jit(inline="always")
def _mc_keep_and_bounce(t, rules, s, card, src):
    """Placement and bounces, with an MC seat's placement decided by rollouts."""
    mc_placement(t, rules, s, card, src)
    return turn._keep_and_bounce(t, rules, s, card, src)


def _clone(dispatcher, **replace):
    """A jitted copy of ``dispatcher``'s Python function whose globals names ``replace`` rebinds."""
    f = dispatcher.py_func
    missing = [name for name in replace if name not in f.__code__.co_names]
    if missing:  # the base function no longer calls it by that name: the copy would play no MC at all
        raise ImportError(f"mc_loop: {f.__qualname__} does not call {', '.join(missing)}; update mc_loop")
    g = dict(f.__globals__)
    g.update(replace)
    c = types.FunctionType(f.__code__, g, f.__name__, f.__defaults__, f.__closure__)
    c.__qualname__ = "mc." + f.__qualname__
    c.__doc__ = f.__doc__
    c.__module__ = f.__module__
    c.__kwdefaults__ = f.__kwdefaults__
    options = dict(dispatcher.targetoptions)
    options.pop("nopython", None)
    return nb.njit(cache=True, **options)(c)


_play_turn = _clone(turn._play_turn, _draw=_mc_draw, _keep_and_bounce=_mc_keep_and_bounce)
_play_turns = _clone(game_loop._play_turns, _play_turn=_play_turn)
_play_round = _clone(game_loop._play_round, _play_turns=_play_turns)
play_game = _clone(game_loop.play_game, _play_round=_play_round)
play_batch = _clone(game_loop.play_batch, play_game=play_game)
