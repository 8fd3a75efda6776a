"""Study ``house-rules``: what each rules option or deck change does to the game.

Imports only :mod:`gnoming_sim.analyses.framework` and lower stages.
"""
from .study import HouseRules

__all__ = ["HouseRules"]
