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
    """(totals, win credit, seat_strategy) of ``deals`` games from ``first_game``, the strategies' seats rotating."""
    from gnoming_sim.kernel.engine import simulate

    res = simulate(players=players, strategies=strategies, games=deals, seed=seed, rotate=True, first_game=first_game)
    return res.totals, res.win_credit, res.seat_strategy


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
