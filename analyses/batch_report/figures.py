"""The batch report's figures (matplotlib Figure API, the report's palette and style)."""
from __future__ import annotations

import numpy as np
from matplotlib.ticker import MaxNLocator

from gnoming_sim.batch.scan import BatchScan
from gnoming_sim.game.rules import HAZARD_PENALTY

from ..framework.plots import new_figure, strategy_color, style
from .content import MIN_FINISHES


def _central(hist, tail: float = 0.001) -> tuple[float, float]:
    """The range holding all but ``tail`` of the values at each end (all labels pooled), padded."""
    c = np.cumsum(hist.counts.sum(axis=0))
    lo = hist.values[np.searchsorted(c, tail * c[-1])]
    hi = hist.values[min(np.searchsorted(c, (1 - tail) * c[-1]), len(c) - 1)]
    pad = max(1.0, 0.03 * (hi - lo))
    return lo - pad, hi + pad


def _colors(names) -> list[str]:
    """The report's colour per preset; a user strategy gets a colour of its own."""
    fallback = iter(["#9467bd", "#8c564b", "#e377c2", "#17becf", "#bcbd22", "#7f7f7f", "#393b79"])
    known = {"random", "greedy", "builder", "rusher", "cautious"}
    return [strategy_color(n) if n in known else next(fallback) for n in names]


def standings(rows: list[dict], players: int, title: str):
    """Mean game score and win share per strategy (or seat), 95% intervals over games."""
    fig, (a, b) = new_figure(9.0, 3.6, ncols=2)
    labels = [str(r["label"]) for r in rows]
    colors = _colors(labels) if title == "strategy" else ["#1f77b4"] * len(rows)
    y = np.arange(len(rows))[::-1]
    for yi, r, c in zip(y, rows, colors):
        for ax, e in ((a, r["score"]), (b, r["win"])):
            ax.errorbar([e.mean], [yi], xerr=[[e.mean - e.lo], [e.hi - e.mean]], fmt="o", color=c, capsize=3,
                        markersize=5)
    b.axvline(1 / players, color="#888888", linestyle="--", linewidth=1)
    b.text(1 / players, len(rows) - 0.5, " even share", color="#666666", fontsize=8, va="top")
    for ax in (a, b):
        ax.set_yticks(y, labels)
        ax.set_ylim(-0.6, len(rows) - 0.4)
    style(a, f"Mean game score by {title} (lower is better)", "game score (3 rounds)")
    style(b, f"Win share by {title}", "share of wins (ties split)")
    return fig


def score_distributions(scan: BatchScan):
    """ECDF of game scores and histogram of round scores per strategy."""
    fig, (a, b) = new_figure(10.0, 3.8, ncols=2)
    for k, (name, color) in enumerate(zip(scan.names, _colors(scan.names))):
        g = scan.game_score.counts[k]
        a.step(scan.game_score.values, np.cumsum(g) / g.sum(), where="post", color=color, label=name,
               linewidth=1.4)
        r = scan.round_score.counts[k]
        b.step(scan.round_score.values, r / r.sum(), where="mid", color=color, label=name, linewidth=1.2)
    a.set_xlim(*_central(scan.game_score))
    style(a, "Game scores: share of games at or below", "game score (3 rounds)", "cumulative share")
    b.set_xlim(*_central(scan.round_score))
    style(b, "Round scores (bonus included)", "round score", "share of rounds")
    a.legend(fontsize=8, frameon=False)
    return fig


def turns(scan: BatchScan):
    """Turns a seat takes in a round, per strategy, and the round's length (all seats)."""
    fig, (a, b) = new_figure(10.0, 3.6, ncols=2)
    for k, (name, color) in enumerate(zip(scan.names, _colors(scan.names))):
        c = scan.seat_turns.counts[k]
        a.step(scan.seat_turns.values, c / c.sum(), where="mid", color=color, label=name, linewidth=1.2)
    t = scan.table_turns.counts[0]
    b.bar(scan.table_turns.values, t / t.sum(), width=1.0, color="#1f77b4", alpha=0.75)
    style(a, "Turns a seat takes in a round", "turns", "share of seat-rounds")
    style(b, "Turns in a round, all seats together", "turns", "share of rounds")
    a.legend(fontsize=8, frameon=False)
    return fig


def finish_by_score(frame, names):
    """P(-5 | the finisher's score before the bonus), per strategy, Wilson 95% bands."""
    fig, ax = new_figure(8.5, 4.2)
    drawn = 0
    for name, color in zip(names, _colors(names)):
        d = frame[(frame.strategy == name) & (frame.finishes >= MIN_FINISHES)]
        if d.empty:
            continue
        ax.fill_between(d.score, d.p_lo, d.p_hi, color=color, alpha=0.18, linewidth=0, step="mid")
        ax.plot(d.score, d.p, marker="o", markersize=3, color=color, label=name, linewidth=1.2)
        drawn += 1
    if not drawn:
        ax.text(0.5, 0.5, f"no score with {MIN_FINISHES} or more finishes: see the CSV",
                transform=ax.transAxes, ha="center", color="#666666")
    ax.axhline(0.5, color="#888888", linestyle="--", linewidth=1)
    ax.set_ylim(-0.02, 1.02)
    style(ax, "P(the finisher gets \u22125) by its round score when it finished", "finisher's round score "
          "(before the bonus)", "P(\u22125)")
    if drawn:
        ax.legend(fontsize=8, frameon=False)
    return fig


def lines_and_hazards(scan: BatchScan):
    """Matched lines and hazards left in a layout at the end of a round, per strategy."""
    fig, (a, b) = new_figure(10.0, 3.6, ncols=2)
    k_all = len(scan.names)
    width = 0.8 / k_all
    for k, (name, color) in enumerate(zip(scan.names, _colors(scan.names))):
        for ax, h in ((a, scan.lines), (b, scan.hazards_left)):
            c = h.counts[k]
            ax.bar(h.values + (k - (k_all - 1) / 2) * width, c / c.sum(), width=width, color=color, label=name)
    for ax in (a, b):
        ax.xaxis.set_major_locator(MaxNLocator(integer=True))
    style(a, "Matched lines in a layout at round end", "matched lines", "share of seat-rounds")
    value = scan.meta.get("rules", {}).get("hazard_value", HAZARD_PENALTY)   # a file older than the option: 10
    style(b, "Hazards left in a layout at round end", f"hazards (+{value} each)", "share of seat-rounds")
    b.set_yscale("log")
    a.legend(fontsize=8, frameon=False)
    return fig
