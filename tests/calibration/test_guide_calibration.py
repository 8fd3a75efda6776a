"""Calibration of the README's guide answer (issue 31, item 11): the guide study's own procedure
(``experiments.chart_check.versus_expert_each``: the card among three experts against experts alone on the same
deals, rotated, a t interval over deals) on 20 independent replicates of the real simulation (each its own
range of deals, 60 deals at 4 players); each replicate's 95% interval must cover the pooled estimate at a rate
consistent with 95% (one-sided binomial test at 1%)."""
import pytest

from gnoming_sim.experiments.chart_check import CHECK_FIRST, versus_expert_each

from .replicates import K, Coverage


@pytest.mark.slow   # 20 x 60 deals x 4 rotations x 2 tables of fast players
def test_the_guide_intervals_cover_the_pooled_estimate_at_95_percent():
    deals = 60
    reps = [versus_expert_each(("card",), 4, deals, seed=2024, first_game=CHECK_FIRST + r * deals * 4)[0]["diff"]
            for r in range(K)]
    pooled = sum(d["mean"] for d in reps) / K          # equal deals per replicate
    covered = sum(int(d["ci95"][0] <= pooled <= d["ci95"][1]) for d in reps)
    c = Coverage("guide.card_vs_expert", pooled, covered, K, deals)
    assert all(d["n"] == deals for d in reps)
    assert c.consistent(), f"{covered} of {K} intervals cover the pooled {pooled:+.3f} (p = {c.pvalue:.4f})"
