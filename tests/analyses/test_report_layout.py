"""The report opens with the ladder of advice and the pocket rules (each with a small figure of its worth by
table size), then the agreement line; the studies' long tables fold under their captions, every table in its
own scrolling box; a report without those studies says what it lacks.  Rendered by build_report from the
fixture's pocket rules section (tests/analyses/data/summary_rules.json) through studies that play no game."""
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


def test_the_ladder_and_the_pocket_rules_open_the_page_then_the_agreement(html):
    assert html.index('<section id="the-rules">') < html.index('<section id="answers">') \
        < html.index('<section id="balance">')
    rules = _section(html, "the-rules")
    summary = with_rules()
    lad = rules.split('id="ladder-lead"', 1)[1].split("</table>", 1)[0]
    for rung in summary["pocket_rules"]["rungs"]:
        e = summary["pocket_rules"]["ladder"]["expert"]["4"][rung]
        assert f"<td>{rung}</td>" in lad and lead.interval_text(e["win_vs_table"]["mean"], *e["win_vs_table"]["ci95"]) in lad
    keys = re.findall(r'<article class="rule[^"]*" id="rule-(\d)">', rules)
    assert keys == [str(k) for k in range(1, 9)]
    for k, r in enumerate(summary["pocket_rules"]["rules"], 1):
        article = rules.split(f'id="rule-{k}"', 1)[1].split("</article>", 1)[0]
        assert r["text"].replace("'", "&#39;") in article and article.count("<svg") == 1
        assert article.count("<circle") == 3                       # its worth at 2, 4 and 6 players
        assert lead.interval_text(r["win"]["pooled"]["mean"], *r["win"]["pooled"]["ci95"]) in article
    assert "plays the evaluator&#39;s first choice" in rules and "(a lower bound" in rules


def test_a_report_without_the_studies_says_what_it_lacks(tmp_path):
    """A report from before the pocket rules and agreement studies (or one run without them) renders, and says
    each is not available."""
    summary = with_rules()
    del summary["pocket_rules"], summary["agreement"], summary["card"]
    rules = _section(fixture_report(tmp_path / "bare", summary).read_text(encoding="utf-8"), "the-rules")
    assert "The ladder and the pocket rules are not available in this report" in rules
    assert "their agreement is not available in this report" in rules


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
