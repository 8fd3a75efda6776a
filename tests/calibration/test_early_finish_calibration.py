"""Calibration of the README's early finish answer (issue 31, item 11): the study's own procedure
on 20 independent replicates of the real simulation (~140 finishers per replicate at 4 players under the strong player); each replicate's 95%
interval must cover the pooled estimate at a rate consistent with 95% (one-sided binomial test at 1%)."""
import pytest

from gnoming_sim.analyses.early_finish.study import EarlyFinish

from .replicates import assert_calibrated

KEYS = ('early_finish.bonus_strong',)


@pytest.mark.slow   # plays the study once at 840 games per design cell, then analyses it 20 times
def test_the_early_finish_intervals_cover_the_pooled_estimate_at_95_percent():
    assert_calibrated(EarlyFinish(), 840, KEYS)
