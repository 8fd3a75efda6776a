"""The value player (``KIND_VALUE``): every draw source, placement, bounce and hazard flip of its seat by
0-ply, the value network's chance of winning the game after each option (:mod:`.zero_ply`'s valuation, the
one the board and ``analyse --level 0-ply`` show).

What it sees.  As the Monte Carlo bot (:mod:`.bot`), it builds the start of its decision from public
information alone (:func:`gnoming_sim.search.start.rollout_start`: the layouts as seen, the piles, the
table's public scalars, the unseen multiset) and deals the hidden cards at random: ``mc_budget`` deals a
decision, common to every option.  On each deal every legal option is stepped through the kernel, the seat's
own decisions that follow inside the turn by net, up to the next decision of another seat, and valued by the
network (a round the option ends is scored and the next round dealt; a game it ends is settled); the
option of the highest mean chance of winning is played, a tie broken by the lower expected final margin.
Its initial flips and the choice of discard pile are net's: the network's inputs do not tell those options
apart (the pile tops are not among them; before any card is seen every pair of flips reads alike).

The deck.  A round that an option ends deals the next round from the deck, which the rules and the deck
file make public but the table does not keep: :func:`play_game_value` hands the kernels the rules vector
with the deck's counts after its ``N_RULES`` entries (the kernels read the rules by index, so the game
plays as with the plain vector), and the player reads them there.

Recursion.  The player is a decision function handed to the one game loop
(:func:`gnoming_sim.kernel.game_loop.play_one`) by :func:`play_range_value`; its deals step with the base
decision function, which decides a value seat as net, so no function calls itself.  :mod:`gnoming_sim.search`
registers :func:`play_range_value` with the engine for ``KIND_VALUE``.
"""
from __future__ import annotations

from collections import namedtuple

import numpy as np

from gnoming_sim.game.cards import NO_CARD, SLOT_OFFSET
from gnoming_sim.game.observation import N_CHOICES, N_SOURCES, SRC_DRAW, U_FIRST_CARD
from gnoming_sim.game.rules import N_RULES
from gnoming_sim.kernel.game_loop import decide_once, play_game, play_one, step_once
from gnoming_sim.kernel.jit import jit
from gnoming_sim.kernel.policy.dispatch import KIND_VALUE, M_BUDGET, N_PARAMS, V_W0, base_kind, new_memo
from gnoming_sim.kernel.rng import seed_stream, shuffle_prefix
from gnoming_sim.kernel.state import DEC_BOUNCE, DEC_HAZARD_FLIP, DEC_PLACE, DEC_SOURCE, S_ACTOR, S_FILLED, \
    S_HAND, S_PENDING, S_SEAT, S_SRC, new_table, seat_params
from gnoming_sim.kernel.step import legal_actions, play_out
from gnoming_sim.kernel.value import N_WEIGHTS
from gnoming_sim.search.bot import decision_key
from gnoming_sim.search.rollout import STREAM_DETERMINIZE, STREAM_ROLL_PLAY
from gnoming_sim.search.start import enter, rollout_start
from gnoming_sim.search.zero_ply import N_Z, Z_MARGIN, Z_WIN, to_next_decision, value_after, workspace

Deal = namedtuple("Deal", ["rules", "deck", "deck_counts"])
Deal.__doc__ = """What dealing a later round needs (the fields of a :class:`gnoming_sim.search.rollout.Roll` that
:func:`gnoming_sim.search.rollout.deal_round` reads): the rules, the deck in a fixed order and its counts."""


@jit(nrt=True)
def _deal_of(rules):
    """The :class:`Deal` of a value player's game: the deck's counts after the rules' ``N_RULES`` entries."""
    counts = rules[N_RULES:].copy()
    n = 0
    for j in range(U_FIRST_CARD, counts.shape[0]):
        n += counts[j]
    deck = np.empty(n, dtype=np.int8)
    n = 0
    for j in range(U_FIRST_CARD, counts.shape[0]):
        for _ in range(counts[j]):
            deck[n] = j - SLOT_OFFSET
            n += 1
    return Deal(rules, deck, counts)


@jit(nrt=True)
def _options(t, kind):
    """The legal answers of the pending decision (``t.legal`` set), int64[K]."""
    n = N_SOURCES if kind == DEC_SOURCE else N_CHOICES
    opts = np.empty(n, dtype=np.int64)
    K = 0
    for a in range(n):
        if t.legal[a]:
            opts[K] = a
            K += 1
    return opts[:K]


@jit(nrt=True)
def value_options(t, rules, s, opts, deals):
    """Seat s's pending decision, each answer of ``opts`` valued at 0-ply on ``deals`` deals of the unseen
    cards (deal i common to every option): float64[K, N_Z], the means of the chance of winning (``Z_WIN``)
    and the expected final margin against the table's mean (``Z_MARGIN``)."""
    st = t.st
    kind = st[S_PENDING]
    P = t.fd.shape[0]
    N = t.draw.shape[0]
    card = NO_CARD
    src = np.int64(-1)
    discarder = np.int64(-1)
    bounce = np.int64(0)
    if kind == DEC_PLACE or kind == DEC_BOUNCE:
        card = st[S_HAND]
        src = st[S_SRC]
    if kind == DEC_BOUNCE:
        bounce = st[S_FILLED]
    if kind == DEC_HAZARD_FLIP:
        discarder = st[S_ACTOR]
    start = rollout_start(t.vis, t.piles, t.st, t.unknown, t.scores, s, card, src, discarder, np.bool_(True), bounce)
    prm = seat_params(t, s)
    w = prm[V_W0:V_W0 + N_WEIGHTS]
    kinds = np.full(1, base_kind(t.kinds[s], prm), dtype=np.int64)
    params = np.empty((1, N_PARAMS), dtype=np.float64)
    for j in range(N_PARAMS):
        params[0, j] = prm[j]
    rt = new_table(P, N, kinds, params, np.zeros(P, dtype=np.int16), np.empty((0, 4), dtype=np.int32), new_memo())
    deal = _deal_of(rules)
    ws = workspace(P, N)
    rng = ws[9]
    n_u = start.unseen.shape[0]
    cards = np.empty(n_u, dtype=np.int8)
    key = decision_key(t)
    K = opts.shape[0]
    one = np.zeros(N_Z)
    out = np.zeros((K, N_Z))
    none = np.int64(-1)
    for i in range(deals):
        for j in range(n_u):
            cards[j] = start.unseen[j]
        seed_stream(rng, key, i, STREAM_DETERMINIZE)
        shuffle_prefix(rng, cards, n_u)
        for k in range(K):
            a = opts[k]
            enter(rt, rules, start, cards, kind == DEC_SOURCE and a != SRC_DRAW)
            seed_stream(rt.rng, key, i, STREAM_ROLL_PLAY)
            if kind == DEC_SOURCE:
                to_next_decision(rt, rules, s, a, none, none)
            elif kind == DEC_PLACE:
                to_next_decision(rt, rules, s, src, a, none)
            elif kind == DEC_HAZARD_FLIP:
                to_next_decision(rt, rules, s, none, none, a)
            else:   # a bounce: the pending decision itself is stepped
                step_once(rt, rules, a)
                to_next_decision(rt, rules, s, none, none, none)
            value_after(rt, rules, start, deal, w, key, i, ws, one)
            out[k, Z_WIN] += one[Z_WIN] / deals
            out[k, Z_MARGIN] += one[Z_MARGIN] / deals
    return out


@jit(nrt=True)
def value_answer(t, rules):
    """A value seat's answer to its pending draw source, placement, bounce or hazard flip by 0-ply, or -1
    (another seat, another decision, or a single legal answer: the base decides)."""
    st = t.st
    s = st[S_SEAT]
    kind = st[S_PENDING]
    if t.kinds[s] != KIND_VALUE:
        return -1
    if kind != DEC_SOURCE and kind != DEC_PLACE and kind != DEC_BOUNCE and kind != DEC_HAZARD_FLIP:
        return -1
    if rules.shape[0] <= N_RULES:
        raise ValueError("the value player needs the rules with the deck's counts after them (play_game_value)")
    legal_actions(t, rules)
    opts = _options(t, kind)
    if opts.shape[0] < 2:
        return -1
    deals = max(1, np.int64(seat_params(t, s)[M_BUDGET]))
    v = value_options(t, rules, s, opts, deals)
    best = 0
    for k in range(1, opts.shape[0]):
        if v[k, Z_WIN] > v[best, Z_WIN] or (v[k, Z_WIN] == v[best, Z_WIN] and v[k, Z_MARGIN] < v[best, Z_MARGIN]):
            best = k
    return opts[best]


@jit
def decide_value(t, rules):
    """The decision function of games with value seats: a value seat's decisions by 0-ply
    (:func:`value_answer`), everything else by the base :func:`gnoming_sim.kernel.policy.dispatch.decide`."""
    a = value_answer(t, rules)
    if a >= 0:
        return a
    return decide_once(t, rules)


@jit
def play_out_value(t, rules):
    """The round played on with the value player deciding for its seats."""
    play_out(t, rules, decide_value)


@jit(nrt=True)
def play_game_value(t, game, seed, rules, deck, deck_counts, order, use_given, out, totals, win):
    """:func:`gnoming_sim.kernel.game_loop.play_game` with :func:`play_out_value`, the rules vector carrying
    the deck's counts after its entries (see the module's note)."""
    n = rules.shape[0]
    ext = np.empty(n + deck_counts.shape[0], dtype=np.int64)
    for j in range(n):
        ext[j] = rules[j]
    for j in range(deck_counts.shape[0]):
        ext[n + j] = deck_counts[j]
    play_game(t, game, seed, ext, deck, deck_counts, order, use_given, out, totals, win, play_out_value)


@jit(py=True, nrt=True)
def play_range_value(g, res, lo, hi):
    """:func:`gnoming_sim.kernel.game_loop.play_range_base` with the value player deciding for its seats."""
    for i in range(lo, hi):
        play_one(g, res, i, play_game_value)


__all__ = ["play_range_value", "value_answer", "value_options", "decide_value", "Deal"]
