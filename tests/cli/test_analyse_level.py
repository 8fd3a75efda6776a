"""`analyse --level`: the value network's levels beside the full rollouts: 0-ply (no rollout) and truncated
rollouts (the full rollouts' round, then the network), each refused in one line where it does not apply."""
from __future__ import annotations

import json
import pytest
from _examples import POSITION




def test_zero_ply_prints_every_option_ranked_with_its_deals(cli_run):
    out = cli_run(["analyse", "--position", POSITION, "--level", "0-ply"]).stdout
    assert "0-ply" in out and "64 deals" in out and "best: " in out
    assert out.count("put at ") >= 9 and "throw away" in out
    res = json.loads(cli_run(["analyse", "--position", POSITION, "--level", "0-ply", "--rollouts", 16, "--json"]).stdout)
    assert res["level"] == "0-ply" and res["n"] == 16 and res["position_id"].startswith("g1:")
    assert sorted(r["rank"] for r in res["options"]) == list(range(1, len(res["options"]) + 1))


def test_truncated_rollouts_share_the_full_rollouts_round(cli_run):
    full = json.loads(cli_run(["analyse", "--position", POSITION, "--rollouts", 200, "--json"]).stdout)
    cut = json.loads(cli_run(["analyse", "--position", POSITION, "--rollouts", 200, "--level", "truncated",
                              "--json"]).stdout)
    assert "level" not in full and cut["level"].startswith("truncated")
    f = {r["key"]: r for r in full["options"]}
    for r in cut["options"]:   # the same round, rollout by rollout: the same finishing and bonus shares
        assert r["p_finish"] == f[r["key"]]["p_finish"] and r["p_bonus"] == f[r["key"]]["p_bonus"]
    assert [r["mean"] for r in cut["options"]] != [f[r["key"]]["mean"] for r in cut["options"]]


@pytest.mark.parametrize("extra, words", [
    (["--level", "0-ply", "--why"], "--why needs rollouts"),
    (["--level", "0-ply", "--half-width", "1"], "--half-width needs rollouts"),
    (["--level", "0-ply", "--follow-card"], "--follow-card needs rollouts"),
    (["--level", "0-ply", "--second-policy", "expert"], "--second-policy needs rollouts"),
    (["--level", "truncated", "--horizon", "round"], "goes with --horizon game only"),
    (["--level", "0-ply", "--rollouts", "0"], "--rollouts must be in"),
    (["--level", "3-ply"], "Invalid value"),
])
def test_what_a_level_does_not_go_with_is_one_line(cli_run, extra, words):
    result = cli_run(["analyse", "--position", POSITION, *extra], code=2)
    assert words in result.output and len(result.output.strip().splitlines()) == 1, result.output
