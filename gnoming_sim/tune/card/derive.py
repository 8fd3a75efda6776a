"""Derive the card by rollouts (``gnoming-sim card``): a basic-strategy card, one action per cell.

How it is made.  Self-play rounds of a strategy (``gnoming-sim card`` plays the strongest fast player,
``net``; the committed starred cells, tuning/guide, were derived under ``learned``) at every table size of
the run; at a random sample of its decisions the collector (:mod:`gnoming_sim.search.card_samples`) names the
card's candidate answers (:mod:`gnoming_sim.kernel.policy.card`) and values each by rollouts from
the decider's observation (to the end of the round, common random numbers across the answers): the
decider's round score minus the mean of the others', lower is better.  The rollouts' policy is expert
at every seat by default (``rollouts="expert"``): the starred cells play expert's rules outside them, so
a cell's value is that of one decision changed on top of expert's play, which is what following the
card can deliver; ``"self"`` rolls out with the self-play strategy itself.  Each sampled
decision is one unit, in one cell of one table (take or draw; where to put a kept card; finish or
play on), by features a player sees at the table.

Per cell (:func:`cell_stats`): the recommended action is the one that beats every other candidate on
average (paired differences over the decisions where both were candidates); its *margin* is its mean
advantage over the closest candidate, in points per round, with a 95% interval clustered by round (the
``game`` column: the decisions sampled in one self-play round share its deal and are not independent;
statsmodels' cluster-robust interval, :func:`gnoming_sim.stats.cluster_mean`) and the number n of
decisions.  A cell is **resolved** when every comparison of its recommendation with another candidate
is significant after Holm's correction over all the comparisons of the whole card (one family over the
three tables, family-wise error 5%); cells with fewer than :data:`MIN_N` decisions are not tested.
The card (:func:`gnoming_sim.kernel.policy.registry.printed_card`) shows every resolved cell, and stars
(:func:`starred_cells`; the ``card-starred`` player plays them) the cells whose action also beats *expert's own choice* at
the same decisions (one more test per cell, in the same Holm family): elsewhere expert's rules, which
it plays anyway, do as well.  Everything holds on average over the positions that self-play of
that strategy reaches.
"""
from __future__ import annotations

import time
from dataclasses import dataclass, field
from typing import Callable

import numpy as np

from gnoming_sim.kernel.kinds import KIND_HEURISTIC
from gnoming_sim.kernel.policy import card as C
from gnoming_sim.kernel.policy.registry import CELL_NAMES
from gnoming_sim.stats import cluster_mean, holm

DERIVE_FIRST = 2**59        # game numbers: apart from tuning's (< 2**58), held-out's (2**60) and the ladder's (2**61)
MIN_N = 10                 # fewest decisions in a cell before it is tested
ALPHA = 0.05               # family-wise error over the whole card (Holm, one family for the three tables)
CHUNK = 64                 # rounds per collector call and table size
# the rollouts' policy: the heuristic with the self-play strategy's heuristic parameters (expert's, for
# learned: the starred cells' own play outside them), or the self-play strategy itself
ROLLOUT_KINDS = {"expert": KIND_HEURISTIC, "self": -1}


@dataclass
class DeriveConfig:
    players: tuple[int, ...] = (2, 3, 4, 5, 6, 7)
    games: int = 400           # self-play rounds per table size (at most)
    decisions: int | None = None   # stop once this many decisions are recorded (all sizes together)
    budget: int = 8            # rollouts per candidate answer
    p_sample: float = 0.1      # chance that a take/draw or placement decision is sampled
    p_finish: float = 1.0      # chance that a finishing chance is sampled
    rollouts: str = "expert"   # the rollouts' policy: "expert" (every seat), or "self" (the self-play strategy)
    seed: int = 0
    threads: int | None = None
    rounds: dict = field(default_factory=dict)   # filled: rounds played per table size


def collect(cfg: DeriveConfig, strategy, progress: Callable[[str], None] | None = None):
    """The records of the run (a DataFrame, one row per decision: table, cell, the actions' values,
    what the cell was computed from), round-robin over the table sizes in chunks of :data:`CHUNK` rounds."""
    import pandas as pd

    from gnoming_sim.search import card_samples as collector

    parts = []
    done = {p: 0 for p in cfg.players}
    total = 0
    t0 = time.perf_counter()
    while any(done[p] < cfg.games for p in cfg.players):
        for k, p in enumerate(cfg.players):
            if done[p] >= cfg.games:
                continue
            n = min(CHUNK, cfg.games - done[p])
            first = DERIVE_FIRST + k * 2**40 + done[p]
            rec = collector.collect(p, strategy, n, cfg.seed, budget=cfg.budget, p_sample=cfg.p_sample,
                                    p_finish=cfg.p_finish, first_game=first, threads=cfg.threads,
                                    roll_kind=ROLLOUT_KINDS[cfg.rollouts])
            parts.append(rec)
            done[p] += n
            total += len(rec)
        if progress:
            progress(f"card: {sum(done.values()):,} rounds, {total:,} decisions, {time.perf_counter() - t0:.0f} s")
        if cfg.decisions is not None and total >= cfg.decisions:
            break
    cfg.rounds = dict(done)
    rec = np.concatenate(parts) if parts else np.zeros((0, collector.NR))
    cols = {"table": rec[:, collector.R_TABLE].astype(int), "cell": rec[:, collector.R_CELL].astype(int),
            "players": rec[:, collector.R_PLAYERS].astype(int), "card": rec[:, collector.R_CARD].astype(int),
            "use": rec[:, collector.R_USE].astype(int), "blind": rec[:, collector.R_BLIND],
            "gap": rec[:, collector.R_GAP],
            "rivals_fd": rec[:, collector.R_OFD], "game": rec[:, collector.R_GAME].astype(np.int64),
            "expert": rec[:, collector.R_EXPERT].astype(int)}
    for a in range(1, C.N_ACTIONS + 1):
        cols[f"v{a}"] = rec[:, collector.R_V + a - 1]
    return pd.DataFrame(cols)


# ------------------------------------------------------------------ cells
def cell_label(table: int, cell: int) -> dict:
    """What a cell groups, in words (its row and column in the printed table)."""
    i = cell - C.CELL_OFFSET[table]
    if table == C.T_SOURCE:
        return {"card": C.CLASS_NAMES[i // C.N_USE], "use": C.USE_NAMES[i % C.N_USE]}
    if table == C.T_PLACE:
        blind, rest = divmod(i, C.N_CLASS * C.N_USE)
        return {"drawn": "blind" if blind else "from a pile", "card": C.CLASS_NAMES[rest // C.N_USE],
                "use": C.USE_NAMES[rest % C.N_USE]}
    g, rest = divmod(i, C.N_OFD * C.N_SIZE)
    return {"gap": C.GAP_NAMES[g], "rivals_fd": C.OFD_NAMES[rest // C.N_SIZE], "players": C.SIZE_NAMES[rest % C.N_SIZE]}


def _clustered_test(d: np.ndarray, games: np.ndarray) -> tuple[float, float, float, float]:
    """(mean, 95% interval lo, hi, two-sided p) of paired differences ``d``, clustered by round (``games``:
    one label per decision; the decisions of one round are one cluster)."""
    from scipy.stats import norm

    m = float(d.mean())
    if len(d) < 2 or np.all(d == d[0]):
        return m, m, m, (1.0 if m == 0.0 else 0.0)
    if len(np.unique(games)) < 2:   # one round: no interval between rounds, nothing to test
        return m, float("nan"), float("nan"), 1.0
    fit = cluster_mean(d, games)
    se = fit["se"]
    if not se > 0.0:
        return m, m, m, (1.0 if m == 0.0 else 0.0)
    lo, hi = fit["ci95"]
    return m, lo, hi, float(2 * norm.sf(abs(m) / se))


def _one_cell(df, table: int) -> dict:
    """A cell's recommendation and its comparisons (before Holm): see the module docstring."""
    names = C.ACTION_NAMES[table]
    vals = {a: df[f"v{a}"].to_numpy() for a in range(1, len(names) + 1)}
    # the round each decision was sampled in (its cluster); a frame without rounds: each decision its own
    rounds = df["game"].to_numpy() if "game" in df else np.arange(len(df))
    cand = [a for a in vals if np.isfinite(vals[a]).sum() > 0]
    out = {"n": int(len(df)), "actions": {names[a - 1]: {"n": int(np.isfinite(vals[a]).sum()),
                                                          "mean": float(np.nanmean(vals[a]))} for a in cand}}
    if len(cand) < 2:
        out.update(best=None, note="one candidate only")
        return out

    def both(a, b):
        return np.isfinite(vals[a]) & np.isfinite(vals[b])

    def diffs(a, b):
        ok = both(a, b)
        return vals[a][ok] - vals[b][ok]

    best = None
    for a in cand:   # the action whose paired mean beats every other candidate's
        if all(len(diffs(a, b)) >= 2 and diffs(a, b).mean() < 0 for b in cand if b != a):
            best = a
    if best is None:
        out.update(best=None, note="no action beats every other")
        return out
    comps = []
    for b in cand:
        if b == best:
            continue
        d = diffs(b, best)          # > 0: best scores less, by that much
        m, lo, hi, p = _clustered_test(d, rounds[both(b, best)])
        comps.append({"rival": names[b - 1], "margin": m, "lo": lo, "hi": hi, "n": int(len(d)), "p": p})
    close = min(comps, key=lambda c: c["margin"])
    out.update(best=best, action=names[best - 1], comparisons=comps, margin=close["margin"], lo=close["lo"],
               hi=close["hi"], margin_n=close["n"], rival=close["rival"])
    if "expert" in df:   # the recommendation against expert's own rules at the same decisions
        mine = df["expert"].to_numpy()
        known = np.isin(mine, cand) & np.isfinite(vals[best])
        v_exp = np.array([vals[a][i] if a in vals else np.nan for i, a in enumerate(mine)])
        d = (v_exp - vals[best])[known]
        out["expert_agrees"] = float(np.mean(mine[known] == best)) if known.any() else float("nan")
        if len(d) >= 2 and np.any(d != 0):
            m, lo, hi, p = _clustered_test(d, rounds[known])
            out["versus_expert"] = {"margin": m, "lo": lo, "hi": hi, "n": int(len(d)), "p": p}
    if min(c["n"] for c in comps) < MIN_N:
        out.update(note=f"fewer than {MIN_N} decisions", testable=False)
    else:
        out["testable"] = True
    return out


def cell_stats(df) -> dict:
    """Every observed cell of every table: ``{table name: [cell dict, ...]}`` (see the module docstring).
    Holm runs once, over every test of every table (the card is one family)."""
    tables = {}
    for table, tname in enumerate(C.TABLE_NAMES):
        sub = df[df["table"] == table]
        cells = [{"table": tname, "cell": int(cell), **cell_label(table, int(cell)), **_one_cell(group, table)}
                 for cell, group in sub.groupby("cell")]
        tested = [x for c in cells if c.get("testable") for x in c["comparisons"]]
        # the recommendation against expert's own choice: one more test per cell, in the same family
        tested += [c["versus_expert"] for c in cells if c.get("testable") and "versus_expert" in c]
        tables[tname] = {"cells": cells, "tests": len(tested), "actions": list(C.ACTION_NAMES[table]),
                         "decisions": int(len(sub)), "_tested": tested}
    family = [x for t in tables.values() for x in t.pop("_tested")]
    for x, r in zip(family, holm([x["p"] for x in family], ALPHA)):
        x["holm_reject"] = bool(r)
    for t in tables.values():
        t["family"] = len(family)
        for c in t["cells"]:
            c["resolved"] = bool(c.get("testable")) and all(x.get("holm_reject") for x in c["comparisons"])
            vs = c.get("versus_expert")
            c["chart"] = c["resolved"] and vs is not None and vs["margin"] > 0 and vs.get("holm_reject", False)
            if c.get("testable") and not c["resolved"]:
                c["note"] = "not resolved (Holm, 5% over the whole card)"
            elif c["resolved"] and not c["chart"]:
                c["note"] = "resolved; expert's own rule does as well here (not starred)"
    return tables


def starred_cells(tables: dict) -> dict:
    """The starred cells: ``{"chart.<cell>": action}`` for every resolved cell whose action also beats expert's
    own choice at the same decisions (elsewhere the ``card-starred`` player plays expert, which does as well); a
    cell's ``"chart"`` flag, the cells files' word, marks it."""
    out = {}
    for table, tname in enumerate(C.TABLE_NAMES):
        for c in tables[tname]["cells"]:
            if c["chart"]:
                out[CELL_NAMES[c["cell"]]] = int(c["best"])
    return out


def derive(cfg: DeriveConfig, strategy, progress=None) -> tuple[dict, object]:
    """The card of a run: (``{"tables", "cells", "decisions", "rounds", ...}``, the records)."""
    t0 = time.perf_counter()
    df = collect(cfg, strategy, progress)
    tables = cell_stats(df)
    card = {"self_play": strategy.name, "rollouts": cfg.rollouts, "players": list(cfg.players), "budget": cfg.budget,
             "p_sample": cfg.p_sample, "p_finish": cfg.p_finish, "seed": cfg.seed,
             "rounds": {str(p): n for p, n in cfg.rounds.items()}, "decisions": int(len(df)),
             "tables": tables, "cells": starred_cells(tables), "derive_s": round(time.perf_counter() - t0, 1)}
    return card, df


__all__ = ["DeriveConfig", "collect", "cell_stats", "starred_cells", "derive", "holm", "cell_label",
           "MIN_N", "ALPHA", "DERIVE_FIRST"]
