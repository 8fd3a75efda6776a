"""The ladder's top rung, the evaluator's player (preset ``value``: the value network at 0-ply), on the first deals
of confirm.py's ladder: one ``value`` seat among a table of net or of expert against the table's player in that
seat, the seat rotating, through ``gnoming_sim.simulate`` (the value player's own batch kernel).  Slow (about 60
games a second at 4 players), so fewer deals than the other rungs: ``--deals`` a table size and table.  Writes
value_rung.json in result.json's ladder form."""
from __future__ import annotations

import argparse
import json
import sys
import time
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).parent))
from confirm import CONFIRM_FIRST, SIZES, est  # noqa: E402

import gnoming_sim  # noqa: E402
from gnoming_sim.experiments.card_check import focal_seat  # noqa: E402


def main(argv=None):
    ap = argparse.ArgumentParser()
    ap.add_argument("--deals", type=int, default=400)
    ap.add_argument("--seed", type=int, default=58)
    ap.add_argument("--out", default=str(Path(__file__).with_name("value_rung.json")))
    a = ap.parse_args(argv)
    t0 = time.time()
    out = {}
    for table in ("net", "expert"):
        for p in SIZES:
            first = CONFIRM_FIRST + 2**55 + p * 2**40      # the ladder's deals (confirm.py), its first --deals
            kw = dict(players=p, games=a.deals, seed=a.seed, first_game=first, rotate=True)
            base = gnoming_sim.simulate(strategies=[table], **kw)
            x = gnoming_sim.simulate(strategies=["value"] + [table] * (p - 1), **kw)
            seat = np.argmax(x.seat_strategy == 0, axis=1)
            d_x, w_x = focal_seat(x.totals, x.win_credit, seat)
            d_n, w_n = focal_seat(base.totals, base.win_credit, seat)
            out.setdefault(table, {})[str(p)] = {"value": {
                "win_vs_table": est(100.0 * (w_x - w_n), "pp"), "margin_vs_table": est(d_x - d_n, "points"),
                "win": est(100.0 * w_x, "pp"), "margin": est(d_x, "points")}}
            print(table, p, out[table][str(p)]["value"]["win_vs_table"], flush=True)
    res = {"deals": a.deals, "seed": a.seed, "first_game": CONFIRM_FIRST + 2**55,
           "table": "one value seat among the table's players, against that player in the seat", "tables": out,
           "wall_s": round(time.time() - t0, 1)}
    Path(a.out).write_text(json.dumps(res, indent=1))


if __name__ == "__main__":
    main()
