"""Batches of games: reproducible, chunked, streamed to Parquet, resumable.

A batch is played in chunks of games; game ``g`` depends only on (seed, g), so a batch
split into chunks, or stopped and resumed, gives the same rows as one uninterrupted
run.  Each chunk becomes one Parquet row group (see :mod:`gnoming_sim.batch.parquet`) and
is added to a :class:`~gnoming_sim.batch.summary.Tally`; memory does not grow with ``games``.

>>> spec = BatchSpec.make(players=4, strategies=["random"], games=100_000, seed=1)
>>> outcome = Batch(spec, out="games.parquet").run(threads=8)
>>> outcome.summary["by_strategy"]["random"]["mean_game_score"]

While a batch runs, SIGINT (Ctrl-C) and SIGTERM ask it to stop after the block of games
in progress (a chunk is played in blocks of a fraction of a second): the output file then
holds every game played and ``resume=True`` completes it.  A second signal stops at once,
dropping the chunk in progress, still leaving a valid file.

A chunk is a pure, picklable unit of work (:class:`Chunk`, played by :func:`play_chunk`):
``pool`` decides where chunks are played.  By default they are played one after another
in this process; :func:`gnoming_sim.batch.distributed.open_pool` plays them on Dask workers.
Either way the results come back in chunk order and go through the same writer and tally.
"""
from __future__ import annotations

import signal
import time
from dataclasses import dataclass, field
from pathlib import Path
from typing import Callable, Iterator, Sequence

import numpy as np

from gnoming_sim.kernel.policy import registry
from gnoming_sim.batch.compile_clock import compile_clock
from gnoming_sim.batch.batch_writer import ParquetSink
from gnoming_sim.batch.interrupts import Interrupts
from gnoming_sim.batch.output import check_output, find_existing
from gnoming_sim.batch.parquet import batch_schema, table_of
from gnoming_sim.batch.safe_write import OutputLock
from gnoming_sim.game.fields import F_SCORE
from gnoming_sim.game.deck import PUBLISHED, Deck, check_players
from gnoming_sim.game.errors import GnomingError
from gnoming_sim.game.limits import MAX_GAME, MAX_SEED
from gnoming_sim.game.rules import ROUNDS, RuleConfig
from gnoming_sim.batch.summary import Tally, build_summary
from gnoming_sim.kernel.win_credit import win_credit

DEFAULT_CHUNK_GAMES = 20_000
OUT_OF_MEMORY = "MemoryError"   # Outcome.stopped_by of a run stopped because its next games did not fit


@dataclass(frozen=True)
class BatchSpec:
    """Everything that determines a batch's rows (threads and chunking do not).

    ``seats`` names one strategy per seat, as seated in game 0; with ``rotate`` game
    ``g`` seats them moved ``g`` places (seat ``s`` plays ``seats[(s + g) % players]``).
    ``rotate`` is stored False when every seat plays the same strategy (it changes nothing).
    """

    players: int
    seats: tuple[str, ...]
    games: int
    seed: int = 0
    rotate: bool = True
    rules: RuleConfig = field(default_factory=RuleConfig)
    deck: Deck = PUBLISHED

    @classmethod
    def make(cls, players: int, strategies: Sequence[str] = ("random",), games: int = 1000,
             seed: int = 0, rotate: bool = True, rules: RuleConfig | None = None,
             deck: Deck | None = None) -> "BatchSpec":
        """A checked spec: one strategy name for every seat, or one per seat."""
        check_players(players)
        _check_int("games", games, 1, MAX_GAME)
        _check_int("seed", seed, 0, MAX_SEED)
        names = [strategies] if isinstance(strategies, str) else list(strategies)
        if len(names) not in (1, players):
            raise GnomingError(f"give one strategy or one per seat ({players}), got {len(names)}")
        for name in names:
            registry.get(name)
        seats = tuple(names * players if len(names) == 1 else names)
        deck = PUBLISHED if deck is None else deck
        deck.validate_for(players)
        return cls(int(players), seats, int(games), int(seed), bool(rotate) and len(set(seats)) > 1,
                   RuleConfig() if rules is None else rules, deck)

    @property
    def names(self) -> tuple[str, ...]:
        """Distinct strategies in order of first seat: the engine's ``strategy_names``."""
        return tuple(dict.fromkeys(self.seats))

    def metadata(self) -> dict:
        """The facts stored in the Parquet file; a resume must match them (JSON-ready)."""
        from gnoming_sim.game.version import __version__

        return {
            "version": __version__,
            "players": self.players,
            "seats": list(self.seats),
            "strategies": {n: {"kind": int(registry.get(n).kind), "params": dict(registry.get(n).params)}
                           for n in self.names},
            "rotate": self.rotate,
            "seed": self.seed,
            "games": self.games,
            "rules": self.rules.to_dict(),
            "deck": self.deck.to_dict(),
            "deck_name": self.deck.name,
        }


@dataclass(frozen=True)
class Chunk:
    """Games ``first_game .. first_game + games - 1`` of a batch: a pure, picklable unit of work.

    ``strategies`` holds the seat strategies themselves, not their names, so that a
    strategy registered only in this process (a user's TOML file) reaches other processes.
    """

    spec: BatchSpec
    strategies: tuple[registry.Strategy, ...]
    first_game: int
    games: int


@dataclass
class PlayedChunk:
    """The results of a :class:`Chunk`.

    ``round_stats`` int32 (G, 3, P, N_FIELDS); ``seat_strategy`` int8 (G, P) indexing
    ``spec.names``; ``win_credit`` float64 (G, P).
    """

    first_game: int
    round_stats: np.ndarray
    seat_strategy: np.ndarray
    win_credit: np.ndarray
    out_of_memory: bool = False   # the chunk stopped short: its next block did not fit in memory

    @property
    def games(self) -> int:
        return self.round_stats.shape[0]


# A chunk is played in blocks of games sized to take about BLOCK_SECONDS each, so that a
# stop request is seen within a block even when one chunk holds the whole batch.  Each
# game has its own random streams, so the blocking changes no result.
FIRST_BLOCK_GAMES = 256
BLOCK_SECONDS = 0.3


def play_chunk(chunk: Chunk, threads: int | None = None,
               should_stop: Callable[[], bool] | None = None,
               on_block: Callable[[int], None] | None = None) -> PlayedChunk:
    """Play one chunk with ``threads`` numba threads; a pure function of ``chunk``.

    The chunk is played in blocks of games.  After each block ``on_block(games done in
    this chunk)`` is called, then ``should_stop()``: when it is true the chunk ends there
    and the games played so far are returned (fewer than ``chunk.games``).
    """
    from gnoming_sim.kernel.engine import simulate  # compiles the kernels: only once everything is checked

    spec = chunk.spec
    parts, done, block, short = [], 0, FIRST_BLOCK_GAMES, False
    while done < chunk.games:
        n = min(block, chunk.games - done)
        t0 = time.perf_counter()
        try:
            res = simulate(players=spec.players, strategies=chunk.strategies, games=n, seed=spec.seed,
                           rules=spec.rules, deck=spec.deck, threads=threads, chunk_size=n,
                           first_game=chunk.first_game + done, rotate=spec.rotate)
        except MemoryError:
            if not parts:
                raise
            short = True   # the blocks played are returned, to be written before the run stops
            break
        remap = np.array([spec.names.index(s) for s in res.strategy_names], dtype=np.int8)
        parts.append((res.round_stats, remap[res.seat_strategy], res.win_credit))
        done += n
        block = _next_block(n, time.perf_counter() - t0)
        if on_block is not None:
            on_block(done)
        if should_stop is not None and done < chunk.games and should_stop():
            break
    if len(parts) == 1:
        return PlayedChunk(chunk.first_game, *parts[0], out_of_memory=short)
    return PlayedChunk(chunk.first_game, *(np.concatenate(p) for p in zip(*parts)), out_of_memory=short)


def _next_block(games: int, seconds: float) -> int:
    """Games for the next block: about BLOCK_SECONDS at the pace of the last one (x0.5 .. x4)."""
    if seconds <= 0:
        return games * 4
    return int(min(games * 4, max(games // 2, games * BLOCK_SECONDS / seconds, 16)))


class InProcess:
    """The default pool: chunks played one after another in this process.

    ``should_stop`` is asked between blocks of games (see :func:`play_chunk`); ``on_block``
    hears the games done in the running chunk after each block.
    """

    def __init__(self, threads: int | None = None, should_stop: Callable[[], bool] | None = None,
                 on_block: Callable[[int, int], None] | None = None):
        self.threads = threads
        self.should_stop = should_stop
        self.on_block = on_block

    def play(self, chunks: Iterator[Chunk]) -> Iterator[PlayedChunk]:
        """Each chunk's results, in chunk order, each played only when asked for."""
        for chunk in chunks:
            hear = None if self.on_block is None else (lambda k, lo=chunk.first_game: self.on_block(lo, k))
            yield play_chunk(chunk, self.threads, self.should_stop, hear)


def _check_int(name: str, value, low: int, high: int | None = None) -> None:
    if isinstance(value, bool) or not isinstance(value, (int, np.integer)):
        raise GnomingError(f"{name} must be an integer, got {value!r}")
    if value < low or (high is not None and value > high):
        bound = f">= {low}" if high is None else f"in {low}..{high}"
        raise GnomingError(f"{name} must be {bound}, got {value}")


@dataclass
class Outcome:
    """What :meth:`Batch.run` did: the summary of every game in the batch so far."""

    summary: dict
    games_done: int
    games_total: int
    resumed_games: int
    stopped_by: str | None = None   # "SIGINT", "SIGTERM", "stop_after_chunks" or OUT_OF_MEMORY when cut short
    out: Path | None = None
    abrupt: bool = False            # a second signal dropped the chunk in progress
    partial: Path | None = None     # set when an interrupted --force run kept its games there, out unchanged

    @property
    def complete(self) -> bool:
        return self.games_done == self.games_total


class Batch:
    """A batch ready to run: spec, output file and resume state, all checked up front.

    Parameters
    ----------
    spec : what to play (:meth:`BatchSpec.make`)
    out : Parquet file to write (None: summary only)
    resume : complete ``out`` if it exists (it must have been started with the same spec);
        a missing file is started afresh
    force : replace an existing ``out``
    chunk_size : games per chunk (one engine call and one row group each)
    """

    def __init__(self, spec: BatchSpec, out=None, *, resume: bool = False, force: bool = False,
                 chunk_size: int = DEFAULT_CHUNK_GAMES):
        _check_int("chunk size", chunk_size, 1)
        if resume and out is None:
            raise GnomingError("--resume needs --out FILE (the file to complete)")
        if force and out is None:
            raise GnomingError("--force needs --out FILE (the file to replace); without --out nothing is written")
        self.spec = spec
        # a chunk is held in memory until it is written: one that would not fit is played as several
        # (the same games; only the row groups are smaller)
        from gnoming_sim.batch.memory import chunk_games_that_fit

        self.chunk_size = chunk_games_that_fit(spec.players, min(int(chunk_size), spec.games))
        self.chunk_capped = int(chunk_size) > self.chunk_size and self.chunk_size < spec.games
        self.schema = batch_schema(spec.names, spec.metadata())
        self.out = None if out is None else check_output(out, resume, force)
        # an interrupted run never publishes over a file of another run: it keeps its partial
        self.replaces = self.out is not None and force and self.out.exists()
        self.kept_partial = None
        self.existing = None     # the finished games to build on: ``out`` or an interrupted run's partial
        self.recovered = None    # set when they are the partial's: the sink appends to it
        self.lock = None if self.out is None else OutputLock(self.out)   # held until run() ends
        if self.out is not None:
            self.existing, self.recovered = find_existing(self.out, spec, self.schema, resume, force)

    @property
    def resumed_games(self) -> int:
        return 0 if self.existing is None else self.existing.games

    def run(self, threads: int | None = None, progress: Callable[[int], None] | None = None,
            stop_after_chunks: int | None = None, pool=None,
            notice: Callable[[str], None] | None = None) -> Outcome:
        """Play the games not yet in the output; return the summary of the whole batch.

        ``progress(done)`` is called with the number of games done, after each block of
        games played here (after each chunk on a pool); ``stop_after_chunks`` stops as an
        interruption would, after that many new chunks.  ``pool`` plays the chunks (an
        object with ``play(chunks)`` yielding their :class:`PlayedChunk` in order, such as
        :func:`gnoming_sim.batch.distributed.open_pool` gives); None plays them here with
        ``threads`` numba threads.  ``notice(text)`` hears at once that a signal was caught.
        """
        tally = Tally(self.spec.names, self.spec.players)
        report = _Monotone(progress)
        t0 = time.perf_counter()
        abrupt = False
        with compile_clock() as compiling, Interrupts(notice) as signals:
            if pool is None:
                pool = InProcess(threads, should_stop=lambda: signals.stop_requested,
                                 on_block=lambda lo, k: report(lo + k))
            try:
                done, stopped, abrupt = self._write(tally, pool, report, signals, stop_after_chunks)
            finally:
                if self.lock is not None:
                    self.lock.release()
        wall = time.perf_counter() - t0
        return self._outcome(tally, done, stopped, wall, abrupt, compiling.seconds)

    # ------------------------------------------------------------------ parts of run
    def _write(self, tally, pool, report, signals, stop_after_chunks):
        """Tally what exists, play the rest into the sink: ``(games done, stopped by, abrupt)``.

        On an error the sink keeps its partial file when it holds new games (``--resume``
        continues from there) and ``out`` is left as it was; on an interrupt the finished
        games are published, as when the run stops at a signal.
        """
        if self.existing is not None and self.resumed_games == self.spec.games:
            self._read_existing(tally, None)  # already complete: nothing to write
            if self.recovered is not None:    # complete in the partial: publish it
                self._sink().close()
            return self.resumed_games, None, False
        copy = self.recovered is None
        if not copy:
            self._read_existing(tally, None)  # checked before the partial is appended to
        sink = self._sink() if self.out else None
        try:
            if copy:
                self._read_existing(tally, sink)
            report(self.resumed_games)
            result = self._play(tally, sink, pool, report, signals, stop_after_chunks)
        except KeyboardInterrupt:   # an interrupt that is not ours: keep the finished chunks, as ours do
            if sink is not None:
                self._finish(sink, interrupted=True)
            raise
        except BaseException:
            if sink is not None:
                sink.abandon()
            raise
        if sink is not None:
            self._finish(sink, interrupted=result[1] is not None and result[0] < self.spec.games)
        return result

    def _finish(self, sink, interrupted: bool) -> None:
        """Publish the sink, except after an interrupt of a run that would replace another run's
        file (``--force``): then that file stays as it was and the games stay in the partial,
        which ``--resume`` completes."""
        if interrupted and self.replaces and sink.games > sink.min_games:
            sink.abandon()
            self.kept_partial = sink.partial
        else:
            sink.close()

    def _sink(self) -> ParquetSink:
        """A new partial (fresh run, or a resume that copies ``out``), or the recovered one reopened:
        its games count as new, since publishing it completes (or replaces) ``out``."""
        min_games = 0 if self.recovered is not None else self.resumed_games
        return ParquetSink(self.out, self.schema, min_games, per_game=ROUNDS * self.spec.players,
                           resume=self.recovered)

    def _read_existing(self, tally: Tally, sink) -> None:
        """Tally the finished games of the file being resumed (and copy them into ``sink``).

        Every row group is checked first (:meth:`BatchFile.row_groups`): a damaged one stops
        the run with the game it fails at, before anything is written."""
        if self.existing is None:
            return
        for first, stats, seat_strategy in self.existing.row_groups():
            tally.add(stats, seat_strategy, win_credit(stats[..., F_SCORE]))
            if sink is not None:  # rebuilt, not copied: every row group gets the same dictionary
                sink.write(table_of(first, stats, seat_strategy, self.spec.names), len(stats))

    def _chunks(self) -> Iterator[Chunk]:
        """The chunks of the games not yet in the output, in order."""
        spec = self.spec
        strategies = tuple(registry.get(name) for name in spec.seats)
        for lo in range(self.resumed_games, spec.games, self.chunk_size):
            yield Chunk(spec, strategies, lo, min(self.chunk_size, spec.games - lo))

    def _play(self, tally, sink, pool, report, signals, stop_after_chunks):
        """Play and write chunks until done or stopped: ``(games done, stopped by, abrupt)``."""
        spec = self.spec
        lo, chunks = self.resumed_games, 0
        played = pool.play(self._chunks())
        try:
            while lo < spec.games:
                if signals.signum is not None:
                    return lo, signal.Signals(signals.signum).name, False
                if stop_after_chunks is not None and chunks >= stop_after_chunks:
                    return lo, "stop_after_chunks", False
                signals.waiting = True
                try:
                    part = next(played)
                except KeyboardInterrupt:
                    if signals.count < 2:
                        raise   # not ours: someone else's KeyboardInterrupt
                    return lo, signal.Signals(signals.signum).name, True
                except MemoryError:
                    if lo == self.resumed_games:
                        raise   # nothing new to keep
                    return lo, OUT_OF_MEMORY, False   # the games written so far are kept, as at a signal
                finally:
                    signals.waiting = False
                if part.first_game != lo:  # a pool that broke the chunk order: never write out of order
                    raise RuntimeError(f"pool returned games {part.first_game}.. where {lo}.. were due")
                if sink is not None:
                    sink.write(table_of(lo, part.round_stats, part.seat_strategy, spec.names), part.games)
                tally.add(part.round_stats, part.seat_strategy, part.win_credit)
                lo, chunks = lo + part.games, chunks + 1
                report(lo)
                if part.out_of_memory:
                    return lo, OUT_OF_MEMORY, False
            return lo, None, False
        finally:
            played.close()  # a pool cancels the chunks it started ahead

    def _outcome(self, tally: Tally, done: int, stopped, wall: float, abrupt: bool = False,
                 compile_s: float = 0.0) -> Outcome:
        spec = self.spec
        extra = {"seats": list(spec.seats), "rotate": spec.rotate, "resumed_games": self.resumed_games,
                 "out": None if self.out is None else str(self.out),
                 "games_requested": spec.games, "complete": done == spec.games,
                 "interrupted": stopped}
        summary = build_summary(tally, seed=spec.seed, rules=spec.rules, deck=spec.deck, wall_s=wall,
                                games_run=done - self.resumed_games, extra=extra, compile_s=compile_s)
        return Outcome(summary, done, spec.games, self.resumed_games, stopped, self.out, abrupt,
                       self.kept_partial)


class _Monotone:
    """A progress callback that hears each count of games done once, in increasing order."""

    def __init__(self, progress: Callable[[int], None] | None):
        self.progress = progress
        self.last = -1

    def __call__(self, done: int) -> None:
        if self.progress is not None and done > self.last:
            self.last = done
            self.progress(done)


def run_batch(spec: BatchSpec, out=None, *, resume: bool = False, force: bool = False,
              chunk_size: int = DEFAULT_CHUNK_GAMES, threads: int | None = None,
              progress: Callable[[int], None] | None = None,
              stop_after_chunks: int | None = None, pool=None,
              notice: Callable[[str], None] | None = None) -> Outcome:
    """:class:`Batch` (checks) then :meth:`Batch.run` (plays) in one call."""
    batch = Batch(spec, out, resume=resume, force=force, chunk_size=chunk_size)
    return batch.run(threads=threads, progress=progress, stop_after_chunks=stop_after_chunks, pool=pool,
                     notice=notice)
