"""The card-starred player (KIND_CARD_STARRED): its table features by worked examples, its cells file, its decisions
(with no cell resolved it is expert, game for game; its cells change its play) and its legality
(the referee accepts its games)."""
import json

import numpy as np
import pytest

from gnoming_sim.kernel.policy.net import N_SOURCE_WEIGHTS, N_WEIGHTS as N_WEIGHTS_NET
from gnoming_sim.kernel.value import N_WEIGHTS as N_VALUE_WEIGHTS
from gnoming_sim.kernel.policy.rules import N_RULE_PARAMS
from gnoming_sim.game.cards import HAZARD, HIDDEN, MULLIGAN
from gnoming_sim.game.errors import GnomingError
from gnoming_sim.kernel.engine import simulate
from gnoming_sim.kernel.policy import card as C
from gnoming_sim.kernel.policy import heuristic as H
from gnoming_sim.kernel.policy import registry
from gnoming_sim.kernel.policy.dispatch import C_W0, KIND_CARD_STARRED, L_W0, N_PARAMS
from _observations import observation as _obs

H_ = HIDDEN
NONE = np.ones(10, dtype=np.int8)
PUB = _obs([[H_] * 9, [H_] * 9]).pub   # one mulligan per line, the published card values


def _row(cells):
    return np.array(cells, dtype=np.int8)


@pytest.mark.parametrize("row,q,c,use", [
    ([5, 5, 3, 4, 6, 7, 8, 3, 4], 2, 5, C.U_COMPLETE),         # 5 5 3 -> 5 5 5
    ([5, 5, 3, 4, 6, 7, 8, 3, 4], 2, MULLIGAN, C.U_COMPLETE),  # a mulligan completes 5 5 M
    ([5, H_, H_, 4, 6, 7, 8, 3, 4], 1, 5, C.U_PAIR),            # 5 5 H: a pair in a line
    ([8, H_, H_, 4, 6, 7, 3, 3, 4], 0, 3, C.U_PAIR),            # 3 over the 8: column 0 is 3 4 3
    ([8, 6, 7, 4, 6, 7, 5, 3, 4], 0, -2, C.U_REPL6),           # 8 -> -2: 10 points less
    ([8, 6, 7, 3, 5, 7, 5, 3, 4], 0, 4, C.U_REPL3),            # 8 -> 4, no pair made
    ([8, 5, 7, 3, 5, 7, 5, 3, 4], 2, 6, C.U_REPL1),            # 7 -> 6
    ([8, H_, 7, 4, 5, 7, 5, 6, 4], 1, 3, C.U_FACEDOWN),        # a face-down slot, no pair
    ([3, 6, 7, 4, 5, 7, 5, 3, 4], 0, 8, C.U_NONE),             # 3 -> 8: worse
    ([H_, 6, 7, 4, 5, 7, 5, 3, 4], 0, HAZARD, C.U_FACEDOWN),   # a hazard only goes face down
])
def test_the_use_of_a_card_at_a_position(row, q, c, use):
    assert C.position_use(_row(row), q, c, PUB) == use


def test_the_use_of_a_card_reads_the_rules_card_values():
    from gnoming_sim.game.observation import O_NEGATIVE_MULTIPLIER
    row = _row([5, 6, 7, 3, 8, 4, 6, 7, 3])
    assert C.position_use(row, 0, -1, PUB) == C.U_REPL6       # 5 -> -1: 6 points less
    pub = PUB.copy()
    pub[O_NEGATIVE_MULTIPLIER] = 0                            # negatives score nothing
    assert C.position_use(row, 0, -1, pub) == C.U_REPL3       # 5 -> -1 saves 5


def test_best_use_takes_the_best_position():
    row = _row([5, 5, 3, 4, H_, 7, 8, 3, 4])
    assert C.best_use(row, 5, PUB, NONE, False) == C.U_COMPLETE   # the 3 at position 2
    assert C.best_use(row, -4, PUB, NONE, False) == C.U_REPL6     # over the 8 (12 points)
    mask = NONE.copy()
    mask[2] = 0
    assert C.best_use(row, 5, PUB, mask, True) != C.U_COMPLETE    # not where the legal mask forbids


def test_card_classes():
    assert [C.card_class(c) for c in (-4, -1, 3, 4, 5, 6, 7, 8, MULLIGAN, HAZARD)] == \
        [C.CC_NEG, C.CC_NEG, C.CC_LOW, C.CC_LOW, C.CC_MID, C.CC_MID, C.CC_HIGH, C.CC_HIGH, C.CC_MULLIGAN, C.CC_HAZARD]


def test_the_finish_cell_reads_the_gap_the_rivals_and_the_table():
    # own layout after 4 at position 8: 5 5 5 / 3 4 6 / 7 8 4 -> -5 + 3 + 4 + 6 + 7 + 8 + 4 = 27 (row 0 matched)
    rows = [[5, 5, 5, 3, 4, 6, 7, 8, H_], [3, 3, 4, H_, H_, H_, H_, H_, H_], [8, 7, 8, 7, 8, 7, 8, 7, 6]]
    obs = _obs(rows + [[H_] * 9])
    assert C.finish_slot(obs) == 8
    gap, ofd = C.finish_context(obs, 8, 4)
    assert gap == pytest.approx(27 - 0)        # the best visible rival is the one with nothing face up
    assert C.finish_context(_obs(rows), 8, 4)[0] == pytest.approx(27 - 10)   # else the one showing 3 + 3 + 4
    assert ofd == pytest.approx((6 + 0 + 9) / 3)
    assert C.finish_cell_at(obs, 8, 4) == C.finish_cell_of(5, 2, 1)   # gap >= 10, rivals' face-down >= 4, 4-5 players
    assert C.finish_slot(_obs(obs.vis, finisher=2)) == -1             # somebody finished: no finishing chance


def test_the_cells_file_and_the_parameter_vector():
    data = json.loads(registry.CARD_CELLS.read_text())
    s = registry.get("card-starred")
    assert s.kind == KIND_CARD_STARRED
    v = s.param_vector()
    assert v.shape == (N_PARAMS,) and N_PARAMS == (C_W0 + C.N_CELLS + N_WEIGHTS_NET + N_SOURCE_WEIGHTS + N_VALUE_WEIGHTS
                                                  + N_RULE_PARAMS + 1)   # + a card seat's net classes
    cells = np.zeros(C.N_CELLS)
    for name, a in data["cells"].items():
        cells[int(name.split(".")[1])] = a
    np.testing.assert_array_equal(v[C_W0:C_W0 + C.N_CELLS], cells)
    assert not v[C_W0 + C.N_CELLS:].any()   # the net's two heads (after the cells) are not the card's
    # everything else is expert's (its heuristic parameters) and nothing of learned's weights
    np.testing.assert_array_equal(v[:H.N_PARAMS], registry.get("expert").param_vector()[:H.N_PARAMS])
    assert not v[L_W0:C_W0].any()
    assert "command" in data["provenance"]


@pytest.mark.parametrize("text,msg", [('{"cells": {"chart.99999": 1}}', "not known"),
                                      ('{"cells": {"chart.3": 7}}', "not known")])
def test_a_bad_cells_file_is_refused(tmp_path, text, msg):
    p = tmp_path / "c.json"
    p.write_text(text)
    with pytest.raises(GnomingError, match=msg):
        registry.card_starred_from_file(p)


def _starred(cells: dict, name="starred-test"):
    params = dict(registry.get("expert").params)
    params.update({registry.CELL_NAMES[k]: float(a) for k, a in cells.items()})
    return registry.Strategy(name, KIND_CARD_STARRED, "test", params)


def test_with_no_cell_resolved_it_plays_expert_game_for_game():
    a = simulate(players=4, strategies=[_starred({}), "expert", "expert", "learned"], games=300, seed=5, rotate=True)
    b = simulate(players=4, strategies=["expert", "expert", "expert", "learned"], games=300, seed=5, rotate=True)
    np.testing.assert_array_equal(a.totals, b.totals)


def test_its_cells_change_its_play():
    """Every finishing cell 'play on' and every take cell 'draw': other games than expert's, and fewer
    rounds finished by the card-starred seat."""
    cells = {C.finish_cell_of(g, o, s): C.A_PLAYON for g in range(C.N_GAP) for o in range(C.N_OFD)
             for s in range(C.N_SIZE)}
    never = _starred(cells)
    a = simulate(players=4, strategies=[never, "expert", "expert", "expert"], games=200, seed=6, rotate=True)
    b = simulate(players=4, strategies=["expert"] * 4, games=200, seed=6, rotate=True)
    assert not np.array_equal(a.totals, b.totals)
