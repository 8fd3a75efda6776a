"""Estimates with their 95% intervals: means, paired differences, shares (Wilson, or clustered by
deal), Holm's correction for a family of tests, and the crossing behind the finishing rule.

Every number a report shows is an :class:`Estimate`: a mean (or share), its 95%
interval and the sample size it rests on.  The constructors wrap
:mod:`gnoming_sim.stats`, so the report and the ``simulate`` summaries agree.
"""
from __future__ import annotations

import math
from dataclasses import dataclass

import numpy as np
from scipy.optimize import isotonic_regression
from scipy.stats import norm

from gnoming_sim import stats
from gnoming_sim.stats import Z95, mean_ci, paired_diff_ci, wilson


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


def clustered_share(successes, trials) -> Estimate:
    """A share ``sum(successes) / sum(trials)`` whose rows come in clusters (the seats or rounds of one deal).

    ``successes`` and ``trials`` are 1-d arrays with one entry per cluster (a deal, a
    game): the units that are independent.  The interval is the normal one of a ratio
    estimator with the cluster-robust variance
    ``n / (n - 1) * sum((y_c - p m_c)**2) / (sum m_c)**2``, so rows that share a deal do not pass
    for independent draws.  ``n`` of the result counts clusters.  It is statsmodels' cluster-robust WLS
    (:func:`gnoming_sim.stats.cluster_ratio`) to the last bit or two; the formula is kept so that the
    committed report's numbers are reproduced bit for bit (tests/stats checks the two agree).
    """
    y = np.asarray(successes, dtype=np.float64).ravel()
    m = np.asarray(trials, dtype=np.float64).ravel()
    n = int(y.size)
    total = float(m.sum())
    if n == 0 or total <= 0:
        return Estimate(math.nan, math.nan, math.nan, 0)
    p = float(y.sum()) / total
    if n == 1:
        return Estimate(p, p, p, 1)
    var = n / (n - 1) * float(np.sum((y - p * m) ** 2)) / total ** 2
    half = Z95 * math.sqrt(var)
    return Estimate(p, p - half, p + half, n)


def holm(estimates, null: float = 0.0, alpha: float = 0.05) -> list[bool]:
    """Which of a family of estimates differ from ``null`` after Holm's correction.

    Each test is the two-sided normal test its 95% interval stands for (standard error
    = half-width / 1.96, the wider side of an asymmetric interval); Holm's step-down
    (:func:`gnoming_sim.stats.holm`, statsmodels) keeps the chance of any false claim in the
    family at most ``alpha``.  Returns one bool per estimate, in the given order.
    """
    # the symmetric interval of the wider half-width: the test's standard error is half-width / 1.96
    return stats.holm([stats.p_of_interval(e.mean, e.mean - e.half_width, e.mean + e.half_width, null)
                       for e in estimates], alpha)


# ----------------------------------------------------------------- where a falling curve crosses 1/2
@dataclass(frozen=True)
class Crossing:
    """Where a falling probability curve over integer ``x`` crosses ``level``.

    ``at_most``: the largest ``x`` whose (monotone) fitted probability is at least
    ``level``, i.e. the integer rule "at most ``at_most``"; ``clear`` is True when that
    rule is clear at 95%: the fitted probability at ``at_most`` has its interval above
    ``level`` and the one at ``at_most + 1`` below it.  ``point``: the crossing of the
    straight lines joining the fitted per-``x`` probabilities, with a bootstrap interval.
    """

    at_most: int
    clear: bool
    point: Estimate
    p_at: Estimate        # fitted probability at ``at_most``
    p_next: Estimate      # ... and at ``at_most + 1``
    open: bool = False    # over 2.5% of replicates crossed outside the observed values: the interval is
                          # cut at the lowest / highest observed value and the crossing is not pinned down


def _falling_fit(k: np.ndarray, n: np.ndarray) -> np.ndarray:
    """Weighted least-squares non-increasing fit to the proportions ``k / n`` (pool adjacent violators)."""
    keep = n > 0
    fit = np.full(k.shape, np.nan)
    if keep.any():
        fit[keep] = isotonic_regression(k[keep] / n[keep], weights=n[keep], increasing=False).x
    return fit


def _cross(x: np.ndarray, fit: np.ndarray, level: float) -> tuple[float, int]:
    """(interpolated crossing, integer rule) of a non-increasing fit on the integer grid ``x``.

    -inf (+inf) when the fit lies below (at or above) ``level`` over the whole grid.
    """
    above = np.nonzero(fit >= level)[0]
    if above.size == 0:
        return -math.inf, int(x[0]) - 1
    if above[-1] == fit.size - 1:
        return math.inf, int(x[-1])
    i = int(above[-1])
    f0, f1 = fit[i], fit[i + 1]
    frac = (f0 - level) / (f0 - f1) if f0 > f1 else 0.0
    return float(x[i] + frac * (x[i + 1] - x[i])), int(x[i])


def finishing_crossing(x, earned, clusters, rng: np.random.Generator, level: float = 0.5,
                       replicates: int = 200) -> Crossing | None:
    """Read the ``level`` crossing off the per-``x`` proportions, with a bootstrap over clusters.

    ``x`` (int), ``earned`` (bool) and ``clusters`` (any labels, e.g. game numbers) have one
    entry per row (a finished round).  The rows of one cluster (the rounds of one game:
    same table, same seats) need not be independent; clusters are.  A replicate reweights
    every cluster by a Poisson(1) count (the Poisson bootstrap), refits the
    non-increasing curve and reads its crossing; the 95% interval is the replicates' 2.5
    and 97.5 percentiles.  No model is assumed beyond a probability that does not rise
    with ``x``.  None when the fit never crosses ``level`` inside the observed values.
    """
    x = np.asarray(x, dtype=np.int64).ravel()
    earned = np.asarray(earned, dtype=bool).ravel()
    if x.size == 0 or x.min() == x.max():
        return None
    _, cluster = np.unique(np.asarray(clusters).ravel(), return_inverse=True)
    xi = x - x.min()
    grid = np.arange(x.min(), x.max() + 1)
    size = grid.size

    def curve(weights=None):
        n = np.bincount(xi, weights=weights, minlength=size).astype(np.float64)
        k = np.bincount(xi[earned], weights=None if weights is None else weights[earned], minlength=size)
        fit = np.full(size, np.nan)
        ok = n > 0
        fit[ok] = isotonic_regression(k[ok] / n[ok], weights=n[ok], increasing=False).x
        return _fill(fit)

    fit = curve()
    point, at_most = _cross(grid, fit, level)
    if not math.isfinite(point):
        return None
    i = at_most - int(grid[0])
    pts, p_at, p_next = np.empty(replicates), np.empty(replicates), np.empty(replicates)
    groups = int(cluster.max()) + 1
    for b in range(replicates):
        fb = curve(rng.poisson(1.0, size=groups).astype(np.float64)[cluster])
        pts[b] = _cross(grid, fb, level)[0]
        p_at[b], p_next[b] = fb[i], fb[i + 1]
    # a replicate whose curve never crosses inside the grid counts as -inf / +inf: it widens the interval
    lo = float(np.percentile(pts, 2.5, method="lower"))
    hi = float(np.percentile(pts, 97.5, method="higher"))
    is_open = not (math.isfinite(lo) and math.isfinite(hi))
    lo, hi = max(lo, float(grid[0])), min(hi, float(grid[-1]))
    n = groups
    e_at = Estimate(float(fit[i]), *np.percentile(p_at, [2.5, 97.5]).tolist(), n)
    e_next = Estimate(float(fit[i + 1]), *np.percentile(p_next, [2.5, 97.5]).tolist(), n)
    clear = bool(e_at.lo > level and e_next.hi < level) and not is_open
    return Crossing(at_most, clear, Estimate(point, lo, hi, n), e_at, e_next, is_open)


def _fill(fit: np.ndarray) -> np.ndarray:
    """Carry the fit over values with no rows (nan) from the nearest value below (or above, at the start)."""
    out = fit.copy()
    for i in range(1, out.size):
        if np.isnan(out[i]):
            out[i] = out[i - 1]
    for i in range(out.size - 2, -1, -1):
        if np.isnan(out[i]):
            out[i] = out[i + 1]
    return out


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


def stratified_mean(x, strata) -> Estimate:
    """The mean of ``x`` over strata weighted by their sizes, with the within-stratum variance.

    Where a design fixes a nuisance factor by the unit's number (a rotated lineup puts a given
    strategy in a given seat every ``P``-th deal), stratifying by it (``strata = game % P``)
    removes that factor's share of the variance the plain mean's interval would count.  The
    point estimate equals the plain mean; the interval is
    ``mean -/+ 1.96 sqrt(sum_k w_k**2 s_k**2 / n_k)`` with ``w_k = n_k / n``.  ``n`` counts units.
    """
    x = np.asarray(x, dtype=np.float64).ravel()
    strata = np.asarray(strata).ravel()
    n = int(x.size)
    if n == 0:
        return Estimate(math.nan, math.nan, math.nan, 0)
    mean = float(x.mean())
    var = 0.0
    for k in np.unique(strata):
        xk = x[strata == k]
        if xk.size > 1:
            var += (xk.size / n) ** 2 * float(xk.var(ddof=1)) / xk.size
    half = Z95 * math.sqrt(var)
    return Estimate(mean, mean - half, mean + half, n)

# ----------------------------------------------------------------- where a fitted straight line crosses 0
@dataclass(frozen=True)
class Root:
    """Where a fitted line ``a + b (x - centre)`` (plus centred covariates) crosses 0, with Fieller's interval.

    ``point`` is the root in ``x`` (its interval from Fieller's theorem with a t quantile;
    ``lo`` / ``hi`` are -inf / +inf when the interval is unbounded on that side, and the whole
    line when the slope is not clear of 0); ``slope`` the fitted slope with its t interval;
    ``bounded`` True when the interval is a finite segment.
    """

    point: Estimate
    slope: Estimate
    intercept: Estimate
    bounded: bool
    df: int


def linear_root(x, y, covariates=None) -> Root | None:
    """Root of the OLS line of ``y`` on ``x`` (and centred ``covariates``: the root is read at their means).

    One row per independent unit (a decision).  The covariance is the heteroskedasticity-robust
    HC1 sandwich, the quantile Student's t with n - k degrees of freedom.  Fieller's interval is
    the set of x0 at which ``a + b x0 = 0`` is not rejected at 5%; it is a finite segment only when
    the slope is clear of 0 (``b**2 > t**2 var(b)``), else unbounded (one or both sides infinite).
    None with fewer than k + 2 rows or no spread in ``x``.
    """
    from scipy.stats import t as student

    x = np.asarray(x, dtype=np.float64).ravel()
    y = np.asarray(y, dtype=np.float64).ravel()
    cols = [np.ones_like(x), x - x.mean()]
    if covariates is not None:
        c = np.asarray(covariates, dtype=np.float64).reshape(x.size, -1)
        cols += [c[:, j] - c[:, j].mean() for j in range(c.shape[1]) if np.ptp(c[:, j]) > 0]
    X = np.column_stack(cols)
    n, k = X.shape
    if n < k + 2 or np.ptp(x) == 0:
        return None
    inv = np.linalg.pinv(X.T @ X)
    beta = inv @ (X.T @ y)
    e = y - X @ beta
    V = n / (n - k) * inv @ (X.T * e ** 2) @ X @ inv
    q = float(student.ppf(0.975, n - k))
    a, b = float(beta[0]), float(beta[1])
    vaa, vab, vbb = float(V[0, 0]), float(V[0, 1]), float(V[1, 1])
    centre = float(x.mean())
    slope = Estimate(b, b - q * math.sqrt(vbb), b + q * math.sqrt(vbb), n)
    inter = Estimate(a, a - q * math.sqrt(vaa), a + q * math.sqrt(vaa), n)
    point = -a / b + centre if b != 0 else math.nan
    # (a + b t)^2 <= q^2 (vaa + 2 t vab + t^2 vbb), t = x0 - centre
    A, B, C = b * b - q * q * vbb, 2 * (a * b - q * q * vab), a * a - q * q * vaa
    disc = B * B - 4 * A * C
    if A > 0 and disc >= 0:
        r = sorted(((-B - math.sqrt(disc)) / (2 * A), (-B + math.sqrt(disc)) / (2 * A)))
        lo, hi, bounded = r[0] + centre, r[1] + centre, True
    elif A < 0 and disc >= 0:   # the complement of a segment: unbounded on both sides; report the whole line
        lo, hi, bounded = -math.inf, math.inf, False
    else:
        lo, hi, bounded = -math.inf, math.inf, False
    return Root(Estimate(point, lo, hi, n), slope, inter, bounded, n - k)


def t_mean(x) -> Estimate:
    """Mean of ``x`` over independent units with the Student-t 95% interval (for small n):
    :func:`gnoming_sim.stats.mean_ci_t`, with the interval collapsed to the mean below two units."""
    m, lo, hi, n = stats.mean_ci_t(x)
    if n < 2:
        return Estimate(m, m, m, n)
    return Estimate(m, lo, hi, n)


def bootstrap_mean(x, rng: np.random.Generator, replicates: int = 2000) -> Estimate:
    """Mean of ``x`` over independent units with a percentile bootstrap 95% interval (for skewed values)."""
    x = np.asarray(x, dtype=np.float64).ravel()
    n = x.size
    if n < 2:
        m = float(x.mean()) if n else math.nan
        return Estimate(m, m, m, n)
    means = x[rng.integers(0, n, size=(replicates, n))].mean(axis=1)
    lo, hi = np.percentile(means, [2.5, 97.5])
    return Estimate(float(x.mean()), float(lo), float(hi), n)


def crossing_label(x, earned, clusters, at_most: int, level: float = 0.5) -> tuple[Estimate, Estimate, float]:
    """Analytic check of an integer rule "at most ``at_most``" read off a falling fit (no bootstrap).

    The non-increasing fit pools adjacent values into blocks; the fitted probability at ``at_most``
    (and at ``at_most + 1``) is the share of its block.  Returns those two block shares with their
    cluster-robust intervals (:func:`clustered_share`, clusters e.g. games) and the p-value of the
    rule being clear: the larger of the one-sided normal p-values of "P at the rule > ``level``" and
    "P above it < ``level``" (an intersection-union test), for :func:`holm_p` over a family of rules.
    """
    x = np.asarray(x, dtype=np.int64).ravel()
    earned = np.asarray(earned, dtype=bool).ravel()
    _, cluster = np.unique(np.asarray(clusters).ravel(), return_inverse=True)
    grid = np.arange(x.min(), x.max() + 1)
    xi = x - x.min()
    n = np.bincount(xi, minlength=grid.size).astype(np.float64)
    k = np.bincount(xi[earned], minlength=grid.size).astype(np.float64)
    ok = n > 0
    fit = np.full(grid.size, np.nan)
    fit[ok] = isotonic_regression(k[ok] / n[ok], weights=n[ok], increasing=False).x
    fit = _fill(fit)

    def block(i: int) -> Estimate:
        # a value with no rows carries the fit of the nearest observed value below (above, at the start)
        below = np.nonzero(ok[:i + 1])[0]
        i = int(below[-1]) if below.size else int(np.nonzero(ok)[0][0])
        same = np.isclose(fit, fit[i]) & ok
        lo, hi = i, i
        while lo > 0 and same[lo - 1]:
            lo -= 1
        while hi < grid.size - 1 and same[hi + 1]:
            hi += 1
        rows = (xi >= lo) & (xi <= hi)
        y = np.bincount(cluster[rows], weights=earned[rows].astype(np.float64), minlength=int(cluster.max()) + 1)
        m = np.bincount(cluster[rows], minlength=int(cluster.max()) + 1).astype(np.float64)
        keep = m > 0
        return clustered_share(y[keep], m[keep])

    i = int(at_most - grid[0])
    if i < 0 or i + 1 >= grid.size:
        nan = Estimate(math.nan, math.nan, math.nan, 0)
        return nan, nan, 1.0
    e_at, e_next = block(i), block(i + 1)

    def one_sided(e: Estimate, above: bool) -> float:
        se = e.half_width / Z95
        if not se > 0:
            return 0.0 if (e.mean > level if above else e.mean < level) else 1.0
        z = (e.mean - level) / se if above else (level - e.mean) / se
        return float(norm.sf(z))

    return e_at, e_next, max(one_sided(e_at, True), one_sided(e_next, False))


def holm_p(pvalues, alpha: float = 0.05) -> list[bool]:
    """Holm's step-down on raw p-values (:func:`gnoming_sim.stats.holm`): which hypotheses are rejected
    with family-wise error ``alpha``."""
    return stats.holm(pvalues, alpha)


def paired_ratio_difference(y1, m1, y2, m2) -> Estimate:
    """``sum(y1)/sum(m1) - sum(y2)/sum(m2)`` over the same clusters (e.g. two arms on the same deals), with the
    normal interval of the linearized (delta-method) cluster-robust variance.  One entry per cluster in each
    array, the same cluster at the same index; ``n`` counts clusters."""
    y1, m1, y2, m2 = (np.asarray(v, dtype=np.float64).ravel() for v in (y1, m1, y2, m2))
    n = y1.size
    if n < 2 or m1.sum() <= 0 or m2.sum() <= 0:
        return Estimate(math.nan, math.nan, math.nan, n)
    p1, p2 = y1.sum() / m1.sum(), y2.sum() / m2.sum()
    u = (y1 - p1 * m1) / m1.sum() - (y2 - p2 * m2) / m2.sum()
    half = Z95 * math.sqrt(n / (n - 1) * float((u * u).sum()))
    d = float(p1 - p2)
    return Estimate(d, d - half, d + half, n)
