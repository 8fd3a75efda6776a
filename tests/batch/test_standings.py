"""``gnoming_sim.standings(path)``: a batch file's standings are exactly what ``simulate`` printed for
those games (the same dict, the same text tables), they agree with a plain pandas computation over
the file (per-seat means, the rules' win credit), an interrupted file says so, and a wrong file is a
one-line error."""
from __future__ import annotations

import numpy as np
import pandas as pd
import pyarrow.parquet as pq
import pytest

import gnoming_sim
from gnoming_sim.batch.runner import BatchSpec, run_batch
from gnoming_sim.batch.summary import format_table
from gnoming_sim.game.errors import GnomingError
from gnoming_sim.game.rules import RuleConfig
from gnoming_sim.kernel.win_credit import win_credit

PLAYERS = 3
SEATS = ("builder", "builder", "rusher")   # builder holds two seats: per game, their mean counts once
GAMES = 300


@pytest.fixture(scope="module")
def played(tmp_path_factory):
    path = tmp_path_factory.mktemp("standings") / "games.parquet"
    outcome = run_batch(BatchSpec.make(PLAYERS, SEATS, GAMES, seed=5), out=path, chunk_size=70)
    return path, outcome.summary


@pytest.fixture(scope="module")
def st(played):
    return gnoming_sim.standings(played[0])


def _tables(text: str) -> str:
    """The two tables and the notes of simulate's text (the header tells the run, which differs)."""
    return text[text.index("\nstrategy "):]


def test_the_standings_are_what_simulate_printed(played, st):
    _, summary = played
    assert st.games == GAMES and st.players == PLAYERS
    assert st.summary["by_strategy"] == summary["by_strategy"]
    assert st.summary["by_seat"] == summary["by_seat"]
    assert _tables(st.table()) == _tables(format_table(summary))
    assert f"read from {played[0]}" in st.table() and "games/s" not in st.table()


def test_the_frames_hold_each_mean_with_its_interval_and_n(played, st):
    _, summary = played
    assert list(st.by_strategy.index) == ["builder", "rusher"] and st.by_strategy.index.name == "strategy"
    assert list(st.by_seat.index) == [0, 1, 2] and st.by_seat.index.name == "seat"
    for frame, entries in ((st.by_strategy, summary["by_strategy"]), (st.by_seat, summary["by_seat"])):
        for label, e in entries.items():
            row = frame.loc[label if frame is st.by_strategy else int(label)]
            assert row["n_games"] == GAMES
            assert (row["mean_game_score"], row["ci95_lo"], row["ci95_hi"]) == (e["mean_game_score"], *e["ci95"])
            assert (row["win_share"], row["win_ci95_lo"], row["win_ci95_hi"]) == (e["win_share"], *e["win_ci95"])
            assert row["ci95_lo"] < row["mean_game_score"] < row["ci95_hi"]
            assert row["win_ci95_lo"] < row["win_share"] < row["win_ci95_hi"]


def test_the_standings_agree_with_pandas_over_the_file(played, st):
    """Per seat and per strategy: the mean over games of a seat's game score (a strategy in two seats
    is their mean, not their sum), and the win share under the rules' credit (1/k for a shared win)."""
    df = pq.read_table(played[0]).to_pandas()
    df["strategy"] = df["strategy"].astype(str)
    per_seat = df.groupby(["game", "seat", "strategy"], observed=True)["score"].sum().reset_index()
    assert np.allclose(st.by_seat["mean_game_score"], per_seat.groupby("seat")["score"].mean())
    by_strategy = per_seat.groupby(["game", "strategy"])["score"].mean().groupby("strategy").mean()
    assert np.allclose(st.by_strategy["mean_game_score"], by_strategy[st.by_strategy.index])
    scores = df.sort_values(["game", "round", "seat"])["score"].to_numpy().reshape(GAMES, 3, PLAYERS)
    credit = win_credit(scores)
    assert np.allclose(st.by_seat["win_share"], credit.mean(axis=0))
    seats = df[df["round"] == 0].sort_values(["game", "seat"])["strategy"].to_numpy().reshape(GAMES, PLAYERS)
    builder = np.where(seats == "builder", credit, 0).sum(axis=1) / 2
    assert st.by_strategy.loc["builder", "win_share"] == pytest.approx(builder.mean())
    assert st.by_seat["win_share"].sum() == pytest.approx(1.0)


def test_an_interrupted_file_says_how_much_it_holds(tmp_path):
    path = tmp_path / "cut.parquet"
    part = run_batch(BatchSpec.make(PLAYERS, SEATS, GAMES, seed=5), out=path, chunk_size=70, stop_after_chunks=2)
    assert part.games_done == 140
    st = gnoming_sim.standings(path)
    assert st.games == 140 and st.summary["complete"] is False
    assert st.table().startswith("INTERRUPTED (the run that wrote the file stopped early): 140 of 300 games played")
    assert (st.by_strategy["n_games"] == 140).all()


@pytest.mark.parametrize("make, message", [
    (lambda p: None, "does not exist"),
    (lambda p: p.mkdir(), "is a directory"),
    (lambda p: p.write_text("not parquet"), "is not a readable Parquet file"),
    (lambda p: pd.DataFrame({"game": [0]}).to_parquet(p), "was not written by gnoming-sim simulate"),
])
def test_a_wrong_file_is_a_one_line_error(tmp_path, make, message):
    path = tmp_path / "games.parquet"
    make(path)
    with pytest.raises(GnomingError) as err:
        gnoming_sim.standings(path)
    assert message in str(err.value) and "\n" not in str(err.value)


@pytest.fixture(scope="module")
def compared(cli_run, tmp_path_factory):
    """A `compare --out` file (two variants, greedy in two seats) and the comparison's --json."""
    import json
    from pathlib import Path

    rules = Path(__file__).resolve().parents[2] / "examples" / "nobounce.toml"
    path = tmp_path_factory.mktemp("compared") / "q6-mixed.parquet"
    result = cli_run(["compare", "--players", str(PLAYERS), "--seats", "greedy,rusher,greedy",
                      "--games", "90", "--seed", "4", "--variant", f"nb={rules}", "--out", str(path),
                      "--json"])
    return path, json.loads(result.stdout)


def test_a_compare_file_reads_back_per_variant_as_simulate_would_print_each(compared):
    """`standings("q6-mixed.parquet")` on a compare file said "was not written by gnoming-sim simulate (no
    batch metadata)": each variant's rows are a batch, with its own rules."""
    path, data = compared
    every = gnoming_sim.standings(path)
    assert list(every) == ["baseline", "nb"]
    for v in data["variants"]:
        st = every[v["name"]]
        assert st.games == 90 and st.summary["by_strategy"] == v["by_strategy"]   # compare's own numbers
        assert st.summary["rules"] == v["rules"] and st.summary["rotate"] is True
        assert f"read from {path} (variant {v['name']})" in st.table()
        direct = run_batch(BatchSpec.make(PLAYERS, ("greedy", "rusher", "greedy"), 90, seed=4,
                                          rules=RuleConfig.from_dict(v["rules"]))).summary
        assert st.summary["by_seat"] == direct["by_seat"] and st.summary["by_strategy"] == direct["by_strategy"]
    assert gnoming_sim.standings(path, "nb").summary == every["nb"].summary


@pytest.mark.parametrize("how, message", [
    ("unknown", "has no variant 'nope'; it holds baseline, nb"),
    ("simulate file", "holds one batch, not a compare's variants"),
    ("old compare file", "did not record each variant's rules and deck"),
    ("stray variant", "rows of a variant its metadata does not list ('other')"),
])
def test_a_wrong_compare_read_is_a_one_line_error(compared, played, tmp_path, how, message):
    import json

    import pyarrow as pa

    from gnoming_sim.batch.compare_file import COMPARE_KEY

    path, variant = compared[0], "nope"
    if how == "simulate file":
        path, variant = played[0], "nb"
    elif how != "unknown":
        table = pq.read_table(path)
        meta = json.loads(table.schema.metadata[COMPARE_KEY])
        if how == "old compare file":   # what compare wrote before
            meta = {k: meta[k] for k in ("players", "seats", "games", "seed")} | {"variants": ["nb"]}
        else:
            names = table.column("variant").to_pylist()
            table = table.set_column(table.schema.get_field_index("variant"), "variant",
                                     pa.array(["other" if n == "nb" else n for n in names]).dictionary_encode())
        path = tmp_path / "changed.parquet"
        pq.write_table(table.replace_schema_metadata({COMPARE_KEY: json.dumps(meta).encode()}), path)
        variant = None
    with pytest.raises(GnomingError) as err:
        gnoming_sim.standings(path, variant)
    assert message in str(err.value) and "\n" not in str(err.value)
