"""``gnoming-sim play``: one game told turn by turn."""
from __future__ import annotations

import click

from gnoming_sim.cli import options as opt
from gnoming_sim.cli.group import cli


@cli.command()
@opt.table_options
@click.option("--game", "game", type=int, default=0, show_default=True, metavar="G",
              help="Which game of the seed to tell (the same game as in `simulate`).")
def play(players, strategy, seats, strategies_path, seed, rotate, rules_path, deck_path, game):
    """Tell one game turn by turn: draws, placements, bounces, hazards, the reveal and the scoring."""
    from gnoming_sim.batch.runner import BatchSpec

    opt.check_players(players)
    opt.check_at_least("--game", game, 0)
    opt.check_range("--game", game, 0, opt.MAX_GAME)
    names, rules_, deck_ = opt.table_spec(players, strategy, seats, seed, rules_path, deck_path,
                                          strategies_path)
    spec = BatchSpec.make(players, names, 1, seed, rotate, rules_, deck_)

    opt.notice_cold_cache()
    from gnoming_sim.kernel.engine import simulate as run  # compiles the kernels: only after every check
    from gnoming_sim.reference.narrate import narrate

    result = run(players=players, strategies=spec.seats, games=1, seed=seed, rules=rules_, deck=deck_,
                 first_game=game, rotate=spec.rotate, trace=True, threads=1)
    click.echo(narrate(result), nl=False)
