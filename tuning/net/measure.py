"""The net player measured (issue #34 item 3): held-out table, speed, rules variants.

Run from the repository root (2 cores, under nice):
    nice -n 19 python tuning/net/measure.py --parts mc64 --mc-deals 2:100,4:200,6:60 > tuning/net/mc64.out
    nice -n 19 python tuning/net/measure.py --deals 2:400,4:400,6:300 > tuning/net/measure.out
1. One X among expert seats (X in one seat, moving one seat per game), held-out deals of seed 11 (global
   games from 2**60), paired by deal: net - expert (net's margin), net - learned, net - mc64, with n and 95%.
   mc64 plays the first ``--mc-deals`` deals of each table (fewer: it is ~100x slower), paired with net's
   margins on those same deals; its margins are computed once (``--parts mc64``) into tuning/net/mc64-margins.npz
   (they do not depend on the net) and read back by the table.
2. Games per second at 4 players with every seat net (and learned, expert) on both cores.
3. Every seat X under a rules variant and under the published rules on the same deals: turns per round,
   the share of rounds a player finished and the share whose finisher earned the lowest-score bonus, the variant's change with its 95% interval, for net and learned.
"""
import argparse
import json
import os
import time

from gnoming_sim.experiments.net_eval import games_per_second, margins, paired, variant_play
from gnoming_sim.game.rules import RuleConfig

ap = argparse.ArgumentParser()
ap.add_argument("--deals", default="2:400,4:400,6:300")
ap.add_argument("--mc-deals", default="2:100,4:200,6:60")
ap.add_argument("--variant-games", type=int, default=2000)
ap.add_argument("--parts", default="table,speed,variants", help="of mc64,table,speed,variants")
a = ap.parse_args()
deals = {int(k): int(v) for k, v in (x.split(":") for x in a.deals.split(","))}
mc_deals = {int(k): int(v) for k, v in (x.split(":") for x in a.mc_deals.split(","))}
parts = a.parts.split(",")
out = {"load_before": os.getloadavg()}
t_all = time.perf_counter()

MC_FILE = "tuning/net/mc64-margins.npz"
if "mc64" in parts:
    import numpy as np

    t0 = time.perf_counter()
    got = {}
    for p, n in mc_deals.items():
        got[f"p{p}"] = margins("mc64", players=p, games=p * -(-n // p), seed=11)
        print(f"mc64 {p}p: {got[f'p{p}'].size} deals, {time.perf_counter() - t0:.0f} s", flush=True)
    np.savez(MC_FILE, **got)

if "table" in parts:
    import numpy as np

    mc = np.load(MC_FILE)
    out["table"] = []
    for p, n in deals.items():
        t0 = time.perf_counter()
        v = {x: margins(x, players=p, games=n, seed=11) for x in ("net", "learned")}
        v["mc64"] = mc[f"p{p}"]
        m = v["mc64"].size
        v["net@mc"] = v["net"][:m]
        rows = paired(v, [("net", None), ("learned", None), ("net", "learned"), ("mc64", None), ("net@mc", "mc64")])
        for r in rows:
            r["players"] = p
            print(f"{p}p {r['a']:>7} - {r['b']:<13} n={r['games']:5d}  {r['diff']:+6.2f} [{r['lo']:+6.2f}, {r['hi']:+6.2f}]",
                  flush=True)
        print(f"{p}p: {time.perf_counter() - t0:.0f} s", flush=True)
        out["table"] += rows

if "speed" in parts:
    out["speed"] = {}
    for x in ("net", "learned", "expert"):
        out["speed"][x] = [games_per_second(x, players=4, games=8000 if x != "expert" else 40000) for _ in range(3)]
        print(f"games/s, 4 players, every seat {x}: {max(out['speed'][x]):.0f} (best of 3: "
              f"{', '.join(f'{g:.0f}' for g in out['speed'][x])}); load {os.getloadavg()[0]:.2f}", flush=True)

if "variants" in parts:
    out["variants"] = []
    for label, rules in (("bonus10", RuleConfig(early_finish_bonus=10)), ("hazard15", RuleConfig(hazard_value=15)),
                         ("no bonus", RuleConfig(early_finish_bonus=0))):
        for x in ("net", "learned"):
            r = variant_play(x, rules, players=4, games=a.variant_games, seed=11)
            r["variant"] = label
            out["variants"].append(r)
            print(f"{label:>9} {x:>8}: turns/round {r['turns']:.2f} {r['turns_change']:+.2f} [{r['turns_lo']:+.2f}, "
                  f"{r['turns_hi']:+.2f}]  finish rate {r['finish']:.3f} {r['finish_change']:+.3f} "
                  f"[{r['finish_lo']:+.3f}, {r['finish_hi']:+.3f}]  bonus won {r['bonus_won']:.3f} "
                  f"{r['bonus_won_change']:+.3f} [{r['bonus_won_lo']:+.3f}, {r['bonus_won_hi']:+.3f}]  "
                  f"(n = {r['games']} games)", flush=True)

out["seconds"] = round(time.perf_counter() - t_all, 1)
out["load_after"] = os.getloadavg()
print(json.dumps(out))
