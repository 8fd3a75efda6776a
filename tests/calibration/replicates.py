"""Independent replicates of a study, for the calibration suite.

A study is played once; its data are split into :data:`K` parts by game number (every game is its own deal,
so the parts are independent replicates of the real simulation, and the arms a study pairs on a deal stay
together).  Each answer's own procedure (the function of the study's module that makes the answer, checked
equal to the study's :meth:`analyse` on the whole) is run on every part, twice:

* on the part as played: its 95% interval should cover the whole's estimate (the pooled one) about 95% of
  the time.  This catches intervals too narrow for the data's own spread, skew and clustering, but not a
  bias: a biased procedure is biased on the whole too, and its replicates still cover the whole;
* on the part with a known effect planted (:func:`flip_pairs`, :func:`flip_sign`): every deal's two arms
  swapped or kept by a fair coin, which makes the true effect exactly 0 whatever the games, then a known
  effect added to one arm.  Its interval should cover the planted truth about 95% of the time: a
  procedure that misses the truth (reads the wrong arm, weighs the wrong rows, shrinks the effect) fails.
  The planted effect is fixed per answer at about :data:`PLANT_SE` = 5 replicate standard errors in the
  direction of the pooled estimate, so a procedure that shrinks or inflates effects by a fifth misses by one
  standard error (fails 82% of the time) and by a third by 1.7 (fails over 99.9%).

The criterion (:meth:`Coverage.consistent`): a one-sided binomial test of too few covers against 95% at
:data:`ALPHA`; with ``K = 60`` a check fails at 52 covers or fewer.  Its power (:func:`power`) against
intervals 30% too narrow (they cover 83.0% of the time) is 82.2%, and against a one-standard-error bias
(covers 83.0% too) the same; honest intervals fail it 1.0% of the time (tests/calibration/test_replicates.py
checks all three by simulation)."""
from __future__ import annotations

import math
import warnings
from dataclasses import dataclass

import numpy as np
import pandas as pd
from scipy.stats import binom, norm

from gnoming_sim.stats import Estimate

K = 60          # replicates per answer (at least 60)
ALPHA = 0.01    # coverage "consistent with 95%": a one-sided binomial test of too few covers at this level
LEVEL = 0.95
NARROW = 0.7    # the interval 30% too narrow that the suite must catch with power >= 80%
PLANT_SE = 5.0  # the planted effect, in replicate standard errors (in the pooled estimate's direction)


def passes(covered: int, k: int = K, alpha: float = ALPHA) -> bool:
    """Whether ``covered`` of ``k`` intervals is consistent with 95% coverage (binomial, one-sided)."""
    return float(binom.cdf(covered, k, LEVEL)) >= alpha


def critical(k: int = K, alpha: float = ALPHA) -> int:
    """The most covers that fail the criterion: ``passes(c)`` is False for ``c <= critical(k)``."""
    return int(max(c for c in range(k + 1) if not passes(c, k, alpha)))


def coverage_of(scale: float = 1.0, bias_se: float = 0.0) -> float:
    """The true coverage of a normal 95% interval whose half-width is ``scale`` times the honest one and
    whose centre is off by ``bias_se`` standard errors."""
    z = float(norm.isf((1 - LEVEL) / 2)) * scale
    return float(norm.cdf(z - bias_se) - norm.cdf(-z - bias_se))


def power(true_coverage: float, k: int = K, alpha: float = ALPHA) -> float:
    """The chance that intervals covering ``true_coverage`` of the time fail the criterion at ``k``."""
    return float(binom.cdf(critical(k, alpha), k, true_coverage))


def part_of(data, k: int, r: int):
    """Replicate ``r`` of ``k``: the rows of every game-keyed frame whose game number is ``r`` modulo ``k``
    (frames without a game column, and other values, are kept whole)."""
    if isinstance(data, pd.DataFrame):
        return data[data["game"] % k == r].reset_index(drop=True) if "game" in data.columns else data
    if isinstance(data, dict):
        return {key: part_of(v, k, r) for key, v in data.items()}
    return data


def flip_pairs(frame: pd.DataFrame, rng: np.random.Generator, pairs, shift: dict) -> pd.DataFrame:
    """A known truth planted in paired rows: each row's columns ``(a, b)`` of every pair swapped by one fair
    coin per row (the true mean of ``a - b`` is then 0), then ``shift[a]`` added to ``a``: the truth is it."""
    out = frame.copy()
    swap = rng.random(len(out)) < 0.5
    for a, b in pairs:
        x, y = out[a].to_numpy(dtype=np.float64), out[b].to_numpy(dtype=np.float64)
        out[a] = np.where(swap, y, x) + shift.get(a, 0.0)
        out[b] = np.where(swap, x, y)
    return out


def flip_sign(values, rng: np.random.Generator, shift: float) -> np.ndarray:
    """A known truth planted in per-unit differences: each value's sign flipped by a fair coin (true mean
    0), then ``shift`` added (the truth)."""
    v = np.asarray(values, dtype=np.float64)
    return np.where(rng.random(v.size) < 0.5, -v, v) + shift


@dataclass(frozen=True)
class Coverage:
    key: str
    target: float          # the value the intervals should cover: the pooled estimate or the planted truth
    covered: int
    replicates: int
    n_per_replicate: float
    what: str = "pooled"   # "pooled" or "planted"

    @property
    def pvalue(self) -> float:
        """One-sided: are there fewer covers than a 95% interval gives?"""
        return float(binom.cdf(self.covered, self.replicates, LEVEL))

    def consistent(self) -> bool:
        return passes(self.covered, self.replicates)

    def line(self) -> str:
        return (f"{self.key} ({self.what} {self.target:+.4f}): {self.covered} of {self.replicates} cover "
                f"(p = {self.pvalue:.4f}; n {self.n_per_replicate:.0f} per replicate)")


def plant_size(whole: Estimate, parts: list[Estimate]) -> float:
    """:data:`PLANT_SE` replicate standard errors, signed as ``whole``: the standard deviation of the parts'
    estimates (their spread, not their intervals, so that a procedure's too narrow intervals do not shrink
    the effect planted to test it)."""
    se = float(np.std([e.mean for e in parts], ddof=1))
    return math.copysign(PLANT_SE * se, whole.mean if whole.mean != 0 else 1.0)


def calibrate(data, answer, plant, seed: int, k: int = K, truth=plant_size) -> list[Coverage]:
    """Both coverages (pooled, planted) of every answer ``answer(data) -> {key: Estimate}`` over ``k``
    replicates; ``plant(part, rng, {key: truth}) -> part`` plants each truth: ``truth[key]``, or
    ``truth(whole, parts)`` (:func:`plant_size`: 5 replicate standard errors).  The studies' tests fix their
    truths (about 5 replicate standard errors each), so that what is planted does not depend on the
    procedure under test: a procedure that shrinks its estimates would shrink a size read off them."""
    whole = answer(data)
    parts = [part_of(data, k, r) for r in range(k)]
    real = [answer(p) for p in parts]
    truths = {key: truth[key] if isinstance(truth, dict) else truth(whole[key], [e[key] for e in real])
              for key in whole}
    rng = np.random.default_rng(seed)
    planted = [answer(plant(p, rng, truths)) for p in parts]
    out = []
    for key in whole:
        n = float(np.mean([e[key].n for e in real]))
        out.append(Coverage(key, whole[key].mean, sum(int(e[key].lo <= whole[key].mean <= e[key].hi) for e in real),
                            len(real), n, "pooled"))
        out.append(Coverage(key, truths[key], sum(int(e[key].lo <= truths[key] <= e[key].hi) for e in planted),
                            len(planted), n, "planted"))
    return out


def assert_calibrated(results: list[Coverage], keys) -> None:
    """Every answer ``keys`` has both checks at :data:`K` replicates, each consistent with 95% coverage."""
    assert {c.key for c in results} >= set(keys), sorted({c.key for c in results})
    bad = [c.line() for c in results if c.key in keys and not c.consistent()]
    assert all(c.replicates == K for c in results if c.key in keys)
    assert not bad, "; ".join(bad)
    for c in results:   # shown with -s: the suite's figures
        print(c.line())


def concluded(study, ctx, tables, data) -> dict[str, Estimate]:
    """The study's own answers on ``data`` (its figures closed: only the numbers are read).  A small replicate
    can leave a figure without a labelled line, which matplotlib warns of; that warning is about the picture."""
    import matplotlib.pyplot as plt

    with warnings.catch_warnings():
        warnings.filterwarnings("ignore", message="No artists with labels found", category=UserWarning)
        result = study.conclude(ctx, tables, data)
    for f in result.figures:
        plt.close(f.figure)
    return {a.key: a.estimate for a in result.answers}


def same(a: Estimate, b: Estimate) -> bool:
    """The answer procedure's estimate is the study's (mean, interval and n)."""
    return (math.isclose(a.mean, b.mean, rel_tol=1e-12, abs_tol=1e-15) and math.isclose(a.lo, b.lo, rel_tol=1e-12, abs_tol=1e-15)
            and math.isclose(a.hi, b.hi, rel_tol=1e-12, abs_tol=1e-15) and a.n == b.n)


def play(study, games: int, keep=lambda table: True, seed: int = 2024):
    """``study`` played at ``games`` per design cell, only the tables ``keep`` selects (those its answer
    reads): ``(ctx, tables, data)``."""
    from gnoming_sim.analyses.framework.study import Context

    ctx = Context(seed=seed, games=games)
    tables = [t for t in study.design(ctx) if keep(t)]
    return ctx, tables, study.play(ctx, ctx.study_seed(study.stream or study.id), tables, lambda n: None)
