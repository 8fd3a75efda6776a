"""The nine data-loss findings of the storage audit, each as a test that failed before the crash-safe writer.

1 a full disk with --force, 2 two runs to one --out, 3 --report holding --out, 4 report --out
holding --from, 5 a report folder the user added files to, 6 a symlinked partial, 7 a chunk
larger than a row group, 8 SIGKILL, 9 a wrong score copied by --resume.
"""
from __future__ import annotations

import json
import os
import resource
import signal
import subprocess
import sys

import pyarrow as pa
import pyarrow.parquet as pq
import pytest

from gnoming_sim.batch import batch_writer
from gnoming_sim.batch.parquet import META_KEY
from gnoming_sim.batch.runner import BatchSpec, run_batch
from _storage import SIM, assert_one_line_exit2, rows, run_cli, sim


def _no_bigger_files(limit: int):
    def set_limit():
        signal.signal(signal.SIGXFSZ, signal.SIG_IGN)   # a write past the limit fails with EFBIG instead
        resource.setrlimit(resource.RLIMIT_FSIZE, (limit, limit))
    return set_limit


@pytest.mark.slow
def test_1_a_full_disk_with_force_keeps_the_old_file(in_tmp):
    """A real write failure (the file-size limit: EFBIG from the kernel, as ENOSPC from a full disk)."""
    assert run_cli(*SIM, "--seed", "9", "--out", "g.parquet").exit_code == 0
    before = (in_tmp / "g.parquet").read_bytes()
    cmd = [sys.executable, "-m", "gnoming_sim", *sim(3000), "--out"]
    proc = subprocess.run([*cmd, "g.parquet", "--force"], capture_output=True, text=True, timeout=300,
                          preexec_fn=_no_bigger_files(40_000))
    assert proc.returncode == 2, proc.stderr
    lines = proc.stderr.splitlines()
    assert len(lines) == 1 and lines[0].startswith("gnoming-sim: error: --out g.parquet: cannot write"), proc.stderr
    assert (in_tmp / "g.parquet").read_bytes() == before
    proc = subprocess.run([*cmd, "new.parquet"], capture_output=True, text=True, timeout=300,
                          preexec_fn=_no_bigger_files(40_000))
    assert proc.returncode == 2 and len(proc.stderr.splitlines()) == 1, proc.stderr
    assert not (in_tmp / "new.parquet").exists()   # never an unreadable file under the final name


def test_2_a_second_run_to_the_same_out_is_refused(in_tmp):
    holder = subprocess.Popen([sys.executable, "-c", "from gnoming_sim.batch.safe_write import OutputLock\n"
                               "import sys, time\nlock = OutputLock('g.parquet')\nprint('locked', flush=True)\n"
                               "sys.stdin.read()"], stdin=subprocess.PIPE, stdout=subprocess.PIPE, text=True)
    try:
        assert holder.stdout.readline().strip() == "locked"
        line = assert_one_line_exit2(run_cli(*SIM, "--out", "g.parquet"), "is being written by another gnoming-sim run")
        assert f"process {holder.pid}" in line
        assert not (in_tmp / "g.parquet").exists()
    finally:
        holder.communicate("", timeout=30)
    assert run_cli(*SIM, "--out", "g.parquet").exit_code == 0   # free once the other run ended
    assert not (in_tmp / ".g.parquet.lock").exists()


def test_3_a_report_folder_that_holds_out_is_refused_before_any_game(in_tmp):
    (in_tmp / "e").mkdir()
    assert run_cli(*SIM, "--out", "e/g.parquet").exit_code == 0
    before = (in_tmp / "e" / "g.parquet").read_bytes()
    assert_one_line_exit2(run_cli(*SIM, "--out", "e/g.parquet", "--report", "e", "--force"), "holds e/g.parquet")
    assert (in_tmp / "e" / "g.parquet").read_bytes() == before
    (in_tmp / "f").mkdir()
    assert_one_line_exit2(run_cli(*SIM, "--out", "f/g.parquet", "--report", "f"), "an input of this command")
    assert os.listdir(in_tmp / "f") == []   # refused before a game was played


def test_4_report_out_holding_its_input_is_refused(in_tmp):
    (in_tmp / "d").mkdir()
    assert run_cli(*SIM, "--out", "d/b.parquet").exit_code == 0
    (in_tmp / "d" / "other.txt").write_text("mine")
    before = (in_tmp / "d" / "b.parquet").read_bytes()
    assert_one_line_exit2(run_cli("report", "--from", "d/b.parquet", "--out", "d", "--force"), "holds d/b.parquet")
    assert (in_tmp / "d" / "b.parquet").read_bytes() == before and (in_tmp / "d" / "other.txt").read_text() == "mine"
    assert_one_line_exit2(run_cli("report", "--from", "d/b.parquet", "--out", ".", "--force"), "current folder")
    assert sorted(os.listdir(in_tmp)) == ["d"]   # no ..xxxx.old folder, no partial


@pytest.mark.slow
def test_5_files_the_user_added_to_a_report_folder_are_kept(in_tmp):
    assert run_cli(*SIM, "--out", "b.parquet").exit_code == 0
    assert run_cli("report", "--from", "b.parquet", "--out", "r").exit_code == 0
    (in_tmp / "r" / "notes.md").write_text("my notes")
    (in_tmp / "r" / "mydata").mkdir()
    (in_tmp / "r" / "mydata" / "x.csv").write_text("1,2\n")
    assert_one_line_exit2(run_cli("report", "--from", "b.parquet", "--out", "r"), "did not write (mydata, notes.md)")
    assert_one_line_exit2(run_cli("report", "--quick", "--out", "r"), "did not write (mydata, notes.md)")
    result = run_cli("report", "--from", "b.parquet", "--out", "r", "--force")
    assert result.exit_code == 0, result.output
    assert (in_tmp / "r" / "notes.md").read_text() == "my notes"
    assert (in_tmp / "r" / "mydata" / "x.csv").read_text() == "1,2\n"
    assert (in_tmp / "r" / "index.html").is_file()
    assert sorted(os.listdir(in_tmp)) == ["b.parquet", "r"]


def test_6_a_symlinked_partial_is_never_followed(in_tmp):
    precious = in_tmp / "precious.txt"
    precious.write_text("do not touch")
    os.symlink("precious.txt", in_tmp / ".g.parquet.partial")
    assert_one_line_exit2(run_cli(*SIM, "--out", "g.parquet", "--resume"), "symbolic link")
    assert_one_line_exit2(run_cli(*SIM, "--out", "g.parquet"), "symbolic link")
    assert precious.read_text() == "do not touch"
    assert run_cli(*SIM, "--out", "g.parquet", "--force").exit_code == 0   # removes the link, not its target
    assert precious.read_text() == "do not touch" and not os.path.lexists(in_tmp / ".g.parquet.partial")


def test_7_row_groups_hold_whole_games_whatever_the_chunk_size(in_tmp, monkeypatch):
    """A row group is capped (pyarrow: 64 Mi rows); a chunk above the cap is cut between games.
    Here the cap is lowered to 50 rows (games of 9 rows)."""
    monkeypatch.setattr(batch_writer, "MAX_GROUP_ROWS", 50)
    assert run_cli(*SIM, "--out", "g.parquet", "--chunk-size", "300").exit_code == 0
    meta = pq.read_metadata(in_tmp / "g.parquet")
    sizes = [meta.row_group(i).num_rows for i in range(meta.num_row_groups)]
    assert meta.num_row_groups > 1 and all(n % 9 == 0 and n <= 50 for n in sizes), sizes
    assert run_cli(*SIM, "--out", "g.parquet", "--resume").exit_code == 0


@pytest.mark.slow
def test_7_a_chunk_over_a_million_rows_can_be_resumed(in_tmp):
    """50,000 games at 7 players: 1,050,000 rows in one chunk, more than pyarrow's default row group."""
    args = ["simulate", "--players", "7", "--games", "50000", "--chunk-size", "50000", "--out", "g.parquet"]
    assert run_cli(*args).exit_code == 0
    meta = pq.read_metadata(in_tmp / "g.parquet")
    assert all(meta.row_group(i).num_rows % 21 == 0 for i in range(meta.num_row_groups))
    result = run_cli(*args, "--resume", "--json")
    assert result.exit_code == 0, result.output
    assert json.loads(result.stdout)["resumed_games"] == 50_000


_KILLED_AFTER_TWO_CHUNKS = """
import contextlib, sys, time
import gnoming_sim.cli.group as group

@contextlib.contextmanager
def progress_bar(total, label="games", absolute=True):
    def advance(done):
        if done >= 300:   # chunks 0 and 1 are written, chunk 2 is played: wait for the kill
            print("ready", flush=True)
            time.sleep(600)
    yield advance

group.progress_bar = progress_bar
from gnoming_sim.cli.app import main
main(sys.argv[1:])
"""


def test_8_sigkill_keeps_every_chunk_written(in_tmp):
    args = [*sim(500), "--out", "g.parquet"]
    child = subprocess.Popen([sys.executable, "-c", _KILLED_AFTER_TWO_CHUNKS, *args], stdout=subprocess.PIPE,
                             stderr=subprocess.DEVNULL, text=True)
    try:
        assert child.stdout.readline().strip() == "ready"
    finally:
        child.kill()
        child.communicate(timeout=60)
    assert not (in_tmp / "g.parquet").exists()
    result = run_cli(*args, "--resume", "--json")
    assert result.exit_code == 0, result.output
    assert json.loads(result.stdout)["resumed_games"] == 200
    assert run_cli(*args[:-1], "whole.parquet").exit_code == 0
    assert rows(in_tmp / "g.parquet").equals(rows(in_tmp / "whole.parquet"))


def _with_score(path, game: int, seat: int, score: int) -> None:
    """Rewrite ``path`` as a valid Parquet file whose one score (round 0) no longer equals its parts."""
    table = pq.read_table(path)
    players = json.loads(table.schema.metadata[META_KEY])["players"]
    i = game * 3 * players + seat
    col = table.column("score").to_numpy().copy()
    col[i] = score
    table = table.set_column(table.schema.get_field_index("score"), "score", pa.array(col, pa.int32()))
    pq.write_table(table, path, compression="zstd")


def test_9_a_wrong_score_is_refused_not_copied(in_tmp):
    spec = BatchSpec.make(3, ["random"], 300, 1)
    run_batch(spec, "g.parquet", chunk_size=100, stop_after_chunks=2, threads=1)   # interrupted: 200 games
    _with_score(in_tmp / "g.parquet", 60, 2, 18)
    before = (in_tmp / "g.parquet").read_bytes()
    more = [*SIM, "--out", "g.parquet", "--resume"]
    assert_one_line_exit2(run_cli(*more), "game 60 has a score that is not the sum of its parts")
    assert (in_tmp / "g.parquet").read_bytes() == before
    assert_one_line_exit2(run_cli("report", "--from", "g.parquet"), "game 60 has a score")
    assert sorted(os.listdir(in_tmp)) == ["g.parquet"]


def test_an_interrupted_force_run_keeps_the_old_file_and_its_games_resume(tmp_path):
    """A signal during --force leaves the file it would replace as it was and the games played in
    the partial; --resume (with the same arguments) completes exactly the uninterrupted batch."""
    out, ref = tmp_path / "g.parquet", tmp_path / "ref.parquet"
    spec = BatchSpec.make(3, ["random"], 300, 1)
    run_batch(spec, ref, chunk_size=100, threads=1)
    run_batch(BatchSpec.make(3, ["random"], 300, 9), out, chunk_size=100, threads=1)   # another run's file
    old = out.read_bytes()
    cut = run_batch(spec, out, force=True, chunk_size=100, stop_after_chunks=2, threads=1)
    assert (cut.stopped_by, cut.games_done) == ("stop_after_chunks", 200)
    assert out.read_bytes() == old and cut.partial is not None and cut.partial.exists()
    done = run_batch(spec, out, resume=True, chunk_size=100, threads=1)
    assert done.complete and done.resumed_games == 200
    assert rows(out).equals(rows(ref)) and not cut.partial.exists()


def test_an_interrupted_force_run_says_the_old_file_is_unchanged(in_tmp, monkeypatch):
    assert run_cli(*SIM, "--seed", "9", "--out", "g.parquet").exit_code == 0
    old = (in_tmp / "g.parquet").read_bytes()
    from gnoming_sim.batch import runner

    real = runner.Batch.run

    def cut_short(self, **kw):
        return real(self, **{**kw, "stop_after_chunks": 1})

    monkeypatch.setattr(runner.Batch, "run", cut_short)
    result = run_cli(*SIM, "--out", "g.parquet", "--force")
    assert (in_tmp / "g.parquet").read_bytes() == old
    assert "g.parquet is unchanged" in result.stderr and "--resume" in result.stderr, result.stderr
