"""The finish-or-play-on study's pieces: decisions found in traces are real finishing chances,
and one decision's evaluation is consistent."""
from __future__ import annotations

from gnoming_sim.batch.finish_study import boundary, decisions, evaluate
from gnoming_sim.game.cards import HIDDEN

import pandas as pd


def test_decisions_are_finishing_chances():
    found, rounds, chances = decisions("rusher", 3, 20, seed=4, limit=10)
    assert found and rounds > 0 and chances >= len(found)
    assert rounds >= 3 * len(found)          # one decision per game at most
    for pos, chosen in found:
        assert pos.decision == "place" and pos.finisher < 0
        assert (pos.layouts[pos.me] == HIDDEN).sum() == 1
        fin = [o.key for o in pos.options() if o.finishes]
        assert len(fin) == 1 and chosen in [o.key for o in pos.options()]
        assert chosen == fin[0]              # rusher always finishes when it can


def test_evaluate_and_boundary():
    found, _, _ = decisions("greedy", 3, 30, seed=5, limit=4)
    rows = [evaluate(pos, chosen, "greedy", 200, 1) for pos, chosen in found]
    for r in rows:
        assert r["n"] == 200 and r["diff_se"] >= 0
        assert r["gap"] == r["own_visible"] - r["best_rival_visible"]
    table = boundary(pd.DataFrame(rows))
    assert table["n"].sum() == len(rows)
