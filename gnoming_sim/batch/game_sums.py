"""Per-game sufficient statistics, added block by block: sums over games, histograms.

The independent unit of a batch is the game: the seats of one game share its deal.
So every interval here is over games.  For a group (a strategy, or a seat) and a
quantity summed over the group's seats and the game's rounds, ``X_g``, a
:class:`GroupSums` keeps ``n``, ``sum X_g``, ``sum X_g**2`` (and ``sum X_g Y_g`` for the
ratios it is asked for) as exact integers, so a file read in any blocking gives the
same numbers.  A group's per-game value is ``X_g / (seats * per)``: its seats' mean,
per round when ``per = 3``.  A strategy holds the same number of seats in every game
of a batch (rotation moves seats, not counts); :meth:`GroupSums.add` checks it.

:class:`Hist` counts integer values per label in a table that grows to fit them.
Nothing here reads files or imports the engine.
"""
from __future__ import annotations

import math
from dataclasses import dataclass
from typing import Sequence

import numpy as np

from gnoming_sim.stats import mean_ci_from_sums, ratio_ci_from_sums, wilson
from gnoming_sim.game.errors import GnomingError


@dataclass(frozen=True)
class Interval:
    """A mean (or share) with its 95% interval over ``n`` independent units."""

    mean: float
    lo: float
    hi: float
    n: int


class GroupSums:
    """Exact per-game sums of named quantities for ``groups`` labels.

    ``quantities`` names the rows of the ``X`` given to :meth:`add`; ``cross`` the pairs
    ``(num, den)`` whose ratio ``sum num / sum den`` gets an interval clustered by game.
    """

    def __init__(self, quantities: Sequence[str], groups: int, cross: Sequence[tuple[str, str]] = ()):
        self.quantities = tuple(quantities)
        self.index = {q: i for i, q in enumerate(self.quantities)}
        self.groups = int(groups)
        self.games = 0
        self.seats: np.ndarray | None = None   # seats per game of each group
        q = len(self.quantities)
        self._sum = [[0] * self.groups for _ in range(q)]   # Python ints: never overflow
        self._sq = [[0] * self.groups for _ in range(q)]
        self.cross = tuple(cross)
        self._cross = {pair: [0] * self.groups for pair in self.cross}

    def add(self, x: np.ndarray, onehot: np.ndarray | None = None) -> None:
        """Add games: ``x`` int (Q, G, P), each quantity per (game, seat) summed over rounds;
        ``onehot`` (G, P, groups) of 0/1 puts each seat in its group (None: group = seat)."""
        if onehot is None:
            y = x.astype(np.int64, copy=False)
            counts = np.ones((x.shape[1], x.shape[2]), dtype=np.int64)
        else:
            # a batched float matmul is ~20x faster than an integer einsum; the values are
            # small integers (|x| < 2**20), so every product and sum is exact
            prod = np.matmul(x.transpose(1, 0, 2).astype(np.float64), onehot.astype(np.float64))
            y = np.rint(prod).astype(np.int64).transpose(1, 0, 2)
            counts = onehot.sum(axis=1, dtype=np.int64)
        if y.shape[1] == 0:
            return
        if self.seats is None:
            self.seats = counts[0].copy()
        if not (counts == self.seats).all():
            raise GnomingError("a strategy holds a different number of seats in different games: "
                               "the file is damaged")
        sums = y.sum(axis=1)                       # (Q, K); per block far below 2**63
        squares = np.einsum("qgk,qgk->qk", y, y)
        for i in range(len(self.quantities)):
            for k in range(self.groups):
                self._sum[i][k] += int(sums[i, k])
                self._sq[i][k] += int(squares[i, k])
        for num, den in self.cross:
            prod = np.einsum("gk,gk->k", y[self.index[num]], y[self.index[den]])
            for k in range(self.groups):
                self._cross[(num, den)][k] += int(prod[k])
        self.games += y.shape[1]

    def total(self, quantity: str, k: int) -> int:
        return self._sum[self.index[quantity]][k]

    def mean(self, quantity: str, k: int, per: int = 1, scale: int = 1) -> Interval:
        """Mean over games of ``X_g / (seats * per * scale)`` with its normal 95% interval."""
        i = self.index[quantity]
        div = 1 if self.seats is None else int(self.seats[k]) * per * scale
        return Interval(*mean_ci_from_sums(self.games, self._sum[i][k], self._sq[i][k], scale=div))

    def ratio(self, num: str, den: str, k: int) -> Interval:
        """The proportion ``sum num / sum den`` (``num <= den`` in every game), with a
        delta-method 95% interval clustered by game, clipped to [0, 1].

        ``n`` is the number of games; the interval is nan when ``den`` is 0 in every game.
        """
        n = self.games
        a, b = self._sum[self.index[num]][k], self._sum[self.index[den]][k]
        if n < 2 or b == 0:
            r = a / b if b else math.nan
            return Interval(r, math.nan, math.nan, n)
        aa, bb = self._sq[self.index[num]][k], self._sq[self.index[den]][k]
        return Interval(*ratio_ci_from_sums(n, a, b, aa, bb, self._cross[(num, den)][k]), n)


def win_share(sums: GroupSums, k: int, players: int, unit: int) -> Interval:
    """Group ``k``'s win share (quantity ``win``, credits in ``1 / unit`` of a win) with its 95%
    interval over games: a Wilson one for a group in one seat per game, whose credit is a win or
    not (1/j when shared by j): a share, kept inside [0, 1] where the normal interval crosses 0
    for a rare winner; also when the sample has no spread although the share is not certain.  A
    group in several seats gets the normal interval of its per-game mean; one in every seat its
    exact share, 1/players."""
    i = sums.mean("win", k, scale=unit)
    seats = int(sums.seats[k]) if sums.seats is not None else 0
    if 0 < seats < players and (seats == 1 or i.lo == i.hi):
        _, lo, hi = wilson(sums.total("win", k) / (unit * seats), sums.games)
        return Interval(i.mean, lo, hi, i.n)
    return i


def share(successes: int, n: int) -> Interval:
    """A proportion with its Wilson 95% interval (``n`` independent trials)."""
    p, lo, hi = wilson(successes, n)
    return Interval(p, lo, hi, int(n))


class Hist:
    """Counts of integer values per label: ``counts[label, value - lo]``."""

    def __init__(self, labels: int):
        self.labels = int(labels)
        self.lo = 0
        self.counts = np.zeros((self.labels, 0), dtype=np.int64)

    def add(self, labels: np.ndarray, values: np.ndarray) -> None:
        """Count ``values`` (int, any shape) under ``labels`` (int, same shape)."""
        v = np.asarray(values).ravel()
        if v.size == 0:
            return
        lo, hi = int(v.min()), int(v.max())
        self._grow(lo, hi)
        width = self.counts.shape[1]
        idx = np.asarray(labels).ravel() * np.int64(width)   # a new int64 array, then in place
        idx += v
        idx -= self.lo
        self.counts += np.bincount(idx, minlength=self.labels * width).reshape(self.labels, width)

    def _grow(self, lo: int, hi: int) -> None:
        width = self.counts.shape[1]
        if width and lo >= self.lo and hi < self.lo + width:
            return
        new_lo = lo if not width else min(lo, self.lo)
        new_hi = hi if not width else max(hi, self.lo + width - 1)
        grown = np.zeros((self.labels, new_hi - new_lo + 1), dtype=np.int64)
        grown[:, self.lo - new_lo:self.lo - new_lo + width] = self.counts
        self.lo, self.counts = new_lo, grown

    @property
    def values(self) -> np.ndarray:
        """The value of each column of :attr:`counts`."""
        return np.arange(self.lo, self.lo + self.counts.shape[1])

    def mean(self, label: int) -> float:
        c = self.counts[label]
        return float((c * self.values).sum() / c.sum()) if c.sum() else math.nan
