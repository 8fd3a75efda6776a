"""The jitted game loop: complete 3-round games of Gnoming A Round (RULES.md §2-§6).

A round is set up (:mod:`.table`), played turn by turn (:mod:`.turn`) up to the last
final-lap turn or a stall, then revealed and scored here; a game is three rounds and
its settlement; :func:`play_batch` plays many games in parallel, each from its own streams
and with its own state record (:mod:`.state`).
"""

import numpy as np
from numba import prange

from gnoming_sim.game import trace as T
from gnoming_sim.game.fields import (
    F_BONUS,
    F_FACEDOWN_AT_FINISH,
    F_FINISH_TURN,
    F_FINISHER,
    F_HAZARDS,
    F_LINES,
    F_MATCHED,
    F_NEGATIVES,
    F_SCORE,
    F_STALLED,
    F_START_SEAT,
    F_TURNS,
    F_UNMATCHED,
    F_VISIBLE_AT_FINISH,
)
from gnoming_sim.game.rules import (
    R_EARLY_FINISH_BONUS,
    R_FINISHER_TIE_IS_LOWEST,
    R_MAX_TURNS,
    R_MULLIGANS_PER_LINE,
    R_ROTATE_START,
    ROUNDS,
)
from gnoming_sim.kernel.jit import jit
from gnoming_sim.kernel.rng import STREAM_DEAL, STREAM_PLAY, seed_stream, shuffle_prefix
from gnoming_sim.kernel.scoring import (
    P_HAZARDS,
    P_LINES,
    P_MATCHED,
    P_NEGATIVES,
    P_UNMATCHED,
    score_parts,
    visible_score,
)
from gnoming_sim.kernel.state import (
    N_ST,
    NOT_STALLED,
    RNG_WORDS,
    S_FINISH_TURN,
    S_FINISHER,
    S_STALLED,
    S_TURN,
    new_table,
)
from gnoming_sim.kernel.table import _emit, _setup_round
from gnoming_sim.kernel.turn import _play_turn

NO_SCORE = 1 << 30  # larger than any score: the start of a running minimum


# ----------------------------------------------------------------- a round, a game
@jit
def _play_round(t, rules, r, starter):
    """The turn loop of one round, up to the last final-lap turn or a stall."""
    P = t.fd.shape[0]
    for i in range(P):
        t.turns[i] = 0
        t.at_finish[i, 0] = 0
        t.at_finish[i, 1] = -1
    t.st[S_FINISH_TURN] = -1
    _play_turns(t, rules, r, starter, starter, -1, False)


@jit
def _play_turns(t, rules, r, starter, s, laps_left, played):
    """Play turns from seat s's turn to the last final-lap turn or a stall.

    ``laps_left``: -1 before anybody finished, else the turns left in the final lap
    (seat s's included).  ``played``: seat s's turn itself has been played already (a rollout
    entering after its last step, the hazard flips); only its end is settled here.
    A rollout (:mod:`.rollout`) enters here in the middle of a round.
    """
    P = t.fd.shape[0]
    st = t.st
    turns = t.turns
    at_finish = t.at_finish
    max_turns = rules[R_MAX_TURNS]
    while True:
        if played:
            played = False
            ok = True
        else:
            if st[S_TURN] >= max_turns:
                _emit(t, T.STALL, -1, T.STALL_MAX_TURNS, 0)
                st[S_STALLED] = T.STALL_MAX_TURNS
                return
            _emit(t, T.TURN, s, st[S_TURN], 1 if laps_left >= 0 else 0)
            turns[s] += 1
            ok = _play_turn(t, rules, s, r, starter)
        st[S_TURN] += 1
        if not ok:
            return
        if laps_left >= 0:
            laps_left -= 1
            if laps_left == 0:
                return
        elif t.fd[s] == 0:
            st[S_FINISHER] = s
            st[S_FINISH_TURN] = st[S_TURN] - 1
            _emit(t, T.FINISH, s, 0, 0)
            laps_left = P - 1
            mpl = rules[R_MULLIGANS_PER_LINE]
            for o in range(P):
                at_finish[o, 0] = visible_score(t.vis[o], mpl)
                at_finish[o, 1] = t.fd[o]
        s = (s + 1) % P


@jit
def _score_round(t, rules, r, starter, out):
    """Reveal every layout, score it, apply the early-finish bonus; write out[r, seat, F_*]."""
    P = t.fd.shape[0]
    st = t.st
    parts = t.parts
    mpl = rules[R_MULLIGANS_PER_LINE]
    stalled = st[S_STALLED] != NOT_STALLED
    finisher = st[S_FINISHER]  # kept when the final lap stalls; the bonus is not paid then
    for s in range(P):
        total = score_parts(t.lay[s], mpl, parts)
        o = out[r, s]
        o[F_SCORE] = total
        o[F_MATCHED] = parts[P_MATCHED]
        o[F_UNMATCHED] = parts[P_UNMATCHED]
        o[F_NEGATIVES] = parts[P_NEGATIVES]
        o[F_HAZARDS] = parts[P_HAZARDS]
        o[F_FINISHER] = 1 if s == finisher else 0
        o[F_BONUS] = 0
        o[F_TURNS] = t.turns[s]
        o[F_STALLED] = 1 if stalled else 0
        o[F_START_SEAT] = starter
        o[F_LINES] = parts[P_LINES]
        o[F_FINISH_TURN] = st[S_FINISH_TURN]
        o[F_VISIBLE_AT_FINISH] = t.at_finish[s, 0]
        o[F_FACEDOWN_AT_FINISH] = t.at_finish[s, 1]
    if finisher >= 0 and not stalled:
        mine = out[r, finisher, F_SCORE]
        best_other = NO_SCORE
        for s in range(P):
            if s != finisher and out[r, s, F_SCORE] < best_other:
                best_other = out[r, s, F_SCORE]
        lowest = mine < best_other or (mine == best_other and rules[R_FINISHER_TIE_IS_LOWEST] != 0)
        size = rules[R_EARLY_FINISH_BONUS]
        bonus = -size if lowest else size
        out[r, finisher, F_BONUS] = bonus
        out[r, finisher, F_SCORE] = mine + bonus


@jit
def _settle_game(P, out, totals, win):
    """Game totals; lowest wins, tie broken by the lowest round-3 score, then shared."""
    best = NO_SCORE
    for s in range(P):
        total = 0
        for r in range(ROUNDS):
            total += out[r, s, F_SCORE]
        totals[s] = total
        if total < best:
            best = total
    best3 = NO_SCORE
    for s in range(P):
        if totals[s] == best and out[ROUNDS - 1, s, F_SCORE] < best3:
            best3 = out[ROUNDS - 1, s, F_SCORE]
    k = 0
    for s in range(P):
        if totals[s] == best and out[ROUNDS - 1, s, F_SCORE] == best3:
            k += 1
    for s in range(P):
        win[s] = 1.0 / k if (totals[s] == best and out[ROUNDS - 1, s, F_SCORE] == best3) else 0.0


@jit
def deal_game(game, seed, deck, order, rng):
    """The deck order of each round of game ``game``: ``order`` int8[3, N], from its deal stream."""
    N = deck.shape[0]
    seed_stream(rng, seed, game, STREAM_DEAL)
    for r in range(ROUNDS):
        for i in range(N):
            order[r, i] = deck[i]
        shuffle_prefix(rng, order[r], N)


@jit(parallel=True, nrt=True)
def deal_batch(first_game, seed, deck, orders):
    """``orders[i]`` = the deals of game ``first_game + i`` (exactly those :func:`play_game` plays)."""
    for i in prange(orders.shape[0]):
        deal_game(first_game + i, seed, deck, orders[i], np.empty(RNG_WORDS, dtype=np.uint64))


@jit
def play_game(t, game, seed, rules, deck, deck_counts, order, use_given, out, totals, win):
    """Play one complete game on the state record ``t`` (:func:`gnoming_sim.kernel.state.new_table`).

    ``order`` int8[3, N]: the deck order of each round; it is filled from the game's deal
    stream unless ``use_given``.  ``out`` int32[3, P, N_FIELDS]; ``totals`` int32[P];
    ``win`` float64[P].  The contents of ``t`` on entry do not matter (every round resets them).
    """
    P = t.fd.shape[0]
    if not use_given:
        deal_game(game, seed, deck, order, t.rng)
    seed_stream(t.rng, seed, game, STREAM_PLAY)
    for i in range(N_ST):
        t.st[i] = 0
    for s in range(P):
        t.scores[s] = 0
    t.tn[0] = 0
    for r in range(ROUNDS):
        starter = r % P if rules[R_ROTATE_START] != 0 else 0
        _setup_round(t, rules, r, starter, order[r], deck_counts)
        _play_round(t, rules, r, starter)
        _score_round(t, rules, r, starter, out)
        _emit(t, T.ROUND_END, -1, r, 1 if t.st[S_STALLED] != NOT_STALLED else 0)
        for s in range(P):
            t.scores[s] += out[r, s, F_SCORE]
    _settle_game(P, out, totals, win)


@jit(parallel=True, nrt=True)
def play_batch(first_game, seed, P, seat_strategy, strat_kinds, strat_params, rules, deck,
               deck_counts, orders, use_given, out, totals, win, traces, trace_len):
    """Play games ``first_game + i`` for i in range(G), in parallel, each from its own streams.

    seat_strategy int16[G, P]   strategy index per seat
    strat_kinds   int64[S]      family of each strategy;  strat_params float64[S, N_PARAMS]
    orders        int8[G or 0, 3, N] deck orders: input if ``use_given``, else written (if G)
    out           int32[G, 3, P, N_FIELDS];  totals int32[G, P];  win float64[G, P]
    traces        int32[G or 0, cap, 4];     trace_len int64[G]

    Race freedom: each iteration allocates its game's whole mutable state with
    :func:`new_table` and writes only row i of the outputs; ``strat_kinds``, ``strat_params``,
    ``rules``, ``deck`` and ``deck_counts`` are shared and only read.
    """
    G = seat_strategy.shape[0]
    N = deck.shape[0]
    tracing = traces.shape[0] > 0
    for i in prange(G):
        if tracing:
            tr = traces[i]
        else:
            tr = np.empty((0, 4), dtype=np.int32)
        t = new_table(P, N, strat_kinds, strat_params, seat_strategy[i], tr)
        if orders.shape[0] > 0:
            order = orders[i]
        else:
            order = np.empty((ROUNDS, N), dtype=np.int8)
        play_game(t, first_game + i, seed, rules, deck, deck_counts, order, use_given, out[i], totals[i],
                  win[i])
        trace_len[i] = t.tn[0]
