"""The value network's inputs and forward pass: the kernel against a plain numpy reference, the inputs'
invariants on self-play positions, and each seat's answer landing on its own seat."""
import numpy as np
import pytest

from gnoming_sim.kernel import value as V
from gnoming_sim.search.sampler import value_positions


@pytest.fixture(scope="module")
def rows():
    return {p: value_positions(p, "greedy", 40, seed=3, p_sample=0.1, cap=8) for p in (2, 4, 7)}


def _reference(w, x, P):
    """The network as written in the module docstring, in numpy."""
    W = w[V.W_AT:V.B_AT].reshape(V.NI, V.HIDDEN_UNITS)
    b, u, v = w[V.B_AT:V.U_AT], w[V.U_AT:V.V_AT], w[V.V_AT:V.A_AT]
    a, s = w[V.A_AT:V.S_AT], w[V.S_AT:V.N_WEIGHTS]
    xs = x[:P]
    h = np.maximum(xs @ W + b, 0)
    m = h @ u + xs @ a
    logit = -m * np.exp(xs[0, V.NPHI:] @ s) + h @ v
    p = np.exp(logit - logit.max())
    return p / p.sum(), (m - m.mean()) * V.SCALE


@pytest.mark.parametrize("players", [2, 4, 7])
def test_forward_equals_the_numpy_reference(rows, players):
    rng = np.random.default_rng(players)
    w = rng.normal(0, 0.3, V.N_WEIGHTS)
    d = rows[players]
    x = d["x"][:50].astype(np.float64)
    win = np.zeros((len(x), V.MAX_SEATS))
    margin = np.zeros((len(x), V.MAX_SEATS))
    V.predict_rows(w, x, np.full(len(x), players, dtype=np.int64), win, margin)
    for r in range(len(x)):
        pw, pm = _reference(w, x[r], players)
        np.testing.assert_allclose(win[r, :players], pw, rtol=1e-9, atol=1e-12)
        np.testing.assert_allclose(margin[r, :players], pm, rtol=1e-9, atol=1e-9)
        assert win[r, :players].sum() == pytest.approx(1.0)


@pytest.mark.parametrize("players", [2, 4, 7])
def test_inputs_are_centred_and_padded(rows, players):
    d = rows[players]
    x = d["x"]
    assert len(x) > 50
    assert np.all(x[:, players:] == 0)                     # seats past the table: zeros
    assert np.all(x[:, 0, 8] == 1) and np.all(x[:, 1:players, 8] == 0)   # slot 0 is the observer
    for f in (0, 1, 4, 10):                                 # features against the table's mean sum to 0
        np.testing.assert_allclose(x[:, :players, f].sum(1), 0, atol=1e-4)
    ctx = x[:, :players, V.NPHI:]
    assert np.all(ctx == ctx[:, :1])                        # one context for every seat
    np.testing.assert_allclose(x[:, 0, V.NPHI], players / 7, rtol=1e-6)
    assert np.all(x[:, 0, V.NPHI + 1:V.NPHI + 4].sum(1) == 1)   # exactly one round


@pytest.mark.parametrize("players", [2, 4, 7])
def test_outcomes_are_credits_and_centred_totals(rows, players):
    d = rows[players]
    np.testing.assert_allclose(d["win"][:, :players].sum(1), 1, rtol=1e-6)
    assert np.all(d["win"][:, players:] == 0)
    np.testing.assert_allclose(d["total"][:, :players].sum(1), 0, atol=1e-3)
