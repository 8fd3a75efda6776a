"""The Monte Carlo player's decisions (``KIND_MC``): short rollouts from its own observation.

At its draw-source decision (when a discard pile may be taken) and its placement decision
(every candidate keep position and not keeping; placing over the last face-down card is the
decision to finish), the player rolls every option out to the end of the round and takes the
one with the lowest mean of *its round score minus the mean round score of the others*.

What it sees.  A rollout table is built from public information only: the layouts as seen
(``Table.vis``, ``HIDDEN`` where face down), the face-up flags, the discard piles, the scalars
of ``Table.st`` (pile sizes, turn, finisher) and the unseen multiset ``Table.unknown`` (public
card counting).  Every face-down card, its own and the others', and the draw pile are dealt
uniformly from that multiset (the determinization, :func:`gnoming_sim.kernel.rollout._deal_hidden`);
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

Recursion.  The rollouts play with the *base* kernel (:func:`gnoming_sim.kernel.game_loop._play_turns`),
whose dispatch decides an MC seat as its base heuristic; only the copy of the turn loop in
:mod:`gnoming_sim.kernel.mc_loop` calls the functions here.
"""
from __future__ import annotations

import numpy as np

from gnoming_sim.game.cards import HIDDEN, N_SLOTS, NO_CARD, SLOT_OFFSET
from gnoming_sim.game.fields import F_SCORE, N_FIELDS
from gnoming_sim.game.observation import (
    CHOICE_NOKEEP,
    N_CHOICES,
    N_SOURCES,
    O_DRAWN,
    O_FROM_PILE,
    O_ME,
    O_ROUND,
    O_STARTER,
    SRC_DRAW,
    U_COST,
    U_COUNT,
)
from gnoming_sim.game.rules import LAYOUT, ROUNDS
from gnoming_sim.kernel.game_loop import _play_turns, _score_round
from gnoming_sim.kernel.jit import jit
from gnoming_sim.kernel.policy import heuristic as H
from gnoming_sim.kernel.policy.dispatch import KIND_HEURISTIC, KIND_MC, M_BUDGET, M_WIDTH, N_PARAMS
from gnoming_sim.kernel.rng import next_u64, seed_stream, shuffle_prefix
from gnoming_sim.kernel.rollout import STREAM_DETERMINIZE, STREAM_ROLL_PLAY, _deal_hidden, _reset
from gnoming_sim.kernel.scoring import card_cost
from gnoming_sim.kernel.state import (
    N_ST,
    RNG_WORDS,
    S_DEND,
    S_DPTR,
    S_FINISHER,
    S_FORCE_FLIP,
    S_FORCE_POS,
    S_FORCE_SRC,
    S_PLEN0,
    new_table,
)
from gnoming_sim.kernel.table import _legal_placements, _legal_sources

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
    pub = t.obs.pub
    r = pub[O_ROUND]
    starter = pub[O_STARTER]
    finisher = t.st[S_FINISHER]
    laps_left = -1 if finisher < 0 else (finisher - s) % P
    # the table as the player sees it; a card in hand goes back where it came from
    piles0 = np.zeros((2, N), dtype=np.int8)
    st0 = np.empty(N_ST, dtype=np.int64)
    for j in range(N_ST):
        st0[j] = t.st[j]
    for k in range(2):
        for j in range(t.st[S_PLEN0 + k]):
            piles0[k, j] = t.piles[k, j]
    unknown0 = np.empty(N_SLOTS, dtype=np.int64)
    for j in range(N_SLOTS):
        unknown0[j] = t.unknown[j]
    n_u = t.unknown[U_COUNT]
    unseen = np.empty(n_u, dtype=np.int8)
    n = 0
    for j in range(U_COST + 1, N_SLOTS):
        for _ in range(t.unknown[j]):
            unseen[n] = j - SLOT_OFFSET
            n += 1
    m = 0
    for o in range(P):
        m += t.fd[o]
    slots = np.empty((m, 2), dtype=np.int64)
    j = 0
    for i in range(P):
        o = (s + i) % P
        for q in range(LAYOUT):
            if t.up[o, q] == 0:
                slots[j, 0] = o
                slots[j, 1] = q
                j += 1
    n_draw = n_u - m
    draw_top = NO_CARD
    if card != NO_CARD:
        if src == SRC_DRAW:
            draw_top = card
            unknown0[card + SLOT_OFFSET] += 1
            unknown0[U_COUNT] += 1
            unknown0[U_COST] += card_cost(card)
        else:
            k = src - 1
            piles0[k, st0[S_PLEN0 + k]] = card
            st0[S_PLEN0 + k] += 1
    st0[S_DPTR] = 0
    st0[S_DEND] = n_draw + (1 if draw_top != NO_CARD else 0)
    st0[S_FORCE_SRC] = 0
    st0[S_FORCE_POS] = 0
    st0[S_FORCE_FLIP] = 0
    truth = np.empty(n_u, dtype=np.int8)
    if peek:  # tests only: what a cheat would see
        for i in range(m):
            truth[i] = t.lay[slots[i, 0], slots[i, 1]]
        for i in range(n_draw):
            truth[m + i] = t.draw[t.st[S_DPTR] + i]
    # every seat plays the base policy inside the rollouts
    kinds = np.full(1, KIND_HEURISTIC, dtype=np.int64)
    params = np.empty((1, N_PARAMS), dtype=np.float64)
    for j in range(N_PARAMS):
        params[0, j] = t.params[s, j]
    rt = new_table(P, N, kinds, params, np.zeros(P, dtype=np.int16), np.empty((0, 4), dtype=np.int32))
    res = np.zeros((ROUNDS, P, N_FIELDS), dtype=np.int32)
    cards = np.empty(n_u, dtype=np.int8)
    rng_det = np.empty(RNG_WORDS, dtype=np.uint64)
    key = next_u64(t.rng)  # the decision's streams hang off the game's own stream
    total = np.zeros(K, dtype=np.float64)
    for i in range(budget):
        for j in range(n_u):
            cards[j] = truth[j] if peek else unseen[j]
        if not peek:
            seed_stream(rng_det, key, i, STREAM_DETERMINIZE)
            shuffle_prefix(rng_det, cards, n_u)
        for k in range(K):
            _reset(rt, st0, piles0, t.scores, unknown0)
            if card == NO_CARD:
                _deal_hidden(rt, t.vis, t.up, slots, cards, NO_CARD, n_draw, opts[k] != SRC_DRAW)
                rt.st[S_FORCE_SRC] = opts[k] + 1
            else:
                _deal_hidden(rt, t.vis, t.up, slots, cards, draw_top, n_draw, False)
                rt.st[S_FORCE_SRC] = src + 1
                rt.st[S_FORCE_POS] = opts[k] + 1
            seed_stream(rt.rng, key, i, STREAM_ROLL_PLAY)
            _play_turns(rt, rules, r, starter, s, laps_left, False)
            _score_round(rt, rules, r, starter, res)
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
    if _legal_sources(t, rules, s) == 1:
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
    if not _legal_placements(t, rules, s, card, src):
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
    H._prepare_me(prm, t.obs, t.memo, True)
    eu = H.unseen_mean(t.obs.unknown, prm)
    delta = np.empty(LAYOUT, dtype=np.float64)
    for q in range(LAYOUT):
        delta[q] = H._delta(prm, pub, t.obs.vis, t.obs.fd, t.memo.scratch, row, eu, q, card)
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
def mc_source(t, rules, s):
    """Set ``S_FORCE_SRC`` for an MC seat's draw (nothing for other kinds or a forced draw)."""
    if t.kinds[s] == KIND_MC and t.st[S_FORCE_SRC] == 0:
        src = choose_source(t, rules, s, False)
        if src >= 0:
            t.st[S_FORCE_SRC] = src + 1


@jit
def mc_placement(t, rules, s, card, src):
    """Set ``S_FORCE_POS`` for an MC seat's placement (nothing for other kinds or a forced one)."""
    if t.kinds[s] == KIND_MC and t.st[S_FORCE_POS] == 0:
        pos = choose_placement(t, rules, s, card, src, False)
        if pos >= 0:
            t.st[S_FORCE_POS] = pos + 1
