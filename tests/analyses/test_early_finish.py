"""The early-finish study: curves clustered by game, rule labels analytic and Holm-corrected over the
rule table, half-open even-bet intervals, P(bonus) along the ladder on the same deals (paired), on
synthetic frames with known answers, and the design's ladder tables."""
from __future__ import annotations

import math

import numpy as np
import pandas as pd
import pytest

from gnoming_sim.analyses.early_finish.findings import _holm_labels, _rule, clustered_curve, half_open
from gnoming_sim.stats import Crossing, Estimate, crossing_label, holm, paired_ratio_difference


def _rounds(rng, games=400, slope=0.08, cut=5.0, game_effect=0.0):
    """Three finished rounds per game, P(bonus) falling through 1/2 at ``cut``; ``game_effect`` makes a
    game's rounds alike (a shared shift of the log-odds)."""
    rows = []
    for g in range(games):
        shift = rng.normal(0, game_effect)
        for r in range(3):
            x = int(rng.integers(-5, 16))
            p = 1 / (1 + math.exp(-(slope * 10 * (cut - x) / 5 + shift)))
            rows.append({"players": 4, "game": g, "round": r, "score": x, "earned": bool(rng.random() < p)})
    return pd.DataFrame(rows)


def test_curves_are_clustered_by_game():
    # rounds of a game alike: the clustered interval is wider than the Wilson one over rounds would be,
    # and n counts games
    frame = _rounds(np.random.default_rng(1), games=600, game_effect=2.0).assign(score=0)
    (key, e), = clustered_curve(frame, ["players", "score"], 10)
    assert key == (4, 0) and e.n == 600
    wilson = Estimate.of_share(int(frame["earned"].sum()), len(frame))
    assert math.isclose(e.mean, wilson.mean) and e.half_width > 1.2 * wilson.half_width


def test_paired_ratio_difference_is_paired_and_covers():
    rng = np.random.default_rng(3)   # pinned: 300 sets of 300 deals; 95% nominal, accept 92..98%
    hits = 0
    for _ in range(300):
        m = rng.integers(1, 4, 300).astype(float)
        base = rng.random(300)
        y1 = rng.binomial(m.astype(int), np.clip(base, 0, 1) * 0.8 + 0.1)
        y2 = rng.binomial(m.astype(int), np.clip(base, 0, 1) * 0.8 + 0.05)
        d = paired_ratio_difference(y1, m, y2, m)
        hits += d.lo <= 0.05 <= d.hi
    assert 0.92 <= hits / 300 <= 0.98


def test_rule_labels_are_analytic_and_holm_corrected():
    rng = np.random.default_rng(5)
    frame = _rounds(rng, games=3000)
    r = {"players": 4, "strategy": "greedy", **_rule(frame, "score", rng, replicates=50)}
    c = r["score_rule"]
    assert c is not None and c.at_most in (4, 5)
    e_at, e_next, p = crossing_label(frame["score"], frame["earned"], frame["game"], c.at_most)
    assert c.p_at == e_at and c.p_next == e_next and math.isclose(r["score_p"], p)
    # the label does not depend on the bootstrap: the same with another seed and replicate count
    again = _rule(frame, "score", np.random.default_rng(99), replicates=20)
    assert again["score_p"] == r["score_p"]
    # in a family of one it is clear; among 48 weak rules with p = 0.01 each, only p <= 0.05 / 48 survive
    _holm_labels([r])
    assert r["score_rule"].clear == (p <= 0.05)
    weak = [{"score_rule": c, "score_p": 0.01} for _ in range(48)]
    _holm_labels(weak)
    assert not any(w["score_rule"].clear for w in weak)
    assert holm([0.001, 0.03, 0.04]) == [True, False, False] and holm([0.001, 0.02, 0.04]) == [True, True, True]


def test_open_intervals_print_half_open():
    point = Estimate(3.0, -5.0, 6.5, 100)
    c = Crossing(3, False, point, point, point, True)
    assert half_open(c, (-5, 12)) == "(\u2212\u221e, 6.5]"
    assert half_open(Crossing(3, False, Estimate(3.0, 1.0, 12.0, 100), point, point, True), (-5, 12)) == "[1.0, \u221e)"
    assert half_open(Crossing(3, True, Estimate(3.0, 1.0, 4.0, 100), point, point, False), (-5, 12)) == "[1.0, 4.0]"


def test_the_design_plays_the_ladder_on_the_mix_deals():
    from gnoming_sim.analyses.early_finish import EarlyFinish
    from gnoming_sim.analyses.early_finish.design import arm
    from gnoming_sim.analyses.framework.design import STRONG_LADDER
    from gnoming_sim.analyses.framework.study import Context

    tables = EarlyFinish().design(Context())
    for p in (2, 4, 7):
        mix = [t for t in tables if t.players == p and arm(t) == "mix"]
        for rung in STRONG_LADDER:
            ladder = [t for t in tables if t.players == p and arm(t) == rung]
            assert len(ladder) == len(mix) and all(set(t.seats) == {rung} for t in ladder)
            for lt, mt in zip(ladder, mix):   # the first game numbers of every lineup's own deals
                assert lt.first_game == mt.first_game and 0 < lt.games < mt.games


@pytest.mark.slow   # plays a quick study (seconds once compiled), under the suite's warnings-as-errors
def test_quick_study_states_p_bonus_along_the_ladder(tmp_path):
    from gnoming_sim.analyses.early_finish import EarlyFinish
    from gnoming_sim.analyses.framework.design import SECOND, STRONG
    from gnoming_sim.analyses.framework.study import RUNGS, Context, play_study

    run = play_study(EarlyFinish(), Context(quick=True, seed=3))
    ladder = run.result.summary["bonus_by_rung"]
    assert set(ladder) == {"2", "3", "4", "5", "6", "7"}
    for cell in ladder.values():
        assert set(cell) == {*RUNGS, f"{SECOND}-mix", f"{STRONG}-mix", f"{STRONG}-{SECOND}"}
        n = {e["n"] for e in cell.values()}
        assert len(n) == 1   # every rung and difference on the same deals
        for e in cell.values():
            assert e["ci95"][0] <= e["mean"] <= e["ci95"][1]
    est = run.result.estimands["early_finish_bonus"]["4_players"]
    assert set(est["players"]) == set(RUNGS)
    answer, = run.result.answers
    assert answer.key == "early_finish.bonus_strong" and answer.convergence and STRONG in answer.holds_under
    sized = [p for p in run.result.precision if p.what.startswith("P(bonus) at one table size")]
    assert len(sized) == 4 and all(p.target == 0.01 for p in sized)


def test_crossing_label_at_a_value_without_rows_reads_the_carried_block():
    # no rows at score 5: the fit there is carried from 4, and so are its rows
    x = np.array([3] * 40 + [4] * 40 + [6] * 40)
    earned = np.array([True] * 36 + [False] * 4 + [True] * 30 + [False] * 10 + [False] * 36 + [True] * 4)
    e_at, e_next, p = crossing_label(x, earned, np.arange(x.size), 5)
    assert e_at.n > 0 and math.isfinite(e_at.mean) and math.isclose(e_at.mean, 30 / 40)
    assert math.isclose(e_next.mean, 4 / 40) and 0 <= p <= 1
