"""The gnoming-sim command: exit codes and output, user errors as one line, the JSON summary."""
from __future__ import annotations

import json
import subprocess
import sys
import types
from pathlib import Path

import numpy as np
import pytest
from click.testing import CliRunner

from gnoming_sim import PUBLISHED, RuleConfig, __version__
from gnoming_sim import fields as F
from gnoming_sim.cli import cli
from gnoming_sim.summary import format_table, summarize


def run(*args):
    return CliRunner().invoke(cli, [str(a) for a in args])


@pytest.fixture
def no_engine(monkeypatch):
    """Replace the engine by a module whose simulate fails: proves errors come before any simulation."""
    fake = types.ModuleType("gnoming_sim.engine")

    def simulate(**kwargs):
        raise AssertionError("simulation started despite a user error")

    fake.simulate = simulate
    monkeypatch.setitem(sys.modules, "gnoming_sim.engine", fake)


def assert_user_error(result, *fragments):
    """Exit 2, nothing on stdout, exactly one stderr line naming the problem."""
    assert result.exit_code == 2, (result.exit_code, result.output, result.exception)
    assert result.stdout == ""
    lines = result.stderr.splitlines()
    assert len(lines) == 1, result.stderr
    assert lines[0].startswith("gnoming-sim: error: ")
    assert "Traceback" not in result.output
    for fragment in fragments:
        assert fragment in lines[0]


# ----------------------------------------------------------------- basics
def test_version():
    result = run("--version")
    assert result.exit_code == 0
    assert result.stdout.strip() == f"gnoming-sim {__version__}"


def test_help_lists_commands():
    result = run("--help")
    assert result.exit_code == 0
    assert "simulate" in result.stdout and "rules" in result.stdout


def test_rules_prints_defaults_and_deck():
    result = run("rules")
    assert result.exit_code == 0
    out = result.stdout
    for name, value, default, _ in RuleConfig().describe():
        assert name in out
    assert "max_turns" in out and "500" in out
    assert "published (110 cards)" in out


def test_rules_shows_file_values(write_toml):
    path = write_toml("max_turns = 321\nrotate_start = false\n")
    result = run("rules", "--rules", path)
    assert result.exit_code == 0
    line = next(l for l in result.stdout.splitlines() if "max_turns" in l)
    assert line.startswith("*") and "321" in line and "500" in line


def test_rules_shows_deck_file(write_toml):
    path = write_toml('name = "sixes"\n[cards]\n"6" = 70\n', "deck.toml")
    result = run("rules", "--deck", path)
    assert result.exit_code == 0
    assert "sixes (70 cards)" in result.stdout


# ------------------------------------------------------------ user errors
def test_rules_missing_file(tmp_path):
    assert_user_error(run("rules", "--rules", tmp_path / "missing.toml"), "not found")


def test_rules_malformed_file(write_toml):
    assert_user_error(run("rules", "--rules", write_toml("max_turns = [\n")), "not valid TOML")


@pytest.mark.parametrize("players", [1, 8])
def test_simulate_bad_player_count(no_engine, players):
    assert_user_error(run("simulate", "--players", players, "--games", 10), "players", str(players))


@pytest.mark.parametrize("games", [0, -5])
def test_simulate_bad_game_count(no_engine, games):
    assert_user_error(run("simulate", "--games", games), f"--games must be >= 1, got {games}")


def test_simulate_bad_thread_count(no_engine):
    assert_user_error(run("simulate", "--games", 10, "--threads", 0), "--threads must be >= 1")


def test_simulate_unknown_strategy(no_engine):
    assert_user_error(run("simulate", "--strategy", "telepathy", "--games", 10), "telepathy")


def test_simulate_wrong_number_of_strategies(no_engine):
    assert_user_error(run("simulate", "--players", 3, "--strategy", "random,random", "--games", 10),
                      "one per seat")


def test_simulate_malformed_rules(no_engine, write_toml):
    assert_user_error(run("simulate", "--rules", write_toml('rotate_start = "no'), "--games", 10),
                      "not valid TOML")


def test_simulate_unknown_rules_key(no_engine, write_toml):
    path = write_toml("rotate_start = false\nsecret_rule = 3\n")
    assert_user_error(run("simulate", "--rules", path, "--games", 10), "secret_rule")


def test_simulate_bad_rules_value(no_engine, write_toml):
    assert_user_error(run("simulate", "--rules", write_toml("max_turns = -1\n"), "--games", 10), "max_turns")


def test_simulate_deck_too_small(no_engine, write_toml):
    path = write_toml('name = "tiny"\n[cards]\n"6" = 40\n', "deck.toml")
    assert_user_error(run("simulate", "--players", 7, "--deck", path, "--games", 10),
                      "tiny", "40 cards", "7 players")


def test_simulate_unknown_card(no_engine, write_toml):
    path = write_toml('[cards]\n"6" = 80\nwizard = 1\n', "deck.toml")
    assert_user_error(run("simulate", "--deck", path, "--games", 10), "wizard")


def test_click_usage_error_exits_2():
    result = run("simulate", "--no-such-option")
    assert result.exit_code == 2
    assert "Traceback" not in result.output


def _console_script() -> Path:
    script = Path(sys.executable).parent / "gnoming-sim"
    if not script.exists():
        pytest.skip("console script not installed (pip install -e .)")
    return script


@pytest.mark.parametrize("args, fragment", [
    (["simulate", "--players", "8"], "gnoming-sim: error: players must be between 2 and 7, got 8"),
    (["simulate", "--games", "-5"], "gnoming-sim: error: --games must be >= 1, got -5"),
    (["simulate", "--bogus"], "No such option"),
])
def test_console_script_reports_without_traceback(args, fragment):
    proc = subprocess.run([str(_console_script()), *args], capture_output=True, text=True, timeout=120)
    assert proc.returncode == 2
    assert proc.stdout == ""
    assert fragment in proc.stderr
    assert "Traceback" not in proc.stderr
    if "error:" in fragment:
        assert proc.stderr.count("\n") == 1


# ------------------------------------------------------------- happy path (needs the engine)
def test_simulate_json_summary():
    result = run("simulate", "--players", 4, "--strategy", "random", "--games", 50, "--seed", 3, "--json")
    assert result.exit_code == 0, (result.output, result.exception)
    s = json.loads(result.stdout)
    assert (s["games"], s["players"], s["rounds"], s["seed"]) == (50, 4, 150, 3)
    assert s["rules"] == RuleConfig().to_dict()
    assert s["deck"]["name"] == "published" and s["deck"]["size"] == 110
    assert s["deck"]["cards"] == PUBLISHED.to_dict()
    assert 0 <= s["stalled_rounds"] <= 150
    rnd = s["by_strategy"]["random"]
    assert rnd["n_seats_played"] == 200
    assert rnd["win_share"] == pytest.approx(0.25)  # one strategy at every seat wins every game
    assert rnd["ci95"][0] <= rnd["mean_game_score"] <= rnd["ci95"][1]
    assert rnd["mean_turns_per_round"] > 0
    assert set(s["by_seat"]) == {"0", "1", "2", "3"}
    assert sum(e["win_share"] for e in s["by_seat"].values()) == pytest.approx(1.0)


def test_simulate_table_output_and_thread_independence():
    base = ["simulate", "--players", 3, "--games", 40, "--seed", 11]
    one = json.loads(run(*base, "--threads", 1, "--json").stdout)
    two = json.loads(run(*base, "--threads", 2, "--json").stdout)
    assert one["by_strategy"] == two["by_strategy"] and one["by_seat"] == two["by_seat"]
    result = run(*base)
    assert result.exit_code == 0
    assert "random" in result.stdout and "seed 11" in result.stdout


# ---------------------------------------------------------------- summary (no engine)
def _fake_result():
    """Two games, two seats, strategies 'a' and 'b' swapping seats."""
    games, players = 2, 2
    stats = np.zeros((games, 3, players, F.N_FIELDS), dtype=np.int32)
    stats[..., F.F_TURNS] = 5
    # game 0: seat 0 (a) finishes rounds 0 and 1, earning -5 once; seat 1 (b) finishes round 2 (+5)
    stats[0, 0, 0, [F.F_FINISHER, F.F_BONUS]] = (1, -5)
    stats[0, 1, 0, [F.F_FINISHER, F.F_BONUS]] = (1, 5)
    stats[0, 2, 1, [F.F_FINISHER, F.F_BONUS]] = (1, 5)
    stats[1, 2, :, F.F_STALLED] = 1
    return types.SimpleNamespace(
        players=players, games=games, seed=9, rules=RuleConfig(), deck=PUBLISHED,
        strategy_names=("a", "b"),
        seat_strategy=np.array([[0, 1], [1, 0]], dtype=np.int16),
        round_stats=stats,
        totals=np.array([[10, 20], [30, 30]], dtype=np.int32),
        win_credit=np.array([[1.0, 0.0], [0.5, 0.5]]),
    )


def test_summarize_fake_result():
    s = summarize(_fake_result(), wall_s=2.0)
    assert (s["games"], s["players"], s["rounds"], s["stalled_rounds"]) == (2, 2, 6, 1)
    assert s["games_per_s"] == 1.0 and s["seed"] == 9
    a, b = s["by_strategy"]["a"], s["by_strategy"]["b"]
    assert a["n_seats_played"] == b["n_seats_played"] == 2
    assert a["mean_game_score"] == 20.0 and b["mean_game_score"] == 25.0  # a: 10, 30; b: 20, 30
    assert a["win_share"] == 0.75 and b["win_share"] == 0.25
    assert a["bonus_rate"] == 0.5 and b["bonus_rate"] == 0.0
    assert a["mean_turns_per_round"] == 5.0
    assert s["by_seat"]["0"]["mean_game_score"] == 20.0
    assert s["by_seat"]["1"]["win_share"] == 0.25
    json.dumps(s, allow_nan=False)  # JSON-safe


def test_summarize_strategy_that_never_finished():
    res = _fake_result()
    res.round_stats[..., F.F_FINISHER] = 0
    s = summarize(res, wall_s=0.0)
    assert s["by_strategy"]["a"]["bonus_rate"] is None and s["games_per_s"] is None
    json.dumps(s, allow_nan=False)
    text = format_table(s)
    assert "strategy" in text and "seat" in text and "seed 9" in text
