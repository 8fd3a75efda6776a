"""The calibration suite's own machinery: replicates split by game keep a deal's arms together;
the criterion's power against intervals 30% too narrow is computed (binomial) and at least 80%; and simulated
suites show that honest intervals pass it while intervals 30% too narrow and a biased estimator fail it at the
computed rates."""
import math

import numpy as np
import pandas as pd
import pytest

from gnoming_sim.stats import Estimate

from .replicates import (ALPHA, K, NARROW, Coverage, calibrate, coverage_of, critical, flip_pairs, flip_sign,
                         part_of, passes, power)

Z = 1.959963984540054
SUITES = 4000   # simulated suites of K replicates each (a few tenths of a second)


def test_a_part_keeps_every_frame_s_rows_of_its_games_and_nothing_else():
    arms = {"a": pd.DataFrame({"game": np.arange(100), "x": 1.0}),
            "b": pd.DataFrame({"game": np.arange(100)[::-1], "y": 2.0}),
            "meta": pd.DataFrame({"what": ["kept whole"]}), "rollouts": 7}
    parts = [part_of(arms, 20, r) for r in range(20)]
    assert sorted(g for p in parts for g in p["a"]["game"]) == list(range(100))
    for r, p in enumerate(parts):
        assert set(p["a"]["game"]) == set(p["b"]["game"]) == {g for g in range(100) if g % 20 == r}
        assert len(p["meta"]) == 1 and p["rollouts"] == 7


def test_the_criterion_has_at_least_80_percent_power_against_intervals_30_percent_too_narrow():
    """At K = 60 and a one-sided binomial test at 1%, 52 covers or fewer fail.  Intervals 30% too narrow cover
    83.0% of the time and fail with probability 82.3% (covering a pooled estimate of 60 replicates, 83.4%:
    80.3%); a one-standard-error bias also covers 83.0% (82.3%); honest intervals fail 1.0% of the time."""
    assert K >= 60 and ALPHA == 0.01
    assert critical() == 52 and not passes(52) and passes(53)
    assert math.isclose(coverage_of(NARROW), 0.8299, abs_tol=1e-4)
    assert power(coverage_of(NARROW)) >= 0.80
    assert power(coverage_of(bias_se=1.0)) >= 0.80
    pooled = lambda s: 2 * float(__import__("scipy.stats").stats.norm.cdf(Z * s / math.sqrt(1 - 1 / K))) - 1
    assert power(pooled(NARROW)) >= 0.80 and power(pooled(1.0)) <= ALPHA
    assert power(coverage_of()) <= ALPHA


def _suites(rng, scale=1.0, bias_se=0.0, n=200):
    """Covers of a known truth (0) by ``SUITES`` x ``K`` intervals of the mean of ``n`` normal values, drawn
    exactly (mean ~ N(0, 1/n), variance ~ chi2(n-1)/(n-1)), the interval ``scale`` times the honest normal one
    and its centre off by ``bias_se`` of its standard errors."""
    mean = rng.normal(0.0, 1 / math.sqrt(n), (SUITES, K))
    se = np.sqrt(rng.chisquare(n - 1, (SUITES, K)) / (n - 1) / n)
    centre = mean + bias_se * se
    return (np.abs(centre) <= scale * Z * se).sum(axis=1)


@pytest.mark.parametrize("scale, bias_se, fail_at_least, fail_at_most", [
    (1.0, 0.0, 0.0, 0.03),        # honest: fails about 1% of the time
    (NARROW, 0.0, 0.78, 0.87),    # 30% too narrow: fails 82.3% of the time
    (1.0, 1.0, 0.78, 0.87),       # biased by a standard error: fails 82.3%
    (0.5, 0.0, 0.99, 1.0)])       # half as wide: always fails
def test_simulated_suites_fail_narrow_and_biased_intervals_at_the_computed_rate(scale, bias_se, fail_at_least,
                                                                              fail_at_most):
    covers = _suites(np.random.default_rng(51), scale, bias_se)
    fail = float(np.mean(covers <= critical()))
    assert fail_at_least <= fail <= fail_at_most, fail
    predicted = power(coverage_of(scale, bias_se))
    assert abs(fail - predicted) < 4 * math.sqrt(predicted * (1 - predicted) / SUITES) + 0.01, (fail, predicted)


def _answer(scale=1.0, bias=0.0):
    """An answer procedure on a frame of paired values: the mean difference with its normal interval, its
    interval scaled by ``scale`` and its estimate off by ``bias`` (a deliberately wrong procedure)."""
    def answer(data):
        e = Estimate.of_paired(data["rows"]["a"], data["rows"]["b"])
        half = scale * (e.hi - e.lo) / 2
        m = e.mean + bias
        return {"x": Estimate(m, m - half, m + half, e.n)}
    return answer


def _plant(data, rng, truth):
    return {"rows": flip_pairs(data["rows"], rng, (("a", "b"),), {"a": truth["x"]})}


def _data(seed=7, games=60 * 200):
    rng = np.random.default_rng(seed)
    a = rng.normal(0.3, 1.0, games)
    return {"rows": pd.DataFrame({"game": np.arange(games), "a": a, "b": 0.5 * a + rng.normal(0.0, 1.0, games)})}


def test_the_suite_passes_an_honest_procedure_and_fails_a_half_width_one_and_a_biased_one():
    """One suite through :func:`calibrate` (200 pairs per replicate): the honest procedure passes both checks;
    intervals half as wide fail both (power 99.98%); an estimate off by two standard errors passes the pooled
    check (the whole is off too: a bias cannot show there) and fails the planted one (power 99.7%)."""
    data = _data()
    se = float(np.std(data["rows"]["a"] - data["rows"]["b"], ddof=1)) / math.sqrt(200)
    honest = {c.what: c for c in calibrate(data, _answer(), _plant, seed=1)}
    assert honest["pooled"].consistent() and honest["planted"].consistent()
    narrow = {c.what: c for c in calibrate(data, _answer(scale=0.5), _plant, seed=1)}
    assert not narrow["pooled"].consistent() and not narrow["planted"].consistent()
    biased = {c.what: c for c in calibrate(data, _answer(bias=2 * se), _plant, seed=1)}
    assert biased["pooled"].consistent() and not biased["planted"].consistent()
    assert power(coverage_of(bias_se=2.0)) > 0.99 and power(coverage_of(0.5)) > 0.99


def test_a_flip_plants_exactly_its_truth():
    rng = np.random.default_rng(3)
    rows = pd.DataFrame({"game": np.arange(20_000), "a": rng.normal(5, 1, 20_000), "b": rng.normal(1, 1, 20_000)})
    planted = flip_pairs(rows, rng, (("a", "b"),), {"a": 0.25})
    assert abs(float((planted["a"] - planted["b"]).mean()) - 0.25) < 0.06       # was 4: the arms' effect is gone
    assert np.allclose(np.sort(np.r_[planted["a"] - 0.25, planted["b"]]), np.sort(np.r_[rows["a"], rows["b"]]))
    assert abs(float(flip_sign(np.full(20_000, 3.0), rng, 0.5).mean()) - 0.5) < 0.06


def test_a_coverage_line_says_what_it_covered():
    c = Coverage("x", 0.1, 55, 60, 200.0, "planted")
    assert c.consistent() and "planted +0.1000" in c.line() and "55 of 60" in c.line()
    assert not Coverage("x", 0.1, 52, 60, 200.0).consistent()
