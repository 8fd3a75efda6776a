"""The card study: its section renders the committed card's cells (each margin with its interval and n)
and the check of the card and its starred cells (every number with an interval), its design keeps one table size to one cell of
deals, and the --quick section is written alone with its figure, CSVs and summary.json entries."""
from __future__ import annotations

import json

import pytest
from _pages import estimates

from gnoming_sim.analyses.framework.design import SECOND, STRONG, STRONG_LADDER, TOP_DIFFERENCE
from gnoming_sim.analyses.framework.render import environment
from gnoming_sim.analyses.framework.study import Context
from gnoming_sim.analyses.card import CardStudy
from gnoming_sim.analyses.card import design, findings
from gnoming_sim.experiments.card_check import MARGIN_RIVALS, MARGIN_SIZES, margins, versus_expert_along, versus_expert_each
from gnoming_sim.kernel.policy import registry


@pytest.fixture(scope="module")
def result():
    committed = json.loads(registry.CARD_CELLS.read_text())
    checks = [c for p in design.PLAYERS
              for c in versus_expert_each(design.CHECKED, p, 30, 4, threads=1, first_game=design.first_game(p))]
    along = versus_expert_along(design.ALONG, STRONG_LADDER, design.HEADLINE_PLAYERS, 30, 4, threads=1,
                                first_game=design.first_game(design.HEADLINE_PLAYERS))
    found = margins("card", deals=12, seed=4, threads=1, first_game=design.first_game)
    return findings.conclude(Context(), [], {"card": committed, "checks": checks, "along": along,
                                            "margins": {str(p): by for p, by in found.items()}})


def test_the_section_renders_the_cells_and_the_check(result):
    figures = {f.name: {"id": f"card-{f.name}", "src": "x.png", "file": "x.png", "caption": f.caption, "alt": f.alt}
               for f in result.figures}
    html = environment().get_template(CardStudy.template).render(
        study=CardStudy(), run=None, figures=figures, precision=result.precision, **result.context)
    assert '<section id="card">' in html
    shown = sum(c["margin"] is not None for s in result.context["sections"] for c in s["cells"])
    assert html.count('class="ci"') >= (3 * len(design.PLAYERS) + shown + 2 * (len(STRONG_LADDER) + 1)
                                        + 3 * len(MARGIN_SIZES) * len(MARGIN_RIVALS))
    assert f"difference, {TOP_DIFFERENCE}" in html
    assert "nan" not in html.lower().replace("nanosecond", "")
    for s in result.context["sections"]:
        for c in s["cells"]:
            assert c["margin"] is None or (c["margin"].lo <= c["margin"].mean <= c["margin"].hi and c["margin"].n >= 2)
    assert "basic strategy" not in html.lower() and "basic-strategy" not in html.lower()


def test_the_card_margins_and_the_iteration_history_in_the_summary(result):
    """summary["card"]["card_margins"]: players 2, 4, 6, each rival, points and win in pp, each
    an estimate with its interval and n = deals; the margins frame (the report's card-card-margins.csv) holds the same
    rows; the iteration history is the committed card's rounds, each with its cells changed and decisions."""
    m = result.summary["card_margins"]
    assert set(m) == {str(p) for p in MARGIN_SIZES}
    for by in m.values():
        assert set(by) == set(MARGIN_RIVALS)
        for e in by.values():
            assert e["points"]["unit"] == "points" and e["win"]["unit"] == "pp"
            for x in e.values():
                assert x["ci95"][0] <= x["mean"] <= x["ci95"][1] and x["n"] == 12
    frame = result.frames["card-margins"]
    assert len(frame) == len(MARGIN_SIZES) * len(MARGIN_RIVALS)
    row = frame[(frame.players == 4) & (frame.rivals == "expert")].iloc[0]
    assert row.points == m["4"]["expert"]["points"]["mean"] and row.win_pp == m["4"]["expert"]["win"]["mean"]
    committed = json.loads(registry.CARD_CELLS.read_text())
    rounds = committed.get("card_provenance", {}).get("iteration", [])
    assert result.summary.get("iteration", []) == findings.iteration_of(committed)
    assert [r["round"] for r in result.summary.get("iteration", [])] == list(range(1, len(rounds) + 1))
    for r in result.summary.get("iteration", []):
        assert r["cells_changed"] == len(r["changes"]) and r["decisions"] > 0


def test_frames_findings_and_summary(result):
    assert set(result.frames) == {"cells", "check", "card-margins"}
    assert len(result.frames["check"]) == len(design.PLAYERS) * len(design.CHECKED) + len(STRONG_LADDER)
    assert set(result.frames["check"]["rivals"]) == {"expert", *STRONG_LADDER}
    assert [f.key for f in result.findings] == ["card.card_vs_expert", "card.starred_vs_expert"]
    for path, e in estimates(result.summary):
        assert e["ci95"][0] <= e["mean"] <= e["ci95"][1], path
    assert set(result.summary["by_players"]) == {str(p) for p in design.PLAYERS}
    committed = json.loads(registry.CARD_CELLS.read_text())
    assert result.summary["cells_starred"] == len(committed["cells"])
    assert result.summary["cells_resolved"] == len(registry.printed_card(committed["tables"]))
    assert {"card_vs_expert", "starred_vs_expert"} <= set(result.summary["by_players"]["4"])


def _check(strategy, mean, players=4):
    e = {"mean": mean, "ci95": [mean - 0.3, mean + 0.3], "n": 3000}
    return {"strategy": strategy, "players": players, "deals": 3000, "diff": e, "win": e, "win_x": e,
            "win_expert": 0.25}


def test_the_answer_is_the_card_player_and_says_what_it_is_conditional_on():
    """The headline answer measures the card a person can follow (every resolved cell, its defaults), not the
    card-starred player (expert's rules outside its starred cells); that stays a finding of its own.  Without the ladder's
    arms (an older card study's summary) the answer is the check among experts, not measured along the ladder."""
    committed = json.loads(registry.CARD_CELLS.read_text())
    checks = [_check("card", -1.0), _check("card-starred", -2.4), _check("card", -0.8, 6), _check("card-starred", -2.1, 6)]
    result = findings.conclude(Context(), [], {"card": committed, "checks": checks})
    assert [a.key for a in result.answers] == ["card.card_vs_expert"]
    answer = result.answers[0].to_json()
    assert "printed card" in answer["text"] and answer["mean"] == -1.0
    assert "one card seat among three experts" in answer["holds_under"] and "default" in answer["holds_under"]
    assert "position within an action" in answer["holds_under"]
    assert answer["convergence"] is None
    starred = next(f for f in result.findings if f.key == "card.starred_vs_expert")
    assert starred.estimate.mean == -2.4 and "starred cells" in starred.sentence


def _along(learned: float, net: float, d: float, half: float) -> dict:
    e = lambda m, h=0.3: {"mean": m, "ci95": [m - h, m + h], "n": 3000}   # noqa: E731
    rung = lambda r, m: {"strategy": "card", "rivals": r, "players": 4, "deals": 3000, "diff": e(m), "win": e(-0.03),   # noqa: E731
                         "win_x": e(0.2), "win_expert": 0.23}
    return {"rungs": {SECOND: rung(SECOND, learned), STRONG: rung(STRONG, net)},
            "differences": {TOP_DIFFERENCE: {"diff": e(d, half), "win": e(0.0, 0.01)}}}


@pytest.mark.parametrize("d, half, word", [(0.2, 0.5, "converged"), (1.5, 0.4, "still moves"),
                                           (0.6, 0.6, "convergence not shown"), (0.0, 1.2, "not tested")])
def test_along_the_ladder_the_answer_is_the_strongest_rivals_and_says_whether_it_converged(d, half, word):
    """The headline is the card's worth with the strongest rung at the other seats; "holds under" and
    convergence come from the one equivalence function (TOST at the design's target) on the two strongest rungs'
    paired difference, and summary.json states the estimand under both rungs."""
    from gnoming_sim.analyses.framework.words import equivalence, holds_under
    from gnoming_sim.stats import Estimate

    committed = json.loads(registry.CARD_CELLS.read_text())
    checks = [_check("card", 5.2), _check("card-starred", -2.0), _check("card", 5.4, 6), _check("card-starred", -1.8, 6)]
    result = findings.conclude(Context(), [], {"card": committed, "checks": checks, "along": _along(5.0, 5.0 + d, d, half)})
    [answer] = [a.to_json() for a in result.answers]
    assert answer["mean"] == 5.0 + d and f"against strong players ({STRONG}" in answer["text"]
    assert answer["convergence"] == word
    diff = Estimate(d, d - half, d + half, 3000)
    assert answer["holds_under"].startswith(holds_under(equivalence(diff, design.TARGET), diff, design.TARGET, "signed"))
    assert "default where it shows ?" in answer["holds_under"]
    e = result.estimands["card"]["card_vs_expert"]
    assert set(e["players"]) == set(STRONG_LADDER) and set(e["differences"]) == {TOP_DIFFERENCE}
    assert e["convergence"] == word and e["equivalence_target"] == design.TARGET
    assert result.summary["along_the_ladder"]["convergence"] == word
    # the power at the margin beside the label (se 0.61 at +-1: no power, so no label)
    assert (e["equivalence_power"] >= 0.8) == (word != "not tested") and "power" in answer["holds_under"]


def test_along_the_ladder_each_rung_is_the_check_with_those_rivals_and_the_expert_sits_where_the_card_sat():
    """A rung of :func:`versus_expert_along` is :func:`versus_expert_each` with those rivals (same deals), and the
    expert it is measured against sits, game by game, in the seat the card sat in."""
    from gnoming_sim.kernel.engine import seat_table

    p, deals, first = 4, 6, design.first_game(4)
    along = versus_expert_along("card", STRONG_LADDER, p, deals, 9, threads=1, first_game=first)
    for rung in STRONG_LADDER:
        [alone] = versus_expert_each(("card",), p, deals, 9, threads=1, first_game=first, rivals=rung)
        assert along["rungs"][rung] == alone
    _, with_card = seat_table(p, [registry.get("card")] + [registry.get(STRONG)] * (p - 1), deals * p, first, True)
    _, with_expert = seat_table(p, [registry.get("expert")] + [registry.get(STRONG)] * (p - 1), deals * p, first, True)
    assert ((with_card == 0) == (with_expert == 0)).all() and len(set((with_card == 0).argmax(axis=1))) == p


def test_one_table_size_is_one_cell_of_shared_deals():
    """Every arm at a table size, the ladder's included, plays the same deals."""
    tables = CardStudy().design(Context(quick=True))
    assert {t.seats[1] for t in tables if t.players == design.HEADLINE_PLAYERS} == {*MARGIN_RIVALS, *STRONG_LADDER}
    assert {t.players for t in tables} == set(design.SIZES) == set(design.PLAYERS) | set(MARGIN_SIZES)
    for p in design.SIZES:
        assert len({t.first_game for t in tables if t.players == p}) == 1   # every arm: the same deals
    assert len({t.first_game for t in tables}) == len(design.SIZES)


def test_the_quick_section_is_written_alone(tmp_path):
    from gnoming_sim.analyses.report import build_report

    summary = build_report(tmp_path, quick=True, seed=3, studies=(CardStudy(),))
    assert (tmp_path / "card-cells.csv").exists() and (tmp_path / "card-check.csv").exists()
    assert (tmp_path / "card-card-margins.csv").exists()
    page = (tmp_path / "index.html").read_text(encoding="utf-8")
    assert '<section id="card">' in page
    on_disk = json.loads((tmp_path / "summary.json").read_text())
    assert set(on_disk["card"]["by_players"]) == {"4", "6"}
    assert set(on_disk["card"]["card_margins"]) == {"2", "4", "6"}
    assert {"card.card_vs_expert", "card.starred_vs_expert"} <= {f["key"] for f in summary["findings"]}
    assert set(on_disk["card"]["along_the_ladder"]["rivals"]) == set(STRONG_LADDER)
    assert set(on_disk["estimands"]["card"]["card_vs_expert"]["players"]) == set(STRONG_LADDER)
    # the ladder's tables play design.ALONG_SHARE times the check's deals (80% power at +-1 point)
    assert on_disk["estimands"]["card"]["card_vs_expert"]["differences"][TOP_DIFFERENCE]["n"] == design.along_deals(100) == 125


def test_the_margins_against_the_rivals_other_than_expert_play_a_sixth_of_the_deals():
    """The study's time (make report <= 12 minutes): the card's margins against net, builder and greedy (13 to 55
    points a game) play the first sixth of the deals; against expert, the target's figure, every deal."""
    assert design.margin_deals(3000, "expert") == 3000 and design.margin_deals(3000, "net") == 500
    assert design.margin_deals(100, "greedy") == 17 and design.margin_deals(6, "builder") == 2
    two = [t for t in design.tables(3000) if t.players == 2]
    assert {t.seats[-1]: t.games for t in two} == {"expert": 6000, "net": 1000, "builder": 1000, "greedy": 1000}
