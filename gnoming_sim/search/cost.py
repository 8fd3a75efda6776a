"""What the Monte Carlo player's decisions cost: its games played with the rollouts counted.

:func:`mc_cost` plays exactly the games :func:`gnoming_sim.kernel.engine.simulate` plays (the same
seat table, deals and streams; a test checks the totals) with the bot's batch kernel, and reads back
the cost counters the bot keeps in each game's memo (``dispatch.MEMO_MC_COST``): per kind of
decision (:data:`gnoming_sim.search.bot.COST_NAMES`), the decisions taken by rollouts and the
rollouts they ran, summed over the table's Monte Carlo seats.  The game outputs are not changed.
"""
from __future__ import annotations

import numpy as np

from gnoming_sim.game.rules import ROUNDS
from gnoming_sim.kernel.jit import jit
from gnoming_sim.kernel.policy.dispatch import MEMO_MC_COST, new_memo
from gnoming_sim.kernel.state import new_table
from gnoming_sim.search.bot import COST_NAMES, N_COST, play_game_mc

__all__ = ["COST_NAMES", "mc_cost", "play_batch_counted"]


@jit(nrt=True)
def _play_one_counted(g, res, i, cost):
    N = g.deck.shape[0]
    memo = new_memo()
    t = new_table(g.players, N, g.kinds, g.params, g.seat_strategy[i], np.empty((0, 4), dtype=np.int32), memo)
    order = np.empty((ROUNDS, N), dtype=np.int8)
    play_game_mc(t, g.first_game + i, g.seed, g.rules, g.deck, g.deck_counts, order, np.bool_(False), res.out[i],
                 res.totals[i], res.win[i])
    for j in range(2 * N_COST):
        cost[i, j] = memo.plan[MEMO_MC_COST + j]


@jit(py=True, nrt=True)
def play_batch_counted(g, res, cost, lo, hi):
    """The bot's :func:`gnoming_sim.search.bot.play_range_mc` on games ``lo .. hi - 1`` (no traces, no given
    deals), and ``cost`` int64[G, 2 * N_COST]: per game, (decisions, rollouts) of each kind.  Serial: ``mc_cost``
    hands blocks of games to threads (``game_loop.run_blocks``), as ``simulate`` does."""
    for i in range(lo, hi):
        _play_one_counted(g, res, i, cost)


def mc_cost(players: int, strategies, games: int, seed: int = 0, first_game: int = 0, rotate: bool = False,
            threads: int | None = None):
    """Play the games of ``simulate(players, strategies, games, seed, first_game=..., rotate=...)``
    (published deck, default rules) and count the Monte Carlo seats' rollouts.

    Returns ``(totals, cost, seat_strategy)``: int32[games, players] the game scores, int64[games, 2 * N_COST]
    the (decisions, rollouts) of each kind of decision, per game, as in :data:`COST_NAMES`, and the seat
    table int16[games, players] (indices into the distinct strategies, in the order first given).
    """
    from gnoming_sim.game.deck import PUBLISHED
    from gnoming_sim.game.fields import N_FIELDS
    from gnoming_sim.game.rules import RuleConfig
    from gnoming_sim.kernel.engine import MC_PARALLEL_CHUNK, deck_counts, numba_threads, seat_table, strategy_arrays
    from gnoming_sim.kernel.game_loop import Games, Results, run_blocks

    strats, seat_strategy = seat_table(players, strategies, games, first_game, rotate)
    kinds, params = strategy_arrays(strats)
    deck = PUBLISHED.to_array()
    g = Games(first_game, np.uint64(seed), players, seat_strategy, kinds, params, RuleConfig().to_array(), deck,
              deck_counts(deck), np.zeros((0, ROUNDS, deck.shape[0]), np.int8), False)
    res = Results(np.zeros((games, ROUNDS, players, N_FIELDS), dtype=np.int32),
                  np.zeros((games, players), dtype=np.int32), np.zeros((games, players), dtype=np.float64),
                  np.zeros((0, 0, 4), dtype=np.int32), np.zeros(games, dtype=np.int64))
    cost = np.zeros((games, 2 * N_COST), dtype=np.int64)
    with numba_threads(threads):
        run_blocks(lambda lo, hi: play_batch_counted(g, res, cost, lo, hi), games, MC_PARALLEL_CHUNK)
    return res.totals, cost, seat_strategy
