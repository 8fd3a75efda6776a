"""The package's shape: stages import only from earlier stages (game -> kernel -> reference -> batch ->
search -> drills -> tune -> experiments -> analyses -> cli, the referee importing only game; the order of ``ALLOWED``,
of docs/architecture.md's table and of the package docstring), and no module imports itself back through a
cycle (imports inside functions count too: they must not dodge a cycle).  Also the boundaries inside: no
function over 12 positional arguments, no private-name imports in kernel/search."""
from __future__ import annotations

import ast
import functools
from pathlib import Path

import pytest

import gnoming_sim

from _sources import tree as _tree   # parsed once for every scan of the tree, only when one runs

PACKAGE = Path(gnoming_sim.__file__).parent
ANALYSES = Path(__file__).resolve().parents[1] / "analyses"   # installed as gnoming_sim.analyses

# stage -> the stages it may import from (besides itself); "stats" (gnoming_sim/stats.py, the one
# statistics module on statsmodels and scipy) imports no stage and every stage may import it
ALLOWED = {
    "stats": set(),
    "game": set(),
    "kernel": {"game"},
    "reference": {"game"},              # the referee shares no rule code with the kernel
    "batch": {"game", "kernel"},        # many games: runner, files, tallies, statistics
    "search": {"game", "kernel"},       # rollouts, the MC bot, the evaluator, analyse, review
    "drills": {"game", "batch", "search"},  # the drill deck: batch's crash-safe writer, search's position ID
    "tune": {"game", "kernel", "batch", "search"},  # the learned player's targets are rollouts (search.sampler)
    "experiments": {"game", "kernel", "batch", "search"},
    "analyses": {"game", "kernel", "search", "batch", "experiments"},
    "cli": {"game", "kernel", "search", "reference", "batch", "drills", "tune", "experiments", "analyses"},
}
for _stage_name, _allowed in ALLOWED.items():
    if _stage_name != "stats":
        _allowed.add("stats")
# module -> the one later-stage module it may still import, until it moves (none pending)
PENDING_MOVES: dict[str, set[str]] = {}

# directions inside a stage: module -> the modules of its own stage it must not import (the
# lower layers of a stage stay free of the upper ones)
WITHIN = {
    "gnoming_sim.batch.game_sums": "gnoming_sim.batch.",       # the tally: statistics only
    "gnoming_sim.batch.summary": "gnoming_sim.batch.runner",   # the summary knows nothing of running
    "gnoming_sim.tune.space": "gnoming_sim.tune.",             # the search space: no run, no files
    "gnoming_sim.tune.state": "gnoming_sim.tune.tuner",        # the state file knows nothing of the run
    "gnoming_sim.game.cards": "gnoming_sim.game.",             # card codes under everything
}
WITHIN_ALLOWED = {"gnoming_sim.batch.game_sums": set(), "gnoming_sim.tune.space": set(), "gnoming_sim.game.cards": {"gnoming_sim.game.rules"}}


def _modules() -> dict[str, Path]:
    found = {}
    for root, prefix in ((PACKAGE, "gnoming_sim"), (ANALYSES, "gnoming_sim.analyses")):
        for path in sorted(root.rglob("*.py")):
            rel = path.relative_to(root).with_suffix("")
            parts = [p for p in rel.parts if p != "__init__"]
            name = ".".join([prefix, *parts])
            if root == PACKAGE and parts and parts[0] == "analyses":
                continue
            found[name] = path
    return found


MODULES = _modules()


def _resolve(module: str, is_package: bool, node: ast.AST) -> list[str]:
    """The project modules an import statement names (a submodule where it names one)."""
    if isinstance(node, ast.Import):
        return [a.name for a in node.names if a.name.startswith("gnoming_sim")]
    assert isinstance(node, ast.ImportFrom)
    if node.level:
        base = module.split(".")
        base = base if is_package else base[:-1]
        base = base[:len(base) - (node.level - 1)]
        target = ".".join(base + ([node.module] if node.module else []))
    else:
        target = node.module or ""
    if not target.startswith("gnoming_sim"):
        return []
    names = []
    for alias in node.names:
        sub = f"{target}.{alias.name}"
        names.append(sub if sub in MODULES else target)
    return names


@functools.cache
def _imports() -> dict[str, set[str]]:
    graph = {}
    for name, path in MODULES.items():
        tree = _tree(path)
        targets = set()
        for node in ast.walk(tree):
            if isinstance(node, (ast.Import, ast.ImportFrom)):
                targets.update(_resolve(name, path.name == "__init__.py", node))
        graph[name] = {t for t in targets if t != name}
    return graph


def _stage(module: str) -> str | None:
    parts = module.split(".")
    return parts[1] if len(parts) > 1 and parts[1] in ALLOWED else None


def test_every_module_belongs_to_a_stage():
    loose = [m for m in MODULES if _stage(m) is None and m not in ("gnoming_sim", "gnoming_sim.__main__")]
    assert not loose, f"modules outside the stage folders: {loose}"


def test_no_stage_imports_a_later_one_or_the_facade():
    bad = []
    for module, targets in _imports().items():
        stage = _stage(module)
        if stage is None:
            continue  # the facade (gnoming_sim/__init__.py) may import every stage
        for target in targets:
            other = _stage(target)
            if other is None:
                bad.append(f"{module} imports the package root ({target})")
            elif other != stage and other not in ALLOWED[stage] and target not in PENDING_MOVES.get(module, ()):
                bad.append(f"{module} ({stage}) imports {target} ({other})")
    assert not bad, "\n".join(bad)


def test_directions_inside_a_stage():
    bad = []
    for module, banned in WITHIN.items():
        for target in _imports()[module]:
            if target.startswith(banned) and target not in WITHIN_ALLOWED.get(module, set()):
                bad.append(f"{module} imports {target}")
    assert not bad, "\n".join(bad)


def test_pending_moves_are_still_pending():
    """Guards the exception list: a module that moved (or stopped importing upward) leaves it."""
    for module, targets in PENDING_MOVES.items():
        assert module in _imports() and targets <= _imports()[module], f"drop {module} from PENDING_MOVES"


def test_no_import_cycles():
    state: dict[str, int] = {}
    cycles = []

    def visit(m, path):
        state[m] = 1
        for t in sorted(_imports().get(m, ())):
            if t not in _imports():
                continue
            if state.get(t) == 1:
                cycles.append(" -> ".join(path[path.index(t):] + [t]))
            elif t not in state:
                visit(t, path + [t])
        state[m] = 2

    for m in sorted(_imports()):
        if m not in state:
            visit(m, [m])
    assert not cycles, "import cycles:\n" + "\n".join(cycles)


def _private_imports() -> list[str]:
    """``from M import _name`` where M is another project module: a private helper shared across modules."""
    found = []
    for name, path in MODULES.items():
        if name.startswith("gnoming_sim.kernel"):
            continue   # the kernel's own split (the action-level step rework) is its own
        for node in ast.walk(_tree(path)):
            if isinstance(node, ast.ImportFrom):
                for target, alias in zip(_resolve(name, path.name == "__init__.py", node), node.names):
                    if alias.name.startswith("_") and not alias.name.startswith("__") and target != name:
                        found.append(f"{name} imports {alias.name} from {target}")
    return found


def test_no_module_imports_another_modules_private_name():
    """A helper two modules share is public: no ``from M import _helper``."""
    assert not _private_imports(), "\n".join(_private_imports())


@pytest.mark.parametrize("name", ["simulate", "score_layout", "RuleConfig", "Deck", "PUBLISHED",
                                  "GnomingError", "strategies", "__version__"])
def test_public_api_is_importable_from_the_top(name):
    assert getattr(gnoming_sim, name) is not None


def test_the_walk_sees_the_whole_tree():
    """Guards the test itself: it must find modules of every stage and real edges."""
    assert {_stage(m) for m in MODULES} >= set(ALLOWED)
    assert "gnoming_sim.kernel.table" in _imports()["gnoming_sim.kernel.turn"]
    assert "gnoming_sim.kernel.step" in _imports()["gnoming_sim.search.rollout"]
    assert "gnoming_sim.game.rules" in _imports()["gnoming_sim.kernel.state"]


MAX_POSITIONAL = 12


def _is_click_command(fn: ast.FunctionDef) -> bool:
    """A click command callback (its parameters are the command's options, named, never positional)."""
    return any("command" in ast.unparse(d) or "click." in ast.unparse(d) for d in fn.decorator_list)


def test_no_function_takes_more_than_twelve_positional_arguments():
    long = []
    for name, path in MODULES.items():
        for node in ast.walk(_tree(path)):
            if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef)) and not _is_click_command(node):
                n = len(node.args.posonlyargs) + len(node.args.args)
                if n > MAX_POSITIONAL:
                    long.append(f"{name}.{node.name}: {n} positional arguments (pass a record)")
    assert not long, "\n".join(long)


def test_kernel_and_search_import_no_private_name_of_another_module():
    """Helpers shared between kernel/search modules are public (no ``from x import _y``)."""
    bad = []
    for name, path in MODULES.items():
        if _stage(name) not in ("kernel", "search"):
            continue
        for node in ast.walk(_tree(path)):
            if isinstance(node, ast.ImportFrom) and (node.module or "").startswith("gnoming_sim"):
                bad += [f"{name} imports {node.module}.{a.name}" for a in node.names
                        if a.name.startswith("_") and not a.name.startswith("__")]
    assert not bad, "\n".join(bad)


def test_no_kernel_is_a_numba_parfor():
    """Every kernel is serial and runs on a pool of Python threads (``game_loop.run_blocks``): no
    ``parallel=True`` and no ``prange``, so numba's OpenMP layer never starts and a process may fork (the
    storage kill tests fork the test worker) without leaving a child to hang in a parallel region."""
    found = []
    for name, path in MODULES.items():
        for node in ast.walk(_tree(path)):
            if (isinstance(node, ast.keyword) and node.arg == "parallel" and isinstance(node.value, ast.Constant)
                    and node.value.value is True):
                found.append(f"{name}:{node.value.lineno}: parallel=True")
            elif isinstance(node, (ast.alias, ast.Name, ast.Attribute)) and "prange" in (
                    getattr(node, "name", None), getattr(node, "id", None), getattr(node, "attr", None)):
                found.append(f"{name}:{getattr(node, 'lineno', '?')}: prange")
    assert not found, "\n".join(found)


def test_every_data_file_a_preset_reads_is_package_data():
    """A wheel holds only the listed package data: the net player's weights were missing, so `net` (the default
    base policy of analyse and review) could not load outside an editable install."""
    import tomllib

    root = Path(__file__).resolve().parents[1]
    listed = tomllib.loads((root / "pyproject.toml").read_text())["tool"]["setuptools"]["package-data"]
    on_disk = {p.name for p in (root / "gnoming_sim" / "kernel" / "policy").glob("*.json")}
    assert on_disk and on_disk <= set(listed["gnoming_sim.kernel.policy"])
