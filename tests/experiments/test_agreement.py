"""The agreement table: the verdict per decision (the card's option best, within its interval,
or separated worse) and its loss, by hand; the weighted, game-clustered share and mean loss, by hand; the held-out
halves; the card asked at real positions; and the study's section on a tiny decision set."""
from __future__ import annotations

import json
import math

import numpy as np
import pandas as pd
import pytest

from gnoming_sim.experiments import agreement
from gnoming_sim.game.position import Option
from gnoming_sim.stats import Z95, wilson

OPTS = [Option("draw", "draw pile", 0, -1), Option("pile0", "pile 0 (5)", 1, -1)]


def _view(src):
    return {"table": "source", "cells": [], "choice": (src, -1)}


def test_the_card_on_the_best_option_agrees_and_loses_nothing():
    v = agreement.verdict(_view(0), OPTS, ["draw", "pile0"], [40.0, 35.0], [0.0, 1.0])
    assert v == {"card_key": "draw", "best_key": "draw", "agrees": True, "loss_pp": 0.0, "half_width_pp": 0.0}


def test_the_card_within_the_interval_agrees_and_its_loss_is_the_gap():
    # pile0 is 1 pp behind with se 1: the interval [1 - 1.96, 1 + 1.96] holds 0
    v = agreement.verdict(_view(1), OPTS, ["draw", "pile0"], [40.0, 39.0], [0.0, 1.0])
    assert v["card_key"] == "pile0" and v["best_key"] == "draw"
    assert v["agrees"] is True and v["loss_pp"] == pytest.approx(1.0) and v["half_width_pp"] == pytest.approx(Z95)


def test_the_card_separated_worse_disagrees_and_loses_the_gap():
    # 5 pp behind with se 1: [3.04, 6.96] excludes 0
    v = agreement.verdict(_view(1), OPTS, ["draw", "pile0"], [40.0, 35.0], [0.0, 1.0])
    assert v["agrees"] is False and v["loss_pp"] == pytest.approx(5.0)


def test_the_card_behind_the_best_on_the_other_side_of_the_interval_edge():
    # 2.0 pp behind, se 1: lo = 2 - 1.96 = 0.04 > 0, separated; se 1.1: lo < 0, not
    assert agreement.verdict(_view(1), OPTS, ["draw", "pile0"], [40.0, 38.0], [0.0, 1.0])["agrees"] is False
    assert agreement.verdict(_view(1), OPTS, ["draw", "pile0"], [40.0, 38.0], [0.0, 1.1])["agrees"] is True


def test_an_option_equal_to_the_best_in_every_rollout_agrees():
    v = agreement.verdict(_view(1), OPTS, ["draw", "pile0"], [40.0, 40.0], [0.0, 0.0])
    assert v["agrees"] is True and v["loss_pp"] == 0.0


def _answers(agrees, loss, weight=None, games=None, kind="take"):
    n = len(agrees)
    return pd.DataFrame({"decision": range(n), "kind": kind, "players": 4,
                         "game": range(n) if games is None else games,
                         "weight": np.ones(n) if weight is None else weight, "card_key": "x", "best_key": "x",
                         "agrees": agrees, "loss_pp": loss})


def test_share_and_mean_loss_by_hand():
    t = agreement.table(_answers([True, True, False], [0.0, 1.0, 5.0]))
    row = t["by_kind"][0]
    assert row["kind"] == "take or draw" and row["covered"] == 3
    # share 2/3; its clustered se^2 = G/(G-1) * sum((y - p)^2) / n^2 = 1.5 * (6/9) / 9 = 1/9: n_eff = (2/9)/(1/9) = 2
    assert row["agree"]["p"] == pytest.approx(2 / 3)
    assert row["agree"]["n_eff"] == pytest.approx(2.0)
    _, lo, hi = wilson(4 / 3, 2)
    assert row["agree"]["ci95"] == pytest.approx([lo, hi])
    # mean loss 2; se^2 = 1.5 * (4 + 1 + 9) / 9
    se = math.sqrt(1.5 * 14 / 9)
    assert row["mean_loss"]["mean"] == pytest.approx(2.0)
    assert row["mean_loss"]["ci95"] == pytest.approx([2 - Z95 * se, 2 + Z95 * se])
    assert row["met"] is False and t["overall"]["covered"] == 3
    assert row["plays_best"]["p"] == 1.0   # the helper's card and best keys are the same


def test_weights_restore_the_natural_mix_and_games_cluster():
    a = _answers([True, False], [0.0, 2.0], weight=[3.0, 1.0])
    t = agreement.table(a)
    assert t["overall"]["agree"]["p"] == pytest.approx(0.75)
    assert t["overall"]["mean_loss"]["mean"] == pytest.approx(0.5)
    # two decisions of one game are one cluster: no spread between clusters is left to measure
    one = agreement.table(_answers([True, False, True, False], [0.0, 2.0, 0.0, 2.0], games=[1, 1, 2, 2]))
    assert one["overall"]["mean_loss"]["ci95"] == pytest.approx([1.0, 1.0])


def test_targets_met_only_when_both_are():
    good = agreement.table(_answers([True] * 9 + [False], [0.0] * 9 + [2.0]))["overall"]   # 90%, 0.2 pp
    assert good["met"] is True
    worse = agreement.table(_answers([True] * 9 + [False], [0.0] * 9 + [4.0]))["overall"]  # 90%, 0.4 pp
    assert worse["met"] is False


def test_held_out_halves_choose_on_a_and_measure_on_b():
    h = agreement.held_out("b", ["a", "b"], [50.0, 49.0], [0.0, 0.2], [48.0, 49.0])
    assert h == {"agrees_ho": False, "loss_ho_pp": pytest.approx(-1.0)}   # separated on A; B finds it 1 pp better
    h = agreement.held_out("a", ["a", "b"], [50.0, 49.0], [0.0, 0.2], [48.0, 49.0])
    assert h == {"agrees_ho": True, "loss_ho_pp": 0.0}


def test_a_seed_the_card_was_derived_with_is_refused():
    agreement.check_held_out(7, [1, 2])
    with pytest.raises(ValueError, match="not held out"):
        agreement.check_held_out(2, [1, 2])


def test_the_card_seeds_are_read_from_its_provenance():
    provenance = {"seed": 1, "runs": [{"seed": 3}], "seeds": [4, 5], "rollout_seed": 9, "games": 7}
    assert sorted(agreement._seeds(provenance)) == [1, 3, 4, 5, 9]


# ------------------------------------------------------------------ real positions (the committed card asked)
# one decision of each kind from net self-play (3 players); the card's answer is asked at test time and the
# option values made up around it: the card best in the first three, separated 10 pp worse in the last two
POSITIONS = {
    "take": "g1:CFAqAolAjA3FcAcAYCgAAAAFIMCGAFKU-dw",
    "place": "g1:CgAYgJXahudBTAD1CPARFGABAEB1RVaWrC6J",
    "finish": "g1:CFAIwJoRBwC5kRJRMRISompgpNRsZMwN6KrvADQK",
    "hazard": "g1:CFAdAkihx2wjm7gTgbi7urhSnSwCqdGmJYqw0jgD",
    "mulligan": "g1:CCsKwIwsEAlwKqqkqQIwzMowHKnKviiXpmeIoyPD0PaJ",
}


def tiny_set() -> tuple[pd.DataFrame, list[str]]:
    from gnoming_sim.search.card import card_view
    from gnoming_sim.search.options import legal_options
    from gnoming_sim.game.position_id import decode

    rows, card_keys = [], []
    for i, (kind, pid) in enumerate(POSITIONS.items()):
        pos = decode(pid)
        opts = legal_options(pos)
        keys = [o.key for o in opts]
        src, q = card_view(pos)["choice"]   # the card's answer as an option: its source, and its position if placed
        ck = next(o.key for o in opts if (o.src, o.pos) == (src, q) or (q < 0 and o.src == src))
        card_keys.append(ck)
        worse = i >= 3
        mean = [30.0 if k != ck else (20.0 if worse else 40.0) for k in keys]
        rows.append({"kind": kind, "players": pos.players, "game": i, "position_id": pid, "keys": keys,
                     "mean": mean, "diff_se": [0.0 if m == max(mean) else 1.0 for m in mean], "weight": 1.0,
                     "rollouts": 64})
    return pd.DataFrame(rows), card_keys


def test_the_card_is_asked_at_each_position_and_its_kind_follows_card_view():
    frame, card_keys = tiny_set()
    ans = agreement.card_answers(frame)
    assert ans["kind"].tolist() == list(POSITIONS)
    assert ans["card_key"].tolist() == card_keys
    assert ans["agrees"].tolist() == [True, True, True, False, False]
    assert ans["loss_pp"].tolist() == pytest.approx([0, 0, 0, 10.0, 10.0])


def test_the_study_section_on_a_tiny_set(tmp_path):
    from gnoming_sim.analyses.agreement import CardAgreement
    from gnoming_sim.analyses.framework.render import environment
    from gnoming_sim.analyses.framework.study import Context

    frame, _ = tiny_set()
    path = tmp_path / "decisions.parquet"
    frame.to_parquet(path)
    path.with_suffix(".json").write_text(json.dumps({"seed": 5020261204, "rollouts": 64}))
    study, ctx = CardAgreement(path), Context()
    res = study.conclude(ctx, [], study.play(ctx, 0, [], lambda n: None))
    s = res.summary
    assert s["seed"] == 5020261204 and s["rollouts"] == 64 and s["covered"] == 5
    assert [r["kind"] for r in s["by_kind"]] == list(agreement.KINDS.values())
    assert s["overall"]["agree"]["p"] == pytest.approx(0.6) and s["overall"]["mean_loss"]["mean"] == pytest.approx(4.0)
    assert s["met"] is False and s["card"].startswith("card_cells.json ")
    assert s["overall"]["plays_best"]["p"] == pytest.approx(0.6)
    assert s["median_half_width_pp"] == pytest.approx(Z95)   # the two decisions where the card is not the best
    assert "not stored" in s["held_out"]
    table = res.frames["table"]
    assert table["decision"].tolist()[-1] == "every covered decision" and len(table) == 6
    html = environment().get_template(study.template).render(study=study, run=None, figures={},
                                                             precision=res.precision, **res.context)
    body = html.split("<tbody>")[1].split("</tbody>")[0]
    assert body.count("<tr>") == 6 and body.count("<td>") == 6 * 5   # decision, n, first choice, the two bounds
    assert body.count("&mdash;") == 6   # no fresh values: no lower bound
    assert "plays the evaluator's first choice 60.0%" in " ".join(html.split()) and "(upper bound)" in html
    assert [f.name for f in res.figures] == ["by-kind"]


def test_the_study_says_so_without_a_decision_set(tmp_path):
    from gnoming_sim.analyses.agreement import CardAgreement
    from gnoming_sim.analyses.framework.study import Context

    study, ctx = CardAgreement(tmp_path / "none.parquet"), Context()
    res = study.conclude(ctx, [], study.play(ctx, 0, [], lambda n: None))
    assert "not in this checkout" in res.summary["skipped"]


def test_a_decision_set_seed_used_by_the_card_is_refused(tmp_path):
    from gnoming_sim.analyses.agreement import CardAgreement
    from gnoming_sim.analyses.framework.study import Context

    frame, _ = tiny_set()
    path = tmp_path / "decisions.parquet"
    frame.to_parquet(path)
    seeds = agreement.card_provenance()["seeds"]
    path.with_suffix(".json").write_text(json.dumps({"seed": seeds[0], "rollouts": 64}))
    study, ctx = CardAgreement(path), Context()
    with pytest.raises(ValueError, match="not held out"):
        study.conclude(ctx, [], study.play(ctx, 0, [], lambda n: None))


# ------------------------------------------------------------------ the held-out loss on fresh rollouts
def _fresh_of(ans, loss):
    return pd.DataFrame({"decision": ans["decision"], "position_id": ans["position_id"], "best_key": ans["best_key"],
                         "card_key": ans["card_key"], "loss_fresh_pp": loss, "se_pp": 0.0, "rollouts": 8})


def test_a_fresh_table_is_used_only_for_the_same_card_and_set():
    from gnoming_sim.experiments.agreement import matched

    frame, _ = tiny_set()
    ans = agreement.card_answers(frame)
    fresh = _fresh_of(ans, [0.0, 0.0, 0.0, 4.0, -1.0])
    assert matched(ans, fresh)["loss_ho_pp"].tolist() == [0.0, 0.0, 0.0, 4.0, -1.0]
    # se 0: the 4 pp loss is separated (disagrees), the -1 (the card better) is not worse
    assert matched(ans, fresh)["agrees_ho"].tolist() == [True, True, True, False, True]
    assert matched(ans, fresh.assign(se_pp=2.5))["agrees_ho"].tolist() == [True] * 5   # 4 - 1.96 * 2.5 < 0
    other = fresh.assign(card_key=["x"] * 5)   # the same decisions, another card's answers
    assert matched(ans, other) is None and matched(ans, fresh.iloc[:4]) is None and matched(ans, None) is None
    s = agreement.agreement(frame, fresh=fresh, seed=5020261204)
    assert s["held_out_kind"] == "fresh"
    assert s["overall"]["mean_loss"]["mean"] == pytest.approx(4.0)            # 10 + 10 over 5, same rollouts
    assert s["overall"]["held_out"]["mean_loss"]["mean"] == pytest.approx(0.6)   # (4 - 1) / 5, fresh
    assert s["overall"]["held_out"]["agree"]["p"] == pytest.approx(0.8)
    assert s["met"] is False and s["met_held_out"] is False                  # 60% (80%) agreement
    assert agreement.agreement(frame, fresh=other)["held_out_kind"] == "stale"
    part = frame.iloc[[1, 3]]   # a subsample keeps its decisions' names (the set's row labels)
    assert agreement.agreement(part, fresh=fresh)["held_out_kind"] == "fresh"
    assert agreement.card_answers(part)["decision"].tolist() == [1, 3]


@pytest.mark.slow   # rolls out (the rollout kernel loads from the cache)
def test_fresh_losses_roll_out_only_where_the_card_is_not_the_best():
    from gnoming_sim.experiments.agreement_fresh import fresh_losses, fresh_seed
    from gnoming_sim.search.evaluator import Settings, win_samples
    from gnoming_sim.game.position_id import decode

    frame, _ = tiny_set()
    ans = agreement.card_answers(frame)
    f = fresh_losses(ans, 5020261204, rollouts=8)
    assert f["rollouts"].tolist() == [0, 0, 0, 8, 8] and f["loss_fresh_pp"].iloc[:3].tolist() == [0, 0, 0]
    r = ans.iloc[3]
    _, win = win_samples(decode(r.position_id), Settings(budget=8, seed=fresh_seed(5020261204, int(r.decision))),
                         [r.best_key, r.card_key])
    assert f["loss_fresh_pp"].iloc[3] == pytest.approx(100 * (win[:, 0] - win[:, 1]).mean())
    assert fresh_seed(1, 3) != fresh_seed(1, 4) and fresh_seed(1, 3) != fresh_seed(2, 3)


def test_the_study_shows_the_held_out_loss_beside(tmp_path):
    from gnoming_sim.analyses.agreement import CardAgreement
    from gnoming_sim.analyses.framework.render import environment
    from gnoming_sim.analyses.framework.study import Context

    frame, _ = tiny_set()
    path = tmp_path / "decisions.parquet"
    frame.to_parquet(path)
    path.with_suffix(".json").write_text(json.dumps({"seed": 5020261204, "rollouts": 64}))
    _fresh_of(agreement.card_answers(frame), [0.0, 0.0, 0.0, 4.0, -1.0]).to_parquet(tmp_path / "fresh.parquet")
    study, ctx = CardAgreement(path, tmp_path / "fresh.parquet"), Context()
    res = study.conclude(ctx, [], study.play(ctx, 0, [], lambda n: None))
    assert res.frames["table"]["mean_loss_held_out_pp"].iloc[-1] == pytest.approx(0.6)
    html = environment().get_template(study.template).render(study=study, run=None, figures={},
                                                             precision=res.precision, **res.context)
    assert html.count("<tbody>") == 1 and "(lower bound)" in html
    last = html.split("<tbody>")[1].split("</tbody>")[0].split("<tr>")[-1]
    assert "every covered decision" in last and "0.60" in last and "&mdash;" not in last   # the fresh loss: 3 / 5


def test_the_decision_set_is_held_out_from_the_committed_card():
    """The set's seed (oracle_decisions.SEED) is none of the seeds the committed card's derivation states, nor the
    policy iteration's default; the set's seed is past 2**32, the iteration's seeds never are."""
    from gnoming_sim.experiments.oracle_decisions import SEED
    from gnoming_sim.tune.card.iterate import IterationConfig

    seeds = agreement.card_provenance()["seeds"]
    assert seeds, "the committed card states no derivation seed"
    agreement.check_held_out(SEED, seeds)
    agreement.check_held_out(SEED, [IterationConfig().seed])
    with pytest.raises(Exception, match="seed"):
        IterationConfig(seed=SEED).check()


def test_a_re_derived_card_names_its_derivation_and_every_seed(tmp_path):
    path = tmp_path / "cells.json"
    path.write_text(json.dumps({"provenance": {"seed": 1, "self_play": "learned", "rollouts": "expert"},
                                "card_provenance": {"seed": 7, "rounds": 4, "command": "card_output --seed 7"}}))
    p = agreement.card_provenance(path)
    assert p["seeds"] == [1, 7] and p["command"] == "card_output --seed 7"
    assert "policy iteration" in agreement.card_words(p) and "derivation seed 1, 7" in agreement.card_words(p)
    path.write_text(json.dumps({"provenance": {"seed": 1, "self_play": "learned", "rollouts": "expert"}}))
    words = agreement.card_words(agreement.card_provenance(path))
    assert "learned self-play, expert rollouts; derivation seed 1" in words


def test_fresh_rows_of_the_same_decision_and_options_are_reused_not_rolled_out():
    from gnoming_sim.experiments.agreement_fresh import fresh_losses

    frame, _ = tiny_set()
    ans = agreement.card_answers(frame)
    earlier = _fresh_of(ans, [0.0, 0.0, 0.0, 4.0, -1.0])
    again = fresh_losses(ans, 5020261204, rollouts=8, reuse=earlier)   # every row known: nothing rolled out
    assert again["loss_fresh_pp"].tolist() == [0.0, 0.0, 0.0, 4.0, -1.0]
    assert again["rollouts"].tolist() == [8] * 5


def test_the_fresh_command_refuses_bad_input_in_one_line(tmp_path, capsys):
    from gnoming_sim.experiments.agreement_fresh import main

    assert main(["--decisions", str(tmp_path / "none.parquet")]) == 2
    assert main(["--rollouts", "1"]) == 2
    frame, _ = tiny_set()
    frame.to_parquet(tmp_path / "d.parquet")
    (tmp_path / "d.json").write_text("{}")
    (tmp_path / "out.parquet").write_text("")
    assert main(["--decisions", str(tmp_path / "d.parquet"), "--out", str(tmp_path / "out.parquet")]) == 2
    assert main(["--decisions", str(tmp_path / "d.parquet"), "--out", str(tmp_path / "o2.parquet"),
                 "--card", str(tmp_path / "no.json")]) == 2
    err = capsys.readouterr().err.strip().splitlines()
    assert len(err) == 4 and all(line.startswith("agreement_fresh: ") for line in err)
    assert (tmp_path / "out.parquet").read_text() == ""   # never overwritten
