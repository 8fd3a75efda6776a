"""The review's power and false marks at the default budget, by simulation with a known truth
(:mod:`gnoming_sim.experiments.review_power`: the measured standard errors, the product's own marks)."""
import pytest

from gnoming_sim.experiments import review_power as RP


@pytest.mark.slow
def test_a_flawless_game_is_marked_at_most_5_percent_with_the_power_to_see_6():
    f = RP.false_marks(games=10_000)
    assert f["ci95"][1] < 0.06, f          # 10,000 games: an interval of about +-0.45 pp, so 6% would be seen
    assert f["any_mark"] <= 0.055, f


@pytest.mark.slow
def test_the_power_grows_with_the_loss_and_a_4_pp_loss_is_marked_in_9_of_10_games():
    rows = RP.power_curve(games=600, losses=(1.0, 2.0, 4.0, 8.0))
    marked = [r["marked"] for r in rows]
    assert marked == sorted(marked), rows
    assert rows[2]["ci95"][0] > 0.9 and rows[3]["marked"] > 0.99, rows


def test_the_standard_errors_are_the_reviews_at_its_default_budget():
    from gnoming_sim.search import review

    assert review.CONFIRM == 1000 and len(RP.STANDARD_ERRORS) == 46
    assert list(RP.STANDARD_ERRORS) == sorted(RP.STANDARD_ERRORS)


def test_a_decision_measured_twice_has_a_p_value_uniform_with_no_loss():
    """The review's two-step measurement (a p-value in [SURE_P, REFINE_P) measured again on REFINE times the
    rollouts, fresh; its p-value SURE_P + (REFINE_P - SURE_P) times the second's), simulated with no loss, 40,000
    decisions: the p-values are uniform, so the game's Benjamini-Hochberg marks keep their rate; a p-value that
    forgot the first step (the second's alone) is caught."""
    import numpy as np
    from scipy.stats import kstest

    from gnoming_sim.search.review import REFINE, judge, measure_again, refine

    rng = np.random.default_rng(7)
    n = 40_000
    ps, naive = [], []
    for e in rng.normal(0, 1, n):
        g = judge(float(e), 1.0)
        if measure_again(g["p_value"]):
            second = float(rng.normal(0, 1 / np.sqrt(REFINE)))
            g = refine(g, second, 1 / np.sqrt(REFINE))
            naive.append(judge(second, 1 / np.sqrt(REFINE))["p_value"])
        else:
            naive.append(g["p_value"])
        ps.append(g["p_value"])
    ps, naive = np.array(ps), np.array(naive)
    assert kstest(ps, "uniform").pvalue > 0.001                 # one test of the whole distribution
    for level in (0.001, 0.01, 0.05):                           # the tail the marks read, each within 99.9%
        k = int((ps < level).sum())
        assert abs(k - n * level) < 3.3 * np.sqrt(n * level * (1 - level)), (level, k)
    assert kstest(naive, "uniform").pvalue < 1e-6               # without the first step's factor: caught


@pytest.mark.slow
def test_measuring_again_finds_a_2_pp_loss_in_9_of_10_games():
    rows = RP.power_curve(games=1000, losses=(2.0,))
    assert rows[0]["ci95"][1] >= 0.9 and rows[0]["marked"] >= 0.87, rows
