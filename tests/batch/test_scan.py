"""The streaming scan of a batch file: a differential test against a straightforward pandas
computation over the whole table (games as units), the same sums in any blocking (a row
group that ends inside a game included), and one-line errors for damaged files."""
from __future__ import annotations

import json
import math

import numpy as np
import pandas as pd
import pyarrow as pa
import pyarrow.parquet as pq
import pytest

from gnoming_sim.batch.runner import BatchSpec, run_batch
from gnoming_sim.batch.scan import open_batch, scan_batch
from gnoming_sim.stats import mean_ci
from gnoming_sim.kernel.win_credit import win_credit
from gnoming_sim.game.errors import GnomingError

PLAYERS = 3
SEATS = ("builder", "builder", "rusher")   # a strategy in two seats: per game its seats are averaged
GAMES = 600


@pytest.fixture(scope="module")
def batch_file(tmp_path_factory):
    path = tmp_path_factory.mktemp("scan") / "games.parquet"
    spec = BatchSpec.make(PLAYERS, SEATS, GAMES, seed=11)
    run_batch(spec, out=path, chunk_size=170)   # 4 row groups, the last one short
    return path


@pytest.fixture(scope="module")
def frame(batch_file) -> pd.DataFrame:
    df = pq.read_table(batch_file).to_pandas()
    df["strategy"] = df["strategy"].astype(str)
    return df


@pytest.fixture(scope="module")
def scan(batch_file):
    return scan_batch(batch_file)


def _per_game(df: pd.DataFrame, value: pd.Series, rounds: int = 1) -> pd.DataFrame:
    """Per (game, strategy): the mean over the strategy's seats of ``value`` summed over rounds."""
    per_seat = value.groupby([df.game, df.seat, df.strategy]).sum().rename("x").reset_index()
    return per_seat.groupby(["game", "strategy"]).x.mean().div(rounds).unstack()


def _wins(df: pd.DataFrame) -> pd.Series:
    scores = df.sort_values(["game", "round", "seat"]).score.to_numpy().reshape(-1, 3, PLAYERS)
    credit = win_credit(scores)                     # (games, players)
    return pd.Series(np.repeat(credit[:, None, :], 3, axis=1).ravel() / 3, index=df.index)


def _close(interval, reference) -> None:
    mean, lo, hi, n = reference
    assert interval.n == n
    assert interval.mean == pytest.approx(mean, rel=1e-12, abs=1e-12)
    assert (interval.lo, interval.hi) == pytest.approx((lo, hi), rel=1e-9, abs=1e-12)


def test_standings_equal_a_pandas_computation_over_games(scan, frame):
    df = frame.sort_values(["game", "round", "seat"])
    scores = _per_game(df, df.score)
    wins = _per_game(df, _wins(df))
    for k, name in enumerate(scan.names):
        _close(scan.by_strategy.mean("score", k), mean_ci(scores[name]))
        _close(scan.by_strategy.mean("win", k, scale=420), mean_ci(wins[name]))
    assert list(scan.by_strategy.seats) == [2, 1]
    for seat in range(PLAYERS):
        seat_scores = df[df.seat == seat].groupby("game").score.sum()
        _close(scan.by_seat.mean("score", seat), mean_ci(seat_scores))


def test_per_round_quantities_and_the_table(scan, frame):
    df = frame
    for column, quantity in (("turns", "turns"), ("lines", "lines"), ("matched", "matched"), ("bonus", "bonus")):
        per_game = _per_game(df, df[column], rounds=3)
        for k, name in enumerate(scan.names):
            _close(scan.by_strategy.mean(quantity, k, per=3), mean_ci(per_game[name]))
    hazard_round = df.groupby(["game", "round"]).hazards.max().gt(0).groupby("game").sum() / 3
    _close(scan.table.mean("hazard_rounds", 0, per=3), mean_ci(hazard_round))
    turns = df.groupby("game").turns.sum() / 3
    _close(scan.table.mean("turns", 0, per=3), mean_ci(turns))


def test_finish_counts_and_the_clustered_bonus_rate(scan, frame):
    df = frame
    fin = df[df.finisher == 1]
    for k, name in enumerate(scan.names):
        mine = fin[fin.strategy == name]
        assert scan.by_strategy.total("finishes", k) == len(mine)
        assert scan.by_strategy.total("earned", k) == int((mine.bonus < 0).sum())
        ratio = scan.by_strategy.ratio("earned", "finishes", k)
        assert ratio.mean == pytest.approx((mine.bonus < 0).mean())
        # the clustered interval is about as wide as a Wilson one over finishes: rounds are fresh deals
        p, n = ratio.mean, len(mine)
        assert ratio.lo < p < ratio.hi
        assert (ratio.hi - ratio.lo) / (2 * 1.96 * math.sqrt(p * (1 - p) / n)) == pytest.approx(1, abs=0.25)
    done = fin[fin.stalled == 0]
    by_score = done.assign(s=done.score - done.bonus).groupby(["strategy", "s"]).size()
    h = scan.finish
    for k, name in enumerate(scan.names):
        counts = h.counts[2 * k] + h.counts[2 * k + 1]
        got = {int(v): int(c) for v, c in zip(h.values, counts) if c}
        assert got == {int(s): int(c) for s, c in by_score[name].items()}


def test_histograms_count_every_row(scan, frame):
    df = frame
    for k, name in enumerate(scan.names):
        mine = df[df.strategy == name]
        want = mine.score.value_counts()
        got = dict(zip(scan.round_score.values, scan.round_score.counts[k]))
        assert {v: c for v, c in got.items() if c} == want.to_dict()
        assert scan.seat_turns.counts[k].sum() == len(mine)
    assert scan.game_score.counts.sum() == GAMES * PLAYERS
    assert scan.table_turns.counts.sum() == GAMES * 3


def test_any_blocking_gives_the_same_sums(batch_file, scan, tmp_path):
    # row groups of 500 rows (not whole games of 9 rows) and blocks of 7 games: games straddle both
    straddled = tmp_path / "straddled.parquet"
    pq.write_table(pq.read_table(batch_file), straddled, row_group_size=500)
    assert pq.ParquetFile(straddled).metadata.num_row_groups > 1
    other = scan_batch(straddled, block_games=7)
    for k in range(len(scan.names)):
        for q in ("score", "win", "finishes", "earned", "lines"):
            assert other.by_strategy.mean(q, k) == scan.by_strategy.mean(q, k)
    assert np.array_equal(other.finish.counts, scan.finish.counts)
    assert other.games == scan.games == GAMES


def test_progress_reports_every_row(batch_file):
    seen = []
    scan_batch(batch_file, progress=seen.append)
    assert sum(seen) == GAMES * 3 * PLAYERS and len(seen) >= 4


def test_an_interrupted_file_is_read_as_far_as_it_goes(tmp_path):
    path = tmp_path / "cut.parquet"
    spec = BatchSpec.make(2, ("greedy", "rusher"), 500, seed=2)
    outcome = run_batch(spec, out=path, chunk_size=100, stop_after_chunks=2)
    assert outcome.stopped_by == "stop_after_chunks"
    cut = scan_batch(path)
    assert cut.games == 200 and cut.planned_games == 500


# ------------------------------------------------------------------ damaged files
def _rewrite(src, dst, change):
    table = pq.read_table(src)
    table = change(table)
    pq.write_table(table, dst)
    return dst


def test_rows_out_of_order_are_refused(batch_file, tmp_path):
    def swap_games(t):
        order = np.arange(t.num_rows)
        order[:9], order[9:18] = order[9:18].copy(), order[:9].copy()
        return t.take(pa.array(order))

    path = _rewrite(batch_file, tmp_path / "swapped.parquet", swap_games)
    with pytest.raises(GnomingError, match="not whole games in order"):
        scan_batch(path)


def test_a_file_cut_inside_a_game_is_refused(batch_file, tmp_path):
    path = _rewrite(batch_file, tmp_path / "cut.parquet", lambda t: t.slice(0, t.num_rows - 4))
    with pytest.raises(GnomingError, match="not whole games"):
        open_batch(path)


def test_a_strategy_missing_from_the_metadata_is_refused(batch_file, tmp_path):
    def rename(t):
        meta = json.loads(t.schema.metadata[b"gnoming_sim"])
        meta["seats"] = ["greedy", "greedy", "rusher"]
        meta["strategies"] = {"greedy": meta["strategies"]["builder"], "rusher": meta["strategies"]["rusher"]}
        return t.replace_schema_metadata({b"gnoming_sim": json.dumps(meta).encode()})

    path = _rewrite(batch_file, tmp_path / "renamed.parquet", rename)
    with pytest.raises(GnomingError, match="metadata does not list"):
        scan_batch(path)


def test_hazards_left_are_counted_at_the_files_hazard_value(tmp_path):
    """Under hazard_value 15 the scan counts hazards from their points by 15 (the file's rules), not 10."""
    from gnoming_sim.game.rules import RuleConfig

    path = tmp_path / "h15.parquet"
    run_batch(BatchSpec.make(PLAYERS, ("random",), 60, seed=34, rules=RuleConfig(hazard_value=15)), out=path)
    df = pq.read_table(path).to_pandas()
    assert (df.hazards % 15 == 0).all() and (df.hazards > 0).any()
    scan = scan_batch(path)
    got = dict(zip(scan.hazards_left.values, scan.hazards_left.counts[0]))
    assert {v: c for v, c in got.items() if c} == (df.hazards // 15).value_counts().to_dict()
