"""The gnoming-sim command: exit codes and output, user errors as one line, the JSON summary,
the Parquet output, interruption and --resume."""
from __future__ import annotations

import io
import json
import math
import signal
import subprocess
import sys
from pathlib import Path

import pandas as pd
import pyarrow.parquet as pq
import pytest

from gnoming_sim import PUBLISHED
from gnoming_sim import RuleConfig
from gnoming_sim.game.version import __version__
from gnoming_sim.kernel.policy import registry
from gnoming_sim.cli.app import cli


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
def test_version(cli_run):
    result = cli_run(["--version"])
    assert result.stdout.strip() == f"gnoming-sim {__version__}"


def test_help_lists_commands(cli_run):
    result = cli_run(["--help"])
    for command in ("simulate", "play", "rules", "strategies"):
        assert command in result.stdout


def test_each_option_s_help_names_only_options_its_command_has():
    """`analyse --help` said --threads applies "with --workers, per worker"; analyse has no --workers
   : every command's help of every option names only options of that command."""
    import re

    for name, command in cli.commands.items():
        has = {o for p in command.params for o in (*p.opts, *p.secondary_opts)}
        for param in command.params:
            text = re.sub(r"`[^`]*`", "", getattr(param, "help", None) or "")   # `another --command` quoted
            named = set(re.findall(r"(?<![\w-])--[a-z][a-z-]*[a-z]", text))
            assert named <= has, (name, param.name, named - has)
    threads = {name: next(p.help for p in c.params if p.name == "threads")
               for name, c in cli.commands.items() if any(p.name == "threads" for p in c.params)}
    assert "per worker" in threads["simulate"] and "--workers" not in threads["analyse"] + threads["review"]


def test_rules_prints_defaults_and_deck(cli_run):
    result = cli_run(["rules"])
    out = result.stdout
    for name, value, default, _ in RuleConfig().describe():
        assert name in out
    line = next(l for l in out.splitlines() if l.split()[:1] == ["max_turns"])
    assert line.split()[1:3] == ["500", "500"]   # value and default
    assert "published (110 cards)" in out


def test_rules_shows_file_values(cli_run, write_toml):
    path = write_toml("max_turns = 321\nrotate_start = false\n")
    result = cli_run(["rules", "--rules", path])
    line = next(l for l in result.stdout.splitlines() if "max_turns" in l)
    assert line.startswith("*") and "321" in line and "500" in line


def test_rules_shows_deck_file(cli_run, write_toml):
    path = write_toml('name = "sixes"\n[cards]\n"6" = 70\n', "deck.toml")
    result = cli_run(["rules", "--deck", path])
    assert "sixes (70 cards)" in result.stdout


# ------------------------------------------------------------ user errors
def test_rules_missing_file(cli_run, tmp_path):
    assert_user_error(cli_run(["rules", "--rules", tmp_path / "missing.toml"], code=2), "not found")


def test_rules_malformed_file(cli_run, write_toml):
    assert_user_error(cli_run(["rules", "--rules", write_toml("max_turns = [\n")], code=2), "not valid TOML")


@pytest.mark.parametrize("players", [1, 8])
def test_simulate_bad_player_count(cli_run, no_engine, players):
    assert_user_error(cli_run(["simulate", "--players", players, "--games", 10], code=2), "players", str(players))


@pytest.mark.parametrize("games", [0, -5])
def test_simulate_bad_game_count(cli_run, no_engine, games):
    assert_user_error(cli_run(["simulate", "--games", games], code=2), f"--games must be >= 1, got {games}")


def test_simulate_bad_thread_count(cli_run, no_engine):
    assert_user_error(cli_run(["simulate", "--games", 10, "--threads", 0], code=2), "--threads must be >= 1")


def test_simulate_unknown_strategy(cli_run, no_engine):
    assert_user_error(cli_run(["simulate", "--strategy", "telepathy", "--games", 10], code=2), "telepathy")


def test_simulate_wrong_number_of_strategies(cli_run, no_engine):
    assert_user_error(cli_run(["simulate", "--players", 3, "--strategy", "random,random", "--games", 10], code=2),
                      "one per seat")


def test_simulate_malformed_rules(cli_run, no_engine, write_toml):
    assert_user_error(cli_run(["simulate", "--rules", write_toml('rotate_start = "no'), "--games", 10], code=2),
                      "not valid TOML")


def test_simulate_unknown_rules_key(cli_run, no_engine, write_toml):
    path = write_toml("rotate_start = false\nsecret_rule = 3\n")
    assert_user_error(cli_run(["simulate", "--rules", path, "--games", 10], code=2), "secret_rule")


def test_simulate_bad_rules_value(cli_run, no_engine, write_toml):
    assert_user_error(cli_run(["simulate", "--rules", write_toml("max_turns = -1\n"), "--games", 10], code=2),
                               "max_turns")


def test_simulate_deck_too_small(cli_run, no_engine, write_toml):
    path = write_toml('name = "tiny"\n[cards]\n"6" = 40\n', "deck.toml")
    assert_user_error(cli_run(["simulate", "--players", 7, "--deck", path, "--games", 10], code=2),
                      "tiny", "40 cards", "7 players")


def test_simulate_unknown_card(cli_run, no_engine, write_toml):
    path = write_toml('[cards]\n"6" = 80\nwizard = 1\n', "deck.toml")
    assert_user_error(cli_run(["simulate", "--deck", path, "--games", 10], code=2), "wizard")


def test_click_usage_error_exits_2(cli_run):
    result = cli_run(["simulate", "--no-such-option"], code=2)
    assert "Traceback" not in result.output


def test_simulate_strategy_and_seats_exclude_each_other(cli_run, no_engine):
    assert_user_error(cli_run(["simulate", "--strategy", "random", "--seats", "random,random,random,random"], code=2),
                      "--strategy and --seats")


def test_simulate_seats_need_one_name_per_seat(cli_run, no_engine):
    assert_user_error(cli_run(["simulate", "--players", 4, "--seats", "random"], code=2), "--seats",
                               "one name per seat (4)")


def test_simulate_unknown_seat_strategy(cli_run, no_engine):
    assert_user_error(cli_run(["simulate", "--players", 2, "--seats", "random,oracle"], code=2), "--seats", "oracle")


@pytest.mark.parametrize("args, fragment", [
    (["--seed", -1], "--seed must be in 0..2**64-1"),
    (["--chunk-size", 0], "--chunk-size must be >= 1"),
    (["--players", "abc"], "'--players'"),
    (["--rules", "missing.toml"], "--rules: rules file not found"),
    (["--deck", "missing.toml"], "--deck: deck file not found"),
])
def test_simulate_more_bad_options(cli_run, no_engine, args, fragment):
    assert_user_error(cli_run(["simulate", *args], code=2), fragment)


def test_simulate_out_directory_missing(cli_run, no_engine, tmp_path):
    assert_user_error(cli_run(["simulate", "--out", tmp_path / "nowhere" / "b.parquet"], code=2), "--out",
                               "does not exist")


def test_simulate_out_is_a_directory(cli_run, no_engine, tmp_path):
    assert_user_error(cli_run(["simulate", "--out", tmp_path], code=2), "--out", "is a directory")


@pytest.mark.skipif(not sys.platform.startswith("linux") or not Path("/sys").is_dir(), reason="needs sysfs")
def test_simulate_out_not_writable(cli_run, no_engine):
    # no one, root included, may create a file in sysfs
    assert_user_error(cli_run(["simulate", "--out", "/sys/games.parquet"], code=2), "--out", "cannot write")


def test_simulate_out_exists(cli_run, no_engine, tmp_path):
    out = tmp_path / "b.parquet"
    out.write_bytes(b"keep me")
    assert_user_error(cli_run(["simulate", "--out", out], code=2), "already exists", "--resume", "--force")
    assert out.read_bytes() == b"keep me"


def test_simulate_resume_needs_out(cli_run, no_engine):
    assert_user_error(cli_run(["simulate", "--resume"], code=2), "--resume needs --out")


def test_simulate_resume_and_force(cli_run, no_engine, tmp_path):
    assert_user_error(cli_run(["simulate", "--out", tmp_path / "b.parquet", "--resume", "--force"], code=2), "exclude")


def test_simulate_resume_not_parquet(cli_run, no_engine, tmp_path):
    out = tmp_path / "b.parquet"
    out.write_text("hello")
    assert_user_error(cli_run(["simulate", "--out", out, "--resume"], code=2), "--resume",
                               "not a readable Parquet file")


def test_play_bad_options(cli_run, no_engine):
    assert_user_error(cli_run(["play", "--players", 9], code=2), "--players")
    assert_user_error(cli_run(["play", "--game", -2], code=2), "--game must be >= 0")
    assert_user_error(cli_run(["play", "--seats", "random,nobody", "--players", 2], code=2), "nobody")


def _console_script() -> Path:
    script = Path(sys.executable).parent / "gnoming-sim"
    if not script.exists():
        pytest.skip("console script not installed (pip install -e .)")
    return script


@pytest.mark.parametrize("args, fragment", [
    (["simulate", "--players", "8"], "gnoming-sim: error: --players must be between 2 and 7, got 8"),
    # the same path as --players 8 in a real process; its words in-process in test_simulate_bad_game_count
    pytest.param(["simulate", "--games", "-5"], "gnoming-sim: error: --games must be >= 1, got -5",
                 marks=pytest.mark.slow),
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
def test_simulate_accepts_the_card_value_options(cli_run, write_toml):
    path = write_toml("hazard_value = 15\nmulligan_value = 2\nnegative_multiplier = 2\n", "hazard15.toml")
    result = cli_run(["simulate", "--players", 3, "--strategy", "random", "--games", 30, "--seed", 34, "--rules", path,
                      "--json"])
    s = json.loads(result.stdout)
    assert s["rules"] == RuleConfig(hazard_value=15, mulligan_value=2, negative_multiplier=2).to_dict()
    shown = cli_run(["rules", "--rules", path]).stdout
    assert next(l.split()[:4] for l in shown.splitlines() if l.split()[1:2] == ["hazard_value"]) == \
        ["*", "hazard_value", "15", "10"]


def test_simulate_json_summary(cli_run):
    result = cli_run(["simulate", "--players", 4, "--strategy", "random", "--games", 50, "--seed", 3, "--json"])
    assert result.stderr == ""  # no progress bar when stderr is not a terminal
    s = json.loads(result.stdout)
    assert (s["games"], s["players"], s["rounds"], s["seed"]) == (50, 4, 150, 3)
    assert s["rules"] == RuleConfig().to_dict()
    assert s["deck"]["name"] == "published" and s["deck"]["size"] == 110
    assert s["deck"]["cards"] == PUBLISHED.to_dict()
    assert 0 <= s["stalled_rounds"] <= 150 and s["wall_s"] > 0 and s["games_per_s"] > 0
    rnd = s["by_strategy"]["random"]
    assert rnd["n_seats_played"] == 200 and rnd["n_games"] == 50
    # one strategy at every seat: a seat of it wins 1 game in 4, exactly, with no spread to build an interval on
    assert rnd["win_share"] == 0.25 and rnd["win_ci95"] == [0.25, 0.25]
    assert rnd["ci95"][0] < rnd["mean_game_score"] < rnd["ci95"][1]
    assert rnd["mean_turns_per_round"] > 0
    assert set(s["by_seat"]) == {"0", "1", "2", "3"}
    assert sum(e["win_share"] for e in s["by_seat"].values()) == pytest.approx(1.0)


def test_simulate_table_output(cli_run):
    result = cli_run(["simulate", "--players", 3, "--seats", "random,greedy,random", "--games", 40, "--seed", 11])
    out = result.stdout
    for text in ("seed 11", "games/s", "stalled", "greedy", "random", "game score", "(3 rounds, lower=better)",
                 "win share", "(of games)", "finish rate", "bonus rate", "turns/round", "(own, per seat)",
                 "max_turns counts the turns of all players together",
                 "seats random, greedy, random (rotating one seat per game; seats are numbered from 0)"):
        assert text in out
    seat_table = out[out.index("\nseat "):]
    assert all(f"\n{s} " in seat_table for s in range(3))


def test_strategy_list_is_an_alias_of_seats(cli_run):
    base = ["simulate", "--players", 3, "--games", 30, "--seed", 2, "--json"]
    a = json.loads(cli_run([*base, "--seats", "greedy,random,random"]).stdout)
    b = json.loads(cli_run([*base, "--strategy", "greedy,random,random"]).stdout)
    for s in (a, b):
        del s["wall_s"], s["games_per_s"], s["compile_s"]
    assert a == b and a["seats"] == ["greedy", "random", "random"]


def _recompute(df: pd.DataFrame, key: str) -> pd.DataFrame:
    """Per-strategy or per-seat numbers of the summary, straight from the rows, with pandas.

    One value per (game, key): the mean over the key's seats of that game (the win credit summed),
    so that n counts games and the intervals are over games."""
    seats = df.groupby(["game", "seat"], observed=True).agg(
        strategy=("strategy", "first"), total=("score", "sum"), turns=("turns", "sum"),
        finishes=("finisher", "sum"))
    seats["last"] = df[df["round"] == 2].set_index(["game", "seat"])["score"]
    best = seats.groupby(level="game")["total"].transform("min")
    tied = seats["total"] == best
    best_last = seats["last"].where(tied).groupby(level="game").transform("min")
    won = tied & (seats["last"] == best_last)
    seats["credit"] = won / won.groupby(level="game").transform("sum")
    bonus = df[(df["finisher"] == 1) & (df["bonus"] < 0)].groupby(["game", "seat"]).size()
    seats["bonuses"] = bonus.reindex(seats.index, fill_value=0)
    seats = seats.reset_index()
    per_game = seats.groupby(["game", key], observed=True).agg(
        total=("total", "mean"), credit=("credit", "mean"), turns=("turns", "mean"),
        finishes=("finishes", "sum"), bonuses=("bonuses", "sum"), seats=("seat", "size"))
    g = per_game.groupby(level=key, observed=True)
    return pd.DataFrame({"n": g.size(), "seats": g["seats"].sum(), "mean": g["total"].mean(),
                         "sd": g["total"].std(ddof=1), "wins": g["credit"].mean(),
                         "wins_sd": g["credit"].std(ddof=1), "turns": g["turns"].mean() / 3,
                         "bonus_rate": g["bonuses"].sum() / g["finishes"].sum()})


def _wilson(k, n, z=1.96):
    p = k / n
    centre = (p + z * z / (2 * n)) / (1 + z * z / n)
    half = z * math.sqrt(p * (1 - p) / n + z * z / (4 * n * n)) / (1 + z * z / n)
    return max(0.0, centre - half), min(1.0, centre + half)


def _check_entry(entry: dict, row) -> None:
    approx = lambda x: pytest.approx(x, rel=1e-9, abs=1e-9)  # noqa: E731
    n, mean = row["n"], row["mean"]
    half = 1.96 * row["sd"] / math.sqrt(n)
    win_half = 1.96 * row["wins_sd"] / math.sqrt(n)
    assert entry["n_games"] == n and entry["n_seats_played"] == row["seats"]
    assert entry["mean_game_score"] == approx(mean)
    assert entry["ci95"] == [approx(mean - half), approx(mean + half)]
    assert entry["win_share"] == approx(row["wins"])
    if row["wins_sd"] > 0 and row["seats"] > n:   # several seats a game: the per-game mean's interval
        assert entry["win_ci95"] == [approx(row["wins"] - win_half), approx(row["wins"] + win_half)]
    else:  # one seat a game (a share), or won all or none of its games: Wilson, never past [0, 1]
        assert entry["win_ci95"] == [approx(v) for v in _wilson(row["wins"] * n, n)]
    assert entry["mean_turns_per_round"] == approx(row["turns"])
    assert entry["bonus_rate"] == approx(row["bonus_rate"])


def test_summary_recomputed_from_the_parquet_with_pandas(cli_run, tmp_path):
    out = tmp_path / "games.parquet"
    result = cli_run(["simulate", "--players", 4, "--seats", "random,greedy,builder,greedy", "--games", 300, "--seed",
                      21, "--chunk-size", 70, "--out", out, "--json"])
    s = json.loads(result.stdout)
    df = pd.read_parquet(out)
    assert len(df) == 300 * 3 * 4 and s["out"] == str(out)
    assert s["rounds"] == 900 and s["stalled_rounds"] == int(df.loc[df["seat"] == 0, "stalled"].sum())
    assert pq.ParquetFile(out).metadata.num_row_groups == 5
    by_strategy = _recompute(df, "strategy")
    assert set(s["by_strategy"]) == set(by_strategy.index) == {"random", "greedy", "builder"}
    # greedy holds two seats of every game: counted once per game, not once per seat
    assert by_strategy.loc["greedy", "n"] == 300 and by_strategy.loc["greedy", "seats"] == 600
    for name, entry in s["by_strategy"].items():
        _check_entry(entry, by_strategy.loc[name])
    by_seat = _recompute(df, "seat")
    for seat, entry in s["by_seat"].items():
        _check_entry(entry, by_seat.loc[int(seat)])


def test_parquet_columns_and_metadata(cli_run, tmp_path):
    out = tmp_path / "games.parquet"
    cli_run(["simulate", "--players", 2, "--games", 10, "--seed", 4, "--out", out])
    df = pd.read_parquet(out)
    for column in ("game", "round", "seat", "strategy", "score", "matched", "unmatched", "negatives",
                   "hazards", "finisher", "bonus", "turns", "stalled"):
        assert column in df.columns
    parts = df[["matched", "unmatched", "negatives", "hazards", "bonus"]].sum(axis=1)
    assert (parts == df["score"]).all()
    facts = json.loads(pq.read_schema(out).metadata[b"gnoming_sim"])
    assert (facts["seed"], facts["players"], facts["games"], facts["version"]) == (4, 2, 10, __version__)
    assert facts["seats"] == ["random", "random"] and facts["rules"] == RuleConfig().to_dict()


def test_force_replaces_and_resume_refuses_other_arguments(cli_run, tmp_path):
    out = tmp_path / "games.parquet"
    base = ["simulate", "--players", 3, "--games", 20, "--seed", 1, "--out", out]
    cli_run([*base])
    cli_run([*base[:-4], "--seed", 2, "--out", out, "--force"])
    assert json.loads(pq.read_schema(out).metadata[b"gnoming_sim"])["seed"] == 2
    before = out.read_bytes()
    assert_user_error(cli_run([*base, "--resume"], code=2), "--resume", "--seed 2, this command has --seed 1")
    assert out.read_bytes() == before


def test_threads_1_and_2_give_the_same_file(cli_run, tmp_path):
    base = ["simulate", "--players", 3, "--seats", "greedy,random,rusher", "--games", 400, "--seed", 9,
            "--chunk-size", 150, "--json"]
    one = cli_run([*base, "--threads", 1, "--out", tmp_path / "one.parquet"])
    two = cli_run([*base, "--threads", 2, "--out", tmp_path / "two.parquet"])
    pd.testing.assert_frame_equal(pd.read_parquet(tmp_path / "one.parquet"),
                                  pd.read_parquet(tmp_path / "two.parquet"))
    a, b = json.loads(one.stdout), json.loads(two.stdout)
    assert a["by_strategy"] == b["by_strategy"] and a["by_seat"] == b["by_seat"]


# The child runs the real console entry point; its progress callback sends the signal to its own
# process after the first block of games, so the interrupt lands mid-run by construction (no sleep,
# no race with the end of the run).
_SIGNAL_AFTER_FIRST_BLOCK = """
import contextlib, os, signal, sys
import gnoming_sim.cli.group as group

@contextlib.contextmanager
def progress_bar(total, label="games", absolute=True):
    sent = []
    def advance(done):
        if done > 0 and not sent:
            sent.append(done)
            for _ in range(int(os.environ["SIGNALS"])):
                os.kill(os.getpid(), getattr(signal, os.environ["SIGNAL"]))
    yield advance

group.progress_bar = progress_bar   # simulate looks it up at call time
from gnoming_sim.cli.app import main
main(sys.argv[1:])
"""


def _interrupted_run(args, signame="SIGTERM", times=1):
    import os

    env = dict(os.environ, SIGNAL=signame, SIGNALS=str(times))
    return subprocess.run([sys.executable, "-c", _SIGNAL_AFTER_FIRST_BLOCK, *map(str, args)],
                          capture_output=True, text=True, timeout=300, env=env)


@pytest.mark.slow   # a real command killed mid-run and resumed (3.4 s); the fast run keeps the storage layer's kill tests
def test_sigterm_leaves_a_valid_file_that_resume_completes(cli_run, tmp_path):
    """A real SIGTERM to the command, after its first block of games; then --resume; then compare
    with one uninterrupted run."""
    from gnoming_sim.batch.runner import FIRST_BLOCK_GAMES

    out = tmp_path / "games.parquet"
    args = ["simulate", "--players", 4, "--games", 3000, "--seed", 5, "--chunk-size", 1000, "--out", out]
    proc = _interrupted_run(args)
    assert proc.returncode == 128 + signal.SIGTERM, proc.stderr
    assert "Traceback" not in proc.stderr
    assert "SIGTERM: stopping after the current block of games" in proc.stderr
    assert (f"interrupted (SIGTERM) after the block in progress: {FIRST_BLOCK_GAMES} of 3000 games played; "
            f"{out} holds them; run the same command with --resume to finish") in proc.stderr
    assert proc.stdout.startswith(f"INTERRUPTED (SIGTERM): {FIRST_BLOCK_GAMES} of 3000 games played")
    cut = pd.read_parquet(out)
    assert cut["game"].nunique() == FIRST_BLOCK_GAMES and len(cut) == FIRST_BLOCK_GAMES * 12
    resumed = cli_run([*args, "--resume", "--json"])
    assert json.loads(resumed.stdout)["resumed_games"] == FIRST_BLOCK_GAMES
    whole = tmp_path / "whole.parquet"
    cli_run([*args[:-1], whole])
    pd.testing.assert_frame_equal(pd.read_parquet(out), pd.read_parquet(whole))


@pytest.mark.slow   # a subprocess; test_sigterm_leaves_a_valid_file_that_resume_completes stays in test-fast
def test_ctrl_c_without_out_prints_the_summary_so_far():
    from gnoming_sim.batch.runner import FIRST_BLOCK_GAMES

    proc = _interrupted_run(["simulate", "--players", 3, "--games", 50_000, "--chunk-size", 50_000, "--json"],
                            "SIGINT")
    assert proc.returncode == 130, proc.stderr
    s = json.loads(proc.stdout)
    assert (s["games"], s["games_requested"], s["interrupted"], s["complete"]) == (
        FIRST_BLOCK_GAMES, 50_000, "SIGINT", False)
    assert s["by_strategy"]["random"]["n_games"] == FIRST_BLOCK_GAMES
    lines = proc.stderr.splitlines()
    assert lines[0] == "gnoming-sim: SIGINT: stopping after the current block of games; Ctrl-C again to stop now"
    assert lines[-1].startswith(f"gnoming-sim: interrupted (SIGINT) after the block in progress: "
                                f"{FIRST_BLOCK_GAMES} of 50000 games played; nothing was saved (no --out)")


@pytest.mark.slow
def test_a_second_ctrl_c_stops_at_once(tmp_path):
    out = tmp_path / "games.parquet"
    proc = _interrupted_run(["simulate", "--players", 3, "--games", 50_000, "--chunk-size", 50_000, "--out", out],
                            "SIGINT", times=2)
    assert proc.returncode == 130, proc.stderr
    assert "interrupted (SIGINT) at once, dropping the chunk in progress: 0 of 50000 games played; " \
           "no game was finished; nothing was written" in proc.stderr
    assert proc.stdout.startswith("INTERRUPTED (SIGINT): 0 of 50000 games played")
    assert not out.exists() and not list(tmp_path.glob(".*partial"))


def test_progress_bar_on_a_terminal(cli_run, monkeypatch):
    class Terminal(io.StringIO):
        def isatty(self):
            return True

    screen = Terminal()
    monkeypatch.setattr("gnoming_sim.cli.group.stderr", lambda: screen)
    result = cli_run(["simulate", "--players", 2, "--games", 30, "--chunk-size", 10, "--json"])
    assert "30/30" in screen.getvalue()
    assert json.loads(result.stdout)["games"] == 30 and "30/30" not in result.stdout  # the bar never reaches stdout


# ------------------------------------------------------------------ strategies
def test_strategies_lists_the_registry(cli_run):
    """Each strategy's named options (the pocket rules' settings among them), and a count of its fitted weights
    (the net's 1,932 network weights were 470 of the listing's 524 lines); only --json lists the weights."""
    result = cli_run(["strategies"])
    lines = result.stdout.splitlines()
    named = set(registry.PARAM_NAMES) | set(registry.MC_PARAM_NAMES) | set(registry.RULE_PARAM_NAMES)   # the rules' settings
    for name in registry.names():
        strategy = registry.get(name)
        line = next(l for l in lines if l.startswith(name + " "))
        assert strategy.description in line
        for param in strategy.params:
            assert (f"{param}=" in result.stdout) == (param in named), param   # a weight never
    assert len(lines) < 5 * len(registry.names())
    learned = registry.get("learned")
    assert f"(and {len(registry.WEIGHT_NAMES)} learned weights: --json lists them)" in result.stdout
    assert len([p for p in learned.params if p in registry.WEIGHT_NAMES]) == len(registry.WEIGHT_NAMES)
    network = len(registry.NET_WEIGHT_NAMES) + len(registry.NET_SOURCE_WEIGHT_NAMES)
    assert f"and {network:,} network weights: --json lists them)" in " ".join(result.stdout.split())
    cells = [p for p in registry.get("card-starred").params if p in registry.CELL_NAMES]
    assert cells and f"(and {len(cells)} card cells: --json lists them)" in " ".join(
        result.stdout.split())


def test_strategies_json(cli_run):
    data = json.loads(cli_run(["strategies", "--json"]).stdout)
    assert list(data) == registry.names()
    for name, entry in data.items():
        assert entry["description"] == registry.get(name).description
        assert entry["params"] == dict(registry.get(name).params)


# ------------------------------------------------------------------ stalls
def test_a_stalling_deck_is_flagged_on_stderr_and_in_json(cli_run, write_toml):
    """The README's old example deck (39 cards, 4 players) stalls every round: say so, with the share."""
    deck = write_toml('name = "small"\n[cards]\n"3" = 14\n"4" = 14\n"-2" = 8\nM = 3\n', "small.toml")
    result = cli_run(["simulate", "--players", 4, "--deck", deck, "--strategy", "greedy", "--games", 20, "--json"])
    s = json.loads(result.stdout)
    assert s["stalled_rounds"] == 60 and s["stalled_share"] == 1.0
    assert s["warning"].startswith("60 of 60 rounds stalled (100.0%)")
    assert result.stderr == f"gnoming-sim: warning: {s['warning']}\n"
    text = cli_run(["simulate", "--players", 4, "--deck", deck, "--strategy", "greedy", "--games", 20])
    assert "rounds 60 (stalled 60, 100.0%)" in text.stdout and "WARNING: 60 of 60 rounds stalled" in text.stdout


def test_no_stall_warning_for_the_published_deck(cli_run):
    result = cli_run(["simulate", "--players", 4, "--strategy", "greedy", "--games", 100, "--json"])
    assert "warning" not in json.loads(result.stdout) and result.stderr == ""
