"""Output folders and signals: SIGTERM during ``report --from``, a file name that is not UTF-8,
the permissions of a report folder, and two Ctrl-C within one block of games."""
from __future__ import annotations

import os
import signal
import stat
import subprocess
import sys
import threading
import time

import pytest

from gnoming_sim.analyses import report as report_module
from gnoming_sim.analyses.hazard_risk import HazardRisk
from gnoming_sim.batch.runner import BatchSpec, run_batch
from _storage import SIM, assert_one_line_exit2, run_cli


def test_sigterm_during_report_from_leaves_no_partial_folder(in_tmp, monkeypatch):
    assert run_cli(*SIM, "--out", "b.parquet").exit_code == 0

    def terminated(*args, **kwargs):
        os.kill(os.getpid(), signal.SIGTERM)   # the handler raises before kill() returns to Python
        raise AssertionError("SIGTERM did not stop the report")

    monkeypatch.setattr("gnoming_sim.batch.scan.scan_batch", terminated)
    result = run_cli("report", "--from", "b.parquet", "--out", "r")
    assert result.exit_code == 143, result.output
    assert result.stderr.strip() == "gnoming-sim: interrupted; nothing was written to r"
    assert sorted(os.listdir(in_tmp)) == ["b.parquet"]


@pytest.mark.slow
def test_a_file_name_that_is_not_utf8_is_one_line(tmp_path):
    """Run as a user would, in a subprocess: the name reaches Python as surrogate escapes."""
    name = os.fsdecode(b"\xff\xfe.parquet")
    cmd = [sys.executable, "-m", "gnoming_sim"]
    proc = subprocess.run([*cmd, "report", "--from", name], cwd=tmp_path, capture_output=True, timeout=300)
    assert proc.returncode == 2, proc.stderr
    err = proc.stderr.decode()
    # refused by name (cli.options.check_input_file) or found missing: one line either way
    assert len(err.splitlines()) == 1 and "\\xff\\xfe.parquet" in err and "Traceback" not in err
    proc = subprocess.run([*cmd, *SIM, "--out", name, "--report", os.fsdecode(b"r\xff")], cwd=tmp_path,
                          capture_output=True, timeout=300)
    assert proc.returncode == 0, proc.stderr
    assert b"report: r\\xff/index.html" in proc.stderr
    assert sorted(os.listdir(os.fsencode(tmp_path))) == [b"r\xff", b"\xff\xfe.parquet"]


class _Nothing(HazardRisk):
    def design(self, ctx):
        return []


@pytest.mark.parametrize("umask", [0o022, 0o002])
def test_a_report_folder_has_the_umask_permissions(in_tmp, monkeypatch, umask):
    monkeypatch.setattr(report_module, "STUDIES", (_Nothing(),))
    old = os.umask(umask)
    try:
        assert run_cli("report", "--quick", "--out", "r").exit_code == 0
    finally:
        os.umask(old)
    assert stat.S_IMODE((in_tmp / "r").stat().st_mode) == 0o777 & ~umask
    assert stat.S_IMODE((in_tmp / "r" / "index.html").stat().st_mode) == 0o666 & ~umask


def test_two_ctrl_c_within_one_block_stop_at_once(tmp_path):
    """Both signals arrive while the kernel plays a block (it runs without the GIL): Python runs
    its handler once for the two, and the batch must still count two."""
    spec = BatchSpec.make(3, ["random"], 200_000, 1)
    sent = []

    def twice():   # two presses 20 ms apart (sent at once, the kernel itself merges them into one)
        os.kill(os.getpid(), signal.SIGINT)
        time.sleep(0.02)
        os.kill(os.getpid(), signal.SIGINT)

    calls = []

    def progress(done):
        calls.append(done)
        if len(calls) == 5:   # blocks have grown to about BLOCK_SECONDS: the next one starts now
            sent.append(done)
            threading.Timer(0.05, twice).start()

    got = run_batch(spec, tmp_path / "b.parquet", chunk_size=200_000, progress=progress, threads=1)
    assert sent and got.stopped_by == "SIGINT" and got.abrupt, (calls, got.games_done, got.abrupt)
    assert got.games_done == 0 and not (tmp_path / "b.parquet").exists()
