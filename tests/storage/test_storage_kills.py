"""A kill at every disk call of a batch run (part writes, syncs and renames, the merged file, its rename),
then ``--resume``: nothing finished is lost and ``out`` is never a broken file.

The run is forked and ended with ``os._exit`` at its N-th disk call: no cleanup runs, as after
SIGKILL or a power cut of the process.  The forked run plays no game itself (its chunks are
played beforehand, in this process), so the kernels' threads are never forked.

The test worker that forks is multi-threaded (pytest-xdist's channel threads, and whatever an earlier
test file left running): a lock another thread held at the fork is held forever in the child, which can
then wait on it.  An unbounded ``waitpid`` on such a child stalled a whole CI run (2,474 of 2,478 items,
the last four of them this file's).  So a child gets :data:`CHILD_BUDGET` seconds (it needs well under
one); one still running is killed and its fault point set up and run again, and a fault point whose
child is stuck :data:`ATTEMPTS` times fails the test by name.
"""
from __future__ import annotations

import os
import signal
import time
import types

import pytest

from gnoming_sim.analyses import report as report_module
from gnoming_sim.analyses.hazard_risk import HazardRisk
from gnoming_sim.batch.batch_writer import remove_partial
from gnoming_sim.batch.runner import Batch, BatchSpec, Chunk, play_chunk, run_batch
from gnoming_sim.batch.safe_folder import MANIFEST
from gnoming_sim.game.errors import GnomingError
from gnoming_sim.kernel.policy import registry
from _storage import Faults, rows, run_cli

SPEC = BatchSpec.make(3, ["random"], 300, 1)
CHILD_BUDGET = 60.0   # seconds a forked run may take (it ends at its N-th disk call, well under a second)
ATTEMPTS = 3          # forks of one fault point before a stuck child fails the test


def _reap(pid: int) -> int | None:
    """The exit code of child ``pid``, or None if it was still running after :data:`CHILD_BUDGET` seconds
    (then it is killed and reaped)."""
    deadline = time.monotonic() + CHILD_BUDGET
    while True:
        done, status = os.waitpid(pid, os.WNOHANG)
        if done:
            return os.waitstatus_to_exitcode(status)
        if time.monotonic() > deadline:
            os.kill(pid, signal.SIGKILL)
            os.waitpid(pid, 0)
            return None
        time.sleep(0.005)


def _forked(child, setup, what: str):
    """Run ``child()`` (which ends the process) in a fork after ``setup(attempt)``; (its exit code, what that
    setup returned).  A fork stuck past the budget (see the module's docstring) is killed, and the point set
    up (attempt 1, 2, ...) and forked again."""
    for attempt in range(ATTEMPTS):
        state = setup(attempt)
        pid = os.fork()
        if pid == 0:   # pragma: no cover - the child
            code = 3
            try:
                code = child()
            finally:
                os._exit(code)
        code = _reap(pid)
        if code is not None:
            return code, state
    pytest.fail(f"{what}: the forked run was stuck {ATTEMPTS} times for {CHILD_BUDGET:.0f} s")


class _Played:
    """A pool handing out chunks played beforehand."""

    def __init__(self, parts):
        self.parts = {p.first_game: p for p in parts}

    def play(self, chunks):
        for chunk in chunks:
            yield self.parts[chunk.first_game]


@pytest.fixture(scope="module")
def played():
    strategies = tuple(registry.get(n) for n in SPEC.seats)
    return _Played([play_chunk(Chunk(SPEC, strategies, lo, 100), threads=1) for lo in (0, 100, 200)])


def _killed_run(out, played, fail_at, setup, **options):
    """Run the batch in a fork killed at its ``fail_at``-th disk call, after ``setup(attempt)``; (the fork's
    exit code, what the setup returned)."""
    def child() -> int:
        Faults(types.SimpleNamespace(setattr=setattr), fail_at=fail_at, kill=True)
        Batch(SPEC, out, chunk_size=100, **options).run(pool=played, threads=1)
        return 0

    return _forked(child, setup, f"the batch killed at disk call {fail_at}")


def _count_calls(monkeypatch, out, played, **options) -> int:
    counter = Faults(monkeypatch)
    Batch(SPEC, out, chunk_size=100, **options).run(pool=played, threads=1)
    n = len(counter.calls)
    Faults(monkeypatch)
    return n


@pytest.mark.parametrize("mode", [pytest.param("fresh", marks=pytest.mark.slow), pytest.param("force", marks=pytest.mark.slow), pytest.param("resume", marks=pytest.mark.slow)])
def test_a_kill_at_every_disk_call_loses_nothing(tmp_path, monkeypatch, played, mode):
    out, ref = tmp_path / "g.parquet", tmp_path / "ref.parquet"
    run_batch(SPEC, ref, chunk_size=100, threads=1)
    options = {"fresh": {}, "force": {"force": True}, "resume": {"resume": True}}[mode]

    def setup():
        for p in tmp_path.iterdir():
            if p.name != "ref.parquet":
                remove_partial(p)   # a file, or the partial folder of parts
        if mode == "force":     # another batch's file, to be replaced
            run_batch(BatchSpec.make(3, ["random"], 300, 9), out, chunk_size=100, threads=1)
        elif mode == "resume":  # this batch, interrupted after its first chunk
            run_batch(SPEC, out, chunk_size=100, stop_after_chunks=1, threads=1)
        return out.read_bytes() if out.exists() else None

    setup()
    calls = _count_calls(monkeypatch, out, played, **options)
    kept = []
    for n in range(1, calls + 1):
        code, before = _killed_run(out, played, n, lambda attempt: setup(), **options)
        assert code == 137
        if out.exists() and out.read_bytes() != before:   # only ever the old file or the complete new one
            assert rows(out).equals(rows(ref)), n
        try:
            outcome = run_batch(SPEC, out, resume=True, chunk_size=100, threads=1)
        except GnomingError as exc:   # the old file of another batch, and no game kept: start over
            assert mode == "force" and "--force" in str(exc), (n, exc)
            outcome = run_batch(SPEC, out, force=True, chunk_size=100, threads=1)
        assert rows(out).equals(rows(ref)), n
        assert sorted(p.name for p in tmp_path.iterdir()) == ["g.parquet", "ref.parquet"], n
        kept.append(outcome.resumed_games)
    assert kept == sorted(kept), kept                 # a later kill never keeps less
    assert {100, 200} <= set(kept) and kept[-1] == 300, kept   # every finished chunk is kept


class _Nothing(HazardRisk):
    """A study that plays nothing: a report in a fraction of a second."""

    def design(self, ctx):
        return []


def _killed_report(fail_at: int, setup):
    """``report --quick --out r`` in a fork killed at its ``fail_at``-th disk call, after ``setup(attempt)``;
    (the fork's exit code, what the setup returned)."""
    def child() -> int:
        Faults(types.SimpleNamespace(setattr=setattr), fail_at=fail_at, kill=True)
        return run_cli("report", "--quick", "--out", "r", "--force").exit_code

    return _forked(child, setup, f"the report killed at disk call {fail_at}")


@pytest.mark.parametrize("foreign", [False, pytest.param(True, marks=pytest.mark.slow)])
def test_a_kill_at_every_disk_call_of_a_report_loses_nothing(in_tmp, monkeypatch, foreign):
    """Killed while writing or publishing, the folder holds the old report or the new one (with a
    file of the user's: kept, and possibly old and new files side by side); the next run tidies up."""
    monkeypatch.setattr(report_module, "STUDIES", (_Nothing(),))
    assert run_cli("report", "--quick", "--out", "r").exit_code == 0
    if foreign:
        (in_tmp / "r" / "notes.md").write_text("mine")
    counter = Faults(monkeypatch)
    assert run_cli("report", "--quick", "--out", "r", "--force").exit_code == 0
    calls = len(counter.calls)
    Faults(monkeypatch)
    report_files = sorted(os.listdir(in_tmp / "r"))
    def tidy(attempt):   # before a second fork of a point: the next run tidies up after the stuck one
        if attempt:
            assert run_cli("report", "--quick", "--out", "r", "--force").exit_code == 0

    for n in range(1, calls + 1):
        assert _killed_report(n, tidy)[0] == 137
        if (in_tmp / "r").exists():   # else set aside mid-swap: the next run puts it back first
            assert set(report_files) <= set(os.listdir(in_tmp / "r")) | ({MANIFEST} if foreign else set()), n
        assert run_cli("report", "--quick", "--out", "r", "--force").exit_code == 0
        assert sorted(os.listdir(in_tmp / "r")) == report_files, n
        assert sorted(os.listdir(in_tmp)) == ["r"], n
        if foreign:
            assert (in_tmp / "r" / "notes.md").read_text() == "mine"
