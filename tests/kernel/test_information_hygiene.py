"""Strategies see only what a player sees (RULES.md §7).

For every decision of a heuristic seat in traced games, the observation is rebuilt from
public information alone and the decision recomputed: it must equal what the kernel chose
(so the kernel decided from nothing more), and it must not change when every hidden card
— all face-down cards and the whole draw pile — is permuted.

The Monte Carlo seats (``mc``, and ``mc-net`` with net in its rollouts) draw random determinizations, so
their rollout decisions (draw source, placement) are checked directly instead: asked twice at the same
point with the same random stream, once with every hidden card permuted, they must answer the same.
"""
import random

import numpy as np
import pytest

from gnoming_sim.game.deck import PUBLISHED
from gnoming_sim.kernel.engine import deck_counts, seat_table, simulate
from gnoming_sim.kernel.policy import registry
from gnoming_sim.kernel.policy.dispatch import KIND_MC, N_PARAMS
from gnoming_sim.game.rules import RuleConfig

from _examples import FAST
from _observer_replay import DecisionChecker


@pytest.mark.parametrize("players, seats, rules", [
    (4, ["greedy", "builder", "rusher", "cautious"], RuleConfig()),
    pytest.param(3, ["cautious", "random", "builder"], RuleConfig(mulligan_limit=0, discard_draw_must_be_kept=False),
                 marks=pytest.mark.slow),
    pytest.param(6, ["rusher", "greedy", "random", "builder", "cautious", "greedy"], RuleConfig(), marks=pytest.mark.slow),
    pytest.param(4, ["mc", "expert", "random", "mc"], RuleConfig(), marks=pytest.mark.slow),   # an MC seat's base decisions
    (4, ["learned", "expert", "learned", "builder"], RuleConfig()),   # the learned player
    pytest.param(3, ["learned", "random", "learned"], RuleConfig(mulligan_limit=0, discard_draw_must_be_kept=False),
                 marks=pytest.mark.slow),
    (4, ["net", "expert", "net", "learned"], RuleConfig()),   # the net player
    (4, ["rules", "expert", "rules", "net"], RuleConfig()),   # the pocket rules
    pytest.param(3, ["rules", "random", "rules"], RuleConfig(mulligan_limit=0, discard_draw_must_be_kept=False,
                 hazard_value=15, mulligan_value=-3, negative_multiplier=2), marks=pytest.mark.slow),
    (4, ["mc-net", "expert", "net", "mc-net"], RuleConfig()),   # an mc-net seat's base (net) decisions
    pytest.param(5, ["net", "random", "net", "builder", "net"], RuleConfig(early_finish_bonus=10, hazard_value=15,
                 mulligan_value=-3, negative_multiplier=2), marks=pytest.mark.slow),
])
def test_decisions_depend_only_on_public_information(players, seats, rules):
    # every decision of 12 games (a third of them in make test-fast: each is rebuilt and decided again in Python)
    res = simulate(players=players, strategies=seats, games=4 if FAST else 12, seed=21, rules=rules, trace=True,
                   rotate=True)
    rng = random.Random(5)
    checked = sum(DecisionChecker(res, g, rng).run() for g in range(res.games))
    assert checked >= (300 if FAST else 1000), checked


def _probe_inputs(players, seats, rules):
    strats, seat_strategy = seat_table(players, seats, 1, 0, False)
    kinds = np.array([s.kind for s in strats], dtype=np.int64)
    params = np.array([s.param_vector() for s in strats], dtype=np.float64).reshape(-1, N_PARAMS)
    deck = PUBLISHED.to_array()
    return seat_strategy[0].copy(), kinds, params, rules.to_array(), deck, deck_counts(deck)


def _answers(inputs, game, turn, permute, peek=False):
    from gnoming_sim.search.probe import probe

    out = np.zeros(3, dtype=np.int64)
    seat_strategy, kinds, params, rules, deck, counts = inputs
    probe(game, np.uint64(7), seat_strategy, kinds, params, rules, deck, counts, turn, permute, peek, out)
    return tuple(out)


@pytest.mark.parametrize("players, rules, mc", [
    (4, RuleConfig(), "mc"),
    (3, RuleConfig(mulligan_limit=0, discard_draw_must_be_kept=False), "mc"),
    (4, RuleConfig(), "mc-net"),   # every seat plays net in its rollouts, and net decides its base choice
])
def test_mc_decisions_do_not_change_when_hidden_cards_are_permuted(players, rules, mc):
    """At MC decision points of many games, permuting every hidden card (all face-down cards, the
    player's own included, and the draw pile) leaves both answers unchanged; a player that deals
    its rollouts the true cards (``peek``) is caught by the same comparison."""
    small = registry.Strategy("mc-test", KIND_MC, f"{mc}, budget 4", dict(registry.get(mc).params, mc_budget=4.0))
    inputs = _probe_inputs(players, [small] * players, rules)
    decided = caught = 0
    for game in range(8):
        for turn in range(0, 24, 3):
            fair = _answers(inputs, game, turn, 0)
            if fair[0] == -2:
                continue
            assert _answers(inputs, game, turn, 1000 + turn) == fair, (game, turn)
            decided += (fair[0] >= 0) + (fair[1] >= 0)
            caught += _answers(inputs, game, turn, 0, peek=True) != _answers(inputs, game, turn, 1000 + turn, peek=True)
    assert decided >= 40, decided   # rollout decisions, not base fall-backs
    assert caught >= 3, caught
