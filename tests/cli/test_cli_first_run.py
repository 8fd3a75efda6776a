"""The first run says that it compiles (issue 17 item 5, issue 21 item 8): the notice is printed
when numba starts to compile any of the project's kernels, under every command, and never when
the kernels load from a warm cache."""
from __future__ import annotations

import os
import subprocess
import sys

import click
import numba
from click.testing import CliRunner

from gnoming_sim.cli import compile_notice
from gnoming_sim.cli.compile_notice import COLD_CACHE_NOTICE
from gnoming_sim.cli.group import cli

NOTICE_LINE = f"gnoming-sim: {COLD_CACHE_NOTICE}"


def _fresh_kernel(module: str):
    """A jitted function numba has never compiled (no cache), that claims to live in ``module``."""
    def add_one(x):
        return x + 1

    add_one.__module__ = module
    return numba.njit(add_one)


def test_the_notice_comes_once_at_the_first_compile_of_a_project_kernel():
    said = []
    compile_notice.install(said.append)
    assert said == []                       # arming alone says nothing
    _fresh_kernel("gnoming_sim.kernel.probe")(1)
    _fresh_kernel("gnoming_sim.search.probe")(2)
    assert said == [COLD_CACHE_NOTICE]      # once, however many kernels compile


def test_another_librarys_compile_gets_no_notice():
    said = []
    compile_notice.install(said.append)
    _fresh_kernel("somebody_else.kernels")(1)
    assert said == []


def test_every_command_is_covered_because_the_group_arms_the_notice():
    """A command that only compiles a kernel (what `analyse` did silently for 34 s) still gets
    the notice: the group, not each command, arms it."""
    @click.command("compile-probe")
    def probe():
        _fresh_kernel("gnoming_sim.kernel.rollout_probe")(3)
        click.echo("done")

    cli.add_command(probe)
    try:
        result = CliRunner().invoke(cli, ["compile-probe"])
    finally:
        cli.commands.pop("compile-probe")
    assert result.exit_code == 0, result.output
    assert result.stdout == "done\n"
    assert result.stderr.splitlines() == [NOTICE_LINE]


def test_no_notice_when_the_kernels_load_from_a_warm_cache():
    from gnoming_sim.kernel.engine import simulate
    from gnoming_sim.kernel.jit import cache_root

    simulate(players=2, games=1)   # compiled (and cached) by now
    env = dict(os.environ, NUMBA_CACHE_DIR=os.path.dirname(cache_root()))
    proc = subprocess.run([sys.executable, "-m", "gnoming_sim", "play", "--players", "2"], capture_output=True,
                          text=True, timeout=300, env=env)
    assert proc.returncode == 0, proc.stderr
    assert "Game over" in proc.stdout
    assert proc.stderr == ""
