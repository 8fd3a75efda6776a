"""Output locks through the same guard as outputs.

Before: the lock file ``.NAME.lock`` was opened with ``O_CREAT`` (not ``O_EXCL``), truncated and
written with a pid: ``ln notes.txt .g.parquet.lock`` made ``simulate --out g.parquet`` write its pid
into notes.txt (and ``report``, ``tune``, ``review --save-record``, ``compare``: 8 runs), and a lock
was stale when the pid in it, a file anyone could write, said so.  Now the lock is created
exclusively; a link, a file that is not a lock, or another user's lock at its name is refused in one
line and left where it is; a lock is held only while a live run holds ``flock`` on it.
"""
from __future__ import annotations

import os
import signal
import subprocess
import sys
from pathlib import Path

import pytest

from gnoming_sim.batch.safe_write import OutputLock
from gnoming_sim.game.errors import GnomingError
from _storage import SIM, assert_one_line_exit2, run_cli

NOBOUNCE = Path(__file__).resolve().parents[2] / "examples" / "nobounce.toml"
REVIEW = ["review", "--game", "0", "--seat", "0", "--rollouts", "20", "--threads", "1"]
TUNE = ["tune", "--players", "2", "--games", "4", "--popsize", "2", "--generations", "1", "--threads", "1"]

# (the command, the lock its output takes): every command that writes, each output option
COMMANDS = [
    ([*SIM, "--out", "g.parquet"], ".g.parquet.lock"),
    ([*SIM, "--out", "g.parquet", "--report", "rep"], ".rep.lock"),
    (["report", "--from", "b.parquet"], ".b-report.lock"),   # the default folder, beside the batch
    (["report", "--from", "b.parquet", "--out", "r"], ".r.lock"),
    (["report", "--quick", "--threads", "1", "--out", "r"], ".r.lock"),
    ([*TUNE, "--out", "t.toml"], ".t.toml.lock"),
    ([*TUNE, "--out", "t.toml", "--log", "l.csv"], ".l.csv.lock"),
    ([*TUNE, "--out", "t.toml", "--plot", "p.png"], ".p.png.lock"),
    ([*REVIEW, "--out", "rv"], ".rv.lock"),
    ([*REVIEW, "--out", "rv", "--save-record", "rec.toml"], ".rec.toml.lock"),
    (["compare", "--games", "4", "--variant", f"nb={NOBOUNCE}", "--out", "c.parquet"], ".c.parquet.lock"),
    (["ladder", "--players", "2", "--strategies", "random,greedy", "--games", "4", "--bootstrap", "100",
      "--out", "l.json"], ".l.json.lock"),
    (["card", "--games", "4", "--players", "2", "--budget", "1", "--out", "gd"], ".gd.lock"),
    (["train", "--iterations", "1", "--games", "4", "--players", "2", "--out", "tr"], ".tr.lock"),
]
IDS = [f"{args[0]}{'-quick' if '--quick' in args else ''}:{lock}" for args, lock in COMMANDS]


@pytest.fixture
def batch(in_tmp):
    """A small finished batch, b.parquet, for ``report --from``."""
    assert run_cli(*SIM, "--out", "b.parquet").exit_code == 0
    return in_tmp / "b.parquet"


@pytest.mark.parametrize("args, lock", COMMANDS, ids=IDS)
def test_a_hard_link_at_the_lock_is_refused_and_never_written(batch, in_tmp, args, lock):
    notes = in_tmp / "notes.txt"
    notes.write_text("precious\n")
    os.link(notes, in_tmp / lock)
    before = sorted(os.listdir(in_tmp))
    assert_one_line_exit2(run_cli(*args), "hard link")
    assert notes.read_text() == "precious\n"
    assert os.stat(in_tmp / lock).st_nlink == 2   # the name is left where it is, never removed
    assert sorted(os.listdir(in_tmp)) == before   # refused before any work: nothing written


@pytest.mark.parametrize("args, lock", [COMMANDS[0], COMMANDS[2], COMMANDS[8]], ids=[IDS[0], IDS[2], IDS[8]])
def test_a_symbolic_link_at_the_lock_is_refused_and_never_followed(batch, in_tmp, args, lock):
    notes = in_tmp / "notes.txt"
    notes.write_text("precious\n")
    os.symlink("notes.txt", in_tmp / lock)
    assert_one_line_exit2(run_cli(*args), "symbolic link")
    assert notes.read_text() == "precious\n" and os.path.islink(in_tmp / lock)


def test_a_lock_left_by_a_killed_run_is_stale_and_taken(in_tmp):
    holder = subprocess.Popen([sys.executable, "-c", "from gnoming_sim.batch.safe_write import OutputLock\n"
                               "lock = OutputLock('g.parquet')\nprint('locked', flush=True)\n"
                               "import time; time.sleep(60)"], stdout=subprocess.PIPE, text=True)
    try:
        assert holder.stdout.readline().strip() == "locked"
        pid, start = (in_tmp / ".g.parquet.lock").read_text().split()
        assert int(pid) == holder.pid and int(start) > 0   # the pid and when that process started
        assert_one_line_exit2(run_cli(*SIM, "--out", "g.parquet"), f"(process {holder.pid})")
    finally:
        holder.send_signal(signal.SIGKILL)   # no cleanup runs: the lock file stays, held by nobody
        holder.wait()
        holder.stdout.close()
    assert (in_tmp / ".g.parquet.lock").exists()
    assert run_cli(*SIM, "--out", "g.parquet").exit_code == 0
    assert sorted(os.listdir(in_tmp)) == ["g.parquet"]


def test_the_pid_in_a_lock_is_not_trusted(in_tmp):
    """A lock naming a live process (pid 1, or this test's own) that nobody holds is stale: what the
    file says, anyone could have written."""
    for text in (f"{os.getpid()}\n", "1 0\n", ""):
        (in_tmp / ".g.parquet.lock").write_text(text)
        with OutputLock(in_tmp / "g.parquet"):
            assert (in_tmp / ".g.parquet.lock").read_text().split()[0] == str(os.getpid())
        assert not (in_tmp / ".g.parquet.lock").exists()


@pytest.mark.parametrize("kind, fragment", [("text", "holds other text"), ("fifo", "not a regular file"),
                                            ("folder", "not a regular file")])
def test_something_else_at_the_lock_is_refused_and_kept(in_tmp, kind, fragment):
    lock = in_tmp / ".g.parquet.lock"
    if kind == "text":
        lock.write_text("my own notes, not a pid\n")
    elif kind == "fifo":
        os.mkfifo(lock)
    else:
        lock.mkdir()
    with pytest.raises(GnomingError, match=fragment) as err:
        OutputLock(in_tmp / "g.parquet")
    assert "\n" not in str(err.value)
    assert os.path.lexists(lock) and (kind != "text" or lock.read_text() == "my own notes, not a pid\n")


@pytest.mark.skipif(os.geteuid() != 0, reason="making another user's file needs root")
def test_another_users_stale_lock_is_refused_and_kept(in_tmp):
    lock = in_tmp / ".g.parquet.lock"
    lock.write_text("4242 0\n")
    os.chown(lock, 65534, 65534)
    with pytest.raises(GnomingError, match="another user's lock"):
        OutputLock(in_tmp / "g.parquet")
    assert lock.exists()


def test_release_removes_only_the_file_the_lock_made(in_tmp):
    lock = OutputLock(in_tmp / "g.parquet")
    os.rename(in_tmp / ".g.parquet.lock", in_tmp / "moved")
    (in_tmp / ".g.parquet.lock").write_text("someone else's\n")
    lock.release()
    assert (in_tmp / ".g.parquet.lock").read_text() == "someone else's\n"
