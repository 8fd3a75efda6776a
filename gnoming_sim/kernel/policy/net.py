"""The net family (``KIND_NET``): a small neural evaluator of every placement and bounce option.

Each option of a placement (a position for the card in hand, or not keeping it) and of a bounce (a
position, or stopping) is valued by a one-hidden-layer perceptron over

* the learned family's option features (``F_*`` of :mod:`gnoming_sim.kernel.policy.learned`, ``NF_P`` of
  them: the card-counted estimate change, revealing, finishing, gifts, pairs: what the option changes),
* the own layout *after* the option, line by line (:data:`LAYOUT_NAMES`, ``NX`` of them, :func:`layout_features`:
  lines matched and their value, lines one or two face-down cards short of a match, lines that cannot match as they
  stand, lines of three face-up cards one replacement from a match, the face-up positive cards in no matched line:
  what the layout *is*), and
* the decision's context (:data:`CONTEXT_NAMES`, ``NC`` of them): table size, round, turn, own and the
  rivals' face-down cards, the final lap, the own estimate against the best rival's, the mean unseen
  card, the card in hand, placement or bounce, and **the rules options** the observation shows (the
  early-finish bonus, the hazard's value, an unmatched mulligan's value, the negative cards' multiplier).

    value(option) = a . f  +  sum_h u_h * relu(b_h + W_h,ctx . ctx + W_h,f . f)

The player takes the option of the lowest value (the predicted change of its round score minus the
others' mean).  The context part of the first layer is the same for every option of a decision, so it
is computed once per decision (as NNUE updates its first layer incrementally); an option then costs at
most ``H * NF_P + H + NF_P`` multiply-adds (:data:`MACS_PER_OPTION`), fewer since only its non-zero features'
columns are added.  All buffers are the memo's scratch:
nothing is allocated in the loop.  Inputs are standardised inside the weights (the training folds the
means and scales into ``W`` and ``b``).

The draw source is valued by a second perceptron of the same form, the draw-source head (:func:`draw_source`):
each answer (the draw pile, a discard pile) by learned's placement features of its card at its best placement
under learned's placement model (the draw pile: their card-counted mean over the unseen cards), learned's
source features and the same context (a weights file without a head leaves it to learned's linear model, its
weights at ``L_W0`` in the same vector).  The decisions neither models (initial flips, the discard pile, a hazard
flip) are the base heuristic's.  The weights (``params[w0:w0 + N_WEIGHTS]``, ``w0`` =
:data:`gnoming_sim.kernel.policy.dispatch.N_W0`; the head's ``params[sw0:sw0 + N_SOURCE_WEIGHTS]``, ``sw0`` =
:data:`gnoming_sim.kernel.policy.dispatch.NS_W0`) are fitted by :mod:`gnoming_sim.tune.net_train` and committed
with their provenance in ``tuning/net/``.
"""
from __future__ import annotations

import numpy as np

from gnoming_sim.game.cards import HIDDEN, MAX_VALUE, MULLIGAN, N_SLOTS, NO_CARD, SLOT_OFFSET
from gnoming_sim.game.observation import (
    CHOICE_NOKEEP,
    O_FINISHER,
    O_FINISH_BONUS,
    O_HAZARD_VALUE,
    O_ME,
    O_MULLIGAN_VALUE,
    O_MULLIGANS_PER_LINE,
    O_NEGATIVE_MULTIPLIER,
    O_PLAYERS,
    O_ROUND,
    O_TOP0,
    O_TURN,
    SRC_DRAW,
    U_COUNT,
    U_FIRST_CARD,
)
from gnoming_sim.game.rules import LAYOUT
from gnoming_sim.kernel.jit import jit
from gnoming_sim.kernel.policy import heuristic as H
from gnoming_sim.kernel.policy import learned as L
from gnoming_sim.kernel.policy.estimate import estimate
from gnoming_sim.kernel.scoring import LINES

# the own layout after the option, line by line (:func:`layout_features`)
LAYOUT_NAMES = ("lines_matched", "matched_value", "lines_one_short", "one_short_value", "lines_two_short",
                "lines_blocked", "unmatched_up", "max_unmatched_up", "lines_one_intruder")
NX = len(LAYOUT_NAMES)
NF = L.NF_P + NX       # option features (learned's placement features, then the layout after the option)
CONTEXT_NAMES = ("players", "round", "turn", "own_fd", "min_rival_fd", "mean_rival_fd", "final", "own_minus_best",
                 "unseen_mean", "hand_cost", "bounce", "finish_bonus", "hazard_value", "mulligan_value",
                 "negative_multiplier")
NC = len(CONTEXT_NAMES)
NI = NF + NC           # inputs per option
HIDDEN_UNITS = 24
# the weight vector: W (NI x HIDDEN_UNITS: one input's column of the first layer after another), b (HIDDEN_UNITS),
# u (HIDDEN_UNITS), a (NF)
W_AT = 0
B_AT = W_AT + HIDDEN_UNITS * NI
U_AT = B_AT + HIDDEN_UNITS
A_AT = U_AT + HIDDEN_UNITS
N_WEIGHTS = A_AT + NF
WEIGHT_NAMES = (tuple(f"net.w.{i}.{h}" for i in range(NI) for h in range(HIDDEN_UNITS))
                + tuple(f"net.b.{h}" for h in range(HIDDEN_UNITS)) + tuple(f"net.u.{h}" for h in range(HIDDEN_UNITS))
                + tuple(f"net.a.{i}" for i in range(NF)))
INPUT_NAMES = L.FEATURE_NAMES + LAYOUT_NAMES + CONTEXT_NAMES
MACS_PER_OPTION = HIDDEN_UNITS * NF + HIDDEN_UNITS + NF

FB = L.FB              # the option features in Memo.scratch (learned's buffer, then the layout's NX)
XB = FB + L.NF_P
CB = FB + NF           # then the context inputs
ZB = CB + NC           # then the context part of the hidden pre-activations
OB = ZB + HIDDEN_UNITS  # then one option's hidden pre-activations
# the draw-source head: one more perceptron of the same form over a source option's features (the learned placement
# features of the card's best answer under learned's placement model: for the draw pile their card-counted mean over
# the unseen cards; then learned's source features ``G_*``) and the same context inputs; its weights follow the
# placement head's in the parameter vector (at :data:`gnoming_sim.kernel.policy.dispatch.NS_W0`) and
# ``S_ON`` = 0 (a weights file without a source head) leaves the draw source to learned's
NFS = L.NF_P + L.NF_S
NIS = NFS + NC
SOURCE_HIDDEN = 16
SB_AT = SOURCE_HIDDEN * NIS
SU_AT = SB_AT + SOURCE_HIDDEN
SA_AT = SU_AT + SOURCE_HIDDEN
S_ON = SA_AT + NFS
N_SOURCE_WEIGHTS = S_ON + 1
SOURCE_FEATURE_NAMES = L.FEATURE_NAMES + L.SOURCE_FEATURE_NAMES
SOURCE_INPUT_NAMES = SOURCE_FEATURE_NAMES + CONTEXT_NAMES
SOURCE_WEIGHT_NAMES = (tuple(f"net.s.w.{i}.{h}" for i in range(NIS) for h in range(SOURCE_HIDDEN))
                       + tuple(f"net.s.b.{h}" for h in range(SOURCE_HIDDEN))
                       + tuple(f"net.s.u.{h}" for h in range(SOURCE_HIDDEN))
                       + tuple(f"net.s.a.{i}" for i in range(NFS)) + ("net.s.on",))
N_SOURCES_MAX = 3      # the draw pile, discard pile 0, discard pile 1 (answers SRC_DRAW, 1, 2)
SFB = OB + HIDDEN_UNITS          # the source options' features, NFS each, in answer order
SZB = SFB + N_SOURCES_MAX * NFS  # the source head's hidden context
SOB = SZB + SOURCE_HIDDEN        # one source option's hidden pre-activations
STB = SOB + SOURCE_HIDDEN        # the features of the best answer so far (learned's placement features)
LAB = STB + L.NF_P               # the layout's own lines and gifts at every position (:func:`L.as_is`)
LSB = LAB + L.N_AS_IS            # each position's card-independent part of learned's value (:func:`_static_parts`)
N_MEMO_SCRATCH = LSB + LAYOUT
INF = 1e18


def widen(weights, inputs) -> np.ndarray:
    """A placement head's weights over the inputs named ``inputs`` (a weights file's ``layout``, each a name of
    :data:`INPUT_NAMES`, the option features first) as a vector of this layout: an input the file lacks gets zero
    weights (its column of the first layer and its linear weight), so the head values every option as before
    (a file from before the layout features plays the same games)."""
    w = np.asarray(weights, dtype=np.float64)
    nf_old = sum(1 for x in inputs if x not in CONTEXT_NAMES)
    ni_old = len(inputs)
    if w.size != HIDDEN_UNITS * ni_old + 2 * HIDDEN_UNITS + nf_old:
        raise ValueError(f"{w.size} weights do not fit {ni_old} inputs and {HIDDEN_UNITS} hidden units")
    unknown = [x for x in inputs if x not in INPUT_NAMES]
    if unknown:
        raise ValueError(f"inputs the net does not know: {', '.join(unknown)}")
    out = np.zeros(N_WEIGHTS)
    hu = HIDDEN_UNITS
    for i, name in enumerate(inputs):
        j = INPUT_NAMES.index(name)
        out[W_AT + j * hu:W_AT + (j + 1) * hu] = w[i * hu:(i + 1) * hu]
    out[B_AT:B_AT + hu] = w[ni_old * hu:ni_old * hu + hu]
    out[U_AT:U_AT + hu] = w[ni_old * hu + hu:ni_old * hu + 2 * hu]
    for i, name in enumerate(inputs[:nf_old]):
        out[A_AT + INPUT_NAMES.index(name)] = w[ni_old * hu + 2 * hu + i]
    return out


@jit(inline="always")
def layout_features(buf, at, row, q, card, mpl):
    """The own layout ``row`` with ``card`` put at position ``q`` (``q`` = ``LAYOUT``: as it is), line by line
    (the 3 rows and 3 columns), into ``buf[at:at + NX]`` (:data:`LAYOUT_NAMES`): a line *can match* when it holds
    no negative card and no hazard, at most ``mpl`` mulligans (0: any number) and one positive value among its
    face-up cards; it is *matched* with no face-down card (its value that positive value), *one short* / *two
    short* with one / two; *blocked* when it cannot match as it stands; *one intruder*: three face-up cards,
    two of them equal positives, not matched; then the face-up positive cards in no matched line (their sum and
    the largest): what scores if the round ended now, apart from negatives, hazards and face-down cards."""
    cap = mpl if mpl > 0 else LAYOUT
    n_m = 0
    v_m = 0.0
    n_1 = 0
    v_1 = 0.0
    n_2 = 0
    n_b = 0
    n_i = 0
    in_m = 0
    for li in range(6):
        fd = 0
        npos = 0
        nm = 0
        vmax = -1
        vmin = MAX_VALUE + 1
        bad = False
        pair = False
        for j in range(3):
            p = LINES[li, j]
            x = card if p == q else row[p]
            if x == HIDDEN:
                fd += 1
            elif 0 <= x <= MAX_VALUE:
                for k in range(j):
                    pk = LINES[li, k]
                    if (card if pk == q else row[pk]) == x:
                        pair = True
                npos += 1
                vmax = max(vmax, x)
                vmin = min(vmin, x)
            elif x == MULLIGAN:
                nm += 1
            else:
                bad = True
        if nm > cap or (npos > 0 and vmax != vmin):
            bad = True
        v = vmax if npos > 0 else 0
        if bad:
            n_b += 1
            if fd == 0 and pair:
                n_i += 1
        elif fd == 0:
            n_m += 1
            v_m += v
            for j in range(3):
                in_m |= 1 << LINES[li, j]
        elif fd == 1:
            n_1 += 1
            v_1 += v
        elif fd == 2:
            n_2 += 1
    up = 0.0
    top = 0.0
    for p in range(LAYOUT):
        x = card if p == q else row[p]
        if 0 <= x <= MAX_VALUE and not (in_m >> p) & 1:
            up += x
            top = max(top, 1.0 * x)
    buf[at + 0] = n_m
    buf[at + 1] = v_m
    buf[at + 2] = n_1
    buf[at + 3] = v_1
    buf[at + 4] = n_2
    buf[at + 5] = n_b
    buf[at + 6] = up
    buf[at + 7] = top
    buf[at + 8] = n_i


@jit(inline="always")
def context_inputs(buf, prm, obs, eu, ctx, card, bounce):
    """Write the decision's context inputs into ``buf[CB:CB + NC]`` (``ctx``: :func:`L.context`)."""
    pub = obs.pub
    me = pub[O_ME]
    min_ofd, mean_ofd, best_opp, final, flippable, nxt = ctx
    row = obs.vis[me]
    mpl = pub[O_MULLIGANS_PER_LINE]
    own = estimate(row, -1, 0, eu, mpl, 0.0, 0.0, pub[O_HAZARD_VALUE], pub[O_MULLIGAN_VALUE],
                   pub[O_NEGATIVE_MULTIPLIER])
    gap = own - best_opp
    buf[CB + 0] = pub[O_PLAYERS]
    buf[CB + 1] = pub[O_ROUND]
    buf[CB + 2] = pub[O_TURN] / pub[O_PLAYERS]
    buf[CB + 3] = obs.fd[me]
    buf[CB + 4] = min_ofd
    buf[CB + 5] = mean_ofd
    buf[CB + 6] = final
    buf[CB + 7] = min(L.GAP_CLIP, max(-L.GAP_CLIP, gap))
    buf[CB + 8] = eu
    buf[CB + 9] = H.seen_cost(card, pub) if card != HIDDEN else eu
    buf[CB + 10] = 1.0 if bounce else 0.0
    buf[CB + 11] = pub[O_FINISH_BONUS]
    buf[CB + 12] = pub[O_HAZARD_VALUE]
    buf[CB + 13] = pub[O_MULLIGAN_VALUE]
    buf[CB + 14] = pub[O_NEGATIVE_MULTIPLIER]


@jit(inline="always")
def head_context(buf, prm, base, nf, hu, zb):
    """The context part of every hidden unit's pre-activation (bias included) of the head whose weights start at
    ``base`` (``nf`` option features, ``hu`` hidden units) into ``buf[zb:zb + hu]``."""
    b_at = base + hu * (nf + NC)
    for h in range(hu):
        buf[zb + h] = prm[b_at + h]
    for c in range(NC):
        x = buf[CB + c]
        if x != 0.0:
            col = base + (nf + c) * hu
            for h in range(hu):
                buf[zb + h] += prm[col + h] * x


@jit(inline="always")
def head_value(buf, prm, base, fb, nf, hu, zb, ob):
    """The value of the option whose ``nf`` features are in ``buf[fb:fb + nf]`` under the head at ``base`` (after
    :func:`head_context` into ``buf[zb:]``; ``buf[ob:ob + hu]`` is its workspace).

    Most features of an option are 0 (a gift, a reveal, a finish exclude one another), so the first layer
    adds the columns of the non-zero features only, as NNUE updates its accumulator."""
    u_at = base + hu * (nf + NC) + hu
    a_at = u_at + hu
    for h in range(hu):
        buf[ob + h] = buf[zb + h]
    v = 0.0
    for i in range(nf):
        x = buf[fb + i]
        if x != 0.0:
            v += prm[a_at + i] * x
            col = base + i * hu
            for h in range(hu):
                buf[ob + h] += prm[col + h] * x
    for h in range(hu):
        z = buf[ob + h]
        if z > 0.0:
            v += prm[u_at + h] * z
    return v


@jit(inline="always")
def hidden_context(buf, prm, w0):
    """The context part of every hidden unit's pre-activation (bias included) into ``buf[ZB:ZB + HIDDEN_UNITS]``."""
    head_context(buf, prm, w0 + W_AT, NF, HIDDEN_UNITS, ZB)


@jit(inline="always")
def option_value(buf, prm, w0):
    """The value of the option whose features are in ``buf[FB:FB + NF]`` (after :func:`hidden_context`)."""
    return head_value(buf, prm, w0 + W_AT, FB, NF, HIDDEN_UNITS, ZB, OB)


@jit
def prepare(prm, w0, obs, memo, card, bounce):
    """Everything one decision's options share: the heuristic's precompute, the mean unseen card, learned's
    context and the net's context inputs and hidden context (in ``memo.scratch``); returns (eu, ctx)."""
    H.prepare_me(prm, obs, memo, not bounce)
    eu = H.unseen_mean(obs, prm)
    ctx = L.context(obs.pub, obs.vis, obs.fd, eu)
    context_inputs(memo.scratch, prm, obs, eu, ctx, card, bounce)
    hidden_context(memo.scratch, prm, w0)
    return eu, ctx


@jit
def _best(prm, w0, obs, memo, card, legal, may_decline, bounce):
    """The answer of the lowest value among the legal positions and, if ``may_decline``, not keeping /
    stopping (``LAYOUT``).  Compiled once (flags as ``np.bool_``, ``card`` as an int)."""
    eu, ctx = prepare(prm, w0, obs, memo, card, bounce)
    scratch = memo.scratch
    row = obs.vis[obs.pub[O_ME]]
    mpl = obs.pub[O_MULLIGANS_PER_LINE]
    best = INF
    best_q = -1
    last = LAYOUT + 1 if may_decline else LAYOUT
    for q in range(last):
        if q < LAYOUT and not legal[q]:
            continue
        L.place_features(scratch, prm, obs, scratch, row, eu, q, card, ctx)
        layout_features(scratch, XB, row, q, card, mpl)
        v = option_value(scratch, prm, w0)
        if v < best:
            best = v
            best_q = q
    return best_q


@jit
def placement(prm, w0, obs, memo, card, legal):
    """The answer of the lowest value for ``card`` (a position, or ``CHOICE_NOKEEP`` when legal)."""
    q = _best(prm, w0, obs, memo, int(card), legal, np.bool_(legal[CHOICE_NOKEEP] != 0), np.bool_(False))
    return q if q < LAYOUT else CHOICE_NOKEEP


@jit
def bounce_target(prm, w0, obs, memo, card, legal):
    """The bounce of the lowest value (a position not filled this turn), or stopping (``CHOICE_STOP``)."""
    return _best(prm, w0, obs, memo, int(card), legal, np.bool_(True), np.bool_(True))


@jit(inline="always")
def _static_parts(prm, w, obs, scratch, row, eu, ctx):
    """Per position q of the layout, learned's weights (``w``) times the features that do not depend on the card
    put there (:data:`L.STATIC`) into ``scratch[LSB + q]`` (after :func:`L.as_is`)."""
    for q in range(LAYOUT):
        L.place_features_at(scratch, prm, obs, scratch, row, eu, q, 0, ctx, LAB)
        v = 0.0
        for i in L.STATIC:
            v += prm[w + i] * scratch[L.FB + i]
        scratch[LSB + q] = v


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


@jit
def source_inputs(prm, lw0, obs, memo, legal, full):
    """The source head's inputs of one draw-source decision: the context into ``memo.scratch[CB:CB + NC]`` and
    each answer's features into ``memo.scratch[SFB + a * NFS:]`` (a = ``SRC_DRAW``, pile 0, pile 1); returns a
    bit mask of the answers valued (a pile that is not legal, empty, or a mulligan that cannot be kept is not).
    As :func:`gnoming_sim.kernel.policy.learned.source_values`: a pile's card at its best placement, the draw pile
    the count-weighted mean over the unseen cards of each one's best answer (keeping it where it fits, or not),
    under learned's placement model (``lw0``: learned's weights).  Unless ``full``, the draw pile is not valued when
    it is the only answer valued."""
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
        for sl in range(U_FIRST_CARD, N_SLOTS):
            cnt = unknown[sl]
            if cnt <= 0:
                continue
            c = sl - SLOT_OFFSET
            keep = not (c == MULLIGAN and not mfits)   # a mulligan that cannot be kept is thrown away
            vd += cnt * _best_features(prm, w, obs, scratch, row, eu, int(c), True, ctx, keep, SFB, cnt / n)
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
    valued = source_inputs(prm, lw0, obs, memo, legal, np.bool_(False))
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
def source_option_inputs(prm, lw0, obs, memo, legal, opts, K, out):
    """The source head's inputs of answers ``opts[:K]`` (``SRC_DRAW``, 1 + pile) into ``out[k, :NIS]`` (features,
    then context): the training rows; returns the bit mask of :func:`source_inputs`."""
    valued = source_inputs(prm, lw0, obs, memo, legal, np.bool_(True))
    scratch = memo.scratch
    for k in range(K):
        for i in range(NFS):
            out[k, i] = scratch[SFB + opts[k] * NFS + i]
        for c in range(NC):
            out[k, NFS + c] = scratch[CB + c]
    return valued


@jit
def option_inputs(prm, w0, obs, memo, card, bounce, opts, K, out):
    """The inputs of answers ``opts[:K]`` (positions, or ``LAYOUT`` for not keeping / stopping) of a
    placement or bounce of ``card`` into ``out[k, :NI]`` (features, then context): the training rows."""
    eu, ctx = prepare(prm, w0, obs, memo, card, bounce)
    scratch = memo.scratch
    row = obs.vis[obs.pub[O_ME]]
    mpl = obs.pub[O_MULLIGANS_PER_LINE]
    for k in range(K):
        L.place_features(scratch, prm, obs, scratch, row, eu, opts[k], card, ctx)
        layout_features(scratch, XB, row, opts[k], card, mpl)
        for i in range(NF):
            out[k, i] = scratch[FB + i]
        for c in range(NC):
            out[k, NF + c] = scratch[CB + c]


__all__ = ["NF", "NX", "LAYOUT_NAMES", "layout_features", "widen", "NC", "NI", "HIDDEN_UNITS", "N_WEIGHTS", "WEIGHT_NAMES", "INPUT_NAMES", "CONTEXT_NAMES",
           "MACS_PER_OPTION", "N_MEMO_SCRATCH", "W_AT", "B_AT", "U_AT", "A_AT", "placement", "bounce_target",
           "option_inputs", "option_value", "context_inputs", "hidden_context", "prepare", "head_context", "head_value",
           "NFS", "NIS", "SOURCE_HIDDEN", "N_SOURCE_WEIGHTS", "SOURCE_WEIGHT_NAMES", "SOURCE_INPUT_NAMES", "S_ON",
           "source_inputs", "source_option_inputs", "draw_source"]
