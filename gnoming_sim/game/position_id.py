"""The position ID: a short text that holds a position exactly (as GNU Backgammon's Position ID does),
for pasting whole into ``analyse --position-id``, the board, or a message.

``g1:`` + base64url (no padding) of a bit packing of everything a position file holds, plus the rules
options that differ from the published ones and the deck where it is not the published one, then two
check bytes (a mistyped or cut ID is refused, not read as another position).  :func:`decode` turns the
bits back into the very mapping a position file holds and hands it to
:func:`gnoming_sim.game.position.from_mapping`: the one loader and its checks, so an impossible
position gets the loader's sentence.  Every failure is one :class:`GnomingError` line.  Reading is
canonical: an ID is read only when it is the very text :func:`encode` writes for what it holds (no other
spelling of the same position: non-zero padding or trailing bits, bytes past the position, a rules or deck
flag set with nothing that differs), so a position has one ID.

Version 1, most significant bit first (``gamma`` is Elias gamma of n + 1, ``zigzag`` maps a signed
number to 0, -1, 1, -2, ... -> 0, 1, 2, 3, ...)::

    1 bit   rules differ from the published ones     1 bit   deck is not the published one
    deck    gamma(kinds - 1), then per kind: 6 bits card symbol, gamma(copies - 1)
    rules   per option of RULE_FIELDS: 1 bit "differs"; an integer option then zigzag-gamma(value)
            (a true/false option that differs is the other value)
    3 bits players - 2, 3 bits me, 3 bits starter, 2 bits round - 1, 3 bits finisher + 1
    gamma(turn), gamma(removed_hazards), gamma(draw_pile), zigzag-gamma(score) per seat
    2 bits decision (draw, place, hazard_flip); place: card, 2 bits source, 1 bit same_card_below;
            hazard_flip: 3 bits discarder
    players x 9 cards (layouts, row-major), then per discard pile gamma(length) and its cards, bottom first
    zero bits to a whole byte; 2 check bytes (BLAKE2b of the bytes before them)

A card is an index into the deck's card kinds in their sorted order, 0 meaning face down, on as
few bits as the deck needs (4 for the published deck's 12 kinds).  The deck's name and a simulated
game's true hidden cards are not kept: a position ID holds what the player to move knows.
"""
from __future__ import annotations

import base64
import binascii
import hashlib
from dataclasses import replace

from gnoming_sim.game.cards import HAZARD, HIDDEN, MULLIGAN, MIN_VALUE, card_name, parse_card
from gnoming_sim.game.deck import PUBLISHED, Deck
from gnoming_sim.game.errors import GnomingError
from gnoming_sim.game.input_file import shown
from gnoming_sim.game.position import DECISIONS, SOURCES, Position, from_mapping
from gnoming_sim.game.rules import LAYOUT, MIN_PLAYERS, RuleConfig

VERSION = 1
PREFIX = f"g{VERSION}:"
WHERE = "position ID"
MAX_CHARS = 8000          # a 1,000-card house deck's position fits; a pasted book does not
CHECK_BYTES = 2
# the rules options in the order version 1 packs them; a new option needs a new version (a test checks)
RULE_FIELDS = ("rotate_start", "discard_draw_must_be_kept", "mulligan_limit", "hazard_placeable",
               "reshuffle_when_empty", "max_turns", "mulligans_per_line", "finisher_tie_is_lowest", "bouncing",
               "early_finish_bonus", "hazard_value", "mulligan_value", "negative_multiplier")
_MAX_GAMMA_BITS = 40
_SYMBOL_BITS = 6          # a deck's card kind: value + 20 (0..40), hazard 41, mulligan 42


class _Malformed(Exception):
    """The bits do not make a version-1 position (turned into the one GnomingError line)."""


# ------------------------------------------------------------------ bits
class _Writer:
    def __init__(self):
        self.value, self.n = 0, 0

    def bits(self, value: int, width: int) -> None:
        if not 0 <= value < (1 << width):
            raise _Malformed(f"{value} does not fit in {width} bits")
        self.value, self.n = (self.value << width) | value, self.n + width

    def gamma(self, n: int) -> None:
        if n < 0:
            raise _Malformed(f"{n} is negative")
        m = n + 1
        self.bits(0, m.bit_length() - 1)
        self.bits(m, m.bit_length())

    def signed(self, n: int) -> None:
        self.gamma(2 * n if n >= 0 else -2 * n - 1)

    def to_bytes(self) -> bytes:
        pad = -self.n % 8
        return (self.value << pad).to_bytes((self.n + pad) // 8, "big")


class _Reader:
    def __init__(self, data: bytes):
        self.value, self.left = int.from_bytes(data, "big"), 8 * len(data)

    def bits(self, width: int) -> int:
        if width > self.left:
            raise _Malformed("it ends too soon")
        self.left -= width
        return (self.value >> self.left) & ((1 << width) - 1)

    def gamma(self) -> int:
        zeros = 0
        while self.bits(1) == 0:
            zeros += 1
            if zeros > _MAX_GAMMA_BITS:
                raise _Malformed("it holds a number far too large")
        return ((1 << zeros) | self.bits(zeros)) - 1

    def signed(self) -> int:
        z = self.gamma()
        return z // 2 if z % 2 == 0 else -(z + 1) // 2

    def finish(self) -> None:
        if self.left >= 8 or self.bits(self.left) != 0:
            raise _Malformed("it holds more than a position")


def _symbol(code: int) -> int:
    return {HAZARD: 41, MULLIGAN: 42}.get(code, code - MIN_VALUE)


def _code(symbol: int) -> int:
    if symbol > 42:
        raise _Malformed(f"card symbol {symbol} is no card")
    return {41: HAZARD, 42: MULLIGAN}.get(symbol, symbol + MIN_VALUE)


def _card_bits(deck: Deck) -> int:
    return max(1, len(deck.counts).bit_length())


# ------------------------------------------------------------------ encode
def encode(position: Position) -> str:
    """The position ID of ``position`` (with its rules and deck)."""
    return encode_mapping(position.to_dict(), position.rules, position.deck)


def encode_mapping(data: dict, rules: RuleConfig | None = None, deck: Deck | None = None) -> str:
    """The position ID of a position-file mapping (the keys :func:`~gnoming_sim.game.position.from_mapping`
    reads, its defaults for the keys left out), under ``rules`` and ``deck`` (default: published).  Nothing is
    checked beyond what the packing needs (a card of the deck, numbers that fit): :func:`decode` checks."""
    rules, deck = rules or RuleConfig(), deck or PUBLISHED
    try:
        return PREFIX + _text(_pack(data, rules, deck))
    except (_Malformed, KeyError, TypeError, ValueError) as exc:
        raise GnomingError(f"this position cannot be written as a position ID: {exc}") from None


def _pack(data: dict, rules: RuleConfig, deck: Deck) -> bytes:
    w = _Writer()
    default = RuleConfig()
    differ = [name for name in RULE_FIELDS if getattr(rules, name) != getattr(default, name)]
    w.bits(bool(differ), 1)
    w.bits(deck.counts != PUBLISHED.counts, 1)
    if deck.counts != PUBLISHED.counts:
        w.gamma(len(deck.counts) - 1)
        for code, n in deck.counts:
            w.bits(_symbol(code), _SYMBOL_BITS)
            w.gamma(n - 1)
    if differ:
        for name in RULE_FIELDS:
            value = getattr(rules, name)
            w.bits(name in differ, 1)
            if name in differ and not isinstance(value, bool):
                w.signed(value)
    P = data["players"]
    index = {code: i + 1 for i, (code, _) in enumerate(deck.counts)}
    width = _card_bits(deck)

    def card(name):
        code = HIDDEN if isinstance(name, str) and name.strip() in ("?", "x", "down") else parse_card(name)
        if code != HIDDEN and code not in index:
            raise _Malformed(f"card {card_name(code)} is not in the deck")
        w.bits(0 if code == HIDDEN else index[code], width)

    w.bits(P - MIN_PLAYERS, 3)
    w.bits(data["me"], 3)
    w.bits(data.get("starter", 0), 3)
    w.bits(data.get("round", 1) - 1, 2)
    w.bits(data.get("finisher", -1) + 1, 3)
    w.gamma(data.get("turn", 0))
    w.gamma(data.get("removed_hazards", 0))
    w.gamma(data["draw_pile"])
    for v in data.get("scores", [0] * P):
        w.signed(v)
    dec = data.get("decision", {"kind": "draw"})
    kind = dec.get("kind", "draw")
    w.bits(DECISIONS.index(kind), 2)
    if kind == "place":
        card(dec["card"])
        w.bits(SOURCES.index(dec.get("source", "draw")), 2)
        w.bits(bool(dec.get("same_card_below", False)), 1)
    elif kind == "hazard_flip":
        w.bits(dec["discarder"], 3)
    if len(data["layouts"]) != P or any(len(row) != LAYOUT for row in data["layouts"]):
        raise _Malformed(f"the layouts are not {P} rows of {LAYOUT} cards")
    for row in data["layouts"]:
        for c in row:
            card(c)
    piles = data.get("piles", [[], []])
    if len(piles) != 2:
        raise _Malformed("there are not two discard piles")
    for pile in piles:
        w.gamma(len(pile))
        for c in pile:
            card(c)
    payload = w.to_bytes()
    return payload + _check(payload)


def _check(payload: bytes) -> bytes:
    return hashlib.blake2b(payload, digest_size=CHECK_BYTES, person=b"gnoming-pos-id").digest()


def _text(raw: bytes) -> str:
    return base64.urlsafe_b64encode(raw).decode("ascii").rstrip("=")


# ------------------------------------------------------------------ decode
def is_position_id(text) -> bool:
    """Whether ``text`` looks like a position ID (any version: ``g<digits>:``), not a file name."""
    head, sep, _ = str(text).strip().partition(":")
    return bool(sep) and len(head) >= 2 and head[0] == "g" and head[1:].isdigit()


def decode(text: str) -> Position:
    """The position of a position ID, validated by the position file's loader (its sentences, naming
    ``position ID``); a malformed ID raises a one-line GnomingError."""
    data, rules, deck = decode_parts(text)
    pos = replace(from_mapping(data, rules, deck, WHERE), origin="")   # describe(): no "position ID: " first
    _canonical(text, lambda: encode(pos))
    return pos


def decode_parts(text: str) -> tuple[dict, RuleConfig, Deck]:
    """(the position-file mapping, the rules, the deck) a position ID holds, unchecked beyond the packing:
    what a page fills its form with.  :func:`decode` is this plus the loader's checks."""
    raw = _raw(text)
    try:
        data, rules, deck = _unpack(raw[:-CHECK_BYTES])
    except _Malformed as exc:
        raise GnomingError(f"{WHERE} {_short(text)} is malformed: {exc}") from None
    _canonical(text, lambda: encode_mapping(data, rules, deck))
    return data, rules, deck


def _canonical(text: str, again) -> None:
    """Refuse an ID that is not the one ID of what it holds (``again()``: that ID, re-encoded): a rules or deck
    flag set with nothing that differs, an option "changed" to its published value, a deck in another order, the
    published deck spelt out.  One position has one ID, so it cannot become two drill cards."""
    try:
        canonical = again()
    except GnomingError:
        canonical = None
    if canonical != text.strip():
        raise GnomingError(f"{WHERE} {_short(text)} is malformed: it is not the one ID of the position it holds "
                           + (f"(that is {_short(canonical)})" if canonical else "(it has none)"))


def _raw(text) -> bytes:
    if not isinstance(text, str) or not text.strip():
        raise GnomingError(f"{WHERE} is empty; it looks like {PREFIX}... (analyse's output shows one)")
    text = text.strip()
    if len(text) > MAX_CHARS:
        raise GnomingError(f"{WHERE} is {len(text):,} characters long; an ID is at most {MAX_CHARS:,}")
    if not text.startswith(PREFIX):
        head = text.partition(":")[0]
        if is_position_id(text):
            raise GnomingError(f"{WHERE} {_short(text)} is of version {head[1:]}, which this gnoming-sim does not "
                               f"read (it reads version {VERSION}: IDs that start with {PREFIX})")
        raise GnomingError(f"{WHERE} {_short(text)} does not start with {PREFIX} (a position ID of this "
                           "gnoming-sim does)")
    body = text[len(PREFIX):]
    bad = next((c for c in body if not (c.isascii() and (c.isalnum() or c in "-_"))), None)
    if bad is not None:
        raise GnomingError(f"{WHERE} {_short(text)} holds {shown(bad)!r}, which is not a character of a position "
                           "ID (A-Z, a-z, 0-9, - and _)")
    try:
        raw = base64.urlsafe_b64decode(body + "=" * (-len(body) % 4))
    except (binascii.Error, ValueError):
        raw = b""   # a length no base64 text has: one character too many or too few
    if len(raw) <= CHECK_BYTES or _check(raw[:-CHECK_BYTES]) != raw[-CHECK_BYTES:] or _text(raw) != body:
        raise GnomingError(f"{WHERE} {_short(text)} does not check out: a character is mistyped, missing or extra")
    return raw


def _unpack(payload: bytes) -> tuple[dict, RuleConfig, Deck]:
    r = _Reader(payload)
    rules_differ, own_deck = r.bits(1), r.bits(1)
    deck = PUBLISHED
    if own_deck:
        kinds = r.gamma() + 1
        if kinds > 43:
            raise _Malformed(f"its deck has {kinds} kinds of card")
        mapping = {}
        for _ in range(kinds):
            code = _code(r.bits(_SYMBOL_BITS))
            mapping[card_name(code)] = r.gamma() + 1
        if len(mapping) != kinds:
            raise _Malformed("its deck names a card twice")
        try:
            deck = Deck.from_mapping(mapping, name="of the position ID", source=f"{WHERE}'s deck")
        except GnomingError as exc:
            raise _Malformed(str(exc)) from None
    rules = RuleConfig()
    if rules_differ:
        values = {}
        default = RuleConfig()
        for name in RULE_FIELDS:
            if r.bits(1):
                old = getattr(default, name)
                values[name] = (not old) if isinstance(old, bool) else r.signed()
        try:
            rules = RuleConfig.from_dict(values, source=f"{WHERE}'s rules")
        except GnomingError as exc:
            raise _Malformed(str(exc)) from None
    width = _card_bits(deck)
    kinds = [code for code, _ in deck.counts]

    def card():
        i = r.bits(width)
        if i > len(kinds):
            raise _Malformed(f"card number {i} is not one of the deck's {len(kinds)} kinds")
        return "?" if i == 0 else card_name(kinds[i - 1])

    P = r.bits(3) + MIN_PLAYERS
    data = {"players": P, "me": r.bits(3), "starter": r.bits(3), "round": r.bits(2) + 1}
    finisher = r.bits(3) - 1
    if finisher >= 0:
        data["finisher"] = finisher
    data.update(turn=r.gamma(), removed_hazards=r.gamma(), draw_pile=r.gamma())
    data["scores"] = [r.signed() for _ in range(P)]
    k = r.bits(2)
    if k >= len(DECISIONS):
        raise _Malformed(f"decision {k} is no decision")
    dec = {"kind": DECISIONS[k]}
    if dec["kind"] == "place":
        dec["card"] = card()
        s = r.bits(2)
        if s >= len(SOURCES):
            raise _Malformed(f"source {s} is no source")
        dec["source"] = SOURCES[s]
        if r.bits(1):
            dec["same_card_below"] = True
    elif dec["kind"] == "hazard_flip":
        dec["discarder"] = r.bits(3)
    data["decision"] = dec
    data["layouts"] = [[card() for _ in range(LAYOUT)] for _ in range(P)]
    data["piles"] = []
    for _ in range(2):
        n = r.gamma()
        if n > deck.size:
            raise _Malformed(f"a discard pile holds {n} cards, more than the deck's {deck.size}")
        data["piles"].append([card() for _ in range(n)])
    r.finish()
    return data, rules, deck


def _short(text: str, limit: int = 40) -> str:
    text = shown(text.strip())
    return text if len(text) <= limit else text[:limit] + "..."
