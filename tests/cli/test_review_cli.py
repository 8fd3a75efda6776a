"""`gnoming-sim review`: bad input is one line and exit code 2, before any game is played or rolled out
(the sources, the seat, the record file, the output folder); the command's defaults are the search's."""
from __future__ import annotations

from pathlib import Path

import pytest
from click.testing import CliRunner

from gnoming_sim.cli.app import cli

EXAMPLE = str(Path(__file__).resolve().parents[2] / "examples" / "review-record.toml")
GAME = ["--seed", "1", "--game", "0", "--players", "4", "--strategy", "builder"]


def run(*args, code=2):
    result = CliRunner().invoke(cli, ["review", *map(str, args)])
    assert result.exit_code == code, (result.output, result.exception)
    return result


@pytest.mark.parametrize("args, fragment", [
    ([EXAMPLE, "--game", "0"], "give a RECORD file or --game G (a simulated game), not both"),
    ([], "give a RECORD file, or --seed S --game G --seat K"),
    ([*GAME], "--game needs --seat S"),
    ([*GAME, "--seat", "4"], "--seat must be in 0..3 (seats count from 0), got 4"),
    ([EXAMPLE, "--seat", "7"], "--seat must be in 0..3 (the record's seats), got 7"),
    (["no-such-record.toml"], "record file not found: no-such-record.toml"),
    ([EXAMPLE, "--rollouts", "5"], "--rollouts must be in 20..100000"),
    ([EXAMPLE, "--policy", "mc"], "cannot be a rollout policy"),
])
def test_errors_are_one_line(no_engine, tmp_path, args, fragment):
    out = run(*args, "--out", tmp_path / "r").stderr
    assert out.count("\n") == 1 and out.startswith("gnoming-sim: error: ") and fragment in out, out


def test_an_impossible_record_names_its_turn_and_field(no_engine, tmp_path):
    bad = Path(EXAMPLE).read_text(encoding="utf-8").replace(
        '{seat = 0, draw = "pile0", card = "3", place = 2', '{seat = 0, draw = "pile0", card = "4", place = 2', 1)
    path = tmp_path / "bad.toml"
    path.write_text(bad, encoding="utf-8")
    out = run(path, "--out", tmp_path / "r").stderr
    assert out.count("\n") == 1
    assert "round 1, turn 0 (seat 0): field 'card': the top of discard pile 0 is 3, not 4" in out


def test_an_output_folder_with_other_files_is_refused_without_force(no_engine, tmp_path):
    folder = tmp_path / "r"
    folder.mkdir()
    (folder / "notes.txt").write_text("mine", encoding="utf-8")
    out = run(EXAMPLE, "--out", folder).stderr
    assert "already holds files gnoming-sim did not write (notes.txt)" in out and "--force" in out
    assert (folder / "notes.txt").read_text(encoding="utf-8") == "mine"


def test_a_saved_record_is_not_overwritten_without_force(no_engine, tmp_path):
    (tmp_path / "rec.toml").write_text("x", encoding="utf-8")
    out = run(*GAME, "--seat", "2", "--out", tmp_path / "r", "--save-record", tmp_path / "rec.toml").stderr
    assert "exists; add --force" in out


def test_the_commands_defaults_are_the_searchs():
    from gnoming_sim.cli import review as command
    from gnoming_sim.search import review as search

    assert (command.SCREEN, command.CONFIRM, command.DEFAULT_POLICY) == (search.SCREEN, search.CONFIRM,
                                                                         search.DEFAULT_POLICY)


def test_the_example_record_is_the_game_the_documented_command_saves():
    """docs/review.md: `review --seed 3 --game 0 --seat 2 --seats expert,builder,greedy,rusher --save-record`
    writes examples/review-record.toml (less its comments)."""
    from gnoming_sim.cli.review import simulated_record
    from gnoming_sim.game import record as R
    from gnoming_sim.game.deck import PUBLISHED
    from gnoming_sim.game.rules import RuleConfig

    seats = ("expert", "builder", "greedy", "rusher")
    rec = simulated_record(4, seats, 3, True, RuleConfig(), PUBLISHED, 0, 2)
    assert rec.to_mapping() == R.load(EXAMPLE).to_mapping()


@pytest.mark.slow
def test_the_page_renders_extra_sections_of_a_decision():
    """The place for later per-decision analyses: a decision's "extras" appear under its options table."""
    from gnoming_sim.cli.review_page import page
    from gnoming_sim.game import record as R
    from gnoming_sim.game.deck import PUBLISHED
    from gnoming_sim.game.record_trace import decisions
    from gnoming_sim.game.rules import RuleConfig
    from gnoming_sim.reference.record_check import check
    from gnoming_sim.search.review import review

    data = R.load(EXAMPLE).to_mapping()
    data["rounds"] = data["rounds"][:1]
    data["rounds"][0]["turns"] = data["rounds"][0]["turns"][:3]
    del data["rounds"][0]["reveal"]
    rec = R.from_mapping(data, "short")
    done = check(rec, RuleConfig(), PUBLISHED)
    found = decisions(done.deals, done.trace, 4, 2, RuleConfig(), PUBLISHED, done.round_scores, "short")
    res = review(found, screen=20, confirm=20)
    res["decisions"][0]["extras"] = [{"title": "Why", "html": "<p id='why'>because</p>"}]
    res["game"] = {"source": {"kind": "record", "file": "short"}, "players": 4, "seat": 2, "seats": [],
                   "rules": RuleConfig().to_dict(), "deck": "published", "version": "x", "round_scores": []}
    html = page(res)
    assert html.count('<div class="extras">') == len(res["decisions"]) == 2
    assert "<h3>Why</h3><p id='why'>because</p>" in html and "<script" not in html
