"""Where a batch is written: the ``--out`` checks, and what an existing output holds.

:func:`check_output` runs before anything is played; :func:`find_existing` decides, under the
output's lock, what a run builds on: ``out`` itself, or the partial file an interrupted run
left beside it (:mod:`gnoming_sim.batch.batch_writer`).
"""
from __future__ import annotations

import os
import tempfile
from pathlib import Path

from gnoming_sim.batch import batch_writer
from gnoming_sim.batch.parquet import BatchFile
from gnoming_sim.batch.safe_write import remove_own, show
from gnoming_sim.game.errors import GnomingError


def check_output(out, resume: bool = False, force: bool = False, resumable: bool = True) -> Path:
    """Check that ``out`` can be written, before anything runs; return it as a Path.

    An existing file is only completed (``resume``) or replaced (``force``), never
    overwritten by accident.  ``resumable``: the command has a ``--resume`` to suggest.
    """
    path = Path(out)
    if resume and force:
        raise GnomingError("--resume and --force exclude each other (complete the file, or start over)")
    if path.is_dir():
        raise GnomingError(f"--out {path} is a directory")
    parent = path.parent
    if not parent.is_dir():
        # name the first part of the path that is a file (games.parquet/x.parquet), else the missing folder
        blocker = next((p for p in reversed(path.parents) if p.exists() and not p.is_dir()), None)
        if blocker is not None:
            raise GnomingError(f"--out {path}: {blocker} is a file, not a directory")
        raise GnomingError(f"--out {path}: directory {parent} does not exist")
    try:
        with tempfile.TemporaryFile(dir=parent):
            pass
    except OSError as exc:
        raise GnomingError(f"--out {path}: cannot write in {parent} ({exc.strerror or exc})") from None
    if not os.access(parent, os.W_OK | os.X_OK):
        raise GnomingError(f"--out {path}: directory {parent} is not writable")
    if path.exists() and not (resume or force):
        hint = "add --resume to complete it or --force to replace it" if resumable else "add --force to replace it"
        raise GnomingError(f"--out {path} already exists; {hint}")
    return path


def find_existing(out: Path, spec, schema, resume: bool, force: bool):
    """``(existing, recovered)``: the finished games a run to ``out`` builds on (a
    :class:`BatchFile` or None), and the :class:`Recovered` partial when they are its.  Call it
    under the output's lock.

    ``--resume`` builds on whichever holds more games of this batch (the partial when it
    proves the same batch and ``out`` is of another); ``--force`` removes a partial; a
    fresh run refuses a partial that holds games.
    """
    partial, index = batch_writer.partial_paths(out)
    if force:
        remove_own(partial)
        remove_own(index)
        return None, None
    rec = batch_writer.recover(out)
    if rec is not None and not rec.games:
        remove_own(partial)   # nothing complete in it: nothing to lose
        remove_own(index)
        rec = None
    if rec is not None and not resume:
        raise GnomingError(f"--out {show(out)}: {show(partial.name)} holds {rec.games} games of an "
                           "interrupted run; add --resume to complete it or --force to start over")
    if not resume:
        return None, None
    part = None
    if rec is not None:
        rec.seal()
        part = BatchFile.open_for_resume(partial, spec, schema, label=show(partial))
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
