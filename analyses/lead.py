"""What the README block and the report open with, read from a report's ``summary.json`` alone:
the ladder of advice and the pocket rules (``summary["pocket_rules"]``), and how the card stands beside the full
analysis (``summary["agreement"]``); then the designers' figures per table size (a dealt mulligan, a hazard drawn
blind, the seats, how often net's own finishes earn the -5).  Every function takes the summary dict and returns
plain sentences or rows (no markup); a section the summary lacks (a report from before those studies) gives a
sentence that says so, never an error.  No study is imported.
"""
from __future__ import annotations

import math
import re

from .framework.mini_figure import interval_rows

MINUS = "\u2212"
LADDER_PLAYERS = "4"     # the table size the README's ladder shows (the report shows 2, 4 and 6)
MAX_RULE_WORDS = 40
PP = "pp of win chance"
POINTS = "points of game score, lower wins"


def words(text: str) -> int:
    """Words as a reader counts them: whitespace-separated runs holding a letter or a digit."""
    return sum(1 for w in text.split() if any(c.isalnum() for c in w))


def sentences(text: str) -> list[str]:
    """``text`` cut into sentences: at a full stop, question or exclamation mark followed by a space and a
    capital, a bracket or markup (a number's decimal point is never followed by a space)."""
    out = []
    for line in text.splitlines():
        out += [s for s in re.split(r"(?<=[.!?])\s+(?=[A-Z*\[(`])", line.strip()) if s]
    return out


def _est(node) -> tuple[float, float, float, int] | None:
    """(mean, lo, hi, n) of an estimate dict, None if it is missing or not finite."""
    if not isinstance(node, dict) or "ci95" not in node:
        return None
    mean = node.get("mean", node.get("p"))
    lo, hi = node["ci95"]
    if mean is None or lo is None or hi is None or not all(math.isfinite(float(v)) for v in (mean, lo, hi)):
        return None
    return float(mean), float(lo), float(hi), int(node.get("n", 0))


def _digits(lo: float, hi: float) -> int:
    """One decimal, two where the interval's half-width is under 0.1 (so it stays visibly wide)."""
    return 1 if (hi - lo) / 2 >= 0.1 else 2


def interval_text(mean: float, lo: float, hi: float, digits: int | None = None, sign: bool = True,
                  pct: bool = False) -> str:
    """``+1.9 [+1.6, +2.1]`` (``pct``: ``62.4% [61.5, 63.4]``)."""
    d = _digits(lo, hi) if digits is None else digits
    f = (lambda v: f"{v:+.{d}f}") if sign else (lambda v: f"{v:.{d}f}")
    return f"{f(mean)}{'%' if pct else ''} [{f(lo)}, {f(hi)}]".replace("-", MINUS)


def _shown(node, **kw) -> str:
    e = _est(node)
    return interval_text(*e[:3], **kw) if e else "\u2014"


def _players_text(players) -> str:
    players = sorted(int(p) for p in players or [])
    if not players:
        return ""
    if players == list(range(players[0], players[-1] + 1)) and len(players) > 2:
        return f"{players[0]} to {players[-1]} players"
    return ", ".join(map(str, players[:-1])) + (" and " if len(players) > 1 else "") + f"{players[-1]} players"


# ----------------------------------------------------------------- the ladder and the pocket rules
def _section(summary: dict) -> dict | None:
    s = summary.get("pocket_rules")
    return s if isinstance(s, dict) and isinstance(s.get("ladder"), dict) else None


def ladder_rows(summary: dict, players: str = LADDER_PLAYERS) -> list[dict]:
    """The ladder at ``players`` players, one row per rung (simplest first): ``{"rung", table: {"win", "score"}}``,
    each the rung's change against the table's player in its seat (pp of win chance; points of game score, lower
    wins) as an estimate dict; [] without the section."""
    s = _section(summary)
    if s is None:
        return []
    rows = []
    for rung in s.get("rungs", []):
        row = {"rung": rung}
        for table, sizes in s["ladder"].items():
            e = (sizes.get(players) or {}).get(rung)
            if e:
                row[table] = {"win": e["win_vs_table"], "score": e["margin_vs_table"]}
        if len(row) > 1:
            rows.append(row)
    return rows


def ladder_lead(summary: dict, players: str = LADDER_PLAYERS) -> str:
    """What the ladder's figures are, in one sentence; "" without the section."""
    s = _section(summary)
    if s is None:
        return ""
    return (f"One seat against the table's player in it at {players} players, pp of win chance a game [95% "
            f"interval], n = {s['deals']:,} deals (value {s['value_deals']:,}):")


def ladder_markdown(summary: dict, players: str = LADDER_PLAYERS) -> list[str]:
    """The README's ladder table: a row per rung, a column per table (pp of win chance a game)."""
    rows = ladder_rows(summary, players)
    if not rows:
        return []
    tables = [t for t in _section(summary)["ladder"]]
    out = ["| rung | " + " | ".join(f"among {t}" for t in tables) + " |", "|---" * (len(tables) + 1) + "|"]
    for r in rows:
        out.append(f"| {r['rung']} | " + " | ".join(
            "itself" if r["rung"] == t else _shown((r.get(t) or {}).get("win")) for t in tables) + " |")
    return out


def pocket_rules(summary: dict) -> list[dict]:
    """The pocket rules as printed, each ``{"title", "text", "worth", "by_players", "gain"}``: its worth a game
    (what removing it costs, pooled over the table sizes; pp of win chance, an estimate dict) and whether it is
    shown to win (its interval above 0, Holm-adjusted); [] without the section."""
    s = _section(summary)
    if s is None:
        return []
    return [{"title": r["title"], "text": r["text"], "worth": r["win"]["pooled"], "gain": bool(r.get("gain")),
             "by_players": {p: e for p, e in r["win"].items() if p != "pooled"}} for r in s.get("rules", [])]


def worth_lead(summary: dict) -> str:
    """What the rules' figures are, and which rules win nothing shown; "" without the section."""
    s = _section(summary)
    rules = pocket_rules(summary)
    if s is None or not rules:
        return ""
    sizes = s["sizes"]
    none = [r["title"].split()[0] for r in rules if not r["gain"]]
    text = (f"each with what removing it costs, pp a game among {s['worth_table']} ({sizes[0]}-{sizes[-1]} players, "
            f"n = {rules[0]['worth'].get('n', 0):,} deals)")
    if none:
        text += (f"; rule{'s' if len(none) > 1 else ''} {', '.join(none[:-1])}{' and ' if len(none) > 1 else ''}"
                 f"{none[-1]}: {s.get('no_gain', 'no rule beats the simple default here')}")
    return text + ":"


def agreement_sentence(summary: dict) -> str:
    """The card beside the full analysis: the share where it plays the evaluator's first choice, the bracket of
    its loss per decision (a lower bound on fresh rollouts, an upper bound on the rollouts that picked the first
    choice) and its cost per game from play (the ladder's card against net); "" without the agreement section."""
    a = summary.get("agreement")
    o = a.get("overall") if isinstance(a, dict) else None
    if not isinstance(o, dict) or _est(o.get("plays_best")) is None:
        return ""
    best = _est(o["plays_best"])
    sizes = _players_text(a.get("players"))
    text = (f"On {o.get('covered', best[3]):,} new positions{f' at {sizes}' if sizes else ''}, the card plays the "
            f"evaluator's first choice (the full analysis's best option) "
            f"{interval_text(*(100 * v for v in best[:3]), sign=False, pct=True)} of the time.")
    low, high = _est((o.get("held_out") or {}).get("mean_loss")), _est(o.get("mean_loss"))
    if low and high:
        text += (f" Its loss a decision lies between {interval_text(*low[:3], sign=False)} (a lower bound: valued on "
                 f"fresh rollouts) and {interval_text(*high[:3], sign=False)} {PP} (an upper bound: on the rollouts "
                 "that picked the first choice).")
    card = next((r for r in ladder_rows(summary) if r["rung"] == "card"), {}).get("net")
    if card:
        text += (f" In play it costs {_shown(card['win'])} {PP} a game against net in its seat at "
                 f"{LADDER_PLAYERS} players.")
    return text


# ----------------------------------------------------------------- the designers' part
def _sizes(by_players: dict, scale: float, pct: bool = False) -> str:
    """``−3.6 [−5.3, −2.0] at 2 players, −0.0 [−1.7, +1.6] at 3, ...`` in table-size order."""
    parts = []
    for i, p in enumerate(sorted((k for k in by_players if str(k).isdigit()), key=int)):
        e = _est(by_players[p])
        if e is not None:
            m, lo, hi = (scale * v for v in e[:3])
            parts.append(f"{interval_text(m, lo, hi, sign=not pct, pct=pct)} at {p}{' players' if not parts else ''}")
    return ", ".join(parts)


def _n_text(by_players: dict, unit: str) -> str:
    ns = sorted({int(v.get("n", 0)) for v in by_players.values() if isinstance(v, dict)})
    if not ns:
        return ""
    count = f"{ns[0]:,}" if len(ns) == 1 else f"{ns[0]:,} to {ns[-1]:,}"
    return f"n = {count} {unit} a size"


def _per_size_or_pooled(estimand: dict, strong: str, scale: float, unit: str | None = None) -> str:
    """Per table size where the sizes differ (or no test says they agree); the pooled figure only where they
    agree, and then said so.  ``unit``: what n counts (default: the estimand's ``n_unit``)."""
    by_size = estimand.get("by_table_size") or {}
    unit = unit or estimand.get("n_unit", "deals")
    sizes = by_size.get("by_players") or {}
    pooled = _est((estimand.get("players") or {}).get(strong))
    if by_size.get("agree") and pooled is not None:
        m, lo, hi = (scale * v for v in pooled[:3])
        span = sorted(int(p) for p in sizes) if sizes else []
        where = f" at {span[0]} to {span[-1]} players" if span else ""
        return f"{interval_text(m, lo, hi)}{where}, where no table size clearly differs (n = {pooled[3]:,} {unit})"
    if sizes:
        return f"{_sizes(sizes, scale)} ({_n_text(sizes, unit)})"
    return ""


def designer_lines(summary: dict) -> list[str]:
    """The designers' figures, each per table size with its interval: a dealt mulligan and a hazard drawn blind
    (changes of the holder's win chance, net at every seat), the best seat, and how often net's own finishes
    earn the -5 (a share conditional on when it finishes, not a rule).  Markdown-free sentences; a figure the
    summary lacks is left out."""
    strong = summary.get("strong_player", "net")
    est = summary.get("estimands") or {}
    out = []
    mull = (est.get("mulligan") or {}).get("win_chance")
    if mull:
        text = _per_size_or_pooled(mull, strong, 100.0)
        if text:
            out.append(f"A dealt mulligan (against the same card left in the draw pile; {strong} at every seat) "
                       f"changes its holder's chance of winning by {text}.")
    haz = (est.get("hazard") or {}).get("win_chance")
    if haz:
        text = _per_size_or_pooled(haz, strong, 100.0, "draws")
        if text:
            out.append(f"A hazard drawn blind (against an ordinary card; {strong} at every seat) changes the "
                       f"drawer's chance of winning by {text}.")
    seats = _seat_text(summary)
    if seats:
        out.append(seats)
    bonus = {k.split("_")[0]: (v.get("players") or {}).get(strong) for k, v in (est.get("early_finish_bonus") or {}).items()
             if k.endswith("_players") and isinstance(v, dict)}
    bonus = {k: v for k, v in bonus.items() if v}
    if bonus:
        out.append(f"How often {strong}'s own finishes earn the {MINUS}5 (a share of the rounds it chooses to finish, "
                   f"not a rule for when you should): {_sizes(bonus, 100.0, pct=True)} ({_n_text(bonus, 'games')}).")
    return out


def _seat_text(summary: dict) -> str:
    """The best seat at each table size of the tournament, its game score against the table average."""
    by_players = (summary.get("tournament") or {}).get("by_players") or {}
    parts, ns, clear, tested = [], set(), [], 0
    for p in sorted((k for k in by_players if k.isdigit()), key=int):
        raw = by_players[p].get("seats") or {}
        seats = {s: _est(v.get("score_vs_table")) for s, v in raw.items()}
        seats = {s: e for s, e in seats.items() if e is not None}
        if not seats:
            continue
        tested += len(seats)
        best = min(seats, key=lambda s: seats[s][0])
        m, lo, hi, n = seats[best]
        ns.add(n)
        if raw[best].get("survives_holm"):
            clear.append(p)
        parts.append(f"seat {best} at {p}{' players' if not parts else ''} {interval_text(m, lo, hi, digits=2)}")
    if not parts:
        return ""
    n = f"; n = {next(iter(ns)):,} deals a size" if len(ns) == 1 else ""
    said = (f"; clear of the table average, allowing for the {tested} seats tested, at "
            f"{_players_text(clear)}" if clear else f"; none clear of the table average over the {tested} seats tested")
    return ("The best seat (numbered from 0; its game score against the table average in points a game, negative "
            f"is better; the tournament's heuristic entrants{n}): " + ", ".join(parts) + said + ".")


# ----------------------------------------------------------------- the report's opening
def page(summary: dict) -> dict:
    """What the report's first screen shows: ``ladder`` (rows at every table size: ``{"players", "rows"}``),
    ``ladder_lead``, ``rules`` (each pocket rule with its worth's words and a small figure of it by table size),
    ``worth_lead`` and ``agreement`` ("" or [] where the summary lacks them)."""
    s = _section(summary)
    sizes = [str(p) for p in s["sizes"]] if s else []
    rules = [{**r, "worth_text": _shown(r["worth"]),
              "figure": interval_rows([(f"{p} players", *(_est(e) or (math.nan,) * 3)[:3])
                                       for p, e in sorted(r["by_players"].items(), key=lambda kv: int(kv[0]))],
                                      "pp a game", f"Rule {r['title']}: worth by table size, 95% intervals")}
             for r in pocket_rules(summary)]
    ladder = [{"players": p, "rows": [{**row, "text": {t: {k: "itself" if row["rung"] == t else _shown(v)
                                                           for k, v in row[t].items()} for t in row if t != "rung"}}
                                      for row in ladder_rows(summary, p)]} for p in sizes]
    return {"ladder": ladder, "tables": list(s["ladder"]) if s else [], "ladder_lead": ladder_lead(summary),
            "rules": rules, "worth_lead": worth_lead(summary), "agreement": agreement_sentence(summary)}
