"""The board's web server: the page (``static/``) and its API, a Starlette app (the ``[board]`` extra).

Routes (JSON in and out; every POST must be ``application/json``, which a form on another site cannot
send without the browser asking first):

``GET  /``                         the page
``GET  /static/...``               its script and style, from the package folder alone
``GET  /api/start``                what was opened on the command line, the editor's facts, the defaults
``POST /api/validate``             a position (TOML-shaped dict) checked by the loader: its description,
                                   options and position ID, or the loader's sentence
``POST /api/export``               the position as the TOML file ``analyse --position`` reads
``POST /api/import``               a position file's text read as ``analyse --position`` reads the file
``POST /api/position-id``          a position ID (:mod:`gnoming_sim.game.position_id`) read back, checked
``POST /api/zero-ply``             the 0-ply table (:func:`gnoming_sim.search.evaluator.zero_ply`): the value
                                   network's first look at every option, in milliseconds, with the printed
                                   card's answer beside it (``card``); a bad position is 400
``POST /api/analysis``             start a live analysis (the one before it is cancelled): its id
``GET  /api/analysis/{id}/events`` its updates as server-sent events (``update`` per batch, ``why``, ``done``,
                                   ``error``); closing the stream cancels the rollouts
``DELETE /api/analysis/{id}``      stop it
``POST /api/drill/next``           the next drill card due, without its answer (:mod:`.drills`)
``POST /api/drill/answer``         an answer (or a skip) graded, the card rescheduled and the deck saved
``POST /api/play/...``             a game played by clicking (:mod:`.play_api`): new, act, others, next-round,
                                   hint, save, resume, review

No route takes a path: the page sends texts, and the only files read are those named on the command line.
The board answers only the page it opened (:mod:`.guard`): the Host header must name the loopback address
(a page on another site cannot reach the board through a DNS name of its own), a request a browser sends
from another origin (its Origin header) is refused, every ``/api/`` route needs the launch's secret token
(``X-Board-Token``, or ``?token=`` where a header cannot be set: the event stream), job ids are secret too,
and a body is at most 2 MiB.  No input gives a traceback: a bad request is its status and one JSON line,
anything unforeseen a 500 line, logged as one line; when the server stops, open streams end at once.
"""
from __future__ import annotations

import asyncio
import json
import secrets
import threading
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass, field
from pathlib import Path

from starlette.applications import Starlette
from starlette.middleware import Middleware
from starlette.middleware.trustedhost import TrustedHostMiddleware
from starlette.requests import Request
from starlette.responses import FileResponse, JSONResponse, Response, StreamingResponse
from starlette.routing import Mount, Route
from starlette.staticfiles import StaticFiles

from gnoming_sim.cli.board import inputs as I
from gnoming_sim.cli.board import play_api
from gnoming_sim.cli.board.guard import Guard, Quiet, Status, read_json
from gnoming_sim.cli.board.live import DEFAULT_CAP, DEFAULT_K, WARM_POSITION, Live
from gnoming_sim.game.deck import Deck
from gnoming_sim.game.errors import GnomingError, one_line
from gnoming_sim.game.position import from_mapping
from gnoming_sim.game.rules import RuleConfig
from gnoming_sim.search import evaluator

STATIC = Path(__file__).parent / "static"
HOSTS = ["127.0.0.1", "localhost"]
MAX_CAP = 400_000        # analyse's --max-rollouts cap
HORIZONS = ("round", "game")


@dataclass
class Board:
    """The server's state: the opened input, the rules and deck of the command line, the live analyses.

    One worker thread runs every batch of rollouts (numba's kernels take every core already, and one
    analysis at a time is what the page shows)."""

    opened: I.Opened
    rules: RuleConfig
    deck: Deck
    policies: list = field(default_factory=lambda: [evaluator.BASE])
    seed: int = 0
    threads: int | None = None
    drill_deck: Path | None = None   # the drill deck the command line names (or the user's data folder's)
    jobs: dict = field(default_factory=dict)
    asked: threading.Event = field(default_factory=threading.Event)   # a user's analysis was asked for
    current: str | None = None
    worker: ThreadPoolExecutor = field(default_factory=lambda: ThreadPoolExecutor(1, "board-rollouts"))
    # the launch's secret: in the address the command prints and opens, asked of every API request
    token: str = field(default_factory=lambda: secrets.token_urlsafe(32))
    closing: threading.Event = field(default_factory=threading.Event)   # the server stops: streams end
    plays: dict = field(default_factory=dict)   # the games played on the page (:mod:`.play_api`), by secret id

    def rules_for(self, body: dict) -> RuleConfig:
        r = body.get("rules")
        if not r:
            return self.rules
        if not isinstance(r, dict):
            raise GnomingError("rules: send {name, text}, the rules file's text")
        return I.rules_of(r.get("text"), _name(r.get("name"), "rules file"), self.rules)

    def position(self, body: dict):
        data = body.get("position")
        rules = self.rules_for(body)
        if body.get("fill_draw_pile") and isinstance(data, dict):
            n = I.draw_pile_for(data, self.deck)
            if n is not None:
                data = {**data, "draw_pile": n}
        return I.position_of(data, rules, self.deck)

    def cancel_current(self) -> None:
        if self.current in self.jobs:
            self.jobs[self.current].cancel()

    def close(self) -> None:
        """The server stops: every analysis cancelled and every open stream ended (within a tenth of a second)."""
        self.closing.set()
        for live in list(self.jobs.values()):
            live.cancel()


def _name(value, default: str) -> str:
    return value if isinstance(value, str) and 0 < len(value) <= 200 else default


def _json_route(handler, refused: int = 200):
    """A POST handler of a JSON body: bad requests as their status, a GnomingError as the loader's sentence
    (with status ``refused``: the page's editor reads its sentences from answers of 200)."""
    async def route(request: Request):
        try:
            return await handler(request.app.state.board, await read_json(request))
        except Status as exc:
            return JSONResponse({"ok": False, "error": str(exc)}, status_code=exc.code)
        except GnomingError as exc:
            return JSONResponse({"ok": False, "error": one_line(str(exc))}, status_code=refused)
    return route


# ------------------------------------------------------------------ the routes
async def index(request: Request):
    return FileResponse(STATIC / "index.html", media_type="text/html")


async def start(request: Request):
    b: Board = request.app.state.board
    opened = b.opened.to_dict()
    opened["name"] = I.shown_name(opened["name"])
    # the page's start when nothing was opened: the loader's dict (not its options: with an empty numba
    # cache they would wait for the warm-up's compile, and the page asks for them itself)
    blank = from_mapping({**WARM_POSITION, "draw_pile": I.draw_pile_for(WARM_POSITION, b.deck)}, b.rules,
                         b.deck).to_dict()
    return JSONResponse({"opened": opened, "position": blank, "facts": I.facts(b.deck, b.rules),
                         "drill": b.drill_deck is not None,
                         # the oracle's criterion (the chance of winning the game), as analyse's and a review's
                         # marks: every table the page shows ranks its options the same way
                         "defaults": {"seed": b.seed, "k": DEFAULT_K, "cap": DEFAULT_CAP,
                                      "horizon": evaluator.HORIZON,
                                      "policies": b.policies}})


async def validate(b: Board, body: dict):
    from gnoming_sim.search.options import legal_options

    pos = b.position(body)
    return JSONResponse({"ok": True, "position": pos.to_dict(), "describe": pos.describe(),
                         "id": I.position_id(pos),
                         "options": [{"key": o.key, "label": o.label} for o in legal_options(pos)]})


async def position_id(b: Board, body: dict):
    pos, rules = I.from_position_id(body.get("id"), b.rules, b.deck)
    return JSONResponse({"ok": True, "position": pos.to_dict(), "rules": rules, "describe": pos.describe()})


async def export(b: Board, body: dict):
    pos = b.position(body)
    return JSONResponse({"ok": True, "toml": I.to_toml(pos), "filename": "position.toml"})


async def import_(b: Board, body: dict):
    pos = I.import_text(body.get("text"), _name(body.get("name"), "position file"), b.rules_for(body), b.deck)
    return JSONResponse({"ok": True, "position": pos.to_dict(), "describe": pos.describe()})


async def zero_ply(b: Board, body: dict):
    from gnoming_sim.cli.group import finite
    from gnoming_sim.search import evaluator

    pos = b.position(body)
    seed = int(_number(body.get("seed", b.seed), "seed", 0, 2**64 - 1))
    loop = asyncio.get_running_loop()

    def work():   # the evaluator's table, and the printed card's answer beside it (as analyse shows it)
        res = finite(evaluator.zero_ply(pos, seed=seed, policies=b.policies, threads=b.threads))
        return res, play_api.card_answer(pos, res)

    res, card = await loop.run_in_executor(b.worker, work)
    return JSONResponse({"ok": True, **res, "card": card})


async def analysis(b: Board, body: dict):
    pos = b.position(body)
    horizon = body.get("horizon", evaluator.HORIZON)
    if horizon not in HORIZONS:
        raise GnomingError(f"horizon must be one of {', '.join(HORIZONS)}, got {horizon!r}")
    k = _number(body.get("k", DEFAULT_K), "k (standard errors)", 0.5, 20.0)
    cap = int(_number(body.get("cap", DEFAULT_CAP), "cap (rollouts)", 200, MAX_CAP))
    seed = int(_number(body.get("seed", b.seed), "seed", 0, 2**64 - 1))
    b.asked.set()        # the start's warm-up leaves its last part for later
    b.cancel_current()   # a new position stops the last one's work
    loop = asyncio.get_running_loop()
    live = await loop.run_in_executor(b.worker, lambda: Live(pos, b.policies, seed, horizon, k, cap, b.threads))
    live.explain = body.get("why", True) is not False   # the --why text after the verdict (on by default)
    job = secrets.token_urlsafe(16)   # not 1, 2, 3: a job is the page's that started it
    b.jobs = {j: x for j, x in b.jobs.items() if not x.done}   # finished ones are forgotten
    b.jobs[job], b.current = live, job
    return JSONResponse({"ok": True, "job": job, "describe": pos.describe()})


async def drill_next(b: Board, body: dict):
    from gnoming_sim.cli.board import drills

    skip = body.get("skip", [])
    skip = tuple(x for x in skip if isinstance(x, str)) if isinstance(skip, list) else ()
    return JSONResponse({"ok": True, **drills.next_card(b.drill_deck, b.rules, b.deck, body.get("retry") is True,
                                                        body.get("include_inaccuracies") is True, skip)})


async def drill_answer(b: Board, body: dict):
    from gnoming_sim.cli.board import drills

    return JSONResponse({"ok": True, **drills.answer(b.drill_deck, body.get("id"), body.get("key"))})


def _number(value, what: str, low: float, high: float) -> float:
    if isinstance(value, bool) or not isinstance(value, (int, float)) or not low <= value <= high:
        raise GnomingError(f"{what} must be a number in {low:g}..{high:g}, got {value!r}")
    return value


def _event(kind: str, data) -> str:
    return f"event: {kind}\ndata: {json.dumps(data, allow_nan=False)}\n\n"


async def events(request: Request):
    b: Board = request.app.state.board
    live = b.jobs.get(request.path_params["job"])
    if live is None or live.done or getattr(live, "streaming", False):
        return Response(status_code=204)   # 204 tells EventSource not to reconnect
    live.streaming = True

    async def stream():
        try:
            while True:
                update = await _unless_closing(b, live.step)
                if update is None:
                    break
                yield _event("update", update)
                if live.stopped:
                    break
            if live.stopped and not live.cancelled and live.explain:
                why = await _unless_closing(b, live.why)
                if why is not None:
                    yield _event("why", why)
            yield _event("done", {"stopped": live.stopped or "cancelled", "n": live.n})
        except GnomingError as exc:
            yield _event("error", {"error": one_line(str(exc))})
        except asyncio.CancelledError:   # a dropped connection, or the server stopping: the stream just ends
            return
        finally:   # no batch starts after it
            live.cancel()

    return StreamingResponse(stream(), media_type="text/event-stream",
                             headers={"Cache-Control": "no-store", "X-Accel-Buffering": "no"})


async def _unless_closing(b: Board, work):
    """``work()`` on the worker, or None as soon as the server stops (a batch under way is left to end by
    itself: the stream need not wait for it)."""
    future = asyncio.get_running_loop().run_in_executor(b.worker, work)
    future.add_done_callback(lambda f: f.cancelled() or f.exception())   # an abandoned failure is not logged
    while not b.closing.is_set():
        done, _ = await asyncio.wait([future], timeout=0.1)
        if done:
            return future.result()
    return None


async def stop(request: Request):
    live = request.app.state.board.jobs.get(request.path_params["job"])
    if live is not None:
        live.cancel()
    return JSONResponse({"ok": live is not None})


def make_app(board: Board, hosts=None) -> Starlette:
    """The board's app; ``hosts``: the Host names accepted (the loopback names; tests add theirs); the
    page's token is ``board.token``."""
    routes = [Route("/", index), Route("/favicon.ico", lambda request: Response(status_code=204)),
              Route("/api/start", start),
              Route("/api/validate", _json_route(validate), methods=["POST"]),
              Route("/api/export", _json_route(export), methods=["POST"]),
              Route("/api/import", _json_route(import_), methods=["POST"]),
              Route("/api/position-id", _json_route(position_id), methods=["POST"]),
              Route("/api/zero-ply", _json_route(zero_ply, refused=400), methods=["POST"]),
              Route("/api/analysis", _json_route(analysis), methods=["POST"]),
              Route("/api/drill/next", _json_route(drill_next), methods=["POST"]),
              Route("/api/drill/answer", _json_route(drill_answer), methods=["POST"]),
              *[Route(f"/api/play/{name}", _json_route(play_api.refused(handler), refused=400), methods=["POST"])
                for name, handler in play_api.ROUTES.items()],
              Route("/api/analysis/{job}/events", events),
              Route("/api/analysis/{job}", stop, methods=["DELETE"]),
              Mount("/static", StaticFiles(directory=STATIC), name="static")]
    app = Starlette(routes=routes, middleware=[Middleware(Quiet),
                                               Middleware(TrustedHostMiddleware, allowed_hosts=hosts or HOSTS),
                                               Middleware(Guard, token=board.token)])
    app.state.board = board
    return app
