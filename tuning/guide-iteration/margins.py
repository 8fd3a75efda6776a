"""The install check: the card's margins against net, expert, builder and greedy at 2, 4 and 6 players (one card
seat among the rival's players against the rival in that seat, the same deals: experiments.card_check.margins),
for the card in a cells file: `python tuning/guide-iteration/margins.py CELLS_FILE OUT.json DEALS` (run from the
repository root).  On its own deals (seed SEED, game numbers FIRST + players * 2**36; DEALS against expert, the
card study's share of them against the others: analyses/card/design.margin_deals), apart from the report's
card study's, so the margins the report publishes are on deals no install check saw."""
import json
import sys
import time
from pathlib import Path

from gnoming_sim.analyses.card import design
from gnoming_sim.experiments.card_check import margins
from gnoming_sim.kernel.policy import registry

cells, out, deals = Path(sys.argv[1]), Path(sys.argv[2]), int(sys.argv[3])
card = registry.card_from_file(cells)
SEED, FIRST = 7, 2**58 + 2**52
seed = SEED
t0 = time.perf_counter()
res = margins(card, deals=deals, seed=seed, first_game=lambda p: FIRST + p * 2**36, deals_of=design.margin_deals)
pp = lambda e: {"mean": 100 * e["mean"], "ci95": [100 * x for x in e["ci95"]], "n": e["n"], "unit": "pp"}  # noqa: E731
rows = {str(p): {r: {"points": {**c["diff"], "unit": "points"}, "win": pp(c["win"])} for r, c in by.items()}
        for p, by in res.items()}
for p, by in rows.items():
    for r, c in by.items():
        e, w = c["points"], c["win"]
        print(f"{p} players vs {r}: {e['mean']:+.2f} [{e['ci95'][0]:+.2f}, {e['ci95'][1]:+.2f}] points, "
              f"{w['mean']:+.2f} [{w['ci95'][0]:+.2f}, {w['ci95'][1]:+.2f}] pp, n {e['n']}", flush=True)
out.write_text(json.dumps({"cells": str(cells), "deals": deals, "seed": seed, "first_game": "2**58 + 2**52 + players * 2**36", "margins": rows,
                           "wall_s": round(time.perf_counter() - t0, 1)}, indent=1) + "\n")
print(f"wall {time.perf_counter() - t0:.0f} s")
