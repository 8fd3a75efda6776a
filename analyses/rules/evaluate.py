"""A family of rules chosen on one half of its decisions and valued on the other
(:mod:`..framework.rule_split`), against the obvious alternatives, the richer family and net's own choice."""
from __future__ import annotations

import math

import numpy as np

from gnoming_sim.stats import Estimate, t_mean
from ..framework import rule_split as select


def _est(x, unit: str = "pp") -> dict:
    x = np.asarray(x, dtype=np.float64)
    if x.size < 2:
        return {"mean": math.nan, "ci95": [math.nan, math.nan], "n": int(x.size), "unit": unit}
    return {**t_mean(x).to_json(), "unit": unit}


def evaluate(fam, seed: int = 50, tolerance: float = select.TOLERANCE_PP) -> dict:
    """The family's rule (one for every table size, else one per size), its value per decision against
    ``fam.versus`` and the other alternatives, its regret against the richer family's best and the
    decision-level estimate of what it wins over net's own choice where the two differ: every estimate on the
    fresh half (decisions split by game)."""
    f = fam.frame
    base = fam.fixed[fam.versus]
    keep = np.isfinite(base) & np.isfinite(fam.value).all(axis=1) & np.isfinite(fam.rich).all(axis=1) \
        & np.isfinite(fam.net)
    gain = fam.value[keep] - base[keep, None]
    rich = fam.rich[keep] - base[keep, None]
    sizes = f["players"].to_numpy()[keep]
    games = (f["players"].astype(str) + ":" + f["game"].astype(str)).to_numpy()[keep]
    half = select.halves(games, seed)
    fresh = ~half
    n = int(keep.sum())
    if n < 8 or half.sum() < 2 or fresh.sum() < 2:
        return {"key": fam.key, "decision": fam.decision, "printed": False, "n": n,
                "reason": f"too few decisions ({n})"}
    best = select.fresh_value(rich, fam.rich_groups[keep], half)
    one = select.fresh_value(gain, np.zeros(n, dtype=np.int64), half)
    by = select.fresh_value(gain, sizes, half)
    r_one, r_by = select.regret(one, best), select.regret(by, best)
    if select.printed(r_one, tolerance) or not select.printed(r_by, tolerance):   # the simplest printed
        fit, reg, shape = one, r_one, "one rule"
    else:
        fit, reg, shape = by, r_by, "by table size"
    players = sorted(set(sizes.tolist()))
    col = {p: fit.choice.get(0 if shape == "one rule" else p, 0) for p in players}
    fs = sizes[fresh]
    cols_fresh = np.array([col[p] for p in fs])
    idx = np.flatnonzero(keep)[fresh]
    versus = fam.versus_for.get(fam.rules[col[players[0]]]["name"], fam.versus) if shape == "one rule" else fam.versus
    shift = fam.fixed[versus][idx] - base[idx]          # the rule's gain against ``versus`` rather than the base
    alts = [{"versus": versus, **_est(fit.per_decision - shift)}]
    for name, v in fam.fixed.items():
        if name != versus:
            alts.append({"versus": name, **_est(fit.per_decision - (v[idx] - base[idx]))})
    rule_abs = fam.value[idx, cols_fresh]
    changed = fam.changed[idx, cols_fresh]
    vs_net = rule_abs - fam.net[idx]
    by_players = {}
    for p in players:
        rows = fs == p
        by_players[str(p)] = {"rule": fam.rules[col[p]]["name"], "value": _est(fit.per_decision[rows] - shift[rows]),
                              "regret": _est(best.per_decision[rows] - fit.per_decision[rows]),
                              "versus_net": _est(vs_net[rows]),
                              "predicted_per_decision": _est(vs_net[rows & changed]),
                              "changed_share": float(changed[rows].mean()) if rows.any() else math.nan}
    return {"key": fam.key, "decision": fam.decision, "shape": shape,
            "rule": fam.rules[col[players[0]]]["name"] if shape == "one rule" else "by table size",
            "words": fam.rules[col[players[0]]]["words"] if shape == "one rule" else "",
            "columns": {str(p): int(c) for p, c in col.items()},
            "players": players, "value": alts[0], "versus": versus, "alternatives": alts,
            "regret": _est(best.per_decision - fit.per_decision), "family": fam.rich_family,
            "printed": select.printed(select.regret(fit, best), tolerance),
            "versus_net": _est(vs_net), "predicted_per_decision": _est(vs_net[changed]),
            "changed_share": float(changed.mean()), "by_players": by_players,
            "same_on_the_other_half": bool(fit.stable), "choice_half": int(half.sum()), "fresh_half": int(fresh.sum()),
            "value_same_data": select.same_data_value(gain, np.zeros(n, dtype=np.int64)),
            "candidates": [r["name"] for r in fam.rules], "tolerance_pp": tolerance}


def cells_of(fam, result: dict, players: int) -> dict:
    """The card cells of the rule chosen at ``players`` (for the played rule)."""
    return dict(fam.rules[result["columns"][str(players)]]["cells"])


__all__ = ["evaluate", "cells_of", "Estimate"]
