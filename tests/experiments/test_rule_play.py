"""A rule played (experiments.rule_play): one seat following given card cells and net elsewhere, against net in
that seat, paired by deal.  No cell set: the same games twice, a difference of exactly 0 on every deal; a bad rule
(finish at every chance) loses clearly; the counted games are the games simulate plays."""
import numpy as np
import pytest

from gnoming_sim.experiments import rule_play
from gnoming_sim.game.errors import GnomingError
from gnoming_sim.kernel.engine import simulate
from gnoming_sim.kernel.policy import card as C
from gnoming_sim.kernel.policy import registry

FINISH = {C.CELL_OFFSET[C.T_FINISH] + i: C.A_FINISH for i in range(C.N_FINISH_CELLS)}


def test_no_cell_set_is_net_on_every_deal():
    out = rule_play.play_rule({}, players=3, deals=120, seed=2)
    per = out["per_deal"]
    assert not per["win"].any() and not per["margin"].any() and not per["applied"].any()
    assert out["win"]["mean"] == 0.0 and out["win"]["ci95"] == [0.0, 0.0] and out["win"]["n"] == 120
    assert out["decisions"]["mean"] == 0.0 and out["win"]["unit"] == "pp" and out["margin"]["unit"] == "points"


def test_the_counted_games_are_the_games_simulate_plays():
    rule = registry.net_with_cells(FINISH, name="always-finish")
    net = registry.get("net")
    res, counts = rule_play._play(4, [rule, net, net, net], 40, 5, rule_play.RULE_FIRST, None)
    sim = simulate(4, [rule, net, net, net], games=40, seed=5, first_game=rule_play.RULE_FIRST, rotate=True)
    assert np.array_equal(res.totals, sim.totals) and np.array_equal(res.win_credit, sim.win_credit)
    assert np.array_equal(res.seat_strategy, sim.seat_strategy)
    assert (counts[:, 1] <= counts[:, 0]).all() and counts[:, 0].sum() > 0
    same = (res.totals == simulate(4, [net], games=40, seed=5, first_game=rule_play.RULE_FIRST).totals).all(axis=1)
    assert (counts[same, 1] >= 0).all() and (counts[~same, 1] > 0).all()   # a changed game had a changed answer


def test_finishing_at_every_chance_loses_clearly_at_4_players():
    out = rule_play.play_rule(FINISH, players=4, deals=200, seed=1)
    assert out["win"]["ci95"][1] < -2.0, out["win"]          # pp of win chance per game
    assert out["margin"]["ci95"][0] > 0.0, out["margin"]     # it scores more than net in its seat
    assert 0.3 < out["decisions"]["mean"] <= out["applied"]["mean"] < 4.0
    assert out["win_per_decision"]["ci95"][1] < 0.0
    zero = out["per_deal"]["changed"] == 0
    assert zero.any() and not out["per_deal"]["win"][zero].any()   # no changed answer: the same game


def test_bad_input_is_refused():
    with pytest.raises(GnomingError, match="deals"):
        rule_play.play_rule({}, players=4, deals=1)
    with pytest.raises(GnomingError, match="unknown cell"):
        rule_play.play_rule({"chart.x": 1}, players=4, deals=10)
