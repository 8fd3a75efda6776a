"""A rule, played: one seat that follows the rule where it applies and plays ``net`` elsewhere, against ``net``.

:func:`play_rule` plays every deal twice on the same game number (so the same deals and play streams): once with
``net`` at every seat, once with one seat replaced by ``net_with_cells(cells)``
(:func:`gnoming_sim.kernel.policy.registry.net_with_cells`: net, except at a draw source or placement whose card
cell is set).  The rule's seat rotates with the deal (deal ``d`` seats it where ``simulate(rotate=True)`` seats the
first strategy of game ``first_game + d``), so the seat advantage cancels.  Per deal: the difference in that seat's
win credit (the engine's: shared wins split) and in its game score minus the rivals' mean, rule minus net.  The deal
is the unit: means with 95% t intervals over the deals (:func:`gnoming_sim.experiments.ladder_stats.t_interval`, as
:mod:`gnoming_sim.experiments.card_check` pairs its checks).

Net plays the same from the same streams, so a deal on which the rule never changed net's answer is the same game
twice (a difference of exactly 0): the gain per changed decision is the total gain over the changed decisions, which
the kernel counts (``dispatch.MEMO_RULE``, read back by ``simulate(counters=True)``).

:class:`Table` plays any strategy (the pocket rules, the card, a rung of the ladder of advice) the same way in one
seat among a table of one player (``net``, ``expert``), against that player in the seat, through ``simulate``.
"""
from __future__ import annotations

import time

import numpy as np

from gnoming_sim.experiments.card_check import focal_seat
from gnoming_sim.experiments.ladder_stats import estimate, t_interval
from gnoming_sim.game.deck import check_players
from gnoming_sim.game.errors import GnomingError
from gnoming_sim.kernel.policy import registry

RULE_FIRST = 2**59 + 2**56   # game numbers of the played rules' deals: apart from the card derivation's, the checks' and tuning's
BASE = "net"


def play_rule(cells, players: int, deals: int, seed: int = 0, threads: int | None = None,
              first_game: int = RULE_FIRST, base: str = BASE) -> dict:
    """The rule given by ``cells`` (``{"chart.<cell>" or cell index: action}``, as ``net_with_cells`` takes them)
    played by one seat among ``players - 1`` net players, against net in that seat, on ``deals`` deals.

    Returns ``{"win", "margin", "decisions", "applied", "win_per_decision", "n", "players", "deals", "seed",
    "first_game", "games", "wall_s", "games_per_second"}``: ``win`` pp of win chance per game (rule minus net;
    positive: the rule wins more), ``margin`` points per game of the seat's game score minus the rivals' mean (rule
    minus net; negative: the rule scores lower, plays better), ``decisions`` the rule's decisions per game where its
    answer differed from net's, ``applied`` those where a set cell applied (whatever the answer),
    ``win_per_decision`` pp per changed decision (the ratio of the means, delta-method interval over the deals);
    each an EST ``{"mean", "ci95", "n", "unit"}`` with n = deals."""
    if isinstance(deals, bool) or not isinstance(deals, int) or deals < 2:
        raise GnomingError(f"deals must be an integer >= 2, got {deals!r}")
    check_players(players)
    net = registry.get(base)
    rule = registry.net_with_cells(cells, base=net)
    t0 = time.perf_counter()
    res_n = _play(players, [net], deals, seed, first_game, threads)[0]
    res_r, counts = _play(players, [rule] + [net] * (players - 1), deals, seed, first_game, threads)
    wall = time.perf_counter() - t0
    seat = np.argmax(res_r.seat_strategy == 0, axis=1)            # the rule's seat (strategy 0) in each deal
    d_r, w_r = focal_seat(res_r.totals, res_r.win_credit, seat)
    d_n, w_n = focal_seat(res_n.totals, res_n.win_credit, seat)
    win = 100.0 * (w_r - w_n)
    changed = counts[:, 1].astype(np.float64)
    out = {"win": _est(t_interval(win), "pp"), "margin": _est(t_interval(d_r - d_n), "points"),
           "decisions": _est(t_interval(changed), "decisions"),
           "applied": _est(t_interval(counts[:, 0].astype(np.float64)), "decisions"),
           "win_per_decision": _per_decision(win, changed),
           "n": deals, "players": players, "deals": deals, "seed": int(seed), "first_game": int(first_game),
           "games": 2 * deals, "wall_s": round(wall, 2), "games_per_second": round(2 * deals / wall, 1) if wall else None}
    out["per_deal"] = {"win": win, "margin": d_r - d_n, "changed": counts[:, 1], "applied": counts[:, 0]}
    return out


def _est(e: dict, unit: str) -> dict:
    return {**e, "unit": unit}


def _per_deal_ratio(num: np.ndarray, den: np.ndarray) -> tuple[float, np.ndarray]:
    r = float(num.sum() / den.sum())
    return r, (num - r * den) / den.mean()   # the ratio's linearisation: its mean is 0, its spread the ratio's


def _per_decision(win: np.ndarray, changed: np.ndarray) -> dict:
    """pp per changed decision: sum(win) / sum(changed), with the delta method's interval over the deals (nan when
    the rule changed nothing)."""
    if changed.sum() <= 0:
        return {"mean": float("nan"), "ci95": [float("nan"), float("nan")], "n": int(win.size), "unit": "pp"}
    r, lin = _per_deal_ratio(win, changed)
    e = t_interval(lin)
    return {**estimate(r, r + e["ci95"][0], r + e["ci95"][1], e["n"]), "unit": "pp"}


def _play(players, strategies, deals, seed, first_game, threads):
    """(results, counts int64[deals, 2]): ``simulate(players, strategies, deals, seed, first_game=..., rotate=True)``
    and its net-with-cells seats' rule counters (applied, changed) per game."""
    from gnoming_sim.kernel.engine import simulate
    from gnoming_sim.kernel.policy.dispatch import MEMO_COUNTERS, MEMO_RULE

    res = simulate(players, strategies, deals, seed, first_game=first_game, rotate=True, threads=threads,
                   counters=True)
    j = MEMO_RULE - MEMO_COUNTERS
    return res, res.counters[:, j:j + 2]


class Table:
    """The deals of one table size: ``Table(players, deals, seed, first_game, base)``; :meth:`versus` plays a strategy
    in the rotating seat among ``base`` players.  The base's own games are played once and reused."""

    def __init__(self, players: int, deals: int, seed: int, first_game: int, base: str = BASE,
                 threads: int | None = None):
        self.players, self.deals, self.seed, self.first_game, self.threads = players, deals, seed, first_game, threads
        self.base = registry.get(base)
        self._base = None

    def _simulate(self, strategies, deals: int):
        from gnoming_sim.kernel.engine import simulate

        return simulate(players=self.players, strategies=strategies, games=deals, seed=self.seed, rotate=True,
                        first_game=self.first_game, threads=self.threads)

    def _seat(self, n: int) -> np.ndarray:
        """The rotating seat of each of the first ``n`` deals (where ``simulate(rotate=True)`` seats strategy 0)."""
        return (-np.arange(self.first_game, self.first_game + n, dtype=np.int64)) % self.players

    def versus(self, strategy, deals: int | None = None) -> dict:
        """Per deal of the first ``deals`` (all by default), float64 arrays: ``win`` (pp) and ``margin`` (points: the
        seat's game score minus the rivals' mean), the strategy's minus the base player's in that seat, and the
        strategy seat's own ``win_abs`` and ``margin_abs``."""
        n = self.deals if deals is None else min(int(deals), self.deals)
        if self._base is None:
            res = self._simulate([self.base], self.deals)
            self._base = (res.totals, res.win_credit)
        s = registry.get(strategy)
        if s is self.base:                                  # the base player in its own table: the same games
            d_n, w_n = focal_seat(self._base[0][:n], self._base[1][:n], self._seat(n))
            return {"win": np.zeros(n), "margin": np.zeros(n), "win_abs": 100.0 * w_n, "margin_abs": d_n}
        res = self._simulate([s] + [self.base] * (self.players - 1), n)
        seat = np.argmax(res.seat_strategy == 0, axis=1)
        d_x, w_x = focal_seat(res.totals, res.win_credit, seat)
        d_n, w_n = focal_seat(self._base[0][:n], self._base[1][:n], seat)
        return {"win": 100.0 * (w_x - w_n), "margin": d_x - d_n, "win_abs": 100.0 * w_x, "margin_abs": d_x}


__all__ = ["play_rule", "Table", "RULE_FIRST", "BASE"]
