"""The studies' estimators of ``gnoming_sim/stats.py`` and the ones written by hand outside it, each checked
against the library that computes the same thing, on random data: the stratified mean, t mean, bootstrap
mean and paired ratio difference, and ``experiments/compare.py``'s ratio of sums (``_ratio_terms``)."""
from __future__ import annotations

import math

import numpy as np
import pytest
from statsmodels.regression.linear_model import OLS, WLS
from scipy import stats as sps

from gnoming_sim import stats
from gnoming_sim.stats import bootstrap_mean, paired_ratio_difference, stratified_mean, t_mean
from gnoming_sim.experiments.compare import _ratio_terms, _se

SEEDS = range(5)


@pytest.mark.parametrize("seed", SEEDS)
def test_the_stratified_mean_is_ols_on_stratum_dummies_with_hc2_covariance(seed):
    """With one dummy per stratum, HC2's variance of a stratum's coefficient is its s_k^2 / n_k exactly, so the
    size-weighted contrast of the coefficients is the stratified mean with its within-stratum variance."""
    rng = np.random.default_rng(seed)
    strata = rng.integers(0, 4, 300)
    x = rng.normal(strata * 0.5, 1 + strata, 300)
    e = stratified_mean(x, strata)
    levels = np.unique(strata)
    X = (strata[:, None] == levels[None, :]).astype(float)
    fit = OLS(x, X).fit(cov_type="HC2")
    w = X.sum(axis=0) / x.size
    se = math.sqrt(float(w @ fit.cov_params() @ w))
    assert e.mean == pytest.approx(float(w @ fit.params), rel=1e-12)
    assert (e.hi - e.lo) / 2 == pytest.approx(stats.Z95 * se, rel=1e-9)


@pytest.mark.parametrize("seed", SEEDS)
def test_t_mean_is_scipys_t_interval(seed):
    x = np.random.default_rng(seed).exponential(2.0, 25)
    e = t_mean(x)
    lo, hi = sps.t.interval(0.95, x.size - 1, loc=x.mean(), scale=sps.sem(x))
    assert (e.mean, e.lo, e.hi, e.n) == pytest.approx((x.mean(), lo, hi, 25), rel=1e-12)


def test_the_bootstrap_mean_is_scipys_percentile_bootstrap_and_a_constant_sample_its_mean():
    x = np.random.default_rng(11).lognormal(0, 1, 200)
    e = bootstrap_mean(x, np.random.default_rng(1), replicates=4000)
    ci = sps.bootstrap((x,), np.mean, n_resamples=4000, method="percentile", rng=np.random.default_rng(1))
    assert (e.mean, e.lo, e.hi, e.n) == (x.mean(), ci.confidence_interval.low, ci.confidence_interval.high, 200)
    assert e.lo < x.mean() < e.hi
    assert bootstrap_mean(np.full(5, 2.0), np.random.default_rng(1)) == stats.Estimate(2.0, 2.0, 2.0, 5)


@pytest.mark.parametrize("seed", SEEDS)
def test_the_paired_ratio_difference_is_statsmodels_cluster_robust_wls(seed):
    """Two ratios of sums over the same clusters, stacked (one row per cluster and arm, an arm dummy, weights the
    trials, clustered by cluster): the dummy's coefficient is the difference, and its cluster-robust variance
    without the small-sample factor, times G / (G - 1), is the delta method's."""
    rng = np.random.default_rng(seed)
    g = 150
    m1, m2 = rng.integers(1, 6, g).astype(float), rng.integers(1, 6, g).astype(float)
    u = rng.normal(0, 0.15, g)
    y1 = rng.binomial(m1.astype(int), np.clip(0.55 + u, 0, 1)).astype(float)
    y2 = rng.binomial(m2.astype(int), np.clip(0.45 + u, 0, 1)).astype(float)
    e = paired_ratio_difference(y1, m1, y2, m2)
    share = np.r_[y1 / m1, y2 / m2]
    X = np.column_stack([np.ones(2 * g), np.r_[np.ones(g), np.zeros(g)]])
    fit = WLS(share, X, weights=np.r_[m1, m2]).fit(
        cov_type="cluster", cov_kwds={"groups": np.r_[np.arange(g), np.arange(g)], "use_correction": False})
    se = math.sqrt(fit.cov_params()[1, 1] * g / (g - 1))
    assert e.mean == pytest.approx(fit.params[1], rel=1e-10)
    assert (e.hi - e.lo) / 2 == pytest.approx(stats.Z95 * se, rel=1e-8)


@pytest.mark.parametrize("seed", SEEDS)
def test_compares_ratio_of_sums_is_statsmodels_cluster_robust_ratio(seed):
    """``compare``'s minus-5 share (a ratio of sums over games by the delta method) is
    :func:`gnoming_sim.stats.cluster_ratio` (statsmodels WLS, clustered by game)."""
    rng = np.random.default_rng(seed)
    den = rng.integers(0, 4, 500).astype(float)
    num = rng.binomial(den.astype(int), 0.6).astype(float)
    r, z = _ratio_terms(num, den)
    ratio, se, _ = stats.cluster_ratio(num, den)
    assert r == pytest.approx(ratio, rel=1e-12)
    assert _se(z) == pytest.approx(se, rel=1e-9)


@pytest.mark.parametrize("seed", SEEDS)
def test_the_hazard_rungs_ratio_difference_is_the_paired_ratio_difference_and_statsmodels(seed):
    """``hazard_risk.findings.ratio_difference`` (a rung's cost per drawn hazard minus another's on the same deals,
    the delta method over deals) is :func:`paired_ratio_difference` of its sums, hence statsmodels' (above)."""
    import pandas as pd

    from gnoming_sim.analyses.hazard_risk.findings import ratio_difference

    rng = np.random.default_rng(seed)
    g = 300

    def arm():
        return pd.DataFrame({"drawn": rng.random(g) < 0.3, "win_h": (rng.random(g) < 0.3).astype(float),
                             "win_o": (rng.random(g) < 0.35).astype(float)})

    a, b = arm(), arm()
    e = ratio_difference(a, b, "win")
    y = lambda f: ((f["win_h"].astype(float) - f["win_o"].astype(float)) * f["drawn"]).to_numpy()   # noqa: E731
    ref = paired_ratio_difference(y(a), a["drawn"].to_numpy(float), y(b), b["drawn"].to_numpy(float))
    assert (e.mean, e.lo, e.hi, e.n) == pytest.approx((ref.mean, ref.lo, ref.hi, ref.n), rel=1e-9)
