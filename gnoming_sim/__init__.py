"""gnoming-sim: a Monte Carlo strategy-analysis toolkit for the card game Gnoming A Round.

The package is laid out by stage, each importing only from the stages before it (and every stage
from ``stats.py``, the one statistics module):

    game/         the rules as data: cards, RuleConfig, Deck, result fields, trace codes, observation
    kernel/       the jitted core: rng, scoring, table, turn, step (the action-level API), game loop,
                  policies; engine.simulate
    reference/    the referee: a pure-Python replay of the rules, scoring and narration
    batch/        many games: chunked runner, Parquet files, summaries, Dask
    search/       on kernel.step: the rollout start, rollouts, the Monte Carlo bot, decision estimates
    drills/       the drill deck: cards of reviewed mistakes, their schedule, the deck's file
    tune/         tuning and training the players: CMA-ES, the learned, net and value fits, the card
    experiments/  one question each: compare, held-out, the ladder, the agreement, the decision sets
    analyses/     the studies and the HTML/PNG report (installed from the repository's analyses/)
    cli/          the ``gnoming-sim`` command

This module is the public facade: ``simulate``, ``score_layout``, ``standings`` (a batch file's
standings, as ``simulate`` prints them), ``RuleConfig``, ``Deck``, ``PUBLISHED``, ``GnomingError``
and the strategy registry ``strategies``.  The engine is
imported on first use so that ``import gnoming_sim`` stays cheap (no numba compilation).
"""
from __future__ import annotations

from gnoming_sim.game.deck import PUBLISHED, Deck
from gnoming_sim.game.errors import GnomingError
from gnoming_sim.game.rules import RuleConfig
from gnoming_sim.game.version import __version__
import gnoming_sim.search  # noqa: F401,E402  (registers the Monte Carlo bot's batch kernel; compiles nothing)

__all__ = ["__version__", "RuleConfig", "Deck", "PUBLISHED", "GnomingError", "score_layout", "simulate",
           "standings", "strategies"]

_LAZY = {"score_layout": ("gnoming_sim.kernel.engine", "score_layout"),
         "simulate": ("gnoming_sim.kernel.engine", "simulate"),
         "standings": ("gnoming_sim.batch.standings", "standings"),
         "strategies": ("gnoming_sim.kernel.policy.registry", None)}


def __getattr__(name: str):
    if name in _LAZY:
        from importlib import import_module

        module, attr = _LAZY[name]
        value = import_module(module)
        if attr is not None:
            value = getattr(value, attr)
        globals()[name] = value  # later look-ups skip this hook
        return value
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")


def __dir__():
    return sorted(set(globals()) | set(__all__))
