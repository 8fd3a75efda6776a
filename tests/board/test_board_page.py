"""The board's page in a real browser (pytest-playwright driving the system Chromium): a position set up by
clicking gets analyse's best move, streamed live until separated; a position opened shows the value network's
0-ply table before any rollout, and Stop leaves a stopped headline; an impossible position shows the loader's
sentence; a reviewed game steps with the arrow keys and jumps to the next error; another option is tried and
valued; the page fits 390 px and 1,400 px; a page of another origin can neither read, start, cancel nor
answer anything.  Screenshots go to GNOMING_SCREENSHOTS (docs/img for docs/board.md) or a temporary folder."""
from __future__ import annotations

import json
import tomllib
from pathlib import Path

import pytest

pytest.importorskip("starlette")
pytest.importorskip("playwright")

pytestmark = pytest.mark.slow

ROOT = Path(__file__).resolve().parents[2]
EXAMPLE = ROOT / "examples" / "position.toml"
REVIEW = Path(__file__).parent / "data" / "review.json"   # a review of a random-playing seat (7 marks)
ERRORS = ("inaccuracy", "mistake", "blunder")


@pytest.fixture(scope="module")
def blank(serve):
    from gnoming_sim.cli.board.inputs import Opened

    return serve(Opened())


@pytest.fixture(scope="module")
def reviewed(serve):
    from gnoming_sim.cli.board.inputs import open_input
    from gnoming_sim.game.deck import PUBLISHED
    from gnoming_sim.game.rules import RuleConfig

    return serve(open_input(REVIEW, RuleConfig(), PUBLISHED))


@pytest.fixture(scope="module")
def drilling(serve, tmp_path_factory):
    from gnoming_sim.cli.board.inputs import Opened
    from gnoming_sim.drills import deck as D

    path = tmp_path_factory.mktemp("deck") / "drills.parquet"
    D.add(path, D.cards_from_review(json.loads(REVIEW.read_text(encoding="utf-8")), "review.json"))
    served = serve(Opened(), drill_deck=path)
    served.deck_path = path
    return served


def ready(page, url, width=1400):
    page.set_viewport_size({"width": width, "height": 1000})
    page.goto(url)
    page.wait_for_selector("#status.ok, #status.error", timeout=20_000)


def paint(page, card: str, seat: int, slot: int) -> None:
    page.click(f'#palette button[data-card="{card}"]')
    page.click(f'#layouts button[data-seat="{seat}"][data-slot="{slot}"]')


def status_ok(page) -> str:
    page.wait_for_function("document.getElementById('status').className === 'ok'", timeout=20_000)
    return page.text_content("#status")


def set_up_example(page) -> None:
    """examples/position.toml, set up by clicking on the blank board (2 players, a draw decision)."""
    with EXAMPLE.open("rb") as f:
        want = tomllib.load(f)
    page.select_option("#players", "4")
    page.select_option("#me", "1")
    page.fill("#turn", "13")
    page.press("#turn", "Tab")
    for seat, row in enumerate(want["layouts"]):
        for slot, card in enumerate(row):
            current = page.get_attribute(f'#layouts button[data-seat="{seat}"][data-slot="{slot}"]', "aria-label")
            if not current.endswith(": face down" if card == "?" else f": {card}"):
                paint(page, card, seat, slot)
    for k in (0, 1):   # the blank board's piles hold a card each: off, then the example's on
        while page.locator(f'#piles .pile[data-pile="{k}"] button.card').count():
            page.locator(f'#piles .pile[data-pile="{k}"] button.card').first.click()
        for card in want["piles"][k]:
            page.click(f'#palette button[data-card="{card}"]')
            page.click(f'#piles button.add[data-pile="{k}"]')
    page.select_option("#kind", "place")
    page.click('#palette button[data-card="5"]')
    page.click("#hand")
    page.select_option("#source", "draw")


def test_a_position_set_up_by_clicking_gets_analyses_best_move_live(page, blank, shots):
    from gnoming_sim.game.position import from_toml
    from gnoming_sim.search.estimates import estimate
    from gnoming_sim.game.position_id import encode

    ready(page, blank.url)
    set_up_example(page)
    assert status_ok(page).endswith("— 10 options")
    page.wait_for_function(f"document.getElementById('posid').value === {json.dumps(encode(from_toml(EXAMPLE)))}")
    assert page.locator("#horizon").input_value() == "game"   # the oracle's criterion, as analyse's default
    page.select_option("#horizon", "round")   # the round's margin separates the example's leader within the timeout
    page.click("#analyse")
    page.wait_for_function("document.getElementById('verdict').getAttribute('data-n') !== null", timeout=30_000)
    page.screenshot(path=str(shots / "board-analysing.png"), full_page=True)
    page.wait_for_function("document.getElementById('verdict').getAttribute('data-stopped') === 'separated'",
                           timeout=60_000)
    verdict = page.locator("#verdict")
    assert int(verdict.get_attribute("data-updates")) >= 2
    n, best = int(verdict.get_attribute("data-n")), verdict.get_attribute("data-best")
    want = estimate(from_toml(EXAMPLE), ["net"], seed=0, rollouts=n, horizon="round")
    assert best == want["best"]
    assert page.locator("#table tbody tr.best td").first.text_content() == next(
        o["option"] for o in want["options"] if o["best"])
    page.wait_for_function("document.getElementById('why').textContent.startsWith('why: ')", timeout=60_000)
    page.screenshot(path=str(shots / "board-position.png"), full_page=True)


# what the page shows, in order: a first look's table rendered ("0-ply"), a rollout update ("update")
WATCH = """() => {
  window.seen = [];
  new MutationObserver(() => window.seen.push("0-ply"))
    .observe(document.querySelector("#zero-table tbody"), {childList: true});
  new MutationObserver(() => {
    if (document.getElementById("verdict").getAttribute("data-updates")) window.seen.push("update");
  }).observe(document.getElementById("verdict"), {attributes: true, attributeFilter: ["data-updates"]});
}"""


def test_the_first_look_comes_before_the_rollouts_and_stop_leaves_a_stopped_headline(page, blank):
    from gnoming_sim.game.position import from_toml
    from gnoming_sim.search.evaluator import zero_ply
    from gnoming_sim.game.position_id import encode

    ready(page, blank.url)
    status_ok(page)
    page.evaluate(WATCH)
    page.set_input_files("#import-file", str(EXAMPLE))   # a position opened: its first look, no rollouts asked
    page.wait_for_function(f"document.getElementById('posid').value === {json.dumps(encode(from_toml(EXAMPLE)))}")
    page.wait_for_function("document.querySelectorAll('#zero-table tbody tr').length === 10", timeout=20_000)
    assert page.locator("#first-look").is_visible() and page.locator("#rollouts").is_hidden()
    caption = page.text_content("#zero-caption")
    assert caption.startswith("0-ply (value network, no rollouts; 64 deals): first look")
    want = zero_ply(from_toml(EXAMPLE))
    best = next(o for o in want["options"] if o["best"])
    assert page.locator("#zero-table tbody tr.best").count() == 1
    assert page.get_attribute("#zero-table tbody tr.best", "data-key") == best["key"]
    assert page.locator("#zero-table tbody tr.best td").first.text_content() == best["option"]
    assert page.locator("#zero-table tbody tr:not(.best)").first.locator("td").nth(2).text_content().startswith("+")
    page.fill("#k", "20")
    page.fill("#cap", "20000")   # runs on until stopped
    page.evaluate("window.seen = []")
    page.click("#analyse")
    page.wait_for_function("document.getElementById('verdict').getAttribute('data-updates') !== null",
                           timeout=60_000)
    seen = page.evaluate("window.seen")
    assert seen and seen[0] == "0-ply" and "update" in seen, seen   # the analysis's first look, then its rollouts
    assert page.locator("#first-look").is_hidden() and page.locator("#table tbody tr").count() == 10
    page.click("#stop")
    verdict = page.locator("#verdict")
    assert verdict.get_attribute("data-stopped") == "stopped"
    n = verdict.get_attribute("data-n")
    page.wait_for_timeout(1500)   # a batch under way when Stop was pressed writes nothing after it
    text = verdict.text_content()
    assert "running" not in text and f"stopped after {n} rollouts per option" in text, text
    assert page.locator("#stop").is_disabled()


def test_import_a_rules_file_and_export_the_toml_analyse_reads(page, blank, tmp_path):
    from gnoming_sim.game.position import from_toml
    from gnoming_sim.game.rules import RuleConfig
    from gnoming_sim.game.position_id import encode

    ready(page, blank.url)
    page.set_input_files("#import-file", str(EXAMPLE))
    page.wait_for_function(f"document.getElementById('posid').value === {json.dumps(encode(from_toml(EXAMPLE)))}")
    rules = ROOT / "examples" / "hazard15.toml"
    page.set_input_files("#rules-file", str(rules))
    # the page reads the file and asks the server to check it: wait for its answer (an assert at once raced it
    # on busy cores)
    page.wait_for_function("document.getElementById('rules-name').textContent === 'hazard15.toml'", timeout=20_000)
    want = encode(from_toml(EXAMPLE, RuleConfig.from_toml(rules)))   # the ID holds the rules too
    page.wait_for_function(f"document.getElementById('posid').value === {json.dumps(want)}")
    with page.expect_download() as got:
        page.click("#export-btn")
    saved = tmp_path / "exported.toml"
    got.value.save_as(saved)
    assert from_toml(saved).to_dict() == from_toml(EXAMPLE).to_dict()


def test_an_impossible_position_shows_the_loaders_sentence(page, blank):
    from gnoming_sim.cli.board.inputs import draw_pile_for, position_of
    from gnoming_sim.game.deck import PUBLISHED
    from gnoming_sim.game.errors import GnomingError
    from gnoming_sim.game.rules import RuleConfig

    ready(page, blank.url)
    status_ok(page)
    for slot in (1, 2, 3, 5):
        paint(page, "H", 0, slot)   # four hazards: the deck holds three
    page.wait_for_function("document.getElementById('status').className === 'error'", timeout=20_000)
    data = page.evaluate("S.pos")
    data["draw_pile"] = draw_pile_for(data, PUBLISHED)
    with pytest.raises(GnomingError) as loader:
        position_of(data, RuleConfig(), PUBLISHED)
    assert page.text_content("#status") == str(loader.value)
    assert "is seen 4 times" in str(loader.value)
    assert page.locator("#analyse").is_disabled()


def test_a_reviewed_game_steps_jumps_to_the_next_error_and_values_another_option(page, reviewed, shots):
    marks = [d["mark"] for d in json.loads(REVIEW.read_text(encoding="utf-8"))["decisions"]]
    errors = [i for i, m in enumerate(marks) if m in ERRORS]
    ready(page, reviewed.url)
    summary = json.loads(REVIEW.read_text(encoding="utf-8"))["summary"]
    assert page.text_content("#game-summary").startswith(f"{summary['verdict']}: error rate ")
    info = page.locator("#move-info")
    assert info.get_attribute("data-i") == "0"
    page.keyboard.press("ArrowRight")
    assert info.get_attribute("data-i") == "1"
    page.keyboard.press("n")
    assert info.get_attribute("data-i") == str(errors[0])
    page.keyboard.press("n")
    assert info.get_attribute("data-i") == str(errors[1])
    page.keyboard.press("ArrowLeft")
    assert info.get_attribute("data-i") == str(errors[1] - 1)
    assert page.locator("#graph circle.err").count() == len(errors)
    assert page.locator("#moves li .mark").count() == len(errors)
    page.keyboard.press("n")
    assert info.get_attribute("data-i") == str(errors[1])
    status_ok(page)
    page.fill("#k", "20")
    page.fill("#cap", "300")
    page.click("#analyse")
    page.wait_for_function("document.getElementById('verdict').getAttribute('data-stopped') === 'cap'",
                           timeout=60_000)
    page.locator("#table tbody tr.played").wait_for()
    other = page.locator("#table tbody tr:not(.best)").last
    key = other.get_attribute("data-key")
    other.click()
    assert page.locator(f'#table tbody tr.tried[data-key="{key}"]').count() == 1
    assert ", behind " in page.text_content("#tried")
    page.screenshot(path=str(shots / "board-review.png"), full_page=True)


def test_a_drill_is_answered_scored_and_rescheduled(page, drilling, shots):
    from gnoming_sim.drills import deck as D

    ready(page, drilling.url)
    page.click("#drill-next")
    page.wait_for_selector("#drill-info[data-card]")
    first = page.get_attribute("#drill-info", "data-card")
    card = next(c for c in D.load(drilling.deck_path) if c.id == first)
    assert card.best_label not in page.text_content("#drill-info") and not page.text_content("#drill-verdict")
    status_ok(page)   # the card's position is on the board, checked by the loader
    page.click(f'#drill-options button[data-key="{card.best}"]')
    page.wait_for_selector('#drill-verdict[data-right="true"]')
    assert page.get_attribute("#drill-verdict", "data-box") == "2"
    assert page.text_content("#drill-verdict").startswith(f"right: {card.best_label}")
    page.screenshot(path=str(shots / "board-drill.png"), full_page=True)
    after = next(c for c in D.load(drilling.deck_path) if c.id == first)
    assert (after.box, after.attempts, after.hits) == (2, 1, 1)
    page.click("#drill-next")
    page.wait_for_function(f"document.getElementById('drill-info').getAttribute('data-card') !== {json.dumps(first)}")
    second = page.get_attribute("#drill-info", "data-card")
    played = next(c for c in D.load(drilling.deck_path) if c.id == second).played
    page.click(f'#drill-options button[data-key="{played}"]')   # the move the review marked: never right
    page.wait_for_selector('#drill-verdict[data-right="false"]')
    assert page.get_attribute("#drill-verdict", "data-box") == "1"
    assert next(c for c in D.load(drilling.deck_path) if c.id == second).last_result == "miss"


@pytest.mark.parametrize("width", [390, 1400])
def test_the_page_fits_the_width_without_sideways_scrolling(page, blank, reviewed, drilling, shots, width):
    for served, name in ((blank, "position"), (reviewed, "review"), (drilling, "drill")):
        ready(page, served.url, width)
        page.wait_for_timeout(300)
        wide = page.evaluate("Math.max(document.documentElement.scrollWidth, document.body.scrollWidth)")
        assert wide <= width, f"{name} page at {width} px is {wide} px wide"
        # nothing drawn past the right edge either (overflow hidden would hide it, not fit it)
        out = page.evaluate("""(w) => [...document.querySelectorAll('body *')].filter((e) => {
            const r = e.getBoundingClientRect(); return r.width > 0 && r.right > w + 1; })
            .map((e) => e.tagName + '#' + e.id + '.' + e.className)""", width)
        assert not out, f"{name} page at {width} px: {out[:5]} reach past the right edge"
        if width == 390 and name == "review":
            page.screenshot(path=str(shots / "board-phone.png"), full_page=True)


def test_the_page_opened_without_its_token_says_how_to_open_it(page, blank):
    ready(page, f"{blank.origin}/")
    assert page.get_attribute("#status", "class") == "error"
    assert page.text_content("#status").startswith("the board answers only the page it opened")
    ready(page, f"{blank.origin}/?token=wrong")
    assert page.get_attribute("#status", "class") == "error"


# what a page of another origin tries against the board, told the worst: the launch's token and a live job's id
ATTACK = """async ({board, token, job}) => {
  const out = {};
  const q = `token=${token}`;
  async function attempt(name, url, init) {
    try { const r = await fetch(url, init); out[name] = r.type === "opaque" ? "opaque" : "read: " + await r.text(); }
    catch (e) { out[name] = "blocked"; }
  }
  const json = {"Content-Type": "application/json", "X-Board-Token": token};
  await attempt("read the start", `${board}/api/start?${q}`);
  await attempt("read the page", `${board}/`);
  await attempt("no-cors start", `${board}/api/start?${q}`, {mode: "no-cors"});
  await attempt("start an analysis", `${board}/api/analysis?${q}`, {method: "POST", headers: json,
                body: JSON.stringify({position: null})});
  await attempt("start an analysis as a form would", `${board}/api/analysis?${q}`,
                {method: "POST", mode: "no-cors", headers: {"Content-Type": "text/plain"}, body: "{}"});
  await attempt("cancel", `${board}/api/analysis/${job}?${q}`, {method: "DELETE", headers: {"X-Board-Token": token}});
  await attempt("answer a drill", `${board}/api/drill/answer?${q}`, {method: "POST", headers: json,
                body: JSON.stringify({id: "x", key: null})});
  await attempt("answer a drill as a form would", `${board}/api/drill/answer?${q}`,
                {method: "POST", mode: "no-cors", headers: {"Content-Type": "text/plain"},
                 body: JSON.stringify({id: "x", key: null})});
  out["event stream"] = await new Promise((resolve) => {
    const src = new EventSource(`${board}/api/analysis/${job}/events?${q}`);
    src.addEventListener("update", () => { src.close(); resolve("read"); });
    src.onerror = () => { src.close(); resolve("blocked"); };
    setTimeout(() => { src.close(); resolve("nothing"); }, 10000);
  });
  out["img"] = await new Promise((resolve) => {
    const img = new Image();
    img.onload = () => resolve("loaded"); img.onerror = () => resolve("blocked");
    img.src = `${board}/api/analysis/${job}/events?${q}`;
  });
  return out;
}"""


def test_a_page_of_another_origin_can_neither_read_start_cancel_nor_answer(page, drilling):
    """A page on 127.0.0.2 (another site) and one on the board's own address at another port (the same site,
    another origin) try fetch, a no-cors POST, EventSource and an <img> against the board, told its token and a
    live job's id: the board refuses every request (403), and nothing is started, cancelled, streamed or
    written."""
    import http.server
    import threading

    import httpx2 as httpx

    board = drilling.board
    job = httpx.post(f"{drilling.origin}/api/analysis", headers={"X-Board-Token": board.token},
                     json={"position": _blank(drilling), "cap": 200, "why": False}).json()["job"]
    live, jobs, deck = board.jobs[job], set(board.jobs), drilling.deck_path.read_bytes()

    class Page(http.server.BaseHTTPRequestHandler):
        def do_GET(self):
            self.send_response(200)
            self.send_header("Content-Type", "text/html")
            self.end_headers()
            self.wfile.write(b"<!doctype html><title>another site</title>")

        def log_message(self, *args):
            pass

    answered = []
    page.on("response", lambda r: answered.append((r.request.method, r.url, r.status))
            if r.url.startswith(drilling.origin) else None)
    try:
        for host in ("127.0.0.2", "127.0.0.1"):
            other = http.server.ThreadingHTTPServer((host, 0), Page)
            threading.Thread(target=other.serve_forever, daemon=True).start()
            try:
                page.goto(f"http://{host}:{other.server_address[1]}/")
                got = page.evaluate(ATTACK, {"board": drilling.origin, "token": board.token, "job": job})
            finally:
                other.shutdown()
                other.server_close()
            assert not [name for name, what in got.items() if what.startswith("read")], (host, got)
            assert got["event stream"] == got["img"] == "blocked", (host, got)
        assert not live.cancelled   # nothing cancelled
    finally:
        live.cancel()
    assert answered and all(status == 403 for _, _, status in answered), answered
    assert set(board.jobs) == jobs and board.current == job   # nothing started
    assert live.batches == 0 and not getattr(live, "streaming", False)   # nothing streamed
    assert drilling.deck_path.read_bytes() == deck   # no drill answered


def _blank(served) -> dict:
    import httpx2 as httpx

    return httpx.get(f"{served.origin}/api/start", headers={"X-Board-Token": served.board.token}).json()["position"]
