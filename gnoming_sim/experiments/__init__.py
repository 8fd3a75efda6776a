"""Experiments on the engine that answer one question each: rules variants on the same deals
(:mod:`.compare`), and a strategy against another on deals tuning never saw (:mod:`.heldout`).

May import :mod:`gnoming_sim.game`, :mod:`gnoming_sim.kernel`, :mod:`gnoming_sim.batch` and
:mod:`gnoming_sim.search` (the Monte Carlo player's cost counters).
"""
