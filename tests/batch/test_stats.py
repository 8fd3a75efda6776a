"""stats: interval estimates against values computed by hand."""
from __future__ import annotations

import math

import numpy as np
import pytest

from gnoming_sim.stats import mean_ci, paired_diff_ci, wilson


def test_mean_ci_known_values():
    # mean 3, sample sd sqrt(2.5), n 5: half-width 1.96 * sqrt(2.5 / 5)
    mean, lo, hi, n = mean_ci([1, 2, 3, 4, 5])
    half = 1.96 * math.sqrt(0.5)
    assert (mean, n) == (3.0, 5)
    assert lo == pytest.approx(3 - half, abs=1e-12)
    assert hi == pytest.approx(3 + half, abs=1e-12)


def test_mean_ci_constant_sample_has_zero_width():
    assert mean_ci([7, 7, 7]) == (7.0, 7.0, 7.0, 3)


def test_mean_ci_single_value_collapses():
    assert mean_ci([4.5]) == (4.5, 4.5, 4.5, 1)


def test_mean_ci_empty_is_nan():
    mean, lo, hi, n = mean_ci([])
    assert n == 0 and math.isnan(mean) and math.isnan(lo) and math.isnan(hi)


def test_wilson_known_value():
    # 8 of 10: the textbook Wilson 95% interval is [0.4902, 0.9433]
    p, lo, hi = wilson(8, 10)
    assert p == 0.8
    assert lo == pytest.approx(0.4902, abs=1e-4)
    assert hi == pytest.approx(0.9433, abs=1e-4)


def test_wilson_half():
    # 50 of 100: symmetric around 0.5, [0.4038, 0.5962]
    p, lo, hi = wilson(50, 100)
    assert p == 0.5
    assert lo == pytest.approx(0.4038, abs=1e-4)
    assert hi == pytest.approx(0.5962, abs=1e-4)
    assert lo + hi == pytest.approx(1.0)


def test_wilson_extremes_stay_in_unit_interval():
    p, lo, hi = wilson(0, 20)
    assert (p, lo) == (0.0, 0.0) and 0 < hi < 0.2
    p, lo, hi = wilson(20, 20)
    assert (p, hi) == (1.0, 1.0) and 0.8 < lo < 1
    for n in range(1, 400):   # exact, not rounded just inside: the interval must contain p
        assert wilson(0, n)[1] == 0.0 and wilson(n, n)[2] == 1.0


def test_wilson_fractional_successes():
    # shared wins are credited 1/k: 2.5 of 10 lies between 2 and 3 of 10
    p, lo, hi = wilson(2.5, 10)
    assert p == 0.25
    assert wilson(2, 10)[1] < lo < wilson(3, 10)[1]
    assert wilson(2, 10)[2] < hi < wilson(3, 10)[2]


def test_wilson_rejects_impossible_counts():
    with pytest.raises(ValueError):
        wilson(11, 10)
    assert all(math.isnan(v) for v in wilson(0, 0))


def test_paired_diff_ci_is_mean_ci_of_differences():
    a = [10, 12, 9, 11]
    b = [9, 10, 9, 8]
    assert paired_diff_ci(a, b) == mean_ci([1, 2, 0, 3])


def test_paired_diff_ci_requires_equal_lengths():
    with pytest.raises(ValueError):
        paired_diff_ci([1, 2], [1])


@pytest.mark.parametrize("ones, n", [(0, 40), (1, 40), (17, 40), (40, 40)])
def test_analyse_shares_are_the_one_wilson_interval(ones, n):
    """analyse's P(finish) / P(-bonus) / P(lowest) use stats.wilson, boundary fixes included."""
    from gnoming_sim.search.estimates import proportion

    x = np.zeros(n, dtype=bool)
    x[:ones] = True
    got = proportion(x)
    p, lo, hi = wilson(ones, n)
    assert got == {"p": p, "ci95": [lo, hi], "n": n}
    assert 0.0 <= got["ci95"][0] <= p <= got["ci95"][1] <= 1.0
    assert (got["ci95"][0] == 0.0) == (ones == 0) and (got["ci95"][1] == 1.0) == (ones == n)
