"""``make setup`` compiles the common kernel groups ahead (``python -m gnoming_sim.cli.warmup``): each group's
code runs as written, in a process of its own, and says how long it took."""
from __future__ import annotations

import re
import subprocess
import sys
import pytest


from gnoming_sim.cli import compile_notice, warmup


def test_each_group_is_named_and_the_heuristic_loop_is_the_notice_s_first_group():
    assert set(warmup.GROUPS) == {"monte-carlo", "every-family", "rollouts", "heuristic"}
    # one table of words and seconds: every group's entry kernel has its line in the compile notice's
    assert {function for _, function, _ in warmup.GROUPS.values()} == set(compile_notice.GROUPS)
    assert all(warmup.label(name) == compile_notice.GROUPS[warmup.GROUPS[name][1]][0] for name in warmup.GROUPS)


@pytest.mark.slow
def test_a_group_compiles_or_loads_in_its_own_process_and_reports_its_seconds():
    proc = subprocess.run([sys.executable, "-m", "gnoming_sim.cli.warmup", "heuristic"], capture_output=True,
                          text=True, timeout=600)
    assert proc.returncode == 0, proc.stderr
    lines = proc.stdout.splitlines()
    assert lines[0].startswith("gnoming-sim: compiling 1 kernel groups")
    assert re.fullmatch(r"  the game loop of the random and heuristic players: \d+ s \(\d+ s of CPU\)", lines[1])
    assert re.fullmatch(r"gnoming-sim: kernels ready in \d+ s", lines[2])


def test_a_group_whose_kernel_is_cached_is_not_compiled_ahead_again(monkeypatch):
    """``report`` compiles its cold groups side by side (warmup.ahead); a cached group is skipped."""
    from gnoming_sim.kernel.engine import simulate

    simulate(4, ["greedy", "random"] * 2, 2)          # the heuristic group's kernel, compiled or loaded and cached
    assert warmup.cold(["heuristic"]) == []
    ran = []
    monkeypatch.setattr(warmup, "run", lambda names, say=print: ran.append(list(names)))
    monkeypatch.setattr(warmup, "cold", lambda names: [n for n in names if n == "rollouts"])
    assert warmup.ahead(["heuristic", "rollouts"]) >= 0.0 and ran == [["rollouts"]]
    ran.clear()
    assert warmup.ahead(["heuristic"]) == 0.0 and ran == []


def test_a_group_that_shares_kernels_follows_its_lead_in_one_process():
    # compiled side by side, the rollouts group compiled the every-family game loop a second time
    assert warmup.chains(["monte-carlo", "every-family", "rollouts", "heuristic"]) == [
        ["monte-carlo"], ["every-family", "rollouts"], ["heuristic"]]
    assert warmup.chains(["rollouts", "heuristic"]) == [["rollouts"], ["heuristic"]]   # its lead is cached
    assert warmup.chains(["heuristic", "every-family", "rollouts"]) == [["heuristic"], ["every-family", "rollouts"]]
