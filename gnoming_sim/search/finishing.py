"""The finishing decisions of a traced game: every place decision at which the player to move
could end their face-down cards now, as a :class:`~gnoming_sim.game.position.Position` with the
option the game's player took.  Whether finishing is legal there comes from the kernel
(:func:`gnoming_sim.search.options.legal_options`), as every position's options do.
"""
from __future__ import annotations

import numpy as np

from gnoming_sim.game import trace as T
from gnoming_sim.game.deck import Deck
from gnoming_sim.game.replay import walk
from gnoming_sim.game.rules import RuleConfig
from gnoming_sim.search.options import legal_options


def finish_decisions(deals: np.ndarray, trace: np.ndarray, players: int, round_scores: np.ndarray,
                     rules: RuleConfig, deck: Deck, origin: str = ""):
    """Every place decision of a traced game in which the player to move could finish now (one
    face-down card left, nobody finished, the card in hand placeable): yields (position, chosen),
    ``chosen`` the key of the option the game's player took (``posQ`` or ``discard``).

    ``deals`` int8[3, N], ``trace`` int32[n, 4] (one game's, as ``simulate(trace=True)`` gives);
    ``round_scores`` int[3, P]: each round's scores (for the running game scores)."""
    scores = np.zeros(players, dtype=np.int64)
    pending = None
    for i, (kind, seat, a, b), table in walk(deals, trace, players):
        if pending is not None:     # the record after the draw: what the player did with the card
            yield pending, f"pos{a}" if kind == T.PLACE else "discard"
            pending = None
        if kind == T.DRAW and table.finisher < 0 and table.fd[seat] == 1:
            pos = table.position(seat, rules, deck, f"{origin} record {i + 1}", scores, "place", table.hand, a)
            if any(o.finishes for o in legal_options(pos)):
                pending = pos
        elif kind == T.ROUND_END:
            scores += np.asarray(round_scores[a], dtype=np.int64)


def finish_gap_of(pos) -> int | None:
    """The gap of finishing at place decision ``pos``: the finished layout's score with the card in hand on
    the last face-down card, minus the lowest visible score of a rival (face-down cards count 0): the one
    definition (:func:`gnoming_sim.kernel.policy.card.finish_gap`) that the finish study, the card and
    ``analyse`` share.  None when the player to move cannot finish here (not one face-down card left,
    somebody finished, or no card in hand)."""
    from gnoming_sim.game.cards import HIDDEN, NO_CARD
    from gnoming_sim.kernel.policy.card import finish_gap

    row = np.asarray(pos.layouts[pos.me])
    slots = np.nonzero(row == HIDDEN)[0]
    if slots.size != 1 or pos.finisher >= 0 or pos.hand == NO_CARD:
        return None
    vis = np.ascontiguousarray(pos.layouts, dtype=np.int8)
    return int(round(finish_gap(vis, np.int64(pos.me), np.int64(pos.players), np.int64(slots[0]),
                                np.int8(pos.hand), np.int64(pos.rules.mulligans_per_line),
                                np.int64(pos.rules.hazard_value), np.int64(pos.rules.mulligan_value),
                                np.int64(pos.rules.negative_multiplier))))
