"""The finish-or-play-on study's driver: the chances found in traces are real finishing chances,
with the option the game's player took, and one decision's evaluation is consistent."""
from __future__ import annotations

from gnoming_sim.search.finishing import finish_gap_of
from gnoming_sim.search.options import legal_options
from gnoming_sim.analyses.finish_play_on.decisions import evaluate, game_chances
from gnoming_sim.game.cards import HIDDEN
from gnoming_sim.kernel.engine import simulate


def _chances(preset: str, games: int, seed: int) -> list:
    res = simulate(players=3, strategies=[preset], games=games, seed=seed, trace=True, threads=1)
    return [c for g in range(games) for c in game_chances(res, g, res.rules, res.deck, f"{preset} game {g}")]


def test_chances_are_finishing_chances_with_the_choice_taken():
    found = _chances("rusher", 20, seed=4)
    assert found
    finished = 0
    for pos, chosen in found:
        assert pos.decision == "place" and pos.finisher < 0
        assert (pos.layouts[pos.me] == HIDDEN).sum() == 1
        fin = [o.key for o in legal_options(pos) if o.finishes]
        assert len(fin) == 1 and chosen in [o.key for o in legal_options(pos)]
        finished += chosen == fin[0]
    # rusher finishes whenever its estimate allows (finish_margin -100): at nearly every chance
    assert finished >= 0.9 * len(found), (finished, len(found))


def test_evaluate_is_consistent():
    found = _chances("greedy", 30, seed=5)[:3]
    assert found
    for pos, chosen in found:
        r = evaluate(pos, chosen, "greedy", 200, 1)
        assert r["n"] == 200 and r["diff_se"] >= 0 and r["regret_se"] >= 0
        assert r["gap_visible"] == r["own_visible"] - r["best_rival_visible"]
        assert r["gap"] == finish_gap_of(pos) and r["hand"] == pos.hand
        assert r["finish_pays"] == (r["diff"] < 0)
