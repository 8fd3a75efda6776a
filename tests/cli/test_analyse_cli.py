"""`gnoming-sim analyse`: the acceptance commands, --json, and one-line errors."""
from __future__ import annotations

import json
import pytest
from _examples import FAST, POSITION


GAME = ["analyse", "--seed", "1", "--game", "0", "--turn", "20", "--players", "4",
        "--seats", "builder,greedy,rusher,cautious"]


def test_simulated_game_decision(cli_run):
    out = cli_run([*GAME, "--rollouts", 300]).stdout
    assert "decision: draw" in out and "draw pile" in out and "verdict: " in out
    assert "CRN x" in out


def test_example_position_file(cli_run):
    out = cli_run(["analyse", "--position", POSITION, "--rollouts", 100 if FAST else 300]).stdout
    assert "place the 5" in out and "throw away 5" in out and "verdict: " in out


def test_json_has_mean_diff_ci_n_and_the_crn_ratio(cli_run):
    res = json.loads(cli_run([*GAME, "--rollouts", 300, "--json"]).stdout)
    for row in res["options"]:
        assert {"mean", "diff_ci95", "n"} <= set(row) and row["n"] == 300
    assert 0 < res["variance"]["crn"] < 1.5
    assert res["position_record"]["players"] == 4


@pytest.mark.parametrize("args, fragment", [
    (["analyse"], "give --position FILE, --position-id ID, or --game G and --turn T"),
    (["analyse", "--position", POSITION, "--game", "0"], "--position excludes --game/--turn"),
    (["analyse", "--position", POSITION, "--peek"], "--peek needs a simulated game"),
    (["analyse", "--position", "nope.toml"], "position file not found"),
    (GAME + ["--policy", "nobody"], "--policy: unknown strategy 'nobody'"),
    (["analyse", "--position", POSITION, "--policy", "mc"], "'mc' plays by rollouts itself and cannot be a rollout policy"),
    (GAME + ["--half-width", "0"], "--half-width must be a number of points in 0.001..1000"),
    (GAME + ["--rollouts", "1"], "--rollouts must be in 2.."),
    (GAME + ["--horizon", "week"], "week"),
])
def test_errors_are_one_line(cli_run, args, fragment):
    result = cli_run([*args], code=2)
    lines = result.stderr.splitlines()
    assert len(lines) == 1 and lines[0].startswith("gnoming-sim: error: ") and fragment in lines[0], lines


def test_the_commands_defaults_are_the_searchs():
    from gnoming_sim.cli import analyse as command
    from gnoming_sim.search import estimates as search

    assert (command.DEFAULT_POLICY, command.SECOND_POLICY) == (search.DEFAULT_POLICY, search.SECOND_POLICY)
    assert (search.DEFAULT_POLICY, search.SECOND_POLICY) == ("net", "expert")


def test_the_default_base_policy_is_the_reports_strong_player():
    """Analyse and review roll out with the strongest fast player, the report's strong player."""
    from gnoming_sim.analyses.framework.design import STRONG
    from gnoming_sim.cli import card, review
    from gnoming_sim.search import estimates as search

    assert search.DEFAULT_POLICY == review.DEFAULT_POLICY == card.SELF_PLAY == STRONG


def test_the_second_base_policy_is_a_sensitivity_check_asked_for(cli_run):
    """A second player answering the same question is no advice: off unless asked, and labelled."""
    args = ["analyse", "--position", POSITION, "--rollouts", 40, "--horizon", "round"]
    plain = cli_run([*args])
    assert "robustness" not in plain.stdout and "second base policy" not in plain.stdout
    assert json.loads(cli_run([*args, "--json"]).stdout)["robustness"] is None


def test_the_verdict_is_checked_under_a_second_base_policy(cli_run):
    args = ["analyse", "--position", POSITION, "--rollouts", 100, "--second-policy", "expert"]
    text = cli_run([*args]).stdout
    assert "base policy: net (every seat)" in text
    assert "sensitivity check (asked for; not advice" in text
    assert "second base policy: expert (every seat), the same position on the same rollout seeds (n = 100" in text
    line = next(ln for ln in text.splitlines() if ln.startswith("robustness: "))
    assert line.startswith(("robustness: robust: ", "robustness: depends on the policy: ")), line
    res = json.loads(cli_run([*args, "--json"]).stdout)
    rob = res["robustness"]
    assert rob["verdict"] in ("robust", "depends on the policy") and rob["policies"] == ["net", "expert"]
    for ranking in rob["rankings"]:   # every option, ranked, with its mean, interval and n
        assert sorted(r["key"] for r in ranking) == sorted(r["key"] for r in res["options"])
        assert [r["rank"] for r in ranking] == list(range(1, len(ranking) + 1))
        assert all(r["n"] == 100 and len(r["ci95"]) == 2 for r in ranking)
    for r in rob["rankings"][1]:   # the second ranking is printed as the JSON gives it
        assert f"{r['rank']:>2}. {r['mean']:7.2f} [{r['ci95'][0]:.2f}, {r['ci95'][1]:.2f}]" in text


def test_second_policy_none_turns_the_check_off_and_the_base_policy_itself_is_not_run_twice(cli_run):
    args = ["analyse", "--position", POSITION, "--rollouts", 40, "--policy", "greedy"]
    assert "robustness" not in cli_run([*args, "--second-policy", "none"]).stdout
    assert json.loads(cli_run([*args, "--second-policy", "none", "--json"]).stdout)["robustness"] is None
    assert "robustness: not checked: the second base policy is the base policy itself" in cli_run([*args,
                                                                                                   "--second-policy",
                                                                                                   "greedy"]).stdout


def test_a_monte_carlo_second_policy_is_refused_before_the_game_is_played(cli_run):
    result = cli_run([*GAME, "--second-policy", "mc"], code=2)
    assert "--second-policy: 'mc' plays by rollouts itself and cannot be a rollout policy" in result.stderr
    assert "unknown strategy 'nobody'" in cli_run([*GAME, "--second-policy", "nobody"], code=2).stderr


def test_a_turn_past_the_game_is_an_error(cli_run):
    result = cli_run([*GAME[:6], "99999", *GAME[7:]], code=2)
    assert "--turn 99999: the game has only" in result.stderr


def test_game_horizon_prints_each_options_p_win_as_the_json_gives_it(cli_run):
    args = [*GAME, "--rollouts", 60, "--horizon", "game"]
    res = json.loads(cli_run([*args, "--json"]).stdout)
    text = cli_run([*args]).stdout.splitlines()
    head = next(line for line in text if line.startswith("option"))
    assert head.split()[-2:] == ["P(win)", "n"]
    for row in res["options"]:
        line = next(line for line in text if line.startswith(row["option"] + " "))
        lo, hi = row["p_win"]["ci95"]
        assert f"{100 * row['p_win']['p']:5.1f}% [{100 * lo:.0f},{100 * hi:.0f}]" in line


def test_round_horizon_has_no_p_win_column(cli_run):
    assert "P(win)" not in cli_run([*GAME, "--rollouts", 30, "--horizon", "round"]).stdout


def test_a_finishing_decision_states_the_finish_rules_gap(cli_run, tmp_path):
    # seat 1 holds a 5 for its last face-down card: 4 6 4 / 6 5 8 / 7 -4 3 matches no line (39); the best
    # rival shows 8 ? ? / ? M ? / ? ? -1 (7): the gap the report's finish rule and the card read is +32
    text = POSITION.read_text(encoding="utf-8")
    text = text.replace('["5", "?", "5",   "?", "?", "?",   "7", "?", "3"]', '["4", "6", "4",   "6", "?", "8",   "7", "-4", "3"]')
    text = text.replace("turn = 13 ", "turn = 41 ")   # seat 1 to move (starter 0, 4 players)
    path = tmp_path / "finish.toml"
    path.write_text(text, encoding="utf-8")
    res = json.loads(cli_run(["analyse", "--position", path, "--rollouts", 50, "--second-policy", "none",
                              "--json"]).stdout)
    assert res["finish_gap"] == 32
    out = cli_run(["analyse", "--position", path, "--rollouts", 50, "--second-policy", "none"]).stdout
    assert "finish gap: +32 " in out
    assert "finish_gap" not in json.loads(cli_run(["analyse", "--position", POSITION, "--rollouts", 50,
                                                   "--second-policy", "none", "--json"]).stdout)
