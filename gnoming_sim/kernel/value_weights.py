"""The value network's weights (:mod:`gnoming_sim.kernel.value`), read and checked once: a file that is
missing, of another format or another network's inputs is refused in one sentence, and nothing falls back
to other play.  The weights are ``value_weights.json`` beside the kernel (fitted by
:mod:`gnoming_sim.tune.value_train`, their provenance in ``tuning/value/``)."""
from __future__ import annotations

import json
from functools import lru_cache
from pathlib import Path

import numpy as np

from gnoming_sim.game.errors import GnomingError
from gnoming_sim.kernel import value as V

WEIGHTS = Path(V.__file__).with_name("value_weights.json")
FORMAT = 1


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


__all__ = ["read_weights", "weights", "WEIGHTS", "FORMAT"]
