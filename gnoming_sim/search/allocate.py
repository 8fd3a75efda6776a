"""How the Monte Carlo player spends its rollouts on one decision: a fixed budget per option, or
best-arm identification with a stopping rule (in the style of the Scrabble engines Macondo and
MAGPIE).

Rollouts run in *rounds*: round i rolls every option still in play out once, all on the same
determinization and random stream (common random numbers), so ``values[i, k] - values[i, b]`` is a
paired difference.  With a fixed budget (``mc_adaptive`` 0, the ``mc`` preset) every option gets
``mc_budget`` rounds.  Adaptive (``mc_adaptive`` 1):

* after ``mc_min`` rounds, after every round, let b be the option in play with the lowest mean and,
  for every other option k in play, d̄ and se the mean and standard error of its paired differences
  ``values[:n, k] - values[:n, b]``; k is dropped when ``d̄ - z·se > -eps``: with confidence it is
  not better than b by more than the indifference margin ``eps`` (with ``eps`` 0: it is significantly
  worse);
* the decision stops when one option is left, when the options in play have had ``mc_budget``
  rounds, or when the next round would take the decision past ``mc_max`` rollouts in all
  (0: no cap beyond ``mc_budget`` per option), which is therefore never exceeded.

The answer is the option in play with the lowest mean (the first of equals: option 0 is the base
policy's choice); with ``mc_keep`` > 0 it is the base policy's choice unless that lowest mean beats it by more
than ``mc_keep`` standard errors of their paired difference (a noisy search then overrides a strong base
only on evidence; :func:`keep_base`).  :func:`allocate` is the one loop; it is handed the function that rolls a round out
(``roll_round(ctx, i, active, values)``, writing ``values[i, k]`` for every k with ``active[k]``), the
bot's rollouts (:mod:`.bot`) or, in the tests, a table of made-up values (:func:`allocate_table`).
"""
from __future__ import annotations

import numpy as np

from gnoming_sim.kernel.jit import jit
from gnoming_sim.kernel.policy.dispatch import M_ADAPTIVE, M_BUDGET, M_EPS, M_KEEP, M_MAX, M_MIN, M_Z


@jit
def rounds_at_most(prm, K):
    """The most rounds a decision of K options can take (the rows ``values`` needs)."""
    budget = max(1, int(prm[M_BUDGET]))
    cap = int(prm[M_MAX])
    if prm[M_ADAPTIVE] > 0.0 and cap > 0:
        return max(1, min(budget, cap // min(K, 2)))
    return budget


@jit
def lowest_mean(values, n, active, K):
    """The option in play (``active``) with the lowest mean of ``values[:n]`` (the first of equals)."""
    best = -1
    best_mean = 0.0
    for k in range(K):
        if not active[k]:
            continue
        total = 0.0
        for i in range(n):
            total += values[i, k]
        mean = total / n if n > 0 else 0.0
        if best < 0 or mean < best_mean:
            best = k
            best_mean = mean
    return best


@jit
def paired_mean_se(values, n, k, b):
    """The mean of the paired differences ``values[:n, k] - values[:n, b]`` and its standard error (inf below
    two rounds)."""
    mean = 0.0
    for i in range(n):
        mean += values[i, k] - values[i, b]
    mean /= n
    ss = 0.0
    for i in range(n):
        d = values[i, k] - values[i, b] - mean
        ss += d * d
    return mean, (np.sqrt(ss / (n - 1) / n) if n > 1 else np.inf)


@jit
def keep_base(values, n, active, best, z_keep):
    """``best``, or 0 (the base policy's choice) when ``z_keep`` > 0, option 0 is still in play and ``best``
    does not beat it by more than ``z_keep`` standard errors of their paired difference."""
    if z_keep <= 0.0 or best == 0 or not active[0]:
        return best
    mean, se = paired_mean_se(values, n, best, 0)
    return best if mean + z_keep * se < 0.0 else 0


@jit
def drop_options(values, n, active, K, z, eps):
    """Drop every option in play whose paired difference to the best has ``d̄ - z·se > -eps``;
    return how many are left in play."""
    b = lowest_mean(values, n, active, K)
    left = 0
    for k in range(K):
        if not active[k]:
            continue
        if k == b:
            left += 1
            continue
        mean, se = paired_mean_se(values, n, k, b)
        if mean - z * se > -eps:
            active[k] = 0
        else:
            left += 1
    return left


@jit(inline="always")
def allocate(roll_round, ctx, K, prm, values, active, spent):
    """Run the rounds of one decision of K options (module docstring) and return the index of the
    answer; ``values`` float64[rounds_at_most(prm, K), K] and ``active`` int8[K] are workspace
    (``active`` ends as the options still in play), ``spent`` int64[2] gets the rollouts and the
    rounds run."""
    adaptive = prm[M_ADAPTIVE] > 0.0
    budget = max(1, int(prm[M_BUDGET]))
    cap = int(prm[M_MAX]) if adaptive else 0
    n_min = max(2, int(prm[M_MIN]))
    z = prm[M_Z]
    eps = prm[M_EPS]
    for k in range(K):
        active[k] = 1
    left = K
    n = 0
    used = 0
    while n < budget and (not adaptive or left > 1) and (cap <= 0 or used + left <= cap):
        roll_round(ctx, n, active, values)
        used += left
        n += 1
        if adaptive and n >= n_min:
            left = drop_options(values, n, active, K, z, eps)
    spent[0] = used
    spent[1] = n
    if n == 0:
        return 0
    return keep_base(values, n, active, lowest_mean(values, n, active, K), prm[M_KEEP])


@jit
def _table_round(samples, i, active, values):
    for k in range(samples.shape[1]):
        if active[k]:
            values[i, k] = samples[i, k]


@jit(py=True, nrt=True)
def allocate_table(samples, prm, spent):
    """:func:`allocate` on made-up rollout values ``samples`` float64[R, K] (round i of option k; R at
    least :func:`rounds_at_most`): the answer's index; ``spent`` int64[2] as in :func:`allocate`
    (for the tests of the allocation)."""
    K = samples.shape[1]
    values = np.empty((rounds_at_most(prm, K), K), dtype=np.float64)
    active = np.empty(K, dtype=np.int8)
    return allocate(_table_round, samples, K, prm, values, active, spent)
