"""docs/analyse.md's "Beside the card" lines are the output of the command the page names, so they cannot go
stale: the card's cell and answer at that position are read at once by the card player's own lookup; the whole
lines, with the analysis's numbers, come from running the command (2,000 rollouts a run, a minute or two: slow)."""
from __future__ import annotations

import re
import shlex
from pathlib import Path

import pytest


ROOT = Path(__file__).resolve().parents[2]
PAGE = ROOT / "docs" / "analyse.md"
COMMAND = "gnoming-sim analyse --position examples/finish-3p-round2.toml --rollouts 2000 --follow-card"


def _section() -> str:
    return PAGE.read_text(encoding="utf-8").split("## Beside the card", 1)[1].split("\n## ", 1)[0]


def _documented(prefix: str) -> str:
    """The one line of the section's text blocks that starts with ``prefix``."""
    lines = [line for block in re.findall(r"^```text\n(.*?)^```", _section(), flags=re.M | re.S)
             for line in block.splitlines() if line.startswith(prefix)]
    assert len(lines) == 1, (prefix, lines)
    return lines[0]


def test_the_section_names_the_command_its_lines_come_from():
    text = " ".join(_section().split())
    assert f"`{COMMAND}`" in text and text.count("the same command") >= 1
    assert COMMAND in PAGE.read_text(encoding="utf-8").split("## Beside the card")[0]   # run by the examples' test


def test_the_documented_card_line_is_what_the_card_says_there():
    """The cell, the card's action and the option it plays: card_view at the position, no rollouts."""
    from gnoming_sim.game.position import from_toml
    from gnoming_sim.search.card import card_view
    from gnoming_sim.search.options import legal_options

    pos = from_toml(ROOT / "examples" / "finish-3p-round2.toml")
    view = card_view(pos)
    (cell,) = view["cells"]
    src, q = view["choice"]
    label = next(o.label for o in legal_options(pos) if (o.src, o.pos) == (src, q) or (q < 0 and o.src == src))
    default = "" if cell["printed"] else "; not measured: the default rule the card prints"
    head = f"card: the card says {cell['action']} here (cell: {cell['words']}{default}), which is {label}"
    assert _documented("card: ").startswith(head)
    assert label in _documented("follow-card: ")   # the card's answer, named in the follow-card line too


@pytest.mark.slow
def test_the_documented_lines_are_the_commands_output(cli_run, monkeypatch):
    monkeypatch.chdir(ROOT)
    result = cli_run(shlex.split(COMMAND)[1:])
    lines = result.stdout.splitlines()
    for prefix in ("card: ", "follow-card: "):
        assert _documented(prefix) in lines, (prefix, [x for x in lines if x.startswith(prefix)])
