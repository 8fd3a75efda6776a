"""Damaged inputs of our own: flipped bytes in pages, torn files, bad batch metadata, a damaged
part, links planted at the writer's names, and two writers at once.  ``--resume`` and
``report --from`` answer each in one line with exit 2, or (a flip that lands where nothing
is read) carry on to a correct file; nothing is ever copied from a damaged file.
"""
from __future__ import annotations

import json
import os
import subprocess
import sys

import pyarrow.parquet as pq
import pytest

from gnoming_sim.batch.parquet import META_KEY
from gnoming_sim.batch.runner import BatchSpec, run_batch
from _storage import SIM, assert_one_line_exit2, rows, run_cli

SPEC = BatchSpec.make(3, ["random"], 300, 1)


@pytest.fixture
def interrupted(in_tmp):
    """``g.parquet``: this batch stopped after 200 of its 300 games; ``ref.parquet``: all of it."""
    run_batch(SPEC, "g.parquet", chunk_size=100, stop_after_chunks=2, threads=1)
    run_batch(SPEC, "ref.parquet", chunk_size=100, threads=1)
    return in_tmp / "g.parquet"


def _light_report(scan, stage):
    """The batch report without its figures: this test is about reading the damaged file."""
    stage.write("index.html", "games read")
    return {"batch": {"games": scan.games}, "scan": {"wall_s": 0.0}}


def test_a_flipped_byte_anywhere_is_refused_or_harmless(interrupted, in_tmp, monkeypatch):
    monkeypatch.setattr("gnoming_sim.analyses.batch_report.write_batch_report", _light_report)
    good = interrupted.read_bytes()
    footer = int.from_bytes(good[-8:-4], "little")
    data_end = len(good) - 8 - footer
    positions = range(4, data_end, max(1, (data_end - 4) // 24))
    refused = 0
    for pos in positions:
        damaged = bytearray(good)
        damaged[pos] ^= 0x5A
        interrupted.write_bytes(bytes(damaged))
        for args in ([*SIM, "--out", "g.parquet", "--resume"], ["report", "--from", "g.parquet", "--out", "r", "--force"]):
            result = run_cli(*args)
            if result.exit_code == 2:
                assert_one_line_exit2(result, "damaged")
                refused += args[0] == "simulate"
                assert interrupted.read_bytes() == bytes(damaged)   # left as it was
            else:
                assert result.exit_code == 0, (pos, result.output)
                if args[0] == "simulate":   # the flip was somewhere never read: the rows are right
                    assert rows(interrupted).equals(rows(in_tmp / "ref.parquet")), pos
                    interrupted.write_bytes(bytes(damaged))
        assert sorted(p for p in os.listdir(in_tmp) if p.startswith(".")) == [], pos
    assert refused >= len(positions) * 8 // 10   # page checksums catch (almost) every flip in the data


def test_a_torn_file_is_one_line(interrupted):
    good = interrupted.read_bytes()
    for cut in (0, 3, 100, len(good) // 2, len(good) - 5):
        interrupted.write_bytes(good[:cut])
        assert_one_line_exit2(run_cli(*SIM, "--out", "g.parquet", "--resume"), "g.parquet")
        assert_one_line_exit2(run_cli("report", "--from", "g.parquet"), "g.parquet")
        assert interrupted.read_bytes() == good[:cut]


@pytest.mark.parametrize("meta, fragment", [
    (b"{not json", "not JSON"), (b"[1, 2]", "a JSON list"), (None, "no batch metadata"),
    ({"players": 0}, "players must be between"), ({"seats": [["a"], ["b"], ["c"]]}, "seats must be"),
    ({"deck": "published"}, "deck is"), ({"rules": [1]}, "rules is"), ({"games": "many"}, "games is"),
    ({"players": True}, "players is"), ({"strategies": []}, "strategies is"), (b"\xff\xfe", "not JSON"),
])
def test_bad_batch_metadata_is_one_line(interrupted, meta, fragment):
    table = pq.read_table(interrupted)
    facts = json.loads(table.schema.metadata[META_KEY])
    if isinstance(meta, dict):
        raw = json.dumps({**facts, **meta}).encode()
    else:
        raw = meta
    pq.write_table(table.replace_schema_metadata(None if raw is None else {META_KEY: raw}), interrupted)
    before = interrupted.read_bytes()
    assert_one_line_exit2(run_cli(*SIM, "--out", "g.parquet", "--resume"), fragment)
    assert_one_line_exit2(run_cli("report", "--from", "g.parquet"), fragment)
    assert interrupted.read_bytes() == before


@pytest.mark.parametrize("damaged, kept", [(0, 0), (1, 100)])
def test_a_damaged_part_costs_the_parts_from_it_on_not_the_file(in_tmp, damaged, kept):
    """A part that does not read back (not ours, or torn) is not trusted, nor the parts after it: the
    parts before it are resumed, and the run completes cleanly."""
    run_batch(SPEC, "ref.parquet", chunk_size=100, threads=1)
    run_batch(BatchSpec.make(3, ["random"], 300, 9), "g.parquet", chunk_size=100, threads=1)
    run_batch(SPEC, "g.parquet", force=True, chunk_size=100, stop_after_chunks=2, threads=1)   # two parts kept
    os.unlink(in_tmp / "g.parquet")
    parts = sorted((in_tmp / ".g.parquet.partial").iterdir())
    assert len(parts) == 2
    parts[damaged].write_bytes(b"PAR1" + os.urandom(5000))
    result = run_cli(*SIM, "--out", "g.parquet", "--resume", "--json")
    assert result.exit_code == 0, result.output
    assert json.loads(result.stdout)["resumed_games"] == kept
    assert rows(in_tmp / "g.parquet").equals(rows(in_tmp / "ref.parquet"))
    assert sorted(os.listdir(in_tmp)) == ["g.parquet", "ref.parquet"]


@pytest.mark.parametrize("name", [".g.parquet.partial/000000-100.parquet", ".g.parquet.lock"])
def test_a_link_at_any_name_of_the_writer_is_never_followed(in_tmp, name):
    precious = in_tmp / "precious.txt"
    precious.write_text("do not touch")
    run_batch(SPEC, "g.parquet", chunk_size=100, stop_after_chunks=1, threads=1)
    if "/" in name:   # a partial folder of ours around it, so the part is read
        (in_tmp / ".g.parquet.partial").mkdir()
    os.symlink(precious, in_tmp / name)
    assert_one_line_exit2(run_cli(*SIM, "--out", "g.parquet", "--resume"), "symbolic link")
    assert precious.read_text() == "do not touch"


def test_a_temporary_name_is_never_reused(tmp_path):
    from gnoming_sim.batch.safe_write import create_unique

    names = set()
    for _ in range(50):
        path, fd = create_unique(tmp_path, ".t.toml.", ".tmp")
        os.close(fd)
        names.add(path.name)
        os.unlink(path)
    assert len(names) == 50


@pytest.mark.slow
def test_two_concurrent_runs_leave_one_correct_file(in_tmp):
    """Started together: one writes, the other is refused in one line (or, if the first was done
    already, replaces the file with the same rows)."""
    run_batch(BatchSpec.make(3, ["random"], 3000, 1), "ref.parquet", chunk_size=100, threads=1)
    cmd = [sys.executable, "-m", "gnoming_sim", *SIM[:4], "3000", *SIM[5:], "--out", "g.parquet", "--force"]
    procs = [subprocess.Popen(cmd, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True) for _ in range(2)]
    results = [(p.wait(timeout=300), p.stderr.read()) for p in procs]
    for p in procs:
        p.stderr.close()
    assert sorted(code for code, _ in results) in ([0, 0], [0, 2]), results
    for code, err in results:
        if code == 2:
            assert len(err.splitlines()) == 1 and "being written by another gnoming-sim run" in err
    assert rows(in_tmp / "g.parquet").equals(rows(in_tmp / "ref.parquet"))
