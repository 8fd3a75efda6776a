"""What the batch report shows, as estimates and frames: a :class:`BatchScan` turned into numbers.

Every estimate is an :class:`~analyses._estimates.Estimate` over games (the unit the
seats of one game share), except the finisher's P(-5) by score, which is a Wilson
interval over finished rounds (each round is a fresh deal; see :func:`early_finish`).
Per strategy, a game's value is the mean over that strategy's seats, so a strategy in
two seats is not counted twice.
"""
from __future__ import annotations

import math
import shlex

import numpy as np
import pandas as pd

from gnoming_sim.batch.game_sums import GroupSums, Interval, win_share
from gnoming_sim.batch.scan import BatchScan
from gnoming_sim.stats import wilson, wilson_many
from gnoming_sim.batch.summary import WIN_UNIT
from gnoming_sim.game.rules import ROUNDS
from gnoming_sim.kernel.kinds import KIND_CARD, KIND_CARD_STARRED, KIND_HEURISTIC, KIND_LEARNED, KIND_MC, KIND_NET, KIND_NET_CELLS, \
    KIND_RANDOM, KIND_RULES, KIND_VALUE

from gnoming_sim.stats import Estimate

# a strategy's family (the ``kind`` a batch file stores) in words, for the page
KIND_WORDS = {
    KIND_RANDOM: "random",
    KIND_HEURISTIC: "heuristic",
    KIND_MC: "Monte Carlo (rollouts)",
    KIND_LEARNED: "learned (fitted evaluator)",
    KIND_CARD_STARRED: "card-starred (the card's starred cells, expert's rules elsewhere)",
    KIND_CARD: "card (the printed card)",
    KIND_NET: "net (neural evaluator)",
    KIND_NET_CELLS: "net following given card cells (a rule played)",
    KIND_VALUE: "value (the value network at 0-ply)",
    KIND_RULES: "rules (the pocket rules)",
}
MIN_FINISHES = 30   # finisher-score bins with fewer finishes are left off the figure (kept in the CSV)
SCORE_PARTS = (("matched", "matched lines"), ("unmatched", "unmatched cards"), ("negatives", "negative cards"),
               ("hazard_points", "hazards"), ("bonus", "early-finish bonus"), ("score", "round score"))


def kind_name(kind) -> str:
    """A strategy family in words: ``1`` -> ``"heuristic"``; a code this version does not know
    (a file from another version) says so."""
    try:
        return KIND_WORDS[int(kind)]
    except (KeyError, TypeError, ValueError):
        return f"unknown kind {kind!r}"


def est(i: Interval) -> Estimate:
    return Estimate(i.mean, i.lo, i.hi, i.n)


def standings(sums: GroupSums, labels, players: int) -> list[dict]:
    """Mean game score and win share, with 95% intervals over games, per group (the win share's
    as ``simulate``'s summary gives it: :func:`~gnoming_sim.batch.game_sums.win_share`)."""
    rows = []
    for k, label in enumerate(labels):
        rows.append({"label": label, "seats": int(sums.seats[k]),
                     "score": est(sums.mean("score", k)),
                     "win": est(win_share(sums, k, players, WIN_UNIT)),
                     "finish": est(sums.mean("finishes", k, per=ROUNDS))})
    return rows


def score_parts(scan: BatchScan) -> list[dict]:
    """Mean of each part of the round score per seat-round, per strategy."""
    return [{"label": name, **{q: est(scan.by_strategy.mean(q, k, per=ROUNDS)) for q, _ in SCORE_PARTS}}
            for k, name in enumerate(scan.names)]


def play_stats(scan: BatchScan) -> dict:
    """Turns, stalled rounds, hazards and matched lines: per strategy and for the table."""
    t = scan.table
    rows = []
    for k, name in enumerate(scan.names):
        s = scan.by_strategy
        rows.append({"label": name,
                     "turns": est(s.mean("turns", k, per=ROUNDS)),
                     "lines": est(s.mean("lines", k, per=ROUNDS)),
                     "hazard_rounds": est(s.mean("hazard_rounds", k, per=ROUNDS)),
                     "hazard_points": est(s.mean("hazard_points", k, per=ROUNDS))})
    return {
        "by_strategy": rows,
        "round_turns": est(t.mean("turns", 0, per=ROUNDS)),
        "stalled": est(t.mean("stalled", 0, per=ROUNDS)),
        "stalled_rounds": t.total("stalled", 0),
        "hazard_rounds": est(t.mean("hazard_rounds", 0, per=ROUNDS)),
        "finished_rounds": est(t.mean("finished", 0, per=ROUNDS)),
    }


def early_finish(scan: BatchScan) -> dict:
    """Who finishes, how the bonus falls, and P(-5) by the finisher's score.

    The finish and bonus rates are over games (a ratio of per-game sums, clustered by
    game).  P(-5 | score s) counts finished rounds whose final lap did not stall, each
    as one Wilson trial: ``wilson_vs_clustered`` compares, per strategy, the Wilson
    half-width of the overall -5 rate with the interval clustered by game, so a reader
    sees what treating rounds as independent costs (about 1 means nothing).
    """
    s = scan.by_strategy
    rows, ratios = [], []
    for k, name in enumerate(scan.names):
        finishes = s.total("finishes", k)
        earned, stalled = s.total("earned", k), s.total("stalled_finishes", k)
        clustered = s.ratio("earned", "finishes", k)
        completed = finishes - stalled
        if finishes and completed:
            _, wlo, whi = wilson(earned, completed)
            ratios.append((clustered.hi - clustered.lo) / (whi - wlo) if whi > wlo else math.nan)
        rows.append({"label": name, "finishes": finishes,
                     "finish": est(s.mean("finishes", k, per=ROUNDS)),
                     "earned": est(clustered), "penalised": est(s.ratio("penalised", "finishes", k)),
                     "stalled": est(s.ratio("stalled_finishes", "finishes", k)), "stalled_n": stalled})
    return {"by_strategy": rows, "by_score": finish_by_score(scan),
            "wilson_vs_clustered": max((r for r in ratios if math.isfinite(r)), default=None),
            "min_finishes": MIN_FINISHES}


def finish_by_score(scan: BatchScan) -> pd.DataFrame:
    """One row per (strategy, finisher's score before the bonus) with finishes, -5s and
    Wilson intervals; strategy ``all`` pools them."""
    h = scan.finish
    values = h.values
    trials = h.counts[0::2] + h.counts[1::2]
    earned = h.counts[1::2]
    out = []
    labels = list(scan.names) + ["all"]
    stacks = np.vstack([trials, trials.sum(axis=0)]), np.vstack([earned, earned.sum(axis=0)])
    for label, n_row, e_row in zip(labels, *stacks):
        seen = n_row > 0
        if seen.any():
            p, lo, hi = wilson_many(e_row[seen], n_row[seen])
            out.append(pd.DataFrame({"strategy": label, "score": values[seen].astype(int),
                                     "finishes": n_row[seen].astype(int), "earned": e_row[seen].astype(int),
                                     "p": p, "p_lo": lo, "p_hi": hi}))
    columns = ["strategy", "score", "finishes", "earned", "p", "p_lo", "p_hi"]
    return pd.concat(out, ignore_index=True)[columns] if out else pd.DataFrame(columns=columns)


def histogram_frame(hist, labels, value_name: str) -> pd.DataFrame:
    """A histogram as long rows ``label, value, count, share`` (share within the label)."""
    rows = []
    for k, label in enumerate(labels):
        c = hist.counts[k]
        total = c.sum()
        for v, n in zip(hist.values, c):
            if n:
                rows.append({"strategy": label, value_name: int(v), "count": int(n), "share": n / total})
    return pd.DataFrame(rows, columns=["strategy", value_name, "count", "share"])


# ------------------------------------------------------------------ run facts
def facts(scan: BatchScan) -> dict:
    """The batch's facts from the file's metadata, ready for the page and summary.json."""
    from gnoming_sim.game.deck import Deck
    from gnoming_sim.game.errors import GnomingError
    from gnoming_sim.game.rules import RuleConfig

    meta = scan.meta
    try:
        rules = RuleConfig.from_dict(meta["rules"]).describe()
    except (GnomingError, TypeError, ValueError):   # a file from another version: show it as stored
        rules = [(key, value, "?", "") for key, value in sorted(meta["rules"].items())]
    try:
        deck = Deck.from_mapping(meta["deck"], name=meta.get("deck_name", "custom")).to_dict()
    except (GnomingError, TypeError, ValueError):
        deck = dict(meta["deck"])
    strategies = meta["strategies"]
    params = sorted({p for s in strategies.values() for p in s.get("params", {})})
    return {
        "file": str(scan.path), "file_mb": scan.file_bytes / 1e6, "row_groups": scan.row_groups,
        "version": meta.get("version", "?"), "seed": meta["seed"], "players": scan.players,
        "games": scan.games, "planned_games": scan.planned_games, "interrupted": scan.games < scan.planned_games,
        "seats": list(meta["seats"]), "rotate": bool(meta.get("rotate", False)),
        "command": meta.get("command") or equivalent_command(scan),
        "command_stored": bool(meta.get("command")),
        "strategies": [{"name": n, "kind": strategies[n].get("kind"), "kind_name": kind_name(strategies[n].get("kind")),
                        "params": strategies[n].get("params", {})} for n in scan.names],
        "params": params, "rules": rules, "rules_default": all(v == d for _, v, d, _ in rules),
        "deck_name": meta.get("deck_name", "custom"), "deck": deck, "deck_size": sum(deck.values()),
        "scan_s": scan.wall_s, "rows": scan.games * ROUNDS * scan.players,
    }


def equivalent_command(scan: BatchScan) -> str:
    """A ``simulate`` command that plays the same games (the file does not store the one used)."""
    meta = scan.meta
    parts = ["gnoming-sim", "simulate", "--players", str(scan.players), "--seats", ",".join(meta["seats"]),
             "--games", str(scan.planned_games), "--seed", str(meta["seed"])]
    if not meta.get("rotate", True) and len(set(meta["seats"])) > 1:
        parts.append("--no-rotate-seats")
    if any(v != d for _, v, d, _ in _rules_rows(meta)):
        parts += ["--rules", "RULES.toml"]
    if _user_strategies(meta):
        parts += ["--strategies-file", "STRATEGIES.toml"]
    if meta.get("deck_name", "published") != "published":
        parts += ["--deck", "DECK.toml"]
    parts += ["--out", scan.path.name]
    return " ".join(shlex.quote(p) for p in parts)


def _rules_rows(meta):
    from gnoming_sim.game.errors import GnomingError
    from gnoming_sim.game.rules import RuleConfig

    try:
        return RuleConfig.from_dict(meta["rules"]).describe()
    except (GnomingError, TypeError, ValueError):
        return []


def _user_strategies(meta) -> list[str]:
    """Strategies of the batch that are not presets with the presets' parameters."""
    from gnoming_sim.kernel.policy.registry import PRESETS

    presets = {p.name: dict(p.params) for p in PRESETS}
    return [n for n, s in meta["strategies"].items() if presets.get(n) != s.get("params", {})]
