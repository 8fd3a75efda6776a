"""Experiment designs shared by studies: which strategies sit at which tables."""
from __future__ import annotations

import zlib
from itertools import combinations

from gnoming_sim.kernel.policy.registry import LEARNED, PRESETS, TUNED

PRESET_NAMES = tuple(s.name for s in PRESETS)
HEURISTIC_NAMES = tuple(n for n in PRESET_NAMES if n != "random")
# the strongest heuristic (found by `gnoming-sim tune`): the tournament's full design seats it beside
# the presets, and it is the rung between the preset mix and the strong player
EXPERT = TUNED[0].name
# the strong player: the learned one-ply evaluator (`gnoming-sim train`; it beats expert on held-out
# deals).  Studies that report "under strong play" seat it at every seat of a table, beside the preset mix
STRONG = LEARNED[0].name
STRONG_TEXT = f"{STRONG}, the learned one-ply evaluator"
# the strong-play arms, weakest first: a study's answer reads along preset mix -> expert -> strong player
STRONG_LADDER = (EXPERT, STRONG)
TABLE_NAMES = PRESET_NAMES + (EXPERT,)            # the tournament's full-design (heuristic) entrants
PLAYER_NAMES = PRESET_NAMES + STRONG_LADDER       # every player a study seats by name


def strong_arm(arm: str, player: str = STRONG) -> str:
    """The name of ``arm`` played with ``player`` (a rung of :data:`STRONG_LADDER`) at every seat: same
    cell, same deals, same edits."""
    return f"{arm}@{player}"


def strong_seats(players: int, player: str = STRONG) -> tuple[str, ...]:
    return tuple(player for _ in range(players))


def cyclic_lineups(names, players: int) -> list[tuple[str, ...]]:
    """``len(names)`` lineups: lineup ``k`` seats ``names[(k + s) % len(names)]`` at seat ``s``.

    Every name fills exactly ``players`` of the seats over all the lineups, also when
    ``players`` exceeds the number of names (then some sit twice at one table).
    """
    m = len(names)
    return [tuple(names[(k + s) % m] for s in range(players)) for k in range(m)]


def balanced_lineups(names, players: int) -> list[tuple[str, ...]]:
    """Lineups where every name sits equally often and every pair meets equally often.

    Up to ``len(names)`` players: every subset of that size (in ``names`` order).
    Beyond it: the cyclic lineups (each holds every name, plus ``players - len(names)``
    repeated in turn).
    """
    if players <= len(names):
        return [tuple(c) for c in combinations(names, players)]
    return cyclic_lineups(names, players)


def cell_first_game(*cell) -> int:
    """The first game number of a design cell: every cell plays its own range of game numbers.

    ``cell`` is the cell's key (e.g. ``("drawn", 4)``); the range starts at a multiple of
    2**30 picked by a CRC of the key, so two cells of a study never share a deal (with the
    study seed, game numbers fix the deals) and a cell keeps its deals when others are
    added.  Room for 2**30 games per cell.
    """
    return zlib.crc32(repr(cell).encode()) << 30
