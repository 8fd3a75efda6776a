"""`analyse --position-id`: analyse shows the position's ID, the ID analyses the same position as
its file (the same numbers on the same seed), and a malformed ID is one line and exit 2."""
from __future__ import annotations

import json

import pytest
from _examples import POSITION, position

from gnoming_sim.game.position_id import encode

ID = encode(position())
FAST = ["--rollouts", "40", "--second-policy", "none"]


def test_the_id_analyses_what_the_file_does(cli_run):
    by_file = json.loads(cli_run(["analyse", "--position", POSITION, *FAST, "--json"]).stdout)
    by_id = json.loads(cli_run(["analyse", "--position-id", ID, *FAST, "--json"]).stdout)
    assert by_file["position_id"] == by_id["position_id"] == ID
    assert [(r["key"], r["mean"]) for r in by_file["options"]] == [(r["key"], r["mean"]) for r in by_id["options"]]
    assert by_id["position_record"] == position().to_dict()


def test_the_text_shows_the_id(cli_run):
    out = cli_run(["analyse", "--position-id", ID, *FAST]).stdout
    assert f"position ID: {ID}" in out.splitlines()[1]
    assert out.startswith("position: round 1 of 3, turn 13 of the round, seat 1 to move")


@pytest.mark.parametrize("args, fragment", [
    (["--position-id", ID[:-2]], "does not check out"),
    (["--position-id", "g7:AAAA"], "of version 7"),
    (["--position-id", "hello"], "does not start with g1:"),
    (["--position-id", ID, "--position", POSITION], "give --position FILE or --position-id ID, not both"),
    (["--position-id", ID, "--rules", POSITION], "--rules does not go with --position-id"),
    (["--position-id", ID, "--game", "0", "--turn", "3"], "--position-id excludes --game/--turn"),
    (["--position-id", ID, "--players", "3"], "--players 3 contradicts the position"),
])
def test_a_bad_id_is_one_line_and_exit_2(cli_run, args, fragment):
    result = cli_run(["analyse", *args, *FAST], code=2)
    lines = result.stderr.splitlines()
    assert len(lines) == 1 and lines[0].startswith("gnoming-sim: error: ") and fragment in lines[0], lines
