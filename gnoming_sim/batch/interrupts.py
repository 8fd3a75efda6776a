"""SIGINT and SIGTERM while a batch runs: the first stops after the block in progress, a
second stops at once."""
from __future__ import annotations

import os
import signal
import threading
from typing import Callable


class Interrupts:
    """Catch SIGINT and SIGTERM while a batch runs (main thread only).

    The first signal sets ``signum``: the batch stops after the running block of games
    (see :func:`play_chunk`) and keeps every game played.  ``notice(text)`` tells the user
    at once.  A second signal stops at once: while a chunk is being played it raises
    KeyboardInterrupt there (the chunk in progress is dropped, nothing partial is written);
    at any other moment the batch is about to stop anyway.
    """

    def __init__(self, notice: Callable[[str], None] | None = None):
        self.signum = None
        self.count = 0
        self.waiting = False   # True while the batch waits for a chunk: a second signal may abort it
        self.notice = notice
        self._old = {}
        self._wakeup = None    # (read end, write end, previous wakeup fd)

    def _handle(self, signum, frame):
        # Python runs a handler once however often a signal arrived while the kernel ran (two
        # Ctrl-C in one block): the wakeup fd gets a byte per delivery, so count those
        self.count += max(1, self._deliveries())
        if self.signum is None:
            self.signum = signum
            if self.notice is not None:
                again = "Ctrl-C again" if signum == signal.SIGINT else "send it again"
                self.notice(f"{signal.Signals(signum).name}: stopping after the current block of games; "
                            f"{again} to stop now")
        if self.count >= 2 and self.waiting:
            raise KeyboardInterrupt

    def _deliveries(self) -> int:
        """SIGINT and SIGTERM deliveries since the last call (0 without a wakeup fd)."""
        if self._wakeup is None:
            return 0
        try:
            data = os.read(self._wakeup[0], 4096)
        except (BlockingIOError, InterruptedError):
            return 0
        return sum(b in (signal.SIGINT, signal.SIGTERM) for b in data)

    @property
    def stop_requested(self) -> bool:
        return self.signum is not None

    def __enter__(self):
        if threading.current_thread() is threading.main_thread():
            for sig in (signal.SIGINT, signal.SIGTERM):
                self._old[sig] = signal.signal(sig, self._handle)
            r, w = os.pipe()
            os.set_blocking(r, False)
            os.set_blocking(w, False)
            previous = signal.set_wakeup_fd(w, warn_on_full_buffer=False)
            if previous != -1:   # someone else's (an event loop's): leave it theirs
                signal.set_wakeup_fd(previous)
                os.close(r)
                os.close(w)
            else:
                self._wakeup = (r, w)
        return self

    def __exit__(self, *exc):
        if self._wakeup is not None:
            signal.set_wakeup_fd(-1)
            for fd in self._wakeup:
                os.close(fd)
            self._wakeup = None
        for sig, old in self._old.items():
            signal.signal(sig, old)
        return False
