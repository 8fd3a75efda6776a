"""Coverage of every interval method the report uses, on synthetic data whose truth is known.

For each method a case with a known true value is simulated on independent seeds, the
95% interval is built every time, and the share of intervals that contain the truth
must lie in [92%, 98%].  Each method's negative control computes the interval on the
wrong unit (the seats or rounds of a game as if they were independent games) and must
under-cover: that is what the tests guard against.  Seeds are pinned, so the result is
the same on every run.
"""
from __future__ import annotations

import math

import numpy as np
import pytest

from gnoming_sim.stats import Estimate, clustered_share, finishing_crossing

pytestmark = pytest.mark.slow   # about a minute in all

TRIALS = 400
LOW, HIGH = 0.92, 0.98


def _rng(method: str, trial: int) -> np.random.Generator:
    return np.random.default_rng([sum(method.encode()), len(method), trial])


def _coverage(method: str, one_trial, trials: int = TRIALS) -> float:
    hits = 0
    for t in range(trials):
        estimate, truth = one_trial(_rng(method, t))
        hits += estimate.lo <= truth <= estimate.hi
    return hits / trials


# ----------------------------------------------------------------- the cases
GAMES, SEATS = 300, 4


def _game_scores(rng, games=GAMES):
    """Scores of (games, SEATS) seats: a shared game effect (the deal) plus a skewed seat part.

    True mean per seat: 30 + 0 + 8 = 38.
    """
    deal = rng.normal(0.0, 12.0, size=(games, 1))
    seat = rng.gamma(2.0, 4.0, size=(games, SEATS))
    return 30.0 + deal + seat, 38.0


def mean_over_games(rng):
    scores, truth = _game_scores(rng)
    return Estimate.of_mean(scores.mean(axis=1)), truth     # one number per game


def mean_over_seats(rng):
    scores, truth = _game_scores(rng)
    return Estimate.of_mean(scores.ravel()), truth          # wrong: the seats of a game share its deal


def paired_difference(rng):
    """Two arms on the same deals: the deal's effect cancels in the difference; true difference -3."""
    deal = rng.normal(0.0, 15.0, size=GAMES)
    a = 40.0 + deal + rng.normal(0.0, 3.0, size=GAMES) - 3.0
    b = 40.0 + deal + rng.normal(0.0, 3.0, size=GAMES)
    return Estimate.of_paired(a, b), -3.0


def paired_difference_of_seats(rng):
    """The same with four seats per deal sharing a seat-level deal effect, taken as independent pairs."""
    deal = rng.normal(0.0, 4.0, size=(GAMES, 1))
    a = deal + rng.normal(0.0, 1.0, size=(GAMES, SEATS)) - 0.5
    b = rng.normal(0.0, 1.0, size=(GAMES, SEATS))
    return Estimate.of_paired(a.ravel(), b.ravel()), -0.5


def wilson_share(rng):
    n, p = 500, 0.3
    return Estimate.of_share(int(rng.binomial(n, p)), n), p


def _clustered_rows(rng, clusters=400, size=SEATS, p=0.3, rho=0.3):
    """Clusters of ``size`` Bernoulli(p) rows with intra-cluster correlation ``rho`` (beta-binomial)."""
    a = p * (1 - rho) / rho
    b = (1 - p) * (1 - rho) / rho
    q = rng.beta(a, b, size=clusters)
    return rng.binomial(size, q), np.full(clusters, size), p


def clustered_proportion(rng):
    y, m, p = _clustered_rows(rng)
    return clustered_share(y, m), p


def wilson_on_rows(rng):
    y, m, p = _clustered_rows(rng)
    return Estimate.of_share(int(y.sum()), int(m.sum())), p   # wrong: rows of a cluster taken as independent


# the finishing rule: rounds (rows) in games; a game effect shifts every round of the game
XS = np.arange(-4, 13)
SLOPE, CENTRE, GAME_SD = 0.45, 4.3, 3.0
NODES, WEIGHTS = np.polynomial.hermite_e.hermegauss(60)


def _marginal(x):
    """P(earned | x) averaged over the game effect (Gauss-Hermite): the per-score truth."""
    z = -SLOPE * (np.asarray(x, dtype=np.float64)[:, None] - CENTRE) + GAME_SD * NODES[None, :]
    return (1 / (1 + np.exp(-z))) @ WEIGHTS / WEIGHTS.sum()


def _true_crossing() -> float:
    p = _marginal(XS)
    i = int(np.nonzero(p >= 0.5)[0][-1])
    return float(XS[i] + (p[i] - 0.5) / (p[i] - p[i + 1]))


TRUE_CROSSING = _true_crossing()


def _rounds(rng, games=1000, per_game=6):
    """Rows of ``games`` games; a game's rows share its effect and lie near one score, as a game's
    finishes share its table.  The score is independent of the effect, so P(earned | x) is ``_marginal``."""
    u = np.repeat(rng.normal(0.0, GAME_SD, size=games), per_game)
    near = np.repeat(rng.integers(XS[0] + 1, XS[-1], size=games), per_game)
    x = near + rng.integers(-1, 2, size=games * per_game)
    earned = rng.random(x.size) < 1 / (1 + np.exp(SLOPE * (x - CENTRE) - u))
    return x, earned, np.repeat(np.arange(games), per_game)


def crossing_by_game(rng):
    x, earned, game = _rounds(rng)
    c = finishing_crossing(x, earned, game, rng)
    return c.point, TRUE_CROSSING


def crossing_by_round(rng):
    x, earned, _ = _rounds(rng)
    c = finishing_crossing(x, earned, np.arange(x.size), rng)   # wrong: a game's rounds as independent
    return c.point, TRUE_CROSSING


# ----------------------------------------------------------------- the tests
@pytest.mark.parametrize("method", [mean_over_games, paired_difference, wilson_share, clustered_proportion])
def test_interval_covers_the_truth_95_percent_of_the_time(method):
    coverage = _coverage(method.__name__, method)
    assert LOW <= coverage <= HIGH, f"{method.__name__}: coverage {coverage:.3f}"


def test_the_finishing_rule_crossing_covers_the_truth():
    coverage = _coverage("crossing", crossing_by_game, trials=200)
    assert LOW <= coverage <= HIGH, f"crossing: coverage {coverage:.3f}"


@pytest.mark.parametrize("method, trials", [(mean_over_seats, TRIALS), (paired_difference_of_seats, TRIALS),
                                            (wilson_on_rows, TRIALS), (crossing_by_round, 200)])
def test_an_interval_on_seats_or_rounds_instead_of_games_under_covers(method, trials):
    coverage = _coverage(method.__name__, method, trials)
    assert coverage < LOW, f"{method.__name__}: coverage {coverage:.3f} (should fall short of {LOW})"


def test_the_true_crossing_is_where_the_per_score_truth_crosses_one_half():
    p = _marginal(np.array([math.floor(TRUE_CROSSING), math.floor(TRUE_CROSSING) + 1]))
    assert p[0] >= 0.5 > p[1]
