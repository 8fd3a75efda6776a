"""Study ``guide``: the committed player's guide (the cells the ``chart`` strategy plays, with their
margins, intervals and n) and what following it is worth against expert play (design, analysis,
figures, template); the derivation is :mod:`gnoming_sim.tune.guide`, the check
:mod:`gnoming_sim.experiments.chart_check`.

Imports only :mod:`gnoming_sim.analyses.framework` and lower stages.
"""
from .study import PlayersGuide

__all__ = ["PlayersGuide"]
