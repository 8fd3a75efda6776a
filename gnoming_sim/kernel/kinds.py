"""The strategy families (``KIND_*``) and, per family that decides above the kernel stage, the
batch kernel that plays its games (pure Python: importing it compiles and loads nothing).

The base game loop (:func:`gnoming_sim.kernel.game_loop.play_batch`) asks the policies'
decision function; a family whose decisions live in a later stage — the Monte Carlo bot and the value
player of :mod:`gnoming_sim.search` — registers a *loader* of its own batch kernel here when its package
is imported (the package facade, ``gnoming_sim/__init__.py``, imports it), so the engine is
given the kernel and never imports upward.
"""
from __future__ import annotations

from typing import Callable

KIND_RANDOM = 0
KIND_HEURISTIC = 1
KIND_MC = 2       # Monte Carlo: rollouts for its important decisions, the heuristic for the rest
KIND_LEARNED = 3  # a fitted linear evaluator of every option (kernel.policy.learned), one ply
KIND_CARD_STARRED = 4   # the card's starred cells, expert's rules elsewhere (kernel.policy.card)
KIND_CARD = 5     # the printed card in every cell, its stated defaults where it shows '?' (kernel.policy.card)
KIND_NET = 6      # a small neural evaluator of every placement and bounce option, one ply (kernel.policy.net)
KIND_NET_CELLS = 7   # net, except where given card cells are set (kernel.policy.card.cells_source/cells_placement)
KIND_VALUE = 8   # the value network's best option at 0-ply (search.value_player), net for the rest
KIND_RULES = 9   # the pocket rules: every decision by a few printed sentences (kernel.policy.rules)

_LOADERS: dict[int, Callable[[], Callable]] = {}


def register_batch_kernel(kind: int, loader: Callable[[], Callable]) -> None:
    """Play batches with a seat of family ``kind`` in the kernel ``loader()`` returns (a jitted
    ``play_range(Games, Results, lo, hi)``, run in blocks by ``game_loop.play_blocks``; loaded on first
    use, so registering is free)."""
    _LOADERS[int(kind)] = loader


def batch_kernel_loader(kind: int) -> Callable[[], Callable] | None:
    """The registered loader for family ``kind``, or None (the base kernel plays it)."""
    return _LOADERS.get(int(kind))
