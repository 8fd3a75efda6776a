"""0-ply evaluation: each option of the player's pending decision valued by the value network
(:mod:`gnoming_sim.kernel.value`) at the position it leads to, without rollouts.

An option's result often depends on a card nobody has seen (the card a blind draw turns up, the card a
placement reveals): its value is then the mean over the unseen cards.  Determinization i (from the stream
of ``(seed, first + i)``, common to every option, as a rollout's) deals the hidden cards; the option is
stepped through the game kernel (:func:`gnoming_sim.kernel.step.step`), the player's own decisions that
follow inside the same turn (a bounce the option leaves open, the discard pile) by the base policy, up to
the next decision of another seat; the value network then reads that seat's observation and gives every
seat's chance of winning, of which the player's own is kept.  A round the option ends is scored (the
next round dealt from the determinization's stream and valued at its first decision); a game it ends is
settled (the win credit itself).  The mean over ``n`` determinizations is the option's 0-ply value.
"""
from __future__ import annotations

import numpy as np

from gnoming_sim.game.cards import NO_CARD
from gnoming_sim.game.fields import F_SCORE, N_FIELDS
from gnoming_sim.game.rules import ROUNDS
from gnoming_sim.kernel.game_loop import score_round, settle_game
from gnoming_sim.kernel.jit import jit
from gnoming_sim.kernel.policy.dispatch import decide, new_memo
from gnoming_sim.kernel.rng import seed_stream, shuffle_prefix
from gnoming_sim.kernel.state import DEC_NONE, RNG_WORDS, S_PENDING, S_SEAT, new_table
from gnoming_sim.kernel.step import step
from gnoming_sim.kernel.value import HIDDEN_UNITS, MAX_SEATS, NI, evaluate
from gnoming_sim.search.rollout import (STREAM_DETERMINIZE, STREAM_ROLL_FUTURE, STREAM_ROLL_PLAY, deal_round,
                                        option_action)
from gnoming_sim.search.start import enter

# ``out[i, k, Z_*]``: what determinization i of option k gives the player
Z_WIN = 0        # the chance of winning the game (the value network's, or the credit of a settled game)
Z_MARGIN = 1     # the expected final game score against the table's mean, points (lower is better)
N_Z = 2


@jit
def to_next_decision(t, rules, me, src, pos, flip):
    """Step the option (``src``, ``pos``, ``flip``: -1, the base policy's answer) and the player's own
    decisions after it, up to the next decision of another seat or the round's end."""
    st = t.st
    while st[S_PENDING] != DEC_NONE and st[S_SEAT] == me:
        a, src, pos, flip = option_action(st[S_PENDING], src, pos, flip)
        step(t, rules, a if a >= 0 else decide(t, rules))


@jit(nrt=True)
def workspace(P, N):
    """(res, order, totals, credit, x, h, slots, win, margin, rng): what valuing a table needs."""
    return (np.zeros((ROUNDS, P, N_FIELDS), dtype=np.int32), np.empty(N, dtype=np.int8), np.zeros(P, dtype=np.int32),
            np.zeros(P, dtype=np.float64), np.zeros((MAX_SEATS, NI)), np.zeros(HIDDEN_UNITS), np.zeros((2, MAX_SEATS)),
            np.zeros(MAX_SEATS), np.zeros(MAX_SEATS), np.empty(RNG_WORDS, dtype=np.uint64))


@jit
def value_after(t, rules, start, roll, w, seed, idx, ws, o):
    """The player's value where the table now stands (``o[Z_WIN]``, ``o[Z_MARGIN]``): the value network at the
    pending decision; at the round's end the round scored and the next round (dealt from the stream of
    ``(seed, idx)``) valued at its first decision; at the game's end the game settled."""
    res, order, totals, credit, x, h, slots, win, margin, rng = ws
    P = t.fd.shape[0]
    me = start.me
    r = start.r
    if t.st[S_PENDING] != DEC_NONE:
        evaluate(t.obs, w, x, h, slots, win, margin)
        o[Z_WIN] = win[me]
        o[Z_MARGIN] = margin[me]
        return
    score_round(t, rules, r, start.starter, res)
    for s in range(P):
        t.scores[s] += res[r, s, F_SCORE]
    if r + 1 < ROUNDS:
        seed_stream(rng, seed, idx, STREAM_ROLL_FUTURE)
        deal_round(t, roll, r + 1, order, rng)
        evaluate(t.obs, w, x, h, slots, win, margin)
        o[Z_WIN] = win[me]
        o[Z_MARGIN] = margin[me]
        return
    for s in range(P):   # settle_game sums the rounds: the game so far counts as round 0
        res[0, s, F_SCORE] = t.scores[s] - res[ROUNDS - 1, s, F_SCORE]
        for r2 in range(1, ROUNDS - 1):
            res[r2, s, F_SCORE] = 0
    settle_game(P, res, totals, credit)
    mean = 0.0
    for s in range(P):
        mean += totals[s] / P
    o[Z_WIN] = credit[me]
    o[Z_MARGIN] = totals[me] - mean


@jit(nrt=True)
def _one(first, seed, start, roll, w, i, out):
    """Determinization ``first + i`` of every option into ``out[i]``."""
    options = roll.options
    K = options.shape[0]
    P = start.vis0.shape[0]
    N = roll.deck.shape[0]
    rules = roll.rules
    unseen = start.unseen
    n_u = unseen.shape[0]
    me = start.me
    r = start.r
    t = new_table(P, N, roll.kinds, roll.params, roll.seat_strategy, np.empty((0, 4), dtype=np.int32), new_memo())
    cards = np.empty(n_u, dtype=np.int8)
    ws = workspace(P, N)
    rng = ws[9]
    idx = first + i
    for j in range(n_u):
        cards[j] = unseen[j]
    seed_stream(rng, seed, idx, STREAM_DETERMINIZE)
    shuffle_prefix(rng, cards, n_u)
    for k in range(K):
        enter(t, rules, start, cards, roll.align and start.draw_top == NO_CARD and options[k, 0] > 0)
        seed_stream(t.rng, seed, idx, STREAM_ROLL_PLAY)
        to_next_decision(t, rules, me, options[k, 0], options[k, 1], options[k, 2])
        value_after(t, rules, start, roll, w, seed, idx, ws, out[i, k])


@jit(py=True, nrt=True)
def zero_ply_batch(first, seed, start, roll, w, out):
    """Determinizations ``first + i`` for i in range(n) of every option (``out`` float64[n, K, N_Z])."""
    for i in range(out.shape[0]):
        _one(first, seed, start, roll, w, i, out)


@jit(py=True, nrt=True)
def value_here(start, roll, w, win, margin):
    """Every seat's value-network answer at the position itself (``win``/``margin`` float64[MAX_SEATS] by
    seat); the hidden cards are dealt in any order, since the network reads only the observation."""
    P = start.vis0.shape[0]
    t = new_table(P, roll.deck.shape[0], roll.kinds, roll.params, roll.seat_strategy, np.empty((0, 4), dtype=np.int32),
                  new_memo())
    cards = start.unseen.copy()
    enter(t, roll.rules, start, cards, False)
    x = np.zeros((MAX_SEATS, NI))
    h = np.zeros(HIDDEN_UNITS)
    slots = np.zeros((2, MAX_SEATS))
    return evaluate(t.obs, w, x, h, slots, win, margin)


__all__ = ["zero_ply_batch", "value_here", "to_next_decision", "value_after", "workspace", "Z_WIN", "Z_MARGIN", "N_Z"]
