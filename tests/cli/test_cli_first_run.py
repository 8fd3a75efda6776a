"""The first run says that it compiles (issue 17 item 5): with a cold numba cache, `simulate` and
`play` print one notice on stderr before the first kernel call; with a warm one, nothing."""
from __future__ import annotations

import os
import subprocess
import sys

import pytest

from gnoming_sim.cli.options import COLD_CACHE_NOTICE

# the child stops at the first kernel call: what it printed before is what a user sees while it compiles
_STOP_AT_FIRST_KERNEL_CALL = """
import sys
import gnoming_sim.kernel.engine as engine

def simulate(**kwargs):
    print("FIRST KERNEL CALL", file=sys.stderr)
    raise SystemExit(0)

engine.simulate = simulate
from gnoming_sim.cli.app import main
main(sys.argv[1:])
"""


def _run(args, cache_dir):
    env = dict(os.environ, NUMBA_CACHE_DIR=str(cache_dir))
    return subprocess.run([sys.executable, "-c", _STOP_AT_FIRST_KERNEL_CALL, *args], capture_output=True,
                          text=True, timeout=120, env=env)


@pytest.mark.parametrize("args", [["simulate", "--games", "10"], ["play", "--players", "2"]])
def test_cold_cache_notice_comes_before_the_first_kernel_call(tmp_path, args):
    proc = _run(args, tmp_path)   # an empty cache folder
    assert proc.returncode == 0, proc.stderr
    assert proc.stderr.splitlines() == [f"gnoming-sim: {COLD_CACHE_NOTICE}", "FIRST KERNEL CALL"]


def test_no_notice_with_a_warm_cache():
    from gnoming_sim.kernel.engine import simulate
    from gnoming_sim.kernel.jit import cache_root

    simulate(players=2, games=1)   # compiled (and cached) by now
    base = os.path.dirname(cache_root())
    proc = _run(["play", "--players", "2"], base)
    assert proc.returncode == 0, proc.stderr
    assert proc.stderr.splitlines() == ["FIRST KERNEL CALL"]
