"""The board's drill view: the cards of the drill deck (:mod:`gnoming_sim.drills.deck`, the deck `review`
fills and ``gnoming-sim drill`` drills) one at a time without the answer, graded, scored and rescheduled
by the library's own :func:`~gnoming_sim.drills.deck.answer` (under the deck's lock, written crash-safely).

The deck is the one file the command line names (``--drill-deck``, or the user's data folder's); the page
names a card by its id, never a path.  The deck is checked whole each time it is read (:func:`~gnoming_sim.
drills.deck.load`): a damaged one raises a one-line GnomingError, which the server sends as its sentence, and
is never written; an answer waits at most :data:`WAIT_S` for another run writing the deck.
"""
from __future__ import annotations

import datetime as dt

from gnoming_sim.game.errors import GnomingError

WAIT_S = 5.0   # how long an answer waits for another run writing the deck (the page waits on it)


def _deck(path):
    if path is None:
        raise GnomingError("no drill deck: start the board with --drill-deck PATH")
    from gnoming_sim.drills import deck as D

    return D.load(path, "--drill-deck")


def next_card(path, rules, deck, retry: bool = False, include_inaccuracies: bool = False,
              skip: tuple = ()) -> dict:
    """The first card to drill now (due, or with ``retry`` last missed), without its answer: its position
    (TOML-shaped), the options in the fixed order of ``drill`` (never the review's ranking), and how many
    are due; ``{"card": None, ...}`` when none is.  ``skip``: ids already drilled in this sitting."""
    from gnoming_sim.cli.board.inputs import from_position_id, told
    from gnoming_sim.cli.drill import ordered
    from gnoming_sim.drills import deck as D

    cards = _deck(path)
    chosen = [c for c in D.select(cards, dt.date.today(), retry, include_inaccuracies) if c.id not in skip]
    out = {"due": len(chosen), "deck": len(cards), "card": None}
    if not chosen:
        return out
    card = chosen[0]
    pos, id_rules = from_position_id(card.position_id, rules, deck)
    out["card"] = {"id": card.id, "describe": told(pos), "source": card.source, "mark": card.mark,
                   "symbol": card.symbol, "box": card.box, "due": str(card.due), "attempts": card.attempts,
                   "position": pos.to_dict(), "rules": id_rules, "position_id": card.position_id,
                   "options": [{"key": o.key, "label": o.label} for o in ordered(card.options)]}
    return out


def answer(path, card_id, key) -> dict:
    """Grade ``key`` (None: a skip) on card ``card_id``, reschedule it and save the deck: the verdict (right or
    not, the best, what counts as right, the move played and its loss, every option behind the best) and the
    card's new box and date."""
    from gnoming_sim.drills import deck as D

    if path is None:
        raise GnomingError("no drill deck: start the board with --drill-deck PATH")
    if not isinstance(card_id, str) or (key is not None and not isinstance(key, str)):
        raise GnomingError("drill: send the card's id and an option key (or none, to skip)")
    verdict, after = D.answer(path, card_id, key, option="--drill-deck", wait_s=WAIT_S)
    options = [{"key": o.key, "label": o.label, "win_pct": o.win_pct, "behind_pp": o.behind_pp,
                "ci95_pp": None if o.lo_pp is None else [o.lo_pp, o.hi_pp]} for o in after.options]
    return {**verdict, "options": options, "box": after.box, "due": str(after.due), "attempts": after.attempts,
            "hits": after.hits}
