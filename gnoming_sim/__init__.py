"""gnoming-sim: a Monte Carlo simulator for the card game Gnoming A Round.

``simulate`` and ``score_layout`` live in :mod:`gnoming_sim.engine`; they are imported
on first use so that ``import gnoming_sim`` stays cheap (no numba compilation).
"""
from __future__ import annotations

from importlib import metadata as _metadata

from .deck import PUBLISHED, Deck
from .errors import GnomingError
from .rules import RuleConfig

try:
    __version__ = _metadata.version("gnoming-sim")
except _metadata.PackageNotFoundError:  # running from a source tree that is not installed
    __version__ = "0.1.0"

__all__ = ["__version__", "RuleConfig", "Deck", "PUBLISHED", "GnomingError", "score_layout", "simulate"]

_LAZY = {"score_layout": "engine", "simulate": "engine"}


def __getattr__(name: str):
    if name in _LAZY:
        from importlib import import_module

        value = getattr(import_module(f".{_LAZY[name]}", __name__), name)
        globals()[name] = value  # later look-ups skip this hook
        return value
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")


def __dir__():
    return sorted(set(globals()) | set(__all__))
