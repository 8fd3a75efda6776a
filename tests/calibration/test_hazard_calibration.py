"""Calibration of the README's hazard answers (issue 31, item 11): the study's own procedure
on 20 independent replicates of the real simulation (~60 blind hazard draws per replicate under the strong player); each replicate's 95%
interval must cover the pooled estimate at a rate consistent with 95% (one-sided binomial test at 1%)."""
import pytest

from gnoming_sim.analyses.hazard_risk.study import HazardRisk

from .replicates import assert_calibrated

KEYS = ('hazard_risk.win_chance', 'hazard_risk.margin')


@pytest.mark.slow   # plays the study once at 1200 games per design cell, then analyses it 20 times
def test_the_hazard_intervals_cover_the_pooled_estimate_at_95_percent():
    assert_calibrated(HazardRisk(), 1200, KEYS)
