"""``analyse`` decides by what the player wants, on the issue's kind of position:
3 players, round 2, the player shows 12 with one card face down, the best rival 15 with three down.
Finishing (the 3 on the last face-down card) wins the game more often; playing on scores fewer own
points.  With ``--horizon game`` the verdict follows the win chance."""
from __future__ import annotations

import json
from pathlib import Path

import pytest

from gnoming_sim.game.position import from_toml
from gnoming_sim.game.rules import RuleConfig
from gnoming_sim.game.deck import PUBLISHED
from gnoming_sim.search.estimates import estimate

POSITION = Path(__file__).resolve().parents[1] / "search" / "data" / "three_players_finish.toml"


@pytest.fixture(scope="module")
def game():
    pos = from_toml(POSITION, RuleConfig(), PUBLISHED)
    return estimate(pos, seed=2, rollouts=400, horizon="game", second_policies=None)


def test_the_game_horizon_recommends_the_best_win_chance_not_the_fewest_own_points(game):
    rows = {r["key"]: r for r in game["options"]}
    by_win = max(rows, key=lambda k: rows[k]["mean"])
    by_points = min(rows, key=lambda k: rows[k]["points"]["mean"])
    assert game["best"] == by_win and rows[by_win]["finishes"]
    assert by_points != by_win and not rows[by_points]["finishes"]          # own points would mislead here
    assert game["separated"] and game["lead_on"] == "win"
    # the table's one sign: behind the best, positive is worse, in pp of win chance
    for r in game["options"]:
        assert r["diff"] == pytest.approx(rows[by_win]["mean"] - r["mean"], abs=0.5) or r["best"]
        assert r["best"] or r["diff"] > 0
    assert [r["rank"] for r in sorted(game["options"], key=lambda r: -r["mean"])][0] == 1


def test_the_verdict_line_names_the_finish(cli_run):
    args = ["analyse", "--position", str(POSITION), "--rollouts", "300", "--horizon", "game",
            "--second-policy", "none", "--seed", "2"]
    result = cli_run(args)
    verdict = next(line for line in result.stdout.splitlines() if line.startswith("verdict: "))
    assert "finishes is recommended" in verdict and "pp of win chance" in verdict, verdict
    assert "ranked by: chance of winning the game" in result.stdout
    res = json.loads(cli_run([*args, "--json"]).stdout)
    best = next(r for r in res["options"] if r["best"])
    assert best["finishes"] and best["mean"] == max(r["mean"] for r in res["options"])
