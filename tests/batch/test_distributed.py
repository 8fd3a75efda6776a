"""Batches on Dask: a local cluster of worker processes on loopback gives the in-process file.

Differential tests: every distributed run is compared row for row (and summary for
summary) with the same batch played in this process, including a run during which a
worker process is killed, an interrupted run resumed, and a custom strategy that only
this process has registered.  One two-worker cluster serves the module; the fault
test starts its own.
"""
from __future__ import annotations

import os
import signal
import socket
import sys

import numpy as np
import pandas as pd
import pyarrow.parquet as pq
import pytest

from gnoming_sim.batch import distributed as dist
from gnoming_sim.kernel.policy import registry as strategies
from gnoming_sim.game.errors import GnomingError
from gnoming_sim.batch.runner import BatchSpec, run_batch

pytestmark = pytest.mark.slow  # builds quick reports / starts Dask clusters

SEATS = ("random", "greedy", "builder")
TIMING = ("wall_s", "games_per_s", "out")


def spec(**changes) -> BatchSpec:
    args = dict(players=3, strategies=SEATS, games=400, seed=11)
    args.update(changes)
    return BatchSpec.make(**args)


def same_summary(a: dict, b: dict) -> None:
    strip = lambda s: {k: v for k, v in s.items() if k not in TIMING}  # noqa: E731
    assert strip(a) == strip(b)


def same_file(a, b) -> None:
    pd.testing.assert_frame_equal(pd.read_parquet(a), pd.read_parquet(b))
    fa, fb = pq.ParquetFile(a), pq.ParquetFile(b)
    assert fa.schema_arrow.equals(fb.schema_arrow, check_metadata=True)
    assert [fa.metadata.row_group(i).num_rows for i in range(fa.metadata.num_row_groups)] == \
           [fb.metadata.row_group(i).num_rows for i in range(fb.metadata.num_row_groups)]


@pytest.fixture(scope="module")
def pool():
    with dist.open_pool(workers=2) as p:
        yield p


@pytest.fixture(scope="module")
def reference(tmp_path_factory):
    """The in-process file and summary of :func:`spec` in chunks of 30 games."""
    out = tmp_path_factory.mktemp("reference") / "local.parquet"
    return out, run_batch(spec(), out, chunk_size=30, threads=1).summary


# ------------------------------------------------------------------ same rows as in process
def test_local_cluster_equals_the_in_process_run(tmp_path, pool, reference):
    local, summary = reference
    out = tmp_path / "dask.parquet"
    outcome = run_batch(spec(), out, chunk_size=30, pool=pool)
    assert outcome.complete and pool.window() == 4  # 2 workers x 1 thread x 2 chunks each
    same_file(out, local)
    same_summary(outcome.summary, summary)


def test_a_scheduler_address_reaches_the_same_cluster(tmp_path, pool, reference):
    local, _ = reference
    out = tmp_path / "dask.parquet"
    with dist.open_pool(scheduler=pool.client.scheduler.address) as remote:
        run_batch(spec(), out, chunk_size=30, pool=remote)
    same_file(out, local)


def test_interrupted_run_resumes_on_dask(tmp_path, pool, reference):
    local, summary = reference
    out = tmp_path / "dask.parquet"
    part = run_batch(spec(), out, chunk_size=30, pool=pool, stop_after_chunks=4)
    assert (part.stopped_by, part.games_done) == ("stop_after_chunks", 120)
    assert pq.ParquetFile(out).metadata.num_rows == 120 * 9
    rest = run_batch(spec(), out, resume=True, chunk_size=30, pool=pool)
    assert (rest.resumed_games, rest.games_done) == (120, 400)
    same_file(out, local)
    same_summary({**rest.summary, "resumed_games": 0}, {**summary, "resumed_games": 0})


def test_a_strategy_registered_only_here_reaches_the_workers(tmp_path, pool, own_registry, write_toml):
    strategies.load_file(write_toml("[strategy.patient]\nbase = 'greedy'\nfinish_margin = 6\n"))
    custom = spec(strategies=("patient", "random", "greedy"), games=90)
    here, there = tmp_path / "here.parquet", tmp_path / "there.parquet"
    run_batch(custom, here, chunk_size=25, threads=1)
    run_batch(custom, there, chunk_size=25, pool=pool)
    same_file(there, here)


def test_simulate_many_on_the_pool_equals_in_process(pool):
    calls = [dict(players=4, strategies=("rusher", "cautious", "random", "greedy"), games=n, seed=5,
                  first_game=lo, rotate=True, chunk_size=n, threads=1) for lo, n in ((0, 40), (40, 25), (65, 50))]
    here = list(dist.simulate_many(calls))
    there = list(dist.simulate_many(calls, pool))
    assert [r.first_game for r in there] == [0, 40, 65]
    for a, b in zip(here, there):
        assert a.strategy_names == b.strategy_names
        np.testing.assert_array_equal(a.round_stats, b.round_stats)
        np.testing.assert_array_equal(a.seat_strategy, b.seat_strategy)
        np.testing.assert_array_equal(a.win_credit, b.win_credit)


def test_workers_of_another_version_are_refused(tmp_path, pool, monkeypatch):
    import gnoming_sim.game.version
    monkeypatch.setattr(gnoming_sim.game.version, "__version__", "0.0.0-other")
    with pytest.raises(GnomingError, match="install the same version on every worker"):
        run_batch(spec(games=60), tmp_path / "b.parquet", chunk_size=30, pool=pool)


def test_command_line_scheduler_option(cli_run, tmp_path, pool, reference):
    local, _ = reference
    out = tmp_path / "cli.parquet"
    result = cli_run(["simulate", "--players", "3", "--seats", ",".join(SEATS),
                      "--games", "400", "--seed", "11", "--chunk-size", "30",
                      "--out", str(out), "--scheduler", pool.client.scheduler.address])
    same_file(out, local)


def test_command_line_workers_option(cli_run, tmp_path, reference):
    local, _ = reference
    out = tmp_path / "cli.parquet"
    result = cli_run(["simulate", "--players", "3", "--seats", ",".join(SEATS),
                      "--games", "400", "--seed", "11", "--chunk-size", "30",
                      "--out", str(out), "--workers", "2", "--json"])
    same_file(out, local)


# ------------------------------------------------------------------ faults
def _chunk_runs(dask_scheduler) -> dict:
    """How many times the scheduler sent each chunk to a worker (runs on the scheduler)."""
    runs: dict = {}
    for key, _start, finish, *_ in dask_scheduler.transition_log:
        if str(key).startswith("gnoming-chunk-") and finish == "processing":
            runs[key] = runs.get(key, 0) + 1
    return runs


def test_a_killed_worker_loses_no_game(tmp_path):
    whole = spec(games=12_000)  # 12 chunks of ~0.1 s: the kill lands while chunks are in flight
    local, out = tmp_path / "local.parquet", tmp_path / "dask.parquet"
    want = run_batch(whole, local, chunk_size=1000, threads=1)
    killed = []
    with dist.open_pool(workers=2) as p:
        client = p.client
        pids = client.run(os.getpid)  # worker address -> process id

        def due(keys) -> bool:
            """Whether ``keys`` hold a chunk not yet handed back (chunk 0 is, when progress first runs)."""
            return any(str(k).startswith("gnoming-chunk-") and int(str(k).rsplit("-", 1)[1]) >= 1 for k in keys)

        def progress(done):
            # after the first chunk was written, the pool keeps a window of later chunks in flight or
            # held on the workers: kill a worker that has one, so it must be played again (an event,
            # not a sleep: the window exists whatever the timing)
            if done and not killed:
                with_due = {w for w, keys in client.processing().items() if due(keys)}
                with_due |= {w for w, keys in client.has_what().items() if due(keys)}
                assert with_due, "no later chunk was in flight or held after the first one"
                victim = sorted(with_due)[0]
                os.kill(pids[victim], signal.SIGKILL)
                killed.append(victim)

        got = run_batch(whole, out, chunk_size=1000, pool=p, progress=progress)
        runs = client.run_on_scheduler(_chunk_runs)
    assert killed and got.complete
    assert len(runs) == 12 and max(runs.values()) >= 2  # the dead worker's chunk was played again
    same_file(out, local)
    same_summary(got.summary, want.summary)


# ------------------------------------------------------------------ user mistakes
def test_missing_dask_is_one_clear_message(cli_run, monkeypatch):
    monkeypatch.setitem(sys.modules, "distributed", None)  # `import distributed` raises ImportError
    with pytest.raises(GnomingError, match=r"need Dask: pip install 'gnoming-sim\[dist\]'"):
        dist.check_options(workers=2, scheduler=None)
    dist.check_options(workers=None, scheduler=None)  # in process: Dask not needed
    result = cli_run(["simulate", "--games", "10", "--workers", "2"], code=2)
    assert result.output.strip() == f"gnoming-sim: error: {dist.MISSING_DASK}"


@pytest.mark.parametrize("args, fragment", [
    (["--workers", "0"], "--workers must be >= 1, got 0"),
    (["--workers", "2", "--scheduler", "tcp://127.0.0.1:8786"], "--workers and --scheduler exclude each other"),
    (["--scheduler", "tcp://127.0.0.1:8786", "--threads", "2"], "--threads does not apply to --scheduler"),
    (["--scheduler", " "], "--scheduler needs an address"),
    (["--scheduler", "no-port"], "--scheduler no-port: cannot connect"),
])
def test_bad_cluster_options_are_user_errors(cli_run, args, fragment):
    result = cli_run(["simulate", "--games", "10", *args], code=2)
    assert fragment in result.output
    assert len(result.output.strip().splitlines()) == 1


def test_unreachable_scheduler_is_one_line(cli_run, monkeypatch):
    with socket.socket() as s:  # a loopback port that nothing listens on
        s.bind(("127.0.0.1", 0))
        port = s.getsockname()[1]
    monkeypatch.setattr(dist, "CONNECT_TIMEOUT_S", 1)
    result = cli_run(["simulate", "--games", "10", "--scheduler", f"tcp://127.0.0.1:{port}"], code=2)
    assert f"--scheduler tcp://127.0.0.1:{port}: cannot connect" in result.output
    assert len(result.output.strip().splitlines()) == 1


def test_a_scheduler_without_workers_is_one_line(monkeypatch):
    from distributed import LocalCluster

    monkeypatch.setattr(dist, "WORKERS_TIMEOUT_S", 1)
    with LocalCluster(n_workers=0, host="127.0.0.1", dashboard_address=None,
                      scheduler_kwargs={"dashboard_address": "127.0.0.1:0"}) as empty:
        with pytest.raises(GnomingError, match="no worker joined within 1 s; start some with: dask worker"):
            with dist.open_pool(scheduler=empty.scheduler_address):
                pass


def test_report_on_the_cluster_equals_the_report_in_process(pool, tmp_path):
    """`gnoming-sim report --workers N`: the same studies, the same numbers."""
    from gnoming_sim.analyses.report import STUDIES
    from gnoming_sim.analyses.report import build_report

    studies = [s for s in STUDIES if s.id in ("tournament", "mulligan-value")]
    here = build_report(tmp_path / "here", quick=True, games=48, seed=5, studies=studies)
    there = build_report(tmp_path / "there", quick=True, games=48, seed=5, studies=studies, pool=pool)
    assert [f["display"] for f in here["findings"]] == [f["display"] for f in there["findings"]]
    assert _without_times(here["studies"]) == _without_times(there["studies"])   # wall times differ


def _without_times(studies):
    return {k: {kk: vv for kk, vv in v.items() if "wall" not in kk} if isinstance(v, dict) else v
            for k, v in studies.items()}


def test_report_cli_accepts_cluster_options(cli_run, tmp_path):
    res = cli_run(["report", "--quick", "--workers", "0", "--out", str(tmp_path)], code=2)
    assert "--workers" in res.output
    res = cli_run(["report", "--quick", "--workers", "2", "--scheduler", "tcp://x:1",
                   "--out", str(tmp_path)], code=2)
    assert "--scheduler" in res.output
