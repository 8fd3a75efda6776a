"""The finish-or-play-on section: the boundary, the rule read off it and the regret per round on
small synthetic frames with known answers (worked examples and a coverage check with a pinned
seed), and a --quick run of the study that renders and states n and an interval for every estimate."""
from __future__ import annotations

import json
import math

import numpy as np
import pandas as pd
import pytest
from _pages import estimates

from gnoming_sim.analyses.finish_play_on.findings import (GAP_EDGES, assign, bins, boundary, ladder,
                                                          pretty, read_rule, regret_rows, verdicts, with_holm)
from gnoming_sim.stats import Estimate
from gnoming_sim.analyses.framework.design import SECOND, STRONG
from gnoming_sim.analyses.finish_play_on.design import RUNGS


def _cells(values, edges=(-5, 0, 5)):
    """Gap bins whose finish - play on estimates are ``values`` (mean, half-width)."""
    return [{"bin": f"{lo}..{hi}", "lo": lo, "hi": hi, "diff": Estimate(m, m - h, m + h, 50)}
            for (lo, hi), (m, h) in zip(bins(edges), values)]


# ----------------------------------------------------------------- bins
def test_bins_are_integer_and_cover_every_gap():
    spans = bins(GAP_EDGES)
    assert spans[0] == (-math.inf, -10) and spans[1] == (-9, -5) and spans[-1] == (21, math.inf)
    gaps = np.arange(-40, 41)
    idx = assign(gaps, GAP_EDGES)
    for g, i in zip(gaps, idx):
        lo, hi = spans[i]
        assert lo <= g <= hi
    assert pretty("-9..-5") == "\u22129 to \u22125" and pretty("<=-10") == "\u2264 \u221210"


# ----------------------------------------------------------------- the rule
def test_a_clear_boundary_is_read_as_a_rule():
    rule = read_rule(_cells([(-3, 1), (-1, 0.5), (2, 1), (5, 1)]))
    assert rule["clear"] and rule["finish_at_most"] == 0 and rule["play_on_above"] == 0
    assert rule["text"] == "finish when your visible score is at most the best rival's; play on above it"
    rule = read_rule(_cells([(-3, 1), (1, 0.5), (2, 1), (5, 1)]))
    assert rule["clear"] and rule["finish_at_most"] == -5 and rule["play_on_above"] == -5
    assert "at most the best rival's \u2212 5" in rule["text"]


def test_a_straddling_interval_gives_no_clear_rule():
    rule = read_rule(_cells([(-3, 1), (0.4, 1), (2, 1), (5, 1)]))
    assert not rule["clear"] and rule["straddle"] == ["-4..0"]
    assert rule["text"].startswith("no clear rule: the interval straddles 0 at gap \u22124 to 0")
    assert "finish when your visible score is at most the best rival's \u2212 5" in rule["text"]
    assert "play on when it is above the best rival's" in rule["text"]
    assert read_rule(_cells([(0.1, 1)] * 4))["text"].startswith("no clear rule")
    assert read_rule([])["text"].startswith("no clear rule")


def test_the_win_criterion_reads_the_other_way_round():
    # chance of winning: finishing pays where finish - play on is above 0
    cells = [{**c, "win": Estimate(-c["diff"].mean, -c["diff"].hi, -c["diff"].lo, 50)}
             for c in _cells([(-3, 1), (-1, 0.5), (2, 1), (5, 1)])]
    assert read_rule(cells, "win", True) == read_rule(cells, "diff", False)
    assert read_rule(cells, "win", False)["text"].startswith("no clear rule")


def test_one_sided_boundaries_say_so():
    rule = read_rule(_cells([(2, 1), (3, 1), (4, 1), (5, 1)]))
    assert rule["clear"] and rule["finish_at_most"] is None and rule["play_on_above"] is None
    assert rule["text"].startswith("play on: finishing does not pay in any gap bin sampled (any gap)")
    rule = read_rule(_cells([(-2, 1), (-3, 1)], edges=(0,))[:2])
    assert rule["clear"] and rule["text"].startswith("finish: finishing pays in every gap bin")
    mixed = read_rule(_cells([(-2, 1), (3, 1), (-4, 1), (5, 1)]))
    assert not mixed["clear"] and "change sign more than once" in mixed["text"]


# ----------------------------------------------------------------- the boundary
def _frame(rng, players=3, per_bin=40, means=(-4.0, -2.0, 1.0, 3.0), sd=2.0):
    rows = []
    for (lo, hi), mu in zip(bins((-5, 0, 5)), means):
        lo, hi = max(lo, -15), min(hi, 15)
        for _ in range(per_bin):
            d = mu + rng.normal(0, sd)
            rows.append({"players": players, "gap": int(rng.integers(lo, hi + 1)), "diff": d,
                         "finish_pays": d < 0, "preset_finished": bool(rng.random() < 0.5)})
    return pd.DataFrame(rows)


def test_boundary_means_counts_and_shares_are_the_bin_statistics():
    frame = _frame(np.random.default_rng(1))
    cells = boundary(frame, "gap", (-5, 0, 5), min_n=10)
    assert [c["bin"] for c in cells] == ["<=-5", "-4..0", "1..5", ">=6"]
    for c in cells:
        rows = frame[(frame["gap"] >= c["lo"]) & (frame["gap"] <= c["hi"])]
        assert c["n"] == len(rows) == 40
        assert math.isclose(c["diff"].mean, rows["diff"].mean())
        assert math.isclose(c["pays"].mean, rows["finish_pays"].mean())
        assert c["diff"].lo < c["diff"].mean < c["diff"].hi
    assert boundary(frame, "gap", (-5, 0, 5), min_n=41) == []


def test_boundary_intervals_cover_the_true_bin_means():
    rng = np.random.default_rng(7)   # pinned: 200 data sets x 4 bins; 95% nominal, accept 92..98%
    means = (-4.0, -2.0, 1.0, 3.0)
    hits = 0
    for _ in range(200):
        cells = boundary(_frame(rng, per_bin=30, means=means), "gap", (-5, 0, 5), min_n=2)
        hits += sum(c["diff"].lo <= mu <= c["diff"].hi for c, mu in zip(cells, means))
    assert 0.92 <= hits / 800 <= 0.98


def test_the_rule_of_a_synthetic_boundary_is_the_true_one():
    frame = _frame(np.random.default_rng(3), per_bin=200, means=(-4.0, -2.0, 2.0, 4.0), sd=3.0)
    rule = read_rule(boundary(frame, "gap", (-5, 0, 5), min_n=10))
    assert rule["clear"] and rule["finish_at_most"] == 0


# ----------------------------------------------------------------- the fitted boundary
def _ladder_frame(rng, n=400, root=2.0):
    gap = rng.integers(-12, 16, n)
    fd = rng.integers(1, 5, n)
    base = 0.015 * (root - gap) + 0.01 * (fd - fd.mean())
    out = {"players": np.full(n, 4), "gap": gap, "game": np.arange(n), "others_face_down_min": fd, "chances": rng.integers(1, 6, n),
           "preset": "greedy", "preset_finished": rng.random(n) < 0.5, "rollout_finishes": rng.random(n) < 0.5}
    for k, r in enumerate(RUNGS):
        out[f"win_{r}"] = base + 0.01 * k + rng.normal(0, 0.05, n)
        out[f"win_{r}_se"] = np.full(n, 0.03)
        out[f"margin_{r}"] = 10 * out[f"win_{r}"]
        out[f"points_{r}"] = -10 * out[f"win_{r}"]
        out[f"regret_{r}"] = np.abs(rng.normal(0, 0.02, n))
        out[f"n_{r}"] = np.full(n, 24)
    return pd.DataFrame(out)


def test_ladder_has_three_rungs_paired_differences_and_both_weightings():
    frame = _ladder_frame(np.random.default_rng(6))
    lad = ladder(frame)
    for crit in ("win", "margin", "points"):
        assert set(lad[crit]["by_rung"]) == set(RUNGS)
        assert set(lad[crit]["differences"]) == {f"{SECOND}-mix", f"{STRONG}-mix", f"{STRONG}-{SECOND}"}
        d = lad[crit]["differences"][f"{STRONG}-mix"]
        assert math.isclose(d.mean, lad[crit]["by_rung"][STRONG].mean - lad[crit]["by_rung"]["mix"].mean)
        # paired per decision: far narrower than the difference of two unpaired means
        assert d.half_width < 0.5 * (lad[crit]["by_rung"][STRONG].half_width + lad[crit]["by_rung"]["mix"].half_width)
    w = frame["chances"].to_numpy()
    assert math.isclose(lad["win"]["by_chance"][STRONG].mean, float((w * frame[f"win_{STRONG}"]).sum() / w.sum()))


def test_verdicts_count_each_decision_by_its_own_interval():
    v = verdicts([0.2, -0.2, 0.01, 0.0], [0.05, 0.05, 0.05, 0.0], [24, 24, 24, 24])
    assert v["better"].mean == 0.25 and v["worse"].mean == 0.25 and v["indistinguishable"].mean == 0.5
    assert v["ties"].mean == 0.25


def test_holm_is_applied_over_all_gap_bins():
    # one bin at z = 2.3 is "significant" on its own; among 20 bins Holm keeps only the clear one
    cells = [{"win": Estimate(0.023, 0.023 - 0.0196, 0.023 + 0.0196, 50)}]
    cells += [{"win": Estimate(0.0, -0.02, 0.02, 50)} for _ in range(18)]
    cells += [{"win": Estimate(-0.2, -0.22, -0.18, 50)}]
    marked = with_holm(cells)
    assert marked[0]["holm"] == "" and marked[-1]["holm"] == "play on"
    assert with_holm(cells[:1])[0]["holm"] == "finish"


def test_regret_per_decision_has_bootstrap_intervals():
    frame = _ladder_frame(np.random.default_rng(8))
    rows = regret_rows(frame, np.random.default_rng(0))
    cell = next(r for r in rows if r["preset"] == "greedy" and r["players"] == 0)
    e = cell["per_decision_win"]
    assert math.isclose(e.mean, frame[f"regret_{STRONG}"].mean()) and e.lo < e.mean < e.hi and e.n == len(frame)


# ----------------------------------------------------------------- the design
def test_the_design_plays_every_preset_at_every_size_and_caps_games():
    from gnoming_sim.analyses.finish_play_on import FinishPlayOn
    from gnoming_sim.analyses.framework.study import Context

    study = FinishPlayOn()
    tables = study.design(Context())
    assert {(t.seats[0], t.players) for t in tables} == {
        (name, p) for name in ("greedy", "builder", "rusher", "cautious", "expert") for p in (3, 4, 5, 6)}
    assert all(t.games == study.default_games and set(t.seats) == {t.seats[0]} for t in tables)
    assert study.cell_games(Context(games=20_000)) == study.max_games
    assert {t.games for t in study.design(Context(games=20_000))} == {study.max_games}
    assert {t.games for t in study.design(Context(quick=True))} == {study.quick_games}


# ----------------------------------------------------------------- a quick run
@pytest.fixture(scope="module")
def quick(tmp_path_factory):
    from gnoming_sim.analyses.finish_play_on import FinishPlayOn
    from gnoming_sim.analyses.report import build_report

    out = tmp_path_factory.mktemp("finish")
    summary = build_report(out, quick=True, seed=3, studies=(FinishPlayOn(),))
    return out, summary


@pytest.mark.slow   # plays and rolls out a quick study (seconds once compiled)
def test_quick_study_renders_and_states_its_estimates(quick):
    out, summary = quick
    study = summary["finish_play_on"]
    assert study["base_policy"] == STRONG and study["decisions"] > 10
    assert set(study["rules"]) == {"3", "4", "5", "6"}
    for both in study["rules"].values():
        for rule in (both["win"], both["points"]):
            assert rule["text"] and isinstance(rule["clear"], bool)
    found = list(estimates(study))
    assert len(found) > 20
    for path, e in found:
        lo, hi = e["ci95"]
        assert all(math.isfinite(v) for v in (e["mean"], lo, hi)) and lo <= e["mean"] <= hi, path
        assert isinstance(e["n"], int) and e["n"] > 0, path
    for name in ("greedy", "builder", "rusher", "cautious", "expert"):
        assert name in study["regret_per_decision"] and f"{name}.3" in study["regret_per_decision"]
    for p in ("3", "4", "5", "6"):
        b = study["boundary"][p]
        assert b is None or (b["n"] > 0 and "model" in b and len(b["ci95"]) == 2)
    html = (out / "index.html").read_text(encoding="utf-8")
    assert 'id="finish-play-on"' in html and "The boundary per table size" in html
    for fig in ("boundary", "by-score", "hidden", "regret"):
        assert (out / f"finish-play-on-{fig}.png").stat().st_size > 5000
    assert json.loads((out / "summary.json").read_text())["finish_play_on"]["rules"] == study["rules"]


@pytest.mark.slow
def test_quick_study_is_reproducible_from_the_seed_and_the_same_in_worker_processes(quick, tmp_path, monkeypatch):
    from gnoming_sim.analyses.finish_play_on import FinishPlayOn, design
    from gnoming_sim.analyses.report import build_report

    # a full report evaluates the tables' decisions in worker processes; a preview is too small for them
    assert sum(t.games for t in design.tables(FinishPlayOn.quick_games)) < design.PROCESS_MIN_GAMES
    monkeypatch.setattr(design, "PROCESS_MIN_GAMES", 0)
    again = build_report(tmp_path / "again", quick=True, seed=3, threads=2, studies=(FinishPlayOn(),))
    assert again["finish_play_on"] == quick[1]["finish_play_on"]


@pytest.mark.slow
def test_quick_study_states_estimands_along_the_ladder_and_answers():
    from gnoming_sim.analyses.finish_play_on import FinishPlayOn
    from gnoming_sim.analyses.framework.study import Context, play_study

    run = play_study(FinishPlayOn(), Context(quick=True, seed=3))
    fin = run.result.estimands["finishing"]
    for measure in ("win_chance", "margin"):
        assert set(fin[measure]["players"]) == set(RUNGS)
        assert set(fin[measure]["differences"]) == {f"{SECOND}-mix", f"{STRONG}-mix", f"{STRONG}-{SECOND}"}
        for e in (*fin[measure]["players"].values(), *fin[measure]["differences"].values()):
            assert e["n"] == run.result.summary["decisions"] and e["ci95"][0] <= e["mean"] <= e["ci95"][1]
    for a in run.result.answers:
        assert "{value}" in a.sentence and a.holds_under and 30 <= a.rank <= 60
    for p in ("3", "4", "5", "6"):
        assert p in run.result.summary["boundary"]


def test_crossing_differences_are_paired_over_the_same_decisions():
    from gnoming_sim.analyses.finish_play_on.findings import crossing_differences

    frame = _ladder_frame(np.random.default_rng(9), n=1500)
    moves = crossing_differences(frame, np.random.default_rng(1), replicates=300)
    # each rung is shifted by +0.01 in win chance: at slope -0.015 the crossing moves +0.67 points per rung
    e = moves[f"{STRONG}-{SECOND}"]
    assert e.lo < 0.01 / 0.015 < e.hi and e.n == 1500
    assert moves[f"{STRONG}-mix"].lo < 0.02 / 0.015 < moves[f"{STRONG}-mix"].hi


def test_the_points_rule_reads_bins_after_holm():
    from gnoming_sim.analyses.finish_play_on.findings import _holm_points

    # a bin at z = 2.3 alone says "play on"; among 20 such-sized bins Holm stretches it to straddle 0
    cells = [{**c, "players": 4} for c in _cells([(0.023, 0.0196)] + [(0.0, 0.02)] * 19,
                                                 edges=tuple(range(-18, 1)))]
    alone = read_rule([{**cells[0], "diff_holm": cells[0]["diff"]}], "diff_holm")
    assert alone["text"].startswith("play on")
    family = _holm_points(cells)
    assert family[0]["diff_holm"].lo <= 0 <= family[0]["diff_holm"].hi
    assert read_rule(family, "diff_holm")["text"].startswith("no clear rule")
