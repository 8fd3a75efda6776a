"""The learned player (KIND_LEARNED): its features, its weights file, its decisions."""
import json

import numpy as np
import pytest

from gnoming_sim.game.cards import HIDDEN, MULLIGAN, NO_CARD
from gnoming_sim.game.errors import GnomingError
from gnoming_sim.kernel.engine import simulate
from gnoming_sim.kernel.policy import learned as L
from gnoming_sim.kernel.policy import registry
from gnoming_sim.kernel.policy.dispatch import C_W0, KIND_LEARNED, L_W0, N_PARAMS, new_memo
from gnoming_sim.kernel.policy import heuristic as H
from _observations import observation as _obs


def _features(obs, q, c):
    prm = registry.get("learned").param_vector()
    memo = new_memo()
    H.prepare_me(prm, obs, memo, False)
    eu = H.unseen_mean(obs, prm)
    ctx = L.context(obs.pub, obs.vis, obs.fd, eu)
    L.place_features(memo.scratch, prm, obs, memo.scratch, obs.vis[0], eu, q, c, ctx)
    return dict(zip(L.FEATURE_NAMES, memo.scratch[L.FB:L.FB + L.NF_P]))


H_ = HIDDEN


def test_not_keeping_marks_only_the_gift():
    obs = _obs([[5, 5, H_, 3, 4, 6, 7, 8, 3], [H_] * 9])
    f = _features(obs, 9, -2)
    assert f["nokeep"] == 1 and f["gift_cost"] == -2 and f["gift_good"] == 1
    assert all(v == 0 for k, v in f.items() if k not in ("nokeep", "gift_cost", "gift_good", "gift_pairs"))


def test_placing_over_the_last_face_down_card_finishes():
    obs = _obs([[5, 5, H_, 3, 4, 6, 7, 8, 3], [H_] * 9])
    f = _features(obs, 2, 5)
    assert f["fin"] == 1 and f["hid"] == 1
    # the row 5 5 5 matches: the own estimate is far below the rival's nine unseen cards
    assert f["fin_gap"] < 0 and f["fin_lowest"] == 1
    assert f["delta"] < 0


def test_an_open_pair_made_and_its_odds():
    obs = _obs([[5, H_, H_, 3, H_, 6, 7, 8, H_], [H_] * 9])
    f = _features(obs, 3, 5)   # 5 at position 3 pairs with the 5 above it: column 0 = 5, 5, 7 (no hidden)
    assert f["open_pairs"] == 0
    f = _features(obs, 0, 3)   # replaces the 5: nothing open either way in row 0 (5 H H: no pair)
    assert f["gift_cost"] == 5
    obs = _obs([[5, H_, H_, H_, H_, H_, 7, 8, H_], [H_] * 9])
    f = _features(obs, 1, 5)   # row 0 becomes 5 5 H: an open pair of 5s, 4 fives unseen of 24
    assert f["open_pairs"] == 5 and f["open_odds"] == pytest.approx(4 / 24)


def test_the_weights_file_holds_every_weight_with_provenance():
    data = json.loads(registry.LEARNED_WEIGHTS.read_text())
    assert set(data["weights"]) == set(L.WEIGHT_NAMES)
    assert "command" in data["provenance"]
    s = registry.get("learned")
    assert s.kind == KIND_LEARNED
    v = s.param_vector()
    assert v.shape == (N_PARAMS,)
    np.testing.assert_array_equal(v[L_W0:C_W0], [data["weights"][n] for n in L.WEIGHT_NAMES])
    # the decisions it does not model are expert's
    np.testing.assert_array_equal(v[:H.N_PARAMS], registry.get("expert").param_vector()[:H.N_PARAMS])


def test_a_weights_file_missing_a_weight_is_refused(tmp_path):
    p = tmp_path / "w.json"
    p.write_text(json.dumps({"weights": {"p45.place.delta": 1.0}}))
    with pytest.raises(GnomingError, match="weights missing"):
        registry.learned_from_file(p)


def test_the_weights_change_the_decisions():
    """Turning the finishing weights around makes it finish in other rounds: the weights are read."""
    base = registry.get("learned")
    params = dict(base.params)
    for b in L.BUCKETS:
        params[f"{b}.place.fin"] = 100.0   # never finish while another answer exists
    never = registry.Strategy("learned-never-finishes", KIND_LEARNED, "test", params)
    a = simulate(players=4, strategies=base, games=20, seed=3)   # a never-finishing table plays long rounds
    b = simulate(players=4, strategies=never, games=20, seed=3)
    assert not np.array_equal(a.totals, b.totals)


def test_the_static_features_of_a_position_do_not_depend_on_the_card():
    """net's draw-pile valuation adds a card's DYNAMIC features to each position's STATIC part, computed once: on
    random layouts (one or two face-down cards, so the finishing features are on too), every card put at a position
    of the layout gives it the same STATIC features, and the split covers every feature once."""
    assert sorted(L.STATIC + L.DYNAMIC) == list(range(L.NF_P))
    rng = np.random.default_rng(4)
    cards = [-2, -1, 0, 3, 5, 12, MULLIGAN, 50]
    for _ in range(12):
        row = [int(x) for x in rng.choice([-2, 0, 1, 3, 5, 7, 12, MULLIGAN, 50], 9)]
        for q in rng.choice(9, size=int(rng.integers(1, 3)), replace=False):
            row[q] = H_
        obs = _obs([row, [int(x) for x in rng.choice([H_, 3, 5, 12], 9)], [H_] * 9])
        for q in range(9):
            seen = {tuple(np.array(list(_features(obs, q, c).values()))[list(L.STATIC)]) for c in cards}
            assert len(seen) == 1, (row, q)
