"""A batch file from elsewhere: its metadata is checked as a command's own
``--rules``, ``--deck`` and strategies are, by one function for ``report --from``, ``standings()``
and ``simulate --resume`` (:func:`gnoming_sim.batch.parquet.parse_metadata`); games that do not
match the metadata's hazard_value are refused, not counted wrong.  The files are those of the fuzz
harness's ``_fuzz_cases_meta`` (every one of them also runs there, as a command line)."""
from __future__ import annotations

import sys
from pathlib import Path

import pytest

sys.path.insert(0, str(Path(__file__).parent))
import _fuzz_cases_meta as fuzz_meta  # noqa: E402  (a helper beside this file, not a package)

from gnoming_sim.batch.scan import scan_batch  # noqa: E402
from gnoming_sim.batch.standings import standings  # noqa: E402
from gnoming_sim.game.errors import GnomingError  # noqa: E402


@pytest.fixture(scope="module")
def files(tmp_path_factory):
    return fuzz_meta.make_files(tmp_path_factory.mktemp("meta"))


def test_the_control_file_reads(files):
    scan = scan_batch(files["meta:valid"])
    assert scan.games == fuzz_meta.GAMES
    h = scan.hazards_left   # seat 0 keeps one hazard (10 points) in every round, the others none
    rounds = fuzz_meta.GAMES * 3
    assert h.counts[0, 1 - h.lo] == rounds and h.counts[0, 0 - h.lo] == rounds * (fuzz_meta.PLAYERS - 1)
    assert standings(files["meta:valid"]).games == fuzz_meta.GAMES


@pytest.mark.parametrize("name", list(fuzz_meta.DAMAGE)[:10])
def test_report_and_resume_refuse_with_the_same_reason(cli_run, files, tmp_path, name):
    """The issue's seven tracebacks and three wrong reports: one line each, the same reason."""
    report = cli_run(["report", "--from", files[f"meta:{name}"], "--out", tmp_path / "r"], code=2)
    copy = tmp_path / "copy.parquet"
    copy.write_bytes(Path(files[f"meta:{name}"]).read_bytes())
    resume = cli_run(["simulate", "--games", fuzz_meta.GAMES, "--out", copy, "--resume"], code=2)
    for res in (report, resume):
        assert len(res.stderr.splitlines()) == 1 and res.stderr.startswith("gnoming-sim: error: "), res.stderr
    assert copy.read_bytes() == Path(files[f"meta:{name}"]).read_bytes()   # refused, never changed
    if name != "hazard_value_3":   # the metadata itself is wrong: the same sentence, word for word
        reason = report.stderr.split("its batch metadata is damaged", 1)[1]
        assert reason.strip() and reason == resume.stderr.split("its batch metadata is damaged", 1)[1]
    assert not (tmp_path / "r").exists()


def test_a_hazard_value_the_games_were_not_scored_with_is_refused(files):
    with pytest.raises(GnomingError, match=r"10 hazard points in a round, not a whole number of hazards \(0..3\) "
                                           r"at the metadata's hazard_value 3"):
        scan_batch(files["meta:hazard_value_3"])


def test_a_hazard_value_out_of_the_rules_range_is_refused(files):
    for name, text in (("hazard_value_0", "must be 1..50, got 0"), ("hazard_value_neg10", "must be 1..50, got -10")):
        with pytest.raises(GnomingError, match=text):
            standings(files[f"meta:{name}"])


def test_a_column_of_nulls_is_one_line_without_warnings(cli_run, files, tmp_path):
    """pytest turns warnings into errors: numpy's cast warnings on NaN would fail this test."""
    copy = tmp_path / "copy.parquet"
    copy.write_bytes(Path(files[f"meta:{fuzz_meta.NULL_COLUMN}"]).read_bytes())
    res = cli_run(["simulate", "--games", str(fuzz_meta.GAMES), "--out", str(copy), "--resume"], code=2)
    assert res.stderr.splitlines() == [
        f"gnoming-sim: error: --resume: {copy}: column 'hazards' of games 0.. has missing values: the file is "
        "damaged; use --force to start over"]
