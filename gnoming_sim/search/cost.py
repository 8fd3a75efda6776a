"""What the Monte Carlo player's decisions cost: its games played with the rollouts counted.

:func:`mc_cost` plays the games of :func:`gnoming_sim.kernel.engine.simulate` with their counters
(``counters=True``) and reads the cost counters the bot keeps in each game's memo (``dispatch.MEMO_MC_COST``):
per kind of decision (:data:`gnoming_sim.search.bot.COST_NAMES`), the decisions taken by rollouts and the
rollouts they ran, summed over the table's Monte Carlo seats.
"""
from __future__ import annotations

from gnoming_sim.kernel.policy.dispatch import MEMO_COUNTERS, MEMO_MC_COST
from gnoming_sim.search.bot import COST_NAMES, N_COST

__all__ = ["COST_NAMES", "mc_cost"]


def mc_cost(players: int, strategies, games: int, seed: int = 0, first_game: int = 0, rotate: bool = False,
            threads: int | None = None):
    """Play the games of ``simulate(players, strategies, games, seed, first_game=..., rotate=...)``
    (published deck, default rules) and count the Monte Carlo seats' rollouts.

    Returns ``(totals, cost, seat_strategy)``: int32[games, players] the game scores, int64[games, 2 * N_COST]
    the (decisions, rollouts) of each kind of decision, per game, as in :data:`COST_NAMES`, and the seat
    table int16[games, players] (indices into the distinct strategies, in the order first given).
    """
    from gnoming_sim.kernel.engine import simulate

    res = simulate(players, strategies, games, seed, first_game=first_game, rotate=rotate, threads=threads,
                   counters=True)
    j = MEMO_MC_COST - MEMO_COUNTERS
    return res.totals, res.counters[:, j:j + 2 * N_COST], res.seat_strategy
