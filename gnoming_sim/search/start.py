"""The start of a rollout: ONE builder of a rollout's starting table, from a live table (the
Monte Carlo bot, :mod:`.bot`) or from a :class:`gnoming_sim.game.position.Position` (the
estimates, :mod:`.estimates`, through :func:`start_of_position`).

:func:`rollout_start` reads only what the player to move sees — the layouts as seen (``HIDDEN``
where face down), the discard piles, the table's public scalars and the unseen multiset — and
returns a :class:`Start`; :func:`enter` then resets a table to it with one determinization of the
hidden cards and leaves the player's pending decision (its draw source, or a hazard flip) pending,
ready to be stepped (:mod:`gnoming_sim.kernel.step`).
"""
from __future__ import annotations

from collections import namedtuple

import numpy as np

from gnoming_sim.game.cards import HAZARD, HIDDEN, N_SLOTS, NO_CARD, SLOT_OFFSET
from gnoming_sim.game.observation import O_DRAWN, SRC_DRAW, U_COUNT, U_FIRST_CARD
from gnoming_sim.game.rules import LAYOUT
from gnoming_sim.kernel.jit import jit
from gnoming_sim.kernel.state import (
    N_ST,
    NOT_STALLED,
    S_ACTOR,
    S_DEND,
    S_DPTR,
    S_FINISH_TURN,
    S_FINISHER,
    S_HAND,
    S_LAPS,
    S_PLEN0,
    S_REMOVED,
    S_RESHUFFLES,
    S_ROUND,
    S_STALLED,
    S_STARTER,
    S_TURN,
)
from gnoming_sim.kernel.table import fill_pub, unseen as add_unseen
from gnoming_sim.kernel.turn import begin_turn, offer_bounce, offer_hazard_flips

Start = namedtuple("Start", ["me", "r", "starter", "laps_left", "discarder", "vis0", "up0", "piles0", "st0",
                             "scores0", "unknown0", "draw_top", "unseen", "slots", "bounce", "bounce_card",
                             "bounce_src"])
Start.__doc__ = """A rollout's starting table as the player ``me`` sees it (:func:`rollout_start`).

    me, r, starter  the player to move, the round, its starter
    laps_left       -1 before anybody finished, else the final-lap turns left (a hazard flip's: the discarder's)
    discarder       -1, or the seat whose hazard the player may now flip a card for
    vis0  int8[P, 9]    the layouts as seen;  up0 int8[P, 9] face-up flags
    piles0 int8[2, N]   the discard piles (a card in hand from a pile back on it);  st0 int64[N_ST]
    scores0 int64[P];  unknown0 int64[N_SLOTS] the unseen counts (a blind card in hand back among them)
    draw_top        the card in hand when it came from the draw pile (it goes back on top), else NO_CARD
    unseen int8[n_u]    the unseen multiset (the hand excluded), by card code
    slots int64[m, 2]   the face-down (seat, position)s, the player's first: a determinization deals
                        cards[:m] to them in this order and the draw pile cards[m:] top first
    bounce          0, or a bounce decision's filled positions (bit q: filled this turn) ...
    bounce_card, bounce_src  ... with the card in hand that came off the layout and the turn's draw source
"""


@jit(py=True, nrt=True)
def rollout_start(vis, piles, st, unknown, scores, me, hand, src, discarder, cyclic, bounce):
    """The :class:`Start` of seat ``me``'s pending decision.

    ``vis`` int8[P, 9] the layouts as seen; ``piles`` int8[2, N] with ``st[S_PLEN0 + k]`` cards each;
    ``st`` int64[N_ST] (turn, finisher, removed, round, starter, ...); ``unknown`` int64[N_SLOTS]
    the unseen counts without the card in hand; ``scores`` int64[P].  ``hand``/``src``: the card
    drawn and its source for a placement, NO_CARD/-1 for a draw decision or (``discarder`` >= 0) a
    hazard flip.  ``cyclic``: the other seats' face-down slots follow ``me`` in turn order (the bot's
    order) rather than by seat number (the analysis's).  ``bounce`` != 0: a bounce decision (the
    positions filled this turn, as ``st[S_FILLED]``): ``hand`` is the card that came off the layout,
    seen and kept in hand, and ``src`` the turn's draw source.
    """
    P = vis.shape[0]
    N = piles.shape[1]
    up0 = np.empty((P, LAYOUT), dtype=np.int8)
    vis0 = np.empty((P, LAYOUT), dtype=np.int8)
    m = 0
    for s in range(P):
        for q in range(LAYOUT):
            vis0[s, q] = vis[s, q]
            up0[s, q] = 0 if vis[s, q] == HIDDEN else 1
            m += 1 - up0[s, q]
    piles0 = np.zeros((2, N), dtype=np.int8)
    st0 = np.zeros(N_ST, dtype=np.int64)
    for k in range(2):
        st0[S_PLEN0 + k] = st[S_PLEN0 + k]
        for j in range(st[S_PLEN0 + k]):
            piles0[k, j] = piles[k, j]
    for j in (S_REMOVED, S_TURN, S_FINISHER, S_FINISH_TURN, S_RESHUFFLES, S_ROUND, S_STARTER):
        st0[j] = st[j]
    st0[S_STALLED] = NOT_STALLED
    unknown0 = np.empty(N_SLOTS, dtype=np.int64)
    for j in range(N_SLOTS):
        unknown0[j] = unknown[j]
    n_u = unknown[U_COUNT]
    unseen = np.empty(n_u, dtype=np.int8)
    n = 0
    for j in range(U_FIRST_CARD, N_SLOTS):
        for _ in range(unknown[j]):
            unseen[n] = j - SLOT_OFFSET
            n += 1
    slots = np.empty((m, 2), dtype=np.int64)
    j = 0
    for i in range(P):
        if cyclic:
            o = (me + i) % P
        else:
            o = me if i == 0 else (i - 1 if i - 1 < me else i)
        for q in range(LAYOUT):
            if up0[o, q] == 0:
                slots[j, 0] = o
                slots[j, 1] = q
                j += 1
    draw_top = NO_CARD
    if hand != NO_CARD and bounce == 0:
        if src == SRC_DRAW:
            draw_top = hand
            add_unseen(unknown0, hand, 1)
        else:
            k = src - 1
            piles0[k, st0[S_PLEN0 + k]] = hand
            st0[S_PLEN0 + k] += 1
    st0[S_DPTR] = 0
    st0[S_DEND] = n_u - m + (1 if draw_top != NO_CARD else 0)
    finisher = st[S_FINISHER]
    seat = discarder if discarder >= 0 else me
    laps_left = -1 if finisher < 0 else (finisher - seat) % P
    sc = np.empty(P, dtype=np.int64)
    for s in range(P):
        sc[s] = scores[s]
    return Start(me, st[S_ROUND], st[S_STARTER], laps_left, discarder, vis0, up0, piles0, st0, sc, unknown0,
                 draw_top, unseen, slots, bounce, hand if bounce != 0 else NO_CARD, src if bounce != 0 else -1)


@jit(py=True, nrt=True)
def start_truth(start, lay, draw, dptr):
    """int8[n_u]: the true hidden cards in the order a determinization deals them (``--peek``):
    ``lay`` int8[P, 9] the true layouts, ``draw[dptr:]`` the true draw pile, top first."""
    n_u = start.unseen.shape[0]
    m = start.slots.shape[0]
    truth = np.empty(n_u, dtype=np.int8)
    for i in range(m):
        truth[i] = lay[start.slots[i, 0], start.slots[i, 1]]
    for i in range(n_u - m):
        truth[m + i] = draw[dptr + i]
    return truth


@jit
def _deal_hidden(t, start, cards, first_last):
    """The table's layouts and draw pile from the known cards and one determinization ``cards``.

    ``first_last``: the draw pile's first card goes to its bottom instead.  An option that does
    not draw blind then leaves the others the same draws as the option that does (CRN stays in
    step); each option's determinization is still uniform (a fixed re-ordering of a uniform one)."""
    lay0 = start.vis0
    up0 = start.up0
    P = lay0.shape[0]
    for s in range(P):
        n = 0
        for q in range(LAYOUT):
            t.lay[s, q] = lay0[s, q]
            t.up[s, q] = up0[s, q]
            t.vis[s, q] = lay0[s, q]
            n += 1 - up0[s, q]
        t.fd[s] = n
    slots = start.slots
    m = slots.shape[0]
    n_draw = start.unseen.shape[0] - m
    for j in range(m):
        t.lay[slots[j, 0], slots[j, 1]] = cards[j]
    d = 0
    if start.draw_top != NO_CARD:
        t.draw[0] = start.draw_top
        d = 1
    if first_last and n_draw > 0:
        for j in range(1, n_draw):
            t.draw[d + j - 1] = cards[m + j]
        t.draw[d + n_draw - 1] = cards[m]
    else:
        for j in range(n_draw):
            t.draw[d + j] = cards[m + j]


@jit(py=True)
def enter(t, rules, start, cards, first_last):
    """Reset table ``t`` to ``start`` with the hidden cards ``cards`` (a determinization, dealt as
    :class:`Start` says), and leave the player's decision pending: its draw source (a placement is
    reached by stepping the source the card came from), its hazard flip or its bounce."""
    P = t.fd.shape[0]
    st = t.st
    for j in range(N_ST):
        st[j] = start.st0[j]
    for k in range(2):
        for j in range(start.piles0.shape[1]):
            t.piles[k, j] = start.piles0[k, j]
    for s in range(P):
        t.scores[s] = start.scores0[s]
        t.turns[s] = 0
        t.at_finish[s, 0] = 0
        t.at_finish[s, 1] = -1
    for j in range(N_SLOTS):
        t.unknown[j] = start.unknown0[j]
    _deal_hidden(t, start, cards, first_last)
    st[S_LAPS] = start.laps_left
    if start.discarder >= 0:   # the discarder's turn is in progress: its hazard is being answered
        st[S_ACTOR] = start.discarder
        st[S_HAND] = HAZARD
        fill_pub(t, rules, start.discarder)
        t.obs.pub[O_DRAWN] = HAZARD
        offer_hazard_flips(t, rules, (start.me - start.discarder) % P)
    elif start.bounce != 0:   # the player's turn is in progress: the card in hand may bounce
        offer_bounce(t, rules, start.me, start.bounce_card, start.bounce_src, start.bounce)
    else:
        begin_turn(t, rules, start.me)


def start_of_position(pos, cyclic: bool = False) -> Start:
    """The :class:`Start` of a :class:`gnoming_sim.game.position.Position` (what its player sees,
    as the arrays :func:`rollout_start` reads)."""
    from gnoming_sim.kernel.engine import deck_counts

    N = pos.deck.size
    piles = np.zeros((2, N), dtype=np.int8)
    st = np.zeros(N_ST, dtype=np.int64)
    for k in range(2):
        piles[k, :len(pos.piles[k])] = pos.piles[k]
        st[S_PLEN0 + k] = len(pos.piles[k])
    st[S_REMOVED] = pos.removed
    st[S_TURN] = pos.turn
    st[S_FINISHER] = pos.finisher
    st[S_FINISH_TURN] = -1
    st[S_ROUND] = pos.round
    st[S_STARTER] = pos.starter
    unknown = deck_counts(pos.unseen())
    hand = int(pos.hand) if pos.decision == "place" else NO_CARD
    src = int(pos.source) if pos.decision == "place" else -1
    return rollout_start(np.ascontiguousarray(pos.layouts, dtype=np.int8), piles, st, unknown,
                         np.array(pos.scores, dtype=np.int64), pos.me, hand, src, pos.discarder, cyclic, 0)
