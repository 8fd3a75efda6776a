"""Each printed rule, played: a seat that follows the rule's card cells and plays net elsewhere, against net
in that seat, paired by deal (:func:`gnoming_sim.experiments.rule_play.play_rule`), at every table size."""
from __future__ import annotations

import math

import numpy as np

from gnoming_sim.experiments.ladder_stats import t_interval


def _ratio(win: np.ndarray, den: np.ndarray) -> dict:
    """sum(win) / sum(den) (pp per decision) with the delta method's interval over the deals."""
    if den.sum() <= 0:
        return {"mean": math.nan, "ci95": [math.nan, math.nan], "n": int(win.size), "unit": "pp"}
    r = float(win.sum() / den.sum())
    e = t_interval((win - r * den) / den.mean())
    return {"mean": r, "ci95": [r + e["ci95"][0], r + e["ci95"][1]], "n": int(win.size), "unit": "pp"}


def play(cells_by_size: dict, deals: int, seed: int, threads: int | None = None) -> dict:
    """``{"by_players": {p: {"played", "played_per_decision", "changed"}}, "played", "played_per_decision",
    "changed", "deals", "wall_s"}``: pp of win chance per game (rule seat minus net), and per decision where the
    rule changed net's answer (pooled over the table sizes, the deals the unit)."""
    from gnoming_sim.experiments.rule_play import RULE_FIRST, play_rule

    wins, changed, out, wall = [], [], {}, 0.0
    for p, cells in sorted(cells_by_size.items()):   # every table size its own deals; every rule the same ones
        r = play_rule(cells, int(p), deals, seed=seed, threads=threads, first_game=RULE_FIRST + int(p) * 2**40)
        w = np.asarray(r["per_deal"]["win"], dtype=np.float64)
        c = np.asarray(r["per_deal"]["changed"], dtype=np.float64)
        wins.append(w)
        changed.append(c)
        wall += r["wall_s"]
        out[str(p)] = {"played": {**t_interval(w), "unit": "pp"}, "played_per_decision": _ratio(w, c),
                       "changed": {**t_interval(c), "unit": "decisions"}}
    w, c = np.concatenate(wins), np.concatenate(changed)
    return {"by_players": out, "played": {**t_interval(w), "unit": "pp"}, "played_per_decision": _ratio(w, c),
            "changed": {**t_interval(c), "unit": "decisions"}, "deals": deals, "wall_s": round(wall, 1),
            "per_deal_win": w}


def versus(rule: dict, other: dict) -> dict:
    """The rule's played win chance minus another rule's, played on the same deals (both :func:`play` results),
    pp per game, paired by deal."""
    return {**t_interval(rule["per_deal_win"] - other["per_deal_win"]), "unit": "pp"}


def agrees(played: dict, predicted: dict) -> bool | None:
    """Whether either estimate's interval holds the other's mean (None where one is missing)."""
    vals = [played.get("mean"), predicted.get("mean")]
    if any(v is None or not math.isfinite(v) for v in vals):
        return None
    (lo1, hi1), (lo2, hi2) = played["ci95"], predicted["ci95"]
    return bool(lo1 <= predicted["mean"] <= hi1 or lo2 <= played["mean"] <= hi2)
