"""A position's clock and the cards it cannot show: a hazard in hand from a
discard pile, a turn number that gives the turn to another seat, a starter the rules do not give
the round, a finisher that has not played, a seat with no face-down card that is not the finisher,
a seat that shows more than its first flips before its first turn.  Each is one sentence naming
the key, the same from ``from_mapping`` and from :func:`position_problem` (what a web page shows)."""
from __future__ import annotations

import pytest

from gnoming_sim.game.deck import PUBLISHED
from gnoming_sim.game.errors import GnomingError
from gnoming_sim.game.position import from_mapping, position_problem
from gnoming_sim.game.rules import RuleConfig

START = ["5", "6"] + ["?"] * 7                   # the two first flips up
UP = ["3", "4", "5", "6", "7", "8", "-1", "-2", "3"]   # every card face up


def _position(players=4, me=0, turn=0, layouts=None, decision=None, **extra) -> dict:
    """A position whose draw pile is what the deck leaves (so only the key under test is wrong)."""
    layouts = layouts or [list(START) for _ in range(players)]
    decision = decision or {"kind": "draw"}
    piles = extra.pop("piles", [["7"], ["8"]])
    seen = sum(1 for row in layouts for c in row if c != "?") + sum(len(p) for p in piles)
    seen += extra.get("removed_hazards", 0) + (1 if "card" in decision else 0)
    hidden = sum(row.count("?") for row in layouts)
    data = {"players": players, "me": me, "turn": turn, "scores": [0] * players, "layouts": layouts,
            "piles": piles, "draw_pile": PUBLISHED.size - seen - hidden, "decision": decision}
    data.update(extra)
    return data


def _refused(data, *fragments, rules=None):
    with pytest.raises(GnomingError) as err:
        from_mapping(data, rules, where="pos.toml")
    msg = str(err.value)
    assert "\n" not in msg and msg.startswith("pos.toml: "), msg
    for f in fragments:
        assert f in msg, msg
    assert position_problem(data, rules, where="pos.toml") == msg   # one source of the sentence
    return msg


def test_a_consistent_position_loads_and_has_no_problem():
    data = _position(players=5, me=1, turn=21)
    assert from_mapping(data).me == 1
    assert position_problem(data) is None
    assert position_problem(from_mapping(data)) is None


def test_a_hazard_in_hand_from_a_discard_pile_is_refused():
    for src in ("pile0", "pile1"):
        _refused(_position(me=1, turn=1, decision={"kind": "place", "card": "H", "source": src}),
                 "key 'decision.card'", f"decision.source = {src}", "a hazard never lies on a discard pile")
    from_mapping(_position(me=1, turn=1, decision={"kind": "place", "card": "H", "source": "draw"}))   # drawn: fine


def test_a_turn_that_gives_the_turn_to_another_seat_is_refused():
    _refused(_position(players=5, me=0, turn=21), "key 'turn' = 21 contradicts 'me' = 0",
             "seat 1 has the turn at 5 players")


def test_a_hazard_flip_belongs_to_the_turn_of_its_discarder():
    flip = {"kind": "hazard_flip", "discarder": 2}
    from_mapping(_position(me=3, turn=2, removed_hazards=1, decision=flip))
    _refused(_position(me=3, turn=1, removed_hazards=1, decision=flip),
             "key 'turn' = 1 contradicts 'decision.discarder' = 2", "seat 1 has the turn")


def test_the_starter_is_the_rules_starter_of_the_round():
    _refused(_position(me=0, round=2, starter=0), "key 'starter' = 0 is impossible", "round 2 at 4 players "
             "starts with seat 1")
    assert from_mapping(_position(me=1, round=2)).starter == 1          # left out: the rules' starter
    fixed = RuleConfig(rotate_start=False)
    assert from_mapping(_position(me=0, round=3), fixed).starter == 0
    _refused(_position(me=2, round=3, starter=2), "rotate_start is off", rules=fixed)


def test_a_finisher_must_have_had_a_turn():
    lays = [list(START), list(START), list(UP), list(START)]
    _refused(_position(me=1, turn=1, finisher=2, layouts=lays), "key 'finisher': seat 2 has had no turn yet")


def test_a_seat_without_face_down_cards_is_the_finisher():
    lays = [list(START), list(START), list(UP), list(START)]
    _refused(_position(me=1, turn=5, layouts=lays), "seat 2 has no face-down card, so it has finished: "
             "set 'finisher'")
    _refused(_position(me=1, turn=5, layouts=[list(START), list(UP), list(START), list(START)]),
             "seat 1 (to move) has no face-down card")


def test_in_the_final_lap_only_seats_that_played_it_may_show_every_card():
    # seat 0 finished at turn 4; seats 1 and 2 have played their final turns; seat 3 is to move
    lays = [list(UP), list(UP), list(START), list(START)]
    from_mapping(_position(me=3, turn=7, finisher=0, layouts=lays))
    lays = [list(UP), list(START), list(START), list(UP)]     # seat 3's final turn is still to come
    _refused(_position(me=2, turn=6, finisher=0, layouts=lays), "seat 3 has no face-down card but its final turn",
             "after seat 0 finished is still to come")


def test_a_seat_before_its_first_turn_shows_only_its_first_flips():
    lays = [list(START), list(START), list(START), ["5", "6", "7", "8"] + ["?"] * 5]
    _refused(_position(me=2, turn=2, layouts=lays), "seat 3 shows 4 face-up cards but has had no turn yet",
             "only its 2 first flips can show")
    _refused(_position(me=2, turn=2, layouts=lays, removed_hazards=1), "and one for each of the 1 hazard(s)")
    lays[3] = ["5", "6", "7"] + ["?"] * 6
    from_mapping(_position(me=2, turn=2, layouts=lays, removed_hazards=1))   # a hazard's flip: can be


def test_position_problem_names_what_is_not_a_table():
    assert position_problem([1, 2]) == "position: a position is a table of keys (players, me, layouts, ...), not list"
