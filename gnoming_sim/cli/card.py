"""``gnoming-sim card``: derive the card by rollouts (:mod:`gnoming_sim.tune.card.derive`), check the card and its
starred cells among experts (:mod:`gnoming_sim.experiments.card_check`) and write the printed card and its page;
with ``--iterate``, the card by policy iteration with the oracle (:mod:`gnoming_sim.tune.card.iterate`), as the
committed card was made; with ``--install``, a policy iteration's card into the committed cells file."""
from __future__ import annotations

import gzip
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
FILES = ("card_cells.json", "card.json", "card.png", "index.html")   # what a run writes in --out
MAX_ROUNDS = 50
# the self-play strategy whose positions the card is derived at: the strongest fast player (net beats learned on
# held-out deals at 2, 4 and 6 players, tuning/net/README.md).  The committed starred cells (tuning/guide,
# gnoming_sim/kernel/policy/card_cells.json) were derived under learned, before net: their provenance says so
SELF_PLAY = "net"
ITERATE_ONLY = ("--rounds", "--focus", "--focus-weight", "--start", "--continue-from")


@cli.command()
@click.option("--out", type=click.Path(), metavar="DIR",
              help="Folder for card.json (every cell and the starred cells), card_cells.json, card.png and index.html.")
@click.option("--games", type=int, default=None, metavar="G",
              help="Self-play rounds per table size (at most; default 600); with --iterate, games per table size "
                   "per round (default 120).")
@click.option("--decisions", type=int, default=None, metavar="N",
              help="Stop the self-play once N decisions are recorded (all table sizes together); with --iterate, "
                   "decisions valued per round (default 6,000).")
@click.option("--players", "players_", default="2,3,4,5,6,7", show_default=True, metavar="P,...",
              help="Table sizes of the self-play rounds.")
@click.option("--budget", type=int, default=None, metavar="N",
              help="Rollouts per candidate answer (default 8); with --iterate, oracle rollouts per decision (default 16).")
@click.option("--iterate", is_flag=True, help="Make the card by policy iteration with the oracle from the committed "
              "card (how the committed card was made), writing OUT/history.json, history.csv and cells.json (the "
              "card's tables) after every round, and card.png and index.html at the end.")
@click.option("--rounds", type=int, default=None, metavar="N",
              help="With --iterate: rounds at most (default 4; fewer when a round changes no cell).")
@click.option("--focus", default=None, metavar="CELLS", help="With --iterate: cells sampled more (comma-separated "
              "cell numbers, as tuning/guide-iteration/focus.py prints them), up to --focus-weight times the others' cap.")
@click.option("--focus-weight", type=float, default=1.0, show_default=True, metavar="W", help="With --iterate: "
              "the focus cells' cap, in multiples of the others'.")
@click.option("--start", type=click.Path(), metavar="CELLS_JSON", help="With --iterate: the first card is that cells "
              "file's tables, its defaults explicit (default: the committed card).")
@click.option("--continue-from", "continue_from", type=click.Path(), metavar="DIR", help="With --iterate: go on "
              "from an earlier run's DIR/history.json (its final card; its rounds first).")
@click.option("--install", type=click.Path(), metavar="CELLS_JSON", help="Put a policy iteration's cells.json into "
              "the committed cells file (gnoming_sim/kernel/policy/card_cells.json's tables and card_provenance; "
              "its starred cells as they are), and stop.")
@click.option("--rollouts", type=click.Choice(["expert", "self"]), default="expert", show_default=True,
              help="The rollouts' policy at every seat: expert (the starred cells' own play outside them), or "
                   f"self ({SELF_PLAY}, the self-play strategy).")
@click.option("--check-deals", type=int, default=1000, show_default=True, metavar="N",
              help="Deals of the check among experts at 4 players (the card and its starred cells, each played in "
                   "every rotation, and by experts alone); 0 skips the check and the ladder.")
@click.option("--ladder-games", type=int, default=500, show_default=True, metavar="N",
              help="Deals per table of the starred cells' ladder at 4 players (with random, greedy, expert, learned); "
                   "0 skips it.")
@click.option("--records", is_flag=True, help="Also write OUT/decisions.csv.gz: every sampled decision's cell and "
              "candidates' values (the raw material of the cells).")
@opt.seed
@opt.threads
@click.option("--force", is_flag=True, help="Write into a folder that is not empty (an earlier run's files are "
              "replaced; other files there are kept).")
def card(out, games, decisions, players_, budget, iterate, rounds, focus, focus_weight, start, continue_from, install,
         rollouts, check_deals, ladder_games, records, seed, threads, force):
    """Derive the card from rollouts at self-play decisions of net (the strongest fast player), and write
    OUT/card.json, OUT/card_cells.json, OUT/card.png (printable) and OUT/index.html.  The committed starred cells
    were derived under learned (tuning/guide; their provenance names the self-play strategy).  With --iterate: the
    card by policy iteration with the oracle from the committed card, as the committed card was made
    (tuning/guide-iteration/run.sh, `make card`).

    To make a derivation's starred cells the `card-starred` preset, copy OUT/card_cells.json to
    gnoming_sim/kernel/policy/card_cells.json; that replaces the card's tables too, so put the committed card back
    after it (gnoming-sim card --install tuning/guide-iteration/stage4/cells.json)."""
    if install is not None:
        return _install(install)
    if not out:
        raise GnomingError("--out DIR is required (or --install CELLS_JSON)")
    given = {"--rounds": rounds, "--focus": focus, "--focus-weight": None if focus_weight == 1.0 else focus_weight,
             "--start": start, "--continue-from": continue_from}
    if not iterate and any(v is not None for v in given.values()):   # the derivation has no rounds: never ignored
        raise GnomingError(f"{next(k for k in ITERATE_ONLY if given[k] is not None)} needs --iterate (it steers the policy "
                           "iteration; the card's derivation has no rounds)")
    if iterate:
        return _iterate(out, games=120 if games is None else games, decisions=6000 if decisions is None else decisions,
                        players_=players_, budget=16 if budget is None else budget, rounds=4 if rounds is None else rounds,
                        focus=focus, focus_weight=focus_weight, start=start, continue_from=continue_from, seed=seed,
                        threads=threads, force=force)
    from gnoming_sim.tune.card import page, printed

    games = 600 if games is None else games
    budget = 8 if budget is None else budget
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
    from gnoming_sim.batch.safe_folder import check_target, staged_report

    names = FILES + (("decisions.csv.gz",) if records else ())
    folder = check_target(out, "--out", force, own_needs_force=True, names=names)
    command = " ".join(["gnoming-sim"] + [shlex.quote(a) for a in sys.argv[1:]])
    say = lambda line: click.echo(line, file=group.stderr())   # noqa: E731
    kept = f"{folder} is left as it was" if folder.exists() else "nothing was written"
    # the folder is locked and staged before the first game: a second run to it is refused at once, and
    # Ctrl-C or SIGTERM leaves it as it was
    with group.interruptible(kept), staged_report(folder, "--out") as stage:
        result, cells, resolved, seen = _derive(stage, command, games, decisions, sizes, budget, rollouts, seed,
                                                threads, check_deals, ladder_games, say)
        frame = result.pop("_frame")
        preview = page.preview_of(result, _committed(key="provenance"))
        if preview:   # too few games to replace the committed card: said on every face of it
            result["preview"] = cells["preview"] = preview
            cells["description"] = f"{preview['text']}. {cells['description']}"
            say(preview["text"])
        stage.write("card_cells.json", json.dumps(cells, indent=1, default=float) + "\n")
        stage.write("card.json", json.dumps(result, indent=1, default=float) + "\n")
        stage.write("card.png", printed.card_png(result))
        stage.write("index.html", page.page_html(result))
        if records:
            stage.write("decisions.csv.gz", gzip.compress(frame.to_csv(index=False).encode(), mtime=0))
    if result.get("preview"):
        click.echo(result["preview"]["text"])
    lad = page.ladder_line(result)
    click.echo(f"{PROG} card: {result['decisions']:,} decisions, {resolved} cells resolved of {seen} seen, "
               f"{len(result['cells'])} starred (they beat expert's own rule), "
               f"{result['wall_s']:.0f} s; {page.value_line(result)}; wrote {folder}/card.json, card.png, "
               f"index.html, card_cells.json{', decisions.csv.gz' if records else ''}")
    if lad:
        click.echo(lad)


def _iterate(out, *, games, decisions, players_, budget, rounds, focus, focus_weight, start, continue_from, seed,
             threads, force) -> None:
    """``card --iterate``: the card by policy iteration (:mod:`gnoming_sim.tune.card.iterate`), its files written
    after every round (a run stopped between rounds keeps the rounds done); a run smaller than the committed card's
    (fewer games, decisions or rollouts a round, or fewer rounds) is marked PREVIEW on its first line and in its
    files."""
    from gnoming_sim.tune.card import files, page, printed
    from gnoming_sim.tune.card.iterate import IterationConfig, committed_cells, iterate

    opt.check_range("--games", games, 1, MAX_GAMES)
    opt.check_range("--decisions", decisions, 1, MAX_DECISIONS)
    opt.check_range("--budget", budget, 1, MAX_BUDGET)
    opt.check_range("--rounds", rounds, 1, MAX_ROUNDS)
    opt.check_seed(seed)
    opt.check_threads(threads)
    if seed >= 2**32:
        raise GnomingError(f"--seed: --iterate takes a seed within 0..{2**32 - 1}, got {seed}")
    try:
        focus = tuple(int(c) for c in (focus or "").split(",") if c.strip())
    except ValueError:
        raise GnomingError(f"--focus must be comma-separated cell numbers, got {focus!r}") from None
    cfg = IterationConfig(rounds=rounds, games=games, decisions=decisions, rollouts=budget,
                          sizes=tuple(opt.table_sizes(players_, "2,4,6")), seed=seed, threads=threads, focus=focus,
                          focus_weight=focus_weight)
    cfg.check()
    from gnoming_sim.batch.safe_folder import check_target

    out = check_target(out, "--out", force, own_needs_force=True)   # files written in place, round by round
    try:
        before = json.loads((Path(continue_from) / "history.json").read_text()) if continue_from else None
        first = committed_cells(Path(start)) if start else None
    except (OSError, ValueError, KeyError) as e:
        raise GnomingError(f"{'--continue-from' if continue_from else '--start'}: {e}") from None
    command = " ".join(["gnoming-sim"] + [shlex.quote(a) for a in sys.argv[1:]])
    preview = iteration_preview(cfg, _committed(key="card_provenance"))
    if preview:
        click.echo(preview)
    with group.interruptible(f"{out} holds the rounds done"):
        result = iterate(cfg, start=first, say=lambda line: click.echo(line, file=group.stderr()), before=before,
                         on_round=lambda r: files.write(out, r, command, force=True))
        files.write(out, result, command, force=True)
    data = json.loads((out / "cells.json").read_text())
    if preview:
        data["preview"] = {"text": preview}
        (out / "cells.json").write_text(json.dumps(data, indent=1) + "\n")
    card = page.iterated_card(data)
    card["preview"] = data.get("preview")
    (out / "card.png").write_bytes(printed.card_png(card))
    (out / "index.html").write_text(page.iteration_page_html(card))
    changed = [r["cells_changed"] for r in result["rounds"]]
    click.echo(f"{PROG} card --iterate: {len(changed)} rounds, cells changed per round {changed}, "
               f"{'converged' if result['converged'] else 'the round cap reached'}, {result['wall_s']:.0f} s; wrote "
               f"{out}/history.json, history.csv, cells.json, card.png, index.html" + (f"; {preview}" if preview else ""))


def _install(cells_json) -> None:
    """``card --install``: a policy iteration's cells.json into the committed cells file."""
    from gnoming_sim.kernel.policy import registry
    from gnoming_sim.tune.card import files

    try:
        files.install(Path(cells_json), registry.CARD_CELLS)
    except (OSError, ValueError, KeyError) as e:
        raise GnomingError(f"--install {cells_json}: {e}") from None
    click.echo(f"installed {cells_json} into {registry.CARD_CELLS}")


def iteration_preview(cfg, committed: dict | None) -> str:
    """The PREVIEW line of a policy iteration smaller than the committed card's (fewer games per table size,
    decisions or rollouts a round, or rounds at most), or ''."""
    if not committed:
        return ""
    short = [f"{what} {mine:,} (committed {theirs:,})" for what, mine, theirs in
             (("games per table size", cfg.games, committed.get("games_per_size", 0)),
              ("decisions a round", cfg.decisions, committed.get("decisions_per_round", 0)),
              ("rollouts a decision", cfg.rollouts, committed.get("rollouts", 0)),
              ("rounds at most", cfg.rounds, committed.get("round_cap", 0))) if mine < theirs]
    if not short:
        return ""
    return ("PREVIEW: a smaller policy iteration than the committed card's (" + "; ".join(short) + "): its cells "
            "are valued on fewer decisions; do not use it in place of the committed card")


def _committed(key: str) -> dict | None:
    """The committed card's ``key`` (``"provenance"``: its derivation's games and decisions; ``"card_provenance"``:
    its policy iteration's), or None (a card made otherwise, or unreadable)."""
    from gnoming_sim.kernel.policy import registry

    try:
        return json.loads(registry.CARD_CELLS.read_text()).get(key)
    except (OSError, ValueError):
        return None


def _derive(stage, command, games, decisions, sizes, budget, rollouts, seed, threads, check_deals, ladder_games, say):
    """Derive the card and check it and its starred cells: ``(result, cells, resolved, seen)``; the self-play frame
    is ``result["_frame"]``.  Both are read back from a draft of the cells file in the staging folder."""
    from gnoming_sim.kernel.policy import registry
    from gnoming_sim.tune.card import derive

    t0 = time.perf_counter()
    cfg = derive.DeriveConfig(players=sizes, games=games, decisions=decisions, budget=budget, rollouts=rollouts,
                              seed=seed, threads=threads)
    say(f"card: self-play of {SELF_PLAY} (the strongest fast player), rollouts: "
        f"{'expert' if rollouts == 'expert' else SELF_PLAY}")
    result, frame = derive.derive(cfg, registry.get(SELF_PLAY), progress=say)
    seen = sum(len(t["cells"]) for t in result["tables"].values())
    resolved = sum(c["resolved"] for t in result["tables"].values() for c in t["cells"])
    cells = {"description": f"the card's {len(result['cells'])} starred cells (their action beats expert's own rule; "
                            f"{resolved} resolved of {seen} seen; `gnoming-sim card`), expert's rules elsewhere",
             "cells": result["cells"],
             "provenance": {"command": command, "seed": seed, "decisions": result["decisions"],
                            "rounds": result["rounds"], "budget": budget, "self_play": result["self_play"],
                            "rollouts": rollouts,
                            "derive_s": result["derive_s"]},
             "tables": result["tables"]}   # the printed card: the card player reads its resolved cells
    draft = stage.path / ".card_cells.draft.json"   # not a file of the report: removed before it is published
    draft.write_text(json.dumps(cells, indent=1, default=float) + "\n")
    try:
        starred = registry.card_starred_from_file(draft)
        card = registry.card_from_file(draft)
    finally:
        draft.unlink()
    result["check"] = {}
    if check_deals:
        from gnoming_sim.experiments import card_check

        say(f"card: the card and its starred cells among experts, {check_deals:,} deals at 4 players")
        on_card, on_starred = card_check.versus_expert_each((card, starred), 4, check_deals, seed, threads=threads)
        result["check"]["card_versus_expert"] = on_card
        result["check"]["versus_expert"] = on_starred
        if ladder_games:
            say(f"card: ladder at 4 players, {ladder_games:,} deals per table")
            result["check"]["ladder"] = card_check.ladder_rating(starred, 4, ladder_games, seed, threads=threads)
    result["command"] = command
    result["wall_s"] = round(time.perf_counter() - t0, 1)
    cells.update(check=result["check"])   # with the tables: what the report's card study renders
    result["_frame"] = frame
    return result, cells, resolved, seen
