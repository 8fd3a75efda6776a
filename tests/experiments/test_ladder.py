"""The strength ladder (`gnoming_sim.experiments.ladder`): its design, its estimators on data of known
answer, and small runs of heuristics whose order of strength is known.

Runs pin their seeds; each statistical check says what it expects and why.
"""
from __future__ import annotations

import math
from itertools import combinations

import numpy as np
import pytest

from gnoming_sim.experiments import ladder
from gnoming_sim.experiments.ladder_stats import (ELO, bradley_terry, head_to_head_share, skill_share,
                                                  table_size_result, Tally)
from gnoming_sim.game.errors import GnomingError

KNOWN = ("random", "greedy", "expert")   # margins vs expert: random ~ +112, greedy ~ +35 points a game


@pytest.fixture(scope="module")
def small():
    """A small ladder of three heuristics at 2 and 4 players (4 > the pool: lineups with repeats)."""
    return ladder.run(KNOWN, players=(2, 4), games=240, seed=5, threads=1, bootstrap=200).to_dict()


def _by_name(size):
    return {r["strategy"]: r for r in size["strategies"]}


def _estimates(node):
    if isinstance(node, dict):
        if "mean" in node and "ci95" in node:
            yield node
        for v in node.values():
            yield from _estimates(v)
    elif isinstance(node, list):
        for v in node:
            yield from _estimates(v)


# ----------------------------------------------------------------- estimators on known answers
def test_bradley_terry_recovers_known_strengths():
    """Win counts drawn from a Bradley-Terry model of strengths 0, 1, 2 (log scale), 4,000 results per
    pair: the fit's strengths are within 0.1 of the truth (their standard error is about 0.04)."""
    rng = np.random.default_rng(7)
    truth = np.array([0.0, 1.0, 2.0])
    wins = np.zeros((3, 3))
    for i, j in combinations(range(3), 2):
        p = 1 / (1 + math.exp(truth[j] - truth[i]))
        k = rng.binomial(4000, p)
        wins[i, j], wins[j, i] = k, 4000 - k
    theta = bradley_terry(wins, anchor=0)
    assert theta[0] == 0.0
    assert np.allclose(theta, truth, atol=0.1), theta


def test_head_to_head_share_is_the_mean_over_pairs_of_the_stronger_ones_share():
    wins = np.array([[0.0, 3.0, 0.0], [1.0, 0.0, 0.0], [0.0, 0.0, 0.0]])   # 0 beat 1 three times in 4; 2 met nobody
    assert head_to_head_share(wins, order=np.array([1.0, 0.0, 5.0])) == 0.75
    assert head_to_head_share(wins, order=np.array([0.0, 1.0, 5.0])) == 0.25


def test_skill_share_known_values():
    """Two strategies whose scores are their mean +-1 around 0 and 2: within variance 1, between 1,
    so R^2 is one half; with no spread within, it is 1; with equal means, 0."""
    n = np.array([2.0, 2.0])
    assert skill_share(n, np.array([0.0, 4.0]), np.array([2.0, 10.0])) == pytest.approx(0.5)
    assert skill_share(n, np.array([0.0, 4.0]), np.array([0.0, 8.0])) == pytest.approx(1.0)
    assert skill_share(n, np.array([2.0, 2.0]), np.array([4.0, 4.0])) == pytest.approx(0.0)


def test_the_tally_counts_every_pair_of_seats_holding_different_strategies():
    """One deal of a lineup (a, a, b) at 3 players in its 3 rotations: per game the two a-b seat pairs
    give a result each; the lower score wins and a tie is half."""
    t = Tally(("a", "b"), 3, 1)
    table = ladder.Table("lineup", ("a", "a", "b"), 1)
    # rotation r seats seats[(s + r) % 3]: r=0 a a b, r=1 a b a, r=2 b a a
    scores = np.array([[[10.0, 20.0, 15.0], [10.0, 10.0, 30.0], [5.0, 5.0, 5.0]]])
    t.add(table, scores, np.zeros_like(scores))
    # r=0: a10<b15 win, a20>b15 loss; r=1: a10=b10 tie, b10<a30 (a loses); r=2: two ties
    assert t.wins[0, 0, 1] == 1 + 0.5 + 0 + 0.5 + 0.5 and t.wins[0, 1, 0] == 1 + 0.5 + 1 + 0.5 + 0.5
    assert t.wins[0].sum() == 6   # 3 games x 2 pairs of different strategies
    assert (t.lineup_wins == t.wins).all()
    assert t.seat_games.tolist() == [[2, 2, 2], [1, 1, 1]]


def test_a_pool_without_random_or_expert_still_gets_its_order_and_margin():
    """The Order and margin tables seat random and expert even when the pool leaves them out: their games
    give each strategy's Order and margin, and no pair for the ratings (no traceback, no unrated entry)."""
    rng = np.random.default_rng(5)
    pool, P, D = ("greedy", "builder"), 2, 6
    t = Tally(pool, P, D)
    for table in ladder.design(pool, P, D, 0, min_slow=D):
        scores = rng.normal(size=(table.deals, P, P))
        t.add(table, scores, (scores == scores.min(axis=2, keepdims=True)).astype(float))
    res = table_size_result(t, pool, 0, 100, anchor="greedy")
    assert [r["strategy"] for r in res["strategies"]] == ["greedy", "builder"]
    assert all(r["order"]["n"] == D and r["margin"]["n"] == D for r in res["strategies"])
    assert t.wins[:, 0, 1].sum() + t.wins[:, 1, 0].sum() == t.lineup_wins.sum()   # pairs from the lineups only


# ----------------------------------------------------------------- design
def test_lineups_cover_every_pair_and_depend_only_on_the_seed(own_registry):
    for players in (2, 4, 6):
        lineups = ladder.lineups(ladder.DEFAULT_POOL, players, seed=3)
        met = {frozenset(p) for lineup in lineups for p in combinations(set(lineup), 2)}
        assert met == {frozenset(p) for p in combinations(ladder.DEFAULT_POOL, 2)}, players
        assert all(len(set(lineup)) == players for lineup in lineups)
        assert ladder.lineups(ladder.DEFAULT_POOL, players, seed=3) == lineups
    assert ladder.lineups(KNOWN, 3, seed=0) == [KNOWN]   # the pool is the table: its rotations do the rest


def test_monte_carlo_tables_play_fewer_deals_by_their_cost(own_registry):
    assert ladder.deals_for(("greedy", "expert"), 4000) == 4000
    mc4, mc16, mc64 = (ladder.deals_for((f"mc{b}", "expert"), 4000) for b in (4, 16, 64))
    assert 4000 > mc4 > mc16 > mc64 >= ladder.MIN_SLOW_DEALS
    assert ladder.deals_for(("mc64",) * 4, 10) == ladder.MIN_SLOW_DEALS


def test_mcN_names_the_monte_carlo_player_with_N_rollouts(own_registry):
    s = ladder.resolve("mc7")
    assert s.name == "mc7" and s.params["mc_budget"] == 7
    with pytest.raises(GnomingError, match="unknown strategy 'mcz'"):   # not mcN, not registered
        ladder.check_pool(["greedy", "mcz"])


@pytest.mark.parametrize("pool, message", [(["greedy"], "at least 2"), (["greedy", "greedy"], "twice"),
                                           (["greedy", "nosuch"], "unknown strategy 'nosuch'")])
def test_a_bad_pool_is_one_clear_error(pool, message):
    with pytest.raises(GnomingError, match=message):
        ladder.check_pool(pool)


# ----------------------------------------------------------------- small runs
def test_ratings_recover_the_known_order_of_strength(small):
    """random < greedy < expert at both table sizes, each gap clear of its interval (expert is the anchor,
    at 0; the gaps are hundreds of Elo points against intervals of tens)."""
    for size in small["tables"]:
        r = _by_name(size)
        assert r["expert"]["rating"]["mean"] == 0.0
        assert r["random"]["rating"]["ci95"][1] < r["greedy"]["rating"]["ci95"][0]
        assert r["greedy"]["rating"]["ci95"][1] < 0.0
        assert [x["strategy"] for x in size["strategies"]] == ["expert", "greedy", "random"]
        assert r["random"]["margin"]["ci95"][0] > r["greedy"]["margin"]["ci95"][1] > 0.0
        assert r["expert"]["margin"]["mean"] == 0.0


def test_every_interval_contains_its_point(small):
    found = list(_estimates(small))
    assert len(found) >= 2 * (3 * 3 + 2)
    for e in found:
        lo, hi = e["ci95"]
        assert lo <= e["mean"] <= hi, e
        assert e["n"] > 0


def test_pairwise_counts_add_up(small):
    """Each table (lineups, against expert, against random) gives deals x P rotations x (seat pairs
    holding different strategies) results; the pairs' counts and the strategies' counts are the same
    results counted by pair and by strategy."""
    for size in small["tables"]:
        p = size["players"]
        assert [t for t in size["design"] if t["kind"] == "lineup"] == [{"kind": "lineup", **lu} for lu in size["lineups"]]
        expected = sum(t["deals"] * p * sum(a != b for a, b in combinations(t["seats"], 2)) for t in size["design"])
        assert size["pairwise_results"] == expected
        assert sum(size["pair_results"].values()) == expected
        assert sum(r["results"] for r in size["strategies"]) == 2 * expected


def test_every_strategy_sits_every_seat_equally_often(small):
    for size in small["tables"]:
        for r in size["strategies"]:
            assert len(set(r["seat_games"])) == 1 and r["seat_games"][0] > 0, r


def test_order_of_random_among_randoms_is_about_zero(small):
    """A random player among randoms wins 1/P of the games by symmetry, so its Order is 0: the interval
    (pinned seed) covers 0 and is narrow; expert among randoms is near 1."""
    for size in small["tables"]:
        order = _by_name(size)["random"]["order"]
        assert order["ci95"][0] <= 0.0 <= order["ci95"][1]
        assert order["ci95"][1] - order["ci95"][0] < 0.25   # 240 deals: about +-0.1 at 2 players
        assert _by_name(size)["expert"]["order"]["mean"] > 0.9


def test_the_stronger_player_usually_wins_and_skill_explains_part_of_the_score(small):
    for size in small["tables"]:
        h, s = size["head_to_head"], size["skill_share"]
        assert 0.5 < h["mean"] <= 1.0 and h["pairs"] == 3
        assert 0.0 < s["mean"] < 1.0


def test_the_same_seed_gives_the_same_ladder(small):
    again = ladder.run(KNOWN, players=(2, 4), games=240, seed=5, threads=1, bootstrap=200).to_dict()
    strip = lambda d: {k: v for k, v in d.items() if k != "wall_s"} | {   # noqa: E731
        "tables": [{k: v for k, v in t.items() if k != "wall_s"} for t in d["tables"]]}
    assert strip(again) == strip(small)
    other = ladder.run(KNOWN, players=(2,), games=240, seed=6, threads=1, bootstrap=200).to_dict()
    assert other["tables"][0]["strategies"] != small["tables"][0]["strategies"]


def test_bad_arguments_are_refused_before_any_game(monkeypatch):
    monkeypatch.setattr(ladder, "play_table", lambda *a, **k: pytest.fail("a game was played"))
    for kwargs, message in (({"games": 0}, "--games"), ({"players": (1,)}, "between 2 and 7"),
                            ({"players": (9,)}, "between 2 and 7"), ({"bootstrap": 10}, "--bootstrap"),
                            ({"min_slow": 1}, "min_slow")):
        with pytest.raises(GnomingError, match=message):
            ladder.run(KNOWN, **{"players": (2,), **kwargs})


def test_the_elo_scale_is_400_per_factor_of_ten():
    assert ELO * math.log(10) == pytest.approx(400.0)


def test_a_strategy_that_never_loses_is_flagged():
    """Synthetic: b always beats a; the fit is then bounded only by its prior, which the result says."""
    t = Tally(("a", "b"), 2, 3)
    t.add(ladder.Table("lineup", ("a", "b"), 3), np.array([[[5.0, 1.0], [1.0, 5.0]]] * 3), np.zeros((3, 2, 2)))
    out = table_size_result(t, ("a", "b"), seed=0, bootstrap=100, anchor="a")
    flags = {r["strategy"]: r["bounded_by_prior"] for r in out["strategies"]}
    assert flags == {"a": True, "b": True}
    assert out["strategies"][0]["strategy"] == "b"
