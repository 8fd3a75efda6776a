"""Training targets for the learned player: option features and their rollout values at self-play decisions.

:func:`collect_batch` plays one round of each of G games (round ``game % 3``, its starter rotating as
in a game) with the given seats, through the action-level API (:mod:`gnoming_sim.kernel.step`), and at
a random sample of the placement and draw-source decisions that have at least two legal answers it
writes, for every legal answer, the learned family's features (:mod:`gnoming_sim.kernel.policy.learned`,
from the decider's observation only) and the answer's value by Monte Carlo rollouts from that
observation (:func:`gnoming_sim.search.bot.option_values`: the mean over ``budget`` determinized
rollouts, common random numbers across the answers, of the decider's round score minus the mean of
the others', every seat playing the decider's own strategy inside the rollouts, a Monte Carlo
seat its base policy).  Then the seat's
own strategy decides and the round goes on.  Games are independent (own streams from (seed, game)),
so the targets are identical at any thread count.
"""
from __future__ import annotations

import numpy as np

from gnoming_sim.game.cards import NO_CARD
from gnoming_sim.game.observation import N_CHOICES, N_SOURCES, O_FINISHER, O_ME, O_PLAYERS, O_TOP0
from gnoming_sim.game.rules import LAYOUT, ROUNDS
from gnoming_sim.kernel.game_loop import decide_once, self_play_table, step_once
from gnoming_sim.kernel.jit import jit
from gnoming_sim.kernel.policy import heuristic as H
from gnoming_sim.kernel.policy import learned as L
from gnoming_sim.kernel.policy.dispatch import L_W0
from gnoming_sim.kernel.rng import seed_stream, uniform01
from gnoming_sim.kernel.state import DEC_NONE, DEC_PLACE, DEC_SOURCE, RNG_WORDS, S_HAND, S_PENDING, \
    S_SEAT, S_SRC, seat_params
from gnoming_sim.kernel.step import legal_actions, start_round
from gnoming_sim.search.bot import COST_PLACE, COST_SOURCE, option_values

STREAM_SAMPLE = 40   # which decisions are sampled (beside the games' and the rollouts' streams)


@jit(inline="always")
def sampled_round(game, seed, players, kinds, params, seats, deck, stream):
    """The table of self-play game ``game``, the round a target collector plays from it (``game % 3``), that
    round's deal order and the stream ``stream`` that samples its decisions: (t, r, order, srng)."""
    t, order = self_play_table(game, seed, players, kinds, params, seats, deck)
    srng = np.empty(RNG_WORDS, dtype=np.uint64)
    seed_stream(srng, seed, game, stream)
    r = game % ROUNDS
    return t, r, order[r], srng
NF = max(L.NF_P, L.NF_S)
MAX_OPTIONS = N_CHOICES


@jit(nrt=True)
def _option_features(t, rules, s, kind, opts, K, feats):
    """The learned features of answers ``opts[:K]`` of seat s's pending decision into ``feats[k]``."""
    obs = t.obs
    memo = t.memo
    prm = seat_params(t, s)
    pub = obs.pub
    eu = H.unseen_mean(obs, prm)
    if kind == DEC_SOURCE:
        w0 = L_W0 + L.size_bucket(pub[O_PLAYERS]) * L.N_WEIGHTS_ONE
        v0, v1, vd = L.source_values(prm, w0, obs, memo, t.legal)
        final = 1.0 if pub[O_FINISHER] >= 0 else 0.0
        my_fd = 1.0 * obs.fd[pub[O_ME]]
        for k in range(K):
            a = opts[k]
            if a == 0:
                L.source_features(memo.scratch, vd, True, final, my_fd, eu, NO_CARD)
            else:
                L.source_features(memo.scratch, v0 if a == 1 else v1, False, final, my_fd, eu, pub[O_TOP0 + a - 1])
            for j in range(L.NF_S):
                feats[k, j] = memo.scratch[L.FB + j]
        return
    H.prepare_me(prm, obs, memo, True)
    ctx = L.context(pub, obs.vis, obs.fd, eu)
    row = obs.vis[pub[O_ME]]
    card = t.st[S_HAND]
    for k in range(K):
        L.place_features(memo.scratch, prm, obs, memo.scratch, row, eu, opts[k], card, ctx)
        for j in range(L.NF_P):
            feats[k, j] = memo.scratch[L.FB + j]


@jit(nrt=True)
def collect_round(t, rules, r, starter, order, deck_counts, budget, p_sample, srng, out):
    """Play round r from ``order``; write up to ``cap`` sampled decisions into ``out`` = (feats
    float64[cap, MAX_OPTIONS, NF], vals float64[cap, MAX_OPTIONS], nopt, dkind, dseat int64[cap]); return
    how many."""
    feats, vals, nopt, dkind, dseat = out
    start_round(t, rules, r, starter, order, deck_counts)
    cap = feats.shape[0]
    n = 0
    opts = np.empty(MAX_OPTIONS, dtype=np.int64)
    while t.st[S_PENDING] != DEC_NONE:
        kind = t.st[S_PENDING]
        if n < cap and (kind == DEC_PLACE or kind == DEC_SOURCE) and uniform01(srng) < p_sample:
            s = t.st[S_SEAT]
            legal_actions(t, rules)
            K = np.int64(0)   # not a literal: the callees compile once
            last = N_SOURCES if kind == DEC_SOURCE else N_CHOICES
            for a in range(last):
                if t.legal[a]:
                    opts[K] = a
                    K += 1
            if K >= 2:
                _option_features(t, rules, s, kind, opts, K, feats[n])
                if kind == DEC_SOURCE:
                    v = option_values(t, rules, s, np.int64(COST_SOURCE), np.int64(NO_CARD), np.int64(-1), opts, K,
                                      budget)
                else:
                    v = option_values(t, rules, s, np.int64(COST_PLACE), t.st[S_HAND], t.st[S_SRC], opts, K, budget)
                for k in range(K):
                    vals[n, k] = v[k]
                nopt[n] = K
                dkind[n] = kind
                dseat[n] = s
                n += 1
        step_once(t, rules, decide_once(t, rules))
    return n


@jit(py=True, nrt=True)
def collect_batch(first_game, seed, players, kinds, params, seat_strategy, rules, deck, deck_counts, sampling,
                  out, span):
    """Round ``(first_game + i) % 3`` of game first_game + i, for rows i in ``span`` (lo, hi) of ``seat_strategy``
    (int16[G, P]); ``out`` = (feats float64[G, cap, MAX_OPTIONS, NF], vals float64[G, cap, MAX_OPTIONS],
    nopt int64[G, cap], dkind int64[G, cap], dseat int64[G, cap]).  Decisions are sampled with
    probability ``p_sample`` each, at most ``cap`` per game; ``sampling`` = (budget, p_sample)."""
    feats, vals, nopt, dkind, dseat = out
    budget, p_sample = sampling
    for i in range(span[0], span[1]):
        t, r, order, srng = sampled_round(first_game + i, seed, players, kinds, params, seat_strategy[i], deck,
                                          STREAM_SAMPLE)
        collect_round(t, rules, r, r % players, order, deck_counts, budget, p_sample, srng,
                      (feats[i], vals[i], nopt[i], dkind[i], dseat[i]))


def collect(players: int, strategies, games: int, seed: int, budget: int = 16, p_sample: float = 0.15,
            cap: int = 12, first_game: int = 0, rules=None, deck=None, threads: int | None = None) -> dict:
    """Sampled decisions of ``games`` rounds at ``players`` seats (one strategy or one per seat, seats
    rotating per game): ``{"kind", "players", "nopt", "feats", "vals"}``, one row per decision (the
    placement rows' features are ``feats[:, :, :NF_P]``, the source rows' ``feats[:, :, :NF_S]``)."""
    from gnoming_sim.game.deck import PUBLISHED
    from gnoming_sim.game.rules import RuleConfig
    from gnoming_sim.kernel.engine import deck_counts, numba_threads, seat_table, strategy_arrays
    from gnoming_sim.kernel.game_loop import run_blocks

    rules = rules or RuleConfig()
    deck = deck or PUBLISHED
    distinct, table = seat_table(players, strategies, games, first_game, rotate=True)
    kinds, params = strategy_arrays(distinct)
    deck_arr = deck.to_array()
    counts = deck_counts(deck_arr)
    out = (np.zeros((games, cap, MAX_OPTIONS, NF)), np.zeros((games, cap, MAX_OPTIONS)),
           np.zeros((games, cap), dtype=np.int64), np.zeros((games, cap), dtype=np.int64),
           np.zeros((games, cap), dtype=np.int64))
    seed, rules_arr = np.uint64(seed), rules.to_array()
    with numba_threads(threads):
        run_blocks(lambda lo, hi: collect_batch(first_game, seed, players, kinds, params, table, rules_arr, deck_arr,
                                                counts, (budget, p_sample), out, (lo, hi)), games, 1)
    feats, vals, nopt, dkind, _ = out
    keep = nopt.reshape(-1) > 0
    return {"kind": dkind.reshape(-1)[keep], "players": np.full(int(keep.sum()), players, dtype=np.int64),
            "nopt": nopt.reshape(-1)[keep], "feats": feats.reshape(-1, MAX_OPTIONS, NF)[keep],
            "vals": vals.reshape(-1, MAX_OPTIONS)[keep]}


__all__ = ["collect", "collect_batch", "collect_round", "NF", "MAX_OPTIONS", "LAYOUT"]
