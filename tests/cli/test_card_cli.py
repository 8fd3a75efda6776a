"""`gnoming-sim card` from the command line: a small run writes the card, the page, card.json and the
starred cells (the registry reads them), never into a non-empty folder without --force; bad input is
one line and exit 2 before any decision is rolled out."""
from __future__ import annotations

import json

import pytest
from click.testing import CliRunner

from gnoming_sim.cli.app import cli
from gnoming_sim.kernel.policy import registry

SMALL = ["card", "--games", "12", "--players", "2,4", "--budget", "2", "--check-deals", "4", "--ladder-games", "8",
         "--threads", "1", "--seed", "2", "--records"]


@pytest.mark.slow
def test_a_small_derivation_writes_its_files(tmp_path):
    out = tmp_path / "g"
    r = CliRunner().invoke(cli, [*SMALL, "--out", str(out)], catch_exceptions=False)
    assert r.exit_code == 0, r.output
    for name in ("card.json", "card.png", "index.html", "card_cells.json", "decisions.csv.gz"):
        assert (out / name).stat().st_size > 0, name
    assert (out / "card.png").read_bytes()[:4] == b"\x89PNG"
    assert r.stdout.startswith("PREVIEW: made from ")     # 12 games per size: far fewer than the committed card
    g = json.loads((out / "card.json").read_text())
    assert set(g["tables"]) == {"source", "place", "finish"} and g["decisions"] > 0
    assert g["self_play"] == "net"          # the strongest fast player; the committed starred cells: learned
    chk = g["check"]["versus_expert"]
    assert chk["players"] == 4 and chk["diff"]["n"] == 4
    assert g["check"]["card_versus_expert"]["strategy"] == "card" and g["check"]["card_versus_expert"]["deals"] == 4
    assert set(g["check"]["ladder"]["ratings"]) == {"random", "greedy", "expert", "learned", "card-starred"}
    page = (out / "index.html").read_text()
    assert "margin [95% CI]" in page and "following this card" in page and "points per game" in page
    s = registry.card_starred_from_file(out / "card_cells.json")
    assert s.kind == registry.KIND_CARD_STARRED and "starred" in r.stdout
    assert registry.card_from_file(out / "card_cells.json").kind == registry.KIND_CARD   # the card: its tables
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
    from gnoming_sim.tune.card import derive

    monkeypatch.setattr(derive, "collect", lambda *a, **k: pytest.fail("a decision was rolled out"))
    r = CliRunner().invoke(cli, ["card", "--out", str(tmp_path / "x"), *args])
    assert r.exit_code == 2, r.output
    lines = r.stderr.strip().splitlines()
    assert len(lines) == 1 and lines[0].startswith("gnoming-sim: error: "), r.stderr
    assert message in lines[0]


@pytest.mark.parametrize("option,value", [("--rounds", "1"), ("--rounds", "4"), ("--rounds", "0"), ("--rounds", "99"),
                                          ("--focus", "8"), ("--start", "x.json"), ("--continue-from", "d")])
def test_iteration_options_without_iterate_are_refused_not_ignored(tmp_path, option, value, monkeypatch):
    """--rounds, --focus, --start, --continue-from steer the policy iteration; the derivation has no rounds, so they
    are refused there, never ignored (in range or not, the line names the missing --iterate)."""
    from gnoming_sim.tune.card import derive

    monkeypatch.setattr(derive, "collect", lambda *a, **k: pytest.fail("a decision was rolled out"))
    r = CliRunner().invoke(cli, ["card", "--out", str(tmp_path / "x"), option, value])
    assert r.exit_code == 2, r.output
    lines = r.stderr.strip().splitlines()
    assert lines == [lines[0]] and lines[0].startswith(f"gnoming-sim: error: {option} needs --iterate"), r.stderr
    assert not (tmp_path / "x").exists()


def test_a_file_in_the_way_is_refused(tmp_path):
    f = tmp_path / "f"
    f.write_text("x")
    r = CliRunner().invoke(cli, ["card", "--out", str(f)])
    assert r.exit_code == 2 and "not a folder" in r.stderr


def test_no_out_and_a_bad_install_are_one_line_and_exit_2(tmp_path):
    r = CliRunner().invoke(cli, ["card"])
    assert r.exit_code == 2 and "--out DIR is required (or --install CELLS_JSON)" in r.stderr
    r = CliRunner().invoke(cli, ["card", "--install", str(tmp_path / "missing.json")])
    assert r.exit_code == 2 and len(r.stderr.strip().splitlines()) == 1 and "--install" in r.stderr


def test_install_puts_a_runs_tables_into_the_committed_cells_file(tmp_path, monkeypatch):
    target = tmp_path / "card_cells.json"
    target.write_bytes(registry.CARD_CELLS.read_bytes())
    run = tmp_path / "cells.json"
    run.write_text(json.dumps({"tables": {"source": {"cells": []}}, "card_provenance": {"rounds": 1}}))
    starred = json.loads(target.read_text())["cells"]
    monkeypatch.setattr(registry, "CARD_CELLS", target)
    r = CliRunner().invoke(cli, ["card", "--install", str(run)])
    assert r.exit_code == 0, r.output
    data = json.loads(target.read_text())
    assert data["tables"] == {"source": {"cells": []}} and data["card_provenance"] == {"rounds": 1}
    assert data["cells"] == starred          # the starred cells as they were
