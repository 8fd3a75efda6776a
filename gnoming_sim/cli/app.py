"""The ``gnoming-sim`` command line: thin click commands over the library.

Every user mistake (a bad option value, a bad rules or deck file, an output file that
cannot be written) ends the program with one line, ``gnoming-sim: error: <message>``,
on stderr and exit code 2, before any simulation starts.  Library code reports such
mistakes as :class:`GnomingError`; :class:`_Group` turns them, and click's own usage
errors, into :class:`UserError`.
"""
from __future__ import annotations

import contextlib
import json
import sys
import textwrap

import click

from gnoming_sim.game.version import __version__
from gnoming_sim.cli import options as opt
from gnoming_sim.game.deck import Deck
from gnoming_sim.game.errors import GnomingError
from gnoming_sim.game.rules import RuleConfig

PROG = "gnoming-sim"


class UserError(click.ClickException):
    """A user mistake: one line on stderr, exit code 2."""

    exit_code = 2

    def show(self, file=None) -> None:
        click.echo(f"{PROG}: error: {self.format_message()}", file=file or sys.stderr)


_NO_ARGS = getattr(click.exceptions, "NoArgsIsHelpError", ())


class _Group(click.Group):
    """A click group that reports GnomingError and click usage errors as one-line UserErrors."""

    def make_context(self, info_name, args, parent=None, **extra):
        try:
            return super().make_context(info_name, args, parent=parent, **extra)
        except _NO_ARGS:
            raise
        except click.UsageError as exc:
            raise UserError(_one_line(exc.format_message())) from None

    def invoke(self, ctx):
        try:
            return super().invoke(ctx)
        except GnomingError as exc:
            raise UserError(_one_line(str(exc))) from None
        except _NO_ARGS:
            raise
        except click.UsageError as exc:
            raise UserError(_one_line(exc.format_message())) from None


def _one_line(text: str) -> str:
    return " ".join(text.split()) or "error"


# ------------------------------------------------------------------ commands
@click.group(cls=_Group, context_settings={"help_option_names": ["-h", "--help"]})
@click.version_option(__version__, "--version", prog_name=PROG, message="%(prog)s %(version)s")
def cli():
    """Monte Carlo simulator for the card game Gnoming A Round."""


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
def simulate(players, strategy, seats, strategies_path, seed, rotate, rules_path, deck_path, games,
             threads, workers, scheduler, out, resume, force, chunk_size, as_json):
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
    with open_pool(workers, scheduler, threads) as pool, _progress_bar(games) as advance:
        outcome = batch.run(threads=threads, progress=advance, pool=pool)
    if outcome.stopped_by:
        _report_interruption(outcome)
    if as_json:
        click.echo(json.dumps(outcome.summary, indent=2))
    else:
        from gnoming_sim.batch.summary import format_table

        click.echo(format_table(outcome.summary), nl=False)


def _stderr():
    return sys.stderr


@contextlib.contextmanager
def _progress_bar(games: int):
    """Yield a callback ``advance(done)``: a bar on stderr when it is a terminal, else nothing."""
    stream = _stderr()
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


@cli.command()
@opt.table_options
@click.option("--game", "game", type=int, default=0, show_default=True, metavar="G",
              help="Which game of the seed to tell (the same game as in `simulate`).")
def play(players, strategy, seats, strategies_path, seed, rotate, rules_path, deck_path, game):
    """Tell one game turn by turn: draws, placements, bounces, hazards, the reveal and the scoring."""
    from gnoming_sim.batch.runner import BatchSpec

    opt.check_players(players)
    opt.check_at_least("--game", game, 0)
    names, rules_, deck_ = opt.table_spec(players, strategy, seats, seed, rules_path, deck_path,
                                          strategies_path)
    spec = BatchSpec.make(players, names, 1, seed, rotate, rules_, deck_)

    from gnoming_sim.kernel.engine import simulate as run  # compiles the kernels: only after every check
    from gnoming_sim.reference.narrate import narrate

    result = run(players=players, strategies=spec.seats, games=1, seed=seed, rules=rules_, deck=deck_,
                 first_game=game, rotate=spec.rotate, trace=True, threads=1)
    click.echo(narrate(result), nl=False)


@cli.command()
@opt.rules
@opt.deck
def rules(rules_path, deck_path):
    """Print the effective rules options (with their defaults) and the deck composition."""
    config = opt.load_rules_file(rules_path)
    deck = opt.load_deck_file(deck_path)
    click.echo(_rules_text(config, rules_path))
    click.echo()
    click.echo(_deck_text(deck))


def _rules_text(config: RuleConfig, path) -> str:
    rows = [(name, _show(value), _show(default), text) for name, value, default, text in config.describe()]
    header = ("option", "value", "default", "meaning")
    widths = [max(len(r[i]) for r in [header, *rows]) for i in range(3)]
    lines = [f"rules: {path or 'defaults'}"]
    for r in [header, *rows]:
        mark = " " if r is header or r[1] == r[2] else "*"
        lines.append(f"{mark} " + "  ".join(c.ljust(w) for c, w in zip(r[:3], widths)) + "  " + r[3])
    lines.append("(* = differs from the default)")
    return "\n".join(lines)


def _deck_text(deck: Deck) -> str:
    lines = [f"deck: {deck.name} ({deck.size} cards)"]
    lines += [f"  {name:>3}  x {n}" for name, n in deck.to_dict().items()]
    return "\n".join(lines)


def _show(value) -> str:
    return str(value).lower() if isinstance(value, bool) else str(value)


@cli.command()
@opt.strategies_file
@opt.as_json
def strategies(strategies_path, as_json):
    """List every registered strategy with its parameters and a one-line description."""
    from gnoming_sim.kernel.policy import registry

    opt.load_strategies_file(strategies_path)
    found = [registry.get(name) for name in registry.names()]
    if as_json:
        data = {s.name: {"description": s.description, "params": dict(s.params)} for s in found}
        click.echo(json.dumps(data, indent=2))
        return
    width = max(len(s.name) for s in found)
    for s in found:
        click.echo(f"{s.name:<{width}}  {s.description}")
        if s.params:
            params = " ".join(f"{k}={v:g}" if isinstance(v, float) else f"{k}={v}" for k, v in s.params.items())
            pad = " " * (width + 4)
            click.echo(textwrap.fill(params, width=100, initial_indent=pad, subsequent_indent=pad,
                                     break_on_hyphens=False))


@cli.command()
@click.option("--quick", is_flag=True, help="Small samples: a complete report in under a minute (tests, previews).")
@click.option("--games", type=int, default=None, metavar="N",
              help="Games per design cell of every study (a tournament lineup, an early-finish table size) "
                   "[default: each study's own size].")
@opt.seed
@click.option("--threads", type=int, default=None, metavar="K",
              help="Worker threads (default: all cores; with --workers, per worker, default 1). "
                   "Results do not depend on it.")
@opt.cluster_options
@opt.rules
@opt.deck
@click.option("--out", "out_dir", type=click.Path(file_okay=False), default="reports", show_default=True,
              metavar="DIR", help="Directory for index.html, the figures (PNG), the tables (CSV) and summary.json.")
def report(quick, games, seed, threads, workers, scheduler, rules_path, deck_path, out_dir):
    """Run the studies (tournament, early-finish bonus, ...) and write an HTML report."""
    opt.check_at_least("--games", games, 1)
    opt.check_at_least("--threads", threads, 1)
    opt.check_cluster(workers, scheduler, threads)
    opt.check_seed(seed)
    rules_ = opt.load_rules_file(rules_path)
    deck_ = opt.load_deck_file(deck_path, opt.REPORT_MAX_PLAYERS)
    out = opt.check_report_dir(out_dir)

    from gnoming_sim.analyses.report import build_report  # imports the engine: only after every check

    command = _report_command(quick, games, seed, threads, rules_path, deck_path, out_dir)
    from gnoming_sim.batch.distributed import open_pool

    with open_pool(workers, scheduler, threads) as pool:
        summary = build_report(out, quick=quick, games=games, seed=seed, threads=threads, rules=rules_,
                               deck=deck_, progress=_study_progress, command=command, pool=pool)
    click.echo(f"report: {out / 'index.html'} ({summary['wall_s']:.0f} s)")
    for finding in summary["findings"]:
        click.echo(f"  - {finding['display']}")


def _report_command(quick, games, seed, threads, rules_path, deck_path, out_dir) -> str:
    """The command line that made a report, for its "how it was made" section."""
    parts = [PROG, "report"]
    parts += ["--quick"] if quick else []
    parts += [f"--games {games}"] if games is not None else []
    parts += [f"--seed {seed}"]
    parts += [f"--threads {threads}"] if threads is not None else []
    parts += [f"--rules {rules_path}"] if rules_path else []
    parts += [f"--deck {deck_path}"] if deck_path else []
    parts += [f"--out {out_dir}"]
    return " ".join(parts)


@contextlib.contextmanager
def _study_progress(study, games: int):
    """A progress bar per study on a terminal; otherwise a line when it starts and ends."""
    import time

    stream = _stderr()
    label = f"{study.title} ({games:,} games)"
    if hasattr(stream, "isatty") and stream.isatty():
        with click.progressbar(length=games, label=label, file=stream, show_pos=True) as bar:
            yield bar.update
        return
    t0 = time.perf_counter()
    click.echo(f"{label} ...", file=stream)
    yield lambda n: None
    click.echo(f"{study.title}: done in {time.perf_counter() - t0:.0f} s", file=stream)


# ---------------------------------------------------------------- entry point
def main(argv=None) -> None:
    """Console-script entry point: a GnomingError from anywhere becomes one line and exit 2."""
    try:
        cli.main(args=argv, prog_name=PROG, standalone_mode=True)
    except GnomingError as exc:
        UserError(_one_line(str(exc))).show()
        sys.exit(2)


if __name__ == "__main__":
    main()
