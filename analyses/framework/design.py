"""Experiment designs shared by studies: which strategies sit at which tables."""
from __future__ import annotations

from itertools import combinations

from gnoming_sim.kernel.policy.registry import PRESETS

PRESET_NAMES = tuple(s.name for s in PRESETS)
HEURISTIC_NAMES = tuple(n for n in PRESET_NAMES if n != "random")


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
