"""Output folders: one that cannot be written is one line and exit 2 before any work,
for every command and output option; a file output named with a trailing ``/`` is refused.

Before: ``chmod 555 ro`` (as a user other than root), then ``report --from ro/g.parquet`` (its default
folder lies beside the batch), ``report --out ro/x``, ``review --out ro/rv``, ``card``, ``train``: a
``FileNotFoundError`` traceback on ``ro/.NAME.lock``; ``simulate --out g.parquet/`` wrote the file
``g.parquet``.  The check is an actual probe (a file made in the folder), as root and read-only mounts
make permission bits say nothing: the fast tests make the probe meet a read-only folder in-process, the
slow ones run the commands against a real read-only mount and as an unprivileged user.
"""
from __future__ import annotations

import errno
import json
import os
import shutil
import subprocess
import sys
import tempfile
import textwrap
from pathlib import Path

import pytest

from gnoming_sim.batch import output

NOBOUNCE = Path(__file__).resolve().parents[2] / "examples" / "nobounce.toml"
SIM = ["simulate", "--players", "3", "--games", "30", "--seed", "1", "--threads", "1"]
REVIEW = ["review", "--game", "0", "--seat", "0", "--rollouts", "20", "--threads", "1"]
TUNE = ["tune", "--players", "2", "--games", "4", "--popsize", "2", "--generations", "1", "--threads", "1"]
LADDER = ["ladder", "--players", "2", "--strategies", "random,greedy", "--games", "4", "--bootstrap", "100"]

# every output option of every command, aimed into the folder ro/ (which holds the batch ro/b.parquet)
INTO_RO = {
    "simulate --out": [*SIM, "--out", "ro/g.parquet"],
    "simulate --report": [*SIM, "--out", "g.parquet", "--report", "ro/rep"],
    "report --from (default folder)": ["report", "--from", "ro/b.parquet"],
    "report --from --out": ["report", "--from", "ro/b.parquet", "--out", "ro/x"],
    "report --quick --out": ["report", "--quick", "--threads", "1", "--out", "ro/x"],
    "review --out": [*REVIEW, "--out", "ro/rv"],
    "review --save-record": [*REVIEW, "--out", "rv", "--save-record", "ro/r.toml"],
    "compare --out": ["compare", "--games", "4", "--variant", f"nb={NOBOUNCE}", "--out", "ro/c.parquet"],
    "ladder --out": [*LADDER, "--out", "ro/l.json"],
    "tune --out": [*TUNE, "--out", "ro/t.toml"],
    "tune --log": [*TUNE, "--out", "t.toml", "--log", "ro/l.csv"],
    "tune --plot": [*TUNE, "--out", "t.toml", "--plot", "ro/p.png"],
    "card --out": ["card", "--games", "4", "--players", "2", "--budget", "1", "--out", "ro/gd"],
    "train --out": ["train", "--iterations", "1", "--games", "4", "--players", "2", "--out", "ro/tr"],
}

# a file output named like a folder: the fuzz harness's cases (tests/inputs/_fuzz_cases_locks.py), run here in
# the case's own folder, where nothing else may appear
sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "inputs"))
from _fuzz_cases_locks import SLASHED as _FUZZ_SLASHED  # noqa: E402  (a case file, not a package)

SLASHED = {name.replace("--", " --", 1): [a.replace("@tmp/", "") for a in argv] for name, argv in _FUZZ_SLASHED.items()}


def _one_line_exit2(result, fragment: str) -> str:
    assert result.exit_code == 2, (result.exit_code, result.output, result.exception)
    lines = result.stderr.splitlines()
    assert len(lines) == 1 and lines[0].startswith("gnoming-sim: error: "), result.stderr
    assert fragment in lines[0], lines[0]
    return lines[0]


@pytest.fixture
def here(cli_run, tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    (tmp_path / "ro").mkdir()
    cli_run([*SIM, "--out", "ro/b.parquet"])
    return tmp_path


@pytest.fixture
def read_only_probe(monkeypatch, here):
    """The probe meets ro/ as a read-only mount would (EROFS): the command must ask the folder itself,
    before any work (the engine is never reached: the probe is the first thing that fails)."""
    real = tempfile.TemporaryFile
    ro = (here / "ro").resolve()

    def probe(*args, dir=None, **kwargs):
        if dir is not None and Path(dir).resolve() == ro:
            raise OSError(errno.EROFS, os.strerror(errno.EROFS))
        return real(*args, dir=dir, **kwargs)

    fake = type(sys)("tempfile")
    fake.TemporaryFile = probe
    monkeypatch.setattr(output, "tempfile", fake)
    return here


def _no_engine(request, case: str) -> None:
    """The engine replaced by one that fails (tests/cli/conftest.py), where the command imports no more of
    it than ``simulate``; for the others the one line on stderr shows that no study or game ran."""
    if case.split()[0] not in ("ladder", "report"):
        request.getfixturevalue("no_engine")


@pytest.mark.parametrize("case", list(INTO_RO))
def test_a_folder_that_cannot_be_written_is_one_line_before_any_work(cli_run, read_only_probe, request, case):
    _no_engine(request, case)
    before = sorted(os.listdir(read_only_probe)), sorted(os.listdir(read_only_probe / "ro"))
    _one_line_exit2(cli_run(INTO_RO[case], code=2), "cannot write in ro (Read-only file system)")
    assert (sorted(os.listdir(read_only_probe)), sorted(os.listdir(read_only_probe / "ro"))) == before


@pytest.mark.parametrize("case", list(SLASHED))
def test_a_file_output_named_like_a_folder_is_refused(cli_run, here, request, case):
    _no_engine(request, case)
    before = sorted(os.listdir(here))
    _one_line_exit2(cli_run(SLASHED[case], code=2), "a name ending in / names a folder")
    assert sorted(os.listdir(here)) == before


@pytest.mark.slow
def test_a_folder_output_may_end_in_a_slash_and_its_missing_parents_are_made(cli_run, here):
    result = cli_run(["report", "--from", "ro/b.parquet", "--out", "new/sub/r/"])
    assert (here / "new" / "sub" / "r" / "index.html").is_file()
    assert sorted(os.listdir(here / "new" / "sub")) == ["r"]   # no lock or staging folder left


# ------------------------------------------------------------------ the real thing, in a child process
_RUN_ALL = textwrap.dedent("""
    import json, os, sys
    from click.testing import CliRunner
    from gnoming_sim.cli.app import cli
    cases = json.loads(sys.argv[1])
    out = {}
    for name, args in cases.items():
        before = [sorted(os.listdir(".")), sorted(os.listdir("ro"))]
        r = CliRunner().invoke(cli, args)
        out[name] = [r.exit_code, r.stderr, [sorted(os.listdir(".")), sorted(os.listdir("ro"))], before]
    print(json.dumps(out))
""")


def _check_all(proc: subprocess.CompletedProcess, fragment: str) -> None:
    assert proc.returncode == 0, proc.stderr[-3000:]
    results = json.loads(proc.stdout.splitlines()[-1])
    bad = {name: r for name, r in results.items()
           if not (r[0] == 2 and len(r[1].splitlines()) == 1 and fragment in r[1] and r[2] == r[3])}
    assert not bad, json.dumps(bad, indent=1)
    assert set(results) == set(INTO_RO)


def _workdir(cli_run, owner: int | None = None) -> Path:
    """A folder with ro/b.parquet, outside pytest's private tmp (another user must reach it)."""
    work = Path(tempfile.mkdtemp(prefix="gnoming-ro-"))
    os.chmod(work, 0o755)
    (work / "ro").mkdir()
    made = cli_run([*SIM, "--out", str(work / "ro" / "b.parquet")])
    (work / "run_all.py").write_text(_RUN_ALL)
    (work / "run_all.py").chmod(0o644)
    if owner is not None:
        (work / "home").mkdir()
        for path in (work, work / "ro", work / "ro" / "b.parquet", work / "run_all.py", work / "home"):
            os.chown(path, owner, owner)
    return work


def _env(work: Path, home: bool = False) -> dict:
    """The user's environment; with ``home``, a home of its own (in work/home: the user's caches go there)."""
    if not home:
        return dict(os.environ)
    return dict(os.environ, HOME=str(work / "home"), XDG_DATA_HOME=str(work / "home"),
                XDG_CACHE_HOME=str(work / "home"), NUMBA_CACHE_DIR=str(work / "home" / "numba"))


@pytest.mark.slow
@pytest.mark.skipif(not shutil.which("unshare"), reason="needs unshare(1) for a private read-only mount")
def test_a_read_only_mount_is_refused_in_one_line_by_every_command(cli_run):
    work = _workdir(cli_run)
    try:
        probe = subprocess.run(["unshare", "-rm", "true"], capture_output=True)
        if probe.returncode != 0:
            pytest.skip("user namespaces are not available here")
        script = ('mount --bind ro ro && mount -o remount,bind,ro ro && exec "$0" run_all.py "$1"')
        proc = subprocess.run(["unshare", "-rm", "sh", "-c", script, sys.executable, json.dumps(INTO_RO)], cwd=work,
                              capture_output=True, text=True, timeout=300, env=_env(work))
        _check_all(proc, "cannot write in ro (Read-only file system)")
    finally:
        shutil.rmtree(work, ignore_errors=True)


@pytest.mark.slow
@pytest.mark.skipif(os.geteuid() != 0 or not shutil.which("setpriv"), reason="needs root and setpriv(1) to become "
                    "another user")
def test_a_folder_without_write_permission_is_refused_in_one_line_by_every_command(cli_run):
    nobody = 65534
    work = _workdir(cli_run, owner=nobody)
    try:
        os.chmod(work / "ro", 0o555)
        proc = subprocess.run(["setpriv", f"--reuid={nobody}", f"--regid={nobody}", "--clear-groups",
                               sys.executable, "run_all.py", json.dumps(INTO_RO)], cwd=work, capture_output=True,
                              text=True, timeout=300, env=_env(work, home=True))
        _check_all(proc, "cannot write in ro (Permission denied)")
    finally:
        shutil.rmtree(work, ignore_errors=True)
