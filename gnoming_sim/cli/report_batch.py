"""``gnoming-sim report --from FILE.parquet``: the report of one ``simulate --out`` batch.

Also ``simulate ... --out F.parquet --report DIR``.  The report is written into a fresh
temporary folder beside ``DIR`` and put in place when complete
(:mod:`gnoming_sim.batch.safe_folder`), so ``DIR`` holds either the previous report or the
new one, never half of one.  A ``DIR`` that already holds files is written only with
``--force``, and even then the files gnoming-sim did not write are kept; a ``DIR`` that
holds the batch file (or is the current folder) is refused before anything runs.
"""
from __future__ import annotations

import os
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


def check_out(out: Path, force: bool, option: str = "--out", inputs=()) -> Path:
    """Refuse an ``out`` that is a file, ``.``, holds an input, or holds files without ``force``."""
    from gnoming_sim.batch.safe_folder import check_target

    return check_target(out, option, force, inputs, own_needs_force=True, names=("index.html", "summary.json"))


def report_from(path, out=None, force: bool = False, option: str = "--out") -> tuple[Path, dict]:
    """Scan the batch file ``path`` and write its report to ``out``; ``(out, summary)``.

    Every check (the file, the output folder) runs before the pass over the file.
    """
    from gnoming_sim.batch.scan import open_batch, scan_batch

    from gnoming_sim.batch.safe_folder import staged_report
    from gnoming_sim.batch.safe_write import Terminated, show, sigterm_raises

    src = Path(path)
    pf, _ = open_batch(src)
    rows = pf.metadata.num_rows
    pf.close()
    target = default_out(src) if out is None else Path(out)
    check_out(target, force, option, inputs=[src])
    try:
        with sigterm_raises(), staged_report(target, option) as stage:
            with group.progress_bar(rows, f"reading {src.name}", absolute=False) as advance:
                scan = scan_batch(src, progress=advance)
            from gnoming_sim.analyses.batch_report import write_batch_report

            summary = write_batch_report(scan, stage)
    except KeyboardInterrupt as exc:   # Ctrl-C, or SIGTERM (Terminated): the staging folder is gone
        kept = f"{show(target)} is left as it was" if target.exists() else f"nothing was written to {show(target)}"
        click.echo(f"{group.PROG}: interrupted; {kept}", err=True)
        raise click.exceptions.Exit(143 if isinstance(exc, Terminated) else 130) from None
    return target, summary


# ------------------------------------------------------------------ simulate --report
def check_report_option(out, report_dir, force: bool, inputs=()) -> None:
    """``simulate --report DIR``: needs ``--out``; DIR must be usable and hold none of the
    command's inputs (the ``--out`` file among them): checked, and DIR locked, before any game."""
    from gnoming_sim.batch.safe_write import OutputLock, mkdir_unique, reason

    if out is None:
        raise GnomingError("--report needs --out FILE.parquet (the report is read from that file)")
    target = check_out(Path(report_dir), force, "--report", inputs=[out, *inputs])
    try:   # proves the folder beside it is writable
        target.parent.mkdir(parents=True, exist_ok=True)
        os.rmdir(mkdir_unique(target.parent, f".{target.name}.", ".partial"))
    except OSError as exc:
        raise GnomingError(f"--report {target}: cannot write beside it ({reason(exc)})") from None
    # locked now, not after the batch: a second run writing DIR, or a link planted at its lock, is refused
    # before any game; held until the command ends (the report re-enters it)
    click.get_current_context().call_on_close(OutputLock(target, "--report").release)


def report_after_simulate(out, report_dir, force: bool) -> None:
    """Write the report of the finished batch ``out``; one line on stderr (stdout may be JSON)."""
    target, summary = report_from(out, report_dir, force, "--report")
    from gnoming_sim.batch.safe_write import show

    click.echo(f"report: {show(target / 'index.html')}", err=True)
