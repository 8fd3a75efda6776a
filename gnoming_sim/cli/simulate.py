"""``gnoming-sim simulate``: a batch of games, its summary, an optional Parquet file."""
from __future__ import annotations

import json

import click

from gnoming_sim.cli import options as opt
from gnoming_sim.cli import group  # group.stderr is looked up at call time (tests swap it)
from gnoming_sim.cli.group import PROG, cli
from gnoming_sim.game.errors import GnomingError


@cli.command()
@opt.table_options
@click.option("--games", type=int, default=10_000, show_default=True, metavar="N",
              help="Games to play (3 rounds each).")
@opt.cluster_threads
@opt.cluster_options
@click.option("--out", type=click.Path(), default=None, metavar="FILE.parquet",
              help="Write one row per (game, round, seat) to this Parquet file, chunk by chunk.")
@click.option("--resume", is_flag=True,
              help="Complete an interrupted --out file (same arguments); start it if it is missing.")
@click.option("--force", is_flag=True, help="Replace an existing --out file.")
@click.option("--chunk-size", type=int, default=None, metavar="N",
              help="Games per chunk: one progress step and one Parquet row group [default: 20000].")
@opt.as_json
@click.option("--report", "report_dir", type=click.Path(file_okay=False), default=None, metavar="DIR",
              help="Then write the batch's HTML report there, as `report --from FILE --out DIR` "
                   "(needs --out; a DIR holding files is replaced only with --force).")
def simulate(players, strategy, seats, strategies_path, seed, rotate, rules_path, deck_path, games,
             threads, workers, scheduler, out, resume, force, chunk_size, as_json, report_dir):
    """Play a batch of games; print per-strategy and per-seat results."""
    from gnoming_sim.batch.distributed import open_pool
    from gnoming_sim.batch.runner import DEFAULT_CHUNK_GAMES, Batch, BatchSpec

    opt.check_players(players)
    opt.check_at_least("--games", games, 1)
    opt.check_range("--games", games, 1, opt.MAX_GAME)
    opt.check_at_least("--threads", threads, 1)
    opt.check_range("--threads", threads, 1, opt.MAX_THREADS)
    opt.check_at_least("--chunk-size", chunk_size, 1)
    opt.check_range("--chunk-size", chunk_size, 1, opt.MAX_GAME)
    if force and out is None:
        raise GnomingError("--force needs --out FILE (the file to replace); without --out nothing is written")
    opt.check_cluster(workers, scheduler, threads)
    opt.check_range("--workers", workers, 1, opt.MAX_THREADS)
    names, rules_, deck_ = opt.table_spec(players, strategy, seats, seed, rules_path, deck_path,
                                          strategies_path)
    spec = BatchSpec.make(players, names, games, seed, rotate, rules_, deck_)
    if out is not None:   # the output guard, with this command's inputs and format, before any game
        from gnoming_sim.batch.output import check_output

        check_output(out, resume, force, inputs=[rules_path, deck_path, strategies_path], suffixes=(".parquet",))
    if report_dir is not None:   # before the batch takes its lock and before any game is played
        from gnoming_sim.cli import report_batch

        report_batch.check_report_option(out, report_dir, force, [rules_path, deck_path, strategies_path])
    batch = Batch(spec, out, resume=resume, force=force, chunk_size=chunk_size or DEFAULT_CHUNK_GAMES)
    if batch.chunk_capped:
        from gnoming_sim.batch.memory import available_bytes, show_bytes

        _notice(f"chunks of {batch.chunk_size:,} games, not {chunk_size or DEFAULT_CHUNK_GAMES:,}: a chunk is held in "
                f"memory until it is written, and this process can use about {show_bytes(available_bytes() or 0)} "
                "(the same games, in smaller row groups)")
    with open_pool(workers, scheduler, threads) as pool, group.progress_bar(games) as advance:
        outcome = batch.run(threads=threads, progress=advance, pool=pool, notice=_notice)
    summary = outcome.summary
    if as_json:
        click.echo(json.dumps(summary, indent=2))
    else:
        from gnoming_sim.batch.summary import format_table

        click.echo(format_table(summary), nl=False)
    if summary.get("warning"):
        click.echo(f"{PROG}: warning: {summary['warning']}", file=group.stderr())
    if outcome.stopped_by:
        _report_interruption(outcome)
    if report_dir is not None:
        report_batch.report_after_simulate(out, report_dir, force)


def _notice(text: str) -> None:
    click.echo(f"{PROG}: {text}", file=group.stderr())


def _report_interruption(outcome) -> None:
    """One line on stderr about what an interrupted run kept; exit 128 + signal number.

    The summary of the games played so far has been printed already (marked as interrupted).
    """
    import signal

    from gnoming_sim.batch.runner import OUT_OF_MEMORY
    from gnoming_sim.batch.safe_write import show

    if outcome.out is None:
        kept = "nothing was saved (no --out); the summary above covers the games played"
    elif outcome.partial is not None:
        kept = (f"{show(outcome.out)} is unchanged; the games played are kept in {show(outcome.partial.name)}: "
                "run the same command with --resume instead of --force to finish")
    elif outcome.games_done > outcome.resumed_games:
        kept = f"{show(outcome.out)} holds them; run the same command with --resume to finish"
    elif outcome.out.exists():
        kept = f"no new game was finished; {show(outcome.out)} is unchanged"
    else:
        kept = "no game was finished; nothing was written"
    if outcome.stopped_by == OUT_OF_MEMORY:   # the games played were written before the run stopped
        click.echo(f"{PROG}: error: out of memory after {outcome.games_done:,} of {outcome.games_total:,} games "
                   f"(the next block did not fit); {kept}; a smaller --chunk-size or --threads needs less",
                   file=group.stderr())
        click.get_current_context().exit(1)
    how = "at once, dropping the chunk in progress" if outcome.abrupt else "after the block in progress"
    click.echo(f"{PROG}: interrupted ({outcome.stopped_by}) {how}: {outcome.games_done} of "
               f"{outcome.games_total} games played; {kept}", file=group.stderr())
    code = getattr(signal, outcome.stopped_by, None)
    click.get_current_context().exit(128 + int(code) if code is not None else 1)
