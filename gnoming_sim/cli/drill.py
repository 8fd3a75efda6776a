"""``gnoming-sim drill``: the player's own reviewed mistakes, one position at a time, in Leitner boxes
(the deck and its rules: :mod:`gnoming_sim.drills.deck`)."""
from __future__ import annotations

import datetime as dt

import click

from gnoming_sim.cli.group import cli
from gnoming_sim.game.errors import GnomingError

# the options in the order the table shows them (never the review's ranking, which would give the answer away)
_ORDER = (["draw", "pile0", "pile1"] + [f"pos{q}" for q in range(9)] + ["discard"]
          + [f"flip{q}" for q in range(9)] + ["decline"])


@cli.command()
@click.option("--deck", "deck_path", default=None, metavar="PATH",
              help="The drill deck (default: drills.parquet in the user's data folder, $XDG_DATA_HOME/gnoming-sim, "
                   "where `review` adds the decisions it marks).")
@click.option("--due", "list_due", is_flag=True, help="List the cards due now and when the rest are; drill none.")
@click.option("--retry", is_flag=True, help="Drill the cards last missed or skipped, now, whatever their date.")
@click.option("--include-inaccuracies", is_flag=True,
              help="Drill the inaccuracies (?!) too; by default the mistakes (?) and blunders (??).")
@click.option("--add", "add_path", default=None, metavar="FILE",
              help="Add the cards of FILE (a deck, such as the drills-pending.parquet a review keeps beside its "
                   "review.json when the deck was busy) to the deck; drill none.")
def drill(deck_path, list_due, retry, include_inaccuracies, add_path):
    """Drill the decisions `review` marked, one position at a time without its answer: pick an option (any
    option the rollouts cannot tell from the best counts as right) or skip, then see the answer and the win
    chance the move played lost. A hit moves the card up one Leitner box (due again 3, 7, 14, 30 days
    later), a miss or a skip back to box 1 (due tomorrow)."""
    from gnoming_sim.drills import deck as D

    if list_due and retry:
        raise GnomingError("--due lists the cards due; --retry drills the missed ones: give one of them")
    path = D.default_path() if deck_path is None else deck_path
    if add_path is not None:
        if list_due or retry or include_inaccuracies:
            raise GnomingError("--add adds cards to the deck and drills none: give it without --due, --retry "
                               "and --include-inaccuracies")
        click.echo(add_from(add_path, path))
        return
    cards = D.load(path)
    if not cards:
        if deck_path is not None:
            raise GnomingError(f"--deck {path}: no drill deck there; `gnoming-sim review --drill-deck {path}` "
                               "adds the decisions it marks")
        click.echo(f"no drill deck yet ({path}): `gnoming-sim review` adds the decisions it marks")
        return
    today = dt.date.today()
    marks = D.marks_for(include_inaccuracies)
    kept = [c for c in cards if c.symbol in marks]
    chosen = D.select(cards, today, retry, include_inaccuracies)
    if list_due:
        click.echo("\n".join(_due_lines(chosen, kept, cards, marks, today)))
        return
    if not chosen:
        later = min((c.due for c in kept), default=None)
        what = "no card missed or skipped to retry" if retry else "nothing is due"
        click.echo(f"{what} ({len(kept)} card(s) marked {' '.join(marks)} in {path}"
                   + (f"; the next is due {later}" if later and not retry else "") + ")")
        return
    hits = done = 0
    for i, card in enumerate(chosen, 1):
        click.echo("\n".join(position_lines(card, f"card {i} of {len(chosen)}")))
        key = _ask(card)
        if key == "quit":
            break
        verdict, after = D.answer(path, card.id, key, today, waiting=_tell)
        done += 1
        hits += verdict["right"]
        click.echo("\n".join(answer_lines(card, verdict, after)))
    click.echo(f"drilled {done} card(s): {hits} right, {done - hits} missed or skipped; deck {path}")


def add_from(add_path, path) -> str:
    """``drill --add FILE``: the cards of the deck FILE added to the deck at ``path`` (one line said)."""
    import os

    from gnoming_sim.drills import deck as D

    new = D.load(add_path, "--add")
    if not new and not (os.path.exists(add_path) or os.path.islink(add_path)):
        raise GnomingError(f"--add {add_path}: no such file (a deck, such as a review's drills-pending.parquet)")
    try:
        if os.path.samefile(add_path, D._resolved(path)):
            raise GnomingError(f"--add {add_path} is the deck itself; name another deck's file")
    except FileNotFoundError:
        pass
    except OSError as exc:
        raise GnomingError(f"--add {add_path}: {exc.strerror or exc}") from None
    added, size = D.add(path, new, "--deck", waiting=_tell)
    return (f"drills: {added} of the {len(new)} card(s) in {add_path} added to {path} ({size} in the deck; a card "
            "already there keeps its schedule)")


def _tell(line: str) -> None:
    click.echo(f"gnoming-sim: {line}", err=True)


def _due_lines(chosen, kept, cards, marks, today) -> list[str]:
    lines = [f"{len(chosen)} card(s) due now, of {len(kept)} marked {' '.join(marks)} ({len(cards)} in the deck)"]
    if kept:
        lines.append(f"{'card':<12}  {'mark':<4}  {'box':>3}  {'due':<10}  {'tries':>5}  from")
    for c in sorted(kept, key=lambda c: (c.due, c.box, c.id)):
        when = "now" if c.due <= today else str(c.due)
        lines.append(f"{c.id:<12}  {c.symbol:<4}  {c.box:>3}  {when:<10}  {c.attempts:>5}  {c.source}")
    return lines


def position_lines(card, heading: str) -> list[str]:
    """The card's position as text, without its answer: the layouts as `play` draws them, the piles, the
    scores and the options in a fixed order."""
    from gnoming_sim.game.cards import HIDDEN, card_name
    from gnoming_sim.reference.narrate import grid_lines, grids_side_by_side
    from gnoming_sim.game.position_id import decode

    pos = decode(card.position_id)
    labels = [f"seat {s}{' (you)' if s == pos.me else ''}{' finished' if s == pos.finisher else ''}"
              for s in range(pos.players)]
    grids = [grid_lines(pos.layouts[s], pos.layouts[s] != HIDDEN) for s in range(pos.players)]
    piles = "   ".join(f"pile {k}: {' '.join(card_name(c) for c in p) or 'empty'}" for k, p in enumerate(pos.piles))
    lines = ["", f"{heading}: {_a(card.mark)} ({card.symbol}) of yours, box {card.box} (from {card.source})",
             pos.describe(), *grids_side_by_side(labels, grids),
             f"discard piles, bottom first: {piles}",
             f"draw pile: {pos.draw_n} cards; hazards removed this round: {pos.removed}; game scores so far: "
             + " ".join(str(v) for v in pos.scores), "options:"]
    for n, o in enumerate(ordered(card.options), 1):
        lines.append(f"  {n:>2}  {o.key:<8} {o.label}")
    return lines


def ordered(options) -> list:
    return sorted(options, key=lambda o: (_ORDER.index(o.key) if o.key in _ORDER else len(_ORDER), o.key))


def _ask(card) -> str | None:
    """The option key chosen, None for a skip, ``"quit"`` to stop (also at the end of the input)."""
    shown = ordered(card.options)
    while True:
        try:
            text = click.prompt("your move (number or key; s: skip, q: quit)", default="", show_default=False)
        except click.Abort:
            click.echo()
            return "quit"
        text = text.strip().lower()
        if text in ("q", "quit"):
            return "quit"
        if text in ("s", "skip"):
            return None
        if text.isdigit() and 1 <= int(text) <= len(shown):
            return shown[int(text) - 1].key
        if any(o.key == text for o in shown):
            return text
        click.echo(f"'{text}' is not an option: a number 1..{len(shown)}, a key ({', '.join(o.key for o in shown)}), "
                   "s or q")


def answer_lines(card, verdict: dict, after) -> list[str]:
    """After an attempt or a skip: right or not, the best move, what counts as right, the move played in the
    game and the win chance it lost, every option's win chance behind the best, and the card's next date."""
    if verdict["skipped"]:
        head = "skipped (counts as a miss)"
    elif verdict["right"]:
        extra = "" if verdict["answer"] == verdict["best"] else \
            f": the rollouts cannot tell it from the best ({_behind(verdict['answer_behind_pp'], verdict['answer_ci95_pp'])})"
        head = f"right: {verdict['answer']} ({verdict['answer_label']}){extra}"
    else:
        what = "the move played in the game" if verdict["answer"] == verdict["played"] else \
            _behind(verdict["answer_behind_pp"], verdict["answer_ci95_pp"])
        head = f"wrong: {verdict['answer']} ({verdict['answer_label']}): {what}"
    others = [k for k in verdict["right_keys"] if k != verdict["best"]]
    lo, hi = verdict["loss_ci95_pp"]
    lines = [head, f"the best: {verdict['best']} ({verdict['best_label']})"
             + (f"; counted right too (not told apart from it): {', '.join(others)}" if others else ""),
             f"in the game: {verdict['played']} ({verdict['played_label']}), {_a(verdict['mark'])} "
             f"({verdict['symbol']}): it lost {verdict['loss_pp']:.1f} pp of win chance (95% CI {lo:.1f}..{hi:.1f})",
             f"{'option':<8}  {'win %':>6}  win chance behind the best, pp [95% CI]"]
    for o in sorted(card.options, key=lambda o: (o.key != card.best, o.behind_pp if o.behind_pp is not None else 1e9)):
        cell = "best" if o.key == card.best else "not measured" if o.behind_pp is None else \
            f"{o.behind_pp:+.1f} [{o.lo_pp:+.1f}, {o.hi_pp:+.1f}]"
        tag = " (played)" if o.key == card.played else ""
        lines.append(f"{o.key:<8}  {o.win_pct:>6.1f}  {cell}{tag}")
    lines.append(f"next: box {after.box}, due {after.due}")
    return lines


def _a(mark: str) -> str:
    return f"{'an' if mark[:1] in 'aeiou' else 'a'} {mark}"


def _behind(pp, ci) -> str:
    if pp is None:
        return "not measured"
    return f"{pp:+.1f} pp behind the best" + ("" if ci is None else f" [95% CI {ci[0]:+.1f}, {ci[1]:+.1f}]")
