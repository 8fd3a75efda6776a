"""``mc_vs`` (the README's MC-vs-expert table) and ``games_per_second``, measured on a few games:
the row is the paired per-game difference of the held-out games, exactly what the engine played."""
from __future__ import annotations

import numpy as np

from gnoming_sim.experiments.heldout import HELD_OUT_FIRST
from gnoming_sim.experiments.mc_eval import games_per_second, mc_strategy, mc_vs
from gnoming_sim.kernel.engine import simulate


def test_mc_vs_expert_is_the_paired_difference_of_the_games_played():
    rows = mc_vs("expert", players=(3,), games=3, seed=5, budget=1, threads=1)
    assert len(rows) == 1
    row = rows[0]
    assert row["players"] == 3 and row["games"] == 3 and row["a"] == "mc1" and row["b"] == "expert"
    res = simulate(players=3, strategies=[mc_strategy(1), "expert", mc_strategy(1)], games=3, seed=5,
                   first_game=HELD_OUT_FIRST, rotate=True, threads=1)
    is_mc = res.seat_strategy == 0
    tot = res.totals.astype(float)
    diff = (tot * is_mc).sum(axis=1) / is_mc.sum(axis=1) - (tot * ~is_mc).sum(axis=1) / (~is_mc).sum(axis=1)
    assert np.isclose(row["diff"], diff.mean())
    assert row["lo"] < row["diff"] < row["hi"]   # a 95% interval around it (the games differ)
    assert np.isclose(row["a_score"], ((tot * is_mc).sum(axis=1) / is_mc.sum(axis=1)).mean())


def test_games_per_second_is_a_positive_rate():
    assert games_per_second(["greedy"], players=3, games=8) > 0
