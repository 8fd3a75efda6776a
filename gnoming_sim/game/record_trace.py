"""A game record (:mod:`gnoming_sim.game.record`) as a kernel trace, and back; its decisions as positions.

:func:`build` turns a record into the trace format of :mod:`gnoming_sim.game.trace` and a deal of
every round consistent with it: the cards the record shows are put where it shows them (a card
turned up lies there since the deal, a blind draw was the draw pile's next card, a draw after a
reshuffle comes from the cards reshuffled), the hidden rest is filled from the deck.  The table is
the one walker's (:class:`gnoming_sim.game.replay.Table`), so a card the record names that is not
the one lying there is caught on the spot; the rules themselves (turn order, bounces, forced
discards, finishing) are checked afterwards by the referee over the built trace (the caller's
job: :func:`gnoming_sim.reference.record_check.check`), which says the record index at fault:
``origins[i]`` names the record's turn and field of trace record ``i``.

:func:`from_trace` is the other way (a simulated game as a record, seen from one seat);
:func:`decisions` walks a trace and yields the seat's decisions as :class:`Position` with the
option played.
"""
from __future__ import annotations

from collections import Counter
from dataclasses import dataclass

import numpy as np

from gnoming_sim.game import record as R
from gnoming_sim.game import trace as T
from gnoming_sim.game.cards import HAZARD, NO_CARD, card_name
from gnoming_sim.game.deck import Deck
from gnoming_sim.game.errors import GnomingError
from gnoming_sim.game.position import Position
from gnoming_sim.game.replay import SC_DEALT, SC_DLEN, SC_DTOP, Table, walk
from gnoming_sim.game.rules import LAYOUT, ROUNDS, RuleConfig


@dataclass
class Built:
    """A record as a trace: ``deals`` int8[3, N], ``trace`` int32[n, 4], ``origins[i]`` = (where, field)
    of trace record i; ``error``: the first fault the walk itself found (a one-line message), with
    the trace cut before the turn at fault, so the referee can still look for an earlier one."""

    deals: np.ndarray
    trace: np.ndarray
    origins: list
    error: str | None = None


class _Fault(Exception):
    pass


class _Builder:
    def __init__(self, rec: R.Record, rules: RuleConfig, deck: Deck):
        self.rec, self.rules, self.deck = rec, rules, deck
        self.P = rec.players
        self.N = deck.size
        self.order = np.full((ROUNDS, self.N), NO_CARD, dtype=np.int8)
        self.table = Table(self.order, self.P)
        self.table.order = self.order          # the walker deals from this very array, filled as we go
        self.trace: list = []
        self.origins: list = []
        self.known = [Counter() for _ in range(ROUNDS)]
        self.cards_at = -1                     # trace index of the first CARD record of the last reshuffle
        self.mark = 0                          # trace length at the start of the turn (or round) being built

    # ------------------------------------------------------------ helpers
    def emit(self, kind, seat, a, b, where, field, bad_text=None):
        self.trace.append((kind, seat, a, b))
        self.origins.append((where, field))
        if self.table.apply(kind, seat, a, b) and bad_text is not None:
            raise _Fault(f"{where}: field '{field}': {bad_text}")

    def know(self, r, card, where, field):
        self.known[r][card] += 1
        n, have = self.known[r][card], self.deck.count(card)
        if n > have:
            if have == 0:
                raise _Fault(f"{where}: field '{field}': the deck '{self.deck.name}' has no {card_name(card)}")
            raise _Fault(f"{where}: field '{field}': this {card_name(card)} would be {n} of them in the round's "
                         f"deal, but the deck '{self.deck.name}' holds {have}")

    def deal_slot(self, r, seat, q, card, where, field):
        """The card at (seat, q) was dealt there if that position is still face down: it is the deal's."""
        t = self.table
        if t.up[seat, q] == 0:
            self.know(r, card, where, field)
            t.lay[seat, q] = card
            self.order[r, LAYOUT * seat + q] = card

    def blind_card(self, r, card, where, field):
        """Put ``card`` on top of the draw pile: the deal's next card, or a reshuffled one."""
        t = self.table
        top, end = int(t.sc[SC_DTOP]), int(t.sc[SC_DLEN])
        if t.sc[SC_DEALT] >= 0:
            self.know(r, card, where, field)
            t.draw[top] = card
            self.order[r, t.sc[SC_DEALT]] = card
            return
        rest = [int(c) for c in t.draw[top:end]]
        if card not in rest:
            raise _Fault(f"{where}: field '{field}': the draw pile (reshuffled from the discard piles) holds no "
                         f"{card_name(card)} now")
        j = top + rest.index(card)
        t.draw[top], t.draw[j] = t.draw[j], t.draw[top]
        a, b = self.cards_at + top, self.cards_at + j     # keep the CARD records in the pile's order
        self.trace[a], self.trace[b] = ((T.CARD, -1, int(t.draw[top]), 0), (T.CARD, -1, int(t.draw[j]), 0))

    def reshuffle(self, seat, where):
        t = self.table
        under = [int(c) for k in range(2) for c in t.piles[k, :max(int(t.plen[k]) - 1, 0)]]
        self.emit(T.RESHUFFLE, seat, len(under), 0, where, "draw")
        self.cards_at = len(self.trace)
        for c in under:
            self.emit(T.CARD, -1, c, 0, where, "draw")
        return len(under)

    # ------------------------------------------------------------ the record
    def run(self):
        rounds = self.rec.rounds
        for r, rnd in enumerate(rounds):
            self.play_round(r, rnd, last=r == len(rounds) - 1)

    def play_round(self, r: int, rnd: R.Round, last: bool):
        t, P, where = self.table, self.P, rnd.where
        self.mark = len(self.trace)
        self.emit(T.ROUND, rnd.starter, r, P, where, "starter")
        for _ in range(rnd.setup_hazards):
            self.blind_card(r, HAZARD, where, "setup_hazards")
            self.emit(T.SETUP_HAZARD, -1, 0, HAZARD, where, "setup_hazards")
        for k, card in enumerate(rnd.setup):
            self.blind_card(r, card, where, f"setup[{k}]")
            self.emit(T.SETUP_DISCARD, -1, k, card, where, f"setup[{k}]")
        for i in range(P):
            s = (rnd.starter + i) % P
            for k, (q, card) in enumerate(rnd.flips[s]):
                self.deal_slot(r, s, q, card, where, f"flips[{s}][{k}]")
                self.emit(T.INIT_FLIP, s, q, card, where, f"flips[{s}][{k}]")
        seat = rnd.starter
        for i, turn in enumerate(rnd.turns):
            if t.finisher >= 0 and seat == t.finisher:
                raise _Fault(f"{turn.where}: field 'seat': the round is over (seat {t.finisher} finished and every "
                             "other seat has had its final turn); start the next round's table")
            self.play_turn(r, i, turn)
            seat = (turn.seat + 1) % P
        over = rnd.stalled or (t.finisher >= 0 and seat == t.finisher)
        if rnd.stalled:
            self.stall(r, rnd, seat)
        if not over:
            if rnd.reveal is not None:
                raise _Fault(f"{where}: field 'reveal': the round is not over (nobody has finished"
                             f"{'' if t.finisher < 0 else ' and played the final lap'}), so nothing was revealed")
            if not last:
                raise _Fault(f"{where}: field 'turns': the round is not over, but round {r + 2} follows: list the "
                             "rest of its turns")
            return
        if rnd.reveal is None:
            if not last:
                raise _Fault(f"{where}: missing field 'reveal' (the layouts turned up at the round's end): round "
                             f"{r + 2} follows, and its scores need them")
            return
        self.mark = len(self.trace)
        for s in range(P):
            for q in range(LAYOUT):
                card, field = rnd.reveal[s][q], f"reveal[{s}][{q}]"
                if t.up[s, q]:
                    if int(t.lay[s, q]) != card:
                        raise _Fault(f"{where}: field '{field}': seat {s} position {q} shows "
                                     f"{card_name(int(t.lay[s, q]))} face up, not {card_name(card)}")
                else:
                    self.deal_slot(r, s, q, card, where, field)
        self.emit(T.ROUND_END, -1, r, int(rnd.stalled), where, "reveal")

    def stall(self, r, rnd, seat):
        t, where = self.table, rnd.where
        n = len(rnd.turns)
        if n >= self.rules.max_turns:
            self.emit(T.STALL, -1, T.STALL_MAX_TURNS, 0, where, "stalled")
            return
        self.emit(T.TURN, seat, n, int(t.finisher >= 0), where, "stalled")
        if not self.rules.reshuffle_when_empty:
            self.emit(T.STALL, -1, T.STALL_NO_RESHUFFLE, 0, where, "stalled")
            return
        if t.sc[SC_DTOP] < t.sc[SC_DLEN]:
            raise _Fault(f"{where}: field 'stalled': the draw pile still holds "
                         f"{int(t.sc[SC_DLEN] - t.sc[SC_DTOP])} cards, so the round cannot stall here")
        if self.reshuffle(seat, where):
            raise _Fault(f"{where}: field 'stalled': the discard piles refill the draw pile, so the round "
                         "cannot stall here")
        self.emit(T.STALL, -1, T.STALL_NO_CARDS, 0, where, "stalled")

    def play_turn(self, r: int, i: int, turn: R.Turn):
        t, P, w, s = self.table, self.P, turn.where, turn.seat
        self.emit(T.TURN, s, i, int(t.finisher >= 0), w, "seat")
        self.mark = len(self.trace)            # the referee checks the turn order even if this turn is at fault
        if turn.draw == T.SRC_DRAW:
            if t.sc[SC_DTOP] >= t.sc[SC_DLEN]:
                if not self.rules.reshuffle_when_empty:
                    raise _Fault(f"{w}: field 'draw': the draw pile is empty and the rules do not reshuffle "
                                 "(the round stalled: set stalled = true after the turn before)")
                if not self.reshuffle(s, w):
                    raise _Fault(f"{w}: field 'draw': the draw pile is empty and the discard piles cannot refill "
                                 "it (the round stalled: set stalled = true after the turn before)")
            self.blind_card(r, turn.card, w, "card")
        else:
            k = turn.draw - 1
            if t.plen[k] == 0:
                raise _Fault(f"{w}: field 'draw': discard pile {k} is empty")
            top = int(t.piles[k, t.plen[k] - 1])
            if top != turn.card:
                raise _Fault(f"{w}: field 'card': the top of discard pile {k} is {card_name(top)}, "
                             f"not {card_name(turn.card)}")
        self.emit(T.DRAW, s, turn.draw, turn.card, w, "card")
        if turn.place == R.NOT_KEPT:
            self.emit(T.NOKEEP, s, 0, 0, w, "place")
        else:
            for k, (q, card) in enumerate([(turn.place, turn.replaced), *turn.bounce]):
                field = "replaced" if k == 0 else f"bounce[{k - 1}]"
                shown = int(t.lay[s, q])
                self.deal_slot(r, s, q, card, w, field)
                self.emit(T.PLACE if k == 0 else T.BOUNCE, s, q, card, w, field,
                          f"position {q} holds {card_name(shown)}, not {card_name(card)}")
        self.emit(T.DISCARD, s, turn.pile, int(t.hand), w, "pile")
        for k, (q, card) in enumerate(turn.hazard_flips):
            o = (s + 1 + k) % P
            field = f"hazard_flips[{k}]"
            if q >= 0:
                if t.up[o, q]:
                    raise _Fault(f"{w}: field '{field}': position {q} of seat {o} is face up already")
                self.deal_slot(r, o, q, card, w, field)
            self.emit(T.HAZARD_FLIP, o, q, card if q >= 0 else 0, w, field)
        if t.fd[s] == 0 and t.finisher < 0:
            self.emit(T.FINISH, s, 0, 0, w, "place")

    # ------------------------------------------------------------ the deal's hidden rest
    def complete(self) -> np.ndarray:
        deck = self.deck.to_array()
        for r in range(ROUNDS):
            left = Counter(int(c) for c in deck) - self.known[r]
            fill = iter(sorted(left.elements()))
            row = self.order[r]
            for j in range(self.N):
                if row[j] == NO_CARD:
                    row[j] = next(fill)
        return self.order.copy()


def build(rec: R.Record, rules: RuleConfig, deck: Deck) -> Built:
    """The record as a trace with a consistent deal (see the module docstring)."""
    deck.validate_for(rec.players)
    b = _Builder(rec, rules, deck)
    error = None
    try:
        b.run()
    except _Fault as exc:
        error = str(exc)
        # cut the trace before the turn at fault: the referee checks what comes before it
        b.trace, b.origins = b.trace[:b.mark], b.origins[:b.mark]
    trace = np.array(b.trace, dtype=np.int32).reshape(-1, 4)
    return Built(b.complete(), trace, b.origins, error)


# ------------------------------------------------------------------ a simulated game as a record
def from_trace(deals, trace, players: int, seat: int, seats=(), origin: str = "simulated game") -> R.Record:
    """The record of a traced game (:func:`gnoming_sim.kernel.engine.simulate` with ``trace=True``),
    graded for ``seat``: what the table saw, the layouts revealed at each round's end."""
    rounds, cur, turn = [], None, None

    def close_turn():
        nonlocal turn
        if turn is not None and "draw" in turn:
            cur["turns"].append(R.Turn(turn["seat"], turn["draw"], turn["card"], turn["place"], turn.get("replaced"),
                                       tuple(turn["bounce"]), turn["pile"], tuple(turn["flips"]), ""))
        turn = None

    for _, (kind, s, a, b), table in walk(deals, trace, players):
        if kind == T.ROUND:
            cur = {"starter": s, "hazards": 0, "setup": [], "flips": [[] for _ in range(players)], "turns": [],
                   "stalled": False}
        elif kind == T.SETUP_HAZARD:
            cur["hazards"] += 1
        elif kind == T.SETUP_DISCARD:
            cur["setup"].append(b)
        elif kind == T.INIT_FLIP:
            cur["flips"][s].append((a, b))
        elif kind in (T.TURN, T.STALL):
            close_turn()
            if kind == T.TURN:
                turn = {"seat": s, "place": R.NOT_KEPT, "bounce": [], "flips": []}
            else:
                cur["stalled"] = True
        elif kind == T.DRAW:
            turn.update(draw=a, card=b)
        elif kind == T.PLACE:
            turn.update(place=a, replaced=b)
        elif kind == T.BOUNCE:
            turn["bounce"].append((a, b))
        elif kind == T.DISCARD:
            turn["pile"] = a
        elif kind == T.HAZARD_FLIP:
            turn["flips"].append((a, b if a >= 0 else 0))
        elif kind == T.ROUND_END:
            close_turn()
            reveal = tuple(tuple(table.layout(x)) for x in range(players))
            rounds.append(R.Round(cur["starter"], cur["hazards"], tuple(cur["setup"]),
                                  tuple(tuple(f) for f in cur["flips"]), tuple(cur["turns"]), reveal,
                                  cur["stalled"], ""))
    return R.from_mapping(R.Record(players, seat, tuple(rounds), tuple(seats), origin).to_mapping(), origin)


# ------------------------------------------------------------------ the seat's decisions
@dataclass(frozen=True)
class Decision:
    """One decision of the graded seat: the position before it, the option key played, and where."""

    position: Position
    played: str
    round: int          # 0..2
    turn: int           # turn of the round (from 0)
    where: str


def decisions(deals, trace, players: int, seat: int, rules: RuleConfig, deck: Deck, round_scores,
              origin: str = "") -> list[Decision]:
    """Every draw, place and hazard-flip decision of ``seat`` in the trace, in order.

    ``round_scores`` [round][seat]: the score of each finished round (the game scores so far);
    ``origin``: where the game comes from, the positions' ``origin``."""
    recs = [tuple(int(v) for v in r) for r in np.asarray(trace).tolist()]
    out = []
    scores = np.zeros(players, dtype=np.int64)
    discarder = -1

    def nxt(i, kinds):
        for j in range(i + 1, len(recs)):
            if recs[j][0] in kinds:
                return recs[j]
        return None

    def label(table):
        return f"round {table.round + 1}, turn {table.turn}"

    for i, (kind, s, a, b), table in walk(deals, trace, players):
        if kind == T.ROUND_END:
            scores += np.asarray(round_scores[a], dtype=np.int64)
        if kind == T.DISCARD:
            discarder = s
        if kind == T.TURN and s == seat:
            d = nxt(i, (T.DRAW, T.STALL, T.TURN))
            if d is not None and d[0] == T.DRAW:
                pos = table.position(seat, rules, deck, origin, scores)
                out.append(Decision(pos, ("draw", "pile0", "pile1")[d[2]], table.round, table.turn, label(table)))
        elif kind == T.DRAW and s == seat:
            d = nxt(i, (T.PLACE, T.NOKEEP))
            if d is not None:
                pos = table.position(seat, rules, deck, origin, scores, decision="place", hand=table.hand,
                                     source=a)
                out.append(Decision(pos, f"pos{d[2]}" if d[0] == T.PLACE else "discard", table.round, table.turn,
                                    label(table)))
        if i + 1 < len(recs):
            k2, s2, a2, _ = recs[i + 1]
            if k2 == T.HAZARD_FLIP and s2 == seat and a2 != T.HFLIP_NOT_ALLOWED:
                pos = table.position(seat, rules, deck, origin, scores, decision="hazard_flip",
                                     discarder=discarder)
                out.append(Decision(pos, f"flip{a2}" if a2 >= 0 else "decline", table.round, table.turn,
                                    label(table)))
    return out
