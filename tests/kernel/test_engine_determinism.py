"""Determinism: results depend only on (seed, game index), never on threads or chunking."""
import numpy as np
import pytest

from gnoming_sim.kernel.engine import simulate
from gnoming_sim.game.errors import GnomingError


def _same(a, b):
    np.testing.assert_array_equal(a.round_stats, b.round_stats)
    np.testing.assert_array_equal(a.totals, b.totals)
    np.testing.assert_array_equal(a.win_credit, b.win_credit)


MIXED = ["random", "greedy", "builder", "rusher", "cautious"]


@pytest.mark.parametrize("players", [pytest.param(2, marks=pytest.mark.slow), 4, pytest.param(7, marks=pytest.mark.slow)])
def test_threads_and_chunks_do_not_change_results(players):
    """Heuristic seats (with their per-game workspaces) and random seats, seats rotated."""
    seats = (MIXED * 2)[:players]
    kw = dict(players=players, strategies=seats, games=3000, seed=11, rotate=True)
    base = simulate(threads=1, chunk_size=3000, **kw)
    assert len(set(base.strategy_names)) == min(players, len(MIXED))
    _same(base, simulate(threads=2, chunk_size=3000, **kw))
    _same(base, simulate(threads=2, chunk_size=17, **kw))
    _same(base, simulate(threads=1, chunk_size=1000, **kw))


@pytest.mark.parametrize("players", [2, pytest.param(6, marks=pytest.mark.slow)])
def test_learned_player_games_do_not_depend_on_threads(players):
    """The learned player (every seat, and beside expert): identical games at 1 and 2 threads."""
    for seats in (["learned"], (["learned", "expert"] * 3)[:players]):
        kw = dict(players=players, strategies=seats, games=600, seed=12, rotate=True)
        base = simulate(threads=1, **kw)
        _same(base, simulate(threads=2, chunk_size=77, **kw))


def test_a_game_depends_only_on_its_index():
    whole = simulate(players=4, games=200, seed=5)
    tail = simulate(players=4, games=50, seed=5, first_game=150)
    np.testing.assert_array_equal(whole.round_stats[150:], tail.round_stats)


def test_other_seed_other_results():
    a = simulate(players=4, games=200, seed=1)
    b = simulate(players=4, games=200, seed=2)
    assert not np.array_equal(a.totals, b.totals)


def test_traced_run_equals_untraced_run():
    plain = simulate(players=5, games=300, seed=3)
    traced = simulate(players=5, games=300, seed=3, trace=True)
    _same(plain, traced)
    assert len(traced.traces) == 300 and traced.deals.shape == (300, 3, 110)


def test_explicit_deals_replay_the_same_games():
    traced = simulate(players=4, games=200, seed=9, trace=True)
    replay = simulate(players=4, games=200, seed=9, deals=traced.deals)
    _same(traced, replay)


def test_deals_are_common_to_all_strategies_and_rules():
    """The deal stream is separate from the play stream: same seed, same deals."""
    from gnoming_sim.game.rules import RuleConfig

    a = simulate(players=3, games=50, seed=4, trace=True)
    b = simulate(players=3, games=50, seed=4, trace=True, rules=RuleConfig(rotate_start=False))
    np.testing.assert_array_equal(a.deals, b.deals)


def test_bad_deals_are_rejected():
    traced = simulate(players=2, games=3, seed=1, trace=True)
    deals = traced.deals.copy()
    deals[0, 0, 0] = 99 if deals[0, 0, 0] != 99 else 3
    with pytest.raises(GnomingError, match="permutation"):
        simulate(players=2, games=3, seed=1, deals=deals)
    with pytest.raises(GnomingError, match="shape"):
        simulate(players=2, games=2, seed=1, deals=traced.deals)


@pytest.mark.parametrize("kwargs, msg", [
    (dict(players=1), "players"), (dict(players=8), "players"), (dict(games=0), "games"),
    (dict(games=-3), "games"), (dict(seed=-1), "seed"), (dict(strategies=["nope"]), "unknown strategy"),
    (dict(threads=0), "threads"), (dict(strategies=["random", "random"]), "strategy"),
])
def test_bad_arguments_raise_user_errors(kwargs, msg):
    args = dict(players=4, games=10, seed=0)
    args.update(kwargs)
    with pytest.raises(GnomingError, match=msg):
        simulate(**args)


def test_rotation_moves_strategies_around_the_table():
    r = simulate(players=3, strategies=["random", "greedy", "builder"], games=6, seed=0, rotate=True)
    table = [tuple(r.strategy_names[j] for j in row) for row in r.seat_strategy]
    first = table[0]
    rotations = {first[k:] + first[:k] for k in range(3)}
    assert set(table) == rotations  # every game is a rotation, and all three occur
    for seat in range(3):  # so every strategy sits in every seat
        assert {row[seat] for row in table} == {"random", "greedy", "builder"}


def test_deal_orders_are_the_deals_simulate_plays():
    from gnoming_sim.kernel.engine import deal_orders

    traced = simulate(players=4, games=40, seed=12, trace=True, first_game=7)
    np.testing.assert_array_equal(deal_orders(40, seed=12, first_game=7), traced.deals)
    edited = deal_orders(40, seed=12, first_game=7)
    again = simulate(players=4, games=40, seed=12, deals=edited, first_game=7)
    _same(traced, again)


def test_deal_orders_are_the_same_at_one_and_two_threads_and_in_pieces():
    from gnoming_sim.kernel.engine import DEAL_BLOCK, deal_orders, numba_threads

    n = DEAL_BLOCK + 37   # more than one block
    with numba_threads(1):
        one = deal_orders(n, seed=5, first_game=100)
    with numba_threads(2):
        two = deal_orders(n, seed=5, first_game=100)
    np.testing.assert_array_equal(one, two)
    np.testing.assert_array_equal(one[50:], deal_orders(n - 50, seed=5, first_game=150))


def test_blocks_run_on_threads_kept_for_the_process_and_a_forked_child_gets_its_own():
    """run_blocks keeps its pool of threads; a forked child (the storage kill tests fork this process) has none
    of its parent's threads, so it must not hand its blocks to the parent's pool: they would wait forever."""
    import os
    import time

    from gnoming_sim.kernel import game_loop

    seen = []
    game_loop.run_blocks(lambda lo, hi: seen.append((lo, hi)), 5, 2, threads=2)
    assert sorted(seen) == [(0, 2), (2, 4), (4, 5)] and 2 in game_loop._POOLS
    pid = os.fork()
    if pid == 0:   # the child: the blocks on threads of its own, then out
        code = 3
        try:
            out = []
            game_loop.run_blocks(lambda lo, hi: out.append(lo), 4, 1, threads=2)
            code = 0 if sorted(out) == [0, 1, 2, 3] else 1
        finally:
            os._exit(code)
    deadline = time.monotonic() + 60
    while time.monotonic() < deadline:
        done, status = os.waitpid(pid, os.WNOHANG)
        if done:
            assert os.waitstatus_to_exitcode(status) == 0
            return
        time.sleep(0.05)
    os.kill(pid, 9)
    os.waitpid(pid, 0)
    pytest.fail("the forked child's blocks never ran")
