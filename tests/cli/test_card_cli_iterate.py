"""`gnoming-sim card --iterate`: the card by policy iteration from the command line: a small run
writes its history, the card's tables (the card preset's reader reads them), the card and its page, and says
PREVIEW (smaller than the committed card's iteration) first; bad input is one line and exit 2 before any game."""
from __future__ import annotations

import csv
import json

import pytest
from click.testing import CliRunner

from gnoming_sim.cli.app import cli
from gnoming_sim.cli.card import iteration_preview
from gnoming_sim.kernel.policy import registry
from gnoming_sim.tune.card.iterate import IterationConfig


@pytest.mark.slow
def test_a_small_iteration_writes_its_files_and_says_preview(tmp_path):
    out = tmp_path / "it"
    args = ["card", "--iterate", "--out", str(out), "--games", "2", "--players", "3", "--decisions", "20",
            "--budget", "2", "--rounds", "1", "--threads", "1", "--seed", "3"]
    r = CliRunner().invoke(cli, args, catch_exceptions=False)
    assert r.exit_code == 0, r.output
    assert r.stdout.startswith("PREVIEW: a smaller policy iteration than the committed card's")
    for name in ("history.json", "history.csv", "cells.json", "card.png", "index.html"):
        assert (out / name).stat().st_size > 0, name
    rows = list(csv.DictReader((out / "history.csv").read_text().splitlines()))
    assert len(rows) == 1 and int(rows[0]["decisions"]) > 0
    cells = json.loads((out / "cells.json").read_text())
    assert cells["preview"]["text"].startswith("PREVIEW") and cells["card_provenance"]["rollouts"] == 2
    assert registry.card_from_file(out / "cells.json").kind == registry.KIND_CARD
    assert "policy iteration" in (out / "index.html").read_text()
    again = CliRunner().invoke(cli, args)
    assert again.exit_code == 2 and "--force" in again.stderr


def test_preview_is_said_for_a_smaller_run_only():
    committed = json.loads(registry.CARD_CELLS.read_text())["card_provenance"]
    same = IterationConfig(rounds=committed["round_cap"], games=committed["games_per_size"],
                           decisions=committed["decisions_per_round"], rollouts=committed["rollouts"])
    assert iteration_preview(same, committed) == ""
    small = IterationConfig(rounds=1, games=2, decisions=20, rollouts=2)
    line = iteration_preview(small, committed)
    assert line.startswith("PREVIEW") and "rollouts a decision 2" in line
    assert iteration_preview(small, None) == ""


@pytest.mark.parametrize("args,message", [(["--rounds", "0"], "--rounds"), (["--games", "0"], "--games"),
                                          (["--budget", "0"], "--budget"), (["--seed", str(2**40)], "--seed")])
def test_bad_input_is_one_line_and_exit_2(tmp_path, args, message, monkeypatch):
    from gnoming_sim.tune.card import iterate

    monkeypatch.setattr(iterate, "one_round", lambda *a, **k: pytest.fail("a round was played"))
    r = CliRunner().invoke(cli, ["card", "--iterate", "--out", str(tmp_path / "x"), *args])
    assert r.exit_code == 2, r.output
    lines = r.stderr.strip().splitlines()
    assert len(lines) == 1 and lines[0].startswith("gnoming-sim: error: "), r.stderr
    assert message in lines[0]
