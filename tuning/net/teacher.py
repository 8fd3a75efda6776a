"""The teacher comparison for the net player's targets: which rollout search labels best.

One X among three experts at 4 players, seats rotating, on the same held-out deals (seed 7), paired by
deal: learned, and Monte Carlo players at 16 and 64 rollouts per option with expert or learned in their
rollouts (mcN: expert; mcN-learned: learned).  The labels of tuning/net/run.sh are these searches'
option values, so the search worth distilling is the one that beats the player it would train.
Run: nice -n 19 python tuning/net/teacher.py GAMES X [X ...] > tuning/net/teacher-....out
"""
import json
import sys
import time

from gnoming_sim.experiments.mc_eval import mc_strategy
from gnoming_sim.experiments.net_eval import margins, paired

games = int(sys.argv[1])
names = sys.argv[2:] or ["learned", "mc16", "mc-learned"]
vals, secs = {}, {}
for x in names:
    t0 = time.perf_counter()
    if x.startswith("mc") and x.endswith("-learned") and x[2:-8].isdigit():
        s = mc_strategy(int(x[2:-8]), base="learned", name=x)
    else:
        s = x
    vals[x] = margins(s, players=4, games=games, seed=7)
    secs[x] = time.perf_counter() - t0
    print(x, f"{secs[x]:.0f} s", flush=True)
pairs = [(x, None) for x in names] + [(a, b) for i, a in enumerate(names) for b in names[:i]]
rows = paired(vals, pairs)
for r in rows:
    print(f"{r['a']:>13} - {r['b']:<13} n={r['games']:5d}  {r['diff']:+6.2f} [{r['lo']:+6.2f}, {r['hi']:+6.2f}]")
print(json.dumps({"rows": rows, "seconds": secs}))
