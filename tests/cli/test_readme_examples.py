"""Every example of the README and of docs/*.md runs (with few games) and exits 0 without a
warning, so an example can never again stall or fail silently, and every documented
``gnoming-sim`` command line parses with the real command's options.

Each command line of a fenced ``sh`` block runs in its own temporary folder holding a copy of
``examples/``, in which every ``toml`` block (of any page) whose first line is ``# NAME.toml`` has
been written.  ``--games``, ``--rollouts`` and ``--budget`` are cut to a few games, rollouts and
seconds, and ``--half-width`` is loosened to 2 points.  A page's ``python`` blocks run in order, as one
script, in such a folder.  The commands that cannot run here (they build the venv, start Dask clusters, reach a scheduler, or take minutes,
such as the full report) are skipped by the explicit list below, each with its reason.  The fast
tests only read the pages and parse the command lines.
"""
from __future__ import annotations

import os
import re
import shlex
import shutil
import subprocess
import sys
from pathlib import Path

import click
import pytest

ROOT = Path(__file__).resolve().parents[2]
PAGES = [ROOT / "README.md", *sorted((ROOT / "docs").glob("*.md"))]
PROGRAM = "gnoming-sim"

# option -> the most an example may ask for here (a smaller value is kept)
SMALL = {"--games": 200, "--rollouts": 200, "--budget": 5}
# option -> the least an example may ask for here (a larger value is kept): a precision target that sets the work
LOOSE = {"--half-width": 2.0}

# (fragment of the command, why it is not run here)
SKIPPED = [
    ("make ", "builds the virtualenv and runs the whole suite or report"),
    ("source ", "activates the virtualenv in the reader's own shell"),
    ("-m pytest", "runs tests (this is a test)"),
    ("pip install", "installs packages"),
    ("dask scheduler", "starts a Dask scheduler"),
    ("dask worker", "starts Dask workers"),
    ("--scheduler tcp://HOST", "needs a running Dask scheduler"),
    ("--workers ", "starts a local Dask cluster (tested in tests/batch/test_distributed.py)"),
    ("gnoming-sim report", "takes minutes, or reads a file another line wrote (tested in tests/analyses/test_report.py "
                           "and tests/cli/test_report_batch.py)"),
    ("zsh_source", "zsh completion (the bash one is run)"),
    ("gnoming-sim review", "grades a whole game by rollouts (a minute at the default budget); the acceptance commands run "
                           "in tests/analyses/test_review_page.py"),
    ("gnoming-sim board", "serves a page until Ctrl-C (tested in tests/board, the page in Chromium)"),
    ("--add review/drills-pending.parquet", "adds the marks a review kept beside its review.json when the deck stayed "
                                            "busy, a file only such a review writes (tested in "
                                            "tests/cli/test_drill_decks.py)"),
    ("gnoming-sim train", "compiles the rollout-target kernels and trains: minutes even with few games (a small "
                          "train runs in tests/tune/test_learn.py)"),
    ("gnoming-sim card", "compiles the derivation collector's rollout kernels and rolls out thousands of decisions: "
                         "minutes (a small derivation runs in tests/cli/test_card_cli.py)"),
    ("tuning/guide-iteration/run.sh", "the card's policy iteration: about 20 minutes of rollouts (a small round runs "
                                      "in tests/tune/test_card_iterate.py)"),
    ("tuning/guide-iteration/margins.py", "plays 3,000 deals a cell against four rivals at three table sizes: minutes "
                                          "(the card study plays the same, tests/analyses/test_card_study.py)"),
    ("tuning/guide/run.sh", "the card's first derivation: minutes (a small derivation runs in tests/cli/test_card_cli.py)"),
]


def _name(page: Path) -> str:
    return page.relative_to(ROOT).as_posix()


def blocks(page: Path, lang: str) -> list[str]:
    return re.findall(rf"^```{lang}\n(.*?)^```", page.read_text(encoding="utf-8"), flags=re.M | re.S)


def commands() -> list[tuple[str, str]]:
    """(page, line) of every command line of every page's ``sh`` blocks; a line repeated on
    several pages is kept once, on the first."""
    found, seen = [], set()
    for page in PAGES:
        for block in blocks(page, "sh"):
            for line in block.replace("\\\n", " ").splitlines():
                line = line.strip()
                if line and not line.startswith("#") and line not in seen:
                    seen.add(line)
                    found.append((_name(page), line))
    return found


def toml_files() -> dict[str, list[tuple[str, str]]]:
    """NAME.toml -> [(page, text)] for every ``toml`` block whose first line is ``# NAME.toml``."""
    files: dict[str, list[tuple[str, str]]] = {}
    for page in PAGES:
        for block in blocks(page, "toml"):
            first = block.splitlines()[0]
            if re.fullmatch(r"# [\w.-]+\.toml", first):
                files.setdefault(first[2:], []).append((_name(page), block))
    return files


def _words(line: str) -> list[str]:
    """The words of a documented line: comments dropped, eval "$(X)" -> X."""
    words = shlex.split(line, comments=True)
    if words[:1] == ["eval"]:
        words = shlex.split(words[1].removeprefix("$(").removesuffix(")"))
    return words


def runnable(line: str) -> list[str]:
    """The command of a documented line, made small (see SMALL)."""
    words = _words(line)
    out = []
    for i, w in enumerate(words):
        cap = SMALL.get(words[i - 1]) if i else None
        floor = LOOSE.get(words[i - 1]) if i else None
        if cap is not None and re.fullmatch(r"\d+(\.\d+)?", w) and float(w) > cap:
            w = str(cap)
        if floor is not None and re.fullmatch(r"\d+(\.\d+)?", w) and float(w) < floor:
            w = str(floor)
        out.append(w)
    if out and out[0].endswith(f".venv/bin/{PROGRAM}"):   # the reader's venv: here, the one running the tests
        out[0] = PROGRAM
    return out


def skip_reason(line: str) -> str | None:
    return next((why for fragment, why in SKIPPED if fragment in line), None)


CASES = commands()
PYTHON_PAGES = [_name(p) for p in PAGES if blocks(p, "python")]


def test_the_pages_have_examples_and_each_skip_is_used():
    assert len(CASES) >= 30
    assert {"README.md", "docs/python-api.md"} <= set(PYTHON_PAGES)
    for fragment, _ in SKIPPED:
        assert any(fragment in line for _, line in CASES), f"unused skip {fragment!r}: remove it"


def test_each_named_toml_file_is_written_one_way():
    files = toml_files()
    assert {"mine.toml", "house.toml", "no-hazards.toml"} <= set(files)
    for name, versions in files.items():
        texts = {text for _, text in versions}
        assert len(texts) == 1, f"{name} is written differently on {[page for page, _ in versions]}"


def _program_lines() -> list[tuple[str, list[str]]]:
    found = []
    for page, line in CASES:
        words = runnable(line)
        while words and re.fullmatch(r"[A-Z_]+=\S*", words[0]):
            words.pop(0)
        if words and words[0] == PROGRAM and "_GNOMING_SIM_COMPLETE" not in line:   # completion: no arguments
            found.append((f"{page}: {line}", words[1:]))
    return found


def test_every_documented_command_line_parses_with_the_real_options():
    """Option names, values and commands of every documented line, checked by click itself
    (nothing runs: only the parsing), including the lines skipped above."""
    from gnoming_sim.cli import cli

    lines = _program_lines()
    assert len(lines) >= 30
    documented = {args[0] for _, args in lines if args and not args[0].startswith("-")}
    assert documented == set(cli.commands), f"commands without an example: {set(cli.commands) - documented}"
    bad = []
    for where, args in lines:
        try:
            if args and not args[0].startswith("-"):
                command = cli.get_command(click.Context(cli), args[0])
                if command is None:
                    raise click.UsageError(f"no such command {args[0]!r}")
                command.make_context(args[0], args[1:], parent=click.Context(cli, info_name=PROGRAM))
            else:
                cli.make_context(PROGRAM, list(args))
        except click.exceptions.Exit:
            pass   # --help, --version
        except click.ClickException as exc:
            bad.append(f"{where}\n    {exc.format_message()}")
    assert not bad, "documented command lines the CLI refuses:\n" + "\n".join(bad)


def _env() -> dict:
    env = dict(os.environ)
    env["PATH"] = f"{Path(sys.executable).parent}{os.pathsep}{env.get('PATH', '')}"
    return env


def _folder(tmp_path: Path) -> Path:
    shutil.copytree(ROOT / "examples", tmp_path / "examples")   # the files the examples name
    for name, versions in toml_files().items():
        (tmp_path / name).write_text(versions[0][1], encoding="utf-8")
    return tmp_path


def _check(proc: subprocess.CompletedProcess, what: str) -> None:
    assert proc.returncode == 0, f"{what}\n{proc.stderr}"
    assert "Traceback" not in proc.stderr
    assert "warning" not in proc.stderr.lower(), f"{what}\n{proc.stderr}"
    assert proc.stdout.strip(), f"{what} printed nothing"


@pytest.mark.slow
@pytest.mark.parametrize("page, line", CASES, ids=[f"{page}:{line[:50]}" for page, line in CASES])
def test_documented_command_runs(tmp_path, page, line):
    why = skip_reason(line)
    if why:
        pytest.skip(why)
    cwd = _folder(tmp_path)
    words = runnable(line)
    env = _env()
    while words and re.fullmatch(r"[A-Z_]+=\S*", words[0]):
        key, value = words.pop(0).split("=", 1)
        env[key] = value
    if words[:1] == [PROGRAM] and env == _env():   # in this process: no fresh interpreter loading the kernels
        _run_in_process(words[1:], cwd, f"{page}: {line}")
        return
    if "--resume" in words:   # resumes the file the line before it on the page wrote
        first = [w for w in words if w != "--resume"]
        setup = subprocess.run(first, cwd=cwd, env=env, capture_output=True, text=True, timeout=300)
        assert setup.returncode == 0, setup.stderr
    proc = subprocess.run(words, cwd=cwd, env=env, capture_output=True, text=True, timeout=300)
    _check(proc, f"{page}: {line}")


def _run_in_process(args: list[str], cwd: Path, what: str) -> None:
    """A `gnoming-sim` line run through click's runner in this interpreter (the kernels are loaded once
    for the whole file); the checks of :func:`_check`.  The entry point itself, signals and the first run
    are tested as real subprocesses elsewhere (tests/cli/test_cli.py, test_cli_first_run.py)."""
    from click.testing import CliRunner

    from gnoming_sim.cli import cli
    from gnoming_sim.kernel.policy import registry

    old = os.getcwd()
    os.chdir(cwd)
    try:
        with registry.using(registry.Registry()):   # a strategies file a line loads goes with it
            if "--resume" in args:   # resumes the file the line before it on the page wrote
                first = CliRunner().invoke(cli, [a for a in args if a != "--resume"])
                assert first.exit_code == 0, (what, first.output, first.exception)
            result = CliRunner().invoke(cli, args, prog_name=PROGRAM)
    finally:
        os.chdir(old)
    proc = subprocess.CompletedProcess(args, result.exit_code, result.stdout, result.stderr)
    assert result.exception is None or isinstance(result.exception, SystemExit), (what, result.exception)
    _check(proc, what)


@pytest.mark.slow
@pytest.mark.parametrize("page", PYTHON_PAGES)
def test_documented_python_runs(tmp_path, page):
    cwd = _folder(tmp_path)
    script = cwd / "example.py"
    script.write_text("\n".join(blocks(ROOT / page, "python")), encoding="utf-8")
    proc = subprocess.run([sys.executable, "-W", "error", str(script)], cwd=cwd, env=_env(),
                          capture_output=True, text=True, timeout=600)
    _check(proc, f"the python blocks of {page}")


def test_the_readme_python_example_prints_per_seat_means(capsys):
    """The README's Python example prints each strategy's mean game score per seat, not the sum over
    its two seats (it printed expert -8.04, builder 24.09), with the 95% interval and n
    (games) that ``simulate`` gives the same games; and the values its text states are those it prints."""
    import numpy as np

    import gnoming_sim
    from gnoming_sim.batch.summary import summarize

    readme = ROOT / "README.md"
    [example] = blocks(readme, "python")
    exec(compile(example, str(readme), "exec"), {"__name__": "readme_example"})
    printed = {}
    for line in capsys.readouterr().out.splitlines():
        words = line.split()
        if len(words) == 6 and re.fullmatch(r"-?\d+\.\d\d", words[1]):
            printed[words[0]] = [float(w) for w in words[1:]]   # mean, sem, count, ci95_lo, ci95_hi
    res = gnoming_sim.simulate(players=4, strategies=["expert", "builder"] * 2, games=2000, seed=1, rotate=True)
    summary = summarize(res, wall_s=0.0)["by_strategy"]
    assert set(printed) == set(summary) == {"expert", "builder"}
    seated = np.asarray(res.strategy_names)[res.seat_strategy]    # (games, seats): who sat where
    for name, (mean, _, count, lo, hi) in printed.items():
        want = summary[name]
        assert count == want["n_games"] == 2000
        assert mean == round(want["mean_game_score"], 2)
        assert np.allclose([lo, hi], want["ci95"], atol=0.011)
        assert mean == round(res.totals[seated == name].mean(), 2)   # over its seats: not their sum per game
    # the sentence after the example ("n = 2,000 games: expert −4.02, builder 12.05"), not the headline block's
    # differences between players further down
    stated = dict(re.findall(r"(expert|builder) (−?\d+\.\d\d)",
                             re.search(r"n = 2,000 games: [^.]*\.\d\d[^.]*\.\d\d", readme.read_text(encoding="utf-8"))[0]))
    assert {k: float(v.replace("\u2212", "-")) for k, v in stated.items()} == {k: v[0] for k, v in printed.items()}
