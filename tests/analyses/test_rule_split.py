"""A rule chosen on one half of its decisions and valued on the other (analyses/framework/rule_split.py), as the
finishing study's threshold rule uses it (framework/finish_threshold.py): a planted best threshold is recovered with
a regret of about 0; a family whose best choice flips with a feature the simple rule ignores prints no single
number; the value on fresh decisions is unbiased where the value on the decisions the rule was chosen on flatters
it (a calibration by simulation)."""
from __future__ import annotations

import numpy as np
import pandas as pd

from gnoming_sim.analyses.framework import finish_threshold as th
from gnoming_sim.analyses.framework import rule_split as select


def _finishing(n: int, seed: int, effect) -> pd.DataFrame:
    """Synthetic finishing decisions: ``effect(gap, band)`` the true finish - play-on (probability); the observed
    value is a win credit difference in {-1, 0, 1} with that mean."""
    rng = np.random.default_rng(seed)
    gap = rng.integers(-20, 21, n)
    fd = rng.integers(1, 5, n)
    p = np.clip(effect(gap, fd), -0.9, 0.9)
    y = np.where(rng.random(n) < np.abs(p), np.sign(p), 0.0)
    return pd.DataFrame({"players": rng.integers(3, 7, n), "gap": gap, "others_face_down_min": fd,
                         "game": np.arange(n), "preset": "net", "win_net": y})


def test_a_planted_threshold_is_recovered_with_no_regret():
    dec = _finishing(8000, 1, lambda g, f: np.where(g <= 4, 0.25, -0.25))
    r = th.threshold_rule(dec)
    assert r["printed"] and r["shape"] == "one threshold"
    assert set(r["thresholds"].values()) == {4} and r["rule"] == "finish iff gap <= 4"
    assert abs(r["regret"]["mean"]) < 0.2 and r["regret"]["ci95"][1] < 0.2
    assert r["value"]["ci95"][0] > 0 and r["same_on_the_other_half"]


def test_a_family_with_no_good_rule_prints_no_single_number():
    # finishing pays a lot with the closest rival on 1 face-down card and costs as much with 3 or more, at every
    # gap: no threshold in the gap alone comes near the best rule by band
    dec = _finishing(8000, 2, lambda g, f: np.where(f == 1, 0.4, np.where(f >= 3, -0.4, 0.0)))
    r = th.threshold_rule(dec)
    assert not r["printed"] and r["regret"]["ci95"][0] > 0.2


def test_the_fresh_half_is_unbiased_where_the_same_half_flatters():
    # 30 rules, all truly worth 0: the best on the data it was chosen on looks good; on fresh decisions it is 0
    rng = np.random.default_rng(5)
    fresh, same = [], []
    for _ in range(300):
        gain = rng.normal(0.0, 5.0, (200, 30))
        half = np.arange(200) % 2 == 0
        fit = select.fresh_value(gain, np.zeros(200, dtype=int), half)
        fresh.append(fit.value.mean)
        same.append(select.same_data_value(gain, np.zeros(200, dtype=int)))
    fresh, same = np.array(fresh), np.array(same)
    se = fresh.std(ddof=1) / np.sqrt(fresh.size)
    assert abs(fresh.mean()) < 3 * se                  # unbiased
    assert same.mean() > 0.5 and same.mean() > fresh.mean() + 10 * se   # flattering: about E[max of 30] * 5/sqrt(200)


def test_the_split_is_by_game_and_stable():
    games = np.repeat(np.arange(50), 3)
    h = select.halves(games)
    assert all(len(set(h[games == g])) == 1 for g in range(50))   # a game's decisions on one side
    assert np.array_equal(h, select.halves(games)) and 10 < h[::3].sum() < 40


def test_choose_takes_the_best_column_per_group_and_ties_to_the_first():
    gain = np.array([[0.0, 1.0, 1.0], [0.0, 1.0, 1.0], [2.0, 0.0, 0.0], [2.0, 0.0, 0.0]])
    groups = np.array(["a", "a", "b", "b"], dtype=object)
    assert select.choose(gain, groups, np.ones(4, bool)) == {"a": 1, "b": 0}
    assert select.choose(gain, groups, np.ones(4, bool), prefer=[2, 1, 0]) == {"a": 2, "b": 0}
