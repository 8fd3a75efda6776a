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
from gnoming_sim.experiments.chart_check import versus_expert
from gnoming_sim.kernel.policy import registry


@pytest.fixture(scope="module")
def result():
    committed = json.loads(registry.CHART_CELLS.read_text())
    checks = [versus_expert("chart", p, 30, 4, threads=1, first_game=design.first_game(p)) for p in design.PLAYERS]
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
    assert len(result.frames["check"]) == len(design.PLAYERS)
    assert [f.key for f in result.findings] == ["guide.chart_vs_expert"]
    for path, e in estimates(result.summary):
        assert e["ci95"][0] <= e["mean"] <= e["ci95"][1], path
    assert set(result.summary["by_players"]) == {str(p) for p in design.PLAYERS}
    assert result.summary["cells_resolved"] == len(json.loads(registry.CHART_CELLS.read_text())["cells"])


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
    assert any(f["key"] == "guide.chart_vs_expert" for f in summary["findings"])
