"""The finishing rule as a threshold on the gap, chosen by what it wins.

The family: "finish iff gap <= t" (the gap: the finished layout's score minus the best rival's visible
score, :data:`.findings.GAP_DEFINITION`).  At each decision the rule wins ``win_net`` (finish minus the
best play-on, the chance of winning under net rollouts to the end of the game) when it finishes, 0 when it
plays on: its gain over "always play on".  The printed rule is one threshold for every table size, or one
per size, from the thresholds the card's finish table can hold (:data:`PLAYABLE`: its gap bins' edges, so
the rule can be played by card cells); its regret is measured against the best threshold of every integer,
chosen per table size and per the closest rival's face-down cards (1, 2, 3+).  Every choice is made on one
half of the decisions (split by game) and valued on the other (:mod:`.rule_split`).

This replaces the crossing criterion (a boundary published only when its crossing's interval is within
+-1 point), which measures where finishing stops paying, not what following a threshold costs.
"""
from __future__ import annotations

import math

import numpy as np
import pandas as pd

from gnoming_sim.stats import Estimate, t_mean
from . import rule_split as select

THRESHOLDS = tuple(range(-25, 31))          # the family: every integer threshold (plus never / always)
NEVER, ALWAYS = -10**6, 10**6
PLAYABLE = (-11, -6, -1, 4, 9)              # the card's finish bins' edges: gap < -10, < -5, < 0, < 5, < 10
CARD_DEFAULT = -1                           # the card's stated default: finish when gap < 0
BANDS = ("1", "2", "3+")


def band_of(fd_min) -> np.ndarray:
    """The closest rival's face-down cards (the fewest among the rivals) as a band: 1, 2, 3+."""
    x = np.asarray(fd_min, dtype=np.int64)
    return np.array(BANDS, dtype=object)[np.clip(x, 1, 3) - 1]


def gains(gap, win_pp, thresholds) -> np.ndarray:
    """gain[i, j]: what "finish iff gap <= thresholds[j]" wins at decision i over always playing on."""
    gap = np.asarray(gap, dtype=np.float64)[:, None]
    t = np.asarray(thresholds, dtype=np.float64)[None, :]
    return np.where(gap <= t, np.asarray(win_pp, dtype=np.float64)[:, None], 0.0)


def _label(t: int) -> str:
    if t <= NEVER:
        return "never finish"
    if t >= ALWAYS:
        return "always finish"
    if t == CARD_DEFAULT:
        return "finish iff gap < 0"
    return f"finish iff gap <= {t}"


def threshold_rule(dec: pd.DataFrame, column: str = "win_net", card_finishes=None, seed: int = 50,
                   tolerance: float = select.TOLERANCE_PP) -> dict:
    """The finishing rule of ``dec`` (one row per decision: ``players``, ``gap``, ``others_face_down_min``,
    ``game``, ``preset`` and ``column``, finish minus play-on as a probability).  ``card_finishes``: bool per
    decision, whether the committed card finishes there (None: not compared).  Returns the rule chosen on one
    half (one threshold for all sizes if that is within ``tolerance`` of the best, else one per size), its value
    against always playing on, always finishing and the card, its regret against every threshold by size and
    closest rival's face-down cards, each a fresh-half estimate, per size too (None with fewer than two
    decisions on either half)."""
    win = dec[column].to_numpy(dtype=np.float64) * 100.0
    gap = dec["gap"].to_numpy(dtype=np.float64)
    sizes = dec["players"].to_numpy(dtype=np.int64)
    band = band_of(dec["others_face_down_min"])
    game = (dec["preset"].astype(str) + ":" + dec["game"].astype(str)).to_numpy()
    half = select.halves(game, seed)
    fresh = ~half
    if half.sum() < 2 or fresh.sum() < 2:
        return None
    family = (NEVER, *THRESHOLDS, ALWAYS)
    playable = (NEVER, *PLAYABLE, ALWAYS)
    G = gains(gap, win, family)
    P = gains(gap, win, playable)
    rich_groups = np.array([f"{p}|{b}" for p, b in zip(sizes, band)], dtype=object)
    # ties to the simplest: never, then the thresholds nearest the card's default
    prefer_p = [0] + sorted(range(1, len(playable)), key=lambda j: abs(playable[j] - CARD_DEFAULT))
    best = select.fresh_value(G, rich_groups, half)
    one = select.fresh_value(P, np.zeros(len(dec), dtype=np.int64), half, prefer_p)
    per_size = select.fresh_value(P, sizes, half, prefer_p)
    reg_one, reg_size = select.regret(one, best), select.regret(per_size, best)
    if select.printed(reg_one, tolerance) or not select.printed(reg_size, tolerance):
        fit, reg, shape = one, reg_one, "one threshold"
    else:
        fit, reg, shape = per_size, reg_size, "by table size"
    thresholds = {int(p): playable[fit.choice.get(0 if shape == "one threshold" else int(p), 0)]
                  for p in sorted(set(sizes.tolist()))}
    always = np.where(np.ones(fresh.sum(), bool), win[fresh], 0.0)
    alts = [{"versus": "always play on", **fit.value.to_json()},
            {"versus": "always finish", **select.versus(fit, always).to_json()},
            {"versus": "the card's stated default (finish when gap < 0)",
             **select.versus(fit, gains(gap[fresh], win[fresh], [CARD_DEFAULT])[:, 0]).to_json()}]
    if card_finishes is not None:
        card = np.where(np.asarray(card_finishes, bool)[fresh], win[fresh], 0.0)
        alts.append({"versus": "the committed card's finish cells", **select.versus(fit, card).to_json()})
    by_players = {}
    for p in sorted(set(sizes.tolist())):
        rows = sizes[fresh] == p
        d_best = best.per_decision[rows] - fit.per_decision[rows]
        by_players[str(p)] = {"rule": _label(thresholds[p]), "threshold": _threshold_json(thresholds[p]),
                              "value": _est(fit.per_decision[rows]), "regret": _est(d_best),
                              "best_of_family": _est(best.per_decision[rows]),
                              "best_thresholds": {b: _threshold_json(family[c]) for g, c in best.choice.items()
                                                  for b in [g.split("|")[1]] if g.startswith(f"{p}|")}}
    same = (one.stable if shape == "one threshold" else per_size.stable)
    return {"shape": shape, "thresholds": {str(p): _threshold_json(t) for p, t in thresholds.items()},
            "rule": _label(thresholds[min(thresholds)]) if shape == "one threshold" else "by table size",
            "value": fit.value.to_json(), "regret": reg.to_json(), "printed": select.printed(reg, tolerance),
            "alternatives": alts, "by_players": by_players, "tolerance_pp": tolerance,
            "same_on_the_other_half": bool(same), "choice_half": int(half.sum()), "fresh_half": int(fresh.sum()),
            "value_same_data": select.same_data_value(P, np.zeros(len(dec), dtype=np.int64), prefer_p),
            "column": column, "split": f"by game (seed {seed})"}


def _threshold_json(t) -> int | None | str:
    if t <= NEVER:
        return "never"
    if t >= ALWAYS:
        return "always"
    return int(t)


def _est(x) -> dict:
    x = np.asarray(x, dtype=np.float64)
    if x.size < 2:
        return Estimate(math.nan, math.nan, math.nan, int(x.size)).to_json()
    return t_mean(x).to_json()


def card_finishes(dec: pd.DataFrame) -> np.ndarray:
    """bool per decision: whether the committed card's finish cell says finish there (its printed action, or its
    default where it shows ``?``), the cell read from the decision's gap, the rivals' mean face-down cards and
    the table size as the card player reads them (:func:`gnoming_sim.kernel.policy.card.finish_cell_at`)."""
    from gnoming_sim.kernel.policy import card as C
    from gnoming_sim.kernel.policy import registry
    from gnoming_sim.kernel.policy.dispatch import C_W0
    from gnoming_sim.kernel.engine import strategy_arrays

    _, params = strategy_arrays([registry.get("card")])
    prm = params[0]
    gap = dec["gap"].to_numpy(dtype=np.float64)
    ofd = dec["others_face_down"].to_numpy(dtype=np.float64) / (dec["players"].to_numpy() - 1)
    out = np.zeros(len(dec), dtype=bool)
    for i, (g, f, p) in enumerate(zip(gap, ofd, dec["players"].to_numpy())):
        gb = sum(g >= e for e in C.GAP_EDGES)
        fb = sum(f >= e for e in C.OFD_EDGES)
        sb = 0 if p <= 3 else (1 if p <= 5 else 2)
        a = C.cell_action(prm, np.int64(C_W0), np.int64(C.finish_cell_of(gb, fb, sb)), np.bool_(True))
        out[i] = int(a) == C.A_FINISH
    return out
