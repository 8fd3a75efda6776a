"""docs/architecture.md names every module of the package and of analyses/, each once, under the
heading of its folder, and nothing that does not exist; its tree names every package folder and only
folders and files that exist (issue 21: the README's old tree omitted 16 modules and named two
paths that were gone).  The failure messages give the exact lines to add or remove."""
from __future__ import annotations

import ast
import re
from pathlib import Path

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


def _imported_folders(path: str) -> list[str]:
    """The project package folders a module imports (absolute imports), its own folder left out."""
    tree = ast.parse((ROOT / path).read_text(encoding="utf-8"))
    names = [a.name for n in ast.walk(tree) if isinstance(n, ast.Import) for a in n.names]
    names += [n.module for n in ast.walk(tree) if isinstance(n, ast.ImportFrom) and n.module and not n.level]
    folders = set()
    for name in names:
        parts = name.split(".")
        if parts[0] != "gnoming_sim":
            continue
        base = [ROOT / "analyses", *parts[2:]] if parts[1:2] == ["analyses"] else [ROOT / "gnoming_sim", *parts[1:]]
        folder = base[0]
        for part in base[1:]:
            if not (folder / part).is_dir():
                break
            folder = folder / part
        folders.add(folder)
    own = (ROOT / path).parent
    return sorted(_short(f) for f in folders if f != own)


def _suggested_line(path: str) -> str:
    """A line for the page: the module's docstring's first sentence (to be put in our words) and
    the package folders it imports."""
    doc = ast.get_docstring(ast.parse((ROOT / path).read_text(encoding="utf-8"))) or "TODO: what it holds"
    first = re.split(r"(?<=\.)\s", " ".join(doc.split("\n\n")[0].split()))[0].rstrip(".")
    imports = ", ".join(_imported_folders(path)) or "\u2014"
    return f"- `{path}`: {first}. Imports: {imports}."


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
