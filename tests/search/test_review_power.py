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
