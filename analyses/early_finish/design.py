"""Study ``early-finish``: when a player turns their final card, how often is it the -5?

Design.  Tables of the four heuristic presets at 2 to 7 players, seats rotated: at
each table size the cyclic lineups (every preset sits equally often) share the games;
each table size plays its own deals.
Random play is left out: it finishes by chance, and a random player at the table is
no rival, which would flatter every finisher.  One observation per finished round:
the finisher's true score when it turned its last card (it takes no more turns),
the other players' visible scores and face-down cards at that moment, and the turn.
A round whose final lap stalled pays no bonus and is left out (and counted).

Along the ladder.  On a share of the same deals (:data:`LADDER_SHARE` of every lineup's games, the
first game numbers of each lineup), each rung of the strong ladder (``learned``, then the strong player
``net``) also plays at every seat, so P(bonus | finish) per table size under the mix and both rungs is
compared on the same deals (paired by game).
"""
from __future__ import annotations

import numpy as np
import pandas as pd

from gnoming_sim.game import fields

from ..framework.design import HEURISTIC_NAMES, SECOND, STRONG, STRONG_LADDER, cell_first_game, cyclic_lineups
from ..framework.study import Table

PLAYERS = (2, 3, 4, 5, 6, 7)
HEADLINE_PLAYERS = 4
LADDER = STRONG_LADDER      # the rungs above the mix, each at every seat of a table
# the ladder tables play 1/8 of each lineup's games (its first game numbers): 3,360 deals per table size and
# rung, about +-1 pp each.  Two learned-cost rungs where expert (a tenth of the cost) and learned
# played 1/6; 1/8 holds the study's cost to about +8 s
LADDER_SHARE = 8


def arm(table: Table) -> str:
    """"mix" for a lineup of the presets, else the rung that sits at every seat."""
    return "mix" if table.seats[0] in HEURISTIC_NAMES else table.seats[0]


def tables(games: int) -> list[Table]:
    """The design: every table to play, ``games`` games per design cell."""
    tables = []
    for p in PLAYERS:
        lineups = cyclic_lineups(HEURISTIC_NAMES, p)
        share = -(-games // len(lineups))   # lineups split the games of a table size
        for k, lineup in enumerate(lineups):
            tables.append(Table(p, lineup, share, first_game=cell_first_game("early-finish", p) + k * share,
                                label=f"{p} players: {', '.join(lineup)}"))
        ladder = -(-share // LADDER_SHARE)
        for rung in LADDER:
            for k in range(len(lineups)):
                tables.append(Table(p, (rung,) * p, ladder, first_game=cell_first_game("early-finish", p) + k * share,
                                    label=f"{p} players: {rung} at every seat (the deals of lineup {k + 1})"))
    return tables


def tidy(index, table, result) -> pd.DataFrame:
    """One row per round that somebody finished."""
    stats = result.round_stats
    game, rnd, seat = np.nonzero(stats[..., fields.F_FINISHER] == 1)
    row = stats[game, rnd, seat]
    visible = stats[game, rnd, :, fields.F_VISIBLE_AT_FINISH].astype(np.float64)
    visible[np.arange(seat.size), seat] = np.inf       # the finisher is not its own rival
    best = visible.argmin(axis=1)
    facedown = stats[game, rnd, :, fields.F_FACEDOWN_AT_FINISH].astype(np.int64)
    others_facedown = facedown.sum(axis=1) - facedown[np.arange(seat.size), seat]
    score = row[:, fields.F_SCORE] - row[:, fields.F_BONUS]
    best_visible = visible[np.arange(seat.size), best]
    names = np.asarray(result.strategy_names)[result.seat_strategy[game, seat]]
    return pd.DataFrame({
        "players": np.full(seat.size, table.players, dtype=np.int8),
        "arm": np.full(seat.size, arm(table), dtype=object),
        "lineup": np.full(seat.size, index, dtype=np.int16),
        "game": (game + result.first_game).astype(np.int64),
        "round": rnd.astype(np.int8),
        "strategy": pd.Categorical(names, categories=HEURISTIC_NAMES + LADDER),
        "score": score.astype(np.int16),
        "bonus": row[:, fields.F_BONUS].astype(np.int8),
        "earned": row[:, fields.F_BONUS] < 0,
        "stalled": row[:, fields.F_STALLED] != 0,
        "round_turn": (row[:, fields.F_FINISH_TURN] + 1).astype(np.int16),
        "own_turn": row[:, fields.F_TURNS].astype(np.int16),
        "best_visible": best_visible.astype(np.int16),
        "gap": (score - best_visible).astype(np.int16),
        "best_facedown": facedown[np.arange(seat.size), best].astype(np.int8),
        "others_facedown": others_facedown.astype(np.int16),
    })
