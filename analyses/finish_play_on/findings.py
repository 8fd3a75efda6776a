"""Estimates, the boundary fitted to them, findings, answers and summary of the finish-or-play-on study
(design in :mod:`.design`).

What the data can say.  Every number is conditional on the rung's base policy at every seat after
the decision (``mix``: the preset whose self-play game the decision comes from; ``learned``; the
strong player ``net``, the headline: :data:`.design.RUNGS`) and on the positions sampled: the finishing chances that
self-play of the presets reaches, one drawn per game, so decisions are independent units and every
interval is over decisions.  Averages are "on average over the positions self-play reaches";
single decisions spread widely around them, and the study says how often they go the other way.
Three criteria, finish - best play-on: the chance of winning the game (``win``, probability;
advice follows it), the margin over the rivals this round (``margin``: the rivals' mean round
score minus the player's own, points; positive favours finishing) and the player's own round
score (``points``; negative favours finishing; it ignores what a finish does to the rivals).
The gap is the finished layout's score (the card in hand counted) minus the best rival's visible score,
the definition the card and ``analyse`` share.  The boundary is a monotone (isotonic) fit in the gap per
table size and per the closest rival's face-down cards (1, 2, 3+), read where it crosses 0, with a
bootstrap over games; a number is printed only where it passes its check against its own gap bins and
meets the +-1 point target (:mod:`.boundary`).  The descriptive bins' signs count only after Holm's
correction over all bins.
"""
from __future__ import annotations

import math

import numpy as np
import pandas as pd

from ..framework.design import TOP_DIFFERENCE
from gnoming_sim.stats import Estimate, bootstrap_mean, clustered_share, holm, t_mean
from ..framework.render import estimates_frame, grid
from ..framework.study import Answer, Finding, Precision, StudyResult, estimand
from ..framework.words import (by_size, convergence, equivalence, equivalence_by_size, holds_under_by_size,
                               size_clause, size_json)
from . import boundary as bd
from . import figures as figs
from ..framework import finish_threshold as th
from .design import BASE_POLICY, PLAYERS, PRESETS, RUNGS

MINUS = "\u2212"
GAP_EDGES = (-10, -5, 0, 5, 10, 20)     # bins <= -10, -9..-5, -4..0, 1..5, 6..10, 11..20, >= 21
OWN_EDGES = (-10, -5, 0, 5, 10, 20)
COARSE_GAP_EDGES = (0, 10)              # <= 0, 1..10, >= 11 (for the split by hidden cards)
HIDDEN_EDGES = (1, 2)                   # the rival with the fewest face-down cards: 1, 2, 3+
CONDITIONING = (f"rollouts with every seat playing {BASE_POLICY} after the decision, to the end of the game; "
                "the finishing chances that self-play of the presets (greedy, builder, rusher, cautious, expert) "
                "reaches, one drawn per game")
# criterion -> (column of finish - best play-on, column of "finishing pays", True when higher favours finishing)
CRITERIA = {"win": ("diff_win", "finish_pays_win", True), "points": ("diff", "finish_pays", False)}
# points of gap: the boundary's decision-relevant half-width (one card's worth; the published rule "finish at a
# gap of at most X" is an integer, so a shift of 1 changes the rule).  The finishing answers' convergence along
# the ladder is judged on this rule at every table size (net - learned crossing), not on the average win change
TARGET_CROSSING = 1.0
RULE_JUDGED = ("on the published rule: each table size's finish crossing (points of gap), net - learned, within "
               "+-1 point at every size (an average over sizes and gaps can agree while the rule moves)")
TARGET_WIN = 0.01        # probability: the average finish - play on, chance of winning
TARGET_MARGIN = 0.5      # points: the same in the margin over the rivals
# the paired differences along the ladder (weakest first), the two strongest rungs' last: TOP, the one an
# answer's "holds under" (its convergence) is judged by
DIFFS = tuple((a, b) for k, a in enumerate(RUNGS) for b in RUNGS[:k])
TOP = TOP_DIFFERENCE


# ---------------------------------------------------------------- bins
def bins(edges) -> list[tuple[int | float, int | float]]:
    """Integer bins (lo, hi), both inclusive, cut at ``edges``: (-inf, e0], (e0, e1], ..., (e_last, inf)."""
    lows = [-math.inf] + [e + 1 for e in edges]
    highs = list(edges) + [math.inf]
    return list(zip(lows, highs))


def bin_label(lo, hi) -> str:
    """"<=-10", "-9..-5", ">=21", "3+" style labels (ASCII, for keys and CSVs)."""
    if lo == -math.inf:
        return f"<={hi}"
    if hi == math.inf:
        return f">={lo}"
    return f"{lo}" if lo == hi else f"{lo}..{hi}"


def pretty(label: str) -> str:
    """A label for the page: the minus sign and the comparison signs set properly."""
    return label.replace("<=", "\u2264 ").replace(">=", "\u2265 ").replace("..", " to ").replace("-", MINUS)


def assign(values, edges) -> np.ndarray:
    """The bin index of every value (bins of :func:`bins`)."""
    return np.searchsorted(np.asarray(edges), np.asarray(values), side="left")


def cell(rows: pd.DataFrame) -> dict:
    """Per criterion present in ``rows``: mean finish - best play-on (normal interval over
    decisions; ``diff`` points, ``win`` chance of winning) and the share where finishing pays
    (Wilson, ``pays`` / ``pays_win``); and the share where the game's preset finished."""
    out = {"n": len(rows), "preset_finished": float(rows["preset_finished"].mean())}
    for name, (column, pays, _) in CRITERIA.items():
        if column in rows:
            key = "diff" if name == "points" else "win"
            out[key] = Estimate.of_mean(rows[column].to_numpy(dtype=np.float64))
            out["pays" if name == "points" else "pays_win"] = Estimate.of_share(int(rows[pays].sum()), len(rows))
    return out


def boundary(frame: pd.DataFrame, column: str, edges, min_n: int, by=("players",)) -> list[dict]:
    """One row per (``by`` values, bin of ``column``) with at least ``min_n`` decisions."""
    if frame.empty:
        return []
    idx = assign(frame[column], edges)
    spans = bins(edges)
    out = []
    for key, rows in frame.groupby([*by, idx], sort=True):
        *group, b = key if isinstance(key, tuple) else (key,)
        if len(rows) < max(min_n, 2):
            continue
        lo, hi = spans[int(b)]
        out.append({**{k: (int(v) if isinstance(v, (np.integer, int)) else v) for k, v in zip(by, group)},
                    "by": column, "bin": bin_label(lo, hi), "lo": lo, "hi": hi, **cell(rows)})
    return out


# ---------------------------------------------------------------- the rule
def _offset(k) -> str:
    """"the best rival's + 5", "the best rival's − 5", "the best rival's"."""
    return "the best rival's" + (f" + {k}" if k > 0 else (f" {MINUS} {-k}" if k < 0 else ""))


def _span(lo, hi) -> str:
    """The gaps a run of bins covers, in words."""
    if math.isinf(lo) and math.isinf(hi):
        return "any gap"
    if math.isinf(lo):
        return f"gaps up to {hi}".replace("-", MINUS)
    if math.isinf(hi):
        return f"gaps from {lo} up".replace("-", MINUS)
    return f"gaps {lo} to {hi}".replace("-", MINUS)


def read_rule(cells: list[dict], key: str = "diff", higher_finishes: bool = False) -> dict:
    """The rule a row of gap bins (sorted by gap, each with a ``key`` estimate of finish - play on) resolves.

    A bin is *finish* when its interval lies on finishing's side of 0 (below it for points,
    ``higher_finishes`` False; above it for the chance of winning), *play on* when it lies on
    the other side, else it *straddles*.  ``finish_at_most``: the top of the run of finish bins that
    starts at the lowest gap (None if the lowest is not one); ``play_on_above``: the gap above
    which every bin is play on (None if the highest is not).  The rule is clear when the two
    runs cover every bin; otherwise the text says "no clear rule" and names the bins that straddle.
    """
    if not cells:
        return {"clear": False, "finish_at_most": None, "play_on_above": None, "straddle": [],
                "text": "no clear rule (too few decisions)"}
    flip = -1 if higher_finishes else 1
    sign = [flip * (-1 if c[key].hi < 0 else (1 if c[key].lo > 0 else 0)) for c in cells]
    m = len(cells)
    k = next((i for i, s in enumerate(sign) if s != -1), m)                 # leading finish bins
    j = next((i for i, s in enumerate(reversed(sign)) if s != 1), m)        # trailing play-on bins
    finish_at_most = cells[k - 1]["hi"] if k else None
    play_on_above = cells[m - j]["lo"] - 1 if j else None
    clear = k + j >= m
    straddle = [c["bin"] for c, s in zip(cells, sign) if s == 0]
    span = _span(cells[0]["lo"], cells[-1]["hi"])
    if clear and j == 0:
        text = f"finish: finishing pays in every gap bin sampled ({span})"
    elif clear and k == 0:
        text = f"play on: finishing does not pay in any gap bin sampled ({span})"
    elif clear:
        text = f"finish when your visible score is at most {_offset(finish_at_most)}; play on above it"
    else:
        parts = []
        if k:
            parts.append(f"finish when your visible score is at most {_offset(finish_at_most)}")
        if j:
            parts.append(f"play on when it is above {_offset(play_on_above)}")
        where = ", ".join(pretty(b) for b in straddle)
        mixed = "" if straddle else " (the bins change sign more than once)"
        text = "no clear rule" + (f": the interval straddles 0 at gap {where}" if straddle else mixed)
        if parts:
            text += "; " + "; ".join(parts)
    if math.isinf(finish_at_most or 0):
        finish_at_most = None
    if math.isinf(play_on_above or 0):
        play_on_above = None
    return {"clear": bool(clear), "finish_at_most": finish_at_most, "play_on_above": play_on_above,
            "straddle": straddle, "text": text}


# ---------------------------------------------------------------- per decision
def verdicts(d, se, n_rollouts) -> dict:
    """Shares of decisions where finishing is better / worse / indistinguishable by the decision's own
    95% interval (Student t with ``n_rollouts - 1`` degrees of freedom; ``d`` higher favours finishing).
    Exact ties (both options identical in every rollout: se 0, d 0) count as indistinguishable."""
    from scipy.stats import t as student

    d, se = np.asarray(d, dtype=np.float64), np.asarray(se, dtype=np.float64)
    q = student.ppf(0.975, np.maximum(np.asarray(n_rollouts, dtype=np.float64) - 1, 1))
    better, worse = d - q * se > 0, d + q * se < 0
    n = d.size
    return {"better": Estimate.of_share(int(better.sum()), n), "worse": Estimate.of_share(int(worse.sum()), n),
            "indistinguishable": Estimate.of_share(int(n - better.sum() - worse.sum()), n),
            "ties": Estimate.of_share(int(((se == 0) & (d == 0)).sum()), n)}


def headline_columns(dec: pd.DataFrame, rung: str = BASE_POLICY) -> pd.DataFrame:
    """The frame with the bin helpers' columns (``diff_win``, ``diff``, ``finish_pays*``) from ``rung``."""
    if dec.empty:
        return dec
    return dec.assign(diff_win=dec[f"win_{rung}"], diff=dec[f"points_{rung}"],
                      finish_pays_win=dec[f"win_{rung}"] > 0, finish_pays=dec[f"points_{rung}"] < 0)


def with_holm(cells: list[dict], key: str = "win") -> list[dict]:
    """Mark every bin (all table sizes together: one family) with its sign after Holm's correction:
    ``holm`` is "finish", "play on" or "" (not clear of 0 once the family is accounted for)."""
    keep = holm([c[key] for c in cells]) if cells else []
    for c, k in zip(cells, keep):
        c["holm"] = ("finish" if c[key].mean > 0 else "play on") if k else ""
    return cells


def _holm_points(cells: list[dict]) -> list[dict]:
    """The bins with ``diff_holm``: the round-score estimate, its interval stretched to hold 0 where the bin
    is not clear of 0 after Holm's correction over all bins (so :func:`read_rule` reads it as straddling)."""
    keep = holm([c["diff"] for c in cells]) if cells else []
    out = []
    for c, k in zip(cells, keep):
        e = c["diff"]
        out.append({**c, "diff_holm": e if k else Estimate(e.mean, min(e.lo, 0.0), max(e.hi, 0.0), e.n)})
    return out


# ---------------------------------------------------------------- the boundary
GAP_DEFINITION = ("the finished layout's score (the card in hand on the last face-down card) minus the lowest "
                  "visible score of a rival (face-down cards count 0)")
OLD_GAP = ("own visible score minus the lowest visible score of a rival (these decisions were recorded before "
           "the card in hand was: it is not counted)")


def crossing_differences(rows: pd.DataFrame, rng, replicates: int = 1000) -> dict:
    """Paired differences of the monotone fit's crossings between rungs (same decisions), with a percentile
    bootstrap over decisions: ``{"net-learned": Estimate, ...}`` in points of gap."""
    if len(rows) < 10:
        return {}
    gap = rows["gap"].to_numpy(dtype=np.int64)
    ys = {r: rows[f"win_{r}"].to_numpy(dtype=np.float64) for r in RUNGS}
    point = {r: bd.crossing_point(gap, y) for r, y in ys.items()}
    boot = {r: np.empty(replicates) for r in RUNGS}
    n = len(rows)
    for b in range(replicates):
        i = rng.integers(0, n, n)
        for r, y in ys.items():
            boot[r][b] = bd.crossing_point(gap[i], y[i]) if gap[i].min() < gap[i].max() else math.nan
    out = {}
    for a, c in DIFFS:
        with np.errstate(invalid="ignore"):     # a replicate with no crossing under both rungs: inf - inf
            d = boot[a] - boot[c]
        d = d[np.isfinite(d)]
        lo, hi = np.percentile(d, [2.5, 97.5]) if d.size else (math.nan, math.nan)
        m = point[a] - point[c]
        if not math.isfinite(m):
            continue
        # a ratio with a slope near 0 can leave the full-data point outside the percentiles: widen to hold it
        out[f"{a}-{c}"] = Estimate(m, float(min(lo, m)), float(max(hi, m)), n)
    return out


# ---------------------------------------------------------------- along the ladder
def ladder(dec: pd.DataFrame) -> dict:
    """Per criterion: the mean over decisions (weighted by game: each decision stands for its game) under
    every rung, the paired differences per decision, and the mean weighted by chance (a game's decision
    counts its number of finishing chances) under every rung."""
    out = {}
    for crit in ("win", "margin", "points"):
        by = {r: t_mean(dec[f"{crit}_{r}"].to_numpy()) for r in RUNGS}
        diffs = {f"{a}-{b}": t_mean((dec[f"{crit}_{a}"] - dec[f"{crit}_{b}"]).to_numpy()) for a, b in DIFFS}
        w = dec["chances"].to_numpy(dtype=np.float64)
        by_chance = {r: clustered_share(w * dec[f"{crit}_{r}"].to_numpy(), w) for r in RUNGS}
        out[crit] = {"by_rung": by, "differences": diffs, "by_chance": by_chance}
    return out


def _settled(diffs: dict, target: float = TARGET_WIN) -> str | None:
    """The two strongest rungs' difference's word at ``target`` (:func:`..framework.words.equivalence`)."""
    return equivalence(diffs.get(TOP), target)


def regret_rows(dec: pd.DataFrame, rng, rung: str = BASE_POLICY) -> list[dict]:
    """Per preset (and table size; ``players`` 0 all sizes): the loss of the preset's own choice at its drawn
    finishing chance against the rollout choice, in the chance of winning under ``rung`` (a loss when
    positive), per decision: a mean over decisions with a percentile bootstrap interval (the losses are
    skewed: most are 0); with the shares where the preset finished and where it agrees with the rollouts."""
    out = []
    if dec.empty:
        return out
    for name in PRESETS:
        for p in (*PLAYERS, 0):
            rows = dec[(dec["preset"] == name) & ((dec["players"] == p) if p else True)]
            if len(rows) < 2:
                continue
            agree = rows["preset_finished"] == rows["rollout_finishes"]
            out.append({"preset": name, "players": p, "decisions": len(rows),
                        "per_decision_win": bootstrap_mean(rows[f"regret_{rung}"].to_numpy(), rng),
                        "agree": Estimate.of_share(int(agree.sum()), len(rows)),
                        "finished": Estimate.of_share(int(rows["preset_finished"].sum()), len(rows))})
    return out


# ---------------------------------------------------------------- the conclusions
def conclude(ctx, tables, data) -> StudyResult:
    raw, games = data["decisions"], data["games"]
    rng = np.random.default_rng(ctx.study_seed("finish-play-on/bootstrap"))
    dec = headline_columns(raw)
    min_n = 2 if ctx.quick else 10
    sizes = [p for p in PLAYERS if not dec.empty and (dec["players"] == p).any()]
    by_gap = with_holm(boundary(dec, "gap", GAP_EDGES, min_n))
    by_own = boundary(dec, "own_visible", OWN_EDGES, min_n)
    by_hidden = _hidden(dec, min_n)
    reps = 200 if ctx.quick else 1000
    rule_rng = np.random.default_rng(ctx.study_seed("finish-play-on/rule"))
    table = bd.rule_table(dec, BASE_POLICY, rule_rng, sizes, reps, min_n)     # per size x closest rival's face-down
    fits = {p: {r: next(t for t in (table if r == BASE_POLICY else bd.rule_table(
        dec, r, rule_rng, [p], reps, min_n, bands=("all",))) if t["players"] == p and t["band"] == "all")
        for r in RUNGS} for p in sizes}
    moves = {p: crossing_differences(dec[dec["players"] == p], rng, 200 if ctx.quick else 1000) for p in sizes}
    rules = {p: {"win": _rule_of(fits[p][BASE_POLICY]),
                 "points": read_rule([c for c in _holm_points(by_gap) if c["players"] == p], "diff_holm", False)}
             for p in sizes}
    regret = regret_rows(dec, rng)
    rule = th.threshold_rule(raw, f"win_{BASE_POLICY}") if len(dec) >= 8 else None
    lad = ladder(dec) if len(dec) > 1 else None
    overall = cell(dec) if len(dec) > 1 else None
    verdict = verdicts(dec[f"win_{BASE_POLICY}"], dec[f"win_{BASE_POLICY}_se"], dec[f"n_{BASE_POLICY}"]) if len(dec) > 1 else None
    figures = [figs.boundary_figure(by_gap, sizes, fits), figs.score_figure(by_own, sizes),
               figs.hidden_figure(by_hidden, sizes), figs.regret_figure(regret, sizes)]
    precision = []
    if lad is not None:
        precision += [Precision(f"finish \u2212 play on, chance of winning, all decisions ({r})",
                                lad["win"]["by_rung"][r].half_width, "pct", target=TARGET_WIN) for r in RUNGS]
        precision += [Precision(f"finish \u2212 play on, margin over the rivals, all decisions ({BASE_POLICY})",
                                lad["margin"]["by_rung"][BASE_POLICY].half_width, "points", target=TARGET_MARGIN)]
    for p in sizes:
        b = fits[p][BASE_POLICY]["boundary"]
        if b is not None:
            precision.append(Precision(f"finish boundary at {p} players (zero crossing of the monotone fit, {BASE_POLICY})",
                                       b.half_width, "points", target=TARGET_CROSSING))
    frames = {"decisions": raw,
              "boundary": estimates_frame(by_gap + by_own + by_hidden), "regret": estimates_frame(regret),
              "crossings": pd.DataFrame([{"players": p, "rung": r, **_crossing_row(f)}
                                         for p in sizes for r, f in fits[p].items()]),
              "rules": pd.DataFrame(bd.rule_rows(table) + [
                  {"players": p, "rival_face_down": "all", "criterion": "points", "clear": both["points"]["clear"],
                   "text": both["points"]["text"]} for p, both in rules.items()])}
    estimands = {}
    win_sizes = by_size({p: t_mean(dec.loc[dec["players"] == p, f"win_{BASE_POLICY}"].to_numpy()) for p in sizes})
    if lad is not None:
        estimands["finishing"] = {
            "win_chance": estimand("mean over finishing chances (one drawn per self-play game of the presets) of "
                                   "finish minus the best play-on in the chance of winning the game, rollouts with "
                                   "every seat playing the rung after the decision; positive favours finishing",
                                   "probability", lad["win"]["by_rung"], lad["win"]["differences"],
                                   n_unit="decisions", settled=equivalence_by_size(crossing_parts(moves),
                                                                                   TARGET_CROSSING),
                                   target=TARGET_CROSSING, by_size=size_json(win_sizes),
                                   judged_by_size=crossing_parts(moves), judged=RULE_JUDGED),
            "margin": estimand("the same in the margin over the rivals this round (the rivals' mean round score "
                               "minus the player's own, bonus included); positive favours finishing",
                               "points", lad["margin"]["by_rung"], lad["margin"]["differences"],
                               n_unit="decisions", settled=_settled(lad["margin"]["differences"], TARGET_MARGIN),
                               target=TARGET_MARGIN)}
    return StudyResult(
        findings=_findings(lad, verdict, fits), figures=figures, frames=frames, precision=precision,
        summary={**_summary(lad, verdict, by_gap, by_own, by_hidden, rules, fits, regret, data["rollouts"], len(dec)),
                 "finish_rule": [bd.rule_json(t) for t in table], "gap": _gap_words(raw), "threshold_rule": rule,
                 "boundary_differences": {str(p): {k: e.to_json() for k, e in m.items()} for p, m in moves.items()}},
        answers=_answers(lad, moves, win_sizes), estimands=estimands,
        context={"sizes": sizes, "presets": PRESETS, "base": BASE_POLICY, "overall": overall, "ladder": lad,
                 "rungs": RUNGS, "top": TOP, "verdict": verdict, "moves": moves,
                 "fits": {p: {r: bd.rule_json(f, bins=False) for r, f in fs.items()} for p, fs in fits.items()},
                 "rule_table": grid(table, "players", "band"), "bands": ("all", *bd.BANDS), "gap_words": _gap_words(raw),
                 "gap_grid": _grid(by_gap), "own_grid": _grid(by_own), "hidden_grid": _grid(by_hidden),
                 "rules": rules, "regret": grid(regret, "preset", "players", dict.fromkeys(r["preset"] for r in regret)), "threshold_rule": rule,
                 "size_n": {p: int((dec["players"] == p).sum()) for p in sizes},
                 "decisions": len(dec), "games": int(len(games)), "rollouts": data["rollouts"],
                 "per_cell": tables[0].games if tables else 0, "pretty": pretty, "min_n": min_n,
                 "chances": int(games["chances"].sum()) if len(games) else 0})


def _rule_of(r: dict) -> dict:
    """The rule of one size's monotone fit (all bands) in the shape of :func:`read_rule`'s."""
    b = r["boundary"]
    return {"clear": r["numeric"], "text": r["text"],
            "crossing": float(b.point.mean) if r["numeric"] else None,
            "finish_at_most": b.at_most if r["numeric"] else None}


def _crossing_row(r: dict) -> dict:
    """A crossings CSV row of one rule (no lists)."""
    j = bd.rule_json(r, bins=False)
    lo, hi = j.pop("ci95") or (None, None)
    j.pop("contradicting_bins")
    return {**j, "lo": lo, "hi": hi, "contradicting_bins": " ".join(r["contradicts"])}


def _gap_words(raw: pd.DataFrame) -> str:
    """What ``gap`` means in these decisions: the shared definition, or the old one for decisions recorded
    before the card in hand was (no ``gap_visible`` column)."""
    return GAP_DEFINITION if "gap_visible" in raw else OLD_GAP


def _hidden(dec: pd.DataFrame, min_n: int) -> list[dict]:
    """The gap split, coarser, by how many face-down cards the closest rival still holds (1, 2, 3+)."""
    if dec.empty:
        return []
    band = np.array(["1", "2", "3+"], dtype=object)[assign(dec["others_face_down_min"], HIDDEN_EDGES)]
    out = boundary(dec.assign(hidden=band), "gap", COARSE_GAP_EDGES, min_n, by=("players", "hidden"))
    for r in out:
        r["key"] = f"{r['hidden']}|{r['bin']}"
    return out


def _grid(rows: list[dict]) -> list[dict]:
    """Rows keyed by bin (and hidden band), a cell per table size."""
    out: dict = {}
    for r in rows:
        key = (r.get("hidden", ""), r["lo"])
        out.setdefault(key, {"bin": r["bin"], "hidden": r.get("hidden", ""), "cells": {}})["cells"][r["players"]] = r
    return [out[k] for k in sorted(out)]


WHERE = ("at a finishing chance (a card in hand that could go on your last face-down card; one drawn per self-play "
         "game of greedy, builder, rusher, cautious and expert, 3 to 6 players), rolled out with every seat playing "
         "{rung} afterwards, on average over the positions self-play reaches")


def _findings(lad, verdict, fits) -> list[Finding]:
    if lad is None:
        return []
    w = lad["win"]["by_rung"][BASE_POLICY]
    found = [Finding("finish_play_on.win_difference",
                     "Finishing rather than playing on in the best way changes your chance of winning the game by "
                     "{value} " + WHERE.format(rung=BASE_POLICY) + "; by their own rollout intervals finishing is "
                     f"better at {100 * verdict['better'].mean:.0f}%, worse at {100 * verdict['worse'].mean:.0f}% "
                     f"and indistinguishable at {100 * verdict['indistinguishable'].mean:.0f}% of the decisions "
                     "(weighted by game; positive favours finishing)", w, "dpct", "decisions"),
             Finding("finish_play_on.margin_difference",
                     "In the margin over the rivals this round (their mean round score minus yours), finishing "
                     f"rather than playing on changes it by {{value}} points at the same chances ({BASE_POLICY} rollouts; "
                     "positive favours finishing)", lad["margin"]["by_rung"][BASE_POLICY], "signed", "decisions")]
    return found


def _answers(lad, moves, win_sizes=None) -> list[Answer]:
    """The study's answers.  No finishing rule: the rule the report prints is the rules study's (chosen at net
    self-play's finishing chances, the positions it is played at); this study's threshold, at the presets' positions,
    is on its page (summary ``threshold_rule``), and its crossing is a description, not a rule's cost."""
    out = []
    if lad is not None:
        w = lad["win"]
        rule_word = equivalence_by_size(crossing_parts(moves), TARGET_CROSSING)
        out.append(Answer("finish_play_on.win_difference",
                          "Finishing when you can, rather than playing on well, changes your chance of winning by "
                          "{value} on average (3 to 6 players; over the finishing chances that self-play of the presets and "
                          f"expert reaches, one per game, each game weighted once; {BASE_POLICY} rollouts)"
                          f"{size_clause(win_sizes, 'dpct')}", w["by_rung"][BASE_POLICY],
                          holds_under_by_size(rule_word, crossing_parts(moves), TARGET_CROSSING, "signed",
                                              what="the finish rule's crossing, "),
                          kind="dpct", unit="decisions", rank=31, convergence=convergence(rule_word)))
    return out


def crossing_parts(moves: dict) -> dict:
    """Table size -> the strongest two rungs' paired difference of the finish crossing: what the finishing
    answers' convergence is judged on (the published rule, per size)."""
    return {p: m.get(TOP) for p, m in sorted(moves.items())}


def _cell_json(c: dict) -> dict:
    out = {"lo": None if math.isinf(c["lo"]) else int(c["lo"]), "hi": None if math.isinf(c["hi"]) else int(c["hi"]),
           "finish_minus_play_on": c["diff"].to_json(), "finish_pays_share": c["pays"].to_json(),
           "preset_finished_share": c["preset_finished"], "holm": c.get("holm")}
    if "win" in c:
        out.update(win_difference=c["win"].to_json(), finish_pays_share_win=c["pays_win"].to_json())
    return out


def _summary(lad, verdict, by_gap, by_own, by_hidden, rules, fits, regret, rollouts, decisions) -> dict:
    def nest(rows, key="bin"):
        out: dict = {}
        for r in rows:
            out.setdefault(str(r["players"]), {})[r[key]] = _cell_json(r)
        return out

    boundary_ = {str(p): bd.rule_json(fs[BASE_POLICY]) for p, fs in fits.items()}
    boundary_.update({"gap": nest(by_gap), "own_visible": nest(by_own), "hidden_and_gap": nest(by_hidden, "key")})
    ladder_ = None
    if lad is not None:
        ladder_ = {crit: {"by_rung": {r: e.to_json() for r, e in v["by_rung"].items()},
                          "differences": {k: e.to_json() for k, e in v["differences"].items()},
                          "by_chance": {r: e.to_json() for r, e in v["by_chance"].items()}}
                   for crit, v in lad.items()}
    return {
        "base_policy": BASE_POLICY, "conditioning": CONDITIONING, "rollouts": rollouts,
        "rollouts_per_batch": rollouts[BASE_POLICY], "decisions": decisions,
        "criteria": {"win": "the player's chance of winning the game (win credit, shared wins split); positive "
                            "differences favour finishing",
                     "margin": "the rivals' mean round score minus the player's own (points, bonus included); "
                               "positive differences favour finishing",
                     "points": "the player's own round score, bonus included; negative differences favour "
                               "finishing; it does not count what a finish does to the rivals"},
        "weighting": "by game (each decision one unit); by_chance weights a decision by its game's chances",
        "ladder": ladder_,
        "verdicts_strong": None if verdict is None else {k: e.to_json() for k, e in verdict.items()},
        "boundary": boundary_,
        "boundary_by_rung": {str(p): {r: bd.rule_json(f, bins=False) for r, f in fs.items()}
                             for p, fs in fits.items()},
        "rules": {str(p): r for p, r in rules.items()},
        "regret_per_decision": {r["preset"] + ("" if not r["players"] else f".{r['players']}"): {
            "players": r["players"] or "all", "per_decision_win": r["per_decision_win"].to_json(),
            "agree_share": r["agree"].to_json(), "preset_finished_share": r["finished"].to_json(),
            "decisions": r["decisions"]} for r in regret},
    }
