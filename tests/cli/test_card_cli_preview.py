"""`gnoming-sim card` marks a card made from too few games to replace the committed one as a PREVIEW on
every face of it (stdout, card.json, card_cells.json, the page, the card), and says what each of its
numbers measured.  The derivation is replaced by the committed derivation cut to 100 games per
table size, as the docs' `card --games 100` example makes, with its check and ladder as that run found
them: no starred cell, the starred cells exactly expert's +0.00, yet -17 Elo on the ladder."""
from __future__ import annotations

import copy
import json
from pathlib import Path

import pytest
from click.testing import CliRunner

from gnoming_sim.cli.app import cli
from gnoming_sim.tune.card import page

DERIVED = Path(__file__).resolve().parents[2] / "tuning" / "guide" / "guide.json"
COMMITTED = {"rounds": {str(p): 20000 for p in range(2, 8)}, "decisions": 1_113_118}


def _t(mean, lo, hi, n):
    return {"mean": mean, "ci95": [lo, hi], "n": n}


def small_card(games: int = 100) -> dict:
    g = copy.deepcopy(json.loads(DERIVED.read_text(encoding="utf-8")))
    g.update(players=[2, 4, 6], rounds={"2": games, "4": games, "6": games}, decisions=5_000, cells={})
    zero = {"strategy": "card-starred", "reference": "expert", "rivals": "expert", "players": 4, "deals": 1000,
            "diff": _t(0.0, 0.0, 0.0, 1000), "win": _t(0.0, 0.0, 0.0, 1000), "win_x": _t(0.25, 0.22, 0.28, 1000),
            "win_expert": 0.25}
    card = {**zero, "strategy": "card", "diff": _t(31.6, 29.9, 33.3, 1000), "win": _t(-0.2, -0.22, -0.18, 1000),
            "win_x": _t(0.05, 0.04, 0.06, 1000)}
    ladder = copy.deepcopy(g["check"]["ladder"])
    ladder["ratings"]["card-starred"] = {**ladder["ratings"].pop("chart"), "rating": _t(-17.0, -40.0, 6.0, 500)}
    ladder["games"] = 500
    g["check"] = {"card_versus_expert": card, "versus_expert": zero, "ladder": ladder}
    return g


def test_fewer_games_than_the_committed_card_is_a_preview():
    p = page.preview_of(small_card(100), COMMITTED)
    assert p["games"] == 100 and p["committed_games"] == 20000
    assert p["text"].startswith("PREVIEW: made from 100 games per table size (5,000 decisions); the committed card "
                                "used 20,000 (1,113,118 decisions); this card's cells are not resolved")
    assert page.preview_of(small_card(20000), COMMITTED) is None      # as many games: not a preview
    assert page.preview_of(small_card(100), None) is None             # nothing committed to compare with


def test_each_number_says_what_it_measured():
    g = small_card()
    value = page.value_line(g)
    assert "no starred cell in this run: it plays exactly as expert, so its difference is 0 by construction" in value
    assert "one seat among 3 experts, paired by deal with experts alone" in value and "n = 1,000 deals" in value
    ladder = page.ladder_line(g)
    assert "card-starred -17 [-40, +6]" in ladder and "not paired with the check above" in ladder
    assert "plays exactly as expert, so its rating's distance from expert's 0 is the ladder's noise" in ladder
    g["cells"] = {"chart.1": 1}
    assert "ladder's noise" not in page.ladder_line(g) and "1 starred cells" in page.value_line(g)


@pytest.fixture
def fake_derive(monkeypatch):
    from gnoming_sim.cli import card as command

    def derive(stage, command_line, games, *rest):
        g = small_card(games)
        g["command"], g["wall_s"], g["_frame"] = command_line, 1.0, None
        cells = {"description": "the card's starred cells", "cells": {}, "provenance": {},
                 "tables": g["tables"], "check": g["check"]}
        return g, cells, 10, 20

    monkeypatch.setattr(command, "_derive", derive)


def test_the_output_and_the_written_card_say_preview(tmp_path, fake_derive):
    out = tmp_path / "g"
    r = CliRunner().invoke(cli, ["card", "--out", str(out), "--games", "100", "--players", "2,4,6"])
    assert r.exit_code == 0, (r.output, r.exception)
    first = r.stdout.splitlines()[0]
    assert first.startswith("PREVIEW: made from 100 games per table size") and "the committed card used 20,000" in first
    assert "the ladder's noise" in r.stdout
    assert json.loads((out / "card.json").read_text())["preview"]["games"] == 100
    cells = json.loads((out / "card_cells.json").read_text())
    assert cells["preview"]["committed_games"] == 20000 and cells["description"].startswith("PREVIEW: ")
    assert "PREVIEW: made from 100 games" in (out / "index.html").read_text()
