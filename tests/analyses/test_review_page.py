"""`gnoming-sim review`'s acceptance commands: the example record and a simulated game each write a
self-contained page that headless Chromium renders (skipped without Chromium) and a review.json that
--json prints too; the simulated game and the record it saves are graded alike (one code path).
Small budgets (--rollouts 20 --confirm 20): these tests are about the command, not the marks."""
from __future__ import annotations

import json
import re
from pathlib import Path

import pytest
from _pages import assert_renders
from click.testing import CliRunner

from gnoming_sim.cli.app import cli

pytestmark = pytest.mark.slow   # three reviews of whole games

ROOT = Path(__file__).resolve().parents[2]
SMALL = ["--rollouts", "20", "--confirm", "20"]
GAME = ["--seed", "1", "--game", "0", "--seat", "2", "--players", "4", "--strategy", "builder"]


def _run(args, cwd: Path, monkeypatch):
    monkeypatch.chdir(cwd)
    result = CliRunner().invoke(cli, ["review", *args, *SMALL])
    assert result.exit_code == 0, (result.output, result.exception)
    return result.stdout


@pytest.fixture(scope="module")
def reviews(tmp_path_factory):
    mp = pytest.MonkeyPatch()
    try:
        work = tmp_path_factory.mktemp("review")
        (work / "examples").mkdir()
        (work / "examples" / "review-record.toml").write_bytes((ROOT / "examples" / "review-record.toml").read_bytes())
        out = {"example": _run(["examples/review-record.toml"], work, mp)}
        out["game"] = _run([*GAME, "--out", "game", "--save-record", "saved.toml"], work, mp)
        out["saved"] = _run(["saved.toml", "--out", "saved", "--json"], work, mp)
        return work, out
    finally:
        mp.undo()


def test_both_acceptance_commands_write_a_page_that_renders(reviews, tmp_path, request):
    work, out = reviews
    assert "wrote review/index.html" in out["example"] and "error rate" in out["example"]
    for folder in ("review", "game"):
        page = work / folder / "index.html"
        html = page.read_text(encoding="utf-8")
        assert "<script" not in html and not re.search(r"(src|href)=\"https?:", html)   # self-contained
        assert "Verdict:" in html and 'class="decision' in html and 'class="extras"' in html
        assert_renders(request.getfixturevalue("chromium"), page, tmp_path / folder)   # skipped without Chromium


def test_the_simulated_game_and_its_saved_record_are_graded_alike(reviews):
    work, out = reviews
    game = json.loads((work / "game" / "review.json").read_text(encoding="utf-8"))
    saved = json.loads(out["saved"])
    assert saved == json.loads((work / "saved" / "review.json").read_text(encoding="utf-8"))   # --json: the same data
    def graded(res):   # all but the words naming the source
        return [{k: v for k, v in d.items() if k != "describe"} for d in res["decisions"]]

    assert graded(saved) == graded(game) and saved["summary"] == game["summary"]
    assert saved["decisions"][0]["describe"].startswith("saved.toml: round 1")
    assert game["game"]["source"] == {"kind": "simulated", "seed": 1, "game": 0}
    summary = game["summary"]
    assert summary["decisions"] == len(game["decisions"]) > 40
    assert sum(summary["marks"].values()) == summary["graded"]
    for d in game["decisions"]:
        assert d["forced"] == (d["mark"] is None)
        if d["mark"] not in (None, "ok"):   # a mark only where the game's BH keeps the decision's loss
            assert d["separated"] and d["p_adjusted"] <= summary["mark_rate"] and d["played"] != d["best"]
            assert d["loss_win"]["est"] > 0
        assert d["position"]["me"] == 2 and len(d["position"]["layouts"]) == 4


def test_an_earlier_review_is_kept_without_force(reviews, monkeypatch):
    work, _ = reviews
    monkeypatch.chdir(work)
    result = CliRunner().invoke(cli, ["review", "examples/review-record.toml", *SMALL])
    assert result.exit_code == 2 and "already holds a report; add --force" in result.stderr
