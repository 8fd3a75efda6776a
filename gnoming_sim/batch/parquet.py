"""The Parquet file of a batch: schema, chunks as Arrow tables, writing, reading back.

One row per (game, round, seat), in that order, with the columns of
:meth:`gnoming_sim.kernel.engine.SimResult.to_frame`::

    game int64 | round int8 | seat int8 | strategy dictionary<int8, string> | score ... int32

(``score`` and every other name of :data:`gnoming_sim.game.fields.NAMES`).  Each finished
chunk is one row group, compressed with zstd.  The schema metadata holds, under the
key ``gnoming_sim``, a JSON object of the batch's facts (seed, players, games, seats,
strategies and their parameters, rotation, rules, deck, package version) that a resume
must match.

A file is written as ``.NAME.partial`` beside NAME and renamed into place when it is
closed holding at least one new game (finished or interrupted), so NAME is always either
absent, the old file, or a valid file.
"""
from __future__ import annotations

import json
import os
from pathlib import Path
from typing import Iterator, Sequence

import numpy as np

from gnoming_sim.game.errors import GnomingError, one_line
from gnoming_sim.game.fields import N_FIELDS, NAMES as FIELD_NAMES
from gnoming_sim.game.rules import ROUNDS

META_KEY = b"gnoming_sim"

# resume mismatch messages: metadata key -> how the user sets it
_OPTION = {
    "version": "gnoming-sim version",
    "players": "--players",
    "seats": "--seats",
    "strategies": "strategy parameters",
    "rotate": "seat rotation",
    "seed": "--seed",
    "games": "--games",
    "rules": "--rules",
    "deck": "--deck",
}


def batch_schema(names: Sequence[str], metadata: dict):
    """The Arrow schema of a batch file, with ``metadata`` stored under :data:`META_KEY`."""
    import pyarrow as pa

    if len(names) > 127:
        raise GnomingError(f"at most 127 strategies in one batch, got {len(names)}")
    fields = [pa.field("game", pa.int64()), pa.field("round", pa.int8()), pa.field("seat", pa.int8()),
              pa.field("strategy", pa.dictionary(pa.int8(), pa.string()))]
    fields += [pa.field(name, pa.int32()) for name in FIELD_NAMES]
    return pa.schema(fields, metadata={META_KEY: json.dumps(metadata, sort_keys=True).encode()})


def table_of(first_game: int, round_stats: np.ndarray, seat_strategy: np.ndarray, names: Sequence[str]):
    """The rows of games ``first_game ..``: ``round_stats`` int32 (G, 3, P, N_FIELDS),
    ``seat_strategy`` int (G, P) indexing ``names``."""
    import pyarrow as pa

    games, rounds, players, _ = round_stats.shape
    strat = np.repeat(np.asarray(seat_strategy, dtype=np.int8)[:, None, :], rounds, axis=1).reshape(-1)
    flat = np.ascontiguousarray(round_stats, dtype=np.int32).reshape(-1, N_FIELDS)
    columns = {
        "game": pa.array(np.repeat(np.arange(first_game, first_game + games, dtype=np.int64), rounds * players)),
        "round": pa.array(np.tile(np.repeat(np.arange(rounds, dtype=np.int8), players), games)),
        "seat": pa.array(np.tile(np.arange(players, dtype=np.int8), games * rounds)),
        "strategy": pa.DictionaryArray.from_arrays(pa.array(strat), pa.array(list(names), pa.string())),
    }
    for j, name in enumerate(FIELD_NAMES):
        columns[name] = pa.array(flat[:, j])
    return pa.table(columns)


def arrays_of(table, names: Sequence[str], players: int, first_game: int) -> tuple[np.ndarray, np.ndarray]:
    """Inverse of :func:`table_of`: ``(round_stats, seat_strategy)`` of a row group.

    Raises GnomingError when the rows are not whole games numbered from ``first_game``.
    """
    import pyarrow as pa
    import pyarrow.compute as pc

    per_game = ROUNDS * players
    games = table.num_rows // per_game
    want = np.repeat(np.arange(first_game, first_game + games, dtype=np.int64), per_game)
    got = table.column("game").to_numpy()
    if table.num_rows % per_game or not np.array_equal(got, want):
        raise GnomingError(f"rows of games {first_game}.. are not whole games in order: the file is damaged")
    stats = np.stack([table.column(n).to_numpy() for n in FIELD_NAMES], axis=1).astype(np.int32)
    strategy = pc.index_in(table.column("strategy").cast(pa.string()), value_set=pa.array(list(names)))
    if strategy.null_count:
        raise GnomingError("the file names a strategy that its metadata does not list: the file is damaged")
    seat_strategy = strategy.to_numpy().reshape(games, ROUNDS, players)[:, 0, :]
    return stats.reshape(games, ROUNDS, players, N_FIELDS), seat_strategy.astype(np.int16)


def read_metadata(path) -> dict:
    """The batch facts stored in a batch file (the JSON object under :data:`META_KEY`)."""
    import pyarrow.parquet as pq

    raw = (pq.read_schema(path).metadata or {}).get(META_KEY)
    if raw is None:
        raise GnomingError(f"{path} was not written by gnoming-sim simulate (no batch metadata)")
    return json.loads(raw)


def describe_mismatch(old: dict, new: dict) -> str | None:
    """How the facts ``old`` (a file's) differ from ``new`` (this command's), or None.

    Names the first difference the way the user set it: ``--strategy greedy`` when every
    seat plays one strategy, ``--seats a,b,c`` otherwise, ``strategy parameters
    patient.finish_margin=6`` for one parameter, ``--rules max_turns=300`` for one option.
    """
    for key, option in _OPTION.items():
        a, b = old.get(key), new.get(key)
        if a == b:
            continue
        if key == "seats":
            return f"was written with {_seats_option(a)}, this command has {_seats_option(b)}"
        if isinstance(a, dict) and isinstance(b, dict):
            path, a, b = _first_difference(a, b)
            a, b = f"{path}={_show(a)}", f"{path}={_show(b)}"
        else:
            a, b = _show(a), _show(b)
        return f"was written with {option} {a}, this command has {option} {b}"
    return None


def _seats_option(seats) -> str:
    if isinstance(seats, list) and seats and len(set(seats)) == 1:
        return f"--strategy {seats[0]}"
    return f"--seats {_show(seats)}"


def _first_difference(a: dict, b: dict, prefix: str = ""):
    """(dotted key, value in a, value in b) of the first differing leaf of two nested dicts.

    The strategies' ``params`` level is skipped in the name: ``patient.finish_margin``.
    """
    key = next(k for k in sorted(set(a) | set(b), key=str) if a.get(k) != b.get(k))
    x, y = a.get(key), b.get(key)
    name = prefix if key == "params" else f"{prefix}.{key}" if prefix else str(key)
    if isinstance(x, dict) and isinstance(y, dict):
        return _first_difference(x, y, name)
    return name, x, y


def _show(value) -> str:
    if isinstance(value, bool):
        return "on" if value else "off"
    if isinstance(value, list):
        return ",".join(map(str, value))
    if isinstance(value, dict):
        return json.dumps(value, sort_keys=True)
    return "(none)" if value is None else str(value)


class ParquetSink:
    """Row groups to ``.NAME.partial`` beside ``out``; :meth:`close` renames it to ``out``.

    ``min_games``: the games the existing ``out`` holds (a resume).  The partial file
    replaces ``out`` only if it holds more games than that: a run that wrote no new game
    (an error or an interrupt before its first chunk was written, with ``--force`` or
    ``--resume``) deletes it and leaves any old ``out`` untouched.
    """

    def __init__(self, out: Path, schema, min_games: int = 0):
        import pyarrow.parquet as pq

        self.out = Path(out)
        self.partial = self.out.with_name(f".{self.out.name}.partial")
        self.min_games = min_games
        self.games = 0
        try:
            self.writer = pq.ParquetWriter(self.partial, schema, compression="zstd")
        except OSError as exc:
            raise GnomingError(f"--out {self.out}: cannot write {self.partial} ({exc})") from None

    def write(self, table, games: int) -> None:
        self.writer.write_table(table)
        self.games += games

    def close(self) -> None:
        self.writer.close()
        if self.games > self.min_games:
            os.replace(self.partial, self.out)
        else:
            self.partial.unlink()

    def discard(self) -> None:
        """Close and delete the partial file, whatever it holds: ``out`` stays as it was."""
        self.writer.close()
        self.partial.unlink(missing_ok=True)


class BatchFile:
    """A batch file opened to be resumed: its finished games, readable row group by row group."""

    def __init__(self, path: Path, games: int, names: Sequence[str], players: int):
        self.path, self.games, self.names, self.players = path, games, tuple(names), players

    @classmethod
    def open_for_resume(cls, path: Path, spec, schema) -> "BatchFile":
        """Check that ``path`` was started by the same batch as ``spec``; count its games."""
        import pyarrow as pa
        import pyarrow.parquet as pq

        try:
            meta = pq.read_metadata(path)
            file_schema = pq.read_schema(path)
        except (pa.ArrowException, OSError) as exc:
            raise GnomingError(f"--resume: {path} is not a readable Parquet file ({one_line(exc)})") from None
        raw = (file_schema.metadata or {}).get(META_KEY)
        if raw is None:
            raise GnomingError(f"--resume: {path} was not written by gnoming-sim simulate (no batch metadata)")
        want = json.loads(json.dumps(spec.metadata()))  # the JSON round trip the file went through
        problem = describe_mismatch(json.loads(raw), want)
        if problem:
            raise GnomingError(f"--resume: {path} {problem}; resume with the arguments it was started with, "
                               "or use --force to start over")
        if not file_schema.equals(schema, check_metadata=False):
            raise GnomingError(f"--resume: {path} has other columns than this version writes; use --force")
        per_game = ROUNDS * spec.players
        if meta.num_rows % per_game or meta.num_rows // per_game > spec.games:
            raise GnomingError(f"--resume: {path} holds {meta.num_rows} rows, not whole games of this batch")
        return cls(path, meta.num_rows // per_game, spec.names, spec.players)

    def row_groups(self) -> Iterator[tuple[int, object]]:
        """``(first game, Arrow table)`` of every row group, in order."""
        import pyarrow.parquet as pq

        per_game = ROUNDS * self.players
        first = 0
        with pq.ParquetFile(self.path) as pf:
            for i in range(pf.num_row_groups):
                table = pf.read_row_group(i)
                yield first, table
                first += table.num_rows // per_game
