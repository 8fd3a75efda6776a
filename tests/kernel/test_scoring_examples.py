"""Hand-computed scoring examples for ``score_layout`` (RULES.md §5).

Every expected value below was worked out by hand from the rules text, not by running
the engine.  Layouts are written ``r0 / r1 / r2``; positions are row-major::

    0 1 2
    3 4 5
    6 7 8

Lines are the three rows (r0, r1, r2) and three columns (c0 = 0,3,6; c1 = 1,4,7;
c2 = 2,5,8).  Diagonals are not lines.  ``k`` is ``mulligans_per_line`` (``None`` means
``rules=None``, i.e. the default 1).
"""
from __future__ import annotations

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import gnoming_sim
from gnoming_sim.kernel.engine import score_layout, score_layout_parts
from gnoming_sim.game.errors import GnomingError
from gnoming_sim.game.rules import RuleConfig

from _examples import examples

PART_KEYS = ("matched", "unmatched", "negatives", "hazards", "total")


def L(text: str) -> list:
    """``"6 6 6 / 3 4 5 / -1 H M"`` -> ``[6, 6, 6, 3, 4, 5, -1, "H", "M"]``."""
    out = []
    for tok in text.replace("/", " ").split():
        out.append(tok if tok in ("H", "M") else int(tok))
    assert len(out) == 9, text
    return out


def rules_for(k):
    return None if k is None else RuleConfig(mulligans_per_line=k)


# --------------------------------------------------------------------------------------
# The four worked examples of RULES.md §5, each its own test.


def test_worked_example_1_row_of_sixes_hazard_mulligan():
    # r0 6 6 6 matched -6; c2 (6,5,M) not matched (6 != 5); 3+4+5 = 12; -1; H +10; M 0
    # -6 + 12 - 1 + 10 = 15
    assert score_layout(L("6 6 6 / 3 4 5 / -1 H M")) == 15


def test_worked_example_2_mulligan_completes_row_and_column():
    # r0 (5,5,M) -5; c2 (M,5,5) -5; unmatched 7+8+3+4 = 22 -> 22 - 10 = 12
    assert score_layout(L("5 5 M / 7 8 5 / 3 4 5")) == 12


def test_worked_example_3_mulligan_stands_for_two_values():
    # r0 (M,4,4) -4; c0 (M,6,6) -6; r2 has -2 -> unmatched; 3+7+8 = 18; -2
    # -10 + 18 - 2 = 6
    assert score_layout(L("M 4 4 / 6 3 7 / 6 8 -2")) == 6


def test_worked_example_4_all_sevens():
    # six matched lines: 6 * -7 = -42; no positive scores itself
    assert score_layout(L("7 7 7 / 7 7 7 / 7 7 7")) == -42


# --------------------------------------------------------------------------------------
# Hand-built layouts: (layout, k, expected)

CASES = [
    # --- a mulligan completing a crossing row and column with different values
    pytest.param(
        "3 5 4 / 6 M 6 / 8 5 7", None, 11,
        # r1 (6,M,6) -6; c1 (5,M,5) -5; unmatched pos 0,2,6,8: 3+4+8+7 = 22; 22 - 11 = 11
        id="M-center-row6-col5",
    ),
    pytest.param(
        "3 4 5 / 6 7 5 / 8 8 M", None, 7,
        # r2 (8,8,M) -8; c2 (5,5,M) -5; unmatched pos 0,1,3,4: 3+4+6+7 = 20; 20 - 13 = 7
        id="M-corner-row8-col5",
    ),
    # --- a mulligan at the crossing of a matched row and matched column (same value)
    pytest.param(
        "7 M 7 / 3 7 4 / 5 7 6", None, 4,
        # r0 (7,M,7) -7; c1 (M,7,7) -7; unmatched pos 3,5,6,8: 3+4+5+6 = 18; 18 - 14 = 4
        id="M-crossing-same-value-top",
    ),
    pytest.param(
        "3 5 4 / 5 M 5 / 6 5 8", None, 11,
        # r1 (5,M,5) -5; c1 (5,M,5) -5; unmatched pos 0,2,6,8: 3+4+6+8 = 21; 21 - 10 = 11
        id="M-crossing-same-value-center",
    ),
    # --- two mulligans revealed in one line
    pytest.param(
        "M M 6 / 3 4 5 / 7 8 3", None, 36,
        # k=1: r0 has 2 M -> not matched; c0 (M,3,7), c1 (M,4,8) differ; no line matched
        # 6+3+4+5+7+8+3 = 36
        id="two-M-in-row-default",
    ),
    pytest.param(
        "M M 6 / 3 4 5 / 7 8 3", 2, 24,
        # k=2: r0 (M,M,6) -6; others unmatched: 3+4+5+7+8+3 = 30; 30 - 6 = 24
        id="two-M-in-row-k2",
    ),
    pytest.param(
        "M M 6 / 4 5 5 / 4 5 8", 1, 10,
        # k=1: r0 not matched (2 M); c0 (M,4,4) -4; c1 (M,5,5) -5; c2 (6,5,8) no
        # unmatched pos 2,5,8: 6+5+8 = 19; 19 - 9 = 10
        id="two-M-row-plus-columns-k1",
    ),
    pytest.param(
        "M M 6 / 4 5 5 / 4 5 8", 2, -2,
        # k=2: also r0 (M,M,6) -6; unmatched pos 5,8: 5+8 = 13; 13 - 15 = -2
        id="two-M-row-plus-columns-k2",
    ),
    # --- three mulligans in one line
    pytest.param(
        "M M M / 3 4 5 / 6 7 8", 3, 33,
        # k=3: r0 matched at value 0 (scores 0); columns (M,3,6) (M,4,7) (M,5,8) differ
        # unmatched 3+4+5+6+7+8 = 33
        id="three-M-row-k3",
    ),
    pytest.param(
        "M M M / 3 4 5 / 6 7 8", None, 33,
        # k=1: r0 not matched; nothing else matched; 33
        id="three-M-row-default",
    ),
    pytest.param(
        "M M M / 3 4 5 / 3 4 5", 3, -12,
        # k=3: r0 value 0; c0 (M,3,3) -3; c1 (M,4,4) -4; c2 (M,5,5) -5; all positives covered
        # 0 - 12 = -12
        id="three-M-row-columns-k3",
    ),
    pytest.param(
        "M M M / 3 4 5 / 3 4 5", None, -12,
        # k=1: r0 not matched; columns each 1 M -> -3 -4 -5 = -12; all positives covered
        id="three-M-row-columns-default",
    ),
    pytest.param(
        "M M M / 3 4 5 / 3 4 5", 0, 24,
        # k=0: no line with a mulligan matches; rows 3 4 5 differ; 3+4+5+3+4+5 = 24
        id="three-M-row-columns-k0",
    ),
    pytest.param(
        "M M 7 / M 3 4 / 5 6 8", 3, 9,
        # k=3: r0 (M,M,7) -7; c0 (M,M,5) -5; r1 (M,3,4), c1 (M,3,6) differ
        # unmatched pos 4,5,7,8: 3+4+6+8 = 21; 21 - 12 = 9
        id="two-M-row-and-column-k3",
    ),
    pytest.param(
        "M M 7 / M 3 4 / 5 6 8", 2, 9,
        # k=2: same as k=3 (each matched line holds exactly 2 M): 9
        id="two-M-row-and-column-k2",
    ),
    pytest.param(
        "M M 7 / M 3 4 / 5 6 8", 1, 33,
        # k=1: r0 and c0 hold 2 M -> not matched; 7+3+4+5+6+8 = 33
        id="two-M-row-and-column-k1",
    ),
    # --- hazards
    pytest.param(
        "6 6 H / 3 4 5 / 7 8 3", None, 52,
        # r0 broken by H; no line matched; 6+6+3+4+5+7+8+3 = 42; +10 = 52
        id="hazard-breaks-row",
    ),
    pytest.param(
        "H H H / 3 4 5 / 6 7 8", None, 63,
        # no line matched; 3+4+5+6+7+8 = 33; 3 hazards +30 = 63
        id="three-hazards",
    ),
    pytest.param(
        "5 5 5 / 5 H 3 / 5 4 8", None, 15,
        # r0 -5; c0 (5,5,5) -5; c1 (5,H,4) no; unmatched pos 5,7,8: 3+4+8 = 15; H +10
        # -10 + 15 + 10 = 15
        id="hazard-beside-crossing-lines",
    ),
    pytest.param(
        "7 7 7 / 7 H 7 / 7 7 7", None, -18,
        # r0, r2, c0, c2 matched: -28; r1, c1 broken by H; every 7 is in a matched line
        # -28 + 10 = -18
        id="sevens-with-central-hazard",
    ),
    pytest.param(
        "M H 4 / 4 3 5 / 4 6 8", None, 32,
        # c0 (M,4,4) -4; r0 (M,H,4) broken; unmatched pos 2,4,5,7,8: 4+3+5+6+8 = 26
        # -4 + 26 + 10 = 32
        id="hazard-and-mulligan-same-row",
    ),
    pytest.param(
        "H H H / H H H / H H H", None, 90,
        # 9 hazards * 10 = 90
        id="all-hazards",
    ),
    pytest.param(
        "7 7 7 / 7 7 H / 7 H 7", None, 20,
        # r0 -7; c0 (7,7,7) -7; r1, r2, c1, c2 broken; pos 4 and 8 (7 each) unmatched = 14
        # -14 + 14 + 20 = 20
        id="sevens-with-two-hazards",
    ),
    # --- negatives
    pytest.param(
        "-1 -2 -3 / -4 -1 -2 / -3 -4 -1", None, -21,
        # all negatives: -6 -7 -8 = -21
        id="all-negatives-mixed",
    ),
    pytest.param(
        "-2 -2 -2 / -2 -2 -2 / -2 -2 -2", None, -18,
        # negatives never form a matched line; 9 * -2 = -18
        id="all-negatives-twos",
    ),
    pytest.param(
        "-4 -4 -4 / -4 -4 -4 / -4 -4 -4", None, -36,
        # 9 * -4 = -36
        id="all-negatives-fours",
    ),
    pytest.param(
        "6 6 -1 / 3 4 5 / 7 8 3", None, 41,
        # r0 holds a negative -> not matched; no line matched; 42 positives - 1 = 41
        id="negative-breaks-row",
    ),
    pytest.param(
        "4 4 4 / 3 -2 5 / 6 7 8", None, 23,
        # r0 -4; nothing else; unmatched 3+5+6+7+8 = 29; -2 -> -4 + 29 - 2 = 23
        id="matched-row-negative-elsewhere",
    ),
    pytest.param(
        "5 5 5 / -3 4 6 / 5 3 8", None, 18,
        # r0 -5; c0 (5,-3,5) broken by the negative; unmatched pos 4,5,6,7,8: 4+6+5+3+8 = 26
        # -5 + 26 - 3 = 18
        id="negative-breaks-column-of-matched-row",
    ),
    pytest.param(
        "M -1 6 / 3 4 5 / 7 8 3", None, 35,
        # r0 (M,-1,6) broken; nothing matched; 6+3+4+5+7+8+3 = 36; -1 -> 35
        id="negative-with-mulligan-in-row",
    ),
    pytest.param(
        "M 3 4 / -2 5 6 / -2 7 8", None, 29,
        # c0 (M,-2,-2) not matched (negatives); nothing matched; 3+4+5+6+7+8 = 33; -4 -> 29
        id="mulligan-with-negatives-column",
    ),
    # --- crossing matched lines: the crossing card scores nothing, counted once
    pytest.param(
        "3 6 4 / 6 6 6 / 8 6 7", None, 10,
        # r1 -6; c1 (6,6,6) -6; unmatched corners 3+4+8+7 = 22; 22 - 12 = 10
        id="cross-of-sixes",
    ),
    pytest.param(
        "3 7 4 / 7 7 7 / 5 7 6", None, 4,
        # r1 -7; c1 -7; unmatched corners 3+4+5+6 = 18; 18 - 14 = 4
        id="cross-of-sevens",
    ),
    pytest.param(
        "5 5 5 / 5 3 4 / 5 6 8", None, 11,
        # r0 -5; c0 -5 (share pos 0); unmatched pos 4,5,7,8: 3+4+6+8 = 21; 21 - 10 = 11
        id="corner-crossing",
    ),
    pytest.param(
        "4 4 4 / 4 3 5 / 4 4 4", None, -4,
        # r0 -4; r2 -4; c0 -4; c1 (4,3,4), c2 (4,5,4), r1 no; unmatched 3+5 = 8; 8 - 12 = -4
        id="C-shape-of-fours",
    ),
    # --- diagonals are not lines
    pytest.param(
        "5 3 4 / 6 5 7 / 8 4 5", None, 47,
        # main diagonal 5,5,5 is not a line; nothing matched; 12 + 18 + 17 = 47
        id="main-diagonal-not-a-line",
    ),
    pytest.param(
        "3 4 6 / 5 6 7 / 6 8 3", None, 48,
        # anti-diagonal 6,6,6 is not a line; nothing matched; 13 + 18 + 17 = 48
        id="anti-diagonal-not-a-line",
    ),
    pytest.param(
        "M 3 4 / 5 6 7 / 8 4 6", None, 43,
        # diagonal M,6,6 is not a line; nothing matched; 3+4+5+6+7+8+4+6 = 43
        id="diagonal-with-mulligan-not-a-line",
    ),
    # --- all mulligans
    pytest.param("M M M / M M M / M M M", None, 0, id="all-mulligans-default"),  # every M scores 0
    pytest.param("M M M / M M M / M M M", 3, 0, id="all-mulligans-k3"),  # six lines at value 0
    pytest.param("M M M / M M M / M M M", 0, 0, id="all-mulligans-k0"),  # nothing matched, 0
    pytest.param(
        "M M M / M 5 M / M M M", None, 5,
        # k=1: every line has >= 2 M -> nothing matched; the 5 scores 5
        id="mulligans-around-a-five-default",
    ),
    pytest.param(
        "M M M / M 5 M / M M M", 2, -10,
        # k=2: r1 (M,5,M) -5; c1 (M,5,M) -5; r0, r2, c0, c2 have 3 M; 5 covered -> -10
        id="mulligans-around-a-five-k2",
    ),
    pytest.param(
        "M M M / M 5 M / M M M", 3, -10,
        # k=3: also r0, r2, c0, c2 at value 0; -5 -5 = -10
        id="mulligans-around-a-five-k3",
    ),
    pytest.param(
        "M M M / M 5 M / M M M", 0, 5,
        # k=0: nothing matched; 5
        id="mulligans-around-a-five-k0",
    ),
    # --- a full grid of identical values (six lines)
    pytest.param("3 3 3 / 3 3 3 / 3 3 3", None, -18, id="all-threes"),  # 6 * -3
    pytest.param("8 8 8 / 8 8 8 / 8 8 8", None, -48, id="all-eights"),  # 6 * -8
    pytest.param("7 7 7 / 7 7 7 / 7 7 7", 0, -42, id="all-sevens-k0"),  # no M: still -42
    # --- two distinct values
    pytest.param(
        "3 3 3 / 5 5 5 / 8 8 8", None, -16,
        # rows -3 -5 -8; columns (3,5,8) no -> -16
        id="three-matched-rows",
    ),
    pytest.param(
        "3 3 3 / 3 3 3 / 4 4 4", None, -10,
        # rows -3 -3 -4; columns (3,3,4) no -> -10
        id="two-values-rows",
    ),
    pytest.param(
        "6 6 7 / 6 6 7 / 6 6 7", None, -19,
        # columns -6 -6 -7; rows (6,6,7) no -> -19
        id="two-values-columns",
    ),
    pytest.param(
        "3 4 3 / 4 3 4 / 3 4 3", None, 31,
        # checkerboard: no line matched; five 3s = 15, four 4s = 16 -> 31
        id="checkerboard",
    ),
    pytest.param(
        "5 5 5 / 5 8 5 / 5 5 5", None, -12,
        # r0, r2, c0, c2 matched: -20; r1, c1 (5,8,5) no; the 8 unmatched +8 -> -12
        id="fives-ring-around-eight",
    ),
    # --- a mulligan plus two different values: not matched
    pytest.param(
        "M 3 4 / 5 6 7 / 8 3 5", None, 41,
        # r0 (M,3,4), c0 (M,5,8) not matched; nothing matched; 3+4+5+6+7+8+3+5 = 41
        id="mulligan-with-two-different-values",
    ),
    pytest.param(
        "M 3 4 / 5 6 7 / 8 3 5", 3, 41,
        # more mulligans allowed changes nothing: values still differ -> 41
        id="mulligan-with-two-different-values-k3",
    ),
    # --- mixed
    pytest.param(
        "4 M 4 / -2 4 6 / H 4 3", None, 9,
        # r0 (4,M,4) -4; c1 (M,4,4) -4; c0 has -2 and H; unmatched pos 5,8: 6+3 = 9
        # -8 + 9 - 2 + 10 = 9
        id="mixed-M-neg-hazard",
    ),
    pytest.param(
        "8 8 8 / M -4 H / 8 3 3", None, -4,
        # r0 -8; c0 (8,M,8) -8; unmatched pos 7,8: 3+3 = 6; -4; H +10
        # -16 + 6 - 4 + 10 = -4
        id="mixed-eights",
    ),
    pytest.param(
        "6 6 M / 6 M 6 / M 6 6", None, -36,
        # every row and column holds exactly one M and two 6s: 6 * -6 = -36
        id="sixes-with-antidiagonal-mulligans",
    ),
    pytest.param(
        "6 6 M / 6 M 6 / M 6 6", 0, 36,
        # k=0: nothing matched; six 6s = 36
        id="sixes-with-antidiagonal-mulligans-k0",
    ),
    pytest.param(
        "3 M 5 / 3 M 5 / 3 M 5", None, -8,
        # c0 -3; c2 -5; c1 (M,M,M) not matched (3 M); rows (3,M,5) no -> -8
        id="column-of-mulligans-default",
    ),
    pytest.param(
        "3 M 5 / 3 M 5 / 3 M 5", 3, -8,
        # k=3: c1 matched at value 0 -> still -8
        id="column-of-mulligans-k3",
    ),
    pytest.param(
        "3 M 5 / 3 M 5 / 3 M 5", 0, -8,
        # k=0: c0, c2 hold no M -> still -3 -5 = -8
        id="column-of-mulligans-k0",
    ),
    pytest.param(
        "5 M 5 / M 5 M / 5 M 5", None, -15,
        # k=1: r0, r2, c0, c2 (one M each) -20; r1, c1 (M,5,M) 2 M no; centre 5 unmatched
        # -20 + 5 = -15
        id="fives-and-mulligans-default",
    ),
    pytest.param(
        "5 M 5 / M 5 M / 5 M 5", 2, -30,
        # k=2: all six lines matched at 5: -30; every 5 covered
        id="fives-and-mulligans-k2",
    ),
    pytest.param(
        "3 -1 8 / 3 7 8 / 3 H 8", None, 5,
        # c0 -3; c2 -8; c1 (-1,7,H) no; rows mixed; unmatched 7; -1; H +10
        # -11 + 7 - 1 + 10 = 5
        id="two-columns-neg-hazard",
    ),
    pytest.param(
        "M 5 5 / 3 4 6 / 7 8 3", None, 26,
        # r0 (M,5,5) -5; c0 (M,3,7) no; unmatched 3+4+6+7+8+3 = 31; 31 - 5 = 26
        id="mulligan-row-only",
    ),
    # --- worked examples under other mulligans_per_line values
    pytest.param(
        "5 5 M / 7 8 5 / 3 4 5", 0, 42,
        # k=0: r0, c2 hold a M -> not matched; all positives: 5+5+7+8+5+3+4+5 = 42
        id="worked-2-k0",
    ),
    pytest.param(
        "M 4 4 / 6 3 7 / 6 8 -2", 0, 36,
        # k=0: nothing matched; 4+4+6+3+7+6+8 = 38; -2 -> 36
        id="worked-3-k0",
    ),
    pytest.param(
        "6 6 6 / 3 4 5 / -1 H M", 0, 15,
        # k=0: r0 has no M, still -6 -> 15
        id="worked-1-k0",
    ),
]


@pytest.mark.parametrize("layout, k, expected", CASES)
def test_hand_built_layouts(layout, k, expected):
    assert score_layout(L(layout), rules_for(k)) == expected


def test_enough_hand_built_cases():
    assert len(CASES) >= 40


def test_default_rules_equal_explicit_default_config():
    for param in CASES:
        layout, k, expected = param.values
        if k is None:
            assert score_layout(L(layout), RuleConfig()) == expected
            assert score_layout(L(layout), RuleConfig(mulligans_per_line=1)) == expected


def test_package_reexport():
    assert gnoming_sim.score_layout(L("7 7 7 / 7 7 7 / 7 7 7")) == -42


def test_accepts_tuple_layout():
    assert score_layout(tuple(L("5 5 M / 7 8 5 / 3 4 5"))) == 12


# --------------------------------------------------------------------------------------
# score_layout_parts


PARTS_CASES = [
    # layout, k, (matched, unmatched, negatives, hazards, total)
    pytest.param("6 6 6 / 3 4 5 / -1 H M", None, (-6, 12, -1, 10, 15), id="worked-1"),
    pytest.param("5 5 M / 7 8 5 / 3 4 5", None, (-10, 22, 0, 0, 12), id="worked-2"),
    pytest.param("M 4 4 / 6 3 7 / 6 8 -2", None, (-10, 18, -2, 0, 6), id="worked-3"),
    pytest.param("7 7 7 / 7 7 7 / 7 7 7", None, (-42, 0, 0, 0, -42), id="worked-4"),
    pytest.param("4 M 4 / -2 4 6 / H 4 3", None, (-8, 9, -2, 10, 9), id="mixed-M-neg-hazard"),
    pytest.param("8 8 8 / M -4 H / 8 3 3", None, (-16, 6, -4, 10, -4), id="mixed-eights"),
    pytest.param("5 5 5 / 5 H 3 / 5 4 8", None, (-10, 15, 0, 10, 15), id="hazard-crossing"),
    pytest.param("7 7 7 / 7 H 7 / 7 7 7", None, (-28, 0, 0, 10, -18), id="sevens-hazard"),
    pytest.param("M M 6 / 4 5 5 / 4 5 8", 1, (-9, 19, 0, 0, 10), id="two-M-k1"),
    pytest.param("M M 6 / 4 5 5 / 4 5 8", 2, (-15, 13, 0, 0, -2), id="two-M-k2"),
    pytest.param("M M M / 3 4 5 / 3 4 5", 3, (-12, 0, 0, 0, -12), id="three-M-k3"),
    pytest.param("4 4 4 / 3 -2 5 / 6 7 8", None, (-4, 29, -2, 0, 23), id="row-neg-elsewhere"),
    pytest.param("-1 -2 -3 / -4 -1 -2 / -3 -4 -1", None, (0, 0, -21, 0, -21), id="negatives"),
    pytest.param("H H H / H H H / H H H", None, (0, 0, 0, 90, 90), id="hazards"),
]


@pytest.mark.parametrize("layout, k, expected", PARTS_CASES)
def test_score_layout_parts(layout, k, expected):
    parts = score_layout_parts(L(layout), rules_for(k))
    for key in PART_KEYS:
        assert key in parts, key
    assert tuple(parts[key] for key in PART_KEYS) == expected
    assert parts["matched"] + parts["unmatched"] + parts["negatives"] + parts["hazards"] == parts["total"]
    assert parts["total"] == score_layout(L(layout), rules_for(k))


# --------------------------------------------------------------------------------------
# input validation


@pytest.mark.parametrize(
    "layout",
    [
        pytest.param([], id="empty"),
        pytest.param([5] * 8, id="eight"),
        pytest.param([5] * 10, id="ten"),
        pytest.param([5, 5, 5, 5, 5, 5, 5, 5, "X"], id="unknown-X"),
        pytest.param([5, 5, 5, 5, 99, 5, 5, 5, 5], id="value-99"),
        pytest.param([5, 5, 5, 5, -99, 5, 5, 5, 5], id="value-minus-99"),
        pytest.param(["Q", 3, 4, 5, 6, 7, 8, "H", "M"], id="unknown-Q"),
    ],
)
def test_bad_layout_raises(layout):
    with pytest.raises(GnomingError):
        score_layout(layout)
    with pytest.raises(GnomingError):
        score_layout_parts(layout)


def test_gnoming_error_is_value_error():
    with pytest.raises(ValueError):
        score_layout([5, 5, 5, 5, 5, 5, 5, 5, "X"])


# --------------------------------------------------------------------------------------
# properties

# a small pool so that matched lines are common; duplicates weight the draw
ITEM = st.sampled_from([3, 3, 3, 4, 4, 5, 8, -1, -3, "H", "M", "M"])
LAYOUT = st.lists(ITEM, min_size=9, max_size=9)
K = st.integers(min_value=0, max_value=3)


def _permute(layout, rows, cols):
    return [layout[3 * rows[r] + cols[c]] for r in range(3) for c in range(3)]


def _transpose(layout):
    return [layout[3 * c + r] for r in range(3) for c in range(3)]


@settings(max_examples=examples(300), deadline=None)
@given(LAYOUT, st.permutations(range(3)), st.permutations(range(3)), K)
def test_row_and_column_permutations_keep_score(layout, rows, cols, k):
    rules = RuleConfig(mulligans_per_line=k)
    assert score_layout(_permute(layout, rows, cols), rules) == score_layout(layout, rules)


@settings(max_examples=examples(300), deadline=None)
@given(LAYOUT, K)
def test_transpose_keeps_score(layout, k):
    rules = RuleConfig(mulligans_per_line=k)
    assert score_layout(_transpose(layout), rules) == score_layout(layout, rules)


@settings(max_examples=examples(200), deadline=None)
@given(st.lists(st.integers(min_value=-20, max_value=-1), min_size=9, max_size=9), K)
def test_only_negatives_score_their_sum(layout, k):
    assert score_layout(layout, RuleConfig(mulligans_per_line=k)) == sum(layout)


@settings(max_examples=examples(200), deadline=None)
@given(LAYOUT, K)
def test_parts_sum_to_total(layout, k):
    rules = RuleConfig(mulligans_per_line=k)
    parts = score_layout_parts(layout, rules)
    assert parts["matched"] <= 0
    assert parts["unmatched"] >= 0
    assert parts["negatives"] <= 0
    assert parts["hazards"] == 10 * layout.count("H")
    assert parts["negatives"] == sum(x for x in layout if isinstance(x, int) and x < 0)
    assert parts["matched"] + parts["unmatched"] + parts["negatives"] + parts["hazards"] == parts["total"]
    assert parts["total"] == score_layout(layout, rules)


@settings(max_examples=examples(200), deadline=None)
@given(LAYOUT)
def test_allowing_more_mulligans_never_raises_score(layout):
    # a newly matched line adds -value <= 0 and can only take positives out of "unmatched"
    scores = [score_layout(layout, RuleConfig(mulligans_per_line=k)) for k in range(4)]
    assert scores == sorted(scores, reverse=True)
