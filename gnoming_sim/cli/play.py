"""``gnoming-sim play``: one game told turn by turn (or its trace as JSON records)."""
from __future__ import annotations

import json

import click

from gnoming_sim.cli import options as opt
from gnoming_sim.cli.group import cli
from gnoming_sim.game.rules import ROUNDS


@cli.command()
@opt.table_options
@click.option("--game", "game", type=int, default=0, show_default=True, metavar="G",
              help="Which game of the seed to tell (the same game as in `simulate`).")
@click.option("--round", "round_", type=int, default=None, metavar="R",
              help=f"Tell only round R (1..{ROUNDS}, as the story numbers them).")
@click.option("--seat", type=int, default=None, metavar="S",
              help="Tell only seat S's turns, flips and scores (seats count from 0), beside the table-wide lines.")
@opt.as_json
def play(players, strategy, seats, strategies_path, seed, rotate, rules_path, deck_path, game, round_, seat,
         as_json):
    """Tell one game turn by turn: draws, placements, bounces, hazards, the reveal and the scoring."""
    from gnoming_sim.batch.runner import BatchSpec

    opt.check_players(players)
    opt.check_at_least("--game", game, 0)
    opt.check_range("--game", game, 0, opt.MAX_GAME)
    opt.check_range("--round", round_, 1, ROUNDS)
    opt.check_range("--seat", seat, 0, players - 1, f"0..{players - 1} (seats count from 0)")
    names, rules_, deck_ = opt.table_spec(players, strategy, seats, seed, rules_path, deck_path,
                                          strategies_path)
    spec = BatchSpec.make(players, names, 1, seed, rotate, rules_, deck_)

    from gnoming_sim.kernel.engine import simulate as run  # compiles the kernels: only after every check
    from gnoming_sim.reference.narrate import narrate

    result = run(players=players, strategies=spec.seats, games=1, seed=seed, rules=rules_, deck=deck_,
                 first_game=game, rotate=spec.rotate, trace=True, threads=1)
    round_index = None if round_ is None else round_ - 1
    if as_json:
        click.echo(json.dumps(trace_records(result, round_index, seat), indent=1))
    else:
        click.echo(narrate(result, round_index=round_index, seat=seat), nl=False)


def trace_records(result, round_index: int | None = None, seat: int | None = None) -> dict:
    """Game 0 of a traced result as JSON-ready data: its facts, one record per trace entry, the scores.

    A record is ``{"round", "kind", "seat", "a", "b"}`` in the kernel's trace format (see
    :mod:`gnoming_sim.game.trace`; ``round`` counts from 1 as the story does, seat -1 is the
    table) plus ``"card"``, the name of the card the record moves or shows, where it has one.
    The filters keep one round and the records of one seat (and the table's).
    """
    from gnoming_sim.game import fields
    from gnoming_sim.game import trace as T
    from gnoming_sim.game.cards import card_name

    with_card_in_b = {T.SETUP_HAZARD, T.SETUP_DISCARD, T.INIT_FLIP, T.DRAW, T.PLACE, T.BOUNCE, T.DISCARD}
    seats = [result.strategy_names[k] for k in result.seat_strategy[0]]
    records, rnd = [], 0
    for kind, who, a, b in (tuple(int(v) for v in rec) for rec in result.traces[0]):
        if kind == T.ROUND:
            rnd = a
        rec = {"round": rnd + 1, "kind": T.NAMES[kind], "seat": who, "a": a, "b": b}
        if kind in with_card_in_b or (kind == T.HAZARD_FLIP and a >= 0):
            rec["card"] = card_name(b)
        elif kind == T.CARD:
            rec["card"] = card_name(a)
        if round_index is not None and rnd != round_index:
            continue
        if seat is not None and who not in (seat, -1) and kind not in (T.ROUND, T.ROUND_END):
            continue
        records.append(rec)
    scores = [[{name: int(result.round_stats[0, r, s, j]) for j, name in enumerate(fields.NAMES)}
               for s in range(result.players)] for r in range(ROUNDS)]
    return {
        "game": result.first_game, "seed": result.seed, "players": result.players, "seats": seats,
        "rules": result.rules.to_dict(), "deck": result.deck.name,
        "filters": {"round": None if round_index is None else round_index + 1, "seat": seat},
        "records": records,
        "round_scores": scores,          # [round][seat] -> the Parquet fields of that seat's round
        "totals": [int(v) for v in result.totals[0]],
        "win_credit": [float(v) for v in result.win_credit[0]],
    }
