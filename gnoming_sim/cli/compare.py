"""``gnoming-sim compare``: the same games under rules/deck variants, against the published rules."""
from __future__ import annotations

import json
import math
import os

import click

from gnoming_sim.cli import group  # group.stderr is looked up at call time (tests swap it)
from gnoming_sim.batch.safe_write import show
from gnoming_sim.cli import options as opt
from gnoming_sim.cli.group import cli
from gnoming_sim.game.errors import GnomingError


def variant_files(spec: str) -> list[str]:
    """The rules and deck files a ``--variant NAME=rules.toml[,deck.toml]`` reads."""
    return [p.strip() for p in spec.partition("=")[2].split(",") if p.strip()]


def parse_variant(spec: str):
    """``NAME=rules.toml[,deck.toml]`` -> Variant (either file may be empty: ``x=,deck.toml``)."""
    from gnoming_sim.experiments.compare import Variant
    from gnoming_sim.game.deck import PUBLISHED, load_deck
    from gnoming_sim.game.rules import RuleConfig, load_rules

    name, sep, files = spec.partition("=")
    name = name.strip()
    if not sep or not name:
        raise GnomingError(f"--variant {spec!r}: expected NAME=rules.toml[,deck.toml]")
    parts = [p.strip() for p in files.split(",")]
    if len(parts) > 2 or not any(parts):
        raise GnomingError(f"--variant {spec!r}: expected NAME=rules.toml[,deck.toml]")
    rules_path = parts[0] or None
    deck_path = parts[1] if len(parts) == 2 and parts[1] else None
    try:
        rules = load_rules(rules_path) if rules_path else RuleConfig()
        deck = load_deck(deck_path) if deck_path else PUBLISHED
    except GnomingError as exc:
        raise GnomingError(f"--variant {name}: {exc}") from None
    return Variant(name, rules, deck)


def _rows_sink(out, meta: dict):
    """``(sink, write)``: every variant's rows, with a ``variant`` column, through the batch
    runner's crash-safe :class:`~gnoming_sim.batch.batch_writer.ParquetSink` (locked, synced,
    verified, renamed into place; a full disk is one line and the old file is kept); ``meta``:
    :func:`gnoming_sim.batch.compare_file.file_metadata`, each variant's batch facts."""
    import pyarrow as pa

    from gnoming_sim.batch.batch_writer import ParquetSink
    from gnoming_sim.batch.compare_file import COMPARE_KEY
    from gnoming_sim.batch.parquet import batch_schema, table_of
    from gnoming_sim.game.rules import ROUNDS

    schema = batch_schema(list(dict.fromkeys(meta["seats"])), {}).append(pa.field("variant", pa.dictionary(pa.int32(), pa.string())))
    schema = schema.with_metadata({COMPARE_KEY: json.dumps(meta).encode()})
    sink = ParquetSink(out, schema, per_game=ROUNDS * meta["players"], resumable=False)

    def write(variant, res):
        table = table_of(res.first_game, res.round_stats, res.seat_strategy, list(res.strategy_names))
        table = table.append_column("variant", pa.array([variant.name] * table.num_rows).dictionary_encode())
        sink.write(table.cast(schema), res.games)

    return sink, write


def render(c) -> str:
    """A comparison as two text tables, each variant's values and then its change against the
    baseline, every number in the report's format (shares in percent, changes of a share in
    percentage points; :mod:`gnoming_sim.analyses.framework.render`)."""
    from gnoming_sim.stats import Estimate
    from gnoming_sim.analyses.framework.render import format_estimate
    from gnoming_sim.experiments.compare import CHANGE_KIND, KIND, LABELS, MEASURES

    def cell(e: dict | None, kind: str) -> str:
        if e is None or e["mean"] is None or not math.isfinite(e["mean"]):
            return "n/a"
        return format_estimate(Estimate(e["mean"], e["lo"], e["hi"], c.games), kind)

    # the seating in simulate's words: rotation is kept off where every seat plays one strategy
    lines = [f"players {c.players}  seats {', '.join(c.seats)} "
             f"({'rotating one seat per game' if c.rotate else 'fixed'})  games {c.games:,} per variant  seed {c.seed}",
             "every interval: 95%, over games (n = games per variant); lower game scores are better"]
    if c.strongest:
        base = c.by_strategy[0]
        lines.append(f"skill gap = win share of {c.strongest} - win share of {c.weakest} (the strongest and weakest "
                     f"strategies at the table, by their baseline win shares: "
                     f"{cell(_win(base[c.strongest]), 'pct')} and {cell(_win(base[c.weakest]), 'pct')})")
    lines.append("-bonus rate: of finished rounds, the share whose finisher had the lowest score "
                 "(conditional on the seated strategies' choices of when to finish)")
    lines += ["", "per strategy (as simulate counts them: a strategy in several seats, their mean)"]
    rows = [(v.name, name, cell(_win(e), "pct"), cell(_score(e), "signed"), f"{e['n_games']:,}")
            for v, by in zip(c.variants, c.by_strategy) for name, e in by.items()]
    header = ("", "", "win share", "game score", "n")
    widths = [max(len(r[i]) for r in [header, *rows]) for i in range(5)]
    shown = ""
    for r in [header, *rows]:
        variant = "" if r[0] == shown else r[0]
        shown = r[0]
        lines.append("  " + "  ".join((x.rjust if i == 4 else x.ljust)(w)
                                      for i, (x, w) in enumerate(zip((variant, *r[1:]), widths))).rstrip())
    for title, rows, kinds in (("per variant", c.estimates, KIND), ("change against the baseline", c.changes,
                                                                     CHANGE_KIND)):
        lines += ["", title]
        diff = kinds is CHANGE_KIND
        for m in MEASURES:
            cells = [(v.name, cell(row.get(m) if row else None, kinds[m]))
                     for v, row in zip(c.variants, rows) if row or not diff]
            if not cells:
                continue
            lines.append(f"  {LABELS[m]}")
            width = max(len(n) for n, _ in cells)
            lines += [f"    {name:<{width}}  {text}" for name, text in cells]
        if diff:
            kinds_of = [f"{v.name}: {'paired (same deals)' if ch.get('paired') else 'unpaired (other deck)'}"
                        for v, ch in zip(c.variants[1:], c.changes[1:])]
            lines.append("  differences: " + "; ".join(kinds_of))
    return "\n".join(lines) + "\n"


def _win(entry: dict) -> dict:
    """A strategy's win share (simulate's summary entry) as an estimate cell."""
    return {"mean": entry["win_share"], "lo": entry["win_ci95"][0], "hi": entry["win_ci95"][1]}


def _score(entry: dict) -> dict:
    """A strategy's mean game score (simulate's summary entry) as an estimate cell."""
    return {"mean": entry["mean_game_score"], "lo": entry["ci95"][0], "hi": entry["ci95"][1]}


@cli.command()
@opt.players
@opt.strategy
@opt.seats
@opt.strategies_file
@opt.seed
@opt.rotate
@click.option("--variant", "variants", multiple=True, metavar="NAME=RULES.toml[,DECK.toml]",
              help="A variant to compare with the published rules and deck (repeatable).")
@click.option("--house-rules", is_flag=True,
              help="Add the report's seven house-rules variants (no bouncing, ..., twice the mulligans and hazards).")
@click.option("--games", type=int, default=20_000, show_default=True, metavar="N", help="Games per variant.")
@opt.threads
@click.option("--out", type=click.Path(), default=None, metavar="FILE.parquet",
              help="Also write every row (game, round, seat, with a 'variant' column) to this Parquet file.")
@click.option("--force", is_flag=True, help="Replace an existing --out file.")
@opt.as_json
def compare(players, strategy, seats, strategies_path, seed, rotate, variants, house_rules, games, threads,
            out, force, as_json):
    """Play the same games under rules/deck variants; print what each changes, with 95% intervals.

    \b
    Examples (a rules file sets any rules options; examples/ holds a few):
      gnoming-sim compare --seats builder,greedy,rusher,cautious --variant bonus10=examples/bonus10.toml
      gnoming-sim compare --seats builder,greedy,rusher,cautious --variant hazard15=examples/hazard15.toml
    """
    from gnoming_sim.experiments import compare as cmp

    opt.check_players(players)
    opt.check_seed(seed)
    opt.check_at_least("--games", games, 1)
    opt.check_at_least("--threads", threads, 1)
    opt.check_threads(threads)
    if games > 10**9:
        raise GnomingError(f"--games must be at most 1000000000 per variant, got {games}")
    opt.load_strategies_file(strategies_path)
    names = opt.seat_strategies(strategy, seats, players)
    chosen = [parse_variant(v) for v in variants] + (list(cmp.HOUSE_RULES) if house_rules else [])
    chosen = cmp.check_variants(chosen, players)[1:]
    if force and out is None:
        raise GnomingError("--force needs --out")
    sink = write = None
    if out is not None:
        from gnoming_sim.batch.output import check_output

        inputs = [strategies_path, *(f for v in variants for f in variant_files(v))]
        path = check_output(out, force=force, resumable=False, inputs=inputs, suffixes=(".parquet",))
        from gnoming_sim.batch.compare_file import file_metadata

        sink, write = _rows_sink(path, file_metadata(players, names, games, seed, rotate, [cmp.BASELINE, *chosen]))
    total = games * (len(chosen) + 1)
    kept = f"{show(out)} is unchanged" if out is not None and os.path.lexists(out) else "nothing was written"
    try:
        with group.interruptible(kept), group.progress_bar(total) as advance:
            result = cmp.compare(chosen, players, names, games, seed, rotate=rotate, threads=threads,
                                 progress=advance, sink=write)
    except BaseException:
        if sink is not None:
            sink.discard()
        raise
    if sink is not None:
        sink.close()
    if as_json:
        click.echo(json.dumps(result.to_dict(), indent=2))
    else:
        click.echo(render(result), nl=False)
        if out is not None:
            click.echo(f"rows: {show(out)}")

