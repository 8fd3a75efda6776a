"""One voice: every advice path takes its base player and its criterion from
``gnoming_sim.search.evaluator`` (BASE, HORIZON) and none names its own.

Two checks: the sources of the advice paths hold no player's name or horizon as a default (a parameter's, a
command option's, a request's, a setting's), so that a second voice cannot be spelt in passing; and the
defaults they run with, read by introspection, are the oracle's."""
from __future__ import annotations

import ast
import inspect
from pathlib import Path

import pytest

from gnoming_sim.kernel.policy import registry
from gnoming_sim.search import evaluator as oracle   # the oracle's constants

ROOT = Path(__file__).resolve().parents[2]
ADVICE = sorted({*(ROOT / "gnoming_sim" / "search" / f"{m}.py" for m in ("estimates", "review", "why", "card")),
                 ROOT / "gnoming_sim" / "drills" / "deck.py",
                 *(ROOT / "gnoming_sim" / "cli" / f"{m}.py" for m in ("analyse", "review", "drill")),
                 *(ROOT / "gnoming_sim" / "cli" / "board").glob("*.py"),
                 ROOT / "analyses" / "framework" / "design.py"})
PLAYERS = set(registry.names())
HORIZONS = {"round", "game"}
# names whose value is a base player or a criterion; the second base policy of analyse's sensitivity check (off
# unless asked, not advice) is the one name allowed a player of its own
SETTINGS = {"policy", "policies", "horizon", "strong", "second_policy", "second_policies"}
ALLOWED = {"SECOND_POLICY"}
OPTIONS = {"--policy", "--horizon", "--second-policy"}


def _setting(name: str) -> bool:
    name = name.lower()
    return name.removeprefix("default_") in SETTINGS and name.upper() not in ALLOWED


def _spelt(node) -> list[str]:
    """The player names and horizons written as string literals anywhere in ``node`` (a dict's keys aside:
    ``{"round": ...}`` names a field)."""
    keys = {id(k) for d in ast.walk(node) if isinstance(d, ast.Dict) for k in d.keys if k is not None}
    return [n.value for n in ast.walk(node)
            if isinstance(n, ast.Constant) and n.value in PLAYERS | HORIZONS and id(n) not in keys]


def own_defaults(path: Path, root: Path = ROOT) -> list[str]:
    """Every place in ``path`` that gives a base player or a horizon as a literal default, in line order."""
    tree = ast.parse(path.read_text(encoding="utf-8"))
    found = []

    def flag(node, what: str, value) -> None:
        for word in _spelt(value):
            found.append(((node.lineno, node.col_offset), f"{path.relative_to(root)}:{node.lineno}: {what} = {word!r}"))

    for node in ast.walk(tree):
        if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef, ast.Lambda)):
            a = node.args
            positional = a.posonlyargs + a.args
            pairs = [*zip(positional[len(positional) - len(a.defaults):], a.defaults),
                     *zip(a.kwonlyargs, a.kw_defaults)]
            for arg, default in pairs:
                if default is not None and _setting(arg.arg):
                    flag(default, f"parameter {arg.arg}", default)
        elif isinstance(node, (ast.Assign, ast.AnnAssign)):
            targets = node.targets if isinstance(node, ast.Assign) else [node.target]
            for t in targets:
                name = t.id if isinstance(t, ast.Name) else t.attr if isinstance(t, ast.Attribute) else None
                if name and _setting(name) and node.value is not None:
                    flag(node, name, node.value)
        elif isinstance(node, ast.Call):
            named = {a.value for a in node.args if isinstance(a, ast.Constant) and isinstance(a.value, str)}
            if named & OPTIONS:   # click.option("--policy", default=...)
                for kw in node.keywords:
                    if kw.arg == "default":
                        flag(node, f"option {'/'.join(sorted(named & OPTIONS))} default", kw.value)
            if (isinstance(node.func, ast.Attribute) and node.func.attr == "get" and len(node.args) == 2
                    and isinstance(node.args[0], ast.Constant) and _setting(str(node.args[0].value))):
                flag(node, f"request's {node.args[0].value!r} default", node.args[1])   # body.get("horizon", ...)
        elif isinstance(node, ast.Dict):
            for k, v in zip(node.keys, node.values):
                if isinstance(k, ast.Constant) and isinstance(k.value, str) and _setting(k.value):
                    flag(v, f"key {k.value!r}", v)
    return [text for _, text in sorted(found)]


def test_the_advice_paths_are_the_ones_scanned():
    names = {p.relative_to(ROOT).as_posix() for p in ADVICE}
    assert {"gnoming_sim/search/estimates.py", "gnoming_sim/search/review.py", "gnoming_sim/cli/board/live.py",
            "gnoming_sim/cli/board/server.py", "gnoming_sim/cli/board/command.py",
            "analyses/framework/design.py"} <= names
    assert all(p.exists() for p in ADVICE)


@pytest.mark.parametrize("path", ADVICE, ids=lambda p: p.relative_to(ROOT).as_posix())
def test_no_advice_path_names_its_own_base_player_or_criterion(path):
    assert own_defaults(path) == []


def test_the_scan_sees_a_player_or_horizon_spelt_as_a_default(tmp_path):
    """The scan is not blind: each kind of default it reads is caught when spelt."""
    src = tmp_path / "x.py"
    src.write_text('DEFAULT_POLICY = "net"\n'
                   'def f(pos, policies=("expert",), horizon="round"): pass\n'
                   '@click.option("--horizon", default="game")\n'
                   'def g(): return body.get("horizon", "round"), {"policies": ["net"]}\n'
                   'SECOND_POLICY = "expert"\nHORIZONS = ("round", "game")\n', encoding="utf-8")
    found = own_defaults(src, tmp_path)
    assert [f.split(": ", 1)[1] for f in found] == [
        "DEFAULT_POLICY = 'net'", "parameter policies = 'expert'", "parameter horizon = 'round'",
        "option --horizon default = 'game'", "request's 'horizon' default = 'round'", "key 'policies' = 'net'"]


def _default(fn, name):
    return inspect.signature(fn).parameters[name].default


def _option(command, name):
    return next(p for p in command.params if p.name == name).default


def test_analyse_reads_the_oracle():
    from gnoming_sim.cli import analyse as cli_analyse
    from gnoming_sim.search import estimates as search

    assert _default(search.estimate, "policies") == oracle.BASE
    assert _default(search.estimate, "horizon") == oracle.HORIZON
    assert _default(search.estimate, "second_policies") is None   # the sensitivity check: asked for, never unasked
    assert _default(search.run_rollouts, "horizon") == _default(search.summarize, "horizon") == oracle.HORIZON
    command = cli_analyse.analyse
    assert (_option(command, "policy"), _option(command, "horizon")) == (oracle.BASE, oracle.HORIZON)
    assert _option(command, "second_policy") == cli_analyse.NO_SECOND


def test_review_and_why_read_the_oracle():
    from gnoming_sim.cli import review as cli_review
    from gnoming_sim.search import review, why

    assert _default(review.grade, "policies") == _default(review.review, "policies") == oracle.BASE
    assert review.HORIZON == oracle.HORIZON
    assert _option(cli_review.review, "policy") == oracle.BASE
    assert (_default(why.explain, "policies"), _default(why.explain, "horizon")) == (oracle.BASE, oracle.HORIZON)


def test_the_board_reads_the_oracle():
    pytest.importorskip("starlette")
    from gnoming_sim.cli.board import command, live, server, inputs
    from gnoming_sim.game.deck import PUBLISHED
    from gnoming_sim.game.rules import RuleConfig

    assert _option(command.board, "policy") == oracle.BASE
    assert list(_default(live.Live, "policies")) == [oracle.BASE] and _default(live.Live, "horizon") == oracle.HORIZON
    board = server.Board(inputs.Opened(), RuleConfig(), PUBLISHED)
    try:
        assert board.policies == [oracle.BASE]
    finally:
        board.worker.shutdown(wait=False)


def test_the_studies_strong_player_is_the_oracles():
    from gnoming_sim.analyses.framework.design import STRONG

    assert STRONG == oracle.BASE
