"""The Monte Carlo player ``mc``: its games are reproducible at any thread count, its rollouts
change its play, and the registry describes and builds it (that it sees only what a player sees:
tests/kernel/test_information_hygiene.py)."""
import numpy as np
import pytest

from gnoming_sim.game.errors import GnomingError
from gnoming_sim.kernel.engine import simulate
from gnoming_sim.kernel.policy import registry
from gnoming_sim.kernel.policy.dispatch import KIND_MC, M_BUDGET


def test_mc_games_are_identical_at_one_and_two_threads():
    kw = dict(players=4, strategies=["mc", "expert", "builder", "mc"], games=6, seed=3, rotate=True, trace=True)
    one = simulate(threads=1, **kw)
    two = simulate(threads=2, **kw)
    np.testing.assert_array_equal(one.round_stats, two.round_stats)
    for a, b in zip(one.traces, two.traces):
        np.testing.assert_array_equal(a, b)


def test_mc_plays_differently_from_its_base_policy():
    deals = simulate(players=4, strategies=["expert"], games=6, seed=5, trace=True).deals
    mc = simulate(players=4, strategies=["mc", "expert", "expert", "expert"], games=6, seed=5, deals=deals)
    base = simulate(players=4, strategies=["expert"], games=6, seed=5, deals=deals)
    assert (mc.totals != base.totals).any()


def test_mc_preset_and_toml_strategies(tmp_path, own_registry):
    mc = registry.get("mc")
    assert mc.kind == KIND_MC
    assert "16 rollouts" in mc.description and "expert" in mc.description
    assert mc.param_vector()[M_BUDGET] == 16
    path = tmp_path / "s.toml"
    path.write_text('[strategy.mc4b]\nbase = "mc"\npolicy = "builder"\nmc_budget = 4\n')
    (made,) = registry.load_file(path)
    assert made.kind == KIND_MC and made.params["mc_budget"] == 4
    assert made.params["pair_weight"] == registry.get("builder").params["pair_weight"]
    for text, msg in [('base = "mc"\nmc_budget = 0\n', "'mc_budget' must be an integer in 1..1000000"),
                      ('base = "mc"\npolicy = "random"\n', "'policy' must be a heuristic or learned strategy"),
                      ('base = "greedy"\nmc_budget = 4\n', "unknown parameter 'mc_budget'")]:
        path.write_text("[strategy.bad]\n" + text)
        with pytest.raises(GnomingError, match=msg) as err:
            registry.load_file(path)
        assert "\n" not in str(err.value)
