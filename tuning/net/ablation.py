"""The labels' ablation: the net fitted to expert's targets alone (tuning/net/fit-expert/) against the installed
net (expert's and learned's targets, tuning/net/fit-both/), one seat among experts, the same held-out deals as
measure.py (seed 11), paired by deal.  Run: nice -n 19 python tuning/net/ablation.py > tuning/net/ablation.out"""
import json

import numpy as np

from gnoming_sim.experiments.net_eval import margins, paired
from gnoming_sim.tune.net_train import strategy_of

w = np.array(json.load(open("tuning/net/fit-expert/weights.json"))["weights"])
alone = strategy_of(w, name="net-expert-targets")
for p, n in ((2, 4000), (4, 4000), (6, 3000)):
    v = {"net": margins("net", players=p, games=n, seed=11), "net-expert-targets": margins(alone, players=p, games=n, seed=11)}
    for r in paired(v, [("net", "net-expert-targets")]):
        print(f"{p}p {r['a']} - {r['b']}: n={r['games']}  {r['diff']:+.2f} [{r['lo']:+.2f}, {r['hi']:+.2f}]", flush=True)
