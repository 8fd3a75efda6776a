"""The value network: every seat's chance of winning the game, and its expected final game score, from
what the player to move sees (RULES.md §7: an :class:`gnoming_sim.kernel.state.Obs`), without rollouts.

Inputs.  The seats are taken in turn order from the observer (slot 0 is the observer, slot i the seat
i places to its left), each described by the same :data:`SEAT_NAMES` features (its game score so far
and its layout's card-counted estimate, both against the table's mean; its face-down cards; who
finished; who still has a turn; where it sits), and the table by :data:`CONTEXT_NAMES` (table size,
round, turn, the piles, the final lap, the mean unseen card, and the rules options the observation
shows).  The estimate is :func:`gnoming_sim.kernel.policy.estimate.estimate`'s (face-down cards at the
mean unseen cost, matched lines credited; its pair credit a feature apart).

The network (one hidden layer, shared by every seat, so one set of weights serves 2-7 players)::

    x_j      = [seat features of slot j, context]                     (NI inputs)
    h_j      = relu(W . x_j + b)                                       (HIDDEN_UNITS)
    m_j      = u . h_j + a . x_j                                       the expected final game score,
                                                                       against the table's mean, /10
    logit_j  = -m_j * exp(s . ctx) + v . h_j
    win_j    = softmax over the seats of logit_j                      (shared wins as credit)

Weights are one float64 vector (:data:`N_WEIGHTS`, laid out by the ``*_AT`` offsets) fitted by
:mod:`gnoming_sim.tune.value_train` on self-play outcomes and committed with their provenance in
``tuning/value/``; :mod:`gnoming_sim.search.evaluator` loads them.  Nothing here allocates: callers pass
the scratch buffers (:func:`new_scratch`).
"""
from __future__ import annotations

import numpy as np

from gnoming_sim.game.cards import HAZARD
from gnoming_sim.game.observation import (
    O_DRAW_N,
    O_FINISH_BONUS,
    O_FINISHER,
    O_HAZARD_VALUE,
    O_ME,
    O_MULLIGAN_VALUE,
    O_MULLIGANS_PER_LINE,
    O_NEGATIVE_MULTIPLIER,
    O_PILE0_N,
    O_PILE1_N,
    O_PLAYERS,
    O_ROUND,
    O_TURN,
    U_COUNT,
)
from gnoming_sim.game.rules import LAYOUT
from gnoming_sim.kernel.jit import jit
from gnoming_sim.kernel.policy.estimate import estimate
from gnoming_sim.kernel.scoring import unseen_cost

MAX_SEATS = 7
SEAT_NAMES = ("score_vs_mean", "estimate_vs_mean", "pair_credit", "facedown", "facedown_vs_mean", "finisher",
              "turn_left", "seats_to_left", "is_me", "hazards_up", "projected_vs_mean")
CONTEXT_NAMES = ("players", "round1", "round2", "round3", "turn", "draw_pile", "discard_piles", "final_lap",
                 "unseen_mean", "finish_bonus", "hazard_value", "mulligan_value", "negative_multiplier",
                 "mulligans_per_line", "bias")
NPHI = len(SEAT_NAMES)
NCTX = len(CONTEXT_NAMES)
NI = NPHI + NCTX
HIDDEN_UNITS = 32
W_AT = 0                                  # W: NI x HIDDEN_UNITS, one input's row after another
B_AT = W_AT + NI * HIDDEN_UNITS
U_AT = B_AT + HIDDEN_UNITS
V_AT = U_AT + HIDDEN_UNITS
A_AT = V_AT + HIDDEN_UNITS
S_AT = A_AT + NI
N_WEIGHTS = S_AT + NCTX
SCALE = 10.0                              # points per unit of the score-like features and of m
UNSEEN_IF_NONE = 5.0


def new_scratch() -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """(x float64[MAX_SEATS, NI], h float64[HIDDEN_UNITS], slots float64[2, MAX_SEATS]): the buffers
    :func:`evaluate` writes."""
    return np.zeros((MAX_SEATS, NI)), np.zeros(HIDDEN_UNITS), np.zeros((2, MAX_SEATS))


@jit
def features(obs, x):
    """The inputs of every seat of ``obs`` into ``x[:P]`` (float64[MAX_SEATS, NI]), slot i the seat i places
    to the observer's left; returns P."""
    pub = obs.pub
    vis = obs.vis
    fd = obs.fd
    P = pub[O_PLAYERS]
    me = pub[O_ME]
    hz = pub[O_HAZARD_VALUE]
    mv = pub[O_MULLIGAN_VALUE]
    nm = pub[O_NEGATIVE_MULTIPLIER]
    mpl = pub[O_MULLIGANS_PER_LINE]
    n = obs.unknown[U_COUNT]
    eu = unseen_cost(obs.unknown, hz, mv, nm) / n if n > 0 else UNSEEN_IF_NONE
    finisher = pub[O_FINISHER]
    mean_score = 0.0
    mean_est = 0.0
    mean_fd = 0.0
    for i in range(P):
        s = (me + i) % P
        est = estimate(vis[s], -1, 0, eu, mpl, 0.0, 0.0, hz, mv, nm)
        paired = estimate(vis[s], -1, 0, eu, mpl, 1.0, 0.0, hz, mv, nm)
        hazards = 0
        for q in range(LAYOUT):
            if vis[s, q] == HAZARD:
                hazards += 1
        row = x[i]
        row[0] = 1.0 * obs.scores[s]
        row[1] = est
        row[2] = (paired - est) / SCALE
        row[3] = fd[s] / 9.0
        row[4] = fd[s] / 9.0
        row[5] = 1.0 if s == finisher else 0.0
        row[7] = i / P
        row[8] = 1.0 if i == 0 else 0.0
        row[9] = 1.0 * hazards
        mean_score += row[0] / P
        mean_est += est / P
        mean_fd += row[3] / P
    # who still has a turn: everybody before anyone finished; in the final lap the seats from the observer
    # up to (not including) the finisher, in turn order
    left = 1.0
    for i in range(P):
        s = (me + i) % P
        if finisher >= 0 and s == finisher:
            left = 0.0
        x[i, 6] = 1.0 if finisher < 0 else left
    for i in range(P):
        row = x[i]
        row[10] = (row[0] + row[1] - mean_score - mean_est) / SCALE
        row[0] = (row[0] - mean_score) / SCALE
        row[1] = (row[1] - mean_est) / SCALE
        row[4] = row[4] - mean_fd
    c = x[0, NPHI:]
    r = pub[O_ROUND]
    c[0] = P / 7.0
    c[1] = 1.0 if r == 0 else 0.0
    c[2] = 1.0 if r == 1 else 0.0
    c[3] = 1.0 if r == 2 else 0.0
    c[4] = pub[O_TURN] / (8.0 * P)
    c[5] = pub[O_DRAW_N] / 60.0
    c[6] = (pub[O_PILE0_N] + pub[O_PILE1_N]) / 60.0
    c[7] = 1.0 if finisher >= 0 else 0.0
    c[8] = eu / 5.0
    c[9] = pub[O_FINISH_BONUS] / 5.0
    c[10] = hz / 10.0
    c[11] = mv / 5.0
    c[12] = 1.0 * nm
    c[13] = 1.0 * mpl
    c[14] = 1.0
    for i in range(1, P):
        for k in range(NCTX):
            x[i, NPHI + k] = c[k]
    return P


@jit
def forward(w, x, P, h, win, margin):
    """The network on inputs ``x[:P]``: ``win[i]`` the chance that slot i wins the game, ``margin[i]`` its
    expected final game score against the table's mean, in points (slot order, as :func:`features`)."""
    tau = 0.0
    for k in range(NCTX):
        tau += w[S_AT + k] * x[0, NPHI + k]
    tau = np.exp(tau)
    top = -1e300
    for i in range(P):
        xi = x[i]
        for j in range(HIDDEN_UNITS):
            h[j] = w[B_AT + j]
        for k in range(NI):
            v = xi[k]
            if v != 0.0:
                base = W_AT + k * HIDDEN_UNITS
                for j in range(HIDDEN_UNITS):
                    h[j] += w[base + j] * v
        m = 0.0
        corr = 0.0
        for j in range(HIDDEN_UNITS):
            if h[j] > 0.0:
                m += w[U_AT + j] * h[j]
                corr += w[V_AT + j] * h[j]
        for k in range(NI):
            m += w[A_AT + k] * xi[k]
        margin[i] = m
        logit = -m * tau + corr
        win[i] = logit
        if logit > top:
            top = logit
    z = 0.0
    for i in range(P):
        win[i] = np.exp(win[i] - top)
        z += win[i]
    mean = 0.0
    for i in range(P):
        win[i] /= z
        mean += margin[i] / P
    for i in range(P):
        margin[i] = (margin[i] - mean) * SCALE


@jit
def evaluate(obs, w, x, h, slots, win, margin):
    """Every seat's chance of winning and expected final game score against the table's mean (points), by
    seat (``win[s]``, ``margin[s]``, float64[>= P]), from ``obs`` alone (``slots`` float64[2, MAX_SEATS]:
    scratch); returns P."""
    P = features(obs, x)
    forward(w, x, P, h, slots[0], slots[1])
    me = obs.pub[O_ME]
    for i in range(P):
        s = (me + i) % P
        win[s] = slots[0, i]
        margin[s] = slots[1, i]
    return P


@jit(py=True, nrt=True)
def predict_rows(w, x, players, win, margin):
    """:func:`forward` over stored rows (training data, calibration): ``x`` float64[n, MAX_SEATS, NI],
    ``players`` int64[n]; writes ``win``/``margin`` float64[n, MAX_SEATS] in slot order."""
    h = np.zeros(HIDDEN_UNITS)
    for r in range(x.shape[0]):
        forward(w, x[r], players[r], h, win[r], margin[r])


__all__ = ["features", "forward", "evaluate", "predict_rows", "new_scratch", "SEAT_NAMES", "CONTEXT_NAMES", "NPHI", "NCTX", "NI",
           "HIDDEN_UNITS", "N_WEIGHTS", "MAX_SEATS"]
