"""The net's inference cost per option: ``option_value`` (the hidden layer over one option's features, after
the decision's context part) timed in a jitted loop, against learned's dot product over the same features.

    nice -n 19 python bench/net_option_cost.py
"""
import time

import numpy as np
from numba import njit

from gnoming_sim.kernel.policy import learned as L
from gnoming_sim.kernel.policy import net as NN
from gnoming_sim.kernel.policy import registry
from gnoming_sim.kernel.policy.dispatch import L_W0, N_W0, new_memo


@njit(cache=False)
def _net_loop(buf, prm, w0, n):
    s = 0.0
    for k in range(n):
        buf[NN.FB] = 1.0 + k * 1e-6     # one feature moves, so nothing is hoisted
        s += NN.option_value(buf, prm, w0)
    return s


@njit(cache=False)
def _linear_loop(buf, prm, w0, n):
    s = 0.0
    for k in range(n):
        buf[L.FB] = 1.0 + k * 1e-6
        v = 0.0
        for i in range(L.NF_P):
            v += prm[w0 + i] * buf[L.FB + i]
        s += v
    return s


def main(n: int = 2_000_000) -> None:
    rng = np.random.default_rng(0)
    buf = new_memo().scratch
    buf[:] = rng.normal(size=buf.size)
    # an option's features are mostly 0 (a reveal, a gift and a finish exclude one another): 5 of 22 non-zero,
    # the training rows average 4.8
    off = rng.permutation(L.NF_P)[:L.NF_P - 5]
    buf[L.FB + off] = 0.0
    net = registry.get("net").param_vector()
    lin = registry.get("learned").param_vector()
    NN.hidden_context(buf, net, N_W0)
    for name, f, prm, w0 in (("net option_value", _net_loop, net, N_W0), ("learned dot", _linear_loop, lin, L_W0)):
        f(buf, prm, w0, 10)
        best = min(_timed(f, buf, prm, w0, n) for _ in range(3))
        print(f"{name}: {best / n * 1e9:.1f} ns per option (best of 3, {n} options)")
    print(f"net: {NN.MACS_PER_OPTION} multiply-adds per option, {NN.HIDDEN_UNITS * NN.NC} once per decision")


def _timed(f, buf, prm, w0, n):
    t0 = time.perf_counter()
    f(buf, prm, w0, n)
    return time.perf_counter() - t0


if __name__ == "__main__":
    main()
