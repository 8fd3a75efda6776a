"""The ``gnoming-sim`` command line: thin click commands over the library.

Every user mistake (a bad option value, a bad rules or deck file) ends the program
with one line, ``gnoming-sim: error: <message>``, on stderr and exit code 2, before
any simulation starts.  Library code reports such mistakes as :class:`GnomingError`;
:class:`_Group` turns them into :class:`UserError` for click.
"""
from __future__ import annotations

import json
import sys
import time

import click

from . import __version__
from .deck import Deck, load_deck
from .errors import GnomingError
from .rules import RuleConfig, load_rules

PROG = "gnoming-sim"


class UserError(click.ClickException):
    """A user mistake: one line on stderr, exit code 2."""

    exit_code = 2

    def show(self, file=None) -> None:
        click.echo(f"{PROG}: error: {self.format_message()}", file=file or sys.stderr)


class _Group(click.Group):
    """A click group that reports a GnomingError from any command as a UserError."""

    def invoke(self, ctx):
        try:
            return super().invoke(ctx)
        except GnomingError as exc:
            raise UserError(_one_line(exc)) from None


def _one_line(exc: Exception) -> str:
    return " ".join(str(exc).split()) or type(exc).__name__


# ------------------------------------------------------------------- options
rules_option = click.option(
    "--rules", "rules_path", type=click.Path(dir_okay=False), default=None, metavar="FILE",
    help="TOML file of rules options (see `gnoming-sim rules`); defaults otherwise.",
)
deck_option = click.option(
    "--deck", "deck_path", type=click.Path(dir_okay=False), default=None, metavar="FILE",
    help="TOML file of a deck composition ([cards] table); the published deck otherwise.",
)


def _check_at_least(option: str, value: int | None, low: int) -> None:
    if value is not None and value < low:
        raise GnomingError(f"{option} must be >= {low}, got {value}")


def _strategy_list(spec: str, players: int) -> tuple[str, ...]:
    """``"random"`` (every seat) or ``"a,b,c,d"`` (one per seat), each a registered name."""
    names = tuple(s.strip() for s in spec.split(","))
    if any(not n for n in names):
        raise GnomingError(f"--strategy has an empty name: {spec!r}")
    if len(names) not in (1, players):
        raise GnomingError(
            f"--strategy takes one name or one per seat ({players}), got {len(names)}: {spec!r}"
        )
    from . import strategies

    for name in names:
        strategies.get(name)  # raises GnomingError naming the unknown strategy
    return names


# ------------------------------------------------------------------ commands
@click.group(cls=_Group, context_settings={"help_option_names": ["-h", "--help"]})
@click.version_option(__version__, "--version", prog_name=PROG, message="%(prog)s %(version)s")
def cli():
    """Monte Carlo simulator for the card game Gnoming A Round."""


@cli.command()
@click.option("--players", type=int, default=4, show_default=True, help="Players at the table (2..7).")
@click.option("--strategy", "strategy", default="random", show_default=True, metavar="NAME[,NAME...]",
              help="Strategy for every seat, or a comma-separated name per seat.")
@click.option("--games", type=int, default=10_000, show_default=True, help="Games to play (3 rounds each).")
@click.option("--seed", type=int, default=0, show_default=True, help="Master seed; game i uses stream (seed, i).")
@click.option("--threads", type=int, default=None, help="Worker threads (default: all cores).")
@rules_option
@deck_option
@click.option("--json", "as_json", is_flag=True, help="Print the summary as JSON.")
def simulate(players, strategy, games, seed, threads, rules_path, deck_path, as_json):
    """Play GAMES games and print per-strategy and per-seat results."""
    _check_at_least("--games", games, 1)
    _check_at_least("--threads", threads, 1)
    if seed < 0:
        raise GnomingError(f"--seed must be >= 0, got {seed}")
    rules = load_rules(rules_path)
    deck = load_deck(deck_path)
    deck.validate_for(players)  # checks players is 2..7 first
    names = _strategy_list(strategy, players)

    from .engine import simulate as run  # compiles the kernels: only after validation
    from .summary import format_table, summarize

    t0 = time.perf_counter()
    result = run(players=players, strategies=names, games=games, seed=seed, rules=rules, deck=deck,
                 threads=threads)
    summary = summarize(result, time.perf_counter() - t0)
    if as_json:
        click.echo(json.dumps(summary, indent=2))
    else:
        click.echo(format_table(summary), nl=False)


@cli.command()
@rules_option
@deck_option
def rules(rules_path, deck_path):
    """Print the effective rules options and the deck composition."""
    config = load_rules(rules_path)
    deck = load_deck(deck_path)
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


# ---------------------------------------------------------------- entry point
def main(argv=None) -> None:
    """Console-script entry point: a GnomingError from anywhere becomes one line and exit 2."""
    try:
        cli.main(args=argv, prog_name=PROG, standalone_mode=True)
    except GnomingError as exc:
        UserError(_one_line(exc)).show()
        sys.exit(2)


if __name__ == "__main__":
    main()
