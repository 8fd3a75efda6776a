"""Study ``finish-play-on``: when you could turn your last card, does finishing pay?

Design.  Self-play games of each preset (greedy, builder, rusher, cautious, and the tuned
``expert``) at 3 to 6 players; every (preset, table size) cell plays deals of its own from the
study seed (:func:`cell_first_game`), traced.  A *finishing chance* is a place decision in
which the player to move holds a card it could put on its last face-down card (nobody has
finished yet).  From each game one chance is drawn at random (its own stream of the study
seed, the cell and the game number), so every decision comes from a distinct game and the
decisions are independent units; the number of chances in the game (``chances``) is kept,
so the regret per round counts every chance, not only the one drawn.

Each decision is rolled out along the ladder (:func:`.decisions.evaluate_ladder`).  A selection
batch (every option, ``expert`` at every seat, the game played out) picks the best way of not
finishing by the chance of winning.  Then finish, that option and the game's own choice are
rolled out again on fresh rollouts (the same rollout indices for every rung: common random
numbers across rungs) with every seat playing each rung's base policy after the decision:
``mix`` (the preset whose self-play game the decision comes from), then the rungs of the strong ladder,
``learned`` and the strong player ``net`` (:data:`RUNGS`).  So the three rungs' answers are paired per
decision.  The estimates are
free of the selection (a fresh batch); what remains is that the selected option can fall short of
the truly best play-on under a rung, which can only flatter finishing, by little (the selection
batch is far larger than any per-decision difference needs; the old two-batch design measured
about 0.1 percentage point).  Few rollouts per decision and many decisions: the spread of the
decisions, not the rollout noise, sets the precision of every average and of the boundary.
"""
from __future__ import annotations

import zlib

import numpy as np
import pandas as pd

from gnoming_sim.batch.process_pool import process_pool
from gnoming_sim.game.rules import ROUNDS

from ..framework.design import EXPERT, SECOND, STRONG, STRONG_LADDER, cell_first_game
from ..framework.study import Table
from .decisions import evaluate_ladder, game_chances

PRESETS = ("greedy", "builder", "rusher", "cautious", "expert")
PLAYERS = (3, 4, 5, 6)
BASE_POLICY = STRONG   # the headline rung: the strong player at every seat after the decision
SELECT_POLICY = EXPERT  # the selection batch's base policy (cheap; picks the play-on option every rung is scored on)
RUNGS = ("mix", *STRONG_LADDER)
SELECT_ROLLOUTS = 64    # per decision, every option (the selection batch)
# per decision and rung: finish, play on, own choice.  The ladder's rungs cost ten times the mix's each; with a
# second learned-cost rung in expert's old place: 16 rollouts each cost 1.57x the old design per decision,
# 12 each 1.26x, 10 each about 1.1x (measured on the same 45 decisions, interleaved, 2 busy cores), so 10.  The
# decisions' spread, not the rollouts, sets the precision: rollout noise was a third of a decision's variance at
# 16, so 10 widens an interval by about 10%
ROLLOUTS = {"mix": 16, SECOND: 10, STRONG: 10}
QUICK_ROLLOUTS = {"mix": 8, SECOND: 8, STRONG: 8}
QUICK_SELECT = 24


def rung_policies(preset: str) -> dict:
    """The base policy of each rung for a decision from ``preset``'s self-play game."""
    return {"mix": preset, **{rung: rung for rung in STRONG_LADDER}}


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


def play_table(rules, deck, threads, seed: int, table: Table, result, rollouts: tuple) -> tuple[pd.DataFrame, pd.DataFrame]:
    """(one row per decision, one row per game) of one played table (``result`` traced).

    The games frame has every game, with its finishing chances (0 when it had none) and the
    player-rounds it played, so the regret per round counts games without a chance as 0.
    """
    name, P = table.seats[0], table.players
    rows, games = [], []
    for g in range(result.games):
        number = result.first_game + g
        chances = game_chances(result, g, rules, deck, f"{name} game {number}")
        games.append({"preset": name, "players": P, "game": number, "chances": len(chances),
                      "player_rounds": ROUNDS * P})
        if not chances:
            continue
        stream = _stream(seed, table, number)
        pick, roll = stream.spawn(2)
        pos, chosen = chances[int(np.random.default_rng(pick).integers(len(chances)))]
        rollout_seed = int(roll.generate_state(1, np.uint64)[0])
        select, rolls = rollouts
        row = evaluate_ladder(pos, chosen, SELECT_POLICY, rung_policies(name), select, rolls, rollout_seed,
                              threads=threads)
        rows.append({"preset": name, "game": number, "chances": len(chances), "round": pos.round,
                     "turn": pos.turn, **row})
    return pd.DataFrame(rows), pd.DataFrame(games)


# From this many games on, the tables' decisions are evaluated in worker processes, one table each at a time
# (``spawn``), one per thread the report may use: a decision's Python (its positions, the rollouts' set-up and
# regressions) holds the interpreter lock for about half its time, so threads kept the second core half idle.
# Below it, in this process: a worker's start (imports, kernels loaded from the cache) costs seconds.
PROCESS_MIN_GAMES = 200


def play(ctx, seed: int, tables: list[Table], advance) -> dict[str, pd.DataFrame]:
    """Play every table traced, evaluate one decision per game; the concatenated frames.  The rows do not
    depend on where a table is evaluated: every decision has its own streams."""
    import numba

    rollouts = (QUICK_SELECT, QUICK_ROLLOUTS) if ctx.quick else (SELECT_ROLLOUTS, ROLLOUTS)
    calls = (dict(players=t.players, strategies=t.seats, games=t.games, seed=seed, rules=ctx.rules, deck=ctx.deck,
                  threads=ctx.threads, first_game=t.first_game, rotate=False, trace=True) for t in tables)
    workers = min(len(tables), ctx.threads or numba.get_num_threads())
    if workers < 2 or sum(t.games for t in tables) < PROCESS_MIN_GAMES:
        done = []
        for table, result in zip(tables, ctx.simulate_many(calls)):
            done.append(play_table(ctx.rules, ctx.deck, ctx.threads, seed, table, result, rollouts))
            advance(table.games)
    else:
        with process_pool(workers) as pool:   # spawn; its workers die with this process
            jobs = [pool.submit(play_table, ctx.rules, ctx.deck, 1, seed, table, result, rollouts)
                    for table, result in zip(tables, ctx.simulate_many(calls))]
            done = []
            for table, job in zip(tables, jobs):
                done.append(job.result())
                advance(table.games)
    decisions = [d for d, _ in done]
    games = [g for _, g in done]
    frame = pd.concat(decisions, ignore_index=True) if decisions else pd.DataFrame()
    return {"decisions": frame, "games": pd.concat(games, ignore_index=True) if games else pd.DataFrame(),
            "rollouts": {"select": rollouts[0], **rollouts[1]}}
