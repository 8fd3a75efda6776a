"""What every study shares: designs (lineups), the Study framework, the words said of estimates
(holds under, per table size, preview; the estimates are :mod:`gnoming_sim.stats`'s), paired experiments
on edited deals, trace readers, plots, HTML rendering and the report's templates.

Imports only the lower stages (``gnoming_sim.game``, ``kernel``, ``batch``), never a study.
"""
