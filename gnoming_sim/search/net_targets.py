"""Training targets for the net player: every legal placement's inputs and its rollout value.

As :mod:`gnoming_sim.search.targets` (the learned player's), for the net family
(:mod:`gnoming_sim.kernel.policy.net`): :func:`collect_batch` plays one round of each of G games (round
``game % 3``, its starter rotating as in a game) with the given seats, and at a random sample of the
placement decisions with at least two legal answers writes, for every legal answer, the net's inputs
(:func:`gnoming_sim.kernel.policy.net.option_inputs`, from the decider's observation only: the learned
features and the decision's context, the rules options included) and the answer's value by ``budget``
Monte Carlo rollouts from that observation (:func:`gnoming_sim.search.bot.option_values`: hidden cards
dealt at random, common random numbers across the answers, every seat playing the decider's own
strategy inside the rollouts, a Monte Carlo seat its base policy).  With ``source``, the draw-source
decisions instead: every answer the source head values (:func:`gnoming_sim.kernel.policy.net_source.source_inputs`)
and its value by rollouts.  Games are independent (own streams from (seed, game)), so the targets are
identical at any thread count.
"""
from __future__ import annotations

import numpy as np

from gnoming_sim.game.cards import NO_CARD
from gnoming_sim.game.observation import N_CHOICES, N_SOURCES
from gnoming_sim.kernel.game_loop import decide_once, step_once
from gnoming_sim.kernel.jit import jit
from gnoming_sim.kernel.policy import net as NN
from gnoming_sim.kernel.policy import net_source as NSRC
from gnoming_sim.kernel.policy.dispatch import L_W0, N_W0
from gnoming_sim.kernel.rng import uniform01
from gnoming_sim.kernel.state import DEC_NONE, DEC_PLACE, DEC_SOURCE, S_HAND, S_PENDING, S_SEAT, S_SRC, seat_params
from gnoming_sim.kernel.step import legal_actions, start_round
from gnoming_sim.search.bot import COST_PLACE, COST_SOURCE, decision_key, option_values
from gnoming_sim.search.targets import sampled_round

STREAM_SAMPLE = 41   # which decisions are sampled (apart from the learned targets' stream, 40)
MAX_OPTIONS = N_CHOICES


@jit(nrt=True)
def collect_round(t, rules, r, starter, order, deck_counts, budget, p_sample, srng, out, source):
    """Play round r from ``order``; write up to ``cap`` sampled placements (``source``: draw-source decisions
    instead) into ``out`` = (inputs float64[cap, MAX_OPTIONS, NI or NIS], vals float64[cap, MAX_OPTIONS],
    nopt int64[cap]); return how many.  ``budget`` 0: no rollouts (``vals`` left as they are), each sampled
    decision drawing only the key its rollouts would draw from the game's stream (:func:`decision_key`), so the
    round goes on as a gather's did: a replay (:func:`replay`)."""
    inputs, vals, nopt = out
    start_round(t, rules, r, starter, order, deck_counts)
    cap = inputs.shape[0]
    n = 0
    opts = np.empty(MAX_OPTIONS, dtype=np.int64)
    want = DEC_SOURCE if source else DEC_PLACE
    while t.st[S_PENDING] != DEC_NONE:
        if n < cap and t.st[S_PENDING] == want and uniform01(srng) < p_sample:
            s = t.st[S_SEAT]
            legal_actions(t, rules)
            K = np.int64(0)   # not a literal: the callees compile once
            if source:
                # the answers the source head values (not a pile's mulligan that cannot be kept)
                valued = NSRC.source_inputs(seat_params(t, s), L_W0, t.obs, t.memo, t.legal, np.bool_(True),
                                             np.bool_(True))
                for a in range(N_SOURCES):
                    if t.legal[a] and valued & (1 << a):
                        opts[K] = a
                        K += 1
            else:
                for a in range(N_CHOICES):
                    if t.legal[a]:
                        opts[K] = a
                        K += 1
            if K >= 2:
                if source:
                    NSRC.source_option_inputs(seat_params(t, s), L_W0, t.obs, t.memo, t.legal, opts, K, inputs[n],
                                              np.bool_(True))
                    mode, card, src = np.int64(COST_SOURCE), np.int64(NO_CARD), np.int64(-1)
                else:
                    NN.option_inputs(seat_params(t, s), N_W0, t.obs, t.memo, int(t.st[S_HAND]), np.bool_(False), opts,
                                     K, inputs[n])
                    mode, card, src = np.int64(COST_PLACE), np.int64(t.st[S_HAND]), np.int64(t.st[S_SRC])
                if budget > 0:
                    v = option_values(t, rules, s, mode, card, src, opts, K, budget)
                    for k in range(K):
                        vals[n, k] = v[k]
                else:
                    decision_key(t)
                nopt[n] = K
                n += 1
        step_once(t, rules, decide_once(t, rules))
    return n


@jit(py=True, nrt=True)
def collect_batch(first_game, seed, players, kinds, params, seat_strategy, rules, deck, deck_counts, sampling,
                  out, span):
    """Round ``(first_game + i) % 3`` of game first_game + i, for rows i in ``span`` (lo, hi) of ``seat_strategy``
    (int16[G, P]); ``out`` = (inputs float64[G, cap, MAX_OPTIONS, NI or NIS], vals float64[G, cap, MAX_OPTIONS],
    nopt int64[G, cap]); ``sampling`` = (budget, p_sample, source), ``source`` true for the draw-source
    decisions instead of placements."""
    inputs, vals, nopt = out
    budget, p_sample, source = sampling
    for i in range(span[0], span[1]):
        t, r, order, srng = sampled_round(first_game + i, seed, players, kinds, params, seat_strategy[i], deck,
                                          STREAM_SAMPLE)
        collect_round(t, rules, r, r % players, order, deck_counts, budget, p_sample, srng,
                      (inputs[i], vals[i], nopt[i]), source)


def replay(players: int, strategies, games: int, seed: int, p_sample: float = 0.3, cap: int = 12,
           first_game: int = 0, rules=None, threads: int | None = None) -> dict:
    """The sampled placements of :func:`collect` with the same arguments (and the same strategies: the teacher
    that played them), without their rollout values (:func:`collect` with ``budget`` 0): ``{"nopt", "inputs"}``
    under the current kernel.  A gather's positions are not stored, only its inputs: this rebuilds them, so a new
    input can be added to the rows of an old gather without gathering again."""
    d = collect(players, strategies, games, seed, budget=0, p_sample=p_sample, cap=cap, first_game=first_game,
                rules=rules, threads=threads)
    return {"nopt": d["nopt"], "inputs": d["inputs"]}


def collect(players: int, strategies, games: int, seed: int, budget: int = 16, p_sample: float = 0.3,
            cap: int = 12, first_game: int = 0, rules=None, deck=None, threads: int | None = None,
            source: bool = False) -> dict:
    """Sampled placements (``source``: draw-source decisions) of ``games`` rounds at ``players`` seats (one
    strategy or one per seat, seats rotating per game): ``{"players", "nopt", "inputs", "vals"}``, one row per
    decision (``inputs`` float64[n, MAX_OPTIONS, NI or NIS], ``vals`` float64[n, MAX_OPTIONS]; answers past
    ``nopt`` are zeros)."""
    from gnoming_sim.game.deck import PUBLISHED
    from gnoming_sim.game.rules import RuleConfig
    from gnoming_sim.kernel.engine import deck_counts, numba_threads, seat_table, strategy_arrays
    from gnoming_sim.kernel.game_loop import run_blocks

    rules = rules or RuleConfig()
    deck = deck or PUBLISHED
    distinct, table = seat_table(players, strategies, games, first_game, rotate=True)
    kinds, params = strategy_arrays(distinct)
    deck_arr = deck.to_array()
    ni = NN.NIS if source else NN.NI
    out = (np.zeros((games, cap, MAX_OPTIONS, ni)), np.zeros((games, cap, MAX_OPTIONS)),
           np.zeros((games, cap), dtype=np.int64))
    seed, rules_arr, counts = np.uint64(seed), rules.to_array(), deck_counts(deck_arr)
    with numba_threads(threads):
        run_blocks(lambda lo, hi: collect_batch(first_game, seed, players, kinds, params, table, rules_arr, deck_arr,
                                                counts, (budget, p_sample, np.bool_(source)), out, (lo, hi)),
                   games, 1)
    inputs, vals, nopt = out
    keep = nopt.reshape(-1) > 0
    return {"players": np.full(int(keep.sum()), players, dtype=np.int64), "nopt": nopt.reshape(-1)[keep],
            "inputs": inputs.reshape(-1, MAX_OPTIONS, ni)[keep], "vals": vals.reshape(-1, MAX_OPTIONS)[keep]}


__all__ = ["collect", "collect_batch", "collect_round", "replay", "MAX_OPTIONS"]
