"""Report folders, written crash-safely and without swallowing anyone else's files.

A report is written into a fresh hidden folder beside its target (:class:`StagedDir`),
each file synced, and published when complete.  The target's manifest
(:data:`MANIFEST`, JSON ``{"written_by": ..., "files": [...]}``) lists the files the
tool wrote; anything else in the folder is a *foreign* file, kept:

- a target holding nothing but an earlier report is swapped whole (renamed aside, the new
  folder renamed into place, the old one removed), so it never mixes two reports;
- a target holding foreign files is refused unless ``--force``, naming them; with
  ``--force`` the report's files are renamed in one by one beside them, the earlier
  report's files removed, and the foreign files are left where they are;
- a foreign file is never replaced or removed: a target holding a foreign file under a name
  the report writes (a user's own ``index.html``) is refused even with ``--force``
  (:func:`check_target` for the names known before the run, :meth:`StagedDir.publish` for the
  rest, before it moves anything).

A folder from before the manifest (a plain-text marker, or only a ``summary.json`` of ours) is
migrated: only the names a report of that time wrote (:data:`_LEGACY_NAMES`, and the
``<study>-<name>.png``/``.csv`` files of the studies its ``summary.json`` lists) count as the
tool's; every other file there stays the user's.

:func:`check_target` runs before any game is played: it applies the output guard
(:func:`gnoming_sim.batch.output.guard_path`: a name too long, a loop, a file in the way; and
:func:`gnoming_sim.batch.output.check_writable`: a folder that cannot be written) and
refuses a target that is ``.`` (or holds the current folder) or that holds one of the
command's inputs.
"""
from __future__ import annotations

import contextlib
import json
import os
import shutil
from pathlib import Path
from typing import Iterable

from gnoming_sim.batch.safe_write import (OutputLock, create_exclusive, fsync_dir, io, mkdir_unique, reason,
                                          show, write_all)
from gnoming_sim.game.errors import GnomingError

MANIFEST = ".gnoming-sim-report"
_LEGACY_NAMES = ("index.html", "summary.json", "review.json")   # what reports wrote before the manifest


def written_files(folder: Path) -> set[str] | None:
    """The names gnoming-sim wrote in ``folder`` (its manifest included); None when it holds no report.

    A report from before the manifest (a plain-text marker, or only a summary.json of ours)
    counts only the names such a report wrote as its own (see the module docstring).
    """
    marker = folder / MANIFEST
    if marker.is_file() and not marker.is_symlink():
        try:
            data = json.loads(marker.read_text(encoding="utf-8"))
            files = data["files"]
            if isinstance(files, list) and all(isinstance(f, str) and "/" not in f for f in files):
                return set(files) | {MANIFEST}
        except (OSError, ValueError, KeyError, TypeError):
            pass
        return _legacy(folder) | {MANIFEST}
    if _old_summary(folder) is not None:
        return _legacy(folder)
    return None


def _legacy(folder: Path) -> set[str]:
    """The files a report from before the manifest wrote: its fixed names, and its studies' figures
    and tables (``<study id>-*.png`` / ``.csv``, the ids its summary.json lists)."""
    studies = _old_summary(folder) or set()
    ours = set()
    for p in folder.iterdir():
        if not p.is_file() or p.is_symlink():
            continue
        study = p.name.rpartition("-")[0]
        if p.name in _LEGACY_NAMES or (p.suffix in (".png", ".csv") and study and
                                       any(study == s or study.startswith(f"{s}-") for s in studies)):
            ours.add(p.name)
    return ours


def _old_summary(folder: Path) -> set[str] | None:
    """The study ids of an old report's summary.json (None when there is none of ours)."""
    try:
        summary = json.loads((folder / "summary.json").read_text(encoding="utf-8"))
    except (OSError, ValueError):
        return None
    if not (isinstance(summary, dict) and {"version", "findings", "studies"} <= summary.keys()):
        return None
    studies = summary["studies"]
    items = studies if isinstance(studies, list) else list(studies) if isinstance(studies, dict) else []
    ids = {i.get("id") if isinstance(i, dict) else i for i in items}
    ids = {i for i in ids if isinstance(i, str) and i and "/" not in i}
    return ids | {i.replace("_", "-") for i in ids}


def check_target(out, option: str, force: bool, inputs: Iterable = (), own_needs_force: bool = False,
                 names: Iterable[str] = ()) -> Path:
    """``out`` as a Path if a report may be written there; else a one-line GnomingError.

    ``inputs``: files the command reads (a batch file, rules, deck): ``out`` must not hold
    any.  ``own_needs_force``: an earlier report there is replaced only with ``force``.
    ``names``: the files the command will write, when known before the run: a foreign file of
    one of these names is refused even with ``force``.
    """
    from gnoming_sim.batch.output import check_writable, guard_path

    inputs = list(inputs)
    out = guard_path(out, option, inputs, None, force=False, folder=True) if not os.path.islink(out) else Path(out)
    here = Path.cwd().resolve()
    if os.fspath(out) in ("", ".") or out.resolve() in (here, *here.parents):
        raise GnomingError(f"{option} {show(out)} is the current folder or holds it; name a new folder "
                           "for the report")
    if out.is_symlink():
        raise GnomingError(f"{option} {show(out)} is a symbolic link; give the folder itself")
    if out.exists() and not out.is_dir():
        raise GnomingError(f"{option} {show(out)} is a file, not a folder (not a directory)")
    root = out.resolve()
    for item in inputs:
        if item is not None and Path(item).resolve().is_relative_to(root):
            raise GnomingError(f"{option} {show(out)} holds {show(item)}, an input of this command; "
                               "write the report to a folder that holds none of its inputs")
    check_writable(out, option, folder=True)
    if not out.is_dir():
        return out
    entries = sorted(os.listdir(out))
    foreign = [e for e in entries if e not in (written_files(out) or set())]
    _refuse_clash(out, option, [e for e in foreign if e in set(names)])
    if foreign and not force:
        named = ", ".join(show(e) for e in foreign[:3]) + (f" and {len(foreign) - 3} more" if len(foreign) > 3 else "")
        raise GnomingError(f"{option} {show(out)} already holds files gnoming-sim did not write ({named}); "
                           "add --force to write the report beside them (they are kept)")
    if entries and own_needs_force and not force:
        raise GnomingError(f"{option} {show(out)} already holds a report; add --force to replace it")
    return out


def _refuse_clash(out: Path, option: str, clash: list[str]) -> None:
    if clash:
        raise GnomingError(f"{option} {show(out)} holds {', '.join(show(e) for e in clash)}, which gnoming-sim did "
                           f"not write and this command would replace; move {'it' if len(clash) == 1 else 'them'} "
                           "or write to another folder (nothing was changed)")


class StagedDir:
    """A report folder being written: files go to a fresh folder beside ``out``.

    Use as a context manager: :meth:`publish` puts the files in place; leaving the block
    without it (an error, Ctrl-C, SIGTERM) removes the staging folder, and ``out`` stays as
    it was.  The target is locked (:class:`OutputLock`) from creation to the end.
    """

    def __init__(self, out: Path, option: str = "--out"):
        self.out, self.option = Path(out), option
        try:   # its missing parents first: the lock lies beside it
            self.out.parent.mkdir(parents=True, exist_ok=True)
        except OSError as exc:
            raise GnomingError(f"{option} {show(self.out)}: cannot make the folder {show(self.out.parent)} "
                               f"({reason(exc)})") from None
        self.lock = OutputLock(self.out, option)
        try:
            self._after_a_crash()
            self.path = mkdir_unique(self.out.parent, f".{self.out.name}.", ".partial")
        except OSError as exc:
            self.lock.release()
            raise GnomingError(f"{option} {show(self.out)}: cannot write beside it ({reason(exc)})") from None
        self.files: list[str] = []
        self.touched = False     # the file-by-file renames have begun
        self.published = False   # the report is in place; only the folder sync is left

    def _after_a_crash(self) -> None:
        """A run killed while it published leaves its folders beside ``out`` (we hold the lock, so
        they are stale): a report it had set aside goes back to ``out`` if ``out`` is missing, and
        the rest is removed."""
        prefix = f".{self.out.name}."
        for entry in os.listdir(self.out.parent):
            middle, _, kind = entry[len(prefix):].partition(".")
            if not (entry.startswith(prefix) and kind in ("old", "partial") and len(middle) == 12
                    and all(c in "0123456789abcdef" for c in middle)):
                continue   # not a name mkdir_unique gave
            path = self.out.parent / entry
            if path.is_symlink() or not path.is_dir():
                continue
            kept = path / "report"
            if kind == "old" and kept.is_dir() and not os.path.lexists(self.out):
                os.rename(kept, self.out)
            shutil.rmtree(path, ignore_errors=True)

    def write(self, name: str, data: bytes | str) -> None:
        """Write the file ``name`` of the report (a plain name, no folder), synced."""
        if "/" in name or name in ("", ".", "..", MANIFEST):
            raise ValueError(f"not a report file name: {name!r}")
        raw = show(data).encode("utf-8") if isinstance(data, str) else data   # a file name's bad bytes as \xNN
        fd = create_exclusive(self.path / name)
        try:
            write_all(fd, raw)
            io.fsync(fd)
        finally:
            os.close(fd)
        self.files.append(name)

    def publish(self) -> None:
        """Put the written files at ``out`` (see the module docstring); OSError on a disk failure."""
        from gnoming_sim.game.version import __version__

        manifest = json.dumps({"written_by": f"gnoming-sim {__version__}", "files": sorted(self.files)}, indent=1)
        fd = create_exclusive(self.path / MANIFEST)
        try:
            write_all(fd, manifest.encode())
            io.fsync(fd)
        finally:
            os.close(fd)
        fsync_dir(self.path)
        out, parent = self.out, self.out.parent
        if not os.path.lexists(out):
            io.rename(self.path, out)
            self.published = True
            fsync_dir(parent)
            return
        ours = written_files(out) or set()
        _refuse_clash(out, self.option, sorted(set(self.files) & (set(os.listdir(out)) - ours)))
        if all(e in ours for e in os.listdir(out)):
            self._swap()
        else:
            self._merge(ours)

    def _swap(self) -> None:
        out, parent = self.out, self.out.parent
        trash = mkdir_unique(parent, f".{out.name}.", ".old")
        try:
            io.rename(out, trash / "report")
            try:
                io.rename(self.path, out)
            except BaseException:
                os.rename(trash / "report", out)   # put the previous report back
                raise
            self.published = True
            fsync_dir(parent)
        finally:
            shutil.rmtree(trash, ignore_errors=True)

    def _merge(self, ours: set[str]) -> None:
        """Rename the new files in one by one; the earlier report's other files go; foreign files stay."""
        out = self.out
        for name in self.files:
            io.replace(self.path / name, out / name)
            self.touched = True   # from here a failure can leave new files beside old ones
        for name in sorted(ours - set(self.files) - {MANIFEST}):
            with contextlib.suppress(FileNotFoundError):
                os.unlink(out / name)
        io.replace(self.path / MANIFEST, out / MANIFEST)
        self.published = True
        os.rmdir(self.path)
        fsync_dir(out)

    def discard(self) -> None:
        shutil.rmtree(self.path, ignore_errors=True)

    def __enter__(self):
        return self

    def __exit__(self, kind, exc, tb):
        try:
            if kind is not None:
                self.discard()
        finally:
            self.lock.release()
        return False


@contextlib.contextmanager
def staged_report(out: Path, option: str = "--out"):
    """``with staged_report(out) as stage: stage.write(...)``: published when the block ends.

    A disk error while writing or publishing is a one-line GnomingError; ``out`` is then
    unchanged, except that with foreign files present a failure part-way through the
    file-by-file renames leaves new files beside old ones (and says so), never a file lost.
    """
    with StagedDir(out, option) as stage:
        try:
            yield stage
            stage.publish()
        except OSError as exc:
            if stage.published:
                raise GnomingError(f"{option} {show(out)}: the report is written whole, but its folder could not "
                                   f"be synced ({reason(exc)}): a power cut could still lose it") from None
            kept = ("some of its files are new, some old (the files gnoming-sim did not write are kept): "
                    "run the command again" if stage.touched else
                    "it is unchanged" if os.path.lexists(out) else "nothing was written")
            raise GnomingError(f"{option} {show(out)}: cannot write the report ({reason(exc)}); {kept}") from None
