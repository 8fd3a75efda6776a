"""Options shared by the ``gnoming-sim`` commands, and their checks.

Each check raises :class:`GnomingError` with a message that starts with the option it
is about (``--players must be between 2 and 7, got 8``); the command line prints it on
one line and exits with code 2, before any game is played.
"""
from __future__ import annotations

import click

from gnoming_sim.game.deck import Deck, load_deck
from gnoming_sim.game.errors import GnomingError
from gnoming_sim.game.limits import MAX_GAME, MAX_SEED  # noqa: F401  (the commands check against them)
from gnoming_sim.game.rules import MAX_PLAYERS, MIN_PLAYERS, RuleConfig, load_rules

# The ranges every command shares: one place, so the commands agree (the seed and game
# limits are the engine's too: game/limits.py).
MAX_THREADS = 4096
MAX_WORKERS = 256             # local Dask worker processes; also at most the cores this process may use
REPORT_MAX_PLAYERS = MAX_PLAYERS   # the report's studies seat up to this many players
MAX_STUDY_GAMES = 10_000_000  # report --games: per design cell (15x the largest study default, 672,000)
MAX_HELD_OUT_GAMES = 10_000_000   # held-out --games per table size: 3 float64 per game kept (240 MB)
MAX_TUNE_GAMES = 1_000_000    # tune --games/--max-games per candidate: below GEN_STRIDE (2**32) by far
MAX_POPSIZE = 128             # tune --popsize: (popsize + 1) x max-games float64 objectives <= 1 GiB
# analyse --rollouts/--max-rollouts: the analysis keeps every rollout (its estimators regress over
# them); measured peak 1.6 KB per rollout at 10 options (the most a decision has), so <= 0.8 GB
MAX_ROLLOUTS = 500_000
MIN_HALF_WIDTH, MAX_HALF_WIDTH = 1e-3, 1e3   # analyse --half-width, in points
MAX_TURN = 100_000            # analyse --turn: a round is at most max_turns (<= 100,000) turns

players = click.option("--players", type=int, default=4, show_default=True, metavar="N",
                       help=f"Players at the table ({MIN_PLAYERS}..{MAX_PLAYERS}).")
strategy = click.option(
    "--strategy", "strategy", default=None, metavar="NAME",
    help="Strategy for every seat (default: random). A comma-separated list is an alias of --seats.")
seats = click.option("--seats", default=None, metavar="A,B,...",
                     help="One strategy per seat, comma-separated, in seat order.")
seed = click.option("--seed", type=int, default=0, show_default=True, metavar="S",
                    help="Master seed; game g draws only from streams of (S, g).")
rotate = click.option(
    "--rotate-seats/--no-rotate-seats", "rotate", default=True, show_default=True,
    help="With mixed seats, move the strategies one seat per game so seat advantage cancels.")
# --threads of a command that plays on this machine only, and of one that also takes --workers/--scheduler
# (cluster_options): each help names only options its command has
threads = click.option("--threads", type=int, default=None, metavar="K",
                       help="Worker threads (default: all cores). Results do not depend on it.")
cluster_threads = click.option("--threads", type=int, default=None, metavar="K",
                               help="Worker threads (default: all cores; with --workers, per worker, default 1). "
                                    "Results do not depend on it.")
workers = click.option("--workers", type=int, default=None, metavar="N",
                       help="Play on a local Dask cluster of N worker processes (needs gnoming-sim[dist]).")
scheduler = click.option("--scheduler", default=None, metavar="ADDRESS",
                         help="Play on a running Dask cluster: its scheduler's address, e.g. tcp://HOST:8786 "
                              "(needs gnoming-sim[dist]).")
rules = click.option("--rules", "rules_path", type=click.Path(dir_okay=True), default=None, metavar="FILE",
                     help="TOML file of rules options (see `gnoming-sim rules`); defaults otherwise.")
deck = click.option("--deck", "deck_path", type=click.Path(dir_okay=True), default=None, metavar="FILE",
                    help="TOML file of a deck composition ([cards] table); the published deck otherwise.")
strategies_file = click.option(
    "--strategies-file", "strategies_path", type=click.Path(dir_okay=True), default=None, metavar="FILE",
    help="TOML file of more strategies: [strategy.NAME] tables with base = PRESET and parameters "
         "(see `gnoming-sim strategies`).")
as_json = click.option("--json", "as_json", is_flag=True, help="Print one JSON object instead of text.")


def table_options(command):
    """The options that set up a table: players, strategies, seed, rotation, rules, deck."""
    for option in (deck, rules, rotate, seed, strategies_file, seats, strategy, players):
        command = option(command)
    return command


def cluster_options(command):
    """Where the games are played: ``--workers N`` (a local Dask cluster) or ``--scheduler ADDRESS``."""
    for option in (scheduler, workers):
        command = option(command)
    return command


# ------------------------------------------------------------------ checks
def check_players(value: int) -> int:
    if not MIN_PLAYERS <= value <= MAX_PLAYERS:
        raise GnomingError(f"--players must be between {MIN_PLAYERS} and {MAX_PLAYERS}, got {value}")
    return value


def table_sizes(spec: str, example: str = "3,4,5,7") -> tuple[int, ...]:
    """``--players N,N,...`` (``held-out``, ``ladder``): table sizes, each 2..7 and given once."""
    try:
        sizes = [int(t) for t in str(spec).split(",")]
    except ValueError:
        raise GnomingError(f"--players takes table sizes such as {example}, got {spec!r}") from None
    for size in sizes:
        check_players(size)
    twice = sorted({s for s in sizes if sizes.count(s) > 1})
    if twice:
        raise GnomingError(f"--players names a table size twice ({', '.join(map(str, twice))}): "
                           f"give each once, got {spec!r}")
    return tuple(sizes)


def check_at_least(option: str, value: int | None, low: int) -> None:
    if value is not None and value < low:
        raise GnomingError(f"{option} must be >= {low}, got {value}")


def check_range(option: str, value: int | None, low: int, high: int, what: str | None = None) -> None:
    """``low <= value <= high`` (None passes); else a one-line error naming the option and the range."""
    if value is not None and not low <= value <= high:
        span = what or (f"{low}..2**63-1" if high == MAX_GAME else f"{low}..{high}")
        raise GnomingError(f"{option} must be in {span}, got {value}")


def check_threads(value: int | None) -> None:
    """``--threads``: 1..4096 in every command (None: the default)."""
    check_range("--threads", value, 1, MAX_THREADS)


def max_workers() -> int:
    """The most ``--workers`` this machine can use: its cores (those this process may run on), at most 256."""
    import os

    try:
        cores = len(os.sched_getaffinity(0))
    except (AttributeError, OSError):
        cores = os.cpu_count() or 1
    return max(1, min(MAX_WORKERS, cores))


def check_seed(value: int) -> int:
    if not 0 <= value <= MAX_SEED:
        raise GnomingError(f"--seed must be in 0..2**64-1, got {value}")
    return value


def _names(option: str, spec: str) -> list[str]:
    names = [s.strip() for s in spec.split(",")]
    if any(not n for n in names):
        raise GnomingError(f"{option} has an empty strategy name: {spec!r}")
    return names


def seat_strategies(strategy: str | None, seats: str | None, players: int) -> tuple[str, ...]:
    """One registered strategy name per seat, from ``--strategy NAME`` or ``--seats A,B,...``.

    ``--strategy A,B,...`` (one name per seat) is accepted as an alias of ``--seats``.
    """
    if strategy is not None and seats is not None:
        raise GnomingError("--strategy and --seats exclude each other: give one strategy for every seat, "
                           "or one per seat")
    # None (not given) means random; an empty --strategy '' is a mistake, refused by _names
    given = "random" if strategy is None else strategy
    option, spec = ("--seats", seats) if seats is not None else ("--strategy", given)
    names = strategy_names(option, spec, players, (players,) if option == "--seats" else (1, players))
    return tuple(names * players if len(names) == 1 else names)


def strategy_names(option: str, spec: str, players: int, counts: tuple[int, ...]) -> list[str]:
    """The registered strategy names of a comma-separated ``spec``: as many as one of ``counts``
    (``(players,)``: one per seat; ``(1, players)``: one, or one per seat)."""
    from gnoming_sim.kernel.policy import registry

    names = _names(option, spec)
    if len(names) not in counts:
        want = f"one name per seat ({players})" if counts == (players,) else f"one name or one per seat ({players})"
        raise GnomingError(f"{option} takes {want}, got {len(names)}: {spec!r}")
    for name in names:
        try:
            registry.get(name)
        except GnomingError as exc:
            raise GnomingError(f"{option}: {exc}") from None
    return names


def check_input_file(option: str, path) -> None:
    """A file another library reads (``--from`` a Parquet batch): a readable regular file, else one line.

    Named pipes and devices are refused on ``stat`` alone, so nothing blocks or reads without end;
    a missing file is left to the reader, which says more (a partial still being written).
    """
    from gnoming_sim.game.input_file import check_regular, shown

    check_regular(path, option, missing_ok=True)
    try:
        str(path).encode("utf-8")
    except UnicodeEncodeError:   # pyarrow opens paths by their UTF-8 name
        raise GnomingError(f"{option} file {shown(path)}: the name is not UTF-8, which the Parquet reader "
                           "needs; rename the file") from None


def load_rules_file(path) -> RuleConfig:
    try:
        return load_rules(path)
    except GnomingError as exc:
        raise GnomingError(f"--rules: {exc}") from None


def load_deck_file(path, players: int | None = None) -> Deck:
    """The deck of ``--deck`` (the published deck without it), checked for ``players`` if given."""
    try:
        loaded = load_deck(path)
        if players is not None:
            loaded.validate_for(players)
    except GnomingError as exc:
        raise GnomingError(f"--deck: {exc}") from None
    return loaded


def load_strategies_file(path) -> list:
    """Register the strategies of ``--strategies-file`` (none if ``path`` is None)."""
    if path is None:
        return []
    from gnoming_sim.kernel.policy import registry

    try:
        return registry.load_file(path)
    except GnomingError as exc:
        raise GnomingError(f"--strategies-file: {exc}") from None


def table_spec(players_: int, strategy_: str | None, seats_: str | None, seed_: int,
               rules_path, deck_path, strategies_path=None) -> tuple[tuple[str, ...], RuleConfig, Deck]:
    """Check the table options in a fixed order; return (seat strategies, rules, deck)."""
    check_players(players_)
    check_seed(seed_)
    load_strategies_file(strategies_path)
    names = seat_strategies(strategy_, seats_, players_)
    return names, load_rules_file(rules_path), load_deck_file(deck_path, players_)


def check_cluster(workers: int | None, scheduler: str | None, threads: int | None = None) -> None:
    """Check ``--workers``/``--scheduler``/``--threads``: exclusive, 1 <= N <= :func:`max_workers`,
    threads in 1..4096, Dask installed."""
    from gnoming_sim.batch.distributed import check_options

    if workers is not None and not isinstance(workers, bool) and workers > max_workers():
        # before check_options: a nonsense count must not import Dask (or start anything)
        raise GnomingError(f"--workers must be in 1..{max_workers()} (the cores of this machine, at most "
                           f"{MAX_WORKERS}), got {workers}")
    check_options(workers, scheduler, threads)
    check_threads(threads)
