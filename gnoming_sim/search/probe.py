"""The Monte Carlo player's two decisions at one point of a game, with the hidden cards
optionally permuted first: what the information-hygiene test of ``mc`` compares.

:func:`probe` plays round 0 of a game with the base decision function up to a given turn (the MC seats
play their base policy until then), and asks the seat to move for its draw source and, after
the draw, its placement — each time on the true table or on one whose hidden cards (every
face-down card, its own included, and the draw pile) were permuted.  Everything else,
the game's random stream included, is the same, so a player that sees only what it should
answers the same on both.
"""
from __future__ import annotations

import numpy as np

from gnoming_sim.game import trace as T
from gnoming_sim.game.rules import LAYOUT, R_MAX_TURNS, ROUNDS
from gnoming_sim.kernel.game_loop import deal_game, play_out_base
from gnoming_sim.kernel.jit import jit
from gnoming_sim.kernel.rng import STREAM_PLAY, seed_stream, shuffle_prefix
from gnoming_sim.kernel.policy.dispatch import decide, new_memo
from gnoming_sim.kernel.state import DEC_PLACE, N_ST, NOT_STALLED, RNG_WORDS, S_DEND, S_DPTR, S_FINISHER, S_HAND, \
    S_PENDING, S_SRC, S_STALLED, new_table
from gnoming_sim.kernel.step import start_round, step
from gnoming_sim.kernel.turn import begin_turn
from gnoming_sim.search.bot import choose_placement, choose_source


@jit(nrt=True)
def _permute_hidden(t, key):
    """Permute the face-down cards of every layout and the draw pile among themselves."""
    P = t.fd.shape[0]
    m = 0
    for o in range(P):
        m += t.fd[o]
    d0 = t.st[S_DPTR]
    n = m + t.st[S_DEND] - d0
    cards = np.empty(n, dtype=np.int8)
    j = 0
    for o in range(P):
        for q in range(LAYOUT):
            if t.up[o, q] == 0:
                cards[j] = t.lay[o, q]
                j += 1
    for i in range(n - m):
        cards[m + i] = t.draw[d0 + i]
    rng = np.empty(RNG_WORDS, dtype=np.uint64)
    seed_stream(rng, key, 0, 0)
    shuffle_prefix(rng, cards, n)
    j = 0
    for o in range(P):
        for q in range(LAYOUT):
            if t.up[o, q] == 0:
                t.lay[o, q] = cards[j]
                j += 1
    for i in range(n - m):
        t.draw[d0 + i] = cards[m + i]


@jit(nrt=True)
def probe(game, seed, seat_strategy, kinds, params, rules, deck, deck_counts, turn, permute, peek, out):
    """Seat ``turn % P``'s answers at turn ``turn`` of round 0 of ``game`` (starter 0).

    ``out`` int64[3]: the draw source (-1: only the draw pile was legal), the placement (-1: no
    choice), the card placed; all -2 when the round ended before that turn.  ``permute`` != 0:
    the hidden cards are permuted (from stream ``permute``) before each decision, and put back
    after it, so the draw itself takes the true card.  ``peek``: the rollouts deal the true cards.
    """
    P = seat_strategy.shape[0]
    N = deck.shape[0]
    for i in range(out.shape[0]):
        out[i] = -2
    t = new_table(P, N, kinds, params, seat_strategy, np.empty((0, 4), dtype=np.int32), new_memo())
    order = np.empty((ROUNDS, N), dtype=np.int8)
    deal_game(game, seed, deck, order, t.rng)
    seed_stream(t.rng, seed, game, STREAM_PLAY)
    for i in range(N_ST):
        t.st[i] = 0
    stop = rules.copy()
    stop[R_MAX_TURNS] = turn
    start_round(t, stop, 0, 0, order[0], deck_counts)
    play_out_base(t, stop)
    if t.st[S_FINISHER] >= 0 or t.st[S_STALLED] != T.STALL_MAX_TURNS:
        return
    t.st[S_STALLED] = NOT_STALLED
    s = turn % P
    lay = t.lay.copy()
    draw = t.draw.copy()
    rng = t.rng.copy()
    begin_turn(t, rules, s)
    if permute:
        _permute_hidden(t, permute)
    out[0] = choose_source(t, rules, s, peek)
    t.lay[:] = lay
    t.draw[:] = draw
    t.rng[:] = rng
    step(t, rules, out[0] if out[0] >= 0 else decide(t, rules))
    if t.st[S_PENDING] != DEC_PLACE:   # the round stalled
        return
    card = t.st[S_HAND]
    if permute:
        _permute_hidden(t, permute + 1)
    out[1] = choose_placement(t, rules, s, card, t.st[S_SRC], peek)
    out[2] = card

