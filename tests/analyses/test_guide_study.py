"""The guide study: its section renders the committed guide's cells (each margin with its interval and n)
and the chart's check (every number with an interval), its design keeps one table size to one cell of
deals, and the --quick section is written alone with its figure, CSVs and summary.json entries."""
from __future__ import annotations

import json

import pytest
from _pages import estimates

from gnoming_sim.analyses.framework.render import environment
from gnoming_sim.analyses.framework.study import Context
from gnoming_sim.analyses.guide import PlayersGuide
from gnoming_sim.analyses.guide import analysis, design
from gnoming_sim.experiments.chart_check import versus_expert_each
from gnoming_sim.kernel.policy import registry


@pytest.fixture(scope="module")
def result():
    committed = json.loads(registry.CHART_CELLS.read_text())
    checks = [c for p in design.PLAYERS
              for c in versus_expert_each(design.CHECKED, p, 30, 4, threads=1, first_game=design.first_game(p))]
    return analysis.analyse(Context(), [], {"guide": committed, "checks": checks})


def test_the_section_renders_the_cells_and_the_check(result):
    figures = {f.name: {"id": f"guide-{f.name}", "src": "x.png", "file": "x.png", "caption": f.caption, "alt": f.alt}
               for f in result.figures}
    html = environment().get_template(PlayersGuide.template).render(
        study=PlayersGuide(), run=None, figures=figures, precision=result.precision, **result.context)
    assert '<section id="guide">' in html
    shown = sum(len(s["cells"]) for s in result.context["sections"])
    assert html.count('class="ci"') >= 3 * len(design.PLAYERS) + shown
    assert "nan" not in html.lower().replace("nanosecond", "")
    for s in result.context["sections"]:
        for c in s["cells"]:
            assert c["margin"].lo <= c["margin"].mean <= c["margin"].hi and c["margin"].n >= 2


def test_frames_findings_and_summary(result):
    assert set(result.frames) == {"cells", "check"}
    assert len(result.frames["check"]) == len(design.PLAYERS) * len(design.CHECKED)
    assert [f.key for f in result.findings] == ["guide.card_vs_expert", "guide.chart_vs_expert"]
    for path, e in estimates(result.summary):
        assert e["ci95"][0] <= e["mean"] <= e["ci95"][1], path
    assert set(result.summary["by_players"]) == {str(p) for p in design.PLAYERS}
    committed = json.loads(registry.CHART_CELLS.read_text())
    assert result.summary["cells_chart"] == len(committed["cells"])
    assert result.summary["cells_resolved"] == len(registry.printed_card(committed["tables"]))
    assert {"card_vs_expert", "chart_vs_expert"} <= set(result.summary["by_players"]["4"])


def _check(strategy, mean, players=4):
    e = {"mean": mean, "ci95": [mean - 0.3, mean + 0.3], "n": 3000}
    return {"strategy": strategy, "players": players, "deals": 3000, "diff": e, "win": e, "win_x": e,
            "win_expert": 0.25}


def test_the_answer_is_the_card_player_and_says_what_it_is_conditional_on():
    """The headline answer measures the card a person can follow (every resolved cell, its defaults), not the
    chart (expert's rules outside its starred cells); the chart stays a finding of its own."""
    committed = json.loads(registry.CHART_CELLS.read_text())
    checks = [_check("card", -1.0), _check("chart", -2.4), _check("card", -0.8, 6), _check("chart", -2.1, 6)]
    result = analysis.analyse(Context(), [], {"guide": committed, "checks": checks})
    assert [a.key for a in result.answers] == ["guide.card_vs_expert"]
    answer = result.answers[0].to_json()
    assert "printed card" in answer["text"] and answer["mean"] == -1.0
    assert "one card seat among three experts" in answer["holds_under"] and "default" in answer["holds_under"]
    assert "position within an action" in answer["holds_under"]
    chart = next(f for f in result.findings if f.key == "guide.chart_vs_expert")
    assert chart.estimate.mean == -2.4 and "starred cells" in chart.sentence


def test_one_table_size_is_one_cell_of_shared_deals():
    tables = PlayersGuide().design(Context(quick=True))
    assert {t.players for t in tables} == set(design.PLAYERS)
    for p in design.PLAYERS:
        assert len({t.first_game for t in tables if t.players == p}) == 1   # both arms: the same deals
    assert len({t.first_game for t in tables}) == len(design.PLAYERS)


def test_the_quick_section_is_written_alone(tmp_path):
    from gnoming_sim.analyses.report import build_report

    summary = build_report(tmp_path, quick=True, seed=3, studies=(PlayersGuide(),))
    assert (tmp_path / "guide-cells.csv").exists() and (tmp_path / "guide-check.csv").exists()
    page = (tmp_path / "index.html").read_text(encoding="utf-8")
    assert '<section id="guide">' in page
    on_disk = json.loads((tmp_path / "summary.json").read_text())
    assert set(on_disk["guide"]["by_players"]) == {"4", "6"}
    assert {"guide.card_vs_expert", "guide.chart_vs_expert"} <= {f["key"] for f in summary["findings"]}
