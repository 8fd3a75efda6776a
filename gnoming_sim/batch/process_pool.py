"""Worker processes that never outlive the command: :func:`process_pool`.

A ``spawn`` worker of a plain ``ProcessPoolExecutor`` is not told when its parent dies: after a
``SIGKILL`` (or the kernel's out-of-memory killer) the compile workers went on, then waited forever
on a queue nobody fed, and kept multiprocessing's resource tracker alive (it ends when the last
holder of its pipe does), all three holding the caller's stdout and stderr (a capturing
caller waited 308 s).  Every worker of :func:`process_pool` runs :func:`die_with_parent` first:

- on Linux it asks the kernel to ``SIGKILL`` it when its parent dies (``prctl(PR_SET_PDEATHSIG)``).
  The kernel's "parent" is the *thread* that started the worker: the thread that submits to the
  pool (a spawn pool starts its workers on ``submit``) must outlive the pool, as a ``with`` block
  in that thread makes it;
- it then checks that its parent is still the process that made the pool (the parent may have died
  before the request was made), and leaves at once if not;
- and a watchdog thread checks every :data:`POLL_S` seconds, wherever there is no ``prctl``.

So however the parent dies, its workers are gone within a second, and with them the last holder of
the resource tracker's pipe: the tracker reads its end of file and exits too.
"""
from __future__ import annotations

import contextlib
import ctypes
import os
import signal
import sys
import threading
import time
from concurrent.futures import ProcessPoolExecutor
from multiprocessing import get_context

PR_SET_PDEATHSIG = 1   # <linux/prctl.h>
POLL_S = 0.25


def process_pool(workers: int) -> ProcessPoolExecutor:
    """A ``spawn`` pool of ``workers`` processes (never ``fork`` once numba's threads ran) that die with
    this process (see the module docstring)."""
    return ProcessPoolExecutor(workers, mp_context=get_context("spawn"), initializer=die_with_parent,
                               initargs=(os.getpid(),))


def die_with_parent(parent: int) -> None:
    """In a worker: be killed when ``parent`` (the process that made the pool) dies."""
    _death_signal()
    if os.getppid() != parent:   # it died before the kernel was asked
        os.kill(os.getpid(), signal.SIGKILL)
    threading.Thread(target=_watch, args=(parent,), name="gnoming-sim-lifeline", daemon=True).start()


def _death_signal() -> None:
    """``prctl(PR_SET_PDEATHSIG, SIGKILL)`` on Linux; nothing elsewhere (the watchdog covers it)."""
    if not sys.platform.startswith("linux"):
        return
    with contextlib.suppress(OSError, AttributeError):
        ctypes.CDLL(None, use_errno=True).prctl(PR_SET_PDEATHSIG, int(signal.SIGKILL), 0, 0, 0)


def _watch(parent: int) -> None:
    while os.getppid() == parent:
        time.sleep(POLL_S)
    os.kill(os.getpid(), signal.SIGKILL)
