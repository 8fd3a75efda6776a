"""gnoming_sim.stats: every function against its library or an exact value, and the old hand-written
copies (Holm, Wilson) against the library calls that replace them."""
from __future__ import annotations

import math

import numpy as np
import pytest
from scipy.stats import norm

from gnoming_sim import stats as S


def _holm_by_hand(p, alpha=0.05):
    """The step-down as it was written three times before the statsmodels call replaced it."""
    order = np.argsort(p, kind="stable")
    keep = [False] * len(p)
    for rank, i in enumerate(order):
        if p[i] > alpha / (len(p) - rank):
            break
        keep[int(i)] = True
    return keep


def test_holm_matches_the_hand_written_step_down_and_statsmodels(monkeypatch):
    import gc

    from statsmodels.stats.multitest import multipletests

    # statsmodels' Holm collects garbage on every call (S.holm's docstring), 40-150 ms each with the kernels
    # loaded: skipped here, where only its answer is compared
    monkeypatch.setattr(gc, "collect", lambda *args, **kwargs: 0)
    rng = np.random.default_rng(3)
    for _ in range(300):
        m = int(rng.integers(1, 25))
        p = list(np.concatenate([rng.uniform(0, 0.01, m // 3), rng.uniform(0, 1, m - m // 3)]))
        assert S.holm(p) == _holm_by_hand(p)
        assert S.holm(p) == [bool(r) for r in multipletests(np.array(p), alpha=0.05, method="holm")[0]]
    assert S.holm([0.6, 0.001, 0.04, 0.01]) == [False, True, False, True]
    assert S.holm([0.03, 0.03]) == [False, False] and S.holm([]) == []


def test_bh_known_values():
    # 0.01 <= 0.05 * 1/4, 0.02 <= 0.05 * 2/4, 0.03 <= 0.05 * 3/4: the step-up keeps the first three
    reject, adjusted = S.bh([0.01, 0.02, 0.03, 0.5])
    assert reject == [True, True, True, False]
    assert adjusted == pytest.approx([0.04, 0.04, 0.04, 0.5])
    assert S.bh([0.04, 0.9], rate=0.05)[0] == [False, False]   # 0.04 > 0.05 / 2
    assert S.bh([float("nan"), 0.0001])[0] == [False, True]    # untestable: kept, never rejected


def test_wilson_many_is_wilson_at_every_element():
    from statsmodels.stats.proportion import proportion_confint

    k = np.array([0, 1, 7, 10, 3, 400, 0])
    n = np.array([1, 10, 10, 10, 400, 400, 3])
    p, lo, hi = S.wilson_many(k, n)
    for i in range(k.size):   # exactly: the same library call, the same clipping at 0 and 1
        assert (p[i], lo[i], hi[i]) == S.wilson(int(k[i]), int(n[i]))
        if 0 < k[i] < n[i]:   # and the library's own scalar answer (wilson is built on wilson_many)
            assert (lo[i], hi[i]) == proportion_confint(int(k[i]), int(n[i]), alpha=S.alpha_of(S.Z95), method="wilson")
    assert (lo[0], hi[3]) == (0.0, 1.0)
    with pytest.raises(ValueError):
        S.wilson_many([1], [0])
    with pytest.raises(ValueError):
        S.wilson_many([5], [4])


def test_wilson_is_the_libraries_at_exactly_196():
    from statsmodels.stats.proportion import proportion_confint

    assert norm.isf(S.alpha_of(1.96) / 2) == 1.96
    for k, n in [(8, 10), (2.5, 10), (1, 400), (399, 400)]:
        p, lo, hi = S.wilson(k, n)
        assert (lo, hi) == pytest.approx(proportion_confint(k, n, alpha=0.05, method="wilson"), abs=1e-4)
    # the textbook formula at z = 1.96, computed by hand
    p, z = 0.8, 1.96
    centre = (p + z * z / 20) / (1 + z * z / 10)
    half = z * math.sqrt(p * (1 - p) / 10 + z * z / 400) / (1 + z * z / 10)
    assert S.wilson(8, 10)[1:] == pytest.approx((centre - half, centre + half), rel=1e-15)


def test_mean_ci_t_uses_the_t_quantile():
    x = [1.0, 2.0, 3.0, 4.0, 5.0]
    m, lo, hi, n = S.mean_ci_t(x)
    assert (m, n) == (3.0, 5)
    assert hi - m == pytest.approx(2.7764451051977987 * math.sqrt(2.5 / 5), rel=1e-12)   # t(0.975, 4)
    assert math.isnan(S.mean_ci_t([1.0])[1])


def test_cluster_mean_is_the_sandwich_of_cluster_sums():
    rng = np.random.default_rng(1)
    g = np.repeat(np.arange(30), 4)
    y = rng.normal(size=30)[g] + rng.normal(size=g.size)
    got = S.cluster_mean(y, g)
    # the cluster-robust variance of a mean with statsmodels' small-sample factor G/(G-1) (N-1)/(N-K)
    u = np.bincount(g, weights=y - y.mean())
    G, N = 30, y.size
    se = math.sqrt(G / (G - 1) * (N - 1) / (N - 1) * float(u @ u)) / N
    assert got["mean"] == pytest.approx(y.mean()) and got["se"] == pytest.approx(se, rel=1e-10)
    assert got["clusters"] == 30 and got["ci95"][0] < got["mean"] < got["ci95"][1]


def test_cluster_ratio_is_the_delta_method_ratio_interval():
    rng = np.random.default_rng(4)
    m = rng.integers(0, 6, 200).astype(float)          # trials per cluster, some clusters with none
    y = rng.binomial(m.astype(int), 0.3) * 1.0
    y[:5] = y[:5] / 2                                   # shared wins: fractional successes
    p, se, g = S.cluster_ratio(y, m)
    want = y.sum() / m.sum()
    var = 200 / 199 * float(np.sum((y - want * m) ** 2)) / m.sum() ** 2
    assert p == pytest.approx(want, rel=1e-12) and se == pytest.approx(math.sqrt(var), rel=1e-10) and g == 200


def test_the_studies_clustered_share_is_statsmodels_cluster_robust_wls():
    from gnoming_sim.stats import clustered_share

    rng = np.random.default_rng(5)
    for _ in range(20):
        m = rng.integers(0, 8, int(rng.integers(2, 800))).astype(float)
        m[0] = 1.0
        y = rng.binomial(m.astype(int), rng.uniform(0.05, 0.9)) * 1.0
        e = clustered_share(y, m)
        p, se, g = S.cluster_ratio(y, m)
        assert (e.mean, e.n) == (pytest.approx(p, rel=1e-12), g)
        assert e.hi - e.mean == pytest.approx(1.96 * se, rel=1e-12)


def test_tost_equals_statsmodels_ttost_paired():
    from statsmodels.stats.weightstats import ttost_paired

    rng = np.random.default_rng(2)
    a, b = rng.normal(0.1, 1, 80), rng.normal(0, 1, 80)
    d = a - b
    se = d.std(ddof=1) / math.sqrt(d.size)
    for target in (0.2, 0.5, 1.0):
        want = ttost_paired(a, b, -target, target)[0]
        assert S.tost(float(d.mean()), float(se), target, df=d.size - 1) == pytest.approx(want, rel=1e-10)


def test_equivalence_words():
    assert S.equivalence_word(0.1, -0.2, 0.4, target=1.0) == S.HOLDS        # well inside +-1
    assert S.equivalence_word(2.0, 1.5, 2.5, target=1.0) == S.DIFFERS       # outside and away from 0
    ci = 1.96 * 0.3                                                          # se 0.3: 91% power at +-1
    assert S.equivalence_word(0.55, 0.55 - ci, 0.55 + ci, target=1.0) == S.NOT_SHOWN   # straddles 0 and the target
    assert S.equivalence_word(2.0, 1.5, 2.5) == S.DIFFERS
    assert S.equivalence_word(0.0, -3.0, 3.0) == S.NOT_SHOWN
    assert S.equivalence_word(float("nan"), 0, 1) == S.NOT_SHOWN
    # "holds" is TOST at 5%: the 90% interval inside +-target, a little wider than the 95% one allows
    se = 0.5
    edge = 1.0 - norm.isf(0.05) * se
    assert S.equivalence_word(edge - 1e-6, edge - 1e-6 - 1.96 * se, edge - 1e-6 + 1.96 * se, 1.0, power_needed=0) == S.HOLDS
    assert S.equivalence_word(edge + 1e-3, edge + 1e-3 - 1.96 * se, edge + 1e-3 + 1.96 * se, 1.0,
                              power_needed=0) == S.NOT_SHOWN


def test_an_equivalence_test_without_power_gives_no_word():
    # se 0.5 at +-1 has no power (the largest estimate that could pass, 1 - 1.645 * 0.5 = 0.18, is
    # reached by chance 25% of the time): neither "holds" nor "differs" nor "not shown" is said, whatever the data
    se = 0.5
    assert S.tost_power(se, 1.0) == pytest.approx(2 * norm.cdf(1.0 / se - norm.isf(0.05)) - 1, rel=1e-12)
    for mean in (0.0, 0.1, 2.0, -3.0):
        assert S.equivalence_word(mean, mean - 1.96 * se, mean + 1.96 * se, 1.0) == S.NOT_TESTED
    # the margin with 80% power, and the word given there
    m = S.tost_margin_for_power(se)
    assert S.tost_power(se, m) == pytest.approx(0.80, abs=1e-9)
    assert S.equivalence_word(0.0, -1.96 * se, 1.96 * se, m * 1.001) == S.HOLDS
    assert S.equivalence_word(0.0, -1.96 * se, 1.96 * se, m * 0.999) == S.NOT_TESTED
    assert S.tost_power(se, 0.8) == 0.0                 # 0.8 < 1.645 * 0.5: no estimate could pass
    assert S.tost_power(0.0, 1.0) == 1.0 and S.tost_power(float("nan"), 1.0) == 0.0


def test_tost_power_is_the_rate_at_which_tost_passes():
    # by simulation: estimates drawn around the truth with this se, each tested by tost at 5%
    rng = np.random.default_rng(5)
    se, target = 0.4, 1.2
    for truth in (0.0, 0.3, -0.5):
        est = rng.normal(truth, se, 1500)
        passes = np.mean([S.tost(float(x), se, target) < 0.05 for x in est[:1500]])
        want = S.tost_power(se, target, true_value=truth)
        assert abs(passes - want) < 4 * math.sqrt(want * (1 - want) / 1500) + 1e-3, (truth, passes, want)


def test_p_of_interval():
    assert S.p_of_interval(1.96, 0.0, 3.92) == pytest.approx(2 * norm.sf(1.96), rel=1e-12)
    assert S.p_of_interval(1.0, 1.0, 1.0) == 0.0 and S.p_of_interval(0.0, 0.0, 0.0) == 1.0


def test_sums_match_the_sample_functions():
    x = np.array([3, -1, 4, 1, -5, 9, 2, 6])
    assert S.mean_ci_from_sums(x.size, int(x.sum()), int((x * x).sum())) == pytest.approx(S.mean_ci(x))
    num, den = np.array([1, 2, 0, 3.0]), np.array([2, 2, 1, 4.0])
    r, lo, hi = S.ratio_ci_from_sums(4, num.sum(), den.sum(), (num ** 2).sum(), (den ** 2).sum(), (num * den).sum())
    u = num - r * den   # the same delta-method interval from the per-unit residuals
    assert r == 6 / 9 and hi - r == pytest.approx(1.96 * math.sqrt(4 / 3 * (u @ u)) / 9)


def test_heterogeneity_against_known_values():
    # three estimates 0, 1, 2 with se 1: Q = 2 on 2 df, and chi-square(2) has sf(2) = exp(-1)
    h = S.heterogeneity([0.0, 1.0, 2.0], [-1.96, -0.96, 0.04], [1.96, 2.96, 3.96])
    assert (h.q, h.df) == (pytest.approx(2.0, rel=1e-12), 2)
    assert h.p == pytest.approx(math.exp(-1), rel=1e-9) and h.agree
    # Cochran's Q by hand against scipy's chi-square, on unequal standard errors
    from scipy.stats import chi2

    x, se = np.array([0.3, -0.1, 0.8, 0.2]), np.array([0.2, 0.1, 0.3, 0.25])
    w = 1 / se ** 2
    q = float(np.sum(w * (x - np.sum(w * x) / w.sum()) ** 2))
    h = S.heterogeneity(x, x - 1.96 * se, x + 1.96 * se)
    assert h.q == pytest.approx(q, rel=1e-10) and h.p == pytest.approx(chi2.sf(q, 3), rel=1e-9)
    # nothing to test with one part; a zero-width part is left out
    assert S.heterogeneity([1.0], [0.5], [1.5]).agree
    assert S.heterogeneity([1.0, 2.0, 9.0], [0.5, 1.5, 9.0], [1.5, 2.5, 9.0]).df == 1


def test_heterogeneity_of_the_audited_mulligan_answer_says_the_sizes_differ():
    """The mulligan answer (+0.7 pp, learned) pools 2 to 7 players whose values are
    -2.4, +0.6, +2.2, +0.5, +1.8, +1.6 pp (the committed report's intervals): Q = 35 on 5 df."""
    m = [-2.35, 0.58, 2.21, 0.49, 1.75, 1.58]
    lo = [-3.62, -0.65, 1.00, -0.61, 0.76, 0.56]
    hi = [-1.09, 1.81, 3.43, 1.60, 2.75, 2.59]
    h = S.heterogeneity(m, lo, hi)
    assert h.df == 5 and 34 < h.q < 36 and h.p < 1e-5 and not h.agree
