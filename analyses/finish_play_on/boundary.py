"""The finish rule: a monotone curve of finish - play on in the gap, its zero crossing, and the check
that decides whether a single number may be printed.

The gap is :func:`gnoming_sim.search.finishing.finish_gap_of`: the finished layout's score with the
card in hand counted, minus the best rival's visible score (the card and ``analyse`` use the same).

The fit.  Finish - best play-on in the chance of winning (one value per decision) is averaged per
integer gap and fitted by weighted isotonic regression (pool adjacent violators,
:func:`scipy.optimize.isotonic_regression`), non-increasing in the gap: finishing cannot pay more the
further behind you are.  No shape is assumed beyond that, so the flat tail at large gaps (a third of the
decisions) cannot tilt the crossing the way it tilts a straight line.  The boundary is where the fit
crosses 0 (linear between adjacent gaps); the rule is "finish when your gap is at most ``at_most``"
(the largest gap whose fitted value is at least 0; a fitted value within a millionth of a standard error of
0 counts as 0, so that a gap whose exact mean is 0 is not read off its float rounding).

Its interval.  A Poisson bootstrap over games (every game's decisions reweighted by one Poisson(1) count
per replicate, numpy ``default_rng``; the study draws one decision per game, so a game is a decision,
but the clustering is kept for data that has more), refitting the curve each time: the 2.5 and 97.5
percentiles of the crossings.  A replicate whose curve does not cross inside the gaps sampled counts as
-inf / +inf, so a boundary that is not pinned down gets an open, failing interval.

The check.  A numeric rule is printed only when (1) no gap bin whose own 95% interval (Student t over
decisions) excludes 0 lies on the wrong side of it: a bin wholly at or below ``at_most`` where finishing
is significantly worse, or wholly above it where finishing is significantly better; and (2) the
crossing's interval is within ``target`` points of gap either side.  Otherwise the table shows the bins
and the rule reads "no single number".
"""
from __future__ import annotations

import math
from dataclasses import dataclass, field

import numpy as np
from scipy.optimize import isotonic_regression

from gnoming_sim.stats import Estimate, t_mean

TARGET = 1.0                  # points of gap: the boundary's interval must be within +-1 (one card's worth)
CHECK_EDGES = tuple(range(-13, 12, 2))   # bins <= -13, -12..-11, ..., 10..11, >= 12 (two gaps each)
BANDS = ("1", "2", "3+")      # the closest rival's face-down cards
NO_NUMBER = "no single number"
ZERO_SE = 1e-6                # a fitted value this many standard errors of the mean from 0 counts as 0 (rounding)


@dataclass(frozen=True)
class Boundary:
    """The zero crossing of the monotone fit: ``point`` (interpolated, with its bootstrap interval),
    ``at_most`` (the integer rule), ``open`` (over 2.5% of replicates did not cross inside the gaps)."""

    point: Estimate
    at_most: int
    open: bool
    grid: np.ndarray = field(repr=False)
    fit: np.ndarray = field(repr=False)

    @property
    def half_width(self) -> float:
        return math.inf if self.open else max(self.point.hi - self.point.mean, self.point.mean - self.point.lo)


def monotone_fit(gap, y, weights=None) -> tuple[np.ndarray, np.ndarray]:
    """(integer grid from the lowest to the highest gap, non-increasing weighted least-squares fit of ``y``
    on it): the per-gap means pooled by adjacent violators; gaps without rows carry the nearest fit."""
    gap = np.asarray(gap, dtype=np.int64).ravel()
    y = np.asarray(y, dtype=np.float64).ravel()
    w = np.ones_like(y) if weights is None else np.asarray(weights, dtype=np.float64).ravel()
    lo = int(gap.min())
    grid = np.arange(lo, int(gap.max()) + 1)
    n = np.bincount(gap - lo, weights=w, minlength=grid.size)
    s = np.bincount(gap - lo, weights=w * y, minlength=grid.size)
    ok = n > 0
    fit = np.full(grid.size, np.nan)
    fit[ok] = isotonic_regression(s[ok] / n[ok], weights=n[ok], increasing=False).x
    idx = np.nonzero(ok)[0]
    fit = np.interp(np.arange(grid.size), idx, fit[idx])   # fill the empty gaps between sampled ones
    # a fitted value within a millionth of a standard error of 0 is 0: its sign is float rounding (a block whose
    # exact mean is 0 fits -7.9e-19, which moved the rule "at most 0" to "at most -1"), not evidence
    fit[np.abs(fit) <= ZERO_SE * _se(y)] = 0.0
    return grid, fit


def _se(y: np.ndarray) -> float:
    """The standard error of the mean of ``y`` (the rows unweighted): the scale of a fitted value's noise."""
    return float(y.std(ddof=1)) / math.sqrt(y.size) if y.size > 1 else 0.0


def crossing(grid: np.ndarray, fit: np.ndarray) -> tuple[float, int]:
    """(interpolated zero crossing, largest gap with fit >= 0) of a non-increasing fit; the crossing is
    -inf when the fit is below 0 everywhere, +inf when it never falls below 0."""
    above = np.nonzero(fit >= 0.0)[0]
    if above.size == 0:
        return -math.inf, int(grid[0]) - 1
    i = int(above[-1])
    if i == fit.size - 1:
        return math.inf, int(grid[-1])
    f0, f1 = fit[i], fit[i + 1]
    return float(grid[i] + (f0 / (f0 - f1) if f0 > f1 else 0.0)), int(grid[i])


def fit_boundary(gap, y, clusters, rng: np.random.Generator, replicates: int = 400) -> Boundary | None:
    """The monotone fit's zero crossing with a Poisson bootstrap over ``clusters`` (one label per row: the
    game); None with under 10 rows, one gap only, or no crossing inside the gaps sampled."""
    gap = np.asarray(gap, dtype=np.int64).ravel()
    y = np.asarray(y, dtype=np.float64).ravel()
    if gap.size < 10 or gap.min() == gap.max():
        return None
    grid, fit = monotone_fit(gap, y)
    point, at_most = crossing(grid, fit)
    if not math.isfinite(point):
        return None
    _, cluster = np.unique(np.asarray(clusters).ravel(), return_inverse=True)
    groups = int(cluster.max()) + 1
    pts = np.empty(replicates)
    for b in range(replicates):
        w = rng.poisson(1.0, size=groups).astype(np.float64)[cluster]
        keep = w > 0
        if gap[keep].min() == gap[keep].max():
            pts[b] = math.nan
            continue
        g, f = monotone_fit(gap[keep], y[keep], w[keep])
        pts[b] = crossing(g, f)[0]
    pts = np.where(np.isnan(pts), math.inf, pts)      # a degenerate replicate: not pinned down
    lo = float(np.percentile(pts, 2.5, method="lower"))
    hi = float(np.percentile(pts, 97.5, method="higher"))
    is_open = not (math.isfinite(lo) and math.isfinite(hi))
    lo, hi = max(lo, float(grid[0])), min(hi, float(grid[-1]))
    return Boundary(Estimate(point, min(lo, point), max(hi, point), groups), at_most, is_open, grid, fit)


def gap_bins(gap, y, edges=CHECK_EDGES, min_n: int = 2) -> list[dict]:
    """The binned estimates the rule is checked against: per bin of integer gaps (cut at ``edges`` as
    (-inf, e0], (e0, e1], ...), ``{"lo", "hi", "bin", "n", "win": Estimate}`` (mean with its Student t
    interval over decisions); bins with under ``min_n`` decisions left out."""
    gap = np.asarray(gap, dtype=np.int64).ravel()
    y = np.asarray(y, dtype=np.float64).ravel()
    idx = np.searchsorted(np.asarray(edges), gap, side="left")
    lows = [-math.inf] + [e + 1 for e in edges]
    highs = list(edges) + [math.inf]
    out = []
    for b in np.unique(idx):
        rows = y[idx == b]
        if rows.size < min_n:
            continue
        lo, hi = lows[b], highs[b]
        label = f"<={hi}" if lo == -math.inf else (f">={lo}" if hi == math.inf else f"{lo}..{hi}")
        out.append({"lo": lo, "hi": hi, "bin": label, "n": int(rows.size), "win": t_mean(rows)})
    return out


def contradictions(bins: list[dict], at_most: int) -> list[str]:
    """The bins that contradict "finish when the gap is at most ``at_most``": wholly on the finish side
    with finishing significantly worse, or wholly on the play-on side with it significantly better."""
    out = []
    for b in bins:
        e = b["win"]
        if b["hi"] <= at_most and e.hi < 0:
            out.append(b["bin"])
        elif b["lo"] > at_most and e.lo > 0:
            out.append(b["bin"])
    return out


def finish_rule(gap, y, clusters, rng: np.random.Generator, target: float = TARGET, replicates: int = 400,
                min_n: int = 2) -> dict:
    """The rule of one (table size, band) of decisions: the fit, its check against the binned estimates and
    the target, and the text.  ``numeric`` is True only when both pass; the text then reads "finish when
    your gap is at most X", else "no single number" with the reason."""
    gap = np.asarray(gap, dtype=np.int64).ravel()
    y = np.asarray(y, dtype=np.float64).ravel()
    bins = gap_bins(gap, y, min_n=min_n) if gap.size else []
    b = fit_boundary(gap, y, clusters, rng, replicates)
    out = {"n": int(gap.size), "bins": bins, "boundary": b, "contradicts": [], "meets_target": False,
           "numeric": False}
    if b is None:
        why = "too few decisions" if gap.size < 10 else "the fit does not cross 0 inside the gaps sampled"
        out["text"] = f"{NO_NUMBER}: {why}; see the bins"
        return out
    out["contradicts"] = contradictions(bins, b.at_most)
    out["meets_target"] = bool(b.half_width <= target)
    out["numeric"] = not out["contradicts"] and out["meets_target"]
    p = b.point
    interval = "not pinned down" if b.open else f"95% interval {p.lo:+.1f} to {p.hi:+.1f}"
    if out["numeric"]:
        text = (f"finish when your gap is at most {b.at_most:+d} (crossing {p.mean:+.1f}, {interval}); "
                "play on above it")
    else:
        why = []
        if out["contradicts"]:
            why.append("bins on the wrong side of it: gap " + ", ".join(out["contradicts"]))
        if not out["meets_target"]:
            why.append(f"its crossing {p.mean:+.1f} ({interval}) misses the \u00b1{target:g} target")
        text = f"{NO_NUMBER}: " + "; ".join(why) + "; see the bins"
    out["text"] = text.replace("-", "\u2212")
    return out


def band_of(face_down) -> np.ndarray:
    """The closest rival's face-down cards as a band label: "1", "2", "3+"."""
    fd = np.asarray(face_down, dtype=np.int64)
    return np.array(BANDS, dtype=object)[np.clip(fd, 1, 3) - 1]


def rule_table(dec, rung: str, rng: np.random.Generator, sizes, replicates: int = 400,
               min_n: int = 2, bands=("all", *BANDS)) -> list[dict]:
    """One rule per table size and band of the closest rival's face-down cards (``bands`` of "all", "1",
    "2", "3+"): ``{"players", "band", **finish_rule(...)}`` on ``gap`` and ``win_<rung>``, clustered by game."""
    out = []
    if dec.empty:
        return out
    band = band_of(dec["others_face_down_min"])
    clusters = (dec["preset"].astype(str) + "|" + dec["players"].astype(str) + "|" + dec["game"].astype(str)).to_numpy()
    for p in sizes:
        at = (dec["players"] == p).to_numpy()
        for name in bands:
            rows = at if name == "all" else at & (band == name)
            r = finish_rule(dec["gap"].to_numpy()[rows], dec[f"win_{rung}"].to_numpy()[rows], clusters[rows], rng,
                            replicates=replicates, min_n=min_n)
            out.append({"players": int(p), "band": name, **r})
    return out


def crossing_point(gap, y) -> float:
    """The zero crossing of the monotone fit alone (no interval; +-inf when it does not cross)."""
    return crossing(*monotone_fit(gap, y))[0]


def rule_json(r: dict, bins: bool = True) -> dict:
    """The summary.json form of one :func:`rule_table` row (without the bins when ``bins`` is False)."""
    b = r["boundary"]

    def num(v):
        return float(v) if math.isfinite(v) else None

    return {"players": r["players"], "rival_face_down": r["band"], "n": r["n"], "numeric": r["numeric"],
            "text": r["text"], "at_most": None if b is None else b.at_most,
            "crossing": None if b is None else num(b.point.mean),
            "ci95": None if b is None else [num(b.point.lo), num(b.point.hi)],
            "open": None if b is None else b.open, "meets_target": r["meets_target"],
            "contradicting_bins": r["contradicts"],
            **({"bins": {c["bin"]: c["win"].to_json() for c in r["bins"]}} if bins else {}),
            "model": ("non-increasing (isotonic) fit of finish - best play-on, chance of winning (the headline rung), per "
                      "integer gap; zero crossing; Poisson bootstrap over games"),
            "unit": "points of gap (finished layout's score, card in hand counted, minus the best rival's visible)"}


def rule_rows(table: list[dict]) -> list[dict]:
    """The rules CSV's rows of :func:`rule_table` (criterion ``win``)."""
    out = []
    for r in table:
        j = rule_json(r)
        lo, hi = j["ci95"] or (None, None)
        out.append({"players": r["players"], "rival_face_down": r["band"], "criterion": "win", "n": r["n"],
                    "clear": r["numeric"], "at_most": j["at_most"], "crossing": j["crossing"], "lo": lo, "hi": hi,
                    "meets_target": r["meets_target"], "contradicting_bins": " ".join(r["contradicts"]),
                    "text": r["text"]})
    return out
