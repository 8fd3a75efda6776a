"""`gnoming-sim guide` from the command line: a small run writes the card, the page, guide.json and the
chart's cells (the registry reads them), never into a non-empty folder without --force; bad input is
one line and exit 2 before any decision is rolled out."""
from __future__ import annotations

import json

import pytest
from click.testing import CliRunner

from gnoming_sim.cli.app import cli
from gnoming_sim.kernel.policy import registry

SMALL = ["guide", "--games", "12", "--players", "2,4", "--budget", "2", "--check-deals", "4", "--ladder-games", "8",
         "--threads", "1", "--seed", "2", "--records"]


@pytest.mark.slow
def test_a_small_guide_writes_its_files(tmp_path):
    out = tmp_path / "g"
    r = CliRunner().invoke(cli, [*SMALL, "--out", str(out)], catch_exceptions=False)
    assert r.exit_code == 0, r.output
    for name in ("guide.json", "card.png", "index.html", "chart_cells.json", "decisions.csv.gz"):
        assert (out / name).stat().st_size > 0, name
    assert (out / "card.png").read_bytes()[:4] == b"\x89PNG"
    assert r.stdout.startswith("PREVIEW: made from ")     # 12 games per size: far fewer than the committed card
    g = json.loads((out / "guide.json").read_text())
    assert set(g["tables"]) == {"source", "place", "finish"} and g["decisions"] > 0
    assert g["self_play"] == "net"          # the strongest fast player; the committed chart: learned
    chk = g["check"]["versus_expert"]
    assert chk["players"] == 4 and chk["diff"]["n"] == 4
    assert g["check"]["card_versus_expert"]["strategy"] == "card" and g["check"]["card_versus_expert"]["deals"] == 4
    assert set(g["check"]["ladder"]["ratings"]) == {"random", "greedy", "expert", "learned", "chart"}
    page = (out / "index.html").read_text()
    assert "margin [95% CI]" in page and "following this card" in page and "points per game" in page
    s = registry.chart_from_file(out / "chart_cells.json")
    assert s.kind == registry.KIND_CHART and "chart" in r.stdout
    assert registry.card_from_file(out / "chart_cells.json").kind == registry.KIND_CARD   # the card: its tables
    again = CliRunner().invoke(cli, [*SMALL, "--out", str(out)])
    assert again.exit_code == 2 and "already holds a report" in again.stderr and "--force" in again.stderr


@pytest.mark.parametrize("args,message", [
    (["--games", "0"], "--games"),
    (["--players", "2,9"], "--players"),
    (["--players", "4,4"], "twice"),
    (["--budget", "0"], "--budget"),
    (["--check-deals", "1"], "--check-deals"),
    (["--decisions", "0"], "--decisions"),
])
def test_bad_input_is_one_line_and_exit_2(tmp_path, args, message, monkeypatch):
    from gnoming_sim.tune import guide as gd

    monkeypatch.setattr(gd, "collect", lambda *a, **k: pytest.fail("a decision was rolled out"))
    r = CliRunner().invoke(cli, ["guide", "--out", str(tmp_path / "x"), *args])
    assert r.exit_code == 2, r.output
    lines = r.stderr.strip().splitlines()
    assert len(lines) == 1 and lines[0].startswith("gnoming-sim: error: "), r.stderr
    assert message in lines[0]


@pytest.mark.parametrize("rounds", ["1", "4", "0", "99"])
def test_rounds_without_iterate_is_refused_not_ignored(tmp_path, rounds, monkeypatch):
    """--rounds caps the policy iteration's rounds; the derivation has none, so it is refused there, never ignored
    (in range or not, the line names the missing --iterate)."""
    from gnoming_sim.tune import guide as gd

    monkeypatch.setattr(gd, "collect", lambda *a, **k: pytest.fail("a decision was rolled out"))
    r = CliRunner().invoke(cli, ["guide", "--out", str(tmp_path / "x"), "--rounds", rounds])
    assert r.exit_code == 2, r.output
    lines = r.stderr.strip().splitlines()
    assert lines == [lines[0]] and lines[0].startswith("gnoming-sim: error: --rounds needs --iterate"), r.stderr
    assert not (tmp_path / "x").exists()


def test_a_file_in_the_way_is_refused(tmp_path):
    f = tmp_path / "f"
    f.write_text("x")
    r = CliRunner().invoke(cli, ["guide", "--out", str(f)])
    assert r.exit_code == 2 and "not a folder" in r.stderr
