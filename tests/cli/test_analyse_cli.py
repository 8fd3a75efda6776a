"""`gnoming-sim analyse`: the acceptance commands, --json, and one-line errors."""
from __future__ import annotations

import json
from pathlib import Path

import pytest
from click.testing import CliRunner

from gnoming_sim.cli.app import cli

EXAMPLE = str(Path(__file__).resolve().parents[2] / "examples" / "position.toml")
GAME = ["analyse", "--seed", "1", "--game", "0", "--turn", "20", "--players", "4",
        "--seats", "builder,greedy,rusher,cautious"]


def run(*args, code=0):
    result = CliRunner().invoke(cli, [str(a) for a in args])
    assert result.exit_code == code, (result.output, result.exception)
    return result


def test_simulated_game_decision():
    out = run(*GAME, "--rollouts", 300).stdout
    assert "decision: draw" in out and "draw pile" in out and "verdict: " in out
    assert "CRN x" in out


def test_example_position_file():
    out = run("analyse", "--position", EXAMPLE, "--rollouts", 300).stdout
    assert "place the 5" in out and "throw away 5" in out and "verdict: " in out


def test_json_has_mean_diff_ci_n_and_the_crn_ratio():
    res = json.loads(run(*GAME, "--rollouts", 300, "--json").stdout)
    for row in res["options"]:
        assert {"mean", "diff_ci95", "n"} <= set(row) and row["n"] == 300
    assert 0 < res["variance"]["crn"] < 1.5
    assert res["position_record"]["players"] == 4


@pytest.mark.parametrize("args, fragment", [
    (["analyse"], "give --position FILE, or --game G and --turn T"),
    (["analyse", "--position", EXAMPLE, "--game", "0"], "--position excludes --game/--turn"),
    (["analyse", "--position", EXAMPLE, "--peek"], "--peek needs a simulated game"),
    (["analyse", "--position", "nope.toml"], "position file not found"),
    (GAME + ["--policy", "nobody"], "--policy: unknown strategy 'nobody'"),
    (["analyse", "--position", EXAMPLE, "--policy", "mc"], "'mc' plays by rollouts itself and cannot be a rollout policy"),
    (GAME + ["--half-width", "0"], "--half-width must be a number of points in 0.001..1000"),
    (GAME + ["--rollouts", "1"], "--rollouts must be in 2.."),
    (GAME + ["--horizon", "week"], "week"),
])
def test_errors_are_one_line(args, fragment):
    result = run(*args, code=2)
    lines = result.stderr.splitlines()
    assert len(lines) == 1 and lines[0].startswith("gnoming-sim: error: ") and fragment in lines[0], lines


def test_a_turn_past_the_game_is_an_error():
    result = run(*GAME[:6], "99999", *GAME[7:], code=2)
    assert "--turn 99999: the game has only" in result.stderr


def test_game_horizon_prints_each_options_p_win_as_the_json_gives_it():
    args = [*GAME, "--rollouts", 60, "--horizon", "game"]
    res = json.loads(run(*args, "--json").stdout)
    text = run(*args).stdout.splitlines()
    head = next(line for line in text if line.startswith("option"))
    assert head.split()[-2:] == ["P(win)", "n"]
    for row in res["options"]:
        line = next(line for line in text if line.startswith(row["option"] + " "))
        lo, hi = row["p_win"]["ci95"]
        assert f"{100 * row['p_win']['p']:5.1f}% [{100 * lo:.0f},{100 * hi:.0f}]" in line


def test_round_horizon_has_no_p_win_column():
    assert "P(win)" not in run(*GAME, "--rollouts", 30).stdout
