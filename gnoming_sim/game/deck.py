"""Decks as data: the published 110-card deck, house decks from TOML, validation."""
from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from gnoming_sim.game import cards
from gnoming_sim.game.toml_io import read_toml
from gnoming_sim.game.errors import GnomingError
from gnoming_sim.game.rules import LAYOUT, MAX_PLAYERS, MIN_PLAYERS

# RULES.md §1 (published)
PUBLISHED_COUNTS = {
    3: 14, 4: 14, 5: 14, 6: 14, 7: 13, 8: 13,
    -1: 6, -2: 8, -3: 5, -4: 3,
    "H": 3, "M": 3,
}
# the card values a deck file may use: those of the game (RULES.md §1 has no 0, 1, 2 or 9+)
FILE_VALUES = (-4, -3, -2, -1, 3, 4, 5, 6, 7, 8)
MAX_DECK_CARDS = 1000   # far above any table's need; keeps a typo (10**9 copies) from eating memory


@dataclass(frozen=True)
class Deck:
    """A deck composition: ``counts`` is a sorted tuple of (card code, copies)."""

    counts: tuple[tuple[int, int], ...]
    name: str = "published"

    @classmethod
    def from_mapping(cls, mapping: dict, name: str = "custom", source: str = "deck",
                     values: tuple[int, ...] | None = None) -> "Deck":
        """A deck from ``{card: copies}``; ``values`` (if given) are the card values allowed.

        A card named twice (``H`` and ``hazard``, ``"6"`` and ``6``) is an error, not a sum.
        """
        merged: dict[int, int] = {}
        named: dict[int, object] = {}
        for key, n in mapping.items():
            try:
                code = cards.parse_card(key)
            except ValueError as exc:
                if values is None or _as_int(key) is None:
                    raise GnomingError(f"{source}: {exc}") from None
                code = _as_int(key)   # a number out of the code range: reported below with the allowed values
            if values is not None and code not in (cards.HAZARD, cards.MULLIGAN) and code not in values:
                raise GnomingError(f"{source}: card {key!r} is not a card of the game "
                                   f"(allowed: {_ranges(values)}, H/hazard, M/mulligan)")
            if code in named:
                raise GnomingError(f"{source}: card {cards.card_name(code)!r} is given twice "
                                   f"(as {named[code]!r} and {key!r}); give it once")
            named[code] = key
            if isinstance(n, bool) or not isinstance(n, int):
                raise GnomingError(f"{source}: count of card {key!r} must be an integer, got {n!r}")
            if not 0 <= n <= MAX_DECK_CARDS:
                raise GnomingError(f"{source}: count of card {key!r} must be 0..{MAX_DECK_CARDS}, got {n}")
            merged[code] = n
        counts = tuple(sorted((c, n) for c, n in merged.items() if n > 0))
        if not counts:
            raise GnomingError(f"{source}: the deck has no cards")
        size = sum(n for _, n in counts)
        if size > MAX_DECK_CARDS:
            raise GnomingError(f"{source}: the deck has {size} cards; at most {MAX_DECK_CARDS} are allowed")
        return cls(counts=counts, name=name)

    @classmethod
    def from_toml(cls, path) -> "Deck":
        """A TOML file with a ``[cards]`` table (or top-level keys): ``"6" = 14``, ``H = 3``, ``M = 3``.

        An optional top-level ``name = "..."`` names the deck.
        """
        data = read_toml(path, "deck")
        name = data.pop("name", str(path))
        if not isinstance(name, str):
            raise GnomingError(f"{path}: deck 'name' must be a string")
        table = data.pop("cards", None)
        if table is not None:
            if not isinstance(table, dict):
                raise GnomingError(f"{path}: [cards] must be a table of card = count")
            if data:
                raise GnomingError(f"{path}: unknown deck key '{next(iter(data))}' (expected name and [cards])")
            data = table
        return cls.from_mapping(data, name=name, source=str(path), values=FILE_VALUES)

    # ---------------------------------------------------------------- facts
    @property
    def size(self) -> int:
        return sum(n for _, n in self.counts)

    def count(self, code: int) -> int:
        return dict(self.counts).get(code, 0)

    def to_dict(self) -> dict[str, int]:
        return {cards.card_name(c): n for c, n in self.counts}

    def to_array(self) -> np.ndarray:
        """Every card once, in a canonical order: int8 array of shape (size,)."""
        return np.array([c for c, n in self.counts for _ in range(n)], dtype=np.int8)

    def validate_for(self, players: int) -> None:
        """Raise GnomingError unless the deck can deal ``players`` layouts and seed both discard piles."""
        check_players(players)
        need = LAYOUT * players + self.count(cards.HAZARD) + 2
        if self.size < need:
            raise GnomingError(
                f"deck '{self.name}' has {self.size} cards; {players} players need at least {need} "
                f"({LAYOUT} per layout, 2 for the discard piles, plus one per hazard)"
            )


def _as_int(key) -> int | None:
    try:
        return int(str(key).strip())
    except ValueError:
        return None


def _ranges(values) -> str:
    """``(-4, -3, -2, -1, 3, 4)`` -> ``"-4..-1, 3..4"``."""
    runs, start = [], values[0]
    for a, b in zip(values, values[1:] + (None,)):
        if b != a + 1:
            runs.append(f"{start}..{a}" if a != start else str(a))
            start = b
    return ", ".join(runs)


def check_players(players) -> None:
    if isinstance(players, bool) or not isinstance(players, (int, np.integer)):
        raise GnomingError(f"players must be an integer, got {players!r}")
    if not MIN_PLAYERS <= players <= MAX_PLAYERS:
        raise GnomingError(f"players must be between {MIN_PLAYERS} and {MAX_PLAYERS}, got {players}")


PUBLISHED = Deck.from_mapping(PUBLISHED_COUNTS, name="published")


def load_deck(path=None) -> Deck:
    return PUBLISHED if path is None else Deck.from_toml(path)
