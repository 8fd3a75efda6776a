"""Small, pure interval estimates used by summaries and reports.

Every function takes plain numbers or 1-d arrays and returns plain floats, so the
results drop straight into JSON.  The 95% intervals use ``z = 1.96``.
"""
from __future__ import annotations

import math

import numpy as np

Z95 = 1.96


def mean_ci(x, z: float = Z95) -> tuple[float, float, float, int]:
    """Mean of ``x`` and its normal-approximation interval: ``(mean, lo, hi, n)``.

    ``lo, hi = mean -/+ z * sd / sqrt(n)`` with the sample sd (ddof=1).  With ``n == 1``
    the interval collapses to ``(mean, mean)``; with ``n == 0`` everything is nan.
    """
    a = np.asarray(x, dtype=np.float64).ravel()
    n = int(a.size)
    if n == 0:
        return math.nan, math.nan, math.nan, 0
    mean = float(a.mean())
    if n == 1:
        return mean, mean, mean, 1
    half = z * float(a.std(ddof=1)) / math.sqrt(n)
    return mean, mean - half, mean + half, n


def wilson(successes: float, n: int, z: float = Z95) -> tuple[float, float, float]:
    """Proportion ``successes / n`` and its Wilson score interval: ``(p, lo, hi)``.

    ``successes`` may be fractional: a win shared by k players is credited 1/k.
    With ``n == 0`` everything is nan.
    """
    if n <= 0:
        return math.nan, math.nan, math.nan
    if not 0 <= successes <= n:
        raise ValueError(f"successes must be in 0..n, got {successes} of {n}")
    p = successes / n
    z2 = z * z
    denom = 1.0 + z2 / n
    centre = (p + z2 / (2 * n)) / denom
    half = z * math.sqrt(p * (1 - p) / n + z2 / (4 * n * n)) / denom
    # at p = 0 (p = 1) the bound is exactly 0 (1); computed, it can round to just above (below)
    lo = 0.0 if successes == 0 else max(0.0, centre - half)
    hi = 1.0 if successes == n else min(1.0, centre + half)
    return p, lo, hi


def paired_diff_ci(a, b, z: float = Z95) -> tuple[float, float, float, int]:
    """Mean of the paired differences ``a - b`` and its interval: ``(mean, lo, hi, n)``.

    Use it when ``a[i]`` and ``b[i]`` come from the same deal (common random numbers):
    the shared noise cancels and the interval is much narrower than two separate ones.
    """
    a = np.asarray(a, dtype=np.float64).ravel()
    b = np.asarray(b, dtype=np.float64).ravel()
    if a.shape != b.shape:
        raise ValueError(f"paired samples must have the same length, got {a.size} and {b.size}")
    return mean_ci(a - b, z=z)


def mean_ci_from_sums(n: int, total, total_sq, z: float = Z95, scale=1) -> tuple[float, float, float, int]:
    """:func:`mean_ci` from running sums: ``n``, ``sum(x)`` and ``sum(x**2)``, of ``x / scale``.

    With integer sums (game scores, or values kept in integer units of ``1 / scale``) the
    mean is one correctly rounded division and the variance is computed exactly, so a batch
    summed chunk by chunk gives the interval of the whole sample without keeping it.
    """
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
    """``sum(num) / sum(den)`` over ``n >= 2`` units with ``sum(den) > 0``, and its delta-method
    interval clustered by unit, clipped to [0, 1]: ``(ratio, lo, hi)``.

    ``num_sq``, ``den_sq`` and ``cross`` are the sums of ``num**2``, ``den**2`` and ``num * den``
    per unit (a game: its finished rounds, say, and those that earned the bonus).
    """
    r = num / den
    resid = max(num_sq - 2 * r * cross + r * r * den_sq, 0.0)   # sum over units of (num_u - r den_u)**2
    half = z * math.sqrt(resid * n / (n - 1)) / den
    return r, max(0.0, r - half), min(1.0, r + half)
