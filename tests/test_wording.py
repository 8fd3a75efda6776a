"""The words users read: one numbering of the table in every message, the rules
document named by its real path, counts and persons that read as English.

The scans read every string the package and the studies build (``gnoming_sim/`` and ``analyses/``,
docstrings and comments left out: they are for developers) and the page templates; each failure
names the file and line.
"""
from __future__ import annotations

import ast
import functools
import re
from pathlib import Path

import pytest

import gnoming_sim
from gnoming_sim.game.naming import LINE_NAMES, position_name, times

from _sources import tree as parsed

PACKAGE = Path(gnoming_sim.__file__).parent
ROOT = PACKAGE.parent
SOURCES = sorted([*PACKAGE.rglob("*.py"), *(ROOT / "analyses").rglob("*.py")])
TEMPLATES = sorted([*PACKAGE.rglob("*.html"), *(ROOT / "analyses").rglob("*.html")])
RULES_DOC = "gnoming_sim/game/rules.md"

# words that number something on the table: what follows them must count from 0
NUMBERED = r"(?:row|col|column|position|pos|seat|pile)"


def _docstrings(tree: ast.AST) -> set[int]:
    """ids of the docstring nodes of a module and of its classes and functions."""
    found = set()
    for node in ast.walk(tree):
        if isinstance(node, (ast.Module, ast.ClassDef, ast.FunctionDef, ast.AsyncFunctionDef)) and node.body:
            first = node.body[0]
            if isinstance(first, ast.Expr) and isinstance(first.value, ast.Constant) \
                    and isinstance(first.value.value, str):
                found.add(id(first.value))
    return found


@functools.cache
def _strings() -> list[tuple[str, ast.AST]]:
    """(file:line, node) of every string literal and f-string outside docstrings (read once, and only by a
    worker that runs these tests, not at collection)."""
    out = []
    for path in SOURCES:
        tree = parsed(path)
        skip = _docstrings(tree)
        inner = {id(v) for node in ast.walk(tree) if isinstance(node, ast.JoinedStr) for v in node.values}
        for node in ast.walk(tree):
            if id(node) in skip or id(node) in inner:
                continue
            if isinstance(node, ast.JoinedStr) or (isinstance(node, ast.Constant) and isinstance(node.value, str)):
                out.append((f"{path.relative_to(ROOT)}:{node.lineno}", node))
    return out


def _text(node: ast.AST) -> str:
    """A literal's text; an f-string's with each replacement field as ``{expression}``."""
    if isinstance(node, ast.Constant):
        return node.value
    return "".join(v.value if isinstance(v, ast.Constant) else "{" + ast.unparse(v.value) + "}"
                   for v in node.values)


def test_the_scans_see_the_messages():
    """The scans below read the strings they must judge (a scan that sees nothing proves nothing)."""
    texts = [_text(node) for _, node in _strings()]
    assert len(texts) > 1000
    assert any("{q} (row {q // 3} col {q % 3})" in t for t in texts)
    assert any("is seen {times(n)}" in t for t in texts)


# ------------------------------------------------------------------ (d) positions, rows, columns
def test_a_position_is_numbered_one_way():
    """Position q lies at row q // 3 and column q % 3, all counted from 0 as the position files and
    option keys (``pos5``) count: ``"1 (row 0 col 1)"``, never ``"1 (row 1 col 2)"``."""
    for q in range(9):
        m = re.fullmatch(r"(\d) \(row (\d) col (\d)\)", position_name(q))
        assert m, position_name(q)
        number, row, col = map(int, m.groups())
        assert number == q and 3 * row + col == q, position_name(q)


def test_the_lines_are_named_as_the_positions_they_hold():
    from gnoming_sim.reference.scoring import LINES

    for name, line in zip(LINE_NAMES, LINES, strict=True):
        kind, k = name.split()
        names = [position_name(int(q)) for q in line]
        assert all(f"{kind} {k}" in n for n in names), (name, names)


def test_no_message_counts_the_table_from_1():
    """No message turns a 0-based index into a 1-based row, column, position, seat or pile number
    (``row {r + 1}``), and none names a row or column 3 (only a count from 1 has one)."""
    bad = []
    for where, node in _strings():
        text = _text(node)
        if re.search(rf"\b{NUMBERED} \{{[^}}]*\+ ?1\}}", text) or re.search(r"\b(?:row|col|column) 3\b", text):
            bad.append(f"{where}: {text!r}")
    for path in TEMPLATES:
        for i, line in enumerate(path.read_text(encoding="utf-8").splitlines(), 1):
            if re.search(rf"\b{NUMBERED}\s*\{{\{{[^}}]*\+ ?1\b", line) or re.search(r"\b(?:row|col|column) 3\b", line):
                bad.append(f"{path.relative_to(ROOT)}:{i}: {line.strip()}")
    assert not bad, "messages counting the table from 1:\n" + "\n".join(bad)


# ------------------------------------------------------------------ (f) the rules document
def test_no_message_cites_RULES_md():
    """RULES.md is an outside spec, not in the repository: a message names the rules document the
    package ships, gnoming_sim/game/rules.md (``gnoming-sim rules --full`` prints it)."""
    assert (ROOT / RULES_DOC).is_file()
    bad = [f"{where}: {_text(node)!r}" for where, node in _strings() if "RULES.md" in _text(node)]
    bad += [str(p.relative_to(ROOT)) for p in TEMPLATES if "RULES.md" in p.read_text(encoding="utf-8")]
    assert not bad, "\n".join(bad)


def test_the_ladder_names_the_rules_document():
    from gnoming_sim.cli.ladder import _rules_text
    from gnoming_sim.game.rules import RuleConfig

    assert _rules_text(RuleConfig().to_dict(), "published") == \
        f"the rules of {RULES_DOC} (defaults), the published deck"
    changed = _rules_text(RuleConfig(max_turns=300).to_dict(), "published")
    assert changed.startswith(f"the rules of {RULES_DOC} (changed: max_turns=300)")


# ------------------------------------------------------------------ (g) English
def test_counts_read_as_english():
    assert [times(n) for n in (1, 2, 3, 11)] == ["once", "twice", "3 times", "11 times"]


def test_no_message_prints_a_bare_count_before_times():
    """``{n} times`` reads "1 times" when n is 1: a count of times goes through naming.times (a
    formatted ratio such as ``{x:.2f} times`` is not a count, and stays)."""
    bad = []
    for where, node in _strings():
        if not isinstance(node, ast.JoinedStr) or where.startswith("gnoming_sim/game/naming.py"):
            continue   # (naming.times is where the count is worded)
        for value, after in zip(node.values, node.values[1:]):
            if isinstance(value, ast.FormattedValue) and value.format_spec is None \
                    and isinstance(after, ast.Constant) and re.match(r"\s*times\b", after.value):
                bad.append(f"{where}: {_text(node)!r}")
    assert not bad, "\n".join(bad)


@pytest.mark.parametrize("record", ["hazard_flip", "decline", "finish"])
def test_the_player_to_move_is_told_in_the_third_person(record):
    """In ``analyse --why`` and the review's stories the player to move is "seat 1 (you)", so the
    narrator's verbs agree: "seat 1 (you) turns up ...", never "you (seat 1) turns up"."""
    from _examples import position

    from gnoming_sim.cli.why_text import _Teller
    from gnoming_sim.game import trace as T

    pos = position()
    teller = _Teller(pos, table=None, stats=None, seats=["expert"] * pos.players)
    if record == "hazard_flip":
        teller._on_hazard_flip(pos.me, 4, 7)
        assert teller.out[-1].strip() == f"seat {pos.me} (you) turns up a 7 at 4 (row 1 col 1)"
    elif record == "decline":
        teller._on_hazard_flip(pos.me, T.HFLIP_DECLINED, 0)
        assert teller.out[-1].strip() == f"seat {pos.me} (you) declines to flip"
    else:
        teller._on_finish(pos.me, 0, 0)
        assert teller.out[-1].strip().startswith(f"seat {pos.me} (you) has no face-down card left")
    other = (pos.me + 1) % pos.players
    assert teller.who(other) == f"seat {other}"
