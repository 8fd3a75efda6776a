"""The notice that the kernels are being compiled, for every command and every kernel.

A cold numba cache makes the first call of a kernel compile for tens of seconds; without a
word the run looks frozen.  Rather than guess beforehand which kernels a command will call
(a guess that missed the rollout kernels of ``analyse``), a listener on numba's
``numba:compile`` event prints the notice the moment numba starts to compile one of this
project's functions, once per command.  numba fires that event only on a real compile, never
when it loads a kernel from its cache, so a warm cache prints nothing.
"""
from __future__ import annotations

from typing import Callable

COLD_CACHE_NOTICE = "compiling the game kernels (first run after an install or an update, about a minute)"
_OURS = "gnoming_sim"


def _listener_class():
    from numba.core import event

    class _FirstCompile(event.Listener):
        """Prints the notice when numba starts to compile the first of our functions."""

        def __init__(self):
            self.told = False
            self.say: Callable[[str], None] = print

        def on_start(self, ev):
            if self.told:
                return
            dispatcher = (ev.data or {}).get("dispatcher")
            module = getattr(dispatcher, "__module__", None) or ""
            if module.split(".")[0] != _OURS:
                return   # another library's function: not ours to announce
            self.told = True
            self.say(COLD_CACHE_NOTICE)

        def on_end(self, ev):
            pass

    return _FirstCompile


_installed = None


def install(say: Callable[[str], None]):
    """Arm the notice for one command: ``say(COLD_CACHE_NOTICE)`` at its first compile.

    The listener is registered with numba once per process; each call re-arms it (a process
    that runs several commands, as the tests do, gets the notice once per command)."""
    global _installed
    if _installed is None:
        from numba.core import event

        _installed = _listener_class()()
        event.register("numba:compile", _installed)
    _installed.told = False
    _installed.say = say
    return _installed
