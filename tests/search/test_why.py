"""``analyse --why`` (search/why.py): the margin's components add up, a told continuation is the very
rollout of the analysis, and the two stories share the hidden cards."""
from __future__ import annotations

import json
import re
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
    from gnoming_sim.search.estimates import run_rollouts, setup
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
    from gnoming_sim.search.estimates import setup
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


FINISH_3P = EXAMPLE.parent / "finish-3p-round2.toml"


def _variant(tmp_path, last_round: bool = False, finished: bool = False) -> Path:
    """finish-3p-round2.toml in the game's last round (seat 2 starting it, as the rules rotate the start) and/or
    with seat 2 finished on the turn before (its face-down cards turned up), written to ``tmp_path``."""
    text = FINISH_3P.read_text(encoding="utf-8")
    if last_round:
        text = text.replace("starter = 1 ", "starter = 2 ").replace("round = 2 ", "round = 3 ").replace(
            "turn = 20 ", "turn = 19 ")
    if finished:
        text = text.replace('["8", "7", "?",    "?", "6", "?",     "5", "?", "8"]',
                            '["8", "7", "5",    "6", "6", "7",     "5", "3", "8"]').replace(
            "removed_hazards = 0", "removed_hazards = 0\nfinisher = 2")
    path = tmp_path / f"variant-{int(last_round)}{int(finished)}.toml"
    path.write_text(text, encoding="utf-8")
    return path


def test_the_parts_that_cannot_differ_are_decided_by_the_position_and_rules(tmp_path):
    from gnoming_sim.search.why import fixed_parts

    assert fixed_parts(from_toml(FINISH_3P), "game") == {}          # round 2 of 3, nobody finished: all can differ
    last = from_toml(_variant(tmp_path, last_round=True))
    assert set(fixed_parts(last, "game")) == {"later"} and fixed_parts(last, "round") == {}
    both = fixed_parts(from_toml(_variant(tmp_path, last_round=True, finished=True)), "game")
    assert both == {"bonus": "seat 2 has finished this round, so you cannot earn it",
                    "later": "this is the game's last round"}
    none = from_toml(FINISH_3P, RuleConfig(early_finish_bonus=0), PUBLISHED)
    assert fixed_parts(none, "game") == {"bonus": "the rules give no early-finish bonus"}


def test_a_part_left_out_is_zero_in_every_rollout_of_every_option(tmp_path):
    """What fixed_parts leaves out is identically zero: in the last round with a finisher, every rollout of every
    option scores no bonus for the player and no later round; the parts it keeps do differ."""
    from gnoming_sim.search.estimates import run_rollouts, setup
    from gnoming_sim.search.rollout import X_BONUS, X_GAME, X_SCORE, X_WIN
    from gnoming_sim.search.why import components, fixed_parts

    pos = from_toml(_variant(tmp_path, last_round=True, finished=True))
    out, _ = run_rollouts(setup(pos, ["net"]), 300, 5, horizon="game")
    assert not out[:, :, X_BONUS].any()
    assert not (out[:, :, X_GAME] - pos.scores[pos.me] - out[:, :, X_SCORE]).any()
    kept = components(out[:, 0], out[:, 1], float(pos.scores[pos.me]), "game", fixed_parts(pos, "game"))
    assert [c["key"] for c in kept] == ["own", "rivals", "margin", "win"]
    assert any(x != 0 for x in out[:, 0, X_WIN] - out[:, 1, X_WIN])


def test_analyse_why_does_not_print_a_part_that_cannot_differ(tmp_path):
    """The last round with a finisher: no bonus row and no later-rounds row, one line saying why; round 2 of 3: the
    later rounds are printed (a reshuffle can move the play stream they go on with)."""
    args = ("--rollouts", 200, "--second-policy", "none", "--why")
    out = run("analyse", "--position", _variant(tmp_path, last_round=True, finished=True), *args).stdout
    rows = out.split("why: ", 1)[1].split("what makes the difference:")[0]
    assert _printed_parts(rows) == ["own cards (round score before the bonus)",
                                    "the rivals' points held back (minus their mean round score's change)",
                                    "margin over the rivals (own round score minus the rivals' mean)",
                                    "chance of winning the game lost"]
    assert ("not shown, as it cannot differ here: the early-finish bonus (seat 2 has finished this round, so you "
            "cannot earn it); your later rounds (this is the game's last round)") in rows
    res = json.loads(run("analyse", "--position", _variant(tmp_path, last_round=True, finished=True), *args,
                         "--json").stdout)
    assert [o["key"] for o in res["why"]["omitted"]] == ["bonus", "later"]
    assert {c["key"] for c in res["why"]["components"]} == {"own", "rivals", "margin", "win"}
    earlier = run("analyse", "--position", FINISH_3P, *args).stdout.split("what makes the difference:")[0]
    assert "your later rounds" in _printed_parts(earlier) and "not shown" not in earlier


def _printed_parts(text: str) -> list[str]:
    """The names of the component rows of ``analyse --why``'s text (a name, then its difference and interval)."""
    return [m.group(1).strip() for m in re.finditer(r"^  (\S.*?)\s+[+-]\d+\.\d\d(?: pp)? \[", text, flags=re.M)]


def test_the_later_rounds_of_an_earlier_round_can_differ():
    """Why the later rounds are kept before the last round: they are dealt alike in both options, but the play
    stream they go on with is where this round left it; with a base policy that draws from it (random) they differ
    in some rollouts."""
    from gnoming_sim.search.estimates import run_rollouts, setup
    from gnoming_sim.search.rollout import X_GAME, X_SCORE
    from gnoming_sim.search.why import fixed_parts

    pos = from_toml(FINISH_3P)
    assert "later" not in fixed_parts(pos, "game")
    out, _ = run_rollouts(setup(pos, ["random"]), 300, 0, horizon="game")
    later = out[:, :, X_GAME] - pos.scores[pos.me] - out[:, :, X_SCORE]
    assert (later[:, 1] != later[:, 0]).sum() > 0
