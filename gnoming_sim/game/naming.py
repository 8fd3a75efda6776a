"""How a reader is told where a card lies and which turn it is: one wording for ``play``'s story,
``analyse``'s options and the position files (RULES.md §2: positions 0..8, row-major).

Turns have two counts.  The *game turn* counts every turn of the game from 0, over all rounds:
``play`` prints it and ``analyse --game G --turn T`` takes it.  The *turn of the round* counts
the turns already played in the round (all seats), from 0: the ``turn`` key of a position file.
"""
from __future__ import annotations

from gnoming_sim.game.rules import ROUNDS


def position_name(q: int) -> str:
    """A layout position 0..8: ``"5 (row 2 col 3)"`` (the number is what option keys use: ``pos5``)."""
    return f"{q} (row {q // 3 + 1} col {q % 3 + 1})"


def pile_name(k: int) -> str:
    """Discard pile 0 or 1: ``"pile 0"`` (option key and position-file source ``pile0``)."""
    return f"pile {k}"


def round_turn_name(round_index: int, round_turn: int) -> str:
    """``"round 2, turn 5 of the round"``: ``round_index`` 0..2, ``round_turn`` from 0."""
    return f"round {round_index + 1} of {ROUNDS}, turn {round_turn} of the round"


def turn_name(game_turn: int, round_index: int, round_turn: int) -> str:
    """``"turn 37 (round 2 of 3, turn 5 of the round)"``: the game turn first (what ``--turn`` takes)."""
    return f"turn {game_turn} ({round_turn_name(round_index, round_turn)})"
