"""The analyses package's shape: the framework never imports a study, a study never imports
another study or the report, and no module of the package takes part in an import cycle."""
from __future__ import annotations

import ast
from pathlib import Path

import gnoming_sim.analyses as analyses
from gnoming_sim.analyses.report import STUDIES

from _sources import tree

ROOT = Path(analyses.__file__).parent
PKG = "gnoming_sim.analyses"
STUDY_PACKAGES = ("tournament", "early_finish", "finish_play_on", "mulligan_value", "hazard_risk", "house_rules", "ladder", "card", "batch_report", "agreement", "rules", "value_calibration")


def _module_name(path: Path) -> str:
    parts = path.relative_to(ROOT).with_suffix("").parts
    if parts[-1] == "__init__":
        parts = parts[:-1]
    return ".".join((PKG, *parts))


def _imports() -> dict[str, set[str]]:
    """Module -> the package modules it imports (relative imports resolved), anywhere in its body.

    ``from . import figures`` is an edge to the module ``figures``; ``from . import STUDIES``
    one to the package whose ``__init__`` defines it.
    """
    modules = {_module_name(path) for path in ROOT.rglob("*.py")}
    out = {}
    for path in ROOT.rglob("*.py"):
        name = _module_name(path)
        is_pkg = path.name == "__init__.py"
        base = name.split(".") if is_pkg else name.split(".")[:-1]
        found = set()
        for node in ast.walk(tree(path)):
            if isinstance(node, ast.ImportFrom):
                if node.level:
                    anchor = base[:len(base) - (node.level - 1)]
                    target = ".".join(anchor + ([node.module] if node.module else []))
                else:
                    target = node.module or ""
                for a in node.names:
                    found.add(f"{target}.{a.name}" if f"{target}.{a.name}" in modules else target)
            elif isinstance(node, ast.Import):
                found.update(a.name for a in node.names)
        out[name] = found
    return {m: {t for t in targets if t in modules and t != m} for m, targets in out.items()}


def _area(module: str) -> str:
    rest = module[len(PKG) + 1:] if module != PKG else ""
    return rest.split(".")[0] if rest else "__init__"


def test_the_framework_imports_no_study_and_no_report():
    for module, targets in _imports().items():
        if _area(module) == "framework":
            bad = {t for t in targets if _area(t) != "framework"}
            assert not bad, f"{module} imports {bad}"


def test_a_study_imports_only_the_framework_and_itself():
    for module, targets in _imports().items():
        area = _area(module)
        if area in STUDY_PACKAGES:
            bad = {t for t in targets if _area(t) not in ("framework", area)}
            assert not bad, f"{module} imports {bad}"


def test_the_package_init_imports_nothing():
    assert _imports()[PKG] == set()


def test_no_import_cycles():
    graph = _imports()
    state: dict[str, int] = {}

    def visit(m, stack):
        state[m] = 1
        for t in graph[m]:
            if state.get(t) == 1:
                raise AssertionError("import cycle: " + " -> ".join(stack[stack.index(t):] + [t]))
            if t not in state:
                visit(t, stack + [t])
        state[m] = 2

    for m in graph:
        if m not in state:
            visit(m, [m])


def test_every_study_has_its_template_beside_it():
    for study in STUDIES:
        assert (ROOT / study.template).is_file(), study.template
        assert study.template.split("/")[0] in STUDY_PACKAGES
