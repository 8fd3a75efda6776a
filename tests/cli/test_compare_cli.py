"""`gnoming-sim compare` from the command line."""
from __future__ import annotations

import json
import re
from pathlib import Path

import pyarrow.parquet as pq
import pytest


ROOT = Path(__file__).resolve().parents[2]
SEATS = ["--players", "4", "--seats", "builder,greedy,rusher,cautious"]


def test_the_readme_command_works_and_json_has_every_measure(cli_run, monkeypatch):
    monkeypatch.chdir(ROOT)
    r = cli_run(["compare", *SEATS, "--games", "200", "--variant", "nobounce=examples/nobounce.toml", "--json"])
    data = json.loads(r.stdout)
    names = [v["name"] for v in data["variants"]]
    assert names == ["baseline", "nobounce"]
    change = data["variants"][1]["change_vs_baseline"]
    assert change["paired"] is True
    for m in ("turns", "stalled", "score", "seat_spread", "skill_gap", "close", "minus5"):
        est = data["variants"][1]["estimates"][m]
        assert est["lo"] <= est["mean"] <= est["hi"], m
        assert change[m]["lo"] <= change[m]["mean"] <= change[m]["hi"], m
    assert data["variants"][1]["rules"]["bouncing"] is False


def test_text_output_says_paired_or_unpaired(cli_run, monkeypatch):
    monkeypatch.chdir(ROOT)
    r = cli_run(["compare", *SEATS, "--games", "100", "--variant", "nb=examples/nobounce.toml",
             "--variant", "wild=,examples/wild-deck.toml"])
    assert "nb: paired (same deals)" in r.output and "wild: unpaired (other deck)" in r.output
    assert "95%, over games" in r.output


def test_text_prints_shares_in_percent_as_the_report_does(cli_run, monkeypatch):
    """Each cell is the report's own format of the number --json gives: shares in percent,
    changes of a share in signed percentage points, points otherwise."""
    from gnoming_sim.stats import Estimate
    from gnoming_sim.analyses.framework.render import format_estimate
    from gnoming_sim.experiments.compare import CHANGE_KIND, KIND, LABELS

    monkeypatch.chdir(ROOT)
    args = ["compare", *SEATS, "--games", "150", "--variant", "nb=examples/nobounce.toml"]
    text = cli_run(args).stdout
    data = json.loads(cli_run([*args, "--json"]).stdout)
    per_variant, change = text.split("\nchange against the baseline\n")
    for m, label in LABELS.items():
        for part, key, kinds in ((per_variant, "estimates", KIND), (change, "change_vs_baseline", CHANGE_KIND)):
            rows = re.split(r"\n  (?! )", part.split(f"  {label}\n", 1)[1])[0]   # this measure's rows
            nb = next(line for line in rows.splitlines() if line.split()[0] == "nb")
            e = data["variants"][1][key][m]
            want = format_estimate(Estimate(e["mean"], e["lo"], e["hi"], 150), kinds[m])
            assert nb.endswith("  " + want), (m, key, nb, want)
            assert ("%" in want) == (KIND[m] == "pct"), (m, want)


def test_out_writes_every_variant_and_never_replaces_without_force(cli_run, tmp_path, monkeypatch):
    monkeypatch.chdir(ROOT)
    out = tmp_path / "cmp.parquet"
    args = ["compare", *SEATS, "--games", "50", "--variant", "nb=examples/nobounce.toml", "--out", str(out)]
    cli_run(args)
    table = pq.read_table(out)
    assert table.num_rows == 2 * 50 * 3 * 4
    assert set(table.column("variant").to_pylist()) == {"baseline", "nb"}
    before = out.read_bytes()
    r = cli_run(args, code=2)
    assert "exists" in r.output and out.read_bytes() == before


@pytest.mark.parametrize("args, message", [
    (["--variant", "nobounce"], "expected NAME=rules.toml"),
    (["--variant", "=examples/nobounce.toml"], "expected NAME=rules.toml"),
    (["--variant", "x=missing.toml"], "--variant x:"),
    (["--variant", "baseline=examples/nobounce.toml"], "reserved"),
    ([], "at least one --variant"),
    (["--variant", "nb=examples/nobounce.toml", "--force"], "--force needs --out"),
    (["--variant", "nb=examples/nobounce.toml", "--games", "0"], "--games"),
])
def test_bad_input_is_one_line_and_exit_2(cli_run, args, message, monkeypatch):
    monkeypatch.chdir(ROOT)
    r = cli_run(["compare", *SEATS, *args], code=2)
    assert message in r.output and len(r.output.strip().splitlines()) == 1


def test_a_variant_rules_file_out_of_range_is_one_line(cli_run, tmp_path):
    bad = tmp_path / "hazard0.toml"
    bad.write_text("hazard_value = 0\n", encoding="utf-8")
    r = cli_run(["compare", *SEATS, "--variant", f"h0={bad}"], code=2)
    assert len(r.output.strip().splitlines()) == 1
    assert "--variant h0:" in r.output and "rules option 'hazard_value' must be 1..50, got 0" in r.output


def test_the_hazard15_example_is_a_variant(monkeypatch):
    from gnoming_sim.cli.compare import parse_variant

    monkeypatch.chdir(ROOT)
    variant = parse_variant("hazard15=examples/hazard15.toml")
    assert variant.name == "hazard15" and variant.rules.hazard_value == 15
    assert variant.rules.to_dict() == {**variant.rules.__class__().to_dict(), "hazard_value": 15}


@pytest.mark.parametrize("table, seating", [(["--strategy", "greedy"], "fixed"),
                                            (["--seats", "greedy,builder"], "rotating one seat per game"),
                                            (["--seats", "greedy,builder", "--no-rotate-seats"], "fixed")])
def test_compare_names_the_seating_as_simulate_does(cli_run, table, seating, monkeypatch):
    """`compare --strategy net` said "(rotated)" where simulate said "(fixed)" for the same seating:
    rotation changes nothing where every seat plays one strategy, and both say so."""
    monkeypatch.chdir(ROOT)
    args = ["--players", "2", *table, "--games", "20"]
    compared = cli_run(["compare", *args, "--variant", "nb=examples/nobounce.toml", "--json"])
    simulated = cli_run(["simulate", *args, "--json"])
    assert json.loads(compared.stdout)["rotate"] == json.loads(simulated.stdout)["rotate"] == (seating != "fixed")
    text = cli_run(["compare", *args, "--variant", "nb=examples/nobounce.toml"]).stdout
    assert text.splitlines()[0].startswith(f"players 2  seats {', '.join(json.loads(simulated.stdout)['seats'])} "
                                           f"({seating})")
    assert f"({seating};" in cli_run(["simulate", *args]).stdout


def test_compare_prints_each_strategy_s_win_share_and_score_and_a_skill_gap_over_every_strategy(cli_run, monkeypatch):
    """`compare --seats net,expert,builder,greedy` named a skill gap of expert and greedy, leaving net out, and
    printed no win share per strategy."""
    from gnoming_sim.stats import Estimate
    from gnoming_sim.analyses.framework.render import format_estimate

    monkeypatch.chdir(ROOT)
    args = ["compare", "--players", "4", "--seats", "random,greedy,builder,greedy", "--games", "120",
            "--variant", "nb=examples/nobounce.toml"]
    text = cli_run(args).stdout
    data = json.loads(cli_run([*args, "--json"]).stdout)
    assert data["skill_gap_between"][1] == "random"   # not a heuristic: left out before
    best, worst = data["skill_gap_between"]
    assert f"skill gap = win share of {best} - win share of {worst} (the strongest and weakest strategies" in text
    section = text.split("\nper strategy", 1)[1].split("\n\n", 1)[0].splitlines()
    assert section[1].split() == ["win", "share", "game", "score", "n"]
    rows = section[2:]
    assert len(rows) == 2 * 3   # a row per strategy per variant
    for row, (variant, name) in zip(rows, [(v["name"], n) for v in data["variants"] for n in v["by_strategy"]]):
        e = next(v for v in data["variants"] if v["name"] == variant)["by_strategy"][name]
        win = format_estimate(Estimate(e["win_share"], *e["win_ci95"], 120), "pct")
        score = format_estimate(Estimate(e["mean_game_score"], *e["ci95"], 120), "signed")
        assert name in row.split() and win in row and score in row and row.endswith(" 120"), row
