"""The card study's figure: the margins of the starred cells, with their 95% intervals, one row per cell."""
from __future__ import annotations

from ..framework.plots import new_figure, style
from ..framework.study import FigureOut

COLOURS = {"source": "#1b7837", "place": "#2166ac", "finish": "#b2182b"}


def margins_figure(sections: list[dict]) -> FigureOut:
    rows = [(s["name"], c) for s in sections for c in s["cells"] if c["starred"]]
    fig, ax = new_figure(8.5, 0.22 * len(rows) + 1.6)
    for k, (name, c) in enumerate(rows):
        e = c["margin"]
        ax.errorbar([e.mean], [k], xerr=[[e.mean - e.lo], [e.hi - e.mean]], fmt="o", color=COLOURS[name],
                    markersize=3.5, capsize=2, linewidth=1.0)
    ax.set_yticks(range(len(rows)), [f"{c['where']}: {c['action']}" for _, c in rows], fontsize=6.5)
    ax.invert_yaxis()
    ax.axvline(0.0, color="#555555", linewidth=0.8, linestyle="dashed")
    style(ax, "The starred cells: margin of the recommended action over the closest other",
          "points per round (rollouts of learned self-play; 95% t interval over decisions)", "")
    return FigureOut("margins", fig,
                     "Every starred cell of the committed card (resolved, and beating expert's own rule "
                     "there): the recommended action's mean advantage over the "
                     "closest other candidate, in points of the player's round score relative to the others', "
                     "with its 95% t interval over the sampled decisions (green: take or draw; blue: where to put "
                     "a kept card; red: finish or play on).",
                     f"Horizontal interval bars of {len(rows)} cells' margins.")


RIVAL_COLOURS = {"net": "#762a83", "expert": "#b2182b", "builder": "#2166ac", "greedy": "#1b7837"}


def card_margins_figure(rows: list[dict]) -> FigureOut:
    """The card's game score against each rival in its seat (same deals), by table size, with 95% intervals."""
    rivals = list(dict.fromkeys(r["rivals"] for r in rows))
    sizes = sorted({int(r["players"]) for r in rows})
    fig, ax = new_figure(7.5, 3.2)
    width = 0.8 / max(1, len(rivals))
    for j, rival in enumerate(rivals):
        for r in (r for r in rows if r["rivals"] == rival):
            e = r["points"]
            x = sizes.index(int(r["players"])) + (j - (len(rivals) - 1) / 2) * width
            ax.errorbar([x], [e.mean], yerr=[[e.mean - e.lo], [e.hi - e.mean]], fmt="o", capsize=2, markersize=4,
                        color=RIVAL_COLOURS.get(rival, "#444444"), label=rival if r["players"] == rows[0]["players"]
                        or int(r["players"]) == sizes[0] else None)
    ax.set_xticks(range(len(sizes)), [f"{p} players" for p in sizes])
    ax.axhline(0.0, color="#555555", linewidth=0.8, linestyle="dashed")
    ax.legend(fontsize=7, frameon=False)
    style(ax, "Following the card: its game score against each rival in its seat",
          "", "points a game (card minus rival, same deals; negative: the card is better)")
    return FigureOut("card-margins", fig,
                     "The card's seat's game score minus a rival's in that seat, on the same deals with the seats "
                     "rotated, by table size and rival (net, expert, builder, greedy), with 95% intervals over deals; "
                     "negative means the card scores lower (better).",
                     f"Interval markers of the card's margin against {len(rivals)} rivals at {len(sizes)} table sizes.")
