"""``gnoming-sim guide``: derive the player's guide by rollouts (:mod:`gnoming_sim.tune.guide`), check the
chart player that follows it (:mod:`gnoming_sim.experiments.chart_check`) and write the card and the page; with
``--iterate``, the card by policy iteration with the oracle (:mod:`gnoming_sim.tune.card_iteration`), as the
committed card was made."""
from __future__ import annotations

import gzip
import json
import shlex
import sys
import tempfile
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
FILES = ("chart_cells.json", "guide.json", "card.png", "index.html")   # what a run writes in --out
ITER_FILES = ("history.json", "history.csv", "cells.json", "card.png", "index.html")   # what --iterate writes
MAX_ROUNDS = 50
# the self-play strategy whose positions the guide is derived at: the strongest fast player (net beats learned on
# held-out deals at 2, 4 and 6 players, tuning/net/README.md).  The committed chart (tuning/guide,
# gnoming_sim/kernel/policy/chart_cells.json) was derived under learned, before net: its provenance says so
SELF_PLAY = "net"


@cli.command()
@click.option("--out", type=click.Path(), required=True, metavar="DIR",
              help="Folder for guide.json (every cell and the chart's cells), card.png and index.html.")
@click.option("--games", type=int, default=None, metavar="G",
              help="Self-play rounds per table size (at most; default 600); with --iterate, games per table size "
                   "per round (default 120).")
@click.option("--decisions", type=int, default=None, metavar="N",
              help="Stop the self-play once N decisions are recorded (all table sizes together).")
@click.option("--players", "players_", default="2,3,4,5,6,7", show_default=True, metavar="P,...",
              help="Table sizes of the self-play rounds.")
@click.option("--budget", type=int, default=None, metavar="N",
              help="Rollouts per candidate answer (default 8); with --iterate, oracle rollouts per decision (default 16).")
@click.option("--iterate", is_flag=True, help="Make the card by policy iteration with the oracle from the committed "
              "card (how the committed card was made): --decisions valued per round (default 6,000), --rounds at most; "
              "writes OUT/history.json, history.csv, cells.json (the card's tables), card.png and index.html.")
@click.option("--rounds", type=int, default=None, metavar="N",
              help="With --iterate (refused without it): rounds at most (default 4; fewer when a round changes no "
                   "cell).")
@click.option("--rollouts", type=click.Choice(["expert", "self"]), default="expert", show_default=True,
              help="The rollouts' policy at every seat: expert (the chart's own play outside its cells), or "
                   f"self ({SELF_PLAY}, the self-play strategy).")
@click.option("--check-deals", type=int, default=1000, show_default=True, metavar="N",
              help="Deals of the chart-among-experts check at 4 players (each played in every rotation, "
                   "and by experts alone); 0 skips the check and the ladder.")
@click.option("--ladder-games", type=int, default=500, show_default=True, metavar="N",
              help="Deals per table of the chart's ladder at 4 players (with random, greedy, expert, learned); 0 skips it.")
@click.option("--records", is_flag=True, help="Also write OUT/decisions.csv.gz: every sampled decision's cell and "
              "candidates' values (the raw material of the cells).")
@opt.seed
@opt.threads
@click.option("--force", is_flag=True, help="Write into a folder that is not empty (an earlier guide's files are "
              "replaced; other files there are kept).")
def guide(out, games, decisions, players_, budget, iterate, rounds, rollouts, check_deals, ladder_games, records, seed,
          threads, force):
    """Derive the player's guide from rollouts at self-play decisions of net (the strongest fast player), and
    write OUT/guide.json, OUT/card.png (printable) and OUT/index.html.  The committed chart was derived under
    learned (tuning/guide; its provenance names the self-play strategy).  With --iterate: the card by policy
    iteration with the oracle from the committed card, as the committed card was made (tuning/guide-iteration).

    To make its resolved cells the `chart` preset, copy OUT/chart_cells.json to
    gnoming_sim/kernel/policy/chart_cells.json (`make guide` does both); that replaces the card's tables too, so
    put the committed card back after it (python -m gnoming_sim.tune.card_output --install
    tuning/guide-iteration/cells.json)."""
    from gnoming_sim.tune import card_print, guide_card

    if rounds is not None and not iterate:   # the derivation has no rounds: never ignored silently
        raise GnomingError("--rounds needs --iterate (it caps the policy iteration's rounds; the guide's "
                           "derivation has none)")
    rounds = 4 if rounds is None else rounds
    opt.check_range("--rounds", rounds, 1, MAX_ROUNDS)
    if iterate:
        return _iterate(out, 120 if games is None else games, 6000 if decisions is None else decisions, players_,
                        16 if budget is None else budget, rounds, seed, threads, force)
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
        preview = guide_card.preview_of(result, _committed_provenance())
        if preview:   # too few games to replace the committed card: said on every face of it
            result["preview"] = cells["preview"] = preview
            cells["description"] = f"{preview['text']}. {cells['description']}"
            say(preview["text"])
        stage.write("chart_cells.json", json.dumps(cells, indent=1, default=float) + "\n")
        stage.write("guide.json", json.dumps(result, indent=1, default=float) + "\n")
        stage.write("card.png", card_print.card_png(result))
        stage.write("index.html", guide_card.page_html(result))
        if records:
            stage.write("decisions.csv.gz", gzip.compress(frame.to_csv(index=False).encode(), mtime=0))
    if result.get("preview"):
        click.echo(result["preview"]["text"])
    lad = guide_card.ladder_line(result)
    click.echo(f"{PROG} guide: {result['decisions']:,} decisions, {resolved} cells resolved of {seen} seen, "
               f"{len(result['cells'])} played by the chart (they beat expert's own rule), "
               f"{result['wall_s']:.0f} s; {guide_card.value_line(result)}; wrote {folder}/guide.json, card.png, "
               f"index.html, chart_cells.json{', decisions.csv.gz' if records else ''}")
    if lad:
        click.echo(lad)


def _iterate(out, games, decisions, players_, budget, rounds, seed, threads, force) -> None:
    """``guide --iterate``: the card by policy iteration (:mod:`gnoming_sim.tune.card_iteration`) from the
    committed card, its files written through a staged folder; a run smaller than the committed card's (fewer
    games, decisions or rollouts a round, or fewer rounds) is marked PREVIEW on its first line and in its files."""
    from gnoming_sim.batch.safe_folder import check_target, staged_report
    from gnoming_sim.tune import card_output, card_print, guide_card
    from gnoming_sim.tune.card_iteration import IterationConfig, iterate

    opt.check_range("--games", games, 1, MAX_GAMES)
    opt.check_range("--decisions", decisions, 1, MAX_DECISIONS)
    opt.check_range("--budget", budget, 1, MAX_BUDGET)
    opt.check_range("--rounds", rounds, 1, MAX_ROUNDS)
    opt.check_seed(seed)
    opt.check_threads(threads)
    if seed >= 2**32:
        raise GnomingError(f"--seed: --iterate takes a seed within 0..{2**32 - 1}, got {seed}")
    sizes = opt.table_sizes(players_, "2,4,6")
    cfg = IterationConfig(rounds=rounds, games=games, decisions=decisions, rollouts=budget, sizes=tuple(sizes),
                          seed=seed, threads=threads)
    folder = check_target(out, "--out", force, own_needs_force=True, names=ITER_FILES)
    command = " ".join(["gnoming-sim"] + [shlex.quote(a) for a in sys.argv[1:]])
    say = lambda line: click.echo(line, file=group.stderr())   # noqa: E731
    kept = f"{folder} is left as it was" if folder.exists() else "nothing was written"
    preview = iteration_preview(cfg, _committed_card_provenance())
    if preview:
        click.echo(preview)
    with group.interruptible(kept), staged_report(folder, "--out") as stage:
        result = iterate(cfg, say=say)
        with tempfile.TemporaryDirectory() as tmp:   # the files are made here, then written through the stage
            paths = card_output.write(Path(tmp), result, command)
            texts = {p.name: p.read_text() for p in paths}
        data = json.loads(texts["cells.json"])
        if preview:
            data["preview"] = {"text": preview}
            texts["cells.json"] = json.dumps(data, indent=1) + "\n"
        for name, text in texts.items():
            stage.write(name, text)
        card = guide_card.iterated_guide(data)
        card["preview"] = data.get("preview")
        stage.write("card.png", card_print.card_png(card))
        stage.write("index.html", guide_card.iteration_page_html(card))
    changed = [r["cells_changed"] for r in result["rounds"]]
    click.echo(f"{PROG} guide --iterate: {len(changed)} rounds, cells changed per round {changed}, "
               f"{'converged' if result['converged'] else 'the round cap reached'}, {result['wall_s']:.0f} s; wrote "
               f"{folder}/history.json, history.csv, cells.json, card.png, index.html"
               + (f"; {preview}" if preview else ""))


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


def _committed_card_provenance() -> dict | None:
    """The committed card's policy-iteration provenance, or None (a card made otherwise, or unreadable)."""
    from gnoming_sim.kernel.policy import registry

    try:
        return json.loads(registry.CHART_CELLS.read_text()).get("card_provenance")
    except (OSError, ValueError):
        return None


def _committed_provenance() -> dict | None:
    """The committed card's provenance (its games per table size and decisions), or None if unreadable."""
    from gnoming_sim.kernel.policy import registry

    try:
        return json.loads(registry.CHART_CELLS.read_text()).get("provenance")
    except (OSError, ValueError):
        return None


def _derive(stage, command, games, decisions, sizes, budget, rollouts, seed, threads, check_deals, ladder_games, say):
    """Derive the guide and check its chart: ``(result, cells, resolved, seen)``; the self-play frame is
    ``result["_frame"]``.  The chart is read back from a draft of its cells file in the staging folder."""
    from gnoming_sim.kernel.policy import registry
    from gnoming_sim.tune import guide as gd

    t0 = time.perf_counter()
    cfg = gd.GuideConfig(players=sizes, games=games, decisions=decisions, budget=budget, rollouts=rollouts, seed=seed,
                         threads=threads)
    say(f"guide: self-play of {SELF_PLAY} (the strongest fast player), rollouts: "
        f"{'expert' if rollouts == 'expert' else SELF_PLAY}")
    result, frame = gd.derive(cfg, registry.get(SELF_PLAY), progress=say)
    seen = sum(len(t["cells"]) for t in result["tables"].values())
    resolved = sum(c["resolved"] for t in result["tables"].values() for c in t["cells"])
    cells = {"description": f"plays the player's guide by lookup: the {len(result['cells'])} cells whose action beats "
                            f"expert's own rule ({resolved} resolved of {seen} seen; `gnoming-sim guide`), expert's "
                            f"rules elsewhere",
             "cells": result["cells"],
             "provenance": {"command": command, "seed": seed, "decisions": result["decisions"],
                            "rounds": result["rounds"], "budget": budget, "self_play": result["self_play"],
                            "rollouts": rollouts,
                            "derive_s": result["derive_s"]},
             "tables": result["tables"]}   # the printed card: the card player reads its resolved cells
    draft = stage.path / ".chart_cells.draft.json"   # not a file of the report: removed before it is published
    draft.write_text(json.dumps(cells, indent=1, default=float) + "\n")
    try:
        chart = registry.chart_from_file(draft)
        card = registry.card_from_file(draft)
    finally:
        draft.unlink()
    result["check"] = {}
    if check_deals:
        from gnoming_sim.experiments import chart_check

        say(f"guide: the card and the chart among experts, {check_deals:,} deals at 4 players")
        on_card, on_chart = chart_check.versus_expert_each((card, chart), 4, check_deals, seed, threads=threads)
        result["check"]["card_versus_expert"] = on_card
        result["check"]["versus_expert"] = on_chart
        if ladder_games:
            say(f"guide: ladder at 4 players, {ladder_games:,} deals per table")
            result["check"]["ladder"] = chart_check.ladder_rating(chart, 4, ladder_games, seed, threads=threads)
    result["command"] = command
    result["wall_s"] = round(time.perf_counter() - t0, 1)
    cells.update(check=result["check"])   # with the tables: what the report's guide section renders
    result["_frame"] = frame
    return result, cells, resolved, seen
