"""ENOSPC and EIO injected at every disk call of the writer (``safe_write.io``), command by command
(``make test-fast``: ENOSPC alone).

Each case first counts the disk calls of a clean run, then fails the N-th one for every N.
Every failing run must end in one line and exit 2 (or a one-line GnomingError), leave the
old output byte for byte, and leave nothing that a clean rerun (``--resume`` where the run
left a partial holding games, else ``--force``) cannot turn into the output of an
uninterrupted run.
"""
from __future__ import annotations

import errno
import os
from pathlib import Path

import pytest

from gnoming_sim.analyses import report as report_module
from gnoming_sim.analyses.hazard_risk import HazardRisk
from gnoming_sim.batch import batch_writer
from gnoming_sim.batch.runner import BatchSpec, run_batch
from gnoming_sim.batch.safe_write import write_file
from gnoming_sim.game.errors import GnomingError
from _examples import FAST
from _storage import SIM, assert_one_line_exit2, rows, run_cli

# a full disk and a failing one at every call; make test-fast fails every call with the first only
ERRORS = (errno.ENOSPC,) if FAST else (errno.ENOSPC, errno.EIO)


def _clean_calls(faults, action) -> list[str]:
    counter = faults()
    action()
    calls = list(counter.calls)
    faults()   # a fresh counter without faults
    return calls


def _leftovers(folder) -> list[str]:
    return sorted(n for n in os.listdir(folder) if n.startswith("."))


def _partial_games(out) -> int:
    rec = batch_writer.recover(out)
    return 0 if rec is None else rec.games


@pytest.mark.parametrize("mode", ["fresh", pytest.param("force", marks=pytest.mark.slow), pytest.param("resume", marks=pytest.mark.slow)])
def test_simulate_survives_a_fault_at_every_disk_call(in_tmp, faults, mode):
    """fresh: no old file; force: an old file of another batch (seed 9) is replaced;
    resume: an interrupted file of this batch (100 of 300 games) is completed."""
    out = in_tmp / "g.parquet"
    assert run_cli(*SIM, "--out", "ref.parquet").exit_code == 0
    args = [*SIM, "--out", "g.parquet"] + {"fresh": [], "force": ["--force"], "resume": ["--resume"]}[mode]

    def setup():
        (in_tmp / "g.parquet").unlink(missing_ok=True)
        batch_writer.remove_partial(in_tmp / ".g.parquet.partial")
        if mode == "force":
            assert run_cli(*SIM, "--seed", "9", "--out", "g.parquet").exit_code == 0
        elif mode == "resume":   # an interrupted file: the first chunk of this batch
            run_batch(BatchSpec.make(3, ["random"], 300, 1), out, chunk_size=100, stop_after_chunks=1, threads=1)
        return out.read_bytes() if out.exists() else None

    setup()
    calls = _clean_calls(faults, lambda: run_cli(*args))
    assert len(calls) >= 15, calls
    for n in range(1, len(calls) + 1):
        for err in ERRORS:
            before = setup()
            faults(fail_at=n, err=err)
            result = run_cli(*args)
            faults()
            line = assert_one_line_exit2(result, os.strerror(err))
            if "written whole" in line:   # only the folder sync after the rename failed: the new file is in place
                assert n == len(calls) and rows(out).equals(rows(in_tmp / "ref.parquet"))
                continue
            assert (out.read_bytes() if out.exists() else None) == before, (n, calls[n - 1])
            assert set(_leftovers(in_tmp)) <= {".g.parquet.partial"}
            if err != errno.ENOSPC:
                continue   # the recovery is the same for both errors: check it once per point
            again = run_cli(*SIM, "--out", "g.parquet", "--resume" if _partial_games(out) else "--force")
            assert again.exit_code == 0, (n, calls[n - 1], again.output)
            assert rows(out).equals(rows(in_tmp / "ref.parquet")), (n, calls[n - 1])
            assert _leftovers(in_tmp) == []


def test_compare_out_force_survives_a_fault_at_every_disk_call(in_tmp, faults):
    rules = Path(__file__).resolve().parents[2] / "examples" / "nobounce.toml"
    args = ["compare", "--players", "3", "--games", "100", "--variant", f"nobounce={rules}", "--threads", "1",
            "--out", "c.parquet", "--force"]
    (in_tmp / "c.parquet").write_bytes(b"the old rows")
    calls = _clean_calls(faults, lambda: run_cli(*args))
    assert len(calls) >= 9
    for n in range(1, len(calls) + 1):
        for err in ERRORS:
            (in_tmp / "c.parquet").write_bytes(b"the old rows")
            faults(fail_at=n, err=err)
            result = run_cli(*args)
            faults()
            line = assert_one_line_exit2(result, os.strerror(err))
            if "written whole" in line:   # the folder sync after the rename: the new rows are in place
                assert n == len(calls) and rows(in_tmp / "c.parquet").num_rows == 3 * 3 * 100 * 2
            else:
                assert (in_tmp / "c.parquet").read_bytes() == b"the old rows"
            assert _leftovers(in_tmp) == []   # compare cannot resume: nothing is left behind


def _light_report(scan, stage):
    """The batch report's writes without its figures: three files of the report's own kinds."""
    stage.write("index.html", f"{scan.games} games")
    stage.write("batch-standings.png", b"\x89PNG not drawn")
    stage.write("summary.json", "{}")
    return {"batch": {"games": scan.games}, "scan": {"wall_s": 0.0}}


class _FiguresOnce:
    """The batch report's figures drawn by the first run only: later runs write the same PNG bytes through the same
    disk calls (drawing six figures at each of the report's ~65 fault points was most of this test's time)."""

    def __init__(self, monkeypatch):
        from gnoming_sim.analyses.batch_report import page

        self.png: dict = {}
        self._real_png = page.figure_png
        for name in ("standings", "score_distributions", "turns", "finish_by_score", "lines_and_hazards"):
            monkeypatch.setattr(page.figures, name, self._once(name, getattr(page.figures, name)))
        monkeypatch.setattr(page, "figure_png", self._bytes)

    def _once(self, name, draw):
        def figure(*args):
            key = (name, args[-1] if isinstance(args[-1], str) else None)   # standings: per strategy, per seat
            if key in self.png:
                return key
            fig = draw(*args)
            fig.drawn_as = key
            return fig
        return figure

    def _bytes(self, fig) -> bytes:
        if isinstance(fig, tuple):
            return self.png[fig]
        png = self.png[fig.drawn_as] = self._real_png(fig)
        return png


class _Nothing(HazardRisk):
    """A study that plays nothing: a report in a fraction of a second."""

    def design(self, ctx):
        return []


@pytest.mark.parametrize("command, foreign, every", [
    pytest.param("report --quick", True, True, marks=pytest.mark.slow), pytest.param("report --quick", False, True, marks=pytest.mark.slow), ("report --from", True, False),
    ("report --from", False, False), pytest.param("report --from", True, True, marks=pytest.mark.slow)])
def test_a_report_survives_a_fault_at_every_disk_call(in_tmp, faults, monkeypatch, command, foreign, every):
    """``foreign``: the folder holds a file of the user's (the report's files are renamed in one by
    one) or not (the folder is swapped whole).  The fast report --from case writes the report
    without its figures; the full one writes them too (drawn by the first run, the same bytes after it) and is
    marked slow with the --quick cases, for its ~65 fault points."""
    monkeypatch.setattr(report_module, "STUDIES", (_Nothing(),))
    if command == "report --from" and not every:
        monkeypatch.setattr("gnoming_sim.analyses.batch_report.write_batch_report", _light_report)
    elif command == "report --from":
        _FiguresOnce(monkeypatch)
    if command == "report --from":
        assert run_cli(*SIM, "--out", "b.parquet").exit_code == 0
        args = ["report", "--from", "b.parquet", "--out", "r", "--force"]
    else:
        args = ["report", "--quick", "--out", "r"]
    assert run_cli(*args).exit_code == 0
    if foreign:
        (in_tmp / "r" / "notes.md").write_text("mine")   # a foreign file: kept (--force) or refused
        args = [*args, "--force"] if "--force" not in args else args
    calls = _clean_calls(faults, lambda: run_cli(*args))
    assert len(calls) >= 6
    before = {p: (in_tmp / "r" / p).read_bytes() for p in os.listdir(in_tmp / "r")}
    renamed = next(i + 1 for i, c in enumerate(calls) if c in ("replace", "rename"))
    full = command == "report --from" and every   # the real report's writes (its figures drawn once)
    for n in range(1, len(calls) + 1):
        for err in ERRORS:
            faults(fail_at=n, err=err)
            result = run_cli(*args)
            faults()
            line = assert_one_line_exit2(result, os.strerror(err), progress=command == "report --quick")
            after = {p: (in_tmp / "r" / p).read_bytes() for p in os.listdir(in_tmp / "r")}
            assert after.get("notes.md") == (b"mine" if foreign else None)
            if "written whole" in line:   # only the folder sync after the last rename failed
                assert n == len(calls) and set(after) == set(before)
            elif n <= renamed or not foreign:   # a swap is whole or not at all
                assert after == before and "it is unchanged" in line, (n, calls[n - 1])
            else:
                assert "run the command again" in line
            assert [p for p in _leftovers(in_tmp)] == [], (n, calls[n - 1])
            if after != before or not full:
                assert run_cli(*args).exit_code == 0   # a clean rerun repairs any mix
                before = {p: (in_tmp / "r" / p).read_bytes() for p in os.listdir(in_tmp / "r")}


def test_a_killed_writers_temporary_file_goes_with_the_next_write(tmp_path):
    (tmp_path / ".t.toml.0123456789ab.tmp").write_text("half")    # a run killed while writing
    (tmp_path / ".t.toml.notours.tmp").write_text("someone's")     # not a name the writer gives
    write_file(tmp_path / "t.toml", "new")
    assert sorted(os.listdir(tmp_path)) == [".t.toml.notours.tmp", "t.toml"]


def test_a_tune_output_survives_a_fault_at_every_disk_call(tmp_path, faults):
    path = tmp_path / "t.toml"
    path.write_text("old")
    calls = _clean_calls(faults, lambda: write_file(path, "new"))
    assert calls == ["write", "fsync", "replace", "fsync"]
    for n in range(1, len(calls) + 1):
        for err in ERRORS:
            path.write_text("old")
            faults(fail_at=n, err=err)
            with pytest.raises(GnomingError, match=os.strerror(err)) as failed:
                write_file(path, "new")
            faults()
            # a failure of the folder sync after the rename: the new file is in place, whole, and it says so
            assert path.read_text() == ("new" if "written whole" in str(failed.value) else "old")
            assert ("written whole" in str(failed.value)) == (n == 4)
            assert sorted(os.listdir(tmp_path)) == ["t.toml"]


@pytest.mark.slow
def test_tune_on_a_full_disk_is_one_line(in_tmp, faults):
    args = ["tune", "--players", "3", "--generations", "1", "--games", "30", "--popsize", "4", "--threads", "1",
            "--out", "t.toml", "--force"]
    (in_tmp / "t.toml").write_text("old")
    faults(fail_at=1, err=errno.ENOSPC)
    assert_one_line_exit2(run_cli(*args), os.strerror(errno.ENOSPC))
    assert (in_tmp / "t.toml").read_text() == "old"
