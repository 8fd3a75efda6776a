"""The report opens with the rules (each with a small figure of its value by table size), then
the card's line and the agreement line; the studies' long tables fold under their captions, every table in its
own scrolling box; a report without those studies says what it lacks.  Rendered by build_report from the
fixture's sections (tests/analyses/data/summary_rules.json) through studies that play no game."""
from __future__ import annotations

import re

import pytest
from _rules_fixture import fixture_report, with_rules

from gnoming_sim.analyses import lead
from gnoming_sim.analyses.framework.mini_figure import interval_rows
from gnoming_sim.analyses.framework.render import FOLD_ROWS, fold_tables


@pytest.fixture(scope="module")
def html(tmp_path_factory) -> str:
    return fixture_report(tmp_path_factory.mktemp("fixture")).read_text(encoding="utf-8")


def _section(html: str, id: str) -> str:
    return html.split(f'<section id="{id}">', 1)[1].split("</section>", 1)[0]


def test_the_rules_open_the_page_then_the_card_and_the_agreement(html):
    assert html.index('<section id="the-rules">') < html.index('<section id="answers">') \
        < html.index('<section id="balance">')
    rules = _section(html, "the-rules")
    keys = re.findall(r'<article class="rule[^"]*" id="rule-(\w+)">', rules)
    assert keys == ["finish", "hazard", "take", "mulligan"]
    summary = with_rules()
    for r in summary["player_rules"]["rules"]:
        article = rules.split(f'id="rule-{r["key"]}"', 1)[1].split("</article>", 1)[0]
        if r["printed"]:
            assert r["text"].replace("'", "&#39;") in article, r["key"]
            assert article.count("<svg") == 1 and article.count("<circle") == max(1, len(r["by_players"]))
        else:
            assert "No single rule" in article and "<svg" not in article
    assert "Followed exactly at 4 players" in rules and "against builder" in rules
    assert "91.1% [90.2, 92.0] of the time" in rules


def test_a_report_without_the_rules_studies_says_what_it_lacks(tmp_path):
    """A report from before the rules, agreement and card-margin studies (or one run without them) renders,
    and says each is not available."""
    summary = with_rules()
    del summary["player_rules"], summary["agreement"], summary["guide"]
    text = fixture_report(tmp_path / "bare", summary).read_text(encoding="utf-8")
    rules = _section(text, "the-rules")
    assert "The rules are not available in this report" in rules
    assert "what following it wins is not available in this report" in rules
    assert "their agreement is not available in this report" in rules


def test_a_missing_decision_is_said_to_be_not_available(tmp_path):
    summary = with_rules()
    summary["player_rules"]["rules"] = [r for r in summary["player_rules"]["rules"] if r["key"] != "take"]
    rules = _section(fixture_report(tmp_path / "partial", summary).read_text(encoding="utf-8"), "the-rules")
    take = rules.split('id="rule-take"', 1)[1].split("</article>", 1)[0]
    assert "Not available in this report." in take and "<svg" not in take


def test_long_tables_fold_under_their_caption_and_every_table_scrolls_in_its_own_box():
    def table(rows, caption="Seats <em>by</em> size"):
        body = "".join(f"<tr><td>{i}</td></tr>" for i in range(rows))
        return f"<table><caption>{caption}</caption><thead><tr><th>a</th></tr></thead><tbody>{body}</tbody></table>"

    out = str(fold_tables(f"<p>x</p>{table(FOLD_ROWS)}<p>y</p>{table(FOLD_ROWS + 1)}"))
    assert out.count('<div class="scroll"><table>') == 2 and out.count("</table></div>") == 2
    assert out.count("<details") == 1
    assert f'<summary>Seats by size <span class="rows">({FOLD_ROWS + 1} rows)</span></summary>' in out
    assert out.index("<details") > out.index("<p>y</p>")          # the short table stays open
    assert str(fold_tables(out)) == out                              # a page folded once is left as it is


def test_the_small_figure_has_a_row_per_table_size_with_its_interval():
    svg = str(interval_rows([("3 players", 2.4, 1.9, 3.0), ("4 <b>", -0.5, -1.5, 0.5), ("bad", float("nan"), 0, 1)],
                            "pp a decision", "Finish"))
    assert svg.startswith("<svg") and svg.count("<circle") == 2 and svg.count('class="whisker"') == 2
    assert "4 &lt;b&gt;" in svg and "+2.4" in svg and "\u22120.5" in svg and "bad" not in svg
    assert str(interval_rows([], "pp")) == ""
    rule = with_rules()["player_rules"]["rules"][0]
    assert str(lead.rule_figure(rule)).count("<circle") == len(rule["by_players"])


def test_the_rules_study_s_own_figure_is_used_where_it_has_one():
    figures = {"finish": {"src": "data:image/png;base64,AAAA", "alt": "finish by size"}}
    rules = {r["key"]: r for r in lead.page(with_rules(), figures)["rules"]}
    assert rules["finish"]["image"] == figures["finish"] and rules["finish"]["figure"] is None
    assert rules["hazard"]["image"] is None and rules["hazard"]["figure"] is not None
