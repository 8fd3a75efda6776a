"""`gnoming-sim drill` and the deck `review` fills: a card answered at the prompt is graded, shown
and rescheduled; --due lists, --retry drills the missed ones, --include-inaccuracies adds ?!; a deck that is
not one is one line, exit 2, left as it is; review adds its marked decisions to the deck once."""
from __future__ import annotations

import datetime as dt
import json
import sys
from pathlib import Path

import pytest
from click.testing import CliRunner

from gnoming_sim.cli.app import cli
from gnoming_sim.drills import deck as D

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "drills"))
from test_drill import PID, make_card  # noqa: E402  (the library tests' card: the example position's)

TODAY = dt.date.today()
BLUNDER = """players = 4
seat = 0
[[rounds]]
starter = 0
setup = ["5", "6"]
flips = [[[0, "8"], [1, "8"]], [[0, "3"], [1, "4"]], [[0, "5"], [1, "7"]], [[0, "-1"], [1, "6"]]]
turns = [{seat = 0, draw = "draw", card = "M", place = "discard", pile = 0}]
"""   # row 0 shows 8 8 ?: the mulligan drawn completes it, and seat 0 throws it away


def run(*args, code=0, input=None):
    result = CliRunner().invoke(cli, [str(a) for a in args], input=input)
    assert result.exit_code == code, (result.output, result.exception)
    return result


@pytest.fixture
def deck(tmp_path):
    path = tmp_path / "deck.parquet"
    D.save(path, [make_card(due=TODAY, added=TODAY)])
    return path


def test_a_right_answer_is_shown_and_moves_the_card_up(deck):
    out = run("drill", "--deck", deck, input="pos2\n").stdout
    assert "card 1 of 1: a mistake (?) of yours, box 1" in out
    assert "seat 1 (you)" in out and "discard piles, bottom first: pile 0: 7 8 6 5" in out
    table = out[out.index("options:"):out.index("your move")]
    assert table.index("pos0") < table.index("pos2") < table.index("pos4") < table.index("discard")  # not ranked
    assert "right: pos2 (label of pos2): the rollouts cannot tell it from the best" in out
    assert "the best: pos4 (label of pos4); counted right too (not told apart from it): pos2, pos3" in out
    assert "in the game: discard (label of discard), a mistake (?): it lost 5.5 pp of win chance" in out
    assert f"next: box 2, due {TODAY + dt.timedelta(days=3)}" in out
    assert "drilled 1 card(s): 1 right, 0 missed or skipped" in out
    (card,) = D.load(deck)
    assert (card.box, card.hits, card.last_result) == (2, 1, "hit")


@pytest.mark.parametrize("answer, head", [
    ("1\n", "wrong: pos0 (label of pos0): +6.0 pp behind the best [95% CI +2.5, +9.5]"),   # option 1 of the list
    ("discard\n", "wrong: discard (label of discard): the move played in the game"),
    ("nonsense\ns\n", "skipped (counts as a miss)"),
])
def test_a_miss_or_a_skip_sends_the_card_back_to_box_one(deck, answer, head):
    D.save(deck, [make_card(due=TODAY, box=3)])
    out = run("drill", "--deck", deck, input=answer).stdout
    assert head in out and f"next: box 1, due {TODAY + dt.timedelta(days=1)}" in out
    assert ("'nonsense' is not an option" in out) == answer.startswith("nonsense")
    assert D.load(deck)[0].box == 1


def test_quitting_or_the_end_of_the_input_keeps_the_card(deck):
    for answer in ("q\n", ""):
        out = run("drill", "--deck", deck, input=answer).stdout
        assert "drilled 0 card(s)" in out
    assert D.load(deck)[0].attempts == 0


def test_due_retry_and_the_threshold(deck):
    later = TODAY + dt.timedelta(days=7)
    D.save(deck, [make_card(due=TODAY), make_card(played="pos0", symbol="?!", mark="inaccuracy", due=TODAY),
                  make_card(played="pos1", due=later, last_result="miss")])
    out = run("drill", "--deck", deck, "--due").stdout
    assert out.startswith("1 card(s) due now, of 2 marked ?? ? (3 in the deck)") and str(later) in out
    assert "2 card(s) due now, of 3" in run("drill", "--deck", deck, "--due", "--include-inaccuracies").stdout
    out = run("drill", "--deck", deck, "--retry", input="q\n").stdout
    assert "card 1 of 1" in out                              # the missed card, not due for a week
    out = run("drill", "--deck", deck, "--include-inaccuracies", input="s\ns\n").stdout
    assert "card 2 of 2" in out and "an inaccuracy (?!)" in out
    assert "nothing is due (2 card(s) marked ?? ? in" in run("drill", "--deck", deck).stdout


def test_no_deck_yet():
    assert "no drill deck yet" in run("drill").stdout           # the default deck, in this test's data folder


@pytest.mark.parametrize("args, fragment", [
    (["--due", "--retry"], "give one of them"),
    (["--deck", "{tmp}/none.parquet"], "no drill deck there"),
    (["--deck", "{tmp}/bad.parquet"], "not a readable Parquet file ("),
])
def test_bad_input_is_one_line(tmp_path, args, fragment):
    bad = tmp_path / "bad.parquet"
    bad.write_bytes(b"not a deck")
    result = run("drill", *[a.format(tmp=tmp_path) for a in args], code=2)
    lines = result.stderr.splitlines()
    assert len(lines) == 1 and lines[0].startswith("gnoming-sim: error: ") and fragment in lines[0], lines
    assert bad.read_bytes() == b"not a deck"


# ------------------------------------------------------------------ review fills the deck
@pytest.mark.slow   # two reviews (about 4 s in all)
def test_review_adds_its_marks_to_the_deck_once(tmp_path, own_data_home):
    record = tmp_path / "blunder.toml"
    record.write_text(BLUNDER, encoding="utf-8")
    fast = ["--rollouts", "30", "--confirm", "60", "--why-rollouts", "0", "--threads", "2"]
    out = run("review", record, *fast, "--out", tmp_path / "r1").stdout
    path = own_data_home / "gnoming-sim" / "drills.parquet"
    assert f"drills: 1 marked decision(s) added to {path} (1 in the deck" in out
    (card,) = D.load(path)
    assert (card.symbol, card.played, card.box) == ("??", "discard", 1) and card.best != "discard"
    graded = json.loads((tmp_path / "r1" / "review.json").read_text())["decisions"]
    assert card.position_id == next(g["position_id"] for g in graded if g["symbol"] == "??")
    assert f"position ID <code>{card.position_id}</code>" in (tmp_path / "r1" / "index.html").read_text()
    again = run("review", record, *fast, "--out", tmp_path / "r2", "--json")
    assert "drills: 0 marked decision(s) added" in again.stderr and json.loads(again.stdout)
    assert len(D.load(path)) == 1
    out = run("drill", input="discard\n").stdout
    assert "wrong: discard (throw away M): the move played in the game" in out


def test_review_refuses_a_deck_that_is_not_one_before_any_rollout(no_engine, tmp_path):
    record = tmp_path / "blunder.toml"
    record.write_text(BLUNDER, encoding="utf-8")
    bad = tmp_path / "bad.parquet"
    bad.write_bytes(b"PAR1 broken")
    result = run("review", record, "--drill-deck", bad, "--out", tmp_path / "r", code=2)
    assert result.stderr.count("\n") == 1 and "drill deck" in result.stderr and "another --drill-deck" in result.stderr
    assert bad.read_bytes() == b"PAR1 broken" and not (tmp_path / "r").exists()
    result = run("review", record, "--drill-deck", bad, "--no-drills", "--out", tmp_path / "r", code=2)
    assert "give one of them" in result.stderr
