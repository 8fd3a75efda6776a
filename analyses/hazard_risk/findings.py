"""Estimates, findings and summary of the hazard-risk study (design in :mod:`.design`)."""
from __future__ import annotations

import math

import numpy as np
import pandas as pd

from gnoming_sim.stats import Z95, Estimate, clustered_share, holm

from ..framework.design import SECOND, PRESET_NAMES, STRONG, STRONG_LADDER
from ..framework.paired import (as_json, by_rung_and_size, ladder_answers, ladder_estimands, ladder_precision,
                                phase_of, rung_differences, rung_frames, sizes_of, strong_findings,
                                top_difference)
from ..framework.render import estimates_frame, format_estimate as _ci, grid
from ..framework.study import Answer, Finding, Precision, StudyResult
from ..framework.words import size_clause
from . import figures as figs
from .design import DENY_LEVELS, DEPTH, NATURAL_STRONG, PLAYERS

# advice-bearing estimates and the half-widths they were sized for: a drawn hazard moves its drawer's win
# chance by several percentage points, so +-1 pp tells a big cost from a small one at every rung, and
# +-0.4 points of margin is a fortieth of the hazard's face value (sizes fixed from a pilot's spread)
TARGET_WIN = 0.01
TARGET_MARGIN = 0.4
TARGETS = {"win": TARGET_WIN, "margin": TARGET_MARGIN}
BASE = ("one round of the game edited, one hazard in play (the round's others buried at the bottom of the pile): "
        "a hazard at a random depth of the draw pile (uniform over the depths rounds reach, so drawn when hazards "
        "are drawn in natural games) against an ordinary card there; the mean over the blind draws (each table "
        "its own draws; every draw counts once, so the table sizes weigh by how many draws they made from equal "
        "numbers of deals), 2 to 7 players; ")

PHASES = (("early", 6, 9, "6-7 face-down cards"), ("middle", 3, 5, "3-5"), ("late", 0, 2, "1-2"))
RUNG_TEXT = {"mix": "the heuristic presets", SECOND: f"{SECOND} at every seat", STRONG: f"{STRONG} at every seat"}


def conclude(ctx, tables, data) -> StudyResult:
    min_n = 10 if ctx.quick else 30
    natural = data["natural"]
    sizes = [p for p in PLAYERS if (natural["players"] == p).any()]
    ending = _ending(natural, sizes)
    drawn = data["drawn"]
    drawn = drawn[drawn["ok"] & drawn["drawn"]]
    by_size = [r for r in (_drawn(drawn[drawn["players"] == p], {"players": p}) for p in sizes) if r]
    drawn_all = _drawn(drawn, {"players": 0})
    by_phase = [r for r in (_drawn(drawn[phase_of(drawn["fd"], PHASES) == ph], {"phase": ph, "phase_text": text}, min_n)
                            for ph, _, _, text in PHASES) if r]
    deny_rows = _deny(data["deny"], sizes, DENY_LEVELS)
    verdict = _verdict(deny_rows)   # marks the cells that survive Holm's correction
    strong = _strong(natural, {pl: data.get(NATURAL_STRONG[pl]) for pl in STRONG_LADDER}, sizes)

    frames_by_rung = rung_frames(data, "drawn")
    ladder = _ladder(frames_by_rung, sizes)
    diffs = _differences(frames_by_rung, sizes)
    estimands = _estimands(ladder, diffs)

    cells = [r for r in ending["cells"] if r["share"].n >= min_n]
    precision = [Precision("P(ending a round with a hazard), all player-rounds", ending["all"]["share"].half_width,
                           "pct"),
                 Precision("P(ending a round with a hazard), one table size and preset",
                           max(r["share"].half_width for r in cells), "pct")]
    flips = [r["flip_value"] for r in by_size if r.get("flip_value") is not None]
    precision += ladder_precision(ladder, RUNG_TEXT, "drawer", "others", TARGETS)
    if flips:
        precision.append(Precision("worth of the flips to an opponent, one table size",
                                   max(e.half_width for e in flips), "points"))
    changes = [r["score"] for r in deny_rows if r["level"] != 0]
    if changes:
        precision.append(Precision("game-score change from denying flips, one table size and level",
                                   max(e.half_width for e in changes), "points"))
    figures = [figs.ending_figure(cells, ending["by_players"]), figs.discard_figure(by_size, by_phase),
               figs.deny_figure(deny_rows)]
    frames = {"end_with_hazard": estimates_frame(ending["by_players"] + cells),
              "drawn": estimates_frame(by_size + by_phase + ([drawn_all] if drawn_all else [])),
              "deny": estimates_frame(deny_rows),
              "ladder": estimates_frame([{"player": r, "players": p, **{k: v for k, v in e.items() if k != "phases"}}
                                         for r, by in ladder.items() for p, e in by.items()])}
    deny_all = [r for r in deny_rows if r["players"] == 0]
    return StudyResult(
        findings=_findings(ladder, drawn_all, deny_all),
        figures=figures, frames=frames, precision=precision, estimands=estimands, answers=_answers(ladder, estimands, diffs),
        summary={**_summary(ending, by_size, drawn_all, by_phase, deny_rows), **_strong_summary(strong),
                 **_ladder_summary(ladder, diffs)},
        context={"ending": ending, "grid": grid(cells, "strategy", "players", PRESET_NAMES), "sizes": sizes,
                 "by_size": by_size, "drawn_all": drawn_all,
                 "by_phase": by_phase, "deny": deny_rows, "deny_levels": DENY_LEVELS,
                 "deny_grid": _deny_grid(deny_rows, DENY_LEVELS), "deny_verdict": verdict,
                 "strong": strong, "strong_ladder": STRONG_LADDER, "strong_player": STRONG,
                 "ladder": ladder, "diffs": diffs, "rung_text": RUNG_TEXT, "depth": DEPTH, "second": SECOND,
                 "target_win": TARGET_WIN, "target_margin": TARGET_MARGIN, "estimands": estimands,
                 "rung_deals": {r: {p: int((f["players"] == p).sum()) for p in sizes} for r, f in frames_by_rung.items()},
                 "games": _games(tables), "conclusions": _conclusions(ending, drawn_all, by_phase, deny_rows, ladder, diffs)},
    )


def _games(tables) -> dict:
    out = {}
    for t in tables:
        if t.arm in ("natural", "hazard", "0"):
            out.setdefault(t.experiment, {}).setdefault(t.players, 0)
            out[t.experiment][t.players] += t.games
    return out


# ----------------------------------------------------------------- ending a round with a hazard
def _ending_estimates(per_game: pd.DataFrame) -> dict:
    """P(ending a round with a hazard) and hazard points per player-round, clustered by game:
    ``per_game`` holds one row per game (sums over the player-rounds it contributes)."""
    rounds = per_game["player_rounds"].to_numpy()
    return {"share": clustered_share(per_game["with_hazard"].to_numpy(), rounds),
            "points": clustered_share(10 * per_game["hazards"].to_numpy(), rounds)}


def _ending(natural: pd.DataFrame, sizes) -> dict:
    cols = ["player_rounds", "with_hazard", "hazards"]

    def per_game(rows):
        return rows.groupby(["players", "game"])[cols].sum()

    cells = [{"players": int(p), "strategy": s, **_ending_estimates(per_game(rows))}
             for (p, s), rows in natural.groupby(["players", "strategy"])]
    by_players = [{"players": int(p), "strategy": "all", **_ending_estimates(per_game(rows))}
                  for p, rows in natural.groupby("players")]
    by_strategy = [{"players": 0, "strategy": s, **_ending_estimates(per_game(rows))}
                   for s, rows in natural.groupby("strategy")]
    by_strategy.sort(key=lambda r: PRESET_NAMES.index(r["strategy"]))
    return {"cells": cells, "by_players": by_players, "by_strategy": by_strategy,
            "all": {"players": 0, "strategy": "all", **_ending_estimates(per_game(natural))}}


# ----------------------------------------------------------------- a drawn hazard
def _drawn(rows: pd.DataFrame, key: dict, min_n: int = 2) -> dict | None:
    """What a hazard drawn blind does: to its drawer (kept or discarded), and to the others.

    Every difference is treatment minus control on the same deal: a change in round score
    (negative is better: lower scores win) or in the chance of winning the game (positive
    is better).
    """
    if len(rows) < min_n:
        return None
    out = {**key, "draws": len(rows), "kept": Estimate.of_share(int(rows["kept"].sum()), len(rows)),
           "stuck": Estimate.of_share(int(rows["stuck"].sum()), len(rows)),
           "cost": Estimate.of_paired(rows["score_h"], rows["score_o"]),
           "win_change": Estimate.of_paired(rows["win_h"], rows["win_o"])}
    kept, gone = rows[rows["kept"]], rows[rows["discarded_at_once"]]
    out["cost_kept"] = Estimate.of_paired(kept["score_h"], kept["score_o"]) if len(kept) >= min_n else None
    out["discards"] = len(gone)
    if len(gone) >= min_n:
        out.update({
            "cost_discarded": Estimate.of_paired(gone["score_h"], gone["score_o"]),
            "flips": Estimate.of_mean(gone["flips"]),
            # each opponent's round score: with the hazard minus with an ordinary card
            "opponent_change": Estimate.of_paired(gone["others_h"], gone["others_o"]),
            # flips taken minus declined (arm hazard minus arm no-flips), only the edited round differing
            "flip_value": Estimate.of_paired(gone["others_h"], gone["others_n"]),
            "drawer_flip_cost": Estimate.of_paired(gone["score_h"], gone["score_n"]),
            "standing": Estimate.of_paired(gone["score_h"] - gone["others_h"], gone["score_n"] - gone["others_n"]),
            "drawer_flip_win": Estimate.of_paired(gone["win_h"], gone["win_n"]),
            "flip_win": Estimate.of_paired(gone["others_win_h"], gone["others_win_n"])})
    return out


# ----------------------------------------------------------------- what a drawn hazard costs, along the ladder
def _ladder(frames: dict, sizes) -> dict:
    """rung -> table size ("all", "2".."7") -> the cost of a hazard drawn blind to its drawer, on that table's own
    draws: the deals where its arm *hazard* drew it (play is identical in both arms until that draw, so the
    drawer is the same player in the control).  Win chance (hazard minus ordinary card: negative is bad for the
    drawer), margin (game total minus the others' mean: positive is bad), round score; the share of planted
    hazards drawn; the per-planted-hazard (intention-to-treat) win change over every deal; the drawer's phase."""
    def cost(rows):
        hit = rows[rows["drawn"]]
        if len(hit) < 2:
            return None
        phase = phase_of(hit["fd"], PHASES)
        return {"win": Estimate.of_paired(hit["win_h"], hit["win_o"]),
                "margin": Estimate.of_paired(hit["margin_h"], hit["margin_o"]),
                "points": Estimate.of_paired(hit["score_h"], hit["score_o"]),
                "drawn": Estimate.of_share(int(rows["drawn"].sum()), len(rows)),
                "kept": Estimate.of_share(int(hit["kept"].sum()), len(hit)),
                "itt_win": Estimate.of_paired(rows["win_h"], rows["win_o"]),
                "phases": {name: Estimate.of_share(int((phase == name).sum()), len(hit)) for name, *_ in PHASES}}

    return by_rung_and_size(frames, sizes, cost)


def ratio_difference(a: pd.DataFrame, b: pd.DataFrame, measure: str) -> Estimate:
    """Rung a's cost per drawn hazard minus rung b's, on the deals both played (merged rows ``a``/``b``).

    Each cost is a ratio over deals, sum(effect * drawn) / sum(drawn), and a deal drawn at one table need not be
    drawn at the other, so the interval is the delta method's over deals (the independent units): the
    influence of deal i is (y_ai - R_a d_ai) / mean(d_a) - (y_bi - R_b d_bi) / mean(d_b)."""
    parts = []
    for rows in (a, b):
        d = rows["drawn"].to_numpy(dtype=np.float64)
        y = (rows[f"{measure}_h"] - rows[f"{measure}_o"]).to_numpy(dtype=np.float64) * d
        r = y.sum() / d.sum() if d.sum() else math.nan
        parts.append((r, (y - r * d) / d.mean() if d.sum() else np.full(d.size, math.nan)))
    (ra, ia), (rb, ib) = parts
    n = len(a)
    se = float(np.std(ia - ib, ddof=1)) / math.sqrt(n) if n > 1 else math.nan
    diff = ra - rb
    return Estimate(diff, diff - Z95 * se, diff + Z95 * se, n)


def _differences(frames: dict, sizes) -> dict:
    def differ(both):
        if len(both) < 2 or both["drawn"].sum() < 2 or both["drawn_y"].sum() < 2:
            return None
        b = both[[c for c in both.columns if c.endswith("_y")] + ["players"]].rename(columns=lambda c: c.removesuffix("_y"))
        return {m: ratio_difference(both, b, m) for m in ("win", "margin")}

    return rung_differences(frames, sizes, differ)


def _ladder_summary(ladder: dict, diffs: dict) -> dict:
    if not ladder:
        return {}
    return {"ladder": {
        "definition": "per hazard drawn blind, each table's own draws; hazard minus ordinary card on the same deal",
        "by_player": as_json(ladder), "differences": as_json(diffs)}}


# ----------------------------------------------------------------- under strong play
def _strong(natural, rungs: dict, sizes) -> list[dict]:
    """Per table size (0: all): P(ending a round with a hazard) in the preset mix and with one player at every
    seat, for each rung of :data:`STRONG_LADDER` (``rungs``: player -> its natural rows, or None), on the same
    deals.  Each difference "player minus mix" is paired by game (per game: its share of player-rounds ending
    with a hazard).  Each row's ``ladder`` lists the rungs, weakest first; the ``*_strong*`` keys are
    :data:`STRONG`'s.  (The drawn hazard's cost along the rungs is :func:`_ladder`'s, on each table's own draws.)"""
    cols = ["player_rounds", "with_hazard"]
    mix_g = natural.groupby(["players", "game"])[cols].sum()
    pairs = {name: mix_g.merge(x.groupby(["players", "game"])[cols].sum(), left_index=True, right_index=True,
                               suffixes=("", "_x")).reset_index()
             for name, x in rungs.items() if x is not None and not x.empty}
    if STRONG not in pairs:
        return []
    out = []
    for p in [*sizes, 0]:
        ladder = [r for r in (_rung(name, ends, p) for name, ends in pairs.items()) if r is not None]
        top = next((r for r in ladder if r["player"] == STRONG), None)
        if top is not None:
            out.append({"players": p, "end_mix": top["end_mix"], "end_strong": top["end"],
                        "end_strong_minus_mix": top["end_minus_mix"], "ladder": ladder})
    return out


def _rung(name: str, ends: pd.DataFrame, p: int) -> dict | None:
    """One rung of the strong-play ladder at table size ``p`` (0: all); None with fewer than 2 games."""
    e = ends if p == 0 else ends[ends["players"] == p]
    if len(e) < 2:
        return None
    return {"player": name,
            "end_mix": clustered_share(e["with_hazard"].to_numpy(), e["player_rounds"].to_numpy()),
            "end": clustered_share(e["with_hazard_x"].to_numpy(), e["player_rounds_x"].to_numpy()),
            # one table size: every game has the same player-rounds, so per-game shares pair
            "end_minus_mix": None if p == 0 else Estimate.of_paired(e["with_hazard_x"] / e["player_rounds_x"],
                                                                    e["with_hazard"] / e["player_rounds"])}


def _strong_summary(strong: list[dict]) -> dict:
    if not strong:
        return {}
    return {"strong_play": {
        "strong_player": STRONG, "ladder": list(STRONG_LADDER),
        "table": f"one player at every seat ({', then '.join(STRONG_LADDER)}), on the natural and drawn "
                 f"experiments' deals and edits; the *_strong* estimates are {STRONG}'s",
        "by_players": {("all" if r["players"] == 0 else str(r["players"])): {
            **{k: r[k].to_json() for k in ("end_mix", "end_strong", "end_strong_minus_mix") if r[k] is not None},
            "by_player": {g["player"]: {k: g[k].to_json() for k in ("end", "end_minus_mix") if g[k] is not None}
                          for g in r["ladder"]}} for r in strong}}}


# ----------------------------------------------------------------- denying flips
def _deny(deny: pd.DataFrame, sizes, levels) -> list[dict]:
    """Per table size (0: all) and deny level: the focal game score and win credit against level 0."""
    rows = []
    base = f"{levels[0]:g}"
    for p in [*sizes, 0]:
        sub = deny if p == 0 else deny[deny["players"] == p]
        if sub.empty:
            continue
        for level in levels:
            arm = f"{level:g}"
            rows.append({"players": p, "level": level,
                         # a game's three rounds share its seats: clustered by game
                         "end_with_hazard": clustered_share(sub[f"hz_{arm}"].to_numpy(), np.full(len(sub), 3)),
                         "score": Estimate.of_paired(sub[f"total_{arm}"], sub[f"total_{base}"]),
                         "win": Estimate.of_paired(sub[f"win_{arm}"], sub[f"win_{base}"]),
                         "others": Estimate.of_paired(sub[f"others_{arm}"], sub[f"others_{base}"]),
                         "changed": Estimate.of_share(int((sub[f"total_{arm}"] != sub[f"total_{base}"]).sum()),
                                                      len(sub))})
    return rows


def _verdict(deny_rows: list[dict]) -> dict:
    """Where denying flips clearly pays or clearly costs in what the player wants, the chance of winning the
    game (never by own score), over the family of (table size, level) cells: each cell's 95%
    interval, and which differences survive Holm's correction for testing them all."""
    cells = [r for r in deny_rows if r["level"] != 0 and r["players"] != 0]
    for r, keep in zip(cells, holm([r["win"] for r in cells])):
        r["holm"] = keep
    return {"pays": [r for r in cells if r["win"].lo > 0], "costs": [r for r in cells if r["win"].hi < 0],
            "pays_holm": [r for r in cells if r["holm"] and r["win"].mean > 0],
            "costs_holm": [r for r in cells if r["holm"] and r["win"].mean < 0],
            "cells": len(cells)}


# ----------------------------------------------------------------- outputs
def _deny_grid(rows: list[dict], levels) -> list[dict]:
    out = []
    for level in levels:
        cells = {r["players"]: r for r in rows if r["level"] == level}
        out.append({"level": level, "cells": cells})
    return out


def _conclusions(ending, drawn_all, by_phase, deny_rows, ladder=None, diffs=None) -> list[str]:
    """Plain-words conclusions, written from the estimates; 95% intervals in brackets.

    Every score difference is a change in score (negative is better: lower scores win).
    """
    out = []
    ladder, diffs = ladder or {}, diffs or {}
    rungs = [r for r in ladder if "all" in ladder[r]]
    if rungs:
        out.append("A hazard you draw blind (one hazard in play, at a random depth of the draw pile, so drawn when "
                   "hazards are drawn in natural games) changes "
                   "your chance of winning the game by: " + "; ".join(
                       f"{RUNG_TEXT[r]} {_ci(ladder[r]['all']['win'], 'dpct')} (n = {ladder[r]['all']['win'].n:,} draws)"
                       for r in rungs) + ", and your final score minus the others' average by: " + "; ".join(
                       f"{RUNG_TEXT[r]} {_ci(ladder[r]['all']['margin'], 'signed')}" for r in rungs)
                   + " points (positive is bad for you).")
        top = top_difference(diffs, f"Between the two strongest players ({STRONG} minus {SECOND}, paired over deals) "
                             "the cost in win chance", "in margin", TARGETS, ".0f")
        out += [top] if top else []
        when = [f"{RUNG_TEXT[r]}: {_ci(ladder[r]['all']['phases']['early'], 'pct')} early (6-7 face-down cards), "
                f"{_ci(ladder[r]['all']['phases']['late'], 'pct')} late (1-2), {_ci(ladder[r]['all']['drawn'], 'pct')} "
                "of planted hazards drawn blind at all" for r in rungs]
        out.append("When the draws come differs with the players, which is why every table is read on its own draws: "
                   + "; ".join(when) + ".")
    ranked = sorted(ending["by_strategy"], key=lambda r: r["share"].mean)
    out.append(f"A player ends a round stuck with a hazard in {_ci(ending['all']['share'], 'pct')} of rounds; "
               f"{ranked[-1]['strategy']} most often ({_ci(ranked[-1]['share'], 'pct')}), {ranked[0]['strategy']} "
               f"least ({_ci(ranked[0]['share'], 'pct')}).")
    if drawn_all and drawn_all.get("flip_value") is not None:
        d = drawn_all
        out.append(f"The heuristic presets keep a hazard drawn blind in {_ci(d['kept'], 'pct')} of draws; it "
                   f"changes its drawer's score in that round by {_ci(d['cost'], 'signed')} points.")
        helps = "helps" if d["flip_value"].hi < 0 else "hurts" if d["flip_value"].lo > 0 else None
        flips = (f"{helps} each opponent: {_ci(d['flip_value'], 'signed')} points in that round"
                 if helps else f"changes each opponent's round score by {_ci(d['flip_value'], 'signed')} points, "
                 f"not shown to differ from 0")
        out.append(f"Discarded at once, it hands out {_ci(d['flips'], 'score')} flips. Taking them rather than "
                   f"declining them {flips}; the same flips change the discarder's score by "
                   f"{_ci(d['drawer_flip_cost'], 'signed')} points, so the discarder's margin over the average "
                   f"opponent changes by {_ci(d['standing'], 'signed')} points (lowest score wins: positive is worse "
                   f"for the discarder) and its chance of winning the game by {_ci(d['drawer_flip_win'], 'pct')}.")
    phases = [r for r in by_phase if r.get("flip_value") is not None]
    if phases:
        out.append("By the drawer's phase of the round, the flips change each opponent's round score by "
                   + ", ".join(f"{_ci(r['flip_value'], 'signed')} points {r['phase']}" for r in phases) + ".")
    v = _verdict(deny_rows)
    all_rows = [r for r in deny_rows if r["players"] == 0 and r["level"] != 0]
    if all_rows:
        parts = ", ".join(f"{_ci(r['win'], 'dpct')} at hazard_deny {r['level']:g}" for r in all_rows)
        points = ", ".join(f"{_ci(r['score'], 'signed')}" for r in all_rows)
        if v["pays_holm"]:
            where = "; ".join(f"{r['players']} players, hazard_deny {r['level']:g}" for r in v["pays_holm"])
            verdict = f"It pays clearly (after Holm's correction over {v['cells']} cells) only in: {where}."
        elif v["pays"]:
            verdict = (f"{len(v['pays'])} of {v['cells']} cells have an interval above 0, but none survives Holm's "
                       f"correction for testing all {v['cells']}.")
        else:
            verdict = (f"At no table size and level of the {v['cells']} tested does the change in the chance of "
                       f"winning have its interval above 0: within this experiment, it does not pay.")
        costs = (f" It clearly costs (after Holm) in {len(v['costs_holm'])} of the {v['cells']} cells."
                 if v["costs_holm"] else "")
        out.append(f"Keeping a drawn hazard to deny the others their flips changes cautious's chance of winning the "
                   f"game by {parts} (all table sizes, against never keeping one; positive would mean it pays; its game "
                   f"score changes by {points} points). {verdict}{costs}")
    return out


def _findings(ladder, drawn_all, deny_all) -> list[Finding]:
    found = strong_findings(
        "hazard_risk", ladder.get(STRONG, {}).get("all"), "a hazard you draw blind",
        "against an ordinary card in its place (same deals paired; every draw of that table; one hazard in play)",
        "the others'", "positive is bad for you, since the lowest score wins", "draws")
    if drawn_all and drawn_all.get("flip_value") is not None:
        found.append(Finding("hazard_risk.flip_value",
                             "Among the heuristic presets, taking the flips a discarded hazard hands out, rather than "
                             "declining them, changes each opponent's score in that round by {value} points (same "
                             "deals, only that round differing; negative is better for the opponent)",
                             drawn_all["flip_value"], "signed", "discards"))
    preset = next((r for r in deny_all if r["level"] == 1.5), None)
    if preset is not None:
        found.append(Finding("hazard_risk.deny_flips",
                             "Keeping drawn hazards to deny flips (cautious, hazard_deny 1.5) changes its game score "
                             "by {value} points against never keeping them (same deals; negative is better)",
                             preset["score"], "signed", "deals"))
    return found


def _summary(ending, by_size, drawn_all, by_phase, deny_rows) -> dict:
    def drawn_json(r):
        keys = ("kept", "stuck", "cost", "win_change", "cost_kept", "cost_discarded", "flips", "opponent_change",
                "flip_value", "flip_win", "drawer_flip_cost", "standing", "drawer_flip_win")
        return {k: r[k].to_json() for k in keys if r.get(k) is not None}

    def ending_json(r):
        return {"end_with_hazard_probability": r["share"].to_json(), "hazard_points_per_round": r["points"].to_json()}

    by_p = {str(r["players"]): {**ending_json(r), "by_strategy": {}} for r in ending["by_players"]}
    for c in ending["cells"]:
        by_p[str(c["players"])]["by_strategy"][c["strategy"]] = ending_json(c)
    return {
        **ending_json(ending["all"]),
        "by_players": by_p,
        "by_strategy": {r["strategy"]: ending_json(r) for r in ending["by_strategy"]},
        "drawn": {"all": drawn_json(drawn_all) if drawn_all else {},
                  "by_players": {str(r["players"]): drawn_json(r) for r in by_size},
                  "by_phase": {r["phase"]: drawn_json(r) for r in by_phase}},
        "deny": {("all" if r["players"] == 0 else str(r["players"])) + f".{r['level']:g}": {
            "game_score_change": r["score"].to_json(), "win_change": r["win"].to_json(),
            "survives_holm": r.get("holm"),
            "end_with_hazard_probability": r["end_with_hazard"].to_json()} for r in deny_rows if r["level"] != 0},
    }


# ----------------------------------------------------------------- estimands and answers along the ladder
def _estimands(ladder: dict, diffs: dict) -> dict:
    return ladder_estimands("hazard", ladder, diffs, TARGETS, {
        "win_chance": (BASE + "the change in the drawer's chance of winning the game (negative is bad for the drawer; "
                       "ties share the win)", "probability"),
        "margin": (BASE + "the change in the drawer's game total minus the mean of the others' game totals (positive "
                   "is bad for the drawer, since the lowest score wins)", "points")})


def _answers(ladder: dict, est: dict, diffs: dict | None = None) -> list[Answer]:
    return ladder_answers("hazard_risk", "hazard", ladder, est, diffs, TARGETS, {
        "win_chance": ("A hazard you draw blind changes your chance of winning by {value} against strong players "
                       f"({STRONG}), against an ordinary card{size_clause(sizes_of(ladder, 'win'), 'dpct')}",
                       "draws", 20),
        "margin": ("A hazard drawn blind changes your game score minus the others' average by {value} points against "
                   f"strong players (positive is bad){size_clause(sizes_of(ladder, 'margin'), 'signed')}", "draws",
                   21)})
