"""The search box of ``gnoming-sim tune``: the heuristic family's 11 parameters as CMA-ES coordinates.

CMA-ES samples with one step size for every coordinate, so each real parameter is scaled
to ``[0, SCALE]`` over a box wide enough to hold every preset's sensible values (one
``sigma0 = SCALE / 5`` moves a fifth of the box).  The switches (``bounce``,
``hazard_flip``) and ``initial_flips`` are integers: their coordinate *is* the value, its
bounds lie half-way past the end values (``-0.5 .. 1.5``) so every integer owns an
interval of the same width, and they are listed in cma's ``integer_variables`` option,
which rounds them and keeps their step size from collapsing (cma's documented integer
handling).  A start point outside the box is clipped into it.
"""
from __future__ import annotations

import numpy as np

from gnoming_sim.kernel.policy.heuristic import PARAM_NAMES
from gnoming_sim.kernel.policy.registry import Strategy
from gnoming_sim.kernel.policy.dispatch import KIND_HEURISTIC

SCALE = 10.0
SIGMA0 = 2.0          # in coordinate units: a fifth of every real parameter's box
INT_STD = 0.25        # cma's CMA_stds for integers: one step of SIGMA0 * INT_STD = 0.5

# name: (low, high, integer?) -- the box searched, in the parameter's own units
BOX = {
    "unseen_bias": (-3.0, 3.0, False),
    "pair_weight": (0.0, 1.5, False),
    "take_threshold": (-2.0, 6.0, False),
    "keep_threshold": (-3.0, 6.0, False),
    "reveal_bonus": (-3.0, 6.0, False),
    "mulligan_bonus": (-2.0, 12.0, False),
    "hazard_deny": (-2.0, 6.0, False),
    "finish_margin": (-20.0, 20.0, False),
    "bounce": (0, 1, True),
    "hazard_flip": (0, 1, True),
    "initial_flips": (0, 2, True),
}
assert tuple(BOX) == PARAM_NAMES

INTEGER = [i for i, name in enumerate(PARAM_NAMES) if BOX[name][2]]


def bounds() -> list[list[float]]:
    """cma's ``bounds`` option: ``[lower, upper]`` in coordinates."""
    lo, hi = [], []
    for low, high, is_int in BOX.values():
        lo.append(low - 0.5 if is_int else 0.0)
        hi.append(high + 0.5 if is_int else SCALE)
    return [lo, hi]


def gauss(*shape):
    """cma's ``randn``: standard normals from numpy's global generator.

    Named, so the draws are plainly those of the global generator, which the caller sets
    from ``(seed, generation)`` around every cma call (see ``tune.tuner``); a resume
    replays those calls (``tune.state``) and so draws the same numbers.
    """
    return np.random.standard_normal(shape)


def cma_options(popsize: int | None) -> dict:
    """The cma options of a tuning run (quiet: no files, no printing)."""
    opts = {"bounds": bounds(), "integer_variables": list(INTEGER),
            "CMA_stds": [INT_STD if i in INTEGER else 1.0 for i in range(len(PARAM_NAMES))],
            "randn": gauss, "seed": float("nan"), "verbose": -9, "verb_log": 0, "verb_disp": 0,
            "tolfun": 0, "tolflatfitness": 10**9}   # noisy: never stop on flat fitness
    if popsize is not None:
        opts["popsize"] = popsize
    return opts


def encode(params: dict) -> np.ndarray:
    """Coordinates (float64 (11,)) of a parameter dict, clipped into the box."""
    x = np.empty(len(PARAM_NAMES))
    for i, (name, (low, high, is_int)) in enumerate(BOX.items()):
        value = float(params.get(name, 0.0))
        if name in ("bounce", "hazard_flip"):
            value = 1.0 if value > 0 else 0.0      # the kernel reads these as switches: > 0 is on
        value = min(max(value, low), high)
        x[i] = round(value) if is_int else (value - low) / (high - low) * SCALE
    return x


def decode(x) -> dict:
    """The parameter dict of coordinates ``x``: clipped into the box, integers rounded."""
    x = np.asarray(x, dtype=np.float64)
    params = {}
    for i, (name, (low, high, is_int)) in enumerate(BOX.items()):
        if is_int:
            params[name] = float(min(max(int(np.rint(x[i])), low), high))
        else:
            u = min(max(float(x[i]), 0.0), SCALE)
            params[name] = round(low + (high - low) * u / SCALE, 4)
    return params


def strategy(name: str, x, description: str = "") -> Strategy:
    """A heuristic Strategy with the parameters of coordinates ``x``."""
    return Strategy(name, KIND_HEURISTIC, description or f"tuning point {name}", decode(x))
