"""Expert iteration, round 2 (issue #34): a candidate net (weights file) against the installed net and learned,
one X among experts, seats rotating, paired by deal.

    python tuning/net/round2.py CANDIDATE.json --seed 5 --deals 2:3000,4:4000,6:3000    # validation: choose
    python tuning/net/round2.py CANDIDATE.json --deals 2:4000,4:4000,6:3000             # held out: report

``--seed 11`` (the default) is ``measure.py``'s held-out deals; there mc64's margins are read from
tuning/net/mc64-margins.npz (``measure.py --parts mc64``; they do not depend on the net) and paired with the
candidate's on the same first deals.  Any other seed is a validation set (no mc64).

    python tuning/net/round2.py CANDIDATE.json --seed 5 --variants    # the rules variants, 4 players

``--variants``: under three rules variants, every seat the candidate (and the installed net) on 2,000 held-out
games: turns a round against the published rules on the same deals; and the candidate's margin minus the installed
net's, one X among experts, on ``--seed``'s 4,000 deals under the variant (paired).
"""
import argparse
import json
import time

import numpy as np

from gnoming_sim.experiments.net_eval import margins, paired
from gnoming_sim.kernel.policy import registry

ap = argparse.ArgumentParser()
ap.add_argument("candidate")
ap.add_argument("--deals", default="2:4000,4:4000,6:3000")
ap.add_argument("--name", default="net2")
ap.add_argument("--seed", type=int, default=11)
ap.add_argument("--variants", action="store_true")
a = ap.parse_args()
HELD_OUT = a.seed == 11
deals = {int(k): int(v) for k, v in (x.split(":") for x in a.deals.split(","))}
cand = registry.net_from_file(a.candidate, name=a.name)
if a.variants:
    from gnoming_sim.experiments.net_eval import variant_play
    from gnoming_sim.game.rules import RuleConfig

    for label, rules in (("bonus10", RuleConfig(early_finish_bonus=10)), ("hazard15", RuleConfig(hazard_value=15)),
                         ("no bonus", RuleConfig(early_finish_bonus=0))):
        for x in (cand, "net"):
            r = variant_play(x, rules, players=4, games=2000, seed=11)
            print(f"{label:>9} {getattr(x, 'name', x):>8}: turns/round {r['turns']:.2f} {r['turns_change']:+.2f} "
                  f"[{r['turns_lo']:+.2f}, {r['turns_hi']:+.2f}] (n = {r['games']} games)", flush=True)
        v = {a.name: margins(cand, 4, 4000, seed=a.seed, rules=rules), "net": margins("net", 4, 4000, seed=a.seed, rules=rules)}
        r = paired(v, [(a.name, "net")])[0]
        print(f"{label:>9} {a.name} - net, one X among experts: {r['diff']:+.2f} [{r['lo']:+.2f}, {r['hi']:+.2f}] "
              f"(n = {r['games']} deals)", flush=True)
    raise SystemExit(0)
mc = np.load("tuning/net/mc64-margins.npz") if HELD_OUT else None
rows = []
for p, n in deals.items():
    t0 = time.perf_counter()
    v = {a.name: margins(cand, players=p, games=n, seed=a.seed)}
    v.update({x: margins(x, players=p, games=n, seed=a.seed) for x in ("net", "learned")})
    pairs = [(a.name, None), (a.name, "net"), (a.name, "learned"), ("net", "learned")]
    if HELD_OUT:
        m = mc[f"p{p}"].size
        v["mc64"] = mc[f"p{p}"]
        v[f"{a.name}@mc"] = v[a.name][:m]
        v["net@mc"] = v["net"][:m]
        pairs += [(f"{a.name}@mc", "mc64"), ("net@mc", "mc64")]
    for r in paired(v, pairs):
        r["players"] = p
        rows.append(r)
        print(f"{p}p {r['a']:>8} - {r['b']:<13} n={r['games']:5d}  {r['diff']:+6.2f} [{r['lo']:+6.2f}, {r['hi']:+6.2f}]",
              flush=True)
    print(f"{p}p: {time.perf_counter() - t0:.0f} s", flush=True)
print(json.dumps({"candidate": a.candidate, "seed": a.seed, "rows": rows}))
