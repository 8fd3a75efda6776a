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
    # one table of words and seconds: every step's entry kernel (the groups' and the kernels they share) has
    # its line in the compile notice's
    assert {function for _, function, _ in warmup.STEPS.values()} == set(compile_notice.GROUPS)
    assert all(warmup.label(name) == compile_notice.GROUPS[warmup.STEPS[name][1]][0] for name in warmup.STEPS)
    assert set(warmup.ORDER) == set(warmup.STEPS)
    assert all(set(needs) <= set(warmup.STEPS) for needs in warmup.NEEDS.values())


def test_the_shared_kernels_come_first_and_a_cached_step_is_left_out():
    every = lambda names: list(names)   # noqa: E731 -- nothing cached
    assert warmup.plan(["heuristic"], every) == ["heuristic"]
    assert warmup.plan(["rollouts"], every) == ["decide", "roll-on", "play-out", "step", "rollouts"]
    assert warmup.plan(["monte-carlo", "every-family"], every) == [
        "decide", "roll-on", "monte-carlo", "play-out", "step", "every-family"]
    # the every-family decisions are cached (by an earlier command): the rest loads them
    assert warmup.plan(["every-family", "rollouts"], lambda names: [n for n in names if n != "decide"]) == [
        "roll-on", "play-out", "step", "rollouts", "every-family"]
    assert warmup.plan(["heuristic", "rollouts"], lambda names: []) == []


def test_the_shared_kernels_are_compiled_for_the_types_their_callers_pass():
    """A shared step compiled for other types than its callers pass would be compiled again by every group,
    for their types: its numba cache index would hold two signatures.  (After ``make setup``, or once the
    groups below are compiled: they are, or are loaded, here.)"""
    from importlib import import_module

    from gnoming_sim.kernel.engine import simulate

    simulate(4, ["learned", "card-starred"] * 2, 2)   # the every-family game loop (play-out, decisions)
    warmup._rollouts()                         # the rollouts (a rollout's round, steps)
    for name, (module, function, _) in warmup.SHARED.items():
        kernel = getattr(import_module(module), function)
        warmup._shared(name)   # compiled, or loaded from the cache
        held = [key[0] for key in kernel._cache._cache_file._load_index()]   # private (numba 0.68.x, pinned)
        assert warmup.signature(name) in held, name
        # step_once is also called from Python (tests step tables by hand), where other types may reach it
        assert name == "step" or len(held) == 1, (name, held)


def test_the_announcement_counts_the_step_lines_that_follow_it():
    """`make setup` said "compiling 4 kernel groups" and printed 8 step lines."""
    every = lambda names: list(names)   # noqa: E731 -- nothing cached
    steps = warmup.plan(list(warmup.GROUPS), every)
    assert len(steps) == 8
    assert warmup.announcement(steps, 2) == (
        "gnoming-sim: compiling 8 kernel steps on 2 cores (4 kernel groups and 4 kernels they share, a line each; "
        "once per install, cached for every later command)")
    for names in (["heuristic"], ["rollouts"], ["monte-carlo", "every-family"]):
        steps = warmup.plan(names, every)
        said = warmup.announcement(steps, 1)
        counted = re.search(r"compiling (\d+) kernel steps? on 1 core \((.*), a line each", said)
        assert int(counted[1]) == len(steps), said
        parts = [int(n) for n in re.findall(r"(\d+) kernel", counted[2])]
        assert sum(parts) == len(steps), said
    assert "1 kernel the groups share" in warmup.announcement(["decide"], 1)


@pytest.mark.slow
def test_each_step_compiles_or_loads_in_a_worker_after_what_it_needs_and_reports_its_seconds(monkeypatch):
    monkeypatch.setattr(warmup, "cold", lambda names: list(names))   # every step runs (a warm cache loads: seconds)
    lines = []
    warmup.run(["every-family"], lines.append)
    assert re.fullmatch(r"gnoming-sim: compiling 3 kernel steps on \d+ cores? \(1 kernel group and 2 kernels it shares, "
                        r"a line each; once per install, cached for every later command\)", lines[0]), lines[0]
    # each step needs the one before it: they end in this order
    assert [line.split(":")[0].strip() for line in lines[1:-1]] == [
        warmup.label("decide"), warmup.label("play-out"), warmup.label("every-family")]
    assert all(re.fullmatch(r"  [^:]+: \d+ s \(\d+ s of CPU\)", line) for line in lines[1:-1])
    assert re.fullmatch(r"gnoming-sim: kernels ready in \d+ s", lines[-1])


def test_cached_groups_are_neither_compiled_nor_announced(monkeypatch):
    from gnoming_sim.kernel.engine import simulate

    simulate(4, ["greedy", "random"] * 2, 2)          # the heuristic group's kernel, compiled or loaded and cached
    assert warmup.cold(["heuristic"]) == []
    said = []
    compiling = warmup.start(["heuristic"], said.append)
    assert compiling.steps == [] and compiling.ready(["heuristic", "monte-carlo"]) and said == []
    compiling.close()
    lines = []
    warmup.run(["heuristic"], lines.append)
    assert lines == ["gnoming-sim: the kernel group is compiled and cached"]


def test_a_group_is_ready_when_compiled_or_not_compiling_here_and_every_group_is_after_a_failure():
    compiling = warmup.Compiling([], print)
    compiling.steps = ["decide", "heuristic", "play-out", "every-family"]
    assert compiling.ready(["monte-carlo"]) and not compiling.ready(["heuristic"])
    compiling.done |= {"heuristic"}
    assert compiling.wait_any([["every-family"], ["heuristic", "monte-carlo"], ["heuristic"]]) == 1
    compiling.error = RuntimeError("a worker died")   # the command compiles what it uses itself
    assert compiling.ready(["every-family"])


def test_a_report_runs_each_study_once_its_groups_are_ready_in_the_report_s_order_among_those():
    from gnoming_sim.analyses.report import _as_compiled

    class Fake:
        def __init__(self, needs):
            self.needs = needs

        def kernels(self, ctx):
            return self.needs

    studies = [Fake(("heuristic", "monte-carlo")), Fake(("heuristic",)), Fake(("heuristic", "rollouts")),
               Fake(("heuristic",))]
    compiling = warmup.Compiling([], print)
    compiling.steps = ["heuristic", "rollouts", "monte-carlo"]
    compiling.done = {"heuristic"}
    order = _as_compiled(studies, None, compiling)
    assert [next(order), next(order)] == [1, 3]
    compiling.done |= {"rollouts"}
    assert next(order) == 2
    compiling.done |= {"monte-carlo"}
    assert list(order) == [0]
    assert list(_as_compiled(studies, None, None)) == [0, 1, 2, 3]   # nothing compiling: the report's order
