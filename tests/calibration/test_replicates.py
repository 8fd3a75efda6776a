"""The calibration suite's own machinery: replicates split by game keep a deal's arms together, and the
coverage test refuses intervals that are too narrow."""
import numpy as np
import pandas as pd
import pytest

from gnoming_sim.analyses.framework.estimates import Estimate

from .replicates import Coverage, part_of


def test_a_part_keeps_every_frame_s_rows_of_its_games_and_nothing_else():
    arms = {"a": pd.DataFrame({"game": np.arange(100), "x": 1.0}),
            "b": pd.DataFrame({"game": np.arange(100)[::-1], "y": 2.0}),
            "meta": pd.DataFrame({"what": ["kept whole"]}), "rollouts": 7}
    parts = [part_of(arms, 20, r) for r in range(20)]
    assert sorted(g for p in parts for g in p["a"]["game"]) == list(range(100))
    for r, p in enumerate(parts):
        assert set(p["a"]["game"]) == set(p["b"]["game"]) == {g for g in range(100) if g % 20 == r}
        assert len(p["meta"]) == 1 and p["rollouts"] == 7


@pytest.mark.parametrize("scale, consistent", [(1.0, True), (0.5, False)])
def test_the_coverage_test_passes_honest_intervals_and_refuses_half_width_ones(scale, consistent):
    """Normal samples with known mean 0: honest 95% intervals cover 0 about 95% of the time; intervals half
    as wide cover it about 68% of the time, which the binomial test refuses (40 replicates, fixed seed)."""
    rng = np.random.default_rng(5)
    covered = 0
    for _ in range(40):
        e = Estimate.of_mean(rng.normal(0.0, 1.0, 200))
        half = scale * (e.hi - e.lo) / 2
        covered += int(e.mean - half <= 0.0 <= e.mean + half)
    assert Coverage("x", 0.0, covered, 40, 200).consistent() is consistent
