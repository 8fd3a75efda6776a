"""The net's draw-source head (:mod:`gnoming_sim.kernel.policy.net`): its inputs and its choice.

Each answer (the draw pile, a discard pile) is valued by learned's placement features of its card at its best
placement under learned's placement model (the draw pile: their card-counted mean over the unseen cards),
learned's source features and the net's context, through a perceptron of the placement head's form
(:func:`gnoming_sim.kernel.policy.net.head_value`).  Valuing the draw pile is most of a decision's work: every
unseen card at every position.  Where a card pairs with nothing in the lines through a position its value there is
linear in its cost (:func:`_generic_parts`), which :func:`_draw_features` uses; the tests check it gives the full
computation's numbers.
"""
from __future__ import annotations

import numpy as np

from gnoming_sim.game.cards import HAZARD, HIDDEN, MAX_VALUE, MIN_VALUE, MULLIGAN, N_SLOTS, NO_CARD
from gnoming_sim.game.observation import O_FINISHER, O_HAZARD_VALUE, O_ME, O_MULLIGAN_VALUE, O_MULLIGANS_PER_LINE, \
    O_NEGATIVE_MULTIPLIER, O_PLAYERS, O_TOP0, SRC_DRAW, U_COUNT, U_FIRST_CARD
from gnoming_sim.game.rules import LAYOUT
from gnoming_sim.kernel.jit import jit
from gnoming_sim.kernel.policy import heuristic as H
from gnoming_sim.kernel.policy import learned as L
from gnoming_sim.kernel.policy.estimate import cell_cost, quick_delta
from gnoming_sim.kernel.policy.net import (CB, FTB, GB, INF, LAB, LSB, N_SOURCES_MAX, NC, NFS, NG, S_ON, SFB, SOB,
                                          SOURCE_HIDDEN, STB, SZB, WB, context_inputs, head_context, head_value)
from gnoming_sim.kernel.scoring import LINES

# the cells in the row or the column through each position, the position itself left out
NEIGH = np.array([sum(1 << int(p) for li in range(6) if q in LINES[li] for p in LINES[li] if p != q)
                  for q in range(LAYOUT)], dtype=np.int64)
GENERIC = MAX_VALUE + 1          # a card no layout holds: it pairs with nothing and matches no line


@jit(inline="always")
def _static_parts(prm, w, obs, scratch, row, eu, ctx):
    """Per position q of the layout, learned's weights (``w``) times the features that do not depend on the card
    put there (:data:`L.STATIC`) into ``scratch[LSB + q]`` (after :func:`L.as_is`), and the features themselves (of
    :data:`GENERIC` put there) into ``scratch[FTB + NF_P q:][:NF_P]``: with them :data:`GENERIC`'s value there
    into ``scratch[GB + NG q]`` (:func:`_generic_parts` makes it ``a``)."""
    for q in range(LAYOUT):
        L.place_features_at(scratch, prm, obs, scratch, row, eu, q, GENERIC, ctx, LAB)
        for i in range(L.NF_P):
            scratch[FTB + L.NF_P * q + i] = scratch[L.FB + i]
        v = 0.0
        for i in L.STATIC:
            v += prm[w + i] * scratch[L.FB + i]
        scratch[LSB + q] = v
        for i in L.DYNAMIC:
            v += prm[w + i] * scratch[L.FB + i]
        scratch[GB + NG * q] = v


@jit(inline="always")
def _best_features(prm, w, obs, scratch, row, eu, c, may_decline, ctx, keep, to, weight):
    """learned's best answer for ``c`` (as :func:`gnoming_sim.kernel.policy.learned._best_answer` without a legal
    mask: positions unless not ``keep``, not keeping if ``may_decline``): its value, and ``weight`` times its
    placement features added to ``scratch[to:to + NF_P]`` (kept as the loop finds them, not computed again).
    A position's value is its card-independent part (:func:`_static_parts`) plus the card's features
    (:data:`L.DYNAMIC`): learned's dot product summed in another order."""
    best = INF
    last = LAYOUT + 1 if may_decline else LAYOUT
    for q in range(0 if keep else LAYOUT, last):
        L.place_features_at(scratch, prm, obs, scratch, row, eu, q, c, ctx, LAB)
        if q < LAYOUT:
            v = scratch[LSB + q]
            for i in L.DYNAMIC:
                v += prm[w + i] * scratch[L.FB + i]
        else:
            v = L._dot(scratch, prm, w, L.NF_P)
        if v < best:
            best = v
            for i in range(L.NF_P):
                scratch[STB + i] = scratch[L.FB + i]
    for i in range(L.NF_P):
        scratch[to + i] += weight * scratch[STB + i]
    return best


@jit(inline="always")
def _generic_parts(prm, w, obs, scratch, row, eu, ctx):
    """The positions (a bit mask) where learned's value of a card that pairs with nothing in the lines through them
    is ``a + b * cost`` (its unmatched cost): no mulligan in those lines, not a finish's last face-down card.  There
    the card changes only ``quick_delta`` (by its cost), not the line features, so the value (:func:`_static_parts`
    plus ``L.DYNAMIC`` times ``w``) is :data:`GENERIC`'s shifted along the estimate change's weights.  Per such q,
    ``a`` and ``b`` into ``scratch[GB + NG q:][:2]`` (after :func:`_static_parts`, which left GENERIC's value)."""
    pub = obs.pub
    final = ctx[3]
    cost = cell_cost(GENERIC, False, eu, prm[H.H_MULLIGAN], pub[O_HAZARD_VALUE], pub[O_MULLIGAN_VALUE],
                     pub[O_NEGATIVE_MULTIPLIER])
    mull = 0
    for x in range(LAYOUT):
        if row[x] == MULLIGAN:
            mull |= 1 << x
    fin = obs.fd[pub[O_ME]] == 1 and pub[O_FINISHER] < 0
    elig = 0
    for q in range(LAYOUT):
        hid = row[q] == HIDDEN
        if (NEIGH[q] & mull) != 0 or (fin and hid):
            continue
        elig |= 1 << q
        slope = prm[w + L.F_DELTA] + prm[w + L.F_DELTA_FINAL] * final + (prm[w + L.F_DELTA_HID] if hid else 0.0)
        scratch[GB + NG * q] -= slope * cost
        scratch[GB + NG * q + 1] = slope
    return elig


@jit(inline="always")
def _draw_features(prm, w, obs, scratch, row, eu, c, ctx, keep, gm, weight, nxt_values):
    """:func:`_best_features` of an unseen card ``c`` for the draw pile, faster: at the positions of ``gm`` (those of
    :func:`_generic_parts` where no other card of the lines through them equals ``c``, not a mulligan) valued as
    ``a + b * cost``, not keeping ``c`` from its gift features (``nxt_values``: bit ``v - MIN_VALUE`` per value v face
    up in the next layout); the best answer's value and card-dependent features as there, its static features added
    once a decision (:func:`_draw_static`).  The same numbers summed in another order (a choice could differ only
    between two values equal but for their last bits)."""
    pub = obs.pub
    best = INF
    best_q = -1
    fast = False
    cost = cell_cost(c, False, eu, prm[H.H_MULLIGAN], pub[O_HAZARD_VALUE], pub[O_MULLIGAN_VALUE],
                      pub[O_NEGATIVE_MULTIPLIER])
    for q in range(LAYOUT if keep else 0):
        if (gm >> q) & 1:
            v = scratch[GB + NG * q] + scratch[GB + NG * q + 1] * cost
            if v < best:
                best = v
                best_q = q
                fast = True
            continue
        L.place_features_at(scratch, prm, obs, scratch, row, eu, q, c, ctx, LAB)
        v = scratch[LSB + q]
        for i in L.DYNAMIC:
            v += prm[w + i] * scratch[L.FB + i]
        if v < best:
            best = v
            best_q = q
            fast = False
            for i in range(L.NF_P):
                scratch[STB + i] = scratch[L.FB + i]
    # not keeping it: learned's dot product (L._dot) over its non-zero features, the gift's and F_NOKEEP
    g_cost = 0.0
    g_good = 0.0
    g_pairs = 0.0
    g_haz = 0.0
    if c == HAZARD:
        g_haz = ctx[4]
    else:
        g_cost = 1.0 * H.seen_cost(c, pub)
        if c == MULLIGAN or c < 0:
            g_good = 1.0
        if c == MULLIGAN or (c <= MAX_VALUE and (nxt_values >> (c - MIN_VALUE)) & 1):
            g_pairs = 1.0
    v = 0.0
    if g_cost != 0.0:
        v += prm[w + L.F_GIFT_COST] * g_cost
    if g_good != 0.0:
        v += prm[w + L.F_GIFT_GOOD] * g_good
    if g_pairs != 0.0:
        v += prm[w + L.F_GIFT_PAIRS] * g_pairs
    if g_haz != 0.0:
        v += prm[w + L.F_HAZ_GIVE] * g_haz
    v += prm[w + L.F_NOKEEP]
    if v < best:
        scratch[SFB + L.F_GIFT_COST] += weight * g_cost
        scratch[SFB + L.F_GIFT_GOOD] += weight * g_good
        scratch[SFB + L.F_GIFT_PAIRS] += weight * g_pairs
        scratch[SFB + L.F_HAZ_GIVE] += weight * g_haz
        scratch[SFB + L.F_NOKEEP] += weight
        return v
    if not fast:
        for i in range(L.NF_P):
            scratch[SFB + i] += weight * scratch[STB + i]
        return best
    q = best_q                        # its card-dependent features: GENERIC's there with c's estimate change
    d = quick_delta(row, q, c, scratch, eu, pub[O_MULLIGANS_PER_LINE], prm[H.H_PAIR], prm[H.H_MULLIGAN],
                    pub[O_HAZARD_VALUE], pub[O_MULLIGAN_VALUE], pub[O_NEGATIVE_MULTIPLIER])
    for i in L.DYNAMIC:
        scratch[L.FB + i] = scratch[FTB + L.NF_P * q + i]
    scratch[L.FB + L.F_DELTA] = d
    scratch[L.FB + L.F_DELTA_FINAL] = d * ctx[3]
    if row[q] == HIDDEN:
        scratch[L.FB + L.F_DELTA_HID] = d
    best = scratch[LSB + q]           # learned's value in _best_features' order
    for i in L.DYNAMIC:
        best += prm[w + i] * scratch[L.FB + i]
        scratch[SFB + i] += weight * scratch[L.FB + i]
    scratch[WB + q] += weight
    return best


@jit(inline="always")
def _draw_static(scratch):
    """The card-independent features of the positions :func:`_draw_features` chose fast, once: each position's
    weight (``scratch[WB + q]``) times its features of :func:`_static_parts` (``L.STATIC``), into ``scratch[SFB:]``."""
    for q in range(LAYOUT):
        wq = scratch[WB + q]
        if wq != 0.0:
            for i in L.STATIC:
                scratch[SFB + i] += wq * scratch[FTB + L.NF_P * q + i]


@jit
def source_inputs(prm, lw0, obs, memo, legal, full, generic):
    """The source head's inputs of one draw-source decision: the context into ``memo.scratch[CB:CB + NC]`` and
    each answer's features into ``memo.scratch[SFB + a * NFS:]`` (a = ``SRC_DRAW``, pile 0, pile 1); returns a
    bit mask of the answers valued (a pile that is not legal, empty, or a mulligan that cannot be kept is not).
    As :func:`gnoming_sim.kernel.policy.learned.source_values`: a pile's card at its best placement, the draw pile
    the count-weighted mean over the unseen cards of each one's best answer (keeping it where it fits, or not),
    under learned's placement model (``lw0``: learned's weights).  Unless ``full``, the draw pile is not valued when
    it is the only answer valued.  ``generic``: the draw pile's cards valued as ``a + b cost`` where that applies
    (:func:`_draw_features`; the same numbers; False: every position in full, as the tests compare)."""
    pub = obs.pub
    w = lw0 + L.size_bucket(pub[O_PLAYERS]) * L.N_WEIGHTS_ONE
    H.prepare_me(prm, obs, memo, True)
    eu = H.unseen_mean(obs, prm)
    ctx = L.context(pub, obs.vis, obs.fd, eu)
    scratch = memo.scratch
    for i in range(N_SOURCES_MAX * NFS):
        scratch[SFB + i] = 0.0
    row = obs.vis[pub[O_ME]]
    L.as_is(scratch, obs, row, ctx, LAB)
    _static_parts(prm, w, obs, scratch, row, eu, ctx)
    mfits = H.mulligan_fits(row, pub)
    final = 1.0 if pub[O_FINISHER] >= 0 else 0.0
    my_fd = 1.0 * obs.fd[pub[O_ME]]
    valued = 1
    for k in range(2):
        top = pub[O_TOP0 + k]
        if not legal[1 + k] or top == NO_CARD or (top == MULLIGAN and not mfits):
            continue
        to = SFB + (1 + k) * NFS
        v = _best_features(prm, w, obs, scratch, row, eu, int(top), False, ctx, True, to, 1.0)
        L.source_features(scratch, v, False, final, my_fd, eu, top)
        for i in range(L.NF_S):
            scratch[to + L.NF_P + i] = scratch[L.FB + i]
        valued |= 1 << (1 + k)
    if valued == 1 and not full:
        return valued                # the draw pile is the only answer: nothing to value
    context_inputs(scratch, prm, obs, eu, ctx, HIDDEN, False)
    unknown = obs.unknown
    n = unknown[U_COUNT]
    vd = 0.0
    if n > 0:
        elig = _generic_parts(prm, w, obs, scratch, row, eu, ctx) if generic else 0
        for q in range(LAYOUT):
            scratch[WB + q] = 0.0
        nxt_values = 0
        nxt_row = obs.vis[ctx[5]]
        for x in range(LAYOUT):
            y = nxt_row[x]
            if MIN_VALUE <= y <= MAX_VALUE:
                nxt_values |= 1 << (y - MIN_VALUE)
        for sl in range(U_FIRST_CARD, N_SLOTS):
            cnt, c, keep = L.unseen_kind(unknown, sl, mfits)
            if cnt <= 0:
                continue
            gm = 0
            if elig != 0 and c != MULLIGAN:
                gm = elig
                for x in range(LAYOUT):
                    if row[x] == c:
                        gm &= ~NEIGH[x]
            vd += cnt * _draw_features(prm, w, obs, scratch, row, eu, int(c), ctx, keep, gm, cnt / n, nxt_values)
        _draw_static(scratch)
        vd /= n
    L.source_features(scratch, vd, True, final, my_fd, eu, NO_CARD)
    for i in range(L.NF_S):
        scratch[SFB + L.NF_P + i] = scratch[L.FB + i]
    return valued


@jit
def draw_source(prm, sw0, lw0, obs, memo, legal):
    """The draw source of the lowest value under the source head at ``sw0`` (``SRC_DRAW`` or 1 + pile); learned's
    (weights at ``lw0``) when the weights have no source head (``S_ON`` 0)."""
    if prm[sw0 + S_ON] == 0.0:
        return L.draw_source(prm, lw0, obs, memo, legal)
    valued = source_inputs(prm, lw0, obs, memo, legal, np.bool_(False), np.bool_(True))
    if valued == 1:
        return SRC_DRAW
    scratch = memo.scratch
    head_context(scratch, prm, sw0, NFS, SOURCE_HIDDEN, SZB)
    best = INF
    src = SRC_DRAW
    for a in range(N_SOURCES_MAX):
        if valued & (1 << a):
            v = head_value(scratch, prm, sw0, SFB + a * NFS, NFS, SOURCE_HIDDEN, SZB, SOB)
            if v < best:
                best = v
                src = a
    return src


@jit
def source_option_inputs(prm, lw0, obs, memo, legal, opts, K, out, generic):
    """The source head's inputs of answers ``opts[:K]`` (``SRC_DRAW``, 1 + pile) into ``out[k, :NIS]`` (features,
    then context): the training rows; returns the bit mask of :func:`source_inputs` (``generic`` as there)."""
    valued = source_inputs(prm, lw0, obs, memo, legal, np.bool_(True), generic)
    scratch = memo.scratch
    for k in range(K):
        for i in range(NFS):
            out[k, i] = scratch[SFB + opts[k] * NFS + i]
        for c in range(NC):
            out[k, NFS + c] = scratch[CB + c]
    return valued


__all__ = ["source_inputs", "source_option_inputs", "draw_source"]
