"""Two diagnostics of the take-or-draw cells where the card and expert disagree most (issue 50 item 3; cells 8, 10,
15, 22: a 3-4 or 5-6 or 7-8 pile card that pairs in a line, a 3-4 that replaces a face-up card by 3-5; the card
draws, expert takes in 55-90% of them): (1) the oracle's take-minus-draw at every such decision of 4-player games
of experts (not only the card's own games among net, as the policy iteration samples), the card in the seat to
move, net elsewhere; (2) the card with each cell set to take, played at 4 players among experts against expert in
its seat on deals of their own (not the guide study's), paired by deal: points a game.
`python tuning/guide-iteration/cell_check.py PER_CELL ROLLOUTS DEALS OUT.json` from the repository root."""
import json
import sys
import time
from collections import defaultdict

import numpy as np

from gnoming_sim.experiments.chart_check import CHECK_FIRST, versus_expert_each
from gnoming_sim.game.deck import PUBLISHED
from gnoming_sim.game.fields import F_SCORE
from gnoming_sim.game.record_trace import decisions
from gnoming_sim.game.rules import RuleConfig
from gnoming_sim.kernel.engine import simulate
from gnoming_sim.kernel.policy import chart as C
from gnoming_sim.search import oracle
from gnoming_sim.search.card_view import card_options
from gnoming_sim.stats import cluster_mean
from gnoming_sim.tune.card_iteration import card_strategy, committed_cells

CELLS = (8, 10, 15, 22)
per_cell, rollouts, deals, out = int(sys.argv[1]), int(sys.argv[2]), int(sys.argv[3]), sys.argv[4]
P, FIRST = 4, 2**59 + 2**57 + 2**51
t0 = time.perf_counter()
cells = committed_cells()
card = card_strategy(cells)
res = simulate(P, ["expert"] * P, games=300, seed=8, trace=True, first_game=FIRST)
found = defaultdict(list)
for g in range(300):
    for seat in range(P):
        for d in decisions(res.deals[g], res.traces[g], P, seat, RuleConfig(), PUBLISHED,
                           res.round_stats[g, :, :, F_SCORE]):
            for co in card_options(d.position, card):
                if co["cell"] in CELLS and co["actions"]["take"] != co["actions"]["draw"]:
                    found[co["cell"]].append((g, d.position, co["actions"]))
rng = np.random.default_rng(0)
report = {"cells": {}, "played": {}}
for c in CELLS:
    pick = sorted(rng.choice(len(found[c]), size=min(per_cell, len(found[c])), replace=False).tolist())
    diffs, games = [], []
    for j, i in enumerate(pick):
        g, pos, acts = found[c][i]
        keys, win = oracle.win_samples(pos, [acts["take"], acts["draw"]], rollouts=rollouts, seed=13,
                                       first=(c * 1000 + j) * rollouts, policies=oracle.seats_with(pos, card))
        m = dict(zip(keys, 100 * win.mean(axis=0)))
        diffs.append(m[acts["take"]] - m[acts["draw"]])
        games.append(g)
    cm = cluster_mean(diffs, games)
    report["cells"][c] = {k: cm[k] for k in ("mean", "ci95", "n", "clusters")} | {"found": len(found[c])}
    print(f"cell {c}: take - draw {cm['mean']:+.2f} pp [{cm['ci95'][0]:+.2f}, {cm['ci95'][1]:+.2f}], n {cm['n']} "
          f"(of {len(found[c])} in 300 expert games) ({time.perf_counter() - t0:.0f} s)", flush=True)
first = CHECK_FIRST + 2**50          # deals of their own
variants = {"committed": dict(cells)} | {f"cell {c} take": {**cells, c: C.A_TAKE} for c in CELLS} \
    | {"all four take": {**cells, **{c: C.A_TAKE for c in CELLS}}}
strategies = [card_strategy(v, name=f"card{i}") for i, v in enumerate(variants.values())]
from gnoming_sim.kernel.policy import registry  # noqa: E402

with registry.using(registry.Registry(registry.BUILTIN + tuple(strategies))):
    got = versus_expert_each([s.name for s in strategies], P, deals, 21, first_game=first)
for name, r in zip(variants, got):
    e = r["diff"]
    report["played"][name] = {"points": e, "win": r["win"]}
    print(f"{name}: {e['mean']:+.2f} [{e['ci95'][0]:+.2f}, {e['ci95'][1]:+.2f}] points a game vs expert, n {e['n']}",
          flush=True)
report["wall_s"] = round(time.perf_counter() - t0, 1)
json.dump(report, open(out, "w"), indent=1)
print(f"wall {time.perf_counter() - t0:.0f} s")
