"""The agreement study's figure: per decision kind, the share where the card plays the evaluator's first choice
and the bracket of its loss per decision (lower and upper bound), each with its 95% interval."""
from __future__ import annotations

from ..framework.plots import new_figure, style
from ..framework.study import FigureOut


def agreement_figure(rows: list[dict]) -> FigureOut:
    """``rows``: the table's rows (kind words, ``best_e``, ``loss_e`` and ``held_e`` Estimates), the overall row last."""
    fig, (left, right) = new_figure(6.0, 0.32 * len(rows) + 1.4, ncols=2, sharey=True)
    for k, r in enumerate(rows):
        for ax, e, scale in ((left, r["best_e"], 100.0), (right, r["loss_e"], 1.0)):
            ax.errorbar([scale * e.mean], [k], xerr=[[scale * (e.mean - e.lo)], [scale * (e.hi - e.mean)]],
                        fmt="o", color="#2166ac" if k < len(rows) - 1 else "#111111", markersize=4, capsize=2)
        if "held_e" in r:   # the loss on other rollouts: hollow, just below
            e = r["held_e"]
            right.errorbar([e.mean], [k + 0.25], xerr=[[e.mean - e.lo], [e.hi - e.mean]], fmt="o", mfc="white",
                           color="#777777", markersize=4, capsize=2)
    left.set_yticks(range(len(rows)), [r["kind"] for r in rows], fontsize=7)
    left.invert_yaxis()
    style(left, "Plays the first choice", "% of decisions", "")
    style(right, "Loss a decision", "pp of win chance", "")
    return FigureOut("by-kind", fig,
                     "Per decision kind (and over every covered decision, in black): the share where the card plays "
                     "the evaluator's first choice, and its loss per decision (filled: the upper bound, on the "
                     "rollouts that picked the first choice; hollow, where measured: the lower bound, on fresh "
                     "rollouts), with 95% intervals.",
                     f"Two panels of interval bars for {len(rows)} rows: the first-choice share and the loss bracket.")
