"""Hostile command lines: every one ends in exit 2 and one line on stderr, never a
traceback, a hang or a read without end.  The cases are the fixed list of ``_fuzz_cases.cases()``:
every file option of every command x every kind of bad file, every number option x out-of-range
values, odd strings, hostile TOML contents and the hostile inputs the issue names."""
from __future__ import annotations

import signal
import sys
from pathlib import Path

import click
import pytest

sys.path.insert(0, str(Path(__file__).parent))
import _fuzz_cases as fuzz  # noqa: E402  (a helper beside this file, not a package)

from gnoming_sim.cli.app import cli  # noqa: E402

CASES = fuzz.cases()
CASE_TIMEOUT_S = 60   # a case that blocks (a FIFO opened for reading) fails here instead of hanging


@pytest.fixture(scope="module")
def hostile_files(tmp_path_factory):
    return fuzz.make_files(tmp_path_factory.mktemp("hostile"))


@pytest.fixture(autouse=True)
def fresh_registry(own_registry):
    return own_registry


@pytest.fixture
def alarm():
    def expired(signum, frame):
        raise TimeoutError(f"a hostile case ran past {CASE_TIMEOUT_S} s (blocked?)")

    previous = signal.signal(signal.SIGALRM, expired)
    signal.alarm(CASE_TIMEOUT_S)
    yield
    signal.alarm(0)
    signal.signal(signal.SIGALRM, previous)


def assert_one_line_exit_2(result, argv):
    assert result.exit_code == 2, (argv, result.exit_code, result.output, result.exception)
    assert isinstance(result.exception, SystemExit), result.exception
    lines = result.stderr.splitlines()
    assert len(lines) == 1, (argv, result.stderr)
    assert lines[0].startswith("gnoming-sim: error: "), lines
    assert "Traceback" not in result.output
    assert result.stdout == "", result.stdout


def test_every_option_of_every_command_is_fuzzed():
    """Completeness: each non-flag option of each command appears in some case (output paths,
    which tests/cli/test_output_guard.py checks, aside)."""
    outputs = {("simulate", "--out"), ("simulate", "--report"), ("compare", "--out"), ("report", "--out"),
               ("tune", "--out"), ("tune", "--log"), ("tune", "--plot"), ("report", "--from"),
               ("ladder", "--out"), ("train", "--out"), ("review", "--out"), ("review", "--save-record"),
               ("card", "--out")}
    fuzzed = {(argv[0], a) for _, argv in CASES for a in argv if a.startswith("--")}
    fuzzed |= {("report", "--from")}
    missing = []
    for name, command in cli.commands.items():
        for p in command.params:
            if isinstance(p, click.Option) and not p.is_flag and (name, p.opts[0]) not in outputs | fuzzed:
                missing.append(f"{name} {p.opts[0]}")
    assert not missing, missing


REGRESSIONS = [   # the input audit's hostile inputs, each by its case id
    *(f"{cmd}--rules=deep_array" for cmd in ("simulate", "play", "analyse", "report", "tune", "held-out", "rules")),
    "analyse-position--position=deep_table", "strategies--strategies-file=deep_dotted",
    "simulate--rules=loop", "simulate--rules=through", "simulate--rules=longname", "simulate--rules=procmem",
    "simulate--rules=devzero",
    "simulate--rules=fifo", "simulate--deck=fifo", "simulate--strategies-file=fifo", "report--from=fifo",
    "content:finish_margin_400_digits",
    f"tune--popsize='{fuzz.BIG}'", f"held-out--games='{fuzz.BIG}'", f"report--games='{fuzz.BIG}'",
    "report--workers='500'", f"report--threads='{fuzz.BIG}'", f"tune--threads='{fuzz.BIG}'", "analyse--rollouts='10000000'",
    "position:scores_near_2_63", "position:scores_1e26",
    "simulate--strategy=''", "held-out--players='3,3'", "tune--name='ok\\n'", "content:name_newline",
    "content:name_mathtext",
    # nonsense once accepted
    *(f"position:{name}" for name in fuzz.IMPOSSIBLE_POSITIONS),
    "content:mc_net_base_without_weights", "content:mc_learned_base_without_weights",
]


SAMPLE_EVERY = 10   # `make test-fast` runs every 10th case and the regressions; `make test` runs all


def _params():
    regressions = set(REGRESSIONS) | set(fuzz.regressions())
    return [pytest.param(argv, id=name, marks=() if i % SAMPLE_EVERY == 0 or name in regressions else pytest.mark.slow)
            for i, (name, argv) in enumerate(CASES)]


@pytest.mark.parametrize("argv", _params())
def test_hostile_command_line_is_one_line_exit_2(cli_run, argv, hostile_files, tmp_path, monkeypatch, alarm, request):
    monkeypatch.chdir(tmp_path)   # a case that wrongly passed would write here, not in the repository
    real = fuzz.resolve(argv, hostile_files, tmp_path)
    result = cli_run(real, code=None)   # each case's exit is checked below, or by the check it names
    if not fuzz.checked_elsewhere(request.node.callspec.id, result, real):
        assert_one_line_exit_2(result, real)


def test_the_input_audits_hostile_inputs_are_all_cases():
    ids = {c[0] for c in CASES}
    assert [r for r in REGRESSIONS + fuzz.regressions() if r not in ids] == []
    assert len(ids) == len(CASES)   # ids are unique


def test_the_list_is_large_and_fixed():
    assert len(CASES) >= 500
    assert fuzz.cases() == CASES   # no randomness: the same list every run


def test_the_hostile_positions_are_valid_but_for_the_value_under_test(tmp_path):
    """Control: the position template with ordinary values is read, so each position case fails on
    its own hostile value and not on the template."""
    from gnoming_sim.game.position import from_toml

    path = tmp_path / "ok.toml"
    path.write_text(fuzz._POSITION.format(round=3, scores="[40, -12]"))
    assert from_toml(path).scores == (40, -12)
