"""The one ranking of options (gnoming_sim.search.criterion) on synthetic option estimates."""
from __future__ import annotations

import pytest

from gnoming_sim.search import criterion


def test_game_horizon_ranks_by_win_chance_not_own_points():
    # the example: finishing wins 49.5% against 41.0%, though playing on scores 4.9 own points fewer
    options = [{"key": "put at 7", "win": 0.410, "margin": -1.0, "points": 20.0},
               {"key": "finish", "win": 0.495, "margin": -5.4, "points": 24.9},
               {"key": "discard", "win": 0.300, "margin": 2.0, "points": 26.0}]
    assert [options[k]["key"] for k in criterion.order(options, "game")] == ["finish", "put at 7", "discard"]
    assert criterion.best(options, "game") == 1


def test_equal_win_chances_go_by_the_margin():
    options = [{"win": 0.0, "margin": 3.0}, {"win": 0.0, "margin": -2.0}, {"win": 0.0, "margin": 1.0}]
    assert criterion.order(options, "game") == [1, 2, 0]
    # equal to TIE_DIGITS decimals is equal; a real difference is not
    assert criterion.order([{"win": 0.5, "margin": 1.0}, {"win": 0.5 + 1e-12, "margin": 0.0}], "game") == [1, 0]
    assert criterion.order([{"win": 0.5, "margin": 1.0}, {"win": 0.5 + 1e-6, "margin": 9.0}], "game") == [1, 0]


def test_round_horizon_ranks_by_the_margin_over_the_rivals():
    options = [{"margin": 2.0, "points": 5.0}, {"margin": -1.0, "points": 9.0}]
    assert criterion.order(options, "round") == [1, 0]


def test_an_unknown_horizon_or_a_missing_win_chance_is_refused():
    with pytest.raises(ValueError):
        criterion.order([{"margin": 0.0}], "week")
    with pytest.raises(ValueError):
        criterion.order([{"margin": 0.0}], "game")


def test_every_ranking_command_imports_the_one_function():
    """analyse, review and the robustness check rank through criterion.order (no second ranking)."""
    import inspect

    from gnoming_sim.search import estimates, review, robust

    assert "criterion.order(" in inspect.getsource(estimates.summarize)
    assert '["rank"]' in inspect.getsource(review.grade) and '["rank"]' in inspect.getsource(robust.ranking)
