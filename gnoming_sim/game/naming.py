"""How a reader is told where a card lies and which turn it is: one wording for ``play``'s story,
``analyse``'s options and the position files (the rules, gnoming_sim/game/rules.md: positions 0..8,
row-major).

Everything on the table counts from 0, as the position files and option keys do: positions 0..8
(``pos5``), rows and columns 0..2, seats and discard piles.  Position 5 is ``"5 (row 1 col 2)"``:
never a row or column counted from 1 beside a position counted from 0.  Rounds are the one count
from 1 ("round 2 of 3").

Turns have two counts.  The *game turn* counts every turn of the game from 0, over all rounds:
``play`` prints it and ``analyse --game G --turn T`` takes it.  The *turn of the round* counts
the turns already played in the round (all seats), from 0: the ``turn`` key of a position file.
"""
from __future__ import annotations

from gnoming_sim.game.rules import ROUNDS


# the lines of a layout in the order of kernel.scoring.LINES: rows 0..2, then columns 0..2
LINE_NAMES = ("row 0", "row 1", "row 2", "col 0", "col 1", "col 2")


def position_name(q: int) -> str:
    """A layout position 0..8: ``"5 (row 1 col 2)"``, all counted from 0 (the number is what option
    keys use: ``pos5``)."""
    return f"{q} (row {q // 3} col {q % 3})"


def times(n: int) -> str:
    """``"once"``, ``"twice"``, ``"3 times"``."""
    return {1: "once", 2: "twice"}.get(n, f"{n} times")


def pile_name(k: int) -> str:
    """Discard pile 0 or 1: ``"pile 0"`` (option key and position-file source ``pile0``)."""
    return f"pile {k}"


def round_turn_name(round_index: int, round_turn: int) -> str:
    """``"round 2, turn 5 of the round"``: ``round_index`` 0..2, ``round_turn`` from 0."""
    return f"round {round_index + 1} of {ROUNDS}, turn {round_turn} of the round"


def turn_name(game_turn: int, round_index: int, round_turn: int) -> str:
    """``"turn 37 (round 2 of 3, turn 5 of the round)"``: the game turn first (what ``--turn`` takes)."""
    return f"turn {game_turn} ({round_turn_name(round_index, round_turn)})"
