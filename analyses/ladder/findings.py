"""The ladder study's estimates, findings and summary, from :meth:`gnoming_sim.experiments.ladder.Ladder.to_dict`."""
from __future__ import annotations

import math

import pandas as pd

from ..framework.design import STRONG
from gnoming_sim.stats import Estimate
from ..framework.study import Finding, Precision, StudyResult
from . import figures as figs
from gnoming_sim.experiments.ladder import mc_cost

from .design import HEADLINE_PLAYERS, TARGET_RATING

MEASURES = ("rating", "margin", "order")
MIN_RATED_DEALS = 30   # a strategy is rated at a table size on at least this many deals, or left out there
POOL_WORDS = "Elo here is specific to this pool and table size"


def est(e: dict) -> Estimate:
    """An experiments-side estimate dict (``mean``, ``ci95``, ``n``) as the report's :class:`Estimate`."""
    return Estimate(float(e["mean"]), float(e["ci95"][0]), float(e["ci95"][1]), int(e["n"]))


def conclude(ctx, tables, data: dict) -> StudyResult:
    sizes = [_size(s) for s in data["tables"]]
    frames = {"ratings": pd.DataFrame([_flat(s["players"], r) for s in sizes for r in s["rows"]]),
              "measures": pd.DataFrame([{"players": s["players"], "measure": name, **_cols(s[name])}
                                        for s in sizes for name in ("head_to_head", "skill_share")])}
    best = strongest_fast(sizes)
    fast = [r["rating"].half_width for s in sizes for r in s["rows"]
            if r["rating"].finite and r["strategy"] == best.get(s["players"])]
    precision = [
        Precision("rating of the strongest fast player against expert", max(fast) if fast else math.nan, "elo",
                  TARGET_RATING),
        Precision("rating of a strategy", max((r["rating"].half_width for s in sizes for r in s["rows"]
                                               if r["rating"].finite), default=math.nan), "elo"),
        Precision("margin against expert", max((r["margin"].half_width for s in sizes for r in s["rows"]
                                                if r["margin"].finite), default=math.nan), "points"),
        Precision("Order", max((r["order"].half_width for s in sizes for r in s["rows"] if r["order"].finite),
                               default=math.nan), "points"),
    ]
    summary = {"pool": data["pool"], "not_played": data.get("not_played", []), "elo": POOL_WORDS, "strongest_fast": {str(k): v for k, v in strongest_fast(sizes).items()}, "bootstrap": data["bootstrap"], "anchor": sizes[0]["anchor"] if sizes else None,
               "scale": "Bradley-Terry on the Elo scale (400 points = odds of 10 to 1 in a pairwise result)",
               "margin_sign": "game score minus the expert seats' per game: negative is better",
               "by_players": {str(s["players"]): {
                   "deals": s["deals"], "lineups": len(s["lineups"]), "pairwise_results": s["pairwise_results"],
                   "head_to_head": s["head_to_head"].to_json(), "skill_share": s["skill_share"].to_json(),
                   "skill_share_without_random": (s["skill_share_without_random"].to_json()
                                                  if s["skill_share_without_random"] else None),
                   "min_rated_deals": MIN_RATED_DEALS, "left_out": s["left_out"],
                   "top": None if s["top"] is None else {
                       "strategy": s["top"]["strategy"], "runner_up": s["top"]["runner_up"],
                       "separated": s["top"]["separated"],
                       "difference": None if s["top"]["difference"] is None else s["top"]["difference"].to_json()},
                   "strategies": {r["strategy"]: {
                       "rating": r["rating"].to_json(), "margin_vs_expert": r["margin"].to_json(),
                       "order": r["order"].to_json(), "pairwise_results": r["results"],
                       "bounded_by_prior": r["bounded_by_prior"]} for r in s["rows"]}}
                   for s in sizes}}
    return StudyResult(findings=_findings(sizes), figures=[figs.ratings_figure(sizes)], frames=frames,
                       summary=summary, precision=precision,
                       context={"sizes": sizes, "pool": data["pool"], "games": data["games"],
                                "bootstrap": data["bootstrap"], "reference": data["reference"],
                                "field": data["field"], "min_slow_deals": data["min_slow"],
                                "min_rated_deals": MIN_RATED_DEALS, "not_played": data.get("not_played", [])})


def _size(s: dict) -> dict:
    """One table size's rows: the strategies rated on at least :data:`MIN_RATED_DEALS` deals (``rows``) and
    those left out (``left_out``: name and deals); the top and whether it is separated from the runner-up."""
    every = [{"strategy": r["strategy"], "rating": est(r["rating"]), "margin": est(r["margin"]),
              "order": est(r["order"]), "results": r["results"], "bounded_by_prior": r["bounded_by_prior"]}
             for r in s["strategies"]]
    rows = [r for r in every if r["rating"].n >= MIN_RATED_DEALS]
    left = [{"strategy": r["strategy"], "deals": r["rating"].n} for r in every if r["rating"].n < MIN_RATED_DEALS]
    out = {"players": s["players"], "deals": s["deals"], "anchor": s["anchor"], "lineups": s["lineups"],
           "pairwise_results": s["pairwise_results"], "rows": rows, "left_out": left,
           "head_to_head": est(s["head_to_head"]), "pairs": s["head_to_head"]["pairs"],
           "skill_share": est(s["skill_share"]),
           "skill_share_without_random": (est(s["skill_share_without_random"])
                                          if "skill_share_without_random" in s else None)}
    out["top"] = top_of(rows, s.get("rating_differences", {}))
    return out


def top_of(rows: list[dict], differences: dict) -> dict | None:
    """The highest-rated strategy, the runner-up and their paired rating difference (same bootstrap
    replicates over deals); ``separated`` only when that interval excludes 0 (None with under two rows)."""
    if len(rows) < 2:
        return None
    first, second = sorted(rows, key=lambda r: -r["rating"].mean)[:2]
    d = differences.get(f"{first['strategy']}-{second['strategy']}")
    gap = est(d) if d is not None else None
    return {"strategy": first["strategy"], "runner_up": second["strategy"], "difference": gap,
            "separated": bool(gap is not None and gap.finite and gap.excludes(0.0))}


def _cols(e: Estimate, prefix: str = "") -> dict:
    key = (prefix + "_") if prefix else ""
    return {prefix or "mean": e.mean, f"{key}lo": e.lo, f"{key}hi": e.hi, f"{key}n_deals": e.n}


def _flat(players: int, r: dict) -> dict:
    out = {"players": players, "strategy": r["strategy"]}
    for name in MEASURES:
        out.update(_cols(r[name], name))
    out["pairwise_results"] = r["results"]
    out["bounded_by_prior"] = r["bounded_by_prior"]
    return out


def _fast(name: str) -> bool:
    return mc_cost(name) == 0.0


def strongest_fast(sizes) -> dict[int, str]:
    """Per table size, the top-rated player that is not a Monte Carlo player (the other studies' strong player
    should be it)."""
    return {s["players"]: max((r for r in s["rows"] if _fast(r["strategy"])), key=lambda r: r["rating"].mean)["strategy"]
            for s in sizes if any(_fast(r["strategy"]) for r in s["rows"])}


def _findings(sizes) -> list[Finding]:
    head = next((s for s in sizes if s["players"] == HEADLINE_PLAYERS), sizes[0] if sizes else None)
    if head is None or not head["rows"]:
        return []
    p, anchor = head["players"], head["anchor"]
    top = head["top"]
    best = next((r for r in head["rows"] if top is not None and r["strategy"] == top["strategy"]), None)
    out = []
    if best is not None and best["strategy"] != anchor:
        # the headline: the paired margin against expert on the same deals; Elo second, and pool-specific
        where = ("the top of the pool, separated from the runner-up " + top["runner_up"] if top["separated"]
                 else "the highest rated, not separated from " + top["runner_up"])
        out.append(Finding("ladder.top_margin",
                           f"At {p} players, {best['strategy']} ({where}) scores {{value}} points a game against "
                           f"{anchor} on the same deals (its game score minus the {anchor} seats'; negative is "
                           "better)", best["margin"], "signed", "deals"))
        out.append(Finding("ladder.top_rating",
                           f"On the strength ladder at {p} players, {best['strategy']} is rated {{value}} Elo points "
                           f"against {anchor} (Bradley-Terry on shared deals; {POOL_WORDS})",
                           best["rating"], "elo", "deals"))
    fair = head.get("skill_share_without_random")
    fair_text = "" if fair is None else (f"; without random's games {100 * fair.mean:.1f}% "
                                         f"[{100 * fair.lo:.1f}%, {100 * fair.hi:.1f}%]")
    out += [*_fast_findings(head, anchor),
            Finding("ladder.head_to_head",
                    f"At {p} players the higher-rated of two strategies of the ladder's pool wins {{value}} of "
                    f"their pairwise results (the mean over its {head['pairs']} pairs)",
                    head["head_to_head"], "pct", "deals"),
            Finding("ladder.skill_share",
                    f"Which strategy sits at a seat explains {{value}} of the variance of its game score at {p} "
                    f"players, in the ladder's lineups (the rest is the deal and the other players{fair_text})",
                    head["skill_share"], "pct", "deals")]
    return [f for f in out if f.estimate.finite and not math.isnan(f.estimate.mean)]


def _fast_findings(head, anchor) -> list[Finding]:
    """The strongest fast player (the studies' strong rung should be it: :data:`.design.STRONG`) against expert, when
    the pool's top is a Monte Carlo one."""
    fast = [r for r in head["rows"] if _fast(r["strategy"]) and r["strategy"] != anchor]
    if not fast:
        return []
    best = max(fast, key=lambda r: r["rating"].mean)
    top = max(head["rows"], key=lambda r: r["rating"].mean)
    if _fast(top["strategy"]) or best["rating"].mean <= 0:   # the top finding already names it
        return []
    return [Finding("ladder.strongest_fast",
                    f"The strongest fast player (no Monte Carlo search) at {head['players']} players is "
                    f"{best['strategy']}, rated {{value}} Elo points against {anchor}; "
                    + ("the answers are read under it" if best["strategy"] == STRONG else
                       f"the answers are read under {STRONG}"),
                    best["rating"], "elo", "deals")]
