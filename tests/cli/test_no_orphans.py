"""Nothing left running: a command killed with SIGKILL leaves no process behind.

Before: ``NUMBA_CACHE_DIR=$(mktemp -d) gnoming-sim report --quick --out r & sleep 45; kill -9 $!``
left multiprocessing's resource tracker and the 2 compile workers running, deadlocked, holding the
caller's stdout and stderr (a capturing caller waited 308 s).  Now every worker dies with its parent
(:mod:`gnoming_sim.batch.process_pool`) and the tracker, its pipe closed, ends with them.

Each case starts a command on a cold kernel cache (a temporary ``NUMBA_CACHE_DIR``: the compile
workers start at once) with its output captured through pipes, waits for its worker processes to
appear, kills it at a moment, and then requires, within 5 s: end of file on both pipes, and no
process carrying the case's marker (an environment variable every child inherits).
"""
from __future__ import annotations

import os
import signal
import subprocess
import sys
import threading
import time
import uuid
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
GRACE_S = 5.0


def _ours(marker: str) -> list[int]:
    """The pids of the processes whose environment holds ``marker``."""
    found = []
    for entry in os.listdir("/proc"):
        if entry.isdigit():
            try:
                with open(f"/proc/{entry}/environ", "rb") as fh:
                    if marker.encode() in fh.read().split(b"\0"):
                        found.append(int(entry))
            except OSError:
                continue
    return found


def _drain(stream, done: threading.Event) -> None:
    while stream.read(65536):
        pass
    done.set()


def _kill_at(tmp_path: Path, args: list[str], after_workers_s: float, workers: int = 2) -> None:
    """Run ``args``, SIGKILL it ``after_workers_s`` seconds after its ``workers`` worker processes (and the
    resource tracker) appear; then check the pipes and the process table (see the module docstring)."""
    key = f"GNOMING_SIM_ORPHAN_TEST={uuid.uuid4().hex}"
    env = dict(os.environ, NUMBA_CACHE_DIR=str(tmp_path / "cold-cache"), GNOMING_SIM_ORPHAN_TEST=key.split("=")[1])
    proc = subprocess.Popen([sys.executable, *args], cwd=tmp_path, env=env, stdout=subprocess.PIPE,
                            stderr=subprocess.PIPE)
    ends = [threading.Event(), threading.Event()]
    readers = [threading.Thread(target=_drain, args=(stream, done), daemon=True)
               for stream, done in zip((proc.stdout, proc.stderr), ends)]
    for reader in readers:
        reader.start()
    left: list[int] = []
    try:
        deadline = time.monotonic() + 120
        while len(_ours(key)) < 2 + workers:   # the command, the tracker and its workers
            assert proc.poll() is None, f"{args} ended before its workers started (exit {proc.returncode})"
            assert time.monotonic() < deadline, f"{args}: its worker processes never appeared"
            time.sleep(0.1)
        time.sleep(after_workers_s)
        assert proc.poll() is None, f"{args} ended before it was killed"
        proc.send_signal(signal.SIGKILL)
        proc.wait()
        end = time.monotonic() + GRACE_S
        while (left := [p for p in _ours(key) if p != proc.pid]) and time.monotonic() < end:
            time.sleep(0.1)
        assert not left, f"{len(left)} processes of {args} still run {GRACE_S:.0f} s after it was killed"
        assert all(done.wait(max(0.0, end - time.monotonic())) for done in ends), \
            "the caller's stdout or stderr is still held open"
    finally:
        for pid in _ours(key):   # only this case's processes: its marker is in their environment
            try:
                os.kill(pid, signal.SIGKILL)
            except ProcessLookupError:
                pass
        if proc.poll() is None:
            proc.kill()
            proc.wait()
        for reader in readers:   # end of file once every holder of the pipes is gone
            reader.join(30)
        proc.stdout.close()
        proc.stderr.close()


@pytest.mark.slow
@pytest.mark.skipif(not sys.platform.startswith("linux"), reason="reads /proc")
@pytest.mark.parametrize("after_s", [0.0, 4.0], ids=["as-the-workers-start", "while-they-compile"])
def test_a_killed_warmup_leaves_nothing_running(tmp_path, after_s):
    _kill_at(tmp_path, ["-m", "gnoming_sim.cli.warmup"], after_s)


@pytest.mark.slow
@pytest.mark.skipif(not sys.platform.startswith("linux"), reason="reads /proc")
def test_a_killed_report_leaves_nothing_running(tmp_path):
    """report --quick on a cold cache: the studies run while the workers compile the other groups."""
    _kill_at(tmp_path, ["-m", "gnoming_sim", "report", "--quick", "--out", "r"], 12.0)
