"""The value study's figure: the reliability diagram, per table size the mean predicted chance of winning of
each bin against the share of those positions whose player won, with its 95% interval."""
from __future__ import annotations

from ..framework.plots import new_figure, players_color, style
from ..framework.study import FigureOut


def reliability_figure(rel: list[dict]) -> FigureOut:
    """``rel``: :func:`gnoming_sim.search.evaluator.calibration`'s bins (players, predicted, observed, its ci95)."""
    fig, ax = new_figure(5.2, 4.6)
    sizes = sorted({r["players"] for r in rel})
    for k, P in enumerate(sizes):
        pts = [r for r in rel if r["players"] == P]
        x = [100 * r["predicted"] for r in pts]
        y = [100 * r["observed"] for r in pts]
        lo = [100 * (r["observed"] - r["observed_ci95"][0]) for r in pts]
        hi = [100 * (r["observed_ci95"][1] - r["observed"]) for r in pts]
        ax.errorbar([v + 0.4 * (k - len(sizes) / 2) for v in x], y, yerr=[lo, hi], fmt="o-", markersize=3,
                    linewidth=0.8, capsize=1.5, color=players_color(P), label=f"{P} players")
    ax.plot([0, 100], [0, 100], color="#999999", linewidth=0.8, linestyle="dashed")
    ax.legend(fontsize=7, loc="upper left")
    style(ax, "Predicted against observed chance of winning", "predicted, %", "observed, %")
    return FigureOut("reliability", fig,
                     "Per table size, the positions binned by the network's chance of winning for the player to "
                     "move (ten bins of equal count): the bin's mean prediction against the share of its positions "
                     "whose player won the game (shared wins split), with 95% intervals; dashed: perfect "
                     "calibration.",
                     f"Reliability curves for {len(sizes)} table sizes against the diagonal.")
