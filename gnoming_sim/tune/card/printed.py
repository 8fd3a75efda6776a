"""The printed card: one A4 page a person can play from without the docs.

Every cell of every table has an answer on the page: the measured action where the card (or the policy
iteration) resolved the cell, else the card's default rule for that cell (:func:`gnoming_sim.kernel.policy.card.default_action_of`,
the action the ``card`` player plays there), printed pale and in italics.  Every word the cells and headings
use is said in full in the key under the title.  The page is laid out by measuring it: the title, the key
and the foot are drawn first, then the tables are placed in the band between them, with room for their
titles and labels, so nothing is cut off or printed over anything else
(``tests/tune/test_card_printed.py`` checks every text's extent with the figure's renderer).

Reads only the card's dict (:mod:`gnoming_sim.tune.card.page` for its words and provenance lines).
"""
from __future__ import annotations

import io
import textwrap

from gnoming_sim.kernel.policy import card as C
from gnoming_sim.tune.card import page

PAGE = (11.69, 8.27)   # A4 landscape, inches
DPI = 150
MARGIN = 0.25          # inches round the page's edge
GAP = 0.12             # inches between a table's labels and the next thing

# a cell's words: the action, short enough for a cell, every one said in full in the key
WORD = {"take": "TAKE", "draw": "draw", "best use": "use", "face-down": "down", "throw away": "throw",
        "finish": "FINISH", "play on": "play on"}
COLOUR = {"take": "#9fd89f", "draw": "#d9d9d9", "best use": "#9fd89f", "face-down": "#f5d88c",
          "throw away": "#d9d9d9", "finish": "#9fd89f", "play on": "#f5b38c"}
PALE = 0.3             # a default cell's colour: this much of its action's colour on white
KEY_ACTIONS = ("TAKE = take the discard pile's top card; draw = draw the deck's top card blind; use = put the card "
               "where it does what its column says; down = put it on one of your face-down cards; throw = throw "
               "the blind card away; FINISH = put the card on your last face-down card, which ends the round; "
               "play on = do not finish this turn.")
KEY_COLUMNS = ("Columns, the card's best use in your layout: completes a line = makes a line of three that "
               "matches; pairs in a line = makes a pair in a line; replaces a card 6+ higher = goes over a face-up "
               "card that scores 6 or more points more than it; replaces a card 3-5 higher = the same, 3 to 5 points "
               "more; replaces a card 1-2 higher = the same, 1 or 2 points more; on a face-down slot = none of "
               "these, and you have a face-down card; no use = none of these. Rows: the card (negative, its value, "
               "a mulligan, a hazard).")
KEY_FINISH = ("Table 4 (when putting the card on your last face-down card would finish the round): gap = your "
              "score after finishing minus the lowest visible score of a rival (their face-down cards count 0); the "
              "columns are the rivals' mean number of face-down cards.")
KEY_DEFAULT = ("Bold on full colour: the answer measured for that cell. Pale italic: no answer was measured there, "
               "and the card's default is printed: take a negative card or one with a use (not a face-down slot), "
               "else draw; put a kept card to its use, else face down, and throw a blind card with no use away; "
               "finish when the gap is below 0.")
KEY_STARRED = ("A ? after an answer: seen in the games but not resolved, so the default is printed. * = beats expert's "
             "own rule there (the card-starred player follows the starred cells, expert elsewhere).")


def bin_words(name: str) -> str:
    """A bin's name (card.GAP_NAMES, OFD_NAMES) as the card prints it: ``>= 10`` as ``≥ 10``, ``-10..-6`` as
    ``-10 to -6``."""
    return name.replace(">= ", "\u2265 ").replace("<= ", "\u2264 ").replace("..", " to ")


def cell_mark(c: dict | None, cell: int, table: int) -> tuple[str, str, bool]:
    """(words, colour, measured) of ``cell`` (of table ``table``, the card's T_*) on the card: a resolved cell its
    action (``*`` where starred: the card-starred player plays it); any other cell the card's default action, ``?`` after it where
    the cell was seen but not resolved."""
    if c is not None and c.get("resolved"):
        return WORD[c["action"]] + ("*" if c.get("chart") else ""), COLOUR[c["action"]], True
    action = C.ACTION_NAMES[table][C.default_action_of(cell) - 1]
    return WORD[action] + ("?" if c is not None else ""), _pale(COLOUR[action]), False


def _pale(colour: str) -> tuple[float, float, float]:
    from matplotlib.colors import to_rgb

    return tuple(1 - PALE * (1 - x) for x in to_rgb(colour))


def _table(ax, title: str, rows: list[str], cols: list[str], marks: list[list[tuple[str, str, bool]]],
           xlabel: str, ylabel: str) -> None:
    """One table: ``marks[i][j]`` = (words, colour, measured) of row i, column j."""
    import numpy as np
    from matplotlib.colors import to_rgb

    img = np.array([[to_rgb(m[1]) for m in row] for row in marks])
    ax.imshow(img, aspect="auto", interpolation="nearest")
    for i, row in enumerate(marks):
        for j, (text, _, measured) in enumerate(row):
            ax.text(j, i, text, ha="center", va="center", fontsize=8, color="black" if measured else "#555555",
                    weight="bold" if measured else "normal", style="normal" if measured else "italic")
    slant = max(map(len, cols)) > 6   # long column words slant, so each stays under its own column
    ax.set_xticks(range(len(cols)), cols, fontsize=7, rotation=30 if slant else 0, ha="right" if slant else "center",
                  rotation_mode="anchor")
    ax.set_yticks(range(len(rows)), rows, fontsize=7.5)
    ax.set_xticks([x - 0.5 for x in range(1, len(cols))], minor=True)
    ax.set_yticks([y - 0.5 for y in range(1, len(rows))], minor=True)
    ax.grid(which="minor", color="white", linewidth=1.5)
    ax.tick_params(which="both", length=0)
    ax.set_xlabel(xlabel, fontsize=7.5)
    ax.set_ylabel(ylabel, fontsize=7.5)
    ax.set_title(title, fontsize=10, loc="left", weight="bold")


def _wrapped(fig, x: float, y: float, paragraphs: list[str], width: float, **kw):
    """``paragraphs`` as one text at (x, y) (figure fraction), each wrapped to fit ``width`` (figure
    fraction) by measuring it with the figure's renderer."""
    r = fig.canvas.get_renderer()
    t = fig.text(x, y, "", **kw)
    lines = []
    for p in paragraphs:
        chars = max(20, len(p))
        while True:
            trial = textwrap.wrap(p, chars) or [""]
            t.set_text("\n".join(trial))
            if t.get_window_extent(r).width <= width * fig.bbox.width or chars <= 20:
                break
            chars = int(chars * 0.93)
        lines += trial
    t.set_text("\n".join(lines))
    return t


def _title(fig, card: dict) -> list:
    """The title (shrunk until it fits the page's width) and, for a preview, a red line above it."""
    r = fig.canvas.get_renderer()
    room = fig.bbox.width - 2 * MARGIN * fig.dpi
    out = []
    y = 1 - MARGIN / PAGE[1]
    if page.preview_line(card):
        out.append(fig.text(0.5, y, "PREVIEW: made from too few games to replace the committed card (see the foot)",
                            ha="center", va="top", fontsize=11, weight="bold", color="#b00000"))
        y = _below(fig, out[-1], 0.04)
    words = ("Gnoming A Round: the player's card, derived by policy iteration" if page.is_iterated(card) else
             "Gnoming A Round: the player's card, derived by simulation")
    t = fig.text(0.5, y, words, ha="center", va="top", fontsize=16, weight="bold")
    while t.get_window_extent(r).width > room and t.get_fontsize() > 8:
        t.set_fontsize(t.get_fontsize() - 0.5)
    return out + [t]


def _below(fig, text, pad_in: float) -> float:
    """The figure fraction ``pad_in`` inches below ``text``'s bottom."""
    return (text.get_window_extent(fig.canvas.get_renderer()).y0 - pad_in * fig.dpi) / fig.bbox.height


def _key(card: dict) -> list[str]:
    bands = page.banded_exceptions(card)
    return ([KEY_ACTIONS, KEY_COLUMNS, KEY_FINISH, KEY_DEFAULT]
            + ([] if page.is_iterated(card) else [KEY_STARRED])
            + (["Table 1's exceptions, by your own face-down cards: " + "; ".join(bands) + "."] if bands else []))


def _foot(card: dict) -> list[str]:
    if page.is_iterated(card):
        return [page.preview_line(card), *page.iteration_foot(card, short=True)]
    return [page.preview_line(card), page.value_line(card), page.ladder_line(card),
            page.sizes_line(card),
            f"rollouts ({page.rollout_player(card)} play) at {card['self_play']} self-play decisions "
            f"({card['decisions']:,} decisions at {', '.join(map(str, card['players']))} players, seed "
            f"{card['seed']}); a cell is resolved when its action wins every paired comparison after Holm's "
            f"correction ({page.holm_family(card)}, 5%); on average over the positions self-play of "
            f"{card['self_play']} reaches"]


def _tables(fig, card: dict) -> list[list]:
    """The tables' axes, two rows: take or draw, where to put a kept card (from a pile, blind), then finish or
    play on once per table size the card was derived at.  A hazard is never on a discard pile, so tables 1
    and 2 have no hazard row."""
    src, place, fin = (page.cells_by_number(card, t) for t in C.TABLE_NAMES)
    classes = list(C.CLASS_NAMES)
    top = []
    ax = fig.add_subplot()
    _table(ax, "1. Take the pile's top card, or draw?", classes[:C.CC_HAZARD],
           [page.USE_WORDS[u] for u in C.USE_NAMES],
           [[cell_mark(src.get(C.source_cell_of(k, u)), C.source_cell_of(k, u), C.T_SOURCE) for u in range(C.N_USE)]
            for k in range(C.CC_HAZARD)], "the pile card's best use", "the pile's top card")
    top.append(ax)
    for b, (where, rows) in enumerate((("2. Taken from a pile: where?", C.CC_HAZARD),
                                       ("3. Drawn blind: keep where, or throw?", C.N_CLASS))):
        ax = fig.add_subplot()
        _table(ax, where, classes[:rows], [page.USE_WORDS[u] for u in C.USE_NAMES],
               [[cell_mark(place.get(C.place_cell_of(b, k, u)), C.place_cell_of(b, k, u), C.T_PLACE)
                 for u in range(C.N_USE)] for k in range(rows)], "the card's best use", "the card")
        top.append(ax)
    bottom = []
    for s in page.finish_sizes(card)[0]:
        ax = fig.add_subplot()
        _table(ax, f"4. Can finish, {C.SIZE_NAMES[s]} players: finish?",
               [f"gap {bin_words(g)}" for g in C.GAP_NAMES], [bin_words(o) for o in C.OFD_NAMES],
               [[cell_mark(fin.get(C.finish_cell_of(g, o, s)), C.finish_cell_of(g, o, s), C.T_FINISH)
                 for o in range(C.N_OFD)] for g in range(C.N_GAP)],
               "rivals' face-down cards (mean)", "")
        bottom.append(ax)
    return [top, bottom]


def _place(fig, rows: list[list], top: float, bottom: float) -> None:
    """Put the tables' axes in the band ``bottom``..``top`` (figure fraction): three columns, each table's
    plotting area as large as the band allows once every table's title and labels (measured) have room."""
    r = fig.canvas.get_renderer()
    W, H = fig.bbox.width, fig.bbox.height

    def extras(ax):   # (left, right, below, above) of the labels round the plotting area, in pixels
        tight, box = ax.get_tightbbox(r), ax.get_window_extent(r)
        return box.x0 - tight.x0, tight.x1 - box.x1, box.y0 - tight.y0, tight.y1 - box.y1

    for _ in range(2):   # the labels' extents do not depend on the area's size: a second pass is exact
        ex = [[extras(ax) for ax in row] for row in rows]
        cols = max(len(row) for row in rows)
        left = [max((ex[i][j][0] for i in range(len(rows)) if j < len(rows[i])), default=0) for j in range(cols)]
        right = [max((ex[i][j][1] for i in range(len(rows)) if j < len(rows[i])), default=0) for j in range(cols)]
        width = (W - 2 * MARGIN * fig.dpi - sum(left) - sum(right) - (cols - 1) * 2 * GAP * fig.dpi) / cols
        heights = [max(e[2] for e in row) + max(e[3] for e in row) for row in ex]
        height = ((top - bottom) * H - sum(heights) - (len(rows) - 1) * 2 * GAP * fig.dpi) / len(rows)
        y = top * H
        for row, e in zip(rows, ex):
            y -= max(x[3] for x in e) + height
            x = MARGIN * fig.dpi
            for j, ax in enumerate(row):
                x += left[j]
                ax.set_position([x / W, y / H, width / W, height / H])
                x += width + right[j] + 2 * GAP * fig.dpi
            y -= max(x[2] for x in e) + 2 * GAP * fig.dpi


def _fit_cells(fig, axes: list) -> None:
    """Shrink the cells' words, the same size in every table, until the widest fits its cell with a margin."""
    r = fig.canvas.get_renderer()
    texts = [(t, ax.get_window_extent(r).width / len(ax.get_xticks())) for ax in axes for t in ax.texts]
    while texts and texts[0][0].get_fontsize() > 5:
        if all(t.get_window_extent(r).width <= 0.9 * w for t, w in texts):
            return
        for t, _ in texts:
            t.set_fontsize(t.get_fontsize() - 0.25)


def card_figure(card: dict):
    """The card as a matplotlib figure (:func:`card_png` saves it): the title, the key in words, the tables
    (take or draw, where to put a kept card from a pile or drawn blind, and finish or play on once per table
    size the card was derived at) and the foot (how the card was made and what following it is worth)."""
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    fig = plt.figure(figsize=PAGE, dpi=DPI)
    width = 1 - 2 * MARGIN / PAGE[0]
    head = _title(fig, card)
    key = _wrapped(fig, MARGIN / PAGE[0], _below(fig, head[-1], 0.08), _key(card), width, va="top",
                   fontsize=7.5, linespacing=1.35)
    lines = [f for f in _foot(card) if f]
    foot = _wrapped(fig, MARGIN / PAGE[0], MARGIN / PAGE[1], lines, width, va="bottom", fontsize=6.5,
                    linespacing=1.3, color="#333333")
    tables = _tables(fig, card)
    r = fig.canvas.get_renderer()
    _place(fig, tables, _below(fig, key, GAP), (foot.get_window_extent(r).y1 + GAP * fig.dpi) / fig.bbox.height)
    _fit_cells(fig, [ax for row in tables for ax in row])
    return fig


def card_png(card: dict) -> bytes:
    """The card (:func:`card_figure`) as PNG bytes."""
    import matplotlib.pyplot as plt

    fig = card_figure(card)
    buf = io.BytesIO()
    fig.savefig(buf, format="png")
    plt.close(fig)
    return buf.getvalue()


__all__ = ["card_figure", "card_png", "cell_mark", "bin_words"]
