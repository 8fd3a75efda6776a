"""The Monte Carlo player's decisions (``KIND_MC``): short rollouts from its own observation.

At its draw-source decision (when a discard pile may be taken) and its placement decision
(every candidate keep position and not keeping; placing over the last face-down card is the
decision to finish) — and, if its settings say so, its bounces (``M_BOUNCE``) and its flips for
another's hazard (``M_HAZARD``) — the player rolls every option out to the end of the round and
takes the one with the lowest mean of *its round score minus the mean round score of the others*.

What it sees.  A rollout table is built from public information only: the layouts as seen
(``Table.vis``, ``HIDDEN`` where face down), the face-up flags, the discard piles, the scalars
of ``Table.st`` (pile sizes, turn, finisher) and the unseen multiset ``Table.unknown`` (public
card counting).  Every face-down card, its own and the others', and the draw pile are dealt
uniformly from that multiset (the determinization: the rollout start of :mod:`gnoming_sim.search.start`,
the same builder the analysis uses);
``Table.lay`` where face down and the draw pile order are never read.

Common random numbers.  Rollout i of a decision deals the same cards and plays from the same
stream for every option; these streams are seeded from one word of the game's play stream, so
a game stays reproducible at any thread count.  A pile option deals the blind-draw card to the
draw pile's bottom (as the analysis rollouts' ``align``), so the others still draw what the
draw-pile option leaves them.

Budget and base policy.  ``params[M_BUDGET]`` rollouts per option (at least 1), or, with
``params[M_ADAPTIVE]``, rounds that drop options by paired tests and stop early
(:mod:`gnoming_sim.search.allocate`; the bot counts what it spends in the table's memo,
``dispatch.MEMO_MC_COST``, read by :mod:`gnoming_sim.search.cost`).  Inside the
rollouts every seat, this one included, plays the heuristic with this strategy's heuristic
parameters (its base policy), to the end of the round (the round horizon).  Placement options
are pruned to the base policy's choice, not keeping, placing over the last face-down card
(finishing) and the ``params[M_WIDTH]`` positions the base policy's one-ply estimate rates best;
bounce options to the base choice, stopping and the ``params[M_WIDTH]`` best legal positions.

Recursion.  The bot is a decision function, :func:`decide_mc`, handed to the one game loop
(:func:`gnoming_sim.kernel.game_loop.play_one`) by this module's :func:`play_range_mc`; its rollouts
step the table with the *base* decision function (:func:`gnoming_sim.kernel.policy.dispatch.decide`,
which decides an MC seat as its base heuristic), so no function calls itself and no kernel is
copied.  :mod:`gnoming_sim.search` registers :func:`play_range_mc` with the engine for ``KIND_MC``.
"""
from __future__ import annotations

from collections import namedtuple

import numpy as np

from gnoming_sim.game.cards import HIDDEN, NO_CARD
from gnoming_sim.game.fields import F_SCORE, N_FIELDS
from gnoming_sim.game.observation import CHOICE_NOKEEP, CHOICE_STOP, N_CHOICES, N_SOURCES, O_DRAWN, O_FROM_PILE, \
    O_ME, SRC_DRAW
from gnoming_sim.game.rules import LAYOUT, ROUNDS
from gnoming_sim.kernel.game_loop import decide_once, play_game, play_one, score_round, step_once
from gnoming_sim.kernel.jit import jit
from gnoming_sim.kernel.policy import heuristic as H
from gnoming_sim.kernel.policy.dispatch import KIND_MC, M_BOUNCE, M_HAZARD, M_WIDTH, MEMO_MC_COST, N_PARAMS, \
    base_kind, bounce_target, draw_source, hazard_flip, new_memo, placement
from gnoming_sim.kernel.rng import next_u64, seed_stream, shuffle_prefix
from gnoming_sim.kernel.state import DEC_BOUNCE, DEC_HAZARD_FLIP, DEC_PLACE, DEC_SOURCE, RNG_WORDS, S_ACTOR, \
    S_DPTR, S_FILLED, S_FINISHER, S_HAND, S_PENDING, S_SEAT, S_SRC, new_table, seat_params
from gnoming_sim.kernel.step import legal_actions, play_out
from gnoming_sim.kernel.table import legal_placements, legal_sources
from gnoming_sim.search.allocate import allocate, rounds_at_most
from gnoming_sim.search.rollout import STREAM_DETERMINIZE, STREAM_ROLL_PLAY, roll_on
from gnoming_sim.search.start import enter, rollout_start, start_truth

MAX_OPTIONS = N_CHOICES  # a placement has at most LAYOUT + 1 answers

# the decisions it may take by rollouts (also the index j of its cost counters, dispatch.MEMO_MC_COST)
COST_SOURCE = 0
COST_PLACE = 1
COST_BOUNCE = 2
COST_HAZARD = 3
N_COST = 4
COST_NAMES = ("source", "place", "bounce", "hazard_flip")   # in the order of COST_*

Rollouts = namedtuple("Rollouts", ["rt", "rules", "start", "truth", "cards", "rng_det", "key", "res", "no_luck",
                                   "s", "mode", "src", "opts", "peek"])
Rollouts.__doc__ = """The rollouts of one decision (:func:`_roll_round`'s context).

    rt       the rollout table (every seat plays the base policy);  rules int64[N_RULES]
    start    the :class:`gnoming_sim.search.start.Start` of seat s's pending decision
    truth    int8[n_u] (``peek``: the true hidden cards);  cards int8[n_u], rng_det: a determinization's workspace
    key      uint64, the decision's word of the game's stream;  res int32[3, P, N_FIELDS] round scores
    mode     COST_*;  src the card's source (a placement);  opts int64[K] the options
"""


@jit
def _roll_round(ctx, i, active, values):
    """Round i of a decision: rollout i of every option k still in play (``active[k]``), all on the
    same determinization and play stream; ``values[i, k]``: seat s's round score minus the mean of
    the others' (lower is better)."""
    rt = ctx.rt
    rules = ctx.rules
    start = ctx.start
    cards = ctx.cards
    res = ctx.res
    s = ctx.s
    key = ctx.key
    n_u = cards.shape[0]
    P = rt.fd.shape[0]
    r = start.r
    # run-time values, not literals: a literal -1 or False compiles roll_on / enter once per value (kernel/jit.py)
    none = np.int64(-1)
    no = np.bool_(False)
    for j in range(n_u):
        cards[j] = ctx.truth[j] if ctx.peek else start.unseen[j]
    if not ctx.peek:
        seed_stream(ctx.rng_det, key, i, STREAM_DETERMINIZE)
        shuffle_prefix(ctx.rng_det, cards, n_u)
    for k in range(values.shape[1]):
        if not active[k]:
            continue
        a = ctx.opts[k]
        if ctx.mode == COST_SOURCE:
            enter(rt, rules, start, cards, a != SRC_DRAW)
            seed_stream(rt.rng, key, i, STREAM_ROLL_PLAY)
            roll_on(rt, rules, a, none, none, ctx.no_luck)
        elif ctx.mode == COST_PLACE:
            enter(rt, rules, start, cards, no)
            seed_stream(rt.rng, key, i, STREAM_ROLL_PLAY)
            roll_on(rt, rules, ctx.src, a, none, ctx.no_luck)
        elif ctx.mode == COST_HAZARD:
            enter(rt, rules, start, cards, no)
            seed_stream(rt.rng, key, i, STREAM_ROLL_PLAY)
            roll_on(rt, rules, none, none, a, ctx.no_luck)
        else:   # a bounce: the pending decision itself is stepped
            enter(rt, rules, start, cards, no)
            seed_stream(rt.rng, key, i, STREAM_ROLL_PLAY)
            step_once(rt, rules, a)
            roll_on(rt, rules, none, none, none, ctx.no_luck)
        score_round(rt, rules, r, start.starter, res)
        others = 0.0
        for o in range(P):
            if o != s:
                others += res[r, o, F_SCORE]
        values[i, k] = res[r, s, F_SCORE] - others / (P - 1)


@jit(inline="always")
def decision_key(t):
    """The key a searched decision's rollout streams hang off: one number drawn from the game's own stream (so a
    game's later draws do not depend on how many rollouts a decision spent).  A replay of a gather that skips the
    rollouts draws it too (:func:`gnoming_sim.search.sampler.net_replay`), so its rounds go on
    as the gather's did."""
    return next_u64(t.rng)


@jit(nrt=True)
def _rollouts(t, rules, s, mode, card, src, discarder, bounce, opts, K, peek):
    """The :class:`Rollouts` context of seat s's pending decision (see :func:`by_rollouts`)."""
    P = t.fd.shape[0]
    N = t.draw.shape[0]
    prm = seat_params(t, s)
    # the table as the player sees it; a card in hand at a placement goes back where it came from
    start = rollout_start(t.vis, t.piles, t.st, t.unknown, t.scores, s, card, src, discarder, np.bool_(True), bounce)
    if peek:  # tests only: what a cheat would see
        truth = start_truth(start, t.lay, t.draw, t.st[S_DPTR])
    else:
        truth = start.unseen
    # every seat plays the base policy inside the rollouts: an MC seat's base (the heuristic, or the learned
    # family), a learned seat's own family (the learned player's training targets, search.sampler)
    kinds = np.full(1, base_kind(t.kinds[s], prm), dtype=np.int64)
    params = np.empty((1, N_PARAMS), dtype=np.float64)
    for j in range(N_PARAMS):
        params[0, j] = prm[j]
    rt = new_table(P, N, kinds, params, np.zeros(P, dtype=np.int16), np.empty((0, 4), dtype=np.int32), new_memo())
    res = np.zeros((ROUNDS, P, N_FIELDS), dtype=np.int32)
    cards = np.empty(start.unseen.shape[0], dtype=np.int8)
    key = decision_key(t)
    return Rollouts(rt, rules, start, truth, cards, np.empty(RNG_WORDS, dtype=np.uint64), key, res,
                    np.empty(0, dtype=np.float64), s, mode, src, opts[:K], peek)


@jit(nrt=True)
def by_rollouts(t, rules, s, mode, card, src, discarder, bounce, opts, K, peek, spent):
    """Seat s's answer among ``opts[:K]`` (``opts[0]`` the base policy's choice) by rollouts to the end
    of the round, spent as :func:`gnoming_sim.search.allocate.allocate` says; ``spent`` int64[2] gets
    the rollouts and rounds run, and the table's cost counters (``dispatch.MEMO_MC_COST``) count them.

    ``mode`` COST_*: a draw source, a placement of ``card`` drawn from ``src``, a hazard flip for the
    hazard ``discarder`` removed, or a bounce of ``card`` (``bounce`` the positions filled this turn).
    ``peek`` (tests only): deal the true hidden cards instead of a determinization.
    """
    prm = seat_params(t, s)
    ctx = _rollouts(t, rules, s, mode, card, src, discarder, bounce, opts, K, peek)
    values = np.empty((rounds_at_most(prm, K), K), dtype=np.float64)
    active = np.empty(K, dtype=np.int8)
    best = allocate(_roll_round, ctx, K, prm, values, active, spent)
    plan = t.memo.plan
    plan[MEMO_MC_COST + 2 * mode] += 1
    plan[MEMO_MC_COST + 2 * mode + 1] += spent[0]
    return opts[best]


@jit(nrt=True)
def option_values(t, rules, s, mode, card, src, opts, K, budget):
    """The mean over ``budget`` rollouts (every option on every one, common random numbers) of seat s's
    round score minus the others' mean, for each option ``opts[k]`` of its pending draw source
    (``mode`` COST_SOURCE) or placement of ``card`` from ``src`` (COST_PLACE): float64[K].  The training
    targets of the learned player (:func:`gnoming_sim.search.sampler.learned_targets`)."""
    ctx = _rollouts(t, rules, s, mode, card, src, np.int64(-1), np.int64(0), opts, K, np.bool_(False))
    values = np.empty((budget, K), dtype=np.float64)
    active = np.ones(K, dtype=np.int8)
    for i in range(budget):
        _roll_round(ctx, i, active, values)
    out = np.zeros(K, dtype=np.float64)
    for i in range(budget):
        for k in range(K):
            out[k] += values[i, k]
    return out / budget


@jit(nrt=True)
def choose_source(t, rules, s, peek):
    """Seat s's draw source by rollouts, or -1 when only the draw pile is legal (the base decides)."""
    legal = t.legal
    if legal_sources(t, rules, s) == 1:
        return -1
    opts = np.empty(N_SOURCES, dtype=np.int64)
    prm = seat_params(t, s)
    base = draw_source(base_kind(t.kinds[s], prm), prm, t.rng, t.obs, t.memo, legal)
    opts[0] = base
    K = np.int64(1)   # not a literal: the callees compile once
    for k in range(N_SOURCES):
        if legal[k] and k != base:
            opts[K] = k
            K += 1
    return by_rollouts(t, rules, s, np.int64(COST_SOURCE), np.int64(NO_CARD), np.int64(-1), np.int64(-1), np.int64(0),
                       opts, K, peek, np.zeros(2, dtype=np.int64))


@jit(nrt=True)
def _add_ranked(prm, obs, memo, row, card, legal, use_mask, opts, K):
    """Add the ``prm[M_WIDTH]`` positions the base policy's one-ply estimate rates best for ``card``
    (among ``legal`` if ``use_mask``) to ``opts[:K]``, skipping those already there; the new K."""
    pub = obs.pub
    eu = H.unseen_mean(obs, prm)
    delta = np.empty(LAYOUT, dtype=np.float64)
    for q in range(LAYOUT):
        delta[q] = H.place_delta(prm, pub, obs.vis, obs.fd, memo.scratch, row, eu, q, card)
    order = np.argsort(delta, kind="mergesort")
    width = int(prm[M_WIDTH])
    taken = 0
    for i in range(LAYOUT):
        if taken >= width:
            break
        q = order[i]
        if use_mask and not legal[q]:
            continue
        seen = False
        for k in range(K):
            if opts[k] == q:
                seen = True
        taken += 1
        if not seen:
            opts[K] = q
            K += 1
    return K


@jit(nrt=True)
def choose_placement(t, rules, s, card, src, peek):
    """Seat s's answer for ``card`` drawn from ``src`` by rollouts, or -1 when it has no choice."""
    legal = t.legal
    pub = t.obs.pub
    prm = seat_params(t, s)
    if not legal_placements(t, rules, s, card, src):
        return -1
    pub[O_DRAWN] = card
    pub[O_FROM_PILE] = src - 1
    opts = np.empty(MAX_OPTIONS, dtype=np.int64)
    base = placement(base_kind(t.kinds[s], prm), prm, t.rng, t.obs, t.memo, card, legal)
    opts[0] = base
    K = np.int64(1)   # not a literal: the callees compile once
    if legal[CHOICE_NOKEEP] and base != CHOICE_NOKEEP:
        opts[K] = CHOICE_NOKEEP
        K += 1
    row = t.obs.vis[pub[O_ME]]
    if t.fd[s] == 1 and t.st[S_FINISHER] < 0:  # placing over the last face-down card finishes
        for q in range(LAYOUT):
            if row[q] == HIDDEN and q != base:
                opts[K] = q
                K += 1
    # the positions the base policy's one-ply estimate rates best
    H.prepare_me(prm, t.obs, t.memo, True)
    K = _add_ranked(prm, t.obs, t.memo, row, card, legal, np.bool_(False), opts, K)
    if K == 1:
        return base
    return by_rollouts(t, rules, s, np.int64(COST_PLACE), card, src, np.int64(-1), np.int64(0), opts, K, peek,
                       np.zeros(2, dtype=np.int64))


@jit(nrt=True)
def choose_bounce(t, rules, s, peek):
    """Seat s's bounce of the card in hand by rollouts (the base choice, stopping, and the
    ``mc_width`` legal positions the base policy's estimate rates best), or -1 when it has no choice."""
    legal = t.legal
    legal_actions(t, rules)
    prm = seat_params(t, s)
    card = t.st[S_HAND]
    opts = np.empty(MAX_OPTIONS, dtype=np.int64)
    base = bounce_target(base_kind(t.kinds[s], prm), prm, t.rng, t.obs, t.memo, card, legal)
    opts[0] = base
    K = np.int64(1)   # not a literal: the callees compile once
    if base != CHOICE_STOP:
        opts[K] = CHOICE_STOP
        K += 1
    H.prepare_me(prm, t.obs, t.memo, False)
    K = _add_ranked(prm, t.obs, t.memo, t.obs.vis[s], card, legal, np.bool_(True), opts, K)
    if K == 1:
        return -1
    return by_rollouts(t, rules, s, np.int64(COST_BOUNCE), card, t.st[S_SRC], np.int64(-1), t.st[S_FILLED], opts, K, peek,
                       np.zeros(2, dtype=np.int64))


@jit(nrt=True)
def choose_hazard_flip(t, rules, s, peek):
    """Seat s's answer to another's hazard by rollouts (every face-down position, and declining)."""
    legal = t.legal
    legal_actions(t, rules)
    opts = np.empty(MAX_OPTIONS, dtype=np.int64)
    prm = seat_params(t, s)
    base = hazard_flip(base_kind(t.kinds[s], prm), prm, t.rng, t.obs, legal)
    opts[0] = base
    K = np.int64(1)   # not a literal: the callees compile once
    for q in range(MAX_OPTIONS):
        if legal[q] and q != base:
            opts[K] = q
            K += 1
    if K == 1:
        return -1
    return by_rollouts(t, rules, s, np.int64(COST_HAZARD), np.int64(NO_CARD), np.int64(-1), t.st[S_ACTOR], np.int64(0),
                       opts, K, peek,
                       np.zeros(2, dtype=np.int64))


@jit
def mc_answer(t, rules, peek):
    """An MC seat's answer to the pending decision by rollouts — its draw source, placement and, if
    its settings say so, bounce (``mc_bounce``) and hazard flip (``mc_hazard_flip``) — or -1: the base
    policy decides (another seat, another decision, or no choice)."""
    st = t.st
    s = st[S_SEAT]
    if t.kinds[s] != KIND_MC:
        return -1
    kind = st[S_PENDING]
    if kind == DEC_SOURCE:
        return choose_source(t, rules, s, peek)
    if kind == DEC_PLACE:
        return choose_placement(t, rules, s, st[S_HAND], st[S_SRC], peek)
    if kind == DEC_BOUNCE and seat_params(t, s)[M_BOUNCE] > 0.0:
        return choose_bounce(t, rules, s, peek)
    if kind == DEC_HAZARD_FLIP and seat_params(t, s)[M_HAZARD] > 0.0:
        return choose_hazard_flip(t, rules, s, peek)
    return -1


@jit
def decide_mc(t, rules):
    """The decision function of games with Monte Carlo seats: an MC seat's decisions by rollouts
    (:func:`mc_answer`), everything else — and every decision of the other seats — by the base
    :func:`gnoming_sim.kernel.policy.dispatch.decide`.

    The rollouts themselves play with the base function, so this one never calls itself."""
    a = mc_answer(t, rules, np.bool_(False))
    if a >= 0:
        return a
    return decide_once(t, rules)


@jit
def play_out_mc(t, rules):
    """The round played on with the MC bot deciding for its seats (no reference counting in the turn
    loop, as ``game_loop.play_out_base``)."""
    play_out(t, rules, decide_mc)


@jit
def play_game_mc(t, game, seed, rules, deck, deck_counts, order, use_given, out, totals, win):
    """:func:`gnoming_sim.kernel.game_loop.play_game` with :func:`play_out_mc`."""
    play_game(t, game, seed, rules, deck, deck_counts, order, use_given, out, totals, win, play_out_mc)


@jit(py=True, nrt=True)
def play_range_mc(g, res, lo, hi):
    """:func:`gnoming_sim.kernel.game_loop.play_range_base` with the Monte Carlo bot deciding for its
    seats (:func:`decide_mc`); the engine plays every batch with a ``KIND_MC`` seat here, in blocks on a
    pool of threads (``game_loop.play_blocks``: a ``parallel=True`` loop cost ~50 s more to compile)."""
    for i in range(lo, hi):
        play_one(g, res, i, play_game_mc)

