"""What a player wants from a decision, and the one ranking of options by it.

``analyse``'s verdict, its robustness check, ``--why``, ``review``'s best move and its marks all rank
options with :func:`order`; none of them ranks by the player's own points.

* horizon ``game``: the chance of winning the game (higher is better); options whose win chances are
  equal (to :data:`TIE_DIGITS` decimals: a game already won or lost whatever is played) go by the margin;
* horizon ``round``: the margin over the rivals, the player's round score minus the rivals' mean round
  score (bonuses included; lower is better: the points a rival gains count as much as the player's own).

The margin is the round's in both horizons: the rollouts record the rivals' round scores, not their
later rounds.  Own points stay in every table, as information, never as the criterion.
"""
from __future__ import annotations

HORIZONS = ("round", "game")
TIE_DIGITS = 9
# the oracle's settings (gnoming_sim.search.evaluator, which every advice path reads them from; named here, the
# bottom of the search stage, so that the analysis the oracle runs can default to them without an import cycle):
# the base player of the rollouts, the strongest fast player (net beats learned, the next on the ladder, at 2, 4
# and 6 players on held-out deals: tuning/net/README.md, reports/ladder-ratings.csv), and the horizon it ranks by
BASE = "net"
ORACLE_HORIZON = "game"

CRITERION = {"game": "chance of winning the game (higher is better; equal chances go by the margin over the "
                     "rivals)",
             "round": "margin over the rivals: own round score minus the rivals' mean (lower is better)"}
UNIT = {"game": "pp of win chance", "round": "points of margin"}


def sort_key(win: float | None, margin: float, horizon: str) -> tuple:
    """The sort key (smaller is better) of one option with win chance ``win`` (a probability, or percent:
    any one scale per call) and margin ``margin`` (points, lower is better)."""
    if horizon == "game":
        if win is None:
            raise ValueError("the game horizon ranks by the win chance: give it")
        return (-round(float(win), TIE_DIGITS), float(margin))
    if horizon == "round":
        return (float(margin),)
    raise ValueError(f"horizon must be one of {', '.join(HORIZONS)}, got {horizon!r}")


def order(options: list[dict], horizon: str) -> list[int]:
    """The indices of ``options`` best first.  Each option is a dict with ``"margin"`` (points, lower is
    better) and, for the game horizon, ``"win"`` (win chance); ties keep the options' order."""
    return sorted(range(len(options)),
                  key=lambda k: (*sort_key(options[k].get("win"), options[k]["margin"], horizon), k))


def best(options: list[dict], horizon: str) -> int:
    """The index of the best option (:func:`order`'s first)."""
    return order(options, horizon)[0]
