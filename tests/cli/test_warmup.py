"""``make setup`` compiles the common kernel groups ahead (``python -m gnoming_sim.cli.warmup``): each group's
code runs as written, in a process of its own, and says how long it took."""
from __future__ import annotations

import re
import subprocess
import sys

from gnoming_sim.cli import compile_notice, warmup


def test_each_group_is_named_and_the_heuristic_loop_is_the_notice_s_first_group():
    assert set(warmup.GROUPS) == {"monte-carlo", "every-family", "rollouts", "heuristic"}
    assert all(label and code for label, code in warmup.GROUPS.values())
    assert "play_range_hr" in compile_notice.GROUPS and "play_range_base" in compile_notice.GROUPS


def test_a_group_compiles_or_loads_in_its_own_process_and_reports_its_seconds():
    proc = subprocess.run([sys.executable, "-m", "gnoming_sim.cli.warmup", "heuristic"], capture_output=True,
                          text=True, timeout=600)
    assert proc.returncode == 0, proc.stderr
    lines = proc.stdout.splitlines()
    assert lines[0].startswith("gnoming-sim: compiling 1 kernel groups")
    assert re.fullmatch(r"  the game loop of the random and heuristic players: \d+ s \(\d+ s of CPU\)", lines[1])
    assert re.fullmatch(r"gnoming-sim: kernels ready in \d+ s", lines[2])
