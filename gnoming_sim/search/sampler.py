"""The self-play sampler: play games, sample their decisions from a stream of their own, write what a data set
keeps of each.

:func:`sample_game` plays the round ``game % 3`` of a self-play game (its starter rotating as in a game), or the
whole game, through the action-level API (:mod:`gnoming_sim.kernel.step`).  At each pending decision a data set's
``chance`` names a candidate and its chance; a candidate is sampled by one draw from the data set's stream and
handed to its ``write``; then the seat's own strategy decides.  Games draw from their own streams (seed, game), so
every data set is the same at any thread count.  A jitted function passed to a compiled call is a dynamic global,
which numba's cache refuses (:mod:`gnoming_sim.kernel.game_loop`): :func:`sample_game` is inlined into each data
set's batch kernel, which names its ``chance`` and ``write``.  The data sets:

* :func:`learned_targets`: at sampled placements and draw sources with two legal answers or more, every answer's
  learned features (:mod:`gnoming_sim.kernel.policy.learned`) and its value by :func:`rollout_values`;
* :func:`net_targets`: the same for the net's inputs (:func:`gnoming_sim.kernel.policy.net.option_inputs`, the
  rules options included), placements or, with ``source``, draw sources (the answers the source head values);
  :func:`net_replay` the same decisions without their rollouts;
* :func:`value_positions`: whole games, the value network's inputs (:mod:`gnoming_sim.kernel.value`) at any sampled
  decision, and once the game is settled each slot's win credit and final game score against the table's mean;
* the card's records (:mod:`gnoming_sim.search.card_samples`).

Every input is read from the decider's observation only.
"""
from __future__ import annotations

import numpy as np

from gnoming_sim.game.cards import NO_CARD
from gnoming_sim.game.fields import F_SCORE, N_FIELDS
from gnoming_sim.game.observation import N_CHOICES, N_SOURCES, O_FINISHER, O_ME, O_PLAYERS, O_TOP0
from gnoming_sim.game.rules import R_ROTATE_START, ROUNDS
from gnoming_sim.kernel.game_loop import decide_once, score_round, self_play_table, settle_game, step_once
from gnoming_sim.kernel.jit import jit
from gnoming_sim.kernel.policy import heuristic as H
from gnoming_sim.kernel.policy import learned as L
from gnoming_sim.kernel.policy import net as NN
from gnoming_sim.kernel.policy import net_source as NSRC
from gnoming_sim.kernel.policy.dispatch import L_W0, N_W0
from gnoming_sim.kernel.rng import seed_stream, uniform01
from gnoming_sim.kernel.state import DEC_NONE, DEC_PLACE, DEC_SOURCE, RNG_WORDS, S_HAND, S_PENDING, S_SEAT, \
    S_SRC, seat_params
from gnoming_sim.kernel.step import legal_actions, start_round
from gnoming_sim.kernel.value import MAX_SEATS, NI, features
from gnoming_sim.search.bot import COST_PLACE, COST_SOURCE, decision_key, option_values

# each data set's sampling stream (beside the games' and the rollouts' streams)
STREAM_LEARNED = 40
STREAM_NET = 41
STREAM_VALUE = 41
NF = max(L.NF_P, L.NF_S)
MAX_OPTIONS = N_CHOICES


@jit(inline="always")
def sample_game(g, i, whole, stream, chance, write, sampling, out):
    """Play game ``g.first_game + i`` of ``g`` (:class:`gnoming_sim.kernel.game_loop.Games`): its round ``game % 3``
    (starter ``round % players``), or with ``whole`` its three rounds (starters as the rules say), each scored into
    ``res`` int32[3, P, N_FIELDS]; returns (n, res).  While fewer than ``out[0].shape[1]`` decisions are written,
    each pending one with ``chance(t, rules, sampling)`` p >= 0 is sampled with probability p (-1: not a candidate,
    nothing drawn) and ``write(t, rules, sampling, out, i, n, game)`` writes row n of game i, returning the new n."""
    P = g.players
    rules = g.rules
    game = g.first_game + i
    t, order = self_play_table(game, g.seed, P, g.kinds, g.params, g.seat_strategy[i], g.deck)
    srng = np.empty(RNG_WORDS, dtype=np.uint64)
    seed_stream(srng, g.seed, game, stream)
    res = np.zeros((ROUNDS, P, N_FIELDS), dtype=np.int32)
    cap = out[0].shape[1]
    n = 0
    for r in range(ROUNDS):
        if whole:
            starter = r % P if rules[R_ROTATE_START] != 0 else 0
        elif r == game % ROUNDS:
            starter = r % P
        else:
            continue
        start_round(t, rules, r, starter, order[r], g.deck_counts)
        while t.st[S_PENDING] != DEC_NONE:
            if n < cap:
                p = chance(t, rules, sampling)
                if p >= 0.0 and uniform01(srng) < p:
                    n = write(t, rules, sampling, out, i, n, game)
            step_once(t, rules, decide_once(t, rules))
        score_round(t, rules, r, starter, res)
        for s in range(P):
            t.scores[s] += res[r, s, F_SCORE]
    return n, res


def sample(batch, players, strategies, games, seed, first_game, rules, deck, threads, sampling, out, block=1):
    """Run ``batch(g, sampling, out, lo, hi)`` over ``games`` self-play games (one strategy or one per seat, the
    seats rotating per game), filling ``out``."""
    from gnoming_sim.kernel.engine import batch_record, numba_threads
    from gnoming_sim.kernel.game_loop import run_blocks

    g, _ = batch_record(players, strategies, games, seed, rules, deck, first_game, rotate=True)
    with numba_threads(threads):
        run_blocks(lambda lo, hi: batch(g, sampling, out, lo, hi), games, block)


def _rows(players, nopt, **arrays):
    """The written rows (``nopt`` > 0) of ``arrays`` (first two axes game, row), ``players`` and ``nopt`` first."""
    keep = nopt.reshape(-1) > 0
    return dict(players=np.full(int(keep.sum()), players, dtype=np.int64), nopt=nopt.reshape(-1)[keep],
                **{k: a.reshape(-1, *a.shape[2:])[keep] for k, a in arrays.items()})


# ------------------------------------------------------------------ the learned player's targets
@jit
def _learned_chance(t, rules, sampling):
    kind = t.st[S_PENDING]
    return sampling[1] if kind == DEC_PLACE or kind == DEC_SOURCE else -1.0


@jit(nrt=True)
def _learned_features(t, s, kind, opts, K, feats):
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
def _legal_answers(t, rules, last):
    """(opts, K): the legal answers below ``last`` of the pending decision."""
    legal_actions(t, rules)
    opts = np.empty(MAX_OPTIONS, dtype=np.int64)
    K = np.int64(0)   # not a literal: the callees compile once
    for a in range(last):
        if t.legal[a]:
            opts[K] = a
            K += 1
    return opts, K


@jit(nrt=True)
def rollout_values(t, rules, opts, K, budget, roll_kind):
    """float64[K]: :func:`gnoming_sim.search.bot.option_values` of answers ``opts[:K]`` of the pending draw source
    or placement (the mean over ``budget`` determinized rollouts, common random numbers across the answers, of the
    decider's round score minus the others' mean), every rollout seat playing the decider's strategy (a Monte Carlo
    seat its base policy) or, ``roll_kind`` >= 0, that family with the decider's parameters."""
    s = t.st[S_SEAT]
    own = t.kinds[s]
    if roll_kind >= 0:
        t.kinds[s] = roll_kind
    if t.st[S_PENDING] == DEC_SOURCE:
        v = option_values(t, rules, s, np.int64(COST_SOURCE), np.int64(NO_CARD), np.int64(-1), opts, K, budget)
    else:
        v = option_values(t, rules, s, np.int64(COST_PLACE), np.int64(t.st[S_HAND]), np.int64(t.st[S_SRC]), opts,
                          K, budget)
    t.kinds[s] = own
    return v


@jit(nrt=True)
def _learned_write(t, rules, sampling, out, i, n, game):
    feats, vals, nopt, dkind = out
    kind = t.st[S_PENDING]
    opts, K = _legal_answers(t, rules, N_SOURCES if kind == DEC_SOURCE else N_CHOICES)
    if K < 2:
        return n
    _learned_features(t, t.st[S_SEAT], kind, opts, K, feats[i, n])
    v = rollout_values(t, rules, opts, K, sampling[0], -1)
    for k in range(K):
        vals[i, n, k] = v[k]
    nopt[i, n] = K
    dkind[i, n] = kind
    return n + 1


@jit(py=True, nrt=True)
def learned_batch(g, sampling, out, lo, hi):
    """Games lo .. hi - 1 of ``g``; ``out`` = (feats float64[G, cap, MAX_OPTIONS, NF], vals float64[G, cap,
    MAX_OPTIONS], nopt, dkind int64[G, cap]); ``sampling`` = (budget, p_sample)."""
    for i in range(lo, hi):
        sample_game(g, i, False, STREAM_LEARNED, _learned_chance, _learned_write, sampling, out)


def learned_targets(players: int, strategies, games: int, seed: int, budget: int = 16, p_sample: float = 0.15,
                    cap: int = 12, first_game: int = 0, rules=None, deck=None, threads: int | None = None) -> dict:
    """Sampled decisions of ``games`` rounds at ``players`` seats (one strategy or one per seat, seats
    rotating per game): ``{"kind", "players", "nopt", "feats", "vals"}``, one row per decision (the
    placement rows' features are ``feats[:, :, :NF_P]``, the source rows' ``feats[:, :, :NF_S]``)."""
    out = (np.zeros((games, cap, MAX_OPTIONS, NF)), np.zeros((games, cap, MAX_OPTIONS)),
           np.zeros((games, cap), dtype=np.int64), np.zeros((games, cap), dtype=np.int64))
    sample(learned_batch, players, strategies, games, seed, first_game, rules, deck, threads, (budget, p_sample), out)
    d = _rows(players, out[2], feats=out[0], vals=out[1], kind=out[3])
    return {k: d[k] for k in ("kind", "players", "nopt", "feats", "vals")}


# ------------------------------------------------------------------ the net player's targets
@jit
def _net_chance(t, rules, sampling):
    return sampling[1] if t.st[S_PENDING] == (DEC_SOURCE if sampling[2] else DEC_PLACE) else -1.0


@jit(nrt=True)
def _net_write(t, rules, sampling, out, i, n, game):
    """``budget`` 0: no rollouts (``vals`` left as they are), the decision drawing only the key its rollouts would
    draw from the game's stream (:func:`decision_key`), so the round goes on as a gather's did."""
    inputs, vals, nopt = out
    budget, _, source = sampling
    s = t.st[S_SEAT]
    prm = seat_params(t, s)
    if source:
        opts, K = _legal_answers(t, rules, N_SOURCES)
        # the answers the source head values (not a pile's mulligan that cannot be kept)
        valued = NSRC.source_inputs(prm, L_W0, t.obs, t.memo, t.legal, np.bool_(True), np.bool_(True))
        k = np.int64(0)
        for j in range(K):
            if valued & (1 << opts[j]):
                opts[k] = opts[j]
                k += 1
        K = k
    else:
        opts, K = _legal_answers(t, rules, N_CHOICES)
    if K < 2:
        return n
    if source:
        NSRC.source_option_inputs(prm, L_W0, t.obs, t.memo, t.legal, opts, K, inputs[i, n], np.bool_(True))
    else:
        NN.option_inputs(prm, N_W0, t.obs, t.memo, int(t.st[S_HAND]), np.bool_(False), opts, K, inputs[i, n])
    if budget > 0:
        v = rollout_values(t, rules, opts, K, budget, -1)
        for k in range(K):
            vals[i, n, k] = v[k]
    else:
        decision_key(t)
    nopt[i, n] = K
    return n + 1


@jit(py=True, nrt=True)
def net_batch(g, sampling, out, lo, hi):
    """Games lo .. hi - 1 of ``g``; ``out`` = (inputs float64[G, cap, MAX_OPTIONS, NI or NIS], vals float64[G, cap,
    MAX_OPTIONS], nopt int64[G, cap]); ``sampling`` = (budget, p_sample, source)."""
    for i in range(lo, hi):
        sample_game(g, i, False, STREAM_NET, _net_chance, _net_write, sampling, out)


def net_targets(players: int, strategies, games: int, seed: int, budget: int = 16, p_sample: float = 0.3,
                cap: int = 12, first_game: int = 0, rules=None, deck=None, threads: int | None = None,
                source: bool = False) -> dict:
    """Sampled placements (``source``: draw-source decisions) of ``games`` rounds at ``players`` seats (one
    strategy or one per seat, seats rotating per game): ``{"players", "nopt", "inputs", "vals"}``, one row per
    decision (``inputs`` float64[n, MAX_OPTIONS, NI or NIS], ``vals`` float64[n, MAX_OPTIONS]; answers past
    ``nopt`` are zeros)."""
    out = (np.zeros((games, cap, MAX_OPTIONS, NN.NIS if source else NN.NI)), np.zeros((games, cap, MAX_OPTIONS)),
           np.zeros((games, cap), dtype=np.int64))
    sample(net_batch, players, strategies, games, seed, first_game, rules, deck, threads,
           (budget, p_sample, np.bool_(source)), out)
    return _rows(players, out[2], inputs=out[0], vals=out[1])


def net_replay(players: int, strategies, games: int, seed: int, p_sample: float = 0.3, cap: int = 12,
               first_game: int = 0, rules=None, threads: int | None = None) -> dict:
    """The sampled placements of :func:`net_targets` with the same arguments (and the same strategies: the teacher
    that played them), without their rollout values (``budget`` 0): ``{"nopt", "inputs"}`` under the current
    kernel.  A gather's positions are not stored, only its inputs: this rebuilds them, so a new input can be added
    to the rows of an old gather without gathering again."""
    d = net_targets(players, strategies, games, seed, budget=0, p_sample=p_sample, cap=cap, first_game=first_game,
                    rules=rules, threads=threads)
    return {"nopt": d["nopt"], "inputs": d["inputs"]}


# ------------------------------------------------------------------ the value network's data
@jit
def _value_chance(t, rules, p_sample):
    return p_sample


@jit(nrt=True)
def _value_write(t, rules, p_sample, out, i, n, game):
    x, _, _, seat, _ = out
    buf = np.zeros((MAX_SEATS, NI), dtype=np.float64)
    P = features(t.obs, buf)
    for j in range(P):
        for k in range(NI):
            x[i, n, j, k] = buf[j, k]
    seat[i, n] = t.st[S_SEAT]
    return n + 1


@jit(py=True, nrt=True)
def value_batch(g, p_sample, out, lo, hi):
    """Whole games lo .. hi - 1 of ``g``; ``out`` = (x float32[G, cap, MAX_SEATS, NI], win, total float32[G, cap,
    MAX_SEATS] by slot, seat int64[G, cap] the deciding seat, count int64[G] the positions written)."""
    _, win, total, seat, count = out
    P = g.players
    totals = np.zeros(P, dtype=np.int32)
    credit = np.zeros(P, dtype=np.float64)
    for i in range(lo, hi):
        n, res = sample_game(g, i, True, STREAM_VALUE, _value_chance, _value_write, p_sample, out)
        settle_game(P, res, totals, credit)
        mean = 0.0
        for s in range(P):
            mean += totals[s] / P
        for j in range(n):
            for k in range(P):
                s = (seat[i, j] + k) % P
                win[i, j, k] = credit[s]
                total[i, j, k] = totals[s] - mean
        count[i] = n


def value_positions(players: int, strategies, games: int, seed: int, p_sample: float = 0.05, cap: int = 12,
                    first_game: int = 0, rules=None, deck=None, threads: int | None = None) -> dict:
    """Sampled positions of ``games`` whole games at ``players`` seats (one strategy or one per seat, seats
    rotating per game): ``{"players", "game", "x", "win", "total"}``, one row per position (``x``
    float32[n, MAX_SEATS, NI] padded with zeros past the table; ``win``/``total`` float32[n, MAX_SEATS] by
    slot: the observer first, then the seats to its left)."""
    out = (np.zeros((games, cap, MAX_SEATS, NI), dtype=np.float32), np.zeros((games, cap, MAX_SEATS), dtype=np.float32),
           np.zeros((games, cap, MAX_SEATS), dtype=np.float32), np.zeros((games, cap), dtype=np.int64),
           np.zeros(games, dtype=np.int64))
    sample(value_batch, players, strategies, games, seed, first_game, rules, deck, threads, p_sample, out, block=64)
    x, win, total, _, count = out
    keep = np.arange(cap)[None, :] < count[:, None]
    game = np.broadcast_to(np.arange(first_game, first_game + games)[:, None], keep.shape)
    return {"players": np.full(int(keep.sum()), players, dtype=np.int8), "game": game[keep].astype(np.int64),
            "x": x[keep], "win": win[keep], "total": total[keep]}
