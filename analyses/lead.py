"""What the README block and the report open with, read from a report's ``summary.json`` alone:
the player's rules (``summary["player_rules"]``), what following the card wins and loses
(``summary["guide"]["card_margins"]``) and how often the card agrees with the full analysis
(``summary["agreement"]``); then the designers' figures per table size (a dealt mulligan, a hazard drawn blind,
the seats, how often net's own finishes earn the -5).  Every function takes the summary dict and returns plain
sentences (no markup); a section the summary lacks (a report from before those studies) gives a sentence that
says so, never an error.  No study is imported.
"""
from __future__ import annotations

import math
import re

from .framework.mini_figure import interval_rows

MINUS = "\u2212"
RULE_ORDER = ("finish", "hazard", "take", "mulligan")   # the order of schema.md: one rule per decision
DECISIONS = {"finish": "Finish or play on", "hazard": "A drawn hazard", "take": "Take the pile's card or draw",
             "mulligan": "Where a mulligan goes"}
MAX_RULE_WORDS = 40
# the method words that stay in the report, out of a player's rule (an interval in brackets and n stay)
JARGON = re.compile(r"\binterval|\bsignifican|\bholm\b|\bregret|\bpooled\b|\bQ\s*=|\bdf\b", re.IGNORECASE)
CARD_RIVALS = ("builder", "greedy", "expert", "net")
CARD_PLAYERS = "4"


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


def jargon(text: str) -> list[str]:
    """The statistics words of ``text`` that a player's rule must not use."""
    return JARGON.findall(text)


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


def _scale(node: dict) -> float:
    """100 for a share or probability (stated in percent or percentage points), else 1."""
    return 100.0 if node.get("unit") in ("probability", "share", "fraction") else 1.0


# ----------------------------------------------------------------- the player's part
def rules_of(summary: dict) -> list[dict]:
    """The rules section's rules in schema order (finish, hazard, take, mulligan, then any other), each as
    ``{"key", "decision", "sentence", "available", "printed", "rule"}``; ``sentence`` is the rule's ``text``,
    or where a decision is missing, that it is not available; where a rule is not printed, "no single rule".
    [] when the summary has no rules section."""
    section = summary.get("player_rules")
    if not isinstance(section, dict) or not isinstance(section.get("rules"), list):
        return []
    by_key = {r.get("key"): r for r in section["rules"] if isinstance(r, dict)}
    keys = [*RULE_ORDER, *(k for k in by_key if k not in RULE_ORDER)]
    out = []
    for key in keys:
        r = by_key.get(key)
        decision = (r or {}).get("decision") or DECISIONS.get(key, str(key))
        title = decision[:1].upper() + decision[1:]
        if r is None:
            out.append({"key": key, "decision": title, "available": False, "printed": False, "rule": None,
                        "sentence": f"{title}: not available in this report."})
        elif not r.get("printed"):
            own = (r.get("text") or "").strip()   # the study's own brief "no single rule" with its reason
            plain = "no single rule" in own and words(own) <= MAX_RULE_WORDS and not jargon(own)
            out.append({"key": key, "decision": title, "available": True, "printed": False, "rule": r,
                        "sentence": own if plain else f"{title}: no single rule; the report gives the figures."})
        else:
            out.append({"key": key, "decision": title, "available": True, "printed": True, "rule": r,
                        "sentence": _rule_sentence(r)})
    return out


def _players_text(players) -> str:
    players = sorted(int(p) for p in players or [])
    if not players:
        return ""
    if players == list(range(players[0], players[-1] + 1)) and len(players) > 2:
        return f"{players[0]} to {players[-1]} players"
    return ", ".join(map(str, players[:-1])) + (" and " if len(players) > 1 else "") + f"{players[-1]} players"


def _rule_sentence(r: dict) -> str:
    """The rule's ``text``; where it is missing, too long or uses a method word, one made of its ``rule``,
    its value against the obvious alternative and its table sizes."""
    text = (r.get("text") or "").strip()
    if text and words(text) <= MAX_RULE_WORDS and not jargon(text):
        return text
    rule = (r.get("rule") or "").strip().rstrip(".")
    rule = rule[:1].upper() + rule[1:]
    node = r.get("played") if _est(r.get("played")) else r.get("value")
    value = _est(node)
    figure = ""
    if value is not None:
        m, lo, hi = (_scale(node) * v for v in value[:3])
        n = value[3]
        what = "a game played" if node is r.get("played") else "a decision"
        figure = f": {interval_text(m, lo, hi)} pp of win chance {what} (n = {n:,})"
    sizes = _players_text(r.get("players"))
    full = f"{rule}{figure}{f', {sizes}' if sizes else ''}."
    return full if words(full) <= MAX_RULE_WORDS else f"{rule}{figure}."


def card_sentences(summary: dict, players: str = CARD_PLAYERS) -> list[str]:
    """What following the card exactly changes in a seat's game score at ``players`` players against builder and
    greedy, then against expert and net (points a game, same deals); [] without the card's margins."""
    margins = ((summary.get("guide") or {}).get("card_margins") or {}).get(players) or {}
    found = {r: _est((margins.get(r) or {}).get("points")) for r in CARD_RIVALS}
    found = {r: e for r, e in found.items() if e is not None}
    if not found:
        return _card_answer(summary)
    ns = {e[3] for e in found.values()}

    def part(rival, e, first):
        n = "" if len(ns) == 1 else f", n = {e[3]:,}"
        return f"{interval_text(*e[:3])}{' points a game' if first else ''} against {rival}{n}"

    weak = [part(r, found[r], i == 0) for i, r in enumerate(r for r in ("builder", "greedy") if r in found)]
    strong = [part(r, found[r], not weak and i == 0) for i, r in enumerate(r for r in ("expert", "net") if r in found)]
    each = f" (n = {next(iter(ns)):,} deals each; lower scores win)" if len(ns) == 1 else " (lower scores win)"
    out = []
    if weak:
        out.append(f"Followed exactly at {players} players, it changes your game score by {' and '.join(weak)}"
                   + (each if not strong else "") + ".")
    if strong:
        lead = "Against the stronger players it changes it by" if weak else \
            f"Followed exactly at {players} players, it changes your game score by"
        out.append(f"{lead} {' and '.join(strong)}{each}.")
    return out


def _card_answer(summary: dict) -> list[str]:
    """A report from before the card's margins: its one answer, the card against expert in one seat among net
    players (``guide.card_vs_expert``); [] without it."""
    answer = next((a for a in summary.get("answers", []) if a.get("key") == "guide.card_vs_expert"), None)
    e = _est(answer)
    if e is None:
        return []
    strong = summary.get("strong_player", "net")
    return [f"Followed exactly at {CARD_PLAYERS} players among {strong} players, it changes your game score by "
            f"{interval_text(*e[:3])} points a game against expert in its seat (n = {e[3]:,} deals; lower scores "
            "win).", "Its margins against other players are not in this report."]


def played_sentences(summary: dict) -> list[str]:
    """What each printed rule did when played in whole games (a seat following it, net's own choices elsewhere,
    against net on the same deals), in pp of win chance a game; [] where no rule was played."""
    parts, ns = [], []
    for r in rules_of(summary):
        rule = r.get("rule") or {}
        e = _est(rule.get("played")) if r.get("printed") else None
        if e is None:
            continue
        m, lo, hi = (_scale(rule["played"]) * v for v in e[:3])
        parts.append(f"{r['key']} {interval_text(m, lo, hi)}")
        ns.append(e[3])
    if not parts:
        return []
    n = f"{min(ns):,}" + (f" to {max(ns):,}" if max(ns) != min(ns) else "")
    return ["Each rule was also played in whole games, by a seat that follows it and plays net's own choices "
            "elsewhere, against net on the same deals.",
            f"Against net it changes the chance of winning, in pp a game, by: {', '.join(parts)} (n = {n} deals)."]


def agreement_sentence(summary: dict) -> str:
    """How often the card's answer is the full analysis's best (or within its margin) on new positions, and
    the win chance it gives up where it has one; "" without the agreement section."""
    a = summary.get("agreement")
    if not isinstance(a, dict) or not isinstance(a.get("overall"), dict):
        return ""
    agree, loss = _est(a["overall"].get("agree")), _est(a["overall"].get("mean_loss"))
    if agree is None:
        return ""
    covered = a["overall"].get("covered", agree[3])
    sizes = _players_text(a.get("players"))
    text = (f"On {covered:,} new positions{f' at {sizes}' if sizes else ''}, the card's answer is the full "
            f"analysis's best, or as good, {interval_text(*(100 * v for v in agree[:3]), sign=False, pct=True)} "
            "of the time.")
    held = _est((a["overall"].get("held_out") or {}).get("mean_loss"))
    if loss is not None and held is not None:   # the same-rollout loss flatters the best option: both bounds
        text += (f" On average it gives up {interval_text(*held[:3], sign=False)} percentage points of win chance "
                 f"a decision valued on fresh rollouts, {interval_text(*loss[:3], sign=False)} on the rollouts "
                 "that picked the best")
    elif loss is not None:
        text += (f" On average it gives up {interval_text(*loss[:3], sign=False)} percentage points of win chance "
                 "a decision")
    if loss is not None:
        targets = a.get("targets") or {}
        if "agree" in targets and "mean_loss_pp" in targets:
            met = a.get("met_held_out") if held is not None else a.get("met")
            text += (f" (targets {100 * targets['agree']:.0f}% and {targets['mean_loss_pp']:g}: "
                     f"{'met' if met else 'not met' if met is not None else 'not judged'})")
        text += "."
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
def page(summary: dict, figures: dict | None = None) -> dict:
    """What the report's first screen shows: ``rules`` (each rule's decision, sentence and small figure: the rules
    study's own figure named ``<key>`` or ``<key>-by-players`` where ``figures`` (its figures, as the report
    writes them) has one, else :func:`rule_figure`), ``card`` and ``agreement`` (sentences; "" where the summary
    lacks them)."""
    figures = figures or {}
    rules = []
    for r in rules_of(summary):
        own = figures.get(r["key"]) or figures.get(f"{r['key']}-by-players")
        drawn = r["rule"] and (r["printed"] or r["rule"].get("by_players"))   # no lone average for "no rule"
        sentence = r["sentence"]
        if sentence.startswith(f"{r['decision']}: "):   # the card's heading says it
            sentence = sentence[len(r["decision"]) + 2:]
            sentence = sentence[:1].upper() + sentence[1:]
        rules.append({**{k: r[k] for k in ("key", "decision", "available", "printed")}, "sentence": sentence,
                      "image": own, "figure": None if own or not drawn else rule_figure(r["rule"])})
    return {"rules": rules, "played": " ".join(played_sentences(summary)), "card": " ".join(card_sentences(summary)),
            "agreement": agreement_sentence(summary)}


def rule_figure(rule: dict):
    """The rule's value per decision at each table size (its ``by_players``; the overall value where it has
    none), as a small inline SVG with each interval; None where no value is finite."""
    rows = []
    for p in sorted((k for k in rule.get("by_players") or {} if str(k).isdigit()), key=int):
        node = (rule["by_players"][p] or {}).get("value")
        e = _est(node)
        if e is not None:
            rows.append((f"{p} players", *(_scale(node) * v for v in e[:3])))
    if not rows:
        e = _est(rule.get("value"))
        if e is not None:
            rows.append((_players_text(rule.get("players")) or "all tables", *(_scale(rule["value"]) * v for v in e[:3])))
    if not rows:
        return None
    title = f"{rule.get('decision', rule.get('key', ''))}: value per decision by table size, with 95% intervals"
    return interval_rows(rows, "pp a decision", title)
