"""`gnoming-sim report --from FILE.parquet` and `simulate --report DIR`: the report's standings
equal `simulate --json` of the same run; bad input (not Parquet, no batch metadata, a
half-written .partial file, an unwritable or occupied --out) gives one line and exit 2;
an interrupted report leaves the previous one in place."""
from __future__ import annotations

import json

import pyarrow as pa
import pyarrow.parquet as pq
import pytest


SEATS = "builder,greedy,rusher,cautious"


def _simulate(cli_run, path, seats=SEATS, players=4, games=2000, seed=3, *extra):
    result = cli_run(["simulate", "--players", players, "--seats", seats, "--games", games, "--seed", seed, "--out",
                      path, "--json", *extra])
    return json.loads(result.stdout)


def _one_line_error(result, fragment):
    assert result.exit_code == 2, (result.output, result.exception)
    assert result.stderr.startswith("gnoming-sim: error: "), result.stderr
    assert len(result.stderr.strip().splitlines()) == 1, result.stderr
    assert fragment in result.stderr, result.stderr


@pytest.fixture(scope="module")
def batch(cli_run, tmp_path_factory):
    """A 4-player batch, its `simulate --json` summary and its report."""
    root = tmp_path_factory.mktemp("batch")
    summary = _simulate(cli_run, root / "b.parquet")
    result = cli_run(["report", "--from", root / "b.parquet", "--out", root / "b-report"])
    assert "b-report" in result.stdout
    report = json.loads((root / "b-report" / "summary.json").read_text())
    return root, summary, report


def _compare(summary, report):
    for name, e in summary["by_strategy"].items():
        mine = report["standings"]["by_strategy"][name]
        seats = mine["seats_per_game"]
        assert mine["mean_game_score"]["mean"] == pytest.approx(e["mean_game_score"], rel=1e-12, abs=1e-12)
        assert mine["win_share"]["mean"] == pytest.approx(e["win_share"], rel=1e-12)
        assert mine["mean_game_score"]["n"] * seats == e["n_seats_played"] == summary["games"] * seats
    for seat, e in summary["by_seat"].items():
        mine = report["standings"]["by_seat"][seat]
        assert mine["mean_game_score"]["mean"] == pytest.approx(e["mean_game_score"], rel=1e-12, abs=1e-12)
        assert mine["win_share"]["mean"] == pytest.approx(e["win_share"], rel=1e-12)
        assert mine["mean_game_score"]["n"] == summary["games"]


def _compare_intervals(summary, report):
    """simulate's summary and the report's standings are one tally (game_sums.GroupSums) and one
    win-share interval (game_sums.win_share): their intervals agree."""
    for group in ("by_strategy", "by_seat"):
        for key, e in summary[group].items():
            mine = report["standings"][group][key]
            assert mine["mean_game_score"]["ci95"] == pytest.approx(e["ci95"], rel=1e-9)
            assert mine["win_share"]["ci95"] == pytest.approx(e["win_ci95"], rel=1e-9)


def test_report_standings_equal_simulate_json(batch):
    _, summary, report = batch
    _compare(summary, report)
    # with one seat per strategy a game is one seat-play: the score intervals agree already
    for name, e in summary["by_strategy"].items():
        assert report["standings"]["by_strategy"][name]["mean_game_score"]["ci95"] == pytest.approx(e["ci95"])


def test_report_intervals_equal_simulate_json(batch):
    _, summary, report = batch
    _compare_intervals(summary, report)


@pytest.mark.slow
def test_a_strategy_in_two_seats_counts_once_per_game(cli_run, tmp_path):
    summary = _simulate(cli_run, tmp_path / "d.parquet", "builder,builder,rusher", 3, 600, 5)
    result = cli_run(["report", "--from", tmp_path / "d.parquet"])
    report = json.loads((tmp_path / "d-report" / "summary.json").read_text())   # the default --out
    assert report["standings"]["by_strategy"]["builder"]["seats_per_game"] == 2
    _compare(summary, report)
    _compare_intervals(summary, report)


@pytest.mark.slow
def test_the_acceptance_run(cli_run, tmp_path):
    """The issue's own commands: 20,000 games, seed 3."""
    summary = _simulate(cli_run, tmp_path / "b.parquet", games=20000)
    result = cli_run(["report", "--from", tmp_path / "b.parquet", "--out", tmp_path / "b-report"])
    report = json.loads((tmp_path / "b-report" / "summary.json").read_text())
    _compare(summary, report)
    assert report["batch"]["games"] == 20000


def test_report_files(batch):
    root, _, report = batch
    out = root / "b-report"
    names = {p.name for p in out.iterdir()}
    assert {"index.html", "summary.json", "batch-standings.png", "batch-finish-by-score.png",
            "batch-standings-strategy.csv", "batch-finish-by-score.csv"} <= names
    assert not [p for p in root.iterdir() if p.name.startswith(".")], "a temporary folder was left behind"
    facts = report["batch"]
    assert facts["seed"] == 3 and facts["players"] == 4 and facts["seats"] == SEATS.split(",")
    assert "--seed 3" in facts["command"] and facts["rules"]["max_turns"] == 500


@pytest.mark.slow   # a second batch and report; the module fixture covers the report in test-fast
def test_simulate_report_shortcut(cli_run, tmp_path):
    result = cli_run(["simulate", "--players", 2, "--seats", "greedy,rusher", "--games", 300, "--out",
                      tmp_path / "s.parquet", "--report", tmp_path / "s-report", "--json"])
    json.loads(result.stdout)                               # stdout stays one JSON object
    assert "s-report" in result.stderr
    assert (tmp_path / "s-report" / "index.html").exists()


# ------------------------------------------------------------------ bad input
def test_not_parquet(cli_run, tmp_path):
    path = tmp_path / "notes.parquet"
    path.write_text("these are not games\n")
    _one_line_error(cli_run(["report", "--from", path], code=2), "not a readable Parquet file")


def test_parquet_without_batch_metadata(cli_run, tmp_path):
    path = tmp_path / "other.parquet"
    pq.write_table(pa.table({"x": [1, 2, 3]}), path)
    _one_line_error(cli_run(["report", "--from", path], code=2), "not written by gnoming-sim simulate")


def test_half_written_partial_file(cli_run, batch, tmp_path):
    root, _, _ = batch
    data = (root / "b.parquet").read_bytes()
    partial = tmp_path / ".b.parquet.partial"
    partial.write_bytes(data[: len(data) // 2])             # no footer yet, as while simulate writes
    _one_line_error(cli_run(["report", "--from", partial], code=2), "half-written")
    _one_line_error(cli_run(["report", "--from", tmp_path / "b.parquet"], code=2), "still being written")


def test_missing_file(cli_run, tmp_path):
    _one_line_error(cli_run(["report", "--from", tmp_path / "none.parquet"], code=2), "does not exist")


def test_unwritable_out(cli_run, batch, tmp_path):
    root, _, _ = batch
    blocker = tmp_path / "file"
    blocker.write_text("x")
    _one_line_error(cli_run(["report", "--from", root / "b.parquet", "--out", blocker / "r"], code=2), "--out")
    _one_line_error(cli_run(["report", "--from", root / "b.parquet", "--out", blocker], code=2), "is a file")


def test_occupied_out_needs_force_and_keeps_the_files_it_did_not_write(cli_run, batch, tmp_path):
    root, _, _ = batch
    out = tmp_path / "r"
    out.mkdir()
    (out / "keep.txt").write_text("mine")
    _one_line_error(cli_run(["report", "--from", root / "b.parquet", "--out", out], code=2), "keep.txt")
    assert (out / "keep.txt").read_text() == "mine"
    result = cli_run(["report", "--from", root / "b.parquet", "--out", out, "--force"])
    assert (out / "index.html").exists() and (out / "keep.txt").read_text() == "mine"
    assert [p.name for p in tmp_path.iterdir()] == ["r"]


def test_an_interrupted_report_keeps_the_previous_one(cli_run, batch, tmp_path, monkeypatch):
    import shutil

    root, _, _ = batch
    out = tmp_path / "r"
    shutil.copytree(root / "b-report", out)   # the previous report: the module's, as `report` wrote it
    before = (out / "index.html").read_bytes()

    def interrupted(*args, **kwargs):
        raise KeyboardInterrupt

    monkeypatch.setattr("gnoming_sim.batch.scan.scan_batch", interrupted)
    result = cli_run(["report", "--from", root / "b.parquet", "--out", out, "--force"], code=130)
    assert result.stderr.strip() == f"gnoming-sim: interrupted; {out} is left as it was"
    assert (out / "index.html").read_bytes() == before
    assert [p.name for p in tmp_path.iterdir()] == ["r"], "a temporary folder was left behind"


@pytest.mark.parametrize("args, fragment", [
    (["--games", "5"], "--games"),
    (["--quick"], "--quick"),
    (["--seed", "1"], "--seed"),
])
def test_study_options_do_not_mix_with_from(cli_run, batch, args, fragment):
    root, _, _ = batch
    _one_line_error(cli_run(["report", "--from", root / "b.parquet", *args], code=2), fragment)


def test_simulate_report_needs_out(cli_run, tmp_path):
    _one_line_error(cli_run(["simulate", "--games", 10, "--report", tmp_path / "r"], code=2), "--report needs --out")


def test_simulate_report_checks_the_folder_before_playing(cli_run, tmp_path):
    out = tmp_path / "r"
    out.mkdir()
    (out / "x").write_text("x")
    result = cli_run(["simulate", "--games", 10, "--out", tmp_path / "g.parquet", "--report", out], code=2)
    _one_line_error(result, "--report")
    assert not (tmp_path / "g.parquet").exists()
