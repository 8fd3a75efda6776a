"""The presets: they beat random, they differ in style, and users can define their own."""
import numpy as np
import pytest

from gnoming_sim.kernel.policy import registry as strategies
from gnoming_sim.kernel.engine import simulate
from gnoming_sim.game.errors import GnomingError
from gnoming_sim.game.fields import F_LINES, F_TURNS

Z99 = 2.5758


def _ci(x, z):
    x = np.asarray(x, dtype=float)
    half = z * x.std(ddof=1) / np.sqrt(x.size)
    return x.mean() - half, x.mean() + half


@pytest.mark.parametrize("preset", ["greedy", "builder", "rusher", "cautious"])
def test_each_preset_beats_random(preset):
    """4 players, one preset against three random seats, rotated; paired per game."""
    res = simulate(players=4, strategies=[preset, "random", "random", "random"], games=2000,
                   seed=314, rotate=True)
    mine = res.seat_strategy == res.strategy_names.index(preset)
    diff = res.totals[mine] - res.totals[~mine].reshape(-1, 3).mean(axis=1)
    lo, hi = _ci(diff, Z99)
    assert hi < 0, f"{preset} - random: 99% CI [{lo:.2f}, {hi:.2f}]"


def _self_play(name, games=1500, seed=2718):
    return simulate(players=4, strategies=[name], games=games, seed=seed)


def test_rusher_ends_rounds_faster_than_cautious():
    """Same deals (same seed): turns per round, 99% interval of the paired difference below 0."""
    rush = _self_play("rusher").round_stats[:, :, :, F_TURNS].sum(axis=2).ravel()
    caut = _self_play("cautious").round_stats[:, :, :, F_TURNS].sum(axis=2).ravel()
    lo, hi = _ci(rush - caut, Z99)
    assert hi < 0, (lo, hi)


def test_builder_makes_more_matched_lines_than_greedy():
    build = _self_play("builder").round_stats[:, :, :, F_LINES].mean(axis=2).ravel()
    greedy = _self_play("greedy").round_stats[:, :, :, F_LINES].mean(axis=2).ravel()
    lo, hi = _ci(build - greedy, Z99)
    assert lo > 0, (lo, hi)


def test_presets_are_registered_with_descriptions_and_parameters():
    for name in ["random", "greedy", "builder", "rusher", "cautious"]:
        s = strategies.get(name)
        assert s.description
        if name != "random":
            assert set(s.params) == set(strategies.PARAM_HELP)
    assert len({tuple(s.param_vector()) for s in strategies.PRESETS}) == len(strategies.PRESETS) == 5


@pytest.fixture
def fresh_registry(own_registry):
    return own_registry


def test_user_strategy_from_toml(tmp_path, fresh_registry):
    path = tmp_path / "mine.toml"
    path.write_text('[strategy.patient]\nbase = "greedy"\ndescription = "waits"\nfinish_margin = 6\n'
                    '[strategy.lines]\nbase = "builder"\npair_weight = 1.0\n')
    made = strategies.load_file(path)
    assert [s.name for s in made] == ["patient", "lines"]
    assert strategies.get("patient").params["finish_margin"] == 6.0
    assert strategies.get("lines").params["mulligan_bonus"] == strategies.get("builder").params["mulligan_bonus"]
    res = simulate(players=3, strategies=["patient", "lines", "greedy"], games=20, seed=1)
    assert res.strategy_names == ("patient", "lines", "greedy")


@pytest.mark.parametrize("text, msg", [
    ('[strategy.x]\nbase = "greedy"\nfoo = 1\n', "unknown parameter 'foo'"),
    ('[strategy.x]\nbase = "nope"\n', "unknown strategy 'nope'"),
    ('[strategy.x]\nbase = "random"\n', "heuristic preset"),
    ('[strategy.x]\nbase = "greedy"\npair_weight = "high"\n', "must be a finite number"),
    ('[strategy.greedy]\npair_weight = 1\n', "replace a preset"),
    ('name = 1\n', "strategy.NAME"),
    ('[strategy.x\n', "not valid TOML"),
])
def test_bad_strategy_files(tmp_path, text, msg, fresh_registry):
    path = tmp_path / "bad.toml"
    path.write_text(text)
    with pytest.raises(GnomingError, match=msg):
        strategies.load_file(path)
