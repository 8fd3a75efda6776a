"""The docs are reference: they, the docstrings, comments and test names never cite an issue or session by
number (what changed and why is in docs/history.md and the commits); the docs index lists every page; no
link of the pages leaves the repository; no line of a page is over 600 characters (a paragraph is wrapped,
a table row that long is a section)."""
from __future__ import annotations

import re
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
DOCS = sorted((ROOT / "docs").glob("*.md"))
PAGES = [ROOT / "README.md", *DOCS]
CODE = [p for folder in ("gnoming_sim", "analyses", "tests", "bench") for p in sorted((ROOT / folder).rglob("*"))
        if p.suffix in (".py", ".toml", ".html", ".js", ".css") and "__pycache__" not in p.parts]
# an issue or a session and its number, or a bare "#" and two digits (not an HTML entity, not a colour)
NUMBERED = re.compile(r"\b(?:issues?|sessions?) #?\d+|(?<![&\w#])#\d{2}(?!\w)", re.IGNORECASE)
# files whose number cannot be removed yet (another folder's owner edits them), each to leave this list
PENDING: set[str] = set()
LINK = re.compile(r"!?\[[^\]]*\]\(([^)\s]+)\)")
MAX_LINE = 600


def _numbered(path: Path) -> list[str]:
    return [f"{path.relative_to(ROOT)}:{i}: {m.group(0)!r}"
            for i, line in enumerate(path.read_text(encoding="utf-8").splitlines(), 1)
            for m in NUMBERED.finditer(line)]


def test_no_page_docstring_comment_or_test_name_cites_an_issue_or_session_by_number():
    found = [hit for path in [*PAGES, *CODE] if path.relative_to(ROOT).as_posix() not in PENDING
             for hit in _numbered(path)]
    found += [f"{p.relative_to(ROOT)}: its name" for p in CODE if NUMBERED.search(p.name.replace("_", " "))
              or re.search(r"(?:issue|session)\d", p.name)]
    assert not found, ("say what the code or page does, not which issue asked for it (history: docs/history.md):\n"
                       + "\n".join(found))


def test_the_pending_files_still_cite_a_number():
    """Guards the exception list: a file whose number is gone leaves PENDING."""
    for name in PENDING:
        assert _numbered(ROOT / name), f"remove {name} from PENDING"


def test_the_checks_see_numbers():
    """Guards the pattern itself."""
    issue, session = "iss" + "ue", "sess" + "ion"    # spelled apart so that this file passes its own check
    for said in (f"({issue} 50 item 4)", f"{issue}s 23 and 34", f"{issue.title()} " + "#" + "22", f"{session} 9's machine",
                 "finding " + "#" + "25"):
        assert NUMBERED.search(said), said
    for said in ("&#39;", "#222", "#555555", f"an {issue} of the rules", f"48 {session}s", "row 4b", f"{issue}-free"):
        assert not NUMBERED.search(said), said


def test_the_docs_index_lists_every_page():
    index = (ROOT / "docs" / "README.md").read_text(encoding="utf-8")
    rows = {m.group(1) for m in re.finditer(r"^\| \[[^\]]+\]\(([\w.-]+\.md)\)", index, flags=re.M)}
    missing = [p.name for p in DOCS if p.name != "README.md" and p.name not in rows]
    gone = sorted(r for r in rows if not (ROOT / "docs" / r).is_file())
    assert not missing, f"add a row for each of these pages to the table of docs/README.md: {missing}"
    assert not gone, f"docs/README.md lists pages that do not exist: {gone}"


def test_no_link_of_the_pages_leaves_the_repository():
    """A relative link resolves inside the repository; no absolute path or file: link (a web page is fine)."""
    outside = []
    for page in PAGES:
        text = re.sub(r"^```.*?^```", "", page.read_text(encoding="utf-8"), flags=re.M | re.S)
        for target in LINK.findall(text):
            if re.match(r"https?://", target):
                continue
            file = target.partition("#")[0]
            resolved = (page.parent / file).resolve()
            if target.startswith(("/", "file:", "~")) or not resolved.is_relative_to(ROOT):
                outside.append(f"{page.relative_to(ROOT)}: {target}")
    assert not outside, "links that leave the repository:\n" + "\n".join(outside)
    # and no path outside the repository in backquotes either (a reader cannot open it)
    named = [f"{p.relative_to(ROOT)}: {m}" for p in PAGES
             for m in re.findall(r"`(\.\./[^`]*)`", p.read_text(encoding="utf-8"))]
    assert not named, "\n".join(named)


def test_no_line_of_the_pages_is_over_600_characters():
    long = [f"{p.relative_to(ROOT)}:{i}: {len(line)} characters" for p in PAGES
            for i, line in enumerate(p.read_text(encoding="utf-8").splitlines(), 1) if len(line) > MAX_LINE]
    assert not long, f"wrap these lines (at most {MAX_LINE} characters):\n" + "\n".join(long)


PATH = re.compile(r"(?<![\w/.<-])((?:gnoming_sim|analyses|tests|bench|examples|tuning|reports|docs)/[\w./-]*[\w/])")
# sources whose repository paths are patterns, not files
PATTERNS = {"tests/test_wheel.py", "tests/test_docs_architecture.py", "tests/test_docs_reference.py",
            "tests/test_docs_figures.py"}
# a stale path that cannot be corrected yet (another folder's owner edits the file): file -> the path
PENDING_PATHS: dict[str, str] = {}


def _stale_paths() -> list[str]:
    stale = []
    for path in CODE:
        name = path.relative_to(ROOT).as_posix()
        if path.suffix != ".py" or name in PATTERNS:
            continue
        for i, line in enumerate(path.read_text(encoding="utf-8").splitlines(), 1):
            stale += [f"{name}:{i}: {p}" for p in PATH.findall(line)
                      if not (ROOT / p).exists() and PENDING_PATHS.get(name) != p]
    return stale


def test_every_repository_path_a_docstring_or_comment_names_exists():
    """A module or test that moves takes the sentences that name it along (as the pages' paths must)."""
    assert not _stale_paths(), "no such file or folder:\n" + "\n".join(_stale_paths())


def test_the_pending_stale_paths_are_still_there():
    for name, p in PENDING_PATHS.items():
        assert p in (ROOT / name).read_text(encoding="utf-8") and not (ROOT / p).exists(), (
            f"remove {name} from PENDING_PATHS")
