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

CONVENTION = ("Every difference is treatment minus control on the same deals: a change in score, where "
              "negative is better (the lowest score wins), or a change in the chance of winning, where "
              "positive is better. Every interval is a 95% interval over independent units (deals or games, "
              "never seats), and n counts those units.")


def _minutes(seconds: float) -> str:
    m, s = divmod(int(round(seconds)), 60)
    return f"{m} min {s:02d} s"


def _rule_cell(rule: dict | None) -> str:
    if rule is None:
        return "no crossing"
    e = rule["even_bet"]
    lo, hi = e["ci95"]
    text = f"{e['mean']:.1f} [{lo:.1f}, {hi:.1f}]"
    head = f"at most {rule['at_most']}" if rule["clear"] else "no clear rule"
    cut = " (cut at the observed values)" if rule.get("open") else ""
    return f"{head}; even bet {text}{cut}".replace("-", MINUS)


def _rules_table(summary: dict) -> list[str]:
    rules = summary.get("early_finish", {}).get("rules_by_preset", {})
    if not rules:
        return []
    sizes = sorted({int(k.split(".")[0]) for k in rules})
    presets = list(dict.fromkeys(k.split(".", 1)[1] for k in rules))
    lines = ["Finishing score rules per preset (the round score before the bonus at which the \u22125 is at "
             "least an even bet; each conditional on that preset's own choice to finish, so not advice to "
             "finish; \"no clear rule\" where P(bonus) at the rule and one above it straddle 50%):", "",
             "| preset | " + " | ".join(f"{p} players" for p in sizes) + " |",
             "|---|" + "---|" * len(sizes)]
    for name in presets:
        cells = [_rule_cell(rules[f"{p}.{name}"]["score_rule"]) if f"{p}.{name}" in rules else "too few finishes"
                 for p in sizes]
        lines.append(f"| {name} | " + " | ".join(cells) + " |")
    return lines


def _signed_interval(e: dict, digits: int, scale: float = 1.0, unit: str = "") -> str:
    m, (lo, hi) = scale * e["mean"], e["ci95"]
    return f"{m:+.{digits}f}{unit} [{scale * lo:+.{digits}f}, {scale * hi:+.{digits}f}]".replace("-", MINUS)


def _gap_label(label: str) -> str:
    return label.replace("<=", "\u2264 ").replace(">=", "\u2265 ").replace("..", " to ").replace("-", MINUS)


def _finish_play_on(summary: dict) -> list[str]:
    """The finish-or-play-on advice and tables (nothing when the summary has no such study)."""
    study = summary.get("finish_play_on")
    if not study or not study.get("rules"):
        return []
    rules = study["rules"]
    sizes = sorted(rules, key=int)
    win = "; ".join(f"at {p} players, {rules[p]['win']['text']}" for p in sizes)
    points = "; ".join(f"at {p} players, {rules[p]['points']['text']}" for p in sizes)
    lines = [f"**When to finish** (the finish-or-play-on study: {study['decisions']:,} finishing chances, one drawn "
             f"per self-play game of the presets, each rolled out with every seat playing {study['base_policy']} "
             f"afterwards, {study['rollouts_per_batch']:,} rollouts per batch and criterion; conditional on "
             f"{study['conditioning']}; \"no clear rule\" where an interval straddles 0). To win the game: {win}. "
             f"For the round score alone, which ignores what a finish does to the rivals: {points}.", "",
             "| players | gap to the best visible rival | finish \u2212 best play-on: chance of winning (percentage "
             "points; positive: finish) | the same in round score (points; negative: finish) | n decisions |",
             "|---|---|---|---|---|"]
    for p in sizes:
        for b, c in study["boundary"]["gap"].get(p, {}).items():
            w = _signed_interval(c["win_difference"], 1, 100) if "win_difference" in c else "\u2013"
            lines.append(f"| {p} | {_gap_label(b)} | {w} | {_signed_interval(c['finish_minus_play_on'], 1)} | "
                         f"{c['finish_minus_play_on']['n']:,} |")
    regret = study.get("regret", {})
    presets = [k for k in regret if "." not in k]
    if presets:
        lines += ["", "Regret of each preset's own choice at its finishing chances against the rollout choice, per "
                  "player-round (round score in points; chance of winning the game in percentage points; positive "
                  "is a loss; 95% interval over games; n = games / decisions):",
                  "", "| preset | " + " | ".join(f"{p} players" for p in sizes) + " | all sizes |",
                  "|---|" + "---|" * (len(sizes) + 1)]
        for name in presets:
            cells = []
            for key in [f"{name}.{p}" for p in sizes] + [name]:
                r = regret.get(key)
                if r is None:
                    cells.append("too few games")
                    continue
                text = f"{_signed_interval(r['per_round'], 2)} points"
                if r.get("per_round_win"):
                    text += f"; {_signed_interval(r['per_round_win'], 2, 100)} pp"
                cells.append(f"{text} (n = {r['games']:,} / {r['decisions']:,})")
            lines.append(f"| {name} | " + " | ".join(cells) + " |")
    return lines


def headline_markdown(summary: dict) -> str:
    """The headline block (markers excluded) for ``summary``."""
    games = sum(s["games"] for s in summary["studies"].values())
    lines = [f"**Headline findings** of the committed report (`{summary['command'] or 'gnoming-sim report'}`; "
             f"master seed {summary['seed']}; {len(summary['studies'])} studies, {games:,} games, "
             f"{_minutes(summary['wall_s'])} on the machine that made it). {CONVENTION}", ""]
    lines += [f"- {f['display']}" for f in summary["findings"]]
    table = _rules_table(summary)
    if table:
        lines += [""] + table
    finish = _finish_play_on(summary)
    if finish:
        lines += [""] + finish
    return "\n".join(lines)


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
