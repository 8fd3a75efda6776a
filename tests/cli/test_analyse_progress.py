"""`analyse` on a terminal: a bar of the rollouts with the running leader, as `simulate` shows its
games; nothing when stderr is not a terminal; and the chunks the bar needs give the very same rollouts."""
from __future__ import annotations

import io
import json
import numpy as np
from _examples import POSITION, position

from gnoming_sim.search import estimates



class Terminal(io.StringIO):
    def isatty(self):
        return True


def test_the_chunks_give_the_same_rollouts_and_tell_the_leader(monkeypatch):
    monkeypatch.setattr(estimates, "PROGRESS_FIRST", 7)
    monkeypatch.setattr(estimates, "PROGRESS_SECONDS", 1e-6)   # every chunk as small as the first: several chunks
    s = estimates.setup(position(), ["expert"])
    heard = []
    tally = estimates._Tally(lambda done, leader, planned: heard.append((done, leader, planned)), 30)
    out, cov = estimates.run_reported(s, 30, 5, 11, "game", False, 1, tally)
    whole, whole_cov = estimates.run_rollouts(s, 30, 5, 11, "game", True, False, 1)
    assert np.array_equal(out, whole) and np.array_equal(cov, whole_cov)
    assert [d for d, _, _ in heard] == [7, 14, 21, 28, 30]
    keys = {o.key for o in s.options}
    assert all(leader.startswith("leader ") and leader.split()[1] in keys and "% win)" in leader
               for _, leader, _ in heard)


def test_a_terminal_shows_the_bar_with_the_leader(cli_run, monkeypatch):
    screen = Terminal()
    monkeypatch.setattr("gnoming_sim.cli.group.stderr", lambda: screen)
    monkeypatch.setattr("gnoming_sim.cli.analyse.PROGRESS_DELAY", 0.0)
    monkeypatch.setattr(estimates, "PROGRESS_FIRST", 20)
    monkeypatch.setattr(estimates, "PROGRESS_SECONDS", 1e-6)
    result = cli_run(["analyse", "--position", POSITION, "--rollouts", "40", "--policy", "expert",
                      "--second-policy", "greedy", "--json"])
    shown = screen.getvalue()
    assert "rollouts" in shown and "80/80" in shown, shown          # both base policies' rollouts
    assert "expert: leader " in shown and "greedy: leader " in shown
    assert "leader" not in result.stdout and json.loads(result.stdout)["n"] == 40   # never on stdout


def test_no_bar_off_a_terminal(cli_run, monkeypatch):
    monkeypatch.setattr("gnoming_sim.cli.analyse.PROGRESS_DELAY", 0.0)
    called = []
    real = estimates.run_reported
    # a[7]: the tally
    monkeypatch.setattr(estimates, "run_reported", lambda *a: called.append(a[7].progress) or real(*a))
    result = cli_run(["analyse", "--position", POSITION, "--rollouts", "30", "--policy", "expert",
                      "--second-policy", "none"])
    assert "leader" not in result.output
    assert called == [None]   # no progress asked for: one call of the rollouts, no chunks


def test_a_quick_run_shows_no_bar(cli_run, monkeypatch):
    screen = Terminal()
    monkeypatch.setattr("gnoming_sim.cli.group.stderr", lambda: screen)
    monkeypatch.setattr("gnoming_sim.cli.analyse.PROGRESS_DELAY", 60.0)   # (2 s in use: a busy machine may take 2 s)
    monkeypatch.setattr(estimates, "PROGRESS_FIRST", 10)
    result = cli_run(["analyse", "--position", POSITION, "--rollouts", "30", "--policy", "expert",
                      "--second-policy", "none"])
    assert "rollouts" not in screen.getvalue()   # done before the delay: no bar
