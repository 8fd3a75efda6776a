"""The summary's unit of independence is the game: a strategy in several seats of
a game counts once per game, and every interval is over games."""
from __future__ import annotations

import numpy as np
import pytest

from gnoming_sim import PUBLISHED, RuleConfig
from gnoming_sim.stats import mean_ci, wilson
from gnoming_sim.batch.summary import Tally, build_summary, format_table
from gnoming_sim.game import fields as F


def _stats(totals: np.ndarray) -> np.ndarray:
    """round_stats whose game totals are ``totals`` (G, P), all in round 0."""
    g, p = totals.shape
    stats = np.zeros((g, 3, p, F.N_FIELDS), dtype=np.int32)
    stats[:, 0, :, F.F_SCORE] = totals
    return stats


def _summary(totals, seat_strategy, credit, names=("a", "b")):
    tally = Tally(names, totals.shape[1])
    tally.add(_stats(totals), seat_strategy, credit)
    return build_summary(tally, seed=0, rules=RuleConfig(), deck=PUBLISHED, wall_s=1.0)


def test_two_seats_that_always_agree_are_one_sample_per_game():
    """Strategy a holds seats 0 and 1, which score the same in every game: a seat-counted interval
    would be sqrt(2) too narrow; the per-game one is the interval of the per-game values."""
    rng = np.random.default_rng(5)
    per_game = rng.integers(-20, 60, size=400)
    totals = np.stack([per_game, per_game, rng.integers(-20, 60, size=400)], axis=1)
    seat_strategy = np.tile([0, 0, 1], (400, 1))
    credit = np.tile([0.0, 0.0, 1.0], (400, 1))
    a = _summary(totals, seat_strategy, credit)["by_strategy"]["a"]
    mean, lo, hi, n = mean_ci(per_game)
    assert (a["n_games"], a["n_seats_played"]) == (400, 800)
    assert a["mean_game_score"] == pytest.approx(mean) and a["ci95"] == pytest.approx([lo, hi])


def test_win_share_is_per_game_credit_averaged_over_the_seats():
    totals = np.array([[1, 2, 3], [5, 1, 2], [3, 3, 1], [1, 1, 9]])
    seat_strategy = np.tile([0, 0, 1], (4, 1))
    credit = np.array([[1, 0, 0], [0, 1, 0], [0, 0, 1], [0.5, 0.5, 0]])
    s = _summary(totals, seat_strategy, credit)["by_strategy"]
    assert s["a"]["win_share"] == 0.375 and s["b"]["win_share"] == 0.25   # a seat of a wins 3 in 8
    _, lo, hi, _ = mean_ci([0.5, 0.5, 0, 0.5])
    assert s["a"]["win_ci95"] == pytest.approx([lo, hi])


def test_self_play_win_share_is_exactly_one_in_players_without_a_fake_interval():
    totals = np.arange(40).reshape(10, 4)
    credit = np.tile([1.0, 0, 0, 0], (10, 1))
    s = _summary(totals, np.zeros((10, 4), dtype=int), credit, names=("a",))["by_strategy"]["a"]
    assert s["win_share"] == 0.25 and s["win_ci95"] == [0.25, 0.25]


def test_a_strategy_that_never_won_gets_wilson_not_a_zero_width_interval():
    totals = np.tile([9, 1], (30, 1))
    s = _summary(totals, np.tile([0, 1], (30, 1)), np.tile([0.0, 1.0], (30, 1)))["by_strategy"]
    assert s["a"]["win_share"] == 0.0
    assert s["a"]["win_ci95"] == pytest.approx(list(wilson(0, 30)[1:]))
    assert s["a"]["win_ci95"][1] > 0.05


def test_a_rare_winner_in_one_seat_gets_the_wilson_interval_inside_0_1():
    """simulate --players 6 with a random seat among heuristics once printed [-4.8e-05, 0.000148]."""
    games = 20_000
    credit = np.zeros((games, 2))
    credit[:, 1] = 1.0
    credit[7] = [1.0, 0.0]                     # a wins one game in 20,000
    s = _summary(np.tile([9, 1], (games, 1)), np.tile([0, 1], (games, 1)), credit)["by_strategy"]
    assert s["a"]["win_share"] == pytest.approx(1 / games)
    assert s["a"]["win_ci95"] == pytest.approx(list(wilson(1, games)[1:]))
    assert 0 < s["a"]["win_ci95"][0] < 1 / games < s["a"]["win_ci95"][1]


def test_stall_share_and_warning():
    tally = Tally(("a",), 2)
    stats = _stats(np.zeros((100, 2), dtype=int))
    stats[:2, 0, :, F.F_STALLED] = 1          # 2 of 300 rounds: under 1%, no warning
    tally.add(stats, np.zeros((100, 2), dtype=int), np.full((100, 2), 0.5))
    s = build_summary(tally, seed=0, rules=RuleConfig(), deck=PUBLISHED, wall_s=1.0)
    assert s["stalled_share"] == pytest.approx(2 / 300) and "warning" not in s
    stats[:, 1, :, F.F_STALLED] = 1           # then 102 more of 300
    tally.add(stats, np.zeros((100, 2), dtype=int), np.full((100, 2), 0.5))
    s = build_summary(tally, seed=0, rules=RuleConfig(), deck=PUBLISHED, wall_s=1.0)
    assert s["stalled_share"] == pytest.approx(104 / 600)
    assert s["warning"].startswith("104 of 600 rounds stalled (17.3%)")
    text = format_table(s)
    assert "rounds 600 (stalled 104, 17.3%)" in text and "WARNING: 104 of 600 rounds stalled" in text


def test_table_headers_say_what_and_which_way():
    totals = np.array([[10, 20], [30, 5]])
    text = format_table(_summary(totals, np.array([[0, 1], [1, 0]]), np.array([[1.0, 0], [0, 1.0]])))
    header = next(line for line in text.splitlines() if line.startswith("strategy"))
    units = text.splitlines()[text.splitlines().index(header) + 1]
    for column in ("games", "game score", "win share", "finish rate", "bonus rate", "turns/round"):
        assert column in header
    for unit in ("(3 rounds, lower=better)", "(of games)", "(of its rounds)", "(own, per seat)"):
        assert unit in units
