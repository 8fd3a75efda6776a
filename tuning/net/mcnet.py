"""mc-net (Monte Carlo, 16 rollouts per option, net as its base policy) measured (issue #34 item 4).

Run from the repository root (2 cores, under nice):
    nice -n 10 python tuning/net/mcnet.py --parts check,table --deals 4:1000,2:600,6:360 > tuning/net/mcnet.out
    nice -n 10 python tuning/net/mcnet.py --parts table --deals 4:240 --budget 64 > tuning/net/mcnet64.out
    python tuning/net/mcnet.py --parts table --deals 4:1000,2:600,6:360 --keep 2 > tuning/net/mcnet-keep2.out
One X among expert seats (X in one seat, moving one seat per game), held-out deals of seed 11 (global games from
2**60), paired by deal: mc-net - expert (its margin), mc-net - net, mc-net - mc64 (and net - mc64 on the same
deals).  mc64's per-deal margins are tuning/net/mc64-margins.npz (tuning/net/measure.py --parts mc64: the first
200 / 240 / 120 deals at 2 / 4 / 6 players, seed 11); ``--parts check`` first replays mc64 on the first
``--check`` deals at 4 players and stops unless they equal the file's (the same deals, the same games).
mc-net's margins are written to tuning/net/mcnet-margins.npz (``--budget B``: mc-net with B rollouts per
option, to mcnetB-margins.npz).  Every run gives its wall and CPU seconds (this process, all threads) and
games per second.
"""
import argparse
import json
import os
import time

import numpy as np

from gnoming_sim.experiments.net_eval import margins, paired
from gnoming_sim.kernel.policy import registry

ap = argparse.ArgumentParser()
ap.add_argument("--deals", default="4:240")
ap.add_argument("--check", type=int, default=8, help="deals of mc64 replayed at 4 players against the file")
ap.add_argument("--parts", default="check,table", help="of check,table")
ap.add_argument("--budget", type=int, default=16, help="mc-net's rollouts per option (16: the preset)")
ap.add_argument("--keep", type=float, default=0.0, help="mc_keep: keep net's answer unless the rollouts' best beats "
                "it by this many paired standard errors (0: the preset, the lowest mean)")
a = ap.parse_args()
deals = {int(k): int(v) for k, v in (x.split(":") for x in a.deals.split(","))}
parts = a.parts.split(",")
X = ("mc-net" if a.budget == 16 else f"mc-net{a.budget}") + (f"-keep{a.keep:g}" if a.keep else "")
out = {"load_before": os.getloadavg(), "x": X, "deals": deals}
MC_FILE = "tuning/net/mc64-margins.npz"
OUT_FILE = f"tuning/net/{X.replace('-', '')}-margins.npz"
mc = np.load(MC_FILE)
net_x = registry.get("mc-net")
if a.budget != 16 or a.keep:
    net_x = registry.Strategy(X, net_x.kind, f"mc-net, {a.budget} rollouts per option, mc_keep {a.keep:g}",
                              dict(net_x.params, mc_budget=float(a.budget), mc_keep=float(a.keep)))


def timed(x, p, n):
    w0, c0 = time.perf_counter(), time.process_time()
    v = margins(x, players=p, games=n, seed=11)
    wall, cpu = time.perf_counter() - w0, time.process_time() - c0
    x = getattr(x, "name", x)
    print(f"{p}p {x}: {v.size} deals, {wall:.0f} s wall, {cpu:.0f} s CPU, {v.size / wall:.2f} games/s "
          f"(load {os.getloadavg()[0]:.2f})", flush=True)
    return v, {"x": x, "players": p, "games": int(v.size), "wall_s": round(wall, 1), "cpu_s": round(cpu, 1),
               "games_per_s": round(v.size / wall, 3)}


if "check" in parts:
    v, t = timed("mc64", 4, a.check)
    same = bool(np.array_equal(v, mc["p4"][:v.size]))
    print(f"mc64 replay of the first {v.size} deals at 4 players equals {MC_FILE}: {same}", flush=True)
    out["check"] = dict(t, equal=same)
    if not same:
        raise SystemExit(f"mc64's margins differ from {MC_FILE}: not the same deals")

if "table" in parts:
    saved = dict(np.load(OUT_FILE)) if os.path.exists(OUT_FILE) else {}
    out["table"], out["time"] = [], []
    for p, n in deals.items():
        x, tx = timed(net_x, p, n)
        net, tn = timed("net", p, n)
        out["time"] += [tx, tn]
        saved[f"p{p}"] = x
        np.savez(OUT_FILE, **saved)
        m = min(x.size, mc[f"p{p}"].size)
        v = {X: x, "net": net, "mc64": mc[f"p{p}"][:m], f"{X}@mc": x[:m], "net@mc": net[:m]}
        rows = paired(v, [(X, None), ("net", None), (X, "net"), (f"{X}@mc", "mc64"), ("net@mc", "mc64"),
                          ("mc64", None)])
        for r in rows:
            r["players"] = p
            print(f"{p}p {r['a']:>10} - {r['b']:<13} n={r['games']:5d}  {r['diff']:+6.2f} [{r['lo']:+6.2f}, "
                  f"{r['hi']:+6.2f}]", flush=True)
        out["table"] += rows

out["load_after"] = os.getloadavg()
print(json.dumps(out))
