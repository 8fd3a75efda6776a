"""Study ``finish-play-on``: when you could turn your last card, does finishing pay?

Design.  Self-play games of each preset (greedy, builder, rusher, cautious, and the tuned
``expert``) at 3 to 6 players; every (preset, table size) cell plays deals of its own from the
study seed (:func:`cell_first_game`), traced.  A *finishing chance* is a place decision in
which the player to move holds a card it could put on its last face-down card (nobody has
finished yet).  From each game one chance is drawn at random (its own stream of the study
seed, the cell and the game number), so every decision comes from a distinct game and the
decisions are independent units; the number of chances in the game (``chances``) is kept,
so the regret per round counts every chance, not only the one drawn.

Each decision is rolled out with :func:`.decisions.evaluate`: every seat
plays the base policy ``expert`` after the decision (the tuned preset: one base policy keeps the
decisions of all presets on one scale).  Not yet the strong player ``learned`` of the other
studies and of ``analyse``: its rollouts play a one-ply evaluator about 5x slower than expert, which
would make this study about five times as long; the re-sized finishing study moves to it.  The rollouts play the game out, and each
decision is judged by two criteria: the player's own round score (bonus included; points, as the
regret per round is asked in) and the player's chance of winning the game (which also counts
what a finish does to the rivals: it cuts their round short).  A first batch of rollouts picks,
per criterion, the best way of not finishing and the rollout choice; a second, independent batch
estimates finish − that option, and the preset's own choice − the rollout choice (its regret).
"""
from __future__ import annotations

import zlib

import numpy as np
import pandas as pd

from gnoming_sim.game.rules import ROUNDS

from ..framework.design import EXPERT, cell_first_game
from ..framework.study import Table
from .decisions import evaluate, game_chances

PRESETS = ("greedy", "builder", "rusher", "cautious", "expert")
PLAYERS = (3, 4, 5, 6)
BASE_POLICY = EXPERT   # the rollouts' base policy (see the docstring: not yet STRONG, for the report's time)
HORIZON = "game"        # play the game out: the win credit criterion beside the round score
ROLLOUTS = 200          # per batch and decision (two batches) in a full report
QUICK_ROLLOUTS = 40


def tables(games: int) -> list[Table]:
    """One table per (preset, table size): ``games`` self-play games, seats all the preset."""
    return [Table(p, (name,) * p, games, first_game=cell_first_game("finish-play-on", name, p), rotate=False,
                  label=f"{name} self-play, {p} players")
            for p in PLAYERS for name in PRESETS]


def _stream(seed: int, table: Table, game: int) -> np.random.SeedSequence:
    """The randomness of one game's decision: (study seed, preset, table size, game number)."""
    words = [seed & 0xFFFFFFFF, seed >> 32, zlib.crc32(table.seats[0].encode()), table.players,
             game & 0xFFFFFFFF, game >> 32]
    return np.random.SeedSequence(words)


def play_table(ctx, seed: int, table: Table, result, rollouts: int) -> tuple[pd.DataFrame, pd.DataFrame]:
    """(one row per decision, one row per game) of one played table (``result`` traced).

    The games frame has every game, with its finishing chances (0 when it had none) and the
    player-rounds it played, so the regret per round counts games without a chance as 0.
    """
    name, P = table.seats[0], table.players
    rows, games = [], []
    for g in range(result.games):
        number = result.first_game + g
        chances = game_chances(result, g, ctx.rules, ctx.deck, f"{name} game {number}")
        games.append({"preset": name, "players": P, "game": number, "chances": len(chances),
                      "player_rounds": ROUNDS * P})
        if not chances:
            continue
        stream = _stream(seed, table, number)
        pick, roll = stream.spawn(2)
        pos, chosen = chances[int(np.random.default_rng(pick).integers(len(chances)))]
        rollout_seed = int(roll.generate_state(1, np.uint64)[0])
        row = evaluate(pos, chosen, BASE_POLICY, rollouts, rollout_seed, threads=ctx.threads, horizon=HORIZON)
        rows.append({"preset": name, "game": number, "chances": len(chances), "round": pos.round,
                     "turn": pos.turn, **row})
    return pd.DataFrame(rows), pd.DataFrame(games)


def play(ctx, seed: int, tables: list[Table], advance) -> dict[str, pd.DataFrame]:
    """Play every table traced, evaluate one decision per game; the concatenated frames."""
    rollouts = QUICK_ROLLOUTS if ctx.quick else ROLLOUTS
    calls = (dict(players=t.players, strategies=t.seats, games=t.games, seed=seed, rules=ctx.rules, deck=ctx.deck,
                  threads=ctx.threads, first_game=t.first_game, rotate=False, trace=True) for t in tables)
    decisions, games = [], []
    for table, result in zip(tables, ctx.simulate_many(calls)):
        d, g = play_table(ctx, seed, table, result, rollouts)
        decisions.append(d)
        games.append(g)
        advance(table.games)
    frame = pd.concat(decisions, ignore_index=True) if decisions else pd.DataFrame()
    return {"decisions": frame, "games": pd.concat(games, ignore_index=True) if games else pd.DataFrame(),
            "rollouts": rollouts}
