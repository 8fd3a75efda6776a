"""RuleConfig: every named option of the rules (gnoming_sim/game/rules.md), frozen, loadable from TOML.

The kernels never see this object; :meth:`RuleConfig.to_array` turns it into a plain
int64 array indexed by the ``R_*`` constants below, once, at the boundary.
"""
from __future__ import annotations

import dataclasses
from dataclasses import dataclass, fields

import numpy as np

from gnoming_sim.game.toml_io import read_toml
from gnoming_sim.game.errors import GnomingError

# index of each option in the kernels' rules array
R_ROTATE_START = 0
R_DISCARD_DRAW_MUST_BE_KEPT = 1
R_MULLIGAN_LIMIT = 2
R_HAZARD_PLACEABLE = 3
R_RESHUFFLE_WHEN_EMPTY = 4
R_MAX_TURNS = 5
R_MULLIGANS_PER_LINE = 6
R_FINISHER_TIE_IS_LOWEST = 7
R_BOUNCING = 8
R_EARLY_FINISH_BONUS = 9
R_HAZARD_VALUE = 10
R_MULLIGAN_VALUE = 11
R_NEGATIVE_MULTIPLIER = 12
N_RULES = 13

# the published constants (not options)
ROUNDS = 3
LAYOUT = 9
EARLY_FINISH_BONUS = 5   # the published size of the early-finish bonus (option early_finish_bonus)
MAX_EARLY_FINISH_BONUS = 50
HAZARD_PENALTY = 10             # the published points of a hazard left in a layout (option hazard_value)
HAZARD_VALUE_RANGE = (1, 50)    # 0 is barred: a batch's hazard count is read back from its points
MULLIGAN_VALUE_RANGE = (-20, 20)  # the card values a deck may hold (cards.MIN_VALUE .. MAX_VALUE)
NEGATIVE_MULTIPLIER_RANGE = (0, 3)
INITIAL_FLIPS = 2               # RULES.md, the deal: every player turns two cards face up before the first turn
HAZARD_FLIP_MIN_FACE_DOWN = 2   # RULES.md §3: a hazard cannot flip a player's final face-down card
MIN_PLAYERS = 2
MAX_PLAYERS = 7

_HELP = {
    "rotate_start": "rounds 2 and 3 start with the seat left of the previous starter (else seat 0 always)",
    "discard_draw_must_be_kept": "a card taken from a discard pile must be placed in the layout",
    "mulligan_limit": "no mulligan may be placed while this many face-up mulligans are in the layout (0 = no limit)",
    "hazard_placeable": "a drawn hazard may be placed in the layout (it scores hazard_value if it stays)",
    "reshuffle_when_empty": "an empty draw pile is rebuilt from the discard piles (all but each top card); else the round stalls",
    "max_turns": "turns per round (all players together) after which the round ends as stalled",
    "mulligans_per_line": "at most this many mulligans in a matched line",
    "finisher_tie_is_lowest": "a finisher who ties for the lowest round score earns the -5 bonus",
    "bouncing": "a revealed positive card that matches may bounce to another position (else it is discarded)",
    "early_finish_bonus": "points the finisher subtracts if lowest, else adds (published 5; 0 = no bonus)",
    "hazard_value": "points a hazard left in a layout scores (published 10; 1..50)",
    "mulligan_value": "points a mulligan scores when it lies in no matched line (published 0; -20..20)",
    "negative_multiplier": "a negative card scores its face value times this (published 1; 0..3; 0 = negatives "
                           "score nothing but still spoil their lines)",
}

# the integer options' ranges, inclusive: (low, high)
_RANGES = {
    "mulligan_limit": (0, 9),
    "max_turns": (1, 100_000),
    "mulligans_per_line": (0, 3),
    "early_finish_bonus": (0, MAX_EARLY_FINISH_BONUS),
    "hazard_value": HAZARD_VALUE_RANGE,
    "mulligan_value": MULLIGAN_VALUE_RANGE,
    "negative_multiplier": NEGATIVE_MULTIPLIER_RANGE,
}


@dataclass(frozen=True)
class RuleConfig:
    """The rules a batch is played under (gnoming_sim/game/rules.md).  Defaults are the project's defaults."""

    rotate_start: bool = True
    discard_draw_must_be_kept: bool = True
    mulligan_limit: int = 1
    hazard_placeable: bool = True
    reshuffle_when_empty: bool = True
    max_turns: int = 500
    mulligans_per_line: int = 1
    finisher_tie_is_lowest: bool = True
    bouncing: bool = True
    early_finish_bonus: int = EARLY_FINISH_BONUS
    hazard_value: int = HAZARD_PENALTY
    mulligan_value: int = 0
    negative_multiplier: int = 1

    def __post_init__(self):
        for f in fields(self):
            value = getattr(self, f.name)
            if f.type in ("bool", bool):
                if not isinstance(value, bool):
                    raise GnomingError(f"rules option '{f.name}' must be true or false, got {value!r}")
            else:
                if isinstance(value, bool) or not isinstance(value, int):
                    raise GnomingError(f"rules option '{f.name}' must be an integer, got {value!r}")
        for name, (low, high) in _RANGES.items():
            value = getattr(self, name)
            if not low <= value <= high:
                raise GnomingError(f"rules option '{name}' must be {low}..{high}, got {value}")

    # ------------------------------------------------------------------ I/O
    @classmethod
    def from_dict(cls, data: dict, source: str = "rules") -> "RuleConfig":
        """Options from top-level keys or from one ``[rules]`` table (not both); errors name ``source``."""
        if "rules" in data:
            if not isinstance(data["rules"], dict):
                raise GnomingError(f"{source}: 'rules' must be a [rules] table of options")
            if len(data) > 1:
                others = ", ".join(k for k in data if k != "rules")
                raise GnomingError(f"{source}: options both at top level ({others}) and in a [rules] table; "
                                   "put them all in one place")
            data = data["rules"]
        known = {f.name for f in fields(cls)}
        for key in data:
            if key not in known:
                raise GnomingError(
                    f"{source}: unknown rules option '{key}' (known: {', '.join(sorted(known))})"
                )
        try:
            return cls(**data)
        except GnomingError as exc:
            raise GnomingError(f"{source}: {exc}") from None

    @classmethod
    def from_toml(cls, path) -> "RuleConfig":
        return cls.from_dict(read_toml(path, "rules"), source=str(path))

    def to_dict(self) -> dict:
        return dataclasses.asdict(self)

    def to_toml(self) -> str:
        lines = []
        for key, value in self.to_dict().items():
            lines.append(f"{key} = {str(value).lower() if isinstance(value, bool) else value}")
        return "\n".join(lines) + "\n"

    def describe(self) -> list[tuple[str, object, object, str]]:
        """(name, value, default, help) for every option."""
        default = RuleConfig()
        return [(f.name, getattr(self, f.name), getattr(default, f.name), _HELP[f.name]) for f in fields(self)]

    def to_array(self) -> np.ndarray:
        """The options as the kernels' int64 array (indices ``R_*``)."""
        a = np.zeros(N_RULES, dtype=np.int64)
        a[R_ROTATE_START] = self.rotate_start
        a[R_DISCARD_DRAW_MUST_BE_KEPT] = self.discard_draw_must_be_kept
        a[R_MULLIGAN_LIMIT] = self.mulligan_limit
        a[R_HAZARD_PLACEABLE] = self.hazard_placeable
        a[R_RESHUFFLE_WHEN_EMPTY] = self.reshuffle_when_empty
        a[R_MAX_TURNS] = self.max_turns
        a[R_MULLIGANS_PER_LINE] = self.mulligans_per_line
        a[R_FINISHER_TIE_IS_LOWEST] = self.finisher_tie_is_lowest
        a[R_BOUNCING] = self.bouncing
        a[R_EARLY_FINISH_BONUS] = self.early_finish_bonus
        a[R_HAZARD_VALUE] = self.hazard_value
        a[R_MULLIGAN_VALUE] = self.mulligan_value
        a[R_NEGATIVE_MULTIPLIER] = self.negative_multiplier
        return a


def load_rules(path=None) -> RuleConfig:
    """Default rules, or the rules of a TOML file."""
    return RuleConfig() if path is None else RuleConfig.from_toml(path)


def mulligan_placeable(face_up_mulligans: int, limit: int) -> bool:
    """Whether a mulligan may be placed in a layout showing ``face_up_mulligans`` face-up mulligans
    under the rules' ``mulligan_limit`` (RULES.md §3; 0 = no limit; face-down cards do not count).

    Plain integer code, so a jitted scan can compile this very function (no second copy)."""
    return limit == 0 or face_up_mulligans < limit
