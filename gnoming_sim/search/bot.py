"""The Monte Carlo player's decisions (``KIND_MC``): short rollouts from its own observation.

At its draw-source decision (when a discard pile may be taken) and its placement decision
(every candidate keep position and not keeping; placing over the last face-down card is the
decision to finish), the player rolls every option out to the end of the round and takes the
one with the lowest mean of *its round score minus the mean round score of the others*.

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

Budget and base policy.  ``params[M_BUDGET]`` rollouts per option (at least 1).  Inside the
rollouts every seat, this one included, plays the heuristic with this strategy's heuristic
parameters (its base policy), to the end of the round (the round horizon).  Placement options
are pruned to the base policy's choice, not keeping, placing over the last face-down card
(finishing) and the ``params[M_WIDTH]`` positions the base policy's one-ply estimate rates best.

Recursion.  The bot is a decision function, :func:`decide_mc`, handed to the one game loop
(:func:`gnoming_sim.kernel.game_loop.play_one`) by this module's :func:`play_batch`; its rollouts
step the table with the *base* decision function (:func:`gnoming_sim.kernel.policy.dispatch.decide`,
which decides an MC seat as its base heuristic), so no function calls itself and no kernel is
copied.  :mod:`gnoming_sim.search` registers :func:`play_batch` with the engine for ``KIND_MC``.
"""
from __future__ import annotations

import numpy as np
from numba import prange

from gnoming_sim.game.cards import HIDDEN, NO_CARD
from gnoming_sim.game.fields import F_SCORE, N_FIELDS
from gnoming_sim.game.observation import CHOICE_NOKEEP, N_CHOICES, N_SOURCES, O_DRAWN, O_FROM_PILE, O_ME, SRC_DRAW
from gnoming_sim.game.rules import LAYOUT, ROUNDS
from gnoming_sim.kernel.game_loop import play_game, play_one, score_round
from gnoming_sim.kernel.jit import jit
from gnoming_sim.kernel.policy import heuristic as H
from gnoming_sim.kernel.policy.dispatch import KIND_HEURISTIC, KIND_LEARNED, KIND_MC, M_BUDGET, M_WIDTH, N_PARAMS, decide, new_memo
from gnoming_sim.kernel.rng import next_u64, seed_stream, shuffle_prefix
from gnoming_sim.kernel.state import DEC_PLACE, DEC_SOURCE, RNG_WORDS, S_DPTR, S_FINISHER, S_HAND, S_PENDING, \
    S_SEAT, S_SRC, new_table
from gnoming_sim.kernel.step import play_out
from gnoming_sim.kernel.table import legal_placements, legal_sources
from gnoming_sim.search.rollout import STREAM_DETERMINIZE, STREAM_ROLL_PLAY, roll_on
from gnoming_sim.search.start import enter, rollout_start, start_truth

MAX_OPTIONS = N_CHOICES  # a placement has at most LAYOUT + 1 answers


@jit(nrt=True)
def rollout_values(t, rules, s, card, src, opts, K, budget, peek):
    """Mean over ``budget`` rollouts of each option ``opts[k]`` (k < K), float64[K].

    ``card`` NO_CARD: a draw-source decision, ``opts[k]`` the sources; else a placement of
    ``card`` drawn from ``src``, ``opts[k]`` the answers (positions, CHOICE_NOKEEP).  The value
    of a rollout is seat s's round score minus the mean of the others' (lower is better).
    ``peek`` (tests only): deal the true hidden cards instead of a determinization.
    """
    P = t.fd.shape[0]
    N = t.draw.shape[0]
    # the table as the player sees it; a card in hand goes back where it came from
    start = rollout_start(t.vis, t.piles, t.st, t.unknown, t.scores, s, card, src, -1, True)
    r = start.r
    starter = start.starter
    n_u = start.unseen.shape[0]
    if peek:  # tests only: what a cheat would see
        truth = start_truth(start, t.lay, t.draw, t.st[S_DPTR])
    else:
        truth = start.unseen
    # every seat plays the base policy inside the rollouts: the heuristic with this seat's parameters (a
    # learned seat's rollouts, the training targets of search.targets, play the learned family)
    kinds = np.full(1, KIND_LEARNED if t.kinds[s] == KIND_LEARNED else KIND_HEURISTIC, dtype=np.int64)
    params = np.empty((1, N_PARAMS), dtype=np.float64)
    for j in range(N_PARAMS):
        params[0, j] = t.params[s, j]
    rt = new_table(P, N, kinds, params, np.zeros(P, dtype=np.int16), np.empty((0, 4), dtype=np.int32), new_memo())
    res = np.zeros((ROUNDS, P, N_FIELDS), dtype=np.int32)
    cards = np.empty(n_u, dtype=np.int8)
    rng_det = np.empty(RNG_WORDS, dtype=np.uint64)
    no_luck = np.empty(0, dtype=np.float64)
    key = next_u64(t.rng)  # the decision's streams hang off the game's own stream
    total = np.zeros(K, dtype=np.float64)
    for i in range(budget):
        for j in range(n_u):
            cards[j] = truth[j] if peek else start.unseen[j]
        if not peek:
            seed_stream(rng_det, key, i, STREAM_DETERMINIZE)
            shuffle_prefix(rng_det, cards, n_u)
        for k in range(K):
            if card == NO_CARD:
                enter(rt, rules, start, cards, opts[k] != SRC_DRAW)
                seed_stream(rt.rng, key, i, STREAM_ROLL_PLAY)
                roll_on(rt, rules, opts[k], -1, -1, no_luck)
            else:
                enter(rt, rules, start, cards, False)
                seed_stream(rt.rng, key, i, STREAM_ROLL_PLAY)
                roll_on(rt, rules, src, opts[k], -1, no_luck)
            score_round(rt, rules, r, starter, res)
            others = 0.0
            for o in range(P):
                if o != s:
                    others += res[r, o, F_SCORE]
            total[k] += res[r, s, F_SCORE] - others / (P - 1)
    return total / budget


@jit
def _best(values, opts, K):
    """The option of the lowest value (the first of equals: ``opts[0]`` is the base choice)."""
    best = 0
    for k in range(1, K):
        if values[k] < values[best]:
            best = k
    return opts[best]


@jit(nrt=True)
def choose_source(t, rules, s, peek):
    """Seat s's draw source by rollouts, or -1 when only the draw pile is legal (the base decides)."""
    legal = t.legal
    if legal_sources(t, rules, s) == 1:
        return -1
    opts = np.empty(N_SOURCES, dtype=np.int64)
    base = H.draw_source(t.params[s], t.obs, t.memo, legal)
    opts[0] = base
    K = 1
    for k in range(N_SOURCES):
        if legal[k] and k != base:
            opts[K] = k
            K += 1
    budget = max(1, int(t.params[s, M_BUDGET]))
    return _best(rollout_values(t, rules, s, NO_CARD, -1, opts, K, budget, peek), opts, K)


@jit(nrt=True)
def choose_placement(t, rules, s, card, src, peek):
    """Seat s's answer for ``card`` drawn from ``src`` by rollouts, or -1 when it has no choice."""
    legal = t.legal
    pub = t.obs.pub
    prm = t.params[s]
    if not legal_placements(t, rules, s, card, src):
        return -1
    pub[O_DRAWN] = card
    pub[O_FROM_PILE] = src - 1
    opts = np.empty(MAX_OPTIONS, dtype=np.int64)
    base = H.placement(prm, t.obs, t.memo, card, legal)
    opts[0] = base
    K = 1
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
    eu = H.unseen_mean(t.obs.unknown, prm)
    delta = np.empty(LAYOUT, dtype=np.float64)
    for q in range(LAYOUT):
        delta[q] = H.place_delta(prm, pub, t.obs.vis, t.obs.fd, t.memo.scratch, row, eu, q, card)
    order = np.argsort(delta, kind="mergesort")
    width = int(prm[M_WIDTH])
    taken = 0
    for i in range(LAYOUT):
        if taken >= width:
            break
        q = order[i]
        seen = False
        for k in range(K):
            if opts[k] == q:
                seen = True
        taken += 1
        if not seen:
            opts[K] = q
            K += 1
    if K == 1:
        return base
    budget = max(1, int(prm[M_BUDGET]))
    return _best(rollout_values(t, rules, s, card, src, opts, K, budget, peek), opts, K)


@jit
def decide_mc(t, rules):
    """The decision function of games with Monte Carlo seats: an MC seat's draw source and
    placement by rollouts (:func:`choose_source`, :func:`choose_placement`), everything else — and
    every decision of the other seats — by the base :func:`gnoming_sim.kernel.policy.dispatch.decide`.

    The rollouts themselves play with the base function, so this one never calls itself."""
    st = t.st
    s = st[S_SEAT]
    if t.kinds[s] == KIND_MC:
        kind = st[S_PENDING]
        if kind == DEC_SOURCE:
            src = choose_source(t, rules, s, False)
            if src >= 0:
                return src
        elif kind == DEC_PLACE:
            pos = choose_placement(t, rules, s, st[S_HAND], st[S_SRC], False)
            if pos >= 0:
                return pos
    return decide(t, rules)


@jit
def play_out_mc(t, rules):
    """The round played on with the MC bot deciding for its seats (no reference counting in the turn
    loop, as ``game_loop.play_out_base``)."""
    play_out(t, rules, decide_mc)


@jit
def play_game_mc(t, game, seed, rules, deck, deck_counts, order, use_given, out, totals, win):
    """:func:`gnoming_sim.kernel.game_loop.play_game` with :func:`play_out_mc`."""
    play_game(t, game, seed, rules, deck, deck_counts, order, use_given, out, totals, win, play_out_mc)


@jit(nrt=True)
def _play_one_mc(g, res, i):
    # named here, not in the parallel loop, so that play_batch stays cacheable (game_loop._play_one_base)
    play_one(g, res, i, play_game_mc)


@jit(parallel=True, nrt=True)
def play_batch(g, res):
    """:func:`gnoming_sim.kernel.game_loop.play_batch` with the Monte Carlo bot deciding for its
    seats (:func:`decide_mc`); the engine plays every batch with a ``KIND_MC`` seat here."""
    for i in prange(g.seat_strategy.shape[0]):
        _play_one_mc(g, res, i)

