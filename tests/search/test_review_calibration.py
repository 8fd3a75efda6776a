"""Calibration of the review's marks and verdict by simulation (ties).

The rollouts are replaced by synthetic rollout outcomes of a known truth, so that thousands of games cost
seconds; everything after the rollouts is the product's own code: the choice of the alternative
(:func:`review.choose`, the criterion's ranking), the loss record (:func:`review.judge`; a loss whose p-value is
in ``review.measure_again``'s range measured again on ``review.REFINE`` times the rollouts, :func:`review.refine`), the game's
Benjamini-Hochberg marks read from the shrunk loss (:func:`review.mark_game`) and the summary with its
shrunk error rate and verdict (:func:`review.summary`).

Sampling model, sized to the default budget: a decision has 2-6 options with true win chances; the
screening estimates each with noise of 2.8 pp (100 rollouts), the selection batch each candidate with
noise of 2 pp (250 rollouts); the measurement's 500 paired rollouts of the move played and the alternative
are drawn outcome by outcome (each rollout: the alternative wins and the move played does not, the reverse,
or both alike; a share of 12-35% of rollouts differ, so the loss's standard error is 1.5-2.6 pp, as the
real review's 2.0-2.3 pp).  A game is 53 graded decisions (46-60 in play).

Ties are the hard case: every alternative exactly as good as the move played, so that any choice among
them is as good as any other and the loss's p-value is exactly uniform (a loss cross-fitted over two halves
that chose with each other, as the review once measured it, marked 6.9% [5.9, 8.1] of such games, n 2,000,
against the stated 5%: docs/history.md).
"""
from __future__ import annotations

import numpy as np
import pytest

from gnoming_sim.search import review
from gnoming_sim.stats import wilson

DECISIONS = 53
MEASURE = review.CONFIRM          # the measurement's paired rollouts
SELECT = review.CONFIRM // 2      # the selection batch's
SCREEN = review.SCREEN
GAMES = 2000


def _measure(rng, loss: float, n: int = MEASURE, differ: float | None = None) -> tuple[float, float, float]:
    """The paired loss of the move played behind the alternative on ``n`` rollouts whose outcomes are
    drawn one by one (as counts): each rollout +1 (only the alternative wins), -1 (only the move played
    wins) or 0, with true mean ``loss``; (estimate, its ordinary paired standard error, the share that
    differ)."""
    differ = max(rng.uniform(0.12, 0.35), abs(loss) + 0.05) if differ is None else differ
    up, down, _ = rng.multinomial(n, [(differ + loss) / 2, (differ - loss) / 2, 1 - differ])
    mean = (up - down) / n
    var = ((up + down) / n - mean ** 2) * n / (n - 1)
    return float(mean), float(np.sqrt(var / n)), differ


def _decision(rng, played_loss: float, ties: str, planted: float | None = None) -> dict:
    """One graded decision.  ``played_loss``: the move played behind the best option (0: the best);
    ``ties``: "tied" (every other option exactly as good as the best), "near" (each within 0.5 pp of it)
    or "mixed" (half the decisions one, half the other).  ``planted``: this decision's own loss instead."""
    k = int(rng.integers(2, 7))
    kind = ties if ties != "mixed" else ("tied" if rng.random() < 0.5 else "near")
    top = rng.uniform(0.1, 0.7)
    win = np.full(k, top) - (rng.uniform(0, 0.005, k) if kind == "near" else 0.0)
    win[0] = top                       # option 0 is a best option
    lost = played_loss if planted is None else planted
    played = 0
    if lost > 0:                       # the move played is option 1, ``lost`` behind the best
        win[1] = top - lost
        played = 1
    margin = np.zeros(k)               # equal margins: the criterion reads the win chances
    screened = win + rng.normal(0, 0.028, k)
    order = sorted(range(k), key=lambda i: -screened[i])
    cands = [i for i in order if i != played][:review.CANDIDATES]
    selected = win[cands] + rng.normal(0, 0.02, len(cands))
    a = review.choose({"win": 100 * screened[cands], "margin": margin[cands], "n": SCREEN},
                      {"win": 100 * selected, "margin": margin[cands], "n": SELECT})
    truth = win[cands[a]] - win[played]
    loss, se, differ = _measure(rng, truth)
    record = review.judge(loss, se)
    if review.measure_again(record["p_value"]):   # measured again on fresh rollouts, as the review's step 4
        again, se2, _ = _measure(rng, truth, review.REFINE * MEASURE, differ)
        record = review.refine(record, again, se2)
    return {"forced": False, "played": "p", "played_label": "p", "alternative": "a", "alternative_label": "a",
            **record}


def _game(rng, played_loss: float = 0.0, ties: str = "tied", planted: dict | None = None) -> list[dict]:
    """One game's graded decisions, marked; ``planted``: {decision index: its own loss}."""
    planted = planted or {}
    graded = [_decision(rng, played_loss, ties, planted.get(i)) for i in range(DECISIONS)]
    review.mark_game(graded)
    return graded


def _marked(graded) -> int:
    return sum(1 for g in graded if g["mark"] != "ok")


def _share(hits: int, n: int) -> str:
    p, lo, hi = wilson(hits, n)
    return f"{100 * p:.2f}% [{100 * lo:.1f}, {100 * hi:.1f}] of {n:,} games"


@pytest.mark.slow   # a calibration (tests/calibration is slow too)
def test_a_flawless_game_with_tied_options_is_marked_at_no_more_than_the_stated_rate():
    """Every move played is a best one and every other option is exactly as good: each decision's p-value
    is uniform, and BH at 5% over independent decisions marks a game with probability 5% exactly.  The
    interval of the share of marked games must reach 5% (measured 5.50% [4.6, 6.6]; the cross-fitted
    review's, 6.9% [5.9, 8.1], did not)."""
    rng = np.random.default_rng(51)
    marked = sum(_marked(_game(rng, ties="tied")) > 0 for _ in range(GAMES))
    _, lo, _ = wilson(marked, GAMES)
    assert lo <= review.MARK_RATE, f"flawless games with tied options marked: {_share(marked, GAMES)}"


@pytest.mark.slow
def test_a_flawless_game_with_tied_or_near_tied_options_is_marked_in_at_most_5_percent():
    """Half the decisions' options tied, half within 0.5 pp of the best: at most 5% of games marked (the
    interval reaches 5%; measured 4.85% [4.0, 5.9]); Expert or better in at least 95% of 400 of them."""
    rng = np.random.default_rng(52)
    games = [_game(rng, ties="mixed") for _ in range(GAMES)]
    marked = sum(_marked(g) > 0 for g in games)
    _, lo, _ = wilson(marked, GAMES)
    assert lo <= review.MARK_RATE, f"flawless games with near-tied options marked: {_share(marked, GAMES)}"
    summaries = [review.summary(g) for g in games[:400]]
    good = [s["verdict"] in ("Supernatural", "World class", "Expert") for s in summaries]
    assert np.mean(good) >= 0.95, f"Expert or better in {np.mean(good):.1%} of 400 flawless games"
    assert min(s["error_rate_ci95"][0] for s in summaries) >= 0.0


@pytest.mark.slow
def test_a_steady_loser_of_1_5_pp_is_not_rated_better_than_casual():
    """Every move played 1.5 pp behind the best, the other options tied with it or within 0.5 pp: Casual or
    worse in 97% of 400 games (Beginner 246, Casual 87, Awful 55, Intermediate 11, Advanced 1), median
    error rate 1.46 pp."""
    rng = np.random.default_rng(15)
    games = [review.summary(_game(rng, 0.015, ties="mixed")) for _ in range(400)]
    bands = [v for v, _ in review.VERDICTS]
    casual = bands.index("Casual player")
    ranks = np.array([bands.index(s["verdict"]) for s in games])
    rates = np.array([s["error_rate_pp"] for s in games])
    assert (ranks >= casual).mean() >= 0.9, dict(zip(bands, np.bincount(ranks, minlength=len(bands))))
    assert bands[int(np.median(ranks))] in ("Casual player", "Beginner")
    assert 1.1 < float(np.median(rates)) < 1.7, np.median(rates)
    assert all(s["error_rate_ci95"][0] >= 0 for s in games)


@pytest.mark.slow
def test_inaccuracies_are_reachable_and_a_lone_blunder_keeps_its_size():
    """At the default budget: a 3 pp loss among a flawless game's moves is separated and marked ``?!`` (its
    shrunk size under 4 pp) in some games (two such losses; a loss the first measurement suggests is measured
    again on four times the rollouts, so a 6 pp loss now reads ``?``, its size); a lone 16 pp blunder is
    separated and keeps ``??`` (the shrinkage does not pull it toward the good moves)."""
    rng = np.random.default_rng(6)
    inaccuracy = blunder = 0
    n = 300
    for _ in range(n):
        graded = _game(rng, ties="mixed", planted={0: 0.03, 1: 0.03, 2: 0.16})
        inaccuracy += any(g["symbol"] == "?!" for g in graded[:2])
        blunder += graded[2]["symbol"] == "??"
    assert inaccuracy / n >= 0.1, f"a 3 pp loss marked ?! in {_share(inaccuracy, n)}"
    assert blunder / n >= 0.95, f"a lone 16 pp blunder marked ?? in {_share(blunder, n)}"


def test_every_loss_counts_and_none_is_zeroed():
    """Thirty unseparated losses of 1.5 pp (each interval includes 0) still make a 1.5 pp error rate."""
    graded = [{"forced": False, **review.judge(0.015, 0.02)} for _ in range(30)]
    review.mark_game(graded)
    s = review.summary(graded)
    assert s["marks"]["ok"] == 30 and s["error_rate_pp"] == pytest.approx(1.5, abs=0.02)
    assert s["verdict"] == "Beginner" and s["error_rate_ci95"] == pytest.approx([1.5, 1.5], abs=0.02)


def test_the_error_rate_interval_is_never_negative():
    graded = [{"forced": False, **review.judge(x, 0.02)} for x in (-0.05, -0.03, 0.0, -0.01, 0.002)]
    review.mark_game(graded)
    s = review.summary(graded)
    assert s["error_rate_pp"] >= 0 and s["error_rate_ci95"][0] >= 0 and s["error_rate_ci95"][1] >= 0


def test_marks_are_read_from_the_shrunk_loss():
    """Among fifty flawless moves, a separated 6.8 pp loss can shrink below 4 pp (``?!``, not ``?``); a 20 pp
    one stays a blunder; a loss among others of its size is not shrunk away.  A single graded decision is
    its own loss."""
    def game(extra, se, seed=3):
        rng = np.random.default_rng(seed)
        graded = [{"forced": False, **review.judge(float(x), 0.021)} for x in rng.normal(0, 0.021, 50)]
        graded += [{"forced": False, **review.judge(x, se)} for x in extra]
        review.mark_game(graded)
        return graded[50:]

    (small,) = game([0.068], 0.021, seed=0)
    assert small["separated"] and small["loss_win"]["shrunk"] < 0.04 and small["symbol"] == "?!", small
    (big,) = game([0.20], 0.021)
    assert big["separated"] and big["loss_win"]["shrunk"] >= 0.08 and big["symbol"] == "??", big
    several = game([0.065] * 6, 0.021)
    assert all(g["loss_win"]["shrunk"] > 0.04 for g in several), [g["loss_win"] for g in several]
    alone = [{"forced": False, **review.judge(0.05, 0.01)}]
    review.mark_game(alone)
    assert alone[0]["loss_win"]["shrunk"] == pytest.approx(0.05) and alone[0]["symbol"] == "?"
