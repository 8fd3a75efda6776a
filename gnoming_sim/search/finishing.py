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
