"""The referee's own scoring (RULES.md §5 and §6), written from the spec alone.

Plain Python on plain lists; the kernel's scoring is checked against this, never shared.
A layout is a list of 9 card codes, row-major, every card revealed.
"""
from __future__ import annotations

from gnoming_sim.game.cards import HAZARD, MAX_VALUE, MIN_VALUE, MULLIGAN
from gnoming_sim.game.fields import (F_BONUS, F_FACEDOWN_AT_FINISH, F_FINISH_TURN, F_FINISHER, F_HAZARDS, F_LINES,
                     F_MATCHED, F_NEGATIVES, F_SCORE, F_STALLED, F_START_SEAT, F_TURNS,
                     F_UNMATCHED, F_VISIBLE_AT_FINISH, N_FIELDS)
from gnoming_sim.game.rules import RuleConfig

# the 3 rows, then the 3 columns
LINES = ((0, 1, 2), (3, 4, 5), (6, 7, 8), (0, 3, 6), (1, 4, 7), (2, 5, 8))


def line_value(layout, line, mulligans_per_line: int):
    """The value a matched line stands for (0 for an all-mulligan line), or None if unmatched.

    Matched: no negative, no hazard, at most ``mulligans_per_line`` mulligans, and every
    positive card in the line has one value.
    """
    values = set()
    mulligans = 0
    for pos in line:
        card = layout[pos]
        if card == MULLIGAN:
            mulligans += 1
        elif 0 <= card <= MAX_VALUE:
            values.add(card)
        else:  # a negative card or a hazard
            return None
    if mulligans > mulligans_per_line or len(values) > 1:
        return None
    return values.pop() if values else 0


def unmatched_points(card, rules: RuleConfig) -> int:
    """What a revealed card scores when it lies in no matched line, under the rules' card values:
    a hazard ``hazard_value``, a mulligan ``mulligan_value``, a negative card its value times
    ``negative_multiplier``, a positive card its value."""
    if card == HAZARD:
        return rules.hazard_value
    if card == MULLIGAN:
        return rules.mulligan_value
    if card < 0:
        return card * rules.negative_multiplier
    return card


def _in_matched_lines(layout, up, mulligans_per_line: int) -> tuple[int, list[bool]]:
    """(sum of the matched lines' scores, which positions lie in one) over the lines whose cards are all up."""
    in_matched = [False] * 9
    matched = 0
    for line in LINES:
        if all(up[pos] for pos in line):
            value = line_value(layout, line, mulligans_per_line)
            if value is not None:
                matched -= value
                for pos in line:
                    in_matched[pos] = True
    return matched, in_matched


def score_parts(layout, rules: RuleConfig | None = None) -> tuple[int, int, int, int]:
    """(matched, unmatched, negatives, hazards) of a revealed layout under ``rules`` (default: the
    defaults); their sum is the score.  A mulligan in no matched line counts among the unmatched."""
    rules = rules or RuleConfig()
    matched, in_matched = _in_matched_lines(layout, [True] * 9, rules.mulligans_per_line)
    free = [c for pos, c in enumerate(layout) if not in_matched[pos]]
    unmatched = sum(unmatched_points(c, rules) for c in free if 0 <= c <= MAX_VALUE or c == MULLIGAN)
    negatives = sum(unmatched_points(c, rules) for c in free if MIN_VALUE <= c < 0)
    hazards = sum(unmatched_points(c, rules) for c in free if c == HAZARD)
    return matched, unmatched, negatives, hazards


def matched_lines(layout, mulligans_per_line: int = 1) -> int:
    """How many of the six lines of a revealed layout are matched."""
    return sum(1 for line in LINES if line_value(layout, line, mulligans_per_line) is not None)


def visible_score(layout, up, rules: RuleConfig | None = None) -> int:
    """Score counting face-up cards only under ``rules``: a face-down card counts 0 and breaks its lines."""
    rules = rules or RuleConfig()
    total, in_matched = _in_matched_lines(layout, up, rules.mulligans_per_line)
    return total + sum(unmatched_points(card, rules) for pos, card in enumerate(layout)
                       if up[pos] and not in_matched[pos])


def score_layout(layout, rules: RuleConfig | None = None) -> int:
    """Round score of one revealed layout under ``rules``, before any early-finish bonus."""
    return sum(score_parts(layout, rules))


def finisher_is_lowest(pre_scores, finisher: int, tie_is_lowest: bool) -> tuple[bool, bool]:
    """(lowest, tied): is the finisher's pre-bonus score the lowest, and is it tied with the best other."""
    mine = pre_scores[finisher]
    best_other = min(s for seat, s in enumerate(pre_scores) if seat != finisher)
    tied = mine == best_other
    return mine < best_other or (tied and tie_is_lowest), tied


def round_rows(layouts, finisher, stalled: bool, turns, starter: int, rules, at_finish=None):
    """The expected ``round_stats`` rows of one round: list (players) of lists (N_FIELDS).

    ``finisher`` is a seat or None; no bonus is paid in a stalled round, though the
    seat that finished (if any) is still marked as the finisher.  ``at_finish`` is
    (turn, visible scores, face-down counts) snapshot when the finisher finished, or None.
    """
    parts = [score_parts(layout, rules) for layout in layouts]
    pre = [sum(p) for p in parts]
    rows = []
    for seat, (matched, unmatched, negatives, hazards) in enumerate(parts):
        row = [0] * N_FIELDS
        row[F_MATCHED], row[F_UNMATCHED] = matched, unmatched
        row[F_NEGATIVES], row[F_HAZARDS] = negatives, hazards
        row[F_FINISHER] = int(seat == finisher)
        row[F_TURNS], row[F_STALLED], row[F_START_SEAT] = turns[seat], int(stalled), starter
        row[F_SCORE] = pre[seat]
        row[F_LINES] = matched_lines(layouts[seat], rules.mulligans_per_line)
        if at_finish is None:
            row[F_FINISH_TURN], row[F_VISIBLE_AT_FINISH], row[F_FACEDOWN_AT_FINISH] = -1, 0, -1
        else:
            turn, visible, facedown = at_finish
            row[F_FINISH_TURN], row[F_VISIBLE_AT_FINISH] = turn, visible[seat]
            row[F_FACEDOWN_AT_FINISH] = facedown[seat]
        rows.append(row)
    if finisher is not None and not stalled:
        lowest, _ = finisher_is_lowest(pre, finisher, rules.finisher_tie_is_lowest)
        bonus = -rules.early_finish_bonus if lowest else rules.early_finish_bonus
        rows[finisher][F_BONUS] = bonus
        rows[finisher][F_SCORE] += bonus
    return rows


def win_credit(totals, last_round) -> list[float]:
    """Win credit per seat (RULES.md §6): lowest total, then lowest last-round score, then shared."""
    best = min(totals)
    tied = [seat for seat, t in enumerate(totals) if t == best]
    best_last = min(last_round[seat] for seat in tied)
    winners = [seat for seat in tied if last_round[seat] == best_last]
    credit = [0.0] * len(totals)
    for seat in winners:
        credit[seat] = 1.0 / len(winners)
    return credit
