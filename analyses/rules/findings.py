"""The ladder of advice and the pocket rules' worth, from the study's per-deal results: estimates, summary, CSV.

Every figure is a mean over deals (the unit; the three table sizes stacked with equal deals, so a pooled mean is
the mean of the sizes') with its 95% t interval and n deals (``ladder_stats.t_interval``).  A rule's worth is the
pocket rules minus the pocket rules with that rule at its simplest default, paired by deal; the eight worths are
tested against 0 together (t tests, Holm's adjustment, statsmodels), and a rule is called a gain only where its
interval lies above 0 and its adjusted p is under 0.05.
"""
from __future__ import annotations

import numpy as np
import pandas as pd

from gnoming_sim.experiments.ladder_stats import t_interval

SIZES = (2, 4, 6)
TABLES = ("net", "expert")
# the ladder's rungs, the simplest first: every rule at its simplest default, the pocket rules, the card, net, and
# the evaluator's player (value, fewer deals: it plays about 60 games a second)
RUNGS = ("simplest default", "pocket rules", "card", "net", "value")
ALPHA = 0.05
NO_GAIN = "no rule beats the simple default here"


def est(x, unit: str) -> dict:
    return {**t_interval(np.asarray(x, dtype=np.float64)), "unit": unit}


def _by_size(per: dict, unit: str) -> dict:
    """``{"pooled": est, "2": est, ...}`` of per-size arrays (equal deals a size)."""
    return {"pooled": est(np.concatenate([per[p] for p in SIZES if p in per]), unit),
            **{str(p): est(per[p], unit) for p in SIZES if p in per}}


def ladder(played: dict) -> dict:
    """``{table: {players: {rung: {"win", "win_vs_table", "margin_vs_table"}}}}`` from ``played[table][p][rung]``
    (:meth:`gnoming_sim.experiments.rule_play.Table.versus`'s arrays): the rung's own win chance (%), its change
    against the table's player in its seat (pp of win chance) and its game score against that player's (points a
    game, lower wins)."""
    return {t: {str(p): {r: {"win": est(d["win_abs"], "pp"), "win_vs_table": est(d["win"], "pp"),
                             "margin_vs_table": est(d["margin"], "points")}
                         for r, d in rungs.items()} for p, rungs in sizes.items()} for t, sizes in played.items()}


def steps(played: dict) -> dict:
    """Each step up the ladder (a rung minus the rung below, the same deals): ``{table: {players: {"a → b":
    {"win", "margin"}}}}``, pp of win chance and points of game score a game (lower wins)."""
    out = {}
    for t, sizes in played.items():
        for p, rungs in sizes.items():
            names = [r for r in RUNGS if r in rungs]
            for lo, hi in zip(names, names[1:]):
                n = min(rungs[lo]["win"].size, rungs[hi]["win"].size)
                out.setdefault(t, {}).setdefault(str(p), {})[f"{lo} \u2192 {hi}"] = {
                    "win": est(rungs[hi]["win"][:n] - rungs[lo]["win"][:n], "pp"),
                    "margin": est(rungs[hi]["margin"][:n] - rungs[lo]["margin"][:n], "points")}
    return out


def worth(rules: list[dict], pocket: dict, without: dict) -> list[dict]:
    """Each printed rule (``registry.RULES_PRINTED``'s) with its played worth: the pocket rules' seat minus the
    same seat with the rule at its simplest default, per deal (``pocket[p]``, ``without[title][p]``: Table.versus
    arrays), pooled and per size, pp of win chance and points of game score; its Holm-adjusted p over the rules and
    ``gain`` (interval above 0 and adjusted p under :data:`ALPHA`)."""
    from scipy.stats import ttest_1samp
    from statsmodels.stats.multitest import multipletests

    out, raw = [], []
    for r in rules:
        w = {p: pocket[p]["win"] - without[r["title"]][p]["win"] for p in pocket}
        m = {p: pocket[p]["margin"] - without[r["title"]][p]["margin"] for p in pocket}
        pooled = np.concatenate([w[p] for p in sorted(w)])
        raw.append(float(ttest_1samp(pooled, 0.0).pvalue) if pooled.std() > 0 else 1.0)
        out.append({"title": r["title"], "text": r["text"], "default": r["default"],
                    "win": _by_size(w, "pp"), "margin": _by_size(m, "points")})
    adjusted = multipletests(raw, method="holm")[1] if raw else []
    for e, p in zip(out, adjusted):
        e["p_holm"] = float(p)
        e["gain"] = bool(e["win"]["pooled"]["ci95"][0] > 0 and p < ALPHA)
    return out


def table(summary: dict) -> pd.DataFrame:
    """The section's CSV: one row per (table, players, rung) of the ladder, then one per rule's worth."""
    rows = [{"part": "ladder", "table": t, "players": int(p), "what": r, "win_pct": e["win"]["mean"],
             "change_pp": e["win_vs_table"]["mean"], "change_lo": e["win_vs_table"]["ci95"][0],
             "change_hi": e["win_vs_table"]["ci95"][1], "score_points": e["margin_vs_table"]["mean"],
             "score_lo": e["margin_vs_table"]["ci95"][0], "score_hi": e["margin_vs_table"]["ci95"][1],
             "n_deals": e["win_vs_table"]["n"]}
            for t, sizes in summary["ladder"].items() for p, rungs in sizes.items() for r, e in rungs.items()]
    rows += [{"part": "worth", "table": summary["worth_table"], "players": int(p) if p != "pooled" else 0,
              "what": e["title"], "change_pp": e["win"][p]["mean"], "change_lo": e["win"][p]["ci95"][0],
              "change_hi": e["win"][p]["ci95"][1], "score_points": e["margin"][p]["mean"],
              "score_lo": e["margin"][p]["ci95"][0], "score_hi": e["margin"][p]["ci95"][1],
              "n_deals": e["win"][p]["n"]} for e in summary["rules"] for p in e["win"]]
    return pd.DataFrame(rows)
