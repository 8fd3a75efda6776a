"""``gnoming-sim train``: fit the learned player's weights by expert iteration (:mod:`gnoming_sim.tune.learn`)."""
from __future__ import annotations

import shlex
import sys
import time

import click

from gnoming_sim.cli import group
from gnoming_sim.cli import options as opt
from gnoming_sim.cli.group import PROG, cli
from gnoming_sim.game.errors import GnomingError

MAX_ITERATIONS = 50
MAX_TRAIN_GAMES = 1_000_000
MAX_BUDGET = 10_000
FILES = ("weights.json", "log.csv", "curve.png")   # what a run writes in --out (listed in its manifest)


@cli.command()
@click.option("--out", type=click.Path(), required=True, metavar="DIR",
              help="Folder for weights.json (the learned strategy, with its provenance), log.csv and curve.png.")
@click.option("--iterations", type=int, default=4, show_default=True, metavar="N",
              help="Rounds of targets and fits; the first collects its targets under expert play.")
@click.option("--games", type=int, default=2000, show_default=True, metavar="N",
              help="Self-play rounds per table size per iteration.")
@click.option("--players", "players_", default="2,4,6", show_default=True, metavar="P,...",
              help="Table sizes of the training rounds.")
@click.option("--budget", type=int, default=16, show_default=True, metavar="N", help="Rollouts per answer.")
@click.option("--check-games", type=int, default=4000, show_default=True, metavar="N",
              help="Validation games at 4 players after each iteration (the training curve).")
@opt.seed
@opt.threads
@click.option("--force", is_flag=True, help="Replace the files of an earlier run in --out (only the files it wrote; "
              "other files there are kept).")
def train(out, iterations, games, players_, budget, check_games, seed, threads, force):
    """Train the learned player: rollout values of every answer at sampled self-play decisions, a ridge
    fit of the answers' differences on their features, repeated with the new player.

    To make the result the `learned` preset, copy OUT/weights.json to
    gnoming_sim/kernel/policy/learned_weights.json (`make train` does both)."""
    from gnoming_sim.tune import learn

    opt.check_range("--iterations", iterations, 1, MAX_ITERATIONS)
    opt.check_range("--games", games, 1, MAX_TRAIN_GAMES)
    opt.check_range("--budget", budget, 1, MAX_BUDGET)
    opt.check_range("--check-games", check_games, 4, MAX_TRAIN_GAMES)
    opt.check_seed(seed)
    opt.check_threads(threads)
    try:
        sizes = tuple(int(p) for p in players_.split(","))
    except ValueError:
        raise GnomingError(f"--players must be table sizes separated by commas, e.g. 2,4,6; got {players_!r}") from None
    for p in sizes:
        opt.check_players(p)
    if len(set(sizes)) < len(sizes):
        raise GnomingError(f"--players: each table size once, got {players_}")
    from gnoming_sim.batch.safe_folder import check_target, staged_report

    folder = check_target(out, "--out", force, own_needs_force=True, names=FILES)
    cfg = learn.TrainConfig(iterations=iterations, games=games, players=sizes, budget=budget,
                            check_games=check_games, seed=seed, threads=threads)
    command = " ".join(["gnoming-sim"] + [shlex.quote(a) for a in sys.argv[1:]])
    kept = f"{folder} is left as it was" if folder.exists() else "nothing was written"
    # the folder is locked and staged before the first game: a second run to it is refused at once, and
    # Ctrl-C or SIGTERM leaves it as it was
    with group.interruptible(kept), staged_report(folder, "--out") as stage:
        t0 = time.perf_counter()
        weights = learn.train(cfg, progress=lambda line: click.echo(line, file=group.stderr()))
        seconds = time.perf_counter() - t0
        import pandas as pd

        stage.write(FILES[0], learn.weights_json(weights, cfg, command, seconds))
        stage.write(FILES[1], pd.DataFrame(cfg.log).to_csv(index=False))
        stage.write(FILES[2], learn.curve_png(cfg.log))
    last = cfg.log[-1]
    click.echo(f"{PROG} train: {iterations} iterations, {seconds:.0f} s; validation at 4 players: "
               f"{last['margin_vs_expert_4p']:+.2f} [{last['lo']:+.2f}, {last['hi']:+.2f}] points per game vs expert "
               f"(95%, n = {last['check_games']} games; lower is better); wrote "
               f"{', '.join(str(folder / f) for f in FILES)}")
