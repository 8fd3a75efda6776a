"""The Monte Carlo player measured: against a heuristic on paired deals, and its games per second.

:func:`mc_vs` is :func:`gnoming_sim.experiments.heldout.held_out` with a 95% interval: the seats
alternate MC, B, MC, ... and move one seat per game on deals tuning never played, so the
unit is the game (per game, the MC seats' mean game score minus the B seats').
:func:`games_per_second` times a batch at one table (the kernels compiled beforehand).
"""
from __future__ import annotations

import time

from gnoming_sim.experiments.heldout import HELD_OUT_FIRST, format_rows, held_out
from gnoming_sim.batch.stats import Z95
from gnoming_sim.kernel.engine import simulate
from gnoming_sim.kernel.policy import registry

__all__ = ["mc_vs", "games_per_second", "format_rows", "mc_strategy"]


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
