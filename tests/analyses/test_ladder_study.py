"""The ladder study: its section renders from a small ladder (every variable the template needs is
there, every number shown with an interval), its design keeps one table size to one cell of deals,
and (slow) the --quick section is written with its figure, CSVs and summary.json entries."""
from __future__ import annotations

import json

import pytest
from _pages import estimates

from gnoming_sim.analyses.framework.design import STRONG, STRONG_LADDER
from gnoming_sim.analyses.framework.render import environment
from gnoming_sim.analyses.framework.study import Context
from gnoming_sim.analyses.ladder import StrengthLadder
from gnoming_sim.analyses.ladder import design, findings
from gnoming_sim.analyses.report import STUDIES
from gnoming_sim.experiments import ladder

KNOWN = ("random", "greedy", "expert")


@pytest.fixture(scope="module")
def result():
    data = ladder.run(KNOWN, players=(2, 4), games=80, seed=4, threads=1, bootstrap=100).to_dict()
    return findings.conclude(Context(), [], data)


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
    keys = [f.key for f in result.findings]
    assert keys[-2:] == ["ladder.head_to_head", "ladder.skill_share"]
    assert keys[:2] in (["ladder.top_margin", "ladder.top_rating"], ["ladder.head_to_head", "ladder.skill_share"])
    for s in result.summary["by_players"].values():
        assert s["skill_share_without_random"]["ci95"][0] <= s["skill_share_without_random"]["mean"]
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


@pytest.mark.slow   # the quick study plays the fast players at 2, 4 and 6 players
def test_the_quick_section_is_written(tmp_path):
    from gnoming_sim.analyses.report import build_report

    summary = build_report(tmp_path, quick=True, seed=3, studies=(StrengthLadder(),))
    assert (tmp_path / "ladder-ratings.png").stat().st_size > 1000
    assert (tmp_path / "ladder-ratings.csv").exists() and (tmp_path / "ladder-measures.csv").exists()
    page = (tmp_path / "index.html").read_text(encoding="utf-8")
    assert '<section id="ladder">' in page
    on_disk = json.loads((tmp_path / "summary.json").read_text())
    assert on_disk["ladder"]["by_players"].keys() == {"2", "4", "6"}
    four = on_disk["ladder"]["by_players"]["4"]
    # --quick plays no Monte Carlo player (it could not rate one on its few deals) and says so
    slow = {n for n in ladder.DEFAULT_POOL if ladder.mc_cost(n) != 0.0}
    assert slow and set(on_disk["ladder"]["not_played"]) == slow
    assert set(four["strategies"]) | {r["strategy"] for r in four["left_out"]} == set(design.pool()) - slow
    assert set(STRONG_LADDER) <= set(four["strategies"])     # the players the answers are read under are placed
    assert "does not play" in page
    assert any(f["key"] == "ladder.top_rating" for f in summary["findings"])


def test_the_strongest_fast_player_is_named_when_a_monte_carlo_player_tops_the_pool():
    data = ladder.run(("random", "expert", "learned", "mc4"), players=(2,), games=40, seed=4, threads=1,
                      bootstrap=100).to_dict()
    # make the Monte Carlo player the top of the pool whatever 40 deals say, to test the naming alone
    for r in data["tables"][0]["strategies"]:
        if r["strategy"] == "mc4":
            r["rating"] = {"mean": 900.0, "ci95": [800.0, 1000.0], "n": 40}
    result = findings.conclude(Context(), [], data)
    assert findings.strongest_fast(analysis_sizes(data)) == {2: "learned"}
    keys = [f.key for f in result.findings]
    assert keys[:3] == ["ladder.top_margin", "ladder.top_rating", "ladder.strongest_fast"]
    named = next(f for f in result.findings if f.key == "ladder.strongest_fast").sentence
    assert named.endswith(f"the answers are read under {STRONG}")      # learned here: the answers are not its
    assert result.summary["strongest_fast"] == {"2": "learned"}
    # the split design: Monte Carlo players at the headline size only
    assert [pl for pl, pool in design.pools(ladder.DEFAULT_POOL) if "mc16" in pool] == [design.SLOW_AT]
    assert design.deals_at(2, 600) > design.deals_at(4, 600) == 600   # 2 players: fewer pairwise results a deal


def analysis_sizes(data):
    return [findings._size(s) for s in data["tables"]]


# ----------------------------------------------------------------- who is rated, who is top
def _e(m, lo, hi, n):
    return {"mean": m, "ci95": [lo, hi], "n": n}


def _table(mc_deals=6, gap=(-5.0, 40.0)):
    rows = [("mc64", 95.0, mc_deals), ("learned", 80.0, 2000), ("expert", 0.0, 2000), ("random", -1300.0, 2000)]
    return {"players": 4, "deals": 2000, "anchor": "expert", "lineups": [], "pairwise_results": 10,
            "strategies": [{"strategy": n, "rating": _e(r, r - 10, r + 10, d), "margin": _e(-r / 10, -r / 10 - 1,
                            -r / 10 + 1, d), "order": _e(0.5, 0.4, 0.6, d), "results": 10, "bounded_by_prior": False}
                           for n, r, d in rows],
            "head_to_head": {**_e(0.8, 0.7, 0.9, 2000), "pairs": 6}, "skill_share": _e(0.7, 0.69, 0.71, 2000),
            "skill_share_without_random": _e(0.2, 0.18, 0.22, 2000),
            "rating_differences": {"mc64-learned": _e(15.0, -5.0, 35.0, 6),
                                   "learned-expert": _e(80.0, gap[0] + 80 - 40, gap[1] + 80, 2000)}}


def test_a_strategy_on_6_deals_is_left_out_and_never_top():
    size = findings._size(_table(mc_deals=6))
    assert "mc64" not in [r["strategy"] for r in size["rows"]]
    assert size["left_out"] == [{"strategy": "mc64", "deals": 6}]
    assert size["top"]["strategy"] == "learned" and size["top"]["runner_up"] == "expert"
    assert findings._size(_table(mc_deals=30))["top"]["strategy"] == "mc64"


def test_no_top_of_the_pool_without_separation_from_the_runner_up():
    size = findings._size(_table(mc_deals=30))          # mc64 - learned: +15 [-5, +35] includes 0
    assert size["top"]["strategy"] == "mc64" and not size["top"]["separated"]
    found = findings._findings([size])
    assert "top of the pool" not in " ".join(f.sentence for f in found)
    assert "not separated from learned" in found[0].sentence
    sep = findings._size(_table(mc_deals=6))            # learned - expert: interval clear of 0
    assert sep["top"]["separated"]
    assert "top of the pool, separated from the runner-up expert" in findings._findings([sep])[0].sentence


def test_the_headline_is_the_paired_margin_and_elo_is_pool_specific():
    found = findings._findings([findings._size(_table())])
    assert found[0].key == "ladder.top_margin" and found[0].estimate.mean == -8.0
    assert "specific to this pool" in next(f for f in found if f.key == "ladder.top_rating").sentence
    assert "without random's games 20.0%" in next(f for f in found if f.key == "ladder.skill_share").sentence


def test_a_preview_plays_no_monte_carlo_player_and_the_full_design_does():
    slow = [n for n in ladder.DEFAULT_POOL if ladder.mc_cost(n) != 0.0]
    assert slow
    quick = {n for _, pool in design.pools(ladder.DEFAULT_POOL, quick=True) for n in pool}
    full = {n for _, pool in design.pools(ladder.DEFAULT_POOL) for n in pool}
    assert not quick & set(slow) and set(slow) <= full
    assert design.not_played(ladder.DEFAULT_POOL, True) == slow and design.not_played(ladder.DEFAULT_POOL, False) == []
