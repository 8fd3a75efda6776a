"""Study ``hazard-risk``: what a hazard costs its holder and hands the others, on paired edited deals (design, findings, figures, template).

Imports only :mod:`gnoming_sim.analyses.framework` and lower stages.
"""
from .study import HazardRisk

__all__ = ["HazardRisk"]
