"""Strategy decisions inside the jitted core: one function per decision point.

Every function takes ``(kind, params, rng, pub, vis, fd, unknown, scores, ...)`` — the
observation of :mod:`gnoming_sim.game.observation` — plus a ``legal`` mask computed by the
kernel, and returns a choice that the mask allows.  ``kind`` selects the family
(``KIND_RANDOM``: uniform over the legal choices), ``params`` (float64[N_PARAMS]) tunes it.
"""
from __future__ import annotations

from gnoming_sim.kernel.policy import heuristic as H
from gnoming_sim.kernel.policy.estimate import N_SCRATCH
from gnoming_sim.kernel.jit import jit
from gnoming_sim.kernel.rng import below

KIND_RANDOM = 0
KIND_HEURISTIC = 1
N_PARAMS = 16 + 96  # 16 parameters, then a per-seat scratch area (see _heuristic.H_SCRATCH)

assert H.H_SCRATCH + N_SCRATCH <= N_PARAMS, "the heuristic's workspace must fit in params"

NOKEEP = 9    # index of "do not keep" in a placement mask
STOP = 9      # index of "stop bouncing" in a bounce mask


@jit
def pick_uniform(rng, legal, n):
    """A uniform index among ``legal[:n] != 0`` (at least one must be set)."""
    count = 0
    for i in range(n):
        if legal[i]:
            count += 1
    k = below(rng, count)
    for i in range(n):
        if legal[i]:
            if k == 0:
                return i
            k -= 1
    return -1


@jit
def initial_flips(kind, params, rng, pub, out):
    """Write the two positions to turn face up at the start of a round into ``out[0:2]``."""
    if kind == KIND_HEURISTIC:
        H.initial_flips(params, out)
        return
    a = below(rng, 9)
    b = below(rng, 8)
    if b >= a:
        b += 1
    out[0] = a
    out[1] = b


@jit
def draw_source(kind, params, rng, pub, vis, fd, unknown, scores, legal):
    """0 = draw pile, 1 / 2 = discard pile 0 / 1; ``legal`` int8[3]."""
    if kind == KIND_HEURISTIC:
        return H.draw_source(params, pub, vis, fd, unknown, legal)
    return pick_uniform(rng, legal, 3)


@jit
def placement(kind, params, rng, pub, vis, fd, unknown, scores, card, legal):
    """Position 0..8 to place ``card``, or ``NOKEEP``; ``legal`` int8[10]."""
    if kind == KIND_HEURISTIC:
        return H.placement(params, pub, vis, fd, unknown, card, legal)
    return pick_uniform(rng, legal, 10)


@jit
def bounce_target(kind, params, rng, pub, vis, fd, unknown, scores, card, legal):
    """Position 0..8 to bounce ``card`` onto, or ``STOP``; ``legal`` int8[10]."""
    if kind == KIND_HEURISTIC:
        return H.bounce_target(params, pub, vis, fd, unknown, card, legal)
    return pick_uniform(rng, legal, 10)


@jit
def discard_pile(kind, params, rng, pub, vis, fd, unknown, scores, card):
    """Pile 0 or 1 for ``card`` when both piles are allowed."""
    if kind == KIND_HEURISTIC:
        return H.discard_pile(pub)
    return below(rng, 2)


@jit
def hazard_flip(kind, params, rng, pub, vis, fd, unknown, scores, legal):
    """Position 0..8 to turn face up after an opponent's hazard, or 9 to decline; ``legal`` int8[10]."""
    if kind == KIND_HEURISTIC:
        return H.hazard_flip(params, pub, vis, legal)
    return pick_uniform(rng, legal, 10)
