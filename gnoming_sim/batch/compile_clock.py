"""How long numba spent compiling this project's kernels during a run, so that a throughput figure
never counts the compile (a cold cache once made 1,000 games read as 4 games/s).

numba fires its ``numba:compile`` event around every real compile (never on a load from the cache);
a compile entered while another is open belongs to it, so only the outermost ones are summed.
"""
from __future__ import annotations

import contextlib
import time

_OURS = "gnoming_sim"


def dispatcher_of(ev):
    """The jitted function a ``numba:compile`` event is about, and whether it is this project's."""
    dispatcher = (ev.data or {}).get("dispatcher")
    module = getattr(dispatcher, "__module__", None) or ""
    return dispatcher, module.split(".")[0] == _OURS


class CompileClock:
    """Seconds numba spent compiling our functions (outermost compiles only) while installed."""

    def __init__(self):
        self.seconds = 0.0
        self._depth = 0
        self._started = 0.0
        self._ours = False

    def _start(self, ev):
        self._depth += 1
        if self._depth == 1:
            self._ours = dispatcher_of(ev)[1]
            self._started = time.perf_counter()

    def _end(self, ev):
        self._depth -= 1
        if self._depth == 0 and self._ours:
            self.seconds += time.perf_counter() - self._started


@contextlib.contextmanager
def compile_clock():
    """``with compile_clock() as clock: ...``; then ``clock.seconds``."""
    from numba.core import event

    clock = CompileClock()

    class _Listener(event.Listener):
        def on_start(self, ev):
            clock._start(ev)

        def on_end(self, ev):
            clock._end(ev)

    with event.install_listener("numba:compile", _Listener()):
        yield clock
