"""Estimates, the rules read off them, findings and summary of the finish-or-play-on study
(design in :mod:`.design`).

What the data can say.  Every number is conditional on the base policy of the rollouts
(:data:`.design.BASE_POLICY`, the strong player, at every seat after the decision) and on the positions sampled (the finishing
chances that self-play of the presets reaches).  Two criteria: the player's chance of winning
the game (``win``: the one advice should follow, since a finish also cuts the rivals' round
short) and the player's own round score, bonus included (``diff``: points, which counts
nothing of what the finish does to the rivals).  Every decision comes from a game of its own,
so intervals over decisions are over independent units; the regret per round is a mean over
games (each game's drawn decision stands for all its chances).
"""
from __future__ import annotations

import math

import numpy as np
import pandas as pd

from ..framework.estimates import Estimate, clustered_share, estimates_frame
from ..framework.study import Finding, Precision, StudyResult
from . import figures as figs
from .design import BASE_POLICY, PLAYERS, PRESETS

MINUS = "\u2212"
GAP_EDGES = (-10, -5, 0, 5, 10, 20)     # bins <= -10, -9..-5, -4..0, 1..5, 6..10, 11..20, >= 21
OWN_EDGES = (-10, -5, 0, 5, 10, 20)
COARSE_GAP_EDGES = (0, 10)              # <= 0, 1..10, >= 11 (for the split by hidden cards)
HIDDEN_EDGES = (1, 2)                   # the rival with the fewest face-down cards: 1, 2, 3+
CONDITIONING = (f"rollouts with every seat playing {BASE_POLICY} after the decision, to the end of the game; "
                "the finishing chances that self-play of the presets reaches")
# criterion -> (column of finish - best play-on, column of "finishing pays", True when higher favours finishing)
CRITERIA = {"win": ("diff_win", "finish_pays_win", True), "points": ("diff", "finish_pays", False)}


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


# ---------------------------------------------------------------- regret
def regret_rows(decisions: pd.DataFrame, games: pd.DataFrame) -> list[dict]:
    """Per preset and table size (``players`` 0: all sizes): the regret of the preset's own choice.

    ``per_round``: mean over games of (chances x regret of the drawn decision) / player-rounds,
    i.e. points per player-round, every game a unit (games without a chance count 0);
    ``per_decision``: the ratio sum(chances x regret) / sum(chances) with the cluster-robust
    interval; ``per_round_win``: the same as ``per_round`` in the chance of winning the game
    (when the decisions have ``regret_win``); ``agree``: share of decisions where the preset's
    finish-or-not matches the rollout choice's (by the win criterion when there is one).
    """
    if games.empty:
        return []
    g = games.copy()
    index = pd.MultiIndex.from_frame(g[["preset", "players", "game"]])
    keyed = decisions.set_index(["preset", "players", "game"]) if not decisions.empty else None
    for column, loss in (("regret", "loss"), ("regret_win", "loss_win")):
        if keyed is not None and column in keyed:
            value = keyed[column].reindex(index).fillna(0.0).to_numpy()
            g[loss] = np.where(g["chances"] > 0, g["chances"] * value, 0.0)
    if "loss" not in g:
        g["loss"] = 0.0
    win = "loss_win" in g
    agree_with = "rollout_finishes_win" if win else "rollout_finishes"
    out = []
    for name in PRESETS:
        for p in (*PLAYERS, 0):
            rows = g[(g["preset"] == name) & ((g["players"] == p) if p else True)]
            if len(rows) < 2:
                continue
            dec = decisions[(decisions["preset"] == name) & ((decisions["players"] == p) if p else True)] \
                if not decisions.empty else decisions
            has = rows[rows["chances"] > 0]
            agree = (dec["preset_finished"] == dec[agree_with]) if len(dec) else None
            out.append({
                "preset": name, "players": p, "games": len(rows), "decisions": len(dec),
                "player_rounds": int(rows["player_rounds"].sum()), "chances": int(rows["chances"].sum()),
                "per_round": Estimate.of_mean((rows["loss"] / rows["player_rounds"]).to_numpy()),
                "per_round_win": Estimate.of_mean((rows["loss_win"] / rows["player_rounds"]).to_numpy()) if win
                else None,
                "per_decision": clustered_share(has["loss"].to_numpy(), has["chances"].to_numpy()) if len(has) > 1
                else None,
                "agree": Estimate.of_share(int(agree.sum()), len(dec)) if len(dec) else None,
                "finished": Estimate.of_share(int(dec["preset_finished"].sum()), len(dec)) if len(dec) else None})
    return out


# ---------------------------------------------------------------- the analysis
def analyse(ctx, tables, data) -> StudyResult:
    dec, games = data["decisions"], data["games"]
    min_n = 2 if ctx.quick else 10
    sizes = [p for p in PLAYERS if not dec.empty and (dec["players"] == p).any()]
    by_gap = boundary(dec, "gap", GAP_EDGES, min_n)
    by_own = boundary(dec, "own_visible", OWN_EDGES, min_n)
    by_hidden = _hidden(dec, min_n)
    rules = {p: {"win": read_rule([c for c in by_gap if c["players"] == p], "win", True),
                 "points": read_rule([c for c in by_gap if c["players"] == p], "diff", False)} for p in sizes}
    regret = regret_rows(dec, games)
    overall = cell(dec) if len(dec) > 1 else None
    figures = [figs.boundary_figure(by_gap, sizes), figs.score_figure(by_own, sizes),
               figs.hidden_figure(by_hidden, sizes), figs.regret_figure(regret, sizes)]
    precision = []
    if overall is not None:
        precision += [Precision("finish \u2212 play on, chance of winning, all decisions", overall["win"].half_width,
                                "pct"),
                      Precision("finish \u2212 play on, round score, all decisions", overall["diff"].half_width)]
    if by_gap:
        precision += [Precision("the same at one table size and gap bin, chance of winning",
                                max(c["win"].half_width for c in by_gap), "pct"),
                      Precision("the same in round score", max(c["diff"].half_width for c in by_gap))]
    per = [r for r in regret if r["players"] == 0]
    if per:
        precision.append(Precision("regret per round, one preset (all sizes)",
                                   max(r["per_round"].half_width for r in per)))
    frames = {"decisions": dec.drop(columns=[c for c in ("n",) if c in dec.columns]),
              "boundary": estimates_frame(by_gap + by_own + by_hidden), "regret": estimates_frame(regret),
              "rules": pd.DataFrame([{"players": p, "criterion": c, "clear": r["clear"], "text": r["text"],
                                      "finish_at_most": r["finish_at_most"], "play_on_above": r["play_on_above"],
                                      "straddle": " ".join(r["straddle"])}
                                     for p, both in rules.items() for c, r in both.items()])}
    return StudyResult(
        findings=_findings(overall, regret), figures=figures, frames=frames, precision=precision,
        summary=_summary(overall, by_gap, by_own, by_hidden, rules, regret, data["rollouts"], len(dec)),
        context={"sizes": sizes, "presets": PRESETS, "base": BASE_POLICY, "overall": overall,
                 "gap_grid": _grid(by_gap), "own_grid": _grid(by_own), "hidden_grid": _grid(by_hidden),
                 "rules": rules, "regret": _regret_grid(regret),
                 "size_n": {p: int((dec["players"] == p).sum()) for p in sizes},
                 "decisions": len(dec), "games": int(len(games)), "rollouts": data["rollouts"],
                 "per_cell": tables[0].games if tables else 0, "pretty": pretty, "min_n": min_n,
                 "chances": int(games["chances"].sum()) if len(games) else 0})


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


def _regret_grid(rows: list[dict]) -> list[dict]:
    out: dict = {}
    for r in rows:
        out.setdefault(r["preset"], {"preset": r["preset"], "cells": {}})["cells"][r["players"]] = r
    return [out[s] for s in PRESETS if s in out]


def _findings(overall, regret) -> list[Finding]:
    if overall is None:
        return []
    where = ("at a finishing chance (a card in hand that could go on the last face-down card; one drawn per "
             "self-play game of the 5 presets, 3 to 6 players; rollouts with every seat playing "
             f"{BASE_POLICY} afterwards)")
    found = [Finding("finish_play_on.win_difference",
                     f"Finishing rather than playing on in the best way changes the player's chance of winning the "
                     f"game by {{value}} {where}; finishing is the better choice at "
                     f"{100 * overall['pays_win'].mean:.0f}% of them (percentage points; positive favours finishing)",
                     overall["win"], "dpct", "decisions"),
             Finding("finish_play_on.points_difference",
                     f"In the player's own round score alone, finishing costs {{value}} points against the best way "
                     f"of playing on at the same chances (negative would favour finishing); this criterion does "
                     f"not count that a finish cuts the rivals' round short",
                     overall["diff"], "signed", "decisions")]
    pooled = [r for r in regret if r["players"] == 0]
    if pooled:
        worst = max(pooled, key=lambda r: r["per_round"].mean)
        found.append(Finding("finish_play_on.largest_regret",
                             f"Of the presets' own choices at their finishing chances, {worst['preset']}'s loses most "
                             f"round score against the rollout choice: {{value}} points per player-round (3 to 6 "
                             f"players, its own self-play games; positive is a loss)",
                             worst["per_round"], "signed", "games"))
    return found


def _cell_json(c: dict) -> dict:
    out = {"lo": None if math.isinf(c["lo"]) else int(c["lo"]), "hi": None if math.isinf(c["hi"]) else int(c["hi"]),
           "finish_minus_play_on": c["diff"].to_json(), "finish_pays_share": c["pays"].to_json(),
           "preset_finished_share": c["preset_finished"]}
    if "win" in c:
        out.update(win_difference=c["win"].to_json(), finish_pays_share_win=c["pays_win"].to_json())
    return out


def _summary(overall, by_gap, by_own, by_hidden, rules, regret, rollouts, decisions) -> dict:
    def opt(e):
        return None if e is None else e.to_json()

    def nest(rows, key="bin"):
        out: dict = {}
        for r in rows:
            out.setdefault(str(r["players"]), {})[r[key]] = _cell_json(r)
        return out

    ov = overall or {}
    return {
        "base_policy": BASE_POLICY, "conditioning": CONDITIONING, "rollouts_per_batch": rollouts,
        "decisions": decisions,
        "criteria": {"win": "the player's chance of winning the game (win credit, shared wins split); positive "
                            "differences favour finishing",
                     "points": "the player's own round score, bonus included; negative differences favour "
                               "finishing; it does not count what a finish does to the rivals"},
        "win_difference": opt(ov.get("win")), "finish_pays_share_win": opt(ov.get("pays_win")),
        "finish_minus_play_on": opt(ov.get("diff")), "finish_pays_share": opt(ov.get("pays")),
        "boundary": {"gap": nest(by_gap), "own_visible": nest(by_own), "hidden_and_gap": nest(by_hidden, "key")},
        "rules": {str(p): r for p, r in rules.items()},
        "regret": {r["preset"] + ("" if not r["players"] else f".{r['players']}"): {
            "players": r["players"] or "all", "per_round": r["per_round"].to_json(),
            "per_round_win": opt(r["per_round_win"]), "per_decision": opt(r["per_decision"]),
            "agree_share": opt(r["agree"]), "preset_finished_share": opt(r["finished"]), "games": r["games"],
            "decisions": r["decisions"], "player_rounds": r["player_rounds"], "chances": r["chances"]}
            for r in regret},
    }
