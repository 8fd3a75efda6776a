"""A game record: what one seat saw and did at the table, turn by turn (the input of ``review``).

Everything a player does in this game is public (a blind-drawn card is then placed or thrown away
face up), so what a seat saw is the public story of the game plus the cards turned up; only the
face-down cards and the order of the draw pile stay hidden.  A record is a TOML or a JSON file
(``.json``), ``examples/review-record.toml`` the documented template; cards are named as in a
position file (``"-4"`` .. ``"8"``, ``"H"`` hazard, ``"M"`` mulligan), positions are 0..8 row-major,
seats count from 0, discard piles are 0 and 1::

    format = 1
    players = 4
    seat = 2                       # the seat whose decisions are graded
    seats = ["builder", ...]       # optional: who sat where (shown on the page)

    [[rounds]]                     # one table per round played (1..3), in order
    starter = 0                    # the seat that starts the round
    setup_hazards = 0              # hazards turned up while seeding the discard piles (removed)
    setup = ["7", "5"]             # the cards turned up onto discard pile 0, then pile 1
    flips = [[[0, "5"], [4, "7"]], ...]   # per seat 0..P-1: its two initial flips, [position, card]
    turns = [                      # every turn of the round, in the order played
      {seat = 0, draw = "draw", card = "6", place = 4, replaced = "7", pile = 0},
      {seat = 1, draw = "pile0", card = "7", place = 2, replaced = "3", bounce = [[5, "8"]], pile = 1},
      {seat = 2, draw = "draw", card = "H", place = "discard", hazard_flips = [[1, "4"], "decline", "none"]},
    ]
    reveal = [["6", "6", ...], ...]   # the layouts turned up at the round's end, 9 cards per seat
    stalled = false                # the round ended in a stall after its last turn listed

A turn: ``seat`` plays; ``draw`` is ``"draw"`` (the draw pile), ``"pile0"`` or ``"pile1"``; ``card``
is the card drawn; ``place`` the position it was put at, or ``"discard"`` (not kept); ``replaced``
the card that lay there (turned up if it was face down; required with a position); ``bounce`` the
bounce chain, one ``[position, card replaced there]`` per bounce (default none); ``pile`` the
discard pile the card let go went onto, left out when that card is a hazard (removed); then
``hazard_flips``, one entry per other seat in turn order from the discarder's left: ``[position,
card]`` (flipped), ``"decline"``, or ``"none"`` (fewer than two face-down cards: no flip allowed).
Finishing, the final lap and the end of the round follow from the cards; a round that goes on to
a next one must give ``reveal`` (its scores come from it).  A record may stop after any turn: each
decision is graded from the state before it.

:func:`load` reads a file and checks its shape, one :class:`GnomingError` line naming the turn
and the field; whether the game it tells can happen is checked by replaying it
(:mod:`gnoming_sim.game.record_trace` builds the trace, the referee checks it).
"""
from __future__ import annotations

import json
from dataclasses import dataclass

from gnoming_sim.game.cards import HAZARD, card_name, parse_card
from gnoming_sim.game.errors import GnomingError
from gnoming_sim.game.input_file import read_text, read_toml, shown
from gnoming_sim.game.rules import LAYOUT, MAX_PLAYERS, MIN_PLAYERS, ROUNDS

FORMAT = 1
SOURCES = ("draw", "pile0", "pile1")
FLIP_DECLINE = -1       # the trace's HFLIP_DECLINED
FLIP_NONE = -2          # the trace's HFLIP_NOT_ALLOWED
NOT_KEPT = -1           # ``place = "discard"``
REMOVED = -1            # ``pile`` of a hazard: removed from the game
_TOP = {"format", "players", "seat", "seats", "rounds"}
_ROUND = {"starter", "setup_hazards", "setup", "flips", "turns", "reveal", "stalled"}
_TURN = {"seat", "draw", "card", "place", "replaced", "bounce", "pile", "hazard_flips"}


@dataclass(frozen=True)
class Turn:
    """One turn as the record tells it (codes, not names); ``where`` names it in errors."""

    seat: int
    draw: int                 # 0 draw pile, 1 / 2 discard pile 0 / 1
    card: int
    place: int                # 0..8, or NOT_KEPT
    replaced: int | None      # the card that lay at ``place``
    bounce: tuple             # ((position, card replaced there), ...)
    pile: int                 # 0 / 1, or REMOVED (a hazard)
    hazard_flips: tuple       # ((position, card) | (FLIP_DECLINE, 0) | (FLIP_NONE, 0), ...)
    where: str


@dataclass(frozen=True)
class Round:
    starter: int
    setup_hazards: int
    setup: tuple              # (card on pile 0, card on pile 1)
    flips: tuple              # per seat: ((position, card), (position, card))
    turns: tuple
    reveal: tuple | None      # per seat: 9 cards, or None
    stalled: bool
    where: str


@dataclass(frozen=True)
class Record:
    players: int
    seat: int
    rounds: tuple
    seats: tuple = ()         # strategy names or player names, optional
    origin: str = "record"

    def to_mapping(self) -> dict:
        """The record as the file holds it (what :func:`from_mapping` reads back)."""
        rounds = []
        for r in self.rounds:
            d = {"starter": r.starter, "setup_hazards": r.setup_hazards, "setup": [card_name(c) for c in r.setup],
                 "flips": [[[q, card_name(c)] for q, c in f] for f in r.flips],
                 "turns": [_turn_mapping(t) for t in r.turns]}
            if r.reveal is not None:
                d["reveal"] = [[card_name(c) for c in row] for row in r.reveal]
            if r.stalled:
                d["stalled"] = True
            rounds.append(d)
        out = {"format": FORMAT, "players": self.players, "seat": self.seat}
        if self.seats:
            out["seats"] = list(self.seats)
        out["rounds"] = rounds
        return out


def _turn_mapping(t: Turn) -> dict:
    d = {"seat": t.seat, "draw": SOURCES[t.draw], "card": card_name(t.card),
         "place": "discard" if t.place == NOT_KEPT else t.place}
    if t.place != NOT_KEPT:
        d["replaced"] = card_name(t.replaced)
    if t.bounce:
        d["bounce"] = [[q, card_name(c)] for q, c in t.bounce]
    if t.pile != REMOVED:
        d["pile"] = t.pile
    if t.hazard_flips:
        d["hazard_flips"] = [[q, card_name(c)] if q >= 0 else ("decline" if q == FLIP_DECLINE else "none")
                             for q, c in t.hazard_flips]
    return d


# ------------------------------------------------------------------ reading
def load(path) -> Record:
    """The record of a TOML or JSON (``.json``) file, its shape checked (one-line GnomingError)."""
    name = shown(path)
    if str(path).lower().endswith(".json"):
        text = read_text(path, "record")
        try:
            data = json.loads(text)
        except (ValueError, RecursionError) as exc:
            raise GnomingError(f"record file {name} is not valid JSON: {str(exc)[:200]}") from None
    else:
        data = read_toml(path, "record")
    return from_mapping(data, name)


def from_mapping(data, origin: str = "record") -> Record:
    if not isinstance(data, dict):
        raise GnomingError(f"{origin}: a record is a table of keys (format, players, seat, rounds)")
    _known(data, _TOP, origin, "")
    for key in ("players", "seat", "rounds"):
        if key not in data:
            raise GnomingError(f"{origin}: missing field '{key}'")
    fmt = data.get("format", FORMAT)
    if fmt != FORMAT:
        raise GnomingError(f"{origin}: field 'format' must be {FORMAT}, got {fmt!r}")
    P = _int(data, "players", origin, MIN_PLAYERS, MAX_PLAYERS)
    seat = _int(data, "seat", origin, 0, P - 1)
    seats = data.get("seats", [])
    if not isinstance(seats, list) or (seats and len(seats) != P) or not all(isinstance(s, str) for s in seats):
        raise GnomingError(f"{origin}: field 'seats' must be a list of {P} names (one per seat), or left out")
    rounds = data["rounds"]
    if not isinstance(rounds, list) or not 1 <= len(rounds) <= ROUNDS:
        raise GnomingError(f"{origin}: field 'rounds' must be a list of 1..{ROUNDS} round tables")
    out = tuple(_round(r, P, f"{origin}: round {i + 1}") for i, r in enumerate(rounds))
    return Record(P, seat, out, tuple(seats), origin)


def _round(data, P: int, where: str) -> Round:
    if not isinstance(data, dict):
        raise GnomingError(f"{where}: a round is a table (starter, setup, flips, turns, ...)")
    _known(data, _ROUND, where, "")
    for key in ("starter", "setup", "flips"):
        if key not in data:
            raise GnomingError(f"{where}: missing field '{key}'")
    starter = _int(data, "starter", where, 0, P - 1)
    hazards = _int(data, "setup_hazards", where, 0, 3, default=0)
    setup = data["setup"]
    if not isinstance(setup, list) or len(setup) != 2:
        raise GnomingError(f"{where}: field 'setup' must be the two cards turned up onto pile 0 and pile 1")
    setup = tuple(_card(c, where, f"setup[{k}]") for k, c in enumerate(setup))
    if HAZARD in setup:
        raise GnomingError(f"{where}: field 'setup': a hazard turned up at setup is removed (count it in "
                           "'setup_hazards') and the next card goes on the pile")
    flips = data["flips"]
    if not isinstance(flips, list) or len(flips) != P:
        raise GnomingError(f"{where}: field 'flips' must hold {P} entries, one per seat (seat 0 first)")
    flips = tuple(_flip_pair(f, where, s) for s, f in enumerate(flips))
    turns = data.get("turns", [])
    if not isinstance(turns, list):
        raise GnomingError(f"{where}: field 'turns' must be a list of turn tables")
    turns = tuple(_turn(t, P, f"{where}, turn {i}") for i, t in enumerate(turns))
    reveal = data.get("reveal")
    if reveal is not None:
        if not isinstance(reveal, list) or len(reveal) != P or not all(
                isinstance(row, list) and len(row) == LAYOUT for row in reveal):
            raise GnomingError(f"{where}: field 'reveal' must hold {P} layouts of {LAYOUT} cards (the layouts "
                               "turned up at the round's end)")
        reveal = tuple(tuple(_card(c, where, f"reveal[{s}][{q}]") for q, c in enumerate(row))
                       for s, row in enumerate(reveal))
    stalled = data.get("stalled", False)
    if not isinstance(stalled, bool):
        raise GnomingError(f"{where}: field 'stalled' must be true or false, got {stalled!r}")
    return Round(starter, hazards, setup, flips, turns, reveal, stalled, where)


def _flip_pair(f, where: str, s: int) -> tuple:
    field = f"flips[{s}]"
    if not isinstance(f, list) or len(f) != 2:
        raise GnomingError(f"{where}: field '{field}' must be seat {s}'s two initial flips, [[position, card], "
                           "[position, card]]")
    pair = tuple(_pos_card(x, where, f"{field}[{k}]") for k, x in enumerate(f))
    if pair[0][0] == pair[1][0]:
        raise GnomingError(f"{where}: field '{field}': both initial flips are at position {pair[0][0]}")
    return pair


def _turn(data, P: int, where: str) -> Turn:
    if not isinstance(data, dict):
        raise GnomingError(f"{where}: a turn is a table (seat, draw, card, place, ...)")
    _known(data, _TURN, where, "")
    for key in ("seat", "draw", "card", "place"):
        if key not in data:
            raise GnomingError(f"{where}: missing field '{key}'")
    seat = _int(data, "seat", where, 0, P - 1)
    where = f"{where} (seat {seat})"
    src = data["draw"]
    if src not in SOURCES:
        raise GnomingError(f"{where}: field 'draw' must be one of {', '.join(SOURCES)}, got {src!r}")
    card = _card(data["card"], where, "card")
    place = data["place"]
    if place == "discard":
        place = NOT_KEPT
    elif isinstance(place, bool) or not isinstance(place, int) or not 0 <= place < LAYOUT:
        raise GnomingError(f"{where}: field 'place' must be a position 0..8 or \"discard\", got {place!r}")
    replaced = None
    if place != NOT_KEPT:
        if "replaced" not in data:
            raise GnomingError(f"{where}: missing field 'replaced' (the card that lay at position {place})")
        replaced = _card(data["replaced"], where, "replaced")
    elif "replaced" in data or "bounce" in data:
        raise GnomingError(f"{where}: field '{'replaced' if 'replaced' in data else 'bounce'}': the card drawn "
                           "was not kept, so nothing was replaced")
    bounce = data.get("bounce", [])
    if not isinstance(bounce, list):
        raise GnomingError(f"{where}: field 'bounce' must be a list of [position, card replaced there]")
    bounce = tuple(_pos_card(b, where, f"bounce[{k}]") for k, b in enumerate(bounce))
    let_go = bounce[-1][1] if bounce else (replaced if place != NOT_KEPT else card)
    if let_go == HAZARD:
        if "pile" in data:
            raise GnomingError(f"{where}: field 'pile': the card let go is a hazard, which is removed, not "
                               "discarded; leave 'pile' out")
        pile = REMOVED
        flips = data.get("hazard_flips")
        if not isinstance(flips, list) or len(flips) != P - 1:
            raise GnomingError(f"{where}: field 'hazard_flips' must hold {P - 1} entries (the other seats from the "
                               "discarder's left): [position, card], \"decline\" or \"none\"")
        hflips = tuple(_hazard_flip(x, where, k) for k, x in enumerate(flips))
    else:
        if "hazard_flips" in data:
            raise GnomingError(f"{where}: field 'hazard_flips': the card let go ({card_name(let_go)}) is no hazard")
        if "pile" not in data:
            raise GnomingError(f"{where}: missing field 'pile' (the discard pile the {card_name(let_go)} went onto)")
        pile = _int(data, "pile", where, 0, 1)
        hflips = ()
    return Turn(seat, SOURCES.index(src), card, place, replaced, bounce, pile, hflips, where)


def _hazard_flip(x, where: str, k: int) -> tuple:
    if x == "decline":
        return (FLIP_DECLINE, 0)
    if x == "none":
        return (FLIP_NONE, 0)
    return _pos_card(x, where, f"hazard_flips[{k}]", " or \"decline\" or \"none\"")


def _pos_card(x, where: str, field: str, alt: str = "") -> tuple:
    if (not isinstance(x, list) or len(x) != 2 or isinstance(x[0], bool) or not isinstance(x[0], int)
            or not 0 <= x[0] < LAYOUT):
        raise GnomingError(f"{where}: field '{field}' must be [position 0..8, card]{alt}, got {x!r}")
    return (x[0], _card(x[1], where, field))


def _known(data: dict, keys: set, where: str, prefix: str) -> None:
    for key in data:
        if key not in keys:
            raise GnomingError(f"{where}: unknown field '{prefix}{key}' (known: {', '.join(sorted(keys))})")


def _int(data, key, where, low, high, default=None):
    value = data.get(key, default)
    if value is default and default is not None:
        return value
    if isinstance(value, bool) or not isinstance(value, int) or not low <= value <= high:
        raise GnomingError(f"{where}: field '{key}' must be an integer in {low}..{high}, got {value!r}")
    return value


def _card(item, where: str, field: str) -> int:
    try:
        return parse_card(item)
    except ValueError as exc:
        raise GnomingError(f"{where}: field '{field}': {exc}") from None


# ------------------------------------------------------------------ writing
def dumps_toml(record: Record) -> str:
    """The record as a TOML document (one inline table per turn), as ``examples/review-record.toml``."""
    m = record.to_mapping()
    out = [f"# A game record for `gnoming-sim review` (format: docs/review.md)",
           f"format = {m['format']}", f"players = {m['players']}",
           f"seat = {m['seat']}                      # the seat whose decisions are graded"]
    if "seats" in m:
        out.append(f"seats = {_toml(m['seats'])}")
    for r in m["rounds"]:
        out += ["", "[[rounds]]", f"starter = {r['starter']}", f"setup_hazards = {r['setup_hazards']}",
                f"setup = {_toml(r['setup'])}", f"flips = {_toml(r['flips'])}", "turns = ["]
        out += [f"  {_toml(t)}," for t in r["turns"]]
        out.append("]")
        if "reveal" in r:
            out.append("reveal = [")
            out += [f"  {_toml(row)}," for row in r["reveal"]]
            out.append("]")
        if r.get("stalled"):
            out.append("stalled = true")
    return "\n".join(out) + "\n"


def _toml(v) -> str:
    if isinstance(v, dict):
        return "{" + ", ".join(f"{k} = {_toml(x)}" for k, x in v.items()) + "}"
    if isinstance(v, list):
        return "[" + ", ".join(_toml(x) for x in v) + "]"
    if isinstance(v, str):
        return json.dumps(v)
    return str(v).lower() if isinstance(v, bool) else str(v)


def dumps(record: Record, path) -> str:
    """The record as the text of ``path``'s kind: JSON for ``.json``, else TOML."""
    if str(path).lower().endswith(".json"):
        return json.dumps(record.to_mapping(), indent=1) + "\n"
    return dumps_toml(record)
