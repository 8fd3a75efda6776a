"""The parametric heuristic family (``KIND_HEURISTIC``): one-ply estimates with card counting.

Every decision compares *estimates* of the decider's final round score, built from what
it sees: face-up cards count as they would score, each face-down card counts as the
mean cost of an unseen card (card counting over ``unknown``), fully visible matched lines
score as in RULES.md §5, and a line holding a pair (two equal positive cards, or one and
a mulligan) is credited ``H_PAIR`` times the pair's value.  Decisions are deterministic
functions of the observation: no hidden card, no random number.

Parameters (``params[H_*]``, float64):
"""
from __future__ import annotations

import numpy as np

from gnoming_sim.game.cards import HAZARD, HIDDEN, MULLIGAN, NO_CARD
from gnoming_sim.game.observation import (
    CHOICE_DECLINE,
    CHOICE_NOKEEP,
    CHOICE_STOP,
    O_FINISH_BONUS,
    O_FINISHER,
    O_FROM_PILE,
    O_HAZARD_VALUE,
    O_ME,
    O_MULLIGAN_LIMIT,
    O_MULLIGAN_VALUE,
    O_MULLIGANS_PER_LINE,
    O_NEGATIVE_MULTIPLIER,
    O_PLAYERS,
    O_TOP0,
    SRC_DRAW,
    U_COUNT,
)
from gnoming_sim.game.rules import HAZARD_FLIP_MIN_FACE_DOWN, LAYOUT
from gnoming_sim.kernel.jit import jit
from gnoming_sim.kernel.policy.estimate import pair_value, estimate, precompute, prepare, quick_delta
from gnoming_sim.kernel.scoring import LINES, N_LINES, card_cost, mulligan_allowed, unseen_cost

H_UNSEEN_BIAS = 0    # points added to the mean cost of an unseen card (pessimism > 0)
H_PAIR = 1           # worth of a two-of-a-line, as a fraction of the pair's value
H_TAKE = 2           # take a discard only if it improves the estimate by at least this
H_KEEP = 3           # keep a blind draw only if it improves the estimate by more than this
H_REVEAL = 4         # bonus, in points, for placing over a face-down card (speed)
H_MULLIGAN = 5       # extra worth of a face-up mulligan in the layout, in points
H_HAZARD_DENY = 6    # worth, per opponent who could flip, of keeping a drawn hazard
H_FINISH_MARGIN = 7  # finish only if own score <= best opponent estimate - margin
H_BOUNCE = 8         # > 0: bounce when it improves the estimate; <= 0: never bounce
H_HAZARD_FLIP = 9    # > 0: take the flip an opponent's hazard offers; <= 0: decline
H_INIT = 10          # initial flips: 0 = corners (0, 8), 1 = one row (0, 1), 2 = diagonal (0, 4)

PARAM_NAMES = ("unseen_bias", "pair_weight", "take_threshold", "keep_threshold", "reveal_bonus",
               "mulligan_bonus", "hazard_deny", "finish_margin", "bounce", "hazard_flip",
               "initial_flips")

N_PARAMS = len(PARAM_NAMES)
assert N_PARAMS == H_INIT + 1

# ``Memo.plan``: what this turn's draw decision found, reused by the placement that follows
MEMO_PLAN_CARD = 0   # the pile top it planned to take (NO_CARD: no plan) ...
MEMO_PLAN_POS = 1    # ... and where it planned to put it (-1: no plan)
MEMO_PLAN_PRE = 2    # 1 once Memo.scratch holds this turn's layout precompute
N_MEMO_PLAN = 3


@jit(inline="always")
def new_turn(memo):
    """The players' notes at the start of a turn (the table calls it: :func:`gnoming_sim.kernel.table.fill_pub`):
    the plan and the precompute forgotten; the counters after them (``dispatch.MEMO_COUNTERS``) are kept."""
    memo.plan[MEMO_PLAN_CARD] = NO_CARD
    memo.plan[MEMO_PLAN_POS] = -1
    memo.plan[MEMO_PLAN_PRE] = 0

UNSEEN_MEAN_IF_NONE = 5.0  # the mean cost of an unseen card when none is left (never decisive)
INF = 1e18


@jit(inline="always")
def unseen_mean(obs, params):
    """Mean cost of an unseen card (priced by the rules' card values), plus the pessimism bias."""
    unknown = obs.unknown
    pub = obs.pub
    n = unknown[U_COUNT]
    mean = unseen_cost(unknown, pub[O_HAZARD_VALUE], pub[O_MULLIGAN_VALUE], pub[O_NEGATIVE_MULTIPLIER]) / n \
        if n > 0 else UNSEEN_MEAN_IF_NONE
    return mean + params[H_UNSEEN_BIAS]


@jit
def _best_opponent(pub, vis, eu):
    me = pub[O_ME]
    mpl = pub[O_MULLIGANS_PER_LINE]
    best = INF
    for o in range(pub[O_PLAYERS]):
        if o != me:
            e = estimate(vis[o], -1, 0, eu, mpl, 0.0, 0.0,
                         pub[O_HAZARD_VALUE], pub[O_MULLIGAN_VALUE], pub[O_NEGATIVE_MULTIPLIER])
            if e < best:
                best = e
    return best


@jit(inline="always")
def place_delta(params, pub, vis, fd, scratch, row, eu, q, c):
    """Change of the estimate when ``c`` is put at ``q``, with the decision's adjustments
    (``scratch`` must hold this decision's :func:`precompute`).  The hot inner loop: it takes
    the observation's arrays one by one rather than the whole record."""
    mpl = pub[O_MULLIGANS_PER_LINE]
    hz = pub[O_HAZARD_VALUE]
    mv = pub[O_MULLIGAN_VALUE]
    nm = pub[O_NEGATIVE_MULTIPLIER]
    d = quick_delta(row, q, c, scratch, eu, mpl, params[H_PAIR], params[H_MULLIGAN], hz, mv, nm)
    if row[q] == HIDDEN:
        d -= params[H_REVEAL]
        if fd[pub[O_ME]] == 1 and pub[O_FINISHER] < 0:  # this move finishes the round
            mine = estimate(row, q, c, eu, mpl, 0.0, 0.0, hz, mv, nm)
            lowest = mine <= _best_opponent(pub, vis, eu) - params[H_FINISH_MARGIN]
            d += -pub[O_FINISH_BONUS] if lowest else pub[O_FINISH_BONUS]
    if c == HAZARD:
        deny = 0
        for o in range(pub[O_PLAYERS]):
            if o != pub[O_ME] and fd[o] >= HAZARD_FLIP_MIN_FACE_DOWN:
                deny += 1
        d -= params[H_HAZARD_DENY] * deny
    return d


@jit
def mulligan_fits(row, pub):
    """Whether the rules let a mulligan go into ``row`` (the layout as seen: its face-up mulligans)."""
    n = 0
    for q in range(LAYOUT):
        if row[q] == MULLIGAN:
            n += 1
    return mulligan_allowed(n, pub[O_MULLIGAN_LIMIT])


@jit
def _best_place(params, obs, memo, c, legal, use_mask, eu):
    """(best delta, position) over all positions, or those allowed by ``legal`` if ``use_mask``
    (callers pass ``c`` as an int and ``use_mask`` as ``np.bool_``, so that one signature serves them
    all: a plain True or False is typed as a literal, one compile per value).

    Compiled once and called (not inlined) by the three decisions that place a card: a call per
    decision costs nothing measurable, three inlined copies of the delta's loop cost compile time."""
    pub = obs.pub
    vis = obs.vis
    fd = obs.fd
    scratch = memo.scratch
    row = vis[pub[O_ME]]
    best = INF
    best_q = -1
    for q in range(LAYOUT):
        if not use_mask or legal[q]:
            d = place_delta(params, pub, vis, fd, scratch, row, eu, q, c)
            if d < best:
                best = d
                best_q = q
    return best, best_q


@jit
def prepare_me(params, obs, memo, reuse):
    """Precompute the per-position parts of the deltas into ``memo.scratch`` — unless
    ``reuse`` and this turn's draw decision already did for the same layout."""
    pub = obs.pub
    plan = memo.plan
    if reuse and plan[MEMO_PLAN_PRE] == 1:
        return
    plan[MEMO_PLAN_PRE] = 1 if reuse else 0
    row = obs.vis[pub[O_ME]]
    pair_w = params[H_PAIR]
    mmask, covered, mvals, pvals = prepare(row, pub[O_MULLIGANS_PER_LINE], pair_w)
    precompute(row, mmask, covered, mvals, pvals, pub[O_MULLIGANS_PER_LINE], pair_w, params[H_MULLIGAN],
               pub[O_HAZARD_VALUE], pub[O_MULLIGAN_VALUE], pub[O_NEGATIVE_MULTIPLIER], memo.scratch)


# ----------------------------------------------------------------- decisions
@jit
def initial_flips(params, out):
    pattern = int(params[H_INIT])
    out[0] = 0
    out[1] = 1 if pattern == 1 else (4 if pattern == 2 else 8)


@jit
def draw_source(params, obs, memo, legal):
    """Take the better discard top if it improves the estimate by >= H_TAKE, else draw blind."""
    pub = obs.pub
    row = obs.vis[pub[O_ME]]
    eu = unseen_mean(obs, params)
    prepare_me(params, obs, memo, True)
    best = INF
    src = SRC_DRAW
    for k in range(2):
        top = pub[O_TOP0 + k]
        if not legal[1 + k] or top == NO_CARD:
            continue
        if k == 1 and legal[1] and top == pub[O_TOP0]:   # pile 0 offered the same card: a tie, which does not win
            continue
        if top == MULLIGAN and not mulligan_fits(row, pub):
            continue
        d, q = _best_place(params, obs, memo, int(top), legal, np.bool_(False), eu)
        if d < best:
            best = d
            src = 1 + k
            memo.plan[MEMO_PLAN_CARD] = top
            memo.plan[MEMO_PLAN_POS] = q
    if best <= -params[H_TAKE]:
        return src
    return SRC_DRAW


@jit
def placement(params, obs, memo, card, legal):
    plan = memo.plan
    if (not legal[CHOICE_NOKEEP] and obs.pub[O_FROM_PILE] >= 0 and plan[MEMO_PLAN_CARD] == card
            and plan[MEMO_PLAN_POS] >= 0):
        return plan[MEMO_PLAN_POS]  # draw_source already found the best place for this very card
    eu = unseen_mean(obs, params)
    prepare_me(params, obs, memo, True)
    d, q = _best_place(params, obs, memo, int(card), legal, np.bool_(True), eu)
    if legal[CHOICE_NOKEEP] and (q < 0 or d > -params[H_KEEP]):
        return CHOICE_NOKEEP
    return q


@jit
def bounce_target(params, obs, memo, card, legal):
    if params[H_BOUNCE] <= 0.0:
        return CHOICE_STOP
    eu = unseen_mean(obs, params)
    prepare_me(params, obs, memo, False)
    d, q = _best_place(params, obs, memo, int(card), legal, np.bool_(True), eu)
    if q >= 0 and d < 0.0:
        return q
    return CHOICE_STOP


@jit
def seen_cost(c, pub):
    """:func:`~gnoming_sim.kernel.scoring.card_cost` of ``c`` at the card values the public observation
    ``pub`` shows (the rules' hazard value, unmatched mulligan value and negative multiplier)."""
    return card_cost(c, pub[O_HAZARD_VALUE], pub[O_MULLIGAN_VALUE], pub[O_NEGATIVE_MULTIPLIER])


@jit
def _worth_to_others(c, pub):
    if c == MULLIGAN:
        return -5
    return seen_cost(c, pub)


@jit
def discard_pile(pub):
    """Cover the top that would help the next player more (the lower-cost one)."""
    if _worth_to_others(pub[O_TOP0 + 1], pub) < _worth_to_others(pub[O_TOP0], pub):
        return 1
    return 0


@jit
def hazard_flip(params, obs, legal):
    """Flip the face-down card that could complete the most pairs, or decline."""
    if params[H_HAZARD_FLIP] <= 0.0:
        return CHOICE_DECLINE
    pub = obs.pub
    row = obs.vis[pub[O_ME]]
    mpl = pub[O_MULLIGANS_PER_LINE]
    best = -1
    best_q = CHOICE_DECLINE
    for q in range(LAYOUT):
        if not legal[q]:
            continue
        promise = 0
        for li in range(N_LINES):
            a = LINES[li, 0]
            b = LINES[li, 1]
            d = LINES[li, 2]
            if a == q or b == q or d == q:
                promise += pair_value(row[a], row[b], row[d], mpl) > 0
        if promise > best:
            best = promise
            best_q = q
    return best_q
