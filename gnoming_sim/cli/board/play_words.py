"""The words of the board's play mode: what the page asks the person at each decision, and an answer to a
decision said in words (the sentences of a refused click), from the kernel's encoding of the decisions
(``DEC_*`` of :mod:`gnoming_sim.kernel.state`: 1 initial flips, 2 draw, 3 place, 4 bounce, 5 discard pile,
6 hazard flip)."""
from __future__ import annotations

from gnoming_sim.game.cards import NO_CARD, card_name
from gnoming_sim.game.naming import pile_name
from gnoming_sim.game.observation import CHOICE_DECLINE, CHOICE_NOKEEP, CHOICE_STOP


def ask(kind: int, hand: int, source, discarder) -> str:
    """What the page asks the person, in one sentence."""
    card = card_name(hand) if hand != NO_CARD else ""
    return {1: "Turn up two cards of your layout: click two face-down cards.",
            2: "Draw: click the draw pile or the top card of a discard pile.",
            3: f"Place the {card} from the {source}: click a card of your layout, or do not keep it.",
            4: f"The {card} matches: click a card of your layout to bounce it there, or stop.",
            5: f"Discard the {card}: click discard pile 0 or 1.",
            6: f"Seat {discarder} removed a hazard: turn up one face-down card of yours, or decline."}[kind]


def describe_action(kind: int, action: int, hand: int) -> str:
    """An answer to a decision of ``kind`` in words (the kernel's encoding)."""
    if kind == 2:
        return "the draw pile" if action == 0 else f"{pile_name(action - 1)}'s top card"
    if kind == 5:
        return pile_name(action) if action in (0, 1) else f"pile {action}"
    if kind == 3 and action == CHOICE_NOKEEP:
        return "not keeping it"
    if kind == 4 and action == CHOICE_STOP:
        return "stopping"
    if kind == 6 and action == CHOICE_DECLINE:
        return "declining"
    what = {3: "placing it at", 4: "bouncing it to", 6: "turning up", 1: "turning up"}.get(kind, "position")
    return f"{what} position {action}"
