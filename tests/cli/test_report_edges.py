"""`gnoming-sim report` never loses or mixes up work: it refuses a folder it did not write
(unless --force), replaces its own report whole (no stale figures), leaves the previous
report intact when interrupted (Ctrl-C: exit 130, SIGTERM: exit 143, one line), refuses
--quick with --games, and lets a user's strategies into the tournament."""
from __future__ import annotations

import json
import os
import signal

import pytest

import gnoming_sim.analyses.report as report_module
from gnoming_sim.analyses.framework.study import Study
from gnoming_sim.analyses.hazard_risk import HazardRisk
from gnoming_sim.analyses.tournament import Tournament
from gnoming_sim.batch.safe_folder import MANIFEST


class _Nothing(HazardRisk):
    """A study that plays nothing (its section says so): a report in a fraction of a second."""

    def design(self, ctx):
        return []


class _Interrupted(_Nothing):
    """Interrupted while it plays: by Ctrl-C, or by a SIGTERM sent to this process."""

    def __init__(self, how):
        self.how = how

    def play(self, ctx, seed, tables, advance):
        if self.how == "sigint":
            raise KeyboardInterrupt
        os.kill(os.getpid(), signal.SIGTERM)   # the handler raises before kill() returns to Python
        raise AssertionError("SIGTERM did not stop the report")


def _one_error_line(result, fragment):
    assert result.exit_code == 2, result.output
    lines = result.stderr.splitlines()
    assert len(lines) == 1 and lines[0].startswith("gnoming-sim: error: ") and fragment in lines[0], result.stderr


@pytest.fixture
def only(monkeypatch):
    def use(*studies: Study):
        monkeypatch.setattr(report_module, "STUDIES", studies)
    return use


def test_a_non_empty_folder_it_did_not_write_is_refused(cli_run, tmp_path, only):
    only(_Nothing())
    mine = tmp_path / "mine"
    mine.mkdir()
    (mine / "thesis.tex").write_text("precious")
    result = cli_run(["report", "--quick", "--out", str(mine)], code=2)
    _one_error_line(result, "--force")
    assert (mine / "thesis.tex").read_text() == "precious" and sorted(os.listdir(mine)) == ["thesis.tex"]
    assert sorted(os.listdir(tmp_path)) == ["mine"]   # no staging folder left behind


def test_force_writes_into_a_foreign_folder_and_keeps_its_files(cli_run, tmp_path, only):
    only(_Nothing())
    mine = tmp_path / "mine"
    mine.mkdir()
    (mine / "old.txt").write_text("x")
    result = cli_run(["report", "--quick", "--out", str(mine), "--force"])
    assert (mine / "old.txt").read_text() == "x" and (mine / "index.html").is_file()


def test_its_own_report_is_replaced_whole_without_force(cli_run, tmp_path, only):
    """A file the earlier report wrote (listed in its manifest) and the new one does not is removed."""
    only(_Nothing())
    out = tmp_path / "r"
    cli_run(["report", "--quick", "--out", str(out)])
    (out / "tournament-stale.png").write_bytes(b"an earlier report's figure")
    manifest = json.loads((out / MANIFEST).read_text())
    (out / MANIFEST).write_text(json.dumps({**manifest, "files": manifest["files"] + ["tournament-stale.png"]}))
    result = cli_run(["report", "--quick", "--out", str(out)])
    assert not (out / "tournament-stale.png").exists() and (out / "summary.json").is_file()
    assert sorted(os.listdir(tmp_path)) == ["r"]


def test_a_file_as_out_is_one_line(cli_run, tmp_path, only):
    only(_Nothing())
    target = tmp_path / "file"
    target.write_text("x")
    _one_error_line(cli_run(["report", "--quick", "--out", str(target)], code=2), "--out")


@pytest.mark.parametrize("how, code", [("sigint", 130), ("sigterm", 143)])
def test_an_interrupt_leaves_the_previous_report_intact(cli_run, tmp_path, only, how, code):
    out = tmp_path / "r"
    only(_Nothing())
    cli_run(["report", "--quick", "--out", str(out)])
    before = {p: (out / p).read_bytes() for p in os.listdir(out)}
    only(_Interrupted(how))
    result = cli_run(["report", "--quick", "--out", str(out)], code=code)
    lines = result.stderr.splitlines()
    assert lines[-1] == f"gnoming-sim: report interrupted; the previous report in {out} is left as it was"
    assert "Aborted" not in result.output + result.stderr
    assert {p: (out / p).read_bytes() for p in os.listdir(out)} == before
    assert sorted(os.listdir(tmp_path)) == ["r"]
    assert signal.getsignal(signal.SIGTERM) is signal.SIG_DFL   # the handler is put back


def test_an_interrupt_before_any_report_says_nothing_was_written(cli_run, tmp_path, only):
    only(_Interrupted("sigint"))
    out = tmp_path / "r"
    result = cli_run(["report", "--quick", "--out", str(out)], code=130)
    assert result.stderr.splitlines()[-1].endswith("nothing was written") and not out.exists()
    assert os.listdir(tmp_path) == []


def test_quick_with_games_is_one_line(cli_run, tmp_path):
    _one_error_line(cli_run(["report", "--quick", "--games", "10", "--out", str(tmp_path / "r")], code=2), "--quick")


@pytest.mark.slow
def test_a_users_strategy_enters_the_tournament_and_seats_count_from_0(cli_run, tmp_path, only, own_registry):
    only(Tournament())   # the file registers "hoarder": in the test's own registry
    strategies = tmp_path / "mine.toml"
    strategies.write_text('[strategy.hoarder]\nbase = "builder"\nmulligan_bonus = 6.0\n')
    out = tmp_path / "r"
    result = cli_run(["report", "--games", "14", "--seed", "3", "--strategies-file", str(strategies), "--out",
                      str(out)])
    summary = json.loads((out / "summary.json").read_text())
    by_players = summary["tournament"]["by_players"]
    assert all("hoarder" in by_players[p]["standings"] for p in by_players)
    for p, block in by_players.items():
        assert sorted(block["seats"], key=int) == [str(s) for s in range(int(p))]
    assert "--strategies-file" in summary["command"]
