"""What every study shares: designs (lineups), the Study framework, estimates and their
intervals, the words said of them (holds under, per table size, preview), paired experiments
on edited deals, trace readers, plots, HTML rendering and the report's templates.

Imports only the lower stages (``gnoming_sim.game``, ``kernel``, ``batch``), never a study.
"""
