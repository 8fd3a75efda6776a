"""Paired experiments on edited deals: the arms of one cell play the same deals, edited.

Common random numbers, made explicit: :func:`gnoming_sim.kernel.engine.deal_orders` gives the
deals a seed would play; a study edits them (swapping cards within a deal, so each arm
keeps the deck's composition) and plays every arm on them with the same seed, so the
play stream (reshuffles, random strategies) is shared too.  The heuristic presets are
deterministic, so two arms of heuristic players differ only through the edit.

Deal layout (one round): positions ``9*s .. 9*s+8`` are seat ``s``'s layout (row-major),
the rest is the draw pile, top first; the first two non-hazard cards after the layouts
seed the discard piles.
"""
from __future__ import annotations

import math
from dataclasses import dataclass
from itertools import groupby
from typing import Callable, Sequence

import numpy as np
import pandas as pd

from gnoming_sim.stats import Z95
from gnoming_sim.game.cards import HAZARD, MULLIGAN
from gnoming_sim.kernel.engine import deal_orders

from gnoming_sim.stats import Estimate
from .study import StudyResult, Table

TRACE_CHUNK = 1024    # games per engine call with traces (a trace buffer is 64 KiB per game)
PLAIN_CHUNK = 8192


@dataclass(frozen=True)
class ArmTable(Table):
    """One arm of a paired experiment: the games of its cell, on the cell's deals as ``arm`` edits them.

    The arms of a cell share ``experiment``, ``players``, ``games`` and ``first_game``; the
    deals are edited, so ``gnoming-sim simulate`` cannot replay them (no command).
    """

    experiment: str = ""
    arm: str = ""

    def command(self, seed: int) -> str:
        return ""

    @property
    def cell(self) -> tuple:
        return (self.experiment, self.players, self.games, self.first_game)


# ----------------------------------------------------------------- deal surgery (vectorised)
def is_special(rows: np.ndarray) -> np.ndarray:
    """Hazards and mulligans: the cards an ordinary-card swap must not move."""
    return (rows == HAZARD) | (rows == MULLIGAN)


def deepest(mask: np.ndarray) -> np.ndarray:
    """Per row of a bool (G, N) mask: the last True column, or -1."""
    n = mask.shape[1]
    last = n - 1 - np.argmax(mask[:, ::-1], axis=1)
    return np.where(mask.any(axis=1), last, -1)


def pick(mask: np.ndarray, rng: np.random.Generator) -> np.ndarray:
    """Per row of a bool (G, N) mask: a uniformly chosen True column, or -1."""
    weights = rng.random(mask.shape) * mask
    return np.where(mask.any(axis=1), np.argmax(weights, axis=1), -1)


def swap(rows: np.ndarray, i: np.ndarray, j: np.ndarray, where: np.ndarray | None = None) -> None:
    """Swap ``rows[g, i[g]]`` and ``rows[g, j[g]]`` in place (only where ``where`` is True)."""
    g = np.arange(rows.shape[0]) if where is None else np.nonzero(where)[0]
    i, j = i[g], j[g]
    tmp = rows[g, i].copy()
    rows[g, i] = rows[g, j]
    rows[g, j] = tmp


def bury_ordinary_partner(rows: np.ndarray, pos: np.ndarray, where: np.ndarray) -> np.ndarray:
    """Swap the card at ``pos`` with the deepest ordinary card of the draw pile; return that position.

    ``rows`` int8 (G, N) is edited in place where ``where``; the deepest ordinary card lies
    at the bottom of the draw pile, which comes into play only when the pile runs out.
    """
    ordinary = ~is_special(rows)
    ordinary[np.arange(rows.shape[0]), np.maximum(pos, 0)] = False
    z = deepest(ordinary)
    where = where & (z >= 0)
    swap(rows, pos, z, where)
    return z


def with_rounds(deals: np.ndarray, rounds: np.ndarray, rows: np.ndarray) -> np.ndarray:
    """A copy of ``deals`` (G, 3, N) with round ``rounds[g]`` of game ``g`` replaced by ``rows[g]``."""
    out = deals.copy()
    out[np.arange(deals.shape[0]), rounds] = rows
    return out


def round_rows(deals: np.ndarray, rounds: np.ndarray) -> np.ndarray:
    """Copy of the deck order of round ``rounds[g]`` of every game: int8 (G, N)."""
    return deals[np.arange(deals.shape[0]), rounds].copy()


def cell_rng(seed: int, *key: int) -> np.random.Generator:
    """The edit randomness of one chunk of one cell: a stream of (study seed, cell, first game)."""
    words = [seed & 0xFFFFFFFF, seed >> 32, *key]
    return np.random.default_rng(np.random.SeedSequence(words))


# ----------------------------------------------------------------- playing the arms
def play_cells(ctx, seed: int, tables: Sequence[ArmTable], advance: Callable[[int], None],
               edit: Callable, keep: Callable, strategies: Callable[[str], object],
               traced: Callable[[ArmTable], bool] = lambda t: False) -> dict[str, pd.DataFrame]:
    """Play every cell's arms on its edited deals, chunk by chunk; concatenate what ``keep`` returns.

    ``edit(cell_tables, lo, deals)`` returns ``(arm deals by arm name, edit facts)``;
    ``keep(cell_tables, lo, results by arm name, facts)`` returns a dict of DataFrames,
    concatenated by key over all chunks and cells.  ``strategies(name)`` resolves a seat
    name (presets and the study's variants).
    """
    parts: dict[str, list[pd.DataFrame]] = {}
    for _, group in groupby(tables, key=lambda t: t.cell):
        arms = list(group)
        first = arms[0]
        chunk = TRACE_CHUNK if any(traced(t) for t in arms) else PLAIN_CHUNK
        stop = first.first_game + first.games
        for lo in range(first.first_game, stop, chunk):
            n = min(chunk, stop - lo)
            deals = deal_orders(n, seed, ctx.deck, first_game=lo)
            arm_deals, facts = edit(arms, lo, deals)
            calls = [dict(players=t.players, strategies=[strategies(s) for s in t.seats], games=n,
                          seed=seed, rules=ctx.rules, deck=ctx.deck, threads=ctx.threads, chunk_size=n,
                          trace=traced(t), deals=arm_deals[t.arm], first_game=lo, rotate=t.rotate)
                     for t in arms]
            results = {}
            for t, res in zip(arms, ctx.simulate_many(calls)):
                results[t.arm] = res
                advance(n)
            for name, frame in keep(arms, lo, results, facts).items():
                parts.setdefault(name, []).append(frame)
    return {name: pd.concat(frames, ignore_index=True) for name, frames in parts.items()}


# ----------------------------------------------------------------- estimates
def standard_errors(a, b) -> tuple[float, float]:
    """(paired, unpaired) standard error of ``mean(a - b)``.

    Paired: ``sd(a - b) / sqrt(n)``, using that ``a[i]`` and ``b[i]`` share a deal.
    Unpaired: ``sqrt(var(a) / n + var(b) / n)``, what two independent samples of the same
    size would give.  The ratio of their squares is the factor of games pairing saves.
    """
    a = np.asarray(a, dtype=np.float64)
    b = np.asarray(b, dtype=np.float64)
    n = a.size
    if n < 2:
        return math.nan, math.nan
    paired = float(np.std(a - b, ddof=1)) / math.sqrt(n)
    unpaired = math.sqrt((float(np.var(a, ddof=1)) + float(np.var(b, ddof=1))) / n)
    return paired, unpaired


def difference(x: Estimate, y: Estimate) -> Estimate:
    """``x - y`` for two estimates from independent samples (normal approximation)."""
    se = math.hypot((x.hi - x.lo) / (2 * Z95), (y.hi - y.lo) / (2 * Z95))   # each interval is mean +- Z95 se
    d = x.mean - y.mean
    return Estimate(d, d - Z95 * se, d + Z95 * se, min(x.n, y.n))


def nothing_to_measure(reason: str) -> StudyResult:
    """The result of a study whose experiment the deck rules out (its template shows ``empty``)."""
    return StudyResult(findings=[], figures=[], frames={}, summary={"skipped": reason}, precision=[],
                       context={"empty": reason})


# ----------------------------------------------------------------- edit randomness keyed by game number
_M1, _M2, _GOLD = np.uint64(0xBF58476D1CE4E5B9), np.uint64(0x94D049BB133111EB), np.uint64(0x9E3779B97F4A7C15)


def _mix64(z: np.ndarray) -> np.ndarray:
    """SplitMix64's finaliser, elementwise on uint64."""
    z = (z ^ (z >> np.uint64(30))) * _M1
    z = (z ^ (z >> np.uint64(27))) * _M2
    return z ^ (z >> np.uint64(31))


def game_uniforms(seed: int, games, stream: int, width: int) -> np.ndarray:
    """Uniforms in [0, 1), float64 (G, width), that depend only on (seed, game number, stream, column).

    An edit drawn from them is the same for a game whatever chunk, cell size or table plays it, so
    arms and rungs of different sizes that share game numbers get the very same edits (a smaller
    rung plays the first deals of a bigger one's, edited alike).
    """
    g = np.asarray(games, dtype=np.uint64).reshape(-1, 1)
    c = np.arange(width, dtype=np.uint64).reshape(1, -1)
    with np.errstate(over="ignore"):
        z = _mix64(np.uint64(seed & 0xFFFFFFFFFFFFFFFF) + _GOLD * (np.uint64(stream) + np.uint64(1)))
        z = _mix64(z ^ (g * _GOLD))
        z = _mix64(z + (c + np.uint64(1)) * _GOLD)
    return (z >> np.uint64(11)).astype(np.float64) * (1.0 / 9007199254740992.0)


def pick_with(mask: np.ndarray, u: np.ndarray) -> np.ndarray:
    """Per row of a bool (G, N) mask: the True column with the largest uniform ``u`` (G, N), or -1."""
    weights = (u + 1e-12) * mask
    return np.where(mask.any(axis=1), np.argmax(weights, axis=1), -1)
