"""Compile the common kernel groups ahead, in parallel, so the first command starts at once:
``python -m gnoming_sim.cli.warmup`` (``make setup`` runs it).

Each group is compiled in a process of its own (``spawn``: never ``fork`` after numba's threads ran),
as many at a time as there are cores, longest first; every process writes the one numba cache the
installed command and the ``make`` targets read (:func:`gnoming_sim.kernel.jit.cache_root`), so a group
already there loads in about a second.  Prints one line per group with its seconds, then the total.
"""
from __future__ import annotations

import os
import sys
import time
from concurrent.futures import ProcessPoolExecutor, as_completed
from multiprocessing import get_context

# name -> (what it is, the Python that reaches it); longest first
GROUPS = {
    "monte-carlo": ("the Monte Carlo players' game loop (mc, mcx: the ladder's top, the studies)",
                    "from gnoming_sim.cli.warmup import _monte_carlo; _monte_carlo()"),
    "every-family": ("the game loop of every player family (learned, chart)",
                     "from gnoming_sim.kernel.engine import simulate; simulate(4, ['learned', 'chart'] * 2, 2)"),
    "rollouts": ("the rollouts of analyse, review and the studies",
                 "from gnoming_sim.cli.warmup import _rollouts; _rollouts()"),
    "heuristic": ("the game loop of the random and heuristic players",
                  "from gnoming_sim.kernel.engine import simulate; simulate(4, ['greedy', 'random'] * 2, 2)"),
}


def _monte_carlo():
    """One small game with a Monte Carlo seat (the bot's batch kernel and its rollouts compile)."""
    from gnoming_sim.experiments.mc_eval import mc_strategy
    from gnoming_sim.kernel.engine import simulate

    simulate(3, [mc_strategy(budget=2), "expert", "random"], 1, threads=1)


def _rollouts():
    """An analysis of the example position with a few rollouts (the rollout kernels compile)."""
    from pathlib import Path

    from gnoming_sim.game.position import from_toml
    from gnoming_sim.search.analyse import analyse

    here = Path(__file__).resolve().parents[2] / "examples" / "position.toml"
    if here.exists():
        analyse(from_toml(here), rollouts=8, threads=1)


def _compile(name: str) -> tuple[str, float, float]:
    t0, c0 = time.perf_counter(), time.process_time()
    exec(GROUPS[name][1], {})
    return name, time.perf_counter() - t0, time.process_time() - c0


def main(argv=None) -> int:
    names = list(GROUPS) if not argv else argv
    workers = max(1, min(len(names), os.cpu_count() or 1))
    t0 = time.perf_counter()
    print(f"gnoming-sim: compiling {len(names)} kernel groups on {workers} cores (once per install; "
          "cached for every later command)", flush=True)
    with ProcessPoolExecutor(workers, mp_context=get_context("spawn")) as pool:
        jobs = [pool.submit(_compile, n) for n in names]
        for job in as_completed(jobs):
            name, wall, cpu = job.result()
            print(f"  {GROUPS[name][0]}: {wall:.0f} s ({cpu:.0f} s of CPU)", flush=True)
    print(f"gnoming-sim: kernels ready in {time.perf_counter() - t0:.0f} s", flush=True)
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
