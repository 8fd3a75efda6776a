"""`gnoming-sim play`: the --round/--seat filters and --json (the trace as records)."""
from __future__ import annotations

import json

import pytest

from gnoming_sim.game import trace as T
from gnoming_sim.kernel.engine import simulate

BASE = ["play", "--players", "3", "--seed", "1", "--game", "4"]


def test_round_filter_keeps_one_round_and_the_frame(cli_run):
    full, second = cli_run([*BASE]).stdout, cli_run([*BASE, "--round", 2]).stdout
    assert "== Round 1 of 3" in full and "== Round 3 of 3" in full
    assert "== Round 2 of 3" in second and "== Round 1 of 3" not in second and "== Round 3 of 3" not in second
    assert second.splitlines()[0] == full.splitlines()[0]               # the game's frame stays
    assert "== Game over ==" in second
    assert len(second.splitlines()) < len(full.splitlines()) / 2
    assert set(second.splitlines()) <= set(full.splitlines())            # a filter, not a new story


def test_seat_filter_keeps_that_seats_turns_and_score(cli_run):
    text = cli_run([*BASE, "--round", 1, "--seat", 2]).stdout
    turns = [line for line in text.splitlines() if line.startswith("Turn ")]
    assert turns and all(line.split(": ", 1)[1].startswith("seat 2 (") for line in turns)
    assert "  seat 2 (random): " in text                                 # its score in the round
    assert "  seat 0 (random): " not in text.split("Scoring, round 1:")[1].split("== Game over")[0]


def test_json_is_the_trace_as_records(cli_run):
    data = json.loads(cli_run([*BASE, "--json"]).stdout)
    res = simulate(players=3, strategies=("random",), games=1, seed=1, first_game=4, trace=True)
    trace = res.traces[0]
    assert len(data["records"]) == len(trace)
    for rec, raw in zip(data["records"], trace):
        assert T.NAMES[int(raw[0])] == rec["kind"]
        assert [rec["seat"], rec["a"], rec["b"]] == [int(v) for v in raw[1:]]
    assert data["totals"] == [int(v) for v in res.totals[0]]
    assert [sum(r[s]["score"] for r in data["round_scores"]) for s in range(3)] == data["totals"]
    draws = [r for r in data["records"] if r["kind"] == "DRAW"]
    assert draws and all("card" in r for r in draws)


def test_json_filters(cli_run):
    data = json.loads(cli_run([*BASE, "--json", "--round", 3, "--seat", 0]).stdout)
    assert data["filters"] == {"round": 3, "seat": 0}
    assert {r["round"] for r in data["records"]} == {3}
    assert {r["seat"] for r in data["records"] if r["kind"] == "TURN"} == {0}


@pytest.mark.parametrize("args, fragment", [
    (["--round", 0], "--round must be in 1..3, got 0"),
    (["--round", 4], "--round must be in 1..3, got 4"),
    (["--seat", 3], "--seat must be in 0..2 (seats count from 0), got 3"),
    (["--seat", -1], "--seat must be in 0..2"),
])
def test_filter_out_of_range(cli_run, args, fragment):
    result = cli_run([*BASE, *args], code=2)
    assert result.stdout == ""
    assert result.stderr.startswith(f"gnoming-sim: error: {fragment}") and result.stderr.count("\n") == 1
