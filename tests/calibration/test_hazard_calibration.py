"""Calibration of the README's hazard answers (issue 31, item 11): the study's own procedure
on 20 independent replicates of the real simulation (~125 blind hazard draws per replicate under learned); each replicate's 95%
interval must cover the pooled estimate at a rate consistent with 95% (one-sided binomial test at 1%)."""
import pytest

from gnoming_sim.analyses.hazard_risk.study import HazardRisk

from .replicates import K, coverage

KEYS = ('hazard_risk.win_chance', 'hazard_risk.margin')


@pytest.mark.slow   # plays the study at 2400 games per design cell (2400 x its cells), then {K} analyses
def test_the_hazard_intervals_cover_the_pooled_estimate_at_95_percent():
    result = coverage(HazardRisk(), games=2400, seed=2024)
    assert set(KEYS) <= set(result), sorted(result)
    for key in KEYS:
        c = result[key]
        assert c.replicates == K, c
        assert c.consistent(), f"{key}: {c.covered} of {c.replicates} intervals cover the pooled {c.pooled:+.4f} (p = {c.pvalue:.4f})"
