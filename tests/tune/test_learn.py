"""Training the learned player: the fit recovers known weights."""
import numpy as np
import pytest

from gnoming_sim.kernel.policy import learned as L
from gnoming_sim.tune.learn import fit, start_weights


def test_fit_recovers_the_weights_of_value_differences():
    rng = np.random.default_rng(5)
    D, K, nf = 3000, 6, 5
    w = np.array([1.5, -2.0, 0.3, 0.0, 4.0])
    feats = rng.normal(size=(D, K, nf))
    nopt = rng.integers(2, K + 1, size=D)
    state = rng.normal(scale=30.0, size=(D, 1))   # each decision's own worth: it must cancel
    vals = feats @ w + state + rng.normal(scale=0.5, size=(D, K))
    vals[np.arange(K)[None, :] >= nopt[:, None]] = 1e9   # answers that do not exist are never read
    coef, r2 = fit(feats, vals, nopt, nf, ridge=1e-6)
    np.testing.assert_allclose(coef, w, atol=0.03)
    assert r2 > 0.9


def test_the_start_weights_are_the_same_in_every_bucket():
    w = start_weights().reshape(L.N_BUCKETS, L.N_WEIGHTS_ONE)
    assert (w == w[0]).all()
    assert w[0, L.FEATURE_NAMES.index("delta")] == 1.0


@pytest.mark.slow
def test_train_writes_the_weights_log_and_curve_and_refuses_to_overwrite(cli_run, tmp_path):
    import json

    from gnoming_sim.kernel.policy import registry

    out = tmp_path / "run"
    args = ["train", "--out", str(out), "--iterations", "2", "--games", "10", "--players", "2", "--budget", "2",
            "--check-games", "8", "--threads", "1"]
    cli_run(args)
    data = json.loads((out / "weights.json").read_text())
    assert set(data["weights"]) == set(L.WEIGHT_NAMES) and len(data["provenance"]["log"]) == 2
    assert (out / "curve.png").read_bytes()[:4] == b"\x89PNG" and (out / "log.csv").read_text().count("\n") == 3
    s = registry.learned_from_file(out / "weights.json", name="trained")   # a file the registry reads
    assert s.kind == registry.KIND_LEARNED
    again = cli_run(args, code=None)
    assert again.exit_code != 0 and "--force" in again.output
