"""Strategies see only what a player sees (RULES.md §7).

For every decision of a heuristic seat in traced games, the observation is rebuilt from
public information alone and the decision recomputed: it must equal what the kernel chose
(so the kernel decided from nothing more), and it must not change when every hidden card
— all face-down cards and the whole draw pile — is permuted.
"""
import random

import pytest

from gnoming_sim.kernel.engine import simulate
from gnoming_sim.game.rules import RuleConfig

from _observer_replay import DecisionChecker


@pytest.mark.parametrize("players, seats, rules", [
    (4, ["greedy", "builder", "rusher", "cautious"], RuleConfig()),
    (3, ["cautious", "random", "builder"], RuleConfig(mulligan_limit=0, discard_draw_must_be_kept=False)),
    (6, ["rusher", "greedy", "random", "builder", "cautious", "greedy"], RuleConfig()),
])
def test_decisions_depend_only_on_public_information(players, seats, rules):
    res = simulate(players=players, strategies=seats, games=12, seed=21, rules=rules, trace=True,
                   rotate=True)
    rng = random.Random(5)
    checked = sum(DecisionChecker(res, g, rng).run() for g in range(res.games))
    assert checked >= 1000, checked
