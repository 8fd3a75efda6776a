"""Shared figure helpers: the Figure API only (no pyplot state), one palette for all studies."""
from __future__ import annotations

import matplotlib
import numpy as np
from matplotlib.figure import Figure

# Labels carry strategy names from files and batch metadata: plain text, never mathtext (a name
# such as $\frac{$ would stop the renderer).  Text reads this setting when it is made, and tick
# labels are made while drawing, so it is set once for every figure of the report, before any.
matplotlib.rcParams["text.parse_math"] = False

STRATEGY_COLORS = {
    "random": "#8c8c8c",
    "greedy": "#1f77b4",
    "builder": "#ff7f0e",
    "rusher": "#d62728",
    "cautious": "#2ca02c",
}
_PLAYER_COLORS = ["#440154", "#414487", "#2a788e", "#22a884", "#7ad151", "#bddf26", "#fde725"]


_EXTRA_COLORS = ["#9467bd", "#8c564b", "#e377c2", "#17becf", "#bcbd22"]


def strategy_color(name: str) -> str:
    """The preset's colour; a user strategy gets one of a few others, fixed by its name."""
    if name in STRATEGY_COLORS:
        return STRATEGY_COLORS[name]
    return _EXTRA_COLORS[sum(name.encode()) % len(_EXTRA_COLORS)]


def players_color(players: int) -> str:
    """A colour per table size (2..7 players) on a dark-to-light scale."""
    return _PLAYER_COLORS[(players - 2) % len(_PLAYER_COLORS)]


def new_figure(width: float = 8.0, height: float = 4.5, **subplots) -> tuple[Figure, object]:
    """A constrained-layout figure and its axes (``subplots`` as in ``Figure.subplots``)."""
    fig = Figure(figsize=(width, height), layout="constrained", dpi=100)
    axes = fig.subplots(**subplots)
    return fig, axes


def style(ax, title: str = "", xlabel: str = "", ylabel: str = "") -> None:
    ax.set_title(title, fontsize=11, loc="left")
    ax.set_xlabel(xlabel)
    ax.set_ylabel(ylabel)
    ax.grid(True, color="#dddddd", linewidth=0.6)
    ax.set_axisbelow(True)
    for side in ("top", "right"):
        ax.spines[side].set_visible(False)


def errorbars(ax, x, estimates, *, color, label=None, marker="o", **kw) -> None:
    """Points at ``x`` with the 95% intervals of ``estimates`` as error bars."""
    means = [e.mean for e in estimates]
    lower = [e.mean - e.lo for e in estimates]
    upper = [e.hi - e.mean for e in estimates]
    ax.errorbar(x, means, yerr=[lower, upper], fmt=marker, color=color, label=label, capsize=3,
                markersize=5, linewidth=1.2, **kw)


def by_preset(ax, cells: list[dict], key: str, centre: float = 1.5, step: float = 0.09, pooled=()) -> None:
    """Each preset's estimates ``cell[key]`` against its cells' table sizes, the presets side by side, after the
    ``pooled`` rows' (all presets, one per table size) as black squares."""
    from .design import PRESET_NAMES   # here: the batch report's figures need not import the players

    if pooled:
        errorbars(ax, np.array([r["players"] for r in pooled]) - 0.2, [r[key] for r in pooled], color="black",
                  marker="s", label="all presets")
    for k, name in enumerate(PRESET_NAMES):
        rows = [c for c in cells if c["strategy"] == name]
        if rows:
            errorbars(ax, np.array([c["players"] for c in rows]) + (k - centre) * step, [c[key] for c in rows],
                      color=strategy_color(name), label=name)


def band(ax, x, estimates, *, color, label=None, marker="o") -> None:
    """A line through the means with a shaded 95% band (for curves over many x values)."""
    ax.fill_between(x, [e.lo for e in estimates], [e.hi for e in estimates], color=color, alpha=0.18,
                    linewidth=0)
    ax.plot(x, [e.mean for e in estimates], marker=marker, markersize=3, color=color, label=label,
            linewidth=1.3)


def legend(*axes, **kw) -> None:
    """The report's legend (small, unframed) on each of ``axes``."""
    for ax in axes:
        ax.legend(fontsize=8, frameon=False, **kw)


def percent_axis(ax, fmt: str = ".0f", unit: str = "%") -> None:
    """The y tick labels of a share in percent: ``100 * v`` in format ``fmt``, then ``unit``."""
    ax.yaxis.set_major_formatter(lambda v, _: f"{100 * v:{fmt}}{unit}")


def zero_line(ax, dashed: bool = False) -> None:
    """The grey line at y = 0 (no change)."""
    ax.axhline(0, color="#555555", linewidth=1, linestyle="dashed" if dashed else "-")
