"""Estimates, findings and summary of the hazard-risk study (design in :mod:`.design`)."""
from __future__ import annotations

import pandas as pd

from gnoming_sim.batch.stats import mean_ci_from_sums

from ..framework.design import PRESET_NAMES
from ..framework.estimates import Estimate, estimates_frame
from ..framework.render import format_estimate
from ..framework.study import Finding, Precision, StudyResult
from . import figures as figs
from .design import DENY_LEVELS, PLAYERS

PHASES = (("early", 6, 9, "6-7 face-down cards"), ("middle", 3, 5, "3-5"), ("late", 0, 2, "1-2"))


def analyse(ctx, tables, data) -> StudyResult:
    min_n = 10 if ctx.quick else 30
    natural = data["natural"]
    sizes = [p for p in PLAYERS if (natural["players"] == p).any()]
    ending = _ending(natural, sizes)
    drawn = data["drawn"]
    drawn = drawn[drawn["ok"] & drawn["drawn"]]
    by_size = [r for r in (_drawn(drawn[drawn["players"] == p], {"players": p}) for p in sizes) if r]
    drawn_all = _drawn(drawn, {"players": 0})
    by_phase = [r for r in (_drawn(drawn[_phase(drawn["fd"]) == ph], {"phase": ph, "phase_text": text}, min_n)
                            for ph, _, _, text in PHASES) if r]
    deny_rows = _deny(data["deny"], sizes, DENY_LEVELS)

    cells = [r for r in ending["cells"] if r["share"].n >= min_n]
    precision = [Precision("P(ending a round with a hazard), all player-rounds", ending["all"]["share"].half_width,
                           "pct"),
                 Precision("P(ending a round with a hazard), one table size and preset",
                           max(r["share"].half_width for r in cells), "pct")]
    flips = [r["flip_value"] for r in by_size if r.get("flip_value") is not None]
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
              "deny": estimates_frame(deny_rows)}
    deny_all = [r for r in deny_rows if r["players"] == 0]
    return StudyResult(
        findings=_findings(ending["all"], drawn_all, deny_all),
        figures=figures, frames=frames, precision=precision,
        summary=_summary(ending, by_size, drawn_all, by_phase, deny_rows),
        context={"ending": ending, "grid": _grid(cells), "sizes": sizes, "by_size": by_size, "drawn_all": drawn_all,
                 "by_phase": by_phase, "deny": deny_rows, "deny_levels": DENY_LEVELS,
                 "deny_grid": _deny_grid(deny_rows, DENY_LEVELS), "deny_verdict": _verdict(deny_rows),
                 "games": _games(tables), "conclusions": _conclusions(ending, drawn_all, by_phase, deny_rows)},
    )


def _games(tables) -> dict:
    out = {}
    for t in tables:
        if t.arm in ("natural", "hazard", "0"):
            out.setdefault(t.experiment, {}).setdefault(t.players, 0)
            out[t.experiment][t.players] += t.games
    return out


# ----------------------------------------------------------------- ending a round with a hazard
def _ending_estimates(r) -> dict:
    n = int(r["player_rounds"])
    mean, lo, hi, n = mean_ci_from_sums(n, 10 * int(r["hazards"]), 100 * int(r["hazards_sq"]))
    return {"share": Estimate.of_share(int(r["with_hazard"]), int(r["player_rounds"])),
            "points": Estimate(mean, lo, hi, n)}


def _ending(natural: pd.DataFrame, sizes) -> dict:
    cols = ["player_rounds", "with_hazard", "hazards", "hazards_sq"]
    cells = [{"players": int(p), "strategy": s, **_ending_estimates(r)}
             for (p, s), r in natural.groupby(["players", "strategy"])[cols].sum().iterrows()]
    by_players = [{"players": int(p), "strategy": "all", **_ending_estimates(r)}
                  for p, r in natural.groupby("players")[cols].sum().iterrows()]
    by_strategy = [{"players": 0, "strategy": s, **_ending_estimates(r)}
                   for s, r in natural.groupby("strategy")[cols].sum().iterrows()]
    by_strategy.sort(key=lambda r: PRESET_NAMES.index(r["strategy"]))
    return {"cells": cells, "by_players": by_players, "by_strategy": by_strategy,
            "all": {"players": 0, "strategy": "all", **_ending_estimates(natural[cols].sum())}}


# ----------------------------------------------------------------- a drawn hazard
def _phase(fd: pd.Series) -> pd.Series:
    out = pd.Series("", index=fd.index)
    for name, lo, hi, _ in PHASES:
        out[(fd >= lo) & (fd <= hi)] = name
    return out


def _drawn(rows: pd.DataFrame, key: dict, min_n: int = 2) -> dict | None:
    """What a hazard drawn blind does: to its drawer (kept or discarded), and to the others."""
    if len(rows) < min_n:
        return None
    out = {**key, "draws": len(rows), "kept": Estimate.of_share(int(rows["kept"].sum()), len(rows)),
           "stuck": Estimate.of_share(int(rows["stuck"].sum()), len(rows)),
           "cost": Estimate.of_paired(rows["score_h"], rows["score_o"]),
           "win_cost": Estimate.of_paired(rows["win_o"], rows["win_h"])}
    kept, gone = rows[rows["kept"]], rows[rows["discarded_at_once"]]
    out["cost_kept"] = Estimate.of_paired(kept["score_h"], kept["score_o"]) if len(kept) >= min_n else None
    out["discards"] = len(gone)
    if len(gone) >= min_n:
        out.update({
            "cost_discarded": Estimate.of_paired(gone["score_h"], gone["score_o"]),
            "flips": Estimate.of_mean(gone["flips"]),
            # positive: the opponents score lower (better) with the hazard, or with its flips
            "opponent_gain": Estimate.of_paired(gone["others_o"], gone["others_h"]),
            "flip_value": Estimate.of_paired(gone["others_n"], gone["others_h"]),
            "flip_win": Estimate.of_paired(gone["others_win_h"], gone["others_win_n"]),
            "drawer_flip_cost": Estimate.of_paired(gone["score_h"], gone["score_n"])})
    return out


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
            rounds = 3 * len(sub)
            rows.append({"players": p, "level": level,
                         "end_with_hazard": Estimate.of_share(int(sub[f"hz_{arm}"].sum()), rounds),
                         "score": Estimate.of_paired(sub[f"total_{arm}"], sub[f"total_{base}"]),
                         "win": Estimate.of_paired(sub[f"win_{arm}"], sub[f"win_{base}"]),
                         "others": Estimate.of_paired(sub[f"others_{arm}"], sub[f"others_{base}"]),
                         "changed": Estimate.of_share(int((sub[f"total_{arm}"] != sub[f"total_{base}"]).sum()),
                                                      len(sub))})
    return rows


def _verdict(deny_rows: list[dict]) -> dict:
    """Where denying flips clearly pays (a lower game score, interval below 0), or clearly costs."""
    cells = [r for r in deny_rows if r["level"] != 0 and r["players"] != 0]
    return {"pays": [r for r in cells if r["score"].hi < 0], "costs": [r for r in cells if r["score"].lo > 0],
            "cells": len(cells)}


# ----------------------------------------------------------------- outputs
def _grid(cells: list[dict]) -> list[dict]:
    out = {}
    for c in cells:
        out.setdefault(c["strategy"], {"strategy": c["strategy"], "cells": {}})["cells"][c["players"]] = c
    return [out[s] for s in PRESET_NAMES if s in out]


def _deny_grid(rows: list[dict], levels) -> list[dict]:
    out = []
    for level in levels:
        cells = {r["players"]: r for r in rows if r["level"] == level}
        out.append({"level": level, "cells": cells})
    return out


def _ci(e: Estimate, kind: str = "points") -> str:
    """An estimate in a sentence: its mean and 95% interval."""
    return format_estimate(e, kind)


def _conclusions(ending, drawn_all, by_phase, deny_rows) -> list[str]:
    """Plain-words conclusions, written from the estimates; 95% intervals in brackets."""
    out = []
    ranked = sorted(ending["by_strategy"], key=lambda r: r["share"].mean)
    out.append(f"A player ends a round stuck with a hazard in {_ci(ending['all']['share'], 'pct')} of rounds; "
               f"{ranked[-1]['strategy']} most often ({_ci(ranked[-1]['share'], 'pct')}), {ranked[0]['strategy']} "
               f"least ({_ci(ranked[0]['share'], 'pct')}).")
    if drawn_all and drawn_all.get("flip_value") is not None:
        out.append(f"The heuristic presets keep a hazard drawn blind in {_ci(drawn_all['kept'], 'pct')} of draws; "
                   f"it costs its drawer {_ci(drawn_all['cost'], 'signed')} points in that round. Discarded at once, "
                   f"it hands out {_ci(drawn_all['flips'], 'score')} flips, worth "
                   f"{_ci(drawn_all['flip_value'], 'signed')} points to each opponent (positive: a gain); counting "
                   f"everything else the hazard changes, each opponent gains {_ci(drawn_all['opponent_gain'], 'signed')} "
                   f"points, while the flips cost the discarder {_ci(drawn_all['drawer_flip_cost'], 'signed')}.")
    phases = [r for r in by_phase if r.get("flip_value") is not None]
    if phases:
        out.append("By the drawer's phase of the round, the flips are worth "
                   + ", ".join(f"{_ci(r['flip_value'], 'signed')} points per opponent {r['phase']}" for r in phases)
                   + ".")
    v = _verdict(deny_rows)
    all_rows = [r for r in deny_rows if r["players"] == 0 and r["level"] != 0]
    if all_rows:
        parts = ", ".join(f"{_ci(r['score'], 'signed')} at hazard_deny {r['level']:g}" for r in all_rows)
        if v["pays"]:
            where = "; ".join(f"{r['players']} players, hazard_deny {r['level']:g}" for r in v["pays"])
            verdict = f"It pays clearly only in these cells: {where}."
        else:
            verdict = ("It never clearly pays: at no table size and level does the game-score change have its "
                       "interval below 0.")
        out.append(f"Keeping a drawn hazard to deny the others their flips changes cautious's game score by {parts} "
                   f"points per game (all table sizes, against never keeping one; negative would mean it pays). "
                   f"{verdict}")
    return out


def _findings(ending_all, drawn_all, deny_all) -> list[Finding]:
    found = [Finding("hazard_risk.end_with_hazard_probability",
                     "A player ends a round with a hazard (+10) in their layout in {value} of rounds "
                     "(all presets, 2 to 7 players)", ending_all["share"], "pct", "player-rounds")]
    if drawn_all and drawn_all.get("flip_value") is not None:
        found.append(Finding("hazard_risk.flip_value",
                             "The flips a discarded hazard hands out are worth {value} points to each opponent in that "
                             "round (same deals, flips taken against declined; positive: they lower the opponent's "
                             "score)", drawn_all["flip_value"], "signed", "discards"))
    preset = next((r for r in deny_all if r["level"] == 1.5), None)
    if preset is not None:
        found.append(Finding("hazard_risk.deny_flips",
                             "Keeping drawn hazards to deny flips (cautious, hazard_deny 1.5) changes its game score "
                             "by {value} points against never keeping them (same deals; negative: it pays)",
                             preset["score"], "signed", "deals"))
    return found


def _summary(ending, by_size, drawn_all, by_phase, deny_rows) -> dict:
    def drawn_json(r):
        keys = ("kept", "stuck", "cost", "win_cost", "cost_kept", "cost_discarded", "flips", "opponent_gain",
                "flip_value", "flip_win", "drawer_flip_cost")
        return {k: r[k].to_json() for k in keys if r.get(k) is not None}

    by_p = {str(r["players"]): {"end_with_hazard_probability": r["share"].to_json(),
                                "hazard_points_per_round": r["points"].to_json(), "by_strategy": {}}
            for r in ending["by_players"]}
    for c in ending["cells"]:
        by_p[str(c["players"])]["by_strategy"][c["strategy"]] = {
            "end_with_hazard_probability": c["share"].to_json(), "hazard_points_per_round": c["points"].to_json()}
    return {
        "end_with_hazard_probability": ending["all"]["share"].to_json(),
        "hazard_points_per_round": ending["all"]["points"].to_json(),
        "by_players": by_p,
        "by_strategy": {r["strategy"]: {"end_with_hazard_probability": r["share"].to_json(),
                                        "hazard_points_per_round": r["points"].to_json()}
                        for r in ending["by_strategy"]},
        "drawn": {"all": drawn_json(drawn_all) if drawn_all else {},
                  "by_players": {str(r["players"]): drawn_json(r) for r in by_size},
                  "by_phase": {r["phase"]: drawn_json(r) for r in by_phase}},
        "deny": {("all" if r["players"] == 0 else str(r["players"])) + f".{r['level']:g}": {
            "game_score_change": r["score"].to_json(), "win_change": r["win"].to_json(),
            "end_with_hazard_probability": r["end_with_hazard"].to_json()} for r in deny_rows if r["level"] != 0},
    }
