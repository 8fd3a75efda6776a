"""Figures of the mulligan-value study (matplotlib Figure API)."""
from __future__ import annotations

import numpy as np

from ..framework.study import FigureOut
from ..framework.plots import by_preset, errorbars, legend, new_figure, percent_axis, style, zero_line

_SOURCE_COLORS = {"pile": "#1b9e77", "blind": "#d95f02", "dealt": "#555555"}
_ARRIVAL = (("dealt", "kept from the deal", "#555555"), ("pile", "taken from a discard pile", "#1b9e77"),
            ("blind", "drawn blind", "#d95f02"), ("never", "never placed", "#cccccc"))


def by_players_figure(cells: list[dict], by_players: list[dict]) -> FigureOut:
    """Worth of a dealt mulligan in points and in win probability, by table size and preset."""
    fig, (ax, ax_win) = new_figure(11, 4.5, ncols=2)
    sizes = [r["players"] for r in by_players]
    for a, key in ((ax, "points"), (ax_win, "win")):
        by_preset(a, cells, key, pooled=by_players)
        zero_line(a)
        a.set_xticks(sizes)
    style(ax, "Change in its holder's round score from a dealt mulligan", "players",
          "change in points per round (negative is better)")
    style(ax_win, "Change in its holder's chance of winning the game", "players",
          "percentage points (positive is better)")
    percent_axis(ax_win, ".1f")
    legend(ax)
    return FigureOut("by-players", fig,
                     "Paired on the same deals: the holder's round score with the mulligan at the slot minus "
                     "with an ordinary card there (left; negative is better), and its win credit for the game with the mulligan minus "
                     "without (right), by number of players and preset, with 95% intervals.",
                     "Mulligan worth in points and in win probability against the number of players, per preset.")


def pairing_figure(by_players: list[dict]) -> FigureOut:
    """Paired against unpaired standard error of the points estimate, per table size."""
    fig, ax = new_figure(8.5, 4.2)
    sizes = np.array([r["players"] for r in by_players])
    paired = [r["paired_se"] for r in by_players]
    unpaired = [r["unpaired_se"] for r in by_players]
    ax.bar(sizes - 0.18, unpaired, width=0.36, color="#bbbbbb", label="unpaired (independent deals)")
    ax.bar(sizes + 0.18, paired, width=0.36, color="#1f77b4", label="paired (same deals)")
    for r, x in zip(by_players, sizes):
        ax.annotate(f"\u00d7{r['saving']:.1f}", (x, r["unpaired_se"]), textcoords="offset points", xytext=(0, 3),
                    ha="center", fontsize=8)
    style(ax, "What pairing buys: standard error of the mulligan's worth", "players", "standard error (points)")
    ax.set_xticks(sizes)
    legend(ax)
    return FigureOut("pairing", fig,
                     "Standard error of the points estimate from the same games, paired deal by deal and as if the "
                     "two arms had been played on independent deals. The label over each pair: how many times "
                     "more games the unpaired design would need for the same precision.",
                     "Bar chart: paired standard errors are several times smaller than unpaired ones.")


def source_figure(flow: list[dict], arrivals: list[dict]) -> FigureOut:
    """Worth by source and phase; how a random mulligan reaches a player, by table size."""
    fig, (ax, ax_arr) = new_figure(11, 4.5, ncols=2)
    phases = ["early", "middle", "late"]
    for k, source in enumerate(("pile", "blind")):
        rows = [r for r in flow if r["source"] == source]
        x = np.array([phases.index(r["phase"]) for r in rows]) + (k - 0.5) * 0.15
        if rows:
            label = "taken from a discard pile" if source == "pile" else "drawn blind"
            errorbars(ax, x, [r["points"] for r in rows], color=_SOURCE_COLORS[source], label=label)
    dealt = next((r for r in flow if r["source"] == "dealt"), None)
    if dealt is not None:
        e = dealt["points"]
        ax.axhspan(e.lo, e.hi, color="#999999", alpha=0.25, linewidth=0)
        ax.axhline(e.mean, color="#555555", linewidth=1, linestyle="dashed", label="kept from the deal")
    ax.set_xticks(range(3))
    ax.set_xticklabels(["early\n(6-7 face down)", "middle\n(3-5)", "late\n(1-2)"])
    ax.set_xlim(-0.5, 2.5)
    style(ax, "Worth to the player who places it, by how and when it comes", "phase of the round for that player",
          "change in points per round (negative is better)")
    legend(ax)
    sizes = [r["players"] for r in arrivals]
    bottom = np.zeros(len(sizes))
    for key, label, color in _ARRIVAL:
        share = np.array([r[key].mean for r in arrivals])
        ax_arr.bar(sizes, share, bottom=bottom, color=color, label=label, width=0.7)
        bottom += share
    style(ax_arr, "How a mulligan reaches a player", "players", "share of mulligans")
    percent_axis(ax_arr)
    ax_arr.set_xticks(sizes)
    legend(ax_arr, loc="lower right")
    return FigureOut("by-source", fig,
                     "Left: worth of a mulligan (paired, its deal against the same deal with that mulligan swapped "
                     "for an ordinary card) to the player who first placed it, by source and by that player's "
                     "face-down cards at the draw; band: kept from the deal; 95% intervals. Right: what became "
                     "of a mulligan picked at random from the deal.",
                     "Mulligan worth by source and phase, and the shares of how mulligans arrive.")


def limit_figure(rows: list[dict]) -> FigureOut:
    """Share of player-rounds in which the limit barred a mulligan on offer."""
    fig, ax = new_figure(8.5, 4.2)
    by_preset(ax, rows, "rounds", 2, 0.08)
    sizes = sorted({r["players"] for r in rows})
    ax.set_xticks(sizes)
    style(ax, "How often the mulligan limit binds", "players", "share of player-rounds barred at least once")
    percent_axis(ax)
    legend(ax)
    return FigureOut("limit", fig,
                     "Share of a player's rounds in which a mulligan was on offer (on a discard pile at the start "
                     "of the turn, or drawn blind) while the player already showed a face-up mulligan, so the "
                     "limit barred it; 95% intervals clustered by game.",
                     "Share of player-rounds in which the mulligan limit binds, by players and preset.")
