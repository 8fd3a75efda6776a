"""The net family (``KIND_NET``): a small neural evaluator of every placement and bounce option.

Each option of a placement (a position for the card in hand, or not keeping it) and of a bounce (a
position, or stopping) is valued by a one-hidden-layer perceptron over

* the learned family's option features (``F_*`` of :mod:`gnoming_sim.kernel.policy.learned`, ``NF_P`` of
  them: the card-counted estimate change, revealing, finishing, gifts, pairs), and
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

The draw source is the learned family's (its weights at ``L_W0`` in the same vector), and the decisions
neither models (initial flips, the discard pile, a hazard flip) are the base heuristic's.  The weights
(``params[w0:w0 + N_WEIGHTS]``, ``w0`` = :data:`gnoming_sim.kernel.policy.dispatch.N_W0`) are fitted by
:mod:`gnoming_sim.tune.net_train` and committed with their provenance in ``tuning/net/``.
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

NF = L.NF_P            # option features (learned's placement features)
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
INPUT_NAMES = L.FEATURE_NAMES + CONTEXT_NAMES
MACS_PER_OPTION = HIDDEN_UNITS * NF + HIDDEN_UNITS + NF

FB = L.FB              # the option features in Memo.scratch (learned's buffer)
CB = FB + NF           # then the context inputs
ZB = CB + NC           # then the context part of the hidden pre-activations
OB = ZB + HIDDEN_UNITS  # then one option's hidden pre-activations
N_MEMO_SCRATCH = OB + HIDDEN_UNITS
INF = 1e18


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
def hidden_context(buf, prm, w0):
    """The context part of every hidden unit's pre-activation (bias included) into ``buf[ZB:ZB + HIDDEN_UNITS]``."""
    for h in range(HIDDEN_UNITS):
        buf[ZB + h] = prm[w0 + B_AT + h]
    for c in range(NC):
        x = buf[CB + c]
        if x != 0.0:
            col = w0 + W_AT + (NF + c) * HIDDEN_UNITS
            for h in range(HIDDEN_UNITS):
                buf[ZB + h] += prm[col + h] * x


@jit(inline="always")
def option_value(buf, prm, w0):
    """The value of the option whose features are in ``buf[FB:FB + NF]`` (after :func:`hidden_context`).

    Most features of an option are 0 (a gift, a reveal, a finish exclude one another), so the first layer
    adds the columns of the non-zero features only, as NNUE updates its accumulator."""
    for h in range(HIDDEN_UNITS):
        buf[OB + h] = buf[ZB + h]
    v = 0.0
    for i in range(NF):
        x = buf[FB + i]
        if x != 0.0:
            v += prm[w0 + A_AT + i] * x
            col = w0 + W_AT + i * HIDDEN_UNITS
            for h in range(HIDDEN_UNITS):
                buf[OB + h] += prm[col + h] * x
    for h in range(HIDDEN_UNITS):
        z = buf[OB + h]
        if z > 0.0:
            v += prm[w0 + U_AT + h] * z
    return v


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
    best = INF
    best_q = -1
    last = LAYOUT + 1 if may_decline else LAYOUT
    for q in range(last):
        if q < LAYOUT and not legal[q]:
            continue
        L.place_features(scratch, prm, obs, scratch, row, eu, q, card, ctx)
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
    for k in range(K):
        L.place_features(scratch, prm, obs, scratch, row, eu, opts[k], card, ctx)
        for i in range(NF):
            out[k, i] = scratch[FB + i]
        for c in range(NC):
            out[k, NF + c] = scratch[CB + c]


__all__ = ["NF", "NC", "NI", "HIDDEN_UNITS", "N_WEIGHTS", "WEIGHT_NAMES", "INPUT_NAMES", "CONTEXT_NAMES",
           "MACS_PER_OPTION", "N_MEMO_SCRATCH", "W_AT", "B_AT", "U_AT", "A_AT", "placement", "bounce_target",
           "option_inputs", "option_value", "context_inputs", "hidden_context", "prepare"]
