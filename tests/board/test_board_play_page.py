"""The board's play mode in a real browser (pytest-playwright on the system Chromium): a 2-player game against
`net` played by clicking (initial flips, a draw, a placement), a click the rules refuse answered in a sentence,
the hint's table and the card's line, the tutor's warning taken back, the page at 390 and 1,400 px without
sideways scrolling.  Screenshots go to GNOMING_SCREENSHOTS (docs/img for docs/board.md) or a temporary folder."""
from __future__ import annotations

import pytest

pytest.importorskip("starlette")
pytest.importorskip("playwright")

pytestmark = pytest.mark.slow


@pytest.fixture(scope="module")
def blank(serve):
    from gnoming_sim.cli.board.inputs import Opened

    return serve(Opened(), threads=1)


def start(page, served, width=1400, seed=3, players=2):
    page.set_viewport_size({"width": width, "height": 1000})
    page.goto(served.url)
    page.wait_for_selector("#status.ok, #status.error", timeout=60_000)
    page.select_option("#play-players", str(players))
    page.select_option("#play-seat", "0")
    page.fill("#play-seed", str(seed))
    page.fill("#play-pause", "0")
    page.click("#play-new")


def wait_state(page, state: str, kind: str | None = None, timeout=300_000) -> None:
    page.wait_for_selector(f"#play[data-state='{state}']", timeout=timeout)
    if kind:
        page.wait_for_function(f"() => P.view && P.view.decision && P.view.decision.kind === '{kind}'",
                               timeout=timeout)


def moves(page) -> int:
    return int(page.get_attribute("#play", "data-moves"))


def legal_slot(page) -> int:
    return page.evaluate("() => P.view.decision.legal.filter((a) => a < 9)[0]")


def test_a_game_is_played_by_clicking(page, blank, shots):
    start(page, blank)
    wait_state(page, "you", "init_flip")
    assert page.locator("#play-ask").inner_text().startswith("Turn up two cards")
    page.click("#play-table .seat[data-seat='1'] .slot[data-slot='0']")   # a rival's card: refused, said why
    assert "seat 1's layout" in page.locator("#play-ask.error").inner_text()
    before = moves(page)
    page.click("#play-table .seat[data-seat='0'] .slot[data-slot='0']")
    page.click("#play-table .seat[data-seat='0'] .slot[data-slot='4']")
    wait_state(page, "you", "draw")
    assert moves(page) > before
    mine = page.locator("#play-table .seat[data-seat='0'] .slot")
    assert mine.nth(0).inner_text() != "" and mine.nth(4).inner_text() != ""   # the two turned up
    rival = [page.locator(f"#play-table .seat[data-seat='1'] .slot").nth(q).inner_text() for q in range(9)]
    assert rival.count("") >= 7   # the rival's face-down cards: nothing on the page
    page.click("#play-draw")
    wait_state(page, "you", "place")
    assert page.locator("#play-hand").inner_text() != ""
    page.click("#play-hint")
    page.wait_for_selector("#play-hints:not([hidden]) #play-hint-table tbody tr")
    assert page.locator("#play-card").inner_text().startswith("card:")
    page.locator("#play").screenshot(path=str(shots / "board-play.png"))
    shown = moves(page)
    page.click(f"#play-table .seat[data-seat='0'] .slot[data-slot='{legal_slot(page)}']")
    page.wait_for_function(f"() => P.view.moves > {shown} && P.view.state === 'you'", timeout=120_000)
    assert "the other seats are playing" not in page.locator("#play-ask").inner_text()
    assert page.locator("#play-log").inner_text().count("Round 1 of 3") == 1


def test_the_tutor_warns_and_takes_back(page, blank, shots):
    start(page, blank, seed=8)
    wait_state(page, "you", "init_flip")
    page.click("#play-table .seat[data-seat='0'] .slot[data-slot='2']")
    page.click("#play-table .seat[data-seat='0'] .slot[data-slot='6']")
    wait_state(page, "you", "draw")
    page.click("#play-draw")
    wait_state(page, "you", "place")
    page.click("#play-hint")
    page.wait_for_selector("#play-hint-table tbody tr")
    page.check("#tutor")   # from here: a draw that is not the best would be warned about too
    page.fill("#tutor-pp", "0")
    worst = page.evaluate("() => [...document.querySelectorAll('#play-hint-table tbody tr')].pop().dataset.key")
    if worst == "discard":
        page.click("#play-nokeep")
    else:
        page.click(f"#play-table .seat[data-seat='0'] .slot[data-slot='{worst[3:]}']")
    page.wait_for_selector("#play-warn:not([hidden])")
    assert "Take it back?" in page.locator("#play-warn-text").inner_text()
    before = moves(page)
    page.locator("#play").screenshot(path=str(shots / "board-play-tutor.png"))
    page.click("#play-takeback")
    assert page.locator("#play-warn").is_hidden() and moves(page) == before
    assert page.locator("#play-ask").inner_text().startswith("taken back: Place the")


@pytest.mark.parametrize("width", [390, 1400])
@pytest.mark.parametrize("players", [2, 7])
def test_play_fits_the_width(page, blank, width, players):
    start(page, blank, width=width, seed=1, players=players)
    page.wait_for_selector(f"#play-table .seat[data-seat='{players - 1}']", timeout=300_000)
    assert page.evaluate("() => document.documentElement.scrollWidth") <= width
    click_decision_if_mine(page)
    assert page.evaluate("() => document.documentElement.scrollWidth") <= width


def click_decision_if_mine(page) -> None:
    page.wait_for_function("() => P.view && P.view.state !== 'others' && !P.busy", timeout=300_000)
    if page.get_attribute("#play", "data-state") == "you":
        click_decision(page)


@pytest.fixture(scope="module")
def drilled(serve, tmp_path_factory):
    from gnoming_sim.cli.board.inputs import Opened

    path = tmp_path_factory.mktemp("deck") / "drills.parquet"
    served = serve(Opened(), threads=1, drill_deck=path)
    served.deck_path = path
    return served


def click_decision(page) -> None:
    """One decision of the person answered by clicking, the rules' first legal answer."""
    d = page.evaluate("() => P.view.decision")
    kind, legal = d["kind"], d["legal"]
    slot = "#play-table .seat[data-seat='0'] .slot[data-slot='{}']"
    if kind == "init_flip":
        page.click(slot.format(legal[0]))
        page.click(slot.format(legal[1]))
    elif kind == "draw":
        page.click("#play-draw" if legal[0] == 0 else f"#play-pile{legal[0] - 1}")
    elif kind == "discard":
        page.click(f"#play-pile{legal[0]}")
    elif kind == "place":
        page.click("#play-nokeep" if legal[0] == 9 else slot.format(legal[0]))
    elif kind == "bounce":
        page.click("#play-stop")
    else:
        page.click("#play-decline")


def test_a_whole_game_clicked_to_its_end_is_reviewed_and_drilled(page, drilled, shots):
    from gnoming_sim.drills import deck as drill

    answers = []   # every play answer the page received: nothing in it but the person's view and the story
    page.on("response", lambda r: answers.append(r) if "/api/play/" in r.url and "/review" not in r.url else None)
    start(page, drilled, seed=12)
    wait_state(page, "you")
    while (state := page.get_attribute("#play", "data-state")) != "game_over":
        before = moves(page)
        if state == "round_over":
            page.click("#play-next")
        else:
            click_decision(page)
        page.wait_for_function(f"() => P.view.moves > {before} && P.view.state !== 'others' && !P.busy",
                               timeout=300_000)
    assert page.locator("#play-log").inner_text().count("Scoring, round") == 3
    keys = {"state", "players", "seat", "seats", "round", "turn", "starter", "finisher", "layouts", "piles",
            "draw_pile", "removed", "scores", "moves", "decision", "round_scores", "totals", "winners"}
    bodies = [r.json() for r in answers if "/hint" not in r.url]
    assert len(bodies) > 20 and all(set(b) <= {"ok", "game", "view", "log", "seen"} for b in bodies)
    assert all(set(b["view"]) <= keys for b in bodies)
    playing = [b["view"] for b in bodies if b["view"]["state"] in ("you", "others")]
    assert all(v["layouts"][1].count("?") >= 1 for v in playing if v["finisher"] != 1)   # the rival's stay hidden
    assert "== Game over ==" in page.locator("#play-log").inner_text()
    page.click("#play-review")
    page.wait_for_selector("#game:not([hidden]) #moves li", timeout=600_000)
    marks = page.locator("#moves li .mark").count()
    assert page.locator("#game-name").inner_text().startswith("review your game, seat 0")
    assert len(drill.load(drilled.deck_path)) == marks > 0
    page.locator("#game").screenshot(path=str(shots / "board-play-review.png"))
    page.click("#drill-next")
    page.wait_for_selector("#drill-info[data-card]", timeout=120_000)


def test_the_why_panel_keeps_each_label_with_its_number(page, blank):
    """On a phone, a long line of the why text is not wrapped between a label and its number: it stays one
    line, scrolled inside its box, and the page itself does not scroll sideways."""
    page.set_viewport_size({"width": 390, "height": 900})
    page.goto(blank.url)
    page.wait_for_selector("#status.ok, #status.error", timeout=60_000)
    line = "  your later rounds +0.00 [+0.00, +0.00]   this round's own points -1.25 [-1.90, -0.60]"
    page.evaluate("(line) => { document.getElementById('why').textContent = line; }", line)
    assert page.evaluate("() => document.getElementById('why').scrollWidth > document.getElementById('why').clientWidth")
    assert page.evaluate("() => document.documentElement.scrollWidth") <= 390
