"""Study ``finish-play-on``: finish the round or play on, by rollouts from positions of self-play games
(design, findings, figures, template).

Imports only :mod:`gnoming_sim.analyses.framework` and lower stages.
"""
from .study import FinishPlayOn

__all__ = ["FinishPlayOn"]
