"""The ladder's estimates from its per-deal tallies: Bradley-Terry ratings (the ``choix`` library),
the head-to-head share and the skill share, each with a bootstrap over deals; the margin against
expert and Order, each with a t interval over deals.

The deal is the unit: games on one deal (its rotations, every lineup's tables) share its cards, so
every replicate of the bootstrap redraws whole deals (a multinomial count per deal of the table
size, applied to every game played on it).  Every estimate is ``{"mean", "ci95": [lo, hi], "n"}``.
"""
from __future__ import annotations

import math
from typing import Sequence

import numpy as np

ELO = 400.0 / math.log(10.0)   # Bradley-Terry log-strength to the Elo scale (400: odds of 10 to 1)
ALPHA = 1e-3                   # choix's regularization: keeps a strategy that never won finite
BLOCK = 50                     # bootstrap replicates drawn at once (memory: BLOCK x deals counts)


class Tally:
    """Sufficient statistics of one table size, per deal, as the tables are played.

    ``wins[d, i, j]``: pairwise win credit of strategy i over j on deal d in every table (the
    ratings' data); ``lineup_wins``: the same in the lineup tables alone (the head-to-head share);
    ``n, s, q [d, k]``: the weight, weighted sum and sum of squares of strategy k's game scores on
    deal d (each lineup weighted equally: a game of a lineup of ``D`` deals weighs ``1 / D``);
    ``margin[name]``, ``order[name]``: per-deal values of the ``expert`` and ``random`` tables.
    """

    def __init__(self, pool: Sequence[str], players: int, deals: int):
        self.pool = tuple(pool)
        self.players = players
        self.deals = deals
        S = len(pool)
        self.wins = np.zeros((deals, S, S))
        self.lineup_wins = np.zeros((deals, S, S))
        self.n = np.zeros((deals, S))
        self.s = np.zeros((deals, S))
        self.q = np.zeros((deals, S))
        self.seat_games = np.zeros((S, players), dtype=np.int64)   # lineup seat-games per strategy and seat
        self.lineups: list[dict] = []
        self.tables: list[dict] = []
        self.margin: dict[str, np.ndarray] = {}
        self.order: dict[str, np.ndarray] = {}

    def add(self, table, scores: np.ndarray, wins: np.ndarray) -> None:
        """One table's games: float64 (deals, rotations, seats), seat s of rotation r holding
        ``table.seats[(s + r) % P]``."""
        D, P = scores.shape[0], self.players
        focal = [(-r) % P for r in range(P)]   # the seat of table.seats[0] in rotation r
        self.tables.append({"kind": table.kind, "seats": list(table.seats), "deals": D})
        # the expert and random tables seat their opponents even when the pool leaves them out: then their
        # games give the margin or Order only, no pairs for the ratings
        if all(name in self.pool for name in table.seats):
            idx = np.array([[self.pool.index(table.seats[(s + r) % P]) for s in range(P)] for r in range(P)])
            self._pairs(self.wins, idx, scores)
        if table.kind == "expert":
            x = np.stack([scores[:, r, focal[r]] for r in range(P)], axis=1)
            rest = (scores.sum(axis=2) - x) / (P - 1)
            self.margin[table.seats[0]] = (x - rest).mean(axis=1)
            return
        if table.kind == "random":
            self.order[table.seats[0]] = np.stack([wins[:, r, focal[r]] for r in range(P)], axis=1).mean(axis=1)
            return
        self.lineups.append({"seats": list(table.seats), "deals": D})
        self._pairs(self.lineup_wins, idx, scores)
        for r in range(P):
            for a in range(P):
                k = idx[r, a]
                y = scores[:, r, a]
                self.n[:D, k] += 1.0 / D
                self.s[:D, k] += y / D
                self.q[:D, k] += y * y / D
                self.seat_games[k, a] += D

    @staticmethod
    def _pairs(wins: np.ndarray, idx: np.ndarray, scores: np.ndarray) -> None:
        """Add every pair of seats holding different strategies: the lower game score wins, a tie is half."""
        D, P = scores.shape[0], scores.shape[2]
        for r in range(P):
            for a in range(P):
                for b in range(a + 1, P):
                    k, j = idx[r, a], idx[r, b]
                    if j == k:
                        continue
                    won = (scores[:, r, a] < scores[:, r, b]) + 0.5 * (scores[:, r, a] == scores[:, r, b])
                    wins[:D, k, j] += won
                    wins[:D, j, k] += 1.0 - won


# ------------------------------------------------------------------ estimators
def bradley_terry(wins: np.ndarray, anchor: int) -> np.ndarray:
    """Bradley-Terry log-strengths from ``wins[i, j]`` (credit of i over j), ``anchor``'s at 0."""
    import choix

    theta = choix.ilsr_pairwise_dense(np.asarray(wins, dtype=np.float64), alpha=ALPHA, max_iter=10_000)
    return theta - theta[anchor]


def head_to_head_share(wins: np.ndarray, order: np.ndarray) -> float:
    """Mean over the pairs that met of the share of their results the higher-rated one won
    (``order[i]``: strategy i's rating)."""
    shares = []
    S = wins.shape[0]
    for i in range(S):
        for j in range(i + 1, S):
            total = wins[i, j] + wins[j, i]
            if total > 0:
                hi, lo = (i, j) if order[i] >= order[j] else (j, i)
                shares.append(wins[hi, lo] / total)
    return float(np.mean(shares)) if shares else math.nan


def skill_share(n: np.ndarray, s: np.ndarray, q: np.ndarray) -> float:
    """R^2 of game score on which strategy played (between-strategy sum of squares over the total),
    from the weights, sums and sums of squares per strategy (1-d, summed over deals)."""
    N, T = n.sum(), s.sum()
    if N <= 0:
        return math.nan
    total = q.sum() - T * T / N
    seen = n > 0
    between = (s[seen] ** 2 / n[seen]).sum() - T * T / N
    return float(between / total) if total > 0 else math.nan


def t_interval(x: np.ndarray) -> dict:
    """The mean of ``x`` (one value per deal) with its 95% t interval (:func:`gnoming_sim.stats.mean_ci_t`);
    below two values the interval collapses to the mean."""
    from gnoming_sim.stats import mean_ci_t

    mean, lo, hi, n = mean_ci_t(x)
    return estimate(mean, mean, mean, n) if n < 2 else estimate(mean, lo, hi, n)


def estimate(mean: float, lo: float, hi: float, n: int) -> dict:
    return {"mean": float(mean), "ci95": [float(lo), float(hi)], "n": int(n)}


def percentile(point: float, draws: np.ndarray, n: int) -> dict:
    """``point`` with the 2.5% and 97.5% quantiles of its bootstrap ``draws`` (the nan ones dropped).

    Where the draws lie to one side of the point (a biased estimate on few deals, a strategy whose
    rating only the prior bounds), the interval is widened to reach the point: never narrower."""
    draws = draws[np.isfinite(draws)]
    if draws.size == 0:
        return estimate(point, math.nan, math.nan, n)
    lo, hi = np.quantile(draws, [0.025, 0.975])
    return estimate(point, min(lo, point), max(hi, point), n)


# ------------------------------------------------------------------ one table size
def table_size_result(tally: Tally, pool: Sequence[str], seed: int, bootstrap: int, anchor: str,
                      reference: str = "expert") -> dict:
    """Every estimate of one table size, as a JSON-ready dict (see :func:`gnoming_sim.experiments.ladder.run`)."""
    S, D, P = len(pool), tally.deals, tally.players
    a = pool.index(anchor)
    flat = tally.wins.reshape(D, S * S)
    lineup_flat = tally.lineup_wins.reshape(D, S * S)
    point_w = flat.sum(axis=0).reshape(S, S)
    theta = bradley_terry(point_w, a)
    h2h = head_to_head_share(lineup_flat.sum(axis=0).reshape(S, S), theta)
    skill = skill_share(tally.n.sum(0), tally.s.sum(0), tally.q.sum(0))
    fair = np.array([name != "random" for name in pool])      # the skill share without random's games
    skill_fair = skill_share(tally.n.sum(0)[fair], tally.s.sum(0)[fair], tally.q.sum(0)[fair])

    rng = np.random.default_rng([seed & 0xFFFFFFFF, seed >> 32, P, 0xB0075])
    thetas = np.empty((bootstrap, S))
    h2hs, skills, skills_fair = np.empty(bootstrap), np.empty(bootstrap), np.empty(bootstrap)
    for lo in range(0, bootstrap, BLOCK):
        k = min(BLOCK, bootstrap - lo)
        counts = rng.multinomial(D, np.full(D, 1.0 / D), size=k).astype(np.float64)   # (k, D)
        w, lw = counts @ flat, counts @ lineup_flat
        n, s, q = counts @ tally.n, counts @ tally.s, counts @ tally.q
        for b in range(k):
            wb = w[b].reshape(S, S)
            thetas[lo + b] = bradley_terry(wb, a)
            h2hs[lo + b] = head_to_head_share(lw[b].reshape(S, S), theta)
            skills[lo + b] = skill_share(n[b], s[b], q[b])
            skills_fair[lo + b] = skill_share(n[b][fair], s[b][fair], q[b][fair])

    per_pair = point_w + point_w.T
    results = per_pair.sum(axis=1)
    lineup_pairs = lineup_flat.sum(axis=0).reshape(S, S)
    lineup_pairs = lineup_pairs + lineup_pairs.T
    deals_of = np.zeros(S, dtype=np.int64)   # the deals a strategy's games were played on (a prefix)
    for t in tally.tables:
        for name in set(t["seats"]) & set(pool):   # an opponent outside the pool is not rated
            deals_of[pool.index(name)] = max(deals_of[pool.index(name)], t["deals"])
    strategies = []
    for i, name in enumerate(pool):
        won = point_w[i].sum()
        strategies.append({
            "strategy": name,
            "rating": percentile(ELO * theta[i], ELO * thetas[:, i], int(deals_of[i])),
            "theta": float(theta[i]),
            "margin": _margin(tally.margin.get(name), name == reference),
            "order": _order(tally.order.get(name), P),
            "results": int(round(results[i])),
            "won": float(won),
            "bounded_by_prior": bool(won == 0 or won == results[i]),
            "seat_games": tally.seat_games[i].tolist(),
        })
    strategies.sort(key=lambda r: -r["rating"]["mean"])
    pairs = int((np.triu(lineup_pairs, 1) > 0).sum())
    return {
        "players": P, "deals": D, "anchor": anchor, "lineups": tally.lineups, "design": tally.tables,
        "strategies": strategies,
        "pairwise_results": int(round(per_pair.sum() / 2)),
        "pair_results": {f"{pool[i]}-{pool[j]}": int(round(per_pair[i, j]))
                         for i in range(S) for j in range(i + 1, S) if per_pair[i, j] > 0},
        "head_to_head": {**percentile(h2h, h2hs, D), "pairs": pairs},
        "skill_share": percentile(skill, skills, D),
        "skill_share_without_random": percentile(skill_fair, skills_fair, D),
        # every pair's rating difference on the same bootstrap replicates (paired: the same deals redrawn)
        "rating_differences": {f"{pool[i]}-{pool[j]}": percentile(ELO * (theta[i] - theta[j]),
                                                                  ELO * (thetas[:, i] - thetas[:, j]),
                                                                  int(min(deals_of[i], deals_of[j])))
                               for i in range(S) for j in range(S) if i != j},
    }


def _margin(per_deal: np.ndarray | None, is_reference: bool) -> dict:
    """The margin against the reference: its t interval over deals; the reference itself is 0 by
    construction (every seat the same strategy: per deal, the rotations average to exactly 0)."""
    if per_deal is None:
        return estimate(math.nan, math.nan, math.nan, 0)
    if is_reference:
        return estimate(0.0, 0.0, 0.0, len(per_deal))
    return t_interval(per_deal)


def _order(wins: np.ndarray | None, players: int) -> dict:
    """CardStock's Order: (win rate among random players - 1/P) / (1 - 1/P), from -1/(P-1) (never
    wins) to 1 (always wins).  Its interval: the t interval of the per-deal win rate, clipped to
    [0, 1]; where every deal gives the same rate (a strategy that wins every game) that interval
    collapses, so the Wilson interval over the deals is used instead."""
    from gnoming_sim.stats import wilson

    if wins is None:
        return estimate(math.nan, math.nan, math.nan, 0)
    wins = np.asarray(wins, dtype=np.float64)
    rate = t_interval(wins)
    lo, hi = rate["ci95"]
    if wins.size and np.all(wins == wins[0]):
        _, lo, hi = wilson(float(wins.sum()), int(wins.size))
    lo, hi = max(lo, 0.0), min(hi, 1.0)
    even = 1.0 / players
    scale = lambda v: (v - even) / (1.0 - even)   # noqa: E731
    return estimate(scale(rate["mean"]), scale(lo), scale(hi), rate["n"])
