"""The learned family (``KIND_LEARNED``): a linear evaluator of every option, fitted to rollout values.

Each option of a placement (a position for the card in hand, or not keeping it), of a bounce (a
position, or stopping) and of a draw source (a discard pile, or the draw pile) is described by a
short feature vector computed from the decider's observation only (:class:`gnoming_sim.kernel.state.Obs`:
its layout as seen, the others' face-up cards and face-down counts, card counting over ``unknown``),
and valued by a dot product with the strategy's weights: the predicted change of *its round score
minus the mean round score of the others* (lower is better).  The player takes the option of the
lowest value: one ply, no rollout, at heuristic speed.

* Placement and bounce features (``F_*``, :func:`place_features`): the heuristic's card-counted
  estimate change (:func:`gnoming_sim.kernel.policy.estimate.quick_delta`, with the base heuristic's
  pair and mulligan credit), revealing a face-down card and how that interacts with tempo (the
  rivals' face-down cards, the final lap), finishing (its gap to the best visible rival, the rivals'
  face-down cards, the table size), what the discard hands the next player (its cost, whether it
  pairs with their face-up cards, a hazard's flips), and open pairs made or broken.
* Draw-source features (``G_*``): a discard pile is worth the value of its card's best placement; the
  draw pile the expectation, over the unseen cards (card counting), of a blind card's best answer;
  plus a few corrections for the draw pile.

The weights (``params[w0:w0 + N_WEIGHTS]``, ``w0`` = :data:`gnoming_sim.kernel.policy.dispatch.L_W0`;
one set per table-size bucket, :data:`BUCKETS`) are fitted by ``gnoming-sim train`` (:mod:`gnoming_sim.tune.learn`) to the option values of Monte
Carlo rollouts, and committed with their provenance in ``tuning/learned/``.  The decisions it does not
model (the initial flips, the discard pile, a hazard flip) are the base heuristic's, whose parameters
sit in the same vector (``params[:H.N_PARAMS]``).
"""
from __future__ import annotations

import numpy as np

from gnoming_sim.game.cards import HAZARD, HIDDEN, MULLIGAN, N_SLOTS, NO_CARD, SLOT_OFFSET
from gnoming_sim.game.observation import (
    CHOICE_NOKEEP,
    O_FINISHER,
    O_HAZARD_VALUE,
    O_ME,
    O_MULLIGAN_VALUE,
    O_MULLIGANS_PER_LINE,
    O_NEGATIVE_MULTIPLIER,
    O_PLAYERS,
    O_TOP0,
    SRC_DRAW,
    U_COUNT,
    U_FIRST_CARD,
)
from gnoming_sim.game.rules import HAZARD_FLIP_MIN_FACE_DOWN, LAYOUT
from gnoming_sim.kernel.jit import jit
from gnoming_sim.kernel.policy import heuristic as H
from gnoming_sim.kernel.policy.estimate import N_SCRATCH, estimate, pair_value, quick_delta
from gnoming_sim.kernel.scoring import LINES, line_match_value

# placement / bounce option features
F_DELTA = 0          # the heuristic's estimate change (pair and mulligan credit of the base heuristic)
F_HID = 1            # the position was face down (the card there is revealed and discarded)
F_HID_EU = 2         # ... times the mean cost of an unseen card
F_HID_OFD = 3        # ... times the rivals' fewest face-down cards
F_HID_FINAL = 4      # ... in the final lap (somebody has finished)
F_HID_LAST1 = 5      # ... leaving exactly one face-down card (a hazard cannot flip it)
F_FIN = 6            # this move finishes the round
F_FIN_GAP = 7        # ... times (own estimate - best rival's estimate), clipped to +-30
F_FIN_LOW = 8        # ... and the own estimate is at most the best rival's
F_FIN_OFD = 9        # ... times the rivals' mean face-down cards
F_FIN_P = 10         # ... times (players - 2)
F_GIFT_COST = 11     # the discarded card's cost, when it is known (the next player may take it)
F_GIFT_GOOD = 12     # ... it is a negative card or a mulligan
F_GIFT_PAIRS = 13    # ... it pairs with a face-up card of the next player
F_HAZ_GIVE = 14      # a hazard leaves the layout: the rivals who may flip
F_NOKEEP = 15        # not keeping the card in hand (or stopping a bounce)
F_OPEN_PAIRS = 16    # change of the values of pairs with one face-down card in the lines through q
F_DELTA_FINAL = 17   # F_DELTA in the final lap
F_HID_MOFD = 18      # F_HID times the rivals' mean face-down cards
F_DELTA_HID = 19     # F_DELTA when the position was face down
F_PAIRS = 20         # change of the pair values of the unmatched lines through q
F_OPEN_ODDS = 21     # change of the chance that a random unseen card completes an open pair through q
NF_P = 22
# the placement features that depend on the card put at a position (the others depend on the position alone, for
# a position of the layout): what a position's value adds to its card-independent part (net's draw-pile valuation)
DYNAMIC = (F_DELTA, F_FIN_GAP, F_FIN_LOW, F_OPEN_PAIRS, F_DELTA_FINAL, F_DELTA_HID, F_PAIRS, F_OPEN_ODDS)
STATIC = tuple(i for i in range(NF_P) if i not in DYNAMIC)
FEATURE_NAMES = ("delta", "hid", "hid_eu", "hid_min_rival_fd", "hid_final", "hid_last1", "fin", "fin_gap",
                 "fin_lowest", "fin_mean_rival_fd", "fin_players", "gift_cost", "gift_good", "gift_pairs",
                 "hazard_give", "nokeep", "open_pairs", "delta_final", "hid_mean_rival_fd", "delta_hid", "pairs",
                 "open_odds")

# draw-source option features
G_VALUE = 0          # the option's value: a pile card's best placement, or the blind draw's expectation
G_DRAW = 1           # the draw pile
G_DRAW_FINAL = 2     # ... in the final lap
G_DRAW_FD = 3        # ... times own face-down cards
G_DRAW_EU = 4        # ... times the mean cost of an unseen card
G_PILE_MULL = 5      # taking a mulligan from a pile
NF_S = 6
SOURCE_FEATURE_NAMES = ("value", "draw", "draw_final", "draw_fd", "draw_eu", "pile_mulligan")
N_WEIGHTS_ONE = NF_P + NF_S    # one table-size bucket's weights: placement, then source
# one weight set per table-size bucket (the worth of tempo, finishing and gifts differs with the table)
BUCKETS = ("p23", "p45", "p67")   # 2-3, 4-5 and 6-7 players
N_BUCKETS = len(BUCKETS)
N_WEIGHTS = N_BUCKETS * N_WEIGHTS_ONE
WEIGHT_NAMES = tuple(f"{b}.{kind}.{n}" for b in BUCKETS for kind, names in
                     (("place", FEATURE_NAMES), ("source", SOURCE_FEATURE_NAMES)) for n in names)


def bucket_of(players: int) -> int:
    """The weight set of a table of ``players`` (plain Python; the kernel's :func:`size_bucket` is the same function)."""
    return 0 if players <= 3 else (1 if players <= 5 else 2)


size_bucket = jit(inline="always")(bucket_of)

FB = N_SCRATCH                   # the feature buffer in Memo.scratch, after the heuristic's precompute
N_MEMO_SCRATCH = N_SCRATCH + NF_P
GAP_CLIP = 30.0
INF = 1e18


@jit(inline="always")
def context(pub, vis, fd, eu):
    """What every option of one decision shares: (rivals' fewest and mean face-down cards, best rival
    estimate, final lap 0/1, rivals who could flip for a hazard, the next seat)."""
    me = pub[O_ME]
    P = pub[O_PLAYERS]
    mpl = pub[O_MULLIGANS_PER_LINE]
    min_ofd = 99
    sum_ofd = 0
    best = INF
    flippable = 0
    for o in range(P):
        if o == me:
            continue
        f = fd[o]
        sum_ofd += f
        if f < min_ofd:
            min_ofd = f
        if f >= HAZARD_FLIP_MIN_FACE_DOWN:
            flippable += 1
        e = estimate(vis[o], -1, 0, eu, mpl, 0.0, 0.0,
                     pub[O_HAZARD_VALUE], pub[O_MULLIGAN_VALUE], pub[O_NEGATIVE_MULTIPLIER])
        if e < best:
            best = e
    final = 1.0 if pub[O_FINISHER] >= 0 else 0.0
    return 1.0 * min_ofd, sum_ofd / (P - 1), best, final, 1.0 * flippable, (me + 1) % P


@jit(inline="always")
def _gift(buf, c, nxt_row, flippable, pub):
    """The features of the card an option discards (known ``c``; NO_CARD: not known)."""
    if c == NO_CARD:
        return
    if c == HAZARD:
        buf[FB + F_HAZ_GIVE] = flippable
        return
    buf[FB + F_GIFT_COST] = H.seen_cost(c, pub)
    if c == MULLIGAN or c < 0:
        buf[FB + F_GIFT_GOOD] = 1.0
    pairs = 0.0
    if c == MULLIGAN:
        pairs = 1.0
    else:
        for x in range(LAYOUT):
            if nxt_row[x] == c:
                pairs = 1.0
    buf[FB + F_GIFT_PAIRS] = pairs


@jit(inline="always")
def lines_through(row, q, c, mpl, unknown):
    """(pair values of the unmatched lines, values of the pairs with exactly one face-down card, the
    chance that one random unseen card completes one of those) over the row and column through q,
    with ``c`` put at q (``c`` NO_CARD: as is)."""
    pairs = 0.0
    open_v = 0.0
    odds = 0.0
    n = unknown[U_COUNT]
    for li in (q // 3, 3 + q % 3):
        a = LINES[li, 0]
        b = LINES[li, 1]
        d = LINES[li, 2]
        x = c if (a == q and c != NO_CARD) else row[a]
        y = c if (b == q and c != NO_CARD) else row[b]
        z = c if (d == q and c != NO_CARD) else row[d]
        hidden = (x == HIDDEN) + (y == HIDDEN) + (z == HIDDEN)
        if hidden == 0 and line_match_value(x, y, z, mpl) >= 0:
            continue
        v = pair_value(x, y, z, mpl)
        pairs += v
        if hidden == 1 and v > 0:
            open_v += v
            if n > 0:
                odds += (unknown[v + SLOT_OFFSET] + unknown[MULLIGAN + SLOT_OFFSET]) / n
    return pairs, open_v, odds


N_AS_IS = 7 * LAYOUT   # what :func:`as_is` leaves per decision: 3 line values and 4 gift features a position


@jit(inline="always")
def as_is(scratch, obs, row, ctx, at):
    """What :func:`place_features_at` reads instead of computing it again for every card it values at a
    position q: :func:`lines_through` of q with the layout as it is (no card put there) into
    ``scratch[at + 3 q:at + 3 q + 3]``, and the gift features of the card at q (F_GIFT_COST, F_GIFT_GOOD,
    F_GIFT_PAIRS, F_HAZ_GIVE; 0 where q is face down) into ``scratch[at + 3 LAYOUT + 4 q:][:4]``.
    Uses the feature buffer ``scratch[FB:]`` as its workspace."""
    pub = obs.pub
    mpl = pub[O_MULLIGANS_PER_LINE]
    nxt_row = obs.vis[ctx[5]]
    for q in range(LAYOUT):
        p0, o0, d0 = lines_through(row, q, NO_CARD, mpl, obs.unknown)
        scratch[at + 3 * q] = p0
        scratch[at + 3 * q + 1] = o0
        scratch[at + 3 * q + 2] = d0
        scratch[FB + F_GIFT_COST] = 0.0
        scratch[FB + F_GIFT_GOOD] = 0.0
        scratch[FB + F_GIFT_PAIRS] = 0.0
        scratch[FB + F_HAZ_GIVE] = 0.0
        if row[q] != HIDDEN:
            _gift(scratch, row[q], nxt_row, ctx[4], pub)
        g = at + 3 * LAYOUT + 4 * q
        scratch[g] = scratch[FB + F_GIFT_COST]
        scratch[g + 1] = scratch[FB + F_GIFT_GOOD]
        scratch[g + 2] = scratch[FB + F_GIFT_PAIRS]
        scratch[g + 3] = scratch[FB + F_HAZ_GIVE]


@jit(inline="always")
def place_features(buf, prm, obs, scratch, row, eu, q, c, ctx):
    """Write the features of putting ``c`` at ``q`` (q = LAYOUT: not keeping it) into
    ``buf[FB:FB + NF_P]``; ``scratch`` holds this layout's :func:`H.prepare_me`, ``ctx`` is the
    decision's :func:`context`."""
    place_features_at(buf, prm, obs, scratch, row, eu, q, c, ctx, -1)


@jit(inline="always")
def place_features_at(buf, prm, obs, scratch, row, eu, q, c, ctx, at):
    """:func:`place_features`; ``at`` >= 0: the layout's own lines and the gift of the card at q are read from
    ``scratch[at:]`` (:func:`as_is`), the same numbers."""
    pub = obs.pub
    vis = obs.vis
    fd = obs.fd
    unknown = obs.unknown
    min_ofd, mean_ofd, best_opp, final, flippable, nxt = ctx
    for i in range(NF_P):
        buf[FB + i] = 0.0
    nxt_row = vis[nxt]
    if q >= LAYOUT:
        buf[FB + F_NOKEEP] = 1.0
        _gift(buf, c, nxt_row, flippable, pub)
        return
    mpl = pub[O_MULLIGANS_PER_LINE]
    hz = pub[O_HAZARD_VALUE]
    mv = pub[O_MULLIGAN_VALUE]
    nm = pub[O_NEGATIVE_MULTIPLIER]
    d = quick_delta(row, q, c, scratch, eu, mpl, prm[H.H_PAIR], prm[H.H_MULLIGAN], hz, mv, nm)
    buf[FB + F_DELTA] = d
    buf[FB + F_DELTA_FINAL] = d * final
    p1, o1, d1 = lines_through(row, q, c, mpl, unknown)
    if at < 0:
        p0, o0, d0 = lines_through(row, q, NO_CARD, mpl, unknown)
    else:
        p0 = scratch[at + 3 * q]
        o0 = scratch[at + 3 * q + 1]
        d0 = scratch[at + 3 * q + 2]
    buf[FB + F_PAIRS] = p1 - p0
    buf[FB + F_OPEN_PAIRS] = o1 - o0
    buf[FB + F_OPEN_ODDS] = d1 - d0
    old = row[q]
    if old == HIDDEN:
        my_fd = fd[pub[O_ME]]
        buf[FB + F_HID] = 1.0
        buf[FB + F_HID_EU] = eu
        buf[FB + F_HID_OFD] = min_ofd
        buf[FB + F_HID_MOFD] = mean_ofd
        buf[FB + F_HID_FINAL] = final
        buf[FB + F_DELTA_HID] = d
        if my_fd == 2:
            buf[FB + F_HID_LAST1] = 1.0
        if my_fd == 1 and pub[O_FINISHER] < 0:
            gap = estimate(row, q, c, eu, mpl, 0.0, 0.0, hz, mv, nm) - best_opp
            buf[FB + F_FIN] = 1.0
            buf[FB + F_FIN_GAP] = min(GAP_CLIP, max(-GAP_CLIP, gap))
            buf[FB + F_FIN_LOW] = 1.0 if gap <= 0.0 else 0.0
            buf[FB + F_FIN_OFD] = mean_ofd
            buf[FB + F_FIN_P] = pub[O_PLAYERS] - 2.0
    elif at < 0:
        _gift(buf, old, nxt_row, flippable, pub)
    else:
        g = at + 3 * LAYOUT + 4 * q
        buf[FB + F_GIFT_COST] = scratch[g]
        buf[FB + F_GIFT_GOOD] = scratch[g + 1]
        buf[FB + F_GIFT_PAIRS] = scratch[g + 2]
        buf[FB + F_HAZ_GIVE] = scratch[g + 3]


@jit(inline="always")
def _dot(buf, prm, w0, n):
    """The weights at ``w0`` times the ``n`` features at ``buf[FB:]``, in feature order; the features that are 0
    (most of them) are skipped: adding a zero product leaves the sum as it was."""
    v = 0.0
    for i in range(n):
        x = buf[FB + i]
        if x != 0.0:
            v += prm[w0 + i] * x
    return v


@jit
def _best_answer(prm, w0, obs, scratch, row, eu, c, legal, use_mask, may_decline, ctx, keep):
    """(lowest value, answer) over the positions for ``c`` (those ``legal`` allows if ``use_mask``; none
    unless ``keep``) and, if ``may_decline``, not keeping it.

    Compiled once and called (it was inlined at four sites, five copies of the features with the one
    below): callers pass ``c`` as an int and the flags as ``np.bool_``, since a plain True or False is
    typed as a literal and would compile it once per value."""
    best = INF
    best_q = -1
    last = LAYOUT + 1 if may_decline else LAYOUT
    for q in range(0 if keep else LAYOUT, last):
        if q < LAYOUT and use_mask and not legal[q]:
            continue
        place_features(scratch, prm, obs, scratch, row, eu, q, c, ctx)
        v = _dot(scratch, prm, w0, NF_P)
        if v < best:
            best = v
            best_q = q
    return best, best_q


@jit
def placement(prm, w0, obs, memo, card, legal):
    """The answer of the lowest value for ``card`` (a position, or ``CHOICE_NOKEEP`` when legal)."""
    H.prepare_me(prm, obs, memo, True)
    pub = obs.pub
    w0 = w0 + size_bucket(pub[O_PLAYERS]) * N_WEIGHTS_ONE
    eu = H.unseen_mean(obs, prm)
    ctx = context(pub, obs.vis, obs.fd, eu)
    v, q = _best_answer(prm, w0, obs, memo.scratch, obs.vis[pub[O_ME]], eu, int(card), legal, np.bool_(True),
                        legal[CHOICE_NOKEEP] != 0, ctx, np.bool_(True))
    return q if q < LAYOUT else CHOICE_NOKEEP


@jit
def bounce_target(prm, w0, obs, memo, card, legal):
    """The bounce of the lowest value (a position not filled this turn), or stopping (``CHOICE_STOP``)."""
    H.prepare_me(prm, obs, memo, False)
    pub = obs.pub
    w0 = w0 + size_bucket(pub[O_PLAYERS]) * N_WEIGHTS_ONE
    eu = H.unseen_mean(obs, prm)
    ctx = context(pub, obs.vis, obs.fd, eu)
    v, q = _best_answer(prm, w0, obs, memo.scratch, obs.vis[pub[O_ME]], eu, int(card), legal, np.bool_(True),
                        np.bool_(True), ctx, np.bool_(True))
    return q


@jit(inline="always")
def source_features(buf, value, is_draw, final, my_fd, eu, card):
    """The features of a draw-source option (its ``value`` from the placement model) into ``buf[FB:FB + NF_S]``."""
    for i in range(NF_S):
        buf[FB + i] = 0.0
    buf[FB + G_VALUE] = value
    if is_draw:
        buf[FB + G_DRAW] = 1.0
        buf[FB + G_DRAW_FINAL] = final
        buf[FB + G_DRAW_FD] = my_fd
        buf[FB + G_DRAW_EU] = eu
    elif card == MULLIGAN:
        buf[FB + G_PILE_MULL] = 1.0


@jit(inline="always")
def unseen_kind(unknown, sl, mfits):
    """Slot ``sl`` of the unseen-card counts as (count, card, whether it may be kept): a mulligan that cannot be
    kept (``mfits`` False) is thrown away."""
    c = sl - SLOT_OFFSET
    return unknown[sl], c, not (c == MULLIGAN and not mfits)


@jit(inline="always")
def source_values(prm, w0, obs, memo, legal):
    """(pile 0's value, pile 1's, the draw pile's) under the placement model (INF where not legal):
    a pile is worth its card's best placement, the draw pile the card-counted expectation of a
    blind card's best answer (keeping it where it fits, or not).  ``w0``: this table size's weight set."""
    H.prepare_me(prm, obs, memo, True)
    pub = obs.pub
    eu = H.unseen_mean(obs, prm)
    ctx = context(pub, obs.vis, obs.fd, eu)
    row = obs.vis[pub[O_ME]]
    scratch = memo.scratch
    mfits = H.mulligan_fits(row, pub)
    v0 = INF
    v1 = INF
    for k in range(2):
        top = pub[O_TOP0 + k]
        if not legal[1 + k] or top == NO_CARD:
            continue
        if top == MULLIGAN and not mfits:
            continue
        v, q = _best_answer(prm, w0, obs, scratch, row, eu, int(top), legal, np.bool_(False), np.bool_(False), ctx,
                            np.bool_(True))
        if k == 0:
            v0 = v
        else:
            v1 = v
    unknown = obs.unknown
    n = unknown[U_COUNT]
    vd = 0.0
    if n > 0:
        for sl in range(U_FIRST_CARD, N_SLOTS):
            cnt, c, keep = unseen_kind(unknown, sl, mfits)
            if cnt <= 0:
                continue
            v, q = _best_answer(prm, w0, obs, scratch, row, eu, int(c), legal, np.bool_(False), np.bool_(True), ctx,
                                keep)
            vd += cnt * v
        vd /= n
    return v0, v1, vd


@jit
def draw_source(prm, w0, obs, memo, legal):
    """The draw source of the lowest value: ``SRC_DRAW`` or 1 + pile."""
    pub = obs.pub
    w0 = w0 + size_bucket(pub[O_PLAYERS]) * N_WEIGHTS_ONE
    v0, v1, vd = source_values(prm, w0, obs, memo, legal)
    eu = H.unseen_mean(obs, prm)
    final = 1.0 if pub[O_FINISHER] >= 0 else 0.0
    my_fd = 1.0 * obs.fd[pub[O_ME]]
    buf = memo.scratch
    ws = w0 + NF_P
    source_features(buf, vd, True, final, my_fd, eu, NO_CARD)
    best = _dot(buf, prm, ws, NF_S)
    src = SRC_DRAW
    for k in range(2):
        v = v0 if k == 0 else v1
        if v >= INF:
            continue
        source_features(buf, v, False, final, my_fd, eu, pub[O_TOP0 + k])
        s = _dot(buf, prm, ws, NF_S)
        if s < best:
            best = s
            src = 1 + k
    return src


__all__ = ["NF_P", "NF_S", "N_WEIGHTS", "N_WEIGHTS_ONE", "BUCKETS", "N_BUCKETS", "bucket_of", "size_bucket", "WEIGHT_NAMES", "FEATURE_NAMES", "SOURCE_FEATURE_NAMES",
           "N_MEMO_SCRATCH", "FB", "context", "place_features", "place_features_at", "as_is", "N_AS_IS", "DYNAMIC", "STATIC", "source_features", "source_values",
           "placement", "bounce_target", "draw_source", "unseen_kind", "lines_through"]
