"""``analyse --why`` (search/why.py): the margin's components add up, a told continuation is the very
rollout of the analysis, and the two stories share the hidden cards."""
from __future__ import annotations

import json
from pathlib import Path

import numpy as np
import pytest
from click.testing import CliRunner

from gnoming_sim.cli.app import cli
from gnoming_sim.game.deck import PUBLISHED
from gnoming_sim.game.position import from_toml
from gnoming_sim.game.rules import RuleConfig

EXAMPLE = Path(__file__).resolve().parents[2] / "examples" / "position.toml"


@pytest.fixture(scope="module")
def pos():
    return from_toml(EXAMPLE, RuleConfig(), PUBLISHED)


@pytest.fixture(scope="module")
def why(pos):
    from gnoming_sim.cli.why_text import tell_samples
    from gnoming_sim.search.why import explain

    return tell_samples(explain(pos, ["pos1", "discard"], "expert", seed=3, rollouts=300, samples=3, horizon="round"),
                        pos)


def test_the_components_add_up_to_the_margin(why):
    c = {x["key"]: x for x in why["components"]}
    assert c["margin"]["diff"] == pytest.approx(c["own"]["diff"] + c["bonus"]["diff"] + c["rivals"]["diff"])
    assert all(x["n"] == 300 and x["ci95"][0] <= x["diff"] <= x["ci95"][1] for x in why["components"])
    assert why["deciding"]["key"] in ("own", "bonus", "rivals") and 1 / 3 <= why["deciding"]["share"] <= 1


def test_a_told_continuation_is_the_analysis_rollout(pos, why):
    """The score a story ends with is the one the batch kernel gave rollout i of that option (same
    determinization, same play stream), for both options."""
    from gnoming_sim.search.analyse import run_rollouts, setup
    from gnoming_sim.search.rollout import X_SCORE

    s = setup(pos, ["expert"])
    out, _ = run_rollouts(s, 300, 3, horizon="round")
    k = {o.key: j for j, o in enumerate(s.options)}
    assert len(why["samples"]) == 3
    for smp in why["samples"]:
        for st in smp["stories"]:
            assert st["score"] == out[smp["rollout"], k[st["key"]], X_SCORE]
            assert st["lines"][0].startswith("Turn 13 of the round: seat 1 (you)")
            assert any(line.strip().startswith(f"Scoring, round {pos.round + 1}") for line in st["lines"])


def test_the_two_options_are_told_on_the_same_hidden_cards(pos):
    """Every option's continuation of rollout i is dealt the same face-down cards (common random numbers)."""
    from gnoming_sim.search.analyse import setup
    from gnoming_sim.search.why import traced

    s = setup(pos, ["expert"])
    k = pos.players * 9
    for i in (0, 7):
        snaps = [traced(pos, s, j, i, 3, "round")[2] for j in range(len(s.options))]
        assert all(np.array_equal(x[:2 * k], snaps[0][:2 * k]) for x in snaps)
    assert not np.array_equal(traced(pos, s, 0, 0, 3, "round")[2][:k], traced(pos, s, 0, 1, 3, "round")[2][:k])


def run(*args, code=0):
    result = CliRunner().invoke(cli, [str(a) for a in args])
    assert result.exit_code == code, (result.output, result.exception)
    return result


def test_analyse_why_text_and_json():
    out = run("analyse", "--position", EXAMPLE, "--rollouts", 200, "--policy", "expert", "--second-policy", "none",
              "--why", "--versus", "discard").stdout
    assert "why: throw away 5 against" in out and "what makes the difference:" in out
    assert "a typical continuation" in out and "Scoring, round 1" in out
    res = json.loads(run("analyse", "--position", EXAMPLE, "--rollouts", 200, "--policy", "expert",
                         "--second-policy", "none", "--why", "--json").stdout)
    assert res["why"]["options"][0]["key"] == res["best"] and res["why"]["options"][1]["key"] == res["runner_up"]


@pytest.mark.parametrize("args, words", [
    (["--versus", "pos1"], "--versus names the option --why explains"),
    (["--why", "--versus", "zzz"], "'zzz' is not a legal option here"),
])
def test_why_errors_are_one_line(args, words):
    res = run("analyse", "--position", EXAMPLE, "--rollouts", 50, "--second-policy", "none", *args, code=2)
    assert words in res.output and len(res.output.strip().splitlines()) == 1
