"""Grading (``gnoming_sim.search.review``): blunders planted in a record are marked ??, a forced move is
never marked, and the marks and verdicts follow their documented thresholds.

The planted records stop right after the planted move (a record may end mid-game); each is graded at
the command's default budget and rollout seed, so the marks here are the ones ``review`` prints."""
from __future__ import annotations

import copy
import tomllib
from pathlib import Path

import pytest

from gnoming_sim.game import record as R
from gnoming_sim.game.cards import HIDDEN, card_name
from gnoming_sim.game.deck import PUBLISHED
from gnoming_sim.game.record_trace import decisions
from gnoming_sim.game.rules import RuleConfig
from gnoming_sim.reference.record_check import check
from gnoming_sim.search.review import CONFIRM, MARKS, SCREEN, VERDICTS, grade, mark_game, mark_of, review, verdict_of

EXAMPLE = Path(__file__).resolve().parents[2] / "examples" / "review-record.toml"
RULES = RuleConfig()


def _decisions(data, kind=None):
    rec = R.from_mapping(data, "planted")
    done = check(rec, RULES, PUBLISHED)
    found = decisions(done.deals, done.trace, rec.players, rec.seat, RULES, PUBLISHED, done.round_scores)
    return [d for d in found if kind is None or d.position.decision == kind]


def _one_turn(flips0, turn):
    """Round 1, seat 0's first turn, graded for seat 0: its two initial flips and that turn."""
    return {"players": 4, "seat": 0, "rounds": [{
        "starter": 0, "setup": ["5", "6"], "turns": [turn],
        "flips": [flips0, [[0, "3"], [1, "4"]], [[0, "5"], [1, "7"]], [[0, "-1"], [1, "6"]]]}]}


def test_marks_and_verdicts_follow_their_thresholds():
    assert [m[2] for m in MARKS] == sorted((m[2] for m in MARKS), reverse=True)
    assert mark_of(0.5, True) == ("blunder", "??") and mark_of(0.5, False) == ("ok", "")
    assert mark_of(0.05, True) == ("mistake", "?") and mark_of(0.03, True) == ("inaccuracy", "?!")
    assert mark_of(0.01, True) == ("inaccuracy", "?!") and mark_of(0.0, True) == ("inaccuracy", "?!")  # separated
    assert verdict_of(0.0) == "Supernatural" and verdict_of(100.0) == "Awful!"
    assert [verdict_of(b - 1e-9) for _, b in VERDICTS[:-1]] == [v for v, _ in VERDICTS[:-1]]


@pytest.mark.slow
def test_throwing_away_a_mulligan_that_completes_a_line_is_a_blunder():
    # row 1 shows 8 8 ?: the mulligan drawn completes it (-8 instead of +16 and more)
    data = _one_turn([[0, "8"], [1, "8"]], {"seat": 0, "draw": "draw", "card": "M", "place": "discard", "pile": 0})
    (graded,) = review(_decisions(data, "place"))["decisions"]
    assert graded["played"] == "discard" and graded["best"] != "discard"
    assert graded["separated"] and graded["mark"] == "blunder" and graded["symbol"] == "??", graded["loss_win"]


@pytest.mark.slow
def test_finishing_the_round_on_a_hazard_is_a_blunder():
    """Keeping a hazard to no purpose: put on the last face-down card, it finishes the round and stays
    (+10, and likely +5 for finishing without the lowest score).  The planted turn replaces the first
    turn of the example game at which a seat, with one face-down card left, is to draw."""
    with EXAMPLE.open("rb") as fh:
        data = tomllib.load(fh)
    done = check(R.from_mapping(data, "example"), RULES, PUBLISHED)
    spot = next((s, d) for s in range(4) for d in decisions(done.deals, done.trace, 4, s, RULES, PUBLISHED,
                                                            done.round_scores)
                if d.position.decision == "draw" and d.position.finisher < 0
                and (d.position.layouts[s] == HIDDEN).sum() == 1)
    seat, d = spot
    q = int((d.position.layouts[seat] == HIDDEN).nonzero()[0][0])
    planted = copy.deepcopy(data)
    planted["seat"] = seat
    planted["rounds"] = planted["rounds"][:d.round + 1]
    rnd = planted["rounds"][d.round]
    rnd.pop("reveal", None)
    dealt = card_name(int(done.deals[d.round][9 * seat + q]))
    rnd["turns"] = rnd["turns"][:d.turn] + [{"seat": seat, "draw": "draw", "card": "H", "place": q,
                                             "replaced": dealt, "pile": 0}]
    graded = [g for g in review(_decisions(planted, "place"))["decisions"] if g["round"] == d.round + 1
              and g["turn"] == d.turn]
    assert len(graded) == 1
    g = graded[0]
    assert g["played"] == f"pos{q}" and "finishes" in g["played_label"]
    assert g["separated"] and g["mark"] == "blunder", g["loss_win"]


@pytest.mark.slow
def test_a_forced_move_is_never_marked():
    # a face-up mulligan already lies in the layout: the second one drawn can only be thrown away
    data = _one_turn([[0, "M"], [1, "5"]], {"seat": 0, "draw": "draw", "card": "M", "place": "discard", "pile": 0})
    res = review(_decisions(data))
    place = [g for g in res["decisions"] if g["decision"] == "place"]
    assert len(place) == 1 and place[0]["forced"] and place[0]["mark"] is None and place[0]["symbol"] == ""
    assert place[0]["n_screen"] == 0   # nothing rolled out for it
    assert res["summary"]["forced"] == 1 and res["summary"]["graded"] == len(res["decisions"]) - 1


@pytest.mark.slow
def test_a_marked_move_is_explained_by_its_components_and_a_story_of_both_moves():
    """review explains each marked move as ``analyse --why`` does: throwing the line-completing mulligan
    away costs the player's own cards, and the page shows both continuations on the same cards."""
    from gnoming_sim.cli.review import explain_marked
    from gnoming_sim.cli.review_page import page

    data = _one_turn([[0, "8"], [1, "8"]], {"seat": 0, "draw": "draw", "card": "M", "place": "discard", "pile": 0})
    found = _decisions(data, "place")
    res = review(found)
    explain_marked(res, found, ["learned"], 0, 200, None)
    (g,) = res["decisions"]
    why = g["why"]
    assert [o["key"] for o in why["options"]] == [g["best"], "discard"] and why["n"] == 200
    own = next(c for c in why["components"] if c["key"] == "own")
    assert why["deciding"]["key"] == "own" and own["ci95"][0] > 0
    (smp,) = why["samples"]
    best, played = smp["stories"]
    # one continuation of each on the same cards (a single sample may go either way: the components above carry
    # the verdict)
    assert "discards a mulligan" in "\n".join(played["lines"]) and best["lines"] != played["lines"]
    html = page({**res, "game": {"seat": 0, "players": 4, "seats": [], "source": {"kind": "record", "file": "x"},
                                 "rules": {}, "deck": "published", "version": "", "rounds_recorded": 1,
                                 "round_scores": []}, "seconds": 1.0})
    assert "Why: the move played against the best" in html and html.count("<details>") == 2


NEWCOMER = Path(__file__).resolve().parent / "data" / "review-newcomer-record.toml"


@pytest.mark.slow   # 20,500 rollouts of one decision to the end of the game (~20 s of one core)
def test_the_newcomers_turn_6_blind_draw_loses_at_ten_times_the_rollouts():
    """A new user's record (tests/search/data/review-newcomer-record.toml, seat 2) had its blind
    draw at turn 6 marked ``?`` (-6.4 pp, "best: take the 8 from the pile") by the cross-fitted review, a
    move the user thought ordinary.  Re-graded with ten times the default budget (0-ply screening, truncated
    selection and measurement rollouts; the review's own rollouts for that decision, index 3 of the game), the
    mark stands: drawing blind loses 7.2 pp [5.9, 8.5] of win chance against taking the 8 from pile 1
    (pile 0's 8 trails that by 2.6 pp [1.0, 4.2]), a mistake (``?``) on any reading of the interval."""
    with NEWCOMER.open("rb") as fh:
        found = _decisions(tomllib.load(fh))
    i = next(k for k, d in enumerate(found) if d.round == 0 and d.turn == 6 and d.position.decision == "draw")
    assert i == 3 and found[i].played == "draw"
    g = grade(found[i], index=i, screen=10 * SCREEN, confirm=10 * CONFIRM)
    # the loss is plain at once (p below review.SURE_P), so it is kept as measured, not measured again
    assert (g["n_screen"], g["n_confirm"], g["n_measure"]) == (10 * SCREEN, 5 * CONFIRM, 10 * CONFIRM)
    loss = g["loss_win"]
    assert loss["ci95"][0] > 0.04 and 0.05 < loss["est"] < 0.10, loss    # separated, and a mistake's size
    assert g["alternative"] in ("pile0", "pile1") and "(8)" in g["alternative_label"], g["alternative_label"]
    mark_game([g])
    assert g["separated"] and g["symbol"] == "?" and g["best"] == g["alternative"], g
