"""``gnoming-sim simulate``: a batch of games, its summary, an optional Parquet file."""
from __future__ import annotations

import contextlib
import json

import click

from gnoming_sim.cli import options as opt
from gnoming_sim.cli import group  # group.stderr is looked up at call time (tests swap it)
from gnoming_sim.cli.group import PROG, cli


@cli.command()
@opt.table_options
@click.option("--games", type=int, default=10_000, show_default=True, metavar="N",
              help="Games to play (3 rounds each).")
@opt.threads
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
    opt.check_at_least("--threads", threads, 1)
    opt.check_at_least("--chunk-size", chunk_size, 1)
    opt.check_cluster(workers, scheduler, threads)
    names, rules_, deck_ = opt.table_spec(players, strategy, seats, seed, rules_path, deck_path,
                                          strategies_path)
    spec = BatchSpec.make(players, names, games, seed, rotate, rules_, deck_)
    batch = Batch(spec, out, resume=resume, force=force, chunk_size=chunk_size or DEFAULT_CHUNK_GAMES)
    if report_dir is not None:
        from gnoming_sim.cli import report_batch

        report_batch.check_report_option(out, report_dir, force)
    with open_pool(workers, scheduler, threads) as pool, _progress_bar(games) as advance:
        outcome = batch.run(threads=threads, progress=advance, pool=pool)
    if outcome.stopped_by:
        _report_interruption(outcome)
    if as_json:
        click.echo(json.dumps(outcome.summary, indent=2))
    else:
        from gnoming_sim.batch.summary import format_table

        click.echo(format_table(outcome.summary), nl=False)
    if report_dir is not None:
        report_batch.report_after_simulate(out, report_dir, force)


@contextlib.contextmanager
def _progress_bar(games: int):
    """Yield a callback ``advance(done)``: a bar on stderr when it is a terminal, else nothing."""
    stream = group.stderr()
    if not (hasattr(stream, "isatty") and stream.isatty()):
        yield lambda done: None
        return
    with click.progressbar(length=games, label="games", file=stream, show_pos=True) as bar:
        yield lambda done: bar.update(done - bar.pos)


def _report_interruption(outcome) -> None:
    """One line on stderr about what an interrupted run kept; exit 128 + signal number."""
    import signal

    kept = (f"{outcome.out} holds them; run the same command with --resume to finish"
            if outcome.out else "nothing was saved (no --out)")
    click.echo(f"{PROG}: interrupted ({outcome.stopped_by}) after {outcome.games_done} of "
               f"{outcome.games_total} games; {kept}", err=True)
    code = getattr(signal, outcome.stopped_by, None)
    click.get_current_context().exit(128 + int(code) if code is not None else 1)
