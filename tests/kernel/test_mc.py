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
                      ('base = "mc"\npolicy = "random"\n', "'policy' must be a heuristic, learned or net strategy"),
                      ('base = "greedy"\nmc_budget = 4\n', "unknown parameter 'mc_budget'")]:
        path.write_text("[strategy.bad]\n" + text)
        with pytest.raises(GnomingError, match=msg) as err:
            registry.load_file(path)
        assert "\n" not in str(err.value)


def test_mc_net_carries_the_nets_weights_and_the_learned_draw_source():
    """mc-net's row: the net's weights at N_W0, learned's (the net's draw source) at L_W0, expert's heuristic
    parameters, base 2: outside rollouts and in them it plays the net family, never the heuristic dispatch."""
    from gnoming_sim.kernel.policy.dispatch import C_W0, KIND_NET, L_W0, M_LEARNED, N_W0, base_kind, \
        families_known_to_hr

    mc, net = registry.get("mc-net"), registry.get("net")
    v, w = mc.param_vector(), net.param_vector()
    assert mc.kind == KIND_MC and v[M_BUDGET] == 16 and v[M_LEARNED] == 2
    np.testing.assert_array_equal(v[N_W0:], w[N_W0:])
    np.testing.assert_array_equal(v[L_W0:C_W0], registry.get("learned").param_vector()[L_W0:C_W0])
    assert np.abs(v[N_W0:]).sum() > 0 and np.abs(v[L_W0:C_W0]).sum() > 0
    assert base_kind(KIND_MC, v) == KIND_NET     # the family _rollouts seats at every seat of its rollout table
    assert base_kind(KIND_MC, registry.get("mc-learned").param_vector()) == registry.get("learned").kind
    assert not families_known_to_hr([mc.kind], [v])


def test_policy_net_in_a_strategies_file(tmp_path, own_registry):
    path = tmp_path / "s.toml"
    path.write_text('[strategy.mcn4]\nbase = "mc"\npolicy = "net"\nmc_budget = 4\n'
                    '[strategy.mcl4]\nbase = "mc-net"\npolicy = "learned"\nmc_budget = 4\n'
                    '[strategy.mch4]\nbase = "mc-net"\npolicy = "expert"\n')
    mcn, mcl, mch = registry.load_file(path)
    net = registry.get("net")
    assert mcn.kind == KIND_MC and mcn.params["mc_learned_base"] == 2 and mcn.params["mc_budget"] == 4
    assert all(mcn.params[k] == net.params[k] for k in registry.NET_WEIGHT_NAMES + registry.WEIGHT_NAMES)
    assert mcl.params["mc_learned_base"] == 1 and mch.params["mc_learned_base"] == 0
    for text, msg in [('base = "mc"\npolicy = "card"\n', "'policy' must be a heuristic, learned or net strategy"),
                      ('base = "mc"\npolicy = 2\n', "'policy' must be a heuristic, learned or net strategy's name"),
                      ('base = "mc"\nmc_learned_base = 3\n', "'mc_learned_base' must be 0, 1 or 2"),
                      ('base = "mc"\nmc_learned_base = 1.5\n', "'mc_learned_base' must be 0, 1 or 2"),
                      ('base = "mc"\nmc_bounce = 2\n', "'mc_bounce' must be 0 or 1"),
                      ('base = "net"\nmc_budget = 4\n', "can only be based on a heuristic preset")]:
        path.write_text("[strategy.bad]\n" + text)
        with pytest.raises(GnomingError, match=msg) as err:
            registry.load_file(path)
        assert "\n" not in str(err.value)


def test_mc_net_plays_the_net_in_its_rollouts():
    """On the same deals, mc-net and mc-learned differ only in their base (the net's weights sit unread in a
    learned-base row; learned's weights and the heuristic parameters are the same): different games mean the net
    decided in the rollouts or outside them; and mc-net is not net (its rollouts change its play)."""
    kw = dict(players=4, games=4, seed=5, rotate=True)   # one deal, each seat once (on it every score differs)
    got = {x: simulate(strategies=[x, "expert", "expert", "expert"], **kw).totals for x in ("mc-net", "mc-learned", "net")}
    assert (got["mc-net"] != got["mc-learned"]).any() and (got["mc-net"] != got["net"]).any()


@pytest.mark.slow   # a net of zeros values every option alike, so its rounds run long (10 s of rollouts a game)
def test_mc_on_a_net_of_zeros_is_not_mc_net():
    """mc-learned's row with the base switched to 2 but no net weights plays a net of zeros: not mc-net (one game,
    the first of test_mc_net_plays_the_net_in_its_rollouts's deals)."""
    kw = dict(players=4, games=1, seed=5, rotate=True)
    no_weights = dict(registry.get("mc-learned").params, mc_learned_base=2.0)
    zeros = simulate(strategies=[registry.Strategy("mc-net-0", KIND_MC, "mc-learned's row, base 2", no_weights),
                                 "expert", "expert", "expert"], **kw).totals
    assert (zeros != simulate(strategies=["mc-net", "expert", "expert", "expert"], **kw).totals).any()
