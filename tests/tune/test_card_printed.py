"""The printed card (tune/card/printed.py) is usable alone: every cell of every table has an
answer on the page, every word its cells and columns use is said in full in its key, and the page is laid out
so that nothing is cut off or printed over anything else: the derivation command's card had its title cut off and
its foot printed over the axis labels.  The layout is checked with the figure's own renderer, on the cards the
code draws: the committed card, the first derivation at every table size and at some, and a preview (the
longest title and foot)."""
from __future__ import annotations

import copy
import json
import re
from pathlib import Path

import pytest

from gnoming_sim.kernel.policy import card as C
from gnoming_sim.kernel.policy import registry
from gnoming_sim.tune.card import page, printed

ROOT = Path(__file__).resolve().parents[2]
DERIVED = ROOT / "tuning" / "guide" / "guide.json"


def _derived(players=None, preview=False) -> dict:
    g = json.loads(DERIVED.read_text(encoding="utf-8"))
    if players:
        g["players"] = players
        keep = {C.SIZE_NAMES[s] for s in page.finish_sizes(g)[0]}
        g["tables"]["finish"]["cells"] = [c for c in g["tables"]["finish"]["cells"] if c["players"] in keep]
    if preview:   # as `card --games 100` makes it against the committed card: the longest title and foot
        g["rounds"] = {p: 100 for p in g["rounds"]}
        g["preview"] = page.preview_of(g, {"rounds": {str(p): 20000 for p in range(2, 8)},
                                                 "decisions": 1_113_118})
        assert g["preview"]
    return g


def _committed() -> dict:
    data = json.loads(registry.CARD_CELLS.read_text(encoding="utf-8"))
    margins = json.loads((ROOT / "tuning" / "guide-iteration" / "margins-after.json").read_text())["margins"]
    return page.iterated_card(data, margins)


CARDS = {"the committed card": _committed, "the first derivation at 2-7 players": _derived,
         "the first derivation at 4 players": lambda: _derived([4]), "a preview at 2, 4 and 6 players": lambda: _derived([2, 4, 6], True)}


@pytest.fixture(scope="module", params=[
    # the first derivation cut to 4 players lays out as the preview cut to 2, 4 and 6 does: make test (slow)
    pytest.param(name, marks=pytest.mark.slow) if name == "the first derivation at 4 players" else name
    for name in CARDS])
def drawn(request):
    """(derived, figure, renderer) of one card, drawn."""
    import matplotlib.pyplot as plt

    derived = CARDS[request.param]()
    fig = printed.card_figure(derived)
    fig.canvas.draw()
    yield derived, fig, fig.canvas.get_renderer()
    plt.close(fig)


def _texts(fig):
    from matplotlib.text import Text

    return [t for t in fig.findobj(Text) if t.get_visible() and t.get_text().strip()]


def _overlap(a, b) -> bool:
    return a.x0 < b.x1 - 0.5 and b.x0 < a.x1 - 0.5 and a.y0 < b.y1 - 0.5 and b.y0 < a.y1 - 0.5


def test_the_card_is_one_a4_page(drawn):
    _, fig, _ = drawn
    w, h = fig.get_size_inches()
    assert (round(w, 2), round(h, 2)) == (11.69, 8.27)


def test_every_text_is_inside_the_page(drawn):
    """The title, the key, the foot, the tables' titles, labels and cells: each wholly on the page."""
    _, fig, r = drawn
    page = fig.bbox
    out = [t.get_text()[:40] for t in _texts(fig)
           if not (page.x0 - 0.5 <= (e := t.get_window_extent(r)).x0 and e.x1 <= page.x1 + 0.5
                   and page.y0 - 0.5 <= e.y0 and e.y1 <= page.y1 + 0.5)]
    assert not out, f"cut off at the page's edge: {out}"


def test_no_text_of_the_page_is_printed_over_a_table_or_its_labels(drawn):
    """The title, the key and the foot (the figure's own texts) overlap no table with its title, tick labels and
    axis labels (each axes' tight box); no two tables' boxes overlap; the page's texts do not overlap each other."""
    _, fig, r = drawn
    boxes = [ax.get_tightbbox(r) for ax in fig.axes]
    page_texts = [t for t in fig.texts if t.get_text().strip()]
    over = [(t.get_text()[:40], i) for t in page_texts for i, b in enumerate(boxes) if _overlap(t.get_window_extent(r), b)]
    assert not over, f"printed over a table: {over}"
    pairs = [(i, j) for i in range(len(boxes)) for j in range(i + 1, len(boxes)) if _overlap(boxes[i], boxes[j])]
    assert not pairs, f"tables printed over each other: {pairs}"
    ext = [t.get_window_extent(r) for t in page_texts]
    assert not [(i, j) for i in range(len(ext)) for j in range(i + 1, len(ext)) if _overlap(ext[i], ext[j])]


def test_every_cell_has_its_words_inside_it(drawn):
    """Every cell of every table has an answer (no blank cell), written inside the cell."""
    _, fig, r = drawn
    for ax in fig.axes:
        rows, cols = len(ax.get_yticks()), len(ax.get_xticks())
        cells = [t for t in ax.texts]
        assert len(cells) == rows * cols and all(t.get_text().strip() for t in cells), ax.get_title(loc="left")
        box = ax.get_window_extent(r)
        w, h = box.width / cols, box.height / rows
        for t in cells:
            x, y = t.get_position()
            e = t.get_window_extent(r)
            cx0, cy1 = box.x0 + x * w, box.y1 - y * h   # cell (y, x) of an image: row 0 on top
            assert cx0 <= e.x0 and e.x1 <= cx0 + w and cy1 - h <= e.y0 and e.y1 <= cy1, (ax.get_title(loc="left"),
                                                                                      t.get_text())


def test_every_word_of_the_cells_and_columns_is_said_in_the_key(drawn):
    """No abbreviation the card does not explain on the same page: each cell's word (without its * or ?), each
    column of tables 1-3, 'gap' and the marks * and ? are defined in the key ("word = ...")."""
    derived, fig, _ = drawn
    key = " ".join(" ".join(t.get_text() for t in fig.texts).split())
    words = {re.sub(r"[*?]$", "", t.get_text()) for ax in fig.axes for t in ax.texts}
    columns = {t.get_text() for ax in fig.axes[:3] for t in ax.get_xticklabels()}
    assert len(columns) == C.N_USE
    said = [w for w in sorted(words | columns | {"gap"}) if f"{w} = " not in key]
    assert not said, f"not said in the key: {said}"
    assert not re.search(r"\b(repl|d)\s*[<>=]", " ".join(t.get_text() for t in _texts(fig)))   # "repl. d>=6"
    marks = {m for ax in fig.axes for t in ax.texts for m in "*?" if t.get_text().endswith(m)}
    for m in marks:
        assert (f"{m} = " in key) or (f"A {m} after an answer" in key), m


def test_a_cell_without_a_measured_answer_prints_the_cards_default():
    """Cells the committed card leaves to its default print the default rule's action (pale, in italics); a
    measured one its action (bold)."""
    import matplotlib.pyplot as plt

    derived = _committed()
    fig = printed.card_figure(derived)
    try:
        by = {ax.get_title(loc="left")[:2]: ax for ax in fig.axes}
        listed = {c["cell"] for t in derived["tables"].values() for c in t["cells"]}
        checked = 0
        for title, table, cell_of, n_rows, n_cols in (
                ("1.", C.T_SOURCE, lambda i, j: C.source_cell_of(i, j), C.CC_HAZARD, C.N_USE),
                ("3.", C.T_PLACE, lambda i, j: C.place_cell_of(1, i, j), C.N_CLASS, C.N_USE)):
            texts = {(round(t.get_position()[1]), round(t.get_position()[0])): t for t in by[title].texts}
            for i in range(n_rows):
                for j in range(n_cols):
                    cell, t = cell_of(i, j), texts[i, j]
                    if cell in listed:
                        assert t.get_fontweight() == "bold"
                        continue
                    action = C.ACTION_NAMES[table][C.default_action_of(cell) - 1]
                    assert t.get_text() == printed.WORD[action] and t.get_fontstyle() == "italic", (title, i, j)
                    checked += 1
        assert checked > 20
        hazard_no_use = {(round(t.get_position()[1]), round(t.get_position()[0])): t.get_text()
                         for t in by["3."].texts}[C.CC_HAZARD, C.U_NONE]
        assert hazard_no_use == "throw"          # a blind hazard with no use: thrown away by default
    finally:
        plt.close(fig)


def test_a_seen_but_unresolved_cell_of_a_derivation_prints_its_default_with_a_question_mark():
    g = _derived()
    cell = next(c for c in g["tables"]["finish"]["cells"] if not c.get("resolved"))
    words, _, measured = printed.cell_mark(cell, cell["cell"], C.T_FINISH)
    action = C.ACTION_NAMES[C.T_FINISH][C.default_action_of(cell["cell"]) - 1]
    assert words == printed.WORD[action] + "?" and not measured
    resolved = copy.deepcopy(cell) | {"resolved": True, "action": "finish", "chart": True}
    assert printed.cell_mark(resolved, cell["cell"], C.T_FINISH)[0] == "FINISH*"


@pytest.mark.parametrize("path, derived", [("tuning/guide-iteration/card.png", _committed), ("tuning/guide/card.png", _derived)])
def test_the_committed_cards_are_what_the_code_draws(path, derived):
    """card_png draws a PNG of the page at the card's resolution, and the committed card docs/card.md shows, and the
    first derivation's, are the code's drawing of their committed data (`make card-redraw` redraws both): pixel for
    pixel where the PNG was written by this matplotlib, whose Agg output is deterministic; another version may draw its
    text a pixel apart, so that comparison is then skipped."""
    import io

    import matplotlib
    import numpy as np
    from PIL import Image

    with Image.open(io.BytesIO(printed.card_png(derived()))) as im:
        assert im.format == "PNG" and im.size == tuple(int(x * printed.DPI) for x in printed.PAGE)
        drawn = np.asarray(im.convert("RGBA"))
    with Image.open(ROOT / path) as im:
        made_by = im.info.get("Software", "")
        committed = np.asarray(im.convert("RGBA"))
    if f"version{matplotlib.__version__}," not in made_by:
        pytest.skip(f"{path} was written by {made_by!r}, this is matplotlib {matplotlib.__version__}")
    assert committed.shape == drawn.shape and np.array_equal(committed, drawn), f"{path} is stale: run make card-redraw"
