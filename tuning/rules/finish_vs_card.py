"""Where the pocket finishing rule (rule 5) and the card's finishing cells part, and what the rule's answer costs there.

The card's finish table bins the same things rule 5 reads (the gap: the finished score minus the best rival's visible
score; the rivals' mean face-down cards; the table size), with bin edges at the rule's thresholds (a gap of 5 and
10, 2 face-down cards), so rule 5 gives one answer per cell: finish when the gap is below 5, or below 10 while the
rivals average 2 or more cards face down.  For every cell where that answer is not the installed card's: the rule's
answer minus the card's, in win chance a decision (pp), from the policy iteration's last estimate of the cell
(``tuning/guide-iteration/stage4/history.json``'s ``stats``: the oracle's rollouts at decisions the card met there,
clustered by game, with 95% intervals and n decisions).

Run from the repository root: ``.venv/bin/python tuning/rules/finish_vs_card.py --out tuning/rules/finish_vs_card.json``.
"""
from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path

from gnoming_sim.kernel.policy import card as C
from gnoming_sim.kernel.policy import registry
from gnoming_sim.tune.card.iterate import action_name, cell_words, committed_cells

HISTORY = Path(__file__).parents[1] / "guide-iteration" / "stage4" / "history.json"


def rule_finishes(gap_bin: int, ofd_bin: int) -> bool:
    """Rule 5's answer in a finish-table cell (the bins' edges are the rule's thresholds; checked below)."""
    settings = registry.RULES_SETTINGS
    gap_hi = (C.GAP_EDGES + (float("inf"),))[gap_bin]          # the bin's upper edge (exclusive)
    ofd_lo = ((float("-inf"),) + C.OFD_EDGES)[ofd_bin]        # the bin's lower edge
    if gap_hi <= settings["rules.finish_gap"]:
        return True
    return gap_hi <= settings["rules.finish_gap2"] and ofd_lo >= settings["rules.finish_rival_fd"]


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--out", type=Path, required=True)
    a = ap.parse_args(argv)
    s = registry.RULES_SETTINGS
    edges = set(C.GAP_EDGES)
    if not {s["rules.finish_gap"], s["rules.finish_gap2"]} <= edges or s["rules.finish_rival_fd"] not in C.OFD_EDGES:
        raise SystemExit("rule 5's thresholds are not the finish table's bin edges: a cell has no single answer")
    cells, stats = committed_cells(), json.loads(HISTORY.read_text())["stats"]
    rows, agree = [], 0
    for g in range(C.N_GAP):
        for f in range(C.N_OFD):
            for z in range(C.N_SIZE):
                cell = C.finish_cell_of(g, f, z)
                rule = "finish" if rule_finishes(g, f) else "play on"
                card = action_name(cell, cells[cell])
                if rule == card:
                    agree += 1
                    continue
                st = stats.get(str(cell))
                cost = st["gain"][rule] if st else None
                rows.append({"cell": cell, **cell_words(cell), "rule": rule, "card": card,
                             "rule_minus_card_pp": cost and {"mean": cost["mean"], "ci95": cost["ci95"],
                                                             "n": cost["n"], "clusters": cost["clusters"]}})
    out = {"command": "tuning/rules/finish_vs_card.py " + " ".join(argv or sys.argv[1:]), "cells": C.N_GAP * C.N_OFD * C.N_SIZE,
           "agree": agree, "differ": rows}
    a.out.write_text(json.dumps(out, indent=1) + "\n")
    for r in rows:
        c = r["rule_minus_card_pp"]
        print(r["gap"], r["rivals_fd"], r["players"], "rule", r["rule"], "card", r["card"],
              "not estimated" if c is None else f"{c['mean']:+.2f} {c['ci95']} n {c['n']}")
    print(f"{agree} of {out['cells']} cells agree")
    return 0


if __name__ == "__main__":
    sys.exit(main())
