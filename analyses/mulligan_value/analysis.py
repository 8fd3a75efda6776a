"""Estimates, findings and summary of the mulligan-value study (design in :mod:`.design`)."""
from __future__ import annotations

import pandas as pd

from ..framework.design import EXPERT, PRESET_NAMES, STRONG, STRONG_LADDER, STRONG_TEXT
from ..framework.estimates import Estimate, clustered_share, estimates_frame, holm
from ..framework.render import format_estimate
from ..framework.study import Finding, Precision, StudyResult
from . import figures as figs
from .design import DEALT_STRONG, PLAYERS
from ..framework.paired import difference, standard_errors
from ..framework.trace_follow import MODE_BLIND, MODE_DEALT, MODE_PILE

# phase of the round: the acquiring player's face-down cards at the draw
PHASES = (("early", 6, 9, "6-7 face-down cards"), ("middle", 3, 5, "3-5 face-down cards"),
          ("late", 0, 2, "1-2 face-down cards"))
SOURCES = ((MODE_PILE, "pile", "taken from a discard pile"), (MODE_BLIND, "blind", "drawn blind"))


def analyse(ctx, tables, data) -> StudyResult:
    min_n = 10 if ctx.quick else 30
    dealt = data["dealt"]
    invalid = int((~dealt["ok"]).sum())
    dealt = dealt[dealt["ok"]]
    players = [p for p in PLAYERS if (dealt["players"] == p).any()]
    overall = _worth(dealt)
    by_players = [{"players": p, **_worth(dealt[dealt["players"] == p])} for p in players]
    cells = [{"players": p, "strategy": s, **_worth(sub)}
             for (p, s), sub in dealt.groupby(["players", "strategy"], observed=True) if len(sub) >= min_n]
    by_strategy = [{"strategy": s, **_worth(sub)} for s, sub in dealt.groupby("strategy", observed=True)]
    flow, arrivals = _flow(data["flow"], min_n), _arrivals(data["flow"], players)
    limit_rows, limit_all = _limit(data["limit"], players, min_n)
    limit = ctx.rules.mulligan_limit
    strong = _strong(dealt, {player: data.get(DEALT_STRONG[player]) for player in STRONG_LADDER}, players)

    precision = [Precision("mulligan worth, all deals", overall["points"].half_width, "points")]
    if cells:
        precision += [Precision("mulligan worth at one table size, one preset",
                                max(c["points"].half_width for c in cells), "points"),
                      Precision("win-probability worth at one table size, one preset",
                                max(c["win"].half_width for c in cells), "pct")]
    if flow:
        precision.append(Precision("worth by source and phase", max(r["points"].half_width for r in flow), "points"))
    if limit and limit_rows:
        precision.append(Precision("share of player-rounds the limit bars, one table size and preset",
                                   max(r["rounds"].half_width for r in limit_rows), "pct"))
    figures = [figs.by_players_figure(cells, by_players), figs.pairing_figure(by_players),
               figs.source_figure(flow, arrivals)]
    if limit and limit_rows:
        figures.append(figs.limit_figure(limit_rows))
    frames = {"by_players": estimates_frame(by_players), "by_players_strategy": estimates_frame(cells),
              "by_source": estimates_frame(flow), "arrivals": estimates_frame(arrivals), "limit": estimates_frame(limit_rows)}
    games = {p: sum(t.games for t in tables if t.players == p and t.experiment == "dealt" and t.arm == "mulligan")
             for p in players}
    flow_games = {p: sum(t.games for t in tables if t.players == p and t.experiment == "flow" and t.arm == "natural")
                  for p in players}
    return StudyResult(
        findings=_findings(overall, flow, limit_all, limit, strong), figures=figures, frames=frames,
        precision=precision,
        summary={**_summary(overall, by_players, cells, by_strategy, flow, arrivals, limit_rows, limit_all, limit,
                            invalid), **_strong_summary(strong)},
        context={"overall": overall, "by_players": by_players, "grid": _grid(cells), "by_strategy": by_strategy,
                 "sizes": players, "flow": flow, "arrivals": arrivals, "limit_rows": _limit_grid(limit_rows),
                 "limit_all": limit_all, "limit": limit, "invalid": invalid, "games": games,
                 "flow_games": flow_games, "phases": PHASES, "presets": PRESET_NAMES, "strong": strong,
                 "strong_ladder": STRONG_LADDER, "strong_player": STRONG,
                 "conclusions": _conclusions(overall, by_players, by_strategy, flow, limit_all, limit_rows, limit)},
    )


# ----------------------------------------------------------------- estimates
def _worth(rows: pd.DataFrame) -> dict:
    """Paired worth of the mulligan to its holder, each as mulligan arm minus ordinary arm: the change
    in its round score (negative is better), in its win credit, in the others' scores; and both
    standard errors of the first."""
    paired, unpaired = standard_errors(rows["score_m"], rows["score_o"])
    return {"points": Estimate.of_paired(rows["score_m"], rows["score_o"]),
            "win": Estimate.of_paired(rows["win_m"], rows["win_o"]),
            "others": Estimate.of_paired(rows["others_m"], rows["others_o"]),
            "paired_se": paired, "unpaired_se": unpaired,
            "saving": (unpaired / paired) ** 2 if paired > 0 else float("nan")}


def _strong(mix: pd.DataFrame, ladder: dict, players) -> list[dict]:
    """The dealt mulligan's worth with one player at every seat beside the preset mix, for each rung of
    :data:`STRONG_LADDER` (``ladder``: player -> its rows, or None), per table size and over all
    (``players`` 0): every arm of every table is the same deals with the same edit, so "player minus mix"
    is paired deal by deal (the difference of the two worths).  Each row's ``ladder`` lists the rungs,
    weakest first; ``strong``, ``strong_win`` and ``strong_minus_mix`` are :data:`STRONG`'s."""
    frames = {name: f[f["ok"]] for name, f in ladder.items() if f is not None and not f.empty}
    if STRONG not in frames:
        return []
    out = []
    for p in [*players, 0]:
        rungs = []
        for name, frame in frames.items():
            both = mix.merge(frame, on=["players", "game"], suffixes=("", "_x"))
            rows = both if p == 0 else both[both["players"] == p]
            if len(rows) < 2:
                continue
            rungs.append({"player": name, "mix": Estimate.of_paired(rows["score_m"], rows["score_o"]),
                          "worth": Estimate.of_paired(rows["score_m_x"], rows["score_o_x"]),
                          "win": Estimate.of_paired(rows["win_m_x"], rows["win_o_x"]),
                          "minus_mix": Estimate.of_paired(rows["score_m_x"] - rows["score_o_x"],
                                                          rows["score_m"] - rows["score_o"])})
        top = next((r for r in rungs if r["player"] == STRONG), None)
        if top is None:
            continue
        out.append({"players": p, "mix": top["mix"], "strong": top["worth"], "strong_win": top["win"],
                    "strong_minus_mix": top["minus_mix"], "ladder": rungs})
    return out


def _strong_summary(strong: list[dict]) -> dict:
    if not strong:
        return {}
    return {"strong_play": {
        "strong_player": STRONG, "ladder": list(STRONG_LADDER),
        "table": f"one player at every seat ({', then '.join(STRONG_LADDER)}), on the dealt experiment's deals "
                 f"and edits; the strong_* estimates are {STRONG}'s",
        "by_players": {("all" if r["players"] == 0 else str(r["players"])): {
            "mix_score_change_per_round": r["mix"].to_json(),
            "strong_score_change_per_round": r["strong"].to_json(),
            "strong_win_probability": r["strong_win"].to_json(),
            "strong_minus_mix": r["strong_minus_mix"].to_json(),
            "by_player": {g["player"]: {"score_change_per_round": g["worth"].to_json(),
                                        "win_probability": g["win"].to_json(),
                                        "minus_mix": g["minus_mix"].to_json()} for g in r["ladder"]}}
            for r in strong}}}


def _phase(fd: pd.Series) -> pd.Series:
    out = pd.Series("", index=fd.index)
    for name, lo, hi, _ in PHASES:
        out[(fd >= lo) & (fd <= hi)] = name
    return out


def _flow(flow: pd.DataFrame, min_n: int) -> list[dict]:
    """Worth of a mulligan to the player who first placed it, by how and when it came."""
    rows = flow[flow["ok"] & flow["acquired"]].copy()
    rows["phase"] = _phase(rows["fd"])
    out = []
    dealt = rows[rows["mode"] == MODE_DEALT]
    if len(dealt) >= min_n:
        out.append({"source": "dealt", "source_text": "kept from the deal", "phase": "deal",
                    "phase_text": "from the deal", **_flow_worth(dealt)})
    for mode, source, text in SOURCES:
        for phase, _, _, phase_text in PHASES:
            sub = rows[(rows["mode"] == mode) & (rows["phase"] == phase)]
            if len(sub) >= min_n:
                out.append({"source": source, "source_text": text, "phase": phase, "phase_text": phase_text,
                            **_flow_worth(sub)})
    by_key = {(r["source"], r["phase"]): r for r in out}
    for r in out:
        blind = by_key.get(("blind", r["phase"]))
        r["pile_minus_blind"] = difference(r["points"], blind["points"]) if r["source"] == "pile" and blind else None
    compared = [r for r in out if r["pile_minus_blind"] is not None]
    for r, keep in zip(compared, holm([r["pile_minus_blind"] for r in compared])):
        r["holm"] = keep   # the pile-vs-blind comparisons are one family of tests
    return out


def _flow_worth(rows: pd.DataFrame) -> dict:
    # with the mulligan (natural arm) minus without it (removed arm): negative points are better
    return {"points": Estimate.of_paired(rows["score_n"], rows["score_r"]),
            "win": Estimate.of_paired(rows["win_n"], rows["win_r"])}


def _arrivals(flow: pd.DataFrame, players) -> list[dict]:
    """How a mulligan picked at random from the deal reaches a player (share of deals), by table size."""
    rows = flow[flow["ok"]]
    out = []
    for p in players:
        sub = rows[rows["players"] == p]
        n = len(sub)
        if n == 0:
            continue
        placed = sub["acquired"]
        out.append({"players": p, "n": n,
                    "dealt": Estimate.of_share(int((placed & (sub["mode"] == MODE_DEALT)).sum()), n),
                    "pile": Estimate.of_share(int((placed & (sub["mode"] == MODE_PILE)).sum()), n),
                    "blind": Estimate.of_share(int((placed & (sub["mode"] == MODE_BLIND)).sum()), n),
                    "never": Estimate.of_share(int((~placed).sum()), n)})
    return out


def _limit(limit: pd.DataFrame, players, min_n: int) -> tuple[list[dict], dict]:
    """Share of player-rounds in which the limit barred a mulligan on offer, and of the offers barred;
    ``limit`` holds one row per game and strategy, and every share is clustered by game."""
    rows = []
    for (p, s), sub in limit.groupby(["players", "strategy"]):
        if sub["player_rounds"].sum() < min_n:
            continue
        rows.append({"players": int(p), "strategy": s, **_limit_estimates(sub)})
    return rows, _limit_estimates(limit)


def _limit_estimates(rows: pd.DataFrame) -> dict:
    g = rows.groupby(["players", "game"])[["player_rounds", "barred_rounds", "offered_rounds", "barred_turns",
                                           "offered_turns"]].sum()
    offers = g["offered_turns"].to_numpy()
    return {"rounds": clustered_share(g["barred_rounds"].to_numpy(), g["player_rounds"].to_numpy()),
            "offered": clustered_share(g["offered_rounds"].to_numpy(), g["player_rounds"].to_numpy()),
            "offers": clustered_share(g["barred_turns"].to_numpy(), offers) if offers.sum() else None}


# ----------------------------------------------------------------- outputs
def _ci(e: Estimate, kind: str = "points") -> str:
    """An estimate in a sentence: its mean and 95% interval."""
    return format_estimate(e, kind)


def _conclusions(overall, by_players, by_strategy, flow, limit_all, limit_rows, limit) -> list[str]:
    """Plain-words conclusions, written from the estimates (so they follow the data); 95% intervals in brackets.

    Points are changes in round score with the mulligan minus without it: negative is better.
    """
    out = []
    first, last = by_players[0], by_players[-1]
    # a bigger saving is a more negative change
    trend = ("more" if last["points"].hi < first["points"].lo else
             "less" if last["points"].lo > first["points"].hi else "about as much")
    out.append(f"A mulligan dealt to you changes your score in that round by {_ci(overall['points'], 'signed')} "
               f"points, and your chance of winning the game by {_ci(overall['win'], 'pct')} (percentage points). "
               f"It is worth {trend} at a big table: {_ci(first['points'], 'signed')} points with "
               f"{first['players']} players, {_ci(last['points'], 'signed')} with {last['players']}.")
    if len(by_strategy) > 1:
        ranked = sorted(by_strategy, key=lambda r: r["points"].mean)
        out.append(f"How you play matters: {ranked[0]['strategy']} gets the most out of a mulligan "
                   f"({_ci(ranked[0]['points'], 'signed')} points per round), {ranked[-1]['strategy']} the least "
                   f"({_ci(ranked[-1]['points'], 'signed')}).")
    pile = {r["phase"]: r for r in flow if r["source"] == "pile"}
    blind = {r["phase"]: r for r in flow if r["source"] == "blind"}
    both = [ph for ph, *_ in PHASES if ph in pile and ph in blind]
    if both:
        parts = []
        for ph in both:
            d = pile[ph]["pile_minus_blind"]
            verdict = ("no clear difference" if not pile[ph].get("holm") else
                       "clearly more" if d.hi < 0 else "clearly less")
            when = {"early": "early in the round", "middle": "in mid-round", "late": "late in the round"}[ph]
            parts.append(f"{when}, a mulligan taken from a discard pile changes the score by "
                         f"{_ci(pile[ph]['points'], 'signed')} points against {_ci(blind[ph]['points'], 'signed')} "
                         f"drawn blind ({verdict})")
        out.append("To the player who places it: " + "; ".join(parts) + f" ({len(both)} comparisons; \"clearly\" "
                   "only where the difference survives Holm's correction for all of them).")
    if limit and limit_rows:
        top = max(limit_rows, key=lambda r: r["rounds"].mean)
        out.append(f"The {limit}-mulligan limit binds in {_ci(limit_all['rounds'], 'pct')} of player-rounds "
                   f"(a mulligan on offer while the player already shows one), most often for {top['strategy']} "
                   f"at {top['players']} players ({_ci(top['rounds'], 'pct')}).")
    return out


def _grid(cells: list[dict]) -> list[dict]:
    """One row per preset, a cell per table size."""
    out = {}
    for c in cells:
        out.setdefault(c["strategy"], {"strategy": c["strategy"], "cells": {}})["cells"][c["players"]] = c
    return [out[s] for s in PRESET_NAMES if s in out]


def _limit_grid(rows: list[dict]) -> list[dict]:
    return _grid(rows)


def _findings(overall, flow, limit_all, limit, strong=()) -> list[Finding]:
    found = [
        Finding("mulligan_value.points_per_round",
                "Being dealt a mulligan instead of an ordinary card changes its holder's score by {value} points "
                "in that round (2 to 7 players, all presets, same deals paired; negative is better)",
                overall["points"], "signed", "deals"),
        Finding("mulligan_value.win_probability",
                "A mulligan dealt in one round changes its holder's chance of winning the game by {value} "
                "(percentage points, same deals paired; positive is better)",
                overall["win"], "pct", "deals"),
    ]
    every = next((r for r in strong if r["players"] == 0), None)
    if every is not None:
        rungs = {g["player"]: g for g in every["ladder"]}
        middle = (f", with {EXPERT} at every seat {_ci(rungs[EXPERT]['worth'], 'signed')}"
                  if EXPERT in rungs and EXPERT != STRONG else "")
        found.append(Finding(
            "mulligan_value.points_per_round_strong",
            f"Under strong play ({STRONG_TEXT}, at every seat) the same dealt mulligan changes its "
            "holder's score by {value} points in that round (same deals and edits as the preset mix, where it is "
            f"{_ci(every['mix'], 'signed')}{middle}; the difference, {STRONG} minus mix, is "
            f"{_ci(every['strong_minus_mix'], 'signed')})",
            every["strong"], "signed", "deals"))
    if limit:
        found.append(Finding(
            "mulligan_value.limit_binds",
            f"The {limit}-mulligan limit bars a player from a mulligan on offer in {{value}} of their rounds "
            f"(player-rounds clustered by game)",
            limit_all["rounds"], "pct", "games"))
    return found


def _summary(overall, by_players, cells, by_strategy, flow, arrivals, limit_rows, limit_all, limit, invalid) -> dict:
    def worth(r):
        return {"score_change_per_round": r["points"].to_json(), "win_probability": r["win"].to_json(),
                "others_points": r["others"].to_json(), "paired_se": r["paired_se"], "unpaired_se": r["unpaired_se"]}

    by_p = {str(r["players"]): {**worth(r), "by_strategy": {}} for r in by_players}
    for c in cells:
        by_p[str(c["players"])]["by_strategy"][c["strategy"]] = worth(c)
    out = {
        "score_change_per_round": overall["points"].to_json(),
        "paired_se": overall["paired_se"], "unpaired_se": overall["unpaired_se"],
        "win_probability": overall["win"].to_json(),
        "others_points": overall["others"].to_json(),
        "by_players": by_p,
        "by_strategy": {r["strategy"]: worth(r) for r in by_strategy},
        "by_source": {f"{r['source']}.{r['phase']}": {"score_change_per_round": r["points"].to_json(),
                                                      "win_probability": r["win"].to_json(),
                                                      "pile_minus_blind": r["pile_minus_blind"].to_json()
                                                      if r.get("pile_minus_blind") is not None else None,
                                                      "survives_holm": r.get("holm")} for r in flow},
        "arrivals": {str(r["players"]): {k: r[k].to_json() for k in ("dealt", "pile", "blind", "never")}
                     for r in arrivals},
        "skipped_deals": invalid,
        "mulligan_limit": limit,
    }
    if limit:
        out["limit_binds"] = {
            "player_rounds": limit_all["rounds"].to_json(),
            "offers": limit_all["offers"].to_json() if limit_all["offers"] is not None else None,
            "by_players": {f"{r['players']}.{r['strategy']}": r["rounds"].to_json() for r in limit_rows}}
    return out
