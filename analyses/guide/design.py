"""The guide study's design: at each table size, one ``chart`` seat among experts and the same deals
with experts alone, every deal once per rotation (:func:`gnoming_sim.experiments.chart_check.versus_expert`)."""
from __future__ import annotations

from gnoming_sim.experiments.chart_check import CHECK_FIRST

from ..framework.study import Table

PLAYERS = (4, 6)
HEADLINE_PLAYERS = 4


def first_game(players: int) -> int:
    """The first game number of a table size: its own range (both arms share it: the same deals)."""
    return CHECK_FIRST + players * 2**36


def tables(deals: int) -> list[Table]:
    out = []
    for p in PLAYERS:
        for seats, arm in ((("chart",) + ("expert",) * (p - 1), "chart among experts"),
                           (("expert",) * p, "experts alone")):
            out.append(Table(p, seats, deals * p, first_game=first_game(p), label=f"{p} players, {arm}"))
    return out
