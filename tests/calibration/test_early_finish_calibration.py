"""Calibration of the README's early finish answer: the answer's own
procedure (``early_finish.findings._ladder``: the share of finished rounds whose finisher earns the -5, the
strong player at every seat of a 4-player table, clustered by game) on 60 independent replicates of the real
simulation of its own tables (~56 games, ~160 finished rounds per replicate).  Each replicate's 95% interval
must cover the pooled estimate, and a planted share (every finished round's outcome redrawn with 60% as its
known mean and a game effect: each game's chance drawn from a Beta with that mean, intra-game
correlation 0.1), at a rate consistent with 95% (one-sided binomial test at 1%: 52 of 60 or fewer fails; power
82% against intervals 30% too narrow, tests/calibration/replicates.py)."""
import dataclasses

import numpy as np
import pytest

from gnoming_sim.analyses.early_finish import findings
from gnoming_sim.analyses.early_finish.design import HEADLINE_PLAYERS, arm
from gnoming_sim.analyses.early_finish.study import EarlyFinish
from gnoming_sim.analyses.framework.design import STRONG

from .replicates import assert_calibrated, calibrate, play

KEYS = ('early_finish.bonus_strong',)
TRUTH = {KEYS[0]: 0.6}   # the planted share (the pooled one is 0.63)
RHO = 0.1   # the planted outcomes' intra-game correlation (a game's rounds share its table)


def _rows(data):
    return ((data["arm"] == STRONG) & (data["players"] == HEADLINE_PLAYERS) & ~data["stalled"]).to_numpy()


def plant(data, rng, truth):
    p = truth[KEYS[0]]
    rows = _rows(data)
    games, game = np.unique(data["game"].to_numpy()[rows], return_inverse=True)
    chance = rng.beta(p * (1 / RHO - 1), (1 - p) * (1 / RHO - 1), games.size)[game]
    out = data.copy()
    earned = out["earned"].to_numpy().copy()
    earned[rows] = rng.random(rows.sum()) < chance
    out["earned"] = earned
    return out


@pytest.mark.slow   # plays the strong player's 4-player tables once (3,360 games: 26,880 per design cell, 1/8 of them)
def test_the_early_finish_intervals_cover_the_pooled_estimate_and_a_planted_share_at_95_percent():
    _, tables, data = play(EarlyFinish(), 26_880, keep=lambda t: arm(t) == STRONG and t.players == HEADLINE_PLAYERS)

    def answer(d):
        e = findings._ladder(d[~d["stalled"]], tables)[HEADLINE_PLAYERS][STRONG]
        # n: the games of this part (the procedure counts every game number of its tables as a cluster, a part's
        # others with no rounds: they weigh nothing)
        return {KEYS[0]: dataclasses.replace(e, n=int(d.loc[_rows(d), "game"].nunique()))}

    assert_calibrated(calibrate(data, answer, plant, seed=51, truth=TRUTH), KEYS)
