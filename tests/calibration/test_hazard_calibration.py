"""Calibration of the README's hazard answers: the answer's own procedure
(``hazard_risk.findings._ladder``: the paired difference per blind draw under the strong player, the hazard arm
against an ordinary card, 2 to 7 players) on 60 independent replicates of the real simulation of its own tables
(the strong player at every seat; ~60 blind draws per replicate).  Each replicate's 95% interval must cover
the pooled estimate, and a planted effect (arms swapped by a fair coin per deal, then a fixed effect of
about 5 replicate standard errors added), at a rate consistent with 95% (one-sided binomial test at 1%: 52 of 60 or fewer fails; power
82% against intervals 30% too narrow, tests/calibration/replicates.py)."""
import pytest

from gnoming_sim.analyses.framework.design import STRONG
from gnoming_sim.analyses.hazard_risk import findings
from gnoming_sim.analyses.hazard_risk.design import DRAWN_STRONG
from gnoming_sim.analyses.hazard_risk.study import HazardRisk

from .replicates import assert_calibrated, calibrate, flip_pairs, play

KEYS = ('hazard_risk.win_chance', 'hazard_risk.margin')
# the planted effects: about 5 replicate standard errors (0.040 and 1.9 points at 62 draws)
TRUTH = {KEYS[0]: -0.20, KEYS[1]: 9.0}
DATA = DRAWN_STRONG[STRONG]


def answer(data) -> dict:
    f = data[DATA]
    top = findings._ladder({STRONG: f[f["ok"]]}, ())[STRONG]["all"]
    return {KEYS[0]: top["win"], KEYS[1]: top["margin"]}


def plant(data, rng, truth) -> dict:
    pairs = (("win_h", "win_o"), ("margin_h", "margin_o"))
    return {**data, DATA: flip_pairs(data[DATA], rng, pairs, {"win_h": truth[KEYS[0]], "margin_h": truth[KEYS[1]]})}


@pytest.mark.slow   # plays the strong player's tables once at 6,000 games per design cell (~3,700 blind draws)
def test_the_hazard_intervals_cover_the_pooled_estimate_and_a_planted_effect_at_95_percent():
    _, _, data = play(HazardRisk(), 6000, keep=lambda t: t.experiment == "drawn" and t.arm.endswith("@" + STRONG))
    assert_calibrated(calibrate(data, answer, plant, seed=51, truth=TRUTH), KEYS)
