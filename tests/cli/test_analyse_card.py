"""`gnoming-sim analyse` beside the printed card: the card's cell and answer at the position,
by the card player's own lookup, and whether the verdict agrees; `--policy card` rolls the options out with the
card player."""
from __future__ import annotations

import json
from pathlib import Path


DATA = Path(__file__).resolve().parents[1] / "search" / "data"
FINISH = DATA / "three_players_finish.toml"     # own 12 with one down, best rival 15 with three
HAZARD = DATA / "five_players_hazard.toml"      # a hazard drawn blind at 5 players


def _json(cli_run, path, *more):
    return json.loads(cli_run(["analyse", "--position", path, "--horizon", "game", "--rollouts", 300, "--second-policy",
                               "none", "--json", *more]).stdout)


def test_the_card_says_finish_where_finishing_is_better(cli_run):
    """The 3-player finishing position: the card before the policy iteration said play on (over the 7, pos7), finishing about
    10 pp better; the committed card's cell (changed in the iteration's round 1, +3.70 pp) says finish, the best."""
    card = _json(cli_run, FINISH)["card"]
    assert card["table"] == "finish" and len(card["cells"]) == 1
    cell = card["cells"][0]
    assert cell["words"] == "gap 0..4, rivals 2-4 face down, 2-3 players" and cell["printed"]
    assert cell["action"] == "finish" and card["option"] == "pos2"
    assert card["best"] == "pos2" and card["agrees"] and not card["separated"]
    assert card["unit"] == "pp of win chance"


def test_the_text_says_it_in_one_line(cli_run):
    from gnoming_sim.search.card import card_line

    out = cli_run(["analyse", "--position", FINISH, "--horizon", "game", "--rollouts", 300, "--second-policy",
                   "none"]).stdout
    lines = [line for line in out.splitlines() if line.startswith("card: ")]
    assert len(lines) == 1
    line = lines[0]
    assert line.startswith("card: the card says finish here (cell: gap 0..4, rivals 2-4 face down, 2-3 players)")
    assert line.endswith("the card agrees (it is the best option)")
    # where the card's answer is separated from the best (the card before the iteration here: play on, over the 7)
    card = {"cells": [{"action": "play on", "words": "gap 0..4, rivals 2-4 face down, 2-3 players", "printed": True}],
            "option": "pos7", "option_label": "put at 7 (row 2 col 1), over 7", "best": "pos2",
            "best_label": "put at 2 (row 0 col 2), face down, finishes", "agrees": False, "diff": 10.3,
            "diff_ci95": [8.2, 12.5], "unit": "pp of win chance"}
    line = card_line(card)
    assert line.startswith("card: the card says play on here (cell: gap 0..4, rivals 2-4 face down, 2-3 players)")
    assert "in this position put at 2 (row 0 col 2), face down, finishes is +10.30 [8.20, 12.50]" in line
    assert line.endswith("pp of win chance better") and "agrees" not in line


def test_a_hazard_drawn_blind_the_card_throws_away(cli_run):
    res = _json(cli_run, HAZARD)
    card = res["card"]
    assert card["table"] == "place" and card["option"] == "discard"
    assert card["cells"][0] == {"cell": card["cells"][0]["cell"], "words": "hazard drawn blind, best use: face-down slot",
                                "action": "throw away", "printed": True}
    row = next(r for r in res["options"] if r["key"] == "discard")
    lo, hi = row["diff_ci95"] if not row["best"] else (0.0, 0.0)
    assert card["agrees"] == (row["best"] or lo <= 0 <= hi)               # agrees: best, or not separated from it
    from gnoming_sim.search.card import card_line   # the text's card line (test_the_text_says_it_in_one_line)

    assert ("the card agrees" in card_line(card)) == card["agrees"]


def test_the_options_rolled_out_with_the_card_player(cli_run):
    res = _json(cli_run, FINISH, "--policy", "card")
    assert res["policies"] == ["card"] and "card" in res
    own = _json(cli_run, FINISH, "--policy", "card,net,net")    # the card in the player's seat only, net at the others
    assert own["policies"] == ["card", "net", "net"]
    assert own["options"] != res["options"]


def test_no_card_view_where_the_card_has_no_cell():
    """A hazard flip is not on the card: no cell, so analyse says nothing about the card there."""
    from dataclasses import replace

    from gnoming_sim.game.position import from_toml
    from gnoming_sim.search.card import card_view

    pos = from_toml(FINISH, None, None)
    assert card_view(pos)["choice"] == (0, 2)          # the committed card finishes here
    assert card_view(replace(pos, decision="hazard_flip")) is None
