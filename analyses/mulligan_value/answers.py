"""The mulligan study's estimands and answers: along the ladder, "holds under" by an equivalence test of the
strongest two rungs (:func:`..framework.words.equivalence`), stated per table size where the sizes differ
(:func:`..framework.words.by_size`)."""
from __future__ import annotations

from ..framework.design import SECOND, STRONG
from ..framework.render import format_estimate
from ..framework.study import Answer, estimand
from ..framework.words import (by_size, convergence, equivalence_by_size, holds_under_by_size, size_clause,
                               size_json, top_by_size)

# the advice-bearing estimates and the half-widths they were sized for (from a pilot of 2,000 deals per table
# size: the paired win change has sd 0.30 (mix) to 0.37 (expert, learned), the margin sd 16-17 points).
# A mulligan moves its holder's win chance by 0 to 2 percentage points, so +-0.5 pp tells "worth about a
# point of winning" from "worth nothing"; +-0.3 points of margin is a tenth of a typical hand card.  Fixed
# sizes from that pilot: 5,000 deals per table size in the mix; the rungs of the strong ladder (learned, net) play
# 2,750 (design.RUNG_SHARE): about +-0.6 pp and +-0.35 points each, the report's cost held.
TARGET_WIN = 0.005
TARGET_MARGIN = 0.3
MAIN = "p"      # the headline control: the mulligan at a random depth of the draw pile (arm placed)
CONTROL = "the same mulligan at a random depth of the draw pile (where anyone may draw it)"
MEASURES = {"win_chance": ("win", TARGET_WIN, "dpct"), "margin": ("margin", TARGET_MARGIN, "signed")}


def sizes_of(ladder: dict, measure: str, rung: str = STRONG) -> dict | None:
    """:func:`by_size` of ``rung``'s headline effect over the table sizes it played."""
    per = {int(p): cs[MAIN][measure] for p, cs in ladder.get(rung, {}).items() if p != "all" and MAIN in cs}
    return by_size(per)


def estimands(ladder: dict, diffs: dict) -> dict:
    def one(key, definition, unit):
        measure, target, _ = MEASURES[key]
        by = {rung: ladder[rung]["all"][MAIN][measure] for rung in ladder if MAIN in ladder[rung]["all"]}
        dd = {k: v["all"][measure] for k, v in diffs.items() if "all" in v}
        return estimand(definition, unit, by, dd, settled=equivalence_by_size(top_by_size(diffs, measure), target),
                        target=target, by_size=size_json(sizes_of(ladder, measure)),
                        judged_by_size=top_by_size(diffs, measure))

    if not ladder:
        return {}
    base = ("one round of the game edited: a mulligan at a random slot of the holder's layout (in place of an "
            "ordinary card) against " + CONTROL + "; same deals, 2 to 7 players equally weighted; ")
    return {"mulligan": {
        "win_chance": one("win_chance", base + "the change in the holder's chance of winning the game (positive is "
                          "good for the holder; ties share the win)", "probability"),
        "margin": one("margin", base + "the change in the holder's game total minus the mean of the rivals' game "
                      "totals (negative is good for the holder, since the lowest score wins)", "points")}}


def answers(ladder: dict, est: dict, diffs: dict | None = None) -> list[Answer]:
    if STRONG not in ladder or not est:
        return []
    top = ladder[STRONG]["all"][MAIN]
    diffs = diffs or {}

    def holds(key):
        measure, target, kind = MEASURES[key]
        return holds_under_by_size(est["mulligan"][key]["settled"], top_by_size(diffs, measure), target, kind)

    win_sizes, margin_sizes = sizes_of(ladder, "win"), sizes_of(ladder, "margin")
    win_tail = size_clause(win_sizes, "dpct") or _two_players(ladder[STRONG].get("2", {}).get(MAIN))
    return [
        Answer("mulligan_value.win_chance",
               "A mulligan dealt to you adds {value} to your chance of winning against strong players "
               f"({STRONG}, 2 to 7 players), against leaving it in the draw pile{win_tail}",
               top["win"], holds("win_chance"), kind="dpct", unit="deals", rank=10,
               convergence=convergence(est["mulligan"]["win_chance"]["settled"])),
        Answer("mulligan_value.margin",
               "A dealt mulligan changes your game score minus your rivals' average by {value} points against "
               f"strong players (negative is good){size_clause(margin_sizes, 'signed')}", top["margin"],
               holds("margin"), kind="signed", unit="deals", rank=11,
               convergence=convergence(est["mulligan"]["margin"]["settled"]))]


def _two_players(e: dict | None) -> str:
    if e is None:
        return ""
    w = e["win"]
    if w.hi < 0:
        return f"; at 2 players it costs {format_estimate(w, 'dpct')}"
    return f"; at 2 players {format_estimate(w, 'dpct')}"
