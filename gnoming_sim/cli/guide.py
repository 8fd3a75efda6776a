"""``gnoming-sim guide``: derive the player's guide by rollouts (:mod:`gnoming_sim.tune.guide`), check the
chart player that follows it (:mod:`gnoming_sim.experiments.chart_check`) and write the card and the page."""
from __future__ import annotations

import json
import shlex
import sys
import time
from pathlib import Path

import click

from gnoming_sim.cli import group
from gnoming_sim.cli import options as opt
from gnoming_sim.cli.group import PROG, cli
from gnoming_sim.game.errors import GnomingError

MAX_GAMES = 1_000_000
MAX_DECISIONS = 10_000_000
MAX_BUDGET = 10_000
MAX_CHECK_DEALS = 100_000


@cli.command()
@click.option("--out", type=click.Path(), required=True, metavar="DIR",
              help="Folder for guide.json (every cell and the chart's cells), card.png and index.html.")
@click.option("--games", type=int, default=600, show_default=True, metavar="G",
              help="Self-play rounds per table size (at most).")
@click.option("--decisions", type=int, default=None, metavar="N",
              help="Stop the self-play once N decisions are recorded (all table sizes together).")
@click.option("--players", "players_", default="2,3,4,5,6,7", show_default=True, metavar="P,...",
              help="Table sizes of the self-play rounds.")
@click.option("--budget", type=int, default=8, show_default=True, metavar="N", help="Rollouts per candidate answer.")
@click.option("--rollouts", type=click.Choice(["expert", "self"]), default="expert", show_default=True,
              help="The rollouts' policy at every seat: expert (the chart's own play outside its cells), or "
                   "self (learned, the self-play strategy).")
@click.option("--check-deals", type=int, default=1000, show_default=True, metavar="N",
              help="Deals of the chart-among-experts check at 4 players (each played in every rotation, "
                   "and by experts alone); 0 skips the check and the ladder.")
@click.option("--ladder-games", type=int, default=500, show_default=True, metavar="N",
              help="Deals per table of the chart's ladder at 4 players (with random, greedy, expert, learned); 0 skips it.")
@click.option("--records", is_flag=True, help="Also write OUT/decisions.csv.gz: every sampled decision's cell and "
              "candidates' values (the raw material of the cells).")
@opt.seed
@opt.threads
@click.option("--force", is_flag=True, help="Write into a folder that is not empty.")
def guide(out, games, decisions, players_, budget, rollouts, check_deals, ladder_games, records, seed, threads, force):
    """Derive the basic-strategy guide from rollouts at self-play decisions of learned, and write
    OUT/guide.json, OUT/card.png (printable) and OUT/index.html.

    To make its resolved cells the `chart` preset, copy OUT/chart_cells.json to
    gnoming_sim/kernel/policy/chart_cells.json (`make guide` does both)."""
    from gnoming_sim.batch.safe_write import write_file
    from gnoming_sim.kernel.policy import registry
    from gnoming_sim.tune import guide as gd
    from gnoming_sim.tune import guide_card

    opt.check_range("--games", games, 1, MAX_GAMES)
    if decisions is not None:
        opt.check_range("--decisions", decisions, 1, MAX_DECISIONS)
    opt.check_range("--budget", budget, 1, MAX_BUDGET)
    if check_deals != 0:
        opt.check_range("--check-deals", check_deals, 2, MAX_CHECK_DEALS)
    opt.check_range("--ladder-games", ladder_games, 0, 100_000)
    opt.check_seed(seed)
    opt.check_threads(threads)
    sizes = opt.table_sizes(players_, "2,4,6")
    folder = Path(out)
    if folder.exists() and not folder.is_dir():
        raise GnomingError(f"--out {out}: exists and is not a folder")
    if folder.is_dir() and any(folder.iterdir()) and not force:
        raise GnomingError(f"--out {out}: the folder is not empty; pass --force to write into it")
    folder.mkdir(parents=True, exist_ok=True)
    command = " ".join(["gnoming-sim"] + [shlex.quote(a) for a in sys.argv[1:]])
    say = lambda line: click.echo(line, file=group.stderr())   # noqa: E731
    t0 = time.perf_counter()
    cfg = gd.GuideConfig(players=sizes, games=games, decisions=decisions, budget=budget, rollouts=rollouts, seed=seed,
                         threads=threads)
    result, frame = gd.derive(cfg, registry.get("learned"), progress=say)
    seen = sum(len(t["cells"]) for t in result["tables"].values())
    resolved = sum(c["resolved"] for t in result["tables"].values() for c in t["cells"])
    cells = {"description": f"plays the player's guide by lookup: the {len(result['cells'])} cells whose action beats "
                            f"expert's own rule ({resolved} resolved of {seen} seen; `gnoming-sim guide`), expert's "
                            f"rules elsewhere",
             "cells": result["cells"],
             "provenance": {"command": command, "seed": seed, "decisions": result["decisions"],
                            "rounds": result["rounds"], "budget": budget, "self_play": result["self_play"],
                            "rollouts": rollouts,
                            "derive_s": result["derive_s"]}}
    write_file(folder / "chart_cells.json", json.dumps(cells, indent=1) + "\n", "--out")
    chart = registry.chart_from_file(folder / "chart_cells.json")
    result["check"] = {}
    if check_deals:
        from gnoming_sim.experiments import chart_check

        say(f"guide: chart among experts, {check_deals:,} deals at 4 players")
        result["check"]["versus_expert"] = chart_check.versus_expert(chart, 4, check_deals, seed, threads=threads)
        if ladder_games:
            say(f"guide: ladder at 4 players, {ladder_games:,} deals per table")
            result["check"]["ladder"] = chart_check.ladder_rating(chart, 4, ladder_games, seed, threads=threads)
    result["command"] = command
    result["wall_s"] = round(time.perf_counter() - t0, 1)
    cells.update(check=result["check"], tables=result["tables"])   # what the report's guide section renders
    write_file(folder / "chart_cells.json", json.dumps(cells, indent=1, default=float) + "\n", "--out")
    write_file(folder / "guide.json", json.dumps(result, indent=1, default=float) + "\n", "--out")
    write_file(folder / "card.png", guide_card.card_png(result), "--out")
    write_file(folder / "index.html", guide_card.page_html(result), "--out")
    if records:
        frame.to_csv(folder / "decisions.csv.gz", index=False)
    click.echo(f"{PROG} guide: {result['decisions']:,} decisions, {resolved} cells resolved of {seen} seen, "
               f"{len(result['cells'])} played by the chart (they beat expert's own rule), "
               f"{result['wall_s']:.0f} s; {guide_card.value_line(result)}; wrote {folder}/guide.json, card.png, "
               f"index.html, chart_cells.json{', decisions.csv.gz' if records else ''}")

