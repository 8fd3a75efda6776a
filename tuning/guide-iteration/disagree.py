"""Where the card loses to expert (issue 50 item 3): 4-player games of experts alone; at every covered decision of
every seat, what the committed card would play (search.card.card_options, the cell's current action) beside what
expert played; the disagreements counted per cell, and a sample of them valued by the oracle (win chance at the
game horizon, the card in the seat to move; rivals net, and, as a check, expert), the card's option minus expert's.
`python tuning/guide-iteration/disagree.py GAMES VALUED ROLLOUTS OUT.json` from the repository root."""
import json
import sys
import time
from collections import defaultdict

import numpy as np

from gnoming_sim.game.deck import PUBLISHED
from gnoming_sim.game.fields import F_SCORE
from gnoming_sim.game.record_trace import decisions
from gnoming_sim.game.rules import RuleConfig
from gnoming_sim.kernel.engine import simulate
from gnoming_sim.search.evaluator import Settings, seats_with, win_samples
from gnoming_sim.search.card import card_options
from gnoming_sim.stats import cluster_mean
from gnoming_sim.tune.card.iterate import card_strategy, cell_words, committed_cells

games, valued, rollouts, out = int(sys.argv[1]), int(sys.argv[2]), int(sys.argv[3]), sys.argv[4]
P, FIRST = 4, 2**59 + 2**57 + 2**50           # the iteration's range, apart from its rounds' games
t0 = time.perf_counter()
card = card_strategy(committed_cells())
res = simulate(P, ["expert"] * P, games=games, seed=7, trace=True, first_game=FIRST)
rows = []          # one a decision: the card's option, expert's, and the cell the difference is attributed to
for g in range(games):
    for seat in range(P):
        for d in decisions(res.deals[g], res.traces[g], P, seat, RuleConfig(), PUBLISHED,
                           res.round_stats[g, :, :, F_SCORE]):
            cos = card_options(d.position, card)
            if not cos:
                continue
            mine = cos[0]["actions"][cos[0]["current"]]
            # the cell whose other action plays expert's option (else the first cell: expert's option is none of
            # the card's actions there, "other": the other pile, or another position within the action)
            co = next((c for c in cos if d.played in c["actions"].values()), cos[0])
            exp = next((a for a, k in co["actions"].items() if k == d.played), "other")
            rows.append({"g": g, "pos": d.position, "cell": co["cell"], "table": co["table"], "card": co["current"],
                         "expert": exp, "k_card": mine, "k_exp": d.played, "differ": mine != d.played})
t1 = time.perf_counter()
print(f"{len(rows):,} covered decisions in {games} games x {P} seats ({t1 - t0:.0f} s); "
      f"{sum(r['differ'] for r in rows):,} where the card's option is not expert's", flush=True)
by = defaultdict(list)
for r in rows:
    by[r["cell"]].append(r)
dis = [r for r in rows if r["differ"]]
rng = np.random.default_rng(0)
pick = sorted(rng.choice(len(dis), size=min(valued, len(dis)), replace=False).tolist())
vals = defaultdict(list)
for j, i in enumerate(pick):
    r = dis[i]
    keys = [r["k_card"], r["k_exp"]]
    for base in ("net", "expert"):
        got, win = win_samples(r["pos"], Settings(policies=tuple(seats_with(r["pos"], card, base=base)),
                                                  budget=rollouts, seed=11, first=j * rollouts), keys)
        m = dict(zip(got, 100 * win.mean(axis=0)))
        r[f"v_{base}"] = float(m[r["k_card"]] - m[r["k_exp"]])
    vals[r["cell"]].append(r)
t2 = time.perf_counter()
print(f"valued {len(pick)} disagreements x {rollouts} rollouts x 2 bases ({t2 - t1:.0f} s)", flush=True)
cells = []
for c, rs in by.items():
    n, nd = len(rs), sum(r["differ"] for r in rs)
    v = vals.get(c, [])
    e = {"cell": c, **cell_words(c), "action": rs[0]["card"], "n": n, "differ": nd,
         "expert_plays": dict(sorted(defaultdict(int, {a: sum(1 for r in rs if r["differ"] and r["expert"] == a)
                                                        for a in {r["expert"] for r in rs}}).items())),
         "valued": len(v)}
    for base in ("net", "expert"):
        if len(v) >= 2:
            cm = cluster_mean([r[f"v_{base}"] for r in v], [r["g"] for r in v]) if len({r["g"] for r in v}) > 1 else None
            e[f"card_minus_expert_{base}"] = cm and {k: cm[k] for k in ("mean", "ci95", "n")}
            # the cell's total: the mean value of a disagreement times the disagreements per game of a seat
            e[f"per_seat_game_{base}"] = cm and cm["mean"] * nd / (games * P)
    cells.append(e)
cells.sort(key=lambda e: e.get("per_seat_game_net") or 0)
for base in ("net", "expert"):
    allv = [r[f"v_{base}"] for r in dis if f"v_{base}" in r]
    cm = cluster_mean(allv, [r["g"] for r in dis if f"v_{base}" in r])
    print(f"base {base}: a disagreement costs {cm['mean']:+.2f} pp [{cm['ci95'][0]:+.2f}, {cm['ci95'][1]:+.2f}] "
          f"(n {cm['n']}); per seat-game {cm['mean'] * len(dis) / (games * P):+.2f} pp")
by_table = defaultdict(lambda: [0, 0])
for r in rows:
    by_table[r["table"]][0] += 1
    by_table[r["table"]][1] += r["differ"]
print("per table (covered, differ):", dict(by_table))
for e in cells[:25]:
    cn, ce = e.get("card_minus_expert_net"), e.get("card_minus_expert_expert")
    f = lambda c: f"{c['mean']:+.2f} [{c['ci95'][0]:+.2f}, {c['ci95'][1]:+.2f}] n{c['n']}" if c else "-"  # noqa: E731
    w = " ".join(str(e[k]) for k in ("drawn", "card", "use", "gap", "rivals_fd", "players") if k in e)
    print(f"{e['table']:6} {e['cell']:3} {w}: card {e['action']}, differ {e['differ']}/{e['n']} "
          f"expert {e['expert_plays']}; net {f(cn)} ({e.get('per_seat_game_net') or 0:+.3f}/seat-game); "
          f"expert {f(ce)} ({e.get('per_seat_game_expert') or 0:+.3f})")
json.dump({"games": games, "rollouts": rollouts, "cells": cells, "wall_s": round(time.perf_counter() - t0, 1)},
          open(out, "w"), indent=1)
print(f"wall {time.perf_counter() - t0:.0f} s")
