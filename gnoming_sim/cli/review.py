"""``gnoming-sim review``: grade every decision of one seat in a game (a record file or a simulated game)."""
from __future__ import annotations

import contextlib
import json
import shlex
import time

import click

from gnoming_sim.cli import group
from gnoming_sim.cli import options as opt
from gnoming_sim.cli.group import cli, progress_bar
from gnoming_sim.game.errors import GnomingError
from gnoming_sim.search import evaluator

# the search's defaults (gnoming_sim.search.review), spelt here so that `--help` does not import the search;
# tests/cli/test_review_cli.py checks that they agree.  The base player is the oracle's (a light module)
SCREEN = 64
CONFIRM = 1000
DEFAULT_POLICY = evaluator.BASE
MAX_REVIEW_ROLLOUTS = 100_000
WHY_ROLLOUTS = 400
PAGE_FILES = ("index.html", "review.json")   # what a review writes in --out


@cli.command()
@click.argument("record_path", required=False, type=click.Path(dir_okay=True), metavar="[RECORD]")
@opt.table_options
@click.option("--game", type=int, default=None, metavar="G", help="Review game G of --seed (as `simulate` plays it).")
@click.option("--seat", type=int, default=None, metavar="S",
              help="The seat to grade (seats count from 0); with a RECORD, instead of its 'seat'.")
@click.option("--out", "out", default="review", show_default=True, metavar="DIR",
              help="Folder for the page (index.html) and review.json.")
@click.option("--force", is_flag=True, help="Write into an --out folder that holds other files or an earlier review.")
@click.option("--save-record", "save_record", default=None, metavar="FILE",
              help="Also write the game's record (TOML, or JSON for a .json name), the input a person would enter.")
@click.option("--policy", default=DEFAULT_POLICY, show_default=True, metavar="NAME|A,B,...",
              help=f"Base policy of the rollouts: one strategy for every seat, or one per seat (default: the "
                   f"oracle's, {evaluator.BASE} at every seat: the strongest fast player on the ladder; it beats learned "
                   "on held-out deals at 2, 4 and 6 players).")
@click.option("--screen-deals", "--rollouts", "rollouts", type=int, default=SCREEN, show_default=True, metavar="N",
              help="Deals of the unseen cards behind each decision's 0-ply screening (the value network after every "
                   "option; it picks the candidates and never decides a mark).")
@click.option("--confirm", type=int, default=CONFIRM, show_default=True, metavar="N",
              help="Fresh truncated rollouts (this round played out, then the value network; full rollouts in the "
                   "last round) that measure the loss of the move played against the chosen alternative; half as "
                   "many of the screening's candidates and the move played choose it.")
@click.option("--rollout-seed", type=int, default=0, show_default=True, metavar="S", help="Seed of the rollouts.")
@click.option("--why-rollouts", type=int, default=WHY_ROLLOUTS, show_default=True, metavar="N",
              help="Explain every marked move against the best (as `analyse --why`) on N paired rollouts; 0: no "
                   "explanations.")
@click.option("--drill-deck", "drill_deck", default=None, metavar="PATH",
              help="The drill deck the marked decisions are added to (default: drills.parquet in the user's data "
                   "folder, $XDG_DATA_HOME/gnoming-sim; `gnoming-sim drill` drills them).")
@click.option("--no-drills", is_flag=True, help="Add no marked decision to a drill deck.")
@opt.threads
@opt.as_json
def review(record_path, players, strategy, seats, strategies_path, seed, rotate, rules_path, deck_path, game, seat,
           out, force, save_record, policy, rollouts, confirm, rollout_seed, why_rollouts, drill_deck, no_drills,
           threads, as_json):
    """Grade every draw, placement and hazard flip of one seat by the value network and rollouts: each
    move against the best alternative in win chance, marked ?! ? ?? by the win chance it gives away (shrunk)
    where the game's Benjamini-Hochberg control (5% false marks) keeps the loss;
    writes a self-contained HTML page (and review.json), with a summary and a one-line verdict."""
    opt.check_range("--rollouts", rollouts, 20, MAX_REVIEW_ROLLOUTS)
    opt.check_range("--confirm", confirm, 20, MAX_REVIEW_ROLLOUTS)
    opt.check_threads(threads)
    opt.check_seed(seed)
    opt.check_range("--rollout-seed", rollout_seed, 0, opt.MAX_SEED, "0..2**64-1")
    if why_rollouts != 0:
        opt.check_range("--why-rollouts", why_rollouts, 20, MAX_REVIEW_ROLLOUTS, f"0 or 20..{MAX_REVIEW_ROLLOUTS:,}")
    if record_path is not None and game is not None:
        raise GnomingError("give a RECORD file or --game G (a simulated game), not both")
    if record_path is None and game is None:
        raise GnomingError("give a RECORD file, or --seed S --game G --seat K (a simulated game)")
    from gnoming_sim.game import record as record_file

    if record_path is not None:   # every input is read and checked before the output folder is looked at
        from gnoming_sim.game.input_file import check_regular

        check_regular(record_path, "record")
        opt.load_strategies_file(strategies_path)
        rules_, deck_ = opt.load_rules_file(rules_path), opt.load_deck_file(deck_path)
        record = record_file.load(record_path)
        if (click.get_current_context().get_parameter_source("players") is click.core.ParameterSource.COMMANDLINE
                and players != record.players):
            raise GnomingError(f"--players {players} contradicts the record, which has {record.players} players; "
                               "drop --players (a record sets its own table)")
        if seat is not None:
            opt.check_range("--seat", seat, 0, record.players - 1, f"0..{record.players - 1} (the record's seats)")
            record = record_file.Record(record.players, seat, record.rounds, record.seats, record.origin)
        players, names = record.players, None
    else:
        if seat is None:
            raise GnomingError("--game needs --seat S: the seat to grade (seats count from 0)")
        opt.check_range("--game", game, 0, opt.MAX_GAME)
        names, rules_, deck_ = opt.table_spec(players, strategy, seats, seed, rules_path, deck_path, strategies_path)
        opt.check_range("--seat", seat, 0, players - 1, f"0..{players - 1} (seats count from 0)")
        record = None   # played and recorded in _grade, under the output's lock
    drills = _drill_deck(drill_deck, no_drills)   # a deck that cannot be read is refused before any rollout
    from gnoming_sim.batch.safe_folder import check_target, staged_report

    inputs = [record_path, rules_path, deck_path, strategies_path]
    target = check_target(out, "--out", force, inputs, own_needs_force=True, names=PAGE_FILES)
    if save_record is not None:
        _check_save(save_record, force, target, inputs)
    policies = opt.strategy_names("--policy", policy, players, (1, players))
    from gnoming_sim.search.estimates import refuse_mc

    refuse_mc(policies, "--policy")
    from gnoming_sim.batch.safe_write import OutputLock

    # both outputs are locked, and the page's folder staged, before the first rollout: a second review to
    # the same --out is refused now, and Ctrl-C or SIGTERM leaves --out as it was
    kept = f"{target} is left as it was" if target.exists() else "nothing was written"
    with group.interruptible(kept), contextlib.ExitStack() as held:
        if save_record is not None:
            held.enter_context(OutputLock(save_record, "--save-record"))
        stage = held.enter_context(staged_report(target, "--out"))
        record, res = _grade(record, record_path, (players, names, seed, rotate, rules_, deck_, game, seat),
                             (policies, rollout_seed, rollouts, confirm, why_rollouts, threads))
        from gnoming_sim.cli.review_page import page

        text = json.dumps(group.finite(res), indent=1, allow_nan=False)
        stage.write("index.html", page(res))
        stage.write("review.json", text + "\n")
    if save_record is not None:
        from gnoming_sim.batch.safe_write import write_file

        write_file(save_record, record_file.dumps(record, save_record), "--save-record")
    told = []
    if drills is not None:
        from gnoming_sim.drills import deck as drill

        source = (f"{record_path}" if record_path is not None else f"seed {seed} game {game}") + \
            f" seat {res['game']['seat']}"
        told.append(add_marks(drills, drill.cards_from_review(res, source), target))
    if as_json:
        click.echo(text)
        for line in told:
            click.echo(line, file=group.stderr())
    else:
        from gnoming_sim.cli.review_page import summary_lines

        click.echo("\n".join(summary_lines(res) + [f"wrote {target / 'index.html'} and {target / 'review.json'}"]
                             + told))


PENDING = "drills-pending.parquet"   # the marks kept beside review.json when the deck stays busy


def add_marks(deck, cards, target) -> str:
    """Add a review's marked decisions to the drill deck, waiting for another run writing it (a line on stderr
    says so); a deck still busy after :data:`~gnoming_sim.drills.deck.LOCK_WAIT_S`, or one that cannot be
    written, leaves the marks in ``target/drills-pending.parquet`` (added to any kept there before) and the
    line names the command that adds them.  The line to tell; raises GnomingError only when even the pending
    file cannot be written (the review itself is written already)."""
    from gnoming_sim.batch.safe_write import Busy
    from gnoming_sim.drills import deck as drill

    try:
        added, size = drill.add(deck, cards, "--drill-deck",
                                waiting=lambda line: click.echo(f"gnoming-sim: {line}", err=True))
        return (f"drills: {added} marked decision(s) added to {deck} ({size} in the deck; `gnoming-sim drill` "
                "drills them)")
    except GnomingError as exc:
        why = "the deck is still being written by another run" if isinstance(exc, Busy) else str(exc)
    pending = target / PENDING
    try:
        drill.add(pending, cards, "--drill-deck", wait_s=0)
    except GnomingError as exc:
        raise GnomingError(f"drills: {why}, and the {len(cards)} marked decision(s) could not be kept in "
                           f"{pending} either ({exc}); review.json holds them: review the game again to add "
                           "them") from None
    deck_arg = "" if str(deck) == str(drill.default_path()) else f" --deck {shlex.quote(str(deck))}"
    return (f"drills: {why}: the {len(cards)} marked decision(s) are kept in {pending}; "
            f"`gnoming-sim drill{deck_arg} --add {shlex.quote(str(pending))}` adds them")


def _drill_deck(path, no_drills: bool):
    """The drill deck the review adds to (None with --no-drills), read once now so that a deck that is not
    one is refused in one line before the rollouts (and never written over)."""
    if no_drills:
        if path is not None:
            raise GnomingError("--drill-deck names the deck --no-drills turns off: give one of them")
        return None
    from gnoming_sim.drills import deck as drill

    path = drill.default_path() if path is None else path
    drill.load(path, "--drill-deck")
    return path


def _grade(record, record_path, table: tuple, search: tuple):
    """Grade every decision of the record's seat (a simulated game's record made first): ``(record, result)``.

    ``table``: (players, names, seed, rotate, rules, deck, game, seat) of a simulated game; ``search``:
    (policies, rollout seed, rollouts, confirm, why rollouts, threads)."""
    players, names, seed, rotate, rules_, deck_, game, seat = table
    policies, rollout_seed, rollouts, confirm, why_rollouts, threads = search
    started = time.perf_counter()
    if record_path is None:
        record = simulated_record(players, names, seed, rotate, rules_, deck_, game, seat)
    from gnoming_sim.game.record_trace import decisions as find_decisions
    from gnoming_sim.reference.record_check import check
    from gnoming_sim.search.review import review as grade_all

    checked = check(record, rules_, deck_)
    found = find_decisions(checked.deals, checked.trace, record.players, record.seat, rules_, deck_,
                           checked.round_scores, record.origin)
    with progress_bar(len(found), "decisions") as advance:
        res = grade_all(found, policies, rollout_seed, rollouts, confirm, threads, advance)
    from gnoming_sim.game.position_id import encode

    for g, d in zip(res["decisions"], found):   # each position whole: for analyse --position-id, the board, drills
        g["position_id"] = encode(d.position)
    if why_rollouts:
        explain_marked(res, found, policies, rollout_seed, why_rollouts, threads)
    res["game"] = _game_facts(record, checked, rules_, deck_, record_path, seed, game)
    res["seconds"] = time.perf_counter() - started
    return record, res


def explain_marked(res: dict, found, policies, seed: int, rollouts: int, threads) -> None:
    """Each marked decision's move against the best, as ``analyse --why`` (the components and one typical
    continuation of both on the same cards): ``why`` in its result and a section of its page."""
    from gnoming_sim.cli.why_text import tell_samples, why_html
    from gnoming_sim.search.why import explain

    for g, d in zip(res["decisions"], found):
        if g["forced"] or g["mark"] in (None, "ok"):
            continue
        why = tell_samples(explain(d.position, [g["best"], g["played"]], policies, seed=seed, rollouts=rollouts,
                                   samples=1, horizon=evaluator.HORIZON, threads=threads), d.position)
        g["why"] = why
        g.setdefault("extras", []).append({"title": "Why: the move played against the best",
                                           "html": why_html(why)})


def _check_save(path, force: bool, target, inputs) -> None:
    """``--save-record``: the output guard (TOML or JSON, not an input, creatable), and not in ``--out``."""
    from pathlib import Path

    from gnoming_sim.batch.output import check_output

    p = check_output(path, force=force, resumable=False, inputs=inputs, suffixes=(".toml", ".json"),
                     option="--save-record")
    if not p.parent.is_dir():
        raise GnomingError(f"--save-record {path}: folder {p.parent} does not exist")
    here, out = p.resolve(), Path(target).resolve()
    if here == out or here.is_relative_to(out):
        raise GnomingError(f"--save-record {path} lies in the --out folder, which the review replaces; "
                           "name a file outside it")


def simulated_record(players, names, seed, rotate, rules_, deck_, game, seat):
    from gnoming_sim.batch.runner import BatchSpec
    from gnoming_sim.game.record_trace import from_trace
    from gnoming_sim.kernel.engine import simulate

    spec = BatchSpec.make(players, names, 1, seed, rotate, rules_, deck_)
    res = simulate(players=players, strategies=spec.seats, games=1, seed=seed, rules=rules_, deck=deck_,
                   first_game=game, rotate=spec.rotate, trace=True, threads=1)
    sat = [res.strategy_names[k] for k in res.seat_strategy[0]]
    return from_trace(res.deals[0], res.traces[0], players, seat, sat, f"seed {seed} game {game}")


def _game_facts(record, checked, rules_, deck_, record_path, seed, game) -> dict:
    from gnoming_sim.game.version import __version__

    source = ({"kind": "record", "file": str(record_path)} if record_path is not None
              else {"kind": "simulated", "seed": seed, "game": game})
    return {"source": source, "players": record.players, "seat": record.seat, "seats": list(record.seats),
            "rounds_recorded": len(record.rounds), "round_scores": checked.round_scores,
            "rules": rules_.to_dict(), "deck": deck_.name, "version": __version__}
