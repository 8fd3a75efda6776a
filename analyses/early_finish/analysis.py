"""Estimates, findings and summary of the early-finish study (design in :mod:`.design`)."""
from __future__ import annotations

import math

import numpy as np
import pandas as pd

from ..framework.design import HEURISTIC_NAMES
from ..framework.estimates import Estimate, estimates_frame, fit_logistic
from ..framework.study import Finding, Precision, StudyResult
from . import figures as figs
from .design import HEADLINE_PLAYERS, PLAYERS, WINDOW

def analyse(ctx, tables, data) -> StudyResult:
    rounds_played = {p: 3 * sum(t.games for t in tables if t.players == p) for p in PLAYERS}
    stalled = int(data["stalled"].sum())
    finishes = data.groupby("players").size()   # stalled final laps included
    data = data[~data["stalled"]]
    min_n = 10 if ctx.quick else 40
    overall = _share(data)
    by_players = [_by_players(p, data[data["players"] == p], int(finishes[p]), rounds_played[p]) for p in PLAYERS
                  if (data["players"] == p).any()]
    presets = _presets(data)
    curves = {col: _curves(data, col, min_n) for col in ("score", "gap", "own_turn")}
    facedown = _facedown_curves(data[data["players"] == HEADLINE_PLAYERS], min_n)
    frames = {"by_players": estimates_frame(by_players), "presets": estimates_frame(presets),
              **{f"by_{col}": estimates_frame(rows) for col, rows in curves.items()}}
    figures = [figs.score_figure(curves["score"], by_players), figs.gap_figure(curves["gap"], facedown),
               figs.players_figure(by_players, presets), figs.turn_figure(curves["own_turn"])]
    precision = [Precision("P(bonus), all finished rounds", overall.half_width, "pct"),
                 Precision("P(bonus) at one table size", max(r["bonus"].half_width for r in by_players), "pct")]
    thresholds = [r["score_50"] for r in by_players if r["score_50"] is not None]
    if thresholds:
        precision.append(Precision("score where finishing breaks even", max(t.half_width for t in thresholds),
                                   "points"))
    return StudyResult(
        findings=_findings(overall, by_players, presets), figures=figures, frames=frames,
        precision=precision, summary=_summary(overall, by_players, presets, stalled),
        context={"overall": overall, "by_players": by_players, "presets": _preset_rows(presets),
                 "stalled": stalled, "finished": len(data), "sizes": [r["players"] for r in by_players],
                 "games": {p: sum(t.games for t in tables if t.players == p) for p in PLAYERS},
                 "lineups": {p: [t.seats for t in tables if t.players == p] for p in PLAYERS}},
    )


# ---------------------------------------------------------------- estimates
def _share(rows: pd.DataFrame) -> Estimate:
    return Estimate.of_share(int(rows["earned"].sum()), len(rows))


def _threshold(rows: pd.DataFrame, column: str) -> Estimate | None:
    """Where P(bonus) crosses 1/2 as ``column`` grows, with its 95% interval (None if it does not).

    A logistic fit over the whole range places the crossing roughly; a second fit over
    the values within :data:`WINDOW` points of it places it precisely (the curve is
    not a logistic all the way into its tails).
    """
    grouped = rows.groupby(column)["earned"].agg(["sum", "size"])
    x, k, n = grouped.index.to_numpy(), grouped["sum"].to_numpy(), grouped["size"].to_numpy()
    cross = None
    for _ in range(2):
        near = slice(None) if cross is None else np.abs(x - cross.mean) <= WINDOW
        fit = fit_logistic(x[near], k[near], n[near])
        cross = None if fit is None else fit.crossing(0.5)
        if cross is None or not cross.finite or not x.min() <= cross.mean <= x.max():
            return None
    return cross


def _by_players(p: int, rows: pd.DataFrame, finishes: int, rounds: int) -> dict:
    score_50, gap_50 = _threshold(rows, "score"), _threshold(rows, "gap")
    return {"players": p, "bonus": _share(rows), "finished": Estimate.of_share(finishes, rounds),
            "score": Estimate.of_mean(rows["score"].to_numpy()),
            "score_50": score_50, "pays_at_most": None if score_50 is None else math.floor(score_50.mean),
            "gap_50": gap_50, "gap_at_most": None if gap_50 is None else math.floor(gap_50.mean)}


def _presets(data: pd.DataFrame) -> list[dict]:
    """Per preset and table size (and all sizes: ``players`` 0): its share of the finishes,
    P(bonus) and mean finishing score.  Every preset fills a quarter of the seats, so an
    even share of the finishes is 25%.
    """
    rows = []
    for p in (*PLAYERS, 0):
        table = data if p == 0 else data[data["players"] == p]
        if table.empty:
            continue
        for name in HEURISTIC_NAMES:
            sub = table[table["strategy"] == name]
            rows.append({"strategy": name, "players": p, "finish_share": Estimate.of_share(len(sub), len(table)),
                         "bonus": _share(sub) if len(sub) else None,
                         "score": Estimate.of_mean(sub["score"].to_numpy()) if len(sub) > 1 else None})
    return rows


def _curves(data: pd.DataFrame, column: str, min_n: int) -> list[dict]:
    """P(bonus) per table size and value of ``column`` (values with at least ``min_n`` rounds)."""
    grouped = data.groupby(["players", column])["earned"].agg(["sum", "size"])
    return [{"players": int(p), column: int(x), "bonus": Estimate.of_share(int(k), int(n))}
            for (p, x), (k, n) in grouped.iterrows() if n >= min_n]


def _facedown_curves(rows: pd.DataFrame, min_n: int) -> list[dict]:
    """P(bonus) by gap, split by how many cards the best visible rival still hides."""
    bands = pd.cut(rows["best_facedown"], [-1, 1, 3, 9], labels=["0-1", "2-3", "4+"])
    grouped = rows.groupby([bands, rows["gap"]], observed=True)["earned"].agg(["sum", "size"])
    return [{"hidden": str(b), "gap": int(g), "bonus": Estimate.of_share(int(k), int(n))}
            for (b, g), (k, n) in grouped.iterrows() if n >= min_n]


# ---------------------------------------------------------------- outputs
def _preset_rows(presets: list[dict]) -> list[dict]:
    """One row per preset, a cell per table size (None where it never finished)."""
    out = {}
    for r in presets:
        out.setdefault(r["strategy"], {"strategy": r["strategy"], "cells": {}})["cells"][r["players"]] = r
    return list(out.values())


def _findings(overall, by_players, presets) -> list[Finding]:
    found = [Finding("early_finish.bonus_probability",
                     "A player who turns their final card earns the \u22125 (rather than the +5) "
                     "in {value} of finished rounds (heuristic tables, 2 to 7 players)",
                     overall, "pct", "finished rounds")]
    main = next((r for r in by_players if r["players"] == HEADLINE_PLAYERS), None)
    if main is not None and main["score_50"] is not None:
        found.append(Finding(
            "early_finish.threshold",
            f"Rule of thumb: with {HEADLINE_PLAYERS} players, finishing pays when your score is at most "
            f"{main['pays_at_most']}; the bonus is an even bet at a score of {{value}}",
            main["score_50"], "score", "finished rounds"))
    at_p = [r for r in presets if r["players"] == HEADLINE_PLAYERS and r["bonus"] is not None]
    if at_p:
        most = max(at_p, key=lambda r: r["finish_share"].mean)
        found.append(Finding(
            "early_finish.most_frequent_finisher",
            f"With {HEADLINE_PLAYERS} players, {most['strategy']} finishes most often "
            f"({100 * most['finish_share'].mean:.0f}% of the finishes, where an even share is 25%) and earns the \u22125 in {{value}} of them",
            most["bonus"], "pct", "finished rounds"))
    return found


def _summary(overall, by_players, presets, stalled) -> dict:
    def opt(e):
        return None if e is None else e.to_json()

    return {
        "bonus_probability": overall.to_json(),
        "stalled_final_laps": stalled,
        "by_players": {str(r["players"]): {
            "bonus_probability": r["bonus"].to_json(), "finish_rate": r["finished"].to_json(),
            "finishing_score": r["score"].to_json(), "even_bet_score": opt(r["score_50"]),
            "finishing_pays_at_most": r["pays_at_most"], "even_bet_gap": opt(r["gap_50"]),
            "finishing_pays_at_gap_at_most": r["gap_at_most"]} for r in by_players},
        "by_preset": {r["strategy"]: {"finish_share": r["finish_share"].to_json(),
                                      "bonus_probability": opt(r["bonus"]), "finishing_score": opt(r["score"])}
                      for r in presets if r["players"] == 0},
    }
