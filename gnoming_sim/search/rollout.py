"""Rollouts in the jitted core: from a position, step one option of the pending decision and
play on with the base policies, for many determinizations of the hidden cards.

Rollout i deals the unseen cards (its *determinization*) from its own stream of
``(seed, first + i)`` and plays from another: results do not depend on the thread count.
With common random numbers (``crn``) rollout i uses the same determinization and the same
play stream for every option, so the options' differences are paired; without, option k
draws from streams of its own (independent rollouts, for the variance ratio).

The rules are the game kernel's own: a rollout table is entered at the player's pending
decision (:func:`gnoming_sim.search.start.enter`), the option under test is stepped
(:func:`gnoming_sim.kernel.step.step`) and the round is played on by :func:`roll_on`, which asks
the base decision function for everything else and keeps the luck control variate from what
the steps drew.
"""
from __future__ import annotations

from collections import namedtuple

import numpy as np

from gnoming_sim.game.cards import NO_CARD
from gnoming_sim.game.fields import F_BONUS, F_FINISHER, F_SCORE, N_FIELDS
from gnoming_sim.game.observation import SRC_DRAW, U_COUNT
from gnoming_sim.game.rules import (LAYOUT, R_HAZARD_VALUE, R_MULLIGAN_VALUE, R_NEGATIVE_MULTIPLIER, R_ROTATE_START,
                                    ROUNDS)
from gnoming_sim.kernel.game_loop import play_out_base, score_round, settle_game
from gnoming_sim.kernel.jit import jit
from gnoming_sim.kernel.policy.dispatch import decide, new_memo
from gnoming_sim.kernel.rng import seed_stream, shuffle_prefix
from gnoming_sim.kernel.scoring import card_cost, unseen_cost
from gnoming_sim.kernel.state import (
    DEC_HAZARD_FLIP,
    DEC_NONE,
    DEC_PLACE,
    DEC_SOURCE,
    RNG_WORDS,
    S_DEND,
    S_DPTR,
    S_HAND,
    S_PENDING,
    S_PLEN0,
    S_RESHUFFLES,
    S_SEAT,
    new_table,
)
from gnoming_sim.kernel.step import start_round, step
from gnoming_sim.kernel.value import HIDDEN_UNITS, MAX_SEATS, NI, evaluate
from gnoming_sim.search.start import enter

# streams of rollout i (beside the games' STREAM_DEAL = 0 and STREAM_PLAY = 1)
STREAM_DETERMINIZE = 2
STREAM_ROLL_PLAY = 3
STREAM_ROLL_FUTURE = 4   # the deals of later rounds (--horizon game)
STREAM_OPTION_STEP = 16  # without CRN, option k adds (k + 1) * this to every stream

# ``out[i, k, X_*]``: what rollout i of option k gave the player to move
X_SCORE = 0      # round score, bonus included
X_FINISHED = 1   # 1 if the player finished the round
X_BONUS = 2      # the player's early-finish bonus (-b, 0, +b)
X_LOWEST = 3     # 1 if the player's round score is the lowest (ties included)
X_GAME = 4       # game score at the end of the horizon (finished rounds + this one, + later ones)
X_WIN = 5        # win credit (--horizon game; shared wins split)
X_LUCK = 6       # the player's luck in this round's blind draws (mean 0: a control variate, roll_on)
X_LUCK_OTHERS = 7  # the other players' luck, summed
X_RIVALS = 8     # the mean of the other players' round scores, bonuses included (what the rivals gained)
N_X = 9

# ``cov[i, C_*]``: covariates of rollout i's determinization, with known means
C_TOP = 0        # the first unseen card of the draw pile (NO_CARD if the pile is empty)
C_OWN = 1        # C_OWN + j: the card dealt to the player's j-th face-down slot (j < 9)
N_C = C_OWN + LAYOUT

Roll = namedtuple("Roll", ["truth", "options", "kinds", "params", "seat_strategy", "rules", "deck", "deck_counts",
                           "horizon_game", "crn", "align", "peek", "value_w"])
Roll.__doc__ = """How the rollouts of one position play (besides its :class:`gnoming_sim.search.start.Start`).

    truth        int8[n_u]    with ``peek``: the true hidden cards in dealing order, used instead of a shuffle
    options      int64[K, 3]  (draw source, placement, hazard flip; -1: the policy) stepped for the player
    kinds        int64[S];  params float64[S, N_PARAMS];  seat_strategy int16[P]: the base policies
    rules        int64[N_RULES];  deck int8[N];  deck_counts int64[N_SLOTS]
    horizon_game play the later rounds too;  crn common random numbers
    align        with ``crn``: a pile option deals the blind-draw card to the draw pile's bottom
    peek         deal ``truth`` instead of a determinization
    value_w      float64[0]: full rollouts; else the value network's weights (:mod:`gnoming_sim.kernel.value`):
                 with ``horizon_game``, *truncated* rollouts: the later rounds are not played, the next round's
                 first decision (dealt from the same stream a full rollout deals it from) is valued by the network
                 (X_WIN its chance of winning, X_GAME the game score after this round); the last round's rollouts
                 are full ones
"""


@jit(inline="always")
def option_action(kind, src, pos, flip):
    """The option's own answer to a pending decision of ``kind``: ``(action, src, pos, flip)`` with the answer used
    set to -1 (the option's draw source, placement and hazard flip each answer once); action -1: the option has
    none for it (the policy decides)."""
    if kind == DEC_SOURCE and src >= 0:
        return src, -1, pos, flip
    if kind == DEC_PLACE and pos >= 0:
        return pos, src, -1, flip
    if kind == DEC_HAZARD_FLIP and flip >= 0:
        return flip, src, pos, -1
    return -1, src, pos, flip


@jit(inline="always")
def deal_round(t, roll, r, order, rng):
    """Round ``r`` of a rollout dealt from ``rng`` (the deck shuffled into ``order``) and started: its first
    decision pending.  Returns its starter."""
    rules = roll.rules
    deck = roll.deck
    starter = r % t.fd.shape[0] if rules[R_ROTATE_START] != 0 else 0
    for j in range(deck.shape[0]):
        order[j] = deck[j]
    shuffle_prefix(rng, order, deck.shape[0])
    start_round(t, rules, r, starter, order, roll.deck_counts)
    return starter


@jit
def roll_on(t, rules, src, pos, flip, luck):
    """Play the round on from the table's pending decision with the base decision function,
    the first draw source, placement and hazard flip to come stepped as ``src``, ``pos``, ``flip``
    instead (each -1: the policy decides).

    ``luck`` float64[P] (or empty: not kept): per seat, the sum over the blind draws its policy
    chose before any reshuffle of the card's cost minus the mean cost of an unseen card at the
    draw — mean 0, as every unseen card is equally likely to be on top (a control variate)."""
    st = t.st
    hz = rules[R_HAZARD_VALUE]
    mv = rules[R_MULLIGAN_VALUE]
    nm = rules[R_NEGATIVE_MULTIPLIER]
    keep_luck = luck.shape[0] > 0
    luck_seat = -1
    cost = 0
    count = 1
    while st[S_PENDING] != DEC_NONE:
        kind = st[S_PENDING]
        a, src, pos, flip = option_action(kind, src, pos, flip)
        if a < 0:
            a = decide(t, rules)
            if keep_luck and kind == DEC_SOURCE and a == SRC_DRAW:
                luck_seat = st[S_SEAT]
                cost = unseen_cost(t.unknown, hz, mv, nm)
                count = t.unknown[U_COUNT]
        step(t, rules, a)   # one inlined copy of the turn (the hot loop of a rollout)
        if luck_seat >= 0:
            if st[S_PENDING] == DEC_PLACE and st[S_RESHUFFLES] == 0:  # drawn, from the round's own pile
                luck[luck_seat] += card_cost(st[S_HAND], hz, mv, nm) - cost / count
            luck_seat = -1


@jit
def _record(t, me, r, res, luck, o):
    P = t.fd.shape[0]
    mine = res[r, me, F_SCORE]
    o[X_SCORE] = mine
    o[X_FINISHED] = res[r, me, F_FINISHER]
    o[X_BONUS] = res[r, me, F_BONUS]
    lowest = 1
    for s in range(P):
        if s != me and res[r, s, F_SCORE] < mine:
            lowest = 0
    o[X_LOWEST] = lowest
    others = 0.0
    for s in range(P):
        if s != me:
            others += luck[s]
    o[X_LUCK] = luck[me]
    o[X_LUCK_OTHERS] = others
    rivals = 0.0
    for s in range(P):
        if s != me:
            rivals += res[r, s, F_SCORE]
    o[X_RIVALS] = rivals / (P - 1)


@jit
def _play_on(t, start, roll, res, order, rng_future, totals, win, o):
    """The later rounds of the game (``--horizon game``); writes X_GAME and X_WIN (``totals`` int64[P]
    and ``win`` float64[P] are workspace)."""
    P = t.fd.shape[0]
    me = start.me
    r = start.r
    rules = roll.rules
    deck = roll.deck
    for s in range(P):
        t.scores[s] += res[r, s, F_SCORE]
    for r2 in range(r + 1, ROUNDS):
        starter2 = deal_round(t, roll, r2, order, rng_future)
        play_out_base(t, rules)
        score_round(t, rules, r2, starter2, res)
        for s in range(P):
            t.scores[s] += res[r2, s, F_SCORE]
    o[X_GAME] = t.scores[me]
    for s in range(P):  # settle_game sums the rounds: the earlier ones count as round 0
        done = t.scores[s]
        for r2 in range(r, ROUNDS):
            done -= res[r2, s, F_SCORE]
        for r2 in range(r):
            res[r2, s, F_SCORE] = done if r2 == 0 else 0
    settle_game(P, res, totals, win)
    o[X_WIN] = win[me]


@jit(nrt=True)
def _value_next_round(t, start, roll, res, order, rng_future, o):
    """A truncated rollout's end (``roll.value_w``): the round scored into the game scores, the next round dealt
    from ``rng_future`` (as :func:`_play_on` deals it) and valued at its first decision by the value network;
    writes X_GAME (the game score after this round) and X_WIN (the network's chance of winning)."""
    P = t.fd.shape[0]
    me = start.me
    r = start.r
    for s in range(P):
        t.scores[s] += res[r, s, F_SCORE]
    deal_round(t, roll, r + 1, order, rng_future)
    x = np.zeros((MAX_SEATS, NI))
    h = np.zeros(HIDDEN_UNITS)
    slots = np.zeros((2, MAX_SEATS))
    win = np.zeros(MAX_SEATS)
    margin = np.zeros(MAX_SEATS)
    evaluate(t.obs, roll.value_w, x, h, slots, win, margin)
    o[X_GAME] = t.scores[me]
    o[X_WIN] = win[me]


@jit
def _snapshot(t, snap):
    """The entered table's true cards into ``snap`` int64 (a traced rollout, :func:`traced_rollout`):
    lay[P*9], up[P*9], the two pile sizes, piles[0, :N], piles[1, :N], then the draw pile's size and
    draw[:size], top first."""
    P = t.lay.shape[0]
    N = t.draw.shape[0]
    j = 0
    for s in range(P):
        for q in range(LAYOUT):
            snap[j] = t.lay[s, q]
            snap[j + P * LAYOUT] = t.up[s, q]
            j += 1
    j = 2 * P * LAYOUT
    snap[j] = t.st[S_PLEN0]
    snap[j + 1] = t.st[S_PLEN0 + 1]
    for k in range(2):
        for c in range(N):
            snap[j + 2 + k * N + c] = t.piles[k, c]
    j += 2 + 2 * N
    n = t.st[S_DEND] - t.st[S_DPTR]
    snap[j] = n
    for c in range(n):
        snap[j + 1 + c] = t.draw[t.st[S_DPTR] + c]


def snapshot_size(P: int, N: int) -> int:
    return 2 * P * LAYOUT + 2 + 3 * N + 1


@jit(nrt=True)
def _one_rollout(first, seed, start, roll, i, out, cov, tr, res_keep, snap):
    """Rollout ``first + i`` of every option (row i of ``out`` and ``cov``); returns the trace's length.

    A traced rollout (:func:`traced_rollout`) also hands a trace buffer ``tr`` int32[cap, 4], and
    keeps the round stats in ``res_keep`` int32[ROUNDS, P, N_FIELDS] and the entered table's cards
    in ``snap`` (:func:`_snapshot`); the batch passes them empty."""
    options = roll.options
    K = options.shape[0]
    P = start.vis0.shape[0]
    N = roll.deck.shape[0]
    unseen = start.unseen
    n_u = unseen.shape[0]
    m = start.slots.shape[0]
    n_draw = n_u - m
    me = start.me
    t = new_table(P, N, roll.kinds, roll.params, roll.seat_strategy, tr, new_memo())
    cards = np.empty(n_u, dtype=np.int8)
    rng_det = np.empty(RNG_WORDS, dtype=np.uint64)
    rng_future = np.empty(RNG_WORDS, dtype=np.uint64)
    res = np.zeros((ROUNDS, P, N_FIELDS), dtype=np.int32)
    order = np.empty(N, dtype=np.int8)
    luck = np.zeros(P, dtype=np.float64)
    totals = np.zeros(P, dtype=np.int64)
    win = np.zeros(P, dtype=np.float64)
    idx = first + i
    for k in range(K):
        stream = 0 if roll.crn else (k + 1) * STREAM_OPTION_STEP
        if k == 0 or not roll.crn:
            for j in range(n_u):
                cards[j] = roll.truth[j] if roll.peek else unseen[j]
            if not roll.peek:
                seed_stream(rng_det, seed, idx, STREAM_DETERMINIZE + stream)
                shuffle_prefix(rng_det, cards, n_u)
            if k == 0:
                cov[i, C_TOP] = cards[m] if n_draw > 0 else NO_CARD
                for j in range(LAYOUT):
                    cov[i, C_OWN + j] = cards[j] if j < m and start.slots[j, 0] == me else NO_CARD
        # a draw decision's options that take a pile card: the blind card goes to the bottom
        first_last = roll.align and start.draw_top == NO_CARD and options[k, 0] > 0
        enter(t, roll.rules, start, cards, first_last)
        if snap.shape[0] > 0:
            _snapshot(t, snap)
        for s in range(P):
            luck[s] = 0.0
        seed_stream(t.rng, seed, idx, STREAM_ROLL_PLAY + stream)
        roll_on(t, roll.rules, options[k, 0], options[k, 1], options[k, 2], luck)
        score_round(t, roll.rules, start.r, start.starter, res)
        o = out[i, k]
        _record(t, me, start.r, res, luck, o)
        if roll.horizon_game:
            seed_stream(rng_future, seed, idx, STREAM_ROLL_FUTURE + stream)
            if roll.value_w.shape[0] > 0 and start.r + 1 < ROUNDS:
                _value_next_round(t, start, roll, res, order, rng_future, o)
            else:
                _play_on(t, start, roll, res, order, rng_future, totals, win, o)
        else:
            o[X_GAME] = start.scores0[me] + o[X_SCORE]
            o[X_WIN] = np.nan
    if res_keep.shape[0] > 0:
        for r in range(ROUNDS):
            for s in range(P):
                for f in range(N_FIELDS):
                    res_keep[r, s, f] = res[r, s, f]
    return t.tn[0]


@jit(py=True, nrt=True)
def rollout_batch(first, seed, start, roll, out, cov):
    """Rollouts ``first + i`` for i in range(n), every option each, on one thread (``run_rollouts`` hands
    blocks of them to a pool of threads, as the game loops do: a ``parallel=True`` loop cost about 18 s of
    compiling, and compiled the rollout twice, for a signed and an unsigned index).

    ``start``: the position (:class:`gnoming_sim.search.start.Start`); ``roll``: how to play
    (:class:`Roll`); ``out`` float64[n, K, N_X]; ``cov`` float64[n, N_C].
    """
    no_trace = np.empty((0, 4), dtype=np.int32)
    no_res = np.empty((0, 0, 0), dtype=np.int32)
    no_snap = np.empty(0, dtype=np.int64)
    for i in range(out.shape[0]):
        _one_rollout(first, seed, start, roll, i, out, cov, no_trace, no_res, no_snap)


@jit(py=True, nrt=True)
def traced_rollout(i, seed, start, roll, out, cov, tr, res_keep, snap):
    """Rollout ``i`` alone, with its action trace (:mod:`gnoming_sim.game.trace`) in ``tr`` from the
    entered table on, its round stats and the entered table's cards (:func:`_snapshot`); the trace's
    length.  With one option in ``roll`` (and common random numbers) it is the very rollout ``i`` of
    that option in :func:`rollout_batch`: the same determinization, the same play stream."""
    return _one_rollout(i, seed, start, roll, np.int64(0), out, cov, tr, res_keep, snap)   # not a literal 0: one compile
