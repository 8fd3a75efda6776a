"""What net knows that the card does not: each class of decisions where the card and net part, switched to net's
answer alone, played in whole games.

One seat among net players against net in that seat (``experiments.rule_play.Table``: the seat rotating with the deal, every deal
played on the same game numbers), on deals no choice saw (game numbers ``CARD_GAP_FIRST + players * 2**40``): the
card, the card with net's answers in one class of decisions (``registry.with_net``; the classes are
the first six of ``dispatch.NETC_NAMES``: take or draw, finish or play on, keep or throw away, over a face-up or a
face-down card, which position, a bounce; a class is where the two answers differ in that way, so the card is unchanged wherever they agree), and the card with
net's answers in every class (which plays as net: a check). Per class: its gain over the card, paired by deal, in
win chance (pp a game) and game-score margin (the seat's score minus the rivals' mean, points a game, lower wins),
with 95% t intervals over deals and Holm-adjusted p values over the classes (statsmodels).

Run from the repository root: ``.venv/bin/python tuning/rules/card_gap.py --deals 4000 --out tuning/rules/card_gap.json``.
"""
from __future__ import annotations

import argparse
import json
import sys
import time
from pathlib import Path

import numpy as np
from scipy import stats as sps
from statsmodels.stats.multitest import multipletests

from gnoming_sim.experiments.ladder_stats import t_interval  # noqa: E402
from gnoming_sim.experiments.rule_play import Table  # noqa: E402
from gnoming_sim.kernel.policy import registry  # noqa: E402
from gnoming_sim.kernel.policy.dispatch import NETC_NAMES  # noqa: E402

CARD_GAP_FIRST = 2**58 + 2**54
CLASSES = NETC_NAMES[:6]   # the card plays the last three (hazard, pile, first flips) as net does
ALL = (1 << len(CLASSES)) - 1


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--deals", type=int, default=4000)
    ap.add_argument("--players", type=int, nargs="+", default=[2, 4, 6])
    ap.add_argument("--seed", type=int, default=60)
    ap.add_argument("--out", type=Path, required=True)
    a = ap.parse_args(argv)
    t0 = time.time()
    out = {"command": "tuning/rules/card_gap.py " + " ".join(argv or sys.argv[1:]), "deals": a.deals, "seed": a.seed,
           "first_game": f"2**58 + 2**54 + players * 2**40", "classes": list(CLASSES), "sizes": {}}
    for p in a.players:
        table = Table(p, a.deals, a.seed, CARD_GAP_FIRST + p * 2**40)
        got = table.versus(registry.get("card"))
        w_card, m_card = got["win"], got["margin"]
        got = table.versus(registry.with_net(registry.get("card"), ALL, "card+net-all"))
        w_all, m_all = got["win"], got["margin"]
        rows = []
        for i, name in enumerate(CLASSES):
            got = table.versus(registry.with_net(registry.get("card"), 1 << i, f"card+net-{i}"))
            w, m = got["win"], got["margin"]
            dw, dm = w - w_card, m - m_card
            p_value = float(sps.ttest_1samp(dw, 0.0).pvalue)
            rows.append({"class": name, "win_gain_pp": t_interval(dw), "margin_gain": t_interval(dm), "p": p_value})
        holm = multipletests([r["p"] for r in rows], method="holm")[1]
        for r, h in zip(rows, holm):
            r["p_holm"] = float(h)
        rows.sort(key=lambda r: -r["win_gain_pp"]["mean"])
        out["sizes"][str(p)] = {"card_vs_net": {"win_pp": t_interval(w_card), "margin": t_interval(m_card)},
                                "all_classes_vs_net": {"win_pp": t_interval(w_all), "margin": t_interval(m_all)},
                                "classes": rows}
        print(f"{p} players: card - net {np.mean(w_card):+.2f} pp, {np.mean(m_card):+.2f} points; every class "
              f"net's {np.mean(w_all):+.2f} pp", flush=True)
        for r in rows:
            print(f"   {r['class']:<24} {r['win_gain_pp']['mean']:+.2f} pp {r['win_gain_pp']['ci95']}  "
                  f"{r['margin_gain']['mean']:+.2f} points  Holm p {r['p_holm']:.3g}", flush=True)
    out["seconds"] = round(time.time() - t0, 1)
    a.out.write_text(json.dumps(out, indent=1) + "\n")
    return 0


if __name__ == "__main__":
    sys.exit(main())
