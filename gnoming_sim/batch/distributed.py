"""Batches on Dask: chunks of games played by Dask workers, gathered in chunk order.

A chunk (:class:`gnoming_sim.batch.runner.Chunk`) is a pure function of the batch spec and its
first game, so a worker can play any chunk, a chunk can be played twice (Dask replays
the tasks of a worker that died), and the results are the same as in this process.
:class:`DaskPool` submits one task per chunk, keeps a bounded window of them in flight
and hands their results back in chunk order, so the runner writes the same Parquet row
groups and the same summary as an in-process run.

>>> with open_pool(workers=4) as pool:                     # a local cluster
...     outcome = Batch(spec, out="games.parquet").run(pool=pool)
>>> with open_pool(scheduler="tcp://host:8786") as pool:   # a running cluster
...     outcome = Batch(spec, out="games.parquet").run(pool=pool)

:func:`simulate_many` does the same for code that makes its own engine calls.

Dask is an optional dependency (``pip install 'gnoming-sim[dist]'``); it is imported
only when a pool is asked for.
"""
from __future__ import annotations

import contextlib
import threading
import uuid
from collections import deque
from typing import Callable, Iterable, Iterator

from gnoming_sim.game.errors import GnomingError, one_line
from gnoming_sim.batch.runner import Chunk, PlayedChunk, play_chunk

MISSING_DASK = "--workers and --scheduler need Dask: pip install 'gnoming-sim[dist]'"
CONNECT_TIMEOUT_S = 5    # to reach a scheduler
WORKERS_TIMEOUT_S = 60   # for a scheduler's first worker to show up
CHUNKS_PER_THREAD = 2    # tasks in flight per worker thread: enough to keep every worker busy

# One engine call at a time per worker process: numba's parallel layers are not all safe
# to enter from several threads, and each call already uses every thread of the worker.
_ENGINE_LOCK = threading.Lock()


def check_options(workers: int | None, scheduler: str | None, threads: int | None = None) -> None:
    """Check ``--workers``/``--scheduler`` (and ``--threads`` beside them) before anything runs.

    Raises GnomingError for a bad combination, and when Dask is not installed.
    """
    if workers is not None and scheduler is not None:
        raise GnomingError("--workers and --scheduler exclude each other: start a local cluster, "
                           "or use a running one")
    if workers is not None and (isinstance(workers, bool) or workers < 1):
        raise GnomingError(f"--workers must be >= 1, got {workers}")
    if scheduler is not None and not str(scheduler).strip():
        raise GnomingError("--scheduler needs an address, such as tcp://HOST:8786")
    if scheduler is not None and threads is not None:
        raise GnomingError("--threads does not apply to --scheduler: each worker plays with the threads "
                           "it was started with (dask worker --nthreads)")
    if workers is not None or scheduler is not None:
        _import_distributed()


def _import_distributed():
    try:
        import distributed
    except ImportError:
        raise GnomingError(MISSING_DASK) from None
    return distributed


@contextlib.contextmanager
def open_pool(workers: int | None = None, scheduler: str | None = None, threads: int | None = None):
    """Yield a :class:`DaskPool` for ``Batch.run(pool=...)``, or None when neither option is given.

    ``workers``: start a local cluster of that many worker processes, each playing with
    ``threads`` numba threads (default 1), and stop it on exit.  ``scheduler``: connect
    to a running cluster at that address (``tcp://HOST:8786``); it is left running.
    """
    check_options(workers, scheduler, threads)
    if workers is None and scheduler is None:
        yield None
        return
    with contextlib.ExitStack() as stack:
        if workers is not None:
            client = stack.enter_context(_local_client(workers, threads or 1))
        else:
            client = stack.enter_context(_remote_client(str(scheduler).strip()))
        yield DaskPool(client)


@contextlib.contextmanager
def _local_client(workers: int, threads: int):
    import logging

    distributed = _import_distributed()
    import dask
    # spawned workers: forking a process whose numba thread pool already ran is unsafe.
    # Loopback only, no dashboard, and the scheduler's HTTP server on a free port (its
    # default, 8787, may be taken); worker logs only for errors (a cancelled chunk warns).
    with dask.config.set({"distributed.worker.multiprocessing-method": "spawn"}):
        cluster = distributed.LocalCluster(n_workers=workers, threads_per_worker=threads, processes=True,
                                           host="127.0.0.1", dashboard_address=None,
                                           scheduler_kwargs={"dashboard_address": "127.0.0.1:0"},
                                           silence_logs=logging.ERROR)
    try:
        with distributed.Client(cluster) as client:
            yield client
    finally:
        cluster.close()


@contextlib.contextmanager
def _remote_client(address: str):
    distributed = _import_distributed()
    try:
        client = distributed.Client(address, timeout=f"{CONNECT_TIMEOUT_S}s")
    except (OSError, TimeoutError, ValueError, TypeError) as exc:
        raise GnomingError(f"--scheduler {address}: cannot connect ({one_line(exc)})") from None
    with client:
        try:
            client.wait_for_workers(1, timeout=WORKERS_TIMEOUT_S)
        except TimeoutError:
            raise GnomingError(f"--scheduler {address}: no worker joined within {WORKERS_TIMEOUT_S} s; "
                               f"start some with: dask worker {address}") from None
        yield client


class DaskPool:
    """Plays chunks as Dask tasks on ``client``'s cluster and returns them in chunk order."""

    def __init__(self, client):
        self.client = client

    def window(self) -> int:
        """Tasks kept in flight: :data:`CHUNKS_PER_THREAD` per worker thread, at least 2."""
        workers = self.client.scheduler_info(n_workers=-1)["workers"].values()
        return max(2, CHUNKS_PER_THREAD * sum(w.get("nthreads", 1) for w in workers))

    def play(self, chunks: Iterator[Chunk]) -> Iterator[PlayedChunk]:
        """Each chunk's results, in chunk order (what :meth:`gnoming_sim.batch.runner.Batch.run` asks)."""
        return self.map(play_chunk, chunks)

    def map(self, fn: Callable, items: Iterable) -> Iterator:
        """``fn(item, threads)`` for every item, played on the workers, results in the order of ``items``.

        ``fn`` is a module-level function (workers import it by name) that gets the
        worker's thread count.  At most :meth:`window` items are submitted ahead of the
        one being returned; closing the iterator early cancels those still in flight.
        """
        from gnoming_sim.game.version import __version__

        run = uuid.uuid4().hex[:12]
        window = self.window()
        pending = deque()
        try:
            for i, item in enumerate(items):
                key = f"gnoming-chunk-{run}-{i}"
                pending.append(self.client.submit(_on_worker, fn, item, __version__, key=key, pure=False))
                if len(pending) >= window:
                    yield _result(pending.popleft())
            while pending:
                yield _result(pending.popleft())
        finally:
            for future in pending:
                future.cancel()


def simulate_many(calls: Iterable[dict], pool: DaskPool | None = None) -> Iterator:
    """``engine.simulate(**call)`` for every call, results in order: on ``pool``, or here when None.

    For code that plays its own chunks (the report's studies): each call is the keyword
    arguments of one :func:`gnoming_sim.kernel.engine.simulate` call, such as
    ``dict(players=4, strategies=seats, games=n, seed=s, first_game=lo, rotate=True,
    rules=rules, deck=deck, chunk_size=n, threads=threads)``.  On a pool, ``threads`` is
    the worker's own, and strategy names are sent as the strategies themselves, so one
    registered only in this process plays on the workers too.
    """
    if pool is None:
        from gnoming_sim.kernel.engine import simulate

        return (simulate(**call) for call in calls)
    return pool.map(_simulate_call, (_portable(call) for call in calls))


def _portable(call: dict) -> dict:
    from gnoming_sim.kernel.policy import registry

    call = dict(call)
    seats = call.get("strategies", ("random",))
    seats = [seats] if isinstance(seats, (str, registry.Strategy)) else seats
    call["strategies"] = tuple(registry.get(s) for s in seats)
    return call


def _simulate_call(call: dict, threads: int):
    from gnoming_sim.kernel.engine import simulate

    return simulate(**{**call, "threads": threads})


def _result(future):
    from distributed import KilledWorker

    try:
        return future.result()
    except KilledWorker as exc:
        raise GnomingError(f"a chunk of games failed on every worker that tried it, each dying "
                           f"({one_line(exc)}); see the workers' logs") from None


def _on_worker(fn: Callable, item, version: str):
    """The Dask task: ``fn(item, threads)`` with the worker's threads, if it runs this client's version."""
    from distributed import get_worker

    from gnoming_sim.game.version import __version__

    if version != __version__:
        raise GnomingError(f"a Dask worker runs gnoming-sim {__version__}, this command {version}: "
                           "install the same version on every worker")
    with _ENGINE_LOCK:
        return fn(item, get_worker().state.nthreads)
