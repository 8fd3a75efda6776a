"""Study ``tournament``: the presets against each other (design, findings, figures, template).

Imports only :mod:`gnoming_sim.analyses.framework` and lower stages.
"""
from .study import Tournament

__all__ = ["Tournament"]
