"""The value network's answers for a position (:mod:`gnoming_sim.kernel.value`, its weights read by
:mod:`gnoming_sim.search.value_weights`): every seat's chance of winning from the position as it stands
(:func:`position_values`), and every option valued at 0-ply (:func:`zero_ply`: :mod:`gnoming_sim.search.zero_ply`).
"""
from __future__ import annotations

import numpy as np

from gnoming_sim.game.errors import GnomingError
from gnoming_sim.kernel import value as V
from gnoming_sim.search.value_weights import WEIGHTS, read_weights, weights
from gnoming_sim.stats import Z95

MAX_DETERMINIZATIONS = 100_000


def position_values(pos) -> dict:
    """Every seat's chance of winning the game (%) and expected final game score against the table's mean
    (points) from ``pos`` as the player to move sees it: ``{"win": [...], "margin": [...]}`` by seat."""
    from gnoming_sim.search.analyse import setup
    from gnoming_sim.search.oracle import BASE
    from gnoming_sim.search.zero_ply import value_here

    s = setup(pos, BASE)
    win, margin = np.zeros(V.MAX_SEATS), np.zeros(V.MAX_SEATS)
    P = value_here(s.start, s.roll, weights(), win, margin)
    return {"win": [100 * float(v) for v in win[:P]], "margin": [float(v) for v in margin[:P]]}


def zero_ply(pos, *, determinizations: int = 64, seed: int = 0, first: int = 0, policies=None,
             threads: int | None = None, samples: bool = False) -> dict:
    """Every legal option of ``pos`` valued at 0-ply: the value network's chance of winning (%) at the next
    decision of another seat, the mean over ``determinizations`` deals of the unseen cards (common to every
    option); each option's mean, its difference behind the best with a paired 95% interval over the
    determinizations (an interval of the sampling of unseen cards: the network's own error is not in it),
    and the expected final margin against the table's mean in points.  Deal i is the stream of ``(seed,
    first + i)``; ``samples``: also ``win`` float64[n, K], every deal's value (a probability) of every option."""
    from gnoming_sim.kernel.game_loop import run_blocks
    from gnoming_sim.search.analyse import setup
    from gnoming_sim.search.oracle import BASE
    from gnoming_sim.search.zero_ply import N_Z, Z_MARGIN, Z_WIN, zero_ply_batch

    if isinstance(determinizations, bool) or not isinstance(determinizations, (int, np.integer)) \
            or not 1 <= determinizations <= MAX_DETERMINIZATIONS:
        raise GnomingError(f"determinizations must be a whole number in 1..{MAX_DETERMINIZATIONS}, "
                           f"got {determinizations!r}")
    s = setup(pos, BASE if policies is None else policies)
    n, K = int(determinizations), len(s.options)
    out = np.zeros((n, K, N_Z))
    w = weights()
    seed = np.uint64(seed)
    run_blocks(lambda lo, hi: zero_ply_batch(np.int64(first + lo), seed, s.start, s.roll, w, out[lo:hi]), n, 16,
               threads)
    win = 100 * out[:, :, Z_WIN]
    best = int(np.argmax(win.mean(0)))
    rows = []
    for k, opt in enumerate(s.options):
        d = win[:, best] - win[:, k]
        se = d.std(ddof=1) / np.sqrt(n) if n > 1 else 0.0
        m = float(win[:, k].mean())
        mse = win[:, k].std(ddof=1) / np.sqrt(n) if n > 1 else 0.0
        rows.append({"key": opt.key, "option": opt.label, "n": n, "mean": m,
                     "ci95": [m - Z95 * mse, m + Z95 * mse], "diff": float(d.mean()),
                     "diff_ci95": [float(d.mean() - Z95 * se), float(d.mean() + Z95 * se)],
                     "margin": float(out[:, k, Z_MARGIN].mean()), "best": k == best})
    order = sorted(range(K), key=lambda k: -rows[k]["mean"])
    for rank, k in enumerate(order):
        rows[k]["rank"] = rank + 1
    res = {"level": "0-ply", "n": n, "unit": "determinizations", "options": rows, "best": s.options[best].key}
    if samples:
        res["win"] = out[:, :, Z_WIN].copy()
    return res


__all__ = ["read_weights", "weights", "position_values", "zero_ply", "WEIGHTS"]
