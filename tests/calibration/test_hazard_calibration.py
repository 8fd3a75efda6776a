"""Calibration of the README's hazard answers (issue 31, item 11): the study's own procedure
on 20 independent replicates of the real simulation (~60 blind hazard draws per replicate under learned); each replicate's 95%
interval must cover the pooled estimate at a rate consistent with 95% (one-sided binomial test at 1%)."""
import pytest

from gnoming_sim.analyses.hazard_risk.study import HazardRisk

from .replicates import K, coverage

KEYS = ('hazard_risk.win_chance', 'hazard_risk.margin')


@pytest.mark.slow   # plays the study once at 1200 games per design cell, then analyses it 20 times
def test_the_hazard_intervals_cover_the_pooled_estimate_at_95_percent():
    result = coverage(HazardRisk(), games=1200, seed=2024)
    assert set(KEYS) <= set(result), sorted(result)
    for key in KEYS:
        c = result[key]
        assert c.replicates == K, c
        assert c.consistent(), f"{key}: {c.covered} of {c.replicates} intervals cover the pooled {c.pooled:+.4f} (p = {c.pvalue:.4f})"
