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

START = "<!-- headlines:start: generated from reports/summary.json by `python -m gnoming_sim.analyses.headlines README.md reports/summary.json`; do not edit by hand -->"
END = "<!-- headlines:end -->"
MINUS = "\u2212"

def _minutes(seconds: float) -> str:
    m, s = divmod(int(round(seconds)), 60)
    return f"{m} min {s:02d} s"


WORD_BUDGET = 400   # the README's headline block, at most (issue 23: answers first, not a wall)


def words(text: str) -> int:
    """Words as a reader counts them: whitespace-separated runs holding a letter or a digit."""
    return sum(1 for w in text.split() if any(c.isalnum() for c in w))


def _interval_text(m: float, lo: float, hi: float, digits: int = 1) -> str:
    return f"{m:+.{digits}f} [{lo:+.{digits}f}, {hi:+.{digits}f}]".replace("-", MINUS)


def boundary_line(summary: dict) -> str:
    """The finish rule per table size in one line (nothing without the finish-or-play-on study): "finish
    at gap <= X" only where the monotone fit passed its check and its target, else "no single number"."""
    bounds = summary.get("finish_play_on", {}).get("boundary", {})
    sizes = sorted((k for k in bounds if k.isdigit() and bounds[k] and "crossing" in bounds[k]), key=int)
    if not sizes:
        return ""
    cells = []
    for p in sizes:
        b = bounds[p]
        lo, hi = b.get("ci95") or (None, None)
        if b.get("numeric") and b.get("at_most") is not None and lo is not None and hi is not None:
            cells.append(f"{p} players finish at a gap of at most {b['at_most']:+d} "
                         f"(crossing {_interval_text(b['crossing'], lo, hi)}; n = {b['n']:,})".replace("-", MINUS))
        else:
            cells.append(f"{p} players no single number (n = {b['n']:,})")
    rollouts = summary.get("finish_play_on", {}).get("base_policy", "the strong player's")
    return ("**Finish rule** (gap: your score after finishing minus the best rival's visible score; "
            f"{rollouts} rollouts; by the closest rival's face-down cards in reports/index.html): "
            + "; ".join(cells) + ".")


CONVERGENCE_ORDER = ("converged", "still moves", "convergence not shown", "not tested")


def ladder_line(summary: dict) -> str:
    """Every answer's word along the ladder in one line, so the README says of each, also of those its word budget
    leaves out, whether it has converged ("not measured along the ladder" for an answer no rung pair measured)."""
    answers = list(enumerate(summary.get("answers", []), 1))
    if not any(a.get("convergence") for _, a in answers):
        return ""
    second, strong = summary.get("strong_ladder", ["learned", "net"])
    parts = []
    for word in (*CONVERGENCE_ORDER, None):
        keys = [f"{k} ({a['key']})" for k, a in answers if a.get("convergence") == word]
        if keys:
            parts.append(f"{word or 'not measured along the ladder'}: {', '.join(keys)}")
    preview = " (preview at quick sizes, no verdict)" if summary.get("quick") else ""
    return f"**Along the ladder**{preview} ({strong} against {second}, answers by number): " + "; ".join(parts) + "."


def headline_markdown(summary: dict) -> str:
    """The headline block (markers excluded) for ``summary``: the report's answers (as many as fit in
    :data:`WORD_BUDGET` words, best ranked first; each in full), the finish boundary line if it fits, then as
    many of the designers' balance figures as fit, then where the rest is."""
    games = sum(s["games"] for s in summary["studies"].values())
    second, strong = summary.get("strong_ladder", ["learned", "net"])
    head = [f"**Answers** (`{summary['command'] or 'gnoming-sim report'}`: {games:,} games, "
            f"{_minutes(summary['wall_s'])} on 2 cores), each with its 95% interval, n and the players it holds "
            f"under: read under {strong}, the strongest fast player, and measured under {second} on the same deals; "
            f"*converged* where an equivalence test with 80% power shows the two agree within the answer's margin, "
            f"*still moves* where they differ, *not tested* where it lacks that power. Win-chance changes are "
            f"percentage points.", ""]
    ladder = ladder_line(summary)
    if ladder:
        head += [ladder, ""]
    tail = ["", "Designers' balance figures and every study's details: [reports/index.html](reports/index.html)."]
    answers = summary.get("answers", [])

    def fits(lines):
        return words("\n".join(lines + tail)) <= WORD_BUDGET

    lines = list(head)
    shown = 0
    for k, a in enumerate(answers, 1):
        trial = lines + [f"{k}. {a['display']}"]
        if not fits(trial + ([f"{len(answers) - k} more answers in the report."] if k < len(answers) else [])):
            break
        lines, shown = trial, k
    if shown < len(answers):
        lines += ["", f"{len(answers) - shown} more answers in the report."]
    boundary = boundary_line(summary)
    if boundary and fits(lines + ["", boundary]):
        lines += ["", boundary]
    by_key = {f["key"]: f for f in summary["findings"]}
    designer = [by_key[k] for k in summary.get("designer_findings", []) if k in by_key]
    balance = []
    for f in designer:
        if fits(lines + ["", "**For designers:**"] + balance + [f"- {f['display']}"]):
            balance.append(f"- {f['display']}")
    if balance:
        lines += ["", "**For designers:**"] + balance
    return "\n".join(lines + tail)


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
