"""Known-answer tests of the rollout estimates: small positions whose expectations are enumerated
exactly (the last turn of the final lap, two face-down cards left), and the CRN pairing's gain.

The exact values come from the reference scorer (a second, slow implementation of RULES.md §5)
and plain enumeration of the unseen cards; the rollouts must cover them with their intervals
and pick the same best option.  Seeds are pinned, so every run sees the same numbers; the
coverage checks use 99.9% intervals (3.29 standard errors) to be safe across options.
"""
from __future__ import annotations

import itertools

import numpy as np
import pytest

from gnoming_sim.search.options import legal_options
from gnoming_sim.search.estimates import estimate, run_rollouts, setup, variance_steps
from gnoming_sim.game.cards import parse_card
from gnoming_sim.game.deck import PUBLISHED
from gnoming_sim.game.errors import GnomingError
from gnoming_sim.game.position import from_mapping
from gnoming_sim.game.rules import RuleConfig
from gnoming_sim.search.rollout import X_SCORE
from gnoming_sim.reference.scoring import score_layout

RULES = RuleConfig(bouncing=False)   # a bounce would be the base policy's choice: keep the answer exact
Z999 = 3.29
FINISHER = ["3", "4", "5", "6", "7", "8", "-1", "-2", "3"]     # seat 0, finished, all face up
ME = ["6", "6", "?", "7", "7", "?", "3", "-4", "8"]            # seat 1 to move, two face down (one line)
PILES = [["5"], ["4"]]


def _position(decision: dict):
    seen = [c for c in FINISHER + ME if c != "?"] + [c for p in PILES for c in p]
    if "card" in decision:
        seen.append(decision["card"])
    data = {"players": 2, "me": 1, "starter": 0, "round": 1, "turn": 31, "finisher": 0, "scores": [0, 0],
            "layouts": [FINISHER, ME], "piles": PILES, "removed_hazards": 0,
            "draw_pile": PUBLISHED.size - len(seen) - ME.count("?"), "decision": decision}
    return from_mapping(data, RULES, PUBLISHED)


def _exact(pos, layouts_of):
    """Exact E[score], P(lowest), E[margin over the finisher] of the player when ``layouts_of(hidden, drawn)`` lists the equally
    likely final layouts for the cards dealt to its face-down slots (``hidden``, in position order)
    and the top of the draw pile (``drawn``): distinct unseen cards, enumerated by card code with
    their multiplicities."""
    codes, counts = np.unique(pos.unseen().astype(int), return_counts=True)
    n = int(counts.sum())
    k = ME.count("?") + 1
    raw_f = score_layout([parse_card(c) for c in FINISHER])
    total = low = margin = weight = 0.0
    for combo in itertools.product(range(len(codes)), repeat=k):
        left = dict(enumerate(counts.tolist()))
        w = 1.0
        for i in combo:
            w *= left[i]
            left[i] -= 1
        if w == 0:
            continue
        hidden, drawn = [int(codes[i]) for i in combo[:-1]], int(codes[combo[-1]])
        finals = layouts_of(hidden, drawn)
        for lay in finals:
            mine = score_layout(lay)
            fin = raw_f - 5 if raw_f <= mine else raw_f + 5
            total += w * mine / len(finals)
            low += w * (mine <= fin) / len(finals)
            margin += w * (mine - fin) / len(finals)
        weight += w
    assert weight == pytest.approx(np.prod([n - j for j in range(k)], dtype=float))
    return total / weight, low / weight, margin / weight


def _me(hidden):
    it = iter(hidden)
    return [next(it) if c == "?" else parse_card(c) for c in ME]


def _put(lay, q, card):
    lay = list(lay)
    lay[q] = card
    return lay


@pytest.fixture(scope="module")
def place_case():
    pos = _position({"kind": "place", "card": "6", "source": "draw"})
    res = estimate(pos, ["builder"], seed=11, rollouts=4000, horizon="round", second_policies=None)
    return pos, res


def test_place_decision_covers_the_exact_values_and_picks_the_exact_best(place_case):
    pos, res = place_case
    exact = {}
    for q in range(9):
        exact[f"pos{q}"] = _exact(pos, lambda h, d, q=q: [_put(_me(h), q, 6)])
    exact["discard"] = _exact(pos, lambda h, d: [_me(h)])
    for row in res["options"]:
        mean, low, margin = exact[row["key"]]
        for est, want in ((row["points"], mean), ({"mean": row["mean"], "ci95": row["ci95"]}, margin)):
            se = (est["ci95"][1] - est["ci95"][0]) / 2 / 1.96
            assert abs(est["mean"] - want) <= Z999 * se + 1e-9, (row["key"], est["mean"], want)
        lo, hi = row["p_lowest"]["ci95"]
        assert lo - 1e-9 <= low <= hi + 1e-9 or abs(row["p_lowest"]["p"] - low) < 0.03, (row["key"], low)
    # the round horizon ranks by the margin over the rivals (here the finisher, bonus included)
    assert res["best"] == min(exact, key=lambda k: exact[k][2])
    assert res["separated"]


@pytest.mark.slow
def test_draw_decision_with_a_random_base_policy_covers_the_exact_values():
    """The random policy places uniformly among the legal answers: the exact value averages them."""
    pos = _position({"kind": "draw"})
    res = estimate(pos, ["random"], seed=5, rollouts=6000, horizon="round", second_policies=None)
    exact = {"draw": _exact(pos, lambda h, d: [_put(_me(h), q, d) for q in range(9)] + [_me(h)])}
    for k, top in ((0, 5), (1, 4)):
        exact[f"pile{k}"] = _exact(pos, lambda h, d, top=top: [_put(_me(h), q, top) for q in range(9)])
    for row in res["options"]:
        for est, want in ((row["points"], exact[row["key"]][0]), (row, exact[row["key"]][2])):
            se = (est["ci95"][1] - est["ci95"][0]) / 2 / 1.96
            assert abs(est["mean"] - want) <= Z999 * se + 1e-9, (row["key"], est["mean"], exact)
    best = min(exact, key=lambda k: exact[k][2])
    assert res["best"] == best


def test_crn_shrinks_the_standard_error_of_a_difference(place_case):
    """Two options that both leave the face-down card in place: paired, the card cancels."""
    pos, _ = place_case
    s = setup(pos, ["builder"])
    keys = [o.key for o in s.options]
    a, b = keys.index("pos0"), keys.index("pos3")
    paired, _ = run_rollouts(s, 3000, seed=2, horizon="round", crn=True)
    indep, _ = run_rollouts(s, 3000, seed=2, horizon="round", crn=False)
    var_crn = np.var(paired[:, a, X_SCORE] - paired[:, b, X_SCORE], ddof=1)
    var_indep = np.var(indep[:, a, X_SCORE] - indep[:, b, X_SCORE], ddof=1)
    assert var_crn < 0.5 * var_indep, (var_crn, var_indep)


def test_reported_variance_ratios_show_the_crn_gain(place_case):
    """The ratio ``--json`` prints (CRN variance / independent variance of a difference) on the same
    pair of options: well below 1; the regression steps never make it much worse."""
    pos, _ = place_case
    s = setup(pos, ["builder"])
    keys = [o.key for o in s.options]
    out, cov = run_rollouts(s, 3000, seed=4, horizon="round")
    v = variance_steps(out[:, keys.index("pos0"), X_SCORE], out[:, keys.index("pos3"), X_SCORE], cov, s, pos)
    assert v["independent"] == 1.0 and 0 <= v["crn"] < 0.5
    assert v["crn+strata+control"] <= v["crn"] * 1.05


def test_results_do_not_depend_on_the_thread_count(place_case):
    pos, _ = place_case
    s = setup(pos, ["builder", "greedy"])
    one, cov1 = run_rollouts(s, 500, seed=9, horizon="round", threads=1)
    two, cov2 = run_rollouts(s, 500, seed=9, horizon="round", threads=2)
    np.testing.assert_array_equal(one, two)
    np.testing.assert_array_equal(cov1, cov2)


def test_summary_fields(place_case):
    pos, res = place_case
    assert res["n"] == 4000 and len(res["options"]) == len(legal_options(pos))
    for row in res["options"]:
        assert {"mean", "diff_ci95", "n"} <= set(row)
        assert row["diff_ci95"][0] <= row["diff"] <= row["diff_ci95"][1]
    assert [r["diff"] for r in res["options"] if r["key"] == res["best"]] == [0.0]


# ------------------------------------------------------------------ hazard flips
HZ = [["3", "?", "5", "6", "?", "8", "-1", "?", "3"],      # seat 0 removed a hazard (its final-lap turn)
      ["4", "4", "4", "5", "5", "5", "6", "6", "7"],       # seat 1 finished
      ["6", "?", "?", "7", "7", "?", "3", "-4", "8"]]      # seat 2 may flip a card for it


def _hazard_position(finisher, layouts):
    seen = [c for row in layouts for c in row if c != "?"] + ["5", "4", "H"]
    fd = sum(row.count("?") for row in layouts)
    return from_mapping({"players": 3, "me": 2, "starter": 0, "round": 1, "turn": 30, "finisher": finisher,
                         "scores": [0, 0, 0], "layouts": layouts, "piles": [["5"], ["4"]], "removed_hazards": 1,
                         "draw_pile": PUBLISHED.size - len(seen) - fd,
                         "decision": {"kind": "hazard_flip", "discarder": 0}}, RULES, PUBLISHED)


def test_hazard_flip_at_the_end_of_the_final_lap_changes_nothing():
    """Seat 1 finished and seat 0's discard ends the final lap: whatever seat 2 flips, its layout is
    revealed as it lies, so every option scores the exact expectation of its face-down cards."""
    pos = _hazard_position(1, HZ)
    assert [o.key for o in legal_options(pos)] == ["flip1", "flip2", "flip5", "decline"]
    res = estimate(pos, ["builder"], seed=2, rollouts=3000, horizon="round", second_policies=None)
    codes, counts = np.unique(pos.unseen().astype(int), return_counts=True)
    n = counts.sum()
    exact = 0.0
    for a, b, c in itertools.product(range(len(codes)), repeat=3):
        w = counts[a] * (counts[b] - (b == a)) * (counts[c] - (c == a) - (c == b))
        if w > 0:
            hidden = iter([int(codes[a]), int(codes[b]), int(codes[c])])
            exact += w * score_layout([next(hidden) if x == "?" else parse_card(x) for x in HZ[2]])
    exact /= n * (n - 1) * (n - 2)
    assert res["equivalent"] == ["flip2", "flip5", "decline"]
    row = res["options"][0]["points"]   # own points (the margin adds the finisher's, fixed, and seat 0's)
    se = (row["ci95"][1] - row["ci95"][0]) / 2 / 1.96
    assert abs(row["mean"] - exact) <= Z999 * se, (row["mean"], exact)


def test_hazard_flip_mid_round_is_forced_and_matters():
    """Mid-round, a flip changes what the base policies see, so the options differ; the round then
    goes on from the seat after the discarder."""
    layouts = [list(r) for r in HZ]
    layouts[1][4] = "?"
    pos = _hazard_position(-1, layouts)
    s = setup(pos, ["builder"])
    out, _ = run_rollouts(s, 1000, seed=1, horizon="round")
    decline = out[:, -1, X_SCORE]
    assert all((out[:, k, X_SCORE] != decline).any() for k in range(3))


def test_hazard_flip_needs_two_face_down_cards():
    layouts = [list(r) for r in HZ]
    layouts[2] = ["6", "5", "?", "7", "7", "6", "3", "-4", "8"]
    with pytest.raises(GnomingError, match="the final card is protected"):
        _hazard_position(1, layouts)
