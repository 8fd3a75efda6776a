"""The house-rules study: the baseline and seven variants played on the same deals.

The experiment itself is :func:`gnoming_sim.experiments.compare.compare` (the engine of
``gnoming-sim compare``); this module turns its comparison into findings, a table, a
figure and CSV frames.  The baseline is always the published rules and deck.
"""
from __future__ import annotations

import math

import numpy as np
import pandas as pd

from gnoming_sim.experiments.compare import CHANGE_KIND, HOUSE_RULES, KIND, LABELS, MEASURES, compare

from ..framework.estimates import Estimate
from ..framework.study import Finding, Precision, Study, StudyResult, Table
from . import figures

PLAYERS = 4
SEATS = ("builder", "greedy", "rusher", "cautious")
SHORT = {"turns": "turns per round\n(all players)", "stalled": "rounds\nstalled", "score": "game score\nper seat",
         "seat_spread": "seat advantage\n(max - min win share)", "skill_gap": "skill gap\n(win share)",
         "close": "games won by\n<= 5 points", "minus5": "finisher's\n-bonus rate"}
UNIT = {"turns": "turns per round", "stalled": "of rounds", "score": "points per game", "seat_spread": "win share",
        "skill_gap": "win share", "close": "of games", "minus5": "of finished rounds"}


def _est(d: dict | None, n: int) -> Estimate | None:
    if d is None or not math.isfinite(d["mean"]):
        return None
    return Estimate(float(d["mean"]), float(d["lo"]), float(d["hi"]), int(n))


class HouseRules(Study):
    id = "house-rules"
    title = "House rules"
    template = "house_rules/template.html"
    default_games = 40_000   # games per variant, the same deals for each
    quick_games = 400

    def design(self, ctx) -> list[Table]:
        games = ctx.cell_games(self)
        return [Table(PLAYERS, SEATS, games, label=name) for name in ("baseline", *(v.name for v in HOUSE_RULES))]

    def play(self, ctx, seed, tables, advance):
        games = tables[0].games
        done = [0]

        def progress(total):
            advance(total - done[0])
            done[0] = total

        return compare(HOUSE_RULES, PLAYERS, SEATS, games, seed, rotate=True, threads=ctx.threads,
                       progress=progress)

    def analyse(self, ctx, tables, data) -> StudyResult:
        c = data
        G = c.games
        rows, cells = [], []
        for variant, est, ch in zip(c.variants, c.estimates, c.changes):
            row = {"variant": variant.name, "deck": variant.deck.name, "paired": ch.get("paired") if ch else None,
                   "values": {}, "changes": {}}
            for m in MEASURES:
                value = _est(est.get(m), G)
                change = _est(ch.get(m), G) if ch else None
                row["values"][m] = value
                row["changes"][m] = change
                cells.append({"variant": variant.name, "measure": m, "label": LABELS[m], "unit": UNIT[m],
                              "mean": value.mean if value else np.nan, "lo": value.lo if value else np.nan,
                              "hi": value.hi if value else np.nan,
                              "change": change.mean if change else np.nan,
                              "change_lo": change.lo if change else np.nan,
                              "change_hi": change.hi if change else np.nan,
                              "paired": row["paired"], "n_games": G})
            rows.append(row)
        frame = pd.DataFrame(cells)
        findings = _findings(rows)
        summary = {"players": PLAYERS, "seats": list(SEATS), "games_per_variant": G,
                   "skill_gap_between": [c.strongest, c.weakest],
                   "variants": {r["variant"]: {
                       "paired": r["paired"],
                       "values": {m: (e.to_json() if e else None) for m, e in r["values"].items()},
                       "change_vs_baseline": ({m: (e.to_json() if e else None) for m, e in r["changes"].items()}
                                              if r["paired"] is not None else None)}
                       for r in rows}}
        worst = max((e.half_width, m) for r in rows[1:] for m, e in r["changes"].items() if e)
        precision = [Precision(f"change in {LABELS[worst[1]]}", worst[0], KIND[worst[1]])]
        figs = [figures.changes_grid(rows[1:], MEASURES, SHORT, CHANGE_KIND)]
        context = {"rows": rows, "measures": MEASURES, "labels": LABELS, "kinds": KIND, "change_kinds": CHANGE_KIND,
                   "units": UNIT,
                   "players": PLAYERS, "seats": SEATS, "games": G, "strongest": c.strongest,
                   "weakest": c.weakest}
        return StudyResult(findings, figs, {"variants": frame}, summary, precision, context)


def _findings(rows) -> list[Finding]:
    """Two headlines, chosen from the data: the variant that lengthens or shortens rounds
    most, and the one that changes the skill gap most (each with its paired interval)."""
    out = []
    variants = [r for r in rows[1:] if r["paired"]]
    by_turns = max(variants, key=lambda r: abs(r["changes"]["turns"].mean))
    out.append(Finding("house_rules_turns",
                       f"Of the house rules on the published deck, '{by_turns['variant']}' changes a round's "
                       "length most: {value} turns per round (all players) against the published rules",
                       by_turns["changes"]["turns"], "signed", "games"))
    gaps = [r for r in rows[1:] if r["changes"]["skill_gap"] is not None]
    if gaps:
        by_skill = max(gaps, key=lambda r: abs(r["changes"]["skill_gap"].mean))
        out.append(Finding("house_rules_skill",
                           f"'{by_skill['variant']}' changes the skill gap (win share of the strongest minus the "
                           "weakest heuristic at the table) most: {value} (percentage points)",
                           by_skill["changes"]["skill_gap"], "dpct", "games"))
    return out
