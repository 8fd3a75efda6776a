"""gnoming_sim.stats.eb_posterior_means (the review's shrunk losses): the nonparametric
empirical-Bayes posterior means against the oracle's (the posterior means under the true prior, exact by
scipy's normal density), for a normal prior (the closed form) and for a spike with a few large values."""
from __future__ import annotations

import numpy as np
import pytest
from scipy.stats import norm

from gnoming_sim import stats as S


def test_a_normal_truth_gives_the_normal_posterior_means():
    rng = np.random.default_rng(1)
    mu, tau, se = 0.04, 0.01, 0.02
    theta = rng.normal(mu, tau, 1000)
    x = theta + rng.normal(0, se, theta.size)
    got = S.eb_posterior_means(x, np.full(x.size, se))
    oracle = mu + tau ** 2 / (tau ** 2 + se ** 2) * (x - mu)     # the closed form under the true prior
    assert np.abs(got - oracle).mean() < 0.002, np.abs(got - oracle).mean()
    assert np.abs(got - theta).mean() < np.abs(x - theta).mean() * 0.6   # nearer the truth than the estimates


def test_a_spike_at_0_and_a_few_blunders_are_told_apart():
    """90% of the truths 0, 10% 8 pp: the posterior means match the oracle's two-point posterior, so a
    lone large estimate keeps most of its size and the noise around 0 is shrunk to about 0."""
    rng = np.random.default_rng(2)
    se = 0.02
    theta = np.where(rng.random(500) < 0.1, 0.08, 0.0)
    x = theta + rng.normal(0, se, theta.size)
    got = S.eb_posterior_means(x, np.full(x.size, se))
    w = 0.1 * norm.pdf(x, 0.08, se) / (0.1 * norm.pdf(x, 0.08, se) + 0.9 * norm.pdf(x, 0.0, se))
    oracle = 0.08 * w
    assert np.abs(got - oracle).mean() < 0.003, np.abs(got - oracle).mean()
    assert got[theta == 0].mean() < 0.005 and got[theta > 0].mean() > 0.06


def test_the_truth_is_at_least_the_lower_bound_and_a_single_estimate_is_its_own():
    x = np.array([-0.05, -0.01, 0.0, 0.02, 0.15])
    got = S.eb_posterior_means(x, np.full(x.size, 0.02))
    assert (got >= 0).all() and got[-1] > 0.1
    assert S.eb_posterior_means([0.03], [0.02])[0] == pytest.approx(0.03)
    assert S.eb_posterior_means([-0.03], [0.02])[0] == 0.0
    assert S.eb_posterior_means([], []).size == 0
    exact = S.eb_posterior_means([0.05, -0.01, 0.0, 0.01], [0.0, 0.02, 0.02, 0.02])
    assert exact[0] == 0.05 and (exact >= 0).all()


def test_bad_input_is_refused():
    with pytest.raises(ValueError):
        S.eb_posterior_means([0.1, 0.2], [0.01])
    with pytest.raises(ValueError):
        S.eb_posterior_means([0.1, float("nan")], [0.01, 0.01])
    with pytest.raises(ValueError):
        S.eb_posterior_means([0.1, 0.2], [0.01, -0.01])
