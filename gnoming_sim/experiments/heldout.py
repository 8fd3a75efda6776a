"""The held-out check of a tuned strategy: strategy A against B on deals tuning never played.

Tuning plays global games below ``2**58`` (generation g from ``g * 2**32``);
the held-out games start at :data:`HELD_OUT_FIRST` = ``2**60``, so under the same master
seed they are deals no tuning generation saw (and under another seed, other streams
altogether).  Seats alternate A, B, A, ... and move one seat per game; the games are a
multiple of the table size, so every strategy sits in every seat equally often.  The unit
is the game (a deal): per game, the mean game score of the A seats minus that of the B
seats; its mean comes with a 99% normal interval (``z = 2.576``).
"""
from __future__ import annotations

import math

import numpy as np

from gnoming_sim.stats import mean_ci
from gnoming_sim.game.deck import check_players
from gnoming_sim.game.errors import GnomingError
from gnoming_sim.kernel.policy import registry

HELD_OUT_FIRST = 2**60
Z99 = 2.5758293035489004
CHUNK = 10_000   # games per engine call (one Dask task with a pool)


def held_out(a, b="builder", players=(3, 4, 5, 7), games: int = 20_000, seed: int = 0, rules=None,
             deck=None, threads: int | None = None, pool=None, z: float = Z99) -> list[dict]:
    """One row per table size: ``{players, games, a, b, diff, lo, hi, a_score, b_score}``.

    ``diff`` is A's mean game score minus B's on the same deals (negative: A scores less,
    i.e. plays better), ``lo``/``hi`` its interval at ``z``; ``a_score``/``b_score`` the
    mean game score per seat of each.
    """
    from gnoming_sim.batch.distributed import simulate_many

    a_s, b_s = registry.get(a), registry.get(b)
    if a_s.name == b_s.name:
        raise GnomingError(f"held-out: compare two different strategies, got '{a_s.name}' twice")
    if isinstance(games, bool) or not isinstance(games, int) or games < 1:
        raise GnomingError(f"--games must be an integer >= 1, got {games!r}")
    rows = []
    for p in players:
        check_players(p)
        n = p * math.ceil(games / p)
        seats = tuple(a_s if s % 2 == 0 else b_s for s in range(p))
        step = p * math.ceil(CHUNK / p)   # chunks keep whole rotations
        calls = [dict(players=p, strategies=seats, games=min(step, n - lo), seed=seed,
                      first_game=HELD_OUT_FIRST + lo, rotate=True, rules=rules, deck=deck,
                      chunk_size=step, threads=threads) for lo in range(0, n, step)]
        diffs, a_scores, b_scores = [], [], []
        for res in simulate_many(calls, pool):
            is_a = res.seat_strategy == 0
            totals = res.totals.astype(np.float64)
            a_mean = (totals * is_a).sum(axis=1) / is_a.sum(axis=1)
            b_mean = (totals * ~is_a).sum(axis=1) / (~is_a).sum(axis=1)
            diffs.append(a_mean - b_mean)
            a_scores.append(a_mean)
            b_scores.append(b_mean)
        diff, lo, hi, count = mean_ci(np.concatenate(diffs), z=z)
        rows.append({"players": p, "games": count, "a": a_s.name, "b": b_s.name, "diff": diff,
                     "lo": lo, "hi": hi, "a_score": float(np.concatenate(a_scores).mean()),
                     "b_score": float(np.concatenate(b_scores).mean())})
    return rows


def format_rows(rows: list[dict], level: str = "99%") -> str:
    """A text table of :func:`held_out` rows."""
    lines = [f"{'players':>7}  {'games':>7}  {'A':>10}  {'B':>10}  {'A - B per game':>15}  {level + ' interval':>20}"]
    for r in rows:
        lines.append(f"{r['players']:>7}  {r['games']:>7}  {r['a_score']:>10.2f}  {r['b_score']:>10.2f}  "
                     f"{r['diff']:>+15.2f}  [{r['lo']:+8.2f}, {r['hi']:+8.2f}]")
    a, b = rows[0]["a"], rows[0]["b"]
    lines.append(f"A = {a}, B = {b}: mean game score per seat; A - B < 0 means {a} scores less (better), "
                 f"on the same held-out deals")
    return "\n".join(lines) + "\n"
