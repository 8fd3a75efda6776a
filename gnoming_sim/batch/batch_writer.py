"""Writing a batch file so that no crash loses a finished chunk: the partial file and its index.

While a batch is written, ``out`` itself is untouched; the rows go to two files beside it,
both created exclusively (never through a link) under the output's lock:

``.NAME.partial``
    ``PAR1`` then the bytes of every row group written so far, back to back: each chunk is
    encoded as a small standalone Parquet file in memory, and its row group's bytes are
    appended here and synced.  Every page carries a CRC (``write_page_checksum``), which
    readers here verify.
``.NAME.partial.index``
    One record per chunk (the row groups' footer metadata, offsets moved to where the
    bytes now lie, the file length and games so far), with a CRC, appended and synced
    *after* the chunk's bytes.  The first record holds the footer without row groups.

Closing writes the footer listing every row group, syncs, reads the footer back,
renames the partial over ``out`` and syncs the folder.  After any crash (SIGKILL, a
full disk, a power cut) the index names the row groups that are complete on disk:
:func:`recover` cuts the partial after the last of them and ``--resume`` continues
from there.  A row group holds whole games only, whatever the chunk size.
"""
from __future__ import annotations

import errno
import os
import struct
import zlib
from dataclasses import dataclass, field as dataclass_field
from pathlib import Path

from gnoming_sim.batch import thrift_compact as tc
from gnoming_sim.batch.safe_write import (OutputLock, arrow_path, create_exclusive, fsync_dir, io, open_own_file, reason,
                                          remove_own, show, write_all)
from gnoming_sim.game.errors import GnomingError

MAGIC = b"PAR1"
INDEX_MAGIC = b"GSIDX1\n"
_RECORD = struct.Struct("<cQQI")    # kind, file length after the chunk, games so far, payload bytes
_CRC = struct.Struct("<I")
MAX_GROUP_ROWS = 1 << 26           # pyarrow caps a row group at 64 Mi rows: split before, at whole games

# offsets inside a footer that point into the file: RowGroup.file_offset, ColumnChunk's index
# offsets, ColumnMetaData's page and bloom filter offsets (parquet.thrift field ids)
_RG_COLUMNS, _RG_FILE_OFFSET, _RG_ORDINAL = 1, 5, 7
_CC_OFFSETS, _CC_META = (2, 4, 6), 3
_CM_OFFSETS = (9, 10, 11, 14)
_FM_NUM_ROWS, _FM_ROW_GROUPS = 3, 4


def partial_paths(out: Path) -> tuple[Path, Path]:
    """``(.NAME.partial, .NAME.partial.index)`` beside ``out``."""
    partial = out.with_name(f".{out.name}.partial")
    return partial, partial.with_name(partial.name + ".index")


@dataclass
class Recovered:
    """What the partial file of an interrupted run holds: complete row groups only."""

    partial: Path
    template: list                 # the footer struct without row groups
    groups: list = dataclass_field(default_factory=list)   # row group structs, offsets in the partial
    end: int = len(MAGIC)          # the partial's length after the last complete row group
    games: int = 0
    rows: int = 0
    index_end: int = 0             # the index's length after its last good record

    def seal(self) -> None:
        """Cut the partial after its last complete row group and write a footer there, so it
        can be read as a Parquet file (a later :class:`ParquetSink` cuts the footer off again)."""
        fd = open_own_file(self.partial)
        try:
            os.ftruncate(fd, self.end)
            os.lseek(fd, self.end, os.SEEK_SET)
            write_all(fd, footer_bytes(self.template, self.groups, self.rows))
            io.fsync(fd)
        finally:
            os.close(fd)


def footer_bytes(template: list, groups: list, rows: int) -> bytes:
    """The footer of a file of ``groups``: thrift FileMetaData, its length, ``PAR1``."""
    meta = [list(f) for f in template]
    tc.set_field(meta, _FM_NUM_ROWS, tc.I64, rows)
    numbered = []
    for i, group in enumerate(groups):
        group = [list(f) for f in group]
        tc.drop_field(group, _RG_ORDINAL)
        if i < 1 << 15:   # the ordinal is an i16
            tc.set_field(group, _RG_ORDINAL, tc.I16, i)
        numbered.append(group)
    tc.set_field(meta, _FM_ROW_GROUPS, tc.LIST, (tc.STRUCT, numbered))
    raw = tc.encode_struct(meta)
    return raw + _CRC.pack(len(raw)) + MAGIC


def _segment(table, players_rows: int) -> tuple[memoryview, list, list]:
    """Encode ``table`` (whole games of ``players_rows`` rows each) as a standalone Parquet file:
    ``(row group bytes, row group structs with offsets in that file, footer without row groups)``."""
    import pyarrow as pa
    import pyarrow.parquet as pq

    step = max(1, MAX_GROUP_ROWS // players_rows) * players_rows
    buf = pa.BufferOutputStream()
    # page checksums: a flipped byte in a page is found when the file is read back, not decoded silently
    with pq.ParquetWriter(buf, table.schema, compression="zstd", write_page_checksum=True) as writer:
        for lo in range(0, max(table.num_rows, 1), step):
            part = table.slice(lo, step)
            writer.write_table(part, row_group_size=max(part.num_rows, 1))
    data = memoryview(buf.getvalue())
    (size,) = _CRC.unpack(data[-8:-4])
    meta, _ = tc.decode_struct(data[-8 - size:-8])
    groups = tc.field(meta, _FM_ROW_GROUPS)[2][1] if table.num_rows else []
    template = [f for f in meta if f[0] != _FM_ROW_GROUPS]
    tc.set_field(template, _FM_NUM_ROWS, tc.I64, 0)
    return data[len(MAGIC):len(data) - 8 - size], groups, template


def _shift(group: list, by: int) -> list:
    """A row group struct with every file offset moved by ``by`` bytes (0 means unset and stays)."""
    for f in group:
        if f[0] == _RG_FILE_OFFSET and f[2]:
            f[2] += by
        elif f[0] == _RG_COLUMNS:
            for chunk in f[2][1]:
                for g in chunk:
                    if g[0] in _CC_OFFSETS and g[2]:
                        g[2] += by
                    elif g[0] == _CC_META:
                        for h in g[2]:
                            if h[0] in _CM_OFFSETS and h[2]:
                                h[2] += by
    return group


def _record(kind: bytes, end: int, games: int, payload: bytes) -> bytes:
    head = _RECORD.pack(kind, end, games, len(payload)) + payload
    return head + _CRC.pack(zlib.crc32(head))


class ParquetSink:
    """Chunks of rows to ``out``, crash-safely (see the module docstring).

    ``min_games``: the games the output held before (a resume); :meth:`close` replaces it
    only with more.  ``resume``: a :class:`Recovered` partial to append to, instead of a new
    one.  ``per_game``: rows per game (row groups are cut only between games).
    ``resumable``: the command has a ``--resume`` (else a failed run's partial is removed).
    """

    def __init__(self, out: Path, schema, min_games: int = 0, *, per_game: int = 1,
                 resume: Recovered | None = None, option: str = "--out", resumable: bool = True):
        self.out, self.option, self.per_game, self.resumable = Path(out), option, per_game, resumable
        self.partial, self.index = partial_paths(self.out)
        self.min_games, self.schema = min_games, schema
        self.lock = OutputLock(self.out, option)
        self.fd = self.index_fd = None
        try:
            if resume is None:
                self._create(schema)
            else:
                self._reopen(resume)
        except OSError as exc:
            self._close_fds()
            if resume is None:   # a new partial holds nothing yet
                remove_own(self.partial)
                remove_own(self.index)
            self.lock.release()
            kept = "it is unchanged" if self.out.exists() else "nothing was written"
            raise GnomingError(f"{option} {show(self.out)}: cannot write {show(self.partial.name)} "
                               f"({reason(exc)}); {kept}") from None

    def _create(self, schema) -> None:
        remove_own(self.partial)   # a crashed run's leftovers (the caller decided they may go)
        remove_own(self.index)
        _, _, self.template = _segment(schema.empty_table(), self.per_game)
        self.groups, self.end, self.games, self.rows = [], len(MAGIC), 0, 0
        self.fd = create_exclusive(self.partial)
        self.index_fd = create_exclusive(self.index)
        write_all(self.fd, MAGIC)
        io.fsync(self.fd)
        write_all(self.index_fd, INDEX_MAGIC + _record(b"T", self.end, 0, tc.encode_struct(self.template)))
        io.fsync(self.index_fd)
        fsync_dir(self.partial.parent)

    def _reopen(self, rec: Recovered) -> None:
        self.template, self.groups = rec.template, list(rec.groups)
        self.end, self.games, self.rows = rec.end, rec.games, rec.rows
        self.fd = open_own_file(self.partial)
        os.ftruncate(self.fd, self.end)   # cut off the footer :meth:`Recovered.seal` wrote
        os.lseek(self.fd, self.end, os.SEEK_SET)
        self.index_fd = open_own_file(self.index)
        os.ftruncate(self.index_fd, rec.index_end)
        os.lseek(self.index_fd, rec.index_end, os.SEEK_SET)

    def write(self, table, games: int) -> None:
        """Append the rows of ``games`` whole games; synced, and recorded in the index."""
        if not table.schema.equals(self.schema, check_metadata=False):
            raise ValueError(f"rows with columns {table.schema.names} do not match the file's")
        body, groups, _ = _segment(table, self.per_game)
        try:
            write_all(self.fd, body)
            io.fsync(self.fd)
            groups = [_shift(g, self.end - len(MAGIC)) for g in groups]
            end, total = self.end + len(body), self.games + games
            write_all(self.index_fd, _record(b"R", end, total, tc.encode_struct([[1, tc.LIST, (tc.STRUCT, groups)]])))
            io.fsync(self.index_fd)
        except OSError as exc:
            raise self._failed(exc) from None
        self.groups += groups
        self.end, self.games, self.rows = end, total, self.rows + table.num_rows

    def close(self) -> None:
        """Publish the partial as ``out`` if it holds more games than before; else remove it."""
        if self.games <= self.min_games:
            self.discard()
            return
        try:
            try:
                write_all(self.fd, footer_bytes(self.template, self.groups, self.rows))
                io.fsync(self.fd)
                self._verify()
                io.replace(self.partial, self.out)
            except OSError as exc:
                if not self.resumable:
                    remove_own(self.partial)
                    remove_own(self.index)
                raise self._failed(exc) from None
            remove_own(self.index)
            try:
                fsync_dir(self.out.parent)
            except OSError as exc:
                raise GnomingError(f"{self.option} {show(self.out)}: written whole, but its folder could not be "
                                   f"synced ({reason(exc)}): a power cut could still lose it") from None
        finally:
            self._close_fds()
            self.lock.release()

    def _verify(self) -> None:
        """Read the footer back: every row group, every row, where the index says."""
        import pyarrow.parquet as pq

        try:
            with arrow_path(self.partial) as name:
                meta = pq.read_metadata(name)
        except Exception as exc:  # pyarrow's own error types: say what was found in one line
            raise OSError(errno.EIO, f"the finished file does not read back ({type(exc).__name__})") from None
        if meta.num_rows != self.rows or meta.num_row_groups != len(self.groups):
            raise OSError(errno.EIO, "the finished file reads back with other row counts")

    def _failed(self, exc: OSError) -> GnomingError:
        kept = f"{show(self.out)} is unchanged" if self.out.exists() else "no file was published"
        if self.games > self.min_games and self.resumable:
            kept += (f"; the {self.games} games written so far are kept in {show(self.partial.name)}: "
                     "run the same command with --resume once the disk is fixed")
        return GnomingError(f"{self.option} {show(self.out)}: cannot write ({reason(exc)}); {kept}")

    def abandon(self) -> None:
        """After an error: keep the partial (for ``--resume``) if it holds new games, else remove it."""
        if self.games > self.min_games and self.resumable:
            self._close_fds()
            self.lock.release()
        else:
            self.discard()

    def discard(self) -> None:
        """Close and delete the partial file, whatever it holds: ``out`` stays as it was."""
        self._close_fds()
        remove_own(self.partial)
        remove_own(self.index)
        self.lock.release()

    def _close_fds(self) -> None:
        for name in ("fd", "index_fd"):
            fd = getattr(self, name)
            if fd is not None:
                setattr(self, name, None)
                os.close(fd)


def recover(out: Path) -> Recovered | None:
    """The complete row groups of the partial file an interrupted run left beside ``out``.

    None when there is no partial; ``games == 0`` when it holds no complete chunk (or has no
    index to tell).  A link or another user's file at the partial's name is a GnomingError.
    """
    partial, index = partial_paths(Path(out))
    if not os.path.lexists(partial):
        return None
    os.close(open_own_file(partial, os.O_RDONLY))
    size = partial.stat().st_size
    if not os.path.lexists(index):
        return Recovered(partial, [])
    fd = open_own_file(index, os.O_RDONLY)
    with os.fdopen(fd, "rb") as fh:
        data = fh.read()
    rec = Recovered(partial, [])
    if not data.startswith(INDEX_MAGIC):
        return rec
    pos = len(INDEX_MAGIC)
    while pos + _RECORD.size <= len(data):
        kind, end, games, n = _RECORD.unpack_from(data, pos)
        stop = pos + _RECORD.size + n + _CRC.size
        if stop > len(data) or _CRC.unpack_from(data, stop - _CRC.size)[0] != zlib.crc32(data[pos:stop - _CRC.size]):
            break   # a record torn by the crash: everything before it is whole
        if end > size:
            break   # the index ran ahead of the data (no fsync order then): do not trust it
        payload = data[pos + _RECORD.size:stop - _CRC.size]
        try:
            struct_, _ = tc.decode_struct(payload)
        except tc.ThriftError:
            break
        if kind == b"T":
            rec.template = struct_
        elif kind == b"R" and rec.template:
            groups = tc.field(struct_, 1)[2][1]
            rec.groups += groups
            rec.rows += sum(tc.field(g, 3)[2] for g in groups)
            rec.games = games
        else:
            break
        rec.end, rec.index_end, pos = end, stop, stop
    if not rec.template:
        return Recovered(partial, [])
    return rec
