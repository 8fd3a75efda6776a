"""The ladder figure: each rung's change of win chance against the table's player, per table and table size."""
from __future__ import annotations

import numpy as np

from gnoming_sim.stats import Estimate
from ..framework.plots import errorbars, new_figure, players_color, style
from ..framework.study import FigureOut


def _e(d: dict) -> Estimate:
    return Estimate(d["mean"], d["ci95"][0], d["ci95"][1], d["n"])


def ladder_figure(summary: dict) -> FigureOut:
    """One panel per table (net, expert): the rungs left to right, a marker per table size, 95% intervals."""
    lad = summary["ladder"]
    fig, axes = new_figure(10.0, 3.8, ncols=max(len(lad), 1), sharey=True)
    axes = np.atleast_1d(axes)
    for ax, (table, sizes) in zip(axes, lad.items()):
        rungs = [r for r in summary["rungs"] if any(r in v for v in sizes.values())]
        for k, (p, by) in enumerate(sorted(sizes.items(), key=lambda kv: int(kv[0]))):
            xs = [i + (k - 1) * 0.15 for i, r in enumerate(rungs) if r in by]
            errorbars(ax, xs, [_e(by[r]["win_vs_table"]) for r in rungs if r in by],
                      color=players_color(int(p)), label=f"{p} players")
        ax.axhline(0, color="#555555", linewidth=1)
        ax.set_xticks(range(len(rungs)), rungs, rotation=20, fontsize=8)
        style(ax, f"In a table of {table}", "", "change of win chance against " + table + ", pp a game")
    axes[0].legend(fontsize=7, frameon=False)
    return FigureOut("ladder", fig,
                     "Each rung of the ladder of advice in one seat among a table of net (left) or of expert (right): "
                     "its chance of winning minus the table's player's in that seat, on the same deals, pp a game, "
                     "with 95% t intervals over deals, by table size.",
                     "The change of win chance of each rung, from the simplest default to value, against the number "
                     "of players, in a table of net and of expert.")
