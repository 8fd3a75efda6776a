"""What each pocket rule costs against net: net playing that one rule and nothing else of the rules, in whole games.

One seat among net players against net in that seat (``experiments.rule_play.Table``: the seat rotating with the
deal, the same game numbers), on deals no choice saw (game numbers ``RULE_COST_FIRST + players * 2**40``), at 2, 4
and 6 players: the pocket rules with net's answers in every class of decisions but the rule's own
(``registry.with_net``; a class is where the two answers part in that way, so the seat is net wherever they agree).
With no class left to the rules the seat plays exactly as net; with every class, exactly as the rules.  Also the
take and finishing rules the README printed before the pocket rules (``PRINTED_TAKE``: take a pile's card when it
completes a line or is negative, else draw blind; ``PRINTED_FINISH``: finish when the score after finishing is below
the best rival's visible score), each the same way.  Per rule: the seat minus net, win chance (pp a game) and
game-score margin (the seat's score minus the rivals' mean, points a game, lower wins), 95% t intervals over deals;
the three sizes pooled (equal deals: the mean of the sizes').

Run from the repository root: ``.venv/bin/python tuning/rules/rule_cost.py --deals 6000 --out tuning/rules/rule_cost.json``.
"""
from __future__ import annotations

import argparse
import json
import sys
import time
from pathlib import Path

import numpy as np

from gnoming_sim.experiments.ladder_stats import t_interval
from gnoming_sim.experiments.rule_play import Table
from gnoming_sim.kernel.policy import registry
from gnoming_sim.kernel.policy.dispatch import NETC_NAMES

from confirm import PRINTED_TAKE   # the take rule printed before the pocket rules (this folder's confirm.py)

RULE_COST_FIRST = 2**58 + 2**51
EVERY = (1 << len(NETC_NAMES)) - 1
# each printed rule's classes of decisions (kernel.policy.dispatch.NETC_*), by the rule's number
CLASSES = {1: ("first flips",), 2: ("take or draw",), 3: ("over a face-up or a face-down card", "which position"),
           4: ("keep or throw away",), 5: ("finish or play on",), 6: ("bounce",), 7: ("a rival's hazard",),
           8: ("which pile",)}
PRINTED_FINISH = {"rules.finish_gap": 0, "rules.finish_gap2": 0}


def only(rule: int, settings: dict | None = None, name: str = "net+rule"):
    """Net with pocket rule ``rule`` alone (its settings, or ``settings`` over the committed ones)."""
    bits = sum(1 << NETC_NAMES.index(c) for c in CLASSES[rule])
    return registry.with_net(registry.rules_strategy(settings), EVERY & ~bits, name)


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--deals", type=int, default=6000)
    ap.add_argument("--players", type=int, nargs="+", default=[2, 4, 6])
    ap.add_argument("--seed", type=int, default=62)
    ap.add_argument("--out", type=Path, required=True)
    a = ap.parse_args(argv)
    t0 = time.time()
    arms = {r["title"]: only(int(r["title"].split()[0])) for r in registry.RULES_PRINTED}
    arms["2 take or draw, as printed before"] = only(2, {k: float(v) for k, v in PRINTED_TAKE.items()})
    arms["5 finish or play on, as printed before"] = only(5, {k: float(v) for k, v in PRINTED_FINISH.items()})
    arms["every rule"] = registry.with_net(registry.rules_strategy(), 0, "rules")
    per = {name: {"win": [], "margin": []} for name in arms}
    out = {"command": "tuning/rules/rule_cost.py " + " ".join(argv or sys.argv[1:]), "deals": a.deals,
           "seed": a.seed, "first_game": "2**58 + 2**51 + players * 2**40", "classes": {str(k): v for k, v in CLASSES.items()},
           "rules": {}}
    for p in a.players:
        table = Table(p, a.deals, a.seed, RULE_COST_FIRST + p * 2**40)
        for name, s in arms.items():
            got = table.versus(s)
            per[name]["win"].append(got["win"])
            per[name]["margin"].append(got["margin"])
            print(f"{p} players, {name}: {got['win'].mean():+.2f} pp, {got['margin'].mean():+.2f} points", flush=True)
    for name, d in per.items():
        out["rules"][name] = {"by_players": {str(p): {"win_pp": t_interval(w), "margin": t_interval(m)}
                                             for p, w, m in zip(a.players, d["win"], d["margin"])},
                              "pooled": {"win_pp": t_interval(np.concatenate(d["win"])),
                                         "margin": t_interval(np.concatenate(d["margin"]))}}
    out["seconds"] = round(time.time() - t0, 1)
    a.out.write_text(json.dumps(out, indent=1) + "\n")
    return 0


if __name__ == "__main__":
    sys.exit(main())
