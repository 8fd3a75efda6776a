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
    """The position's ID (:mod:`gnoming_sim.search.position_id`), None where it cannot be written as one."""
    from gnoming_sim.search.position_id import encode

    try:
        return encode(pos)
    except GnomingError:
        return None


def from_position_id(text, rules: RuleConfig, deck: Deck) -> tuple[Position, dict | None]:
    """The position of a position ID, checked by the loader (its sentence where it is impossible), and its
    rules as a rules file's {name, text} where they are not ``rules``."""
    from gnoming_sim.search.position_id import decode

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
    from gnoming_sim.search.position_id import is_position_id

    if is_position_id(name) and not os.path.lexists(name):
        pos, id_rules = from_position_id(name, rules, deck)
        return Opened("position", "position ID", pos.to_dict(), rules=id_rules)
    check_regular(path, "board input")
    if name.lower().endswith(".json"):
        try:
            data = json.loads(read_text(path, "review"))
        except ValueError as exc:
            raise GnomingError(f"review file {name} is not valid JSON: {exc}") from None
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
    from gnoming_sim.game import record as R
    from gnoming_sim.game.record_trace import decisions
    from gnoming_sim.reference.record_check import check
    from gnoming_sim.search.options import legal_options

    record = R.load(path)
    checked = check(record, rules, deck)
    found = decisions(checked.deals, checked.trace, record.players, record.seat, rules, deck,
                      checked.round_scores, record.origin)
    moves = []
    for d in found:
        labels = {o.key: o.label for o in legal_options(d.position)}
        moves.append({"where": d.where, "describe": told(d.position), "position": d.position.to_dict(),
                      "played": d.played, "played_label": labels.get(d.played, d.played)})
    return Opened("record", str(path), moves[0]["position"] if moves else None, moves, record.seat)


def _review(data, name: str, rules: RuleConfig, deck: Deck) -> Opened:
    """A review: its graded decisions with their marks, the loss and the move played's win chance."""
    if not isinstance(data, dict) or not isinstance(data.get("decisions"), list):
        raise GnomingError(f"review file {name}: no 'decisions' list (the review.json of `gnoming-sim review`)")
    game = data.get("game") or {}
    if isinstance(game.get("rules"), dict):
        rules = RuleConfig.from_dict(game["rules"], f"review file {name}: game.rules")
    moves = []
    for i, g in enumerate(data["decisions"]):
        where = f"review file {name}: decision {i}"
        if not isinstance(g, dict) or "position" not in g or "played" not in g:
            raise GnomingError(f"{where}: needs 'position' and 'played'")
        pos = position_of(g["position"], rules, deck, where)
        played = next((o for o in g.get("options", []) if o.get("key") == g["played"]), None)
        win = None
        if played is not None:
            win = played.get("p_win_adj", played.get("p_win"))
            win = None if win is None else 100 * float(win)
        loss = (g.get("loss_win") or {}).get("est")
        moves.append({"where": g.get("where", f"decision {i}"), "describe": told(pos),
                      "position": pos.to_dict(), "played": g["played"],
                      "played_label": g.get("played_label", g["played"]), "best": g.get("best"),
                      "best_label": g.get("best_label", g.get("best")), "mark": g.get("mark"),
                      "symbol": g.get("symbol", ""), "forced": bool(g.get("forced")),
                      "loss_pp": None if loss is None else 100 * float(loss), "win": win})
    seat = game.get("seat") if isinstance(game.get("seat"), int) else None
    return Opened("review", name, moves[0]["position"] if moves else None, moves, seat, data.get("summary"))


def told(pos: Position) -> str:
    """The position's one-line description without where it comes from (the page shows that once)."""
    return replace(pos, origin="").describe()


def shown_name(path) -> str:
    """The input's name as the page shows it: the file name alone (the page need not know the folders)."""
    return os.path.basename(str(path)) if path else ""

