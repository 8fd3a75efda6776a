"""Calibration of the README's early finish answer (issue 31, item 11): the study's own procedure
on 20 independent replicates of the real simulation (~140 finishers per replicate at 4 players under learned); each replicate's 95%
interval must cover the pooled estimate at a rate consistent with 95% (one-sided binomial test at 1%)."""
import pytest

from gnoming_sim.analyses.early_finish.study import EarlyFinish

from .replicates import K, coverage

KEYS = ('early_finish.bonus_learned',)


@pytest.mark.slow   # plays the study once at 840 games per design cell, then analyses it 20 times
def test_the_early_finish_intervals_cover_the_pooled_estimate_at_95_percent():
    result = coverage(EarlyFinish(), games=840, seed=2024)
    assert set(KEYS) <= set(result), sorted(result)
    for key in KEYS:
        c = result[key]
        assert c.replicates == K, c
        assert c.consistent(), f"{key}: {c.covered} of {c.replicates} intervals cover the pooled {c.pooled:+.4f} (p = {c.pvalue:.4f})"
