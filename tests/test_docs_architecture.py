"""docs/architecture.md names every module of the package and of analyses/, each once, under the
heading of its folder, and nothing that does not exist; its tree names every package folder and only
folders and files that exist (the README's old tree omitted 16 modules and named two
paths that were gone).  The failure messages give the exact lines to add or remove."""
from __future__ import annotations

import ast
import re
from pathlib import Path

from _sources import tree

ROOT = Path(__file__).resolve().parents[1]
PAGE = ROOT / "docs" / "architecture.md"
SOURCES = ("gnoming_sim", "analyses")
ENTRY = re.compile(r"^- `((?:gnoming_sim|analyses)/[\w/]*\.py)`")
HEADING = re.compile(r"^### ((?:gnoming_sim|analyses)/(?:[\w/]*/)?)\s*$")


def _modules() -> list[str]:
    return sorted(p.relative_to(ROOT).as_posix() for src in SOURCES for p in (ROOT / src).rglob("*.py")
                  if "__pycache__" not in p.parts)


def _entries() -> list[tuple[str, str]]:
    """(heading folder, module path) of every module line of the page, in order."""
    found, heading = [], ""
    for line in PAGE.read_text(encoding="utf-8").splitlines():
        if m := HEADING.match(line):
            heading = m.group(1)
        elif m := ENTRY.match(line):
            found.append((heading, m.group(1)))
    return found


def _folder(path: str) -> str:
    return path.rsplit("/", 1)[0] + "/"


def _short(folder: Path) -> str:
    """The page's name of a package folder: game, kernel.policy, batch, framework, ..."""
    rel = folder.relative_to(ROOT).as_posix()
    rel = rel.removeprefix("gnoming_sim/").removeprefix("analyses/") if rel not in SOURCES else rel
    return rel.replace("/", ".")


def _module_file(name: str) -> Path | None:
    """The file of a dotted project module (``gnoming_sim.analyses.X`` is ``analyses/X``); None if none."""
    parts = name.split(".")
    if parts[:2] == ["gnoming_sim", "analyses"]:
        path = ROOT.joinpath("analyses", *parts[2:])
    else:
        path = ROOT.joinpath(*parts)
    if path.is_dir():
        return path / "__init__.py" if (path / "__init__.py").is_file() else None
    return path.with_suffix(".py") if path.with_suffix(".py").is_file() else None


def _dotted(path: str) -> str:
    parts = list(Path(path).with_suffix("").parts)
    parts = ["gnoming_sim", *parts] if parts[0] == "analyses" else parts
    return ".".join(parts[:-1] if parts[-1] == "__init__" else parts)


def _imported_files(path: str) -> set[Path]:
    """The project modules a module imports: every import statement, inside functions too, relative
    ones resolved, ``from package import module`` as the module."""
    me, is_package = _dotted(path), path.endswith("/__init__.py")
    names = set()
    for node in ast.walk(tree(ROOT / path)):
        if isinstance(node, ast.Import):
            names |= {a.name for a in node.names}
        elif isinstance(node, ast.ImportFrom):
            target = node.module or ""
            if node.level:
                base = me.split(".") if is_package else me.split(".")[:-1]
                target = ".".join(base[:len(base) - (node.level - 1)] + ([node.module] if node.module else []))
            names |= {f"{target}.{a.name}" if _module_file(f"{target}.{a.name}") else target for a in node.names}
    files = set()
    for name in names:
        parts = name.split(".")
        if parts[0] != "gnoming_sim":
            continue
        while parts and _module_file(".".join(parts)) is None:
            parts.pop()
        if parts:
            files.add(_module_file(".".join(parts)))
    return files


def _label(target: Path, importer: str) -> str:
    """The page's name of what a module imports: its folder (``kernel.policy``, ``framework`` inside
    analyses/, ``analyses.framework`` outside), or a top-level module by name (``stats``, ``gnoming_sim``
    for the facade)."""
    folder = target.parent
    if folder == ROOT / "gnoming_sim":
        return "gnoming_sim" if target.name == "__init__.py" else target.stem
    rel = folder.relative_to(ROOT).as_posix().removeprefix("gnoming_sim/")
    if importer.startswith("analyses/"):
        rel = rel.removeprefix("analyses/")
    return rel.replace("/", ".")


def _imported_folders(path: str) -> list[str]:
    """The project package folders (and top-level modules) a module imports, its own folder left out."""
    own = (ROOT / path).parent
    return sorted({_label(f, path) for f in _imported_files(path) if f.parent != own})


def _imports_part(path: str) -> str:
    return ", ".join(_imported_folders(path)) or "\u2014"


def _suggested_line(path: str) -> str:
    """A line for the page: the module's docstring's first sentence (to be put in our words) and
    the package folders it imports."""
    doc = ast.get_docstring(tree(ROOT / path)) or "TODO: what it holds"
    first = re.split(r"(?<=\.)\s", " ".join(doc.split("\n\n")[0].split()))[0].rstrip(".")
    return f"- `{path}`: {first}. Imports: {_imports_part(path)}."


def test_the_page_names_every_module_and_only_modules_that_exist():
    named = [path for _, path in _entries()]
    modules = _modules()
    missing = [m for m in modules if m not in named]
    gone = [n for n in named if n not in modules]
    twice = sorted({n for n in named if named.count(n) > 1})
    problems = []
    if missing:
        problems.append("add these lines to docs/architecture.md, each under the heading "
                        "'### <its folder>/' (a new folder needs its heading):\n"
                        + "\n".join(f"  under ### {_folder(m)}\n    {_suggested_line(m)}" for m in missing))
    if gone:
        problems.append("remove the lines of these modules, which do not exist:\n"
                        + "\n".join(f"    - `{g}`: ..." for g in gone))
    if twice:
        problems.append(f"these modules are named more than once: {twice}")
    assert not problems, "\n".join(problems)


def test_each_module_line_stands_under_the_heading_of_its_folder():
    misplaced = [f"  `{path}` stands under ### {heading or '(no heading)'}; move it under ### {_folder(path)}"
                 for heading, path in _entries() if heading != _folder(path)]
    assert not misplaced, "docs/architecture.md:\n" + "\n".join(misplaced)


def _tree() -> str:
    text = PAGE.read_text(encoding="utf-8")
    return text.split("## The tree", 1)[1].split("```", 2)[1]


def _tree_names() -> list[str]:
    """The names of the tree's first column (before the description): folders end in '/'."""
    names = []
    for line in _tree().splitlines()[1:]:
        column = re.split(r"\s{2,}", line.strip(), maxsplit=1)[0] if not line.startswith(" " * 20) else ""
        names += [w for w in column.split() if w.endswith("/") or w.endswith(".py")]
    return names


def test_the_tree_names_every_package_folder():
    names = set(_tree_names())
    packages = sorted({p.parent.relative_to(ROOT).as_posix() for src in SOURCES
                       for p in (ROOT / src).rglob("__init__.py")})
    missing = [p for p in packages if p.rsplit("/", 1)[-1] + "/" not in names]
    assert not missing, f"add these package folders to the tree of docs/architecture.md: {missing}"


def test_the_tree_names_only_folders_and_files_that_exist():
    here = {p.name + ("/" if p.is_dir() else "") for p in ROOT.rglob("*")
            if ".venv" not in p.parts and ".git" not in p.parts and "__pycache__" not in p.parts}
    gone = [n for n in _tree_names() if n.rstrip("/").rsplit("/", 1)[-1] + ("/" if n.endswith("/") else "")
            not in here]
    assert not gone, f"remove these from the tree of docs/architecture.md (nothing of that name exists): {gone}"


def test_the_checks_see_the_page_and_the_tree():
    """Guards the tests themselves: the page parses into many entries and a real tree."""
    assert len(_entries()) >= 100
    assert {"game/", "kernel/", "policy/", "framework/", "report.py"} <= set(_tree_names())


def test_each_module_line_names_what_the_module_imports():
    """A line's "Imports:" is the code's: every project folder (or top-level module, ``stats``) the module
    imports outside its own folder, inside functions too, sorted, "—" for none.  The message gives the
    line to write."""
    wrong = []
    for line in PAGE.read_text(encoding="utf-8").splitlines():
        m = ENTRY.match(line)
        if not m or not (ROOT / m.group(1)).is_file():
            continue
        path, want = m.group(1), _imports_part(m.group(1))
        head, sep, said = line.rpartition(" Imports: ")
        if not sep:
            wrong.append(f"  `{path}` has no 'Imports:'; write its line as:\n    {line.rstrip()} Imports: {want}.")
        elif said != f"{want}.":
            wrong.append(f"  `{path}` says 'Imports: {said}', the code imports {want}; write its line as:\n"
                         f"    {head} Imports: {want}.")
    assert not wrong, "docs/architecture.md:\n" + "\n".join(wrong)


def test_the_imports_are_read_from_the_code():
    """Guards the check: relative, in-function and ``from package import module`` imports are seen."""
    assert {"framework", "game"} <= set(_imported_folders("analyses/report.py"))
    assert "tournament" in _imported_folders("analyses/report.py")          # from .tournament.study import ...
    assert _imported_folders("analyses/lead.py") == ["framework"]           # from .framework... import
    assert "search" in _imported_folders("gnoming_sim/__init__.py")         # import gnoming_sim.search
    assert "kernel.policy" in _imported_folders("gnoming_sim/kernel/engine.py")
    assert _imported_folders("gnoming_sim/game/cards.py") == []


def _table_stages() -> dict[str, set[str]]:
    """The stage table of the page: stage -> the stages it may import (words before any parenthesis)."""
    rows = {}
    for line in PAGE.read_text(encoding="utf-8").split("## The tree", 1)[0].splitlines():
        cells = [c.strip() for c in line.strip().strip("|").split("|")]
        if len(cells) == 3 and cells[1].startswith("`") and cells[0] != "stage":
            said = re.sub(r"\([^)]*\)", "", cells[2]).strip()
            rows[cells[0]] = set() if said.startswith("nothing") else {w.strip() for w in said.split(",")}
    return rows


def _docstring_stages() -> list[str]:
    """The stage folders the package docstring lists, in order."""
    import gnoming_sim

    return [m.group(1) for m in re.finditer(r"^    (\w+)/ ", gnoming_sim.__doc__, flags=re.M)]


def test_the_stage_table_is_the_layout_tests_rules():
    """The page's table, the package docstring and ``tests/test_layout.py``'s ``ALLOWED`` name the same
    stages in the same order, and the table's "may import" is ``ALLOWED``'s (``stats`` aside: every stage)."""
    import test_layout

    allowed = {stage: deps - {"stats"} for stage, deps in test_layout.ALLOWED.items() if stage != "stats"}
    table = _table_stages()
    assert list(table) == list(allowed), f"the stages of docs/architecture.md's table, in order: {list(allowed)}"
    wrong = [f"| {s} | ... | {', '.join(sorted(allowed[s]))} |" for s in allowed if table[s] != allowed[s]]
    assert not wrong, "docs/architecture.md's table must say (tests/test_layout.py's ALLOWED):\n" + "\n".join(wrong)
    assert _docstring_stages() == list(allowed), (
        f"gnoming_sim/__init__.py's docstring must list the stage folders {list(allowed)} in this order")
    order = " -> ".join(s for s in allowed)
    assert order in " ".join((test_layout.__doc__ or "").split()), f"tests/test_layout.py's docstring: {order}"
