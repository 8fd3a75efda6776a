"""What the input-side checks say, case by case: the file reader's words for each bad
file, the number bounds shared by the commands, and the smaller defects (names, rounding, plots)."""
from __future__ import annotations

import os
import threading

import pytest

from gnoming_sim.cli import options as opt
from gnoming_sim.game import input_file
from gnoming_sim.game.errors import GnomingError
from gnoming_sim.game.position import from_mapping, round_score_bound
from _inputs import one_line
from gnoming_sim.game.rules import RuleConfig


@pytest.fixture(autouse=True)
def fresh_registry(own_registry):
    return own_registry


# ------------------------------------------------------------------ the reader
def test_a_named_pipe_is_refused_without_waiting_for_a_writer(tmp_path):
    fifo = tmp_path / "rules.toml"
    os.mkfifo(fifo)
    done = []
    worker = threading.Thread(target=lambda: done.append(_error(fifo)), daemon=True)
    worker.start()
    worker.join(10)
    assert done == [f"rules file {fifo} is a named pipe, not a regular file"]


def _error(path, **kw):
    try:
        input_file.read_toml(path, "rules", **kw)
    except GnomingError as exc:
        return str(exc)
    return None


@pytest.mark.parametrize("path, words", [
    ("/dev/zero", "is a device, not a regular file"),
    ("/proc/self/mem", "input/output error"),
])
def test_system_files_are_refused_unread(path, words):
    assert words in _error(path)


def test_each_path_failure_has_its_words(tmp_path):
    (tmp_path / "a").symlink_to(tmp_path / "b")
    (tmp_path / "b").symlink_to(tmp_path / "a")
    (tmp_path / "f").write_text("x = 1\n")
    assert "symlink loop" in _error(tmp_path / "a")
    assert "a part of the path is a file" in _error(tmp_path / "f" / "x.toml")
    assert "the name is too long" in _error(tmp_path / ("n" * 300))
    assert "is a directory" in _error(tmp_path)
    assert _error(tmp_path / "none.toml") == f"rules file not found: {tmp_path / 'none.toml'}"


def test_size_limit_is_read_limit_plus_one_bytes(tmp_path):
    path = tmp_path / "big.toml"
    path.write_bytes(b"a = 1\n" + b" " * 100)
    assert _error(path, limit=106) is None                  # exactly the limit: read
    assert "is larger than 105 bytes" in _error(path, limit=105)
    with open(path, "wb") as fh:
        fh.truncate(17 * 2**20)
    assert "larger than 16 MiB" in _error(path)


def test_non_utf8_text_and_names(tmp_path):
    path = tmp_path / "x.toml"
    path.write_bytes(b"a = '\xff'\n")
    assert "is not UTF-8 text (byte 5)" in _error(path)
    odd = os.fsencode(str(tmp_path)) + b"/\xff.toml"
    assert input_file.shown(os.fsdecode(odd)).endswith("/\\xff.toml")
    assert input_file.shown("a\nb\x1b") == "a\\nb\\x1b"     # control characters cannot break the line


@pytest.mark.parametrize("text", [
    "a = " + "[" * 33 + "]" * 33,
    "a = " + "{b = " * 33 + "1" + "}" * 33,
    "a." * 40 + "a = 1",
    "a = " + "[" * 3000 + "]" * 3000,
])
def test_nesting_past_the_limit_is_refused(tmp_path, text):
    path = tmp_path / "deep.toml"
    path.write_text(text)
    assert "deeper than 32 levels" in _error(path)


def test_nesting_at_the_limit_and_brackets_in_strings_are_read(tmp_path):
    path = tmp_path / "ok.toml"
    path.write_text("a = " + "[" * 31 + "]" * 31 + "\nb = '" + "[" * 100 + "'\n# " + "{" * 100 + "\n"
                    + 'c = """' + "[" * 100 + '"""\n')
    data = input_file.read_toml(path, "rules")
    assert data["b"] == "[" * 100 and data["c"] == "[" * 100


@pytest.mark.parametrize("value", [2**63, -2**63 - 1, 10**26, "0x" + "f" * 5000, "9" * 5000])
def test_integers_outside_int64_are_refused(tmp_path, value):
    path = tmp_path / "x.toml"
    path.write_text(f"a = {value}\n")
    message = _error(path)
    assert "outside -2**63..2**63-1" in message or "not valid TOML" in message
    assert len(message) < 400


def test_from_refuses_a_pipe_before_opening_it(cli_run, tmp_path):
    fifo = tmp_path / "b.parquet"
    os.mkfifo(fifo)
    one_line(cli_run(["report", "--from", fifo], code=2), "--from file", "named pipe")


# ------------------------------------------------------------------ numbers
@pytest.mark.parametrize("args, fragment", [
    (["report", "--threads", 10**29], "--threads must be in 1..4096"),
    (["tune", "--out", "t.toml", "--threads", 10**29], "--threads must be in 1..4096"),
    (["held-out", "--candidate", "greedy", "--threads", 4097], "--threads must be in 1..4096"),
    (["compare", "--threads", 4097], "--threads must be in 1..4096"),
    (["analyse", "--game", 0, "--turn", 0, "--threads", 4097], "--threads must be in 1..4096"),
    (["simulate", "--threads", 4097], "--threads must be in 1..4096"),
    (["report", "--workers", 500], f"--workers must be in 1..{opt.max_workers()}"),
    (["held-out", "--candidate", "greedy", "--workers", 500], f"--workers must be in 1..{opt.max_workers()}"),
    (["report", "--games", 10**29], f"--games must be in 1..{opt.MAX_STUDY_GAMES}"),
    (["held-out", "--candidate", "greedy", "--games", 10**29], f"--games must be in 1..{opt.MAX_HELD_OUT_GAMES}"),
    (["tune", "--out", "t.toml", "--popsize", 10**29], f"--popsize must be in 2..{opt.MAX_POPSIZE}"),
    (["tune", "--out", "t.toml", "--max-games", 10**29], f"--max-games must be in 1..{opt.MAX_TUNE_GAMES}"),
    (["analyse", "--game", 0, "--turn", 0, "--rollouts", 10_000_000], "--rollouts must be in 2..500000"),
    (["analyse", "--game", 0, "--turn", 0, "--half-width", 1e-300], "--half-width must be a number of points"),
])
def test_the_commands_share_their_ranges(cli_run, tmp_path, monkeypatch, args, fragment):
    monkeypatch.chdir(tmp_path)
    one_line(cli_run([*args], code=2), fragment)


def test_max_workers_is_the_usable_cores_at_most_256():
    assert 1 <= opt.max_workers() <= min(256, os.cpu_count())


def _position(rnd, scores):
    row = ["5", "6"] + ["?"] * 7   # the two initial flips up: 110 cards - 4 seen - 14 face down = 92 to draw
    return {"players": 2, "me": 0, "round": rnd, "scores": scores, "draw_pile": 92, "layouts": [row, row],
            "piles": [[], []]}


def test_position_scores_are_bounded_by_the_finished_rounds():
    bound = round_score_bound(RuleConfig())
    assert bound == 9 * 20 + 5
    from_mapping(_position(3, [2 * bound, -2 * bound]))        # two finished rounds can reach it
    with pytest.raises(GnomingError, match=r"seat 0 has 371, but 2 finished round\(s\) can only reach -370..370"):
        from_mapping(_position(3, [2 * bound + 1, 0]))
    with pytest.raises(GnomingError, match="0 finished round"):
        from_mapping(_position(1, [0, 5]))
    with pytest.raises(GnomingError, match="can only reach"):
        from_mapping(_position(3, [2**63 - 1, 0]))


def test_a_strategy_parameter_of_400_digits_is_one_line(cli_run, write_toml):
    path = write_toml('[strategy.x]\nbase = "greedy"\nfinish_margin = ' + "9" * 400 + "\n")
    one_line(cli_run(["strategies", "--strategies-file", path], code=2), "outside -2**63..2**63-1")
    path = write_toml('[strategy.x]\nbase = "greedy"\nfinish_margin = 1e300\n')
    one_line(cli_run(["strategies", "--strategies-file", path], code=2), "must be a finite number in -1000000..1000000")


# ------------------------------------------------------------------ smaller defects
@pytest.mark.parametrize("name", ["ok\n", "ok\n\n"])
def test_names_with_a_trailing_newline_are_refused(cli_run, write_toml, tmp_path, name):
    path = write_toml(f'[strategy."{name.encode("unicode_escape").decode()}"]\nbase = "greedy"\n')
    one_line(cli_run(["strategies", "--strategies-file", path], code=2), "is not allowed")
    one_line(cli_run(["tune", "--out", tmp_path / "t.toml", "--name", name], code=2), "--name must start with a letter")


def test_an_empty_strategy_is_refused_not_random(cli_run):
    one_line(cli_run(["simulate", "--games", 4, "--strategy", ""], code=2), "--strategy has an empty strategy name: ''")


def test_a_table_size_given_twice_is_refused(cli_run):
    one_line(cli_run(["held-out", "--candidate", "greedy", "--players", "3,4,3"], code=2),
                      "names a table size twice (3)")


def test_tune_says_when_it_rounds_games_to_whole_rotations(cli_run, tmp_path):
    res = cli_run(["tune", "--players", 4, "--games", 31, "--popsize", 2, "--generations", 1, "--threads", 1, "--out",
                   tmp_path / "t.toml"])
    assert "--games 31 is not a multiple of --players 4: each candidate plays 32 games" in res.stderr
    assert "x 32 games" in res.stderr                       # the generation line: what it really played


def test_a_mathtext_name_is_drawn_as_plain_text():
    from gnoming_sim.analyses.framework.plots import new_figure   # sets text.parse_math off
    from gnoming_sim.analyses.framework.render import figure_png

    fig, ax = new_figure()
    ax.plot([0, 1], [0, 1], label="$\\frac{$")
    ax.set_yticks([0, 1], ["$\\frac{$", "a$b"])
    ax.set_title("from $\\frac{$")
    ax.legend()
    assert figure_png(fig).startswith(b"\x89PNG")


def test_the_tuning_curve_takes_a_mathtext_title(tmp_path):
    from gnoming_sim.tune.output import plot_curve

    rows = [{"generation": g, "incumbent": 0.0, "incumbent_lo": -1.0, "incumbent_hi": 1.0, "best": -0.5,
             "games": 40, "candidates": 4} for g in range(2)]
    plot_curve(rows, tmp_path / "c.png", "tune vs $\\frac{$")
    assert (tmp_path / "c.png").read_bytes().startswith(b"\x89PNG")
