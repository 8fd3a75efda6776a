"""The pocket rules (``KIND_RULES``): a complete strategy a person can play from a few printed sentences.

Every decision of a game is answered from what the player sees, by counting and comparing face-up cards, never
by an estimate of unseen cards (docs/rules.md prints the sentences; ``RULE_SENTENCES`` in
:mod:`gnoming_sim.kernel.policy.registry` maps each to the settings below, and a test checks each sentence
against this code).  The words it uses:

* a card's *visible score change* at a position: your layout's score with the card there minus without it,
  face-down cards counting 0 and matched face-up lines scoring as in RULES.md §5 (:func:`visible_change`);
* a card *completes a line* at a position when a line through it then has three face-up cards that match and
  did not before; it *pairs a line* when a line through it then holds a pair it did not (two equal positive
  cards, or one and a mulligan) and it goes on a face-down card or over a face-up card that costs more
  (:func:`use_at`).

A kept card goes (:func:`place_order`) where it completes a line, else where it pairs a line, else over the
face-up card it lowers by the most when that is at least ``R_PLACE_LOWER`` points, else on a face-down card
(one outside the lines that hold a pair first, then the first in reading order); among the positions of one use,
where it lowers the visible score the most (the first in reading order on a tie).

Settings (``params[r0 + R_*]``, float64; ``r0`` = :data:`gnoming_sim.kernel.policy.dispatch.R_W0`):
"""
from __future__ import annotations

from gnoming_sim.game.cards import HAZARD, HIDDEN, MULLIGAN, NO_CARD
from gnoming_sim.game.observation import (
    CHOICE_DECLINE,
    CHOICE_NOKEEP,
    CHOICE_STOP,
    O_FINISHER,
    O_FROM_PILE,
    O_HAZARD_VALUE,
    O_ME,
    O_MULLIGAN_VALUE,
    O_MULLIGANS_PER_LINE,
    O_NEGATIVE_MULTIPLIER,
    O_PLAYERS,
    O_ROUND,
    O_TOP0,
    SRC_DRAW,
)
from gnoming_sim.game.rules import LAYOUT
from gnoming_sim.kernel.jit import jit
from gnoming_sim.kernel.policy.estimate import estimate, pair_value
from gnoming_sim.kernel.policy.heuristic import mulligan_fits, seen_cost
from gnoming_sim.kernel.scoring import LINES, N_LINES, line_match_value

R_INIT = 0           # start of a round: 0 turn up two corners (0, 8), 1 two of the top row (0, 1), 2 a corner and the centre (0, 4)
R_TAKE_LOW = 1       # take a pile's card whose value is at most this (a number card; -99: none by value)
R_TAKE_MULLIGAN = 2  # 1: take a pile's mulligan (when your layout may hold it)
R_TAKE_COMPLETE = 3  # 1: take a pile's card that completes a line
R_TAKE_PAIR_FD = 4   # take a pile's card that pairs a line while you have at least this many cards face down (99: never)
R_TAKE_LOWER = 5     # take a pile's card that lowers a face-up card by at least this many points (99: never)
R_PLACE_LOWER = 6    # a kept card goes over a face-up card it lowers by at least this before a face-down card (99: never)
R_KEEP_MAX = 7       # keep a blind draw with no better use, on a face-down card, when its value is at most this ...
R_KEEP_FD = 8        # ... or while you have at least this many cards face down (99: never)
R_HAZARD = 9         # a hazard drawn blind: 0 throw it away, 1 put it on a face-down card
R_FIN_GAP = 10       # finish when your score after finishing minus the best rival's visible score is below this ...
R_FIN_GAP2 = 11      # ... or below this while the rivals average at least R_FIN_OFD cards face down
R_FIN_OFD = 12
R_BOUNCE = 13        # a card that may bounce: 0 never; 1 where it completes, pairs or lowers (as a kept card);
                     # 2 also onto a face-down card when a blind draw of it would be kept; 3 also onto any face-down card
R_HFLIP = 14         # a rival's hazard lets you flip: 0 decline; 1 the face-down card in the most lines holding a pair; 2 the first face-down card
R_DISCARD = 15       # which pile to discard on: 0 the first pile; 1 the pile whose top card is cheaper (cover what would help the next player)
R_TAKE_ROUND = 16    # the pairing take applies only from this round on (0: every round; 1: rounds 2-3; 2: round 3)
R_PLACE_USES = 17    # 1: a kept card goes to its use (completes, pairs, lowers) before a face-down card; 0: face-down first
R_LATE_FD = 18       # with at most this many cards face down ...
R_LATE_LOWER = 19    # ... a kept card goes over a face-up card it lowers by at least this before a face-down card
R_PAIR_FD = 20       # 1: of the places where a kept card pairs a line, a face-down card first (the first in reading order)

RULE_PARAM_NAMES = ("rules.init", "rules.take_low", "rules.take_mulligan", "rules.take_complete", "rules.take_pair_fd",
                    "rules.take_lower", "rules.place_lower", "rules.keep_max", "rules.keep_fd", "rules.hazard",
                    "rules.finish_gap", "rules.finish_gap2", "rules.finish_rival_fd", "rules.bounce",
                    "rules.hazard_flip", "rules.discard", "rules.take_round", "rules.place_uses",
                    "rules.late_fd", "rules.late_lower", "rules.pair_fd")
N_RULE_PARAMS = len(RULE_PARAM_NAMES)
assert N_RULE_PARAMS == R_PAIR_FD + 1

# the uses of a card at a position, best first
U_COMPLETE, U_PAIR, U_LOWER, U_FACEDOWN, U_NONE = 0, 1, 2, 3, 4
NEVER = 99.0


@jit(inline="always")
def _visible(row, q, c, pub):
    return estimate(row, q, c, 0.0, pub[O_MULLIGANS_PER_LINE], 0.0, 0.0, pub[O_HAZARD_VALUE],
                    pub[O_MULLIGAN_VALUE], pub[O_NEGATIVE_MULTIPLIER])


@jit
def visible_change(row, q, c, pub):
    """The visible score change of putting ``c`` at ``q`` of ``row`` (int8[9] as seen; face-down cards count 0)."""
    return _visible(row, q, c, pub) - _visible(row, -1, 0, pub)


@jit
def use_at(row, q, c, pub):
    """The use (U_*) of putting ``c`` at ``q``: completes a line, pairs a line (on a face-down card or over a
    face-up card that costs more), lowers (over a face-up card: the visible score falls), face-down, or none."""
    mpl = pub[O_MULLIGANS_PER_LINE]
    old = row[q]
    pair = False
    for li in (q // 3, 3 + q % 3):
        a = LINES[li, 0]
        b = LINES[li, 1]
        d = LINES[li, 2]
        x = c if a == q else row[a]
        y = c if b == q else row[b]
        z = c if d == q else row[d]
        if x != HIDDEN and y != HIDDEN and z != HIDDEN and line_match_value(x, y, z, mpl) >= 0:
            if row[a] == HIDDEN or row[b] == HIDDEN or row[d] == HIDDEN or line_match_value(row[a], row[b], row[d], mpl) < 0:
                return U_COMPLETE
        if pair_value(x, y, z, mpl) > pair_value(row[a], row[b], row[d], mpl):
            pair = True
    if pair and (old == HIDDEN or seen_cost(old, pub) > seen_cost(c, pub)):
        return U_PAIR
    if old == HIDDEN:
        return U_FACEDOWN
    if visible_change(row, q, c, pub) < 0.0:
        return U_LOWER
    return U_NONE


@jit
def in_pair_line(row, q, mpl):
    """Whether a line through ``q`` holds a pair."""
    for li in (q // 3, 3 + q % 3):
        if pair_value(row[LINES[li, 0]], row[LINES[li, 1]], row[LINES[li, 2]], mpl) > 0:
            return True
    return False


@jit
def best_of_use(row, c, pub, legal, use):
    """(position, visible score change) of the position of use ``use`` (among ``legal`` ones) that lowers the
    visible score the most, the first in reading order on a tie; (-1, 0) when there is none.  Face-down
    positions (``U_FACEDOWN``): one outside the lines that hold a pair first, then the first."""
    best_q = -1
    best = 1e18
    if use == U_FACEDOWN:
        for q in range(LAYOUT):
            if legal[q] and row[q] == HIDDEN and not in_pair_line(row, q, pub[O_MULLIGANS_PER_LINE]):
                return q, visible_change(row, q, c, pub)
        for q in range(LAYOUT):
            if legal[q] and row[q] == HIDDEN:
                return q, visible_change(row, q, c, pub)
        return -1, 0.0
    for q in range(LAYOUT):
        if legal[q] and use_at(row, q, c, pub) == use:
            d = visible_change(row, q, c, pub)
            if d < best:
                best = d
                best_q = q
    return best_q, best


@jit
def lower_threshold(prm, r0, obs, taken):
    """The points a kept card must lower a face-up card by to go there before a face-down card: ``R_PLACE_LOWER``,
    ``R_LATE_LOWER`` with at most ``R_LATE_FD`` cards face down, and a card taken from a pile for lowering
    (``taken``) ``R_TAKE_LOWER``: the least of those that apply."""
    t = prm[r0 + R_PLACE_LOWER]
    if obs.fd[obs.pub[O_ME]] <= prm[r0 + R_LATE_FD] and prm[r0 + R_LATE_LOWER] < t:
        t = prm[r0 + R_LATE_LOWER]
    if taken and prm[r0 + R_TAKE_LOWER] < t:
        t = prm[r0 + R_TAKE_LOWER]
    return t


@jit
def useful_place(prm, r0, obs, c, legal, taken):
    """Where a kept card goes before any face-down card: (position, use) of where it completes a line, else
    pairs a line (on a face-down card first when ``R_PAIR_FD`` is 1), else lowers a face-up card by at least :func:`lower_threshold`; (-1, U_NONE) when none, or
    when ``R_PLACE_USES`` is 0."""
    pub = obs.pub
    row = obs.vis[pub[O_ME]]
    if prm[r0 + R_PLACE_USES] < 0.5:
        return -1, U_NONE
    q, d = best_of_use(row, c, pub, legal, U_COMPLETE)
    if q >= 0:
        return q, U_COMPLETE
    if prm[r0 + R_PAIR_FD] > 0.5:
        for p in range(LAYOUT):
            if legal[p] and row[p] == HIDDEN and use_at(row, p, c, pub) == U_PAIR:
                return p, U_PAIR
    q, d = best_of_use(row, c, pub, legal, U_PAIR)
    if q >= 0:
        return q, U_PAIR
    q, d = best_of_use(row, c, pub, legal, U_LOWER)
    if q >= 0 and -d >= lower_threshold(prm, r0, obs, taken):
        return q, U_LOWER
    return -1, U_NONE


@jit
def keeps_blind(prm, r0, obs, c):
    """Whether a blind draw with no better use is kept (on a face-down card): its value is at most
    ``R_KEEP_MAX``, or you have at least ``R_KEEP_FD`` cards face down.  A hazard: ``R_HAZARD``."""
    if c == HAZARD:
        return prm[r0 + R_HAZARD] > 0.5
    if c != MULLIGAN and c <= prm[r0 + R_KEEP_MAX]:
        return True
    if c == MULLIGAN:   # a mulligan costs nothing: kept as the lowest card
        return True
    return obs.fd[obs.pub[O_ME]] >= prm[r0 + R_KEEP_FD]


@jit
def cheapest_over(row, c, pub, legal):
    """A card that must be kept and has no use: over the face-up position where the visible score rises the
    least (the first on a tie), else the first legal position."""
    best_q = -1
    best = 1e18
    for q in range(LAYOUT):
        if legal[q] and row[q] != HIDDEN:
            d = visible_change(row, q, c, pub)
            if d < best:
                best = d
                best_q = q
    if best_q >= 0:
        return best_q
    for q in range(LAYOUT):
        if legal[q]:
            return q
    return -1


@jit
def finish_slot(obs, legal):
    """The face-down position whose covering would finish the round now, or -1."""
    pub = obs.pub
    me = pub[O_ME]
    if obs.fd[me] != 1 or pub[O_FINISHER] >= 0:
        return -1
    row = obs.vis[me]
    for q in range(LAYOUT):
        if row[q] == HIDDEN and legal[q]:
            return q
    return -1


@jit
def finish_gap(obs, q, c):
    """(your score after finishing with ``c`` at ``q`` minus the lowest visible score of a rival, the rivals'
    mean face-down cards)."""
    pub = obs.pub
    me = pub[O_ME]
    P = pub[O_PLAYERS]
    mine = _visible(obs.vis[me], q, c, pub)
    best = 1e18
    fd = 0.0
    for o in range(P):
        if o == me:
            continue
        fd += obs.fd[o]
        e = _visible(obs.vis[o], -1, 0, pub)
        if e < best:
            best = e
    return mine - best, fd / (P - 1)


@jit
def finishes(prm, r0, obs, q, c):
    """Whether to finish with ``c`` at ``q``: the gap below ``R_FIN_GAP``, or below ``R_FIN_GAP2`` while the rivals
    average at least ``R_FIN_OFD`` cards face down."""
    gap, ofd = finish_gap(obs, q, c)
    if gap < prm[r0 + R_FIN_GAP]:
        return True
    return gap < prm[r0 + R_FIN_GAP2] and ofd >= prm[r0 + R_FIN_OFD]


# ----------------------------------------------------------------- decisions
@jit
def initial_flips(prm, r0, out):
    pattern = int(prm[r0 + R_INIT])
    out[0] = 0
    out[1] = 1 if pattern == 1 else (4 if pattern == 2 else 8)


@jit
def take_reason(prm, r0, obs, c, legal):
    """The use rank (lower first) under which the take rule takes ``c`` from a pile, or -1 (draw blind)."""
    pub = obs.pub
    row = obs.vis[pub[O_ME]]
    if c == MULLIGAN:
        if not mulligan_fits(row, pub):
            return -1
    best = U_NONE
    lower = 0.0
    for q in range(LAYOUT):
        u = use_at(row, q, c, pub)
        if u < best:
            best = u
        if u == U_LOWER:
            d = -visible_change(row, q, c, pub)
            if d > lower:
                lower = d
    if best == U_COMPLETE and prm[r0 + R_TAKE_COMPLETE] > 0.5:
        return U_COMPLETE
    if best == U_PAIR and obs.fd[pub[O_ME]] >= prm[r0 + R_TAKE_PAIR_FD] and pub[O_ROUND] >= prm[r0 + R_TAKE_ROUND]:
        return U_PAIR
    if lower > 0.0 and lower >= prm[r0 + R_TAKE_LOWER]:
        return U_LOWER
    if c == MULLIGAN:
        return U_FACEDOWN if prm[r0 + R_TAKE_MULLIGAN] > 0.5 else -1
    if c != HAZARD and c <= prm[r0 + R_TAKE_LOW]:
        return U_FACEDOWN
    return -1


@jit
def draw_source(prm, r0, obs, legal):
    """Take a pile's card when the take rule says so (:func:`take_reason`; of two, the better reason, then the
    cheaper card), else draw blind."""
    pub = obs.pub
    take = SRC_DRAW
    rank = 1 << 30
    for k in range(2):
        top = pub[O_TOP0 + k]
        if not legal[1 + k] or top == NO_CARD:
            continue
        u = take_reason(prm, r0, obs, top, legal)
        if u < 0:
            continue
        r = u * 256 + seen_cost(top, pub) + 128
        if r < rank:
            rank = r
            take = 1 + k
    if take == SRC_DRAW and not legal[SRC_DRAW]:
        for k in range(2):
            if legal[1 + k]:
                return 1 + k
    return take


@jit
def placement(prm, r0, obs, card, legal):
    """Finish or play on at a finishing chance; else the kept card's place (module docstring), a blind draw
    thrown away when it has no use and :func:`keeps_blind` says no."""
    pub = obs.pub
    row = obs.vis[pub[O_ME]]
    blind = pub[O_FROM_PILE] < 0
    can_throw = legal[CHOICE_NOKEEP] != 0
    q_fin = finish_slot(obs, legal)
    if q_fin >= 0:
        if finishes(prm, r0, obs, q_fin, card):
            return q_fin
        legal[q_fin] = 0    # play on: never the last face-down card (the kernel recomputes the mask next decision)
        q, u = useful_place(prm, r0, obs, card, legal, not blind)
        if q < 0:
            if can_throw:
                q = CHOICE_NOKEEP
            else:
                q = cheapest_over(row, card, pub, legal)
        legal[q_fin] = 1
        if q < 0:
            return q_fin
        return q
    if card == HAZARD:
        if blind and can_throw and prm[r0 + R_HAZARD] < 0.5:
            return CHOICE_NOKEEP
        q, d = best_of_use(row, card, pub, legal, U_FACEDOWN)
        if q >= 0:
            return q
        if can_throw:
            return CHOICE_NOKEEP
        return cheapest_over(row, card, pub, legal)
    q, u = useful_place(prm, r0, obs, card, legal, not blind)
    if q >= 0:
        return q
    if not (blind and can_throw) or keeps_blind(prm, r0, obs, card):
        q, d = best_of_use(row, card, pub, legal, U_FACEDOWN)
        if q >= 0:
            return q
    if can_throw:
        return CHOICE_NOKEEP
    return cheapest_over(row, card, pub, legal)


@jit
def bounce_target(prm, r0, obs, card, legal):
    """A revealed card that may bounce: ``R_BOUNCE`` 0 stop; 1 where a kept card would have a use
    (:func:`useful_place`); 2 also onto a face-down card when a blind draw of it would be kept; 3 also onto any
    face-down card; else stop."""
    mode = prm[r0 + R_BOUNCE]
    if mode < 0.5:
        return CHOICE_STOP
    pub = obs.pub
    row = obs.vis[pub[O_ME]]
    q, u = useful_place(prm, r0, obs, card, legal, False)
    if q >= 0:
        return q
    if mode > 2.5 or (mode > 1.5 and keeps_blind(prm, r0, obs, card)):
        q, d = best_of_use(row, card, pub, legal, U_FACEDOWN)
        if q >= 0:
            return q
    return CHOICE_STOP


@jit
def discard_pile(prm, r0, pub):
    """``R_DISCARD`` 0: the first pile; 1: cover the cheaper top (a mulligan counts cheapest)."""
    if prm[r0 + R_DISCARD] < 0.5:
        return 0
    a = -100 if pub[O_TOP0] == MULLIGAN else seen_cost(pub[O_TOP0], pub)
    b = -100 if pub[O_TOP0 + 1] == MULLIGAN else seen_cost(pub[O_TOP0 + 1], pub)
    return 1 if b < a else 0


@jit
def hazard_flip(prm, r0, obs, legal):
    """``R_HFLIP`` 0: decline; 1: the face-down card in the most lines holding a pair (the first on a tie);
    2: the first face-down card."""
    mode = prm[r0 + R_HFLIP]
    if mode < 0.5:
        return CHOICE_DECLINE
    pub = obs.pub
    row = obs.vis[pub[O_ME]]
    mpl = pub[O_MULLIGANS_PER_LINE]
    best = -1
    best_q = CHOICE_DECLINE
    for q in range(LAYOUT):
        if not legal[q]:
            continue
        if mode > 1.5:
            return q
        promise = 0
        for li in range(N_LINES):
            a = LINES[li, 0]
            b = LINES[li, 1]
            d = LINES[li, 2]
            if a == q or b == q or d == q:
                if pair_value(row[a], row[b], row[d], mpl) > 0:
                    promise += 1
        if promise > best:
            best = promise
            best_q = q
    return best_q


__all__ = ["RULE_PARAM_NAMES", "N_RULE_PARAMS", "NEVER", "use_at", "visible_change", "best_of_use", "useful_place",
           "keeps_blind", "finish_gap", "finishes", "take_reason", "initial_flips", "draw_source", "placement",
           "bounce_target", "discard_pile", "hazard_flip"]
