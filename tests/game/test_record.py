"""Game records (the input of ``review``): the committed example loads and replays, a record survives a
round trip through TOML and JSON, and every malformed or impossible record is one GnomingError line
naming the round, the turn and the field at fault (the shape by the reader, the cards by the walker,
the rules by the referee)."""
from __future__ import annotations

import copy
import json
import tomllib
from pathlib import Path

import pytest

from gnoming_sim.game import record as R
from gnoming_sim.game.deck import PUBLISHED
from gnoming_sim.game.errors import GnomingError
from gnoming_sim.game.record_trace import decisions
from gnoming_sim.game.rules import RuleConfig
from gnoming_sim.reference.record_check import check

EXAMPLE = Path(__file__).resolve().parents[2] / "examples" / "review-record.toml"


@pytest.fixture
def data():
    with EXAMPLE.open("rb") as fh:
        return tomllib.load(fh)


def _check(data):
    return check(R.from_mapping(data, "rec"), RuleConfig(), PUBLISHED)


def test_example_replays_to_three_scored_rounds_and_the_seats_decisions():
    rec = R.load(EXAMPLE)
    done = check(rec, RuleConfig(), PUBLISHED)
    assert len(done.round_scores) == 3 and all(len(r) == 4 for r in done.round_scores)
    found = decisions(done.deals, done.trace, 4, rec.seat, RuleConfig(), PUBLISHED, done.round_scores)
    kinds = {d.position.decision for d in found}
    assert {"draw", "place"} <= kinds
    assert all(d.position.me == rec.seat for d in found)
    # a draw decision is followed by the place decision of the card drawn
    draws = [d for d in found if d.position.decision == "draw"]
    assert len(draws) == sum(1 for r in rec.rounds for t in r.turns if t.seat == rec.seat)


def test_round_trip_toml_and_json(data, tmp_path):
    rec = R.from_mapping(data, "rec")
    for name in ("again.toml", "again.json"):
        path = tmp_path / name
        path.write_text(R.dumps(rec, path), encoding="utf-8")
        assert R.load(path).to_mapping() == rec.to_mapping()


def test_a_record_may_stop_mid_game(data):
    data["rounds"] = data["rounds"][:1]
    data["rounds"][0]["turns"] = data["rounds"][0]["turns"][:7]
    del data["rounds"][0]["reveal"]
    assert _check(data).round_scores == []


def _turn(data, i, r=0):
    return data["rounds"][r]["turns"][i]


def _set(path_value):
    def change(data):
        *path, value = path_value
        node = data
        for key in path[:-1]:
            node = node[key]
        node[path[-1]] = value
    return change


def _bounce_no_match(data):
    _turn(data, 4)["bounce"] = [[5, "5"]]


def _discard_a_pile_card(data):
    t = _turn(data, 0)
    t["place"] = "discard"
    del t["replaced"], t["bounce"]


def _hazard_pile(data):
    _turn(data, 3)["pile"] = 0


def _extra_turn(data):
    turns = data["rounds"][0]["turns"]
    turns.append(dict(turns[-1], seat=(turns[-1]["seat"] + 1) % 4))


def _no_reveal(data):
    del data["rounds"][0]["reveal"]


def _unknown(data):
    _turn(data, 3)["colour"] = "red"


CASES = [
    ("wrong pile top", _set(["rounds", 0, "turns", 0, "card", "4"]),
     "round 1, turn 0 (seat 0): field 'card': the top of discard pile 0 is 3, not 4"),
    ("out of turn", _set(["rounds", 0, "turns", 1, "seat", 2]), "round 1, turn 1 (seat 2): field 'seat': "),
    ("a face-up card misnamed", _set(["rounds", 0, "turns", 2, "replaced", "5"]),
     "round 1, turn 2 (seat 2): field 'replaced': position 8 holds 4, not 5"),
    ("a bounce that matches nothing", _bounce_no_match,
     "round 1, turn 4 (seat 0): field 'bounce[0]': bounce of 8, which matches no face-up positive card"),
    ("a pile card thrown away", _discard_a_pile_card,
     "round 1, turn 0 (seat 0): field 'place': NOKEEP of a card drawn from a discard pile, which must be kept"),
    ("a hazard on a pile", _hazard_pile, "round 1, turn 3 (seat 3): field 'pile': the card let go is a hazard"),
    ("a fourth hazard", _set(["rounds", 0, "setup_hazards", 3]),
     "round 1: field 'flips[3][1]': this H would be 4 of them in the round's deal, but the deck 'published' holds 3"),
    ("a reveal that contradicts the table", _set(["rounds", 0, "reveal", 0, 0, "5"]),
     "round 1: field 'reveal[0][0]': seat 0 position 0 shows 4 face up, not 5"),
    ("a turn after the round's end", _extra_turn, "field 'seat': the round is over"),
    ("no reveal before the next round", _no_reveal, "round 1: missing field 'reveal'"),
    ("the wrong starter", _set(["rounds", 1, "starter", 0]), "round 2: field 'starter': ROUND by seat 0, expected"),
    ("a stall that cannot be", _set(["rounds", 0, "stalled", True]),
     "round 1: field 'stalled': the draw pile still holds"),
    ("an unknown field", _unknown, "round 1, turn 3: unknown field 'colour'"),
    ("a bad card name", _set(["rounds", 0, "turns", 5, "card", "9"]),
     "round 1, turn 5 (seat 1): field 'card': the deck 'published' has no 9"),
    ("a bad place", _set(["rounds", 0, "turns", 5, "place", 9]),
     "round 1, turn 5 (seat 1): field 'place' must be a position 0..8"),
]


@pytest.mark.parametrize("name, change, message", CASES, ids=[c[0] for c in CASES])
def test_an_impossible_record_is_one_line_naming_the_turn_and_field(data, name, change, message):
    bad = copy.deepcopy(data)
    change(bad)
    with pytest.raises(GnomingError) as err:
        _check(bad)
    text = str(err.value)
    assert "\n" not in text
    assert text.startswith("rec: ") and message in text, text


def test_a_file_that_is_not_json(tmp_path):
    path = tmp_path / "r.json"
    path.write_text("{", encoding="utf-8")
    with pytest.raises(GnomingError, match="is not valid JSON"):
        R.load(path)
    path.write_text(json.dumps([1]), encoding="utf-8")
    with pytest.raises(GnomingError, match="a record is a table"):
        R.load(path)
