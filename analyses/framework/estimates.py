"""Estimates with their 95% intervals, and the logistic fit behind the rules of thumb.

Every number a report shows is an :class:`Estimate`: a mean (or share), its 95%
interval and the sample size it rests on.  The constructors wrap
:mod:`gnoming_sim.batch.stats`, so the report and the ``simulate`` summaries agree.
"""
from __future__ import annotations

import math
from dataclasses import dataclass

import numpy as np

from gnoming_sim.batch.stats import Z95, mean_ci, paired_diff_ci, wilson


@dataclass(frozen=True)
class Estimate:
    """A mean with its 95% interval ``[lo, hi]`` over ``n`` samples."""

    mean: float
    lo: float
    hi: float
    n: int

    @classmethod
    def of_mean(cls, x) -> "Estimate":
        """Sample mean of ``x`` (1-d) with its normal interval."""
        mean, lo, hi, n = mean_ci(x)
        return cls(mean, lo, hi, n)

    @classmethod
    def of_share(cls, successes: float, n: int) -> "Estimate":
        """Proportion ``successes / n`` with its Wilson interval (fractional successes allowed)."""
        p, lo, hi = wilson(float(successes), int(n))
        return cls(p, lo, hi, int(n))

    @classmethod
    def of_paired(cls, a, b) -> "Estimate":
        """Mean of ``a - b`` paired sample by sample (same deals), with its interval."""
        mean, lo, hi, n = paired_diff_ci(a, b)
        return cls(mean, lo, hi, n)

    @property
    def half_width(self) -> float:
        return max(self.hi - self.mean, self.mean - self.lo)

    @property
    def finite(self) -> bool:
        return all(math.isfinite(v) for v in (self.mean, self.lo, self.hi)) and self.n > 0

    def excludes(self, value: float) -> bool:
        """True when ``value`` lies outside the interval (a 'significant' difference)."""
        return value < self.lo or value > self.hi

    def to_json(self) -> dict:
        """``{"mean": m, "ci95": [lo, hi], "n": n}`` (the summary.json form)."""
        return {"mean": float(self.mean), "ci95": [float(self.lo), float(self.hi)], "n": int(self.n)}


@dataclass(frozen=True)
class LogisticFit:
    """``P(y = 1 | x) = 1 / (1 + exp(-(b0 + b1 x)))`` fitted to grouped binomial data."""

    b0: float
    b1: float
    cov: np.ndarray   # float64 (2, 2), the inverse Fisher information
    n: int            # trials behind the fit

    def p(self, x) -> np.ndarray:
        return 1.0 / (1.0 + np.exp(-(self.b0 + self.b1 * np.asarray(x, dtype=np.float64))))

    def crossing(self, level: float = 0.5) -> Estimate | None:
        """The ``x`` where the fitted probability equals ``level``, with a delta-method interval.

        None when the curve is flat or rising (no crossing a threshold rule could use).
        """
        if not self.b1 < 0:
            return None
        logit = math.log(level / (1.0 - level))
        x = (logit - self.b0) / self.b1
        grad = np.array([-1.0 / self.b1, -(logit - self.b0) / self.b1 ** 2])
        var = float(grad @ self.cov @ grad)
        if not (math.isfinite(x) and math.isfinite(var)) or var < 0:
            return None
        half = Z95 * math.sqrt(var)
        return Estimate(x, x - half, x + half, self.n)


def fit_logistic(x, successes, trials, max_iter: int = 100) -> LogisticFit | None:
    """Maximum-likelihood logistic fit by Newton's method (IRLS) on grouped data.

    ``x``, ``successes`` and ``trials`` are 1-d arrays of equal length, one entry per
    distinct value of ``x``.  None when the fit does not converge (e.g. perfectly
    separated data, as a tiny sample can be).
    """
    x = np.asarray(x, dtype=np.float64)
    k = np.asarray(successes, dtype=np.float64)
    m = np.asarray(trials, dtype=np.float64)
    keep = m > 0
    x, k, m = x[keep], k[keep], m[keep]
    if x.size < 2 or np.ptp(x) == 0 or k.sum() in (0, m.sum()):
        return None
    centre = float(np.average(x, weights=m))   # centring keeps Newton's steps well scaled
    X = np.column_stack([np.ones_like(x), x - centre])
    beta = np.zeros(2)
    for _ in range(max_iter):
        p = 1.0 / (1.0 + np.exp(-(X @ beta)))
        w = m * p * (1 - p)
        info = X.T @ (w[:, None] * X)
        try:
            step = np.linalg.solve(info, X.T @ (k - m * p))
        except np.linalg.LinAlgError:
            return None
        beta = beta + step
        if not np.all(np.isfinite(beta)) or np.abs(beta).max() > 50:
            return None
        if np.abs(step).max() < 1e-10:
            break
    else:
        return None
    p = 1.0 / (1.0 + np.exp(-(X @ beta)))
    cov_c = np.linalg.inv(X.T @ ((m * p * (1 - p))[:, None] * X))
    # back from the centred x: b0 = a0 - a1 * centre
    J = np.array([[1.0, -centre], [0.0, 1.0]])
    b = J @ beta
    return LogisticFit(float(b[0]), float(b[1]), J @ cov_c @ J.T, int(m.sum()))


def estimates_frame(rows: list[dict]):
    """Rows of values and estimates as a DataFrame: each :class:`Estimate` spread into
    ``k, k_lo, k_hi, k_n`` columns, lists and tuples joined with spaces, dicts and None left out."""
    import pandas as pd

    flat = []
    for r in rows:
        out = {}
        for k, v in r.items():
            if isinstance(v, Estimate):
                out.update({k: v.mean, f"{k}_lo": v.lo, f"{k}_hi": v.hi, f"{k}_n": v.n})
            elif isinstance(v, (list, tuple)):
                out[k] = " ".join(map(str, v))
            elif v is not None and not isinstance(v, dict):
                out[k] = v
        flat.append(out)
    return pd.DataFrame(flat)
