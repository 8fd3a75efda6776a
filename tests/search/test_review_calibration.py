"""Calibration of the review's marks and verdict by simulation (issue 31, item 5).

The rollouts are replaced by their sampling model, so that thousands of games cost seconds; everything
after the rollouts is the product's own code: the screening ranking (:func:`criterion.best`), the loss
record (:func:`review.judge`), the game's Benjamini-Hochberg marks (:func:`review.mark_game`) and the
summary with its shrunk error rate and verdict (:func:`review.summary`).

Sampling model, sized to the default budget: a decision has 2-6 options with true win chances; screening
estimates each with noise of 2.8 pp (100 rollouts, paired differences of 4 pp); each half of the
confirmation measures each alternative's lead over the move played with a standard error of 1.7-3.4 pp
(250 fresh rollouts: 1.2-2.4 pp for the whole batch).  A game is 53 graded decisions (46-60 in play).
"""
from __future__ import annotations

import numpy as np
import pytest

from gnoming_sim.search import criterion, review

DECISIONS = 53
SCREEN_SD = 0.04
GAMES = 1000


def _game(rng, played_loss: float | None) -> dict:
    """One game's summary.  ``played_loss`` None: every move played is the best (a flawless player);
    else every move played is ``played_loss`` behind the best, the other options further behind."""
    graded = []
    for _ in range(DECISIONS):
        k = int(rng.integers(2, 7))
        win = rng.uniform(0.1, 0.7) - np.concatenate([[0.0], np.sort(rng.exponential(0.05, k - 1))])
        played = 0
        if played_loss is not None:
            win[1] = win[0] - played_loss
            win[2:] = np.minimum(win[2:], win[0] - played_loss - 0.02)
            played = 1
        margin = -10 * win   # any margin: the win chances are never equal here
        screened = win + rng.normal(0, SCREEN_SD / np.sqrt(2), k)
        order = criterion.order([{"win": w, "margin": 0.0} for w in screened], "game")
        cands = [i for i in order if i != played][:review.CANDIDATES]
        se_half = rng.uniform(0.012, 0.024) * np.sqrt(2)
        folds = []
        for _ in range(2):
            shared = rng.normal(0, se_half / np.sqrt(2))   # the played move's own noise, common to its losses
            est = win[cands] + rng.normal(0, se_half / np.sqrt(2), len(cands))
            folds.append({"win": est, "margin": margin[cands], "loss": est - win[played] - shared,
                          "se": np.full(len(cands), se_half), "n": 250})
        scr = {"win": screened[cands], "margin": margin[cands], "n": 100}
        loss, se, _ = review.cross_fit(scr, folds)
        graded.append({"forced": False, "played": "p", "played_label": "p", "alternative": "a",
                       "alternative_label": "a", **review.judge(loss, se)})
    review.mark_game(graded)
    return review.summary(graded)


@pytest.mark.slow   # a calibration (tests/calibration is slow too)
def test_a_flawless_game_gets_marks_at_no_more_than_the_stated_rate():
    rng = np.random.default_rng(31)
    games = [_game(rng, None) for _ in range(GAMES)]
    marks = np.array([sum(s["marks"][m] for m in ("inaccuracy", "mistake", "blunder")) for s in games])
    separated = np.array([s["graded"] for s in games])
    assert (separated == DECISIONS).all()
    # BH at the stated rate, every hypothesis true: P(any mark in a game) <= MARK_RATE
    share_marked = float(np.mean(marks > 0))
    assert share_marked <= review.MARK_RATE, share_marked
    assert float(marks.mean()) <= review.MARK_RATE
    verdicts = [s["verdict"] for s in games]
    assert np.mean([v in ("Supernatural", "World class", "Expert") for v in verdicts]) >= 0.95
    assert min(s["error_rate_ci95"][0] for s in games) >= 0.0


@pytest.mark.slow
def test_a_steady_loser_of_1_5_pp_is_not_rated_better_than_casual():
    rng = np.random.default_rng(15)
    games = [_game(rng, 0.015) for _ in range(GAMES // 4)]
    bands = [v for v, _ in review.VERDICTS]
    casual = bands.index("Casual player")
    ranks = np.array([bands.index(s["verdict"]) for s in games])
    rates = np.array([s["error_rate_pp"] for s in games])
    assert (ranks >= casual).mean() >= 0.9, np.bincount(ranks)
    assert bands[int(np.median(ranks))] in ("Casual player", "Beginner")
    assert 1.1 < float(np.median(rates)) < 1.7, np.median(rates)
    assert all(s["error_rate_ci95"][0] >= 0 for s in games)


def test_every_loss_counts_and_none_is_zeroed():
    """Thirty unseparated losses of 1.5 pp (each interval includes 0) still make a 1.5 pp error rate."""
    graded = [{"forced": False, **review.judge(0.015, 0.02)} for _ in range(30)]
    review.mark_game(graded)
    s = review.summary(graded)
    assert s["marks"]["ok"] == 30 and s["error_rate_pp"] == pytest.approx(1.5)
    assert s["verdict"] == "Beginner" and s["error_rate_ci95"] == pytest.approx([1.5, 1.5])


def test_the_error_rate_interval_is_never_negative():
    graded = [{"forced": False, **review.judge(x, 0.02)} for x in (-0.05, -0.03, 0.0, -0.01, 0.002)]
    review.mark_game(graded)
    s = review.summary(graded)
    assert s["error_rate_pp"] >= 0 and s["error_rate_ci95"][0] >= 0 and s["error_rate_ci95"][1] >= 0
