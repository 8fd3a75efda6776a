"""Experiment designs shared by studies: which strategies sit at which tables."""
from __future__ import annotations

import zlib
from itertools import combinations

from gnoming_sim.kernel.policy.registry import LEARNED, PRESETS, TUNED
from gnoming_sim.search import evaluator

PRESET_NAMES = tuple(s.name for s in PRESETS)
HEURISTIC_NAMES = tuple(n for n in PRESET_NAMES if n != "random")
# the strongest heuristic (found by `gnoming-sim tune`): the tournament's full design seats it beside
# the presets; the finishing study's positions come from its self-play and its selection batch plays it
EXPERT = TUNED[0].name
# the strong player: the oracle's base player (gnoming_sim.search.evaluator.BASE: the neural one-ply evaluator
# net, `make train-net`; it beats learned on held-out deals at 2, 4 and 6 players, tuning/net/README.md).
# Studies that report "under strong play" seat it at every seat of a table, beside the preset mix
STRONG = evaluator.BASE
STRONG_TEXT = f"{STRONG}, the neural one-ply evaluator"
# the rung below it: the learned linear one-ply evaluator (`gnoming-sim train`), the strongest fast player
# before it.  An answer "holds under" both only where their paired difference is within its target (TOST)
SECOND = LEARNED[0].name
# the strong-play arms, weakest first: a study's answer reads along preset mix -> SECOND -> STRONG.  The one
# place that says which players these are: every study, word and test follows these names
STRONG_LADDER = (SECOND, STRONG)
# the paired difference an answer's convergence is judged by (summary.json's "differences" key)
TOP_DIFFERENCE = f"{STRONG}-{SECOND}"
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
