"""Study ``early-finish``: the early-finish bonus: how often a finisher earns the -5 (design, findings, figures, template).

Imports only :mod:`gnoming_sim.analyses.framework` and lower stages.
"""
from .study import EarlyFinish

__all__ = ["EarlyFinish"]
