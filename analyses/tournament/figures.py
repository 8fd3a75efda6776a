"""Figures of the tournament study (matplotlib Figure API)."""
from __future__ import annotations

import numpy as np

from ..framework.design import PRESET_NAMES
from ..framework.study import FigureOut
from ..framework.plots import errorbars, legend, new_figure, percent_axis, players_color, strategy_color, style, zero_line


def standings_figure(standings: list[dict], players, names=PRESET_NAMES) -> FigureOut:
    """Mean game score and win share of each preset, grouped by table size."""
    fig, (ax_score, ax_win) = new_figure(10, 4.4, ncols=2)
    sizes = [p for p in players if any(r["players"] == p for r in standings)]
    width = min(0.14, 0.7 / max(len(names), 1))
    for k, name in enumerate(names):
        rows = {r["players"]: r for r in standings if r["strategy"] == name}
        xs = [i + (k - (len(names) - 1) / 2) * width for i, p in enumerate(sizes) if p in rows]
        ps = [p for p in sizes if p in rows]
        if not ps:
            continue
        errorbars(ax_score, xs, [rows[p]["score"] for p in ps], color=strategy_color(name), label=name)
        errorbars(ax_win, xs, [rows[p]["win"] for p in ps], color=strategy_color(name), label=name)
    for i, p in enumerate(sizes):
        ax_win.hlines(1 / p, i - 0.4, i + 0.4, colors="#555555", linestyles="dashed", linewidth=1)
    _clip_outliers(ax_score, standings)
    for ax in (ax_score, ax_win):
        ax.set_xticks(range(len(sizes)), [f"{p} players" for p in sizes])
    style(ax_score, "Mean game score (lower is better)", "", "points per game (3 rounds)")
    style(ax_win, "Win share (dashed: an even share, 1/players)", "", "share of games won")
    percent_axis(ax_win)
    legend(ax_score, ncols=2)
    return FigureOut("standings", fig,
                     "Each preset's mean game score and win share, with 95% intervals over deals.",
                     f"Points with error bars: mean game score and win share of {len(names)} strategies at 3, 4, 5 and 7 players.")


def _clip_outliers(ax, standings: list[dict]) -> None:
    """Keep the score axis on the close contest: a preset far above the rest is written, not drawn."""
    rest = [r for r in standings if r["strategy"] != "random"]
    far = [r for r in standings if r["strategy"] == "random"]
    if not rest or not far:
        return
    top = max(r["score"].hi for r in rest)
    bottom = min(r["score"].lo for r in rest)
    if min(r["score"].lo for r in far) < top + (top - bottom):
        return  # not far off: draw everything
    span = top - bottom
    ax.set_ylim(bottom - 0.08 * span, top + 0.25 * span)
    text = ", ".join(f"{r['players']}p {r['score'].mean:.0f}" for r in far)
    ax.text(0.01, 0.98, f"random (off the scale): {text}", transform=ax.transAxes, ha="left", va="top",
            fontsize=8, color="#555555")


def head_to_head_figure(h2h: list[dict], players, names=PRESET_NAMES) -> FigureOut:
    """Heat maps: mean score of the row preset minus the column preset, on the same deals."""
    sizes = [p for p in players if any(r["players"] == p for r in h2h)]
    fig, axes = new_figure(3.2 * len(sizes) + 0.8, 3.6, ncols=len(sizes), squeeze=False)
    names = list(names)
    # the scale follows the pairs without random play, whose gaps dwarf the rest (those cells saturate)
    close = [abs(r["diff"].mean) for r in h2h if "random" not in (r["a"], r["b"])]
    limit = max(close or [abs(r["diff"].mean) for r in h2h] or [1.0]) or 1.0
    image = None
    for ax, p in zip(axes[0], sizes):
        grid = np.full((len(names), len(names)), np.nan)
        sure = np.zeros_like(grid, dtype=bool)
        for r in (r for r in h2h if r["players"] == p):
            i, j = names.index(r["a"]), names.index(r["b"])
            grid[i, j], grid[j, i] = r["diff"].mean, -r["diff"].mean
            sure[i, j] = sure[j, i] = r["diff"].excludes(0.0)
        image = ax.imshow(np.ma.masked_invalid(grid), cmap="RdBu_r", vmin=-limit, vmax=limit)
        for i in range(len(names)):
            for j in range(len(names)):
                if np.isfinite(grid[i, j]):
                    text = f"{grid[i, j]:+.1f}".replace("-", "\u2212") + ("" if sure[i, j] else "?")
                    ax.text(j, i, text, ha="center", va="center", fontsize=7.5,
                            color="white" if abs(grid[i, j]) > 0.65 * limit else "black")
        ax.set_xticks(range(len(names)), names, rotation=45, ha="right", fontsize=8)
        ax.set_yticks(range(len(names)), names, fontsize=8)
        ax.set_title(f"{p} players", fontsize=10, loc="left")
    if image is not None:
        fig.colorbar(image, ax=axes[0].tolist(), shrink=0.8, label="row minus column, points per game")
    return FigureOut("head-to-head", fig,
                     "Head to head on the same deals: the row preset's mean game score minus the column "
                     "preset's, at the tables where both sat (blue: the row preset scores lower, i.e. better). "
                     "A '?' marks a difference whose 95% interval includes 0.",
                     "Heat maps of pairwise score differences between presets at each table size.")


def seats_figure(seats: list[dict], players) -> FigureOut:
    """Per seat: game score minus the table average, and win share."""
    fig, (ax_dev, ax_win) = new_figure(10, 4.2, ncols=2)
    sizes = [p for p in players if any(r["players"] == p for r in seats)]
    for k, p in enumerate(sizes):
        rows = [r for r in seats if r["players"] == p]
        x = [r["seat"] + (k - len(sizes) / 2) * 0.08 for r in rows]
        errorbars(ax_dev, x, [r["dev"] for r in rows], color=players_color(p), label=f"{p} players")
        errorbars(ax_win, x, [r["win"] for r in rows], color=players_color(p), label=f"{p} players")
        ax_win.hlines(1 / p, -0.3, max(players) - 0.7, colors=players_color(p), linestyles="dotted", linewidth=1)
    zero_line(ax_dev)
    for ax in (ax_dev, ax_win):
        ax.set_xticks(range(0, max(sizes, default=1)))
    style(ax_dev, "Seat advantage (below 0: the seat scores better)", "seat (numbered from 0; seat 0 starts round 1)",
          "points per game vs table average")
    style(ax_win, "Win share by seat (dotted: an even share)", "seat", "share of games won")
    percent_axis(ax_win)
    legend(ax_dev)
    return FigureOut("seats", fig,
                     "The advantage of each seat, averaged over all presets (seats rotate, so every preset "
                     "sits everywhere), with 95% intervals over deals.",
                     "Seat advantage in points and win share for seats 0 to 6 at each table size.")
