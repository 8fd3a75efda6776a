"""The guide study's figure: the margins of the cells the chart plays, with their 95% intervals, one row per cell."""
from __future__ import annotations

from ..framework.plots import new_figure, style
from ..framework.study import FigureOut

COLOURS = {"source": "#1b7837", "place": "#2166ac", "finish": "#b2182b"}


def margins_figure(sections: list[dict]) -> FigureOut:
    rows = [(s["name"], c) for s in sections for c in s["cells"] if c["chart"]]
    fig, ax = new_figure(8.5, 0.22 * len(rows) + 1.6)
    for k, (name, c) in enumerate(rows):
        e = c["margin"]
        ax.errorbar([e.mean], [k], xerr=[[e.mean - e.lo], [e.hi - e.mean]], fmt="o", color=COLOURS[name],
                    markersize=3.5, capsize=2, linewidth=1.0)
    ax.set_yticks(range(len(rows)), [f"{c['where']}: {c['action']}" for _, c in rows], fontsize=6.5)
    ax.invert_yaxis()
    ax.axvline(0.0, color="#555555", linewidth=0.8, linestyle="dashed")
    style(ax, "The cells the chart plays: margin of the recommended action over the closest other",
          "points per round (rollouts of learned self-play; 95% t interval over decisions)", "")
    return FigureOut("margins", fig,
                     "Every cell of the committed guide that the chart plays (resolved, and beating expert's own rule "
                     "there): the recommended action's mean advantage over the "
                     "closest other candidate, in points of the player's round score relative to the others', "
                     "with its 95% t interval over the sampled decisions (green: take or draw; blue: where to put "
                     "a kept card; red: finish or play on).",
                     f"Horizontal interval bars of {len(rows)} cells' margins.")
