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

from ._jit import jit
from ._observe import (O_FINISHER, O_FROM_PILE, O_ME, O_PLAN_CARD, O_PLAN_POS, O_PLAN_PRE, O_MULLIGAN_LIMIT, O_MULLIGANS_PER_LINE, O_PLAYERS,
                       O_TOP0, U_COST, U_COUNT)
from ._scoring import LINES, card_cost, line_match_value
from .cards import HAZARD, HIDDEN, MULLIGAN, NO_CARD
from .rules import EARLY_FINISH_BONUS, HAZARD_PENALTY

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
H_SCRATCH = 16       # params[16:16 + N_SCRATCH]: per-decision workspace (each decision rewrites it first;
                     # nothing is carried from one decision to the next)

PARAM_NAMES = ("unseen_bias", "pair_weight", "take_threshold", "keep_threshold", "reveal_bonus",
               "mulligan_bonus", "hazard_deny", "finish_margin", "bounce", "hazard_flip",
               "initial_flips")

NOKEEP = 9
INF = 1e18


@jit
def unseen_mean(unknown, params):
    """Mean cost of an unseen card, plus the pessimism bias."""
    n = unknown[U_COUNT]
    mean = unknown[U_COST] / n if n > 0 else 5.0
    return mean + params[H_UNSEEN_BIAS]


@jit
def _pair_value(x, y, z, mpl):
    """Value v > 0 of a pair in an unmatched line: (v, v) or (v, M); 0 if none."""
    best = 0
    for k in range(3):
        a = x if k == 0 else (x if k == 1 else y)
        b = y if k == 0 else (z if k == 1 else z)
        if a == MULLIGAN and b == MULLIGAN:
            continue
        if a == MULLIGAN or b == MULLIGAN:
            v = b if a == MULLIGAN else a
            if mpl < 1:
                continue
        elif a == b:
            v = a
        else:
            continue
        if v != HIDDEN and v != HAZARD and v > best:
            best = v
    return best


@jit
def estimate(row, q, c, eu, mpl, pair_w, mull_w):
    """Estimated final score of ``row`` (int8[9] as seen) with card ``c`` put at ``q`` (q < 0: as is)."""
    total = 0.0
    covered = 0
    for li in range(6):
        a = LINES[li, 0]
        b = LINES[li, 1]
        d = LINES[li, 2]
        x = c if a == q else row[a]
        y = c if b == q else row[b]
        z = c if d == q else row[d]
        if x != HIDDEN and y != HIDDEN and z != HIDDEN:
            v = line_match_value(x, y, z, mpl)
            if v >= 0:
                total -= v
                covered |= (1 << a) | (1 << b) | (1 << d)
                continue
        if pair_w > 0.0:
            total -= pair_w * _pair_value(x, y, z, mpl)
    for pos in range(9):
        x = c if pos == q else row[pos]
        if x == HIDDEN:
            total += eu
        elif x == HAZARD:
            total += HAZARD_PENALTY
        elif x == MULLIGAN:
            total -= mull_w
        elif x < 0 or (covered >> pos) & 1 == 0:
            total += x
    return total


# Incremental deltas: putting a card at q changes only the row and the column through q,
# and the cover of their five cells; the rest of the estimate cancels.  The layout's
# per-line facts are packed into ints once per decision (5 bits per line value).
LINE_MASK = np.array([0o7, 0o70, 0o700, 0o111, 0o222, 0o444], dtype=np.int64)


@jit
def _line_eval(row, q, c, li, mpl, pair_w):
    """(matched value or -1, estimate term) of line ``li`` with ``c`` put at ``q``."""
    a = LINES[li, 0]
    b = LINES[li, 1]
    d = LINES[li, 2]
    x = c if a == q else row[a]
    y = c if b == q else row[b]
    z = c if d == q else row[d]
    if x != HIDDEN and y != HIDDEN and z != HIDDEN:
        v = line_match_value(x, y, z, mpl)
        if v >= 0:
            return v, -1.0 * v
    if pair_w > 0.0:
        return -1, -pair_w * _pair_value(x, y, z, mpl)
    return -1, 0.0


@jit
def _cell_cost(x, covered, eu, mull_w):
    if x == HIDDEN:
        return eu
    if x == HAZARD:
        return 1.0 * HAZARD_PENALTY
    if x == MULLIGAN:
        return -mull_w
    if x < 0 or not covered:
        return 1.0 * x
    return 0.0


@jit
def prepare(row, mpl, pair_w):
    """Packed facts of ``row`` as is: (matched-line mask, covered cells, matched values, pair values)."""
    mmask = 0
    covered = 0
    mvals = 0
    pvals = 0
    for li in range(6):
        a = LINES[li, 0]
        b = LINES[li, 1]
        d = LINES[li, 2]
        x = row[a]
        y = row[b]
        z = row[d]
        if x != HIDDEN and y != HIDDEN and z != HIDDEN:
            v = line_match_value(x, y, z, mpl)
            if v >= 0:
                mmask |= 1 << li
                covered |= LINE_MASK[li]
                mvals |= (v & 31) << (5 * li)
                continue
        if pair_w > 0.0:
            pvals |= (_pair_value(x, y, z, mpl) & 31) << (5 * li)
    return mmask, covered, mvals, pvals


@jit
def _cover_of(lines):
    """Cells covered by the lines in bit set ``lines`` (bits 0-2 rows, 3-5 columns)."""
    return ((lines & 1) * 0o7 | ((lines >> 1) & 1) * 0o70 | ((lines >> 2) & 1) * 0o700
            | ((lines >> 3) & 1) * 0o111 | ((lines >> 4) & 1) * 0o222 | ((lines >> 5) & 1) * 0o444)


@jit
def _swap_cost(row, x, q, c, covered, new_cov, eu, mull_w):
    return (_cell_cost(c if x == q else row[x], (new_cov >> x) & 1, eu, mull_w)
            - _cell_cost(row[x], (covered >> x) & 1, eu, mull_w))


@jit
def fast_delta(row, q, c, mmask, covered, mvals, pvals, eu, mpl, pair_w, mull_w):
    """``estimate(row, q, c, ...) - estimate(row, -1, 0, ...)`` from the packed facts."""
    lr = q // 3
    cq = q % 3
    lc = 3 + cq
    d = 0.0
    new_lines = mmask & ~((1 << lr) | (1 << lc))
    for k in range(2):
        li = lr if k == 0 else lc
        if (mmask >> li) & 1:
            d += (mvals >> (5 * li)) & 31
        else:
            d += pair_w * ((pvals >> (5 * li)) & 31)
        v, t = _line_eval(row, q, c, li, mpl, pair_w)
        d += t
        if v >= 0:
            new_lines |= 1 << li
    new_cov = _cover_of(new_lines)
    for j in range(3):  # the row through q, then the column's two other cells
        d += _swap_cost(row, 3 * lr + j, q, c, covered, new_cov, eu, mull_w)
        if j != lr:
            d += _swap_cost(row, 3 * j + cq, q, c, covered, new_cov, eu, mull_w)
    return d


# scratch layout (offsets into params[H_SCRATCH:])
SC_K = 0       # [9]  per position: the card-independent part of the delta
SC_SAVE_R = 9  # [9]  what the row's other cells save if the row through q becomes matched
SC_SAVE_C = 18  # [9] the same for the column
SC_NEED = 27   # [18] per (position, row/column): value a positive card must have to match
               #      the line (-1: none can, -2: any can)
SC_MULL = 45   # [18] value the line matches at if a mulligan is put there, -1 if it does not
SC_COST_U = 63  # [9] cost of each cell's card if uncovered
SC_COST_C = 72  # [9] cost if covered by a matched line
N_SCRATCH = 81


@jit
def _line_need(u, w, mpl):
    """(need, mulligan value) of a line whose other two cards are ``u`` and ``w``."""
    m = 0
    v = -1
    for k in range(2):
        x = u if k == 0 else w
        if x == MULLIGAN:
            m += 1
        elif x == HIDDEN or x == HAZARD or x < 0:
            return -1, -1
        elif v == -1:
            v = x
        elif v != x:
            return -1, -1
    need = -1 if m > mpl else (-2 if v == -1 else v)
    mull = (v if v >= 0 else 0) if m + 1 <= mpl else -1
    return need, mull


@jit
def _match_with(need, mull, c):
    """Value the line matches at with card ``c`` put in, or -1."""
    if c == MULLIGAN:
        return mull
    if c == HAZARD or c < 0:
        return -1
    if need == -2 or need == c:
        return c
    return -1


@jit
def _base_and_old(x, other, covered, scratch):
    """Cell x's cost when covered only by the lines not through q, and its cost now."""
    cu = scratch[SC_COST_U + x]
    cc = scratch[SC_COST_C + x]
    base = cc if (other >> x) & 1 else cu
    return base, (cc if (covered >> x) & 1 else cu), cc


@jit
def precompute(row, mmask, covered, mvals, pvals, mpl, pair_w, mull_w, scratch):
    """Fill ``scratch`` with everything of the deltas for ``row`` that depends neither on the
    card put down nor on the mean unseen cost (so a turn's draw and placement share it)."""
    for x in range(9):  # a face-down cell costs eu however it is covered: it cancels, except at q
        scratch[SC_COST_U + x] = _cell_cost(row[x], 0, 0.0, mull_w)
        scratch[SC_COST_C + x] = _cell_cost(row[x], 1, 0.0, mull_w)
    for q in range(9):
        lr = q // 3
        cq = q % 3
        lc = 3 + cq
        other = _cover_of(mmask & ~((1 << lr) | (1 << lc)))
        k = 0.0
        if (mmask >> lr) & 1:
            k += (mvals >> (5 * lr)) & 31
        else:
            k += pair_w * ((pvals >> (5 * lr)) & 31)
        if (mmask >> lc) & 1:
            k += (mvals >> (5 * lc)) & 31
        else:
            k += pair_w * ((pvals >> (5 * lc)) & 31)
        k -= scratch[(SC_COST_C if (covered >> q) & 1 else SC_COST_U) + q]
        ra = 3 * lr + (1 if cq == 0 else 0)
        rb = 3 * lr + (1 if cq == 2 else 2)
        ca = 3 * (1 if lr == 0 else 0) + cq
        cb = 3 * (1 if lr == 2 else 2) + cq
        b1, o1, c1 = _base_and_old(ra, other, covered, scratch)
        b2, o2, c2 = _base_and_old(rb, other, covered, scratch)
        b3, o3, c3 = _base_and_old(ca, other, covered, scratch)
        b4, o4, c4 = _base_and_old(cb, other, covered, scratch)
        scratch[SC_K + q] = k + (b1 - o1) + (b2 - o2) + (b3 - o3) + (b4 - o4)
        scratch[SC_SAVE_R + q] = (b1 - c1) + (b2 - c2)
        scratch[SC_SAVE_C + q] = (b3 - c3) + (b4 - c4)
        need, mull = _line_need(row[ra], row[rb], mpl)
        scratch[SC_NEED + 2 * q] = need
        scratch[SC_MULL + 2 * q] = mull
        need, mull = _line_need(row[ca], row[cb], mpl)
        scratch[SC_NEED + 2 * q + 1] = need
        scratch[SC_MULL + 2 * q + 1] = mull


@jit
def quick_delta(row, q, c, scratch, eu, mpl, pair_w, mull_w):
    """``fast_delta`` from the parts :func:`precompute` left in ``scratch``."""
    vr = _match_with(scratch[SC_NEED + 2 * q], scratch[SC_MULL + 2 * q], c)
    vc = _match_with(scratch[SC_NEED + 2 * q + 1], scratch[SC_MULL + 2 * q + 1], c)
    d = scratch[SC_K + q] + _cell_cost(c, vr >= 0 or vc >= 0, eu, mull_w)
    if row[q] == HIDDEN:
        d -= eu
    if vr >= 0:
        d -= vr + scratch[SC_SAVE_R + q]
    elif pair_w > 0.0:
        d -= pair_w * _line_pair(row, q, c, q // 3, mpl)
    if vc >= 0:
        d -= vc + scratch[SC_SAVE_C + q]
    elif pair_w > 0.0:
        d -= pair_w * _line_pair(row, q, c, 3 + q % 3, mpl)
    return d


@jit
def _line_pair(row, q, c, li, mpl):
    a = LINES[li, 0]
    b = LINES[li, 1]
    e = LINES[li, 2]
    return _pair_value(c if a == q else row[a], c if b == q else row[b], c if e == q else row[e], mpl)


@jit
def _best_opponent(pub, vis, eu):
    me = pub[O_ME]
    mpl = pub[O_MULLIGANS_PER_LINE]
    best = INF
    for o in range(pub[O_PLAYERS]):
        if o != me:
            e = estimate(vis[o], -1, 0, eu, mpl, 0.0, 0.0)
            if e < best:
                best = e
    return best


@jit
def _delta(params, pub, vis, fd, row, eu, q, c):
    """Change of the estimate when ``c`` is put at ``q``, with the decision's adjustments
    (``params[H_SCRATCH:]`` must hold this decision's :func:`precompute`)."""
    mpl = pub[O_MULLIGANS_PER_LINE]
    d = quick_delta(row, q, c, params[H_SCRATCH:], eu, mpl, params[H_PAIR], params[H_MULLIGAN])
    if row[q] == HIDDEN:
        d -= params[H_REVEAL]
        if fd[pub[O_ME]] == 1 and pub[O_FINISHER] < 0:  # this move finishes the round
            mine = estimate(row, q, c, eu, mpl, 0.0, 0.0)
            lowest = mine <= _best_opponent(pub, vis, eu) - params[H_FINISH_MARGIN]
            d += -EARLY_FINISH_BONUS if lowest else EARLY_FINISH_BONUS
    if c == HAZARD:
        deny = 0
        for o in range(pub[O_PLAYERS]):
            if o != pub[O_ME] and fd[o] >= 2:
                deny += 1
        d -= params[H_HAZARD_DENY] * deny
    return d


@jit
def _mulligan_placeable(row, pub):
    limit = pub[O_MULLIGAN_LIMIT]
    if limit == 0:
        return True
    n = 0
    for q in range(9):
        if row[q] == MULLIGAN:
            n += 1
    return n < limit


@jit
def _best_place(params, pub, vis, fd, c, legal, use_mask, eu):
    """(best delta, position) over all positions, or those allowed by ``legal`` if ``use_mask``."""
    row = vis[pub[O_ME]]
    best = INF
    best_q = -1
    for q in range(9):
        if not use_mask or legal[q]:
            d = _delta(params, pub, vis, fd, row, eu, q, c)
            if d < best:
                best = d
                best_q = q
    return best, best_q


@jit
def _prepare_me(params, pub, vis, reuse):
    """Precompute the per-position parts of the deltas into ``params[H_SCRATCH:]`` — unless
    ``reuse`` and this turn's draw decision already did for the same layout."""
    if reuse and pub[O_PLAN_PRE] == 1:
        return
    pub[O_PLAN_PRE] = 1 if reuse else 0
    row = vis[pub[O_ME]]
    pair_w = params[H_PAIR]
    mmask, covered, mvals, pvals = prepare(row, pub[O_MULLIGANS_PER_LINE], pair_w)
    precompute(row, mmask, covered, mvals, pvals, pub[O_MULLIGANS_PER_LINE], pair_w,
               params[H_MULLIGAN], params[H_SCRATCH:])


# ----------------------------------------------------------------- decisions
@jit
def initial_flips(params, out):
    pattern = int(params[H_INIT])
    out[0] = 0
    out[1] = 1 if pattern == 1 else (4 if pattern == 2 else 8)


@jit
def draw_source(params, pub, vis, fd, unknown, legal):
    """Take the better discard top if it improves the estimate by >= H_TAKE, else draw blind."""
    row = vis[pub[O_ME]]
    eu = unseen_mean(unknown, params)
    _prepare_me(params, pub, vis, True)
    best = INF
    src = 0
    for k in range(2):
        top = pub[O_TOP0 + k]
        if not legal[1 + k] or top == NO_CARD:
            continue
        if top == MULLIGAN and not _mulligan_placeable(row, pub):
            continue
        d, q = _best_place(params, pub, vis, fd, top, legal, False, eu)
        if d < best:
            best = d
            src = 1 + k
            pub[O_PLAN_CARD] = top
            pub[O_PLAN_POS] = q
    if best <= -params[H_TAKE]:
        return src
    return 0


@jit
def placement(params, pub, vis, fd, unknown, card, legal):
    if not legal[NOKEEP] and pub[O_FROM_PILE] >= 0 and pub[O_PLAN_CARD] == card and pub[O_PLAN_POS] >= 0:
        return pub[O_PLAN_POS]  # draw_source already found the best place for this very card
    eu = unseen_mean(unknown, params)
    _prepare_me(params, pub, vis, True)
    d, q = _best_place(params, pub, vis, fd, card, legal, True, eu)
    if legal[NOKEEP] and (q < 0 or d > -params[H_KEEP]):
        return NOKEEP
    return q


@jit
def bounce_target(params, pub, vis, fd, unknown, card, legal):
    if params[H_BOUNCE] <= 0.0:
        return NOKEEP
    eu = unseen_mean(unknown, params)
    _prepare_me(params, pub, vis, False)
    d, q = _best_place(params, pub, vis, fd, card, legal, True, eu)
    if q >= 0 and d < 0.0:
        return q
    return NOKEEP


@jit
def _worth_to_others(c):
    if c == MULLIGAN:
        return -5
    return card_cost(c)


@jit
def discard_pile(pub):
    """Cover the top that would help the next player more (the lower-cost one)."""
    if _worth_to_others(pub[O_TOP0 + 1]) < _worth_to_others(pub[O_TOP0]):
        return 1
    return 0


@jit
def hazard_flip(params, pub, vis, legal):
    """Flip the face-down card that could complete the most pairs, or decline."""
    if params[H_HAZARD_FLIP] <= 0.0:
        return 9
    row = vis[pub[O_ME]]
    mpl = pub[O_MULLIGANS_PER_LINE]
    best = -1
    best_q = 9
    for q in range(9):
        if not legal[q]:
            continue
        promise = 0
        for li in range(6):
            a = LINES[li, 0]
            b = LINES[li, 1]
            d = LINES[li, 2]
            if a == q or b == q or d == q:
                promise += _pair_value(row[a], row[b], row[d], mpl) > 0
        if promise > best:
            best = promise
            best_q = q
    return best_q
