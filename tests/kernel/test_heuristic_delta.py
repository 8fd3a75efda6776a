"""The heuristic's incremental delta equals the difference of two full estimates."""
import numpy as np
from hypothesis import given, settings, strategies as st

from gnoming_sim.kernel.policy.estimate import N_SCRATCH, estimate, precompute, prepare, quick_delta
from gnoming_sim.game.cards import HAZARD, HIDDEN, MULLIGAN

from _examples import examples

CARDS = [HIDDEN, HIDDEN, MULLIGAN, HAZARD, -4, -1, 3, 3, 4, 5, 5, 6, 7, 8]


@settings(max_examples=examples(3000), deadline=None)
@given(row=st.lists(st.sampled_from(CARDS), min_size=9, max_size=9),
       c=st.sampled_from([c for c in CARDS if c != HIDDEN]),
       mpl=st.integers(0, 3), pair_w=st.sampled_from([0.0, 0.35, 1.0]),
       mull_w=st.sampled_from([0.0, 2.5]), eu=st.floats(-2, 8),
       values=st.sampled_from([(10, 0, 1), (15, 0, 1), (10, 3, 1), (10, -2, 0), (25, 4, 2)]))
def test_precomputed_delta_matches_full_estimates(row, c, mpl, pair_w, mull_w, eu, values):
    """Under the published card values and others (hazard_value, mulligan_value, negative_multiplier)."""
    hz, mv, nm = (np.int64(v) for v in values)
    row = np.array(row, dtype=np.int8)
    scratch = np.zeros(N_SCRATCH)
    mmask, covered, mvals, pvals = prepare(row, mpl, pair_w)
    precompute(row, mmask, covered, mvals, pvals, mpl, pair_w, mull_w, hz, mv, nm, scratch)
    base = estimate(row, -1, 0, eu, mpl, pair_w, mull_w, hz, mv, nm)
    for q in range(9):
        full = estimate(row, q, c, eu, mpl, pair_w, mull_w, hz, mv, nm) - base
        quick = quick_delta(row, q, c, scratch, eu, mpl, pair_w, mull_w, hz, mv, nm)
        assert abs(full - quick) < 1e-9, (q, full, quick)
