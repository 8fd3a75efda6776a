"""A position as the player to move sees it, with its pending decision: the input of a rollout analysis.

A :class:`Position` holds what RULES.md §7 lets the player to move know (every face-up card,
the discard piles, the hazards removed, the draw pile's size, scores, whose turn it is) and
nothing else; the true hidden cards travel beside it only as ``truth`` (from a simulated
game), for ``--peek``.  Two ways in: :func:`from_toml` (a file a person writes, validated
down to one-line errors naming the key) and :func:`gnoming_sim.game.replay.from_trace` (a
simulated game replayed from its trace up to the start of one turn).

Pending decisions:

``draw``   draw pile (option key ``draw``), or the top of discard pile 0 / 1 (``pile0``, ``pile1``)
``place``  the card in ``hand``, taken from ``source`` (0 draw pile, 1 / 2 discard pile 0 / 1):
           put it at position 0..8 (``pos0`` .. ``pos8``) or throw it away (``discard``)
``hazard_flip``  seat ``discarder`` has just removed a hazard (counted in ``removed``), and the
           seats before the player in turn order have made their flips: turn face-down card q
           up (``flip0`` .. ``flip8``) or not (``decline``)
"""
from __future__ import annotations

from dataclasses import dataclass, field

import numpy as np

from gnoming_sim.game.cards import HAZARD, HIDDEN, MAX_VALUE, MIN_VALUE, NO_CARD, card_name, parse_card
from gnoming_sim.game.deck import Deck
from gnoming_sim.game.errors import GnomingError
from gnoming_sim.game.naming import pile_name, round_turn_name
from gnoming_sim.game.rules import (HAZARD_FLIP_MIN_FACE_DOWN, INITIAL_FLIPS, LAYOUT, MAX_PLAYERS, MIN_PLAYERS, ROUNDS,
                                    RuleConfig)
from gnoming_sim.game.toml_io import read_toml

DECISIONS = ("draw", "place", "hazard_flip")
SOURCES = ("draw", "pile0", "pile1")
HIDDEN_NAMES = ("?", "x", "down")


@dataclass(frozen=True)
class Option:
    """One legal answer to the pending decision: how the kernel forces it (``src`` / ``pos``,
    -1 = the base policy decides) and whether it ends the player's face-down cards (finishes)."""

    key: str
    label: str
    src: int
    pos: int
    finishes: bool = False
    flip: int = -1


@dataclass(frozen=True)
class Position:
    """What the player to move (``me``) knows, and the decision pending.

    layouts  int8[P, 9]  every layout as seen: the card if face up, ``HIDDEN`` if face down
    piles    two tuples of card codes, bottom first (after a draw from a pile, without that card)
    truth    (lay int8[P, 9], draw int8[draw_n]) the true hidden cards (simulated games only)
    """

    players: int
    me: int
    starter: int
    round: int            # 0..2
    turn: int             # turns already played in this round (all seats)
    finisher: int         # -1: nobody has finished yet
    scores: tuple         # game scores of the finished rounds, per seat
    layouts: np.ndarray
    piles: tuple
    removed: int          # hazards removed from play this round
    draw_n: int
    decision: str = "draw"
    hand: int = NO_CARD
    source: int = -1
    discarder: int = -1   # hazard_flip: the seat that removed the hazard
    rules: RuleConfig = field(default_factory=RuleConfig)
    deck: Deck | None = None
    truth: tuple | None = None
    origin: str = ""

    # ------------------------------------------------------------ derived facts
    def face_down(self) -> np.ndarray:
        """int64[P]: face-down cards per seat."""
        return (self.layouts == HIDDEN).sum(axis=1).astype(np.int64)

    def seen(self) -> list[int]:
        """Every card the player has seen and knows where it is: face up, on a pile, removed, in hand."""
        out = [int(c) for c in self.layouts.ravel() if c != HIDDEN]
        out += [int(c) for pile in self.piles for c in pile]
        out += [HAZARD] * self.removed
        if self.hand != NO_CARD:
            out.append(int(self.hand))
        return out

    def unseen(self) -> np.ndarray:
        """int8[n]: the unseen multiset (deck minus :meth:`seen`), sorted; n = face-down cards + draw pile."""
        left = dict(self.deck.counts)
        for c in self.seen():
            left[c] = left.get(c, 0) - 1
        return np.array(sorted(c for c, n in left.items() for _ in range(max(n, 0))), dtype=np.int8)

    def describe(self) -> str:
        """One line: where the position comes from, the round and turn (:mod:`~gnoming_sim.game.naming`'s
        words, as ``play`` tells them), who moves, and the decision."""
        what = {"draw": "draw", "hazard_flip": f"flip a card for the hazard seat {self.discarder} removed"}.get(
            self.decision) or (
            f"place the {card_name(self.hand)} taken from "
            f"{'the draw pile' if self.source == 0 else pile_name(self.source - 1)}")
        fin = "" if self.finisher < 0 else f", seat {self.finisher} has finished"
        where = f"{self.origin}: " if self.origin else ""   # a simulated game's names its game turn
        return (f"{where}{round_turn_name(self.round, self.turn)}, seat {self.me} to move "
                f"({self.players} players{fin}); decision: {what}")

    def to_dict(self) -> dict:
        """The position as a TOML-shaped dict (what :func:`from_mapping` reads back)."""
        def names(cards):
            return [("?" if c == HIDDEN else card_name(int(c))) for c in cards]
        d = {"players": self.players, "me": self.me, "starter": self.starter, "round": self.round + 1,
             "turn": self.turn, "scores": list(self.scores), "draw_pile": self.draw_n,
             "removed_hazards": self.removed, "layouts": [names(r) for r in self.layouts],
             "piles": [names(p) for p in self.piles]}
        if self.finisher >= 0:
            d["finisher"] = self.finisher
        dec = {"kind": self.decision}
        if self.decision == "place":
            dec.update(card=card_name(self.hand), source=SOURCES[self.source])
            if self._pile_top_is_hand():
                dec["same_card_below"] = True
        if self.decision == "hazard_flip":
            dec["discarder"] = self.discarder
        d["decision"] = dec
        return d

    def _pile_top_is_hand(self) -> bool:
        """Whether the pile the card in hand came from shows that card again on top."""
        if self.decision != "place" or self.source < 1:
            return False
        pile = self.piles[self.source - 1]
        return bool(pile) and int(pile[-1]) == int(self.hand)

    # ------------------------------------------------------------ checks
    def actor(self) -> int:
        """The seat whose turn it is: the player to move, or in a hazard flip the seat that removed it."""
        return self.discarder if self.decision == "hazard_flip" else self.me

    def validate(self, where: str = "position") -> "Position":
        """Raise a one-line GnomingError naming the key at fault if the position cannot happen
        (:func:`position_problem` returns the same sentence)."""
        P = self.players
        fd = self.face_down()
        if self.deck is None:
            raise GnomingError(f"{where}: no deck")
        for k, p in enumerate(self.piles):
            if HAZARD in p:
                raise GnomingError(f"{where}: key 'piles': pile {k} holds a hazard; hazards never go on a discard pile")
        if self.decision == "place":
            if self.hand == NO_CARD or self.source not in (0, 1, 2):
                raise GnomingError(f"{where}: key 'decision': a place decision needs the card in hand and its source")
            if self.hand == HAZARD and self.source >= 1:
                raise GnomingError(f"{where}: key 'decision.card': a hazard taken from discard pile {self.source - 1} "
                                   f"(decision.source = {SOURCES[self.source]}) cannot be: a hazard never lies on a "
                                   "discard pile (it is removed from the game)")
        have = {}
        for c in self.seen():
            have[c] = have.get(c, 0) + 1
        for c, n in sorted(have.items()):
            if n > self.deck.count(c):
                from gnoming_sim.game.naming import times   # "seen once", not "seen 1 times"
                raise GnomingError(f"{where}: card {card_name(c)} is seen {times(n)} (layouts, piles, hand, "
                                   f"removed_hazards) but the deck '{self.deck.name}' holds {self.deck.count(c)}")
        unseen = self.deck.size - sum(have.values())
        if unseen != int(fd.sum()) + self.draw_n:
            raise GnomingError(
                f"{where}: key 'draw_pile' = {self.draw_n} is impossible: the deck leaves {unseen} unseen cards "
                f"for {int(fd.sum())} face-down cards, so the draw pile must hold {unseen - int(fd.sum())}")
        most = LAYOUT - INITIAL_FLIPS
        over = [s for s in range(P) if fd[s] > most]
        if over:   # a card once face up never turns down again
            s = over[0]
            raise GnomingError(f"{where}: key 'layouts': seat {s} has {fd[s]} face-down cards at turn {self.turn}, "
                               f"which cannot happen: every seat turns {INITIAL_FLIPS} cards up before the first "
                               f"turn, so it has at most {most}")
        if self.finisher >= 0:
            if self.finisher == self.me:
                raise GnomingError(f"{where}: key 'finisher': the finisher (seat {self.me}) has no turn left")
            if fd[self.finisher] != 0:
                raise GnomingError(f"{where}: key 'finisher': seat {self.finisher} still has face-down cards")
        if self.decision != "place" and self.hand != NO_CARD:
            raise GnomingError(f"{where}: key 'decision.card': a {self.decision} decision has no card in hand")
        if self.decision == "hazard_flip":
            if not 0 <= self.discarder < P or self.discarder == self.me:
                raise GnomingError(f"{where}: key 'decision.discarder' must be another seat (0..{P - 1}, not {self.me})")
            if self.discarder == self.finisher:
                raise GnomingError(f"{where}: key 'decision.discarder': the finisher (seat {self.finisher}) has no turn")
            if self.removed < 1:
                raise GnomingError(f"{where}: key 'removed_hazards' must count the hazard just removed (>= 1)")
            if fd[self.me] < HAZARD_FLIP_MIN_FACE_DOWN:
                raise GnomingError(f"{where}: key 'layouts': seat {self.me} has {fd[self.me]} face-down card(s); "
                                   f"a hazard flip needs {HAZARD_FLIP_MIN_FACE_DOWN} (the final card is protected)")
        self._check_turn_order(where, fd)
        return self

    def _check_turn_order(self, where: str, fd: np.ndarray) -> None:
        """The round's clock: the starter the rules give the round, the seat whose turn ``turn`` is,
        a finisher that has had its turn, and who may show no face-down card or more than its
        first flips (RULES.md §2 and §4)."""
        P, turn, actor, f = self.players, self.turn, self.actor(), self.finisher
        first = self.round % P if self.rules.rotate_start else 0
        if self.starter != first:
            why = ("each round starts one seat further left" if self.rules.rotate_start
                   else "rotate_start is off, so every round starts with seat 0")
            raise GnomingError(f"{where}: key 'starter' = {self.starter} is impossible: round {self.round + 1} "
                               f"at {P} players starts with seat {first} ({why})")
        due = (self.starter + turn) % P
        if actor != due:
            key = "decision.discarder" if self.decision == "hazard_flip" else "me"
            raise GnomingError(f"{where}: key 'turn' = {turn} contradicts '{key}' = {actor}: {turn} turns after "
                               f"seat {self.starter} began the round, seat {due} has the turn at {P} players")
        played = [0] * P       # turns each seat has begun this round (a hazard flip: the discarder's counts)
        for k in range(turn + (1 if self.decision == "hazard_flip" else 0)):
            played[(self.starter + k) % P] += 1
        if f >= 0 and played[f] == 0:
            raise GnomingError(f"{where}: key 'finisher': seat {f} has had no turn yet this round (turn {turn}, "
                               f"seat {self.starter} began), so it cannot have finished")
        # seats whose final-lap turn is over (after the finisher, before the seat whose turn it is)
        done = {(f + i) % P for i in range(1, (actor - f) % P)} if f >= 0 else set()
        for s in range(P):
            if fd[s] == 0 and s != f and s not in done and not (s == actor and self.decision == "hazard_flip"):
                if s == self.me and f < 0:
                    raise GnomingError(f"{where}: key 'layouts': seat {s} (to move) has no face-down card, "
                                       "so it has finished: set 'finisher'")
                if f < 0:
                    raise GnomingError(f"{where}: key 'layouts': seat {s} has no face-down card, so it has "
                                       "finished: set 'finisher'")
                raise GnomingError(f"{where}: key 'layouts': seat {s} has no face-down card but its final turn "
                                   f"after seat {f} finished is still to come; only the finisher could have none")
            up = LAYOUT - int(fd[s])
            if played[s] == 0 and up > INITIAL_FLIPS + self.removed:
                more = f" and one for each of the {self.removed} hazard(s) removed" if self.removed else ""
                raise GnomingError(f"{where}: key 'layouts': seat {s} shows {up} face-up cards but has had no turn "
                                   f"yet this round (turn {turn}, seat {self.starter} began): only its "
                                   f"{INITIAL_FLIPS} first flips{more} can show")


# ------------------------------------------------------------------ TOML
_TOP_KEYS = {"players", "me", "starter", "round", "turn", "finisher", "scores", "layouts", "piles",
             "removed_hazards", "draw_pile", "decision"}
_DECISION_KEYS = {"kind", "card", "source", "discarder", "same_card_below"}


def from_toml(path, rules: RuleConfig | None = None, deck: Deck | None = None) -> Position:
    """A position from a TOML file (format: README, ``examples/position.toml``), validated."""
    return from_mapping(read_toml(path, "position"), rules, deck, str(path))


def position_problem(position, rules: RuleConfig | None = None, deck: Deck | None = None,
                     where: str = "position") -> str | None:
    """None if ``position`` (a :class:`Position`, or a dict shaped as a position file, what
    :func:`from_mapping` reads) can happen, else the one sentence ``analyse --position`` prints
    for it: the same checks, for a caller that shows the sentence (a web page) instead of raising."""
    try:
        if isinstance(position, Position):
            position.validate(where)
        elif isinstance(position, dict):
            from_mapping(position, rules, deck, where)
        else:
            return f"{where}: a position is a table of keys (players, me, layouts, ...), not {type(position).__name__}"
    except GnomingError as exc:
        return str(exc)
    return None


def from_mapping(data: dict, rules: RuleConfig | None = None, deck: Deck | None = None,
                 where: str = "position") -> Position:
    """A position from a dict shaped as a position file, validated (a one-line GnomingError)."""
    from gnoming_sim.game.deck import PUBLISHED

    rules = rules or RuleConfig()
    deck = deck or PUBLISHED
    for key in data:
        if key not in _TOP_KEYS:
            raise GnomingError(f"{where}: unknown key '{key}' (known: {', '.join(sorted(_TOP_KEYS))})")
    for key in ("players", "me", "layouts", "draw_pile"):
        if key not in data:
            raise GnomingError(f"{where}: missing key '{key}'")
    P = _int(data, "players", where, MIN_PLAYERS, MAX_PLAYERS)
    me = _int(data, "me", where, 0, P - 1)
    rnd = _int(data, "round", where, 1, ROUNDS, default=1) - 1
    starter = _int(data, "starter", where, 0, P - 1, default=rnd % P if rules.rotate_start else 0)
    turn = _int(data, "turn", where, 0, rules.max_turns - 1, default=0)
    finisher = _int(data, "finisher", where, 0, P - 1, default=-1)
    removed = _int(data, "removed_hazards", where, 0, deck.size, default=0)
    draw_n = _int(data, "draw_pile", where, 0, deck.size)
    scores = data.get("scores", [0] * P)
    if (not isinstance(scores, list) or len(scores) != P
            or any(isinstance(v, bool) or not isinstance(v, int) for v in scores)):
        raise GnomingError(f"{where}: key 'scores' must be a list of {P} integers (game scores so far)")
    reach = rnd * round_score_bound(rules)
    for s, v in enumerate(scores):
        if not -reach <= v <= reach:
            raise GnomingError(f"{where}: key 'scores': seat {s} has {v}, but {rnd} finished round(s) can only "
                               f"reach -{reach}..{reach}")
    lays = data["layouts"]
    if not isinstance(lays, list) or len(lays) != P:
        raise GnomingError(f"{where}: key 'layouts' must be a list of {P} layouts (one per seat)")
    layouts = np.empty((P, LAYOUT), dtype=np.int8)
    for s, row in enumerate(lays):
        if not isinstance(row, list) or len(row) != LAYOUT:
            n = len(row) if isinstance(row, list) else "no list of"
            raise GnomingError(f"{where}: key 'layouts': seat {s} has {n} cards; a layout is {LAYOUT} "
                               "(row-major, '?' for face down)")
        for q, item in enumerate(row):
            layouts[s, q] = _card(item, f"{where}: key 'layouts': seat {s} position {q}", hidden_ok=True)
    piles_in = data.get("piles", [[], []])
    if not isinstance(piles_in, list) or len(piles_in) != 2 or not all(isinstance(p, list) for p in piles_in):
        raise GnomingError(f"{where}: key 'piles' must be two lists of cards (discard piles 0 and 1, bottom first)")
    piles = tuple(tuple(_card(c, f"{where}: key 'piles': pile {k}") for c in p) for k, p in enumerate(piles_in))
    dec = data.get("decision", {"kind": "draw"})
    if not isinstance(dec, dict):
        raise GnomingError(f"{where}: key 'decision' must be a table (kind = \"draw\" or \"place\")")
    for key in dec:
        if key not in _DECISION_KEYS:
            raise GnomingError(f"{where}: unknown key 'decision.{key}' (known: {', '.join(sorted(_DECISION_KEYS))})")
    kind = dec.get("kind", "draw")
    if kind not in DECISIONS:
        raise GnomingError(f"{where}: key 'decision.kind' must be one of {', '.join(DECISIONS)}, got {kind!r}")
    hand, source = NO_CARD, -1
    if kind == "place":
        if "card" not in dec:
            raise GnomingError(f"{where}: missing key 'decision.card' (the card in hand)")
        hand = _card(dec["card"], f"{where}: key 'decision.card'")
        src = dec.get("source", "draw")
        if src not in SOURCES:
            raise GnomingError(f"{where}: key 'decision.source' must be one of {', '.join(SOURCES)}, got {src!r}")
        source = SOURCES.index(src)
    elif "card" in dec or "source" in dec:
        raise GnomingError(f"{where}: key 'decision.card': a {kind} decision has no card in hand")
    twin = dec.get("same_card_below", False)
    if not isinstance(twin, bool):
        raise GnomingError(f"{where}: key 'decision.same_card_below' must be true or false, got {twin!r}")
    if twin and (kind != "place" or source < 1):
        raise GnomingError(f"{where}: key 'decision.same_card_below' belongs to a place decision from a pile")
    discarder = -1
    if kind == "hazard_flip":
        if "discarder" not in dec:
            raise GnomingError(f"{where}: missing key 'decision.discarder' (the seat that removed the hazard)")
        discarder = _int(dec, "discarder", f"{where}: decision", 0, P - 1)
    elif "discarder" in dec:
        raise GnomingError(f"{where}: key 'decision.discarder' belongs to a hazard_flip decision")
    pos = Position(P, me, starter, rnd, turn, finisher, tuple(int(v) for v in scores), layouts, piles, removed,
                   draw_n, kind, hand, source, discarder, rules, deck, None, where)
    if pos._pile_top_is_hand() and not twin:
        # the usual slip: the card taken is still listed on its pile (a pile is listed after the draw)
        k = source - 1
        raise GnomingError(f"{where}: key 'piles': pile {k} still shows the {card_name(hand)} taken from it "
                           f"(decision.source = pile{k}); list the piles as they are after the draw, or set "
                           "decision.same_card_below = true if another card of that value lay beneath it")
    return pos.validate(where)


def round_score_bound(rules: RuleConfig) -> int:
    """The largest round score in size under ``rules``: every card at the largest value a card can
    score (a house deck's values reach +-20, a negative one times ``negative_multiplier``, a hazard
    ``hazard_value``, a mulligan ``mulligan_value``; a matched line scores at most -20 for three
    cards), plus the early-finish bonus."""
    card = max(MAX_VALUE, -MIN_VALUE * rules.negative_multiplier, rules.hazard_value, abs(rules.mulligan_value))
    return LAYOUT * card + rules.early_finish_bonus


def _int(data, key, where, low, high, default=None):
    value = data.get(key, default)
    if isinstance(value, bool) or not isinstance(value, int) or not (low <= value <= high or value == default):
        raise GnomingError(f"{where}: key '{key}' must be an integer in {low}..{high}, got {value!r}")
    return value


def _card(item, where, hidden_ok=False):
    if hidden_ok and isinstance(item, str) and item.strip().lower() in HIDDEN_NAMES:
        return HIDDEN
    try:
        return parse_card(item)
    except ValueError as exc:
        extra = " ('?' for a face-down card)" if hidden_ok else ""
        raise GnomingError(f"{where}: {exc}{extra}") from None
