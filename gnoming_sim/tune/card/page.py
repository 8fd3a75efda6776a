"""The card's words: a self-contained HTML page (every cell with its action, margin [95% interval], n, and
whether it is resolved), and the lines that say how a card was made and what following it is worth, which the
printed card (:mod:`gnoming_sim.tune.card.printed`) prints in its foot.

Both read only the card's dict (:func:`gnoming_sim.tune.card.derive.derive`, plus ``"check"``: what
following it is worth, :mod:`gnoming_sim.experiments.card_check`).
"""
from __future__ import annotations

import html
import math

from gnoming_sim.game.naming import times
from gnoming_sim.kernel.policy import card as C

HEADS = {"own_fd": "your cards face down"}   # a column's heading where it is not its key
# card.USE_NAMES as the printed card says them (no symbol its key does not say in words), and own face-down bands
USE_WORDS = dict(zip(C.USE_NAMES, ("completes a line", "pairs in a line", "replaces a card 6+ higher",
                                   "replaces a card 3-5 higher", "replaces a card 1-2 higher", "on a face-down slot",
                                   "no use")))
BAND_WORDS = dict(zip(C.FD_BAND_NAMES, ("5 or more", "3 or 4", "2 or fewer")))


def banded_exceptions(card: dict) -> list[str]:
    """The take-or-draw cells by the player's own face-down cards whose action differs from their take cell's
    (what the card prints beside table 1): one plain line each, '' for none."""
    src = cells_by_number(card, "source")

    def action(cell: int) -> int:
        c = src.get(cell)
        return int(c["best"]) if c and c.get("resolved") else C.default_action_of(cell)

    out = []
    for cell in sorted(src):
        if cell < C.SOURCE_FD_OFFSET or not src[cell].get("resolved"):
            continue
        parent = C.parent_cell_of(cell)
        if int(src[cell]["best"]) != action(parent):
            c = src[cell]
            other = C.ACTION_NAMES[C.T_SOURCE][action(parent) - 1]
            use, band = USE_WORDS.get(c["use"], c["use"]), BAND_WORDS.get(c["own_fd"], c["own_fd"])
            out.append(f"a {c['card']} pile card (best use: {use}): {c['action']} while you have {band} cards face "
                       f"down (else {other})")
    return out


def cells_by_number(card: dict, table: str) -> dict:
    """A table's cells by their number: ``{cell: the cell's dict}``."""
    return {c["cell"]: c for c in card["tables"][table]["cells"]}


def preview_of(card: dict, committed: dict | None) -> dict | None:
    """Whether ``card`` is a preview: made from fewer self-play games (rounds) at one of its table sizes than
    the committed card (``committed``: the provenance of the committed cells file, with its ``rounds`` per
    table size and ``decisions``; a size it lacks is held to its fewest).  ``{"games", "committed_games",
    "decisions", "committed_decisions", "text"}``, or None when it is not one (or nothing is committed)."""
    theirs = {int(p): int(n) for p, n in ((committed or {}).get("rounds") or {}).items()}
    if not theirs:
        return None
    made = {int(p): int(n) for p, n in card["rounds"].items()}
    short = {p: n for p, n in made.items() if n < theirs.get(p, min(theirs.values()))}
    if not short:
        return None
    n, m = min(short.values()), max(theirs.get(p, min(theirs.values())) for p in short)
    d, big = int(card["decisions"]), int(committed.get("decisions", 0))
    text = (f"PREVIEW: made from {n:,} games per table size ({d:,} decisions); the committed card used {m:,} "
            f"({big:,} decisions); this card's cells are not resolved as the committed card's are, and what following "
            f"it is worth below measures this preview, not the committed card: do not use it in place of it")
    return {"games": n, "committed_games": m, "decisions": d, "committed_decisions": big, "text": text}


def preview_line(card: dict) -> str:
    """The preview's sentence (:func:`preview_of`, kept in ``card["preview"]``), or ''."""
    return (card.get("preview") or {}).get("text", "")


def _starred_who(card: dict) -> str:
    """The card-starred player in words, with its cells: with none it plays exactly as expert (a difference of 0)."""
    n = len(card.get("cells", {}))
    if n:
        return f"the card-starred player ({n} starred cells, expert's rules elsewhere)"
    return ("the card-starred player (no starred cell in this run: it plays exactly as expert, so its difference is 0 by "
            "construction)")


def is_iterated(card: dict) -> bool:
    """A card made by policy iteration (:mod:`gnoming_sim.tune.card.iterate`), not by ``gnoming-sim card``."""
    return bool(card.get("card_provenance"))


def margins_line(margins: dict, players: str = "4") -> str:
    """What following the card exactly wins or loses at ``players`` players, against builder and greedy, then
    expert and net (``margins``: summary["card"]["card_margins"]'s shape, points and pp), one run's figures."""
    by = (margins or {}).get(players) or {}
    parts = []
    for r in ("builder", "greedy", "expert", "net"):
        if r not in by:
            continue
        e, w = by[r]["points"], by[r]["win"]
        word = "wins" if e["ci95"][1] < 0 else "loses" if e["ci95"][0] > 0 else "is level"
        parts.append(f"{word} against {r}: {e['mean']:+.1f} [{e['ci95'][0]:+.1f}, {e['ci95'][1]:+.1f}] points a game, "
                     f"{w['mean']:+.1f} [{w['ci95'][0]:+.1f}, {w['ci95'][1]:+.1f}] pp of win share (n = {e['n']:,} deals)")
    if not parts:
        return ""
    return (f"following the card exactly at {players} players (one card seat among three of a rival, against that "
            f"rival in the seat, the same deals; lower points are better) " + "; ".join(parts))


def iteration_foot(card: dict, short: bool = False) -> list[str]:
    """How a card made by policy iteration was made, in a line or two (its provenance); ``short``: the card's
    foot (what following it wins at 4 players and the rounds, without intervals)."""
    prov = card["card_provenance"]
    if short:
        by = (card.get("margins") or {}).get("4") or {}
        won = ", ".join(f"{by[r]['points']['mean']:+.1f} against {r}" for r in ("builder", "greedy", "expert", "net")
                        if r in by)
        n = next((by[r]["points"]["n"] for r in by), 0)
        changed = ", ".join(str(r["cells_changed"]) for r in prov.get("iteration", []))
        return [(f"following the card exactly at 4 players: {won} points a game (one card seat among three of the "
                 f"rival, against the rival in that seat, the same {n:,} deals; lower is better; intervals in "
                 f"docs/card.md)") if won else "",
                f"derived by policy iteration with the oracle (one card seat among net players, each cell's actions "
                f"valued by rollouts to the end of the game, by the chance of winning); cells changed per round: "
                f"{changed}; {'converged' if prov.get('converged') else 'the round cap reached'}; seed {prov['seed']}"]
    per = ", ".join(f"round {r['round']}: {r['cells_changed']} of {r['cells_seen']} cells valued changed "
                    f"({r['decisions']:,} decisions, {r['rollouts']} rollouts each)" for r in prov.get("iteration", []))
    return [margins_line(card.get("margins") or {}),
            f"derived by policy iteration with the oracle: one card seat among net players at "
            f"{', '.join(map(str, prov['sizes']))} players, each covered decision's actions valued by "
            f"rollouts to the end of the game (the card in its seat, net elsewhere) by the chance of "
            f"winning; a cell changes only when another action wins more by over {prov['threshold_se']} standard errors; "
            f"{per}; {'converged' if prov.get('converged') else 'the round cap reached'}; seed {prov['seed']}"]


def iterated_card(data: dict, margins: dict | None = None) -> dict:
    """The card's dict of a cells file made by policy iteration (``{"tables", "card_provenance"}``: the committed
    ``card_cells.json`` or tuning/guide-iteration/cells.json), with its margins, for :func:`card_figure` and
    :func:`iteration_page_html`."""
    return {"tables": data["tables"], "card_provenance": data["card_provenance"],
            "players": data["card_provenance"]["sizes"], "cells": {}, "margins": margins or {}}


def iteration_page_html(card: dict, card_file: str | None = "card.png") -> str:
    """The page of a card made by policy iteration: what following it wins and loses, how it was made (rounds,
    cells changed per round), and every cell with its action, where it comes from and its last margin."""
    prov = card["card_provenance"]
    parts = ["<!doctype html><html><head><meta charset=utf-8><title>Gnoming A Round: the player's card</title>",
             "<style>body{font-family:sans-serif;max-width:1100px;margin:2em auto;color:#222}"
             "table{border-collapse:collapse;font-size:13px;margin-bottom:1.5em}td,th{border:1px solid #ccc;"
             "padding:2px 6px}th{background:#eee}.num{text-align:right;white-space:nowrap}</style></head><body>",
             "<h1>Gnoming A Round: the player's card, derived by policy iteration</h1>"]
    if card_file:
        parts.append(f"<p><img src='{html.escape(card_file)}' alt='the printable card' style='max-width:100%'></p>")
    for line in iteration_foot(card):
        if line:
            parts.append(f"<p><b>{html.escape(line[:1].upper() + line[1:])}.</b></p>")
    parts.append("<table><tr><th>round</th><th>games</th><th>covered decisions</th><th>valued</th><th>rollouts</th>"
                 "<th>cells valued</th><th>cells changed</th><th>changes (gain in pp of win chance per decision, 95%)</th>"
                 "<th>wall (s)</th></tr>")
    for r in prov.get("iteration", []):
        ch = "; ".join(f"{c['table']} {c['cell']}: {c['from']} &rarr; {c['to']} {c['gain_pp']:+.2f} "
                       f"[{c['ci95'][0]:.2f}, {c['ci95'][1]:.2f}]" for c in r["changes"]) or "none"
        parts.append(f"<tr><td>{r['round']}</td><td class=num>{r['games']:,}</td><td class=num>{r['covered']:,}</td>"
                     f"<td class=num>{r['decisions']:,}</td><td class=num>{r['rollouts']}</td><td class=num>"
                     f"{r['cells_seen']}</td><td class=num>{r['cells_changed']}</td><td>{ch}</td>"
                     f"<td class=num>{r['wall_s']:.0f}</td></tr>")
    parts.append("</table>")
    for tname in C.TABLE_NAMES:
        title, keys, text = TABLE_TEXT[tname]
        keys = keys + ["own_fd"] if tname == "source" else keys   # a banded cell's own face-down cards; else any
        cells = card["tables"][tname]["cells"]
        parts.append(f"<h2>{html.escape(title)}</h2><p>{html.escape(text.split('; margin')[0])}. {len(cells)} cells on the card; a cell "
                     f"not listed plays the card's default (docs/card.md).</p><table><tr>"
                     + "".join(f"<th>{html.escape(HEADS.get(k, k))}</th>" for k in keys)
                     + "<th>action</th><th>from</th><th>margin over the closest other, pp [95%]</th><th>n</th></tr>")
        for c in sorted(cells, key=lambda c: c["cell"]):
            m = (f"{c['margin']:+.2f} [{c['lo']:+.2f}, {c['hi']:+.2f}] over {html.escape(c['rival'])}"
                 if c.get("margin") is not None else "not valued")
            parts.append("<tr>" + "".join(f"<td>{html.escape(str(c.get(k, 'any')))}</td>" for k in keys)
                         + f"<td>{html.escape(c['action'])}</td><td>{html.escape(c['origin'])}</td><td class=num>{m}</td>"
                         f"<td class=num>{c.get('margin_n', 0):,}</td></tr>")
        parts.append("</table>")
    parts.append("</body></html>")
    return "\n".join(parts)


def value_line(card: dict) -> str:
    """'Following this card is worth ...' in one line: the card player (every resolved cell, its defaults),
    then the card-starred player (or what is missing); each says what it measured (n deals at a table size, one
    seat among experts, paired by deal with experts alone)."""
    check = card.get("check", {})
    lines = []
    for key, who in (("card_versus_expert", "following this card (every resolved cell; its default where it shows ?)"),
                     ("versus_expert", _starred_who(card))):
        chk = check.get(key)
        if not chk:
            continue
        d = chk["diff"]
        lo, hi = d["ci95"]
        w = chk["win"]
        among = f"among {chk['players'] - 1} {chk.get('rivals', 'expert')}s, paired by deal with {chk.get('rivals', 'expert')}s alone"
        lines.append(f"{who} instead of expert's rules: {d['mean']:+.2f} [{lo:+.2f}, {hi:+.2f}] points per game "
                     f"at {chk['players']} players, one seat {among} (lower is better; 95%, n = {d['n']:,} deals), win share "
                     f"{100 * chk['win_x']['mean']:.1f}% vs {100 * chk['win_expert']:.1f}% for an expert in that "
                     f"seat ({100 * w['mean']:+.1f} [{100 * w['ci95'][0]:+.1f}, {100 * w['ci95'][1]:+.1f}] "
                     f"percentage points)")
    if not lines:
        return "the card-starred player's value against expert play was not measured in this run"
    return "; ".join(lines)


def ladder_line(card: dict) -> str:
    lad = card.get("check", {}).get("ladder")
    if not lad:
        return ""
    parts = []
    for name, r in lad["ratings"].items():
        lo, hi = r["rating"]["ci95"]
        parts.append(f"{name} {r['rating']['mean']:+.0f} [{lo:+.0f}, {hi:+.0f}]")
    line = (f"ladder at {lad['players']} players (Elo, expert = 0, 95%; its own games, {lad['games']:,} deals per table, "
            f"not paired with the check above): " + ", ".join(parts))
    if "card-starred" in lad["ratings"] and not card.get("cells"):
        line += ("; the card-starred player has no starred cell here and plays exactly as expert, so its rating's distance from "
                 "expert's 0 is the ladder's noise, not a difference in play")
    return line


def _size_range(name: str) -> tuple[int, int]:
    """A table-size bin's name, ``"4-5"``, as its players ``(4, 5)``."""
    lo, _, hi = name.partition("-")
    return int(lo), int(hi or lo)


def finish_sizes(card: dict) -> tuple[list[int], list[int]]:
    """The finish table's size bins (indices into ``SIZE_NAMES``) the card was derived at, and the
    others: a card made at 4 players has finish cells of 4-5 players only."""
    made = [s for s, name in enumerate(C.SIZE_NAMES)
            if any(_size_range(name)[0] <= p <= _size_range(name)[1] for p in card["players"])]
    return made, [s for s in range(C.N_SIZE) if s not in made]


def sizes_line(card: dict) -> str:
    """Why the card has no finish table for some table sizes ('' when it has them all)."""
    _, left = finish_sizes(card)
    if not left:
        return ""
    sizes = " and ".join(C.SIZE_NAMES[s] for s in left)
    at = ", ".join(map(str, card["players"]))
    return (f"no finish table for {sizes} players: this card was derived at {at} players only, so it has no "
            f"decisions there (gnoming-sim card --players with those sizes derives them)")


def _fmt(x: float, digits: int = 2) -> str:
    return "n/a" if x is None or not math.isfinite(x) else f"{x:+.{digits}f}".replace("-", "\u2212")


def _versus_expert(c: dict) -> str:
    vs = c.get("versus_expert")
    agree = c.get("expert_agrees")
    agree = "" if agree is None or not math.isfinite(agree) else f"expert agrees {agree:.0%}"
    if not vs:
        return agree
    return f"{_fmt(vs['margin'])} [{_fmt(vs['lo'])}, {_fmt(vs['hi'])}] n {vs['n']:,}; {agree}"


def status_of(c: dict) -> str:
    """A cell's status in words: starred, resolved but left to expert's rule, or why not resolved."""
    if c.get("chart"):
        return "resolved; starred: the card-starred player plays it"
    if c.get("resolved"):
        return "resolved; expert's own rule does as well here, and the card-starred player plays that"
    return c.get("note", "not resolved")


def _cell_row(c: dict, keys: list[str]) -> str:
    status = html.escape(status_of(c))
    cls = "ok" if c.get("resolved") else "open"
    if c.get("best") is None:
        act, margin, n = "\u2014", "", str(c["n"])
    else:
        act = html.escape(c["action"]) + f" <span class=vs>vs {html.escape(c['rival'])}</span>"
        margin = f"{_fmt(c['margin'])} [{_fmt(c['lo'])}, {_fmt(c['hi'])}]"
        n = f"{c['margin_n']:,}"
    means = "; ".join(f"{html.escape(a)} {_fmt(v['mean'])} (n {v['n']})" for a, v in c["actions"].items())
    tds = "".join(f"<td>{html.escape(str(c[k]))}</td>" for k in keys)
    return (f"<tr class={cls}>{tds}<td>{act}</td><td class=num>{margin}</td><td class=num>{n}</td>"
            f"<td>{status}</td><td class=small>{_versus_expert(c)}</td><td class=small>{means}</td></tr>")


TABLE_TEXT = {
    "source": ("1. Take a discard pile's top card, or draw blind?",
               ["card", "use"], "by the card and its best use in your layout; margin: points per round saved by "
               "the recommended action over the other (after taking or drawing, the rollouts' policy plays on)"),
    "place": ("2-3. Where to put a kept card (or throw a blind draw away)",
              ["drawn", "card", "use"], "best use = the column's use (expert's position among those); face-down = "
              "expert's face-down slot; a mulligan and a hazard are rows of their own"),
    "finish": ("4. Finish the round, or play on?", ["gap", "rivals_fd", "players"],
               "gap = your score after finishing minus the lowest visible score of a rival (face-down cards "
               "count 0); rivals' face-down = their mean number; play on = expert's best move that does not finish"),
}


def holm_family(card: dict) -> str:
    """Holm's family in words: the whole card (tune.card.derive now), or per table (a card derived before)."""
    fam = {t.get("family") for t in card["tables"].values()}
    return f"one family over the whole card, {fam.pop()} tests" if None not in fam and len(fam) == 1 else "per table"


def rollout_player(card: dict) -> str:
    """Who plays the rollouts, in words."""
    return card["self_play"] if card.get("rollouts") == "self" else "expert"


def page_html(card: dict, card_file: str | None = "card.png") -> str:
    """The card's page: how it was made, what following it is worth, and every cell of every table."""
    parts = ["<!doctype html><html><head><meta charset=utf-8><title>Gnoming A Round: the player's card</title>",
             "<style>body{font-family:sans-serif;max-width:1100px;margin:2em auto;color:#222}"
             "table{border-collapse:collapse;font-size:13px;margin-bottom:1.5em}td,th{border:1px solid #ccc;"
             "padding:2px 6px}th{background:#eee}.num{text-align:right;white-space:nowrap}tr.open{color:#888}"
             "tr.ok td:nth-last-child(5){font-weight:bold}.small{font-size:11px}.vs{font-weight:normal;color:#666;"
             "font-size:11px}</style></head><body>",
             "<h1>Gnoming A Round: the player's card, derived by simulation</h1>"]
    if preview_line(card):
        parts.append(f"<p style='color:#b00000;font-size:18px'><b>{html.escape(preview_line(card))}</b></p>")
    if card_file:
        parts.append(f"<p><img src='{html.escape(card_file)}' alt='the printable card' style='max-width:100%'></p>")
    parts.append(f"<p><b>{html.escape(value_line(card))}</b></p>")
    if ladder_line(card):
        parts.append(f"<p>{html.escape(ladder_line(card))}</p>")
    rounds = ", ".join(f"{n:,} at {p}" for p, n in card["rounds"].items())
    parts.append(
        f"<p><b>How it is made.</b> Self-play rounds of <code>{html.escape(card['self_play'])}</code> "
        f"({rounds} players); at a random sample of its decisions ({card['decisions']:,} recorded; "
        f"{card['p_sample']:.0%} of take-or-draw and placement decisions, {card['p_finish']:.0%} of finishing "
        f"chances) every candidate answer of the cell was rolled out {times(card['budget'])} to the end of the round "
        f"from what the player sees (hidden cards dealt at random, every seat playing {html.escape(rollout_player(card))}, "
        f"the same random numbers for every answer). Value: the player's round score minus the mean of the "
        f"others'. A decision is one unit. Margin = the recommended action's mean advantage over the closest "
        f"other candidate (points per round, positive), with its 95% interval (clustered by self-play round in "
        f"a card derived with one Holm family) and n decisions. "
        f"A cell is <b>resolved</b> when its action beats every other candidate after Holm's correction "
        f"({html.escape(holm_family(card))}; family-wise error 5%); cells with fewer than 10 decisions are not "
        f"tested; the printed card shows every resolved cell, and the card player plays its default rule where "
        f"it shows ?. The card-starred player plays a resolved cell when its action also beats expert's own rule at the same "
        f"decisions (one more test per cell, in the same Holm family; * on the card), and expert's rules "
        f"everywhere else. Grey rows are not resolved. All of it holds on average "
        f"over the positions self-play of {html.escape(card['self_play'])} reaches. Seed {card['seed']}; "
        f"derivation {card['derive_s']:.0f} s.</p>")
    for tname in C.TABLE_NAMES:
        title, keys, text = TABLE_TEXT[tname]
        t = card["tables"][tname]
        cells = t["cells"]
        resolved = sum(c.get("resolved", False) for c in cells)
        played = sum(c.get("chart", False) for c in cells)
        why = sizes_line(card) if tname == "finish" else ""
        sizes = f" {why[:1].upper()}{why[1:]}." if why else ""
        parts.append(f"<h2>{html.escape(title)}</h2><p>{html.escape(text)}. {len(cells)} cells seen, "
                     f"{resolved} resolved, {played} starred; {t['decisions']:,} decisions, "
                     f"{t['tests']} tests.{html.escape(sizes)}</p>")
        head = "".join(f"<th>{html.escape(k)}</th>" for k in keys)
        parts.append(f"<table><tr>{head}<th>recommended</th><th>margin [95% CI]</th><th>n</th><th>status</th>"
                     f"<th>over expert's own rule [95% CI]</th><th>mean value per candidate (lower is better)</th></tr>")
        order = sorted(cells, key=lambda c: (not c.get("resolved"), c["cell"]))
        parts += [_cell_row(c, keys) for c in order]
        parts.append("</table>")
    parts.append("</body></html>")
    return "\n".join(parts)


__all__ = ["page_html", "iteration_page_html", "iterated_card", "margins_line", "value_line", "preview_of", "preview_line",
           "ladder_line", "sizes_line", "finish_sizes", "status_of", "banded_exceptions", "cells_by_number", "is_iterated",
           "holm_family", "rollout_player", "iteration_foot", "USE_WORDS", "BAND_WORDS"]
