"""The player's rules: a rule chosen on one half of the decisions and valued on the other.

A planted best threshold is recovered with a regret of about 0; a family whose best choice flips with a feature
the simple rule ignores prints no single number; the value on fresh decisions is unbiased where the value on the
decisions the rule was chosen on flatters it (a calibration by simulation); the finishing rule and the rules'
sentences as the study writes them."""
from __future__ import annotations

import numpy as np
import pandas as pd
import pytest

from gnoming_sim.analyses.framework import finish_threshold as th
from gnoming_sim.analyses.rules import analysis as A
from gnoming_sim.analyses.rules import played as PL
from gnoming_sim.analyses.framework import rule_split as select


def _finishing(n: int, seed: int, effect) -> pd.DataFrame:
    """Synthetic finishing decisions: ``effect(gap, band)`` the true finish - play-on (probability); the observed
    value is a win credit difference in {-1, 0, 1} with that mean."""
    rng = np.random.default_rng(seed)
    gap = rng.integers(-20, 21, n)
    fd = rng.integers(1, 5, n)
    p = np.clip(effect(gap, fd), -0.9, 0.9)
    y = np.where(rng.random(n) < np.abs(p), np.sign(p), 0.0)
    return pd.DataFrame({"players": rng.integers(3, 7, n), "gap": gap, "others_face_down_min": fd,
                         "game": np.arange(n), "preset": "net", "win_net": y})


def test_a_planted_threshold_is_recovered_with_no_regret():
    dec = _finishing(8000, 1, lambda g, f: np.where(g <= 4, 0.25, -0.25))
    r = th.threshold_rule(dec)
    assert r["printed"] and r["shape"] == "one threshold"
    assert set(r["thresholds"].values()) == {4} and r["rule"] == "finish iff gap <= 4"
    assert abs(r["regret"]["mean"]) < 0.2 and r["regret"]["ci95"][1] < 0.2
    assert r["value"]["ci95"][0] > 0 and r["same_on_the_other_half"]


def test_a_family_with_no_good_rule_prints_no_single_number():
    # finishing pays a lot with the closest rival on 1 face-down card and costs as much with 3 or more, at every
    # gap: no threshold in the gap alone comes near the best rule by band
    dec = _finishing(8000, 2, lambda g, f: np.where(f == 1, 0.4, np.where(f >= 3, -0.4, 0.0)))
    r = th.threshold_rule(dec)
    assert not r["printed"] and r["regret"]["ci95"][0] > 0.2


def test_the_fresh_half_is_unbiased_where_the_same_half_flatters():
    # 30 rules, all truly worth 0: the best on the data it was chosen on looks good; on fresh decisions it is 0
    rng = np.random.default_rng(5)
    fresh, same = [], []
    for _ in range(300):
        gain = rng.normal(0.0, 5.0, (200, 30))
        half = np.arange(200) % 2 == 0
        fit = select.fresh_value(gain, np.zeros(200, dtype=int), half)
        fresh.append(fit.value.mean)
        same.append(select.same_data_value(gain, np.zeros(200, dtype=int)))
    fresh, same = np.array(fresh), np.array(same)
    se = fresh.std(ddof=1) / np.sqrt(fresh.size)
    assert abs(fresh.mean()) < 3 * se                  # unbiased
    assert same.mean() > 0.5 and same.mean() > fresh.mean() + 10 * se   # flattering: about E[max of 30] * 5/sqrt(200)


def test_the_split_is_by_game_and_stable():
    games = np.repeat(np.arange(50), 3)
    h = select.halves(games)
    assert all(len(set(h[games == g])) == 1 for g in range(50))   # a game's decisions on one side
    assert np.array_equal(h, select.halves(games)) and 10 < h[::3].sum() < 40


def test_choose_takes_the_best_column_per_group_and_ties_to_the_first():
    gain = np.array([[0.0, 1.0, 1.0], [0.0, 1.0, 1.0], [2.0, 0.0, 0.0], [2.0, 0.0, 0.0]])
    groups = np.array(["a", "a", "b", "b"], dtype=object)
    assert select.choose(gain, groups, np.ones(4, bool)) == {"a": 1, "b": 0}
    assert select.choose(gain, groups, np.ones(4, bool), prefer=[2, 1, 0]) == {"a": 2, "b": 0}


def test_a_threshold_plays_as_its_finish_cells():
    from gnoming_sim.kernel.policy import chart as C

    cells = A.finish_cells(4)
    assert len(cells) == C.N_FINISH_CELLS
    for g in range(C.N_GAP):            # bins < -10, -10..-6, -5..-1, 0..4 finish; 5..9, >= 10 play on
        want = C.A_FINISH if g <= 3 else C.A_PLAYON
        assert cells[C.finish_cell_of(g, 1, 1)] == want
    assert set(A.finish_cells("never").values()) == {C.A_PLAYON}
    assert set(A.finish_cells("always").values()) == {C.A_FINISH}


def test_the_rules_sentences_are_short_and_plain():
    e = {"key": "finish", "decision": "finish or play on", "players": [3, 4, 5, 6], "printed": True,
         "rule": A.finish_words({"3": 4, "4": 4, "5": 4, "6": 4}), "versus": "always play on",
         "value": {"mean": 1.81, "ci95": [1.48, 2.14], "n": 3939}}
    text = A.text_of(e)
    assert len(text.split()) <= A.MAX_WORDS and "+1.8 pp" in text and "at most 4" in text
    no = A.text_of({**e, "printed": False, "decision": "a hazard drawn blind", "regret": {"n": 300}})
    assert "no single rule" in no and len(no.split()) <= A.MAX_WORDS
    for word in ("interval", "significant", "regret", "p-value"):
        assert word not in text.lower() and word not in no.lower()


def test_agreement_is_either_interval_holding_the_other():
    a = {"mean": 1.0, "ci95": [0.5, 1.5]}
    assert PL.agrees(a, {"mean": 1.4, "ci95": [1.3, 1.5]}) is True
    assert PL.agrees(a, {"mean": 3.0, "ci95": [0.9, 4.0]}) is True
    assert PL.agrees(a, {"mean": 3.0, "ci95": [2.0, 4.0]}) is False
    assert PL.agrees(a, {"mean": float("nan"), "ci95": [0, 0]}) is None


def test_the_played_per_decision_is_the_ratio_of_sums():
    w = np.array([1.0, -1.0, 3.0, 0.0])
    c = np.array([1.0, 1.0, 2.0, 0.0])
    r = PL._ratio(w, c)
    assert r["mean"] == pytest.approx(3.0 / 4.0) and r["ci95"][0] < r["mean"] < r["ci95"][1] and r["n"] == 4


@pytest.mark.slow
def test_the_study_writes_the_rules_in_the_schema(tmp_path):
    """A --quick report of the study alone: one entry per decision in order, each with its value, regret, played
    gain, the decision-level estimate beside it and a sentence of at most 40 words; the CSV and the figure."""
    from gnoming_sim.analyses.report import build_report
    from gnoming_sim.analyses.rules import PlayerRules

    s = build_report(tmp_path / "r", quick=True, studies=[PlayerRules()])["player_rules"]
    assert s["base"] == "net" and s["tolerance_pp"] == 0.2
    assert [e["key"] for e in s["rules"]] == ["finish", "hazard", "take", "mulligan"]
    for e in s["rules"]:
        assert e["players"] == [3, 4, 5, 6] and len(e["text"].split()) <= A.MAX_WORDS
        for k in ("value", "regret"):
            assert e[k]["n"] > 100 and e[k]["ci95"][0] <= e[k]["mean"] <= e[k]["ci95"][1]
        if e["printed"]:
            assert e["played"]["n"] == 4 * 40 * (2 if e["key"] in ("hazard", "mulligan") else 1)
            assert e["agrees"] in (True, False, None) and "predicted_per_decision" in e
    assert (tmp_path / "r" / "player-rules-table.csv").is_file() and (tmp_path / "r" / "player-rules-value.png").is_file()


def test_the_finishing_rule_is_chosen_at_net_self_plays_chances_and_checked_at_the_presets():
    """The committed sets: net self-play's finishing chances choose the rule (the positions it is played at); the
    finishing study's decisions are its check, with the threshold chosen there."""
    from gnoming_sim.analyses.framework.study import DATA

    oracle = pd.concat([pd.read_parquet(DATA / "oracle" / f"{name}.parquet").assign(set=name)
                        for name in ("decisions", "finish")], ignore_index=True)
    net = A.net_finishing(oracle)
    assert len(net) == 2700 and set(net["players"]) == {3, 4, 5, 6} and net["win_net"].abs().max() <= 1.0
    presets = pd.read_csv(DATA / "finish-play-on-decisions.csv")
    entry, cells = A.finish_entry(presets, oracle)
    assert entry["decisions"].startswith("net self-play") and entry["value"]["n"] < len(net)   # the fresh half
    assert set(cells) == {3, 4, 5, 6} and entry["printed"] == (entry["regret"]["ci95"][1] < 0.2)
    there = entry["at_presets_self_play"]
    assert there["this_rule"]["value"]["n"] == len(presets) and there["rule_chosen_there"]["printed"]
    assert entry["predicted_per_decision"]["n"] > 30
