"""Rollouts in the jitted core: from a position, force one option of the pending decision and
play on with the base policies, for many determinizations of the hidden cards (issue 13).

Rollout i deals the unseen cards (its *determinization*) from its own stream of
``(seed, first + i)`` and plays from another: results do not depend on the thread count.
With common random numbers (``crn``) rollout i uses the same determinization and the same
play stream for every option, so the options' differences are paired; without, option k
draws from streams of its own (independent rollouts, for the variance ratio).

The rules are the game kernel's own: the option is forced through the ``S_FORCE_SRC`` /
``S_FORCE_POS`` slots of the state (read once by :mod:`.turn`), and the rest of the round is
:func:`gnoming_sim.kernel.game_loop._play_turns` entered at the player's turn.
"""
from __future__ import annotations

import numpy as np
from numba import prange

from gnoming_sim.game.cards import HAZARD, NO_CARD
from gnoming_sim.game.observation import O_DRAWN
from gnoming_sim.game.fields import F_BONUS, F_FINISHER, F_SCORE, N_FIELDS
from gnoming_sim.game.rules import LAYOUT, R_ROTATE_START, ROUNDS
from gnoming_sim.kernel.game_loop import _play_round, _play_turns, _score_round, _settle_game
from gnoming_sim.kernel.jit import jit
from gnoming_sim.kernel.rng import seed_stream, shuffle_prefix
from gnoming_sim.kernel.state import N_ST, RNG_WORDS, S_FORCE_FLIP, S_FORCE_POS, S_FORCE_SRC, S_LUCK, new_table
from gnoming_sim.kernel.table import _fill_pub, _setup_round
from gnoming_sim.kernel.turn import _hazard_flips

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
X_LUCK = 6       # the player's luck in this round's blind draws (Table.luck; mean 0: a control variate)
X_LUCK_OTHERS = 7  # the other players' luck, summed
N_X = 8

# ``cov[i, C_*]``: covariates of rollout i's determinization, with known means
C_TOP = 0        # the first unseen card of the draw pile (NO_CARD if the pile is empty)
C_OWN = 1        # C_OWN + j: the card dealt to the player's j-th face-down slot (j < 9)
N_C = C_OWN + LAYOUT


@jit
def _deal_hidden(t, lay0, up0, slots, cards, draw_top, n_draw, first_last):
    """The table's layouts and draw pile from the known cards and one determinization ``cards``.

    ``first_last``: the draw pile's first card goes to its bottom instead.  An option that does
    not draw blind then leaves the others the same draws as the option that does (CRN stays in
    step); each option's determinization is still uniform (a fixed re-ordering of a uniform one)."""
    P = lay0.shape[0]
    for s in range(P):
        n = 0
        for q in range(LAYOUT):
            t.lay[s, q] = lay0[s, q]
            t.up[s, q] = up0[s, q]
            t.vis[s, q] = lay0[s, q]
            n += 1 - up0[s, q]
        t.fd[s] = n
    m = slots.shape[0]
    for j in range(m):
        t.lay[slots[j, 0], slots[j, 1]] = cards[j]
    d = 0
    if draw_top != NO_CARD:
        t.draw[0] = draw_top
        d = 1
    if first_last and n_draw > 0:
        for j in range(1, n_draw):
            t.draw[d + j - 1] = cards[m + j]
        t.draw[d + n_draw - 1] = cards[m]
    else:
        for j in range(n_draw):
            t.draw[d + j] = cards[m + j]


@jit
def _reset(t, st0, piles0, scores0, unknown0):
    P = t.fd.shape[0]
    for j in range(N_ST):
        t.st[j] = st0[j]
    t.st[S_LUCK] = 1   # the luck covariates (X_LUCK, X_LUCK_OTHERS) are read by _record
    for k in range(2):
        for j in range(piles0.shape[1]):
            t.piles[k, j] = piles0[k, j]
    for s in range(P):
        t.scores[s] = scores0[s]
        t.turns[s] = 0
        t.at_finish[s, 0] = 0
        t.at_finish[s, 1] = -1
        t.luck[s] = 0.0
    for j in range(unknown0.shape[0]):
        t.unknown[j] = unknown0[j]


@jit
def _record(t, me, r, res, o):
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
            others += t.luck[s]
    o[X_LUCK] = t.luck[me]
    o[X_LUCK_OTHERS] = others


@jit
def _play_on(t, me, r, starter, rules, deck, deck_counts, res, order, rng_future, totals, win, o):
    """The later rounds of the game (``--horizon game``); writes X_GAME and X_WIN."""
    P = t.fd.shape[0]
    for s in range(P):
        t.scores[s] += res[r, s, F_SCORE]
    for r2 in range(r + 1, ROUNDS):
        starter2 = r2 % P if rules[R_ROTATE_START] != 0 else 0
        for j in range(deck.shape[0]):
            order[j] = deck[j]
        shuffle_prefix(rng_future, order, deck.shape[0])
        _setup_round(t, rules, r2, starter2, order, deck_counts)
        _play_round(t, rules, r2, starter2)
        _score_round(t, rules, r2, starter2, res)
        for s in range(P):
            t.scores[s] += res[r2, s, F_SCORE]
    o[X_GAME] = t.scores[me]
    for s in range(P):  # _settle_game sums the rounds: the earlier ones count as round 0
        done = t.scores[s]
        for r2 in range(r, ROUNDS):
            done -= res[r2, s, F_SCORE]
        for r2 in range(r):
            res[r2, s, F_SCORE] = done if r2 == 0 else 0
    _settle_game(P, res, totals, win)
    o[X_WIN] = win[me]


@jit
def _after_hazard(t, rules, r, starter, me, discarder, laps_left, flip):
    """The rest of the round from the player's hazard flip (``flip``: position or CHOICE_DECLINE):
    its flip, the flips of the seats after it, the end of the discarder's turn, the later turns."""
    P = t.fd.shape[0]
    _fill_pub(t, rules, discarder, r, starter)
    t.obs.pub[O_DRAWN] = HAZARD
    t.st[S_FORCE_FLIP] = flip + 1
    _hazard_flips(t, discarder, (me - discarder) % P)
    _play_turns(t, rules, r, starter, discarder, laps_left, True)


@jit(parallel=True, nrt=True)
def rollout_batch(first, seed, me, r, starter, laps_left, discarder, lay0, up0, piles0, st0, scores0, unknown0,
                  draw_top, unseen, slots, truth, options, kinds, params, seat_strategy, rules, deck,
                  deck_counts, horizon_game, crn, align, peek, out, cov):
    """Rollouts ``first + i`` for i in range(n), every option each, in parallel.

    lay0 int8[P, 9] / up0 int8[P, 9]  the layouts as seen (HIDDEN where face down) and face-up flags
    piles0 int8[2, N]; st0 int64[N_ST]; scores0 int64[P]; unknown0 int64[N_SLOTS]: the table's start
    draw_top   the card in hand when it came from the draw pile (put back on top), else NO_CARD
    unseen     int8[n_u]    the unseen multiset; slots int64[m, 2] the face-down (seat, position)s, the player's first,
                            dealt cards[:m] in this order, the draw pile cards[m:] top first
    truth      int8[n_u]    with ``peek``: the true cards in that order, used instead of a shuffle
    discarder  -1, or the seat whose hazard the player may now flip a card for (``laps_left``
               is then the discarder's: its turn is settled after the remaining flips)
    options    int64[K, 3]  (draw source, placement, hazard flip; -1: the policy) forced for the player
    align      with ``crn``: a pile option deals the blind-draw card to the draw pile's bottom
    out        float64[n, K, N_X];  cov float64[n, N_C]
    """
    n = out.shape[0]
    K = options.shape[0]
    P = lay0.shape[0]
    N = deck.shape[0]
    n_u = unseen.shape[0]
    m = slots.shape[0]
    n_draw = n_u - m
    for i in prange(n):
        t = new_table(P, N, kinds, params, seat_strategy, np.empty((0, 4), dtype=np.int32))
        cards = np.empty(n_u, dtype=np.int8)
        rng_det = np.empty(RNG_WORDS, dtype=np.uint64)
        rng_future = np.empty(RNG_WORDS, dtype=np.uint64)
        res = np.zeros((ROUNDS, P, N_FIELDS), dtype=np.int32)
        order = np.empty(N, dtype=np.int8)
        totals = np.zeros(P, dtype=np.int64)
        win = np.zeros(P, dtype=np.float64)
        idx = first + i
        for k in range(K):
            step = 0 if crn else (k + 1) * STREAM_OPTION_STEP
            if k == 0 or not crn:
                for j in range(n_u):
                    cards[j] = truth[j] if peek else unseen[j]
                if not peek:
                    seed_stream(rng_det, seed, idx, STREAM_DETERMINIZE + step)
                    shuffle_prefix(rng_det, cards, n_u)
                if k == 0:
                    cov[i, C_TOP] = cards[m] if n_draw > 0 else NO_CARD
                    for j in range(LAYOUT):
                        cov[i, C_OWN + j] = cards[j] if j < m and slots[j, 0] == me else NO_CARD
            _reset(t, st0, piles0, scores0, unknown0)
            # a draw decision's options that take a pile card: the blind card goes to the bottom
            first_last = align and draw_top == NO_CARD and options[k, 0] > 0
            _deal_hidden(t, lay0, up0, slots, cards, draw_top, n_draw, first_last)
            if options[k, 0] >= 0:
                t.st[S_FORCE_SRC] = options[k, 0] + 1
            if options[k, 1] >= 0:
                t.st[S_FORCE_POS] = options[k, 1] + 1
            seed_stream(t.rng, seed, idx, STREAM_ROLL_PLAY + step)
            if discarder >= 0:
                _after_hazard(t, rules, r, starter, me, discarder, laps_left, options[k, 2])
            else:
                _play_turns(t, rules, r, starter, me, laps_left, False)
            _score_round(t, rules, r, starter, res)
            o = out[i, k]
            _record(t, me, r, res, o)
            if horizon_game:
                seed_stream(rng_future, seed, idx, STREAM_ROLL_FUTURE + step)
                _play_on(t, me, r, starter, rules, deck, deck_counts, res, order, rng_future, totals, win, o)
            else:
                o[X_GAME] = scores0[me] + o[X_SCORE]
                o[X_WIN] = np.nan
