"""Rule 1 checked on a third set of fresh deals: the pocket rules with the first two cards of the top row (rules.init 1)
against the same rules with opposite corners (rules.init 0), one seat among net against net in that seat, 6,000 deals
a size at 2, 4 and 6 players (game numbers 2**58 + 2**50 + players * 2**40, seed 63); per deal, row minus corners in
win chance (pp) and game-score margin (points, lower wins), 95% t intervals.  Run from the repository root:
``.venv/bin/python tuning/rules/init_check.py > tuning/rules/init_check.txt``."""
import numpy as np
from gnoming_sim.experiments.rule_play import Table
from gnoming_sim.experiments.ladder_stats import t_interval
from gnoming_sim.kernel.policy import registry
out = []
for p in (2, 4, 6):
    t = Table(p, 6000, 63, 2**58 + 2**50 + p * 2**40)
    a = t.versus(registry.rules_strategy({"rules.init": 0.0}, name="rules-corners"))
    b = t.versus(registry.rules_strategy({"rules.init": 1.0}, name="rules-row"))
    d = b["win"] - a["win"]; m = b["margin"] - a["margin"]
    out.append((d, m))
    print(p, "row - corners", t_interval(d), t_interval(m), flush=True)
print("pooled", t_interval(np.concatenate([x[0] for x in out])), t_interval(np.concatenate([x[1] for x in out])))
