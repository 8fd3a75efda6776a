"""The robustness check of ``analyse`` (search/robust.py): "robust" exactly when the two analyses
recommend the same option (ties as the verdict counts them), both rankings best first, and the
second analysis on the same rollout seeds as the first."""
from __future__ import annotations

import pytest
from _examples import position

from gnoming_sim.game.errors import GnomingError
from gnoming_sim.search import robust



def _result(policy: str, means: dict, equivalent=(), separated=True) -> dict:
    """A minimal analysis result (the round horizon): options keyed by name, ``means`` their margins,
    ranked as the analysis ranks them (:func:`gnoming_sim.search.criterion.order`), the lowest best."""
    from gnoming_sim.search.criterion import order

    keys = list(means)
    ranked = order([{"margin": means[k]} for k in keys], "round")
    best = keys[ranked[0]]
    options = [{"key": k, "option": f"option {k}", "mean": m, "ci95": [m - 1, m + 1], "n": 100, "best": k == best,
                "rank": ranked.index(j) + 1, "same_as_best": k in equivalent} for j, (k, m) in enumerate(means.items())]
    return {"policies": [policy], "options": options, "best": best, "equivalent": list(equivalent),
            "separated": separated, "lead": 1.0, "n": 100}


def test_the_same_best_option_is_robust_and_a_different_one_depends_on_the_policy():
    a = _result("learned", {"x": 1.0, "y": 2.0, "z": 3.0})
    same = robust.compare(a, _result("expert", {"x": 5.0, "y": 9.0, "z": 6.0}))
    assert same["verdict"] == robust.ROBUST and same["robust"] and same["best"] == ["x", "x"]
    other = robust.compare(a, _result("expert", {"x": 5.0, "y": 4.0, "z": 6.0}, separated=False))
    assert other["verdict"] == robust.DEPENDS and not other["robust"] and other["best"] == ["x", "y"]
    assert other["separated"] == [True, False] and other["policies"] == ["learned", "expert"]


def test_an_option_equal_to_the_best_in_every_rollout_is_the_same_recommendation():
    a = _result("learned", {"x": 1.0, "y": 1.0, "z": 3.0}, equivalent=("y",))
    assert robust.compare(a, _result("expert", {"x": 2.0, "y": 1.5, "z": 3.0}))["robust"]


def test_rankings_are_best_first_with_rank_mean_interval_and_n():
    ranked = robust.ranking(_result("expert", {"x": 3.0, "y": 1.0, "z": 2.0}))
    assert [r["key"] for r in ranked] == ["y", "z", "x"] and [r["rank"] for r in ranked] == [1, 2, 3]
    assert all({"mean", "ci95", "n", "option"} <= set(r) for r in ranked)


def test_policy_labels_and_seats():
    assert robust.label(["expert"] * 4) == "expert" and robust.label(["a", "b"]) == "a,b"
    assert robust.seat_policies("expert", 3) == ["expert"] * 3 == robust.seat_policies(["expert"], 3)


def test_analyse_runs_the_second_policy_on_the_same_rollout_seeds():
    """Under the same policy twice the second analysis is the first, number for number (same seeds);
    a policy equal to the base policy is not run again."""
    from gnoming_sim.game.position import from_toml
    from gnoming_sim.search.estimates import estimate

    pos = position()
    res = estimate(pos, ["builder"], seed=4, rollouts=60, second_policies=["greedy"])
    rob = res["robustness"]
    assert rob["checked"] and rob["policies"] == ["builder", "greedy"] and rob["second"]["policies"] == ["greedy"]
    assert rob["verdict"] in (robust.ROBUST, robust.DEPENDS) and len(rob["rankings"]) == 2
    again = estimate(pos, ["greedy"], seed=4, rollouts=60, second_policies=None)
    assert again["robustness"] is None
    assert [r["mean"] for r in again["options"]] == [r["mean"] for r in rob["second"]["options"]]
    same = estimate(pos, ["builder"], seed=4, rollouts=30, second_policies=["builder"] * pos.players)
    assert same["robustness"]["checked"] is False


def test_a_monte_carlo_second_policy_is_refused_before_any_rollout():
    from gnoming_sim.game.position import from_toml
    from gnoming_sim.search.estimates import estimate

    with pytest.raises(GnomingError, match="second policy: 'mc' plays by rollouts itself"):
        estimate(position(), ["builder"], seed=1, rollouts=10, second_policies="mc")
