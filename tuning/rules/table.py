"""The pocket rules' tables for tuning/rules/README.md, from result.json (confirm.py's output) and the printed sentences
(``registry.RULES_PRINTED``): ``python tuning/rules/table.py`` prints them; tests/kernel/test_rules.py checks that
the page holds them as printed here."""
from __future__ import annotations

import json
from pathlib import Path

from gnoming_sim.kernel.policy import registry

RESULT = Path(__file__).with_name("result.json")
VALUE = Path(__file__).with_name("value_rung.json")
SIZES = ("2", "4", "6")


def _f(x: float, digits: int = 1) -> str:
    return f"{x:+.{digits}f}".replace("-", "\u2212")


def shown(e: dict) -> str:
    """``m [lo, hi]`` of an estimate, one decimal, signed, with the minus sign the pages use."""
    return f"{_f(e['mean'])} [{_f(e['ci95'][0])}, {_f(e['ci95'][1])}]"


def holm(result: dict) -> dict:
    """Each rule's pooled worth tested against 0 (two-sided, its standard error from the 95% interval over
    thousands of deals, a normal reference), the p values adjusted for the eight rules together by Holm's method
    (statsmodels ``multipletests``): ``{title: adjusted p}``."""
    from scipy.stats import norm
    from statsmodels.stats.multitest import multipletests

    titles = [r["title"] for r in registry.RULES_PRINTED]
    p = []
    for t in titles:
        e = result["worth"][t]["win"]["pooled"]
        se = (e["ci95"][1] - e["ci95"][0]) / (2 * norm.ppf(0.975))
        p.append(2 * norm.sf(abs(e["mean"]) / se) if se > 0 else (1.0 if e["mean"] == 0 else 0.0))
    return dict(zip(titles, multipletests(p, method="holm")[1]))


def worth_table(result: dict) -> list[str]:
    """One row per printed rule: the sentence, its played worth pooled and at each size (pp a game), and the
    pooled worth's p value adjusted for the eight rules (:func:`holm`)."""
    rows = ["| rule | as printed | worth, pp of win chance a game (2, 4 and 6 players) | at 2 | at 4 | at 6 | "
            "p, Holm over the 8 rules |", "|---|---|---|---|---|---|---|"]
    adjusted = holm(result)
    for rule in registry.RULES_PRINTED:
        w = result["worth"][rule["title"]]["win"]
        p = adjusted[rule["title"]]
        rows.append(f"| {rule['title']} | {rule['text']} | {shown(w['pooled'])} (n {w['pooled']['n']:,}) | "
                    + " | ".join(shown(w[p_]) for p_ in SIZES) + f" | {'< 0.001' if p < 0.001 else f'{p:.3f}'} |")
    return rows


def ladder_table(result: dict) -> list[str]:
    """The ladder: each rung's win chance (%) and its change against the table's player in its seat (pp), and its
    margin (points a game, lower is better), at each size, against a table of net and of expert (``result``:
    result.json, or value_rung.json for the value player's rung)."""
    lad = result["ladder"]["tables"] if "ladder" in result else result["tables"]
    rows = ["| table | players | rung | win chance, % | against the table's player in the seat, pp | "
            "margin against the table's player, points a game |", "|---|---|---|---|---|---|"]
    for table, sizes in lad.items():
        for p, rungs in sizes.items():
            for rung, e in rungs.items():
                rows.append(f"| {table} | {p} | {rung} | {shown(e['win'])} | {shown(e['win_vs_table'])} | "
                            f"{shown(e['margin_vs_table'])} |")
    return rows


def main():
    result = json.loads(RESULT.read_text())
    print("\n".join(worth_table(result)))
    print()
    print("\n".join(ladder_table(result)))
    if VALUE.exists():
        print()
        print("\n".join(ladder_table(json.loads(VALUE.read_text()))))


if __name__ == "__main__":
    main()
