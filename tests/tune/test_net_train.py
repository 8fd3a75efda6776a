"""Training the net player (gnoming_sim.tune.net_train): its loss and gradient, the folding of the input
scaling into the weights, the rules it samples, and a gather replayed."""
import json

import numpy as np
import pytest
from scipy.optimize import check_grad

from gnoming_sim.game.rules import RuleConfig
from gnoming_sim.kernel.policy import net as NN
from gnoming_sim.tune import net_train as T


def _batch(seed=0, D=25, K=7, ni=NN.NI):
    rng = np.random.default_rng(seed)
    X = rng.normal(size=(D, K, ni))
    y = rng.normal(size=(D, K))
    mask = (rng.random((D, K)) < 0.7).astype(np.float64)
    mask[:, :2] = 1.0
    return X * mask[..., None], y * mask, mask


@pytest.mark.parametrize("head", [T.PLACE, T.SOURCE], ids=lambda h: h.name)
def test_the_gradient_is_the_loss_derivative(head):
    X, y, mask = _batch(K=7 if head is T.PLACE else 3, ni=head.ni)
    w = T.init_weights(2, head)
    err = check_grad(lambda v: T.loss_grad(v, X, y, mask, 1e-3, head)[0],
                     lambda v: T.loss_grad(v, X, y, mask, 1e-3, head)[1], w)
    assert err < 1e-5 * max(1.0, np.linalg.norm(T.loss_grad(w, X, y, mask, 1e-3, head)[1]))


def test_the_loss_sees_only_differences_between_answers():
    """Adding a constant to every answer of a decision (its target or its prediction) changes nothing."""
    X, y, mask = _batch(1)
    w = T.init_weights(4)
    shift = np.random.default_rng(5).normal(size=(X.shape[0], 1)) * mask
    assert T.loss_grad(w, X, y + shift, mask, 0.0)[0] == pytest.approx(T.loss_grad(w, X, y, mask, 0.0)[0])


@pytest.mark.parametrize("head", [T.PLACE, T.SOURCE], ids=lambda h: h.name)
def test_folded_weights_take_raw_inputs(head):
    """The kernel's weights (standardisation folded in) value raw inputs as the trained network values the
    standardised ones, up to a constant per decision (which the choice ignores)."""
    X, _, mask = _batch(2, ni=head.ni)
    mu, sd = T.standardise(X, mask)
    w = T.init_weights(6, head)
    a = T.forward(w, (X - mu) / sd, head)
    b = T.forward(T.fold(w, mu, sd, head), X, head)
    d = a - b
    np.testing.assert_allclose(d - d[:, :1], 0.0, atol=1e-9)


@pytest.mark.parametrize("head", [T.PLACE, T.SOURCE], ids=lambda h: h.name)
def test_unfolded_weights_fold_back(head):
    """unfold (a warm start from installed weights) is fold's inverse: the same weights on raw inputs, and the
    same values of standardised inputs as those weights give raw ones."""
    X, _, mask = _batch(3, ni=head.ni)
    mu, sd = T.standardise(X, mask)
    w = T.init_weights(7, head)
    np.testing.assert_allclose(T.fold(T.unfold(w, mu, sd, head), mu, sd, head), w, atol=1e-12)
    d = T.forward(T.unfold(w, mu, sd, head), (X - mu) / sd, head) - T.forward(w, X, head)
    np.testing.assert_allclose(d - d[:, :1], 0.0, atol=1e-9)


def test_the_rules_sampled_span_the_ranges_and_the_published_rules_lead():
    rng = np.random.default_rng(0)
    rules = [T.sample_rules(rng) for _ in range(400)]
    published = sum(r == RuleConfig() for r in rules)
    assert 0.5 < published / 400 < 0.65
    for key, (lo, hi) in T.RULE_RANGES.items():
        seen = {getattr(r, key) for r in rules}
        assert min(seen) == lo and max(seen) == hi


def test_a_net_teacher_is_named_by_its_weights_file():
    """Round 2's labels depend on which net taught them: a net teacher's settings carry the installed weights'
    sha256 (the committed round-2 gather names round 1's fit, tuning/net/fit-both/; the third placement gather the
    net with its draw-source head, tuning/net/fit-source/; rounds 4 and 5 the nets after them)."""
    import hashlib
    import json
    from pathlib import Path

    from gnoming_sim.kernel.policy import registry
    from gnoming_sim.tune.net_train import NetConfig, gather_settings

    assert "teacher_weights_sha256" not in gather_settings(NetConfig(teacher="expert"))
    got = gather_settings(NetConfig(teacher="net"))["teacher_weights_sha256"]
    assert got == hashlib.sha256(registry.NET_WEIGHTS.read_bytes()).hexdigest()
    root = Path(__file__).resolve().parents[2] / "tuning" / "net"
    committed = json.loads((root / "net-teacher" / "settings.json").read_text())
    assert committed["teacher"] == "net"
    round1 = hashlib.sha256((root / "fit-both" / "weights.json").read_bytes()).hexdigest()
    assert committed["teacher_weights_sha256"] == round1
    # the draw-source targets were taught by round 1's net too (run.sh installs it before their gather)
    source = json.loads((root / "source" / "settings.json").read_text())
    assert source["teacher"] == "net" and source["head"] == "source" and source["teacher_weights_sha256"] == round1
    # the third placement gather was taught by the net with its draw-source head (tuning/net/fit-source/)
    third = json.loads((root / "net-teacher-2" / "settings.json").read_text())
    with_source = hashlib.sha256((root / "fit-source" / "weights.json").read_bytes()).hexdigest()
    assert third["teacher"] == "net" and third["teacher_weights_sha256"] == with_source != round1
    # round 4: the net of round 3 (tuning/net/fit-net2/) taught a fourth placement gather and a second draw-source
    # gather; round 5: the net of fit-net3's placement head and fit-source2's draw-source head taught a fifth
    round3 = hashlib.sha256((root / "fit-net2" / "weights.json").read_bytes()).hexdigest()
    for folder, head in (("net-teacher-3", "place"), ("source-2", "source")):
        got = json.loads((root / folder / "settings.json").read_text())
        assert got["teacher"] == "net" and got["teacher_weights_sha256"] == round3, folder
        assert got.get("head", "place") == head, folder
    fourth = hashlib.sha256((root / "fit-source2" / "weights.json").read_bytes()).hexdigest()
    fifth = json.loads((root / "net-teacher-4" / "settings.json").read_text())
    assert fifth["teacher"] == "net" and fifth["teacher_weights_sha256"] == fourth
    source2 = json.loads((root / "fit-source2" / "weights.json").read_text())["provenance"]
    assert source2["placement_weights"]["sha256"] == hashlib.sha256(
        (root / "fit-net3" / "weights.json").read_bytes()).hexdigest()


def test_a_weights_file_keeps_the_head_it_did_not_fit(tmp_path):
    """A placement fit given a draw-source head (``--source-weights``) writes it beside its own weights and names its
    file; the registry reads both heads back."""
    from gnoming_sim.kernel.policy import registry
    from gnoming_sim.kernel.policy.dispatch import N_W0, NS_W0

    rng = np.random.default_rng(8)
    w = rng.normal(size=NN.N_WEIGHTS)
    src = rng.normal(size=NN.S_ON)
    check = {"margin": -1.0, "lo": -2.0, "hi": 0.0, "games": 4}
    text = T.weights_json(w, T.NetConfig(), "python -m gnoming_sim.tune.net_train --fit-only", 1.0, check, 10,
                          source=src, source_from={"path": "x.json", "sha256": "ab" * 32})
    data = json.loads(text)
    assert data["provenance"]["source_head"]["path"] == "x.json" and "placement_weights" not in data["provenance"]
    assert data["source_weights"][-1] == 1.0
    path = tmp_path / "w.json"
    path.write_text(text)
    v = registry.net_from_file(path).param_vector()
    np.testing.assert_array_equal(v[N_W0:NS_W0], w)
    np.testing.assert_array_equal(v[NS_W0:NS_W0 + NN.S_ON], src)
    assert v[NS_W0 + NN.S_ON] == 1.0


def test_a_fit_of_a_folder_without_chunks_is_refused_in_one_line(tmp_path, capsys):
    """A fit over a folder that was never gathered (chunk folders are not committed) exits 2 with a one-line
    error naming the folder, not a traceback from an empty concatenation."""
    import pytest

    from gnoming_sim.tune.net_train import main

    (tmp_path / "empty").mkdir()
    with pytest.raises(SystemExit) as e:
        main(["--out", str(tmp_path / "fit"), "--data", str(tmp_path / "empty"), "--fit-only"])
    assert e.value.code == 2
    err = capsys.readouterr().err.strip().splitlines()[-1]
    assert "no gathered chunks" in err and "empty" in err


def test_the_decision_regret_is_the_picked_answers_value_above_the_best_legal_one():
    X, y, mask = _batch(4)
    f = np.random.default_rng(8).normal(size=y.shape)
    got = T.decision_regret(f, y, mask)
    for d in range(len(y)):
        legal = np.flatnonzero(mask[d])
        pick = legal[np.argmin(f[d, legal])]
        assert got[d] == y[d, pick] - y[d, legal].min() >= 0.0


@pytest.mark.slow
def test_a_gather_replays_to_the_same_decisions_and_widens(tmp_path):
    """The rows of a gather (inputs, not positions) are rebuilt by replaying its rounds without the rollouts: the
    same decisions, the same inputs; a chunk folder is widened to the current inputs (an old layout's columns
    checked against the stored rows), and a replay of the wrong teacher is refused."""
    import json

    from gnoming_sim.search.sampler import net_replay, net_targets

    kw = dict(players=3, strategies="expert", games=4, seed=5, p_sample=0.5, first_game=T.CHUNK_STRIDE,
              rules=RuleConfig(hazard_value=15))
    got = net_targets(budget=2, **kw)
    again = net_replay(**kw)
    np.testing.assert_array_equal(again["nopt"], got["nopt"])
    np.testing.assert_array_equal(again["inputs"], got["inputs"])
    # a folder gathered before the layout features (its rows without those columns) widens to the current inputs
    old_names = [x for x in NN.INPUT_NAMES if x not in NN.LAYOUT_NAMES]
    cols = [NN.INPUT_NAMES.index(x) for x in old_names]
    src, dst = tmp_path / "old", tmp_path / "new"
    src.mkdir()
    cfg = T.NetConfig(teacher="expert", players=(3,), chunks=1, chunk=4, budget=2, p_sample=0.5, seed=5)
    rules = T.sample_rules(np.random.default_rng(5))
    first = dict(kw, rules=rules)
    d = net_targets(budget=2, **first)
    np.savez(src / "p3-c0.npz", players=d["players"], nopt=d["nopt"], inputs=d["inputs"][..., cols], vals=d["vals"])
    settings = {k: v for k, v in T.gather_settings(cfg).items() if k != "inputs"}
    (src / "settings.json").write_text(json.dumps(settings))
    r = T.widen_chunks(src, dst, "expert", progress=lambda s: None)
    assert r == {"chunks": 1, "decisions": int(d["nopt"].size)}
    w = T.read_chunks([dst])
    np.testing.assert_array_equal(w["inputs"], d["inputs"])
    np.testing.assert_array_equal(w["vals"], d["vals"])
    assert json.loads((dst / "settings.json").read_text())["inputs"] == list(NN.INPUT_NAMES)
    with pytest.raises(ValueError, match="not the stored gather"):
        T.widen_chunks(src, tmp_path / "x", "learned", progress=lambda s: None)
