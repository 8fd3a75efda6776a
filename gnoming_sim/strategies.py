"""The strategy registry: name -> (family kind, parameter vector)."""
from __future__ import annotations

from dataclasses import dataclass, field

import numpy as np

from ._strategy import KIND_RANDOM, N_PARAMS
from .errors import GnomingError


@dataclass(frozen=True)
class Strategy:
    name: str
    kind: int
    description: str
    params: dict = field(default_factory=dict)

    def param_vector(self) -> np.ndarray:
        return np.zeros(N_PARAMS, dtype=np.float64)


_REGISTRY: dict[str, Strategy] = {
    "random": Strategy("random", KIND_RANDOM, "uniform over the legal choices at every decision point"),
}


def names() -> list[str]:
    return list(_REGISTRY)


def get(name: str) -> Strategy:
    try:
        return _REGISTRY[name]
    except KeyError:
        raise GnomingError(f"unknown strategy '{name}' (known: {', '.join(names())})") from None
