"""The guide study's estimates, findings and summary: the committed guide's cells and the chart's check."""
from __future__ import annotations

import math

import pandas as pd

from ..framework.estimates import Estimate
from ..framework.study import Answer, Finding, Precision, StudyResult
from . import figures as figs
from .design import HEADLINE_PLAYERS

TABLES = (("source", "Take a discard pile's top card, or draw blind", ("card", "use")),
          ("place", "Where to put a kept card (or throw a blind draw away)", ("drawn", "card", "use")),
          ("finish", "Finish the round, or play on", ("gap", "rivals_fd", "players")))


def est(e: dict) -> Estimate:
    return Estimate(float(e["mean"]), float(e["ci95"][0]), float(e["ci95"][1]), int(e["n"]))


def _status(c: dict) -> str:
    if c.get("chart"):
        return "resolved; the chart plays it"
    if c.get("resolved"):
        return "resolved; expert's own rule does as well here, and the chart plays that"
    return c.get("note", "not resolved")


def _cells(table: dict, keys) -> list[dict]:
    """A table's cells with a recommendation, resolved first: their words, action, margin and status."""
    out = []
    for c in table["cells"]:
        if c.get("best") is None:
            continue
        out.append({"where": ", ".join(str(c[k]) for k in keys), "action": c["action"], "rival": c["rival"],
                    "margin": Estimate(c["margin"], c["lo"], c["hi"], c["margin_n"]), "resolved": c["resolved"],
                    "chart": bool(c.get("chart")),
                    "status": _status(c)})
    return sorted(out, key=lambda c: (not c["resolved"], -c["margin"].mean))


def analyse(ctx, tables, data: dict) -> StudyResult:
    guide = data["guide"]
    stats = guide.get("tables", {})
    sections = [{"name": name, "title": title, "decisions": stats[name]["decisions"], "tests": stats[name]["tests"],
                 "seen": len(stats[name]["cells"]), "cells": _cells(stats[name], keys)}
                for name, title, keys in TABLES if name in stats]
    checks = [{"players": c["players"], "deals": c["deals"], "diff": est(c["diff"]), "win": est(c["win"]),
               "win_x": est(c["win_x"]), "win_expert": c["win_expert"]} for c in data["checks"]]
    frames = {"cells": pd.DataFrame([{"table": s["name"], "cell": c["where"], "action": c["action"],
                                      "versus": c["rival"], "margin": c["margin"].mean, "lo": c["margin"].lo,
                                      "hi": c["margin"].hi, "n_decisions": c["margin"].n, "resolved": c["resolved"]}
                                     for s in sections for c in s["cells"]]),
              "check": pd.DataFrame([{"players": c["players"], "diff": c["diff"].mean, "lo": c["diff"].lo,
                                      "hi": c["diff"].hi, "n_deals": c["diff"].n, "win": c["win"].mean,
                                      "win_lo": c["win"].lo, "win_hi": c["win"].hi} for c in checks])}
    summary = {"cells_resolved": len(guide["cells"]), "decisions": guide.get("provenance", {}).get("decisions"),
               "margin_sign": "the chart seat's game score minus an expert's in that seat on the same deals: "
                              "negative is better",
               "by_players": {str(c["players"]): {"chart_vs_expert": c["diff"].to_json(),
                                                  "win_share_vs_expert": c["win"].to_json()} for c in checks}}
    findings = []
    head = next((c for c in checks if c["players"] == HEADLINE_PLAYERS), checks[0] if checks else None)
    if head is not None and head["diff"].finite and not math.isnan(head["diff"].mean):
        findings.append(Finding("guide.chart_vs_expert",
                                f"Following the player's guide (the {len(guide['cells'])} cells that beat expert's own rule; expert's rules "
                                f"elsewhere) instead of expert's rules changes a seat's game score by {{value}} "
                                f"points per game at {head['players']} players among experts (negative is better)",
                                head["diff"], "signed", "deals"))
    answers = []
    if findings and head["diff"].excludes(0.0):
        answers.append(Answer("guide.chart_vs_expert",
                              f"Playing by the guide's card (docs/guide.md) instead of expert's rules changes your game "
                              f"score by {{value}} points a game at {head['players']} players", head["diff"],
                              "expert (one guide seat among experts)", kind="signed", unit="deals", rank=50))
    precision = [Precision("chart against expert", max(c["diff"].half_width for c in checks), "points")] if checks else []
    figures = [figs.margins_figure(sections)] if any(c["chart"] for s in sections for c in s["cells"]) else []
    return StudyResult(findings=findings, figures=figures, frames=frames, summary=summary, precision=precision,
                       answers=answers, context={"sections": sections, "checks": checks, "resolved": len(guide["cells"]),
                                "provenance": guide.get("provenance", {})})
