"""The card with the banded take cells (stage4: take or draw by the player's own face-down cards) against the
installed card, each against expert (one card seat among experts, the guide study's deals and seed), paired by
deal: `python tuning/guide-iteration/bands.py CELLS_FILE OUT.json DEALS [SIZES]` (run from the repository root).
Points a game: the card seat's margin minus expert's in that seat (negative = the card better); the paired
difference is the new card's minus the installed card's on the same deals (negative = the new card better)."""
import json
import sys
import time
from pathlib import Path

import numpy as np
from scipy import stats

from gnoming_sim.analyses.framework.study import Context
from gnoming_sim.analyses.guide import design
from gnoming_sim.experiments.chart_check import _per_deal
from gnoming_sim.kernel.policy import registry

cells, out, deals = Path(sys.argv[1]), Path(sys.argv[2]), int(sys.argv[3])
sizes = [int(p) for p in (sys.argv[4] if len(sys.argv) > 4 else "2,4,6").split(",")]
new = registry.card_from_file(cells, name="card-bands")
seed = Context(seed=0).study_seed("guide")


def mean_ci(v: np.ndarray) -> dict:
    m, se = float(v.mean()), float(v.std(ddof=1) / np.sqrt(len(v)))
    h = float(stats.t.ppf(0.975, len(v) - 1)) * se
    return {"mean": round(m, 3), "ci95": [round(m - h, 3), round(m + h, 3)], "n": len(v)}


t0 = time.perf_counter()
rows = {}
for p in sizes:
    (_, d_old, *_), (_, d_new, *_) = _per_deal(("card", new), p, deals, seed, None, None, None, design.first_game(p),
                                               "expert")
    rows[str(p)] = {"installed": mean_ci(d_old), "bands": mean_ci(d_new), "bands_minus_installed": mean_ci(d_new - d_old)}
    for k, e in rows[str(p)].items():
        print(f"{p} players, {k}: {e['mean']:+.2f} [{e['ci95'][0]:+.2f}, {e['ci95'][1]:+.2f}] points a game vs expert"
              f"{' (paired)' if k.startswith('bands_') else ''}, n {e['n']}", flush=True)
out.write_text(json.dumps({"cells": str(cells), "deals": deals, "seed": seed, "vs_expert": rows,
                           "wall_s": round(time.perf_counter() - t0, 1)}, indent=1) + "\n")
print(f"wall {time.perf_counter() - t0:.0f} s")
