"""Writing a batch file so that no crash loses a finished chunk: a folder of finished part files.

While a batch is written, ``out`` itself is untouched; under the output's lock the rows go to
the folder ``.NAME.partial`` beside it, one finished Parquet file per chunk: ``000003-400.parquet``
is the fourth part, after which the batch holds 400 games.  A part is written by pyarrow in
memory, then to ``000003-400.parquet.tmp`` (created exclusively, never through a link), synced,
and renamed to its name, and the folder synced: a part under its name is complete.  Every page
carries a CRC (``write_page_checksum``), which readers here verify.

Closing merges the parts, row group by row group, into one file (pyarrow's writer), syncs it,
reads its footer back, renames it over ``out``, removes the folder and syncs ``out``'s folder.
After any crash (SIGKILL, a full disk, a power cut) the parts numbered 0, 1, 2, ... that read
back are the finished chunks: :func:`recover` names them and ``--resume`` continues from there.
A row group holds whole games only, whatever the chunk size.
"""
from __future__ import annotations

import contextlib
import errno
import os
import re
import shutil
import stat
from dataclasses import dataclass, field as dataclass_field
from pathlib import Path

from gnoming_sim.batch.safe_write import (OutputLock, arrow_path, create_exclusive, fsync_dir, io, open_own_file, reason,
                                          remove_own, show, write_all)
from gnoming_sim.game.errors import GnomingError

MAX_GROUP_ROWS = 1 << 26           # pyarrow caps a row group at 64 Mi rows: split before, at whole games
BLOCK = 1 << 22                    # bytes of the merged file handed to the disk at a time
_PART = re.compile(r"(\d{6,})-(\d+)\.parquet")   # the part's number, the batch's games after it


def partial_path(out: Path) -> Path:
    """The folder ``.NAME.partial`` beside ``out`` that holds the finished parts."""
    return out.with_name(f".{out.name}.partial")


def remove_partial(path: Path) -> None:
    """Remove what is at the partial's name: the folder and its parts, or a link (never followed)."""
    if os.path.isdir(path) and not os.path.islink(path):
        shutil.rmtree(path)
    else:
        remove_own(path)


@dataclass
class Recovered:
    """What the partial folder of an interrupted run holds: its finished parts, in order."""

    partial: Path
    parts: list = dataclass_field(default_factory=list)
    games: int = 0
    rows: int = 0


def recover(out: Path) -> Recovered | None:
    """The finished parts an interrupted run left beside ``out``.

    None when there is no partial; ``games == 0`` when it holds no finished part (a part that does
    not read back ends the parts kept).  A link at the partial's name or at a part's, or another
    user's part, is a GnomingError.
    """
    import pyarrow.parquet as pq

    folder = partial_path(Path(out))
    try:
        mode = os.lstat(folder).st_mode
    except FileNotFoundError:
        return None
    if stat.S_ISLNK(mode):
        raise GnomingError(f"{show(folder)} is a symbolic link, not a folder gnoming-sim left; "
                           "remove it (or use --force to start over)")
    rec = Recovered(folder)
    if not stat.S_ISDIR(mode):
        return rec
    found = sorted((*map(int, m.groups()), m[0]) for m in map(_PART.fullmatch, os.listdir(folder)) if m)
    for i, (number, games, name) in enumerate(found):
        if number != i:
            break
        with os.fdopen(open_own_file(folder / name, os.O_RDONLY), "rb") as fh:
            try:
                rows = pq.read_metadata(fh).num_rows
            except Exception:  # pyarrow's own error types: a part that does not read back is not kept
                break
        rec.parts.append(folder / name)
        rec.games, rec.rows = games, rec.rows + rows
    return rec


class _Seam:
    """A file for pyarrow's writer that hands its bytes to ``fd`` through the fault seam, in blocks
    of :data:`BLOCK` bytes; with ``fd`` None (after an error) it takes them and writes nothing."""

    closed = False

    def __init__(self, fd: int):
        self.fd, self.buf = fd, bytearray()

    def write(self, data: bytes) -> int:
        if self.fd is not None:
            self.buf += data
            if len(self.buf) >= BLOCK:
                self.flush()
        return len(data)

    def flush(self) -> None:
        if self.fd is not None:
            write_all(self.fd, self.buf)
            self.buf.clear()


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
        self.partial, self.min_games, self.schema = partial_path(self.out), min_games, schema
        self.parts, self.games, self.rows = ([], 0, 0) if resume is None else (list(resume.parts), resume.games,
                                                                              resume.rows)
        self.lock = OutputLock(self.out, option)
        try:
            if resume is None:
                remove_partial(self.partial)   # a crashed run's leftovers (the caller decided they may go)
                os.mkdir(self.partial, 0o777)
                fsync_dir(self.partial.parent)
            else:   # what follows the finished parts: a torn temporary file, parts after one that did not read back
                for name in set(os.listdir(self.partial)) - {p.name for p in self.parts}:
                    remove_own(self.partial / name)
        except OSError as exc:
            if resume is None:   # a new partial holds nothing yet
                remove_partial(self.partial)
            self.lock.release()
            kept = "it is unchanged" if self.out.exists() else "nothing was written"
            raise GnomingError(f"{option} {show(self.out)}: cannot write {show(self.partial.name)} "
                               f"({reason(exc)}); {kept}") from None

    def write(self, table, games: int) -> None:
        """Add the rows of ``games`` whole games as the next part: synced, then renamed to its name."""
        import pyarrow as pa
        import pyarrow.parquet as pq

        if not table.schema.equals(self.schema, check_metadata=False):
            raise ValueError(f"rows with columns {table.schema.names} do not match the file's")
        buf = pa.BufferOutputStream()
        # page checksums: a flipped byte in a page is found when the file is read back, not decoded silently
        with pq.ParquetWriter(buf, self.schema, compression="zstd", write_page_checksum=True) as writer:
            writer.write_table(table, row_group_size=max(1, MAX_GROUP_ROWS // self.per_game) * self.per_game)
        part = self.partial / f"{len(self.parts):06d}-{self.games + games}.parquet"
        tmp = part.with_name(part.name + ".tmp")
        try:
            fd = create_exclusive(tmp)
            try:
                write_all(fd, buf.getvalue())
                io.fsync(fd)
            finally:
                os.close(fd)
            io.rename(tmp, part)
            fsync_dir(self.partial)
        except OSError as exc:
            remove_own(tmp)
            raise self._failed(exc) from None
        self.parts.append(part)
        self.games, self.rows = self.games + games, self.rows + table.num_rows

    def close(self) -> None:
        """Publish the parts merged as ``out`` if they hold more games than before; else remove them."""
        if self.games <= self.min_games:
            self.discard()
            return
        merged = self.partial / "merged.tmp"
        try:
            try:
                self._merge(merged)
                io.replace(merged, self.out)
            except OSError as exc:
                remove_own(merged)
                if not self.resumable:
                    remove_partial(self.partial)
                raise self._failed(exc) from None
            remove_partial(self.partial)
            try:
                fsync_dir(self.out.parent)
            except OSError as exc:
                raise GnomingError(f"{self.option} {show(self.out)}: written whole, but its folder could not be "
                                   f"synced ({reason(exc)}): a power cut could still lose it") from None
        finally:
            self.lock.release()

    def _merge(self, path: Path) -> None:
        """Every part's row groups, in order, as one file at ``path``: synced, its footer read back."""
        import pyarrow.parquet as pq

        fd = create_exclusive(path)
        sink, groups = _Seam(fd), 0
        writer = pq.ParquetWriter(sink, self.schema, compression="zstd", write_page_checksum=True)
        try:
            for part in self.parts:
                with arrow_path(part) as name, pq.ParquetFile(name, page_checksum_verification=True) as pf:
                    for i in range(pf.num_row_groups):
                        table = pf.read_row_group(i, use_threads=False)
                        writer.write_table(table, row_group_size=max(table.num_rows, 1))
                        groups += 1
            writer.close()
            sink.flush()
            io.fsync(fd)
            with arrow_path(path) as name:
                meta = pq.read_metadata(name)
        except OSError:
            raise
        except Exception as exc:  # pyarrow's own error types: say what was found in one line
            raise OSError(errno.EIO, f"the parts do not merge into a file that reads back ({type(exc).__name__})") \
                from None
        finally:
            sink.fd = None   # a writer closed after an error writes nothing more
            with contextlib.suppress(Exception):
                writer.close()
            os.close(fd)
        if meta.num_rows != self.rows or meta.num_row_groups != groups:
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
            self.lock.release()
        else:
            self.discard()

    def discard(self) -> None:
        """Delete the partial folder, whatever it holds: ``out`` stays as it was."""
        remove_partial(self.partial)
        self.lock.release()
