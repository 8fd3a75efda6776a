"""``gnoming-sim report --from FILE.parquet``: the report of one ``simulate --out`` batch.

Also ``simulate ... --out F.parquet --report DIR``.  The report is written into a fresh
temporary folder beside ``DIR`` and renamed into place when complete, so ``DIR`` holds
either the previous report or the new one, never half of one; a ``DIR`` that already
holds files is replaced only with ``--force``.
"""
from __future__ import annotations

import os
import shutil
import tempfile
from pathlib import Path

import click

from gnoming_sim.cli import group  # group.stderr is looked up at call time (tests swap it)
from gnoming_sim.game.errors import GnomingError

# study-report options that mean nothing for a finished batch
STUDY_OPTIONS = ("quick", "games", "seed", "threads", "workers", "scheduler", "rules_path", "deck_path")


def default_out(path: Path) -> Path:
    """``games.parquet`` -> ``games-report/`` beside it."""
    return path.with_name(f"{path.stem}-report")


def check_from_options(ctx: click.Context) -> None:
    """``--from`` reads a finished batch: the study options must not be given with it."""
    for name in STUDY_OPTIONS:
        if ctx.get_parameter_source(name) is click.core.ParameterSource.COMMANDLINE:
            flag = next(o for p in ctx.command.params if p.name == name for o in p.opts if o.startswith("--"))
            raise GnomingError(f"--from reports on a finished batch; {flag} belongs to the study report "
                               "(set it when running simulate)")


def check_out(out: Path, force: bool, option: str = "--out") -> None:
    """Refuse an ``out`` that is a file, or a folder holding files without ``force``."""
    if out.exists() and not out.is_dir():
        raise GnomingError(f"{option} {out} is not a directory")
    if out.is_dir() and any(out.iterdir()) and not force:
        raise GnomingError(f"{option} {out} already holds files; add --force to replace them")


def _staging(out: Path, option: str) -> Path:
    """A new, empty folder beside ``out`` (same file system, so the final rename is atomic)."""
    parent = out.parent
    try:
        parent.mkdir(parents=True, exist_ok=True)
        staging = Path(tempfile.mkdtemp(prefix=f".{out.name}.", suffix=".partial", dir=parent))
    except OSError as exc:
        raise GnomingError(f"{option} {out}: cannot write in {parent} ({exc.strerror or exc})") from None
    umask = os.umask(0)
    os.umask(umask)
    os.chmod(staging, 0o777 & ~umask)   # mkdtemp makes it private; a report is an ordinary folder
    return staging


def _publish(staging: Path, out: Path) -> None:
    """Move the finished ``staging`` folder to ``out``, replacing what is there."""
    if not out.exists():
        os.rename(staging, out)
        return
    old = Path(tempfile.mkdtemp(prefix=f".{out.name}.", suffix=".old", dir=out.parent))
    os.rename(out, old / "report")
    try:
        os.rename(staging, out)
    except OSError:
        os.rename(old / "report", out)   # put the previous report back
        raise
    shutil.rmtree(old, ignore_errors=True)


def report_from(path, out=None, force: bool = False, option: str = "--out") -> tuple[Path, dict]:
    """Scan the batch file ``path`` and write its report to ``out``; ``(out, summary)``.

    Every check (the file, the output folder) runs before the pass over the file.
    """
    from gnoming_sim.batch.scan import open_batch, scan_batch

    src = Path(path)
    pf, _ = open_batch(src)
    rows = pf.metadata.num_rows
    target = default_out(src) if out is None else Path(out)
    check_out(target, force, option)
    staging = _staging(target, option)
    try:
        with group.progress_bar(rows, f"reading {src.name}", absolute=False) as advance:
            scan = scan_batch(src, progress=advance)
        from gnoming_sim.analyses.batch_report import write_batch_report

        summary = write_batch_report(scan, staging)
        _publish(staging, target)
    except KeyboardInterrupt:
        shutil.rmtree(staging, ignore_errors=True)
        kept = f"{target} is left as it was" if target.exists() else f"nothing was written to {target}"
        click.echo(f"{group.PROG}: interrupted; {kept}", err=True)
        raise click.exceptions.Exit(130) from None
    except BaseException:
        shutil.rmtree(staging, ignore_errors=True)
        raise
    return target, summary


# ------------------------------------------------------------------ simulate --report
def check_report_option(out, report_dir, force: bool) -> None:
    """``simulate --report DIR``: needs ``--out``; DIR must be usable, checked before any game."""
    if out is None:
        raise GnomingError("--report needs --out FILE.parquet (the report is read from that file)")
    target = Path(report_dir)
    check_out(target, force, "--report")
    shutil.rmtree(_staging(target, "--report"))   # proves the folder beside it is writable


def report_after_simulate(out, report_dir, force: bool) -> None:
    """Write the report of the finished batch ``out``; one line on stderr (stdout may be JSON)."""
    target, summary = report_from(out, report_dir, force, "--report")
    click.echo(f"report: {target / 'index.html'}", err=True)
