"""Sequential sizing: play a design cell in batches until its advice-bearing estimate reaches a stated
half-width, or a cap.

A cell's units (deals, games, decisions) are numbered; batch ``k`` plays the next numbers, so a
cell sized to ``n`` units holds exactly the first ``n`` and common random numbers across arms
and rungs survive.  The stopping rule looks only at the half-width (a precision target, not at
the estimate's sign), which keeps its effect on the interval's coverage small at these sizes;
the report states the rule and the size each cell reached.

>>> chunks = sized(lambda lo, n: list(range(lo, lo + n)), lambda parts: 10 / sum(map(len, parts)),
...                target=0.5, first=4, cap=100)
>>> chunks.units, chunks.met
(32, True)
"""
from __future__ import annotations

from dataclasses import dataclass
from typing import Any, Callable


@dataclass
class Sized:
    """What :func:`sized` played: the batches in order, their unit count, and whether the target was met."""

    parts: list[Any]
    units: int
    half_width: float
    target: float
    met: bool


def sized(play: Callable[[int, int], Any], half_width: Callable[[list[Any]], float], *, target: float,
          first: int, cap: int, grow: float = 2.0, lo: int = 0, step: int = 1) -> Sized:
    """Play ``play(lo, n)`` batches until ``half_width(parts) <= target`` or ``cap`` units are played.

    ``first`` units are played first; each later batch brings the total to ``grow`` times the
    last (so the cell ends within a factor ``grow`` of the size it needs), rounded up to a
    multiple of ``step`` (e.g. the number of lineups, so rotations stay balanced).
    """
    def up(n: int) -> int:
        return -(-int(n) // step) * step

    parts, done = [], 0
    n = min(up(max(first, 1)), cap)
    while True:
        parts.append(play(lo + done, n - done))
        done = n
        h = float(half_width(parts))
        if h <= target or done >= cap:
            return Sized(parts, done, h, target, bool(h <= target))
        n = min(up(done * grow), cap)
