"""Compile the common kernel groups ahead, in parallel, so the first command starts at once:
``python -m gnoming_sim.cli.warmup`` (``make setup`` runs it).

The groups share kernels: every family's decisions (``dispatch.decide``) are called by the game loop, the
rollouts and the Monte Carlo player, and a round's play-out by the first two.  Compiled side by side, each
group compiled them again (the rollouts compiled the game loop's play-out a second time: 76 s against 14 s
after it).  So the shared kernels are *steps* of their own, compiled once, first; a group starts when the
steps it needs are in the cache and loads them from there.  Each step runs in a worker process
(:func:`gnoming_sim.batch.process_pool.process_pool`: ``spawn``, never ``fork`` after numba's threads ran,
and it dies with this process however this one dies), as many at a time as there are cores, the longest
chain first; every process writes the one numba cache the installed command and the ``make`` targets read
(:func:`gnoming_sim.kernel.jit.cache_root`), so a cached step is skipped.  Prints one line per step with
its seconds, then the total.
"""
from __future__ import annotations

import os
import sys
import threading
import time
from concurrent.futures import FIRST_COMPLETED, ProcessPoolExecutor, wait

from gnoming_sim.batch.process_pool import process_pool

# name -> (the module and function of the group's entry kernel, the Python that reaches it); the order they
# compile in is ORDER's.
# What a group is, in words, and how long it takes, is compile_notice.GROUPS's entry for its kernel.
GROUPS = {
    "monte-carlo": ("gnoming_sim.search.bot", "play_range_mc",
                    "from gnoming_sim.cli.warmup import _monte_carlo; _monte_carlo()"),
    "every-family": ("gnoming_sim.kernel.game_loop", "play_range_base",
                     "from gnoming_sim.kernel.engine import simulate; simulate(4, ['learned', 'card-starred'] * 2, 2)"),
    "rollouts": ("gnoming_sim.search.rollout", "rollout_batch",
                 "from gnoming_sim.cli.warmup import _rollouts; _rollouts()"),
    "heuristic": ("gnoming_sim.kernel.game_loop", "play_range_hr",
                  "from gnoming_sim.kernel.engine import simulate; simulate(4, ['greedy', 'random'] * 2, 2)"),
}

# the kernels several groups call, compiled once for the types the game loops pass (:func:`_shared`)
SHARED = {
    "decide": ("gnoming_sim.kernel.policy.dispatch", "decide",
               "from gnoming_sim.cli.warmup import _shared; _shared('decide')"),
    "play-out": ("gnoming_sim.kernel.game_loop", "play_out_base",
                 "from gnoming_sim.cli.warmup import _shared; _shared('play-out')"),
    "roll-on": ("gnoming_sim.search.rollout", "roll_on",
                "from gnoming_sim.cli.warmup import _shared; _shared('roll-on')"),
    "step": ("gnoming_sim.kernel.game_loop", "step_once",
             "from gnoming_sim.cli.warmup import _shared; _shared('step')"),
}
STEPS = SHARED | GROUPS

# the steps a step calls (compiled first, then loaded from the cache)
NEEDS = {"play-out": ("decide",), "roll-on": ("decide",), "monte-carlo": ("roll-on", "step"),
         "every-family": ("play-out",), "rollouts": ("play-out", "roll-on", "step")}

# the order a free core takes the steps that are ready: the longest chain first (seconds alone, after
# what they need, measured from an empty cache: decide 29, roll-on 7, monte-carlo 68; play-out 10,
# rollouts 12, every-family 5; heuristic 24; step 3)
ORDER = ("decide", "roll-on", "monte-carlo", "play-out", "heuristic", "step", "rollouts", "every-family")


def label(name: str) -> str:
    """A step in words (:func:`gnoming_sim.cli.compile_notice.group_label` of its entry kernel)."""
    from gnoming_sim.cli.compile_notice import group_label

    return group_label(STEPS[name][1])


def cold(names) -> list[str]:
    """The steps of ``names`` not yet in the numba cache (their entry kernel's cache index is absent), or all of
    them where numba caches our kernels itself (:func:`gnoming_sim.kernel.disk_cache.cached`)."""
    from importlib import import_module

    from gnoming_sim.kernel.disk_cache import cached

    return [name for name in names if not cached(getattr(import_module(STEPS[name][0]), STEPS[name][1]))]


def plan(names, is_cold=None) -> list[str]:
    """The steps that compile the groups ``names``: each with the shared steps it needs, the cached ones
    left out, in :data:`ORDER`."""
    want: set[str] = set()

    def add(name):
        if name not in want:
            want.add(name)
            for need in NEEDS.get(name, ()):
                add(need)

    for name in names:
        add(name)
    todo = set((is_cold or cold)(sorted(want)))
    return [name for name in ORDER if name in todo]


def _monte_carlo():
    """One small game with a Monte Carlo seat (the bot's batch kernel and its rollouts compile)."""
    from gnoming_sim.experiments.mc_eval import mc_strategy
    from gnoming_sim.kernel.engine import simulate

    simulate(3, [mc_strategy(budget=2), "expert", "random"], 1, threads=1)


def _rollouts():
    """An analysis of the example position with a few rollouts (the rollout kernels compile)."""
    from pathlib import Path

    from gnoming_sim.game.position import from_toml
    from gnoming_sim.search.estimates import estimate

    here = Path(__file__).resolve().parents[2] / "examples" / "position.toml"
    if here.exists():
        estimate(from_toml(here), rollouts=8, threads=1)


def signature(name: str) -> tuple:
    """The numba types the callers of the shared kernel ``name`` (:data:`SHARED`) pass: one game's table
    (as :func:`gnoming_sim.kernel.state.new_table` makes it) and the rules array; a rollout's round also the
    stepped draw source, placement and hazard flip (int64) and the luck array (float64); a step the action
    (int64)."""
    import numpy as np
    from numba import typeof, types

    from gnoming_sim.game.rules import RuleConfig
    from gnoming_sim.kernel.policy.dispatch import N_PARAMS, new_memo
    from gnoming_sim.kernel.state import new_table

    t = new_table(2, 60, np.zeros(1, dtype=np.int64), np.zeros((1, N_PARAMS)), np.zeros(2, dtype=np.int16),
                  np.zeros((0, 4), dtype=np.int32), new_memo())
    sig = (typeof(t), typeof(RuleConfig().to_array()))
    if name == "roll-on":
        return sig + (types.int64,) * 3 + (types.float64[::1],)
    if name == "step":
        return sig + (types.int64,)
    return sig


def _shared(name: str) -> None:
    """Compile the shared kernel ``name`` of :data:`SHARED` for the types its callers pass (:func:`signature`)."""
    from importlib import import_module

    module, function, _ = SHARED[name]
    kernel = getattr(import_module(module), function)
    if hasattr(kernel, "compile"):   # else NUMBA_DISABLE_JIT: a plain function
        kernel.compile(signature(name))


def _compile(name: str) -> tuple[float, float]:
    t0, c0 = time.perf_counter(), time.process_time()
    exec(STEPS[name][2], {})
    return time.perf_counter() - t0, time.process_time() - c0


class Compiling:
    """The cold steps of some groups (:func:`plan`), compiled in worker processes, as many at a time as there
    are cores, each when what it needs is compiled, the longest chain first; a line per step.

    :meth:`run` blocks until all are compiled; :meth:`start` compiles in the background while the caller
    goes on, asking :meth:`ready` / :meth:`wait_any` which groups it may use (a command that uses a group
    before it is ready compiles it itself: slower, never wrong) and :meth:`close` at its end."""

    def __init__(self, names, say=print):
        self.names = list(names)
        self.steps = plan(self.names)
        self.say = say
        self.done: set[str] = set()
        self.error: BaseException | None = None
        self._cond = threading.Condition()
        self._pool: ProcessPoolExecutor | None = None
        self._thread: threading.Thread | None = None

    def run(self) -> None:
        if not self.steps:
            self.say(f"gnoming-sim: {_count(len(self.names), 'the kernel group is', 'the {} kernel groups are')} "
                     "compiled and cached")
            return
        workers = max(1, min(len(self.steps), os.cpu_count() or 1))
        t0 = time.perf_counter()
        self.say(announcement(self.steps, workers))
        pending, running = list(self.steps), {}
        with process_pool(workers) as pool:   # its workers die with this process, however it dies
            self._pool = pool
            while pending or running:
                for name in [n for n in pending if self.ready(NEEDS.get(n, ()))]:
                    if len(running) < workers:
                        running[pool.submit(_compile, name)] = name
                        pending.remove(name)
                if not running:   # cannot happen (a step's needs are steps here or cached); never spin
                    raise RuntimeError(f"kernel steps {pending} wait for steps that are not compiling")
                finished, _ = wait(running, return_when=FIRST_COMPLETED)
                for job in finished:
                    name = running.pop(job)
                    wall, cpu = job.result()
                    with self._cond:
                        self.done.add(name)
                        self._cond.notify_all()
                    self.say(f"  {label(name)}: {wall:.0f} s ({cpu:.0f} s of CPU)")
        self.say(f"gnoming-sim: kernels ready in {time.perf_counter() - t0:.0f} s")

    def start(self) -> "Compiling":
        """:meth:`run` in a thread of its own; returns at once."""
        def body():
            try:
                self.run()
            except BaseException as exc:   # a worker died or was stopped: the caller compiles what it uses
                with self._cond:
                    self.error = exc
                    self._cond.notify_all()

        self._thread = threading.Thread(target=body, name="gnoming-sim-warmup", daemon=True)
        self._thread.start()
        return self

    def ready(self, groups) -> bool:
        """Whether the groups (or steps) ``groups`` are compiled (or not this one's to compile, or it failed)."""
        return self.error is not None or all(g in self.done or g not in self.steps for g in groups)

    def wait_any(self, needs) -> int:
        """The index of the first of ``needs`` (each a sequence of groups) that is :meth:`ready`, once one is."""
        with self._cond:
            self._cond.wait_for(lambda: any(self.ready(n) for n in needs))
            return next(i for i, n in enumerate(needs) if self.ready(n))

    def close(self, ok: bool = True) -> None:
        """Wait for the compiles to end; unless ``ok`` (the command failed or was interrupted), stop them."""
        if self._thread is None:
            return
        if not ok and self._pool is not None:
            # the pool waits for its running jobs on shutdown; a stopped command ends its compiles now
            # (ProcessPoolExecutor keeps its worker processes in a private dict, CPython 3.11-3.14)
            for process in list(getattr(self._pool, "_processes", {}).values()):
                process.terminate()
        self._thread.join()
        if ok and self.error is not None:
            self.say(f"gnoming-sim: compiling ahead stopped ({type(self.error).__name__}); "
                     "each kernel was compiled where it was first used")


def _count(n: int, one: str, many: str) -> str:
    return one if n == 1 else many.format(n)


def announcement(steps, workers: int) -> str:
    """The line that opens a compile of ``steps``: as many steps as lines follow it, and what they are (`make
    setup` said "compiling 4 kernel groups" and printed 8 step lines: the groups and the 4 kernels they share)."""
    groups = sum(name in GROUPS for name in steps)
    shared = len(steps) - groups
    what = [_count(groups, "1 kernel group", "{} kernel groups")] if groups else []
    if shared:
        what.append(_count(shared, "1 kernel", "{} kernels") + (" they share" if groups > 1 else " it shares"
                                                                 if groups else " the groups share"))
    return (f"gnoming-sim: compiling {_count(len(steps), '1 kernel step', '{} kernel steps')} on "
            f"{_count(workers, '1 core', '{} cores')} ({' and '.join(what)}, a line each; once per install, "
            "cached for every later command)")


def run(names, say=print) -> None:
    """Compile the groups ``names`` and the shared steps they need (:class:`Compiling`), then return."""
    Compiling(names, say).run()


def start(names, say=print) -> Compiling:
    """Compile the cold groups of ``names`` in the background (:meth:`Compiling.start`); silent, and no
    thread, when all are cached."""
    compiling = Compiling(names, say)
    return compiling.start() if compiling.steps else compiling


def main(argv=None) -> int:
    run(list(GROUPS) if not argv else argv, lambda line: print(line, flush=True))
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
