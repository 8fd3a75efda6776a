"""The board's play mode: the routes of a game played by clicking (:mod:`.play_table` keeps the table).

``POST /api/play/new``        a game: ``players``, ``seat``, ``opponents`` (a name or one per other seat,
                              ``net`` by default), ``seed``, ``rules`` ({name, text}), ``strategies`` ({name,
                              text}, a strategies file as ``--strategies-file`` reads it): its id and first view
``POST /api/play/act``        the person's ``action`` (the kernel's encoding); with ``tutor`` (a threshold in
                              pp of win chance) and no ``confirm``, a move that 0-ply puts further behind the
                              best is not played: the answer is the warning, and the page offers to take it back
``POST /api/play/others``     another seat's turn played (the page calls it after its pause)
``POST /api/play/next-round`` the next round dealt
``POST /api/play/hint``       the evaluator's 0-ply table for the person's decision and the card's answer
``POST /api/play/save``       the game as a file to resume (``saved``) and as the record ``review`` reads
``POST /api/play/resume``     a saved game's text replayed to the state it was saved in
``POST /api/play/review``     the game's record graded as ``review`` grades it, its marks added to the drill
                              deck: the board's review view

Every request names its game by the secret id ``new`` gave and says how many moves the page has seen
(``moves``): a request from a page that is behind (a second tab, a replayed request) is refused (409) in a
sentence, as is a move the rules refuse (400).  The guards of :mod:`.guard` cover these routes as every
``/api/`` route.  Each answer carries the view of :meth:`~.play_table.PlayGame.view` and the story's lines
the page has not had (``seen`` in the request): nothing the person may not see.
"""
from __future__ import annotations

import asyncio
import json
import secrets
import tempfile
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

from starlette.responses import JSONResponse

from gnoming_sim.cli.board import play_table as PT
from gnoming_sim.cli.board.guard import Status
from gnoming_sim.game.errors import GnomingError, one_line
from gnoming_sim.game.rules import RuleConfig

MAX_GAMES = 16            # games kept at once (the oldest is forgotten)
REVIEW_ROLLOUT_SEED = 0
_PLAYER = ThreadPoolExecutor(1, "board-play")   # the tables move here, one request at a time


def _games(b) -> dict:
    return b.plays


async def _run(work):
    return await asyncio.get_running_loop().run_in_executor(_PLAYER, work)


def _load_strategies(text: str, name: str) -> None:
    from gnoming_sim.cli.board import inputs as I
    from gnoming_sim.kernel.policy import registry

    try:
        I._text_file(text, name, ".toml", registry.load_file)
    except GnomingError as exc:
        raise GnomingError(f"strategies: {exc}") from None


def _game(b, body: dict) -> tuple[str, PT.PlayGame]:
    gid = body.get("game")
    game = _games(b).get(gid) if isinstance(gid, str) else None
    if game is None:
        raise Status(400, "no such game on this board (it was started by another launch, or forgotten): start one")
    moves = body.get("moves")
    if moves != len(game.moves):
        raise Status(409, "this page is behind the game (another tab or a repeated request played on): reload "
                          "the game with Resume, or start a new one")
    return gid, game


def _answer(game: PT.PlayGame, body: dict, gid: str, **extra) -> JSONResponse:
    seen = body.get("seen", 0)
    seen = seen if isinstance(seen, int) and not isinstance(seen, bool) and seen >= 0 else 0
    lines = game.story()
    return JSONResponse({"ok": True, "game": gid, "view": game.view(), "log": lines[seen:], "seen": len(lines),
                         **extra})


def _keep(b, game: PT.PlayGame) -> str:
    games = _games(b)
    gid = secrets.token_urlsafe(16)
    games[gid] = game
    while len(games) > MAX_GAMES:
        games.pop(next(iter(games)))
    return gid


async def new(b, body: dict):
    rules = b.rules_for(body)
    setup = PT.setup_of(body, rules, b.deck, _load_strategies)
    game = await _run(lambda: PT.PlayGame(setup, b.deck))
    return _answer(game, {}, _keep(b, game))


async def act(b, body: dict):
    gid, game = _game(b, body)
    action = body.get("action")
    if isinstance(action, bool) or not isinstance(action, int):
        raise GnomingError(f"action must be a whole number (the kernel's encoding), got {action!r}")
    tutor = body.get("tutor")
    if tutor is not None and body.get("confirm") is not True:
        if isinstance(tutor, bool) or not isinstance(tutor, (int, float)) or not 0 <= tutor <= 100:
            raise GnomingError(f"tutor must be a threshold in 0..100 pp of win chance, got {tutor!r}")
        warn = await _run(lambda: _tutor(b, game, action, tutor))
        if warn is not None:
            return JSONResponse({"ok": True, "game": gid, "warn": warn})
    await _run(lambda: game.act(action))
    return _answer(game, body, gid)


def _tutor(b, game: PT.PlayGame, action: int, threshold: float) -> dict | None:
    """The warning for ``action`` when the 0-ply table puts it more than ``threshold`` pp behind the best."""
    pos = game.position()
    if pos is None:
        return None
    key = option_key(game.pending(), action)
    table = _zero_ply(b, game, pos)
    rows = {r["key"]: r for r in table["options"]}
    if key not in rows:
        return None   # an illegal move: act refuses it in its own sentence
    mine, best = rows[key], next(r for r in table["options"] if r["best"])
    if mine["diff"] <= threshold:
        return None
    return {"text": f"The tutor: {mine['option']} loses {mine['diff']:.1f} pp of win chance against "
                    f"{best['option']} (0-ply, more than your threshold of {threshold:g} pp). Take it back?",
            "loss_pp": mine["diff"], "best": best["key"], "best_label": best["option"], "played": key}


def option_key(kind: int, action: int) -> str:
    """The option key (:mod:`gnoming_sim.search.options`) of the kernel's ``action`` at a decision of ``kind``."""
    if kind == 2:
        return ("draw", "pile0", "pile1")[action] if 0 <= action < 3 else ""
    if kind == 3:
        return "discard" if action == PT.CHOICE_NOKEEP else f"pos{action}"
    return "decline" if action == PT.CHOICE_DECLINE else f"flip{action}"


def _zero_ply(b, game: PT.PlayGame, pos) -> dict:
    """The evaluator's 0-ply table of the person's decision (kept for the decision: hint and tutor share it)."""
    from gnoming_sim.cli.group import finite
    from gnoming_sim.search import evaluator

    cached = getattr(game, "zero", None)
    if cached is not None and cached[0] == len(game.moves):
        return cached[1]
    res = finite(evaluator.zero_ply(pos, seed=b.seed, policies=b.policies, threads=b.threads))
    game.zero = (len(game.moves), res)
    return res


def card_answer(pos, res: dict) -> dict | None:
    """The printed card's answer at ``pos`` beside the evaluator's table ``res`` (:mod:`gnoming_sim.search.card`,
    as ``analyse`` shows it): the ``card`` object and its one line, or None where the card has no cell."""
    from gnoming_sim.search.card import card_line, card_view, compare
    from gnoming_sim.search.options import legal_options

    view = card_view(pos)
    if view is None:
        return None
    card = compare(view, res, legal_options(pos))
    return {**card, "line": card_line(card)}


async def hint(b, body: dict):
    gid, game = _game(b, body)

    def work():
        pos = game.position()
        if pos is None:
            raise GnomingError("no hint here: the evaluator values draws, placements and hazard flips, and this "
                               "decision is none of them")
        res = _zero_ply(b, game, pos)
        return res, card_answer(pos, res)

    res, card = await _run(work)
    return JSONResponse({"ok": True, "game": gid, "zero": res, "card": card})


async def others(b, body: dict):
    gid, game = _game(b, body)
    played = await _run(game.others)
    if not played:
        raise GnomingError("no other seat is to move")
    return _answer(game, body, gid)


async def next_round(b, body: dict):
    gid, game = _game(b, body)
    await _run(game.next_round)
    return _answer(game, body, gid)


async def save(b, body: dict):
    from gnoming_sim.game.record import dumps_toml

    gid, game = _game(b, body)
    out = {"ok": True, "game": gid, "saved": json.dumps(game.saved(), indent=1), "saved_name": "game.board.json"}
    if game.round > 0 or game.scored:   # a record holds the rounds played to their end
        out["record"] = dumps_toml(await _run(game.record))
        out["record_name"] = "game.toml"
    return JSONResponse(out)


async def resume(b, body: dict):
    from gnoming_sim.cli.board import inputs as I

    text = body.get("text")
    if not isinstance(text, str) or len(text) > I.MAX_TEXT:
        raise GnomingError("saved game: send the file's text (a game saved by the board)")
    data = I._json(text, "saved game")

    def rules_of(d):
        if not isinstance(d, dict):
            raise GnomingError("saved game: 'rules' must be the table of the game's rules options")
        return RuleConfig.from_dict(d, "saved game: rules")

    game = await _run(lambda: PT.resume(data, rules_of, b.deck, _load_strategies))
    return _answer(game, {}, _keep(b, game))


async def review(b, body: dict):
    """The game's record graded by ``review``'s own path; the board's review view of it; its marks drilled."""
    gid, game = _game(b, body)
    if not game.over:
        raise GnomingError("review the game once it is over (save it to go on later)")
    loop = asyncio.get_running_loop()
    opened, told = await loop.run_in_executor(b.worker, lambda: graded(b, game))
    return JSONResponse({"ok": True, "game": gid, "opened": opened, "drills": told})


def graded(b, game: PT.PlayGame) -> tuple[dict, str]:
    """(the review as the page's Opened dict, the drill deck's line): the record written as the file
    ``review`` reads, graded by ``review``'s own function, opened as the board opens a review.json."""
    from gnoming_sim.cli import review as RV
    from gnoming_sim.cli.board import inputs as I
    from gnoming_sim.cli.group import finite
    from gnoming_sim.game.record import dumps_toml
    from gnoming_sim.drills import deck as drill

    record = game.record()
    with tempfile.TemporaryDirectory(prefix="gnoming-board-") as tmp:
        path = Path(tmp) / "game.toml"
        path.write_text(dumps_toml(record), encoding="utf-8")
        table = (record.players, None, game.setup.seed, False, game.setup.rules, b.deck, None, record.seat)
        search = (b.policies, REVIEW_ROLLOUT_SEED, RV.SCREEN, RV.CONFIRM, 0, b.threads)
        _, res = RV._grade(record, path, table, search)
        res["game"]["source"] = {"kind": "record", "file": "your game on the board"}
        res = finite(res)
        opened = I._review(json.loads(json.dumps(res, allow_nan=False)), "your game", game.setup.rules, b.deck)
        told = ""
        if b.drill_deck is not None:
            cards = drill.cards_from_review(res, f"board game seed {game.setup.seed} seat {record.seat}")
            added, size = drill.add(b.drill_deck, cards, "--drill-deck")
            told = f"drills: {added} marked decision(s) added to the deck ({size} in it)"
    opened = opened.to_dict()
    opened["name"] = "your game"
    return opened, told


def refused(handler):
    """A play route: a GnomingError (a move the rules refuse, a bad setup) is 400 with its sentence."""
    async def route(b, body: dict):
        try:
            return await handler(b, body)
        except GnomingError as exc:
            raise Status(400, one_line(str(exc))) from None
    return route


ROUTES = {"new": new, "act": act, "others": others, "next-round": next_round, "hint": hint, "save": save,
          "resume": resume, "review": review}
