"""What the board reads: the one input named on its command line (a position, a game record or a review),
and what the page sends (a position as the TOML-shaped dict of :meth:`Position.to_dict`, an imported TOML
text, a rules file's text).

Every check is the loaders' own (:func:`gnoming_sim.game.position.from_mapping`,
:func:`gnoming_sim.game.record.load`, :func:`gnoming_sim.reference.record_check.check`,
:meth:`RuleConfig.from_dict`) and so is every sentence: the page shows a position refused here with the
very line ``analyse --position`` would print.  Nothing here takes a path from the page: texts arrive as
text, and the only files read are those the user named on the command line.
"""
from __future__ import annotations

import json
import math
import os
import tempfile
from dataclasses import dataclass, field, replace
from pathlib import Path

from gnoming_sim.game.cards import HAZARD, card_name
from gnoming_sim.game.deck import Deck
from gnoming_sim.game.errors import GnomingError
from gnoming_sim.game.position import Position, from_mapping
from gnoming_sim.game.rules import MAX_PLAYERS, MIN_PLAYERS, ROUNDS, RuleConfig

MAX_TEXT = 1 << 20   # an imported position or rules file is a few KiB


@dataclass
class Opened:
    """The input named on the command line, as the page shows it.

    ``moves``: a record's or a review's decisions of its seat, in order, each a dict with ``where``,
    ``describe``, ``position`` (TOML-shaped), ``played`` and ``played_label``; a review's also carry
    ``best``, ``best_label``, ``mark``, ``symbol``, ``loss_pp`` and ``win`` (the move played's win chance, %)."""

    kind: str = "none"          # none, position, record, review
    name: str = ""
    position: dict | None = None
    moves: list = field(default_factory=list)
    seat: int | None = None
    summary: dict | None = None
    rules: dict | None = None   # {name, text}: a position ID's rules where they are not the command line's

    def to_dict(self) -> dict:
        return {"kind": self.kind, "name": self.name, "position": self.position, "moves": self.moves,
                "seat": self.seat, "summary": self.summary, "rules": self.rules}


# ------------------------------------------------------------------ the page's texts
def _text_file(text: str, name: str, suffix: str, read):
    """``read(path)`` of ``text`` written to a private temporary file; the loader's sentences name ``name``
    (the file the user picked in the page), not the temporary path."""
    if not isinstance(text, str):
        raise GnomingError(f"{name}: no text")
    if len(text.encode("utf-8", "surrogatepass")) > MAX_TEXT:
        raise GnomingError(f"{name}: larger than {MAX_TEXT >> 10} KiB; a position or rules file is a few KiB")
    try:
        text.encode("utf-8")
    except UnicodeEncodeError as exc:
        raise GnomingError(f"{name}: character {exc.start} is a lone surrogate, not text") from None
    with tempfile.TemporaryDirectory(prefix="gnoming-board-") as tmp:
        path = Path(tmp) / f"upload{suffix}"
        path.write_text(text, encoding="utf-8")
        try:
            return read(path)
        except GnomingError as exc:
            raise GnomingError(str(exc).replace(str(path), name)) from None


def rules_of(text: str | None, name: str = "rules", base: RuleConfig | None = None) -> RuleConfig:
    """The rules of a rules file's text (None: ``base``, the command line's ``--rules`` or the published)."""
    if text is None:
        return base or RuleConfig()
    return _text_file(text, name, ".toml", RuleConfig.from_toml)


def position_of(data, rules: RuleConfig, deck: Deck, where: str = "position") -> Position:
    """The position of a TOML-shaped dict, checked as ``analyse --position`` checks a file: the loader's
    checks, then that the decision has a legal option (the search's own refusal)."""
    from gnoming_sim.search.options import legal_options

    if not isinstance(data, dict):
        raise GnomingError(f"{where}: a position is a table of keys (players, me, layouts, ...)")
    pos = from_mapping(data, rules, deck, where)
    legal_options(pos)
    return pos


def import_text(text: str, name: str, rules: RuleConfig, deck: Deck) -> Position:
    """A position file's text (the file ``analyse --position`` reads), checked."""
    from gnoming_sim.game.position import from_toml

    pos = _text_file(text, name, ".toml", lambda p: from_toml(p, rules, deck))
    return position_of(pos.to_dict(), rules, deck, name)


def position_id(pos: Position) -> str | None:
    """The position's ID (:mod:`gnoming_sim.game.position_id`), None where it cannot be written as one."""
    from gnoming_sim.game.position_id import encode

    try:
        return encode(pos)
    except GnomingError:
        return None


def from_position_id(text, rules: RuleConfig, deck: Deck) -> tuple[Position, dict | None]:
    """The position of a position ID, checked by the loader (its sentence where it is impossible), and its
    rules as a rules file's {name, text} where they are not ``rules``."""
    from gnoming_sim.game.position_id import decode

    if not isinstance(text, str):
        raise GnomingError("position ID: no text")
    pos = decode(text)
    if pos.deck.counts != deck.counts:
        raise GnomingError("position ID: its deck is not the board's; start the board with that --deck")
    pos = position_of(pos.to_dict(), pos.rules, deck, "position ID")
    return pos, (None if pos.rules == rules else {"name": "the position ID's rules", "text": pos.rules.to_toml()})


def draw_pile_for(data: dict, deck: Deck) -> int | None:
    """The draw pile a position's cards leave (the deck minus every card seen, minus the face-down
    cards), so the page can fill it in; None where the dict is not yet readable (the loader will say why)."""
    try:
        from gnoming_sim.game.cards import parse_card

        seen = 0
        down = 0
        for row in data["layouts"]:
            for c in row:
                if isinstance(c, str) and c.strip().lower() in ("?", "x", "down"):
                    down += 1
                else:
                    parse_card(c)
                    seen += 1
        seen += sum(len(p) for p in data.get("piles", [[], []]))
        seen += int(data.get("removed_hazards", 0))
        if data.get("decision", {}).get("kind") == "place":
            seen += 1
        return max(0, deck.size - seen - down)
    except (KeyError, TypeError, ValueError, AttributeError):
        return None


def to_toml(pos: Position) -> str:
    """The position as a TOML file ``analyse --position`` reads (the layout of ``examples/position.toml``)."""
    d = pos.to_dict()

    def cards(row):
        return "[" + ", ".join(json.dumps(c) for c in row) + "]"

    out = ["# A position for `gnoming-sim analyse --position FILE` (written by `gnoming-sim board`)",
           f"players = {d['players']}", f"me = {d['me']}", f"starter = {d['starter']}", f"round = {d['round']}",
           f"turn = {d['turn']}", f"scores = [{', '.join(str(v) for v in d['scores'])}]"]
    if "finisher" in d:
        out.append(f"finisher = {d['finisher']}")
    out += [f"removed_hazards = {d['removed_hazards']}", f"draw_pile = {d['draw_pile']}", "layouts = ["]
    out += [f"  {cards(row)}," for row in d["layouts"]]
    out += ["]", f"piles = [{cards(d['piles'][0])}, {cards(d['piles'][1])}]", "", "[decision]"]
    for key, value in d["decision"].items():
        out.append(f"{key} = {json.dumps(value) if isinstance(value, str) else str(value).lower()}")
    return "\n".join(out) + "\n"


def facts(deck: Deck, rules: RuleConfig) -> dict:
    """What the page's editor offers: the table sizes, the rounds, the deck's cards and their counts."""
    codes = sorted(dict(deck.counts))
    return {"players": [MIN_PLAYERS, MAX_PLAYERS], "rounds": ROUNDS, "max_turns": rules.max_turns,
            "cards": [card_name(c) for c in codes], "counts": {card_name(c): deck.count(c) for c in codes},
            "deck": deck.name, "deck_size": deck.size, "hidden": "?", "hazard": card_name(HAZARD)}


# ------------------------------------------------------------------ the command line's input
def open_input(path, rules: RuleConfig, deck: Deck) -> Opened:
    """The input named on the command line: a position or a record (TOML; a record has ``rounds``) or a
    review (``review.json`` of ``gnoming-sim review``), read and checked by their loaders."""
    from gnoming_sim.game.input_file import check_regular, read_text, read_toml

    if path is None:
        return Opened()
    name = str(path)
    from gnoming_sim.game.position_id import is_position_id

    if is_position_id(name) and not os.path.lexists(name):
        pos, id_rules = from_position_id(name, rules, deck)
        return Opened("position", "position ID", pos.to_dict(), rules=id_rules)
    check_regular(path, "board input")
    if name.lower().endswith(".json"):
        data = _json(read_text(path, "review"), f"review file {name}")
        if isinstance(data, dict) and "rounds" in data and "format" in data:
            return _record(path, rules, deck)
        return _review(data, name, rules, deck)
    data = read_toml(path, "board input")
    if "rounds" in data or "format" in data:
        return _record(path, rules, deck)
    pos = position_of(data, rules, deck, name)
    return Opened("position", name, pos.to_dict())


def _record(path, rules: RuleConfig, deck: Deck) -> Opened:
    """A game record: its seat's decisions (positions and moves played), unmarked."""
    from gnoming_sim.game.record import load as load_record
    from gnoming_sim.game.record_trace import decisions
    from gnoming_sim.reference.record_check import check
    from gnoming_sim.search.options import legal_options

    record = load_record(path)
    checked = check(record, rules, deck)
    found = decisions(checked.deals, checked.trace, record.players, record.seat, rules, deck,
                      checked.round_scores, record.origin)
    moves = []
    for d in found:
        labels = {o.key: o.label for o in legal_options(d.position)}
        moves.append({"where": d.where, "describe": told(d.position), "position": d.position.to_dict(),
                      "played": d.played, "played_label": labels.get(d.played, d.played)})
    return Opened("record", str(path), moves[0]["position"] if moves else None, moves, record.seat)


# ------------------------------------------------------------------ a review.json, checked at the door
def _json(text: str, what: str):
    """JSON text read as JSON is: no NaN or Infinity (Python's reader takes them, JSON has none, and no
    answer could send them on), no number too large for a float, nesting the reader can follow."""
    def refuse(token):
        raise ValueError(f"{token} is not a JSON number")

    def finite(token):
        if not math.isfinite(float(token)):
            refuse(token)
        return float(token)

    try:
        return json.loads(text, parse_constant=refuse, parse_float=finite)
    except RecursionError:
        raise GnomingError(f"{what} is not valid JSON: nested too deeply") from None
    except ValueError as exc:
        raise GnomingError(f"{what} is not valid JSON: {exc}") from None


def _kind(value) -> str:
    """The JSON name of ``value``'s type, for a sentence that says what was found."""
    if value is None:
        return "null"
    if isinstance(value, bool):
        return "a boolean"
    if isinstance(value, (int, float)):
        return f"the number {value!r}" if len(repr(value)) <= 30 else "a number"
    return {str: "a string", list: "a list", dict: "a table"}.get(type(value), type(value).__name__)


class _Fields:
    """One table of a review.json: its fields read with their types checked; the sentence names the field."""

    def __init__(self, data, where: str):
        if not isinstance(data, dict):
            raise GnomingError(f"{where} must be a table, not {_kind(data)}")
        self.data, self.where = data, where

    def _bad(self, key: str, want: str):
        return GnomingError(f"{self.where}: '{key}' must be {want}, not {_kind(self.data[key])}")

    def text(self, key: str, default=None, optional: bool = True):
        value = self.data.get(key, default)
        if value is None and optional:
            return default
        if not isinstance(value, str) or len(value) > 10_000:
            raise self._bad(key, "a string" if optional else "a string (it is needed)")
        try:
            value.encode("utf-8")
        except UnicodeEncodeError as exc:
            raise GnomingError(f"{self.where}: '{key}': character {exc.start} is a lone surrogate, not text") from None
        return value

    def number(self, key: str, low: float, high: float):
        """A finite number in low..high, or None where the field is absent or null."""
        value = self.data.get(key)
        if value is None:
            return None
        try:
            ok = isinstance(value, (int, float)) and not isinstance(value, bool) and low <= float(value) <= high
        except OverflowError:   # an integer past any float
            ok = False
        if not ok:
            raise self._bad(key, f"a number in {low:g}..{high:g}")
        return float(value)

    def integer(self, key: str, low: int, high: int):
        value = self.data.get(key)
        if value is None:
            return None
        if isinstance(value, bool) or not isinstance(value, int) or not low <= value <= high:
            raise self._bad(key, f"an integer in {low}..{high}")
        return value

    def flag(self, key: str) -> bool:
        value = self.data.get(key, False)
        if value is None:
            return False
        if not isinstance(value, bool):
            raise self._bad(key, "true or false")
        return value

    def table(self, key: str):
        value = self.data.get(key)
        return None if value is None else _Fields(value, f"{self.where}: '{key}'")

    def tables(self, key: str) -> list:
        value = self.data.get(key)
        if value is None:
            return []
        if not isinstance(value, list):
            raise self._bad(key, "a list")
        return [_Fields(x, f"{self.where}: '{key}' {i}") for i, x in enumerate(value)]


def _review(data, name: str, rules: RuleConfig, deck: Deck) -> Opened:
    """A review: its graded decisions with their marks, the loss and the move played's win chance.  Every
    field the page shows is checked for its type here (finite numbers, strings, tables), so a bad file is
    one line at start-up and the page is never sent what it cannot show."""
    what = f"review file {name}"
    if not isinstance(data, dict) or not isinstance(data.get("decisions"), list):
        raise GnomingError(f"{what}: no 'decisions' list (the review.json of `gnoming-sim review`)")
    top = _Fields(data, what)
    game = top.table("game") or _Fields({}, f"{what}: 'game'")
    if game.data.get("rules") is not None:
        if not isinstance(game.data["rules"], dict):
            raise GnomingError(f"{what}: 'game': 'rules' must be the table of the review's rules options "
                               f"(as `review` writes it), not {_kind(game.data['rules'])}")
        rules = RuleConfig.from_dict(game.data["rules"], f"{what}: game.rules")
    moves = []
    for i, g in enumerate(top.tables("decisions")):
        g.where = where = f"{what}: decision {i}"
        if "position" not in g.data or "played" not in g.data:
            raise GnomingError(f"{where}: needs 'position' and 'played'")
        played = g.text("played", optional=False)
        pos = position_of(g.data["position"], rules, deck, where)
        win = None
        for o in g.tables("options"):
            if o.text("key") == played:
                win = o.number("p_win_adj", -1, 2)   # regression-adjusted: may stray a little past 0..1
                win = o.number("p_win", 0, 1) if win is None else win
                win = None if win is None else 100 * win
        loss_win = g.table("loss_win")
        loss = None if loss_win is None else loss_win.number("est", -1, 1)
        best = g.text("best")
        moves.append({"where": g.text("where", f"decision {i}"), "describe": told(pos),
                      "position": pos.to_dict(), "played": played,
                      "played_label": g.text("played_label", played), "best": best,
                      "best_label": g.text("best_label", best), "mark": g.text("mark"),
                      "symbol": g.text("symbol", ""), "forced": g.flag("forced"),
                      "loss_pp": None if loss is None else 100 * loss, "win": win})
    seat = game.integer("seat", 0, MAX_PLAYERS - 1)
    return Opened("review", name, moves[0]["position"] if moves else None, moves, seat, _summary(top, what))


def _summary(top: _Fields, what: str) -> dict | None:
    """The summary the page shows (its verdict, error rate, graded decisions and marks), checked; the rest
    of the review's summary is not the page's and is not sent."""
    s = top.table("summary")
    if s is None:
        return None
    marks = s.table("marks") or _Fields({}, f"{what}: 'summary': 'marks'")
    counts = {k: marks.integer(k, 0, 10**6) for k in ("ok", "inaccuracy", "mistake", "blunder")}
    return {"verdict": s.text("verdict"), "error_rate_pp": s.number("error_rate_pp", 0, 100),
            "graded": s.integer("graded", 0, 10**6), "marks": {k: v for k, v in counts.items() if v is not None}}


def told(pos: Position) -> str:
    """The position's one-line description without where it comes from (the page shows that once)."""
    return replace(pos, origin="").describe()


def shown_name(path) -> str:
    """The input's name as the page shows it: the file name alone (the page need not know the folders)."""
    # a name that is not UTF-8 (its bytes kept as lone surrogates) shown with its escapes: the page gets text
    return os.path.basename(str(path)).encode("utf-8", "backslashreplace").decode("utf-8") if path else ""

