"""The one walker of the trace format (:mod:`gnoming_sim.game.trace`): the table of a traced game,
true cards included, advanced record by record from the deal.

Every reader of traces uses it: positions for ``analyse --game --turn`` (:func:`from_trace`), the
story ``play`` tells (:mod:`gnoming_sim.reference.narrate`), the studies' jitted scans
(:mod:`gnoming_sim.analyses.framework.trace_follow` compiles :func:`apply_record` itself) and the
tests.  Only the referee reads traces on its own: it is the second implementation of the rules.

The table is a few flat arrays (so a jitted scan can hold it), for P players and an N-card deck::

    lay    int8[P, 9]   every layout's true cards           up     int8[P, 9]  1 = face up
    fd     int64[P]     face-down cards per seat            draw   int8[N]     the draw pile, top first,
    piles  int8[2, N]   the discard piles, bottom first                        from ``sc[SC_DTOP]``
    plen   int64[2]     their sizes                         sc     int64[N_SC] the scalars (``SC_*``)

:func:`apply_record` applies one record in place and returns 1 where the record disagrees with
the table (a card named in the record that is not the one the table holds there), else 0.
:func:`walk` is the Python way in: it yields the :class:`Table` after each record.
"""
from __future__ import annotations

from typing import Iterator

import numpy as np

from gnoming_sim.game import trace as T
from gnoming_sim.game.cards import HAZARD, HIDDEN, NO_CARD
from gnoming_sim.game.deck import Deck
from gnoming_sim.game.errors import GnomingError
from gnoming_sim.game.position import Position
from gnoming_sim.game.rules import LAYOUT, RuleConfig

# the scalars of the table, sc[...]
SC_ROUND = 0       # round index 0..2
SC_STARTER = 1     # the seat that started the round
SC_TURN = 2        # the current turn's number in the round (from 0)
SC_GAME_TURN = 3   # the current turn's number in the game (from 0, over all rounds: `analyse --turn`)
SC_TURNS = 4       # turns begun so far in the game
SC_FINISHER = 5    # -1 until somebody finished this round
SC_HAND = 6        # the card in hand (drawn, or last replaced), NO_CARD between turns
SC_REMOVED = 7     # hazards removed from play this round
SC_DTOP = 8        # index of the draw pile's top card in ``draw``
SC_DLEN = 9        # end of the draw pile in ``draw`` (cards left: SC_DLEN - SC_DTOP)
SC_DEALT = 10      # index in the round's deal of the draw pile's top card; -1 after a reshuffle
SC_WAS_DOWN = 11   # 1 if the last PLACE / BOUNCE / flip turned a face-down card up
SC_SOURCE = 12     # the last draw's source (0 draw pile, 1 / 2 discard pile 0 / 1)
SC_FINAL = 13      # 1 in a final-lap turn
N_SC = 14


def apply_record(order, lay, up, fd, piles, plen, draw, sc, kind, seat, a, b):
    """Apply record ``(kind, seat, a, b)`` to the table in place; return 1 if it disagrees with it.

    ``order`` int8[3, N]: the game's deal of each round (the ROUND record deals from it).  Plain
    integer code calling nothing, so a jitted scan compiles this very function."""
    bad = 0
    turned = -1      # the position of seat ``seat`` this record turns face up, if any
    P = lay.shape[0]
    if kind == T.ROUND:
        sc[SC_ROUND], sc[SC_STARTER], sc[SC_TURN] = a, seat, 0
        sc[SC_FINISHER], sc[SC_HAND], sc[SC_REMOVED] = -1, NO_CARD, 0
        for s in range(P):
            fd[s] = LAYOUT
            for q in range(LAYOUT):
                lay[s, q] = order[a, LAYOUT * s + q]
                up[s, q] = 0
        n = order.shape[1] - LAYOUT * P
        for i in range(n):
            draw[i] = order[a, LAYOUT * P + i]
        sc[SC_DTOP], sc[SC_DLEN], sc[SC_DEALT] = 0, n, LAYOUT * P
        plen[0] = 0
        plen[1] = 0
    elif kind == T.SETUP_HAZARD or kind == T.SETUP_DISCARD:
        card = draw[sc[SC_DTOP]]
        sc[SC_DTOP] += 1
        sc[SC_DEALT] += 1
        if kind == T.SETUP_HAZARD:
            sc[SC_REMOVED] += 1
            bad = 1 if card != HAZARD else 0
        else:
            piles[a, plen[a]] = card
            plen[a] += 1
            bad = 1 if card != b else 0
    elif kind == T.INIT_FLIP:
        turned = a
        bad = 1 if lay[seat, a] != b else 0
    elif kind == T.TURN:
        sc[SC_TURN], sc[SC_FINAL] = a, b
        sc[SC_GAME_TURN] = sc[SC_TURNS]
        sc[SC_TURNS] += 1
    elif kind == T.RESHUFFLE:
        for k in range(2):
            if plen[k] > 1:
                piles[k, 0] = piles[k, plen[k] - 1]
                plen[k] = 1
        sc[SC_DTOP], sc[SC_DLEN], sc[SC_DEALT] = 0, 0, -1
    elif kind == T.CARD:
        draw[sc[SC_DLEN]] = a
        sc[SC_DLEN] += 1
    elif kind == T.DRAW:
        sc[SC_SOURCE] = a
        if a == T.SRC_DRAW:
            sc[SC_HAND] = draw[sc[SC_DTOP]]
            sc[SC_DTOP] += 1
            if sc[SC_DEALT] >= 0:
                sc[SC_DEALT] += 1
        else:
            plen[a - 1] -= 1
            sc[SC_HAND] = piles[a - 1, plen[a - 1]]
        bad = 1 if sc[SC_HAND] != b else 0
    elif kind == T.PLACE or kind == T.BOUNCE:
        old = lay[seat, a]
        lay[seat, a] = sc[SC_HAND]
        turned = a
        sc[SC_HAND] = old
        bad = 1 if old != b else 0
    elif kind == T.DISCARD:
        bad = 1 if sc[SC_HAND] != b else 0
        if a == T.DISCARD_REMOVED:
            sc[SC_REMOVED] += 1
        else:
            piles[a, plen[a]] = sc[SC_HAND]
            plen[a] += 1
        sc[SC_HAND] = NO_CARD
    elif kind == T.HAZARD_FLIP:
        if a >= 0:
            turned = a
            bad = 1 if lay[seat, a] != b else 0
    elif kind == T.FINISH:
        sc[SC_FINISHER] = seat
    if turned >= 0:
        sc[SC_WAS_DOWN] = 1 if up[seat, turned] == 0 else 0
        if up[seat, turned] == 0:
            up[seat, turned] = 1
            fd[seat] -= 1
    return bad


class Table:
    """The table of one traced game (the arrays of the module docstring), with readable views."""

    def __init__(self, deals: np.ndarray, players: int):
        self.order = np.ascontiguousarray(deals, dtype=np.int8)     # int8[3, N]
        n = self.order.shape[1]
        self.players = int(players)
        self.lay = np.zeros((players, LAYOUT), dtype=np.int8)
        self.up = np.zeros((players, LAYOUT), dtype=np.int8)
        self.fd = np.zeros(players, dtype=np.int64)
        self.piles = np.zeros((2, n), dtype=np.int8)
        self.plen = np.zeros(2, dtype=np.int64)
        self.draw = np.zeros(n, dtype=np.int8)
        self.sc = np.zeros(N_SC, dtype=np.int64)

    def apply(self, kind: int, seat: int, a: int, b: int) -> int:
        return apply_record(self.order, self.lay, self.up, self.fd, self.piles, self.plen, self.draw, self.sc,
                            kind, seat, a, b)

    # ------------------------------------------------------------ views (plain Python values)
    def __getattr__(self, name):
        """``round``, ``turn``, ``hand``, ``finisher``, ... : the ``SC_*`` scalar of that name."""
        index = _SCALARS.get(name)
        if index is None:
            raise AttributeError(name)
        return int(self.sc[index])

    def layout(self, seat: int) -> list[int]:
        """Seat ``seat``'s true cards, positions 0..8."""
        return [int(c) for c in self.lay[seat]]

    def face_up(self, seat: int) -> list[bool]:
        return [bool(u) for u in self.up[seat]]

    def pile(self, k: int) -> list[int]:
        """Discard pile ``k``, bottom first."""
        return [int(c) for c in self.piles[k, :self.plen[k]]]

    def draw_pile(self) -> list[int]:
        """The draw pile, top first."""
        return [int(c) for c in self.draw[self.sc[SC_DTOP]:self.sc[SC_DLEN]]]

    def position(self, me: int, rules: RuleConfig, deck: Deck, origin: str, scores, decision: str = "draw",
                 hand: int = NO_CARD, source: int = -1, discarder: int = -1) -> Position:
        """The position seat ``me`` faces now (validated), the true hidden cards kept as ``truth``
        (``discarder``: the seat that removed the hazard, for a ``hazard_flip`` decision)."""
        vis = np.where(self.up == 1, self.lay, np.int8(HIDDEN)).astype(np.int8)
        truth = (self.lay.copy(), np.array(self.draw_pile(), dtype=np.int8))
        return Position(self.players, me, self.starter, self.round, self.turn, self.finisher,
                        tuple(int(v) for v in scores), vis, (tuple(self.pile(0)), tuple(self.pile(1))), self.removed,
                        len(truth[1]), decision, hand, source, discarder, rules, deck, truth, origin).validate(
                            origin or "position")


_SCALARS = {"round": SC_ROUND, "starter": SC_STARTER, "turn": SC_TURN, "game_turn": SC_GAME_TURN,
            "turns": SC_TURNS, "finisher": SC_FINISHER, "hand": SC_HAND, "removed": SC_REMOVED,
            "dealt": SC_DEALT, "was_down": SC_WAS_DOWN, "source": SC_SOURCE, "final": SC_FINAL}


def walk(deals: np.ndarray, trace: np.ndarray, players: int) -> Iterator[tuple[int, tuple, Table]]:
    """Yield ``(index, (kind, seat, a, b), table)`` for every record of one game's trace, the table
    as it stands *after* the record (one :class:`Table`, changed in place as the walk goes on).

    ``deals`` int8[3, N] and ``trace`` int32[n, 4] as :func:`gnoming_sim.kernel.engine.simulate`
    returns them.  A record that disagrees with the table is a ValueError: a trace is the
    engine's own record, so that is a bug, never a user's mistake."""
    table = Table(deals, players)
    for i, rec in enumerate(np.asarray(trace).tolist()):
        kind, seat, a, b = rec
        if table.apply(kind, seat, a, b):
            raise ValueError(f"trace record {i} {T.NAMES.get(kind, kind)} {rec} disagrees with the table")
        yield i, (kind, seat, a, b), table


def from_trace(deals: np.ndarray, trace: np.ndarray, players: int, round_scores: np.ndarray, turn: int,
               rules: RuleConfig, deck: Deck, origin: str = "") -> Position:
    """The draw decision at the start of turn ``turn`` (counted from 0 over the whole game) of a traced game.

    ``round_scores`` int[3, P]: each round's scores (for the running game scores).  The true
    hidden cards are kept as ``truth`` (for ``--peek``), never in the position itself.
    """
    scores = np.zeros(players, dtype=np.int64)
    turns = 0
    for _, (kind, seat, a, b), table in walk(deals, trace, players):
        if kind == T.TURN and table.game_turn == turn:
            return table.position(seat, rules, deck, origin, scores)
        if kind == T.ROUND_END:
            scores += np.asarray(round_scores[a], dtype=np.int64)
        turns = table.turns
    raise GnomingError(f"--turn {turn}: the game has only {turns} turns (counted from 0 over all rounds)")
