"""Study ``ladder``: every strategy of the pool rated on one scale at 2, 4 and 6 players (design,
findings, figures, template); the experiment is :mod:`gnoming_sim.experiments.ladder`.

Imports only :mod:`gnoming_sim.analyses.framework` and lower stages.
"""
from .study import StrengthLadder

__all__ = ["StrengthLadder"]
