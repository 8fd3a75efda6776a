"""Figures of the early-finish study (matplotlib Figure API)."""
from __future__ import annotations

import numpy as np

from ..framework.design import HEURISTIC_NAMES
from ..framework.study import FigureOut
from ..framework.plots import band, errorbars, legend, new_figure, percent_axis, players_color, strategy_color, style

_HIDDEN_COLORS = {"0-1": "#1b9e77", "2-3": "#7570b3", "4+": "#d95f02"}


def _even_bet(*axes) -> None:
    """P(bonus) axes: 0 to 100% with the even bet dashed, and a legend."""
    for ax in axes:
        ax.set_ylim(-0.02, 1.02)
        ax.axhline(0.5, color="#555555", linewidth=1, linestyle="dashed")
        percent_axis(ax)
        legend(ax)


def _by_size(ax, curve, column) -> None:
    """P(bonus) against ``column``, a band per table size."""
    for p in sorted({r["players"] for r in curve}):
        rows = [r for r in curve if r["players"] == p]
        band(ax, [r[column] for r in rows], [r["bonus"] for r in rows], color=players_color(p), label=f"{p} players")


def score_figure(curve: list[dict], preset_curve: list[dict], headline: int) -> FigureOut:
    """P(bonus) against the finisher's score: per preset at ``headline`` players, and pooled per table size."""
    fig, (ax, ax_pool) = new_figure(11, 4.6, ncols=2)
    for name in HEURISTIC_NAMES:
        rows = [r for r in preset_curve if r["strategy"] == name]
        if rows:
            band(ax, [r["score"] for r in rows], [r["bonus"] for r in rows], color=strategy_color(name), label=name)
    style(ax, f"{headline} players, per preset: the rounds it chose to finish",
          "finisher's round score (before the bonus)", "P(bonus)")
    _by_size(ax_pool, curve, "score")
    style(ax_pool, "All presets pooled, per table size (a mix, not advice)", "finisher's round score (before the bonus)",
          "P(bonus)")
    _even_bet(ax, ax_pool)
    return FigureOut("by-score", fig,
                     "How often the finisher earns the \u22125, by its score at the moment it turned its final "
                     "card. Each curve is conditional on the finisher having chosen to finish there: left, per "
                     "preset at the headline table size; right, all presets pooled in the shares they happen to "
                     "finish. Shaded: 95% intervals clustered by game; dashed: an even bet.",
                     "Falling curves of bonus probability against finishing score, per preset and per table size.")


def gap_figure(curve: list[dict], facedown: list[dict]) -> FigureOut:
    """P(bonus) against the gap to the best visible rival; and, at 4 players, by hidden cards."""
    fig, (ax, ax_hidden) = new_figure(11, 4.5, ncols=2)
    _by_size(ax, curve, "gap")
    style(ax, "By the gap to the best visible rival", "finisher's score \u2212 lowest visible rival score",
          "P(bonus)")
    for hidden in ("0-1", "2-3", "4+"):
        rows = [r for r in facedown if r["hidden"] == hidden]
        if rows:
            band(ax_hidden, [r["gap"] for r in rows], [r["bonus"] for r in rows], color=_HIDDEN_COLORS[hidden],
                 label=f"rival hides {hidden} cards")
    style(ax_hidden, "4 players: by the cards that rival still hides", "gap to the best visible rival",
          "P(bonus)")
    _even_bet(ax, ax_hidden)
    return FigureOut("by-gap", fig,
                     "Left: P(bonus) by the finisher's score minus the lowest visible score among the others "
                     "(their face-down cards count 0). Right, at 4 players: the same split by how many cards "
                     "that best-looking rival still had face down. Shaded: 95% intervals clustered by game.",
                     "Bonus probability against the gap to the best visible opponent.")


def players_figure(by_players: list[dict], presets: list[dict]) -> FigureOut:
    """P(bonus) by table size, for every finisher and per preset."""
    fig, (ax, ax_rate) = new_figure(11, 4.3, ncols=2)
    sizes = [r["players"] for r in by_players]
    errorbars(ax, np.array(sizes) - 0.15, [r["bonus"] for r in by_players], color="black", label="all finishers",
              marker="s")
    for k, name in enumerate(HEURISTIC_NAMES):
        rows = [r for r in presets if r["strategy"] == name and r["players"] in sizes and r["bonus"] is not None]
        if not rows:
            continue
        x = np.array([r["players"] for r in rows]) + (k - 1) * 0.1
        errorbars(ax, x, [r["bonus"] for r in rows], color=strategy_color(name), label=name)
        rates = [r for r in presets if r["strategy"] == name and r["players"] in sizes]
        errorbars(ax_rate, np.array([r["players"] for r in rates]) + (k - 1.5) * 0.1,
                  [r["finish_share"] for r in rates], color=strategy_color(name), label=name)
    style(ax, "P(earning the \u22125) by the number of players", "players", "P(bonus)")
    _even_bet(ax)
    style(ax_rate, "Who finishes: each preset's share of the finishes", "players", "share of finished rounds")
    ax_rate.axhline(1 / len(HEURISTIC_NAMES), color="#555555", linewidth=1, linestyle="dashed")
    percent_axis(ax_rate)
    legend(ax_rate)
    for a in (ax, ax_rate):
        a.set_xticks(sizes)
    return FigureOut("by-players", fig,
                     "Left: P(bonus) at each table size, for all finishers and per preset. Right: each preset's "
                     "share of the finished rounds (dashed: an even share; every preset fills a quarter of the "
                     "seats). 95% intervals clustered by game.",
                     "Bonus probability and finishing rate by number of players and preset.")


def turn_figure(curve: list[dict]) -> FigureOut:
    """P(bonus) against the finisher's own turn count."""
    fig, ax = new_figure(8.5, 4.3)
    _by_size(ax, curve, "own_turn")
    style(ax, "P(earning the \u22125) by the turn of the finish", "the finisher's own turn in the round",
          "P(bonus)")
    _even_bet(ax)
    return FigureOut("by-turn", fig,
                     "P(bonus) by the finisher's own turn number in the round (its n-th turn), with 95% "
                     "intervals clustered by game (a game's rounds are one unit).",
                     "Bonus probability against the turn of the finish for 2 to 7 players.")
