"""The pocket rules confirmed on deals no choice saw, each rule's played worth, and the ladder of advice.

On fresh deals (game numbers CONFIRM_FIRST + players * 2**40, apart from search.py's), at 2, 4 and 6 players:

* the committed rules (``registry.RULES_SETTINGS``), one seat among net players against net in that seat, the
  seat rotating with the deal: win chance (pp a game) and game-score margin (points a game, the seat's score
  minus the rivals' mean; lower is better), strategy minus net;
* each rule's worth: the rules minus the rules with that one rule replaced by its simplest default
  (:data:`RULES` below), paired by deal;
* the printed take rule ("take the pile's card when it completes a line, or when it is negative; else draw
  blind") in place of the pocket take rule, paired by deal;
* the ladder: always the simplest default -> the pocket rules -> the card -> net, each in one seat among a table
  of net and among a table of expert, against the table's player in that seat, and its own win chance.

Every figure: the mean over deals (the unit; the three table sizes stacked with equal deals, so the pooled mean is
the mean of the sizes') with a 95% t interval (``ladder_stats.t_interval``) and n deals.
"""
from __future__ import annotations

import argparse
import json
import time
from pathlib import Path

import numpy as np

from gnoming_sim.experiments.ladder_stats import t_interval  # noqa: E402
from gnoming_sim.experiments.rule_play import Table  # noqa: E402
from gnoming_sim.kernel.policy import registry  # noqa: E402

CONFIRM_FIRST = 2**58 + 2**56
SIZES = (2, 4, 6)
# each printed rule: its settings' simplest default (what the rule's decision does without the rule)
RULES = {r["title"]: r["default"] for r in registry.RULES_PRINTED}
PRINTED_TAKE = {"rules.take_low": -1, "rules.take_mulligan": 0, "rules.take_complete": 1, "rules.take_pair_fd": 99,
                "rules.take_lower": 99, "rules.take_round": 0}


def defaults() -> dict:
    out: dict = {}
    for d in RULES.values():
        out.update(d)
    return out


def est(x: np.ndarray, unit: str) -> dict:
    e = t_interval(np.asarray(x, dtype=np.float64))
    return {"mean": round(e["mean"], 3), "ci95": [round(v, 3) for v in e["ci95"]], "n": int(e["n"]), "unit": unit}


def summary(per_size: dict, unit: str) -> dict:
    return {"pooled": est(np.concatenate([per_size[p] for p in SIZES]), unit),
            **{str(p): est(per_size[p], unit) for p in SIZES}}


def main(argv=None):
    ap = argparse.ArgumentParser()
    ap.add_argument("--deals", type=int, default=3000)
    ap.add_argument("--seed", type=int, default=58)
    ap.add_argument("--ladder-deals", type=int, default=2000)
    ap.add_argument("--out", default=str(Path(__file__).with_name("result.json")))
    a = ap.parse_args(argv)
    t0 = time.time()
    net = {p: Table(p, a.deals, a.seed, CONFIRM_FIRST + p * 2**40) for p in SIZES}
    chosen = registry.rules_strategy()
    variants = {"rules": chosen, "printed take rule": registry.rules_strategy(PRINTED_TAKE, name="rules-printed-take"),
                "all defaults": registry.rules_strategy(defaults(), name="rules-defaults")}
    for name, d in RULES.items():
        variants[name] = registry.rules_strategy(d, name="rules-without")
    won = {k: {} for k in variants}
    margin = {k: {} for k in variants}
    for p in SIZES:
        for k, s in variants.items():
            d = net[p].versus(s)
            won[k][p], margin[k][p] = d["win"], d["margin"]
    out = {"settings": dict(registry.RULES_SETTINGS), "deals": a.deals, "sizes": SIZES, "seed": a.seed,
           "first_game": CONFIRM_FIRST, "table": "one strategy seat among net players, against net in that seat",
           "rules_vs_net": {"win": summary(won["rules"], "pp"), "margin": summary(margin["rules"], "points")},
           "worth": {}, "printed_take": {}}
    for name in RULES:
        out["worth"][name] = {"default": RULES[name],
                              "win": summary({p: won["rules"][p] - won[name][p] for p in SIZES}, "pp"),
                              "margin": summary({p: margin["rules"][p] - margin[name][p] for p in SIZES}, "points")}
    out["printed_take"] = {"win": summary({p: won["rules"][p] - won["printed take rule"][p] for p in SIZES}, "pp"),
                           "margin": summary({p: margin["rules"][p] - margin["printed take rule"][p] for p in SIZES},
                                             "points")}
    out["all_defaults_vs_net"] = {"win": summary(won["all defaults"], "pp"),
                                  "margin": summary(margin["all defaults"], "points")}
    print(json.dumps({k: out[k] for k in ("rules_vs_net", "printed_take")}, indent=1), flush=True)
    # the ladder: each rung in one seat among a table of net and of expert, against the table's player
    ladder = {}
    rungs = {"simplest default": variants["all defaults"], "pocket rules": chosen, "card": "card", "net": "net"}
    for table in ("net", "expert"):
        for p in SIZES:
            T = Table(p, a.ladder_deals, a.seed, CONFIRM_FIRST + 2**55 + p * 2**40, base=table)
            for rung, s in rungs.items():
                d = T.versus(s)
                w, m, wa, ma = d["win"], d["margin"], d["win_abs"], d["margin_abs"]
                ladder.setdefault(table, {}).setdefault(str(p), {})[rung] = {
                    "win_vs_table": est(w, "pp"), "margin_vs_table": est(m, "points"), "win": est(wa, "pp"),
                    "margin": est(ma, "points")}
    out["ladder"] = {"deals": a.ladder_deals, "first_game": CONFIRM_FIRST + 2**55, "tables": ladder}
    out["wall_s"] = round(time.time() - t0, 1)
    Path(a.out).write_text(json.dumps(out, indent=1))
    print(json.dumps(out["worth"], indent=1))


if __name__ == "__main__":
    main()
