"""The guide study's design: at each table size, one ``card`` seat among experts (the printed card, the
headline), one ``chart`` seat among experts (its starred cells, expert elsewhere) and the same deals with
experts alone, every deal once per rotation (:func:`gnoming_sim.experiments.chart_check.versus_expert_each`)."""
from __future__ import annotations

from gnoming_sim.experiments.chart_check import CHECK_FIRST

from ..framework.study import Table

PLAYERS = (4, 6)
HEADLINE_PLAYERS = 4
CHECKED = ("card", "chart")     # each seated among experts; the card first: the headline


def first_game(players: int) -> int:
    """The first game number of a table size: its own range (both arms share it: the same deals)."""
    return CHECK_FIRST + players * 2**36


def tables(deals: int) -> list[Table]:
    out = []
    for p in PLAYERS:
        arms = [((x,) + ("expert",) * (p - 1), f"{x} among experts") for x in CHECKED]
        for seats, arm in arms + [(("expert",) * p, "experts alone")]:
            out.append(Table(p, seats, deals * p, first_game=first_game(p), label=f"{p} players, {arm}"))
    return out
