"""The value network's answers for a position (:mod:`gnoming_sim.kernel.value`): its weights, loaded and
checked once, every seat's chance of winning from the position as it stands (:func:`position_values`),
and every option valued at 0-ply (:func:`zero_ply`: :mod:`gnoming_sim.search.zero_ply`).

The weights are ``value_weights.json`` beside the kernel (fitted by :mod:`gnoming_sim.tune.value_train`,
their provenance in ``tuning/value/``).  A file that is missing, of another format or another network's
inputs is refused in one sentence: nothing falls back to other play.
"""
from __future__ import annotations

import json
from functools import lru_cache
from pathlib import Path

import numpy as np

from gnoming_sim.game.errors import GnomingError
from gnoming_sim.kernel import value as V

WEIGHTS = Path(V.__file__).with_name("value_weights.json")
FORMAT = 1
Z95 = 1.959963984540054
MAX_DETERMINIZATIONS = 100_000


def read_weights(path) -> np.ndarray:
    """The weight vector of a value-network file, checked against the kernel's network, or a GnomingError."""
    path = Path(path)
    try:
        body = json.loads(path.read_text())
    except FileNotFoundError:
        raise GnomingError(f"the value network's weights are missing ({path}): reinstall gnoming-sim, or "
                           "make train-value") from None
    except (OSError, UnicodeDecodeError, ValueError, RecursionError) as exc:
        raise GnomingError(f"the value network's weights cannot be read ({path}): {type(exc).__name__}") from None
    if not isinstance(body, dict) or body.get("format") != FORMAT:
        raise GnomingError(f"the value network's weights ({path}) are of another format than this gnoming-sim's "
                           f"({FORMAT}): make train-value, or reinstall")
    if (body.get("seat_inputs") != list(V.SEAT_NAMES) or body.get("context_inputs") != list(V.CONTEXT_NAMES)
            or body.get("hidden_units") != V.HIDDEN_UNITS):
        raise GnomingError(f"the value network's weights ({path}) are for other inputs than this gnoming-sim's "
                           "network: make train-value, or reinstall")
    w = body.get("weights")
    if not isinstance(w, list) or len(w) != V.N_WEIGHTS or not all(
            isinstance(v, (int, float)) and not isinstance(v, bool) for v in w):
        raise GnomingError(f"the value network's weights ({path}) are not {V.N_WEIGHTS} numbers")
    arr = np.array(w, dtype=np.float64)
    if not np.all(np.isfinite(arr)):
        raise GnomingError(f"the value network's weights ({path}) hold a number that is not finite")
    return arr


@lru_cache(maxsize=1)
def _installed() -> np.ndarray:
    w = read_weights(WEIGHTS)
    w.setflags(write=False)
    return w


def weights() -> np.ndarray:
    """The installed weights (read once a process), a copy of its own for each caller: the kernels take one
    writable array type, so nothing compiles twice."""
    return _installed().copy()


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


def zero_ply(pos, *, determinizations: int = 64, seed: int = 0, policies=None, threads: int | None = None) -> dict:
    """Every legal option of ``pos`` valued at 0-ply: the value network's chance of winning (%) at the next
    decision of another seat, the mean over ``determinizations`` deals of the unseen cards (common to every
    option); each option's mean, its difference behind the best with a paired 95% interval over the
    determinizations (an interval of the sampling of unseen cards: the network's own error is not in it),
    and the expected final margin against the table's mean in points."""
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
    run_blocks(lambda lo, hi: zero_ply_batch(np.int64(lo), seed, s.start, s.roll, w, out[lo:hi]), n, 16, threads)
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
    return {"level": "0-ply", "n": n, "unit": "determinizations", "options": rows, "best": s.options[best].key}


__all__ = ["read_weights", "weights", "position_values", "zero_ply", "WEIGHTS"]
