"""Study ``mulligan-value``: what a mulligan is worth, on paired edited deals (design, findings, figures, template).

Imports only :mod:`gnoming_sim.analyses.framework` and lower stages.
"""
from .study import MulliganValue

__all__ = ["MulliganValue"]
