"""Calibration of the README's mulligan answers (issue 31, item 11): the study's own procedure
on 20 independent replicates of the real simulation (~150 paired deals per replicate under the strong player, 2 to 7 players); each replicate's 95%
interval must cover the pooled estimate at a rate consistent with 95% (one-sided binomial test at 1%)."""
import pytest

from gnoming_sim.analyses.mulligan_value.study import MulliganValue

from .replicates import assert_calibrated

KEYS = ('mulligan_value.win_chance', 'mulligan_value.margin')


@pytest.mark.slow   # plays the study once at 600 games per design cell, then analyses it 20 times
def test_the_mulligan_intervals_cover_the_pooled_estimate_at_95_percent():
    assert_calibrated(MulliganValue(), 600, KEYS)
