"""How much of the card's loss to expert is the take-or-draw cells' coarseness (issue 50 item 3): in the four cells
where the card and expert disagree most (8, 10, 15, 22: a 3-4, 5-6 or 7-8 pile card that pairs in a line, a 3-4
that replaces a face-up card by 3-5), 4-player games of experts, a sample of the decisions valued by the oracle
(take minus draw, win chance, the card in the seat to move, net elsewhere) and split by expert's own choice and by
features a player sees (own face-down cards, the turn of the round): what a finer cell could win.
`python tuning/guide-iteration/coarse.py PER_CELL ROLLOUTS OUT.json` from the repository root."""
import json
import sys
import time
from collections import defaultdict

import numpy as np

from gnoming_sim.game.deck import PUBLISHED
from gnoming_sim.game.fields import F_SCORE
from gnoming_sim.game.record_trace import decisions
from gnoming_sim.game.rules import RuleConfig
from gnoming_sim.kernel.engine import simulate
from gnoming_sim.search import oracle
from gnoming_sim.search.card_view import card_options
from gnoming_sim.stats import cluster_mean
from gnoming_sim.tune.card_iteration import card_strategy, committed_cells

CELLS = (8, 10, 15, 22)
per_cell, rollouts, out = int(sys.argv[1]), int(sys.argv[2]), sys.argv[3]
P, FIRST, GAMES = 4, 2**59 + 2**57 + 2**52, 300
t0 = time.perf_counter()
card = card_strategy(committed_cells())
res = simulate(P, ["expert"] * P, games=GAMES, seed=9, trace=True, first_game=FIRST)
found = defaultdict(list)
for g in range(GAMES):
    for seat in range(P):
        for d in decisions(res.deals[g], res.traces[g], P, seat, RuleConfig(), PUBLISHED,
                           res.round_stats[g, :, :, F_SCORE]):
            for co in card_options(d.position, card):
                a = co["actions"]
                if co["cell"] in CELLS and a["take"] != a["draw"]:
                    found[co["cell"]].append({"g": g, "pos": d.position, "a": a, "cell": co["cell"],
                                              "expert_takes": d.played == a["take"]})
rng = np.random.default_rng(1)
rows = []
for c in CELLS:
    for j, i in enumerate(sorted(rng.choice(len(found[c]), size=min(per_cell, len(found[c])), replace=False))):
        r = found[c][i]
        pos = r["pos"]
        keys, win = oracle.win_samples(pos, [r["a"]["take"], r["a"]["draw"]], rollouts=rollouts, seed=17,
                                       first=(c * 1000 + j) * rollouts, policies=oracle.seats_with(pos, card))
        m = dict(zip(keys, 100 * win.mean(axis=0)))
        rows.append({"cell": c, "g": r["g"], "gain": float(m[r["a"]["take"]] - m[r["a"]["draw"]]),
                     "expert_takes": r["expert_takes"], "fd": int(pos.face_down()[pos.me]), "turn": int(pos.turn),
                     "round": int(pos.round)})
print(f"{len(rows)} decisions valued ({time.perf_counter() - t0:.0f} s)", flush=True)


def line(label, rs):
    if len(rs) < 5 or len({r["g"] for r in rs}) < 2:
        return None
    cm = cluster_mean([r["gain"] for r in rs], [r["g"] for r in rs])
    print(f"  {label}: take - draw {cm['mean']:+.2f} [{cm['ci95'][0]:+.2f}, {cm['ci95'][1]:+.2f}] pp, n {cm['n']}")
    return {k: cm[k] for k in ("mean", "ci95", "n")}


report = {}
for c in CELLS + ("all",):
    rs = [r for r in rows if c == "all" or r["cell"] == c]
    print(f"cell {c}: expert takes {np.mean([r['expert_takes'] for r in rs]):.0%}")
    e = report[str(c)] = {"all": line("all", rs), "expert takes": line("where expert takes", [r for r in rs if r["expert_takes"]]),
                          "expert draws": line("where expert draws", [r for r in rs if not r["expert_takes"]])}
    for lo, hi in ((0, 2), (3, 4), (5, 9)):
        e[f"fd {lo}-{hi}"] = line(f"own face-down {lo}-{hi}", [r for r in rs if lo <= r["fd"] <= hi])
    # a card that took where expert takes: its gain over drawing, per such decision
    e["follow_expert"] = line("following expert's choice (take where it takes) vs always draw",
                              [dict(r, gain=r["gain"] * r["expert_takes"]) for r in rs])
json.dump({"rows": rows, "summary": report, "wall_s": round(time.perf_counter() - t0, 1)}, open(out, "w"), indent=1)
print(f"wall {time.perf_counter() - t0:.0f} s")
