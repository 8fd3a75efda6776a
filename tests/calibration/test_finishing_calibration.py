"""Calibration of the README's finishing answer (issue 31, item 11): the study's own procedure
on 20 independent replicates of the real simulation (~40 finishing chances per replicate, the strong player's rollouts); each replicate's 95%
interval must cover the pooled estimate at a rate consistent with 95% (one-sided binomial test at 1%)."""
import pytest

from gnoming_sim.analyses.finish_play_on.study import FinishPlayOn

from .replicates import assert_calibrated

KEYS = ('finish_play_on.win_difference',)


@pytest.mark.slow   # plays the study once at 40 games per design cell, then analyses it 20 times
def test_the_finishing_intervals_cover_the_pooled_estimate_at_95_percent():
    assert_calibrated(FinishPlayOn(), 40, KEYS)
