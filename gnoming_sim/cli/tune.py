"""``gnoming-sim tune`` (CMA-ES over the heuristic family) and ``gnoming-sim held-out`` (its proof)."""
from __future__ import annotations

import json
import shlex
import sys

import click

from gnoming_sim.cli import group  # group.stderr is looked up at call time (tests swap it)
from gnoming_sim.cli import options as opt
from gnoming_sim.cli.group import PROG, cli
from gnoming_sim.game.errors import GnomingError


@cli.command()
@opt.players
@click.option("--budget", type=float, default=300.0, show_default=True, metavar="SECONDS",
              help="Tuning wall time, over every --resume of the same run; a generation that "
                   "would overrun it is not started.")
@opt.seed
@click.option("--out", type=click.Path(), required=True, metavar="FILE.toml",
              help="The tuned strategy, as a strategies file for --strategies-file (rewritten after "
                   "every generation); its state for --resume is kept beside it as FILE.toml.state.")
@click.option("--field", default="builder", show_default=True, metavar="NAME|self|mix:A,B",
              help="Who fills the other seats: a strategy, 'self' (the current incumbent), or "
                   "several strategies in turn.")
@click.option("--start", default="builder", show_default=True, metavar="NAME",
              help="Heuristic strategy the search starts from.")
@click.option("--name", default="tuned", show_default=True, help="Name of the tuned strategy in --out.")
@click.option("--log", "log_path", type=click.Path(), default=None, metavar="FILE",
              help="Log of every generation, CSV (or Parquet if it ends in .parquet) [default: OUT-log.csv].")
@click.option("--plot", "plot_path", type=click.Path(), default=None, metavar="FILE.png",
              help="The tuning curve with 95% intervals [default: OUT.png].")
@click.option("--games", type=int, default=2000, show_default=True, metavar="N",
              help="Games per candidate in the first generation (a multiple of --players); doubled "
                   "whenever the candidates' spread is within 2 standard errors.")
@click.option("--max-games", type=int, default=64000, show_default=True, metavar="N",
              help="Most games per candidate in a generation.")
@click.option("--popsize", type=int, default=None, metavar="N", help="Candidates per generation [default: cma's].")
@click.option("--generations", type=int, default=None, metavar="N",
              help="Stop after this many generations (in all), even with budget left.")
@click.option("--resume", is_flag=True, help="Continue the tuning saved beside --out (same arguments).")
@click.option("--force", is_flag=True, help="Start over, replacing --out, its state and the log.")
@opt.cluster_threads
@opt.cluster_options
@opt.strategies_file
@opt.rules
@opt.deck
def tune(players, budget, seed, out, field, start, name, log_path, plot_path, games, max_games, popsize,
         generations, resume, force, threads, workers, scheduler, strategies_path, rules_path, deck_path):
    """Tune the heuristic family's 11 parameters with CMA-ES for the lowest game score against a field.

    Every generation plays all candidates on the same fresh deals, the candidate in every
    seat in turn; the objective is its game score minus the field's on the same deal.
    """
    from gnoming_sim.batch.distributed import open_pool
    from gnoming_sim.tune.tuner import TuneSpec, Tuner

    opt.check_players(players)
    opt.check_seed(seed)
    if not budget > 0:
        raise GnomingError(f"--budget must be > 0 seconds, got {budget:g}")
    opt.check_at_least("--generations", generations, 1)
    opt.check_range("--games", games, 1, opt.MAX_TUNE_GAMES)
    opt.check_range("--max-games", max_games, 1, opt.MAX_TUNE_GAMES)
    opt.check_range("--popsize", popsize, 2, opt.MAX_POPSIZE)
    opt.check_at_least("--threads", threads, 1)
    opt.check_cluster(workers, scheduler, threads)
    opt.load_strategies_file(strategies_path)
    rules_ = opt.load_rules_file(rules_path)
    deck_ = opt.load_deck_file(deck_path, players)
    spec = TuneSpec.make(players, field, start, seed, games, max_games, popsize, rules_, deck_)
    if spec.games != games:   # the candidate moves one seat per game: whole rotations only
        _say(f"--games {games} is not a multiple of --players {players}: each candidate plays "
             f"{spec.games} games per generation, so it sits in every seat equally often")
    tuner = Tuner(spec, out, log=log_path, plot=plot_path, name=name, resume=resume, force=force,
                  command=_command_line(), inputs=[strategies_path, rules_path, deck_path])
    plot = tuner.plot
    title = f"tune: {players} players vs {spec.field_label}, from {spec.start.name}, seed {seed}"
    resumed = len(tuner.state["rows"]) if tuner.state else 0
    if resumed:
        _say(f"resuming after generation {resumed - 1} ({tuner.state['seconds']:.0f} s used)")
    from gnoming_sim.batch.safe_write import Terminated, sigterm_raises

    try:
        with sigterm_raises(), open_pool(workers, scheduler, threads) as pool:
            outcome = tuner.run(budget, generations, threads, pool, progress=_progress_line)
    except KeyboardInterrupt as exc:   # Ctrl-C, or SIGTERM (Terminated): the same way out
        done = len(tuner.state["rows"]) if tuner.state else 0
        if done:
            _write_plot(tuner.state["rows"], plot, title)
        term = isinstance(exc, Terminated)
        click.echo(f"{PROG}: interrupted ({'SIGTERM' if term else 'SIGINT'}); {done} generations are saved in "
                   f"{tuner.state_path}; run the same command with --resume to continue", err=True)
        tuner.release()
        sys.exit(143 if term else 130)
    _write_plot(outcome.rows, plot, title)
    last = outcome.rows[-1]
    _say(f"stopped ({outcome.stopped}) after {len(outcome.rows)} generations, {outcome.seconds:.0f} s; "
         f"last incumbent {last['incumbent']:+.2f} [{last['incumbent_lo']:+.2f}, {last['incumbent_hi']:+.2f}] "
         f"(95%, n = {last['games']} games) vs {spec.field_label} on tuning deals")
    click.echo(f"wrote {tuner.out} (strategy '{tuner.name}'), {tuner.log}, {plot}")


def _progress_line(row: dict) -> None:
    grow = " -> more games" if row["next_games"] > row["games"] else ""
    _say(f"gen {row['generation']:>3}  {row['candidates']} x {row['games']} games  "
         f"incumbent {row['incumbent']:+6.2f} [{row['incumbent_lo']:+6.2f}, {row['incumbent_hi']:+6.2f}]  "
         f"best {row['best']:+6.2f}  spread {row['spread']:.2f} vs se {row['paired_se']:.2f}{grow}  "
         f"sigma {row['sigma']:.2f}  {row['seconds']:.0f} s")


def _write_plot(rows, path, title) -> None:
    from gnoming_sim.tune.output import plot_curve

    try:
        plot_curve(rows, path, title)
    except OSError as exc:
        raise GnomingError(f"--plot {path}: cannot write it ({exc.strerror or exc})") from None


def _say(text: str) -> None:
    click.echo(text, file=group.stderr())


def _command_line() -> str:
    args = sys.argv[1:] if sys.argv and sys.argv[0].endswith(PROG) else []
    return " ".join([PROG, *(shlex.quote(a) for a in args)]) if args else f"{PROG} tune"


# ------------------------------------------------------------------ held-out
@cli.command("held-out")
@click.option("--candidate", required=True, metavar="NAME", help="Strategy A (e.g. the tuned one).")
@click.option("--baseline", default="builder", show_default=True, metavar="NAME", help="Strategy B.")
@click.option("--players", "tables", default="3,4,5,7", show_default=True, metavar="N,N,...",
              help="Table sizes to play.")
@click.option("--games", type=int, default=20_000, show_default=True, metavar="N",
              help="Games (deals) per table size, rounded up to a multiple of it.")
@opt.seed
@opt.cluster_threads
@opt.cluster_options
@opt.strategies_file
@opt.rules
@opt.deck
@opt.as_json
def held_out(candidate, baseline, tables, games, seed, threads, workers, scheduler, strategies_path,
             rules_path, deck_path, as_json):
    """A against B on held-out deals (games never used by `tune`): paired difference, 99% interval."""
    from gnoming_sim.batch.distributed import open_pool
    from gnoming_sim.experiments.heldout import format_rows, held_out as run_held_out
    from gnoming_sim.kernel.policy import registry

    sizes = list(opt.table_sizes(tables))
    opt.check_seed(seed)
    opt.check_at_least("--games", games, 1)
    opt.check_range("--games", games, 1, opt.MAX_HELD_OUT_GAMES)
    opt.check_at_least("--threads", threads, 1)
    opt.check_cluster(workers, scheduler, threads)
    opt.load_strategies_file(strategies_path)
    for option, name in (("--candidate", candidate), ("--baseline", baseline)):
        try:
            registry.get(name)
        except GnomingError as exc:
            raise GnomingError(f"{option}: {exc}") from None
    rules_ = opt.load_rules_file(rules_path)
    deck_ = opt.load_deck_file(deck_path, max(sizes))
    with group.interruptible("held-out writes nothing"), open_pool(workers, scheduler, threads) as pool:
        rows = run_held_out(candidate, baseline, sizes, games, seed, rules_, deck_, threads, pool)
    if as_json:
        click.echo(json.dumps(rows, indent=2))
    else:
        click.echo(format_rows(rows), nl=False)
