"""Calibration of the README's mulligan answers: the answer's own procedure
(``mulligan_value.findings._ladder``: the paired difference per deal under the strong player, the mulligan arm
against the one placed at a random depth, 2 to 7 players) on 60 independent replicates of the real simulation
of its own tables (the strong player at every seat; ~66 paired deals per replicate).  Each replicate's 95%
interval must cover the pooled estimate, and a planted effect (arms swapped by a fair coin per deal, then a fixed
effect of about 5 replicate standard errors added), at a rate consistent with 95% (one-sided binomial test at 1%: 52 of 60 or
fewer fails; power 82% against intervals 30% too narrow, tests/calibration/replicates.py)."""
import pytest

from gnoming_sim.analyses.framework.design import STRONG
from gnoming_sim.analyses.mulligan_value import findings
from gnoming_sim.analyses.mulligan_value.findings import MAIN
from gnoming_sim.analyses.mulligan_value.design import DEALT_STRONG
from gnoming_sim.analyses.mulligan_value.study import MulliganValue

from .replicates import assert_calibrated, calibrate, flip_pairs, play

KEYS = ('mulligan_value.win_chance', 'mulligan_value.margin')
# the planted effects: about 5 replicate standard errors (0.052 and 1.9 points at 66 deals)
TRUTH = {KEYS[0]: 0.25, KEYS[1]: -10.0}
DATA = DEALT_STRONG[STRONG]


def answer(data) -> dict:
    f = data[DATA]
    top = findings._ladder({STRONG: f[f["ok"]]}, ())[STRONG]["all"][MAIN]
    return {KEYS[0]: top["win"], KEYS[1]: top["margin"]}


def plant(data, rng, truth) -> dict:
    pairs = (("win_m", f"win_{MAIN}"), ("margin_m", f"margin_{MAIN}"))
    return {**data, DATA: flip_pairs(data[DATA], rng, pairs, {"win_m": truth[KEYS[0]], "margin_m": truth[KEYS[1]]})}


@pytest.mark.slow   # plays the strong player's tables once at 1,200 games per design cell (3,960 deals)
def test_the_mulligan_intervals_cover_the_pooled_estimate_and_a_planted_effect_at_95_percent():
    _, _, data = play(MulliganValue(), 1200, keep=lambda t: t.arm.endswith("@" + STRONG))
    assert_calibrated(calibrate(data, answer, plant, seed=51, truth=TRUTH), KEYS)
