"""Study ``agreement``: how often the card plays the oracle's answer on held-out net self-play decisions, and
what it gives up where it does not.

Imports only :mod:`gnoming_sim.analyses.framework`, :mod:`gnoming_sim.experiments.agreement` and lower stages.
"""
from .study import CardAgreement

__all__ = ["CardAgreement"]
