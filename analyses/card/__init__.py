"""Study ``card``: the committed card (its cells with their margins, intervals and n; the ``card`` preset plays
it, ``card-starred`` its starred cells) and what following it is worth against expert play (design, findings,
figures, template); the derivation is :mod:`gnoming_sim.tune.card`, the check
:mod:`gnoming_sim.experiments.card_check`.

Imports only :mod:`gnoming_sim.analyses.framework` and lower stages.
"""
from .study import CardStudy

__all__ = ["CardStudy"]
