"""`gnoming-sim ladder` from the command line: a small run's table, JSON and CSV; bad input as one line."""
from __future__ import annotations

import csv
import json

import pytest
from click.testing import CliRunner

from gnoming_sim.cli.app import cli

SMALL = ["ladder", "--players", "2", "--strategies", "random,greedy,expert", "--games", "60", "--bootstrap", "100",
         "--threads", "1", "--seed", "2"]


def run(args):
    return CliRunner().invoke(cli, args, catch_exceptions=False)


def test_the_table_names_every_strategy_and_what_it_is_conditional_on():
    r = run(SMALL)
    assert r.exit_code == 0, r.output
    out = r.stdout
    for word in ("random", "greedy", "expert", "rating [95% CI]", "margin vs expert", "Order [95% CI]",
                 "head to head:", "skill share:", "conditional on: this pool, 2 players", "negative = better"):
        assert word in out, word
    lines = out.splitlines()
    order = [next(i for i, line in enumerate(lines) if line.strip().startswith(n + " ")) for n in ("expert", "greedy", "random")]
    assert order == sorted(order)   # strongest first


def test_json_and_the_out_files(tmp_path):
    r = run([*SMALL, "--json"])
    assert r.exit_code == 0, r.output
    data = json.loads(r.stdout)
    assert data["pool"] == ["random", "greedy", "expert"] and data["tables"][0]["players"] == 2
    out = tmp_path / "ladder.csv"
    assert run([*SMALL, "--out", str(out)]).exit_code == 0
    with out.open(newline="") as fh:
        rows = list(csv.DictReader(fh))
    assert {row["strategy"] for row in rows} == {"random", "greedy", "expert"}
    assert all(float(row["rating_lo"]) <= float(row["rating"]) <= float(row["rating_hi"]) for row in rows)
    again = CliRunner().invoke(cli, [*SMALL, "--out", str(out)])
    assert again.exit_code == 2 and "already exists; add --force" in again.stderr
    js = tmp_path / "ladder.json"
    assert run([*SMALL, "--out", str(js)]).exit_code == 0
    assert run([*SMALL, "--out", str(js), "--force"]).exit_code == 0
    assert json.loads(js.read_text())["tables"][0]["strategies"] == data["tables"][0]["strategies"]


@pytest.mark.parametrize("args, message", [
    (["--strategies", "greedy,nosuch"], "unknown strategy 'nosuch'"),
    (["--strategies", "greedy"], "at least 2"),
    (["--strategies", "greedy,,expert"], "empty strategy name"),
    (["--players", "1"], "--players must be between 2 and 7, got 1"),
    (["--players", "9"], "--players must be between 2 and 7, got 9"),
    (["--players", "4,4"], "twice"),
    (["--players", "four"], "--players takes table sizes"),
    (["--games", "0"], "--games must be in 1.."),
    (["--bootstrap", "5"], "--bootstrap must be in 100..100000"),
    (["--seed", "-1"], "--seed"),
    (["--force"], "--force needs --out"),
])
def test_bad_input_is_one_line_and_exit_2_before_any_game(args, message, monkeypatch):
    from gnoming_sim.experiments import ladder

    monkeypatch.setattr(ladder, "play_table", lambda *a, **k: pytest.fail("a game was played"))
    r = CliRunner().invoke(cli, ["ladder", *args])
    assert r.exit_code == 2, r.output
    lines = r.stderr.strip().splitlines()
    assert len(lines) == 1 and lines[0].startswith("gnoming-sim: error: "), r.stderr
    assert message in lines[0]
    assert r.exception is None or isinstance(r.exception, SystemExit)
