"""A position's legal options come from the kernel (search.options: the rollout start entered on a
table, then kernel.step.legal_actions).  They are checked here against a test-only reading of
RULES.md §3 (:func:`_by_the_rules`, the rules as the position itself shows them) on every decision
of simulated games, on their finishing decisions and on hand-written positions."""
from __future__ import annotations

import pytest
from _examples import position

from gnoming_sim.game.deck import PUBLISHED
from gnoming_sim.game.errors import GnomingError
from gnoming_sim.game.fields import F_SCORE
from gnoming_sim.game.position import from_mapping, from_toml
from gnoming_sim.game.replay import from_trace
from gnoming_sim.game.rules import RuleConfig
from gnoming_sim.kernel.engine import simulate
from gnoming_sim.game.cards import HAZARD, HIDDEN, MULLIGAN
from gnoming_sim.search.finishing import finish_decisions
from gnoming_sim.search.options import legal_options


def _by_the_rules(pos) -> list[tuple[str, bool]]:
    """(key, finishes) of every legal answer, read off RULES.md §3 directly (the test's oracle)."""
    rules, row = pos.rules, pos.layouts[pos.me]

    def placeable(card):
        if card == MULLIGAN:
            up = int((row == MULLIGAN).sum())
            return rules.mulligan_limit == 0 or up < rules.mulligan_limit
        return rules.hazard_placeable if card == HAZARD else True

    must_keep = rules.discard_draw_must_be_kept
    if pos.decision == "draw":
        return [("draw", False)] + [(f"pile{k}", False) for k in range(2)
                                    if pos.piles[k] and (not must_keep or placeable(pos.piles[k][-1]))]
    if pos.decision == "hazard_flip":
        return [(f"flip{q}", False) for q in range(9) if row[q] == HIDDEN] + [("decline", False)]
    down = int((row == HIDDEN).sum())
    opts = [(f"pos{q}", bool(row[q] == HIDDEN and down == 1 and pos.finisher < 0))
            for q in range(9) if placeable(pos.hand)]
    return opts + ([("discard", False)] if pos.source == 0 or not must_keep else [])


def _same(pos):
    assert [(o.key, o.finishes) for o in legal_options(pos)] == _by_the_rules(pos), pos.describe()


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
    _same(position())
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
