"""The board answers only the page it opened, and no input gives a traceback: every API route asks for the
launch's token, every route refuses another origin, job ids cannot be guessed, a body over the limit is 413,
what the loaders cannot take (deep nesting, NaN and Infinity, lone surrogates) is a 400 sentence, anything
unforeseen a 500 line; fuzzed bodies never get a 500; a review.json's fields are checked at start-up (one
line, exit 2) and what passes opens."""
from __future__ import annotations

import json
import logging
import re
import tomllib
from pathlib import Path
from unittest import mock

import pytest

pytest.importorskip("starlette")

from hypothesis import HealthCheck, event, given, settings  # noqa: E402
from hypothesis import strategies as st  # noqa: E402
from starlette.testclient import TestClient  # noqa: E402
from _examples import examples  # noqa: E402

from gnoming_sim.cli.board import inputs as I  # noqa: E402
from gnoming_sim.cli.board.guard import MAX_BODY  # noqa: E402
from gnoming_sim.cli.board.server import Board, make_app  # noqa: E402
from gnoming_sim.game.deck import PUBLISHED  # noqa: E402
from gnoming_sim.game.errors import GnomingError  # noqa: E402
from gnoming_sim.game.rules import RuleConfig  # noqa: E402

ROOT = Path(__file__).resolve().parents[2]
EXAMPLE = ROOT / "examples" / "position.toml"
REVIEW = Path(__file__).parent / "data" / "review.json"
BASE = "http://127.0.0.1"

# every API route of the app, as (method, path) (a test checks the app's own list); the job routes name a job
# that is not there
API = [("GET", "/api/start"), ("POST", "/api/validate"), ("POST", "/api/export"), ("POST", "/api/import"),
       ("POST", "/api/position-id"), ("POST", "/api/zero-ply"), ("POST", "/api/analysis"),
       ("POST", "/api/drill/next"), ("POST", "/api/drill/answer"), ("GET", "/api/analysis/x/events"),
       ("DELETE", "/api/analysis/x"),
       *[("POST", f"/api/play/{name}") for name in ("new", "act", "others", "next-round", "hint", "save", "resume",
                                                     "review")]]
PAGE = [("GET", "/"), ("GET", "/static/board.js"), ("GET", "/favicon.ico")]
POSTS = [path for method, path in API if method == "POST"]


def example() -> dict:
    with EXAMPLE.open("rb") as f:
        return tomllib.load(f)


def board(**kw) -> Board:
    return Board(I.Opened(), RuleConfig(), PUBLISHED, **kw)


def connect(b: Board, **headers) -> TestClient:
    """A test client that sends the launch's token, as the page does (``headers`` added or overriding)."""
    return TestClient(make_app(b), base_url=BASE, raise_server_exceptions=False,
                      headers={"X-Board-Token": b.token, **headers})


def ask(c: TestClient, method: str, path: str, **kw):
    if method == "POST" and "content" not in kw and "json" not in kw:
        kw["json"] = {}
    return c.request(method, path, **kw)


def refused(r, status: int) -> str:
    """The refusal's sentence, after checking it is ``status`` and one JSON line of ``ok: false``."""
    assert r.status_code == status, (r.status_code, r.text)
    assert r.headers["content-type"] == "application/json" and "\n" not in r.text
    body = r.json()
    assert body["ok"] is False and isinstance(body["error"], str) and body["error"]
    return body["error"]


@pytest.fixture(scope="module")
def shared():
    b = board(threads=1)
    yield b
    for live in b.jobs.values():
        live.cancel()
    b.worker.shutdown(wait=False)


# ------------------------------------------------------------------ the token
@pytest.mark.parametrize("method,path", API)
@pytest.mark.parametrize("token", [None, "", "wrong", "%"])
def test_every_api_route_refuses_a_request_without_the_launchs_token(shared, method, path, token):
    c = TestClient(make_app(shared), base_url=BASE, raise_server_exceptions=False)
    headers = {} if token is None else {"X-Board-Token": token}
    assert "the page it opened" in refused(ask(c, method, path, headers=headers), 403)
    assert "the page it opened" in refused(ask(c, method, path, params={"token": token or ""}), 403)


def test_the_routes_tested_are_every_route_of_the_app(shared):
    """A route added to the app and not to API would go untested: the app's own list decides."""
    from starlette.routing import Route

    served = set()
    for route in make_app(shared).routes:
        if isinstance(route, Route) and route.path.startswith("/api/"):
            path = route.path.replace("{job}", "x")
            served |= {(method, path) for method in route.methods - {"HEAD"}}
    assert served == set(API)


@pytest.mark.parametrize("method,path", API)
def test_every_api_route_takes_the_token_in_the_header_or_the_query(shared, method, path):
    in_header = ask(connect(shared), method, path)
    in_query = ask(TestClient(make_app(shared), base_url=BASE, raise_server_exceptions=False), method, path,
                   params={"token": shared.token})
    assert in_header.status_code not in (403, 500) and in_query.status_code == in_header.status_code


def test_the_page_and_its_files_need_no_token_and_hold_none(shared):
    c = TestClient(make_app(shared), base_url=BASE)
    for _, path in PAGE:
        r = c.get(path)
        assert r.status_code in (200, 204) and shared.token not in r.text
    assert "X-Board-Token" in c.get("/static/board.js").text   # the page sends it


def test_each_launch_has_its_own_token():
    tokens = {board().token for _ in range(20)}
    assert len(tokens) == 20 and all(len(t) >= 40 and re.fullmatch(r"[A-Za-z0-9_-]+", t) for t in tokens)


# ------------------------------------------------------------------ the origin
@pytest.mark.parametrize("method,path", API + PAGE)
@pytest.mark.parametrize("origin", ["http://127.0.0.2", "http://127.0.0.1:8000", "http://localhost",
                                    "https://127.0.0.1", "http://attacker.example", "null"])
def test_every_route_refuses_another_origin_even_with_the_token(shared, method, path, origin):
    assert "another origin" in refused(ask(connect(shared, Origin=origin), method, path), 403)


@pytest.mark.parametrize("method,path", API + PAGE)
def test_every_route_answers_its_own_origin(shared, method, path):
    r = ask(connect(shared, Origin=BASE), method, path)
    assert r.status_code not in (403, 500), r.text
    localhost = TestClient(make_app(shared), base_url="http://localhost:8123", raise_server_exceptions=False,
                           headers={"X-Board-Token": shared.token, "Origin": "http://localhost:8123"})
    assert ask(localhost, method, path).status_code == r.status_code


@pytest.mark.parametrize("site", ["cross-site", "same-site"])
@pytest.mark.parametrize("method,path", API)
def test_an_api_request_a_browser_says_comes_from_another_page_is_refused(shared, method, path, site):
    """An <img> or a no-cors GET carries no Origin, but Chromium still says where it comes from."""
    assert "another origin" in refused(ask(connect(shared, **{"Sec-Fetch-Site": site}), method, path), 403)
    assert ask(connect(shared, **{"Sec-Fetch-Site": "same-origin"}), method, path).status_code != 403


def test_the_host_check_stays():
    assert connect(board()).get("/api/start", headers={"host": "attacker.example"}).status_code == 400


# ------------------------------------------------------------------ jobs
def test_job_ids_cannot_be_guessed_and_a_guess_reaches_nothing():
    from gnoming_sim.cli.board.live import WARM_POSITION

    b = board(threads=1)
    c = connect(b)
    small = {**WARM_POSITION, "draw_pile": I.draw_pile_for(WARM_POSITION, PUBLISHED)}
    jobs = [c.post("/api/analysis", json={"position": small, "cap": 200, "why": False}).json()["job"]
            for _ in range(3)]
    assert len(set(jobs)) == 3
    assert all(len(j) >= 20 and re.fullmatch(r"[A-Za-z0-9_-]+", j) for j in jobs)
    for guess in ("0", "1", "2", "3", jobs[-1][:-1], jobs[-1].upper()):
        if guess == jobs[-1]:
            continue
        assert c.delete(f"/api/analysis/{guess}").json() == {"ok": False}
        assert c.get(f"/api/analysis/{guess}/events").status_code == 204
    assert not b.jobs[jobs[-1]].cancelled
    assert c.delete(f"/api/analysis/{jobs[-1]}").json() == {"ok": True} and b.jobs[jobs[-1]].cancelled
    b.worker.shutdown(wait=True)


# ------------------------------------------------------------------ the size limit
@pytest.mark.parametrize("path", POSTS)
def test_a_body_over_the_limit_is_413(shared, path):
    big = json.dumps({"text": "x" * MAX_BODY}).encode()
    assert "larger than 2 MiB" in refused(connect(shared).post(path, content=big,
                                                               headers={"content-type": "application/json"}), 413)

    def chunks():   # no Content-Length: the limit holds while the body is read
        yield b'{"text": "'
        for _ in range(MAX_BODY // 65536 + 1):
            yield b"x" * 65536
        yield b'"}'

    r = connect(shared).post(path, content=chunks(), headers={"content-type": "application/json"})
    assert "larger than 2 MiB" in refused(r, 413)


def test_a_body_under_the_limit_is_read(shared):
    text = "# " + "x" * (I.MAX_TEXT - 100) + "\n"
    r = connect(shared).post("/api/import", json={"text": text, "name": "big.toml"})
    assert r.status_code == 200 and not r.json()["ok"]   # read, then refused by the loader, in its words
    assert "bad Content-Length" not in r.text


def test_a_content_length_that_is_not_a_number_is_400(shared):
    for length, status in (("x", 400), ("-1", 400), ("²", 400), ("9" * 40, 413)):
        r = connect(shared).post("/api/validate", content=b"{}", headers={
            "content-type": "application/json", "content-length": length.encode("latin-1")})
        refused(r, status)


# ------------------------------------------------------------------ what the loaders cannot take
def _infinite_draw_pile() -> bytes:
    body = json.dumps({"position": {**example(), "removed_hazards": 123456789}, "fill_draw_pile": True})
    return body.replace("123456789", "Infinity").encode()


CANNOT_TAKE = {
    "deeply nested JSON": ("/api/validate", b"[" * 10_000, "nested too deeply"),
    "JSON nested 500 deep": ("/api/validate", b"[" * 500 + b"]" * 500, "nested too deeply"),
    "Infinity in a position counted on request": ("/api/validate", _infinite_draw_pile(), "Infinity"),
    "NaN as k": ("/api/analysis", json.dumps({"position": example(), "k": 1.5}).replace("1.5", "NaN").encode(),
                 "NaN"),
    "-Infinity as a seed": ("/api/analysis", b'{"seed": -Infinity}', "-Infinity"),
    "1e999, a float too large": ("/api/export", b'{"position": {"players": 1e999}}', "1e999"),
    "a lone surrogate in an imported text": ("/api/import", b'{"text": "\\ud800", "name": "x.toml"}',
                                             "lone surrogate"),
    "a lone surrogate in a key": ("/api/validate", b'{"position": {"\\udfff": 1}}', "lone surrogate"),
    "a lone surrogate in a rules text": ("/api/validate", b'{"rules": {"name": "r", "text": "a = \\"\\udc80\\""}}',
                                         "lone surrogate"),
    "bytes that are not UTF-8": ("/api/validate", b'{"position": "\xff\xfe"}', "not JSON"),
    "not JSON": ("/api/validate", b"{position", "not JSON"),
    "a JSON list": ("/api/validate", b"[1, 2]", "not a JSON object"),
}


@pytest.mark.parametrize("case", list(CANNOT_TAKE))
def test_what_the_loaders_cannot_take_is_a_400_sentence_and_no_traceback(shared, case, caplog):
    path, body, said = CANNOT_TAKE[case]
    with caplog.at_level(logging.DEBUG):
        r = connect(shared).post(path, content=body, headers={"content-type": "application/json"})
    assert said in refused(r, 400)
    assert not [rec for rec in caplog.records if rec.levelno >= logging.WARNING or rec.exc_info]


def test_an_imported_text_with_a_lone_surrogate_is_the_loaders_sentence():
    with pytest.raises(GnomingError, match=r"^mine\.toml: character 3 is a lone surrogate, not text$"):
        I.import_text("a =\ud800", "mine.toml", RuleConfig(), PUBLISHED)


def test_an_unforeseen_exception_is_a_500_line_logged_as_one_line(shared, caplog):
    def broken(*args, **kw):
        raise ZeroDivisionError("a bug\nover two lines \ud800")

    with mock.patch.object(I, "position_of", broken), caplog.at_level(logging.DEBUG):
        r = connect(shared).post("/api/validate", json={"position": example()})
    assert refused(r, 500) == "the board failed on this request: ZeroDivisionError"
    [record] = [rec for rec in caplog.records if rec.levelno >= logging.WARNING]
    line = record.getMessage()
    assert record.exc_info is None and "\n" not in line and "Traceback" not in line
    assert line == "POST /api/validate: ZeroDivisionError: a bug over two lines \\ud800"


def test_a_stream_that_fails_midway_ends_with_one_logged_line(caplog):
    from gnoming_sim.cli.board.live import WARM_POSITION

    b = board(threads=1)
    c = connect(b)
    small = {**WARM_POSITION, "draw_pile": I.draw_pile_for(WARM_POSITION, PUBLISHED)}
    job = c.post("/api/analysis", json={"position": small, "cap": 200, "why": False}).json()["job"]
    b.jobs[job].step = lambda: {"n": float("nan")}   # an update JSON cannot carry
    with caplog.at_level(logging.DEBUG):
        r = c.get(f"/api/analysis/{job}/events")
    assert r.status_code == 200 and r.text == ""
    [record] = [rec for rec in caplog.records if rec.levelno >= logging.WARNING]
    assert record.exc_info is None and record.getMessage().startswith(f"GET /api/analysis/{job}/events: ValueError")
    b.worker.shutdown(wait=True)


def test_a_request_cancelled_midway_ends_its_response_without_a_log_line(caplog):
    """The server stopping cancels what still runs: the stream is ended, not logged as an exception."""
    import asyncio

    from gnoming_sim.cli.board.guard import Quiet

    async def streaming(scope, receive, send):
        await send({"type": "http.response.start", "status": 200, "headers": []})
        await send({"type": "http.response.body", "body": b"event: update", "more_body": True})
        raise asyncio.CancelledError

    sent = []

    async def send(message):
        sent.append(message)

    with caplog.at_level(logging.DEBUG):
        asyncio.run(Quiet(streaming)({"type": "http", "method": "GET", "path": "/api/analysis/x/events"}, None,
                                     send))
    assert sent[-1] == {"type": "http.response.body", "body": b"", "more_body": False}
    assert not [rec for rec in caplog.records if rec.levelno >= logging.WARNING]


# ------------------------------------------------------------------ fuzz
TEXT = st.text(max_size=20) | st.text(st.characters(categories=["Cs"]), min_size=1, max_size=2)   # lone surrogates
JSON = st.recursive(
    st.none() | st.booleans() | st.integers(-2**70, 2**70) | st.floats() | TEXT,
    lambda inner: st.lists(inner, max_size=4) | st.dictionaries(st.text(max_size=8), inner, max_size=4),
    max_leaves=12)
KEYS = ["position", "rules", "fill_draw_pile", "text", "name", "id", "horizon", "k", "cap", "seed", "why",
        "skip", "retry", "include_inaccuracies", "key"]
POSITION_KEYS = list(example()) + ["finisher", "decision", "bogus"]


def _edited_position(data, edits: list) -> dict:
    pos = example()
    for key, value in edits:
        pos[key] = value
    return {"position": pos, **data}


BODIES = st.one_of(
    JSON,
    st.dictionaries(st.sampled_from(KEYS), JSON, max_size=5),
    st.builds(_edited_position, st.dictionaries(st.sampled_from(KEYS[1:]), JSON, max_size=3),
              st.lists(st.tuples(st.sampled_from(POSITION_KEYS), JSON), min_size=1, max_size=3)),
)


@pytest.fixture(scope="module")
def fuzzed(tmp_path_factory):
    """A board with a drill deck (a copy of the review's marked decisions), so the drill routes answer too."""
    from gnoming_sim.drills import deck as D

    path = tmp_path_factory.mktemp("deck") / "drills.parquet"
    D.add(path, D.cards_from_review(json.loads(REVIEW.read_text(encoding="utf-8")), "review.json"))
    b = board(threads=1, drill_deck=path)
    yield b
    for live in b.jobs.values():
        live.cancel()
    b.worker.shutdown(wait=False)


@settings(max_examples=examples(200), deadline=None, suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large])
@given(path=st.sampled_from(POSTS), body=BODIES)
def test_fuzzed_json_bodies_never_get_a_500(fuzzed, path, body):
    text = json.dumps(body)   # NaN and Infinity written as Python writes them: refused as 400
    r = connect(fuzzed).post(path, content=text.encode("utf-8", "surrogatepass"),
                             headers={"content-type": "application/json"})
    assert r.status_code in (200, 400), (r.status_code, r.text[:300])
    answer = r.json()
    event(f"{r.status_code} {'ok' if answer['ok'] else 'refused'}")
    assert answer["ok"] or ("\n" not in answer["error"] and answer["error"])
    if path == "/api/analysis" and answer["ok"]:
        fuzzed.jobs[answer["job"]].cancel()


# ------------------------------------------------------------------ review.json at the door
def _review() -> dict:
    return json.loads(REVIEW.read_text(encoding="utf-8"))


def _set(data: dict, where: tuple, value) -> dict:
    node = data
    for step in where[:-1]:
        node = node[step]
    node[where[-1]] = value
    return data


BAD_REVIEWS = {
    "decisions a number": (("decisions",), 5, "no 'decisions' list"),
    "game a string": (("game",), "seed 1", "'game' must be a table, not a string"),
    "game.rules a string": (("game", "rules"), "hazard15.toml", "'rules' must be the table of the review's rules"),
    "game.rules a list": (("game", "rules"), [1], "'rules' must be the table of the review's rules"),
    "game.rules a bogus option": (("game", "rules", "bogus"), 1, "unknown rules option 'bogus'"),
    "game.seat a string": (("game", "seat"), "0", "'seat' must be an integer in 0..6, not a string"),
    "a decision a string": (("decisions", 0), "pile0", "'decisions' 0 must be a table, not a string"),
    "played a number": (("decisions", 0, "played"), 5, "decision 0: 'played' must be a string"),
    "where a list": (("decisions", 0, "where"), ["a"], "decision 0: 'where' must be a string, not a list"),
    "forced a string": (("decisions", 0, "forced"), "yes", "'forced' must be true or false"),
    "options a number": (("decisions", 0, "options"), 3, "'options' must be a list, not the number 3"),
    "an option a string": (("decisions", 0, "options", 0), "x", "'options' 0 must be a table"),
    "p_win a string": (("decisions", 0, "options", 0, "p_win_adj"), "0.3", "'p_win_adj' must be a number"),
    "p_win NaN": (("decisions", 0, "options", 0, "p_win_adj"), float("nan"), "NaN is not a JSON number"),
    "loss Infinity": (("decisions", 0, "loss_win", "est"), float("inf"), "Infinity is not a JSON number"),
    "loss a list": (("decisions", 0, "loss_win"), [1], "'loss_win' must be a table, not a list"),
    "loss out of range": (("decisions", 0, "loss_win", "est"), 10**400, "'est' must be a number in -1..1"),
    "summary a string": (("summary",), "good", "'summary' must be a table, not a string"),
    "summary NaN": (("summary", "error_rate_pp"), float("nan"), "NaN is not a JSON number"),
    "summary -Infinity": (("summary", "error_rate_pp"), float("-inf"), "-Infinity is not a JSON number"),
    "summary marks a list": (("summary", "marks"), [], "'marks' must be a table, not a list"),
    "summary mark count a string": (("summary", "marks", "ok"), "32", "'ok' must be an integer"),
    "position a string": (("decisions", 0, "position"), "g1:x", "decision 0: a position is a table"),
    "a lone surrogate in a label": (("decisions", 0, "played_label"), "pile \udc80", "character 5 is a lone surrogate"),
    "a lone surrogate in the verdict": (("summary", "verdict"), "\ud800", "character 0 is a lone surrogate"),
}


def _board_command(path) -> tuple[int, str, list]:
    """``gnoming-sim board --no-browser PATH`` in-process up to where it would serve: (exit code, output, the
    input it opened, or nothing)."""
    from click.testing import CliRunner

    from gnoming_sim.cli.app import cli

    served = []

    def serve(sock, base, opened, *args, **kw):
        sock.close()
        served.append(opened)

    with mock.patch("gnoming_sim.cli.board.command.serve", serve):
        r = CliRunner().invoke(cli, ["board", "--no-browser", str(path)])
    return r.exit_code, r.output, served


@pytest.mark.parametrize("case", list(BAD_REVIEWS))
def test_a_review_json_with_a_field_of_the_wrong_type_is_one_line_and_exit_2(tmp_path, case):
    where, value, said = BAD_REVIEWS[case]
    path = tmp_path / "review.json"
    path.write_text(json.dumps(_set(_review(), where, value)), encoding="utf-8")
    code, output, served = _board_command(path)
    assert code == 2 and output.count("\n") == 1 and not served, output
    assert output.startswith(f"gnoming-sim: error: review file {path}") and said in output, output


@pytest.mark.parametrize("depth", [100, 10_000])
def test_a_deeply_nested_review_json_is_one_line_and_exit_2(tmp_path, depth):
    path = tmp_path / "review.json"
    text = json.dumps(_review())
    path.write_text(text[:-1] + ', "summary": ' + "[" * depth + "]" * depth + "}", encoding="utf-8")
    code, output, _ = _board_command(path)
    assert code == 2 and output.count("\n") == 1, output


def test_the_page_is_sent_only_the_summary_it_shows(tmp_path):
    data = _review()
    data["summary"]["extra"] = [[[[{"deep": 1}]]]]
    path = tmp_path / "review.json"
    path.write_text(json.dumps(data), encoding="utf-8")
    code, _, [opened] = _board_command(path)
    want = data["summary"]
    assert code == 0 and opened.summary == {"verdict": want["verdict"], "error_rate_pp": want["error_rate_pp"],
                                            "graded": want["graded"], "marks": want["marks"]}


def _paths(data, prefix=()):
    """Every field's path in ``data`` (a review.json), the first two decisions and options only."""
    out = []
    items = data.items() if isinstance(data, dict) else list(enumerate(data))[:2] if isinstance(data, list) else []
    for key, value in items:
        if prefix[:1] == ("decisions",) and key == "position" and len(prefix) == 2:
            out.append(prefix + (key,))   # a position is the loader's, fuzzed by its own tests
            continue
        out.append(prefix + (key,))
        out += _paths(value, prefix + (key,))
    return out


REVIEW_PATHS = _paths(_review())


@settings(max_examples=examples(200), deadline=None, suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large])
@given(edits=st.lists(st.tuples(st.sampled_from(REVIEW_PATHS), JSON), min_size=1, max_size=3))
def test_a_fuzzed_review_json_is_refused_in_one_line_or_opens_and_starts_the_page(tmp_path_factory, edits):
    data = _review()
    for where, value in edits:
        try:
            _set(data, where, value)
        except (KeyError, IndexError, TypeError):   # an earlier edit replaced the table above it
            pass
    path = tmp_path_factory.mktemp("review") / "review.json"
    path.write_text(json.dumps(data), encoding="utf-8")
    code, output, served = _board_command(path)
    event("refused" if code == 2 else "opened")
    if code == 2:
        assert output.count("\n") == 1 and output.startswith("gnoming-sim: error: "), output
        return
    assert code == 0, output
    b = Board(served[0], RuleConfig(), PUBLISHED)
    try:
        r = connect(b).get("/api/start")
        assert r.status_code == 200 and r.json()["opened"]["kind"] == "review"
    finally:
        b.worker.shutdown(wait=False)
