"""Figures of the hazard-risk study (matplotlib Figure API)."""
from __future__ import annotations

import numpy as np

from ..framework.study import FigureOut
from ..framework.plots import by_preset, errorbars, legend, new_figure, percent_axis, players_color, style, zero_line


def ending_figure(cells: list[dict], by_players: list[dict]) -> FigureOut:
    """P(ending a round with a hazard) by table size, per preset."""
    fig, ax = new_figure(8.5, 4.5)
    sizes = [r["players"] for r in by_players]
    by_preset(ax, cells, "share", pooled=by_players)
    ax.set_xticks(sizes)
    percent_axis(ax)
    style(ax, "How often a player ends a round with a hazard (+10)", "players", "share of player-rounds")
    legend(ax)
    return FigureOut("end-with-hazard", fig,
                     "Share of player-rounds that end with at least one hazard in the player's layout, by number "
                     "of players and preset (standard deals); 95% intervals clustered by game.",
                     "Probability of ending a round with a hazard against the number of players, per preset.")


def discard_figure(by_size: list[dict], by_phase: list[dict]) -> FigureOut:
    """What a discarded hazard does to each opponent, by table size and by phase."""
    fig, (ax, ax_phase) = new_figure(11, 4.5, ncols=2)
    rows = [r for r in by_size if r.get("flip_value") is not None]
    sizes = np.array([r["players"] for r in rows])
    errorbars(ax, sizes - 0.15, [r["flip_value"] for r in rows], color="#1f77b4",
              label="each opponent: its flips (taken \u2212 declined)")
    errorbars(ax, sizes, [r["opponent_change"] for r in rows], color="#d62728", marker="s",
              label="each opponent: the hazard (\u2212 an ordinary card)")
    errorbars(ax, sizes + 0.15, [r["standing"] for r in rows], color="#555555", marker="D",
              label="discarder's margin over the average opponent: flips")
    zero_line(ax)
    ax.set_xticks(sizes)
    style(ax, "Change in round score when a drawn hazard is discarded", "players",
          "change in points per round (negative is better)")
    legend(ax)
    phases = [r for r in by_phase if r.get("flip_value") is not None]
    x = np.arange(len(phases))
    errorbars(ax_phase, x - 0.1, [r["flip_value"] for r in phases], color="#1f77b4", label="flips, per opponent")
    errorbars(ax_phase, x + 0.1, [r["cost"] for r in phases], color="#555555", marker="D",
              label="cost to the drawer (all draws)")
    zero_line(ax_phase)
    ax_phase.set_xticks(x)
    ax_phase.set_xticklabels([f"{r['phase']}\n({r['phase_text']})" for r in phases])
    style(ax_phase, "By the drawer's face-down cards at the draw", "phase of the round",
          "change in points per round (negative is better)")
    legend(ax_phase)
    return FigureOut("discarded", fig,
                     "Paired on the same deals, in rounds where the drawer discarded the hazard at once; every "
                     "value is a change in round score, treatment minus control (negative is better for whoever it "
                     "is about). Left: each opponent's score with the flips taken minus declined (blue), with the "
                     "hazard minus an ordinary card (red), and the discarder's margin over the average opponent "
                     "with the flips taken minus declined (grey; positive: the discarder falls behind). Right: the "
                     "flips' effect on each opponent, and the hazard's cost to its drawer (all draws, kept or not), "
                     "by phase. 95% intervals.",
                     "Worth of a discarded hazard's flips to the opponents, by players and by phase.")


def deny_figure(rows: list[dict]) -> FigureOut:
    """Win-chance change and P(ending with a hazard) against hazard_deny, per table size."""
    fig, (ax, ax_hz) = new_figure(11, 4.5, ncols=2)
    sizes = sorted({r["players"] for r in rows if r["players"] != 0})
    for k, p in enumerate(sizes):
        sub = [r for r in rows if r["players"] == p]
        x = np.array([r["level"] for r in sub]) + (k - len(sizes) / 2) * 0.06
        changed = [i for i, r in enumerate(sub) if r["level"] != 0]   # level 0 is the reference: 0 by definition
        errorbars(ax, x[changed], [sub[i]["win"] for i in changed], color=players_color(p), label=f"{p} players")
        errorbars(ax_hz, x, [r["end_with_hazard"] for r in sub], color=players_color(p))
    zero_line(ax)
    style(ax, "cautious's chance of winning against never keeping a hazard", "hazard_deny",
          "change in the chance of winning (positive is better)")
    percent_axis(ax, "+.1f", " pp")
    style(ax_hz, "Rounds cautious ends with a hazard", "hazard_deny", "share of rounds")
    percent_axis(ax_hz, ".1f")
    levels = sorted({r["level"] for r in rows})
    for a in (ax, ax_hz):
        a.set_xticks(levels)
    legend(ax)
    return FigureOut("deny", fig,
                     "One seat plays cautious with hazard_deny 0, 1.5 (the preset), 3 and 6, on the same deals "
                     "against the same opponents. Left: its chance of winning the game minus with hazard_deny 0 "
                     "(positive: keeping hazards to deny flips pays). Right: the share of its rounds ending with a hazard. "
                     "95% intervals.",
                     "Win-chance change and hazard rate against the hazard_deny parameter, per table size.")
