"""Calibration of the early-finish study's even-bet point: the Poisson bootstrap of
an isotonic curve's crossing (``finishing_crossing``) is a non-standard interval, so its coverage is checked
by simulation on a known curve, with rows clustered in games as in the study."""
import numpy as np
import pytest
from scipy.stats import binomtest

from gnoming_sim.stats import _cross, finishing_crossing


@pytest.mark.slow   # 200 simulated studies, 200 bootstrap replicates each (about 10 s)
def test_the_even_bet_interval_covers_the_true_crossing_at_about_95_percent():
    grid = np.arange(0, 11)
    truth = 1 / (1 + np.exp((grid - 3.4) / 1.5))            # P(earn the -5 | gap x), falling
    target, _ = _cross(grid, truth, 0.5)                    # the estimand: the crossing of the true curve's lines
    rng = np.random.default_rng(31)
    covered, sims = 0, 200
    for _ in range(sims):
        games = 500
        x = rng.integers(0, 11, size=3 * games)
        game_effect = np.repeat(rng.normal(0, 0.5, games), 3)   # a game's three rounds share their table
        p = 1 / (1 + np.exp((x - 3.4) / 1.5 - game_effect))
        earned = rng.random(x.size) < p
        c = finishing_crossing(x, earned, np.repeat(np.arange(games), 3), rng)
        covered += int(c is not None and c.point.lo <= target <= c.point.hi)
    rate = covered / sims
    assert binomtest(covered, sims, 0.95, alternative="less").pvalue >= 0.01, rate
    assert rate <= 0.995, rate    # and not so wide that it says nothing
