"""The kernels on numba's public API alone: with every private numba hook off (``GNOMING_NUMBA_PUBLIC=1``,
gnoming_sim/kernel/jit.py) the heuristic players' golden games give their recorded fingerprints.

The heuristic cases share one kernel group, which compiles in about a minute without the hooks; the Monte
Carlo and analysis cases (their own groups, several minutes more) are left to tests/golden."""
import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

from gnoming_sim.kernel.disk_cache import source_stamp

ROOT = Path(__file__).resolve().parents[2]
GOLDEN = ROOT / "tests" / "golden"
CASES = ["random-4p", "greedy-4p", "builder-4p", "rusher-4p", "cautious-4p", "expert-4p", "expert-2p", "mixed-7p"]


@pytest.mark.slow
def test_golden_games_with_every_numba_hook_off(tmp_path):
    code = (f"import json, sys; sys.path.insert(0, {str(GOLDEN)!r}); import _golden\n"
            "from gnoming_sim.kernel import disk_cache, jit\n"
            "print(json.dumps([[jit.NRT, jit.WRAPPERS, jit.INLINER, disk_cache.CACHE],"
            f" {{n: _golden.simulate_case(n) for n in {CASES!r}}}]))")
    env = {k: v for k, v in os.environ.items() if k not in ("NUMBA_DISABLE_JIT", "GNOMING_NUMBA_SAID")}
    env.update(GNOMING_NUMBA_PUBLIC="1", NUMBA_CACHE_DIR=str(tmp_path))
    proc = subprocess.run([sys.executable, "-c", code], cwd=ROOT, env=env, capture_output=True, text=True,
                          timeout=1800)
    assert proc.returncode == 0, proc.stderr[-2000:]
    hooks, got = json.loads(proc.stdout.splitlines()[-1])
    assert hooks == [False] * 4
    want = json.loads((GOLDEN / "fingerprints.json").read_text())
    assert got == {name: want[name] for name in CASES}
    said = [line for line in proc.stderr.splitlines() if "numba hook" in line]
    assert [line.split("'")[1] for line in said] == ["cache", "nrt", "wrappers", "inliner"]   # each once
    assert all("(GNOMING_NUMBA_PUBLIC is set): " in line for line in said)
    assert any(tmp_path.rglob("*.nbi")) and not (tmp_path / source_stamp()).exists()   # numba's own cache
