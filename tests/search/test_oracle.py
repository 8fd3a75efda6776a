"""The oracle (gnoming_sim.search.oracle): one base player, one criterion, options valued on common rollouts."""
import numpy as np
import pytest

from gnoming_sim.game.errors import GnomingError
from gnoming_sim.game.position import from_toml
from gnoming_sim.search import criterion, oracle
from gnoming_sim.search.analyse import DEFAULT_POLICY

POS = from_toml("examples/position.toml")


def test_the_oracle_is_the_strongest_fast_player_ranked_by_win_chance():
    assert oracle.BASE == "net" == DEFAULT_POLICY
    assert oracle.HORIZON == "game" and oracle.CRITERION == criterion.CRITERION["game"]


def test_a_subset_of_options_is_valued_on_the_very_rollouts_of_the_whole_set():
    keys, whole = oracle.win_samples(POS, rollouts=24, seed=3)
    part_keys, part = oracle.win_samples(POS, ["discard", "pos1"], rollouts=24, seed=3)
    assert part_keys == ["discard", "pos1"]
    np.testing.assert_array_equal(part, whole[:, [keys.index("discard"), keys.index("pos1")]])


def test_values_rank_by_win_chance():
    res = oracle.values(POS, ["pos1", "discard"], rollouts=40, seed=1)
    assert res["horizon"] == "game" and [r["key"] for r in res["options"]] == ["pos1", "discard"]
    best = max(res["options"], key=lambda r: r["mean"])
    assert best["best"]


def test_seats_with_puts_the_strategy_in_the_seat_to_move_only():
    seats = oracle.seats_with(POS, "card")
    assert seats[POS.me] == "card" and seats.count("net") == POS.players - 1


def test_an_option_that_is_not_legal_is_one_sentence():
    with pytest.raises(GnomingError, match="not a legal option here: pile7"):
        oracle.values(POS, ["pile7"], rollouts=4)
