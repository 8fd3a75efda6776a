"""The README block leads with the ladder of advice (each rung's change of win chance against a table of net and of
expert, with its interval) and the pocket rules as printed, each with its worth a game; a rule whose interval holds
0 is said to win nothing ("no rule beats the simple default here"); the designers' figures come after, as many as
the 400 words leave room for; the card beside the full analysis is said honestly (the share playing the first
choice, the loss bracket named as lower and upper bound, the cost per game from play, no "or as good").  Checked on
the committed summary and on it with the fixture's pocket rules section (tests/analyses/data/summary_rules.json)."""
from __future__ import annotations

import copy
from pathlib import Path

import pytest
from _rules_fixture import committed, with_rules

from gnoming_sim.analyses import headlines
from gnoming_sim.analyses import lead
from gnoming_sim.analyses.headlines import DESIGNERS, WORD_BUDGET, headline_markdown, words
from gnoming_sim.kernel.policy import registry

ROOT = Path(__file__).resolve().parents[2]


@pytest.fixture(scope="module")
def fixture() -> dict:
    return with_rules()


@pytest.mark.parametrize("which", ["committed", "fixture"])
def test_the_block_keeps_its_budget_the_ladder_and_rules_first(which, fixture):
    summary = committed() if which == "committed" else fixture
    block = headline_markdown(summary)
    assert words(block) <= WORD_BUDGET
    assert block.startswith("**The ladder of advice**")
    if "pocket_rules" in summary:
        assert block.index("| rung |") < block.index("**The pocket rules**") < block.index("1. ")
        if DESIGNERS in block:
            assert block.index("8. ") < block.index(DESIGNERS)
    designers = {*lead.designer_lines(summary), *(f["display"] for f in summary.get("findings", []))}
    for line in block.split(DESIGNERS, 1)[1].splitlines()[1:] if DESIGNERS in block else []:
        if line.startswith("- "):
            assert line[2:] in designers, line      # every designers' line is the summary's, whole


def test_the_ladder_states_every_rung_against_both_tables(fixture):
    block = headline_markdown(fixture)
    lad = fixture["pocket_rules"]["ladder"]
    rows = {line.split(" | ")[0].lstrip("| "): line for line in block.splitlines() if line.startswith("| ")}
    for rung in fixture["pocket_rules"]["rungs"]:
        for table in ("net", "expert"):
            e = lad[table]["4"][rung]["win_vs_table"]
            if rung == table:
                assert "itself" in rows[rung]
            else:
                assert lead.interval_text(e["mean"], *e["ci95"]) in rows[rung], (rung, table)
    assert f"n = {fixture['pocket_rules']['deals']:,} deals" in block


def test_the_pocket_rules_are_printed_whole_each_with_its_worth(fixture):
    block = headline_markdown(fixture)
    numbered = [line for line in block.splitlines() if line[:2] in {f"{k}." for k in range(1, 9)}]
    assert len(numbered) == len(registry.RULES_PRINTED) == 8
    for line, rule, r in zip(numbered, registry.RULES_PRINTED, fixture["pocket_rules"]["rules"]):
        assert rule["text"] in line
        e = r["win"]["pooled"]
        assert line.endswith(f"({lead.interval_text(e['mean'], *e['ci95'])})")
    none = [r["title"].split()[0] for r in fixture["pocket_rules"]["rules"] if not r["gain"]]
    assert none and f"{none[-1]}: no rule beats the simple default here" in block
    for r in fixture["pocket_rules"]["rules"]:     # never a gain where the interval holds 0
        assert not r["gain"] or r["win"]["pooled"]["ci95"][0] > 0


def test_no_each_time_sums_and_no_played_predicted_verdict():
    for path in ("README.md", "docs/rules.md", "analyses/rules/template.html", "analyses/framework/templates/report.html"):
        text = (ROOT / path).read_text(encoding="utf-8")
        for said in ("each time", "agree?", "predicted", "or as good"):
            assert said not in text, (path, said)


def test_the_agreement_is_said_honestly(fixture):
    line = lead.agreement_sentence(fixture)
    o = fixture["agreement"]["overall"]
    best = lead.interval_text(*(100 * v for v in (o["plays_best"]["p"], *o["plays_best"]["ci95"])), sign=False,
                              pct=True)
    assert f"plays the evaluator's first choice (the full analysis's best option) {best}" in line
    low, high = o["held_out"]["mean_loss"], o["mean_loss"]
    assert f"between {lead.interval_text(low['mean'], *low['ci95'], sign=False)} (a lower bound" in line
    assert f"and {lead.interval_text(high['mean'], *high['ci95'], sign=False)} pp of win chance (an upper bound" in line
    card = fixture["pocket_rules"]["ladder"]["net"]["4"]["card"]["win_vs_table"]
    assert f"In play it costs {lead.interval_text(card['mean'], *card['ci95'])} pp of win chance a game" in line
    assert "or as good" not in line and "agree" not in line
    assert lead.agreement_sentence({}) == ""


def test_a_summary_without_the_sections_says_so():
    bare = {"command": "", "wall_s": 1.0, "studies": {"a": {"games": 10}}, "answers": [], "findings": []}
    block = headline_markdown(bare)
    assert "Not in this report" in block and words(block) <= WORD_BUDGET
    assert "before the pocket rules study" in headlines.rules_markdown(bare)
    assert lead.page(bare)["rules"] == [] and lead.page(bare)["ladder"] == []


def test_the_docs_rules_page_block_states_every_worth_and_rung(fixture):
    text = headlines.rules_markdown(fixture)
    s = fixture["pocket_rules"]
    for r in s["rules"]:
        row = next(line for line in text.splitlines() if line.startswith(f"| {r['title']} |"))
        for p in ("pooled", "2", "4", "6"):
            assert lead.interval_text(r["win"][p]["mean"], *r["win"][p]["ci95"]) in row, (r["title"], p)
        assert lead.interval_text(r["margin"]["pooled"]["mean"], *r["margin"]["pooled"]["ci95"]) in row
    assert "pp of win chance" in text and "points of game score" in text and "lower wins" in text
    assert "The finishing rule (5) holds at the tables it was measured at" in text
    rows = [line for line in text.splitlines() if line.startswith(("| net |", "| expert |"))]
    assert len(rows) == sum(len(r) for t in s["ladder"].values() for r in t.values())


def test_the_generated_pages_are_the_committed_summarys():
    """README.md's block and docs/rules.md's are what the committed summary generates (the command in the error)."""
    summary = committed()
    for path, name, make in headlines.PAGES:
        start, end = headlines.markers(name)
        page = (ROOT / path).read_text(encoding="utf-8")
        assert page.split(start, 1)[1].split(end, 1)[0].strip("\n") == make(summary), (
            f"{path} differs from reports/summary.json: run "
            "`python -m gnoming_sim.analyses.headlines README.md reports/summary.json`")


def test_main_rewrites_the_readme_and_the_pages_and_refuses_bad_input(tmp_path, fixture, capsys):
    import json

    (tmp_path / "docs").mkdir()
    readme = tmp_path / "README.md"
    readme.write_text(f"top\n{headlines.START}\nold\n{headlines.END}\nend\n", encoding="utf-8")
    start, end = headlines.markers("report")
    (tmp_path / "docs" / "rules.md").write_text(f"a\n{start}\nold\n{end}\nb\n", encoding="utf-8")
    summary = tmp_path / "summary.json"
    summary.write_text(json.dumps(fixture), encoding="utf-8")
    assert headlines.main([str(readme), str(summary)]) == 0
    assert headline_markdown(fixture) in readme.read_text(encoding="utf-8")
    assert headlines.rules_markdown(fixture) in (tmp_path / "docs" / "rules.md").read_text(encoding="utf-8")
    assert headlines.main([str(readme), str(tmp_path / "missing.json")]) == 2
    assert headlines.main([str(readme)]) == 2
    err = capsys.readouterr().err
    assert "Traceback" not in err and len(err.strip().splitlines()) == 2
