"""Net with given card cells (KIND_NET_CELLS): net's play everywhere but at a draw source or placement whose cell is
set, where it plays the cell's action (net's own answer when that already is the action's).  With no cell set it is
net game for game; with cells set, stepped games check every decision of its seat against net's own answer."""
import numpy as np
import pytest

from gnoming_sim.game.deck import PUBLISHED
from gnoming_sim.game.errors import GnomingError
from gnoming_sim.game.observation import CHOICE_NOKEEP, O_FROM_PILE, SRC_DRAW
from gnoming_sim.game.rules import ROUNDS, RuleConfig
from gnoming_sim.kernel.engine import deck_counts, seat_table, simulate, strategy_arrays
from gnoming_sim.kernel.game_loop import deal_game
from gnoming_sim.kernel.policy import card as C
from gnoming_sim.kernel.policy import registry
from gnoming_sim.kernel.policy.dispatch import C_W0, KIND_NET, KIND_NET_CELLS, decide, new_memo
from gnoming_sim.kernel.rng import STREAM_PLAY, seed_stream
from gnoming_sim.kernel.state import DEC_NONE, DEC_PLACE, DEC_SOURCE, N_ST, RNG_WORDS, S_PENDING, S_SEAT, new_table
from gnoming_sim.kernel.step import start_round, step

FINISH = {C.CELL_OFFSET[C.T_FINISH] + i: C.A_FINISH for i in range(C.N_FINISH_CELLS)}
TAKE = {C.CELL_OFFSET[C.T_SOURCE] + i: C.A_TAKE for i in range(C.N_SOURCE_CELLS)}
THROW_BLIND = {C.place_cell_of(1, cls, use): C.A_THROW for cls in range(C.N_CLASS) for use in range(C.N_USE)}


@pytest.mark.parametrize("players", [3, 5])
def test_with_no_cell_set_it_plays_exactly_as_net(players):
    net = registry.get("net")
    z = registry.net_with_cells({})
    assert z.kind == KIND_NET_CELLS and not z.param_vector()[C_W0:C_W0 + C.N_CELLS].any()
    a = simulate(players, [z] + [net] * (players - 1), games=150, seed=3, rotate=True)
    b = simulate(players, [net], games=150, seed=3)
    assert np.array_equal(a.totals, b.totals) and np.array_equal(a.round_stats, b.round_stats)


def test_the_cells_by_name_or_index_and_the_refusals():
    cell = C.finish_cell_of(3, 1, 1)
    by_name = registry.net_with_cells({f"chart.{cell}": 1}).param_vector()
    by_index = registry.net_with_cells({cell: 1, 0: 0}).param_vector()
    assert np.array_equal(by_name, by_index) and by_name[C_W0 + cell] == 1.0
    assert by_name[C_W0:C_W0 + C.N_CELLS].sum() == 1.0
    net = registry.get("net").param_vector()
    same = np.ones(net.size, dtype=bool)
    same[C_W0 + cell] = False
    assert np.array_equal(by_name[same], net[same])       # net's weights and parameters, untouched
    for bad, msg in (({"chart.99999": 1}, "unknown cell"), ({"finish": 1}, "unknown cell"),
                     ({cell: 3}, "action must be 0"), ({0: 4}, "action must be 0"), ({cell: True}, "action")):
        with pytest.raises(GnomingError, match=msg):
            registry.net_with_cells(bad)
    with pytest.raises(GnomingError, match="base must be a net"):
        registry.net_with_cells({}, base=registry.get("expert"))


def _stepped(strategy, players, seed, game, check):
    """Play game ``game`` from Python with ``strategy`` at seat 0 and net elsewhere; at each draw source or
    placement of seat 0, ``check(kind, t, answer, net_answer)`` with net's own answer at that decision."""
    strats, seat_strategy = seat_table(players, [strategy] + ["net"] * (players - 1), 1, game, False)
    kinds, params = strategy_arrays(strats)
    deck = PUBLISHED.to_array()
    counts = deck_counts(deck)
    rules = RuleConfig().to_array()
    t = new_table(players, deck.shape[0], kinds, params, seat_strategy[0].copy(), np.zeros((0, 4), np.int32),
                  new_memo())
    order = np.zeros((ROUNDS, deck.shape[0]), dtype=np.int8)
    deal_game(game, np.uint64(seed), deck, order, np.empty(RNG_WORDS, dtype=np.uint64))
    seed_stream(t.rng, np.uint64(seed), game, STREAM_PLAY)
    t.st[:N_ST] = 0
    for r in range(ROUNDS):
        start_round(t, rules, r, r % players, order[r], counts)
        while t.st[S_PENDING] != DEC_NONE:
            kind = int(t.st[S_PENDING])
            if t.st[S_SEAT] == 0 and kind in (DEC_SOURCE, DEC_PLACE):
                t.kinds[0] = KIND_NET
                own = int(decide(t, rules))
                t.kinds[0] = KIND_NET_CELLS
                a = int(decide(t, rules))
                check(kind, t, a, own)
            else:
                a = int(decide(t, rules))
            step(t, rules, a)


def test_a_finish_rule_finishes_at_every_chance_and_plays_net_elsewhere():
    seen = {"chances": 0, "changed": 0, "other": 0}

    def check(kind, t, a, own):
        q = int(C.finish_slot(t.obs)) if kind == DEC_PLACE else -1
        if q >= 0 and t.legal[q]:
            seen["chances"] += 1
            seen["changed"] += own != q
            assert a == q, (a, own, q)
        else:
            seen["other"] += 1
            assert a == own

    rule = registry.net_with_cells(FINISH, name="always-finish")
    for game in range(10):
        _stepped(rule, 4, 7, game, check)
    assert seen["chances"] >= 8 and seen["changed"] >= 2 and seen["other"] > 100, seen


def test_a_take_rule_takes_a_pile_whenever_one_can_be_taken():
    seen = {"covered": 0, "changed": 0}

    def check(kind, t, a, own):
        if kind != DEC_SOURCE:
            assert a == own
            return
        piles = [k for k in range(2) if C.pile_cell(t.obs, t.legal, k) >= 0]
        if not piles:
            assert a == own
            return
        seen["covered"] += 1
        seen["changed"] += a != own
        assert a - 1 in piles
        if own != SRC_DRAW:
            assert a == own          # net takes a pile the rule says take: its own pile

    rule = registry.net_with_cells(TAKE, name="always-take")
    for game in range(4):
        _stepped(rule, 3, 9, game, check)
    assert seen["covered"] > 30 and seen["changed"] > 5, seen


def test_a_throw_rule_throws_every_blind_draw_away():
    seen = {"covered": 0, "changed": 0}

    def check(kind, t, a, own):
        q = int(C.finish_slot(t.obs)) if kind == DEC_PLACE else -1
        blind = kind == DEC_PLACE and t.obs.pub[O_FROM_PILE] < 0 and not (q >= 0 and t.legal[q])
        if blind and t.legal[CHOICE_NOKEEP]:
            seen["covered"] += 1
            seen["changed"] += own != CHOICE_NOKEEP
            assert a == CHOICE_NOKEEP
        else:
            assert a == own

    rule = registry.net_with_cells(THROW_BLIND, name="always-throw")
    for game in range(4):
        _stepped(rule, 4, 5, game, check)
    assert seen["covered"] > 20 and seen["changed"] > 5, seen
