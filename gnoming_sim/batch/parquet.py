"""The Parquet file of a batch: schema, chunks as Arrow tables, writing, reading back.

One row per (game, round, seat), in that order, with the columns of
:meth:`gnoming_sim.kernel.engine.SimResult.to_frame`::

    game int64 | round int8 | seat int8 | strategy dictionary<int8, string> | score ... int32

(``score`` and every other name of :data:`gnoming_sim.game.fields.NAMES`).  Each finished
chunk is one row group, compressed with zstd.  The schema metadata holds, under the
key ``gnoming_sim``, a JSON object of the batch's facts (seed, players, games, seats,
strategies and their parameters, rotation, rules, deck, package version) that a resume
must match.

Files are written by :class:`gnoming_sim.batch.batch_writer.ParquetSink` (finished part files
beside NAME, merged into place when complete and verified, recoverable after a crash).
Every file read back here is checked (:func:`check_magic`, :func:`parse_metadata`,
:func:`check_rows`, the page checksums of every column): a damaged one is refused with the
game it fails at, never copied.
"""
from __future__ import annotations

import json
from pathlib import Path
from typing import Iterator, Sequence

import numpy as np

from gnoming_sim.batch.safe_write import arrow_path
from gnoming_sim.game.errors import GnomingError, one_line
from gnoming_sim.game.deck import check_players
from gnoming_sim.game.fields import (F_BONUS, F_HAZARDS, F_MATCHED, F_NEGATIVES, F_SCORE, F_UNMATCHED,
                                     N_FIELDS, NAMES as FIELD_NAMES)
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

    Raises GnomingError, naming the first game that fails, when the rows are not whole
    games numbered from ``first_game`` in (round, seat) order, a seat changes strategy
    between rounds, or a score is not the sum of its parts (:func:`check_rows`).
    """
    import pyarrow as pa
    import pyarrow.compute as pc

    per_game = ROUNDS * players
    games = table.num_rows // per_game
    if table.num_rows % per_game:
        raise GnomingError(f"the rows after game {first_game + games - 1} are not a whole game: the file is damaged")
    for n in ("game", "round", "seat", "strategy", *FIELD_NAMES):
        if table.column(n).null_count:   # nulls read as NaN: refused here, before a cast would warn
            raise GnomingError(f"column {n!r} of games {first_game}.. has missing values: the file is damaged")
    want = np.repeat(np.arange(first_game, first_game + games, dtype=np.int64), per_game)
    _first_bad(first_game, per_game, [table.column("game").to_numpy() != want,
                                      table.column("round").to_numpy() != np.tile(np.repeat(
                                          np.arange(ROUNDS), players), games),
                                      table.column("seat").to_numpy() != np.tile(np.arange(players), games * ROUNDS)],
               "is not numbered in order (game, round, seat)")
    stats = np.stack([table.column(n).to_numpy() for n in FIELD_NAMES], axis=1).astype(np.int32)
    strategy = pc.index_in(table.column("strategy").cast(pa.string()), value_set=pa.array(list(names)))
    if strategy.null_count:
        raise GnomingError("the file names a strategy that its metadata does not list: the file is damaged")
    by_round = strategy.to_numpy().reshape(games, ROUNDS, players)
    _first_bad(first_game, 1, [(by_round != by_round[:, :1, :]).any(axis=(1, 2))],
               "has a seat that changes strategy between rounds")
    stats = stats.reshape(games, ROUNDS, players, N_FIELDS)
    check_rows(first_game, stats)
    return stats, by_round[:, 0, :].astype(np.int16)


def check_rows(first_game: int, stats: np.ndarray) -> None:
    """Every row's score must be the sum of its parts (``stats`` (G, ROUNDS, P, N_FIELDS))."""
    parts = stats[..., F_MATCHED] + stats[..., F_UNMATCHED] + stats[..., F_NEGATIVES] + stats[..., F_HAZARDS]
    bad = (stats[..., F_SCORE] != parts + stats[..., F_BONUS]).reshape(len(stats), -1).any(axis=1)
    _first_bad(first_game, 1, [bad], "has a score that is not the sum of its parts "
               "(matched + unmatched + negatives + hazards + bonus)")


def _first_bad(first_game: int, per: int, masks, what: str) -> None:
    """Raise naming the first game whose rows (``per`` per game) any of the boolean ``masks`` flags."""
    for mask in masks:
        hits = np.flatnonzero(mask)
        if hits.size:
            raise GnomingError(f"game {first_game + int(hits[0]) // per} {what}: the file is damaged")


MAGIC = b"PAR1"


def check_magic(path, label=None) -> None:
    """A Parquet file starts and ends with ``PAR1``; pyarrow reads only the footer, so a damaged
    leading magic would pass it.  A one-line GnomingError naming ``label`` otherwise."""
    import os

    label = label or path
    try:
        fd = os.open(path, os.O_RDONLY | os.O_CLOEXEC)
    except OSError:
        return   # the reader says why it cannot open it
    try:
        size = os.fstat(fd).st_size
        head = os.pread(fd, 4, 0)
        tail = os.pread(fd, 4, max(size - 4, 0))
    except OSError:
        return
    finally:
        os.close(fd)
    if size < 12 or head != MAGIC or tail != MAGIC:
        where = "is too short" if size < 12 else f"does not {'start' if head != MAGIC else 'end'} with PAR1"
        raise GnomingError(f"{label} is not a readable Parquet file (it {where}): the file is damaged")


def read_metadata(path) -> dict:
    """The batch facts stored in a batch file (the JSON object under :data:`META_KEY`), checked."""
    import pyarrow.parquet as pq

    with arrow_path(path) as name:
        raw = (pq.read_schema(name).metadata or {}).get(META_KEY)
    if raw is None:
        raise GnomingError(f"{path} was not written by gnoming-sim simulate (no batch metadata)")
    return parse_metadata(raw, path)


def parse_metadata(raw: bytes, path) -> dict:
    """The batch metadata ``raw`` (JSON bytes) of the file ``path``, or a one-line GnomingError
    when it is not an object of the batch's facts with the right types."""
    try:
        meta = json.loads(raw)
    except (ValueError, UnicodeDecodeError) as exc:
        raise GnomingError(f"{path}: its batch metadata is damaged (not JSON: {one_line(exc)})") from None
    problem = _metadata_problem(meta)
    if problem:
        raise GnomingError(f"{path}: its batch metadata is damaged ({problem})")
    return meta


def _metadata_problem(meta) -> str | None:
    if not isinstance(meta, dict):
        return f"a JSON {type(meta).__name__}, not an object"
    for key, kind in (("players", int), ("games", int), ("seed", int), ("seats", list),
                      ("strategies", dict), ("rules", dict), ("deck", dict)):
        value = meta.get(key)
        if not isinstance(value, kind) or isinstance(value, bool):
            return f"{key} is {_short(value)}, not a JSON {'number' if kind is int else kind.__name__}"
    try:
        check_players(meta["players"])
    except GnomingError as exc:
        return str(exc)
    if meta["games"] < 0 or meta["seed"] < 0:
        return "games and seed must not be negative"
    seats = meta["seats"]
    if len(seats) != meta["players"] or not all(isinstance(s, str) for s in seats):
        return "seats must be one strategy name per player"
    if not set(seats) <= set(meta["strategies"]):
        return "seats name a strategy the metadata does not list"
    for key, kind in (("rotate", bool), ("deck_name", str), ("version", str)):
        if key in meta and not isinstance(meta[key], kind):
            return f"{key} is {_short(meta[key])}, not a JSON {'true/false' if kind is bool else 'string'}"
    return _strategies_problem(meta["strategies"]) or _rules_deck_problem(meta)


def _strategies_problem(strategies: dict) -> str | None:
    """Each strategy entry is ``{"kind": int, "params": {name: finite number}}`` (what a batch writes)."""
    import math

    for name, entry in strategies.items():
        kind = entry.get("kind") if isinstance(entry, dict) else None
        if not isinstance(entry, dict) or isinstance(kind, bool) or not isinstance(kind, int):
            return f"strategy {name!r} is {_short(entry)}, not an object with an integer kind and params"
        params = entry.get("params")
        if not isinstance(params, dict):
            return f"strategy {name!r} has params {_short(params)}, not a JSON object"
        for key, value in params.items():
            if isinstance(value, bool) or not isinstance(value, (int, float)) or not math.isfinite(value):
                return f"strategy {name!r} has parameter {key!r} = {_short(value)}, not a finite number"
    return None


def _rules_deck_problem(meta: dict) -> str | None:
    """The rules and the deck, read as a command reads ``--rules`` and ``--deck`` (every option in
    its range, a deck that deals the table)."""
    from gnoming_sim.game.deck import Deck
    from gnoming_sim.game.rules import RuleConfig

    try:
        RuleConfig.from_dict(meta["rules"], source="its rules")
        Deck.from_mapping(meta["deck"], source="its deck").validate_for(meta["players"])
    except GnomingError as exc:
        return one_line(str(exc))
    return None


def _short(value) -> str:
    text = json.dumps(value)
    return text if len(text) <= 40 else text[:37] + "..."


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


class BatchFile:
    """A batch file opened to be resumed: its finished games, readable row group by row group.

    ``paths``: the file, or the parts of an interrupted run in order; ``label`` names them in
    messages (the partial folder of an interrupted run, or ``out``).
    """

    def __init__(self, paths, games: int, names: Sequence[str], players: int, label: str):
        self.paths, self.games, self.names, self.players, self.label = paths, games, tuple(names), players, label

    @classmethod
    def open_for_resume(cls, paths, spec, schema, label: str | None = None) -> "BatchFile":
        """Check that ``paths`` (a file, or a list of parts) were started by the same batch as
        ``spec``; count their games."""
        import pyarrow as pa
        import pyarrow.parquet as pq

        label = label or str(paths)
        paths = list(paths) if isinstance(paths, list) else [paths]
        want, rows = json.loads(json.dumps(spec.metadata())), 0   # the JSON round trip the file went through
        for path in paths:
            check_magic(path, f"--resume: {label}")
            try:
                with arrow_path(path) as name:
                    meta = pq.read_metadata(name)
                    file_schema = pq.read_schema(name)
            except (pa.ArrowException, OSError, ValueError) as exc:
                raise GnomingError(f"--resume: {label} is not a readable Parquet file ({one_line(exc)})") from None
            raw = (file_schema.metadata or {}).get(META_KEY)
            if raw is None:
                raise GnomingError(f"--resume: {label} was not written by gnoming-sim simulate (no batch metadata)")
            problem = describe_mismatch(parse_metadata(raw, f"--resume: {label}"), want)
            if problem:
                raise GnomingError(f"--resume: {label} {problem}; resume with the arguments it was started with, "
                                   "or use --force to start over")
            if not file_schema.equals(schema, check_metadata=False):
                raise GnomingError(f"--resume: {label} has other columns than this version writes; use --force")
            rows += meta.num_rows
        per_game = ROUNDS * spec.players
        if rows % per_game or rows // per_game > spec.games:
            raise GnomingError(f"--resume: {label} holds {rows} rows, not whole games of this batch: "
                               "the file is damaged; use --force to start over")
        return cls(paths, rows // per_game, spec.names, spec.players, label)

    def row_groups(self) -> Iterator[tuple[int, np.ndarray, np.ndarray]]:
        """``(first game, round_stats, seat_strategy)`` of every row group, in order, each checked
        (:func:`arrays_of`); an unreadable page or a failed check is a one-line GnomingError."""
        import pyarrow as pa
        import pyarrow.parquet as pq

        first = 0
        try:
            for path in self.paths:
                with arrow_path(path) as name, pq.ParquetFile(name, page_checksum_verification=True) as pf:
                    for i in range(pf.num_row_groups):
                        table = pf.read_row_group(i)
                        stats, seat_strategy = arrays_of(table, self.names, self.players, first)
                        yield first, stats, seat_strategy
                        first += len(stats)
        except GnomingError as exc:   # first: a GnomingError is a ValueError too
            raise GnomingError(f"--resume: {self.label}: {exc}; use --force to start over") from None
        except (pa.ArrowException, OSError, ValueError) as exc:
            raise GnomingError(f"--resume: {self.label}: cannot read games {first}.. ({one_line(exc)}): the file "
                               "is damaged; use --force to start over") from None
