"""Run batches of traced kernel games through the referee (optionally in spawned processes)."""
from __future__ import annotations

import multiprocessing as mp
import os

import numpy as np

from gnoming_sim.kernel.engine import simulate
from gnoming_sim.reference.referee import RefereeCounts, replay_game


def _replay_slice(args):
    deals, traces, rules, players, stats, totals, win, seed, first, deck_sorted = args
    counts = RefereeCounts()
    for i in range(len(traces)):
        counts += replay_game(deals[i], traces[i], rules, players, stats[i], totals[i], win[i],
                              seed=seed, game=first + i, deck=deck_sorted)
    return counts


def referee_check(players, games, seed, rules=None, deck=None, strategies=("random",), processes=1):
    """Simulate traced games and replay every one; return the summed RefereeCounts."""
    res = simulate(players=players, games=games, seed=seed, rules=rules, deck=deck,
                   strategies=strategies, trace=True)
    deck_sorted = sorted(int(c) for c in res.deck.to_array())
    n_proc = max(1, min(processes, os.cpu_count() or 1))
    bounds = np.linspace(0, games, n_proc + 1).astype(int)
    jobs = [(res.deals[a:b], res.traces[a:b], res.rules, players, res.round_stats[a:b],
             res.totals[a:b], res.win_credit[a:b], seed, a, deck_sorted)
            for a, b in zip(bounds[:-1], bounds[1:]) if b > a]
    if len(jobs) == 1:
        parts = [_replay_slice(jobs[0])]
    else:  # spawn, never fork after numba's threading layer has run
        with mp.get_context("spawn").Pool(len(jobs)) as pool:
            parts = pool.map(_replay_slice, jobs)
    total = RefereeCounts()
    for p in parts:
        total += p
    return total
