"""The board's guards: it answers only the page it opened, and no request gives a traceback.

:class:`Guard` refuses a request a browser sends from another origin (403, every route), an API request
a browser says is another page's or without the launch's secret token (403) and a body declared larger than
:data:`MAX_BODY` (413);
:func:`read_json` reads a JSON body no further than that and refuses what the loaders cannot take (NaN,
Infinity, lone surrogates, deep nesting: 400); :class:`Quiet`, outermost, turns an exception no route
foresaw into a 500 with one JSON line (logged as one line) and ends a stream quietly when the server stops.
Every refusal is ``{"ok": false, "error": "<one sentence>"}``.
"""
from __future__ import annotations

import asyncio
import json
import logging
import math
import secrets

from starlette.requests import Request
from starlette.responses import JSONResponse, Response

from gnoming_sim.cli.board.inputs import MAX_TEXT
from gnoming_sim.game.errors import one_line

MAX_BODY = 2 * MAX_TEXT   # a body holds a position, a rules text and an imported text (each at most 1 MiB)
MAX_DEPTH = 32            # a position nests 4 deep; JSON nested deeper is refused before anything reads it
TOKEN_HEADER = "x-board-token"
log = logging.getLogger("uvicorn.error")   # uvicorn's log: one line each, at the command's level


class Status(Exception):
    """A bad request: its HTTP status and the sentence that says why."""

    def __init__(self, code: int, text: str):
        super().__init__(text)
        self.code = code


async def read_json(request: Request) -> dict:
    """The request's JSON object, read at most :data:`MAX_BODY` bytes far, and checked as the loaders expect
    JSON to be: finite numbers, text without lone surrogates, nested at most :data:`MAX_DEPTH` deep."""
    if request.headers.get("content-type", "").split(";")[0].strip() != "application/json":
        raise Status(415, "send application/json")
    raw = bytearray()
    async for chunk in request.stream():
        raw += chunk
        if len(raw) > MAX_BODY:
            raise Status(413, _too_large())
    try:
        body = json.loads(bytes(raw), parse_constant=_no_constant, parse_float=_finite_float)
    except _NotFinite as exc:
        raise Status(400, f"the request holds the number {exc}; send finite numbers") from None
    except RecursionError:
        raise Status(400, f"the request is nested too deeply (at most {MAX_DEPTH} levels)") from None
    except ValueError:   # UnicodeDecodeError too: bytes that are not UTF-8
        raise Status(400, "the request is not JSON") from None
    _check_json(body)
    if not isinstance(body, dict):
        raise Status(400, "the request is not a JSON object")
    return body


class _NotFinite(ValueError):
    pass


def _no_constant(name: str):
    raise _NotFinite(name)   # NaN, Infinity, -Infinity: Python's json reads them, JSON has none


def _finite_float(text: str) -> float:
    x = float(text)
    if not math.isfinite(x):
        raise _NotFinite(text)   # 1e999
    return x


def _check_json(value) -> None:
    """Refuses JSON nested deeper than MAX_DEPTH or holding a string that is not text (a lone surrogate,
    ``"\\ud800"``, which no file can be written with and no answer could quote)."""
    stack = [(value, 1)]
    while stack:
        x, depth = stack.pop()
        if isinstance(x, str):
            try:
                x.encode("utf-8")
            except UnicodeEncodeError:
                raise Status(400, "the request holds a lone surrogate (\\ud800 to \\udfff), which is not "
                                  "text") from None
        elif isinstance(x, (list, dict)):
            if depth > MAX_DEPTH:
                raise Status(400, f"the request is nested too deeply (at most {MAX_DEPTH} levels)")
            items = list(x.keys()) + list(x.values()) if isinstance(x, dict) else x
            stack.extend((y, depth + 1) for y in items)


def _too_large() -> str:
    return f"the request is larger than {MAX_BODY >> 20} MiB; a position or a file's text is a few KiB"


def _refuse(code: int, text: str) -> Response:
    return JSONResponse({"ok": False, "error": text}, status_code=code)


class Guard:
    """The board answers only its own page: a request from another origin (a browser names it in Origin) is
    403 on every route, an API request a browser says is not the page's own (Sec-Fetch-Site) or without the
    launch's token 403, a body declared larger than MAX_BODY 413 (one read larger is refused by
    :func:`read_json`).  Inside TrustedHostMiddleware, so the Host it compares Origin with names the loopback."""

    def __init__(self, app, token: str):
        self.app, self.token = app, token

    async def __call__(self, scope, receive, send):
        if scope["type"] != "http":
            return await self.app(scope, receive, send)
        request = Request(scope)
        origin = request.headers.get("origin")
        if origin is not None and origin.lower() != f"http://{request.headers.get('host', '').lower()}":
            return await _refuse(403, "a page of another origin cannot use the board")(scope, receive, send)
        if scope["path"].startswith("/api/"):
            # a browser names where a request comes from even where it sends no Origin (an <img>, a no-cors
            # GET): an API request comes from the page itself (or is typed in: none)
            if request.headers.get("sec-fetch-site", "same-origin") not in ("same-origin", "none"):
                return await _refuse(403, "a page of another origin cannot use the board")(scope, receive, send)
            given = request.headers.get(TOKEN_HEADER) or request.query_params.get("token") or ""
            if not secrets.compare_digest(given.encode("utf-8", "surrogatepass"), self.token.encode()):
                return await _refuse(403, "the board answers only the page it opened: open the address "
                                          "`gnoming-sim board` printed, with its ?token=")(scope, receive, send)
        length = request.headers.get("content-length", "0")
        if not (length.isascii() and length.isdigit()):
            return await _refuse(400, "the Content-Length is not a number")(scope, receive, send)
        if len(length) > 12 or int(length) > MAX_BODY:
            return await _refuse(413, _too_large())(scope, receive, send)
        await self.app(scope, receive, send)


class Quiet:
    """Outermost: an exception no route foresaw is a 500 with one JSON line, logged as one line (never a
    traceback); the server stopping under an open stream (its task cancelled) ends the stream quietly."""

    def __init__(self, app):
        self.app = app

    async def __call__(self, scope, receive, send):
        if scope["type"] != "http":
            return await self.app(scope, receive, send)
        sent = {"start": False, "end": False}

        async def sending(message):
            if message["type"] == "http.response.start":
                sent["start"] = True
            elif message["type"] == "http.response.body" and not message.get("more_body", False):
                sent["end"] = True
            await send(message)

        try:
            await self.app(scope, receive, sending)
        except asyncio.CancelledError:
            await self._end(sent, send, None)
        except Exception as exc:
            log.error("%s %s: %s: %s", scope.get("method"), _printable(scope.get("path", "")), type(exc).__name__,
                      _printable(one_line(str(exc))[:300]))
            await self._end(sent, send, "the board failed on this request: " + type(exc).__name__)

    @staticmethod
    async def _end(sent: dict, send, error: str | None) -> None:
        try:
            if not sent["start"]:
                await _refuse(500, error or "the board is stopping")({"type": "http"}, None, send)
            elif not sent["end"]:
                await send({"type": "http.response.body", "body": b"", "more_body": False})
        except Exception:   # the connection is gone: nothing left to tell
            pass


def _printable(text: str) -> str:
    """``text`` as any log can print it (a lone surrogate written as its escape)."""
    return text.encode("utf-8", "backslashreplace").decode("utf-8")
