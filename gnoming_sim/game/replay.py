"""Positions from traced games: the table replayed record by record from the deal, the true
cards included, so that any moment of a simulated game can be analysed (``analyse --game --turn``,
the finish-or-play-on study).  The trace format is :mod:`gnoming_sim.game.trace`'s.
"""
from __future__ import annotations

import numpy as np

from gnoming_sim.game import trace as T
from gnoming_sim.game.cards import HIDDEN, NO_CARD
from gnoming_sim.game.deck import Deck
from gnoming_sim.game.errors import GnomingError
from gnoming_sim.game.position import Position
from gnoming_sim.game.rules import LAYOUT, RuleConfig


class _Replay:
    """The full table of one traced game, advanced record by record (true cards included)."""

    def __init__(self, deals, players, round_scores):
        self.deals, self.P, self.round_scores = deals, players, round_scores
        self.scores = np.zeros(players, dtype=np.int64)

    def walk(self, trace):
        """Yield (index, record) for every record, with the table as it stands *before* it."""
        recs = trace.tolist()
        P = self.P
        i = 0
        while i < len(recs):
            kind, seat, a, b = recs[i]
            yield i, recs[i]
            i += 1
            if kind == T.ROUND:
                self.r, self.starter = a, seat
                deal = [int(c) for c in self.deals[a]]
                self.lay = [deal[LAYOUT * s:LAYOUT * s + LAYOUT] for s in range(P)]
                self.up = [[False] * LAYOUT for _ in range(P)]
                self.draw = deal[LAYOUT * P:]
                self.piles, self.removed, self.finisher, self.hand = [[], []], 0, -1, NO_CARD
            elif kind == T.SETUP_HAZARD:
                self.draw.pop(0)
                self.removed += 1
            elif kind == T.SETUP_DISCARD:
                self.piles[a].append(self.draw.pop(0))
            elif kind in (T.INIT_FLIP, T.HAZARD_FLIP):
                if a >= 0:
                    self.up[seat][a] = True
            elif kind == T.TURN:
                self.turn = a
            elif kind == T.RESHUFFLE:
                self.draw = [recs[i + j][2] for j in range(a)]
                i += a
                self.piles = [p[-1:] for p in self.piles]
            elif kind == T.DRAW:
                self.hand = self.draw.pop(0) if a == 0 else self.piles[a - 1].pop()
            elif kind in (T.PLACE, T.BOUNCE):
                self.lay[seat][a], self.up[seat][a] = self.hand, True
                self.hand = b
            elif kind == T.DISCARD:
                if a == T.DISCARD_REMOVED:
                    self.removed += 1
                else:
                    self.piles[a].append(b)
                self.hand = NO_CARD
            elif kind == T.FINISH:
                self.finisher = seat
            elif kind == T.ROUND_END:
                self.scores += np.asarray(self.round_scores[a], dtype=np.int64)

    def position(self, me, rules, deck, origin, decision="draw", hand=NO_CARD, source=-1) -> Position:
        P = self.P
        vis = np.array([[self.lay[s][q] if self.up[s][q] else HIDDEN for q in range(LAYOUT)] for s in range(P)],
                       dtype=np.int8)
        truth = (np.array(self.lay, dtype=np.int8), np.array(self.draw, dtype=np.int8))
        return Position(P, me, self.starter, self.r, self.turn, self.finisher, tuple(int(v) for v in self.scores),
                        vis, (tuple(self.piles[0]), tuple(self.piles[1])), self.removed, len(self.draw), decision,
                        hand, source, -1, rules, deck, truth, origin).validate(origin or "position")


def from_trace(deals: np.ndarray, trace: np.ndarray, players: int, round_scores: np.ndarray, turn: int,
               rules: RuleConfig, deck: Deck, origin: str = "") -> Position:
    """The draw decision at the start of turn ``turn`` (counted from 0 over the whole game) of a traced game.

    ``deals`` int8[3, N] and ``trace`` int32[n, 4] as :func:`gnoming_sim.kernel.engine.simulate`
    returns them; ``round_scores`` int[3, P]: each round's scores (for the running game scores).
    The true hidden cards are kept as ``truth`` (for ``--peek``), never in the position itself.
    """
    game = _Replay(deals, players, round_scores)
    count = 0
    for _, (kind, seat, a, b) in game.walk(trace):
        if kind == T.TURN:
            if count == turn:
                game.turn = a
                return game.position(seat, rules, deck, origin)
            count += 1
    raise GnomingError(f"--turn {turn}: the game has only {count} turns (counted from 0 over all rounds)")


def finish_decisions(deals: np.ndarray, trace: np.ndarray, players: int, round_scores: np.ndarray,
                     rules: RuleConfig, deck: Deck, origin: str = ""):
    """Every place decision of a traced game in which the player to move could finish now (one
    face-down card left, nobody finished, the card in hand placeable): yields (position, chosen),
    ``chosen`` the key of the option the game's player took (``posQ`` or ``discard``)."""
    game = _Replay(deals, players, round_scores)
    pending = None
    for i, (kind, seat, a, b) in game.walk(trace):
        if pending is not None:     # the table now holds the drawn card in hand
            me, src = pending
            pending = None
            pos = game.position(me, rules, deck, f"{origin} record {i}", "place", game.hand, src)
            fin = [o for o in pos.options() if o.finishes]
            if fin:
                yield pos, f"pos{a}" if kind == T.PLACE else "discard"
        if kind == T.DRAW and game.finisher < 0 and sum(not u for u in game.up[seat]) == 1:
            pending = (seat, a)
