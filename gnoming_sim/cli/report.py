"""``gnoming-sim report``: run the studies and write the HTML/PNG report."""
from __future__ import annotations

import contextlib

import click

from gnoming_sim.cli import options as opt
from gnoming_sim.cli import group  # group.stderr is looked up at call time (tests swap it)
from gnoming_sim.batch.safe_write import Terminated, show, sigterm_raises
from gnoming_sim.cli.group import PROG, cli
from gnoming_sim.game.errors import GnomingError


@cli.command()
@click.option("--quick", is_flag=True,
              help="Small samples: a complete report in about 30 s on 2 cores (tests, previews).")
@click.option("--games", type=int, default=None, metavar="N",
              help="Games per design cell of every study (a tournament lineup, an early-finish table size; "
                   "at most 512 for finish-or-play-on, where each game costs a rollout analysis) "
                   "[default: each study's own size].")
@opt.seed
@opt.cluster_threads
@opt.cluster_options
@opt.rules
@opt.deck
@opt.strategies_file
@click.option("--out", "out_dir", type=click.Path(file_okay=False), default="reports", show_default=True,
              metavar="DIR", help="Folder for index.html, the figures (PNG), the tables (CSV) and summary.json. "
                                  "It is replaced whole when the report is complete; a non-empty folder that "
                                  "holds no report is refused unless --force.")
@click.option("--from", "from_path", type=click.Path(dir_okay=False), default=None, metavar="FILE.parquet",
              help="Report on a `simulate --out` batch file instead of running the studies "
                   "[--out default: FILE-report/ beside it].")
@click.option("--force", is_flag=True, help="Replace --out even if it is a non-empty folder that holds no report.")
def report(quick, games, seed, threads, workers, scheduler, rules_path, deck_path, strategies_path, out_dir,
           from_path, force):
    """Run the studies (tournament, early-finish bonus, ...) and write an HTML report.

    The full report takes 10 to 18 minutes on 2 busy cores (--quick: about 30 s).  Strategies of
    --strategies-file join the presets in the tournament.  With --from, the report of one
    `simulate --out` batch file instead.
    """
    if from_path is not None:
        return _report_from(from_path, out_dir, force)
    if quick and games is not None:
        raise GnomingError("--quick and --games exclude each other: --quick sets its own small sizes")
    opt.check_at_least("--games", games, 1)
    opt.check_range("--games", games, 1, opt.MAX_STUDY_GAMES)
    opt.check_at_least("--threads", threads, 1)
    opt.check_cluster(workers, scheduler, threads)   # --workers and --threads ranges as in simulate
    opt.check_seed(seed)
    rules_ = opt.load_rules_file(rules_path)
    deck_ = opt.load_deck_file(deck_path, opt.REPORT_MAX_PLAYERS)
    extra = tuple(s.name for s in opt.load_strategies_file(strategies_path))

    # imports the engine: only after the option checks
    from gnoming_sim.analyses.report import build_report, check_out_dir
    from gnoming_sim.batch.distributed import open_pool

    out = check_out_dir(out_dir, force, inputs=[rules_path, deck_path, strategies_path])
    from gnoming_sim.batch.safe_write import OutputLock

    # locked before the compiles start (the report re-enters it), held until the command ends: a second
    # report to --out, or a link planted at its lock, is refused before any work
    click.get_current_context().call_on_close(OutputLock(out, "--out").release)
    compiling = None
    if workers is None and scheduler is None:
        # a cold cache: the report's kernel groups compile in worker processes while the studies whose groups
        # are ready already run (a preview plays no Monte Carlo player)
        from gnoming_sim.cli import warmup

        compiling = warmup.start([g for g in warmup.GROUPS if not (quick and g == "monte-carlo")],
                                 lambda line: click.echo(line, err=True))
    command = _report_command(quick, games, seed, threads, rules_path, deck_path, strategies_path, out_dir)
    ok = False
    try:
        with sigterm_raises(), open_pool(workers, scheduler, threads) as pool:
            summary = build_report(out, quick=quick, games=games, seed=seed, threads=threads, rules=rules_,
                                   deck=deck_, progress=_study_progress, command=command, pool=pool,
                                   force=force, strategies=extra, compiling=compiling)
        ok = True
    except KeyboardInterrupt as exc:   # Ctrl-C, or SIGTERM (Terminated)
        code = 143 if isinstance(exc, Terminated) else 130
        kept = f"the previous report in {show(out)} is left as it was" if out.exists() else "nothing was written"
        click.echo(f"{PROG}: report interrupted; {kept}", err=True)
        raise SystemExit(code) from None
    finally:
        if compiling is not None:
            compiling.close(ok)
    click.echo(f"report: {show(out / 'index.html')} ({summary['wall_s']:.0f} s)")
    for finding in summary["findings"]:
        click.echo(f"  - {finding['display']}")


def _report_from(from_path, out_dir, force) -> None:
    """``report --from FILE``: the report of one batch file (gnoming_sim.cli.report_batch)."""
    from gnoming_sim.cli import report_batch

    ctx = click.get_current_context()
    report_batch.check_from_options(ctx)
    opt.check_input_file("--from", from_path)   # a named pipe or a device: refused, never opened
    explicit = ctx.get_parameter_source("out_dir") is not click.core.ParameterSource.DEFAULT
    out, summary = report_batch.report_from(from_path, out_dir if explicit else None, force)
    click.echo(f"report: {show(out / 'index.html')} ({summary['batch']['games']:,} games, "
               f"{summary['scan']['wall_s']:.1f} s to read)")


def _report_command(quick, games, seed, threads, rules_path, deck_path, strategies_path, out_dir) -> str:
    """The command line that made a report, for its "how it was made" section."""
    parts = [PROG, "report"]
    parts += ["--quick"] if quick else []
    parts += [f"--games {games}"] if games is not None else []
    parts += [f"--seed {seed}"]
    parts += [f"--threads {threads}"] if threads is not None else []
    parts += [f"--rules {rules_path}"] if rules_path else []
    parts += [f"--deck {deck_path}"] if deck_path else []
    parts += [f"--strategies-file {strategies_path}"] if strategies_path else []
    parts += [f"--out {out_dir}"]
    return " ".join(parts)


@contextlib.contextmanager
def _study_progress(study, games: int):
    """A progress bar per study on a terminal; otherwise a line when it starts and ends."""
    import time

    stream = group.stderr()
    label = f"{study.title} ({games:,} games)"
    if hasattr(stream, "isatty") and stream.isatty():
        with click.progressbar(length=games, label=label, file=stream, show_pos=True) as bar:
            yield bar.update
        return
    t0 = time.perf_counter()
    click.echo(f"{label} ...", file=stream)
    yield lambda n: None
    click.echo(f"{study.title}: done in {time.perf_counter() - t0:.0f} s", file=stream)
