"""The designers' balance figures: seat intervals stratified by the
rotation, house rules marked when the players never exercised them, and "changes most" said only when
the leader is separated from the runner-up."""
from __future__ import annotations

import numpy as np

from gnoming_sim.stats import Estimate, stratified_mean
from gnoming_sim.analyses.house_rules.study import _exercised, _rows, _separated
from gnoming_sim.experiments.compare import HOUSE_RULES, compare


def test_stratifying_by_the_rotation_removes_its_share_of_the_variance():
    rng = np.random.default_rng(5)
    game = np.arange(12_000)
    effect = np.array([-3.0, 0.0, 3.0, 0.0])[game % 4]       # who sits in the seat, fixed by game mod 4
    x = effect + rng.normal(0.0, 1.0, game.size)
    plain, strat = Estimate.of_mean(x), stratified_mean(x, game % 4)
    assert strat.mean == plain.mean
    # the within-stratum sd is 1: the stratified half-width is 1.96 / sqrt(n); the plain one counts the effect too
    assert abs(strat.half_width - 1.96 / np.sqrt(game.size)) < 0.1 * strat.half_width
    assert plain.half_width > 2 * strat.half_width


def test_stratified_mean_without_a_stratum_effect_is_the_plain_interval():
    x = np.random.default_rng(1).normal(0, 2, 4000)
    plain, strat = Estimate.of_mean(x), stratified_mean(x, np.arange(4000) % 3)
    assert abs(plain.half_width - strat.half_width) < 0.05 * plain.half_width


def test_a_rule_the_players_never_meet_is_marked_not_exercised():
    variants = [v for v in HOUSE_RULES if v.name in ("no reshuffle", "no bouncing")]
    c = compare(variants, 4, ("builder", "greedy", "rusher", "cautious"), 60, seed=2)
    rows = _rows(c)
    by_name = {r["variant"]: r for r in rows}
    assert by_name["no bouncing"]["exercised"]          # bouncing changes these players' games
    assert not by_name["no reshuffle"]["exercised"]      # no round of theirs empties the draw pile
    assert not _exercised(c, [v.name for v in c.variants].index("no reshuffle"))
    # a rule never exercised is never the one that "changes most", and a lone candidate has no runner-up
    lead, second, gap, _ = _separated(c, rows, "turns")
    assert lead["variant"] == "no bouncing" and second is None and gap is None


def test_changes_most_needs_a_separation_from_the_runner_up():
    variants = [v for v in HOUSE_RULES if v.name in ("no bouncing", "fixed start seat", "hazards unplaceable")]
    c = compare(variants, 4, ("builder", "greedy", "rusher", "cautious"), 200, seed=3)
    lead, second, gap, clear = _separated(c, _rows(c), "turns")
    assert lead["variant"] == "no bouncing" and second is not None
    assert clear and gap.lo > 0           # +6 turns against about 0: separated on 200 games
    # the paired gap is |change| of the leader minus the runner-up's, game by game
    base = c.values[0].turns
    d1 = c.values[lead["index"]].turns - base
    d2 = c.values[second["index"]].turns - base
    assert abs(gap.mean - (np.sign(d1.mean()) * d1 - np.sign(d2.mean()) * d2).mean()) < 1e-12
