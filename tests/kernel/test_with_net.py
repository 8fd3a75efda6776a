"""The card or the pocket rules with net's answers in some classes of decisions (registry.with_net): no class is the
player itself and every class is net, game for game; one class changes only the games where the two part there."""
import numpy as np
import pytest

from gnoming_sim.game.errors import GnomingError
from gnoming_sim.kernel.engine import simulate
from gnoming_sim.kernel.policy import registry
from gnoming_sim.kernel.policy.dispatch import NETC_NAMES

NET = registry.get("net")


def _totals(seat, players=3, games=120):
    return simulate(players=players, strategies=[seat] + [NET] * (players - 1), games=games, seed=11,
                    rotate=True).totals


@pytest.mark.parametrize("own,every", [("card", (1 << 6) - 1), ("rules", (1 << len(NETC_NAMES)) - 1)])
def test_no_class_is_the_player_and_every_class_is_net(own, every):
    s = registry.get(own)
    np.testing.assert_array_equal(_totals(registry.with_net(s, 0, "x0")), _totals(s))
    np.testing.assert_array_equal(_totals(registry.with_net(s, every, "xall")), _totals(NET))


def test_one_class_changes_some_games_not_all():
    card = registry.get("card")
    base, moved = _totals(card), _totals(registry.with_net(card, 1 << NETC_NAMES.index("finish or play on"), "x"))
    changed = (base != moved).any(axis=1)
    assert 0 < changed.sum() < len(changed)


@pytest.mark.parametrize("classes", [-1, 1 << len(NETC_NAMES)])
def test_classes_out_of_range_and_other_players_are_refused(classes):
    with pytest.raises(GnomingError, match="classes"):
        registry.with_net(registry.get("card"), classes, "x")
    with pytest.raises(GnomingError, match="neither"):
        registry.with_net(registry.get("expert"), 0, "x")
