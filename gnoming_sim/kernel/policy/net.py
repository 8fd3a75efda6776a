"""The net family (``KIND_NET``): a small neural evaluator of every placement and bounce option.

Each option of a placement (a position for the card in hand, or not keeping it) and of a bounce (a
position, or stopping) is valued by a one-hidden-layer perceptron over

* the learned family's option features (``F_*`` of :mod:`gnoming_sim.kernel.policy.learned`, ``NF_P`` of
  them: the card-counted estimate change, revealing, finishing, gifts, pairs: what the option changes),
* the own layout *after* the option, line by line (``NX`` of them, :mod:`gnoming_sim.kernel.policy.net_layout`:
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
columns are added.  All buffers are the memo's scratch: nothing is allocated in the loop.  Inputs are standardised
inside the weights (the training folds the means and scales into ``W`` and ``b``).

The draw source is valued by a second perceptron of the same form, the draw-source head
(:func:`gnoming_sim.kernel.policy.net_source.draw_source`):
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

from gnoming_sim.game.cards import HIDDEN
from gnoming_sim.game.observation import (
    CHOICE_NOKEEP,
    O_FINISH_BONUS,
    O_HAZARD_VALUE,
    O_ME,
    O_MULLIGAN_VALUE,
    O_MULLIGANS_PER_LINE,
    O_NEGATIVE_MULTIPLIER,
    O_PLAYERS,
    O_ROUND,
    O_TURN,
)
from gnoming_sim.game.rules import LAYOUT
from gnoming_sim.kernel.jit import jit
from gnoming_sim.kernel.policy import heuristic as H
from gnoming_sim.kernel.policy import learned as L
from gnoming_sim.kernel.policy.estimate import estimate
from gnoming_sim.kernel.policy.net_layout import (LAYOUT_NAMES, N_LINE_SLOTS, NX, layout_features,
                                                  layout_features_after, layout_lines)

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
FTB = LSB + LAYOUT               # each position's learned features for a card 0 put there (:func:`_static_parts`)
GB = FTB + LAYOUT * L.NF_P       # per position, a card that pairs with nothing there valued as a + b cost: (a, b)
NG = 2
WB = GB + NG * LAYOUT            # per position, the draw pile's weight of the cards whose best answer it is
LLB = WB + LAYOUT                # the own layout's lines as they are (:func:`layout_lines`): kind, value, one intruder
N_MEMO_SCRATCH = LLB + N_LINE_SLOTS
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
    layout_lines(scratch, LLB, row, mpl)
    for q in range(last):
        if q < LAYOUT and not legal[q]:
            continue
        L.place_features(scratch, prm, obs, scratch, row, eu, q, card, ctx)
        layout_features_after(scratch, XB, row, q, card, mpl, LLB)
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


__all__ = ["NF", "NX", "LAYOUT_NAMES", "layout_features", "layout_features_after", "layout_lines", "widen", "NC", "NI",
           "HIDDEN_UNITS", "N_WEIGHTS", "WEIGHT_NAMES", "INPUT_NAMES", "CONTEXT_NAMES", "MACS_PER_OPTION",
           "N_MEMO_SCRATCH", "W_AT", "B_AT", "U_AT", "A_AT", "placement", "bounce_target", "option_inputs",
           "option_value", "context_inputs", "hidden_context", "prepare", "head_context", "head_value", "NFS", "NIS",
           "SOURCE_HIDDEN", "N_SOURCE_WEIGHTS", "SOURCE_WEIGHT_NAMES", "SOURCE_INPUT_NAMES", "S_ON"]
