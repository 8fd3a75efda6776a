"""With ``NUMBA_DISABLE_JIT=1`` the package imports and plays as plain Python — every kernel, the
Monte Carlo bot included — so a debugger can step through the rules (``make test-nojit`` runs the
game and kernel tests that way).  Checked here in a subprocess, beside the jitted run of the same games."""
from __future__ import annotations

import json
import os
import subprocess
import sys

import pytest

_SCRIPT = """
import json, warnings
import numba
assert numba.config.DISABLE_JIT
warnings.filterwarnings("ignore", "overflow encountered", RuntimeWarning)  # xoshiro wraps by design
import gnoming_sim
from gnoming_sim.kernel.engine import simulate
from gnoming_sim.experiments.mc_eval import mc_strategy

def play():
    res = {}
    for seats in (["random"], ["greedy", "builder", "expert"]):
        r = simulate(players=len(seats) if len(seats) > 1 else 4, strategies=seats, games=2, seed=3, trace=True)
        res[",".join(seats)] = [r.totals.tolist(), [len(x) for x in r.traces]]
    r = simulate(players=3, strategies=[mc_strategy(budget=1), "expert", "random"], games=1, seed=3, threads=1)
    res["mc"] = r.totals.tolist()
    return res

if __name__ == "__main__":
    print(json.dumps(play()))
"""


@pytest.mark.slow
def test_the_package_imports_and_plays_with_jit_disabled():
    env = dict(os.environ, NUMBA_DISABLE_JIT="1")
    done = subprocess.run([sys.executable, "-c", _SCRIPT], env=env, capture_output=True, text=True, timeout=900)
    assert done.returncode == 0, done.stderr[-3000:]
    got = json.loads(done.stdout.strip().splitlines()[-1])
    namespace = {}
    exec(_SCRIPT.replace("assert numba.config.DISABLE_JIT", ""), namespace)   # the same games, compiled
    assert got == json.loads(json.dumps(namespace["play"]())), "the interpreted rules played other games"
