"""The printed card and page (tune/card/printed.py, tune/card/page.py) show the finish table only for the table
sizes the card was derived at, and say why the others are missing.  They read the
first derivation (tuning/guide/guide.json, derived at 2 to 7 players), cut to fewer sizes as a card
made at those sizes would be."""
from __future__ import annotations

import copy
import json
from pathlib import Path

import pytest

from gnoming_sim.kernel.policy import card as C
from gnoming_sim.tune.card import page, printed

DERIVED = Path(__file__).resolve().parents[2] / "tuning" / "guide" / "guide.json"


@pytest.fixture(scope="module")
def full() -> dict:
    return json.loads(DERIVED.read_text(encoding="utf-8"))


def made_at(derived: dict, players: list[int]) -> dict:
    """``derived`` as if derived at ``players`` only: the finish cells of the other sizes never seen."""
    g = copy.deepcopy(derived)
    g["players"] = players
    g["rounds"] = {str(p): n for p, n in g["rounds"].items() if int(p) in players}
    keep = {C.SIZE_NAMES[s] for s in page.finish_sizes(g)[0]}
    g["tables"]["finish"]["cells"] = [c for c in g["tables"]["finish"]["cells"] if c["players"] in keep]
    return g


def finish_titles(derived: dict) -> tuple[list[str], str]:
    import matplotlib.pyplot as plt

    fig = printed.card_figure(derived)
    try:
        titles = [ax.get_title(loc="left") for ax in fig.axes]
        text = " ".join(t.get_text() for t in fig.texts)
    finally:
        plt.close(fig)
    return [t for t in titles if t.startswith("4.")], text


@pytest.mark.parametrize("players, drawn, left", [
    ([4], ["4-5"], "2-3 and 6-7"),
    # the same drawing and sentence at other sizes: make test (slow); test-fast draws the first
    pytest.param([2, 4], ["2-3", "4-5"], "6-7", marks=pytest.mark.slow),
    pytest.param([7], ["6-7"], "2-3 and 4-5", marks=pytest.mark.slow),
])
def test_a_card_for_some_table_sizes_draws_only_theirs_and_says_why(full, players, drawn, left):
    g = made_at(full, players)
    titles, text = finish_titles(g)
    assert titles == [f"4. Can finish, {size} players: finish?" for size in drawn]
    why = page.sizes_line(g)
    assert why.startswith(f"no finish table for {left} players: this card was derived at "
                          f"{', '.join(map(str, players))} players only")
    assert " ".join(why.split()[:6]) in " ".join(text.split())        # the card's foot says it
    assert f"No finish table for {left} players" in page.page_html(g, card_file=None)


def test_a_card_for_every_size_draws_them_all_and_says_nothing_more(full):
    assert full["players"] == [2, 3, 4, 5, 6, 7]
    titles, text = finish_titles(full)
    assert titles == [f"4. Can finish, {size} players: finish?" for size in C.SIZE_NAMES]
    assert page.sizes_line(full) == "" and "no finish table" not in text
    assert "No finish table" not in page.page_html(full, card_file=None)


def test_the_card_prints_a_banded_take_cell_only_where_it_differs_from_its_take_cell():
    """The committed card: a 7-8 pile card that pairs in a line is taken with 5 or more own cards face down (its
    take cell draws); the other banded cells it lists play as their take cell and are not printed as exceptions."""
    from gnoming_sim.kernel.policy import registry

    data = json.loads(registry.CARD_CELLS.read_text())
    assert page.banded_exceptions(data) == [
        "a 7-8 pile card (best use: pairs in a line): take while you have 5 or more cards face down (else draw)"]
    src = {c["cell"]: c for c in data["tables"]["source"]["cells"]}
    src[C.source_fd_cell_of(C.CC_HIGH, C.U_PAIR, 0)]["best"] = C.A_DRAW
    assert page.banded_exceptions(data) == []
