"""Training data of the value network (:mod:`gnoming_sim.kernel.value`): positions of self-play games and
how each game ended.

:func:`collect` plays whole games (every round, the starter rotating as in a game) through the action-level
API (:mod:`gnoming_sim.kernel.step`) with the given seats, and at a random sample of the pending decisions
(each with probability ``p_sample``, at most ``cap`` a game, drawn from a stream of its own) writes the value
network's inputs from the deciding seat's observation alone.  When the game is settled every sampled
position gets each slot's win credit (shared wins split) and final game score against the table's mean.
Games draw from their own streams (seed, game): the data do not depend on the thread count.
"""
from __future__ import annotations

import numpy as np

from gnoming_sim.game.fields import F_SCORE, N_FIELDS
from gnoming_sim.game.rules import R_ROTATE_START, ROUNDS
from gnoming_sim.kernel.game_loop import decide_once, score_round, self_play_table, settle_game, step_once
from gnoming_sim.kernel.jit import jit
from gnoming_sim.kernel.rng import seed_stream, uniform01
from gnoming_sim.kernel.state import DEC_NONE, RNG_WORDS, S_PENDING, S_SEAT
from gnoming_sim.kernel.step import start_round
from gnoming_sim.kernel.value import MAX_SEATS, NI, features

STREAM_VALUE_SAMPLE = 41   # which decisions are sampled (beside the games' own streams)


@jit(nrt=True)
def collect_game(g, i, p_sample, x, win, total, seat_of):
    """Play game ``g.first_game + i`` of ``g`` (:class:`gnoming_sim.kernel.game_loop.Games`); sample its positions
    into ``x[:n]`` (float32[cap, MAX_SEATS, NI]) and their outcomes into ``win[:n]``, ``total[:n]``
    (float32[cap, MAX_SEATS], slot order); ``seat_of[:n]`` the deciding seat.  Returns n."""
    P = g.players
    rules = g.rules
    game = g.first_game + i
    t, order = self_play_table(game, g.seed, P, g.kinds, g.params, g.seat_strategy[i], g.deck)
    srng = np.empty(RNG_WORDS, dtype=np.uint64)
    seed_stream(srng, g.seed, game, STREAM_VALUE_SAMPLE)
    res = np.zeros((ROUNDS, P, N_FIELDS), dtype=np.int32)
    totals = np.zeros(P, dtype=np.int32)
    credit = np.zeros(P, dtype=np.float64)
    buf = np.zeros((MAX_SEATS, NI), dtype=np.float64)
    cap = x.shape[0]
    n = 0
    for r in range(ROUNDS):
        starter = r % P if rules[R_ROTATE_START] != 0 else 0
        start_round(t, rules, r, starter, order[r], g.deck_counts)
        while t.st[S_PENDING] != DEC_NONE:
            if n < cap and uniform01(srng) < p_sample:
                features(t.obs, buf)
                for i in range(P):
                    for k in range(NI):
                        x[n, i, k] = buf[i, k]
                seat_of[n] = t.st[S_SEAT]
                n += 1
            step_once(t, rules, decide_once(t, rules))
        score_round(t, rules, r, starter, res)
        for s in range(P):
            t.scores[s] += res[r, s, F_SCORE]
    settle_game(P, res, totals, credit)
    mean = 0.0
    for s in range(P):
        mean += totals[s] / P
    for j in range(n):
        me = seat_of[j]
        for i in range(P):
            s = (me + i) % P
            win[j, i] = credit[s]
            total[j, i] = totals[s] - mean
    return n


@jit(py=True, nrt=True)
def collect_batch(g, p_sample, out, lo, hi):
    """Games ``g.first_game + i`` of ``g`` (:class:`gnoming_sim.kernel.game_loop.Games`) for i in ``lo .. hi - 1``;
    ``out`` = (x float32[G, cap, MAX_SEATS, NI], win, total float32[G, cap, MAX_SEATS], seat int64[G, cap],
    n int64[G])."""
    x, win, total, seat, count = out
    for i in range(lo, hi):
        count[i] = collect_game(g, i, p_sample, x[i], win[i], total[i], seat[i])


def collect(players: int, strategies, games: int, seed: int, p_sample: float = 0.05, cap: int = 12,
            first_game: int = 0, rules=None, deck=None, threads: int | None = None) -> dict:
    """Sampled positions of ``games`` whole games at ``players`` seats (one strategy or one per seat, seats
    rotating per game): ``{"players", "game", "x", "win", "total"}``, one row per position (``x``
    float32[n, MAX_SEATS, NI] padded with zeros past the table; ``win``/``total`` float32[n, MAX_SEATS] by
    slot: the observer first, then the seats to its left)."""
    from gnoming_sim.kernel.engine import batch_record, numba_threads
    from gnoming_sim.kernel.game_loop import run_blocks

    g, _ = batch_record(players, strategies, games, seed, rules, deck, first_game, rotate=True)
    out = (np.zeros((games, cap, MAX_SEATS, NI), dtype=np.float32),
           np.zeros((games, cap, MAX_SEATS), dtype=np.float32), np.zeros((games, cap, MAX_SEATS), dtype=np.float32),
           np.zeros((games, cap), dtype=np.int64), np.zeros(games, dtype=np.int64))
    with numba_threads(threads):
        run_blocks(lambda lo, hi: collect_batch(g, p_sample, out, lo, hi), games, 64)
    x, win, total, _, count = out
    keep = np.arange(cap)[None, :] < count[:, None]
    game = np.broadcast_to(np.arange(first_game, first_game + games)[:, None], keep.shape)
    return {"players": np.full(int(keep.sum()), players, dtype=np.int8), "game": game[keep].astype(np.int64),
            "x": x[keep], "win": win[keep], "total": total[keep]}


__all__ = ["collect", "collect_batch", "collect_game"]
