"""The ladder study's figure: every strategy's rating with its 95% interval, one marker per table size."""
from __future__ import annotations

import numpy as np

from ..framework.plots import legend, new_figure, players_color, style
from ..framework.study import FigureOut


def ratings_figure(sizes: list[dict]) -> FigureOut:
    """Horizontal interval bars: strategies top to bottom by their rating at 4 players (else the largest
    table rated); a strategy far below the rest (random) is written, not drawn."""
    far, drawn = _far(sizes)
    names = [n for n in _order(sizes) if n not in far]
    fig, ax = new_figure(8.5, 0.42 * len(names) + 1.8)
    offsets = np.linspace(-0.25, 0.25, len(sizes)) if len(sizes) > 1 else np.zeros(1)
    for off, size in zip(offsets, sizes):
        rows = {r["strategy"]: r for r in size["rows"]}
        ys, ms, lo, hi = [], [], [], []
        for k, name in enumerate(names):
            r = rows.get(name)
            if r is None or name in far or not r["rating"].finite:
                continue
            e = r["rating"]
            ys.append(k + off)
            ms.append(e.mean)
            lo.append(e.mean - e.lo)
            hi.append(e.hi - e.mean)
        ax.errorbar(ms, ys, xerr=[lo, hi], fmt="o", color=players_color(size["players"]), capsize=3,
                    markersize=4.5, linewidth=1.2, label=f"{size['players']} players")
    ax.axvline(0.0, color="#555555", linewidth=0.8, linestyle="dashed")
    ax.set_yticks(range(len(names)), names)
    ax.invert_yaxis()
    if far:
        text = "; ".join(f"{n}: " + ", ".join(f"{p}p {v:+.0f}" for p, v in far[n]) for n in far)
        ax.text(0.01, -0.16, f"not drawn, far below the rest: {text}", transform=ax.transAxes, fontsize=8,
                color="#555555", ha="left", va="top")
    anchor = sizes[0]["anchor"] if sizes else "expert"
    style(ax, f"Strength ladder: Bradley-Terry rating, {anchor} = 0 (higher is stronger)",
          "rating, Elo scale (400 = odds of 10 to 1 in a pairwise result)", "")
    legend(ax, loc="lower right")
    return FigureOut("ratings", fig,
                     f"Each strategy's Bradley-Terry rating from its pairwise results on shared deals with rotated "
                     f"seats, {anchor} = 0, with its 95% bootstrap interval over deals, per table size. Monte Carlo "
                     f"players play fewer deals, so their intervals are wider.",
                     f"Horizontal interval bars of {len(names)} strategies' ratings at "
                     f"{', '.join(str(s['players']) for s in sizes)} players.")


def _order(sizes) -> list[str]:
    ref = max(sizes, key=lambda s: (s["players"] == 4, s["players"])) if sizes else None
    names = [r["strategy"] for r in ref["rows"]] if ref else []
    for s in sizes:
        names += [r["strategy"] for r in s["rows"] if r["strategy"] not in names]
    return names


def _far(sizes):
    """Strategies whose every rating lies far below the rest (more than the others' span below them)."""
    ratings = {}
    for s in sizes:
        for r in s["rows"]:
            if r["rating"].finite:
                ratings.setdefault(r["strategy"], []).append((s["players"], r["rating"].mean, r["rating"].lo))
    far = {}
    for name, vals in ratings.items():
        rest = [lo for other, v in ratings.items() if other != name and other not in far for _, _, lo in v]
        tops = [m for other, v in ratings.items() if other != name for _, m, _ in v]
        if not rest:
            continue
        span = max(tops) - min(rest)
        if max(m for _, m, _ in vals) < min(rest) - span:
            far[name] = [(p, m) for p, m, _ in vals]
    return far, [n for n in ratings if n not in far]
