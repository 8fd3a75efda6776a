"""Figures the docs quote from committed files, read back from those files (card.md said
per-table Holm and 21 starred cells after the card was re-derived with one family and 19; the README said
"15 defects" of an audits page that held three audits)."""
import json
import re
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]


def test_the_card_page_quotes_the_first_derivations_holm_family_and_starred_cells():
    """The first derivation, before the policy iteration (its run's cells file, tuning/guide/chart_cells.json: its tables, the
    card-starred preset's cells and its check, the committed file's too)."""
    from gnoming_sim.kernel.policy import registry

    derived = json.loads((ROOT / "tuning" / "guide" / "chart_cells.json").read_text(encoding="utf-8"))
    committed = json.loads(registry.CARD_CELLS.read_text(encoding="utf-8"))
    assert committed["cells"] == derived["cells"] and committed["check"] == derived["check"]
    page = (ROOT / "docs" / "card.md").read_text(encoding="utf-8")
    families = {t["family"] for t in derived["tables"].values()}
    assert len(families) == 1, families            # one family over the whole card
    assert f"one family of {families.pop()} tests" in page
    assert f"The card's {len(derived['cells'])} starred cells" in page
    assert "per table" not in page.split("### The committed derivation")[1].split("\n\n")[2]   # the committed table's header
    diff = derived["check"]["versus_expert"]["diff"]
    assert f"{diff['mean']:+.2f}".replace("-", "\u2212") in page


def test_the_card_page_quotes_the_committed_cards_policy_iteration():
    """The page's rounds table is the committed card's history (card_cells.json's card_provenance):
    one row a round with its games, covered and valued decisions, rollouts, cells valued and cells changed."""
    from gnoming_sim.kernel.policy import registry

    prov = json.loads(registry.CARD_CELLS.read_text(encoding="utf-8"))["card_provenance"]
    page = (ROOT / "docs" / "card.md").read_text(encoding="utf-8")
    table = page.split("| round | games | covered decisions |")[1].split("\n\n")[0].splitlines()[2:]
    assert len(table) == len(prov["iteration"])
    for row, r in zip(table, prov["iteration"]):
        cols = [c.strip() for c in row.split("|")[1:-1]]
        assert cols[:5] == [str(r["round"]), f"{r['games']:,}", f"{r['covered']:,}",
                            f"{r['decisions']:,} ({r['rollouts']})", str(r["cells_seen"])], (cols, r)
        assert cols[5].split(":")[0] == str(r["cells_changed"])


def test_the_readme_and_the_index_say_what_the_history_page_holds():
    """The README's and the docs index's line on docs/history.md name what it holds, and it holds them."""
    sections = re.findall(r"^## (.+)$", (ROOT / "docs" / "history.md").read_text(encoding="utf-8"), flags=re.M)
    for held in ("The statistical audits of the report", "How the card was made", "How the engine got fast"):
        assert held in sections, (held, sections)
    for page, link in (("README.md", "docs/history.md"), ("docs/README.md", "(history.md)")):
        line = next(x for x in (ROOT / page).read_text(encoding="utf-8").splitlines() if link in x)
        for said in ("statistical audits", "how the card was made", "got fast"):
            assert said in line, (page, said, line)


def test_the_card_pages_ladder_table_is_its_named_pool_and_says_elo_is_pool_specific():
    """The card-starred player was +17 Elo in the report and +8 in card.md, two pools; the
    page's ladder table rates exactly the pool it names, as a run of its own, and says Elo is specific to it."""
    page = (ROOT / "docs" / "card.md").read_text(encoding="utf-8")
    text = page.split("On the strength ladder at 4 players")[1].split("| strategy | rating (Elo")[0]
    said = " ".join(text.split())
    pool = {s.strip() for s in re.search(r"design: pool ([a-z, -]+);", said).group(1).split(",")}
    rows = page.split("| strategy | rating (Elo")[1].split("\n\n")[0].splitlines()[2:]
    rated = {r.split("|")[1].strip().strip("*") for r in rows}
    assert rated == pool, (rated, pool)
    assert "a run of its own" in said and "Elo is specific to the pool" in said


def _triples(data, out: set) -> set:
    """Every (mean, low, high) of a committed JSON file: ``mean``/``diff``/``margin``/``gain_pp`` with ``ci95`` or
    ``lo``/``hi``."""
    if isinstance(data, dict):
        mean = next((data[k] for k in ("mean", "diff", "margin", "gain_pp") if k in data), None)
        ci = data.get("ci95")
        if isinstance(mean, (int, float)) and isinstance(ci, list) and len(ci) == 2:
            out.add((mean, *ci))
        if isinstance(mean, (int, float)) and isinstance(data.get("lo"), (int, float)):
            out.add((mean, data["lo"], data["hi"]))
        for value in data.values():
            _triples(value, out)
    elif isinstance(data, list):
        for value in data:
            _triples(value, out)
    return out


INTERVAL = re.compile(r"([−+-]?\d[\d,]*(?:\.\d+)?)%?(?: pp)? \[([−+-]?\d[\d,]*(?:\.\d+)?)%?, ([−+-]?\d[\d,]*(?:\.\d+)?)%?\]")
# a page's section (from a heading, or from a sentence of it, to the next heading) whose every "m [lo, hi]" is a
# committed file's figure, as printed: (page, heading, first words or None, the files it quotes); docs/rules.md's
# report figures are generated (analyses/headlines.py, tests/analyses/test_headlines_rules.py)
LADDERS = tuple(f"tuning/net/ladder-top-{n}.json" for n in ("2p", "2p-7000", "4p", "4p-7000", "6p", "6p-4000", "6p-7000"))
QUOTED = [("card.md", "# The card, its derivation and the `card-starred` player", None, ("reports/summary.json",)),
          ("card.md", "## What following the card is worth", None,
           ("reports/summary.json", "tuning/guide-iteration/margins-before.json", "tuning/guide/chart_cells.json")),
          ("players.md", "## The strength ladder: `ladder`", "The top of the ladder, rated apart", LADDERS),
          ("card.md", "### The committed derivation", None, ("tuning/guide/chart_cells.json",)),
          ("card.md", "## How the committed card is made: policy iteration", None,
           ("gnoming_sim/kernel/policy/card_cells.json",)),
          ("card.md", "## How sure the derivation is", None, ("tuning/guide-iteration/power.json",)),
          ("rules.md", "## What each rule costs against net", None, ("tuning/rules/rule_cost.json",)),
          ("rules.md", "## Where the finishing rule and the card part", None, ("tuning/rules/finish_vs_card.json",)),
          ("card.md", "## What net knows that the card does not", None, ("tuning/rules/card_gap.json",)),
          ("players.md", "## The value player: `value`", None, ("tuning/value/strength.json",))]


def _number(text: str) -> float:
    return float(text.replace("\u2212", "-").replace(",", ""))


def test_the_intervals_a_page_quotes_are_its_committed_files():
    """Every interval of a quoting section is a figure of the files it names, rounded as printed (a share in %
    or a fraction); a regenerated report that moves one fails here and names it."""
    stale = []
    for page, heading, start, files in QUOTED:
        text = (ROOT / "docs" / page).read_text(encoding="utf-8").split(heading + "\n", 1)[1]
        section = re.split(r"^#{1,3} ", text, maxsplit=1, flags=re.M)[0]
        section = " ".join((section if start is None else start + section.split(start, 1)[1]).split())
        known = set().union(*(_triples(json.loads((ROOT / f).read_text(encoding="utf-8")), set()) for f in files))
        found = INTERVAL.findall(section)
        assert found, (page, heading)   # the section is found and holds figures
        for said in found:
            values = [_number(x) for x in said]
            digits = len(said[0].split(".")[1]) if "." in said[0] else 0
            half = 0.5 * 10 ** -digits + 1e-9      # as printed: within half a unit of the last digit shown
            if not any(all(abs(a * scale - b) <= half for a, b in zip(t, values))
                       for t in known for scale in (1, 100)):
                stale.append(f"docs/{page} ({heading}): {said[0]} [{said[1]}, {said[2]}]")
    assert not stale, "not a figure of the committed files the section quotes:\n" + "\n".join(stale)


def test_the_card_pages_margins_table_is_the_reports():
    """The card's margins table, row by row: the report's ``card.card_margins`` (points and win share) and the
    card before the policy iteration (tuning/guide-iteration/margins-before.json); the message gives the rows."""
    summary = json.loads((ROOT / "reports" / "summary.json").read_text(encoding="utf-8"))["card"]["card_margins"]
    before = json.loads((ROOT / "tuning" / "guide-iteration" / "margins-before.json").read_text())["margins"]

    def shown(e) -> str:
        f = lambda x: f"{x:+.2f}".replace("-", "\u2212")
        return f"{f(e['mean'])} [{f(e['ci95'][0])}, {f(e['ci95'][1])}]"

    want = [f"| {n} | {rival} | {shown(m['points'])} | {shown(m['win'])} | {shown(before[n][rival]['points'])} |"
            for n, rivals in summary.items() for rival, m in rivals.items()]
    page = (ROOT / "docs" / "card.md").read_text(encoding="utf-8")
    table = page.split("| players | rivals | card − rival, points of game score a game (lower wins) |", 1)[1].split("\n\n")[0].splitlines()[2:]
    assert table == want, "docs/card.md's margins table should read:\n" + "\n".join(want)


def test_the_players_pages_expert_table_is_its_held_out_record():
    """How `expert` was found: the held-out table, row by row, is tuning/expert-4p/held-out.json."""
    record = json.loads((ROOT / "tuning" / "expert-4p" / "held-out.json").read_text(encoding="utf-8"))
    f = lambda x: f"{x:.2f}".replace("-", "\u2212")
    want = [f"| {r['players']} | {r['games']:,} | {f(r['a_score'])} | {f(r['b_score'])} | {f(r['diff'])} | "
            f"[{f(r['lo'])}, {f(r['hi'])}] |" for r in record]
    page = (ROOT / "docs" / "players.md").read_text(encoding="utf-8")
    table = page.split("| players | deals | expert | builder | expert − builder per game | 99% interval |", 1)[1]
    assert table.split("\n\n")[0].splitlines()[2:] == want, "docs/players.md's held-out table should read:\n" + \
        "\n".join(want)
