"""The README's headline block is generated from the committed report's summary.json, so every
number it states is one of the report's (issue: "9.7 million games" against 9,288,000)."""
from __future__ import annotations

import json
from pathlib import Path

import pytest

from gnoming_sim.analyses.headlines import END, START, WORD_BUDGET, headline_markdown, replace_block, words

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
    assert 1 <= len(summary["answers"]) <= 8
    shown = [a for a in summary["answers"] if a["display"] in block]
    assert shown == summary["answers"][:len(shown)] and shown      # the best ranked, each in full
    if len(shown) < len(summary["answers"]):
        assert f"{len(summary['answers']) - len(shown)} more answers in the report." in block
    for answer in summary["answers"]:
        assert "holds under" in answer["display"] and "95% interval" in answer["display"]


def test_the_block_keeps_to_its_word_budget():
    summary = json.loads(SUMMARY.read_text(encoding="utf-8"))
    assert words(headline_markdown(summary)) <= WORD_BUDGET


def test_a_long_summary_is_cut_to_the_budget_by_leaving_out_designer_figures():
    answer = {"display": "A mulligan is worth +1.2 pp of winning (95% interval [+0.9, +1.5]; n = 1,000 deals; "
                         "holds under the preset mix, expert and learned)"}
    long = {"display": " ".join(["word"] * 60), "key": "x"}
    summary = {"command": "gnoming-sim report", "seed": 0, "wall_s": 500, "studies": {"a": {"games": 10}},
               "answers": [answer] * 8, "findings": [dict(long, key=f"k{i}") for i in range(6)],
               "designer_findings": [f"k{i}" for i in range(6)]}
    block = headline_markdown(summary)
    assert words(block) <= WORD_BUDGET
    assert block.count(answer["display"]) == 8
    assert 0 < block.count("word word") < 6 * 59   # some designer lines fit, not all


def test_replace_block_keeps_the_rest_and_needs_the_markers():
    text = f"before\n{START}\nold\n{END}\nafter\n"
    assert replace_block(text, "new") == f"before\n{START}\nnew\n{END}\nafter\n"
    with pytest.raises(ValueError):
        replace_block("no markers", "new")


def test_answers_that_do_not_fit_are_counted_not_cut():
    """Per-size answers (issue 31) are longer: the block keeps whole answers, best ranked first, and says how
    many more the report has."""
    answers = [{"display": f"Answer {k}: " + " ".join(["word"] * 70) + " (holds under learned)"} for k in range(8)]
    summary = {"command": "gnoming-sim report", "seed": 0, "wall_s": 500, "studies": {"a": {"games": 10}},
               "answers": answers, "findings": [], "designer_findings": []}
    block = headline_markdown(summary)
    assert words(block) <= WORD_BUDGET
    shown = sum(a["display"] in block for a in answers)
    assert 0 < shown < 8 and f"{8 - shown} more answers in the report." in block


def test_the_ladder_line_says_of_every_answer_whether_it_converged():
    """Issue 34: the README says per answer, also of those its word budget leaves out, whether the two strongest
    fast players agree on it (converged), differ (still moves) or cannot be told apart yet."""
    from gnoming_sim.analyses.headlines import ladder_line

    words = ("still moves", "converged", "convergence not shown", None, "not tested")
    answers = [{"key": f"a{k}", "convergence": w, "display": f"Answer {k} (holds under net)"} for k, w in enumerate(words)]
    summary = {"command": "gnoming-sim report", "wall_s": 500, "studies": {"a": {"games": 10}}, "answers": answers,
               "findings": [], "strong_ladder": ["learned", "net"]}
    line = ladder_line(summary)
    assert line.startswith("**Along the ladder** (net against learned")
    assert "converged: 2 (a1)" in line and "still moves: 1 (a0)" in line and "convergence not shown: 3 (a2)" in line
    assert "not measured along the ladder: 4 (a3)" in line and "not tested: 5 (a4)" in line
    assert line in headline_markdown(summary)
    assert ladder_line({**summary, "answers": [{**a, "convergence": None} for a in answers]}) == ""
    assert "preview at quick sizes, no verdict" in ladder_line({**summary, "quick": True})
