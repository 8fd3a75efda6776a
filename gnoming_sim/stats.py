"""The project's statistics, in one place, from the libraries statisticians maintain.

Studies (``analyses/``), search (``analyse``, ``review``), tuning and the command line import their
intervals, multiple-testing corrections and equivalence words from here:

* multiple testing: :func:`holm` (family-wise error, of p-values or of intervals) and :func:`bh` (false
  discovery rate), ``statsmodels.stats.multitest.multipletests``'s;
* proportions: :func:`wilson` (and :func:`wilson_many` for arrays), ``statsmodels.stats.proportion.proportion_confint(method="wilson")``;
* means: :func:`mean_ci` (normal, ``z = 1.96``: the studies' and summaries' intervals), :func:`mean_ci_t`
  (Student t quantiles from ``scipy.stats.t``), :func:`cluster_mean` and :func:`cluster_ratio` (statsmodels
  OLS / WLS on a constant with ``cov_type="cluster"``; the studies' clustered shares);
* the studies' :class:`Estimate` (a mean, its 95% interval and its n) and their estimators: :func:`t_mean`,
  :func:`bootstrap_mean` (``scipy.stats.bootstrap``), :func:`clustered_share`, :func:`paired_ratio_difference`,
  :func:`stratified_mean`, :func:`independent_difference`, :func:`standard_errors` (paired and unpaired), and
  the crossing of a falling curve (:func:`finishing_crossing`, :func:`crossing_label`:
  ``scipy.optimize.isotonic_regression``, a Poisson bootstrap over clusters);
* equivalence: :func:`tost` (two one-sided tests on an estimate and its standard error, checked against
  ``statsmodels.stats.weightstats.ttost_paired``), its power :func:`tost_power` (the two one-sided tests'
  powers from ``statsmodels.stats.power.normal_power_het``) and the margin it has power for
  (:func:`tost_margin_for_power`), and :func:`equivalence_word`, the one function that says "holds",
  "differs", "not shown to differ" or "not tested" (no power at the margin: no label can be earned);
* agreement of parts: :func:`heterogeneity`, Cochran's Q of estimates of one quantity on independent parts
  (the table sizes of a pooled answer), ``statsmodels.stats.meta_analysis.combine_effects``: whether a pooled
  figure is one answer or the parts must be stated apart.

Hand-written, because no library computes them from running sums: :func:`mean_ci_from_sums` and
:func:`ratio_ci_from_sums` (each tested against an exact value or :func:`mean_ci`); because the library is
slower per call (tests/stats checks each equal to it): :func:`holm` (``multipletests`` runs ``gc.collect()``)
and :func:`clustered_share` (:func:`cluster_ratio`, statsmodels WLS).

statsmodels is imported inside the functions: ``gnoming-sim --help`` and the kernels do not pay for it.
"""
from __future__ import annotations

import math
from dataclasses import dataclass
from functools import lru_cache
from typing import NamedTuple

import numpy as np

Z95 = 1.96

HOLDS, DIFFERS, NOT_SHOWN = "holds", "differs", "not shown to differ"
# the word where the equivalence test had less than POWER_NEEDED to pass at its margin: neither
# "holds" nor "differs" can be earned by a test that could not pass, so no label is given
NOT_TESTED = "not tested"
POWER_NEEDED = 0.80


@lru_cache(maxsize=None)
def alpha_of(z: float) -> float:
    """The two-sided level whose normal quantile is exactly ``z`` (``norm.isf(alpha / 2) == z``), so that a
    library asked for level ``alpha_of(1.96)`` uses the same 1.96 as the hand-written intervals did."""
    from scipy.stats import norm

    a = 2 * float(norm.sf(z))
    for direction in (-1.0, 1.0):
        x = a
        for _ in range(64):
            if float(norm.isf(x / 2)) == z:
                return float(x)
            x = float(np.nextafter(x, direction))
    return a


# ----------------------------------------------------------------- multiple testing
def _pvalues(pvalues) -> np.ndarray:
    p = np.asarray(list(pvalues), dtype=np.float64)
    return np.where(np.isnan(p), 1.0, p)   # an untestable hypothesis is kept, never rejected


def holm(family, alpha: float = 0.05, null: float = 0.0) -> list[bool]:
    """Holm's step-down: which hypotheses of ``family`` are rejected at family-wise error ``alpha``, in the
    given order.  ``family`` holds p-values, or :class:`Estimate` s: each the two-sided normal test of
    ``null`` its 95% interval stands for (standard error = half-width / 1.96, the wider side of an asymmetric
    interval).  Exactly ``multipletests(method="holm")[0]`` (tests/stats checks them equal on random
    families); written out because statsmodels' Holm branch calls ``gc.collect()`` on every call, 100-150 ms
    with the kernels' heap loaded (a test of 300 families took 144 s)."""
    p = _pvalues(p_of_interval(e.mean, e.mean - e.half_width, e.mean + e.half_width, null)
                 if isinstance(e, Estimate) else e for e in family)
    m = p.size
    if m == 0:
        return []
    order = np.argsort(p, kind="mergesort")
    reject = np.zeros(m, dtype=bool)
    for rank, i in enumerate(order):
        if not p[i] <= alpha / (m - rank):   # a NaN is never rejected and stops the step-down
            break
        reject[i] = True
    return [bool(r) for r in reject]


def bh(pvalues, rate: float = 0.05) -> tuple[list[bool], list[float]]:
    """Benjamini-Hochberg on ``pvalues`` at false discovery rate ``rate`` (``multipletests(method="fdr_bh")``):
    (rejected, adjusted p-values), in the given order.  Under the complete null (every hypothesis true)
    the chance of any rejection is at most ``rate``."""
    from statsmodels.stats.multitest import multipletests

    p = _pvalues(pvalues)
    if p.size == 0:
        return [], []
    reject, adjusted, _, _ = multipletests(p, alpha=rate, method="fdr_bh")
    return [bool(r) for r in reject], [float(a) for a in adjusted]


def p_of_interval(mean: float, lo: float, hi: float, null: float = 0.0, z: float = Z95) -> float:
    """The two-sided normal p-value of ``mean`` against ``null`` that the symmetric interval ``lo..hi``
    (``mean -/+ z se``) stands for; a zero-width interval gives 0 (mean off the null) or 1."""
    from scipy.stats import norm

    se = (hi - lo) / (2 * z)
    if not se > 0:
        return 1.0 if mean == null or not math.isfinite(mean) else 0.0
    return float(2 * norm.sf(abs(mean - null) / se))


# ----------------------------------------------------------------- proportions and means
def wilson(successes: float, n: int, z: float = Z95) -> tuple[float, float, float]:
    """Proportion ``successes / n`` and its Wilson score interval ``(p, lo, hi)``
    (``proportion_confint(method="wilson")`` at the level whose quantile is ``z``).

    ``successes`` may be fractional: a win shared by k players is credited 1/k.  With ``n == 0``
    everything is nan."""
    if n <= 0:
        return math.nan, math.nan, math.nan
    if not 0 <= successes <= n:
        raise ValueError(f"successes must be in 0..n, got {successes} of {n}")
    _, lo, hi = wilson_many([successes], [n], z)
    return successes / n, float(lo[0]), float(hi[0])


def wilson_many(successes, n, z: float = Z95) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """:func:`wilson` of many counts in one ``proportion_confint`` call (per call, statsmodels costs about a
    millisecond): arrays ``(p, lo, hi)``; every ``n`` must be positive."""
    from statsmodels.stats.proportion import proportion_confint

    successes, n = np.asarray(successes, dtype=np.float64), np.asarray(n, dtype=np.float64)
    if (n <= 0).any() or (successes < 0).any() or (successes > n).any():
        raise ValueError("every n must be positive and every successes in 0..n")
    lo, hi = proportion_confint(successes, n, alpha=alpha_of(z), method="wilson")
    # at p = 0 (p = 1) the bound is exactly 0 (1); computed, it can round to just above (below)
    lo = np.where(successes == 0, 0.0, np.maximum(0.0, lo))
    hi = np.where(successes == n, 1.0, np.minimum(1.0, hi))
    return successes / n, lo, hi


def mean_ci(x, z: float = Z95) -> tuple[float, float, float, int]:
    """Mean of ``x`` and its normal-approximation interval: ``(mean, lo, hi, n)``.

    ``lo, hi = mean -/+ z * sd / sqrt(n)`` with the sample sd (ddof=1).  With ``n == 1`` the interval
    collapses to ``(mean, mean)``; with ``n == 0`` everything is nan."""
    a = np.asarray(x, dtype=np.float64).ravel()
    n = int(a.size)
    if n == 0:
        return math.nan, math.nan, math.nan, 0
    mean = float(a.mean())
    if n == 1:
        return mean, mean, mean, 1
    half = z * float(a.std(ddof=1)) / math.sqrt(n)
    return mean, mean - half, mean + half, n


def mean_ci_t(x, level: float = 0.95) -> tuple[float, float, float, int]:
    """Mean of ``x`` and its Student t interval (``scipy.stats.t`` quantile, ``n - 1`` degrees of freedom):
    ``(mean, lo, hi, n)``; nan bounds below two values."""
    from scipy.stats import t

    a = np.asarray(x, dtype=np.float64).ravel()
    n = int(a.size)
    if n < 2:
        return (float(a.mean()) if n else math.nan), math.nan, math.nan, n
    mean = float(a.mean())
    half = float(t.ppf(0.5 + level / 2, n - 1)) * float(a.std(ddof=1)) / math.sqrt(n)
    return mean, mean - half, mean + half, n


def paired_diff_ci(a, b, z: float = Z95) -> tuple[float, float, float, int]:
    """Mean of the paired differences ``a - b`` and its interval: ``(mean, lo, hi, n)`` (:func:`mean_ci`).

    Use it when ``a[i]`` and ``b[i]`` come from the same deal (common random numbers): the shared noise
    cancels and the interval is much narrower than two separate ones."""
    a = np.asarray(a, dtype=np.float64).ravel()
    b = np.asarray(b, dtype=np.float64).ravel()
    if a.shape != b.shape:
        raise ValueError(f"paired samples must have the same length, got {a.size} and {b.size}")
    return mean_ci(a - b, z=z)


def cluster_mean(y, groups, level: float = 0.95) -> dict:
    """The mean of ``y`` with a cluster-robust interval (observations in one cluster are not independent):
    statsmodels OLS on a constant with ``cov_type="cluster"`` (its small-sample correction, normal
    quantiles).  ``{"mean", "se", "ci95": [lo, hi], "n", "clusters"}``."""
    import statsmodels.api as sm

    y = np.asarray(y, dtype=np.float64).ravel()
    g = np.asarray(groups).ravel()
    if y.shape != g.shape:
        raise ValueError(f"y and groups must have the same length, got {y.size} and {g.size}")
    _, codes = np.unique(g, return_inverse=True)
    fit = sm.OLS(y, np.ones((y.size, 1))).fit(cov_type="cluster", cov_kwds={"groups": codes})
    lo, hi = fit.conf_int(alpha=1 - level)[0]
    return {"mean": float(fit.params[0]), "se": float(fit.bse[0]), "ci95": [float(lo), float(hi)],
            "n": int(y.size), "clusters": int(codes.max() + 1) if y.size else 0}


def cluster_ratio(successes, trials) -> tuple[float, float, int]:
    """``sum(successes) / sum(trials)`` over clusters (one entry per cluster: a deal, a game) and its
    cluster-robust standard error: ``(ratio, se, clusters)``.  The ratio is the weighted mean of the
    per-cluster shares (weights ``trials``), fitted as statsmodels WLS on a constant with
    ``cov_type="cluster"`` and every cluster its own group; with one regressor its small-sample factor is
    ``G / (G - 1)``, so ``se**2 = G / (G - 1) * sum((y_c - p m_c)**2) / (sum m_c)**2``.  A cluster with no
    trials counts as a cluster and weighs nothing."""
    import statsmodels.api as sm

    y = np.asarray(successes, dtype=np.float64).ravel()
    m = np.asarray(trials, dtype=np.float64).ravel()
    share = np.divide(y, m, out=np.zeros_like(y), where=m > 0)
    fit = sm.WLS(share, np.ones((y.size, 1)), weights=m).fit(cov_type="cluster",
                                                             cov_kwds={"groups": np.arange(y.size)})
    return float(fit.params[0]), float(fit.bse[0]), int(y.size)


def mean_ci_from_sums(n: int, total, total_sq, z: float = Z95, scale=1) -> tuple[float, float, float, int]:
    """:func:`mean_ci` from running sums: ``n``, ``sum(x)`` and ``sum(x**2)``, of ``x / scale``.

    With integer sums (game scores, or values kept in integer units of ``1 / scale``) the mean is one
    correctly rounded division and the variance is computed exactly, so a batch summed chunk by chunk
    gives the interval of the whole sample without keeping it."""
    n = int(n)
    if n == 0:
        return math.nan, math.nan, math.nan, 0
    exact = isinstance(total, int) and isinstance(total_sq, int) and isinstance(scale, int)
    mean = total / (n * scale) if exact else total / n / scale
    if n == 1:
        return float(mean), float(mean), float(mean), 1
    if exact:
        var = (n * total_sq - total * total) / (n * (n - 1))   # exact numerator
    else:
        var = (total_sq - total * total / n) / (n - 1)
    half = z * math.sqrt(max(var, 0.0) / n) / scale
    return float(mean), float(mean - half), float(mean + half), n


def ratio_ci_from_sums(n: int, num, den, num_sq, den_sq, cross, z: float = Z95) -> tuple[float, float, float]:
    """``sum(num) / sum(den)`` over ``n >= 2`` units with ``sum(den) > 0``, and its delta-method interval
    clustered by unit, clipped to [0, 1]: ``(ratio, lo, hi)``.

    ``num_sq``, ``den_sq`` and ``cross`` are the sums of ``num**2``, ``den**2`` and ``num * den`` per unit
    (a game: its finished rounds, say, and those that earned the bonus)."""
    r = num / den
    resid = max(num_sq - 2 * r * cross + r * r * den_sq, 0.0)   # sum over units of (num_u - r den_u)**2
    half = z * math.sqrt(resid * n / (n - 1)) / den
    return r, max(0.0, r - half), min(1.0, r + half)


# ----------------------------------------------------------------- the studies' estimates
@dataclass(frozen=True)
class Estimate:
    """A mean (or share) with its 95% interval ``[lo, hi]`` over ``n`` units: every number a report shows."""

    mean: float
    lo: float
    hi: float
    n: int

    @classmethod
    def of_mean(cls, x) -> "Estimate":
        """Sample mean of ``x`` (1-d) with its normal interval (:func:`mean_ci`)."""
        return cls(*mean_ci(x))

    @classmethod
    def of_share(cls, successes: float, n: int) -> "Estimate":
        """Proportion ``successes / n`` with its Wilson interval (fractional successes allowed)."""
        return cls(*wilson(float(successes), int(n)), int(n))

    @classmethod
    def of_paired(cls, a, b) -> "Estimate":
        """Mean of ``a - b`` paired sample by sample (same deals), with its interval (:func:`paired_diff_ci`)."""
        return cls(*paired_diff_ci(a, b))

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


NAN_ESTIMATE = Estimate(math.nan, math.nan, math.nan, 0)


def t_mean(x) -> Estimate:
    """Mean of ``x`` over independent units with the Student-t 95% interval (:func:`mean_ci_t`, for small n),
    the interval collapsed to the mean below two units."""
    m, lo, hi, n = mean_ci_t(x)
    return Estimate(m, lo, hi, n) if n >= 2 else Estimate(m, m, m, n)


def bootstrap_mean(x, rng: np.random.Generator, replicates: int = 2000) -> Estimate:
    """Mean of ``x`` over independent units with the percentile bootstrap 95% interval (for skewed values):
    ``scipy.stats.bootstrap(method="percentile")``, resampling with ``rng``."""
    from scipy.stats import bootstrap

    x = np.asarray(x, dtype=np.float64).ravel()
    m = float(x.mean()) if x.size else math.nan
    if x.size < 2 or np.ptp(x) == 0:   # scipy refuses a sample without spread: its interval is the mean
        return Estimate(m, m, m, int(x.size))
    ci = bootstrap((x,), np.mean, n_resamples=replicates, method="percentile", rng=rng).confidence_interval
    return Estimate(m, float(ci.low), float(ci.high), int(x.size))


def independent_difference(x: Estimate, y: Estimate) -> Estimate:
    """``x - y`` for two estimates from independent samples (normal approximation; each interval is
    ``mean -/+ Z95 se``)."""
    se = math.hypot((x.hi - x.lo) / (2 * Z95), (y.hi - y.lo) / (2 * Z95))
    d = x.mean - y.mean
    return Estimate(d, d - Z95 * se, d + Z95 * se, min(x.n, y.n))


def standard_errors(a, b) -> tuple[float, float]:
    """(paired, unpaired) standard error of ``mean(a - b)``.

    Paired: ``sd(a - b) / sqrt(n)``, using that ``a[i]`` and ``b[i]`` share a deal.  Unpaired:
    ``sqrt(var(a) / n + var(b) / n)``, what two independent samples of the same size would give.  The ratio
    of their squares is the factor of games pairing saves."""
    a = np.asarray(a, dtype=np.float64)
    b = np.asarray(b, dtype=np.float64)
    n = a.size
    if n < 2:
        return math.nan, math.nan
    return (float(np.std(a - b, ddof=1)) / math.sqrt(n),
            math.sqrt((float(np.var(a, ddof=1)) + float(np.var(b, ddof=1))) / n))


def clustered_share(successes, trials) -> Estimate:
    """A share ``sum(successes) / sum(trials)`` whose rows come in clusters (the seats or rounds of one deal).

    ``successes`` and ``trials`` are 1-d arrays with one entry per cluster (a deal, a game): the units that
    are independent.  The interval is the normal one of a ratio estimator with the cluster-robust variance
    ``n / (n - 1) * sum((y_c - p m_c)**2) / (sum m_c)**2``; ``n`` counts clusters.  It is :func:`cluster_ratio`
    (statsmodels' cluster-robust WLS) to the last bit or two, and far faster (tests/stats checks the two
    agree).
    """
    y = np.asarray(successes, dtype=np.float64).ravel()
    m = np.asarray(trials, dtype=np.float64).ravel()
    n = int(y.size)
    total = float(m.sum())
    if n == 0 or total <= 0:
        return NAN_ESTIMATE
    p = float(y.sum()) / total
    if n == 1:
        return Estimate(p, p, p, 1)
    half = Z95 * math.sqrt(n / (n - 1) * float(np.sum((y - p * m) ** 2)) / total ** 2)
    return Estimate(p, p - half, p + half, n)


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


def stratified_mean(x, strata) -> Estimate:
    """The mean of ``x`` over strata weighted by their sizes, with the within-stratum variance.

    Where a design fixes a nuisance factor by the unit's number (a rotated lineup puts a given strategy in a
    given seat every ``P``-th deal), stratifying by it (``strata = game % P``) removes that factor's share of
    the variance the plain mean's interval would count.  The point estimate equals the plain mean; the
    interval is ``mean -/+ 1.96 sqrt(sum_k w_k**2 s_k**2 / n_k)`` with ``w_k = n_k / n``.  ``n`` counts units.
    """
    x = np.asarray(x, dtype=np.float64).ravel()
    strata = np.asarray(strata).ravel()
    n = int(x.size)
    if n == 0:
        return NAN_ESTIMATE
    mean = float(x.mean())
    var = 0.0
    for k in np.unique(strata):
        xk = x[strata == k]
        if xk.size > 1:
            var += (xk.size / n) ** 2 * float(xk.var(ddof=1)) / xk.size
    half = Z95 * math.sqrt(var)
    return Estimate(mean, mean - half, mean + half, n)


# ----------------------------------------------------------------- where a falling curve crosses a level
@dataclass(frozen=True)
class Crossing:
    """Where a falling probability curve over integer ``x`` crosses ``level``.

    ``at_most``: the largest ``x`` whose (monotone) fitted probability is at least ``level``, i.e. the integer
    rule "at most ``at_most``"; ``clear`` is True when that rule is clear at 95%: the fitted probability at
    ``at_most`` has its interval above ``level`` and the one at ``at_most + 1`` below it.  ``point``: the
    crossing of the straight lines joining the fitted per-``x`` probabilities, with a bootstrap interval.
    """

    at_most: int
    clear: bool
    point: Estimate
    p_at: Estimate        # fitted probability at ``at_most``
    p_next: Estimate      # ... and at ``at_most + 1``
    open: bool = False    # over 2.5% of replicates crossed outside the observed values: the interval is
                          # cut at the lowest / highest observed value and the crossing is not pinned down


def _falling_curve(xi: np.ndarray, earned: np.ndarray, size: int, weights=None) -> tuple[np.ndarray, np.ndarray]:
    """(filled fit, has rows) of the weighted least-squares non-increasing fit (pool adjacent violators,
    ``scipy.optimize.isotonic_regression``) to the proportions of ``earned`` per grid index ``xi``."""
    from scipy.optimize import isotonic_regression

    n = np.bincount(xi, weights=weights, minlength=size).astype(np.float64)
    k = np.bincount(xi[earned], weights=None if weights is None else weights[earned], minlength=size)
    ok = n > 0
    fit = np.full(size, np.nan)
    fit[ok] = isotonic_regression(k[ok] / n[ok], weights=n[ok], increasing=False).x
    return _fill(fit), ok


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


def finishing_crossing(x, earned, clusters, rng: np.random.Generator, level: float = 0.5,
                       replicates: int = 200) -> Crossing | None:
    """Read the ``level`` crossing off the per-``x`` proportions, with a bootstrap over clusters.

    ``x`` (int), ``earned`` (bool) and ``clusters`` (any labels, e.g. game numbers) have one entry per row (a
    finished round).  The rows of one cluster (the rounds of one game: same table, same seats) need not be
    independent; clusters are.  A replicate reweights every cluster by a Poisson(1) count (the Poisson
    bootstrap, which ``scipy.stats.bootstrap`` does not offer), refits the non-increasing curve and reads its
    crossing; the 95% interval is the replicates' 2.5 and 97.5 percentiles.  No model is assumed beyond a
    probability that does not rise with ``x``.  None when the fit never crosses ``level`` inside the observed
    values.
    """
    x = np.asarray(x, dtype=np.int64).ravel()
    earned = np.asarray(earned, dtype=bool).ravel()
    if x.size == 0 or x.min() == x.max():
        return None
    _, cluster = np.unique(np.asarray(clusters).ravel(), return_inverse=True)
    xi = x - x.min()
    grid = np.arange(x.min(), x.max() + 1)
    fit, _ = _falling_curve(xi, earned, grid.size)
    point, at_most = _cross(grid, fit, level)
    if not math.isfinite(point):
        return None
    i = at_most - int(grid[0])
    pts, p_at, p_next = np.empty(replicates), np.empty(replicates), np.empty(replicates)
    groups = int(cluster.max()) + 1
    for b in range(replicates):
        fb, _ = _falling_curve(xi, earned, grid.size, rng.poisson(1.0, size=groups).astype(np.float64)[cluster])
        pts[b] = _cross(grid, fb, level)[0]
        p_at[b], p_next[b] = fb[i], fb[i + 1]
    # a replicate whose curve never crosses inside the grid counts as -inf / +inf: it widens the interval
    lo = float(np.percentile(pts, 2.5, method="lower"))
    hi = float(np.percentile(pts, 97.5, method="higher"))
    is_open = not (math.isfinite(lo) and math.isfinite(hi))
    lo, hi = max(lo, float(grid[0])), min(hi, float(grid[-1]))
    e_at = Estimate(float(fit[i]), *np.percentile(p_at, [2.5, 97.5]).tolist(), groups)
    e_next = Estimate(float(fit[i + 1]), *np.percentile(p_next, [2.5, 97.5]).tolist(), groups)
    clear = bool(e_at.lo > level and e_next.hi < level) and not is_open
    return Crossing(at_most, clear, Estimate(point, lo, hi, groups), e_at, e_next, is_open)


def crossing_label(x, earned, clusters, at_most: int, level: float = 0.5) -> tuple[Estimate, Estimate, float]:
    """Analytic check of an integer rule "at most ``at_most``" read off a falling fit (no bootstrap).

    The non-increasing fit pools adjacent values into blocks; the fitted probability at ``at_most`` (and at
    ``at_most + 1``) is the share of its block.  Returns those two block shares with their cluster-robust
    intervals (:func:`clustered_share`, clusters e.g. games) and the p-value of the rule being clear: the
    larger of the one-sided normal p-values of "P at the rule > ``level``" and "P above it < ``level``" (an
    intersection-union test), for :func:`holm` over a family of rules.
    """
    from scipy.stats import norm

    x = np.asarray(x, dtype=np.int64).ravel()
    earned = np.asarray(earned, dtype=bool).ravel()
    _, cluster = np.unique(np.asarray(clusters).ravel(), return_inverse=True)
    grid = np.arange(x.min(), x.max() + 1)
    xi = x - x.min()
    fit, ok = _falling_curve(xi, earned, grid.size)

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
        return NAN_ESTIMATE, NAN_ESTIMATE, 1.0
    e_at, e_next = block(i), block(i + 1)

    def one_sided(e: Estimate, above: bool) -> float:
        se = e.half_width / Z95
        if not se > 0:
            return 0.0 if (e.mean > level if above else e.mean < level) else 1.0
        return float(norm.sf((e.mean - level) / se if above else (level - e.mean) / se))

    return e_at, e_next, max(one_sided(e_at, True), one_sided(e_next, False))


# ----------------------------------------------------------------- equivalence
def tost(estimate: float, se: float, target: float, df: float | None = None) -> float:
    """The p-value of two one-sided tests that ``|true value| < target`` (equivalence within ``target``)
    from an estimate and its standard error: the larger of the two one-sided p-values, normal quantiles,
    or Student t with ``df`` degrees of freedom.  For a paired sample it equals
    ``statsmodels.stats.weightstats.ttost_paired(a, b, -target, target)[0]`` (``df = n - 1``)."""
    from scipy.stats import norm, t

    if not target > 0:
        raise ValueError(f"the equivalence target must be positive, got {target}")
    if not se > 0:
        return 0.0 if abs(estimate) < target else 1.0
    dist = norm if df is None else t(df)
    p_low = float(dist.sf((estimate + target) / se))    # H0: value <= -target
    p_high = float(dist.cdf((estimate - target) / se))  # H0: value >= +target
    return max(p_low, p_high)


def tost_power(se: float, target: float, alpha: float = 0.05, true_value: float = 0.0) -> float:
    """The power of :func:`tost` (normal quantiles, level ``alpha``) to show equivalence within ``+-target``
    when the true value is ``true_value`` (0: the two agree exactly) and the estimate's standard error is
    ``se``: P(both one-sided tests reject) = P(low) + P(high) - 1, floored at 0 (the two rejection regions
    cover the line whenever they overlap, else they are disjoint and the power is 0).  Each one-sided power is
    ``statsmodels.stats.power.normal_power_het``.  0 where ``target - z(1 - alpha) se <= |true_value|``: the
    largest estimate that could pass is then not above the truth, however the sample falls."""
    from statsmodels.stats.power import normal_power_het

    if not target > 0:
        raise ValueError(f"the equivalence target must be positive, got {target}")
    if not (math.isfinite(se) and se >= 0):
        return 0.0
    if se == 0:
        return 1.0 if abs(true_value) < target else 0.0
    low = float(normal_power_het(target + true_value, 1, alpha, std_null=se, alternative="larger"))
    high = float(normal_power_het(target - true_value, 1, alpha, std_null=se, alternative="larger"))
    return max(0.0, low + high - 1.0)


def tost_margin_for_power(se: float, power: float = POWER_NEEDED, alpha: float = 0.05) -> float:
    """The smallest margin at which :func:`tost` has ``power`` when the truth is 0: ``se (z(1 - alpha) +
    z((1 + power) / 2))`` (:func:`tost_power` inverted)."""
    from scipy.stats import norm

    return float(se * (norm.isf(alpha) + norm.isf((1 - power) / 2)))


def equivalence_word(estimate: float, lo: float, hi: float, target: float | None = None,
                     alpha: float = 0.05, z: float = Z95, power_needed: float = POWER_NEEDED) -> str:
    """What an estimate with its symmetric two-sided interval ``lo..hi`` (``estimate -/+ z se``) says:

    * ``"not tested"``: a ``target`` is given but :func:`tost_power` at it (truth 0, this ``se``) is below
      ``power_needed``: the equivalence test could hardly pass, so neither it nor its failure is a label;
    * ``"holds"``: equivalence shown at ``target`` (:func:`tost` below ``alpha``: the value is within
      +-target; the interval may still exclude 0 when the difference is real but smaller than target);
    * ``"differs"``: not equivalent, and the interval excludes 0;
    * ``"not shown to differ"``: neither.

    Without a ``target`` only the last two words can be said."""
    if not (math.isfinite(estimate) and math.isfinite(lo) and math.isfinite(hi)):
        return NOT_SHOWN
    se = (hi - lo) / (2 * z)
    if target is not None and tost_power(se, target, alpha) < power_needed:
        return NOT_TESTED
    if target is not None and tost(estimate, se, target) < alpha:
        return HOLDS
    if lo > 0 or hi < 0:
        return DIFFERS
    return NOT_SHOWN


# ----------------------------------------------------------------- do the parts agree
class Heterogeneity(NamedTuple):
    """Cochran's Q of ``df + 1`` independent estimates, its chi-square p-value, and whether the parts agree
    (``p >= alpha``: a pooled figure may stand for them all)."""

    q: float
    df: int
    p: float
    agree: bool


def heterogeneity(estimates, lo, hi, alpha: float = 0.05, z: float = Z95) -> Heterogeneity:
    """Whether independent estimates of one quantity (one per part: a table size) agree: Cochran's Q
    ``sum(w_i (x_i - x_w)**2)``, ``w_i = 1 / se_i**2``, ``se_i = (hi_i - lo_i) / (2 z)``, against chi-square
    with ``k - 1`` degrees of freedom (``combine_effects(...).test_homogeneity()``, statsmodels).

    ``agree`` is False when the test rejects at ``alpha``: the parts differ, and a pooled figure is no one
    part's answer.  Parts with a non-finite estimate or a zero-width interval are left out; with fewer than
    two left there is nothing to test (``q`` nan, ``agree`` True)."""
    from statsmodels.stats.meta_analysis import combine_effects

    x = np.asarray(list(estimates), dtype=np.float64)
    se = (np.asarray(list(hi), dtype=np.float64) - np.asarray(list(lo), dtype=np.float64)) / (2 * z)
    keep = np.isfinite(x) & np.isfinite(se) & (se > 0)
    x, se = x[keep], se[keep]
    if x.size < 2:
        return Heterogeneity(math.nan, max(int(x.size) - 1, 0), math.nan, True)
    with np.errstate(divide="ignore", invalid="ignore"):   # its I^2 divides by Q, 0 when the parts are equal
        test = combine_effects(x, se ** 2).test_homogeneity()
    p = float(test.pvalue)
    return Heterogeneity(float(test.statistic), int(test.df), p, bool(p >= alpha))


# ----------------------------------------------------------------- shrinkage
def eb_posterior_means(est, se, lower: float = 0.0, grid: int = 80, iterations: int = 200) -> np.ndarray:
    """Each estimate ``est[i]`` (normal noise with standard error ``se[i]``) replaced by its posterior mean
    under the prior fitted to them all: the nonparametric maximum-likelihood prior (Kiefer-Wolfowitz; the
    EM of Laird 1978 / Jiang and Zhang 2009) on a grid of ``grid`` values from ``lower`` to the largest
    estimate plus three standard errors, with the positive parts of the estimates themselves added to it.
    The truth is known to be at least ``lower`` (a move cannot lose against the best by less than nothing).

    Unlike a normal prior, the fitted one can be a spike near 0 and a few large values: a flawless game's
    noise is shrunk to about 0, a steady loser's to its common size, and a lone blunder keeps most of its
    size (its likelihood outweighs the prior's small mass there).  A single estimate gives its own value
    cut at ``lower``."""
    from scipy.stats import norm

    x = np.asarray(est, dtype=np.float64).ravel()
    s = np.asarray(se, dtype=np.float64).ravel()
    if x.shape != s.shape:
        raise ValueError(f"est and se must have the same length, got {x.size} and {s.size}")
    if x.size == 0:
        return x
    if not (np.isfinite(x).all() and np.isfinite(s).all() and (s >= 0).all()):
        raise ValueError("every estimate and standard error must be finite, every standard error >= 0")
    if x.size == 1 or not (s > 0).all():
        return np.maximum(lower, x) if x.size == 1 else _posterior_exact(x, s, lower)
    top = max(lower, float((x + 3 * s).max()))
    support = np.unique(np.concatenate([np.linspace(lower, top, grid), np.maximum(lower, x)]))
    # in logs, each row less its largest: its scale cancels in its posterior, and an estimate many standard
    # errors from every support point (a precise loss far below ``lower``) does not underflow to 0/0
    log_lik = norm.logpdf(x[:, None], loc=support[None, :], scale=s[:, None])
    lik = np.exp(log_lik - log_lik.max(axis=1, keepdims=True))
    w = np.full(support.size, 1.0 / support.size)
    for _ in range(iterations):
        post = lik * w
        post /= post.sum(axis=1, keepdims=True)
        w = post.mean(axis=0)
    post = lik * w
    post /= post.sum(axis=1, keepdims=True)
    return post @ support


def _posterior_exact(x: np.ndarray, s: np.ndarray, lower: float) -> np.ndarray:
    """Estimates some of which are exact (standard error 0): those are their own value cut at ``lower``,
    the others are shrunk among themselves."""
    out = np.maximum(lower, x)
    noisy = s > 0
    if noisy.any():
        out[noisy] = eb_posterior_means(x[noisy], s[noisy], lower)
    return out
