"""The Monte Carlo player's two decisions at one point of a game, with the hidden cards
optionally permuted first: what the information-hygiene test of ``mc`` compares; and
:func:`check_game`, which asks it every decision of a whole game twice (and :func:`check_game_value`, the
value player's).

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
from gnoming_sim.game.fields import F_SCORE, N_FIELDS
from gnoming_sim.game.rules import LAYOUT, R_MAX_TURNS, R_ROTATE_START, ROUNDS
from gnoming_sim.kernel.game_loop import decide_once, play_out_base, score_round, self_play_table, step_once
from gnoming_sim.kernel.jit import jit
from gnoming_sim.kernel.rng import seed_stream, shuffle_prefix
from gnoming_sim.kernel.policy.dispatch import KIND_MC, KIND_VALUE
from gnoming_sim.kernel.state import DEC_BOUNCE, DEC_HAZARD_FLIP, DEC_NONE, DEC_PLACE, DEC_SOURCE, \
    NOT_STALLED, RNG_WORDS, S_DEND, S_DPTR, S_FINISHER, S_HAND, S_PENDING, S_SEAT, S_SRC, S_STALLED
from gnoming_sim.kernel.step import start_round
from gnoming_sim.kernel.turn import begin_turn
from gnoming_sim.search.bot import COST_BOUNCE, COST_HAZARD, COST_PLACE, COST_SOURCE, N_COST, choose_placement, \
    choose_source, mc_answer
from gnoming_sim.search.value_player import value_answer


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


@jit(py=True, nrt=True)
def probe(game, seed, seat_strategy, kinds, params, rules, deck, deck_counts, turn, permute, peek, out):
    """Seat ``turn % P``'s answers at turn ``turn`` of round 0 of ``game`` (starter 0).

    ``out`` int64[3]: the draw source (-1: only the draw pile was legal), the placement (-1: no
    choice), the card placed; all -2 when the round ended before that turn.  ``permute`` != 0:
    the hidden cards are permuted (from stream ``permute``) before each decision, and put back
    after it, so the draw itself takes the true card.  ``peek``: the rollouts deal the true cards.
    """
    P = seat_strategy.shape[0]
    for i in range(out.shape[0]):
        out[i] = -2
    t, order = self_play_table(game, seed, P, kinds, params, seat_strategy, deck)
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
    step_once(t, rules, out[0] if out[0] >= 0 else decide_once(t, rules))
    if t.st[S_PENDING] != DEC_PLACE:   # the round stalled
        return
    card = t.st[S_HAND]
    if permute:
        _permute_hidden(t, permute + 1)
    out[1] = choose_placement(t, rules, s, card, t.st[S_SRC], peek)
    out[2] = card



@jit
def _cost_kind(kind):
    """The bot's COST_* of a pending decision kind, or -1 (never decided by rollouts)."""
    if kind == DEC_SOURCE:
        return COST_SOURCE
    if kind == DEC_PLACE:
        return COST_PLACE
    if kind == DEC_BOUNCE:
        return COST_BOUNCE
    if kind == DEC_HAZARD_FLIP:
        return COST_HAZARD
    return -1


@jit(inline="always")
def _check(game, seed, inputs, permute, peek, out, answer, family):
    """Play ``game`` (all rounds, starters as the game loop's) with ``answer`` (``(t, rules, peek)``: an answer,
    or -1) deciding for the seats of ``family``, and ask each of their decisions twice from the same random
    state: with every hidden card permuted (from stream ``permute`` + the decision's number), then on the true
    table, which is played on.

    ``out`` int64[2 * N_COST] (added to): per kind of decision (the bot's COST_*), the decisions the player
    took itself, then the ones whose two answers differed.  ``peek``: the rollouts deal the true cards.
    ``inputs``: (seat_strategy, kinds, params, rules, deck, deck_counts), as :func:`check_game` takes them.
    """
    seat_strategy, kinds, params, rules, deck, deck_counts = inputs
    P = seat_strategy.shape[0]
    t, order = self_play_table(game, seed, P, kinds, params, seat_strategy, deck)
    res = np.zeros((ROUNDS, P, N_FIELDS), dtype=np.int32)
    n = 0
    for r in range(ROUNDS):
        starter = r % P if rules[R_ROTATE_START] != 0 else 0
        start_round(t, rules, r, starter, order[r], deck_counts)
        while t.st[S_PENDING] != DEC_NONE:
            j = _cost_kind(t.st[S_PENDING])
            a = -1
            if j >= 0 and t.kinds[t.st[S_SEAT]] == family:
                lay = t.lay.copy()
                draw = t.draw.copy()
                rng = t.rng.copy()
                plan = t.memo.plan.copy()
                _permute_hidden(t, permute + n)
                other = answer(t, rules, peek)
                t.lay[:] = lay
                t.draw[:] = draw
                t.rng[:] = rng
                t.memo.plan[:] = plan
                a = answer(t, rules, peek)
                if a >= 0:
                    out[j] += 1
                if a != other:
                    out[N_COST + j] += 1
                n += 1
            step_once(t, rules, a if a >= 0 else decide_once(t, rules))
        score_round(t, rules, r, starter, res)
        for s in range(P):
            t.scores[s] += res[r, s, F_SCORE]


@jit(py=True, nrt=True)
def check_game(game, seed, seat_strategy, kinds, params, rules, deck, deck_counts, permute, peek, out):
    """:func:`_check` of the Monte Carlo bot's seats (``KIND_MC``, :func:`gnoming_sim.search.bot.mc_answer`)."""
    _check(game, seed, (seat_strategy, kinds, params, rules, deck, deck_counts), permute, peek, out, mc_answer, KIND_MC)


@jit(inline="always")
def _value_probe(t, rules, peek):
    return value_answer(t, rules)


@jit(py=True, nrt=True)
def check_game_value(game, seed, seat_strategy, kinds, params, rules, deck, deck_counts, permute, out):
    """:func:`_check` of the value player's seats (``KIND_VALUE``, :func:`gnoming_sim.search.value_player.value_answer`;
    ``rules`` with the deck's counts after them, as :func:`gnoming_sim.search.value_player.play_game_value` plays)."""
    _check(game, seed, (seat_strategy, kinds, params, rules, deck, deck_counts), permute, np.bool_(False), out,
           _value_probe, KIND_VALUE)