"""Labels that can fail and can pass: an answer is "converged" or "still moves" only where the
equivalence test had at least 80% power at its margin with the study's n; else it is "not tested" and the words
give the power and the margin.  Convergence is judged at every table size of the published rule, not on the
average.  Each test fails if the old behaviour (a label from any TOST outcome, judged on the pooled figure) is
planted back."""
from __future__ import annotations

from gnoming_sim.analyses.framework.design import SECOND, STRONG, TOP_DIFFERENCE
from gnoming_sim.stats import Estimate
from gnoming_sim.analyses.framework.words import (CONVERGED, MOVES, UNTESTED, convergence, equivalence,
                                                  equivalence_by_size, holds_under, power, power_by_size)
from gnoming_sim.stats import DIFFERS, HOLDS, NOT_TESTED, Z95


def _est(mean: float, se: float, n: int = 5000) -> Estimate:
    return Estimate(mean, mean - Z95 * se, mean + Z95 * se, n)


def test_a_test_with_power_passes_an_agreeing_difference():
    d = _est(0.02, 0.05)                              # +-0.3: power 100%
    assert power(d, 0.3) > 0.99
    assert equivalence(d, 0.3) == HOLDS and convergence(HOLDS) == CONVERGED
    text = holds_under(HOLDS, d, 0.3, "signed")
    assert text.startswith(f"{SECOND} and {STRONG}: {CONVERGED}") and "power 100% at \u00b10.30" in text


def test_a_test_with_power_fails_a_difference_that_moves():
    d = _est(0.5, 0.05)
    assert equivalence(d, 0.3) == DIFFERS and convergence(DIFFERS) == MOVES
    text = holds_under(DIFFERS, d, 0.3, "signed")
    assert text.startswith(f"{STRONG} only: {MOVES}") and "power 100% at \u00b10.30" in text   # the power beside it
    # the same difference measured too loosely for the test to have passed had they agreed: no label
    assert equivalence(_est(0.5, 0.2), 0.3) != DIFFERS


def test_a_test_without_power_gives_no_label_whatever_the_data():
    # the committed mulligan margin: net - learned +0.18 [-0.18, +0.53] at +-0.30: power about 1%
    d = Estimate(0.18, -0.18, 0.53, 16_494)
    assert power(d, 0.3) < 0.02
    assert equivalence(d, 0.3) == NOT_TESTED and convergence(NOT_TESTED) == UNTESTED
    text = holds_under(NOT_TESTED, d, 0.3, "signed")
    assert f"{UNTESTED} along the ladder (power 1% at \u00b10.30;" in text and CONVERGED not in text
    # a lucky pass: an estimate of 0 with 50% power passes TOST, yet the test could as well have failed
    lucky = _est(0.0, 1.0 / 2.319)
    assert 0.45 < power(lucky, 1.0) < 0.55
    assert equivalence(lucky, 1.0) == NOT_TESTED


# the committed finishing study: the average finish - play on agrees tightly between net and learned (+0.01 pp
# [-0.32, +0.34]), while the published rule's crossing does not (net - learned at 4 players +0.82 [-1.48, +5.58])
CROSSINGS = {3: Estimate(-0.57, -4.28, 2.45, 1977), 4: Estimate(0.82, -1.48, 5.58, 1976),
             5: Estimate(-1.69, -3.92, 3.14, 1969), 6: Estimate(-0.13, -3.04, 2.23, 1971)}


def test_convergence_is_judged_at_every_size_not_on_the_average():
    tight = {p: _est(0.0, 0.1) for p in (3, 4, 5, 6)}
    assert equivalence_by_size(tight, 1.0) == HOLDS and power_by_size(tight, 1.0) > 0.99
    one_moves = {**tight, 4: _est(2.0, 0.1)}
    assert equivalence_by_size(one_moves, 1.0) == DIFFERS
    assert equivalence_by_size(CROSSINGS, 1.0) == NOT_TESTED and power_by_size(CROSSINGS, 1.0) == 0.0
    # the joint power is the product: four sizes at 90% each are 66%, not tested
    each = {p: _est(0.0, 1.0 / 3.29) for p in (3, 4, 5, 6)}
    assert 0.88 < power(each[3], 1.0) < 0.92 and equivalence_by_size(each, 1.0) == NOT_TESTED


def test_the_finishing_answer_reads_its_convergence_off_the_rule_not_the_average():
    from gnoming_sim.analyses.finish_play_on.findings import BASE_POLICY, _answers

    average = Estimate(0.0001, -0.0032, 0.0034, 7893)
    assert equivalence(average, 0.01) == HOLDS          # what the old answer was labelled by: "converged"
    lad = {"win": {"by_rung": {BASE_POLICY: Estimate(-0.0228, -0.0266, -0.0189, 7893)},
                   "differences": {TOP_DIFFERENCE: average}}}
    moves = {p: {TOP_DIFFERENCE: e} for p, e in CROSSINGS.items()}
    (answer,) = _answers(lad, moves)
    assert answer.key == "finish_play_on.win_difference"
    assert answer.convergence == UNTESTED and "crossing" in answer.holds_under
    assert "joint power 0% at \u00b11.00 over 4 table sizes" in answer.holds_under
    assert "\u22121.69 [\u22123.92, +3.14] at 5 players" in answer.holds_under
