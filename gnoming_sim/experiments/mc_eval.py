"""The Monte Carlo player (:mod:`gnoming_sim.search.bot`) measured: against a heuristic on paired deals, and its games per second.

:func:`mc_vs` is :func:`gnoming_sim.experiments.heldout.held_out` with a 95% interval: the seats
alternate MC, B, MC, ... and move one seat per game on deals tuning never played, so the
unit is the game (per game, the MC seats' mean game score minus the B seats').
:func:`games_per_second` times a batch at one table (the kernels compiled beforehand).
:func:`equal_budget` is the comparison of Monte Carlo players at equal cost: one of them
among ``expert`` seats, its margin per game, its rollouts per decision and its games per second.
"""
from __future__ import annotations

import time

import numpy as np

from gnoming_sim.experiments.heldout import HELD_OUT_FIRST, format_rows, held_out
from gnoming_sim.stats import Z95, mean_ci
from gnoming_sim.kernel.engine import simulate
from gnoming_sim.kernel.policy import registry

__all__ = ["mc_vs", "games_per_second", "format_rows", "mc_strategy", "equal_budget", "format_budget"]


def mc_strategy(budget: int | None = None, base: str | None = None, name: str | None = None):
    """The ``mc`` preset, or a copy with another budget / base policy (registered under ``name``)."""
    mc = registry.get("mc")
    if budget is None and base is None:
        return mc
    budget = int(mc.params["mc_budget"]) if budget is None else budget
    table = {"base": "mc", "mc_budget": budget, "description": f"mc, budget {budget}, base {base or registry.MC_BASE}"}
    if base is not None:
        table["policy"] = base
    # the TOML path: the same checks and the same parameters as a strategies file's mc strategy
    return registry.register(registry.from_dict(name or f"mc{budget}" + (f"-{base}" if base else ""), table))


def mc_vs(b: str = "expert", players=(3, 4, 5, 7), games: int = 200, seed: int = 0, budget: int | None = None,
          threads: int | None = None, pool=None, rules=None, deck=None) -> list[dict]:
    """One row per table size (as :func:`held_out`, 95% interval): MC minus ``b`` per game."""
    return held_out(mc_strategy(budget), b, players=players, games=games, seed=seed, rules=rules, deck=deck,
                    threads=threads, pool=pool, z=Z95)


def games_per_second(seats, players: int = 4, games: int = 64, seed: int = 0, threads: int | None = 1) -> float:
    """Games per second of ``games`` games with these seats (one strategy or one per seat), after a
    one-game warm-up that compiles (or loads) the kernel."""
    simulate(players=players, strategies=seats, games=1, seed=seed, threads=threads, first_game=HELD_OUT_FIRST)
    t0 = time.perf_counter()
    simulate(players=players, strategies=seats, games=games, seed=seed, threads=threads, rotate=True,
             first_game=HELD_OUT_FIRST)
    return games / (time.perf_counter() - t0)


def equal_budget(strategies=("mc", "mc64", "mcx"), players: int = 4, games: int = 1200, seed: int = 1,
                 b: str = "expert", threads: int | None = 1) -> list[dict]:
    """One row per Monte Carlo strategy X (a name, a Strategy, or ``mcN``: ``mc`` with N rollouts per
    option): X in one seat and ``b`` in the others, moving one seat per game, on held-out deals
    (global games from ``HELD_OUT_FIRST``; ``games`` rounded up to whole rotations).

    Each row: ``margin`` (per game, X's game score minus the mean of the ``b`` seats'; negative: X
    scores less) with its 95% interval ``lo``/``hi`` over ``games`` games; ``decisions`` (per game, the
    decisions X took by rollouts) and ``rollouts_per_decision``, in all and per kind (``by_kind``:
    kind -> (decisions per game, rollouts per decision)); ``games_per_second`` of that run (the kernel
    compiled beforehand) at ``threads``.
    """
    from gnoming_sim.search.cost import COST_NAMES, mc_cost

    rows = []
    n = players * -(-games // players)
    for x in strategies:
        if isinstance(x, str) and x not in registry.names() and x.startswith("mc") and x[2:].isdigit():
            x = mc_strategy(int(x[2:]))
        xs = registry.get(x)
        seats = [xs] + [b] * (players - 1)
        mc_cost(players, seats, games=1, seed=seed, first_game=HELD_OUT_FIRST, rotate=True, threads=threads)
        t0 = time.perf_counter()
        totals, cost, seat_strategy = mc_cost(players, seats, games=n, seed=seed, first_game=HELD_OUT_FIRST,
                                              rotate=True, threads=threads)
        wall = time.perf_counter() - t0
        seat_x = seat_strategy == 0   # seat_table lists X first
        tot = totals.astype(np.float64)
        diff = (tot * seat_x).sum(axis=1) - (tot * ~seat_x).sum(axis=1) / (players - 1)
        margin, lo, hi, count = mean_ci(diff, z=Z95)
        dec, rol = cost[:, 0::2].sum(axis=0), cost[:, 1::2].sum(axis=0)
        by_kind = {k: (float(dec[j] / n), float(rol[j] / dec[j]) if dec[j] else 0.0) for j, k in enumerate(COST_NAMES)}
        rows.append({"strategy": xs.name, "players": players, "games": count, "margin": margin, "lo": lo, "hi": hi,
                     "decisions": float(dec.sum() / n), "rollouts_per_decision": float(rol.sum() / max(1, dec.sum())),
                     "rollouts_per_game": float(rol.sum() / n), "by_kind": by_kind,
                     "games_per_second": n / wall, "seed": seed, "b": b})
    return rows


def format_budget(rows: list[dict]) -> str:
    """A text table of :func:`equal_budget` rows."""
    lines = [f"{'strategy':>12}  {'games':>6}  {'margin':>7}  {'95% interval':>17}  {'rollouts/dec':>12}  "
             f"{'dec/game':>8}  {'games/s':>8}"]
    for r in rows:
        lines.append(f"{r['strategy']:>12}  {r['games']:>6}  {r['margin']:>+7.2f}  [{r['lo']:+6.2f}, {r['hi']:+6.2f}]  "
                     f"{r['rollouts_per_decision']:>12.1f}  {r['decisions']:>8.1f}  {r['games_per_second']:>8.1f}")
    b = rows[0]["b"] if rows else "expert"
    lines.append(f"margin: the strategy's game score minus the mean of the {b} seats', per game (negative: it "
                 f"scores less); held-out deals of seed {rows[0]['seed'] if rows else '-'}")
    return "\n".join(lines) + "\n"
