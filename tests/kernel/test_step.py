"""The action-level API (kernel.step): a game driven from Python one action at a time, through
``legal_actions`` and ``step`` only, is exactly the game ``simulate`` plays (a differential test),
and every action the policies choose is in the pending decision's legal mask."""
from __future__ import annotations

import numpy as np
import pytest

from gnoming_sim.game import trace as T
from gnoming_sim.game.fields import F_SCORE, N_FIELDS
from gnoming_sim.game.observation import N_CHOICES
from gnoming_sim.game.rules import LAYOUT, ROUNDS, RuleConfig
from gnoming_sim.kernel.engine import deck_counts, seat_table, simulate
from gnoming_sim.kernel.game_loop import deal_game, score_round, settle_game
from gnoming_sim.kernel.policy.dispatch import N_PARAMS, decide, new_memo
from gnoming_sim.kernel.rng import STREAM_PLAY, seed_stream
from gnoming_sim.kernel.state import DEC_INIT_FLIP, DEC_NONE, N_ST, NOT_STALLED, RNG_WORDS, S_PENDING, S_STALLED, \
    new_table
from gnoming_sim.kernel.step import legal_actions, start_round, step
from gnoming_sim.game.deck import PUBLISHED


def _stepped_game(players, seats, seed, game, rules):
    """(round stats int32[3, P, F], trace int32[n, 4], kinds of decisions seen) of one game played
    by stepping from Python."""
    strats, seat_strategy = seat_table(players, seats, 1, game, False)
    kinds = np.array([s.kind for s in strats], dtype=np.int64)
    params = np.zeros((len(strats), N_PARAMS))
    for j, s in enumerate(strats):
        params[j] = s.param_vector()
    deck = PUBLISHED.to_array()
    counts = deck_counts(deck)
    rules_arr = rules.to_array()
    tr = np.zeros((8192, 4), dtype=np.int32)
    t = new_table(players, deck.shape[0], kinds, params, seat_strategy[0].copy(), tr, new_memo())
    order = np.zeros((ROUNDS, deck.shape[0]), dtype=np.int8)
    deal_game(game, np.uint64(seed), deck, order, np.empty(RNG_WORDS, dtype=np.uint64))
    seed_stream(t.rng, np.uint64(seed), game, STREAM_PLAY)
    t.st[:N_ST] = 0
    out = np.zeros((ROUNDS, players, N_FIELDS), dtype=np.int32)
    seen = set()
    for r in range(ROUNDS):
        starter = r % players if rules.rotate_start else 0
        start_round(t, rules_arr, r, starter, order[r], counts)
        while t.st[S_PENDING] != DEC_NONE:
            kind = int(t.st[S_PENDING])
            a = int(decide(t, rules_arr))   # writes t.legal for the pending decision
            mask = t.legal.copy()
            assert legal_actions(t, rules_arr) == mask.sum() > 0
            if kind == DEC_INIT_FLIP:
                assert mask[a // LAYOUT] and mask[a % LAYOUT] and a // LAYOUT != a % LAYOUT
            else:
                assert 0 <= a < N_CHOICES and mask[a], (kind, a, mask)
            seen.add(kind)
            step(t, rules_arr, a)
        score_round(t, rules_arr, r, starter, out)
        t.scores[:] += out[r, :, F_SCORE]
        n = int(t.tn[0])
        t.tr[n] = (T.ROUND_END, -1, r, 1 if t.st[S_STALLED] != NOT_STALLED else 0)
        t.tn[0] = n + 1
    settle_game(players, out, np.zeros(players, dtype=np.int32), np.zeros(players))
    return out, t.tr[:int(t.tn[0])].copy(), seen


@pytest.mark.parametrize("players,seats,rules", [
    (4, ["random"], RuleConfig()),
    (3, ["greedy", "random", "expert"], RuleConfig(discard_draw_must_be_kept=False)),
    (2, ["builder", "rusher"], RuleConfig(reshuffle_when_empty=False, max_turns=60)),
])
def test_a_game_stepped_from_python_is_the_game_simulate_plays(players, seats, rules):
    res = simulate(players=players, strategies=seats, games=1, seed=11, first_game=5, rules=rules, trace=True)
    out, tr, seen = _stepped_game(players, seats, 11, 5, rules)
    assert np.array_equal(out, res.round_stats[0])
    assert np.array_equal(tr, res.traces[0])
    assert {DEC_INIT_FLIP} < seen   # the initial flips and some turn decisions were stepped


def test_legal_actions_of_a_finished_round_is_empty():
    strats, seat_strategy = seat_table(2, ["greedy"], 1, 0, False)
    params = strats[0].param_vector()[None, :]
    t = new_table(2, PUBLISHED.size, np.array([strats[0].kind]), params, seat_strategy[0].copy(),
                  np.zeros((0, 4), dtype=np.int32), new_memo())
    t.st[:] = 0   # DEC_NONE
    assert legal_actions(t, RuleConfig().to_array()) == 0
    assert not t.legal.any()


def test_each_seat_reads_the_parameter_row_of_the_strategy_it_plays():
    """A table shares the batch's strategy rows (no copy per game): seat s reads row seat_strategy[s],
    through state.seat_params; a kernel that indexed the rows by seat would read another strategy's."""
    from numba import njit

    from gnoming_sim.kernel.state import seat_params

    @njit
    def rows(t, P):
        return np.array([seat_params(t, s)[0] for s in range(P)]), np.array([t.kinds[s] for s in range(P)])

    strategies = 3
    kinds = np.array([1, 3, 6], dtype=np.int64)
    params = np.arange(strategies, dtype=np.float64)[:, None] * 100.0 + np.zeros((strategies, N_PARAMS))
    seat_strategy = np.array([2, 0, 1, 2], dtype=np.int16)
    t = new_table(4, PUBLISHED.size, kinds, params, seat_strategy, np.zeros((0, 4), dtype=np.int32), new_memo())
    first, seat_kinds = rows(t, 4)
    assert first.tolist() == [200.0, 0.0, 100.0, 200.0]
    assert seat_kinds.tolist() == [6, 1, 3, 6]
