"""Calibration of the README's finishing answer (issue 31, item 11): the study's own procedure
on 20 independent replicates of the real simulation (~40 finishing chances per replicate, the strong player's rollouts); each replicate's 95%
interval must cover the pooled estimate at a rate consistent with 95% (one-sided binomial test at 1%)."""
import pytest

from gnoming_sim.analyses.finish_play_on import analysis, boundary
from gnoming_sim.analyses.finish_play_on.study import FinishPlayOn

from .replicates import assert_calibrated

KEYS = ('finish_play_on.win_difference',)
RULE_REPLICATES = 50   # the finish rule's bootstraps, not the answer calibrated here (the study: 1,000)


@pytest.mark.slow   # plays the study once at 40 games per design cell, then analyses it 20 times
def test_the_finishing_intervals_cover_the_pooled_estimate_at_95_percent(monkeypatch):
    # each of the 21 analyses bootstraps the finish rule and the rungs' crossings (a third of this test's time);
    # the win difference's interval does not read them, so they run at fewer replicates here
    rule_table, crossings = boundary.rule_table, analysis.crossing_differences
    monkeypatch.setattr(boundary, "rule_table", lambda dec, rung, rng, sizes, replicates=400, *a, **k: rule_table(
        dec, rung, rng, sizes, min(replicates, RULE_REPLICATES), *a, **k))
    monkeypatch.setattr(analysis, "crossing_differences", lambda rows, rng, replicates=1000: crossings(
        rows, rng, min(replicates, RULE_REPLICATES)))
    assert_calibrated(FinishPlayOn(), 40, KEYS)
