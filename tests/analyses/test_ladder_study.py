"""The ladder study: its section renders from a small ladder (every variable the template needs is
there, every number shown with an interval), its design keeps one table size to one cell of deals,
and (slow) the --quick section is written with its figure, CSVs and summary.json entries."""
from __future__ import annotations

import json

import pytest
from _pages import estimates

from gnoming_sim.analyses.framework.render import environment
from gnoming_sim.analyses.framework.study import Context
from gnoming_sim.analyses.ladder import StrengthLadder
from gnoming_sim.analyses.ladder import analysis, design
from gnoming_sim.analyses.report import STUDIES
from gnoming_sim.experiments import ladder

KNOWN = ("random", "greedy", "expert")


@pytest.fixture(scope="module")
def result():
    data = ladder.run(KNOWN, players=(2, 4), games=80, seed=4, threads=1, bootstrap=100).to_dict()
    return analysis.analyse(Context(), [], data)


def test_the_section_renders_every_strategy_with_its_interval(result):
    figures = {f.name: {"id": f"ladder-{f.name}", "src": "x.png", "file": "x.png", "caption": f.caption, "alt": f.alt}
               for f in result.figures}
    html = environment().get_template(StrengthLadder.template).render(
        study=StrengthLadder(), run=None, figures=figures, precision=result.precision, **result.context)
    for name in KNOWN:
        assert f"<td>{name}</td>" in html
    assert html.count('class="ci"') >= 2 * 3 * 3 + 2 * 2
    assert "nan" not in html.lower().replace("nanosecond", "")


def test_frames_findings_and_summary(result):
    assert set(result.frames) == {"ratings", "measures"}
    ratings = result.frames["ratings"]
    assert len(ratings) == 2 * len(KNOWN)
    assert (ratings["rating_lo"] <= ratings["rating"]).all() and (ratings["rating"] <= ratings["rating_hi"]).all()
    assert [f.key for f in result.findings] == ["ladder.top_rating", "ladder.head_to_head", "ladder.skill_share"]
    found = list(estimates(result.summary))
    assert len(found) >= 2 * (3 * len(KNOWN) + 2)
    for path, e in found:
        assert e["ci95"][0] <= e["mean"] <= e["ci95"][1], path
    assert set(result.summary["by_players"]) == {"2", "4"}
    assert [f.name for f in result.figures] == ["ratings"]


def test_one_table_size_is_one_cell_of_shared_deals():
    study = next(s for s in STUDIES if s.id == "ladder")
    tables = study.design(Context(quick=True))
    assert {t.players for t in tables} == set(design.PLAYERS)
    for p in design.PLAYERS:
        assert len({t.first_game for t in tables if t.players == p}) == 1
    assert all(t.games % t.players == 0 for t in tables)   # whole rotations


@pytest.mark.slow   # the quick study plays Monte Carlo tables at 2, 4 and 6 players
def test_the_quick_section_is_written(tmp_path):
    from gnoming_sim.analyses.report import build_report

    summary = build_report(tmp_path, quick=True, seed=3, studies=(StrengthLadder(),))
    assert (tmp_path / "ladder-ratings.png").stat().st_size > 1000
    assert (tmp_path / "ladder-ratings.csv").exists() and (tmp_path / "ladder-measures.csv").exists()
    page = (tmp_path / "index.html").read_text(encoding="utf-8")
    assert '<section id="ladder">' in page
    on_disk = json.loads((tmp_path / "summary.json").read_text())
    assert on_disk["ladder"]["by_players"].keys() == {"2", "4", "6"}
    assert set(on_disk["ladder"]["by_players"]["4"]["strategies"]) == set(ladder.DEFAULT_POOL)
    assert any(f["key"] == "ladder.top_rating" for f in summary["findings"])


def test_the_strongest_fast_player_is_named_when_a_monte_carlo_player_tops_the_pool():
    data = ladder.run(("random", "expert", "learned", "mc4"), players=(2,), games=40, seed=4, threads=1,
                      bootstrap=100).to_dict()
    # make the Monte Carlo player the top of the pool whatever 40 deals say, to test the naming alone
    for r in data["tables"][0]["strategies"]:
        if r["strategy"] == "mc4":
            r["rating"] = {"mean": 900.0, "ci95": [800.0, 1000.0], "n": 40}
    result = analysis.analyse(Context(), [], data)
    assert analysis.strongest_fast(analysis_sizes(data)) == {2: "learned"}
    keys = [f.key for f in result.findings]
    assert keys[:2] == ["ladder.top_rating", "ladder.strongest_fast"]
    assert result.summary["strongest_fast"] == {"2": "learned"}
    # the split design: Monte Carlo players at the headline size only
    assert [pl for pl, pool in design.pools(ladder.DEFAULT_POOL) if "mc16" in pool] == [design.SLOW_AT]
    assert design.deals_at(2, 600) > design.deals_at(4, 600) == 600   # 2 players: fewer pairwise results a deal


def analysis_sizes(data):
    return [analysis._size(s) for s in data["tables"]]
