"""The rules study's figure: what each rule wins per decision, by table size."""
from __future__ import annotations

import numpy as np

from gnoming_sim.stats import Estimate
from ..framework.plots import errorbars, new_figure, style
from ..framework.study import FigureOut

COLORS = {"finish": "#1f77b4", "hazard": "#d62728", "take": "#2ca02c", "mulligan": "#9467bd"}


def _e(d: dict) -> Estimate:
    return Estimate(d["mean"], d["ci95"][0], d["ci95"][1], d["n"])


def value_figure(entries: list[dict]) -> FigureOut:
    """Each rule's value per decision (against its alternative) by table size, 95% intervals."""
    fig, ax = new_figure(7.5, 3.8)
    shown = [e for e in entries if e.get("by_players")]
    for k, e in enumerate(shown):
        rows = [(int(p), b["value"]) for p, b in sorted(e["by_players"].items()) if b.get("value")]
        rows = [(p, v) for p, v in rows if v["n"] > 1 and np.isfinite(v["mean"])]
        if not rows:
            continue
        x = np.array([p for p, _ in rows]) + (k - (len(shown) - 1) / 2) * 0.12
        errorbars(ax, x, [_e(v) for _, v in rows], color=COLORS.get(e["key"], "black"),
                  label=f"{e['key']}: against {e.get('versus', '')}")
    ax.axhline(0, color="#555555", linewidth=1)
    ax.set_xticks([3, 4, 5, 6])
    style(ax, "What each rule wins per decision", "players", "pp of win chance per decision")
    if ax.get_legend_handles_labels()[0]:
        ax.legend(fontsize=7, frameon=False)
    return FigureOut("value", fig,
                     "Each rule's gain per decision in the chance of winning the game against its alternative, by "
                     "table size, valued on the half of the decisions the rule was not chosen on; 95% intervals over "
                     "decisions.",
                     "Gain per decision of the finishing, hazard, take and mulligan rules against the number of "
                     "players.")
