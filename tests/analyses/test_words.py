"""The words the studies say about their estimates: "holds under
learned and net" (converged) only by an equivalence test at the answer's target; a pooled figure stated per table size when the
sizes differ (Cochran's Q); house rules tested in one family, other-deck variants included; no "clear" in a
--quick preview.  Each test fails on the behaviour the audit found."""
from __future__ import annotations

from types import SimpleNamespace

import numpy as np

from gnoming_sim.analyses.framework.design import SECOND, STRONG, TOP_DIFFERENCE
from gnoming_sim.stats import Estimate
from gnoming_sim.analyses.framework.words import (CONVERGED, MOVES, NOT_SHOWN as NOT_CONVERGED, PREVIEW, UNTESTED,
                                                  as_preview, by_size, convergence, equivalence, holds_under,
                                                  size_clause, verdict_words)

BOTH = f"{SECOND} and {STRONG}: {CONVERGED}"     # how an answer that holds under both begins
from gnoming_sim.analyses.house_rules.study import _findings, _skill_finding, holm_family
from gnoming_sim.stats import DIFFERS, HOLDS, NOT_SHOWN, NOT_TESTED


def _old_settled(d: Estimate, target: float) -> bool:
    """The rule the studies used before: the interval includes 0 and is at most twice the target wide."""
    return bool(d.lo <= 0 <= d.hi and d.half_width <= 2 * target)


def test_the_audited_boundary_difference_does_not_hold():
    # the strongest rungs' crossing difference at 4 players, points of gap, target +-1 point
    # (its se, 1.15 points, gives the test no power at +-1: no label at all, the power said)
    move = Estimate(-1.70, -4.00, 0.52, 1976)
    assert equivalence(move, 1.0) == NOT_TESTED
    text = holds_under(equivalence(move, 1.0), move, 1.0, "score")
    assert not text.startswith(BOTH) and f"{UNTESTED} along the ladder (power 0% at \u00b11.0" in text and CONVERGED not in text


def test_the_audited_hazard_difference_does_not_hold_without_tost():
    # learned - expert cost in win chance, +0.70 [-0.64, +2.05] pp, target +-1 pp: the old rule said "settled"
    d = Estimate(0.0070, -0.0064, 0.0205, 5956)
    assert _old_settled(d, 0.01)
    assert equivalence(d, 0.01) == NOT_TESTED           # 0% power at +-1 pp with this se
    assert BOTH not in holds_under(equivalence(d, 0.01), d, 0.01, "dpct")


def test_holds_under_both_only_when_tost_passes():
    tight = Estimate(0.001, -0.002, 0.004, 10_000)
    assert equivalence(tight, 0.005) == HOLDS
    assert holds_under(HOLDS, tight, 0.005, "dpct").startswith(BOTH)
    apart = Estimate(0.0060, 0.0040, 0.0080, 100_000)   # excludes 0, and the test had the power to pass
    assert equivalence(apart, 0.005) == DIFFERS
    assert holds_under(DIFFERS, apart, 0.005, "dpct").startswith(f"{STRONG} only: {MOVES} ({SECOND} differs")
    assert equivalence(None, 0.005) is None


def test_convergence_says_what_the_equivalence_word_says_of_the_answer():
    assert [convergence(w) for w in (HOLDS, DIFFERS, NOT_SHOWN, NOT_TESTED, None)] == [
        CONVERGED, MOVES, NOT_CONVERGED, UNTESTED, None]
    assert TOP_DIFFERENCE == f"{STRONG}-{SECOND}" and STRONG != SECOND


MULLIGAN_LEARNED = {2: Estimate(-0.0235, -0.0362, -0.0109, 4249), 3: Estimate(0.0058, -0.0065, 0.0181, 4250),
                    4: Estimate(0.0221, 0.0100, 0.0343, 4249), 5: Estimate(0.0049, -0.0061, 0.0160, 4248),
                    6: Estimate(0.0175, 0.0076, 0.0275, 4249), 7: Estimate(0.0158, 0.0056, 0.0259, 4248)}


def test_the_audited_mulligan_answer_is_stated_per_table_size():
    reading = by_size(MULLIGAN_LEARNED)
    assert not reading["agree"] and reading["df"] == 5 and 34 < reading["q"] < 36
    clause = size_clause(reading, "dpct")
    assert "\u22122.4% at 2 players" in clause and "+2.2% at 4" in clause
    assert "no one table's answer" in clause


def test_sizes_that_agree_keep_the_pooled_answer():
    same = {p: Estimate(0.01, 0.0, 0.02, 4000) for p in range(2, 8)}
    assert by_size(same)["agree"] and size_clause(by_size(same), "dpct") == ""
    assert by_size({4: Estimate(0.01, 0.0, 0.02, 10)}) is None


def test_the_mulligan_answer_of_a_ladder_whose_sizes_differ_lists_them():
    from gnoming_sim.analyses.mulligan_value.findings import _answers as answers, _estimands as estimands

    def effects(e):
        return {"p": {"win": e, "margin": Estimate(-0.8, -1.0, -0.6, e.n)}}

    rung = {"all": effects(Estimate(0.0071, 0.0024, 0.0118, 25_493)),
            **{str(p): effects(e) for p, e in MULLIGAN_LEARNED.items()}}
    ladder = {SECOND: rung, STRONG: rung}
    # judged at every size: the win difference moves at 2 players, the margin agrees at all six;
    # each size's se small enough for the joint test's 80% power
    diffs = {TOP_DIFFERENCE: {"all": {"win": Estimate(0.0, -0.001, 0.001, 25_493),
                                      "margin": Estimate(0.0, -0.05, 0.05, 25_493)},
                              **{str(p): {"win": Estimate(0.006, 0.0035, 0.0085, 4250) if p == 2 else
                                          Estimate(0.0, -0.0025, 0.0025, 4250),
                                          "margin": Estimate(0.0, -0.05, 0.05, 4250)} for p in range(2, 8)}}}
    est = estimands(ladder, diffs)
    assert est["mulligan"]["win_chance"]["settled"] == DIFFERS      # the pooled "all" would have held
    assert est["mulligan"]["win_chance"]["equivalence_power"] >= 0.8
    assert est["mulligan"]["win_chance"]["by_table_size"]["agree"] is False
    assert est["mulligan"]["margin"]["settled"] == HOLDS
    win, margin = answers(ladder, est, diffs)
    assert "at 2 players" in win.sentence and "no one table's answer" in win.sentence
    assert win.holds_under.startswith(f"{STRONG} only") and win.convergence == MOVES
    assert margin.holds_under.startswith(BOTH) and "no one table's answer" not in margin.sentence
    assert margin.convergence == CONVERGED


def _row(name, change, paired=True, exercised=True, k=1):
    return {"variant": name, "paired": paired, "exercised": exercised, "index": k,
            "changes": {"skill_gap": change, "turns": change}}


def _house_rows():
    """The committed report's skill-gap changes (the mix): only the other-deck variant moves it."""
    return [{"variant": "baseline", "paired": None, "exercised": True, "index": 0, "changes": {}},
            _row("no bouncing", Estimate(0.0085, -0.0097, 0.0267, 8000), k=1),
            _row("hazards unplaceable", Estimate(0.001, -0.00145, 0.00345, 8000), k=2),
            _row("no reshuffle", Estimate(0.0, 0.0, 0.0, 8000), exercised=False, k=3),
            _row("fixed start seat", Estimate(-0.0058, -0.0235, 0.0118, 8000), k=4),
            _row("2x mulligans and hazards", Estimate(0.0351, 0.0131, 0.0570, 8000), paired=False, k=5)]


def test_the_house_rules_family_includes_the_other_deck_variant():
    keep = holm_family(_house_rows(), "skill_gap")
    assert "2x mulligans and hazards" in keep and len(keep) == 5
    assert keep["2x mulligans and hazards"] and not keep["no bouncing"]
    finding = _skill_finding(_house_rows(), None, quick=False)
    assert finding.sentence.startswith("'2x mulligans and hazards' changes the skill gap")
    assert "No house rule" not in finding.sentence and finding.estimate.mean == 0.0351


def test_a_quick_report_says_preview_and_never_clear():
    rows = _house_rows()
    skill = _skill_finding(rows, None, quick=True)
    assert PREVIEW in skill.sentence and not verdict_words(skill.sentence)
    games = 50
    values = [SimpleNamespace(turns=np.full(games, 27.0) + i) for i in range(len(rows))]
    c = SimpleNamespace(values=values)
    for f in _findings({"mix": rows, STRONG: rows}, {"mix": c, STRONG: c}, quick=True):
        assert PREVIEW in f.sentence and not verdict_words(f.sentence), f.sentence
    full = _findings({"mix": rows, STRONG: rows}, {"mix": c, STRONG: c}, quick=False)
    assert any(verdict_words(f.sentence) for f in full)        # the full report does give verdicts
    shown = as_preview({"display": "x", "key": "k"})
    assert shown["preview"] and shown["display"].startswith("Preview at quick sizes")
    assert verdict_words("clear after Holm; Clearly; settled") == ["clear", "Clearly", "settled"]


def test_the_hazard_deny_verdict_reads_the_chance_of_winning_not_own_score():
    """Keeping a hazard to deny flips is judged by the win chance.  A cell whose own score
    clearly falls (better points) while its chance of winning clearly falls too is a cost, not a gain."""
    from gnoming_sim.stats import Estimate
    from gnoming_sim.analyses.hazard_risk.findings import _verdict

    row = {"players": 4, "level": 3.0, "score": Estimate(-2.0, -2.5, -1.5, 900),
           "win": Estimate(-0.05, -0.07, -0.03, 900)}
    v = _verdict([dict(row, level=0.0), row])
    assert v["cells"] == 1 and not v["pays"] and not v["pays_holm"]
    assert len(v["costs"]) == 1 and len(v["costs_holm"]) == 1


def test_a_house_rule_has_converged_only_where_both_rungs_change_it_alike():
    """A variant's change in round length under net minus its change under learned, game by game on the
    same games, judged by TOST: equal changes converge, a 3-turn gap still moves.  At the mix's
    +-0.35 turns (a 0.6-turn gap, which the old +-1 turn called converged, still moves), and a variant one rung
    plays with every round unchanged (learned ignores the early-finish bonus) is not tested."""
    from gnoming_sim.analyses.house_rules.study import ladder_convergence as house_convergence

    rng = np.random.default_rng(34)
    games = 1200
    base = 27 + rng.normal(0, 3, games)

    def arm(shifts, unmoved=()):
        values = [SimpleNamespace(turns=base + s + rng.normal(0, 0.5, games)) for s in (0.0, *shifts)]
        for k in unmoved:
            values[k] = values[0]
        variants = [SimpleNamespace(name=n, same_deals_as=lambda other: True)
                    for n in ("baseline", "same", "apart", "a little apart", "ignored")]
        return SimpleNamespace(games=games, values=values, variants=variants)

    rows = house_convergence({SECOND: arm((2.0, 2.0, 2.0, 0.0), unmoved=(4,)), STRONG: arm((2.0, 5.0, 2.6, 0.6)),
                              "mix": None})
    by = {r["variant"]: r for r in rows}
    assert by["same"]["convergence"] == CONVERGED and abs(by["same"]["difference"].mean) < 0.2
    assert by["same"]["power"] >= 0.8 and "power 100% at" in by["same"]["why"]
    assert by["apart"]["convergence"] == MOVES and by["apart"]["difference"].lo > 2.5
    assert by["a little apart"]["convergence"] == MOVES and 0.4 < by["a little apart"]["difference"].mean < 0.8
    assert by["ignored"]["convergence"] == UNTESTED and f"{SECOND} plays every round" in by["ignored"]["why"]
    assert house_convergence({"mix": None, STRONG: arm((1.0, 1.0, 1.0, 1.0))}) == []     # one rung: nothing to judge
