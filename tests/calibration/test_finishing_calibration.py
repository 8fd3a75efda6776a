"""Calibration of the README's finishing answer: the answer's own procedure
(``finish_play_on.findings.ladder``: the mean over decisions, one per game, of finish minus the best play-on in
the chance of winning by the strong player's rollouts, with its t interval; checked equal to the study's
``analyse`` on the whole) on 60 independent replicates of the real simulation (~20 finishing chances per
replicate).  Each replicate's 95% interval must cover the pooled estimate, and a planted effect (each
decision's difference negated by a fair coin, then a fixed effect of about 5 replicate standard errors added), at a rate consistent with
95% (one-sided binomial test at 1%: 52 of 60 or fewer fails; power 82% against intervals 30% too narrow,
tests/calibration/replicates.py)."""
import pytest

from gnoming_sim.analyses.finish_play_on import boundary, findings
from gnoming_sim.analyses.finish_play_on.design import BASE_POLICY
from gnoming_sim.analyses.finish_play_on.study import FinishPlayOn

from .replicates import assert_calibrated, calibrate, concluded, flip_sign, play, same

KEYS = ('finish_play_on.win_difference',)
TRUTH = {KEYS[0]: -0.20}   # the planted effect: about 5 replicate standard errors (0.041 at 20 decisions)
COLUMN = f"win_{BASE_POLICY}"
RULE_REPLICATES = 50   # the finish rule's bootstraps in the one whole analyse, not the answer calibrated here


def answer(data) -> dict:
    return {KEYS[0]: findings.ladder(findings.headline_columns(data["decisions"]))["win"]["by_rung"][BASE_POLICY]}


def plant(data, rng, truth) -> dict:
    dec = data["decisions"].copy()
    dec[COLUMN] = flip_sign(dec[COLUMN], rng, truth[KEYS[0]])
    return {**data, "decisions": dec}


@pytest.mark.slow   # plays the study once at 60 games per design cell (1,200 finishing chances, rolled out)
def test_the_finishing_intervals_cover_the_pooled_estimate_and_a_planted_effect_at_95_percent(monkeypatch):
    study = FinishPlayOn()
    ctx, tables, data = play(study, 60)
    # the whole analyse bootstraps the finish rule and the rungs' crossings; the win difference does not read them
    rule_table, crossings = boundary.rule_table, findings.crossing_differences
    monkeypatch.setattr(boundary, "rule_table", lambda dec, rung, rng, sizes, replicates=400, *a, **k: rule_table(
        dec, rung, rng, sizes, min(replicates, RULE_REPLICATES), *a, **k))
    monkeypatch.setattr(findings, "crossing_differences", lambda rows, rng, replicates=1000: crossings(
        rows, rng, min(replicates, RULE_REPLICATES)))
    assert same(answer(data)[KEYS[0]], concluded(study, ctx, tables, data)[KEYS[0]])
    assert_calibrated(calibrate(data, answer, plant, seed=51, truth=TRUTH), KEYS)
