"""Study ``tournament``: the presets against each other at 3, 4, 5 and 7 players.

Design.  At ``P`` players every lineup of :func:`~gnoming_sim.analyses.framework.design.balanced_lineups`
plays the same games (same seed, same game numbers), so every lineup is dealt the same
cards: common random numbers.  Seats rotate one place per game.  A deal is the unit of
every interval: per deal, a strategy's score (and win credit) is averaged over all
its seats in all lineups, and head-to-head differences are taken within a table.
"""
from __future__ import annotations

import numpy as np
import pandas as pd

from gnoming_sim.game.fields import F_TURNS
from gnoming_sim.kernel.policy import registry

from ..framework.design import EXPERT, PRESET_NAMES, TABLE_NAMES, balanced_lineups, cell_first_game
from ..framework.study import Table

PLAYERS = (3, 4, 5, 7)
HEADLINE_PLAYERS = 4
# entrants too slow for the full design (the Monte Carlo player): one seat among ``expert``s at
# the headline table size, seats rotated, on deals of their own, 1/SLOW_SHARE of a lineup's games
SLOW = ("mc",)
SLOW_SHARE = 10
SLOW_MIN_GAMES = 12


def tables(games: int, extra: tuple[str, ...] = (), quick: bool = False) -> list[Table]:
    """The design: every lineup at every table size plays ``games`` games.

    The entrants are the five presets and ``expert`` (the tuned preset), so the standings show
    how far the hand-set presets are from the strongest heuristic found (the learned player is the
    studies' strong-play arm, :data:`~gnoming_sim.analyses.framework.design.STRONG`, not an entrant).  ``extra``: registered
    strategies (a user's own) that join them.  The lineups of one table size share their deals
    (a cell); each table size has its own deals.  A preview (``quick``) seats no slow entrant: its dozen
    games could not place one, and compiling the Monte Carlo player takes minutes.
    """
    names = TABLE_NAMES + tuple(n for n in extra if n not in TABLE_NAMES)
    slow = () if quick else slow_entrants()
    pool = names + slow
    out = [Table(p, lineup, games, first_game=cell_first_game("tournament", p), pool=pool,
                 label=f"{p} players: {', '.join(lineup)}")
           for p in PLAYERS for lineup in balanced_lineups(names, p)]
    n_slow = max(games // SLOW_SHARE, SLOW_MIN_GAMES)
    for name in slow:
        for p in (HEADLINE_PLAYERS,):   # the headline size only: at 7 players a Monte Carlo game costs minutes of a second
            lineup = (name,) + (EXPERT,) * (p - 1)
            out.append(Table(p, lineup, n_slow, first_game=cell_first_game("tournament", name, p), pool=pool,
                             label=f"{p} players: {', '.join(lineup)} (slow entrant)"))
    return out


def slow_entrants() -> tuple[str, ...]:
    """The slow entrants this build registers."""
    known = set(registry.names())
    return tuple(n for n in SLOW if n in known)


def is_slow(table: Table) -> bool:
    return table.seats[0] in SLOW


def tidy(index, table, result) -> pd.DataFrame:
    """One row per (game, seat): lineup index, strategy, game score, win credit and turns per round."""
    games, players = result.totals.shape
    names = np.asarray(result.strategy_names)[result.seat_strategy].ravel()
    return pd.DataFrame({
        "players": np.full(games * players, players, dtype=np.int8),
        "lineup": np.full(games * players, index, dtype=np.int16),
        "game": np.repeat(np.arange(result.first_game, result.first_game + games, dtype=np.int64), players),
        "seat": np.tile(np.arange(players, dtype=np.int8), games),
        "strategy": pd.Categorical(names, categories=table.pool or PRESET_NAMES),
        "score": result.totals.ravel().astype(np.int16),
        "win": result.win_credit.ravel().astype(np.float64),
        # a seat's own turns per round (the mean over the game's rounds)
        "turns": result.round_stats[:, :, :, F_TURNS].mean(axis=1).ravel().astype(np.float32),
    })
