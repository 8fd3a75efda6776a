"""The first run says that it compiles: the notice is printed
when numba starts to compile any of the project's kernels, under every command, and never when
the kernels load from a warm cache."""
from __future__ import annotations

import os
import re
import subprocess
import sys

import click
import numba
from click.testing import CliRunner

from gnoming_sim.cli import compile_notice
from gnoming_sim.cli.compile_notice import COLD_CACHE_NOTICE
from gnoming_sim.cli.group import cli

NOTICE_LINE = f"gnoming-sim: {COLD_CACHE_NOTICE}"


def _fresh_kernel(module: str, name: str = "add_one"):
    """A jitted function numba has never compiled (no cache), that claims to live in ``module``."""
    def add_one(x):
        return x + 1

    add_one.__module__ = module
    add_one.__name__ = add_one.__qualname__ = name
    return numba.njit(add_one)


def test_the_notice_comes_once_at_the_first_compile_then_a_line_per_kernel_group():
    said = []
    compile_notice.install(said.append)
    assert said == []                       # arming alone says nothing
    _fresh_kernel("gnoming_sim.kernel.probe")(1)
    _fresh_kernel("gnoming_sim.search.probe")(2)
    assert said[0] == COLD_CACHE_NOTICE     # once, however many kernels compile
    assert len(said) == 3, said
    assert all(re.fullmatch(r"  compiled the kernel add_one in (\d+ s|under 1 s)", x) for x in said[1:]), said
    # each group as it is ready, with its seconds


def test_a_known_kernel_group_is_announced_with_its_measured_time():
    name, (label, seconds) = next(iter(compile_notice.GROUPS.items()))
    text = compile_notice.notice_text(name)
    assert text.startswith(COLD_CACHE_NOTICE) and label in text and f"about {seconds} s" in text
    assert compile_notice.group_label(name) == label
    assert compile_notice.notice_text("something_else") == COLD_CACHE_NOTICE


def test_a_kernel_outside_the_groups_is_named_in_words_and_a_short_compile_is_not_0_s():
    """`simulate ... --report DIR` printed `compiled  settle each in 0 s`: the report's win-credit
    kernel, a private name turned into words, and 0.3 s rounded down."""
    from gnoming_sim.kernel import win_credit

    said = []
    compile_notice.install(said.append)
    _fresh_kernel("gnoming_sim.kernel.probe", "_settle_each")(1)
    assert said[1] == "  compiled the win credit of games read from a file in under 1 s", said
    assert all(hasattr(win_credit, name) for name in compile_notice.OTHER_KERNELS)   # a kernel of that name
    assert compile_notice.group_label("_play_one") == "the kernel play_one"
    assert [compile_notice.seconds_text(t) for t in (0.0, 0.3, 0.6, 12.4)] == ["under 1 s", "under 1 s", "1 s", "12 s"]


def test_the_throughput_line_leaves_the_compile_out():
    from gnoming_sim.batch.summary import _time_line

    line = _time_line({"wall_s": 60.0, "compile_s": 50.0, "games_per_s": 100.0})
    assert line.startswith("time 60.00 s, of which compiling the kernels 50.0 s") and "(100 games/s)" in line
    assert _time_line({"wall_s": 2.0, "compile_s": 0.0, "games_per_s": 500.0}) == "time 2.00 s  (500 games/s)"


def test_the_compile_clock_counts_only_the_outermost_compiles_of_our_kernels():
    from gnoming_sim.batch.compile_clock import compile_clock

    with compile_clock() as clock:
        _fresh_kernel("somebody_else.kernels")(1)
    assert clock.seconds == 0.0
    with compile_clock() as clock:
        _fresh_kernel("gnoming_sim.kernel.clock_probe")(1)
    assert clock.seconds > 0.0


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
    first, then = result.stderr.splitlines()
    assert first == NOTICE_LINE, first
    assert re.fullmatch(r"gnoming-sim:   compiled the kernel add_one in (\d+ s|under 1 s)", then), then


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
