"""The house-rules figure: variants as rows, measures as columns, each cell the change
against the published rules with its 95% interval, coloured only where the interval excludes 0."""
from __future__ import annotations

import numpy as np

from ..framework.plots import new_figure
from ..framework.render import format_value
from ..framework.study import FigureOut

UP = np.array([0.84, 0.19, 0.15])     # red: the measure goes up
DOWN = np.array([0.13, 0.40, 0.71])   # blue: it goes down


def changes_grid(rows, measures, labels, kinds) -> FigureOut:
    fig, ax = new_figure(11.5, 0.62 * len(rows) + 1.9)
    R, M = len(rows), len(measures)
    rgb = np.ones((R, M, 3))
    for j, m in enumerate(measures):
        sizes = [abs(r["changes"][m].mean) for r in rows if r["changes"][m] is not None]
        scale = max(sizes) if sizes and max(sizes) > 0 else 1.0
        for i, r in enumerate(rows):
            e = r["changes"][m]
            if e is None or not e.excludes(0.0):
                continue
            strength = 0.25 + 0.55 * min(1.0, abs(e.mean) / scale)
            color = UP if e.mean > 0 else DOWN
            rgb[i, j] = 1 - strength * (1 - color)
    ax.imshow(rgb, aspect="auto")
    for i, r in enumerate(rows):
        for j, m in enumerate(measures):
            e = r["changes"][m]
            if e is None:
                text = "n/a"
            else:
                kind = "signed" if kinds[m] == "points" else kinds[m]
                text = (f"{format_value(e.mean, kind)}\n[{format_value(e.lo, kind)}, "
                        f"{format_value(e.hi, kind)}]")
            ax.text(j, i, text, ha="center", va="center", fontsize=7.5)
    ax.set_xticks(range(M), [labels[m].replace(" (", "\n(") for m in measures], fontsize=7.5)
    ax.set_yticks(range(R), [r["variant"] + ("" if r["paired"] else " *") for r in rows], fontsize=8.5)
    ax.xaxis.tick_top()
    ax.set_xticks(np.arange(-0.5, M), minor=True)
    ax.set_yticks(np.arange(-0.5, R), minor=True)
    ax.grid(which="minor", color="#bbbbbb", linewidth=0.6)
    ax.tick_params(which="minor", length=0)
    ax.set_title("Change against the published rules (95% interval; red: up, blue: down; white: the "
                 "interval includes 0; *: another deck, unpaired)", fontsize=9.5, loc="left", pad=38)
    return FigureOut("changes", fig,
                     "Each house rule against the published rules, on the same deals (a deck change: unpaired). "
                     "Cells are coloured only where the 95% interval of the change excludes 0.",
                     "A grid of variants by measures, each cell the change with its interval")
