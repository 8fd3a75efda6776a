"""The README's headline block and the docs pages' report figures, generated from a report's ``summary.json``.

    python -m gnoming_sim.analyses.headlines README.md reports/summary.json

rewrites the lines between the two markers of ``README.md`` with :func:`headline_markdown` of that summary, and
each block of :data:`PAGES` (docs/rules.md's pocket rules and ladder), so every number they state is a number of
the committed report (``make report`` runs it; a test checks that they agree; docs/card.md's are tested against
it).  Reads only the summary dict: no study is imported.
"""
from __future__ import annotations

import json
import sys
from pathlib import Path

from . import lead

START = "<!-- headlines:start: generated from reports/summary.json by `python -m gnoming_sim.analyses.headlines README.md reports/summary.json`; do not edit by hand -->"
END = "<!-- headlines:end -->"

def _minutes(seconds: float) -> str:
    m, s = divmod(int(round(seconds)), 60)
    return f"{m} min {s:02d} s"


# the README's headline block, at most (the ladder and the pocket rules first, then as many of the designers'
# figures as fit)
WORD_BUDGET = 400
words = lead.words




def headline_markdown(summary: dict) -> str:
    """The headline block (markers excluded) for ``summary``: **The ladder of advice** (:func:`.lead.ladder_markdown`:
    each rung's change of win chance against a table of net and of expert), **The pocket rules** as printed, each
    with its worth a game, then **For designers** as many of the designers' figures as :data:`WORD_BUDGET` leaves
    room for, then where the method is.  A section the summary lacks says it is not in this report."""
    games = sum(s["games"] for s in summary["studies"].values())
    lines = [f"**The ladder of advice** ({games:,} games in {_minutes(summary['wall_s'])}). "
             + (lead.ladder_lead(summary) or "Not in this report: it was made before the pocket rules study.")]
    ladder = lead.ladder_markdown(summary)
    lines += ["", *ladder] if ladder else []
    rules = lead.pocket_rules(summary)
    if rules:
        lines += ["", f"**The pocket rules** ([docs/rules.md](docs/rules.md)), {lead.worth_lead(summary)}", "",
                  *(f"{k}. {r['text']} ({lead._shown(r['worth'])})" for k, r in enumerate(rules, 1))]
    tail = ["", "Methods and every study: [reports/index.html](reports/index.html)."]

    def fits(trial):
        return words("\n".join(trial + tail)) <= WORD_BUDGET

    by_key = {f["key"]: f for f in summary.get("findings", [])}
    designers = []
    for line in [*lead.designer_lines(summary),
                 *(by_key[k]["display"] for k in summary.get("designer_findings", []) if k in by_key)]:
        if fits(lines + ["", DESIGNERS] + designers + [f"- {line}"]):
            designers.append(f"- {line}")
    if designers:
        lines += ["", DESIGNERS, *designers]
    return "\n".join(lines + tail)


DESIGNERS = "**For designers**:"


def _row(cells) -> str:
    return "| " + " | ".join(cells) + " |"


def rules_markdown(summary: dict) -> str:
    """docs/rules.md's report figures: each pocket rule's worth a game (pooled and per table size, pp of win chance;
    points of game score; the Holm-adjusted p), which rules win nothing shown, the tables they hold at, and the
    ladder of advice at every table size and table (pp of win chance and points of game score against the table's
    player in its seat)."""
    s = summary.get("pocket_rules")
    if not isinstance(s, dict) or "ladder" not in s:
        return ("The report this page quotes (`reports/summary.json`) was made before the pocket rules study: its "
                "figures are not in it (the confirmation's, on other deals, are in "
                "[tuning/rules/README.md](../tuning/rules/README.md)).")
    sh = lead._shown
    sizes = [str(p) for p in s["sizes"]]
    out = [f"From `{summary.get('command') or 'gnoming-sim report'}` (`summary.json`'s `pocket_rules`, seed "
           f"{summary.get('seed')}): {s['deals']:,} deals a table size and table ({s['value_deals']:,} for value), "
           "deals no choice of the rules saw; pp of win chance and points of game score (lower wins) a game, "
           "95% t intervals over deals, n deals.", "",
           f"**What each rule is worth**: what removing it costs, in one seat among `{s['worth_table']}` players at "
           f"{lead._players_text(s['sizes'])} (the tables it holds at), n = {s['rules'][0]['win']['pooled']['n']:,} "
           "deals; p: the pooled worth against 0, Holm-adjusted over the rules.", "",
           _row(["rule", "pp of win chance a game", *(f"at {p} players" for p in sizes),
                 "points of game score a game (lower wins)", "p, Holm"]), "|---" * (len(sizes) + 4) + "|"]
    for r in s["rules"]:
        out.append(_row([r["title"], sh(r["win"]["pooled"]), *(sh(r["win"][p]) for p in sizes),
                         sh(r["margin"]["pooled"]), "< 0.001" if r["p_holm"] < 0.001 else f"{r['p_holm']:.3f}"]))
    gain = [r["title"].split()[0] for r in s["rules"] if r["gain"]]
    none = [r["title"].split()[0] for r in s["rules"] if not r["gain"]]
    out += ["", f"Win a game against their simplest default (interval above 0, Holm-adjusted p under 0.05): rules "
                f"{', '.join(gain) or 'none'}" + (f"; rules {', '.join(none)}: {s['no_gain']}." if none else ".")]
    finish = next((r for r in s["rules"] if "finish" in r["title"]), None)
    if finish:
        out.append(f"The finishing rule ({finish['title'].split()[0]}) holds at the tables it was measured at, one seat "
                   f"among `{s['worth_table']}` players, pp of win chance a game: "
                   + ", ".join(f"{sh(finish['win'][p])} at {p} players" for p in sizes) + ".")
    out += ["", "**The ladder of advice**: each rung in one seat among a table of `net` or of `expert`, against the "
                "table's player in that seat on the same deals.", "",
            _row(["table", "players", "rung", "win chance, %", "pp of win chance against the table's player",
                  "points of game score against the table's player (lower wins)", "n (deals)"]), "|---" * 7 + "|"]
    for t, by in s["ladder"].items():
        for p, rungs in by.items():
            for rung, e in rungs.items():
                out.append(_row([t, p, rung, sh(e["win"], sign=False), sh(e["win_vs_table"]), sh(e["margin_vs_table"]),
                                 f"{e['win_vs_table']['n']:,}"]))
    return "\n".join(out)


# the docs pages' generated blocks: (path from the README's folder, block name, generator); blocks of one page
# are written one after the other
PAGES = (("docs/rules.md", "report", rules_markdown),)


def markers(name: str) -> tuple[str, str]:
    """A docs page's block markers."""
    return (f"<!-- {name}:start: generated from reports/summary.json by `python -m gnoming_sim.analyses.headlines "
            f"README.md reports/summary.json`; do not edit by hand -->", f"<!-- {name}:end -->")


def replace_block(text: str, block: str, start: str = START, end: str = END) -> str:
    """``text`` with the lines between the markers replaced by ``block``."""
    try:
        head, rest = text.split(start, 1)
        _, tail = rest.split(end, 1)
    except ValueError:
        raise ValueError("the page has no generated-block markers") from None
    return f"{head}{start}\n{block}\n{end}{tail}"


def main(argv: list[str]) -> int:
    if len(argv) != 2:
        print("usage: python -m gnoming_sim.analyses.headlines README.md reports/summary.json", file=sys.stderr)
        return 2
    readme, summary_path = Path(argv[0]), Path(argv[1])
    try:
        summary = json.loads(summary_path.read_text(encoding="utf-8"))
        texts = {readme: replace_block(readme.read_text(encoding="utf-8"), headline_markdown(summary))}
        for path, name, make in PAGES:
            page = readme.parent / path
            text = texts.get(page) or page.read_text(encoding="utf-8")
            texts[page] = replace_block(text, make(summary), *markers(name))
    except (OSError, ValueError, KeyError) as e:
        print(f"headlines: {e}", file=sys.stderr)
        return 2
    for page, text in texts.items():
        page.write_text(text, encoding="utf-8")
    return 0


if __name__ == "__main__":
    raise SystemExit(main(sys.argv[1:]))
