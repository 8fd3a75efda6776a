"""The action-level API of the jitted core, in the spirit of Pgx's ``step`` and OpenSpiel's
``apply_action``: everything that plays — the policies' turn loop, the rollouts, the Monte Carlo
player, a test — moves a game only through these functions.

A table (:class:`gnoming_sim.kernel.state.Table`) always carries its *pending decision*:
``st[S_PENDING]`` (a ``DEC_*`` kind), the deciding seat ``st[S_SEAT]`` and its context (the card in
hand and its source, a bounce's filled positions, the next seat to offer a hazard flip), with the
decider's observation already filled in.

* :func:`start_round` deals a round; the starter's initial flips are then pending.
* :func:`legal_actions` writes the pending decision's legal mask into ``t.legal`` (one place for
  every rule of what may be chosen).
* :func:`step` applies one action and runs every automatic event after it (reshuffle, stall,
  hazard removal, the end of the turn, finishing, the final lap, the end of the round) up to the
  next decision; ``st[S_PENDING]`` is ``DEC_NONE`` once the round is over.
* :func:`play_out` asks a decision function for every pending decision until the round ends.

The random stream ``t.rng`` is used by the rules only for a reshuffle; a strategy's own random
choices come from the same stream inside its decision function, in the order the decisions come.
"""

from gnoming_sim.game.observation import CHOICE_DECLINE, CHOICE_STOP, N_CHOICES, N_SOURCES
from gnoming_sim.game.rules import LAYOUT
from gnoming_sim.kernel.jit import jit
from gnoming_sim.kernel.state import (
    DEC_BOUNCE,
    DEC_DISCARD,
    DEC_HAZARD_FLIP,
    DEC_INIT_FLIP,
    DEC_NONE,
    DEC_PLACE,
    DEC_SOURCE,
    N_FLIPS,
    S_ACTOR,
    S_FILLED,
    S_FINISH_TURN,
    S_HAND,
    S_LAPS,
    S_NEXT,
    S_PENDING,
    S_SEAT,
    S_SRC,
    S_STARTER,
)
from gnoming_sim.kernel.table import deal_round, emit, fill_pub, legal_placements, legal_sources, reveal
from gnoming_sim.kernel.turn import (
    NEXT_BEGIN,
    NEXT_NONE,
    advance,
    apply_bounce,
    apply_discard,
    apply_hazard_flip,
    apply_place,
    apply_source,
)
from gnoming_sim.game import trace as T


# ----------------------------------------------------------------- a round starts
@jit(inline="always")
def _offer_initial_flips(t, rules, i):
    """The initial flips of seat starter + i are pending (its observation filled in)."""
    P = t.fd.shape[0]
    s = (t.st[S_STARTER] + i) % P
    fill_pub(t, rules, s)
    t.st[S_NEXT] = i
    t.st[S_PENDING] = DEC_INIT_FLIP
    t.st[S_SEAT] = s


@jit
def start_round(t, rules, r, starter, order, deck_counts):
    """Deal round r from ``order`` (int8[N]) with ``starter`` to begin; the starter's initial flips
    are pending.  ``deck_counts`` int64[N_SLOTS]: the deck's unseen counts (engine.deck_counts)."""
    P = t.fd.shape[0]
    for i in range(P):
        t.turns[i] = 0
        t.at_finish[i, 0] = 0
        t.at_finish[i, 1] = -1
    t.st[S_FINISH_TURN] = -1
    t.st[S_LAPS] = -1
    t.st[S_ACTOR] = starter
    deal_round(t, r, starter, order, deck_counts)
    _offer_initial_flips(t, rules, 0)


@jit
def _apply_initial_flips(t, rules, action):
    """Turn the pending seat's two chosen cards face up (``action`` = a * LAYOUT + b)."""
    s = t.st[S_SEAT]
    t.flips[0] = action // LAYOUT
    t.flips[1] = action % LAYOUT
    for j in range(N_FLIPS):
        reveal(t, s, t.flips[j])
        emit(t, T.INIT_FLIP, s, t.flips[j], t.lay[s, t.flips[j]])
    i = t.st[S_NEXT] + 1
    if i < t.fd.shape[0]:
        _offer_initial_flips(t, rules, i)
        return NEXT_NONE
    t.st[S_ACTOR] = t.st[S_STARTER]
    return NEXT_BEGIN


# ----------------------------------------------------------------- the API
@jit(py=True, inline="always")
def legal_actions(t, rules):
    """Write the pending decision's legal mask into ``t.legal`` (int8[N_CHOICES]); return how many
    actions are legal.  An initial flip's mask marks the face-down positions: its action is a pair
    a * LAYOUT + b of distinct marked positions."""
    st = t.st
    legal = t.legal
    kind = st[S_PENDING]
    s = st[S_SEAT]
    if kind == DEC_SOURCE:
        for q in range(N_SOURCES, N_CHOICES):
            legal[q] = 0
        return legal_sources(t, rules, s)
    if kind == DEC_PLACE:
        legal_placements(t, rules, s, st[S_HAND], st[S_SRC])
    elif kind == DEC_BOUNCE:
        filled = st[S_FILLED]
        for q in range(LAYOUT):
            legal[q] = 1 if (filled >> q) & 1 == 0 else 0
        legal[CHOICE_STOP] = 1
    elif kind == DEC_HAZARD_FLIP:
        for q in range(LAYOUT):
            legal[q] = 1 - t.up[s, q]
        legal[CHOICE_DECLINE] = 1
    elif kind == DEC_DISCARD:
        for q in range(N_CHOICES):
            legal[q] = 1 if q < 2 else 0
    elif kind == DEC_INIT_FLIP:
        for q in range(LAYOUT):
            legal[q] = 1 - t.up[s, q]
        legal[LAYOUT] = 0
    else:
        for q in range(N_CHOICES):
            legal[q] = 0
    n = 0
    for q in range(N_CHOICES):
        n += legal[q]
    return n


@jit(inline="always")
def step(t, rules, action):
    """Apply ``action`` to the pending decision and advance to the next one (or the round's end).

    The action must be legal (:func:`legal_actions`); the kernel does not check it again.
    """
    kind = t.st[S_PENDING]
    if kind == DEC_SOURCE:
        nxt = apply_source(t, rules, action)
    elif kind == DEC_PLACE:
        nxt = apply_place(t, rules, action)
    elif kind == DEC_BOUNCE:
        nxt = apply_bounce(t, rules, action)
    elif kind == DEC_DISCARD:
        nxt = apply_discard(t, rules, action)
    elif kind == DEC_HAZARD_FLIP:
        nxt = apply_hazard_flip(t, rules, action)
    elif kind == DEC_INIT_FLIP:
        nxt = _apply_initial_flips(t, rules, action)
    else:
        nxt = NEXT_NONE
    advance(t, rules, nxt)


@jit(inline="always")
def play_out(t, rules, decide):
    """Ask ``decide(t, rules)`` (a jitted decision function, e.g.
    :func:`gnoming_sim.kernel.policy.dispatch.decide`) for every decision until the round ends.

    Inlined (numba IR): the dispatcher handed in is then only called, never passed on as a value,
    which keeps every caller cacheable (:mod:`gnoming_sim.kernel.game_loop`)."""
    while t.st[S_PENDING] != DEC_NONE:
        step(t, rules, decide(t, rules))


__all__ = ["start_round", "legal_actions", "step", "play_out", "DEC_NONE", "DEC_INIT_FLIP", "DEC_SOURCE",
           "DEC_PLACE", "DEC_BOUNCE", "DEC_DISCARD", "DEC_HAZARD_FLIP", "S_PENDING", "S_SEAT"]
