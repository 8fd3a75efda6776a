"""Estimates, findings and summary of the early-finish study (design in :mod:`.design`).

What the data can say.  Every row is a round that a preset *chose* to finish, so
P(bonus | score) is conditional on that choice: ``rusher`` finishes whenever it can,
``cautious`` only when clearly lowest, and the pooled curve mixes them in the shares
they happen to finish.  The rules are therefore read per preset as well as pooled, and
none of them says whether finishing beats playing on (that needs rollouts of both).
"""
from __future__ import annotations

import dataclasses
import math

import numpy as np
import pandas as pd

from ..framework.design import HEURISTIC_NAMES, TOP_DIFFERENCE
from gnoming_sim.stats import (Crossing, Estimate, clustered_share, crossing_label, finishing_crossing, holm,
                               paired_ratio_difference)
from ..framework.render import estimates_frame, format_estimate, grid
from ..framework.study import Answer, Finding, Precision, StudyResult, estimand
from ..framework.words import PREVIEW, convergence, equivalence, holds_under
from . import figures as figs
from .design import HEADLINE_PLAYERS, LADDER, LADDER_SHARE, PLAYERS, SECOND, STRONG, arm

TARGET_BONUS = 0.01   # P(bonus | finish) per table size and rung: +-1 pp
RUNGS = ("mix", *LADDER)   # summary.json's keys: the rungs by their players' names
# the paired differences along the ladder, the two strongest rungs' last (the one "holds under" is judged by)
DIFFERENCES = tuple((a, b) for k, a in enumerate(RUNGS) for b in RUNGS[:k])
TOP = TOP_DIFFERENCE

RULE_COLUMNS = ("score", "gap")


def conclude(ctx, tables, data) -> StudyResult:
    rng = np.random.default_rng(ctx.study_seed("early-finish/bootstrap"))
    ladder = _ladder(data[~data["stalled"]], tables)
    tables = [t for t in tables if arm(t) == "mix"]
    data = data[data["arm"] == "mix"]
    stalled = int(data["stalled"].sum())
    finishes = {p: _finishes_per_game(data[data["players"] == p], [t for t in tables if t.players == p])
                for p in PLAYERS}   # stalled final laps included
    data = data[~data["stalled"]]
    min_n = 10 if ctx.quick else 40
    overall = _share(data)
    design_effect = _design_effect(data)
    by_players = [_by_players(p, data[data["players"] == p], finishes[p], rng)
                  for p in PLAYERS if (data["players"] == p).any()]
    presets = _presets(data)
    rules = _preset_rules(data, rng, min_n)
    _holm_labels(by_players + rules)
    curves = {col: _curves(data, col, min_n) for col in ("score", "gap", "own_turn")}
    preset_curves = _preset_curves(data[data["players"] == HEADLINE_PLAYERS], min_n)
    facedown = _facedown_curves(data[data["players"] == HEADLINE_PLAYERS], min_n)
    frames = {"by_players": estimates_frame([_rule_columns(r) for r in by_players]),
              "presets": estimates_frame(presets),
              "rules_by_preset": estimates_frame([_rule_columns(r) for r in rules]),
              **{f"by_{col}": estimates_frame(rows) for col, rows in curves.items()},
              "by_score_and_preset": estimates_frame(preset_curves)}
    figures = [figs.score_figure(curves["score"], preset_curves, HEADLINE_PLAYERS),
               figs.gap_figure(curves["gap"], facedown),
               figs.players_figure(by_players, presets), figs.turn_figure(curves["own_turn"])]
    precision = [Precision("P(bonus), all finished rounds", overall.half_width, "pct"),
                 Precision("P(bonus) at one table size (preset mix, all deals)",
                           max(r["bonus"].half_width for r in by_players), "pct", target=TARGET_BONUS)]
    if ladder:
        precision += [Precision(f"P(bonus) at one table size under {rung} (ladder deals)",
                                max(v[rung].half_width for v in ladder.values()), "pct", target=TARGET_BONUS)
                      for rung in RUNGS]
    crossings = [c.point for r in by_players + rules for c in (r["score_rule"],) if c is not None and not c.open]
    if crossings:
        precision.append(Precision("even-bet score, one table size (and preset)",
                                   max(e.half_width for e in crossings), "points"))
    return StudyResult(
        findings=_findings(overall, by_players, presets, rules, ctx.quick) + _ladder_findings(ladder), figures=figures,
        frames={**frames, "ladder": estimates_frame([{"players": p, **c} for p, c in ladder.items()])},
        precision=precision,
        summary={**_summary(overall, by_players, presets, rules, stalled, design_effect),
                 "bonus_by_rung": _ladder_json(ladder)},
        estimands=_estimands(ladder), answers=_answers(ladder),
        context={"overall": overall, "by_players": by_players, "presets": _preset_rows(presets),
                 "rules": grid(rules, "strategy", "players", HEURISTIC_NAMES), "headline": HEADLINE_PLAYERS, "ladder": ladder,
                 "rungs": RUNGS, "differences": DIFFERENCES, "ladder_share": LADDER_SHARE, "rule_text": rule_text, "half_open": half_open, "design_effect": design_effect,
                 "stalled": stalled, "finished": len(data), "sizes": [r["players"] for r in by_players],
                 "games": {p: sum(t.games for t in tables if t.players == p) for p in PLAYERS},
                 "lineups": {p: [t.seats for t in tables if t.players == p] for p in PLAYERS}},
    )


# ---------------------------------------------------------------- estimates
def _share(rows: pd.DataFrame) -> Estimate:
    """P(bonus) over finished rounds, clustered by game (a game's three rounds count as one unit)."""
    by_game = rows.groupby(["players", "game"])["earned"].agg(["sum", "size"])
    return clustered_share(by_game["sum"].to_numpy(), by_game["size"].to_numpy())


def _design_effect(rows: pd.DataFrame) -> float:
    """Variance of the pooled P(bonus) clustered by game over the variance that treats rounds as independent.

    Above 1, the rounds of a game (same table, same seats) are alike, which is why every
    interval of this study counts games, not rounds; the report prints it.
    """
    clustered = _share(rows)
    n = len(rows)
    p = float(rows["earned"].mean()) if n else float("nan")
    iid = p * (1 - p) / n if n else float("nan")
    return float((clustered.half_width / 1.96) ** 2 / iid) if iid > 0 else float("nan")


def _rule(rows: pd.DataFrame, column: str, rng, replicates: int = 200) -> dict:
    """Where P(bonus) falls through 1/2 as ``column`` grows: read off the per-value proportions
    (a non-increasing fit), the even-bet point with a bootstrap over games (``replicates``; it only
    sets the point's interval); the integer rule's label from analytic intervals clustered by game
    (:func:`crossing_label`, no bootstrap, so it cannot flip with the bootstrap seed), its p-value
    kept for Holm's correction over the whole rule table (:func:`_holm_labels`)."""
    x, earned, game = rows[column].to_numpy(), rows["earned"].to_numpy(), rows["game"].to_numpy()
    c = finishing_crossing(x, earned, game, rng, replicates=replicates)
    out = {f"{column}_rule": c, f"{column}_range": (int(x.min()), int(x.max())) if x.size else None,
           f"{column}_p": 1.0}
    if c is not None:
        e_at, e_next, pval = crossing_label(x, earned, game, c.at_most)
        out[f"{column}_rule"] = dataclasses.replace(c, p_at=e_at, p_next=e_next)
        out[f"{column}_p"] = pval
    return out


def _holm_labels(rows: list[dict]) -> None:
    """A rule is clear when it survives Holm's correction over every rule of the table (all table
    sizes, presets and pooled, score and gap rules: one family)."""
    family = [(r, col) for r in rows for col in RULE_COLUMNS if r.get(f"{col}_rule") is not None]
    keep = holm([r[f"{col}_p"] for r, col in family])
    for (r, col), k in zip(family, keep):
        r[f"{col}_rule"] = dataclasses.replace(r[f"{col}_rule"], clear=bool(k))
        r[f"{col}_holm_family"] = len(family)


def _finishes_per_game(rows: pd.DataFrame, tables) -> tuple[np.ndarray, np.ndarray]:
    """(finished rounds, rounds) per game of ``tables``, games without a finish included (0)."""
    numbers = np.concatenate([np.arange(t.first_game, t.first_game + t.games) for t in tables]) if tables \
        else np.zeros(0, dtype=np.int64)
    counts = rows.groupby("game").size().reindex(numbers, fill_value=0).to_numpy()
    return counts, np.full(numbers.size, 3)


def _by_players(p: int, rows: pd.DataFrame, finishes, rng) -> dict:
    return {"players": p, "strategy": "all", "bonus": _share(rows), "finished": clustered_share(*finishes),
            "score": Estimate.of_mean(rows["score"].to_numpy()),
            **{k: v for col in RULE_COLUMNS for k, v in _rule(rows, col, rng).items()}}


def _ladder(data: pd.DataFrame, tables) -> dict:
    """Per table size: P(bonus | finish) under the mix and each rung of the ladder on the same deals (the ladder
    tables' game numbers), clustered by game, with the paired differences (by game, delta method)."""
    out = {}
    for p in PLAYERS:
        mine = [t for t in tables if t.players == p and arm(t) == STRONG]
        if not mine:
            continue
        numbers = np.concatenate([np.arange(t.first_game, t.first_game + t.games) for t in mine])
        per = {}
        for rung in RUNGS:
            rows = data[(data["players"] == p) & (data["arm"] == rung) & data["game"].isin(numbers)]
            agg = rows.groupby("game")["earned"].agg(["sum", "size"]).reindex(numbers, fill_value=0)
            per[rung] = (agg["sum"].to_numpy(dtype=np.float64), agg["size"].to_numpy(dtype=np.float64))
        cell = {name: clustered_share(*v) for name, v in per.items()}
        for a, b in DIFFERENCES:
            cell[f"{a}-{b}"] = paired_ratio_difference(*per[a], *per[b])
        out[p] = cell
    return out


def _ladder_json(ladder: dict) -> dict:
    return {str(p): {k: e.to_json() for k, e in cell.items()} for p, cell in ladder.items()}


def _estimands(ladder: dict) -> dict:
    if not ladder:
        return {}
    return {"early_finish_bonus": {
        f"{p}_players": estimand(f"P(the finisher earns the -5 | somebody finishes) at {p} players: the preset mix's "
                                 f"lineups, {' and '.join(LADDER)} at every seat, on the same deals; clustered by game",
                                 "probability", {k: cell[k] for k in RUNGS},
                                 {f"{a}-{b}": cell[f"{a}-{b}"] for a, b in DIFFERENCES},
                                 n_unit="deals", settled=equivalence(cell[TOP], TARGET_BONUS),
                                 target=TARGET_BONUS)
        for p, cell in ladder.items()}}


def _preset_rules(data: pd.DataFrame, rng, min_n: int) -> list[dict]:
    """The rules per preset and table size: P(bonus | the preset chose to finish at this score)."""
    out = []
    for p in PLAYERS:
        for name in HEURISTIC_NAMES:
            rows = data[(data["players"] == p) & (data["strategy"] == name)]
            if len(rows) < min_n:
                continue
            out.append({"players": p, "strategy": name, "bonus": _share(rows),
                        **{k: v for col in RULE_COLUMNS for k, v in _rule(rows, col, rng).items()}})
    return out


def _rule_columns(r: dict) -> dict:
    """A rule row flattened for a CSV: the integer rule, whether it is clear, the crossing and its interval."""
    out = {k: v for k, v in r.items() if not k.endswith(("_rule", "_range"))}
    for col in RULE_COLUMNS:
        c = r.get(f"{col}_rule")
        if c is not None:
            out.update({f"{col}_at_most": c.at_most, f"{col}_rule_clear": c.clear, f"{col}_even_bet": c.point,
                        f"{col}_p_at_rule": c.p_at, f"{col}_p_above_rule": c.p_next})
    return out


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
        per_game = table.groupby(["players", "game"]).size()
        for name in HEURISTIC_NAMES:
            sub = table[table["strategy"] == name]
            mine = sub.groupby(["players", "game"]).size().reindex(per_game.index, fill_value=0)
            rows.append({"strategy": name, "players": p,
                         "finish_share": clustered_share(mine.to_numpy(), per_game.to_numpy()),
                         "bonus": _share(sub) if len(sub) else None,
                         "score": Estimate.of_mean(sub["score"].to_numpy()) if len(sub) > 1 else None})
    return rows


def clustered_curve(rows: pd.DataFrame, keys: list, min_n: int) -> list[tuple[tuple, Estimate]]:
    """P(bonus) per value of ``keys`` (columns of ``rows``), clustered by game (a game's rounds at one value
    are one unit); values with at least ``min_n`` rounds.  [(key tuple, Estimate with n = games)]."""
    if rows.empty:
        return []
    cluster = [k for k in ("players", "game") if k not in keys]
    per = rows.groupby([*keys, *cluster], observed=True)["earned"].agg(["sum", "size"]).reset_index()
    out = []
    for key, sub in per.groupby(keys, observed=True, sort=True):
        if int(sub["size"].sum()) >= min_n:
            out.append((key if isinstance(key, tuple) else (key,),
                        clustered_share(sub["sum"].to_numpy(), sub["size"].to_numpy())))
    return out


def _curves(data: pd.DataFrame, column: str, min_n: int) -> list[dict]:
    """P(bonus) per table size and value of ``column`` (values with at least ``min_n`` rounds; clustered by game)."""
    return [{"players": int(p), column: int(x), "bonus": e} for (p, x), e in clustered_curve(data, ["players", column], min_n)]


def _preset_curves(rows: pd.DataFrame, min_n: int) -> list[dict]:
    """P(bonus) by score per preset at one table size (clustered by game)."""
    return [{"strategy": str(s), "score": int(x), "bonus": e}
            for (s, x), e in clustered_curve(rows, ["strategy", "score"], min_n)]


def _facedown_curves(rows: pd.DataFrame, min_n: int) -> list[dict]:
    """P(bonus) by gap, split by how many cards the best visible rival still hides (clustered by game)."""
    rows = rows.assign(hidden=pd.cut(rows["best_facedown"], [-1, 1, 3, 9], labels=["0-1", "2-3", "4+"]))
    return [{"hidden": str(b), "gap": int(g), "bonus": e} for (b, g), e in clustered_curve(rows, ["hidden", "gap"], min_n)]


# ---------------------------------------------------------------- outputs
def _preset_rows(presets: list[dict]) -> list[dict]:
    """One row per preset, a cell per table size (None where it never finished)."""
    out = {}
    for r in presets:
        out.setdefault(r["strategy"], {"strategy": r["strategy"], "cells": {}})["cells"][r["players"]] = r
    return list(out.values())


def rule_text(c: Crossing | None, unit: str = "score") -> str:
    """A rule in words: "at most 3", or "no clear rule (between 3 and 4)", or "no crossing"."""
    if c is None:
        return "no crossing"
    if c.clear:
        return f"at most {c.at_most}".replace("-", "\u2212")
    if c.open:
        return "no clear rule (the crossing is not pinned down within the observed values)"
    return (f"no clear rule (P at {c.at_most} and {c.at_most + 1} are not both clear of 50% after Holm's "
            f"correction over the rule table)").replace("-", "\u2212")


def half_open(c: Crossing, span) -> str:
    """The even-bet interval, half-open (or open) on a side where the bootstrap crossed outside the
    observed values (``span`` = (lowest, highest) observed value): "[3.2, 5.1]", "(\u2212\u221e, 5.1]"."""
    lo, hi = c.point.lo, c.point.hi
    below = c.open and span is not None and lo <= span[0]
    above = c.open and span is not None and hi >= span[1]
    left = "(\u2212\u221e" if below else f"[{lo:.1f}"
    right = "\u221e)" if above else f"{hi:.1f}]"
    return f"{left}, {right}".replace("-", "\u2212")


def _ladder_findings(ladder: dict) -> list[Finding]:
    c = ladder.get(HEADLINE_PLAYERS)
    if c is None:
        return []
    d = c[TOP]
    return [Finding("early_finish.bonus_strong",
                    f"When the strong player {STRONG} sits at every seat of a {HEADLINE_PLAYERS}-player table, the "
                    f"finisher earns the \u22125 in {{value}} of finished rounds, against "
                    f"{100 * c['mix'].mean:.0f}% for the preset mix and {100 * c[SECOND].mean:.0f}% for {SECOND} "
                    f"on the same deals ({STRONG} \u2212 {SECOND} {100 * d.mean:+.1f} pp "
                    f"[{100 * d.lo:+.1f}, {100 * d.hi:+.1f}]; clustered by game)",
                    c[STRONG], "pct", "games")]


def _answers(ladder: dict) -> list[Answer]:
    c = ladder.get(HEADLINE_PLAYERS)
    if c is None:
        return []
    word = equivalence(c[TOP], TARGET_BONUS)
    holds = holds_under(word, c[TOP], TARGET_BONUS, "dpct")
    return [Answer("early_finish.bonus_strong",
                   f"At {HEADLINE_PLAYERS} players among strong players ({STRONG}), the rounds {STRONG} chooses to "
                   f"finish first earn the \u22125, not the +5, {{value}} of the time ({SECOND} "
                   f"{100 * c[SECOND].mean:.0f}%, preset mix {100 * c['mix'].mean:.0f}%): how often their own "
                   f"finishes pay, conditional on when they finish, not a rule for when you should (the finishing "
                   f"answer is)", c[STRONG],
                   f"{holds}; each when it chooses to finish", kind="pct", unit="games", rank=40,
                   convergence=convergence(word))]


def _lineup_text(presets: list[dict], p: int) -> str:
    """What a conditional estimate at ``p`` players is conditional on: the lineups and who finishes."""
    at = [r for r in presets if r["players"] == p]
    shares = ", ".join(f"{r['strategy']} {100 * r['finish_share'].mean:.0f}%" for r in at)
    return (f"the {p}-player tables of greedy, builder, rusher and cautious (cyclic lineups, seats rotated), where "
            f"the finishes fall to {shares}")


def _findings(overall, by_players, presets, rules, quick: bool = False) -> list[Finding]:
    found = [Finding("early_finish.bonus_probability",
                     "A player who turns their final card earns the \u22125 (rather than the +5) "
                     "in {value} of finished rounds (heuristic tables, 2 to 7 players; rounds clustered by game)",
                     overall, "pct", "games")]
    at_p = {r["strategy"]: r for r in rules if r["players"] == HEADLINE_PLAYERS and r["score_rule"] is not None}
    main = at_p.get("greedy")
    if main is not None:
        others = "; ".join(f"{name} {format_estimate(r['score_rule'].point, 'score')}"
                           for name, r in at_p.items() if name != "greedy")
        found.append(Finding(
            "early_finish.threshold",
            f"Among the rounds greedy chose to finish at {HEADLINE_PLAYERS} players, the \u22125 is an even bet at "
            f"a score of {{value}} (rule: {PREVIEW if quick else rule_text(main['score_rule'])}); the same reading "
            f"for the other presets "
            f"differs because each finishes in other situations: {others}. These are conditional on the preset's "
            f"own choice to finish and on its rivals: {_lineup_text(presets, HEADLINE_PLAYERS)}; not advice to "
            f"finish",
            main["score_rule"].point, "score", "games"))
    at_p = [r for r in presets if r["players"] == HEADLINE_PLAYERS and r["bonus"] is not None]
    if at_p:
        most = max(at_p, key=lambda r: r["finish_share"].mean)
        found.append(Finding(
            "early_finish.most_frequent_finisher",
            f"With {HEADLINE_PLAYERS} players, {most['strategy']} finishes most often "
            f"({100 * most['finish_share'].mean:.0f}% of the finishes, where an even share is 25%) and earns the "
            f"\u22125 in {{value}} of them",
            most["bonus"], "pct", "games"))
    return found


def _rule_json(c: Crossing | None, span=None) -> dict | None:
    if c is None:
        return None
    return {"at_most": c.at_most, "clear": c.clear, "open": c.open, "even_bet": c.point.to_json(),
            "even_bet_interval": half_open(c, span),
            "p_at_rule": c.p_at.to_json(), "p_above_rule": c.p_next.to_json(),
            "clear_means": "P(bonus) at the rule and one above it each clear of 50% after Holm's correction over the "
                           "rule table (analytic intervals clustered by game)"}


def _summary(overall, by_players, presets, rules, stalled, design_effect) -> dict:
    def opt(e):
        return None if e is None else e.to_json()

    return {
        "bonus_probability": overall.to_json(),
        "stalled_final_laps": stalled,
        "design_effect_rounds_in_a_game": design_effect,
        "conditioning": "P(bonus | the preset chose to finish at this score or gap); not a comparison with playing on",
        "by_players": {str(r["players"]): {
            "bonus_probability": r["bonus"].to_json(), "finish_rate": r["finished"].to_json(),
            "finishing_score": r["score"].to_json(),
            "score_rule_pooled": _rule_json(r["score_rule"], r.get("score_range")),
            "gap_rule_pooled": _rule_json(r["gap_rule"], r.get("gap_range"))} for r in by_players},
        "rules_by_preset": {f"{r['players']}.{r['strategy']}": {
            "bonus_probability": r["bonus"].to_json(), "score_rule": _rule_json(r["score_rule"], r.get("score_range")),
            "gap_rule": _rule_json(r["gap_rule"], r.get("gap_range"))} for r in rules},
        "by_preset": {r["strategy"]: {"finish_share": r["finish_share"].to_json(),
                                      "bonus_probability": opt(r["bonus"]), "finishing_score": opt(r["score"])}
                      for r in presets if r["players"] == 0},
    }
