"""Position files: the committed example loads, a position survives a round trip, and every
malformed or impossible position is a one-line GnomingError naming the key at fault."""
from __future__ import annotations

import copy
import tomllib

import pytest
from _examples import POSITION, position

from gnoming_sim.search.options import legal_options
from gnoming_sim.game.cards import HIDDEN
from gnoming_sim.game.errors import GnomingError
from gnoming_sim.game.position import from_mapping



@pytest.fixture
def data():
    with POSITION.open("rb") as fh:
        return tomllib.load(fh)


def test_example_loads_and_counts_every_card():
    pos = position()
    assert pos.players == 4 and pos.me == 1 and pos.decision == "place"
    assert len(pos.unseen()) == pos.face_down().sum() + pos.draw_n
    keys = [o.key for o in legal_options(pos)]
    assert keys == [f"pos{q}" for q in range(9)] + ["discard"]    # a blind draw may be thrown away


def test_round_trip(data):
    pos = from_mapping(data)
    again = from_mapping(pos.to_dict())
    assert again.to_dict() == pos.to_dict()
    assert (again.layouts == pos.layouts).all()


def test_draw_decision_options(data):
    data["decision"] = {"kind": "draw"}
    data["draw_pile"] += 1
    pos = from_mapping(data)
    assert [o.key for o in legal_options(pos)] == ["draw", "pile0", "pile1"]


def test_a_card_from_a_pile_must_be_kept(data):
    data["decision"]["source"] = "pile1"
    pos = from_mapping(data)
    assert "discard" not in [o.key for o in legal_options(pos)]


def test_a_card_taken_from_a_pile_but_still_listed_on_it_is_refused(data):
    data["decision"]["source"] = "pile0"        # pile 0 is listed with the 5 in hand on top
    with pytest.raises(GnomingError, match=r"key 'piles': pile 0 still shows the 5 taken from it") as err:
        from_mapping(data)
    assert "\n" not in str(err.value)


def test_another_card_of_that_value_below_is_allowed_when_said_so(data):
    data["decision"].update(source="pile0", same_card_below=True)
    pos = from_mapping(data)
    assert pos.piles[0][-1] == 5 and pos.hand == 5
    again = from_mapping(pos.to_dict())              # the flag survives the round trip
    assert again.to_dict() == pos.to_dict() and again.to_dict()["decision"]["same_card_below"] is True


@pytest.mark.parametrize("decision", [{"kind": "place", "card": "5", "source": "draw", "same_card_below": True},
                                      {"kind": "draw", "same_card_below": True},
                                      {"kind": "place", "card": "5", "source": "pile0", "same_card_below": 1}])
def test_same_card_below_only_on_a_place_from_a_pile(data, decision):
    data["decision"] = decision
    with pytest.raises(GnomingError, match="same_card_below"):
        from_mapping(data)


def test_finishing_option_is_marked(data):
    data["layouts"][1] = ["5", "6", "5", "4", "4", "4", "7", "?", "3"]   # as many more seen as face down
    pos = from_mapping(data)
    fin = [o.key for o in legal_options(pos) if o.finishes]
    assert fin == ["pos7"]


def _mutate(data, path, value):
    d = copy.deepcopy(data)
    target = d
    for key in path[:-1]:
        target = target[key]
    if value is KeyError:
        del target[path[-1]]
    else:
        target[path[-1]] = value
    return d


@pytest.mark.parametrize("path, value, fragments", [
    (("layouts", 0), ["6", "?", "6", "?", "4", "?", "-2", "?"], ["'layouts'", "seat 0 has 8 cards"]),
    (("piles", 0), ["M", "M", "M", "M"], ["card M is seen 5 times", "holds 3"]),
    (("colour",), "red", ["unknown key 'colour'"]),
    (("decision", "colour"), "red", ["unknown key 'decision.colour'"]),
    (("draw_pile",), 53, ["'draw_pile' = 53 is impossible", "must hold 64"]),
    (("draw_pile",), KeyError, ["missing key 'draw_pile'"]),
    (("players",), 9, ["'players' must be an integer in 2..7"]),
    (("me",), 4, ["'me' must be an integer in 0..3"]),
    (("scores",), [0, 0], ["'scores' must be a list of 4 integers"]),
    (("layouts", 2, 0), "9", ["card 9 is seen once ", "holds 0"]),
    (("layouts", 2, 0), "21", ["seat 2 position 0", "card value 21 out of range"]),
    (("layouts", 2, 0), "Q", ["seat 2 position 0", "unknown card 'Q'"]),
    (("piles", 1), ["H"], ["pile 1 holds a hazard"]),
    (("decision", "kind"), "bounce", ["'decision.kind' must be one of draw, place"]),
    (("decision", "source"), "table", ["'decision.source'"]),
    (("decision", "card"), KeyError, ["missing key 'decision.card'"]),
    (("finisher",), 0, ["'finisher': seat 0 still has face-down cards"]),
    (("finisher",), 1, ["'finisher': the finisher (seat 1) has no turn left"]),
])
def test_malformed_positions_name_the_key(data, path, value, fragments):
    with pytest.raises(GnomingError) as err:
        from_mapping(_mutate(data, path, value), where="pos.toml")
    msg = str(err.value)
    assert "\n" not in msg and msg.startswith("pos.toml: ")
    for f in fragments:
        assert f in msg, msg


def test_the_player_to_move_without_face_down_cards_must_be_a_finisher_case(data):
    data["layouts"][1] = ["5", "6", "5", "4", "4", "4", "7", "8", "3"]
    with pytest.raises(GnomingError, match="seat 1 .to move. has no face-down card"):
        from_mapping(data)


def test_hidden_marker_is_the_only_unknown_card(data):
    pos = from_mapping(data)
    assert (pos.layouts == HIDDEN).sum() == pos.face_down().sum() == 22


def test_hazard_flip_decision(data):
    data["decision"] = {"kind": "hazard_flip", "discarder": 0}
    data["turn"] = 12             # seat 0's turn: the discarder's
    data["removed_hazards"] = 1
    data["layouts"][1][4] = "H"   # no hand card, a hazard face up and one removed: the draw pile is unchanged
    pos = from_mapping(data)
    assert [o.key for o in legal_options(pos)] == ["flip1", "flip3", "flip5", "flip7", "decline"]
    assert pos.to_dict()["decision"] == {"kind": "hazard_flip", "discarder": 0}
    with pytest.raises(GnomingError, match="'decision.discarder' must be another seat"):
        from_mapping(_mutate(data, ("decision", "discarder"), 1))
    none_removed = _mutate(data, ("removed_hazards",), 0)
    none_removed["draw_pile"] += 1
    with pytest.raises(GnomingError, match="must count the hazard just removed"):
        from_mapping(none_removed)
