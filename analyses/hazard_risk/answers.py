"""The hazard study's estimands and answers: along the ladder, "holds under" by an equivalence test of the
strongest two rungs (:func:`..framework.words.equivalence`), stated per table size where the sizes differ
(:func:`..framework.words.by_size`)."""
from __future__ import annotations

from ..framework.design import SECOND, STRONG
from ..framework.study import Answer, estimand
from ..framework.words import (by_size, convergence, equivalence_by_size, holds_under_by_size, size_clause,
                               size_json, top_by_size)

# advice-bearing estimates and the half-widths they were sized for: a drawn hazard moves its drawer's win
# chance by several percentage points, so +-1 pp tells a big cost from a small one at every rung, and
# +-0.4 points of margin is a fortieth of the hazard's face value (sizes fixed from a pilot's spread)
TARGET_WIN = 0.01
TARGET_MARGIN = 0.4
MEASURES = {"win_chance": ("win", TARGET_WIN, "dpct"), "margin": ("margin", TARGET_MARGIN, "signed")}


def sizes_of(ladder: dict, measure: str, rung: str = STRONG) -> dict | None:
    """:func:`by_size` of ``rung``'s cost per drawn hazard over the table sizes it played."""
    return by_size({int(p): e[measure] for p, e in ladder.get(rung, {}).items() if p != "all"})


def estimands(ladder: dict, diffs: dict) -> dict:
    if not ladder:
        return {}
    base = ("one round of the game edited, one hazard in play (the round's others buried at the bottom of the pile): "
            "a hazard at a random depth of the draw pile (uniform over the depths rounds reach, so drawn when hazards "
            "are drawn in natural games) against an ordinary card there; the mean over the blind draws (each table "
            "its own draws; every draw counts once, so the table sizes weigh by how many draws they made from equal "
            "numbers of deals), 2 to 7 players; ")

    def one(key, text, unit):
        measure, target, _ = MEASURES[key]
        by = {r: ladder[r]["all"][measure] for r in ladder if "all" in ladder[r]}
        dd = {k: v["all"][measure] for k, v in diffs.items() if "all" in v}
        return estimand(base + text, unit, by, dd, settled=equivalence_by_size(top_by_size(diffs, measure), target),
                        target=target, by_size=size_json(sizes_of(ladder, measure)),
                        judged_by_size=top_by_size(diffs, measure))

    return {"hazard": {
        "win_chance": one("win_chance", "the change in the drawer's chance of winning the game (negative is bad for "
                          "the drawer; ties share the win)", "probability"),
        "margin": one("margin", "the change in the drawer's game total minus the mean of the others' game totals "
                      "(positive is bad for the drawer, since the lowest score wins)", "points")}}


def answers(ladder: dict, est: dict, diffs: dict | None = None) -> list[Answer]:
    top = ladder.get(STRONG, {}).get("all")
    if top is None or not est:
        return []
    diffs = diffs or {}

    def holds(key):
        measure, target, kind = MEASURES[key]
        return holds_under_by_size(est["hazard"][key]["settled"], top_by_size(diffs, measure), target, kind)

    return [Answer("hazard_risk.win_chance",
                   "A hazard you draw blind changes your chance of winning by {value} against strong players "
                   f"({STRONG}), against an ordinary card{size_clause(sizes_of(ladder, 'win'), 'dpct')}", top["win"],
                   holds("win_chance"), kind="dpct", unit="draws", rank=20,
                   convergence=convergence(est["hazard"]["win_chance"]["settled"])),
            Answer("hazard_risk.margin",
                   "A hazard drawn blind changes your game score minus the others' average by {value} points "
                   f"against strong players (positive is bad){size_clause(sizes_of(ladder, 'margin'), 'signed')}",
                   top["margin"], holds("margin"), kind="signed", unit="draws", rank=21,
                   convergence=convergence(est["hazard"]["margin"]["settled"]))]
