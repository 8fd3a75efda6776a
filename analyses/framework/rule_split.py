"""Choosing a rule on one half of the decisions and valuing it on the other.

A *family* of rules is a matrix ``gain[i, r]``: what rule ``r`` wins at decision ``i`` against a fixed
baseline (pp of win chance, by the oracle).  A rule may depend on a *group* of the decision (the table size,
the closest rival's face-down cards): a grouped rule picks one column per group.  Selection picks, per
group, the column with the highest mean gain on the *choice* half; the rule's value, and its regret
against the best rule of a richer family (a finer grouping), are means over the *fresh* half's
decisions, so the selection does not flatter them (:func:`fresh_value`).  Decisions are split by game
(:func:`halves`): decisions of one game never sit on both sides.
"""
from __future__ import annotations

import zlib
from dataclasses import dataclass

import numpy as np

from gnoming_sim.stats import Estimate, t_mean

TOLERANCE_PP = 0.2      # a rule is printed when its regret per decision is under this (pp of win chance)


def halves(games, seed: int = 50) -> np.ndarray:
    """bool per decision: True on the choice half, False on the fresh half; by game (a hash of the game's
    label and ``seed``), so the split does not depend on the order of the rows."""
    words = [zlib.crc32(f"{seed}:{g}".encode()) for g in np.asarray(games).tolist()]
    return (np.asarray(words, dtype=np.int64) & 1) == 0


def choose(gain: np.ndarray, groups: np.ndarray, mask: np.ndarray, prefer=None) -> dict:
    """Per group (of the rows in ``mask``): the column of ``gain`` with the highest mean; ties go to the
    first column in ``prefer`` order (default: the lowest index), so the simplest rule wins a tie."""
    gain = np.asarray(gain, dtype=np.float64)
    order = np.arange(gain.shape[1]) if prefer is None else np.asarray(prefer)
    out = {}
    for g in np.unique(groups):
        rows = mask & (groups == g)
        if not rows.any():
            continue
        means = gain[rows][:, order].mean(axis=0)
        out[g.item() if hasattr(g, "item") else g] = int(order[int(np.argmax(means))])
    return out


def apply(gain: np.ndarray, groups: np.ndarray, choice: dict, default: int = 0) -> np.ndarray:
    """Per decision: the gain of the column ``choice`` picks for its group (``default`` for a group the
    choice half never saw)."""
    cols = np.array([choice.get(g.item() if hasattr(g, "item") else g, default) for g in groups], dtype=np.int64)
    return np.asarray(gain, dtype=np.float64)[np.arange(len(cols)), cols]


@dataclass
class Fit:
    """A rule chosen on the choice half and valued on the fresh half."""

    choice: dict            # group -> column, chosen on the choice half
    other: dict             # the same chosen on the fresh half (stability: the same rule?)
    per_decision: np.ndarray  # fresh half: each decision's gain under the chosen rule
    value: Estimate         # mean of per_decision (pp per decision)

    @property
    def stable(self) -> bool:
        return self.choice == self.other


def fresh_value(gain, groups, choose_half: np.ndarray, prefer=None) -> Fit:
    """Choose per group on ``choose_half``, value on the rest."""
    gain = np.asarray(gain, dtype=np.float64)
    groups = np.asarray(groups)
    c = choose(gain, groups, choose_half, prefer)
    o = choose(gain, groups, ~choose_half, prefer)
    fresh = ~choose_half
    per = apply(gain[fresh], groups[fresh], c)
    return Fit(c, o, per, t_mean(per) if per.size > 1 else Estimate(float("nan"), float("nan"), float("nan"), 0))


def same_data_value(gain, groups, prefer=None) -> float:
    """The flattering estimate: the rule chosen on all decisions, valued on the same decisions."""
    gain = np.asarray(gain, dtype=np.float64)
    groups = np.asarray(groups)
    c = choose(gain, groups, np.ones(len(groups), dtype=bool), prefer)
    return float(apply(gain, groups, c).mean())


def regret(rule: Fit, best: Fit) -> Estimate:
    """The fresh half's mean of (the best rule of the family - the rule), paired per decision."""
    d = best.per_decision - rule.per_decision
    return t_mean(d) if d.size > 1 else Estimate(float("nan"), float("nan"), float("nan"), 0)


def versus(rule: Fit, other: np.ndarray) -> Estimate:
    """The fresh half's mean of (the rule - another fixed action), ``other`` the other's gain per fresh
    decision (against the same baseline)."""
    d = rule.per_decision - np.asarray(other, dtype=np.float64)
    return t_mean(d) if d.size > 1 else Estimate(float("nan"), float("nan"), float("nan"), 0)


def printed(reg: Estimate, tolerance: float = TOLERANCE_PP) -> bool:
    """Whether a rule is printed: its regret per decision is shown to be under ``tolerance`` (the upper end of
    its 95% interval on the fresh half; a mean under it with a wide interval is too few decisions to tell)."""
    return bool(np.isfinite(reg.hi) and reg.hi < tolerance)
