"""The take-or-draw table by the player's own face-down cards (card.T_SOURCE_FD): appended after the three
tables (every earlier cell keeps its number), a banded cell decides where it is set, its take cell elsewhere, so a
card whose banded cells are all 0, or all their take cell's action, plays exactly as before, game for game."""
import json

import numpy as np
import pytest

from gnoming_sim.game.cards import HIDDEN, NO_CARD
from gnoming_sim.game.observation import N_CHOICES, O_TOP0
from gnoming_sim.kernel.engine import simulate
from gnoming_sim.kernel.policy import card as C
from gnoming_sim.kernel.policy import registry
from gnoming_sim.kernel.policy.dispatch import C_W0, N_W0, new_memo
from gnoming_sim.tune.card.iterate import card_strategy, cell_words, committed_cells
from _observations import observation as _obs

H_ = HIDDEN
CARD = np.bool_(True)


def test_the_banded_cells_follow_the_three_tables():
    assert C.SOURCE_FD_OFFSET == 180 and C.N_CELLS == 180 + 3 * C.N_SOURCE_CELLS
    assert C.CELL_OFFSET == (0, 42, 126)                       # the old cells keep their numbers
    assert len(registry.CELL_NAMES) == C.N_CELLS and N_W0 == C_W0 + C.N_CELLS
    cell = C.source_fd_cell_of(C.CC_HIGH, C.U_PAIR, 2)
    assert C.table_of(cell) == C.T_SOURCE_FD and C.parent_cell_of(cell) == C.source_cell_of(C.CC_HIGH, C.U_PAIR)
    assert [C.table_of(c) for c in (0, 41, 42, 126, 179)] == [C.T_SOURCE, C.T_SOURCE, C.T_PLACE, C.T_FINISH,
                                                                C.T_FINISH]
    assert [C.fd_band_of(n) for n in range(10)] == [2, 2, 2, 1, 1, 0, 0, 0, 0, 0]
    assert C.default_action_of(cell) == C.default_action_of(C.parent_cell_of(cell))
    assert cell_words(cell) == {"table": "source", "card": "7-8", "use": "pairs in a line", "own_fd": "<= 2"}


def _pairing_pile(own_fd: int):
    """Own layout with ``own_fd`` face-down cards and a 7 face up; pile 0's top is a 7 that pairs in a line."""
    row = [7] + [H_] * own_fd + [3] * (8 - own_fd)
    obs = _obs([row, [5, 6] + [H_] * 7, [4, 4] + [H_] * 7])
    obs.pub[O_TOP0], obs.pub[O_TOP0 + 1] = 7, NO_CARD
    legal = np.zeros(N_CHOICES, dtype=np.int8)
    legal[:2] = 1
    return obs, legal


@pytest.mark.parametrize("own_fd,band", [(7, 0), (4, 1), (2, 2)])
def test_a_set_banded_cell_decides_in_its_band_only(own_fd, band):
    obs, legal = _pairing_pile(own_fd)
    parent = int(C.pile_cell(obs, legal, 0))
    assert parent == C.source_cell_of(C.CC_HIGH, C.U_PAIR)
    prm = np.zeros_like(registry.get("card").param_vector())
    prm[C_W0 + parent] = C.A_DRAW
    assert C.draw_source(prm, C_W0, obs, new_memo(), legal, CARD) == 0          # the take cell: draw
    assert C.acting_source_cell(prm, C_W0, obs, parent) == parent
    other = C.source_fd_cell_of(C.CC_HIGH, C.U_PAIR, (band + 1) % 3)
    prm[C_W0 + other] = C.A_TAKE                                                  # another band: no effect
    assert C.draw_source(prm, C_W0, obs, new_memo(), legal, CARD) == 0
    mine = C.source_fd_cell_of(C.CC_HIGH, C.U_PAIR, band)
    prm[C_W0 + mine] = C.A_TAKE
    assert C.acting_source_cell(prm, C_W0, obs, parent) == mine
    assert C.draw_source(prm, C_W0, obs, new_memo(), legal, CARD) == 1          # its own band: take
    assert C.cells_source(prm, C_W0, obs, legal, 0) == (1, True)                 # net with cells too


def test_committed_cells_set_the_banded_cells_to_their_take_cell_unless_printed():
    cells = committed_cells()
    assert len(cells) == C.N_CELLS
    printed = registry.printed_card(json.loads(registry.CARD_CELLS.read_text())["tables"])
    assert all(cells[c] == cells[C.parent_cell_of(c)] for c in range(C.SOURCE_FD_OFFSET, C.N_CELLS)
               if registry.CELL_NAMES[c] not in printed or printed[registry.CELL_NAMES[c]] == cells[C.parent_cell_of(c)])
    # the installed card (rounds 6-7): a 7-8 that pairs in a line is taken with 5 or more own cards face down only
    pair78 = C.source_cell_of(C.CC_HIGH, C.U_PAIR)
    assert cells[pair78] == C.A_DRAW
    assert [cells[C.source_fd_cell_of(C.CC_HIGH, C.U_PAIR, b)] for b in range(3)] == [C.A_TAKE, C.A_DRAW, C.A_DRAW]


@pytest.mark.slow
def test_banded_cells_at_their_take_cells_action_play_game_for_game_as_before():
    """The card with every banded cell set (to its take cell's action) plays as the committed card; net with a few
    take cells set plays as with the same cells set in every band."""
    full = card_strategy(committed_cells())
    assert full.param_vector()[C_W0 + C.SOURCE_FD_OFFSET:C_W0 + C.N_CELLS].all()
    seats = ["expert", "net", "expert"]
    a = simulate(4, ["card"] + seats, games=60, seed=3, rotate=True)
    b = simulate(4, [full] + seats, games=60, seed=3, rotate=True)
    np.testing.assert_array_equal(a.totals, b.totals)
    take = {c: C.A_TAKE for c in (8, 10, 15, 22)}
    banded = {b: C.A_TAKE for c in take for b in range(C.SOURCE_FD_OFFSET + c * 3, C.SOURCE_FD_OFFSET + c * 3 + 3)}
    x = simulate(4, [registry.net_with_cells(take), "net", "net", "net"], games=40, seed=3, rotate=True)
    y = simulate(4, [registry.net_with_cells(banded), "net", "net", "net"], games=40, seed=3, rotate=True)
    np.testing.assert_array_equal(x.totals, y.totals)


def test_a_card_from_before_the_bands_gets_them_at_its_take_cells():
    from gnoming_sim.tune.card.iterate import _every_cell

    old = {c: a for c, a in committed_cells().items() if c < C.SOURCE_FD_OFFSET}
    old[22] = C.A_TAKE
    full = _every_cell(old)
    assert len(full) == C.N_CELLS and all(full[c] == old[c] for c in old)
    assert [full[C.source_fd_cell_of(C.CC_HIGH, C.U_PAIR, b)] for b in range(3)] == [C.A_TAKE] * 3
