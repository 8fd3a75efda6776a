"""Scoring of one final layout (RULES.md §5) — the code the kernel and ``score_layout`` share.

A layout is an int8 array of 9 card codes, row-major::

    0 1 2
    3 4 5
    6 7 8
"""
from __future__ import annotations

import numpy as np

from gnoming_sim.kernel.jit import jit
from gnoming_sim.game.cards import HAZARD, HIDDEN, MULLIGAN, SLOT_OFFSET
from gnoming_sim.game.observation import U_FACES, U_NEGATIVES
from gnoming_sim.game.rules import (LAYOUT, R_HAZARD_VALUE, R_MULLIGAN_VALUE, R_MULLIGANS_PER_LINE,
                                    R_NEGATIVE_MULTIPLIER, mulligan_placeable)

# the six lines: 3 rows, then 3 columns
LINES = np.array([[0, 1, 2], [3, 4, 5], [6, 7, 8], [0, 3, 6], [1, 4, 7], [2, 5, 8]], dtype=np.int64)
N_LINES = 6  # three rows, three columns

# indices of the parts array
P_MATCHED = 0
P_UNMATCHED = 1
P_NEGATIVES = 2
P_HAZARDS = 3
P_LINES = 4   # number of matched lines
N_PARTS = 5


# the mulligan limit (RULES.md §3), compiled from its one definition in game/rules.py: the turn's
# legality (table.can_place) and the heuristic's plans both ask this
mulligan_allowed = jit(inline="always")(mulligan_placeable)


@jit(py=True)
def card_cost(c, hazard_value, mulligan_value, negative_multiplier):
    """Points a card scores where it lies unmatched (RULES.md §5 with the rules' card values): a
    number card its value (a negative one times ``negative_multiplier``), a hazard ``hazard_value``,
    a mulligan ``mulligan_value``.  Callers pass the rules array's (or the observation's) int64s."""
    if c == HAZARD:
        return hazard_value
    if c == MULLIGAN:
        return mulligan_value
    if c < 0:
        return c * negative_multiplier
    return c


@jit
def unseen_cost(unknown, hazard_value, mulligan_value, negative_multiplier):
    """Total :func:`card_cost` of the unseen cards counted in ``unknown`` (int64[N_SLOTS]): the running
    face-value sums priced by the rules, so the kernel's card counting needs no rules."""
    negatives = unknown[U_NEGATIVES]
    hazard = np.int64(HAZARD)       # run-time values: a literal would compile card_cost once more per code
    mulligan = np.int64(MULLIGAN)
    return (unknown[U_FACES] - negatives + negatives * negative_multiplier
            + unknown[HAZARD + SLOT_OFFSET] * card_cost(hazard, hazard_value, mulligan_value, negative_multiplier)
            + unknown[MULLIGAN + SLOT_OFFSET] * card_cost(mulligan, hazard_value, mulligan_value, negative_multiplier))


@jit
def line_match_value(c0, c1, c2, mulligans_per_line):
    """The value a line is matched at (>= 0), or -1 if the line is not matched."""
    n_mull = 0
    value = -1
    for k in range(3):
        c = c0 if k == 0 else (c1 if k == 1 else c2)
        if c == MULLIGAN:
            n_mull += 1
        elif c == HAZARD or c < 0:
            return -1
        elif value == -1:
            value = c
        elif value != c:
            return -1
    if n_mull > mulligans_per_line:
        return -1
    if value == -1:  # only mulligans
        return 0
    return value


@jit(py=True)
def score_parts(lay, rules, parts):
    """Write the score parts of layout ``lay`` (int8[9]) into ``parts`` (int32[N_PARTS]) under the
    rules array ``rules`` (int64[N_RULES]); return the score.  A mulligan outside every matched line
    counts among the unmatched cards."""
    mulligans_per_line = rules[R_MULLIGANS_PER_LINE]
    hazard_value = rules[R_HAZARD_VALUE]
    mulligan_value = rules[R_MULLIGAN_VALUE]
    negative_multiplier = rules[R_NEGATIVE_MULTIPLIER]
    matched = 0
    n_lines = 0
    covered = 0
    for li in range(N_LINES):
        a = LINES[li, 0]
        b = LINES[li, 1]
        c = LINES[li, 2]
        v = line_match_value(lay[a], lay[b], lay[c], mulligans_per_line)
        if v >= 0:
            matched -= int(v)
            n_lines += 1
            covered |= (1 << a) | (1 << b) | (1 << c)
    unmatched = 0
    negatives = 0
    hazards = 0
    for pos in range(LAYOUT):
        if (covered >> pos) & 1:   # a matched line holds only positives and mulligans: they score nothing
            continue
        c = int(lay[pos])   # int: summed interpreted (NUMBA_DISABLE_JIT), an int8 would wrap
        cost = card_cost(c, hazard_value, mulligan_value, negative_multiplier)
        if c == HAZARD:
            hazards += cost
        elif c != MULLIGAN and c < 0:
            negatives += cost
        else:
            unmatched += cost
    parts[P_MATCHED] = matched
    parts[P_UNMATCHED] = unmatched
    parts[P_NEGATIVES] = negatives
    parts[P_HAZARDS] = hazards
    parts[P_LINES] = n_lines
    return matched + unmatched + negatives + hazards


@jit(py=True)
def visible_score(row, rules):
    """Score of a layout as seen (int8[9], HIDDEN for face-down) under the rules array ``rules``:
    face-down cards count 0 and a line counts as matched only when its three cards are face up."""
    mulligans_per_line = rules[R_MULLIGANS_PER_LINE]
    matched = 0
    covered = 0
    for li in range(N_LINES):
        a = LINES[li, 0]
        b = LINES[li, 1]
        c = LINES[li, 2]
        if row[a] == HIDDEN or row[b] == HIDDEN or row[c] == HIDDEN:
            continue
        v = line_match_value(row[a], row[b], row[c], mulligans_per_line)
        if v >= 0:
            matched -= int(v)
            covered |= (1 << a) | (1 << b) | (1 << c)
    total = matched
    for pos in range(LAYOUT):
        c = int(row[pos])
        if c == HIDDEN or (covered >> pos) & 1:
            continue
        total += card_cost(c, rules[R_HAZARD_VALUE], rules[R_MULLIGAN_VALUE], rules[R_NEGATIVE_MULTIPLIER])
    return total
