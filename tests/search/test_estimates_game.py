"""Rollouts from simulated games: the trace replay rebuilds the table exactly (a differential
test against the game itself), and the true hidden cards never reach an imperfect-information
analysis (a permutation test)."""
from __future__ import annotations

import numpy as np
import pytest

from gnoming_sim.search.estimates import estimate, position_from_game, run_rollouts, setup
from gnoming_sim.batch.runner import BatchSpec
from gnoming_sim.game import trace as T
from gnoming_sim.game.fields import F_SCORE
from gnoming_sim.kernel.engine import simulate
from gnoming_sim.search.rollout import X_SCORE

SEATS = ["builder", "greedy", "rusher", "cautious"]


def _turns(trace):
    """Per game-wide turn number: (round, seat, draw source taken), and the rounds with a reshuffle."""
    turns, shuffled, r = [], set(), 0
    for kind, seat, a, b in trace.tolist():
        if kind == T.ROUND:
            r = a
        elif kind == T.TURN:
            turns.append([r, seat, None])
        elif kind == T.DRAW:
            turns[-1][2] = a
        elif kind == T.RESHUFFLE:
            shuffled.add(r)
    return turns, shuffled


@pytest.mark.slow
@pytest.mark.parametrize("game", [0, 3])
def test_peek_replays_the_game_exactly(game):
    """With the true cards, the game's own seats as base policies and the draw the game made, the
    rollout ends the round exactly as the game did (heuristic seats draw no random numbers)."""
    spec = BatchSpec.make(4, SEATS, 1, 1, True)
    res = simulate(players=4, strategies=list(spec.seats), games=1, seed=1, first_game=game, rotate=True,
                   trace=True)
    seats = [res.strategy_names[j] for j in res.seat_strategy[0]]
    turns, shuffled = _turns(res.traces[0])
    checked = 0
    for turn in range(0, len(turns), 7):
        r, seat, src = turns[turn]
        if r in shuffled or src is None:
            continue
        pos = position_from_game(1, game, turn, 4, spec.seats, rotate=spec.rotate)
        assert (pos.round, pos.me) == (r, seat)
        s = setup(pos, seats, peek=True)
        k = [o.src for o in s.options].index(src)
        out, _ = run_rollouts(s, 2, seed=0, horizon="round", peek=True)
        assert (out[:, k, X_SCORE] == res.round_stats[0, r, seat, F_SCORE]).all(), (turn, r, seat)
        checked += 1
    assert checked >= 5


@pytest.mark.slow
def test_hidden_cards_never_reach_the_analysis():
    """Permute the true hidden cards (face down anywhere and the draw pile): the analysis is unchanged;
    with --peek it is not (the truth path is live)."""
    pos = position_from_game(1, 2, 9, 4, SEATS)
    lay, draw = pos.truth
    rng = np.random.default_rng(7)
    hidden = [(s, q) for s in range(4) for q in range(9) if pos.layouts[s, q] < -99]
    cards = np.array([lay[s, q] for s, q in hidden] + list(draw), dtype=np.int8)
    rng.shuffle(cards)
    lay2 = lay.copy()
    for (s, q), c in zip(hidden, cards):
        lay2[s, q] = c
    draw2 = cards[len(hidden):]
    from dataclasses import replace

    other = replace(pos, truth=(lay2, draw2))
    a = estimate(pos, ["builder"], seed=3, rollouts=300, horizon="round")
    b = estimate(other, ["builder"], seed=3, rollouts=300, horizon="round")
    assert a == b
    pa = estimate(pos, ["builder"], seed=3, rollouts=50, horizon="round", peek=True)
    pb = estimate(other, ["builder"], seed=3, rollouts=50, horizon="round", peek=True)
    assert [r["mean"] for r in pa["options"]] != [r["mean"] for r in pb["options"]]


def test_game_horizon_adds_the_later_rounds():
    pos = position_from_game(1, 0, 5, 4, SEATS)
    s = setup(pos, ["builder"])
    out, _ = run_rollouts(s, 200, seed=1, horizon="game")
    from gnoming_sim.search.rollout import X_GAME, X_WIN

    later = out[:, :, X_GAME] - out[:, :, X_SCORE] - pos.scores[pos.me]
    assert later.std() > 0                      # rounds 2 and 3 were played
    assert np.all((out[:, :, X_WIN] >= 0) & (out[:, :, X_WIN] <= 1))
    res = estimate(pos, ["builder"], seed=1, rollouts=200, horizon="game", second_policies=None)
    assert res["metric"] == "win chance (%)" and res["points_metric"] == "game score" and "p_win" in res["options"][0]


def test_half_width_runs_a_confirmatory_batch():
    pos = position_from_game(1, 0, 20, 4, SEATS)
    res = estimate(pos, ["builder"], seed=1, rollouts=400, half_width=0.5, horizon="round", second_policies=None)
    a = res["adaptive"]
    assert a["pilot"] == 400 and res["n"] == a["confirmatory"]
    assert a["reached"] == (res["half_width"] <= 0.5)


def test_blind_draw_luck_has_mean_zero():
    """The luck control variate is only valid if its mean is 0 under every option (pinned seed;
    3.5 standard errors)."""
    from gnoming_sim.search.rollout import X_LUCK, X_LUCK_OTHERS

    pos = position_from_game(1, 1, 6, 4, SEATS)
    s = setup(pos, ["builder"])
    out, _ = run_rollouts(s, 6000, seed=8, horizon="round")
    for k in range(len(s.options)):
        for field in (X_LUCK, X_LUCK_OTHERS):
            x = out[:, k, field]
            assert x.std() > 0
            assert abs(x.mean()) < 3.5 * x.std(ddof=1) / np.sqrt(x.size), (k, field, x.mean())
