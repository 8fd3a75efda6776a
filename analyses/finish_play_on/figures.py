"""Figures of the finish-or-play-on study (matplotlib Figure API)."""
from __future__ import annotations

import numpy as np

from ..framework.plots import errorbars, legend, new_figure, percent_axis, players_color, strategy_color, style, zero_line
from ..framework.study import FigureOut
from .design import BASE_POLICY

_HIDDEN_MARKERS = {"1": "o", "2": "s", "3+": "^"}
_EXPERT_COLOR = "#9467bd"


def _binned(ax, rows, sizes, labels, value="diff", hidden=None):
    """Error bars per table size at the bins' positions (bins in ``labels`` order)."""
    pos = {b: i for i, b in enumerate(labels)}
    for k, p in enumerate(sizes):
        mine = [r for r in rows if r["players"] == p and (hidden is None or r.get("hidden") == hidden)]
        if mine:
            x = np.array([pos[r["bin"]] for r in mine]) + (k - (len(sizes) - 1) / 2) * 0.12
            errorbars(ax, x, [r[value] for r in mine], color=players_color(p), label=f"{p} players",
                      marker=_HIDDEN_MARKERS.get(hidden, "o"))
    ax.set_xticks(range(len(labels)))
    ax.set_xticklabels([_pretty(b) for b in labels], fontsize=8)


def _pretty(label: str) -> str:
    return label.replace("<=", "\u2264").replace(">=", "\u2265").replace("-", "\u2212")


def _labels(rows):
    return [b for _, b in sorted({(r["lo"], r["bin"]) for r in rows})]


def _pp_axis(ax) -> None:
    ax.yaxis.set_major_formatter(lambda v, _: f"{100 * v:+.0f}".replace("-", "\u2212"))


def _two_criteria(rows, sizes, xlabel, what):
    fig, (ax_win, ax_pts) = new_figure(11, 4.6, ncols=2)
    labels = _labels(rows)
    _binned(ax_win, rows, sizes, labels, value="win")
    style(ax_win, f"Chance of winning the game, {what}", xlabel,
          "finish \u2212 best play-on (percentage points)")
    _pp_axis(ax_win)
    _binned(ax_pts, rows, sizes, labels, value="diff")
    style(ax_pts, f"Own round score, {what}", xlabel, "finish \u2212 best play-on (points)")
    for a in (ax_win, ax_pts):
        zero_line(a, dashed=True)
        legend(a)
    return fig


def boundary_figure(by_gap: list[dict], sizes, fits=None) -> FigureOut:
    """Finish - best play-on by the gap to the best visible rival, in both criteria; the monotone fit's
    crossing of each table size (the strong player's rollouts, :data:`.design.BASE_POLICY`) marked on the win
    panel as text."""
    fig = _two_criteria(by_gap, sizes, "gap: score after finishing \u2212 best rival's visible score", "by the gap")
    if fits:
        ax = fig.axes[0]
        lines = []
        for p in sizes:
            f = (fits.get(p) or {}).get(BASE_POLICY)
            b = None if f is None else f["boundary"]
            if b is not None and not b.open:
                r = b.point
                rule = "" if f["numeric"] else " (no single number)"
                lines.append(f"{p} players: crossing {r.mean:+.1f} [{r.lo:+.1f}, {r.hi:+.1f}]{rule}".replace("-", "\u2212"))
            elif f is not None:
                lines.append(f"{p} players: crossing not pinned down")
        if lines:
            ax.text(0.02, 0.02, "\n".join(lines), transform=ax.transAxes, fontsize=7, va="bottom")
    return FigureOut("boundary", fig,
                     "Finishing minus the best way of playing on at finishing chances of self-play games (one per "
                     f"game), rolled out with every seat playing {BASE_POLICY} afterwards. Left: the player's chance of "
                     "winning the game (above the dashed line finishing pays); right: the player's own round score "
                     "(below it finishing pays; it does not count what a finish does to the rivals). 95% intervals "
                     "over decisions.",
                     "Finish minus play on by the gap to the best visible rival, per table size, in win chance and points.")


def score_figure(by_own: list[dict], sizes) -> FigureOut:
    """The same by the player's own visible score."""
    fig = _two_criteria(by_own, sizes, "own visible score (face-down cards count 0)", "by own visible score")
    return FigureOut("by-score", fig,
                     "The same differences by the player's own visible score. 95% intervals over decisions.",
                     "Finish minus play on by the player's own visible score, per table size.")


def hidden_figure(by_hidden: list[dict], sizes) -> FigureOut:
    """The gap split by the face-down cards of the rival closest to finishing."""
    bands = [h for h in _HIDDEN_MARKERS if any(r.get("hidden") == h for r in by_hidden)]
    fig, axes = new_figure(11, 4.2, ncols=max(len(bands), 1), sharey=True, squeeze=False)
    labels = _labels(by_hidden)
    for ax, h in zip(axes[0], bands):
        _binned(ax, by_hidden, sizes, labels, value="win", hidden=h)
        style(ax, f"closest rival holds {h} face-down card{'s' if h != '1' else ''}", "gap to the best visible rival",
              "finish \u2212 best play-on, chance of winning (pp)" if h == bands[0] else "")
        _pp_axis(ax)
        zero_line(ax, dashed=True)
        legend(ax)
    return FigureOut("hidden", fig,
                     "Finish minus the best play-on in the chance of winning (percentage points) by the gap, split by how many face-down cards the rival with the fewest "
                     "still holds (1, 2, 3 or more): how close the nearest rival is to finishing, and how much "
                     "of the rivals' scores the visible gap cannot see. 95% intervals over decisions.",
                     "Finish minus play on by gap, split by the closest rival's face-down cards.")


def regret_figure(regret: list[dict], sizes) -> FigureOut:
    """Each preset's regret per player-round by table size, in points and in the chance of winning."""
    fig, (ax_win, ax_agree) = new_figure(11, 4.3, ncols=2)
    names = list(dict.fromkeys(r["preset"] for r in regret))
    for ax, value in ((ax_win, "per_decision_win"), (ax_agree, "agree")):
        for k, name in enumerate(names):
            rows = [r for r in regret if r["preset"] == name and r["players"] in sizes and r[value] is not None]
            if rows:
                x = np.array([r["players"] for r in rows]) + (k - (len(names) - 1) / 2) * 0.1
                color = _EXPERT_COLOR if name == "expert" else strategy_color(name)
                errorbars(ax, x, [r[value] for r in rows], color=color, label=name)
        zero_line(ax, dashed=True)
        ax.set_xticks(list(sizes))
        legend(ax)
    style(ax_win, "Chance of winning lost at a finishing chance", "players", "regret (percentage points)")
    style(ax_agree, "Agrees with the rollout choice", "players", "share of decisions (%)")
    _pp_axis(ax_win)
    percent_axis(ax_agree, unit="")
    return FigureOut("regret", fig,
                     "What each preset's own choice at its drawn finishing chance loses against the rollout choice "
                     f"in the chance of winning the game ({BASE_POLICY} playing on, fresh rollouts), per decision "
                     "(left; bootstrap 95% intervals over decisions), and how often its finish-or-not agrees with "
                     "the rollout choice (right; Wilson intervals over decisions).",
                     "Regret per finishing chance of each preset's finishing choices, by table size.")
