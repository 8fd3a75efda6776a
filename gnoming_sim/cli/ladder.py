"""``gnoming-sim ladder``: every strategy of a pool rated on one scale, with what the ratings rest on."""
from __future__ import annotations

import contextlib
import json
import math

import click

from gnoming_sim.cli import group  # group.stderr is looked up at call time (tests swap it)
from gnoming_sim.cli import options as opt
from gnoming_sim.cli.group import cli
from gnoming_sim.game.errors import GnomingError

DEFAULT_TABLES = "2,4,6"


def parse_pool(spec: str | None) -> tuple[str, ...]:
    """``--strategies a,b,c``: registered names (``mcN`` included); the default pool without it."""
    from gnoming_sim.experiments import ladder

    if spec is None:
        return ladder.DEFAULT_POOL
    names = [n.strip() for n in spec.split(",")]
    if any(not n for n in names):
        raise GnomingError(f"--strategies has an empty strategy name: {spec!r}")
    return ladder.check_pool(names)


# ------------------------------------------------------------------ text
def _est(e: dict, fmt: str, scale: float = 1.0) -> str:
    m, (lo, hi) = e["mean"], e["ci95"]
    if not math.isfinite(m):
        return "n/a"
    f = lambda v: "n/a" if not math.isfinite(v) else format(scale * v, fmt).replace("-", "\u2212")  # noqa: E731
    return f"{f(m)} [{f(lo)}, {f(hi)}]"


def _rules_text(rules: dict, deck: str) -> str:
    """The rules and deck a ladder ran under: the rules' defaults (gnoming_sim/game/rules.md, as
    ``gnoming-sim rules`` prints them), or the options changed."""
    from gnoming_sim.game.rules import RuleConfig

    base = RuleConfig().to_dict()
    changed = [f"{k}={v}" for k, v in rules.items() if base.get(k) != v]
    said = "defaults" if not changed else "changed: " + ", ".join(changed)
    return f"the rules of gnoming_sim/game/rules.md ({said}), the {deck} deck"


def render(result: dict) -> str:
    """The ladder as text: one table per table size, then its head-to-head and skill shares."""
    from gnoming_sim.experiments.ladder_stats import ELO

    out = [f"strength ladder: pool {', '.join(result['pool'])}; seed {result['seed']}; "
           f"{result['games']:,} deals per table without a Monte Carlo seat, fewer with one (n below)",
           f"rating: Bradley-Terry on the Elo scale, {result['tables'][0]['anchor']} = 0, higher is stronger "
           f"(a gap of 400 = odds of 10 to 1 in one pairwise result; 1 unit of log-strength = {ELO:.1f})",
           f"margin: game score minus the mean of the {result['reference']} seats on the same deals, one strategy "
           f"among {result['reference']}s (points per game; negative = better than {result['reference']})",
           f"Order: (win rate among {result['field']} players - 1/P) / (1 - 1/P): 0 plays like random, 1 always wins",
           f"every interval 95% over deals (n = deals): ratings, head-to-head and skill share by bootstrap "
           f"({result['bootstrap']:,} replicates), margin and Order by t"]
    for size in result["tables"]:
        p = size["players"]
        out += ["", f"{p} players: {len(size['lineups'])} lineups, {size['pairwise_results']:,} pairwise results, "
                    f"{size['deals']:,} deals ({size['wall_s']:.0f} s)"]
        rows = [("strategy", "rating [95% CI]", "n", "results", "margin vs " + result["reference"] + " [95% CI]", "n",
                 "Order [95% CI]", "n")]
        for r in size["strategies"]:
            flag = " *" if r["bounded_by_prior"] else ""
            rows.append((r["strategy"], _est(r["rating"], "+.0f") + flag, f"{r['rating']['n']:,}", f"{r['results']:,}",
                         _est(r["margin"], "+.2f"), f"{r['margin']['n']:,}", _est(r["order"], ".3f"),
                         f"{r['order']['n']:,}"))
        widths = [max(len(row[k]) for row in rows) for k in range(len(rows[0]))]
        for row in rows:
            out.append("  " + "  ".join(c.ljust(w) if k == 0 else c.rjust(w) for k, (c, w) in enumerate(zip(row, widths))))
        if any(r["bounded_by_prior"] for r in size["strategies"]):
            out.append("  * never won (or never lost) a pairwise result: its rating is bounded only by the fit's prior")
        h, s = size["head_to_head"], size["skill_share"]
        out.append(f"  head to head: the higher-rated strategy wins {_est(h, '.1%')} of a pair's pairwise results "
                   f"(the mean over the {h['pairs']} pairs that met; n = {h['n']:,} deals)")
        out.append(f"  skill share: {_est(s, '.1%')} of the variance of a seat's game score is explained by which "
                   f"strategy sits there (R^2 in the lineup games, each lineup weighted equally; n = {s['n']:,} deals)")
        out.append(f"  conditional on: this pool, {p} players, {_rules_text(result['rules'], result['deck'])}; the "
                   f"lineups drawn under seed {result['seed']}")
    out.append(f"wall time {result['wall_s']:.1f} s")
    return "\n".join(out) + "\n"


# ------------------------------------------------------------------ the command
@cli.command()
@click.option("--players", "tables", default=DEFAULT_TABLES, show_default=True, metavar="N,N,...",
              help="Table sizes to rate at (each 2..7); every size is a ladder of its own.")
@click.option("--strategies", "pool", default=None, metavar="A,B,...",
              help="The pool to rate: registered strategy names (mcN: the Monte Carlo player with N "
                   "rollouts) [default: random,greedy,builder,rusher,cautious,expert,mc4,mc16,mc64].")
@click.option("--games", type=int, default=None, metavar="N",
              help="Deals per table without a Monte Carlo seat (each played once per seat rotation); a "
                   "table with one plays fewer, by its cost [default: 4000].")
@click.option("--bootstrap", type=int, default=1000, show_default=True, metavar="B",
              help="Bootstrap replicates (over deals) of the ratings' intervals.")
@opt.seed
@opt.threads
@opt.strategies_file
@opt.rules
@opt.deck
@click.option("--out", type=click.Path(), default=None, metavar="FILE.json|FILE.csv",
              help="Also write the ladder: JSON (every estimate), or CSV (one row per table size and strategy).")
@click.option("--force", is_flag=True, help="Replace an existing --out file.")
@opt.as_json
def ladder(tables, pool, games, bootstrap, seed, threads, strategies_path, rules_path, deck_path, out, force,
           as_json):
    """Rate every strategy of a pool on one scale: Bradley-Terry from games on shared deals with rotated
    seats, the margin against expert, Order, and how much skill decides a game."""
    from gnoming_sim.experiments import ladder as lad

    sizes = opt.table_sizes(tables, example=DEFAULT_TABLES)
    opt.check_seed(seed)
    games = lad.DEFAULT_GAMES if games is None else games
    opt.check_range("--games", games, 1, lad.MAX_GAMES)
    opt.check_range("--bootstrap", bootstrap, 100, 100_000)
    opt.check_threads(threads)
    opt.load_strategies_file(strategies_path)
    names = parse_pool(pool)
    rules_ = opt.load_rules_file(rules_path)
    deck_ = opt.load_deck_file(deck_path, max(sizes))
    if force and out is None:
        raise GnomingError("--force needs --out")
    path = None
    from gnoming_sim.batch.safe_write import OutputLock, show

    lock = contextlib.nullcontext()
    if out is not None:
        from gnoming_sim.batch.output import check_output

        path = check_output(out, force=force, resumable=False, inputs=[rules_path, deck_path, strategies_path],
                            suffixes=(".json", ".csv"))
        lock = OutputLock(path)   # held for the whole run: a second ladder to the same --out is refused now
    total = lad.design_cost(names, sizes, games, seed)
    kept = f"{show(path)} is unchanged" if path is not None and path.exists() else "nothing was written"
    with lock, group.interruptible(kept):
        data = _run(lad, names, sizes, games, seed, rules_, deck_, threads, bootstrap, total, path)
    if as_json:
        click.echo(json.dumps(data, indent=2))
    else:
        click.echo(render(data), nl=False)
        if path is not None:
            click.echo(f"wrote {show(path)}")


def _run(lad, names, sizes, games, seed, rules_, deck_, threads, bootstrap, total, path) -> dict:
    """Play and rate the ladder; write ``path`` (if any); the result as a dict."""

    def done(size):
        click.echo(f"ladder: {size['players']} players rated ({size['wall_s']:.0f} s)", file=group.stderr())

    with group.progress_bar(int(total), label="ladder", absolute=False) as advance:
        result = lad.run(names, sizes, games, seed, rules_, deck_, threads, bootstrap,
                         progress=lambda games, units: advance(int(units)), done=done)
    data = result.to_dict()
    if path is not None:
        _write(path, result, data)
    return data


def _write(path, result, data: dict) -> None:
    from gnoming_sim.batch.safe_write import write_file

    if str(path).lower().endswith(".csv"):
        import pandas as pd

        write_file(path, pd.DataFrame(result.rows()).to_csv(index=False, float_format="%.6g"), "--out")
    else:
        write_file(path, json.dumps(data, indent=2) + "\n", "--out")
