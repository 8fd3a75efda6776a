"""Coordinate search of the pocket rules' settings by whole games (issue 58 item 1).

Each setting of ``kernel/policy/rules.py`` takes one of a few values a sentence can say.  From the start settings,
each setting in turn is tried at each of its values with the others held; the value with the highest win chance
(one rules seat among net players against net in that seat, the seat rotating, pp a game averaged over the table
sizes) is kept when it beats the current value on the same deals by more than ``--min-z`` standard errors of the
paired difference (default 2: a change the search's deals separate, not one within their noise).  Passes repeat until one changes nothing (at
most ``--passes``).  The deals are the search's own (game numbers SEARCH_FIRST + players * 2**40); the choice is
confirmed on other deals by confirm.py.
"""
from __future__ import annotations

import argparse
import json
import time
from pathlib import Path

import numpy as np

from gnoming_sim.experiments.rule_play import Table  # noqa: E402

from gnoming_sim.kernel.policy import registry  # noqa: E402

SEARCH_FIRST = 2**58 + 2**57
SIZES = (2, 4, 6)
CHOICES = {
    "rules.place_lower": (1, 3, 6, 99),
    "rules.place_uses": (0, 1),
    "rules.pair_fd": (0, 1),
    ("rules.late_fd", "rules.late_lower"): ((0, 99), (1, 1), (1, 3), (2, 1), (2, 3), (3, 3), (3, 6)),
    "rules.keep_max": (-1, 3, 4, 5, 6, 8),
    "rules.keep_fd": (3, 5, 99),
    "rules.init": (0, 1, 2),
    "rules.take_low": (-99, -1, 3, 4),
    "rules.take_mulligan": (0, 1),
    "rules.take_complete": (0, 1),
    "rules.take_pair_fd": (0, 3, 5, 99),
    "rules.take_round": (0, 1, 2),
    "rules.take_lower": (3, 6, 99),
    "rules.hazard": (0, 1),
    "rules.finish_gap": (-5, 0, 5, 10, 99),
    "rules.finish_gap2": (0, 5, 10),
    "rules.finish_rival_fd": (1, 2, 4),
    "rules.bounce": (0, 1, 2, 3),
    "rules.hazard_flip": (0, 1, 2),
    "rules.discard": (0, 1),
}


def main(argv=None):
    ap = argparse.ArgumentParser()
    ap.add_argument("--deals", type=int, default=1500)
    ap.add_argument("--passes", type=int, default=2)
    ap.add_argument("--seed", type=int, default=58)
    ap.add_argument("--out", default=str(Path(__file__).with_name("search.json")))
    ap.add_argument("--start", default=None, help="a JSON file of start settings (default: registry's)")
    ap.add_argument("--min-z", type=float, default=2.0,
                    help="keep a change only when it beats the current value by this many standard errors of the "
                         "paired difference over the deals (0: any positive gain)")
    a = ap.parse_args(argv)
    tables = {p: Table(p, a.deals, a.seed, SEARCH_FIRST + p * 2**40) for p in SIZES}
    cur = dict(registry.RULES_SETTINGS)
    if a.start:
        cur.update(json.loads(Path(a.start).read_text()))
    t0 = time.time()
    cache: dict = {}

    def per_deal(settings):
        key = tuple(sorted(settings.items()))
        if key not in cache:
            s = registry.rules_strategy(settings, name="rules-try")
            cache[key] = np.concatenate([tables[p].versus(s)["win"] for p in SIZES])   # pp, sizes stacked
        return cache[key]

    log = []
    base = per_deal(cur)
    for pas in range(a.passes):
        changed = 0
        for key, values in CHOICES.items():
            keys = key if isinstance(key, tuple) else (key,)
            trials = {}
            for v in values:
                vs = v if isinstance(v, tuple) else (v,)
                trials[v] = per_deal({**cur, **{k: float(x) for k, x in zip(keys, vs)}})
            best = max(trials, key=lambda v: trials[v].mean())
            d = trials[best] - per_deal(cur)
            se = d.std(ddof=1) / np.sqrt(d.size) if d.any() else 0.0
            was = tuple(cur[k] for k in keys)
            bests = best if isinstance(best, tuple) else (best,)
            row = {"pass": pas, "setting": "+".join(keys), "was": was, "best": bests, "gain": float(d.mean()),
                   "se": float(se), "means": {str(v): round(float(w.mean()), 3) for v, w in trials.items()},
                   "s": round(time.time() - t0, 1)}
            if tuple(float(x) for x in bests) != was and d.mean() > max(a.min_z * se, 0.0) and d.mean() > 0:
                cur.update({k: float(x) for k, x in zip(keys, bests)})
                changed += 1
                row["changed"] = True
            log.append(row)
            print(json.dumps(row), flush=True)
        if not changed:
            break
    out = {"settings": cur, "win_pp": float(per_deal(cur).mean()), "deals": a.deals, "sizes": SIZES, "seed": a.seed,
           "min_z": a.min_z,
           "first_game": SEARCH_FIRST, "log": log, "wall_s": round(time.time() - t0, 1)}
    Path(a.out).write_text(json.dumps(out, indent=1))


if __name__ == "__main__":
    main()
