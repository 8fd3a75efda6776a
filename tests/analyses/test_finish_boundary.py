"""The finish rule: a monotone fit of finish - play on in the gap, its zero crossing
with a bootstrap over games, and the check that refuses a number contradicting its own bins or missing the
+-1 point target.  Synthetic data with known answers, pinned seeds; and the one definition of the gap."""
from __future__ import annotations

import math

import pytest
import numpy as np
import pandas as pd

from gnoming_sim.analyses.finish_play_on.boundary import (NO_NUMBER, band_of, contradictions, crossing,
                                                          finish_rule, fit_boundary, gap_bins, monotone_fit,
                                                          rule_table)
from gnoming_sim.stats import Estimate
from gnoming_sim.game.cards import HIDDEN, MULLIGAN


def _data(rng, n, root=2.5, slope=0.02, sd=0.1, lo=-15, hi=20):
    gap = rng.integers(lo, hi + 1, n)
    return gap, slope * (root - gap) + rng.normal(0, sd, n)


def test_the_monotone_fit_never_rises_and_fills_empty_gaps():
    grid, fit = monotone_fit([0, 0, 2, 5, 5], [1.0, 0.0, 2.0, -1.0, -3.0])
    assert list(grid) == [0, 1, 2, 3, 4, 5]
    assert np.all(np.diff(fit) <= 1e-12)
    assert fit[-1] == -2.0 and math.isclose(fit[0], (0.5 * 2 + 2.0) / 3)   # gaps 0 and 2 pooled


def test_crossing_is_interpolated_and_infinite_off_the_grid():
    grid = np.arange(-2, 3)
    assert crossing(grid, np.array([2.0, 1.0, 0.5, -0.5, -1.0])) == (0.5, 0)
    assert crossing(grid, -np.ones(5))[0] == -math.inf
    assert crossing(grid, np.ones(5))[0] == math.inf


def test_a_known_crossing_is_recovered_and_printed_as_a_number():
    gap, y = _data(np.random.default_rng(11), 6000)
    r = finish_rule(gap, y, np.arange(gap.size), np.random.default_rng(1), replicates=300)
    b = r["boundary"]
    assert b.point.lo <= 2.5 <= b.point.hi and abs(b.point.mean - 2.5) < 0.6
    assert b.at_most == 2 and not b.open and b.half_width <= 1.0
    assert r["numeric"] and not r["contradicts"]
    assert r["text"].startswith("finish when your gap is at most +2")


@pytest.mark.slow   # a calibration by simulation
def test_the_interval_covers_the_crossing_at_about_95_percent():
    # 60 pinned data sets of 3,000 decisions: accept 50..60 hits (nominal 57)
    rng = np.random.default_rng(5)
    hits = 0
    for _ in range(60):
        gap, y = _data(rng, 3000, root=1.3)
        b = fit_boundary(gap, y, np.arange(gap.size), rng, replicates=200)
        hits += b.point.lo <= 1.3 <= b.point.hi
    assert 50 <= hits <= 60, hits


def test_a_rule_contradicting_a_significant_bin_is_refused():
    # finishing pays up to gap 0 and again, clearly, at gaps 6..7: the pooled fit crosses once, and the
    # 6..7 bin lies on the play-on side with an interval above 0
    rng = np.random.default_rng(3)
    gap = rng.integers(-10, 16, 8000)
    y = np.where(gap <= 0, 0.08, -0.08) + np.where((gap >= 6) & (gap <= 7), 0.25, 0.0) + rng.normal(0, 0.05, gap.size)
    r = finish_rule(gap, y, np.arange(gap.size), np.random.default_rng(0), replicates=200)
    assert "6..7" in r["contradicts"]
    assert not r["numeric"] and r["text"].startswith(NO_NUMBER)


def test_contradictions_read_only_significant_bins_wholly_on_one_side():
    def b(lo, hi, m, h):
        return {"lo": lo, "hi": hi, "bin": f"{lo}..{hi}", "win": Estimate(m, m - h, m + h, 50)}

    bins = [b(-4, -3, 0.03, 0.02), b(-2, -1, -0.05, 0.02), b(0, 1, 0.05, 0.01), b(2, 3, 0.03, 0.02),
            b(4, 5, 0.01, 0.02)]
    # the old 4-player rule (finish at gap <= -4): bins above it where finishing is significantly better
    assert contradictions(bins, -4) == ["0..1", "2..3"]
    assert contradictions(bins, 3) == ["-2..-1"]               # finishing significantly worse on the finish side
    assert contradictions(bins, 0) == ["-2..-1", "2..3"]       # 0..1 holds gaps on both sides: not held against it
    assert contradictions(bins[4:], 0) == []                 # not significant: never counts


def test_a_boundary_missing_the_target_gives_no_single_number():
    gap, y = _data(np.random.default_rng(2), 300, slope=0.005, sd=0.3)
    r = finish_rule(gap, y, np.arange(gap.size), np.random.default_rng(0), replicates=200)
    assert not r["meets_target"] and not r["numeric"] and r["text"].startswith(NO_NUMBER)
    assert r["bins"] and all(c["n"] >= 2 for c in r["bins"])


def test_the_bootstrap_is_clustered_by_game():
    # every game's decision copied 8 times: as independent rows the interval would shrink about 3-fold
    gap, y = _data(np.random.default_rng(4), 500, sd=0.2)
    g8, y8, games = np.repeat(gap, 8), np.repeat(y, 8), np.repeat(np.arange(gap.size), 8)
    one = fit_boundary(gap, y, np.arange(gap.size), np.random.default_rng(0), replicates=300)
    clustered = fit_boundary(g8, y8, games, np.random.default_rng(0), replicates=300)
    naive = fit_boundary(g8, y8, np.arange(g8.size), np.random.default_rng(0), replicates=300)
    width = lambda b: b.point.hi - b.point.lo   # noqa: E731
    assert width(naive) < 0.7 * width(clustered)
    assert 0.6 < width(clustered) / width(one) < 1.6


def test_gap_bins_are_two_gaps_wide_with_open_tails():
    bins = gap_bins(np.array([-20, -12, -11, 0, 1, 30]), np.zeros(6), min_n=1)
    assert [c["bin"] for c in bins] == ["<=-13", "-12..-11", "0..1", ">=12"]


def test_the_table_has_every_size_and_band_of_the_closest_rival():
    rng = np.random.default_rng(7)
    n = 1200
    gap, y = _data(rng, n)
    frame = pd.DataFrame({"players": rng.choice([3, 4], n), "gap": gap, "win_learned": y, "preset": "greedy",
                          "game": np.arange(n), "others_face_down_min": rng.integers(1, 6, n)})
    table = rule_table(frame, "learned", rng, (3, 4), replicates=50)
    assert [(t["players"], t["band"]) for t in table] == [(p, b) for p in (3, 4) for b in ("all", "1", "2", "3+")]
    for t in table:
        at = frame[frame["players"] == t["players"]]
        if t["band"] != "all":
            at = at[band_of(at["others_face_down_min"]) == t["band"]]
        assert t["n"] == len(at)


# ----------------------------------------------------------------- one gap
def test_the_gap_counts_the_card_in_hand_and_is_shared():
    from gnoming_sim.kernel.policy.card import finish_gap

    # me: 6 6 6 / 3 4 5 / -1 H M; the 10 in hand on H: -6 + 12 - 1 + 10 = 15
    # rival 1: 2 H H / H H H / H H H (visible 2); rival 2: 7 7 7 / 1 H H / H H H (visible -7 + 1 = -6)
    vis = np.full((3, 9), HIDDEN, dtype=np.int8)
    vis[0] = [6, 6, 6, 3, 4, 5, -1, HIDDEN, MULLIGAN]
    vis[1, 0] = 2
    vis[2, :4] = [7, 7, 7, 1]
    assert finish_gap(vis, 0, 3, 7, 10, 1, 10, 0, 1) == 15 - (-6)
    assert finish_gap(vis, 0, 3, 7, 5, 1, 10, 0, 1) == 10 - (-6)    # a 5: 3 4 5 / -1 5 M no line; +5 instead of +10


@pytest.mark.parametrize("order", [(0.3, -0.1, -0.2), (-0.2, 0.3, -0.1)])
def test_a_gap_whose_mean_is_exactly_0_counts_as_0_not_as_its_float_rounding(order):
    """Finishing neither wins nor loses at gap 0 (its decisions' values sum to 0 in decimal, to
    -2.8e-17 in floats): the rule is "at most 0" and the crossing is 0, not "at most -1" off a fit of -9e-18."""
    gap = np.repeat([-2, -1, 0, 1, 2], 3)
    y = np.concatenate([[0.2, 0.3, 0.1], [0.1, 0.05, 0.15], order, [-0.1, -0.2, 0.0], [-0.3, -0.2, -0.25]])
    assert np.float64(sum(order)) != 0.0                  # the float sum is not 0: the case the rule used to trip on
    grid, fit = monotone_fit(gap, y)
    assert fit[list(grid).index(0)] == 0.0
    assert crossing(grid, fit) == (0.0, 0)
    b = fit_boundary(gap, y, np.arange(gap.size), np.random.default_rng(3), replicates=50)
    assert b.at_most == 0 and b.point.mean == 0.0


def test_only_values_within_a_millionth_of_a_standard_error_are_snapped_to_0():
    gap = np.repeat([0, 1], 50)
    y = np.concatenate([np.full(50, 1e-4), np.full(50, -1.0)])   # 1e-4 at gap 0 is far above the tolerance
    _, fit = monotone_fit(gap, y)
    assert fit[0] > 0 and fit[1] == -1.0
