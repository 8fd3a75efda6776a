"""The README's headline block, generated from a report's ``summary.json``.

    python -m gnoming_sim.analyses.headlines README.md reports/summary.json

rewrites the lines between the two markers of ``README.md`` with :func:`headline_markdown`
of that summary, so every number the README states is a number of the committed report
(a test checks that they agree).  Reads only the summary dict: no study is imported.
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


# the README's headline block, at most (answers first, not a wall: the four rules, the card
# and its agreement, then the designers' figures per table size)
WORD_BUDGET = 680
words = lead.words


def headline_markdown(summary: dict) -> str:
    """The headline block (markers excluded) for ``summary``: the player's part first (the
    rules of :func:`.lead.rules_of`, the card's margins, its agreement with the full analysis; every sentence in
    it at most :data:`.lead.MAX_RULE_WORDS` words, no method words in the rules), then **For designers** (a
    dealt mulligan, a hazard drawn blind, the seats and net's own finishes, each per table size with its
    interval), then as many of the designers' balance figures as :data:`WORD_BUDGET` leaves room for, then
    where the rest is.  A section the summary lacks says it is not in this report."""
    games = sum(s["games"] for s in summary["studies"].values())
    lines = [f"**The rules**, from `{summary['command'] or 'gnoming-sim report'}` ({games:,} games, "
             f"{_minutes(summary['wall_s'])} on 2 cores).",
             "Each figure is a change in your chance of winning in percentage points, pp (in game-score points where it "
             "says so), with its 95% interval in brackets and n, what it rests on "
             "([how to read them](docs/report.md#the-rules-first)).", ""]
    rules = lead.rules_of(summary)
    if rules:
        lines += [f"{k}. {r['sentence']}" for k, r in enumerate(rules, 1)]
        played = lead.played_sentences(summary)
        if played:
            lines += ["", " ".join(played)]
    else:
        lines.append("The rules are not in this report: it was made before the rules study.")
    card = lead.card_sentences(summary)
    lines += ["", "**The card** ([docs/guide.md](docs/guide.md)): "
              + (" ".join(card) if card else "what following it wins is not in this report.")]
    agreement = lead.agreement_sentence(summary)
    lines += ["", "**The card and the full analysis**: "
              + (agreement if agreement else "their agreement is not measured in this report.")]
    tail = ["", "Every answer with its method, and every study's details: [reports/index.html](reports/index.html)."]

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


DESIGNERS = ("**For designers** (changes of win chance in percentage points, per table size where the sizes differ, "
             "each with its 95% interval and n):")


def player_part(block: str) -> str:
    """The player's part of a headline block: everything before **For designers**."""
    return block.split(DESIGNERS, 1)[0]


def replace_block(text: str, block: str) -> str:
    """``text`` with the lines between the markers replaced by ``block``."""
    try:
        head, rest = text.split(START, 1)
        _, tail = rest.split(END, 1)
    except ValueError:
        raise ValueError("the README has no headline markers") from None
    return f"{head}{START}\n{block}\n{END}{tail}"


def main(argv: list[str]) -> int:
    if len(argv) != 2:
        print("usage: python -m gnoming_sim.analyses.headlines README.md reports/summary.json", file=sys.stderr)
        return 2
    readme, summary_path = Path(argv[0]), Path(argv[1])
    summary = json.loads(summary_path.read_text(encoding="utf-8"))
    readme.write_text(replace_block(readme.read_text(encoding="utf-8"), headline_markdown(summary)), encoding="utf-8")
    return 0


if __name__ == "__main__":
    raise SystemExit(main(sys.argv[1:]))
