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

# name -> (the module and function of the group's entry kernel, the Python that reaches it); longest first.
# What a group is, in words, and how long it takes, is compile_notice.GROUPS's entry for its kernel.
GROUPS = {
    "monte-carlo": ("gnoming_sim.search.bot", "play_range_mc",
                    "from gnoming_sim.cli.warmup import _monte_carlo; _monte_carlo()"),
    "every-family": ("gnoming_sim.kernel.game_loop", "play_range_base",
                     "from gnoming_sim.kernel.engine import simulate; simulate(4, ['learned', 'chart'] * 2, 2)"),
    "rollouts": ("gnoming_sim.search.rollout", "rollout_batch",
                 "from gnoming_sim.cli.warmup import _rollouts; _rollouts()"),
    "heuristic": ("gnoming_sim.kernel.game_loop", "play_range_hr",
                  "from gnoming_sim.kernel.engine import simulate; simulate(4, ['greedy', 'random'] * 2, 2)"),
}


def label(name: str) -> str:
    """A group in words (:func:`gnoming_sim.cli.compile_notice.group_label` of its entry kernel)."""
    from gnoming_sim.cli.compile_notice import group_label

    return group_label(GROUPS[name][1])


def cold(names) -> list[str]:
    """The groups of ``names`` not yet in the numba cache (their entry kernel's cache index is absent).
    numba keeps no public record of what it cached; ``Dispatcher._cache._cache_file._index_path`` is private
    (numba 0.68.x, pinned)."""
    from importlib import import_module

    out = []
    for name in names:
        module, function, _ = GROUPS[name]
        dispatcher = getattr(import_module(module), function)
        index = getattr(getattr(getattr(dispatcher, "_cache", None), "_cache_file", None), "_index_path", None)
        if index is None or not os.path.exists(index):
            out.append(name)
    return out


def ahead(names, say=print) -> float:
    """Compile the cold groups of ``names`` in parallel processes (both cores), before a command that needs
    them all compiles them one after the other; seconds spent (0 when all are cached)."""
    todo = cold(names)
    if not todo:
        return 0.0
    t0 = time.perf_counter()
    run(todo, say)
    return time.perf_counter() - t0


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


# a group that compiles most of another's kernels again follows it in the same process when both are cold:
# compiled beside "every-family", the rollouts group compiled its game loop (play_out_base) a second time
# (76 s against 14 s after it, report --quick from an empty cache)
FOLLOWS = {"rollouts": "every-family"}


def chains(names) -> list[list[str]]:
    """``names`` as chains compiled one after the other in one process each (:data:`FOLLOWS`), in order."""
    return [[n] + [m for m in names if FOLLOWS.get(m) == n] for n in names if FOLLOWS.get(n) not in names]


def _compile(chain: list[str]) -> list[tuple[str, float, float]]:
    done = []
    for name in chain:
        t0, c0 = time.perf_counter(), time.process_time()
        exec(GROUPS[name][2], {})
        done.append((name, time.perf_counter() - t0, time.process_time() - c0))
    return done


def run(names, say=print) -> None:
    """Compile the groups ``names``, a chain of them (:func:`chains`) per process, as many at a time as there
    are cores, longest first; a line per group."""
    todo = chains(list(names))
    workers = max(1, min(len(todo), os.cpu_count() or 1))
    t0 = time.perf_counter()
    say(f"gnoming-sim: compiling {len(names)} kernel groups on {workers} cores (once per install; "
        "cached for every later command)")
    with ProcessPoolExecutor(workers, mp_context=get_context("spawn")) as pool:
        jobs = [pool.submit(_compile, chain) for chain in todo]
        for job in as_completed(jobs):
            for name, wall, cpu in job.result():
                say(f"  {label(name)}: {wall:.0f} s ({cpu:.0f} s of CPU)")
    say(f"gnoming-sim: kernels ready in {time.perf_counter() - t0:.0f} s")


def main(argv=None) -> int:
    run(list(GROUPS) if not argv else argv, lambda line: print(line, flush=True))
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
