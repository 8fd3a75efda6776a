"""The net's layout inputs (:mod:`gnoming_sim.kernel.policy.net`): the own layout after an answer, line by line.

A line (the 3 rows and 3 columns) *can match* when it holds no negative card and no hazard, at most ``mpl``
mulligans (0: any number) and one positive value among its face-up cards; it is *matched* with no face-down card
(its value that positive value), *one short* / *two short* with one / two; *blocked* when it cannot match as it
stands; *one intruder*: three face-up cards, two of them equal positives, not matched.  Then the face-up positive
cards in no matched line (their sum and the largest): what scores if the round ended now, apart from negatives,
hazards and face-down cards.

An answer changes only the two lines through its position, so a decision values the lines as they are once
(:func:`layout_lines`) and each answer values those two again (:func:`layout_features_after`): the same numbers
as valuing all six (:func:`layout_features`; counts and sums of small integers, and a largest value).
"""
from __future__ import annotations

from gnoming_sim.game.cards import HIDDEN, MAX_VALUE, MULLIGAN
from gnoming_sim.game.rules import LAYOUT
from gnoming_sim.kernel.jit import jit
from gnoming_sim.kernel.policy.estimate import cover_of
from gnoming_sim.kernel.scoring import LINES

LAYOUT_NAMES = ("lines_matched", "matched_value", "lines_one_short", "one_short_value", "lines_two_short",
                "lines_blocked", "unmatched_up", "max_unmatched_up", "lines_one_intruder")
NX = len(LAYOUT_NAMES)
N_LINE_SLOTS = 3 * 6   # what :func:`layout_lines` writes: kind, value and intruder of each line


@jit(inline="always")
def _line_kind(x, y, z, cap):
    """One line's (kind, value, one intruder): kind 0 matched, 1 one short, 2 two short, 3 blocked, 4 three
    face-down cards; ``cap`` the mulligans a matched line may hold."""
    fd = 0
    npos = 0
    nm = 0
    vmax = -1
    vmin = MAX_VALUE + 1
    bad = False
    pair = False
    for j in range(3):
        c = x if j == 0 else (y if j == 1 else z)
        if c == HIDDEN:
            fd += 1
        elif 0 <= c <= MAX_VALUE:
            if (j >= 1 and x == c) or (j == 2 and y == c):
                pair = True
            npos += 1
            vmax = max(vmax, c)
            vmin = min(vmin, c)
        elif c == MULLIGAN:
            nm += 1
        else:
            bad = True
    if nm > cap or (npos > 0 and vmax != vmin):
        bad = True
    v = vmax if npos > 0 else 0
    if bad:
        return 3, v, 1 if (fd == 0 and pair) else 0
    if fd <= 2:
        return fd, v, 0
    return 4, v, 0


@jit(inline="always")
def layout_lines(buf, at, row, mpl):
    """The six lines of ``row`` as they are (:func:`_line_kind`) into ``buf[at:at + N_LINE_SLOTS]``."""
    cap = mpl if mpl > 0 else LAYOUT
    for li in range(6):
        k, v, i = _line_kind(row[LINES[li, 0]], row[LINES[li, 1]], row[LINES[li, 2]], cap)
        buf[at + 3 * li] = k
        buf[at + 3 * li + 1] = v
        buf[at + 3 * li + 2] = i


@jit(inline="always")
def _layout(buf, at, row, q, card, mpl, lines_at):
    """The layout features of ``row`` with ``card`` at ``q`` into ``buf[at:at + NX]``; the lines not through ``q``
    read from ``buf[lines_at:]`` (:func:`layout_lines`), or valued here when ``lines_at`` < 0."""
    cap = mpl if mpl > 0 else LAYOUT
    lr = q // 3
    lc = 3 + q % 3
    n_m = 0
    v_m = 0.0
    n_1 = 0
    v_1 = 0.0
    n_2 = 0
    n_b = 0
    n_i = 0
    lines = 0
    for li in range(6):
        if lines_at < 0 or (q < LAYOUT and (li == lr or li == lc)):
            a = LINES[li, 0]
            b = LINES[li, 1]
            d = LINES[li, 2]
            k, v, i = _line_kind(card if a == q else row[a], card if b == q else row[b], card if d == q else row[d],
                                 cap)
        else:
            k = int(buf[lines_at + 3 * li])
            v = int(buf[lines_at + 3 * li + 1])
            i = int(buf[lines_at + 3 * li + 2])
        if k == 0:
            n_m += 1
            v_m += v
            lines |= 1 << li
        elif k == 1:
            n_1 += 1
            v_1 += v
        elif k == 2:
            n_2 += 1
        elif k == 3:
            n_b += 1
            n_i += i
    in_m = cover_of(lines)
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
def layout_features(buf, at, row, q, card, mpl):
    """The own layout ``row`` with ``card`` put at position ``q`` (``q`` = ``LAYOUT``: as it is), line by line,
    into ``buf[at:at + NX]`` (:data:`LAYOUT_NAMES`), every line valued."""
    _layout(buf, at, row, q, card, mpl, -1)


@jit(inline="always")
def layout_features_after(buf, at, row, q, card, mpl, lines_at):
    """:func:`layout_features`, the lines not through ``q`` read from ``buf[lines_at:]`` (:func:`layout_lines`)."""
    _layout(buf, at, row, q, card, mpl, lines_at)


__all__ = ["LAYOUT_NAMES", "NX", "N_LINE_SLOTS", "layout_lines", "layout_features", "layout_features_after"]
