"""Whole games for the pocket rules: one seat of a strategy among ``net`` players against ``net`` in that seat.

Every deal is played twice on the same game number (the same deals and play streams): with net at every seat,
and with one seat given to the strategy, the seat rotating with the deal (``simulate(rotate=True)``'s seating of
the first strategy).  Per deal: that seat's win credit (pp) and its game score minus the rivals' mean, strategy
minus net.  The net games are played once per (table size, deal range) and reused for every candidate.
"""
from __future__ import annotations

import numpy as np

from gnoming_sim.experiments.chart_check import focal_seat
from gnoming_sim.kernel.policy import registry


def _play(players: int, strategies: list, deals: int, seed: int, first_game: int):
    from gnoming_sim.game.deck import PUBLISHED
    from gnoming_sim.game.fields import N_FIELDS
    from gnoming_sim.game.rules import ROUNDS, RuleConfig
    from gnoming_sim.kernel.engine import PARALLEL_CHUNK, deck_counts, seat_table, strategy_arrays
    from gnoming_sim.kernel.game_loop import Games, Results, play_range_base, run_blocks

    strats, seat_strategy = seat_table(players, strategies, deals, first_game, True)
    kinds, params = strategy_arrays(strats)
    deck = PUBLISHED.to_array()
    g = Games(first_game, np.uint64(seed), players, seat_strategy, kinds, params, RuleConfig().to_array(), deck,
              deck_counts(deck), np.zeros((0, ROUNDS, deck.shape[0]), np.int8), False)
    res = Results(np.zeros((deals, ROUNDS, players, N_FIELDS), dtype=np.int32),
                  np.zeros((deals, players), dtype=np.int32), np.zeros((deals, players), dtype=np.float64),
                  np.zeros((0, 0, 4), dtype=np.int32), np.zeros(deals, dtype=np.int64))
    run_blocks(lambda lo, hi: play_range_base(g, res, lo, hi), deals, PARALLEL_CHUNK, None)
    return res.totals, res.win, seat_strategy


class Table:
    """The deals of one table size: ``Table(players, deals, seed, first_game)``; :meth:`versus` plays a strategy
    in the rotating seat and returns per-deal (win pp, margin points), strategy minus net."""

    def __init__(self, players: int, deals: int, seed: int, first_game: int, base: str = "net"):
        self.players, self.deals, self.seed, self.first_game = players, deals, seed, first_game
        self.base = registry.get(base)
        self._net = None

    def _baseline(self, seat):
        if self._net is None:
            totals, win, _ = _play(self.players, [self.base], self.deals, self.seed, self.first_game)
            self._net = (totals, win)
        return focal_seat(self._net[0], self._net[1], seat)

    def versus(self, strategy, absolute: bool = False):
        """Per deal (win pp, margin points), strategy minus the base player in its seat; with ``absolute`` also the
        strategy seat's own (win pp, margin points)."""
        s = registry.get(strategy)
        totals, win, seat_strategy = _play(self.players, [s] + [self.base] * (self.players - 1), self.deals,
                                           self.seed, self.first_game)
        seat = np.argmax(seat_strategy == 0, axis=1)
        d_x, w_x = focal_seat(totals, win, seat)
        d_n, w_n = self._baseline(seat)
        if absolute:
            return 100.0 * (w_x - w_n), d_x - d_n, 100.0 * w_x, d_x
        return 100.0 * (w_x - w_n), d_x - d_n
