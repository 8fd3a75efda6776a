"""The agreement study's figure: per decision kind, the card's agreement share and the win chance it gives up,
each with its 95% interval and the target line."""
from __future__ import annotations

from ..framework.plots import new_figure, style
from ..framework.study import FigureOut


def agreement_figure(rows: list[dict], targets: dict) -> FigureOut:
    """``rows``: the table's rows (kind words, ``agree_e`` and ``loss_e`` Estimates), the overall row last."""
    fig, (left, right) = new_figure(6.0, 0.32 * len(rows) + 1.4, ncols=2, sharey=True)
    for k, r in enumerate(rows):
        for ax, e, scale in ((left, r["agree_e"], 100.0), (right, r["loss_e"], 1.0)):
            ax.errorbar([scale * e.mean], [k], xerr=[[scale * (e.mean - e.lo)], [scale * (e.hi - e.mean)]],
                        fmt="o", color="#2166ac" if k < len(rows) - 1 else "#111111", markersize=4, capsize=2)
        if "held_e" in r:   # the loss on other rollouts: hollow, just below
            e = r["held_e"]
            right.errorbar([e.mean], [k + 0.25], xerr=[[e.mean - e.lo], [e.hi - e.mean]], fmt="o", mfc="white",
                           color="#777777", markersize=4, capsize=2)
    left.set_yticks(range(len(rows)), [r["kind"] for r in rows], fontsize=7)
    left.invert_yaxis()
    left.axvline(100 * targets["agree"], color="#b2182b", linewidth=0.9, linestyle="dashed")
    right.axvline(targets["mean_loss_pp"], color="#b2182b", linewidth=0.9, linestyle="dashed")
    style(left, "The card agrees", "% of decisions", "")
    style(right, "Win chance given up", "pp per decision", "")
    return FigureOut("by-kind", fig,
                     "Per decision kind (and over every covered decision, in black): the share where the card's "
                     "answer is the oracle's best or not separated from it, and the mean win chance it gives up "
                     "(filled: on the rollouts that chose the best, overstated; hollow, where measured: on other "
                     "rollouts, understated), with 95% intervals; dashed red: the targets.",
                     f"Two panels of interval bars for {len(rows)} rows: agreement share and win chance given up.")
