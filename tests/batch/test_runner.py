"""The batch runner: Parquet output, resumption, interruption, thread independence.

Every batch here is small (a few hundred games) and cut into several chunks, so each
test exercises the chunk boundaries the way a ten-million-game run does.
"""
from __future__ import annotations

import json
import os
import signal
import types

import numpy as np
import pandas as pd
import pyarrow.parquet as pq
import pytest

from gnoming_sim import PUBLISHED
from gnoming_sim import RuleConfig
from gnoming_sim.game.version import __version__
from gnoming_sim.game import fields as F
from gnoming_sim.batch.parquet import describe_mismatch, read_metadata
from gnoming_sim.kernel.engine import simulate
from gnoming_sim.game.errors import GnomingError
from gnoming_sim.batch.runner import FIRST_BLOCK_GAMES, Batch, BatchSpec, check_output, run_batch
from gnoming_sim.stats import mean_ci, mean_ci_from_sums
from gnoming_sim.batch.summary import Tally, format_table, summarize
from gnoming_sim.kernel.win_credit import win_credit

SEATS = ("random", "greedy", "random")
TIMING = ("wall_s", "games_per_s", "resumed_games", "out")


def spec(**changes) -> BatchSpec:
    args = dict(players=3, strategies=SEATS, games=200, seed=7)
    args.update(changes)
    return BatchSpec.make(**args)


def read(path) -> pd.DataFrame:
    return pd.read_parquet(path)


def same_summary(a: dict, b: dict) -> None:
    strip = lambda s: {k: v for k, v in s.items() if k not in TIMING}  # noqa: E731
    assert strip(a) == strip(b)


# ------------------------------------------------------------------ the file
def test_rows_equal_the_engine_frame(tmp_path):
    out = tmp_path / "b.parquet"
    run_batch(spec(games=120), out, chunk_size=50)
    want = simulate(players=3, strategies=SEATS, games=120, seed=7, rotate=True).to_frame()
    pd.testing.assert_frame_equal(read(out), want)


def test_file_is_zstd_row_groups_with_batch_metadata(tmp_path):
    out = tmp_path / "b.parquet"
    run_batch(spec(games=120), out, chunk_size=50)
    meta = pq.ParquetFile(out).metadata
    assert meta.num_row_groups == 3  # 50 + 50 + 20 games
    assert meta.row_group(0).num_rows == 50 * 3 * 3
    assert meta.row_group(0).column(0).compression == "ZSTD"
    facts = read_metadata(out)
    assert facts["seed"] == 7 and facts["players"] == 3 and facts["games"] == 120
    assert facts["seats"] == list(SEATS) and facts["rotate"] is True
    assert facts["rules"] == RuleConfig().to_dict() and facts["deck"] == PUBLISHED.to_dict()
    assert facts["version"] == __version__
    assert set(facts["strategies"]) == {"random", "greedy"}
    assert not list(tmp_path.glob(".*partial"))  # renamed into place


def test_one_strategy_everywhere_does_not_rotate():
    s = spec(strategies=["greedy"])
    assert s.seats == ("greedy",) * 3 and s.rotate is False


def test_no_rotation_keeps_seats(tmp_path):
    out = tmp_path / "b.parquet"
    run_batch(spec(games=20, rotate=False), out, chunk_size=7)
    df = read(out)
    seated = df.groupby("seat", observed=True)["strategy"].unique()
    assert [list(seated[s]) for s in range(3)] == [[n] for n in SEATS]


# ------------------------------------------------------------------ the summary
def test_summary_equals_summarize_of_one_engine_call(tmp_path):
    got = run_batch(spec(games=150), chunk_size=40).summary
    res = simulate(players=3, strategies=SEATS, games=150, seed=7, rotate=True)
    want = summarize(res, 1.0)
    assert got["by_strategy"] == want["by_strategy"] and got["by_seat"] == want["by_seat"]
    assert got["stalled_rounds"] == want["stalled_rounds"] and got["games"] == 150
    assert got["seats"] == list(SEATS) and got["rotate"] is True


def test_win_credit_of_read_back_scores_matches_the_engine():
    res = simulate(players=5, strategies=("random",), games=400, seed=3)
    credit = win_credit(res.round_stats[..., F.F_SCORE])
    np.testing.assert_array_equal(credit, res.win_credit)


def test_win_credit_ties():
    # game 0: totals tie (10, 10, 12), seat 1 wins on the last round; game 1: a shared win
    scores = np.array([[[5, 2, 4], [0, 6, 4], [5, 2, 4]],
                       [[3, 3, 9], [3, 3, 0], [1, 1, 1]]])
    np.testing.assert_array_equal(win_credit(scores), [[0, 1, 0], [0.5, 0.5, 0]])


def test_tally_shared_wins_stay_exact():
    stats = np.zeros((3, 3, 3, F.N_FIELDS), dtype=np.int32)
    tally = Tally(["a"], 3)
    for _ in range(1000):  # 3000 games, every one a three-way tie
        tally.add(stats, np.zeros((3, 3), dtype=np.int16), np.full((3, 3), 1 / 3))
    assert tally.by_seat()["0"]["win_share"] == 1 / 3


# ------------------------------------------------------------------ interruption and resumption
def test_resume_equals_an_uninterrupted_run(tmp_path):
    whole, cut = tmp_path / "whole.parquet", tmp_path / "cut.parquet"
    full = run_batch(spec(), whole, chunk_size=30)
    part = run_batch(spec(), cut, chunk_size=30, stop_after_chunks=3)
    assert (part.stopped_by, part.games_done, part.complete) == ("stop_after_chunks", 90, False)
    assert pq.ParquetFile(cut).metadata.num_rows == 90 * 9
    rest = run_batch(spec(), cut, resume=True, chunk_size=45)  # chunking does not matter
    assert (rest.resumed_games, rest.games_done, rest.stopped_by) == (90, 200, None)
    pd.testing.assert_frame_equal(read(cut), read(whole))
    same_summary(rest.summary, full.summary)


def test_resume_of_a_complete_file_only_summarizes(tmp_path):
    out = tmp_path / "b.parquet"
    first = run_batch(spec(games=60), out, chunk_size=25)
    stamp = os.stat(out).st_mtime_ns
    again = run_batch(spec(games=60), out, resume=True)
    assert again.resumed_games == 60 and os.stat(out).st_mtime_ns == stamp
    same_summary(again.summary, first.summary)


def test_resume_of_a_missing_file_starts_it(tmp_path):
    out = tmp_path / "b.parquet"
    assert run_batch(spec(games=30), out, resume=True).games_done == 30
    assert pq.ParquetFile(out).metadata.num_rows == 30 * 9


@pytest.mark.parametrize("changes, fragment", [
    (dict(seed=8), "--seed 7, this command has --seed 8"),
    (dict(games=300), "--games 200, this command has --games 300"),
    (dict(strategies=("greedy", "random", "random")), "--seats random,greedy,random"),
    (dict(rotate=False), "seat rotation on, this command has seat rotation off"),
    (dict(rules=RuleConfig(max_turns=300)), "--rules max_turns=500, this command has --rules max_turns=300"),
    (dict(players=4, strategies=("random",)), "--players 3"),
])
def test_resume_refuses_other_arguments(tmp_path, changes, fragment):
    out = tmp_path / "b.parquet"
    run_batch(spec(), out, chunk_size=100, stop_after_chunks=1)
    before = read(out)
    with pytest.raises(GnomingError, match="--resume") as info:
        Batch(spec(**changes), out, resume=True)
    assert fragment in str(info.value) and "\n" not in str(info.value)
    pd.testing.assert_frame_equal(read(out), before)


def test_resume_refuses_a_foreign_file(tmp_path):
    junk = tmp_path / "junk.parquet"
    junk.write_text("not parquet")
    with pytest.raises(GnomingError, match="not a readable Parquet file"):
        Batch(spec(), junk, resume=True)
    plain = tmp_path / "plain.parquet"
    pd.DataFrame({"x": [1, 2]}).to_parquet(plain)
    with pytest.raises(GnomingError, match="not written by gnoming-sim"):
        Batch(spec(), plain, resume=True)


def test_describe_mismatch_names_the_first_difference():
    old = {"seed": 1, "rules": {"a": 1, "b": 2}}
    assert describe_mismatch(old, dict(old)) is None
    assert "--rules b=2" in describe_mismatch(old, {"seed": 1, "rules": {"a": 1, "b": 3}})


def test_a_signal_stops_after_the_running_chunk(tmp_path):
    out = tmp_path / "b.parquet"

    def progress(done):
        if done == 40:  # during the run, as a user's Ctrl-C or a scheduler's SIGTERM would
            os.kill(os.getpid(), signal.SIGTERM)

    handler = signal.getsignal(signal.SIGTERM)
    outcome = run_batch(spec(), out, chunk_size=20, progress=progress)
    assert outcome.stopped_by == "SIGTERM" and outcome.games_done == 40
    assert signal.getsignal(signal.SIGTERM) is handler  # restored
    assert read(out)["game"].max() == 39


def test_a_foreign_keyboard_interrupt_drops_the_chunk_in_progress(tmp_path):
    """A KeyboardInterrupt that is not our second signal (here from the progress callback, in the
    middle of the second chunk) propagates, and the file holds exactly the finished chunks."""
    out = tmp_path / "b.parquet"

    def progress(done):
        if done == 60:
            raise KeyboardInterrupt

    with pytest.raises(KeyboardInterrupt):
        run_batch(spec(), out, chunk_size=30, progress=progress)
    assert pq.ParquetFile(out).metadata.num_rows == 30 * 9
    run_batch(spec(), out, resume=True, chunk_size=70)
    assert read(out)["game"].tolist() == np.repeat(np.arange(200), 9).tolist()


def _signal_at_first_block(signum, times=1, after=0):
    """A progress callback that sends ``signum`` (``times`` times) at its first call past ``after`` games:
    the interrupt lands at a known point of the run, not after a sleep."""
    sent = []

    def progress(done):
        if done > after and not sent:
            sent.append(done)
            for _ in range(times):
                os.kill(os.getpid(), signum)

    return progress, sent


def test_one_big_chunk_stops_after_the_running_block(tmp_path):
    """One chunk of 3000 games is played in blocks: SIGINT after the first block is honoured there,
    the games played are written, and --resume completes a file equal to an uninterrupted run."""
    out, whole = tmp_path / "b.parquet", tmp_path / "whole.parquet"
    progress, sent = _signal_at_first_block(signal.SIGINT)
    notices = []
    got = run_batch(spec(games=3000), out, chunk_size=3000, progress=progress, notice=notices.append)
    assert sent == [FIRST_BLOCK_GAMES]
    assert (got.stopped_by, got.games_done, got.abrupt) == ("SIGINT", FIRST_BLOCK_GAMES, False)
    assert notices == ["SIGINT: stopping after the current block of games; Ctrl-C again to stop now"]
    assert got.summary["games"] == FIRST_BLOCK_GAMES and got.summary["interrupted"] == "SIGINT"
    assert got.summary["complete"] is False
    assert read(out)["game"].nunique() == FIRST_BLOCK_GAMES
    run_batch(spec(games=3000), out, resume=True, chunk_size=3000)
    run_batch(spec(games=3000), whole, chunk_size=1000)
    pd.testing.assert_frame_equal(read(out), read(whole))


def test_a_second_signal_stops_at_once_and_drops_the_chunk(tmp_path):
    out = tmp_path / "b.parquet"
    progress, sent = _signal_at_first_block(signal.SIGTERM, times=2, after=1000)
    got = run_batch(spec(games=3000), out, chunk_size=1000, progress=progress)
    assert sent and 1000 < sent[0] < 2000   # inside the second chunk
    assert (got.stopped_by, got.games_done, got.abrupt) == ("SIGTERM", 1000, True)
    assert read(out)["game"].max() == 999 and got.summary["games"] == 1000
    assert not list(tmp_path.glob(".*partial"))


def test_blocks_do_not_change_the_rows():
    """A chunk played in adaptive blocks gives the rows of one engine call."""
    from gnoming_sim.batch.runner import Chunk, play_chunk
    from gnoming_sim.kernel.policy import registry

    s = spec(games=1500)
    calls = []
    part = play_chunk(Chunk(s, tuple(registry.get(n) for n in s.seats), 100, 1400), threads=1,
                      on_block=calls.append)
    assert len(calls) > 1 and calls[0] == FIRST_BLOCK_GAMES and calls[-1] == 1400
    want = simulate(players=3, strategies=SEATS, games=1400, seed=7, first_game=100, rotate=True)
    np.testing.assert_array_equal(part.round_stats, want.round_stats)
    np.testing.assert_array_equal(part.win_credit, want.win_credit)


@pytest.mark.parametrize("how", ["error", "second signal"])
def test_force_keeps_the_old_file_when_the_first_chunk_fails(tmp_path, how):
    """--force replaces the old file only once a new game is written: an error or a stop-now
    interrupt inside the first chunk leaves it byte for byte (and no partial file behind)."""
    out = tmp_path / "b.parquet"
    run_batch(spec(games=40, seed=1), out)
    before = out.read_bytes()

    def progress(done):
        if done > 0:
            if how == "error":
                raise RuntimeError("disk on fire")
            os.kill(os.getpid(), signal.SIGINT)
            os.kill(os.getpid(), signal.SIGINT)

    if how == "error":
        with pytest.raises(RuntimeError, match="disk on fire"):
            run_batch(spec(games=3000), out, force=True, chunk_size=3000, progress=progress)
    else:
        got = run_batch(spec(games=3000), out, force=True, chunk_size=3000, progress=progress)
        assert (got.games_done, got.abrupt) == (0, True)
    assert out.read_bytes() == before
    assert not list(tmp_path.glob(".*partial"))


def test_an_interrupt_before_any_game_writes_no_file(tmp_path):
    out = tmp_path / "b.parquet"
    progress, _ = _signal_at_first_block(signal.SIGINT, times=2)
    got = run_batch(spec(games=3000), out, chunk_size=3000, progress=progress)
    assert got.games_done == 0 and not out.exists() and not list(tmp_path.glob(".*partial"))


def test_threads_do_not_change_the_file(tmp_path):
    one, two = tmp_path / "one.parquet", tmp_path / "two.parquet"
    run_batch(spec(), one, chunk_size=64, threads=1)
    run_batch(spec(), two, chunk_size=64, threads=2)
    pd.testing.assert_frame_equal(read(one), read(two))


# ------------------------------------------------------------------ checks before running
def test_check_output(tmp_path):
    with pytest.raises(GnomingError, match="does not exist"):
        check_output(tmp_path / "nowhere" / "b.parquet")
    with pytest.raises(GnomingError, match="is a directory"):
        check_output(tmp_path)
    existing = tmp_path / "b.parquet"
    existing.write_bytes(b"")
    with pytest.raises(GnomingError, match="already exists; add --resume .* or --force"):
        check_output(existing)
    with pytest.raises(GnomingError, match="exclude each other"):
        check_output(existing, resume=True, force=True)
    assert check_output(existing, force=True) == existing


@pytest.mark.skipif(os.name != "posix" or os.geteuid() == 0, reason="needs a non-root POSIX user")
def test_check_output_unwritable_directory(tmp_path):
    locked = tmp_path / "locked"
    locked.mkdir()
    locked.chmod(0o500)
    try:
        with pytest.raises(GnomingError, match="cannot write|not writable"):
            check_output(locked / "b.parquet")
    finally:
        locked.chmod(0o700)


@pytest.mark.parametrize("kwargs, fragment", [
    (dict(players=8), "players must be between 2 and 7"),
    (dict(games=0), r"games must be in 1..9223372036854775807, got 0"),
    (dict(games=2**63), r"games must be in 1..9223372036854775807, got 9223372036854775808"),
    (dict(seed=-1), "seed must be in 0.."),
    (dict(strategies=("random", "greedy")), "one per seat"),
    (dict(strategies=("telepathy",)), "telepathy"),
])
def test_spec_rejects_bad_values(kwargs, fragment):
    with pytest.raises(GnomingError, match=fragment):
        spec(**kwargs)


def test_resume_needs_an_output():
    with pytest.raises(GnomingError, match="--resume needs --out"):
        Batch(spec(), None, resume=True)


def test_metadata_is_json(tmp_path):
    meta = spec().metadata()
    assert json.loads(json.dumps(meta, allow_nan=False)) == meta   # survives the file's JSON round trip


# ------------------------------------------------------------------ summary of a hand-made result
def _fake_result():
    """Two games, two seats, strategies 'a' and 'b' swapping seats."""
    games, players = 2, 2
    stats = np.zeros((games, 3, players, F.N_FIELDS), dtype=np.int32)
    stats[..., F.F_TURNS] = 5
    # game 0: seat 0 (a) finishes rounds 0 and 1, earning -5 once; seat 1 (b) finishes round 2 (+5)
    stats[0, 0, 0, [F.F_FINISHER, F.F_BONUS]] = (1, -5)
    stats[0, 1, 0, [F.F_FINISHER, F.F_BONUS]] = (1, 5)
    stats[0, 2, 1, [F.F_FINISHER, F.F_BONUS]] = (1, 5)
    stats[1, 2, :, F.F_STALLED] = 1
    totals = np.array([[10, 20], [30, 30]], dtype=np.int32)
    stats[:, 0, :, F.F_SCORE] = totals  # the summary adds round scores up
    return types.SimpleNamespace(
        players=players, games=games, seed=9, rules=RuleConfig(), deck=PUBLISHED,
        strategy_names=("a", "b"),
        seat_strategy=np.array([[0, 1], [1, 0]], dtype=np.int16),
        round_stats=stats,
        totals=totals,
        win_credit=np.array([[1.0, 0.0], [0.5, 0.5]]),
    )


def test_summarize_fake_result():
    s = summarize(_fake_result(), wall_s=2.0)
    assert (s["games"], s["players"], s["rounds"], s["stalled_rounds"]) == (2, 2, 6, 1)
    assert s["games_per_s"] == 1.0 and s["seed"] == 9
    a, b = s["by_strategy"]["a"], s["by_strategy"]["b"]
    assert a["n_seats_played"] == b["n_seats_played"] == 2
    assert a["mean_game_score"] == 20.0 and b["mean_game_score"] == 25.0  # a: 10, 30; b: 20, 30
    assert a["win_share"] == 0.75 and b["win_share"] == 0.25
    assert a["bonus_rate"] == 0.5 and b["bonus_rate"] == 0.0
    assert a["mean_turns_per_round"] == 5.0
    assert s["by_seat"]["0"]["mean_game_score"] == 20.0
    assert s["by_seat"]["1"]["win_share"] == 0.25
    json.dumps(s, allow_nan=False)  # JSON-safe


def test_summarize_strategy_that_never_finished():
    res = _fake_result()
    res.round_stats[..., F.F_FINISHER] = 0
    s = summarize(res, wall_s=0.0)
    assert s["by_strategy"]["a"]["bonus_rate"] is None and s["games_per_s"] is None
    assert json.loads(json.dumps(s, allow_nan=False))["by_strategy"]["a"]["bonus_rate"] is None
    text = format_table(s).splitlines()
    assert "seed 9" in text[1]
    row = next(line for line in text if line.startswith("a "))
    assert row.split()[-3] == "-"   # the bonus rate of a strategy that never finished: no number


def test_mean_ci_from_sums_equals_mean_ci():
    x = np.array([12, -3, 40, 7, 7, 19, -11])
    got = mean_ci_from_sums(len(x), int(x.sum()), int((x * x).sum()))
    assert got == pytest.approx(mean_ci(x), rel=1e-12)
    assert mean_ci_from_sums(1, 5, 25) == (5.0, 5.0, 5.0, 1)
    assert mean_ci_from_sums(0, 0, 0)[3] == 0
