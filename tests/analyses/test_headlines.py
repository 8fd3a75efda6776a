"""The README's headline block is generated from the committed report's summary.json, so every
number it states is one of the report's (issue: "9.7 million games" against 9,288,000)."""
from __future__ import annotations

import json
from pathlib import Path

import pytest

from gnoming_sim.analyses.headlines import END, START, headline_markdown, replace_block

ROOT = Path(__file__).resolve().parents[2]
SUMMARY = ROOT / "reports" / "summary.json"


def test_the_readme_block_is_the_one_the_committed_summary_generates():
    summary = json.loads(SUMMARY.read_text(encoding="utf-8"))
    readme = (ROOT / "README.md").read_text(encoding="utf-8")
    block = readme.split(START, 1)[1].split(END, 1)[0].strip("\n")
    assert block == headline_markdown(summary), (
        "README headlines differ from reports/summary.json: run "
        "`python -m gnoming_sim.analyses.headlines README.md reports/summary.json`")


def test_the_block_states_the_summary_numbers():
    summary = json.loads(SUMMARY.read_text(encoding="utf-8"))
    block = headline_markdown(summary)
    games = sum(s["games"] for s in summary["studies"].values())
    assert f"{games:,} games" in block
    for finding in summary["findings"]:
        assert finding["display"] in block


def test_replace_block_keeps_the_rest_and_needs_the_markers():
    text = f"before\n{START}\nold\n{END}\nafter\n"
    assert replace_block(text, "new") == f"before\n{START}\nnew\n{END}\nafter\n"
    with pytest.raises(ValueError):
        replace_block("no markers", "new")
