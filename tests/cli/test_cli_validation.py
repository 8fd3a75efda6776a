"""Loose inputs a newcomer trips over: each is one line on
stderr, exit 2, naming the file, the key and what is allowed, before any game is played."""
from __future__ import annotations


import pytest



@pytest.fixture(autouse=True)
def fresh_registry(own_registry):
    return own_registry


def assert_one_line(result, *fragments):
    assert result.exit_code == 2, (result.exit_code, result.output, result.exception)
    assert result.stdout == ""
    lines = result.stderr.splitlines()
    assert len(lines) == 1, result.stderr
    assert lines[0].startswith("gnoming-sim: error: ")
    for fragment in fragments:
        assert fragment in lines[0], lines[0]


# ------------------------------------------------------------------ strategy files
@pytest.mark.parametrize("body, fragments", [
    ('base = "greedy"\nbounce = 2\n', ["[strategy.x]", "parameter 'bounce' must be 0 or 1", "got 2"]),
    ('base = "greedy"\nbounce = -3\n', ["parameter 'bounce' must be 0 or 1", "got -3"]),
    ('base = "greedy"\nhazard_flip = 0.5\n', ["parameter 'hazard_flip' must be 0 or 1", "got 0.5"]),
    ('base = "greedy"\ninitial_flips = 5\n', ["parameter 'initial_flips' must be 0 or 1 or 2", "got 5"]),
    ('base = "greedy"\npair_weight = nan\n', ["parameter 'pair_weight' must be a finite number", "nan"]),
    ('base = "greedy"\nfinish_margin = inf\n', ["parameter 'finish_margin' must be a finite number", "inf"]),
    ('finish_margin = 6\n', ["[strategy.x]: missing key 'base'", "greedy, builder, rusher, cautious"]),
    ('base = "random"\n', ["based on a heuristic preset", "not 'random'"]),
])
def test_strategy_file_values(cli_run, no_engine, write_toml, body, fragments):
    path = write_toml("[strategy.x]\n" + body, "mine.toml")
    result = cli_run(["simulate", "--strategies-file", path, "--strategy", "x", "--games", 10], code=2)
    assert_one_line(result, "--strategies-file", str(path), *fragments)


@pytest.mark.parametrize("name", ["a,b", "two words", "1st", ""])
def test_strategy_names_that_cannot_be_seated(cli_run, no_engine, write_toml, name):
    path = write_toml(f'[strategy."{name}"]\nbase = "greedy"\n', "mine.toml")
    assert_one_line(cli_run(["strategies", "--strategies-file", path], code=2), "--strategies-file", str(path),
                    f"strategy name {name!r} is not allowed", "no commas")


# ------------------------------------------------------------------ deck files
@pytest.mark.parametrize("card", ["0", "1", "2", "9", "-20", "-5"])
def test_deck_card_values_of_the_game_only(cli_run, no_engine, write_toml, card):
    path = write_toml(f'[cards]\n"6" = 80\n"{card}" = 4\n', "deck.toml")
    assert_one_line(cli_run(["simulate", "--deck", path, "--games", 10], code=2), "--deck", str(path),
                    f"card '{card}' is not a card of the game", "allowed: -4..-1, 3..8, H/hazard, M/mulligan")


def test_deck_card_given_twice_is_not_summed(cli_run, no_engine, write_toml):
    path = write_toml('[cards]\n"6" = 80\nhazard = 3\nH = 2\n', "deck.toml")
    assert_one_line(cli_run(["rules", "--deck", path], code=2), "--deck", str(path),
                    "card 'H' is given twice (as 'hazard' and 'H'); give it once")


def test_deck_huge_count(cli_run, no_engine, write_toml):
    path = write_toml('[cards]\n"6" = 1000000000000\n', "deck.toml")
    assert_one_line(cli_run(["simulate", "--deck", path, "--games", 10], code=2), "--deck", str(path),
                    "count of card '6' must be 0..1000")


# ------------------------------------------------------------------ rules files
def test_rules_type_error_names_the_file(cli_run, no_engine, write_toml):
    path = write_toml("rotate_start = 1\n", "house.toml")
    assert_one_line(cli_run(["simulate", "--rules", path, "--games", 10], code=2), "--rules", f"{path}: rules option "
                    "'rotate_start' must be true or false, got 1")


def test_rules_range_error_names_file_key_and_range(cli_run, no_engine, write_toml):
    path = write_toml("[rules]\nmax_turns = 0\n", "house.toml")
    assert_one_line(cli_run(["rules", "--rules", path], code=2),
                             f"{path}: rules option 'max_turns' must be 1..100000, got 0")


@pytest.mark.parametrize("line, message", [
    ("hazard_value = 0", "rules option 'hazard_value' must be 1..50, got 0"),
    ("hazard_value = 51", "rules option 'hazard_value' must be 1..50, got 51"),
    ("mulligan_value = -21", "rules option 'mulligan_value' must be -20..20, got -21"),
    ("negative_multiplier = 4", "rules option 'negative_multiplier' must be 0..3, got 4"),
    ("hazard_value = 12.5", "rules option 'hazard_value' must be an integer, got 12.5"),
])
def test_card_value_options_out_of_range(cli_run, no_engine, write_toml, line, message):
    path = write_toml(line + "\n", "house.toml")
    assert_one_line(cli_run(["simulate", "--rules", path, "--games", 10], code=2), "--rules", f"{path}: {message}")


def test_rules_top_level_and_table_mixed(cli_run, no_engine, write_toml):
    path = write_toml("max_turns = 300\n[rules]\nrotate_start = false\n", "house.toml")
    assert_one_line(cli_run(["rules", "--rules", path], code=2), str(path),
                    "options both at top level (max_turns) and in a [rules] table; put them all in one place")


# ------------------------------------------------------------------ numbers out of range
@pytest.mark.parametrize("args, fragment", [
    (["simulate", "--games", 2**63], "--games must be in 1..2**63-1, got 9223372036854775808"),
    (["simulate", "--games", 10**30], "--games must be in 1..2**63-1"),
    (["simulate", "--chunk-size", 10**30], "--chunk-size must be in 1..2**63-1"),
    (["simulate", "--threads", 10**30], "--threads must be in 1..4096"),
    (["simulate", "--workers", 10**30], "--workers must be in 1.."),   # the machine's cores, at most 256
    (["simulate", "--seed", 2**64], "--seed must be in 0..2**64-1"),
    (["play", "--game", 99999999999999999999999], "--game must be in 0..2**63-1, got 99999999999999999999999"),
    (["play", "--game", 2**63], "--game must be in 0..2**63-1"),
    (["play", "--seed", -1], "--seed must be in 0..2**64-1"),
])
def test_out_of_range_numbers(cli_run, no_engine, args, fragment):
    assert_one_line(cli_run([*args], code=2), fragment)


# ------------------------------------------------------------------ output options
def test_force_needs_out(cli_run, no_engine):
    assert_one_line(cli_run(["simulate", "--games", 10, "--force"], code=2), "--force needs --out FILE")


def test_out_below_a_file_calls_it_a_file(cli_run, no_engine, tmp_path):
    games = tmp_path / "games.parquet"
    games.write_bytes(b"data")
    assert_one_line(cli_run(["simulate", "--games", 10, "--out", games / "x.parquet"], code=2),
                    f"{games} is a file, not a directory")
    assert games.read_bytes() == b"data"


# ------------------------------------------------------------------ resume mismatches name the parameter
def test_resume_names_the_strategy_parameter(cli_run, tmp_path, write_toml):
    out = tmp_path / "games.parquet"
    first = write_toml('[strategy.patient]\nbase = "greedy"\nfinish_margin = 6\n', "a.toml")
    second = write_toml('[strategy.patient]\nbase = "greedy"\nfinish_margin = 2\n', "b.toml")
    base = ["simulate", "--players", 2, "--strategy", "patient", "--games", 40, "--chunk-size", 20,
            "--out", out]
    cli_run([*base, "--strategies-file", first])
    before = out.read_bytes()
    assert_one_line(cli_run([*base, "--strategies-file", second, "--resume"], code=2),
                    "was written with strategy parameters patient.finish_margin=6.0, "
                    "this command has strategy parameters patient.finish_margin=2.0")
    assert out.read_bytes() == before


def test_resume_names_strategy_not_seats(cli_run, tmp_path):
    out = tmp_path / "games.parquet"
    base = ["simulate", "--players", 2, "--games", 20, "--out", out]
    cli_run([*base, "--strategy", "greedy"])
    assert_one_line(cli_run([*base, "--strategy", "random", "--resume"], code=2),
                    "was written with --strategy greedy, this command has --strategy random")
    assert_one_line(cli_run([*base, "--seats", "random,greedy", "--resume"], code=2),
                    "was written with --strategy greedy, this command has --seats random,greedy")
