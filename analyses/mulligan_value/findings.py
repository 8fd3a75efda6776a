"""Estimates, findings and summary of the mulligan-value study (design in :mod:`.design`)."""
from __future__ import annotations

import pandas as pd

from gnoming_sim.stats import Estimate, clustered_share, holm, independent_difference, standard_errors

from ..framework.design import SECOND, PRESET_NAMES, STRONG, STRONG_LADDER
from ..framework.paired import (as_json, by_rung_and_size, ladder_answers, ladder_estimands, ladder_precision,
                                phase_of, rung_differences, rung_frames, sizes_of, strong_findings,
                                top_difference)
from ..framework.render import estimates_frame, format_estimate as _ci, grid
from ..framework.study import Answer, Finding, Precision, StudyResult
from ..framework.words import size_clause
from ..framework.trace_follow import MODE_BLIND, MODE_DEALT, MODE_PILE
from . import figures as figs
from .design import PLAYERS

# the advice-bearing estimates and the half-widths they were sized for (from a pilot of 2,000 deals per table
# size: the paired win change has sd 0.30 (mix) to 0.37 (expert, learned), the margin sd 16-17 points).
# A mulligan moves its holder's win chance by 0 to 2 percentage points, so +-0.5 pp tells "worth about a
# point of winning" from "worth nothing"; +-0.3 points of margin is a tenth of a typical hand card.  Fixed
# sizes from that pilot: 5,000 deals per table size in the mix; the rungs of the strong ladder (learned, net) play
# 2,750 (design.RUNG_SHARE): about +-0.6 pp and +-0.35 points each, the report's cost held.
TARGET_WIN = 0.005
TARGET_MARGIN = 0.3
TARGETS = {"win": TARGET_WIN, "margin": TARGET_MARGIN}
MAIN = "p"      # the headline control: the mulligan at a random depth of the draw pile (arm placed)
CONTROL = "the same mulligan at a random depth of the draw pile (where anyone may draw it)"
BASE = ("one round of the game edited: a mulligan at a random slot of the holder's layout (in place of an ordinary "
        "card) against " + CONTROL + "; same deals, 2 to 7 players equally weighted; ")

# phase of the round: the acquiring player's face-down cards at the draw
PHASES = (("early", 6, 9, "6-7 face-down cards"), ("middle", 3, 5, "3-5 face-down cards"),
          ("late", 0, 2, "1-2 face-down cards"))
SOURCES = ((MODE_PILE, "pile", "taken from a discard pile"), (MODE_BLIND, "blind", "drawn blind"))

RUNG_TEXT = {"mix": "the preset mix", SECOND: f"{SECOND} at every seat", STRONG: f"{STRONG} at every seat"}
CONTROL_TEXT = {"p": CONTROL,
                "o": "the same mulligan buried at the bottom of the draw pile (nobody has it)"}


def conclude(ctx, tables, data) -> StudyResult:
    min_n = 10 if ctx.quick else 30
    dealt = data["dealt"]
    invalid = int((~dealt["ok"]).sum())
    skipped = {str(p): int((~dealt["ok"] & (dealt["players"] == p)).sum()) for p in PLAYERS}
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
    frames_by_rung = rung_frames(data, "dealt")
    ladder = _ladder(frames_by_rung, players)
    diffs = _differences(frames_by_rung, players)
    fates = _fates(frames_by_rung, players)
    estimands = _estimands(ladder, diffs)

    precision = [Precision("mulligan worth in the holder's round score (mix, buried control), all deals",
                           overall["points"].half_width, "points")]
    precision += ladder_precision(headline(ladder), RUNG_TEXT, "holder", "rivals", TARGETS)
    if cells:
        precision.append(Precision("mulligan worth at one table size, one preset",
                                   max(c["points"].half_width for c in cells), "points"))
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
              "by_source": estimates_frame(flow), "arrivals": estimates_frame(arrivals), "limit": estimates_frame(limit_rows),
              "ladder": estimates_frame(_ladder_rows(ladder))}
    games = {p: sum(t.games for t in tables if t.players == p and t.experiment == "dealt" and t.arm == "mulligan")
             for p in players}
    rung_games = {rung: {p: int((f["players"] == p).sum()) for p in players} for rung, f in frames_by_rung.items()}
    flow_games = {p: sum(t.games for t in tables if t.players == p and t.experiment == "flow" and t.arm == "natural")
                  for p in players}
    return StudyResult(
        findings=_findings(ladder, diffs, fates), figures=figures, frames=frames,
        precision=precision, estimands=estimands, answers=_answers(ladder, estimands, diffs),
        summary={**_summary(overall, by_players, cells, by_strategy, flow, arrivals, limit_rows, limit_all, limit,
                            invalid), "skipped_by_players": skipped, **_ladder_summary(ladder, diffs, fates)},
        context={"overall": overall, "by_players": by_players, "grid": grid(cells, "strategy", "players", PRESET_NAMES),
                 "by_strategy": by_strategy, "sizes": players, "flow": flow, "arrivals": arrivals,
                 "limit_rows": grid(limit_rows, "strategy", "players", PRESET_NAMES),
                 "limit_all": limit_all, "limit": limit, "invalid": invalid, "games": games,
                 "flow_games": flow_games, "phases": PHASES, "presets": PRESET_NAMES,
                 "ladder": ladder, "diffs": diffs, "fates": fates, "rungs": list(ladder), "rung_text": RUNG_TEXT,
                 "rung_games": rung_games, "control_text": CONTROL_TEXT, "strong_ladder": STRONG_LADDER,
                 "strong_player": STRONG, "second": SECOND, "target_win": TARGET_WIN, "target_margin": TARGET_MARGIN,
                 "estimands": estimands,
                 "conclusions": _conclusions(ladder, diffs, fates, overall, flow, limit_all, limit_rows, limit)},
    )


# ----------------------------------------------------------------- along the ladder
def _effects(rows: pd.DataFrame, c: str) -> dict | None:
    """The mulligan arm minus control ``c`` on the same deals: the holder's win credit (positive is better),
    margin over the rivals (game total minus the rivals' mean; negative is better), round score, and the
    rivals' mean round score."""
    if f"win_{c}" not in rows or len(rows) < 2:
        return None
    return {"win": Estimate.of_paired(rows["win_m"], rows[f"win_{c}"]),
            "margin": Estimate.of_paired(rows["margin_m"], rows[f"margin_{c}"]),
            "points": Estimate.of_paired(rows["score_m"], rows[f"score_{c}"]),
            "others": Estimate.of_paired(rows["others_m"], rows[f"others_{c}"])}


def _ladder(frames: dict, players) -> dict:
    """rung -> table size ("all" or "2".."7") -> control ("p", "o") -> effects."""
    return by_rung_and_size(frames, players, lambda rows: {c: e for c in CONTROL_TEXT
                                                           if (e := _effects(rows, c)) is not None})


def _differences(frames: dict, players) -> dict:
    """"a-b" -> table size -> {"win", "margin"}: rung a's effect minus rung b's, paired deal by deal
    (the headline control; the deals both rungs played)."""
    return rung_differences(frames, players, lambda rows: None if len(rows) < 2 else {
        m: Estimate.of_paired(rows[f"{m}_m"] - rows[f"{m}_{MAIN}"], rows[f"{m}_m_y"] - rows[f"{m}_{MAIN}_y"])
        for m in ("win", "margin")})


def _fates(frames: dict, players) -> dict:
    """rung -> table size -> where the dealt mulligan went (shares of deals, from the traced mulligan arm)."""
    def fate(rows):
        n = len(rows)
        return {"overwritten": Estimate.of_share(int(rows["overwritten"].sum()), n),
                "blind_to_rival": Estimate.of_share(int(rows["placed_by_rival"].sum()), n),
                "to_rival": Estimate.of_share(int(rows["to_rival"].sum()), n)} if n else None

    return by_rung_and_size({r: f for r, f in frames.items() if "to_rival" in f}, players, fate)


def _mix_verdict(diffs: dict) -> str:
    d = diffs.get(f"{STRONG}-mix", {}).get("all")
    if d is None or d["win"].lo <= 0 <= d["win"].hi:
        return ""
    word = "overstates" if d["win"].hi < 0 else "understates"
    return (f" The preset mix {word} the mulligan's worth to strong players ({STRONG} minus mix "
            f"{_ci(d['win'], 'dpct')} of win chance).")


def _ladder_rows(ladder: dict) -> list[dict]:
    return [{"player": rung, "players": p, "control": c, **e}
            for rung, by in ladder.items() for p, cs in by.items() for c, e in cs.items()]


def _ladder_summary(ladder: dict, diffs: dict, fates: dict) -> dict:
    if not ladder:
        return {}
    return {"ladder": {
        "controls": {"placed": CONTROL_TEXT["p"], "ordinary": CONTROL_TEXT["o"]},
        "by_player": {rung: {p: {("placed" if c == "p" else "ordinary"): as_json(e) for c, e in cs.items()}
                             for p, cs in by.items()} for rung, by in ladder.items()},
        "differences": as_json(diffs), "where_the_mulligan_went": as_json(fates)}}


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


def _flow(flow: pd.DataFrame, min_n: int) -> list[dict]:
    """Worth of a mulligan to the player who first placed it, by how and when it came."""
    rows = flow[flow["ok"] & flow["acquired"]].copy()
    rows["phase"] = phase_of(rows["fd"], PHASES)
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
        pile = r["source"] == "pile" and blind
        r["pile_minus_blind"] = independent_difference(r["points"], blind["points"]) if pile else None
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
def _conclusions(ladder, diffs, fates, overall, flow, limit_all, limit_rows, limit) -> list[str]:
    """Plain-words conclusions, written from the estimates (so they follow the data); 95% intervals in brackets.

    Win chances are in percentage points (positive is better for the holder); margins are the holder's game
    total minus the rivals' mean (negative is better).
    """
    out = []
    if ladder:
        parts = [f"{RUNG_TEXT[r]} {_ci(ladder[r]['all'][MAIN]['win'], 'dpct')}" for r in ladder
                 if MAIN in ladder[r]["all"]]
        out.append("A mulligan dealt to you, against the same mulligan left at a random depth of the draw pile, "
                   "changes your chance of winning the game by: " + "; ".join(parts) + " (percentage points, "
                   "2 to 7 players equally weighted).")
        margins = [f"{RUNG_TEXT[r]} {_ci(ladder[r]['all'][MAIN]['margin'], 'signed')}" for r in ladder
                   if MAIN in ladder[r]["all"]]
        strong = ladder.get(STRONG, {}).get("all", {}).get(MAIN)
        gain = (f" Your own points alone overstate it: with {STRONG} at every seat your round score changes by "
                f"{_ci(strong['points'], 'signed')} but the rivals' mean round score by {_ci(strong['others'], 'signed')} "
                "as well (they gain from your mulligan too)." if strong and strong["others"].hi < 0 else "")
        out.append("Your final score minus your rivals' average changes by: " + "; ".join(margins)
                   + " points (negative is good for you)." + gain)
        top = top_difference(diffs, f"Between the two strongest rungs ({STRONG} minus {SECOND}, paired on the same "
                             "deals) the win chance", "the margin", TARGETS, ".1f")
        out += [top + _mix_verdict(diffs)] if top else []
    if SECOND in fates and "mix" in fates:
        two = [(r, fates[r].get("2"), ladder.get(r, {}).get("2", {}).get(MAIN)) for r in (SECOND, STRONG) if r in fates]
        two = [(r, f, e) for r, f, e in two if f and e]
        if two:
            at2 = "; ".join(f"{RUNG_TEXT[r]}: {_ci(f['blind_to_rival'], 'pct')} of dealt mulligans are overwritten "
                            f"blind and then placed by the rival, and the holder's win chance changes by "
                            f"{_ci(e['win'], 'dpct')}" for r, f, e in two)
            ex, mx = fates[SECOND]["all"], fates["mix"]["all"]
            out.append(f"Why it can cost you: a mulligan is mostly dealt face down, and with {SECOND} at every seat its "
                       f"holder replaces it unseen (overwrites it blind) in {_ci(ex['overwritten'], 'pct')} of deals; in "
                       f"{_ci(ex['blind_to_rival'], 'pct')} a rival then takes it from the discard pile and places it, "
                       f"and in {_ci(ex['to_rival'], 'pct')} it ends the round in a rival's layout (the preset mix: "
                       f"{_ci(mx['overwritten'], 'pct')} overwritten blind, {_ci(mx['blind_to_rival'], 'pct')} then "
                       f"placed by a rival). At 2 players that rival is the only one you must beat, so the gift weighs "
                       f"most: {at2}.")
    buried = ladder.get("mix", {}).get("all", {}).get("o")
    if buried is not None:
        out.append(f"Against the mulligan buried where nobody gets it (the second control), the preset mix's holder "
                   f"gains {_ci(buried['win'], 'dpct')} of win chance and {_ci(buried['points'], 'signed')} points "
                   f"in that round, while the rivals' round score changes by {_ci(buried['others'], 'signed')}.")
    pile = {r["phase"]: r for r in flow if r["source"] == "pile"}
    blind = {r["phase"]: r for r in flow if r["source"] == "blind"}
    both = [ph for ph, *_ in PHASES if ph in pile and ph in blind]
    if both:
        parts = []
        for ph in both:
            d = pile[ph]["pile_minus_blind"]
            verdict = ("not shown to differ" if not pile[ph].get("holm") else
                       "clearly more" if d.hi < 0 else "clearly less")
            when = {"early": "early in the round", "middle": "in mid-round", "late": "late in the round"}[ph]
            parts.append(f"{when}, a mulligan taken from a discard pile changes the score by "
                         f"{_ci(pile[ph]['points'], 'signed')} points against {_ci(blind[ph]['points'], 'signed')} "
                         f"drawn blind ({verdict})")
        out.append("In the preset mix, to the player who places it: " + "; ".join(parts) + f" ({len(both)} "
                   "comparisons; \"clearly\" only where the difference survives Holm's correction for all of them).")
    if limit and limit_rows:
        top = max(limit_rows, key=lambda r: r["rounds"].mean)
        out.append(f"The {limit}-mulligan limit binds in {_ci(limit_all['rounds'], 'pct')} of player-rounds "
                   f"(preset mix; a mulligan on offer while the player already shows one), most often for "
                   f"{top['strategy']} at {top['players']} players ({_ci(top['rounds'], 'pct')}).")
    return out


def _findings(ladder, diffs, fates) -> list[Finding]:
    found = strong_findings(
        "mulligan_value", ladder.get(STRONG, {}).get("all", {}).get(MAIN), "a mulligan dealt to you",
        "against the same mulligan left at a random depth of the draw pile (same deals paired; 2 to 7 players)",
        "your rivals'", "negative is good for you, since the lowest score wins; same deals and control", "deals")
    fate = fates.get(SECOND, {}).get("all")
    if fate is not None:
        found.append(Finding(
            f"mulligan_value.to_rival_{SECOND}",
            f"With {SECOND} at every seat, a mulligan dealt face down is overwritten blind by its holder and then "
            "placed by a rival in {value} of deals, which is how a dealt mulligan can lower its holder's chance of "
            "winning (at 2 players)", fate["blind_to_rival"], "pct", "deals"))
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


# ----------------------------------------------------------------- estimands and answers along the ladder
def headline(ladder: dict) -> dict:
    """rung -> table size -> the effects against the headline control (:data:`MAIN`)."""
    return {rung: {p: cs[MAIN] for p, cs in by.items() if MAIN in cs} for rung, by in ladder.items()}


def _estimands(ladder: dict, diffs: dict) -> dict:
    return ladder_estimands("mulligan", headline(ladder), diffs, TARGETS, {
        "win_chance": (BASE + "the change in the holder's chance of winning the game (positive is good for the "
                       "holder; ties share the win)", "probability"),
        "margin": (BASE + "the change in the holder's game total minus the mean of the rivals' game totals (negative "
                   "is good for the holder, since the lowest score wins)", "points")})


def _answers(ladder: dict, est: dict, diffs: dict | None = None) -> list[Answer]:
    top = headline(ladder)
    two = top.get(STRONG, {}).get("2")
    win_tail = size_clause(sizes_of(top, "win"), "dpct") or _two_players(two)
    return ladder_answers("mulligan_value", "mulligan", top, est, diffs, TARGETS, {
        "win_chance": ("A mulligan dealt to you adds {value} to your chance of winning against strong players "
                       f"({STRONG}, 2 to 7 players), against leaving it in the draw pile{win_tail}", "deals", 10),
        "margin": ("A dealt mulligan changes your game score minus your rivals' average by {value} points against "
                   f"strong players (negative is good){size_clause(sizes_of(top, 'margin'), 'signed')}", "deals",
                   11)})


def _two_players(e: dict | None) -> str:
    if e is None:
        return ""
    w = e["win"]
    if w.hi < 0:
        return f"; at 2 players it costs {_ci(w, 'dpct')}"
    return f"; at 2 players {_ci(w, 'dpct')}"
