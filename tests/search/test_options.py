"""A position's legal options come from the kernel (search.options: the rollout start entered on a
table, then kernel.step.legal_actions); they agree with the position's own account
(game.position.Position.options, which the game stage keeps for validation and replay) on every
decision of simulated games and on the hand-written positions."""
from __future__ import annotations

import pytest

from gnoming_sim.game.deck import PUBLISHED
from gnoming_sim.game.errors import GnomingError
from gnoming_sim.game.fields import F_SCORE
from gnoming_sim.game.position import from_mapping, from_toml
from gnoming_sim.game.replay import finish_decisions, from_trace
from gnoming_sim.game.rules import RuleConfig
from gnoming_sim.kernel.engine import simulate
from gnoming_sim.search.options import legal_options


def _same(pos):
    assert legal_options(pos) == pos.options(), pos.describe()


@pytest.mark.parametrize("rules", [RuleConfig(), RuleConfig(discard_draw_must_be_kept=False, mulligan_limit=1,
                                                            hazard_placeable=False)])
def test_kernel_options_agree_on_the_decisions_of_simulated_games(rules):
    res = simulate(players=3, strategies=["builder", "random", "greedy"], games=2, seed=8, rules=rules, trace=True)
    n = 0
    for g in range(2):
        scores = res.round_stats[g, :, :, F_SCORE]
        for turn in range(0, 60, 7):
            try:
                pos = from_trace(res.deals[g], res.traces[g], 3, scores, turn, rules, PUBLISHED, "t")
            except GnomingError:
                break
            _same(pos)
            n += 1
        for pos, _ in finish_decisions(res.deals[g], res.traces[g], 3, scores, rules, PUBLISHED):
            _same(pos)
            n += 1
    assert n >= 10


def test_kernel_options_of_the_example_and_a_hazard_flip():
    _same(from_toml("examples/position.toml"))
    _same(from_toml("bench/two_options.toml"))
    hz = [["3", "?", "5", "6", "?", "8", "-1", "?", "3"], ["4", "4", "?", "5", "5", "5", "6", "6", "7"],
          ["6", "?", "?", "7", "7", "?", "3", "-4", "8"]]
    seen = [c for row in hz for c in row if c != "?"] + ["5", "4", "H"]
    pos = from_mapping({"players": 3, "me": 2, "turn": 30, "scores": [0, 0, 0], "layouts": hz,
                        "piles": [["5"], ["4"]], "removed_hazards": 1,
                        "draw_pile": PUBLISHED.size - len(seen) - sum(r.count("?") for r in hz),
                        "decision": {"kind": "hazard_flip", "discarder": 0}})
    assert [o.key for o in legal_options(pos)] == ["flip1", "flip2", "flip5", "decline"]
    _same(pos)
