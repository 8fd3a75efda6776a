"""What a command says while numba compiles the kernels it needs, for every command and every kernel.

A cold numba cache makes the first call of a kernel compile for tens of seconds; without a
word the run looks frozen.  Rather than guess beforehand which kernels a command will call
(a guess that missed the rollout kernels of ``analyse``), a listener on numba's
``numba:compile`` event speaks the moment numba starts to compile one of this project's
functions: once per command, the notice, with the measured time of the kernel group it starts
with; then, as each kernel group (a compile entered from Python, with everything it calls)
is ready, one line with its elapsed seconds.  numba fires that event only on a real compile,
never when it loads a kernel from its cache, so a warm cache prints nothing.

The seconds in :data:`GROUPS` are measured: ``python -m gnoming_sim.warmup`` (what ``make setup``
runs) compiles each group in a fresh cache and prints them; ``make bench`` prints them too.
"""
from __future__ import annotations

import time
from typing import Callable

COLD_CACHE_NOTICE = ("compiling the game kernels this command needs (once after an install or an update; "
                     "`make setup` compiles the common ones ahead)")

# a kernel group, by the function Python calls: (what it is, seconds to compile it alone with an empty
# cache, measured on one core of the project's 2-core machine by gnoming_sim.warmup)
GROUPS = {
    "play_range_hr": ("the game loop of the random and heuristic players", 25),
    "play_range_base": ("the game loop of every player family", 55),
    "rollout_batch": ("the rollouts of analyse, review and the studies", 85),
    "play_range_mc": ("the Monte Carlo players' game loop", 115),
    # the kernels those groups share, which `make setup` compiles once, first (gnoming_sim.cli.warmup.SHARED);
    # no command enters them from Python
    "decide": ("the decisions of every player family", 30),
    "play_out_base": ("a round played on by every player family", 40),
    "roll_on": ("a rollout's round", 40),
    "step_once": ("one step of the turn, for the search paths", 5),
}


# kernels a command may enter from Python besides the groups (none of them takes more than a few seconds)
OTHER_KERNELS = {
    "_settle_each": "the win credit of games read from a file",   # kernel.win_credit: report --from, standings
}


def group_label(qualname: str) -> str:
    """Words for a kernel group: its entry in :data:`GROUPS` or :data:`OTHER_KERNELS`, else the function's
    name in words (``_play_one`` -> ``the kernel play_one``)."""
    entry = GROUPS.get(qualname)
    if entry:
        return entry[0]
    return OTHER_KERNELS.get(qualname) or f"the kernel {qualname.strip('_') or qualname}"


def seconds_text(seconds: float) -> str:
    """``12 s``; ``under 1 s`` below a second (a compile of 0.3 s is not "0 s")."""
    return f"{seconds:.0f} s" if seconds >= 0.5 else "under 1 s"


def notice_text(qualname: str) -> str:
    """The notice for a command whose first compile is of ``qualname``."""
    entry = GROUPS.get(qualname)
    if entry is None:
        return COLD_CACHE_NOTICE
    return f"{COLD_CACHE_NOTICE}: {entry[0]} first, about {entry[1]} s on one core"


def _listener_class():
    from numba.core import event

    from gnoming_sim.batch.compile_clock import dispatcher_of

    class _Compiles(event.Listener):
        """The notice at the first compile of ours, then a line per finished kernel group."""

        def __init__(self):
            self.told = False
            self.say: Callable[[str], None] = print
            self.depth = 0
            self.started = 0.0
            self.group = ""

        def on_start(self, ev):
            dispatcher, ours = dispatcher_of(ev)
            self.depth += 1
            if self.depth > 1 or not ours:
                return   # inside a group, or another library's function: not ours to announce
            self.group = (getattr(dispatcher, "__qualname__", "") or "").rsplit(".", 1)[-1]
            self.started = time.perf_counter()
            if not self.told:
                self.told = True
                self.say(notice_text(self.group))

        def on_end(self, ev):
            self.depth -= 1
            if self.depth == 0 and self.group:
                self.say(f"  compiled {group_label(self.group)} in {seconds_text(time.perf_counter() - self.started)}")
                self.group = ""

    return _Compiles


_installed = None


def install(say: Callable[[str], None]):
    """Arm the notice for one command: ``say(...)`` at its first compile, then a line per kernel group.

    The listener is registered with numba once per process; each call re-arms it (a process
    that runs several commands, as the tests do, gets the notice once per command)."""
    global _installed
    if _installed is None:
        from numba.core import event

        _installed = _listener_class()()
        event.register("numba:compile", _installed)
    _installed.told = False
    _installed.say = say
    _installed.depth = 0
    _installed.group = ""
    return _installed
