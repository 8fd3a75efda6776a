"""Score estimates of a layout as seen, and their cheap deltas (the heuristic's arithmetic).

``estimate(row, q, c, ...)`` is the estimated final score of ``row`` (int8[9] as seen,
HIDDEN for face-down) with card ``c`` put at position ``q``: face-up cards count as they
would score, each face-down card counts ``eu`` (the mean cost of an unseen card), fully
visible matched lines score as in RULES.md §5, and an unmatched line with a pair is
credited ``pair_w`` times its value.  Cards cost what the rules' card values say
(``hz, mv, nm``: hazard_value, mulligan_value, negative_multiplier, as the observation shows them).
:func:`quick_delta` gives
``estimate(row, q, c) - estimate(row, -1, 0)`` far faster (a test checks they agree).
"""
from __future__ import annotations

import numpy as np

from gnoming_sim.kernel.jit import jit
from gnoming_sim.kernel.scoring import LINES, N_LINES, card_cost, line_match_value
from gnoming_sim.game.cards import HAZARD, HIDDEN, MAX_VALUE, MULLIGAN, NO_CARD
from gnoming_sim.game.rules import LAYOUT


@jit(inline="always")
def pair_value(x, y, z, mpl):
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
        return -1, -pair_w * pair_value(x, y, z, mpl)
    return -1, 0.0


def _published_costs():
    """What :func:`cell_cost` gives under the published card values, per code (index ``code + 128``):
    the cost uncovered, covered by a matched line, and whether the code is a mulligan (face-down: 0);
    and those values (hazard_value, mulligan_value, negative_multiplier)."""
    from gnoming_sim.game.cards import card_cost as rules_card_cost
    from gnoming_sim.game.rules import RuleConfig

    published = RuleConfig()
    codes = range(-128, 128)
    uncovered = [0.0 if c in (HIDDEN, NO_CARD) else float(rules_card_cost(c, published)) for c in codes]
    covered = [u if c == HAZARD or c < 0 else 0.0 for c, u in zip(codes, uncovered)]
    mulligan = [1.0 if c == MULLIGAN else 0.0 for c in codes]
    values = (published.hazard_value, published.mulligan_value, published.negative_multiplier)
    return np.array(uncovered), np.array(covered), np.array(mulligan), values


# The published card values' costs by table: a lookup with no branch on the card, where the general
# path (below) branches on it and calls card_cost; under the published rules the lookup made greedy play
# +3.4% [-0.9, +7.8] and expert +6.1% [+4.2, +8.0] faster (bench/ab.py: same games, both import orders).
COST_U, COST_C, IS_MULL, (HZ_PUBLISHED, MV_PUBLISHED, NM_PUBLISHED) = _published_costs()


@jit(inline="always")
def cell_cost(x, covered, eu, mull_w, hz, mv, nm):
    """The estimate's cost of card ``x`` where it lies: face-down ``eu``; a positive card or a
    mulligan in a matched line 0; else what it scores (:func:`card_cost`); a mulligan less the
    bonus ``mull_w`` the strategy sees in it."""
    if x == HIDDEN:
        return eu
    if hz == HZ_PUBLISHED and mv == MV_PUBLISHED and nm == NM_PUBLISHED:
        i = int(x) + 128
        return (COST_C[i] if covered else COST_U[i]) - mull_w * IS_MULL[i]
    if x == MULLIGAN:
        return (0.0 if covered else 1.0 * card_cost(x, hz, mv, nm)) - mull_w
    if x == HAZARD or x < 0 or not covered:
        return 1.0 * card_cost(x, hz, mv, nm)
    return 0.0


@jit
def estimate(row, q, c, eu, mpl, pair_w, mull_w, hz, mv, nm):
    """Estimated final score of ``row`` (int8[9] as seen) with card ``c`` put at ``q`` (q < 0: as is)."""
    total = 0.0
    covered = 0
    for li in range(N_LINES):
        v, t = _line_eval(row, q, c, li, mpl, pair_w)
        total += t
        if v >= 0:
            covered |= LINE_MASK[li]
    for pos in range(LAYOUT):
        total += cell_cost(c if pos == q else row[pos], (covered >> pos) & 1, eu, mull_w, hz, mv, nm)
    return total


# Incremental deltas: putting a card at q changes only the row and the column through q,
# and the cover of their five cells; the rest of the estimate cancels.  The layout's
# per-line facts are packed into ints once per layout (5 bits per line value).
@jit
def prepare(row, mpl, pair_w):
    """Packed facts of ``row`` as is: (matched-line mask, covered cells, matched values, pair values)."""
    mmask = 0
    covered = 0
    mvals = 0
    pvals = 0
    for li in range(N_LINES):
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
                mvals |= (int(v) & 31) << (5 * li)
                continue
        if pair_w > 0.0:
            pvals |= (int(pair_value(x, y, z, mpl)) & 31) << (5 * li)
    return mmask, covered, mvals, pvals


@jit
def cover_of(lines):
    """Cells covered by the lines in bit set ``lines`` (bits 0-2 rows, 3-5 columns)."""
    return ((lines & 1) * 0o7 | ((lines >> 1) & 1) * 0o70 | ((lines >> 2) & 1) * 0o700
            | ((lines >> 3) & 1) * 0o111 | ((lines >> 4) & 1) * 0o222 | ((lines >> 5) & 1) * 0o444)


# scratch layout (offsets into Memo.scratch, see kernel.state)
SC_K = 0                         # [LAYOUT] per position: the card-independent part of the delta
SC_SAVE_R = SC_K + LAYOUT        # [LAYOUT] what the row's other cells save if the row through q becomes matched
SC_SAVE_C = SC_SAVE_R + LAYOUT   # [LAYOUT] the same for the column
SC_NEED = SC_SAVE_C + LAYOUT     # [2 LAYOUT] per (position, row/column): value a positive card must have to
                                 #   match the line (-1: none can, -2: any can)
SC_MULL = SC_NEED + 2 * LAYOUT   # [2 LAYOUT] value the line matches at if a mulligan is put there, -1 if not
SC_COST_U = SC_MULL + 2 * LAYOUT  # [LAYOUT] cost of each cell's card if uncovered
SC_COST_C = SC_COST_U + LAYOUT   # [LAYOUT] cost if covered by a matched line
SC_PAIR = SC_COST_C + LAYOUT     # [2 LAYOUT] per (position, row/column): pair value of the line's other two
                                 #   cards (only written when pair_w > 0)
N_SCRATCH = SC_PAIR + 2 * LAYOUT
assert (SC_SAVE_R, SC_NEED, SC_COST_C, SC_PAIR, N_SCRATCH) == (9, 27, 72, 81, 99)


def _class_table() -> np.ndarray:
    """Card code + 128 -> class: 0 bars a line (face-down, hazard, negative), 1 mulligan, 2 + v."""
    table = np.zeros(256, dtype=np.int64)
    for code in range(-128, 128):
        if code == MULLIGAN:
            table[code + 128] = 1
        elif 0 <= code <= MAX_VALUE:
            table[code + 128] = 2 + code
    return table


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


def _need_tables() -> tuple[np.ndarray, np.ndarray]:
    """[mpl, class u, class w] -> :func:`_line_need` of a card of each class."""
    n = MAX_VALUE + 3
    card = [HIDDEN, MULLIGAN] + list(range(MAX_VALUE + 1))   # one card of each class
    need = np.empty((4, n, n), dtype=np.int64)
    mull = np.empty((4, n, n), dtype=np.int64)
    for mpl in range(4):
        for cu in range(n):
            for cw in range(n):
                need[mpl, cu, cw], mull[mpl, cu, cw] = _line_need(card[cu], card[cw], mpl)
    return need, mull


CLASS = _class_table()
NEED, MULL = _need_tables()


@jit(inline="always")
def _match_with(need, mull, c):
    """Value the line matches at with card ``c`` put in, or -1."""
    if c == MULLIGAN:
        return mull
    if c == HAZARD or c < 0:
        return -1
    if need == -2 or need == c:
        return c
    return -1


@jit(inline="always")
def _base_and_old(x, other, covered, scratch):
    """Cell x's cost when covered only by the lines not through q, and its cost now."""
    cu = scratch[SC_COST_U + x]
    cc = scratch[SC_COST_C + x]
    base = cc if (other >> x) & 1 else cu
    return base, (cc if (covered >> x) & 1 else cu), cc


@jit
def precompute(row, mmask, covered, mvals, pvals, mpl, pair_w, mull_w, hz, mv, nm, scratch):
    """Fill ``scratch`` with everything of the deltas for ``row`` that depends neither on the
    card put down nor on the mean unseen cost (so a turn's draw and placement share it)."""
    for x in range(LAYOUT):  # a face-down cell costs eu however it is covered: it cancels, except at q
        scratch[SC_COST_U + x] = cell_cost(row[x], False, 0.0, mull_w, hz, mv, nm)
        scratch[SC_COST_C + x] = cell_cost(row[x], True, 0.0, mull_w, hz, mv, nm)
    for q in range(LAYOUT):
        lr = q // 3
        cq = q % 3
        lc = 3 + cq
        other = cover_of(mmask & ~((1 << lr) | (1 << lc)))
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
        u = CLASS[int(row[ra]) + 128]
        w = CLASS[int(row[rb]) + 128]
        scratch[SC_NEED + 2 * q] = NEED[mpl, u, w]
        scratch[SC_MULL + 2 * q] = MULL[mpl, u, w]
        u = CLASS[int(row[ca]) + 128]
        w = CLASS[int(row[cb]) + 128]
        scratch[SC_NEED + 2 * q + 1] = NEED[mpl, u, w]
        scratch[SC_MULL + 2 * q + 1] = MULL[mpl, u, w]
        if pair_w > 0.0:
            scratch[SC_PAIR + 2 * q] = _pair_of(row[ra], row[rb], mpl)
            scratch[SC_PAIR + 2 * q + 1] = _pair_of(row[ca], row[cb], mpl)


@jit(inline="always")
def quick_delta(row, q, c, scratch, eu, mpl, pair_w, mull_w, hz, mv, nm):
    """``estimate(row, q, c, ...) - estimate(row, -1, 0, ...)`` from what :func:`precompute` left in ``scratch``."""
    vr = _match_with(scratch[SC_NEED + 2 * q], scratch[SC_MULL + 2 * q], c)
    vc = _match_with(scratch[SC_NEED + 2 * q + 1], scratch[SC_MULL + 2 * q + 1], c)
    d = scratch[SC_K + q] + cell_cost(c, vr >= 0 or vc >= 0, eu, mull_w, hz, mv, nm)
    if row[q] == HIDDEN:
        d -= eu
    if vr >= 0:
        d -= vr + scratch[SC_SAVE_R + q]
    elif pair_w > 0.0:
        d -= pair_w * _pair_with(c, q, 0, row, scratch, mpl)
    if vc >= 0:
        d -= vc + scratch[SC_SAVE_C + q]
    elif pair_w > 0.0:
        d -= pair_w * _pair_with(c, q, 1, row, scratch, mpl)
    return d


@jit(inline="always")
def _pair_of(a, b, mpl):
    """The value v > 0 of the pair ``a``, ``b`` ((v, v) or (v, M)), or 0: one term of :func:`pair_value`."""
    if a == MULLIGAN and b == MULLIGAN:
        return 0
    if a == MULLIGAN or b == MULLIGAN:
        if mpl < 1:
            return 0
        v = b if a == MULLIGAN else a
    elif a == b:
        v = a
    else:
        return 0
    if v != HIDDEN and v != HAZARD and v > 0:
        return v
    return 0


@jit(inline="always")
def _pair_with(c, q, col, row, scratch, mpl):
    """:func:`pair_value` of the row (``col`` 0) or column (1) through q with ``c`` put at q: the
    best of its three pairs, the one without q precomputed (``SC_PAIR``)."""
    lr = q // 3
    cq = q % 3
    if col == 0:
        a = 3 * lr + (1 if cq == 0 else 0)
        b = 3 * lr + (1 if cq == 2 else 2)
    else:
        a = 3 * (1 if lr == 0 else 0) + cq
        b = 3 * (1 if lr == 2 else 2) + cq
    best = int(scratch[SC_PAIR + 2 * q + col])
    v = _pair_of(c, row[a], mpl)
    if v > best:
        best = v
    v = _pair_of(c, row[b], mpl)
    if v > best:
        best = v
    return best
