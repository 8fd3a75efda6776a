"""Card codes: every card is one small signed integer (int8).

A number card is coded by its face value (``-4`` .. ``8`` in the published deck;
house decks may use any value in ``MIN_VALUE .. MAX_VALUE``).  Values ``>= 0`` are
*positive* cards (they match lines and bounce), values ``< 0`` are *negative* cards.
The two special cards and the two observation markers have codes outside that range::

    value card   -20 .. 20     the value itself
    HAZARD       50            +10 if left in a layout (rules option hazard_value)
    MULLIGAN     51            0 points (mulligan_value), a wildcard for one line at a time
    HIDDEN       -100          observation marker: a face-down card
    NO_CARD      -101          an empty slot (an empty discard pile)

Kernels index per-card tables (card counting) with ``slot(code) = code + SLOT_OFFSET``.
"""
from __future__ import annotations


MIN_VALUE = -20
MAX_VALUE = 20
HAZARD = 50
MULLIGAN = 51
HIDDEN = -100
NO_CARD = -101

SLOT_OFFSET = 32
N_SLOTS = 96  # slot(MIN_VALUE)=12 ... slot(MULLIGAN)=83


def slot(code: int) -> int:
    """Index of ``code`` in a per-card table of length ``N_SLOTS``."""
    return code + SLOT_OFFSET


def is_positive(code: int) -> bool:
    return MIN_VALUE <= code <= MAX_VALUE and code >= 0


def is_negative(code: int) -> bool:
    return MIN_VALUE <= code < 0


def card_name(code: int) -> str:
    """Short name used in tables, TOML files and narration: ``"6"``, ``"-2"``, ``"H"``, ``"M"``."""
    if code == HAZARD:
        return "H"
    if code == MULLIGAN:
        return "M"
    if code == HIDDEN:
        return "?"
    if code == NO_CARD:
        return "."
    return str(code)


def parse_card(name) -> int:
    """Card code from a name (``"H"``, ``"M"``, ``"hazard"``, ``"mulligan"``, ``"-3"``) or an int.

    Raises ``ValueError`` with a message naming the bad card.
    """
    if isinstance(name, bool):
        raise ValueError(f"unknown card {name!r}")
    if isinstance(name, int):
        value = name
    else:
        text = str(name).strip()
        low = text.lower()
        if low in ("h", "hazard"):
            return HAZARD
        if low in ("m", "mulligan"):
            return MULLIGAN
        try:
            value = int(text)
        except ValueError:
            raise ValueError(
                f"unknown card {name!r} (expected an integer value, 'H'/'hazard' or 'M'/'mulligan')"
            ) from None
    if not MIN_VALUE <= value <= MAX_VALUE:
        raise ValueError(f"card value {value} out of range {MIN_VALUE}..{MAX_VALUE}")
    return value


def card_cost(c: int, rules) -> int:
    """Points card ``c`` scores where it lies unmatched under ``rules`` (a RuleConfig; RULES.md §5): a
    number card its value (a negative one times ``negative_multiplier``), a hazard ``hazard_value``,
    a mulligan ``mulligan_value``.  (The kernel's jitted ``scoring.card_cost`` is its copy on ints.)"""
    if c == HAZARD:
        return rules.hazard_value
    if c == MULLIGAN:
        return rules.mulligan_value
    return int(c) * rules.negative_multiplier if c < 0 else int(c)
