"""Calibration of the README's card answer: the answer's own procedure
(``experiments.card_check``, as ``versus_expert_along`` reads it for the answer: the card in one seat among
three of the strong player, against expert in that seat among the same rivals on the same deals, rotated, a t
interval over deals) on 60 independent replicates of the real simulation (20 deals at 4 players each, the
answer's own range of deals).  Each replicate's 95% interval must cover the pooled estimate, and a planted
effect (each deal's difference negated by a fair coin, then a fixed effect of about 5 replicate standard errors added), at a rate
consistent with 95% (one-sided binomial test at 1%: 52 of 60 or fewer fails; power 82% against intervals 30%
too narrow, tests/calibration/replicates.py)."""
import numpy as np
import pandas as pd
import pytest

from gnoming_sim.analyses.framework.design import STRONG
from gnoming_sim.stats import Estimate
from gnoming_sim.analyses.card.design import ALONG, HEADLINE_PLAYERS, first_game
from gnoming_sim.experiments.card_check import _per_deal, t_interval

from .replicates import K, assert_calibrated, calibrate, flip_sign

KEYS = ('card.card_vs_expert',)
TRUTH = {KEYS[0]: 17.5}   # the planted effect: about 5 replicate standard errors (3.5 points at 20 deals)
DEALS = 20 * K


def answer(data) -> dict:
    d = t_interval(data["deals"]["diff"].to_numpy())
    return {KEYS[0]: Estimate(d["mean"], *d["ci95"], d["n"])}


def plant(data, rng, truth) -> dict:
    f = data["deals"].copy()
    f["diff"] = flip_sign(f["diff"], rng, truth[KEYS[0]])
    return {"deals": f}


@pytest.mark.slow   # 1,200 deals x 4 rotations x 2 tables (the card, expert) among the strong player
def test_the_card_intervals_cover_the_pooled_estimate_and_a_planted_effect_at_95_percent():
    (_, diff, *_), = _per_deal((ALONG,), HEADLINE_PLAYERS, DEALS, 2024, None, None, None,
                               first_game(HEADLINE_PLAYERS), STRONG)
    data = {"deals": pd.DataFrame({"game": np.arange(DEALS), "diff": diff})}
    assert_calibrated(calibrate(data, answer, plant, seed=51, truth=TRUTH), KEYS)
