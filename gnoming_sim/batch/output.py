"""The output guard: every path a command writes is checked here before any work, and what an
existing batch output holds.

Every command that writes (a file or a folder) calls :func:`guard_path` (through
:func:`check_output` for a file, :func:`gnoming_sim.batch.safe_folder.check_target` for a
folder) before its first game.  It refuses, in one line:

- a path that cannot be created: a name over :data:`MAX_NAME` bytes (the files written beside
  it, ``.NAME.lock`` and ``.NAME.<random>.partial``, need the rest of the 255), a loop of
  symbolic links, a file where a folder should be;
- an output that *is* one of the command's inputs (the same file by device and inode, so
  through a symbolic or hard link too);
- a name with the wrong extension for the format written (``.parquet``, ``.json``, ``.toml``,
  ...; a folder's name must not end in one);
- a symbolic link, unless ``--force``: then the link itself is replaced, never its target;
- a file output named with a trailing ``/`` (a folder's name);
- a folder that cannot be written (:func:`check_writable`: an actual probe, for files and folders alike).

:func:`find_existing` decides, under the output's lock, what a run builds on: ``out`` itself, or
the finished parts an interrupted run left beside it (:mod:`gnoming_sim.batch.batch_writer`).
"""
from __future__ import annotations

import errno
import os
import stat
import tempfile
from pathlib import Path
from typing import Iterable

from gnoming_sim.batch import batch_writer
from gnoming_sim.batch.parquet import BatchFile
from gnoming_sim.batch.safe_write import reason, show
from gnoming_sim.game.errors import GnomingError

MAX_NAME = 220   # bytes of an output's own name: 255 less what the helper files beside it add
FILE_SUFFIXES = (".parquet", ".json", ".toml", ".csv", ".png", ".html", ".gz", ".state")


def guard_path(out, option: str = "--out", inputs: Iterable = (), suffixes: tuple[str, ...] | None = None,
               force: bool = False, folder: bool = False) -> Path:
    """The checks every output shares (see the module docstring); ``out`` as a Path, else a
    one-line GnomingError.  ``suffixes``: the extensions the format allows (None: any);
    ``folder``: the output is a folder (its name must not end in a file extension)."""
    path = Path(out)
    text = show(path)
    if not folder and os.fsencode(out).endswith((b"/", b"/.")):   # Path() drops a trailing / or /.
        raise GnomingError(f"{option} {show(out)}: a name ending in / names a folder, and {option} names a file; "
                           "drop the slash (or name a file in that folder)")
    for k, part in enumerate(path.parts):
        size = len(os.fsencode(part))
        if size > (MAX_NAME if k == len(path.parts) - 1 else 255):   # the folders above hold no helper file
            raise GnomingError(f"{option} {text[:60]}...: a name in it is {size} bytes long; at most {MAX_NAME} for "
                               "the output's own name (the files written beside it need the rest of the "
                               "system's 255), 255 for a folder above it")
    linked = False
    try:
        if not stat.S_ISDIR(os.stat(path.parent).st_mode):
            raise GnomingError(f"{option} {text}: {show(path.parent)} is a file, not a directory")
        linked = os.path.islink(path)
        if linked:
            os.stat(path)   # a loop of links: ELOOP; a dangling link: ENOENT, which is fine
    except OSError as exc:
        if exc.errno == errno.ENOENT and linked:
            pass
        elif exc.errno == errno.ENOENT:
            return _guard_missing_parent(path, option, suffixes, folder)
        elif not (exc.errno == errno.ELOOP and linked):   # a looping link at the name itself: refused below
            what = {errno.ELOOP: "it goes through a loop of symbolic links",
                    errno.ENOTDIR: "a part of it is a file, not a folder",
                    errno.ENAMETOOLONG: "the name is too long"}.get(exc.errno, f"cannot reach it ({reason(exc)})")
            raise GnomingError(f"{option} {text}: {what}") from None
    if suffixes is not None and not linked and path.is_dir():
        raise GnomingError(f"{option} {text} is a directory")
    _check_suffix(path, option, suffixes, folder)
    _refuse_inputs(path, option, inputs)
    if linked and not force:
        raise GnomingError(f"{option} {text} is a symbolic link; name the file itself, or add --force to "
                           "replace the link (its target is left alone)")
    return path


def _check_suffix(path: Path, option: str, suffixes, folder: bool) -> None:
    if suffixes is not None and path.suffix.lower() not in suffixes:
        names = " or ".join(f"*{s}" for s in suffixes)
        raise GnomingError(f"{option} {show(path)}: this output is written as {suffixes[0][1:].upper()}"
                           f"{' (or ' + ', '.join(s[1:].upper() for s in suffixes[1:]) + ')' if len(suffixes) > 1 else ''}"
                           f"; name it {names}")
    if folder and path.suffix.lower() in FILE_SUFFIXES:
        raise GnomingError(f"{option} {show(path)}: names a folder, but ends in {path.suffix} like a file; "
                           "name the folder without an extension")


def _guard_missing_parent(path: Path, option: str, suffixes, folder: bool) -> Path:
    _check_suffix(path, option, suffixes, folder)
    blocker = next((p for p in reversed(path.parents) if p.exists() and not p.is_dir()), None)
    if blocker is not None:
        raise GnomingError(f"{option} {show(path)}: {show(blocker)} is a file, not a directory")
    return path   # a missing folder: the caller says whether it is made


def _refuse_inputs(path: Path, option: str, inputs: Iterable) -> None:
    """An output that is one of the inputs (same device and inode, whatever link leads there)."""
    try:
        here = os.stat(path)
    except OSError:
        return
    for item in inputs:
        if item is None:
            continue
        try:
            same = os.path.samestat(here, os.stat(item))
        except OSError:
            continue
        if same:
            raise GnomingError(f"{option} {show(path)} is {show(item)}, an input of this command; "
                               "write the output elsewhere")


def check_writable(path: Path, option: str, folder: bool = False) -> None:
    """The folder ``path`` is written in accepts a new file, else a one-line GnomingError: an actual probe
    (a nameless temporary file made there and gone at once), as permission bits say nothing for root or
    on a read-only mount.  ``folder``: ``path`` is a folder output, whose missing parents are made when it
    is written: the nearest folder above it that exists is probed, and ``path`` itself when it exists (a
    report's files are renamed into it, or it is moved aside whole)."""
    place = path.parent
    if folder:
        while not os.path.isdir(place) and place != place.parent:
            place = place.parent
    places = [place, path] if folder and path.is_dir() and not path.is_symlink() else [place]
    for place in places:
        try:
            with tempfile.TemporaryFile(dir=place):
                pass
        except OSError as exc:
            raise GnomingError(f"{option} {show(path)}: cannot write in {show(place)} ({reason(exc)})") from None


def check_output(out, resume: bool = False, force: bool = False, resumable: bool = True, *, inputs: Iterable = (),
                 suffixes: tuple[str, ...] | None = None, option: str = "--out") -> Path:
    """Check that the file ``out`` can be written, before anything runs; return it as a Path.

    :func:`guard_path` first; an existing file is only completed (``resume``) or replaced
    (``force``), never overwritten by accident.  ``resumable``: the command has a ``--resume``
    to suggest.
    """
    if resume and force:
        raise GnomingError("--resume and --force exclude each other (complete the file, or start over)")
    path = guard_path(out, option, inputs, suffixes, force)
    if os.path.islink(path):
        if path.is_dir():
            raise GnomingError(f"{option} {show(path)} is a symbolic link to a directory; name a file")
    elif path.is_dir():
        raise GnomingError(f"{option} {path} is a directory")
    parent = path.parent
    if not parent.is_dir():
        # name the first part of the path that is a file (games.parquet/x.parquet), else the missing folder
        blocker = next((p for p in reversed(path.parents) if p.exists() and not p.is_dir()), None)
        if blocker is not None:
            raise GnomingError(f"{option} {path}: {blocker} is a file, not a directory")
        raise GnomingError(f"{option} {path}: directory {parent} does not exist")
    check_writable(path, option)
    if not os.access(parent, os.W_OK | os.X_OK):
        raise GnomingError(f"{option} {path}: directory {parent} is not writable")
    if os.path.lexists(path) and not (resume or force):
        hint = "add --resume to complete it or --force to replace it" if resumable else "add --force to replace it"
        raise GnomingError(f"{option} {show(path)} already exists; {hint}")
    return path


def find_existing(out: Path, spec, schema, resume: bool, force: bool):
    """``(existing, recovered)``: the finished games a run to ``out`` builds on (a
    :class:`BatchFile` or None), and the :class:`Recovered` partial when they are its.  Call it
    under the output's lock.

    ``--resume`` builds on whichever holds more games of this batch (the partial when it
    proves the same batch and ``out`` is of another); ``--force`` removes a partial; a
    fresh run refuses a partial that holds games.
    """
    partial = batch_writer.partial_path(out)
    if force:
        batch_writer.remove_partial(partial)
        return None, None
    rec = batch_writer.recover(out)
    if rec is not None and not rec.games:
        batch_writer.remove_partial(partial)   # nothing finished in it: nothing to lose
        rec = None
    if rec is not None and not resume:
        raise GnomingError(f"--out {show(out)}: {show(partial.name)} holds {rec.games} games of an "
                           "interrupted run; add --resume to complete it or --force to start over")
    if not resume:
        return None, None
    part = None if rec is None else BatchFile.open_for_resume(rec.parts, spec, schema, label=show(partial))
    final = None
    if out.exists():
        try:
            final = BatchFile.open_for_resume(out, spec, schema, label=show(out))
        except GnomingError:
            if part is None:
                raise
    if part is not None and (final is None or part.games >= final.games):
        return part, rec
    return final, None
