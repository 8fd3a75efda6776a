"""The card study's estimates, findings and summary: the committed card's cells and the check of the card
(the headline: the printed card as a person plays it) and of its starred cells (expert elsewhere)."""
from __future__ import annotations

import math

import pandas as pd

from ..framework.design import STRONG, TOP_DIFFERENCE
from gnoming_sim.stats import Estimate
from ..framework.study import Answer, Finding, Precision, StudyResult, estimand
from ..framework.words import convergence, equivalence, holds_under, power_json, power_text
from . import figures as figs
from .design import ALONG, HEADLINE_PLAYERS, TARGET

TABLES = (("source", "Take a discard pile's top card, or draw blind", ("card", "use")),
          ("place", "Where to put a kept card (or throw a blind draw away)", ("drawn", "card", "use")),
          ("finish", "Finish the round, or play on", ("gap", "rivals_fd", "players")))


# what the card player's estimate is conditional on (the answer's "holds under")
CARD_CONDITIONS = ("expert (one card seat among three experts, seats rotating, paired by deal); the card's "
                   "stated default where it shows ?, and expert's choices for what the card leaves open: "
                   "initial flips, bounces, the discard pile, hazard flips and the position within an action")
# the same, read along the ladder: the rivals are one rung's player at every other seat
LADDER_CONDITIONS = ("one card seat among three rivals of that player, against expert in that seat among the same "
                     "rivals, seats rotating, paired by deal; the card's stated default where it shows ?, and expert's "
                     "choices for what the card leaves open")
LABELS = {"card": "the printed card (every resolved cell, its default where it shows ?)",
          "card-starred": "the card's starred cells (they beat expert's own rule), expert's rules elsewhere"}
KEYS = {"card": "card", "card-starred": "starred"}   # a checked strategy's word in the summary's keys


def holm_family(stats: dict) -> str:
    """How the card's cells were judged, in words: one Holm family over the whole card with intervals
    clustered by round (tune.card.derive now), or per table with plain t intervals (a card derived before)."""
    family = {t.get("family") for t in stats.values()}
    if None not in family and len(family) == 1:
        return (f"one family over the whole card ({family.pop()} tests), intervals clustered by self-play "
                f"round")
    return ("per table, with t intervals over decisions (this card was derived before the one-family rule and "
            "the intervals clustered by round; `gnoming-sim card` re-derives it)")


def est(e: dict) -> Estimate:
    return Estimate(float(e["mean"]), float(e["ci95"][0]), float(e["ci95"][1]), int(e["n"]))


def _status(c: dict) -> str:
    if c.get("origin"):       # a card made by policy iteration (tune.card.iterate)
        if c.get("margin") is None:
            return f"from {c['origin']}; not valued (no decision where its actions differ was sampled)"
        return f"from {c['origin']}" + ("; valued on one decision only" if c.get("margin_n", 0) < 2 else "")
    if c.get("chart"):
        return "resolved; on the card, and starred"
    if c.get("resolved"):
        return "resolved; on the card (not starred: expert's own rule does as well here)"
    return c.get("note", "not resolved") + "; '?' on the card: the card player plays its default"


def _cells(table: dict, keys) -> list[dict]:
    """A table's cells with a recommendation, resolved first: their words, action, margin and status."""
    out = []
    for c in table["cells"]:
        if c.get("best") is None:
            continue
        valued = c.get("margin") is not None and c.get("margin_n", 0) >= 2   # one decision: no interval
        out.append({"where": ", ".join(str(c[k]) for k in keys), "action": c["action"], "rival": c.get("rival", ""),
                    "margin": Estimate(c["margin"], c["lo"], c["hi"], c["margin_n"]) if valued else None,
                    "resolved": c["resolved"], "starred": bool(c.get("chart")), "status": _status(c)})
    return sorted(out, key=lambda c: (not c["resolved"], c["margin"] is None, -(c["margin"].mean if c["margin"] else 0)))


def card_margins(margins: dict | None) -> list[dict]:
    """The card's margins (one card seat among a rival's players against that rival in the seat, the same
    deals) as rows: players, rivals, the points and the win share's change in percentage points."""
    rows = []
    for p, by in sorted((margins or {}).items(), key=lambda kv: int(kv[0])):
        for r, c in by.items():
            w = c["win"]
            rows.append({"players": int(p), "rivals": r, "points": est(c["diff"]),
                         "win": Estimate(100 * w["mean"], 100 * w["ci95"][0], 100 * w["ci95"][1], int(w["n"])),
                         "win_x": est(c["win_x"]), "deals": c["deals"]})
    return rows


def margins_json(rows: list[dict]) -> dict:
    """summary["card"]["card_margins"]: ``{players: {rivals: {"points": EST, "win": EST (pp)}}}``."""
    out: dict = {}
    for r in rows:
        out.setdefault(str(r["players"]), {})[r["rivals"]] = {"points": {**r["points"].to_json(), "unit": "points"},
                                                              "win": {**r["win"].to_json(), "unit": "pp"}}
    return out


def iteration_of(card: dict) -> list[dict]:
    """The committed card's policy-iteration history (``card_cells.json``'s ``card_provenance``, a copy of
    tuning/guide-iteration/history.json's rounds): one row a round; [] for a card made otherwise."""
    rounds = (card.get("card_provenance") or {}).get("iteration") or []
    return [{k: r[k] for k in ("round", "games", "covered", "decisions", "rollouts", "cells_seen", "cells_changed",
                               "wall_s", "changes") if k in r} for r in rounds]


def conclude(ctx, tables, data: dict) -> StudyResult:
    card = data["card"]
    stats = card.get("tables", {})
    sections = [{"name": name, "title": title, "decisions": stats[name]["decisions"], "tests": stats[name]["tests"],
                 "seen": len(stats[name]["cells"]), "cells": _cells(stats[name], keys)}
                for name, title, keys in TABLES if name in stats]
    checks = [_check(c) for c in data["checks"]]
    margins = card_margins(data.get("margins"))
    iteration = iteration_of(card)
    ladder = along_ladder(data.get("along"))
    frames = {"cells": pd.DataFrame([{"table": s["name"], "cell": c["where"], "action": c["action"],
                                      "versus": c["rival"], "margin": c["margin"].mean if c["margin"] else None,
                                      "lo": c["margin"].lo if c["margin"] else None,
                                      "hi": c["margin"].hi if c["margin"] else None,
                                      "n_decisions": c["margin"].n if c["margin"] else 0, "resolved": c["resolved"]}
                                     for s in sections for c in s["cells"]]),
              "check": pd.DataFrame([{"strategy": c["strategy"], "rivals": c["rivals"], "players": c["players"],
                                      "diff": c["diff"].mean, "lo": c["diff"].lo, "hi": c["diff"].hi,
                                      "n_deals": c["diff"].n, "win": c["win"].mean, "win_lo": c["win"].lo,
                                      "win_hi": c["win"].hi}
                                     for c in checks + (ladder["rows"] if ladder else [])])}
    if margins:
        frames["card-margins"] = pd.DataFrame([{"players": r["players"], "rivals": r["rivals"],
                                                "points": r["points"].mean, "lo": r["points"].lo, "hi": r["points"].hi,
                                                "win_pp": r["win"].mean, "win_lo": r["win"].lo, "win_hi": r["win"].hi,
                                                "n_deals": r["points"].n} for r in margins])
    card_cells = sum(c.get("resolved", False) for t in stats.values() for c in t["cells"])
    by_players: dict = {}
    for c in checks:
        by_players.setdefault(str(c["players"]), {}).update({
            f"{KEYS[c['strategy']]}_vs_expert": c["diff"].to_json(),
            f"{KEYS[c['strategy']]}_win_share_vs_expert": c["win"].to_json()})
    summary = {"cells_resolved": card_cells, "cells_starred": len(card["cells"]),
               "decisions": card.get("provenance", {}).get("decisions"),
               "margin_sign": "the card's (or its starred cells') seat's game score minus an expert's in that seat on the same "
                              "deals: negative is better",
               "by_players": by_players}
    if margins:
        summary["card_margins"] = margins_json(margins)
    if iteration:
        summary["iteration"] = iteration
    estimands = {}
    if ladder:
        summary["along_the_ladder"] = ladder_json(ladder)
        estimands = {"card": {"card_vs_expert": estimand(
            f"the printed card's seat's game score minus expert's in that seat (points per game, negative is better) at "
            f"{HEADLINE_PLAYERS} players, the other seats played by each rung's player; same deals", "points",
            {r["rivals"]: r["diff"] for r in ladder["rows"]}, {TOP_DIFFERENCE: ladder["top"]},
            settled=ladder["settled"], target=TARGET)}}
    findings, answers = [], []
    sentences = {
        "card": f"Playing exactly by the printed card (its {card_cells} resolved cells, its stated default "
                f"where it shows ?) instead of expert's rules changes a seat's game score by {{value}} points per game "
                f"at {{players}} players among experts (negative is better)",
        "card-starred": f"The card's {len(card['cells'])} starred cells (they beat expert's own rule; "
                        f"expert's rules elsewhere, which a person cannot play) changes a seat's game score against expert "
                 f"by {{value}} points per game at {{players}} players among experts (negative is better)"}
    heads = {}
    for name in ("card", "card-starred"):
        mine = [c for c in checks if c["strategy"] == name]
        head = next((c for c in mine if c["players"] == HEADLINE_PLAYERS), mine[0] if mine else None)
        if head is None or not head["diff"].finite or math.isnan(head["diff"].mean):
            continue
        heads[name] = head
        findings.append(Finding(f"card.{KEYS[name]}_vs_expert", sentences[name].replace("{players}", str(head["players"])),
                                head["diff"], "signed", "deals"))
    head = heads.get("card")
    top = next((r for r in ladder["rows"] if r["rivals"] == STRONG), None) if ladder else None
    card_answer = ("Playing by the printed card (docs/card.md: every resolved cell, its stated default where it "
                   "shows ?) instead of expert's rules changes your game score by {value} points a game at {players} "
                   "players")
    if top is not None and top["diff"].excludes(0.0):
        answers.append(Answer("card.card_vs_expert",
                              card_answer.replace("{players}", str(HEADLINE_PLAYERS))
                              + f" against strong players ({STRONG} at the other seats)", top["diff"],
                              holds_under(ladder["settled"], ladder["top"], TARGET, "signed") + "; " + LADDER_CONDITIONS,
                              kind="signed", unit="deals", rank=50, convergence=ladder["convergence"]))
    elif ladder is None and head is not None and head["diff"].excludes(0.0):   # not read along the ladder
        answers.append(Answer("card.card_vs_expert", card_answer.replace("{players}", str(head["players"])),
                              head["diff"], CARD_CONDITIONS, kind="signed", unit="deals", rank=50))
    precision = [Precision(f"{name} against expert", max(c["diff"].half_width for c in checks if c["strategy"] == name),
                           "points") for name in dict.fromkeys(c["strategy"] for c in checks)]
    figures = [figs.margins_figure(sections)] if any(c["starred"] and c["margin"] for s in sections for c in s["cells"]) else []
    if margins:
        figures.append(figs.card_margins_figure(margins))
        precision.append(Precision("the card's margins", max(r["points"].half_width for r in margins), "points"))
    if ladder:
        precision.append(Precision(f"{ALONG} against expert, {TOP_DIFFERENCE} rivals", ladder["top"].half_width,
                                   "points", target=TARGET))
    context = {"sections": sections, "checks": checks, "resolved": len(card["cells"]), "card_cells": card_cells,
               "holm_family": holm_family(stats), "ladder": ladder, "target": TARGET, "difference": TOP_DIFFERENCE,
               "provenance": card.get("provenance", {}), "margins": margins, "iteration": iteration,
               "card_provenance": card.get("card_provenance", {})}
    return StudyResult(findings=findings, figures=figures, frames=frames, summary=summary, precision=precision,
                       answers=answers, estimands=estimands, context=context)


def _check(c: dict) -> dict:
    strategy = c.get("strategy", "card-starred")
    return {"strategy": strategy, "rivals": c.get("rivals", "expert"), "label": LABELS.get(strategy, strategy),
            "players": c["players"], "deals": c["deals"], "diff": est(c["diff"]), "win": est(c["win"]),
            "win_x": est(c["win_x"]), "win_expert": c["win_expert"]}


def along_ladder(along: dict | None) -> dict | None:
    """The card's check with each rung's player as the rivals (weakest first), the strongest two rungs' paired
    difference and its word at :data:`.design.TARGET` (:func:`..framework.words.equivalence`); None unmeasured."""
    if not along:
        return None
    rows = [_check(c) for c in along["rungs"].values()]
    d = along["differences"].get(TOP_DIFFERENCE)
    top = est(d["diff"]) if d else None
    word = equivalence(top, TARGET)
    return {"rows": rows, "top": top, "top_win": est(d["win"]) if d else None, "settled": word,
            "convergence": convergence(word), "power": power_text(top, TARGET, "signed")}


def ladder_json(ladder: dict) -> dict:
    return {"players": HEADLINE_PLAYERS, "strategy": ALONG,
            "rivals": {r["rivals"]: {"card_vs_expert": r["diff"].to_json(), "card_win_share_vs_expert": r["win"].to_json()}
                       for r in ladder["rows"]},
            "difference": TOP_DIFFERENCE, "card_vs_expert_difference": ladder["top"].to_json() if ladder["top"] else None,
            "win_share_difference": ladder["top_win"].to_json() if ladder["top_win"] else None,
            "settled": ladder["settled"], "convergence": ladder["convergence"], "equivalence_target": TARGET,
            **power_json(ladder["top"], TARGET)}
