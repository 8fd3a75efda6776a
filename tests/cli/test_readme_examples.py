"""Every command of the README's fenced ``sh`` blocks runs (with few games) and exits 0 without a
stall warning, so an example can never again stall or fail silently (issue 17).

Each block runs in its own temporary folder holding a copy of ``examples/``, in which every README ``toml`` block whose first
line is ``# NAME.toml`` has been written.  ``--games N`` becomes ``--games 200``.  The commands
that cannot run here (they build the venv, start Dask clusters, reach a scheduler, or take
minutes, such as the full report) are skipped by the explicit list below, each with its reason.
"""
from __future__ import annotations

import os
import re
import shlex
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
README = ROOT / "README.md"
SMALL_GAMES = "200"

# (fragment of the command, why it is not run here)
SKIPPED = [
    ("make ", "builds the virtualenv and runs the whole suite or report"),
    ("pip install", "installs packages"),
    ("dask scheduler", "starts a Dask scheduler"),
    ("dask worker", "starts Dask workers"),
    ("--scheduler tcp://HOST", "needs a running Dask scheduler"),
    ("--workers ", "starts a local Dask cluster (tested in tests/batch/test_distributed.py)"),
    ("gnoming-sim report", "takes minutes (tested in tests/analyses/test_report.py)"),
    ("zsh_source", "zsh completion (the bash one is run)"),
]


def blocks(lang: str) -> list[str]:
    return re.findall(rf"^```{lang}\n(.*?)^```", README.read_text(encoding="utf-8"), flags=re.M | re.S)


def commands() -> list[str]:
    found = []
    for block in blocks("sh"):
        text = block.replace("\\\n", " ")
        for line in text.splitlines():
            line = line.strip()
            if line and not line.startswith("#"):
                found.append(line)
    return found


def runnable(line: str) -> list[str]:
    """The command of a README line: comments dropped, eval "$(X)" -> X, small --games."""
    words = shlex.split(line, comments=True)
    if words[:1] == ["eval"]:
        words = shlex.split(words[1].removeprefix("$(").removesuffix(")"))
    return [SMALL_GAMES if i and words[i - 1] == "--games" else w for i, w in enumerate(words)]


def skip_reason(line: str) -> str | None:
    return next((why for fragment, why in SKIPPED if fragment in line), None)


CASES = [(i, line) for i, line in enumerate(commands())]


def test_the_readme_has_examples_and_each_skip_is_used():
    assert len(CASES) >= 10
    for fragment, _ in SKIPPED:
        assert any(fragment in line for _, line in CASES), f"unused skip {fragment!r}: remove it"


def _env() -> dict:
    env = dict(os.environ)
    env["PATH"] = f"{Path(sys.executable).parent}{os.pathsep}{env.get('PATH', '')}"
    return env


@pytest.mark.slow
@pytest.mark.parametrize("index, line", CASES, ids=[f"{i}:{line[:50]}" for i, line in CASES])
def test_readme_command_runs(tmp_path, index, line):
    why = skip_reason(line)
    if why:
        pytest.skip(why)
    shutil.copytree(ROOT / "examples", tmp_path / "examples")   # the files the examples name
    for block in blocks("toml"):
        first = block.splitlines()[0]
        if re.fullmatch(r"# [\w.-]+\.toml", first):
            (tmp_path / first[2:]).write_text(block, encoding="utf-8")
    words = runnable(line)
    env = _env()
    assignments = {}
    while words and re.fullmatch(r"[A-Z_]+=\S*", words[0]):
        key, value = words.pop(0).split("=", 1)
        assignments[key] = value
    env.update(assignments)
    if "--resume" in words:   # resumes the file the line before it in the README wrote
        first = [w for w in words if w != "--resume"]
        setup = subprocess.run(first, cwd=tmp_path, env=env, capture_output=True, text=True, timeout=300)
        assert setup.returncode == 0, setup.stderr
    proc = subprocess.run(words, cwd=tmp_path, env=env, capture_output=True, text=True, timeout=300)
    assert proc.returncode == 0, f"{line}\n{proc.stderr}"
    assert "Traceback" not in proc.stderr
    assert "warning" not in proc.stderr, f"{line}\n{proc.stderr}"
    assert proc.stdout.strip(), f"{line} printed nothing"
