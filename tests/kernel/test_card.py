"""The card player (KIND_CARD): the printed card in every resolved cell, its stated defaults where the card
shows '?', never expert's rules for a decision the card covers (worked positions beside the card-starred player, which
defers to expert there), and whole games through the dispatch."""
import json

import numpy as np
import pytest

from gnoming_sim.game.cards import HIDDEN, NO_CARD
from gnoming_sim.game.observation import CHOICE_NOKEEP, N_CHOICES, O_FROM_PILE, O_TOP0
from gnoming_sim.kernel.engine import simulate
from gnoming_sim.kernel.policy import card as C
from gnoming_sim.kernel.policy import heuristic as H
from gnoming_sim.kernel.policy import registry
from gnoming_sim.kernel.policy.dispatch import C_W0, KIND_CARD, new_memo
from _observations import observation as _obs

H_ = HIDDEN
CARD, STARRED = np.bool_(True), np.bool_(False)


@pytest.fixture(scope="module")
def committed():
    return json.loads(registry.CARD_CELLS.read_text())


def _resolved(committed) -> dict:
    return {c["cell"]: c for t in committed["tables"].values() for c in t["cells"] if c.get("resolved")}


def test_its_cells_are_every_resolved_cell_of_the_printed_card(committed):
    s = registry.get("card")
    assert s.kind == KIND_CARD
    v = s.param_vector()
    resolved = _resolved(committed)
    played = {i: int(a) for i, a in enumerate(v[C_W0:]) if a}
    assert played == {cell: c["best"] for cell, c in resolved.items()}
    assert len(played) > 4 * len(committed["cells"])            # far more than the starred cells
    starred = registry.get("card-starred").param_vector()[C_W0:]
    assert all(v[C_W0 + i] == a for i, a in enumerate(starred) if a)   # the starred cells are on the card too
    np.testing.assert_array_equal(v[:H.N_PARAMS], registry.get("expert").param_vector()[:H.N_PARAMS])


@pytest.mark.parametrize("cell,action", [
    (C.source_cell_of(C.CC_NEG, C.U_FACEDOWN), C.A_TAKE),       # a negative card: always take
    (C.source_cell_of(C.CC_MID, C.U_REPL1), C.A_TAKE),          # it lowers a face-up card
    (C.source_cell_of(C.CC_HIGH, C.U_FACEDOWN), C.A_DRAW),      # no better use than a face-down slot
    (C.source_cell_of(C.CC_LOW, C.U_NONE), C.A_DRAW),
    (C.place_cell_of(0, C.CC_MULLIGAN, C.U_PAIR), C.A_USE),     # its best use
    (C.place_cell_of(1, C.CC_HIGH, C.U_FACEDOWN), C.A_FACEDOWN),
    (C.place_cell_of(1, C.CC_HIGH, C.U_NONE), C.A_THROW),       # a blind draw with no use: throw it away
    (C.place_cell_of(0, C.CC_HIGH, C.U_NONE), C.A_FACEDOWN),    # a pile card must be kept
    (C.finish_cell_of(2, 1, 1), C.A_FINISH),                    # gap -5..-1: below the best rival
    (C.finish_cell_of(3, 1, 1), C.A_PLAYON),                    # gap 0..4: play on
])
def test_the_default_rule_by_cell(cell, action):
    assert C.default_action_of(cell) == action


def test_the_card_plays_a_resolved_cell_where_the_starred_cells_defer_to_expert(committed):
    """Gap -5..-1, rivals < 2 face-down, 4 players: the card says finish (resolved), expert's own rule
    does better there on average, so the card-starred player leaves the cell to expert, which plays on."""
    rows = [[3, 4, 5, 6, 7, 8, 3, 4, H_], [3, 4, 5, 6, 7, 8, 6, 7, H_], [8, 8, 7, 6, 5, 4, 3, 7, H_],
            [8, 8, 7, 6, 5, 4, 3, 7, 8]]
    obs = _obs(rows)
    cell = C.finish_cell_of(2, 0, 1)
    assert C.finish_slot(obs) == 8 and C.finish_cell_at(obs, 8, 4) == cell
    assert _resolved(committed)[cell]["action"] == "finish"
    assert registry.CELL_NAMES[cell] not in committed["cells"]        # not a starred cell
    legal = np.ones(N_CHOICES, dtype=np.int8)
    legal[CHOICE_NOKEEP] = 0
    card, starred = registry.get("card").param_vector(), registry.get("card-starred").param_vector()
    expert = H.placement(starred, obs, new_memo(), np.int64(4), legal)
    assert expert != 8                                                # expert plays on here
    assert C.placement(starred, C_W0, obs, new_memo(), np.int64(4), legal, STARRED) == expert
    assert C.placement(card, C_W0, obs, new_memo(), np.int64(4), legal, CARD) == 8


def test_the_default_rule_is_played_where_the_card_shows_a_question_mark(committed):
    """A blind 7 that would replace a face-up 8 (d = 1-2). On a card that shows '?' there its default is the best
    use (over the 8, position 0); the card-starred player asks expert, which puts it face down; the committed card (policy
    iteration: its first round moved this cell to face-down, +1.53 pp of win chance) puts it face down too."""
    rows = [[8, 5, 4, 3, 5, 6, H_, H_, H_], [3, 4] + [H_] * 7, [5, 6] + [H_] * 7, [7, 7] + [H_] * 7]
    obs = _obs(rows)
    obs.pub[O_FROM_PILE] = -1
    legal = np.ones(N_CHOICES, dtype=np.int8)
    committed_card, starred = registry.get("card").param_vector(), registry.get("card-starred").param_vector()
    cell, q_use, q_fd, q_throw = C.place_candidates(committed_card, obs, new_memo(), np.int64(7), legal)
    assert cell == C.place_cell_of(1, C.CC_HIGH, C.U_REPL1)
    assert _resolved(committed)[cell]["action"] == "face-down" and committed_card[C_W0 + cell] == C.A_FACEDOWN
    assert C.placement(committed_card, C_W0, obs, new_memo(), np.int64(7), legal, CARD) == q_fd
    card = committed_card.copy()
    card[C_W0 + cell] = 0                     # a card that shows '?' there
    assert C.default_action_of(cell) == C.A_USE
    assert C.placement(card, C_W0, obs, new_memo(), np.int64(7), legal, CARD) == q_use == 0
    assert C.placement(starred, C_W0, obs, new_memo(), np.int64(7), legal, STARRED) == q_fd
    # a cell set on the card wins over the default
    face_down = card.copy()
    face_down[C_W0 + cell] = C.A_FACEDOWN
    assert C.placement(face_down, C_W0, obs, new_memo(), np.int64(7), legal, CARD) == q_fd


def test_a_negative_pile_card_is_taken_by_default():
    """Every own card face down: a negative card's best use is a face-down slot, '?' on the card: take it."""
    rows = [[H_] * 9, [3, 4] + [H_] * 7, [5, 6] + [H_] * 7, [7, 7] + [H_] * 7]
    obs = _obs(rows)
    obs.pub[O_TOP0], obs.pub[O_TOP0 + 1] = -2, NO_CARD
    legal = np.zeros(N_CHOICES, dtype=np.int8)
    legal[:2] = 1
    assert C.pile_cell(obs, legal, 0) == C.source_cell_of(C.CC_NEG, C.U_FACEDOWN)
    empty = np.zeros_like(registry.get("card").param_vector())
    assert C.draw_source(empty, C_W0, obs, new_memo(), legal, CARD) == 1


def test_the_fallback_when_an_action_cannot_be_played():
    row = np.array([8, 5, 4, 3, 5, 6, 7, 3, 4], dtype=np.int8)
    legal = np.ones(N_CHOICES, dtype=np.int8)
    legal[CHOICE_NOKEEP] = 0
    pub = _obs([[H_] * 9, [H_] * 9]).pub                          # the published card values
    assert C.card_fallback(row, pub, legal, 3, 2, -1) == 3
    assert C.card_fallback(row, pub, legal, -1, 2, -1) == 2
    assert C.card_fallback(row, pub, legal, -1, -1, -1) == 0        # over the face-up card that costs the most


def test_it_plays_through_the_dispatch_and_differs_from_card_starred_and_expert():
    seats = ["expert"] * 3
    card = simulate(players=4, strategies=["card"] + seats, games=200, seed=7, rotate=True)
    starred = simulate(players=4, strategies=["card-starred"] + seats, games=200, seed=7, rotate=True)
    assert not np.array_equal(card.totals, starred.totals)
    assert card.strategy_names[0] == "card"
