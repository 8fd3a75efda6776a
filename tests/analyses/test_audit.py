"""The committed report against the statistical audits of docs/history.md (three audits: 15, 22 and 15 points):
each check reads reports/summary.json and fails if a defect is back (a regenerated report that reintroduces one
fails here before a reader finds it); the last ones check the page itself (every point a row, every row's test a
test that exists)."""
from __future__ import annotations

import json
from pathlib import Path

import pytest

from gnoming_sim.analyses.framework.design import SECOND, STRONG, STRONG_LADDER, TOP_DIFFERENCE
from gnoming_sim.analyses.framework.study import RUNGS

ROOT = Path(__file__).resolve().parents[2]


@pytest.fixture(scope="module")
def summary() -> dict:
    return json.loads((ROOT / "reports" / "summary.json").read_text(encoding="utf-8"))


def _ok(e: dict) -> bool:
    lo, hi = e["ci95"]
    return e["n"] > 0 and lo <= e["mean"] <= hi


def test_1_the_finish_boundary_is_a_fitted_crossing_with_an_interval_and_bins_are_under_holm(summary):
    # a monotone fit per size and closest rival's face-down cards; a number only where it
    # passed its check against its own bins and the +-1 target
    fp = summary["finish_play_on"]
    sizes = [k for k in fp["boundary"] if k.isdigit()]
    assert sorted(sizes, key=int) == ["3", "4", "5", "6"]
    for p in sizes:
        b = fp["boundary"][p]
        assert "isotonic" in b["model"] and "card in hand" in b["unit"]
        assert b["n"] >= 1000
        if b["crossing"] is not None:
            assert b["ci95"][0] <= b["crossing"] <= b["ci95"][1]
        assert all("holm" in cell for cell in fp["boundary"]["gap"][p].values())
    rules = fp["finish_rule"]
    assert {(r["players"], r["rival_face_down"]) for r in rules} == {
        (p, band) for p in (3, 4, 5, 6) for band in ("all", "1", "2", "3+")}
    for r in rules:
        assert r["numeric"] == (r["meets_target"] and not r["contradicting_bins"])
        assert r["text"].startswith("finish when") if r["numeric"] else r["text"].startswith("no single number")


def test_2_mulligan_worth_is_win_chance_and_margin_and_the_reversal_is_explained(summary):
    e = summary["estimands"]["mulligan"]
    assert "rivals" in e["margin"]["definition"]
    keys = [a["key"] for a in summary["answers"]]
    assert "mulligan_value.win_chance" in keys and "mulligan_value.margin" in keys
    text = next(a["display"] for a in summary["answers"] if a["key"] == "mulligan_value.win_chance")
    assert "at 2 players" in text                    # the sign reversal is stated where it holds
    fates = summary["mulligan_value"]["ladder"]["where_the_mulligan_went"]
    assert fates                                     # ... and explained with numbers (the traced fate)
    assert any(f["key"] == f"mulligan_value.to_rival_{SECOND}" for f in summary["findings"])


def test_3_the_hazard_cost_uses_each_tables_own_draws(summary):
    ladder = summary["hazard_risk"]["ladder"]
    assert "own draws" in ladder["definition"]
    n = {rung: ladder["by_player"][rung]["all"]["win"]["n"] for rung in RUNGS}
    assert len(set(n.values())) == 3                 # not one intersection of deals shared by all tables


def test_4_regret_is_per_decision_with_bootstrap_intervals_not_per_player_round(summary):
    fp = summary["finish_play_on"]
    assert "regret" not in fp and fp["regret_per_decision"]


def test_5_per_decision_verdicts_are_better_worse_or_indistinguishable(summary):
    v = summary["finish_play_on"]["verdicts_strong"]
    assert abs(v["better"]["mean"] + v["worse"]["mean"] + v["indistinguishable"]["mean"] - 1) < 1e-9


def test_6_the_weighting_is_said_and_both_are_given(summary):
    fp = summary["finish_play_on"]
    assert "by game" in fp["weighting"] and "by_chance" in fp["weighting"]
    assert set(fp["ladder"]["win"]["by_chance"]) == set(RUNGS)


def test_7_expert_is_the_strongest_heuristic_not_the_strongest_player(summary):
    text = next(f["text"] for f in summary["findings"] if f["key"] == "tournament.best_win_share")
    assert "not of all players" in text


def test_8_seat_intervals_are_stratified(summary):
    studies = summary["studies"]["tournament"]["half_widths"]
    assert any("stratified" in k for k in studies)


def test_9_the_rule_table_is_analytic_and_under_holm_with_half_open_intervals(summary):
    for rule in summary["early_finish"]["rules_by_preset"].values():
        for key in ("score_rule", "gap_rule"):
            r = rule.get(key)
            if r is None:
                continue
            assert "Holm" in r["clear_means"] and "analytic" in r["clear_means"]
            if r["open"]:
                assert "\u221e" in r["even_bet_interval"]


def test_10_house_rules_mark_what_is_not_exercised_and_replay_under_strong_play(summary):
    hr = summary["house_rules"]
    assert not hr["variants"]["no reshuffle"]["exercised"]
    assert set(hr["under_strong_play"]) == set(STRONG_LADDER)
    # each variant's change in round length along the ladder, with its word
    assert set(hr["convergence"]["by_variant"]) == set(hr["variants"]) - {"baseline"}
    for v in hr["convergence"]["by_variant"].values():
        assert v["convergence"] in CONVERGENCE and _ok(v["difference"])


def test_11_no_table_size_loses_dealt_mulligan_deals(summary):
    skipped = summary["mulligan_value"]["skipped_by_players"]
    deals = summary["mulligan_value"]["ladder"]["by_player"]["mix"]
    for p, k in skipped.items():
        assert k <= 0.001 * deals[p]["placed"]["win"]["n"] + 3, (p, k)


def test_12_shares_over_rounds_are_clustered_by_game(summary):
    ef = summary["early_finish"]
    # n counts games (clusters), at most the study's games; finished rounds would be up to 3 a game
    assert ef["bonus_probability"]["n"] <= summary["studies"]["early_finish"]["games"]
    assert ef["design_effect_rounds_in_a_game"] > 1.0


def test_14_the_mulligan_has_both_controls(summary):
    assert len(summary["mulligan_value"]["ladder"]["controls"]) == 2


def test_every_answer_and_estimand_has_an_interval_and_n(summary):
    for a in summary["answers"]:
        assert _ok(a) and a["holds_under"]
    for q, measures in summary["estimands"].items():
        for m, e in measures.items():
            for part in (*e["players"].values(), *e["differences"].values()):
                assert _ok(part), (q, m)


# ----------------------------------------------------------------- the second audit: advice a player can act on
WORDS = ("holds", "differs", "not shown to differ", "not tested")
CONVERGENCE = ("converged", "still moves", "convergence not shown", "not tested")
ANSWER_ESTIMAND = {"mulligan_value.win_chance": ("mulligan", "win_chance"), "mulligan_value.margin": ("mulligan", "margin"),
                   "hazard_risk.win_chance": ("hazard", "win_chance"), "hazard_risk.margin": ("hazard", "margin"),
                   "finish_play_on.win_difference": ("finishing", "win_chance")}
ONE_SIZE_ESTIMAND = {"card.card_vs_expert": ("card", "card_vs_expert")}   # measured at one table size (nothing pooled)


def test_holds_under_both_strongest_rungs_only_by_an_equivalence_test(summary):
    from gnoming_sim.stats import equivalence_word

    for q, measures in summary["estimands"].items():
        for m, e in measures.items():
            assert e["settled"] is None or e["settled"] in WORDS, (q, m, e["settled"])
            d = e["differences"].get(TOP_DIFFERENCE)
            if e["settled"] is not None and "differences_by_size" in e:     # judged at every size
                assert e["settled"] == _by_size_word(e["differences_by_size"], e["equivalence_target"]), (q, m)
            elif e["settled"] is not None and d is not None:
                assert e["settled"] == equivalence_word(d["mean"], *d["ci95"], e["equivalence_target"]), (q, m)
    for a in summary["answers"]:
        both = a["holds_under"].startswith(f"{SECOND} and {STRONG}")
        assert (a["convergence"] == "converged") == both, a["key"]
        if a["key"] in ANSWER_ESTIMAND | ONE_SIZE_ESTIMAND:
            q, m = (ANSWER_ESTIMAND | ONE_SIZE_ESTIMAND)[a["key"]]
            assert both == (summary["estimands"][q][m]["settled"] == "holds"), a["key"]
        assert "settled" not in a["holds_under"]
        if both:
            assert "TOST" in a["holds_under"]


def _by_size_word(parts: dict, target: float) -> str:
    from gnoming_sim.stats import Estimate
    from gnoming_sim.analyses.framework.words import equivalence_by_size

    return equivalence_by_size({k: Estimate(d["mean"], *d["ci95"], d["n"]) for k, d in parts.items()}, target)


def test_a_label_only_where_the_equivalence_test_had_the_power_to_pass(summary):
    """Every judged estimand carries the power of its equivalence test at its margin; a label
    ("holds", "differs", "not shown to differ") only at 80% power or more, else "not tested"; the finishing
    answer judged on its rule's crossings at every size; no house rule converged by a test without power."""
    from gnoming_sim.stats import POWER_NEEDED

    for q, measures in summary["estimands"].items():
        for m, e in measures.items():
            if e["settled"] is None:
                continue
            pw = e["equivalence_power"]
            assert pw is not None and 0 <= pw <= 1, (q, m)
            assert (e["settled"] == "not tested") == (pw < POWER_NEEDED), (q, m, pw)
    assert "crossing" in summary["estimands"]["finishing"]["win_chance"]["judged"]
    for a in summary["answers"]:
        if a["convergence"] is not None:
            assert "power" in a["holds_under"], a["key"]
    for name, v in summary["house_rules"]["convergence"]["by_variant"].items():
        if v["convergence"] in ("converged", "still moves"):
            assert v["equivalence_power"] >= POWER_NEEDED, name


def test_every_answer_is_read_along_the_ladder(summary):
    """Each README answer says whether it has converged between the two strongest fast players:
    none is left "not measured along the ladder"."""
    for a in summary["answers"]:
        assert a["convergence"] in CONVERGENCE, a["key"]


def test_a_pooled_answer_whose_table_sizes_differ_is_stated_per_size(summary):
    displays = {a["key"]: a["display"] for a in summary["answers"]}
    for key, (q, m) in ANSWER_ESTIMAND.items():
        sizes = summary["estimands"][q][m].get("by_table_size")
        assert sizes is not None and "Cochran" in sizes["test"], (q, m)
        if key in displays and not sizes["agree"]:
            assert "no one table's answer" in displays[key], key


def test_house_rules_test_every_variant_in_one_family(summary):
    from gnoming_sim.stats import Estimate, holm

    variants = {k: v for k, v in summary["house_rules"]["variants"].items() if v["change_vs_baseline"]}
    assert any(v["paired"] is False for v in variants.values())            # the other-deck variant is there
    changes = {k: v["change_vs_baseline"]["skill_gap"] for k, v in variants.items()}
    keep = holm([Estimate(c["mean"], *c["ci95"], c["n"]) for c in changes.values()])
    text = next(f["text"] for f in summary["findings"] if f["key"] == "house_rules_skill")
    clear = [k for k, kept in zip(changes, keep) if kept and variants[k]["exercised"]]
    assert text.startswith("No house rule") == (not clear), text
    for k in clear:
        assert f"'{k}'" in text


def test_the_pairing_does_not_narrow_net_minus_learned_as_report_md_says(summary):
    """Docs/report.md once said pairing the rungs on the same deals narrows net - learned.
    The rungs' correlation over deals, from the committed intervals, is small for the mulligan and hazard answers
    (so the difference's standard error is about sqrt(2) times a rung's), large only for the finishing decisions,
    rolled out under both rungs from the same positions; the page says so."""
    def se(e):
        return (e["ci95"][1] - e["ci95"][0]) / (2 * 1.959964)

    def correlation(e):
        a, b, d = se(e["players"][STRONG]), se(e["players"][SECOND]), se(e["differences"][TOP_DIFFERENCE])
        return (a * a + b * b - d * d) / (2 * a * b)

    est = summary["estimands"]
    for q, m in (("mulligan", "win_chance"), ("mulligan", "margin"), ("hazard", "win_chance"), ("hazard", "margin")):
        assert abs(correlation(est[q][m])) < 0.25, (q, m, correlation(est[q][m]))
    assert correlation(est["finishing"]["win_chance"]) > 0.5
    page = " ".join((ROOT / "docs" / "report.md").read_text(encoding="utf-8").split())
    assert "the pairing on the same deals does **not** make it narrower" in page


# ----------------------------------------------------------------- the audit page itself
AUDIT_ROWS = {
    "Answers a player would act on": [str(k) for k in range(1, 16)],
    "Advice a player can act on": [*map(str, range(1, 8)), "8a", "8b", "8c", *(f"9{c}" for c in "abcdefghij"), "10",
                                   "11"],
    "The words around the numbers": ["1a", "1b", "1c", "1d", "2a", "2b", "2c", "3a", "3b", "3c", "4a", "4b", "4c", "4d",
                                     "4e"]}
ONLY_STATED = ("not tested", "not done", "open")


def _audit_sections() -> dict[str, list[list[str]]]:
    """docs/history.md's audits, by the title of each: {title: [[number, defect, now, checked by]]}, a point being a
    "#### <number>" heading and its "**Defect.**", "**Now.**" and "**Checked by.**" paragraphs."""
    import re

    page = (ROOT / "docs" / "history.md").read_text(encoding="utf-8")
    section = page.split("## The statistical audits of the report", 1)[1].split("\n## ", 1)[0]
    parts = re.split(r"^### (.+)$", section, flags=re.M)
    rows = {}
    for title, text in zip(parts[1::2], parts[2::2]):
        points = re.split(r"^#### (\w+)$", text, flags=re.M)
        rows[title] = []
        for number, body in zip(points[1::2], points[2::2]):
            fields = {m.group(1): " ".join(m.group(2).split())
                      for m in re.finditer(r"\*\*(Defect|Now|Checked by)\.\*\*\s+(.*?)(?=\n\n|\Z)", body, flags=re.S)}
            rows[title].append([number, fields.get("Defect", ""), fields.get("Now", ""), fields.get("Checked by", "")])
    return rows


def _tests_named(cell: str) -> list[tuple[str, str | None]]:
    """(file, function or None) for every test a "checked by" cell names; ``::name`` goes with the file before it."""
    import re

    named, last = [], None
    for token in re.findall(r"`([^`]+)`", cell):
        m = re.fullmatch(r"(?:[\w/]+/)?(test_\w+\.py)(?:::(\w+)…?)?", token)
        if m:
            last = m.group(1)
            named.append((last, m.group(2)))
        elif re.fullmatch(r"::\w+…?", token):
            assert last is not None, cell
            named.append((last, token[2:].rstrip("…")))
    return named


def test_every_point_of_every_audit_is_a_row_naming_a_test_that_exists():
    """The three audits' 15 + 22 + 15 points are each a point of docs/history.md, none missing, and
    every row names a test that exists (its file under tests/, the function where one is named) or says that the
    point is only stated, not done or open."""
    rows = _audit_sections()
    assert {k: [r[0] for r in v] for k, v in rows.items()} == AUDIT_ROWS
    files: dict[str, list[Path]] = {}
    for f in (ROOT / "tests").rglob("test_*.py"):
        files.setdefault(f.name, []).append(f)
    for audit, table in rows.items():
        for number, *_, checked in table:
            named = _tests_named(checked)
            assert named or any(w in checked for w in ONLY_STATED), (audit, number, checked)
            for name, function in named:
                assert name in files, (audit, number, name)
                if function is not None:
                    source = "".join(f.read_text(encoding="utf-8") for f in files[name])
                    assert f"def {function}" in source, (audit, number, name, function)
