"""`--strategies-file`: user strategies from TOML, on the command line."""
import json

import pytest

from gnoming_sim.kernel.policy import registry as strategies

USER = '''
[strategy.patient]
base = "greedy"
description = "greedy that waits for a sure lowest score before finishing"
finish_margin = 6
'''


@pytest.fixture(autouse=True)
def fresh_registry(own_registry):
    return own_registry


def test_user_strategy_is_listed_and_played(cli_run, tmp_path):
    path = tmp_path / "mine.toml"
    path.write_text(USER)
    listed = cli_run(["strategies", "--strategies-file", path])
    assert "patient" in listed.output and "finish_margin=6" in listed.output
    out = cli_run(["simulate", "--strategies-file", path, "--seats", "patient,greedy,patient,greedy", "--games", 200,
                   "--json"])
    assert set(json.loads(out.stdout)["by_strategy"]) == {"patient", "greedy"}


@pytest.mark.parametrize("text, msg", [("[strategy.x]\nbase = \"greedy\"\nfoo = 1\n", "unknown parameter 'foo'"),
                                       ("[strategy.x\n", "not valid TOML"),
                                       ("[strategy.x]\nbase = \"mc\"\npolicy = \"card-starred\"\n",
                                        "'policy' must be a heuristic, learned or net strategy"),
                                       ("[strategy.x]\nbase = \"mc\"\npolicy = \"net\"\nmc_learned_base = 3\n",
                                        "'mc_learned_base' must be 0, 1 or 2")])
def test_bad_strategies_file_is_one_line_exit_2(cli_run, tmp_path, text, msg):
    path = tmp_path / "bad.toml"
    path.write_text(text)
    res = cli_run(["simulate", "--strategies-file", str(path), "--strategy", "x"], code=2)
    assert "--strategies-file" in res.output and msg in res.output and "Traceback" not in res.output


def test_missing_strategies_file(cli_run, tmp_path):
    res = cli_run(["simulate", "--strategies-file", str(tmp_path / "nope.toml")], code=2)
    assert "not found" in res.output


def test_mc_is_listed_and_an_mc_strategy_plays(cli_run, tmp_path):
    listed = cli_run(["strategies"])
    assert "\nmc " in listed.output and "16 rollouts per option" in listed.output
    path = tmp_path / "mc.toml"
    path.write_text('[strategy.mc2]\nbase = "mc"\nmc_budget = 2\n')
    out = cli_run(["simulate", "--strategies-file", path, "--seats", "mc2,expert,expert", "--players", 3, "--games", 3,
                   "--json"])
    assert set(json.loads(out.stdout)["by_strategy"]) == {"mc2", "expert"}
