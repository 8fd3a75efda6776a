"""The README is an index and the docs pages hold together: the README stays short and
says how to run the program; every relative link and anchor of the README and docs/ leads
somewhere; the times stated for `make report` and `report --quick` are the measured ones; and the
report pages cite the rules document by its real name."""
from __future__ import annotations

import json
import subprocess
import re
from pathlib import Path

from click.testing import CliRunner

from gnoming_sim.analyses.headlines import END, START, _minutes

ROOT = Path(__file__).resolve().parents[1]
README = ROOT / "README.md"
DOCS = sorted((ROOT / "docs").glob("*.md"))
PAGES = [README, *DOCS]
RULES_DOC = "gnoming_sim/game/rules.md"
LINK = re.compile(r"!?\[[^\]]*\]\(([^)\s]+)\)")


def _text(path: Path) -> str:
    return path.read_text(encoding="utf-8")


def _readme_without_the_generated_block() -> str:
    text = _text(README)
    return text.split(START, 1)[0] + text.split(END, 1)[1]


def test_the_readme_is_an_index_under_200_lines():
    text = _text(README)
    assert len(text.splitlines()) < 200
    for needed in ("make report", "make test", "make setup", "source .venv/bin/activate", ".venv/bin/gnoming-sim"):
        assert needed in text, f"the README must say {needed!r}"
    linked = set(LINK.findall(text))
    for page in DOCS:
        assert f"docs/{page.name}" in linked, f"the README does not link docs/{page.name}"
    pictures = re.findall(r"!\[[^\]]*\]\(([^)]+\.png)\)", text)
    assert pictures and all((ROOT / p).is_file() for p in pictures), pictures


def test_the_readme_gives_one_example_of_every_command():
    from gnoming_sim.cli import cli

    text = _text(README)
    missing = [name for name in cli.commands if f"gnoming-sim {name} " not in text + " "
               and f"gnoming-sim {name}\n" not in text]
    assert not missing, f"no README example of: {missing}"


def _slug(heading: str) -> str:
    """GitHub's anchor of a heading: lower case, punctuation dropped, spaces to hyphens."""
    return re.sub(r"[^\w\- ]", "", heading.strip().lower()).replace(" ", "-")


def _anchors(path: Path) -> set[str]:
    text = re.sub(r"^```.*?^```", "", _text(path), flags=re.M | re.S)
    seen: dict[str, int] = {}
    out = set()
    for heading in re.findall(r"^#+ (.*)$", text, flags=re.M):
        slug = _slug(heading)
        out.add(slug if slug not in seen else f"{slug}-{seen[slug]}")
        seen[slug] = seen.get(slug, 0) + 1
    return out


def test_every_relative_link_and_anchor_of_the_pages_leads_somewhere():
    broken = []
    for page in PAGES:
        text = re.sub(r"^```.*?^```", "", _text(page), flags=re.M | re.S)
        for target in LINK.findall(text):
            if re.match(r"[a-z]+://", target):
                continue
            file, _, anchor = target.partition("#")
            path = (page.parent / file).resolve() if file else page
            if not path.exists():
                broken.append(f"{page.relative_to(ROOT)}: {target} (no such file)")
            elif anchor and path.suffix == ".md" and anchor not in _anchors(path):
                broken.append(f"{page.relative_to(ROOT)}: {target} (no such heading in {path.name})")
    assert not broken, "\n".join(broken)


def _committed_summary() -> dict:
    """The summary.json of the committed report (git HEAD's), not of a report the user just made on
    their own machine (`make report` then `make test` must pass however fast the machine is); the
    working tree's where there is no git."""
    try:
        proc = subprocess.run(["git", "-C", str(ROOT), "show", "HEAD:reports/summary.json"], capture_output=True,
                              text=True, timeout=60)
    except OSError:
        proc = None
    if proc is not None and proc.returncode == 0:
        return json.loads(proc.stdout)
    return json.loads(_text(ROOT / "reports" / "summary.json"))


def test_the_stated_report_times_are_the_measured_ones():
    """`make report`'s time is the committed report's wall time (summary.json): exactly where it is
    given to the second, within 10% where it is rounded to minutes; `report --quick` is 28 s
    measured, stated as about 30 s, the same wherever it is stated."""
    from gnoming_sim.cli import cli

    wall = _committed_summary()["wall_s"]
    help_text = CliRunner().invoke(cli, ["report", "--help"], terminal_width=200).output
    sources = {"README.md": _readme_without_the_generated_block(), "Makefile": _text(ROOT / "Makefile"),
               "report --help": help_text, **{f"docs/{p.name}": _text(p) for p in DOCS}}
    wrong = []
    for name, text in sources.items():
        text = " ".join(text.split())
        for stated in re.findall(r"\d+ min \d\d s", text):
            if stated != _minutes(wall):
                wrong.append(f"{name}: {stated} (the committed report took {_minutes(wall)})")
        for minutes in re.findall(r"about (\d+) minutes", text):
            if abs(int(minutes) * 60 - wall) > 0.1 * wall:
                wrong.append(f"{name}: about {minutes} minutes (the committed report took {_minutes(wall)})")
        for seconds in re.findall(r"about (\d+) s\b", text):
            if seconds != "30":
                wrong.append(f"{name}: about {seconds} s for --quick (measured: 28 s)")
    assert not wrong, "\n".join(wrong)
    assert "about 30 s" in " ".join(help_text.split())
    for name in ("README.md", "Makefile", "docs/commands.md", "docs/report.md"):
        about = f"about {round(wall / 60)} minutes"   # the committed report's time, rounded to minutes
        assert about in " ".join(sources[name].split()) or _minutes(wall) in sources[name], name


def test_make_report_s_time_names_its_machine_and_what_it_rewrites():
    """`make report` took 21 min 31 s on a busy machine against the README's "about 6 minutes", and the README
    did not say it rewrites README.md and reports/ in place: the README and the Makefile give the
    time with the machine it was measured on (quiet or busy cores), say a busy machine takes longer, and what it
    rewrites."""
    for name, text in (("README.md", _readme_without_the_generated_block()), ("Makefile", _text(ROOT / "Makefile"))):
        text = " ".join(text.replace("#", " ").split())
        for said in ("rewrites in place", "reports/", "README", "answers block", "busy machine", "several times"):
            assert said in text, (name, said)
        # the machine it was measured on, by its name and LLVM's name for its CPU
        assert re.search(r"2 (quiet|busy) cores of an? (AMD EPYC|Intel Xeon) \(LLVM host CPU \w+", text), name


def test_the_report_pages_cite_the_rules_document_by_its_real_name():
    """The rules document in the repository is gnoming_sim/game/rules.md; RULES.md is the spec,
    which lives outside it."""
    assert (ROOT / RULES_DOC).is_file()
    templates = sorted((ROOT / "analyses").rglob("*.html"))
    assert templates
    for path in [*templates, ROOT / "reports" / "index.html"]:
        text = _text(path)
        assert "RULES.md" not in text, f"{path.relative_to(ROOT)} cites RULES.md, which is not in the repository"
    for name in ("framework/templates/report.html", "batch_report/templates/batch_report.html"):
        assert RULES_DOC in _text(ROOT / "analyses" / name), name


# options the pages name that belong to other programs: option -> whose it is
FOREIGN_OPTIONS = {"--nthreads": "dask worker", "--nworkers": "dask worker", "--strategies": "bench/bench.py", "--compile": "bench/bench.py",
                   "--stream-games": "bench/bench.py", "--strict-markers": "pytest",
                   "--write": "tests/golden/_golden.py", "--board": "bench/bench.py"}


def test_every_option_the_pages_name_is_an_option_of_the_cli():
    """Prose included: `--chunk-size`, `--no-rotate-seats` and the like must be real options."""
    from gnoming_sim.cli import cli

    real = {"--help", "--version"}
    for command in cli.commands.values():
        for param in command.params:
            real.update(param.opts, getattr(param, "secondary_opts", []))
    named = {}
    for page in PAGES:
        for option in re.findall(r"(?<![\w-])--[a-z][a-z-]*", _text(page)):
            named.setdefault(option, page.relative_to(ROOT).as_posix())
    unknown = {o: where for o, where in named.items() if o not in real and o not in FOREIGN_OPTIONS}
    assert not unknown, f"options no gnoming-sim command has: {unknown}"
    unused = set(FOREIGN_OPTIONS) - set(named)
    assert not unused, f"remove from FOREIGN_OPTIONS (no page names them): {unused}"


def test_the_shared_table_options_are_options_of_each_command_that_shares_them():
    """commands.md said `compare` takes the table options, `--deck` among them; it has no `--rules` or `--deck`
   : every option of the shared table is an option of every command named, but the ones the page
    says a command lacks."""
    from gnoming_sim.cli import cli

    text = _text(ROOT / "docs" / "commands.md").split("## Options the table commands share", 1)[1]
    intro, table = text.split("\n| option | meaning |", 1)
    table = table.split("\n\n", 1)[0]
    commands = re.findall(r"`([a-z-]+)`", intro.split(" set up a table", 1)[0])
    lacks = {cmd: set(re.findall(r"`(--[a-z-]+)`", but)) for cmd, but in re.findall(r"`([a-z-]+)` all but (.*?):",
                                                                                    " ".join(intro.split()))}
    options = {o for row in table.splitlines() if row.count("|") > 2
               for o in re.findall(r"`(--[a-z-]+)", row.split("|")[1])}
    assert commands == ["simulate", "play", "analyse", "compare"] and {"--deck", "--rules", "--seed"} <= options
    assert lacks == {"compare": {"--rules", "--deck"}}
    for name in commands:
        has = {o for p in cli.commands[name].params for o in (*p.opts, *p.secondary_opts)}
        assert options - lacks.get(name, set()) <= has, (name, options - lacks.get(name, set()) - has)
        assert not lacks.get(name, set()) & has, (name, "has", lacks[name] & has)


PATH = re.compile(r"(?<![\w/.<-])((?:gnoming_sim|analyses|tests|bench|examples|tuning|reports|docs)/[\w./-]*[\w/])")
MODULE = re.compile(r"(?<![\w/.])(gnoming_sim(?:\.[A-Za-z_]\w*)+)")


def _top_level_names(path: Path) -> set[str]:
    import ast

    names = set()
    for node in ast.parse(path.read_text(encoding="utf-8")).body:
        if isinstance(node, (ast.FunctionDef, ast.ClassDef)):
            names.add(node.name)
        elif isinstance(node, (ast.Assign, ast.AnnAssign)):
            targets = node.targets if isinstance(node, ast.Assign) else [node.target]
            names.update(t.id for t in targets if isinstance(t, ast.Name))
        elif isinstance(node, (ast.Import, ast.ImportFrom)):
            names.update((a.asname or a.name).split(".")[0] for a in node.names)
    return names


def _resolves(dotted: str) -> bool:
    """``gnoming_sim.a.b.name``: a module (file or package) of the tree, or a name defined at the top
    of the longest such module (gnoming_sim.analyses is the repository's analyses/)."""
    parts = dotted.split(".")
    base = [ROOT / "analyses", *parts[2:]] if parts[1:2] == ["analyses"] else [ROOT / "gnoming_sim", *parts[1:]]
    folder, rest = base[0], base[1:]
    while rest and (folder / rest[0]).is_dir():
        folder, rest = folder / rest[0], rest[1:]
    if rest and (folder / f"{rest[0]}.py").is_file():
        module, rest = folder / f"{rest[0]}.py", rest[1:]
    else:
        module = folder / "__init__.py"
    if not rest:
        return module.is_file()
    names = _top_level_names(module)
    source = module.read_text(encoding="utf-8")
    if "__all__" in source:   # the facade's lazy names (simulate, strategies, ...) are in its __all__
        names |= set(re.findall(r'"(\w+)"', source.split("__all__", 1)[1].split("]", 1)[0]))
    return rest[0] in names


def test_every_path_and_module_the_pages_name_exists():
    """So a module or test that moves takes its docs along: the message lists each stale name."""
    stale = []
    for page in PAGES:
        text = _text(page)
        for path in sorted(set(PATH.findall(text))):
            if not (ROOT / path).exists():
                stale.append(f"{page.relative_to(ROOT)}: {path} (no such file or folder)")
        for dotted in sorted(set(MODULE.findall(text))):
            if not _resolves(dotted.rstrip(".")):
                stale.append(f"{page.relative_to(ROOT)}: {dotted} (no such module or name)")
    assert not stale, "\n".join(stale)
