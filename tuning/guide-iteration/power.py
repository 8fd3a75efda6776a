"""The card's derivation checked with power: what the policy iteration could see, whether its changes survive a
multiplicity adjustment, and what each change wins in whole games on deals no choice saw.

* Convergence: the iteration's last estimate of each cell (``history.json``'s ``stats``: round 7, which changed no
  cell, for the 146 cells it saw; an earlier round for the rest) tested the cell's best other action against the
  card's at 2 clustered standard errors.  A cell's smallest change the round would have made with 80%
  chance is (2 + z_0.80) standard errors of that difference: its minimum detectable gain, pp of win chance a
  decision.  Reported per cell, and over the round's decisions (the share of valued decisions in cells whose
  minimum detectable gain is at most 1, 2 and 4 pp, and the decision-weighted median).
* Changes at a multiplicity-adjusted threshold: each round's changes' one-sided p values (gain / standard error,
  normal), Holm-adjusted over the cells the round tested (statsmodels; the untested rest enter at p = 1, which
  leaves the smallest p values' adjustment exact).
* Changes in whole games: the installed card against the installed card with that one change undone (the cell back
  to its action before the change), one seat among net players against net in that seat, the seat rotating with
  the deal (``gnoming_sim.experiments.rule_play.Table``), on fresh deals (game numbers ``2**58 + 2**53 + players * 2**40``):
  win chance (pp a game) and game-score margin (the seat's score minus the rivals' mean, points, lower wins),
  installed minus undone, 95% t intervals over deals.

Run from the repository root: ``.venv/bin/python tuning/guide-iteration/power.py --deals 6000 --out
tuning/guide-iteration/power.json``.
"""
from __future__ import annotations

import argparse
import json
import sys
import time
from pathlib import Path

import numpy as np
from scipy.stats import norm
from statsmodels.stats.multitest import multipletests

HERE = Path(__file__).parent
from gnoming_sim.experiments.ladder_stats import t_interval  # noqa: E402
from gnoming_sim.experiments.rule_play import Table  # noqa: E402
from gnoming_sim.tune.card.iterate import action_number, card_strategy, committed_cells  # noqa: E402

HISTORY = HERE / "stage4" / "history.json"
THRESHOLD = 2.0                 # the iteration's rule: a change beats the card's action by 2 standard errors
POWER_Z = norm.ppf(0.80)        # 80% power
FIRST = 2**58 + 2**53


def convergence(history: dict) -> dict:
    """The last round's minimum detectable gain per cell and over its decisions."""
    cells = []
    for cell, s in history["stats"].items():
        rivals = {a: g for a, g in s["gain"].items() if a != s["current"]}
        se = max((g["se"] for g in rivals.values()), default=0.0)
        cells.append({"cell": int(cell), "table": s["table"], "n": s["n"], "se": se,
                      "mdg_pp": (THRESHOLD + POWER_Z) * se if se > 0 else None})
    tested = [c for c in cells if c["mdg_pp"] is not None]
    n = np.array([c["n"] for c in tested], dtype=float)
    mdg = np.array([c["mdg_pp"] for c in tested])
    order = np.argsort(mdg)
    cum = np.cumsum(n[order]) / n.sum()
    median = float(mdg[order][np.searchsorted(cum, 0.5)])
    share = {str(x): float(n[mdg <= x].sum() / n.sum()) for x in (1, 2, 4)}
    return {"round": history["rounds"][-1]["round"], "cells_changed": history["rounds"][-1]["cells_changed"],
            "cells_tested": len(tested), "decisions": int(n.sum()), "weighted_median_mdg_pp": median,
            "share_of_decisions_with_mdg_at_most_pp": share, "cells": sorted(cells, key=lambda c: -c["n"])}


def adjusted(history: dict) -> list[dict]:
    """Every change of every round with its one-sided p value, Holm-adjusted over the cells that round tested."""
    out = []
    for r in history["rounds"]:
        ch = r["changes"]
        if not ch:
            continue
        p = [float(norm.sf(c["gain_pp"] / c["se"])) for c in ch]
        holm = multipletests(p + [1.0] * (r["cells_seen"] - len(ch)), method="holm")[1][:len(ch)]
        for c, pi, hi in zip(ch, p, holm):
            out.append({"round": r["round"], "cell": c["cell"], "table": c["table"], "from": c["from"], "to": c["to"],
                        "gain_pp": c["gain_pp"], "se": c["se"], "cells_tested": r["cells_seen"], "p": pi,
                        "p_holm": float(hi), "holds_after_holm": bool(hi < 0.05)})
    return out


def played(changes: list[dict], deals: int, sizes, seed: int) -> list[dict]:
    """Each change's worth in whole games: the installed card minus the card with that change undone."""
    cells = committed_cells()
    card = card_strategy(cells, "card")
    rows = [dict(c, by_players={}) for c in changes]
    for p in sizes:
        table = Table(p, deals, seed, FIRST + p * 2**40)
        base = table.versus(card)
        w0, m0 = base["win"], base["margin"]
        for row in rows:
            undone = dict(cells)
            undone[row["cell"]] = action_number(row["table"], row["from"])
            if undone == cells:
                row["by_players"][str(p)] = None
                continue
            got = table.versus(card_strategy(undone, "card-undone"))
            w, m = got["win"], got["margin"]
            row["by_players"][str(p)] = {"win_pp": t_interval(w0 - w), "margin": t_interval(m0 - m)}
            print(f"{p} players, cell {row['cell']} {row['from']} -> {row['to']}: {np.mean(w0 - w):+.2f} pp, "
                  f"{np.mean(m0 - m):+.2f} points", flush=True)
    return rows


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--deals", type=int, default=6000)
    ap.add_argument("--players", type=int, nargs="+", default=[2, 4, 6])
    ap.add_argument("--seed", type=int, default=61)
    ap.add_argument("--out", type=Path, required=True)
    a = ap.parse_args(argv)
    t0 = time.time()
    history = json.loads(HISTORY.read_text())
    conv = convergence(history)
    print(f"round {conv['round']}: {conv['cells_tested']} cells tested, {conv['decisions']} decisions; decision-"
          f"weighted median minimum detectable gain {conv['weighted_median_mdg_pp']:.2f} pp; share of decisions "
          f"at <= 1/2/4 pp: {conv['share_of_decisions_with_mdg_at_most_pp']}", flush=True)
    changes = adjusted(history)
    for c in changes:
        print(f"round {c['round']} cell {c['cell']}: {c['from']} -> {c['to']} +{c['gain_pp']} pp, p {c['p']:.2g}, "
              f"Holm over {c['cells_tested']}: {c['p_holm']:.2g}", flush=True)
    out = {"command": "tuning/guide-iteration/power.py " + " ".join(argv or sys.argv[1:]), "deals": a.deals,
           "seed": a.seed, "first_game": "2**58 + 2**53 + players * 2**40", "threshold_se": THRESHOLD, "power": 0.8,
           "convergence": conv, "changes": played(changes, a.deals, a.players, a.seed)}
    out["seconds"] = round(time.time() - t0, 1)
    a.out.write_text(json.dumps(out, indent=1) + "\n")
    return 0


if __name__ == "__main__":
    sys.exit(main())
