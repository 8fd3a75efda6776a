"""Shared pieces of the storage tests: the CLI runner, the one-line-error check, and the
fault seam (:class:`Faults`) that makes the N-th disk call of the writer fail or kill.
(A module of its own, not conftest: ``conftest`` names another folder's module too.)"""
from __future__ import annotations

import errno
import os

import pyarrow.parquet as pq
from click.testing import CliRunner

from gnoming_sim.batch import safe_write
from gnoming_sim.cli.app import cli

SIM = ["simulate", "--players", "3", "--games", "300", "--chunk-size", "100", "--seed", "1", "--threads", "1"]


def sim(games: int = 300) -> list[str]:
    """:data:`SIM` with another number of games."""
    return [*SIM[:4], str(games), *SIM[5:]]


def run_cli(*args):
    return CliRunner().invoke(cli, [os.fspath(a) if isinstance(a, os.PathLike) else str(a) for a in args])


def assert_one_line_exit2(result, fragment: str = "", progress: bool = False) -> str:
    """The command ended with exit 2 and exactly one line on stderr, ``gnoming-sim: error: ...``
    (``progress``: after the study report's progress lines, which it prints as it goes)."""
    assert result.exit_code == 2, (result.exit_code, result.output, result.exception)
    lines = result.stderr.splitlines()
    if progress:
        assert not any("error" in x.lower() or "Traceback" in x for x in lines[:-1]), result.stderr
        lines = lines[-1:]
    assert len(lines) == 1 and lines[0].startswith("gnoming-sim: error: "), result.stderr
    assert fragment in lines[0], lines[0]
    return lines[0]


def rows(path):
    """The rows of a batch file as an Arrow table (metadata left out)."""
    return pq.read_table(path).replace_schema_metadata(None)


class Faults:
    """Counts the writer's disk calls (``safe_write.io``); the ``fail_at``-th one raises
    ``OSError(err)``, or with ``kill`` ends the process at once (``os._exit``: no cleanup runs,
    as after SIGKILL)."""

    NAMES = ("write", "fsync", "replace", "rename")

    def __init__(self, monkeypatch, fail_at: int | None = None, err: int = errno.ENOSPC, kill: bool = False):
        self.calls: list[str] = []
        self.fail_at, self.err, self.kill = fail_at, err, kill
        for name in self.NAMES:
            real = getattr(safe_write._IO, name)
            monkeypatch.setattr(safe_write.io, name, self._wrap(name, real))

    def _wrap(self, name, real):
        def call(*args):
            self.calls.append(name)
            if len(self.calls) == self.fail_at:
                if self.kill:
                    os._exit(137)
                raise OSError(self.err, os.strerror(self.err))
            return real(safe_write.io, *args)
        return call
