"""The house-rules study: the baseline and seven variants played on the same deals, by three sets of
players: the preset mix and, for each rung of the strong ladder, four of that player (four ``learned``,
four ``net``: the two strongest fast players, on the same deals).

The experiment itself is :func:`gnoming_sim.experiments.compare.compare` (the engine of
``gnoming-sim compare``); this module turns its comparisons into findings, tables, a figure and CSV
frames.  The baseline is always the published rules and deck.  A variant whose every game plays
exactly as under the published rules (the same scores, turns and winners in every game) is marked
*not exercised* by those players: its change of 0 says the rule never mattered to them, not that it
does not matter.  Which variant changes a measure most is claimed only when it is separated from the
runner-up (a test of the two changes game by game) and its own change survives Holm's correction over
every variant, the other-deck one (unpaired: an independent-samples interval) included.  Whether a variant's
change in round length has converged along the ladder is the equivalence test of the two rungs' changes on
the same games (:func:`ladder_convergence`, :func:`..framework.words.equivalence` at the mix's turns precision,
labelled only where that test has 80% power).  A ``--quick``
report says no verdict: its findings are previews.
"""
from __future__ import annotations

import math

import numpy as np
import pandas as pd

from gnoming_sim.experiments.compare import CHANGE_KIND, HOUSE_RULES, KIND, LABELS, MEASURES, compare

from ..framework.design import SECOND, STRONG, STRONG_LADDER
from gnoming_sim.stats import Estimate, holm
from ..framework.render import format_estimate
from ..framework.study import Finding, Precision, Study, StudyResult, Table
from gnoming_sim.stats import NOT_TESTED

from ..framework.words import PREVIEW, convergence, equivalence, power, power_text
from . import figures

PLAYERS = 4
SEATS = ("builder", "greedy", "rusher", "cautious")
# the share of the games per variant each rung of the strong ladder plays (both about ten times slower than the
# presets): 1,200 games per variant, a change in round length to about +-0.8 turns.  Learned and net
# at 0.15 each where expert (1.0, a tenth of the cost) and learned (0.1) played, the study's cost about +6 s
RUNG_SHARE = 0.15
# the sets of players, weakest first: (key, seats, share of the games per variant); a rung's key is its player
ARMS = (("mix", SEATS, 1.0), *((rung, (rung,) * PLAYERS, RUNG_SHARE) for rung in STRONG_LADDER))
ARM_TEXT = {"mix": f"the preset mix ({', '.join(SEATS)})", **{rung: f"four {rung} players" for rung in STRONG_LADDER}}
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
    # games per variant for the mix (each rung of the strong ladder plays RUNG_SHARE of it: they are ~10x
    # slower), the same deals for each variant: a change in turns per round to about +-0.3 turns, in a share
    # to about +-1 percentage point
    default_games = 8_000
    quick_games = 400

    def design(self, ctx) -> list[Table]:
        games = ctx.cell_games(self)
        return [Table(PLAYERS, seats, max(int(games * share), 2), label=f"{arm}: {name}")
                for arm, seats, share in ARMS for name in ("baseline", *(v.name for v in HOUSE_RULES))]

    def play(self, ctx, seed, tables, advance):
        out = {}
        for arm, seats, share in ARMS:
            games = next(t.games for t in tables if t.label.startswith(f"{arm}:"))
            done = [0]

            def progress(total):
                advance(total - done[0])
                done[0] = total

            out[arm] = compare(HOUSE_RULES, PLAYERS, seats, games, seed, rotate=True, threads=ctx.threads,
                               progress=progress)
        return out

    def conclude(self, ctx, tables, data) -> StudyResult:
        arms = {arm: _rows(c) for arm, c in data.items()}
        mix = data["mix"]
        rows = arms["mix"]
        G = mix.games
        cells = []
        for arm, arm_rows in arms.items():
            for r in arm_rows:
                for m in MEASURES:
                    value, change = r["values"][m], r["changes"][m]
                    cells.append({"players_set": arm, "variant": r["variant"], "measure": m, "label": LABELS[m],
                                  "unit": UNIT[m], "exercised": r["exercised"],
                                  "mean": value.mean if value else np.nan, "lo": value.lo if value else np.nan,
                                  "hi": value.hi if value else np.nan,
                                  "change": change.mean if change else np.nan,
                                  "change_lo": change.lo if change else np.nan,
                                  "change_hi": change.hi if change else np.nan,
                                  "paired": r["paired"], "n_games": data[arm].games})
        frame = pd.DataFrame(cells)
        converge = ladder_convergence(data)
        findings = _findings(arms, data, ctx.quick)
        summary = {"players": PLAYERS, "seats": list(SEATS), "games_per_variant": G,
                   "games_per_variant_by_players": {arm: c.games for arm, c in data.items()},
                   "skill_gap_between": [mix.strongest, mix.weakest],
                   "variants": _variants_json(rows),
                   "under_strong_play": {arm: _variants_json(arms[arm]) for arm in arms if arm != "mix"},
                   "convergence": _convergence_json(converge)}
        precision = []
        for arm, arm_rows in arms.items():
            turns = max(r["changes"]["turns"].half_width for r in arm_rows[1:] if r["changes"]["turns"])
            precision.append(Precision(f"change in turns per round ({ARM_TEXT[arm]})", turns, "points",
                                       TARGET_TURNS[arm]))
        worst = max((e.half_width, m) for r in rows[1:] for m, e in r["changes"].items() if e)
        precision.append(Precision(f"change in {LABELS[worst[1]]} (the mix)", worst[0], KIND[worst[1]]))
        figs = [figures.changes_grid(rows[1:], MEASURES, SHORT, CHANGE_KIND)]
        context = {"rows": rows, "arms": arms, "arm_text": ARM_TEXT, "measures": MEASURES, "labels": LABELS,
                   "kinds": KIND, "change_kinds": CHANGE_KIND, "units": UNIT, "players": PLAYERS, "seats": SEATS,
                   "games": G, "games_by_arm": {arm: c.games for arm, c in data.items()},
                   "strongest": mix.strongest, "weakest": mix.weakest, "converge": converge,
                   "second": SECOND, "strong": STRONG, "target_converge": TARGET_CONVERGE}
        return StudyResult(findings, figs, {"variants": frame}, summary, precision, context)


# the precision a change in round length is sized for (turns per round, all players together; a round
# takes about 27): a third of a turn for the mix, one turn for the slower players of the strong ladder
TARGET_TURNS = {"mix": 0.35, **{rung: 1.0 for rung in STRONG_LADDER}}
# the margin within which the two rungs' changes must agree, by TOST, for a variant's change to have converged
# a designer reads a variant's change in round length at the mix's precision (+-0.35 turns of a
# ~27-turn round: the smallest change the study tells from none), so the strong rungs' changes converge where
# they agree within that; the old +-1 turn exceeded the change itself in 5 of 6 variants, so it passed whatever
# the players did
TARGET_CONVERGE = TARGET_TURNS["mix"]


def ladder_convergence(data) -> list[dict]:
    """Per variant, whether its change in round length has converged along the ladder: the strong player's change
    minus the rung below's (:data:`STRONG_LADDER`), game by game on the same games (both arms play game numbers
    from 0, so game g is the same deal under both; an other-deck variant's game g is another deal than the
    baseline's, still the same under both rungs), its equivalence word at :data:`TARGET_CONVERGE` (with the
    test's power there) and what that says (:func:`..framework.words.convergence`).  A variant one rung plays
    with every round as long as under the published rules (``learned`` ignores the early-finish bonus) is not
    tested: agreeing with a player who never meets the rule says nothing of convergence."""
    if STRONG not in data or SECOND not in data:
        return []
    a, b = data[STRONG], data[SECOND]
    n = min(a.games, b.games)
    out = []
    for k in range(1, len(a.variants)):
        d = ((a.values[k].turns[:n] - a.values[0].turns[:n]) - (b.values[k].turns[:n] - b.values[0].turns[:n]))
        e = Estimate.of_mean(np.asarray(d, dtype=np.float64))
        unmoved = [rung for c, rung in ((a, STRONG), (b, SECOND)) if _same_turns(c, k)]
        word = NOT_TESTED if unmoved else equivalence(e, TARGET_CONVERGE)
        verb = "plays" if len(unmoved) == 1 else "play"
        why = (f"not tested: {' and '.join(unmoved)} {verb} every round as long as under the published rules"
               if unmoved else power_text(e, TARGET_CONVERGE, "points"))
        out.append({"variant": a.variants[k].name, "difference": e, "settled": word,
                    "convergence": convergence(word), "power": power(e, TARGET_CONVERGE), "why": why})
    return out


def _same_turns(c, k: int) -> bool:
    """Whether variant ``k`` left every game's round length as under the published rules (same deals)."""
    return c.variants[k].same_deals_as(c.variants[0]) and np.array_equal(c.values[k].turns, c.values[0].turns)


def _convergence_json(rows: list[dict]) -> dict:
    return {"measure": f"change in turns per round, {STRONG} minus {SECOND}, on the same games",
            "target": TARGET_CONVERGE,
            "by_variant": {r["variant"]: {"difference": r["difference"].to_json(), "settled": r["settled"],
                                          "convergence": r["convergence"], "equivalence_power": r["power"],
                                          "why": r["why"]} for r in rows}}


def _exercised(c, k: int) -> bool:
    """False when variant ``k`` played every game exactly as the baseline did (same deals, same scores,
    turns and win credit): these players never met the rule."""
    if k == 0 or not c.variants[k].same_deals_as(c.variants[0]):
        return True
    a, b = c.values[k], c.values[0]
    return not (np.array_equal(a.score, b.score) and np.array_equal(a.turns, b.turns)
                and np.array_equal(a.seat_win, b.seat_win) and np.array_equal(a.stalled, b.stalled))


def _rows(c) -> list[dict]:
    G = c.games
    rows = []
    for k, (variant, est, ch) in enumerate(zip(c.variants, c.estimates, c.changes)):
        row = {"variant": variant.name, "deck": variant.deck.name, "paired": ch.get("paired") if ch else None,
               "exercised": _exercised(c, k), "index": k, "values": {}, "changes": {}}
        for m in MEASURES:
            row["values"][m] = _est(est.get(m), G)
            row["changes"][m] = _est(ch.get(m), G) if ch else None
        rows.append(row)
    return rows


def _variants_json(rows) -> dict:
    return {r["variant"]: {
        "paired": r["paired"], "exercised": r["exercised"],
        "values": {m: (e.to_json() if e else None) for m, e in r["values"].items()},
        "change_vs_baseline": ({m: (e.to_json() if e else None) for m, e in r["changes"].items()}
                               if r["paired"] is not None else None)}
        for r in rows}


def holm_family(rows, measure: str) -> dict[str, bool]:
    """Which variants' change in ``measure`` survives Holm's correction over one family: every variant with a
    change, paired (same deals) or not (another deck: an independent-samples interval), exercised or not."""
    fam = [r for r in rows[1:] if r["changes"][measure] is not None]
    return dict(zip((r["variant"] for r in fam), holm([r["changes"][measure] for r in fam])))


def _separated(c, rows, measure: str) -> tuple[dict | None, dict | None, Estimate | None, bool]:
    """The exercised variant changing ``measure`` most, the runner-up, the difference of their |change| game by
    game, and whether the leader is clear: its change survives Holm over every variant (:func:`holm_family`)
    and the difference to the runner-up excludes 0.  A variant of another deck plays other deals: game g of it
    is independent of game g of the baseline, so the per-game difference is still a mean of independent games."""
    cand = [r for r in rows[1:] if r["exercised"] and r["changes"][measure] is not None]
    if not cand:
        return None, None, None, False
    keep = holm_family(rows, measure)
    cand.sort(key=lambda r: -abs(r["changes"][measure].mean))
    lead = cand[0]
    if len(cand) == 1 or measure not in ("turns", "score", "stalled", "close"):
        return lead, None, None, keep[lead["variant"]]
    second = cand[1]
    base = getattr(c.values[0], measure)
    da = getattr(c.values[lead["index"]], measure) - base
    db = getattr(c.values[second["index"]], measure) - base
    sa, sb = np.sign(lead["changes"][measure].mean), np.sign(second["changes"][measure].mean)
    gap = Estimate.of_mean(sa * da - sb * db)   # |change| of the leader minus the runner-up's, per game
    return lead, second, gap, bool(keep[lead["variant"]] and gap.lo > 0)


def _findings(arms, data, quick: bool = False) -> list[Finding]:
    """The rule that changes a round's length most, under the mix and under strong play, said only as
    far as it is separated from the runner-up; the rules that change the skill gap.  With ``quick`` (a
    preview's small samples) no verdict: the largest change only, marked as a preview."""
    out = []
    for arm in ("mix", STRONG):
        rows, c = arms[arm], data[arm]
        lead, second, gap, clear = _separated(c, rows, "turns")
        if lead is None:
            continue
        who = ARM_TEXT[arm]
        if quick:
            text = (f"House rules, played by {who} ({PREVIEW}): the largest change in a round's length, "
                    f"'{lead['variant']}', is {{value}} turns per round (all players)")
        elif clear:
            tail = (f"; clearly more than the runner-up '{second['variant']}' (by {gap.mean:.1f} turns "
                    f"[{gap.lo:.1f}, {gap.hi:.1f}])" if second is not None else "")
            text = (f"House rules, played by {who}: '{lead['variant']}' changes a round's length most, by {{value}} "
                    f"turns per round (all players) against the published rules{tail}")
        else:
            text = (f"House rules, played by {who}: no rule clearly changes a round's length most; the largest "
                    f"change, '{lead['variant']}', is {{value}} turns per round (all players), not separated from "
                    f"'{second['variant'] if second else ''}'")
        out.append(Finding(f"house_rules_turns_{arm}" if arm != "mix" else "house_rules_turns", text,
                           lead["changes"]["turns"], "signed", "games"))
    skill = _skill_finding(arms["mix"], data["mix"], quick)
    return out + ([skill] if skill else [])


def _skill_finding(rows, c, quick: bool) -> Finding | None:
    """Which rules change the skill gap (the preset mix), after Holm over every variant."""
    lead, _, _, _ = _separated(c, rows, "skill_gap")
    if lead is None:
        return None
    keep = holm_family(rows, "skill_gap")
    what = "the skill gap (win share of the strongest minus the weakest heuristic at the table, the preset mix)"
    family = f"Holm's correction over all {len(keep)} variants, paired and other-deck alike"
    clear = sorted((r for r in rows[1:] if keep.get(r["variant"]) and r["exercised"]),
                   key=lambda r: -abs(r["changes"]["skill_gap"].mean))
    if quick:
        text = f"House rules ({PREVIEW}): the largest change in {what} is '{lead['variant']}', {{value}}"
        return Finding("house_rules_skill", text, lead["changes"]["skill_gap"], "dpct", "games")
    if not clear:
        text = (f"No house rule clearly changes {what} after {family}; the largest change, '{lead['variant']}', "
                f"is {{value}} (percentage points)")
        return Finding("house_rules_skill", text, lead["changes"]["skill_gap"], "dpct", "games")
    top, rest = clear[0], clear[1:]
    also = "".join(f"; so does '{r['variant']}' ({format_estimate(r['changes']['skill_gap'], 'dpct')})" for r in rest)
    text = (f"'{top['variant']}' changes {what} by {{value}} (percentage points; clear after {family}){also}")
    return Finding("house_rules_skill", text, top["changes"]["skill_gap"], "dpct", "games")


def not_exercised(arms) -> dict[str, list[str]]:
    """The variants each set of players never exercised."""
    return {arm: [r["variant"] for r in rows[1:] if not r["exercised"]] for arm, rows in arms.items()}
