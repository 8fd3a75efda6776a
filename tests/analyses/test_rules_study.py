"""The ladder of advice and the pocket rules' worth (analyses/rules/): a planted worth is called a gain only where
its interval lies above 0 after Holm's adjustment; a step up the ladder is the upper rung minus the lower on the same
deals; the table's own player in its seat is the same games (exactly 0); a --quick report of the study writes the
ladder at 2, 4 and 6 players against both tables, every printed rule's worth, the CSV and the figure."""
from __future__ import annotations

import numpy as np
import pytest

from gnoming_sim.analyses.rules import findings
from gnoming_sim.experiments.rule_play import Table
from gnoming_sim.kernel.engine import simulate
from gnoming_sim.kernel.policy import registry


def _arrays(rng, n, mean):
    win = rng.normal(mean, 30.0, n)
    return {"win": win, "margin": -win / 10}


def test_a_rule_is_a_gain_only_where_its_interval_lies_above_zero_after_holm():
    rng = np.random.default_rng(3)
    rules = [{"title": f"{k} r", "text": "t", "default": {}} for k in (1, 2, 3)]
    pocket = {p: {"win": np.zeros(2000), "margin": np.zeros(2000)} for p in findings.SIZES}
    without = {"1 r": {p: _arrays(rng, 2000, -8.0) for p in findings.SIZES},     # removing it costs 8 pp: a gain
               "2 r": {p: _arrays(rng, 2000, 0.0) for p in findings.SIZES},      # worth nothing
               "3 r": {p: _arrays(rng, 2000, 8.0) for p in findings.SIZES}}      # removing it wins: a loss
    out = {r["title"]: r for r in findings.worth(rules, pocket, without)}
    assert out["1 r"]["gain"] and out["1 r"]["p_holm"] < 0.001 and out["1 r"]["win"]["pooled"]["ci95"][0] > 0
    assert not out["2 r"]["gain"] and out["2 r"]["win"]["pooled"]["ci95"][0] < 0 < out["2 r"]["win"]["pooled"]["ci95"][1]
    assert not out["3 r"]["gain"] and out["3 r"]["win"]["pooled"]["mean"] < 0
    assert out["1 r"]["win"]["pooled"]["n"] == 6000 and set(out["1 r"]["win"]) == {"pooled", "2", "4", "6"}
    assert out["1 r"]["margin"]["pooled"]["unit"] == "points" and out["1 r"]["win"]["2"]["unit"] == "pp"


def test_a_step_is_the_upper_rung_minus_the_lower_on_the_same_deals():
    rng = np.random.default_rng(1)
    rungs = {r: {k: rng.normal(size=50) for k in ("win", "margin", "win_abs", "margin_abs")}
             for r in ("simplest default", "pocket rules", "value")}
    rungs["value"] = {k: v[:10] for k, v in rungs["value"].items()}     # value plays the first deals only
    played = {"net": {4: rungs}}
    steps = findings.steps(played)["net"]["4"]
    assert list(steps) == ["simplest default \u2192 pocket rules", "pocket rules \u2192 value"]
    d = rungs["pocket rules"]["win"] - rungs["simplest default"]["win"]
    assert steps["simplest default \u2192 pocket rules"]["win"]["mean"] == pytest.approx(d.mean())
    assert steps["pocket rules \u2192 value"]["win"]["n"] == 10
    lad = findings.ladder(played)["net"]["4"]
    assert lad["value"]["win_vs_table"]["n"] == 10 and lad["pocket rules"]["margin_vs_table"]["unit"] == "points"


def test_the_table_seats_the_strategy_where_simulate_does_and_its_own_player_is_the_same_games():
    first = 2**59 + 2**56 + 7
    T = Table(4, 60, 5, first, base="net")
    card = T.versus("card")
    sim = simulate(players=4, strategies=["card", "net", "net", "net"], games=60, seed=5, first_game=first, rotate=True)
    assert np.array_equal(np.argmax(sim.seat_strategy == 0, axis=1), T._seat(60))
    assert np.array_equal(T.versus("card", 20)["win"], card["win"][:20])
    same = T.versus("net")
    assert not same["win"].any() and not same["margin"].any() and same["win_abs"].size == 60
    assert card["win"].any()        # the card is not net: some deal differs


@pytest.mark.slow
def test_the_study_writes_the_ladder_and_the_worths(tmp_path):
    """A --quick report of the study alone: both tables at 2, 4 and 6 players, every rung, net exactly 0 against
    itself, the eight printed rules' worths with n = 3 x the deals, the CSV and the figure."""
    from gnoming_sim.analyses.report import build_report
    from gnoming_sim.analyses.rules import PocketRules
    from gnoming_sim.analyses.rules.study import QUICK_DEALS, QUICK_VALUE_DEALS

    summary = build_report(tmp_path / "r", quick=True, studies=[PocketRules()])
    s = summary["pocket_rules"]
    # each size: net's and expert's own games, 3 rungs and value among each, net among expert, 8 rules at default
    per_size = 2 * QUICK_DEALS + 2 * (3 * QUICK_DEALS + QUICK_VALUE_DEALS) + QUICK_DEALS + 8 * QUICK_DEALS
    assert summary["studies"]["pocket_rules"]["games"] == 3 * per_size
    assert set(s["ladder"]) == {"net", "expert"} and s["rungs"] == list(findings.RUNGS)
    for table, sizes in s["ladder"].items():
        assert set(sizes) == {"2", "4", "6"}
        for p, rungs in sizes.items():
            assert list(rungs) == list(findings.RUNGS)
            if table in rungs:      # net among net: the same games
                own = rungs[table]["win_vs_table"]
                assert own["mean"] == 0.0 and own["ci95"] == [0.0, 0.0]
            assert rungs["value"]["win_vs_table"]["n"] == QUICK_VALUE_DEALS
            assert rungs["card"]["win_vs_table"]["n"] == QUICK_DEALS
    assert [r["title"] for r in s["rules"]] == [r["title"] for r in registry.RULES_PRINTED]
    for r in s["rules"]:
        assert r["win"]["pooled"]["n"] == 3 * QUICK_DEALS and 0.0 <= r["p_holm"] <= 1.0
        assert r["gain"] == (r["win"]["pooled"]["ci95"][0] > 0 and r["p_holm"] < findings.ALPHA)
    assert (tmp_path / "r" / "pocket-rules-table.csv").is_file()
    assert (tmp_path / "r" / "pocket-rules-ladder.png").is_file()


def test_under_other_rules_the_study_plays_nothing_and_says_why(tmp_path):
    from gnoming_sim.analyses.report import build_report
    from gnoming_sim.analyses.rules import PocketRules
    from gnoming_sim.game.rules import RuleConfig

    summary = build_report(tmp_path / "r", quick=True, studies=[PocketRules()], rules=RuleConfig(rotate_start=False))
    assert summary["studies"]["pocket_rules"]["games"] == 0
    assert "default rules and the published deck only" in summary["pocket_rules"]["skipped"]
    html = (tmp_path / "r" / "index.html").read_text(encoding="utf-8")
    assert "The ladder and the pocket rules are not available in this report" in html
