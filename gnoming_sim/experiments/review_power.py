"""The review's power, false marks and grade stability by simulation with a known truth.

The rollouts are replaced by each decision's measured loss drawn around its true loss with the standard
error the review's measurement has at the default budget (the standard errors of a real review,
``STANDARD_ERRORS``: the 46 graded decisions of ``examples/review-record.toml`` at ``review``'s defaults,
truncated rollouts), and a decision :func:`~gnoming_sim.search.review.measure_again` picks measured again with the
standard error of ``review.REFINE`` times the rollouts, as the review does; everything after the measurement is the
product's own code: the loss record (:func:`gnoming_sim.search.review.judge`, :func:`~gnoming_sim.search.review.refine`), the game's Benjamini-Hochberg marks on the shrunk losses
(:func:`~gnoming_sim.search.review.mark_game`) and the summary with its verdict
(:func:`~gnoming_sim.search.review.summary`).  The unit of every interval is the simulated game.

* :func:`power_curve`: one decision of true loss L planted among flawless ones (every other decision's
  alternative exactly as good as the move played), its standard error drawn from the measured ones: the
  chance that it is marked, per L;
* :func:`false_marks`: a flawless game: the chance of any mark;
* :func:`stability`: games whose true losses are drawn from a mixture (most moves flawless, some small
  losses, a few mistakes), graded at the default budget and at ten times it (standard errors / sqrt 10):
  the chance that the two verdicts are the same.

    python -m gnoming_sim.experiments.review_power     # the tables of docs/review.md
"""
from __future__ import annotations

import numpy as np

from gnoming_sim.stats import wilson

# per graded decision, the standard error of the loss (pp of win chance) of `review examples/review-record.toml`
# at the default budget (1,000 truncated measurement rollouts; 0: every rollout alike)
STANDARD_ERRORS = (0.0, 0.0, 0.004, 0.121, 0.145, 0.160, 0.165, 0.178, 0.229, 0.319, 0.422, 0.424, 0.436, 0.446,
                   0.453, 0.468, 0.486, 0.487, 0.532, 0.548, 0.566, 0.569, 0.591, 0.599, 0.624, 0.631, 0.653, 0.664,
                   0.665, 0.670, 0.687, 0.707, 0.743, 0.751, 0.787, 0.825, 0.835, 0.920, 0.934, 0.984, 0.999, 1.000,
                   1.032, 1.109, 1.146, 1.185)
LOSSES_PP = (1.0, 2.0, 3.0, 4.0, 6.0, 8.0)


def _game(rng, truth_pp: np.ndarray, scale: float = 1.0) -> list[dict]:
    """One game's graded decisions, marked: true losses ``truth_pp`` (pp), standard errors drawn from the
    measured ones (a decision whose every rollout was alike keeps a tiny one: its loss is then its truth)."""
    from gnoming_sim.search.review import REFINE, judge, mark_game, measure_again, refine

    se = np.maximum(rng.choice(STANDARD_ERRORS, size=truth_pp.size), 0.01) * scale / 100
    est = truth_pp / 100 + rng.normal(0, se)
    graded = []
    for t, e, s in zip(truth_pp / 100, est, se):
        g = judge(float(e), float(s))
        if measure_again(g["p_value"]):   # measured again, fresh, on REFINE times the rollouts (the review's step 4)
            s2 = s / np.sqrt(REFINE)
            g = refine(g, float(t + rng.normal(0, s2)), float(s2))
        graded.append({**g, "forced": False})
    mark_game(graded)
    return graded


def power_curve(games: int = 2000, seed: int = 1, losses=LOSSES_PP, decisions: int = len(STANDARD_ERRORS)) -> list:
    """Per true loss (pp): the share of games in which the planted decision is marked, with its interval."""
    rng = np.random.default_rng(seed)
    rows = []
    for loss in losses:
        hits = 0
        for _ in range(games):
            truth = np.zeros(decisions)
            truth[0] = loss
            hits += _game(rng, truth)[0]["mark"] != "ok"
        p, lo, hi = wilson(hits, games)
        rows.append({"loss_pp": loss, "games": games, "marked": p, "ci95": [lo, hi]})
    return rows


def false_marks(games: int = 10_000, seed: int = 2, decisions: int = len(STANDARD_ERRORS)) -> dict:
    """The share of flawless games (every true loss 0) with any mark."""
    rng = np.random.default_rng(seed)
    marked = sum(any(g["mark"] != "ok" for g in _game(rng, np.zeros(decisions))) for _ in range(games))
    p, lo, hi = wilson(marked, games)
    return {"games": games, "any_mark": p, "ci95": [lo, hi]}


def stability(games: int = 1000, seed: int = 3, decisions: int = len(STANDARD_ERRORS)) -> dict:
    """The share of games graded with the same verdict at the default budget and at ten times it."""
    from gnoming_sim.search.review import summary

    rng = np.random.default_rng(seed)
    same = 0
    for _ in range(games):
        kind = rng.random(decisions)
        truth = np.where(kind < 0.7, 0.0, np.where(kind < 0.9, rng.exponential(1.0, decisions),
                                                   rng.exponential(5.0, decisions)))
        one = summary(_game(rng, truth))["verdict"]
        ten = summary(_game(rng, truth, 1 / np.sqrt(10)))["verdict"]
        same += one == ten
    p, lo, hi = wilson(same, games)
    return {"games": games, "same_verdict": p, "ci95": [lo, hi]}


def main() -> None:
    for r in power_curve():
        print(f"| {r['loss_pp']:g} pp | {r['games']:,} | {100 * r['marked']:.1f}% "
              f"[{100 * r['ci95'][0]:.1f}, {100 * r['ci95'][1]:.1f}] |")
    f = false_marks()
    print(f"flawless games with a mark: {100 * f['any_mark']:.2f}% [{100 * f['ci95'][0]:.2f}, "
          f"{100 * f['ci95'][1]:.2f}] of {f['games']:,}")
    s = stability()
    print(f"same verdict at ten times the budget: {100 * s['same_verdict']:.1f}% [{100 * s['ci95'][0]:.1f}, "
          f"{100 * s['ci95'][1]:.1f}] of {s['games']:,}")


if __name__ == "__main__":
    main()
