"""The self-play sampler (search.sampler): each data set holds what it says, and is the same at any thread count."""
import numpy as np
import pytest

from gnoming_sim.game.rules import RuleConfig
from gnoming_sim.kernel.policy import learned as L
from gnoming_sim.kernel.policy import net as NN
from gnoming_sim.kernel.state import DEC_PLACE, DEC_SOURCE
from gnoming_sim.search.sampler import learned_targets, net_targets, value_positions


@pytest.mark.slow
def test_learned_targets_hold_every_legal_answer_with_its_rollout_value():
    d = learned_targets(2, "expert", 6, seed=3, budget=3, p_sample=0.5, cap=6, threads=1)
    assert len(d["kind"]) > 5 and set(d["kind"]) <= {DEC_PLACE, DEC_SOURCE}
    assert (d["nopt"] >= 2).all()
    place = d["kind"] == DEC_PLACE
    for row, k in zip(d["feats"][place], d["nopt"][place]):
        # at most one "not keeping" answer, and every other answer is a position (no nokeep mark)
        assert row[:k, L.FEATURE_NAMES.index("nokeep")].sum() <= 1
    vals = d["vals"]
    assert np.isfinite(vals[np.arange(vals.shape[1])[None, :] < d["nopt"][:, None]]).all()
    again = learned_targets(2, "expert", 6, seed=3, budget=3, p_sample=0.5, cap=6, threads=2)
    np.testing.assert_array_equal(d["vals"], again["vals"])   # the same at any thread count


@pytest.mark.slow
@pytest.mark.parametrize("source", [False, True], ids=["place", "source"])
def test_net_targets_are_identical_at_one_and_two_threads(source):
    kw = dict(players=4, strategies="expert", games=6, seed=3, budget=2, p_sample=0.5,
              rules=RuleConfig(hazard_value=15), source=source)
    one, two = net_targets(threads=1, **kw), net_targets(threads=2, **kw)
    assert one["nopt"].size > 10
    for k in one:
        np.testing.assert_array_equal(one[k], two[k])
    nf = NN.NFS if source else NN.NF
    assert one["inputs"].shape[2] == nf + NN.NC
    fb = nf + NN.CONTEXT_NAMES.index("hazard_value")
    assert (one["inputs"][:, 0, fb] == 15).all()
    if source:   # answers: the draw pile and the piles the head values; the draw pile's row is first
        assert (one["nopt"] >= 2).all() and (one["nopt"] <= 3).all()
        assert (one["inputs"][:, 0, L.NF_P + L.G_DRAW] == 1.0).all()


def test_value_positions_do_not_depend_on_the_threads():
    one = value_positions(4, "greedy", 30, seed=5, threads=1)
    two = value_positions(4, "greedy", 30, seed=5, threads=2)
    for k in one:
        np.testing.assert_array_equal(one[k], two[k])
